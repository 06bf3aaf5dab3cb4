// SPDX-License-Identifier: MIT
/*
 * The export table: building it, opening its vfs roots, looking exports
 * up, and the live table swapped on SIGHUP. A table is immutable once
 * installed; requests hold a reference while they use it, and the last
 * reference frees it (closing its vfs exports).
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "export/export_int.h"

/*
 * Every request takes the live table: readers share the lock and never
 * wait for each other, only for an install (SIGHUP).
 */
static pthread_rwlock_t current_lock = PTHREAD_RWLOCK_INITIALIZER;
static struct export_table *current;

/* export_err() - format "FILE:LINE: reason" into the context's buffer. */
int export_err(const struct export_ctx *c, const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	if (c->err == NULL || c->errlen == 0)
		return -EINVAL;
	if (c->line > 0)
		n = snprintf(c->err, c->errlen, "%s:%u: ", c->file, c->line);
	else
		n = snprintf(c->err, c->errlen, "%s: ", c->file);
	if (n < 0 || (size_t)n >= c->errlen)
		return -EINVAL;
	va_start(ap, fmt);
	/* An over-long reason is cut; the caller only prints it. */
	(void)vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

uint32_t export_path_hash(const char *path)
{
	/* FNV-1a: stable across runs and builds, so handles survive. */
	uint32_t h = 2166136261u;

	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		h ^= *p;
		h *= 16777619u;
	}
	/* 0 is fsid=0, the NFSv4 root; never give it by accident. */
	return h != 0 ? h : 1;
}

int export_path_normalize(const char *in, size_t len, char *out)
{
	size_t i = 0, o = 0;

	if (len == 0 || in[0] != '/')
		return -EINVAL;
	while (i < len) {
		size_t start, clen;

		while (i < len && in[i] == '/')
			i++;
		start = i;
		while (i < len && in[i] != '/') {
			if (in[i] == '\0')
				return -EINVAL;
			i++;
		}
		clen = i - start;
		if (clen == 0 || (clen == 1 && in[start] == '.'))
			continue;
		if (clen == 2 && in[start] == '.' && in[start + 1] == '.')
			return -EINVAL;
		if (o + 1 + clen >= VFS_PATH_MAX)
			return -EINVAL;
		out[o++] = '/';
		memcpy(out + o, in + start, clen);
		o += clen;
	}
	if (o == 0)
		out[o++] = '/';
	out[o] = '\0';
	return 0;
}

static void export_release(struct export *e)
{
	free(e->path);
	free(e->clients);
	if (e->vex != NULL)
		vfs_export_close(e->vex);
	e->path = NULL;
	e->clients = NULL;
	e->vex = NULL;
}

int export_add(struct export_table *t, char *path,
	       struct export_client *clients, uint32_t nclients,
	       const struct export_wide *wide, const struct export_ctx *c)
{
	struct export *arr, *e;
	uint32_t id;
	int ret;

	id = wide->fsid >= 0 ? (uint32_t)wide->fsid : export_path_hash(path);
	for (uint32_t i = 0; i < t->nexports; i++) {
		if (strcmp(t->exports[i].path, path) == 0) {
			ret = export_err(c, "duplicate export '%s'", path);
			goto out_free;
		}
		if (t->exports[i].id == id) {
			ret = export_err(c,
					 "export id %u of '%s' collides with "
					 "'%s' (set fsid=)",
					 id, path, t->exports[i].path);
			goto out_free;
		}
		if (wide->smb[0] &&
		    strcasecmp(t->exports[i].wide.smb, wide->smb) == 0) {
			ret = export_err(c,
					 "smb share '%s' of '%s' is already "
					 "'%s'",
					 wide->smb, path, t->exports[i].path);
			goto out_free;
		}
	}
	arr = realloc(t->exports, (t->nexports + 1) * sizeof(*arr));
	if (arr == NULL) {
		ret = export_err(c, "out of memory");
		goto out_free;
	}
	t->exports = arr;
	e = &arr[t->nexports++];
	memset(e, 0, sizeof(*e));
	e->path = path;
	e->id = id;
	e->wide = *wide;
	e->nclients = nclients;
	e->clients = clients;
	return 0;

out_free:
	free(path);
	free(clients);
	return ret;
}

struct export_table *export_table_new(void)
{
	struct export_table *t = calloc(1, sizeof(*t));

	if (t != NULL)
		t->refs = 1;
	return t;
}

/*
 * The open vfs export of the live table for the same path and id, if any:
 * a reload keeps what start-up opened, so an export path swapped for a
 * symlink since then is never followed, and the object cache stays warm.
 */
static struct vfs_export *export_live_vex(const struct export *e)
{
	struct export_table *cur = export_table_current();
	struct vfs_export *vex = NULL;
	struct export *old;

	if (cur == NULL)
		return NULL;
	old = export_find_by_id(cur, e->id);
	/* ...and the same storage (a CephFS export keeps its mount). */
	if (old != NULL && old->vex != NULL && !strcmp(old->path, e->path) &&
	    !memcmp(&old->wide.ceph_where, &e->wide.ceph_where,
		    sizeof(e->wide.ceph_where)) &&
	    !strcmp(old->wide.ceph_conf, e->wide.ceph_conf) &&
	    !strcmp(old->wide.ceph_id, e->wide.ceph_id))
		vex = vfs_export_reuse(old->vex);
	export_table_put(cur);
	return vex;
}

/* The export's CephFS directory, opened by the CephFS backend. */
static int export_open_ceph(struct export *e)
{
	const struct vfs_ceph_spec spec = {
		.fs = e->wide.ceph_where.ceph_fs,
		.subdir = e->wide.ceph_where.ceph_dir,
		.conf = e->wide.ceph_conf,
		.id = e->wide.ceph_id,
	};

	return vfs_export_open_ceph(e->path, &spec, e->id, &e->vex);
}

int export_table_open(struct export_table *t, char *err, size_t errlen)
{
	for (uint32_t i = 0; i < t->nexports; i++) {
		struct export *e = &t->exports[i];
		int ret;

		if (e->vex != NULL)
			continue;
		e->vex = export_live_vex(e);
		if (e->vex != NULL)
			ret = 0;
		else if (e->wide.ceph_where.ceph)
			ret = export_open_ceph(e);
		else
			ret = vfs_export_open(e->path, e->id, &e->vex);
		if (ret < 0) {
			if (err != NULL && errlen > 0)
				(void)snprintf(err, errlen, "export '%s': %s",
					       e->path, strerror(-ret));
			/* Nothing half-opened is left behind. */
			for (uint32_t j = 0; j < i; j++) {
				vfs_export_close(t->exports[j].vex);
				t->exports[j].vex = NULL;
			}
			return ret;
		}
	}
	/*
	 * Only once every root is open: a vfs export reused from the live
	 * table changes for it too, so a reload that fails must not have
	 * touched it.
	 */
	for (uint32_t i = 0; i < t->nexports; i++)
		vfs_export_set_io(t->exports[i].vex, t->exports[i].wide.io);
	return 0;
}

void export_table_free(struct export_table *t)
{
	if (t == NULL)
		return;
	for (uint32_t i = 0; i < t->nexports; i++)
		export_release(&t->exports[i]);
	free(t->exports);
	free(t);
}

struct export_table *export_table_current(void)
{
	struct export_table *t;

	pthread_rwlock_rdlock(&current_lock);
	t = current;
	if (t != NULL)
		__atomic_fetch_add(&t->refs, 1, __ATOMIC_RELAXED);
	pthread_rwlock_unlock(&current_lock);
	return t;
}

void export_table_put(struct export_table *t)
{
	if (t == NULL)
		return;
	if (__atomic_sub_fetch(&t->refs, 1, __ATOMIC_ACQ_REL) == 0)
		export_table_free(t);
}

/*
 * The caller's reference (from export_table_new) becomes the live
 * table's; the previous table is put and freed once its last request is
 * done. Installing NULL empties the live table (shutdown).
 */
void export_table_install(struct export_table *t)
{
	struct export_table *old;

	pthread_rwlock_wrlock(&current_lock);
	old = current;
	current = t;
	pthread_rwlock_unlock(&current_lock);
	export_table_put(old);
}

struct export *export_find_by_id(struct export_table *t, uint32_t id)
{
	for (uint32_t i = 0; i < t->nexports; i++)
		if (t->exports[i].id == id)
			return &t->exports[i];
	return NULL;
}

struct export *export_find_by_share(struct export_table *t, const char *name,
				    size_t len)
{
	for (uint32_t i = 0; i < t->nexports; i++) {
		const char *s = t->exports[i].wide.smb;

		if (s[0] && strlen(s) == len && strncasecmp(s, name, len) == 0)
			return &t->exports[i];
	}
	return NULL;
}

struct export *export_find_by_path(struct export_table *t, const char *path,
				   size_t len)
{
	char norm[VFS_PATH_MAX];

	if (len >= VFS_PATH_MAX || export_path_normalize(path, len, norm) < 0)
		return NULL;
	for (uint32_t i = 0; i < t->nexports; i++)
		if (strcmp(t->exports[i].path, norm) == 0)
			return &t->exports[i];
	return NULL;
}
