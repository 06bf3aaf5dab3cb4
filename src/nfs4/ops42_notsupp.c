// SPDX-License-Identifier: MIT
/*
 * NFSv4.2 operations nasd does not offer (RFC 7862): WRITE_SAME (§15.12,
 * application data blocks), LAYOUTERROR and LAYOUTSTATS (§15.6, §15.7,
 * pNFS, which nasd does not serve yet). Their arguments are decoded in
 * full, so malformed ones are still BADXDR, then COMPOUND's prechecks
 * run, and then nfs4_op_notsupp() answers NOTSUPP.
 */
#include "nfs4/compound.h"
#include "nfs4/nfs4_xdr.h"
#include "nfs4/ops42_int.h"

#define NFS4_DEVICEID4_SIZE 16
/* Most device_error4 entries accepted in one LAYOUTERROR. */
#define LAYOUTERROR_MAX_ERRORS 64

/* app_data_block4: only what validation needs is kept. */
struct app_data_block4 {
	uint64_t adb_offset;
	uint64_t adb_block_size;
	uint64_t adb_block_count;
	uint64_t adb_reloff_blocknum;
	uint32_t adb_block_num;
	uint64_t adb_reloff_pattern;
	struct nfs4_opaque adb_pattern;
	struct nfs4_opaque adb_data;
};

struct WRITE_SAME4args {
	struct stateid4 wsa_stateid;
	uint32_t wsa_stable; /* stable_how4 */
	struct app_data_block4 wsa_adb;
};

struct LAYOUTERROR4args {
	uint64_t lea_offset;
	uint64_t lea_length;
	struct stateid4 lea_stateid;
	uint32_t lea_errors_len;
};

struct io_info4 {
	uint64_t ii_count;
	uint64_t ii_bytes;
};

struct LAYOUTSTATS4args {
	uint64_t lsa_offset;
	uint64_t lsa_length;
	struct stateid4 lsa_stateid;
	struct io_info4 lsa_read;
	struct io_info4 lsa_write;
	uint8_t lsa_deviceid[NFS4_DEVICEID4_SIZE];
	uint32_t lou_type;
	struct nfs4_opaque lou_body;
};

static bool nfs4_dec_WRITE_SAME4args(struct xdr_buf *x, void *p)
{
	struct WRITE_SAME4args *a = p;
	struct app_data_block4 *b = &a->wsa_adb;

	return nfs4_dec_stateid4(x, &a->wsa_stateid) &&
	       xdr_dec_u32(x, &a->wsa_stable) &&
	       xdr_dec_u64(x, &b->adb_offset) &&
	       xdr_dec_u64(x, &b->adb_block_size) &&
	       xdr_dec_u64(x, &b->adb_block_count) &&
	       xdr_dec_u64(x, &b->adb_reloff_blocknum) &&
	       xdr_dec_u32(x, &b->adb_block_num) &&
	       xdr_dec_u64(x, &b->adb_reloff_pattern) &&
	       nfs4_dec_opaque(x, &b->adb_pattern, UINT32_MAX) &&
	       nfs4_dec_opaque(x, &b->adb_data, UINT32_MAX);
}

static bool nfs4_dec_LAYOUTERROR4args(struct xdr_buf *x, void *p)
{
	struct LAYOUTERROR4args *a = p;

	if (!xdr_dec_u64(x, &a->lea_offset) ||
	    !xdr_dec_u64(x, &a->lea_length) ||
	    !nfs4_dec_stateid4(x, &a->lea_stateid) ||
	    !xdr_dec_u32(x, &a->lea_errors_len))
		return false;
	/* device_error4: deviceid4, de_status, de_opnum = 24 bytes */
	if (a->lea_errors_len > LAYOUTERROR_MAX_ERRORS ||
	    a->lea_errors_len > xdr_remaining(x) / 24) {
		xdr_poison(x);
		return false;
	}
	return a->lea_errors_len == 0 ||
	       xdr_inline(x, (size_t)a->lea_errors_len * 24) != NULL;
}

static bool nfs4_dec_io_info4(struct xdr_buf *x, struct io_info4 *i)
{
	return xdr_dec_u64(x, &i->ii_count) && xdr_dec_u64(x, &i->ii_bytes);
}

static bool nfs4_dec_LAYOUTSTATS4args(struct xdr_buf *x, void *p)
{
	struct LAYOUTSTATS4args *a = p;

	return xdr_dec_u64(x, &a->lsa_offset) &&
	       xdr_dec_u64(x, &a->lsa_length) &&
	       nfs4_dec_stateid4(x, &a->lsa_stateid) &&
	       nfs4_dec_io_info4(x, &a->lsa_read) &&
	       nfs4_dec_io_info4(x, &a->lsa_write) &&
	       xdr_dec_opaque_fixed(x, a->lsa_deviceid, NFS4_DEVICEID4_SIZE) &&
	       xdr_dec_u32(x, &a->lou_type) &&
	       nfs4_dec_opaque(x, &a->lou_body, UINT32_MAX);
}

const struct nfs4_op nfs4_op_desc_write_same = {
	.name = "WRITE_SAME",
	.minor_min = 2,
	.minor_max = 255,
	.flags = NFS4_OP_NEEDS_FH | NFS4_OP_MODIFIES,
	.args_size = sizeof(struct WRITE_SAME4args),
	.res_size = 0,
	.decode = nfs4_dec_WRITE_SAME4args,
	.handle = nfs4_op_notsupp,
};

const struct nfs4_op nfs4_op_desc_layouterror = {
	.name = "LAYOUTERROR",
	.minor_min = 2,
	.minor_max = 255,
	.flags = NFS4_OP_NEEDS_FH,
	.args_size = sizeof(struct LAYOUTERROR4args),
	.res_size = 0,
	.decode = nfs4_dec_LAYOUTERROR4args,
	.handle = nfs4_op_notsupp,
};

const struct nfs4_op nfs4_op_desc_layoutstats = {
	.name = "LAYOUTSTATS",
	.minor_min = 2,
	.minor_max = 255,
	.flags = NFS4_OP_NEEDS_FH,
	.args_size = sizeof(struct LAYOUTSTATS4args),
	.res_size = 0,
	.decode = nfs4_dec_LAYOUTSTATS4args,
	.handle = nfs4_op_notsupp,
};
