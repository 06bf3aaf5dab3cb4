// SPDX-License-Identifier: MIT
/*
 * Self-relative security descriptors from and to owner, group and mode
 * (sd.h). The encoder lays out a fixed shape whose size is known before a
 * byte is written; the decoder reads every SID and ACL through a cursor
 * over exactly the bytes its offset and length allow.
 */
#include "smb2/sd.h"

/* MS-DTYP 2.4.3 access mask bits (files and directories). */
#define FILE_READ_DATA	      0x00000001u
#define FILE_WRITE_DATA	      0x00000002u
#define FILE_APPEND_DATA      0x00000004u
#define FILE_EXECUTE	      0x00000020u
#define FILE_DELETE_CHILD     0x00000040u
#define FILE_READ_ATTRIBUTES  0x00000080u
#define FILE_WRITE_ATTRIBUTES 0x00000100u
#define READ_CONTROL	      0x00020000u
#define WRITE_DAC	      0x00040000u
#define GENERIC_ALL	      0x10000000u
#define GENERIC_EXECUTE	      0x20000000u
#define GENERIC_WRITE	      0x40000000u
#define GENERIC_READ	      0x80000000u
#define FILE_ALL_ACCESS	      0x001F01FFu
#define FILE_GENERIC_READ     0x00120089u
#define FILE_GENERIC_WRITE    0x00120116u
#define FILE_GENERIC_EXECUTE  0x001200A0u

/* MS-DTYP 2.4.4.1 AceType, AceFlags. */
#define ACCESS_ALLOWED_ACE_TYPE 0x00
#define ACCESS_DENIED_ACE_TYPE	0x01
#define INHERIT_ONLY_ACE	0x08

#define SD_HDR		 20
#define ACL_HDR		 8
#define ACE_HDR		 8  /* AceType, AceFlags, AceSize, Mask */
#define SID_UNIX_LEN	 16 /* S-1-22-k-id: 8 + 2 sub-authorities */
#define SID_EVERYONE_LEN 12 /* S-1-1-0 */
#define SID_MAX_SUB	 15

/* The three permission classes, and their rwx bits r=4 w=2 x=1. */
enum { CLS_U, CLS_G, CLS_O, NCLS };

/* ---- Encoding ---- */

/* One ACE of the synthesized DACL: a Unix SID (kind 1 user, 2 group) or
 * Everyone (kind 0). */
struct ace_spec {
	uint8_t type;
	uint32_t mask;
	uint32_t kind;
	uint32_t id;
};

/* Samba's map_canon_ace_perms() with "acl map full control = yes". */
static uint32_t allow_mask(unsigned int rwx, bool dir)
{
	uint32_t m = 0;

	if (rwx == 7)
		return FILE_ALL_ACCESS;
	if (rwx & 4)
		m |= FILE_GENERIC_READ;
	if (rwx & 2)
		m |= FILE_GENERIC_WRITE | (dir ? FILE_DELETE_CHILD : 0);
	if (rwx & 1)
		m |= FILE_GENERIC_EXECUTE;
	return m;
}

/* The data bits alone, for a deny ACE that must take no more than rwx. */
static uint32_t deny_mask(unsigned int rwx)
{
	return (rwx & 4 ? FILE_READ_DATA : 0) |
	       (rwx & 2 ? FILE_WRITE_DATA | FILE_APPEND_DATA : 0) |
	       (rwx & 1 ? FILE_EXECUTE : 0);
}

/* The DACL of @u into @a (at most 5 ACEs); the count. */
static size_t dacl_aces(const struct sd_unix *u, struct ace_spec *a)
{
	unsigned int o = (u->mode >> 6) & 7, g = (u->mode >> 3) & 7,
		     e = u->mode & 7;
	size_t n = 0;

	/* Windows grants Everyone's ACE to everyone: take back from the
	 * owner and the group what the mode gives only to others. */
	if (e & ~o)
		a[n++] = (struct ace_spec){ACCESS_DENIED_ACE_TYPE,
					   deny_mask(e & ~o), 1, u->uid};
	if (e & ~g)
		a[n++] = (struct ace_spec){ACCESS_DENIED_ACE_TYPE,
					   deny_mask(e & ~g), 2, u->gid};
	a[n++] = (struct ace_spec){ACCESS_ALLOWED_ACE_TYPE,
				   allow_mask(o, u->is_dir) | READ_CONTROL |
					   WRITE_DAC | FILE_READ_ATTRIBUTES |
					   FILE_WRITE_ATTRIBUTES,
				   1, u->uid};
	a[n++] = (struct ace_spec){ACCESS_ALLOWED_ACE_TYPE,
				   allow_mask(g, u->is_dir), 2, u->gid};
	a[n++] = (struct ace_spec){ACCESS_ALLOWED_ACE_TYPE,
				   allow_mask(e, u->is_dir), 0, 0};
	return n;
}

static size_t sid_len(uint32_t kind)
{
	return kind ? SID_UNIX_LEN : SID_EVERYONE_LEN;
}

static size_t dacl_size(const struct ace_spec *a, size_t n)
{
	size_t s = ACL_HDR, i;

	for (i = 0; i < n; i++)
		s += ACE_HDR + sid_len(a[i].kind);
	return s;
}

/* MS-DTYP 2.4.2.2 SID: Revision, SubAuthorityCount, the 48-bit
 * IdentifierAuthority big-endian, the sub-authorities little-endian. */
static void put_sid(struct smb2_buf *b, uint32_t kind, uint32_t id)
{
	static const uint8_t unix_auth[6] = {0, 0, 0, 0, 0, 22};
	static const uint8_t world_auth[6] = {0, 0, 0, 0, 0, 1};

	sb_put_u8(b, 1);
	if (kind) {
		sb_put_u8(b, 2);
		sb_put_bytes(b, unix_auth, 6);
		sb_put_u32(b, kind);
		sb_put_u32(b, id);
	} else {
		sb_put_u8(b, 1);
		sb_put_bytes(b, world_auth, 6);
		sb_put_u32(b, 0); /* SECURITY_WORLD_RID */
	}
}

size_t sd_size(const struct sd_unix *u, uint32_t secinfo)
{
	struct ace_spec a[5];
	size_t s = SD_HDR;

	if (secinfo & OWNER_SECURITY_INFORMATION)
		s += SID_UNIX_LEN;
	if (secinfo & GROUP_SECURITY_INFORMATION)
		s += SID_UNIX_LEN;
	if (secinfo & DACL_SECURITY_INFORMATION)
		s += dacl_size(a, dacl_aces(u, a));
	return s;
}

enum fscc_status sd_enc_SECURITY_DESCRIPTOR(struct smb2_buf *out,
					    const struct sd_unix *u,
					    uint32_t secinfo, size_t *needed)
{
	uint32_t owner = 0, group = 0, dacl = 0, off = SD_HDR;
	uint16_t control = SE_SELF_RELATIVE;
	struct ace_spec a[5];
	size_t n = 0, i;

	*needed = sd_size(u, secinfo);
	if (!sb_ok(out) || sb_remaining(out) < *needed)
		return FSCC_BUFFER_TOO_SMALL;
	if (secinfo & OWNER_SECURITY_INFORMATION) {
		owner = off;
		off += SID_UNIX_LEN;
	}
	if (secinfo & GROUP_SECURITY_INFORMATION) {
		group = off;
		off += SID_UNIX_LEN;
	}
	if (secinfo & DACL_SECURITY_INFORMATION) {
		n = dacl_aces(u, a);
		dacl = off;
		control |= SE_DACL_PRESENT;
	}
	sb_put_u8(out, 1); /* Revision */
	sb_put_u8(out, 0); /* Sbz1 */
	sb_put_u16(out, control);
	sb_put_u32(out, owner);
	sb_put_u32(out, group);
	sb_put_u32(out, 0); /* OffsetSacl */
	sb_put_u32(out, dacl);
	if (owner)
		put_sid(out, 1, u->uid);
	if (group)
		put_sid(out, 2, u->gid);
	if (dacl) {
		sb_put_u8(out, 2); /* AclRevision: ACL_REVISION */
		sb_put_u8(out, 0);
		sb_put_u16(out, (uint16_t)dacl_size(a, n));
		sb_put_u16(out, (uint16_t)n);
		sb_put_u16(out, 0);
		for (i = 0; i < n; i++) {
			sb_put_u8(out, a[i].type);
			sb_put_u8(out, 0); /* AceFlags: not inheritable */
			sb_put_u16(out,
				   (uint16_t)(ACE_HDR + sid_len(a[i].kind)));
			sb_put_u32(out, a[i].mask);
			put_sid(out, a[i].kind, a[i].id);
		}
	}
	return FSCC_OK;
}

/* ---- Decoding ---- */

struct sid {
	uint8_t n;
	uint8_t auth[6];
	uint32_t sub[SID_MAX_SUB];
};

/* A SID at @c's position, within @c. */
static bool get_sid(struct smb2_buf *c, struct sid *s)
{
	uint8_t rev;
	size_t i;

	if (!sb_get_u8(c, &rev) || !sb_get_u8(c, &s->n) || rev != 1 ||
	    s->n > SID_MAX_SUB || !sb_get_bytes(c, s->auth, 6))
		return false;
	for (i = 0; i < s->n; i++) {
		if (!sb_get_u32(c, &s->sub[i]))
			return false;
	}
	return true;
}

static bool sid_eq(const struct sid *a, const struct sid *b)
{
	return a->n == b->n && !memcmp(a->auth, b->auth, 6) &&
	       !memcmp(a->sub, b->sub, a->n * sizeof(a->sub[0]));
}

static void sid_set(struct sid *s, uint32_t kind, uint32_t id)
{
	memset(s, 0, sizeof(*s));
	s->auth[5] = kind ? 22 : 1;
	if (kind) {
		s->n = 2;
		s->sub[0] = kind;
		s->sub[1] = id;
	} else {
		s->n = 1;
		s->sub[0] = 0;
	}
}

/* Whether @s is S-1-22-@kind-<id>, and the id. */
static bool sid_unix(const struct sid *s, uint32_t kind, uint32_t *id)
{
	struct sid t;

	sid_set(&t, kind, s->n == 2 ? s->sub[1] : 0);
	if (!sid_eq(s, &t))
		return false;
	*id = s->sub[1];
	return true;
}

/* The SID at @off of the descriptor @sd (past the header, inside it). */
static bool sd_sid_at(const struct smb2_buf *sd, uint32_t off, struct sid *s)
{
	struct smb2_buf c;

	if (off < SD_HDR || !sb_range(sd, off, sd->len - off, &c))
		return false;
	return get_sid(&c, s);
}

/* Rights bits r=4 w=2 x=1 of an access mask. */
static unsigned int mask_rwx(uint32_t m)
{
	unsigned int r = 0;

	if (m & GENERIC_ALL)
		return 7;
	if (m & (FILE_READ_DATA | GENERIC_READ))
		r |= 4;
	if (m & (FILE_WRITE_DATA | FILE_APPEND_DATA | GENERIC_WRITE))
		r |= 2;
	if (m & (FILE_EXECUTE | GENERIC_EXECUTE))
		r |= 1;
	return r;
}

/* What the DACL walk accumulates. */
struct dacl_eval {
	struct sid owner, group, world, authenticated;
	unsigned int granted[NCLS], denied[NCLS];
	uint32_t lossy;
};

static void eval_ace(struct dacl_eval *e, uint8_t type, uint32_t mask,
		     const struct sid *s)
{
	unsigned int cls = 0, bits = mask_rwx(mask), i;

	if (sid_eq(s, &e->owner))
		cls |= 1u << CLS_U;
	if (sid_eq(s, &e->group))
		cls |= 1u << CLS_G;
	if (sid_eq(s, &e->world))
		cls |= 1u << CLS_U | 1u << CLS_G | 1u << CLS_O;
	/* Authenticated Users: the owner and the group are; "other" also
	 * holds anonymous NFS callers and guests, which are not (so not
	 * other's bits, and the mapping says it lost something). */
	if (sid_eq(s, &e->authenticated)) {
		cls |= 1u << CLS_U | 1u << CLS_G;
		e->lossy |= SD_LOSSY_SID;
	}
	if (!cls) {
		e->lossy |= SD_LOSSY_SID;
		return;
	}
	for (i = 0; i < NCLS; i++) {
		if (!(cls & (1u << i)))
			continue;
		if (type == ACCESS_ALLOWED_ACE_TYPE)
			e->granted[i] |= bits & ~e->denied[i];
		else
			e->denied[i] |= bits & ~e->granted[i];
	}
}

/* MS-DTYP 2.4.4.1: the ACE types with Mask then SID right after the header
 * (allowed, denied, audit, alarm, their callback forms, label, resource
 * attribute, scoped policy), and the object types, whose SID follows
 * Flags and up to two GUIDs. */
static bool ace_plain(uint8_t t)
{
	return t <= 0x03 || t == 0x09 || t == 0x0A || t == 0x0D || t == 0x0E ||
	       (t >= 0x11 && t <= 0x13);
}

static bool ace_object(uint8_t t)
{
	return (t >= 0x05 && t <= 0x08) || t == 0x0B || t == 0x0C ||
	       t == 0x0F || t == 0x10;
}

/*
 * Check the ACL at @off of @sd and, when @e is not NULL (the DACL),
 * evaluate it. False when malformed.
 */
static bool parse_acl(const struct smb2_buf *sd, uint32_t off,
		      struct dacl_eval *e)
{
	uint16_t size, count, acesize, i;
	struct smb2_buf c, acl, ace;
	uint8_t rev, type, flags;
	uint32_t mask, oflags;
	size_t pos = ACL_HDR;
	struct sid s;

	if (off < SD_HDR || !sb_range(sd, off, sd->len - off, &c))
		return false;
	if (!sb_get_u8(&c, &rev) || !sb_skip(&c, 1) || !sb_get_u16(&c, &size) ||
	    !sb_get_u16(&c, &count) || !sb_skip(&c, 2))
		return false;
	if ((rev != 2 && rev != 4) || size < ACL_HDR ||
	    !sb_range(sd, off, size, &acl))
		return false;
	for (i = 0; i < count; i++) {
		/* The ACE header, then a cursor over exactly AceSize. */
		if (!sb_range(&acl, pos, 4, &ace))
			return false;
		sb_get_u8(&ace, &type);
		sb_get_u8(&ace, &flags);
		sb_get_u16(&ace, &acesize);
		if (acesize < 4 || (acesize & 3) ||
		    !sb_range(&acl, pos, acesize, &ace))
			return false;
		pos += acesize;
		sb_skip(&ace, 4);
		if (ace_plain(type)) {
			if (!sb_get_u32(&ace, &mask) || !get_sid(&ace, &s))
				return false;
		} else if (ace_object(type)) {
			if (!sb_get_u32(&ace, &mask) ||
			    !sb_get_u32(&ace, &oflags) ||
			    ((oflags & 1) && !sb_skip(&ace, 16)) ||
			    ((oflags & 2) && !sb_skip(&ace, 16)) ||
			    !get_sid(&ace, &s))
				return false;
		} else if (e) {
			/* A type MS-DTYP does not define: opaque. */
			e->lossy |= SD_LOSSY_ACE;
			continue;
		} else {
			continue;
		}
		if (!e)
			continue;
		if (flags & INHERIT_ONLY_ACE)
			e->lossy |= SD_LOSSY_INHERIT;
		else if (type != ACCESS_ALLOWED_ACE_TYPE &&
			 type != ACCESS_DENIED_ACE_TYPE)
			e->lossy |= SD_LOSSY_ACE;
		else
			eval_ace(e, type, mask, &s);
	}
	return true;
}

enum fscc_status sd_dec_SECURITY_DESCRIPTOR(const struct smb2_buf *in,
					    uint32_t cur_uid, uint32_t cur_gid,
					    struct sd_parsed *out)
{
	uint32_t off_owner, off_group, off_sacl, off_dacl;
	struct smb2_buf sd, c;
	struct dacl_eval e;
	struct sid s;
	uint8_t rev;

	memset(out, 0, sizeof(*out));
	memset(&e, 0, sizeof(e));
	/* Offsets count from the descriptor's first byte. */
	if (!sb_ok(in) || !sb_range(in, in->pos, in->len - in->pos, &sd))
		return FSCC_INVALID_SECURITY_DESCR;
	c = sd;
	if (!sb_get_u8(&c, &rev) || !sb_skip(&c, 1) ||
	    !sb_get_u16(&c, &out->control) || !sb_get_u32(&c, &off_owner) ||
	    !sb_get_u32(&c, &off_group) || !sb_get_u32(&c, &off_sacl) ||
	    !sb_get_u32(&c, &off_dacl))
		return FSCC_INVALID_SECURITY_DESCR;
	if (rev != 1 || !(out->control & SE_SELF_RELATIVE))
		return FSCC_INVALID_SECURITY_DESCR;

	sid_set(&e.owner, 1, cur_uid);
	sid_set(&e.group, 2, cur_gid);
	sid_set(&e.world, 0, 0);
	/* S-1-5-11 */
	memset(&e.authenticated, 0, sizeof(e.authenticated));
	e.authenticated.auth[5] = 5;
	e.authenticated.n = 1;
	e.authenticated.sub[0] = 11;
	if (off_owner) {
		if (!sd_sid_at(&sd, off_owner, &s))
			return FSCC_INVALID_SECURITY_DESCR;
		out->has_owner = true;
		out->owner_unix = sid_unix(&s, 1, &out->uid);
		e.owner = s;
	}
	if (off_group) {
		if (!sd_sid_at(&sd, off_group, &s))
			return FSCC_INVALID_SECURITY_DESCR;
		out->has_group = true;
		out->group_unix = sid_unix(&s, 2, &out->gid);
		e.group = s;
	}
	/* A nonzero offset is checked even where the Control bit says the
	 * ACL is absent: it must still not point outside the buffer. */
	if (off_sacl && !parse_acl(&sd, off_sacl, NULL))
		return FSCC_INVALID_SECURITY_DESCR;
	out->has_sacl = (out->control & SE_SACL_PRESENT) && off_sacl;
	if (off_dacl && !parse_acl(&sd, off_dacl,
				   out->control & SE_DACL_PRESENT ? &e : NULL))
		return FSCC_INVALID_SECURITY_DESCR;
	if (out->control & SE_DACL_PRESENT) {
		out->has_dacl = true;
		if (!off_dacl) {
			out->null_dacl = true;
			out->mode = 0777;
		} else {
			out->mode = e.granted[CLS_U] << 6 |
				    e.granted[CLS_G] << 3 | e.granted[CLS_O];
			out->lossy = e.lossy;
		}
	}
	return FSCC_OK;
}
