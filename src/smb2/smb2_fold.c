// SPDX-License-Identifier: MIT
/*
 * Case-insensitive names (MS-FSA 2.1.5.1.2: a share that does not match
 * case): an exact vfs_lookup first, which is what clients send nearly
 * always; on a miss, a cache per directory of its names folded to upper
 * case, built by one listing and kept while the directory's change
 * attribute stays the same, so a miss costs a hash probe, not a rescan
 * of the directory (Samba's slow path on big directories).
 *
 * Trust: a hit is checked by looking the real name up (a stale hit
 * rebuilds). A miss is only believed when the listing started after the
 * directory's last change was old enough to have moved its ctime: with
 * the kernel's coarse timestamps, two changes within one tick leave the
 * change attribute equal, so a directory changed in the last
 * FOLD_SETTLE_NS is listed again on a miss.
 *
 * Memory: at most FOLD_BUDGET bytes of names in all, directories evicted
 * least recently used first; a directory bigger than the budget's share
 * is listed on each miss instead of cached (still correct, slower).
 */
#include "smb2/smb2_fold.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "smb2/wildcard.h"
#include "vfs/vfs.h"

#define FOLD_BUDGET	(32u << 20) /* bytes of cached names in all */
#define FOLD_DIR_MAX	(FOLD_BUDGET / 4) /* one directory at most */
#define FOLD_DIRS_HASH	1024
#define FOLD_SETTLE_NS	(50ull * 1000000) /* > a jiffy at HZ=100 */
#define FOLD_NAME_BYTES (VFS_NAME_MAX * 3)

struct fold_name {
	struct fold_name *next;
	uint32_t hash;
	uint16_t flen;     /* folded name, then the real one, in text[] */
	uint16_t len;
	char text[];
};

struct fold_dir {
	struct fold_dir *hnext;
	struct fold_dir *prev, *next; /* LRU, most recent first */
	uint64_t fsid, fileid;
	uint64_t change;   /* the directory's, when listed */
	bool trusted;      /* a miss means no such name */
	uint32_t nbuckets;
	size_t bytes;
	struct fold_name **buckets;
};

static struct {
	pthread_mutex_t mu;
	struct fold_dir *hash[FOLD_DIRS_HASH];
	struct fold_dir lru; /* list head */
	size_t bytes;
} fc = {
	.mu = PTHREAD_MUTEX_INITIALIZER,
	.lru = { .prev = &fc.lru, .next = &fc.lru },
};

/* ctime's clock, in nanoseconds. */
static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint32_t name_hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u; /* FNV-1a */

	while (n--)
		h = (h ^ (uint8_t)*s++) * 16777619u;
	return h;
}

static uint32_t dir_slot(uint64_t fsid, uint64_t fileid)
{
	uint64_t k = (fsid * 0x9e3779b97f4a7c15ull) ^ fileid;

	return (uint32_t)((k ^ (k >> 29)) % FOLD_DIRS_HASH);
}

static void dir_free(struct fold_dir *d)
{
	uint32_t i;

	if (!d)
		return;
	for (i = 0; i < d->nbuckets; i++) {
		while (d->buckets[i]) {
			struct fold_name *n = d->buckets[i];

			d->buckets[i] = n->next;
			free(n);
		}
	}
	free(d->buckets);
	free(d);
}

/* Take @d out of the table and the LRU (fc.mu held). */
static void dir_unlink(struct fold_dir *d)
{
	struct fold_dir **pp = &fc.hash[dir_slot(d->fsid, d->fileid)];

	while (*pp && *pp != d)
		pp = &(*pp)->hnext;
	if (*pp)
		*pp = d->hnext;
	d->prev->next = d->next;
	d->next->prev = d->prev;
	fc.bytes -= d->bytes;
}

static struct fold_dir *dir_find(uint64_t fsid, uint64_t fileid)
{
	struct fold_dir *d = fc.hash[dir_slot(fsid, fileid)];

	while (d && (d->fsid != fsid || d->fileid != fileid))
		d = d->hnext;
	return d;
}

/* The real name of @folded in @d, copied to @out; false if none. */
static bool dir_get(const struct fold_dir *d, const char *folded, size_t flen,
		    char *out, size_t *outlen)
{
	uint32_t h = name_hash(folded, flen);
	const struct fold_name *n;

	for (n = d->buckets[h % d->nbuckets]; n; n = n->next) {
		if (n->hash == h && n->flen == flen &&
		    !memcmp(n->text, folded, flen)) {
			memcpy(out, n->text + flen, n->len);
			*outlen = n->len;
			return true;
		}
	}
	return false;
}

struct listing {
	struct fold_dir *d;
	uint32_t nnames;
	int err;
};

static int dir_add(struct fold_dir *d, const char *name, size_t len)
{
	char folded[FOLD_NAME_BYTES];
	struct fold_name *n;
	size_t flen;
	uint32_t h;

	if (wildcard_fold_utf8(name, len, folded, sizeof(folded), &flen))
		return 0; /* a name SMB cannot spell anyway */
	h = name_hash(folded, flen);
	n = malloc(sizeof(*n) + flen + len);
	if (!n)
		return -ENOMEM;
	n->hash = h;
	n->flen = (uint16_t)flen;
	n->len = (uint16_t)len;
	memcpy(n->text, folded, flen);
	memcpy(n->text + flen, name, len);
	/* Two names equal but for case (made over NFS): the first listed
	 * wins, as on Samba. */
	n->next = d->buckets[h % d->nbuckets];
	d->buckets[h % d->nbuckets] = n;
	d->bytes += sizeof(*n) + flen + len;
	return 0;
}

static bool list_emit(void *ctx, const struct vfs_dirent *de)
{
	struct listing *l = ctx;

	if ((de->namelen == 1 && de->name[0] == '.') ||
	    (de->namelen == 2 && !memcmp(de->name, "..", 2)))
		return true;
	l->err = dir_add(l->d, de->name, de->namelen);
	l->nnames++;
	if (!l->err && l->d->bytes > FOLD_DIR_MAX)
		l->err = -EFBIG;
	return !l->err;
}

/* List @dir into a new fold_dir (*@out); -EFBIG when too big to keep. */
static int dir_build(struct vfs_obj *dir, const struct vfs_attr *a,
		     uint64_t started_ns, struct fold_dir **out)
{
	struct listing l = { 0 };
	bool eof = false;
	int err;

	l.d = calloc(1, sizeof(*l.d));
	if (!l.d)
		return -ENOMEM;
	/* Sized for the directory (its size grows with its entries on
	 * ext4/xfs; 1 bucket per ~32 bytes of it), rounded to a power of
	 * two, at least 64. */
	l.d->nbuckets = 64;
	while (l.d->nbuckets < a->size / 32 && l.d->nbuckets < (1u << 20))
		l.d->nbuckets <<= 1;
	l.d->buckets = calloc(l.d->nbuckets, sizeof(struct fold_name *));
	if (!l.d->buckets) {
		free(l.d);
		return -ENOMEM;
	}
	l.d->bytes = sizeof(*l.d) + l.d->nbuckets * sizeof(void *);
	l.d->fsid = a->fsid;
	l.d->fileid = a->fileid;
	l.d->change = a->change;
	l.d->trusted = (uint64_t)a->ctime.tv_sec * 1000000000ull +
			       (uint64_t)a->ctime.tv_nsec + FOLD_SETTLE_NS <
		       started_ns;
	/* One call lists to the end, or stops at an error. */
	err = vfs_readdir(dir, 0, list_emit, &l, &eof);
	if (!err)
		err = l.err;
	if (!err && !eof)
		err = -EIO;
	if (err) {
		dir_free(l.d);
		return err;
	}
	*out = l.d;
	return 0;
}

/*
 * Keep @d (fc.mu held): replaces an older listing of the directory,
 * evicts the least recently used beyond the budget.
 */
static void dir_keep(struct fold_dir *d)
{
	struct fold_dir *old = dir_find(d->fsid, d->fileid);
	uint32_t slot = dir_slot(d->fsid, d->fileid);

	if (old) {
		dir_unlink(old);
		dir_free(old);
	}
	while (fc.bytes + d->bytes > FOLD_BUDGET && fc.lru.prev != &fc.lru) {
		struct fold_dir *v = fc.lru.prev;

		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): off the list */
		dir_unlink(v);
		dir_free(v);
	}
	d->hnext = fc.hash[slot];
	fc.hash[slot] = d;
	d->next = fc.lru.next;
	d->prev = &fc.lru;
	fc.lru.next->prev = d;
	fc.lru.next = d;
	fc.bytes += d->bytes;
}

/* Find @folded in a fresh listing of @dir (kept when it fits). */
static int lookup_listed(struct vfs_obj *dir, const struct vfs_attr *a,
			 const char *folded, size_t flen, char *real,
			 size_t *reallen)
{
	struct fold_dir *d;
	bool found;
	int err;

	err = dir_build(dir, a, realtime_ns(), &d);
	if (err)
		return err; /* -EFBIG: too big to keep */
	found = dir_get(d, folded, flen, real, reallen);
	pthread_mutex_lock(&fc.mu);
	dir_keep(d);
	pthread_mutex_unlock(&fc.mu);
	return found ? 0 : -ENOENT;
}

struct scan {
	const char *folded;
	size_t flen;
	char *real;
	size_t *reallen;
	bool found;
};

static bool scan_emit(void *ctx, const struct vfs_dirent *de)
{
	struct scan *s = ctx;
	char f[FOLD_NAME_BYTES];
	size_t n;

	if (wildcard_fold_utf8(de->name, de->namelen, f, sizeof(f), &n) ||
	    n != s->flen || memcmp(f, s->folded, n) != 0)
		return true;
	memcpy(s->real, de->name, de->namelen);
	*s->reallen = de->namelen;
	s->found = true;
	return false;
}

/* The same without keeping anything (a directory too big to cache). */
static int lookup_scanned(struct vfs_obj *dir, const char *folded,
			  size_t flen, char *real, size_t *reallen)
{
	struct scan s = { folded, flen, real, reallen, false };
	bool eof;
	int err;

	err = vfs_readdir(dir, 0, scan_emit, &s, &eof);
	if (err)
		return err;
	return s.found ? 0 : -ENOENT;
}

int smb2_fold_lookup(struct vfs_obj *dir, const char *name, size_t len,
		     bool sensitive, bool nowait, struct vfs_obj **out,
		     char *real, size_t *reallen)
{
	char folded[FOLD_NAME_BYTES], found[FOLD_NAME_BYTES];
	size_t flen, foundlen = 0;
	bool hit = false, trusted = false;
	struct vfs_attr a;
	struct fold_dir *d;
	int err;

	err = vfs_lookup(dir, name, len, out);
	if (err != -ENOENT || sensitive) {
		if (!err && real) {
			memcpy(real, name, len);
			*reallen = len;
		}
		return err;
	}
	if (wildcard_fold_utf8(name, len, folded, sizeof(folded), &flen))
		return -ENOENT;
	err = vfs_getattr(dir, &a);
	if (err)
		return err;
	pthread_mutex_lock(&fc.mu);
	d = dir_find(a.fsid, a.fileid);
	if (d && d->change == a.change) {
		hit = dir_get(d, folded, flen, found, &foundlen);
		trusted = d->trusted;
		/* most recently used first */
		d->prev->next = d->next;
		d->next->prev = d->prev;
		d->next = fc.lru.next;
		d->prev = &fc.lru;
		fc.lru.next->prev = d;
		fc.lru.next = d;
	}
	pthread_mutex_unlock(&fc.mu);
	if (!hit && trusted)
		return -ENOENT;
	if (hit) {
		err = vfs_lookup(dir, found, foundlen, out);
		if (err != -ENOENT)
			goto out_found;
	}
	if (nowait)
		return -EAGAIN; /* a listing: the worker's */
	err = lookup_listed(dir, &a, folded, flen, found, &foundlen);
	if (err == -EFBIG)
		err = lookup_scanned(dir, folded, flen, found, &foundlen);
	/* A directory the user may search but not list: the exact name
	 * was all there was to find. */
	if (err == -EACCES || err == -EPERM)
		err = -ENOENT;
	if (err)
		return err;
	err = vfs_lookup(dir, found, foundlen, out);
out_found:
	if (!err && real) {
		memcpy(real, found, foundlen);
		*reallen = foundlen;
	}
	return err;
}
