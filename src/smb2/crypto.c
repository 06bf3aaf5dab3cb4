// SPDX-License-Identifier: MIT
/*
 * SMB2/3 key derivation, signing and preauth hashing on OpenSSL 3 (see
 * crypto.h for the model). This file is the only one in smb2/ that speaks
 * OpenSSL; its contexts never leave it.
 *
 * Each signing algorithm is a row of mac_ops: how to make a keyed context
 * (the template), copy it, restart it for one message with the same key,
 * feed it and finish it. HMAC-SHA256 and AES-CMAC are EVP_MACs; AES-GMAC is
 * AES-128-GCM with all input as AAD and no plaintext (RFC 4543), driven as
 * an EVP_CIPHER: the IV can be replaced on a keyed context without a new
 * key schedule, and tier 3's encryption needs the same context anyway.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/params.h>

#include "core/le.h"
#include "smb2/crypto.h"

#define DIALECT_202 0x0202
#define DIALECT_210 0x0210
#define DIALECT_300 0x0300
#define DIALECT_302 0x0302
#define DIALECT_311 0x0311

/* GMAC nonce, second word (MS-SMB2 §3.1.4.1). */
#define GMAC_NONCE_SERVER 0x1u
#define GMAC_NONCE_CANCEL 0x2u

#define KDF_MAX_OUT 64

/* The algorithms, fetched once from the default provider. */
static struct {
	EVP_MAC *hmac;
	EVP_MAC *cmac;
	EVP_CIPHER *aes128_gcm;
	EVP_KDF *kbkdf;
	EVP_MD *sha512;
	int err;
} algs;
static pthread_once_t algs_once = PTHREAD_ONCE_INIT;

static void algs_fetch(void)
{
	algs.hmac = EVP_MAC_fetch(NULL, OSSL_MAC_NAME_HMAC, NULL);
	algs.cmac = EVP_MAC_fetch(NULL, OSSL_MAC_NAME_CMAC, NULL);
	algs.aes128_gcm = EVP_CIPHER_fetch(NULL, "AES-128-GCM", NULL);
	algs.kbkdf = EVP_KDF_fetch(NULL, OSSL_KDF_NAME_KBKDF, NULL);
	algs.sha512 = EVP_MD_fetch(NULL, "SHA512", NULL);
	if (!algs.hmac || !algs.cmac || !algs.aes128_gcm || !algs.kbkdf ||
	    !algs.sha512)
		algs.err = -EOPNOTSUPP;
}

int smb2_crypto_init(void)
{
	pthread_once(&algs_once, algs_fetch);
	return algs.err;
}

/* ---- the MAC algorithms ---- */

struct mac_ops {
	/* a new context keyed with @key, or NULL */
	void *(*create)(const uint8_t key[SMB2_SIGN_KEY_SIZE]);
	void *(*dup)(const void *tmpl);
	void (*free)(void *c);
	/* restart @c for one message under its key (@nonce: GMAC only) */
	bool (*start)(void *c, const uint8_t nonce[SMB2_GMAC_NONCE_SIZE]);
	bool (*update)(void *c, const uint8_t *p, size_t len);
	bool (*final)(void *c, uint8_t mac[SMB2_SIG_SIZE]);
};

static void *evp_mac_create(EVP_MAC *mac, const uint8_t *key,
			    const OSSL_PARAM *params)
{
	EVP_MAC_CTX *c = EVP_MAC_CTX_new(mac);

	if (c && !EVP_MAC_init(c, key, SMB2_SIGN_KEY_SIZE, params)) {
		EVP_MAC_CTX_free(c);
		c = NULL;
	}
	return c;
}

static void *hmac_create(const uint8_t key[SMB2_SIGN_KEY_SIZE])
{
	OSSL_PARAM params[] = {
		OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST,
						 "SHA256", 0),
		OSSL_PARAM_construct_end(),
	};

	return evp_mac_create(algs.hmac, key, params);
}

static void *cmac_create(const uint8_t key[SMB2_SIGN_KEY_SIZE])
{
	OSSL_PARAM params[] = {
		OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_CIPHER,
						 "AES-128-CBC", 0),
		OSSL_PARAM_construct_end(),
	};

	return evp_mac_create(algs.cmac, key, params);
}

static void *evp_mac_dup(const void *tmpl)
{
	return EVP_MAC_CTX_dup(tmpl);
}

static void evp_mac_free(void *c)
{
	EVP_MAC_CTX_free(c); /* the providers cleanse what they free */
}

static bool evp_mac_start(void *c, const uint8_t nonce[SMB2_GMAC_NONCE_SIZE])
{
	/* no key: HMAC and CMAC restart under the one they have */
	return EVP_MAC_init(c, NULL, 0, NULL) == 1;
}

static bool evp_mac_update(void *c, const uint8_t *p, size_t len)
{
	return EVP_MAC_update(c, p, len) == 1;
}

static bool hmac_final(void *c, uint8_t mac[SMB2_SIG_SIZE])
{
	uint8_t full[32];
	size_t len = 0;
	bool ok;

	ok = EVP_MAC_final(c, full, &len, sizeof(full)) == 1 &&
	     len == sizeof(full);
	/* §3.1.4.1: the first 16 bytes of the HMAC-SHA256 are the signature */
	if (ok)
		memcpy(mac, full, SMB2_SIG_SIZE);
	OPENSSL_cleanse(full, sizeof(full));
	return ok;
}

static bool cmac_final(void *c, uint8_t mac[SMB2_SIG_SIZE])
{
	size_t len = 0;

	return EVP_MAC_final(c, mac, &len, SMB2_SIG_SIZE) == 1 &&
	       len == SMB2_SIG_SIZE;
}

static void *gmac_create(const uint8_t key[SMB2_SIGN_KEY_SIZE])
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();

	if (c && !EVP_EncryptInit_ex2(c, algs.aes128_gcm, key, NULL, NULL)) {
		EVP_CIPHER_CTX_free(c);
		c = NULL;
	}
	return c;
}

static void *gmac_dup(const void *tmpl)
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();

	if (c && !EVP_CIPHER_CTX_copy(c, tmpl)) {
		EVP_CIPHER_CTX_free(c);
		c = NULL;
	}
	return c;
}

static void gmac_free(void *c)
{
	EVP_CIPHER_CTX_free(c);
}

static bool gmac_start(void *c, const uint8_t nonce[SMB2_GMAC_NONCE_SIZE])
{
	/* a new IV (12 bytes, GCM's default) resets GHASH; the key stays */
	return EVP_EncryptInit_ex2(c, NULL, NULL, nonce, NULL) == 1;
}

static bool gmac_update(void *c, const uint8_t *p, size_t len)
{
	int outl;

	/* EVP_EncryptUpdate() counts in int; a NULL output makes it AAD */
	while (len) {
		int chunk = len > (1u << 30) ? 1 << 30 : (int)len;

		if (!EVP_EncryptUpdate(c, NULL, &outl, p, chunk))
			return false;
		p += chunk;
		len -= (size_t)chunk;
	}
	return true;
}

static bool gmac_final(void *c, uint8_t mac[SMB2_SIG_SIZE])
{
	uint8_t none[16];
	int outl = 0;

	return EVP_EncryptFinal_ex(c, none, &outl) == 1 && outl == 0 &&
	       EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_GET_TAG, SMB2_SIG_SIZE,
				   mac) == 1;
}

static const struct mac_ops mac_ops[] = {
	[SMB2_SIGN_HMAC_SHA256] =
		{
			.create = hmac_create,
			.dup = evp_mac_dup,
			.free = evp_mac_free,
			.start = evp_mac_start,
			.update = evp_mac_update,
			.final = hmac_final,
		},
	[SMB2_SIGN_AES_CMAC] =
		{
			.create = cmac_create,
			.dup = evp_mac_dup,
			.free = evp_mac_free,
			.start = evp_mac_start,
			.update = evp_mac_update,
			.final = cmac_final,
		},
	[SMB2_SIGN_AES_GMAC] =
		{
			.create = gmac_create,
			.dup = gmac_dup,
			.free = gmac_free,
			.start = gmac_start,
			.update = gmac_update,
			.final = gmac_final,
		},
};

#define N_ALGS (sizeof(mac_ops) / sizeof(mac_ops[0]))

/*
 * A signing key's contexts. @tmpl is keyed once and only ever copied, so
 * any number of threads may duplicate it at once. @spare holds contexts
 * copied earlier and not in use: taking one is an exchange with NULL,
 * giving one back a compare-exchange into an empty slot, so no lock and no
 * ABA (a slot is only ever swapped whole).
 */
struct smb2_mac_pool {
	const struct mac_ops *ops;
	void *tmpl;
	_Atomic(void *) spare[SMB2_SIGN_SPARES];
};

static void *pool_get(struct smb2_mac_pool *p)
{
	void *c;
	int i;

	for (i = 0; i < SMB2_SIGN_SPARES; i++) {
		c = atomic_exchange_explicit(&p->spare[i], NULL,
					     memory_order_acquire);
		if (c)
			return c;
	}
	return p->ops->dup(p->tmpl);
}

static void pool_put(struct smb2_mac_pool *p, void *c)
{
	int i;

	for (i = 0; i < SMB2_SIGN_SPARES; i++) {
		void *empty = NULL;

		if (atomic_compare_exchange_strong_explicit(
			    &p->spare[i], &empty, c, memory_order_release,
			    memory_order_relaxed))
			return;
	}
	p->ops->free(c);
}

static void pool_free(struct smb2_mac_pool *p)
{
	int i;

	for (i = 0; i < SMB2_SIGN_SPARES; i++) {
		void *c = atomic_load_explicit(&p->spare[i],
					       memory_order_acquire);

		if (c)
			p->ops->free(c);
	}
	p->ops->free(p->tmpl);
	free(p);
}

int smb2_sign_key_init(struct smb2_sign_key *k, enum smb2_sign_alg alg,
		       const uint8_t key[SMB2_SIGN_KEY_SIZE])
{
	struct smb2_mac_pool *p;
	int i, ret;

	if (!k || !key || (unsigned int)alg >= N_ALGS)
		return -EINVAL;
	ret = smb2_crypto_init();
	if (ret)
		return ret;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->ops = &mac_ops[alg];
	for (i = 0; i < SMB2_SIGN_SPARES; i++)
		atomic_init(&p->spare[i], NULL);
	p->tmpl = p->ops->create(key);
	if (!p->tmpl) {
		free(p);
		return -EIO;
	}
	k->alg = alg;
	memcpy(k->key, key, SMB2_SIGN_KEY_SIZE);
	k->pool = p;
	return 0;
}

void smb2_sign_key_wipe(struct smb2_sign_key *k)
{
	if (!k)
		return;
	if (k->pool)
		pool_free(k->pool);
	OPENSSL_cleanse(k, sizeof(*k));
}

/* ---- MACs over iovecs ---- */

static bool iov_valid(const struct iovec *iov, int n)
{
	return n >= 0 && (n == 0 || iov);
}

/* Total bytes of @iov[0..@n), saturating (only compared with 64). */
static size_t iov_total(const struct iovec *iov, int n)
{
	size_t total = 0;
	int i;

	for (i = 0; i < n; i++) {
		if (iov[i].iov_len > SIZE_MAX - total)
			return SIZE_MAX;
		total += iov[i].iov_len;
	}
	return total;
}

/*
 * Feed @iov[0..@n) to @c. With @zero_sig, the bytes at message offsets
 * [48, 64) are fed as zeros instead of what they hold: the signature field
 * is skipped in the caller's buffer, wherever the segments split it.
 */
static bool mac_feed(const struct mac_ops *ops, void *c,
		     const struct iovec *iov, int n, bool zero_sig)
{
	static const uint8_t zeros[SMB2_SIG_SIZE];
	const size_t hole = SMB2_SIG_OFFSET, hole_end = hole + SMB2_SIG_SIZE;
	size_t off = 0;
	int i;

	for (i = 0; i < n; i++) {
		const uint8_t *p = iov[i].iov_base;
		size_t len = iov[i].iov_len;

		while (len) {
			const uint8_t *src = p;
			size_t take = len;

			if (zero_sig && off < hole) {
				if (take > hole - off)
					take = hole - off;
			} else if (zero_sig && off < hole_end) {
				if (take > hole_end - off)
					take = hole_end - off;
				src = zeros;
			}
			if (!ops->update(c, src, take))
				return false;
			p += take;
			len -= take;
			off += take;
		}
	}
	return true;
}

static int mac_run(const struct smb2_sign_key *k,
		   const uint8_t nonce[SMB2_GMAC_NONCE_SIZE],
		   const struct iovec *iov, int n, bool zero_sig,
		   uint8_t mac[SMB2_SIG_SIZE])
{
	struct smb2_mac_pool *p = k->pool;
	void *c;

	c = pool_get(p);
	if (!c)
		return -ENOMEM;
	if (!p->ops->start(c, nonce) ||
	    !mac_feed(p->ops, c, iov, n, zero_sig) || !p->ops->final(c, mac)) {
		/* a context that failed halfway is not put back */
		p->ops->free(c);
		OPENSSL_cleanse(mac, SMB2_SIG_SIZE);
		return -EIO;
	}
	pool_put(p, c);
	return 0;
}

int smb2_mac(const struct smb2_sign_key *k,
	     const uint8_t nonce[SMB2_GMAC_NONCE_SIZE], const struct iovec *iov,
	     int n, uint8_t mac[SMB2_SIG_SIZE])
{
	static const uint8_t no_nonce[SMB2_GMAC_NONCE_SIZE];

	if (!k || !k->pool || !mac || !iov_valid(iov, n))
		return -EINVAL;
	if (!nonce) {
		if (k->alg == SMB2_SIGN_AES_GMAC)
			return -EINVAL;
		nonce = no_nonce;
	}
	return mac_run(k, nonce, iov, n, false, mac);
}

int smb2_sign(const struct smb2_sign_key *k, uint64_t msgid, bool from_server,
	      bool cancel, const struct iovec *iov, int n,
	      uint8_t sig[SMB2_SIG_SIZE])
{
	uint8_t nonce[SMB2_GMAC_NONCE_SIZE];

	if (!k || !k->pool || !sig || !iov_valid(iov, n) ||
	    iov_total(iov, n) < SMB2_SIGNED_MIN)
		return -EINVAL;
	/* §3.1.4.1: MessageId, then the sender's role and CANCEL bits */
	put_le64(nonce, msgid);
	put_le32(nonce + 8, (from_server ? GMAC_NONCE_SERVER : 0) |
				    (cancel ? GMAC_NONCE_CANCEL : 0));
	return mac_run(k, nonce, iov, n, true, sig);
}

/*
 * The received signature: message bytes [48, 64), wherever they lie. The
 * segments are consecutive, so the first one to reach past the bytes
 * gathered so far starts at or before the next one wanted.
 */
static void sig_gather(const struct iovec *iov, int n,
		       uint8_t sig[SMB2_SIG_SIZE])
{
	size_t off = 0, got = 0;
	int i;

	for (i = 0; i < n && got < SMB2_SIG_SIZE; i++) {
		const uint8_t *p = iov[i].iov_base;
		size_t len = iov[i].iov_len, skip, take;

		if (off + len > SMB2_SIG_OFFSET + got) {
			skip = SMB2_SIG_OFFSET + got - off;
			take = len - skip;
			if (take > SMB2_SIG_SIZE - got)
				take = SMB2_SIG_SIZE - got;
			memcpy(sig + got, p + skip, take);
			got += take;
		}
		off += len;
	}
}

bool smb2_verify(const struct smb2_sign_key *k, uint64_t msgid,
		 bool from_server, bool cancel, const struct iovec *iov, int n)
{
	uint8_t want[SMB2_SIG_SIZE], got[SMB2_SIG_SIZE];
	bool ok;

	if (smb2_sign(k, msgid, from_server, cancel, iov, n, want))
		return false;
	sig_gather(iov, n, got);
	/* constant time: how many bytes matched must not show */
	ok = CRYPTO_memcmp(want, got, SMB2_SIG_SIZE) == 0;
	OPENSSL_cleanse(want, sizeof(want));
	return ok;
}

/* ---- key derivation ---- */

int smb2_kdf(const uint8_t *key, size_t key_len, const void *label,
	     size_t label_len, const void *context, size_t context_len,
	     uint8_t *out, size_t out_len)
{
	static const uint8_t empty[1];
	OSSL_PARAM params[9], *q = params;
	EVP_KDF_CTX *ctx;
	int yes = 1, ret;

	if (!key || !key_len || !out || !out_len || out_len > KDF_MAX_OUT ||
	    (!label && label_len) || (!context && context_len))
		return -EINVAL;
	ret = smb2_crypto_init();
	if (ret)
		return ret;
	ctx = EVP_KDF_CTX_new(algs.kbkdf);
	if (!ctx)
		return -ENOMEM;
	/*
	 * OpenSSL's KBKDF is exactly §3.1.4.2's: 32-bit counter first, Label
	 * (its "salt"), a zero byte, Context (its "info"), then L in 32 bits.
	 * The params take non-const pointers but only read.
	 */
	*q++ = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_MODE, "counter",
						0);
	*q++ = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_MAC,
						OSSL_MAC_NAME_HMAC, 0);
	*q++ = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, "SHA256",
						0);
	*q++ = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY,
						 (void *)key, key_len);
	*q++ = OSSL_PARAM_construct_octet_string(
		OSSL_KDF_PARAM_SALT, (void *)(label ? label : empty),
		label_len);
	*q++ = OSSL_PARAM_construct_octet_string(
		OSSL_KDF_PARAM_INFO, (void *)(context ? context : empty),
		context_len);
	*q++ = OSSL_PARAM_construct_int(OSSL_KDF_PARAM_KBKDF_USE_L, &yes);
	*q++ = OSSL_PARAM_construct_int(OSSL_KDF_PARAM_KBKDF_USE_SEPARATOR,
					&yes);
	*q = OSSL_PARAM_construct_end();
	ret = EVP_KDF_derive(ctx, out, out_len, params) == 1 ? 0 : -EIO;
	EVP_KDF_CTX_free(ctx);
	if (ret)
		OPENSSL_cleanse(out, out_len);
	return ret;
}

/* An SP800-108 Label or Context; .s NULL: the preauth hash. */
struct kdf_str {
	const char *s;
	size_t len;
};

/* The string with its NUL, as §3.3.5.5.3 passes it. */
#define KDF_STR(x)                                                             \
	{                                                                      \
		.s = (x), .len = sizeof(x)                                     \
	}
#define KDF_PREAUTH                                                            \
	{                                                                      \
		.s = NULL, .len = SMB2_PREAUTH_SIZE                            \
	}

#define BIT(n) (1u << (n))

/* What each dialect derives, and with what (MS-SMB2 §3.3.5.5.3). */
struct dialect_kdf {
	uint16_t dialect;
	/* 3.x: keys from the KDF; 2.x: Session.SessionKey signs */
	bool kdf;
	/* the signing algorithms and ciphers allowed, BIT(enum value) */
	unsigned int algs;
	unsigned int ciphers;
	struct kdf_str sign_label, sign_ctx;
	struct kdf_str app_label, app_ctx;
	struct kdf_str c2s_label, c2s_ctx;
	struct kdf_str s2c_label, s2c_ctx;
};

static const struct dialect_kdf dialect_kdfs[] = {
	{
		.dialect = DIALECT_202,
		.algs = BIT(SMB2_SIGN_HMAC_SHA256),
	},
	{
		.dialect = DIALECT_210,
		.algs = BIT(SMB2_SIGN_HMAC_SHA256),
	},
	{
		.dialect = DIALECT_300,
		.kdf = true,
		.algs = BIT(SMB2_SIGN_AES_CMAC),
		.ciphers = BIT(SMB2_CIPHER_AES128_CCM),
		.sign_label = KDF_STR("SMB2AESCMAC"),
		.sign_ctx = KDF_STR("SmbSign"),
		.app_label = KDF_STR("SMB2APP"),
		.app_ctx = KDF_STR("SmbRpc"),
		.c2s_label = KDF_STR("SMB2AESCCM"),
		.c2s_ctx = KDF_STR("ServerIn "),
		.s2c_label = KDF_STR("SMB2AESCCM"),
		.s2c_ctx = KDF_STR("ServerOut"),
	},
	{
		.dialect = DIALECT_302,
		.kdf = true,
		.algs = BIT(SMB2_SIGN_AES_CMAC),
		.ciphers = BIT(SMB2_CIPHER_AES128_CCM),
		.sign_label = KDF_STR("SMB2AESCMAC"),
		.sign_ctx = KDF_STR("SmbSign"),
		.app_label = KDF_STR("SMB2APP"),
		.app_ctx = KDF_STR("SmbRpc"),
		.c2s_label = KDF_STR("SMB2AESCCM"),
		.c2s_ctx = KDF_STR("ServerIn "),
		.s2c_label = KDF_STR("SMB2AESCCM"),
		.s2c_ctx = KDF_STR("ServerOut"),
	},
	{
		.dialect = DIALECT_311,
		.kdf = true,
		.algs = BIT(SMB2_SIGN_HMAC_SHA256) | BIT(SMB2_SIGN_AES_CMAC) |
			BIT(SMB2_SIGN_AES_GMAC),
		.ciphers = BIT(SMB2_CIPHER_AES128_CCM) |
			   BIT(SMB2_CIPHER_AES128_GCM) |
			   BIT(SMB2_CIPHER_AES256_CCM) |
			   BIT(SMB2_CIPHER_AES256_GCM),
		.sign_label = KDF_STR("SMBSigningKey"),
		.sign_ctx = KDF_PREAUTH,
		.app_label = KDF_STR("SMBAppKey"),
		.app_ctx = KDF_PREAUTH,
		.c2s_label = KDF_STR("SMBC2SCipherKey"),
		.c2s_ctx = KDF_PREAUTH,
		.s2c_label = KDF_STR("SMBS2CCipherKey"),
		.s2c_ctx = KDF_PREAUTH,
	},
};

static const struct dialect_kdf *dialect_kdf_find(uint16_t dialect)
{
	size_t i;

	for (i = 0; i < sizeof(dialect_kdfs) / sizeof(dialect_kdfs[0]); i++)
		if (dialect_kdfs[i].dialect == dialect)
			return &dialect_kdfs[i];
	return NULL;
}

static int kdf_derive(const uint8_t *key, size_t key_len, struct kdf_str label,
		      struct kdf_str ctx, const uint8_t *preauth, uint8_t *out,
		      size_t out_len)
{
	return smb2_kdf(key, key_len, label.s, label.len,
			ctx.s ? (const void *)ctx.s : preauth, ctx.len, out,
			out_len);
}

/*
 * Check the arguments common to both derivations and make
 * Session.SessionKey: the first 16 bytes of @gss_key, zero padded
 * (§3.3.5.5.3).
 */
static const struct dialect_kdf *
derive_begin(uint16_t dialect, enum smb2_sign_alg alg, const uint8_t *gss_key,
	     size_t gss_len, const uint8_t *preauth,
	     uint8_t session_key[SMB2_SIGN_KEY_SIZE])
{
	const struct dialect_kdf *d = dialect_kdf_find(dialect);

	if (!d || (unsigned int)alg >= N_ALGS || !(d->algs & BIT(alg)) ||
	    !gss_key || !gss_len || (d->kdf && !d->sign_ctx.s && !preauth))
		return NULL;
	memset(session_key, 0, SMB2_SIGN_KEY_SIZE);
	memcpy(session_key, gss_key,
	       gss_len < SMB2_SIGN_KEY_SIZE ? gss_len : SMB2_SIGN_KEY_SIZE);
	return d;
}

static int sign_key_make(struct smb2_sign_key *k, const struct dialect_kdf *d,
			 enum smb2_sign_alg alg,
			 const uint8_t session_key[SMB2_SIGN_KEY_SIZE],
			 const uint8_t *preauth)
{
	uint8_t key[SMB2_SIGN_KEY_SIZE];
	int ret;

	if (!d->kdf)
		return smb2_sign_key_init(k, alg, session_key);
	ret = kdf_derive(session_key, SMB2_SIGN_KEY_SIZE, d->sign_label,
			 d->sign_ctx, preauth, key, sizeof(key));
	if (!ret)
		ret = smb2_sign_key_init(k, alg, key);
	OPENSSL_cleanse(key, sizeof(key));
	return ret;
}

int smb2_sign_key_derive(struct smb2_sign_key *k, uint16_t dialect,
			 enum smb2_sign_alg alg, const uint8_t *gss_key,
			 size_t gss_len, const uint8_t *preauth)
{
	uint8_t session_key[SMB2_SIGN_KEY_SIZE];
	const struct dialect_kdf *d;
	int ret;

	if (!k)
		return -EINVAL;
	d = derive_begin(dialect, alg, gss_key, gss_len, preauth, session_key);
	if (!d)
		return -EINVAL;
	ret = sign_key_make(k, d, alg, session_key, preauth);
	OPENSSL_cleanse(session_key, sizeof(session_key));
	return ret;
}

int smb2_session_keys_derive(struct smb2_keys *k, uint16_t dialect,
			     enum smb2_sign_alg alg, enum smb2_cipher cipher,
			     const uint8_t *gss_key, size_t gss_len,
			     const uint8_t *preauth)
{
	uint8_t session_key[SMB2_SIGN_KEY_SIZE];
	const struct dialect_kdf *d;
	const uint8_t *ckey;
	size_t ckey_len, len;
	int ret;

	if (!k)
		return -EINVAL;
	memset(k, 0, sizeof(*k));
	d = derive_begin(dialect, alg, gss_key, gss_len, preauth, session_key);
	if (!d || (cipher != SMB2_CIPHER_NONE &&
		   ((unsigned int)cipher >= 32 || !(d->ciphers & BIT(cipher)))))
		ret = -EINVAL;
	else
		ret = sign_key_make(&k->sign, d, alg, session_key, preauth);
	if (ret)
		goto out;
	if (d->kdf)
		ret = kdf_derive(session_key, sizeof(session_key), d->app_label,
				 d->app_ctx, preauth, k->app, sizeof(k->app));
	else
		memcpy(k->app, session_key, sizeof(k->app));
	if (ret || cipher == SMB2_CIPHER_NONE)
		goto out;
	/* §3.3.5.5.3: the AES-256 ciphers key from Session.FullSessionKey
	 * (§3.1.4.2: L = 128 or 256) */
	len = smb2_cipher_key_len(cipher);
	ckey = len == 32 ? gss_key : session_key;
	ckey_len = len == 32 ? gss_len : sizeof(session_key);
	ret = kdf_derive(ckey, ckey_len, d->c2s_label, d->c2s_ctx, preauth,
			 k->c2s, len);
	if (!ret)
		ret = kdf_derive(ckey, ckey_len, d->s2c_label, d->s2c_ctx,
				 preauth, k->s2c, len);
	if (!ret)
		ret = smb2_seal_key_init(&k->dec, cipher, false, k->c2s, len);
	if (!ret)
		ret = smb2_seal_key_init(&k->enc, cipher, true, k->s2c, len);
	if (!ret) {
		k->cipher = cipher;
		k->cipher_len = len;
	}
out:
	OPENSSL_cleanse(session_key, sizeof(session_key));
	if (ret)
		smb2_keys_wipe(k);
	return ret;
}

void smb2_keys_wipe(struct smb2_keys *k)
{
	if (!k)
		return;
	smb2_sign_key_wipe(&k->sign);
	smb2_seal_key_wipe(&k->dec);
	smb2_seal_key_wipe(&k->enc);
	OPENSSL_cleanse(k, sizeof(*k));
}

/* ---- preauth integrity ---- */

void smb2_preauth_init(uint8_t hash[SMB2_PREAUTH_SIZE])
{
	memset(hash, 0, SMB2_PREAUTH_SIZE);
}

int smb2_preauth_update(uint8_t hash[SMB2_PREAUTH_SIZE],
			const struct iovec *iov, int n)
{
	uint8_t next[SMB2_PREAUTH_SIZE];
	unsigned int len = 0;
	EVP_MD_CTX *ctx;
	bool ok;
	int i, ret;

	if (!hash || !iov_valid(iov, n))
		return -EINVAL;
	ret = smb2_crypto_init();
	if (ret)
		return ret;
	ctx = EVP_MD_CTX_new();
	if (!ctx)
		return -ENOMEM;
	ok = EVP_DigestInit_ex2(ctx, algs.sha512, NULL) &&
	     EVP_DigestUpdate(ctx, hash, SMB2_PREAUTH_SIZE);
	for (i = 0; ok && i < n; i++)
		ok = EVP_DigestUpdate(ctx, iov[i].iov_base, iov[i].iov_len);
	ok = ok && EVP_DigestFinal_ex(ctx, next, &len) && len == sizeof(next);
	EVP_MD_CTX_free(ctx);
	if (!ok)
		return -EIO;
	memcpy(hash, next, SMB2_PREAUTH_SIZE);
	return 0;
}
