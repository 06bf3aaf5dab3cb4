/* SPDX-License-Identifier: MIT */
/*
 * Hints for the transport, from a peek at a record's call header (RFC
 * 5531 §9) before the record is processed: where a payload should be
 * placed (DESIGN.md §4: a WRITE's payload is received straight into an
 * aligned buffer) and whether the call may run on the event loop that
 * read it (DESIGN.md §3). Protocol-neutral: the procedure tables answer.
 * Nothing here is trusted later; rpc_process() decodes again.
 */
#include "rpc/rpc.h"

enum peek_result {
	PEEK_SHORT,   /* the head ends inside the call header */
	PEEK_NOPROC,  /* dropped or answered without a procedure */
	PEEK_PROC,    /* a served procedure */
};

/*
 * Parse the call header and credentials in @head; on PEEK_PROC, *@pp is
 * the procedure and *@args the offset of its arguments.
 */
static enum peek_result rpc_peek(const uint8_t *head, size_t len,
				 const struct rpc_proc **pp, size_t *args)
{
	const struct rpc_program *prog;
	const struct rpc_proc *p = NULL;
	uint32_t xid, mtype, rpcvers, pnum, vers, proc, flavor, blen, i;
	const uint8_t *body;
	struct xdr_buf x;

	xdr_init(&x, (uint8_t *)head, len);
	if (!xdr_dec_u32(&x, &xid) || !xdr_dec_u32(&x, &mtype))
		return PEEK_SHORT;
	if (mtype != CALL)
		return PEEK_NOPROC;
	if (!xdr_dec_u32(&x, &rpcvers))
		return PEEK_SHORT;
	if (rpcvers != RPC_VERSION)
		return PEEK_NOPROC;
	if (!xdr_dec_u32(&x, &pnum) || !xdr_dec_u32(&x, &vers) ||
	    !xdr_dec_u32(&x, &proc))
		return PEEK_SHORT;
	/* Credential and verifier. */
	for (i = 0; i < 2; i++)
		if (!xdr_dec_u32(&x, &flavor) ||
		    !xdr_dec_opaque_ref(&x, &body, &blen, RPC_AUTH_MAX_BODY))
			return PEEK_SHORT;
	prog = rpc_find_program(pnum);
	if (!prog)
		return PEEK_NOPROC;
	for (i = 0; i < prog->nversions; i++)
		if (prog->versions[i].vers == vers &&
		    proc < prog->versions[i].nprocs)
			p = &prog->versions[i].procs[proc];
	if (!p || (!p->name && !p->handle))
		return PEEK_NOPROC;
	*pp = p;
	*args = x.pos;
	return PEEK_PROC;
}

size_t rpc_record_align(const uint8_t *head, size_t len)
{
	const struct rpc_proc *p;
	size_t args, at;

	if (rpc_peek(head, len, &p, &args) != PEEK_PROC || !p->payload_align)
		return 0;
	at = p->payload_align(head + args, len - args);
	return at ? args + at : 0;
}

bool rpc_record_inline(void *conn_priv, const uint8_t *rec, size_t len)
{
	const struct rpc_proc *p;
	size_t args;

	switch (rpc_peek(rec, len, &p, &args)) {
	case PEEK_SHORT:
	case PEEK_NOPROC:
		/* Garbage is dropped, the rest answered from the header. */
		return true;
	case PEEK_PROC:
		break;
	}
	if (!(p->flags & RPC_PROC_INLINE))
		return false;
	return !p->inline_ok || p->inline_ok(rec + args, len - args);
}
