/* SPDX-License-Identifier: MIT */
#ifndef NASD_RPC_RPC_H
#define NASD_RPC_RPC_H

/*
 * ONC RPC v2 (RFC 5531): the call a protocol handler sees, and the
 * program/version/procedure tables that protocols register.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "core/req.h"
#include "xdr/xdr.h"

#define RPC_VERSION 2

enum msg_type { CALL = 0, REPLY = 1 };
enum reply_stat { MSG_ACCEPTED = 0, MSG_DENIED = 1 };
enum accept_stat {
	SUCCESS = 0,
	PROG_UNAVAIL = 1,
	PROG_MISMATCH = 2,
	PROC_UNAVAIL = 3,
	GARBAGE_ARGS = 4,
	SYSTEM_ERR = 5,
};
enum reject_stat { RPC_MISMATCH = 0, AUTH_ERROR = 1 };
enum auth_stat {
	AUTH_OK = 0,
	AUTH_BADCRED = 1,
	AUTH_REJECTEDCRED = 2,
	AUTH_BADVERF = 3,
	AUTH_REJECTEDVERF = 4,
	AUTH_TOOWEAK = 5,
};
enum auth_flavor {
	AUTH_NONE = 0,
	AUTH_SYS = 1,
	AUTH_SHORT = 2,
	AUTH_DH = 3,
	RPCSEC_GSS = 6,
};

#define RPC_AUTH_MAX_BODY 400   /* RFC 5531 §8.2: opaque_auth body<400> */
#define RPC_AUTH_SYS_MACHINE_MAX 255
#define RPC_AUTH_SYS_NGIDS_MAX 16

/* Caller identity from the credential, before any export squashing. */
struct rpc_cred {
	uint32_t flavor;  /* AUTH_NONE or AUTH_SYS */
	uint32_t uid;
	uint32_t gid;
	uint32_t ngids;
	uint32_t gids[RPC_AUTH_SYS_NGIDS_MAX];
};

struct conn;
struct drc_entry;
struct rpc_proc;

/*
 * One RPC call in progress: the RPC view of a request (core/req.h). It
 * lives in the request's arena from the moment rpc_process() first sees
 * the message until req_finish(); so does everything a handler allocates
 * with rpc_call_alloc(). The request's reply chain holds the reply.
 */
struct rpc_call {
	struct req *req;             /* connection, peer, arena, reply */
	struct conn *conn;           /* req->conn, for the layers that keep it */
	uint32_t xid;
	uint32_t prog;
	uint32_t vers;
	uint32_t proc;
	struct rpc_cred cred;
	struct xdr_buf args;         /* the procedure's arguments */
	struct xdr_buf res;          /* the reply body being encoded */
	/* Dispatch state, kept while a deferred call waits for a worker. */
	const struct rpc_proc *p;
	uint32_t status_retry;       /* the version's (rpc_version) */
	void *argp;
	void *resp;
	struct drc_entry *drc;
	/* Set by a handler whose call went through the duplicate request
	 * cache but changed nothing (a 4.0 COMPOUND of reads): the entry is
	 * dropped, not kept, when the call finishes. */
	bool drc_skip;
	int stats_slot;
	uint64_t t0;
};

/*
 * rpc_call_alloc() - zeroed memory from the call's request arena that
 * lives until the request finishes. Returns NULL only when malloc fails.
 */
static inline void *rpc_call_alloc(struct rpc_call *call, size_t n)
{
	return req_alloc(call->req, n);
}

/* rpc_call_peer() - the caller's address, for export client matching. */
static inline const struct sockaddr *rpc_call_peer(const struct rpc_call *call)
{
	return (const struct sockaddr *)call->req->peer;
}

/*
 * One procedure. @decode fills @args (size args_size, zeroed) from
 * call->args, borrowing from the received message; returning false makes
 * the reply GARBAGE_ARGS. @handle fills @res (size res_size, zeroed).
 * @encode writes @res into the reply body (call->res, a cursor over a
 * segment of max_reply bytes, begun before @handle ran); false makes the
 * reply SYSTEM_ERR. A handler may end the body with a payload
 * (req_reply_set_payload: READ's data, not copied) whose XDR length word
 * @encode writes last. @release (optional)
 * frees what @handle took for @res. With RPC_PROC_OWN_REPLY, @handle
 * builds the reply body in the request's chain itself (COMPOUND, whose
 * size is known only as it runs) and @encode is NULL.
 */
struct rpc_proc {
	const char *name;
	size_t args_size;
	size_t res_size;
	bool (*decode)(struct xdr_buf *x, void *args);
	void (*handle)(struct rpc_call *call, const void *args, void *res);
	bool (*encode)(struct xdr_buf *x, const void *res);
	void (*release)(struct rpc_call *call, void *res);
	uint32_t flags;
	size_t max_reply; /* bytes of reply body the encoder may need */
	/*
	 * Optional: from the first @len bytes of the arguments (maybe not
	 * all of them), the offset within the arguments of the payload byte
	 * that should sit at an RPC_PAYLOAD_ALIGN-aligned address (WRITE:
	 * the first byte that starts a file block), or 0 for none.
	 */
	size_t (*payload_align)(const uint8_t *args, size_t len);
	/*
	 * Optional, for RPC_PROC_INLINE procedures: from the first @len
	 * bytes of the arguments, whether this call is small enough to run
	 * inline (READ: the count asked); without it every call may. A
	 * handler that runs inline honours req.nowait whatever this said:
	 * the hint only saves the hand-off of calls that would defer.
	 */
	bool (*inline_ok)(const uint8_t *args, size_t len);
	/*
	 * Optional: from the first @len bytes of the arguments, whether this
	 * call goes through the duplicate request cache as if the procedure
	 * were RPC_PROC_NONIDEMPOTENT (COMPOUND: minor version 0, which has
	 * no slot table); the handler may then set call->drc_skip.
	 */
	bool (*drc_ok)(const uint8_t *args, size_t len);
};

#define RPC_PAYLOAD_ALIGN 4096

#define RPC_PROC_NONIDEMPOTENT 0x1 /* goes through the duplicate request cache */
/* @res starts with a uint32_t protocol status, 0 = OK; the statistics
 * count any other value as an error of the procedure (core/stats.h). */
#define RPC_PROC_RES_STATUS 0x2
/*
 * Cheap, and blocks at most briefly on cached metadata: the transport may
 * run it on the event-loop thread that read it, with no hand-off to a
 * worker (DESIGN.md §3). Handlers of such procedures honour call->nowait.
 */
#define RPC_PROC_INLINE 0x4
/* @handle builds the reply body itself (see struct rpc_proc). */
#define RPC_PROC_OWN_REPLY 0x8

/* Reply body size assumed when a procedure leaves max_reply at 0. */
#define RPC_DEFAULT_MAX_REPLY 4096
/* Bytes of reply header before the body: xid, REPLY, MSG_ACCEPTED, verf,
 * accept_stat, and mismatch_info (RFC 5531 §9). */
#define RPC_REPLY_HDR_MAX 32

struct rpc_version {
	uint32_t vers;
	uint32_t nprocs;
	const struct rpc_proc *procs; /* indexed by procedure number */
	/*
	 * The protocol status meaning "try again later" (NFS3ERR_JUKEBOX), or
	 * 0: a reply with it (RPC_PROC_RES_STATUS procedures) is not kept in
	 * the duplicate request cache, so the client's retry runs again.
	 */
	uint32_t status_retry;
};

struct rpc_program {
	uint32_t prog;
	const char *name;
	uint32_t nversions;
	const struct rpc_version *versions; /* ascending by vers */
};

/*
 * rpc_register_program() - make @prog reachable on every RPC listener.
 * Called at start-up before listeners open; @prog must stay valid.
 * Registering the same program number twice replaces the first entry.
 * A procedure table entry with neither .name nor .handle is a hole and
 * answers PROC_UNAVAIL; .decode/.encode may be NULL for void args/results.
 */
void rpc_register_program(const struct rpc_program *prog);

/* rpc_find_program() - the registered program @prog, or NULL. */
const struct rpc_program *rpc_find_program(uint32_t prog);

/*
 * rpc_record_align() - for a record whose first @len bytes are @head: the
 * record offset that should be RPC_PAYLOAD_ALIGN-aligned (the call
 * header and credentials skipped, then the procedure's payload_align), or
 * 0 when unknown. Used by the transport to place a record in memory
 * before its payload arrives; never trusted for anything else.
 */
size_t rpc_record_align(const uint8_t *head, size_t len);

/*
 * rpc_record_inline() - whether the complete record @rec (@len bytes) may
 * run on the event loop: a CALL of an RPC_PROC_INLINE procedure (whose
 * inline_ok, if any, agrees), or a message answered or dropped without
 * reaching a procedure (bad header, unknown program, version or
 * procedure). Never trusted for anything else: rpc_process() decodes the
 * record again. @conn_priv is unused (the transport's hook signature).
 */
bool rpc_record_inline(void *conn_priv, const uint8_t *rec, size_t len);

/*
 * rpc_process() - the RPC protocol's entry for one request whose message
 * (r->msg, r->msg_len) is a complete record: decode the call (RFC 5531
 * §9), authenticate, dispatch, and build the reply in r's reply chain
 * (RPC reply header prepended to the procedure's body). Returns
 * REQ_REPLY when a reply must be sent, REQ_DROP when the message is
 * dropped (not a CALL, or a retransmission still in progress), or
 * REQ_DEFER when r->nowait was set and the procedure would block: the
 * call's state stays in r->proto, and calling rpc_process() again (on a
 * thread that may block, nowait clear) continues it.
 */
enum req_verdict rpc_process(struct req *r);

/*
 * Record marking (RFC 5531 §11), the framing of RPC over TCP: a 4-byte
 * big-endian header, top bit "last fragment", low 31 bits the fragment
 * length. The transport assembles fragments; these read and write one
 * header. rpc_rm_parse() returns 0 (it cannot fail: any length is a
 * length, the transport checks it against its limit).
 */
#define RPC_RM_HDR_LEN 4
#define RPC_RM_LAST_FRAG 0x80000000u
#define RPC_RM_LEN_MASK 0x7fffffffu
int rpc_rm_parse(const uint8_t *hdr, uint32_t *len, bool *last);
void rpc_rm_build(uint8_t *hdr, uint32_t len);

/*
 * rpc_set_reply_handler() - REPLY messages (RFC 5531 §9) arriving on a
 * connection, answers to calls the server sent on it (the NFSv4.1 back
 * channel), go to @fn with the whole record (@rec, @len; borrowed for the
 * duration of the call) instead of being dropped. It may run on an event
 * loop thread and must not block. Set at start-up; NULL drops them again.
 */
void rpc_set_reply_handler(void (*fn)(struct conn *c, uint32_t xid,
				      const uint8_t *rec, size_t len));

/*
 * rpc_set_close_handler() - @fn(c) runs when an RPC connection closes (for
 * layers that keep connections beyond one call: the back channel). It
 * runs on the connection's event loop, must not block, and is called once
 * per connection. Set at start-up; NULL for none.
 */
void rpc_set_close_handler(void (*fn)(struct conn *c));

/* rpc_conn_close() - the transport's close hook of RPC listeners. */
void rpc_conn_close(struct conn *c, void *conn_priv);

#endif
