// SPDX-License-Identifier: MIT
/* NFSv3 GETATTR, SETATTR, ACCESS (RFC 1813 §3.3.1, §3.3.2, §3.3.4). */

#include "nfs3/nfs3_internal.h"
#include "state/file_state.h"

/**
 * nfs3_proc_getattr() - RFC 1813 §3.3.1: the object's attributes.
 */
void nfs3_proc_getattr(struct rpc_call *call, const void *args, void *res)
{
	const struct GETATTR3args *a = args;
	struct GETATTR3res *r = res;
	struct nfs3_ctx ctx = {0};
	uint64_t size = UINT64_MAX;
	struct vfs_attr va;
	struct vfs_obj *o;
	int err;

	r->status = nfs3_resolve(call, NFSPROC3_GETATTR, &ctx, &a->object, &o);
	if (r->status)
		goto out_ctx;
	/* an NFSv4 write delegation holds the size and times: its holder
	 * is asked (CB_GETATTR, on a worker), or it is recalled (JUKEBOX
	 * meanwhile) */
	err = state_grant_ask_attrs(o, NULL, call->req->nowait, &size);
	if (err == -EINPROGRESS) {
		call->req->defer = true;
		vfs_obj_put(o);
		goto out_ctx;
	}
	if (!err)
		err = vfs_getattr(o, &va);
	if (!err && size != UINT64_MAX)
		va.size = size;
	r->status = nfs3_status(NFSPROC3_GETATTR, err);
	if (!err)
		nfs3_fattr3_from_vfs(&r->obj_attributes, &va);
	vfs_obj_put(o);
out_ctx:
	nfs3_ctx_release(&ctx);
}

static bool nfstime3_eq(const struct nfstime3 *a, const struct nfstime3 *b)
{
	return a->seconds == b->seconds && a->nseconds == b->nseconds;
}

/**
 * nfs3_proc_setattr() - RFC 1813 §3.3.2: apply sattr3, refusing with
 * NFS3ERR_NOT_SYNC when the guard's ctime is not the object's. wcc_data
 * is returned in both arms.
 */
void nfs3_proc_setattr(struct rpc_call *call, const void *args, void *res)
{
	const struct SETATTR3args *a = args;
	struct SETATTR3res *r = res;
	struct nfs3_ctx ctx = {0};
	struct vfs_sattr sa;
	struct vfs_attr va;
	struct vfs_obj *o;
	int err;

	r->status = nfs3_resolve(call, NFSPROC3_SETATTR, &ctx, &a->object, &o);
	if (r->status)
		goto out_ctx;
	err = vfs_getattr(o, &va);
	if (err)
		goto out_status;
	nfs3_wcc_attr_from_vfs(&r->obj_wcc.before.attributes, &va);
	r->obj_wcc.before.attributes_follow = true;
	if (nfs3_ctx_ro(&ctx)) {
		err = -EROFS;
		goto out_status;
	}
	if (a->guard.check &&
	    !nfstime3_eq(&a->guard.obj_ctime,
			 &r->obj_wcc.before.attributes.ctime)) {
		err = -ENOTSYNC;
		goto out_status;
	}
	nfs3_sattr3_to_vfs(&a->new_attributes, &sa);
	err = state_grant_break_op(o, sa.set_size ? STATE_OP_WRITE
						  : STATE_OP_SETATTR);
	if (!err)
		err = vfs_setattr(o, &sa);
out_status:
	r->status = nfs3_status(NFSPROC3_SETATTR, err);
	nfs3_post_op_attr(o, &r->obj_wcc.after);
	vfs_obj_put(o);
out_ctx:
	nfs3_ctx_release(&ctx);
}

/**
 * nfs3_proc_access() - RFC 1813 §3.3.4: the requested ACCESS3_* bits that
 * the caller holds (never more than asked).
 */
void nfs3_proc_access(struct rpc_call *call, const void *args, void *res)
{
	const struct ACCESS3args *a = args;
	struct ACCESS3res *r = res;
	struct nfs3_ctx ctx = {0};
	uint32_t granted = 0;
	struct vfs_obj *o;
	int err;

	r->status = nfs3_resolve(call, NFSPROC3_ACCESS, &ctx, &a->object, &o);
	if (r->status)
		goto out_ctx;
	err = vfs_access(o, a->access & 0x3f, nfs3_ctx_ro(&ctx), &granted);
	r->status = nfs3_status(NFSPROC3_ACCESS, err);
	r->access = granted & a->access;
	nfs3_post_op_attr(o, &r->obj_attributes);
	vfs_obj_put(o);
out_ctx:
	nfs3_ctx_release(&ctx);
}
