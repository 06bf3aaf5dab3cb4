// SPDX-License-Identifier: MIT
/*
 * Caching grants (file_state.h, "caching grants"): one engine for SMB
 * oplocks and leases and NFSv4 delegations.
 *
 * A grant is a record on its file's entry, under the entry's mutex like
 * the shares and locks. Its level is what its holder may cache now; a
 * break in progress (@breaking) says what the holder was told to drop
 * to (@to) and, in @want, what later accessors need it to drop to in
 * the end (a write arriving while an oplock breaks to level II): when
 * the answer comes and the level is still above @want, the next break
 * goes out at once.
 *
 * Which access breaks what is one table per kind (keep()); whether a
 * break needs an answer is the protocols' rule: SMB asks for one when the
 * holder loses W or H (MS-SMB2 §3.3.4.6, §3.3.4.7: level II and R-only
 * lease breaks are not acknowledged), NFSv4 always (a recalled
 * delegation is returned).
 *
 * Lifetime. A grant is referenced by its holder (until
 * state_grant_remove) and by its timer while armed; it holds a
 * reference on its file. Breaks are sent after the mutex is dropped,
 * with a reference on each grant named, so a concurrent removal cannot
 * free one under the protocol's send_break.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/stats.h"
#include "core/timer.h"
#include "state/file_state_int.h"
#include "vfs/vfs.h"

/* Breaks sent by one state_grant_break() call, at most. */
#define SEND_MAX 16

struct state_grant {
	struct state_link link;        /* state_file.grants; f->mu */
	struct state_file *f;          /* referenced */
	struct state_holder holder;
	const void *key;
	enum state_grant_kind kind;
	const struct state_grant_ops *ops;
	void *arg;
	uint32_t timeout_ms;
	atomic_int refs;
	/* f->mu */
	bool removed;
	uint32_t level;
	bool breaking;
	uint32_t to;                   /* breaking: what it was told to keep */
	uint32_t want;                 /* breaking: what it must end with */
	struct timer timer;
	/* state_grant_getattr(): questions asked and answered (f->mu) */
	uint32_t ga_asked, ga_answered;
	bool ga_ok;
	struct state_grant_attrs ga;
};

/* A break to send once the mutex is dropped. */
struct send {
	struct state_grant *g;         /* referenced */
	uint32_t from, to;
	bool ack;
};

static atomic_uint g_grants;
static atomic_ullong g_granted, g_breaks, g_acked, g_revoked, g_waits;
static atomic_ullong g_asked;
/* answers to state_grant_getattr()'s questions, with the file's mu */
static pthread_cond_t ga_cv = PTHREAD_COND_INITIALIZER;

static void grant_put(struct state_grant *g)
{
	struct state_file *f;

	if (atomic_fetch_sub(&g->refs, 1) != 1)
		return;
	f = g->f;
	if (g->ops->release)
		g->ops->release(g->arg);
	free(g);
	state_file_put(f);
}

/*
 * What a grant of @g's kind keeps of @level when @ask happens (MS-FSA
 * 2.1.4.12 for oplocks, 2.1.5.1.2 for what an open breaks, MS-SMB2
 * §3.3.4.7 for leases; RFC 8881 §10.4.4 for delegations: any conflict
 * recalls the whole delegation, a lock or a lock test too, since its
 * holder may lock without telling the server, §10.4.1).
 */
static uint32_t keep(const struct state_grant *g, uint32_t level,
		     const struct state_grant_ask *ask, bool share_conflict)
{
	uint32_t k = level;

	switch (g->kind) {
	case STATE_GRANT_OPLOCK:
	case STATE_GRANT_LEASE:
		switch (ask->op) {
		case STATE_OP_OPEN:
			/* A stat open (attributes only, not truncating)
			 * breaks nothing. */
			if (!(ask->flags &
			      (STATE_ASK_DATA | STATE_ASK_OVERWRITE)))
				break;
			/* Refused by the holder's share modes: only a holder
			 * that may close (H) is asked to; the sharing
			 * violation is decided after its answer. */
			if (share_conflict) {
				if (!(level & STATE_GRANT_H))
					break;
				k &= ~(STATE_GRANT_W | STATE_GRANT_H);
			} else {
				k &= ~STATE_GRANT_W;
			}
			if (ask->flags & STATE_ASK_OVERWRITE)
				k &= ~(STATE_GRANT_R | STATE_GRANT_W);
			break;
		case STATE_OP_READ:
			k &= ~STATE_GRANT_W;
			break;
		case STATE_OP_WRITE:
			k &= ~(STATE_GRANT_R | STATE_GRANT_W);
			break;
		case STATE_OP_SETATTR:
		case STATE_OP_GETATTR:
		case STATE_OP_LOCKT:
			break;
		case STATE_OP_NAMESPACE:
			/* Oplocks do not break on rename or delete (Samba,
			 * MS-FSA 2.1.5.14.11: the open that preceded them
			 * did); a lease's handle caching does (MS-SMB2
			 * §3.3.4.7). */
			if (g->kind == STATE_GRANT_LEASE)
				k &= ~STATE_GRANT_H;
			break;
		}
		/* An oplock is level II, exclusive or batch: without W it
		 * is level II at most, without R nothing (MS-SMB2 §2.2.23.1
		 * breaks to II or none). */
		if (g->kind == STATE_GRANT_OPLOCK && !(k & STATE_GRANT_W))
			k &= STATE_GRANT_R;
		return k;
	case STATE_GRANT_DELEG:
		switch (ask->op) {
		case STATE_OP_OPEN:
			/* A read delegation lives with other readers that do
			 * not deny reading. */
			if (!(level & STATE_GRANT_W) &&
			    !(ask->flags &
			      (STATE_ASK_WRITE | STATE_ASK_OVERWRITE)) &&
			    !(ask->deny & STATE_DENY_READ) &&
			    !(ask->access & STATE_ACCESS_DELETE))
				return k;
			return 0;
		case STATE_OP_READ:
		case STATE_OP_GETATTR:
			/* a write delegation's holder has the data, the size
			 * and the times: a READ recalls it; a GETATTR asks
			 * it first when it can be (state_grant_getattr, RFC
			 * 8881 §10.4.3: CB_GETATTR) */
			return (level & STATE_GRANT_W) ? 0 : k;
		default:
			return 0;
		}
	}
	return k;
}

/* Does @ask's share conflict with @g's holder's share on @f? */
static bool share_conflicts(const struct state_file *f,
			    const struct state_grant *g,
			    const struct state_grant_ask *ask)
{
	const struct state_link *l;

	if (ask->op != STATE_OP_OPEN)
		return false;
	for (l = f->shares.next; l != &f->shares; l = l->next) {
		const struct state_share *s =
			state_container_of(l, struct state_share, link);

		if (s->holder.id == g->holder.id &&
		    s->holder.tag == g->holder.tag)
			return (s->access & ask->deny) ||
			       (s->deny & ask->access);
	}
	return false;
}

/*
 * Is @g the accessor's own, not to be broken? An open's own level II
 * oplock is broken by its own write, lock or truncation all the same
 * (MS-FSA 2.1.4.12; smbtorture oplock.batch1, brl1, levelii500); its
 * exclusive or batch oplock is not.
 */
static bool is_own(const struct state_grant *g,
		   const struct state_grant_ask *ask)
{
	bool own = (ask->key && g->key == ask->key) ||
		   (ask->holder && ask->holder->id == g->holder.id &&
		    ask->holder->tag == g->holder.tag);

	if (own && g->kind == STATE_GRANT_OPLOCK &&
	    ask->op == STATE_OP_WRITE && !(g->level & STATE_GRANT_W))
		return false;
	return own;
}

static bool ack_needed(const struct state_grant *g, uint32_t from)
{
	if (g->kind == STATE_GRANT_DELEG)
		return true;
	return from & (STATE_GRANT_W | STATE_GRANT_H);
}

static void timer_fired(struct timer *t);

/*
 * Start a break of @g (f->mu held) from its level to @to; fills @s.
 * True when it needs an answer (the grant is breaking then).
 */
static bool break_start(struct state_grant *g, uint32_t to, struct send *s)
{
	struct state_file *f = g->f;

	s->g = g;
	s->from = g->level;
	s->to = to;
	s->ack = ack_needed(g, g->level);
	atomic_fetch_add(&g->refs, 1);
	atomic_fetch_add(&g_breaks, 1);
	if (!s->ack) {
		g->level = to;
		return false;
	}
	g->breaking = true;
	g->to = g->want = to;
	f->nbreaking++;
	atomic_fetch_add(&g->refs, 1); /* the timer's */
	if (timer_arm(&g->timer, g->timeout_ms, timer_fired, g) != 0)
		atomic_fetch_sub(&g->refs, 1); /* no timer: waits for answers */
	return true;
}

static void send_all(struct send *s, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		if (s[i].g->ops->send_break)
			s[i].g->ops->send_break(s[i].g, s[i].from, s[i].to,
						s[i].ack);
		grant_put(s[i].g);
	}
}

/* Take @f's waiters (f->mu held); wake them with wake_all(). */
static struct state_grant_waiter *waiters_take(struct state_file *f)
{
	struct state_grant_waiter *w = f->waiters;

	f->waiters = NULL;
	return w;
}

/* The reference each waiter's queueing took stays with it until its
 * owner calls state_grant_unwait(): an owner that reads wt->f while the
 * waiter is being woken must find the file still there. */
static void wake_all(struct state_grant_waiter *w)
{
	while (w) {
		struct state_grant_waiter *next = w->next;

		/* after fn, @w may be reused */
		w->fn(w);
		w = next;
	}
}

/*
 * A break of @g ended (f->mu held) with the level set: no longer
 * breaking. True when later accessors need less than it kept: the
 * caller starts the next break (to g->want).
 */
static bool break_end(struct state_grant *g)
{
	g->breaking = false;
	g->f->nbreaking--;
	if (timer_cancel(&g->timer))
		atomic_fetch_sub(&g->refs, 1); /* the holder keeps one */
	return !g->removed && (g->level & ~g->want);
}

static void timer_fired(struct timer *t)
{
	struct state_grant *g = t->arg;
	struct state_file *f = g->f;
	struct state_grant_waiter *w = NULL;
	bool revoked = false;

	pthread_mutex_lock(&f->mu);
	if (g->breaking && !g->removed) {
		/* The holder did not answer: it keeps nothing (MS-SMB2
		 * §3.3.6.1, Samba's oplock timeout; RFC 8881 §10.4.6
		 * revocation). */
		g->level = 0;
		g->breaking = false;
		f->nbreaking--;
		revoked = true;
		atomic_fetch_add(&g_revoked, 1);
		w = waiters_take(f);
	}
	pthread_mutex_unlock(&f->mu);
	if (revoked && g->ops->revoked)
		g->ops->revoked(g);
	wake_all(w);
	grant_put(g); /* the timer's */
}

/** state_grant_may() - see file_state.h. */
uint32_t state_grant_may(struct state_file *f, const struct state_holder *h,
			 enum state_grant_kind kind, const void *key,
			 uint32_t want)
{
	const struct state_link *l;
	bool others = false, other_writer = false;
	uint32_t may = want & STATE_GRANT_MASK;

	/* changed elsewhere: nothing would break it */
	if (f->elsewhere)
		return 0;
	pthread_mutex_lock(&f->mu);
	if (f->nbreaking) {
		pthread_mutex_unlock(&f->mu);
		return 0;
	}
	/* Any other open counts, one with attribute access only too
	 * (Samba 4.17); so do byte-range locks, which no client caching
	 * a file could see (level II is refused with them too). */
	if (f->nlocks)
		others = true;
	if (f->nlocks && kind != STATE_GRANT_LEASE)
		may = 0;
	for (l = f->shares.next; l != &f->shares; l = l->next) {
		const struct state_share *s =
			state_container_of(l, struct state_share, link);

		if (s->holder.id == h->id && s->holder.tag == h->tag)
			continue;
		others = true;
		if (s->access & STATE_ACCESS_WRITE)
			other_writer = true;
	}
	for (l = f->grants.next; l != &f->grants; l = l->next) {
		const struct state_grant *g =
			state_container_of(l, struct state_grant, link);

		if (!g->level || (key && g->key == key))
			continue;
		others = true;
		if (g->level & STATE_GRANT_W)
			other_writer = true;
	}
	pthread_mutex_unlock(&f->mu);
	if (others)
		may &= kind == STATE_GRANT_LEASE
			       ? (STATE_GRANT_R | STATE_GRANT_H)
			       : STATE_GRANT_R;
	if (other_writer && kind == STATE_GRANT_DELEG)
		may = 0;
	if (kind == STATE_GRANT_OPLOCK && (may & STATE_GRANT_H) &&
	    !(may & STATE_GRANT_W))
		may &= STATE_GRANT_R;
	return may;
}

/** state_grant_add() - see file_state.h. */
struct state_grant *state_grant_add(struct state_file *f,
				    const struct state_holder *h,
				    enum state_grant_kind kind, const void *key,
				    uint32_t level,
				    const struct state_grant_ops *ops, void *arg,
				    uint32_t timeout_ms)
{
	struct state_grant *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	g->holder = *h;
	g->key = key;
	g->kind = kind;
	g->ops = ops;
	g->arg = arg;
	g->timeout_ms = timeout_ms;
	g->level = level & STATE_GRANT_MASK;
	atomic_init(&g->refs, 1);
	state_file_hold(f);
	g->f = f;
	pthread_mutex_lock(&f->mu);
	if (f->nbreaking || f->elsewhere) {
		pthread_mutex_unlock(&f->mu);
		state_file_put(f);
		free(g);
		return NULL;
	}
	state_link_add_before(&f->grants, &g->link);
	f->ngrants++;
	state_file_settle(f);
	pthread_mutex_unlock(&f->mu);
	atomic_fetch_add(&g_grants, 1);
	atomic_fetch_add(&g_granted, 1);
	return g;
}

/** state_grant_break() - see file_state.h. */
int state_grant_break(struct state_file *f, const struct state_grant_ask *ask,
		      struct state_grant_waiter *wt)
{
	struct send s[SEND_MAX];
	unsigned int n = 0;
	struct state_link *l;
	bool wait = false;

	/* every SMB WRITE asks: no lock while no grant exists anywhere */
	if (!atomic_load_explicit(&g_grants, memory_order_relaxed))
		return 0;
	pthread_mutex_lock(&f->mu);
	for (l = f->grants.next; l != &f->grants; l = l->next) {
		struct state_grant *g =
			state_container_of(l, struct state_grant, link);
		uint32_t k;

		if (!g->level || is_own(g, ask))
			continue;
		k = keep(g, g->level, ask, share_conflicts(f, g, ask));
		if (!(g->level & ~k))
			continue;
		if (g->breaking) {
			g->want &= k;
			wait = true;
			continue;
		}
		if (n == SEND_MAX) {
			wait = true; /* the rest on the next try */
			break;
		}
		if (break_start(g, k, &s[n++]))
			wait = true;
	}
	if (wait) {
		atomic_fetch_add(&g_waits, 1);
		if (wt) {
			state_file_hold(f);
			atomic_store_explicit(&wt->f, f,
					      memory_order_release);
			wt->next = f->waiters;
			f->waiters = wt;
		}
	}
	pthread_mutex_unlock(&f->mu);
	send_all(s, n);
	return wait ? -EAGAIN : 0;
}

/** state_grant_break_obj() - see file_state.h. */
int state_grant_break_obj(struct vfs_obj *obj,
			  const struct state_grant_ask *ask,
			  struct state_grant_waiter *wt)
{
	struct state_file *f;
	int ret;

	if (!atomic_load_explicit(&g_grants, memory_order_relaxed))
		return 0;
	f = state_file_find(obj);
	if (!f)
		return 0;
	ret = state_grant_break(f, ask, wt);
	state_file_put(f);
	return ret;
}

/** state_grant_break_op() - see file_state.h. */
int state_grant_break_op(struct vfs_obj *obj, enum state_grant_op op)
{
	struct state_grant_ask ask = { .op = op };

	return state_grant_break_obj(obj, &ask, NULL);
}

/** state_grant_break_key() - see file_state.h. */
int state_grant_break_key(struct vfs_obj *obj, enum state_grant_op op,
			  const void *key)
{
	struct state_grant_ask ask = { .op = op, .key = key };

	return state_grant_break_obj(obj, &ask, NULL);
}

/* The first grant on @f (f->mu held) that @ask would break, or NULL. */
static struct state_grant *first_conflict(struct state_file *f,
					  const struct state_grant_ask *ask)
{
	struct state_link *l;

	for (l = f->grants.next; l != &f->grants; l = l->next) {
		struct state_grant *g =
			state_container_of(l, struct state_grant, link);

		if (g->level && !is_own(g, ask) &&
		    (g->level & ~keep(g, g->level, ask, false)))
			return g;
	}
	return NULL;
}

/* Wait (f->mu held) until question @n of @g is answered or @wait_ms
 * pass; true when it was, with the answer in @out. */
static bool ga_wait(struct state_grant *g, uint32_t n, uint32_t wait_ms,
		    struct state_grant_attrs *out)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += wait_ms / 1000;
	until.tv_nsec += (long)(wait_ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	while ((int32_t)(g->ga_answered - n) < 0 && !g->removed &&
	       !g->breaking) {
		if (pthread_cond_timedwait(&ga_cv, &g->f->mu, &until))
			break;
	}
	if ((int32_t)(g->ga_answered - n) < 0 || !g->ga_ok || g->removed ||
	    g->breaking)
		return false;
	*out = g->ga;
	out->valid = true;
	return true;
}

/** state_grant_getattr() - see file_state.h. */
int state_grant_getattr(struct vfs_obj *obj, const void *key,
			uint32_t wait_ms, struct state_grant_attrs *out)
{
	struct state_grant_ask ask = { .op = STATE_OP_GETATTR, .key = key };
	struct state_grant *g;
	struct state_file *f;
	bool asked, send;
	uint32_t n;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if (!atomic_load_explicit(&g_grants, memory_order_relaxed))
		return 0;
	f = state_file_find(obj);
	if (!f)
		return 0;
	pthread_mutex_lock(&f->mu);
	g = first_conflict(f, &ask);
	if (!g || g->breaking || !g->ops->send_getattr) {
		/* none; a break on already; one that cannot be asked */
		pthread_mutex_unlock(&f->mu);
		ret = g ? state_grant_break(f, &ask, NULL) : 0;
		state_file_put(f);
		return ret;
	}
	if (!wait_ms) {
		pthread_mutex_unlock(&f->mu);
		state_file_put(f);
		return -EINPROGRESS;
	}
	/* one question at a time: a later asker waits for the one out, if
	 * it was asked after this access began (it was: it is out now) */
	send = g->ga_asked == g->ga_answered;
	if (send)
		g->ga_asked++;
	n = g->ga_asked;
	atomic_fetch_add(&g->refs, 1);
	pthread_mutex_unlock(&f->mu);
	asked = !send || g->ops->send_getattr(g);
	pthread_mutex_lock(&f->mu);
	if (send) {
		atomic_fetch_add(&g_asked, 1);
		if (!asked && g->ga_answered != n) {
			g->ga_answered = n;
			g->ga_ok = false;
			pthread_cond_broadcast(&ga_cv);
		}
	}
	asked = asked && ga_wait(g, n, wait_ms, out);
	pthread_mutex_unlock(&f->mu);
	grant_put(g);
	/* not asked, no answer in time: the grant is recalled instead */
	if (!asked)
		ret = state_grant_break(f, &ask, NULL);
	state_file_put(f);
	return ret;
}

/** state_grant_attrs_done() - see file_state.h. */
void state_grant_attrs_done(struct state_grant *g, bool ok,
			    const struct state_grant_attrs *a)
{
	struct state_file *f = g->f;

	pthread_mutex_lock(&f->mu);
	if (g->ga_answered != g->ga_asked) {
		g->ga_answered = g->ga_asked;
		g->ga_ok = ok;
		if (ok)
			g->ga = *a;
		pthread_cond_broadcast(&ga_cv);
	}
	pthread_mutex_unlock(&f->mu);
}

/** state_grant_ask_attrs() - see file_state.h. */
int state_grant_ask_attrs(struct vfs_obj *obj, const void *key, bool nowait,
			  uint64_t *size)
{
	struct state_grant_attrs ga;
	int err;

	err = state_grant_getattr(obj, key,
				  nowait ? 0 : STATE_GRANT_ATTR_WAIT_MS, &ga);
	if (err || !ga.valid || !ga.modified)
		return err;
	/* RFC 8881 §10.4.3: the times move when the holder changed the
	 * file (knfsd sets them the same way); a failure leaves the old
	 * times, the size is the holder's all the same */
	(void)vfs_mark_modified(obj);
	*size = ga.size;
	return 0;
}

/** state_grant_any() - see file_state.h. */
bool state_grant_any(void)
{
	return atomic_load_explicit(&g_grants, memory_order_relaxed) != 0;
}

/** state_grant_unwait() - see file_state.h. */
bool state_grant_unwait(struct state_grant_waiter *wt)
{
	struct state_file *f =
		atomic_load_explicit(&wt->f, memory_order_acquire);
	struct state_grant_waiter **pp;
	bool found = false;

	if (!f)
		return false;
	pthread_mutex_lock(&f->mu);
	for (pp = &f->waiters; *pp; pp = &(*pp)->next) {
		if (*pp == wt) {
			*pp = wt->next;
			found = true;
			break;
		}
	}
	pthread_mutex_unlock(&f->mu);
	atomic_store_explicit(&wt->f, NULL, memory_order_relaxed);
	state_file_put(f);
	return found;
}

/** state_grant_ack() - see file_state.h. */
int state_grant_ack(struct state_grant *g, uint32_t level)
{
	struct state_file *f = g->f;
	struct state_grant_waiter *w;
	struct send s;
	unsigned int n;
	int ret = 0;

	pthread_mutex_lock(&f->mu);
	if (!g->breaking || g->removed) {
		pthread_mutex_unlock(&f->mu);
		return -EINVAL;
	}
	level &= STATE_GRANT_MASK;
	if (level & ~g->to) {
		level = g->to;
		ret = -ERANGE;
	}
	g->level = level;
	atomic_fetch_add(&g_acked, 1);
	n = 0;
	if (break_end(g)) {
		break_start(g, g->want, &s);
		n = 1;
	}
	w = waiters_take(f);
	pthread_mutex_unlock(&f->mu);
	send_all(&s, n);
	wake_all(w);
	return ret;
}

/** state_grant_level() - see file_state.h. */
uint32_t state_grant_level(struct state_grant *g)
{
	uint32_t level;

	pthread_mutex_lock(&g->f->mu);
	level = g->level;
	pthread_mutex_unlock(&g->f->mu);
	return level;
}

/** state_grant_breaking() - see file_state.h. */
bool state_grant_breaking(struct state_grant *g, uint32_t *to)
{
	bool b;

	pthread_mutex_lock(&g->f->mu);
	b = g->breaking;
	if (to)
		*to = g->to;
	pthread_mutex_unlock(&g->f->mu);
	return b;
}

/** state_grant_arg() - see file_state.h. */
void *state_grant_arg(const struct state_grant *g)
{
	return g->arg;
}

/** state_grant_remove() - see file_state.h. */
void state_grant_remove(struct state_grant *g)
{
	struct state_file *f = g->f;
	struct state_grant_waiter *w;

	state_file_hold(f);
	pthread_mutex_lock(&f->mu);
	if (g->breaking) {
		atomic_fetch_add(&g_acked, 1);
		g->removed = true;
		(void)break_end(g);
	}
	g->removed = true;
	state_link_del(&g->link);
	f->ngrants--;
	state_file_settle(f);
	w = waiters_take(f);
	if (g->ga_asked != g->ga_answered)
		pthread_cond_broadcast(&ga_cv); /* its askers stop waiting */
	pthread_mutex_unlock(&f->mu);
	atomic_fetch_sub(&g_grants, 1);
	wake_all(w);
	grant_put(g);
	state_file_put(f);
}

/** state_grant_hold() - see file_state.h. */
void state_grant_hold(struct state_grant *g)
{
	atomic_fetch_add(&g->refs, 1);
}

/** state_grant_put() - see file_state.h. */
void state_grant_put(struct state_grant *g)
{
	grant_put(g);
}

/** state_grant_counts() - see file_state.h. */
void state_grant_counts(struct state_grant_counts *out)
{
	out->grants = atomic_load(&g_grants);
	out->granted = atomic_load(&g_granted);
	out->breaks = atomic_load(&g_breaks);
	out->acked = atomic_load(&g_acked);
	out->revoked = atomic_load(&g_revoked);
	out->waits = atomic_load(&g_waits);
	out->asked = atomic_load(&g_asked);
}

static uint64_t v_grants(void)
{
	return atomic_load(&g_grants);
}

static uint64_t v_granted(void)
{
	return atomic_load(&g_granted);
}

static uint64_t v_breaks(void)
{
	return atomic_load(&g_breaks);
}

static uint64_t v_revoked(void)
{
	return atomic_load(&g_revoked);
}

static uint64_t v_waits(void)
{
	return atomic_load(&g_waits);
}

static uint64_t v_asked(void)
{
	return atomic_load(&g_asked);
}

/** state_grant_stats_init() - see file_state.h. */
void state_grant_stats_init(void)
{
	(void)stats_value_add("grants", "Caching grants held (SMB oplocks, "
			      "NFSv4 delegations).", false, v_grants);
	(void)stats_value_add("grants_total", "Caching grants given.", true,
			      v_granted);
	(void)stats_value_add("grant_breaks_total", "Breaks and recalls "
			      "sent.", true, v_breaks);
	(void)stats_value_add("grant_revoked_total", "Breaks not answered in "
			      "time (the grant was taken away).", true,
			      v_revoked);
	(void)stats_value_add("grant_waits_total", "Requests that waited "
			      "for (or were told to retry after) a break.",
			      true, v_waits);
	(void)stats_value_add("grant_attr_queries_total", "Holders of write "
			      "grants asked for the size and change they "
			      "cache (CB_GETATTR) instead of a recall.", true,
			      v_asked);
}
