// SPDX-License-Identifier: MIT
/* NFSv3 LOOKUP and READLINK (RFC 1813 §3.3.3, §3.3.5). */

#include "nfs3/nfs3_internal.h"

/**
 * nfs3_proc_lookup() - RFC 1813 §3.3.3: the handle and attributes of one
 * name in a directory ("." and ".." included; ".." at the export root is
 * the root). The directory's attributes go in both arms.
 */
void nfs3_proc_lookup(struct rpc_call *call, const void *args, void *res)
{
	const struct LOOKUP3args *a = args;
	struct LOOKUP3res *r = res;
	struct nfs3_ctx ctx = {0};
	struct vfs_obj *dir, *o = NULL;
	int err;

	r->status =
		nfs3_resolve(call, NFSPROC3_LOOKUP, &ctx, &a->what.dir, &dir);
	if (r->status)
		goto out_ctx;
	/* An empty name names nothing (RFC 1813 §2.5 filename3). */
	err = a->what.name.len ? nfs3_name_check(&a->what.name) : -ENOENT;
	if (!err)
		err = vfs_lookup(dir, a->what.name.s, a->what.name.len, &o);
	if (!err) {
		err = nfs3_fh3_of(o, &r->object);
		if (!err)
			nfs3_post_op_attr(o, &r->obj_attributes);
		vfs_obj_put(o);
	}
	r->status = nfs3_status(NFSPROC3_LOOKUP, err);
	nfs3_post_op_attr(dir, &r->dir_attributes);
	vfs_obj_put(dir);
out_ctx:
	nfs3_ctx_release(&ctx);
}

/**
 * nfs3_proc_readlink() - RFC 1813 §3.3.5: a symbolic link's target. The
 * text lives in the call arena. Not a symlink: NFS3ERR_INVAL.
 */
void nfs3_proc_readlink(struct rpc_call *call, const void *args, void *res)
{
	const struct READLINK3args *a = args;
	struct READLINK3res *r = res;
	struct nfs3_ctx ctx = {0};
	struct vfs_attr va;
	struct vfs_obj *o;
	char *buf;
	ssize_t n;
	int err;

	r->status =
		nfs3_resolve(call, NFSPROC3_READLINK, &ctx, &a->symlink, &o);
	if (r->status)
		goto out_ctx;
	err = vfs_getattr(o, &va);
	if (!err && va.type != VFS_LNK)
		err = -EINVAL;
	if (err)
		goto out_status;
	buf = rpc_call_alloc(call, NFS3_PATH_MAX);
	if (!buf) {
		err = -ENOMEM;
		goto out_status;
	}
	n = vfs_readlink(o, buf, NFS3_PATH_MAX);
	if (n < 0) {
		err = (int)n;
		goto out_status;
	}
	r->data.s = buf;
	r->data.len = (uint32_t)(n < NFS3_PATH_MAX ? n : NFS3_PATH_MAX);
out_status:
	r->status = nfs3_status(NFSPROC3_READLINK, err);
	nfs3_post_op_attr(o, &r->symlink_attributes);
	vfs_obj_put(o);
out_ctx:
	nfs3_ctx_release(&ctx);
}
