/* SPDX-License-Identifier: MIT */
#ifndef NASD_SMB2_SMB2_INFO_H
#define NASD_SMB2_SMB2_INFO_H

/* What QUERY_INFO, CREATE and QUERY_DIRECTORY share (smb2_query.c). */

#include "smb2/fscc.h"
#include "smb2/smb2_int.h"

/*
 * smb2_info_fill() - the FSCC view of @obj, whose last path component is
 * @name (@len bytes) and whose vfs attributes are @a: those, what the file
 * keeps (vfs_dosattr), HIDDEN for a dot-file, normalised.
 */
void smb2_info_fill(struct vfs_obj *obj, const char *name, size_t len,
		    const struct vfs_attr *a, struct fscc_file_info *fi);

/*
 * smb2_readonly_mode() - a file's READONLY attribute is its mode's write
 * bits (fscc.h): the mode that says @readonly for a file of @a in
 * *@mode, and true, when its present mode does not (false: unchanged,
 * or a directory, whose mode READONLY never touches).
 */
bool smb2_readonly_mode(const struct vfs_attr *a, bool readonly,
			uint32_t *mode);

/*
 * smb2_dos_store() - make @obj (vfs attributes @a) report the attributes
 * @attrib (its FSCC_ATTR_KEPT bits; a file's READONLY is the caller's to
 * apply to the mode) and, unless @create_time is NULL, that creation time,
 * by keeping them (vfs_dosattr). Nothing is written when the file already
 * reports them; the first write also fixes the creation time reported so
 * far. 0 or -errno (-EOPNOTSUPP: nothing can be kept here).
 */
int smb2_dos_store(struct vfs_obj *obj, const struct vfs_attr *a,
		   uint32_t attrib, const uint64_t *create_time);

/*
 * smb2_file_info() - smb2_info_fill() for open @o (@path: the open's),
 * with delete-pending from the shared file state.
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
