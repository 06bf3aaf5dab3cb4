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

/*
 * One RPC call in progress. Owned by the transport from the moment its
 * record is read until rpc_call_finish(); everything a handler allocates
 * with rpc_call_alloc() is freed then.
 */
struct rpc_call {
	struct conn *conn;
	uint32_t xid;
	uint32_t prog;
	uint32_t vers;
	uint32_t proc;
	struct rpc_cred cred;
	struct sockaddr_storage peer; /* copy of the connection's peer */
	socklen_t peer_len;
	bool peer_privileged;        /* source port < 1024 */
	/*
	 * Set by the transport: the call runs on the event-loop thread that
	 * read it and must not block (RPC_PROC_INLINE). A handler that finds
	 * it would (a READ missing the page cache) sets @defer and returns:
	 * rpc_process_record() then returns false with @defer still set, no
	 * reply built and nothing counted, and the transport runs the call
	 * again from its record on a worker, with @nowait clear.
	 */
	bool nowait;
	bool defer;
	struct sockaddr_storage local; /* our address on the connection */
	socklen_t local_len;
	struct xdr_buf args;         /* the procedure's arguments */
	struct xdr_buf res;          /* the reply being built */
	/* per-call bump allocator (see rpc_call_alloc) */
	uint8_t *arena;
	size_t arena_used;
	size_t arena_size;
	void *arena_overflow;        /* list of malloc'd chunks */
	/* release hook for data borrowed by the reply tail (e.g. READ) */
	void (*tail_release)(void *);
	void *tail_arg;
};

/*
 * rpc_call_alloc() - zeroed memory that lives until the call finishes.
 * Returns NULL only when malloc fails.
 */
void *rpc_call_alloc(struct rpc_call *call, size_t n);

/*
 * rpc_call_init() - prepare @call for a new record: zero its RPC state and
 * use @arena (@arena_size bytes, borrowed from the caller, which keeps it
 * until rpc_call_finish()) as the first chunk of the call's bump allocator.
 * The caller then fills conn/peer/local and calls rpc_process_record().
 */
void rpc_call_init(struct rpc_call *call, void *arena, size_t arena_size);

/*
 * rpc_call_finish() - the reply has been sent (or dropped): run the tail
 * release hook and free every overflow chunk of the arena. After this no
 * pointer returned by rpc_call_alloc() for @call is valid. @call itself
 * and its first arena chunk stay the caller's.
 */
void rpc_call_finish(struct rpc_call *call);

/*
 * One procedure. @decode fills @args (size args_size, zeroed) from
 * call->args, borrowing from the receive buffer; returning false makes the
 * reply GARBAGE_ARGS. @handle fills @res (size res_size, zeroed). @encode
 * writes @res into call->res; false makes the reply SYSTEM_ERR. @release
 * (optional) frees what @handle took for @res.
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
	 * inline (READ: the count asked); without it every call may.
	 */
	bool (*inline_ok)(const uint8_t *args, size_t len);
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
 * procedure). Never trusted for anything else: rpc_process_record()
 * decodes the record again.
 */
bool rpc_record_inline(const uint8_t *rec, size_t len);

/*
 * rpc_process_record() - decode one complete RPC record (RFC 5531 §9),
 * authenticate, dispatch, and build the reply in call->res. Returns true
 * when a reply must be sent, false when the message is dropped (not a
 * CALL, or a retransmission still in progress).
 */
bool rpc_process_record(struct rpc_call *call, uint8_t *rec, size_t len);

/*
 * rpc_set_reply_handler() - REPLY messages (RFC 5531 §9) arriving on a
 * connection, answers to calls the server sent on it (the NFSv4.1 back
 * channel), go to @fn with the whole record (@rec, @len; borrowed for the
 * duration of the call) instead of being dropped. It may run on an event
 * loop thread and must not block. Set at start-up; NULL drops them again.
 */
void rpc_set_reply_handler(void (*fn)(struct conn *c, uint32_t xid,
				      const uint8_t *rec, size_t len));

#endif
