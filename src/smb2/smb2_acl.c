// SPDX-License-Identifier: MIT
/*
 * Stored NT security descriptors (smb2_acl.h). A descriptor is handled as
 * its four parts (owner SID, group SID, DACL, control bits) found through
 * the self-relative header; every SID and ACL is bounds-checked again
 * here although sd_dec_SECURITY_DESCRIPTOR() validated what a client
 * sent, since a kept value is read back from disk.
 *
 * Kept value: "NASDSD1" and a NUL, the uid, gid and mode (little-endian
 * u32 each) the file had when it was kept, then the descriptor
 * (header, owner, group, DACL).
 */
#include "smb2/smb2_acl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "smb2/sd.h"
#include "smb2/smb2_access.h"
#include "smb2/smb2_wire.h"
#include "vfs/vfs.h"

#define MAGIC	  "NASDSD1"
#define MAGIC_LEN 8
#define KEPT_HDR  (MAGIC_LEN + 12)
#define SD_HDR	  20
#define SID_MAX	  (8 + 4 * 15)
#define ACL_FIRST_READ 1024 /* room for a descriptor of a dozen ACEs */

#define DACL_BITS                                                              \
	(SE_DACL_PRESENT | SE_DACL_DEFAULTED | SE_DACL_AUTO_INHERIT_REQ |     \
	 SE_DACL_AUTO_INHERITED | SE_DACL_PROTECTED)

/* MS-DTYP 2.4.4.1 */
#define ACE_ALLOWED	      0x00
#define ACE_DENIED	      0x01
#define ACE_OBJECT_INHERIT    0x01
#define ACE_CONTAINER_INHERIT 0x02
#define ACE_NO_PROPAGATE      0x04
#define ACE_INHERIT_ONLY      0x08
#define ACE_INHERITED	      0x10

struct sd_parts {
	uint16_t control;
	const uint8_t *owner, *group, *dacl; /* NULL: absent (NULL DACL) */
	size_t owner_len, group_len, dacl_len;
};

/* The length of the SID at @p (@avail bytes there), 0 if it is not one. */
static size_t sid_len(const uint8_t *p, size_t avail)
{
	size_t n;

	if (avail < 8 || p[0] != 1 || p[1] > 15)
		return 0;
	n = 8 + 4 * (size_t)p[1];
	return n <= avail ? n : 0;
}

/* The length of the ACL at @p, 0 if its header does not hold. */
static size_t acl_len(const uint8_t *p, size_t avail)
{
	size_t n;

	if (avail < 8)
		return 0;
	n = get_le16(p + 2);
	return n >= 8 && n <= avail ? n : 0;
}

static bool split(const uint8_t *sd, size_t len, struct sd_parts *p)
{
	uint32_t off;

	memset(p, 0, sizeof(*p));
	if (len < SD_HDR || sd[0] != 1)
		return false;
	p->control = get_le16(sd + 2);
	off = get_le32(sd + 4);
	if (off) {
		if (off < SD_HDR || off >= len ||
		    !(p->owner_len = sid_len(sd + off, len - off)))
			return false;
		p->owner = sd + off;
	}
	off = get_le32(sd + 8);
	if (off) {
		if (off < SD_HDR || off >= len ||
		    !(p->group_len = sid_len(sd + off, len - off)))
			return false;
		p->group = sd + off;
	}
	off = get_le32(sd + 16);
	if ((p->control & SE_DACL_PRESENT) && off) {
		if (off < SD_HDR || off >= len ||
		    !(p->dacl_len = acl_len(sd + off, len - off)))
			return false;
		p->dacl = sd + off;
	}
	return true;
}

/* The parts @secinfo asks, self-relative, into @out (@max bytes, may be
 * NULL to size it); the size. */
static size_t join(const struct sd_parts *p, uint32_t secinfo, uint8_t *out,
		   size_t max)
{
	bool o = (secinfo & OWNER_SECURITY_INFORMATION) && p->owner;
	bool g = (secinfo & GROUP_SECURITY_INFORMATION) && p->group;
	bool d = secinfo & DACL_SECURITY_INFORMATION;
	size_t n = SD_HDR, at;
	uint16_t control = SE_SELF_RELATIVE;

	n += (o ? p->owner_len : 0) + (g ? p->group_len : 0);
	if (d) {
		control |= p->control & DACL_BITS;
		if (p->dacl)
			n += p->dacl_len;
	}
	if (!out || n > max)
		return n;
	memset(out, 0, SD_HDR);
	out[0] = 1;
	put_le16(out + 2, control);
	at = SD_HDR;
	if (o) {
		put_le32(out + 4, (uint32_t)at);
		memcpy(out + at, p->owner, p->owner_len);
		at += p->owner_len;
	}
	if (g) {
		put_le32(out + 8, (uint32_t)at);
		memcpy(out + at, p->group, p->group_len);
		at += p->group_len;
	}
	if (d && p->dacl) {
		put_le32(out + 16, (uint32_t)at);
		memcpy(out + at, p->dacl, p->dacl_len);
		at += p->dacl_len;
	}
	return at;
}

/* S-1-22-@kind-@id: Samba's Unix user (1) and group (2) SIDs. */
static size_t unix_sid(uint8_t *out, uint32_t kind, uint32_t id)
{
	static const uint8_t head[8] = { 1, 2, 0, 0, 0, 0, 0, 22 };

	memcpy(out, head, 8);
	put_le32(out + 8, kind);
	put_le32(out + 12, id);
	return 16;
}

/* S-1-@auth-@sub (one sub-authority). */
static size_t well_known_sid(uint8_t *out, uint8_t auth, uint32_t sub)
{
	static const uint8_t head[8] = { 1, 1, 0, 0, 0, 0, 0, 0 };

	memcpy(out, head, 8);
	out[7] = auth;
	put_le32(out + 8, sub);
	return 12;
}

static bool sid_same(const uint8_t *a, size_t alen, const uint8_t *b,
		     size_t blen)
{
	return alen == blen && memcmp(a, b, alen) == 0;
}

int smb2_acl_get(struct vfs_obj *obj, const struct vfs_attr *a,
		 struct smb2_acl *out)
{
	struct sd_parts p;
	uint8_t *buf;
	ssize_t n;

	out->sd = NULL;
	out->len = 0;
	if (a->type != VFS_REG && a->type != VFS_DIR)
		return -ENODATA;
	/* One read into room for a usual descriptor; a larger one is read
	 * again at its size. */
	buf = malloc(ACL_FIRST_READ);
	if (!buf)
		return -ENOMEM;
	n = vfs_xattr_get_slot(obj, a, VFS_XSLOT_NTACL, SMB2_ACL_XATTR, buf,
			       ACL_FIRST_READ);
	if (n == -ERANGE) {
		n = vfs_xattr_get(obj, SMB2_ACL_XATTR, NULL, 0);
		if (n > KEPT_HDR && n <= KEPT_HDR + SMB2_ACL_MAX) {
			uint8_t *big = realloc(buf, (size_t)n);

			if (!big) {
				free(buf);
				return -ENOMEM;
			}
			buf = big;
			n = vfs_xattr_get(obj, SMB2_ACL_XATTR, buf, (size_t)n);
		} else if (n >= 0) {
			n = -ENODATA;
		}
	}
	if (n < 0 && (n == -ENOTSUP || n == -EPERM || n == -EACCES))
		n = -ENODATA;
	if (n <= KEPT_HDR || memcmp(buf, MAGIC, MAGIC_LEN) != 0 ||
	    get_le32(buf + MAGIC_LEN) != a->uid ||
	    get_le32(buf + MAGIC_LEN + 4) != a->gid ||
	    get_le32(buf + MAGIC_LEN + 8) != (a->mode & 07777) ||
	    !split(buf + KEPT_HDR, (size_t)n - KEPT_HDR, &p)) {
		free(buf);
		return n < 0 && n != -ENODATA && n != -ERANGE ? (int)n
							      : -ENODATA;
	}
	memmove(buf, buf + KEPT_HDR, (size_t)n - KEPT_HDR);
	out->sd = buf;
	out->len = (size_t)n - KEPT_HDR;
	return 0;
}

/* Keep @p (owner, group, DACL) for @obj with @a's uid, gid and mode. */
static int keep(struct vfs_obj *obj, const struct vfs_attr *a,
		const struct sd_parts *p)
{
	const uint32_t all = OWNER_SECURITY_INFORMATION |
			     GROUP_SECURITY_INFORMATION |
			     DACL_SECURITY_INFORMATION;
	size_t n = join(p, all, NULL, 0);
	uint8_t *buf;
	int err;

	if (n > SMB2_ACL_MAX)
		return -E2BIG;
	buf = malloc(KEPT_HDR + n);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, MAGIC, MAGIC_LEN);
	put_le32(buf + MAGIC_LEN, a->uid);
	put_le32(buf + MAGIC_LEN + 4, a->gid);
	put_le32(buf + MAGIC_LEN + 8, a->mode & 07777);
	join(p, all, buf + KEPT_HDR, n);
	err = vfs_xattr_set(obj, SMB2_ACL_XATTR, buf, KEPT_HDR + n,
			    VFS_XATTR_ANY);
	free(buf);
	return err;
}

/* The first SID present of @set, @kept and @own, its length in *@len. */
static const uint8_t *pick_sid(const uint8_t *set, size_t set_len,
			       const uint8_t *kept, size_t kept_len,
			       const uint8_t *own, size_t own_len, size_t *len)
{
	if (set) {
		*len = set_len;
		return set;
	}
	if (kept) {
		*len = kept_len;
		return kept;
	}
	*len = own_len;
	return own;
}

int smb2_acl_set(struct vfs_obj *obj, const struct vfs_attr *a,
		 uint32_t secinfo, const struct smb2_buf *in)
{
	uint8_t osid[16], gsid[16];
	struct sd_parts np, kp, p;
	struct smb2_acl kept;
	size_t osid_len, gsid_len;
	bool have_kept;
	int err;

	if (!split(in->base + in->pos, in->len - in->pos, &np))
		return -EINVAL;
	/* Setting the DACL of a descriptor without SE_DACL_PRESENT sets
	 * "no DACL", which is a NULL DACL (Windows answers it as one). */
	if ((secinfo & DACL_SECURITY_INFORMATION) &&
	    !(np.control & SE_DACL_PRESENT)) {
		np.control |= SE_DACL_PRESENT;
		np.dacl = NULL;
		np.dacl_len = 0;
	}
	memset(&kp, 0, sizeof(kp));
	err = smb2_acl_get(obj, a, &kept);
	if (err && err != -ENODATA)
		return err;
	have_kept = !err && split(kept.sd, kept.len, &kp);
	if (!have_kept)
		memset(&kp, 0, sizeof(kp));
	osid_len = unix_sid(osid, 1, a->uid);
	gsid_len = unix_sid(gsid, 2, a->gid);
	if (!(secinfo & DACL_SECURITY_INFORMATION) && !have_kept &&
	    (!(secinfo & OWNER_SECURITY_INFORMATION) || !np.owner ||
	     sid_same(np.owner, np.owner_len, osid, osid_len)) &&
	    (!(secinfo & GROUP_SECURITY_INFORMATION) || !np.group ||
	     sid_same(np.group, np.group_len, gsid, gsid_len))) {
		free(kept.sd);
		return 0; /* the owner and group are the file's own */
	}
	memset(&p, 0, sizeof(p));
	/* The owner and group: as set, else as kept, else the file's. */
	p.owner = pick_sid((secinfo & OWNER_SECURITY_INFORMATION) ? np.owner
								  : NULL,
			   np.owner_len, kp.owner, kp.owner_len, osid, osid_len,
			   &p.owner_len);
	p.group = pick_sid((secinfo & GROUP_SECURITY_INFORMATION) ? np.group
								  : NULL,
			   np.group_len, kp.group, kp.group_len, gsid, gsid_len,
			   &p.group_len);
	if (secinfo & DACL_SECURITY_INFORMATION) {
		p.control = np.control & DACL_BITS;
		p.dacl = np.dacl;
		p.dacl_len = np.dacl_len;
	} else {
		p.control = kp.control & DACL_BITS;
		p.dacl = kp.dacl;
		p.dacl_len = kp.dacl_len;
	}
	err = keep(obj, a, &p);
	free(kept.sd);
	return err;
}

enum fscc_status smb2_acl_encode(const struct smb2_acl *acl, uint32_t secinfo,
				 struct smb2_buf *out, size_t *needed)
{
	struct sd_parts p;
	size_t n;

	if (!split(acl->sd, acl->len, &p))
		return FSCC_INVALID_SECURITY_DESCR;
	n = join(&p, secinfo, NULL, 0);
	*needed = n;
	if (n > sb_remaining(out))
		return FSCC_BUFFER_TOO_SMALL;
	join(&p, secinfo, out->base + out->pos, n);
	out->pos += n;
	return FSCC_OK;
}

/* The SIDs of @cred (each at most 16 bytes), into @sids; the count. */
static size_t token(const struct vfs_cred *cred, uint8_t sids[][16],
		    size_t max)
{
	size_t n = 0;
	uint32_t i;

	unix_sid(sids[n++], 1, cred->uid);
	unix_sid(sids[n++], 2, cred->gid);
	well_known_sid(sids[n++], 1, 0);  /* Everyone */
	well_known_sid(sids[n++], 5, 11); /* Authenticated Users */
	well_known_sid(sids[n++], 5, 2);  /* Network */
	for (i = 0; i < cred->ngroups && n < max; i++)
		if (cred->groups[i] != cred->gid)
			unix_sid(sids[n++], 2, cred->groups[i]);
	return n;
}

static bool sid_in(const uint8_t *sid, size_t len, uint8_t sids[][16],
		   size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (len == sid_len(sids[i], 16) &&
		    memcmp(sid, sids[i], len) == 0)
			return true;
	return false;
}

uint32_t smb2_acl_rights(const struct smb2_acl *acl, const struct vfs_cred *cred)
{
	uint8_t sids[5 + VFS_NGROUPS_MAX][16];
	uint32_t granted = 0, denied = 0, mask, count, i;
	const uint8_t *ace, *end;
	struct sd_parts p;
	size_t nsids, size, slen;
	bool owner;

	if (!split(acl->sd, acl->len, &p))
		return 0;
	nsids = token(cred, sids, sizeof(sids) / sizeof(sids[0]));
	owner = p.owner && sid_len(sids[0], 16) == p.owner_len &&
		memcmp(p.owner, sids[0], p.owner_len) == 0;
	/* MS-DTYP 2.5.3.2: no DACL (or a NULL one) grants everything. */
	if (!(p.control & SE_DACL_PRESENT) || !p.dacl)
		return FILE_ALL_ACCESS | ACCESS_SYSTEM_SECURITY;
	if (owner)
		granted = READ_CONTROL | WRITE_DAC;
	count = get_le16(p.dacl + 4);
	ace = p.dacl + 8;
	end = p.dacl + p.dacl_len;
	for (i = 0; i < count && end - ace >= 8; i++, ace += size) {
		size = get_le16(ace + 2);
		if (size < 8 || size > (size_t)(end - ace))
			break;
		if (ace[1] & ACE_INHERIT_ONLY)
			continue;
		if (ace[0] != ACE_ALLOWED && ace[0] != ACE_DENIED)
			continue;
		slen = sid_len(ace + 8, size - 8);
		if (!slen || !sid_in(ace + 8, slen, sids, nsids))
			continue;
		mask = smb2_access_map_generic(get_le32(ace + 4));
		if (ace[0] == ACE_ALLOWED)
			granted |= mask & ~denied;
		else
			denied |= mask & ~granted;
	}
	return granted;
}

/* CREATOR OWNER (S-1-3-0) and CREATOR GROUP (S-1-3-1). */
static int creator_sid(const uint8_t *sid, size_t len)
{
	static const uint8_t head[8] = { 1, 1, 0, 0, 0, 0, 0, 3 };

	if (len != 12 || memcmp(sid, head, 8) != 0 || get_le32(sid + 8) > 1)
		return -1;
	return (int)get_le32(sid + 8);
}

/* Append one ACE to the DACL being built in @b (@at: its end). */
static bool ace_put(uint8_t *b, size_t *at, size_t max, uint8_t type,
		    uint8_t flags, uint32_t mask, const uint8_t *sid,
		    size_t slen)
{
	size_t size = 8 + slen;

	if (*at + size > max)
		return false;
	b[*at] = type;
	b[*at + 1] = flags;
	put_le16(b + *at + 2, (uint16_t)size);
	put_le32(b + *at + 4, mask);
	memcpy(b + *at + 8, sid, slen);
	*at += size;
	return true;
}

int smb2_acl_inherit(struct vfs_obj *parent, struct vfs_obj *child,
		     const struct vfs_attr *a, bool is_dir,
		     const struct vfs_cred *cred)
{
	uint8_t osid[16], gsid[16], *dacl;
	const uint8_t *ace, *end, *sid;
	struct vfs_attr pa;
	struct smb2_acl kept;
	struct sd_parts pp, p;
	uint32_t count, i, n = 0, mask;
	size_t at = 8, size, slen, osl, gsl;
	uint8_t flags, eff;
	int err, who;

	err = vfs_getattr(parent, &pa);
	if (err)
		return err;
	err = smb2_acl_get(parent, &pa, &kept);
	if (err)
		return err;
	if (!split(kept.sd, kept.len, &pp) || !pp.dacl) {
		free(kept.sd);
		return -ENODATA;
	}
	osl = unix_sid(osid, 1, cred->uid);
	gsl = unix_sid(gsid, 2, cred->gid);
	/* At most twice the parent's ACEs (an effective one and an
	 * inherit-only one for each), each no longer than it was. */
	dacl = malloc(8 + 2 * pp.dacl_len);
	if (!dacl) {
		free(kept.sd);
		return -ENOMEM;
	}
	count = get_le16(pp.dacl + 4);
	ace = pp.dacl + 8;
	end = pp.dacl + pp.dacl_len;
	for (i = 0; i < count && end - ace >= 8; i++, ace += size) {
		size = get_le16(ace + 2);
		if (size < 8 || size > (size_t)(end - ace))
			break;
		flags = ace[1];
		if (ace[0] != ACE_ALLOWED && ace[0] != ACE_DENIED)
			continue;
		if (!(flags & (is_dir ? ACE_CONTAINER_INHERIT
				      : ACE_OBJECT_INHERIT)) &&
		    !(is_dir && (flags & ACE_OBJECT_INHERIT)))
			continue;
		sid = ace + 8;
		slen = sid_len(sid, size - 8);
		if (!slen)
			continue;
		mask = get_le32(ace + 4);
		if (!is_dir) {
			/* A file: the ACE applies to it, and stops. */
			who = creator_sid(sid, slen);
			if (who >= 0) {
				sid = who ? gsid : osid;
				slen = who ? gsl : osl;
			}
			ace_put(dacl, &at, 8 + 2 * pp.dacl_len, ace[0],
				ACE_INHERITED, smb2_access_map_generic(mask),
				sid, slen);
			n++;
			continue;
		}
		/* A directory: an object-inherit-only ACE passes on to its
		 * files without applying to it; a container-inherit one
		 * applies, and passes on unless NO_PROPAGATE. */
		if (!(flags & ACE_CONTAINER_INHERIT)) {
			if (flags & ACE_NO_PROPAGATE)
				continue;
			ace_put(dacl, &at, 8 + 2 * pp.dacl_len, ace[0],
				(uint8_t)(ACE_OBJECT_INHERIT |
					  ACE_INHERIT_ONLY | ACE_INHERITED),
				mask, sid, slen);
			n++;
			continue;
		}
		who = creator_sid(sid, slen);
		eff = flags & ACE_NO_PROPAGATE
			      ? ACE_INHERITED
			      : (uint8_t)((flags & (ACE_OBJECT_INHERIT |
						    ACE_CONTAINER_INHERIT)) |
					  ACE_INHERITED);
		if (who >= 0) {
			/* applies as the new owner (group); passes on as
			 * the creator SID itself */
			ace_put(dacl, &at, 8 + 2 * pp.dacl_len, ace[0],
				ACE_INHERITED, smb2_access_map_generic(mask),
				who ? gsid : osid, who ? gsl : osl);
			n++;
			if (!(flags & ACE_NO_PROPAGATE)) {
				ace_put(dacl, &at, 8 + 2 * pp.dacl_len,
					ace[0],
					(uint8_t)(eff | ACE_INHERIT_ONLY),
					mask, sid, slen);
				n++;
			}
			continue;
		}
		ace_put(dacl, &at, 8 + 2 * pp.dacl_len, ace[0], eff, mask, sid,
			slen);
		n++;
	}
	free(kept.sd);
	if (!n || at > 0xFFFF) {
		free(dacl);
		return n ? -E2BIG : -ENODATA;
	}
	dacl[0] = 2; /* ACL_REVISION */
	dacl[1] = 0;
	put_le16(dacl + 2, (uint16_t)at);
	put_le16(dacl + 4, (uint16_t)n);
	put_le16(dacl + 6, 0);
	memset(&p, 0, sizeof(p));
	p.control = SE_DACL_PRESENT | SE_DACL_AUTO_INHERITED;
	p.owner = osid;
	p.owner_len = osl;
	p.group = gsid;
	p.group_len = gsl;
	p.dacl = dacl;
	p.dacl_len = at;
	err = keep(child, a, &p);
	free(dacl);
	return err;
}
