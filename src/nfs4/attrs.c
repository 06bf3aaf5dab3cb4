// SPDX-License-Identifier: MIT
/*
 * NFSv4 attributes (RFC 8881 §5, RFC 7862 §12.2): the supported set per
 * minor version, fattr4 encoding, settable-attribute decoding, VERIFY's
 * comparison, and owner strings (numeric, or name@domain with
 * --v4-domain).
 *
 * ACLs are honestly absent: acl is not supported and aclsupport is 0.
 */

#include <grp.h>
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

/* Attributes of every minor version (RFC 7530 §5). */
static const uint8_t attrs40[] = {
	FATTR4_SUPPORTED_ATTRS,   FATTR4_TYPE,
	FATTR4_FH_EXPIRE_TYPE,    FATTR4_CHANGE,
	FATTR4_SIZE,              FATTR4_LINK_SUPPORT,
	FATTR4_SYMLINK_SUPPORT,   FATTR4_NAMED_ATTR,
	FATTR4_FSID,              FATTR4_UNIQUE_HANDLES,
	FATTR4_LEASE_TIME,        FATTR4_RDATTR_ERROR,
	FATTR4_ACLSUPPORT,        FATTR4_CANSETTIME,
	FATTR4_CASE_INSENSITIVE,  FATTR4_CASE_PRESERVING,
	FATTR4_CHOWN_RESTRICTED,  FATTR4_FILEHANDLE,
	FATTR4_FILEID,            FATTR4_FILES_AVAIL,
	FATTR4_FILES_FREE,        FATTR4_FILES_TOTAL,
	FATTR4_HOMOGENEOUS,       FATTR4_MAXFILESIZE,
	FATTR4_MAXLINK,           FATTR4_MAXNAME,
	FATTR4_MAXREAD,           FATTR4_MAXWRITE,
	FATTR4_MODE,              FATTR4_NO_TRUNC,
	FATTR4_NUMLINKS,          FATTR4_OWNER,
	FATTR4_OWNER_GROUP,       FATTR4_RAWDEV,
	FATTR4_SPACE_AVAIL,       FATTR4_SPACE_FREE,
	FATTR4_SPACE_TOTAL,       FATTR4_SPACE_USED,
	FATTR4_TIME_ACCESS,       FATTR4_TIME_ACCESS_SET,
	FATTR4_TIME_DELTA,        FATTR4_TIME_METADATA,
	FATTR4_TIME_MODIFY,       FATTR4_TIME_MODIFY_SET,
	FATTR4_MOUNTED_ON_FILEID,
};

/* Added by RFC 8881 (4.1) and RFC 7862 (4.2). */
static const uint8_t attrs41[] = {
	FATTR4_FS_LAYOUT_TYPES,
	FATTR4_SUPPATTR_EXCLCREAT,
};
static const uint8_t attrs42[] = {
	FATTR4_CLONE_BLKSIZE,
	FATTR4_CHANGE_ATTR_TYPE,
};

/* Settable attributes nasd supports (RFC 8881 §5.6 "W"). */
static const uint8_t attrs_settable[] = {
	FATTR4_SIZE,      FATTR4_MODE,            FATTR4_OWNER,
	FATTR4_OWNER_GROUP, FATTR4_TIME_ACCESS_SET, FATTR4_TIME_MODIFY_SET,
};

static void bitmap_add(struct bitmap4 *b, const uint8_t *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		nfs4_bitmap_set(b, list[i]);
}

/** nfs4_attr_supported() - supported_attrs for minor version @minor. */
void nfs4_attr_supported(uint32_t minor, struct bitmap4 *out)
{
	memset(out, 0, sizeof(*out));
	bitmap_add(out, attrs40, sizeof(attrs40));
	if (minor >= 1)
		bitmap_add(out, attrs41, sizeof(attrs41));
	if (minor >= 2)
		bitmap_add(out, attrs42, sizeof(attrs42));
}

/* suppattr_exclcreat: what EXCLUSIVE4_1 may set; not the times, which
 * hold the create verifier (vfs_create). */
static void exclcreat_attrs(struct bitmap4 *out)
{
	memset(out, 0, sizeof(*out));
	nfs4_bitmap_set(out, FATTR4_SIZE);
	nfs4_bitmap_set(out, FATTR4_MODE);
	nfs4_bitmap_set(out, FATTR4_OWNER);
	nfs4_bitmap_set(out, FATTR4_OWNER_GROUP);
}

static bool bitmap_needs(const struct bitmap4 *req, const uint8_t *list,
			 size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (nfs4_bitmap_isset(req, list[i]))
			return true;
	return false;
}

static const uint8_t attrs_statfs[] = {
	FATTR4_FILES_AVAIL, FATTR4_FILES_FREE,  FATTR4_FILES_TOTAL,
	FATTR4_SPACE_AVAIL, FATTR4_SPACE_FREE,  FATTR4_SPACE_TOTAL,
	FATTR4_MAXNAME,     FATTR4_CLONE_BLKSIZE,
};

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
	if (bitmap_needs(req, attrs_statfs, sizeof(attrs_statfs))) {
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

/* ---- encoding ---- */

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

/* One attribute's value; false on overflow. */
static bool enc_attr(struct xdr_buf *x, uint32_t n,
		     const struct nfs4_attr_src *s)
{
	const struct vfs_attr *va = &s->va;
	struct bitmap4 b;

	switch (n) {
	case FATTR4_SUPPORTED_ATTRS:
		nfs4_attr_supported(s->minorversion, &b);
		return nfs4_enc_bitmap4(x, &b);
	case FATTR4_TYPE:
		/* nfs_ftype4 and vfs_ftype share their numbering */
		return xdr_enc_u32(x, (uint32_t)va->type);
	case FATTR4_FH_EXPIRE_TYPE:
		return xdr_enc_u32(x, FH4_PERSISTENT);
	case FATTR4_CHANGE:
		return xdr_enc_u64(x, va->change);
	case FATTR4_SIZE:
		return xdr_enc_u64(x, va->size);
	case FATTR4_LINK_SUPPORT:
	case FATTR4_SYMLINK_SUPPORT:
	case FATTR4_UNIQUE_HANDLES:
	case FATTR4_CANSETTIME:
	case FATTR4_CASE_PRESERVING:
	case FATTR4_CHOWN_RESTRICTED:
	case FATTR4_HOMOGENEOUS:
	case FATTR4_NO_TRUNC:
		return xdr_enc_bool(x, true);
	case FATTR4_NAMED_ATTR:
	case FATTR4_CASE_INSENSITIVE:
		return xdr_enc_bool(x, false);
	case FATTR4_FSID:
		return xdr_enc_u64(x, s->fsid_major) &&
		       xdr_enc_u64(x, s->fsid_minor);
	case FATTR4_LEASE_TIME:
		return xdr_enc_u32(x, nfs4_lease_time());
	case FATTR4_RDATTR_ERROR:
		return xdr_enc_u32(x, s->rdattr_error);
	case FATTR4_ACLSUPPORT:
		return xdr_enc_u32(x, 0);
	case FATTR4_FILEHANDLE:
		return s->have_fh && nfs4_enc_nfs_fh4(x, &s->fh);
	case FATTR4_FILEID:
		return xdr_enc_u64(x, va->fileid);
	case FATTR4_FILES_AVAIL:
		return xdr_enc_u64(x, s->sf.afiles);
	case FATTR4_FILES_FREE:
		return xdr_enc_u64(x, s->sf.ffiles);
	case FATTR4_FILES_TOTAL:
		return xdr_enc_u64(x, s->sf.tfiles);
	case FATTR4_MAXFILESIZE:
		return xdr_enc_u64(x, MAXFILESIZE);
	case FATTR4_MAXLINK:
		return xdr_enc_u32(x, MAXLINK);
	case FATTR4_MAXNAME:
		return xdr_enc_u32(x, s->sf.namemax && s->sf.namemax <
						 VFS_NAME_MAX ? s->sf.namemax
							      : VFS_NAME_MAX);
	case FATTR4_MAXREAD:
	case FATTR4_MAXWRITE:
		return xdr_enc_u64(x, NFS4_IO_MAX);
	case FATTR4_MODE:
		return xdr_enc_u32(x, va->mode & 07777);
	case FATTR4_NUMLINKS:
		return xdr_enc_u32(x, va->nlink);
	case FATTR4_OWNER:
		return enc_owner(x, va->uid, false);
	case FATTR4_OWNER_GROUP:
		return enc_owner(x, va->gid, true);
	case FATTR4_RAWDEV:
		return xdr_enc_u32(x, va->rdev_major) &&
		       xdr_enc_u32(x, va->rdev_minor);
	case FATTR4_SPACE_AVAIL:
		return xdr_enc_u64(x, s->sf.abytes);
	case FATTR4_SPACE_FREE:
		return xdr_enc_u64(x, s->sf.fbytes);
	case FATTR4_SPACE_TOTAL:
		return xdr_enc_u64(x, s->sf.tbytes);
	case FATTR4_SPACE_USED:
		return xdr_enc_u64(x, va->used);
	case FATTR4_TIME_ACCESS:
		return enc_time(x, &va->atime);
	case FATTR4_TIME_DELTA:
		/* nanosecond timestamps */
		return xdr_enc_u64(x, 0) && xdr_enc_u32(x, 1);
	case FATTR4_TIME_METADATA:
		return enc_time(x, &va->ctime);
	case FATTR4_TIME_MODIFY:
		return enc_time(x, &va->mtime);
	case FATTR4_MOUNTED_ON_FILEID:
		return xdr_enc_u64(x, s->mounted_on_fileid);
	case FATTR4_FS_LAYOUT_TYPES:
		return xdr_enc_u32(x, 0);
	case FATTR4_SUPPATTR_EXCLCREAT:
		exclcreat_attrs(&b);
		return nfs4_enc_bitmap4(x, &b);
	case FATTR4_CLONE_BLKSIZE:
		return xdr_enc_u32(x, s->sf.bsize ? s->sf.bsize : 4096);
	case FATTR4_CHANGE_ATTR_TYPE:
		return xdr_enc_u32(x, NFS4_CHANGE_TYPE_IS_TIME_METADATA);
	default:
		/* time_access_set / time_modify_set are write-only */
		return true;
	}
}

/* Write-only attributes: supported, never returned by GETATTR. */
static bool attr_write_only(uint32_t n)
{
	return n == FATTR4_TIME_ACCESS_SET || n == FATTR4_TIME_MODIFY_SET;
}

static void bitmap_answer(const struct bitmap4 *req,
			  const struct nfs4_attr_src *s, struct bitmap4 *out)
{
	struct bitmap4 sup;
	uint32_t i;

	nfs4_attr_supported(s->minorversion, &sup);
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
		out->map[i] = (i < req->len ? req->map[i] : 0) & sup.map[i];
	out->len = NFS4_BITMAP_WORDS;
	out->map[FATTR4_TIME_ACCESS_SET / 32] &=
		~(1u << (FATTR4_TIME_ACCESS_SET % 32));
	out->map[FATTR4_TIME_MODIFY_SET / 32] &=
		~(1u << (FATTR4_TIME_MODIFY_SET % 32));
	if (!s->have_fh)
		out->map[0] &= ~(1u << FATTR4_FILEHANDLE);
}

static bool enc_attr_values(struct xdr_buf *x, const struct bitmap4 *ans,
			    const struct nfs4_attr_src *s)
{
	uint32_t n;

	for (n = 0; n < NFS4_BITMAP_WORDS * 32; n++) {
		if (!nfs4_bitmap_isset(ans, n) || attr_write_only(n))
			continue;
		if (!enc_attr(x, n, s))
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

/* ---- decoding of settable attributes ---- */

static bool list_has(const uint8_t *list, size_t n, uint32_t a)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (list[i] == a)
			return true;
	return false;
}

static bool attr_supported_any(uint32_t n)
{
	return list_has(attrs40, sizeof(attrs40), n) ||
	       list_has(attrs41, sizeof(attrs41), n) ||
	       list_has(attrs42, sizeof(attrs42), n);
}

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
	return nfs4_owner_from_str(o.data, o.len, group, id)
		       ? NFS4ERR_BADOWNER
		       : NFS4_OK;
}

static uint32_t dec_settable(struct xdr_buf *x, uint32_t n,
			     struct vfs_sattr *sa)
{
	uint32_t v;

	switch (n) {
	case FATTR4_SIZE:
		sa->set_size = true;
		return xdr_dec_u64(x, &sa->size) ? NFS4_OK : NFS4ERR_BADXDR;
	case FATTR4_MODE:
		if (!xdr_dec_u32(x, &v))
			return NFS4ERR_BADXDR;
		if (v & ~07777u)
			return NFS4ERR_INVAL;
		sa->set_mode = true;
		sa->mode = v;
		return NFS4_OK;
	case FATTR4_OWNER:
		sa->set_uid = true;
		return dec_owner(x, false, &sa->uid);
	case FATTR4_OWNER_GROUP:
		sa->set_gid = true;
		return dec_owner(x, true, &sa->gid);
	case FATTR4_TIME_ACCESS_SET:
		return dec_settime(x, &sa->atime_how, &sa->atime);
	case FATTR4_TIME_MODIFY_SET:
		return dec_settime(x, &sa->mtime_how, &sa->mtime);
	default:
		return NFS4ERR_ATTRNOTSUPP;
	}
}

/** nfs4_fattr4_to_sattr() - settable attributes of @f; see attrs.h. */
uint32_t nfs4_fattr4_to_sattr(const struct fattr4 *f, struct vfs_sattr *sa,
			      struct bitmap4 *set)
{
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
		if (!list_has(attrs_settable, sizeof(attrs_settable), n))
			return attr_supported_any(n) ? NFS4ERR_INVAL
						     : NFS4ERR_ATTRNOTSUPP;
		st = dec_settable(&x, n, sa);
		if (st != NFS4_OK)
			return st;
		nfs4_bitmap_set(set, n);
	}
	/* the values must be exactly what the mask announces */
	if (!xdr_ok(&x) || xdr_remaining(&x) != 0)
		return NFS4ERR_BADXDR;
	return NFS4_OK;
}

/** nfs4_dec_fattr4_sattr() - decode and convert an fattr4; see attrs.h. */
uint32_t nfs4_dec_fattr4_sattr(struct xdr_buf *x, struct vfs_sattr *sa,
			       struct bitmap4 *set)
{
	struct fattr4 f;

	if (!nfs4_dec_fattr4(x, &f))
		return NFS4ERR_BADXDR;
	return nfs4_fattr4_to_sattr(&f, sa, set);
}

/** nfs4_attr_verify() - VERIFY/NVERIFY comparison; see attrs.h. */
uint32_t nfs4_attr_verify(struct nfs4_compound *c, const struct nfs4_fh *fh,
			  const struct fattr4 *f, bool *same)
{
	struct nfs4_attr_src src;
	struct bitmap4 sup;
	struct xdr_buf x;
	uint8_t *buf;
	uint32_t i;
	size_t cap;
	int err;

	if (f->attrmask.beyond)
		return NFS4ERR_ATTRNOTSUPP;
	if (nfs4_bitmap_isset(&f->attrmask, FATTR4_RDATTR_ERROR))
		return NFS4ERR_INVAL;
	nfs4_attr_supported(c->minorversion, &sup);
	for (i = 0; i < NFS4_BITMAP_WORDS; i++)
		if (i < f->attrmask.len && (f->attrmask.map[i] & ~sup.map[i]))
			return NFS4ERR_ATTRNOTSUPP;
	/* write-only attributes cannot be compared (RFC 8881 §18.31.3) */
	if (nfs4_bitmap_isset(&f->attrmask, FATTR4_TIME_ACCESS_SET) ||
	    nfs4_bitmap_isset(&f->attrmask, FATTR4_TIME_MODIFY_SET))
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
