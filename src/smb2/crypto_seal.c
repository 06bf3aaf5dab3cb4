// SPDX-License-Identifier: MIT
/*
 * SMB 3.x encryption (MS-SMB2 §3.1.4.3, §2.2.41): a message sealed under
 * the TRANSFORM_HEADER with AES-128/256-CCM or -GCM, on OpenSSL 3 (see
 * crypto.h for the model; with crypto.c the only smb2/ file that speaks
 * OpenSSL).
 *
 * A seal key holds one EVP_CIPHER_CTX keyed once for its cipher and
 * direction (the template, never used itself); each message works on a
 * copy of it, so any number of threads seal or open with one key at once
 * and no key schedule is computed per message.
 *
 * Nonces (§3.3.4.1.4: never reused under one key): the 8-byte counter of
 * the key, taken with an atomic increment, then the key's random salt (4
 * bytes for GCM's 12-byte nonce, 3 for CCM's 11). The counter does not
 * wrap: at 2^64 - 1 sealing fails and the session must end.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "core/le.h"
#include "smb2/crypto.h"

/* TRANSFORM_HEADER fields (§2.2.41). */
#define TH_PROTOCOL 0
#define TH_SIGNATURE 4
#define TH_NONCE 20
#define TH_ORIGINAL_SIZE 36
#define TH_FLAGS 42
#define TH_SESSION_ID 44
#define TH_AAD_LEN (SMB2_TRANSFORM_LEN - TH_NONCE)
#define TH_FLAG_ENCRYPTED 0x0001

#define CCM_NONCE_LEN 11
#define GCM_NONCE_LEN 12

static struct {
	EVP_CIPHER *alg[5]; /* by enum smb2_cipher */
	int err;
} ciphers;
static pthread_once_t ciphers_once = PTHREAD_ONCE_INIT;

static void ciphers_fetch(void)
{
	static const char *const names[5] = {
		[SMB2_CIPHER_AES128_CCM] = "AES-128-CCM",
		[SMB2_CIPHER_AES128_GCM] = "AES-128-GCM",
		[SMB2_CIPHER_AES256_CCM] = "AES-256-CCM",
		[SMB2_CIPHER_AES256_GCM] = "AES-256-GCM",
	};
	int i;

	for (i = SMB2_CIPHER_AES128_CCM; i <= SMB2_CIPHER_AES256_GCM; i++) {
		ciphers.alg[i] = EVP_CIPHER_fetch(NULL, names[i], NULL);
		if (!ciphers.alg[i])
			ciphers.err = -EOPNOTSUPP;
	}
}

static bool is_ccm(enum smb2_cipher c)
{
	return c == SMB2_CIPHER_AES128_CCM || c == SMB2_CIPHER_AES256_CCM;
}

static size_t nonce_len(enum smb2_cipher c)
{
	return is_ccm(c) ? CCM_NONCE_LEN : GCM_NONCE_LEN;
}

size_t smb2_cipher_key_len(enum smb2_cipher c)
{
	switch (c) {
	case SMB2_CIPHER_AES128_CCM:
	case SMB2_CIPHER_AES128_GCM:
		return 16;
	case SMB2_CIPHER_AES256_CCM:
	case SMB2_CIPHER_AES256_GCM:
		return 32;
	default:
		return 0;
	}
}

int smb2_seal_key_init(struct smb2_seal_key *k, enum smb2_cipher cipher,
		       bool encrypt, const uint8_t *key, size_t key_len)
{
	EVP_CIPHER_CTX *c;
	int ok;

	pthread_once(&ciphers_once, ciphers_fetch);
	if (!k || !key || !smb2_cipher_key_len(cipher) ||
	    key_len != smb2_cipher_key_len(cipher))
		return -EINVAL;
	if (ciphers.err)
		return ciphers.err;
	memset(k, 0, sizeof(*k));
	c = EVP_CIPHER_CTX_new();
	if (!c)
		return -ENOMEM;
	/* The nonce length (and, for CCM, the tag's) before the key. */
	ok = EVP_CipherInit_ex2(c, ciphers.alg[cipher], NULL, NULL,
				encrypt ? 1 : 0, NULL) &&
	     EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_SET_IVLEN,
				 (int)nonce_len(cipher), NULL) == 1 &&
	     (!is_ccm(cipher) ||
	      EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_SET_TAG, SMB2_SIG_SIZE,
				  NULL) == 1) &&
	     EVP_CipherInit_ex2(c, NULL, key, NULL, encrypt ? 1 : 0, NULL);
	if (!ok) {
		EVP_CIPHER_CTX_free(c);
		return -EIO;
	}
	if (encrypt && getrandom(k->salt, sizeof(k->salt), 0) !=
			       (ssize_t)sizeof(k->salt)) {
		EVP_CIPHER_CTX_free(c);
		return -EIO;
	}
	k->cipher = cipher;
	k->tmpl = c;
	return 0;
}

void smb2_seal_key_wipe(struct smb2_seal_key *k)
{
	if (!k)
		return;
	EVP_CIPHER_CTX_free(k->tmpl); /* the provider cleanses its key */
	OPENSSL_cleanse(k, sizeof(*k));
}

/* A working copy of @k's template, or NULL. */
static EVP_CIPHER_CTX *ctx_copy(const struct smb2_seal_key *k)
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();

	if (c && !EVP_CIPHER_CTX_copy(c, k->tmpl)) {
		EVP_CIPHER_CTX_free(c);
		c = NULL;
	}
	return c;
}

/* Run @c over @len bytes at @p, in place (EVP counts in int). */
static bool crypt_run(EVP_CIPHER_CTX *c, uint8_t *p, size_t len)
{
	int outl;

	while (len) {
		int chunk = len > (1u << 30) ? 1 << 30 : (int)len;

		if (!EVP_CipherUpdate(c, p, &outl, p, chunk) || outl != chunk)
			return false;
		p += chunk;
		len -= (size_t)chunk;
	}
	return true;
}

/*
 * Start one message on @c: its nonce and, for CCM, its length (which
 * CCM must know before the data), then the AAD: the TRANSFORM_HEADER
 * from its Nonce on (§3.1.4.3).
 */
static bool crypt_start(EVP_CIPHER_CTX *c, enum smb2_cipher cipher,
			const uint8_t th[SMB2_TRANSFORM_LEN], size_t len,
			const uint8_t *tag)
{
	int outl;

	if (!EVP_CipherInit_ex2(c, NULL, NULL, th + TH_NONCE, -1, NULL))
		return false;
	/* Opening: CCM checks the tag within the data's update, GCM at the
	 * end; either way it must be known before the data. */
	if (tag && EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_SET_TAG, SMB2_SIG_SIZE,
				       (void *)tag) != 1)
		return false;
	if (is_ccm(cipher) &&
	    (len > INT_MAX || !EVP_CipherUpdate(c, NULL, &outl, NULL, (int)len)))
		return false;
	return EVP_CipherUpdate(c, NULL, &outl, th + TH_NONCE, TH_AAD_LEN) == 1;
}

int smb2_encrypt(struct smb2_seal_key *k, uint64_t session_id,
		 const struct iovec *iov, int n,
		 uint8_t th[SMB2_TRANSFORM_LEN])
{
	uint8_t *flat = NULL, fin[16];
	size_t total = 0, off;
	uint64_t ctr;
	EVP_CIPHER_CTX *c;
	bool ok;
	int i, outl = 0;

	if (!k || !k->tmpl || !th || n < 0 || (n && !iov))
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (iov[i].iov_len > UINT32_MAX - total)
			return -EINVAL;
		total += iov[i].iov_len;
	}
	if (!total)
		return -EINVAL;
	ctr = atomic_fetch_add_explicit(&k->counter, 1, memory_order_relaxed);
	if (ctr == UINT64_MAX)
		return -EOVERFLOW; /* never reuse a nonce: end the session */
	memset(th, 0, SMB2_TRANSFORM_LEN);
	put_le32(th + TH_PROTOCOL, SMB2_TRANSFORM_PROTOCOL_ID);
	put_le64(th + TH_NONCE, ctr);
	memcpy(th + TH_NONCE + 8, k->salt, nonce_len(k->cipher) - 8);
	put_le32(th + TH_ORIGINAL_SIZE, (uint32_t)total);
	put_le16(th + TH_FLAGS, TH_FLAG_ENCRYPTED);
	put_le64(th + TH_SESSION_ID, session_id);
	/* CCM takes the whole message in one update: gather the pieces. */
	if (is_ccm(k->cipher) && n > 1) {
		flat = malloc(total);
		if (!flat)
			return -ENOMEM;
		for (i = 0, off = 0; i < n; off += iov[i].iov_len, i++)
			memcpy(flat + off, iov[i].iov_base, iov[i].iov_len);
	}
	c = ctx_copy(k);
	ok = c && crypt_start(c, k->cipher, th, total, NULL);
	if (flat) {
		ok = ok && crypt_run(c, flat, total);
		for (i = 0, off = 0; ok && i < n; off += iov[i].iov_len, i++)
			memcpy(iov[i].iov_base, flat + off, iov[i].iov_len);
	} else {
		for (i = 0; ok && i < n; i++)
			ok = crypt_run(c, iov[i].iov_base, iov[i].iov_len);
	}
	ok = ok && EVP_CipherFinal_ex(c, fin, &outl) == 1 && outl == 0 &&
	     EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_GET_TAG, SMB2_SIG_SIZE,
				 th + TH_SIGNATURE) == 1;
	EVP_CIPHER_CTX_free(c);
	if (flat) {
		OPENSSL_cleanse(flat, total);
		free(flat);
	}
	return ok ? 0 : c ? -EIO : -ENOMEM;
}

int smb2_transform_parse(const uint8_t *msg, size_t len, uint64_t *session_id)
{
	if (!msg || len <= SMB2_TRANSFORM_LEN ||
	    get_le32(msg + TH_PROTOCOL) != SMB2_TRANSFORM_PROTOCOL_ID ||
	    get_le16(msg + TH_FLAGS) != TH_FLAG_ENCRYPTED ||
	    get_le32(msg + TH_ORIGINAL_SIZE) != len - SMB2_TRANSFORM_LEN)
		return -EBADMSG;
	*session_id = get_le64(msg + TH_SESSION_ID);
	return 0;
}

int smb2_decrypt(const struct smb2_seal_key *k, uint8_t *msg, size_t len)
{
	uint8_t tag[SMB2_SIG_SIZE], fin[16];
	uint64_t sid;
	size_t data_len = len - SMB2_TRANSFORM_LEN;
	EVP_CIPHER_CTX *c;
	bool ok;
	int outl = 0;

	if (!k || !k->tmpl || smb2_transform_parse(msg, len, &sid))
		return -EBADMSG;
	memcpy(tag, msg + TH_SIGNATURE, sizeof(tag));
	c = ctx_copy(k);
	if (!c)
		return -ENOMEM;
	ok = crypt_start(c, k->cipher, msg, data_len, tag) &&
	     crypt_run(c, msg + SMB2_TRANSFORM_LEN, data_len);
	if (ok && !is_ccm(k->cipher))
		ok = EVP_CipherFinal_ex(c, fin, &outl) == 1 && outl == 0;
	EVP_CIPHER_CTX_free(c);
	if (!ok) {
		/* What failed its tag is nobody's plaintext. */
		OPENSSL_cleanse(msg + SMB2_TRANSFORM_LEN, data_len);
		return -EBADMSG;
	}
	return 0;
}
