// SPDX-License-Identifier: MIT
/*
 * Operations nasd answers with NFS4ERR_NOTSUPP (RFC 8881 §18.17 OPENATTR:
 * no named attributes; §18.40-§18.44 pNFS device and layout operations:
 * no layout types are offered, fs_layout_type is empty). NOTSUPP ends
 * the COMPOUND, so their arguments need no decoding.
 */

#include "nfs4/nfs4_int.h"

static uint32_t nfs4_op_notsupp(struct nfs4_compound *c, void *args,
				void *res)
{
	return NFS4ERR_NOTSUPP;
}

const struct nfs4_op nfs4_op_desc_openattr = {
	.name = "OPENATTR",
	.minor_min = 0,
	.minor_max = 255,
	.flags = NFS4_OP_NEEDS_FH,
	.handle = nfs4_op_notsupp,
};

const struct nfs4_op nfs4_op_desc_getdeviceinfo = {
	.name = "GETDEVICEINFO",
	.minor_min = 1,
	.minor_max = 255,
	.flags = 0,
	.handle = nfs4_op_notsupp,
};

const struct nfs4_op nfs4_op_desc_getdevicelist = {
	.name = "GETDEVICELIST",
	.minor_min = 1,
	.minor_max = 255,
	.flags = NFS4_OP_NEEDS_FH,
	.handle = nfs4_op_notsupp,
};

const struct nfs4_op nfs4_op_desc_layoutcommit = {
	.name = "LAYOUTCOMMIT",
	.minor_min = 1,
	.minor_max = 255,
	.flags = NFS4_OP_NEEDS_FH,
	.handle = nfs4_op_notsupp,
};

const struct nfs4_op nfs4_op_desc_layoutget = {
	.name = "LAYOUTGET",
	.minor_min = 1,
	.minor_max = 255,
	.flags = NFS4_OP_NEEDS_FH,
	.handle = nfs4_op_notsupp,
};

const struct nfs4_op nfs4_op_desc_layoutreturn = {
	.name = "LAYOUTRETURN",
	.minor_min = 1,
	.minor_max = 255,
	.flags = NFS4_OP_NEEDS_FH,
	.handle = nfs4_op_notsupp,
};
