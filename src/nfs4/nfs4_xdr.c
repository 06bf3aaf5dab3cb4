// SPDX-License-Identifier: MIT
/*
 * NFSv4 XDR (RFC 7531, RFC 5662, RFC 7863): the shared types and the
 * arguments/results of the namespace, attribute and I/O operations. Every
 * decoder checks each length against the protocol limit and the bytes
 * left before using it; strings and opaques are borrowed.
 */

#include "nfs4/nfs4_int.h"
#include "nfs4/ops.h"

bool nfs4_dec_stateid4(struct xdr_buf *x, struct stateid4 *s)
{
	return xdr_dec_u32(x, &s->seqid) &&
	       xdr_dec_opaque_fixed(x, s->other, NFS4_OTHER_SIZE);
}

bool nfs4_enc_stateid4(struct xdr_buf *x, const struct stateid4 *s)
{
	return xdr_enc_u32(x, s->seqid) &&
	       xdr_enc_opaque_fixed(x, s->other, NFS4_OTHER_SIZE);
}

bool nfs4_dec_nfs_fh4(struct xdr_buf *x, struct nfs_fh4 *fh)
{
	const uint8_t *p;
	uint32_t len;

	if (!xdr_dec_opaque_ref(x, &p, &len, NFS4_FHSIZE))
		return false;
	fh->len = len;
	memcpy(fh->data, p, len);
	return true;
}

bool nfs4_enc_nfs_fh4(struct xdr_buf *x, const struct nfs_fh4 *fh)
{
	if (fh->len > NFS4_FHSIZE)
		return false;
	return xdr_enc_opaque(x, fh->data, fh->len);
}

bool nfs4_dec_verifier4(struct xdr_buf *x, struct verifier4 *v)
{
	return xdr_dec_opaque_fixed(x, v->data, NFS4_VERIFIER_SIZE);
}

bool nfs4_enc_verifier4(struct xdr_buf *x, const struct verifier4 *v)
{
	return xdr_enc_opaque_fixed(x, v->data, NFS4_VERIFIER_SIZE);
}

bool nfs4_dec_nfstime4(struct xdr_buf *x, struct nfstime4 *t)
{
	uint64_t s;

	if (!xdr_dec_u64(x, &s) || !xdr_dec_u32(x, &t->nseconds))
		return false;
	t->seconds = (int64_t)s;
	return true;
}

bool nfs4_enc_nfstime4(struct xdr_buf *x, const struct nfstime4 *t)
{
	return xdr_enc_u64(x, (uint64_t)t->seconds) &&
	       xdr_enc_u32(x, t->nseconds);
}

bool nfs4_dec_opaque(struct xdr_buf *x, struct nfs4_opaque *o, uint32_t max)
{
	return xdr_dec_opaque_ref(x, &o->data, &o->len, max);
}

/*
 * component4 is utf8str_cs, unbounded in the XDR (RFC 8881 §3.2): any
 * length the record holds decodes, and the operation answers a name
 * longer than the filesystem takes NAMETOOLONG (nfs4_name_check).
 */
bool nfs4_dec_component4(struct xdr_buf *x, struct nfs4_opaque *name)
{
	return nfs4_dec_opaque(x, name, UINT32_MAX);
}

/*
 * bitmap4 is uint32_t<>: words past what nasd knows are read and only
 * remembered as "something beyond was set". The count is bounded by the
 * bytes left, so a huge count fails without a long loop.
 */
bool nfs4_dec_bitmap4(struct xdr_buf *x, struct bitmap4 *b)
{
	uint32_t n, i, w;

	memset(b, 0, sizeof(*b));
	if (!xdr_dec_u32(x, &n))
		return false;
	if (n > xdr_remaining(x) / 4) {
		xdr_poison(x);
		return false;
	}
	for (i = 0; i < n; i++) {
		if (!xdr_dec_u32(x, &w))
			return false;
		if (i < NFS4_BITMAP_WORDS)
			b->map[i] = w;
		else if (w)
			b->beyond = true;
	}
	b->len = n < NFS4_BITMAP_WORDS ? n : NFS4_BITMAP_WORDS;
	return true;
}

/* Trailing zero words are not sent (RFC 8881 §3.3.10 allows either). */
bool nfs4_enc_bitmap4(struct xdr_buf *x, const struct bitmap4 *b)
{
	uint32_t n = b->len < NFS4_BITMAP_WORDS ? b->len : NFS4_BITMAP_WORDS;
	uint32_t i;

	while (n > 0 && b->map[n - 1] == 0)
		n--;
	if (!xdr_enc_u32(x, n))
		return false;
	for (i = 0; i < n; i++)
		if (!xdr_enc_u32(x, b->map[i]))
			return false;
	return true;
}

bool nfs4_dec_fattr4(struct xdr_buf *x, struct fattr4 *f)
{
	/* attrlist4 can be no longer than the request itself. */
	return nfs4_dec_bitmap4(x, &f->attrmask) &&
	       nfs4_dec_opaque(x, &f->attr_vals, UINT32_MAX);
}

bool nfs4_enc_change_info4(struct xdr_buf *x, const struct change_info4 *ci)
{
	return xdr_enc_bool(x, ci->atomic) && xdr_enc_u64(x, ci->before) &&
	       xdr_enc_u64(x, ci->after);
}

/* ---- RFC 8881 §18: the operations of this module ---- */

bool nfs4_dec_ACCESS4args(struct xdr_buf *x, void *args)
{
	struct ACCESS4args *a = args;

	return xdr_dec_u32(x, &a->access);
}

bool nfs4_enc_ACCESS4resok(struct xdr_buf *x, uint32_t st, const void *res)
{
	const struct ACCESS4resok *r = res;

	return xdr_enc_u32(x, r->supported) && xdr_enc_u32(x, r->access);
}

bool nfs4_dec_COMMIT4args(struct xdr_buf *x, void *args)
{
	struct COMMIT4args *a = args;

	return xdr_dec_u64(x, &a->offset) && xdr_dec_u32(x, &a->count);
}

bool nfs4_enc_COMMIT4resok(struct xdr_buf *x, uint32_t st, const void *res)
{
	const struct COMMIT4resok *r = res;

	return nfs4_enc_verifier4(x, &r->writeverf);
}

static bool dec_createtype4(struct xdr_buf *x, struct createtype4 *t)
{
	if (!xdr_dec_u32(x, &t->type))
		return false;
	switch (t->type) {
	case NF4LNK:
		/* linktext4 is a utf8str_cs; a path, so bounded by PATH_MAX */
		return nfs4_dec_opaque(x, &t->linkdata, VFS_PATH_MAX);
	case NF4BLK:
	case NF4CHR:
		return xdr_dec_u32(x, &t->specdata1) &&
		       xdr_dec_u32(x, &t->specdata2);
	default:
		/* void arms; an unknown type is the handler's BADTYPE */
		return true;
	}
}

bool nfs4_dec_CREATE4args(struct xdr_buf *x, void *args)
{
	struct CREATE4args *a = args;

	return dec_createtype4(x, &a->objtype) &&
	       nfs4_dec_component4(x, &a->objname) &&
	       nfs4_dec_fattr4(x, &a->createattrs);
}

bool nfs4_enc_CREATE4resok(struct xdr_buf *x, uint32_t st, const void *res)
{
	const struct CREATE4resok *r = res;

	return nfs4_enc_change_info4(x, &r->cinfo) &&
	       nfs4_enc_bitmap4(x, &r->attrset);
}

bool nfs4_dec_GETATTR4args(struct xdr_buf *x, void *args)
{
	struct GETATTR4args *a = args;

	return nfs4_dec_bitmap4(x, &a->attr_request);
}

bool nfs4_enc_GETATTR4resok(struct xdr_buf *x, uint32_t st,
			    const void *res)
{
	const struct GETATTR4resok *r = res;

	return nfs4_enc_fattr4(x, &r->attr_request, &r->src);
}

bool nfs4_enc_GETFH4resok(struct xdr_buf *x, uint32_t st, const void *res)
{
	const struct GETFH4resok *r = res;

	return nfs4_enc_nfs_fh4(x, &r->object);
}

bool nfs4_dec_LINK4args(struct xdr_buf *x, void *args)
{
	struct LINK4args *a = args;

	return nfs4_dec_component4(x, &a->newname);
}

bool nfs4_enc_LINK4resok(struct xdr_buf *x, uint32_t st, const void *res)
{
	const struct LINK4resok *r = res;

	return nfs4_enc_change_info4(x, &r->cinfo);
}

bool nfs4_dec_LOOKUP4args(struct xdr_buf *x, void *args)
{
	struct LOOKUP4args *a = args;

	return nfs4_dec_component4(x, &a->objname);
}

bool nfs4_dec_VERIFY4args(struct xdr_buf *x, void *args)
{
	struct VERIFY4args *a = args;

	return nfs4_dec_fattr4(x, &a->obj_attributes);
}

bool nfs4_dec_PUTFH4args(struct xdr_buf *x, void *args)
{
	struct PUTFH4args *a = args;

	return nfs4_dec_nfs_fh4(x, &a->object);
}

bool nfs4_dec_READ4args(struct xdr_buf *x, void *args)
{
	struct READ4args *a = args;

	return nfs4_dec_stateid4(x, &a->stateid) &&
	       xdr_dec_u64(x, &a->offset) && xdr_dec_u32(x, &a->count);
}

bool nfs4_enc_READ4resok(struct xdr_buf *x, uint32_t st, const void *res)
{
	const struct READ4resok *r = res;

	if (!xdr_enc_bool(x, r->eof))
		return false;
	/* data<>: as the reply's payload, only its length here */
	if (r->in_payload)
		return xdr_enc_u32(x, r->len);
	return xdr_enc_opaque(x, r->data.data, r->len);
}

bool nfs4_dec_READDIR4args(struct xdr_buf *x, void *args)
{
	struct READDIR4args *a = args;

	return xdr_dec_u64(x, &a->cookie) &&
	       nfs4_dec_verifier4(x, &a->cookieverf) &&
	       xdr_dec_u32(x, &a->dircount) && xdr_dec_u32(x, &a->maxcount) &&
	       nfs4_dec_bitmap4(x, &a->attr_request);
}

/* dirlist4: the entries are pre-encoded by the handler (it must measure
 * them against maxcount); here only the list end and eof. */
bool nfs4_enc_READDIR4resok(struct xdr_buf *x, uint32_t st,
			    const void *res)
{
	const struct READDIR4resok *r = res;

	return nfs4_enc_verifier4(x, &r->cookieverf) &&
	       xdr_enc_opaque_fixed(x, r->entries, r->len) &&
	       xdr_enc_bool(x, false) && xdr_enc_bool(x, r->eof);
}

bool nfs4_enc_READLINK4resok(struct xdr_buf *x, uint32_t st,
			     const void *res)
{
	const struct READLINK4resok *r = res;

	return xdr_enc_opaque(x, r->link, r->len);
}

bool nfs4_dec_REMOVE4args(struct xdr_buf *x, void *args)
{
	struct REMOVE4args *a = args;

	return nfs4_dec_component4(x, &a->target);
}

bool nfs4_enc_REMOVE4resok(struct xdr_buf *x, uint32_t st, const void *res)
{
	const struct REMOVE4resok *r = res;

	return nfs4_enc_change_info4(x, &r->cinfo);
}

bool nfs4_dec_RENAME4args(struct xdr_buf *x, void *args)
{
	struct RENAME4args *a = args;

	return nfs4_dec_component4(x, &a->oldname) &&
	       nfs4_dec_component4(x, &a->newname);
}

bool nfs4_enc_RENAME4resok(struct xdr_buf *x, uint32_t st, const void *res)
{
	const struct RENAME4resok *r = res;

	return nfs4_enc_change_info4(x, &r->source_cinfo) &&
	       nfs4_enc_change_info4(x, &r->target_cinfo);
}

bool nfs4_dec_SECINFO4args(struct xdr_buf *x, void *args)
{
	struct SECINFO4args *a = args;

	return nfs4_dec_component4(x, &a->name);
}

bool nfs4_dec_SECINFO_NO_NAME4args(struct xdr_buf *x, void *args)
{
	struct SECINFO_NO_NAME4args *a = args;

	/* secinfo_style4 has two values; anything else is not XDR */
	return xdr_dec_u32(x, &a->style) &&
	       a->style <= SECINFO_STYLE4_PARENT;
}

/* SECINFO4resok: secinfo4<>, flavors without rpcsec_gss_info. */
bool nfs4_enc_SECINFO4resok(struct xdr_buf *x, uint32_t st,
			    const void *res)
{
	const struct SECINFO4resok *r = res;
	uint32_t i;

	if (r->count > 2 || !xdr_enc_u32(x, r->count))
		return false;
	for (i = 0; i < r->count; i++)
		if (!xdr_enc_u32(x, r->flavors[i]))
			return false;
	return true;
}

bool nfs4_dec_SETATTR4args(struct xdr_buf *x, void *args)
{
	struct SETATTR4args *a = args;

	return nfs4_dec_stateid4(x, &a->stateid) &&
	       nfs4_dec_fattr4(x, &a->obj_attributes);
}

bool nfs4_enc_SETATTR4res(struct xdr_buf *x, uint32_t st, const void *res)
{
	const struct SETATTR4res *r = res;

	return nfs4_enc_bitmap4(x, &r->attrsset);
}

bool nfs4_dec_WRITE4args(struct xdr_buf *x, void *args)
{
	struct WRITE4args *a = args;

	/* stable_how4: UNSTABLE4, DATA_SYNC4, FILE_SYNC4 */
	return nfs4_dec_stateid4(x, &a->stateid) &&
	       xdr_dec_u64(x, &a->offset) && xdr_dec_u32(x, &a->stable) &&
	       a->stable <= 2 &&
	       xdr_dec_opaque_ref(x, &a->data, &a->len, NFS4_IO_MAX);
}

bool nfs4_enc_WRITE4resok(struct xdr_buf *x, uint32_t st, const void *res)
{
	const struct WRITE4resok *r = res;

	return xdr_enc_u32(x, r->count) && xdr_enc_u32(x, r->committed) &&
	       nfs4_enc_verifier4(x, &r->writeverf);
}
