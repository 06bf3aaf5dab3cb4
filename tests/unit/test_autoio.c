// SPDX-License-Identifier: MIT
/*
 * vfs/autoio: io=auto's decision (vfs_auto_decide) on made-up readings of
 * memory: the budget, pressure, available memory and dirty data, each
 * with its hysteresis.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "vfs/vfs.h"

#define GIB (1ull << 30)
#define MIB (1ull << 20)

/* 6 GiB of memory, plenty available, a little cache, nothing dirty */
static struct vfs_auto_reading calm(void)
{
	struct vfs_auto_reading r = {
		.limit = 6 * GIB,
		.avail = 20 * GIB,
		.cached = 100 * MIB,
		.dirty = 0,
		.psi = 0,
		.dirty_bg_pct = 10,
		.dirty_pct = 20,
	};
	return r;
}

static void test_budget(void **state)
{
	struct vfs_auto_reading r = calm();
	uint64_t budget = 3 * GIB;

	(void)state;
	assert_true(vfs_auto_decide(&r, budget, false, true));
	assert_true(vfs_auto_decide(&r, budget, true, false));
	/* reached: direct */
	r.cached = 3 * GIB;
	assert_false(vfs_auto_decide(&r, budget, true, false));
	/* below the budget but above 3/4 of it: stays direct... */
	r.cached = 2 * GIB + 512 * MIB;
	assert_false(vfs_auto_decide(&r, budget, false, false));
	/* ...while buffered it would have stayed buffered */
	assert_true(vfs_auto_decide(&r, budget, true, false));
	/* under 3/4: back to buffered */
	r.cached = 2 * GIB;
	assert_true(vfs_auto_decide(&r, budget, false, false));
	/* no budget, no memory known: always direct */
	r = calm();
	assert_false(vfs_auto_decide(&r, 0, true, true));
	r.limit = 0;
	assert_false(vfs_auto_decide(&r, budget, true, true));
}

static void test_pressure(void **state)
{
	struct vfs_auto_reading r = calm();
	uint64_t budget = 3 * GIB;

	(void)state;
	r.psi = 999; /* 9.99 %: buffered stays */
	assert_true(vfs_auto_decide(&r, budget, true, false));
	r.psi = 1000;
	assert_false(vfs_auto_decide(&r, budget, true, false));
	/* back only under 1 % */
	r.psi = 100;
	assert_false(vfs_auto_decide(&r, budget, false, false));
	r.psi = 99;
	assert_true(vfs_auto_decide(&r, budget, false, false));
	/* available memory: a tenth to stay, a fifth to come back */
	r = calm();
	r.avail = r.limit / 10 - 1;
	assert_false(vfs_auto_decide(&r, budget, true, false));
	r.avail = r.limit / 10 + MIB;
	assert_true(vfs_auto_decide(&r, budget, true, false));
	assert_false(vfs_auto_decide(&r, budget, false, false));
	r.avail = r.limit / 5;
	assert_true(vfs_auto_decide(&r, budget, false, false));
}

static void test_dirty(void **state)
{
	struct vfs_auto_reading r = calm();
	uint64_t budget = 3 * GIB;
	/* dirtyable = min(avail, limit) = 6 GiB; throttling at 15 % of it */
	uint64_t throttle = 6 * GIB / 200 * 30;

	(void)state;
	/* a writer outpacing writeback, far below the cache budget */
	r.cached = 1 * GIB;
	r.dirty = throttle / 4 * 3 - MIB;
	assert_true(vfs_auto_decide(&r, budget, true, false));
	r.dirty = throttle / 4 * 3;
	assert_false(vfs_auto_decide(&r, budget, true, false));
	/* back once writeback caught up to half the throttling point */
	r.dirty = throttle / 2;
	assert_false(vfs_auto_decide(&r, budget, false, false));
	r.dirty = throttle / 2 - MIB;
	assert_true(vfs_auto_decide(&r, budget, false, false));
	/* less memory available, an earlier mark */
	r = calm();
	r.avail = 2 * GIB;
	r.dirty = 2 * GIB / 200 * 30 / 4 * 3;
	assert_false(vfs_auto_decide(&r, budget, true, false));
	/* the kernel's ratios: 40/80 % leaves far more room */
	r.dirty_bg_pct = 40;
	r.dirty_pct = 80;
	assert_true(vfs_auto_decide(&r, budget, true, false));
	/* ratios set as bytes (0): the defaults stand in */
	r.dirty_bg_pct = 0;
	r.dirty_pct = 0;
	assert_false(vfs_auto_decide(&r, budget, true, false));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_budget),
		cmocka_unit_test(test_pressure),
		cmocka_unit_test(test_dirty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
