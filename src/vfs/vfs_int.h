/* SPDX-License-Identifier: MIT */
#ifndef NASD_VFS_VFS_INT_H
#define NASD_VFS_VFS_INT_H

/*
 * Internals of the vfs shared by its generic files (vfs.c, handle.c,
 * obj.c, cred.c, xattr.c, dosattr.c, autoio.c, fault.c) and its
 * backends (backend.h; local/).
 */

#include <pthread.h>
#include <stdatomic.h>

#include "core/err.h"
#include "vfs/backend.h"
#include "vfs/fault.h"
#include "vfs/vfs.h"

/* Two timestamps equal to the nanosecond (the ctime caches). */
static inline bool vfs_ts_equal(const struct timespec *x,
				const struct timespec *y)
{
	return x->tv_sec == y->tv_sec && x->tv_nsec == y->tv_nsec;
}

/* handle.c */
uint64_t vfs_secret_hash(const void *msg, size_t len);

/* obj.c */
void vfs_global_init(void);
uint32_t vfs_cache_capacity(void);
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

/*
 * vfs_name_check() - validate a wire name and copy it NUL-terminated
 * into @buf (VFS_NAME_MAX + 1 bytes). Empty or containing '/' or NUL is
 * -EINVAL, longer than VFS_NAME_MAX -ENAMETOOLONG.
 */
int vfs_name_check(const char *name, size_t len, char *buf);

#endif
