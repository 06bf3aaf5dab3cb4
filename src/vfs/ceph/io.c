// SPDX-License-Identifier: MIT
/*
 * The CephFS backend's data path, space operations and extended
 * attributes (ceph.h). Reads land in pooled buffers (no file ranges:
 * the bytes are not in a local file the kernel could send); the io=
 * modes do not apply (libcephfs has its own object cache).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "core/iobuf.h"
#include "core/req.h"
#include "vfs/ceph/ceph.h"

/* Largest single libcephfs read or write (its length is an int). */
#define CEPH_IO_CHUNK (8u << 20)
/* Bounce buffer of vfs_copy_range(). */
#define CEPH_COPY_CHUNK (1u << 20)

static int type_check(const struct vfs_obj *o)
{
	if (o->type == VFS_DIR)
		return -EISDIR;
	if (o->type != VFS_REG)
		return -EINVAL;
	return 0;
}

/* [@off, @off + @len) must be representable as a file range. */
static int range_check(uint64_t off, uint64_t len)
{
	if (off > INT64_MAX || len > (uint64_t)INT64_MAX - off)
		return -EFBIG;
	return 0;
}

/* Type and permission checked, a data handle for @write (given back
 * with ceph_ll_close). */
static int data_fh(struct vfs_obj *o, bool write, struct Fh **fh)
{
	int ret = type_check(o);

	if (ret == 0)
		ret = cfs_check_data(o, write);
	if (ret == 0)
		ret = cfs_fh_open(o, write, fh);
	return ret;
}

/* Read [@off, @off + @len) into @buf until done or the end of the file:
 * the bytes read, or -errno. */
static ssize_t read_full(struct vfs_obj *o, struct Fh *fh, uint64_t off,
			 uint8_t *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		size_t want = len - done < CEPH_IO_CHUNK ? len - done
							  : CEPH_IO_CHUNK;
		int n = ceph_ll_read(CM(o), fh, (int64_t)(off + done), want,
				     (char *)buf + done);

		if (n < 0)
			return done > 0 ? (ssize_t)done : n;
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

/* Write all of @len bytes at @off: the bytes written, or -errno. */
static ssize_t write_full(struct vfs_obj *o, struct Fh *fh, uint64_t off,
			  const uint8_t *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		size_t want = len - done < CEPH_IO_CHUNK ? len - done
							  : CEPH_IO_CHUNK;
		int n = ceph_ll_write(CM(o), fh, (int64_t)(off + done), want,
				      (const char *)buf + done);

		if (n < 0)
			return done > 0 ? (ssize_t)done : n;
		if (n == 0)
			return done > 0 ? (ssize_t)done : -EIO;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

ssize_t cfs_read_payload(struct vfs_obj *o, uint64_t off, size_t len,
			  unsigned int flags, struct vfs_read_res *res)
{
	struct iobuf *b;
	struct Fh *fh = NULL;
	ssize_t n;
	int ret;

	memset(res, 0, sizeof(*res));
	res->data.fd = -1;
	/* Every call may wait on the cluster: never on an event loop. */
	if (flags & VFS_READ_NOWAIT)
		return -EAGAIN;
	ret = type_check(o);
	if (ret < 0)
		return ret;
	ret = flags & VFS_READ_CHECKED ? cfs_getattr(o, &res->attr)
				       : cfs_getattr_data(o, false, &res->attr);
	if (ret < 0)
		return ret;
	if (len > VFS_READ_MAX)
		len = VFS_READ_MAX;
	if (off >= res->attr.size || !len) {
		res->eof = off >= res->attr.size;
		return 0;
	}
	if (len > res->attr.size - off)
		len = (size_t)(res->attr.size - off);
	res->eof = off + len >= res->attr.size;
	b = iobuf_alloc(len);
	if (!b)
		return -EJUKEBOX;
	ret = cfs_fh_open(o, false, &fh);
	if (ret < 0) {
		iobuf_put(b);
		return ret;
	}
	n = read_full(o, fh, off, b->data, len);
	ceph_ll_close(CM(o), fh);
	if (n < 0) {
		iobuf_put(b);
		return n;
	}
	if ((size_t)n < len)
		res->eof = true; /* the file shrank since the getattr */
	res->data.kind = PAYLOAD_BUF;
	res->data.buf = b;
	res->data.data = b->data;
	res->data.len = (uint32_t)n;
	return n;
}

ssize_t cfs_write(struct vfs_obj *o, uint64_t off, const void *buf,
		   size_t len, enum vfs_stable stable)
{
	struct Fh *fh = NULL;
	ssize_t n;
	int ret;

	ret = type_check(o);
	if (ret < 0)
		return ret;
	ret = range_check(off, len);
	if (ret < 0)
		return ret;
	ret = data_fh(o, true, &fh);
	if (ret < 0)
		return ret;
	n = write_full(o, fh, off, buf, len);
	if (n > 0 && stable != VFS_UNSTABLE) {
		ret = ceph_ll_fsync(CM(o), fh, stable == VFS_DATA_SYNC);
		if (ret < 0)
			n = ret;
	}
	ceph_ll_close(CM(o), fh);
	return n;
}

int cfs_commit(struct vfs_obj *o, uint64_t off, uint64_t count)
{
	int ret = type_check(o);

	(void)off;
	(void)count;
	if (ret < 0)
		return ret;
	return ceph_ll_sync_inode(CM(o), CO(o)->in, 0);
}

/* ------------------------------------------------------------- xattrs */

ssize_t cfs_xattr_get(struct vfs_obj *o, const char *name, void *buf,
		       size_t size)
{
	PERMS(o->ex, perm);

	return ceph_ll_getxattr(CM(o), CO(o)->in, name, buf, size, perm);
}

int cfs_xattr_set(struct vfs_obj *o, const char *name, const void *val,
		   size_t len, enum vfs_xattr_how how)
{
	static const int flags[] = {
		[VFS_XATTR_ANY] = 0,
		[VFS_XATTR_CREATE] = XATTR_CREATE,
		[VFS_XATTR_REPLACE] = XATTR_REPLACE,
	};
	PERMS(o->ex, perm);

	return ceph_ll_setxattr(CM(o), CO(o)->in, name, val, len, flags[how],
				perm);
}

/*
 * The names, as listxattr(2) gives them, without CephFS's virtual
 * "ceph." attributes (layouts, quotas): those are the cluster's
 * administration, not a file's extended attributes.
 */
ssize_t cfs_xattr_list(struct vfs_obj *o, char *buf, size_t size)
{
	size_t n = 0, out = 0;
	char *all;
	int ret;
	PERMS(o->ex, perm);

	ret = ceph_ll_listxattr(CM(o), CO(o)->in, NULL, 0, &n, perm);
	if (ret < 0)
		return ret;
	if (n == 0)
		return 0;
	all = malloc(n);
	if (!all)
		return -ENOMEM;
	/* -ERANGE when the list grew in between: the caller retries. */
	ret = ceph_ll_listxattr(CM(o), CO(o)->in, all, n, &n, perm);
	for (size_t i = 0; ret >= 0 && i < n;) {
		size_t l = strnlen(all + i, n - i);

		if (strncmp(all + i, "ceph.", 5) != 0) {
			if (size && out + l + 1 > size) {
				ret = -ERANGE;
				break;
			}
			if (size)
				memcpy(buf + out, all + i, l + 1);
			out += l + 1;
		}
		i += l + 1;
	}
	free(all);
	return ret < 0 ? ret : (ssize_t)out;
}

int cfs_xattr_remove(struct vfs_obj *o, const char *name)
{
	PERMS(o->ex, perm);

	return ceph_ll_removexattr(CM(o), CO(o)->in, name, perm);
}

int cfs_xattr_probe(struct vfs_obj *o)
{
	(void)o;
	return 0; /* CephFS keeps user. attributes */
}

/* -------------------------------------------------------------- space */

static int fallocate_range(struct vfs_obj *o, int mode, uint64_t off,
			   uint64_t len)
{
	struct Fh *fh = NULL;
	int ret;

	if (len == 0)
		return -EINVAL;
	ret = range_check(off, len);
	if (ret == 0)
		ret = data_fh(o, true, &fh);
	if (ret < 0)
		return ret;
	ret = ceph_ll_fallocate(CM(o), fh, mode, (int64_t)off, (int64_t)len);
	ceph_ll_close(CM(o), fh);
	return ret;
}

int cfs_allocate(struct vfs_obj *o, uint64_t off, uint64_t len)
{
	return fallocate_range(o, 0, off, len);
}

int cfs_deallocate(struct vfs_obj *o, uint64_t off, uint64_t len)
{
	return fallocate_range(o, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			       off, len);
}

int cfs_seek(struct vfs_obj *o, uint64_t off, enum vfs_seek_what what,
	      uint64_t *pos, uint64_t *size)
{
	struct vfs_attr a = {0};
	struct Fh *fh = NULL;
	off_t r;
	int ret;

	ret = cfs_getattr(o, &a);
	if (ret == 0)
		ret = data_fh(o, false, &fh);
	if (ret < 0)
		return ret;
	*size = a.size;
	if (off >= a.size) {
		ceph_ll_close(CM(o), fh);
		return -ENXIO;
	}
	r = ceph_ll_lseek(CM(o), fh, (off_t)off,
			  what == VFS_SEEK_HOLE ? SEEK_HOLE : SEEK_DATA);
	ceph_ll_close(CM(o), fh);
	if (r < 0) {
		if (r != -ENXIO)
			return (int)r;
		r = (off_t)a.size;
	}
	*pos = (uint64_t)r;
	if (*pos > *size)
		*size = *pos;
	return 0;
}

/* Copy @count bytes from @sfh at @soff to @dfh at @doff through a
 * pooled buffer: the bytes copied (short at the source's end), or
 * -errno when nothing was. */
static ssize_t copy_bounce(struct vfs_obj *src, struct Fh *sfh, uint64_t soff,
			   struct vfs_obj *dst, struct Fh *dfh, uint64_t doff,
			   uint64_t count)
{
	struct iobuf *b = iobuf_alloc(CEPH_COPY_CHUNK);
	uint64_t done = 0;
	ssize_t err = 0;

	if (!b)
		return -EJUKEBOX;
	while (done < count) {
		size_t want = count - done < CEPH_COPY_CHUNK
				      ? (size_t)(count - done)
				      : CEPH_COPY_CHUNK;
		ssize_t n = read_full(src, sfh, soff + done, b->data, want);
		ssize_t w;

		if (n <= 0) {
			err = n;
			break;
		}
		w = write_full(dst, dfh, doff + done, b->data, (size_t)n);
		if (w < 0) {
			err = w;
			break;
		}
		done += (uint64_t)w;
		if (w < n)
			break;
	}
	iobuf_put(b);
	return done > 0 || err == 0 ? (ssize_t)done : err;
}

ssize_t cfs_copy_range(struct vfs_obj *src, uint64_t soff,
		       struct vfs_obj *dst, uint64_t doff, uint64_t count,
		       uint64_t max, enum vfs_stable stable)
{
	struct Fh *sfh = NULL, *dfh = NULL;
	struct vfs_attr a = {0};
	ssize_t n;
	int ret;

	ret = type_check(src);
	if (ret == 0)
		ret = type_check(dst);
	if (ret == 0)
		ret = cfs_check_data(src, false);
	if (ret == 0)
		ret = cfs_check_data(dst, true);
	if (ret == 0)
		ret = cfs_getattr(src, &a);
	if (ret < 0)
		return ret;
	/* RFC 7862 §15.2.3: a source range past its end is INVAL. */
	if (soff > a.size)
		return -EINVAL;
	if (count == 0)
		count = a.size - soff;
	else if (count > a.size - soff)
		return -EINVAL;
	if (count > max)
		count = max;
	ret = range_check(doff, count);
	if (ret < 0)
		return ret;
	if (src == dst && soff < doff + count && doff < soff + count)
		return -EINVAL;
	/* libcephfs 16 has no copy_file_range: through a pooled buffer. */
	ret = cfs_fh_open(src, false, &sfh);
	if (ret < 0)
		return ret;
	ret = cfs_fh_open(dst, true, &dfh);
	if (ret < 0) {
		ceph_ll_close(CM(src), sfh);
		return ret;
	}
	n = copy_bounce(src, sfh, soff, dst, dfh, doff, count);
	if (n > 0 && stable != VFS_UNSTABLE) {
		ret = ceph_ll_fsync(CM(dst), dfh, stable == VFS_DATA_SYNC);
		if (ret < 0)
			n = ret;
	}
	ceph_ll_close(CM(dst), dfh);
	ceph_ll_close(CM(src), sfh);
	return n;
}

int cfs_clone_range(struct vfs_obj *src, uint64_t soff, struct vfs_obj *dst,
		     uint64_t doff, uint64_t count)
{
	(void)src, (void)soff, (void)dst, (void)doff, (void)count;
	return -EOPNOTSUPP; /* CephFS shares no blocks between files */
}

int cfs_clone_blksize(struct vfs_obj *o, uint32_t *blksize)
{
	(void)o, (void)blksize;
	return -EOPNOTSUPP;
}

int cfs_advise(struct vfs_obj *o, uint64_t off, uint64_t len,
		enum vfs_advice advice)
{
	(void)off, (void)len, (void)advice;
	/* Advice only: libcephfs takes none, so there is nothing to tell. */
	return type_check(o);
}
