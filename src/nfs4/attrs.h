/* SPDX-License-Identifier: MIT */
#ifndef NASD_NFS4_ATTRS_H
#define NASD_NFS4_ATTRS_H

/*
 * NFSv4 attributes (RFC 8881 §5, RFC 7862 §12): fattr4 encoding for
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
	uint32_t rdattr_error;       /* NFS4_OK unless an entry failed */
};

/* nfs4_attr_supported() - the supported_attrs of minor version @minor. */
void nfs4_attr_supported(uint32_t minor, struct bitmap4 *out);

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
 * nfs4_fattr4_to_sattr() - the settable attributes of @f into @sa (mode,
 * owner, owner_group, size, time_access_set, time_modify_set), their bits
 * into @set. Returns NFS4_OK, BADXDR (values do not match the mask),
 * ATTRNOTSUPP (an attribute nasd does not support), INVAL (a read-only
 * attribute, RFC 8881 §18.30.3) or BADOWNER.
 */
uint32_t nfs4_fattr4_to_sattr(const struct fattr4 *f, struct vfs_sattr *sa,
			      struct bitmap4 *set);

/*
 * nfs4_dec_fattr4_sattr() - decode an fattr4 from @x (borrowing the
 * request) and convert it as nfs4_fattr4_to_sattr() does; for OPEN's
 * createattrs. BADXDR when @x does not hold an fattr4.
 */
uint32_t nfs4_dec_fattr4_sattr(struct xdr_buf *x, struct vfs_sattr *sa,
			       struct bitmap4 *set);

/*
 * nfs4_attr_verify() - VERIFY/NVERIFY (RFC 8881 §18.31, §18.15): compare
 * @f with @fh's current attributes. NFS4_OK and *@same, or INVAL
 * (rdattr_error in the mask, values that are not XDR), ATTRNOTSUPP,
 * or the status of reading the attributes.
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
