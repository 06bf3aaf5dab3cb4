// SPDX-License-Identifier: MIT
/*
 * NLM TEST, LOCK, CANCEL, UNLOCK, NM_LOCK, FREE_ALL (XNFS §10.14, §14.2),
 * their _MSG forms, and blocked locks.
 *
 * A LOCK with block set that conflicts is answered NLM4_BLOCKED and kept
 * on nlm_blocked. A timer tries the blocked locks again every
 * NLM_RETRY_MS (and at once after an NLM unlock), as SMB's blocking
 * locks are retried (smb2_lock.c): a lock freed by any protocol, NFSv4,
 * SMB or NLM, is seen at the next try. A lock that is taken is sent to
 * the client as NLM_GRANTED (XNFS §10.3.1) by the callback thread; a
 * client that answers anything but GRANTED no longer waits, and the lock
 * is released. A GRANTED that cannot be delivered leaves the lock held:
 * the client's own re-sent LOCK (the Linux client re-sends every 30 s)
 * then finds it granted.
 *
 * The _MSG procedures run as their synchronous forms and send the result
 * back to the client's lockd as the matching *_RES call (XNFS §10.4);
 * their own RPC reply is void.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/addr.h"
#include "core/log.h"
#include "core/timer.h"
#include "nlm/nlm_int.h"
#include "vfs/vfs.h"

static struct nlm_block *nlm_blocked;
static atomic_uint nlm_nblocked; /* under nlm_mu; atomic for nasd stats */

unsigned int nlm_blocked_count(void)
{
	return atomic_load(&nlm_nblocked);
}
static struct timer retry_timer;
static bool retry_on;

#define GRANTED_TRIES 5
#define MSG_TRIES     3

/* ---- blocked locks ---- */

static void block_free(struct nlm_block *b)
{
	state_file_put(b->f);
	nlm_owner_put(b->owner);
	free(b);
}

/** nlm_block_put() - see nlm_int.h. */
void nlm_block_put(struct nlm_block *b)
{
	if (--b->refs == 0)
		block_free(b);
}

/** nlm_block_kill() - see nlm_int.h. */
void nlm_block_kill(struct nlm_block *b)
{
	struct nlm_block **pp;

	if (b->dead)
		return;
	for (pp = &nlm_blocked; *pp; pp = &(*pp)->next)
		if (*pp == b) {
			*pp = b->next;
			break;
		}
	b->dead = true;
	nlm_nblocked--;
	nlm_block_put(b);
}

/** nlm_blocks_of_host() - see nlm_int.h. */
void nlm_blocks_of_host(struct nlm_host *h)
{
	struct nlm_block *b, *next;

	for (b = nlm_blocked; b; b = next) {
		next = b->next;
		if (b->owner->host == h)
			nlm_block_kill(b);
	}
}

static bool same_range(const struct state_range *a, const struct state_range *b)
{
	return a->start == b->start && a->end == b->end;
}

static struct nlm_block *block_find(const struct nlm_owner *o,
				    const struct state_file *f,
				    const struct state_range *r, bool excl)
{
	struct nlm_block *b;

	for (b = nlm_blocked; b; b = b->next)
		if (b->owner == o && b->f == f && b->excl == excl &&
		    same_range(&b->range, r))
			return b;
	return NULL;
}

static void granted_done(struct nlm_cb *cb, int err, const uint8_t *res,
			 size_t len)
{
	struct nlm_block *b = cb->arg;
	struct nlm_res r = {0};
	struct xdr_buf x;
	bool refused = false;

	if (!err) {
		xdr_init(&x, (uint8_t *)res, len);
		refused = nlm_dec_res(&x, &r) && r.stat != NLM4_GRANTED;
	}
	pthread_mutex_lock(&nlm_mu);
	if (refused && !b->dead) {
		/* XNFS §10.3.1: the client no longer wants it. */
		struct state_holder sh = nlm_holder(b->owner);

		(void)state_unlock(b->f, &sh, &b->range);
		if (state_lock_count(b->f, &sh) == 0)
			nlm_rec_drop(b->owner, b->f, false);
		nlm_blocked_kick();
	}
	if (err)
		log_info("nlm: GRANTED not delivered to %s: %s",
			 b->owner->host->name, strerror(-err));
	nlm_block_kill(b);
	nlm_block_put(b); /* the callback's */
	pthread_mutex_unlock(&nlm_mu);
}

/* Under nlm_mu: @b got its lock; tell the client. */
static void block_granted(struct nlm_block *b)
{
	uint8_t args[3 * (4 + MAXNETOBJ_SZ) + 4 + LM_MAXSTRLEN + 64];
	struct nlm_lock l = b->alock;
	struct xdr_buf x;

	b->granted = true;
	/* The lock as the client asked for it (it matches its own). */
	xdr_init(&x, args, sizeof(args));
	if (!nlm_enc_testargs(&x, b->vers, &b->cookie, b->excl, &l))
		goto out_kill;
	b->refs++;
	if (nlm_cb_send(&b->owner->host->addr, NLM_PROG, b->vers,
			NLMPROC_GRANTED, args, x.pos, GRANTED_TRIES,
			granted_done, b) == 0)
		return;
	b->refs--;
out_kill:
	/* The lock stays: the client's next LOCK is answered GRANTED. */
	nlm_block_kill(b);
}

static void retry_fire(struct timer *t);

static void retry_arm(uint64_t ms)
{
	if (retry_on || !nlm_blocked)
		return;
	retry_on = timer_arm(&retry_timer, ms, retry_fire, NULL) == 0;
}

/*
 * Is a client caching the file (an NFSv4 delegation, whose holder may
 * hold locks the server has not seen) being recalled before @op can be
 * answered? Its recall is started; the caller answers "later".
 */
static bool grants_recalled(struct state_file *f, enum state_grant_op op)
{
	struct state_grant_ask ask = {.op = op};

	return state_grant_break(f, &ask, NULL) == -EAGAIN;
}

static void retry_fire(struct timer *t)
{
	struct nlm_block *b, *next;

	(void)t;
	pthread_mutex_lock(&nlm_mu);
	retry_on = false;
	for (b = nlm_blocked; b; b = next) {
		struct state_holder sh = nlm_holder(b->owner);
		int err;

		next = b->next;
		if (b->granted || grants_recalled(b->f, STATE_OP_WRITE))
			continue;
		err = state_lock(b->f, &sh, &b->range, b->excl, NULL, NULL);
		/* still held (a courtesy client's lock: until it expires) */
		if (err == -EAGAIN || err == -EINPROGRESS)
			continue;
		if (err == 0 && nlm_rec_add(b->owner, b->f, false) < 0) {
			(void)state_unlock(b->f, &sh, &b->range);
			err = -ENOSPC;
		}
		if (err == 0)
			block_granted(b);
		else
			nlm_block_kill(b); /* the client's re-send answers */
	}
	retry_arm(NLM_RETRY_MS);
	pthread_mutex_unlock(&nlm_mu);
}

/** nlm_blocked_kick() - see nlm_int.h. */
void nlm_blocked_kick(void)
{
	if (retry_on && timer_cancel(&retry_timer))
		retry_on = false;
	retry_arm(0);
}

/* Under nlm_mu: remember a blocked lock (copies of the client's bytes). */
static int block_add(const struct nlm_args *a, struct nlm_owner *o,
		     struct state_file *f, const struct state_range *r)
{
	const struct nlm_lock *al = &a->alock;
	size_t n =
		a->cookie.len + al->caller_name.len + al->fh.len + al->oh.len;
	struct nlm_block *b;
	uint8_t *p;

	if (nlm_nblocked >= NLM_MAX_BLOCKED)
		return -ENOSPC;
	b = calloc(1, sizeof(*b) + n);
	if (!b)
		return -ENOMEM;
	b->owner = o;
	o->refs++;
	b->f = f;
	state_file_hold(f);
	b->range = *r;
	b->excl = a->exclusive;
	b->vers = a->vers;
	b->refs = 1;
	b->alock = *al;
	p = b->buf;
#define COPY(dst, src)                                                         \
	do {                                                                   \
		(dst).len = (src).len;                                         \
		(dst).p = p;                                                   \
		if ((src).len)                                                 \
			memcpy(p, (src).p, (src).len);                         \
		p += (src).len;                                                \
	} while (0)
	COPY(b->cookie, a->cookie);
	COPY(b->alock.caller_name, al->caller_name);
	COPY(b->alock.fh, al->fh);
	COPY(b->alock.oh, al->oh);
#undef COPY
	b->next = nlm_blocked;
	nlm_blocked = b;
	nlm_nblocked++;
	retry_arm(NLM_RETRY_MS);
	return 0;
}

/* ---- the procedures ---- */

/* What one call resolved: the file and its range. */
struct nlm_target {
	struct vfs_obj *obj;
	struct state_file *f;
	struct state_range r;
	bool ro;
};

static uint32_t target_get(struct rpc_call *call, const struct nlm_lock *l,
			   struct nlm_target *t)
{
	uint32_t st;

	memset(t, 0, sizeof(*t));
	st = nlm_range(l->l_offset, l->l_len, &t->r);
	if (st)
		return st;
	st = nlm_resolve(call, &l->fh, &t->obj, &t->ro);
	if (st)
		return st;
	t->f = state_file_get(t->obj);
	if (!t->f) {
		vfs_obj_put(t->obj);
		t->obj = NULL;
		return NLM4_DENIED_NOLOCKS;
	}
	return NLM4_GRANTED;
}

static void target_put(struct nlm_target *t)
{
	if (t->f)
		state_file_put(t->f);
	if (t->obj)
		vfs_obj_put(t->obj);
}

/* A new owner that ended with nothing is freed again. */
static void owner_settle(struct nlm_owner *o)
{
	if (o && !o->refs)
		nlm_owner_put(o);
}

/* The conflict reporter of TEST: the holder, copied under the file mutex. */
struct test_conflict {
	struct nlm_holder *h;
	uint8_t oh[MAXNETOBJ_SZ];
};

static void test_report(void *arg, const struct state_lock_info *l)
{
	struct test_conflict *tc = arg;
	struct nlm_holder *h = tc->h;

	h->exclusive = l->excl;
	h->l_offset = l->range.start;
	h->l_len = l->range.end == UINT64_MAX
			   ? 0
			   : l->range.end - l->range.start + 1;
	h->svid = 0;
	h->oh.len = 0;
	h->oh.p = tc->oh;
	if (l->holder.tag == STATE_HOLDER_NLM) {
		const struct nlm_owner *o = l->holder.id;

		h->svid = o->svid;
		h->oh.len = o->ohlen;
		memcpy(tc->oh, o->oh, o->ohlen);
	}
}

static void res_init(struct nlm_res *res, const struct nlm_args *a,
		     uint32_t proc)
{
	res->vers = a->vers;
	res->proc = proc;
	res->cookie = a->cookie;
}

static void do_test(struct rpc_call *call, const struct nlm_args *a,
		    struct nlm_res *res)
{
	struct test_conflict *tc;
	struct nlm_target t;
	struct nlm_host *h;
	struct nlm_owner *o = NULL;
	struct state_holder sh;

	res_init(res, a, NLMPROC_TEST);
	if (nlm_in_grace()) {
		res->stat = NLM4_DENIED_GRACE_PERIOD;
		return;
	}
	res->stat = target_get(call, &a->alock, &t);
	if (res->stat)
		goto out;
	/* a delegation's holder may lock without telling: recalled first,
	 * the client asks again (as during a grace period) */
	if (grants_recalled(t.f, STATE_OP_LOCKT)) {
		res->stat = NLM4_DENIED_GRACE_PERIOD;
		goto out;
	}
	tc = rpc_call_alloc(call, sizeof(*tc));
	if (!tc) {
		res->stat = NLM4_DENIED_NOLOCKS;
		goto out;
	}
	tc->h = &res->holder;
	pthread_mutex_lock(&nlm_mu);
	h = nlm_host_find(&a->alock.caller_name, rpc_call_peer(call), false);
	if (h)
		o = nlm_owner_find(h, a->alock.svid, &a->alock.oh, false,
				   false);
	if (o)
		sh = nlm_holder(o);
	switch (state_lock_test(t.f, o ? &sh : NULL, &t.r, a->exclusive,
				test_report, tc)) {
	case -EAGAIN:
		res->stat = NLM4_DENIED;
		break;
	case -EINPROGRESS: /* a courtesy NFSv4 client's, expiring */
		res->stat = NLM4_DENIED_GRACE_PERIOD;
		break;
	default:
		break;
	}
	pthread_mutex_unlock(&nlm_mu);
out:
	target_put(&t);
}

static void do_lock(struct rpc_call *call, const struct nlm_args *a,
		    struct nlm_res *res, bool monitor)
{
	struct nlm_target t;
	struct nlm_host *h;
	struct nlm_owner *o = NULL;
	struct nlm_block *b;
	struct state_holder sh;
	bool save = false, recalling;
	int err;

	res_init(res, a, NLMPROC_LOCK);
	/* XNFS §10.6.2; and a reclaim outside grace is refused (knfsd). */
	if (nlm_in_grace() != a->reclaim) {
		res->stat = NLM4_DENIED_GRACE_PERIOD;
		return;
	}
	res->stat = target_get(call, &a->alock, &t);
	if (res->stat)
		goto out;
	/* a delegation's holder may hold locks unseen: recalled first; a
	 * blocking LOCK waits for it, another is told to ask again */
	recalling = grants_recalled(t.f, STATE_OP_WRITE);
	if (recalling && !a->block) {
		res->stat = NLM4_DENIED_GRACE_PERIOD;
		goto out;
	}
	pthread_mutex_lock(&nlm_mu);
	h = nlm_host_find(&a->alock.caller_name, rpc_call_peer(call), true);
	if (h)
		o = nlm_owner_find(h, a->alock.svid, &a->alock.oh, false, true);
	if (!o) {
		res->stat = NLM4_DENIED_NOLOCKS;
		goto out_unlock;
	}
	sh = nlm_holder(o);
	err = recalling ? -EAGAIN
			: state_lock(t.f, &sh, &t.r, a->exclusive, NULL, NULL);
	if (err == 0) {
		err = nlm_rec_add(o, t.f, false);
		if (err) {
			(void)state_unlock(t.f, &sh, &t.r);
			res->stat = NLM4_DENIED_NOLOCKS;
			goto out_unlock;
		}
		/* A re-sent LOCK that was waiting: it is done. */
		b = block_find(o, t.f, &t.r, a->exclusive);
		if (b && !b->granted)
			nlm_block_kill(b);
		res->stat = NLM4_GRANTED;
	} else if ((err == -EAGAIN || err == -EINPROGRESS) && a->block) {
		res->stat = NLM4_BLOCKED;
		if (!block_find(o, t.f, &t.r, a->exclusive) &&
		    block_add(a, o, t.f, &t.r) < 0)
			res->stat = NLM4_DENIED_NOLOCKS;
	} else if (err == -EAGAIN) {
		res->stat = NLM4_DENIED;
	} else if (err == -EINPROGRESS) {
		/* a courtesy NFSv4 client's lock, expiring: ask again */
		res->stat = NLM4_DENIED_GRACE_PERIOD;
	} else {
		res->stat = NLM4_DENIED_NOLOCKS;
	}
	if (monitor && (res->stat == NLM4_GRANTED || res->stat == NLM4_BLOCKED))
		save = nlm_host_monitor(h);
out_unlock:
	owner_settle(o);
	pthread_mutex_unlock(&nlm_mu);
	if (save)
		nlm_hosts_save();
out:
	target_put(&t);
}

static void do_cancel(struct rpc_call *call, const struct nlm_args *a,
		      struct nlm_res *res)
{
	struct nlm_target t;
	struct nlm_host *h;
	struct nlm_owner *o = NULL;
	struct nlm_block *b = NULL;

	res_init(res, a, NLMPROC_CANCEL);
	res->stat = target_get(call, &a->alock, &t);
	if (res->stat)
		goto out;
	/* knfsd: a CANCEL that finds no waiting lock is DENIED. */
	res->stat = NLM4_DENIED;
	pthread_mutex_lock(&nlm_mu);
	h = nlm_host_find(&a->alock.caller_name, rpc_call_peer(call), false);
	if (h)
		o = nlm_owner_find(h, a->alock.svid, &a->alock.oh, false,
				   false);
	if (o)
		b = block_find(o, t.f, &t.r, a->exclusive);
	if (b) {
		if (b->granted) {
			/* Taken, GRANTED not yet answered: give it back. */
			struct state_holder sh = nlm_holder(o);

			(void)state_unlock(t.f, &sh, &t.r);
			if (state_lock_count(t.f, &sh) == 0)
				nlm_rec_drop(o, t.f, false);
			nlm_blocked_kick();
		}
		nlm_block_kill(b);
		res->stat = NLM4_GRANTED;
	}
	pthread_mutex_unlock(&nlm_mu);
out:
	target_put(&t);
}

static void do_unlock(struct rpc_call *call, const struct nlm_args *a,
		      struct nlm_res *res)
{
	struct nlm_target t;
	struct nlm_host *h;
	struct nlm_owner *o = NULL;
	struct nlm_block *b, *next;
	struct state_holder sh;

	res_init(res, a, NLMPROC_UNLOCK);
	res->stat = target_get(call, &a->alock, &t);
	if (res->stat)
		goto out;
	pthread_mutex_lock(&nlm_mu);
	h = nlm_host_find(&a->alock.caller_name, rpc_call_peer(call), false);
	if (h)
		o = nlm_owner_find(h, a->alock.svid, &a->alock.oh, false,
				   false);
	if (!o)
		goto out_unlock; /* it held nothing: GRANTED */
	sh = nlm_holder(o);
	/* An unlock cancels the owner's waiting locks on the file (knfsd). */
	for (b = nlm_blocked; b; b = next) {
		next = b->next;
		if (b->owner == o && b->f == t.f && !b->granted)
			nlm_block_kill(b);
	}
	if (state_unlock(t.f, &sh, &t.r) < 0)
		res->stat = NLM4_DENIED_NOLOCKS;
	if (state_lock_count(t.f, &sh) == 0)
		nlm_rec_drop(o, t.f, false);
	nlm_blocked_kick();
out_unlock:
	pthread_mutex_unlock(&nlm_mu);
out:
	target_put(&t);
}

/** nlm_proc_test() - NLM_TEST (XNFS §10.14, §14.2). */
void nlm_proc_test(struct rpc_call *call, const void *args, void *res)
{
	do_test(call, args, res);
}

/** nlm_proc_lock() - NLM_LOCK, blocking or not (XNFS §10.14). */
void nlm_proc_lock(struct rpc_call *call, const void *args, void *res)
{
	do_lock(call, args, res, true);
}

/** nlm_proc_nm_lock() - NLM_NM_LOCK: LOCK without monitoring. */
void nlm_proc_nm_lock(struct rpc_call *call, const void *args, void *res)
{
	do_lock(call, args, res, false);
}

/** nlm_proc_cancel() - NLM_CANCEL: drop a blocked lock (XNFS §10.14). */
void nlm_proc_cancel(struct rpc_call *call, const void *args, void *res)
{
	do_cancel(call, args, res);
}

/** nlm_proc_unlock() - NLM_UNLOCK (XNFS §10.14). */
void nlm_proc_unlock(struct rpc_call *call, const void *args, void *res)
{
	do_unlock(call, args, res);
}

/*
 * nlm_proc_granted() - NLM_GRANTED sent to the server: nasd has no
 * blocked lock of its own as a client, so it is not one it waits for.
 */
void nlm_proc_granted(struct rpc_call *call, const void *args, void *res)
{
	res_init(res, args, NLMPROC_TEST);
	((struct nlm_res *)res)->proc = NLMPROC_GRANTED;
	((struct nlm_res *)res)->stat = NLM4_DENIED;
	(void)call;
}

/* Send @res back to the caller as procedure @proc (a *_RES message). */
static void msg_reply(struct rpc_call *call, const struct nlm_res *res,
		      uint32_t proc)
{
	uint8_t buf[2 * (4 + MAXNETOBJ_SZ) + 64];
	struct sockaddr_storage addr = *call->req->peer;
	struct xdr_buf x;

	xdr_init(&x, buf, sizeof(buf));
	if (!nlm_enc_res(&x, res))
		return;
	addr_set_port(&addr, 0);
	if (nlm_cb_send(&addr, NLM_PROG, call->vers, proc, buf, x.pos,
			MSG_TRIES, NULL, NULL) < 0)
		log_info("nlm: callback queue full: a %u reply is lost", proc);
}

typedef void (*do_fn)(struct rpc_call *call, const struct nlm_args *a,
		      struct nlm_res *res);

static void run_msg(struct rpc_call *call, const void *args, do_fn fn,
		    uint32_t res_proc)
{
	struct nlm_res res = {0};

	fn(call, args, &res);
	msg_reply(call, &res, res_proc);
}

static void do_lock_mon(struct rpc_call *call, const struct nlm_args *a,
			struct nlm_res *res)
{
	do_lock(call, a, res, true);
}

/** nlm_proc_test_msg() - NLM_TEST_MSG: TEST, answered by TEST_RES. */
void nlm_proc_test_msg(struct rpc_call *call, const void *args, void *res)
{
	(void)res;
	run_msg(call, args, do_test, NLMPROC_TEST_RES);
}

/** nlm_proc_lock_msg() - NLM_LOCK_MSG: LOCK, answered by LOCK_RES. */
void nlm_proc_lock_msg(struct rpc_call *call, const void *args, void *res)
{
	(void)res;
	run_msg(call, args, do_lock_mon, NLMPROC_LOCK_RES);
}

/** nlm_proc_cancel_msg() - NLM_CANCEL_MSG, answered by CANCEL_RES. */
void nlm_proc_cancel_msg(struct rpc_call *call, const void *args, void *res)
{
	(void)res;
	run_msg(call, args, do_cancel, NLMPROC_CANCEL_RES);
}

/** nlm_proc_unlock_msg() - NLM_UNLOCK_MSG, answered by UNLOCK_RES. */
void nlm_proc_unlock_msg(struct rpc_call *call, const void *args, void *res)
{
	(void)res;
	run_msg(call, args, do_unlock, NLMPROC_UNLOCK_RES);
}

/** nlm_proc_granted_msg() - NLM_GRANTED_MSG, answered by GRANTED_RES. */
void nlm_proc_granted_msg(struct rpc_call *call, const void *args, void *res)
{
	struct nlm_res r = {0};

	(void)res;
	nlm_proc_granted(call, args, &r);
	msg_reply(call, &r, NLMPROC_GRANTED_RES);
}

/** nlm_proc_free_all() - NLM_FREE_ALL: a client's locks all go. */
void nlm_proc_free_all(struct rpc_call *call, const void *args, void *res)
{
	const struct nlm_notify *n = args;

	(void)res;
	(void)nlm_hosts_free_name(&n->name, rpc_call_peer(call));
}
