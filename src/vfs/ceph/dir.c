// SPDX-License-Identifier: MIT
/*
 * The CephFS backend's names and directory listings (ceph.h). Every
 * change runs with the caller's UserPerm, so libcephfs checks the
 * permissions and new files belong to the caller. Listing cookies are
 * CephFS's own directory offsets (a hash of the name, "." 1 and ".." 2),
 * so entries added or removed elsewhere do not shift them.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "vfs/ceph/ceph.h"
#include "vfs/siphash.h"

/* The object of @in (a new Inode reference, taken over) of @dir's export. */
static int adopt(struct vfs_obj *dir, struct Inode *in,
		 const struct ceph_statx *x, struct vfs_obj **out)
{
	return cfs_obj_adopt(dir->ex, in, x, out);
}

int cfs_lookup(struct vfs_obj *dir, const char *name, size_t len,
		struct vfs_obj **out)
{
	char buf[VFS_NAME_MAX + 1];
	struct ceph_statx x;
	struct Inode *in;
	int ret;

	if (dir->type != VFS_DIR)
		return -ENOTDIR;
	ret = vfs_name_check(name, len, buf);
	if (ret == -EINVAL)
		return -ENOENT;
	if (ret < 0)
		return ret;
	if (vfs_name_is_dot(buf) && (buf[1] == '\0' || dir->is_root)) {
		/* "." and the root's "..": the directory itself. */
		ret = cfs_check(dir, X_OK);
		if (ret < 0)
			return ret;
		vfs_obj_get(dir);
		*out = dir;
		return 0;
	}
	{
		PERMS(dir->ex, perm);
		ret = ceph_ll_lookup(CM(dir), CO(dir)->in, buf, &in, &x,
				     CEPH_WANT, AT_SYMLINK_NOFOLLOW, perm);
	}
	if (ret < 0)
		return ret;
	return adopt(dir, in, &x, out);
}

ssize_t cfs_readlink(struct vfs_obj *o, char *buf, size_t size)
{
	PERMS(o->ex, perm);

	if (o->type != VFS_LNK)
		return -EINVAL;
	return ceph_ll_readlink(CM(o), CO(o)->in, buf, size, perm);
}

/* The entry @name of @dir just made (@in, @x), checked to be of @type,
 * with the rest of @sa applied. */
static int finish_new(struct vfs_obj *dir, struct Inode *in,
		      const struct ceph_statx *x, enum vfs_ftype type,
		      const struct vfs_sattr *sa, struct vfs_obj **out)
{
	struct vfs_obj *o;
	int ret;

	ret = adopt(dir, in, x, &o);
	if (ret < 0)
		return ret;
	if (o->type != type) {
		vfs_obj_put(o);
		return -EEXIST;
	}
	ret = vfs_apply_new_attrs(o, sa);
	if (ret < 0) {
		vfs_obj_put(o);
		return ret;
	}
	*out = o;
	return 0;
}

/* The existing entry @name of @dir for a create that found it. */
static int lookup_existing(struct vfs_obj *dir, const char *name,
			   struct vfs_obj **out)
{
	int ret = cfs_lookup(dir, name, strlen(name), out);

	if (ret < 0)
		return ret == -ENOENT ? -EEXIST : ret;
	if ((*out)->type != VFS_REG) {
		vfs_obj_put(*out);
		return -EEXIST;
	}
	return 0;
}

int cfs_create(struct vfs_obj *dir, const char *name, size_t len,
		enum vfs_createmode how, const struct vfs_sattr *sa,
		const uint8_t verf[8], struct vfs_obj **out)
{
	char buf[VFS_NAME_MAX + 1];
	struct ceph_statx x;
	struct vfs_obj *o;
	struct Inode *in;
	struct Fh *fh = NULL;
	mode_t mode;
	int ret;
	PERMS(dir->ex, perm);

	ret = vfs_name_for_change(dir, name, len, buf, -EEXIST);
	if (ret < 0)
		return ret;
	if (how == VFS_CREATE_EXCLUSIVE && verf == NULL)
		return -EINVAL;
	/* As the local backend: EXCLUSIVE carries no attributes. */
	if (sa != NULL && sa->set_mode)
		mode = sa->mode & 07777;
	else
		mode = how == VFS_CREATE_EXCLUSIVE ? 0 : 0644;
	ret = ceph_ll_create(CM(dir), CO(dir)->in, buf, mode,
			     O_CREAT | O_EXCL | O_RDONLY, &in, &fh, &x,
			     CEPH_WANT, 0, perm);
	if (ret == -EEXIST) {
		if (how == VFS_CREATE_GUARDED)
			return -EEXIST;
		ret = lookup_existing(dir, buf, &o);
		if (ret < 0)
			return ret;
		if (how == VFS_CREATE_EXCLUSIVE) {
			struct vfs_attr a;

			/* Ours if the verifier is the one kept. */
			ret = cfs_getattr(o, &a);
			if (ret == 0 &&
			    ((uint64_t)a.atime.tv_sec != vfs_verf_word(verf) ||
			     (uint64_t)a.mtime.tv_sec !=
				     vfs_verf_word(verf + 4)))
				ret = -EEXIST;
		} else if (sa != NULL && sa->set_size) {
			struct vfs_sattr sz = {.set_size = true,
					       .size = sa->size};

			ret = cfs_setattr(o, &sz);
		}
		if (ret < 0) {
			vfs_obj_put(o);
			return ret;
		}
		*out = o;
		return 0;
	}
	if (ret < 0)
		return ret;
	if (fh)
		ceph_ll_close(CM(dir), fh);
	if (how == VFS_CREATE_EXCLUSIVE) {
		struct vfs_sattr t = {.atime_how = VFS_TIME_CLIENT,
				      .mtime_how = VFS_TIME_CLIENT};

		t.atime.tv_sec = vfs_verf_word(verf);
		t.mtime.tv_sec = vfs_verf_word(verf + 4);
		ret = adopt(dir, in, &x, &o);
		if (ret == 0) {
			ret = cfs_setattr(o, &t);
			if (ret < 0)
				vfs_obj_put(o);
		}
		if (ret == 0)
			*out = o;
		return ret;
	}
	return finish_new(dir, in, &x, VFS_REG, sa, out);
}

int cfs_mkdir(struct vfs_obj *dir, const char *name, size_t len,
	       const struct vfs_sattr *sa, struct vfs_obj **out)
{
	char buf[VFS_NAME_MAX + 1];
	struct ceph_statx x;
	struct Inode *in;
	mode_t mode;
	int ret;
	PERMS(dir->ex, perm);

	ret = vfs_name_for_change(dir, name, len, buf, -EEXIST);
	if (ret < 0)
		return ret;
	mode = sa != NULL && sa->set_mode ? sa->mode & 07777 : 0755;
	ret = ceph_ll_mkdir(CM(dir), CO(dir)->in, buf, mode, &in, &x,
			    CEPH_WANT, 0, perm);
	if (ret < 0)
		return ret;
	return finish_new(dir, in, &x, VFS_DIR, sa, out);
}

int cfs_symlink(struct vfs_obj *dir, const char *name, size_t len,
		 const char *target, size_t tlen, const struct vfs_sattr *sa,
		 struct vfs_obj **out)
{
	char buf[VFS_NAME_MAX + 1];
	struct ceph_statx x;
	struct Inode *in;
	char *tbuf;
	int ret;
	PERMS(dir->ex, perm);

	ret = vfs_name_for_change(dir, name, len, buf, -EEXIST);
	if (ret < 0)
		return ret;
	ret = vfs_symlink_target(target, tlen, &tbuf);
	if (ret < 0)
		return ret;
	ret = ceph_ll_symlink(CM(dir), CO(dir)->in, buf, tbuf, &in, &x,
			      CEPH_WANT, 0, perm);
	free(tbuf);
	if (ret < 0)
		return ret;
	return finish_new(dir, in, &x, VFS_LNK, sa, out);
}

int cfs_mknod(struct vfs_obj *dir, const char *name, size_t len,
	       enum vfs_ftype type, uint32_t major, uint32_t minor,
	       const struct vfs_sattr *sa, struct vfs_obj **out)
{
	char buf[VFS_NAME_MAX + 1];
	struct ceph_statx x;
	struct Inode *in;
	mode_t mode;
	dev_t dev;
	int ret;
	PERMS(dir->ex, perm);

	ret = vfs_name_for_change(dir, name, len, buf, -EEXIST);
	if (ret < 0)
		return ret;
	ret = vfs_mknod_mode(type, major, minor, sa, &mode, &dev);
	if (ret < 0)
		return ret;
	ret = ceph_ll_mknod(CM(dir), CO(dir)->in, buf, mode, dev, &in, &x,
			    CEPH_WANT, 0, perm);
	if (ret < 0)
		return ret;
	return finish_new(dir, in, &x, type, sa, out);
}

/*
 * The handle bytes of the entry @name of @dir, to drop its cached object
 * once it has lost its name; false when there is none to find.
 */
static bool name_bh(struct vfs_obj *dir, const char *name, struct vfs_bh *bh)
{
	struct vfs_obj *o;

	if (cfs_lookup(dir, name, strlen(name), &o) < 0)
		return false;
	*bh = o->bh;
	vfs_obj_put(o);
	return true;
}

static int remove_common(struct vfs_obj *dir, const char *name, size_t len,
			 bool is_dir)
{
	char buf[VFS_NAME_MAX + 1];
	struct vfs_bh bh;
	bool have;
	int ret;
	PERMS(dir->ex, perm);

	ret = vfs_name_for_change(dir, name, len, buf, -EINVAL);
	if (ret < 0)
		return ret;
	have = name_bh(dir, buf, &bh);
	perm = cfs_perms(dir->ex); /* name_bh may have asked again */
	if (!perm)
		return -ENOMEM;
	ret = is_dir ? ceph_ll_rmdir(CM(dir), CO(dir)->in, buf, perm)
		     : ceph_ll_unlink(CM(dir), CO(dir)->in, buf, perm);
	if (ret == 0 && have)
		vfs_obj_doom(dir->ex, &bh);
	return ret;
}

int cfs_remove(struct vfs_obj *dir, const char *name, size_t len)
{
	return remove_common(dir, name, len, false);
}

int cfs_rmdir(struct vfs_obj *dir, const char *name, size_t len)
{
	return remove_common(dir, name, len, true);
}

int cfs_rename(struct vfs_obj *fdir, const char *fname, size_t flen,
		struct vfs_obj *tdir, const char *tname, size_t tlen)
{
	char fbuf[VFS_NAME_MAX + 1], tbuf[VFS_NAME_MAX + 1];
	const UserPerm *perm;
	struct vfs_bh bh;
	bool have;
	int ret;

	ret = vfs_name_for_change(fdir, fname, flen, fbuf, -EINVAL);
	if (ret < 0)
		return ret;
	ret = vfs_name_for_change(tdir, tname, tlen, tbuf, -EINVAL);
	if (ret < 0)
		return ret;
	have = name_bh(tdir, tbuf, &bh);
	perm = cfs_perms(fdir->ex);
	if (!perm)
		return -ENOMEM;
	ret = ceph_ll_rename(CM(fdir), CO(fdir)->in, fbuf, CO(tdir)->in, tbuf,
			     perm);
	if (ret == 0 && have)
		vfs_obj_doom(tdir->ex, &bh);
	return ret;
}

int cfs_link(struct vfs_obj *o, struct vfs_obj *dir, const char *name,
	      size_t len)
{
	char buf[VFS_NAME_MAX + 1];
	int ret;
	PERMS(dir->ex, perm);

	if (o->type == VFS_DIR)
		return -EPERM;
	ret = vfs_name_for_change(dir, name, len, buf, -EEXIST);
	if (ret < 0)
		return ret;
	return ceph_ll_link(CM(dir), CO(o)->in, CO(dir)->in, buf, perm);
}

int cfs_readdir(struct vfs_obj *dir, uint64_t cookie, vfs_readdir_cb emit,
		 void *ctx, bool *eof)
{
	struct ceph_dir_result *dirp;
	struct dirent d;
	int ret;
	PERMS(dir->ex, perm);

	*eof = false;
	if (dir->type != VFS_DIR)
		return -ENOTDIR;
	if (cookie > INT64_MAX)
		return -EBADCOOKIE;
	ret = ceph_ll_opendir(CM(dir), CO(dir)->in, &dirp, perm);
	if (ret < 0)
		return ret;
	if (cookie)
		ceph_seekdir(CM(dir), dirp, (int64_t)cookie);
	for (;;) {
		struct vfs_dirent de;

		ret = ceph_readdir_r(CM(dir), dirp, &d);
		if (ret <= 0) {
			*eof = ret == 0;
			break;
		}
		de.name = d.d_name;
		de.namelen = strnlen(d.d_name, sizeof(d.d_name));
		de.fileid = d.d_ino;
		de.cookie = (uint64_t)d.d_off;
		if (!vfs_ftype_of_dtype(d.d_type, &de.type))
			de.type = VFS_REG; /* CephFS always gives it */
		/* The root's ".." stays inside the export: the root itself. */
		if (dir->is_root && strcmp(d.d_name, "..") == 0)
			de.fileid = CO(dir)->ino;
		if (!emit(ctx, &de)) {
			ret = 0;
			break;
		}
	}
	ceph_ll_releasedir(CM(dir), dirp);
	return ret < 0 ? ret : 0;
}

uint64_t cfs_dir_verifier(struct vfs_obj *dir)
{
	/* As the local backend: the handle names the directory for good;
	 * a fixed key keeps the verifier across restarts. */
	static const uint8_t key[16] = {'n', 'a', 's', 'd', '-',
					'c', 'v', 'e', 'r', 'f'};
	uint64_t v = siphash24(key, dir->bh.bytes, dir->bh.len);

	return v != 0 ? v : 1;
}
