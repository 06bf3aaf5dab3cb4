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

/* smb2_fs_attributes() - the FileSystemAttributes tree @t claims. */
uint32_t smb2_fs_attributes(const struct smb2_tree *t);

#endif
