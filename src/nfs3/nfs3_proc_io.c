// SPDX-License-Identifier: MIT
/* NFSv3 READ, WRITE, COMMIT (RFC 1813 §3.3.6, §3.3.7, §3.3.21). */

#include "core/stats.h"
#include "nfs3/nfs3_internal.h"
#include "state/file_state.h"

/* Only regular files carry data; a directory is EISDIR, others EINVAL. */
static int data_type_check(const struct vfs_attr *va)
{
	if (va->type == VFS_REG)
		return 0;
	return va->type == VFS_DIR ? -EISDIR : -EINVAL;
}

/**
 * nfs3_proc_read() - RFC 1813 §3.3.6: up to min(count, rtmax) bytes. The
 * vfs reads into a pooled, aligned buffer of its choosing (O_DIRECT or the
 * page cache, as the export's io= says), or for a large cached read gives
 * the file range to send from; either becomes the reply's payload, owned
 * by the request and not copied. The attributes the read saw are the
 * post-op attributes. On the event loop a read that misses the page cache
 * defers to a worker. At the memory ceiling the answer is NFS3ERR_JUKEBOX
 * (RFC 1813 §2.6): the client retries later.
 */
void nfs3_proc_read(struct rpc_call *call, const void *args, void *res)
{
	const struct READ3args *a = args;
	struct READ3res *r = res;
	struct nfs3_ctx ctx = {0};
	uint32_t count = a->count < NFS3_IO_MAX ? a->count : NFS3_IO_MAX;
	struct req *rq = call->req;
	struct vfs_read_res rd;
	unsigned int flags = 0;
	struct vfs_obj *o;
	ssize_t n;
	int err = 0;

	r->status = nfs3_resolve(call, NFSPROC3_READ, &ctx, &a->file, &o);
	if (r->status)
		goto out_ctx;
	if (rq->nowait)
		flags |= VFS_READ_NOWAIT;
	if (rq->caps & REQ_CAP_FILE)
		flags |= VFS_READ_FILE_OK;
	/* An SMB client caching writes (exclusive, batch) flushes first. */
	err = state_grant_break_op(o, STATE_OP_READ);
	if (err) {
		nfs3_post_op_attr(o, &r->file_attributes);
		goto out_status;
	}
	/* The vfs checks the type (EISDIR/EINVAL) and the permission. */
	n = vfs_read_payload(o, a->offset, count, flags, &rd);
	if (n == -EAGAIN && rq->nowait) {
		/* On the event loop: the page cache, or a worker later. */
		rq->defer = true;
		vfs_obj_put(o);
		goto out_ctx;
	}
	if (n < 0) {
		err = (int)n;
		nfs3_post_op_attr(o, &r->file_attributes);
		goto out_status;
	}
	/* From here the request owns the data, sent or not. */
	r->count = (uint32_t)n;
	r->eof = rd.eof;
	req_reply_set_payload(rq, &rd.data, (uint32_t)xdr_pad((size_t)n));
	stats_add_bytes_read((uint64_t)n);
	nfs3_fattr3_from_vfs(&r->file_attributes.attributes, &rd.attr);
	r->file_attributes.attributes_follow = true;
out_status:
	r->status = nfs3_status(NFSPROC3_READ, err);
	vfs_obj_put(o);
out_ctx:
	nfs3_ctx_release(&ctx);
}

static const enum vfs_stable vfs_stable_of[] = {
	[UNSTABLE] = VFS_UNSTABLE,
	[DATA_SYNC] = VFS_DATA_SYNC,
	[FILE_SYNC] = VFS_FILE_SYNC,
};

/**
 * nfs3_proc_write() - RFC 1813 §3.3.7: write the borrowed data with the
 * asked stability and report exactly that as committed, with the server's
 * write verifier and the file's wcc_data in both arms.
 */
void nfs3_proc_write(struct rpc_call *call, const void *args, void *res)
{
	const struct WRITE3args *a = args;
	struct WRITE3res *r = res;
	struct nfs3_ctx ctx = {0};
	struct vfs_attr va;
	struct vfs_obj *o;
	ssize_t n;
	int err;

	r->status = nfs3_resolve(call, NFSPROC3_WRITE, &ctx, &a->file, &o);
	if (r->status)
		goto out_ctx;
	err = vfs_getattr(o, &va);
	if (err)
		goto out_status;
	nfs3_wcc_attr_from_vfs(&r->file_wcc.before.attributes, &va);
	r->file_wcc.before.attributes_follow = true;
	if (nfs3_ctx_ro(&ctx)) {
		err = -EROFS;
		goto out_status;
	}
	err = data_type_check(&va);
	if (err)
		goto out_status;
	/* SMB oplocks on the file break first (the client retries). */
	err = state_grant_break_op(o, STATE_OP_WRITE);
	if (err)
		goto out_status;
	/* The decoder has checked stable (0..2) and count == data length. */
	n = vfs_write(o, a->offset, a->data, a->count,
		      vfs_stable_of[a->stable]);
	if (n < 0) {
		err = (int)n;
		goto out_status;
	}
	r->count = (uint32_t)n;
	stats_add_bytes_written((uint64_t)n);
	r->committed = a->stable;
	r->verf = vfs_write_verifier();
out_status:
	r->status = nfs3_status(NFSPROC3_WRITE, err);
	nfs3_post_op_attr(o, &r->file_wcc.after);
	vfs_obj_put(o);
out_ctx:
	nfs3_ctx_release(&ctx);
}

/**
 * nfs3_proc_commit() - RFC 1813 §3.3.21: flush the file's unstable data
 * and return the write verifier (allowed on read-only exports too).
 */
void nfs3_proc_commit(struct rpc_call *call, const void *args, void *res)
{
	const struct COMMIT3args *a = args;
	struct COMMIT3res *r = res;
	struct nfs3_ctx ctx = {0};
	struct vfs_attr va;
	struct vfs_obj *o;
	int err;

	r->status = nfs3_resolve(call, NFSPROC3_COMMIT, &ctx, &a->file, &o);
	if (r->status)
		goto out_ctx;
	err = vfs_getattr(o, &va);
	if (err)
		goto out_status;
	nfs3_wcc_attr_from_vfs(&r->file_wcc.before.attributes, &va);
	r->file_wcc.before.attributes_follow = true;
	err = data_type_check(&va);
	if (!err)
		err = vfs_commit(o, a->offset, a->count);
	if (!err)
		r->verf = vfs_write_verifier();
out_status:
	r->status = nfs3_status(NFSPROC3_COMMIT, err);
	nfs3_post_op_attr(o, &r->file_wcc.after);
	vfs_obj_put(o);
out_ctx:
	nfs3_ctx_release(&ctx);
}
