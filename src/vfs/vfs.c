// SPDX-License-Identifier: MIT
/*
 * The vfs entry points (vfs.h) that reach storage: each dispatches
 * through the table of its object's export (backend.h, vfs_ops()), with
 * what every backend would otherwise repeat (names checked for the
 * backends that want a C string, cross-export checks, the copy of a
 * read into a caller's buffer, ACCESS composed from single checks).
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "core/log.h"
#include "core/req.h"
#include "vfs/vfs_int.h"

/* A NULL entry of an older table: not supported. */
#define OPT(ops, op) ((ops)->op != NULL)

int vfs_name_check(const char *name, size_t len, char *buf)
{
	if (len == 0 || name == NULL)
		return -EINVAL;
	if (len > VFS_NAME_MAX)
		return -ENAMETOOLONG;
	if (memchr(name, '/', len) != NULL || memchr(name, '\0', len) != NULL)
		return -EINVAL;
	memcpy(buf, name, len);
	buf[len] = '\0';
	return 0;
}

bool vfs_name_is_dot(const char *n)
{
	return strcmp(n, ".") == 0 || strcmp(n, "..") == 0;
}

int vfs_name_for_change(struct vfs_obj *dir, const char *name, size_t len,
			char *buf, int dot_err)
{
	int ret;

	if (dir->type != VFS_DIR)
		return -ENOTDIR;
	ret = vfs_name_check(name, len, buf);
	if (ret < 0)
		return ret;
	if (vfs_name_is_dot(buf))
		return dot_err;
	return 0;
}

int vfs_apply_new_attrs(struct vfs_obj *o, const struct vfs_sattr *sa)
{
	struct vfs_sattr rest;
	struct vfs_attr a;
	int ret;

	if (sa == NULL)
		return 0;
	rest = *sa;
	rest.set_mode = false;
	ret = vfs_getattr(o, &a);
	if (ret < 0)
		return ret;
	if (rest.set_uid && rest.uid == a.uid)
		rest.set_uid = false;
	if (rest.set_gid && rest.gid == a.gid)
		rest.set_gid = false;
	if (rest.set_size && rest.size == a.size)
		rest.set_size = false;
	return vfs_setattr(o, &rest);
}

enum vfs_ftype vfs_ftype_of_mode(uint32_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFDIR:
		return VFS_DIR;
	case S_IFBLK:
		return VFS_BLK;
	case S_IFCHR:
		return VFS_CHR;
	case S_IFLNK:
		return VFS_LNK;
	case S_IFSOCK:
		return VFS_SOCK;
	case S_IFIFO:
		return VFS_FIFO;
	default:
		return VFS_REG;
	}
}

bool vfs_ftype_of_dtype(unsigned char t, enum vfs_ftype *type)
{
	static const enum vfs_ftype of[] = {
		[DT_REG] = VFS_REG,  [DT_DIR] = VFS_DIR,   [DT_LNK] = VFS_LNK,
		[DT_CHR] = VFS_CHR,  [DT_BLK] = VFS_BLK,   [DT_FIFO] = VFS_FIFO,
		[DT_SOCK] = VFS_SOCK,
	};

	if (t >= sizeof(of) / sizeof(of[0]) || !of[t])
		return false;
	*type = of[t];
	return true;
}

int vfs_mknod_mode(enum vfs_ftype type, uint32_t major, uint32_t minor,
		   const struct vfs_sattr *sa, mode_t *mode, dev_t *dev)
{
	*mode = sa != NULL && sa->set_mode ? sa->mode & 07777 : 0644;
	*dev = 0;
	switch (type) {
	case VFS_CHR:
		*mode |= S_IFCHR;
		*dev = makedev(major, minor);
		return 0;
	case VFS_BLK:
		*mode |= S_IFBLK;
		*dev = makedev(major, minor);
		return 0;
	case VFS_FIFO:
		*mode |= S_IFIFO;
		return 0;
	case VFS_SOCK:
		*mode |= S_IFSOCK;
		return 0;
	default:
		return -EBADTYPE;
	}
}

int vfs_symlink_target(const char *target, size_t tlen, char **out)
{
	*out = NULL;
	if (tlen == 0)
		return -ENOENT;
	if (tlen >= VFS_PATH_MAX)
		return -ENAMETOOLONG;
	if (memchr(target, '\0', tlen) != NULL)
		return -EINVAL;
	*out = malloc(tlen + 1);
	if (*out == NULL)
		return -ENOMEM;
	memcpy(*out, target, tlen);
	(*out)[tlen] = '\0';
	return 0;
}

uint32_t vfs_verf_word(const uint8_t *p)
{
	/* Bit 31 cleared as knfsd does: 32-bit signed on-disk times. */
	return ((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
		(uint32_t)p[2] << 8 | p[3]) &
	       0x7fffffff;
}

int vfs_access_from_checks(struct vfs_obj *o, uint32_t want, bool ro,
			   int (*check)(struct vfs_obj *o, int mode),
			   uint32_t *granted)
{
	bool r = false, w = false, x = false;

	if (want & VFS_ACCESS_READ)
		r = check(o, R_OK) == 0;
	if (want & (VFS_ACCESS_MODIFY | VFS_ACCESS_EXTEND | VFS_ACCESS_DELETE))
		w = !ro && check(o, W_OK) == 0;
	if (want &
	    (VFS_ACCESS_LOOKUP | VFS_ACCESS_EXECUTE |
	     (o->type == VFS_DIR ? VFS_ACCESS_MODIFY | VFS_ACCESS_EXTEND |
					   VFS_ACCESS_DELETE
				 : 0)))
		x = check(o, X_OK) == 0;
	*granted = vfs_access_compose(o->type, want, ro, r, w, x);
	return 0;
}

uint32_t vfs_access_compose(enum vfs_ftype type, uint32_t want, bool ro,
			    bool r, bool w, bool x)
{
	uint32_t g = 0;

	w = w && !ro;
	if (r)
		g |= VFS_ACCESS_READ;
	if (type == VFS_DIR) {
		/* Changing entries needs write and search on the directory. */
		if (x)
			g |= VFS_ACCESS_LOOKUP;
		if (w && x)
			g |= VFS_ACCESS_MODIFY | VFS_ACCESS_EXTEND |
			     VFS_ACCESS_DELETE;
	} else {
		if (w)
			g |= VFS_ACCESS_MODIFY | VFS_ACCESS_EXTEND;
		if (x)
			g |= VFS_ACCESS_EXECUTE;
	}
	return g & want;
}

#ifdef NASD_HAVE_CEPH
typedef int (*ceph_open_fn)(const char *name,
			    const struct vfs_ceph_spec *spec, uint32_t id,
			    struct vfs_export **out);
static pthread_once_t ceph_once = PTHREAD_ONCE_INIT;
static ceph_open_fn ceph_open;

/* The CephFS backend module: beside the server's binary (a build tree,
 * or a relocated install), else where it was installed. Never unloaded
 * (its table outlives every export). */
static void ceph_load(void)
{
	char exe[VFS_PATH_MAX], path[VFS_PATH_MAX + 32];
	const char *dirs[2] = {NULL, NASD_CEPH_MODULE_DIR};
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	union {
		void *p;
		ceph_open_fn f;
	} sym;
	char *slash;
	void *h = NULL;

	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			dirs[0] = exe;
		}
	}
	for (int i = 0; i < 2 && !h; i++) {
		if (!dirs[i])
			continue;
		(void)snprintf(path, sizeof(path), "%s/nasd-ceph.so", dirs[i]);
		h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	}
	if (!h) {
		log_err("vfs: cannot load the CephFS backend module: %s",
			dlerror());
		return;
	}
	/* POSIX dlsym gives a function as a void *: read it back as one */
	sym.p = dlsym(h, "nasd_ceph_export_open");
	ceph_open = sym.f;
	if (!ceph_open)
		log_err("vfs: %s: no nasd_ceph_export_open", path);
}
#endif

int vfs_export_open_ceph(const char *name, const struct vfs_ceph_spec *spec,
			 uint32_t id, struct vfs_export **out)
{
#ifdef NASD_HAVE_CEPH
	pthread_once(&ceph_once, ceph_load);
	if (ceph_open)
		return ceph_open(name, spec, id, out);
#else
	(void)name, (void)spec, (void)id, (void)out;
	log_err("vfs: %s: nasd was built without libcephfs", name);
#endif
	return -EOPNOTSUPP;
}

bool vfs_export_may_block(const struct vfs_export *ex)
{
	return ex->be->caps & VFS_CAP_REMOTE;
}

bool vfs_obj_changed_elsewhere(const struct vfs_obj *o)
{
	return o->ex->be->caps & VFS_CAP_REMOTE;
}

/* ---------------------------------------------------------- attributes */

int vfs_getattr(struct vfs_obj *o, struct vfs_attr *attr)
{
	return vfs_ops(o->ex)->getattr(o, attr);
}

int vfs_setattr(struct vfs_obj *o, const struct vfs_sattr *sa)
{
	return vfs_ops(o->ex)->setattr(o, sa);
}

int vfs_mark_modified(struct vfs_obj *o)
{
	return vfs_ops(o->ex)->mark_modified(o);
}

int vfs_access(struct vfs_obj *o, uint32_t want, bool ro, uint32_t *granted)
{
	return vfs_ops(o->ex)->access(o, want, ro, granted);
}

int vfs_check_lock(struct vfs_obj *o)
{
	return vfs_ops(o->ex)->check_lock(o);
}

int vfs_statfs(struct vfs_obj *o, struct vfs_statfs *st)
{
	return vfs_ops(o->ex)->statfs(o, st);
}

/* --------------------------------------------------------------- names */

int vfs_lookup(struct vfs_obj *dir, const char *name, size_t len,
	       struct vfs_obj **out)
{
	return vfs_ops(dir->ex)->lookup(dir, name, len, out);
}

ssize_t vfs_readlink(struct vfs_obj *o, char *buf, size_t size)
{
	return vfs_ops(o->ex)->readlink(o, buf, size);
}

int vfs_create(struct vfs_obj *dir, const char *name, size_t len,
	       enum vfs_createmode how, const struct vfs_sattr *sa,
	       const uint8_t verf[8], struct vfs_obj **out)
{
	return vfs_ops(dir->ex)->create(dir, name, len, how, sa, verf, out);
}

int vfs_mkdir(struct vfs_obj *dir, const char *name, size_t len,
	      const struct vfs_sattr *sa, struct vfs_obj **out)
{
	return vfs_ops(dir->ex)->mkdir(dir, name, len, sa, out);
}

int vfs_symlink(struct vfs_obj *dir, const char *name, size_t len,
		const char *target, size_t tlen, const struct vfs_sattr *sa,
		struct vfs_obj **out)
{
	return vfs_ops(dir->ex)->symlink(dir, name, len, target, tlen, sa,
					 out);
}

int vfs_mknod(struct vfs_obj *dir, const char *name, size_t len,
	      enum vfs_ftype type, uint32_t major, uint32_t minor,
	      const struct vfs_sattr *sa, struct vfs_obj **out)
{
	return vfs_ops(dir->ex)->mknod(dir, name, len, type, major, minor, sa,
				       out);
}

int vfs_remove(struct vfs_obj *dir, const char *name, size_t len)
{
	return vfs_ops(dir->ex)->remove(dir, name, len);
}

int vfs_rmdir(struct vfs_obj *dir, const char *name, size_t len)
{
	return vfs_ops(dir->ex)->rmdir(dir, name, len);
}

int vfs_rename(struct vfs_obj *fdir, const char *fname, size_t flen,
	       struct vfs_obj *tdir, const char *tname, size_t tlen)
{
	if (fdir->ex != tdir->ex)
		return -EXDEV;
	return vfs_ops(fdir->ex)->rename(fdir, fname, flen, tdir, tname, tlen);
}

int vfs_link(struct vfs_obj *o, struct vfs_obj *dir, const char *name,
	     size_t len)
{
	if (o->ex != dir->ex)
		return -EXDEV;
	return vfs_ops(dir->ex)->link(o, dir, name, len);
}

int vfs_readdir(struct vfs_obj *dir, uint64_t cookie, vfs_readdir_cb emit,
		void *ctx, bool *eof)
{
	return vfs_ops(dir->ex)->readdir(dir, cookie, emit, ctx, eof);
}

uint64_t vfs_dir_verifier(struct vfs_obj *dir)
{
	return dir->ex->be->dir_verifier(dir);
}

int vfs_subtree_init(struct vfs_subtree *t, struct vfs_obj *dir)
{
	const struct vfs_backend *be = dir->ex->be;

	t->len = 0;
	if (!OPT(be, subtree_init))
		return -EOPNOTSUPP;
	return be->subtree_init(t, dir);
}

bool vfs_subtree_holds(const struct vfs_subtree *t, struct vfs_obj *o)
{
	const struct vfs_backend *be = o->ex->be;

	return OPT(be, subtree_holds) && be->subtree_holds(t, o);
}

/* ------------------------------------------------- locks other servers see */

bool vfs_locks_shared(const struct vfs_obj *o)
{
	const struct vfs_backend *be = o->ex->be;

	return (be->caps & VFS_CAP_LOCKS) && be->version >= 2 &&
	       OPT(be, lock_set) && OPT(be, lock_test) &&
	       OPT(be, lock_release);
}

int vfs_lock_set(struct vfs_obj *o, uint64_t owner, uint64_t start,
		 uint64_t end, enum vfs_lock_type type)
{
	if (!vfs_locks_shared(o))
		return -EOPNOTSUPP;
	if (end < start)
		return -EINVAL;
	return o->ex->be->lock_set(o, owner, start, end, type);
}

int vfs_lock_test(struct vfs_obj *o, uint64_t owner, uint64_t start,
		  uint64_t end, bool excl, struct vfs_lock_conflict *c)
{
	if (!vfs_locks_shared(o))
		return 0;
	if (end < start)
		return -EINVAL;
	return o->ex->be->lock_test(o, owner, start, end, excl, c);
}

void vfs_lock_release(struct vfs_obj *o)
{
	if (vfs_locks_shared(o))
		o->ex->be->lock_release(o);
}

/* ----------------------------------------------------------- data path */

ssize_t vfs_read_payload(struct vfs_obj *o, uint64_t off, size_t len,
			 unsigned int flags, struct vfs_read_res *res)
{
	const struct vfs_backend *be = o->ex->be;

	/* A file range is for backends whose files the kernel can send. */
	if (!(be->caps & VFS_CAP_FILE_RANGE))
		flags &= ~VFS_READ_FILE_OK;
	return vfs_ops(o->ex)->read_payload(o, off, len, flags, res);
}

ssize_t vfs_read(struct vfs_obj *o, uint64_t off, void *buf, size_t len,
		 bool *eof)
{
	struct vfs_read_res res;
	ssize_t n;

	n = vfs_read_payload(o, off, len, 0, &res);
	*eof = res.eof;
	/* Without VFS_READ_FILE_OK the data is a buffer (or nothing). */
	if (n > 0 && res.data.kind == PAYLOAD_BUF)
		memcpy(buf, res.data.data, (size_t)n);
	payload_release(&res.data);
	return n;
}

bool vfs_read_goes_direct(struct vfs_obj *o, uint64_t off, size_t len)
{
	const struct vfs_backend *be = o->ex->be;

	return OPT(be, read_goes_direct) && be->read_goes_direct(o, off, len);
}

ssize_t vfs_write(struct vfs_obj *o, uint64_t off, const void *buf, size_t len,
		  enum vfs_stable stable)
{
	return vfs_ops(o->ex)->write(o, off, buf, len, stable);
}

int vfs_commit(struct vfs_obj *o, uint64_t off, uint64_t count)
{
	return vfs_ops(o->ex)->commit(o, off, count);
}

/* ---------------------------------------------------------------- space */

int vfs_allocate(struct vfs_obj *o, uint64_t off, uint64_t len)
{
	return vfs_ops(o->ex)->allocate(o, off, len);
}

int vfs_deallocate(struct vfs_obj *o, uint64_t off, uint64_t len)
{
	return vfs_ops(o->ex)->deallocate(o, off, len);
}

int vfs_seek(struct vfs_obj *o, uint64_t off, enum vfs_seek_what what,
	     uint64_t *pos, uint64_t *size)
{
	return vfs_ops(o->ex)->seek(o, off, what, pos, size);
}

ssize_t vfs_copy_range(struct vfs_obj *src, uint64_t soff,
		       struct vfs_obj *dst, uint64_t doff, uint64_t count,
		       uint64_t max, enum vfs_stable stable)
{
	/* Across backends the bytes would need a bounce through the
	 * vfs, which no protocol asks for: COPY is within one server. */
	if (src->ex->be != dst->ex->be)
		return -EXDEV;
	return vfs_ops(dst->ex)->copy_range(src, soff, dst, doff, count, max,
					    stable);
}

int vfs_clone_range(struct vfs_obj *src, uint64_t soff, struct vfs_obj *dst,
		    uint64_t doff, uint64_t count)
{
	if (src->ex->be != dst->ex->be)
		return -EXDEV;
	return vfs_ops(dst->ex)->clone_range(src, soff, dst, doff, count);
}

int vfs_clone_blksize(struct vfs_obj *o, uint32_t *blksize)
{
	return o->ex->be->clone_blksize(o, blksize);
}

int vfs_advise(struct vfs_obj *o, uint64_t off, uint64_t len,
	       enum vfs_advice advice)
{
	return vfs_ops(o->ex)->advise(o, off, len, advice);
}
