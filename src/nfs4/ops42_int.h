/* SPDX-License-Identifier: MIT */
#ifndef NASD_NFS4_OPS42_INT_H
#define NASD_NFS4_OPS42_INT_H

/*
 * Shared by the NFSv4.2 operation files (ops42_*.c, RFC 7862): the
 * RFC 7863 enums they use and the "current filehandle is a regular file"
 * check of RFC 8881 §18.22.3 that ALLOCATE, DEALLOCATE, SEEK, COPY,
 * CLONE, READ_PLUS and IO_ADVISE all apply.
 */

#include <stdint.h>

#include "nfs4/compound.h"
#include "nfs4/nfs4_xdr.h"
#include "vfs/vfs.h"

/* data_content4 (RFC 7863) */
enum data_content4 {
	NFS4_CONTENT_DATA = 0,
	NFS4_CONTENT_HOLE = 1,
};

/* stable_how4 (RFC 8881 §18.32) */
enum stable_how4 {
	UNSTABLE4 = 0,
	DATA_SYNC4 = 1,
	FILE_SYNC4 = 2,
};

/*
 * ops42_file() - the object of filehandle @fh when it names a regular
 * file, else the status RFC 8881 §18.22.3 gives for the other types:
 * ISDIR (also for pseudo-fs directories), SYMLINK, WRONG_TYPE; and
 * NOFILEHANDLE when @fh is unset. The object stays @fh's (borrowed).
 */
static inline uint32_t ops42_file(const struct nfs4_fh *fh,
				  struct vfs_obj **out)
{
	struct vfs_attr a;

	if (!fh->set)
		return NFS4ERR_NOFILEHANDLE;
	if (fh->pseudo || !fh->obj)
		return NFS4ERR_ISDIR;
	if (vfs_getattr(fh->obj, &a) < 0)
		return NFS4ERR_STALE;
	switch (a.type) {
	case VFS_REG:
		*out = fh->obj;
		return NFS4_OK;
	case VFS_DIR:
		return NFS4ERR_ISDIR;
	case VFS_LNK:
		return NFS4ERR_SYMLINK;
	default:
		return NFS4ERR_WRONG_TYPE;
	}
}

/* The write verifier as verifier4 bytes: the boot verifier, big-endian,
 * exactly as WRITE and COMMIT encode it. */
static inline bool ops42_enc_writeverf(struct xdr_buf *x)
{
	return xdr_enc_u64(x, vfs_write_verifier());
}

#endif
