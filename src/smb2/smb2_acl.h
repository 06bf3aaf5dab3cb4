/* SPDX-License-Identifier: MIT */
#ifndef NASD_SMB2_SMB2_ACL_H
#define NASD_SMB2_SMB2_ACL_H

/*
 * Stored NT security descriptors (MS-DTYP 2.4.6): what a client sets is
 * kept whole, besides the owner, group and mode that sd.c maps it to, so
 * that ACEs for other SIDs, NULL and empty DACLs, inheritance flags and
 * the control bits come back as they were set, the DACL decides the
 * rights nasd grants (MS-DTYP 2.5.3.2), and new files and directories
 * inherit the inheritable ACEs of their directory (MS-DTYP 2.5.3.4).
 *
 * The descriptor lives in the xattr "trusted.nasd.ntacl" (privileged: no
 * client, NFS or SMB, can read or forge it) with the uid, gid and mode
 * the file had when it was stored. A file whose owner, group or mode
 * changed since (an NFS chmod, a local chown) has no stored descriptor any
 * more: the mode is the truth, and the descriptor is synthesized from it
 * again (sd.c). The kernel still checks every operation against the mode
 * as the user: a DACL can take rights away, never grant what the mode
 * refuses. Where trusted xattrs cannot be kept (nasd not root, a
 * filesystem without them) nothing is stored and the mode is all there is.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "smb2/fscc.h"
#include "smb2/smb2_buf.h"

struct vfs_obj;
struct vfs_attr;
struct vfs_cred;

#define SMB2_ACL_XATTR "trusted.nasd.ntacl"
/* The largest descriptor kept (MS-DTYP: an ACL is at most 64 KiB). */
#define SMB2_ACL_MAX 65536

/* A descriptor kept for a file, as smb2_acl_get() read it. */
struct smb2_acl {
	uint8_t *sd; /* self-relative, validated; free() it */
	size_t len;
};

/*
 * smb2_acl_get() - the descriptor kept for @obj whose attributes are @a:
 * 0 with *@out filled, -ENODATA when none is kept or it is stale (the
 * owner, group or mode changed since), another -errno on failure.
 */
int smb2_acl_get(struct vfs_obj *obj, const struct vfs_attr *a,
		 struct smb2_acl *out);

/*
 * smb2_acl_set() - keep the parts @secinfo names of the client's
 * descriptor @in (validated by sd_dec_SECURITY_DESCRIPTOR) for @obj,
 * whose attributes after the owner, group and mode were applied are @a;
 * the parts not named come from the kept descriptor, or from the file
 * (its owner and group SIDs). Only a DACL is worth keeping: setting the
 * owner or group alone of a file with no kept descriptor keeps nothing.
 * 0 or -errno (-EPERM, -ENOTSUP: nothing can be kept here).
 */
int smb2_acl_set(struct vfs_obj *obj, const struct vfs_attr *a,
		 uint32_t secinfo, const struct smb2_buf *in);

/*
 * smb2_acl_encode() - the parts @secinfo asks of @acl, self-relative, at
 * @out's position. *@needed gets the size; FSCC_BUFFER_TOO_SMALL (nothing
 * written) when it does not fit.
 */
enum fscc_status smb2_acl_encode(const struct smb2_acl *acl, uint32_t secinfo,
				 struct smb2_buf *out, size_t *needed);

/*
 * smb2_acl_rights() - the rights the DACL of @acl grants @cred, generic
 * rights mapped (MS-DTYP 2.5.3.2, MAXIMUM_ALLOWED): a NULL DACL grants
 * everything, an empty one nothing; the owner always has READ_CONTROL and
 * WRITE_DAC. @cred's SIDs: S-1-22-1-uid, S-1-22-2-gid of its group and
 * groups, Everyone, Authenticated Users and Network.
 */
uint32_t smb2_acl_rights(const struct smb2_acl *acl, const struct vfs_cred *cred);

/*
 * smb2_acl_inherit() - a file or directory (@is_dir) just made in @parent
 * by @cred gets the inheritable ACEs of @parent's kept descriptor
 * (MS-DTYP 2.5.3.4.2: object-inherit ACEs for a file, container-inherit
 * ones for a directory, which keeps inheriting them; CREATOR OWNER and
 * CREATOR GROUP become its owner and group), kept for it with @a, its
 * attributes. 0, -ENODATA when the parent keeps nothing inheritable, or
 * -errno.
 */
int smb2_acl_inherit(struct vfs_obj *parent, struct vfs_obj *child,
		     const struct vfs_attr *a, bool is_dir,
		     const struct vfs_cred *cred);

#endif
