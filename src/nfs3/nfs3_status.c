// SPDX-License-Identifier: MIT
/*
 * The one errno→nfsstat3 mapping of NFSv3 (RFC 1813 §2.6), aware of the
 * procedure: each procedure answers only the statuses its section of
 * RFC 1813 §3.3 lists. Each errno has a first choice and a second choice;
 * when neither is allowed for the procedure the answer is NFS3ERR_IO, or
 * NFS3ERR_SERVERFAULT where IO is not listed either.
 *
 * Deliberate extensions, the same as knfsd's: NFS3ERR_JUKEBOX (RFC 1813
 * §2.6, "try again later") on every procedure, NFS3ERR_PERM on MKNOD for a
 * device node made by someone other than root (§2.6's own definition of
 * PERM), NFS3ERR_ISDIR on REMOVE of a directory (RFC 1813 omits it; knfsd
 * answers it and clients show "Is a directory", where the fallback IO would
 * read as a disk failure), and the handle-resolution pseudo procedure
 * NFS3_PROC_RESOLVE.
 */

#include <stdlib.h>

#include "core/err.h"
#include "nfs3/nfs3_internal.h"

/* Bit positions for the per-procedure sets. */
enum nfs3_status_bit {
	SB_OK,
	SB_PERM,
	SB_NOENT,
	SB_IO,
	SB_NXIO,
	SB_ACCES,
	SB_EXIST,
	SB_XDEV,
	SB_NODEV,
	SB_NOTDIR,
	SB_ISDIR,
	SB_INVAL,
	SB_FBIG,
	SB_NOSPC,
	SB_ROFS,
	SB_MLINK,
	SB_NAMETOOLONG,
	SB_NOTEMPTY,
	SB_DQUOT,
	SB_STALE,
	SB_REMOTE,
	SB_BADHANDLE,
	SB_NOT_SYNC,
	SB_BAD_COOKIE,
	SB_NOTSUPP,
	SB_TOOSMALL,
	SB_SERVERFAULT,
	SB_BADTYPE,
	SB_JUKEBOX,
	SB_COUNT,
};

static const uint32_t status_of_bit[SB_COUNT] = {
	[SB_OK] = NFS3_OK,
	[SB_PERM] = NFS3ERR_PERM,
	[SB_NOENT] = NFS3ERR_NOENT,
	[SB_IO] = NFS3ERR_IO,
	[SB_NXIO] = NFS3ERR_NXIO,
	[SB_ACCES] = NFS3ERR_ACCES,
	[SB_EXIST] = NFS3ERR_EXIST,
	[SB_XDEV] = NFS3ERR_XDEV,
	[SB_NODEV] = NFS3ERR_NODEV,
	[SB_NOTDIR] = NFS3ERR_NOTDIR,
	[SB_ISDIR] = NFS3ERR_ISDIR,
	[SB_INVAL] = NFS3ERR_INVAL,
	[SB_FBIG] = NFS3ERR_FBIG,
	[SB_NOSPC] = NFS3ERR_NOSPC,
	[SB_ROFS] = NFS3ERR_ROFS,
	[SB_MLINK] = NFS3ERR_MLINK,
	[SB_NAMETOOLONG] = NFS3ERR_NAMETOOLONG,
	[SB_NOTEMPTY] = NFS3ERR_NOTEMPTY,
	[SB_DQUOT] = NFS3ERR_DQUOT,
	[SB_STALE] = NFS3ERR_STALE,
	[SB_REMOTE] = NFS3ERR_REMOTE,
	[SB_BADHANDLE] = NFS3ERR_BADHANDLE,
	[SB_NOT_SYNC] = NFS3ERR_NOT_SYNC,
	[SB_BAD_COOKIE] = NFS3ERR_BAD_COOKIE,
	[SB_NOTSUPP] = NFS3ERR_NOTSUPP,
	[SB_TOOSMALL] = NFS3ERR_TOOSMALL,
	[SB_SERVERFAULT] = NFS3ERR_SERVERFAULT,
	[SB_BADTYPE] = NFS3ERR_BADTYPE,
	[SB_JUKEBOX] = NFS3ERR_JUKEBOX,
};

#define M(s) (1u << SB_##s)

/* Every procedure: success, the handle errors, and the two fallbacks. */
#define COMMON (M(OK) | M(STALE) | M(BADHANDLE) | M(SERVERFAULT) | M(JUKEBOX))
#define MAKE_DIRENT                                                            \
	(COMMON | M(IO) | M(ACCES) | M(EXIST) | M(NOTDIR) | M(NOSPC) |         \
	 M(ROFS) | M(NAMETOOLONG) | M(DQUOT) | M(NOTSUPP))

/* RFC 1813 §3.3.x "ERRORS" lists, indexed by procedure. */
static const uint32_t allowed[NFSPROC3_NPROCS + 1] = {
	[NFSPROC3_NULL] = COMMON,
	[NFSPROC3_GETATTR] = COMMON | M(IO),
	[NFSPROC3_SETATTR] = COMMON | M(PERM) | M(IO) | M(ACCES) | M(INVAL) |
			     M(NOSPC) | M(ROFS) | M(DQUOT) | M(NOT_SYNC),
	[NFSPROC3_LOOKUP] = COMMON | M(IO) | M(NOENT) | M(ACCES) | M(NOTDIR) |
			    M(NAMETOOLONG),
	[NFSPROC3_ACCESS] = COMMON | M(IO),
	[NFSPROC3_READLINK] = COMMON | M(IO) | M(INVAL) | M(ACCES) | M(NOTSUPP),
	[NFSPROC3_READ] = COMMON | M(IO) | M(NXIO) | M(ACCES) | M(INVAL),
	[NFSPROC3_WRITE] = COMMON | M(IO) | M(ACCES) | M(FBIG) | M(DQUOT) |
			   M(NOSPC) | M(ROFS) | M(INVAL),
	[NFSPROC3_CREATE] = MAKE_DIRENT,
	[NFSPROC3_MKDIR] = MAKE_DIRENT,
	[NFSPROC3_SYMLINK] = MAKE_DIRENT,
	[NFSPROC3_MKNOD] = MAKE_DIRENT | M(BADTYPE) | M(PERM),
	[NFSPROC3_REMOVE] = COMMON | M(NOENT) | M(IO) | M(ACCES) | M(NOTDIR) |
			    M(NAMETOOLONG) | M(ROFS) | M(ISDIR),
	[NFSPROC3_RMDIR] = COMMON | M(NOENT) | M(IO) | M(ACCES) | M(INVAL) |
			   M(EXIST) | M(NOTDIR) | M(NAMETOOLONG) | M(ROFS) |
			   M(NOTEMPTY) | M(NOTSUPP),
	[NFSPROC3_RENAME] = COMMON | M(NOENT) | M(IO) | M(ACCES) | M(EXIST) |
			    M(XDEV) | M(NOTDIR) | M(ISDIR) | M(INVAL) |
			    M(NOSPC) | M(ROFS) | M(MLINK) | M(NAMETOOLONG) |
			    M(NOTEMPTY) | M(DQUOT) | M(NOTSUPP),
	[NFSPROC3_LINK] = COMMON | M(IO) | M(ACCES) | M(EXIST) | M(XDEV) |
			  M(NOTDIR) | M(INVAL) | M(NOSPC) | M(ROFS) | M(MLINK) |
			  M(NAMETOOLONG) | M(DQUOT) | M(NOTSUPP),
	[NFSPROC3_READDIR] = COMMON | M(IO) | M(ACCES) | M(NOTDIR) |
			     M(BAD_COOKIE) | M(TOOSMALL),
	[NFSPROC3_READDIRPLUS] = COMMON | M(IO) | M(ACCES) | M(NOTDIR) |
				 M(BAD_COOKIE) | M(TOOSMALL) | M(NOTSUPP),
	[NFSPROC3_FSSTAT] = COMMON | M(IO),
	[NFSPROC3_FSINFO] = COMMON,
	[NFSPROC3_PATHCONF] = COMMON,
	[NFSPROC3_COMMIT] = COMMON | M(IO),
	[NFS3_PROC_RESOLVE] = COMMON | M(ACCES) | M(PERM),
};

/* First and second choice for one errno. */
struct nfs3_errmap {
	uint32_t status;
	uint32_t alt;
};

#define ERRMAP_MAX 529

static const struct nfs3_errmap errmap[ERRMAP_MAX] = {
	[EPERM] = {NFS3ERR_PERM, NFS3ERR_ACCES},
	[ENOENT] = {NFS3ERR_NOENT, NFS3ERR_STALE},
	[EIO] = {NFS3ERR_IO, 0},
	[ENXIO] = {NFS3ERR_NXIO, NFS3ERR_IO},
	[EBADF] = {NFS3ERR_SERVERFAULT, 0},
	[EAGAIN] = {NFS3ERR_JUKEBOX, 0},
	[ENOMEM] = {NFS3ERR_JUKEBOX, 0},
	[EACCES] = {NFS3ERR_ACCES, NFS3ERR_PERM},
	[EFAULT] = {NFS3ERR_SERVERFAULT, 0},
	[EBUSY] = {NFS3ERR_ACCES, NFS3ERR_IO},
	[EEXIST] = {NFS3ERR_EXIST, 0},
	[EXDEV] = {NFS3ERR_XDEV, NFS3ERR_ACCES},
	[ENODEV] = {NFS3ERR_NODEV, NFS3ERR_NXIO},
	[ENOTDIR] = {NFS3ERR_NOTDIR, NFS3ERR_INVAL},
	[EISDIR] = {NFS3ERR_ISDIR, NFS3ERR_INVAL},
	[EINVAL] = {NFS3ERR_INVAL, NFS3ERR_ACCES},
	[ENFILE] = {NFS3ERR_JUKEBOX, 0},
	[EMFILE] = {NFS3ERR_JUKEBOX, 0},
	[ETXTBSY] = {NFS3ERR_ACCES, 0},
	[EFBIG] = {NFS3ERR_FBIG, NFS3ERR_INVAL},
	[ENOSPC] = {NFS3ERR_NOSPC, NFS3ERR_IO},
	[ESPIPE] = {NFS3ERR_INVAL, 0},
	[EROFS] = {NFS3ERR_ROFS, NFS3ERR_ACCES},
	[EMLINK] = {NFS3ERR_MLINK, 0},
	[ERANGE] = {NFS3ERR_INVAL, 0},
	[EINTR] = {NFS3ERR_JUKEBOX, 0},
	[ENAMETOOLONG] = {NFS3ERR_NAMETOOLONG, NFS3ERR_INVAL},
	[ENOSYS] = {NFS3ERR_NOTSUPP, 0},
	[ENOTEMPTY] = {NFS3ERR_NOTEMPTY, NFS3ERR_EXIST},
	[ELOOP] = {NFS3ERR_INVAL, NFS3ERR_ACCES},
	[EOVERFLOW] = {NFS3ERR_FBIG, NFS3ERR_INVAL},
	[EOPNOTSUPP] = {NFS3ERR_NOTSUPP, 0},
	[ETIMEDOUT] = {NFS3ERR_JUKEBOX, 0},
	[EDQUOT] = {NFS3ERR_DQUOT, NFS3ERR_NOSPC},
	[ESTALE] = {NFS3ERR_STALE, 0},
	[EBADHANDLE] = {NFS3ERR_BADHANDLE, 0},
	[ENOTSYNC] = {NFS3ERR_NOT_SYNC, 0},
	[EBADCOOKIE] = {NFS3ERR_BAD_COOKIE, 0},
	[ENOTSUPP] = {NFS3ERR_NOTSUPP, 0},
	[ETOOSMALL] = {NFS3ERR_TOOSMALL, 0},
	[ESERVERFAULT] = {NFS3ERR_SERVERFAULT, 0},
	[EBADTYPE] = {NFS3ERR_BADTYPE, NFS3ERR_INVAL},
	[EJUKEBOX] = {NFS3ERR_JUKEBOX, 0},
};

static int status_bit(uint32_t status)
{
	int i;

	for (i = 0; i < SB_COUNT; i++)
		if (status_of_bit[i] == status)
			return i;
	return -1;
}

/**
 * nfs3_status_allowed() - whether procedure @proc (NFSPROC3_* or
 * NFS3_PROC_RESOLVE) may answer @status.
 */
bool nfs3_status_allowed(uint32_t proc, uint32_t status)
{
	int bit = status_bit(status);

	if (proc > NFS3_PROC_RESOLVE || bit < 0)
		return false;
	return allowed[proc] & (1u << bit);
}

/**
 * nfs3_status() - map internal status @err (sign ignored) to the nfsstat3
 * that procedure @proc answers; see nfs3_internal.h.
 */
uint32_t nfs3_status(uint32_t proc, int err)
{
	unsigned int e = err < 0 ? -(unsigned int)err : (unsigned int)err;
	struct nfs3_errmap m = {0, 0};

	if (!e)
		return NFS3_OK;
	if (proc > NFS3_PROC_RESOLVE)
		return NFS3ERR_SERVERFAULT;
	if (e < ERRMAP_MAX)
		m = errmap[e];
	if (m.status && nfs3_status_allowed(proc, m.status))
		return m.status;
	if (m.alt && nfs3_status_allowed(proc, m.alt))
		return m.alt;
	if (nfs3_status_allowed(proc, NFS3ERR_IO))
		return NFS3ERR_IO;
	return NFS3ERR_SERVERFAULT;
}
