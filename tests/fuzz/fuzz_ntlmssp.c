/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: whole SESSION_SETUP exchanges (src/smb2/auth): the
 * NTLMSSP messages, raw and inside SPNEGO, against a user database with
 * the users of tests/vectors/smb2_auth and the vectors' fixed server
 * challenge, so that seeds made from recorded exchanges reach the
 * successful paths (proof, key exchange, MIC, mechListMIC).
 *
 * Input: a sequence of tokens, each a 2-byte little-endian length and its
 * bytes (a short last token takes what is left); the tokens are the
 * SESSION_SETUP security buffers of one exchange, fed to
 * smb2_auth_step() in order until it stops asking for more.
 *
 * Checked: only documented results; outputs within the buffer; after an
 * error every further step is -EPROTO; a success names a database user
 * (uid and gid as stored) with a session key, or is anonymous without
 * one; nothing leaks (LeakSanitizer).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "smb2/auth/auth.h"
#include "smb2/auth/ntlm_crypto.h"

#define MAX_TOKENS 6

/* tests/vectors/smb2_auth's server challenge, time and users */
static const uint8_t challenge[8] = {0x01, 0x23, 0x45, 0x67,
				     0x89, 0xab, 0xcd, 0xef};
static const uint64_t filetime = 133000000000000000ull;
static const struct {
	const char *name;
	uint32_t uid, gid;
	const char *password;
} users[] = {
	{"alice", 1000, 1000, "Secret-Pw1"},
	{"Bj\xc3\xb6rn", 1001, 1002, "p\xc3\xa4ssw\xc3\xb6rd \xc3\x9f"},
};

static struct smb2_users *db;
static struct smb2_auth_cfg cfg;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char dir[] = "/tmp/nasd-fuzz-ntlmssp.XXXXXX", path[64], err[256];
	char line[256];
	uint8_t h[16];
	int fd;

	(void)argc;
	(void)argv;
	FUZZ_CHECK(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/smbpasswd", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	FUZZ_CHECK(fd >= 0);
	for (size_t i = 0; i < sizeof(users) / sizeof(users[0]); i++) {
		int n;

		FUZZ_CHECK(ntlm_nt_hash(users[i].password,
					strlen(users[i].password), h) == 0);
		n = snprintf(line, sizeof(line), "%s:%u:%u:", users[i].name,
			     users[i].uid, users[i].gid);
		for (int k = 0; k < 16; k++)
			n += snprintf(line + n, sizeof(line) - (size_t)n,
				      "%02x", h[k]);
		line[n++] = '\n';
		FUZZ_CHECK(write(fd, line, (size_t)n) == n);
	}
	close(fd);
	if (smb2_users_open(dir, &db, err, sizeof(err))) {
		fprintf(stderr, "fuzz_ntlmssp: %s\n", err);
		exit(1);
	}
	(void)unlink(path);
	(void)rmdir(dir);
	smb2_auth_cfg_init(&cfg, db);
	/* the vectors' names, which their CHALLENGEs (and so MICs) hold */
	snprintf(cfg.nb_computer, sizeof(cfg.nb_computer), "NASDTEST");
	snprintf(cfg.nb_domain, sizeof(cfg.nb_domain), "NASDTEST");
	snprintf(cfg.dns_computer, sizeof(cfg.dns_computer),
		 "nasdtest.example.org");
	snprintf(cfg.dns_domain, sizeof(cfg.dns_domain), "example.org");
	return 0;
}

static void check_done(struct smb2_auth *a)
{
	uint8_t key[SMB2_AUTH_KEY_LEN];
	const char *name = smb2_auth_user(a);
	bool known = false;

	if (smb2_auth_anonymous(a)) {
		FUZZ_CHECK(!*name);
		FUZZ_CHECK(smb2_auth_session_key(a, key) == -ENOKEY);
		return;
	}
	for (size_t i = 0; i < sizeof(users) / sizeof(users[0]); i++)
		if (!strcmp(name, users[i].name) &&
		    smb2_auth_uid(a) == users[i].uid &&
		    smb2_auth_gid(a) == users[i].gid)
			known = true;
	FUZZ_CHECK(known);
	FUZZ_CHECK(smb2_auth_session_key(a, key) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t out[SMB2_AUTH_TOKEN_MAX];
	struct smb2_auth *a = smb2_auth_new(&cfg);
	size_t pos = 0, len, outlen;
	int ret = SMB2_AUTH_MORE;

	FUZZ_CHECK(a);
	smb2_auth_fix_challenge(a, challenge, filetime);
	for (int t = 0; t < MAX_TOKENS && pos < size; t++) {
		if (size - pos < 2)
			break;
		len = (size_t)data[pos] | (size_t)data[pos + 1] << 8;
		pos += 2;
		if (len > size - pos)
			len = size - pos;
		outlen = (size_t)-1;
		ret = smb2_auth_step(a, data + pos, len, out, sizeof(out),
				     &outlen);
		pos += len;
		FUZZ_CHECK(outlen <= sizeof(out));
		FUZZ_CHECK(ret == SMB2_AUTH_MORE || ret == 0 ||
			   ret == -EACCES || ret == -EINVAL ||
			   ret == -EOPNOTSUPP || ret == -EPROTO);
		if (ret == 0)
			check_done(a);
		if (ret != SMB2_AUTH_MORE)
			break;
	}
	if (ret < 0) {
		FUZZ_CHECK(smb2_auth_step(a, data, size, out, sizeof(out),
					  &outlen) == -EPROTO);
		FUZZ_CHECK(!smb2_auth_anonymous(a) && !*smb2_auth_user(a));
	}
	smb2_auth_free(a);
	return 0;
}
