// SPDX-License-Identifier: MIT
/*
 * Extended attributes of an object (SMB EAs and NFSv4.2's xattrs, RFC
 * 8276): the checks every backend shares, and the ctime-keyed caches of
 * the names and of xattrs known absent, over the backend's primitives.
 * The caller's credentials apply (the backend checks read permission to
 * get or list, write to set or remove).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "vfs/vfs.h"
#include "vfs/vfs_int.h"

static int name_check(const char *name)
{
	size_t n = strlen(name);

	return n && n <= VFS_XATTR_NAME_MAX ? 0 : -ERANGE;
}

/*
 * Only regular files and directories keep user. attributes, as the
 * kernel has it: reads of any other type find none, writes are EPERM.
 * Checked here, not left to the backend (the local one reaches a file
 * through its descriptor's /proc path, which for a symlink would be
 * followed to the link's target, outside the export perhaps).
 */
static bool type_ok(const struct vfs_obj *o)
{
	return o->type == VFS_REG || o->type == VFS_DIR;
}

/** vfs_xattr_probe() - see vfs.h. */
int vfs_xattr_probe(struct vfs_obj *o)
{
	if (!type_ok(o))
		return 0;
	return vfs_ops(o->ex)->xattr_probe(o);
}

ssize_t vfs_xattr_get(struct vfs_obj *o, const char *name, void *buf,
		      size_t size)
{
	int err;

	err = name_check(name);
	if (err)
		return err;
	if (!type_ok(o))
		return -ENODATA;
	return vfs_ops(o->ex)->xattr_get(o, name, buf, size);
}

/* Our own change to @o's xattrs: what was known absent may not be. */
static void xabsent_forget(struct vfs_obj *o)
{
	pthread_mutex_lock(&o->dos_mu);
	o->xabsent = 0;
	o->xgen++;
	o->xnames_valid = false;
	pthread_mutex_unlock(&o->dos_mu);
}

ssize_t vfs_xattr_get_slot(struct vfs_obj *o, const struct vfs_attr *a,
			   unsigned int slot, const char *name, void *buf,
			   size_t size)
{
	uint32_t bit = 1u << (slot & 31), gen;
	ssize_t n;

	pthread_mutex_lock(&o->dos_mu);
	if ((o->xabsent & bit) && vfs_ts_equal(&o->xabsent_ctime, &a->ctime)) {
		pthread_mutex_unlock(&o->dos_mu);
		return -ENODATA;
	}
	gen = o->xgen;
	pthread_mutex_unlock(&o->dos_mu);
	n = vfs_xattr_get(o, name, buf, size);
	if (n != -ENODATA)
		return n;
	pthread_mutex_lock(&o->dos_mu);
	if (o->xgen == gen) {
		if (!vfs_ts_equal(&o->xabsent_ctime, &a->ctime)) {
			o->xabsent = 0;
			o->xabsent_ctime = a->ctime;
		}
		o->xabsent |= bit;
	}
	pthread_mutex_unlock(&o->dos_mu);
	return n;
}

int vfs_xattr_set(struct vfs_obj *o, const char *name, const void *val,
		  size_t len, enum vfs_xattr_how how)
{
	int err;

	err = name_check(name);
	if (err)
		return err;
	if ((unsigned int)how > VFS_XATTR_REPLACE)
		return -EINVAL;
	if (len > VFS_XATTR_VALUE_MAX)
		return -E2BIG;
	if (!type_ok(o))
		return -EPERM;
	xabsent_forget(o);
	return vfs_ops(o->ex)->xattr_set(o, name, val, len, how);
}

ssize_t vfs_xattr_list(struct vfs_obj *o, char *buf, size_t size)
{
	if (!type_ok(o))
		return 0;
	return vfs_ops(o->ex)->xattr_list(o, buf, size);
}

/* A list of names longer than this is listed each time, not kept. */
#define XNAMES_KEEP_MAX 1024

/* A malloc'd copy of @len bytes of @names, NUL-terminated once more. */
static char *names_dup(const char *names, size_t len)
{
	char *p = malloc(len + 1);

	if (p) {
		memcpy(p, names, len);
		p[len] = '\0';
	}
	return p;
}

/* The names remembered for @o under @ctime into *@out: true, or false
 * when nothing valid is remembered. Under dos_mu. */
static bool xnames_recall(struct vfs_obj *o, const struct timespec *ctime,
			  char **out, ssize_t *len)
{
	if (!o->xnames_valid || !vfs_ts_equal(&o->xnames_ctime, ctime))
		return false;
	*out = NULL;
	*len = 0;
	if (!o->xnames_len)
		return true;
	*out = names_dup(o->xnames, o->xnames_len);
	*len = *out ? (ssize_t)o->xnames_len : -ENOMEM;
	return true;
}

/* All of @o's names, as vfs_xattr_names() gives them, from the kernel. */
static ssize_t names_list(struct vfs_obj *o, char **out)
{
	ssize_t n;

	*out = NULL;
	for (int tries = 0; tries < 4; tries++) {
		n = vfs_xattr_list(o, NULL, 0);
		if (n <= 0)
			return n == -ENOTSUP ? 0 : n;
		*out = malloc((size_t)n + 1);
		if (!*out)
			return -ENOMEM;
		n = vfs_xattr_list(o, *out, (size_t)n);
		if (n >= 0) {
			(*out)[n] = '\0';
			return n;
		}
		free(*out);
		*out = NULL;
		if (n != -ERANGE) /* not "grew in between" */
			return n;
	}
	return -EAGAIN;
}

ssize_t vfs_xattr_names(struct vfs_obj *o, const struct vfs_attr *a,
			char **out)
{
	uint32_t gen = 0;
	ssize_t n;
	char *buf;

	*out = NULL;
	if (a) {
		pthread_mutex_lock(&o->dos_mu);
		if (xnames_recall(o, &a->ctime, out, &n)) {
			pthread_mutex_unlock(&o->dos_mu);
			return n;
		}
		gen = o->xgen;
		pthread_mutex_unlock(&o->dos_mu);
	}
	n = names_list(o, &buf);
	if (n < 0)
		return n;
	if (a && (size_t)n <= XNAMES_KEEP_MAX) {
		char *keep = n ? names_dup(buf, (size_t)n) : NULL;

		pthread_mutex_lock(&o->dos_mu);
		if (o->xgen == gen && (keep || !n)) {
			free(o->xnames);
			o->xnames = keep;
			o->xnames_len = (size_t)n;
			o->xnames_ctime = a->ctime;
			o->xnames_valid = true;
			keep = NULL;
		}
		pthread_mutex_unlock(&o->dos_mu);
		free(keep);
	}
	*out = buf;
	return n;
}

int vfs_xattr_remove(struct vfs_obj *o, const char *name)
{
	int err;

	err = name_check(name);
	if (err)
		return err;
	if (!type_ok(o))
		return -EPERM;
	xabsent_forget(o);
	return vfs_ops(o->ex)->xattr_remove(o, name);
}
