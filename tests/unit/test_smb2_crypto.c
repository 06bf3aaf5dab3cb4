/* SPDX-License-Identifier: MIT */
/*
 * Unit tests: SMB2/3 cryptography (src/smb2/crypto.c): the SP800-108 KDF
 * and the session keys of every dialect, signing and verification with
 * HMAC-SHA256, AES-CMAC and AES-GMAC, the 3.1.1 preauth hash chain.
 *
 * The vectors (smb2_crypto_vectors.h, written and checked by
 * smb2_crypto_vectors.py, which names their sources) are Microsoft's SMB
 * 3.0 and 3.1.1 examples with the messages and signatures of a Windows
 * logon, RFC 4493 and IEEE 802.1AE for the bare MACs, and values computed
 * with python3-cryptography where nothing is published (GMAC signatures,
 * AES-256 keys, other KDF shapes).
 *
 * SMB2_CRYPTO_BENCH=1 ./test_smb2_crypto prints throughput figures instead
 * of running the tests (not a test: nothing is asserted).
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "core/le.h"
#include "smb2/crypto.h"
#include "smb2_crypto_vectors.h"

static const enum smb2_sign_alg all_algs[] = {
	SMB2_SIGN_HMAC_SHA256,
	SMB2_SIGN_AES_CMAC,
	SMB2_SIGN_AES_GMAC,
};
#define N_ALGS (sizeof(all_algs) / sizeof(all_algs[0]))

static struct iovec iov_of(const void *p, size_t len)
{
	struct iovec v = {.iov_base = (void *)p, .iov_len = len};

	return v;
}

static uint64_t msgid_of(const uint8_t *msg)
{
	return get_le64(msg + 24);
}

static bool all_zero(const void *p, size_t len)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i])
			return false;
	return true;
}

static void test_kdf_vectors(void **state)
{
	uint8_t out[64];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(kdf_vecs) / sizeof(kdf_vecs[0]); i++) {
		const struct kdf_vec *v = &kdf_vecs[i];

		memset(out, 0xaa, sizeof(out));
		assert_int_equal(smb2_kdf(v->key, v->key_len, v->label,
					  v->label_len, v->ctx, v->ctx_len, out,
					  v->out_len),
				 0);
		assert_memory_equal(out, v->out, v->out_len);
	}
	/* L is part of the input: 16 bytes are not a prefix of 32 */
	assert_int_equal(
		smb2_kdf(ms30_sk, 16, "SMB2AESCMAC", 12, "SmbSign", 8, out, 16),
		0);
	assert_memory_equal(out, ms30_sign, 16);
	assert_memory_not_equal(out, kdf_vecs[3].out, 16);
	/* and the NUL of the label counts */
	assert_int_equal(
		smb2_kdf(ms30_sk, 16, "SMB2AESCMAC", 11, "SmbSign", 8, out, 16),
		0);
	assert_memory_not_equal(out, ms30_sign, 16);

	assert_int_equal(smb2_kdf(NULL, 16, "a", 1, "b", 1, out, 16), -EINVAL);
	assert_int_equal(smb2_kdf(ms30_sk, 0, "a", 1, "b", 1, out, 16),
			 -EINVAL);
	assert_int_equal(smb2_kdf(ms30_sk, 16, "a", 1, "b", 1, out, 0),
			 -EINVAL);
	assert_int_equal(smb2_kdf(ms30_sk, 16, "a", 1, "b", 1, out, 65),
			 -EINVAL);
	assert_int_equal(smb2_kdf(ms30_sk, 16, NULL, 1, "b", 1, out, 16),
			 -EINVAL);
	assert_int_equal(smb2_kdf(ms30_sk, 16, "a", 1, NULL, 1, out, 16),
			 -EINVAL);
	assert_int_equal(smb2_kdf(ms30_sk, 16, "a", 1, NULL, 0, out, 16), 0);
}

static void test_keys_ms30(void **state)
{
	static const uint16_t dialects[] = {0x0300, 0x0302};
	struct smb2_sign_key chan = {0};
	struct smb2_keys k;
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++) {
		assert_int_equal(smb2_session_keys_derive(
					 &k, dialects[i], SMB2_SIGN_AES_CMAC,
					 SMB2_CIPHER_AES128_CCM, ms30_sk, 16,
					 NULL),
				 0);
		assert_int_equal(k.sign.alg, SMB2_SIGN_AES_CMAC);
		assert_memory_equal(k.sign.key, ms30_sign, 16);
		assert_memory_equal(k.app, ms30_app, 16);
		assert_int_equal(k.cipher, SMB2_CIPHER_AES128_CCM);
		assert_int_equal(k.cipher_len, 16);
		assert_memory_equal(k.c2s, ms30_c2s, 16);
		assert_memory_equal(k.s2c, ms30_s2c, 16);
		smb2_keys_wipe(&k);
		assert_true(all_zero(&k, sizeof(k)));

		/* no cipher: no cipher keys, the rest the same */
		assert_int_equal(smb2_session_keys_derive(
					 &k, dialects[i], SMB2_SIGN_AES_CMAC,
					 SMB2_CIPHER_NONE, ms30_sk, 16, NULL),
				 0);
		assert_memory_equal(k.sign.key, ms30_sign, 16);
		assert_memory_equal(k.app, ms30_app, 16);
		assert_int_equal(k.cipher_len, 0);
		assert_true(all_zero(k.c2s, sizeof(k.c2s)));
		assert_true(all_zero(k.s2c, sizeof(k.s2c)));
		smb2_keys_wipe(&k);

		/* the second channel's own signing key */
		assert_int_equal(smb2_sign_key_derive(&chan, dialects[i],
						      SMB2_SIGN_AES_CMAC,
						      ms30_sk2, 16, NULL),
				 0);
		assert_memory_equal(chan.key, ms30_sign2, 16);
		smb2_sign_key_wipe(&chan);
		assert_true(all_zero(&chan, sizeof(chan)));
	}
}

struct chain_step {
	const uint8_t *msg;
	size_t len;
	const uint8_t *hash;
};

#define STEP(m)                                                                \
	{                                                                      \
		m, sizeof(m), m##_hash                                         \
	}

static const struct chain_step master_chain[] = {
	STEP(ms311_neg_req), STEP(ms311_neg_rsp), STEP(ms311_ss_req1),
	STEP(ms311_ss_rsp1), STEP(ms311_ss_req2),
};
static const struct chain_step binding_chain[] = {
	STEP(ms311_b_neg_req), STEP(ms311_b_neg_rsp), STEP(ms311_b_ss_req1),
	STEP(ms311_b_ss_rsp1), STEP(ms311_b_ss_req2),
};

static void run_chain(const struct chain_step *steps, size_t n, bool split)
{
	uint8_t hash[SMB2_PREAUTH_SIZE];
	size_t i;

	smb2_preauth_init(hash);
	assert_true(all_zero(hash, sizeof(hash)));
	for (i = 0; i < n; i++) {
		const uint8_t *m = steps[i].msg;
		size_t len = steps[i].len;
		struct iovec v[4] = {
			iov_of(m, 1),
			iov_of(m + 1, 0),
			iov_of(m + 1, 63),
			iov_of(m + 64, len - 64),
		};

		struct iovec whole = iov_of(m, len);

		if (split)
			assert_int_equal(smb2_preauth_update(hash, v, 4), 0);
		else
			assert_int_equal(smb2_preauth_update(hash, &whole, 1),
					 0);
		assert_memory_equal(hash, steps[i].hash, SMB2_PREAUTH_SIZE);
		/* n = 0 hashes the hash alone: not what the chain wants */
		if (i == 0 && !split) {
			uint8_t h0[SMB2_PREAUTH_SIZE];

			smb2_preauth_init(h0);
			assert_int_equal(smb2_preauth_update(h0, NULL, 0), 0);
			assert_memory_not_equal(h0, steps[0].hash,
						SMB2_PREAUTH_SIZE);
		}
	}
}

static void test_preauth_ms311(void **state)
{
	uint8_t hash[SMB2_PREAUTH_SIZE], copy[SMB2_PREAUTH_SIZE];
	struct iovec bad = iov_of(ms311_neg_req, sizeof(ms311_neg_req));

	(void)state;
	run_chain(master_chain, 5, false);
	run_chain(master_chain, 5, true);
	run_chain(binding_chain, 5, false);
	run_chain(binding_chain, 5, true);

	smb2_preauth_init(hash);
	memcpy(copy, hash, sizeof(hash));
	assert_int_equal(smb2_preauth_update(hash, &bad, -1), -EINVAL);
	assert_int_equal(smb2_preauth_update(hash, NULL, 1), -EINVAL);
	assert_int_equal(smb2_preauth_update(NULL, &bad, 1), -EINVAL);
	assert_memory_equal(hash, copy, sizeof(hash));
}

static void test_keys_ms311(void **state)
{
	struct smb2_sign_key chan = {0};
	struct smb2_keys k;

	(void)state;
	assert_int_equal(
		smb2_session_keys_derive(&k, 0x0311, SMB2_SIGN_AES_CMAC,
					 SMB2_CIPHER_AES128_GCM, ms311_sk, 16,
					 ms311_ss_req2_hash),
		0);
	assert_memory_equal(k.sign.key, ms311_sign, 16);
	assert_memory_equal(k.app, ms311_app, 16);
	assert_int_equal(k.cipher_len, 16);
	assert_memory_equal(k.c2s, ms311_c2s, 16);
	assert_memory_equal(k.s2c, ms311_s2c, 16);
	smb2_keys_wipe(&k);

	/* AES-128-CCM keys are the same bytes (only L matters) */
	assert_int_equal(
		smb2_session_keys_derive(&k, 0x0311, SMB2_SIGN_AES_GMAC,
					 SMB2_CIPHER_AES128_CCM, ms311_sk, 16,
					 ms311_ss_req2_hash),
		0);
	assert_int_equal(k.sign.alg, SMB2_SIGN_AES_GMAC);
	assert_memory_equal(k.sign.key, ms311_sign, 16);
	assert_memory_equal(k.c2s, ms311_c2s, 16);
	smb2_keys_wipe(&k);

	/* the bound channel: its key, the binding's hash */
	assert_int_equal(smb2_sign_key_derive(&chan, 0x0311, SMB2_SIGN_AES_CMAC,
					      ms311_sk2, 16,
					      ms311_b_ss_req2_hash),
			 0);
	assert_memory_equal(chan.key, ms311_sign2, 16);
	smb2_sign_key_wipe(&chan);
}

static void test_keys_aes256(void **state)
{
	uint8_t padded[16] = {0}, want[16];
	struct smb2_keys k;

	(void)state;
	assert_int_equal(smb2_session_keys_derive(
				 &k, 0x0311, SMB2_SIGN_AES_GMAC,
				 SMB2_CIPHER_AES256_GCM, aes256_gss,
				 sizeof(aes256_gss), ms311_ss_req2_hash),
			 0);
	assert_memory_equal(k.sign.key, aes256_sign, 16);
	assert_memory_equal(k.app, aes256_app, 16);
	assert_int_equal(k.cipher, SMB2_CIPHER_AES256_GCM);
	assert_int_equal(k.cipher_len, 32);
	assert_memory_equal(k.c2s, aes256_c2s, 32);
	assert_memory_equal(k.s2c, aes256_s2c, 32);
	smb2_keys_wipe(&k);
	assert_int_equal(smb2_session_keys_derive(
				 &k, 0x0311, SMB2_SIGN_AES_CMAC,
				 SMB2_CIPHER_AES256_CCM, aes256_gss,
				 sizeof(aes256_gss), ms311_ss_req2_hash),
			 0);
	assert_memory_equal(k.c2s, aes256_c2s, 32);
	smb2_keys_wipe(&k);

	/* a key shorter than 16 bytes is zero padded to SessionKey */
	memcpy(padded, aes256_gss, 8);
	assert_int_equal(smb2_kdf(padded, 16, "SMBSigningKey", 14,
				  ms311_ss_req2_hash, 64, want, 16),
			 0);
	assert_int_equal(smb2_session_keys_derive(&k, 0x0311,
						  SMB2_SIGN_AES_CMAC,
						  SMB2_CIPHER_NONE, aes256_gss,
						  8, ms311_ss_req2_hash),
			 0);
	assert_memory_equal(k.sign.key, want, 16);
	smb2_keys_wipe(&k);
}

static void test_keys_2x(void **state)
{
	static const uint16_t dialects[] = {0x0202, 0x0210};
	struct smb2_keys k;
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++) {
		assert_int_equal(smb2_session_keys_derive(
					 &k, dialects[i], SMB2_SIGN_HMAC_SHA256,
					 SMB2_CIPHER_NONE, hmac_key, 16, NULL),
				 0);
		assert_int_equal(k.sign.alg, SMB2_SIGN_HMAC_SHA256);
		assert_memory_equal(k.sign.key, hmac_key, 16);
		assert_memory_equal(k.app, hmac_key, 16);
		assert_int_equal(k.cipher_len, 0);
		smb2_keys_wipe(&k);
	}
}

static void test_derive_args(void **state)
{
	struct smb2_sign_key s = {0};
	const uint8_t *ph = ms311_ss_req2_hash;
	struct smb2_keys k;

	(void)state;
	/* unknown dialects */
	assert_int_equal(
		smb2_session_keys_derive(&k, 0x0201, 0, 0, hmac_key, 16, ph),
		-EINVAL);
	assert_true(all_zero(&k, sizeof(k)));
	assert_int_equal(
		smb2_session_keys_derive(&k, 0x0312, 1, 0, hmac_key, 16, ph),
		-EINVAL);
	/* algorithms a dialect does not have */
	assert_int_equal(smb2_session_keys_derive(&k, 0x0210,
						  SMB2_SIGN_AES_CMAC, 0,
						  hmac_key, 16, ph),
			 -EINVAL);
	assert_int_equal(smb2_session_keys_derive(&k, 0x0300,
						  SMB2_SIGN_AES_GMAC, 0,
						  hmac_key, 16, ph),
			 -EINVAL);
	assert_int_equal(smb2_session_keys_derive(&k, 0x0302,
						  SMB2_SIGN_HMAC_SHA256, 0,
						  hmac_key, 16, ph),
			 -EINVAL);
	assert_int_equal(
		smb2_session_keys_derive(&k, 0x0311, 3, 0, hmac_key, 16, ph),
		-EINVAL);
	assert_int_equal(smb2_session_keys_derive(&k, 0x0311,
						  (enum smb2_sign_alg) - 1, 0,
						  hmac_key, 16, ph),
			 -EINVAL);
	/* ciphers a dialect does not have */
	assert_int_equal(smb2_session_keys_derive(
				 &k, 0x0210, SMB2_SIGN_HMAC_SHA256,
				 SMB2_CIPHER_AES128_CCM, hmac_key, 16, ph),
			 -EINVAL);
	assert_int_equal(smb2_session_keys_derive(
				 &k, 0x0300, SMB2_SIGN_AES_CMAC,
				 SMB2_CIPHER_AES128_GCM, hmac_key, 16, ph),
			 -EINVAL);
	assert_int_equal(smb2_session_keys_derive(&k, 0x0311,
						  SMB2_SIGN_AES_CMAC, 5,
						  hmac_key, 16, ph),
			 -EINVAL);
	assert_int_equal(smb2_session_keys_derive(
				 &k, 0x0311, SMB2_SIGN_AES_CMAC,
				 (enum smb2_cipher)40, hmac_key, 16, ph),
			 -EINVAL);
	assert_true(all_zero(&k, sizeof(k)));
	/* no key, no hash for 3.1.1 */
	assert_int_equal(smb2_session_keys_derive(&k, 0x0311,
						  SMB2_SIGN_AES_CMAC, 0,
						  hmac_key, 16, NULL),
			 -EINVAL);
	assert_int_equal(smb2_session_keys_derive(&k, 0x0300,
						  SMB2_SIGN_AES_CMAC, 0, NULL,
						  16, NULL),
			 -EINVAL);
	assert_int_equal(smb2_session_keys_derive(&k, 0x0300,
						  SMB2_SIGN_AES_CMAC, 0,
						  hmac_key, 0, NULL),
			 -EINVAL);
	assert_int_equal(smb2_session_keys_derive(NULL, 0x0300,
						  SMB2_SIGN_AES_CMAC, 0,
						  hmac_key, 16, NULL),
			 -EINVAL);
	assert_true(all_zero(&k, sizeof(k)));
	assert_int_equal(smb2_sign_key_derive(&s, 0x0311, SMB2_SIGN_AES_CMAC,
					      hmac_key, 16, NULL),
			 -EINVAL);
	assert_int_equal(smb2_sign_key_derive(&s, 0x0210, SMB2_SIGN_AES_GMAC,
					      hmac_key, 16, NULL),
			 -EINVAL);
	assert_int_equal(smb2_sign_key_init(&s, 3, hmac_key), -EINVAL);
	assert_int_equal(smb2_sign_key_init(&s, SMB2_SIGN_AES_CMAC, NULL),
			 -EINVAL);
	assert_true(all_zero(&s, sizeof(s)));
	/* wiping what is already empty, or nothing, is harmless */
	smb2_sign_key_wipe(&s);
	smb2_keys_wipe(&k);
	smb2_keys_wipe(&k);
	smb2_sign_key_wipe(NULL);
	smb2_keys_wipe(NULL);
	assert_true(all_zero(&k, sizeof(k)));
}

/* Microsoft's messages as Windows signed them. */
static void check_windows_sig(const struct smb2_sign_key *k, const uint8_t *msg,
			      size_t len, bool server, bool want)
{
	struct iovec v = iov_of(msg, len);
	uint8_t sig[SMB2_SIG_SIZE];

	assert_int_equal(smb2_sign(k, msgid_of(msg), server, false, &v, 1, sig),
			 0);
	if (want)
		assert_memory_equal(sig, msg + SMB2_SIG_OFFSET, SMB2_SIG_SIZE);
	else
		assert_memory_not_equal(sig, msg + SMB2_SIG_OFFSET,
					SMB2_SIG_SIZE);
	assert_int_equal(smb2_verify(k, msgid_of(msg), server, false, &v, 1),
			 want);
}

static void test_sign_ms311(void **state)
{
	struct smb2_sign_key chan = {0};
	struct smb2_keys k;

	(void)state;
	assert_int_equal(smb2_session_keys_derive(&k, 0x0311,
						  SMB2_SIGN_AES_CMAC,
						  SMB2_CIPHER_NONE, ms311_sk,
						  16, ms311_ss_req2_hash),
			 0);
	assert_int_equal(smb2_sign_key_derive(&chan, 0x0311, SMB2_SIGN_AES_CMAC,
					      ms311_sk2, 16,
					      ms311_b_ss_req2_hash),
			 0);
	/* Session.SigningKey: the logon's last response, the binding's
	 * requests and its interim response (§3.3.4.1.1) */
	check_windows_sig(&k.sign, ms311_ss_rsp2, sizeof(ms311_ss_rsp2), true,
			  true);
	check_windows_sig(&k.sign, ms311_b_ss_req1, sizeof(ms311_b_ss_req1),
			  false, true);
	check_windows_sig(&k.sign, ms311_b_ss_rsp1, sizeof(ms311_b_ss_rsp1),
			  true, true);
	check_windows_sig(&k.sign, ms311_b_ss_req2, sizeof(ms311_b_ss_req2),
			  false, true);
	/* Channel.SigningKey: the binding's last response */
	check_windows_sig(&chan, ms311_b_ss_rsp2, sizeof(ms311_b_ss_rsp2), true,
			  true);
	check_windows_sig(&k.sign, ms311_b_ss_rsp2, sizeof(ms311_b_ss_rsp2),
			  true, false);
	check_windows_sig(&chan, ms311_ss_rsp2, sizeof(ms311_ss_rsp2), true,
			  false);
	smb2_keys_wipe(&k);
	smb2_sign_key_wipe(&chan);
}

static void test_cmac_rfc4493(void **state)
{
	static const struct {
		size_t len;
		const uint8_t *mac;
	} cases[] = {
		{0, rfc4493_mac0},
		{16, rfc4493_mac16},
		{40, rfc4493_mac40},
		{64, rfc4493_mac64},
	};
	struct smb2_sign_key k = {0};
	uint8_t mac[SMB2_SIG_SIZE];
	size_t i, s;

	(void)state;
	assert_int_equal(
		smb2_sign_key_init(&k, SMB2_SIGN_AES_CMAC, rfc4493_key), 0);
	for (i = 0; i < 4; i++) {
		struct iovec v = iov_of(rfc4493_msg, cases[i].len);

		assert_int_equal(smb2_mac(&k, NULL, &v, 1, mac), 0);
		assert_memory_equal(mac, cases[i].mac, 16);
		/* and in two pieces split anywhere */
		for (s = 0; s <= cases[i].len; s++) {
			struct iovec w[2] = {
				iov_of(rfc4493_msg, s),
				iov_of(rfc4493_msg + s, cases[i].len - s),
			};

			assert_int_equal(smb2_mac(&k, NULL, w, 2, mac), 0);
			assert_memory_equal(mac, cases[i].mac, 16);
		}
	}
	assert_int_equal(smb2_mac(&k, NULL, NULL, 0, mac), 0);
	assert_memory_equal(mac, rfc4493_mac0, 16);
	smb2_sign_key_wipe(&k);
	assert_int_equal(smb2_mac(&k, NULL, NULL, 0, mac), -EINVAL);
}

static void test_gmac_ieee(void **state)
{
	static const struct {
		const uint8_t *key, *iv, *aad, *tag;
		size_t aad_len;
	} cases[] = {
		{ieee0_key, ieee0_iv, ieee0_aad, ieee0_tag, sizeof(ieee0_aad)},
		{ieee1_key, ieee1_iv, ieee1_aad, ieee1_tag, sizeof(ieee1_aad)},
	};
	uint8_t mac[SMB2_SIG_SIZE];
	size_t i, s;

	(void)state;
	for (i = 0; i < 2; i++) {
		struct smb2_sign_key k = {0};
		struct iovec v = iov_of(cases[i].aad, cases[i].aad_len);

		assert_int_equal(smb2_sign_key_init(&k, SMB2_SIGN_AES_GMAC,
						    cases[i].key),
				 0);
		assert_int_equal(smb2_mac(&k, cases[i].iv, &v, 1, mac), 0);
		assert_memory_equal(mac, cases[i].tag, 16);
		for (s = 0; s <= cases[i].aad_len; s++) {
			struct iovec w[2] = {
				iov_of(cases[i].aad, s),
				iov_of(cases[i].aad + s, cases[i].aad_len - s),
			};

			assert_int_equal(smb2_mac(&k, cases[i].iv, w, 2, mac),
					 0);
			assert_memory_equal(mac, cases[i].tag, 16);
		}
		/* GMAC has no default nonce */
		assert_int_equal(smb2_mac(&k, NULL, &v, 1, mac), -EINVAL);
		smb2_sign_key_wipe(&k);
	}
}

static void test_gmac_smb(void **state)
{
	uint8_t copy[sizeof(ms311_ss_rsp2)], sig[SMB2_SIG_SIZE];
	struct iovec r = iov_of(ms311_ss_rsp2, sizeof(ms311_ss_rsp2));
	struct iovec c = iov_of(gmac_cancel, sizeof(gmac_cancel));
	struct iovec cp = iov_of(copy, sizeof(copy));
	struct smb2_keys k;

	(void)state;
	assert_int_equal(smb2_session_keys_derive(&k, 0x0311,
						  SMB2_SIGN_AES_GMAC,
						  SMB2_CIPHER_NONE, ms311_sk,
						  16, ms311_ss_req2_hash),
			 0);
	assert_int_equal(smb2_sign(&k.sign, 3, true, false, &r, 1, sig), 0);
	assert_memory_equal(sig, gmac_rsp_sig, 16);
	/* the message holds Windows' CMAC signature, not this one */
	assert_false(smb2_verify(&k.sign, 3, true, false, &r, 1));
	memcpy(copy, ms311_ss_rsp2, sizeof(copy));
	memcpy(copy + SMB2_SIG_OFFSET, sig, SMB2_SIG_SIZE);
	assert_true(smb2_verify(&k.sign, 3, true, false, &cp, 1));
	/* the nonce: MessageId, sender, CANCEL */
	assert_false(smb2_verify(&k.sign, 4, true, false, &cp, 1));
	assert_false(
		smb2_verify(&k.sign, 3 | (1ull << 56), true, false, &cp, 1));
	assert_false(smb2_verify(&k.sign, 3, false, false, &cp, 1));
	assert_false(smb2_verify(&k.sign, 3, true, true, &cp, 1));

	assert_int_equal(smb2_sign(&k.sign, 0x102, false, true, &c, 1, sig), 0);
	assert_memory_equal(sig, gmac_cancel_sig, 16);
	assert_int_equal(smb2_sign(&k.sign, 0x102, false, false, &c, 1, sig),
			 0);
	assert_memory_equal(sig, gmac_cancel_sig_nc, 16);
	assert_int_equal(smb2_sign(&k.sign, 0x102, true, true, &c, 1, sig), 0);
	assert_memory_equal(sig, gmac_cancel_sig_srv, 16);
	smb2_keys_wipe(&k);

	/* the role and CANCEL bits mean nothing to CMAC and HMAC */
	assert_int_equal(smb2_session_keys_derive(&k, 0x0311,
						  SMB2_SIGN_AES_CMAC,
						  SMB2_CIPHER_NONE, ms311_sk,
						  16, ms311_ss_req2_hash),
			 0);
	assert_true(smb2_verify(&k.sign, 0, false, true, &r, 1));
	smb2_keys_wipe(&k);
}

static void test_hmac_2x(void **state)
{
	uint8_t zeroed[sizeof(ms311_ss_req2)], full[32], sig[SMB2_SIG_SIZE];
	struct iovec v = iov_of(ms311_ss_req2, sizeof(ms311_ss_req2));
	size_t full_len = 0;
	struct smb2_keys k;

	(void)state;
	assert_int_equal(
		smb2_session_keys_derive(&k, 0x0210, SMB2_SIGN_HMAC_SHA256,
					 SMB2_CIPHER_NONE, hmac_key, 16, NULL),
		0);
	assert_int_equal(smb2_sign(&k.sign, 3, true, false, &v, 1, sig), 0);
	/* the first 16 of the 32 bytes, as Python's hmac computed them */
	assert_memory_equal(sig, hmac_req2_full, 16);
	/* and as OpenSSL's one-shot HMAC computes them */
	memcpy(zeroed, ms311_ss_req2, sizeof(zeroed));
	memset(zeroed + SMB2_SIG_OFFSET, 0, SMB2_SIG_SIZE);
	assert_non_null(EVP_Q_mac(NULL, "HMAC", NULL, "SHA256", NULL, hmac_key,
				  16, zeroed, sizeof(zeroed), full,
				  sizeof(full), &full_len));
	assert_int_equal(full_len, 32);
	assert_memory_equal(full, hmac_req2_full, 32);
	/* the bare MAC leaves the field as it is */
	assert_int_equal(smb2_mac(&k.sign, NULL, &v, 1, sig), 0);
	assert_non_null(EVP_Q_mac(NULL, "HMAC", NULL, "SHA256", NULL, hmac_key,
				  16, ms311_ss_req2, sizeof(ms311_ss_req2),
				  full, sizeof(full), &full_len));
	assert_memory_equal(sig, full, 16);
	smb2_keys_wipe(&k);
}

/* @msg (len bytes, a private copy) signed with @alg, its signature set. */
static void make_signed(struct smb2_sign_key *k, enum smb2_sign_alg alg,
			uint8_t *msg, size_t len)
{
	struct iovec v = iov_of(msg, len);
	uint8_t sig[SMB2_SIG_SIZE];

	memset(k, 0, sizeof(*k));
	assert_int_equal(smb2_sign_key_init(k, alg, ms311_sign), 0);
	assert_int_equal(smb2_sign(k, msgid_of(msg), true, false, &v, 1, sig),
			 0);
	memcpy(msg + SMB2_SIG_OFFSET, sig, SMB2_SIG_SIZE);
	assert_true(smb2_verify(k, msgid_of(msg), true, false, &v, 1));
}

/*
 * @msg cut into @n pieces of @lens bytes, each copied into a buffer of
 * its own (NULL when empty) so that reading past a segment's end finds
 * other bytes, or trips ASan, instead of the message's next ones.
 */
static void pieces_make(struct iovec *v, const uint8_t *msg, const size_t *lens,
			int n)
{
	size_t off = 0;
	int i;

	for (i = 0; i < n; i++) {
		uint8_t *p = NULL;

		if (lens[i]) {
			p = malloc(lens[i]);
			assert_non_null(p);
			memcpy(p, msg + off, lens[i]);
		}
		v[i] = iov_of(p, lens[i]);
		off += lens[i];
	}
}

static void pieces_free(struct iovec *v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(v[i].iov_base);
}

static void check_pieces(const struct smb2_sign_key *k, const uint8_t *msg,
			 const size_t *lens, int n)
{
	uint8_t sig[SMB2_SIG_SIZE];
	struct iovec v[8];

	pieces_make(v, msg, lens, n);
	assert_int_equal(smb2_sign(k, msgid_of(msg), true, false, v, n, sig),
			 0);
	assert_memory_equal(sig, msg + SMB2_SIG_OFFSET, SMB2_SIG_SIZE);
	assert_true(smb2_verify(k, msgid_of(msg), true, false, v, n));
	pieces_free(v, n);
}

static void test_iov_split(void **state)
{
	uint8_t msg[sizeof(ms311_ss_req2)];
	const size_t len = sizeof(msg);
	size_t a, b, i;

	(void)state;
	for (i = 0; i < N_ALGS; i++) {
		struct smb2_sign_key k;

		memcpy(msg, ms311_ss_req2, len);
		make_signed(&k, all_algs[i], msg, len);
		/* two pieces, split at every byte */
		for (a = 0; a <= len; a++) {
			const size_t lens[2] = {a, len - a};

			check_pieces(&k, msg, lens, 2);
		}
		/* three pieces around the header, empty ones between */
		for (a = 0; a <= 80; a++) {
			for (b = a; b <= 80; b++) {
				const size_t lens[5] = {a, 0, b - a, 0,
							len - b};

				check_pieces(&k, msg, lens, 5);
			}
		}
		/* one byte per segment */
		{
			struct iovec v[sizeof(msg)];
			size_t ones[sizeof(msg)];

			for (a = 0; a < len; a++)
				ones[a] = 1;
			pieces_make(v, msg, ones, (int)len);
			assert_true(smb2_verify(&k, msgid_of(msg), true, false,
						v, (int)len));
			pieces_free(v, (int)len);
		}
		smb2_sign_key_wipe(&k);
	}
}

static void test_bit_flips(void **state)
{
	uint8_t msg[sizeof(ms311_b_ss_rsp1)];
	const size_t len = sizeof(msg);
	size_t i, bit;

	(void)state;
	for (i = 0; i < N_ALGS; i++) {
		struct smb2_sign_key k;
		struct iovec v = iov_of(msg, len);
		uint64_t id;

		memcpy(msg, ms311_b_ss_rsp1, len);
		make_signed(&k, all_algs[i], msg, len);
		id = msgid_of(msg);
		/* every bit, the signature's own included */
		for (bit = 0; bit < len * 8; bit++) {
			msg[bit / 8] ^= (uint8_t)(1u << (bit % 8));
			assert_false(smb2_verify(&k, id, true, false, &v, 1));
			msg[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		}
		assert_true(smb2_verify(&k, id, true, false, &v, 1));
		/* a byte fewer or more */
		v.iov_len = len - 1;
		assert_false(smb2_verify(&k, id, true, false, &v, 1));
		{
			uint8_t longer[sizeof(msg) + 1];
			struct iovec w = iov_of(longer, sizeof(longer));

			memcpy(longer, msg, len);
			longer[len] = 0;
			assert_false(smb2_verify(&k, id, true, false, &w, 1));
		}
		smb2_sign_key_wipe(&k);
	}
}

static void test_sig_field_ignored(void **state)
{
	const size_t len = sizeof(ms311_ss_rsp2);
	long page = sysconf(_SC_PAGESIZE);
	uint8_t zeroed[sizeof(ms311_ss_rsp2)];
	uint8_t sig[SMB2_SIG_SIZE], sig0[SMB2_SIG_SIZE];
	uint8_t *ro;
	size_t i;

	(void)state;
	assert_true(page > 0 && (size_t)page >= len);
	memcpy(zeroed, ms311_ss_rsp2, len);
	memset(zeroed + SMB2_SIG_OFFSET, 0, SMB2_SIG_SIZE);
	ro = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(ro != MAP_FAILED);
	for (i = 0; i < N_ALGS; i++) {
		struct smb2_sign_key k = {0};
		struct iovec z = iov_of(zeroed, len), r = iov_of(ro, len);

		assert_int_equal(
			smb2_sign_key_init(&k, all_algs[i], ms311_sign), 0);
		assert_int_equal(smb2_sign(&k, 3, true, false, &z, 1, sig0), 0);
		/* a message on a read-only page, its signature field full */
		assert_int_equal(
			mprotect(ro, (size_t)page, PROT_READ | PROT_WRITE), 0);
		memcpy(ro, ms311_ss_rsp2, len);
		memset(ro + SMB2_SIG_OFFSET, 0xa5, SMB2_SIG_SIZE);
		assert_int_equal(mprotect(ro, (size_t)page, PROT_READ), 0);
		assert_int_equal(smb2_sign(&k, 3, true, false, &r, 1, sig), 0);
		assert_memory_equal(sig, sig0, 16);
		assert_false(smb2_verify(&k, 3, true, false, &r, 1));
		/* and the bare MAC does read the field */
		assert_int_equal(smb2_mac(&k, sig, &r, 1, sig), 0);
		assert_memory_not_equal(sig, sig0, 16);
		/* with the signature in place it verifies, still read-only */
		assert_int_equal(
			mprotect(ro, (size_t)page, PROT_READ | PROT_WRITE), 0);
		memcpy(ro + SMB2_SIG_OFFSET, sig0, SMB2_SIG_SIZE);
		assert_int_equal(mprotect(ro, (size_t)page, PROT_READ), 0);
		assert_true(smb2_verify(&k, 3, true, false, &r, 1));
		smb2_sign_key_wipe(&k);
	}
	munmap(ro, (size_t)page);
}

static void test_sign_args(void **state)
{
	struct smb2_sign_key none = {0}, k = {0};
	struct iovec v = iov_of(ms311_ss_rsp2, SMB2_SIGNED_MIN);
	struct iovec w[2] = {
		iov_of(ms311_ss_rsp2, 40),
		iov_of(ms311_ss_rsp2 + 40, 23),
	};
	uint8_t sig[SMB2_SIG_SIZE];

	(void)state;
	assert_int_equal(smb2_sign_key_init(&k, SMB2_SIGN_AES_CMAC, ms311_sign),
			 0);
	/* a bare 64-byte header signs; 63 bytes, however cut, do not */
	assert_int_equal(smb2_sign(&k, 0, true, false, &v, 1, sig), 0);
	v.iov_len = SMB2_SIGNED_MIN - 1;
	assert_int_equal(smb2_sign(&k, 0, true, false, &v, 1, sig), -EINVAL);
	assert_false(smb2_verify(&k, 0, true, false, &v, 1));
	assert_int_equal(smb2_sign(&k, 0, true, false, w, 2, sig), -EINVAL);
	assert_false(smb2_verify(&k, 0, true, false, w, 2));
	assert_int_equal(smb2_sign(&k, 0, true, false, NULL, 0, sig), -EINVAL);
	assert_int_equal(smb2_sign(&k, 0, true, false, w, -1, sig), -EINVAL);
	assert_int_equal(smb2_sign(&k, 0, true, false, NULL, 1, sig), -EINVAL);
	assert_int_equal(smb2_sign(&k, 0, true, false, w, 2, NULL), -EINVAL);
	/* no key */
	v.iov_len = sizeof(ms311_ss_rsp2);
	assert_int_equal(smb2_sign(&none, 0, true, false, &v, 1, sig), -EINVAL);
	assert_int_equal(smb2_sign(NULL, 0, true, false, &v, 1, sig), -EINVAL);
	assert_false(smb2_verify(&none, 0, true, false, &v, 1));
	assert_false(smb2_verify(NULL, 0, true, false, &v, 1));
	smb2_sign_key_wipe(&k);
	assert_int_equal(smb2_sign(&k, 0, true, false, &v, 1, sig), -EINVAL);
	assert_false(smb2_verify(&k, 0, true, false, &v, 1));
}

/* Threads signing with one key at once: more than SMB2_SIGN_SPARES. */
#define SIGN_THREADS 8
#define SIGN_ROUNDS  1500

struct sign_job {
	const struct smb2_sign_key *k;
	const uint8_t *msg;
	size_t len;
	const uint8_t *want;
	int bad;
};

static void *sign_thread(void *arg)
{
	struct sign_job *j = arg;
	uint8_t sig[SMB2_SIG_SIZE];
	int i;

	for (i = 0; i < SIGN_ROUNDS; i++) {
		struct iovec v[2] = {
			iov_of(j->msg, (size_t)i % j->len),
			iov_of(j->msg + (size_t)i % j->len,
			       j->len - (size_t)i % j->len),
		};

		if (smb2_sign(j->k, msgid_of(j->msg), true, false, v, 2, sig) ||
		    CRYPTO_memcmp(sig, j->want, SMB2_SIG_SIZE) != 0 ||
		    !smb2_verify(j->k, msgid_of(j->msg), true, false, v, 2))
			j->bad++;
	}
	return NULL;
}

static void test_threads(void **state)
{
	uint8_t msg[sizeof(ms311_ss_req2)];
	size_t i, t;

	(void)state;
	for (i = 0; i < N_ALGS; i++) {
		struct sign_job jobs[SIGN_THREADS];
		pthread_t tid[SIGN_THREADS];
		struct smb2_sign_key k;

		memcpy(msg, ms311_ss_req2, sizeof(msg));
		make_signed(&k, all_algs[i], msg, sizeof(msg));
		for (t = 0; t < SIGN_THREADS; t++) {
			jobs[t] = (struct sign_job){
				.k = &k,
				.msg = msg,
				.len = sizeof(msg),
				.want = msg + SMB2_SIG_OFFSET,
			};
			assert_int_equal(pthread_create(&tid[t], NULL,
							sign_thread, &jobs[t]),
					 0);
		}
		for (t = 0; t < SIGN_THREADS; t++) {
			assert_int_equal(pthread_join(tid[t], NULL), 0);
			assert_int_equal(jobs[t].bad, 0);
		}
		smb2_sign_key_wipe(&k);
	}
}

/* ---- SMB2_CRYPTO_BENCH=1: throughput, printed, not asserted ---- */

static double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int bench(void)
{
	static const char *const names[] = {"HMAC-SHA256", "AES-CMAC",
					    "AES-GMAC"};
	static const size_t sizes[] = {100, 4096, 1 << 20, 8 << 20};
	uint8_t sig[SMB2_SIG_SIZE], hash[SMB2_PREAUTH_SIZE];
	size_t i, s, max = 8 << 20;
	uint8_t *buf = malloc(max);
	struct smb2_keys keys;
	double t0, dt;
	long n;

	if (!buf)
		return 1;
	memset(buf, 0x5a, max);
	for (i = 0; i < N_ALGS; i++) {
		struct smb2_sign_key k = {0};

		if (smb2_sign_key_init(&k, all_algs[i], ms311_sign))
			return 1;
		for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			struct iovec v = iov_of(buf, sizes[s]);

			n = 0;
			t0 = now_sec();
			do {
				smb2_sign(&k, (uint64_t)n, true, false, &v, 1,
					  sig);
				n++;
				dt = now_sec() - t0;
			} while (dt < 0.5);
			printf("%-12s %8zu bytes: %9.0f ns/msg %8.0f MB/s\n",
			       names[i], sizes[s], dt / (double)n * 1e9,
			       (double)n * (double)sizes[s] / dt / 1e6);
		}
		smb2_sign_key_wipe(&k);
	}
	{
		struct iovec v = iov_of(buf, 1 << 20);

		smb2_preauth_init(hash);
		n = 0;
		t0 = now_sec();
		do {
			smb2_preauth_update(hash, &v, 1);
			n++;
			dt = now_sec() - t0;
		} while (dt < 0.5);
		printf("%-12s %8d bytes: %9.0f ns/msg %8.0f MB/s\n", "SHA-512",
		       1 << 20, dt / (double)n * 1e9,
		       (double)n * (double)(1 << 20) / dt / 1e6);
	}
	n = 0;
	t0 = now_sec();
	do {
		smb2_session_keys_derive(&keys, 0x0311, SMB2_SIGN_AES_GMAC,
					 SMB2_CIPHER_AES128_GCM, ms311_sk, 16,
					 ms311_ss_req2_hash);
		smb2_keys_wipe(&keys);
		n++;
		dt = now_sec() - t0;
	} while (dt < 0.5);
	printf("session keys (3.1.1, GMAC, 4 KDFs + contexts): %.1f us\n",
	       dt / (double)n * 1e6);
	free(buf);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kdf_vectors),
		cmocka_unit_test(test_keys_ms30),
		cmocka_unit_test(test_preauth_ms311),
		cmocka_unit_test(test_keys_ms311),
		cmocka_unit_test(test_keys_aes256),
		cmocka_unit_test(test_keys_2x),
		cmocka_unit_test(test_derive_args),
		cmocka_unit_test(test_sign_ms311),
		cmocka_unit_test(test_cmac_rfc4493),
		cmocka_unit_test(test_gmac_ieee),
		cmocka_unit_test(test_gmac_smb),
		cmocka_unit_test(test_hmac_2x),
		cmocka_unit_test(test_iov_split),
		cmocka_unit_test(test_bit_flips),
		cmocka_unit_test(test_sig_field_ignored),
		cmocka_unit_test(test_sign_args),
		cmocka_unit_test(test_threads),
	};

	if (smb2_crypto_init()) {
		fprintf(stderr, "OpenSSL lacks an SMB algorithm\n");
		return 1;
	}
	if (getenv("SMB2_CRYPTO_BENCH"))
		return bench();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
