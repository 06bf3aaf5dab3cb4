// SPDX-License-Identifier: MIT
/*
 * The table of files with state (open files), shared by all protocols.
 *
 * Locking, in the order they may be taken:
 *   1. protocol locks (an NFSv4 client's mutex, an SMB session's...): any
 *      number, before any of these.
 *   2. state_file.mu, one per entry: its shares, its locks, their counts
 *      and has_state. Never two entries' at once.
 *   3. a shard lock (64 shards by object): the shard's hash chains and
 *      the refs of the entries in it. A leaf: nothing is taken under it.
 * The global counters are atomics and need no lock.
 *
 * Lifetime: an entry is found and made under its shard lock, which also
 * guards its reference count; the count never reaches zero while the
 * entry has shares or locks, because the first of them takes a reference
 * and the last one gives it back (state_file_settle(), under the entry's
 * mutex, the caller holding a reference of its own, so the count cannot
 * drop to zero there). The put that drops the count to zero unhashes the
 * entry under the shard lock, so no lookup can find it after; then it
 * frees it and puts its vfs object.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "state/file_state_int.h"
#include "vfs/vfs.h"

#define STATE_SHARDS  64
#define STATE_BUCKETS 256 /* per shard */

struct state_shard {
	pthread_mutex_t lock;
	struct state_file *buckets[STATE_BUCKETS];
};

static struct state_shard shards[STATE_SHARDS];
static pthread_once_t shards_once = PTHREAD_ONCE_INIT;

atomic_uint state_g_files;
atomic_uint state_g_ranges;
atomic_uint state_g_win_ranges;
atomic_uint state_g_shares;
atomic_uint state_g_deny[3];
atomic_uint state_g_max_ranges = STATE_MAX_RANGES;

static void shards_init(void)
{
	for (int i = 0; i < STATE_SHARDS; i++)
		pthread_mutex_init(&shards[i].lock, NULL);
}

/* A multiplicative hash of the object's address (its identity). */
static uint32_t obj_hash(const struct vfs_obj *obj)
{
	uint64_t k = (uint64_t)(uintptr_t)obj;

	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return (uint32_t)k;
}

static struct state_shard *shard_of(uint32_t h)
{
	return &shards[h % STATE_SHARDS];
}

static struct state_file **bucket_of(struct state_shard *s, uint32_t h)
{
	return &s->buckets[(h / STATE_SHARDS) % STATE_BUCKETS];
}

/* Entries of one object (its data and its named streams) share a chain. */
static struct state_file *bucket_find(struct state_file *head,
				      const struct vfs_obj *obj,
				      const char *stream)
{
	for (; head; head = head->hnext) {
		if (head->obj != obj)
			continue;
		if (!stream ? !head->stream
			    : head->stream && !strcmp(head->stream, stream))
			return head;
	}
	return NULL;
}

static struct state_file *file_lookup(struct vfs_obj *obj, const char *stream,
				      bool create)
{
	uint32_t h = obj_hash(obj);
	struct state_shard *s;
	struct state_file *f, *nf = NULL;
	struct state_file **b;

	pthread_once(&shards_once, shards_init);
	s = shard_of(h);
	b = bucket_of(s, h);
	pthread_mutex_lock(&s->lock);
	f = bucket_find(*b, obj, stream);
	if (f || !create) {
		if (f)
			f->refs++;
		pthread_mutex_unlock(&s->lock);
		return f;
	}
	pthread_mutex_unlock(&s->lock);

	/* Allocate outside the shard lock, then look again: another
	 * thread may have made the entry meanwhile. */
	nf = calloc(1, sizeof(*nf));
	if (!nf)
		return NULL;
	if (stream && !(nf->stream = strdup(stream))) {
		free(nf);
		return NULL;
	}
	pthread_mutex_init(&nf->mu, NULL);
	state_link_init(&nf->shares);
	state_link_init(&nf->locks);
	state_link_init(&nf->grants);
	nf->obj = obj;
	nf->refs = 1;
	/* named streams (SMB) are nasd's own: their locks stay here */
	nf->remote = !stream && vfs_locks_shared(obj);
	nf->elsewhere = vfs_obj_changed_elsewhere(obj);
	pthread_mutex_lock(&s->lock);
	f = bucket_find(*b, obj, stream);
	if (f) {
		f->refs++;
		pthread_mutex_unlock(&s->lock);
		pthread_mutex_destroy(&nf->mu);
		free(nf->stream);
		free(nf);
		return f;
	}
	/* The caller holds @obj, so taking another reference is safe. */
	vfs_obj_get(obj);
	nf->hnext = *b;
	*b = nf;
	pthread_mutex_unlock(&s->lock);
	atomic_fetch_add(&state_g_files, 1);
	return nf;
}

/** state_file_get() - see file_state.h. */
struct state_file *state_file_get(struct vfs_obj *obj)
{
	return file_lookup(obj, NULL, true);
}

/** state_file_get_stream() - see file_state.h. */
struct state_file *state_file_get_stream(struct vfs_obj *obj,
					 const char *stream)
{
	return file_lookup(obj, stream, true);
}

/** state_streams_deny() - see file_state.h. */
bool state_streams_deny(struct vfs_obj *obj, uint32_t access)
{
	struct state_file *got[64], *f;
	uint32_t h = obj_hash(obj);
	struct state_shard *s;
	size_t n = 0, i;
	bool more = false, ret = false;

	pthread_once(&shards_once, shards_init);
	s = shard_of(h);
	pthread_mutex_lock(&s->lock);
	for (f = *bucket_of(s, h); f; f = f->hnext) {
		if (f->obj != obj || !f->stream)
			continue;
		if (n == sizeof(got) / sizeof(got[0])) {
			more = true;
			break;
		}
		f->refs++;
		got[n++] = f;
	}
	pthread_mutex_unlock(&s->lock);
	for (i = 0; i < n; i++) {
		if (!ret)
			ret = state_share_denies(got[i], access);
		state_file_put(got[i]);
	}
	/* more open streams than we look at: refuse (fails closed) */
	return ret || more;
}

/** state_file_find() - see file_state.h. */
struct state_file *state_file_find(struct vfs_obj *obj)
{
	return file_lookup(obj, NULL, false);
}

/** state_file_hold() - see file_state.h. */
void state_file_hold(struct state_file *f)
{
	struct state_shard *s = shard_of(obj_hash(f->obj));

	pthread_mutex_lock(&s->lock);
	f->refs++;
	pthread_mutex_unlock(&s->lock);
}

/** state_file_put() - see file_state.h. */
void state_file_put(struct state_file *f)
{
	uint32_t h = obj_hash(f->obj);
	struct state_shard *s = shard_of(h);
	struct state_file **pp;

	pthread_mutex_lock(&s->lock);
	if (--f->refs > 0) {
		pthread_mutex_unlock(&s->lock);
		return;
	}
	for (pp = bucket_of(s, h); *pp; pp = &(*pp)->hnext) {
		if (*pp == f) {
			*pp = f->hnext;
			break;
		}
	}
	pthread_mutex_unlock(&s->lock);
	/* refs 0 means no state: the settle reference is gone */
	pthread_mutex_destroy(&f->mu);
	vfs_obj_put(f->obj);
	free(f->stream);
	free(f);
	atomic_fetch_sub(&state_g_files, 1);
}

/** state_file_obj() - see file_state.h. */
struct vfs_obj *state_file_obj(const struct state_file *f)
{
	return f->obj;
}

/** state_file_settle() - see file_state_int.h. */
void state_file_settle(struct state_file *f)
{
	bool has = f->nshares > 0 || f->nlocks > 0 || f->ngrants > 0;
	struct state_shard *s;

	if (has == f->has_state)
		return;
	s = shard_of(obj_hash(f->obj));
	pthread_mutex_lock(&s->lock);
	if (has) {
		f->refs++;
	} else {
		/* the caller's reference keeps the count above zero */
		assert(f->refs >= 2);
		f->refs--;
	}
	pthread_mutex_unlock(&s->lock);
	f->has_state = has;
}

/** state_counts() - see file_state.h. */
void state_counts(struct state_counts *out)
{
	out->files = atomic_load(&state_g_files);
	out->ranges = atomic_load(&state_g_ranges);
	out->win_ranges = atomic_load(&state_g_win_ranges);
	out->shares = atomic_load(&state_g_shares);
	for (int i = 0; i < STATE_NBITS; i++)
		out->deny[i] = atomic_load(&state_g_deny[i]);
}

/** state_set_max_ranges() - see file_state.h. */
void state_set_max_ranges(uint32_t n)
{
	atomic_store(&state_g_max_ranges, n ? n : STATE_MAX_RANGES);
}

typedef bool (*lapsed_fn)(const void *id);
static _Atomic(lapsed_fn) lapsed[STATE_HOLDER_NTAGS];

/** state_set_lapsed() - see file_state.h. */
void state_set_lapsed(uint32_t tag, bool (*fn)(const void *id))
{
	if (tag < STATE_HOLDER_NTAGS)
		atomic_store(&lapsed[tag], fn);
}

/** state_holder_lapsed() - see file_state_int.h. */
bool state_holder_lapsed(const struct state_holder *h)
{
	lapsed_fn fn = h->tag < STATE_HOLDER_NTAGS
			       ? atomic_load_explicit(&lapsed[h->tag],
						      memory_order_relaxed)
			       : NULL;

	return fn && fn(h->id);
}
