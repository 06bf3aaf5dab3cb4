/* SPDX-License-Identifier: MIT */
#ifndef NASD_SMB2_SMB2_FOLD_H
#define NASD_SMB2_SMB2_FOLD_H

/*
 * Case-insensitive name lookup for SMB shares (MS-FSA 2.1.5.1.2), with a
 * bounded cache of folded directory listings (smb2_fold.c says how it
 * stays right).
 */

#include <stdbool.h>
#include <stddef.h>

struct vfs_obj;

/*
 * smb2_fold_lookup() - the entry @name (@len bytes of UTF-8) of @dir in
 * *@out (a reference): the exact name, else (unless @sensitive) the one
 * whose name equals it ignoring case. When @real is not NULL, the name as
 * it is on disk goes there (at least VFS_NAME_MAX * 3 bytes, not
 * NUL-terminated) with its length in *@reallen. 0 or -errno (-ENOENT).
 * @nowait (on the event loop): -EAGAIN where the answer needs a listing
 * of @dir (a miss the cache cannot answer), which may take long.
 */
int smb2_fold_lookup(struct vfs_obj *dir, const char *name, size_t len,
		     bool sensitive, bool nowait, struct vfs_obj **out,
		     char *real, size_t *reallen);

#endif
