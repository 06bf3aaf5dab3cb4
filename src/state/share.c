// SPDX-License-Identifier: MIT
/*
 * Share reservations (RFC 8881 §9.7, RFC 7530 §9.9; MS-FSA 2.1.5.1.2):
 * one record per holder and file, with per-file counts of each access and
 * deny bit, so that a conflict check is a few comparisons however many
 * opens a file has: a share (A, D) conflicts with the others iff one of
 * them denies a bit of A or has access to a bit of D. Global counts of
 * the deny bits let I/O and REMOVE skip the lookup while nothing denies.
 * Under the entry's mutex (file.c).
 */
#include <errno.h>
#include <stdlib.h>

#include "state/file_state_int.h"
#include "vfs/vfs.h"

static bool holder_eq(const struct state_holder *a,
		      const struct state_holder *b)
{
	return a->id == b->id && a->tag == b->tag;
}

static struct state_share *share_find(struct state_file *f,
				      const struct state_holder *h)
{
	struct state_link *n;

	for (n = f->shares.next; n != &f->shares; n = n->next) {
		struct state_share *s =
			state_container_of(n, struct state_share, link);

		if (holder_eq(&s->holder, h))
			return s;
	}
	return NULL;
}

/* Would (@access, @deny) conflict with the shares of @f other than @self? */
static bool share_conflict(const struct state_file *f,
			   const struct state_share *self, uint32_t access,
			   uint32_t deny)
{
	for (uint32_t b = 0; b < STATE_NBITS; b++) {
		uint32_t bit = 1u << b;
		uint32_t acc = f->nacc[b], den = f->ndeny[b];

		if (self) {
			acc -= (self->access & bit) != 0;
			den -= (self->deny & bit) != 0;
		}
		if (((access & bit) && den) || ((deny & bit) && acc))
			return true;
	}
	return false;
}

/*
 * The error of a conflicting request: -EINPROGRESS when every share in
 * the way is a lapsed holder's (state_set_lapsed), else -EBUSY.
 */
static int share_conflict_err(const struct state_file *f,
			      const struct state_share *self,
			      uint32_t access, uint32_t deny)
{
	struct state_link *n;
	bool any = false;

	for (n = f->shares.next; n != &f->shares; n = n->next) {
		const struct state_share *s =
			state_container_of(n, struct state_share, link);

		if (s == self || !((access & s->deny) || (deny & s->access)))
			continue;
		if (!state_holder_lapsed(&s->holder))
			return -EBUSY;
		any = true;
	}
	return any ? -EINPROGRESS : -EBUSY;
}

/* Add (@sign 1) or remove (-1) @s's bits from the counts. */
static void share_count(struct state_file *f, const struct state_share *s,
			int sign)
{
	for (uint32_t b = 0; b < STATE_NBITS; b++) {
		uint32_t bit = 1u << b;

		if (s->access & bit)
			f->nacc[b] += (uint32_t)sign;
		if (s->deny & bit) {
			f->ndeny[b] += (uint32_t)sign;
			if (sign > 0)
				atomic_fetch_add(&state_g_deny[b], 1);
			else
				atomic_fetch_sub(&state_g_deny[b], 1);
		}
	}
}

static bool share_bits_ok(uint32_t access, uint32_t deny)
{
	return !(access & ~STATE_SHARE_MASK) && !(deny & ~STATE_SHARE_MASK);
}

/** state_share_acquire() - see file_state.h. */
int state_share_acquire(struct state_file *f, const struct state_holder *h,
			uint32_t access, uint32_t deny)
{
	struct state_share *s;
	int ret = 0;

	if (!share_bits_ok(access, deny))
		return -EINVAL;
	/* allocated first: a failure then changes nothing */
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->holder = *h;
	s->access = access;
	s->deny = deny;
	pthread_mutex_lock(&f->mu);
	if (share_find(f, h)) {
		ret = -EEXIST;
	} else if (f->delete_pending && h->tag == STATE_HOLDER_SMB) {
		ret = -EIDRM;
	} else if (share_conflict(f, NULL, access, deny)) {
		ret = share_conflict_err(f, NULL, access, deny);
	} else {
		state_link_add_before(&f->shares, &s->link);
		f->nshares++;
		share_count(f, s, 1);
		atomic_fetch_add(&state_g_shares, 1);
		state_file_settle(f);
		s = NULL;
	}
	pthread_mutex_unlock(&f->mu);
	free(s);
	return ret;
}

/** state_share_change() - see file_state.h. */
int state_share_change(struct state_file *f, const struct state_holder *h,
		       uint32_t access, uint32_t deny)
{
	struct state_share *s;
	int ret = 0;

	if (!share_bits_ok(access, deny))
		return -EINVAL;
	pthread_mutex_lock(&f->mu);
	s = share_find(f, h);
	if (!s) {
		ret = -ENOENT;
	} else if (share_conflict(f, s, access, deny)) {
		ret = share_conflict_err(f, s, access, deny);
	} else {
		share_count(f, s, -1);
		s->access = access;
		s->deny = deny;
		share_count(f, s, 1);
	}
	pthread_mutex_unlock(&f->mu);
	return ret;
}

/* Drop @s (f->mu held). */
static void share_drop(struct state_file *f, struct state_share *s)
{
	state_link_del(&s->link);
	f->nshares--;
	share_count(f, s, -1);
	atomic_fetch_sub(&state_g_shares, 1);
}

/** state_share_release() - see file_state.h. */
void state_share_release(struct state_file *f, const struct state_holder *h)
{
	(void)state_share_release_last(f, h);
}

/** state_share_count() - see file_state.h. */
uint32_t state_share_count(struct state_file *f)
{
	uint32_t n;

	pthread_mutex_lock(&f->mu);
	n = f->nshares;
	pthread_mutex_unlock(&f->mu);
	return n;
}

/** state_share_release_last() - see file_state.h. */
bool state_share_release_last(struct state_file *f,
			      const struct state_holder *h)
{
	struct state_share *s;
	struct state_link *l;
	bool last = false;

	pthread_mutex_lock(&f->mu);
	s = share_find(f, h);
	if (s) {
		share_drop(f, s);
		if (f->delete_pending) {
			last = true;
			for (l = f->shares.next; l != &f->shares; l = l->next)
				if (state_container_of(l, struct state_share,
						       link)->holder.tag ==
				    h->tag)
					last = false;
			if (last)
				f->delete_pending = false;
		}
		state_file_settle(f);
	}
	pthread_mutex_unlock(&f->mu);
	free(s);
	return last;
}

/** state_delete_pending_set() - see file_state.h. */
void state_delete_pending_set(struct state_file *f, bool on)
{
	pthread_mutex_lock(&f->mu);
	f->delete_pending = on;
	pthread_mutex_unlock(&f->mu);
}

/** state_delete_pending() - see file_state.h. */
bool state_delete_pending(struct state_file *f)
{
	bool on;

	pthread_mutex_lock(&f->mu);
	on = f->delete_pending;
	pthread_mutex_unlock(&f->mu);
	return on;
}

static bool denies_locked(const struct state_file *f, uint32_t access)
{
	for (uint32_t b = 0; b < STATE_NBITS; b++)
		if ((access & (1u << b)) && f->ndeny[b])
			return true;
	return false;
}

/** state_share_denies() - see file_state.h. */
bool state_share_denies(struct state_file *f, uint32_t access)
{
	bool ret;

	pthread_mutex_lock(&f->mu);
	ret = denies_locked(f, access);
	pthread_mutex_unlock(&f->mu);
	return ret;
}

/* Does any share anywhere deny one of @access? */
static bool denied_anywhere(uint32_t access)
{
	for (uint32_t b = 0; b < STATE_NBITS; b++)
		if ((access & (1u << b)) && atomic_load(&state_g_deny[b]))
			return true;
	return false;
}

/** state_share_denies_obj() - see file_state.h. */
bool state_share_denies_obj(struct vfs_obj *obj, uint32_t access)
{
	struct state_file *f;
	bool ret;

	if (!denied_anywhere(access))
		return false;
	f = state_file_find(obj);
	ret = f && state_share_denies(f, access);
	if (f)
		state_file_put(f);
	/* deleting the file deletes its named streams */
	if (!ret && (access & STATE_ACCESS_DELETE))
		ret = state_streams_deny(obj, STATE_ACCESS_DELETE);
	return ret;
}

/** state_share_grants_obj() - see file_state.h. */
bool state_share_grants_obj(struct vfs_obj *obj, uint32_t access)
{
	struct state_file *f;
	bool ret = false;

	f = state_file_find(obj);
	if (!f)
		return false;
	pthread_mutex_lock(&f->mu);
	for (uint32_t b = 0; b < STATE_NBITS; b++)
		if ((access & (1u << b)) && f->nacc[b])
			ret = true;
	pthread_mutex_unlock(&f->mu);
	state_file_put(f);
	return ret;
}

/** state_delete_check_needed() - see file_state.h. */
bool state_delete_check_needed(void)
{
	return denied_anywhere(STATE_ACCESS_DELETE);
}

/** state_may_delete() - see file_state.h. */
int state_may_delete(struct vfs_obj *obj)
{
	return state_share_denies_obj(obj, STATE_ACCESS_DELETE) ? -ETXTBSY : 0;
}

/** state_may_unlink_name() - see file_state.h. */
int state_may_unlink_name(struct vfs_obj *dir, const char *name, size_t len,
			  const void *key)
{
	struct vfs_obj *obj;
	int ret;

	if (!state_delete_check_needed() && !state_grant_any())
		return 0;
	if (vfs_lookup(dir, name, len, &obj) < 0)
		return 0;
	ret = state_may_delete(obj);
	if (!ret)
		ret = state_grant_break_key(obj, STATE_OP_NAMESPACE, key);
	vfs_obj_put(obj);
	return ret;
}
