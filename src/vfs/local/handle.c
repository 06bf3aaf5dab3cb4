// SPDX-License-Identifier: MIT
/*
 * The local backend's handles: kernel file handles (name_to_handle_at,
 * open_by_handle_at), as the backend bytes of the vfs's wire handle
 * (local.h: the type as a big-endian int32, then the handle's bytes).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/be.h"
#include "vfs/local/local.h"

void vfs_kh_to_bh(const struct vfs_kh *kh, struct vfs_bh *bh)
{
	put_be32(bh->bytes, (uint32_t)kh->type);
	memcpy(bh->bytes + 4, kh->bytes, kh->len);
	bh->len = 4 + kh->len;
}

/* The kernel handle in backend bytes @bh: 0 or -ESTALE (no kernel
 * handle's shape; the MAC proved we minted it, so the file is gone). */
static int kh_of_bh(const struct vfs_bh *bh, struct vfs_kh *kh)
{
	if (bh->len <= 4 || bh->len - 4 > VFS_KH_MAX)
		return -ESTALE;
	kh->type = (int)get_be32(bh->bytes);
	kh->len = bh->len - 4;
	memcpy(kh->bytes, bh->bytes + 4, kh->len);
	return 0;
}

/* vfs_kh_of_obj() - @o's kernel handle. 0 or -ESTALE. */
int vfs_kh_of_obj(const struct vfs_obj *o, struct vfs_kh *kh)
{
	return kh_of_bh(&o->bh, kh);
}

/*
 * vfs_kh_of_fd() - the kernel handle of the file @fd refers to (any fd,
 * O_PATH included; symlinks are not followed). Returns 0 or -errno
 * (-EOPNOTSUPP when the filesystem has no handles).
 */
int vfs_kh_of_fd(int fd, struct vfs_kh *kh)
{
	int mnt;

	return vfs_kh_of_fd_mnt(fd, kh, &mnt);
}

/*
 * vfs_kh_of_fd_mnt() - vfs_kh_of_fd() that also gives the id of the mount
 * @fd is on (a bind mount of the same filesystem has the same st_dev but
 * another mount id).
 */
int vfs_kh_of_fd_mnt(int fd, struct vfs_kh *kh, int *mnt_id)
{
	return vfs_kh_of_name_mnt(fd, "", kh, mnt_id);
}

/*
 * vfs_kh_of_name_mnt() - the kernel handle and mount id of @name in the
 * directory @dirfd (a symlink itself, never its target; "" with
 * AT_EMPTY_PATH is @dirfd itself), resolved with the caller's fs
 * credentials like openat(). Returns 0 or -errno.
 */
int vfs_kh_of_name_mnt(int dirfd, const char *name, struct vfs_kh *kh,
		       int *mnt_id)
{
	union {
		struct file_handle fh;
		uint8_t space[sizeof(struct file_handle) + VFS_KH_MAX];
	} u;

	u.fh.handle_bytes = VFS_KH_MAX;
	if (name_to_handle_at(dirfd, name, &u.fh, mnt_id,
			      name[0] == '\0' ? AT_EMPTY_PATH : 0) < 0)
		return -errno;
	if (u.fh.handle_bytes == 0 || u.fh.handle_bytes > VFS_KH_MAX)
		return -EOVERFLOW;
	kh->type = u.fh.handle_type;
	kh->len = u.fh.handle_bytes;
	memcpy(kh->bytes, u.fh.f_handle, kh->len);
	return 0;
}

/* open_by_handle_at() as root: it needs CAP_DAC_READ_SEARCH. */
static int kh_open(struct vfs_export *ex, const struct vfs_kh *kh, int flags)
{
	union {
		struct file_handle fh;
		uint8_t space[sizeof(struct file_handle) + VFS_KH_MAX];
	} u;
	struct vfs_root_save save;
	int fd, err;

	u.fh.handle_bytes = kh->len;
	u.fh.handle_type = kh->type;
	memcpy(u.fh.f_handle, kh->bytes, kh->len);
	vfs_root_enter(&save);
	fd = open_by_handle_at(LX(ex)->root_fd, &u.fh, flags | O_CLOEXEC);
	err = errno;
	vfs_root_leave(&save);
	if (fd < 0)
		return -err;
	return fd;
}

/*
 * vfs_kh_open() - open the file of @kh in @ex with @flags, as root.
 * Returns the fd or -errno (-ESTALE when the file is gone).
 */
int vfs_kh_open(struct vfs_export *ex, const struct vfs_kh *kh, int flags)
{
	int fd = kh_open(ex, kh, flags);

	/*
	 * The MAC proved we minted this handle; a kernel that now refuses
	 * its type or bytes means the file (or filesystem) is gone.
	 */
	if (fd == -EINVAL || fd == -ENOENT || fd == -EOPNOTSUPP)
		return -ESTALE;
	return fd;
}

/* local_obj_open() - open @o's file anew with @flags, as root. The fd
 * or -errno (-ESTALE when the file is gone). */
int local_obj_open(struct vfs_obj *o, int flags)
{
	struct vfs_kh kh;
	int ret = kh_of_bh(&o->bh, &kh);

	return ret < 0 ? ret : vfs_kh_open(o->ex, &kh, flags);
}

int local_obj_resolve(struct vfs_export *ex, const struct vfs_bh *bh,
		      struct vfs_obj **out)
{
	struct vfs_kh kh;
	struct stat st;
	int ret, fd;

	if (vfs_obj_find(ex, bh, out) == 0)
		return 0;
	ret = kh_of_bh(bh, &kh);
	if (ret < 0)
		return ret;
	fd = vfs_kh_open(ex, &kh, O_PATH | O_NOFOLLOW);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		goto out_close;
	}
	/* Not on the export's filesystem, or already deleted: stale. */
	if (st.st_dev != LX(ex)->dev || st.st_nlink == 0) {
		ret = -ESTALE;
		goto out_close;
	}
	return vfs_obj_adopt(ex, fd, &st, &kh, out);

out_close:
	close(fd);
	return ret;
}
