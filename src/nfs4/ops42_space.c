// SPDX-License-Identifier: MIT
/*
 * NFSv4.2 space operations (RFC 7862 §15.1, §15.4, §15.11): ALLOCATE
 * reserves blocks, DEALLOCATE punches holes, SEEK finds the next data or
 * hole. All act on the current filehandle with a stateid that must allow
 * writing (ALLOCATE, DEALLOCATE) or reading (SEEK).
 */
#include <errno.h>

#include "nfs4/compound.h"
#include "nfs4/nfs4_xdr.h"
#include "nfs4/ops42_int.h"
#include "nfs4/state/state.h"
#include "vfs/vfs.h"

/* ALLOCATE4args and DEALLOCATE4args have the same shape. */
struct ALLOCATE4args {
	struct stateid4 aa_stateid;
	uint64_t aa_offset;
	uint64_t aa_length;
};

struct DEALLOCATE4args {
	struct stateid4 da_stateid;
	uint64_t da_offset;
	uint64_t da_length;
};

struct SEEK4args {
	struct stateid4 sa_stateid;
	uint64_t sa_offset;
	uint32_t sa_what; /* data_content4 */
};

struct seek_res4 {
	bool sr_eof;
	uint64_t sr_offset;
};

static bool nfs4_dec_ALLOCATE4args(struct xdr_buf *x, void *p)
{
	struct ALLOCATE4args *a = p;

	return nfs4_dec_stateid4(x, &a->aa_stateid) &&
	       xdr_dec_u64(x, &a->aa_offset) && xdr_dec_u64(x, &a->aa_length);
}

static bool nfs4_dec_DEALLOCATE4args(struct xdr_buf *x, void *p)
{
	struct DEALLOCATE4args *a = p;

	return nfs4_dec_stateid4(x, &a->da_stateid) &&
	       xdr_dec_u64(x, &a->da_offset) && xdr_dec_u64(x, &a->da_length);
}

static bool nfs4_dec_SEEK4args(struct xdr_buf *x, void *p)
{
	struct SEEK4args *a = p;

	return nfs4_dec_stateid4(x, &a->sa_stateid) &&
	       xdr_dec_u64(x, &a->sa_offset) && xdr_dec_u32(x, &a->sa_what);
}

static bool nfs4_enc_seek_res4(struct xdr_buf *x, uint32_t status,
			       const void *p)
{
	const struct seek_res4 *r = p;

	return xdr_enc_bool(x, r->sr_eof) && xdr_enc_u64(x, r->sr_offset);
}

/*
 * The common body of ALLOCATE and DEALLOCATE: a zero length is INVAL
 * (RFC 7862 §15.1.3), a range past the largest file offset FBIG.
 */
static uint32_t space_change(struct nfs4_compound *c, uint32_t op,
			     const struct stateid4 *sid, uint64_t off,
			     uint64_t len)
{
	struct vfs_obj *o;
	uint32_t st;
	int ret;

	st = ops42_file(&c->cur, &o);
	if (st != NFS4_OK)
		return st;
	if (len == 0)
		return NFS4ERR_INVAL;
	if (off > INT64_MAX || len > (uint64_t)INT64_MAX - off)
		return nfs4_status(op, -EFBIG);
	st = nfs4_state_check_io(c, sid, true, off, len);
	if (st != NFS4_OK)
		return st;
	if (op == OP_ALLOCATE)
		ret = vfs_allocate(o, off, len);
	else
		ret = vfs_deallocate(o, off, len);
	return ret < 0 ? nfs4_status(op, ret) : NFS4_OK;
}

/*
 * nfs4_op_allocate() - ALLOCATE (RFC 7862 §15.1): reserve space for the
 * range so later writes into it do not fail with NOSPC.
 */
static uint32_t nfs4_op_allocate(struct nfs4_compound *c, void *args, void *res)
{
	struct ALLOCATE4args *a = args;

	return space_change(c, OP_ALLOCATE, &a->aa_stateid, a->aa_offset,
			    a->aa_length);
}

/*
 * nfs4_op_deallocate() - DEALLOCATE (RFC 7862 §15.4): release the range's
 * space; it reads back as zeros and the file size is unchanged.
 */
static uint32_t nfs4_op_deallocate(struct nfs4_compound *c, void *args,
				   void *res)
{
	struct DEALLOCATE4args *a = args;

	return space_change(c, OP_DEALLOCATE, &a->da_stateid, a->da_offset,
			    a->da_length);
}

/*
 * nfs4_op_seek() - SEEK (RFC 7862 §15.11): the first byte at or after
 * sa_offset that starts data or a hole. An offset at or past the end of
 * the file is NXIO; when nothing of the kind follows, sr_eof is set and
 * sr_offset is the file size (the implicit hole at the end of a file is
 * always found).
 */
static uint32_t nfs4_op_seek(struct nfs4_compound *c, void *args, void *res)
{
	struct SEEK4args *a = args;
	struct seek_res4 *r = res;
	uint64_t pos, size;
	struct vfs_obj *o;
	uint32_t st;
	int ret;

	st = ops42_file(&c->cur, &o);
	if (st != NFS4_OK)
		return st;
	if (a->sa_what != NFS4_CONTENT_DATA && a->sa_what != NFS4_CONTENT_HOLE)
		return NFS4ERR_UNION_NOTSUPP;
	st = nfs4_state_check_io(c, &a->sa_stateid, false, a->sa_offset, 0);
	if (st != NFS4_OK)
		return st;
	ret = vfs_seek(o, a->sa_offset,
		       a->sa_what == NFS4_CONTENT_HOLE ? VFS_SEEK_HOLE
						       : VFS_SEEK_DATA,
		       &pos, &size);
	if (ret < 0)
		return nfs4_status(OP_SEEK, ret);
	r->sr_offset = pos;
	r->sr_eof = pos >= size;
	return NFS4_OK;
}

const struct nfs4_op nfs4_op_desc_allocate = {
	.name = "ALLOCATE",
	.minor_min = 2,
	.minor_max = 255,
	.flags = NFS4_OP_NEEDS_FH | NFS4_OP_MODIFIES,
	.args_size = sizeof(struct ALLOCATE4args),
	.res_size = 0,
	.decode = nfs4_dec_ALLOCATE4args,
	.handle = nfs4_op_allocate,
};

const struct nfs4_op nfs4_op_desc_deallocate = {
	.name = "DEALLOCATE",
	.minor_min = 2,
	.minor_max = 255,
	.flags = NFS4_OP_NEEDS_FH | NFS4_OP_MODIFIES,
	.args_size = sizeof(struct DEALLOCATE4args),
	.res_size = 0,
	.decode = nfs4_dec_DEALLOCATE4args,
	.handle = nfs4_op_deallocate,
};

const struct nfs4_op nfs4_op_desc_seek = {
	.name = "SEEK",
	.minor_min = 2,
	.minor_max = 255,
	.flags = NFS4_OP_NEEDS_FH,
	.args_size = sizeof(struct SEEK4args),
	.res_size = sizeof(struct seek_res4),
	.decode = nfs4_dec_SEEK4args,
	.handle = nfs4_op_seek,
	.encode = nfs4_enc_seek_res4,
};
