/* SPDX-License-Identifier: MIT */
/*
 * Unit tests: SMB 3.x encryption (src/smb2/crypto_seal.c, MS-SMB2
 * §3.1.4.3, §2.2.41): the TRANSFORM_HEADER and ciphertext of each cipher
 * against vectors, messages split across iovecs, nonces that never
 * repeat, and every way an encrypted message can be wrong (a flipped bit
 * anywhere, a bad size, flags or protocol id, a truncated header).
 *
 * The vectors were computed with python3-cryptography (AESCCM, AESGCM),
 * whose TRANSFORM_HEADER framing is the few lines below, not nasd's:
 *
 *   msg = bytes((i * 7 + 3) & 0xff for i in range(200))
 *   key = bytes((0x40 + i) & 0xff for i in range(16 or 32))
 *   nonce = struct.pack("<Q", 5) + bytes.fromhex("a1b2c3d4")[:n - 8]
 *           (n = 11 for CCM, 12 for GCM)
 *   aad = nonce.ljust(16, b"\0") + struct.pack("<IHHQ", 200, 0, 1,
 *                                              0x1122334455667788)
 *   ct_tag = AESCCM(key, tag_length=16) or AESGCM(key)
 *            .encrypt(nonce, msg, aad)
 *   vector = b"\xfdSMB" + tag + aad + ct
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/le.h"
#include "smb2/crypto.h"

#define MSG_LEN 200
#define SID 0x1122334455667788ull

struct vec {
	enum smb2_cipher cipher;
	const char *hex; /* TRANSFORM_HEADER then ciphertext */
};

static const struct vec vecs[] = {
	{ SMB2_CIPHER_AES128_CCM,
	  "fd534d42c2565c64ea63fc33164b25d5410b7e680500000000000000a1b2c300"
	  "00000000c8000000000001008877665544332211f6adef7be072a30d33029d48"
	  "4e3af8b00f36e4f040f92d8592eecb00080e559736ddcfcbb940eee35ad34be7"
	  "68b27e95f6dbcbaab8555c5f91fcdaf848511a4b0794e771726b7e7493f0196d"
	  "815bd6a3c8a835fab0c7afde0fe771323e477f032b7bb0865dfa21f2c3cc71f6"
	  "28cef4a9c74ac09cef3438c5f56ee9d0dc79764a1d3bdb2f8b3f48cdbb003521"
	  "c26edbf74bafc161f53d657c2675c7035f76eab4b7af97222112d653feceb2ce"
	  "307dd989baf4d7f0f20b082bcb0a8142c85fb4ff77486debe83b6f9e" },
	{ SMB2_CIPHER_AES128_GCM,
	  "fd534d420db34b7312c16430211deb609d43ae620500000000000000a1b2c3d4"
	  "00000000c8000000000001008877665544332211ce16ae14749ba63c2d8a7a39"
	  "fcf7452db0eb41ce60f21cd7f85082f9316d501692bedb62e2cdaccba3697481"
	  "d528c4adf10326ee445f76e4134f59bab888cc48f1d5fd8553c9987787214a67"
	  "2ba7c799967d00719880f2615457b78cc96beb42e3feb591979e9797caf4c307"
	  "0124ae831de1d86288cb6b71358f8eb364ef4a7b024159867834c5433f51bf9c"
	  "982d1c5114b5e75ac6662d97a8eacadf5a849a76672be63cf7bbac72264094a0"
	  "02f8dc0804aa8fddfb7c82fbcf1fce648cca4b8ba042c501d084422f" },
	{ SMB2_CIPHER_AES256_CCM,
	  "fd534d428a1795fa6039b9afea04972cdae09a0c0500000000000000a1b2c300"
	  "00000000c8000000000001008877665544332211eae3e2a22f227eb3796da060"
	  "28f236165c40b9cf2aa6ca21de7492047cd3cf8430717114a88f3ac9df10816e"
	  "5aea6141ba97cfd5a5f2524868e45bcb9f75f122d6f0f1d2494e0a96c08bd364"
	  "223e224f23f496a2f74a1a765c2379400c0a619d335e9219cd473d275c8ce902"
	  "b5d8eb26b31b889a8b413a9d72e45deca4fbe1e010bfab2bc2f06411bccdf9a0"
	  "a1ce21a9731592810ebb9a60ae38aa7750c53a0bd3d8f5ffaa75851ab8df99f1"
	  "e9550fb96e5237ee7109035b36b410757a77a1b5dbf6f9dd3f2011ae" },
	{ SMB2_CIPHER_AES256_GCM,
	  "fd534d42b4ea3ed8cd31054e52473c0a85f1d2960500000000000000a1b2c3d4"
	  "00000000c80000000000010088776655443322118ddc322664c7efd5a666ee45"
	  "2062036c58448c641c6ad6b50537cbe03081b1e1a63e3322726e71b1942bf11a"
	  "b32d85227b965dc9b54831a527dab7eadc9e643251d41df56f49e01d851b0ede"
	  "42e19283a9f340121c633c43029b0d8cb1ed92169e484b3bafea6b3920dee735"
	  "db2202ec8ff5eb28caf8895ef6f4e1bf4d9d1737d79527f7d0bd4d43c67c6690"
	  "82f965b10c038248d671a936a8b5fa39383fa6d247e9b4dab66fcb619b58cc29"
	  "739b3d8bad8b11e003ed3fca30d6b0eae462131b7674c165c2976636" },
};
#define N_VECS (sizeof(vecs) / sizeof(vecs[0]))
#define VEC_LEN (SMB2_TRANSFORM_LEN + MSG_LEN)

static void unhex(const char *h, uint8_t *out, size_t len)
{
	size_t i;

	assert_int_equal(strlen(h), 2 * len);
	for (i = 0; i < len; i++) {
		unsigned int b;

		assert_int_equal(sscanf(h + 2 * i, "%2x", &b), 1);
		out[i] = (uint8_t)b;
	}
}

static void plain(uint8_t *m)
{
	size_t i;

	for (i = 0; i < MSG_LEN; i++)
		m[i] = (uint8_t)(i * 7 + 3);
}

static void key_of(enum smb2_cipher c, struct smb2_seal_key *k, bool enc)
{
	uint8_t key[32];
	size_t i, len = smb2_cipher_key_len(c);

	for (i = 0; i < sizeof(key); i++)
		key[i] = (uint8_t)(0x40 + i);
	memset(k, 0, sizeof(*k));
	assert_int_equal(smb2_seal_key_init(k, c, enc, key, len), 0);
}

/* Encryption with the vectors' nonce gives their bytes, however the
 * message is split. */
static void test_encrypt_vectors(void **state)
{
	static const size_t splits[][3] = {
		{ MSG_LEN, 0, 0 }, { 64, 136, 0 }, { 1, 63, 136 },
		{ 100, 99, 1 },
	};
	uint8_t want[VEC_LEN], th[SMB2_TRANSFORM_LEN], msg[MSG_LEN];
	struct smb2_seal_key k;
	size_t v, s;

	(void)state;
	for (v = 0; v < N_VECS; v++) {
		unhex(vecs[v].hex, want, sizeof(want));
		key_of(vecs[v].cipher, &k, true);
		for (s = 0; s < sizeof(splits) / sizeof(splits[0]); s++) {
			struct iovec iov[3];
			size_t off = 0;
			int n = 0, i;

			plain(msg);
			for (i = 0; i < 3 && splits[s][i]; i++) {
				iov[n].iov_base = msg + off;
				iov[n++].iov_len = splits[s][i];
				off += splits[s][i];
			}
			atomic_store(&k.counter, 5);
			memcpy(k.salt, "\xa1\xb2\xc3\xd4", 4);
			assert_int_equal(smb2_encrypt(&k, SID, iov, n, th), 0);
			assert_memory_equal(th, want, SMB2_TRANSFORM_LEN);
			assert_memory_equal(msg, want + SMB2_TRANSFORM_LEN,
					    MSG_LEN);
			/* the next message takes the next nonce */
			assert_int_equal(atomic_load(&k.counter), 6);
		}
		smb2_seal_key_wipe(&k);
	}
}

/* Decryption of the vectors gives the message back, in place. */
static void test_decrypt_vectors(void **state)
{
	uint8_t buf[VEC_LEN], msg[MSG_LEN];
	struct smb2_seal_key k;
	uint64_t sid = 0;
	size_t v;

	(void)state;
	plain(msg);
	for (v = 0; v < N_VECS; v++) {
		unhex(vecs[v].hex, buf, sizeof(buf));
		key_of(vecs[v].cipher, &k, false);
		assert_int_equal(smb2_transform_parse(buf, sizeof(buf), &sid),
				 0);
		assert_int_equal(sid, SID);
		assert_int_equal(smb2_decrypt(&k, buf, sizeof(buf)), 0);
		assert_memory_equal(buf + SMB2_TRANSFORM_LEN, msg, MSG_LEN);
		smb2_seal_key_wipe(&k);
	}
}

/* Any flipped bit of the header's authenticated part, the tag or the
 * ciphertext fails, and the plaintext is not left behind. */
static void test_bit_flips(void **state)
{
	uint8_t good[VEC_LEN], buf[VEC_LEN];
	struct smb2_seal_key k;
	size_t v, i;

	(void)state;
	for (v = 0; v < N_VECS; v++) {
		unhex(vecs[v].hex, good, sizeof(good));
		key_of(vecs[v].cipher, &k, false);
		for (i = 4; i < VEC_LEN; i++) {
			memcpy(buf, good, sizeof(buf));
			buf[i] ^= (uint8_t)(1u << (i % 8));
			assert_int_equal(smb2_decrypt(&k, buf, sizeof(buf)),
					 -EBADMSG);
			if (i >= SMB2_TRANSFORM_LEN ||
			    (i >= 36 && i < 44) /* size, flags: not opened */)
				continue;
			/* what failed its tag is wiped */
			assert_memory_not_equal(buf + SMB2_TRANSFORM_LEN,
						good + SMB2_TRANSFORM_LEN,
						MSG_LEN);
		}
		smb2_seal_key_wipe(&k);
	}
}

/* Malformed headers are refused before any decryption. */
static void test_malformed(void **state)
{
	uint8_t buf[VEC_LEN];
	struct smb2_seal_key k;
	uint64_t sid;

	(void)state;
	key_of(SMB2_CIPHER_AES128_GCM, &k, false);
	unhex(vecs[1].hex, buf, sizeof(buf));
	/* nothing after the header, a header cut short, no message */
	assert_int_equal(smb2_transform_parse(buf, SMB2_TRANSFORM_LEN, &sid),
			 -EBADMSG);
	assert_int_equal(smb2_transform_parse(buf, 20, &sid), -EBADMSG);
	assert_int_equal(smb2_transform_parse(NULL, 0, &sid), -EBADMSG);
	assert_int_equal(smb2_decrypt(&k, buf, SMB2_TRANSFORM_LEN), -EBADMSG);
	/* OriginalMessageSize one off either way, then the wrap */
	assert_int_equal(smb2_decrypt(&k, buf, sizeof(buf) - 1), -EBADMSG);
	put_le32(buf + 36, MSG_LEN + 1);
	assert_int_equal(smb2_transform_parse(buf, sizeof(buf), &sid),
			 -EBADMSG);
	put_le32(buf + 36, UINT32_MAX);
	assert_int_equal(smb2_transform_parse(buf, sizeof(buf), &sid),
			 -EBADMSG);
	put_le32(buf + 36, MSG_LEN);
	/* Flags other than Encrypted (0x0001) */
	put_le16(buf + 42, 0);
	assert_int_equal(smb2_transform_parse(buf, sizeof(buf), &sid),
			 -EBADMSG);
	put_le16(buf + 42, 3);
	assert_int_equal(smb2_transform_parse(buf, sizeof(buf), &sid),
			 -EBADMSG);
	put_le16(buf + 42, 1);
	/* another ProtocolId */
	buf[0] = 0xfe;
	assert_int_equal(smb2_transform_parse(buf, sizeof(buf), &sid),
			 -EBADMSG);
	buf[0] = 0xfd;
	assert_int_equal(smb2_decrypt(&k, buf, sizeof(buf)), 0);
	smb2_seal_key_wipe(&k);
}

/* A key of one cipher does not open another's message; a decryption key
 * does not encrypt; bad arguments are refused. */
static void test_keys(void **state)
{
	uint8_t buf[VEC_LEN], th[SMB2_TRANSFORM_LEN], key[32] = { 0 };
	struct smb2_seal_key k, none;
	struct iovec iov = { .iov_base = buf, .iov_len = 0 };

	(void)state;
	memset(&none, 0, sizeof(none));
	unhex(vecs[1].hex, buf, sizeof(buf));
	key_of(SMB2_CIPHER_AES256_GCM, &k, false);
	assert_int_equal(smb2_decrypt(&k, buf, sizeof(buf)), -EBADMSG);
	smb2_seal_key_wipe(&k);
	assert_int_equal(smb2_decrypt(&none, buf, sizeof(buf)), -EBADMSG);
	assert_int_equal(smb2_encrypt(&none, SID, &iov, 1, th), -EINVAL);
	key_of(SMB2_CIPHER_AES128_GCM, &k, true);
	/* an empty message is not sealed */
	assert_int_equal(smb2_encrypt(&k, SID, &iov, 1, th), -EINVAL);
	assert_int_equal(smb2_encrypt(&k, SID, NULL, 0, th), -EINVAL);
	/* the last nonce of a key is never used */
	iov.iov_len = 10;
	atomic_store(&k.counter, UINT64_MAX);
	assert_int_equal(smb2_encrypt(&k, SID, &iov, 1, th), -EOVERFLOW);
	smb2_seal_key_wipe(&k);
	assert_true(k.tmpl == NULL);
	/* key lengths must match the cipher */
	assert_int_equal(smb2_seal_key_init(&k, SMB2_CIPHER_AES128_GCM, true,
					    key, 32),
			 -EINVAL);
	assert_int_equal(smb2_seal_key_init(&k, SMB2_CIPHER_AES256_CCM, true,
					    key, 16),
			 -EINVAL);
	assert_int_equal(smb2_seal_key_init(&k, SMB2_CIPHER_NONE, true, key,
					    16),
			 -EINVAL);
	assert_int_equal(smb2_seal_key_init(&k, (enum smb2_cipher)9, true,
					    key, 16),
			 -EINVAL);
}

/* Round trips of many sizes with the keys of a logon: what the server
 * seals opens with a decryption key made of its s2c bytes (the client's
 * side) and not with its own c2s key, and no two messages share a
 * nonce. */
static void test_round_trip(void **state)
{
	static const enum smb2_cipher all[] = {
		SMB2_CIPHER_AES128_CCM, SMB2_CIPHER_AES128_GCM,
		SMB2_CIPHER_AES256_CCM, SMB2_CIPHER_AES256_GCM,
	};
	static const size_t sizes[] = { 1, 15, 16, 17, 4096, 65536 + 3,
					(1u << 20) };
	uint8_t gss[32], preauth[64];
	size_t a, z, i;

	(void)state;
	memset(gss, 0x5a, sizeof(gss));
	memset(preauth, 0x33, sizeof(preauth));
	for (a = 0; a < sizeof(all) / sizeof(all[0]); a++) {
		struct smb2_keys keys;
		struct smb2_seal_key client;
		uint8_t last_nonce[16] = { 0 };

		memset(&keys, 0, sizeof(keys));
		assert_int_equal(smb2_session_keys_derive(
					 &keys, 0x0311, SMB2_SIGN_AES_GMAC,
					 all[a], gss, sizeof(gss), preauth),
				 0);
		assert_int_equal(keys.enc.cipher, all[a]);
		memset(&client, 0, sizeof(client));
		assert_int_equal(smb2_seal_key_init(&client, all[a], false,
						    keys.s2c, keys.cipher_len),
				 0);
		for (z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
			size_t n = sizes[z], len = SMB2_TRANSFORM_LEN + n;
			uint8_t *m = malloc(len), *c = malloc(len);
			uint8_t *body = m + SMB2_TRANSFORM_LEN;
			struct iovec iov[2] = {
				{ .iov_base = body, .iov_len = n / 2 },
				{ .iov_base = body + n / 2,
				  .iov_len = n - n / 2 },
			};
			int first = n / 2 ? 0 : 1;

			assert_non_null(m);
			assert_non_null(c);
			for (i = 0; i < n; i++)
				body[i] = (uint8_t)(i ^ z);
			assert_int_equal(smb2_encrypt(&keys.enc, 77,
						      iov + first, 2 - first,
						      m),
					 0);
			assert_int_equal(get_le64(m + 44), 77);
			assert_memory_not_equal(m + 20, last_nonce, 16);
			memcpy(last_nonce, m + 20, 16);
			memcpy(c, m, len);
			assert_int_equal(smb2_decrypt(&keys.dec, c, len),
					 -EBADMSG);
			assert_int_equal(smb2_decrypt(&client, m, len), 0);
			for (i = 0; i < n; i++)
				assert_int_equal(body[i], (uint8_t)(i ^ z));
			free(c);
			free(m);
		}
		smb2_seal_key_wipe(&client);
		smb2_keys_wipe(&keys);
		assert_null(keys.enc.tmpl);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encrypt_vectors),
		cmocka_unit_test(test_decrypt_vectors),
		cmocka_unit_test(test_bit_flips),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
