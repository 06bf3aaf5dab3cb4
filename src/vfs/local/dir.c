// SPDX-License-Identifier: MIT
/*
 * Name operations: lookup, create, mkdir, symlink, mknod, remove, rmdir,
 * rename, link, readlink. Every directory change runs under the caller's
 * fs credentials on the directory's O_PATH fd, so the kernel checks
 * permissions and new files belong to the caller. Symlinks are never
 * followed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "vfs/local/local.h"

/*
 * A parent reached by ".." must lie inside the export: a directory moved
 * out of the export keeps a working handle (as with knfsd's
 * no_subtree_check), but it must not lead a client up into the rest of
 * the filesystem. Walk up from @fd to the export root, as root (the
 * caller may not search the directories above the export); the
 * filesystem's root or a mount boundary first means outside: -ESTALE.
 */
static int vfs_parent_in_export(const struct vfs_export *ex, int fd)
{
	struct vfs_root_save save;
	struct stat st, up;
	int cur = fd, next, ret = -ESTALE;

	vfs_root_enter(&save);
	for (int depth = 0; depth < VFS_PATH_MAX / 2; depth++) {
		if (fstat(cur, &st) < 0) {
			ret = -errno;
			break;
		}
		if (st.st_dev == LX(ex)->dev && st.st_ino == LX(ex)->ino) {
			ret = 0;
			break;
		}
		if (st.st_dev != LX(ex)->dev)
			break;
		next = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (next < 0) {
			ret = -errno;
			break;
		}
		if (fstat(next, &up) < 0 ||
		    (up.st_dev == st.st_dev && up.st_ino == st.st_ino)) {
			close(next);
			break;
		}
		if (cur != fd)
			close(cur);
		cur = next;
	}
	if (cur != fd)
		close(cur);
	vfs_root_leave(&save);
	return ret;
}

int local_lookup(struct vfs_obj *dir, const char *name, size_t len,
		 struct vfs_obj **out)
{
	char buf[VFS_NAME_MAX + 1];
	int ret, fd;

	if (dir->type != VFS_DIR)
		return -ENOTDIR;
	ret = vfs_name_check(name, len, buf);
	if (ret == -EINVAL)
		return -ENOENT;
	if (ret < 0)
		return ret;

	if (vfs_name_is_dot(buf) && (buf[1] == '\0' || dir->is_root)) {
		/* "." and the root's "..": the directory itself. */
		ret = vfs_check_access(dir, X_OK);
		if (ret < 0)
			return ret;
		vfs_obj_get(dir);
		*out = dir;
		return 0;
	}
	if (buf[0] == '.' && buf[1] == '.' && buf[2] == '\0') {
		fd = openat(LO(dir)->fd, "..",
			    O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		ret = vfs_parent_in_export(dir->ex, fd);
		if (ret < 0) {
			close(fd);
			return ret;
		}
	} else {
		/*
		 * Most lookups find a cached object: its handle alone
		 * (one syscall, the same permission checks as openat())
		 * finds it. A mount point has another mount id: -EXDEV.
		 */
		struct vfs_kh kh;
		struct vfs_bh bh;
		int mnt;

		ret = vfs_kh_of_name_mnt(LO(dir)->fd, buf, &kh, &mnt);
		if (ret == 0 && mnt != LX(dir->ex)->mnt_id)
			return -EXDEV;
		if (ret == 0) {
			vfs_kh_to_bh(&kh, &bh);
			if (vfs_obj_find(dir->ex, &bh, out) == 0)
				return 0;
		}
		if (ret < 0 && ret != -EOPNOTSUPP && ret != -EOVERFLOW)
			return ret;
		fd = openat(LO(dir)->fd, buf, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return -errno;
	}
	/* Adopting re-checks the device: a mount point is -EXDEV. */
	return vfs_obj_from_fd(dir->ex, fd, true, out);
}

/* Open the entry just created as @name in @dir and get its object. */
static int lookup_new(struct vfs_obj *dir, const char *name,
		      enum vfs_ftype type, struct vfs_obj **out)
{
	int fd, ret;

	fd = openat(LO(dir)->fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		/* (never 0: callers use *out on success) */
		ret = -errno;
		return ret < 0 ? ret : -EIO;
	}
	ret = vfs_obj_from_fd(dir->ex, fd, true, out);
	if (ret < 0)
		return ret;
	/* Replaced between create and open by a local process. */
	if ((*out)->type != type) {
		vfs_obj_put(*out);
		return -EEXIST;
	}
	return 0;
}

/*
 * The entry just made as @name in @dir, with the rest of its attributes
 * applied: a new reference in *@out, or -errno.
 */
static int finish_new(struct vfs_obj *dir, const char *name,
		      enum vfs_ftype type, const struct vfs_sattr *sa,
		      struct vfs_obj **out)
{
	struct vfs_obj *o;
	int ret;

	ret = lookup_new(dir, name, type, &o);
	if (ret < 0)
		return ret;
	ret = vfs_apply_new_attrs(o, sa);
	if (ret < 0) {
		vfs_obj_put(o);
		return ret;
	}
	*out = o;
	return 0;
}

/* EXCLUSIVE create hit an existing file: is it ours (same verifier)? */
static int create_excl_existing(struct vfs_obj *dir, const char *name,
				const uint8_t verf[8], struct vfs_obj **out)
{
	struct vfs_obj *o;
	struct stat st;
	int ret;

	ret = lookup_new(dir, name, VFS_REG, &o);
	if (ret < 0)
		return ret == -ENOENT ? -EEXIST : ret;
	if (fstat(LO(o)->fd, &st) < 0) {
		ret = -errno;
		vfs_obj_put(o);
		return ret;
	}
	if ((uint64_t)st.st_atim.tv_sec != vfs_verf_word(verf) ||
	    (uint64_t)st.st_mtim.tv_sec != vfs_verf_word(verf + 4)) {
		vfs_obj_put(o);
		return -EEXIST;
	}
	*out = o;
	return 0;
}

int local_create(struct vfs_obj *dir, const char *name, size_t len,
		 enum vfs_createmode how, const struct vfs_sattr *sa,
		 const uint8_t verf[8], struct vfs_obj **out)
{
	char buf[VFS_NAME_MAX + 1];
	struct vfs_obj *o;
	mode_t mode;
	int ret, fd;

	ret = vfs_name_for_change(dir, name, len, buf, -EEXIST);
	if (ret < 0)
		return ret;
	if (how == VFS_CREATE_EXCLUSIVE && verf == NULL)
		return -EINVAL;
	/*
	 * EXCLUSIVE carries no attributes: mode 0 until the client's
	 * SETATTR, as knfsd. Otherwise the client's mode, or 0644.
	 */
	if (sa != NULL && sa->set_mode)
		mode = sa->mode & 07777;
	else
		mode = how == VFS_CREATE_EXCLUSIVE ? 0 : 0644;

	fd = openat(LO(dir)->fd, buf,
		    O_CREAT | O_EXCL | O_RDONLY | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0) {
		ret = -errno;
		if (ret != -EEXIST)
			return ret;
		if (how == VFS_CREATE_GUARDED)
			return -EEXIST;
		if (how == VFS_CREATE_EXCLUSIVE)
			return create_excl_existing(dir, buf, verf, out);
		/* UNCHECKED on an existing regular file: only its size. */
		ret = lookup_new(dir, buf, VFS_REG, &o);
		if (ret < 0)
			return ret == -ENOENT ? -EEXIST : ret;
		if (sa != NULL && sa->set_size) {
			struct vfs_sattr sz = {
				.set_size = true,
				.size = sa->size,
			};

			ret = vfs_setattr(o, &sz);
			if (ret < 0) {
				vfs_obj_put(o);
				return ret;
			}
		}
		*out = o;
		return 0;
	}

	if (how == VFS_CREATE_EXCLUSIVE) {
		struct timespec ts[2] = {
			{.tv_sec = vfs_verf_word(verf)},
			{.tv_sec = vfs_verf_word(verf + 4)},
		};

		if (futimens(fd, ts) < 0) {
			ret = -errno;
			goto out_close;
		}
	}
	ret = vfs_obj_from_fd(dir->ex, fd, false, &o);
	if (ret < 0)
		goto out_close;
	close(fd);
	if (how != VFS_CREATE_EXCLUSIVE) {
		ret = vfs_apply_new_attrs(o, sa);
		if (ret < 0) {
			vfs_obj_put(o);
			return ret;
		}
	}
	*out = o;
	return 0;

out_close:
	close(fd);
	return ret;
}

int local_mkdir(struct vfs_obj *dir, const char *name, size_t len,
		const struct vfs_sattr *sa, struct vfs_obj **out)
{
	char buf[VFS_NAME_MAX + 1];
	mode_t mode;
	int ret;

	ret = vfs_name_for_change(dir, name, len, buf, -EEXIST);
	if (ret < 0)
		return ret;
	mode = sa != NULL && sa->set_mode ? sa->mode & 07777 : 0755;
	if (mkdirat(LO(dir)->fd, buf, mode) < 0)
		return -errno;
	return finish_new(dir, buf, VFS_DIR, sa, out);
}

int local_symlink(struct vfs_obj *dir, const char *name, size_t len,
		  const char *target, size_t tlen, const struct vfs_sattr *sa,
		  struct vfs_obj **out)
{
	char buf[VFS_NAME_MAX + 1];
	char *tbuf;
	int ret;

	ret = vfs_name_for_change(dir, name, len, buf, -EEXIST);
	if (ret < 0)
		return ret;
	ret = vfs_symlink_target(target, tlen, &tbuf);
	if (ret < 0)
		return ret;
	ret = symlinkat(tbuf, LO(dir)->fd, buf) < 0 ? -errno : 0;
	free(tbuf);
	if (ret < 0)
		return ret;
	return finish_new(dir, buf, VFS_LNK, sa, out);
}

int local_mknod(struct vfs_obj *dir, const char *name, size_t len,
		enum vfs_ftype type, uint32_t major, uint32_t minor,
		const struct vfs_sattr *sa, struct vfs_obj **out)
{
	char buf[VFS_NAME_MAX + 1];
	mode_t mode;
	dev_t dev;
	int ret;

	ret = vfs_name_for_change(dir, name, len, buf, -EEXIST);
	if (ret < 0)
		return ret;
	ret = vfs_mknod_mode(type, major, minor, sa, &mode, &dev);
	if (ret < 0)
		return ret;
	if (mknodat(LO(dir)->fd, buf, mode, dev) < 0)
		return -errno;
	return finish_new(dir, buf, type, sa, out);
}

/* Kernel handle of @name in @dir (not followed); false if none. */
static bool name_kh(struct vfs_obj *dir, const char *name, struct vfs_kh *kh)
{
	union {
		struct file_handle fh;
		uint8_t space[sizeof(struct file_handle) + VFS_KH_MAX];
	} u;
	int mnt;

	u.fh.handle_bytes = VFS_KH_MAX;
	if (name_to_handle_at(LO(dir)->fd, name, &u.fh, &mnt, 0) < 0)
		return false;
	kh->type = u.fh.handle_type;
	kh->len = u.fh.handle_bytes;
	memcpy(kh->bytes, u.fh.f_handle, kh->len);
	return true;
}

static int remove_common(struct vfs_obj *dir, const char *name, size_t len,
			 int flags)
{
	char buf[VFS_NAME_MAX + 1];
	struct vfs_kh kh;
	bool have_kh;
	int ret;

	ret = vfs_name_for_change(dir, name, len, buf, -EINVAL);
	if (ret < 0)
		return ret;
	have_kh = name_kh(dir, buf, &kh);
	if (unlinkat(LO(dir)->fd, buf, flags) < 0)
		return -errno;
	/* Let the cache release the file if that was its last name. */
	if (have_kh)
		vfs_local_doom(dir, &kh);
	return 0;
}

int local_remove(struct vfs_obj *dir, const char *name, size_t len)
{
	return remove_common(dir, name, len, 0);
}

int local_rmdir(struct vfs_obj *dir, const char *name, size_t len)
{
	return remove_common(dir, name, len, AT_REMOVEDIR);
}

int local_rename(struct vfs_obj *fdir, const char *fname, size_t flen,
		 struct vfs_obj *tdir, const char *tname, size_t tlen)
{
	char fbuf[VFS_NAME_MAX + 1], tbuf[VFS_NAME_MAX + 1];
	struct vfs_kh kh;
	bool have_kh;
	int ret;

	ret = vfs_name_for_change(fdir, fname, flen, fbuf, -EINVAL);
	if (ret < 0)
		return ret;
	ret = vfs_name_for_change(tdir, tname, tlen, tbuf, -EINVAL);
	if (ret < 0)
		return ret;
	have_kh = name_kh(tdir, tbuf, &kh);
	if (renameat(LO(fdir)->fd, fbuf, LO(tdir)->fd, tbuf) < 0)
		return -errno;
	if (have_kh)
		vfs_local_doom(tdir, &kh);
	return 0;
}

int local_link(struct vfs_obj *o, struct vfs_obj *dir, const char *name,
	       size_t len)
{
	char buf[VFS_NAME_MAX + 1];
	char path[32];
	int ret;

	if (o->type == VFS_DIR)
		return -EPERM;
	ret = vfs_name_for_change(dir, name, len, buf, -EEXIST);
	if (ret < 0)
		return ret;
	/*
	 * linkat(AT_EMPTY_PATH) on an O_PATH fd needs CAP_DAC_READ_SEARCH;
	 * following the /proc magic link does not, and links the file
	 * itself (a symlink is not followed further).
	 */
	vfs_proc_path(path, sizeof(path), LO(o)->fd);
	if (linkat(AT_FDCWD, path, LO(dir)->fd, buf, AT_SYMLINK_FOLLOW) < 0)
		return -errno;
	return 0;
}

ssize_t local_readlink(struct vfs_obj *o, char *buf, size_t size)
{
	ssize_t n;

	if (o->type != VFS_LNK)
		return -EINVAL;
	n = readlinkat(LO(o)->fd, "", buf, size);
	if (n < 0)
		return -errno;
	if ((size_t)n >= size)
		return -ENAMETOOLONG;
	return n;
}
