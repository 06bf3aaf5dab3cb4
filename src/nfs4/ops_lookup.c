// SPDX-License-Identifier: MIT
/*
 * Name resolution (RFC 8881 §18.15 LOOKUP, §18.16 LOOKUPP, §18.29
 * SECINFO, §18.45 SECINFO_NO_NAME), across the pseudo-fs and its
 * junctions into exports.
 */

#include "nfs4/nfs4_int.h"
#include "nfs4/ops.h"
#include "nfs4/pseudo.h"

static const struct sockaddr *peer_of(const struct nfs4_compound *c)
{
	return rpc_call_peer(c->call);
}

/* The status of a lookup in a non-directory: SYMLINK or NOTDIR. */
static uint32_t not_dir_status(struct nfs4_compound *c, uint32_t op)
{
	struct vfs_attr va;

	if (!c->cur.pseudo && !vfs_getattr(c->cur.obj, &va) &&
	    va.type == VFS_LNK)
		return nfs4_status(op, -ELOOP);
	return nfs4_status(op, -ENOTDIR);
}

/*
 * Resolve @name from the current fh into @out (not touching c->cur).
 * Returns NFS4_OK or the status for @op.
 */
static uint32_t lookup_name(struct nfs4_compound *c, uint32_t op,
			    const struct nfs4_opaque *name, struct nfs4_fh *out)
{
	struct nfs4_pseudo_node *child;
	struct vfs_obj *o;
	struct export *e;
	uint32_t st;
	int err;

	err = nfs4_name_check(name);
	if (err)
		return nfs4_status(op, err);
	if (c->cur.pseudo) {
		err = nfs4_pseudo_lookup(c->cur.pseudo,
					 (const char *)name->data, name->len,
					 peer_of(c), &child);
		if (err)
			return nfs4_status(op, err);
		e = nfs4_pseudo_export(child);
		if (e) {
			st = nfs4_fh_set_export_root(c, op, out, e);
			/* not admitted here but to an export below it:
			 * the node stays a pseudo directory */
			if (st != NFS4ERR_NOENT)
				return st;
		}
		nfs4_fh_set_pseudo(out, child);
		return NFS4_OK;
	}
	err = vfs_lookup(c->cur.obj, (const char *)name->data, name->len, &o);
	if (err == -ENOTDIR)
		return not_dir_status(c, op);
	/* a mount point inside an export: exports do not cross mounts */
	if (err == -EXDEV)
		err = -ENOENT;
	if (err)
		return nfs4_status(op, err);
	nfs4_fh_set_obj(out, c->cur.export, c->cur.opts, o);
	return NFS4_OK;
}

/* nfs4_op_lookup() - RFC 8881 §18.15. */
static uint32_t nfs4_op_lookup(struct nfs4_compound *c, void *args,
			       void *res)
{
	const struct LOOKUP4args *a = args;
	struct nfs4_fh fh = {0};
	uint32_t st;

	st = lookup_name(c, OP_LOOKUP, &a->objname, &fh);
	if (st == NFS4_OK) {
		nfs4_fh_clear(&c->cur);
		c->cur = fh;  /* the reference moves */
	}
	return st;
}

/*
 * nfs4_op_lookupp() - RFC 8881 §18.16: the parent; from an export root
 * back into the pseudo-fs, NOENT above the root.
 */
static uint32_t nfs4_op_lookupp(struct nfs4_compound *c, void *args,
				void *res)
{
	struct nfs4_pseudo_node *n, *parent;
	struct nfs4_pseudo *p;
	struct vfs_obj *o;
	int err;

	if (c->cur.pseudo) {
		parent = nfs4_pseudo_parent(c->cur.pseudo);
		if (!parent)
			return NFS4ERR_NOENT;
		nfs4_fh_set_pseudo(&c->cur, parent);
		return NFS4_OK;
	}
	if (vfs_obj_is_root(c->cur.obj)) {
		p = nfs4_compound_pseudo(c);
		if (!p)
			return NFS4ERR_DELAY;
		n = nfs4_pseudo_of_export(p, c->cur.export);
		parent = n ? nfs4_pseudo_parent(n) : NULL;
		if (!parent)
			return NFS4ERR_NOENT;
		nfs4_fh_set_pseudo(&c->cur, parent);
		return NFS4_OK;
	}
	err = vfs_lookup(c->cur.obj, "..", 2, &o);
	if (err == -ENOTDIR)
		return not_dir_status(c, OP_LOOKUPP);
	if (err)
		return nfs4_status(OP_LOOKUPP, err);
	nfs4_fh_set_obj(&c->cur, c->cur.export, c->cur.opts, o);
	return NFS4_OK;
}

/* The flavors nasd accepts, strongest first (no RPCSEC_GSS yet). */
static void secinfo_flavors(struct SECINFO4resok *r)
{
	r->count = 2;
	r->flavors[0] = AUTH_SYS;
	r->flavors[1] = AUTH_NONE;
}

/*
 * nfs4_op_secinfo() - RFC 8881 §18.29: the flavors for @name in the
 * current directory; in 4.1+ the current fh is consumed (§2.6.3.1.1.8).
 */
static uint32_t nfs4_op_secinfo(struct nfs4_compound *c, void *args,
				void *res)
{
	const struct SECINFO4args *a = args;
	struct nfs4_fh fh = {0};
	uint32_t st;

	st = lookup_name(c, OP_SECINFO, &a->name, &fh);
	nfs4_fh_clear(&fh);
	if (st != NFS4_OK)
		return st;
	secinfo_flavors(res);
	if (c->minorversion >= 1)
		nfs4_fh_clear(&c->cur);
	return NFS4_OK;
}

/*
 * nfs4_op_secinfo_no_name() - RFC 8881 §18.45: the flavors for the
 * current fh or its parent; the current fh is consumed.
 */
static uint32_t nfs4_op_secinfo_no_name(struct nfs4_compound *c, void *args,
					void *res)
{
	const struct SECINFO_NO_NAME4args *a = args;

	if (a->style == SECINFO_STYLE4_PARENT && c->cur.pseudo &&
	    !nfs4_pseudo_parent(c->cur.pseudo))
		return NFS4ERR_NOENT;
	secinfo_flavors(res);
	nfs4_fh_clear(&c->cur);
	return NFS4_OK;
}

const struct nfs4_op nfs4_op_desc_lookup = {
	.name = "LOOKUP",
	.minor_min = 0,
	.minor_max = 255,
	.flags = NFS4_OP_NEEDS_FH,
	.args_size = sizeof(struct LOOKUP4args),
	.decode = nfs4_dec_LOOKUP4args,
	.handle = nfs4_op_lookup,
};

const struct nfs4_op nfs4_op_desc_lookupp = {
	.name = "LOOKUPP",
	.minor_min = 0,
	.minor_max = 255,
	.flags = NFS4_OP_NEEDS_FH,
	.handle = nfs4_op_lookupp,
};

const struct nfs4_op nfs4_op_desc_secinfo = {
	.name = "SECINFO",
	.minor_min = 0,
	.minor_max = 255,
	.flags = NFS4_OP_NEEDS_FH,
	.args_size = sizeof(struct SECINFO4args),
	.res_size = sizeof(struct SECINFO4resok),
	.decode = nfs4_dec_SECINFO4args,
	.handle = nfs4_op_secinfo,
	.encode = nfs4_enc_SECINFO4resok,
};

const struct nfs4_op nfs4_op_desc_secinfo_no_name = {
	.name = "SECINFO_NO_NAME",
	.minor_min = 1,
	.minor_max = 255,
	.flags = NFS4_OP_NEEDS_FH,
	.args_size = sizeof(struct SECINFO_NO_NAME4args),
	.res_size = sizeof(struct SECINFO4resok),
	.decode = nfs4_dec_SECINFO_NO_NAME4args,
	.handle = nfs4_op_secinfo_no_name,
	.encode = nfs4_enc_SECINFO4resok,
};
