/* SPDX-License-Identifier: MIT */
#ifndef NASD_SMB2_SMB2_STREAM_H
#define NASD_SMB2_SMB2_STREAM_H

/*
 * Named streams (alternate data streams, MS-FSCC 2.4.43, MS-FSA 2.1.5.1)
 * kept in xattrs in Samba's streams_xattr layout, so that a share moved
 * between the two keeps them: stream "NAME" of a file or directory is the
 * xattr "user.DosStream.NAME:$DATA", whose value is the stream's bytes and
 * one NUL after them (as Samba does, a value's last byte is taken for that
 * NUL whatever it is). A stream is at most SMB2_STREAM_DATA_MAX bytes (the
 * kernel's largest xattr value; ext4 without ea_inode keeps less, and
 * answers ENOSPC: STATUS_DISK_FULL). Stream names compare ignoring case;
 * a stream keeps the name it was made with.
 *
 * The unnamed stream ("::$DATA") is the file itself and never reaches
 * here. Nothing of this knows about opens: share modes, locks and oplocks
 * of a stream are the state layer's (state_file_get_stream), keyed by
 * the xattr name.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct vfs_obj;

#define SMB2_STREAM_PREFIX     "user.DosStream."
#define SMB2_STREAM_PREFIX_LEN 15
#define SMB2_STREAM_SUFFIX     ":$DATA"
#define SMB2_STREAM_SUFFIX_LEN 6
/* The longest name (UTF-8 bytes) whose xattr name fits XATTR_NAME_MAX. */
#define SMB2_STREAM_NAME_MAX                                                   \
	(255 - SMB2_STREAM_PREFIX_LEN - SMB2_STREAM_SUFFIX_LEN)
/* Room for an xattr name and its NUL. */
#define SMB2_STREAM_XNAME_SIZE 256
#define SMB2_STREAM_DATA_MAX   (65536 - 1)

/*
 * smb2_stream_parse() - the stream part of a CREATE name, what follows the
 * first ':' of its last component (@spec, @len bytes of UTF-8): "NAME",
 * "NAME:$DATA" or ":$DATA" (any case). The name in *@name, *@name_len
 * (0 for the unnamed stream, the file itself). STATUS_SUCCESS, or
 * STATUS_OBJECT_NAME_INVALID for an empty name without a type, another
 * type than $DATA, or a name with '\', '/' or NUL or longer than
 * SMB2_STREAM_NAME_MAX (control characters, '*', '?' and the like are
 * allowed, as on NTFS).
 */
uint32_t smb2_stream_parse(const char *spec, size_t len, const char **name,
			   size_t *name_len);

/*
 * smb2_stream_find() - the xattr name of stream @name (@len bytes) of
 * @obj into @xname (SMB2_STREAM_XNAME_SIZE bytes): the existing stream
 * whose name equals it ignoring case (0), or the name a new one would get
 * (-ENOENT). Other -errno on failure.
 */
int smb2_stream_find(struct vfs_obj *obj, const char *name, size_t len,
		     char *xname);

/* smb2_stream_size() - the stream's length in bytes, or -errno. */
ssize_t smb2_stream_size(struct vfs_obj *obj, const char *xname);

/*
 * smb2_stream_read() - up to @len bytes at @off into @buf: the count (0
 * at or past the end) or -errno.
 */
ssize_t smb2_stream_read(struct vfs_obj *obj, const char *xname, uint64_t off,
			 void *buf, size_t len);

/*
 * smb2_stream_write() - @len bytes at @off (a hole before them reads as
 * zeros): @len or -errno (-ENOSPC past SMB2_STREAM_DATA_MAX). Writes and
 * size changes of one object are serialized here.
 */
ssize_t smb2_stream_write(struct vfs_obj *obj, const char *xname, uint64_t off,
			  const void *data, size_t len);

/* smb2_stream_set_size() - cut or extend (with zeros) to @size. */
int smb2_stream_set_size(struct vfs_obj *obj, const char *xname,
			 uint64_t size);

/*
 * smb2_stream_create() - make the stream empty: new (@excl: -EEXIST if
 * it exists) or cut to nothing. 0 or -errno.
 */
int smb2_stream_create(struct vfs_obj *obj, const char *xname, bool excl);

/*
 * smb2_stream_rename() - stream @from of @obj becomes @to (a new name, or
 * an existing empty stream, replaced): its bytes copied and the old name
 * removed, under the object's lock. 0 or -errno.
 */
int smb2_stream_rename(struct vfs_obj *obj, const char *from, const char *to);

/* smb2_stream_remove() - delete the stream. 0 or -errno. */
int smb2_stream_remove(struct vfs_obj *obj, const char *xname);

/*
 * smb2_stream_display() - the name a client sees for @xname (its NAME
 * part, not NUL-terminated), its length in *@len; NULL if @xname is not a
 * stream's xattr name.
 */
const char *smb2_stream_display(const char *xname, size_t *len);

/*
 * smb2_stream_each() - call @fn with the display name and length of each
 * named stream of @obj, in the order the filesystem lists them, until it
 * returns false. 0 or -errno (no xattrs: 0 and no call).
 */
int smb2_stream_each(struct vfs_obj *obj,
		     bool (*fn)(void *ctx, const char *name, size_t len,
				uint64_t size),
		     void *ctx);

#endif
