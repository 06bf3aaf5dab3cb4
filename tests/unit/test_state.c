// SPDX-License-Identifier: MIT
/*
 * Unit tests of the shared file state (src/state/): range conversions,
 * share reservations over every access/deny combination, the delete
 * check, POSIX set/split/merge/unlock (the cases test_nfs4_state had for
 * the NFSv4 lock list, and more), Windows stacking, exact unlock,
 * zero-length ranges and the same-open rules of MS-FSA, conflicts across
 * flavors, I/O checks, the range bound, locks mirrored to a (model)
 * backend that other servers share, entry lifetime (vfs reference
 * given back after the last state), and threads locking, unlocking and
 * opening on several files at once (also run under ThreadSanitizer: see
 * docs/testing.md).
 *
 * Entries are keyed by real vfs objects of a scratch export, which needs
 * root (exits 77 otherwise).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "state/file_state.h"
#include "state/file_state_int.h"
#include "vfs/vfs.h"
#include "vfs/vfs_int.h"

#define NOBJS 8

static char vdir[256];
static struct vfs_export *vex;
static struct vfs_obj *objs[NOBJS]; /* root/f0 .. root/f7 */
static struct vfs_obj *root;

static int A_, B_, C_;
static const struct state_holder PA = {&A_, STATE_HOLDER_NFS4};
static const struct state_holder PB = {&B_, STATE_HOLDER_NFS4};
static const struct state_holder WA = {&A_, STATE_HOLDER_SMB};
static const struct state_holder WB = {&B_, STATE_HOLDER_SMB};
static const struct state_holder WC = {&C_, STATE_HOLDER_SMB};

static void expect_clean(void)
{
	struct state_counts c;

	state_counts(&c);
	assert_int_equal(c.files, 0);
	assert_int_equal(c.ranges, 0);
	assert_int_equal(c.win_ranges, 0);
	assert_int_equal(c.shares, 0);
	assert_int_equal(c.deny[0] + c.deny[1] + c.deny[2], 0);
}

static struct state_range rng(uint64_t s, uint64_t e)
{
	struct state_range r = {.start = s, .end = e, .empty = false};

	return r;
}

static struct state_range zero(uint64_t s)
{
	struct state_range r = {.start = s, .end = s, .empty = true};

	return r;
}

static int count_locks(struct state_file *f)
{
	return (int)f->nlocks;
}

static const struct state_lock *lock_at(struct state_file *f, int i)
{
	struct state_link *n = f->locks.next;

	while (i--)
		n = n->next;
	return state_container_of(n, struct state_lock, link);
}

static void expect_lock(struct state_file *f, int i,
			const struct state_holder *h, uint64_t s, uint64_t e,
			bool excl)
{
	const struct state_lock *l = lock_at(f, i);

	assert_ptr_equal(l->holder.id, h->id);
	assert_int_equal(l->holder.tag, h->tag);
	assert_true(l->range.start == s);
	assert_true(l->range.end == e);
	assert_int_equal(l->excl, excl);
}

/* Lock returning the change in the file's ranges, or -errno. */
static int lset(struct state_file *f, const struct state_holder *h, uint64_t s,
		uint64_t e, bool excl)
{
	struct state_range r = rng(s, e);
	int before = count_locks(f),
	    ret = state_lock(f, h, &r, excl, NULL, NULL);

	return ret < 0 ? ret : count_locks(f) - before;
}

static int lclear(struct state_file *f, const struct state_holder *h,
		  uint64_t s, uint64_t e)
{
	struct state_range r = rng(s, e);
	int before = count_locks(f), ret = state_unlock(f, h, &r);

	return ret < 0 ? ret : count_locks(f) - before;
}

/* ---- ranges ------------------------------------------------------------ */

static void test_ranges(void **state)
{
	struct state_range r;

	(void)state;
	/* NFS: the cases of test_nfs4_state's test_lock_range_end */
	assert_int_equal(state_range_nfs(0, 0, &r), -EINVAL);
	assert_int_equal(state_range_nfs(10, 5, &r), 0);
	assert_true(r.end == 14 && !r.empty);
	assert_int_equal(state_range_nfs(7, UINT64_MAX, &r), 0);
	assert_true(r.end == UINT64_MAX);
	/* offset + length must not pass 2^64 - 1 (RFC 7530 §16.10.4): the
	 * last byte is only reachable with the all-ones length */
	assert_int_equal(state_range_nfs(2, UINT64_MAX - 1, &r), -EINVAL);
	assert_int_equal(state_range_nfs(1, UINT64_MAX - 1, &r), 0);
	assert_true(r.end == UINT64_MAX - 1);
	assert_int_equal(state_range_nfs(UINT64_MAX, 1, &r), -EINVAL);
	assert_int_equal(state_range_nfs(UINT64_MAX - 1, 1, &r), 0);
	assert_true(r.end == UINT64_MAX - 1);
	r = rng(5, UINT64_MAX);
	assert_true(state_range_len(&r) == UINT64_MAX);
	r = rng(5, 9);
	assert_true(state_range_len(&r) == 5);

	/* Windows: zero lengths are ranges; the last byte may be locked */
	assert_int_equal(state_range_win(10, 0, &r), 0);
	assert_true(r.empty && r.start == 10);
	assert_true(state_range_len(&r) == 0);
	assert_int_equal(state_range_win(0, 0, &r), 0);
	assert_true(r.empty);
	assert_int_equal(state_range_win(UINT64_MAX, 1, &r), 0);
	assert_true(r.start == UINT64_MAX && r.end == UINT64_MAX);
	assert_int_equal(state_range_win(UINT64_MAX, 2, &r), -EINVAL);
	assert_int_equal(state_range_win(1, UINT64_MAX, &r), 0);
	assert_true(r.end == UINT64_MAX);
	assert_int_equal(state_range_win(2, UINT64_MAX, &r), -EINVAL);
	assert_int_equal(state_range_win(0, UINT64_MAX, &r), 0);
	assert_true(r.end == UINT64_MAX - 1);

	/* I/O: cut at the last byte, zero length is empty */
	state_range_io(100, 10, &r);
	assert_true(r.start == 100 && r.end == 109 && !r.empty);
	state_range_io(UINT64_MAX - 1, 10, &r);
	assert_true(r.end == UINT64_MAX);
	state_range_io(5, 0, &r);
	assert_true(r.empty);
}

/* ---- shares ------------------------------------------------------------ */

static void test_share_matrix(void **state)
{
	struct state_file *f;
	uint32_t ha, hd, wa, wd;

	(void)state;
	f = state_file_get(objs[0]);
	assert_non_null(f);
	/* every access and deny of the holder and the newcomer, DELETE
	 * included (the NFSv4 ones are the READ/WRITE subset) */
	for (ha = 0; ha <= STATE_SHARE_MASK; ha++) {
		for (hd = 0; hd <= STATE_SHARE_MASK; hd++) {
			for (wa = 0; wa <= STATE_SHARE_MASK; wa++) {
				for (wd = 0; wd <= STATE_SHARE_MASK; wd++) {
					bool expect = (hd & wa) || (ha & wd);

					assert_int_equal(
						state_share_acquire(f, &PA, ha,
								    hd),
						0);
					assert_int_equal(
						state_share_acquire(f, &WB, wa,
								    wd),
						expect ? -EBUSY : 0);
					if (!expect)
						state_share_release(f, &WB);
					/* an upgrade of the same holder never
					 * conflicts with itself */
					assert_int_equal(
						state_share_change(f, &PA, wa,
								   wd),
						0);
					assert_int_equal(
						state_share_change(f, &PA, ha,
								   hd),
						0);
					/* the check is symmetric */
					assert_int_equal(
						state_share_acquire(f, &PB, wa,
								    wd),
						expect ? -EBUSY : 0);
					if (!expect) {
						/* and a change of it is
						 * checked against PA */
						assert_int_equal(
							state_share_change(
								f, &PB, wa, wd),
							0);
						state_share_release(f, &PB);
					}
					state_share_release(f, &PA);
				}
			}
		}
	}
	state_file_put(f);
	expect_clean();
}

static void test_share_calls(void **state)
{
	struct state_counts c;
	struct state_file *f;

	(void)state;
	f = state_file_get(objs[0]);
	assert_int_equal(state_share_acquire(f, &PA, 8, 0), -EINVAL);
	assert_int_equal(state_share_acquire(f, &PA, 1, 0x10), -EINVAL);
	assert_int_equal(state_share_change(f, &PA, 1, 0), -ENOENT);
	assert_int_equal(state_share_acquire(f, &PA, STATE_ACCESS_READ,
					     STATE_DENY_WRITE),
			 0);
	assert_int_equal(state_share_acquire(f, &PA, STATE_ACCESS_READ, 0),
			 -EEXIST);
	/* another holder wanting write: refused, nothing stored */
	assert_int_equal(state_share_acquire(f, &PB, STATE_ACCESS_WRITE, 0),
			 -EBUSY);
	assert_int_equal(state_share_acquire(f, &PB, STATE_ACCESS_READ, 0), 0);
	/* PA upgrading to deny read now conflicts with PB's read */
	assert_int_equal(state_share_change(f, &PA, STATE_ACCESS_READ,
					    STATE_DENY_WRITE | STATE_DENY_READ),
			 -EBUSY);
	/* unchanged: PB may still not write, PA still denies write */
	assert_true(state_share_denies(f, STATE_ACCESS_WRITE));
	assert_false(state_share_denies(f, STATE_ACCESS_READ));
	assert_true(state_share_denies_obj(objs[0], STATE_ACCESS_WRITE));
	assert_false(state_share_denies_obj(objs[1], STATE_ACCESS_WRITE));
	/* what the shares hold (not what they deny) */
	assert_true(state_share_grants_obj(objs[0], STATE_ACCESS_READ));
	assert_false(state_share_grants_obj(objs[0], STATE_ACCESS_WRITE));
	assert_false(state_share_grants_obj(objs[0], STATE_ACCESS_DELETE));
	assert_false(state_share_grants_obj(objs[1], STATE_ACCESS_READ));
	state_counts(&c);
	assert_int_equal(c.shares, 2);
	assert_int_equal(c.deny[1], 1);
	/* a downgrade drops the deny */
	assert_int_equal(state_share_change(f, &PA, STATE_ACCESS_READ, 0), 0);
	assert_false(state_share_denies(f, STATE_ACCESS_WRITE));
	assert_int_equal(
		state_share_change(f, &PB,
				   STATE_ACCESS_READ | STATE_ACCESS_WRITE, 0),
		0);
	assert_true(state_share_grants_obj(objs[0], STATE_ACCESS_WRITE));
	state_share_release(f, &PA);
	state_share_release(f, &PA); /* nothing: fine */
	state_share_release(f, &PB);
	assert_false(state_share_grants_obj(objs[0], STATE_ACCESS_WRITE |
							     STATE_ACCESS_READ));
	state_file_put(f);
	expect_clean();
}

/* PA's client is lapsed (a courtesy client); counts the hook's calls. */
static int lapsed_calls;

static bool lapsed_a(const void *id)
{
	lapsed_calls++;
	return id == &A_;
}

static void count_report(void *arg, const struct state_lock_info *l)
{
	(void)l;
	(*(int *)arg)++;
}

/*
 * A request in conflict with lapsed holders only fails with -EINPROGRESS
 * ("ask again": the holder is being expired), with any live holder in the
 * way with the conflict itself; no conflict, no call of the hook.
 */
static void test_lapsed_holders(void **state)
{
	struct state_range r = rng(0, 9);
	struct state_file *f;
	int reports = 0;

	(void)state;
	state_set_lapsed(STATE_HOLDER_NFS4, lapsed_a);
	f = state_file_get(objs[0]);
	assert_int_equal(state_share_acquire(f, &PA, STATE_ACCESS_READ,
					     STATE_DENY_WRITE),
			 0);
	assert_int_equal(lapsed_calls, 0);
	/* only PA denies write: ask again */
	assert_int_equal(state_share_acquire(f, &WB, STATE_ACCESS_WRITE, 0),
			 -EINPROGRESS);
	assert_true(lapsed_calls > 0);
	/* PB (live) denies write too: a plain conflict */
	assert_int_equal(state_share_acquire(f, &PB, STATE_ACCESS_READ,
					     STATE_DENY_WRITE),
			 0);
	assert_int_equal(state_share_acquire(f, &WB, STATE_ACCESS_WRITE, 0),
			 -EBUSY);
	state_share_release(f, &PB);
	/* an upgrade is checked the same way */
	assert_int_equal(state_share_acquire(f, &WB, STATE_ACCESS_READ, 0), 0);
	assert_int_equal(state_share_change(f, &WB, STATE_ACCESS_WRITE, 0),
			 -EINPROGRESS);
	state_share_release(f, &WB);
	state_share_release(f, &PA);
	/* locks: PA's lapsed, PB's live; the lapsed one is not reported */
	assert_int_equal(lset(f, &PA, 0, 9, true), 1);
	assert_int_equal(state_lock(f, &WB, &r, false, count_report, &reports),
			 -EINPROGRESS);
	assert_int_equal(state_lock_test(f, NULL, &r, false, count_report,
					 &reports),
			 -EINPROGRESS);
	assert_int_equal(reports, 0);
	assert_int_equal(lset(f, &PB, 20, 29, true), 1);
	r = rng(5, 25);
	assert_int_equal(state_lock(f, &WB, &r, false, count_report, &reports),
			 -EAGAIN);
	assert_int_equal(reports, 1);
	/* no conflict: no question asked */
	lapsed_calls = 0;
	r = rng(40, 49);
	assert_int_equal(state_lock_test(f, &WB, &r, true, NULL, NULL), 0);
	assert_int_equal(lapsed_calls, 0);
	(void)state_unlock_all(f, &PA);
	(void)state_unlock_all(f, &PB);
	state_set_lapsed(STATE_HOLDER_NFS4, NULL);
	/* without the hook, a plain conflict again */
	assert_int_equal(lset(f, &PA, 0, 9, true), 1);
	r = rng(0, 9);
	assert_int_equal(state_lock_test(f, &WB, &r, false, NULL, NULL),
			 -EAGAIN);
	(void)state_unlock_all(f, &PA);
	state_file_put(f);
	expect_clean();
}

static void test_delete_check(void **state)
{
	struct state_file *f;

	(void)state;
	/* NFS alone: nothing denies DELETE, nothing to look up */
	assert_false(state_delete_check_needed());
	assert_int_equal(state_may_delete(objs[0]), 0);
	f = state_file_get(objs[0]);
	assert_int_equal(state_share_acquire(
				 f, &PA, STATE_ACCESS_READ | STATE_ACCESS_WRITE,
				 STATE_DENY_READ | STATE_DENY_WRITE),
			 0);
	assert_false(state_delete_check_needed());
	assert_int_equal(state_may_delete(objs[0]), 0);
	/* an SMB open without FILE_SHARE_DELETE, while PA denies read */
	assert_int_equal(state_share_acquire(f, &WB, STATE_ACCESS_READ,
					     STATE_DENY_DELETE),
			 -EBUSY);
	assert_false(state_delete_check_needed());
	state_share_release(f, &PA);
	assert_int_equal(state_share_acquire(f, &WB, STATE_ACCESS_READ,
					     STATE_DENY_DELETE),
			 0);
	assert_true(state_delete_check_needed());
	assert_int_equal(state_may_delete(objs[0]), -ETXTBSY);
	assert_int_equal(state_may_delete(objs[1]), 0);
	/* by name, as REMOVE and RENAME ask */
	assert_int_equal(state_may_unlink_name(root, "f0", 2, NULL), -ETXTBSY);
	assert_int_equal(state_may_unlink_name(root, "f1", 2, NULL), 0);
	assert_int_equal(state_may_unlink_name(root, "nope", 4, NULL), 0);
	/* an open asking for DELETE access conflicts with it too */
	assert_int_equal(state_share_acquire(f, &WC, STATE_ACCESS_DELETE, 0),
			 -EBUSY);
	/* FILE_SHARE_DELETE given: REMOVE may go ahead */
	assert_int_equal(state_share_change(f, &WB, STATE_ACCESS_READ, 0), 0);
	assert_false(state_delete_check_needed());
	assert_int_equal(state_may_delete(objs[0]), 0);
	state_share_release(f, &WB);
	state_file_put(f);
	expect_clean();
}

/* ---- POSIX locks --------------------------------------------------------- */

static void test_posix_merge_split(void **state)
{
	struct state_file *f;

	(void)state;
	f = state_file_get(objs[1]);
	assert_int_equal(lset(f, &PA, 0, 9, false), 1);
	/* adjacent, same type: merges */
	assert_int_equal(lset(f, &PA, 10, 19, false), 0);
	assert_int_equal(count_locks(f), 1);
	expect_lock(f, 0, &PA, 0, 19, false);
	/* upgrade the middle: splits in three */
	assert_int_equal(lset(f, &PA, 5, 14, true), 2);
	assert_int_equal(count_locks(f), 3);
	expect_lock(f, 0, &PA, 0, 4, false);
	expect_lock(f, 1, &PA, 5, 14, true);
	expect_lock(f, 2, &PA, 15, 19, false);
	/* unlock inside the write lock: splits it */
	assert_int_equal(lclear(f, &PA, 7, 8), 1);
	assert_int_equal(count_locks(f), 4);
	expect_lock(f, 1, &PA, 5, 6, true);
	expect_lock(f, 2, &PA, 9, 14, true);
	/* at the limit, a split that needs a new range is refused whole */
	state_set_max_ranges(4);
	assert_int_equal(lclear(f, &PA, 10, 10), -ENOSPC);
	assert_int_equal(count_locks(f), 4);
	/* ... and so is a lock that needs one */
	assert_int_equal(lset(f, &PA, 100, 100, false), -ENOSPC);
	assert_int_equal(count_locks(f), 4);
	state_set_max_ranges(0);
	/* downgrade everything to read: all merges back into one */
	assert_int_equal(lset(f, &PA, 0, 19, false), -3);
	assert_int_equal(count_locks(f), 1);
	expect_lock(f, 0, &PA, 0, 19, false);
	/* to EOF, then unlock a tail and a head */
	assert_int_equal(lset(f, &PA, 20, UINT64_MAX, false), 0);
	expect_lock(f, 0, &PA, 0, UINT64_MAX, false);
	assert_int_equal(lclear(f, &PA, 100, UINT64_MAX), 0);
	expect_lock(f, 0, &PA, 0, 99, false);
	assert_int_equal(lclear(f, &PA, 0, 49), 0);
	expect_lock(f, 0, &PA, 50, 99, false);
	/* unlock of nothing is fine */
	assert_int_equal(lclear(f, &PB, 0, UINT64_MAX), 0);
	/* another holder's ranges interleave, sorted by start */
	assert_int_equal(lset(f, &PB, 10, 60, false), 1);
	expect_lock(f, 0, &PB, 10, 60, false);
	expect_lock(f, 1, &PA, 50, 99, false);
	/* more: a write lock bridging two reads of the holder replaces
	 * them and keeps the outer parts */
	assert_int_equal(lset(f, &PA, 200, 209, false), 1);
	assert_int_equal(lset(f, &PA, 95, 204, true), 1);
	expect_lock(f, 1, &PA, 50, 94, false);
	expect_lock(f, 2, &PA, 95, 204, true);
	expect_lock(f, 3, &PA, 205, 209, false);
	assert_int_equal(state_lock_count(f, &PA), 3);
	assert_int_equal(state_lock_count(f, &PB), 1);
	/* the last byte of the file, alone */
	assert_int_equal(lset(f, &PA, UINT64_MAX, UINT64_MAX, true), 1);
	assert_int_equal(lset(f, &PA, UINT64_MAX - 1, UINT64_MAX - 1, true), 0);
	expect_lock(f, 4, &PA, UINT64_MAX - 1, UINT64_MAX, true);
	/* an empty range is not a POSIX lock */
	{
		struct state_range z = zero(5);

		assert_int_equal(state_lock(f, &PA, &z, false, NULL, NULL),
				 -EINVAL);
		assert_int_equal(state_unlock(f, &PA, &z), 0);
	}
	assert_int_equal(state_unlock_all(f, &PA), 4);
	assert_int_equal(state_unlock_all(f, &PB), 1);
	assert_true(state_link_empty(&f->locks));
	state_file_put(f);
	expect_clean();
}

struct seen {
	int calls;
	struct state_lock_info info;
};

static void seen_cb(void *arg, const struct state_lock_info *l)
{
	struct seen *s = arg;

	s->calls++;
	s->info = *l;
}

static void test_posix_conflicts(void **state)
{
	static const struct {
		bool held, want, conflict;
	} m[] = {
		{false, false, false},
		{false, true, true},
		{true, false, true},
		{true, true, true},
	};
	struct state_file *f;
	struct seen s;
	size_t i;

	(void)state;
	f = state_file_get(objs[1]);
	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		struct state_range r = rng(150, 250);

		assert_int_equal(lset(f, &PA, 100, 199, m[i].held), 1);
		/* other owner, overlapping */
		memset(&s, 0, sizeof(s));
		assert_int_equal(
			state_lock_test(f, &PB, &r, m[i].want, seen_cb, &s),
			m[i].conflict ? -EAGAIN : 0);
		assert_int_equal(s.calls, m[i].conflict);
		if (s.calls) {
			assert_true(s.info.range.start == 100 &&
				    s.info.range.end == 199);
			assert_ptr_equal(s.info.holder.id, &A_);
			assert_int_equal(s.info.excl, m[i].held);
		}
		/* and LOCK itself: refused the same way, unchanged */
		assert_int_equal(state_lock(f, &PB, &r, m[i].want, NULL, NULL),
				 m[i].conflict ? -EAGAIN : 0);
		state_unlock_all(f, &PB);
		/* other owner, disjoint: never */
		r = rng(200, 300);
		assert_int_equal(
			state_lock_test(f, &PB, &r, m[i].want, NULL, NULL), 0);
		r = rng(0, 99);
		assert_int_equal(
			state_lock_test(f, &PB, &r, m[i].want, NULL, NULL), 0);
		/* same owner: never */
		r = rng(0, 300);
		assert_int_equal(
			state_lock_test(f, &PA, &r, m[i].want, NULL, NULL), 0);
		/* unknown owner (LOCKT): as any other */
		r = rng(199, 199);
		assert_int_equal(
			state_lock_test(f, NULL, &r, m[i].want, NULL, NULL),
			m[i].conflict ? -EAGAIN : 0);
		state_unlock_all(f, &PA);
	}
	state_file_put(f);
	expect_clean();
}

/* ---- Windows locks ------------------------------------------------------- */

static int wlock(struct state_file *f, const struct state_holder *h,
		 uint64_t off, uint64_t len, bool excl)
{
	struct state_range r;

	assert_int_equal(state_range_win(off, len, &r), 0);
	return state_lock(f, h, &r, excl, NULL, NULL);
}

static int wunlock(struct state_file *f, const struct state_holder *h,
		   uint64_t off, uint64_t len)
{
	struct state_range r;

	assert_int_equal(state_range_win(off, len, &r), 0);
	return state_unlock(f, h, &r);
}

static void test_win_stacking(void **state)
{
	struct state_file *f;

	(void)state;
	f = state_file_get(objs[2]);
	/* shared locks stack, the same range several times */
	assert_int_equal(wlock(f, &WA, 0, 10, false), 0);
	assert_int_equal(wlock(f, &WA, 0, 10, false), 0);
	assert_int_equal(wlock(f, &WA, 5, 10, false), 0);
	assert_int_equal(state_lock_count(f, &WA), 3);
	/* another open's shared lock too */
	assert_int_equal(wlock(f, &WB, 0, 20, false), 0);
	/* an exclusive lock over a shared one: refused, own or not */
	assert_int_equal(wlock(f, &WA, 2, 1, true), -EAGAIN);
	assert_int_equal(wlock(f, &WC, 2, 1, true), -EAGAIN);
	/* beside them: fine */
	assert_int_equal(wlock(f, &WA, 100, 10, true), 0);
	/* over its own exclusive lock: exclusive no, shared yes */
	assert_int_equal(wlock(f, &WA, 105, 1, true), -EAGAIN);
	assert_int_equal(wlock(f, &WA, 105, 1, false), 0);
	/* another open: neither */
	assert_int_equal(wlock(f, &WB, 105, 1, false), -EAGAIN);
	assert_int_equal(wlock(f, &WB, 109, 5, true), -EAGAIN);
	assert_int_equal(wlock(f, &WB, 110, 5, true), 0);
	assert_int_equal(state_lock_count(f, &WA), 5);
	assert_int_equal(state_unlock_all(f, &WA), 5);
	assert_int_equal(state_unlock_all(f, &WB), 2);
	state_file_put(f);
	expect_clean();
}

static void test_win_unlock_exact(void **state)
{
	struct state_file *f;

	(void)state;
	f = state_file_get(objs[2]);
	assert_int_equal(wlock(f, &WA, 0, 10, true), 0);
	assert_int_equal(wlock(f, &WA, 0, 10, false), 0);
	assert_int_equal(wlock(f, &WA, 0, 10, false), 0);
	/* only the exact range of the same open unlocks */
	assert_int_equal(wunlock(f, &WA, 0, 5), -ENOENT);
	assert_int_equal(wunlock(f, &WA, 0, 11), -ENOENT);
	assert_int_equal(wunlock(f, &WA, 1, 9), -ENOENT);
	assert_int_equal(wunlock(f, &WB, 0, 10), -ENOENT);
	assert_int_equal(wunlock(f, &WA, 0, 0), -ENOENT);
	assert_int_equal(state_lock_count(f, &WA), 3);
	/* the exclusive one goes first: then another open may share */
	assert_int_equal(wlock(f, &WB, 0, 1, false), -EAGAIN);
	assert_int_equal(wunlock(f, &WA, 0, 10), 0);
	assert_int_equal(state_lock_count(f, &WA), 2);
	{
		const struct state_lock *l = lock_at(f, 0);

		assert_false(l->excl);
		assert_false(lock_at(f, 1)->excl);
	}
	assert_int_equal(wlock(f, &WB, 0, 1, false), 0);
	assert_int_equal(wunlock(f, &WA, 0, 10), 0);
	assert_int_equal(wunlock(f, &WA, 0, 10), 0);
	assert_int_equal(wunlock(f, &WA, 0, 10), -ENOENT);
	assert_int_equal(wunlock(f, &WB, 0, 1), 0);
	state_file_put(f);
	expect_clean();
}

static void test_win_zero_length(void **state)
{
	struct state_file *f;
	struct state_range r;

	(void)state;
	f = state_file_get(objs[3]);
	/* {0, 0} conflicts with nothing, even exclusive over exclusive */
	assert_int_equal(wlock(f, &WA, 0, 0, true), 0);
	assert_int_equal(wlock(f, &WB, 0, 0, true), 0);
	assert_int_equal(wlock(f, &WB, 0, 100, true), 0);
	assert_int_equal(wunlock(f, &WB, 0, 100), 0);
	/* {10, 0} ends at 9: it overlaps a range holding 9 and 10 */
	assert_int_equal(wlock(f, &WA, 10, 0, true), 0);
	r = rng(9, 10);
	assert_int_equal(state_lock_test(f, &PA, &r, false, NULL, NULL),
			 -EAGAIN);
	r = rng(10, 11);
	assert_int_equal(state_lock_test(f, &PA, &r, false, NULL, NULL), 0);
	r = rng(8, 9);
	assert_int_equal(state_lock_test(f, &PA, &r, false, NULL, NULL), 0);
	/* and mandatory for I/O of those bytes by others */
	state_range_io(9, 2, &r);
	assert_int_equal(state_check_io(f, &WC, false, &r), -EAGAIN);
	assert_int_equal(state_check_io(f, &WA, true, &r), 0);
	state_range_io(10, 2, &r);
	assert_int_equal(state_check_io(f, &WC, false, &r), 0);
	assert_int_equal(wlock(f, &WB, 5, 11, false), -EAGAIN);
	assert_int_equal(wlock(f, &WB, 10, 6, true), 0);
	assert_int_equal(wlock(f, &WB, 5, 5, true), 0);
	/* two zero-length locks at one offset do not overlap */
	assert_int_equal(wlock(f, &WB, 10, 0, true), 0);
	assert_int_equal(wunlock(f, &WA, 10, 0), 0);
	assert_int_equal(wunlock(f, &WA, 0, 0), 0);
	assert_int_equal(wunlock(f, &WA, 0, 0), -ENOENT);
	assert_int_equal(state_unlock_all(f, &WB), 4);
	state_file_put(f);
	expect_clean();
}

/* ---- across flavors, I/O ------------------------------------------------- */

static void test_cross_flavor(void **state)
{
	struct state_file *f;
	struct state_range r;
	struct seen s;

	(void)state;
	f = state_file_get(objs[4]);
	/* an NFSv4 write lock stops SMB locks of any kind */
	assert_int_equal(lset(f, &PA, 100, 199, true), 1);
	assert_int_equal(wlock(f, &WB, 150, 10, false), -EAGAIN);
	assert_int_equal(wlock(f, &WB, 0, 101, true), -EAGAIN);
	assert_int_equal(wlock(f, &WB, 200, 10, true), 0);
	/* and the SMB lock stops NFSv4 ones, reported with its holder */
	memset(&s, 0, sizeof(s));
	r = rng(205, 205);
	assert_int_equal(state_lock(f, &PA, &r, false, seen_cb, &s), -EAGAIN);
	assert_int_equal(s.calls, 1);
	assert_ptr_equal(s.info.holder.id, &B_);
	assert_int_equal(s.info.holder.tag, STATE_HOLDER_SMB);
	assert_true(s.info.excl);
	assert_true(s.info.range.start == 200 && s.info.range.end == 209);
	/* the same pointer with another tag is another holder */
	assert_int_equal(wlock(f, &WA, 100, 1, false), -EAGAIN);
	/* shared and read share across flavors */
	assert_int_equal(lset(f, &PA, 100, 199, false), 0);
	assert_int_equal(wlock(f, &WB, 150, 10, false), 0);
	assert_int_equal(lset(f, &PB, 155, 156, false), 1);
	assert_int_equal(lset(f, &PB, 155, 156, true), -EAGAIN);
	/* a POSIX unlock leaves the SMB locks alone */
	assert_int_equal(lclear(f, &PA, 0, UINT64_MAX), -1);
	assert_int_equal(state_lock_count(f, &WB), 2);
	assert_int_equal(state_unlock_all(f, &PB), 1);
	assert_int_equal(state_unlock_all(f, &WB), 2);
	state_file_put(f);
	expect_clean();
}

static int io(struct state_file *f, const struct state_holder *h, bool write,
	      uint64_t off, uint64_t len)
{
	struct state_range r;

	state_range_io(off, len, &r);
	return state_check_io(f, h, write, &r);
}

static void test_io_checks(void **state)
{
	struct state_file *f;

	(void)state;
	f = state_file_get(objs[5]);
	/* POSIX locks are advisory: no I/O is refused (as knfsd) */
	assert_int_equal(lset(f, &PA, 0, 99, true), 1);
	assert_int_equal(io(f, &PB, true, 0, 100), 0);
	assert_int_equal(io(f, NULL, false, 0, 100), 0);
	assert_int_equal(io(f, &WB, true, 50, 1), 0);
	/* an SMB exclusive lock refuses other holders' reads and writes */
	assert_int_equal(wlock(f, &WA, 1000, 100, true), 0);
	assert_int_equal(io(f, &WB, false, 1050, 10), -EAGAIN);
	assert_int_equal(io(f, &WB, true, 999, 2), -EAGAIN);
	assert_int_equal(io(f, NULL, false, 1099, 1), -EAGAIN);
	assert_int_equal(io(f, &PB, false, 900, 4096), -EAGAIN);
	/* ... not its own, not outside it, not a zero-length one */
	assert_int_equal(io(f, &WA, true, 1000, 100), 0);
	assert_int_equal(io(f, &WB, true, 1100, 10), 0);
	assert_int_equal(io(f, &WB, true, 990, 10), 0);
	assert_int_equal(io(f, &WB, true, 1050, 0), 0);
	/* a shared one refuses every write, its owner's too, no read */
	assert_int_equal(wlock(f, &WA, 2000, 10, false), 0);
	assert_int_equal(io(f, &WA, true, 2005, 1), -EAGAIN);
	assert_int_equal(io(f, &WB, true, 2005, 1), -EAGAIN);
	assert_int_equal(io(f, NULL, true, 2005, 1), -EAGAIN);
	assert_int_equal(io(f, &WB, false, 2005, 1), 0);
	assert_int_equal(io(f, &WA, false, 2000, 10), 0);
	/* and an exclusive lock over its own shared one is refused */
	assert_int_equal(wlock(f, &WA, 2000, 10, true), -EAGAIN);
	/* a read to the end of the file meets both */
	assert_int_equal(io(f, &WB, false, 0, UINT64_MAX), -EAGAIN);
	assert_int_equal(state_unlock_all(f, &WA), 2);
	assert_int_equal(io(f, &WB, false, 0, UINT64_MAX), 0);
	state_unlock_all(f, &PA);
	state_file_put(f);
	expect_clean();
}

/* ---- limits, lifetime ---------------------------------------------------- */

static void test_limits(void **state)
{
	struct state_file *f, *g;
	struct state_counts c;

	(void)state;
	f = state_file_get(objs[6]);
	g = state_file_get(objs[7]);
	/* the bound counts every file and every flavor */
	state_set_max_ranges(3);
	assert_int_equal(lset(f, &PA, 0, 0, false), 1);
	assert_int_equal(wlock(g, &WA, 0, 1, false), 0);
	assert_int_equal(wlock(g, &WA, 0, 1, false), 0);
	assert_int_equal(wlock(g, &WB, 5, 1, false), -ENOSPC);
	assert_int_equal(lset(f, &PA, 5, 5, false), -ENOSPC);
	/* merging needs no new range: fine at the bound */
	assert_int_equal(lset(f, &PA, 1, 1, false), 0);
	/* a split unlock needs one: refused, unchanged */
	assert_int_equal(lset(f, &PA, 0, 9, false), 0);
	assert_int_equal(lclear(f, &PA, 4, 4), -ENOSPC);
	expect_lock(f, 0, &PA, 0, 9, false);
	/* an unlock frees room */
	assert_int_equal(wunlock(g, &WA, 0, 1), 0);
	assert_int_equal(lclear(f, &PA, 4, 4), 1);
	state_counts(&c);
	assert_int_equal(c.ranges, 3);
	assert_int_equal(c.win_ranges, 1);
	state_set_max_ranges(0);
	state_unlock_all(f, &PA);
	state_unlock_all(g, &WA);
	state_file_put(f);
	state_file_put(g);
	expect_clean();
}

static unsigned int obj_refs(struct vfs_obj *o)
{
	return o->refs; /* single-threaded here */
}

static void test_lifetime(void **state)
{
	struct state_file *f, *f2;
	struct state_counts c;
	unsigned int base = obj_refs(objs[0]);
	struct state_range r = rng(0, 9);

	(void)state;
	assert_null(state_file_find(objs[0]));
	f = state_file_get(objs[0]);
	assert_non_null(f);
	assert_ptr_equal(state_file_obj(f), objs[0]);
	assert_int_equal(obj_refs(objs[0]), base + 1);
	/* one entry per object */
	f2 = state_file_get(objs[0]);
	assert_ptr_equal(f2, f);
	state_file_put(f2);
	assert_ptr_equal(state_file_find(objs[0]), f);
	state_file_put(f);
	state_counts(&c);
	assert_int_equal(c.files, 1);
	/* the last reference without state: freed, object given back */
	state_file_put(f);
	assert_null(state_file_find(objs[0]));
	assert_int_equal(obj_refs(objs[0]), base);
	expect_clean();

	/* a share keeps the entry after its callers let go */
	f = state_file_get(objs[0]);
	assert_int_equal(state_share_acquire(f, &PA, 1, 0), 0);
	state_file_put(f);
	f = state_file_find(objs[0]);
	assert_non_null(f);
	assert_int_equal(obj_refs(objs[0]), base + 1);
	state_share_release(f, &PA);
	/* ... and so does a lock */
	assert_int_equal(state_lock(f, &WA, &r, true, NULL, NULL), 0);
	state_file_hold(f);
	state_file_put(f);
	state_file_put(f);
	f = state_file_find(objs[0]);
	assert_non_null(f);
	assert_int_equal(state_unlock_all(f, &WA), 1);
	/* a failed lock adds no state */
	assert_int_equal(state_lock(f, &PA, &r, true, NULL, NULL), 0);
	assert_int_equal(state_lock(f, &PB, &r, true, NULL, NULL), -EAGAIN);
	assert_int_equal(state_unlock_all(f, &PA), 1);
	state_file_put(f);
	assert_null(state_file_find(objs[0]));
	assert_int_equal(obj_refs(objs[0]), base);
	expect_clean();
}

/* ---- threads ------------------------------------------------------------- */

#define NTHREADS 4
#define ROUNDS	 3000

/* Bytes guarded by exclusive byte-range locks: plain memory, so that
 * ThreadSanitizer reports a race if the lock does not order them. */
static uint64_t guarded[NOBJS][4];

struct worker {
	int id;
	unsigned int seed;
	uint64_t done;
	int errors; /* cmocka's asserts are main-thread only */
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct state_holder h = {w, w->id % 2 ? STATE_HOLDER_SMB
					      : STATE_HOLDER_NFS4};
	int i, spins;

	for (i = 0; i < ROUNDS; i++) {
		int o = rand_r(&w->seed) % NOBJS;
		int slot = rand_r(&w->seed) % 4;
		struct state_range r =
			rng((uint64_t)slot * 10, (uint64_t)slot * 10 + 9);
		struct state_file *f = state_file_get(objs[o]);
		int ret;

		if (!f) {
			w->errors++;
			continue;
		}
		/* a share now and then, checked against the others' */
		if (i % 7 == 0) {
			ret = state_share_acquire(
				f, &h, STATE_ACCESS_READ | STATE_ACCESS_WRITE,
				STATE_DENY_WRITE);
			if (ret == 0)
				state_share_release(f, &h);
			else if (ret != -EBUSY)
				w->errors++;
		}
		/* wait for the others; bounded, in case an earlier test
		 * failed and left locks behind */
		for (spins = 0; spins < 10000000; spins++) {
			ret = state_lock(f, &h, &r, true, NULL, NULL);
			if (ret != -EAGAIN)
				break;
			sched_yield();
		}
		if (ret != 0) {
			w->errors++;
			state_file_put(f);
			continue;
		}
		guarded[o][slot]++;
		/* its own lock: its own I/O is allowed */
		if (state_check_io(f, &h, true, &r) != 0)
			w->errors++;
		if (state_unlock(f, &h, &r) != 0)
			w->errors++;
		state_file_put(f);
		w->done++;
	}
	return NULL;
}

static void test_threads(void **state)
{
	pthread_t t[NTHREADS];
	struct worker w[NTHREADS];
	uint64_t total = 0;
	int i, o, s;

	(void)state;
	expect_clean(); /* else the workers could wait for ever */
	memset(guarded, 0, sizeof(guarded));
	for (i = 0; i < NTHREADS; i++) {
		w[i].id = i;
		w[i].seed = (unsigned int)(i * 7919 + 1);
		w[i].done = 0;
		w[i].errors = 0;
		assert_int_equal(
			pthread_create(&t[i], NULL, worker_main, &w[i]), 0);
	}
	for (i = 0; i < NTHREADS; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(w[i].errors, 0);
		assert_true(w[i].done == ROUNDS);
	}
	for (o = 0; o < NOBJS; o++)
		for (s = 0; s < 4; s++)
			total += guarded[o][s];
	assert_true(total == (uint64_t)NTHREADS * ROUNDS);
	expect_clean();
}

/* ---- main ---------------------------------------------------------------- */

static int vfs_setup(void)
{
	const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/var/tmp";
	uint8_t key[16] = {4, 4, 3, 2, 1};
	struct vfs_sattr sa = {0};
	char name[16];
	int i;

	if (geteuid() != 0)
		return -1;
	snprintf(vdir, sizeof(vdir), "%s/nasd-state-XXXXXX", base);
	if (!mkdtemp(vdir))
		return -1;
	vfs_secret_set(key);
	if (vfs_export_open(vdir, 78, &vex) < 0)
		return -1;
	if (vfs_obj_root(vex, &root) < 0)
		return -1;
	for (i = 0; i < NOBJS; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		if (vfs_create(root, name, strlen(name), VFS_CREATE_UNCHECKED,
			       &sa, NULL, &objs[i]) < 0)
			return -1;
	}
	return 0;
}

/* ---- caching grants ------------------------------------------------------ */

struct brk_log {
	int n;
	uint32_t from, to;
	bool ack;
	int revoked;
	int released;
};

static struct brk_log blog;

static void brk_send(struct state_grant *g, uint32_t from, uint32_t to,
		     bool ack)
{
	(void)g;
	blog.n++;
	blog.from = from;
	blog.to = to;
	blog.ack = ack;
}

static void brk_revoked(struct state_grant *g)
{
	(void)g;
	blog.revoked++;
}

static void brk_release(void *arg)
{
	(void)arg;
	blog.released++;
}

static const struct state_grant_ops brk_ops = {
	.send_break = brk_send,
	.revoked = brk_revoked,
	.release = brk_release,
};

struct wake {
	struct state_grant_waiter wt;
	atomic_int woken;
};

static void wake_fn(struct state_grant_waiter *wt)
{
	struct wake *w = wt->arg;

	atomic_fetch_add(&w->woken, 1);
}

static void wake_init(struct wake *w)
{
	memset(w, 0, sizeof(*w));
	w->wt.fn = wake_fn;
	w->wt.arg = w;
}

#define R STATE_GRANT_R
#define W STATE_GRANT_W
#define H STATE_GRANT_H

/* Open for @h with share (@acc, @deny) and a grant of @kind at @level. */
static struct state_grant *grant_open(struct state_file *f,
				      const struct state_holder *h,
				      uint32_t acc, uint32_t deny,
				      enum state_grant_kind kind,
				      uint32_t level, uint32_t timeout_ms)
{
	struct state_grant *g;

	assert_int_equal(state_share_acquire(f, h, acc, deny), 0);
	g = state_grant_add(f, h, kind, NULL, level, &brk_ops, NULL,
			    timeout_ms);
	assert_non_null(g);
	return g;
}

static void test_grant_oplock_open(void **state)
{
	const uint32_t RW_ = STATE_ACCESS_READ | STATE_ACCESS_WRITE;
	struct state_grant_ask open_b = {
		.op = STATE_OP_OPEN, .flags = STATE_ASK_DATA,
		.holder = &WB, .access = STATE_ACCESS_READ,
	};
	struct state_grant_ask stat_b = { .op = STATE_OP_OPEN,
					  .holder = &WB };
	struct state_grant_counts gc0, gc;
	struct state_file *f = state_file_get(objs[0]);
	struct state_grant *g;
	struct wake wk;

	(void)state;
	state_grant_counts(&gc0);
	memset(&blog, 0, sizeof(blog));
	/* a lone open may have anything; a second one only level II */
	assert_int_equal(state_grant_may(f, &WA, STATE_GRANT_OPLOCK, NULL,
					 R | W | H), R | W | H);
	g = grant_open(f, &WA, RW_, 0, STATE_GRANT_OPLOCK, R | W | H, 60000);
	assert_int_equal(state_grant_may(f, &WB, STATE_GRANT_OPLOCK, NULL,
					 R | W | H), R);
	/* a stat open breaks nothing */
	assert_int_equal(state_grant_break(f, &stat_b, NULL), 0);
	assert_int_equal(blog.n, 0);
	/* a data open breaks batch to level II and must wait */
	wake_init(&wk);
	assert_int_equal(state_grant_break(f, &open_b, &wk.wt), -EAGAIN);
	assert_int_equal(blog.n, 1);
	assert_int_equal(blog.from, R | W | H);
	assert_int_equal(blog.to, R);
	assert_true(blog.ack);
	assert_true(state_grant_breaking(g, NULL));
	assert_int_equal(state_grant_level(g), R | W | H);
	/* nothing new is granted meanwhile; another opener waits too */
	assert_int_equal(state_grant_may(f, &WC, STATE_GRANT_OPLOCK, NULL, R),
			 0);
	assert_int_equal(state_grant_break(f, &open_b, NULL), -EAGAIN);
	assert_int_equal(blog.n, 1);
	/* the answer ends the break and wakes the waiter */
	assert_int_equal(state_grant_ack(g, R), 0);
	assert_int_equal(atomic_load(&wk.woken), 1);
	/* woken: its owner gives the queue's file reference back */
	assert_false(state_grant_unwait(&wk.wt));
	assert_false(state_grant_unwait(&wk.wt));
	assert_false(state_grant_breaking(g, NULL));
	assert_int_equal(state_grant_level(g), R);
	assert_int_equal(state_grant_ack(g, 0), -EINVAL); /* none out */
	assert_int_equal(state_grant_break(f, &open_b, NULL), 0);
	/* another's write breaks level II to none at once, unanswered */
	{
		struct state_grant_ask wr = { .op = STATE_OP_WRITE,
					      .holder = &WB };

		assert_int_equal(state_grant_break(f, &wr, NULL), 0);
		assert_int_equal(blog.n, 2);
		assert_int_equal(blog.to, 0);
		assert_false(blog.ack);
		assert_int_equal(state_grant_level(g), 0);
	}
	state_grant_remove(g);
	assert_int_equal(blog.released, 1);
	state_share_release(f, &WA);
	state_file_put(f);
	state_grant_counts(&gc);
	assert_int_equal(gc.grants, 0);
	assert_int_equal(gc.breaks - gc0.breaks, 2);
	assert_int_equal(gc.acked - gc0.acked, 1);
	expect_clean();
}

static void test_grant_oplock_rules(void **state)
{
	const uint32_t RW_ = STATE_ACCESS_READ | STATE_ACCESS_WRITE;
	struct state_file *f = state_file_get(objs[1]);
	struct state_grant *g;
	struct state_grant_ask ask = { .holder = &WB };

	(void)state;
	memset(&blog, 0, sizeof(blog));
	/* exclusive, share none: a conflicting open breaks nothing (the
	 * sharing violation comes at once) */
	g = grant_open(f, &WA, RW_, STATE_SHARE_MASK, STATE_GRANT_OPLOCK,
		       R | W, 60000);
	ask.op = STATE_OP_OPEN;
	ask.flags = STATE_ASK_DATA;
	ask.access = STATE_ACCESS_READ;
	assert_int_equal(state_grant_break(f, &ask, NULL), 0);
	assert_int_equal(blog.n, 0);
	/* an overwriting open breaks it to none */
	state_share_release(f, &WA);
	assert_int_equal(state_share_acquire(f, &WA, RW_, 0), 0);
	ask.flags |= STATE_ASK_OVERWRITE | STATE_ASK_WRITE;
	assert_int_equal(state_grant_break(f, &ask, NULL), -EAGAIN);
	assert_int_equal(blog.to, 0);
	/* a removal ends the break */
	state_grant_remove(g);
	state_share_release(f, &WA);
	/* batch, share none: the conflicting open breaks it to II */
	memset(&blog, 0, sizeof(blog));
	g = grant_open(f, &WA, RW_, STATE_SHARE_MASK, STATE_GRANT_OPLOCK,
		       R | W | H, 60000);
	ask.flags = STATE_ASK_DATA;
	assert_int_equal(state_grant_break(f, &ask, NULL), -EAGAIN);
	assert_int_equal(blog.to, R);
	/* answering with more than offered keeps what the break left */
	assert_int_equal(state_grant_ack(g, R | W), -ERANGE);
	assert_int_equal(state_grant_level(g), R);
	/* the holder's own write breaks its own level II ... */
	ask.op = STATE_OP_WRITE;
	ask.holder = &WA;
	assert_int_equal(state_grant_break(f, &ask, NULL), 0);
	assert_int_equal(state_grant_level(g), 0);
	state_grant_remove(g);
	state_share_release(f, &WA);
	/* ... but not its own exclusive one; reads, attribute changes and
	 * renames break no oplock */
	memset(&blog, 0, sizeof(blog));
	g = grant_open(f, &WA, RW_, 0, STATE_GRANT_OPLOCK, R | W, 60000);
	assert_int_equal(state_grant_break(f, &ask, NULL), 0);
	assert_int_equal(state_grant_level(g), R | W);
	ask.holder = &WB;
	ask.op = STATE_OP_SETATTR;
	assert_int_equal(state_grant_break(f, &ask, NULL), 0);
	ask.op = STATE_OP_NAMESPACE;
	assert_int_equal(state_grant_break(f, &ask, NULL), 0);
	assert_int_equal(blog.n, 0);
	/* another's read takes W away: exclusive to II */
	ask.op = STATE_OP_READ;
	assert_int_equal(state_grant_break_op(objs[1], STATE_OP_READ),
			 -EAGAIN);
	assert_int_equal(blog.to, R);
	/* byte-range locks refuse oplocks */
	state_grant_remove(g);
	{
		struct state_range r = { 0, 9, false };

		assert_int_equal(state_lock(f, &PB, &r, true, NULL, NULL), 0);
		assert_int_equal(state_grant_may(f, &WA, STATE_GRANT_OPLOCK,
						 NULL, R | W | H), 0);
		assert_int_equal(state_unlock(f, &PB, &r), 0);
	}
	state_share_release(f, &WA);
	state_file_put(f);
	expect_clean();
}

static void test_grant_timeout(void **state)
{
	const uint32_t RW_ = STATE_ACCESS_READ | STATE_ACCESS_WRITE;
	struct state_grant_ask ask = {
		.op = STATE_OP_OPEN, .flags = STATE_ASK_DATA,
		.holder = &WB, .access = STATE_ACCESS_READ,
	};
	struct state_file *f = state_file_get(objs[2]);
	struct state_grant_counts gc0, gc;
	struct state_grant *g;
	struct wake wk, wk2;
	int i;

	(void)state;
	state_grant_counts(&gc0);
	memset(&blog, 0, sizeof(blog));
	g = grant_open(f, &WA, RW_, 0, STATE_GRANT_OPLOCK, R | W | H, 50);
	wake_init(&wk);
	wake_init(&wk2);
	assert_int_equal(state_grant_break(f, &ask, &wk.wt), -EAGAIN);
	assert_int_equal(state_grant_break(f, &ask, &wk2.wt), -EAGAIN);
	/* a waiter taken back is not woken */
	assert_true(state_grant_unwait(&wk2.wt));
	assert_false(state_grant_unwait(&wk2.wt));
	for (i = 0; i < 200 && !atomic_load(&wk.woken); i++)
		usleep(10000);
	assert_int_equal(atomic_load(&wk.woken), 1);
	assert_int_equal(atomic_load(&wk2.woken), 0);
	assert_false(state_grant_unwait(&wk.wt));
	/* unanswered: the holder keeps nothing */
	assert_false(state_grant_breaking(g, NULL));
	assert_int_equal(state_grant_level(g), 0);
	assert_int_equal(blog.revoked, 1);
	assert_int_equal(state_grant_ack(g, R), -EINVAL);
	state_grant_counts(&gc);
	assert_int_equal(gc.revoked - gc0.revoked, 1);
	state_grant_remove(g);
	state_share_release(f, &WA);
	state_file_put(f);
	expect_clean();
}

static void test_grant_deleg(void **state)
{
	struct state_grant_ask ask = { .op = STATE_OP_OPEN,
				       .flags = STATE_ASK_DATA,
				       .access = STATE_ACCESS_READ };
	struct state_file *f = state_file_get(objs[3]);
	struct state_grant *g;
	int key_a;

	(void)state;
	memset(&blog, 0, sizeof(blog));
	assert_int_equal(state_share_acquire(f, &PA, STATE_ACCESS_READ, 0), 0);
	g = state_grant_add(f, &PA, STATE_GRANT_DELEG, &key_a, R, &brk_ops,
			    NULL, 60000);
	assert_non_null(g);
	/* readers live with a read delegation, a writer recalls it whole */
	assert_int_equal(state_grant_break(f, &ask, NULL), 0);
	assert_int_equal(state_grant_break_op(objs[3], STATE_OP_READ), 0);
	ask.key = &key_a; /* the holder's own client */
	ask.flags |= STATE_ASK_WRITE;
	ask.access |= STATE_ACCESS_WRITE;
	assert_int_equal(state_grant_break(f, &ask, NULL), 0);
	ask.key = NULL;
	assert_int_equal(state_grant_break(f, &ask, NULL), -EAGAIN);
	assert_int_equal(blog.to, 0);
	assert_true(blog.ack);
	state_grant_remove(g); /* DELEGRETURN */
	assert_int_equal(state_grant_break(f, &ask, NULL), 0);
	/* a read delegation: attribute reads keep it, an open for DELETE
	 * (no data), a rename or removal of a name recalls it; the
	 * holder's own removal does not */
	g = state_grant_add(f, &PA, STATE_GRANT_DELEG, &key_a, R, &brk_ops,
			    NULL, 60000);
	assert_int_equal(state_grant_break_op(objs[3], STATE_OP_GETATTR), 0);
	assert_int_equal(state_grant_break_key(objs[3], STATE_OP_NAMESPACE,
					       &key_a),
			 0);
	assert_int_equal(state_may_unlink_name(root, "f3", 2, &key_a), 0);
	ask.flags = 0;
	ask.access = STATE_ACCESS_DELETE;
	assert_int_equal(state_grant_break(f, &ask, NULL), -EAGAIN);
	state_grant_remove(g);
	g = state_grant_add(f, &PA, STATE_GRANT_DELEG, &key_a, R, &brk_ops,
			    NULL, 60000);
	assert_int_equal(state_may_unlink_name(root, "f3", 2, NULL), -EAGAIN);
	state_grant_remove(g);
	/* a write delegation: any other access recalls it, a GETATTR too
	 * (the holder has the size), but not the holder's own */
	g = state_grant_add(f, &PA, STATE_GRANT_DELEG, &key_a, R | W,
			    &brk_ops, NULL, 60000);
	assert_int_equal(state_grant_break_key(objs[3], STATE_OP_GETATTR,
					       &key_a),
			 0);
	assert_int_equal(state_grant_break_key(objs[3], STATE_OP_WRITE,
					       &key_a),
			 0);
	assert_int_equal(state_grant_break_op(objs[3], STATE_OP_GETATTR),
			 -EAGAIN);
	assert_int_equal(state_grant_break_op(objs[3], STATE_OP_READ),
			 -EAGAIN);
	state_grant_remove(g);
	state_share_release(f, &PA);
	state_file_put(f);
	expect_clean();
}

/* How the holder answers state_grant_getattr()'s question. */
enum ga_mode { GA_ANSWER, GA_REFUSE, GA_SILENT };
static enum ga_mode ga_mode;
static int ga_asked;

static bool ga_send(struct state_grant *g)
{
	struct state_grant_attrs a = { .modified = true, .size = 42 };

	ga_asked++;
	if (ga_mode == GA_REFUSE)
		return false;
	if (ga_mode == GA_ANSWER)
		state_grant_attrs_done(g, true, &a); /* at once, no lock held */
	return true;
}

static const struct state_grant_ops ga_ops = {
	.send_break = brk_send,
	.revoked = brk_revoked,
	.release = brk_release,
	.send_getattr = ga_send,
};

/* A GETATTR by another asks a write delegation's holder (CB_GETATTR)
 * rather than recalling it; one that cannot be asked or does not answer
 * is recalled. */
static void test_grant_getattr(void **state)
{
	struct state_grant_attrs a;
	struct state_file *f = state_file_get(objs[3]);
	struct state_grant *g;
	int key_a, key_b;

	(void)state;
	memset(&blog, 0, sizeof(blog));
	ga_asked = 0;
	/* nothing to ask without a grant, or with a read delegation */
	assert_int_equal(state_grant_getattr(objs[3], &key_b, 50, &a), 0);
	assert_false(a.valid);
	g = state_grant_add(f, &PA, STATE_GRANT_DELEG, &key_a, R, &ga_ops,
			    NULL, 60000);
	assert_int_equal(state_grant_getattr(objs[3], &key_b, 50, &a), 0);
	assert_false(a.valid);
	state_grant_remove(g);
	g = state_grant_add(f, &PA, STATE_GRANT_DELEG, &key_a, R | W, &ga_ops,
			    NULL, 60000);
	/* the holder's own: nothing asked */
	assert_int_equal(state_grant_getattr(objs[3], &key_a, 50, &a), 0);
	assert_false(a.valid);
	assert_int_equal(ga_asked, 0);
	/* on a thread that must not block: to be run again elsewhere */
	assert_int_equal(state_grant_getattr(objs[3], &key_b, 0, &a),
			 -EINPROGRESS);
	assert_int_equal(ga_asked, 0);
	/* answered: its size, modified; no break */
	ga_mode = GA_ANSWER;
	assert_int_equal(state_grant_getattr(objs[3], &key_b, 50, &a), 0);
	assert_true(a.valid && a.modified);
	assert_int_equal(a.size, 42);
	assert_int_equal(ga_asked, 1);
	assert_int_equal(blog.n, 0);
	/* not answered in time: recalled, DELAY */
	ga_mode = GA_SILENT;
	assert_int_equal(state_grant_getattr(objs[3], NULL, 20, &a), -EAGAIN);
	assert_false(a.valid);
	assert_int_equal(ga_asked, 2);
	assert_int_equal(blog.n, 1);
	assert_int_equal(blog.to, 0);
	/* while the recall is out: DELAY without asking */
	assert_int_equal(state_grant_getattr(objs[3], NULL, 20, &a), -EAGAIN);
	assert_int_equal(ga_asked, 2);
	state_grant_remove(g);
	/* one that cannot be asked is recalled at once */
	ga_mode = GA_REFUSE;
	g = state_grant_add(f, &PA, STATE_GRANT_DELEG, &key_a, R | W, &ga_ops,
			    NULL, 60000);
	assert_int_equal(state_grant_getattr(objs[3], NULL, 50, &a), -EAGAIN);
	assert_int_equal(ga_asked, 3);
	assert_int_equal(blog.n, 2);
	state_grant_remove(g);
	ga_mode = GA_ANSWER;
	state_file_put(f);
	expect_clean();
}

/* A grant keeps its entry (and vfs object) without callers. */
static void test_grant_lifetime(void **state)
{
	struct state_file *f = state_file_get(objs[4]);
	struct state_grant *g;
	struct state_counts c;

	(void)state;
	g = state_grant_add(f, &WA, STATE_GRANT_OPLOCK, NULL, R, &brk_ops,
			    NULL, 60000);
	assert_non_null(g);
	state_file_put(f);
	state_counts(&c);
	assert_int_equal(c.files, 1);
	assert_ptr_equal(state_file_find(objs[4]), f);
	state_file_put(f);
	state_grant_remove(g);
	expect_clean();
}

#undef R
#undef W
#undef H

/* ---- locks mirrored to a backend other servers share ---------------------- */

/*
 * A model of such a backend (CephFS's MDS, lock.c's file comment): the
 * local backend's table with lock entries that keep, per owner, a level
 * per byte of the first MBYTES, and refuse what another owner's levels
 * conflict with. Owner slot 0 is another server's client.
 */
#define MBYTES 128
#define MOWNERS 8
#define FOREIGN 0x5eull

static struct vfs_backend model_be;
static struct {
	uint64_t owner[MOWNERS];
	uint8_t lv[MOWNERS][MBYTES]; /* enum vfs_lock_type */
	int calls, releases, fail;
} mdl;

static int mdl_slot(uint64_t owner)
{
	int i;

	for (i = 0; i < MOWNERS; i++)
		if (mdl.owner[i] == owner)
			return i;
	for (i = 1; i < MOWNERS; i++)
		if (!mdl.owner[i]) {
			mdl.owner[i] = owner;
			return i;
		}
	fail_msg("model: out of owner slots");
	return -1;
}

static uint64_t mdl_last(uint64_t end)
{
	return end >= MBYTES ? MBYTES - 1 : end;
}

/* The first byte of [start, end] where @slot's @type conflicts. */
static int mdl_conflict(int slot, uint64_t start, uint64_t end, bool excl,
			struct vfs_lock_conflict *c)
{
	for (uint64_t b = start; b <= mdl_last(end); b++)
		for (int i = 0; i < MOWNERS; i++) {
			if (i == slot || !mdl.lv[i][b] ||
			    !(excl || mdl.lv[i][b] == VFS_LOCK_EXCL))
				continue;
			if (c) {
				c->start = b;
				c->end = b;
				c->excl = mdl.lv[i][b] == VFS_LOCK_EXCL;
			}
			return -EAGAIN;
		}
	return 0;
}

static int mdl_set(struct vfs_obj *o, uint64_t owner, uint64_t start,
		   uint64_t end, enum vfs_lock_type type)
{
	int slot = mdl_slot(owner);

	(void)o;
	mdl.calls++;
	if (mdl.fail)
		return -EIO;
	if (type != VFS_LOCK_UNLOCK &&
	    mdl_conflict(slot, start, end, type == VFS_LOCK_EXCL, NULL))
		return -EAGAIN;
	for (uint64_t b = start; b <= mdl_last(end); b++)
		mdl.lv[slot][b] = (uint8_t)type;
	return 0;
}

static int mdl_test(struct vfs_obj *o, uint64_t owner, uint64_t start,
		    uint64_t end, bool excl, struct vfs_lock_conflict *c)
{
	(void)o;
	mdl.calls++;
	if (mdl.fail)
		return -EIO;
	return mdl_conflict(mdl_slot(owner), start, end, excl, c);
}

static void mdl_release(struct vfs_obj *o)
{
	(void)o;
	mdl.releases++;
	for (int i = 1; i < MOWNERS; i++)
		memset(mdl.lv[i], 0, MBYTES);
}

/* The levels of @h's owner over [s, e] as a string: '.', 's', 'x'. */
static const char *mdl_levels(const struct state_holder *h, uint64_t s,
			      uint64_t e)
{
	static char buf[MBYTES + 1];
	uint64_t owner = (uint64_t)(uintptr_t)h->id ^ ((uint64_t)h->tag << 56);
	int slot = mdl_slot(owner), n = 0;

	for (uint64_t b = s; b <= e; b++)
		buf[n++] = ".sx"[mdl.lv[slot][b]];
	buf[n] = 0;
	return buf;
}

static void test_shared_backend_locks(void **state)
{
	const struct vfs_backend *saved = vex->be;
	struct state_file *f;
	struct state_range r;
	struct seen sn = {0};

	(void)state;
	memset(&mdl, 0, sizeof(mdl));
	mdl.owner[0] = FOREIGN;
	model_be = *saved;
	model_be.version = 2;
	model_be.caps |= VFS_CAP_LOCKS | VFS_CAP_REMOTE;
	model_be.lock_set = mdl_set;
	model_be.lock_test = mdl_test;
	model_be.lock_release = mdl_release;
	vex->be = &model_be;
	assert_true(vfs_locks_shared(objs[3]));
	f = state_file_get(objs[3]);
	assert_non_null(f);

	/* others change the file unseen: no caching grant of any kind */
	assert_int_equal(state_grant_may(f, &WA, STATE_GRANT_LEASE, &A_,
					 STATE_GRANT_MASK), 0);
	assert_int_equal(state_grant_may(f, &PA, STATE_GRANT_DELEG, &A_,
					 STATE_GRANT_R), 0);
	assert_null(state_grant_add(f, &WA, STATE_GRANT_OPLOCK, NULL,
				    STATE_GRANT_R, &brk_ops, NULL, 1000));

	/* POSIX: mirrored as set, split by an unlock */
	r = rng(10, 19);
	assert_int_equal(state_lock(f, &PA, &r, true, NULL, NULL), 0);
	assert_string_equal(mdl_levels(&PA, 8, 21), "..xxxxxxxxxx..");
	r = rng(12, 13);
	assert_int_equal(state_unlock(f, &PA, &r), 0);
	assert_string_equal(mdl_levels(&PA, 8, 21), "..xx..xxxxxx..");
	/* a conflict between our own holders is decided here, unsent */
	mdl.calls = 0;
	r = rng(15, 16);
	assert_int_equal(state_lock(f, &PB, &r, false, NULL, NULL), -EAGAIN);
	assert_int_equal(mdl.calls, 0);
	/* another server's lock: refused, reported without a holder,
	 * nothing changed on either side */
	for (int b = 30; b <= 39; b++)
		mdl.lv[0][b] = VFS_LOCK_EXCL;
	r = rng(25, 35);
	assert_int_equal(state_lock(f, &PA, &r, false, seen_cb, &sn), -EAGAIN);
	assert_int_equal(sn.calls, 1);
	assert_null(sn.info.holder.id);
	assert_int_equal(sn.info.holder.tag, 0);
	assert_int_equal(sn.info.range.start, 30);
	assert_true(sn.info.excl);
	assert_int_equal(state_lock_count(f, &PA), 2);
	assert_string_equal(mdl_levels(&PA, 24, 36), ".............");
	assert_int_equal(state_lock_test(f, NULL, &r, false, NULL, NULL),
			 -EAGAIN);
	r = rng(40, 49);
	assert_int_equal(state_lock_test(f, NULL, &r, true, NULL, NULL), 0);
	/* the backend failing: "ask again", nothing changed */
	mdl.fail = 1;
	assert_int_equal(state_lock(f, &PA, &r, true, NULL, NULL),
			 -EINPROGRESS);
	assert_int_equal(state_lock_test(f, &PA, &r, true, NULL, NULL),
			 -EINPROGRESS);
	mdl.fail = 0;
	assert_int_equal(state_lock_count(f, &PA), 2);

	/* Windows: stacked records mirrored as their union */
	r = rng(50, 59);
	assert_int_equal(state_lock(f, &WA, &r, false, NULL, NULL), 0);
	r = rng(55, 64);
	assert_int_equal(state_lock(f, &WA, &r, false, NULL, NULL), 0);
	r = rng(70, 79);
	assert_int_equal(state_lock(f, &WA, &r, true, NULL, NULL), 0);
	r = rng(75, 84);
	assert_int_equal(state_lock(f, &WA, &r, false, NULL, NULL), 0);
	assert_string_equal(mdl_levels(&WA, 49, 85),
			    ".sssssssssssssss.....xxxxxxxxxxsssss.");
	r = rng(70, 79);
	assert_int_equal(state_unlock(f, &WA, &r), 0);
	assert_string_equal(mdl_levels(&WA, 69, 85), "......ssssssssss.");
	r = rng(50, 59);
	assert_int_equal(state_unlock(f, &WA, &r), 0);
	assert_string_equal(mdl_levels(&WA, 49, 65), "......ssssssssss.");
	/* a shared record over several runs that another server's lock
	 * stops half way: the runs set before are taken back */
	mdl.lv[0][88] = VFS_LOCK_EXCL;
	r = rng(60, 90);
	assert_int_equal(state_lock(f, &WA, &r, false, NULL, NULL), -EAGAIN);
	assert_string_equal(mdl_levels(&WA, 54, 91),
			    ".ssssssssss..........ssssssssss.......");
	/* a zero-length record holds no byte: not mirrored */
	mdl.calls = 0;
	r = zero(100);
	assert_int_equal(state_lock(f, &WA, &r, true, NULL, NULL), 0);
	assert_int_equal(mdl.calls, 0);

	/* holders going: their bytes go; the last lock lets the backend go */
	assert_true(state_unlock_all(f, &WA) == 3);
	assert_string_equal(mdl_levels(&WA, 54, 86),
			    ".................................");
	assert_int_equal(mdl.releases, 0);
	assert_true(state_unlock_all(f, &PA) == 2);
	assert_int_equal(mdl.releases, 1);
	state_file_put(f);
	vex->be = saved;
	expect_clean();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_share_matrix),
		cmocka_unit_test(test_share_calls),
		cmocka_unit_test(test_lapsed_holders),
		cmocka_unit_test(test_delete_check),
		cmocka_unit_test(test_posix_merge_split),
		cmocka_unit_test(test_posix_conflicts),
		cmocka_unit_test(test_win_stacking),
		cmocka_unit_test(test_win_unlock_exact),
		cmocka_unit_test(test_win_zero_length),
		cmocka_unit_test(test_cross_flavor),
		cmocka_unit_test(test_io_checks),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_lifetime),
		cmocka_unit_test(test_shared_backend_locks),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_grant_oplock_open),
		cmocka_unit_test(test_grant_oplock_rules),
		cmocka_unit_test(test_grant_timeout),
		cmocka_unit_test(test_grant_deleg),
		cmocka_unit_test(test_grant_getattr),
		cmocka_unit_test(test_grant_lifetime),
	};
	char cmd[300];
	int ret, i;

	if (vfs_setup() < 0) {
		fprintf(stderr, "test_state: no vfs export (needs root): "
				"skipped\n");
		return 77;
	}
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	for (i = 0; i < NOBJS; i++)
		vfs_obj_put(objs[i]);
	vfs_obj_put(root);
	vfs_export_close(vex);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", vdir);
	if (system(cmd) != 0)
		ret = 1;
	return ret;
}
