// SPDX-License-Identifier: MIT
/*
 * Byte-range locks in CephFS (vfs.h vfs_lock_set): the MDS keeps POSIX
 * locks per (client session, owner), so that every gateway of one
 * filesystem sees the others'. libcephfs files a lock under the file
 * handle (Fh) it was set through, and closing that Fh releases all its
 * locks; the per-call Fh of the data path cannot carry them. So an object
 * keeps one Fh for its locks from the first lock to vfs_lock_release()
 * (the file state's last lock on it gone) or the object's end. It is
 * opened read-only as root: the MDS does not ask for write access to
 * lock, and a read-only Fh holds no write caps that would stall another
 * gateway's I/O (cfs_fh_open). Calls on one object are serialized by the
 * caller, which is what guards @lock_fh.
 *
 * Offsets are unsigned 64-bit in the MDS (ceph_filelock); struct flock's
 * signed fields carry them bit for bit (measured: a lock at 2^63 + 5
 * conflicts there and getlk gives it back), and a length of 0 means to
 * the end of any file.
 */
#include <errno.h>
#include <fcntl.h>

#include "vfs/ceph/ceph.h"

/* The MDS takes an owner whose top bit is clear for an old client's and
 * then compares pids too. */
#define OWNER_NEW (1ull << 63)

static void flock_of(struct flock *fl, short type, uint64_t start,
		     uint64_t end)
{
	fl->l_type = type;
	fl->l_whence = SEEK_SET;
	fl->l_start = (off_t)start;
	fl->l_len = end == UINT64_MAX ? 0 : (off_t)(end - start + 1);
	fl->l_pid = 0;
}

static int lock_fh(struct vfs_obj *o, struct Fh **fh)
{
	struct ceph_obj *c = CO(o);
	int ret;

	if (c->lock_fh) {
		*fh = c->lock_fh;
		return 0;
	}
	if (o->type != VFS_REG)
		return -EINVAL;
	ret = ceph_ll_open(CM(o), c->in, O_RDONLY, &c->lock_fh,
			   cfs_root_perms(o->ex));
	if (ret < 0) {
		c->lock_fh = NULL;
		return ret;
	}
	*fh = c->lock_fh;
	return 0;
}

int cfs_lock_set(struct vfs_obj *o, uint64_t owner, uint64_t start,
		 uint64_t end, enum vfs_lock_type type)
{
	static const short types[] = {
		[VFS_LOCK_UNLOCK] = F_UNLCK,
		[VFS_LOCK_SHARED] = F_RDLCK,
		[VFS_LOCK_EXCL] = F_WRLCK,
	};
	struct flock fl;
	struct Fh *fh;
	int ret;

	if ((unsigned int)type > VFS_LOCK_EXCL)
		return -EINVAL;
	if (type == VFS_LOCK_UNLOCK && !CO(o)->lock_fh)
		return 0; /* nothing was set through it */
	ret = lock_fh(o, &fh);
	if (ret < 0)
		return ret;
	flock_of(&fl, types[type], start, end);
	ret = ceph_ll_setlk(CM(o), fh, &fl, owner | OWNER_NEW, 0);
	return ret == -EWOULDBLOCK ? -EAGAIN : ret;
}

int cfs_lock_test(struct vfs_obj *o, uint64_t owner, uint64_t start,
		  uint64_t end, bool excl, struct vfs_lock_conflict *c)
{
	struct flock fl;
	struct Fh *fh;
	bool opened = !CO(o)->lock_fh;
	int ret;

	ret = lock_fh(o, &fh);
	if (ret < 0)
		return ret;
	flock_of(&fl, excl ? F_WRLCK : F_RDLCK, start, end);
	ret = ceph_ll_getlk(CM(o), fh, &fl, owner | OWNER_NEW);
	if (opened) {
		/* no lock of ours was set through it */
		ceph_ll_close(CM(o), fh);
		CO(o)->lock_fh = NULL;
	}
	if (ret < 0)
		return ret;
	if (fl.l_type == F_UNLCK)
		return 0;
	c->start = (uint64_t)fl.l_start;
	c->end = fl.l_len == 0 ? UINT64_MAX
			       : c->start + (uint64_t)fl.l_len - 1;
	c->excl = fl.l_type == F_WRLCK;
	return -EAGAIN;
}

void cfs_lock_release(struct vfs_obj *o)
{
	struct ceph_obj *c = CO(o);

	if (!c->lock_fh)
		return;
	ceph_ll_close(CM(o), c->lock_fh);
	c->lock_fh = NULL;
}
