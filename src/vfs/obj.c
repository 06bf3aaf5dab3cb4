// SPDX-License-Identifier: MIT
/*
 * The object cache and export roots.
 *
 * Objects are keyed by (export, backend handle bytes). The table is
 * split into shards, each with its own lock, hash buckets and LRU list,
 * so that the READ/WRITE/GETATTR path never takes a global lock. An
 * object with references is never evicted; one without sits on its
 * shard's LRU list and is evicted when the shard is over capacity. What
 * an object holds besides (descriptors, a backend's inode reference) is
 * its backend's, released through the table's obj_free.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/log.h"
#include "vfs/vfs_int.h"

#define CACHE_SHARDS  64
#define CACHE_BUCKETS 2048 /* per shard */
#define CACHE_MAX     65536

struct cache_shard {
	pthread_mutex_t lock;
	struct vfs_obj *buckets[CACHE_BUCKETS];
	struct vfs_obj *lru_head, *lru_tail; /* head = most recently used */
	uint32_t count;
	uint32_t cap;
};

static struct cache_shard *shards;
static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static uint32_t cache_cap_total;
static uint32_t cache_max_asked = CACHE_MAX;

void vfs_set_max_open_files(uint32_t n)
{
	cache_max_asked = n ? n : CACHE_MAX;
}

static void global_init_once(void)
{
	struct rlimit rl;
	uint64_t cap = cache_max_asked;

	/* Modes given by clients are applied exactly: no umask. */
	umask(0);

	/*
	 * Each cached object may hold up to four fds (O_PATH, two buffered
	 * data fds, one O_DIRECT); raise the soft fd limit to the hard one
	 * and size the cache to fit under it, with room left for sockets
	 * and directory listings.
	 */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		if (rl.rlim_cur < rl.rlim_max) {
			rl.rlim_cur = rl.rlim_max;
			setrlimit(RLIMIT_NOFILE, &rl);
			getrlimit(RLIMIT_NOFILE, &rl);
		}
		if (rl.rlim_cur != RLIM_INFINITY) {
			uint64_t avail = rl.rlim_cur > 2048
						 ? (rl.rlim_cur - 1024) / 4
						 : rl.rlim_cur / 8;
			if (avail < cap)
				cap = avail;
		}
	}
	if (cap < CACHE_SHARDS * 4)
		cap = CACHE_SHARDS * 4;
	cache_cap_total = (uint32_t)cap;

	shards = calloc(CACHE_SHARDS, sizeof(*shards));
	if (shards == NULL) {
		log_err("vfs: out of memory for the object cache");
		abort();
	}
	for (int i = 0; i < CACHE_SHARDS; i++) {
		pthread_mutex_init(&shards[i].lock, NULL);
		shards[i].cap = (uint32_t)(cap / CACHE_SHARDS);
	}
}

/*
 * vfs_global_init() - one-time set-up of the vfs layer (umask 0, fd
 * limit, object cache). Idempotent and thread-safe.
 */
void vfs_global_init(void)
{
	pthread_once(&global_once, global_init_once);
}

/* vfs_cache_capacity() - the object cache's capacity, for tests/stats. */
uint32_t vfs_cache_capacity(void)
{
	vfs_global_init();
	return cache_cap_total;
}

static uint32_t bh_hash(const struct vfs_export *ex, const struct vfs_bh *bh)
{
	uint8_t buf[4 + VFS_BH_MAX];

	memcpy(buf, &ex->id, 4);
	memcpy(buf + 4, bh->bytes, bh->len);
	return (uint32_t)vfs_secret_hash(buf, 4 + bh->len);
}

static struct cache_shard *shard_of(uint32_t hash)
{
	return &shards[hash % CACHE_SHARDS];
}

static struct vfs_obj **bucket_of(struct cache_shard *s, uint32_t hash)
{
	return &s->buckets[(hash / CACHE_SHARDS) % CACHE_BUCKETS];
}

static bool bh_equal(const struct vfs_bh *a, const struct vfs_bh *b)
{
	return a->len == b->len && memcmp(a->bytes, b->bytes, a->len) == 0;
}

static void lru_del(struct cache_shard *s, struct vfs_obj *o)
{
	if (o->lru_prev != NULL)
		o->lru_prev->lru_next = o->lru_next;
	else
		s->lru_head = o->lru_next;
	if (o->lru_next != NULL)
		o->lru_next->lru_prev = o->lru_prev;
	else
		s->lru_tail = o->lru_prev;
	o->lru_prev = o->lru_next = NULL;
}

static void lru_add_head(struct cache_shard *s, struct vfs_obj *o)
{
	o->lru_prev = NULL;
	o->lru_next = s->lru_head;
	if (s->lru_head != NULL)
		s->lru_head->lru_prev = o;
	else
		s->lru_tail = o;
	s->lru_head = o;
}

static void hash_del(struct cache_shard *s, struct vfs_obj *o)
{
	struct vfs_obj **pp = bucket_of(s, o->hash);

	while (*pp != NULL && *pp != o)
		pp = &(*pp)->hnext;
	if (*pp == o)
		*pp = o->hnext;
	o->hnext = NULL;
	o->hashed = false;
	s->count--;
}

static struct vfs_obj *hash_find(struct cache_shard *s, uint32_t hash,
				 const struct vfs_export *ex,
				 const struct vfs_bh *bh)
{
	for (struct vfs_obj *o = *bucket_of(s, hash); o != NULL; o = o->hnext)
		if (o->hash == hash && o->ex == ex && bh_equal(&o->bh, bh))
			return o;
	return NULL;
}

/* Release an unhashed, unreferenced object through its backend and
 * free it. */
static void obj_free(struct vfs_obj *o)
{
	o->ex->be->obj_free(o);
	free(o->xnames);
	pthread_mutex_destroy(&o->dos_mu);
	vfs_export_put(o->ex);
	free(o);
}

/*
 * Unhash LRU victims while @s is over capacity; they are chained through
 * hnext onto *@victims for freeing after the lock is dropped (closing the
 * last fd of a deleted file may take long).
 */
static void shard_trim(struct cache_shard *s, struct vfs_obj **victims)
{
	while (s->count > s->cap && s->lru_tail != NULL) {
		struct vfs_obj *o = s->lru_tail;

		lru_del(s, o);
		hash_del(s, o);
		o->hnext = *victims;
		*victims = o;
	}
}

static void free_victims(struct vfs_obj *v)
{
	while (v != NULL) {
		struct vfs_obj *next = v->hnext;

		obj_free(v);
		v = next;
	}
}

/* Take a reference on a hashed object; shard lock held. */
static void obj_ref_locked(struct cache_shard *s, struct vfs_obj *o)
{
	if (o->refs++ == 0)
		lru_del(s, o);
}

int vfs_obj_find(struct vfs_export *ex, const struct vfs_bh *bh,
		 struct vfs_obj **out)
{
	uint32_t hash = bh_hash(ex, bh);
	struct cache_shard *s = shard_of(hash);
	struct vfs_obj *o;

	pthread_mutex_lock(&s->lock);
	o = hash_find(s, hash, ex, bh);
	if (o != NULL)
		obj_ref_locked(s, o);
	pthread_mutex_unlock(&s->lock);
	if (o == NULL)
		return -ENOENT;
	*out = o;
	return 0;
}

struct vfs_obj *vfs_obj_new(struct vfs_export *ex, const struct vfs_bh *bh,
			    enum vfs_ftype type)
{
	struct vfs_obj *n;

	if (bh->len < VFS_BH_MIN || bh->len > VFS_BH_MAX)
		return NULL;
	n = calloc(1, ex->be->obj_size);
	if (n == NULL)
		return NULL;
	n->hash = bh_hash(ex, bh);
	n->refs = 1;
	n->ex = ex;
	n->type = type;
	n->bh.len = bh->len;
	memcpy(n->bh.bytes, bh->bytes, bh->len);
	pthread_mutex_init(&n->dos_mu, NULL);
	return n;
}

void vfs_obj_discard(struct vfs_obj *n)
{
	n->ex->be->obj_free(n);
	pthread_mutex_destroy(&n->dos_mu);
	free(n);
}

int vfs_obj_insert(struct vfs_obj *n, struct vfs_obj **out)
{
	struct cache_shard *s = shard_of(n->hash);
	struct vfs_export *ex = n->ex;
	struct vfs_obj *o, *victims = NULL;

	pthread_mutex_lock(&s->lock);
	o = hash_find(s, n->hash, ex, &n->bh);
	if (o != NULL) {
		/* Lost a race with another thread opening the same file. */
		obj_ref_locked(s, o);
		pthread_mutex_unlock(&s->lock);
		vfs_obj_discard(n);
		*out = o;
		return 0;
	}
	vfs_export_get(ex);
	n->hnext = *bucket_of(s, n->hash);
	*bucket_of(s, n->hash) = n;
	n->hashed = true;
	s->count++;
	shard_trim(s, &victims);
	pthread_mutex_unlock(&s->lock);
	free_victims(victims);
	*out = n;
	return 0;
}

void vfs_obj_get(struct vfs_obj *o)
{
	struct cache_shard *s = shard_of(o->hash);

	pthread_mutex_lock(&s->lock);
	o->refs++;
	pthread_mutex_unlock(&s->lock);
}

void vfs_obj_put(struct vfs_obj *o)
{
	struct cache_shard *s;
	struct vfs_obj *victims = NULL;

	if (o == NULL)
		return;
	s = shard_of(o->hash);
	pthread_mutex_lock(&s->lock);
	if (--o->refs > 0) {
		pthread_mutex_unlock(&s->lock);
		return;
	}
	/*
	 * Removed through us while in use: if that was its last name, drop
	 * it now so the cache does not keep a deleted file's blocks alive.
	 */
	if (o->doomed) {
		o->doomed = false;
		if (o->ex->be->obj_unlinked(o)) {
			hash_del(s, o);
			o->hnext = victims;
			victims = o;
		}
	}
	if (o->hashed) {
		lru_add_head(s, o);
		shard_trim(s, &victims);
	}
	pthread_mutex_unlock(&s->lock);
	free_victims(victims);
}

void vfs_obj_release(void *o)
{
	vfs_obj_put(o);
}

void vfs_obj_doom(struct vfs_export *ex, const struct vfs_bh *bh)
{
	uint32_t hash = bh_hash(ex, bh);
	struct cache_shard *s = shard_of(hash);
	struct vfs_obj *o, *victim = NULL;

	pthread_mutex_lock(&s->lock);
	o = hash_find(s, hash, ex, bh);
	if (o != NULL && o->refs > 0) {
		o->doomed = true;
	} else if (o != NULL && ex->be->obj_unlinked(o)) {
		lru_del(s, o);
		hash_del(s, o);
		victim = o;
	}
	pthread_mutex_unlock(&s->lock);
	if (victim != NULL)
		obj_free(victim);
}

int vfs_obj_root(struct vfs_export *ex, struct vfs_obj **out)
{
	vfs_obj_get(ex->root);
	*out = ex->root;
	return 0;
}

struct vfs_export *vfs_obj_export(const struct vfs_obj *o)
{
	return o->ex;
}

enum vfs_ftype vfs_obj_type(const struct vfs_obj *o)
{
	return o->type;
}

bool vfs_obj_is_root(const struct vfs_obj *o)
{
	return o->is_root;
}

/* vfs_export_get() - take a reference on @ex. */
void vfs_export_get(struct vfs_export *ex)
{
	atomic_fetch_add(&ex->refs, 1);
}

/* vfs_export_put() - drop a reference; the last one frees @ex. */
void vfs_export_put(struct vfs_export *ex)
{
	if (atomic_fetch_sub(&ex->refs, 1) != 1)
		return;
	free(ex->path);
	ex->be->export_free(ex);
}

int vfs_export_init(struct vfs_export *ex, const struct vfs_backend *be,
		    uint32_t id, const char *path)
{
	vfs_global_init();
	ex->be = be;
	ex->id = id;
	atomic_init(&ex->refs, 1);
	atomic_init(&ex->opens, 1);
	atomic_init(&ex->io, VFS_IO_AUTO);
	ex->path = strdup(path);
	return ex->path ? 0 : -ENOMEM;
}

int vfs_export_init_root(struct vfs_export *ex, const struct vfs_bh *bh)
{
	struct vfs_obj *root;
	int ret = ex->be->obj_resolve(ex, bh, &root);

	if (ret < 0)
		return ret;
	root->is_root = true;
	ex->root = root;
	return 0;
}

/* Drop every unreferenced cached object of @ex. */
static void cache_purge(struct vfs_export *ex)
{
	for (int i = 0; i < CACHE_SHARDS; i++) {
		struct cache_shard *s = &shards[i];
		struct vfs_obj *victims = NULL, *o, *next;

		pthread_mutex_lock(&s->lock);
		for (o = s->lru_head; o != NULL; o = next) {
			next = o->lru_next;
			if (o->ex != ex)
				continue;
			lru_del(s, o);
			hash_del(s, o);
			o->hnext = victims;
			victims = o;
		}
		pthread_mutex_unlock(&s->lock);
		free_victims(victims);
	}
}

/*
 * vfs_export_close() - give up the export: its unused cached objects are
 * closed now; objects still referenced keep it alive until put.
 */
void vfs_export_close(struct vfs_export *ex)
{
	if (ex == NULL)
		return;
	/* Still open in another export table (kept across a reload). */
	if (atomic_fetch_sub(&ex->opens, 1) != 1)
		return;
	vfs_obj_put(ex->root);
	ex->root = NULL;
	cache_purge(ex);
	vfs_export_put(ex);
}

struct vfs_export *vfs_export_reuse(struct vfs_export *ex)
{
	atomic_fetch_add(&ex->opens, 1);
	return ex;
}

uint32_t vfs_export_id(const struct vfs_export *ex)
{
	return ex->id;
}

void vfs_export_set_io(struct vfs_export *ex, enum vfs_io io)
{
	atomic_store(&ex->io, (int)io);
}

enum vfs_io vfs_export_io(const struct vfs_export *ex)
{
	return (enum vfs_io)atomic_load(&((struct vfs_export *)ex)->io);
}

/* vfs_export_path() - the resolved path of @ex's root. */
const char *vfs_export_path(const struct vfs_export *ex)
{
	return ex->path;
}
