// SPDX-License-Identifier: MIT
/* SMB2 path names (smb2_path.h). */
#include "smb2/smb2_path.h"

#include <string.h>

#include "smb2/smb2_fold.h"
#include "smb2/utf16.h"
#include "state/file_state.h"
#include "vfs/vfs.h"

/* Characters a file name may not hold (MS-FSCC 2.1.4.4 and 2.1.5). */
static bool name_char_bad(unsigned char c)
{
	return c < 0x20 || strchr("\"*:<>?|", c) != NULL;
}

/*
 * Make the @n bytes of UTF-8 at @p (room for a NUL after them) a vfs
 * path in place: separators '/', checked component by component. A '/'
 * from the client separates as '\\' does (no name can hold one here;
 * Samba reads it so too, Windows refuses the name).
 */
static uint32_t path_check(char *p, size_t n, char **out)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (p[i] == '\\')
			p[i] = '/';
		else if (name_char_bad((unsigned char)p[i]))
			return STATUS_OBJECT_NAME_INVALID;
	}
	/* A trailing separator (a directory named as such) is dropped. */
	if (n && p[n - 1] == '/')
		n--;
	p[n] = '\0';
	/* Components: none empty, none "." or "..", none too long. */
	for (i = 0; i < n;) {
		size_t j = i;

		while (j < n && p[j] != '/')
			j++;
		if (j == i)
			return STATUS_OBJECT_NAME_INVALID;
		if ((j - i == 1 && p[i] == '.') ||
		    (j - i == 2 && p[i] == '.' && p[i + 1] == '.'))
			return STATUS_OBJECT_PATH_SYNTAX_BAD;
		if (j - i > VFS_NAME_MAX)
			return STATUS_OBJECT_NAME_INVALID;
		i = j + 1;
	}
	*out = p;
	return STATUS_SUCCESS;
}

uint32_t smb2_path_from_wire(struct req *r, const uint8_t *in, size_t len,
			     char **out)
{
	size_t max = len / 2 * 3 + 1, n, start;
	char *p;

	if (len & 1)
		return STATUS_OBJECT_NAME_INVALID;
	if (len > 2 * 32767)
		return STATUS_NAME_TOO_LONG;
	p = req_alloc_raw(r, max + 1);
	if (!p)
		return STATUS_INSUFFICIENT_RESOURCES;
	if (utf16le_to_utf8(in, len, p, max, &n, false) < 0)
		return STATUS_OBJECT_NAME_INVALID;
	/* One leading separator is allowed (some clients send it). */
	start = n && p[0] == '\\' ? 1 : 0;
	memmove(p, p + start, n - start);
	return path_check(p, n - start, out);
}

uint32_t smb2_path_from_utf8(struct req *r, const char *in, size_t len,
			     char **out)
{
	char *p;

	if (len && in[0] == '\\') {
		in++;
		len--;
	}
	p = req_alloc_raw(r, len + 1);
	if (!p)
		return STATUS_INSUFFICIENT_RESOURCES;
	memcpy(p, in, len);
	if (memchr(p, '\0', len))
		return STATUS_OBJECT_NAME_INVALID;
	return path_check(p, len, out);
}

int smb2_path_lookup(const struct smb2_tree *t, struct vfs_obj *dir,
		     const char *name, size_t len, bool nowait,
		     struct vfs_obj **out, char *real, size_t *reallen)
{
	bool sensitive = !t->export || t->export->wide.smb_case_sensitive;

	return smb2_fold_lookup(dir, name, len, sensitive, nowait, out, real,
				reallen);
}

int smb2_path_walk(struct smb2_tree *t, char *path, bool nowait,
		   struct vfs_obj **dir, const char **leaf, size_t *leaflen)
{
	char real[VFS_NAME_MAX * 3];
	struct vfs_obj *d, *next;
	char *p = path, *slash;
	size_t reallen;
	int err;

	err = vfs_obj_root(t->export->vex, &d);
	if (err)
		return err;
	*leaf = NULL;
	*leaflen = 0;
	if (!*p) {
		*dir = d;
		return 0;
	}
	while ((slash = strchr(p, '/')) != NULL) {
		err = smb2_path_lookup(t, d, p, (size_t)(slash - p), nowait,
				       &next, real, &reallen);
		vfs_obj_put(d);
		if (err)
			return err == -ENOENT ? -ENOTDIR : err;
		/* spelt as on disk (when a case fold kept the length) */
		if (reallen == (size_t)(slash - p))
			memcpy(p, real, reallen);
		if (vfs_obj_type(next) != VFS_DIR) {
			vfs_obj_put(next);
			return -ENOTDIR;
		}
		d = next;
		p = slash + 1;
	}
	*dir = d;
	*leaf = p;
	*leaflen = strlen(p);
	return 0;
}

int smb2_path_remove(struct smb2_tree *t, char *path,
		     struct vfs_obj *obj)
{
	char real[VFS_NAME_MAX * 3];
	struct vfs_obj *dir, *found;
	const char *leaf;
	size_t len, reallen;
	int err;

	if (!t->export)
		return -EINVAL;
	/* Whichever thread closes the open, the tree's user removes. */
	err = export_cred_apply(&t->acc.cred);
	if (err)
		return err;
	err = smb2_path_walk(t, path, false, &dir, &leaf, &len);
	if (err)
		return err;
	if (!leaf) {
		err = -EBUSY; /* the share root is never deleted */
		goto out_put;
	}
	/* The name must still be this file's (the object cache gives one
	 * object per file): a file renamed away, or replaced under the
	 * name, is not the one to delete. */
	err = smb2_path_lookup(t, dir, leaf, len, false, &found, real,
			       &reallen);
	if (err)
		goto out_put;
	if (found != obj) {
		vfs_obj_put(found);
		err = -ENOENT;
		goto out_put;
	}
	vfs_obj_put(found);
	err = state_may_delete(obj);
	if (err)
		goto out_put;
	if (vfs_obj_type(obj) == VFS_DIR)
		err = vfs_rmdir(dir, real, reallen);
	else
		err = vfs_remove(dir, real, reallen);
out_put:
	vfs_obj_put(dir);
	return err;
}
