/* SPDX-License-Identifier: MIT */
#ifndef NASD_STATE_FILE_STATE_H
#define NASD_STATE_FILE_STATE_H

/*
 * File state that every protocol shares (DESIGN.md §1, §8): the table of
 * open files, share reservations and byte-range locks. NFSv4 opens and
 * locks, NLM locks (next) and SMB opens and locks (next) all live here, so
 * that each protocol sees the others': an SMB open without
 * FILE_SHARE_DELETE stops an NFS REMOVE, an NFSv4 write lock stops an SMB
 * lock over the same bytes and the reverse.
 *
 * A file is one entry, keyed by its vfs object (the object cache gives one
 * object per file while it is referenced). The caller holds a reference on
 * an entry (state_file_get/find) for every call that takes one. An entry
 * with shares or ranges keeps itself, and its vfs object, alive until the
 * last of them goes, even without callers' references.
 *
 * Holders are opaque: a pointer and a tag naming the protocol, whose lock
 * flavor is fixed (POSIX for NFSv4 and NLM, Windows for SMB). Nothing here
 * dereferences a holder's pointer.
 *
 * Locking (file.c's header comment has the details): one mutex per entry
 * guards its shares and ranges; the table is sharded, each shard with its
 * own lock. Nothing here blocks on I/O or calls into a protocol, except
 * the conflict reporter of the lock calls, which runs with the entry's
 * mutex held. A caller may hold its own (protocol) locks around any of
 * these calls: an entry's mutex comes after every protocol lock, and the
 * caller must not take protocol locks inside a conflict reporter.
 *
 * Caching grants (delegations, oplocks, leases) hang off the same entry
 * (grant.c; "caching grants" below).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vfs_attr;
struct vfs_obj;
struct state_file;

/* Bound on byte ranges held by all holders on all files together. */
#define STATE_MAX_RANGES 262144

/* ---- holders ------------------------------------------------------------ */

/* The protocol a holder belongs to; it fixes the lock flavor. */
enum state_holder_tag {
	STATE_HOLDER_NFS4 = 1,   /* NFSv4 open (shares) or lock state: POSIX */
	STATE_HOLDER_NLM = 2,    /* NLM host and svid: POSIX */
	STATE_HOLDER_SMB = 3,    /* SMB2 open: Windows (MS-FSA 2.1.5.8) */
	STATE_HOLDER_NTAGS,
};

struct state_holder {
	const void *id;          /* the protocol's object, never dereferenced */
	uint32_t tag;            /* enum state_holder_tag */
};

/*
 * state_set_lapsed() - install @fn (NULL: none) for holders of @tag: it
 * says whether the holder @id belongs to a client whose lease has lapsed
 * but whose state is kept until someone needs it (an NFSv4.1 courtesy
 * client, RFC 8881 §8.4.2.1), and may mark that client to be expired at
 * once. Called under a file's mutex with a holder whose share or lock
 * conflicts with a request (the holder is alive: @fn may read it); it
 * must not call back into this module nor take a lock a caller of this
 * module may hold. A share or lock request whose every conflict is with
 * such holders fails with -EINPROGRESS, not -EBUSY or -EAGAIN: "ask again
 * shortly" (NFS4ERR_DELAY, NLM4_DENIED_GRACE_PERIOD or a blocked lock).
 * Set at start-up, before requests.
 */
void state_set_lapsed(uint32_t tag, bool (*fn)(const void *id));

/* ---- ranges ------------------------------------------------------------- */

/*
 * A byte range [@start, @end], both inclusive, so that the last byte of a
 * 64-bit file fits. Windows allows zero-length ranges (@empty): such a
 * range at offset X is taken as ending at X - 1 (MS-FSA 2.1.4.10), so it
 * overlaps a range that holds both X - 1 and X, and one at offset 0
 * overlaps nothing.
 */
struct state_range {
	uint64_t start;
	uint64_t end;            /* meaningless when @empty */
	bool empty;
};

/*
 * state_range_nfs() - the range of an NFS offset and length (RFC 8881
 * §18.10.3, RFC 7530 §16.10.4; NLM too): a length of all ones means to the
 * end of the file. -EINVAL for a zero length or one that goes past the
 * last byte (offset + length > 2^64).
 */
int state_range_nfs(uint64_t off, uint64_t len, struct state_range *r);

/*
 * state_range_win() - the range of an SMB LOCK element (MS-FSA 2.1.5.8):
 * zero lengths are allowed; -EINVAL (STATUS_INVALID_LOCK_RANGE) when the
 * range passes the last byte.
 */
int state_range_win(uint64_t off, uint64_t len, struct state_range *r);

/*
 * state_range_io() - the range a READ or WRITE of @len bytes at @off
 * touches, cut at the last byte. A zero-length I/O touches nothing and
 * conflicts with no lock.
 */
void state_range_io(uint64_t off, uint64_t len, struct state_range *r);

/*
 * state_range_len() - the length of @r in the NFS convention: all ones
 * for a range that reaches the last byte, 0 for an empty one.
 */
uint64_t state_range_len(const struct state_range *r);

/* ---- the file table ------------------------------------------------------ */

/*
 * state_file_get() - the entry of @obj, made if there is none (it then
 * takes a reference on @obj). Returns it with a reference for the caller,
 * or NULL without memory.
 */
struct state_file *state_file_get(struct vfs_obj *obj);

/*
 * state_file_get_stream() - the entry of @obj's named stream @stream (an
 * SMB alternate data stream): shares, locks and grants of its own, apart
 * from the file's (MS-FSA: each stream is opened, shared and locked on
 * its own). NFS never sees these entries.
 */
struct state_file *state_file_get_stream(struct vfs_obj *obj,
					 const char *stream);

/*
 * state_streams_deny() - does a share held on one of @obj's named streams
 * deny one of @access? (A file's delete takes its streams with it, so it
 * must be shared by their opens too, MS-FSA 2.1.5.1.2.2.)
 */
bool state_streams_deny(struct vfs_obj *obj, uint32_t access);

/* state_file_find() - the entry of @obj with a reference, or NULL. */
struct state_file *state_file_find(struct vfs_obj *obj);

/* state_file_hold() - another reference on @f (the caller has one). */
void state_file_hold(struct state_file *f);

/*
 * state_file_put() - drop a reference; an entry with neither references
 * nor state is freed and lets go of its vfs object.
 */
void state_file_put(struct state_file *f);

/* state_file_obj() - the vfs object of @f (valid while @f is held). */
struct vfs_obj *state_file_obj(const struct state_file *f);

/* ---- share reservations -------------------------------------------------- */

/*
 * Access and deny bits: a superset of NFSv4's OPEN4_SHARE_ACCESS_* /
 * OPEN4_SHARE_DENY_* (RFC 8881 §9.7) and SMB's DesiredAccess / ShareAccess
 * (MS-FSA 2.1.5.1.2; FILE_SHARE_x absent = deny x). A deny bit has the
 * value of the access bit it denies, so that the conflict rule is a mask:
 * a share (A, D) conflicts with another holder's (A', D') iff
 * (A & D') || (D & A').
 */
#define STATE_ACCESS_READ 0x1u
#define STATE_ACCESS_WRITE 0x2u
#define STATE_ACCESS_DELETE 0x4u
#define STATE_DENY_READ 0x1u
#define STATE_DENY_WRITE 0x2u
#define STATE_DENY_DELETE 0x4u
#define STATE_SHARE_MASK 0x7u

/*
 * state_share_acquire() - give @h a share (@access, @deny) on @f. Returns
 * 0; -EBUSY when another holder's share conflicts (NFS4ERR_SHARE_DENIED,
 * STATUS_SHARING_VIOLATION), -EINPROGRESS when only lapsed holders' do
 * (state_set_lapsed); -EEXIST when @h already has one here (see
 * state_share_change); -EIDRM for an SMB holder while the file is
 * delete-pending; -EINVAL for bits outside STATE_SHARE_MASK; -ENOMEM.
 */
int state_share_acquire(struct state_file *f, const struct state_holder *h,
			uint32_t access, uint32_t deny);

/*
 * state_share_change() - replace @h's share on @f by (@access, @deny),
 * checked against the other holders' shares only (an NFSv4 upgrade by a
 * second OPEN passes the union, OPEN_DOWNGRADE the smaller modes).
 * Returns 0, -EBUSY or -EINPROGRESS (unchanged then), -ENOENT without a
 * share, -EINVAL.
 */
int state_share_change(struct state_file *f, const struct state_holder *h,
		       uint32_t access, uint32_t deny);

/* state_share_release() - drop @h's share on @f, if it has one. */
void state_share_release(struct state_file *f, const struct state_holder *h);

/* state_share_count() - how many shares @f holds now. */
uint32_t state_share_count(struct state_file *f);

/*
 * Delete pending (MS-FSA 2.1.5.4, 2.1.5.15.3): an SMB open marks the
 * file (FileDispositionInformation, or closing an open made with
 * FILE_DELETE_ON_CLOSE); while marked, state_share_acquire() refuses new
 * SMB shares with -EIDRM (STATUS_DELETE_PENDING), and the close of the
 * last SMB open deletes the file.
 */
void state_delete_pending_set(struct state_file *f, bool on);
bool state_delete_pending(struct state_file *f);
/*
 * state_share_release_last() - state_share_release(), and true when the
 * file was marked delete-pending and @h held the last share of its
 * protocol: the caller deletes the file now (the mark is cleared).
 */
bool state_share_release_last(struct state_file *f,
			      const struct state_holder *h);

/*
 * state_share_denies() - does a share on @f deny any of @access? (I/O
 * without an open, RFC 7530 §9.1.4.3: anonymous stateids.)
 */
bool state_share_denies(struct state_file *f, uint32_t access);

/*
 * state_share_denies_obj() - state_share_denies() on the entry of @obj,
 * false without one; for DELETE, the shares of its named streams count
 * too (state_streams_deny). No lock taken while no share anywhere denies
 * those accesses.
 */
bool state_share_denies_obj(struct vfs_obj *obj, uint32_t access);

/*
 * state_share_grants_obj() - does a share on the entry of @obj hold any of
 * @access? False without an entry. (SMB: a directory open with DELETE
 * access keeps the names in it from being renamed.)
 */
bool state_share_grants_obj(struct vfs_obj *obj, uint32_t access);

/*
 * state_may_delete() - may the file @obj lose a name (REMOVE, or RENAME
 * of it or over it)? 0, or -ETXTBSY while a share on it denies DELETE
 * (status tables: NFS4ERR_FILE_OPEN, NFS3ERR_ACCES; SMB:
 * STATUS_SHARING_VIOLATION).
 */
int state_may_delete(struct vfs_obj *obj);

/*
 * state_may_unlink_name() - may NFS REMOVE or RENAME take the name @name
 * in @dir (of the file, or renaming over it)? state_may_delete() of the
 * file, looked up only while some share denies DELETE or a grant exists
 * somewhere, and its delegations but those with @key (the caller's own)
 * recalled (RFC 8881 §10.4.4): -EAGAIN while a recall is out
 * (NFS4ERR_DELAY, NFS3ERR_JUKEBOX). 0 also when the lookup fails: the
 * REMOVE or RENAME itself then answers.
 */
int state_may_unlink_name(struct vfs_obj *dir, const char *name, size_t len,
			  const void *key);

/*
 * state_delete_check_needed() - false while no share anywhere denies
 * DELETE: callers may skip looking up the object to ask
 * state_may_delete(). One atomic load.
 */
bool state_delete_check_needed(void);

/* ---- byte-range locks ---------------------------------------------------- */

/*
 * A lock as reported to a conflict reporter. A lock held through another
 * server (a backend that shares locks between servers, vfs_lock_set) has
 * no holder here: @holder is all zeroes.
 */
struct state_lock_info {
	struct state_holder holder;
	struct state_range range;
	bool excl;
};

/*
 * Called with the first conflicting lock, with @f's mutex held: its
 * holder is alive, so the reporter may read the holder's immutable
 * fields (an NFSv4 LOCK4denied names the owner). It must not call back
 * into this module nor take locks a caller of this module may hold.
 */
typedef void (*state_conflict_fn)(void *arg, const struct state_lock_info *l);

/*
 * state_lock() - give @h the range @r of @f, exclusive (@excl) or shared,
 * with @h's flavor:
 * POSIX (RFC 8881 §9.4): the new lock replaces what @h held over @r
 * (upgrades and downgrades split ranges) and merges with @h's adjacent
 * and overlapping ranges of the same type; @r may not be empty.
 * Windows (MS-FSA 2.1.5.8): locks stack, the same range may be held
 * several times; an exclusive lock may not overlap any of @h's own.
 * Lock-vs-lock conflicts hold across flavors: another holder's lock over
 * @r conflicts when either lock is exclusive.
 * On a file whose backend shares locks with other servers
 * (vfs_locks_shared), the lock is mirrored there, and another server's
 * lock conflicts as well (file comment of lock.c).
 * Returns 0; -EAGAIN on a conflict (reported through @cb when not NULL);
 * -EINPROGRESS when only lapsed holders' locks conflict (state_set_lapsed,
 * not reported) or the backend that shares locks failed (ask again);
 * -ENOSPC at STATE_MAX_RANGES; -ENOMEM; -EINVAL (bad holder, empty POSIX
 * range). On failure @f is unchanged.
 */
int state_lock(struct state_file *f, const struct state_holder *h,
	       const struct state_range *r, bool excl, state_conflict_fn cb,
	       void *arg);

/*
 * state_lock_test() - would state_lock() conflict? @h NULL: a holder
 * with no locks (NFSv4 LOCKT of an unknown owner). 0, -EAGAIN (with
 * @cb as above) or -EINPROGRESS (as above).
 */
int state_lock_test(struct state_file *f, const struct state_holder *h,
		    const struct state_range *r, bool excl,
		    state_conflict_fn cb, void *arg);

/*
 * state_unlock() - release @r of @h's locks on @f.
 * POSIX: any part of what @h holds; a range with @r inside it splits
 * (-ENOSPC when the split would pass STATE_MAX_RANGES; -ENOMEM); 0 when
 * @h held nothing there.
 * Windows (MS-FSA 2.1.5.9): @r must be exactly one of @h's locks (an
 * exclusive one first when several match); -ENOENT otherwise
 * (STATUS_RANGE_NOT_LOCKED).
 */
int state_unlock(struct state_file *f, const struct state_holder *h,
		 const struct state_range *r);

/* state_unlock_all() - drop all of @h's locks on @f; returns how many. */
uint32_t state_unlock_all(struct state_file *f, const struct state_holder *h);

/* state_lock_count() - how many ranges @h holds on @f. */
uint32_t state_lock_count(struct state_file *f, const struct state_holder *h);

/*
 * state_check_io() - may @h (NULL: no holder) READ (@write false) or
 * WRITE @r of @f? Windows locks are mandatory (MS-FSA 2.1.4.10 without
 * lock intent): another holder's exclusive lock refuses both, any shared
 * lock, the writer's own too, refuses a WRITE. POSIX locks are advisory:
 * they never refuse I/O (as knfsd). 0 or -EAGAIN
 * (NFS4ERR_LOCKED, STATUS_FILE_LOCK_CONFLICT). Takes no lock while no
 * Windows lock exists anywhere.
 */
int state_check_io(struct state_file *f, const struct state_holder *h,
		   bool write, const struct state_range *r);

/*
 * state_check_io_obj() - state_check_io() on the entry of @obj (I/O
 * without an open: NFSv4 anonymous stateids); 0 without one. No lookup
 * while no Windows lock exists anywhere.
 */
int state_check_io_obj(struct vfs_obj *obj, const struct state_holder *h,
		       bool write, const struct state_range *r);

/* ---- caching grants ------------------------------------------------------ */

/*
 * A caching grant lets its holder keep what it read, wrote or opened
 * without asking the server each time, until another access conflicts:
 * SMB oplocks (level II = R, exclusive = RW, batch = RWH; MS-SMB2
 * §2.2.14), SMB leases (R, RW, RH, RWH; §2.2.13.2.8) and NFSv4 read and
 * write delegations (RFC 8881 §10.2) are grants of this one engine, so
 * that an NFS client's access breaks an SMB client's oplock and the
 * reverse.
 *
 * Conflicts. Whoever is about to touch a file (an open, a read, a write,
 * a truncation, a byte-range lock, a rename or delete of its name) says
 * so with state_grant_break(): each grant of another holder that the
 * access conflicts with (the kind's rule, grant.c) is broken to what it
 * may keep. A break that takes away only what needs no answer (SMB
 * level II to none) is done at once; one that needs the holder to flush
 * or close first (W, H, any delegation) is sent and waited for: the
 * accessor gets -EAGAIN and either waits (a waiter, woken when the break
 * ends) or tells its client to retry (NFS4ERR_DELAY, NFS3ERR_JUKEBOX).
 * A break ends with the holder's acknowledgement (state_grant_ack), its
 * grant's removal (close, DELEGRETURN), or the timeout: then the grant
 * keeps nothing (revocation, counted; MS-SMB2 §3.3.6.1).
 *
 * The engine sends nothing itself: a kind's ops tell the owning protocol
 * to send the break (an SMB OPLOCK_BREAK notification, CB_RECALL), with
 * no state lock held.
 */
#define STATE_GRANT_R 0x1u       /* read caching */
#define STATE_GRANT_W 0x2u       /* write caching (dirty data) */
#define STATE_GRANT_H 0x4u       /* handle caching (deferred close) */
#define STATE_GRANT_MASK 0x7u

enum state_grant_kind {
	STATE_GRANT_OPLOCK = 1,  /* SMB oplock: per open */
	STATE_GRANT_LEASE,       /* SMB lease: per lease key (key) */
	STATE_GRANT_DELEG,       /* NFSv4 delegation: per client (key) */
};

/* What an accessor does (state_grant_break). */
enum state_grant_op {
	STATE_OP_OPEN = 1,       /* an open; STATE_ASK_* say how */
	STATE_OP_READ,           /* reads data */
	STATE_OP_WRITE,          /* changes data or size, or locks a range */
	STATE_OP_SETATTR,        /* changes other attributes */
	STATE_OP_NAMESPACE,      /* removes, renames or links the file */
	STATE_OP_GETATTR,        /* reads size and times (NFS GETATTR) */
	STATE_OP_LOCKT,          /* tests for a byte-range lock */
};

#define STATE_ASK_DATA 0x1u      /* OPEN: reads, writes or executes */
#define STATE_ASK_OVERWRITE 0x2u /* OPEN: truncates (overwrite, supersede) */
#define STATE_ASK_WRITE 0x4u     /* OPEN: for writing */

struct state_grant;

struct state_grant_ops {
	/* Tell the holder of @g to drop to @to (from @from); called with no
	 * state lock held, on the accessor's thread or the timer's; must not
	 * block. @g is valid for the call. */
	void (*send_break)(struct state_grant *g, uint32_t from, uint32_t to,
			   bool ack_needed);
	/* Optional: the break timed out; @g now holds nothing. */
	void (*revoked)(struct state_grant *g);
	/* Optional: @g is freed (after state_grant_remove and the last
	 * break sent); @arg is the holder's again. */
	void (*release)(void *arg);
	/* Optional: ask the holder of @g for the size and change it caches
	 * (NFSv4 CB_GETATTR), for an access that only reads attributes,
	 * instead of breaking the grant; the answer comes through
	 * state_grant_attrs_done(). False when it cannot be asked (the
	 * grant is broken then). No state lock held; must not block. */
	bool (*send_getattr)(struct state_grant *g);
};

/* An accessor (state_grant_break). */
struct state_grant_ask {
	enum state_grant_op op;
	uint32_t flags;          /* STATE_ASK_* */
	/* Grants of this holder, or with this key, are the accessor's own
	 * and are not broken. Either may be NULL. */
	const struct state_holder *holder;
	const void *key;
	/* OPEN: the share the open asks for (STATE_ACCESS_*, STATE_DENY_*):
	 * a holder whose share it conflicts with loses its H (a batch
	 * oplock's holder may close, MS-FSA 2.1.5.1.2). */
	uint32_t access, deny;
};

/*
 * Someone waiting for a break to end (state_grant_break): @fn runs once,
 * with no state lock held, on the thread that ended it; it must not
 * block (it resumes a parked request). Queueing takes a reference on the
 * file that stays with the waiter, woken or not, until its owner calls
 * state_grant_unwait() (once per queueing, never twice at once). The
 * waiter's memory is the caller's; it must stay valid until @fn ran or
 * state_grant_unwait() returned true.
 */
struct state_grant_waiter {
	void (*fn)(struct state_grant_waiter *wt);
	void *arg;
	/* the engine's */
	struct state_grant_waiter *next;
	struct state_file *_Atomic f;
};

/*
 * state_grant_add() - give @h a grant of @kind on @f with @level
 * (STATE_GRANT_*), broken through @ops (@arg is the holder's, see
 * state_grant_arg), with @key for leases and delegations (NULL for
 * oplocks). A break not acknowledged within @timeout_ms times out.
 * Returns the grant, or NULL without memory, while a break of another
 * grant on @f is in progress, or on a file that others change unseen
 * (vfs_obj_changed_elsewhere) (grant nothing then).
 */
struct state_grant *state_grant_add(struct state_file *f,
				    const struct state_holder *h,
				    enum state_grant_kind kind, const void *key,
				    uint32_t level,
				    const struct state_grant_ops *ops, void *arg,
				    uint32_t timeout_ms);

/*
 * state_grant_may() - the highest of @want that a new grant of @kind for
 * @h (key @key) may get on @f now: W only when no other holder has a
 * share with access or a grant, H with W, R only when no other holder
 * writes... (grant.c). 0 while a break is in progress on @f, and always
 * on a file that others change unseen (vfs_obj_changed_elsewhere: a
 * cluster's other gateways would break nothing).
 */
uint32_t state_grant_may(struct state_file *f, const struct state_holder *h,
			 enum state_grant_kind kind, const void *key,
			 uint32_t want);

/*
 * state_grant_break() - @ask is about to happen on @f: break the grants
 * it conflicts with. 0: go ahead. -EAGAIN: a break needs an answer
 * first; with @wt not NULL it is queued and woken when a break on @f
 * ends (the caller then tries again, from the start).
 */
int state_grant_break(struct state_file *f, const struct state_grant_ask *ask,
		      struct state_grant_waiter *wt);

/*
 * state_grant_break_obj() - state_grant_break() on the entry of @obj; 0
 * without one. One atomic load while no grant exists anywhere.
 */
int state_grant_break_obj(struct vfs_obj *obj,
			  const struct state_grant_ask *ask,
			  struct state_grant_waiter *wt);

/*
 * state_grant_break_op() - state_grant_break_obj() of a bare @op by a
 * client that holds no grant and does not wait (NFSv3, NFSv4 without
 * delegations): 0, or -EAGAIN (NFS3ERR_JUKEBOX, NFS4ERR_DELAY: the
 * client retries).
 */
int state_grant_break_op(struct vfs_obj *obj, enum state_grant_op op);

/*
 * state_grant_break_key() - state_grant_break_op() by a client whose own
 * grants carry @key (an NFSv4 client's delegations): those are kept.
 */
int state_grant_break_key(struct vfs_obj *obj, enum state_grant_op op,
			  const void *key);

/* What the holder of a write grant said of the file (CB_GETATTR). */
struct state_grant_attrs {
	bool valid;              /* a holder answered */
	bool modified;           /* it changed the file since the grant */
	uint64_t size;           /* the size it has */
};

/*
 * state_grant_getattr() - someone whose own grants carry @key (NULL:
 * none) reads the size and times of @obj (a GETATTR). The write grants
 * of others that can be asked (ops.send_getattr) are asked for what they
 * cache rather than broken, and waited for up to @wait_ms; those that
 * cannot, or do not answer in time, are broken (as
 * state_grant_break_key(STATE_OP_GETATTR)).
 * Returns 0 with @out (valid when a holder answered; nothing to know
 * otherwise), -EINPROGRESS when @wait_ms is 0 and a holder would be
 * asked (run it again where it may block), -EAGAIN while a grant is
 * being broken (retry later: DELAY, JUKEBOX).
 */
int state_grant_getattr(struct vfs_obj *obj, const void *key,
			uint32_t wait_ms, struct state_grant_attrs *out);

/*
 * state_grant_attrs_done() - the holder of @g answered the question of
 * state_grant_getattr() (@ok false: it failed; @a is then unused).
 */
void state_grant_attrs_done(struct state_grant *g, bool ok,
			    const struct state_grant_attrs *a);

/* How long a GETATTR waits for a write grant's holder to answer. */
#define STATE_GRANT_ATTR_WAIT_MS 100

/*
 * state_grant_ask_attrs() - before a GETATTR of @obj by someone whose
 * grants carry @key: another client's write grant's holder is asked
 * (state_grant_getattr, on a thread that may block: -EINPROGRESS when
 * @nowait); when it changed the file, the file's mtime is set to now and
 * *@size is the holder's size, which the caller reports over what its own
 * vfs_getattr() then finds (*@size untouched otherwise). -EAGAIN while a
 * grant is being recalled instead.
 */
int state_grant_ask_attrs(struct vfs_obj *obj, const void *key, bool nowait,
			  uint64_t *size);

/* state_grant_any() - does any grant exist anywhere? One atomic load. */
bool state_grant_any(void);

/*
 * state_grant_unwait() - the owner is done with @wt: off its queue if
 * still on it, and the file's reference its queueing took given back.
 * True when it was still queued (its fn will not run); false when it ran
 * or is running, or @wt was not queued.
 */
bool state_grant_unwait(struct state_grant_waiter *wt);

/*
 * state_grant_ack() - the holder of @g acknowledged a break, keeping
 * @level. 0; -EINVAL when no break of @g is in progress (nothing
 * changes); -ERANGE when @level keeps more than the break left: the
 * grant keeps what the break left, the break ends all the same.
 */
int state_grant_ack(struct state_grant *g, uint32_t level);

/* state_grant_level() - what @g holds now (breaking: what it still has). */
uint32_t state_grant_level(struct state_grant *g);

/* state_grant_breaking() - is a break of @g waiting for its answer?
 * *@to (may be NULL) is what the break leaves. */
bool state_grant_breaking(struct state_grant *g, uint32_t *to);

/* state_grant_arg() - the @arg given at state_grant_add. */
void *state_grant_arg(const struct state_grant *g);

/*
 * state_grant_remove() - @g goes (close, DELEGRETURN): a break of it
 * ends, waiters wake. The caller's reference goes: @g is freed here
 * unless state_grant_hold() kept it for someone else.
 */
void state_grant_remove(struct state_grant *g);

/*
 * state_grant_hold() / state_grant_put() - keep @g allocated while it
 * is used outside the lock that publishes it (a thread that found it on
 * an open that another thread closes). A removed grant answers as one:
 * level and breaking as it was left, state_grant_ack() -EINVAL.
 */
void state_grant_hold(struct state_grant *g);
void state_grant_put(struct state_grant *g);

/* Engine counters (stats). */
struct state_grant_counts {
	uint32_t grants;         /* live */
	uint64_t granted;        /* totals since start */
	uint64_t breaks;         /* breaks sent */
	uint64_t acked;          /* breaks ended by acknowledgement or removal */
	uint64_t revoked;        /* breaks that timed out */
	uint64_t waits;          /* accessors told to wait */
	uint64_t asked;          /* holders asked for attributes */
};

void state_grant_counts(struct state_grant_counts *out);

/* state_grant_stats_init() - register the counters with `nasd stats`
 * (start-up). */
void state_grant_stats_init(void);

/* ---- counters, limits ---------------------------------------------------- */

struct state_counts {
	uint32_t files;          /* entries */
	uint32_t ranges;         /* locks, all flavors */
	uint32_t win_ranges;     /* Windows (mandatory) locks */
	uint32_t shares;
	uint32_t deny[3];        /* shares denying READ, WRITE, DELETE */
};

/* state_counts() - a snapshot of the global counters (tests, stats). */
void state_counts(struct state_counts *out);

/*
 * state_set_max_ranges() - for tests: the range bound (0 restores
 * STATE_MAX_RANGES).
 */
void state_set_max_ranges(uint32_t n);

#endif
