/* SPDX-License-Identifier: MIT */
#ifndef NASD_EXPORT_EXPORT_H
#define NASD_EXPORT_EXPORT_H

/*
 * Export table (exports(5) form), client matching, access options and
 * credential mapping (squash). Protocol-neutral: NFSv3, NFSv4 and SMB use
 * the same table.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "core/err.h"
#include "vfs/vfs.h"

enum export_squash {
	EXPORT_ROOT_SQUASH = 0, /* default */
	EXPORT_NO_ROOT_SQUASH,
	EXPORT_ALL_SQUASH,
};

/* Client options: each client spec has its own. */
struct export_opts {
	bool rw;                  /* default ro, as exports(5) */
	enum export_squash squash;
	uint32_t anonuid;         /* default 65534 */
	uint32_t anongid;         /* default 65534 */
	bool secure;              /* default insecure */
};

/*
 * Export-wide options (DESIGN.md §5): one value for the whole export,
 * however many client specs it has. They may be written in the path's
 * option list or in any client spec's; the parser refuses two different
 * values for one export.
 */
/* Longest SMB share name (MS-SRVS: 80 characters). */
#define EXPORT_SHARE_NAME_MAX 80

struct export_wide {
	int64_t fsid;             /* fsid=; -1: not given (id = path hash) */
	enum vfs_io io;           /* io=, default auto (DESIGN.md §4) */
	/* NFSv4: where the export appears in the pseudo-fs ("" = its own
	 * path), from the pseudo=/path option, canonical */
	char pseudo[128];
	/* SMB: the share name this export is published as (smb=NAME; ""
	 * = not shared over SMB). Compared case-insensitively. */
	char smb[EXPORT_SHARE_NAME_MAX + 1];
	/* SMB: names match exactly (smb_case=sensitive), not ignoring case
	 * as Windows and Samba do (smb_case=insensitive, the default). */
	bool smb_case_sensitive;
	/* SMB: anonymous (guest) sessions may connect, as the export's
	 * anonymous uid/gid (smb_guest=yes; default no). */
	bool smb_guest;
	/* SMB: only encrypted requests are served (smb_encrypt=required;
	 * default auto: a client encrypts if it wants to). */
	bool smb_encrypt;
	/* NFSv4: no delegations are granted (deleg=no; default yes). */
	bool no_deleg;
	/* NFSv4.2: no extended attributes (RFC 8276) are served (xattr=no;
	 * default yes). */
	bool no_xattr;
	/* CephFS: served from directory ceph_dir of filesystem ceph_fs
	 * ("" = the default) by the CephFS backend (ceph=FS:/DIR), with
	 * the cluster configuration ceph_conf and cephx name ceph_id (""
	 * = libcephfs's defaults). */
	struct {
		bool ceph;
		char ceph_fs[108];
		char ceph_dir[256];
	} ceph_where;
	char ceph_conf[256];
	char ceph_id[64];
};

/* One client spec: "*", a host address, or an address/prefix. */
struct export_client {
	char spec[64];            /* as written, for MOUNT EXPORT */
	int family;               /* AF_UNSPEC for "*" */
	uint8_t addr[16];
	uint32_t prefix;          /* bits */
	struct export_opts opts;
};

struct export {
	char *path;               /* canonical absolute path */
	uint32_t id;              /* fsid= or a stable hash of the path */
	struct export_wide wide;
	uint32_t nclients;
	struct export_client *clients; /* first match wins */
	struct vfs_export *vex;   /* opened by export_table_open() */
};

struct export_table {
	uint32_t nexports;
	struct export *exports;
	int refs;                 /* see export_table_get/put */
};

/*
 * export_parse_file() - parse an exports(5) file into a new table (*@out,
 * the caller's). Export-wide options end up in struct export_wide, client
 * options in each client spec. On error returns -EINVAL and writes
 * "file:line: reason" into @err (e.g. two client specs of one export
 * with different io=); nothing is half-built.
 */
int export_parse_file(const char *file, struct export_table **out,
		      char *err, size_t errlen);

/*
 * export_parse_spec() - add "PATH[:OPTIONS]" (command line) to @t, for all
 * clients ("*"); OPTIONS may hold client and export-wide options. Same
 * errors as the file parser, as "--export: reason".
 */
int export_parse_spec(struct export_table *t, const char *spec, char *err,
		      size_t errlen);

struct export_table *export_table_new(void);

/*
 * export_table_open() - open every export's vfs root (reusing the live
 * table's for the same path and id) and then give each its io=; -errno
 * on failure, with nothing changed in the live table's vfs exports.
 */
int export_table_open(struct export_table *t, char *err, size_t errlen);
void export_table_free(struct export_table *t);

/*
 * The live table: export_table_current() returns a reference that the
 * caller gives back with export_table_put(); export_table_install() swaps
 * in a new table (SIGHUP) while requests holding the old one finish.
 */
struct export_table *export_table_current(void);
void export_table_put(struct export_table *t);
void export_table_install(struct export_table *t);

struct export *export_find_by_id(struct export_table *t, uint32_t id);

/*
 * export_find_by_share() - the export published as SMB share @name (@len
 * bytes of UTF-8; ASCII case ignored, as Windows share names), or NULL.
 */
struct export *export_find_by_share(struct export_table *t, const char *name,
				    size_t len);
struct export *export_find_by_path(struct export_table *t, const char *path,
				   size_t len);

/*
 * export_match_client() - the options that apply to @addr for @e, or NULL
 * when the client may not use the export.
 */
const struct export_opts *export_match_client(const struct export *e,
					      const struct sockaddr *addr);

/*
 * Who is asking, before any squash: the AUTH_SYS credential of an RPC
 * call (AUTH_NONE is anonymous), or the uid/gid an SMB user maps to.
 * @groups is borrowed for the call.
 */
struct export_identity {
	bool anonymous;
	uint32_t uid;
	uint32_t gid;
	uint32_t ngroups;
	const uint32_t *groups;
};

/* What admission grants: this client's options, the squashed identity. */
struct export_access {
	const struct export_opts *opts;
	struct vfs_cred cred;
};

/*
 * export_admit() - the one admission of every protocol (MOUNT, NFSv3,
 * NFSv4, SMB tree connect): may the client at @peer (@privileged: its
 * source port is below 1024) use export @e as @id? The first client spec
 * that matches gives the options (exports(5) order); the `secure` option
 * refuses unprivileged ports; the identity is squashed (root_squash,
 * all_squash, anonuid/anongid) and applied to the calling thread as its
 * filesystem credentials. Returns 0 with *@out filled; -EACCES when no
 * spec admits the client, -EPERM for `secure` from an unprivileged port,
 * -ESERVERFAULT when the credentials could not be applied (fail closed:
 * the caller must run nothing for this request). On error out->opts is
 * NULL.
 */
int export_admit(const struct export *e, const struct sockaddr *peer,
		 bool privileged, const struct export_identity *id,
		 struct export_access *out);

/*
 * export_cred_apply() - make @cred (from export_admit(), or the server's
 * own identity, all zero) the calling thread's filesystem credentials
 * again: another thread continues a request, or a request moves between
 * exports. Returns 0 or -ESERVERFAULT (fail closed, as above).
 */
int export_cred_apply(const struct vfs_cred *cred);

/*
 * export_map_cred() - AUTH_SYS/AUTH_NONE identity after squashing.
 * @is_none: AUTH_NONE (always anonymous).
 */
void export_map_cred(const struct export_opts *o, bool is_none, uint32_t uid,
		     uint32_t gid, uint32_t ngids, const uint32_t *gids,
		     struct vfs_cred *out);

#endif
