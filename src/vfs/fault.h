/* SPDX-License-Identifier: MIT */
#ifndef NASD_VFS_FAULT_H
#define NASD_VFS_FAULT_H

/*
 * Fault injection into the vfs (STYLE.md, after SQLite's fault simulator):
 * make the Nth call of a vfs operation fail with a chosen errno, or the
 * Nth read/write syscall of the data path come back short or with EINTR,
 * so that the protocol layers' error paths run under the integration
 * suite with real clients.
 *
 * Configuration: the environment variable NASD_FAULTS, read once at
 * start-up by vfs_fault_init_env(), or vfs_fault_set() (unit tests). A
 * spec is a list of rules separated by ',', ';' or blanks:
 *
 *     OP:FAULT:N        the Nth call of OP fails, once
 *     OP:FAULT:N/every  every Nth call (N, 2N, 3N, ...)
 *     OP:FAULT:N+       the Nth call and every call after it
 *
 * OP is a vfs operation (getattr setattr lookup access readlink read write
 * commit create mkdir symlink mknod remove rmdir rename link readdir
 * statfs fh allocate deallocate seek copy clone advise), "cred" (applying
 * a client's identity, below), a syscall of the data path (pread, pwrite:
 * inside the local backend's read/write retry loops, local/io.c and
 * local/dio.c, and its copy fallback, local/space.c) or "all" (every vfs
 * operation of the first list; not cred, whose failure is no errno of
 * the operation but a SERVERFAULT).
 * FAULT is an errno name (EIO, ENOSPC, EDQUOT, EINTR, ...), a positive
 * errno number, or "short" (pread/pwrite only: the syscall is asked for
 * half the bytes, rounded down to the O_DIRECT alignment).
 *
 * Where faults land: an errno rule on an operation makes the vfs entry
 * point return -errno before it does anything, so nothing is half done:
 * the fault-injecting backend (fault_backend.c, backend.h) sits between
 * the entry points and the export's own backend while any rule is set.
 * EINTR and "short" on read or write go to the syscall level instead
 * (read:EINTR means pread:EINTR): the vfs retries EINTR and completes
 * short transfers itself, so those faults must be invisible to clients.
 * EINTR on any other operation reaches the protocol, whose status table
 * answers it as "try again later" (NFS3ERR_JUKEBOX, NFS4ERR_DELAY): those
 * operations are one syscall that local filesystems never interrupt.
 *
 * cred makes vfs_cred_set() fail as if a setgroups/setfsgid/setfsuid
 * had, changing nothing and leaving the thread's credential cache
 * invalid (the thread's identity is unknown after a real failure). It is
 * checked before the cache's "unchanged" shortcut, so an identity the
 * thread already has still counts. Only applications of a non-root
 * identity (uid != 0) count: the server applies its own identity (uid 0,
 * no groups) for its own work (NFSv4 pseudo-fs answers, client records),
 * often in the middle of a client's requests, so "cred:EPERM:1+" hits
 * exactly the applications of a client's identity and a test can count
 * its way to the operation that touches export files; root on a
 * no_root_squash export is not affected. The protocols must then answer
 * SERVERFAULT and run nothing (export_cred_apply() fails closed).
 *
 * Counting: each rule counts the calls of the operations it names with
 * one atomic counter, so "write:EIO:3" fails the third vfs_write of the
 * whole server, whichever thread makes it. Every injected fault is logged.
 *
 * Cost: with no rule set, each hook is one predicted-not-taken branch on
 * vfs_faults_on.
 */

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

enum vfs_fault_op {
	VFS_OP_GETATTR,
	VFS_OP_SETATTR,
	VFS_OP_LOOKUP,
	VFS_OP_ACCESS,
	VFS_OP_READLINK,
	VFS_OP_READ,
	VFS_OP_WRITE,
	VFS_OP_COMMIT,
	VFS_OP_CREATE,
	VFS_OP_MKDIR,
	VFS_OP_SYMLINK,
	VFS_OP_MKNOD,
	VFS_OP_REMOVE,
	VFS_OP_RMDIR,
	VFS_OP_RENAME,
	VFS_OP_LINK,
	VFS_OP_READDIR,
	VFS_OP_STATFS,
	VFS_OP_FH,		/* vfs_obj_from_fh */
	VFS_OP_ALLOCATE,
	VFS_OP_DEALLOCATE,
	VFS_OP_SEEK,
	VFS_OP_COPY,
	VFS_OP_CLONE,
	VFS_OP_ADVISE,
	VFS_OP_CRED,		/* vfs_cred_set of a uid other than 0 */
	/* Syscall level, inside the data path's retry loops. */
	VFS_OP_PREAD,
	VFS_OP_PWRITE,
	VFS_OP_COUNT,
};

/* Most rules one spec may hold. */
#define VFS_FAULT_RULES_MAX 32

/* True while any rule is set; the only thing the hooks read when off. */
extern atomic_bool vfs_faults_on;

/*
 * vfs_fault_check() - count a call of entry operation @op against the
 * rules. Returns 0, or the -errno to fail the call with.
 */
int vfs_fault_check(enum vfs_fault_op op);

/*
 * vfs_fault_sys() - count a syscall of @op (VFS_OP_PREAD/PWRITE) against
 * the rules. Returns 0 with *@len possibly shortened (a multiple of
 * @align, never 0), or the -errno the syscall is to fail with.
 */
int vfs_fault_sys(enum vfs_fault_op op, size_t *len, size_t align);

/* Fail the calling vfs entry function when a rule for @op fires. */
#define VFS_FAULT(op)                                                      \
	do {                                                               \
		if (__builtin_expect(atomic_load_explicit(                 \
					     &vfs_faults_on,               \
					     memory_order_relaxed),        \
				     0)) {                                 \
			int vfs_fault_ret_ = vfs_fault_check(op);          \
			if (vfs_fault_ret_ < 0)                            \
				return vfs_fault_ret_;                     \
		}                                                          \
	} while (0)

/*
 * vfs_sys_pread() - pread() for the data path's read loops, with faults:
 * may fail with errno set (EINTR included) or read fewer bytes. @align is
 * the length granularity the fd needs (1 buffered, the O_DIRECT alignment
 * otherwise).
 */
static inline ssize_t vfs_sys_pread(int fd, void *buf, size_t len, off_t off,
				    size_t align)
{
	if (__builtin_expect(atomic_load_explicit(&vfs_faults_on,
						  memory_order_relaxed), 0)) {
		int ret = vfs_fault_sys(VFS_OP_PREAD, &len, align);

		if (ret < 0) {
			errno = -ret;
			return -1;
		}
	}
	return pread(fd, buf, len, off);
}

/* vfs_sys_pwrite() - pwritev2() of one buffer, with faults (as above). */
static inline ssize_t vfs_sys_pwrite(int fd, const void *buf, size_t len,
				     off_t off, int flags, size_t align)
{
	struct iovec iov;

	if (__builtin_expect(atomic_load_explicit(&vfs_faults_on,
						  memory_order_relaxed), 0)) {
		int ret = vfs_fault_sys(VFS_OP_PWRITE, &len, align);

		if (ret < 0) {
			errno = -ret;
			return -1;
		}
	}
	iov.iov_base = (void *)buf;
	iov.iov_len = len;
	return pwritev2(fd, &iov, 1, off, flags);
}

/*
 * vfs_fault_set() - replace the rules with those of @spec (NULL or empty:
 * none, injection off). On a bad spec nothing changes, a message goes to
 * @err (@errlen bytes, may be 0) and -EINVAL is returned; else 0. Not to
 * be called while other threads use the vfs (set up before serving).
 */
int vfs_fault_set(const char *spec, char *err, size_t errlen);

/*
 * vfs_fault_init_env() - vfs_fault_set() from $NASD_FAULTS, once at
 * start-up; logs the rules. Returns 0 or -EINVAL (message logged).
 */
int vfs_fault_init_env(void);

/* vfs_fault_fired() - faults injected since the rules were set. */
uint64_t vfs_fault_fired(void);

/* vfs_fault_op_name() - the spec name of @op ("?" if out of range). */
const char *vfs_fault_op_name(enum vfs_fault_op op);

#endif
