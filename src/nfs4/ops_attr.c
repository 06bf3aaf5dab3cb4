// SPDX-License-Identifier: MIT
/*
 * Attribute operations (RFC 8881 §18.7 GETATTR, §18.30 SETATTR, §18.31
 * VERIFY, §18.15 NVERIFY, §18.1 ACCESS).
 */

#include "nfs4/nfs4_int.h"
#include "nfs4/ops.h"
#include "nfs4/state/state.h"
#include "state/file_state.h"

/* nfs4_op_getattr() - RFC 8881 §18.7: gather, the encoder writes; a
 * write-only attribute asked for is INVAL. */
static uint32_t nfs4_op_getattr(struct nfs4_compound *c, void *args,
				void *res)
{
	const struct GETATTR4args *a = args;
	struct GETATTR4resok *r = res;
	uint64_t size = UINT64_MAX;
	int err;

	/* time_access_set and time_modify_set cannot be read (RFC 8881
	 * §5.6, §18.7.3) */
	if (nfs4_attr_any(&a->attr_request, NFS4_ATTR_WRITE_ONLY))
		return NFS4ERR_INVAL;
	r->attr_request = a->attr_request;
	/* another client's write delegation holds the size and times: its
	 * holder is asked with CB_GETATTR (on a worker), or it is recalled
	 * (DELAY meanwhile) */
	if (c->cur.obj && !c->cur.pseudo && state_grant_any()) {
		err = state_grant_ask_attrs(c->cur.obj, nfs4_grant_key(c),
					    c->call->req->nowait, &size);
		if (err == -EINPROGRESS) {
			c->call->req->defer = true;
			return NFS4_OK;
		}
		if (err)
			return NFS4ERR_DELAY; /* -EAGAIN: being recalled */
	}
	err = nfs4_attr_fill(c, &c->cur, &a->attr_request, &r->src);
	if (err)
		return nfs4_status(OP_GETATTR, err);
	/* the holder's size (its times moved already) */
	if (size != UINT64_MAX)
		r->src.va.size = size;
	return NFS4_OK;
}

/*
 * A size change: regular files only, checked against the stateid like a
 * WRITE over the bytes that appear or vanish (RFC 8881 §18.30.3).
 */
static uint32_t setattr_size_check(struct nfs4_compound *c,
				   const struct SETATTR4args *a, uint64_t size)
{
	struct vfs_attr va;
	uint64_t lo, hi;

	if (vfs_getattr(c->cur.obj, &va))
		return NFS4ERR_STALE;
	if (va.type == VFS_DIR)
		return NFS4ERR_ISDIR;
	if (va.type != VFS_REG)
		return NFS4ERR_INVAL;
	lo = size < va.size ? size : va.size;
	hi = size < va.size ? va.size : size;
	return nfs4_state_check_io(c, &a->stateid, true, lo, hi - lo);
}

/*
 * nfs4_op_setattr() - RFC 8881 §18.30: decode the settable attributes,
 * apply them in one vfs call; attrsset says what was set (empty on any
 * error).
 */
static uint32_t nfs4_op_setattr(struct nfs4_compound *c, void *args,
				void *res)
{
	const struct SETATTR4args *a = args;
	struct SETATTR4res *r = res;
	struct vfs_sattr sa;
	struct bitmap4 set;
	uint32_t st;
	int err;

	st = nfs4_fattr4_to_sattr(&a->obj_attributes, &sa, &set);
	if (st != NFS4_OK)
		return st;
	if (sa.set_size) {
		st = setattr_size_check(c, a, sa.size);
		if (st != NFS4_OK)
			return st;
	}
	if (c->cur.obj &&
	    state_grant_break_key(c->cur.obj,
				  sa.set_size ? STATE_OP_WRITE
					      : STATE_OP_SETATTR,
				  nfs4_grant_key(c)))
		return NFS4ERR_DELAY;
	err = vfs_setattr(c->cur.obj, &sa);
	if (err)
		return nfs4_status(OP_SETATTR, err);
	r->attrsset = set;
	return NFS4_OK;
}

/* nfs4_op_verify() - RFC 8881 §18.31: NOT_SAME unless all match. */
static uint32_t nfs4_op_verify(struct nfs4_compound *c, void *args,
			       void *res)
{
	const struct VERIFY4args *a = args;
	bool same = false;
	uint32_t st;

	st = nfs4_attr_verify(c, &c->cur, &a->obj_attributes, &same);
	if (st != NFS4_OK)
		return st;
	return same ? NFS4_OK : NFS4ERR_NOT_SAME;
}

/* nfs4_op_nverify() - RFC 8881 §18.15: SAME when all match. */
static uint32_t nfs4_op_nverify(struct nfs4_compound *c, void *args,
				void *res)
{
	const struct VERIFY4args *a = args;
	bool same = false;
	uint32_t st;

	st = nfs4_attr_verify(c, &c->cur, &a->obj_attributes, &same);
	if (st != NFS4_OK)
		return st;
	return same ? NFS4ERR_SAME : NFS4_OK;
}

#define ACCESS4_ALL                                                          \
	(ACCESS4_READ | ACCESS4_LOOKUP | ACCESS4_MODIFY | ACCESS4_EXTEND |   \
	 ACCESS4_DELETE | ACCESS4_EXECUTE)

#define ACCESS4_XA (ACCESS4_XAREAD | ACCESS4_XAWRITE | ACCESS4_XALIST)

/*
 * nfs4_op_access() - RFC 8881 §18.1: the kernel decides (per-thread
 * credentials); pseudo directories may be read and searched only. RFC
 * 8276's xattr bits are supported at minor version 2 on exports that
 * serve xattrs (nfs4_xattr_ok; whether the filesystem keeps them is
 * xattr_support's to say, not worth a syscall per ACCESS): reading or
 * listing them needs read permission,
 * changing them write permission, as the kernel checks for user. ones.
 */
static uint32_t nfs4_op_access(struct nfs4_compound *c, void *args,
			       void *res)
{
	const struct ACCESS4args *a = args;
	struct ACCESS4resok *r = res;
	uint32_t want = a->access & ACCESS4_ALL, granted = 0, xa = 0;
	bool dir = c->cur.pseudo || vfs_obj_type(c->cur.obj) == VFS_DIR;
	int err;

	if ((a->access & ACCESS4_XA) && c->minorversion >= 2 &&
	    nfs4_xattr_ok(&c->cur, false) == NFS4_OK)
		xa = a->access & ACCESS4_XA;

	/* only the bits that mean something for the object (RFC 8881
	 * §18.1.3): LOOKUP and DELETE for a directory, EXECUTE for what is
	 * not one */
	want &= dir ? ~(uint32_t)ACCESS4_EXECUTE
		    : ~(uint32_t)(ACCESS4_LOOKUP | ACCESS4_DELETE);
	r->supported = want;
	if (c->cur.pseudo) {
		r->access = want & (ACCESS4_READ | ACCESS4_LOOKUP);
		return NFS4_OK;
	}
	/* ACCESS4 bits are the vfs (NFSv3) ones */
	err = vfs_access(c->cur.obj,
			 want | (xa & (ACCESS4_XAREAD | ACCESS4_XALIST)
					 ? ACCESS4_READ
					 : 0) |
				 (xa & ACCESS4_XAWRITE ? ACCESS4_MODIFY : 0),
			 nfs4_fh_ro(&c->cur), &granted);
	if (err)
		return nfs4_status(OP_ACCESS, err);
	r->access = granted & want;
	if (granted & ACCESS4_READ)
		r->access |= xa & (ACCESS4_XAREAD | ACCESS4_XALIST);
	if (granted & ACCESS4_MODIFY)
		r->access |= xa & ACCESS4_XAWRITE;
	r->supported |= xa;
	return NFS4_OK;
}

const struct nfs4_op nfs4_op_desc_getattr = {
	.name = "GETATTR",
	.minor_min = 0,
	.minor_max = 255,
	.flags = NFS4_OP_NEEDS_FH,
	.args_size = sizeof(struct GETATTR4args),
	.res_size = sizeof(struct GETATTR4resok),
	.decode = nfs4_dec_GETATTR4args,
	.handle = nfs4_op_getattr,
	.encode = nfs4_enc_GETATTR4resok,
};

const struct nfs4_op nfs4_op_desc_setattr = {
	.name = "SETATTR",
	.minor_min = 0,
	.minor_max = 255,
	.flags = NFS4_OP_NEEDS_FH | NFS4_OP_MODIFIES,
	.args_size = sizeof(struct SETATTR4args),
	.res_size = sizeof(struct SETATTR4res),
	.decode = nfs4_dec_SETATTR4args,
	.handle = nfs4_op_setattr,
	.encode = nfs4_enc_SETATTR4res,
	.encode_err = true,
};

const struct nfs4_op nfs4_op_desc_verify = {
	.name = "VERIFY",
	.minor_min = 0,
	.minor_max = 255,
	.flags = NFS4_OP_NEEDS_FH,
	.args_size = sizeof(struct VERIFY4args),
	.decode = nfs4_dec_VERIFY4args,
	.handle = nfs4_op_verify,
};

const struct nfs4_op nfs4_op_desc_nverify = {
	.name = "NVERIFY",
	.minor_min = 0,
	.minor_max = 255,
	.flags = NFS4_OP_NEEDS_FH,
	.args_size = sizeof(struct VERIFY4args),
	.decode = nfs4_dec_VERIFY4args,
	.handle = nfs4_op_nverify,
};

const struct nfs4_op nfs4_op_desc_access = {
	.name = "ACCESS",
	.minor_min = 0,
	.minor_max = 255,
	.flags = NFS4_OP_NEEDS_FH,
	.args_size = sizeof(struct ACCESS4args),
	.res_size = sizeof(struct ACCESS4resok),
	.decode = nfs4_dec_ACCESS4args,
	.handle = nfs4_op_access,
	.encode = nfs4_enc_ACCESS4resok,
};
