/* SPDX-License-Identifier: MIT */
#ifndef NASD_VFS_VFS_INT_H
#define NASD_VFS_VFS_INT_H

/*
 * Internals of the local-filesystem vfs backend, shared by its files:
 * handle.c (wire handles), obj.c (object cache, exports), cred.c
 * (per-thread credentials), attr.c, dir.c, readdir.c, io.c.
 */

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/stat.h>

#include "core/err.h"
#include "vfs/vfs.h"
#include "vfs/fault.h"

/* Largest kernel handle we accept (the kernel's MAX_HANDLE_SZ). */
#define VFS_KH_MAX 128

/* A kernel file handle as name_to_handle_at() returns it. */
struct vfs_kh {
	int type;
	uint32_t len;
	uint8_t bytes[VFS_KH_MAX];
};

struct vfs_export {
	uint32_t id;
	int root_fd; /* O_RDONLY|O_DIRECTORY (handle mount fd) */
	dev_t dev;
	ino_t ino;
	char *path;	      /* realpath() of the export root */
	struct vfs_obj *root; /* pinned reference */
	atomic_int refs;      /* open ref + one per cached object */
	atomic_int opens;     /* vfs_export_open/reuse minus close */
	int mnt_id;	      /* mount of the root: exports do not cross */
	atomic_int io;	      /* enum vfs_io */
};

/* Two timestamps equal to the nanosecond (the ctime caches). */
static inline bool vfs_ts_equal(const struct timespec *x,
				const struct timespec *y)
{
	return x->tv_sec == y->tv_sec && x->tv_nsec == y->tv_nsec;
}

struct vfs_obj {
	/* Cache linkage: all protected by the shard lock. */
	struct vfs_obj *hnext;
	struct vfs_obj *lru_prev, *lru_next; /* only while refs == 0 */
	uint32_t hash;
	unsigned int refs;
	bool doomed; /* unlinked by us: recheck nlink at put */
	bool hashed;

	struct vfs_export *ex; /* holds a reference */
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
	/* Kept DOS attributes (dosattr.c), cached while the ctime they
	 * were read under stays: every xattr change moves the ctime (by
	 * at least a nanosecond once it was read, with Linux 6.13's
	 * multigrain timestamps; within a clock tick before that, so an
	 * outside change may go unseen for that long). */
	pthread_mutex_t dos_mu;
	bool dos_valid;
	uint32_t dos_gen;	/* bumped by each of our own changes */
	struct timespec dos_ctime;
	struct vfs_dosattr dos;
	/* xattrs known absent (VFS_XSLOT_* bits, xattr.c), under dos_mu,
	 * while the ctime they were found absent under stays */
	uint32_t xabsent;
	uint32_t xgen;		/* bumped by each of our xattr changes */
	struct timespec xabsent_ctime;
	/* The xattr names (vfs_xattr_names), under dos_mu, while the ctime
	 * they were listed under stays: NULL with xnames_len 0 is none. */
	bool xnames_valid;
	char *xnames;
	size_t xnames_len;
	struct timespec xnames_ctime;
	enum vfs_ftype type;
	dev_t dev;
	ino_t ino;
	bool is_root;
	struct vfs_kh kh;
};

/* handle.c */
uint64_t vfs_secret_hash(const void *msg, size_t len);
int vfs_kh_of_fd(int fd, struct vfs_kh *kh);
int vfs_kh_of_fd_mnt(int fd, struct vfs_kh *kh, int *mnt_id);
int vfs_kh_of_name_mnt(int dirfd, const char *name, struct vfs_kh *kh,
		       int *mnt_id);
int vfs_kh_open(struct vfs_export *ex, const struct vfs_kh *kh, int flags);

/* obj.c */
void vfs_global_init(void);
uint32_t vfs_cache_capacity(void);
int vfs_obj_adopt(struct vfs_export *ex, int fd, const struct stat *st,
		  const struct vfs_kh *kh, struct vfs_obj **out);
int vfs_obj_from_fd(struct vfs_export *ex, int fd, bool adopt,
		    struct vfs_obj **out);
int vfs_obj_find(struct vfs_export *ex, const struct vfs_kh *kh,
		 struct vfs_obj **out);
void vfs_obj_doom(struct vfs_export *ex, const struct vfs_kh *kh);
int vfs_obj_data_fd(struct vfs_obj *o, bool write);
void vfs_export_get(struct vfs_export *ex);
void vfs_export_put(struct vfs_export *ex);

/* cred.c: run a block with root fs credentials, then restore. */
struct vfs_root_save {
	bool switched;
	uid_t fsuid;
};
void vfs_root_enter(struct vfs_root_save *s);
void vfs_root_leave(const struct vfs_root_save *s);
uid_t vfs_cred_fsuid(void);

/* attr.c */
enum vfs_ftype vfs_ftype_of_mode(mode_t mode);
int vfs_check_access(struct vfs_obj *o, int mode);
int vfs_check_data(struct vfs_obj *o, bool write);
/* vfs_attr_from_stat() - @st of object @o as vfs attributes. */
void vfs_attr_from_stat(const struct vfs_obj *o, const struct stat *st,
			struct vfs_attr *a);
void vfs_proc_path(char *buf, size_t size, int fd);

/* dio.c */
void vfs_obj_dio_init(struct vfs_obj *o);
void vfs_obj_dio_close(struct vfs_obj *o);
int vfs_obj_dio_fd(struct vfs_obj *o, bool write);
ssize_t vfs_dio_read(struct vfs_obj *o, int fd, uint64_t off, size_t len,
		     struct iobuf **out, size_t *start, bool *eof);
ssize_t vfs_dio_write(struct vfs_obj *o, int fd, uint64_t off,
		      const uint8_t *buf, size_t len, int flags);

/* dir.c */
int vfs_name_check(const char *name, size_t len, char *buf);

#endif
