// SPDX-License-Identifier: MIT
/* NFSv3 FSSTAT, FSINFO, PATHCONF (RFC 1813 §3.3.18-§3.3.20). */

#include "nfs3/nfs3_internal.h"

/* Largest link count we promise; ext4 allows 65000, most others more. */
#define NFS3_LINK_MAX 32000

/** nfs3_proc_fsstat() - RFC 1813 §3.3.18: space and inode counts. */
void nfs3_proc_fsstat(struct rpc_call *call, const void *args, void *res)
{
	const struct FSSTAT3args *a = args;
	struct FSSTAT3res *r = res;
	struct nfs3_ctx ctx = {0};
	struct vfs_statfs st;
	struct vfs_obj *o;
	int err;

	r->status = nfs3_resolve(call, NFSPROC3_FSSTAT, &ctx, &a->fsroot, &o);
	if (r->status)
		goto out_ctx;
	err = vfs_statfs(o, &st);
	r->status = nfs3_status(NFSPROC3_FSSTAT, err);
	if (!err) {
		r->tbytes = st.tbytes;
		r->fbytes = st.fbytes;
		r->abytes = st.abytes;
		r->tfiles = st.tfiles;
		r->ffiles = st.ffiles;
		r->afiles = st.afiles;
		r->invarsec = 0; /* may change at any time */
	}
	nfs3_post_op_attr(o, &r->obj_attributes);
	vfs_obj_put(o);
out_ctx:
	nfs3_ctx_release(&ctx);
}

/**
 * nfs3_proc_fsinfo() - RFC 1813 §3.3.19: the server's transfer sizes and
 * properties (1 MiB reads and writes, 4 KiB multiples, nanosecond times).
 */
void nfs3_proc_fsinfo(struct rpc_call *call, const void *args, void *res)
{
	const struct FSSTAT3args *a = args;
	struct FSINFO3res *r = res;
	struct nfs3_ctx ctx = {0};
	struct vfs_obj *o;

	r->status = nfs3_resolve(call, NFSPROC3_FSINFO, &ctx, &a->fsroot, &o);
	if (r->status)
		goto out_ctx;
	r->rtmax = NFS3_IO_MAX;
	r->rtpref = NFS3_IO_MAX;
	r->rtmult = NFS3_IO_MULT;
	r->wtmax = NFS3_IO_MAX;
	r->wtpref = NFS3_IO_MAX;
	r->wtmult = NFS3_IO_MULT;
	r->dtpref = NFS3_DIR_PREF;
	r->maxfilesize = 0x7fffffffffffffffULL;
	r->time_delta.seconds = 0;
	r->time_delta.nseconds = 1;
	r->properties =
		FSF3_LINK | FSF3_SYMLINK | FSF3_HOMOGENEOUS | FSF3_CANSETTIME;
	nfs3_post_op_attr(o, &r->obj_attributes);
	vfs_obj_put(o);
out_ctx:
	nfs3_ctx_release(&ctx);
}

/** nfs3_proc_pathconf() - RFC 1813 §3.3.20: POSIX pathconf values. */
void nfs3_proc_pathconf(struct rpc_call *call, const void *args, void *res)
{
	const struct FSSTAT3args *a = args;
	struct PATHCONF3res *r = res;
	struct nfs3_ctx ctx = {0};
	struct vfs_statfs st;
	struct vfs_obj *o;

	r->status = nfs3_resolve(call, NFSPROC3_PATHCONF, &ctx, &a->fsroot, &o);
	if (r->status)
		goto out_ctx;
	r->linkmax = NFS3_LINK_MAX;
	r->name_max = NFS3_NAME_MAX;
	/* A backend with shorter names says so; never promise more. */
	if (!vfs_statfs(o, &st) && st.namemax && st.namemax < NFS3_NAME_MAX)
		r->name_max = st.namemax;
	r->no_trunc = true;
	r->chown_restricted = true;
	r->case_insensitive = false;
	r->case_preserving = true;
	nfs3_post_op_attr(o, &r->obj_attributes);
	vfs_obj_put(o);
out_ctx:
	nfs3_ctx_release(&ctx);
}
