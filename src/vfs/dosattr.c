// SPDX-License-Identifier: MIT
/*
 * Windows file attributes and creation time kept with a file, in the
 * extended attribute user.DOSATTRIB and in Samba's layout of it, so that
 * a share moves between Samba and nasd with its attributes. Samba pushes
 * an NDR structure (librpc/idl/xattr.idl, read for the layout only):
 *
 *   attrib_hex   NUL-terminated ASCII ("" since version 3; "0x20" before)
 *   (pad to 2)
 *   version      u16
 *   level        u16, the union's switch, equal to version
 *   (pad to 4)
 *   version 5:   valid_flags u32, attrib u32, create_time u64   (4.11+)
 *   version 4:   valid_flags u32, attrib u32, itime u64, create_time u64
 *   version 3:   valid_flags u32, attrib u32, ea_size u32, size u64,
 *                alloc_size u64, create_time u64
 *   version 1:   attrib u32, ea_size u32, size u64, alloc_size u64,
 *                create_time u64, change_time u64 (all valid)
 *
 * all little-endian, 64-bit values aligned to 4 only. nasd writes
 * version 5, as Samba 4.17 does. The value comes from the disk, where any
 * local user or another server may have put anything: the decoder checks
 * every length and takes nothing it cannot parse.
 */
#include <errno.h>
#include <string.h>

#include "core/le.h"
#include "vfs/vfs.h"
#include "vfs/vfs_int.h"

/* Samba's name; smb2_ea.c hides it from the EAs. */
#define DOSATTRIB_NAME "user.DOSATTRIB"

/* valid_flags bits (xattr.idl XATTR_DOSINFO_*). */
#define DOSINFO_ATTRIB	    0x1u
#define DOSINFO_CREATE_TIME 0x10u

/* The longest attrib_hex taken ("0x" and 8 hex digits, then NUL). */
#define HEX_MAX 11

/* The attributes of an old "0x..." attrib_hex, or false. */
static bool parse_hex(const uint8_t *p, size_t n, uint32_t *out)
{
	uint32_t v = 0;
	size_t i;

	if (n < 3 || p[0] != '0' || (p[1] != 'x' && p[1] != 'X'))
		return false;
	for (i = 2; i < n; i++) {
		uint8_t c = p[i], d;

		if (c >= '0' && c <= '9')
			d = (uint8_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (uint8_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (uint8_t)(c - 'A' + 10);
		else
			return false;
		v = v << 4 | d;
	}
	*out = v;
	return true;
}

int vfs_dosattr_decode(const uint8_t *p, size_t len, struct vfs_dosattr *d)
{
	size_t hex_len, pos, need;
	uint16_t version, level;
	uint32_t hex_attr = 0, flags;
	const uint8_t *nul, *arm;
	bool have_hex;

	memset(d, 0, sizeof(*d));
	nul = memchr(p, 0, len < HEX_MAX + 1 ? len : HEX_MAX + 1);
	if (!nul)
		return -EINVAL;
	hex_len = (size_t)(nul - p);
	have_hex = parse_hex(p, hex_len, &hex_attr);
	pos = (hex_len + 1 + 1) & ~(size_t)1;
	if (len < pos + 4)
		goto hex_only;
	version = get_le16(p + pos);
	level = get_le16(p + pos + 2);
	pos = (pos + 4 + 3) & ~(size_t)3;
	if (version != level)
		goto hex_only;
	switch (version) {
	case 1:
		need = 40;
		break;
	case 3:
		need = 36;
		break;
	case 4:
		need = 24;
		break;
	case 5:
		need = 16;
		break;
	default:
		goto hex_only;
	}
	if (len < pos || len - pos < need)
		goto hex_only;
	arm = p + pos;
	if (version == 1) {
		d->has_attrib = true;
		d->attrib = get_le32(arm);
		d->has_create_time = true;
		d->create_time = get_le64(arm + 24);
		return 0;
	}
	flags = get_le32(arm);
	if (flags & DOSINFO_ATTRIB) {
		d->has_attrib = true;
		d->attrib = get_le32(arm + 4);
	}
	if (flags & DOSINFO_CREATE_TIME) {
		d->has_create_time = true;
		d->create_time = get_le64(arm + need - 8);
	}
	return 0;

hex_only:
	if (!have_hex)
		return -EINVAL;
	d->has_attrib = true;
	d->attrib = hex_attr;
	return 0;
}

size_t vfs_dosattr_encode(const struct vfs_dosattr *d,
			  uint8_t out[VFS_DOSATTR_MAX])
{
	uint32_t flags = 0;

	if (d->has_attrib)
		flags |= DOSINFO_ATTRIB;
	if (d->has_create_time)
		flags |= DOSINFO_CREATE_TIME;
	memset(out, 0, VFS_DOSATTR_MAX);
	/* "" and its pad byte, then version 5 and level 5, then pad */
	put_le16(out + 2, 5);
	put_le16(out + 4, 5);
	put_le32(out + 8, flags);
	put_le32(out + 12, d->has_attrib ? d->attrib : 0);
	put_le64(out + 16, d->has_create_time ? d->create_time : 0);
	return VFS_DOSATTR_MAX;
}

/* The xattr's value, read with the server's credentials. */
static int dosattr_read(struct vfs_obj *o, struct vfs_dosattr *d)
{
	struct vfs_root_save rs;
	uint8_t buf[64];
	ssize_t n;

	memset(d, 0, sizeof(*d));
	vfs_root_enter(&rs);
	n = vfs_ops(o->ex)->xattr_get(o, DOSATTRIB_NAME, buf, sizeof(buf));
	vfs_root_leave(&rs);
	if (n < 0) {
		/* none kept, none possible here, or no value of ours */
		if (n == -ENODATA || n == -ENOTSUP || n == -EPERM ||
		    n == -ERANGE)
			return 0;
		return (int)n;
	}
	/* What cannot be parsed is as if nothing were kept. */
	if (vfs_dosattr_decode(buf, (size_t)n, d))
		memset(d, 0, sizeof(*d));
	return 0;
}

int vfs_dosattr_get(struct vfs_obj *o, const struct vfs_attr *a,
		    struct vfs_dosattr *d)
{
	uint32_t gen;
	int err;

	memset(d, 0, sizeof(*d));
	if (o->type != VFS_REG && o->type != VFS_DIR)
		return 0;
	pthread_mutex_lock(&o->dos_mu);
	if (o->dos_valid && vfs_ts_equal(&o->dos_ctime, &a->ctime)) {
		*d = o->dos;
		pthread_mutex_unlock(&o->dos_mu);
		return 0;
	}
	gen = o->dos_gen;
	pthread_mutex_unlock(&o->dos_mu);
	err = dosattr_read(o, d);
	if (err)
		return err;
	/* Cached unless one of our own changes came in between (another's
	 * would move the ctime past @a's). */
	pthread_mutex_lock(&o->dos_mu);
	if (o->dos_gen == gen) {
		o->dos = *d;
		o->dos_ctime = a->ctime;
		o->dos_valid = true;
	}
	pthread_mutex_unlock(&o->dos_mu);
	return 0;
}

int vfs_dosattr_set(struct vfs_obj *o, const struct vfs_dosattr *d)
{
	uint8_t buf[VFS_DOSATTR_MAX];
	struct vfs_root_save rs;
	size_t n;
	int ret;

	if (o->type != VFS_REG && o->type != VFS_DIR)
		return -EOPNOTSUPP;
	n = vfs_dosattr_encode(d, buf);
	pthread_mutex_lock(&o->dos_mu);
	o->dos_valid = false;
	o->dos_gen++;
	o->xnames_valid = false; /* a name may be added (xattr.c) */
	o->xgen++;
	pthread_mutex_unlock(&o->dos_mu);
	vfs_root_enter(&rs);
	ret = vfs_ops(o->ex)->xattr_set(o, DOSATTRIB_NAME, buf, n,
					VFS_XATTR_ANY);
	vfs_root_leave(&rs);
	return ret;
}
