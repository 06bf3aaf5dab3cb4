// SPDX-License-Identifier: MIT
/*
 * NFSv3 handle resolution and weak cache consistency helpers shared by the
 * handler files (RFC 1813 §2.3.3 handles, §2.6 wcc_data).
 */

#include "core/err.h"
#include "nfs3/nfs3_internal.h"

/** nfs3_identity() - the caller's identity as its RPC credential gives it. */
void nfs3_identity(const struct rpc_call *call, struct export_identity *id)
{
	id->anonymous = call->cred.flavor != AUTH_SYS;
	id->uid = call->cred.uid;
	id->gid = call->cred.gid;
	id->ngroups = call->cred.ngids;
	id->groups = call->cred.gids;
}

/* Steps after the export is known: client, secure port, credentials. */
static int ctx_admit(struct rpc_call *call, struct nfs3_ctx *ctx)
{
	struct export_identity id;
	struct export_access acc;
	int err;

	nfs3_identity(call, &id);
	err = export_admit(ctx->export, rpc_call_peer(call),
			   call->req->peer_privileged, &id, &acc);
	ctx->opts = acc.opts;
	ctx->cred = acc.cred;
	return err;
}

/**
 * nfs3_resolve() - handle to object for this call: MAC and format check,
 * export lookup in the live table, client admission, secure port, squash,
 * then the object. See nfs3_internal.h for ownership.
 */
uint32_t nfs3_resolve(struct rpc_call *call, uint32_t proc,
		      struct nfs3_ctx *ctx, const struct nfs_fh3 *fh,
		      struct vfs_obj **out)
{
	uint32_t id;
	int err;

	*out = NULL;
	err = vfs_fh_export_id(fh->data, fh->len, &id);
	if (err)
		return nfs3_status(NFS3_PROC_RESOLVE, err);
	if (ctx->table) {
		/* Second handle of RENAME/LINK: same export or XDEV. */
		if (!ctx->export || ctx->export->id != id)
			return nfs3_status(proc, -EXDEV);
	} else {
		ctx->table = export_table_current();
		if (!ctx->table)
			return nfs3_status(NFS3_PROC_RESOLVE, -ESTALE);
		ctx->export = export_find_by_id(ctx->table, id);
		if (!ctx->export || !ctx->export->vex)
			return nfs3_status(NFS3_PROC_RESOLVE, -ESTALE);
		err = ctx_admit(call, ctx);
		if (err) {
			ctx->export = NULL;
			return nfs3_status(NFS3_PROC_RESOLVE, err);
		}
	}
	if (call->req->nowait && vfs_export_may_block(ctx->export->vex)) {
		/* On the event loop, and the export's storage is across a
		 * network: the call runs again on a worker (this status is
		 * never sent). */
		call->req->defer = true;
		return NFS3ERR_JUKEBOX;
	}
	err = vfs_obj_from_fh(ctx->export->vex, fh->data, fh->len, out);
	if (err) {
		*out = NULL;
		return nfs3_status(NFS3_PROC_RESOLVE, err);
	}
	return NFS3_OK;
}

/** nfs3_ctx_release() - drop the export table reference of @ctx. */
void nfs3_ctx_release(struct nfs3_ctx *ctx)
{
	if (ctx->table)
		export_table_put(ctx->table);
	ctx->table = NULL;
	ctx->export = NULL;
	ctx->opts = NULL;
}

/** nfs3_ctx_ro() - the export is read-only for this client. */
bool nfs3_ctx_ro(const struct nfs3_ctx *ctx)
{
	return !ctx->opts || !ctx->opts->rw;
}

/** nfs3_name_check() - filename3 length rules (RFC 1813 §2.5). */
int nfs3_name_check(const struct nfs3_str *name)
{
	if (name->len > NFS3_NAME_MAX)
		return -ENAMETOOLONG;
	if (!name->len)
		return -EINVAL;
	return 0;
}

/** nfs3_post_op_attr() - attributes of @o if they can be had. */
void nfs3_post_op_attr(struct vfs_obj *o, struct post_op_attr *poa)
{
	struct vfs_attr va;

	poa->attributes_follow = false;
	if (o && !vfs_getattr(o, &va)) {
		nfs3_fattr3_from_vfs(&poa->attributes, &va);
		poa->attributes_follow = true;
	}
}

/** nfs3_pre_op_attr() - wcc pre-operation attributes of @o, or none. */
void nfs3_pre_op_attr(struct vfs_obj *o, struct pre_op_attr *pre)
{
	struct vfs_attr va;

	pre->attributes_follow = false;
	if (o && !vfs_getattr(o, &va)) {
		nfs3_wcc_attr_from_vfs(&pre->attributes, &va);
		pre->attributes_follow = true;
	}
}

/** nfs3_fh3_of() - mint @o's handle into @fh (at most NFS3_FHSIZE). */
int nfs3_fh3_of(struct vfs_obj *o, struct nfs_fh3 *fh)
{
	int n = vfs_obj_fh(o, fh->data, NFS3_FHSIZE);

	if (n < 0)
		return n;
	fh->len = (uint32_t)n;
	return 0;
}

/** nfs3_post_op_fh3() - @o's handle, or none when it cannot be minted. */
void nfs3_post_op_fh3(struct vfs_obj *o, struct post_op_fh3 *h)
{
	h->handle_follows = o && !nfs3_fh3_of(o, &h->handle);
}
