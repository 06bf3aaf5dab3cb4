/* SPDX-License-Identifier: MIT */
#ifndef NASD_NFS4_ATTRS_H
#define NASD_NFS4_ATTRS_H

/*
 * NFSv4 attributes (RFC 8881 §5, RFC 7862 §12): the table of the
 * supported ones (struct nfs4_attr), fattr4 encoding for
 * GETATTR/READDIR/VERIFY and decoding of settable attributes for
 * SETATTR, CREATE and OPEN's createattrs.
 */

#include <stdbool.h>
#include <stdint.h>

#include "nfs4/compound.h"
#include "nfs4/nfs4_xdr.h"
#include "vfs/vfs.h"

/* Attribute numbers (RFC 8881 §5.8, RFC 7862 §12.2). */
enum {
	FATTR4_SUPPORTED_ATTRS = 0,
	FATTR4_TYPE = 1,
	FATTR4_FH_EXPIRE_TYPE = 2,
	FATTR4_CHANGE = 3,
	FATTR4_SIZE = 4,
	FATTR4_LINK_SUPPORT = 5,
	FATTR4_SYMLINK_SUPPORT = 6,
	FATTR4_NAMED_ATTR = 7,
	FATTR4_FSID = 8,
	FATTR4_UNIQUE_HANDLES = 9,
	FATTR4_LEASE_TIME = 10,
	FATTR4_RDATTR_ERROR = 11,
	FATTR4_ACL = 12,
	FATTR4_ACLSUPPORT = 13,
	FATTR4_ARCHIVE = 14,
	FATTR4_CANSETTIME = 15,
	FATTR4_CASE_INSENSITIVE = 16,
	FATTR4_CASE_PRESERVING = 17,
	FATTR4_CHOWN_RESTRICTED = 18,
	FATTR4_FILEHANDLE = 19,
	FATTR4_FILEID = 20,
	FATTR4_FILES_AVAIL = 21,
	FATTR4_FILES_FREE = 22,
	FATTR4_FILES_TOTAL = 23,
	FATTR4_FS_LOCATIONS = 24,
	FATTR4_HIDDEN = 25,
	FATTR4_HOMOGENEOUS = 26,
	FATTR4_MAXFILESIZE = 27,
	FATTR4_MAXLINK = 28,
	FATTR4_MAXNAME = 29,
	FATTR4_MAXREAD = 30,
	FATTR4_MAXWRITE = 31,
	FATTR4_MIMETYPE = 32,
	FATTR4_MODE = 33,
	FATTR4_NO_TRUNC = 34,
	FATTR4_NUMLINKS = 35,
	FATTR4_OWNER = 36,
	FATTR4_OWNER_GROUP = 37,
	FATTR4_QUOTA_AVAIL_HARD = 38,
	FATTR4_QUOTA_AVAIL_SOFT = 39,
	FATTR4_QUOTA_USED = 40,
	FATTR4_RAWDEV = 41,
	FATTR4_SPACE_AVAIL = 42,
	FATTR4_SPACE_FREE = 43,
	FATTR4_SPACE_TOTAL = 44,
	FATTR4_SPACE_USED = 45,
	FATTR4_SYSTEM = 46,
	FATTR4_TIME_ACCESS = 47,
	FATTR4_TIME_ACCESS_SET = 48,
	FATTR4_TIME_BACKUP = 49,
	FATTR4_TIME_CREATE = 50,
	FATTR4_TIME_DELTA = 51,
	FATTR4_TIME_METADATA = 52,
	FATTR4_TIME_MODIFY = 53,
	FATTR4_TIME_MODIFY_SET = 54,
	FATTR4_MOUNTED_ON_FILEID = 55,
	FATTR4_FS_LAYOUT_TYPES = 62,
	FATTR4_SUPPATTR_EXCLCREAT = 75,
	FATTR4_CLONE_BLKSIZE = 77,
	FATTR4_CHANGE_ATTR_TYPE = 79,
	FATTR4_XATTR_SUPPORT = 82,      /* RFC 8276 §8.2 */
};

/* fh_expire_type4 and change_attr_type4 values used. */
#define FH4_PERSISTENT 0
#define NFS4_CHANGE_TYPE_IS_TIME_METADATA 3

/* time_how4 (RFC 8881 §3.3.7) */
#define SET_TO_SERVER_TIME4 0
#define SET_TO_CLIENT_TIME4 1

static inline bool nfs4_bitmap_isset(const struct bitmap4 *b, uint32_t n)
{
	return n / 32 < NFS4_BITMAP_WORDS && n / 32 < b->len &&
	       (b->map[n / 32] & (1u << (n % 32)));
}

static inline void nfs4_bitmap_set(struct bitmap4 *b, uint32_t n)
{
	if (n / 32 >= NFS4_BITMAP_WORDS)
		return;
	b->map[n / 32] |= 1u << (n % 32);
	if (b->len < n / 32 + 1)
		b->len = n / 32 + 1;
}

/*
 * What an fattr4 is built from: the object's vfs attributes (synthesised
 * for pseudo-fs nodes) and whatever else the request asked for.
 */
struct nfs4_attr_src {
	uint32_t minorversion;
	bool pseudo;
	struct vfs_attr va;
	bool have_statfs;
	struct vfs_statfs sf;
	bool have_fh;
	struct nfs_fh4 fh;
	uint64_t fsid_major;
	uint64_t fsid_minor;
	uint64_t mounted_on_fileid;
	bool xattr_support;          /* asked for: nfs4_xattr_ok() */
	uint32_t rdattr_error;       /* NFS4_OK unless an entry failed */
};

/* Flags of an attribute (struct nfs4_attr.flags). */
/* Set, never read (RFC 8881 §5.6): time_access_set, time_modify_set. */
#define NFS4_ATTR_WRITE_ONLY 0x01
/* Its value comes from the filesystem's statfs (nfs4_attr_fill). */
#define NFS4_ATTR_STATFS 0x02
/* An EXCLUSIVE4_1 create may set it: suppattr_exclcreat (§5.8.1.14). */
#define NFS4_ATTR_EXCLCREAT 0x04

/*
 * One attribute nasd supports: a row of attrs.c's table, which is
 * indexed by attribute number and is the only list of them (the
 * supported_attrs of each minor version are derived from it). The
 * encoder serves GETATTR, READDIR and VERIFY/NVERIFY (which compare its
 * bytes); read-only attributes have no decoder, settable ones have one
 * (SETATTR, CREATE, OPEN's createattrs), write-only ones no encoder.
 */
struct nfs4_attr {
	const char *name;        /* the RFC's name */
	uint8_t minor_min;       /* first minor version that has it */
	uint8_t flags;           /* NFS4_ATTR_* */
	/* its value from @s (the sources nfs4_attr_fill() gathered);
	 * false when @x is full */
	bool (*encode)(struct xdr_buf *x, const struct nfs4_attr_src *s);
	/* its value from @x into @sa: NFS4_OK, BADXDR, INVAL (a value
	 * out of range) or BADOWNER */
	uint32_t (*decode)(struct xdr_buf *x, struct vfs_sattr *sa);
};

/*
 * nfs4_attr_get() - the row of attribute number @n, or NULL when nasd
 * supports @n in no minor version. The row is static.
 */
const struct nfs4_attr *nfs4_attr_get(uint32_t n);

/*
 * nfs4_attr_supported() - the supported_attrs of minor version @minor
 * (RFC 8881 §5.8.1.1) into @out: the rows whose minor_min is at most
 * @minor (a minor version past 2 gets 4.2's).
 */
void nfs4_attr_supported(uint32_t minor, struct bitmap4 *out);

/*
 * nfs4_attr_any() - whether @req asks for an attribute whose row has
 * @flag (one NFS4_ATTR_* constant; false for anything else).
 */
bool nfs4_attr_any(const struct bitmap4 *req, uint32_t flag);

/*
 * nfs4_attr_fill() - gather what @req needs for @fh into @src. Returns 0
 * or -errno (the object is gone, statfs failed).
 */
int nfs4_attr_fill(struct nfs4_compound *c, const struct nfs4_fh *fh,
		   const struct bitmap4 *req, struct nfs4_attr_src *src);

/*
 * nfs4_enc_fattr4() - encode the fattr4 for @req from @src: the bitmap of
 * requested attributes that are supported, then their values. An
 * entry with src->rdattr_error set carries only rdattr_error (and
 * mounted_on_fileid if asked, RFC 8881 §5.8.1.12). Pure: encoding the
 * same @src twice gives the same bytes.
 */
bool nfs4_enc_fattr4(struct xdr_buf *x, const struct bitmap4 *req,
		     const struct nfs4_attr_src *src);

/*
 * nfs4_fattr4_to_sattr() - the settable attributes of @f (those whose
 * row has a decoder: size, mode, owner, owner_group, time_access_set,
 * time_modify_set) into @sa, their bits into @set; for SETATTR, CREATE
 * and OPEN's createattrs. Returns NFS4_OK, BADXDR (values do not match
 * the mask), ATTRNOTSUPP (an attribute nasd supports in no minor
 * version), INVAL (a read-only attribute, RFC 8881 §18.30.3, or a value
 * out of range) or BADOWNER.
 */
uint32_t nfs4_fattr4_to_sattr(const struct fattr4 *f, struct vfs_sattr *sa,
			      struct bitmap4 *set);

/*
 * nfs4_attr_verify() - VERIFY/NVERIFY (RFC 8881 §18.31, §18.15): compare
 * @f with @fh's current attributes, as our encoding of them byte for
 * byte. NFS4_OK and *@same, or ATTRNOTSUPP (an attribute this minor
 * version lacks), INVAL (rdattr_error or a write-only attribute in the
 * mask) or the status of reading the attributes.
 */
uint32_t nfs4_attr_verify(struct nfs4_compound *c, const struct nfs4_fh *fh,
			  const struct fattr4 *f, bool *same);

/*
 * nfs4_owner_to_str() - the owner (@group false) or owner_group string
 * of @id into @buf: "1000", or "name@domain" with --v4-domain when the
 * id has a name. Returns the length.
 */
uint32_t nfs4_owner_to_str(uint32_t id, bool group, char *buf, size_t size);

/*
 * nfs4_owner_from_str() - the id of an owner or group string: a decimal
 * number, or "name@domain" with the configured domain. 0 or -EINVAL
 * (unknown name, other domain: BADOWNER).
 */
int nfs4_owner_from_str(const uint8_t *s, uint32_t len, bool group,
			uint32_t *id);

#endif
