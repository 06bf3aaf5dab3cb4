/* SPDX-License-Identifier: MIT */
#ifndef NASD_SMB2_SMB2_PATH_H
#define NASD_SMB2_SMB2_PATH_H

/*
 * SMB2 path names (MS-SMB2 §2.2.13: CREATE's Buffer; MS-FSCC 2.1.5): UTF-16LE,
 * '\' separated, relative to the share root, turned into UTF-8 '/'
 * separated names for the vfs, and walked from the share's root one
 * component at a time (vfs_lookup never follows a symlink and never
 * leaves the export).
 */

#include <stddef.h>
#include <stdint.h>

#include "smb2/smb2_int.h"

struct vfs_obj;

/*
 * smb2_path_from_wire() - @len bytes of UTF-16LE at @in into a UTF-8 path
 * (allocated from request @r, NUL-terminated) in *@out: separators become
 * '/', one leading separator is dropped, empty means the share root.
 * Returns STATUS_SUCCESS or the NTSTATUS to answer:
 * STATUS_OBJECT_NAME_INVALID (not well formed, a wildcard or a character
 * names may not hold, an empty component), STATUS_OBJECT_PATH_SYNTAX_BAD
 * ("." or ".." components), STATUS_NAME_TOO_LONG.
 */
uint32_t smb2_path_from_wire(struct req *r, const uint8_t *in, size_t len,
			     char **out);

/*
 * smb2_path_from_utf8() - the same for a name already in UTF-8 with '\'
 * separators (a rename or link target, fscc_dec_FILE_RENAME_...).
 */
uint32_t smb2_path_from_utf8(struct req *r, const char *in, size_t len,
			     char **out);

/*
 * smb2_path_walk() - from tree @t's root to the directory holding the
 * last component of @path: *@dir (a reference) and *@leaf / *@leaflen
 * (inside @path). For the root itself *@leaf is NULL and *@dir the root.
 * @nowait: on the event loop (-EAGAIN where a name needs a directory
 * listed, smb2_fold_lookup).
 * Returns 0 or -errno (-ENOTDIR for a middle component that is missing
 * or no directory: STATUS_OBJECT_PATH_NOT_FOUND). The directories' names
 * in @path are rewritten as they are spelt on disk (a case-insensitive
 * share finds them by another spelling), where that keeps the length.
 */
int smb2_path_walk(struct smb2_tree *t, char *path, bool nowait,
		   struct vfs_obj **dir, const char **leaf, size_t *leaflen);

/*
 * smb2_path_lookup() - entry @name (@len bytes) of @dir in *@out, matched
 * as tree @t's share matches names (ignoring case unless smb_case=
 * sensitive); its on-disk name in @real / *@reallen when @real is not
 * NULL (VFS_NAME_MAX * 3 bytes). 0 or -errno; @nowait as for
 * smb2_path_walk().
 */
int smb2_path_lookup(const struct smb2_tree *t, struct vfs_obj *dir,
		     const char *name, size_t len, bool nowait,
		     struct vfs_obj **out, char *real, size_t *reallen);

/*
 * smb2_path_remove() - remove the name @path of @t if it still names
 * @obj (a file or an empty directory), as the tree's squashed user.
 * 0 or -errno (-ENOENT when the name is gone or another file's).
 */
int smb2_path_remove(struct smb2_tree *t, char *path,
		     struct vfs_obj *obj);

#endif
