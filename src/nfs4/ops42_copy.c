// SPDX-License-Identifier: MIT
/*
 * NFSv4.2 server-side copy (RFC 7862 §15.2, §15.3, §15.8, §15.9, §15.13):
 * COPY and CLONE from the saved filehandle (source) to the current one
 * (destination), COPY_NOTIFY, OFFLOAD_CANCEL and OFFLOAD_STATUS.
 *
 * nasd copies within the server only, and always synchronously: a COPY
 * asking for asynchronous completion (ca_synchronous false) is answered
 * with the copy done, an empty wr_callback_id and cr_synchronous true,
 * which RFC 7862 §15.2.3 allows ("the server may choose to perform the
 * copy synchronously"). No CB_OFFLOAD is ever needed, so this works
 * without a backchannel. A COPY is bounded (COPY_MAX_BYTES) so one request
 * does not hold a worker for long: the reply's wr_count tells the client
 * how much was copied and it asks again for the rest (§15.2.3 allows a
 * short copy). Since no copy is ever in flight, OFFLOAD_CANCEL and
 * OFFLOAD_STATUS know no stateid: BAD_STATEID. Inter-server copy
 * (COPY_NOTIFY, a non-empty ca_source_server) is not supported.
 */
#include <errno.h>

#include "core/err.h"
#include "nfs4/compound.h"
#include "nfs4/nfs4_xdr.h"
#include "nfs4/ops42_int.h"
#include "nfs4/state/state.h"
#include "vfs/vfs.h"

/* Largest COPY done in one request. */
#define COPY_MAX_BYTES (256ULL << 20)
/* Most netloc4 entries we accept in ca_source_server. */
#define COPY_MAX_SOURCES 16

/* netloc_type4 */
enum netloc_type4 {
	NL4_NAME = 1,
	NL4_URL = 2,
	NL4_NETADDR = 3,
};

struct COPY4args {
	struct stateid4 ca_src_stateid;
	struct stateid4 ca_dst_stateid;
	uint64_t ca_src_offset;
	uint64_t ca_dst_offset;
	uint64_t ca_count;
	bool ca_consecutive;
	bool ca_synchronous;
	uint32_t ca_source_server_len; /* entries are checked, not kept */
};

struct write_response4 {
	bool wr_callback_id_set; /* stateid4 wr_callback_id<1> */
	struct stateid4 wr_callback_id;
	uint64_t wr_count;
	uint32_t wr_committed; /* stable_how4 */
};

struct copy_requirements4 {
	bool cr_consecutive;
	bool cr_synchronous;
};

struct COPY4res {
	struct write_response4 cr_response;
	struct copy_requirements4 cr_requirements;
};

struct COPY_NOTIFY4args {
	struct stateid4 cna_src_stateid;
	uint32_t cna_destination_server_type;
};

struct CLONE4args {
	struct stateid4 cl_src_stateid;
	struct stateid4 cl_dst_stateid;
	uint64_t cl_src_offset;
	uint64_t cl_dst_offset;
	uint64_t cl_count;
};

struct OFFLOAD_CANCEL4args {
	struct stateid4 oca_stateid;
};

struct OFFLOAD_STATUS4args {
	struct stateid4 osa_stateid;
};

/* netloc4 (RFC 7862 §4.1.1): decoded for validity, then dropped. */
static bool nfs4_dec_netloc4(struct xdr_buf *x, uint32_t *type)
{
	struct nfs4_opaque s, na_r_netid, na_r_addr;

	if (!xdr_dec_u32(x, type))
		return false;
	switch (*type) {
	case NL4_NAME:
	case NL4_URL:
		return nfs4_dec_opaque(x, &s, NFS4_OPAQUE_LIMIT);
	case NL4_NETADDR:
		return nfs4_dec_opaque(x, &na_r_netid, NFS4_OPAQUE_LIMIT) &&
		       nfs4_dec_opaque(x, &na_r_addr, NFS4_OPAQUE_LIMIT);
	default:
		xdr_poison(x);
		return false;
	}
}

static bool nfs4_dec_COPY4args(struct xdr_buf *x, void *p)
{
	struct COPY4args *a = p;
	uint32_t type;

	if (!nfs4_dec_stateid4(x, &a->ca_src_stateid) ||
	    !nfs4_dec_stateid4(x, &a->ca_dst_stateid) ||
	    !xdr_dec_u64(x, &a->ca_src_offset) ||
	    !xdr_dec_u64(x, &a->ca_dst_offset) ||
	    !xdr_dec_u64(x, &a->ca_count) ||
	    !xdr_dec_bool(x, &a->ca_consecutive) ||
	    !xdr_dec_bool(x, &a->ca_synchronous) ||
	    !xdr_dec_u32(x, &a->ca_source_server_len))
		return false;
	/* Each netloc4 takes at least 8 bytes: a count beyond what the
	 * request holds, or beyond our limit, is bad XDR. */
	if (a->ca_source_server_len > COPY_MAX_SOURCES ||
	    a->ca_source_server_len > xdr_remaining(x) / 8) {
		xdr_poison(x);
		return false;
	}
	for (uint32_t i = 0; i < a->ca_source_server_len; i++)
		if (!nfs4_dec_netloc4(x, &type))
			return false;
	return true;
}

static bool nfs4_enc_copy_requirements4(struct xdr_buf *x,
					const struct copy_requirements4 *r)
{
	return xdr_enc_bool(x, r->cr_consecutive) &&
	       xdr_enc_bool(x, r->cr_synchronous);
}

static bool nfs4_enc_write_response4(struct xdr_buf *x,
				     const struct write_response4 *w)
{
	if (!xdr_enc_u32(x, w->wr_callback_id_set ? 1 : 0))
		return false;
	if (w->wr_callback_id_set && !nfs4_enc_stateid4(x, &w->wr_callback_id))
		return false;
	return xdr_enc_u64(x, w->wr_count) && xdr_enc_u32(x, w->wr_committed) &&
	       ops42_enc_writeverf(x);
}

/* COPY4res: COPY4resok on NFS4_OK, copy_requirements4 on
 * OFFLOAD_NO_REQS, nothing otherwise. */
static bool nfs4_enc_COPY4res(struct xdr_buf *x, uint32_t status, const void *p)
{
	const struct COPY4res *r = p;

	if (status == NFS4ERR_OFFLOAD_NO_REQS)
		return nfs4_enc_copy_requirements4(x, &r->cr_requirements);
	if (status != NFS4_OK)
		return true;
	return nfs4_enc_write_response4(x, &r->cr_response) &&
	       nfs4_enc_copy_requirements4(x, &r->cr_requirements);
}

static bool nfs4_dec_COPY_NOTIFY4args(struct xdr_buf *x, void *p)
{
	struct COPY_NOTIFY4args *a = p;

	return nfs4_dec_stateid4(x, &a->cna_src_stateid) &&
	       nfs4_dec_netloc4(x, &a->cna_destination_server_type);
}

static bool nfs4_dec_CLONE4args(struct xdr_buf *x, void *p)
{
	struct CLONE4args *a = p;

	return nfs4_dec_stateid4(x, &a->cl_src_stateid) &&
	       nfs4_dec_stateid4(x, &a->cl_dst_stateid) &&
	       xdr_dec_u64(x, &a->cl_src_offset) &&
	       xdr_dec_u64(x, &a->cl_dst_offset) &&
	       xdr_dec_u64(x, &a->cl_count);
}

static bool nfs4_dec_OFFLOAD_CANCEL4args(struct xdr_buf *x, void *p)
{
	struct OFFLOAD_CANCEL4args *a = p;

	return nfs4_dec_stateid4(x, &a->oca_stateid);
}

static bool nfs4_dec_OFFLOAD_STATUS4args(struct xdr_buf *x, void *p)
{
	struct OFFLOAD_STATUS4args *a = p;

	return nfs4_dec_stateid4(x, &a->osa_stateid);
}

/*
 * nfs4_state_check_io() validates a stateid against the current
 * filehandle; the source's stateid belongs to the saved one, so check it
 * with the two exchanged for the call (no references change hands).
 */
static uint32_t copy_check_src(struct nfs4_compound *c,
			       const struct stateid4 *ssid, uint64_t soff,
			       uint64_t count)
{
	struct nfs4_fh cur = c->cur;
	uint32_t st;

	c->cur = c->saved;
	st = nfs4_state_check_io(c, ssid, false, soff, count);
	c->cur = cur;
	return st;
}

/*
 * The source (saved fh) and destination (current fh) of COPY and CLONE
 * as regular files, with their stateids checked over the ranges. A count
 * of 0 ("to the end of the source") is checked as a range to the end.
 */
static uint32_t copy_files(struct nfs4_compound *c, uint32_t op,
			   const struct stateid4 *ssid, uint64_t soff,
			   const struct stateid4 *dsid, uint64_t doff,
			   uint64_t count, struct vfs_obj **src,
			   struct vfs_obj **dst)
{
	uint32_t st;

	st = ops42_file(&c->saved, src);
	if (st != NFS4_OK)
		return st;
	st = ops42_file(&c->cur, dst);
	if (st != NFS4_OK)
		return st;
	/* Across exports (whose options and squashing may differ) the
	 * client falls back to reading and writing: OFFLOAD_DENIED for
	 * COPY (RFC 7862 §15.2.3), XDEV for CLONE (§15.13.3). */
	if (vfs_obj_export(*src) != vfs_obj_export(*dst))
		return op == OP_COPY ? NFS4ERR_OFFLOAD_DENIED : NFS4ERR_XDEV;
	if (soff > INT64_MAX || doff > INT64_MAX ||
	    count > (uint64_t)INT64_MAX - soff ||
	    count > (uint64_t)INT64_MAX - doff)
		return NFS4ERR_INVAL;
	st = copy_check_src(c, ssid, soff, count);
	if (st != NFS4_OK)
		return st;
	return nfs4_state_check_io(c, dsid, true, doff, count);
}

/*
 * nfs4_op_copy() - COPY (RFC 7862 §15.2), intra-server, always completed
 * before the reply (see the file comment). The copied data is not forced
 * to stable storage: wr_committed is UNSTABLE4 with the boot verifier and
 * the client COMMITs it like WRITE data.
 */
static uint32_t nfs4_op_copy(struct nfs4_compound *c, void *args, void *res)
{
	struct COPY4args *a = args;
	struct COPY4res *r = res;
	struct vfs_obj *src, *dst;
	ssize_t n;
	uint32_t st;

	r->cr_requirements.cr_consecutive = true;
	r->cr_requirements.cr_synchronous = true;
	if (!c->saved.set || !c->cur.set)
		return NFS4ERR_NOFILEHANDLE;
	if (a->ca_source_server_len > 0)
		return NFS4ERR_NOTSUPP; /* inter-server copy */
	st = copy_files(c, OP_COPY, &a->ca_src_stateid, a->ca_src_offset,
			&a->ca_dst_stateid, a->ca_dst_offset, a->ca_count, &src,
			&dst);
	if (st != NFS4_OK)
		return st;
	n = vfs_copy_range(src, a->ca_src_offset, dst, a->ca_dst_offset,
			   a->ca_count, COPY_MAX_BYTES, VFS_UNSTABLE);
	if (n < 0)
		return nfs4_status(OP_COPY, (int)n);
	r->cr_response.wr_callback_id_set = false;
	r->cr_response.wr_count = (uint64_t)n;
	r->cr_response.wr_committed = UNSTABLE4;
	return NFS4_OK;
}

/*
 * nfs4_op_clone() - CLONE (RFC 7862 §15.13): share the source's blocks
 * (FICLONERANGE). Filesystems without reflinks (ext4) get NOTSUPP.
 */
static uint32_t nfs4_op_clone(struct nfs4_compound *c, void *args, void *res)
{
	struct CLONE4args *a = args;
	struct vfs_obj *src, *dst;
	uint32_t st;
	int ret;

	if (!c->saved.set || !c->cur.set)
		return NFS4ERR_NOFILEHANDLE;
	st = copy_files(c, OP_CLONE, &a->cl_src_stateid, a->cl_src_offset,
			&a->cl_dst_stateid, a->cl_dst_offset, a->cl_count, &src,
			&dst);
	if (st != NFS4_OK)
		return st;
	ret = vfs_clone_range(src, a->cl_src_offset, dst, a->cl_dst_offset,
			      a->cl_count);
	if (ret == -ENOTSUPP)
		return NFS4ERR_NOTSUPP;
	return ret < 0 ? nfs4_status(OP_CLONE, ret) : NFS4_OK;
}

/*
 * nfs4_op_copy_notify() - COPY_NOTIFY (RFC 7862 §15.3) only serves
 * inter-server copies, which nasd does not do.
 */
static uint32_t nfs4_op_copy_notify(struct nfs4_compound *c, void *args,
				    void *res)
{
	return NFS4ERR_NOTSUPP;
}

/*
 * nfs4_op_offload_cancel() - OFFLOAD_CANCEL (RFC 7862 §15.8). Every COPY
 * completes before its reply, so there is never an offload to cancel:
 * every stateid is unknown.
 */
static uint32_t nfs4_op_offload_cancel(struct nfs4_compound *c, void *args,
				       void *res)
{
	struct vfs_obj *o;
	uint32_t st;

	st = ops42_file(&c->cur, &o);
	if (st != NFS4_OK)
		return st;
	return NFS4ERR_BAD_STATEID;
}

/* nfs4_op_offload_status() - OFFLOAD_STATUS (RFC 7862 §15.9): as
 * OFFLOAD_CANCEL, no asynchronous copy ever exists. */
static uint32_t nfs4_op_offload_status(struct nfs4_compound *c, void *args,
				       void *res)
{
	struct vfs_obj *o;
	uint32_t st;

	st = ops42_file(&c->cur, &o);
	if (st != NFS4_OK)
		return st;
	return NFS4ERR_BAD_STATEID;
}

const struct nfs4_op nfs4_op_desc_copy = {
	.name = "COPY",
	.minor_min = 2,
	.minor_max = 255,
	.flags = NFS4_OP_NEEDS_FH | NFS4_OP_MODIFIES,
	.args_size = sizeof(struct COPY4args),
	.res_size = sizeof(struct COPY4res),
	.decode = nfs4_dec_COPY4args,
	.handle = nfs4_op_copy,
	.encode = nfs4_enc_COPY4res,
	.encode_err = true,
};

const struct nfs4_op nfs4_op_desc_clone = {
	.name = "CLONE",
	.minor_min = 2,
	.minor_max = 255,
	.flags = NFS4_OP_NEEDS_FH | NFS4_OP_MODIFIES,
	.args_size = sizeof(struct CLONE4args),
	.res_size = 0,
	.decode = nfs4_dec_CLONE4args,
	.handle = nfs4_op_clone,
};

const struct nfs4_op nfs4_op_desc_copy_notify = {
	.name = "COPY_NOTIFY",
	.minor_min = 2,
	.minor_max = 255,
	.flags = NFS4_OP_NEEDS_FH,
	.args_size = sizeof(struct COPY_NOTIFY4args),
	.res_size = 0,
	.decode = nfs4_dec_COPY_NOTIFY4args,
	.handle = nfs4_op_copy_notify,
};

const struct nfs4_op nfs4_op_desc_offload_cancel = {
	.name = "OFFLOAD_CANCEL",
	.minor_min = 2,
	.minor_max = 255,
	.flags = NFS4_OP_NEEDS_FH,
	.args_size = sizeof(struct OFFLOAD_CANCEL4args),
	.res_size = 0,
	.decode = nfs4_dec_OFFLOAD_CANCEL4args,
	.handle = nfs4_op_offload_cancel,
};

const struct nfs4_op nfs4_op_desc_offload_status = {
	.name = "OFFLOAD_STATUS",
	.minor_min = 2,
	.minor_max = 255,
	.flags = NFS4_OP_NEEDS_FH,
	.args_size = sizeof(struct OFFLOAD_STATUS4args),
	.res_size = 0,
	.decode = nfs4_dec_OFFLOAD_STATUS4args,
	.handle = nfs4_op_offload_status,
};
