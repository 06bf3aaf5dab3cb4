// SPDX-License-Identifier: MIT
/*
 * The CephFS backend's objects: handles, attributes, identities and
 * permission checks (ceph.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "core/be.h"
#include "vfs/ceph/ceph.h"

/* ------------------------------------------------------------ identity */

/* The last identity this thread asked for, and its UserPerm. */
static _Thread_local struct {
	bool valid;
	struct vfs_cred cred;
	UserPerm *perm;
} tl_perm;

static bool cred_equal(const struct vfs_cred *a, const struct vfs_cred *b)
{
	return a->uid == b->uid && a->gid == b->gid &&
	       a->ngroups == b->ngroups &&
	       memcmp(a->groups, b->groups, a->ngroups * sizeof(gid_t)) == 0;
}

/*
 * cfs_perms() - the calling thread's identity (vfs_cred_current) as a
 * UserPerm, kept per thread while it does not change. NULL when out of
 * memory: libcephfs would then act as the mount (root), so callers fail
 * the call instead (CEPH_PERMS).
 */
const UserPerm *cfs_perms(struct vfs_export *ex)
{
	struct vfs_cred c;

	/* The server's own work (vfs_root_enter): the mount's identity,
	 * leaving the caller's UserPerm, which a caller may hold, alone. */
	if (vfs_cred_current(&c) && c.gid == 0 && c.ngroups == 0)
		return cfs_root_perms(ex);
	if (tl_perm.valid && cred_equal(&tl_perm.cred, &c))
		return tl_perm.perm;
	if (tl_perm.perm)
		ceph_userperm_destroy(tl_perm.perm);
	tl_perm.valid = false;
	tl_perm.perm = ceph_userperm_new(c.uid, c.gid, (int)c.ngroups,
					 c.groups);
	if (!tl_perm.perm)
		return NULL;
	tl_perm.cred = c;
	tl_perm.valid = true;
	return tl_perm.perm;
}

/* cfs_root_perms() - the mount's own identity (root), for the server's
 * own work: attributes, opening data handles, the doom check. */
const UserPerm *cfs_root_perms(struct vfs_export *ex)
{
	return ceph_mount_perms(CX(ex)->cm);
}

/* ---------------------------------------------------------- attributes */

void cfs_attr_of(const struct vfs_obj *o, const struct ceph_statx *x,
		  struct vfs_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->type = vfs_ftype_of_mode(x->stx_mode);
	a->mode = x->stx_mode & 07777;
	a->nlink = x->stx_nlink;
	a->uid = x->stx_uid;
	a->gid = x->stx_gid;
	a->size = x->stx_size;
	a->used = x->stx_blocks * 512;
	a->rdev_major = major(x->stx_rdev);
	a->rdev_minor = minor(x->stx_rdev);
	a->fsid = o->ex->id;
	a->fileid = x->stx_ino;
	a->atime = x->stx_atime;
	a->mtime = x->stx_mtime;
	a->ctime = x->stx_ctime;
	/* The inode's version moves with every change the MDS records;
	 * the ctime joins it so that a change made under caps this client
	 * holds (and not yet reported) shows too. A sum of two counters
	 * that only grow grows whenever either does. */
	a->change = x->stx_version +
		    ((uint64_t)x->stx_ctime.tv_sec * 1000000000ULL +
		     (uint64_t)x->stx_ctime.tv_nsec);
}

static int stx_of(struct vfs_obj *o, struct ceph_statx *x, unsigned int want)
{
	return ceph_ll_getattr(CM(o), CO(o)->in, x, want, AT_SYMLINK_NOFOLLOW,
			       cfs_root_perms(o->ex));
}

int cfs_getattr(struct vfs_obj *o, struct vfs_attr *attr)
{
	struct ceph_statx x;
	int ret = stx_of(o, &x, CEPH_WANT);

	if (ret < 0)
		return ret;
	cfs_attr_of(o, &x, attr);
	return 0;
}

static void time_now(struct timespec *ts)
{
	clock_gettime(CLOCK_REALTIME, ts);
}

int cfs_setattr(struct vfs_obj *o, const struct vfs_sattr *sa)
{
	const UserPerm *perm = cfs_perms(o->ex);
	struct ceph_statx x;
	int mask = 0;

	if (!perm)
		return -ENOMEM;
	memset(&x, 0, sizeof(x));
	if (sa->set_size) {
		if (o->type == VFS_DIR)
			return -EISDIR;
		if (o->type != VFS_REG)
			return -EINVAL;
		if (sa->size > INT64_MAX)
			return -EFBIG;
		x.stx_size = sa->size;
		mask |= CEPH_SETATTR_SIZE;
	}
	if (sa->set_uid) {
		x.stx_uid = sa->uid;
		mask |= CEPH_SETATTR_UID;
	}
	if (sa->set_gid) {
		x.stx_gid = sa->gid;
		mask |= CEPH_SETATTR_GID;
	}
	/* Linux ignores a symlink's mode, as the local backend does. */
	if (sa->set_mode && o->type != VFS_LNK) {
		x.stx_mode = (uint16_t)(sa->mode & 07777);
		mask |= CEPH_SETATTR_MODE;
	}
	if (sa->atime_how == VFS_TIME_CLIENT) {
		if (sa->atime.tv_nsec < 0 || sa->atime.tv_nsec >= 1000000000)
			return -EINVAL;
		x.stx_atime = sa->atime;
		mask |= CEPH_SETATTR_ATIME;
	} else if (sa->atime_how == VFS_TIME_SERVER) {
		/* _NOW: a writer who is not the owner may (utimensat) */
		time_now(&x.stx_atime);
		mask |= CEPH_SETATTR_ATIME | CEPH_SETATTR_ATIME_NOW;
	}
	if (sa->mtime_how == VFS_TIME_CLIENT) {
		if (sa->mtime.tv_nsec < 0 || sa->mtime.tv_nsec >= 1000000000)
			return -EINVAL;
		x.stx_mtime = sa->mtime;
		mask |= CEPH_SETATTR_MTIME;
	} else if (sa->mtime_how == VFS_TIME_SERVER) {
		time_now(&x.stx_mtime);
		mask |= CEPH_SETATTR_MTIME | CEPH_SETATTR_MTIME_NOW;
	}
	if (!mask)
		return 0;
	return ceph_ll_setattr(CM(o), CO(o)->in, &x, mask, perm);
}

int cfs_mark_modified(struct vfs_obj *o)
{
	struct ceph_statx x;

	memset(&x, 0, sizeof(x));
	time_now(&x.stx_mtime);
	return ceph_ll_setattr(CM(o), CO(o)->in, &x,
			       CEPH_SETATTR_MTIME | CEPH_SETATTR_MTIME_NOW,
			       cfs_root_perms(o->ex));
}

int cfs_statfs(struct vfs_obj *o, struct vfs_statfs *st)
{
	struct statvfs sv;
	uint64_t bs;
	int ret;

	ret = ceph_ll_statfs(CM(o), CO(o)->in, &sv);
	if (ret < 0)
		return ret;
	bs = sv.f_frsize ? (uint64_t)sv.f_frsize : (uint64_t)sv.f_bsize;
	st->tbytes = (uint64_t)sv.f_blocks * bs;
	st->fbytes = (uint64_t)sv.f_bfree * bs;
	st->abytes = (uint64_t)sv.f_bavail * bs;
	st->tfiles = sv.f_files;
	st->ffiles = sv.f_ffree;
	st->afiles = sv.f_favail;
	st->bsize = (uint32_t)sv.f_bsize;
	st->namemax = sv.f_namemax ? (uint32_t)sv.f_namemax : VFS_NAME_MAX;
	return 0;
}

/* --------------------------------------------------------- permissions */

/*
 * cfs_check() - may the calling thread's identity access @o with @mode
 * (R_OK/W_OK/X_OK), by the mode bits, as the kernel decides without
 * ACLs (root: anything but executing a file no one may execute)?
 */
#define CHECK_WANT (CEPH_STATX_MODE | CEPH_STATX_UID | CEPH_STATX_GID)

/* Does @x's mode let the identity @c (root when @root) do @mode? */
static bool mode_allows(const struct ceph_statx *x, const struct vfs_cred *c,
			bool root, int mode)
{
	uint32_t bits;
	bool in_group;

	if (root)
		return !(mode & X_OK) || S_ISDIR(x->stx_mode) ||
		       (x->stx_mode & 0111);
	in_group = c->gid == x->stx_gid;
	for (uint32_t i = 0; i < c->ngroups && !in_group; i++)
		in_group = c->groups[i] == x->stx_gid;
	if (c->uid == x->stx_uid)
		bits = (x->stx_mode >> 6) & 7;
	else if (in_group)
		bits = (x->stx_mode >> 3) & 7;
	else
		bits = x->stx_mode & 7;
	return !(((mode & R_OK) && !(bits & 4)) ||
		 ((mode & W_OK) && !(bits & 2)) ||
		 ((mode & X_OK) && !(bits & 1)));
}

/* mode_allows() for the calling thread's identity. */
static bool caller_may(const struct ceph_statx *x, int mode)
{
	struct vfs_cred c;
	bool root = vfs_cred_current(&c);

	return mode_allows(x, &c, root, mode);
}

int cfs_check(struct vfs_obj *o, int mode)
{
	struct ceph_statx x;
	int ret = stx_of(o, &x, CHECK_WANT);

	if (ret < 0)
		return ret;
	return caller_may(&x, mode) ? 0 : -EACCES;
}

/* As the local backend's vfs_check_data(): the owner always may, and
 * execute allows reading a regular file; from attributes @x read with
 * at least CHECK_WANT. */
int cfs_data_allowed(const struct vfs_obj *o, const struct ceph_statx *x,
		     bool write)
{
	struct vfs_cred c;
	bool root = vfs_cred_current(&c);

	if (mode_allows(x, &c, root, write ? W_OK : R_OK) ||
	    (!write && o->type == VFS_REG && mode_allows(x, &c, root, X_OK)) ||
	    x->stx_uid == c.uid)
		return 0;
	return -EACCES;
}

int cfs_check_data(struct vfs_obj *o, bool write)
{
	struct ceph_statx x;
	int ret = stx_of(o, &x, CHECK_WANT);

	return ret < 0 ? ret : cfs_data_allowed(o, &x, write);
}

/* cfs_getattr(), with the caller's data permission checked from the
 * same attribute read (one call into libcephfs instead of two). */
int cfs_getattr_data(struct vfs_obj *o, bool write, struct vfs_attr *attr)
{
	struct ceph_statx x;
	int ret = stx_of(o, &x, CEPH_WANT);

	if (ret == 0)
		ret = cfs_data_allowed(o, &x, write);
	if (ret == 0)
		cfs_attr_of(o, &x, attr);
	return ret;
}

/* ACCESS from one attribute read (each libcephfs call takes the mount's
 * lock). */
int cfs_access(struct vfs_obj *o, uint32_t want, bool ro, uint32_t *granted)
{
	struct ceph_statx x;
	int ret = stx_of(o, &x, CHECK_WANT);

	if (ret < 0)
		return ret;
	*granted = vfs_access_compose(o->type, want, ro, caller_may(&x, R_OK),
				      caller_may(&x, W_OK),
				      caller_may(&x, X_OK));
	return 0;
}

int cfs_check_lock(struct vfs_obj *o)
{
	return cfs_check_data(o, false);
}

/* ------------------------------------------------------------- handles */

static void bh_of(const struct ceph_export *cx, const struct ceph_statx *x,
		  struct vfs_bh *bh)
{
	static const uint8_t tag[4] = {'c', 'e', 'p', 'h'};
	uint8_t *p = bh->bytes;

	memcpy(p, tag, sizeof(tag));
	put_be64(p + 4, cx->fscid);
	put_be64(p + 12, x->stx_ino);
	put_be64(p + 20, CEPH_NOSNAP);
	put_be64(p + 28, (uint64_t)x->stx_btime.tv_sec);
	put_be32(p + 36, (uint32_t)x->stx_btime.tv_nsec);
	bh->len = CEPH_BH_LEN;
}

/*
 * cfs_obj_adopt() - the object of @in (whose attributes @x hold at
 * least the type, inode number and birth time), taking over the caller's
 * reference on @in. 0 and a new reference, or -errno.
 */
int cfs_obj_adopt(struct vfs_export *ex, struct Inode *in,
		   const struct ceph_statx *x, struct vfs_obj **out)
{
	struct vfs_obj *n;
	struct ceph_obj *c;
	struct vfs_bh bh = {0};

	bh_of(CX(ex), x, &bh);
	if (vfs_obj_find(ex, &bh, out) == 0) {
		ceph_ll_put(CX(ex)->cm, in);
		return 0;
	}
	n = vfs_obj_new(ex, &bh, vfs_ftype_of_mode(x->stx_mode));
	if (!n) {
		ceph_ll_put(CX(ex)->cm, in);
		return -ENOMEM;
	}
	c = CO(n);
	c->in = in;
	c->ino = x->stx_ino;
	return vfs_obj_insert(n, out);
}

int cfs_obj_resolve(struct vfs_export *ex, const struct vfs_bh *bh,
		     struct vfs_obj **out)
{
	struct ceph_mount_info *cm = CX(ex)->cm;
	struct ceph_statx x;
	struct Inode *in;
	inodeno_t ino;
	int ret;

	if (vfs_obj_find(ex, bh, out) == 0)
		return 0;
	/* Minted by this backend for this filesystem, or nothing here. */
	if (bh->len != CEPH_BH_LEN || memcmp(bh->bytes, "ceph", 4) != 0 ||
	    get_be64(bh->bytes + 4) != CX(ex)->fscid ||
	    get_be64(bh->bytes + 20) != CEPH_NOSNAP)
		return -ESTALE;
	ino.val = get_be64(bh->bytes + 12);
	ret = ceph_ll_lookup_inode(cm, ino, &in);
	if (ret < 0)
		return ret == -ENOENT || ret == -ESTALE || ret == -EINVAL
			       ? -ESTALE
			       : ret;
	ret = ceph_ll_getattr(cm, in, &x, CEPH_WANT, AT_SYMLINK_NOFOLLOW,
			      cfs_root_perms(ex));
	/* Another file under a reused number, or one with no name left. */
	if (ret == 0 &&
	    ((uint64_t)x.stx_btime.tv_sec != get_be64(bh->bytes + 28) ||
	     (uint32_t)x.stx_btime.tv_nsec != get_be32(bh->bytes + 36) ||
	     x.stx_nlink == 0))
		ret = -ESTALE;
	if (ret < 0) {
		ceph_ll_put(cm, in);
		return ret;
	}
	return cfs_obj_adopt(ex, in, &x, out);
}

void cfs_obj_free(struct vfs_obj *o)
{
	struct ceph_obj *c = CO(o);

	if (!c->in)
		return;
	cfs_lock_release(o);
	ceph_ll_put(CM(o), c->in);
}

bool cfs_obj_unlinked(struct vfs_obj *o)
{
	struct ceph_statx x;

	return stx_of(o, &x, CEPH_STATX_NLINK) < 0 || x.stx_nlink == 0;
}

/*
 * cfs_fh_open() - a file handle for @o's data, opened as root (read-write
 * for @write) for one call and closed after it with ceph_ll_close(): a
 * handle kept open, read-write above all, holds caps that keep other
 * clients of the file (another gateway) waiting (measured: a second
 * gateway's reads of a file the first kept open for writing stalled
 * until it closed). With the caps cached, opening is local. The caller
 * has checked the permission. 0 or -errno.
 */
int cfs_fh_open(struct vfs_obj *o, bool write, struct Fh **fh)
{
	if (o->type == VFS_DIR)
		return -EISDIR;
	if (o->type != VFS_REG)
		return -EINVAL;
	return ceph_ll_open(CM(o), CO(o)->in, write ? O_RDWR : O_RDONLY, fh,
			    cfs_root_perms(o->ex));
}
