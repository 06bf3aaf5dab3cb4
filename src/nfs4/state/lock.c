// SPDX-License-Identifier: MIT
/*
 * Byte-range lock arithmetic with POSIX semantics (RFC 8881 §9.4, RFC 7530
 * §9.4): per file one list of ranges sorted by start; each holder (a lock
 * stateid: one lock owner on one file) keeps non-overlapping ranges, and
 * adjacent or overlapping ranges of the same type merge. Setting a range
 * replaces what the holder had there (upgrade/downgrade split ranges);
 * clearing one may split a range in two. Read locks of different holders
 * share, a write lock conflicts with any other holder's lock.
 *
 * Every change is computed first and allocated up front, so a failure
 * (-ENOMEM, or -ENOSPC at the range limit) leaves the list unchanged.
 */
#include <errno.h>
#include <stdlib.h>

#include "nfs4/state/state_int.h"

/** nfs4_lock_range_end() - see state_int.h (RFC 7530 §16.10.4). */
int nfs4_lock_range_end(uint64_t off, uint64_t len, uint64_t *end)
{
	if (len == 0)
		return -EINVAL;
	if (len == UINT64_MAX) {
		*end = UINT64_MAX;
		return 0;
	}
	if (len > ~off) /* off + len would exceed 2^64 - 1 */
		return -EINVAL;
	*end = off + len - 1;
	return 0;
}

/** nfs4_lock_len() - the length4 of [@start, @end] (all ones to EOF). */
uint64_t nfs4_lock_len(uint64_t start, uint64_t end)
{
	if (end == UINT64_MAX)
		return UINT64_MAX;
	return end - start + 1;
}

static bool overlaps(const struct nfs4_lock_range *r, uint64_t s, uint64_t e)
{
	return r->start <= e && s <= r->end;
}

static bool touches(const struct nfs4_lock_range *r, uint64_t s, uint64_t e)
{
	if (overlaps(r, s, e))
		return true;
	if (r->end != UINT64_MAX && r->end + 1 == s)
		return true;
	return e != UINT64_MAX && e + 1 == r->start;
}

static bool is_write(uint32_t type)
{
	return type == WRITE_LT || type == WRITEW_LT;
}

/** nfs4_lock_conflict() - see state_int.h. */
const struct nfs4_lock_range *nfs4_lock_conflict(const struct nfs4_list *l,
						 const void *holder,
						 uint64_t start, uint64_t end,
						 uint32_t type)
{
	const struct nfs4_list *n;

	for (n = l->next; n != l; n = n->next) {
		const struct nfs4_lock_range *r =
			nfs4_container_of(n, struct nfs4_lock_range, link);

		if (r->start > end)
			break;
		if (holder && r->holder == holder)
			continue;
		if (overlaps(r, start, end) &&
		    (is_write(type) || is_write(r->type)))
			return r;
	}
	return NULL;
}

static void insert_sorted(struct nfs4_list *l, struct nfs4_lock_range *nr)
{
	struct nfs4_list *n;

	for (n = l->next; n != l; n = n->next) {
		struct nfs4_lock_range *r =
			nfs4_container_of(n, struct nfs4_lock_range, link);

		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): state_int.h */
		if (r->start > nr->start)
			break;
	}
	nfs4_list_add_before(n, &nr->link);
}

static int alloc_ranges(struct nfs4_lock_range **v, int n)
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

static struct nfs4_lock_range *piece(struct nfs4_lock_range **v, int *used,
				     const void *holder, uint64_t s,
				     uint64_t e, uint32_t type)
{
	struct nfs4_lock_range *r = v[(*used)++];

	r->holder = holder;
	r->start = s;
	r->end = e;
	r->type = type;
	return r;
}

/** nfs4_lock_set() - see state_int.h. */
int nfs4_lock_set(struct nfs4_list *l, const void *holder, uint64_t start,
		  uint64_t end, uint32_t type, uint32_t limit, int *change)
{
	struct nfs4_lock_range *v[3], *keep[2];
	struct nfs4_list *n, *next;
	uint64_t ns = start, ne = end;
	int removed = 0, pieces = 0, used = 0, nkeep = 0, delta, i, ret;

	type = is_write(type) ? WRITE_LT : READ_LT;
	for (n = l->next; n != l; n = n->next) {
		struct nfs4_lock_range *r =
			nfs4_container_of(n, struct nfs4_lock_range, link);

		if (r->holder != holder)
			continue;
		if (r->type == type && touches(r, start, end)) {
			removed++;
		} else if (overlaps(r, start, end)) {
			removed++;
			pieces += (r->start < start) + (r->end > end);
		}
	}
	delta = 1 + pieces - removed;
	if (delta > 0 && (uint32_t)delta > limit)
		return -ENOSPC;
	ret = alloc_ranges(v, 1 + pieces);
	if (ret < 0)
		return ret;

	for (n = l->next; n != l; n = next) {
		struct nfs4_lock_range *r =
			nfs4_container_of(n, struct nfs4_lock_range, link);

		next = n->next;
		if (r->holder != holder)
			continue;
		if (r->type == type && touches(r, start, end)) {
			if (r->start < ns)
				ns = r->start;
			if (r->end > ne)
				ne = r->end;
		} else if (overlaps(r, start, end)) {
			if (r->start < start)
				keep[nkeep++] = piece(v, &used, holder,
						      r->start, start - 1,
						      r->type);
			if (r->end > end)
				keep[nkeep++] = piece(v, &used, holder,
						      end + 1, r->end,
						      r->type);
		} else {
			continue;
		}
		nfs4_list_del(n);
		free(r);
	}
	insert_sorted(l, piece(v, &used, holder, ns, ne, type));
	for (i = 0; i < nkeep; i++)
		insert_sorted(l, keep[i]);
	*change = delta;
	return 0;
}

/** nfs4_lock_clear() - see state_int.h. */
int nfs4_lock_clear(struct nfs4_list *l, const void *holder, uint64_t start,
		    uint64_t end, uint32_t limit, int *change)
{
	struct nfs4_lock_range *v[2], *keep[2];
	struct nfs4_list *n, *next;
	int removed = 0, pieces = 0, used = 0, nkeep = 0, delta, i, ret;

	for (n = l->next; n != l; n = n->next) {
		struct nfs4_lock_range *r =
			nfs4_container_of(n, struct nfs4_lock_range, link);

		if (r->holder == holder && overlaps(r, start, end)) {
			removed++;
			pieces += (r->start < start) + (r->end > end);
		}
	}
	*change = 0;
	if (removed == 0)
		return 0;
	delta = pieces - removed;
	if (delta > 0 && (uint32_t)delta > limit)
		return -ENOSPC;
	/* only one range can stick out on each side */
	ret = alloc_ranges(v, pieces);
	if (ret < 0)
		return ret;
	for (n = l->next; n != l; n = next) {
		struct nfs4_lock_range *r =
			nfs4_container_of(n, struct nfs4_lock_range, link);

		next = n->next;
		if (r->holder != holder || !overlaps(r, start, end))
			continue;
		if (r->start < start)
			keep[nkeep++] = piece(v, &used, holder, r->start,
					      start - 1, r->type);
		if (r->end > end)
			keep[nkeep++] = piece(v, &used, holder, end + 1,
					      r->end, r->type);
		nfs4_list_del(n);
		free(r);
	}
	for (i = 0; i < nkeep; i++)
		insert_sorted(l, keep[i]);
	*change = delta;
	return 0;
}

/** nfs4_lock_clear_all() - see state_int.h. */
int nfs4_lock_clear_all(struct nfs4_list *l, const void *holder)
{
	struct nfs4_list *n, *next;
	int count = 0;

	for (n = l->next; n != l; n = next) {
		struct nfs4_lock_range *r =
			nfs4_container_of(n, struct nfs4_lock_range, link);

		next = n->next;
		if (r->holder != holder)
			continue;
		nfs4_list_del(n);
		free(r);
		count++;
	}
	return count;
}
