// SPDX-License-Identifier: MIT
/*
 * Attributes, permission checks, ACCESS and FSSTAT for the local vfs.
 * Permission checks run under the caller's fs credentials (set by
 * vfs_cred_set) so the kernel's own rules decide, with knfsd's owner
 * override added for data access.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "vfs/local/local.h"

/* vfs_proc_path() - "/proc/self/fd/N" for @fd, to reach an O_PATH file. */
void vfs_proc_path(char *buf, size_t size, int fd)
{
	(void)snprintf(buf, size, "/proc/self/fd/%d", fd);
}

/*
 * vfs_check_access() - may the caller (current fs credentials) access @o
 * with @mode (R_OK/W_OK/X_OK)? faccessat2 with AT_EACCESS uses the fsuid
 * and groups rather than the real ids. Returns 0 or -errno.
 */
int vfs_check_access(struct vfs_obj *o, int mode)
{
	if (syscall(SYS_faccessat2, LO(o)->fd, "", mode,
		    AT_EACCESS | AT_EMPTY_PATH) < 0)
		return -errno;
	return 0;
}

/*
 * vfs_check_data() - may the caller read (@write false) or write @o's
 * data? As knfsd: the owner always may (a client writes into a file it
 * created 0444), and execute permission allows reading. Returns 0 or
 * -errno (EROFS is never overridden).
 */
int vfs_check_data(struct vfs_obj *o, bool write)
{
	struct stat st;
	int ret;

	ret = vfs_check_access(o, write ? W_OK : R_OK);
	if (ret != -EACCES)
		return ret;
	if (!write && vfs_check_access(o, X_OK) == 0 && o->type == VFS_REG)
		return 0;
	if (fstat(LO(o)->fd, &st) == 0 && st.st_uid == vfs_cred_fsuid())
		return 0;
	return -EACCES;
}

int local_check_lock(struct vfs_obj *o)
{
	return vfs_check_data(o, false);
}

void vfs_attr_from_stat(const struct vfs_obj *o, const struct stat *st,
			struct vfs_attr *a)
{
	a->type = vfs_ftype_of_mode(st->st_mode);
	a->mode = st->st_mode & 07777;
	a->nlink = (uint32_t)st->st_nlink;
	a->uid = st->st_uid;
	a->gid = st->st_gid;
	a->size = (uint64_t)st->st_size;
	a->used = (uint64_t)st->st_blocks * 512;
	a->rdev_major = major(st->st_rdev);
	a->rdev_minor = minor(st->st_rdev);
	a->fsid = o->ex->id;
	a->fileid = st->st_ino;
	a->atime = st->st_atim;
	a->mtime = st->st_mtim;
	a->ctime = st->st_ctim;
	a->change = (uint64_t)st->st_ctim.tv_sec * 1000000000ULL +
		    (uint64_t)st->st_ctim.tv_nsec;
}

int local_getattr(struct vfs_obj *o, struct vfs_attr *attr)
{
	struct stat st;

	if (fstat(LO(o)->fd, &st) < 0)
		return -errno;
	vfs_attr_from_stat(o, &st, attr);
	return 0;
}

static int setattr_size(struct vfs_obj *o, uint64_t size)
{
	int ret, fd;

	if (o->type == VFS_DIR)
		return -EISDIR;
	if (o->type != VFS_REG)
		return -EINVAL;
	if (size > INT64_MAX)
		return -EFBIG;
	ret = vfs_check_data(o, true);
	if (ret < 0)
		return ret;
	fd = vfs_obj_data_fd(o, true);
	if (fd < 0)
		return fd;
	if (ftruncate(fd, (off_t)size) < 0)
		return -errno;
	return 0;
}

/*
 * fchmodat2(2) (Linux 6.6) changes the mode through the O_PATH fd itself;
 * older kernels need the /proc magic link, a path walk through procfs.
 * Our own name for its number: glibc 2.36 does not have it. Probed once
 * on a bad fd: EBADF means the call exists; a seccomp filter may answer
 * EPERM or ENOSYS instead, which a real chmod could not be told from.
 */
#define FCHMODAT2_NR 452
static pthread_once_t fchmodat2_once = PTHREAD_ONCE_INIT;
static bool has_fchmodat2;

static void fchmodat2_probe(void)
{
	has_fchmodat2 = syscall(FCHMODAT2_NR, -1, "", 0, AT_EMPTY_PATH) < 0 &&
			errno == EBADF;
}

static int setattr_mode(struct vfs_obj *o, mode_t mode)
{
	char path[32];

	pthread_once(&fchmodat2_once, fchmodat2_probe);
	if (has_fchmodat2) {
		if (syscall(FCHMODAT2_NR, LO(o)->fd, "", mode,
			    AT_EMPTY_PATH) < 0)
			return -errno;
		return 0;
	}
	vfs_proc_path(path, sizeof(path), LO(o)->fd);
	if (fchmodat(AT_FDCWD, path, mode, 0) < 0)
		return -errno;
	return 0;
}

static void sattr_time(enum vfs_time_how how, const struct timespec *v,
		       struct timespec *ts)
{
	switch (how) {
	case VFS_TIME_SERVER:
		ts->tv_sec = 0;
		ts->tv_nsec = UTIME_NOW;
		break;
	case VFS_TIME_CLIENT:
		*ts = *v;
		break;
	default:
		ts->tv_sec = 0;
		ts->tv_nsec = UTIME_OMIT;
		break;
	}
}

/*
 * vfs_setattr_times() - apply @sa's times. The kernel applies the
 * utimensat rules: both set to server time needs write permission (or
 * ownership), anything else needs ownership.
 */
static int setattr_times(struct vfs_obj *o, const struct vfs_sattr *sa)
{
	struct timespec ts[2];

	if (sa->atime_how == VFS_TIME_DONT && sa->mtime_how == VFS_TIME_DONT)
		return 0;
	sattr_time(sa->atime_how, &sa->atime, &ts[0]);
	sattr_time(sa->mtime_how, &sa->mtime, &ts[1]);
	if ((sa->atime_how == VFS_TIME_CLIENT &&
	     (ts[0].tv_nsec < 0 || ts[0].tv_nsec >= 1000000000)) ||
	    (sa->mtime_how == VFS_TIME_CLIENT &&
	     (ts[1].tv_nsec < 0 || ts[1].tv_nsec >= 1000000000)))
		return -EINVAL;
	if (utimensat(LO(o)->fd, "", ts,
		      AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	return 0;
}

int local_setattr(struct vfs_obj *o, const struct vfs_sattr *sa)
{
	int ret;

	/* knfsd's order: size, owner (clears set-id bits), mode, times. */
	if (sa->set_size) {
		ret = setattr_size(o, sa->size);
		if (ret < 0)
			return ret;
	}
	if (sa->set_uid || sa->set_gid) {
		uid_t uid = sa->set_uid ? (uid_t)sa->uid : (uid_t)-1;
		gid_t gid = sa->set_gid ? (gid_t)sa->gid : (gid_t)-1;

		if (fchownat(LO(o)->fd, "", uid, gid, AT_EMPTY_PATH) < 0)
			return -errno;
	}
	/* Linux ignores a symlink's mode (chmod on one is EOPNOTSUPP). */
	if (sa->set_mode && o->type != VFS_LNK) {
		ret = setattr_mode(o, sa->mode & 07777);
		if (ret < 0)
			return ret;
	}
	return setattr_times(o, sa);
}

int local_mark_modified(struct vfs_obj *o)
{
	const struct timespec ts[2] = {
		{ .tv_sec = 0, .tv_nsec = UTIME_OMIT },
		{ .tv_sec = 0, .tv_nsec = UTIME_NOW },
	};
	struct vfs_root_save rs;
	int ret = 0;

	vfs_root_enter(&rs);
	if (utimensat(LO(o)->fd, "", ts,
		      AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0)
		ret = -errno;
	vfs_root_leave(&rs);
	return ret;
}

int local_access(struct vfs_obj *o, uint32_t want, bool ro, uint32_t *granted)
{
	return vfs_access_from_checks(o, want, ro, vfs_check_access, granted);
}

int local_statfs(struct vfs_obj *o, struct vfs_statfs *st)
{
	struct statfs sf;
	uint64_t bs;

	if (fstatfs(LO(o)->fd, &sf) < 0)
		return -errno;
	bs = sf.f_frsize ? (uint64_t)sf.f_frsize : (uint64_t)sf.f_bsize;
	st->tbytes = (uint64_t)sf.f_blocks * bs;
	st->fbytes = (uint64_t)sf.f_bfree * bs;
	st->abytes = (uint64_t)sf.f_bavail * bs;
	st->tfiles = sf.f_files;
	st->ffiles = sf.f_ffree;
	st->afiles = sf.f_ffree;
	st->bsize = (uint32_t)sf.f_bsize;
	st->namemax = (uint32_t)sf.f_namelen;
	return 0;
}
