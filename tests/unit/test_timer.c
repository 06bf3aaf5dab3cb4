// SPDX-License-Identifier: MIT
/* core/timer: order of firing, cancel before and after firing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "core/timer.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int order[16];
static int nfired;

static void fire(struct timer *t)
{
	pthread_mutex_lock(&mu);
	order[nfired++] = (int)(intptr_t)t->arg;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
}

static void wait_fired(int n)
{
	pthread_mutex_lock(&mu);
	while (nfired < n)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
}

static void test_order_and_cancel(void **state)
{
	static struct timer t[8];
	/* delays in ms; index 3 and 6 are cancelled before they fire */
	static const unsigned int delay[8] = { 40, 10, 30, 5, 20, 50, 15, 1 };
	int i;

	(void)state;
	nfired = 0;
	for (i = 0; i < 8; i++)
		assert_int_equal(timer_arm(&t[i], delay[i], fire,
					   (void *)(intptr_t)i), 0);
	assert_true(timer_cancel(&t[3]));
	assert_true(timer_cancel(&t[6]));
	assert_false(timer_cancel(&t[6]));
	wait_fired(6);
	/* by due time: 7(1) 1(10) 4(20) 2(30) 0(40) 5(50) */
	assert_int_equal(order[0], 7);
	assert_int_equal(order[1], 1);
	assert_int_equal(order[2], 4);
	assert_int_equal(order[3], 2);
	assert_int_equal(order[4], 0);
	assert_int_equal(order[5], 5);
	/* fired: nothing left to cancel */
	assert_false(timer_cancel(&t[0]));
	assert_int_equal(timer_armed(), 0);
	{
		struct timespec ts = { 0, 70 * 1000000L };

		nanosleep(&ts, NULL);
	}
	assert_int_equal(nfired, 6);
}

/* Many timers armed and cancelled at random keep the heap consistent. */
static void test_heap_churn(void **state)
{
	static struct timer t[512];
	unsigned int seed = 1, i, armed = 0;

	(void)state;
	nfired = 0;
	for (i = 0; i < 512; i++)
		assert_int_equal(timer_arm(&t[i], 10000 + (rand_r(&seed) % 1000),
					   fire, NULL), 0);
	for (i = 0; i < 512; i += 2)
		assert_true(timer_cancel(&t[i]));
	assert_int_equal(timer_armed(), 256);
	for (i = 1; i < 512; i += 2)
		if (timer_cancel(&t[i]))
			armed++;
	assert_int_equal(armed, 256);
	assert_int_equal(timer_armed(), 0);
	assert_int_equal(nfired, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_and_cancel),
		cmocka_unit_test(test_heap_churn),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
