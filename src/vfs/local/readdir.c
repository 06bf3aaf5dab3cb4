// SPDX-License-Identifier: MIT
/*
 * Directory listing with stable cookies: a cookie is the directory
 * offset the filesystem gives (getdents64 d_off; on ext4 a hash of the
 * name), resumed with lseek, so entries added or removed elsewhere do not
 * shift it.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vfs/siphash.h"
#include "vfs/local/local.h"

#define READDIR_BUF 32768

/* An entry's type: from d_type, else (DT_UNKNOWN) from the inode. */
static enum vfs_ftype ftype_of_dtype(int dirfd, const char *name,
				     unsigned char t)
{
	enum vfs_ftype type;
	struct stat st;

	if (vfs_ftype_of_dtype(t, &type))
		return type;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
		return vfs_ftype_of_mode(st.st_mode);
	return VFS_REG;
}

/* The directory opened for reading, as root after the caller's check. */
static int open_dir(struct vfs_obj *dir)
{
	struct vfs_root_save save;
	int fd, err;

	vfs_root_enter(&save);
	fd = openat(LO(dir)->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	err = errno;
	vfs_root_leave(&save);
	return fd < 0 ? -err : fd;
}

static int emit_buf(struct vfs_obj *dir, int fd, const char *buf, size_t n,
		    vfs_readdir_cb emit, void *ctx, bool *stopped)
{
	size_t pos = 0;

	while (pos < n) {
		const struct dirent64 *d = (const void *)(buf + pos);
		struct vfs_dirent de;

		if (d->d_reclen == 0 || d->d_reclen > n - pos)
			return -EIO;
		de.name = d->d_name;
		de.namelen = strnlen(d->d_name, d->d_reclen);
		de.fileid = d->d_ino;
		de.cookie = (uint64_t)d->d_off;
		de.type = ftype_of_dtype(fd, d->d_name, d->d_type);
		/* The root's ".." stays inside the export: the root itself. */
		if (dir->is_root && strcmp(d->d_name, "..") == 0)
			de.fileid = LO(dir)->ino;
		if (!emit(ctx, &de)) {
			*stopped = true;
			return 0;
		}
		pos += d->d_reclen;
	}
	return 0;
}

int local_readdir(struct vfs_obj *dir, uint64_t cookie, vfs_readdir_cb emit,
		  void *ctx, bool *eof)
{
	char *buf;
	bool stopped = false;
	int fd, ret;

	*eof = false;
	if (dir->type != VFS_DIR)
		return -ENOTDIR;
	ret = vfs_check_access(dir, R_OK);
	if (ret < 0)
		return ret;
	fd = open_dir(dir);
	if (fd < 0)
		return fd;
	buf = malloc(READDIR_BUF);
	if (buf == NULL) {
		ret = -ENOMEM;
		goto out_close;
	}
	if (cookie != 0 && lseek(fd, (off_t)cookie, SEEK_SET) < 0) {
		ret = errno == EINVAL || errno == ENOENT ? -EBADCOOKIE : -errno;
		goto out_free;
	}
	for (;;) {
		ssize_t n = getdents64(fd, buf, READDIR_BUF);

		if (n < 0) {
			ret = errno == EINVAL || errno == ENOENT ? -EBADCOOKIE
								 : -errno;
			break;
		}
		if (n == 0) {
			*eof = true;
			ret = 0;
			break;
		}
		ret = emit_buf(dir, fd, buf, (size_t)n, emit, ctx, &stopped);
		if (ret < 0 || stopped)
			break;
	}
out_free:
	free(buf);
out_close:
	close(fd);
	return ret;
}

uint64_t local_dir_verifier(struct vfs_obj *dir)
{
	/*
	 * The kernel handle names the inode and its generation, so the
	 * verifier stays put while entries come and go and changes only
	 * for a different directory. A fixed key keeps it stable across
	 * server restarts (it is not a secret).
	 */
	static const uint8_t key[16] = {'n', 'a', 's', 'd', '-',
					'c', 'v', 'e', 'r', 'f'};
	struct vfs_kh kh = { 0 };
	uint64_t v;

	(void)vfs_kh_of_obj(dir, &kh);
	v = siphash24(key, kh.bytes, kh.len) ^ (uint64_t)(uint32_t)kh.type;

	return v != 0 ? v : 1;
}
