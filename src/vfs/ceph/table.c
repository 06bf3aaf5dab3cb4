// SPDX-License-Identifier: MIT
/* The CephFS backend's table (ceph.h). */
#include "vfs/ceph/ceph.h"

const struct vfs_backend vfs_ceph_backend = {
	.version = VFS_BACKEND_VERSION,
	.name = "ceph",
	/* no file ranges, no O_DIRECT, no clone; every call may wait on
	 * the cluster; locks live in the MDS, where other gateways see them */
	.caps = VFS_CAP_REMOTE | VFS_CAP_LOCKS,
	.obj_size = sizeof(struct ceph_obj),

	.export_free = cfs_export_free,
	.obj_resolve = cfs_obj_resolve,
	.obj_free = cfs_obj_free,
	.obj_unlinked = cfs_obj_unlinked,

	.getattr = cfs_getattr,
	.setattr = cfs_setattr,
	.mark_modified = cfs_mark_modified,
	.access = cfs_access,
	.check_lock = cfs_check_lock,
	.statfs = cfs_statfs,

	.lookup = cfs_lookup,
	.readlink = cfs_readlink,
	.create = cfs_create,
	.mkdir = cfs_mkdir,
	.symlink = cfs_symlink,
	.mknod = cfs_mknod,
	.remove = cfs_remove,
	.rmdir = cfs_rmdir,
	.rename = cfs_rename,
	.link = cfs_link,
	.readdir = cfs_readdir,
	.dir_verifier = cfs_dir_verifier,

	.read_payload = cfs_read_payload,
	.write = cfs_write,
	.commit = cfs_commit,

	.xattr_get = cfs_xattr_get,
	.xattr_set = cfs_xattr_set,
	.xattr_list = cfs_xattr_list,
	.xattr_remove = cfs_xattr_remove,
	.xattr_probe = cfs_xattr_probe,

	.allocate = cfs_allocate,
	.deallocate = cfs_deallocate,
	.seek = cfs_seek,
	.copy_range = cfs_copy_range,
	.clone_range = cfs_clone_range,
	.clone_blksize = cfs_clone_blksize,
	.advise = cfs_advise,

	.lock_set = cfs_lock_set,
	.lock_test = cfs_lock_test,
	.lock_release = cfs_lock_release,
};
