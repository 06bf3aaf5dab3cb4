/* SPDX-License-Identifier: MIT */
/*
 * Payload placement hint for the transport (DESIGN.md §4: a WRITE's
 * payload is received straight into an aligned buffer). Parses just
 * enough of an RPC call header (RFC 5531 §9) to find the procedure, then
 * asks it where its payload starts. Protocol-neutral: NFSv3 WRITE today,
 * NFSv4 COMPOUND WRITE can answer the same question.
 */
#include "rpc/rpc.h"

size_t rpc_record_align(const uint8_t *head, size_t len)
{
	const struct rpc_program *prog;
	const struct rpc_proc *p = NULL;
	uint32_t xid, mtype, rpcvers, pnum, vers, proc, flavor, blen, i;
	const uint8_t *body;
	struct xdr_buf x;
	size_t at;

	xdr_init(&x, (uint8_t *)head, len);
	if (!xdr_dec_u32(&x, &xid) || !xdr_dec_u32(&x, &mtype) ||
	    mtype != CALL || !xdr_dec_u32(&x, &rpcvers) ||
	    rpcvers != RPC_VERSION || !xdr_dec_u32(&x, &pnum) ||
	    !xdr_dec_u32(&x, &vers) || !xdr_dec_u32(&x, &proc))
		return 0;
	/* Credential and verifier. */
	for (i = 0; i < 2; i++)
		if (!xdr_dec_u32(&x, &flavor) ||
		    !xdr_dec_opaque_ref(&x, &body, &blen, RPC_AUTH_MAX_BODY))
			return 0;
	prog = rpc_find_program(pnum);
	if (!prog)
		return 0;
	for (i = 0; i < prog->nversions; i++)
		if (prog->versions[i].vers == vers &&
		    proc < prog->versions[i].nprocs)
			p = &prog->versions[i].procs[proc];
	if (!p || !p->payload_align)
		return 0;
	at = p->payload_align(head + x.pos, len - x.pos);
	return at ? x.pos + at : 0;
}
