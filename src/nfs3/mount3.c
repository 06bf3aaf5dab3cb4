// SPDX-License-Identifier: MIT
/*
 * MOUNT protocol version 3 (RFC 1813 Appendix I), program 100005: hands
 * out the root handle of an export (or of a directory inside one, as
 * knfsd's mountd does), and keeps the advisory mount list for DUMP.
 * Versions 1 and 2 share DUMP, UMNT, UMNTALL and EXPORT with version 3
 * (showmount asks version 1); their MNT returns an NFSv2 handle and is
 * not offered, since nasd does not serve NFSv2.
 */

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "nfs3/nfs3.h"
#include "nfs3/nfs3_internal.h"

#define MNTPATHLEN     1024
#define MNTNAMLEN      255
#define MOUNT_V1       1
#define MOUNT_V2       2
#define MOUNT_LIST_MAX 1024
/* DUMP and EXPORT replies stop listing when this full. */
#define MOUNT_REPLY_MAX (64 * 1024)

enum mountproc3 {
	MOUNTPROC3_NULL = 0,
	MOUNTPROC3_MNT = 1,
	MOUNTPROC3_DUMP = 2,
	MOUNTPROC3_UMNT = 3,
	MOUNTPROC3_UMNTALL = 4,
	MOUNTPROC3_EXPORT = 5,
	MOUNTPROC3_NPROCS = 6,
};

enum mountstat3 {
	MNT3_OK = 0,
	MNT3ERR_PERM = 1,
	MNT3ERR_NOENT = 2,
	MNT3ERR_IO = 5,
	MNT3ERR_ACCES = 13,
	MNT3ERR_NOTDIR = 20,
	MNT3ERR_INVAL = 22,
	MNT3ERR_NAMETOOLONG = 63,
	MNT3ERR_NOTSUPP = 10004,
	MNT3ERR_SERVERFAULT = 10006,
};

/* dirpath argument of MNT and UMNT (borrowed). */
struct mnt_dirpath {
	struct nfs3_str path;
};

struct mountres3 {
	uint32_t fhs_status;
	struct nfs_fh3 fhandle; /* MNT3_OK only */
};

/* mountbody / exportnode / groupnode as arena linked lists. */
struct groupnode {
	struct nfs3_str gr_name;
	struct groupnode *gr_next;
};

struct mountbody {
	struct nfs3_str ml_hostname;
	struct nfs3_str ml_directory;
	struct mountbody *ml_next;
};

struct exportnode {
	struct nfs3_str ex_dir;
	struct groupnode *ex_groups;
	struct exportnode *ex_next;
};

struct mount_list_res {
	struct mountbody *head;
};

struct exports_res {
	struct exportnode *head;
};

/* ---- the mount list (advisory, RFC 1813 Appendix I) ---- */

struct mount_rec {
	char host[INET6_ADDRSTRLEN];
	char *path;
	struct mount_rec *next;
};

static pthread_mutex_t mount_lock = PTHREAD_MUTEX_INITIALIZER;
static struct mount_rec *mount_list;
static unsigned int mount_count;

static void peer_host(const struct rpc_call *call, char *buf, size_t size)
{
	const struct sockaddr_in *sin = (const void *)call->req->peer;
	const struct sockaddr_in6 *sin6 = (const void *)call->req->peer;
	const char *p = NULL;

	if (call->req->peer->ss_family == AF_INET)
		p = inet_ntop(AF_INET, &sin->sin_addr, buf, (socklen_t)size);
	else if (call->req->peer->ss_family == AF_INET6)
		p = inet_ntop(AF_INET6, &sin6->sin6_addr, buf, (socklen_t)size);
	if (!p)
		(void)snprintf(buf, size, "unknown");
}

static void mount_list_add(const char *host, const char *path)
{
	struct mount_rec *m;

	pthread_mutex_lock(&mount_lock);
	for (m = mount_list; m; m = m->next)
		if (!strcmp(m->host, host) && !strcmp(m->path, path))
			goto out_unlock;
	if (mount_count >= MOUNT_LIST_MAX)
		goto out_unlock;
	m = calloc(1, sizeof(*m));
	if (!m)
		goto out_unlock;
	m->path = strdup(path);
	if (!m->path) {
		free(m);
		goto out_unlock;
	}
	/* Same size as peer_host()'s buffer: never cut. */
	(void)snprintf(m->host, sizeof(m->host), "%s", host);
	m->next = mount_list;
	mount_list = m;
	mount_count++;
out_unlock:
	pthread_mutex_unlock(&mount_lock);
}

/* Remove @host's entries for @path, or all of @host's when @path is NULL. */
static void mount_list_remove(const char *host, const char *path)
{
	struct mount_rec **pp, *m;

	pthread_mutex_lock(&mount_lock);
	pp = &mount_list;
	while ((m = *pp)) {
		if (!strcmp(m->host, host) &&
		    (!path || !strcmp(m->path, path))) {
			*pp = m->next;
			free(m->path);
			free(m);
			mount_count--;
			continue;
		}
		pp = &m->next;
	}
	pthread_mutex_unlock(&mount_lock);
}

/* ---- codecs ---- */

static bool mount_dec_dirpath(struct xdr_buf *x, void *args)
{
	struct mnt_dirpath *a = args;
	const uint8_t *p;
	uint32_t len;

	if (!xdr_dec_opaque_ref(x, &p, &len, MNTPATHLEN))
		return false;
	a->path.s = (const char *)p;
	a->path.len = len;
	return true;
}

static bool mount_enc_mountres3(struct xdr_buf *x, const void *res)
{
	const struct mountres3 *r = res;

	if (!xdr_enc_u32(x, r->fhs_status))
		return false;
	if (r->fhs_status != MNT3_OK)
		return true;
	/* fhandle3, then auth_flavors<>: AUTH_SYS only, as knfsd. */
	return nfs3_enc_nfs_fh3(x, &r->fhandle) && xdr_enc_u32(x, 1) &&
	       xdr_enc_u32(x, AUTH_SYS);
}

static bool mount_enc_str(struct xdr_buf *x, const struct nfs3_str *s)
{
	return xdr_enc_opaque(x, s->s, s->len);
}

static bool mount_enc_mountlist(struct xdr_buf *x, const void *res)
{
	const struct mount_list_res *r = res;
	const struct mountbody *m;

	for (m = r->head; m; m = m->ml_next)
		if (!xdr_enc_bool(x, true) ||
		    !mount_enc_str(x, &m->ml_hostname) ||
		    !mount_enc_str(x, &m->ml_directory))
			return false;
	return xdr_enc_bool(x, false);
}

static bool mount_enc_exports(struct xdr_buf *x, const void *res)
{
	const struct exports_res *r = res;
	const struct exportnode *e;
	const struct groupnode *g;

	for (e = r->head; e; e = e->ex_next) {
		if (!xdr_enc_bool(x, true) || !mount_enc_str(x, &e->ex_dir))
			return false;
		for (g = e->ex_groups; g; g = g->gr_next)
			if (!xdr_enc_bool(x, true) ||
			    !mount_enc_str(x, &g->gr_name))
				return false;
		if (!xdr_enc_bool(x, false))
			return false;
	}
	return xdr_enc_bool(x, false);
}

/* ---- MNT ---- */

/* The one errno→mountstat3 mapping (RFC 1813 Appendix I). */
static const uint32_t mountstat_of_errno[] = {
	[EPERM] = MNT3ERR_PERM,		[ENOENT] = MNT3ERR_NOENT,
	[ESTALE] = MNT3ERR_NOENT,	[EIO] = MNT3ERR_IO,
	[EACCES] = MNT3ERR_ACCES,	[EXDEV] = MNT3ERR_ACCES,
	[ENOTDIR] = MNT3ERR_NOTDIR,	[ELOOP] = MNT3ERR_NOTDIR,
	[EINVAL] = MNT3ERR_INVAL,	[ENAMETOOLONG] = MNT3ERR_NAMETOOLONG,
	[EOPNOTSUPP] = MNT3ERR_NOTSUPP, [ENOTSUPP] = MNT3ERR_NOTSUPP,
};

static uint32_t mount_status(int err)
{
	unsigned int e = err < 0 ? -(unsigned int)err : (unsigned int)err;

	if (!e)
		return MNT3_OK;
	if (e < sizeof(mountstat_of_errno) / sizeof(mountstat_of_errno[0]) &&
	    mountstat_of_errno[e])
		return mountstat_of_errno[e];
	return MNT3ERR_SERVERFAULT;
}

/*
 * Canonical form of a dirpath: absolute, no empty or "." components, no
 * trailing '/'. ".." is refused (a mount never climbs), as is a NUL.
 */
static int mount_path_normalize(const struct nfs3_str *in, char *out,
				size_t size)
{
	size_t i = 0, o = 0, start, clen;

	if (!in->len || in->s[0] != '/')
		return -ENOENT;
	while (i < in->len) {
		while (i < in->len && in->s[i] == '/')
			i++;
		start = i;
		while (i < in->len && in->s[i] != '/') {
			if (!in->s[i])
				return -EINVAL;
			i++;
		}
		clen = i - start;
		if (!clen || (clen == 1 && in->s[start] == '.'))
			continue;
		if (clen == 2 && in->s[start] == '.' && in->s[start + 1] == '.')
			return -EACCES;
		if (o + 1 + clen >= size)
			return -ENAMETOOLONG;
		out[o++] = '/';
		memcpy(out + o, in->s + start, clen);
		o += clen;
	}
	if (!o)
		out[o++] = '/';
	out[o] = '\0';
	return 0;
}

/*
 * The export holding @path: the exact one, or else the one whose path is
 * the longest prefix of @path on a component boundary. *@rest is the part
 * below the export root ("" for the root itself).
 */
static struct export *mount_find_export(struct export_table *t,
					const char *path, const char **rest)
{
	struct export *best = export_find_by_path(t, path, strlen(path));
	size_t best_len = 0, plen;
	uint32_t i;

	if (best) {
		*rest = "";
		return best;
	}
	for (i = 0; i < t->nexports; i++) {
		const char *ep = t->exports[i].path;

		plen = strlen(ep);
		if (plen == 1 && ep[0] == '/')
			plen = 0; /* "/" is a prefix of every path */
		else if (strncmp(path, ep, plen) != 0 || path[plen] != '/')
			continue;
		if (!best || plen > best_len) {
			best = &t->exports[i];
			best_len = plen;
		}
	}
	if (best)
		*rest = path + best_len + 1;
	return best;
}

/* Walk @rest ("a/b/c", canonical) from the export root, never following
 * a symlink (vfs_lookup does not). */
static int mount_walk(struct export *e, const char *rest, struct vfs_obj **out)
{
	struct vfs_obj *o, *next;
	const char *slash;
	size_t len;
	int err;

	err = vfs_obj_root(e->vex, &o);
	if (err)
		return err;
	while (*rest) {
		slash = strchr(rest, '/');
		len = slash ? (size_t)(slash - rest) : strlen(rest);
		err = vfs_lookup(o, rest, len, &next);
		vfs_obj_put(o);
		if (err)
			return err;
		o = next;
		rest += len + (slash ? 1 : 0);
	}
	*out = o;
	return 0;
}

static int mount_mnt(struct rpc_call *call, const struct nfs3_str *dirpath,
		     struct nfs_fh3 *fh, char *norm, size_t normsize)
{
	struct export_identity id;
	struct export_access acc;
	struct export_table *t;
	struct vfs_attr va;
	struct vfs_obj *o;
	struct export *e;
	const char *rest;
	int err;

	err = mount_path_normalize(dirpath, norm, normsize);
	if (err)
		return err;
	t = export_table_current();
	if (!t)
		return -ENOENT;
	e = mount_find_export(t, norm, &rest);
	if (!e || !e->vex) {
		err = -ENOENT;
		goto out_put_table;
	}
	nfs3_identity(call, &id);
	err = export_admit(e, rpc_call_peer(call), call->req->peer_privileged,
			   &id, &acc);
	/* A client refused by `secure` is just refused (MNT3ERR_ACCES). */
	if (err == -EPERM)
		err = -EACCES;
	if (err)
		goto out_put_table;
	err = mount_walk(e, rest, &o);
	if (err)
		goto out_put_table;
	err = vfs_getattr(o, &va);
	if (!err && va.type != VFS_DIR)
		err = -ENOTDIR;
	if (!err)
		err = nfs3_fh3_of(o, fh);
	vfs_obj_put(o);
out_put_table:
	export_table_put(t);
	return err;
}

/**
 * mount3_proc_mnt() - RFC 1813 Appendix I MOUNTPROC3_MNT: the handle of an
 * export root or of a directory inside an export, for an admitted client;
 * the mount is recorded for DUMP.
 */
static void mount3_proc_mnt(struct rpc_call *call, const void *args, void *res)
{
	const struct mnt_dirpath *a = args;
	struct mountres3 *r = res;
	char norm[MNTPATHLEN + 2];
	char host[INET6_ADDRSTRLEN];
	int err;

	err = mount_mnt(call, &a->path, &r->fhandle, norm, sizeof(norm));
	r->fhs_status = mount_status(err);
	peer_host(call, host, sizeof(host));
	if (err) {
		log_info("mount: %s refused %.*s (%d)", host,
			 (int)(a->path.len < 256 ? a->path.len : 256),
			 a->path.s, err);
		return;
	}
	mount_list_add(host, norm);
}

/**
 * mount3_proc_dump() - MOUNTPROC3_DUMP: the recorded mounts, copied into
 * the call arena (as many as fit MOUNT_REPLY_MAX).
 */
static void mount3_proc_dump(struct rpc_call *call, const void *args, void *res)
{
	struct mount_list_res *r = res;
	struct mountbody **tail = &r->head, *b;
	size_t used = 4, hl, pl;
	struct mount_rec *m;
	char *s;

	(void)args;
	pthread_mutex_lock(&mount_lock);
	for (m = mount_list; m; m = m->next) {
		hl = strlen(m->host);
		pl = strlen(m->path);
		if (pl > MNTPATHLEN)
			continue;
		used += 4 + 4 + hl + xdr_pad(hl) + 4 + pl + xdr_pad(pl);
		if (used > MOUNT_REPLY_MAX)
			break;
		b = rpc_call_alloc(call, sizeof(*b));
		s = rpc_call_alloc(call, hl + pl + 1);
		if (!b || !s)
			break;
		memcpy(s, m->host, hl);
		memcpy(s + hl, m->path, pl);
		b->ml_hostname.s = s;
		b->ml_hostname.len = (uint32_t)hl;
		b->ml_directory.s = s + hl;
		b->ml_directory.len = (uint32_t)pl;
		*tail = b;
		tail = &b->ml_next;
	}
	pthread_mutex_unlock(&mount_lock);
}

/** mount3_proc_umnt() - MOUNTPROC3_UMNT: forget this client's mount. */
static void mount3_proc_umnt(struct rpc_call *call, const void *args, void *res)
{
	const struct mnt_dirpath *a = args;
	char norm[MNTPATHLEN + 2];
	char host[INET6_ADDRSTRLEN];

	(void)res;
	if (mount_path_normalize(&a->path, norm, sizeof(norm)))
		return;
	peer_host(call, host, sizeof(host));
	mount_list_remove(host, norm);
}

/** mount3_proc_umntall() - MOUNTPROC3_UMNTALL: forget all of its mounts. */
static void mount3_proc_umntall(struct rpc_call *call, const void *args,
				void *res)
{
	char host[INET6_ADDRSTRLEN];

	(void)args;
	(void)res;
	peer_host(call, host, sizeof(host));
	mount_list_remove(host, NULL);
}

static struct nfs3_str arena_str(struct rpc_call *call, const char *s)
{
	struct nfs3_str out = {NULL, 0};
	size_t len = strlen(s);
	char *p;

	if (len > MNTPATHLEN)
		return out;
	p = rpc_call_alloc(call, len + 1);
	if (p) {
		memcpy(p, s, len + 1);
		out.s = p;
		out.len = (uint32_t)len;
	}
	return out;
}

/**
 * mount3_proc_export() - MOUNTPROC3_EXPORT: every export with its client
 * specs as groups, copied into the call arena (as many as fit).
 */
static void mount3_proc_export(struct rpc_call *call, const void *args,
			       void *res)
{
	struct exports_res *r = res;
	struct exportnode **tail = &r->head, *n;
	struct groupnode **gtail, *g;
	struct export_table *t;
	size_t used = 4, need;
	uint32_t i, j;

	(void)args;
	t = export_table_current();
	if (!t)
		return;
	for (i = 0; i < t->nexports; i++) {
		const struct export *e = &t->exports[i];

		need = 4 + 4 + strlen(e->path) + 3 + 4;
		for (j = 0; j < e->nclients; j++)
			need += 4 + 4 +
				strnlen(e->clients[j].spec,
					sizeof(e->clients[j].spec)) +
				3;
		if (used + need > MOUNT_REPLY_MAX)
			break;
		n = rpc_call_alloc(call, sizeof(*n));
		if (!n)
			break;
		n->ex_dir = arena_str(call, e->path);
		if (!n->ex_dir.s)
			break;
		gtail = &n->ex_groups;
		for (j = 0; j < e->nclients; j++) {
			char spec[sizeof(e->clients[j].spec) + 1];

			g = rpc_call_alloc(call, sizeof(*g));
			if (!g)
				break;
			memcpy(spec, e->clients[j].spec, sizeof(spec) - 1);
			spec[sizeof(spec) - 1] = '\0';
			g->gr_name = arena_str(call, spec);
			*gtail = g;
			gtail = &g->gr_next;
		}
		used += need;
		*tail = n;
		tail = &n->ex_next;
	}
	export_table_put(t);
}

/* ---- tables ---- */

#define MOUNT_NULL_PROC                                                        \
	{                                                                      \
		.name = "NULL", .max_reply = 4,                                \
	}
#define MOUNT_DUMP_PROC                                                        \
	{                                                                      \
		.name = "DUMP", .res_size = sizeof(struct mount_list_res),     \
		.handle = mount3_proc_dump, .encode = mount_enc_mountlist,     \
		.max_reply = MOUNT_REPLY_MAX,                                  \
	}
#define MOUNT_UMNT_PROC                                                        \
	{                                                                      \
		.name = "UMNT", .args_size = sizeof(struct mnt_dirpath),       \
		.decode = mount_dec_dirpath, .handle = mount3_proc_umnt,       \
		.max_reply = 4,                                                \
	}
#define MOUNT_UMNTALL_PROC                                                     \
	{                                                                      \
		.name = "UMNTALL", .handle = mount3_proc_umntall,              \
		.max_reply = 4,                                                \
	}
#define MOUNT_EXPORT_PROC                                                      \
	{                                                                      \
		.name = "EXPORT", .res_size = sizeof(struct exports_res),      \
		.handle = mount3_proc_export, .encode = mount_enc_exports,     \
		.max_reply = MOUNT_REPLY_MAX,                                  \
	}

static const struct rpc_proc mount3_procs[MOUNTPROC3_NPROCS] = {
	[MOUNTPROC3_NULL] = MOUNT_NULL_PROC,
	[MOUNTPROC3_MNT] =
		{
			.name = "MNT",
			.args_size = sizeof(struct mnt_dirpath),
			.res_size = sizeof(struct mountres3),
			.decode = mount_dec_dirpath,
			.handle = mount3_proc_mnt,
			.encode = mount_enc_mountres3,
			.max_reply = 4 + 4 + NFS3_FHSIZE + 4 + 4,
		},
	[MOUNTPROC3_DUMP] = MOUNT_DUMP_PROC,
	[MOUNTPROC3_UMNT] = MOUNT_UMNT_PROC,
	[MOUNTPROC3_UMNTALL] = MOUNT_UMNTALL_PROC,
	[MOUNTPROC3_EXPORT] = MOUNT_EXPORT_PROC,
};

/* Versions 1 and 2: the same procedures less MNT (an NFSv2 fhstatus),
 * which stays a hole (PROC_UNAVAIL). */
static const struct rpc_proc mount1_procs[MOUNTPROC3_NPROCS] = {
	[MOUNTPROC3_NULL] = MOUNT_NULL_PROC,
	[MOUNTPROC3_DUMP] = MOUNT_DUMP_PROC,
	[MOUNTPROC3_UMNT] = MOUNT_UMNT_PROC,
	[MOUNTPROC3_UMNTALL] = MOUNT_UMNTALL_PROC,
	[MOUNTPROC3_EXPORT] = MOUNT_EXPORT_PROC,
};

static const struct rpc_version mount3_versions[] = {
	{
		.vers = MOUNT_V1,
		.nprocs = MOUNTPROC3_NPROCS,
		.procs = mount1_procs,
	},
	{
		.vers = MOUNT_V2,
		.nprocs = MOUNTPROC3_NPROCS,
		.procs = mount1_procs,
	},
	{
		.vers = MOUNT_V3,
		.nprocs = MOUNTPROC3_NPROCS,
		.procs = mount3_procs,
	},
};

const struct rpc_program mount3_program = {
	.prog = MOUNT_PROGRAM,
	.name = "mountd",
	.nversions = sizeof(mount3_versions) / sizeof(mount3_versions[0]),
	.versions = mount3_versions,
};
