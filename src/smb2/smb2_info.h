/* SPDX-License-Identifier: MIT */
#ifndef NASD_SMB2_SMB2_INFO_H
#define NASD_SMB2_SMB2_INFO_H

/* What QUERY_INFO, CREATE and QUERY_DIRECTORY share (smb2_query.c). */

#include "smb2/fscc.h"
#include "smb2/smb2_int.h"

/*
 * smb2_file_info() - the FSCC view of @o's file with attributes @a: the
 * vfs attributes, HIDDEN for a dot-file (@path: the open's), delete-pending from the shared
 * file state.
 */
void smb2_file_info(struct smb2_open *o, const char *path,
		    const struct vfs_attr *a, struct fscc_file_info *fi);

/*
 * smb2_sd_apply() - what the security descriptor @in says of owner,
 * group and mode (the parts @secinfo names), applied to @obj as the
 * caller's credentials allow (smb2_setinfo.c; SET_INFO after its access
 * checks, and the SecD create context). Returns the NTSTATUS.
 */
uint32_t smb2_sd_apply(struct vfs_obj *obj, uint32_t secinfo,
		       struct smb2_buf *in);

/* smb2_fs_attributes() - the FileSystemAttributes tree @t claims. */
uint32_t smb2_fs_attributes(const struct smb2_tree *t);

#endif
