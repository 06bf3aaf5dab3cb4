/* SPDX-License-Identifier: MIT */
#ifndef NASD_VFS_CEPH_CEPH_H
#define NASD_VFS_CEPH_CEPH_H

/*
 * The CephFS backend (backend.h): an export is one libcephfs mount of a
 * directory of a CephFS filesystem, reached through the low-level API
 * (ceph_ll_*) as NFS-Ganesha's FSAL_CEPH does. Built when libcephfs is
 * found (meson option "ceph").
 *
 * Handles: the backend bytes are a tag, the filesystem id (fscid), the
 * inode number, the snapshot id and the inode's birth time, which stands
 * in for a generation (CephFS reuses no inode numbers in practice, but
 * statx gives no generation to prove it). A handle is resolved with
 * ceph_ll_lookup_inode (the MDS answers for inodes this client has not
 * seen); an inode whose birth time differs, or with no link left, is
 * stale (an unlinked inode still resolves for a while).
 *
 * Objects hold a reference on their Inode; data calls open a file handle
 * (Fh) as root for the call (cfs_fh_open says why none is kept), and
 * check the caller's data permission from the mode bits with knfsd's
 * owner override, as the local backend does. Every other call passes the
 * caller's identity to libcephfs as a UserPerm (per-thread cache), and
 * libcephfs checks it (client_permissions, its default).
 *
 * Files: mount.c (exports, the session reclaim), obj.c (objects,
 * handles, attributes, permissions), dir.c (names, readdir), io.c (data,
 * space, xattrs), lock.c (byte-range locks other gateways see), table.c.
 */

#include <cephfs/libcephfs.h>

#include "vfs/vfs_int.h"

/* Backend bytes: "ceph" fscid ino snapid btime.sec btime.nsec (BE). */
#define CEPH_BH_LEN (4 + 8 + 8 + 8 + 8 + 4)

/* What every attribute read asks for. */
#define CEPH_WANT (CEPH_STATX_BASIC_STATS | CEPH_STATX_VERSION | \
		   CEPH_STATX_BTIME)

struct ceph_export {
	struct vfs_export ex;
	struct ceph_mount_info *cm;
	uint64_t fscid;
};

struct ceph_obj {
	struct vfs_obj o;
	struct Inode *in;
	uint64_t ino;
	struct Fh *lock_fh; /* carries the locks set through us (lock.c) */
};

static inline struct ceph_obj *CO(const struct vfs_obj *o)
{
	return (struct ceph_obj *)o;
}

static inline struct ceph_export *CX(const struct vfs_export *ex)
{
	return (struct ceph_export *)ex;
}

static inline struct ceph_mount_info *CM(const struct vfs_obj *o)
{
	return CX(o->ex)->cm;
}

/* The caller's UserPerm as @p, or the function returns -ENOMEM. */
#define PERMS(ex, p)                                                       \
	const UserPerm *p = cfs_perms(ex);                                \
	if (!(p))                                                          \
		return -ENOMEM

/* obj.c */
const UserPerm *cfs_perms(struct vfs_export *ex);
const UserPerm *cfs_root_perms(struct vfs_export *ex);
void cfs_attr_of(const struct vfs_obj *o, const struct ceph_statx *x,
		  struct vfs_attr *a);
int cfs_obj_adopt(struct vfs_export *ex, struct Inode *in,
		   const struct ceph_statx *x, struct vfs_obj **out);
int cfs_obj_resolve(struct vfs_export *ex, const struct vfs_bh *bh,
		     struct vfs_obj **out);
void cfs_obj_free(struct vfs_obj *o);
bool cfs_obj_unlinked(struct vfs_obj *o);
int cfs_check(struct vfs_obj *o, int mode);
int cfs_check_data(struct vfs_obj *o, bool write);
int cfs_data_allowed(const struct vfs_obj *o, const struct ceph_statx *x,
		     bool write);
int cfs_getattr_data(struct vfs_obj *o, bool write, struct vfs_attr *attr);
int cfs_fh_open(struct vfs_obj *o, bool write, struct Fh **fh);
int cfs_getattr(struct vfs_obj *o, struct vfs_attr *attr);
int cfs_setattr(struct vfs_obj *o, const struct vfs_sattr *sa);
int cfs_mark_modified(struct vfs_obj *o);
int cfs_access(struct vfs_obj *o, uint32_t want, bool ro,
		uint32_t *granted);
int cfs_check_lock(struct vfs_obj *o);
int cfs_statfs(struct vfs_obj *o, struct vfs_statfs *st);

/* mount.c: the module's entry point (vfs.c loads it) */
int nasd_ceph_export_open(const char *name, const struct vfs_ceph_spec *spec,
			  uint32_t id, struct vfs_export **out);
void cfs_export_free(struct vfs_export *ex);
extern const struct vfs_backend vfs_ceph_backend;

/* dir.c */
int cfs_lookup(struct vfs_obj *dir, const char *name, size_t len,
		struct vfs_obj **out);
ssize_t cfs_readlink(struct vfs_obj *o, char *buf, size_t size);
int cfs_create(struct vfs_obj *dir, const char *name, size_t len,
		enum vfs_createmode how, const struct vfs_sattr *sa,
		const uint8_t verf[8], struct vfs_obj **out);
int cfs_mkdir(struct vfs_obj *dir, const char *name, size_t len,
	       const struct vfs_sattr *sa, struct vfs_obj **out);
int cfs_symlink(struct vfs_obj *dir, const char *name, size_t len,
		 const char *target, size_t tlen, const struct vfs_sattr *sa,
		 struct vfs_obj **out);
int cfs_mknod(struct vfs_obj *dir, const char *name, size_t len,
	       enum vfs_ftype type, uint32_t major, uint32_t minor,
	       const struct vfs_sattr *sa, struct vfs_obj **out);
int cfs_remove(struct vfs_obj *dir, const char *name, size_t len);
int cfs_rmdir(struct vfs_obj *dir, const char *name, size_t len);
int cfs_rename(struct vfs_obj *fdir, const char *fname, size_t flen,
		struct vfs_obj *tdir, const char *tname, size_t tlen);
int cfs_link(struct vfs_obj *o, struct vfs_obj *dir, const char *name,
	      size_t len);
int cfs_readdir(struct vfs_obj *dir, uint64_t cookie, vfs_readdir_cb emit,
		 void *ctx, bool *eof);
uint64_t cfs_dir_verifier(struct vfs_obj *dir);

/* io.c */
ssize_t cfs_read_payload(struct vfs_obj *o, uint64_t off, size_t len,
			  unsigned int flags, struct vfs_read_res *res);
ssize_t cfs_write(struct vfs_obj *o, uint64_t off, const void *buf,
		   size_t len, enum vfs_stable stable);
int cfs_commit(struct vfs_obj *o, uint64_t off, uint64_t count);
ssize_t cfs_xattr_get(struct vfs_obj *o, const char *name, void *buf,
		       size_t size);
int cfs_xattr_set(struct vfs_obj *o, const char *name, const void *val,
		   size_t len, enum vfs_xattr_how how);
ssize_t cfs_xattr_list(struct vfs_obj *o, char *buf, size_t size);
int cfs_xattr_remove(struct vfs_obj *o, const char *name);
int cfs_xattr_probe(struct vfs_obj *o);
int cfs_allocate(struct vfs_obj *o, uint64_t off, uint64_t len);
int cfs_deallocate(struct vfs_obj *o, uint64_t off, uint64_t len);
int cfs_seek(struct vfs_obj *o, uint64_t off, enum vfs_seek_what what,
	      uint64_t *pos, uint64_t *size);
ssize_t cfs_copy_range(struct vfs_obj *src, uint64_t soff,
			struct vfs_obj *dst, uint64_t doff, uint64_t count,
			uint64_t max, enum vfs_stable stable);
int cfs_clone_range(struct vfs_obj *src, uint64_t soff, struct vfs_obj *dst,
		     uint64_t doff, uint64_t count);
int cfs_clone_blksize(struct vfs_obj *o, uint32_t *blksize);
int cfs_advise(struct vfs_obj *o, uint64_t off, uint64_t len,
		enum vfs_advice advice);

/* lock.c */
int cfs_lock_set(struct vfs_obj *o, uint64_t owner, uint64_t start,
		 uint64_t end, enum vfs_lock_type type);
int cfs_lock_test(struct vfs_obj *o, uint64_t owner, uint64_t start,
		  uint64_t end, bool excl, struct vfs_lock_conflict *c);
void cfs_lock_release(struct vfs_obj *o);

#endif
