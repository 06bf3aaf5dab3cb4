// SPDX-License-Identifier: MIT
/*
 * Space and server-side data operations: preallocation, hole punching,
 * SEEK_DATA/SEEK_HOLE, in-kernel copy (copy_file_range), reflink clone
 * (FICLONERANGE) and access-pattern advice (posix_fadvise). As in io.c the
 * data fds were opened as root, so every call checks the caller's
 * permission first (vfs_check_data).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vfs/local/local.h"

/* Bounce buffer of the pread/pwrite fallback of vfs_copy_range(). */
#define SPACE_BOUNCE_SIZE (256 * 1024)

static int space_type_check(const struct vfs_obj *o)
{
	if (o->type == VFS_DIR)
		return -EISDIR;
	if (o->type != VFS_REG)
		return -EINVAL;
	return 0;
}

/* Permission and type check, then the data fd (opened O_RDWR for @write). */
static int space_fd(struct vfs_obj *o, bool write)
{
	int ret;

	ret = space_type_check(o);
	if (ret < 0)
		return ret;
	ret = vfs_check_data(o, write);
	if (ret < 0)
		return ret;
	return vfs_obj_data_fd(o, write);
}

/* [@off, @off + @len) must be representable as a file range. */
static int space_range_check(uint64_t off, uint64_t len)
{
	if (off > INT64_MAX || len > (uint64_t)INT64_MAX - off)
		return -EFBIG;
	return 0;
}

static int space_fallocate(struct vfs_obj *o, int mode, uint64_t off,
			   uint64_t len)
{
	int ret, fd;

	if (len == 0)
		return -EINVAL;
	ret = space_range_check(off, len);
	if (ret < 0)
		return ret;
	fd = space_fd(o, true);
	if (fd < 0)
		return fd;
	while (fallocate(fd, mode, (off_t)off, (off_t)len) < 0) {
		if (errno == EINTR)
			continue;
		return errno == ENOSYS ? -EOPNOTSUPP : -errno;
	}
	return 0;
}

int local_allocate(struct vfs_obj *o, uint64_t off, uint64_t len)
{
	return space_fallocate(o, 0, off, len);
}

int local_deallocate(struct vfs_obj *o, uint64_t off, uint64_t len)
{
	return space_fallocate(o, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			       off, len);
}

int local_seek(struct vfs_obj *o, uint64_t off, enum vfs_seek_what what,
	       uint64_t *pos, uint64_t *size)
{
	struct stat st;
	off_t r;
	int fd;

	fd = space_fd(o, false);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0)
		return -errno;
	*size = (uint64_t)st.st_size;
	if (off >= (uint64_t)st.st_size)
		return -ENXIO;
	r = lseek(fd, (off_t)off,
		  what == VFS_SEEK_HOLE ? SEEK_HOLE : SEEK_DATA);
	if (r < 0) {
		/* No data after @off (the file shrank, or only a hole is
		 * left): report the end of the file. */
		if (errno != ENXIO)
			return -errno;
		r = st.st_size;
	}
	*pos = (uint64_t)r;
	/* The file may have grown since fstat: keep the size consistent. */
	if (*pos > *size)
		*size = *pos;
	return 0;
}

/* Do [@soff, @soff+@slen) and [@doff, @doff+@slen) of one file overlap? */
static bool space_overlap(uint64_t soff, uint64_t doff, uint64_t len)
{
	return soff < doff + len && doff < soff + len;
}

/*
 * Resolve a count of 0 ("to the end of the source") and check that the
 * source range lies within the source file (RFC 7862 §15.2.3 and
 * §15.13.3 both want INVAL otherwise).
 */
static int space_src_range(int sfd, uint64_t soff, uint64_t *count)
{
	struct stat st;
	uint64_t size;

	if (fstat(sfd, &st) < 0)
		return -errno;
	size = (uint64_t)st.st_size;
	if (soff > size)
		return -EINVAL;
	if (*count == 0)
		*count = size - soff;
	else if (*count > size - soff)
		return -EINVAL;
	return 0;
}

static ssize_t space_copy_bounce(int sfd, uint64_t soff, int dfd, uint64_t doff,
				 uint64_t count)
{
	uint8_t *buf;
	uint64_t done = 0;

	buf = malloc(SPACE_BOUNCE_SIZE);
	if (!buf)
		return -ENOMEM;
	while (done < count) {
		size_t want = count - done < SPACE_BOUNCE_SIZE
				      ? (size_t)(count - done)
				      : SPACE_BOUNCE_SIZE;
		ssize_t n = vfs_sys_pread(sfd, buf, want, (off_t)(soff + done),
					  1);
		size_t w = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int err = n < 0 ? -errno : 0;

			free(buf);
			return done > 0 || err == 0 ? (ssize_t)done : err;
		}
		while (w < (size_t)n) {
			ssize_t m = vfs_sys_pwrite(dfd, buf + w, (size_t)n - w,
						    (off_t)(doff + done + w),
						    0, 1);

			if (m < 0 && errno == EINTR)
				continue;
			if (m <= 0) {
				int err = m < 0 ? -errno : -EIO;

				free(buf);
				done += w;
				return done > 0 ? (ssize_t)done : err;
			}
			w += (size_t)m;
		}
		done += (uint64_t)n;
	}
	free(buf);
	return (ssize_t)done;
}

/*
 * The checks COPY and CLONE share: both data fds (source readable,
 * destination writable), *@count cut at the source's end and at @max, the
 * destination range valid, and no overlap within one file. 0 or -errno.
 */
static int space_pair_prep(struct vfs_obj *src, uint64_t soff,
			   struct vfs_obj *dst, uint64_t doff, uint64_t *count,
			   uint64_t max, int *sfd, int *dfd)
{
	int ret;

	*sfd = space_fd(src, false);
	if (*sfd < 0)
		return *sfd;
	*dfd = space_fd(dst, true);
	if (*dfd < 0)
		return *dfd;
	ret = space_src_range(*sfd, soff, count);
	if (ret < 0)
		return ret;
	if (*count > max)
		*count = max;
	ret = space_range_check(doff, *count);
	if (ret < 0)
		return ret;
	if (src == dst && space_overlap(soff, doff, *count))
		return -EINVAL;
	return 0;
}

ssize_t local_copy_range(struct vfs_obj *src, uint64_t soff,
			 struct vfs_obj *dst, uint64_t doff, uint64_t count,
			 uint64_t max, enum vfs_stable stable)
{
	uint64_t done = 0;
	ssize_t ret;
	int sfd, dfd;

	ret = space_pair_prep(src, soff, dst, doff, &count, max, &sfd, &dfd);
	if (ret < 0)
		return ret;
	while (done < count) {
		loff_t so = (loff_t)(soff + done), dof = (loff_t)(doff + done);
		size_t chunk = count - done > SSIZE_MAX
				       ? SSIZE_MAX
				       : (size_t)(count - done);
		ssize_t n = copy_file_range(sfd, &so, dfd, &dof, chunk, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EXDEV || errno == EOPNOTSUPP ||
			      errno == ENOSYS || errno == EINVAL)) {
			/* Not offered for this pair of files: copy by hand. */
			n = space_copy_bounce(sfd, soff + done, dfd,
					      doff + done, count - done);
			if (n < 0 && done == 0)
				return n;
			if (n > 0)
				done += (uint64_t)n;
			break;
		}
		if (n < 0) {
			if (done > 0)
				break;
			return -errno;
		}
		if (n == 0)
			break; /* the source shrank under us */
		done += (uint64_t)n;
	}
	if (done > 0 && stable != VFS_UNSTABLE) {
		int r = stable == VFS_FILE_SYNC ? fsync(dfd) : fdatasync(dfd);

		if (r < 0)
			return -errno;
	}
	return (ssize_t)done;
}

int local_clone_range(struct vfs_obj *src, uint64_t soff, struct vfs_obj *dst,
		      uint64_t doff, uint64_t count)
{
	struct file_clone_range fcr;
	struct stat st;
	int ret, sfd, dfd;

	ret = space_pair_prep(src, soff, dst, doff, &count, UINT64_MAX, &sfd,
			      &dfd);
	if (ret < 0)
		return ret;
	if (count == 0)
		return 0;
	fcr.src_fd = sfd;
	fcr.src_offset = soff;
	fcr.src_length = count;
	fcr.dest_offset = doff;
	if (ioctl(dfd, FICLONERANGE, &fcr) == 0)
		return 0;
	switch (errno) {
	case EOPNOTSUPP:
	case ENOTTY:
	case EXDEV:
		return -ENOTSUPP;
	case EINVAL:
		/* Misaligned ranges are the caller's error; with aligned
		 * ones EINVAL means the filesystem cannot clone these. */
		if (fstat(dfd, &st) == 0 && st.st_blksize > 0 &&
		    (soff % (uint64_t)st.st_blksize ||
		     doff % (uint64_t)st.st_blksize))
			return -EINVAL;
		return -ENOTSUPP;
	default:
		return -errno;
	}
}

int local_clone_blksize(struct vfs_obj *o, uint32_t *blksize)
{
	struct stat st;

	if (fstat(LO(o)->fd, &st) < 0)
		return -errno;
	*blksize = st.st_blksize > 0 ? (uint32_t)st.st_blksize : 4096;
	return 0;
}

int local_advise(struct vfs_obj *o, uint64_t off, uint64_t len,
		 enum vfs_advice advice)
{
	static const int fadv[] = {
		[VFS_ADV_NORMAL] = POSIX_FADV_NORMAL,
		[VFS_ADV_SEQUENTIAL] = POSIX_FADV_SEQUENTIAL,
		[VFS_ADV_RANDOM] = POSIX_FADV_RANDOM,
		[VFS_ADV_WILLNEED] = POSIX_FADV_WILLNEED,
		[VFS_ADV_DONTNEED] = POSIX_FADV_DONTNEED,
		[VFS_ADV_NOREUSE] = POSIX_FADV_NOREUSE,
	};
	int ret, fd;

	if ((unsigned int)advice >= sizeof(fadv) / sizeof(fadv[0]))
		return -EINVAL;
	if (off > INT64_MAX)
		return -EINVAL;
	/* A range past the largest offset means "to the end" (len 0). */
	if (len > (uint64_t)INT64_MAX - off)
		len = 0;
	fd = space_fd(o, false);
	if (fd < 0)
		return fd;
	ret = posix_fadvise(fd, (off_t)off, (off_t)len, fadv[advice]);
	return ret ? -ret : 0;
}
