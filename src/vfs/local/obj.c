// SPDX-License-Identifier: MIT
/*
 * The local backend's exports and objects: an export is a directory of
 * this machine opened once (its root descriptor is the mount fd for
 * open_by_handle_at); an object holds an O_PATH descriptor of its file
 * and, for regular files, data descriptors opened on first use.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"
#include "vfs/local/local.h"

void local_obj_free(struct vfs_obj *o)
{
	struct local_obj *l = LO(o);
	int fd;

	if (l->fd >= 0)
		close(l->fd);
	fd = atomic_load(&l->rfd);
	if (fd >= 0)
		close(fd);
	fd = atomic_load(&l->wfd);
	if (fd >= 0)
		close(fd);
	vfs_obj_dio_close(o);
}

bool local_obj_unlinked(struct vfs_obj *o)
{
	struct stat st;

	return fstat(LO(o)->fd, &st) < 0 || st.st_nlink == 0;
}

/*
 * vfs_obj_adopt() - the object for (@ex, @kh), taking ownership of the
 * O_PATH @fd (closed when an object for it is already cached, or on
 * error). @st is @fd's stat. Returns 0 and a new reference, or -errno.
 */
int vfs_obj_adopt(struct vfs_export *ex, int fd, const struct stat *st,
		  const struct vfs_kh *kh, struct vfs_obj **out)
{
	struct vfs_obj *n;
	struct local_obj *l;
	struct vfs_bh bh;

	vfs_kh_to_bh(kh, &bh);
	n = vfs_obj_new(ex, &bh, vfs_ftype_of_mode(st->st_mode));
	if (n == NULL) {
		close(fd);
		return -ENOMEM;
	}
	l = LO(n);
	l->fd = fd;
	atomic_init(&l->rfd, -1);
	atomic_init(&l->wfd, -1);
	vfs_obj_dio_init(n);
	l->dev = st->st_dev;
	l->ino = st->st_ino;
	n->is_root = st->st_dev == LX(ex)->dev && st->st_ino == LX(ex)->ino;
	return vfs_obj_insert(n, out);
}

/*
 * vfs_obj_from_fd() - the object for the file @fd refers to, in @ex.
 * With @adopt, @fd must be O_PATH and is owned by the call (kept in a new
 * object or closed); else the caller keeps @fd and the object gets its
 * own. Returns 0 and a new reference, -EXDEV for another filesystem, or
 * -errno.
 */
int vfs_obj_from_fd(struct vfs_export *ex, int fd, bool adopt,
		    struct vfs_obj **out)
{
	struct vfs_kh kh;
	struct vfs_bh bh;
	struct stat st;
	int ret, pfd, mnt;

	if (fstat(fd, &st) < 0) {
		ret = -errno;
		goto out_close;
	}
	if (st.st_dev != LX(ex)->dev) {
		ret = -EXDEV;
		goto out_close;
	}
	ret = vfs_kh_of_fd_mnt(fd, &kh, &mnt);
	if (ret < 0)
		goto out_close;
	/* A bind mount inside the export: same st_dev, another mount. */
	if (mnt != LX(ex)->mnt_id) {
		ret = -EXDEV;
		goto out_close;
	}
	vfs_kh_to_bh(&kh, &bh);
	if (vfs_obj_find(ex, &bh, out) == 0) {
		if (adopt)
			close(fd);
		return 0;
	}
	if (adopt)
		return vfs_obj_adopt(ex, fd, &st, &kh, out);
	pfd = vfs_kh_open(ex, &kh, O_PATH | O_NOFOLLOW);
	if (pfd < 0)
		return pfd;
	return vfs_obj_adopt(ex, pfd, &st, &kh, out);

out_close:
	if (adopt)
		close(fd);
	return ret;
}

/*
 * vfs_local_doom() - the file of @kh, in @dir's export, lost a name
 * through us (vfs_obj_doom()).
 */
void vfs_local_doom(struct vfs_obj *dir, const struct vfs_kh *kh)
{
	struct vfs_bh bh;

	vfs_kh_to_bh(kh, &bh);
	vfs_obj_doom(dir->ex, &bh);
}

/*
 * vfs_obj_data_fd() - @o's cached data fd, opened as root on first use
 * (O_RDWR for @write, else the O_RDWR one if open or an O_RDONLY one).
 * The fd stays valid while the caller holds its reference; permission is
 * checked per call by the caller (vfs_check_data). Returns fd or -errno.
 */
int vfs_obj_data_fd(struct vfs_obj *o, bool write)
{
	struct local_obj *l = LO(o);
	atomic_int *slot = write ? &l->wfd : &l->rfd;
	int fd, expected = -1;

	fd = atomic_load(&l->wfd);
	if (fd >= 0)
		return fd;
	if (!write) {
		fd = atomic_load(&l->rfd);
		if (fd >= 0)
			return fd;
	}
	if (o->type == VFS_DIR)
		return -EISDIR;
	if (o->type != VFS_REG)
		return -EINVAL;
	fd = local_obj_open(o, write ? O_RDWR : O_RDONLY);
	if (fd < 0)
		return fd;
	if (!atomic_compare_exchange_strong(slot, &expected, fd)) {
		close(fd);
		return expected;
	}
	return fd;
}

void local_export_free(struct vfs_export *ex)
{
	if (LX(ex)->root_fd >= 0)
		close(LX(ex)->root_fd);
	free(ex);
}

int vfs_export_open(const char *path, uint32_t id, struct vfs_export **out)
{
	struct local_export *lx;
	struct vfs_export *ex;
	struct vfs_kh kh;
	struct vfs_bh bh;
	struct stat st;
	char *real;
	int ret;

	lx = calloc(1, sizeof(*lx));
	if (lx == NULL)
		return -ENOMEM;
	ex = &lx->ex;
	lx->root_fd = -1;
	real = realpath(path, NULL);
	if (real == NULL) {
		free(lx);
		return -errno;
	}
	ret = vfs_export_init(ex, &vfs_local_backend, id, real);
	free(real);
	if (ret < 0)
		goto out_put;
	/* open_by_handle_at() refuses an O_PATH mount fd: open it for real. */
	lx->root_fd = open(ex->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (lx->root_fd < 0) {
		ret = -errno;
		goto out_put;
	}
	if (fstat(lx->root_fd, &st) < 0) {
		ret = -errno;
		goto out_put;
	}
	lx->dev = st.st_dev;
	lx->ino = st.st_ino;
	ret = vfs_kh_of_fd_mnt(lx->root_fd, &kh, &lx->mnt_id);
	if (ret < 0) {
		log_err("vfs: %s: filesystem without file handles: %s",
			ex->path, strerror(-ret));
		goto out_put;
	}
	vfs_kh_to_bh(&kh, &bh);
	ret = vfs_export_init_root(ex, &bh);
	if (ret < 0)
		goto out_put;
	*out = ex;
	return 0;

out_put:
	vfs_export_put(ex);
	return ret;
}
