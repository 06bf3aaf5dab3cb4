// SPDX-License-Identifier: MIT
/*
 * Access masks of SMB opens (MS-SMB2 §3.3.5.9, MS-FSA 2.1.5.1.2.1): the
 * generic rights mapped to file rights (MS-DTYP 2.4.3), and the maximal
 * access a user has on a file, derived from what the kernel would let
 * that user do (vfs_access: mode bits and the export's ro), since the
 * permissions of the filesystem are the permissions of the share.
 */
#include "smb2/smb2_access.h"

#include <stdlib.h>

#include "smb2/smb2_acl.h"
#include "vfs/vfs.h"

uint32_t smb2_access_map_generic(uint32_t mask)
{
	if (mask & GENERIC_READ)
		mask |= FILE_GENERIC_READ;
	if (mask & GENERIC_WRITE)
		mask |= FILE_GENERIC_WRITE;
	if (mask & GENERIC_EXECUTE)
		mask |= FILE_GENERIC_EXECUTE;
	if (mask & GENERIC_ALL)
		mask |= FILE_ALL_ACCESS;
	return mask & ~(GENERIC_READ | GENERIC_WRITE | GENERIC_EXECUTE |
			GENERIC_ALL);
}

/* The write-like rights a read-only share never grants. */
#define WRITE_RIGHTS                                                           \
	(FILE_WRITE_DATA | FILE_APPEND_DATA | FILE_WRITE_EA |                  \
	 FILE_WRITE_ATTRIBUTES | FILE_DELETE_CHILD | DELETE | WRITE_DAC |      \
	 WRITE_OWNER)

/*
 * What kept descriptors (smb2_acl.h) take away from the mode's rights
 * @m: the file's DACL bounds them; DELETE needs the mode's leave to
 * unlink (in @m) and either the file's DACL granting DELETE or its
 * directory's granting FILE_DELETE_CHILD (MS-FSA 2.1.5.1.2.1), the
 * directory's mode standing in for a DACL it does not keep. Root is not
 * bound by DACLs, as it is not by the mode.
 */
static uint32_t nt_rights(struct vfs_obj *o, const struct vfs_attr *a,
			  struct vfs_obj *parent, const struct vfs_cred *cred,
			  uint32_t m)
{
	bool unlink_ok = m & DELETE, file_delete = false, parent_dc;
	bool parent_acl = false, parent_list = false;
	struct smb2_acl acl;
	struct vfs_attr pa;
	uint32_t r, pg = 0;

	if (cred->uid == 0)
		return m;
	parent_dc = unlink_ok;
	if (parent && !vfs_getattr(parent, &pa) &&
	    !smb2_acl_get(parent, &pa, &acl)) {
		r = smb2_acl_rights(&acl, cred);
		free(acl.sd);
		parent_acl = true;
		parent_dc = r & FILE_DELETE_CHILD;
		parent_list = r & FILE_LIST_DIRECTORY;
	}
	if (!smb2_acl_get(o, a, &acl)) {
		r = smb2_acl_rights(&acl, cred);
		free(acl.sd);
		m &= r;
		file_delete = r & DELETE;
		/* MS-FSA 2.1.5.1.2.1: who may list the directory may read
		 * the attributes of what it holds, whatever its DACL says
		 * (smbtorture acls.GENERIC). */
		if (!(r & FILE_READ_ATTRIBUTES) && parent) {
			if (!parent_acl &&
			    !vfs_access(parent, VFS_ACCESS_READ, false, &pg))
				parent_list = pg & VFS_ACCESS_READ;
			if (parent_list)
				m |= FILE_READ_ATTRIBUTES;
		}
	}
	m &= ~DELETE;
	if (unlink_ok && (file_delete || parent_dc))
		m |= DELETE;
	return m;
}

int smb2_access_maximal(struct vfs_obj *o, const struct vfs_attr *a,
			struct vfs_obj *parent, const struct vfs_cred *cred,
			bool ro, uint32_t *out)
{
	uint32_t g = 0, pg = 0;
	uint32_t m = FILE_READ_ATTRIBUTES | READ_CONTROL | SYNCHRONIZE;
	bool dir = a->type == VFS_DIR;
	int err;

	err = vfs_access(o,
			 VFS_ACCESS_READ | VFS_ACCESS_LOOKUP |
				 VFS_ACCESS_MODIFY | VFS_ACCESS_EXTEND |
				 VFS_ACCESS_DELETE | VFS_ACCESS_EXECUTE,
			 ro, &g);
	if (err)
		return err;
	/* Executing a file over SMB is reading it: whoever may read a
	 * file may open it for execution (Samba's "acl allow execute
	 * always"); for a directory it is traversal. */
	if (g & VFS_ACCESS_READ)
		m |= FILE_READ_DATA | FILE_READ_EA | (dir ? 0 : FILE_EXECUTE);
	if (g & (dir ? VFS_ACCESS_LOOKUP : VFS_ACCESS_EXECUTE))
		m |= FILE_EXECUTE;
	if (g & VFS_ACCESS_MODIFY)
		m |= FILE_WRITE_DATA | FILE_WRITE_EA | FILE_WRITE_ATTRIBUTES;
	if (g & VFS_ACCESS_EXTEND)
		m |= FILE_APPEND_DATA;
	/* FILE_DELETE_CHILD means nothing on a file (FILE_ALL_ACCESS
	 * carries it); on a directory, removing entries. */
	if (dir ? (g & VFS_ACCESS_DELETE) : (g & VFS_ACCESS_MODIFY))
		m |= FILE_DELETE_CHILD;
	/* The owner may change the mode, the owner and the times whatever
	 * the mode says (chmod, chown to self, utimes); so may root. */
	if (cred->uid == 0 || cred->uid == a->uid)
		m |= WRITE_DAC | WRITE_OWNER | FILE_WRITE_ATTRIBUTES |
		     FILE_WRITE_EA;
	/* Deleting is a right on the directory that holds the name. */
	if (parent) {
		err = vfs_access(parent, VFS_ACCESS_DELETE, ro, &pg);
		if (err)
			return err;
		if (pg & VFS_ACCESS_DELETE)
			m |= DELETE;
	}
	m = nt_rights(o, a, parent, cred, m);
	if (ro)
		m &= ~WRITE_RIGHTS;
	*out = m;
	return 0;
}

uint32_t smb2_access_share_bits(uint32_t access)
{
	uint32_t s = 0;

	if (access & (FILE_READ_DATA | FILE_EXECUTE))
		s |= STATE_ACCESS_READ;
	if (access & (FILE_WRITE_DATA | FILE_APPEND_DATA))
		s |= STATE_ACCESS_WRITE;
	if (access & DELETE)
		s |= STATE_ACCESS_DELETE;
	return s;
}

uint32_t smb2_access_deny_bits(uint32_t share_access)
{
	uint32_t d = 0;

	if (!(share_access & FILE_SHARE_READ))
		d |= STATE_DENY_READ;
	if (!(share_access & FILE_SHARE_WRITE))
		d |= STATE_DENY_WRITE;
	if (!(share_access & FILE_SHARE_DELETE))
		d |= STATE_DENY_DELETE;
	return d;
}
