// SPDX-License-Identifier: MIT
/*
 * The NFSv4.0 and 4.1 operations nasd answers with NFS4ERR_NOTSUPP, each
 * a decision written down here rather than a hole in the op table:
 *
 * - OPENATTR (RFC 8881 §18.17): no named attributes (named_attr is
 *   false).
 * - GETDEVICEINFO, GETDEVICELIST, LAYOUTCOMMIT, LAYOUTGET, LAYOUTRETURN
 *   (§18.40-§18.44): no pNFS; no layout type is offered, fs_layout_types
 *   is empty.
 * - GET_DIR_DELEGATION (§18.39): no directory delegations.
 * - SET_SSV (§18.47): EXCHANGE_ID offers no SP4_SSV state protection,
 *   so there is no SSV to set.
 *
 * NOTSUPP ends the COMPOUND, so none of their arguments are decoded. The
 * first group still goes through COMPOUND's prechecks (a current
 * filehandle, SEQUENCE first in 4.1) before its handler says NOTSUPP;
 * the delegation and SSV operations have no handler and are answered
 * NOTSUPP before any check (compound_step()), as they always were.
 */

#include "nfs4/nfs4_int.h"

/** nfs4_op_notsupp() - NFS4ERR_NOTSUPP; see compound.h. */
uint32_t nfs4_op_notsupp(struct nfs4_compound *c, void *args, void *res)
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

/* No handler: NOTSUPP before any precheck, so no flags either. */
const struct nfs4_op nfs4_op_desc_get_dir_delegation = {
	.name = "GET_DIR_DELEGATION",
	.minor_min = 1,
	.minor_max = 255,
	.flags = 0,
	.handle = NULL,
};

const struct nfs4_op nfs4_op_desc_set_ssv = {
	.name = "SET_SSV",
	.minor_min = 1,
	.minor_max = 255,
	.flags = 0,
	.handle = NULL,
};

