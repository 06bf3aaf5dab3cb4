// SPDX-License-Identifier: MIT
/*
 * READDIR (RFC 8881 §18.23): entries with the requested attributes per
 * entry (rdattr_error for entries whose attributes cannot be read), within
 * maxcount bytes of READDIR4resok and about dircount bytes of names and
 * cookies. "." and ".." are never returned. NFSv4 reserves cookies 1 and
 * 2, so a vfs cookie c travels as c + 2; pseudo-fs directories use
 * index + 3.
 */

#include <string.h>

#include "nfs4/nfs4_int.h"
#include "nfs4/ops.h"
#include "nfs4/pseudo.h"

#define COOKIE_BIAS 2
#define ENTRY_MIN 28          /* value_follows, cookie, name<4>, fattr4 */
#define ENTRIES_MAX 4096      /* gathered per call at most */
#define RESOK_FIXED 16        /* cookieverf, list end, eof */

struct rd_entry {
	char *name;
	uint32_t namelen;
	uint64_t cookie;          /* the NFSv4 cookie of the next entry */
	uint64_t fileid;
	enum vfs_ftype type;
};

struct rd_gather {
	struct rpc_call *call;
	struct rd_entry *ents;
	uint32_t n;
	uint32_t max;
	int err;
};

static bool rd_emit(void *ctx, const struct vfs_dirent *de)
{
	struct rd_gather *g = ctx;
	struct rd_entry *e;

	if ((de->namelen == 1 && de->name[0] == '.') ||
	    (de->namelen == 2 && de->name[0] == '.' && de->name[1] == '.'))
		return true;
	if (g->n == g->max)
		return false;
	if (de->cookie > UINT64_MAX - COOKIE_BIAS) {
		g->err = -EIO;
		return false;
	}
	e = &g->ents[g->n];
	e->name = rpc_call_alloc(g->call, de->namelen + 1);
	if (!e->name) {
		g->err = -ENOMEM;
		return false;
	}
	memcpy(e->name, de->name, de->namelen);
	e->namelen = (uint32_t)de->namelen;
	e->cookie = de->cookie + COOKIE_BIAS;
	e->fileid = de->fileid;
	e->type = de->type;
	g->n++;
	return true;
}

/* Attributes a dirent alone answers (no lookup needed). */
static bool req_from_dirent(const struct bitmap4 *req)
{
	struct bitmap4 cheap = {0};
	uint32_t i;

	nfs4_bitmap_set(&cheap, FATTR4_TYPE);
	nfs4_bitmap_set(&cheap, FATTR4_FILEID);
	nfs4_bitmap_set(&cheap, FATTR4_MOUNTED_ON_FILEID);
	nfs4_bitmap_set(&cheap, FATTR4_RDATTR_ERROR);
	for (i = 0; i < NFS4_BITMAP_WORDS && i < req->len; i++)
		if (req->map[i] & ~cheap.map[i])
			return false;
	return true;
}

/*
 * The attributes of one entry of an export directory into @src. Returns
 * 0, 1 to skip the entry (it vanished, or is a mount point: exports do
 * not cross mounts), or -errno for the whole READDIR.
 */
static int rd_entry_attrs(struct nfs4_compound *c, const struct bitmap4 *req,
			  const struct rd_entry *e, struct nfs4_attr_src *src)
{
	struct nfs4_fh fh = {0};
	struct vfs_obj *o;
	int err;

	memset(src, 0, sizeof(*src));
	src->minorversion = c->minorversion;
	if (req_from_dirent(req)) {
		src->va.type = e->type;
		src->va.fileid = e->fileid;
		src->mounted_on_fileid = e->fileid;
		return 0;
	}
	err = vfs_lookup(c->cur.obj, e->name, e->namelen, &o);
	if (err == -ENOENT || err == -EXDEV)
		return 1;
	if (!err) {
		nfs4_fh_set_obj(&fh, c->cur.export, c->cur.opts, o);
		err = nfs4_attr_fill(c, &fh, req, src);
		nfs4_fh_clear(&fh);
	}
	if (err == -ENOENT || err == -ESTALE)
		return 1;
	if (err) {
		if (!nfs4_bitmap_isset(req, FATTR4_RDATTR_ERROR))
			return err;
		memset(src, 0, sizeof(*src));
		src->minorversion = c->minorversion;
		src->rdattr_error = nfs4_status(OP_LOOKUP, err);
		src->mounted_on_fileid = e->fileid;
	}
	return 0;
}

static bool enc_entry(struct xdr_buf *x, const struct rd_entry *e,
		      const struct bitmap4 *req,
		      const struct nfs4_attr_src *src)
{
	return xdr_enc_bool(x, true) && xdr_enc_u64(x, e->cookie) &&
	       xdr_enc_opaque(x, e->name, e->namelen) &&
	       nfs4_enc_fattr4(x, req, src);
}

/* The attributes of a pseudo-fs entry: a junction shows the export's
 * root (mounted on the node), other nodes their synthesised ones. */
static int rd_pseudo_attrs(struct nfs4_compound *c, const struct bitmap4 *req,
			   struct nfs4_pseudo_node *n,
			   struct nfs4_attr_src *src)
{
	struct export *e = nfs4_pseudo_export(n);
	struct nfs4_fh fh = {0};
	int err;

	if (e && nfs4_fh_set_export_root(c, OP_READDIR, &fh, e) == NFS4_OK) {
		err = nfs4_attr_fill(c, &fh, req, src);
		nfs4_fh_clear(&fh);
		if (!err)
			src->mounted_on_fileid = nfs4_pseudo_fileid(n);
		return err;
	}
	nfs4_fh_set_pseudo(&fh, n);
	err = nfs4_attr_fill(c, &fh, req, src);
	nfs4_fh_clear(&fh);
	return err;
}

struct rd_out {
	struct xdr_buf x;
	uint32_t dirbytes;
	uint32_t dircount;
	uint32_t nents;
};

/* Encode one entry if it fits; false when the reply is full. */
static bool rd_put(struct rd_out *o, const struct rd_entry *e,
		   const struct bitmap4 *req, const struct nfs4_attr_src *src)
{
	size_t start = o->x.pos;
	uint32_t dirb = 8 + 4 + e->namelen + (uint32_t)xdr_pad(e->namelen);

	if (o->nents && o->dircount && o->dirbytes + dirb > o->dircount)
		return false;
	if (!enc_entry(&o->x, e, req, src)) {
		o->x.pos = start;
		return false;
	}
	o->dirbytes += dirb;
	o->nents++;
	return true;
}

static uint32_t rd_pseudo(struct nfs4_compound *c, const struct READDIR4args *a,
			  struct rd_out *o, bool *eof)
{
	const struct sockaddr *peer = rpc_call_peer(c->call);
	struct nfs4_attr_src src;
	struct rd_entry e;
	uint32_t i, n = nfs4_pseudo_nchildren(c->cur.pseudo);
	int err;

	*eof = false;
	for (i = a->cookie ? (uint32_t)(a->cookie - 3 + 1) : 0; i < n; i++) {
		struct nfs4_pseudo_node *ch = nfs4_pseudo_child(c->cur.pseudo,
								i);

		if (!nfs4_pseudo_visible(ch, peer))
			continue;
		err = rd_pseudo_attrs(c, &a->attr_request, ch, &src);
		if (err)
			return nfs4_status(OP_READDIR, err);
		e.name = (char *)nfs4_pseudo_name(ch);
		e.namelen = (uint32_t)strlen(e.name);
		e.cookie = (uint64_t)i + 3;
		if (!rd_put(o, &e, &a->attr_request, &src))
			return NFS4_OK;
	}
	*eof = true;
	return NFS4_OK;
}

static uint32_t rd_export(struct nfs4_compound *c, const struct READDIR4args *a,
			  struct rd_out *o, bool *eof)
{
	struct rd_gather g = {.call = c->call};
	struct nfs4_attr_src src;
	bool vfs_eof = false;
	uint32_t i;
	int err;

	*eof = false;
	g.max = (uint32_t)(o->x.len / ENTRY_MIN) + 1;
	if (g.max > ENTRIES_MAX)
		g.max = ENTRIES_MAX;
	g.ents = rpc_call_alloc(c->call, g.max * sizeof(*g.ents));
	if (!g.ents)
		return NFS4ERR_DELAY;
	err = vfs_readdir(c->cur.obj, a->cookie ? a->cookie - COOKIE_BIAS : 0,
			  rd_emit, &g, &vfs_eof);
	if (!err)
		err = g.err;
	if (err)
		return nfs4_status(OP_READDIR, err);
	for (i = 0; i < g.n; i++) {
		err = rd_entry_attrs(c, &a->attr_request, &g.ents[i], &src);
		if (err < 0)
			return nfs4_status(OP_READDIR, err);
		if (err > 0)
			continue;
		if (!rd_put(o, &g.ents[i], &a->attr_request, &src))
			return NFS4_OK;
	}
	*eof = vfs_eof;
	return NFS4_OK;
}

/*
 * nfs4_op_readdir() - RFC 8881 §18.23. Cookie 0 starts; 1 and 2 are never
 * given out (BAD_COOKIE); a cookie with another directory's (or an older)
 * verifier is NOT_SAME; a write-only attribute asked for is INVAL.
 */
static uint32_t nfs4_op_readdir(struct nfs4_compound *c, void *args,
				void *res)
{
	const struct READDIR4args *a = args;
	struct READDIR4resok *r = res;
	struct rd_out o = {.dircount = a->dircount};
	uint64_t verf = 0;
	uint32_t st, budget, room;
	struct vfs_obj *dir;
	uint8_t *buf;
	int i;

	if (a->cookie == 1 || a->cookie == 2)
		return NFS4ERR_BAD_COOKIE;
	/* time_access_set and time_modify_set cannot be read (RFC 8881
	 * §5.6, §18.23.3) */
	if (nfs4_attr_any(&a->attr_request, NFS4_ATTR_WRITE_ONLY))
		return NFS4ERR_INVAL;
	if (!c->cur.pseudo) {
		st = nfs4_cur_dir(c, false, &dir);
		if (st != NFS4_OK)
			return st;
		verf = vfs_dir_verifier(dir);
		for (i = 0; i < 8; i++)
			r->cookieverf.data[i] = (uint8_t)(verf >> (56 - 8 * i));
		if (a->cookie &&
		    memcmp(r->cookieverf.data, a->cookieverf.data, 8) != 0)
			return NFS4ERR_NOT_SAME;
	} else if (a->cookie && a->cookie - 3 >= UINT32_MAX) {
		return NFS4ERR_BAD_COOKIE;
	}
	room = nfs4_compound_room(c);
	budget = a->maxcount < room ? a->maxcount : room;
	/* TOOSMALL only when not even an empty answer fits, or an entry
	 * there is does not (below): an empty directory answers eof in any
	 * room that holds that (RFC 7530 §16.24.4) */
	if (budget < RESOK_FIXED)
		return NFS4ERR_TOOSMALL;
	budget -= RESOK_FIXED;
	buf = rpc_call_alloc(c->call, budget ? budget : 1);
	if (!buf)
		return NFS4ERR_DELAY;
	xdr_init(&o.x, buf, budget);
	if (c->cur.pseudo)
		st = rd_pseudo(c, a, &o, &r->eof);
	else
		st = rd_export(c, a, &o, &r->eof);
	if (st != NFS4_OK)
		return st;
	if (!o.nents && !r->eof)
		return NFS4ERR_TOOSMALL;
	r->entries = buf;
	r->len = (uint32_t)o.x.pos;
	return NFS4_OK;
}

const struct nfs4_op nfs4_op_desc_readdir = {
	.name = "READDIR",
	.minor_min = 0,
	.minor_max = 255,
	.flags = NFS4_OP_NEEDS_FH,
	.args_size = sizeof(struct READDIR4args),
	.res_size = sizeof(struct READDIR4resok),
	.decode = nfs4_dec_READDIR4args,
	.handle = nfs4_op_readdir,
	.encode = nfs4_enc_READDIR4resok,
};
