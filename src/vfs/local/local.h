/* SPDX-License-Identifier: MIT */
#ifndef NASD_VFS_LOCAL_LOCAL_H
#define NASD_VFS_LOCAL_LOCAL_H

/*
 * The local-filesystem backend (backend.h): a directory tree of this
 * machine, its files named by the kernel's own handles
 * (name_to_handle_at / open_by_handle_at, as knfsd and Ganesha's VFS
 * backend do), so handles survive restarts and renames. Every object
 * holds an O_PATH descriptor; regular files open data descriptors
 * lazily. Permissions are the kernel's, under the calling thread's fs
 * credentials (cred.c), with knfsd's owner override for data access.
 *
 * Files: obj.c (exports, objects, data fds), handle.c (kernel handles),
 * attr.c, dir.c, readdir.c, io.c, dio.c (O_DIRECT), space.c, xattr.c,
 * subtree.c; table.c holds the table.
 *
 * Backend handle bytes (struct vfs_bh): the kernel handle type as a
 * big-endian int32, then the kernel handle's bytes (the wire layout of
 * handle.c's version 1, so handles minted before the table still work).
 */

#include <fcntl.h>
#include <sys/stat.h>

#include "vfs/vfs_int.h"

/* Largest kernel handle we accept (the kernel's MAX_HANDLE_SZ). */
#define VFS_KH_MAX 128

/* A kernel file handle as name_to_handle_at() returns it. */
struct vfs_kh {
	int type;
	uint32_t len;
	uint8_t bytes[VFS_KH_MAX];
};

struct local_export {
	struct vfs_export ex;
	int root_fd; /* O_RDONLY|O_DIRECTORY (handle mount fd) */
	dev_t dev;
	ino_t ino;
	int mnt_id;  /* mount of the root: exports do not cross */
};

struct local_obj {
	struct vfs_obj o;
	int fd;		       /* O_PATH, never -1 */
	atomic_int rfd;	       /* lazily opened O_RDONLY, or -1 */
	atomic_int wfd;	       /* lazily opened O_RDWR, or -1 */
	/* Direct I/O (dio.c): O_DIRECT fds, their alignment, RMW lock. */
	atomic_int dfd;	       /* lazily opened O_DIRECT (O_RDWR if it can
				  be, else O_RDONLY: see dfd_ro), or -1 */
	atomic_int dfd_ro;     /* 0, or the -errno of opening it O_RDWR */
	atomic_uint dio_align; /* offset/length alignment, 0 = not yet */
	atomic_uint dio_malign; /* buffer address alignment */
	atomic_bool dio_off;   /* O_DIRECT refused here: buffered only */
	pthread_rwlock_t dio_lock; /* shared: aligned I/O; excl.: RMW */
	dev_t dev;
	ino_t ino;
};

static inline struct local_obj *LO(const struct vfs_obj *o)
{
	return (struct local_obj *)o;
}

static inline struct local_export *LX(const struct vfs_export *ex)
{
	return (struct local_export *)ex;
}

/* handle.c */
int vfs_kh_of_fd(int fd, struct vfs_kh *kh);
int vfs_kh_of_fd_mnt(int fd, struct vfs_kh *kh, int *mnt_id);
int vfs_kh_of_name_mnt(int dirfd, const char *name, struct vfs_kh *kh,
		       int *mnt_id);
int vfs_kh_open(struct vfs_export *ex, const struct vfs_kh *kh, int flags);
void vfs_kh_to_bh(const struct vfs_kh *kh, struct vfs_bh *bh);
int vfs_kh_of_obj(const struct vfs_obj *o, struct vfs_kh *kh);
int local_obj_open(struct vfs_obj *o, int flags);
int local_obj_resolve(struct vfs_export *ex, const struct vfs_bh *bh,
		      struct vfs_obj **out);

/* obj.c */
int vfs_obj_adopt(struct vfs_export *ex, int fd, const struct stat *st,
		  const struct vfs_kh *kh, struct vfs_obj **out);
int vfs_obj_from_fd(struct vfs_export *ex, int fd, bool adopt,
		    struct vfs_obj **out);
int vfs_obj_data_fd(struct vfs_obj *o, bool write);
void vfs_local_doom(struct vfs_obj *dir, const struct vfs_kh *kh);
void local_export_free(struct vfs_export *ex);
void local_obj_free(struct vfs_obj *o);
bool local_obj_unlinked(struct vfs_obj *o);

/* attr.c */
int vfs_check_access(struct vfs_obj *o, int mode);
int vfs_check_data(struct vfs_obj *o, bool write);
/* vfs_attr_from_stat() - @st of object @o as vfs attributes. */
void vfs_attr_from_stat(const struct vfs_obj *o, const struct stat *st,
			struct vfs_attr *a);
void vfs_proc_path(char *buf, size_t size, int fd);
int local_getattr(struct vfs_obj *o, struct vfs_attr *attr);
int local_setattr(struct vfs_obj *o, const struct vfs_sattr *sa);
int local_mark_modified(struct vfs_obj *o);
int local_access(struct vfs_obj *o, uint32_t want, bool ro,
		 uint32_t *granted);
int local_check_lock(struct vfs_obj *o);
int local_statfs(struct vfs_obj *o, struct vfs_statfs *st);

/* dir.c */
int local_lookup(struct vfs_obj *dir, const char *name, size_t len,
		 struct vfs_obj **out);
ssize_t local_readlink(struct vfs_obj *o, char *buf, size_t size);
int local_create(struct vfs_obj *dir, const char *name, size_t len,
		 enum vfs_createmode how, const struct vfs_sattr *sa,
		 const uint8_t verf[8], struct vfs_obj **out);
int local_mkdir(struct vfs_obj *dir, const char *name, size_t len,
		const struct vfs_sattr *sa, struct vfs_obj **out);
int local_symlink(struct vfs_obj *dir, const char *name, size_t len,
		  const char *target, size_t tlen, const struct vfs_sattr *sa,
		  struct vfs_obj **out);
int local_mknod(struct vfs_obj *dir, const char *name, size_t len,
		enum vfs_ftype type, uint32_t major, uint32_t minor,
		const struct vfs_sattr *sa, struct vfs_obj **out);
int local_remove(struct vfs_obj *dir, const char *name, size_t len);
int local_rmdir(struct vfs_obj *dir, const char *name, size_t len);
int local_rename(struct vfs_obj *fdir, const char *fname, size_t flen,
		 struct vfs_obj *tdir, const char *tname, size_t tlen);
int local_link(struct vfs_obj *o, struct vfs_obj *dir, const char *name,
	       size_t len);

/* readdir.c */
int local_readdir(struct vfs_obj *dir, uint64_t cookie, vfs_readdir_cb emit,
		  void *ctx, bool *eof);
uint64_t local_dir_verifier(struct vfs_obj *dir);

/* subtree.c */
int local_subtree_init(struct vfs_subtree *t, struct vfs_obj *dir);
bool local_subtree_holds(const struct vfs_subtree *t, struct vfs_obj *o);

/* io.c */
ssize_t local_read_payload(struct vfs_obj *o, uint64_t off, size_t len,
			   unsigned int flags, struct vfs_read_res *res);
bool local_read_goes_direct(struct vfs_obj *o, uint64_t off, size_t len);
ssize_t local_write(struct vfs_obj *o, uint64_t off, const void *buf,
		    size_t len, enum vfs_stable stable);
int local_commit(struct vfs_obj *o, uint64_t off, uint64_t count);

/* dio.c */
void vfs_obj_dio_init(struct vfs_obj *o);
void vfs_obj_dio_close(struct vfs_obj *o);
int vfs_obj_dio_fd(struct vfs_obj *o, bool write);
ssize_t vfs_dio_read(struct vfs_obj *o, int fd, uint64_t off, size_t len,
		     struct iobuf **out, size_t *start, bool *eof);
ssize_t vfs_dio_write(struct vfs_obj *o, int fd, uint64_t off,
		      const uint8_t *buf, size_t len, int flags);

/* xattr.c */
ssize_t local_xattr_get(struct vfs_obj *o, const char *name, void *buf,
			size_t size);
int local_xattr_set(struct vfs_obj *o, const char *name, const void *val,
		    size_t len, enum vfs_xattr_how how);
ssize_t local_xattr_list(struct vfs_obj *o, char *buf, size_t size);
int local_xattr_remove(struct vfs_obj *o, const char *name);
int local_xattr_probe(struct vfs_obj *o);

/* space.c */
int local_allocate(struct vfs_obj *o, uint64_t off, uint64_t len);
int local_deallocate(struct vfs_obj *o, uint64_t off, uint64_t len);
int local_seek(struct vfs_obj *o, uint64_t off, enum vfs_seek_what what,
	       uint64_t *pos, uint64_t *size);
ssize_t local_copy_range(struct vfs_obj *src, uint64_t soff,
			 struct vfs_obj *dst, uint64_t doff, uint64_t count,
			 uint64_t max, enum vfs_stable stable);
int local_clone_range(struct vfs_obj *src, uint64_t soff,
		      struct vfs_obj *dst, uint64_t doff, uint64_t count);
int local_clone_blksize(struct vfs_obj *o, uint32_t *blksize);
int local_advise(struct vfs_obj *o, uint64_t off, uint64_t len,
		 enum vfs_advice advice);

#endif
