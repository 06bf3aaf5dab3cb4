// SPDX-License-Identifier: MIT
/* The local backend's table (local.h). */
#include "vfs/local/local.h"

const struct vfs_backend vfs_local_backend = {
	.version = VFS_BACKEND_VERSION,
	.name = "local",
	.caps = VFS_CAP_FILE_RANGE | VFS_CAP_DIRECT | VFS_CAP_CLONE,
	.obj_size = sizeof(struct local_obj),

	.export_free = local_export_free,
	.obj_resolve = local_obj_resolve,
	.obj_free = local_obj_free,
	.obj_unlinked = local_obj_unlinked,

	.getattr = local_getattr,
	.setattr = local_setattr,
	.mark_modified = local_mark_modified,
	.access = local_access,
	.check_lock = local_check_lock,
	.statfs = local_statfs,

	.lookup = local_lookup,
	.readlink = local_readlink,
	.create = local_create,
	.mkdir = local_mkdir,
	.symlink = local_symlink,
	.mknod = local_mknod,
	.remove = local_remove,
	.rmdir = local_rmdir,
	.rename = local_rename,
	.link = local_link,
	.readdir = local_readdir,
	.dir_verifier = local_dir_verifier,
	.subtree_init = local_subtree_init,
	.subtree_holds = local_subtree_holds,

	.read_payload = local_read_payload,
	.read_goes_direct = local_read_goes_direct,
	.write = local_write,
	.commit = local_commit,

	.xattr_get = local_xattr_get,
	.xattr_set = local_xattr_set,
	.xattr_list = local_xattr_list,
	.xattr_remove = local_xattr_remove,
	.xattr_probe = local_xattr_probe,

	.allocate = local_allocate,
	.deallocate = local_deallocate,
	.seek = local_seek,
	.copy_range = local_copy_range,
	.clone_range = local_clone_range,
	.clone_blksize = local_clone_blksize,
	.advise = local_advise,
};
