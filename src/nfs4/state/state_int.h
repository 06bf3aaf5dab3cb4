/* SPDX-License-Identifier: MIT */
#ifndef NASD_NFS4_STATE_STATE_INT_H
#define NASD_NFS4_STATE_STATE_INT_H

/*
 * Internals of the NFSv4 state module (src/nfs4/state/), shared by its
 * files and the unit tests. Not for use outside this folder.
 *
 * Locking. The hot path (SEQUENCE, RENEW, the stateid checks of READ,
 * WRITE and SETATTR(size)) takes only per-client, per-session, per-file
 * and sharded locks, so requests of different clients do not serialise;
 * structural changes keep one global lock. The locks, outermost first: a
 * thread may take a lock only while holding none below it.
 *
 *   grace_io_mu (grace.c): the stable-storage writes of client records.
 *
 *   nfs4_st.mu, the structural lock: the client list and its counters
 *     (nclients, nsessions, next_clientid); creating, confirming and
 *     destroying clients; creating and destroying sessions; the client
 *     records SETCLIENTID, EXCHANGE_ID and CREATE_SESSION keep (verifier,
 *     principal, 4.0 callback and pending update, eir_flags, cs_*,
 *     recorded); grace bookkeeping (recs, the forgets queue, ending
 *     grace); the lease reaper's wait. Never taken by the hot path.
 *
 *   nfs4_client.mu, one per client: its owners (hash, list, seqids,
 *     replay caches, refs), opens and lock states, the seqid, type and
 *     file of its stateids, nowners, nstates, the 4.0 callback state.
 *
 *   nfs4_session.mu, one per session: the slot table and slot caches,
 *     the bound connections, the back-channel state (cb_*), dead.
 *
 *   state_file.mu (src/state/): the shares and byte ranges of one file.
 *
 *   Leaves, under which nothing is taken: the shard locks of the client,
 *     session and stateid hashes (and of src/state/'s file table):
 *     membership of the chains; tomb_mu: the expired-stateid ring;
 *     bc_mu (backchannel.c): the probe table, counters and xid; cb_mu
 *     (callback.c): the callback thread's queue.
 *
 * Some fields change only with both nfs4_st.mu and the client's mutex
 * held and may be read under either: a client's confirmed, dead,
 * can_reclaim, reclaim_complete, expiring, its session list and
 * nsessions.
 * Atomics need no lock: the refs of clients and sessions, a client's
 * lease (renewed), nfs4_st.next_id, nstateids, cache_bytes, in_grace
 * (written under nfs4_st.mu), the reclaim counters, the back channel's
 * operations. Immutable while the object lives: ids, a session's client
 * and channel attributes, an owner's client and name, a stateid's
 * client and other.
 *
 * Lifetime: objects kept across an unlock are pinned by a reference and
 * marked dead instead of freed while pinned. A client is freed at its
 * last reference: the table holds one until destroyed, and so does each
 * session and each owner, so that a pinned session or owner may always
 * reach its client's mutex. A session is freed at its last reference
 * (the table's until destroyed, requests', the back channel's probes).
 * A thread holding a client's or session's mutex always holds a
 * reference of its own on it. Lookups of the hashes take the reference
 * under the shard lock; an object leaves its hash (under the shard lock)
 * before it is marked dead, so a lookup never pins a dead one, though
 * it may find one that dies before the caller locks it: callers check
 * dead (clients, sessions) or look the stateid up again (stateids) once
 * they hold the mutex.
 */

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/timer.h"
#include "nfs4/compound.h"
#include "nfs4/nfs4_xdr.h"
#include "nfs4/state/state.h"
#include "rpc/rpc.h"
#include "state/file_state.h"
#include "vfs/vfs.h"

/* Limits (DESIGN.md §5): at a limit the client gets RESOURCE or DELAY. */
/* client records and sessions: by memory (nfs4_client_mem_reserve) */
#define NFS4_MAX_SESSIONS_PER_CLIENT 16
/* how long a 4.1 client past its lease keeps its state at most (knfsd) */
#define NFS4_COURTESY_MAX_S (24 * 3600)
#define NFS4_MAX_OWNERS_PER_CLIENT 8192
#define NFS4_MAX_STATEIDS 262144
/* byte ranges: STATE_MAX_RANGES of the shared file state */
#define NFS4_MAX_CONNS_PER_SESSION 8
#define NFS4_MAX_DELEGS 65536
#define NFS4_MAX_DELEGS_PER_CLIENT 8192

/* Channel limits offered by CREATE_SESSION (RFC 8881 §18.36). */
#define NFS4_CA_MAXREQUEST (1024 * 1024 + 64 * 1024)
#define NFS4_CA_MAXRESPONSE (1024 * 1024 + 64 * 1024)
#define NFS4_CA_MAXRESPONSE_CACHED (64 * 1024)
#define NFS4_CA_MAXOPS 64
#define NFS4_CA_MAXREQUESTS 64
/*
 * The smallest fore channel that carries a COMPOUND at all (RFC 8881
 * §18.36.3, as knfsd): a request of the RPC call header with AUTH_NONE
 * and an empty tag, minor version, count and SEQUENCE (24 + 16 + 12 +
 * 36); a reply of the RPC reply header, status, empty tag, count and the
 * SEQUENCE result (24 + 12 + 44). Less is TOOSMALL.
 */
#define NFS4_CA_MIN_REQUEST 88
#define NFS4_CA_MIN_RESPONSE 80
/* The back channel must take the reply to nasd's CB_COMPOUND of a recall:
 * the RPC reply header, status, empty tag, count, CB_SEQUENCE and
 * CB_RECALL results (24 + 12 + 40 + 8); the call, nfs4_bc_call_max(). */
#define NFS4_CB_MIN_RESPONSE 84
#define NFS4_CB_MAXREQUEST 16384
#define NFS4_CB_MAXOPS 8
/* ceiling of all slot reply caches together; beyond it replies are not
 * cached (a retry then gets RETRY_UNCACHED_REP) */
#define NFS4_SLOT_CACHE_TOTAL (64u * 1024 * 1024)
/* replies up to this size are cached even without sa_cachethis */
#define NFS4_SLOT_CACHE_ALWAYS 4096

/* OPEN4args/LOCK constants (RFC 8881 §18.16, §18.10). */
#define OPEN4_SHARE_ACCESS_READ 0x1
#define OPEN4_SHARE_ACCESS_WRITE 0x2
#define OPEN4_SHARE_ACCESS_BOTH 0x3
#define OPEN4_SHARE_DENY_NONE 0x0
#define OPEN4_SHARE_DENY_READ 0x1
#define OPEN4_SHARE_DENY_WRITE 0x2
#define OPEN4_SHARE_DENY_BOTH 0x3
#define OPEN4_SHARE_ACCESS_WANT_DELEG_MASK 0xff00
#define OPEN4_SHARE_ACCESS_WANT_NO_PREFERENCE 0x0000
#define OPEN4_SHARE_ACCESS_WANT_READ_DELEG 0x0100
#define OPEN4_SHARE_ACCESS_WANT_WRITE_DELEG 0x0200
#define OPEN4_SHARE_ACCESS_WANT_ANY_DELEG 0x0300
#define OPEN4_SHARE_ACCESS_WANT_NO_DELEG 0x0400
#define OPEN4_SHARE_ACCESS_WANT_CANCEL 0x0500
#define OPEN4_SHARE_ACCESS_WANT_SIGNAL_DELEG_WHEN_RESRC_AVAIL 0x10000
#define OPEN4_SHARE_ACCESS_WANT_PUSH_DELEG_WHEN_UNCONTENDED 0x20000

#define NFS_LIMIT_SIZE 1              /* limit_by4 */

#define OPEN4_RESULT_CONFIRM 0x2
#define OPEN4_RESULT_LOCKTYPE_POSIX 0x4

enum opentype4 { OPEN4_NOCREATE = 0, OPEN4_CREATE = 1 };
enum createmode4 {
	UNCHECKED4 = 0,
	GUARDED4 = 1,
	EXCLUSIVE4 = 2,
	EXCLUSIVE4_1 = 3,
};
enum open_claim_type4 {
	CLAIM_NULL = 0,
	CLAIM_PREVIOUS = 1,
	CLAIM_DELEGATE_CUR = 2,
	CLAIM_DELEGATE_PREV = 3,
	CLAIM_FH = 4,
	CLAIM_DELEG_CUR_FH = 5,
	CLAIM_DELEG_PREV_FH = 6,
};
enum open_delegation_type4 {
	OPEN_DELEGATE_NONE = 0,
	OPEN_DELEGATE_READ = 1,
	OPEN_DELEGATE_WRITE = 2,
	OPEN_DELEGATE_NONE_EXT = 3,
};
enum why_no_delegation4 {
	WND4_NOT_WANTED = 0,
	WND4_CONTENTION = 1,
	WND4_RESOURCE = 2,
	WND4_NOT_SUPP_FTYPE = 3,
	WND4_WRITE_DELEG_NOT_SUPP_FTYPE = 4,
	WND4_NOT_SUPP_UPGRADE = 5,
	WND4_NOT_SUPP_DOWNGRADE = 6,
	WND4_CANCELLED = 7,
	WND4_IS_DIR = 8,
};
enum nfs_lock_type4 {
	READ_LT = 1,
	WRITE_LT = 2,
	READW_LT = 3,
	WRITEW_LT = 4,
};

/* EXCHANGE_ID (RFC 8881 §18.35) */
#define EXCHGID4_FLAG_SUPP_MOVED_REFER 0x00000001
#define EXCHGID4_FLAG_SUPP_MOVED_MIGR 0x00000002
#define EXCHGID4_FLAG_BIND_PRINC_STATEID 0x00000100
#define EXCHGID4_FLAG_USE_NON_PNFS 0x00010000
#define EXCHGID4_FLAG_USE_PNFS_MDS 0x00020000
#define EXCHGID4_FLAG_USE_PNFS_DS 0x00040000
#define EXCHGID4_FLAG_MASK_PNFS 0x00070000
#define EXCHGID4_FLAG_UPD_CONFIRMED_REC_A 0x40000000
#define EXCHGID4_FLAG_CONFIRMED_R 0x80000000
#define EXCHGID4_FLAG_MASK_A 0x40070103
enum state_protect_how4 { SP4_NONE = 0, SP4_MACH_CRED = 1, SP4_SSV = 2 };

/* CREATE_SESSION (RFC 8881 §18.36) */
#define CREATE_SESSION4_FLAG_PERSIST 0x1
#define CREATE_SESSION4_FLAG_CONN_BACK_CHAN 0x2
#define CREATE_SESSION4_FLAG_CONN_RDMA 0x4

/* SEQUENCE sr_status_flags (RFC 8881 §18.46.3) */
#define SEQ4_STATUS_CB_PATH_DOWN 0x1
#define SEQ4_STATUS_EXPIRED_ALL_STATE_REVOKED 0x8
#define SEQ4_STATUS_RECALLABLE_STATE_REVOKED 0x40
#define SEQ4_STATUS_CB_PATH_DOWN_SESSION 0x200
#define SEQ4_STATUS_BACKCHANNEL_FAULT 0x400

/* The callback program's version (RFC 8881 §20 XDR, knfsd, Linux). */
#define NFS4_CB_VERSION 1
/* A back channel whose CB_NULL got no answer in this time is down. */
#define NFS4_CB_PROBE_TIMEOUT_MS 5000
/* SEQUENCE's request digest covers at most this many bytes of args. */
#define NFS4_SEQ_DIGEST_BYTES 2048

/* BIND_CONN_TO_SESSION (RFC 8881 §18.34) */
enum channel_dir_from_client4 {
	CDFC4_FORE = 0x1,
	CDFC4_BACK = 0x2,
	CDFC4_FORE_OR_BOTH = 0x3,
	CDFC4_BACK_OR_BOTH = 0x7,
};
enum channel_dir_from_server4 {
	CDFS4_FORE = 0x1,
	CDFS4_BACK = 0x2,
	CDFS4_BOTH = 0x3,
};

/* A tiny intrusive doubly linked list. */
struct nfs4_list {
	struct nfs4_list *next, *prev;
};

static inline void nfs4_list_init(struct nfs4_list *h)
{
	h->next = h->prev = h;
}

static inline bool nfs4_list_empty(const struct nfs4_list *h)
{
	return h->next == h;
}

static inline void nfs4_list_add_tail(struct nfs4_list *h,
				      struct nfs4_list *n)
{
	n->prev = h->prev;
	n->next = h;
	h->prev->next = n;
	h->prev = n;
}

/* Insert @n before @pos. */
static inline void nfs4_list_add_before(struct nfs4_list *pos,
					struct nfs4_list *n)
{
	nfs4_list_add_tail(pos, n);
}

/*
 * clang-analyzer (unix.Malloc) cannot tell that an entry's prev is the
 * list head, so after nfs4_list_del() and free() it may still see the
 * head pointing at the entry: the reads it then flags are suppressed
 * inline with a pointer here.
 */
static inline void nfs4_list_del(struct nfs4_list *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	n->next = n->prev = n;
}

#define nfs4_container_of(ptr, type, member)                                   \
	((type *)(void *)((char *)(ptr)-offsetof(type, member)))

/* The caller's identity for client-record principal checks. */
struct nfs4_princ {
	uint32_t flavor;
	uint32_t uid;
	uint32_t gid;
};

struct channel_attrs4 {
	uint32_t ca_headerpadsize;
	uint32_t ca_maxrequestsize;
	uint32_t ca_maxresponsesize;
	uint32_t ca_maxresponsesize_cached;
	uint32_t ca_maxoperations;
	uint32_t ca_maxrequests;
	uint32_t ca_rdma_ird_len;     /* 0 or 1 */
	uint32_t ca_rdma_ird;
};

struct CREATE_SESSION4resok {
	uint8_t csr_sessionid[NFS4_SESSIONID_SIZE];
	uint32_t csr_sequence;
	uint32_t csr_flags;
	struct channel_attrs4 csr_fore_chan_attrs;
	struct channel_attrs4 csr_back_chan_attrs;
};

enum nfs4_cb_state {
	NFS4_CB_UNKNOWN = 0,
	NFS4_CB_UP,
	NFS4_CB_DOWN,
	NFS4_CB_PROBING,               /* 4.1: a CB_NULL is out */
};

/* Security for calls on a 4.1 back channel (csa_sec_parms). */
#define NFS4_CB_FLAVOR_NONE_USABLE 0xffffffffu
struct nfs4_cb_sec {
	uint32_t flavor;               /* AUTH_NONE, AUTH_SYS or NONE_USABLE */
	uint32_t stamp;
	uint32_t uid;
	uint32_t gid;
	uint32_t ngids;
	uint32_t gids[RPC_AUTH_SYS_NGIDS_MAX];
	uint32_t machine_len;
	char machine[RPC_AUTH_SYS_MACHINE_MAX];
};

/* 4.0 callback address (SETCLIENTID cb_client4). */
struct nfs4_cb40 {
	uint32_t program;
	uint32_t ident;
	char netid[16];
	char addr[64];
};

#define NFS4_OWNER_BUCKETS 256     /* per client */

struct nfs4_client {
	/* nfs4_st.mu */
	struct nfs4_list link;         /* nfs4_st.clients */
	/* the client hash's shard lock */
	struct nfs4_client *hnext;
	/* immutable */
	clientid4 clientid;
	uint32_t minor;                /* 0: SETCLIENTID, 1: EXCHANGE_ID */
	uint8_t *ownerid;              /* nfs_client_id4.id / co_ownerid */
	uint32_t ownerid_len;
	/* atomics */
	_Atomic uint64_t renewed;      /* nfs4_now_ms() of the last renew */
	atomic_int refs;               /* table, sessions, owners, requests */
	/* 4.1: lease lapsed, state kept until someone needs it (written by
	 * the reaper), and someone does (nfs4_client_courtesy_needed) */
	atomic_bool courtesy;
	atomic_bool expire_now;
	pthread_mutex_t mu;
	/* nfs4_st.mu and @mu to write, either to read */
	bool confirmed;
	bool dead;                     /* expired/destroyed, unhashed */
	bool can_reclaim;              /* known from before the restart */
	bool reclaim_complete;
	bool expiring;                 /* its stateids become tombstones */
	struct nfs4_list sessions;     /* nfs4_session.client_link */
	uint32_t nsessions;

	/* nfs4_st.mu */
	struct verifier4 verifier;
	struct nfs4_princ princ;
	bool recorded;                 /* on stable storage (grace.c) */
	/* 4.0 */
	struct verifier4 confirm;      /* setclientid_confirm */
	struct nfs4_cb40 cb;
	bool pending;                  /* a callback update awaits confirm */
	struct verifier4 pending_confirm;
	struct nfs4_cb40 pending_cb;
	struct nfs4_princ pending_princ;
	/* 4.1 */
	uint32_t eir_flags;
	uint32_t cs_seq;               /* last executed csa_sequence */
	bool cs_cached;
	uint32_t cs_status;            /* cached CREATE_SESSION reply */
	struct CREATE_SESSION4resok cs_res;

	/* @mu */
	enum nfs4_cb_state cb_state;   /* 4.0 callback path */
	struct nfs4_cb40 cb_probed;    /* 4.0: the address that answered */
	bool cb40_busy;                /* 4.0: a CB_RECALL is out */
	struct nfs4_list delegs;       /* nfs4_deleg.client_link */
	uint32_t ndelegs;              /* live and revoked */
	/* revoked, not yet FREE_STATEID'd (atomic: SEQUENCE reads it) */
	atomic_uint nrevoked;
	struct nfs4_list owners;       /* nfs4_owner.client_link */
	struct nfs4_owner *owner_hash[NFS4_OWNER_BUCKETS];
	uint32_t nowners;
	uint32_t nstates;              /* opens + lock states */
};

/* The slots of a session: under the session's mutex. */
struct nfs4_slot {
	uint32_t seqid;
	uint64_t digest;               /* of the request seqid belongs to */
	bool inuse;
	bool has_cache;                /* a reply is cached for seqid */
	bool executed;                 /* seqid was executed (cached or not) */
	uint8_t *cache;
	size_t cache_len;
};

struct nfs4_session {
	/* the session hash's shard lock */
	struct nfs4_session *hnext;
	/* nfs4_st.mu and the client's mutex */
	struct nfs4_list client_link;
	/* immutable */
	uint8_t id[NFS4_SESSIONID_SIZE];
	struct nfs4_client *client;    /* a reference */
	struct channel_attrs4 fore;
	struct channel_attrs4 back;
	uint32_t flags;                /* csr_flags */
	uint32_t nslots;
	struct nfs4_slot *slots;       /* the array; its slots under @mu */
	atomic_int refs;
	pthread_mutex_t mu;
	/* @mu */
	bool dead;
	uint32_t cb_program;
	/* pinned while bound (nfs4_bc_conn_get), unbound when they close */
	struct conn *conns[NFS4_MAX_CONNS_PER_SESSION];
	uint8_t conn_dir[NFS4_MAX_CONNS_PER_SESSION];  /* CDFS4_* */
	uint32_t nconns;
	/* back channel (backchannel.c) */
	uint32_t minor;                /* CREATE_SESSION's: CB_COMPOUND's */
	struct nfs4_cb_sec cb_sec;
	enum nfs4_cb_state cb_state;   /* DOWN until a CB_NULL is answered */
	struct conn *cb_conn;          /* where the last probe went */
	uint32_t cb_xid;               /* its xid */
	uint64_t cb_sent;              /* nfs4_now_ms() when it was queued */
	uint32_t cb_rtt_ms;            /* of the last answered call */
	/* the one CB_COMPOUND out on slot 0 (backchannel.c) */
	bool call_busy;
	uint32_t call_xid;
	uint32_t call_seq;             /* slot 0's csa_sequenceid */
	uint64_t call_sent;            /* nfs4_now_ms() */
	uint8_t call_other[NFS4_OTHER_SIZE]; /* the delegation called for */
	uint32_t call_op;              /* OP_CB_RECALL or OP_CB_GETATTR */
};

enum nfs4_stid_type {
	NFS4_STID_OPEN = 1,
	NFS4_STID_LOCK = 2,
	NFS4_STID_CLOSED = 3,          /* 4.0: kept for a CLOSE replay */
	NFS4_STID_DELEG = 4,
	NFS4_STID_DELEG_REVOKED = 5,   /* until FREE_STATEID (4.1) */
};

struct nfs4_stid {
	/* the stateid hash's shard lock */
	struct nfs4_stid *hnext;
	/* immutable */
	uint8_t other[NFS4_OTHER_SIZE];
	struct nfs4_client *client;
	/* the client's mutex */
	uint32_t seqid;
	uint8_t type;
	struct state_file *file;       /* a reference; NULL once CLOSEd */
};

/*
 * Open or lock owner (RFC 7530 §9.1.5, RFC 8881 §8.2.3): under its
 * client's mutex but for the immutable client (a reference), is_lock and
 * name.
 */
struct nfs4_owner {
	struct nfs4_owner *hnext;      /* the client's owner_hash */
	struct nfs4_list client_link;
	struct nfs4_client *client;
	bool is_lock;
	uint8_t *name;
	uint32_t name_len;
	uint32_t seqid;                /* 4.0: last seqid seen */
	bool confirmed;                /* 4.0 open owners: OPEN_CONFIRM */
	uint8_t *replay;               /* 4.0: last seqid op's result */
	size_t replay_len;
	struct nfs4_list states;       /* opens or lock states */
	struct nfs4_stid *closed;      /* 4.0: last CLOSEd open stateid */
	uint64_t last_used;
	int refs;
	bool dead;
};

/*
 * An open stateid: one per (open owner, file), under its client's mutex.
 * Its share reservation is kept in the shared file state (holder: the
 * open, STATE_HOLDER_NFS4); the union and the modes seen, which
 * OPEN_DOWNGRADE needs, stay here.
 */
struct nfs4_open {
	struct nfs4_stid sid;
	struct nfs4_owner *owner;
	struct nfs4_list owner_link;
	struct nfs4_list lockstates;   /* nfs4_lockstate.open_link */
	uint32_t access;               /* union of share access */
	uint32_t deny;                 /* union of share deny */
	uint8_t access_bmap;           /* 1 << each access mode seen */
	uint8_t deny_bmap;             /* 1 << each deny mode seen */
};

/*
 * A lock stateid: one per (lock owner, file), tied to an open, under its
 * client's mutex. Its byte ranges live in the shared file state, POSIX
 * flavor (holder: the lock state, STATE_HOLDER_NFS4).
 */
struct nfs4_lockstate {
	struct nfs4_stid sid;
	struct nfs4_owner *owner;
	struct nfs4_list owner_link;
	struct nfs4_open *open;
	struct nfs4_list open_link;
};

/*
 * A delegation (RFC 8881 §10.2): a grant of the shared file state's
 * engine (kind DELEG, key: the client), one per (client, file), under its
 * client's mutex. Referenced by its client's list (until returned,
 * freed or, once revoked, FREE_STATEID) and by its grant (until the
 * engine releases it); it holds a reference on its client.
 */
struct nfs4_deleg {
	struct nfs4_stid sid;
	struct nfs4_list client_link;
	struct state_grant *grant;     /* NULL once revoked */
	uint32_t type;                 /* OPEN_DELEGATE_READ or _WRITE */
	atomic_int refs;
	/* the client's mutex */
	bool recall_due;               /* a CB_RECALL is to be sent */
	bool recalled;                 /* ... and was */
	uint8_t retries;               /* CB_RECALL sent again after an error */
	uint64_t recall_ms;            /* when the recall began */
	bool getattr_due;              /* a CB_GETATTR is to be sent */
	bool getattr_sent;             /* ... and was, not yet answered */
	uint64_t change_base;          /* write: the change attribute at
					* the grant (CB_GETATTR's base) */
	bool retry_armed;
	struct timer retry;            /* armed: holds a reference */
	struct nfs_fh4 fh;             /* for CB_RECALL */
};

/* The client, session and stateid hashes: shards with a lock each. */
#define NFS4_SHARDS 64
#define NFS4_SHARD_BUCKETS 256
#define NFS4_TOMBSTONES 4096

struct nfs4_client_shard {
	pthread_mutex_t mu;
	struct nfs4_client *b[NFS4_SHARD_BUCKETS];
};

struct nfs4_session_shard {
	pthread_mutex_t mu;
	struct nfs4_session *b[NFS4_SHARD_BUCKETS];
};

struct nfs4_stid_shard {
	pthread_mutex_t mu;
	struct nfs4_stid *b[NFS4_SHARD_BUCKETS];
};

struct nfs4_state {
	pthread_mutex_t mu;            /* the structural lock (see above) */
	/* set at init and shutdown, with no request running */
	bool inited;
	uint32_t boot_id;
	uint32_t lease_time;           /* seconds */
	uint32_t grace_time;
	char *state_dir;
	uint8_t server_owner[16];
	uint64_t grace_end;            /* ms */

	/* atomics */
	_Atomic uint64_t next_id;      /* stateid/session counter */
	atomic_uint nstateids;
	_Atomic size_t cache_bytes;    /* all slot caches */
	atomic_bool in_grace;          /* written under mu */
	atomic_uint reclaimed_opens;   /* during this grace period */
	atomic_uint reclaimed_locks;

	/* mu */
	uint32_t next_clientid;
	struct nfs4_list clients;
	uint32_t nclients;
	uint32_t nsessions;
	uint64_t client_mem;           /* records and sessions, bytes */
	uint64_t client_mem_max;       /* nfs4_state_set_client_memory */
	uint64_t clients_evicted;      /* for room, before their time */
	uint32_t ncourtesy;            /* clients kept past their lease */
	struct nfs4_grace_rec *recs;   /* records from before the restart */

	/* shard locks */
	struct nfs4_client_shard client_hash[NFS4_SHARDS];
	struct nfs4_session_shard session_hash[NFS4_SHARDS];
	struct nfs4_stid_shard stid_hash[NFS4_SHARDS];

	/* tomb_mu: stateids of expired clients (4.0 EXPIRED), a ring */
	pthread_mutex_t tomb_mu;
	uint8_t tomb[NFS4_TOMBSTONES][NFS4_OTHER_SIZE];
	uint32_t tomb_next;
	uint32_t tomb_count;
	/* tomb_mu: client ids whose lease expired (4.0 EXPIRED), a ring */
	clientid4 tomb_clid[NFS4_TOMBSTONES];
	uint32_t tomb_clid_next;
	uint32_t tomb_clid_count;

	/* lease reaper: mu */
	pthread_t reaper;
	bool reaper_running;
	bool stopping;
	pthread_cond_t reaper_cv;
};

extern struct nfs4_state nfs4_st;

/* state.c */
uint64_t nfs4_now_ms(void);
/* For tests: replace the clock (NULL restores CLOCK_MONOTONIC). */
void nfs4_state_set_clock(uint64_t (*now_ms)(void));
uint32_t nfs4_hash_bytes(const void *p, size_t n);
uint64_t nfs4_next_id(void);
void nfs4_princ_of(const struct rpc_call *call, struct nfs4_princ *p);
bool nfs4_princ_equal(const struct nfs4_princ *a, const struct nfs4_princ *b);
/* Reaper work, also for tests: expire what is past its lease. */
void nfs4_state_reap(void);

/* client.c */
/*
 * nfs4_client_mem_reserve() - under nfs4_st.mu: charge @n bytes of a new
 * record or session to the ceiling (nfs4_state_set_client_memory), making
 * room by expiring clients whose lease lapsed, then the oldest unconfirmed
 * records, never @keep or a client a request pins. False: no room.
 * nfs4_client_mem_release() gives the bytes back.
 */
bool nfs4_client_mem_reserve(uint64_t n, const struct nfs4_client *keep);
void nfs4_client_mem_release(uint64_t n);
/* The bytes a session with @nslots slots is charged. */
uint64_t nfs4_session_mem(uint32_t nslots);
/* One-time registration of the client statistics (nasd stats). */
void nfs4_client_stats_init(void);
/*
 * nfs4_client_courtesy_needed() - @cl's kept state is in someone's way
 * (a conflicting open or lock, a recall of its delegation): true when @cl
 * is a courtesy client, which the reaper is then woken to expire. Takes
 * no lock (the state layer's lapsed hook calls it).
 */
bool nfs4_client_courtesy_needed(struct nfs4_client *cl);
/*
 * nfs4_client_courtesy_keep() - under nfs4_st.mu, for the reaper: should
 * @cl, whose lease has lapsed, be kept as a courtesy client (RFC 8881
 * §8.4.2.1: a 4.1 client with opens, locks or delegations, for at most
 * NFS4_COURTESY_MAX_S, until someone needs its state or its room)?
 */
bool nfs4_client_courtesy_keep(struct nfs4_client *cl, uint64_t now_ms);
/*
 * nfs4_client_new() - under nfs4_st.mu: a new, unconfirmed client record
 * with the table's reference. NULL when there is no room (above) or no
 * memory.
 */
struct nfs4_client *nfs4_client_new(uint32_t minor, const uint8_t *id,
				    uint32_t len, const struct verifier4 *v,
				    const struct nfs4_princ *p);
/* nfs4_client_find() - under nfs4_st.mu: the live client @id, unpinned. */
struct nfs4_client *nfs4_client_find(clientid4 id);
/* nfs4_client_lookup() - anywhere: the live client @id, pinned; or NULL. */
struct nfs4_client *nfs4_client_lookup(clientid4 id);
/* Under nfs4_st.mu: the record of @minor's family with owner @id. */
struct nfs4_client *nfs4_client_find_owner(uint32_t minor, const uint8_t *id,
					   uint32_t len, bool confirmed);
void nfs4_client_get(struct nfs4_client *cl);
void nfs4_client_put(struct nfs4_client *cl);
/* Lock @cl (pinned by the caller); unlock it and drop the caller's pin. */
void nfs4_client_lock(struct nfs4_client *cl);
void nfs4_client_unlock_put(struct nfs4_client *cl);
void nfs4_client_renew(struct nfs4_client *cl);
/* Under nfs4_st.mu; takes @cl's mutex. */
bool nfs4_client_expired(struct nfs4_client *cl);
/* Takes @cl's mutex: call with none of this module's locks but nfs4_st.mu. */
bool nfs4_client_has_state(struct nfs4_client *cl);
/*
 * nfs4_client_destroy() - under nfs4_st.mu, without @cl's mutex: unhash
 * @cl, release all its state and sessions, drop the table's reference.
 * @forget: also remove its stable-storage record.
 */
void nfs4_client_destroy(struct nfs4_client *cl, bool forget, bool expired);
/*
 * nfs4_client_check40() - the confirmed 4.0 client @id (RENEW, LOCKT,
 * RELEASE_LOCKOWNER, OPEN's open_owner4), renewed, returned pinned and
 * locked (nfs4_client_unlock_put()). STALE_CLIENTID otherwise, nothing
 * held.
 */
uint32_t nfs4_client_check40(clientid4 id, struct nfs4_client **out);

/* session.c */
/*
 * nfs4_session_new() - under nfs4_st.mu, without @cl's mutex: a session
 * of @cl, hashed and on @cl's list, with the table's reference.
 */
struct nfs4_session *nfs4_session_new(struct nfs4_client *cl,
				      const struct channel_attrs4 *fore,
				      const struct channel_attrs4 *back,
				      uint32_t flags, uint32_t cb_program);
/* nfs4_session_find() - under nfs4_st.mu: the live session, unpinned. */
struct nfs4_session *nfs4_session_find(const uint8_t id[NFS4_SESSIONID_SIZE]);
/* nfs4_session_lookup() - anywhere: the live session, pinned; or NULL. */
struct nfs4_session *nfs4_session_lookup(
	const uint8_t id[NFS4_SESSIONID_SIZE]);
void nfs4_session_get(struct nfs4_session *s);
void nfs4_session_put(struct nfs4_session *s);
/*
 * nfs4_session_destroy() - under nfs4_st.mu and its client's mutex:
 * unhash @s, mark it dead, drop the table's reference.
 */
void nfs4_session_destroy(struct nfs4_session *s);
/* Under s->mu. Returns true when @conn is newly bound for callbacks. */
bool nfs4_session_bind_conn(struct nfs4_session *s, struct conn *conn,
			    uint8_t dir);
/* Under s->mu. */
bool nfs4_session_conn_bound(const struct nfs4_session *s,
			     const struct conn *conn);
/* nfs4_session_unbind_conn() - under s->mu: forget @conn (it closed). */
void nfs4_session_unbind_conn(struct nfs4_session *s, struct conn *conn);
/* Under s->mu. */
bool nfs4_session_has_backchannel(const struct nfs4_session *s);
/*
 * nfs4_seq_digest() - 64-bit digest of a COMPOUND's arguments (its first
 * NFS4_SEQ_DIGEST_BYTES bytes and its length), to tell a retry from a
 * false retry on a slot (RFC 8881 §2.10.6.1.3).
 */
uint64_t nfs4_seq_digest(const uint8_t *args, size_t len);
/* The SEQUENCE slot algorithm, for the op and the tests. */
enum nfs4_slot_verdict {
	NFS4_SLOT_NEW,
	NFS4_SLOT_REPLAY,
	NFS4_SLOT_UNCACHED,
	NFS4_SLOT_MISORDERED,
	NFS4_SLOT_BUSY,
};
enum nfs4_slot_verdict nfs4_slot_check(const struct nfs4_slot *slot,
				       uint32_t seqid);

/* stateid.c: everything under the stateid's client's mutex. */
void nfs4_stid_init(struct nfs4_stid *s, uint8_t type,
		    struct nfs4_client *cl, struct state_file *f);
void nfs4_stid_hash(struct nfs4_stid *s);
void nfs4_stid_unhash(struct nfs4_stid *s);
void nfs4_stid_bump(struct nfs4_stid *s);
void nfs4_stid_tombstone(const struct nfs4_stid *s);
/* The stateid of @cl (locked) with @other, no checks; NULL if none. */
struct nfs4_stid *nfs4_stid_find_other(const struct nfs4_client *cl,
				       const uint8_t other[NFS4_OTHER_SIZE]);
/* A client id whose lease expired: remember it; was it one? (4.0 RENEW
 * and friends answer EXPIRED, not STALE_CLIENTID) */
void nfs4_clid_tombstone(clientid4 id);
bool nfs4_clid_tombstoned(clientid4 id);
bool nfs4_stateid_is_special(const struct stateid4 *sid);
bool nfs4_stateid_is_anon(const struct stateid4 *sid);
bool nfs4_stateid_is_bypass(const struct stateid4 *sid);
bool nfs4_stateid_is_current(const struct stateid4 *sid);
/*
 * nfs4_stid_lookup() - find the state named by @sid for compound @c
 * (resolving the 4.1 current stateid), checking the seqid (OLD/BAD), the
 * boot id (STALE), tombstones (EXPIRED), the client (4.1: the session's;
 * 4.0: a 4.0 client); renews the client's lease. @types: bitmask of
 * 1 << NFS4_STID_*. Returns NFS4_OK and *out, whose client is then
 * pinned and locked for the caller (nfs4_client_unlock_put()); on an
 * error nothing is held. Call without client or session mutexes.
 */
uint32_t nfs4_stid_lookup(struct nfs4_compound *c, const struct stateid4 *sid,
			  unsigned int types, bool check_seqid,
			  struct nfs4_stid **out);
/*
 * nfs4_stid_lookup_in() - the same, with @cl's mutex held by the caller:
 * only stateids of @cl are found (4.1 TEST_STATEID, where they must be
 * the session client's). Nothing more is locked or pinned.
 */
uint32_t nfs4_stid_lookup_in(struct nfs4_compound *c, struct nfs4_client *cl,
			     const struct stateid4 *sid, unsigned int types,
			     bool check_seqid, struct nfs4_stid **out);
/*
 * nfs4_stid_key() - the grant key (state_grant_break_key) of the client
 * owning @sid: the session's in 4.1, else the client of the stateid as
 * found (identity only, never dereferenced); NULL if none. Takes a
 * shard lock only.
 */
const void *nfs4_stid_key(struct nfs4_compound *c, const struct stateid4 *sid);
uint32_t nfs4_stid_check_seqid(const struct nfs4_stid *s,
			       const struct stateid4 *sid, uint32_t minor);
void nfs4_stid_to_wire(const struct nfs4_stid *s, struct stateid4 *out);
void nfs4_set_current_stateid(struct nfs4_compound *c,
			      const struct stateid4 *sid);

/* open.c: under the client's mutex (the owner's, the stateid's) */
struct nfs4_owner *nfs4_owner_find(struct nfs4_client *cl, bool is_lock,
				   const uint8_t *name, uint32_t len);
struct nfs4_owner *nfs4_owner_new(struct nfs4_client *cl, bool is_lock,
				  const uint8_t *name, uint32_t len);
void nfs4_owner_get(struct nfs4_owner *o);
void nfs4_owner_put(struct nfs4_owner *o);
void nfs4_owner_release(struct nfs4_owner *o);
void nfs4_owner_drop_closed(struct nfs4_owner *o);
struct nfs4_open *nfs4_open_find(struct nfs4_owner *o,
				 const struct state_file *f);
/* The shared-state holders of an open (shares) and a lock state (ranges). */
struct state_holder nfs4_open_holder(const struct nfs4_open *op);
struct state_holder nfs4_lockstate_holder(const struct nfs4_lockstate *ls);
/*
 * nfs4_open_new() - an open stateid of @o on @f holding the share
 * (@access, @deny) (RFC 8881 §9.7). 0 and *@out; -EBUSY when another
 * open's share conflicts (SHARE_DENIED); -ENOSPC at the stateid limit;
 * -ENOMEM.
 */
int nfs4_open_new(struct nfs4_owner *o, struct state_file *f,
		  uint32_t access, uint32_t deny, struct nfs4_open **out);
/*
 * nfs4_open_upgrade() - a second OPEN of the same owner and file adds
 * @access/@deny: checked against what the owner's earlier opens of it
 * hold and deny, and the new union against the other opens' shares. 0 or
 * -EBUSY (unchanged).
 */
int nfs4_open_upgrade(struct nfs4_open *op, uint32_t access, uint32_t deny);
/*
 * nfs4_open_downgrade() - OPEN_DOWNGRADE to @access/@deny (modes the
 * caller checked against the bitmaps).
 */
void nfs4_open_downgrade(struct nfs4_open *op, uint32_t access,
			 uint32_t deny);
void nfs4_open_free(struct nfs4_open *op);
/* 4.0 CLOSE: release the share but keep the stateid for a replay. */
void nfs4_open_close(struct nfs4_open *op, uint32_t minor);
void nfs4_lockstate_free(struct nfs4_lockstate *ls);
/* Does @ls hold any byte range? */
bool nfs4_lockstate_has_locks(const struct nfs4_lockstate *ls);

/*
 * deleg.c: delegations. nfs4_deleg_offer() runs at the end of an OPEN
 * and for WANT_DELEGATION, under the client's mutex; the rest as each
 * says.
 */
struct nfs4_deleg_offer {
	uint32_t type;                 /* OPEN_DELEGATE_*: what is granted */
	uint32_t why;                  /* NONE_EXT: WND4_* */
	struct stateid4 stateid;
	bool recall;                   /* a reclaim granted to be returned */
};
/*
 * nfs4_deleg_offer() - a delegation of @f (the file @fh names) for @cl,
 * whose open @h (its shares do not count as others'; WANT_DELEGATION: a
 * holder of no share) has the
 * share @access, with the 4.1 want bits @want of share_access, when the
 * client's callback path is up, the export allows them, no other holder
 * conflicts (the engine's rule), the file was not recalled in the last
 * NFS4_DELEG_RECALL_QUIET_MS and no limit or memory pressure stands in
 * the way; @reclaim: CLAIM_PREVIOUS of the delegation type @reclaim
 * (granted whatever the policy says, with recall set if it conflicts).
 * @change: the file's change attribute, read before the mutex was taken
 * (a write delegation's CB_GETATTR answers are compared with it).
 * Under the client's mutex.
 */
void nfs4_deleg_offer(struct nfs4_compound *c, struct nfs4_client *cl,
		      struct state_file *f, const struct state_holder *h,
		      uint32_t access, uint32_t want, uint32_t reclaim,
		      uint64_t change, const struct nfs_fh4 *fh,
		      struct nfs4_deleg_offer *out);
/* The delegation of @cl (locked) on @f, or NULL. */
struct nfs4_deleg *nfs4_deleg_find(struct nfs4_client *cl,
				   const struct state_file *f);
/* DELEGRETURN (and a revoked one's FREE_STATEID): under the client's
 * mutex; @d is gone afterwards. */
void nfs4_deleg_free(struct nfs4_deleg *d);
/* nfs4_client_destroy(): every delegation of @cl (locked). */
void nfs4_deleg_free_all(struct nfs4_client *cl);
/*
 * nfs4_deleg_kick() - send the next recall that @cl owes on a session
 * whose back channel is up and free. Under @cl's mutex.
 */
void nfs4_deleg_kick(struct nfs4_client *cl);
/*
 * nfs4_deleg_recall_done() - the CB_RECALL for the delegation @other of
 * @cl was answered @status (or lost: NFS4ERR_DELAY). Without locks.
 */
void nfs4_deleg_recall_done(struct nfs4_client *cl,
			    const uint8_t other[NFS4_OTHER_SIZE],
			    uint32_t status);
/* Callback operations (RFC 8881 §20, RFC 7530 §16.2x). */
#define OP_CB_GETATTR 3
#define OP_CB_RECALL 4

/* What a CB_GETATTR answer carried (RFC 8881 §20.1). */
struct nfs4_cb_attrs {
	bool have_change;
	bool have_size;
	uint64_t change;
	uint64_t size;
};
/*
 * nfs4_deleg_getattr_done() - the CB_GETATTR for the delegation @other
 * of @cl was answered @status with @a (or lost: NFS4ERR_DELAY). Without
 * locks.
 */
void nfs4_deleg_getattr_done(struct nfs4_client *cl,
			     const uint8_t other[NFS4_OTHER_SIZE],
			     uint32_t status, const struct nfs4_cb_attrs *a);
/* `nasd stats` counters (start-up). */
void nfs4_deleg_stats_init(void);
/* A file recalled this recently gets no new delegation. */
#define NFS4_DELEG_RECALL_QUIET_MS 5000
/* No write delegation over a back channel slower than this. */
#define NFS4_DELEG_SLOW_CB_MS 100

/* grace.c */
struct nfs4_grace_rec {
	struct nfs4_grace_rec *next;
	uint32_t minor;
	bool reclaimed;                /* a client with this id came back */
	bool complete;                 /* ... and sent RECLAIM_COMPLETE */
	uint32_t len;
	uint8_t id[];
};
int nfs4_grace_load(void);
void nfs4_grace_free(void);
/* Under nfs4_st.mu: match a new (unpublished) client against the
 * loaded records. */
void nfs4_grace_client_known(struct nfs4_client *cl);
/* Under nfs4_st.mu, without client mutexes: end grace when it is over. */
void nfs4_grace_check_end(void);
/* Under nfs4_st.mu, without @cl's mutex. */
void nfs4_grace_reclaim_complete(struct nfs4_client *cl);
/* Without nfs4_st.mu: write/remove a client's record (fsync'd). */
int nfs4_grace_record(uint32_t minor, const uint8_t *id, uint32_t len);
int nfs4_grace_forget(uint32_t minor, const uint8_t *id, uint32_t len);
/* Under nfs4_st.mu: queue a forget for after the unlock. */
void nfs4_grace_queue_forget(const struct nfs4_client *cl);
void nfs4_grace_flush_forgets(void);
/* Reclaim checks for OPEN CLAIM_PREVIOUS / LOCK reclaim: under nfs4_st.mu
 * or @cl's mutex; takes no lock. */
uint32_t nfs4_grace_check_reclaim(const struct nfs4_client *cl);
/* New state during grace is refused: anywhere, takes no lock. */
uint32_t nfs4_grace_check_new(void);
/* The same for @cl's new opens and locks, which also wait for its
 * RECLAIM_COMPLETE (4.1); under nfs4_st.mu or @cl's mutex. */
uint32_t nfs4_grace_check_new_cl(const struct nfs4_client *cl);
/* Persist ids at/after confirm (called without this module's locks). */
void nfs4_grace_record_client(struct nfs4_client *cl);

/* callback.c (4.0 CB_NULL probe) */
int nfs4_cb_start(void);
void nfs4_cb_stop(void);
void nfs4_cb_probe(clientid4 id, const struct nfs4_cb40 *cb);
/*
 * nfs4_cb_call40() - queue CB_RECALL of the delegation @stateid of @fh,
 * or CB_GETATTR of @fh (by @op), to client @id at @cb (copied); its
 * answer goes to nfs4_deleg_recall_done() or nfs4_deleg_getattr_done().
 * False when it cannot be queued.
 */
bool nfs4_cb_call40(clientid4 id, const struct nfs4_cb40 *cb, uint32_t op,
		    const struct stateid4 *stateid, const struct nfs_fh4 *fh);
/* For tests: parse a universal address of loopback only. */
int nfs4_cb_parse_uaddr(const char *netid, const char *uaddr,
			struct sockaddr_storage *ss, socklen_t *len);

/*
 * backchannel.c: the 4.1 back channel (RFC 8881 §2.10.3.1, §18.33-36):
 * CB_NULL sent on a connection the client bound for callbacks, its answer
 * taken from the fore channel's receive path, and the state SEQUENCE
 * reports in sr_status_flags. Connections are reached through these
 * operations: the transport's (nfs4_bc_attach) or a test's; without any,
 * connections are identities only and no callback is ever sent.
 */
struct nfs4_bc_ops {
	void (*get)(struct conn *c);
	void (*put)(struct conn *c);
	bool (*closed)(const struct conn *c);
	/* a message on @c to build (transport_msg_new), send, or drop */
	struct req *(*msg_new)(struct conn *c);
	int (*msg_send)(struct req *m);
	void (*msg_free)(struct req *m);
};
/* Install @ops (NULL: none). For tests; nfs4_bc_attach() for the server. */
void nfs4_bc_set_ops(const struct nfs4_bc_ops *ops);
/* Pin / unpin a connection a session binds (no-ops without ops). */
bool nfs4_bc_conn_get(struct conn *c);
void nfs4_bc_conn_put(struct conn *c);
/*
 * nfs4_bc_probe() - send CB_NULL on @s's newest back-channel connection
 * (queued to the callback thread); the session's callback state is
 * PROBING until the answer (UP) or the timeout or a failure (DOWN); DOWN
 * at once without such a connection or a usable flavor. Under s->mu.
 */
void nfs4_bc_probe(struct nfs4_session *s);
/*
 * nfs4_bc_seq_flags() - SEQ4_STATUS_CB_PATH_DOWN_SESSION when @s has no
 * working back channel, and SEQ4_STATUS_CB_PATH_DOWN too when no session
 * of its client has one (§18.46.3); a probe still out counts as working
 * until NFS4_CB_PROBE_TIMEOUT_MS. Without client and session mutexes
 * (it takes s->mu, then the client's and each session's).
 */
uint32_t nfs4_bc_seq_flags(struct nfs4_session *s);
/* The answer to a call of ours arrived on @c (rpc_set_reply_handler). */
void nfs4_bc_reply(struct conn *c, uint32_t xid, const uint8_t *rec,
		   size_t len);
/* @c closed (rpc_set_close_handler): unbind it everywhere. */
void nfs4_bc_conn_closed(struct conn *c);
/*
 * nfs4_bc_call() - send CB_COMPOUND(CB_SEQUENCE, @op) on @s, whose back
 * channel is up and has no call out (nfs4_bc_call_free()): CB_RECALL of
 * the delegation @stateid of @fh, or CB_GETATTR of @fh's change and
 * size. Under s->mu. False when it cannot be sent (no connection, no
 * memory, queue full): the path is then down.
 */
bool nfs4_bc_call_free(struct nfs4_session *s);
bool nfs4_bc_call(struct nfs4_session *s, uint32_t op,
		  const struct stateid4 *stateid, const struct nfs_fh4 *fh);
/*
 * nfs4_cb_reply() - the status of a reply record to a CB_RECALL or
 * CB_GETATTR call: the RPC layer's (SERVERFAULT unless accepted with
 * SUCCESS), then CB_COMPOUND4res's first failed operation's or its own;
 * CB_GETATTR's change and size in @a. Every length is checked
 * (fuzz_cb_reply).
 */
uint32_t nfs4_cb_reply(const uint8_t *rec, size_t len,
		       struct nfs4_cb_attrs *a);
/* nfs4_cb_enc_op() - the arguments of CB_RECALL (of @stateid, @fh) or
 * CB_GETATTR (of @fh's change and size), by @op, 4.0 and 4.1 alike. */
bool nfs4_cb_enc_op(struct xdr_buf *x, uint32_t op,
		    const struct stateid4 *stateid, const struct nfs_fh4 *fh);
/* Is the back channel of @s up (or being probed, in time)? Under s->mu. */
bool nfs4_bc_session_ok(struct nfs4_session *s);
/*
 * nfs4_bc_call_max() - the size of the largest call nasd sends on a back
 * channel whose calls carry @sec's credential (a CB_COMPOUND of a recall
 * with the RPC header): CREATE_SESSION refuses a back channel with a
 * smaller ca_maxrequestsize (TOOSMALL).
 */
uint32_t nfs4_bc_call_max(const struct nfs4_cb_sec *sec);
/* A CB_NULL or CB_COMPOUND to send, built for the callback thread. */
struct nfs4_bc_job;
void nfs4_bc_job_run(struct nfs4_bc_job *j);
void nfs4_bc_job_free(struct nfs4_bc_job *j);
/* callback.c: hand @j to the callback thread; false if it cannot take it */
bool nfs4_cb_queue_bc(struct nfs4_bc_job *j);
/* Counts for tests and logs. */
struct nfs4_bc_counts {
	uint64_t sent;
	uint64_t answered;
	uint64_t failed;
};
void nfs4_bc_counts(struct nfs4_bc_counts *out);

/* ops_util.c: 4.0 seqid-mutating op helpers */
/*
 * The result structs of seqid-mutating ops start with this, so that the
 * shared .cache/.release hooks can reach the owner whose replay cache
 * gets the encoded result.
 */
struct nfs4_seqres {
	struct nfs4_owner *seq_owner;  /* pinned; NULL when none */
};
/* Does @status advance the owner's seqid (RFC 7530 §9.1.7)? */
bool nfs4_status_bumps_seqid(uint32_t status);
/*
 * nfs4_seqid_check() - 4.0 seqid rules for @o and @seqid: NFS4_OK to
 * execute; on a replay of the last request, points c->op_replay at a copy
 * of the cached result and returns its status with *@replay set;
 * BAD_SEQID otherwise. Under the owner's client's mutex.
 */
uint32_t nfs4_seqid_check(struct nfs4_compound *c, struct nfs4_owner *o,
			  uint32_t seqid, bool *replay);
/* After executing: advance @o's seqid when @status says so and pin @o in
 * @r for the cache hook. Under the owner's client's mutex. */
void nfs4_seqid_done(struct nfs4_compound *c, struct nfs4_seqres *r,
		     struct nfs4_owner *o, uint32_t seqid, uint32_t status);
void nfs4_seqres_cache(struct nfs4_compound *c, const void *res,
		       const uint8_t *enc, size_t len);
void nfs4_seqres_release(struct nfs4_compound *c, void *res);
bool nfs4_dec_owner4(struct xdr_buf *x, clientid4 *clid,
		     struct nfs4_opaque *owner);
bool nfs4_enc_owner4(struct xdr_buf *x, clientid4 clid, const uint8_t *owner,
		     uint32_t len);
/*
 * The client of a 4.0 open_owner4/lock_owner4 or the 4.1 session's,
 * renewed, returned pinned and locked (nfs4_client_unlock_put()); on an
 * error nothing is held.
 */
uint32_t nfs4_owner_client(struct nfs4_compound *c, clientid4 clid,
			   struct nfs4_client **out);

#endif
