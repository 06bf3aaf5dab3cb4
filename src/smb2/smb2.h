/* SPDX-License-Identifier: MIT */
#ifndef NASD_SMB2_SMB2_H
#define NASD_SMB2_SMB2_H

/*
 * The SMB2/3 server (MS-SMB2), serving the exports published with
 * smb=NAME as shares, on the same transport, buffers, admission, vfs and
 * file state as NFS. This header is what the server wires: configuration
 * and the protocol table of SMB listeners.
 */

#include <stdbool.h>
#include <stdint.h>

struct sockaddr_storage;
struct transport_proto;
struct smb2_users;

/* --smb-encrypt: whether clients may, or must, encrypt (MS-SMB2 §3.1.4.3). */
enum smb2_encrypt_mode {
	SMB2_ENCRYPT_AUTO = 0,       /* offered; clients that ask encrypt */
	SMB2_ENCRYPT_OFF,            /* no cipher is negotiated */
	SMB2_ENCRYPT_REQUIRED,       /* every session encrypts, or none */
};

struct smb2_config {
	const char *state_dir;       /* server GUID file */
	struct smb2_users *users;    /* the user database (auth/users.h) */
	bool signing_required;       /* default true (Windows 11 24H2 too) */
	bool allow_smb202;           /* offer 2.0.2 (off by default) */
	enum smb2_encrypt_mode encrypt;
	uint32_t max_credits;        /* 0: SMB2_MAX_CREDITS */
	const char *netbios_name;    /* NULL: from the host name */
	const char *domain;          /* NULL: the NetBIOS name */
};

/*
 * smb2_init() - keep @cfg (its strings must outlive the server), load or
 * create the server GUID (STATE_DIR/smb2_guid, 16 random bytes, 0600).
 * Returns 0 or -errno.
 */
int smb2_init(const struct smb2_config *cfg);

/*
 * smb2_shutdown() - after transport_run() returned: the durable opens
 * that their connections' ends kept are closed (no handle survives a
 * restart).
 */
void smb2_shutdown(void);

/*
 * smb2_transport_proto() - the protocol table of an SMB listener (direct
 * TCP, MS-SMB2 §2.1), for transport_listen(). Valid after smb2_init().
 */
const struct transport_proto *smb2_transport_proto(void);

/*
 * smb2_listen_bound() - tell the engine an SMB listener is bound to @ss
 * (copied; the address transport_listen() reports), so that
 * FSCTL_QUERY_NETWORK_INTERFACE_INFO names only addresses a listener
 * accepts. Call for every SMB listener, before transport_run().
 * Returns 0, or -ENOSPC past TRANSPORT_MAX_LISTENERS.
 */
int smb2_listen_bound(const struct sockaddr_storage *ss);

#endif
