// SPDX-License-Identifier: MIT
/*
 * The local backend's extended attributes, reached through the O_PATH
 * descriptor's /proc path since f*xattr(2) refuse O_PATH descriptors.
 * The kernel checks the caller's fs credentials: read permission to get
 * or list, write to set or remove (for the user. namespace). The vfs
 * (xattr.c) has checked the name and that @o is a regular file or a
 * directory.
 */
#include <errno.h>
#include <sys/xattr.h>

#include "vfs/local/local.h"

int local_xattr_probe(struct vfs_obj *o)
{
	char path[64];

	vfs_proc_path(path, sizeof(path), LO(o)->fd);
	if (getxattr(path, "user.nasd.probe", NULL, 0) >= 0 ||
	    errno == ENODATA || errno == ERANGE)
		return 0;
	return errno == ENOTSUP ? -ENOTSUP : 0;
}

ssize_t local_xattr_get(struct vfs_obj *o, const char *name, void *buf,
			size_t size)
{
	char path[64];
	ssize_t n;

	vfs_proc_path(path, sizeof(path), LO(o)->fd);
	n = getxattr(path, name, buf, size);
	return n < 0 ? -errno : n;
}

int local_xattr_set(struct vfs_obj *o, const char *name, const void *val,
		    size_t len, enum vfs_xattr_how how)
{
	static const int flags[] = {
		[VFS_XATTR_ANY] = 0,
		[VFS_XATTR_CREATE] = XATTR_CREATE,
		[VFS_XATTR_REPLACE] = XATTR_REPLACE,
	};
	char path[64];

	vfs_proc_path(path, sizeof(path), LO(o)->fd);
	if (setxattr(path, name, val, len, flags[how]) < 0)
		return -errno;
	return 0;
}

ssize_t local_xattr_list(struct vfs_obj *o, char *buf, size_t size)
{
	char path[64];
	ssize_t n;

	vfs_proc_path(path, sizeof(path), LO(o)->fd);
	n = listxattr(path, buf, size);
	return n < 0 ? -errno : n;
}

int local_xattr_remove(struct vfs_obj *o, const char *name)
{
	char path[64];

	vfs_proc_path(path, sizeof(path), LO(o)->fd);
	if (removexattr(path, name) < 0)
		return -errno;
	return 0;
}
