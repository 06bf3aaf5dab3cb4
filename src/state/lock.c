// SPDX-License-Identifier: MIT
/*
 * Byte-range locks of both flavors on one list per file, sorted by start.
 *
 * POSIX (NFSv4 RFC 8881 §9.4, RFC 7530 §9.4; NLM): each holder keeps
 * non-overlapping ranges, and its adjacent or overlapping ranges of the
 * same type merge. Setting a range replaces what the holder had there
 * (upgrades and downgrades split ranges); clearing one may split a range
 * in two. POSIX locks are advisory for I/O.
 *
 * Windows (MS-FSA 2.1.5.8, 2.1.5.9, 2.1.4.10): every lock is a record of
 * its own; a holder may lock the same bytes several times (shared over
 * shared or over its own exclusive lock, never exclusive over anything
 * of its own), zero-length ranges are legal, an unlock names exactly one
 * record. Windows locks are mandatory for I/O.
 *
 * Between holders, whatever their flavors, two locks over common bytes
 * conflict when either is exclusive.
 *
 * Every change is computed and allocated first, and the global range
 * bound is reserved first, so a failure (-ENOMEM, -ENOSPC) leaves the
 * list unchanged. Under the entry's mutex (file.c).
 *
 * Locks other servers see (vfs_locks_shared: CephFS, whose gateways share
 * one namespace): this list stays the judge between nasd's own holders,
 * and each holder's locks are mirrored to the backend under an owner
 * number of its own, so that the backend answers for other servers'
 * clients. A lock is set there before here (a conflict there leaves both
 * unchanged) and given back there if it then fails here; an unlock
 * changes here first, then the backend to what the holder still holds
 * over the range. A Windows holder's stacked records are mirrored as
 * their union, byte by byte (exclusive where any of them is); POSIX
 * ranges are mirrored as they are, since the backend's owners have the
 * same semantics. Zero-length ranges hold no byte and are not mirrored.
 * The backend's calls may block: such exports are served on workers, and
 * the entry's mutex is held across them so that both sides change in
 * the same order. When the file's last lock goes, the backend lets go of
 * what it kept for them (vfs_lock_release).
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "state/file_state_int.h"
#include "vfs/vfs.h"

/* Windows-flavored tags (the rest are POSIX). */
static const bool tag_windows[STATE_HOLDER_NTAGS] = {
	[STATE_HOLDER_SMB] = true,
};

static bool tag_valid(uint32_t tag)
{
	return tag >= STATE_HOLDER_NFS4 && tag < STATE_HOLDER_NTAGS;
}

/** state_range_nfs() - see file_state.h. */
int state_range_nfs(uint64_t off, uint64_t len, struct state_range *r)
{
	if (len == 0)
		return -EINVAL;
	r->start = off;
	r->empty = false;
	if (len == UINT64_MAX) {
		r->end = UINT64_MAX;
		return 0;
	}
	if (len > ~off) /* off + len would exceed 2^64 - 1 */
		return -EINVAL;
	r->end = off + len - 1;
	return 0;
}

/** state_range_win() - see file_state.h. */
int state_range_win(uint64_t off, uint64_t len, struct state_range *r)
{
	r->start = off;
	r->empty = len == 0;
	r->end = off;
	if (len == 0)
		return 0;
	if (len - 1 > UINT64_MAX - off) /* the last byte is past 2^64 - 1 */
		return -EINVAL;
	r->end = off + (len - 1);
	return 0;
}

/** state_range_io() - see file_state.h. */
void state_range_io(uint64_t off, uint64_t len, struct state_range *r)
{
	r->start = off;
	r->empty = len == 0;
	r->end = off;
	if (len == 0)
		return;
	r->end = len - 1 > UINT64_MAX - off ? UINT64_MAX : off + (len - 1);
}

/** state_range_len() - see file_state.h. */
uint64_t state_range_len(const struct state_range *r)
{
	if (r->empty)
		return 0;
	if (r->end == UINT64_MAX)
		return UINT64_MAX;
	return r->end - r->start + 1;
}

/*
 * The last byte of @r for overlap tests: a zero-length range at X ends at
 * X - 1 (MS-FSA 2.1.4.10). False for the empty range at 0, which
 * overlaps nothing.
 */
static bool range_last(const struct state_range *r, uint64_t *last)
{
	if (!r->empty) {
		*last = r->end;
		return true;
	}
	if (r->start == 0)
		return false;
	*last = r->start - 1;
	return true;
}

static bool overlaps(const struct state_range *a, const struct state_range *b)
{
	uint64_t la, lb;

	if (!range_last(a, &la) || !range_last(b, &lb))
		return false;
	return a->start <= lb && b->start <= la;
}

/* POSIX merging: @a and @b overlap or are adjacent (never empty). */
static bool touches(const struct state_range *a, const struct state_range *b)
{
	if (overlaps(a, b))
		return true;
	if (a->end != UINT64_MAX && a->end + 1 == b->start)
		return true;
	return b->end != UINT64_MAX && b->end + 1 == a->start;
}

static bool holder_eq(const struct state_holder *a,
		      const struct state_holder *b)
{
	return b && a->id == b->id && a->tag == b->tag;
}

static struct state_lock *lock_of(struct state_link *n)
{
	return state_container_of(n, struct state_lock, link);
}

/*
 * Does a lock request (@h, @r, @excl, @win) conflict with @l? Another
 * holder's lock: when either is exclusive. The holder's own: never for
 * POSIX (the new lock replaces it); for Windows when the new one is
 * exclusive (MS-FSA 2.1.4.10: overlapping exclusive locks are refused
 * even to their owner, and a shared lock blocks any exclusive intent).
 */
static bool lock_conflicts(const struct state_lock *l,
			   const struct state_holder *h,
			   const struct state_range *r, bool excl, bool win)
{
	if (!overlaps(&l->range, r))
		return false;
	if (!holder_eq(&l->holder, h))
		return excl || l->excl;
	return win && excl;
}

/*
 * The first lock of @f that conflicts with the request, or NULL. The list
 * is sorted by start: nothing starting past the request's last byte can
 * overlap it.
 */
static struct state_lock *find_conflict(struct state_file *f,
					const struct state_holder *h,
					const struct state_range *r, bool excl,
					bool win)
{
	struct state_link *n;
	uint64_t last;

	if (!range_last(r, &last))
		return NULL;
	for (n = f->locks.next; n != &f->locks; n = n->next) {
		struct state_lock *l = lock_of(n);

		if (l->range.start > last)
			break;
		if (lock_conflicts(l, h, r, excl, win))
			return l;
	}
	return NULL;
}

/*
 * The error of a request in conflict with @c, the first conflicting lock:
 * -EINPROGRESS when it and every later conflict are lapsed holders'
 * (state_set_lapsed), else -EAGAIN.
 */
static int conflict_err(struct state_file *f, struct state_lock *c,
			const struct state_holder *h,
			const struct state_range *r, bool excl, bool win)
{
	struct state_link *n;
	uint64_t last;

	if (!range_last(r, &last))
		return -EAGAIN;
	for (n = &c->link; n != &f->locks; n = n->next) {
		const struct state_lock *l = lock_of(n);

		if (l->range.start > last)
			break;
		if (lock_conflicts(l, h, r, excl, win) &&
		    !state_holder_lapsed(&l->holder))
			return -EAGAIN;
	}
	return -EINPROGRESS;
}

static void report(const struct state_lock *l, state_conflict_fn cb, void *arg)
{
	struct state_lock_info info;

	if (!cb)
		return;
	info.holder = l->holder;
	info.range = l->range;
	info.excl = l->excl;
	cb(arg, &info);
}

/* Reserve @n more ranges under the global bound. */
static int ranges_reserve(int n)
{
	unsigned int old;

	if (n <= 0)
		return 0;
	old = atomic_fetch_add(&state_g_ranges, (unsigned int)n);
	if (old + (unsigned int)n > atomic_load(&state_g_max_ranges)) {
		atomic_fetch_sub(&state_g_ranges, (unsigned int)n);
		return -ENOSPC;
	}
	return 0;
}

/* After a change of @delta ranges whose growth was reserved: the rest. */
static void ranges_settle(int delta)
{
	if (delta < 0)
		atomic_fetch_sub(&state_g_ranges, (unsigned int)-delta);
}

/*
 * The records a change may need, allocated before it starts: a set makes
 * the new range and keeps at most one piece sticking out on each side, a
 * clear at most the two pieces. Those left unused are freed at the end.
 */
#define SET_RECORDS   3
#define CLEAR_RECORDS 2

static int alloc_locks(struct state_lock **v, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		v[i] = calloc(1, sizeof(*v[i]));
		if (!v[i]) {
			while (i--)
				free(v[i]);
			return -ENOMEM;
		}
	}
	return 0;
}

static void free_unused(struct state_lock **v, int used, int n)
{
	while (used < n)
		free(v[used++]);
}

/* Fill the next of the @n preallocated records of @v. */
static struct state_lock *piece(struct state_lock **v, int n, int *used,
				const struct state_holder *h, uint64_t s,
				uint64_t e, bool excl, bool win)
{
	struct state_lock *l;

	/* one range sticks out on each side at most: never more than n */
	assert(*used < n);
	l = v[(*used)++];

	l->holder = *h;
	l->range.start = s;
	l->range.end = e;
	l->range.empty = false;
	l->excl = excl;
	l->win = win;
	return l;
}

/* Insert @nl after every lock starting at or before it (stable). */
static void insert_sorted(struct state_file *f, struct state_lock *nl)
{
	struct state_link *n;

	for (n = f->locks.next; n != &f->locks; n = n->next)
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): file_state_int.h */
		if (lock_of(n)->range.start > nl->range.start)
			break;
	/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): file_state_int.h */
	state_link_add_before(n, &nl->link);
	f->nlocks++;
	if (nl->win) {
		f->nwin++;
		atomic_fetch_add(&state_g_win_ranges, 1);
	}
}

static void remove_lock(struct state_file *f, struct state_lock *l)
{
	state_link_del(&l->link);
	f->nlocks--;
	if (l->win) {
		f->nwin--;
		atomic_fetch_sub(&state_g_win_ranges, 1);
	}
	free(l);
}

/* ---- mirroring to a backend other servers share (see the file comment) */

/* @h's owner number in the backend: unique among live holders (user
 * addresses stay below 2^56, tags are small); 0 is no holder's. */
static uint64_t remote_owner(const struct state_holder *h)
{
	if (!h)
		return 0;
	return (uint64_t)(uintptr_t)h->id ^ ((uint64_t)h->tag << 56);
}

/*
 * What @h holds of @f at byte @pos: VFS_LOCK_UNLOCK, _SHARED or _EXCL,
 * the strongest of its records over @pos; *@run_end is the last byte up
 * to @last over which that stays so.
 */
static enum vfs_lock_type held_run(struct state_file *f,
				   const struct state_holder *h, uint64_t pos,
				   uint64_t last, uint64_t *run_end)
{
	enum vfs_lock_type type = VFS_LOCK_UNLOCK;
	struct state_link *n;
	uint64_t end = last;

	for (n = f->locks.next; n != &f->locks; n = n->next) {
		/* clang-analyzer cannot tell that a removed and freed lock
		 * is off the list (as nfs4/state/state_int.h says) */
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc) */
		const struct state_lock *l = lock_of(n);

		if (l->range.empty || !holder_eq(&l->holder, h))
			continue;
		if (l->range.start > pos) {
			/* sorted by start: later ones start later still */
			if (l->range.start - 1 < end)
				end = l->range.start - 1;
			break;
		}
		if (l->range.end < pos)
			continue;
		if (l->range.end < end)
			end = l->range.end;
		if (l->excl)
			type = VFS_LOCK_EXCL;
		else if (type == VFS_LOCK_UNLOCK)
			type = VFS_LOCK_SHARED;
	}
	*run_end = end;
	return type;
}

/* The backend failed otherwise than by a conflict: "ask again shortly"
 * (the callers' -EINPROGRESS: DELAY, a blocked lock's wait). */
static int remote_err(int err, const char *what)
{
	if (err == -EAGAIN)
		return err;
	log_warn("state: %s of a byte-range lock failed in the backend: %s",
		 what, strerror(-err));
	return -EINPROGRESS;
}

/*
 * Make the backend hold over @r what @h holds here (after an unlock, or
 * to take back a set that failed here). These only ever lower the
 * backend's locks, so they cannot conflict; failures are logged.
 */
static void remote_sync(struct state_file *f, const struct state_holder *h,
			const struct state_range *r)
{
	uint64_t pos = r->start, end;

	if (!f->remote || !f->remote_used || r->empty)
		return;
	for (;;) {
		enum vfs_lock_type t = held_run(f, h, pos, r->end, &end);
		int err = vfs_lock_set(f->obj, remote_owner(h), pos, end, t);

		if (err < 0)
			(void)remote_err(err, "an unlock");
		if (end == r->end)
			break;
		pos = end + 1;
	}
}

/* @h holds nothing here any more: nor in the backend. */
static void remote_drop(struct state_file *f, const struct state_holder *h)
{
	int err;

	if (!f->remote || !f->remote_used)
		return;
	err = vfs_lock_set(f->obj, remote_owner(h), 0, UINT64_MAX,
			   VFS_LOCK_UNLOCK);
	if (err < 0)
		(void)remote_err(err, "an unlock");
}

/*
 * Would another server's lock conflict with @h's over @r? 0; -EAGAIN,
 * reported through @cb (no holder of ours to name); -EINPROGRESS when
 * the backend failed.
 */
static int remote_test(struct state_file *f, const struct state_holder *h,
		       const struct state_range *r, bool excl,
		       state_conflict_fn cb, void *arg)
{
	struct vfs_lock_conflict c;
	struct state_lock_info info = {0};
	int err;

	err = vfs_lock_test(f->obj, remote_owner(h), r->start, r->end, excl,
			    &c);
	if (err == -EAGAIN && cb) {
		info.range.start = c.start;
		info.range.end = c.end;
		info.excl = c.excl;
		cb(arg, &info);
	}
	return err < 0 ? remote_err(err, "a test") : 0;
}

/*
 * Before @h gets @r here: the backend's lock, set. 0 (also when nothing
 * is mirrored), -EAGAIN on another server's conflict (reported),
 * -EINPROGRESS when the backend failed; the backend is unchanged then.
 */
static int remote_set(struct state_file *f, const struct state_holder *h,
		      const struct state_range *r, bool excl, bool win,
		      state_conflict_fn cb, void *arg)
{
	uint64_t owner = remote_owner(h), pos = r->start, end;
	int err = 0;

	if (!f->remote || r->empty)
		return 0;
	f->remote_used = true;
	if (!win || excl) {
		/* POSIX: the range becomes this type; Windows: an exclusive
		 * lock overlaps nothing of its holder's */
		err = vfs_lock_set(f->obj, owner, r->start, r->end,
				   excl ? VFS_LOCK_EXCL : VFS_LOCK_SHARED);
	} else {
		/* a shared Windows record: shared where not yet exclusive */
		for (;;) {
			if (held_run(f, h, pos, r->end, &end) != VFS_LOCK_EXCL)
				err = vfs_lock_set(f->obj, owner, pos, end,
						   VFS_LOCK_SHARED);
			if (err < 0 || end == r->end)
				break;
			pos = end + 1;
		}
		if (err < 0 && pos != r->start)
			remote_sync(f, h, r); /* the runs set before */
	}
	if (err == 0)
		return 0;
	err = remote_err(err, "a set");
	if (err == -EAGAIN && cb)
		(void)remote_test(f, h, r, excl, cb, arg); /* to report it */
	return err;
}

/* After a change that may have left @f without locks. */
static void remote_settle(struct state_file *f)
{
	if (f->remote_used && f->nlocks == 0) {
		vfs_lock_release(f->obj);
		f->remote_used = false;
	}
}

/* POSIX set (see the file comment); @f->mu held, no conflict. */
static int posix_set(struct state_file *f, const struct state_holder *h,
		     const struct state_range *r, bool excl)
{
	struct state_lock *v[SET_RECORDS], *keep[2];
	struct state_link *n, *next;
	uint64_t ns = r->start, ne = r->end;
	int removed = 0, pieces = 0, used = 0, nkeep = 0, delta, i, ret;

	for (n = f->locks.next; n != &f->locks; n = n->next) {
		struct state_lock *l = lock_of(n);

		if (!holder_eq(&l->holder, h))
			continue;
		if (l->excl == excl && touches(&l->range, r)) {
			removed++;
		} else if (overlaps(&l->range, r)) {
			removed++;
			pieces += (l->range.start < r->start) +
				  (l->range.end > r->end);
		}
	}
	delta = 1 + pieces - removed;
	ret = ranges_reserve(delta);
	if (ret < 0)
		return ret;
	ret = alloc_locks(v, SET_RECORDS);
	if (ret < 0) {
		ranges_settle(delta > 0 ? -delta : 0);
		return ret;
	}
	for (n = f->locks.next; n != &f->locks; n = next) {
		struct state_lock *l = lock_of(n);

		next = n->next;
		if (!holder_eq(&l->holder, h))
			continue;
		if (l->excl == excl && touches(&l->range, r)) {
			if (l->range.start < ns)
				ns = l->range.start;
			if (l->range.end > ne)
				ne = l->range.end;
		} else if (overlaps(&l->range, r)) {
			/* only one range can stick out on each side */
			if (l->range.start < r->start)
				keep[nkeep++] =
					piece(v, SET_RECORDS, &used, h,
					      l->range.start, r->start - 1,
					      l->excl, false);
			if (l->range.end > r->end)
				keep[nkeep++] = piece(v, SET_RECORDS, &used, h,
						      r->end + 1, l->range.end,
						      l->excl, false);
		} else {
			continue;
		}
		remove_lock(f, l);
	}
	insert_sorted(f, piece(v, SET_RECORDS, &used, h, ns, ne, excl, false));
	for (i = 0; i < nkeep; i++)
		insert_sorted(f, keep[i]);
	free_unused(v, used, SET_RECORDS);
	ranges_settle(delta);
	return 0;
}

/* Windows set: one more record. */
static int win_set(struct state_file *f, const struct state_holder *h,
		   const struct state_range *r, bool excl)
{
	struct state_lock *l;
	int ret;

	ret = ranges_reserve(1);
	if (ret < 0)
		return ret;
	l = calloc(1, sizeof(*l));
	if (!l) {
		ranges_settle(-1);
		return -ENOMEM;
	}
	l->holder = *h;
	l->range = *r;
	l->excl = excl;
	l->win = true;
	insert_sorted(f, l);
	return 0;
}

/** state_lock() - see file_state.h. */
int state_lock(struct state_file *f, const struct state_holder *h,
	       const struct state_range *r, bool excl, state_conflict_fn cb,
	       void *arg)
{
	struct state_lock *c;
	bool win;
	int ret;

	if (!tag_valid(h->tag))
		return -EINVAL;
	win = tag_windows[h->tag];
	if (!win && r->empty)
		return -EINVAL;
	pthread_mutex_lock(&f->mu);
	c = find_conflict(f, h, r, excl, win);
	if (c) {
		ret = conflict_err(f, c, h, r, excl, win);
		if (ret == -EAGAIN)
			report(c, cb, arg);
	} else {
		ret = remote_set(f, h, r, excl, win, cb, arg);
		if (ret == 0) {
			ret = win ? win_set(f, h, r, excl)
				  : posix_set(f, h, r, excl);
			if (ret < 0)
				remote_sync(f, h, r);
		}
	}
	remote_settle(f);
	state_file_settle(f);
	pthread_mutex_unlock(&f->mu);
	return ret;
}

/** state_lock_test() - see file_state.h. */
int state_lock_test(struct state_file *f, const struct state_holder *h,
		    const struct state_range *r, bool excl,
		    state_conflict_fn cb, void *arg)
{
	struct state_lock *c;
	bool win = false;
	int ret = 0;

	if (h && !tag_valid(h->tag))
		return -EINVAL;
	if (h)
		win = tag_windows[h->tag];
	pthread_mutex_lock(&f->mu);
	c = find_conflict(f, h, r, excl, win);
	if (c) {
		ret = conflict_err(f, c, h, r, excl, win);
		if (ret == -EAGAIN)
			report(c, cb, arg);
	} else if (f->remote && !r->empty) {
		ret = remote_test(f, h, r, excl, cb, arg);
	}
	pthread_mutex_unlock(&f->mu);
	return ret;
}

/* POSIX clear (see the file comment); @f->mu held. */
static int posix_clear(struct state_file *f, const struct state_holder *h,
		       const struct state_range *r)
{
	struct state_lock *v[CLEAR_RECORDS], *keep[2];
	struct state_link *n, *next;
	int removed = 0, pieces = 0, used = 0, nkeep = 0, delta, i, ret;

	for (n = f->locks.next; n != &f->locks; n = n->next) {
		struct state_lock *l = lock_of(n);

		if (holder_eq(&l->holder, h) && overlaps(&l->range, r)) {
			removed++;
			pieces += (l->range.start < r->start) +
				  (l->range.end > r->end);
		}
	}
	if (removed == 0)
		return 0;
	delta = pieces - removed;
	ret = ranges_reserve(delta);
	if (ret < 0)
		return ret;
	ret = alloc_locks(v, CLEAR_RECORDS);
	if (ret < 0) {
		ranges_settle(delta > 0 ? -delta : 0);
		return ret;
	}
	for (n = f->locks.next; n != &f->locks; n = next) {
		struct state_lock *l = lock_of(n);

		next = n->next;
		if (!holder_eq(&l->holder, h) || !overlaps(&l->range, r))
			continue;
		if (l->range.start < r->start)
			keep[nkeep++] = piece(v, CLEAR_RECORDS, &used, h,
					      l->range.start, r->start - 1,
					      l->excl, false);
		if (l->range.end > r->end)
			keep[nkeep++] =
				piece(v, CLEAR_RECORDS, &used, h, r->end + 1,
				      l->range.end, l->excl, false);
		remove_lock(f, l);
	}
	for (i = 0; i < nkeep; i++)
		insert_sorted(f, keep[i]);
	free_unused(v, used, CLEAR_RECORDS);
	ranges_settle(delta);
	return 0;
}

static bool same_range(const struct state_range *a, const struct state_range *b)
{
	if (a->start != b->start || a->empty != b->empty)
		return false;
	return a->empty || a->end == b->end;
}

/* Windows unlock (MS-FSA 2.1.5.9): the exact record, exclusive first. */
static int win_clear(struct state_file *f, const struct state_holder *h,
		     const struct state_range *r)
{
	struct state_lock *found = NULL;
	struct state_link *n;

	for (n = f->locks.next; n != &f->locks; n = n->next) {
		struct state_lock *l = lock_of(n);

		if (!holder_eq(&l->holder, h) || !same_range(&l->range, r))
			continue;
		found = l;
		if (l->excl)
			break;
	}
	if (!found)
		return -ENOENT;
	remove_lock(f, found);
	ranges_settle(-1);
	return 0;
}

/** state_unlock() - see file_state.h. */
int state_unlock(struct state_file *f, const struct state_holder *h,
		 const struct state_range *r)
{
	int ret;

	if (!tag_valid(h->tag))
		return -EINVAL;
	pthread_mutex_lock(&f->mu);
	if (tag_windows[h->tag])
		ret = win_clear(f, h, r);
	else if (r->empty)
		ret = 0; /* a POSIX holder has no empty ranges */
	else
		ret = posix_clear(f, h, r);
	if (ret == 0)
		remote_sync(f, h, r);
	remote_settle(f);
	state_file_settle(f);
	pthread_mutex_unlock(&f->mu);
	return ret;
}

/** state_unlock_all() - see file_state.h. */
uint32_t state_unlock_all(struct state_file *f, const struct state_holder *h)
{
	struct state_link *n, *next;
	uint32_t count = 0;

	pthread_mutex_lock(&f->mu);
	for (n = f->locks.next; n != &f->locks; n = next) {
		struct state_lock *l = lock_of(n);

		next = n->next;
		if (!holder_eq(&l->holder, h))
			continue;
		remove_lock(f, l);
		count++;
	}
	/* @h holds nothing now; while other holders' locks stay (else
	 * all go in remote_settle) */
	if (count && f->nlocks > 0)
		remote_drop(f, h);
	ranges_settle(-(int)count);
	remote_settle(f);
	state_file_settle(f);
	pthread_mutex_unlock(&f->mu);
	return count;
}

/** state_lock_count() - see file_state.h. */
uint32_t state_lock_count(struct state_file *f, const struct state_holder *h)
{
	struct state_link *n;
	uint32_t count = 0;

	pthread_mutex_lock(&f->mu);
	for (n = f->locks.next; n != &f->locks; n = n->next)
		if (holder_eq(&lock_of(n)->holder, h))
			count++;
	pthread_mutex_unlock(&f->mu);
	return count;
}

/*
 * Does I/O by @h over @r conflict with @l (MS-FSA 2.1.4.10 without lock
 * intent)? Only Windows locks count: an exclusive one refuses other
 * holders' reads and writes, a shared one refuses every write.
 */
static bool io_conflicts(const struct state_lock *l,
			 const struct state_holder *h,
			 const struct state_range *r, bool write)
{
	if (!l->win || !overlaps(&l->range, r))
		return false;
	if (l->excl)
		return !holder_eq(&l->holder, h);
	return write;
}

/** state_check_io() - see file_state.h. */
int state_check_io(struct state_file *f, const struct state_holder *h,
		   bool write, const struct state_range *r)
{
	struct state_link *n;
	uint64_t last;
	int ret = 0;

	/* NFS alone never has a mandatory lock: no lock on the I/O path */
	if (atomic_load(&state_g_win_ranges) == 0)
		return 0;
	if (r->empty || !range_last(r, &last))
		return 0;
	pthread_mutex_lock(&f->mu);
	for (n = f->locks.next; f->nwin && n != &f->locks; n = n->next) {
		const struct state_lock *l = lock_of(n);

		if (l->range.start > last)
			break;
		if (io_conflicts(l, h, r, write)) {
			ret = -EAGAIN;
			break;
		}
	}
	pthread_mutex_unlock(&f->mu);
	return ret;
}

/** state_check_io_obj() - see file_state.h. */
int state_check_io_obj(struct vfs_obj *obj, const struct state_holder *h,
		       bool write, const struct state_range *r)
{
	struct state_file *f;
	int ret;

	if (atomic_load(&state_g_win_ranges) == 0)
		return 0;
	f = state_file_find(obj);
	if (!f)
		return 0;
	ret = state_check_io(f, h, write, r);
	state_file_put(f);
	return ret;
}
