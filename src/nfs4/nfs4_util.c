// SPDX-License-Identifier: MIT
/*
 * Small helpers of the NFSv4 operations: name rules (RFC 8881 §14.2,
 * §18.x "component4" checks), change_info4 sources, the current
 * directory check.
 */

#include <string.h>

#include "nfs4/nfs4_int.h"

/* RFC 3629 UTF-8, without overlongs or surrogates. */
static bool utf8_valid(const uint8_t *s, uint32_t len)
{
	uint32_t i = 0;

	while (i < len) {
		uint8_t c = s[i];
		uint32_t n, cp, j;

		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf) {
			n = 1;
			cp = c & 0x1f;
		} else if (c >= 0xe0 && c <= 0xef) {
			n = 2;
			cp = c & 0x0f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			n = 3;
			cp = c & 0x07;
		} else {
			return false;
		}
		if (len - i <= n)
			return false;
		for (j = 1; j <= n; j++) {
			if ((s[i + j] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i + j] & 0x3f);
		}
		if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
		    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		i += n + 1;
	}
	return true;
}

/** nfs4_name_check() - component4 rules; see nfs4_int.h. */
int nfs4_name_check(const struct nfs4_opaque *name)
{
	if (name->len == 0)
		return -EINVAL;
	if (name->len > VFS_NAME_MAX)
		return -ENAMETOOLONG;
	if (memchr(name->data, '/', name->len) ||
	    memchr(name->data, '\0', name->len))
		return -EILSEQ;
	if ((name->len == 1 && name->data[0] == '.') ||
	    (name->len == 2 && name->data[0] == '.' && name->data[1] == '.'))
		return -EBADNAME;
	if (!utf8_valid(name->data, name->len))
		return -EINVAL;
	return 0;
}

/** nfs4_dir_change() - change attribute of @dir, 0 if unreadable. */
uint64_t nfs4_dir_change(struct vfs_obj *dir)
{
	struct vfs_attr va;

	if (vfs_getattr(dir, &va))
		return 0;
	return va.change;
}

/** nfs4_cur_dir() - the current fh as a modifiable directory. */
uint32_t nfs4_cur_dir(struct nfs4_compound *c, bool modify,
		      struct vfs_obj **out)
{
	struct vfs_attr va;

	if (!c->cur.set)
		return NFS4ERR_NOFILEHANDLE;
	if (c->cur.pseudo)
		return modify ? NFS4ERR_ROFS : NFS4ERR_NOTDIR;
	if (vfs_getattr(c->cur.obj, &va))
		return NFS4ERR_STALE;
	if (va.type != VFS_DIR)
		return NFS4ERR_NOTDIR;
	if (modify && nfs4_fh_ro(&c->cur))
		return NFS4ERR_ROFS;
	*out = c->cur.obj;
	return NFS4_OK;
}
