// SPDX-License-Identifier: MIT
/*
 * One-shot timers (timer.h): a min-heap of due times under one mutex,
 * one thread sleeping until the earliest.
 */
#include "core/timer.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>

static struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_once_t once;
	bool started;
	struct timer **heap;
	size_t n, cap;
} tm = {
	.mu = PTHREAD_MUTEX_INITIALIZER,
	.once = PTHREAD_ONCE_INIT,
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void heap_set(size_t i, struct timer *t)
{
	tm.heap[i] = t;
	t->slot = i + 1;
}

static void sift_up(size_t i)
{
	struct timer *t = tm.heap[i];

	while (i > 0) {
		size_t p = (i - 1) / 2;

		if (tm.heap[p]->due_ns <= t->due_ns)
			break;
		heap_set(i, tm.heap[p]);
		i = p;
	}
	heap_set(i, t);
}

static void sift_down(size_t i)
{
	struct timer *t = tm.heap[i];

	for (;;) {
		size_t l = 2 * i + 1, m = l;

		if (l >= tm.n)
			break;
		if (l + 1 < tm.n && tm.heap[l + 1]->due_ns < tm.heap[l]->due_ns)
			m = l + 1;
		if (tm.heap[m]->due_ns >= t->due_ns)
			break;
		heap_set(i, tm.heap[m]);
		i = m;
	}
	heap_set(i, t);
}

/* Take the timer at heap index @i out (tm.mu held). */
static void heap_remove(size_t i)
{
	struct timer *t = tm.heap[i];
	struct timer *last = tm.heap[--tm.n];

	t->slot = 0;
	if (i == tm.n)
		return;
	heap_set(i, last);
	if (i > 0 && tm.heap[(i - 1) / 2]->due_ns > last->due_ns)
		sift_up(i);
	else
		sift_down(i);
}

static void *timer_thread(void *unused)
{
	(void)unused;
	pthread_mutex_lock(&tm.mu);
	for (;;) {
		uint64_t now = now_ns();
		struct timer *t;

		if (!tm.n) {
			pthread_cond_wait(&tm.cv, &tm.mu);
			continue;
		}
		t = tm.heap[0];
		if (t->due_ns > now) {
			struct timespec ts = {
				.tv_sec = (time_t)(t->due_ns / 1000000000ull),
				.tv_nsec = (long)(t->due_ns % 1000000000ull),
			};

			pthread_cond_timedwait(&tm.cv, &tm.mu, &ts);
			continue;
		}
		heap_remove(0);
		/* Unarmed now: a timer_cancel() from here on answers false,
		 * so the callback owns @t. */
		pthread_mutex_unlock(&tm.mu);
		t->fn(t);
		pthread_mutex_lock(&tm.mu);
	}
	return NULL;
}

static void timer_start(void)
{
	sigset_t all, old;
	pthread_condattr_t ca;
	pthread_attr_t a;
	pthread_t th;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&tm.cv, &ca);
	pthread_condattr_destroy(&ca);
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&a, 256u << 10);
	/* The thread takes no signal, whoever arms the first timer (a
	 * process-directed SIGTERM must reach the server's signal thread). */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	tm.started = pthread_create(&th, &a, timer_thread, NULL) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&a);
}

int timer_arm(struct timer *t, uint64_t delay_ms, timer_fn fn, void *arg)
{
	pthread_once(&tm.once, timer_start);
	if (!tm.started)
		return -EAGAIN;
	t->fn = fn;
	t->arg = arg;
	t->due_ns = now_ns() + delay_ms * 1000000ull;
	pthread_mutex_lock(&tm.mu);
	if (tm.n == tm.cap) {
		size_t cap = tm.cap ? tm.cap * 2 : 64;
		/* NOLINTNEXTLINE(bugprone-sizeof-expression): array of pointers */
		struct timer **h = realloc(tm.heap, cap * sizeof(*h));

		if (!h) {
			pthread_mutex_unlock(&tm.mu);
			return -ENOMEM;
		}
		tm.heap = h;
		tm.cap = cap;
	}
	heap_set(tm.n++, t);
	sift_up(tm.n - 1);
	/* Wake the thread only when the earliest due time moved. */
	if (tm.heap[0] == t)
		pthread_cond_signal(&tm.cv);
	pthread_mutex_unlock(&tm.mu);
	return 0;
}

bool timer_cancel(struct timer *t)
{
	bool armed;

	pthread_mutex_lock(&tm.mu);
	armed = t->slot != 0;
	if (armed)
		heap_remove(t->slot - 1);
	pthread_mutex_unlock(&tm.mu);
	return armed;
}

size_t timer_armed(void)
{
	size_t n;

	pthread_mutex_lock(&tm.mu);
	n = tm.n;
	pthread_mutex_unlock(&tm.mu);
	return n;
}
