/* SPDX-License-Identifier: MIT */
/*
 * ONC RPC v2 call processing (RFC 5531): call header, credentials, program
 * dispatch through the registered tables, and the reply header. Works on a
 * complete record in memory, so it runs (and is tested) without sockets.
 */
#include "rpc/rpc.h"

#include <stdio.h>
#include <string.h>

#include "core/log.h"
#include "core/stats.h"
#include "rpc/drc.h"

#define RPC_MAX_PROGRAMS 16
#define RPC_STATS_MAX_VERSIONS 8 /* per program, counted in the stats */
#define RPC_STATS_MAX_PROCS 64   /* per version, counted in the stats */

/* Written only at start-up, before any thread reads them. */
static const struct rpc_program *rpc_programs[RPC_MAX_PROGRAMS];
static unsigned int rpc_nprograms;
/* Statistics slot + 1 of each procedure (0: not counted), same index. */
static int16_t rpc_stats_slot[RPC_MAX_PROGRAMS][RPC_STATS_MAX_VERSIONS]
			     [RPC_STATS_MAX_PROCS];

/* Give every procedure of program @idx its statistics slot. */
static void rpc_stats_register(unsigned int idx)
{
	const struct rpc_program *prog = rpc_programs[idx];
	const struct rpc_version *v;
	const struct rpc_proc *p;
	char num[16];
	uint32_t i, j;
	int slot;

	memset(rpc_stats_slot[idx], 0, sizeof(rpc_stats_slot[idx]));
	for (i = 0; i < prog->nversions && i < RPC_STATS_MAX_VERSIONS; i++) {
		v = &prog->versions[i];
		for (j = 0; j < v->nprocs && j < RPC_STATS_MAX_PROCS; j++) {
			p = &v->procs[j];
			if (!p->name && !p->handle)
				continue;
			(void)snprintf(num, sizeof(num), "%u", j);
			slot = stats_slot_add(prog->name ? prog->name : "?",
					      v->vers, j, p->name ? p->name
								  : num);
			if (slot >= 0)
				rpc_stats_slot[idx][i][j] = (int16_t)(slot + 1);
		}
	}
}

/* The statistics slot of @proc of version @vidx of program @idx, or -1. */
static int rpc_stats_slot_of(int idx, size_t vidx, uint32_t proc)
{
	if (idx < 0 || vidx >= RPC_STATS_MAX_VERSIONS ||
	    proc >= RPC_STATS_MAX_PROCS)
		return -1;
	return rpc_stats_slot[idx][vidx][proc] - 1;
}

void rpc_register_program(const struct rpc_program *prog)
{
	unsigned int i;

	for (i = 0; i < rpc_nprograms; i++) {
		if (rpc_programs[i]->prog == prog->prog) {
			rpc_programs[i] = prog;
			rpc_stats_register(i);
			return;
		}
	}
	if (rpc_nprograms == RPC_MAX_PROGRAMS) {
		log_err("rpc: too many programs, %u (%s) not registered",
			prog->prog, prog->name);
		return;
	}
	rpc_programs[rpc_nprograms++] = prog;
	rpc_stats_register(rpc_nprograms - 1);
}

/* Index of registered program @prog in rpc_programs, or -1. */
static int find_program_idx(uint32_t prog)
{
	unsigned int i;

	for (i = 0; i < rpc_nprograms; i++)
		if (rpc_programs[i]->prog == prog)
			return (int)i;
	return -1;
}

const struct rpc_program *rpc_find_program(uint32_t prog)
{
	int i = find_program_idx(prog);

	return i < 0 ? NULL : rpc_programs[i];
}

/* RFC 5531 §9: accepted_reply with a NULL verifier (we issue none). */
#define RPC_ACCEPTED_HDR_LEN 24

static bool enc_accepted(struct xdr_buf *x, uint32_t xid,
			 enum accept_stat stat)
{
	return xdr_enc_u32(x, xid) && xdr_enc_u32(x, REPLY) &&
	       xdr_enc_u32(x, MSG_ACCEPTED) && xdr_enc_u32(x, AUTH_NONE) &&
	       xdr_enc_u32(x, 0) && xdr_enc_u32(x, stat);
}

/* Start a reply body of @cap bytes in the request, @x over it. */
static bool reply_begin(struct rpc_call *call, struct xdr_buf *x, size_t cap)
{
	uint8_t *body = req_reply_start(call->req, cap);

	if (!body)
		return false;
	xdr_init(x, body, cap);
	return true;
}

/* A whole reply that fits in @x (no procedure body): done with it. */
static bool reply_end(struct rpc_call *call, const struct xdr_buf *x)
{
	if (!xdr_ok(x))
		return false;
	req_reply_used(call->req, x->pos);
	return true;
}

/*
 * The body built so far gets its accepted_reply header in front (written
 * into the request's head room, so the body never moves).
 */
static bool reply_prepend_accepted(struct rpc_call *call,
				   enum accept_stat stat)
{
	uint8_t *h = req_reply_prepend(call->req, RPC_ACCEPTED_HDR_LEN);
	struct xdr_buf x;

	if (!h)
		return false;
	xdr_init(&x, h, RPC_ACCEPTED_HDR_LEN);
	return enc_accepted(&x, call->xid, stat);
}

static bool reply_accepted(struct rpc_call *call, enum accept_stat stat,
			   uint32_t low, uint32_t high)
{
	struct xdr_buf x;

	if (!reply_begin(call, &x, RPC_REPLY_HDR_MAX) ||
	    !enc_accepted(&x, call->xid, stat))
		return false;
	if (stat == PROG_MISMATCH &&
	    !(xdr_enc_u32(&x, low) && xdr_enc_u32(&x, high)))
		return false;
	return reply_end(call, &x);
}

/* A call that names no procedure we serve: counted, then answered. */
static bool reply_unserved(struct rpc_call *call, enum accept_stat stat,
			   uint32_t low, uint32_t high)
{
	stats_call_rejected();
	return reply_accepted(call, stat, low, high);
}

static bool reply_rpc_mismatch(struct rpc_call *call)
{
	struct xdr_buf x;

	return reply_begin(call, &x, RPC_REPLY_HDR_MAX) &&
	       xdr_enc_u32(&x, call->xid) && xdr_enc_u32(&x, REPLY) &&
	       xdr_enc_u32(&x, MSG_DENIED) && xdr_enc_u32(&x, RPC_MISMATCH) &&
	       xdr_enc_u32(&x, RPC_VERSION) &&
	       xdr_enc_u32(&x, RPC_VERSION) && reply_end(call, &x);
}

static bool reply_auth_error(struct rpc_call *call, enum auth_stat why)
{
	struct xdr_buf x;

	return reply_begin(call, &x, RPC_REPLY_HDR_MAX) &&
	       xdr_enc_u32(&x, call->xid) && xdr_enc_u32(&x, REPLY) &&
	       xdr_enc_u32(&x, MSG_DENIED) && xdr_enc_u32(&x, AUTH_ERROR) &&
	       xdr_enc_u32(&x, why) && reply_end(call, &x);
}

/* RFC 5531 Appendix A: authsys_parms, exactly filling the body. */
static enum auth_stat auth_sys_decode(struct rpc_cred *cred,
				      const uint8_t *body, uint32_t len)
{
	struct xdr_buf b;
	const uint8_t *name;
	uint32_t stamp, namelen, i;

	xdr_init(&b, (uint8_t *)body, len);
	if (!xdr_dec_u32(&b, &stamp) ||
	    !xdr_dec_opaque_ref(&b, &name, &namelen,
				RPC_AUTH_SYS_MACHINE_MAX) ||
	    !xdr_dec_u32(&b, &cred->uid) || !xdr_dec_u32(&b, &cred->gid) ||
	    !xdr_dec_u32(&b, &cred->ngids) ||
	    cred->ngids > RPC_AUTH_SYS_NGIDS_MAX)
		return AUTH_BADCRED;
	for (i = 0; i < cred->ngids; i++)
		if (!xdr_dec_u32(&b, &cred->gids[i]))
			return AUTH_BADCRED;
	if (xdr_remaining(&b) != 0)
		return AUTH_BADCRED;
	cred->flavor = AUTH_SYS;
	return AUTH_OK;
}

/*
 * What to answer for a credential flavor we do not accept: flavors that
 * exist but that we do not offer are "too weak" for us to trust (the
 * client may retry with AUTH_SYS); anything else is a bad credential.
 */
static enum auth_stat auth_flavor_verdict(uint32_t flavor)
{
	switch (flavor) {
	case AUTH_SHORT:
	case AUTH_DH:
	case 4: /* AUTH_KERB4 */
	case 5: /* AUTH_RSA */
	case RPCSEC_GSS:
	case 7: /* AUTH_TLS, RFC 9289 */
		return AUTH_TOOWEAK;
	default:
		return AUTH_BADCRED;
	}
}

/* RFC 5531 §8.2/§9: credential and verifier of a call. */
static enum auth_stat rpc_auth_decode(struct rpc_call *call,
				      struct xdr_buf *x)
{
	const uint8_t *body, *vbody;
	uint32_t flavor, blen, vflavor, vlen;

	if (!xdr_dec_u32(x, &flavor) ||
	    !xdr_dec_opaque_ref(x, &body, &blen, RPC_AUTH_MAX_BODY))
		return AUTH_BADCRED;
	/* We issue no verifiers, so any short one is accepted and ignored. */
	if (!xdr_dec_u32(x, &vflavor) ||
	    !xdr_dec_opaque_ref(x, &vbody, &vlen, RPC_AUTH_MAX_BODY))
		return AUTH_BADVERF;
	switch (flavor) {
	case AUTH_NONE:
		call->cred.flavor = AUTH_NONE;
		call->cred.uid = 65534;
		call->cred.gid = 65534;
		call->cred.ngids = 0;
		return AUTH_OK;
	case AUTH_SYS:
		return auth_sys_decode(&call->cred, body, blen);
	default:
		return auth_flavor_verdict(flavor);
	}
}

static const struct rpc_version *find_version(const struct rpc_program *p,
					      uint32_t vers)
{
	uint32_t i;

	for (i = 0; i < p->nversions; i++)
		if (p->versions[i].vers == vers)
			return &p->versions[i];
	return NULL;
}

/* Give back what the handler took for the result. */
static void proc_release(struct rpc_call *call)
{
	if (call->p->release && call->resp)
		call->p->release(call, call->resp);
	call->resp = NULL;
}

/*
 * Encode the result of @call's procedure into the body begun before its
 * handler ran, and put the reply header in front. A reply that does not
 * fit (the procedure's max_reply is wrong) becomes SYSTEM_ERR, with
 * *@stat saying so. False only when out of memory.
 */
static bool proc_reply(struct rpc_call *call, enum accept_stat *stat)
{
	const struct rpc_proc *p = call->p;

	*stat = SUCCESS;
	if (p->flags & RPC_PROC_OWN_REPLY) {
		/* The handler built the body; it failed only for memory. */
		if (!call->req->reply.nseg)
			return false;
	} else {
		if (p->encode && !p->encode(&call->res, call->resp)) {
			log_warn("rpc: %s: reply does not fit in %zu bytes",
				 p->name, call->res.len);
			*stat = SYSTEM_ERR;
			return reply_accepted(call, SYSTEM_ERR, 0, 0);
		}
		req_reply_used(call->req, call->res.pos);
	}
	if (!reply_prepend_accepted(call, SUCCESS)) {
		*stat = SYSTEM_ERR;
		return reply_accepted(call, SYSTEM_ERR, 0, 0);
	}
	return true;
}

/*
 * Run @call's procedure (decoded already) and build its reply, unless it
 * deferred. The body is begun first, so that the handler may end it with
 * a payload (READ). The statistics and the duplicate request cache see
 * the end.
 */
static enum req_verdict proc_run(struct rpc_call *call)
{
	const struct rpc_proc *p = call->p;
	struct req *r = call->req;
	enum accept_stat stat = SYSTEM_ERR;
	uint32_t status = 0;
	bool ok;

	r->defer = false;
	if (!(p->flags & RPC_PROC_OWN_REPLY) && !call->res.base &&
	    !reply_begin(call, &call->res,
			 p->max_reply ? p->max_reply : RPC_DEFAULT_MAX_REPLY)) {
		ok = false;
		goto out_release;
	}
	if (p->handle)
		p->handle(call, call->argp, call->resp);
	if (r->defer) {
		/* It would block on the loop: run again on a worker, with
		 * the arguments decoded and the DRC entry kept. */
		if (r->nowait)
			return REQ_DEFER;
		r->defer = false;
	}
	if ((p->flags & RPC_PROC_RES_STATUS) && p->res_size >= sizeof(status))
		memcpy(&status, call->resp, sizeof(status));
	ok = proc_reply(call, &stat);
out_release:
	proc_release(call);
	stats_call_done(call->stats_slot, call->t0, !ok || stat != SUCCESS,
			status != 0);
	if (ok && !call->drc_skip &&
	    !(call->status_retry && status == call->status_retry))
		drc_finish(call->drc, r);
	else
		drc_abort(call->drc);
	call->drc = NULL;
	return ok ? REQ_REPLY : REQ_DROP;
}

static void (*rpc_reply_handler)(struct conn *c, uint32_t xid,
				 const uint8_t *rec, size_t len);
static void (*rpc_close_handler)(struct conn *c);

void rpc_set_reply_handler(void (*fn)(struct conn *c, uint32_t xid,
				      const uint8_t *rec, size_t len))
{
	rpc_reply_handler = fn;
}

void rpc_set_close_handler(void (*fn)(struct conn *c))
{
	rpc_close_handler = fn;
}

void rpc_conn_close(struct conn *c, void *conn_priv)
{
	(void)conn_priv;
	if (rpc_close_handler)
		rpc_close_handler(c);
}

/* An answer built without a procedure: send it if it could be built. */
static enum req_verdict verdict(bool built)
{
	return built ? REQ_REPLY : REQ_DROP;
}

enum req_verdict rpc_process(struct req *r)
{
	struct rpc_call *call = r->proto;
	const struct rpc_program *prog;
	const struct rpc_version *vers;
	const struct rpc_proc *p;
	enum auth_stat why;
	struct xdr_buf x;
	uint32_t mtype, rpcvers;
	int pidx;

	if (call)
		return proc_run(call); /* deferred: continue on this thread */
	call = req_alloc(r, sizeof(*call));
	if (!call)
		return REQ_DROP;
	call->req = r;
	call->conn = r->conn;
	r->proto = call;
	call->stats_slot = -1;
	xdr_init(&x, r->msg, r->msg_len);
	/* RFC 5531 §9: anything but a well-formed CALL is silently dropped,
	 * except a REPLY to a call of ours (a callback), if one is awaited. */
	if (!xdr_dec_u32(&x, &call->xid) || !xdr_dec_u32(&x, &mtype))
		return REQ_DROP;
	if (mtype == REPLY && rpc_reply_handler) {
		rpc_reply_handler(r->conn, call->xid, r->msg, r->msg_len);
		return REQ_DROP;
	}
	if (mtype != CALL || !xdr_dec_u32(&x, &rpcvers))
		return REQ_DROP;
	if (rpcvers != RPC_VERSION) {
		stats_call_rejected();
		return verdict(reply_rpc_mismatch(call));
	}
	if (!xdr_dec_u32(&x, &call->prog) || !xdr_dec_u32(&x, &call->vers) ||
	    !xdr_dec_u32(&x, &call->proc))
		return REQ_DROP;
	why = rpc_auth_decode(call, &x);
	if (why != AUTH_OK) {
		stats_call_rejected();
		return verdict(reply_auth_error(call, why));
	}

	pidx = find_program_idx(call->prog);
	if (pidx < 0)
		return verdict(reply_unserved(call, PROG_UNAVAIL, 0, 0));
	prog = rpc_programs[pidx];
	vers = find_version(prog, call->vers);
	if (!vers) {
		if (!prog->nversions)
			return verdict(reply_unserved(call, PROG_UNAVAIL, 0, 0));
		return verdict(reply_unserved(
			call, PROG_MISMATCH, prog->versions[0].vers,
			prog->versions[prog->nversions - 1].vers));
	}
	if (call->proc >= vers->nprocs)
		return verdict(reply_unserved(call, PROC_UNAVAIL, 0, 0));
	p = &vers->procs[call->proc];
	if (!p->name && !p->handle)
		return verdict(reply_unserved(call, PROC_UNAVAIL, 0, 0));
	call->p = p;
	call->status_retry = vers->status_retry;
	/* Latency: from here to the reply built (one clock read each end). */
	call->stats_slot = rpc_stats_slot_of(
		pidx, (size_t)(vers - prog->versions), call->proc);
	call->t0 = stats_clock_ns();

	xdr_init(&call->args, r->msg + x.pos, r->msg_len - x.pos);
	if ((p->flags & RPC_PROC_NONIDEMPOTENT) ||
	    (p->drc_ok && p->drc_ok(call->args.base, call->args.len))) {
		switch (drc_begin(call, call->args.base, call->args.len,
				  &call->drc)) {
		case DRC_IN_PROGRESS:
			return REQ_DROP;
		case DRC_REPLAY:
			stats_call_done(call->stats_slot, call->t0, false,
					false);
			return REQ_REPLY;
		case DRC_MISS:
			break;
		}
	}
	if (p->args_size) {
		call->argp = req_alloc(r, p->args_size);
		if (!call->argp)
			goto out_nomem;
	}
	if (p->decode && !p->decode(&call->args, call->argp)) {
		stats_call_done(call->stats_slot, call->t0, true, false);
		drc_abort(call->drc);
		call->drc = NULL;
		return verdict(reply_accepted(call, GARBAGE_ARGS, 0, 0));
	}
	if (p->res_size) {
		call->resp = req_alloc(r, p->res_size);
		if (!call->resp)
			goto out_nomem;
	}
	return proc_run(call);

out_nomem:
	drc_abort(call->drc);
	call->drc = NULL;
	return REQ_DROP;
}
