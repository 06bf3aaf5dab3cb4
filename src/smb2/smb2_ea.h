/* SPDX-License-Identifier: MIT */
#ifndef NASD_SMB2_SMB2_EA_H
#define NASD_SMB2_SMB2_EA_H

/*
 * SMB extended attributes as user. xattrs (smb2_ea.c). The caller has
 * applied the tree's credentials and checked the open's access
 * (FILE_WRITE_EA to set, FILE_READ_EA to query).
 */

#include <stdint.h>

#include "smb2/smb2_buf.h"

struct smb2_open;
struct vfs_attr;
struct vfs_obj;

/*
 * smb2_ea_apply() - set each EA of the FILE_FULL_EA_INFORMATION list
 * @list on @o (a value of 0 bytes removes it). The whole list is checked
 * first (STATUS_EA_LIST_INCONSISTENT, STATUS_INVALID_EA_NAME, nothing
 * applied); then applied in order, stopping at the first failure. Returns
 * the NTSTATUS.
 */
uint32_t smb2_ea_apply(struct vfs_obj *o, const struct smb2_buf *list);

/*
 * smb2_ea_query() - QUERY_INFO FileFullEaInformation of @o into @out: the
 * EAs a FILE_GET_EA_INFORMATION list @get names (when it has bytes), else
 * the open's enumeration (@flags: SL_RESTART_SCAN, SL_RETURN_SINGLE_ENTRY,
 * SL_INDEX_SPECIFIED with the 1-based @ea_index). STATUS_SUCCESS,
 * STATUS_BUFFER_OVERFLOW (some entries fit), STATUS_BUFFER_TOO_SMALL
 * (none), STATUS_NO_EAS_ON_FILE, STATUS_NO_MORE_EAS, or an error.
 */
uint32_t smb2_ea_query(struct smb2_open *o, const struct smb2_buf *get,
		       uint32_t flags, uint32_t ea_index, struct smb2_buf *out);

/* smb2_ea_size() - EaSize of @o (MS-FSA 2.1.5.12.10); 0 when none. @a:
 * @o's attributes just read (the names are remembered under its ctime). */
uint32_t smb2_ea_size(struct vfs_obj *o, const struct vfs_attr *a);

#endif
