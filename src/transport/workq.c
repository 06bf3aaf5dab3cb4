/* SPDX-License-Identifier: MIT */
/*
 * Dispatch of complete messages (DESIGN.md §3): a request either runs
 * inline on the event loop that read it (its protocol's may_inline: cheap,
 * will not block) or passes once to the worker pool, whose worker
 * processes it and sends the reply itself. An inline request that defers
 * (it would block after all) passes to the pool then, once.
 *
 * Inline requests are collected while a loop round reads its sockets and
 * run after the round has handed its blocking ones to the pool, so
 * workers start on those first. Replies to one connection in a round leave with
 * MSG_MORE except the last, so TCP sends them in one segment. At most
 * LOOP_INLINE_MAX calls per round run inline (the rest go to the pool), so
 * one busy connection cannot hold the loop's other connections for long.
 *
 * The pool: one queue under one lock, and idle workers on a LIFO stack
 * (the most recently busy first: warm caches), each sleeping on its own
 * futex. A push wakes only as many idle workers as there are queued calls
 * that no woken worker is already on its way to take: no herd, and no
 * wake-up while a woken worker has not reached the queue yet.
 */
#include "transport/xprt.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/log.h"

struct worker {
	pthread_t thread;
	atomic_uint wake;     /* futex word: 1 once told to look again */
	struct worker *next;  /* on the idle stack */
};

static struct {
	pthread_mutex_t lock;
	struct xreq *head;
	struct xreq *tail;
	unsigned int queued;  /* calls on the queue */
	struct worker *idle;  /* LIFO of sleeping workers */
	unsigned int waking;  /* woken, not yet back at the queue */
	bool stop;
	struct worker *workers;
	unsigned int nthreads;
} wq;

static void futex_wait(atomic_uint *word, unsigned int val)
{
	syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wake(atomic_uint *word)
{
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/*
 * Take up to @n sleepers off the idle stack for the caller to wake (with
 * wake_list(), after unlocking). wq.lock held.
 */
static struct worker *idle_take(unsigned int n)
{
	struct worker *list = NULL, *w;

	while (n-- && (w = wq.idle) != NULL) {
		wq.idle = w->next;
		w->next = list;
		list = w;
		wq.waking++;
	}
	return list;
}

static void wake_list(struct worker *list)
{
	struct worker *w;

	while ((w = list) != NULL) {
		list = w->next;
		atomic_store_explicit(&w->wake, 1, memory_order_release);
		futex_wake(&w->wake);
	}
}

/* Sleep on the idle stack until woken; wq.lock held before and after. */
static void worker_sleep(struct worker *w)
{
	atomic_store_explicit(&w->wake, 0, memory_order_relaxed);
	w->next = wq.idle;
	wq.idle = w;
	pthread_mutex_unlock(&wq.lock);
	while (!atomic_load_explicit(&w->wake, memory_order_acquire))
		futex_wait(&w->wake, 0);
	pthread_mutex_lock(&wq.lock);
	/* Whoever woke us took us off the stack and counted us. */
	wq.waking--;
}

static void *workq_main(void *arg)
{
	struct worker *w = arg;
	struct xreq *xr;

	for (;;) {
		pthread_mutex_lock(&wq.lock);
		while (!wq.head && !wq.stop)
			worker_sleep(w);
		xr = wq.head;
		if (!xr) {
			pthread_mutex_unlock(&wq.lock);
			break;
		}
		wq.head = xr->next;
		if (!wq.head)
			wq.tail = NULL;
		wq.queued--;
		pthread_mutex_unlock(&wq.lock);
		xr->next = NULL;
		xreq_run(xr);
	}
	return NULL;
}

/*
 * workq_push() - queue @n calls linked head..tail; ownership passes to the
 * pool.
 */
void workq_push(struct xreq *head, struct xreq *tail, unsigned int n)
{
	struct worker *list = NULL;

	tail->next = NULL;
	pthread_mutex_lock(&wq.lock);
	if (wq.tail)
		wq.tail->next = head;
	else
		wq.head = head;
	wq.tail = tail;
	wq.queued += n;
	if (wq.queued > wq.waking)
		list = idle_take(wq.queued - wq.waking);
	pthread_mutex_unlock(&wq.lock);
	wake_list(list);
}

/* workq_start() - start @nworkers threads. Returns 0 or -errno. */
int workq_start(unsigned int nworkers)
{
	pthread_mutexattr_t ma;
	unsigned int i;
	int ret;

	/* Short critical sections: spin a little before sleeping. */
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_ADAPTIVE_NP);
	pthread_mutex_init(&wq.lock, &ma);
	pthread_mutexattr_destroy(&ma);
	wq.head = wq.tail = NULL;
	wq.queued = wq.waking = 0;
	wq.idle = NULL;
	wq.stop = false;
	wq.nthreads = 0;
	wq.workers = calloc(nworkers, sizeof(*wq.workers));
	if (!wq.workers)
		return -ENOMEM;
	for (i = 0; i < nworkers; i++) {
		ret = pthread_create(&wq.workers[i].thread, NULL, workq_main,
				     &wq.workers[i]);
		if (ret) {
			log_err("transport: cannot start worker: %d", ret);
			workq_stop();
			return -ret;
		}
		wq.nthreads = i + 1;
	}
	return 0;
}

/*
 * workq_stop() - let the workers finish every queued call, then join
 * them.
 */
void workq_stop(void)
{
	struct worker *list;
	unsigned int i;

	pthread_mutex_lock(&wq.lock);
	wq.stop = true;
	list = idle_take(UINT_MAX);
	pthread_mutex_unlock(&wq.lock);
	wake_list(list);
	for (i = 0; i < wq.nthreads; i++)
		pthread_join(wq.workers[i].thread, NULL);
	free(wq.workers);
	wq.workers = NULL;
	wq.nthreads = 0;
	pthread_mutex_destroy(&wq.lock);
}

/*
 * loop_run_inline() - loop side, after the round's reads and the hand-off
 * of its blocking calls: run the calls collected for this thread. A call
 * that turns out to need blocking I/O goes to the pool after all.
 */
void loop_run_inline(struct loop *lp)
{
	struct xreq *xr;
	struct conn *c;
	bool more;

	while ((xr = lp->inl_head) != NULL) {
		lp->inl_head = xr->next;
		xr->next = NULL;
		c = xr->req.conn;
		more = --c->inl_pending > 0;
		if (xreq_run_inline(xr, more)) {
			if (lp->batch_tail)
				lp->batch_tail->next = xr;
			else
				lp->batch_head = xr;
			lp->batch_tail = xr;
			lp->nbatch++;
		}
		if (!more && c->corked)
			xreq_uncork(c);
	}
	lp->inl_tail = NULL;
	lp->ninl = 0;
	loop_flush_batch(lp);
}
