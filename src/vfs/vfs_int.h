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
/* vfs_instance_id() - this server's stable name (STATE_DIR/instance.id,
 * 16 random bytes made once; per process before vfs_secret_init()). */
void vfs_instance_id(uint8_t out[16]);

/* obj.c */
void vfs_global_init(void);
uint32_t vfs_cache_capacity(void);
void vfs_export_get(struct vfs_export *ex);
void vfs_export_put(struct vfs_export *ex);

/* cred.c: run a block with root fs credentials, then restore. */
struct vfs_root_save {
	bool switched;
	bool was_root;
	uid_t fsuid;
};
void vfs_root_enter(struct vfs_root_save *s);
void vfs_root_leave(const struct vfs_root_save *s);
uid_t vfs_cred_fsuid(void);
/*
 * vfs_cred_current() - the identity the calling thread acts with, for
 * backends that check permissions themselves (a cluster client): the
 * last vfs_cred_set(), or root (uid 0, no groups) between
 * vfs_root_enter() and vfs_root_leave(). Returns true for root.
 */
bool vfs_cred_current(struct vfs_cred *out);

/*
 * vfs_name_check() - validate a wire name and copy it NUL-terminated
 * into @buf (VFS_NAME_MAX + 1 bytes). Empty or containing '/' or NUL is
 * -EINVAL, longer than VFS_NAME_MAX -ENAMETOOLONG.
 */
int vfs_name_check(const char *name, size_t len, char *buf);
/* vfs_name_is_dot() - "." or "..". */
bool vfs_name_is_dot(const char *n);
/*
 * vfs_name_for_change() - a name to create or remove in @dir: checked as
 * vfs_name_check() does, "." and ".." giving @dot_err; -ENOTDIR when
 * @dir is none.
 */
int vfs_name_for_change(struct vfs_obj *dir, const char *name, size_t len,
			char *buf, int dot_err);
/*
 * vfs_apply_new_attrs() - apply a create's attributes other than the
 * mode (given at creation): owner if it differs, size if not what it
 * is, times. 0 or -errno.
 */
int vfs_apply_new_attrs(struct vfs_obj *o, const struct vfs_sattr *sa);
/*
 * vfs_verf_word() - one half of an EXCLUSIVE create's verifier as the
 * seconds of a time it is kept in (bit 31 cleared as knfsd does: 32-bit
 * signed on-disk times).
 */
uint32_t vfs_verf_word(const uint8_t *p);
/* vfs_ftype_of_mode() - the vfs file type of a stat mode's S_IFMT bits. */
enum vfs_ftype vfs_ftype_of_mode(uint32_t mode);
/* vfs_ftype_of_dtype() - the type of a directory entry's d_type into
 * *@type; false for DT_UNKNOWN (or anything else unknown). */
bool vfs_ftype_of_dtype(unsigned char t, enum vfs_ftype *type);
/* vfs_mknod_mode() - a MKNOD's mode and device number: @sa's mode (0644
 * by default) and @type's S_IF bits; -EBADTYPE for a type it cannot
 * make. */
int vfs_mknod_mode(enum vfs_ftype type, uint32_t major, uint32_t minor,
		   const struct vfs_sattr *sa, mode_t *mode, dev_t *dev);
/* vfs_symlink_target() - a SYMLINK's target checked (not empty, shorter
 * than VFS_PATH_MAX, no NUL) and NUL-terminated in a new *@out the
 * caller frees. 0 or -errno. */
int vfs_symlink_target(const char *target, size_t tlen, char **out);

#endif
