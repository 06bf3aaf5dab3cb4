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
#include "rpc/rpc_int.h"

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

/* Start the reply in a fresh buffer with room for @body bytes of body. */
static bool reply_alloc(struct rpc_call *call, size_t body)
{
	size_t len = RPC_REPLY_HDR_MAX + body;
	uint8_t *buf = rpc_call_alloc_raw(call, len);

	if (!buf)
		return false;
	xdr_init(&call->res, buf, len);
	return true;
}

/* RFC 5531 §9: accepted_reply with a NULL verifier (we issue none). */
static bool enc_accepted(struct xdr_buf *x, uint32_t xid,
			 enum accept_stat stat)
{
	return xdr_enc_u32(x, xid) && xdr_enc_u32(x, REPLY) &&
	       xdr_enc_u32(x, MSG_ACCEPTED) && xdr_enc_u32(x, AUTH_NONE) &&
	       xdr_enc_u32(x, 0) && xdr_enc_u32(x, stat);
}

static bool reply_accepted(struct rpc_call *call, enum accept_stat stat,
			   uint32_t low, uint32_t high)
{
	struct xdr_buf *x = &call->res;

	if (!reply_alloc(call, 0))
		return false;
	if (!enc_accepted(x, call->xid, stat))
		return false;
	if (stat == PROG_MISMATCH)
		return xdr_enc_u32(x, low) && xdr_enc_u32(x, high);
	return true;
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
	struct xdr_buf *x = &call->res;

	return reply_alloc(call, 0) && xdr_enc_u32(x, call->xid) &&
	       xdr_enc_u32(x, REPLY) && xdr_enc_u32(x, MSG_DENIED) &&
	       xdr_enc_u32(x, RPC_MISMATCH) &&
	       xdr_enc_u32(x, RPC_VERSION) && xdr_enc_u32(x, RPC_VERSION);
}

static bool reply_auth_error(struct rpc_call *call, enum auth_stat why)
{
	struct xdr_buf *x = &call->res;

	return reply_alloc(call, 0) && xdr_enc_u32(x, call->xid) &&
	       xdr_enc_u32(x, REPLY) && xdr_enc_u32(x, MSG_DENIED) &&
	       xdr_enc_u32(x, AUTH_ERROR) && xdr_enc_u32(x, why);
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

/*
 * Decode, run and encode one procedure; false only when out of memory.
 * *@stat gets the accept_stat answered, *@status the procedure's protocol
 * status (RPC_PROC_RES_STATUS; else 0), for the statistics.
 */
static bool rpc_run_proc(struct rpc_call *call, const struct rpc_proc *p,
			 enum accept_stat *stat, uint32_t *status)
{
	void *args = NULL, *res = NULL;
	size_t start;

	*stat = SYSTEM_ERR;
	*status = 0;
	if (p->args_size) {
		args = rpc_call_alloc(call, p->args_size);
		if (!args)
			return false;
	}
	if (p->decode && !p->decode(&call->args, args)) {
		*stat = GARBAGE_ARGS;
		return reply_accepted(call, GARBAGE_ARGS, 0, 0);
	}
	if (p->res_size) {
		res = rpc_call_alloc(call, p->res_size);
		if (!res)
			return false;
	}
	if (p->handle)
		p->handle(call, args, res);
	if (call->defer) {
		/* It would block on the loop: no reply, run again later. */
		if (p->release)
			p->release(call, res);
		return true;
	}
	if ((p->flags & RPC_PROC_RES_STATUS) && p->res_size >= sizeof(*status))
		memcpy(status, res, sizeof(*status));
	*stat = SUCCESS;
	if (!reply_alloc(call, p->max_reply ? p->max_reply
					    : RPC_DEFAULT_MAX_REPLY))
		goto out_release;
	if (!enc_accepted(&call->res, call->xid, SUCCESS))
		goto out_release;
	start = call->res.pos;
	if (p->encode && !p->encode(&call->res, res)) {
		log_warn("rpc: %s: reply does not fit in %zu bytes", p->name,
			 call->res.len - start);
		call->res.pos = 0;
		xdr_tail_clear(&call->res);
		enc_accepted(&call->res, call->xid, SYSTEM_ERR);
		*stat = SYSTEM_ERR;
	}
	if (p->release)
		p->release(call, res);
	return true;

out_release:
	if (p->release)
		p->release(call, res);
	return false;
}

static void (*rpc_reply_handler)(struct conn *c, uint32_t xid,
				 const uint8_t *rec, size_t len);

void rpc_set_reply_handler(void (*fn)(struct conn *c, uint32_t xid,
				      const uint8_t *rec, size_t len))
{
	rpc_reply_handler = fn;
}

bool rpc_process_record(struct rpc_call *call, uint8_t *rec, size_t len)
{
	const struct rpc_program *prog;
	const struct rpc_version *vers;
	const struct rpc_proc *p;
	struct drc_entry *drc = NULL;
	enum auth_stat why;
	enum accept_stat stat;
	struct xdr_buf x;
	uint32_t mtype, rpcvers, status;
	uint64_t t0;
	int pidx, slot;
	bool ok;

	xdr_init(&x, rec, len);
	/* RFC 5531 §9: anything but a well-formed CALL is silently dropped,
	 * except a REPLY to a call of ours (a callback), if one is awaited. */
	if (!xdr_dec_u32(&x, &call->xid) || !xdr_dec_u32(&x, &mtype))
		return false;
	if (mtype == REPLY && rpc_reply_handler) {
		rpc_reply_handler(call->conn, call->xid, rec, len);
		return false;
	}
	if (mtype != CALL || !xdr_dec_u32(&x, &rpcvers))
		return false;
	if (rpcvers != RPC_VERSION) {
		stats_call_rejected();
		return reply_rpc_mismatch(call);
	}
	if (!xdr_dec_u32(&x, &call->prog) || !xdr_dec_u32(&x, &call->vers) ||
	    !xdr_dec_u32(&x, &call->proc))
		return false;
	why = rpc_auth_decode(call, &x);
	if (why != AUTH_OK) {
		stats_call_rejected();
		return reply_auth_error(call, why);
	}

	pidx = find_program_idx(call->prog);
	if (pidx < 0)
		return reply_unserved(call, PROG_UNAVAIL, 0, 0);
	prog = rpc_programs[pidx];
	vers = find_version(prog, call->vers);
	if (!vers) {
		if (!prog->nversions)
			return reply_unserved(call, PROG_UNAVAIL, 0, 0);
		return reply_unserved(call, PROG_MISMATCH,
				      prog->versions[0].vers,
				      prog->versions[prog->nversions - 1].vers);
	}
	if (call->proc >= vers->nprocs)
		return reply_unserved(call, PROC_UNAVAIL, 0, 0);
	p = &vers->procs[call->proc];
	if (!p->name && !p->handle)
		return reply_unserved(call, PROC_UNAVAIL, 0, 0);
	/* Latency: from here to the reply built (one clock read each end). */
	slot = rpc_stats_slot_of(pidx, (size_t)(vers - prog->versions),
				 call->proc);
	t0 = stats_clock_ns();

	xdr_init(&call->args, rec + x.pos, len - x.pos);
	if (p->flags & RPC_PROC_NONIDEMPOTENT) {
		switch (drc_begin(call, call->args.base, call->args.len,
				  &drc)) {
		case DRC_IN_PROGRESS:
			return false;
		case DRC_REPLAY:
			stats_call_done(slot, t0, false, false);
			return true;
		case DRC_MISS:
			break;
		}
	}
	ok = rpc_run_proc(call, p, &stat, &status);
	if (call->defer) {
		drc_abort(drc);
		return false;
	}
	stats_call_done(slot, t0, !ok || stat != SUCCESS, status != 0);
	if (ok && !(vers->status_retry && status == vers->status_retry))
		drc_finish(drc, &call->res);
	else
		drc_abort(drc);
	return ok;
}
