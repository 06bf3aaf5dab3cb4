// SPDX-License-Identifier: MIT
/*
 * The data path: READ, WRITE and COMMIT on an object's cached data fds.
 * The fds were opened as root, so every call checks the caller's
 * permission first (vfs_check_data: kernel rules plus owner override).
 */
#include <errno.h>
#include <stdint.h>
#include <sys/uio.h>
#include <unistd.h>

#include "vfs/vfs_int.h"

static int data_type_check(const struct vfs_obj *o)
{
	if (o->type == VFS_DIR)
		return -EISDIR;
	if (o->type != VFS_REG)
		return -EINVAL;
	return 0;
}

ssize_t vfs_read(struct vfs_obj *o, uint64_t off, void *buf, size_t len,
		 bool *eof)
{
	struct stat st;
	size_t done = 0;
	int ret, fd;

	*eof = false;
	ret = data_type_check(o);
	if (ret < 0)
		return ret;
	ret = vfs_check_data(o, false);
	if (ret < 0)
		return ret;
	fd = vfs_obj_data_fd(o, false);
	if (fd < 0)
		return fd;
	if (off > INT64_MAX) {
		*eof = true;
		return 0;
	}
	if (len > INT64_MAX - off)
		len = INT64_MAX - off;
	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done,
				  (off_t)(off + done));

		if (n < 0) {
			if (errno == EINTR)
				continue;
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

ssize_t vfs_write(struct vfs_obj *o, uint64_t off, const void *buf, size_t len,
		  enum vfs_stable stable)
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
	fd = vfs_obj_data_fd(o, true);
	if (fd < 0)
		return fd;
	/* Stable writes in the same syscall (RWF_DSYNC/RWF_SYNC). */
	if (stable == VFS_DATA_SYNC)
		flags = RWF_DSYNC;
	else if (stable == VFS_FILE_SYNC)
		flags = RWF_SYNC;
	while (done < len) {
		struct iovec iov = {
			.iov_base = (char *)buf + done,
			.iov_len = len - done,
		};
		ssize_t n = pwritev2(fd, &iov, 1, (off_t)(off + done), flags);

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

	ret = data_type_check(o);
	if (ret < 0)
		return ret;
	fd = vfs_obj_data_fd(o, false);
	if (fd < 0)
		return fd;
	if (fsync(fd) < 0)
		return -errno;
	return 0;
}
