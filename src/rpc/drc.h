/* SPDX-License-Identifier: MIT */
#ifndef NASD_RPC_DRC_H
#define NASD_RPC_DRC_H

/*
 * Duplicate request cache for non-idempotent procedures (RPC_PROC_
 * NONIDEMPOTENT, or rpc_proc.drc_ok: NFSv4.0 COMPOUND, as Ganesha's DRC),
 * as knfsd's reply cache: a retransmission of a call that
 * is still running is dropped, and one of a call that finished gets the
 * stored reply bytes without running the procedure again.
 *
 * A call is identified by xid, client address and port, program, version,
 * procedure, and the length and a 64-bit hash of its first 256 argument
 * bytes, as knfsd does (so a reused xid with other arguments is not
 * mistaken for a retransmission).
 */

#include <stddef.h>
#include <stdint.h>

#include "rpc/rpc.h"

#define DRC_MAX_ENTRIES 4096
#define DRC_MAX_BYTES (64u << 20)

struct drc_entry;

enum drc_verdict {
	DRC_MISS,        /* new call: run it, then drc_finish() */
	DRC_IN_PROGRESS, /* same call still running: drop this one */
	DRC_REPLAY,      /* finished: call->res holds the stored reply */
};

/*
 * drc_begin() - look @call up (args = the bytes after the call header).
 * DRC_MISS sets *@out to a new in-progress entry that the caller must give
 * back with drc_finish() or drc_abort(), or to NULL when the cache is full
 * of running calls (the call then runs uncached). DRC_REPLAY copies the
 * stored reply (the whole of it, RPC header included) into the request's
 * reply chain as its body.
 */
enum drc_verdict drc_begin(struct rpc_call *call, const uint8_t *args,
			   size_t args_len, struct drc_entry **out);

/*
 * drc_finish() - store a copy of @r's reply (header, body, a buffer
 * payload) for entry @e from drc_begin() and mark it done; a reply with a
 * file-range payload is not kept (the entry is dropped). @e may be NULL.
 */
void drc_finish(struct drc_entry *e, const struct req *r);

/* drc_abort() - forget entry @e (the call produced no reply). NULL is ok. */
void drc_abort(struct drc_entry *e);

/* drc_flush() - drop every finished entry (tests, and memory pressure). */
void drc_flush(void);

/* drc_hash64() - the 64-bit hash used for argument bytes. */
uint64_t drc_hash64(const uint8_t *p, size_t n);

#endif
