/* SPDX-License-Identifier: MIT */
#ifndef NASD_SMB2_CRYPTO_H
#define NASD_SMB2_CRYPTO_H

/*
 * SMB2/3 cryptography (MS-SMB2 §3.1.4): the SP800-108 key derivation, a
 * session's keys, message signing and verification, and the SMB 3.1.1
 * preauthentication integrity hash. On OpenSSL 3 libcrypto, which no other
 * smb2/ file includes.
 *
 * Keys. smb2_session_keys_derive() turns the key that authentication
 * produced (NTLMSSP's ExportedSessionKey, later Kerberos' session key) and,
 * for 3.1.1, the session's preauth hash into a struct smb2_keys:
 * Session.SigningKey as a struct smb2_sign_key ready to sign with,
 * Session.ApplicationKey, and the two cipher keys when a cipher was
 * negotiated (§3.3.5.5.3). A channel bound to the session later
 * (multichannel) has only a signing key of its own: smb2_sign_key_derive().
 * The owner wipes a key set with smb2_keys_wipe() (or a lone signing key
 * with smb2_sign_key_wipe()) once nothing signs with it any more: every
 * byte, and OpenSSL's contexts, are cleansed (OPENSSL_cleanse).
 *
 * Messages. A message is an iovec list: a reply as the engine's segments, a
 * request as the one segment it arrived in. It is exactly the bytes from
 * its SMB2 header up to the next header of a compound (padding included,
 * §3.1.4.1) or to its end. The 16-byte Signature field at header offset 48
 * is read as zero whatever it holds, and nothing is written into the
 * message: smb2_sign() returns the signature for the caller to store at
 * offset 48, smb2_verify() takes the received one from there. The caller
 * sets SMB2_FLAGS_SIGNED in Flags before signing (the flag is signed too)
 * and chooses the key (§3.3.4.1.1: the session's for SESSION_SETUP
 * responses other than STATUS_SUCCESS, else the channel's).
 *
 * Cost. Algorithms are fetched once per process (smb2_crypto_init()). A
 * signing key holds a keyed OpenSSL context as a template and up to
 * SMB2_SIGN_SPARES spare copies of it: a signature takes a spare without
 * a lock, restarts it with the same key (and, for GMAC, the message's
 * nonce), feeds the iovecs where they lie and puts the context back. Only
 * when more threads sign with one key at the same moment than there are
 * spares is the template duplicated. The message is never copied.
 *
 * Threads. Any number of threads may sign and verify with one key at
 * once. Deriving into a struct, and wiping it, must not overlap any other
 * use of that struct (the session's reference count sees to that).
 *
 * Encryption (crypto_seal.c, §3.1.4.3). With a cipher, the key set also
 * holds two seal keys: @dec (Session.DecryptionKey, opens requests) and
 * @enc (Session.EncryptionKey, seals responses and the server's own
 * messages), each an AES-128/256-CCM or -GCM context keyed once and
 * copied per message. smb2_encrypt() writes the 52-byte TRANSFORM_HEADER
 * (§2.2.41) and encrypts the message's iovecs where they lie;
 * smb2_decrypt() checks a received TRANSFORM_HEADER and decrypts the
 * message after it in place. No nonce repeats under one key: each is the
 * key's 64-bit message counter and a random salt.
 */

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#define SMB2_SIG_OFFSET	     48 /* Signature in the SMB2 header */
#define SMB2_SIG_SIZE	     16
#define SMB2_SIGNED_MIN	     64 /* a signed message has its header */
#define SMB2_SIGN_KEY_SIZE   16 /* every signing key, Session.SessionKey */
#define SMB2_CIPHER_KEY_MAX  32 /* AES-256 */
#define SMB2_PREAUTH_SIZE    64 /* SHA-512 */
#define SMB2_GMAC_NONCE_SIZE 12
#define SMB2_SIGN_SPARES     4 /* spare contexts kept per signing key */
#define SMB2_TRANSFORM_LEN   52 /* the TRANSFORM_HEADER (§2.2.41) */
#define SMB2_TRANSFORM_PROTOCOL_ID 0x424d53fdu /* 0xFD 'S' 'M' 'B' */

/* SigningAlgorithmId values of SMB2_SIGNING_CAPABILITIES (§2.2.3.1.7). */
enum smb2_sign_alg {
	SMB2_SIGN_HMAC_SHA256 = 0x0000,
	SMB2_SIGN_AES_CMAC = 0x0001,
	SMB2_SIGN_AES_GMAC = 0x0002,
};

/* Cipher values of SMB2_ENCRYPTION_CAPABILITIES (§2.2.3.1.2). */
enum smb2_cipher {
	SMB2_CIPHER_NONE = 0x0000,
	SMB2_CIPHER_AES128_CCM = 0x0001,
	SMB2_CIPHER_AES128_GCM = 0x0002,
	SMB2_CIPHER_AES256_CCM = 0x0003,
	SMB2_CIPHER_AES256_GCM = 0x0004,
};

struct smb2_mac_pool; /* crypto.c: the keyed template and its spares */

/*
 * A key to sign with: Session.SigningKey, Channel.SigningKey, or (2.x)
 * Session.SessionKey. All zero (or wiped) means no key; smb2_sign() then
 * fails. @key is kept for the tests and for session binding to compare;
 * the computation uses @pool.
 */
struct smb2_sign_key {
	enum smb2_sign_alg alg;
	uint8_t key[SMB2_SIGN_KEY_SIZE];
	struct smb2_mac_pool *pool;
};

/*
 * A key to encrypt or decrypt with (crypto_seal.c): @tmpl is an OpenSSL
 * cipher context keyed for @cipher and one direction, only ever copied.
 * An encryption key's nonces are @counter (taken atomically, never
 * wrapping) and @salt.
 */
struct smb2_seal_key {
	enum smb2_cipher cipher;
	void *tmpl;
	_Atomic uint64_t counter;
	uint8_t salt[4];
};

/* A session's keys (MS-SMB2 §3.3.1.8), from smb2_session_keys_derive(). */
struct smb2_keys {
	struct smb2_sign_key sign;	  /* Session.SigningKey */
	uint8_t app[SMB2_SIGN_KEY_SIZE];  /* Session.ApplicationKey */
	enum smb2_cipher cipher;	  /* NONE: no cipher keys */
	size_t cipher_len;		  /* 16 or 32; 0 with NONE */
	uint8_t c2s[SMB2_CIPHER_KEY_MAX]; /* Session.DecryptionKey */
	uint8_t s2c[SMB2_CIPHER_KEY_MAX]; /* Session.EncryptionKey */
	struct smb2_seal_key dec;	  /* from @c2s, with a cipher */
	struct smb2_seal_key enc;	  /* from @s2c, with a cipher */
};

/*
 * smb2_crypto_init() - fetch the algorithms from OpenSSL's default provider
 * (once per process; later calls return the first result). Every function
 * here calls it; call it at start-up so that a libcrypto without them fails
 * there and not at the first logon. Returns 0 or -EOPNOTSUPP.
 */
int smb2_crypto_init(void);

/*
 * smb2_kdf() - the SP800-108 KDF in counter mode with HMAC-SHA256, r = 32
 * (MS-SMB2 §3.1.4.2): @out_len bytes (L = 8 * @out_len; SMB uses 16 and
 * 32, at most 64 here) into @out, from @key, @label and @context. The PRF
 * input is i || Label || 0x00 || Context || L. SMB's labels and contexts
 * are strings whose NUL terminator counts (sizeof("SMBSigningKey") = 14);
 * pass the lengths so. Returns 0, -EINVAL, -EIO (OpenSSL failed; @out is
 * then cleansed).
 */
int smb2_kdf(const uint8_t *key, size_t key_len, const void *label,
	     size_t label_len, const void *context, size_t context_len,
	     uint8_t *out, size_t out_len);

/*
 * smb2_sign_key_init() - make @k (all zero, or wiped) a signing key for
 * @alg with the 16 bytes at @key. Returns 0, -EINVAL (unknown @alg),
 * -ENOMEM, -EIO, -EOPNOTSUPP; on failure @k stays all zero. The caller
 * owns @k and ends it with smb2_sign_key_wipe().
 */
int smb2_sign_key_init(struct smb2_sign_key *k, enum smb2_sign_alg alg,
		       const uint8_t key[SMB2_SIGN_KEY_SIZE]);

/*
 * smb2_sign_key_derive() - the signing key of a session or channel
 * (MS-SMB2 §3.3.5.5.3) into @k (all zero, or wiped): for dialect 0x0202
 * and 0x0210, Session.SessionKey itself (first 16 bytes of @gss_key, zero
 * padded); for 0x0300 and 0x0302, KDF(SessionKey, "SMB2AESCMAC",
 * "SmbSign"); for 0x0311, KDF(SessionKey, "SMBSigningKey", @preauth), the
 * 64-byte preauth hash of the session (or, for a channel, of the binding's
 * exchange). @alg must be HMAC-SHA256 for 2.x, AES-CMAC for 3.0.x, any for
 * 3.1.1 (SIGNING_CAPABILITIES' choice, AES-CMAC without one). Returns 0,
 * -EINVAL (dialect, algorithm, missing key or hash), -ENOMEM, -EIO,
 * -EOPNOTSUPP; on failure @k stays all zero.
 */
int smb2_sign_key_derive(struct smb2_sign_key *k, uint16_t dialect,
			 enum smb2_sign_alg alg, const uint8_t *gss_key,
			 size_t gss_len, const uint8_t *preauth);

/*
 * smb2_sign_key_wipe() - free @k's OpenSSL contexts and cleanse every byte
 * of @k, leaving it all zero. No smb2_sign()/smb2_verify() with @k may be
 * running. An all-zero @k is left as it is; NULL is ignored.
 */
void smb2_sign_key_wipe(struct smb2_sign_key *k);

/*
 * smb2_session_keys_derive() - a session's keys into @k (its old contents
 * are overwritten, not freed: derive into a zeroed or wiped struct),
 * MS-SMB2 §3.3.5.5.3. @dialect, @alg, @gss_key, @gss_len and @preauth as
 * for smb2_sign_key_derive(). Session.ApplicationKey: KDF(SessionKey,
 * "SMB2APP", "SmbRpc") (3.0.x), KDF(SessionKey, "SMBAppKey", @preauth)
 * (3.1.1); 2.x has none, and @k->app holds Session.SessionKey, what 2.x
 * gives applications instead. With @cipher (3.0.x: AES-128-CCM only;
 * 3.1.1: any), the cipher keys as the server uses them: @k->c2s
 * (Session.DecryptionKey: "SMB2AESCCM"/"ServerIn ", or "SMBC2SCipherKey")
 * and @k->s2c (Session.EncryptionKey: "SMB2AESCCM"/"ServerOut", or
 * "SMBS2CCipherKey"), 32 bytes from Session.FullSessionKey (all of
 * @gss_key) for the AES-256 ciphers, else 16 from SessionKey. Returns 0,
 * -EINVAL, -ENOMEM, -EIO, -EOPNOTSUPP; on failure @k is left wiped. The
 * caller owns @k and ends it with smb2_keys_wipe().
 */
int smb2_session_keys_derive(struct smb2_keys *k, uint16_t dialect,
			     enum smb2_sign_alg alg, enum smb2_cipher cipher,
			     const uint8_t *gss_key, size_t gss_len,
			     const uint8_t *preauth);

/*
 * smb2_keys_wipe() - smb2_sign_key_wipe() of @k->sign and cleanse the rest
 * of @k, leaving it all zero. Same rules; NULL is ignored.
 */
void smb2_keys_wipe(struct smb2_keys *k);

/*
 * smb2_sign() - the 16-byte signature of the message @iov[0..@n) into @sig
 * (MS-SMB2 §3.1.4.1) with @k's algorithm: HMAC-SHA256 cut to 16 bytes,
 * AES-128-CMAC, or AES-128-GMAC with the nonce MessageId (@msgid, 8 bytes
 * little-endian) then 4 bytes whose bit 0 is @from_server and bit 1
 * @cancel (an SMB2 CANCEL request); @from_server and @cancel are ignored
 * by the other two. The Signature field counts as zero; the message is
 * only read. Returns 0, -EINVAL (no key; @n < 0; fewer than 64 bytes),
 * -ENOMEM, -EIO.
 */
int smb2_sign(const struct smb2_sign_key *k, uint64_t msgid, bool from_server,
	      bool cancel, const struct iovec *iov, int n,
	      uint8_t sig[SMB2_SIG_SIZE]);

/*
 * smb2_verify() - whether the Signature field of the message @iov[0..@n)
 * is smb2_sign()'s signature of it (MS-SMB2 §3.1.5.1), compared in
 * constant time. The message is only read. False also when it cannot be
 * computed (no key, a message shorter than its header, no memory).
 */
bool smb2_verify(const struct smb2_sign_key *k, uint64_t msgid,
		 bool from_server, bool cancel, const struct iovec *iov, int n);

/*
 * smb2_mac() - @k's bare MAC of the bytes @iov[0..@n) as they are (no
 * field zeroed, any length) into @mac: HMAC-SHA256 cut to 16 bytes,
 * AES-CMAC, or AES-GMAC with the 12-byte @nonce (not read by the others).
 * For known-answer tests and for MACs over other things than SMB2
 * messages. Returns 0, -EINVAL, -ENOMEM, -EIO.
 */
int smb2_mac(const struct smb2_sign_key *k,
	     const uint8_t nonce[SMB2_GMAC_NONCE_SIZE], const struct iovec *iov,
	     int n, uint8_t mac[SMB2_SIG_SIZE]);

/*
 * smb2_preauth_init() - the hash a preauth integrity chain starts from:
 * 64 zero bytes (MS-SMB2 §3.3.5.4: Connection.PreauthIntegrityHashValue).
 */
void smb2_preauth_init(uint8_t hash[SMB2_PREAUTH_SIZE]);

/*
 * smb2_preauth_update() - one link of the chain: @hash = SHA-512(@hash ||
 * message), the message being @iov[0..@n) (MS-SMB2 §3.3.5.4, §3.3.5.5).
 * The connection's chain takes the NEGOTIATE request and response; a
 * session's starts as a copy of that and takes each SESSION_SETUP request
 * and each response but the final STATUS_SUCCESS one, whose hash is the
 * 3.1.1 KDF context. Returns 0, -EINVAL, -EIO (then @hash is unchanged).
 */
int smb2_preauth_update(uint8_t hash[SMB2_PREAUTH_SIZE],
			const struct iovec *iov, int n);

/* smb2_cipher_key_len() - key bytes of @c (16 or 32), 0 for none. */
size_t smb2_cipher_key_len(enum smb2_cipher c);

/*
 * smb2_seal_key_init() - make @k (all zero, or wiped) a key of @cipher
 * for encrypting (@encrypt) or decrypting with the @key_len bytes at
 * @key, which must be smb2_cipher_key_len(@cipher); an encryption key
 * gets a random salt and its counter at 0. Returns 0, -EINVAL, -ENOMEM,
 * -EIO, -EOPNOTSUPP (libcrypto lacks the cipher); on failure @k stays all
 * zero. The owner ends it with smb2_seal_key_wipe().
 */
int smb2_seal_key_init(struct smb2_seal_key *k, enum smb2_cipher cipher,
		       bool encrypt, const uint8_t *key, size_t key_len);

/* smb2_seal_key_wipe() - free and cleanse @k (NULL or all zero: nothing). */
void smb2_seal_key_wipe(struct smb2_seal_key *k);

/*
 * smb2_encrypt() - encrypt the message @iov[0..@n) (an SMB2 message or
 * compound, 1 to 4 GiB - 1 bytes) in place with @k and write its
 * TRANSFORM_HEADER into @th (§3.1.4.3): a fresh nonce, OriginalMessageSize,
 * Flags = Encrypted, @session_id, and the tag as Signature, the header from
 * its Nonce on being the authenticated data. The caller sends @th then the
 * iovecs. Returns 0, -EINVAL, -ENOMEM, -EIO, or -EOVERFLOW when @k's
 * nonces are used up (the session must end); on failure the iovecs may
 * be garbled and must not be sent.
 */
int smb2_encrypt(struct smb2_seal_key *k, uint64_t session_id,
		 const struct iovec *iov, int n,
		 uint8_t th[SMB2_TRANSFORM_LEN]);

/*
 * smb2_transform_parse() - whether the @len bytes at @msg are a
 * well-formed encrypted message (§3.3.5.2.1.1): ProtocolId 0xFD 'S' 'M'
 * 'B', Flags = Encrypted, OriginalMessageSize = what follows the header,
 * and something follows. Gives its SessionId. Returns 0 or -EBADMSG.
 */
int smb2_transform_parse(const uint8_t *msg, size_t len, uint64_t *session_id);

/*
 * smb2_decrypt() - open the encrypted message at @msg (@len bytes from its
 * TRANSFORM_HEADER) with @k: the plaintext replaces the ciphertext in
 * place, at @msg + SMB2_TRANSFORM_LEN. Returns 0, -ENOMEM, or -EBADMSG
 * (malformed, or the tag does not match: then the bytes after the header
 * are wiped).
 */
int smb2_decrypt(const struct smb2_seal_key *k, uint8_t *msg, size_t len);

#endif
