// SPDX-License-Identifier: MIT
/*
 * Unit tests of the payload buffer pool (core/iobuf.c): alignment, size
 * classes and reuse, reference counts, the memory ceiling (NULL, the
 * always-one-allocation rule), pressure and the relief hook, counters,
 * the periodic trim, and concurrent use from many threads.
 */
#include <pthread.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/iobuf.h"

#define MIB (1u << 20)

static int reset(void **state)
{
	(void)state;
	iobuf_set_relief_hook(NULL);
	iobuf_set_max_memory(0);
	iobuf_set_budget(0);
	iobuf_trim();
	return 0;
}

static void test_alignment_and_sizes(void **state)
{
	static const size_t sizes[] = {
		1, 100, 4095, 4096, 4097, 65536, MIB, MIB + 300, 2 * MIB,
		3 * MIB + 5,
	};
	struct iobuf *b;

	(void)state;
	assert_null(iobuf_alloc(0));
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		b = iobuf_alloc(sizes[i]);
		assert_non_null(b);
		assert_int_equal((uintptr_t)b->data % IOBUF_ALIGN, 0);
		assert_true(b->size >= sizes[i]);
		/* Every byte is usable. */
		memset(b->data, 0x5a, b->size);
		iobuf_put(b);
	}
	iobuf_put(NULL);
}

static void test_reuse_and_stats(void **state)
{
	struct iobuf_stats st0, st;
	struct iobuf *a, *b;
	uint8_t *data;

	(void)state;
	iobuf_stats(&st0);
	assert_int_equal(st0.in_use, 0);
	assert_int_equal(st0.cached, 0);
	a = iobuf_alloc(5000);
	assert_non_null(a);
	iobuf_stats(&st);
	assert_int_equal(st.in_use, a->size);
	assert_true(st.peak >= a->size);
	assert_int_equal(st.allocs, st0.allocs + 1);
	data = a->data;
	iobuf_put(a);
	iobuf_stats(&st);
	assert_int_equal(st.in_use, 0);
	assert_int_equal(st.cached, 8192);
	/* Same class, same thread: the cached buffer comes back. */
	b = iobuf_alloc(8000);
	assert_non_null(b);
	assert_ptr_equal(b->data, data);
	iobuf_stats(&st);
	assert_int_equal(st.cached, 0);
	iobuf_put(b);
	iobuf_trim();
	iobuf_stats(&st);
	assert_int_equal(st.cached, 0);
}

static void test_refcount(void **state)
{
	struct iobuf_stats st;
	struct iobuf *b;

	(void)state;
	b = iobuf_alloc(4096);
	assert_non_null(b);
	iobuf_get(b);
	iobuf_get(b);
	iobuf_put(b);
	iobuf_put(b);
	iobuf_stats(&st);
	/* One reference left: still in use. */
	assert_int_equal(st.in_use, 4096);
	iobuf_release(b);
	iobuf_stats(&st);
	assert_int_equal(st.in_use, 0);
}

static int relief_calls;

static void on_relief(void)
{
	relief_calls++;
}

static void test_ceiling(void **state)
{
	struct iobuf *b[16], *one;
	struct iobuf_stats st;
	int n = 0, i;

	(void)state;
	iobuf_set_max_memory(1);
	iobuf_stats(&st);
	/* Raised to the minimum. */
	assert_int_equal(st.ceiling, IOBUF_MIN_MAX_MEMORY);
	while (n < 16 && (b[n] = iobuf_alloc(MIB)) != NULL)
		n++;
	assert_int_equal(n, IOBUF_MIN_MAX_MEMORY / MIB);
	iobuf_stats(&st);
	assert_int_equal(st.in_use, IOBUF_MIN_MAX_MEMORY);
	assert_true(st.failures >= 1);
	assert_null(iobuf_alloc(1));
	assert_true(iobuf_pressure());

	/* Waiting for relief: called once usage is below half. */
	relief_calls = 0;
	iobuf_set_relief_hook(on_relief);
	assert_true(iobuf_wait_relief());
	for (i = n / 2; i > 0; i--) {
		iobuf_put(b[--n]);
		assert_int_equal(relief_calls, 0);
	}
	assert_false(iobuf_pressure());
	iobuf_put(b[--n]);
	assert_int_equal(relief_calls, 1);
	/* Once only, until someone waits again. */
	iobuf_put(b[--n]);
	assert_int_equal(relief_calls, 1);
	while (n)
		iobuf_put(b[--n]);
	iobuf_stats(&st);
	assert_int_equal(st.in_use, 0);
	/* Cache and use together stay under the ceiling. */
	assert_true(st.cached <= IOBUF_MIN_MAX_MEMORY);

	/* With nothing in use one allocation always succeeds. */
	one = iobuf_alloc(2 * IOBUF_MIN_MAX_MEMORY);
	assert_non_null(one);
	assert_null(iobuf_alloc(4096));
	iobuf_put(one);
	iobuf_stats(&st);
	assert_int_equal(st.in_use, 0);
	assert_true(st.peak >= 2 * IOBUF_MIN_MAX_MEMORY);
}

/* The payload budget: reading stops above it, well below the ceiling,
 * and starts again below 2/3 of it; it never raises the 3/4 mark. */
static void test_budget(void **state)
{
	struct iobuf *b[16];
	struct iobuf_stats st;
	int n = 0;

	(void)state;
	iobuf_set_max_memory(64 * MIB);
	iobuf_set_budget(1);
	iobuf_stats(&st);
	/* raised to the minimum, 8 MiB */
	assert_int_equal(st.high_mark, IOBUF_MIN_MAX_MEMORY);
	while (n < 8)
		b[n++] = iobuf_alloc(MIB);
	assert_false(iobuf_pressure());
	b[n++] = iobuf_alloc(MIB);
	assert_true(iobuf_pressure());
	/* allocations still succeed: the budget only stops reading */
	b[n] = iobuf_alloc(MIB);
	assert_non_null(b[n++]);
	relief_calls = 0;
	iobuf_set_relief_hook(on_relief);
	assert_true(iobuf_wait_relief());
	/* 10 MiB in use; relief below 2/3 of 8 MiB: at 5 MiB */
	while (n > 6) {
		iobuf_put(b[--n]);
		assert_int_equal(relief_calls, 0);
	}
	iobuf_put(b[--n]);
	assert_int_equal(relief_calls, 1);
	while (n)
		iobuf_put(b[--n]);
	/* a budget above 3/4 of the ceiling changes nothing; 0 is none */
	iobuf_set_budget(1024 * MIB);
	iobuf_stats(&st);
	assert_int_equal(st.high_mark, 48 * MIB);
	iobuf_set_budget(0);
	iobuf_stats(&st);
	assert_int_equal(st.high_mark, 48 * MIB);
}

/* A new buffer beyond the ceiling takes the room of cached ones. */
static void test_cache_trimmed_for_new(void **state)
{
	struct iobuf *b[8], *big;
	struct iobuf_stats st;
	int i;

	(void)state;
	iobuf_set_max_memory(IOBUF_MIN_MAX_MEMORY);
	for (i = 0; i < 8; i++) {
		b[i] = iobuf_alloc(MIB);
		assert_non_null(b[i]);
	}
	for (i = 0; i < 8; i++)
		iobuf_put(b[i]);
	iobuf_stats(&st);
	assert_int_equal(st.cached, 8 * MIB);
	/* Another class: the cached 1 MiB buffers make room. */
	big = iobuf_alloc(2 * MIB);
	assert_non_null(big);
	iobuf_stats(&st);
	assert_true(st.cached + st.in_use <= IOBUF_MIN_MAX_MEMORY);
	iobuf_put(big);
}

/* The timer's trim keeps what the last period needed and no more. */
static void test_periodic_trim(void **state)
{
	struct iobuf *b[8], *small[2];
	struct iobuf_stats st;
	int i;

	(void)state;
	iobuf_periodic_trim(); /* a period begins */
	for (i = 0; i < 8; i++)
		assert_non_null(b[i] = iobuf_alloc(MIB));
	for (i = 0; i < 8; i++)
		iobuf_put(b[i]);
	iobuf_periodic_trim(); /* all of it was in use: kept */
	iobuf_stats(&st);
	assert_int_equal(st.cached, 8 * MIB);

	/* Busy with small buffers only: the 1 MiB ones go, the small stay. */
	assert_non_null(small[0] = iobuf_alloc(4096));
	assert_non_null(small[1] = iobuf_alloc(4096));
	iobuf_put(small[1]);
	iobuf_periodic_trim();
	iobuf_stats(&st);
	assert_int_equal(st.cached, 4096);
	assert_int_equal(st.in_use, 4096);
	iobuf_put(small[0]);

	/* Eight cached, one needed at a time: one kept. */
	for (i = 0; i < 8; i++)
		assert_non_null(b[i] = iobuf_alloc(MIB));
	for (i = 0; i < 8; i++)
		iobuf_put(b[i]);
	iobuf_periodic_trim();
	for (i = 0; i < 3; i++) {
		assert_non_null(b[0] = iobuf_alloc(MIB));
		iobuf_put(b[0]);
	}
	iobuf_periodic_trim();
	iobuf_stats(&st);
	assert_int_equal(st.cached, MIB);

	/* Idle: nothing kept. */
	iobuf_periodic_trim();
	iobuf_stats(&st);
	assert_int_equal(st.cached, 0);
}

#define NTHREADS 8
#define ROUNDS 2000

static void *hammer(void *arg)
{
	unsigned int seed = (unsigned int)(uintptr_t)arg;
	struct iobuf *held[4] = {0};
	long bad = 0;

	for (int r = 0; r < ROUNDS; r++) {
		int k = rand_r(&seed) % 4;
		size_t sz = (size_t)(rand_r(&seed) % (300 * 1024)) + 1;
		uint8_t tag = (uint8_t)(seed & 0xff);

		if (held[k]) {
			struct iobuf *h = held[k];

			/* Nobody else wrote into our buffer meanwhile. */
			if (h->data[0] != h->data[h->size - 1])
				bad++;
			iobuf_put(held[k]);
		}
		held[k] = iobuf_alloc(sz);
		if (!held[k])
			continue;
		held[k]->data[0] = tag;
		held[k]->data[held[k]->size - 1] = tag;
	}
	for (int k = 0; k < 4; k++)
		iobuf_put(held[k]);
	return (void *)bad;
}

/*
 * 1 MiB buffers come from 2 MiB-aligned huge-page slabs: each lies whole
 * in one huge page; slabs survive pieces going back to the system and
 * are unmapped with their last one, and new buffers keep working.
 */
static void test_large_from_slabs(void **state)
{
	struct iobuf *b[9];
#if defined(__SANITIZE_ADDRESS__)
	const bool asan = true; /* malloc'd there, for the red zones */
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
	const bool asan = true;
#else
	const bool asan = false;
#endif
#else
	const bool asan = false;
#endif

	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < 9; i++) {
			b[i] = iobuf_alloc(i == 8 ? (1u << 20) + 4096 : 1u << 20);
			assert_non_null(b[i]);
			memset(b[i]->data, i, b[i]->size);
		}
		for (int i = 0; i < 8 && !asan; i++) {
			uintptr_t p = (uintptr_t)b[i]->data;

			assert_int_equal(p % (1u << 20), 0);
			assert_int_equal(p / (2u << 20),
					 (p + (1u << 20) - 1) / (2u << 20));
		}
		for (int i = 0; i < 9; i++) {
			assert_int_equal(b[i]->data[b[i]->size - 1], i);
			iobuf_put(b[i]);
		}
		/* Every other round gives all of it back to the system. */
		if (round % 2 == 0)
			iobuf_trim();
	}
	/* 1 MiB + 128 KiB pieces fill 8 MiB slabs seven at a time (4 MiB
	 * held three and left a huge page's worth unused): of eight taken
	 * at once, at least six follow each other. */
	if (!asan) {
		int next = 0;

		for (int i = 0; i < 8; i++)
			assert_non_null(b[i] = iobuf_alloc((1u << 20) + 4096));
		for (int i = 0; i < 7; i++)
			next += b[i + 1]->data == b[i]->data + b[i]->size;
		assert_true(next >= 6);
		for (int i = 0; i < 8; i++)
			iobuf_put(b[i]);
	}
}

static void test_threads(void **state)
{
	pthread_t t[NTHREADS];
	struct iobuf_stats st;
	void *bad;

	(void)state;
	for (uintptr_t i = 0; i < NTHREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, hammer,
						(void *)(i + 1)),
				 0);
	for (int i = 0; i < NTHREADS; i++) {
		assert_int_equal(pthread_join(t[i], &bad), 0);
		assert_null(bad);
	}
	iobuf_stats(&st);
	assert_int_equal(st.in_use, 0);
	assert_true(st.cached + st.in_use <= st.ceiling);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_alignment_and_sizes, reset),
		cmocka_unit_test_setup(test_reuse_and_stats, reset),
		cmocka_unit_test_setup(test_refcount, reset),
		cmocka_unit_test_setup(test_ceiling, reset),
		cmocka_unit_test_setup(test_budget, reset),
		cmocka_unit_test_setup(test_cache_trimmed_for_new, reset),
		cmocka_unit_test_setup(test_periodic_trim, reset),
		cmocka_unit_test_setup(test_large_from_slabs, reset),
		cmocka_unit_test_setup(test_threads, reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
