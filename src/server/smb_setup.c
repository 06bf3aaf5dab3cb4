// SPDX-License-Identifier: MIT
/*
 * SMB start-up: the user database, the engine and its listeners (the
 * transport's SMB protocol table, smb2_transport_proto()).
 */
#include "server/smb_setup.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/addr.h"
#include "core/log.h"
#include "smb2/auth/users.h"
#include "smb2/smb2.h"
#include "transport/transport.h"

#define SMB_PORT 445

static struct smb2_users *users;

int smb_setup_start(struct smb2_config *cfg, const char **listens,
		    unsigned int n)
{
	static const char *dflt[] = { "127.0.0.1" };
	bool defaulted = !n;
	struct sockaddr_storage bound;
	socklen_t len;
	char err[256], s[96];
	unsigned int i;
	int ret;

	if (n == 1 && !strcmp(listens[0], "0")) {
		log_info("SMB is off (--smb-listen 0)");
		return 0;
	}
	if (!n) {
		listens = dflt;
		n = 1;
	}
	ret = smb2_users_open(cfg->state_dir, &users, err, sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "nasd: SMB users: %s\n", err);
		return ret;
	}
	if (!smb2_users_count(users))
		log_warn("no SMB users yet: add one with 'nasd user add NAME'");
	cfg->users = users;
	ret = smb2_init(cfg);
	if (ret < 0) {
		fprintf(stderr, "nasd: SMB: %s\n", strerror(-ret));
		return ret;
	}
	for (i = 0; i < n; i++) {
		ret = transport_listen(listens[i], SMB_PORT,
				       smb2_transport_proto(), &bound, &len);
		if (ret < 0 && defaulted) {
			/* Only the default: another SMB server (Samba, ksmbd)
			 * may hold 445, and NFS should not go down for it. */
			log_warn("SMB is off: cannot listen on %s:%d: %s "
				 "(--smb-listen to choose, 0 to silence)",
				 listens[i], SMB_PORT, strerror(-ret));
			return 0;
		}
		if (ret < 0) {
			fprintf(stderr, "nasd: cannot listen on %s (SMB): %s\n",
				listens[i], strerror(-ret));
			return ret;
		}
		addr_format(&bound, s, sizeof(s));
		ret = smb2_listen_bound(&bound);
		if (ret < 0) {
			fprintf(stderr, "nasd: SMB listener %s: %s\n", s,
				strerror(-ret));
			return ret;
		}
		log_info("SMB listening on %s", s);
	}
	return 0;
}

void smb_setup_reload(void)
{
	char err[256];

	if (!users)
		return;
	if (smb2_users_reload(users, err, sizeof(err)) < 0)
		log_err("SIGHUP: keeping the SMB users: %s", err);
	else
		log_info("SIGHUP: SMB users reloaded (%zu)",
			 smb2_users_count(users));
}
