// SPDX-License-Identifier: MIT
/*
 * NFSv4 COMPOUND (RFC 8881 §16.2, RFC 7530 §16.2): decode each operation,
 * check it against the minor version, the session rules and the current
 * filehandle, run it, encode its result, stop at the first error.
 *
 * The reply is built in a buffer of this module (it grows as results are
 * added, up to the request's reply limit) because the RPC layer sizes its
 * reply buffer before knowing the result; nfs4_enc_COMPOUND4res() then
 * hands that buffer to the RPC layer without copying it.
 */

#include <stdlib.h>
#include <string.h>

#include "core/be.h"
#include "core/log.h"
#include "nfs4/nfs4_int.h"
#include "nfs4/pseudo.h"
#include "nfs4/state/state.h"

#define REPLY_START 4096

/* The growing reply: RPC_REPLY_HDR_MAX bytes of headroom, then the body
 * (COMPOUND4res) encoded through @x. */
struct compound_reply {
	struct rpc_call *call;
	uint8_t *buf;
	size_t cap;          /* body capacity of @buf */
	size_t limit;        /* largest body this request may have */
	struct xdr_buf x;
};

struct COMPOUND4args {
	struct nfs4_opaque tag;
	uint32_t minorversion;
	uint32_t numops;
	struct xdr_buf ops;  /* cursor at argarray[0] */
};

struct COMPOUND4res {
	uint32_t status;     /* first: RPC_PROC_RES_STATUS statistics */
	uint8_t *buf;        /* headroom + body, from the call's arena */
	size_t len;          /* body bytes */
	struct xdr_buf tail; /* only its tail (xdr_tail_copy) is used */
};

static bool reply_alloc(struct compound_reply *r, size_t cap)
{
	uint8_t *buf;

	if (cap > r->limit)
		cap = r->limit;
	buf = rpc_call_alloc(r->call, RPC_REPLY_HDR_MAX + cap);
	if (!buf)
		return false;
	if (r->buf)
		memcpy(buf + RPC_REPLY_HDR_MAX, r->x.base, r->x.pos);
	else
		xdr_init(&r->x, buf + RPC_REPLY_HDR_MAX, cap);
	r->buf = buf;
	r->cap = cap;
	r->x.base = buf + RPC_REPLY_HDR_MAX;
	r->x.len = cap;
	return true;
}

/* Double the buffer (up to the limit); false when it cannot grow. */
static bool reply_grow(struct compound_reply *r)
{
	if (r->cap >= r->limit)
		return false;
	return reply_alloc(r, r->cap * 2);
}

static void reply_set_limit(struct compound_reply *r, size_t limit)
{
	r->limit = limit < r->x.pos + 8 ? r->x.pos + 8 : limit;
	if (r->cap > r->limit) {
		r->cap = r->limit;
		r->x.len = r->limit;
	}
}

/* ---- filehandles ---- */

/** nfs4_fh_clear() - forget what @fh names, dropping its reference. */
void nfs4_fh_clear(struct nfs4_fh *fh)
{
	if (fh->obj)
		vfs_obj_put(fh->obj);
	memset(fh, 0, sizeof(*fh));
}

/** nfs4_fh_set_obj() - @fh names @obj (reference taken over). */
void nfs4_fh_set_obj(struct nfs4_fh *fh, struct export *e,
		     const struct export_opts *opts, struct vfs_obj *obj)
{
	nfs4_fh_clear(fh);
	fh->set = true;
	fh->export = e;
	fh->opts = opts;
	fh->obj = obj;
}

/** nfs4_fh_set_pseudo() - @fh names pseudo node @node. */
void nfs4_fh_set_pseudo(struct nfs4_fh *fh, struct nfs4_pseudo_node *node)
{
	nfs4_fh_clear(fh);
	fh->set = true;
	fh->pseudo = node;
}

/** nfs4_fh_copy() - @dst names what @src names (own reference). */
void nfs4_fh_copy(struct nfs4_fh *dst, const struct nfs4_fh *src)
{
	if (dst == src)
		return;
	nfs4_fh_clear(dst);
	*dst = *src;
	if (dst->obj)
		vfs_obj_get(dst->obj);
}

/** nfs4_fh_ro() - pseudo node or read-only export for this client. */
bool nfs4_fh_ro(const struct nfs4_fh *fh)
{
	return fh->pseudo || !fh->opts || !fh->opts->rw;
}

/** nfs4_fh_of() - the wire handle of @fh. */
int nfs4_fh_of(const struct nfs4_fh *fh, struct nfs_fh4 *out)
{
	int n;

	if (!fh->set)
		return -EINVAL;
	if (fh->pseudo)
		return nfs4_pseudo_fh(fh->pseudo, out);
	n = vfs_obj_fh(fh->obj, out->data, NFS4_FHSIZE);
	if (n < 0)
		return n;
	out->len = (uint32_t)n;
	return 0;
}

/** nfs4_compound_pseudo() - the request's pseudo-fs, taken once. */
struct nfs4_pseudo *nfs4_compound_pseudo(struct nfs4_compound *c)
{
	if (!c->pseudo && c->exports)
		nfs4_pseudo_get(c->exports, &c->pseudo);
	return c->pseudo;
}

static const struct sockaddr *peer_of(const struct nfs4_compound *c)
{
	return (const struct sockaddr *)&c->call->peer;
}

/** nfs4_fh_set_export_root() - cross a junction; see nfs4_int.h. */
uint32_t nfs4_fh_set_export_root(struct nfs4_compound *c, uint32_t op,
				 struct nfs4_fh *fh, struct export *e)
{
	const struct export_opts *opts;
	struct vfs_obj *root;
	int err;

	opts = export_match_client(e, peer_of(c));
	if (!opts || !e->vex)
		return NFS4ERR_NOENT;
	if (opts->secure && !c->call->peer_privileged)
		return NFS4ERR_WRONGSEC;
	err = vfs_obj_root(e->vex, &root);
	if (err)
		return nfs4_status(op, err);
	nfs4_fh_set_obj(fh, e, opts, root);
	return NFS4_OK;
}

/** nfs4_fh_put_wire() - PUTFH's resolution; see nfs4_int.h. */
uint32_t nfs4_fh_put_wire(struct nfs4_compound *c, const struct nfs_fh4 *wire)
{
	const struct export_opts *opts;
	struct nfs4_pseudo_node *node;
	struct nfs4_pseudo *p;
	struct vfs_obj *obj;
	struct export *e;
	uint32_t id;
	int err;

	if (!c->exports)
		return NFS4ERR_STALE;
	if (nfs4_pseudo_is_fh(wire->data, wire->len)) {
		p = nfs4_compound_pseudo(c);
		if (!p)
			return NFS4ERR_DELAY;
		err = nfs4_pseudo_from_fh(p, wire->data, wire->len, &node);
		if (err)
			return nfs4_status(OP_PUTFH, err);
		if (!nfs4_pseudo_visible(node, peer_of(c)) &&
		    node != nfs4_pseudo_root(p))
			return NFS4ERR_STALE;
		nfs4_fh_set_pseudo(&c->cur, node);
		return NFS4_OK;
	}
	err = vfs_fh_export_id(wire->data, wire->len, &id);
	if (err)
		return nfs4_status(OP_PUTFH, err);
	e = export_find_by_id(c->exports, id);
	if (!e || !e->vex)
		return NFS4ERR_STALE;
	/* A client the export does not admit learns nothing: STALE. */
	opts = export_match_client(e, peer_of(c));
	if (!opts)
		return NFS4ERR_STALE;
	if (opts->secure && !c->call->peer_privileged)
		return NFS4ERR_WRONGSEC;
	err = vfs_obj_from_fh(e->vex, wire->data, wire->len, &obj);
	if (err)
		return nfs4_status(OP_PUTFH, err);
	nfs4_fh_set_obj(&c->cur, e, opts, obj);
	return NFS4_OK;
}

/** nfs4_compound_room() - reply bytes left for the running op's body. */
uint32_t nfs4_compound_room(const struct nfs4_compound *c)
{
	return c->reply_room;
}

/* ---- credentials ---- */

/*
 * The caller's identity as the current filehandle's export maps it
 * (squash). Without an export filehandle (none, or a pseudo node) no
 * export file can be reached, and what runs is the server's own work
 * (pseudo-fs answers, client records in the state directory): the
 * server's identity. Recomputed only when the current fh moves to other
 * export options.
 */
static void compound_cred(struct nfs4_compound *c,
			  const struct export_opts **last)
{
	const struct export_opts *o = NULL;
	const struct rpc_cred *rc = &c->call->cred;

	if (c->cur.set && !c->cur.pseudo)
		o = c->cur.opts;
	if (o == *last && *last)
		return;
	if (o) {
		export_map_cred(o, rc->flavor != AUTH_SYS, rc->uid, rc->gid,
				rc->ngids, rc->gids, &c->cred);
	} else {
		memset(&c->cred, 0, sizeof(c->cred));
	}
	if (vfs_cred_set(&c->cred) < 0)
		log_warn("nfs4: cannot set credentials %u:%u", c->cred.uid,
			 c->cred.gid);
	*last = o;
}

/* ---- the loop ---- */

static const struct nfs4_op *op_lookup(uint32_t opnum)
{
	if (opnum >= nfs4_ops_count)
		return NULL;
	return nfs4_ops[opnum];
}

/* Is @opnum a defined operation of minor version @minor at all? */
static bool opnum_defined(uint32_t opnum, uint32_t minor)
{
	static const uint32_t last_op[] = {
		[0] = OP_RELEASE_LOCKOWNER,
		[1] = OP_RECLAIM_COMPLETE,
		[2] = OP_CLONE,
	};

	return opnum >= OP_ACCESS && minor <= 2 && opnum <= last_op[minor];
}

struct compound_run {
	struct nfs4_compound *c;
	struct compound_reply *r;
	struct xdr_buf *ops;         /* the request's argarray cursor */
	const struct export_opts *cred_opts;
	uint32_t status;
	uint32_t nres;
	bool seq_ok;
	bool done;
};

/*
 * An op that ends the compound with @status before it ran (or with no
 * result of its own): its head, and for the ops whose result has a body
 * on errors too, that body as their encoder writes it for an empty result
 * (SETATTR4res always carries attrsset, RFC 8881 §18.30.2).
 */
static void result_error(struct compound_run *run, uint32_t resop,
			 uint32_t status)
{
	const struct nfs4_op *op = op_lookup(resop);
	struct xdr_buf *x = &run->r->x;
	void *res = NULL;

	run->status = status;
	run->done = true;
	if (op && op->encode && op->encode_err && op->res_size)
		res = rpc_call_alloc(run->c->call, op->res_size);
	for (;;) {
		size_t start = x->pos;
		bool ok = xdr_enc_u32(x, resop) && xdr_enc_u32(x, status);

		if (ok && res)
			ok = op->encode(x, status, res);
		if (ok) {
			run->nres++;
			return;
		}
		x->pos = start;
		if (!reply_grow(run->r))
			break;
	}
	run->status = run->c->minorversion ? NFS4ERR_REP_TOO_BIG
					   : NFS4ERR_RESOURCE;
}

/* The pre-checks of RFC 8881 §16.2.3 / §2.10.6.x before running @op. */
static uint32_t op_precheck(struct nfs4_compound *c, uint32_t opnum,
			    const struct nfs4_op *op)
{
	if (c->minorversion > op->minor_max)
		return NFS4ERR_NOTSUPP;
	if (c->minorversion >= 1) {
		if (c->opindex == 0 && opnum != OP_SEQUENCE) {
			if (!(op->flags & NFS4_OP_NO_SEQ))
				return NFS4ERR_OP_NOT_IN_SESSION;
			if (c->numops > 1)
				return NFS4ERR_NOT_ONLY_OP;
		}
		if (c->opindex > 0 && opnum == OP_SEQUENCE)
			return NFS4ERR_SEQUENCE_POS;
	}
	if ((op->flags & NFS4_OP_NEEDS_FH) && !c->cur.set)
		return NFS4ERR_NOFILEHANDLE;
	if ((op->flags & NFS4_OP_MODIFIES) && nfs4_fh_ro(&c->cur))
		return NFS4ERR_ROFS;
	return NFS4_OK;
}

/* Copy a 4.0 seqid replay's cached result (status + body) verbatim. */
static void result_op_replay(struct compound_run *run, uint32_t opnum)
{
	struct nfs4_compound *c = run->c;
	struct xdr_buf *x = &run->r->x;
	uint32_t st;

	if (c->op_replay_len < 4) {
		result_error(run, opnum, NFS4ERR_SERVERFAULT);
		goto out;
	}
	st = get_be32(c->op_replay);
	for (;;) {
		size_t start = x->pos;

		if (xdr_enc_u32(x, opnum) &&
		    xdr_enc_opaque_fixed(x, c->op_replay, c->op_replay_len))
			break;
		x->pos = start;
		if (!reply_grow(run->r)) {
			result_error(run, opnum,
				     c->minorversion ? NFS4ERR_REP_TOO_BIG
						     : NFS4ERR_RESOURCE);
			goto out;
		}
	}
	run->nres++;
	run->status = st;
	if (st != NFS4_OK)
		run->done = true;
out:
	c->op_replay = NULL;
	c->op_replay_len = 0;
}

/* Encode @op's result; false when it cannot fit in the reply limit. */
static bool result_encode(struct compound_run *run, uint32_t opnum,
			  const struct nfs4_op *op, uint32_t status,
			  const void *res)
{
	struct xdr_buf *x = &run->r->x;

	for (;;) {
		size_t start = x->pos;
		bool ok = xdr_enc_u32(x, opnum) && xdr_enc_u32(x, status);

		if (ok && op->encode && (status == NFS4_OK || op->encode_err))
			ok = op->encode(x, status, res);
		if (ok) {
			if (op->cache)
				op->cache(run->c, res, x->base + start + 4,
					  x->pos - start - 4);
			return true;
		}
		x->pos = start;
		xdr_tail_clear(x);
		if (!reply_grow(run->r))
			return false;
	}
}

static void run_op(struct compound_run *run, uint32_t opnum,
		   const struct nfs4_op *op)
{
	struct nfs4_compound *c = run->c;
	struct compound_reply *r = run->r;
	void *args = NULL, *res = NULL;
	uint32_t status;
	size_t room;

	if (op->args_size) {
		args = rpc_call_alloc(c->call, op->args_size);
		if (!args) {
			result_error(run, opnum, NFS4ERR_DELAY);
			return;
		}
	}
	/* Arguments are decoded before any check: a malformed op is BADXDR
	 * whatever else is wrong with it. */
	if (op->decode && !op->decode(run->ops, args)) {
		result_error(run, opnum, NFS4ERR_BADXDR);
		return;
	}
	status = op_precheck(c, opnum, op);
	if (status != NFS4_OK) {
		result_error(run, opnum, status);
		return;
	}
	if (op->res_size) {
		res = rpc_call_alloc(c->call, op->res_size);
		if (!res) {
			result_error(run, opnum, NFS4ERR_DELAY);
			return;
		}
	}
	compound_cred(c, &run->cred_opts);
	room = r->limit > r->x.pos + 8 ? r->limit - r->x.pos - 8 : 0;
	c->reply_room = room > UINT32_MAX ? UINT32_MAX : (uint32_t)room;
	status = op->handle(c, args, res);
	if (c->op_replay) {
		result_op_replay(run, opnum);
		goto out_release;
	}
	if (!result_encode(run, opnum, op, status, res)) {
		result_error(run, opnum,
			     c->minorversion ? NFS4ERR_REP_TOO_BIG
					     : NFS4ERR_RESOURCE);
		goto out_release;
	}
	run->nres++;
	run->status = status;
	if (status != NFS4_OK)
		run->done = true;
	if (opnum == OP_SEQUENCE && c->opindex == 0 && status == NFS4_OK)
		run->seq_ok = true;
out_release:
	if (op->release)
		op->release(c, res);
}

/* One step of the loop: the next opnum, and what to do with it. */
static void compound_step(struct compound_run *run)
{
	struct nfs4_compound *c = run->c;
	const struct nfs4_op *op;
	uint32_t opnum;

	if (!xdr_dec_u32(run->ops, &opnum)) {
		/* argarray shorter than numops: nothing to answer it with
		 * but the compound status */
		run->status = NFS4ERR_BADXDR;
		run->done = true;
		return;
	}
	/* RFC 8881 §15.2 / RFC 7530 §15.2: an opnum unknown to this minor
	 * version is OP_ILLEGAL, answered as OP_ILLEGAL. */
	if (!opnum_defined(opnum, c->minorversion)) {
		result_error(run, OP_ILLEGAL, NFS4ERR_OP_ILLEGAL);
		return;
	}
	op = op_lookup(opnum);
	if (!op || !op->handle) {
		/* defined but not implemented, with no handler (see
		 * ops_notsupp.c): its arguments cannot be skipped without
		 * decoding, and NOTSUPP ends the compound anyway */
		result_error(run, opnum, NFS4ERR_NOTSUPP);
		return;
	}
	run_op(run, opnum, op);
}

/*
 * The reply body limit once SEQUENCE has run: the session's
 * ca_maxresponsesize less the RPC reply header.
 */
static size_t session_limit(const struct nfs4_compound *c)
{
	if (!c->resp_max || c->resp_max <= RPC_REPLY_HDR_MAX)
		return NFS4_REPLY_MAX;
	if (c->resp_max - RPC_REPLY_HDR_MAX > NFS4_REPLY_MAX)
		return NFS4_REPLY_MAX;
	return c->resp_max - RPC_REPLY_HDR_MAX;
}

/* 4.1 retry: the whole cached COMPOUND4res replaces this reply. */
static bool reply_replay(struct compound_reply *r, const uint8_t *bytes,
			 size_t len)
{
	uint8_t *buf = rpc_call_alloc(r->call, RPC_REPLY_HDR_MAX + len);

	if (!buf)
		return false;
	memcpy(buf + RPC_REPLY_HDR_MAX, bytes, len);
	r->buf = buf;
	r->cap = len;
	xdr_init(&r->x, buf + RPC_REPLY_HDR_MAX, len);
	r->x.pos = len;
	return true;
}

static bool nfs4_dec_COMPOUND4args(struct xdr_buf *x, void *args)
{
	struct COMPOUND4args *a = args;

	if (!nfs4_dec_opaque(x, &a->tag, NFS4_TAG_MAX) ||
	    !xdr_dec_u32(x, &a->minorversion) || !xdr_dec_u32(x, &a->numops))
		return false;
	a->ops = *x;
	return true;
}

static void compound_release(struct nfs4_compound *c)
{
	nfs4_fh_clear(&c->cur);
	nfs4_fh_clear(&c->saved);
	nfs4_pseudo_put(c->pseudo);
	c->pseudo = NULL;
	export_table_put(c->exports);
	c->exports = NULL;
}

/*
 * nfs4_proc_compound() - RFC 8881 §16.2.3: evaluate the operations in
 * order, stopping at the first that fails. Everything taken for the
 * request (filehandle references, the export table, the pseudo-fs) is
 * given back before return; the reply lives in the call's arena.
 */
static void nfs4_proc_compound(struct rpc_call *call, const void *args,
			       void *res)
{
	const struct COMPOUND4args *a = args;
	struct COMPOUND4res *out = res;
	struct compound_reply r = {.call = call, .limit = NFS4_REPLY_MAX};
	struct nfs4_compound c = {.call = call};
	struct compound_run run = {.c = &c, .r = &r};
	struct xdr_buf ops = a->ops;
	size_t status_pos, count_pos;
	bool started = false;
	uint32_t i;

	if (!reply_alloc(&r, REPLY_START))
		return;
	run.ops = &ops;
	status_pos = r.x.pos;
	/* the tag is at most NFS4_TAG_MAX, far below REPLY_START */
	if (!xdr_enc_u32(&r.x, NFS4_OK) ||
	    !xdr_enc_opaque(&r.x, a->tag.data, a->tag.len))
		return;
	count_pos = r.x.pos;
	if (!xdr_enc_u32(&r.x, 0))
		return;

	c.minorversion = a->minorversion;
	c.numops = a->numops;
	if (a->minorversion > 2) {
		run.status = NFS4ERR_MINOR_VERS_MISMATCH;
		goto out_patch;
	}
	if (a->numops > nfs4_compound_max_ops()) {
		run.status = a->minorversion ? NFS4ERR_TOO_MANY_OPS
					     : NFS4ERR_RESOURCE;
		goto out_patch;
	}
	c.exports = export_table_current();
	started = true;
	run.cred_opts = NULL;
	for (i = 0; i < a->numops && !run.done; i++) {
		c.opindex = i;
		compound_step(&run);
		if (i == 0 && run.seq_ok) {
			if (c.replay) {
				if (!reply_replay(&r, c.replay, c.replay_len))
					run.status = NFS4ERR_DELAY;
				goto out_end;
			}
			reply_set_limit(&r, session_limit(&c));
		}
	}
out_patch:
	put_be32(r.x.base + status_pos, run.status);
	put_be32(r.x.base + count_pos, run.nres);
	if (run.seq_ok) {
		/*
		 * A reply whose READ data is a tail is not contiguous and
		 * cannot be cached: READ sends a tail only when the client
		 * asked for no caching and the data alone is above
		 * NFS4_READ_TAIL_MIN (more than the slot keeps unasked), and
		 * the slot is offered no bytes (NULL), only the size.
		 */
		if (xdr_has_tail(&r.x))
			nfs4_sequence_cache(&c, NULL,
					    r.x.pos + r.x.tail_len +
						    r.x.tail_pad);
		else
			nfs4_sequence_cache(&c, r.x.base, r.x.pos);
	}
out_end:
	if (started)
		nfs4_compound_end(&c);
	compound_release(&c);
	out->status = run.status;
	out->buf = r.buf;
	out->len = r.x.pos;
	xdr_tail_copy(&out->tail, &r.x);
}

/*
 * The RPC layer has encoded the reply header into its own small buffer;
 * move it into the headroom in front of our body and make our buffer the
 * reply (no copy of the body).
 */
static bool nfs4_enc_COMPOUND4res(struct xdr_buf *x, const void *res)
{
	const struct COMPOUND4res *r = res;
	uint8_t *start;

	if (!r->buf || x->pos > RPC_REPLY_HDR_MAX)
		return false;
	start = r->buf + RPC_REPLY_HDR_MAX - x->pos;
	memmove(start, x->base, x->pos);
	x->base = start;
	x->len = x->pos + r->len;
	x->pos = x->len;
	xdr_tail_copy(x, &r->tail);
	return true;
}

/*
 * rpc_proc.payload_align of COMPOUND: for the common shape of a write
 * ([SEQUENCE,] PUTFH, WRITE), the offset in the arguments of the first
 * data byte that starts a file block, so that the transport can receive
 * the data aligned for O_DIRECT. 0 for anything else. Never trusted
 * beyond placement: the real decode checks everything again.
 */
static size_t nfs4_align_COMPOUND4args(const uint8_t *args, size_t len)
{
	uint32_t minor, numops, opnum, i, n, skip, stable, dlen;
	const uint8_t *p;
	struct xdr_buf x;
	uint64_t offset;

	xdr_init(&x, (uint8_t *)args, len);
	if (!xdr_dec_opaque_ref(&x, &p, &n, NFS4_TAG_MAX) ||
	    !xdr_dec_u32(&x, &minor) || !xdr_dec_u32(&x, &numops))
		return 0;
	for (i = 0; i < numops && i < 4; i++) {
		if (!xdr_dec_u32(&x, &opnum))
			return 0;
		switch (opnum) {
		case OP_SEQUENCE:
			/* sessionid, sequenceid, slotid, highest, cachethis */
			if (!xdr_inline(&x, NFS4_SESSIONID_SIZE + 16))
				return 0;
			break;
		case OP_PUTFH:
			if (!xdr_dec_opaque_ref(&x, &p, &n, NFS4_FHSIZE))
				return 0;
			break;
		case OP_WRITE:
			if (!xdr_inline(&x, 4 + NFS4_OTHER_SIZE) ||
			    !xdr_dec_u64(&x, &offset) ||
			    !xdr_dec_u32(&x, &stable) ||
			    !xdr_dec_u32(&x, &dlen))
				return 0;
			skip = (uint32_t)((RPC_PAYLOAD_ALIGN -
					   offset % RPC_PAYLOAD_ALIGN) %
					  RPC_PAYLOAD_ALIGN);
			return skip < dlen ? x.pos + skip : 0;
		default:
			return 0;
		}
	}
	return 0;
}

static const struct rpc_proc nfs4_procs[] = {
	[0] = {
		.name = "NULL",
		.args_size = 0,
		.res_size = 0,
		.decode = NULL,
		.handle = NULL,
		.encode = NULL,
		.release = NULL,
		.flags = 0,
		.max_reply = 4,
	},
	[1] = {
		.name = "COMPOUND",
		.args_size = sizeof(struct COMPOUND4args),
		.res_size = sizeof(struct COMPOUND4res),
		.decode = nfs4_dec_COMPOUND4args,
		.handle = nfs4_proc_compound,
		.encode = nfs4_enc_COMPOUND4res,
		.release = NULL,
		.flags = RPC_PROC_RES_STATUS,
		/* only the RPC header goes into the RPC layer's buffer */
		.max_reply = 4,
		.payload_align = nfs4_align_COMPOUND4args,
	},
};

const struct rpc_version nfs4_version = {
	.vers = NFS_V4,
	.nprocs = sizeof(nfs4_procs) / sizeof(nfs4_procs[0]),
	.procs = nfs4_procs,
};
