// SPDX-License-Identifier: MIT
/*
 * The data path: READ, WRITE and COMMIT on an object's cached data fds,
 * through the page cache or O_DIRECT (dio.c) as the export's io mode says
 * (vfs.h, enum vfs_io). The fds were opened as root, so every call checks
 * the caller's permission first (vfs_check_data: kernel rules plus owner
 * override). Nothing here takes a lock shared beyond one object.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "core/iobuf.h"
#include "vfs/vfs_int.h"

static int data_type_check(const struct vfs_obj *o)
{
	if (o->type == VFS_DIR)
		return -EISDIR;
	if (o->type != VFS_REG)
		return -EINVAL;
	return 0;
}

/* cachestat(2)'s number, the same on every architecture. */
#define CACHESTAT_NR 451

/* cachestat(2) (Linux 6.5): whether every page of a range is cached. */
struct cachestat_range_k {
	uint64_t off, len;
};
struct cachestat_k {
	uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted,
		nr_recently_evicted;
};

static atomic_bool cachestat_missing;

/*
 * Whether the page cache holds all of [@off, @off + @len) of @fd's file,
 * asked without side effects (no readahead, unlike an RWF_NOWAIT read).
 * False when it cannot tell (kernels before 6.5).
 */
static bool range_cached(int fd, uint64_t off, size_t len)
{
	struct cachestat_range_k r = { off, len };
	struct cachestat_k cs;
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE), need;

	if (atomic_load_explicit(&cachestat_missing, memory_order_relaxed))
		return false;
	if (syscall(CACHESTAT_NR, fd, &r, &cs, 0) < 0) {
		if (errno == ENOSYS)
			atomic_store(&cachestat_missing, true);
		return false;
	}
	need = (off + len + pg - 1) / pg - off / pg;
	return cs.nr_cache >= need;
}

/*
 * The O_DIRECT fd to use for @len bytes at @off (and, for a write, from
 * @buf), or -1 for the page cache. DIRECT always goes direct when the file
 * can; AUTO only for large requests that need no read-modify-write or
 * bounce copy, so that its page cache and direct I/O stay coherent (the
 * kernel flushes and invalidates cached pages that a direct request
 * covers whole, and an unaligned request never goes direct) and only for
 * reads the page cache does not already hold.
 */
static int pick_dio_fd(struct vfs_obj *o, uint64_t off, size_t len,
		       const void *buf, bool write)
{
	enum vfs_io io = vfs_export_io(o->ex);
	uint32_t a, m;
	int fd;

	if (io == VFS_IO_BUFFERED || (io == VFS_IO_AUTO &&
				      len < VFS_IO_AUTO_MIN))
		return -1;
	fd = vfs_obj_dio_fd(o, write);
	if (fd < 0)
		return -1;
	if (io == VFS_IO_DIRECT)
		return fd;
	a = atomic_load(&o->dio_align);
	m = atomic_load(&o->dio_malign);
	if (off & (a - 1))
		return -1;
	if (write && ((len & (a - 1)) || ((uintptr_t)buf & (m - 1))))
		return -1;
	/*
	 * A read the page cache already holds whole costs no disk I/O and
	 * adds no pages there: serve it from the cache.
	 */
	if (!write && range_cached(fd, off, len))
		return -1;
	return fd;
}

bool vfs_read_goes_direct(struct vfs_obj *o, uint64_t off, size_t len)
{
	return o->type == VFS_REG && pick_dio_fd(o, off, len, NULL, false) >= 0;
}

/*
 * pread until @len bytes or end of file; sets *@eof. Bytes or -errno. With
 * @nowait, preadv2(RWF_NOWAIT): -EAGAIN as soon as a part is not in the
 * page cache (or the filesystem cannot tell).
 */
static ssize_t read_full(int fd, uint64_t off, void *buf, size_t len,
			 bool *eof, bool nowait)
{
	struct iovec iov;
	struct stat st;
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		iov.iov_base = (char *)buf + done;
		iov.iov_len = len - done;
		if (nowait)
			n = preadv2(fd, &iov, 1, (off_t)(off + done),
				    RWF_NOWAIT);
		else
			n = vfs_sys_pread(fd, iov.iov_base, iov.iov_len,
					  (off_t)(off + done), 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (nowait && (errno == EAGAIN || errno == EOPNOTSUPP))
				return -EAGAIN;
			if (done > 0)
				break;
			return -errno;
		}
		if (n == 0) {
			*eof = true;
			return (ssize_t)done;
		}
		done += (size_t)n;
	}
	/* A full read may still end exactly at end of file. */
	if (fstat(fd, &st) == 0 && off + done >= (uint64_t)st.st_size)
		*eof = true;
	return (ssize_t)done;
}

/*
 * Read @len bytes at @off through @o's cached data fd (read_full) into a
 * new pooled buffer, given to the caller in *@out (data from offset 0).
 */
static ssize_t read_to_iobuf(struct vfs_obj *o, uint64_t off, size_t len,
			     bool nowait, struct iobuf **out, size_t *start,
			     bool *eof)
{
	struct iobuf *b;
	ssize_t n;
	int fd;

	fd = vfs_obj_data_fd(o, false);
	if (fd < 0)
		return fd;
	b = iobuf_alloc(len);
	if (!b)
		return -EJUKEBOX;
	n = read_full(fd, off, b->data, len, eof, nowait);
	if (n < 0) {
		iobuf_put(b);
		return n;
	}
	*out = b;
	*start = 0;
	return n;
}

/* Common checks of a read; 1 when there is nothing to read (EOF). */
static int read_prep(struct vfs_obj *o, uint64_t off, size_t *len,
		     bool *eof)
{
	int ret;

	*eof = false;
	ret = data_type_check(o);
	if (ret < 0)
		return ret;
	ret = vfs_check_data(o, false);
	if (ret < 0)
		return ret;
	if (off > INT64_MAX) {
		*eof = true;
		return 1;
	}
	if (*len > INT64_MAX - off)
		*len = INT64_MAX - off;
	return 0;
}

ssize_t vfs_read(struct vfs_obj *o, uint64_t off, void *buf, size_t len,
		 bool *eof)
{
	struct iobuf *b;
	size_t start;
	ssize_t n;
	int ret, fd;

	VFS_FAULT(VFS_OP_READ);
	ret = read_prep(o, off, &len, eof);
	if (ret)
		return ret < 0 ? ret : 0;
	fd = pick_dio_fd(o, off, len, NULL, false);
	if (fd >= 0) {
		n = vfs_dio_read(o, fd, off, len, &b, &start, eof);
		if (n > 0)
			memcpy(buf, b->data + start, (size_t)n);
		if (n >= 0)
			iobuf_put(b);
		return n;
	}
	fd = vfs_obj_data_fd(o, false);
	if (fd < 0)
		return fd;
	return read_full(fd, off, buf, len, eof, false);
}

ssize_t vfs_read_buf(struct vfs_obj *o, uint64_t off, size_t len,
		     struct iobuf **out, size_t *start, bool *eof)
{
	struct iobuf *b;
	int ret, fd;

	VFS_FAULT(VFS_OP_READ);
	ret = read_prep(o, off, &len, eof);
	if (ret < 0)
		return ret;
	if (ret || !len) {
		/* Still a buffer, so the caller has one rule for success. */
		b = iobuf_alloc(1);
		if (!b)
			return -EJUKEBOX;
		*out = b;
		*start = 0;
		return 0;
	}
	fd = pick_dio_fd(o, off, len, NULL, false);
	if (fd >= 0)
		return vfs_dio_read(o, fd, off, len, out, start, eof);
	return read_to_iobuf(o, off, len, false, out, start, eof);
}

ssize_t vfs_read_buf_nowait(struct vfs_obj *o, uint64_t off, size_t len,
			    struct iobuf **out, size_t *start, bool *eof)
{
	int ret;

	/* Injected faults count calls: let the blocking path take them. */
	if (atomic_load_explicit(&vfs_faults_on, memory_order_relaxed))
		return -EAGAIN;
	ret = read_prep(o, off, &len, eof);
	if (ret < 0)
		return ret;
	if (ret || !len)
		return vfs_read_buf(o, off, len, out, start, eof);
	/* O_DIRECT always goes to the disk. */
	if (pick_dio_fd(o, off, len, NULL, false) >= 0)
		return -EAGAIN;
	return read_to_iobuf(o, off, len, true, out, start, eof);
}

ssize_t vfs_read_ref(struct vfs_obj *o, uint64_t off, size_t len, int *fd,
		     bool *eof)
{
	struct stat st;
	int ret, rfd;

	/* Injected faults count read calls: the buffer path takes them. */
	if (atomic_load_explicit(&vfs_faults_on, memory_order_relaxed))
		return -EAGAIN;
	if (len < VFS_IO_AUTO_MIN || o->type != VFS_REG ||
	    vfs_export_io(o->ex) == VFS_IO_DIRECT)
		return -EAGAIN;
	rfd = vfs_obj_data_fd(o, false);
	if (rfd < 0)
		return rfd;
	if (fstat(rfd, &st) < 0)
		return -errno;
	if (off >= (uint64_t)st.st_size)
		return -EAGAIN;
	if (len > (uint64_t)st.st_size - off)
		len = (size_t)((uint64_t)st.st_size - off);
	if (len < VFS_IO_AUTO_MIN || !range_cached(rfd, off, len))
		return -EAGAIN;
	/* Only now the caller's permission: the fallback checks it too. */
	ret = read_prep(o, off, &len, eof);
	if (ret < 0)
		return ret;
	*fd = rfd;
	*eof = off + len >= (uint64_t)st.st_size;
	return (ssize_t)len;
}

ssize_t vfs_write(struct vfs_obj *o, uint64_t off, const void *buf, size_t len,
		  enum vfs_stable stable)
{
	size_t done = 0;
	int ret, fd, flags = 0;

	VFS_FAULT(VFS_OP_WRITE);
	ret = data_type_check(o);
	if (ret < 0)
		return ret;
	if (off > INT64_MAX || len > INT64_MAX - off)
		return -EFBIG;
	ret = vfs_check_data(o, true);
	if (ret < 0)
		return ret;
	/* Stable writes in the same syscall (RWF_DSYNC/RWF_SYNC). */
	if (stable == VFS_DATA_SYNC)
		flags = RWF_DSYNC;
	else if (stable == VFS_FILE_SYNC)
		flags = RWF_SYNC;
	fd = pick_dio_fd(o, off, len, buf, true);
	if (fd >= 0)
		return vfs_dio_write(o, fd, off, buf, len, flags);
	fd = vfs_obj_data_fd(o, true);
	if (fd < 0)
		return fd;
	while (done < len) {
		ssize_t n = vfs_sys_pwrite(fd, (const char *)buf + done,
					   len - done, (off_t)(off + done),
					   flags, 1);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (done > 0)
				break;
			return -errno;
		}
		if (n == 0)
			return done > 0 ? (ssize_t)done : -EIO;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

int vfs_commit(struct vfs_obj *o, uint64_t off, uint64_t count)
{
	int ret, fd;

	VFS_FAULT(VFS_OP_COMMIT);
	ret = data_type_check(o);
	if (ret < 0)
		return ret;
	/* Any fd of the file flushes all of it, direct writes included. */
	fd = atomic_load(&o->dfd);
	if (fd < 0)
		fd = vfs_obj_data_fd(o, false);
	if (fd < 0)
		return fd;
	if (fsync(fd) < 0)
		return -errno;
	return 0;
}
