// SPDX-License-Identifier: MIT
/*
 * The object cache and export roots.
 *
 * Objects are keyed by (export, kernel handle). The table is split into
 * shards, each with its own lock, hash buckets and LRU list, so that the
 * READ/WRITE/GETATTR path never takes a global lock. An object with
 * references is never evicted; one without sits on its shard's LRU list
 * and is evicted when the shard is over capacity. Each object holds an
 * O_PATH fd and, for regular files, lazily opened data fds.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
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

static uint32_t kh_hash(const struct vfs_export *ex, const struct vfs_kh *kh)
{
	uint8_t buf[8 + VFS_KH_MAX];

	memcpy(buf, &ex->id, 4);
	memcpy(buf + 4, &kh->type, 4);
	memcpy(buf + 8, kh->bytes, kh->len);
	return (uint32_t)vfs_secret_hash(buf, 8 + kh->len);
}

static struct cache_shard *shard_of(uint32_t hash)
{
	return &shards[hash % CACHE_SHARDS];
}

static struct vfs_obj **bucket_of(struct cache_shard *s, uint32_t hash)
{
	return &s->buckets[(hash / CACHE_SHARDS) % CACHE_BUCKETS];
}

static bool kh_equal(const struct vfs_kh *a, const struct vfs_kh *b)
{
	return a->type == b->type && a->len == b->len &&
	       memcmp(a->bytes, b->bytes, a->len) == 0;
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
				 const struct vfs_kh *kh)
{
	for (struct vfs_obj *o = *bucket_of(s, hash); o != NULL; o = o->hnext)
		if (o->hash == hash && o->ex == ex && kh_equal(&o->kh, kh))
			return o;
	return NULL;
}

/* Close an unhashed, unreferenced object's fds and free it. */
static void obj_free(struct vfs_obj *o)
{
	int fd;

	close(o->fd);
	fd = atomic_load(&o->rfd);
	if (fd >= 0)
		close(fd);
	fd = atomic_load(&o->wfd);
	if (fd >= 0)
		close(fd);
	vfs_obj_dio_close(o);
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

/*
 * vfs_obj_find() - a new reference to the cached object of @kh in @ex.
 * Returns 0 and *@out, or -ENOENT when it is not cached.
 */
int vfs_obj_find(struct vfs_export *ex, const struct vfs_kh *kh,
		 struct vfs_obj **out)
{
	uint32_t hash = kh_hash(ex, kh);
	struct cache_shard *s = shard_of(hash);
	struct vfs_obj *o;

	pthread_mutex_lock(&s->lock);
	o = hash_find(s, hash, ex, kh);
	if (o != NULL)
		obj_ref_locked(s, o);
	pthread_mutex_unlock(&s->lock);
	if (o == NULL)
		return -ENOENT;
	*out = o;
	return 0;
}

/*
 * vfs_obj_adopt() - the object for (@ex, @kh), taking ownership of the
 * O_PATH @fd (closed when an object for it is already cached, or on
 * error). @st is @fd's stat. Returns 0 and a new reference, or -errno.
 */
int vfs_obj_adopt(struct vfs_export *ex, int fd, const struct stat *st,
		  const struct vfs_kh *kh, struct vfs_obj **out)
{
	uint32_t hash = kh_hash(ex, kh);
	struct cache_shard *s = shard_of(hash);
	struct vfs_obj *o, *n, *victims = NULL;

	n = calloc(1, sizeof(*n));
	if (n == NULL) {
		close(fd);
		return -ENOMEM;
	}
	n->hash = hash;
	n->refs = 1;
	n->ex = ex;
	n->fd = fd;
	atomic_init(&n->rfd, -1);
	atomic_init(&n->wfd, -1);
	vfs_obj_dio_init(n);
	pthread_mutex_init(&n->dos_mu, NULL);
	n->type = vfs_ftype_of_mode(st->st_mode);
	n->dev = st->st_dev;
	n->ino = st->st_ino;
	n->is_root = st->st_dev == ex->dev && st->st_ino == ex->ino;
	n->kh = *kh;

	pthread_mutex_lock(&s->lock);
	o = hash_find(s, hash, ex, kh);
	if (o != NULL) {
		/* Lost a race with another thread opening the same file. */
		obj_ref_locked(s, o);
		pthread_mutex_unlock(&s->lock);
		close(fd);
		free(n);
		*out = o;
		return 0;
	}
	vfs_export_get(ex);
	n->hnext = *bucket_of(s, hash);
	*bucket_of(s, hash) = n;
	n->hashed = true;
	s->count++;
	shard_trim(s, &victims);
	pthread_mutex_unlock(&s->lock);
	free_victims(victims);
	*out = n;
	return 0;
}

/*
 * vfs_obj_from_fd() - the object for the file @fd refers to, in @ex.
 * With @adopt, @fd must be O_PATH and is owned by the call (kept in a new
 * object or closed); else the caller keeps @fd and the object gets its
 * own. Returns 0 and a new reference, -EXDEV for another filesystem, or
 * -errno.
 */
int vfs_obj_from_fd(struct vfs_export *ex, int fd, bool adopt,
		    struct vfs_obj **out)
{
	struct vfs_kh kh;
	struct stat st;
	int ret, pfd, mnt;

	if (fstat(fd, &st) < 0) {
		ret = -errno;
		goto out_close;
	}
	if (st.st_dev != ex->dev) {
		ret = -EXDEV;
		goto out_close;
	}
	ret = vfs_kh_of_fd_mnt(fd, &kh, &mnt);
	if (ret < 0)
		goto out_close;
	/* A bind mount inside the export: same st_dev, another mount. */
	if (mnt != ex->mnt_id) {
		ret = -EXDEV;
		goto out_close;
	}
	if (vfs_obj_find(ex, &kh, out) == 0) {
		if (adopt)
			close(fd);
		return 0;
	}
	if (adopt)
		return vfs_obj_adopt(ex, fd, &st, &kh, out);
	pfd = vfs_kh_open(ex, &kh, O_PATH | O_NOFOLLOW);
	if (pfd < 0)
		return pfd;
	return vfs_obj_adopt(ex, pfd, &st, &kh, out);

out_close:
	if (adopt)
		close(fd);
	return ret;
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
	struct stat st;

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
		if (fstat(o->fd, &st) == 0 && st.st_nlink == 0) {
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

/*
 * vfs_obj_doom() - the file of @kh lost a name through us: drop its
 * cached object once unused if no name is left.
 */
void vfs_obj_doom(struct vfs_export *ex, const struct vfs_kh *kh)
{
	uint32_t hash = kh_hash(ex, kh);
	struct cache_shard *s = shard_of(hash);
	struct vfs_obj *o, *victim = NULL;
	struct stat st;

	pthread_mutex_lock(&s->lock);
	o = hash_find(s, hash, ex, kh);
	if (o != NULL && o->refs > 0) {
		o->doomed = true;
	} else if (o != NULL) {
		if (fstat(o->fd, &st) < 0 || st.st_nlink == 0) {
			lru_del(s, o);
			hash_del(s, o);
			victim = o;
		}
	}
	pthread_mutex_unlock(&s->lock);
	if (victim != NULL)
		obj_free(victim);
}

/*
 * vfs_obj_data_fd() - @o's cached data fd, opened as root on first use
 * (O_RDWR for @write, else the O_RDWR one if open or an O_RDONLY one).
 * The fd stays valid while the caller holds its reference; permission is
 * checked per call by the caller (vfs_check_data). Returns fd or -errno.
 */
int vfs_obj_data_fd(struct vfs_obj *o, bool write)
{
	atomic_int *slot = write ? &o->wfd : &o->rfd;
	int fd, expected = -1;

	fd = atomic_load(&o->wfd);
	if (fd >= 0)
		return fd;
	if (!write) {
		fd = atomic_load(&o->rfd);
		if (fd >= 0)
			return fd;
	}
	if (o->type == VFS_DIR)
		return -EISDIR;
	if (o->type != VFS_REG)
		return -EINVAL;
	fd = vfs_kh_open(o->ex, &o->kh, write ? O_RDWR : O_RDONLY);
	if (fd < 0)
		return fd;
	if (!atomic_compare_exchange_strong(slot, &expected, fd)) {
		close(fd);
		return expected;
	}
	return fd;
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
	close(ex->root_fd);
	free(ex->path);
	free(ex);
}

int vfs_export_open(const char *path, uint32_t id, struct vfs_export **out)
{
	struct vfs_export *ex;
	struct vfs_kh kh;
	struct stat st;
	int ret, fd;

	vfs_global_init();
	ex = calloc(1, sizeof(*ex));
	if (ex == NULL)
		return -ENOMEM;
	atomic_init(&ex->refs, 1);
	atomic_init(&ex->opens, 1);
	atomic_init(&ex->io, VFS_IO_AUTO);
	ex->id = id;
	ex->root_fd = -1;
	ex->path = realpath(path, NULL);
	if (ex->path == NULL) {
		ret = -errno;
		goto out_free;
	}
	/* open_by_handle_at() refuses an O_PATH mount fd: open it for real. */
	ex->root_fd = open(ex->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (ex->root_fd < 0) {
		ret = -errno;
		goto out_free;
	}
	if (fstat(ex->root_fd, &st) < 0) {
		ret = -errno;
		goto out_free;
	}
	ex->dev = st.st_dev;
	ex->ino = st.st_ino;
	ret = vfs_kh_of_fd_mnt(ex->root_fd, &kh, &ex->mnt_id);
	if (ret < 0) {
		log_err("vfs: %s: filesystem without file handles: %s",
			ex->path, strerror(-ret));
		goto out_free;
	}
	fd = openat(ex->root_fd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		goto out_free;
	}
	ret = vfs_obj_adopt(ex, fd, &st, &kh, &ex->root);
	if (ret < 0)
		goto out_free;
	*out = ex;
	return 0;

out_free:
	if (ex->root_fd >= 0)
		close(ex->root_fd);
	free(ex->path);
	free(ex);
	return ret;
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
