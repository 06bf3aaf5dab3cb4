// SPDX-License-Identifier: MIT
/*
 * Named streams in xattrs (smb2_stream.h). A write or a size change is a
 * read, a change and a write of the whole value; those of one object are
 * serialized by a lock striped by object, so that two writers of one
 * stream (or of two streams of one file, which share nothing on disk but
 * the inode) never lose each other's bytes. Reads take no lock: the
 * kernel sets an xattr value whole.
 */
#include "smb2/smb2_stream.h"

#include <errno.h>
#include <pthread.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "smb2/smb2_wire.h"
#include "smb2/wildcard.h"
#include "vfs/vfs.h"

#define STRIPES 32

struct stripe {
	alignas(64) pthread_mutex_t mu;
};

static struct stripe stripes[STRIPES] = {
	[0 ... STRIPES - 1] = { .mu = PTHREAD_MUTEX_INITIALIZER },
};

static pthread_mutex_t *stripe_of(const struct vfs_obj *obj)
{
	uint64_t k = (uint64_t)(uintptr_t)obj * 0x9e3779b97f4a7c15ull;

	return &stripes[(k >> 59) % STRIPES].mu;
}

static bool type_is_data(const char *t, size_t n)
{
	static const char data[] = "$DATA";
	size_t i;

	if (n != sizeof(data) - 1)
		return false;
	for (i = 0; i < n; i++) {
		char c = t[i];

		if (c >= 'a' && c <= 'z')
			c = (char)(c - 'a' + 'A');
		if (c != data[i])
			return false;
	}
	return true;
}

uint32_t smb2_stream_parse(const char *spec, size_t len, const char **name,
			   size_t *name_len)
{
	const char *colon = memchr(spec, ':', len);
	size_t n = colon ? (size_t)(colon - spec) : len, i;

	if (colon && !type_is_data(colon + 1, len - n - 1))
		return STATUS_OBJECT_NAME_INVALID;
	if (!n && !colon)
		return STATUS_OBJECT_NAME_INVALID;
	if (n > SMB2_STREAM_NAME_MAX)
		return STATUS_OBJECT_NAME_INVALID;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)spec[i];

		if (!c || c == '\\' || c == '/')
			return STATUS_OBJECT_NAME_INVALID;
	}
	*name = spec;
	*name_len = n;
	return STATUS_SUCCESS;
}

const char *smb2_stream_display(const char *xname, size_t *len)
{
	size_t n = strlen(xname);

	if (n <= SMB2_STREAM_PREFIX_LEN + SMB2_STREAM_SUFFIX_LEN ||
	    memcmp(xname, SMB2_STREAM_PREFIX, SMB2_STREAM_PREFIX_LEN) != 0 ||
	    strcmp(xname + n - SMB2_STREAM_SUFFIX_LEN, SMB2_STREAM_SUFFIX) != 0)
		return NULL;
	*len = n - SMB2_STREAM_PREFIX_LEN - SMB2_STREAM_SUFFIX_LEN;
	return xname + SMB2_STREAM_PREFIX_LEN;
}

int smb2_stream_each(struct vfs_obj *obj,
		     bool (*fn)(void *ctx, const char *name, size_t len,
				uint64_t size),
		     void *ctx)
{
	const char *dn;
	char *names, *p;
	ssize_t n, sz;
	size_t dlen;

	n = vfs_xattr_names(obj, NULL, &names);
	if (n <= 0)
		return (int)n;
	for (p = names; p < names + n; p += strlen(p) + 1) {
		dn = smb2_stream_display(p, &dlen);
		if (!dn)
			continue;
		sz = smb2_stream_size(obj, p);
		if (sz < 0)
			continue; /* removed in between */
		if (!fn(ctx, dn, dlen, (uint64_t)sz))
			break;
	}
	free(names);
	return 0;
}

static int xname_make(const char *name, size_t len, char *xname)
{
	if (len > SMB2_STREAM_NAME_MAX)
		return -ENAMETOOLONG;
	(void)snprintf(xname, SMB2_STREAM_XNAME_SIZE, "%s%.*s%s",
		       SMB2_STREAM_PREFIX, (int)len, name, SMB2_STREAM_SUFFIX);
	return 0;
}

int smb2_stream_find(struct vfs_obj *obj, const char *name, size_t len,
		     char *xname)
{
	char want[SMB2_STREAM_NAME_MAX * 3], have[SMB2_STREAM_NAME_MAX * 3];
	size_t wlen, hlen, dlen;
	const char *dn;
	char *names, *p;
	ssize_t n;
	int err;

	err = xname_make(name, len, xname);
	if (err)
		return err;
	n = vfs_xattr_get(obj, xname, NULL, 0);
	if (n >= 0)
		return 0;
	if (n != -ENODATA)
		return n == -ENOTSUP ? -ENOENT : (int)n;
	/* Not by its exact name: one whose name is equal ignoring case. */
	if (wildcard_fold_utf8(name, len, want, sizeof(want), &wlen))
		return -ENOENT;
	n = vfs_xattr_names(obj, NULL, &names);
	if (n < 0)
		return (int)n;
	err = -ENOENT;
	for (p = names; p && p < names + n; p += strlen(p) + 1) {
		dn = smb2_stream_display(p, &dlen);
		if (!dn || wildcard_fold_utf8(dn, dlen, have, sizeof(have),
					      &hlen) ||
		    hlen != wlen || memcmp(have, want, wlen) != 0)
			continue;
		memcpy(xname, p, strlen(p) + 1);
		err = 0;
		break;
	}
	free(names);
	return err;
}

/* The value of @xname into @buf (SMB2_STREAM_DATA_MAX + 1 bytes): the
 * stream's length (the trailing NUL not counted) or -errno. */
static ssize_t value_get(struct vfs_obj *obj, const char *xname, char *buf)
{
	ssize_t n = vfs_xattr_get(obj, xname, buf, SMB2_STREAM_DATA_MAX + 1);

	if (n < 0)
		return n == -ENODATA ? -ENOENT : n;
	/* Samba's trailing NUL (smb2_stream_size() counts as it does) */
	return n > 0 ? n - 1 : 0;
}

static int value_set(struct vfs_obj *obj, const char *xname, char *buf,
		     size_t len, enum vfs_xattr_how how)
{
	buf[len] = '\0';
	return vfs_xattr_set(obj, xname, buf, len + 1, how);
}

ssize_t smb2_stream_size(struct vfs_obj *obj, const char *xname)
{
	ssize_t n = vfs_xattr_get(obj, xname, NULL, 0);

	/* the value's length less Samba's trailing NUL: one syscall, no
	 * read of the bytes */
	if (n < 0)
		return n == -ENODATA ? -ENOENT : n;
	return n > 0 ? n - 1 : 0;
}

ssize_t smb2_stream_read(struct vfs_obj *obj, const char *xname, uint64_t off,
			 void *buf, size_t len)
{
	char *val = malloc(SMB2_STREAM_DATA_MAX + 1);
	ssize_t n;

	if (!val)
		return -ENOMEM;
	n = value_get(obj, xname, val);
	if (n >= 0) {
		if (off >= (uint64_t)n) {
			n = 0;
		} else {
			if (len > (size_t)n - off)
				len = (size_t)n - off;
			memcpy(buf, val + off, len);
			n = (ssize_t)len;
		}
	}
	free(val);
	return n;
}

/* Change the stream under its object's lock: @fn edits the value. */
static ssize_t value_edit(struct vfs_obj *obj, const char *xname,
			  uint64_t end, const void *data, uint64_t off,
			  size_t len, bool cut)
{
	pthread_mutex_t *mu = stripe_of(obj);
	char *buf;
	ssize_t n;
	int err;

	if (end > SMB2_STREAM_DATA_MAX)
		return -ENOSPC;
	buf = malloc(SMB2_STREAM_DATA_MAX + 1);
	if (!buf)
		return -ENOMEM;
	pthread_mutex_lock(mu);
	n = value_get(obj, xname, buf);
	if (n < 0)
		goto out;
	if (end > (uint64_t)n)
		memset(buf + n, 0, (size_t)(end - (uint64_t)n));
	if (len)
		memcpy(buf + off, data, len);
	if (cut || end > (uint64_t)n)
		n = (ssize_t)end;
	err = value_set(obj, xname, buf, (size_t)n, VFS_XATTR_REPLACE);
	if (err)
		n = err == -ENODATA ? -ENOENT : err;
out:
	pthread_mutex_unlock(mu);
	free(buf);
	return n;
}

ssize_t smb2_stream_write(struct vfs_obj *obj, const char *xname, uint64_t off,
			  const void *data, size_t len)
{
	ssize_t n;

	if (!len)
		return 0;
	if (off > SMB2_STREAM_DATA_MAX || len > SMB2_STREAM_DATA_MAX - off)
		return -ENOSPC;
	n = value_edit(obj, xname, off + len, data, off, len, false);
	return n < 0 ? n : (ssize_t)len;
}

int smb2_stream_set_size(struct vfs_obj *obj, const char *xname,
			 uint64_t size)
{
	ssize_t n = value_edit(obj, xname, size, NULL, 0, 0, true);

	return n < 0 ? (int)n : 0;
}

int smb2_stream_create(struct vfs_obj *obj, const char *xname, bool excl)
{
	char nul = '\0';

	return vfs_xattr_set(obj, xname, &nul, 1,
			     excl ? VFS_XATTR_CREATE : VFS_XATTR_ANY);
}

int smb2_stream_rename(struct vfs_obj *obj, const char *from, const char *to)
{
	pthread_mutex_t *mu = stripe_of(obj);
	char *buf = malloc(SMB2_STREAM_DATA_MAX + 1);
	ssize_t n;
	int err;

	if (!buf)
		return -ENOMEM;
	pthread_mutex_lock(mu);
	n = value_get(obj, from, buf);
	err = n < 0 ? (int)n
		    : value_set(obj, to, buf, (size_t)n, VFS_XATTR_ANY);
	if (!err) {
		err = vfs_xattr_remove(obj, from);
		if (err) /* the old name stays: so must the data */
			(void)vfs_xattr_remove(obj, to);
	}
	pthread_mutex_unlock(mu);
	free(buf);
	return err == -ENODATA ? -ENOENT : err;
}

int smb2_stream_remove(struct vfs_obj *obj, const char *xname)
{
	int err = vfs_xattr_remove(obj, xname);

	return err == -ENODATA ? -ENOENT : err;
}
