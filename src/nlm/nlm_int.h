/* SPDX-License-Identifier: MIT */
#ifndef NASD_NLM_NLM_INT_H
#define NASD_NLM_NLM_INT_H

/*
 * NLM internals: hosts, lock owners, the records of what they hold, the
 * blocked locks, the callback queue.
 *
 * Locking: one mutex, nlm_mu (nlm_host.c), guards every host, owner,
 * record and blocked lock. NLM calls are rare next to I/O (a lock, an
 * unlock per critical section), and the conflict walk is the state
 * table's, under its own per-file mutex taken inside nlm_mu (state/
 * allows protocol locks around its calls). The callback thread and the
 * blocked-lock timer take nlm_mu briefly and never hold it across a
 * socket call.
 *
 * Identity (XNFS §10.2): a host is (caller_name, the caller's address);
 * a lock owner is (host, svid, oh); a share owner is (host, oh). An
 * owner's address is the holder id in the state table (tag
 * STATE_HOLDER_NLM); it lives while it holds a record or a blocked lock.
 */

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "nlm/nlm.h"
#include "nlm/nlm_xdr.h"
#include "state/file_state.h"

/* Limits (docs/SECURITY.md). */
#define NLM_MAX_HOSTS		1024
#define NLM_MAX_OWNERS_PER_HOST 4096
#define NLM_MAX_RECS_PER_HOST	4096 /* (owner, file) pairs with locks */
#define NLM_MAX_BLOCKED		1024 /* blocked locks, all hosts */
#define NLM_CB_QUEUE_MAX	1024 /* callbacks waiting to be sent */
#define NLM_RETRY_MS		100  /* blocked locks are tried again */

struct nlm_host;

struct nlm_owner {
	struct nlm_owner *next; /* host->owners */
	struct nlm_host *host;
	int32_t svid;
	bool share;    /* a share owner (no svid) */
	uint32_t refs; /* records + blocked locks */
	uint32_t ohlen;
	uint8_t oh[];
};

/* An owner holds locks (or a share) on a file: for FREE_ALL. */
struct nlm_rec {
	struct nlm_rec *next; /* host->recs */
	struct nlm_owner *owner;
	struct state_file *f; /* a reference */
	bool share;
};

struct nlm_host {
	struct nlm_host *next;	      /* nlm_hosts */
	struct sockaddr_storage addr; /* port 0 */
	struct nlm_owner *owners;
	struct nlm_rec *recs;
	uint32_t nowners, nrecs;
	bool monitored; /* recorded in the state directory */
	uint32_t namelen;
	char name[]; /* caller_name, NUL-terminated */
};

/* A blocked lock (XNFS §10.3.1): retried until granted or cancelled. */
struct nlm_block {
	struct nlm_block *next;	 /* nlm_blocked */
	struct nlm_owner *owner; /* a ref */
	struct state_file *f;	 /* a reference */
	struct state_range range;
	bool excl;
	bool granted;  /* taken; GRANTED being sent */
	bool dead;     /* off the list (cancelled, freed) */
	uint32_t refs; /* the list's + a callback's */
	uint32_t vers;
	struct nlm_lock alock; /* the client's, pointing into @buf */
	struct nlm_obj cookie;
	uint8_t buf[];
};

extern pthread_mutex_t nlm_mu;
extern struct nlm_cfg nlm_config;

/* ---- nlm_host.c ---- */

/*
 * nlm_host_find() - under nlm_mu: the host (@name, @peer), made when
 * @create (NULL at NLM_MAX_HOSTS or without memory).
 */
struct nlm_host *nlm_host_find(const struct nlm_obj *name,
			       const struct sockaddr *peer, bool create);
/* nlm_owner_find() - under nlm_mu: the owner, made when @create. */
struct nlm_owner *nlm_owner_find(struct nlm_host *h, int32_t svid,
				 const struct nlm_obj *oh, bool share,
				 bool create);
/* nlm_owner_put() - under nlm_mu: drop a ref; an unused owner is freed. */
void nlm_owner_put(struct nlm_owner *o);
/* nlm_holder() - @o as a state table holder. */
struct state_holder nlm_holder(const struct nlm_owner *o);
/*
 * nlm_rec_add() - under nlm_mu: note that @o holds state on @f (takes a
 * reference on @f and a ref on @o when new). 0, or -ENOSPC at
 * NLM_MAX_RECS_PER_HOST, -ENOMEM.
 */
int nlm_rec_add(struct nlm_owner *o, struct state_file *f, bool share);
/* nlm_rec_drop() - under nlm_mu: forget that record, if there is one. */
void nlm_rec_drop(struct nlm_owner *o, struct state_file *f, bool share);
/*
 * nlm_host_monitor() - under nlm_mu: mark @h monitored; true when it was
 * not (the caller then calls nlm_hosts_save() without nlm_mu).
 */
bool nlm_host_monitor(struct nlm_host *h);
/* nlm_hosts_save() - write the monitored hosts file (nlm_mu not held). */
void nlm_hosts_save(void);
/*
 * nlm_hosts_free_name() - release every lock, share and blocked lock of
 * the hosts called @name (FREE_ALL, a client's SM_NOTIFY); with @peer,
 * only hosts at that address. Returns how many hosts matched.
 */
unsigned int nlm_hosts_free_name(const struct nlm_obj *name,
				 const struct sockaddr *peer);

/*
 * nlm_resolve() - the object named by NFSv3 handle @fh for this call:
 * format and MAC, export, admission (as NFSv3: client, secure port,
 * squash). *@ro tells a read-only export. NLM4_GRANTED with *@out (the
 * caller's reference), or the nlm4_stats to answer: STALE_FH for a bad or
 * unknown handle, FAILED when the client is not admitted.
 */
uint32_t nlm_resolve(struct rpc_call *call, const struct nlm_obj *fh,
		     struct vfs_obj **out, bool *ro);

/*
 * nlm_range() - the state range of NLM's (@off, @len): a length of 0
 * means to the end of file (XNFS §10.14); NLM4_FBIG when off + len
 * passes 2^64. NLM4_GRANTED or the status.
 */
uint32_t nlm_range(uint64_t off, uint64_t len, struct state_range *r);

/* ---- nlm_lock.c ---- */

/* nlm_block_put() - under nlm_mu: drop a ref of @b. */
void nlm_block_put(struct nlm_block *b);
/* nlm_block_kill() - under nlm_mu: take @b off the list (not granted). */
void nlm_block_kill(struct nlm_block *b);
/* nlm_blocks_of_host() - under nlm_mu: kill @h's blocked locks. */
void nlm_blocks_of_host(struct nlm_host *h);
/* nlm_blocked_kick() - under nlm_mu: try the blocked locks soon. */
void nlm_blocked_kick(void);

/* ---- nlm_cb.c: the callback thread ---- */

struct nlm_cb;
/*
 * Called on the callback thread, without nlm_mu, once: @err 0 with the
 * reply's results (@res, @len), or the last -errno.
 */
typedef void (*nlm_cb_done)(struct nlm_cb *cb, int err, const uint8_t *res,
			    size_t len);

struct nlm_cb {
	struct nlm_cb *next;
	struct sockaddr_storage addr;
	uint32_t prog, vers, proc;
	uint32_t tries; /* left */
	uint64_t due_ms;
	nlm_cb_done done; /* NULL: nothing to do */
	void *arg;
	size_t alen;
	uint8_t args[];
};

/*
 * nlm_cb_send() - queue a call of (@prog, @vers, @proc) with @args (@alen
 * bytes, copied) to the host at @addr, whose port the port mapper at
 * that address gives (nlm_config.client_rpcbind_port), over TCP; tried
 * @tries times, a second more apart each time. @done (may be NULL) is
 * told the outcome. -ENOSPC at NLM_CB_QUEUE_MAX, -ENOMEM: then @done is
 * not called.
 */
int nlm_cb_send(const struct sockaddr_storage *addr, uint32_t prog,
		uint32_t vers, uint32_t proc, const uint8_t *args, size_t alen,
		uint32_t tries, nlm_cb_done done, void *arg);
int nlm_cb_start(void);
void nlm_cb_stop(void);
void nlm_cb_counts(uint64_t *done, uint64_t *failed);
/* nlm_blocked_count() - blocked locks waiting now (nlm_lock.c). */
unsigned int nlm_blocked_count(void);

/* ---- nsm.c ---- */
/* The NSM state number nasd announces (odd: up). */
int32_t nsm_state(void);
/* nsm_load() - read and bump the state, load the records to notify. */
int nsm_load(void);
/* nsm_notify_all() - queue SM_NOTIFY to every recorded host. */
void nsm_notify_all(void);
/* nsm_pending_lines() - append the not yet notified records to @buf. */
size_t nsm_pending_lines(char *buf, size_t len);

/* Handlers (nlm_lock.c, nlm_share.c). */
void nlm_proc_test(struct rpc_call *call, const void *args, void *res);
void nlm_proc_lock(struct rpc_call *call, const void *args, void *res);
void nlm_proc_cancel(struct rpc_call *call, const void *args, void *res);
void nlm_proc_unlock(struct rpc_call *call, const void *args, void *res);
void nlm_proc_granted(struct rpc_call *call, const void *args, void *res);
void nlm_proc_test_msg(struct rpc_call *call, const void *args, void *res);
void nlm_proc_lock_msg(struct rpc_call *call, const void *args, void *res);
void nlm_proc_cancel_msg(struct rpc_call *call, const void *args, void *res);
void nlm_proc_unlock_msg(struct rpc_call *call, const void *args, void *res);
void nlm_proc_granted_msg(struct rpc_call *call, const void *args, void *res);
void nlm_proc_nm_lock(struct rpc_call *call, const void *args, void *res);
void nlm_proc_free_all(struct rpc_call *call, const void *args, void *res);
void nlm_proc_share(struct rpc_call *call, const void *args, void *res);
void nlm_proc_unshare(struct rpc_call *call, const void *args, void *res);

#endif
