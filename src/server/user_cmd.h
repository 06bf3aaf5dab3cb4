/* SPDX-License-Identifier: MIT */
#ifndef NASD_SERVER_USER_CMD_H
#define NASD_SERVER_USER_CMD_H

/*
 * user_cmd_main() - `nasd user add|del|list`: keep STATE_DIR/smbpasswd,
 * the SMB user database (smb2/auth/users.h). @argv[0] is "user". Returns
 * the process exit status: 0, 1 (failed), 2 (usage).
 */
int user_cmd_main(int argc, char **argv);

#endif
