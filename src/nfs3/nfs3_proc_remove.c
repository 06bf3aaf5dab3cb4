// SPDX-License-Identifier: MIT
/* NFSv3 REMOVE, RMDIR, RENAME, LINK (RFC 1813 §3.3.12-§3.3.15). */

#include "nfs3/nfs3_internal.h"
#include "state/file_state.h"

static void dirent_remove(struct rpc_call *call, uint32_t proc,
			  const struct diropargs3 *what,
			  int (*unlink_fn)(struct vfs_obj *, const char *,
					   size_t),
			  struct REMOVE3res *r)
{
	struct nfs3_ctx ctx = {0};
	struct vfs_obj *dir;
	int err;

	r->status = nfs3_resolve(call, proc, &ctx, &what->dir, &dir);
	if (r->status)
		goto out_ctx;
	nfs3_pre_op_attr(dir, &r->dir_wcc.before);
	err = nfs3_ctx_ro(&ctx) ? -EROFS : nfs3_name_check(&what->name);
	/* an open denying DELETE (SMB, no FILE_SHARE_DELETE) keeps it; its
	 * NFSv4 delegations are recalled first */
	if (!err)
		err = state_may_unlink_name(dir, what->name.s, what->name.len,
					    NULL);
	if (!err)
		err = unlink_fn(dir, what->name.s, what->name.len);
	r->status = nfs3_status(proc, err);
	nfs3_post_op_attr(dir, &r->dir_wcc.after);
	vfs_obj_put(dir);
out_ctx:
	nfs3_ctx_release(&ctx);
}

/** nfs3_proc_remove() - RFC 1813 §3.3.12: remove a non-directory. */
void nfs3_proc_remove(struct rpc_call *call, const void *args, void *res)
{
	const struct REMOVE3args *a = args;

	dirent_remove(call, NFSPROC3_REMOVE, &a->object, vfs_remove, res);
}

/** nfs3_proc_rmdir() - RFC 1813 §3.3.13: remove an empty directory. */
void nfs3_proc_rmdir(struct rpc_call *call, const void *args, void *res)
{
	const struct RMDIR3args *a = args;

	dirent_remove(call, NFSPROC3_RMDIR, &a->object, vfs_rmdir, res);
}

/**
 * nfs3_proc_rename() - RFC 1813 §3.3.14: rename within one export
 * (NFS3ERR_XDEV across exports), with both directories' wcc_data.
 */
void nfs3_proc_rename(struct rpc_call *call, const void *args, void *res)
{
	const struct RENAME3args *a = args;
	struct RENAME3res *r = res;
	struct nfs3_ctx ctx = {0};
	struct vfs_obj *fdir, *tdir;
	int err;

	r->status =
		nfs3_resolve(call, NFSPROC3_RENAME, &ctx, &a->from.dir, &fdir);
	if (r->status)
		goto out_ctx;
	nfs3_pre_op_attr(fdir, &r->fromdir_wcc.before);
	r->status =
		nfs3_resolve(call, NFSPROC3_RENAME, &ctx, &a->to.dir, &tdir);
	if (r->status)
		goto out_fdir;
	nfs3_pre_op_attr(tdir, &r->todir_wcc.before);
	err = nfs3_ctx_ro(&ctx) ? -EROFS : nfs3_name_check(&a->from.name);
	if (!err)
		err = nfs3_name_check(&a->to.name);
	/* neither the file renamed nor the one renamed over may be held
	 * by an open denying DELETE */
	if (!err)
		err = state_may_unlink_name(fdir, a->from.name.s,
					    a->from.name.len, NULL);
	if (!err)
		err = state_may_unlink_name(tdir, a->to.name.s, a->to.name.len,
					    NULL);
	if (!err)
		err = vfs_rename(fdir, a->from.name.s, a->from.name.len, tdir,
				 a->to.name.s, a->to.name.len);
	r->status = nfs3_status(NFSPROC3_RENAME, err);
	nfs3_post_op_attr(tdir, &r->todir_wcc.after);
	vfs_obj_put(tdir);
out_fdir:
	nfs3_post_op_attr(fdir, &r->fromdir_wcc.after);
	vfs_obj_put(fdir);
out_ctx:
	nfs3_ctx_release(&ctx);
}

/**
 * nfs3_proc_link() - RFC 1813 §3.3.15: a hard link to a file of the same
 * export (NFS3ERR_XDEV otherwise).
 */
void nfs3_proc_link(struct rpc_call *call, const void *args, void *res)
{
	const struct LINK3args *a = args;
	struct LINK3res *r = res;
	struct nfs3_ctx ctx = {0};
	struct vfs_obj *o, *dir;
	int err;

	r->status = nfs3_resolve(call, NFSPROC3_LINK, &ctx, &a->file, &o);
	if (r->status)
		goto out_ctx;
	r->status = nfs3_resolve(call, NFSPROC3_LINK, &ctx, &a->link.dir, &dir);
	if (r->status)
		goto out_obj;
	nfs3_pre_op_attr(dir, &r->linkdir_wcc.before);
	err = nfs3_ctx_ro(&ctx) ? -EROFS : nfs3_name_check(&a->link.name);
	/* a new name recalls the file's NFSv4 delegations (JUKEBOX) */
	if (!err)
		err = state_grant_break_op(o, STATE_OP_NAMESPACE);
	if (!err)
		err = vfs_link(o, dir, a->link.name.s, a->link.name.len);
	r->status = nfs3_status(NFSPROC3_LINK, err);
	nfs3_post_op_attr(dir, &r->linkdir_wcc.after);
	vfs_obj_put(dir);
out_obj:
	nfs3_post_op_attr(o, &r->file_attributes);
	vfs_obj_put(o);
out_ctx:
	nfs3_ctx_release(&ctx);
}
