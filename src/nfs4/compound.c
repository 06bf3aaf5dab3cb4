// SPDX-License-Identifier: MIT
/*
 * NFSv4 COMPOUND (RFC 8881 §16.2, RFC 7530 §16.2): decode each operation,
 * check it against the minor version, the session rules and the current
 * filehandle, run it, encode its result, stop at the first error.
 *
 * The reply is encoded straight into the request's reply chain (core/
 * req.h): the RPC layer puts its header in the head room in front once
 * the compound is done. The body starts in a small segment and continues
 * in larger ones as results are added, up to the request's reply limit;
 * nothing already encoded moves, so the status and result count written
 * first are patched in place at the end. A READ that ends a reply no slot
 * caches leaves its data as the reply's payload, not copied.
 *
 * On the event loop (req.nowait) only the operations of op_inline[] run;
 * the first other one, or a READ that misses the page cache, defers the
 * request: its state (struct compound_run) lives in the request's memory,
 * and the worker that takes it continues at that operation.
 */

#include <stdlib.h>
#include <string.h>

#include "core/be.h"
#include "core/log.h"
#include "core/stats.h"
#include "nfs4/attrs.h"
#include "nfs4/nfs4_int.h"
#include "nfs4/pseudo.h"
#include "nfs4/state/state.h"

#define REPLY_START 4096
/* A READ on the event loop reads at most this much (as NFSv3's). */
#define NFS4_READ_INLINE_MAX (64 * 1024)

/*
 * The reply being built in the request's chain: @x is a cursor over the
 * open (last) segment, @closed the body bytes in the segments before it;
 * the whole body stays within @limit bytes.
 */
struct compound_reply {
	struct req *req;
	struct xdr_buf x;
	size_t closed;
	size_t limit;
};

static size_t reply_used(const struct compound_reply *r)
{
	return r->closed + r->x.pos;
}

/* Begin the body (again): one segment of REPLY_START bytes. */
static bool reply_start(struct compound_reply *r)
{
	size_t cap = REPLY_START < r->limit ? REPLY_START : r->limit;
	uint8_t *b = req_reply_start(r->req, cap);

	if (!b)
		return false;
	xdr_init(&r->x, b, cap);
	r->closed = 0;
	return true;
}

/*
 * Continue in a new segment twice the open one's size (within the
 * limit): the open one ends where its cursor is. False when that would
 * not give more room than is left, or memory or segments run out.
 */
static bool reply_grow(struct compound_reply *r)
{
	size_t used = reply_used(r), cap;
	uint8_t *b;

	if (used >= r->limit)
		return false;
	cap = r->x.len * 2;
	if (cap > r->limit - used)
		cap = r->limit - used;
	if (cap <= r->x.len - r->x.pos)
		return false;
	b = req_reply_extend(r->req, r->x.pos, cap);
	if (!b)
		return false;
	r->closed += r->x.pos;
	xdr_init(&r->x, b, cap);
	return true;
}

static void reply_set_limit(struct compound_reply *r, size_t limit)
{
	size_t used = reply_used(r);

	r->limit = limit < used + 8 ? used + 8 : limit;
	if (r->closed + r->x.len > r->limit)
		r->x.len = r->limit - r->closed;
}

/* 4.1 retry: the whole cached COMPOUND4res replaces this reply. */
static bool reply_replay(struct compound_reply *r, const uint8_t *bytes,
			 size_t len)
{
	uint8_t *b = req_reply_start(r->req, len);

	if (!b)
		return false;
	memcpy(b, bytes, len);
	xdr_init(&r->x, b, len);
	r->x.pos = len;
	r->closed = 0;
	return true;
}

struct COMPOUND4args {
	struct nfs4_opaque tag;
	uint32_t minorversion;
	uint32_t numops;
	struct xdr_buf ops;  /* cursor at argarray[0] */
};

struct compound_run;

struct COMPOUND4res {
	uint32_t status;     /* first: RPC_PROC_RES_STATUS statistics */
	struct compound_run *run; /* kept while the request is deferred */
};

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
	return rpc_call_peer(c->call);
}

/*
 * Admit the caller to export @e (export_admit: client match, secure port,
 * squash, credentials applied now): NFS4_OK and *@opts, @refused for a
 * client the export does not admit, WRONGSEC for `secure` from an
 * unprivileged port, SERVERFAULT when the credentials could not be set.
 */
static uint32_t compound_admit(struct nfs4_compound *c, struct export *e,
			       uint32_t refused, const struct export_opts **opts)
{
	const struct rpc_cred *rc = &c->call->cred;
	struct export_identity id = {
		.anonymous = rc->flavor != AUTH_SYS,
		.uid = rc->uid,
		.gid = rc->gid,
		.ngroups = rc->ngids,
		.groups = rc->gids,
	};
	struct export_access acc;
	int err;

	c->cred_for = NULL;
	err = export_admit(e, peer_of(c), c->call->req->peer_privileged, &id,
			   &acc);
	if (err == -EACCES)
		return refused;
	if (err == -EPERM)
		return NFS4ERR_WRONGSEC;
	if (err)
		return NFS4ERR_SERVERFAULT;
	c->cred_for = acc.opts;
	c->cred = acc.cred;
	*opts = acc.opts;
	return NFS4_OK;
}

/** nfs4_fh_set_export_root() - cross a junction; see nfs4_int.h. */
uint32_t nfs4_fh_set_export_root(struct nfs4_compound *c, uint32_t op,
				 struct nfs4_fh *fh, struct export *e)
{
	const struct export_opts *opts;
	struct vfs_obj *root;
	uint32_t st;
	int err;

	if (!e->vex)
		return NFS4ERR_NOENT;
	st = compound_admit(c, e, NFS4ERR_NOENT, &opts);
	if (st != NFS4_OK)
		return st;
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
	uint32_t id, st;
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
	st = compound_admit(c, e, NFS4ERR_STALE, &opts);
	if (st != NFS4_OK)
		return st;
	if (c->call->req->nowait && vfs_export_may_block(e->vex)) {
		/* storage across a network: on a worker (run_op) */
		c->call->req->defer = true;
		return NFS4ERR_DELAY;
	}
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

/* The server's own identity (uid 0, no groups); its cred_for marker. */
static const struct vfs_cred server_cred;
static const char server_cred_for;

/*
 * Before each operation: the caller's identity as the current
 * filehandle's export admits it (export_admit: squash), applied to this
 * thread. Without an export filehandle (none, or a pseudo node) no export
 * file can be reached, and what runs is the server's own work (pseudo-fs
 * answers, client records in the state directory): the server's identity.
 * Done again only when the filehandle moves to other export options (or
 * another thread continues the request). Fails closed: SERVERFAULT, and
 * the operation does not run, when credentials cannot be applied.
 */
static uint32_t compound_cred(struct nfs4_compound *c)
{
	const struct export_opts *opts;

	if (c->cur.set && !c->cur.pseudo) {
		if (c->cred_for == c->cur.opts)
			return NFS4_OK;
		/* The export table is held: its answer has not changed. */
		return compound_admit(c, c->cur.export, NFS4ERR_ACCESS, &opts);
	}
	if (c->cred_for == &server_cred_for)
		return NFS4_OK;
	c->cred_for = NULL;
	c->cred = server_cred;
	if (export_cred_apply(&server_cred) < 0)
		return NFS4ERR_SERVERFAULT;
	c->cred_for = &server_cred_for;
	return NFS4_OK;
}

/* `nasd stats` slot + 1 of each operation (0: not counted). */
static int16_t op_slot[NFS4_OP_MAX + 1];

/**
 * nfs4_op_stats_init() - count every operation in `nasd stats` (program
 * "nfs4_op"; e.g. how many OPENs delegations saved). Start-up.
 */
void nfs4_op_stats_init(void)
{
	uint32_t i;
	int slot;

	for (i = 0; i <= NFS4_OP_MAX; i++) {
		if (!nfs4_ops[i])
			continue;
		slot = stats_slot_add("nfs4_op", 4, i, nfs4_ops[i]->name);
		if (slot >= 0)
			op_slot[i] = (int16_t)(slot + 1);
	}
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
		[2] = OP_REMOVEXATTR,
	};

	return opnum >= OP_ACCESS && minor <= 2 && opnum <= last_op[minor];
}

/*
 * Operations that may run on the event loop (DESIGN.md §3): in-memory
 * state, cached metadata, and READ from the page cache (it defers when
 * the data is not there). The RPC layer asks first (nfs4_inline_COMPOUND4
 * args); the loop checks again before each operation, so a compound is
 * never wrong, only deferred.
 */
static const bool op_inline[NFS4_OP_MAX + 1] = {
	[OP_ACCESS] = true,
	[OP_GETATTR] = true,
	[OP_GETFH] = true,
	[OP_LOOKUP] = true,
	[OP_LOOKUPP] = true,
	[OP_NVERIFY] = true,
	[OP_PUTFH] = true,
	[OP_PUTPUBFH] = true,
	[OP_PUTROOTFH] = true,
	[OP_READ] = true,
	[OP_READLINK] = true,
	[OP_RENEW] = true,
	[OP_RESTOREFH] = true,
	[OP_SAVEFH] = true,
	[OP_VERIFY] = true,
	[OP_SEQUENCE] = true,
};

/*
 * Whether a retransmission of a 4.0 COMPOUND that ran @opnum must get the
 * first reply rather than run again (the duplicate request cache): all
 * but the operations that only read, which the inline ones all do.
 */
static bool op_changes_state(uint32_t opnum)
{
	if (opnum <= NFS4_OP_MAX && op_inline[opnum])
		return false;
	return opnum != OP_READDIR && opnum != OP_SECINFO &&
	       opnum != OP_LOCKT;
}

/*
 * The evaluation of one COMPOUND, in the request's memory so that a
 * deferred request continues where it stopped (at operation @i, whose
 * arguments start at @op_pos of the argarray cursor).
 */
struct compound_run {
	struct nfs4_compound c;
	struct compound_reply r;
	struct xdr_buf ops;          /* the request's argarray cursor */
	size_t op_pos;               /* where operation @i starts in @ops */
	uint8_t *status_p;           /* COMPOUND4res status, then ... */
	uint8_t *count_p;            /* ... resarray count (segment 0) */
	uint32_t i;
	uint32_t status;
	uint32_t nres;
	bool seq_ok;
	bool done;
	bool started;                /* the export table was taken */
	bool changes;                /* an op that changes state ran */
	/* the clock at the end of the last op (the call's start before
	 * the first; 0 after a deferral): the next op's time begins there */
	uint64_t t_mark;
};

/* The reply cannot hold more: the error of the minor version. */
static uint32_t too_big(const struct compound_run *run)
{
	if (!run->c.minorversion)
		return NFS4ERR_RESOURCE;
	return run->c.too_big ? run->c.too_big : NFS4ERR_REP_TOO_BIG;
}

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
	struct xdr_buf *x = &run->r.x;
	void *res = NULL;

	run->status = status;
	run->done = true;
	/* Whatever an operation attached to the reply goes with it. */
	req_reply_drop_payload(run->r.req);
	if (op && op->encode && op->encode_err && op->res_size)
		res = rpc_call_alloc(run->c.call, op->res_size);
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
		if (!reply_grow(&run->r))
			break;
	}
	run->status = too_big(run);
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
	struct nfs4_compound *c = &run->c;
	struct xdr_buf *x = &run->r.x;
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
		if (!reply_grow(&run->r)) {
			result_error(run, opnum, too_big(run));
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
	struct xdr_buf *x = &run->r.x;

	for (;;) {
		size_t start = x->pos;
		bool ok = xdr_enc_u32(x, opnum) && xdr_enc_u32(x, status);

		if (ok && op->encode && (status == NFS4_OK || op->encode_err))
			ok = op->encode(x, status, res);
		if (ok) {
			if (op->cache)
				op->cache(&run->c, res, x->base + start + 4,
					  x->pos - start - 4);
			return true;
		}
		x->pos = start;
		if (!reply_grow(&run->r))
			return false;
	}
}

enum step {
	STEP_NEXT,
	STEP_DEFER,   /* stopped before operation run->i: continue later */
};

static enum step run_op(struct compound_run *run, uint32_t opnum,
			const struct nfs4_op *op)
{
	struct nfs4_compound *c = &run->c;
	struct req *rq = c->call->req;
	void *args = NULL, *res = NULL;
	uint32_t status;
	uint64_t t0;
	size_t room;

	if (op->args_size) {
		args = rpc_call_alloc(c->call, op->args_size);
		if (!args) {
			result_error(run, opnum, NFS4ERR_DELAY);
			return STEP_NEXT;
		}
	}
	/* Arguments are decoded before any check: a malformed op is BADXDR
	 * whatever else is wrong with it. */
	if (op->decode && !op->decode(&run->ops, args)) {
		result_error(run, opnum, NFS4ERR_BADXDR);
		return STEP_NEXT;
	}
	status = op_precheck(c, opnum, op);
	if (status != NFS4_OK) {
		result_error(run, opnum, status);
		return STEP_NEXT;
	}
	if (op->res_size) {
		res = rpc_call_alloc(c->call, op->res_size);
		if (!res) {
			result_error(run, opnum, NFS4ERR_DELAY);
			return STEP_NEXT;
		}
	}
	status = compound_cred(c);
	if (status != NFS4_OK) {
		result_error(run, opnum, status);
		return STEP_NEXT;
	}
	room = run->r.limit > reply_used(&run->r) + 8
		       ? run->r.limit - reply_used(&run->r) - 8
		       : 0;
	c->reply_room = room > UINT32_MAX ? UINT32_MAX : (uint32_t)room;
	rq->defer = false;
	/* The current filehandle's storage is across a network: not on
	 * the event loop, whatever the operation. */
	if (rq->nowait && c->cur.export && c->cur.export->vex &&
	    vfs_export_may_block(c->cur.export->vex))
		return STEP_DEFER;
	if (op_changes_state(opnum))
		run->changes = true;
	t0 = run->t_mark ? run->t_mark : stats_clock_ns();
	status = op->handle(c, args, res);
	if (rq->defer && rq->nowait) {
		/* It would block (a READ missing the page cache): undo
		 * nothing, it did nothing; run it again on a worker. */
		if (op->release)
			op->release(c, res);
		run->t_mark = 0;
		return STEP_DEFER;
	}
	rq->defer = false;
	/*
	 * One clock read per operation: its time runs from the end of the
	 * one before (the call's start for the first), so that its decoding
	 * and the previous result's encoding count with it (two reads per
	 * operation were 2.2 % of nasd's samples in a 4 KiB READ profile).
	 */
	run->t_mark = stats_clock_ns();
	if (opnum <= NFS4_OP_MAX && op_slot[opnum])
		stats_record_latency(op_slot[opnum] - 1,
				     run->t_mark > t0 ? run->t_mark - t0 : 0,
				     false, status != NFS4_OK);
	if (c->op_replay) {
		result_op_replay(run, opnum);
		goto out_release;
	}
	if (!result_encode(run, opnum, op, status, res)) {
		result_error(run, opnum, too_big(run));
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
	return STEP_NEXT;
}

/* One step of the loop: the next opnum, and what to do with it. */
static enum step compound_step(struct compound_run *run)
{
	struct nfs4_compound *c = &run->c;
	const struct nfs4_op *op;
	uint32_t opnum;

	run->op_pos = run->ops.pos;
	if (!xdr_dec_u32(&run->ops, &opnum)) {
		/* argarray shorter than numops: nothing to answer it with
		 * but the compound status */
		run->status = NFS4ERR_BADXDR;
		run->done = true;
		return STEP_NEXT;
	}
	/* RFC 8881 §15.2 / RFC 7530 §15.2: an opnum unknown to this minor
	 * version is OP_ILLEGAL, answered as OP_ILLEGAL. */
	if (!opnum_defined(opnum, c->minorversion)) {
		result_error(run, OP_ILLEGAL, NFS4ERR_OP_ILLEGAL);
		return STEP_NEXT;
	}
	if (c->call->req->nowait && !op_inline[opnum])
		return STEP_DEFER;
	op = op_lookup(opnum);
	if (!op || !op->handle) {
		/* defined but not implemented, with no handler (see
		 * ops_notsupp.c): its arguments cannot be skipped without
		 * decoding, and NOTSUPP ends the compound anyway */
		result_error(run, opnum, NFS4ERR_NOTSUPP);
		return STEP_NEXT;
	}
	return run_op(run, opnum, op);
}

/* The reply body limit once SEQUENCE has run (c->resp_max). */
static size_t session_limit(const struct nfs4_compound *c)
{
	return c->resp_max < NFS4_REPLY_MAX ? c->resp_max : NFS4_REPLY_MAX;
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
 * Offer the slot the reply it keeps for a retry (RFC 8881 §2.10.6.1): the
 * whole COMPOUND4res, contiguous. A reply with a payload (a READ's data)
 * is offered no bytes, only its size: READ leaves its data as a payload
 * only when the client asked for no caching and the data alone is above
 * NFS4_READ_TAIL_MIN, more than the slot keeps unasked.
 */
static void compound_slot_cache(struct compound_run *run)
{
	struct req *rq = run->r.req;
	size_t len = req_reply_len(rq);
	uint8_t *flat = NULL;

	if (rq->reply.payload.kind != PAYLOAD_NONE) {
		nfs4_sequence_cache(&run->c, NULL, len);
		return;
	}
	if (rq->reply.nseg == 1) {
		nfs4_sequence_cache(&run->c, rq->reply.seg[0].iov_base, len);
		return;
	}
	flat = req_alloc_raw(rq, len);
	if (flat && req_reply_copy(rq, 0, flat, len) != (ssize_t)len)
		flat = NULL;
	nfs4_sequence_cache(&run->c, flat, len);
}

/* Set up the evaluation of @a in the request's memory; NULL on ENOMEM. */
static struct compound_run *compound_begin(struct rpc_call *call,
					   const struct COMPOUND4args *a)
{
	struct compound_run *run = rpc_call_alloc(call, sizeof(*run));
	struct compound_reply *r;

	if (!run)
		return NULL;
	r = &run->r;
	r->req = call->req;
	r->limit = NFS4_REPLY_MAX;
	run->t_mark = call->t0;
	run->c.call = call;
	run->ops = a->ops;
	if (!reply_start(r))
		return NULL;
	/* the tag is at most NFS4_TAG_MAX, far below REPLY_START */
	run->status_p = r->x.base + r->x.pos;
	if (!xdr_enc_u32(&r->x, NFS4_OK) ||
	    !xdr_enc_opaque(&r->x, a->tag.data, a->tag.len))
		return NULL;
	run->count_p = r->x.base + r->x.pos;
	if (!xdr_enc_u32(&r->x, 0))
		return NULL;
	run->c.minorversion = a->minorversion;
	run->c.numops = a->numops;
	/* 4.0: the client whose state came on this connection */
	if (a->minorversion == 0)
		run->c.grant_key = nfs4_conn40_client(call->conn);
	if (a->minorversion > 2) {
		run->status = NFS4ERR_MINOR_VERS_MISMATCH;
		run->done = true;
	} else if (a->numops > nfs4_compound_max_ops()) {
		run->status = a->minorversion ? NFS4ERR_TOO_MANY_OPS
					      : NFS4ERR_RESOURCE;
		run->done = true;
	}
	return run;
}

/*
 * nfs4_proc_compound() - RFC 8881 §16.2.3: evaluate the operations in
 * order, stopping at the first that fails, encoding into the request's
 * reply chain (RPC_PROC_OWN_REPLY). On the event loop it may defer
 * (req.defer) and is called again on a worker with the same @res, whose
 * run continues. Everything taken for the request (filehandle references,
 * the export table, the pseudo-fs) is given back before the final return.
 */
static void nfs4_proc_compound(struct rpc_call *call, const void *args,
			       void *res)
{
	const struct COMPOUND4args *a = args;
	struct COMPOUND4res *out = res;
	struct compound_run *run = out->run;
	struct nfs4_compound *c;

	if (!run) {
		run = out->run = compound_begin(call, a);
		if (!run) {
			/* No reply could be begun: the RPC layer drops it. */
			req_reply_start(call->req, 0);
			call->req->reply.nseg = 0;
			out->status = NFS4ERR_DELAY;
			return;
		}
	} else {
		/* Continued on another thread: no credentials applied. */
		run->c.cred_for = NULL;
	}
	c = &run->c;
	if (!run->done && !run->started) {
		c->exports = export_table_current();
		run->started = true;
	}
	for (; run->i < c->numops && !run->done; run->i++) {
		c->opindex = run->i;
		if (compound_step(run) == STEP_DEFER) {
			run->ops.pos = run->op_pos;
			call->req->defer = true;
			return;
		}
		if (run->i == 0 && run->seq_ok) {
			if (c->replay) {
				if (!reply_replay(&run->r, c->replay,
						  c->replay_len))
					run->status = NFS4ERR_DELAY;
				goto out_end;
			}
			reply_set_limit(&run->r, session_limit(c));
		}
	}
	put_be32(run->status_p, run->status);
	put_be32(run->count_p, run->nres);
	req_reply_used(call->req, run->r.x.pos);
	if (run->seq_ok)
		compound_slot_cache(run);
out_end:
	req_reply_used(call->req, run->r.x.pos);
	/* a 4.0 COMPOUND of reads is not worth a place in the DRC */
	if (!run->changes)
		call->drc_skip = true;
	if (run->started)
		nfs4_compound_end(c);
	compound_release(c);
	out->status = run->status;
}

/*
 * rpc_proc.inline_ok of COMPOUND: whether every operation is one the
 * event loop may run (op_inline[]; a READ of at most NFS4_READ_INLINE_MAX,
 * a GETATTR that needs no user-name mapping), from a peek at the first
 * few. Never trusted: the loop checks each operation again.
 */
static bool nfs4_inline_COMPOUND4args(const uint8_t *args, size_t len)
{
	uint32_t minor, numops, opnum, i, n, w, count;
	const uint8_t *p;
	struct xdr_buf x;

	xdr_init(&x, (uint8_t *)args, len);
	if (!xdr_dec_opaque_ref(&x, &p, &n, NFS4_TAG_MAX) ||
	    !xdr_dec_u32(&x, &minor) || !xdr_dec_u32(&x, &numops) ||
	    minor > 2 || !numops || numops > 8)
		return false;
	for (i = 0; i < numops; i++) {
		if (!xdr_dec_u32(&x, &opnum) || opnum > NFS4_OP_MAX ||
		    !op_inline[opnum])
			return false;
		switch (opnum) {
		case OP_SEQUENCE:
			/* sessionid, sequenceid, slotid, highest, cachethis */
			if (!xdr_inline(&x, NFS4_SESSIONID_SIZE + 16))
				return false;
			break;
		case OP_PUTFH:
			if (!xdr_dec_opaque_ref(&x, &p, &n, NFS4_FHSIZE))
				return false;
			break;
		case OP_LOOKUP:
			if (!xdr_dec_opaque_ref(&x, &p, &n, NFS4_OPAQUE_LIMIT))
				return false;
			break;
		case OP_ACCESS:
			if (!xdr_inline(&x, 4))
				return false;
			break;
		case OP_RENEW:
			if (!xdr_inline(&x, 8))
				return false;
			break;
		case OP_READ:
			if (!xdr_inline(&x, 4 + NFS4_OTHER_SIZE + 8) ||
			    !xdr_dec_u32(&x, &count) ||
			    count > NFS4_READ_INLINE_MAX)
				return false;
			break;
		case OP_GETATTR:
			/* Owner names may need a user database: a worker. */
			if (!xdr_dec_u32(&x, &n) || n > NFS4_BITMAP_WORDS)
				return false;
			for (w = 0; w < n; w++) {
				if (!xdr_dec_u32(&x, &count))
					return false;
				if (w == 1 && nfs4_config_get()->domain &&
				    (count & (1u << (FATTR4_OWNER - 32) |
					      1u << (FATTR4_OWNER_GROUP - 32))))
					return false;
			}
			break;
		case OP_GETFH:
		case OP_LOOKUPP:
		case OP_PUTPUBFH:
		case OP_PUTROOTFH:
		case OP_READLINK:
		case OP_RESTOREFH:
		case OP_SAVEFH:
			break;
		default:
			/* VERIFY/NVERIFY carry attributes: not worth it. */
			return false;
		}
	}
	return true;
}

/*
 * rpc_proc.drc_ok of COMPOUND: a 4.0 COMPOUND goes through the RPC
 * layer's duplicate request cache (4.1 has its slots), so that a
 * retransmitted CREATE or REMOVE gets its first reply, not a second run
 * (RFC 7530 §3.1.1: a client retransmits after reconnecting; the open and
 * lock owners' seqid caches of §9.1 keep one reply per owner, and none
 * for operations without a seqid). One that would run inline only reads:
 * left out at once; others of reads only are dropped when they end
 * (drc_skip).
 */
static bool nfs4_drc_COMPOUND4args(const uint8_t *args, size_t len)
{
	uint32_t minor, n;
	const uint8_t *p;
	struct xdr_buf x;

	xdr_init(&x, (uint8_t *)args, len);
	if (!xdr_dec_opaque_ref(&x, &p, &n, NFS4_TAG_MAX) ||
	    !xdr_dec_u32(&x, &minor) || minor != 0)
		return false;
	return !nfs4_inline_COMPOUND4args(args, len);
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
		.flags = RPC_PROC_INLINE,
		.max_reply = 4,
	},
	[1] = {
		.name = "COMPOUND",
		.args_size = sizeof(struct COMPOUND4args),
		.res_size = sizeof(struct COMPOUND4res),
		.decode = nfs4_dec_COMPOUND4args,
		.handle = nfs4_proc_compound,
		.encode = NULL,
		.release = NULL,
		/* The body is encoded into the reply chain as it runs. */
		.flags = RPC_PROC_RES_STATUS | RPC_PROC_OWN_REPLY |
			 RPC_PROC_INLINE,
		.max_reply = 0,
		.inline_ok = nfs4_inline_COMPOUND4args,
		.payload_align = nfs4_align_COMPOUND4args,
		.drc_ok = nfs4_drc_COMPOUND4args,
	},
};

const struct rpc_version nfs4_version = {
	.vers = NFS_V4,
	.nprocs = sizeof(nfs4_procs) / sizeof(nfs4_procs[0]),
	.procs = nfs4_procs,
	/* a DELAY answer is not kept: the client's retry runs again */
	.status_retry = NFS4ERR_DELAY,
};
