// SPDX-License-Identifier: MIT
/*
 * The fault-injecting backend (fault.h, backend.h): stacked on each
 * export's own backend while any rule is set. An entry with a fault.h
 * operation counts the call against the rules and fails it, before
 * anything is done, when one fires; every entry then calls the same entry
 * of the export's backend.
 *
 * READ: a read that must not block (an event loop's) is sent to a
 * worker rather than counted here, so the counts are those of the
 * blocking path whatever the loop tried first; and no file range goes
 * out, so that the bytes pass the data path's own syscall-level hooks.
 */
#include <string.h>

#include "vfs/vfs_int.h"

#define BE(o) ((o)->ex->be)

static int f_obj_resolve(struct vfs_export *ex, const struct vfs_bh *bh,
			 struct vfs_obj **out)
{
	VFS_FAULT(VFS_OP_FH);
	return ex->be->obj_resolve(ex, bh, out);
}

static void f_export_free(struct vfs_export *ex)
{
	ex->be->export_free(ex);
}

static void f_obj_free(struct vfs_obj *o)
{
	BE(o)->obj_free(o);
}

static bool f_obj_unlinked(struct vfs_obj *o)
{
	return BE(o)->obj_unlinked(o);
}

static int f_getattr(struct vfs_obj *o, struct vfs_attr *attr)
{
	VFS_FAULT(VFS_OP_GETATTR);
	return BE(o)->getattr(o, attr);
}

static int f_setattr(struct vfs_obj *o, const struct vfs_sattr *sa)
{
	VFS_FAULT(VFS_OP_SETATTR);
	return BE(o)->setattr(o, sa);
}

static int f_mark_modified(struct vfs_obj *o)
{
	VFS_FAULT(VFS_OP_SETATTR);
	return BE(o)->mark_modified(o);
}

static int f_access(struct vfs_obj *o, uint32_t want, bool ro,
		    uint32_t *granted)
{
	VFS_FAULT(VFS_OP_ACCESS);
	return BE(o)->access(o, want, ro, granted);
}

static int f_check_lock(struct vfs_obj *o)
{
	return BE(o)->check_lock(o);
}

static int f_statfs(struct vfs_obj *o, struct vfs_statfs *st)
{
	VFS_FAULT(VFS_OP_STATFS);
	return BE(o)->statfs(o, st);
}

static int f_lookup(struct vfs_obj *dir, const char *name, size_t len,
		    struct vfs_obj **out)
{
	VFS_FAULT(VFS_OP_LOOKUP);
	return BE(dir)->lookup(dir, name, len, out);
}

static ssize_t f_readlink(struct vfs_obj *o, char *buf, size_t size)
{
	VFS_FAULT(VFS_OP_READLINK);
	return BE(o)->readlink(o, buf, size);
}

static int f_create(struct vfs_obj *dir, const char *name, size_t len,
		    enum vfs_createmode how, const struct vfs_sattr *sa,
		    const uint8_t verf[8], struct vfs_obj **out)
{
	VFS_FAULT(VFS_OP_CREATE);
	return BE(dir)->create(dir, name, len, how, sa, verf, out);
}

static int f_mkdir(struct vfs_obj *dir, const char *name, size_t len,
		   const struct vfs_sattr *sa, struct vfs_obj **out)
{
	VFS_FAULT(VFS_OP_MKDIR);
	return BE(dir)->mkdir(dir, name, len, sa, out);
}

static int f_symlink(struct vfs_obj *dir, const char *name, size_t len,
		     const char *target, size_t tlen,
		     const struct vfs_sattr *sa, struct vfs_obj **out)
{
	VFS_FAULT(VFS_OP_SYMLINK);
	return BE(dir)->symlink(dir, name, len, target, tlen, sa, out);
}

static int f_mknod(struct vfs_obj *dir, const char *name, size_t len,
		   enum vfs_ftype type, uint32_t major, uint32_t minor,
		   const struct vfs_sattr *sa, struct vfs_obj **out)
{
	VFS_FAULT(VFS_OP_MKNOD);
	return BE(dir)->mknod(dir, name, len, type, major, minor, sa, out);
}

static int f_remove(struct vfs_obj *dir, const char *name, size_t len)
{
	VFS_FAULT(VFS_OP_REMOVE);
	return BE(dir)->remove(dir, name, len);
}

static int f_rmdir(struct vfs_obj *dir, const char *name, size_t len)
{
	VFS_FAULT(VFS_OP_RMDIR);
	return BE(dir)->rmdir(dir, name, len);
}

static int f_rename(struct vfs_obj *fdir, const char *fname, size_t flen,
		    struct vfs_obj *tdir, const char *tname, size_t tlen)
{
	VFS_FAULT(VFS_OP_RENAME);
	return BE(fdir)->rename(fdir, fname, flen, tdir, tname, tlen);
}

static int f_link(struct vfs_obj *o, struct vfs_obj *dir, const char *name,
		  size_t len)
{
	VFS_FAULT(VFS_OP_LINK);
	return BE(dir)->link(o, dir, name, len);
}

static int f_readdir(struct vfs_obj *dir, uint64_t cookie,
		     vfs_readdir_cb emit, void *ctx, bool *eof)
{
	*eof = false;
	VFS_FAULT(VFS_OP_READDIR);
	return BE(dir)->readdir(dir, cookie, emit, ctx, eof);
}

static uint64_t f_dir_verifier(struct vfs_obj *dir)
{
	return BE(dir)->dir_verifier(dir);
}

static ssize_t f_read_payload(struct vfs_obj *o, uint64_t off, size_t len,
			      unsigned int flags, struct vfs_read_res *res)
{
	memset(res, 0, sizeof(*res));
	res->data.fd = -1;
	if (flags & VFS_READ_NOWAIT)
		return -EAGAIN;
	flags &= ~VFS_READ_FILE_OK;
	VFS_FAULT(VFS_OP_READ);
	return BE(o)->read_payload(o, off, len, flags, res);
}

static ssize_t f_write(struct vfs_obj *o, uint64_t off, const void *buf,
		       size_t len, enum vfs_stable stable)
{
	VFS_FAULT(VFS_OP_WRITE);
	return BE(o)->write(o, off, buf, len, stable);
}

static int f_commit(struct vfs_obj *o, uint64_t off, uint64_t count)
{
	VFS_FAULT(VFS_OP_COMMIT);
	return BE(o)->commit(o, off, count);
}

static ssize_t f_xattr_get(struct vfs_obj *o, const char *name, void *buf,
			   size_t size)
{
	return BE(o)->xattr_get(o, name, buf, size);
}

static int f_xattr_set(struct vfs_obj *o, const char *name, const void *val,
		       size_t len, enum vfs_xattr_how how)
{
	return BE(o)->xattr_set(o, name, val, len, how);
}

static ssize_t f_xattr_list(struct vfs_obj *o, char *buf, size_t size)
{
	return BE(o)->xattr_list(o, buf, size);
}

static int f_xattr_remove(struct vfs_obj *o, const char *name)
{
	return BE(o)->xattr_remove(o, name);
}

static int f_xattr_probe(struct vfs_obj *o)
{
	return BE(o)->xattr_probe(o);
}

static int f_allocate(struct vfs_obj *o, uint64_t off, uint64_t len)
{
	VFS_FAULT(VFS_OP_ALLOCATE);
	return BE(o)->allocate(o, off, len);
}

static int f_deallocate(struct vfs_obj *o, uint64_t off, uint64_t len)
{
	VFS_FAULT(VFS_OP_DEALLOCATE);
	return BE(o)->deallocate(o, off, len);
}

static int f_seek(struct vfs_obj *o, uint64_t off, enum vfs_seek_what what,
		  uint64_t *pos, uint64_t *size)
{
	VFS_FAULT(VFS_OP_SEEK);
	return BE(o)->seek(o, off, what, pos, size);
}

static ssize_t f_copy_range(struct vfs_obj *src, uint64_t soff,
			    struct vfs_obj *dst, uint64_t doff,
			    uint64_t count, uint64_t max,
			    enum vfs_stable stable)
{
	VFS_FAULT(VFS_OP_COPY);
	return BE(dst)->copy_range(src, soff, dst, doff, count, max, stable);
}

static int f_clone_range(struct vfs_obj *src, uint64_t soff,
			 struct vfs_obj *dst, uint64_t doff, uint64_t count)
{
	VFS_FAULT(VFS_OP_CLONE);
	return BE(dst)->clone_range(src, soff, dst, doff, count);
}

static int f_clone_blksize(struct vfs_obj *o, uint32_t *blksize)
{
	return BE(o)->clone_blksize(o, blksize);
}

static int f_advise(struct vfs_obj *o, uint64_t off, uint64_t len,
		    enum vfs_advice advice)
{
	VFS_FAULT(VFS_OP_ADVISE);
	return BE(o)->advise(o, off, len, advice);
}

const struct vfs_backend vfs_fault_backend = {
	.version = VFS_BACKEND_VERSION,
	.name = "fault",
	.export_free = f_export_free,
	.obj_resolve = f_obj_resolve,
	.obj_free = f_obj_free,
	.obj_unlinked = f_obj_unlinked,
	.getattr = f_getattr,
	.setattr = f_setattr,
	.mark_modified = f_mark_modified,
	.access = f_access,
	.check_lock = f_check_lock,
	.statfs = f_statfs,
	.lookup = f_lookup,
	.readlink = f_readlink,
	.create = f_create,
	.mkdir = f_mkdir,
	.symlink = f_symlink,
	.mknod = f_mknod,
	.remove = f_remove,
	.rmdir = f_rmdir,
	.rename = f_rename,
	.link = f_link,
	.readdir = f_readdir,
	.dir_verifier = f_dir_verifier,
	.read_payload = f_read_payload,
	.write = f_write,
	.commit = f_commit,
	.xattr_get = f_xattr_get,
	.xattr_set = f_xattr_set,
	.xattr_list = f_xattr_list,
	.xattr_remove = f_xattr_remove,
	.xattr_probe = f_xattr_probe,
	.allocate = f_allocate,
	.deallocate = f_deallocate,
	.seek = f_seek,
	.copy_range = f_copy_range,
	.clone_range = f_clone_range,
	.clone_blksize = f_clone_blksize,
	.advise = f_advise,
};
