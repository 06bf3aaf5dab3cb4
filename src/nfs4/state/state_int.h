/* SPDX-License-Identifier: MIT */
#ifndef NASD_NFS4_STATE_STATE_INT_H
#define NASD_NFS4_STATE_STATE_INT_H

/*
 * Internals of the NFSv4 state module (src/nfs4/state/), shared by its
 * files and the unit tests. Not for use outside this folder.
 *
 * Locking: one mutex, nfs4_st.mu, protects every table and object below
 * (clients, sessions and their slot tables, owners, opens, lock states,
 * byte-range locks, files, stateids). It is only ever held for short
 * in-memory work: filesystem calls (OPEN's lookup/create/access) and the
 * stable-storage writes of grace.c run without it. Objects that a request
 * keeps across an unlock are pinned by a reference count (clients,
 * sessions, owners) and marked dead instead of freed while pinned.
 */

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nfs4/compound.h"
#include "nfs4/nfs4_xdr.h"
#include "nfs4/state/state.h"
#include "rpc/rpc.h"
#include "state/file_state.h"
#include "vfs/vfs.h"

/* Limits (DESIGN.md §5): at a limit the client gets RESOURCE or DELAY. */
#define NFS4_MAX_CLIENTS 1024
#define NFS4_MAX_SESSIONS 4096
#define NFS4_MAX_SESSIONS_PER_CLIENT 16
#define NFS4_MAX_OWNERS_PER_CLIENT 8192
#define NFS4_MAX_STATEIDS 262144
/* byte ranges: STATE_MAX_RANGES of the shared file state */
#define NFS4_MAX_CONNS_PER_SESSION 8

/* Channel limits offered by CREATE_SESSION (RFC 8881 §18.36). */
#define NFS4_CA_MAXREQUEST (1024 * 1024 + 64 * 1024)
#define NFS4_CA_MAXRESPONSE (1024 * 1024 + 64 * 1024)
#define NFS4_CA_MAXRESPONSE_CACHED (64 * 1024)
#define NFS4_CA_MAXOPS 64
#define NFS4_CA_MAXREQUESTS 64
#define NFS4_CA_MINSIZE 512
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

struct nfs4_client {
	struct nfs4_list link;         /* nfs4_st.clients */
	struct nfs4_client *hnext;     /* nfs4_st.client_hash by clientid */
	clientid4 clientid;
	uint32_t minor;                /* 0: SETCLIENTID, 1: EXCHANGE_ID */
	uint8_t *ownerid;              /* nfs_client_id4.id / co_ownerid */
	uint32_t ownerid_len;
	struct verifier4 verifier;
	bool confirmed;
	struct nfs4_princ princ;
	uint64_t renewed;              /* nfs4_now_ms() of the last renew */
	int refs;                      /* pins by requests */
	bool dead;                     /* expired/destroyed, unhashed */
	bool expiring;                 /* its stateids become tombstones */

	/* 4.0 */
	struct verifier4 confirm;      /* setclientid_confirm */
	struct nfs4_cb40 cb;
	bool pending;                  /* a callback update awaits confirm */
	struct verifier4 pending_confirm;
	struct nfs4_cb40 pending_cb;
	struct nfs4_princ pending_princ;
	enum nfs4_cb_state cb_state;

	/* 4.1 */
	uint32_t eir_flags;
	uint32_t cs_seq;               /* last executed csa_sequence */
	bool cs_cached;
	uint32_t cs_status;            /* cached CREATE_SESSION reply */
	struct CREATE_SESSION4resok cs_res;
	bool reclaim_complete;

	/* grace (grace.c) */
	bool can_reclaim;              /* known from before the restart */
	bool recorded;                 /* on stable storage */

	struct nfs4_list sessions;     /* nfs4_session.client_link */
	struct nfs4_list owners;       /* nfs4_owner.client_link */
	uint32_t nsessions;
	uint32_t nowners;
	uint32_t nstates;              /* opens + lock states */
};

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
	struct nfs4_session *hnext;    /* nfs4_st.session_hash */
	struct nfs4_list client_link;
	uint8_t id[NFS4_SESSIONID_SIZE];
	struct nfs4_client *client;    /* valid while !dead */
	struct channel_attrs4 fore;
	struct channel_attrs4 back;
	uint32_t flags;                /* csr_flags */
	uint32_t cb_program;
	uint32_t nslots;
	struct nfs4_slot *slots;
	/* pinned while bound (nfs4_bc_conn_get), unbound when they close */
	struct conn *conns[NFS4_MAX_CONNS_PER_SESSION];
	uint8_t conn_dir[NFS4_MAX_CONNS_PER_SESSION];  /* CDFS4_* */
	uint32_t nconns;
	/* back channel (backchannel.c) */
	struct nfs4_cb_sec cb_sec;
	enum nfs4_cb_state cb_state;   /* DOWN until a CB_NULL is answered */
	struct conn *cb_conn;          /* where the last probe went */
	uint32_t cb_xid;               /* its xid */
	uint64_t cb_sent;              /* nfs4_now_ms() when it was queued */
	int refs;
	bool dead;
};

enum nfs4_stid_type {
	NFS4_STID_OPEN = 1,
	NFS4_STID_LOCK = 2,
	NFS4_STID_CLOSED = 3,          /* 4.0: kept for a CLOSE replay */
};

struct nfs4_stid {
	struct nfs4_stid *hnext;       /* nfs4_st.stid_hash */
	uint8_t other[NFS4_OTHER_SIZE];
	uint32_t seqid;
	uint8_t type;
	struct nfs4_client *client;
	struct state_file *file;       /* a reference; NULL once CLOSEd */
};

/* Open or lock owner (RFC 7530 §9.1.5, RFC 8881 §8.2.3). */
struct nfs4_owner {
	struct nfs4_owner *hnext;      /* nfs4_st.owner_hash */
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
 * An open stateid: one per (open owner, file). Its share reservation is
 * kept in the shared file state (holder: the open, STATE_HOLDER_NFS4);
 * the union and the modes seen, which OPEN_DOWNGRADE needs, stay here.
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
 * A lock stateid: one per (lock owner, file), tied to an open. Its byte
 * ranges live in the shared file state, POSIX flavor (holder: the lock
 * state, STATE_HOLDER_NFS4).
 */
struct nfs4_lockstate {
	struct nfs4_stid sid;
	struct nfs4_owner *owner;
	struct nfs4_list owner_link;
	struct nfs4_open *open;
	struct nfs4_list open_link;
};

#define NFS4_HASH_SIZE 4096
#define NFS4_TOMBSTONES 4096

struct nfs4_state {
	pthread_mutex_t mu;
	bool inited;
	uint32_t boot_id;
	uint64_t next_id;              /* stateid/session counter */
	uint32_t next_clientid;
	uint32_t lease_time;           /* seconds */
	uint32_t grace_time;
	char *state_dir;
	uint8_t server_owner[16];

	struct nfs4_list clients;
	uint32_t nclients;
	uint32_t nsessions;
	uint32_t nstateids;
	size_t cache_bytes;            /* all slot caches */
	struct nfs4_client *client_hash[NFS4_HASH_SIZE];
	struct nfs4_session *session_hash[NFS4_HASH_SIZE];
	struct nfs4_stid *stid_hash[NFS4_HASH_SIZE];
	struct nfs4_owner *owner_hash[NFS4_HASH_SIZE];

	/* stateids of expired clients (4.0 EXPIRED), a ring */
	uint8_t tomb[NFS4_TOMBSTONES][NFS4_OTHER_SIZE];
	uint32_t tomb_next;
	uint32_t tomb_count;

	/* grace */
	bool in_grace;
	uint64_t grace_end;            /* ms */
	struct nfs4_grace_rec *recs;   /* records from before the restart */
	uint32_t reclaimed_opens;      /* during this grace period */
	uint32_t reclaimed_locks;

	/* lease reaper */
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
struct nfs4_client *nfs4_client_new(uint32_t minor, const uint8_t *id,
				    uint32_t len, const struct verifier4 *v,
				    const struct nfs4_princ *p);
struct nfs4_client *nfs4_client_find(clientid4 id);
struct nfs4_client *nfs4_client_find_owner(uint32_t minor, const uint8_t *id,
					   uint32_t len, bool confirmed);
void nfs4_client_get(struct nfs4_client *cl);
void nfs4_client_put(struct nfs4_client *cl);
void nfs4_client_renew(struct nfs4_client *cl);
bool nfs4_client_expired(const struct nfs4_client *cl);
bool nfs4_client_has_state(const struct nfs4_client *cl);
/* nfs4_client_destroy() - unhash @cl, release all its state and sessions.
 * @forget: also remove its stable-storage record. */
void nfs4_client_destroy(struct nfs4_client *cl, bool forget, bool expired);
uint32_t nfs4_client_check40(clientid4 id, struct nfs4_client **out);

/* session.c */
struct nfs4_session *nfs4_session_new(struct nfs4_client *cl,
				      const struct channel_attrs4 *fore,
				      const struct channel_attrs4 *back,
				      uint32_t flags, uint32_t cb_program);
struct nfs4_session *nfs4_session_find(const uint8_t id[NFS4_SESSIONID_SIZE]);
void nfs4_session_put(struct nfs4_session *s);
void nfs4_session_destroy(struct nfs4_session *s);
/* Returns true when @conn is newly bound for the back channel. */
bool nfs4_session_bind_conn(struct nfs4_session *s, struct conn *conn,
			    uint8_t dir);
bool nfs4_session_conn_bound(const struct nfs4_session *s,
			     const struct conn *conn);
/* nfs4_session_unbind_conn() - forget @conn (it closed). */
void nfs4_session_unbind_conn(struct nfs4_session *s, struct conn *conn);
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

/* stateid.c */
void nfs4_stid_init(struct nfs4_stid *s, uint8_t type,
		    struct nfs4_client *cl, struct state_file *f);
void nfs4_stid_hash(struct nfs4_stid *s);
void nfs4_stid_unhash(struct nfs4_stid *s);
void nfs4_stid_bump(struct nfs4_stid *s);
void nfs4_stid_tombstone(const struct nfs4_stid *s);
struct nfs4_stid *nfs4_stid_find_other(const uint8_t other[NFS4_OTHER_SIZE]);
bool nfs4_stateid_is_special(const struct stateid4 *sid);
bool nfs4_stateid_is_anon(const struct stateid4 *sid);
bool nfs4_stateid_is_bypass(const struct stateid4 *sid);
bool nfs4_stateid_is_current(const struct stateid4 *sid);
/*
 * nfs4_stid_lookup() - find the state named by @sid for compound @c
 * (resolving the 4.1 current stateid), checking the seqid (OLD/BAD), the
 * boot id (STALE), tombstones (EXPIRED), the client (4.1: the session's).
 * @types: bitmask of 1 << NFS4_STID_*. Returns NFS4_OK and *out.
 */
uint32_t nfs4_stid_lookup(struct nfs4_compound *c, const struct stateid4 *sid,
			  unsigned int types, bool check_seqid,
			  struct nfs4_stid **out);
uint32_t nfs4_stid_check_seqid(const struct nfs4_stid *s,
			       const struct stateid4 *sid, uint32_t minor);
void nfs4_stid_to_wire(const struct nfs4_stid *s, struct stateid4 *out);
void nfs4_set_current_stateid(struct nfs4_compound *c,
			      const struct stateid4 *sid);

/* open.c */
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
 * @access/@deny: the new union is checked against the other opens'
 * shares. 0 or -EBUSY (unchanged).
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
/* Under nfs4_st.mu: match a new client against the loaded records. */
void nfs4_grace_client_known(struct nfs4_client *cl);
void nfs4_grace_check_end(void);
void nfs4_grace_reclaim_complete(struct nfs4_client *cl);
/* Without nfs4_st.mu: write/remove a client's record (fsync'd). */
int nfs4_grace_record(uint32_t minor, const uint8_t *id, uint32_t len);
int nfs4_grace_forget(uint32_t minor, const uint8_t *id, uint32_t len);
/* Under nfs4_st.mu: queue a forget for after the unlock. */
void nfs4_grace_queue_forget(const struct nfs4_client *cl);
void nfs4_grace_flush_forgets(void);
/* Reclaim checks for OPEN CLAIM_PREVIOUS / LOCK reclaim (under nfs4_st.mu). */
uint32_t nfs4_grace_check_reclaim(const struct nfs4_client *cl);
/* New state during grace is refused (under nfs4_st.mu). */
uint32_t nfs4_grace_check_new(void);
/* Persist ids at/after confirm (called without nfs4_st.mu). */
void nfs4_grace_record_client(struct nfs4_client *cl);

/* callback.c (4.0 CB_NULL probe) */
int nfs4_cb_start(void);
void nfs4_cb_stop(void);
void nfs4_cb_probe(clientid4 id, const struct nfs4_cb40 *cb);
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
	int (*send)(struct conn *c, const void *rec, size_t len);
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
 * at once without such a connection or a usable flavor. nfs4_st.mu.
 */
void nfs4_bc_probe(struct nfs4_session *s);
/*
 * nfs4_bc_seq_flags() - SEQ4_STATUS_CB_PATH_DOWN_SESSION when @s has no
 * working back channel, and SEQ4_STATUS_CB_PATH_DOWN too when no session
 * of its client has one (§18.46.3); a probe still out counts as working
 * until NFS4_CB_PROBE_TIMEOUT_MS. nfs4_st.mu.
 */
uint32_t nfs4_bc_seq_flags(struct nfs4_session *s);
/* The answer to a call of ours arrived on @c (rpc_set_reply_handler). */
void nfs4_bc_reply(struct conn *c, uint32_t xid, const uint8_t *rec,
		   size_t len);
/* @c closed (transport_set_close_hook): unbind it everywhere. */
void nfs4_bc_conn_closed(struct conn *c);
/* A CB_NULL to send, built by nfs4_bc_probe() for the callback thread. */
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
 * BAD_SEQID otherwise. Under nfs4_st.mu.
 */
uint32_t nfs4_seqid_check(struct nfs4_compound *c, struct nfs4_owner *o,
			  uint32_t seqid, bool *replay);
/* After executing: advance @o's seqid when @status says so and pin @o in
 * @r for the cache hook. Under nfs4_st.mu. */
void nfs4_seqid_done(struct nfs4_compound *c, struct nfs4_seqres *r,
		     struct nfs4_owner *o, uint32_t seqid, uint32_t status);
void nfs4_seqres_cache(struct nfs4_compound *c, const void *res,
		       const uint8_t *enc, size_t len);
void nfs4_seqres_release(struct nfs4_compound *c, void *res);
bool nfs4_dec_owner4(struct xdr_buf *x, clientid4 *clid,
		     struct nfs4_opaque *owner);
bool nfs4_enc_owner4(struct xdr_buf *x, clientid4 clid, const uint8_t *owner,
		     uint32_t len);
/* The client of a 4.0 open_owner4/lock_owner4 or the 4.1 session's. */
uint32_t nfs4_owner_client(struct nfs4_compound *c, clientid4 clid,
			   struct nfs4_client **out);

#endif
