// SPDX-License-Identifier: MIT
/*
 * Is an object below a directory (vfs.h, struct vfs_subtree)? The
 * kernel's answer, not ours: every object holds an O_PATH descriptor,
 * and the kernel keeps the name of each descriptor current through every
 * rename, whoever makes it (an NFS client, an SMB client, a local
 * process). A protocol's own path strings go stale as soon as another
 * protocol renames a directory above them; the descriptors' names do
 * not. One readlink of /proc/self/fd/N per object asked about, no disk
 * I/O (the names come from the dentry cache).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vfs/local/local.h"

int local_subtree_init(struct vfs_subtree *t, struct vfs_obj *dir)
{
	char proc[64];
	ssize_t n;

	t->len = 0;
	if (dir->type != VFS_DIR)
		return -ENOTDIR;
	vfs_proc_path(proc, sizeof(proc), LO(dir)->fd);
	n = readlink(proc, t->path, sizeof(t->path));
	if (n < 0)
		return -errno;
	/* A name that fills the buffer may have been cut; one that is not
	 * absolute (a descriptor outside our root) names nothing we can
	 * compare. */
	if ((size_t)n >= sizeof(t->path))
		return -ENAMETOOLONG;
	if (n == 0 || t->path[0] != '/')
		return -ENOENT;
	/* The root of the filesystem: every path is below it, but compare
	 * against "" + '/' rather than "/" + '/'. */
	if (n == 1)
		n = 0;
	t->path[n] = '\0';
	t->len = (size_t)n;
	t->dev = LO(dir)->dev;
	t->ino = LO(dir)->ino;
	return 0;
}

bool local_subtree_holds(const struct vfs_subtree *t, struct vfs_obj *o)
{
	char proc[64], head[VFS_PATH_MAX + 1];
	struct stat st;
	ssize_t n;

	/* Exports do not cross mounts: another device is elsewhere. */
	if (LO(o)->dev != t->dev || LO(o)->ino == t->ino)
		return false;
	/* Only as much of the name as the prefix and its '/' (readlink
	 * cuts quietly). */
	vfs_proc_path(proc, sizeof(proc), LO(o)->fd);
	n = readlink(proc, head, t->len + 1);
	if (n < 0 || (size_t)n < t->len + 1)
		return false;
	if (memcmp(head, t->path, t->len) != 0 || head[t->len] != '/')
		return false;
	/* An unlinked file keeps its old name, with " (deleted)" after it:
	 * it is no longer in the directory. */
	if (fstat(LO(o)->fd, &st) < 0 || st.st_nlink == 0)
		return false;
	return true;
}
