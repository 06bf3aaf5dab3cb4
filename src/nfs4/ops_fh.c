// SPDX-License-Identifier: MIT
/*
 * Filehandle operations (RFC 8881 §18.19-§18.22, §18.27, §18.28, §18.8):
 * PUTFH, PUTPUBFH, PUTROOTFH, GETFH, SAVEFH, RESTOREFH.
 */

#include "nfs4/nfs4_int.h"
#include "nfs4/ops.h"
#include "nfs4/pseudo.h"

/** nfs4_op_putfh() - RFC 8881 §18.19: the current fh from the wire. */
static uint32_t nfs4_op_putfh(struct nfs4_compound *c, void *args, void *res)
{
	const struct PUTFH4args *a = args;

	return nfs4_fh_put_wire(c, &a->object);
}

/*
 * nfs4_op_putrootfh() - RFC 8881 §18.21: the pseudo-fs root, or the root
 * of an export placed at "/" when this client may use it.
 */
static uint32_t nfs4_op_putrootfh(struct nfs4_compound *c, void *args,
				  void *res)
{
	struct nfs4_pseudo *p = nfs4_compound_pseudo(c);
	struct nfs4_pseudo_node *root;
	struct export *e;

	if (!p)
		return NFS4ERR_DELAY;
	root = nfs4_pseudo_root(p);
	e = nfs4_pseudo_export(root);
	if (e && nfs4_fh_set_export_root(c, OP_PUTROOTFH, &c->cur, e) ==
			 NFS4_OK)
		return NFS4_OK;
	nfs4_fh_set_pseudo(&c->cur, root);
	return NFS4_OK;
}

/* nfs4_op_putpubfh() - RFC 8881 §18.20: nasd's public fh is the root. */
static uint32_t nfs4_op_putpubfh(struct nfs4_compound *c, void *args,
				 void *res)
{
	return nfs4_op_putrootfh(c, args, res);
}

/* nfs4_op_getfh() - RFC 8881 §18.8: the current fh's wire handle. */
static uint32_t nfs4_op_getfh(struct nfs4_compound *c, void *args, void *res)
{
	struct GETFH4resok *r = res;
	int err = nfs4_fh_of(&c->cur, &r->object);

	return err ? nfs4_status(OP_GETFH, err) : NFS4_OK;
}

/* nfs4_op_savefh() - RFC 8881 §18.28. */
static uint32_t nfs4_op_savefh(struct nfs4_compound *c, void *args, void *res)
{
	nfs4_fh_copy(&c->saved, &c->cur);
	return NFS4_OK;
}

/* nfs4_op_restorefh() - RFC 8881 §18.27: RESTOREFH without a saved fh. */
static uint32_t nfs4_op_restorefh(struct nfs4_compound *c, void *args,
				  void *res)
{
	if (!c->saved.set)
		return NFS4ERR_RESTOREFH;
	nfs4_fh_copy(&c->cur, &c->saved);
	return NFS4_OK;
}

const struct nfs4_op nfs4_op_desc_putfh = {
	.name = "PUTFH",
	.minor_min = 0,
	.minor_max = 255,
	.flags = 0,
	.args_size = sizeof(struct PUTFH4args),
	.res_size = 0,
	.decode = nfs4_dec_PUTFH4args,
	.handle = nfs4_op_putfh,
};

const struct nfs4_op nfs4_op_desc_putpubfh = {
	.name = "PUTPUBFH",
	.minor_min = 0,
	.minor_max = 255,
	.flags = 0,
	.handle = nfs4_op_putpubfh,
};

const struct nfs4_op nfs4_op_desc_putrootfh = {
	.name = "PUTROOTFH",
	.minor_min = 0,
	.minor_max = 255,
	.flags = 0,
	.handle = nfs4_op_putrootfh,
};

const struct nfs4_op nfs4_op_desc_getfh = {
	.name = "GETFH",
	.minor_min = 0,
	.minor_max = 255,
	.flags = NFS4_OP_NEEDS_FH,
	.res_size = sizeof(struct GETFH4resok),
	.handle = nfs4_op_getfh,
	.encode = nfs4_enc_GETFH4resok,
};

const struct nfs4_op nfs4_op_desc_savefh = {
	.name = "SAVEFH",
	.minor_min = 0,
	.minor_max = 255,
	.flags = NFS4_OP_NEEDS_FH,
	.handle = nfs4_op_savefh,
};

const struct nfs4_op nfs4_op_desc_restorefh = {
	.name = "RESTOREFH",
	.minor_min = 0,
	.minor_max = 255,
	.flags = 0,
	.handle = nfs4_op_restorefh,
};
