/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the SPNEGO DER decoders (src/smb2/auth/spnego.c) and
 * the first step of an exchange (smb2_auth_step() in its start state,
 * which also takes raw NTLMSSP NEGOTIATE messages).
 *
 * Checked: every blob a decoder returns lies inside the input; the
 * NTLMSSP index is within the mechanism count; DER is canonical, so a
 * NegTokenResp that decodes (with NTLMSSP or no supportedMech) encodes
 * back to exactly the input, and that encoding decodes to the same
 * fields; the first step returns one of its documented results with its
 * output inside the buffer.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "smb2/auth/auth.h"
#include "smb2/auth/spnego.h"

static struct smb2_users *db;
static struct smb2_auth_cfg cfg;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char dir[] = "/tmp/nasd-fuzz-spnego.XXXXXX", err[256];

	(void)argc;
	(void)argv;
	/* an empty database (no smbpasswd): the start step needs one */
	if (!mkdtemp(dir) || smb2_users_open(dir, &db, err, sizeof(err))) {
		fprintf(stderr, "fuzz_spnego: users: %s\n", err);
		exit(1);
	}
	(void)rmdir(dir);
	smb2_auth_cfg_init(&cfg, db);
	return 0;
}

static void check_blob(const struct spnego_blob *b, const uint8_t *in,
		       size_t len)
{
	if (!b->p)
		return;
	FUZZ_CHECK(b->p >= in && b->len <= len &&
		   (size_t)(b->p - in) <= len - b->len);
}

static void check_resp(const uint8_t *data, size_t size)
{
	static uint8_t enc[1 << 17];
	struct spnego_resp r, r2;
	struct smb2_buf b;

	if (!spnego_dec_NegTokenResp(data, size, &r))
		return;
	check_blob(&r.response_token, data, size);
	check_blob(&r.mech_list_mic, data, size);
	FUZZ_CHECK(r.neg_state >= SPNEGO_NO_STATE && r.neg_state <= 3);
	if (r.has_supported_mech && !r.supported_mech_ntlmssp)
		return; /* the encoder only names NTLMSSP */
	sb_init(&b, enc, sizeof(enc));
	FUZZ_CHECK(spnego_enc_NegTokenResp(
		&b, r.neg_state, r.has_supported_mech, r.response_token.p,
		r.response_token.len, r.mech_list_mic.p, r.mech_list_mic.len));
	FUZZ_CHECK(b.pos == size && memcmp(enc, data, size) == 0);
	FUZZ_CHECK(spnego_dec_NegTokenResp(enc, b.pos, &r2));
	FUZZ_CHECK(r2.neg_state == r.neg_state &&
		   r2.has_supported_mech == r.has_supported_mech &&
		   r2.response_token.len == r.response_token.len &&
		   r2.mech_list_mic.len == r.mech_list_mic.len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t out[SMB2_AUTH_TOKEN_MAX];
	struct spnego_init init;
	struct smb2_auth *a;
	size_t outlen = 0;
	int ret;

	if (spnego_dec_NegTokenInit(data, size, &init)) {
		check_blob(&init.mech_types, data, size);
		check_blob(&init.mech_token, data, size);
		check_blob(&init.mech_list_mic, data, size);
		FUZZ_CHECK(init.mech_types.p && init.nmechs > 0 &&
			   init.nmechs <= SPNEGO_MAX_MECHS);
		FUZZ_CHECK(init.ntlmssp_index < (int)init.nmechs);
	}
	check_resp(data, size);

	a = smb2_auth_new(&cfg);
	FUZZ_CHECK(a);
	ret = smb2_auth_step(a, data, size, out, sizeof(out), &outlen);
	FUZZ_CHECK(ret == SMB2_AUTH_MORE || ret == -EINVAL ||
		   ret == -EOPNOTSUPP || ret == -EACCES);
	FUZZ_CHECK(outlen <= sizeof(out));
	if (ret == SMB2_AUTH_MORE)
		FUZZ_CHECK(outlen > 0);
	smb2_auth_free(a);
	return 0;
}
