/* SPDX-License-Identifier: MIT */
/*
 * NTLM's primitives over OpenSSL 3 (HMAC-MD5, MD5, randomness, constant-time
 * compare, cleansing) and nettle (MD4, RC4).
 *
 * The HMAC and MD5 implementations are fetched once (pthread_once): a fetch
 * takes libcrypto's property-cache lock, and a SESSION_SETUP should not
 * queue behind other threads for it. The HMAC template context has its
 * digest set already; each call duplicates it and sets only the key.
 */
#include <errno.h>
#include <pthread.h>

#include <nettle/arcfour.h>
#include <nettle/md4.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/rand.h>

#include "smb2/auth/ntlm_crypto.h"
#include "smb2/utf16.h"

static pthread_once_t crypto_once = PTHREAD_ONCE_INIT;
static EVP_MAC_CTX *hmac_md5_tmpl; /* digest set, no key; read-only */
static EVP_MD *md5_md;

static void crypto_init(void)
{
	char digest[] = "MD5";
	OSSL_PARAM params[] = {
		OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest,
						 0),
		OSSL_PARAM_construct_end(),
	};
	EVP_MAC *mac;

	md5_md = EVP_MD_fetch(NULL, "MD5", NULL);
	mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
	if (!mac)
		return;
	hmac_md5_tmpl = EVP_MAC_CTX_new(mac);
	EVP_MAC_free(mac); /* the context keeps its own reference */
	if (hmac_md5_tmpl && !EVP_MAC_CTX_set_params(hmac_md5_tmpl, params)) {
		EVP_MAC_CTX_free(hmac_md5_tmpl);
		hmac_md5_tmpl = NULL;
	}
}

int ntlm_hmac_md5(const uint8_t *key, size_t keylen,
		  const struct ntlm_part *parts, size_t n,
		  uint8_t out[NTLM_HASH_LEN])
{
	EVP_MAC_CTX *ctx;
	size_t outl = 0, i;
	int ret = -EIO;

	pthread_once(&crypto_once, crypto_init);
	if (!hmac_md5_tmpl)
		return -EIO;
	ctx = EVP_MAC_CTX_dup(hmac_md5_tmpl);
	if (!ctx)
		return -ENOMEM;
	if (!EVP_MAC_init(ctx, key, keylen, NULL))
		goto out_free;
	for (i = 0; i < n; i++)
		if (parts[i].len &&
		    !EVP_MAC_update(ctx, parts[i].p, parts[i].len))
			goto out_free;
	if (!EVP_MAC_final(ctx, out, &outl, NTLM_HASH_LEN) ||
	    outl != NTLM_HASH_LEN)
		goto out_free;
	ret = 0;
out_free:
	EVP_MAC_CTX_free(ctx); /* cleanses the key schedule */
	return ret;
}

int ntlm_md5(const struct ntlm_part *parts, size_t n,
	     uint8_t out[NTLM_HASH_LEN])
{
	unsigned int outl = 0;
	EVP_MD_CTX *ctx;
	int ret = -EIO;
	size_t i;

	pthread_once(&crypto_once, crypto_init);
	if (!md5_md)
		return -EIO;
	ctx = EVP_MD_CTX_new();
	if (!ctx)
		return -ENOMEM;
	if (!EVP_DigestInit_ex(ctx, md5_md, NULL))
		goto out_free;
	for (i = 0; i < n; i++)
		if (parts[i].len &&
		    !EVP_DigestUpdate(ctx, parts[i].p, parts[i].len))
			goto out_free;
	if (!EVP_DigestFinal_ex(ctx, out, &outl) || outl != NTLM_HASH_LEN)
		goto out_free;
	ret = 0;
out_free:
	EVP_MD_CTX_free(ctx);
	return ret;
}

void ntlm_md4(const uint8_t *p, size_t len, uint8_t out[NTLM_HASH_LEN])
{
	struct md4_ctx ctx;

	md4_init(&ctx);
	md4_update(&ctx, len, p);
	md4_digest(&ctx, NTLM_HASH_LEN, out);
	OPENSSL_cleanse(&ctx, sizeof(ctx));
}

void ntlm_rc4(const uint8_t key[NTLM_HASH_LEN], const uint8_t *in, size_t len,
	      uint8_t *out)
{
	struct arcfour_ctx ctx;

	arcfour_set_key(&ctx, NTLM_HASH_LEN, key);
	arcfour_crypt(&ctx, len, out, in);
	OPENSSL_cleanse(&ctx, sizeof(ctx));
}

int ntlm_nt_hash(const char *password, size_t len, uint8_t out[NTLM_HASH_LEN])
{
	uint8_t u16[2 * NTLM_PASSWORD_MAX];
	size_t n = 0;
	int ret;

	if (len > NTLM_PASSWORD_MAX)
		return -ENAMETOOLONG;
	ret = utf8_to_utf16le(password, len, u16, sizeof(u16), &n);
	if (ret == 0)
		ntlm_md4(u16, n, out);
	OPENSSL_cleanse(u16, sizeof(u16));
	return ret;
}

bool ntlm_equal(const void *a, const void *b, size_t n)
{
	return CRYPTO_memcmp(a, b, n) == 0;
}

void ntlm_wipe(void *p, size_t n)
{
	OPENSSL_cleanse(p, n);
}

int ntlm_random(uint8_t *p, size_t n)
{
	return RAND_bytes(p, (int)n) == 1 ? 0 : -EIO;
}
