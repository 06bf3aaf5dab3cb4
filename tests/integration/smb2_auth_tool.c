/* SPDX-License-Identifier: MIT */
/*
 * smb2_auth_tool: the server side of one SESSION_SETUP exchange
 * (src/smb2/auth) over stdin and stdout, so that real client libraries
 * (impacket, Samba's gensec, driven by smb2_auth_clients.py) can talk to
 * it without an SMB2 engine, and so that transcripts can be recorded as
 * test vectors (tests/vectors/smb2_auth/).
 *
 * usage: smb2_auth_tool STATE_DIR [CHALLENGE_HEX FILETIME]
 *   STATE_DIR holds the smbpasswd file. With CHALLENGE_HEX (16 hex
 *   digits) and FILETIME the server challenge and timestamp are fixed
 *   (vectors), else random as in the server.
 *
 * Input, one line per request:  NEGOTIATE  (print the NEGOTIATE response's
 * token) or the hex of a SESSION_SETUP security buffer ("-" = empty).
 * Output, one line each:
 *   TOKEN hex
 *   MORE hex
 *   DONE hex user uid gid anonymous session-key-hex|-
 *   ERR errno-name hex
 * The session key is printed so that tests can compare it with the
 * client's: this is a test tool, never to be pointed at real passwords.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "smb2/auth/auth.h"
#include "smb2/auth/users.h"

static int unhex(const char *s, uint8_t *out, size_t max, size_t *len)
{
	size_t n = strlen(s), i;
	unsigned int v;

	if (n % 2 || n / 2 > max)
		return -1;
	for (i = 0; i < n / 2; i++) {
		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return -1;
		out[i] = (uint8_t)v;
	}
	*len = n / 2;
	return 0;
}

static void hex(const uint8_t *p, size_t n)
{
	size_t i;

	if (!n)
		fputs("-", stdout);
	for (i = 0; i < n; i++)
		printf("%02x", p[i]);
}

static const char *err_name(int e)
{
	switch (e) {
	case EACCES:
		return "EACCES";
	case EINVAL:
		return "EINVAL";
	case EOPNOTSUPP:
		return "EOPNOTSUPP";
	case EPROTO:
		return "EPROTO";
	case ENOBUFS:
		return "ENOBUFS";
	default:
		return "EOTHER";
	}
}

int main(int argc, char **argv)
{
	static uint8_t in[1 << 17], out[SMB2_AUTH_TOKEN_MAX];
	static char line[1 << 18];
	uint8_t chal[8], key[SMB2_AUTH_KEY_LEN];
	struct smb2_auth_cfg cfg;
	struct smb2_users *db;
	struct smb2_auth *a;
	size_t inlen, outlen, n;
	char err[256];
	int ret;

	if (argc != 2 && argc != 4) {
		fprintf(stderr, "usage: %s STATE_DIR [CHALLENGE FILETIME]\n",
			argv[0]);
		return 2;
	}
	if (smb2_users_open(argv[1], &db, err, sizeof(err))) {
		fprintf(stderr, "smb2_auth_tool: %s\n", err);
		return 1;
	}
	smb2_auth_cfg_init(&cfg, db);
	/* fixed names, so that recorded CHALLENGEs do not depend on the host */
	snprintf(cfg.nb_computer, sizeof(cfg.nb_computer), "NASDTEST");
	snprintf(cfg.nb_domain, sizeof(cfg.nb_domain), "NASDTEST");
	snprintf(cfg.dns_computer, sizeof(cfg.dns_computer),
		 "nasdtest.example.org");
	snprintf(cfg.dns_domain, sizeof(cfg.dns_domain), "example.org");
	a = smb2_auth_new(&cfg);
	if (!a)
		return 1;
	if (argc == 4) {
		if (unhex(argv[2], chal, sizeof(chal), &n) || n != 8)
			return 2;
		smb2_auth_fix_challenge(a, chal, strtoull(argv[3], NULL, 10));
	}
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (!strcmp(line, "NEGOTIATE")) {
			if (smb2_auth_negotiate_token(out, sizeof(out),
						      &outlen))
				return 1;
			fputs("TOKEN ", stdout);
			hex(out, outlen);
			putchar('\n');
			fflush(stdout);
			continue;
		}
		inlen = 0;
		if (strcmp(line, "-") && unhex(line, in, sizeof(in), &inlen)) {
			fprintf(stderr, "smb2_auth_tool: bad hex\n");
			return 2;
		}
		ret = smb2_auth_step(a, in, inlen, out, sizeof(out), &outlen);
		if (ret == SMB2_AUTH_MORE) {
			fputs("MORE ", stdout);
			hex(out, outlen);
		} else if (ret == 0) {
			fputs("DONE ", stdout);
			hex(out, outlen);
			printf(" %s %u %u %d ",
			       smb2_auth_anonymous(a) ? "-" : smb2_auth_user(a),
			       (unsigned int)smb2_auth_uid(a),
			       (unsigned int)smb2_auth_gid(a),
			       smb2_auth_anonymous(a));
			if (smb2_auth_session_key(a, key) == 0)
				hex(key, sizeof(key));
			else
				fputs("-", stdout);
		} else {
			printf("ERR %s ", err_name(-ret));
			hex(out, outlen);
		}
		putchar('\n');
		fflush(stdout);
	}
	smb2_auth_free(a);
	smb2_users_close(db);
	return 0;
}
