/* SPDX-License-Identifier: MIT */
/*
 * ONC RPC v2 call processing (RFC 5531): call header, credentials, program
 * dispatch through the registered tables, and the reply header. Works on a
 * complete record in memory, so it runs (and is tested) without sockets.
 */
#include "rpc/rpc.h"

#include "core/log.h"
#include "rpc/drc.h"
#include "rpc/rpc_int.h"

#define RPC_MAX_PROGRAMS 16

/* Written only at start-up, before any thread reads them. */
static const struct rpc_program *rpc_programs[RPC_MAX_PROGRAMS];
static unsigned int rpc_nprograms;

void rpc_register_program(const struct rpc_program *prog)
{
	unsigned int i;

	for (i = 0; i < rpc_nprograms; i++) {
		if (rpc_programs[i]->prog == prog->prog) {
			rpc_programs[i] = prog;
			return;
		}
	}
	if (rpc_nprograms == RPC_MAX_PROGRAMS) {
		log_err("rpc: too many programs, %u (%s) not registered",
			prog->prog, prog->name);
		return;
	}
	rpc_programs[rpc_nprograms++] = prog;
}

const struct rpc_program *rpc_find_program(uint32_t prog)
{
	unsigned int i;

	for (i = 0; i < rpc_nprograms; i++)
		if (rpc_programs[i]->prog == prog)
			return rpc_programs[i];
	return NULL;
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

/* Decode, run and encode one procedure; false only when out of memory. */
static bool rpc_run_proc(struct rpc_call *call, const struct rpc_proc *p)
{
	void *args = NULL, *res = NULL;
	size_t start;

	if (p->args_size) {
		args = rpc_call_alloc(call, p->args_size);
		if (!args)
			return false;
	}
	if (p->decode && !p->decode(&call->args, args))
		return reply_accepted(call, GARBAGE_ARGS, 0, 0);
	if (p->res_size) {
		res = rpc_call_alloc(call, p->res_size);
		if (!res)
			return false;
	}
	if (p->handle)
		p->handle(call, args, res);
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
		call->res.tail = NULL;
		call->res.tail_len = 0;
		call->res.tail_pad = 0;
		enc_accepted(&call->res, call->xid, SYSTEM_ERR);
	}
	if (p->release)
		p->release(call, res);
	return true;

out_release:
	if (p->release)
		p->release(call, res);
	return false;
}

bool rpc_process_record(struct rpc_call *call, uint8_t *rec, size_t len)
{
	const struct rpc_program *prog;
	const struct rpc_version *vers;
	const struct rpc_proc *p;
	struct drc_entry *drc = NULL;
	enum auth_stat why;
	struct xdr_buf x;
	uint32_t mtype, rpcvers;
	bool ok;

	xdr_init(&x, rec, len);
	/* RFC 5531 §9: anything but a well-formed CALL is silently dropped. */
	if (!xdr_dec_u32(&x, &call->xid) || !xdr_dec_u32(&x, &mtype) ||
	    mtype != CALL || !xdr_dec_u32(&x, &rpcvers))
		return false;
	if (rpcvers != RPC_VERSION)
		return reply_rpc_mismatch(call);
	if (!xdr_dec_u32(&x, &call->prog) || !xdr_dec_u32(&x, &call->vers) ||
	    !xdr_dec_u32(&x, &call->proc))
		return false;
	why = rpc_auth_decode(call, &x);
	if (why != AUTH_OK)
		return reply_auth_error(call, why);

	prog = rpc_find_program(call->prog);
	if (!prog)
		return reply_accepted(call, PROG_UNAVAIL, 0, 0);
	vers = find_version(prog, call->vers);
	if (!vers) {
		if (!prog->nversions)
			return reply_accepted(call, PROG_UNAVAIL, 0, 0);
		return reply_accepted(call, PROG_MISMATCH,
				      prog->versions[0].vers,
				      prog->versions[prog->nversions - 1].vers);
	}
	if (call->proc >= vers->nprocs)
		return reply_accepted(call, PROC_UNAVAIL, 0, 0);
	p = &vers->procs[call->proc];
	if (!p->name && !p->handle)
		return reply_accepted(call, PROC_UNAVAIL, 0, 0);

	xdr_init(&call->args, rec + x.pos, len - x.pos);
	if (p->flags & RPC_PROC_NONIDEMPOTENT) {
		switch (drc_begin(call, call->args.base, call->args.len,
				  &drc)) {
		case DRC_IN_PROGRESS:
			return false;
		case DRC_REPLAY:
			return true;
		case DRC_MISS:
			break;
		}
	}
	ok = rpc_run_proc(call, p);
	if (ok)
		drc_finish(drc, &call->res);
	else
		drc_abort(drc);
	return ok;
}
