/* SPDX-License-Identifier: MIT */
#ifndef NASD_CORE_TIMER_H
#define NASD_CORE_TIMER_H

/*
 * One-shot timers for work that must happen later without a thread
 * waiting for it: the delayed answer to a failed SMB logon, a blocking
 * byte-range lock that is retried and times out, a lease or delegation
 * recall that expires.
 *
 * One thread (started by the first timer_arm) keeps a binary min-heap of
 * armed timers under one mutex and sleeps on a condition variable until
 * the earliest is due (CLOCK_MONOTONIC). A callback runs on that thread,
 * with no lock held: it must not block (it may send a message, queue
 * work, arm timers). Arming and cancelling cost O(log n) under the mutex.
 *
 * Ownership: the caller owns struct timer and keeps it alive while it is
 * armed or its callback runs. timer_cancel() tells which happened: true,
 * the callback will not run (the caller may free); false, it has run or
 * is running (the callback owns the cleanup). That is the one rule that
 * makes a timer race-free against the object it belongs to.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct timer;

typedef void (*timer_fn)(struct timer *t);

struct timer {
	uint64_t due_ns;   /* CLOCK_MONOTONIC; timer.c's heap */
	size_t slot;       /* index in the heap + 1; 0: not armed */
	timer_fn fn;
	void *arg;         /* the owner's */
};

/*
 * timer_arm() - run @fn(@t) @delay_ms from now. @t must not be armed.
 * Returns 0, -ENOMEM (heap growth), or -EAGAIN (the timer thread cannot
 * be started); then @t is not armed.
 */
int timer_arm(struct timer *t, uint64_t delay_ms, timer_fn fn, void *arg);

/*
 * timer_cancel() - disarm @t: true when it was armed and now will not
 * fire; false when it was not armed (fired, firing, or never armed).
 */
bool timer_cancel(struct timer *t);

/* timer_armed() - number of armed timers (stats, tests). */
size_t timer_armed(void);

#endif
