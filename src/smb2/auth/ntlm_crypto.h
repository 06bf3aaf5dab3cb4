/* SPDX-License-Identifier: MIT */
#ifndef NASD_SMB2_AUTH_NTLM_CRYPTO_H
#define NASD_SMB2_AUTH_NTLM_CRYPTO_H

/*
 * The primitives NTLM is built from (MS-NLMP §6): HMAC-MD5 and MD5 from
 * OpenSSL 3's default provider, MD4 and RC4 from nettle (OpenSSL 3 keeps
 * those two in its legacy provider, whose loading changes global state).
 * Messages are given as lists of pieces so that no caller concatenates
 * wire bytes into a temporary buffer. Every function wipes what it kept on
 * the stack; callers wipe their own keys (ntlm_wipe()).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NTLM_HASH_LEN 16 /* MD4, MD5 and HMAC-MD5 outputs, NTLM keys */

/* One piece of a message. */
struct ntlm_part {
	const void *p;
	size_t len;
};

/*
 * ntlm_hmac_md5() - HMAC_MD5(@key, the @n pieces of @parts) into @out.
 * Returns 0, or -ENOMEM / -EIO when libcrypto fails.
 */
int ntlm_hmac_md5(const uint8_t *key, size_t keylen,
		  const struct ntlm_part *parts, size_t n,
		  uint8_t out[NTLM_HASH_LEN]);

/* ntlm_md5() - MD5 of the @n pieces of @parts. Returns 0 or -errno. */
int ntlm_md5(const struct ntlm_part *parts, size_t n,
	     uint8_t out[NTLM_HASH_LEN]);

/* ntlm_md4() - MD4 of @len bytes at @p (RFC 1320). */
void ntlm_md4(const uint8_t *p, size_t len, uint8_t out[NTLM_HASH_LEN]);

/*
 * ntlm_rc4() - RC4 with the 16-byte @key over @len bytes from @in to @out
 * (which may be the same buffer): RC4K() of MS-NLMP §6, a fresh key
 * stream each call.
 */
void ntlm_rc4(const uint8_t key[NTLM_HASH_LEN], const uint8_t *in, size_t len,
	      uint8_t *out);

/*
 * ntlm_nt_hash() - the NT hash of a password given in UTF-8: MD4 of its
 * UTF-16LE form (MS-NLMP §3.3.1 NTOWFv1, which NTOWFv2 keys from).
 * Returns 0, -EINVAL (not well-formed UTF-8, or a NUL in it),
 * -ENAMETOOLONG (over NTLM_PASSWORD_MAX bytes).
 */
#define NTLM_PASSWORD_MAX 512 /* bytes of UTF-8 */
int ntlm_nt_hash(const char *password, size_t len, uint8_t out[NTLM_HASH_LEN]);

/* ntlm_equal() - whether @n bytes at @a and @b are equal, in constant time
 * (CRYPTO_memcmp): for MACs and proofs, never memcmp(). */
bool ntlm_equal(const void *a, const void *b, size_t n);

/* ntlm_wipe() - erase a secret so that the compiler cannot elide it. */
void ntlm_wipe(void *p, size_t n);

/* ntlm_random() - @n bytes from RAND_bytes(). Returns 0 or -EIO. */
int ntlm_random(uint8_t *p, size_t n);

#endif
