// SPDX-License-Identifier: MIT
/*
 * Direct I/O (DESIGN.md §4): O_DIRECT fds per object, reads of the
 * covering aligned range into a pooled buffer, and writes whose aligned
 * middle goes straight from the caller's buffer while an unaligned head
 * or tail is read-modify-written as whole blocks with O_DIRECT.
 *
 * Coherency: nothing here touches the page cache, so a direct-mode file
 * never mixes cached and uncached copies of a block. Partial-block RMW
 * must not race with another write of the same block: RMW takes the
 * object's dio_lock exclusively and aligned writes take it shared, so
 * aligned writes run in parallel and an RMW sees no write in flight.
 * Reads take no lock (NFS gives no atomicity across a concurrent write).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "core/iobuf.h"
#include "core/log.h"
#include "vfs/local/local.h"

/* Bounce chunks for a write from a misaligned buffer. */
#define DIO_BOUNCE_MAX (1u << 20)

/* vfs_obj_dio_init() - a new object's direct I/O state (no fds yet). */
void vfs_obj_dio_init(struct vfs_obj *o)
{
	pthread_rwlockattr_t at;

	atomic_init(&LO(o)->dfd, -1);
	atomic_init(&LO(o)->dfd_ro, 0);
	atomic_init(&LO(o)->dio_align, 0);
	atomic_init(&LO(o)->dio_malign, 0);
	atomic_init(&LO(o)->dio_off, false);
	/* A stream of aligned writes must not starve an RMW. */
	pthread_rwlockattr_init(&at);
	pthread_rwlockattr_setkind_np(&at,
			PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&LO(o)->dio_lock, &at);
	pthread_rwlockattr_destroy(&at);
}

/* vfs_obj_dio_close() - close @o's O_DIRECT fds (object being freed). */
void vfs_obj_dio_close(struct vfs_obj *o)
{
	int fd;

	fd = atomic_load(&LO(o)->dfd);
	if (fd >= 0)
		close(fd);
	pthread_rwlock_destroy(&LO(o)->dio_lock);
}

static bool pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

/*
 * The file's O_DIRECT alignment from statx(STATX_DIOALIGN) (Linux 6.1+),
 * else 4096 for both. Returns false when the file cannot do direct I/O
 * with our IOBUF_ALIGN-aligned buffers.
 */
static bool dio_probe(struct vfs_obj *o, int fd)
{
	uint32_t a = 4096, m = 4096;
	struct statx stx;

	if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) == 0 &&
	    (stx.stx_mask & STATX_DIOALIGN)) {
		/* Zeros: the file does not support direct I/O. */
		if (!stx.stx_dio_offset_align || !stx.stx_dio_mem_align)
			return false;
		a = stx.stx_dio_offset_align;
		m = stx.stx_dio_mem_align;
	}
	if (!pow2(a) || !pow2(m) || m > IOBUF_ALIGN || a > (1u << 20))
		return false;
	atomic_store(&LO(o)->dio_malign, m);
	atomic_store(&LO(o)->dio_align, a);
	return true;
}

/*
 * vfs_obj_dio_fd() - @o's cached O_DIRECT fd, opened as root on first
 * use: O_RDWR when the file allows it, else O_RDONLY (then a @write gets
 * the error of the O_RDWR open). One fd per object serves reads, writes
 * and read-modify-write. Returns the fd, -EOPNOTSUPP when the file cannot
 * do direct I/O (the caller then uses the page cache), or -errno.
 */
int vfs_obj_dio_fd(struct vfs_obj *o, bool write)
{
	int fd, fl, ro = 0, expected = -1;

	fd = atomic_load(&LO(o)->dfd);
	if (fd < 0) {
		if (atomic_load(&LO(o)->dio_off))
			return -EOPNOTSUPP;
		if (o->type != VFS_REG)
			return o->type == VFS_DIR ? -EISDIR : -EINVAL;
		/*
		 * Open plainly, then switch on O_DIRECT: an open_by_handle_at()
		 * EINVAL would look like a stale handle, while F_SETFL's
		 * EINVAL says exactly "this file cannot do direct I/O".
		 */
		fd = local_obj_open(o, O_RDWR);
		if (fd == -EROFS || fd == -EACCES || fd == -EPERM ||
		    fd == -ETXTBSY) {
			ro = fd;
			fd = local_obj_open(o, O_RDONLY);
		}
		if (fd < 0)
			return fd;
		fl = fcntl(fd, F_GETFL);
		if (fl < 0 || fcntl(fd, F_SETFL, fl | O_DIRECT) < 0 ||
		    !dio_probe(o, fd)) {
			if (!atomic_exchange(&LO(o)->dio_off, true))
				log_info("vfs: %s: inode %llu: no direct I/O, "
					 "using the page cache", o->ex->path,
					 (unsigned long long)LO(o)->ino);
			close(fd);
			return -EOPNOTSUPP;
		}
		atomic_store(&LO(o)->dfd_ro, ro);
		if (!atomic_compare_exchange_strong(&LO(o)->dfd, &expected,
						    fd)) {
			close(fd);
			fd = expected;
		}
	}
	if (write && atomic_load(&LO(o)->dfd_ro))
		return atomic_load(&LO(o)->dfd_ro);
	return fd;
}

/*
 * Read [off, off + len) (aligned) into @p until done or end of file.
 * Returns the bytes read or -errno.
 */
static ssize_t dio_pread(int fd, uint8_t *p, size_t len, uint64_t off,
			 uint32_t align)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = vfs_sys_pread(fd, p + done, len - done, (off_t)(off + done),
				  align);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		done += (size_t)n;
		/* An unaligned count only happens at end of file. */
		if (done % align)
			break;
	}
	return (ssize_t)done;
}

/* Write aligned @len bytes from aligned @p at aligned @off. 0 or -errno. */
static int dio_pwrite(int fd, const uint8_t *p, size_t len, uint64_t off,
		      uint32_t align, int flags)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = vfs_sys_pwrite(fd, p + done, len - done,
				   (off_t)(off + done), flags, align);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		/* A short direct write is the device filling up. */
		if (n == 0 || (size_t)n % align)
			return -ENOSPC;
		done += (size_t)n;
	}
	return 0;
}

/*
 * vfs_dio_read() - read [off, off + len) through the O_DIRECT @fd: the
 * covering aligned range goes into a new pooled buffer (*@out, owned by
 * the caller), the data starting at *@start. Returns bytes of data (short
 * only at end of file) or -errno; -EJUKEBOX when the pool is full. *@eof
 * is set when the read found the end of the file (with @eof NULL the
 * caller knows the size and tells end of file itself).
 */
ssize_t vfs_dio_read(struct vfs_obj *o, int fd, uint64_t off, size_t len,
		     struct iobuf **out, size_t *start, bool *eof)
{
	uint32_t a = atomic_load(&LO(o)->dio_align);
	uint64_t b0 = off & ~(uint64_t)(a - 1);
	uint64_t b1 = (off + len + a - 1) & ~(uint64_t)(a - 1);
	size_t head = (size_t)(off - b0), got = 0;
	struct iobuf *b;
	struct stat st;
	ssize_t n;

	b = iobuf_alloc((size_t)(b1 - b0));
	if (!b)
		return -EJUKEBOX;
	n = dio_pread(fd, b->data, (size_t)(b1 - b0), b0, a);
	if (n < 0) {
		iobuf_put(b);
		return n;
	}
	if ((size_t)n > head)
		got = (size_t)n - head < len ? (size_t)n - head : len;
	/* A short read found the end of the file: it may lie past the
	 * requested range, inside the covering block. */
	if (eof && (uint64_t)n < b1 - b0)
		*eof = b0 + (uint64_t)n <= off + len;
	else if (eof && fstat(fd, &st) == 0 &&
		 off + got >= (uint64_t)st.st_size)
		*eof = true;
	*out = b;
	*start = head;
	return (ssize_t)got;
}

/*
 * Read-modify-write the aligned blocks [b0, b1) to put @len bytes of @src
 * at @off inside them; the file does not grow beyond off + len (or its
 * size). Takes dio_lock exclusively. Returns 0 or -errno.
 */
static int dio_rmw(struct vfs_obj *o, int fd, uint64_t b0, uint64_t b1,
		   uint64_t off, const uint8_t *src, size_t len, int flags)
{
	uint32_t a = atomic_load(&LO(o)->dio_align);
	size_t span = (size_t)(b1 - b0);
	uint64_t want;
	struct iobuf *b;
	struct stat st;
	ssize_t n;
	int ret;

	b = iobuf_alloc(span);
	if (!b)
		return -EJUKEBOX;
	pthread_rwlock_wrlock(&LO(o)->dio_lock);
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		goto out_unlock;
	}
	n = dio_pread(fd, b->data, span, b0, a);
	if (n < 0) {
		ret = (int)n;
		goto out_unlock;
	}
	/* Beyond end of file the block reads as zeros (a hole). */
	memset(b->data + n, 0, span - (size_t)n);
	memcpy(b->data + (off - b0), src, len);
	ret = dio_pwrite(fd, b->data, span, b0, a, flags);
	if (ret < 0)
		goto out_unlock;
	/* The whole last block was written: cut the file back. */
	want = off + len > (uint64_t)st.st_size ? off + len
						: (uint64_t)st.st_size;
	if (b1 > want) {
		if (ftruncate(fd, (off_t)want) < 0) {
			ret = -errno;
			goto out_unlock;
		}
		/* The size is part of what a stable write promises. */
		if (flags && fdatasync(fd) < 0)
			ret = -errno;
	}
out_unlock:
	pthread_rwlock_unlock(&LO(o)->dio_lock);
	iobuf_put(b);
	return ret;
}

/* The aligned middle: straight from @p when aligned, else bounced. */
static int dio_write_middle(struct vfs_obj *o, int fd, uint64_t off,
			    const uint8_t *p, size_t len, int flags)
{
	uint32_t a = atomic_load(&LO(o)->dio_align);
	uint32_t m = atomic_load(&LO(o)->dio_malign);
	struct iobuf *b;
	size_t done = 0, n;
	int ret = 0;

	pthread_rwlock_rdlock(&LO(o)->dio_lock);
	if (((uintptr_t)p & (m - 1)) == 0) {
		ret = dio_pwrite(fd, p, len, off, a, flags);
		goto out_unlock;
	}
	b = iobuf_alloc(len < DIO_BOUNCE_MAX ? len : DIO_BOUNCE_MAX);
	if (!b) {
		ret = -EJUKEBOX;
		goto out_unlock;
	}
	while (done < len && ret == 0) {
		n = len - done < b->size ? len - done : b->size;
		memcpy(b->data, p + done, n);
		ret = dio_pwrite(fd, b->data, n, off + done, a, flags);
		done += n;
	}
	iobuf_put(b);
out_unlock:
	pthread_rwlock_unlock(&LO(o)->dio_lock);
	return ret;
}

/*
 * vfs_dio_write() - write @len bytes of @buf at @off through the O_DIRECT
 * @fd with pwritev2 @flags (RWF_DSYNC/RWF_SYNC or 0). All of it is written
 * or an error is returned (a failed request may have written part).
 * Returns @len or -errno; -EJUKEBOX when the pool is full.
 */
ssize_t vfs_dio_write(struct vfs_obj *o, int fd, uint64_t off,
		      const uint8_t *buf, size_t len, int flags)
{
	uint32_t a = atomic_load(&LO(o)->dio_align);
	uint64_t end = off + len, mask = (uint64_t)a - 1;
	uint64_t a0 = (off + mask) & ~mask;  /* first aligned byte */
	uint64_t a1 = end & ~mask;           /* end of the aligned part */
	int ret;

	if (!len)
		return 0;
	if (a0 >= a1) {
		/* No whole block inside: one RMW of the 1 or 2 blocks. */
		ret = dio_rmw(o, fd, off & ~mask, (end + mask) & ~mask, off,
			      buf, len, flags);
		return ret < 0 ? ret : (ssize_t)len;
	}
	if (off < a0) {
		ret = dio_rmw(o, fd, a0 - a, a0, off, buf, (size_t)(a0 - off),
			      flags);
		if (ret < 0)
			return ret;
	}
	ret = dio_write_middle(o, fd, a0, buf + (a0 - off), (size_t)(a1 - a0),
			       flags);
	if (ret < 0)
		return ret;
	if (a1 < end) {
		ret = dio_rmw(o, fd, a1, a1 + a, a1, buf + (a1 - off),
			      (size_t)(end - a1), flags);
		if (ret < 0)
			return ret;
	}
	return (ssize_t)len;
}
