// SPDX-License-Identifier: MIT
/*
 * nt_raw: synchronous wrappers over libnfs's raw RPC API for the integration
 * tests. See nt_raw.h for the ownership rules.
 */
#include "nt_raw.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long long nt_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int nt_timeout_ms(void)
{
	const char *s = getenv("NT_TIMEOUT_MS");

	if (s && atoi(s) > 0)
		return atoi(s);
	return 30000;
}

/**
 * nt_wait() - run @rpc's event loop until @res is completed.
 *
 * Return: 0 if the call completed with RPC_STATUS_SUCCESS, -1 otherwise
 * (res->error says why).
 */
int nt_wait(struct rpc_context *rpc, struct nt_res *res)
{
	long long deadline = nt_now_ms() + nt_timeout_ms();

	while (!res->done) {
		struct pollfd pfd = {
			.fd = rpc_get_fd(rpc),
			.events = (short)rpc_which_events(rpc),
		};
		int n;

		if (pfd.fd < 0) {
			snprintf(res->error, sizeof(res->error),
				 "no socket: %s", rpc_get_error(rpc));
			return -1;
		}
		n = poll(&pfd, 1, 100);
		if (n < 0 && errno != EINTR) {
			snprintf(res->error, sizeof(res->error), "poll: %s",
				 strerror(errno));
			return -1;
		}
		if (n <= 0)
			pfd.revents = 0;
		if (rpc_service(rpc, pfd.revents) < 0) {
			if (res->done)
				break;
			snprintf(res->error, sizeof(res->error),
				 "rpc_service failed: %s", rpc_get_error(rpc));
			return -1;
		}
		if (!res->done && nt_now_ms() > deadline) {
			snprintf(res->error, sizeof(res->error),
				 "timed out after %d ms", nt_timeout_ms());
			return -1;
		}
	}
	return res->rpc_status == RPC_STATUS_SUCCESS ? 0 : -1;
}

static void nt_cb_common(struct nt_res *res, int status, void *data)
{
	res->done = true;
	res->rpc_status = status;
	if (status == RPC_STATUS_ERROR && data)
		snprintf(res->error, sizeof(res->error), "rpc error: %s",
			 (const char *)data);
	else if (status == RPC_STATUS_TIMEOUT)
		snprintf(res->error, sizeof(res->error), "rpc timeout");
	else if (status == RPC_STATUS_CANCEL)
		snprintf(res->error, sizeof(res->error), "rpc cancelled");
}

static void nt_connect_cb(struct rpc_context *rpc, int status, void *data,
			  void *priv)
{
	nt_cb_common(priv, status, data);
}

/**
 * nt_connect() - connect @rpc to @program/@version at @host:@port (TCP).
 *
 * Return: 0 on success, -1 on failure (message on stderr).
 */
int nt_connect(struct rpc_context *rpc, const char *host, int port,
	       int program, int version)
{
	struct nt_res res;

	memset(&res, 0, sizeof(res));
	if (rpc_connect_port_async(rpc, host, port, program, version,
				   nt_connect_cb, &res) != 0) {
		fprintf(stderr, "connect %s:%d: %s\n", host, port,
			rpc_get_error(rpc));
		return -1;
	}
	if (nt_wait(rpc, &res) != 0) {
		fprintf(stderr, "connect %s:%d: %s\n", host, port, res.error);
		return -1;
	}
	return 0;
}

/**
 * nt_rpc_new() - a new RPC context connected to @program/@version.
 * @uid: AUTH_SYS uid to send, or -1 for libnfs's default credential.
 *
 * Return: the context (caller destroys it with rpc_destroy_context()), or
 * NULL on failure.
 */
struct rpc_context *nt_rpc_new(const char *host, int port, int program,
			       int version, int uid, int gid)
{
	struct rpc_context *rpc = rpc_init_context();

	if (!rpc)
		return NULL;
	if (uid >= 0)
		rpc_set_auth(rpc, authunix_create("nasd-test", (uint32_t)uid,
						  (uint32_t)gid, 0, NULL));
	if (nt_connect(rpc, host, port, program, version) != 0) {
		rpc_destroy_context(rpc);
		return NULL;
	}
	return rpc;
}

/**
 * nt_res_clear() - free what @res owns and zero it for the next call.
 */
void nt_res_clear(struct nt_res *res)
{
	unsigned int i;

	free(res->data);
	for (i = 0; i < res->nnames; i++)
		free(res->names[i]);
	memset(res, 0, sizeof(*res));
}

static void nt_res_reset(struct nt_res *res)
{
	nt_entry_fn fn = res->on_entry;
	void *arg = res->entry_arg;

	nt_res_clear(res);
	res->on_entry = fn;
	res->entry_arg = arg;
	res->status = -1;
}

/**
 * nt_fh3_set() - point the wire handle @out at the bytes of @fh (borrowed).
 */
void nt_fh3_set(struct nfs_fh3 *out, const struct nt_fh *fh)
{
	out->data.data_len = fh->len;
	out->data.data_val = (char *)fh->data;
}

static void nt_copy_fh(struct nt_res *res, const struct nfs_fh3 *fh)
{
	uint32_t len = fh->data.data_len;

	if (len > NT_FH_MAX)
		len = NT_FH_MAX;
	res->has_fh = true;
	res->fh.len = len;
	memcpy(res->fh.data, fh->data.data_val, len);
}

static void nt_copy_post_op_fh(struct nt_res *res, const post_op_fh3 *fh)
{
	if (fh->handle_follows)
		nt_copy_fh(res, &fh->post_op_fh3_u.handle);
}

static void nt_copy_attr(struct nt_res *res, const post_op_attr *pa)
{
	if (pa->attributes_follow) {
		res->has_attr = true;
		res->attr = pa->post_op_attr_u.attributes;
	}
}

static void nt_copy_wcc(struct nt_res *res, const wcc_data *wcc)
{
	if (wcc->before.attributes_follow) {
		res->has_wcc_before = true;
		res->wcc_before = wcc->before.pre_op_attr_u.attributes;
	}
	if (wcc->after.attributes_follow) {
		res->has_wcc_after = true;
		res->wcc_after = wcc->after.post_op_attr_u.attributes;
	}
}

static void nt_copy_bytes(struct nt_res *res, const char *p, uint32_t len)
{
	res->data = malloc(len + 1u);
	if (!res->data) {
		res->data_len = 0;
		return;
	}
	memcpy(res->data, p, len);
	res->data[len] = '\0';
	res->data_len = len;
}

/**
 * nt_nfsstat_name() - the RFC 1813 spelling of an nfsstat3 value.
 */
const char *nt_nfsstat_name(int status)
{
	switch (status) {
	case NFS3_OK: return "NFS3_OK";
	case NFS3ERR_PERM: return "NFS3ERR_PERM";
	case NFS3ERR_NOENT: return "NFS3ERR_NOENT";
	case NFS3ERR_IO: return "NFS3ERR_IO";
	case NFS3ERR_NXIO: return "NFS3ERR_NXIO";
	case NFS3ERR_ACCES: return "NFS3ERR_ACCES";
	case NFS3ERR_EXIST: return "NFS3ERR_EXIST";
	case NFS3ERR_XDEV: return "NFS3ERR_XDEV";
	case NFS3ERR_NODEV: return "NFS3ERR_NODEV";
	case NFS3ERR_NOTDIR: return "NFS3ERR_NOTDIR";
	case NFS3ERR_ISDIR: return "NFS3ERR_ISDIR";
	case NFS3ERR_INVAL: return "NFS3ERR_INVAL";
	case NFS3ERR_FBIG: return "NFS3ERR_FBIG";
	case NFS3ERR_NOSPC: return "NFS3ERR_NOSPC";
	case NFS3ERR_ROFS: return "NFS3ERR_ROFS";
	case NFS3ERR_MLINK: return "NFS3ERR_MLINK";
	case NFS3ERR_NAMETOOLONG: return "NFS3ERR_NAMETOOLONG";
	case NFS3ERR_NOTEMPTY: return "NFS3ERR_NOTEMPTY";
	case NFS3ERR_DQUOT: return "NFS3ERR_DQUOT";
	case NFS3ERR_STALE: return "NFS3ERR_STALE";
	case NFS3ERR_REMOTE: return "NFS3ERR_REMOTE";
	case NFS3ERR_BADHANDLE: return "NFS3ERR_BADHANDLE";
	case NFS3ERR_NOT_SYNC: return "NFS3ERR_NOT_SYNC";
	case NFS3ERR_BAD_COOKIE: return "NFS3ERR_BAD_COOKIE";
	case NFS3ERR_NOTSUPP: return "NFS3ERR_NOTSUPP";
	case NFS3ERR_TOOSMALL: return "NFS3ERR_TOOSMALL";
	case NFS3ERR_SERVERFAULT: return "NFS3ERR_SERVERFAULT";
	case NFS3ERR_BADTYPE: return "NFS3ERR_BADTYPE";
	case NFS3ERR_JUKEBOX: return "NFS3ERR_JUKEBOX";
	default: return "NFS3ERR_(unknown)";
	}
}

/**
 * nt_mntstat_name() - the RFC 1813 spelling of a mountstat3 value.
 */
const char *nt_mntstat_name(int status)
{
	switch (status) {
	case MNT3_OK: return "MNT3_OK";
	case MNT3ERR_PERM: return "MNT3ERR_PERM";
	case MNT3ERR_NOENT: return "MNT3ERR_NOENT";
	case MNT3ERR_IO: return "MNT3ERR_IO";
	case MNT3ERR_ACCES: return "MNT3ERR_ACCES";
	case MNT3ERR_NOTDIR: return "MNT3ERR_NOTDIR";
	case MNT3ERR_INVAL: return "MNT3ERR_INVAL";
	case MNT3ERR_NAMETOOLONG: return "MNT3ERR_NAMETOOLONG";
	case MNT3ERR_NOTSUPP: return "MNT3ERR_NOTSUPP";
	case MNT3ERR_SERVERFAULT: return "MNT3ERR_SERVERFAULT";
	default: return "MNT3ERR_(unknown)";
	}
}

/* ---- callbacks: copy what the tests need before libnfs frees the reply */

static void nt_void_cb(struct rpc_context *rpc, int status, void *data,
		       void *priv)
{
	struct nt_res *res = priv;

	nt_cb_common(res, status, data);
	if (status == RPC_STATUS_SUCCESS)
		res->status = 0;
}

static void nt_mnt_cb(struct rpc_context *rpc, int status, void *data,
		      void *priv)
{
	struct nt_res *res = priv;
	mountres3 *r = data;
	unsigned int i;

	nt_cb_common(res, status, data);
	if (status != RPC_STATUS_SUCCESS)
		return;
	res->status = r->fhs_status;
	if (r->fhs_status != MNT3_OK)
		return;
	res->has_fh = true;
	res->fh.len = r->mountres3_u.mountinfo.fhandle.fhandle3_len;
	if (res->fh.len > NT_FH_MAX)
		res->fh.len = NT_FH_MAX;
	memcpy(res->fh.data, r->mountres3_u.mountinfo.fhandle.fhandle3_val,
	       res->fh.len);
	for (i = 0; i < r->mountres3_u.mountinfo.auth_flavors.auth_flavors_len
		    && i < 8; i++)
		res->flavors[i] =
			r->mountres3_u.mountinfo.auth_flavors.auth_flavors_val[i];
	res->nflavors = i;
}

static void nt_add_name(struct nt_res *res, const char *s)
{
	res->nnames_total++;
	if (res->nnames < NT_NAMES_MAX && s)
		res->names[res->nnames++] = strdup(s);
}

static void nt_dump_cb(struct rpc_context *rpc, int status, void *data,
		       void *priv)
{
	struct nt_res *res = priv;
	struct mountbody node;
	mountlist ml = NULL;

	nt_cb_common(res, status, data);
	if (status != RPC_STATUS_SUCCESS)
		return;
	res->status = 0;
	/* libnfs lays decoded list nodes out at 4-byte alignment: copy each
	 * node out instead of dereferencing it (UBSan: misaligned access). */
	if (data)
		memcpy(&ml, data, sizeof(ml));
	for (; ml; ml = node.ml_next) {
		memcpy(&node, ml, sizeof(node));
		nt_add_name(res, node.ml_directory);
	}
}

static void nt_export_cb(struct rpc_context *rpc, int status, void *data,
			 void *priv)
{
	struct nt_res *res = priv;
	struct exportnode node;
	exports ex = NULL;

	nt_cb_common(res, status, data);
	if (status != RPC_STATUS_SUCCESS)
		return;
	res->status = 0;
	if (data)
		memcpy(&ex, data, sizeof(ex));
	for (; ex; ex = node.ex_next) {
		memcpy(&node, ex, sizeof(node));
		nt_add_name(res, node.ex_dir);
	}
}

static void nt_getattr_cb(struct rpc_context *rpc, int status, void *data,
			  void *priv)
{
	struct nt_res *res = priv;
	GETATTR3res *r = data;

	nt_cb_common(res, status, data);
	if (status != RPC_STATUS_SUCCESS)
		return;
	res->status = r->status;
	if (r->status == NFS3_OK) {
		res->has_attr = true;
		res->attr = r->GETATTR3res_u.resok.obj_attributes;
	}
}

static void nt_setattr_cb(struct rpc_context *rpc, int status, void *data,
			  void *priv)
{
	struct nt_res *res = priv;
	SETATTR3res *r = data;

	nt_cb_common(res, status, data);
	if (status != RPC_STATUS_SUCCESS)
		return;
	res->status = r->status;
	nt_copy_wcc(res, r->status == NFS3_OK ?
			 &r->SETATTR3res_u.resok.obj_wcc :
			 &r->SETATTR3res_u.resfail.obj_wcc);
}

static void nt_lookup_cb(struct rpc_context *rpc, int status, void *data,
			 void *priv)
{
	struct nt_res *res = priv;
	LOOKUP3res *r = data;

	nt_cb_common(res, status, data);
	if (status != RPC_STATUS_SUCCESS)
		return;
	res->status = r->status;
	if (r->status == NFS3_OK) {
		nt_copy_fh(res, &r->LOOKUP3res_u.resok.object);
		nt_copy_attr(res, &r->LOOKUP3res_u.resok.obj_attributes);
	}
}

static void nt_access_cb(struct rpc_context *rpc, int status, void *data,
			 void *priv)
{
	struct nt_res *res = priv;
	ACCESS3res *r = data;

	nt_cb_common(res, status, data);
	if (status != RPC_STATUS_SUCCESS)
		return;
	res->status = r->status;
	if (r->status == NFS3_OK) {
		res->access = r->ACCESS3res_u.resok.access;
		nt_copy_attr(res, &r->ACCESS3res_u.resok.obj_attributes);
	}
}

static void nt_readlink_cb(struct rpc_context *rpc, int status, void *data,
			   void *priv)
{
	struct nt_res *res = priv;
	READLINK3res *r = data;

	nt_cb_common(res, status, data);
	if (status != RPC_STATUS_SUCCESS)
		return;
	res->status = r->status;
	if (r->status == NFS3_OK && r->READLINK3res_u.resok.data)
		nt_copy_bytes(res, r->READLINK3res_u.resok.data,
			      (uint32_t)strlen(r->READLINK3res_u.resok.data));
}

static void nt_read_cb(struct rpc_context *rpc, int status, void *data,
		       void *priv)
{
	struct nt_res *res = priv;
	READ3res *r = data;

	nt_cb_common(res, status, data);
	if (status != RPC_STATUS_SUCCESS)
		return;
	res->status = r->status;
	if (r->status != NFS3_OK)
		return;
	res->count = r->READ3res_u.resok.count;
	res->eof = r->READ3res_u.resok.eof;
	nt_copy_attr(res, &r->READ3res_u.resok.file_attributes);
	nt_copy_bytes(res, r->READ3res_u.resok.data.data_val,
		      r->READ3res_u.resok.data.data_len);
}

static void nt_write_cb(struct rpc_context *rpc, int status, void *data,
			void *priv)
{
	struct nt_res *res = priv;
	WRITE3res *r = data;

	nt_cb_common(res, status, data);
	if (status != RPC_STATUS_SUCCESS)
		return;
	res->status = r->status;
	if (r->status != NFS3_OK) {
		nt_copy_wcc(res, &r->WRITE3res_u.resfail.file_wcc);
		return;
	}
	res->count = r->WRITE3res_u.resok.count;
	res->committed = r->WRITE3res_u.resok.committed;
	memcpy(res->verf, r->WRITE3res_u.resok.verf, 8);
	nt_copy_wcc(res, &r->WRITE3res_u.resok.file_wcc);
}

static void nt_create_cb(struct rpc_context *rpc, int status, void *data,
			 void *priv)
{
	struct nt_res *res = priv;
	CREATE3res *r = data;

	nt_cb_common(res, status, data);
	if (status != RPC_STATUS_SUCCESS)
		return;
	res->status = r->status;
	if (r->status == NFS3_OK) {
		nt_copy_post_op_fh(res, &r->CREATE3res_u.resok.obj);
		nt_copy_attr(res, &r->CREATE3res_u.resok.obj_attributes);
		nt_copy_wcc(res, &r->CREATE3res_u.resok.dir_wcc);
	}
}

static void nt_mkdir_cb(struct rpc_context *rpc, int status, void *data,
			void *priv)
{
	struct nt_res *res = priv;
	MKDIR3res *r = data;

	nt_cb_common(res, status, data);
	if (status != RPC_STATUS_SUCCESS)
		return;
	res->status = r->status;
	if (r->status == NFS3_OK) {
		nt_copy_post_op_fh(res, &r->MKDIR3res_u.resok.obj);
		nt_copy_attr(res, &r->MKDIR3res_u.resok.obj_attributes);
	}
}

static void nt_symlink_cb(struct rpc_context *rpc, int status, void *data,
			  void *priv)
{
	struct nt_res *res = priv;
	SYMLINK3res *r = data;

	nt_cb_common(res, status, data);
	if (status != RPC_STATUS_SUCCESS)
		return;
	res->status = r->status;
	if (r->status == NFS3_OK) {
		nt_copy_post_op_fh(res, &r->SYMLINK3res_u.resok.obj);
		nt_copy_attr(res, &r->SYMLINK3res_u.resok.obj_attributes);
	}
}

static void nt_mknod_cb(struct rpc_context *rpc, int status, void *data,
			void *priv)
{
	struct nt_res *res = priv;
	MKNOD3res *r = data;

	nt_cb_common(res, status, data);
	if (status != RPC_STATUS_SUCCESS)
		return;
	res->status = r->status;
	if (r->status == NFS3_OK) {
		nt_copy_post_op_fh(res, &r->MKNOD3res_u.resok.obj);
		nt_copy_attr(res, &r->MKNOD3res_u.resok.obj_attributes);
	}
}

static void nt_remove_cb(struct rpc_context *rpc, int status, void *data,
			 void *priv)
{
	struct nt_res *res = priv;
	REMOVE3res *r = data;

	nt_cb_common(res, status, data);
	if (status == RPC_STATUS_SUCCESS)
		res->status = r->status;
}

static void nt_rmdir_cb(struct rpc_context *rpc, int status, void *data,
			void *priv)
{
	struct nt_res *res = priv;
	RMDIR3res *r = data;

	nt_cb_common(res, status, data);
	if (status == RPC_STATUS_SUCCESS)
		res->status = r->status;
}

static void nt_rename_cb(struct rpc_context *rpc, int status, void *data,
			 void *priv)
{
	struct nt_res *res = priv;
	RENAME3res *r = data;

	nt_cb_common(res, status, data);
	if (status == RPC_STATUS_SUCCESS)
		res->status = r->status;
}

static void nt_link_cb(struct rpc_context *rpc, int status, void *data,
		       void *priv)
{
	struct nt_res *res = priv;
	LINK3res *r = data;

	nt_cb_common(res, status, data);
	if (status != RPC_STATUS_SUCCESS)
		return;
	res->status = r->status;
	if (r->status == NFS3_OK)
		nt_copy_attr(res, &r->LINK3res_u.resok.file_attributes);
}

static void nt_readdir_cb(struct rpc_context *rpc, int status, void *data,
			  void *priv)
{
	struct nt_res *res = priv;
	READDIR3res *r = data;
	entry3 *p, e;

	nt_cb_common(res, status, data);
	if (status != RPC_STATUS_SUCCESS)
		return;
	res->status = r->status;
	if (r->status != NFS3_OK)
		return;
	memcpy(res->cookieverf, r->READDIR3res_u.resok.cookieverf, 8);
	res->eof = r->READDIR3res_u.resok.reply.eof;
	for (p = r->READDIR3res_u.resok.reply.entries; p; p = e.nextentry) {
		memcpy(&e, p, sizeof(e));      /* may be misaligned */
		res->nentries++;
		res->last_cookie = e.cookie;
		if (res->on_entry)
			res->on_entry(res->entry_arg, e.name, e.fileid,
				      e.cookie, false, NULL, false, NULL);
	}
}

static void nt_readdirplus_cb(struct rpc_context *rpc, int status,
			      void *data, void *priv)
{
	struct nt_res *res = priv;
	READDIRPLUS3res *r = data;
	entryplus3 *p, e;

	nt_cb_common(res, status, data);
	if (status != RPC_STATUS_SUCCESS)
		return;
	res->status = r->status;
	if (r->status != NFS3_OK)
		return;
	memcpy(res->cookieverf, r->READDIRPLUS3res_u.resok.cookieverf, 8);
	res->eof = r->READDIRPLUS3res_u.resok.reply.eof;
	for (p = r->READDIRPLUS3res_u.resok.reply.entries; p;
	     p = e.nextentry) {
		struct nt_fh fh = { 0 };
		bool has_fh;

		memcpy(&e, p, sizeof(e));      /* may be misaligned */
		has_fh = e.name_handle.handle_follows;
		if (has_fh) {
			const nfs_fh3 *h = &e.name_handle.post_op_fh3_u.handle;

			fh.len = h->data.data_len > NT_FH_MAX ?
					 NT_FH_MAX : h->data.data_len;
			memcpy(fh.data, h->data.data_val, fh.len);
		}
		res->nentries++;
		res->last_cookie = e.cookie;
		if (res->on_entry)
			res->on_entry(res->entry_arg, e.name, e.fileid,
				      e.cookie,
				      e.name_attributes.attributes_follow,
				      &e.name_attributes.post_op_attr_u
					       .attributes,
				      has_fh, &fh);
	}
}

static void nt_fsstat_cb(struct rpc_context *rpc, int status, void *data,
			 void *priv)
{
	struct nt_res *res = priv;
	FSSTAT3res *r = data;

	nt_cb_common(res, status, data);
	if (status != RPC_STATUS_SUCCESS)
		return;
	res->status = r->status;
	if (r->status == NFS3_OK)
		res->fsstat = r->FSSTAT3res_u.resok;
}

static void nt_fsinfo_cb(struct rpc_context *rpc, int status, void *data,
			 void *priv)
{
	struct nt_res *res = priv;
	FSINFO3res *r = data;

	nt_cb_common(res, status, data);
	if (status != RPC_STATUS_SUCCESS)
		return;
	res->status = r->status;
	if (r->status == NFS3_OK)
		res->fsinfo = r->FSINFO3res_u.resok;
}

static void nt_pathconf_cb(struct rpc_context *rpc, int status, void *data,
			   void *priv)
{
	struct nt_res *res = priv;
	PATHCONF3res *r = data;

	nt_cb_common(res, status, data);
	if (status != RPC_STATUS_SUCCESS)
		return;
	res->status = r->status;
	if (r->status == NFS3_OK)
		res->pathconf = r->PATHCONF3res_u.resok;
}

static void nt_commit_cb(struct rpc_context *rpc, int status, void *data,
			 void *priv)
{
	struct nt_res *res = priv;
	COMMIT3res *r = data;

	nt_cb_common(res, status, data);
	if (status != RPC_STATUS_SUCCESS)
		return;
	res->status = r->status;
	if (r->status == NFS3_OK)
		memcpy(res->verf, r->COMMIT3res_u.resok.verf, 8);
}

/* ---- calls */

static int nt_issue(struct rpc_context *rpc, struct nt_res *res, int rc)
{
	if (rc != 0) {
		snprintf(res->error, sizeof(res->error), "queue failed: %s",
			 rpc_get_error(rpc));
		return -1;
	}
	return nt_wait(rpc, res);
}

/** nt_mnt_null() - MOUNTPROC3_NULL (RFC 1813 §5.2.0). */
int nt_mnt_null(struct rpc_context *rpc, struct nt_res *res)
{
	nt_res_reset(res);
	return nt_issue(rpc, res, rpc_mount3_null_async(rpc, nt_void_cb, res));
}

/** nt_mnt() - MOUNTPROC3_MNT of @path; the root handle lands in res->fh. */
int nt_mnt(struct rpc_context *rpc, const char *path, struct nt_res *res)
{
	nt_res_reset(res);
	return nt_issue(rpc, res,
			rpc_mount3_mnt_async(rpc, nt_mnt_cb, (char *)path,
					     res));
}

/** nt_mnt_dump() - MOUNTPROC3_DUMP; directories land in res->names. */
int nt_mnt_dump(struct rpc_context *rpc, struct nt_res *res)
{
	nt_res_reset(res);
	return nt_issue(rpc, res, rpc_mount3_dump_async(rpc, nt_dump_cb, res));
}

/** nt_mnt_umnt() - MOUNTPROC3_UMNT of @path. */
int nt_mnt_umnt(struct rpc_context *rpc, const char *path,
		struct nt_res *res)
{
	nt_res_reset(res);
	return nt_issue(rpc, res,
			rpc_mount3_umnt_async(rpc, nt_void_cb, (char *)path,
					      res));
}

/** nt_mnt_umntall() - MOUNTPROC3_UMNTALL. */
int nt_mnt_umntall(struct rpc_context *rpc, struct nt_res *res)
{
	nt_res_reset(res);
	return nt_issue(rpc, res,
			rpc_mount3_umntall_async(rpc, nt_void_cb, res));
}

/** nt_mnt_export() - MOUNTPROC3_EXPORT; paths land in res->names. */
int nt_mnt_export(struct rpc_context *rpc, struct nt_res *res)
{
	nt_res_reset(res);
	return nt_issue(rpc, res,
			rpc_mount3_export_async(rpc, nt_export_cb, res));
}

/** nt_null() - NFSPROC3_NULL. */
int nt_null(struct rpc_context *rpc, struct nt_res *res)
{
	nt_res_reset(res);
	return nt_issue(rpc, res, rpc_nfs3_null_async(rpc, nt_void_cb, res));
}

/** nt_getattr() - NFSPROC3_GETATTR; attributes land in res->attr. */
int nt_getattr(struct rpc_context *rpc, const struct nt_fh *fh,
	       struct nt_res *res)
{
	GETATTR3args args;

	memset(&args, 0, sizeof(args));
	nt_fh3_set(&args.object, fh);
	nt_res_reset(res);
	return nt_issue(rpc, res,
			rpc_nfs3_getattr_async(rpc, nt_getattr_cb, &args,
					       res));
}

/**
 * nt_setattr() - NFSPROC3_SETATTR with @sattr; @guard (may be NULL) is the
 * ctime the server must match.
 */
int nt_setattr(struct rpc_context *rpc, const struct nt_fh *fh,
	       const struct sattr3 *sattr, const struct nfstime3 *guard,
	       struct nt_res *res)
{
	SETATTR3args args;

	memset(&args, 0, sizeof(args));
	nt_fh3_set(&args.object, fh);
	args.new_attributes = *sattr;
	if (guard) {
		args.guard.check = 1;
		args.guard.sattrguard3_u.obj_ctime = *guard;
	}
	nt_res_reset(res);
	return nt_issue(rpc, res,
			rpc_nfs3_setattr_async(rpc, nt_setattr_cb, &args,
					       res));
}

/** nt_lookup() - NFSPROC3_LOOKUP of @name in @dir. */
int nt_lookup(struct rpc_context *rpc, const struct nt_fh *dir,
	      const char *name, struct nt_res *res)
{
	LOOKUP3args args;

	memset(&args, 0, sizeof(args));
	nt_fh3_set(&args.what.dir, dir);
	args.what.name = (char *)name;
	nt_res_reset(res);
	return nt_issue(rpc, res,
			rpc_nfs3_lookup_async(rpc, nt_lookup_cb, &args, res));
}

/**
 * nt_lookup_path() - LOOKUP each '/'-separated component of @path from
 * @root. An empty path yields @root itself (after a GETATTR).
 */
int nt_lookup_path(struct rpc_context *rpc, const struct nt_fh *root,
		   const char *path, struct nt_res *res)
{
	struct nt_fh cur = *root;
	char comp[1024];
	const char *p = path;

	if (nt_getattr(rpc, root, res) != 0)
		return -1;
	if (res->status != NFS3_OK)
		return 0;
	res->has_fh = true;
	res->fh = *root;
	while (*p) {
		size_t n = strcspn(p, "/");

		if (n == 0) {
			p++;
			continue;
		}
		if (n >= sizeof(comp)) {
			snprintf(res->error, sizeof(res->error),
				 "path component too long");
			return -1;
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		p += n;
		if (nt_lookup(rpc, &cur, comp, res) != 0)
			return -1;
		if (res->status != NFS3_OK)
			return 0;
		cur = res->fh;
	}
	return 0;
}

/** nt_access() - NFSPROC3_ACCESS asking for @bits; granted in res->access. */
int nt_access(struct rpc_context *rpc, const struct nt_fh *fh, uint32_t bits,
	      struct nt_res *res)
{
	ACCESS3args args;

	memset(&args, 0, sizeof(args));
	nt_fh3_set(&args.object, fh);
	args.access = bits;
	nt_res_reset(res);
	return nt_issue(rpc, res,
			rpc_nfs3_access_async(rpc, nt_access_cb, &args, res));
}

/** nt_readlink() - NFSPROC3_READLINK; the target lands in res->data. */
int nt_readlink(struct rpc_context *rpc, const struct nt_fh *fh,
		struct nt_res *res)
{
	READLINK3args args;

	memset(&args, 0, sizeof(args));
	nt_fh3_set(&args.symlink, fh);
	nt_res_reset(res);
	return nt_issue(rpc, res,
			rpc_nfs3_readlink_async(rpc, nt_readlink_cb, &args,
						res));
}

/** nt_read() - NFSPROC3_READ; bytes land in res->data/res->data_len. */
int nt_read(struct rpc_context *rpc, const struct nt_fh *fh, uint64_t off,
	    uint32_t count, struct nt_res *res)
{
	READ3args args;

	memset(&args, 0, sizeof(args));
	nt_fh3_set(&args.file, fh);
	args.offset = off;
	args.count = count;
	nt_res_reset(res);
	return nt_issue(rpc, res,
			rpc_nfs3_read_async(rpc, nt_read_cb, &args, res));
}

/** nt_write() - NFSPROC3_WRITE of @len bytes with stable_how @stable. */
int nt_write(struct rpc_context *rpc, const struct nt_fh *fh, uint64_t off,
	     const void *buf, uint32_t len, int stable, struct nt_res *res)
{
	WRITE3args args;

	memset(&args, 0, sizeof(args));
	nt_fh3_set(&args.file, fh);
	args.offset = off;
	args.count = len;
	args.stable = (stable_how)stable;
	args.data.data_len = len;
	args.data.data_val = (char *)buf;
	nt_res_reset(res);
	return nt_issue(rpc, res,
			rpc_nfs3_write_async(rpc, nt_write_cb, &args, res));
}

/**
 * nt_create() - NFSPROC3_CREATE of @name with createmode3 @mode; @sattr for
 * UNCHECKED/GUARDED (NULL = none set), @verf (8 bytes) for EXCLUSIVE.
 */
int nt_create(struct rpc_context *rpc, const struct nt_fh *dir,
	      const char *name, int mode, const struct sattr3 *sattr,
	      const unsigned char *verf, struct nt_res *res)
{
	CREATE3args args;

	memset(&args, 0, sizeof(args));
	nt_fh3_set(&args.where.dir, dir);
	args.where.name = (char *)name;
	args.how.mode = (createmode3)mode;
	if (mode == EXCLUSIVE && verf)
		memcpy(args.how.createhow3_u.verf, verf, 8);
	else if (mode != EXCLUSIVE && sattr)
		args.how.createhow3_u.obj_attributes = *sattr;
	nt_res_reset(res);
	return nt_issue(rpc, res,
			rpc_nfs3_create_async(rpc, nt_create_cb, &args, res));
}

/** nt_mkdir() - NFSPROC3_MKDIR of @name with @mode. */
int nt_mkdir(struct rpc_context *rpc, const struct nt_fh *dir,
	     const char *name, uint32_t mode, struct nt_res *res)
{
	MKDIR3args args;

	memset(&args, 0, sizeof(args));
	nt_fh3_set(&args.where.dir, dir);
	args.where.name = (char *)name;
	args.attributes.mode.set_it = 1;
	args.attributes.mode.set_mode3_u.mode = mode;
	nt_res_reset(res);
	return nt_issue(rpc, res,
			rpc_nfs3_mkdir_async(rpc, nt_mkdir_cb, &args, res));
}

/** nt_symlink() - NFSPROC3_SYMLINK @name -> @target. */
int nt_symlink(struct rpc_context *rpc, const struct nt_fh *dir,
	       const char *name, const char *target, struct nt_res *res)
{
	SYMLINK3args args;

	memset(&args, 0, sizeof(args));
	nt_fh3_set(&args.where.dir, dir);
	args.where.name = (char *)name;
	args.symlink.symlink_data = (char *)target;
	nt_res_reset(res);
	return nt_issue(rpc, res,
			rpc_nfs3_symlink_async(rpc, nt_symlink_cb, &args,
					       res));
}

/** nt_mknod() - NFSPROC3_MKNOD of @name with ftype3 @type. */
int nt_mknod(struct rpc_context *rpc, const struct nt_fh *dir,
	     const char *name, int type, uint32_t mode, struct nt_res *res)
{
	MKNOD3args args;
	sattr3 *sa;

	memset(&args, 0, sizeof(args));
	nt_fh3_set(&args.where.dir, dir);
	args.where.name = (char *)name;
	args.what.type = (ftype3)type;
	switch (type) {
	case NF3CHR:
		sa = &args.what.mknoddata3_u.chr_device.dev_attributes;
		break;
	case NF3BLK:
		sa = &args.what.mknoddata3_u.blk_device.dev_attributes;
		break;
	case NF3SOCK:
		sa = &args.what.mknoddata3_u.sock_attributes;
		break;
	case NF3FIFO:
		sa = &args.what.mknoddata3_u.pipe_attributes;
		break;
	default:
		sa = NULL;
		break;
	}
	if (sa) {
		sa->mode.set_it = 1;
		sa->mode.set_mode3_u.mode = mode;
	}
	nt_res_reset(res);
	return nt_issue(rpc, res,
			rpc_nfs3_mknod_async(rpc, nt_mknod_cb, &args, res));
}

/** nt_remove() - NFSPROC3_REMOVE of @name in @dir. */
int nt_remove(struct rpc_context *rpc, const struct nt_fh *dir,
	      const char *name, struct nt_res *res)
{
	REMOVE3args args;

	memset(&args, 0, sizeof(args));
	nt_fh3_set(&args.object.dir, dir);
	args.object.name = (char *)name;
	nt_res_reset(res);
	return nt_issue(rpc, res,
			rpc_nfs3_remove_async(rpc, nt_remove_cb, &args, res));
}

/** nt_rmdir() - NFSPROC3_RMDIR of @name in @dir. */
int nt_rmdir(struct rpc_context *rpc, const struct nt_fh *dir,
	     const char *name, struct nt_res *res)
{
	RMDIR3args args;

	memset(&args, 0, sizeof(args));
	nt_fh3_set(&args.object.dir, dir);
	args.object.name = (char *)name;
	nt_res_reset(res);
	return nt_issue(rpc, res,
			rpc_nfs3_rmdir_async(rpc, nt_rmdir_cb, &args, res));
}

/** nt_rename() - NFSPROC3_RENAME. */
int nt_rename(struct rpc_context *rpc, const struct nt_fh *fromdir,
	      const char *fromname, const struct nt_fh *todir,
	      const char *toname, struct nt_res *res)
{
	RENAME3args args;

	memset(&args, 0, sizeof(args));
	nt_fh3_set(&args.from.dir, fromdir);
	args.from.name = (char *)fromname;
	nt_fh3_set(&args.to.dir, todir);
	args.to.name = (char *)toname;
	nt_res_reset(res);
	return nt_issue(rpc, res,
			rpc_nfs3_rename_async(rpc, nt_rename_cb, &args, res));
}

/** nt_link() - NFSPROC3_LINK: a new name @name in @dir for @file. */
int nt_link(struct rpc_context *rpc, const struct nt_fh *file,
	    const struct nt_fh *dir, const char *name, struct nt_res *res)
{
	LINK3args args;

	memset(&args, 0, sizeof(args));
	nt_fh3_set(&args.file, file);
	nt_fh3_set(&args.link.dir, dir);
	args.link.name = (char *)name;
	nt_res_reset(res);
	return nt_issue(rpc, res,
			rpc_nfs3_link_async(rpc, nt_link_cb, &args, res));
}

/** nt_readdir() - one NFSPROC3_READDIR page; entries go to res->on_entry. */
int nt_readdir(struct rpc_context *rpc, const struct nt_fh *dir,
	       uint64_t cookie, const unsigned char *cookieverf,
	       uint32_t count, struct nt_res *res)
{
	READDIR3args args;

	memset(&args, 0, sizeof(args));
	nt_fh3_set(&args.dir, dir);
	args.cookie = cookie;
	if (cookieverf)
		memcpy(args.cookieverf, cookieverf, 8);
	args.count = count;
	nt_res_reset(res);
	return nt_issue(rpc, res,
			rpc_nfs3_readdir_async(rpc, nt_readdir_cb, &args,
					       res));
}

/** nt_readdirplus() - one NFSPROC3_READDIRPLUS page. */
int nt_readdirplus(struct rpc_context *rpc, const struct nt_fh *dir,
		   uint64_t cookie, const unsigned char *cookieverf,
		   uint32_t dircount, uint32_t maxcount, struct nt_res *res)
{
	READDIRPLUS3args args;

	memset(&args, 0, sizeof(args));
	nt_fh3_set(&args.dir, dir);
	args.cookie = cookie;
	if (cookieverf)
		memcpy(args.cookieverf, cookieverf, 8);
	args.dircount = dircount;
	args.maxcount = maxcount;
	nt_res_reset(res);
	return nt_issue(rpc, res,
			rpc_nfs3_readdirplus_async(rpc, nt_readdirplus_cb,
						   &args, res));
}

/** nt_fsstat() - NFSPROC3_FSSTAT; result in res->fsstat. */
int nt_fsstat(struct rpc_context *rpc, const struct nt_fh *fh,
	      struct nt_res *res)
{
	FSSTAT3args args;

	memset(&args, 0, sizeof(args));
	nt_fh3_set(&args.fsroot, fh);
	nt_res_reset(res);
	return nt_issue(rpc, res,
			rpc_nfs3_fsstat_async(rpc, nt_fsstat_cb, &args, res));
}

/** nt_fsinfo() - NFSPROC3_FSINFO; result in res->fsinfo. */
int nt_fsinfo(struct rpc_context *rpc, const struct nt_fh *fh,
	      struct nt_res *res)
{
	FSINFO3args args;

	memset(&args, 0, sizeof(args));
	nt_fh3_set(&args.fsroot, fh);
	nt_res_reset(res);
	return nt_issue(rpc, res,
			rpc_nfs3_fsinfo_async(rpc, nt_fsinfo_cb, &args, res));
}

/** nt_pathconf() - NFSPROC3_PATHCONF; result in res->pathconf. */
int nt_pathconf(struct rpc_context *rpc, const struct nt_fh *fh,
		struct nt_res *res)
{
	PATHCONF3args args;

	memset(&args, 0, sizeof(args));
	nt_fh3_set(&args.object, fh);
	nt_res_reset(res);
	return nt_issue(rpc, res,
			rpc_nfs3_pathconf_async(rpc, nt_pathconf_cb, &args,
						res));
}

/** nt_commit() - NFSPROC3_COMMIT; the verifier lands in res->verf. */
int nt_commit(struct rpc_context *rpc, const struct nt_fh *fh, uint64_t off,
	      uint32_t count, struct nt_res *res)
{
	COMMIT3args args;

	memset(&args, 0, sizeof(args));
	nt_fh3_set(&args.file, fh);
	args.offset = off;
	args.count = count;
	nt_res_reset(res);
	return nt_issue(rpc, res,
			rpc_nfs3_commit_async(rpc, nt_commit_cb, &args, res));
}
