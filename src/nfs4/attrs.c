// SPDX-License-Identifier: MIT
/*
 * NFSv4 attributes (RFC 8881 §5, RFC 7862 §12.2): one table with a row
 * per supported attribute (name, first minor version, flags, encoder,
 * decoder when settable), the sets derived from it (supported_attrs per
 * minor version, write-only, statfs-backed, suppattr_exclcreat), fattr4
 * encoding, settable-attribute decoding, VERIFY's comparison, and owner
 * strings (numeric, or name@domain with --v4-domain).
 *
 * ACLs are honestly absent: acl is not supported and aclsupport is 0.
 */

#include <grp.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nfs4/attrs.h"
#include "nfs4/nfs4_int.h"
#include "nfs4/pseudo.h"
#include "nfs4/state/state.h"

/* Pseudo-fs fsid: exports use {export id, 0}, so minor 1 is unique. */
#define PSEUDO_FSID_MAJOR 0
#define PSEUDO_FSID_MINOR 1

#define MAXLINK 65000
#define MAXFILESIZE 0x7fffffffffffffffULL

/* The newest minor version (RFC 7862); later ones get its attributes. */
#define ATTR_MINOR_LAST 2

/* The NFS4_ATTR_* flags are the bits 0 to ATTR_FLAG_BITS - 1. */
#define ATTR_FLAG_BITS 3
_Static_assert((NFS4_ATTR_WRITE_ONLY | NFS4_ATTR_STATFS |
		NFS4_ATTR_EXCLCREAT) == (1u << ATTR_FLAG_BITS) - 1,
	       "one mask per flag bit");

/*
 * What the table says as bitmaps, derived from it once (attr_sets_get):
 * the supported_attrs of each minor version, and the attributes that
 * have each flag, indexed by the flag's bit.
 */
struct attr_sets {
	struct bitmap4 supported[ATTR_MINOR_LAST + 1];
	struct bitmap4 flagged[ATTR_FLAG_BITS];
};

static const struct attr_sets *attr_sets_get(void);

/* The supported_attrs of minor version @minor. */
static const struct bitmap4 *attr_supported_of(uint32_t minor)
{
	return &attr_sets_get()->supported[minor < ATTR_MINOR_LAST
						   ? minor
						   : ATTR_MINOR_LAST];
}

/* The attributes with flag @flag (one NFS4_ATTR_* constant). */
static const struct bitmap4 *attr_flagged(uint32_t flag)
{
	return &attr_sets_get()->flagged[__builtin_ctz(flag)];
}

/* Does @req ask for any attribute of @set? */
static bool bitmap_meets(const struct bitmap4 *req, const struct bitmap4 *set)
{
	uint32_t i;

	for (i = 0; i < NFS4_BITMAP_WORDS && i < req->len; i++)
		if (req->map[i] & set->map[i])
			return true;
	return false;
}

/* ---- what an fattr4 is built from ---- */

static void pseudo_attrs(struct nfs4_compound *c, const struct nfs4_fh *fh,
			 struct nfs4_attr_src *src)
{
	struct nfs4_pseudo *p = nfs4_compound_pseudo(c);
	uint64_t change = p ? nfs4_pseudo_change(p) : 1;
	struct vfs_attr *va = &src->va;

	src->pseudo = true;
	va->type = VFS_DIR;
	va->mode = 0555;
	va->nlink = 2 + nfs4_pseudo_nchildren(fh->pseudo);
	va->uid = 0;
	va->gid = 0;
	va->size = 4096;
	va->used = 4096;
	va->fileid = nfs4_pseudo_fileid(fh->pseudo);
	va->atime.tv_sec = (time_t)(change / 1000000000ULL);
	va->atime.tv_nsec = (long)(change % 1000000000ULL);
	va->mtime = va->atime;
	va->ctime = va->atime;
	va->change = change;
	src->fsid_major = PSEUDO_FSID_MAJOR;
	src->fsid_minor = PSEUDO_FSID_MINOR;
	src->mounted_on_fileid = va->fileid;
	src->sf.namemax = VFS_NAME_MAX;
	src->sf.bsize = 4096;
	src->have_statfs = true;
}

/*
 * The fileid of what an export root is mounted on: its junction in the
 * pseudo-fs (RFC 8881 §5.8.2.23), so that a directory listing of the
 * pseudo-fs and a GETATTR of the root agree.
 */
static uint64_t export_mounted_on(struct nfs4_compound *c,
				  const struct nfs4_fh *fh, uint64_t fileid)
{
	struct nfs4_pseudo_node *n;
	struct nfs4_pseudo *p;

	if (!vfs_obj_is_root(fh->obj))
		return fileid;
	p = nfs4_compound_pseudo(c);
	n = p ? nfs4_pseudo_of_export(p, fh->export) : NULL;
	if (!n || !nfs4_pseudo_parent(n))
		return fileid;
	return nfs4_pseudo_fileid(n);
}

/** nfs4_attr_fill() - gather the sources of @req for @fh; see attrs.h. */
int nfs4_attr_fill(struct nfs4_compound *c, const struct nfs4_fh *fh,
		   const struct bitmap4 *req, struct nfs4_attr_src *src)
{
	int err;

	memset(src, 0, sizeof(*src));
	src->minorversion = c->minorversion;
	if (!fh->set)
		return -EINVAL;
	if (nfs4_bitmap_isset(req, FATTR4_FILEHANDLE)) {
		err = nfs4_fh_of(fh, &src->fh);
		if (err)
			return err;
		src->have_fh = true;
	}
	if (fh->pseudo) {
		pseudo_attrs(c, fh, src);
		return 0;
	}
	err = vfs_getattr(fh->obj, &src->va);
	if (err)
		return err;
	src->fsid_major = src->va.fsid;
	src->fsid_minor = 0;
	src->mounted_on_fileid = src->va.fileid;
	if (nfs4_bitmap_isset(req, FATTR4_MOUNTED_ON_FILEID))
		src->mounted_on_fileid =
			export_mounted_on(c, fh, src->va.fileid);
	if (nfs4_bitmap_isset(req, FATTR4_XATTR_SUPPORT))
		src->xattr_support = nfs4_xattr_ok(fh, true) == NFS4_OK;
	if (bitmap_meets(req, attr_flagged(NFS4_ATTR_STATFS))) {
		err = vfs_statfs(fh->obj, &src->sf);
		if (err)
			return err;
		src->have_statfs = true;
	}
	return 0;
}

/* ---- owners ---- */

static const char *v4_domain(void)
{
	return nfs4_config_get()->domain;
}

/** nfs4_owner_to_str() - owner string of @id; see attrs.h. */
uint32_t nfs4_owner_to_str(uint32_t id, bool group, char *buf, size_t size)
{
	const char *dom = v4_domain();
	char pw_buf[1024];
	const char *name = NULL;
	int n;

	if (dom) {
		if (group) {
			struct group gr, *grp = NULL;

			if (!getgrgid_r(id, &gr, pw_buf, sizeof(pw_buf),
					&grp) && grp)
				name = grp->gr_name;
		} else {
			struct passwd pw, *pwp = NULL;

			if (!getpwuid_r(id, &pw, pw_buf, sizeof(pw_buf),
					&pwp) && pwp)
				name = pwp->pw_name;
		}
	}
	if (name)
		n = snprintf(buf, size, "%s@%s", name, dom);
	else
		n = snprintf(buf, size, "%u", id);
	if (n < 0)
		return 0;
	return (size_t)n >= size ? (uint32_t)(size - 1) : (uint32_t)n;
}

static bool parse_decimal(const uint8_t *s, uint32_t len, uint32_t *out)
{
	uint64_t v = 0;
	uint32_t i;

	if (len == 0 || len > 10)
		return false;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v > UINT32_MAX)
		return false;
	*out = (uint32_t)v;
	return true;
}

/** nfs4_owner_from_str() - id of an owner string; see attrs.h. */
int nfs4_owner_from_str(const uint8_t *s, uint32_t len, bool group,
			uint32_t *id)
{
	const char *dom = v4_domain();
	char name[256], pw_buf[1024];
	const uint8_t *at;
	size_t nlen;

	if (parse_decimal(s, len, id))
		return 0;
	at = memchr(s, '@', len);
	if (!dom || !at)
		return -EINVAL;
	nlen = (size_t)(at - s);
	if (nlen == 0 || nlen >= sizeof(name) ||
	    strlen(dom) != len - nlen - 1 ||
	    strncasecmp((const char *)at + 1, dom, len - nlen - 1) != 0)
		return -EINVAL;
	memcpy(name, s, nlen);
	name[nlen] = '\0';
	if (memchr(name, '\0', nlen))
		return -EINVAL;
	if (group) {
		struct group gr, *grp = NULL;

		if (getgrnam_r(name, &gr, pw_buf, sizeof(pw_buf), &grp) ||
		    !grp)
			return -EINVAL;
		*id = grp->gr_gid;
	} else {
		struct passwd pw, *pwp = NULL;

		if (getpwnam_r(name, &pw, pw_buf, sizeof(pw_buf), &pwp) ||
		    !pwp)
			return -EINVAL;
		*id = pwp->pw_uid;
	}
	return 0;
}

/* ---- the values (RFC 8881 §5.8, RFC 7862 §12.2), one function each ---- */

static bool enc_time(struct xdr_buf *x, const struct timespec *ts)
{
	return xdr_enc_u64(x, (uint64_t)(int64_t)ts->tv_sec) &&
	       xdr_enc_u32(x, (uint32_t)ts->tv_nsec);
}

static bool enc_owner(struct xdr_buf *x, uint32_t id, bool group)
{
	char buf[320];
	uint32_t n = nfs4_owner_to_str(id, group, buf, sizeof(buf));

	return xdr_enc_opaque(x, buf, n);
}

static bool attr_enc_supported_attrs(struct xdr_buf *x,
				     const struct nfs4_attr_src *s)
{
	return nfs4_enc_bitmap4(x, attr_supported_of(s->minorversion));
}

static bool attr_enc_type(struct xdr_buf *x, const struct nfs4_attr_src *s)
{
	/* nfs_ftype4 and vfs_ftype share their numbering */
	return xdr_enc_u32(x, (uint32_t)s->va.type);
}

static bool attr_enc_fh_expire_type(struct xdr_buf *x,
				    const struct nfs4_attr_src *s)
{
	return xdr_enc_u32(x, FH4_PERSISTENT);
}

static bool attr_enc_change(struct xdr_buf *x, const struct nfs4_attr_src *s)
{
	return xdr_enc_u64(x, s->va.change);
}

static bool attr_enc_size(struct xdr_buf *x, const struct nfs4_attr_src *s)
{
	return xdr_enc_u64(x, s->va.size);
}

/* The properties that hold everywhere nasd serves (link_support, ...). */
static bool attr_enc_true(struct xdr_buf *x, const struct nfs4_attr_src *s)
{
	return xdr_enc_bool(x, true);
}

/* ... and those that never do (named_attr, case_insensitive). */
static bool attr_enc_false(struct xdr_buf *x, const struct nfs4_attr_src *s)
{
	return xdr_enc_bool(x, false);
}

static bool attr_enc_fsid(struct xdr_buf *x, const struct nfs4_attr_src *s)
{
	return xdr_enc_u64(x, s->fsid_major) && xdr_enc_u64(x, s->fsid_minor);
}

static bool attr_enc_lease_time(struct xdr_buf *x,
				const struct nfs4_attr_src *s)
{
	return xdr_enc_u32(x, nfs4_lease_time());
}

static bool attr_enc_rdattr_error(struct xdr_buf *x,
				  const struct nfs4_attr_src *s)
{
	return xdr_enc_u32(x, s->rdattr_error);
}

static bool attr_enc_aclsupport(struct xdr_buf *x,
				const struct nfs4_attr_src *s)
{
	/* no ACE type is supported */
	return xdr_enc_u32(x, 0);
}

static bool attr_enc_filehandle(struct xdr_buf *x,
				const struct nfs4_attr_src *s)
{
	return s->have_fh && nfs4_enc_nfs_fh4(x, &s->fh);
}

static bool attr_enc_fileid(struct xdr_buf *x, const struct nfs4_attr_src *s)
{
	return xdr_enc_u64(x, s->va.fileid);
}

static bool attr_enc_files_avail(struct xdr_buf *x,
				 const struct nfs4_attr_src *s)
{
	return xdr_enc_u64(x, s->sf.afiles);
}

static bool attr_enc_files_free(struct xdr_buf *x,
				const struct nfs4_attr_src *s)
{
	return xdr_enc_u64(x, s->sf.ffiles);
}

static bool attr_enc_files_total(struct xdr_buf *x,
				 const struct nfs4_attr_src *s)
{
	return xdr_enc_u64(x, s->sf.tfiles);
}

static bool attr_enc_maxfilesize(struct xdr_buf *x,
				 const struct nfs4_attr_src *s)
{
	return xdr_enc_u64(x, MAXFILESIZE);
}

static bool attr_enc_maxlink(struct xdr_buf *x, const struct nfs4_attr_src *s)
{
	return xdr_enc_u32(x, MAXLINK);
}

static bool attr_enc_maxname(struct xdr_buf *x, const struct nfs4_attr_src *s)
{
	return xdr_enc_u32(x, s->sf.namemax && s->sf.namemax < VFS_NAME_MAX
				      ? s->sf.namemax
				      : VFS_NAME_MAX);
}

/* maxread and maxwrite: the one I/O size limit. */
static bool attr_enc_maxio(struct xdr_buf *x, const struct nfs4_attr_src *s)
{
	return xdr_enc_u64(x, NFS4_IO_MAX);
}

static bool attr_enc_mode(struct xdr_buf *x, const struct nfs4_attr_src *s)
{
	return xdr_enc_u32(x, s->va.mode & 07777);
}

static bool attr_enc_numlinks(struct xdr_buf *x, const struct nfs4_attr_src *s)
{
	return xdr_enc_u32(x, s->va.nlink);
}

static bool attr_enc_owner(struct xdr_buf *x, const struct nfs4_attr_src *s)
{
	return enc_owner(x, s->va.uid, false);
}

static bool attr_enc_owner_group(struct xdr_buf *x,
				 const struct nfs4_attr_src *s)
{
	return enc_owner(x, s->va.gid, true);
}

static bool attr_enc_rawdev(struct xdr_buf *x, const struct nfs4_attr_src *s)
{
	return xdr_enc_u32(x, s->va.rdev_major) &&
	       xdr_enc_u32(x, s->va.rdev_minor);
}

static bool attr_enc_space_avail(struct xdr_buf *x,
				 const struct nfs4_attr_src *s)
{
	return xdr_enc_u64(x, s->sf.abytes);
}

static bool attr_enc_space_free(struct xdr_buf *x,
				const struct nfs4_attr_src *s)
{
	return xdr_enc_u64(x, s->sf.fbytes);
}

static bool attr_enc_space_total(struct xdr_buf *x,
				 const struct nfs4_attr_src *s)
{
	return xdr_enc_u64(x, s->sf.tbytes);
}

static bool attr_enc_space_used(struct xdr_buf *x,
				const struct nfs4_attr_src *s)
{
	return xdr_enc_u64(x, s->va.used);
}

static bool attr_enc_time_access(struct xdr_buf *x,
				 const struct nfs4_attr_src *s)
{
	return enc_time(x, &s->va.atime);
}

static bool attr_enc_time_delta(struct xdr_buf *x,
				const struct nfs4_attr_src *s)
{
	/* nanosecond timestamps */
	return xdr_enc_u64(x, 0) && xdr_enc_u32(x, 1);
}

static bool attr_enc_time_metadata(struct xdr_buf *x,
				   const struct nfs4_attr_src *s)
{
	return enc_time(x, &s->va.ctime);
}

static bool attr_enc_time_modify(struct xdr_buf *x,
				 const struct nfs4_attr_src *s)
{
	return enc_time(x, &s->va.mtime);
}

static bool attr_enc_mounted_on_fileid(struct xdr_buf *x,
				       const struct nfs4_attr_src *s)
{
	return xdr_enc_u64(x, s->mounted_on_fileid);
}

static bool attr_enc_fs_layout_types(struct xdr_buf *x,
				     const struct nfs4_attr_src *s)
{
	/* no pNFS: an empty list */
	return xdr_enc_u32(x, 0);
}

/* suppattr_exclcreat: what EXCLUSIVE4_1 may set; not the times, which
 * hold the create verifier (vfs_create). */
static bool attr_enc_suppattr_exclcreat(struct xdr_buf *x,
					const struct nfs4_attr_src *s)
{
	return nfs4_enc_bitmap4(x, attr_flagged(NFS4_ATTR_EXCLCREAT));
}

static bool attr_enc_clone_blksize(struct xdr_buf *x,
				   const struct nfs4_attr_src *s)
{
	return xdr_enc_u32(x, s->sf.bsize ? s->sf.bsize : 4096);
}

static bool attr_enc_change_attr_type(struct xdr_buf *x,
				      const struct nfs4_attr_src *s)
{
	return xdr_enc_u32(x, NFS4_CHANGE_TYPE_IS_TIME_METADATA);
}

static bool attr_enc_xattr_support(struct xdr_buf *x,
				   const struct nfs4_attr_src *s)
{
	return xdr_enc_bool(x, s->xattr_support);
}

/* ---- settable values: decoded into a vfs_sattr ---- */

static uint32_t dec_settime(struct xdr_buf *x, enum vfs_time_how *how,
			    struct timespec *ts)
{
	struct nfstime4 t;
	uint32_t h;

	if (!xdr_dec_u32(x, &h))
		return NFS4ERR_BADXDR;
	if (h == SET_TO_SERVER_TIME4) {
		*how = VFS_TIME_SERVER;
		return NFS4_OK;
	}
	if (h != SET_TO_CLIENT_TIME4)
		return NFS4ERR_BADXDR;
	if (!nfs4_dec_nfstime4(x, &t))
		return NFS4ERR_BADXDR;
	if (t.nseconds >= 1000000000u)
		return NFS4ERR_INVAL;
	*how = VFS_TIME_CLIENT;
	ts->tv_sec = (time_t)t.seconds;
	ts->tv_nsec = (long)t.nseconds;
	return NFS4_OK;
}

static uint32_t dec_owner(struct xdr_buf *x, bool group, uint32_t *id)
{
	struct nfs4_opaque o;

	if (!nfs4_dec_opaque(x, &o, NFS4_OPAQUE_LIMIT))
		return NFS4ERR_BADXDR;
	/* an empty name is no name at all (INVAL); BADOWNER is for one
	 * that is well formed but maps to no id (RFC 8881 §5.9) */
	if (o.len == 0)
		return NFS4ERR_INVAL;
	return nfs4_owner_from_str(o.data, o.len, group, id)
		       ? NFS4ERR_BADOWNER
		       : NFS4_OK;
}

static uint32_t attr_dec_size(struct xdr_buf *x, struct vfs_sattr *sa)
{
	sa->set_size = true;
	return xdr_dec_u64(x, &sa->size) ? NFS4_OK : NFS4ERR_BADXDR;
}

static uint32_t attr_dec_mode(struct xdr_buf *x, struct vfs_sattr *sa)
{
	uint32_t v;

	if (!xdr_dec_u32(x, &v))
		return NFS4ERR_BADXDR;
	if (v & ~07777u)
		return NFS4ERR_INVAL;
	sa->set_mode = true;
	sa->mode = v;
	return NFS4_OK;
}

static uint32_t attr_dec_owner(struct xdr_buf *x, struct vfs_sattr *sa)
{
	sa->set_uid = true;
	return dec_owner(x, false, &sa->uid);
}

static uint32_t attr_dec_owner_group(struct xdr_buf *x, struct vfs_sattr *sa)
{
	sa->set_gid = true;
	return dec_owner(x, true, &sa->gid);
}

static uint32_t attr_dec_time_access_set(struct xdr_buf *x,
					 struct vfs_sattr *sa)
{
	return dec_settime(x, &sa->atime_how, &sa->atime);
}

static uint32_t attr_dec_time_modify_set(struct xdr_buf *x,
					 struct vfs_sattr *sa)
{
	return dec_settime(x, &sa->mtime_how, &sa->mtime);
}

/*
 * The attributes nasd supports, indexed by attribute number; a number
 * without a row is not supported in any minor version. RFC 7530 §5 (4.0)
 * but acl, archive, fs_locations, hidden, mimetype, quota_*, system,
 * time_backup and time_create; RFC 8881 §5 (4.1) adds fs_layout_types
 * and suppattr_exclcreat; RFC 7862 §12.2 (4.2) clone_blksize and
 * change_attr_type.
 */
static const struct nfs4_attr attr_table[] = {
	[FATTR4_SUPPORTED_ATTRS] = {
		.name = "supported_attrs",
		.minor_min = 0,
		.encode = attr_enc_supported_attrs,
	},
	[FATTR4_TYPE] = {
		.name = "type",
		.minor_min = 0,
		.encode = attr_enc_type,
	},
	[FATTR4_FH_EXPIRE_TYPE] = {
		.name = "fh_expire_type",
		.minor_min = 0,
		.encode = attr_enc_fh_expire_type,
	},
	[FATTR4_CHANGE] = {
		.name = "change",
		.minor_min = 0,
		.encode = attr_enc_change,
	},
	[FATTR4_SIZE] = {
		.name = "size",
		.minor_min = 0,
		.flags = NFS4_ATTR_EXCLCREAT,
		.encode = attr_enc_size,
		.decode = attr_dec_size,
	},
	[FATTR4_LINK_SUPPORT] = {
		.name = "link_support",
		.minor_min = 0,
		.encode = attr_enc_true,
	},
	[FATTR4_SYMLINK_SUPPORT] = {
		.name = "symlink_support",
		.minor_min = 0,
		.encode = attr_enc_true,
	},
	[FATTR4_NAMED_ATTR] = {
		.name = "named_attr",
		.minor_min = 0,
		.encode = attr_enc_false,
	},
	[FATTR4_FSID] = {
		.name = "fsid",
		.minor_min = 0,
		.encode = attr_enc_fsid,
	},
	[FATTR4_UNIQUE_HANDLES] = {
		.name = "unique_handles",
		.minor_min = 0,
		.encode = attr_enc_true,
	},
	[FATTR4_LEASE_TIME] = {
		.name = "lease_time",
		.minor_min = 0,
		.encode = attr_enc_lease_time,
	},
	[FATTR4_RDATTR_ERROR] = {
		.name = "rdattr_error",
		.minor_min = 0,
		.encode = attr_enc_rdattr_error,
	},
	[FATTR4_ACLSUPPORT] = {
		.name = "aclsupport",
		.minor_min = 0,
		.encode = attr_enc_aclsupport,
	},
	[FATTR4_CANSETTIME] = {
		.name = "cansettime",
		.minor_min = 0,
		.encode = attr_enc_true,
	},
	[FATTR4_CASE_INSENSITIVE] = {
		.name = "case_insensitive",
		.minor_min = 0,
		.encode = attr_enc_false,
	},
	[FATTR4_CASE_PRESERVING] = {
		.name = "case_preserving",
		.minor_min = 0,
		.encode = attr_enc_true,
	},
	[FATTR4_CHOWN_RESTRICTED] = {
		.name = "chown_restricted",
		.minor_min = 0,
		.encode = attr_enc_true,
	},
	[FATTR4_FILEHANDLE] = {
		.name = "filehandle",
		.minor_min = 0,
		.encode = attr_enc_filehandle,
	},
	[FATTR4_FILEID] = {
		.name = "fileid",
		.minor_min = 0,
		.encode = attr_enc_fileid,
	},
	[FATTR4_FILES_AVAIL] = {
		.name = "files_avail",
		.minor_min = 0,
		.flags = NFS4_ATTR_STATFS,
		.encode = attr_enc_files_avail,
	},
	[FATTR4_FILES_FREE] = {
		.name = "files_free",
		.minor_min = 0,
		.flags = NFS4_ATTR_STATFS,
		.encode = attr_enc_files_free,
	},
	[FATTR4_FILES_TOTAL] = {
		.name = "files_total",
		.minor_min = 0,
		.flags = NFS4_ATTR_STATFS,
		.encode = attr_enc_files_total,
	},
	[FATTR4_HOMOGENEOUS] = {
		.name = "homogeneous",
		.minor_min = 0,
		.encode = attr_enc_true,
	},
	[FATTR4_MAXFILESIZE] = {
		.name = "maxfilesize",
		.minor_min = 0,
		.encode = attr_enc_maxfilesize,
	},
	[FATTR4_MAXLINK] = {
		.name = "maxlink",
		.minor_min = 0,
		.encode = attr_enc_maxlink,
	},
	[FATTR4_MAXNAME] = {
		.name = "maxname",
		.minor_min = 0,
		.flags = NFS4_ATTR_STATFS,
		.encode = attr_enc_maxname,
	},
	[FATTR4_MAXREAD] = {
		.name = "maxread",
		.minor_min = 0,
		.encode = attr_enc_maxio,
	},
	[FATTR4_MAXWRITE] = {
		.name = "maxwrite",
		.minor_min = 0,
		.encode = attr_enc_maxio,
	},
	[FATTR4_MODE] = {
		.name = "mode",
		.minor_min = 0,
		.flags = NFS4_ATTR_EXCLCREAT,
		.encode = attr_enc_mode,
		.decode = attr_dec_mode,
	},
	[FATTR4_NO_TRUNC] = {
		.name = "no_trunc",
		.minor_min = 0,
		.encode = attr_enc_true,
	},
	[FATTR4_NUMLINKS] = {
		.name = "numlinks",
		.minor_min = 0,
		.encode = attr_enc_numlinks,
	},
	[FATTR4_OWNER] = {
		.name = "owner",
		.minor_min = 0,
		.flags = NFS4_ATTR_EXCLCREAT,
		.encode = attr_enc_owner,
		.decode = attr_dec_owner,
	},
	[FATTR4_OWNER_GROUP] = {
		.name = "owner_group",
		.minor_min = 0,
		.flags = NFS4_ATTR_EXCLCREAT,
		.encode = attr_enc_owner_group,
		.decode = attr_dec_owner_group,
	},
	[FATTR4_RAWDEV] = {
		.name = "rawdev",
		.minor_min = 0,
		.encode = attr_enc_rawdev,
	},
	[FATTR4_SPACE_AVAIL] = {
		.name = "space_avail",
		.minor_min = 0,
		.flags = NFS4_ATTR_STATFS,
		.encode = attr_enc_space_avail,
	},
	[FATTR4_SPACE_FREE] = {
		.name = "space_free",
		.minor_min = 0,
		.flags = NFS4_ATTR_STATFS,
		.encode = attr_enc_space_free,
	},
	[FATTR4_SPACE_TOTAL] = {
		.name = "space_total",
		.minor_min = 0,
		.flags = NFS4_ATTR_STATFS,
		.encode = attr_enc_space_total,
	},
	[FATTR4_SPACE_USED] = {
		.name = "space_used",
		.minor_min = 0,
		.encode = attr_enc_space_used,
	},
	[FATTR4_TIME_ACCESS] = {
		.name = "time_access",
		.minor_min = 0,
		.encode = attr_enc_time_access,
	},
	[FATTR4_TIME_ACCESS_SET] = {
		.name = "time_access_set",
		.minor_min = 0,
		.flags = NFS4_ATTR_WRITE_ONLY,
		.encode = NULL, /* write-only */
		.decode = attr_dec_time_access_set,
	},
	[FATTR4_TIME_DELTA] = {
		.name = "time_delta",
		.minor_min = 0,
		.encode = attr_enc_time_delta,
	},
	[FATTR4_TIME_METADATA] = {
		.name = "time_metadata",
		.minor_min = 0,
		.encode = attr_enc_time_metadata,
	},
	[FATTR4_TIME_MODIFY] = {
		.name = "time_modify",
		.minor_min = 0,
		.encode = attr_enc_time_modify,
	},
	[FATTR4_TIME_MODIFY_SET] = {
		.name = "time_modify_set",
		.minor_min = 0,
		.flags = NFS4_ATTR_WRITE_ONLY,
		.encode = NULL, /* write-only */
		.decode = attr_dec_time_modify_set,
	},
	[FATTR4_MOUNTED_ON_FILEID] = {
		.name = "mounted_on_fileid",
		.minor_min = 0,
		.encode = attr_enc_mounted_on_fileid,
	},
	[FATTR4_FS_LAYOUT_TYPES] = {
		.name = "fs_layout_types",
		.minor_min = 1,
		.encode = attr_enc_fs_layout_types,
	},
	[FATTR4_SUPPATTR_EXCLCREAT] = {
		.name = "suppattr_exclcreat",
		.minor_min = 1,
		.encode = attr_enc_suppattr_exclcreat,
	},
	[FATTR4_CLONE_BLKSIZE] = {
		.name = "clone_blksize",
		.minor_min = 2,
		.flags = NFS4_ATTR_STATFS,
		.encode = attr_enc_clone_blksize,
	},
	[FATTR4_CHANGE_ATTR_TYPE] = {
		.name = "change_attr_type",
		.minor_min = 2,
		.encode = attr_enc_change_attr_type,
	},
	[FATTR4_XATTR_SUPPORT] = {
		.name = "xattr_support",
		.minor_min = 2,
		.encode = attr_enc_xattr_support,
	},
};

_Static_assert(sizeof(attr_table) / sizeof(attr_table[0]) <=
		       NFS4_BITMAP_WORDS * 32,
	       "every attribute fits a bitmap4");

static struct attr_sets attr_sets;
static pthread_once_t attr_sets_once = PTHREAD_ONCE_INIT;

static void attr_sets_build(void)
{
	struct attr_sets *s = &attr_sets;
	const struct nfs4_attr *a;
	uint32_t n, m, b;

	for (n = 0; n < NFS4_BITMAP_WORDS * 32; n++) {
		a = nfs4_attr_get(n);
		if (!a)
			continue;
		for (m = a->minor_min; m <= ATTR_MINOR_LAST; m++)
			nfs4_bitmap_set(&s->supported[m], n);
		for (b = 0; b < ATTR_FLAG_BITS; b++)
			if (a->flags & (1u << b))
				nfs4_bitmap_set(&s->flagged[b], n);
	}
}

static const struct attr_sets *attr_sets_get(void)
{
	pthread_once(&attr_sets_once, attr_sets_build);
	return &attr_sets;
}

/** nfs4_attr_get() - the table's row of attribute @n; see attrs.h. */
const struct nfs4_attr *nfs4_attr_get(uint32_t n)
{
	if (n >= sizeof(attr_table) / sizeof(attr_table[0]) ||
	    !attr_table[n].name)
		return NULL;
	return &attr_table[n];
}

/** nfs4_attr_supported() - supported_attrs of @minor; see attrs.h. */
void nfs4_attr_supported(uint32_t minor, struct bitmap4 *out)
{
	*out = *attr_supported_of(minor);
}

/** nfs4_attr_any() - does @req ask for an attribute with @flag? */
bool nfs4_attr_any(const struct bitmap4 *req, uint32_t flag)
{
	/* one flag bit, else nothing has it */
	if (!flag || (flag & (flag - 1)) || flag >= 1u << ATTR_FLAG_BITS)
		return false;
	return bitmap_meets(req, attr_flagged(flag));
}

/* ---- fattr4 ---- */

/*
 * The attributes an fattr4 for @req answers: those asked and supported
 * in this minor version, but the write-only ones, which are left out
 * silently (RFC 8881 §5.6 has a GETATTR that asks for one fail with
 * INVAL: nfs4_attr_any(req, NFS4_ATTR_WRITE_ONLY) before this).
 */
static void bitmap_answer(const struct bitmap4 *req,
			  const struct nfs4_attr_src *s, struct bitmap4 *out)
{
	const struct bitmap4 *wo = attr_flagged(NFS4_ATTR_WRITE_ONLY);
	const struct bitmap4 *sup = attr_supported_of(s->minorversion);
	uint32_t i;

	memset(out, 0, sizeof(*out));
	if (s->rdattr_error != NFS4_OK) {
		/* RFC 8881 §5.8.1.12: the entry carries only the error (and
		 * mounted_on_fileid, which needs no object) */
		if (nfs4_bitmap_isset(req, FATTR4_RDATTR_ERROR))
			nfs4_bitmap_set(out, FATTR4_RDATTR_ERROR);
		if (nfs4_bitmap_isset(req, FATTR4_MOUNTED_ON_FILEID))
			nfs4_bitmap_set(out, FATTR4_MOUNTED_ON_FILEID);
		return;
	}
	for (i = 0; i < NFS4_BITMAP_WORDS; i++)
		out->map[i] = (i < req->len ? req->map[i] : 0) & sup->map[i] &
			      ~wo->map[i];
	out->len = NFS4_BITMAP_WORDS;
	if (!s->have_fh)
		out->map[0] &= ~(1u << FATTR4_FILEHANDLE);
}

/* The values of the attributes of @ans, in attribute number order. */
static bool enc_attr_values(struct xdr_buf *x, const struct bitmap4 *ans,
			    const struct nfs4_attr_src *s)
{
	const struct nfs4_attr *a;
	uint32_t n;

	for (n = 0; n < NFS4_BITMAP_WORDS * 32; n++) {
		if (!nfs4_bitmap_isset(ans, n))
			continue;
		a = nfs4_attr_get(n);
		/* unsupported, or write-only: no value */
		if (!a || !a->encode)
			continue;
		if (!a->encode(x, s))
			return false;
	}
	return true;
}

/** nfs4_enc_fattr4() - fattr4 of @req from @src; see attrs.h. */
bool nfs4_enc_fattr4(struct xdr_buf *x, const struct bitmap4 *req,
		     const struct nfs4_attr_src *src)
{
	struct bitmap4 ans;
	size_t len_pos, start;
	uint8_t *p;

	bitmap_answer(req, src, &ans);
	if (!nfs4_enc_bitmap4(x, &ans))
		return false;
	len_pos = x->pos;
	if (!xdr_enc_u32(x, 0))
		return false;
	start = x->pos;
	if (!enc_attr_values(x, &ans, src))
		return false;
	p = x->base + len_pos;
	p[0] = (uint8_t)((x->pos - start) >> 24);
	p[1] = (uint8_t)((x->pos - start) >> 16);
	p[2] = (uint8_t)((x->pos - start) >> 8);
	p[3] = (uint8_t)(x->pos - start);
	return true;
}

/* ---- settable attributes ---- */

/** nfs4_fattr4_to_sattr() - settable attributes of @f; see attrs.h. */
uint32_t nfs4_fattr4_to_sattr(const struct fattr4 *f, struct vfs_sattr *sa,
			      struct bitmap4 *set)
{
	const struct nfs4_attr *a;
	struct xdr_buf x;
	uint32_t n, st;

	memset(sa, 0, sizeof(*sa));
	memset(set, 0, sizeof(*set));
	if (f->attrmask.beyond)
		return NFS4ERR_ATTRNOTSUPP;
	xdr_init(&x, (uint8_t *)f->attr_vals.data, f->attr_vals.len);
	for (n = 0; n < NFS4_BITMAP_WORDS * 32; n++) {
		if (!nfs4_bitmap_isset(&f->attrmask, n))
			continue;
		a = nfs4_attr_get(n);
		if (!a)
			return NFS4ERR_ATTRNOTSUPP;
		/* a read-only attribute (RFC 8881 §18.30.3) */
		if (!a->decode)
			return NFS4ERR_INVAL;
		st = a->decode(&x, sa);
		if (st != NFS4_OK)
			return st;
		nfs4_bitmap_set(set, n);
	}
	/* the values must be exactly what the mask announces */
	if (!xdr_ok(&x) || xdr_remaining(&x) != 0)
		return NFS4ERR_BADXDR;
	return NFS4_OK;
}

/** nfs4_attr_verify() - VERIFY/NVERIFY comparison; see attrs.h. */
uint32_t nfs4_attr_verify(struct nfs4_compound *c, const struct nfs4_fh *fh,
			  const struct fattr4 *f, bool *same)
{
	const struct bitmap4 *sup = attr_supported_of(c->minorversion);
	struct nfs4_attr_src src;
	struct xdr_buf x;
	uint8_t *buf;
	uint32_t i;
	size_t cap;
	int err;

	if (f->attrmask.beyond)
		return NFS4ERR_ATTRNOTSUPP;
	if (nfs4_bitmap_isset(&f->attrmask, FATTR4_RDATTR_ERROR))
		return NFS4ERR_INVAL;
	for (i = 0; i < NFS4_BITMAP_WORDS; i++)
		if (i < f->attrmask.len && (f->attrmask.map[i] & ~sup->map[i]))
			return NFS4ERR_ATTRNOTSUPP;
	/* write-only attributes cannot be compared (RFC 8881 §18.31.3) */
	if (nfs4_attr_any(&f->attrmask, NFS4_ATTR_WRITE_ONLY))
		return NFS4ERR_INVAL;
	err = nfs4_attr_fill(c, fh, &f->attrmask, &src);
	if (err)
		return nfs4_status(OP_VERIFY, err);
	/* our encoding of the same mask, compared byte for byte */
	cap = (size_t)f->attr_vals.len + 1024;
	buf = rpc_call_alloc(c->call, cap);
	if (!buf)
		return NFS4ERR_DELAY;
	xdr_init(&x, buf, cap);
	if (!enc_attr_values(&x, &f->attrmask, &src)) {
		/* ours is longer than theirs + 1 KiB: not the same */
		*same = false;
		return NFS4_OK;
	}
	*same = x.pos == f->attr_vals.len &&
		memcmp(buf, f->attr_vals.data, x.pos) == 0;
	return NFS4_OK;
}
