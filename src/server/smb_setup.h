/* SPDX-License-Identifier: MIT */
#ifndef NASD_SERVER_SMB_SETUP_H
#define NASD_SERVER_SMB_SETUP_H

/* The SMB2/3 server's start-up and reload (smb_setup.c). */

struct smb2_config;

/*
 * smb_setup_start() - open the user database (STATE_DIR/smbpasswd),
 * start the SMB engine with @cfg and listen on each of @listens (@n of
 * them; none: 127.0.0.1:445; one "0": SMB off). Messages for the
 * operator go to stderr. Returns 0 or -errno.
 */
int smb_setup_start(struct smb2_config *cfg, const char **listens,
		    unsigned int n);

/* smb_setup_reload() - SIGHUP: re-read the user database. */
void smb_setup_reload(void);

#endif
