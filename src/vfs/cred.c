// SPDX-License-Identifier: MIT
/*
 * Per-thread filesystem credentials. glibc's setfsuid() is per-thread but
 * its setgroups() changes every thread of the process (it broadcasts with
 * a signal), so all three are raw system calls here. The last values set
 * are cached per thread so an unchanged identity costs no syscall.
 */
#include <stdbool.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "vfs/vfs_int.h"

struct cred_cache {
	bool valid;
	uid_t fsuid;
	gid_t fsgid;
	uint32_t ngroups;
	gid_t groups[VFS_NGROUPS_MAX];
};

static _Thread_local struct cred_cache tl_cred;
/* Inside vfs_root_enter(): the thread acts as root (uid 0, no groups). */
static _Thread_local bool tl_root;

static int set_fsuid(uid_t uid)
{
	syscall(SYS_setfsuid, uid);
	/* setfsuid reports no error; read the value back to be sure. */
	if ((uid_t)syscall(SYS_setfsuid, (uid_t)-1) != uid)
		return -EPERM;
	return 0;
}

static int set_fsgid(gid_t gid)
{
	syscall(SYS_setfsgid, gid);
	if ((gid_t)syscall(SYS_setfsgid, (gid_t)-1) != gid)
		return -EPERM;
	return 0;
}

int vfs_cred_set(const struct vfs_cred *c)
{
	struct cred_cache *t = &tl_cred;
	uint32_t n = c->ngroups;
	int ret;

	if (n > VFS_NGROUPS_MAX)
		return -EINVAL;
	/*
	 * Fault injection (fault.h "cred"): before the shortcuts below, so
	 * that an identity the thread has already counts; the server's own
	 * (uid 0) does not. A failure leaves the cache invalid, as a real
	 * one may have changed part of the identity.
	 */
	if (__builtin_expect(
		    atomic_load_explicit(&vfs_faults_on, memory_order_relaxed),
		    0) &&
	    c->uid != 0) {
		ret = vfs_fault_check(VFS_OP_CRED);
		if (ret < 0) {
			t->valid = false;
			return ret;
		}
	}
	if (!t->valid || t->ngroups != n ||
	    memcmp(t->groups, c->groups, n * sizeof(gid_t)) != 0) {
		t->valid = false;
		if (syscall(SYS_setgroups, (size_t)n, c->groups) < 0)
			return -errno;
		t->ngroups = n;
		memcpy(t->groups, c->groups, n * sizeof(gid_t));
	}
	if (!t->valid || t->fsgid != c->gid) {
		t->valid = false;
		ret = set_fsgid(c->gid);
		if (ret < 0)
			return ret;
		t->fsgid = c->gid;
	}
	if (!t->valid || t->fsuid != c->uid) {
		t->valid = false;
		ret = set_fsuid(c->uid);
		if (ret < 0)
			return ret;
		t->fsuid = c->uid;
	}
	t->valid = true;
	return 0;
}

/*
 * vfs_cred_fsuid() - the calling thread's current fsuid (from the cache
 * when valid, else from the kernel).
 */
uid_t vfs_cred_fsuid(void)
{
	if (tl_cred.valid)
		return tl_cred.fsuid;
	return (uid_t)syscall(SYS_setfsuid, (uid_t)-1);
}

/*
 * vfs_root_enter() - switch the thread's fsuid to 0 (the kernel then
 * restores the filesystem capabilities, e.g. CAP_DAC_READ_SEARCH for
 * open_by_handle_at), remembering what to restore in @s.
 */
void vfs_root_enter(struct vfs_root_save *s)
{
	uid_t cur = vfs_cred_fsuid();

	s->switched = cur != 0;
	s->fsuid = cur;
	s->was_root = tl_root;
	tl_root = true;
	if (s->switched)
		syscall(SYS_setfsuid, (uid_t)0);
}

/* vfs_root_leave() - restore the fsuid saved by vfs_root_enter(). */
void vfs_root_leave(const struct vfs_root_save *s)
{
	if (s->switched)
		syscall(SYS_setfsuid, s->fsuid);
	tl_root = s->was_root;
}

bool vfs_cred_current(struct vfs_cred *out)
{
	const struct cred_cache *t = &tl_cred;

	memset(out, 0, sizeof(*out));
	if (tl_root)
		return true;
	if (!t->valid) {
		/* Never set on this thread (the server's own threads): the
		 * process's identity. */
		out->uid = (uid_t)syscall(SYS_setfsuid, (uid_t)-1);
		out->gid = (gid_t)syscall(SYS_setfsgid, (gid_t)-1);
		return out->uid == 0;
	}
	out->uid = t->fsuid;
	out->gid = t->fsgid;
	out->ngroups = t->ngroups;
	memcpy(out->groups, t->groups, t->ngroups * sizeof(gid_t));
	return out->uid == 0;
}
