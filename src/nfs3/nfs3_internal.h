/* SPDX-License-Identifier: MIT */
#ifndef NASD_NFS3_NFS3_INTERNAL_H
#define NASD_NFS3_NFS3_INTERNAL_H

/*
 * Shared by the NFSv3 handler files: the errno→nfsstat3 table, handle
 * resolution, weak cache consistency helpers and the handler prototypes.
 */

#include <stdbool.h>
#include <stdint.h>

#include "core/err.h"
#include "export/export.h"
#include "nfs3/nfs3_xdr.h"
#include "rpc/rpc.h"
#include "vfs/vfs.h"

/*
 * Pseudo procedure for nfs3_status(): the errors of handle resolution
 * (RFC 1813 §2.6 and knfsd's behaviour: STALE, BADHANDLE, ACCES for a
 * client the export does not admit, PERM for the secure option).
 */
#define NFS3_PROC_RESOLVE NFSPROC3_NPROCS

/*
 * nfs3_status() - the nfsstat3 for internal status @err (0, errno or
 * -errno, including core/err.h's values) answered by procedure @proc
 * (NFSPROC3_*, or NFS3_PROC_RESOLVE). Only statuses RFC 1813 lists for
 * @proc are returned (plus NFS3ERR_JUKEBOX, §2.6, on every procedure and
 * NFS3ERR_PERM on MKNOD); anything else falls back to a listed status, at
 * worst NFS3ERR_IO or NFS3ERR_SERVERFAULT.
 */
uint32_t nfs3_status(uint32_t proc, int err);

/* nfs3_status_allowed() - whether @proc may return @status (for tests). */
bool nfs3_status_allowed(uint32_t proc, uint32_t status);

/*
 * Per-call state of handle resolution: the export table reference and the
 * export's options for this client. Filled by nfs3_resolve(), given back
 * by nfs3_ctx_release().
 */
struct nfs3_ctx {
	struct export_table *table;
	struct export *export;
	const struct export_opts *opts;
	struct vfs_cred cred;     /* the caller after squash, in force */
};

/* nfs3_identity() - the caller's identity from its RPC credential. */
void nfs3_identity(const struct rpc_call *call, struct export_identity *id);

/*
 * nfs3_resolve() - verify @fh for this call and return the object it names
 * in *@out (the caller owns the reference). On first use @ctx takes a
 * reference on the live export table and admits the caller
 * (export_admit: client, secure port, squash, credentials set on this
 * thread; when they cannot be set nothing runs and the answer is
 * NFS3ERR_SERVERFAULT); a later call with the same @ctx (second handle of
 * RENAME/LINK) must name the same export, else NFS3ERR_XDEV. Returns
 * NFS3_OK or the status to answer (for procedure @proc).
 */
uint32_t nfs3_resolve(struct rpc_call *call, uint32_t proc,
		      struct nfs3_ctx *ctx, const struct nfs_fh3 *fh,
		      struct vfs_obj **out);

/* nfs3_ctx_release() - give back what nfs3_resolve() took (idempotent). */
void nfs3_ctx_release(struct nfs3_ctx *ctx);

/* nfs3_ctx_ro() - true when the export is read-only for this client. */
bool nfs3_ctx_ro(const struct nfs3_ctx *ctx);

/*
 * nfs3_name_check() - 0, or -ENAMETOOLONG for a filename3 longer than
 * NFS3_NAME_MAX, -EINVAL for an empty one.
 */
int nfs3_name_check(const struct nfs3_str *name);

/* nfs3_post_op_attr() - current attributes of @o, or none (RFC 1813 §2.6). */
void nfs3_post_op_attr(struct vfs_obj *o, struct post_op_attr *poa);

/* nfs3_pre_op_attr() - pre-operation attributes of @o for wcc_data. */
void nfs3_pre_op_attr(struct vfs_obj *o, struct pre_op_attr *pre);

/* nfs3_post_op_fh3() - the handle of @o, or none if it does not fit. */
void nfs3_post_op_fh3(struct vfs_obj *o, struct post_op_fh3 *h);

/* nfs3_fh3_of() - the handle of @o into @fh; 0 or -errno. */
int nfs3_fh3_of(struct vfs_obj *o, struct nfs_fh3 *fh);

/* Handlers, one per RFC 1813 §3.3 procedure. */
void nfs3_proc_getattr(struct rpc_call *call, const void *args, void *res);
void nfs3_proc_setattr(struct rpc_call *call, const void *args, void *res);
void nfs3_proc_lookup(struct rpc_call *call, const void *args, void *res);
void nfs3_proc_access(struct rpc_call *call, const void *args, void *res);
void nfs3_proc_readlink(struct rpc_call *call, const void *args, void *res);
void nfs3_proc_read(struct rpc_call *call, const void *args, void *res);
void nfs3_proc_write(struct rpc_call *call, const void *args, void *res);
void nfs3_proc_create(struct rpc_call *call, const void *args, void *res);
void nfs3_proc_mkdir(struct rpc_call *call, const void *args, void *res);
void nfs3_proc_symlink(struct rpc_call *call, const void *args, void *res);
void nfs3_proc_mknod(struct rpc_call *call, const void *args, void *res);
void nfs3_proc_remove(struct rpc_call *call, const void *args, void *res);
void nfs3_proc_rmdir(struct rpc_call *call, const void *args, void *res);
void nfs3_proc_rename(struct rpc_call *call, const void *args, void *res);
void nfs3_proc_link(struct rpc_call *call, const void *args, void *res);
void nfs3_proc_readdir(struct rpc_call *call, const void *args, void *res);
void nfs3_proc_readdirplus(struct rpc_call *call, const void *args, void *res);
void nfs3_proc_fsstat(struct rpc_call *call, const void *args, void *res);
void nfs3_proc_fsinfo(struct rpc_call *call, const void *args, void *res);
void nfs3_proc_pathconf(struct rpc_call *call, const void *args, void *res);
void nfs3_proc_commit(struct rpc_call *call, const void *args, void *res);

#endif
