/* SPDX-License-Identifier: MIT */
#ifndef NASD_NFS4_COMPOUND_H
#define NASD_NFS4_COMPOUND_H

/*
 * COMPOUND evaluation (RFC 8881 §16.2, RFC 7530 §16.2): the per-request
 * context that every operation sees, and the operation table.
 *
 * Each operation is one row: decode its arguments from the request, run,
 * encode status + result into the reply. The loop stops at the first
 * error. All memory for args/results comes from rpc_call_alloc(), the
 * request's arena.
 */

#include <stdbool.h>
#include <stdint.h>

#include "export/export.h"
#include "nfs4/nfs4_xdr.h"
#include "rpc/rpc.h"
#include "vfs/vfs.h"

struct nfs4_client;
struct nfs4_session;
struct nfs4_slot;
struct nfs4_pseudo_node;

/*
 * A filehandle in the compound: either a node of the pseudo-filesystem
 * (directories leading to exports) or an object of an export.
 */
struct nfs4_fh {
	bool set;
	struct nfs4_pseudo_node *pseudo;  /* pseudo node, or NULL */
	struct export *export;            /* when !pseudo */
	const struct export_opts *opts;   /* this client's options */
	struct vfs_obj *obj;              /* owned reference, when !pseudo */
	struct stateid4 stateid;          /* 4.1 current stateid (§16.2.3.1.2) */
	bool stateid_set;
};

struct nfs4_compound {
	struct rpc_call *call;
	uint32_t minorversion;
	struct export_table *exports;     /* reference held for the request */
	struct nfs4_fh cur;
	struct nfs4_fh saved;
	/* The credentials in force on this thread (export_admit's squash of
	 * the caller, or the server's identity) and the export options they
	 * were admitted for (NULL: none applied yet on this thread). */
	struct vfs_cred cred;
	const void *cred_for;
	/* 4.1+: set by SEQUENCE */
	struct nfs4_session *session;
	struct nfs4_slot *slot;
	struct nfs4_client *client;       /* the session's client (4.1) */
	/* 4.0: the client whose grants this compound's accesses leave alone
	 * (the last stateid checked for I/O, an OPEN's owner, else the 4.0
	 * client whose state came on this connection, nfs4_conn40_client());
	 * identity only. See nfs4_grant_key(). */
	const void *grant_key;
	bool cachethis;
	uint32_t opindex;                 /* index of the op being run */
	uint32_t numops;
	/* 4.1+, set by SEQUENCE: the COMPOUND4res limit (ca_maxresponsesize
	 * less the RPC reply header, or with sa_cachethis the smaller
	 * ca_maxresponsesize_cached, which bounds the body as the slot keeps
	 * it), and the error of an op whose result passes it */
	uint32_t resp_max;
	uint32_t too_big;                 /* REP_TOO_BIG(_TO_CACHE) */
	/* set by SEQUENCE on a retry: the whole cached COMPOUND reply */
	const uint8_t *replay;
	size_t replay_len;
	/* set by a 4.0 seqid op on a replay: that op's cached encoded result
	 * (status + body), copied verbatim into the reply */
	const uint8_t *op_replay;
	size_t op_replay_len;
	/* the pseudo-fs of @exports (nfs4_compound_pseudo) and the reply
	 * bytes left for the running op's result body (nfs4_compound_room) */
	struct nfs4_pseudo *pseudo;
	uint32_t reply_room;
	/* the last nfs4_state_check_io() passed an open or lock stateid
	 * of an open for read: that OPEN checked the right to read, which
	 * the open keeps as a file descriptor does (knfsd does not check
	 * again either); false for special and delegation stateids */
	bool io_open_read;
};

/*
 * nfs4_grant_key() - the key of the caller's own delegations, which its
 * accesses do not recall (state_grant_break_key): its client, the
 * session's in 4.1, in 4.0 the one its stateids or open owner named
 * (NULL when none has yet).
 */
static inline const void *nfs4_grant_key(const struct nfs4_compound *c)
{
	return c->client ? (const void *)c->client : c->grant_key;
}

/* Operation flags. */
#define NFS4_OP_NEEDS_FH 0x01    /* NOFILEHANDLE without a current fh */
#define NFS4_OP_MODIFIES 0x02    /* ROFS on a read-only export */
#define NFS4_OP_NO_SEQ 0x04      /* 4.1: allowed as first op without SEQUENCE */

struct nfs4_op {
	const char *name;
	uint8_t minor_min;           /* first minor version that has it */
	uint8_t minor_max;           /* last one (255 = all) */
	uint16_t flags;
	uint32_t args_size;
	uint32_t res_size;
	bool (*decode)(struct xdr_buf *x, void *args);
	/* returns nfsstat4; fills @res. NULL for an operation nasd does not
	 * implement and answers NFS4ERR_NOTSUPP as soon as its opnum is
	 * read: nothing decoded, no precheck (see nfs4_op_notsupp) */
	uint32_t (*handle)(struct nfs4_compound *c, void *args, void *res);
	/* encodes the result body after the status (only called with status
	 * NFS4_OK, or for ops whose error result has a body: set
	 * encode_err) */
	bool (*encode)(struct xdr_buf *x, uint32_t status, const void *res);
	bool encode_err;             /* encode() also on error (e.g. LOCK) */
	void (*release)(struct nfs4_compound *c, void *res);
	/* optional: sees the op's encoded status + body (4.0 seqid replay
	 * cache of open/lock owners) */
	void (*cache)(struct nfs4_compound *c, const void *res,
		      const uint8_t *enc, size_t len);
};

/*
 * The table, indexed by nfs_opnum4 (RFC 8881 §16.2.3): a descriptor for
 * every opnum from OP_ACCESS to OP_REMOVEXATTR, NULL below OP_ACCESS. Each
 * op's descriptor `nfs4_op_desc_<op>` is defined in the file that
 * implements it (nfs4_ops.c refers to them all, so a missing one fails
 * the link).
 */
extern const struct nfs4_op *const nfs4_ops[];

/* nfs4_op_stats_init() - count each operation in `nasd stats` (program
 * "nfs4_op", version 4, procedure: the operation number). Start-up. */
void nfs4_op_stats_init(void);
extern const uint32_t nfs4_ops_count;

/*
 * nfs4_op_notsupp() - the handler of the operations nasd does not
 * implement but still treats as operations: their arguments decoded
 * (when they have a decoder) and the prechecks of RFC 8881 §16.2.3 run
 * (ops_notsupp.c, ops42_notsupp.c). Returns NFS4ERR_NOTSUPP, always.
 */
uint32_t nfs4_op_notsupp(struct nfs4_compound *c, void *args, void *res);

/*
 * nfs4_fh_set_obj() - make @fh name @obj of export @e (takes over the
 * caller's reference on @obj), releasing what it named before.
 */
void nfs4_fh_set_obj(struct nfs4_fh *fh, struct export *e,
		     const struct export_opts *opts, struct vfs_obj *obj);
void nfs4_fh_clear(struct nfs4_fh *fh);
void nfs4_fh_copy(struct nfs4_fh *dst, const struct nfs4_fh *src);

/*
 * nfs4_status() - the nfsstat4 for internal status @err answered by
 * operation @op: only errors RFC 8881 §15.2 allows for @op.
 */
uint32_t nfs4_status(uint32_t op, int err);

#endif
