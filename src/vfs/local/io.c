// SPDX-License-Identifier: MIT
/*
 * The data path: READ, WRITE and COMMIT on an object's cached data fds,
 * through the page cache or O_DIRECT (dio.c) as the export's io mode says
 * (vfs.h, enum vfs_io). The fds were opened as root, so every call checks
 * the caller's permission first (vfs_check_data: kernel rules plus owner
 * override). Nothing here takes a lock shared beyond one object.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "core/iobuf.h"
#include "core/req.h"
#include "vfs/local/local.h"

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
 * The O_DIRECT fd for a write of @len bytes at @off from @buf, or -1 for
 * the page cache. DIRECT always goes direct when the file can; AUTO only
 * for large writes that need no read-modify-write or bounce copy, so that
 * its page cache and direct I/O stay coherent (the kernel flushes and
 * invalidates cached pages that a direct request covers whole, and an
 * unaligned request never goes direct).
 */
static int pick_write_fd(struct vfs_obj *o, uint64_t off, size_t len,
			 const void *buf)
{
	enum vfs_io io = vfs_export_io(o->ex);
	uint32_t a, m;
	int fd;

	if (io == VFS_IO_BUFFERED ||
	    (io == VFS_IO_AUTO &&
	     (len < VFS_IO_AUTO_MIN || vfs_auto_buffered(len))))
		return -1;
	fd = vfs_obj_dio_fd(o, true);
	if (fd < 0 || io == VFS_IO_DIRECT)
		return fd;
	a = atomic_load(&LO(o)->dio_align);
	m = atomic_load(&LO(o)->dio_malign);
	if ((off & (a - 1)) || (len & (a - 1)) || ((uintptr_t)buf & (m - 1)))
		return -1;
	return fd;
}

/*
 * How a read of @len bytes at @off of @o (data fd @fd) goes: the O_DIRECT
 * fd, or -1 for the page cache; *@cached tells whether the page cache
 * holds all of a large range (asked once, with cachestat(2), only where
 * the answer matters). DIRECT always goes direct when the file can; AUTO
 * goes direct for large aligned reads the page cache does not already
 * hold (a read it holds whole costs no disk I/O and adds no pages there).
 */
static int pick_read_fd(struct vfs_obj *o, int fd, uint64_t off, size_t len,
			bool *cached)
{
	enum vfs_io io = vfs_export_io(o->ex);
	int dfd;

	*cached = false;
	if (len < VFS_IO_AUTO_MIN && io != VFS_IO_DIRECT)
		return -1;
	if (io == VFS_IO_BUFFERED) {
		*cached = range_cached(fd, off, len);
		return -1;
	}
	dfd = vfs_obj_dio_fd(o, false);
	if (io == VFS_IO_DIRECT)
		return dfd;
	*cached = range_cached(fd, off, len);
	if (dfd < 0 || *cached || vfs_auto_buffered(len) ||
	    (off & (atomic_load(&LO(o)->dio_align) - 1)))
		return -1;
	return dfd;
}

bool local_read_goes_direct(struct vfs_obj *o, uint64_t off, size_t len)
{
	bool cached;
	int fd;

	if (o->type != VFS_REG)
		return false;
	fd = vfs_obj_data_fd(o, false);
	return fd >= 0 && pick_read_fd(o, fd, off, len, &cached) >= 0;
}

/*
 * pread until @len bytes or end of file (then *@eof is set; a read that
 * ends exactly at the end of the file is the caller's to tell, from the
 * size it knows). Bytes or -errno. With
 * @nowait, preadv2(RWF_NOWAIT): -EAGAIN as soon as a part is not in the
 * page cache (or the filesystem cannot tell).
 */
static ssize_t read_full(int fd, uint64_t off, void *buf, size_t len,
			 bool *eof, bool nowait)
{
	struct iovec iov;
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
	return (ssize_t)done;
}

/* A file-range payload: the object keeps the fd; reading it is a pread. */
static void payload_obj_release(void *arg)
{
	vfs_obj_put(arg);
}

static int payload_obj_fill(void *arg, int fd, uint64_t off, void *dst,
			    size_t len)
{
	bool eof = false;
	ssize_t n = read_full(fd, off, dst, len, &eof, false);

	(void)arg;
	if (n < 0)
		return (int)n;
	/* The file shrank under the reply: its length is promised. */
	return (size_t)n == len ? 0 : -EIO;
}

static const struct payload_file_ops payload_obj_ops = {
	.release = payload_obj_release,
	.fill = payload_obj_fill,
};

/*
 * Read [@off, @off + @len) of @o (@len already cut at end of file) into a
 * new pooled buffer, through O_DIRECT fd @dfd or the page cache (@dfd
 * -1; @nowait: RWF_NOWAIT). The payload is the data. Bytes or -errno.
 */
static ssize_t read_into_buf(struct vfs_obj *o, int dfd, uint64_t off,
			     size_t len, bool nowait, struct payload *p,
			     bool *eof)
{
	struct iobuf *b;
	size_t start = 0;
	ssize_t n;
	int fd;

	if (dfd >= 0) {
		n = vfs_dio_read(o, dfd, off, len, &b, &start, NULL);
		if (n < 0)
			return n;
	} else {
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
	}
	p->kind = PAYLOAD_BUF;
	p->buf = b;
	p->data = b->data + start;
	p->len = (uint32_t)n;
	return n;
}

ssize_t local_read_payload(struct vfs_obj *o, uint64_t off, size_t len,
			   unsigned int flags, struct vfs_read_res *res)
{
	bool nowait = flags & VFS_READ_NOWAIT, cached;
	struct stat st;
	ssize_t n;
	int ret, fd, dfd;

	memset(res, 0, sizeof(*res));
	res->data.fd = -1;
	ret = data_type_check(o);
	if (ret < 0)
		return ret;
	if (!(flags & VFS_READ_CHECKED)) {
		ret = vfs_check_data(o, false);
		if (ret < 0)
			return ret;
	}
	fd = vfs_obj_data_fd(o, false);
	if (fd < 0)
		return fd;
	/* The one fstat: end of file, and the attributes the reply shows. */
	if (fstat(fd, &st) < 0)
		return -errno;
	vfs_attr_from_stat(o, &st, &res->attr);
	if (len > VFS_READ_MAX)
		len = VFS_READ_MAX;
	if (off >= (uint64_t)st.st_size || !len) {
		res->eof = off >= (uint64_t)st.st_size;
		return 0;
	}
	if (len > (uint64_t)st.st_size - off)
		len = (size_t)((uint64_t)st.st_size - off);
	res->eof = off + len >= (uint64_t)st.st_size;
	dfd = pick_read_fd(o, fd, off, len, &cached);
	/*
	 * Large and all in the page cache: a reference to it, for the
	 * transport to send (sendfile), nothing read here.
	 */
	if ((flags & VFS_READ_FILE_OK) && cached) {
		vfs_obj_get(o);
		res->data.kind = PAYLOAD_FILE;
		res->data.fd = fd;
		res->data.off = off;
		res->data.len = (uint32_t)len;
		res->data.ops = &payload_obj_ops;
		res->data.arg = o;
		return (ssize_t)len;
	}
	/* O_DIRECT always goes to the disk: not on an event loop. */
	if (dfd >= 0 && nowait)
		return -EAGAIN;
	n = read_into_buf(o, dfd, off, len, nowait, &res->data, &res->eof);
	if (n >= 0 && (size_t)n < len)
		res->eof = true; /* the file shrank since the fstat */
	return n;
}

ssize_t local_write(struct vfs_obj *o, uint64_t off, const void *buf,
		    size_t len, enum vfs_stable stable)
{
	size_t done = 0;
	int ret, fd, flags = 0;

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
	fd = pick_write_fd(o, off, len, buf);
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
	/* A large unstable write that io=auto put in the page cache starts
	 * its writeback now (write-behind): the disk works while the client
	 * sends more, so a COMMIT finds little left to flush, and the pages
	 * stay cached, clean, for reading back. */
	if (done >= VFS_IO_AUTO_MIN && !flags &&
	    vfs_export_io(o->ex) == VFS_IO_AUTO)
		(void)sync_file_range(fd, (off_t)off, (off_t)done,
				      SYNC_FILE_RANGE_WRITE);
	return (ssize_t)done;
}

int local_commit(struct vfs_obj *o, uint64_t off, uint64_t count)
{
	int ret, fd;

	ret = data_type_check(o);
	if (ret < 0)
		return ret;
	/* Any fd of the file flushes all of it, direct writes included. */
	fd = atomic_load(&LO(o)->dfd);
	if (fd < 0)
		fd = vfs_obj_data_fd(o, false);
	if (fd < 0)
		return fd;
	if (fsync(fd) < 0)
		return -errno;
	return 0;
}
