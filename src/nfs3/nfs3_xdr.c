// SPDX-License-Identifier: MIT
/*
 * NFSv3 XDR codecs (RFC 1813 §2.5, §3.3): one decoder or encoder per wire
 * type. Decoders never trust a length: every count is checked against its
 * protocol maximum and the bytes left before it is used.
 */

#include "nfs3/nfs3_xdr.h"
#include "rpc/rpc.h"

#define NSEC_PER_SEC 1000000000u

/* ---- conversions ---- */

static const uint32_t ftype3_of_vfs[] = {
	[VFS_REG] = NF3REG,   [VFS_DIR] = NF3DIR, [VFS_BLK] = NF3BLK,
	[VFS_CHR] = NF3CHR,   [VFS_LNK] = NF3LNK, [VFS_SOCK] = NF3SOCK,
	[VFS_FIFO] = NF3FIFO,
};

static struct nfstime3 nfstime3_from_ts(const struct timespec *ts)
{
	struct nfstime3 t = {
		.seconds = (uint32_t)ts->tv_sec,
		.nseconds = (uint32_t)ts->tv_nsec,
	};

	return t;
}

/**
 * nfs3_fattr3_from_vfs() - RFC 1813 §2.5 fattr3 from backend attributes.
 * The mode keeps only the permission bits (07777); an unknown type is
 * reported as a regular file rather than an invalid enum.
 */
void nfs3_fattr3_from_vfs(struct fattr3 *f, const struct vfs_attr *a)
{
	unsigned int t = (unsigned int)a->type;

	f->type = t < sizeof(ftype3_of_vfs) / sizeof(ftype3_of_vfs[0]) &&
				  ftype3_of_vfs[t]
			  ? ftype3_of_vfs[t]
			  : NF3REG;
	f->mode = a->mode & 07777;
	f->nlink = a->nlink;
	f->uid = a->uid;
	f->gid = a->gid;
	f->size = a->size;
	f->used = a->used;
	f->rdev.specdata1 = a->rdev_major;
	f->rdev.specdata2 = a->rdev_minor;
	f->fsid = a->fsid;
	f->fileid = a->fileid;
	f->atime = nfstime3_from_ts(&a->atime);
	f->mtime = nfstime3_from_ts(&a->mtime);
	f->ctime = nfstime3_from_ts(&a->ctime);
}

/**
 * nfs3_wcc_attr_from_vfs() - RFC 1813 §2.6 wcc_attr (size, mtime, ctime).
 */
void nfs3_wcc_attr_from_vfs(struct wcc_attr *w, const struct vfs_attr *a)
{
	w->size = a->size;
	w->mtime = nfstime3_from_ts(&a->mtime);
	w->ctime = nfstime3_from_ts(&a->ctime);
}

static enum vfs_time_how vfs_time_how_of(uint32_t how)
{
	switch (how) {
	case SET_TO_SERVER_TIME:
		return VFS_TIME_SERVER;
	case SET_TO_CLIENT_TIME:
		return VFS_TIME_CLIENT;
	default:
		return VFS_TIME_DONT;
	}
}

/**
 * nfs3_sattr3_to_vfs() - a decoded sattr3 (RFC 1813 §2.5) as vfs_sattr.
 * The mode keeps only the permission bits.
 */
void nfs3_sattr3_to_vfs(const struct sattr3 *s, struct vfs_sattr *out)
{
	memset(out, 0, sizeof(*out));
	out->set_mode = s->set_mode;
	out->mode = s->mode & 07777;
	out->set_uid = s->set_uid;
	out->uid = s->uid;
	out->set_gid = s->set_gid;
	out->gid = s->gid;
	out->set_size = s->set_size;
	out->size = s->size;
	out->atime_how = vfs_time_how_of(s->set_atime);
	out->atime.tv_sec = s->atime.seconds;
	out->atime.tv_nsec = s->atime.nseconds;
	out->mtime_how = vfs_time_how_of(s->set_mtime);
	out->mtime.tv_sec = s->mtime.seconds;
	out->mtime.tv_nsec = s->mtime.nseconds;
}

/* ---- basic types ---- */

/** nfs3_dec_nfs_fh3() - nfs_fh3, opaque<NFS3_FHSIZE>; longer fails. */
bool nfs3_dec_nfs_fh3(struct xdr_buf *x, struct nfs_fh3 *fh)
{
	const uint8_t *p;
	uint32_t len;

	if (!xdr_dec_opaque_ref(x, &p, &len, NFS3_FHSIZE))
		return false;
	memcpy(fh->data, p, len);
	fh->len = len;
	return true;
}

/** nfs3_enc_nfs_fh3() - nfs_fh3; a length over NFS3_FHSIZE fails. */
bool nfs3_enc_nfs_fh3(struct xdr_buf *x, const struct nfs_fh3 *fh)
{
	if (fh->len > NFS3_FHSIZE) {
		xdr_poison(x);
		return false;
	}
	return xdr_enc_opaque(x, fh->data, fh->len);
}

/**
 * nfs3_dec_filename3() - filename3 (string<>), borrowed. Names up to
 * NFS3_NAME_DECODE_MAX decode so that the handler can answer
 * NFS3ERR_NAMETOOLONG for those over NFS3_NAME_MAX; longer ones fail.
 */
bool nfs3_dec_filename3(struct xdr_buf *x, struct nfs3_str *name)
{
	const uint8_t *p;
	uint32_t len;

	if (!xdr_dec_opaque_ref(x, &p, &len, NFS3_NAME_DECODE_MAX))
		return false;
	name->s = (const char *)p;
	name->len = len;
	return true;
}

/** nfs3_dec_nfspath3() - nfspath3 (string<>) up to NFS3_PATH_MAX. */
bool nfs3_dec_nfspath3(struct xdr_buf *x, struct nfs3_str *path)
{
	const uint8_t *p;
	uint32_t len;

	if (!xdr_dec_opaque_ref(x, &p, &len, NFS3_PATH_MAX))
		return false;
	path->s = (const char *)p;
	path->len = len;
	return true;
}

/** nfs3_dec_nfstime3() - nfstime3; nseconds must be below 10^9. */
bool nfs3_dec_nfstime3(struct xdr_buf *x, struct nfstime3 *t)
{
	if (!xdr_dec_u32(x, &t->seconds) || !xdr_dec_u32(x, &t->nseconds))
		return false;
	if (t->nseconds >= NSEC_PER_SEC) {
		xdr_poison(x);
		return false;
	}
	return true;
}

/** nfs3_enc_nfstime3() - nfstime3. */
bool nfs3_enc_nfstime3(struct xdr_buf *x, const struct nfstime3 *t)
{
	return xdr_enc_u32(x, t->seconds) && xdr_enc_u32(x, t->nseconds);
}

/** nfs3_enc_specdata3() - specdata3. */
bool nfs3_enc_specdata3(struct xdr_buf *x, const struct specdata3 *s)
{
	return xdr_enc_u32(x, s->specdata1) && xdr_enc_u32(x, s->specdata2);
}

static bool dec_enum(struct xdr_buf *x, uint32_t *v, uint32_t min, uint32_t max)
{
	if (!xdr_dec_u32(x, v))
		return false;
	if (*v < min || *v > max) {
		xdr_poison(x);
		return false;
	}
	return true;
}

/** nfs3_dec_fattr3() - fattr3 (used by tests and clients of the codec). */
bool nfs3_dec_fattr3(struct xdr_buf *x, struct fattr3 *f)
{
	return dec_enum(x, &f->type, NF3REG, NF3FIFO) &&
	       xdr_dec_u32(x, &f->mode) && xdr_dec_u32(x, &f->nlink) &&
	       xdr_dec_u32(x, &f->uid) && xdr_dec_u32(x, &f->gid) &&
	       xdr_dec_u64(x, &f->size) && xdr_dec_u64(x, &f->used) &&
	       xdr_dec_u32(x, &f->rdev.specdata1) &&
	       xdr_dec_u32(x, &f->rdev.specdata2) && xdr_dec_u64(x, &f->fsid) &&
	       xdr_dec_u64(x, &f->fileid) && nfs3_dec_nfstime3(x, &f->atime) &&
	       nfs3_dec_nfstime3(x, &f->mtime) &&
	       nfs3_dec_nfstime3(x, &f->ctime);
}

/** nfs3_enc_fattr3() - fattr3, NFS3_FATTR3_SIZE bytes. */
bool nfs3_enc_fattr3(struct xdr_buf *x, const struct fattr3 *f)
{
	return xdr_enc_u32(x, f->type) && xdr_enc_u32(x, f->mode) &&
	       xdr_enc_u32(x, f->nlink) && xdr_enc_u32(x, f->uid) &&
	       xdr_enc_u32(x, f->gid) && xdr_enc_u64(x, f->size) &&
	       xdr_enc_u64(x, f->used) && nfs3_enc_specdata3(x, &f->rdev) &&
	       xdr_enc_u64(x, f->fsid) && xdr_enc_u64(x, f->fileid) &&
	       nfs3_enc_nfstime3(x, &f->atime) &&
	       nfs3_enc_nfstime3(x, &f->mtime) &&
	       nfs3_enc_nfstime3(x, &f->ctime);
}

/** nfs3_enc_post_op_attr() - post_op_attr. */
bool nfs3_enc_post_op_attr(struct xdr_buf *x, const struct post_op_attr *a)
{
	if (!xdr_enc_bool(x, a->attributes_follow))
		return false;
	return !a->attributes_follow || nfs3_enc_fattr3(x, &a->attributes);
}

/** nfs3_enc_wcc_attr() - wcc_attr. */
bool nfs3_enc_wcc_attr(struct xdr_buf *x, const struct wcc_attr *w)
{
	return xdr_enc_u64(x, w->size) && nfs3_enc_nfstime3(x, &w->mtime) &&
	       nfs3_enc_nfstime3(x, &w->ctime);
}

/** nfs3_enc_pre_op_attr() - pre_op_attr. */
bool nfs3_enc_pre_op_attr(struct xdr_buf *x, const struct pre_op_attr *a)
{
	if (!xdr_enc_bool(x, a->attributes_follow))
		return false;
	return !a->attributes_follow || nfs3_enc_wcc_attr(x, &a->attributes);
}

/** nfs3_enc_wcc_data() - wcc_data. */
bool nfs3_enc_wcc_data(struct xdr_buf *x, const struct wcc_data *w)
{
	return nfs3_enc_pre_op_attr(x, &w->before) &&
	       nfs3_enc_post_op_attr(x, &w->after);
}

/** nfs3_enc_post_op_fh3() - post_op_fh3. */
bool nfs3_enc_post_op_fh3(struct xdr_buf *x, const struct post_op_fh3 *h)
{
	if (!xdr_enc_bool(x, h->handle_follows))
		return false;
	return !h->handle_follows || nfs3_enc_nfs_fh3(x, &h->handle);
}

static bool dec_set_time(struct xdr_buf *x, uint32_t *how, struct nfstime3 *t)
{
	if (!dec_enum(x, how, DONT_CHANGE, SET_TO_CLIENT_TIME))
		return false;
	if (*how == SET_TO_CLIENT_TIME)
		return nfs3_dec_nfstime3(x, t);
	memset(t, 0, sizeof(*t));
	return true;
}

/**
 * nfs3_dec_sattr3() - sattr3 with its set_* unions; a bad boolean or
 * time_how fails.
 */
bool nfs3_dec_sattr3(struct xdr_buf *x, struct sattr3 *s)
{
	memset(s, 0, sizeof(*s));
	if (!xdr_dec_bool(x, &s->set_mode) ||
	    (s->set_mode && !xdr_dec_u32(x, &s->mode)))
		return false;
	if (!xdr_dec_bool(x, &s->set_uid) ||
	    (s->set_uid && !xdr_dec_u32(x, &s->uid)))
		return false;
	if (!xdr_dec_bool(x, &s->set_gid) ||
	    (s->set_gid && !xdr_dec_u32(x, &s->gid)))
		return false;
	if (!xdr_dec_bool(x, &s->set_size) ||
	    (s->set_size && !xdr_dec_u64(x, &s->size)))
		return false;
	return dec_set_time(x, &s->set_atime, &s->atime) &&
	       dec_set_time(x, &s->set_mtime, &s->mtime);
}

static bool enc_set_time(struct xdr_buf *x, uint32_t how,
			 const struct nfstime3 *t)
{
	if (!xdr_enc_u32(x, how))
		return false;
	return how != SET_TO_CLIENT_TIME || nfs3_enc_nfstime3(x, t);
}

/** nfs3_enc_sattr3() - sattr3 (the client's side; used by tests). */
bool nfs3_enc_sattr3(struct xdr_buf *x, const struct sattr3 *s)
{
	return xdr_enc_bool(x, s->set_mode) &&
	       (!s->set_mode || xdr_enc_u32(x, s->mode)) &&
	       xdr_enc_bool(x, s->set_uid) &&
	       (!s->set_uid || xdr_enc_u32(x, s->uid)) &&
	       xdr_enc_bool(x, s->set_gid) &&
	       (!s->set_gid || xdr_enc_u32(x, s->gid)) &&
	       xdr_enc_bool(x, s->set_size) &&
	       (!s->set_size || xdr_enc_u64(x, s->size)) &&
	       enc_set_time(x, s->set_atime, &s->atime) &&
	       enc_set_time(x, s->set_mtime, &s->mtime);
}

/** nfs3_dec_diropargs3() - diropargs3. */
bool nfs3_dec_diropargs3(struct xdr_buf *x, struct diropargs3 *d)
{
	return nfs3_dec_nfs_fh3(x, &d->dir) && nfs3_dec_filename3(x, &d->name);
}

/** nfs3_dec_sattrguard3() - sattrguard3. */
bool nfs3_dec_sattrguard3(struct xdr_buf *x, struct sattrguard3 *g)
{
	if (!xdr_dec_bool(x, &g->check))
		return false;
	return !g->check || nfs3_dec_nfstime3(x, &g->obj_ctime);
}

/**
 * nfs3_entry3_size() - bytes of one entry3 in a READDIR3resok, including
 * the value_follows word before it.
 */
size_t nfs3_entry3_size(uint32_t namelen)
{
	return 4 + 8 + 4 + (size_t)namelen + xdr_pad(namelen) + 8;
}

/** nfs3_entryplus3_size() - bytes of one entryplus3, as nfs3_entry3_size. */
size_t nfs3_entryplus3_size(const struct entryplus3 *e)
{
	size_t n = nfs3_entry3_size(e->name.len) + 4 + 4;

	if (e->name_attributes.attributes_follow)
		n += NFS3_FATTR3_SIZE;
	if (e->name_handle.handle_follows)
		n += 4 + e->name_handle.handle.len +
		     xdr_pad(e->name_handle.handle.len);
	return n;
}

/* ---- procedure arguments ---- */

/** nfs3_dec_void() - void arguments (NULL procedure). */
bool nfs3_dec_void(struct xdr_buf *x, void *args)
{
	(void)x;
	(void)args;
	return true;
}

/** nfs3_enc_void() - void result. */
bool nfs3_enc_void(struct xdr_buf *x, const void *res)
{
	(void)res;
	return xdr_ok(x);
}

/** nfs3_dec_GETATTR3args() - RFC 1813 §3.3.1. */
bool nfs3_dec_GETATTR3args(struct xdr_buf *x, void *args)
{
	struct GETATTR3args *a = args;

	return nfs3_dec_nfs_fh3(x, &a->object);
}

/** nfs3_dec_SETATTR3args() - RFC 1813 §3.3.2. */
bool nfs3_dec_SETATTR3args(struct xdr_buf *x, void *args)
{
	struct SETATTR3args *a = args;

	return nfs3_dec_nfs_fh3(x, &a->object) &&
	       nfs3_dec_sattr3(x, &a->new_attributes) &&
	       nfs3_dec_sattrguard3(x, &a->guard);
}

/** nfs3_dec_LOOKUP3args() - RFC 1813 §3.3.3. */
bool nfs3_dec_LOOKUP3args(struct xdr_buf *x, void *args)
{
	struct LOOKUP3args *a = args;

	return nfs3_dec_diropargs3(x, &a->what);
}

/** nfs3_dec_ACCESS3args() - RFC 1813 §3.3.4. */
bool nfs3_dec_ACCESS3args(struct xdr_buf *x, void *args)
{
	struct ACCESS3args *a = args;

	return nfs3_dec_nfs_fh3(x, &a->object) && xdr_dec_u32(x, &a->access);
}

/** nfs3_dec_READLINK3args() - RFC 1813 §3.3.5. */
bool nfs3_dec_READLINK3args(struct xdr_buf *x, void *args)
{
	struct READLINK3args *a = args;

	return nfs3_dec_nfs_fh3(x, &a->symlink);
}

/** nfs3_dec_READ3args() - RFC 1813 §3.3.6 (count is clamped later). */
bool nfs3_dec_READ3args(struct xdr_buf *x, void *args)
{
	struct READ3args *a = args;

	return nfs3_dec_nfs_fh3(x, &a->file) && xdr_dec_u64(x, &a->offset) &&
	       xdr_dec_u32(x, &a->count);
}

/**
 * nfs3_dec_WRITE3args() - RFC 1813 §3.3.7. The data (at most NFS3_IO_MAX
 * bytes) is borrowed from the receive buffer and must be exactly @count
 * bytes long.
 */
bool nfs3_dec_WRITE3args(struct xdr_buf *x, void *args)
{
	struct WRITE3args *a = args;
	uint32_t len;

	if (!nfs3_dec_nfs_fh3(x, &a->file) || !xdr_dec_u64(x, &a->offset) ||
	    !xdr_dec_u32(x, &a->count) ||
	    !dec_enum(x, &a->stable, UNSTABLE, FILE_SYNC) ||
	    !xdr_dec_opaque_ref(x, &a->data, &len, NFS3_IO_MAX))
		return false;
	if (len != a->count) {
		xdr_poison(x);
		return false;
	}
	return true;
}

/**
 * nfs3_align_WRITE3args() - rpc_proc.payload_align of WRITE (RFC 1813
 * §3.3.7): from the head of the arguments, the offset of the first data
 * byte that starts an RPC_PAYLOAD_ALIGN block of the file, so that the
 * data's block-aligned part can go to O_DIRECT from the receive buffer.
 * 0 when the head is too short or the write holds no such byte.
 */
size_t nfs3_align_WRITE3args(const uint8_t *args, size_t len)
{
	const uint8_t *fh;
	uint32_t fhlen, count, stable, dlen, skip;
	struct xdr_buf x;
	uint64_t offset;

	xdr_init(&x, (uint8_t *)args, len);
	if (!xdr_dec_opaque_ref(&x, &fh, &fhlen, NFS3_FHSIZE) ||
	    !xdr_dec_u64(&x, &offset) || !xdr_dec_u32(&x, &count) ||
	    !xdr_dec_u32(&x, &stable) || !xdr_dec_u32(&x, &dlen))
		return 0;
	skip = (uint32_t)((RPC_PAYLOAD_ALIGN - offset % RPC_PAYLOAD_ALIGN) %
			  RPC_PAYLOAD_ALIGN);
	if (skip >= dlen)
		return 0;
	return x.pos + skip;
}

/**
 * nfs3_inline_READ3args() - rpc_proc.inline_ok of READ (RFC 1813 §3.3.6):
 * whether the count asked is at most NFS3_READ_INLINE_MAX, small enough
 * to copy from the page cache on the event loop.
 */
bool nfs3_inline_READ3args(const uint8_t *args, size_t len)
{
	const uint8_t *fh;
	uint32_t fhlen, count;
	struct xdr_buf x;
	uint64_t offset;

	xdr_init(&x, (uint8_t *)args, len);
	return xdr_dec_opaque_ref(&x, &fh, &fhlen, NFS3_FHSIZE) &&
	       xdr_dec_u64(&x, &offset) && xdr_dec_u32(&x, &count) &&
	       count <= NFS3_READ_INLINE_MAX;
}

/*
 * nfs3_inline_SETATTR3args() - rpc_proc.inline_ok of SETATTR (RFC 1813
 * §3.3.2): a new mode, owner or times is an in-memory inode change, done
 * on the event loop; a new size (a truncate may free or zero blocks)
 * goes to a worker, and so do arguments that do not decode (the worker
 * answers GARBAGE_ARGS).
 */
bool nfs3_inline_SETATTR3args(const uint8_t *args, size_t len)
{
	const uint8_t *fh;
	struct xdr_buf x;
	struct sattr3 sa;
	uint32_t fhlen;

	xdr_init(&x, (uint8_t *)args, len);
	return xdr_dec_opaque_ref(&x, &fh, &fhlen, NFS3_FHSIZE) &&
	       nfs3_dec_sattr3(&x, &sa) && !sa.set_size;
}

/** nfs3_dec_CREATE3args() - RFC 1813 §3.3.8, createhow3 by mode. */
bool nfs3_dec_CREATE3args(struct xdr_buf *x, void *args)
{
	struct CREATE3args *a = args;

	if (!nfs3_dec_diropargs3(x, &a->where) ||
	    !dec_enum(x, &a->mode, UNCHECKED, EXCLUSIVE))
		return false;
	if (a->mode == EXCLUSIVE)
		return xdr_dec_opaque_fixed(x, a->verf, NFS3_CREATEVERFSIZE);
	return nfs3_dec_sattr3(x, &a->obj_attributes);
}

/** nfs3_dec_MKDIR3args() - RFC 1813 §3.3.9. */
bool nfs3_dec_MKDIR3args(struct xdr_buf *x, void *args)
{
	struct MKDIR3args *a = args;

	return nfs3_dec_diropargs3(x, &a->where) &&
	       nfs3_dec_sattr3(x, &a->attributes);
}

/** nfs3_dec_SYMLINK3args() - RFC 1813 §3.3.10 (symlinkdata3 inline). */
bool nfs3_dec_SYMLINK3args(struct xdr_buf *x, void *args)
{
	struct SYMLINK3args *a = args;

	return nfs3_dec_diropargs3(x, &a->where) &&
	       nfs3_dec_sattr3(x, &a->symlink_attributes) &&
	       nfs3_dec_nfspath3(x, &a->symlink_data);
}

/**
 * nfs3_dec_MKNOD3args() - RFC 1813 §3.3.11, mknoddata3 by type. Types
 * outside ftype3 fail; NF3REG/NF3DIR/NF3LNK decode (void arm) and the
 * handler answers NFS3ERR_BADTYPE.
 */
bool nfs3_dec_MKNOD3args(struct xdr_buf *x, void *args)
{
	struct MKNOD3args *a = args;

	if (!nfs3_dec_diropargs3(x, &a->where) ||
	    !dec_enum(x, &a->type, NF3REG, NF3FIFO))
		return false;
	switch (a->type) {
	case NF3CHR:
	case NF3BLK:
		return nfs3_dec_sattr3(x, &a->attributes) &&
		       xdr_dec_u32(x, &a->spec.specdata1) &&
		       xdr_dec_u32(x, &a->spec.specdata2);
	case NF3SOCK:
	case NF3FIFO:
		return nfs3_dec_sattr3(x, &a->attributes);
	default:
		return true;
	}
}

/** nfs3_dec_REMOVE3args() - RFC 1813 §3.3.12. */
bool nfs3_dec_REMOVE3args(struct xdr_buf *x, void *args)
{
	struct REMOVE3args *a = args;

	return nfs3_dec_diropargs3(x, &a->object);
}

/** nfs3_dec_RMDIR3args() - RFC 1813 §3.3.13. */
bool nfs3_dec_RMDIR3args(struct xdr_buf *x, void *args)
{
	struct RMDIR3args *a = args;

	return nfs3_dec_diropargs3(x, &a->object);
}

/** nfs3_dec_RENAME3args() - RFC 1813 §3.3.14. */
bool nfs3_dec_RENAME3args(struct xdr_buf *x, void *args)
{
	struct RENAME3args *a = args;

	return nfs3_dec_diropargs3(x, &a->from) &&
	       nfs3_dec_diropargs3(x, &a->to);
}

/** nfs3_dec_LINK3args() - RFC 1813 §3.3.15. */
bool nfs3_dec_LINK3args(struct xdr_buf *x, void *args)
{
	struct LINK3args *a = args;

	return nfs3_dec_nfs_fh3(x, &a->file) &&
	       nfs3_dec_diropargs3(x, &a->link);
}

/** nfs3_dec_READDIR3args() - RFC 1813 §3.3.16. */
bool nfs3_dec_READDIR3args(struct xdr_buf *x, void *args)
{
	struct READDIR3args *a = args;

	return nfs3_dec_nfs_fh3(x, &a->dir) && xdr_dec_u64(x, &a->cookie) &&
	       xdr_dec_u64(x, &a->cookieverf) && xdr_dec_u32(x, &a->count);
}

/** nfs3_dec_READDIRPLUS3args() - RFC 1813 §3.3.17. */
bool nfs3_dec_READDIRPLUS3args(struct xdr_buf *x, void *args)
{
	struct READDIRPLUS3args *a = args;

	return nfs3_dec_nfs_fh3(x, &a->dir) && xdr_dec_u64(x, &a->cookie) &&
	       xdr_dec_u64(x, &a->cookieverf) && xdr_dec_u32(x, &a->dircount) &&
	       xdr_dec_u32(x, &a->maxcount);
}

/**
 * nfs3_dec_FSSTAT3args() - RFC 1813 §3.3.18; FSINFO3args (§3.3.19) and
 * PATHCONF3args (§3.3.20) are the same single handle.
 */
bool nfs3_dec_FSSTAT3args(struct xdr_buf *x, void *args)
{
	struct FSSTAT3args *a = args;

	return nfs3_dec_nfs_fh3(x, &a->fsroot);
}

/** nfs3_dec_COMMIT3args() - RFC 1813 §3.3.21. */
bool nfs3_dec_COMMIT3args(struct xdr_buf *x, void *args)
{
	struct COMMIT3args *a = args;

	return nfs3_dec_nfs_fh3(x, &a->file) && xdr_dec_u64(x, &a->offset) &&
	       xdr_dec_u32(x, &a->count);
}

/* ---- procedure results ---- */

/** nfs3_enc_GETATTR3res() - RFC 1813 §3.3.1. */
bool nfs3_enc_GETATTR3res(struct xdr_buf *x, const void *res)
{
	const struct GETATTR3res *r = res;

	if (!xdr_enc_u32(x, r->status))
		return false;
	return r->status != NFS3_OK || nfs3_enc_fattr3(x, &r->obj_attributes);
}

/** nfs3_enc_SETATTR3res() - RFC 1813 §3.3.2 (wcc in both arms). */
bool nfs3_enc_SETATTR3res(struct xdr_buf *x, const void *res)
{
	const struct SETATTR3res *r = res;

	return xdr_enc_u32(x, r->status) && nfs3_enc_wcc_data(x, &r->obj_wcc);
}

/** nfs3_enc_LOOKUP3res() - RFC 1813 §3.3.3. */
bool nfs3_enc_LOOKUP3res(struct xdr_buf *x, const void *res)
{
	const struct LOOKUP3res *r = res;

	if (!xdr_enc_u32(x, r->status))
		return false;
	if (r->status == NFS3_OK &&
	    (!nfs3_enc_nfs_fh3(x, &r->object) ||
	     !nfs3_enc_post_op_attr(x, &r->obj_attributes)))
		return false;
	return nfs3_enc_post_op_attr(x, &r->dir_attributes);
}

/** nfs3_enc_ACCESS3res() - RFC 1813 §3.3.4. */
bool nfs3_enc_ACCESS3res(struct xdr_buf *x, const void *res)
{
	const struct ACCESS3res *r = res;

	if (!xdr_enc_u32(x, r->status) ||
	    !nfs3_enc_post_op_attr(x, &r->obj_attributes))
		return false;
	return r->status != NFS3_OK || xdr_enc_u32(x, r->access);
}

/** nfs3_enc_READLINK3res() - RFC 1813 §3.3.5. */
bool nfs3_enc_READLINK3res(struct xdr_buf *x, const void *res)
{
	const struct READLINK3res *r = res;

	if (!xdr_enc_u32(x, r->status) ||
	    !nfs3_enc_post_op_attr(x, &r->symlink_attributes))
		return false;
	return r->status != NFS3_OK ||
	       xdr_enc_opaque(x, r->data.s, r->data.len);
}

/**
 * nfs3_enc_READ3res() - RFC 1813 §3.3.6. The data is not copied: the
 * opaque's length ends the body, and the bytes follow as the reply's
 * payload (nfs3_proc_read set it, with the XDR padding).
 */
bool nfs3_enc_READ3res(struct xdr_buf *x, const void *res)
{
	const struct READ3res *r = res;

	if (!xdr_enc_u32(x, r->status) ||
	    !nfs3_enc_post_op_attr(x, &r->file_attributes))
		return false;
	if (r->status != NFS3_OK)
		return true;
	return xdr_enc_u32(x, r->count) && xdr_enc_bool(x, r->eof) &&
	       xdr_enc_u32(x, r->count);
}

/** nfs3_enc_WRITE3res() - RFC 1813 §3.3.7. */
bool nfs3_enc_WRITE3res(struct xdr_buf *x, const void *res)
{
	const struct WRITE3res *r = res;

	if (!xdr_enc_u32(x, r->status) || !nfs3_enc_wcc_data(x, &r->file_wcc))
		return false;
	return r->status != NFS3_OK ||
	       (xdr_enc_u32(x, r->count) && xdr_enc_u32(x, r->committed) &&
		xdr_enc_u64(x, r->verf));
}

/**
 * nfs3_enc_CREATE3res() - RFC 1813 §3.3.8; also MKDIR3res, SYMLINK3res and
 * MKNOD3res (§3.3.9-§3.3.11), which have the same shape.
 */
bool nfs3_enc_CREATE3res(struct xdr_buf *x, const void *res)
{
	const struct CREATE3res *r = res;

	if (!xdr_enc_u32(x, r->status))
		return false;
	if (r->status == NFS3_OK &&
	    (!nfs3_enc_post_op_fh3(x, &r->obj) ||
	     !nfs3_enc_post_op_attr(x, &r->obj_attributes)))
		return false;
	return nfs3_enc_wcc_data(x, &r->dir_wcc);
}

/** nfs3_enc_REMOVE3res() - RFC 1813 §3.3.12; also RMDIR3res (§3.3.13). */
bool nfs3_enc_REMOVE3res(struct xdr_buf *x, const void *res)
{
	const struct REMOVE3res *r = res;

	return xdr_enc_u32(x, r->status) && nfs3_enc_wcc_data(x, &r->dir_wcc);
}

/** nfs3_enc_RENAME3res() - RFC 1813 §3.3.14. */
bool nfs3_enc_RENAME3res(struct xdr_buf *x, const void *res)
{
	const struct RENAME3res *r = res;

	return xdr_enc_u32(x, r->status) &&
	       nfs3_enc_wcc_data(x, &r->fromdir_wcc) &&
	       nfs3_enc_wcc_data(x, &r->todir_wcc);
}

/** nfs3_enc_LINK3res() - RFC 1813 §3.3.15. */
bool nfs3_enc_LINK3res(struct xdr_buf *x, const void *res)
{
	const struct LINK3res *r = res;

	return xdr_enc_u32(x, r->status) &&
	       nfs3_enc_post_op_attr(x, &r->file_attributes) &&
	       nfs3_enc_wcc_data(x, &r->linkdir_wcc);
}

static bool enc_entry(struct xdr_buf *x, const struct entryplus3 *e, bool plus)
{
	if (!xdr_enc_bool(x, true) || !xdr_enc_u64(x, e->fileid) ||
	    !xdr_enc_opaque(x, e->name.s, e->name.len) ||
	    !xdr_enc_u64(x, e->cookie))
		return false;
	return !plus || (nfs3_enc_post_op_attr(x, &e->name_attributes) &&
			 nfs3_enc_post_op_fh3(x, &e->name_handle));
}

/**
 * nfs3_enc_READDIR3res() - RFC 1813 §3.3.16, or READDIRPLUS3res
 * (§3.3.17) when @plus is set: the entry list as optional-data chain.
 */
bool nfs3_enc_READDIR3res(struct xdr_buf *x, const void *res)
{
	const struct READDIR3res *r = res;
	const struct entryplus3 *e;

	if (!xdr_enc_u32(x, r->status) ||
	    !nfs3_enc_post_op_attr(x, &r->dir_attributes))
		return false;
	if (r->status != NFS3_OK)
		return true;
	if (!xdr_enc_u64(x, r->cookieverf))
		return false;
	for (e = r->entries; e; e = e->nextentry)
		if (!enc_entry(x, e, r->plus))
			return false;
	return xdr_enc_bool(x, false) && xdr_enc_bool(x, r->eof);
}

/** nfs3_enc_FSSTAT3res() - RFC 1813 §3.3.18. */
bool nfs3_enc_FSSTAT3res(struct xdr_buf *x, const void *res)
{
	const struct FSSTAT3res *r = res;

	if (!xdr_enc_u32(x, r->status) ||
	    !nfs3_enc_post_op_attr(x, &r->obj_attributes))
		return false;
	return r->status != NFS3_OK ||
	       (xdr_enc_u64(x, r->tbytes) && xdr_enc_u64(x, r->fbytes) &&
		xdr_enc_u64(x, r->abytes) && xdr_enc_u64(x, r->tfiles) &&
		xdr_enc_u64(x, r->ffiles) && xdr_enc_u64(x, r->afiles) &&
		xdr_enc_u32(x, r->invarsec));
}

/** nfs3_enc_FSINFO3res() - RFC 1813 §3.3.19. */
bool nfs3_enc_FSINFO3res(struct xdr_buf *x, const void *res)
{
	const struct FSINFO3res *r = res;

	if (!xdr_enc_u32(x, r->status) ||
	    !nfs3_enc_post_op_attr(x, &r->obj_attributes))
		return false;
	return r->status != NFS3_OK ||
	       (xdr_enc_u32(x, r->rtmax) && xdr_enc_u32(x, r->rtpref) &&
		xdr_enc_u32(x, r->rtmult) && xdr_enc_u32(x, r->wtmax) &&
		xdr_enc_u32(x, r->wtpref) && xdr_enc_u32(x, r->wtmult) &&
		xdr_enc_u32(x, r->dtpref) && xdr_enc_u64(x, r->maxfilesize) &&
		nfs3_enc_nfstime3(x, &r->time_delta) &&
		xdr_enc_u32(x, r->properties));
}

/** nfs3_enc_PATHCONF3res() - RFC 1813 §3.3.20. */
bool nfs3_enc_PATHCONF3res(struct xdr_buf *x, const void *res)
{
	const struct PATHCONF3res *r = res;

	if (!xdr_enc_u32(x, r->status) ||
	    !nfs3_enc_post_op_attr(x, &r->obj_attributes))
		return false;
	return r->status != NFS3_OK ||
	       (xdr_enc_u32(x, r->linkmax) && xdr_enc_u32(x, r->name_max) &&
		xdr_enc_bool(x, r->no_trunc) &&
		xdr_enc_bool(x, r->chown_restricted) &&
		xdr_enc_bool(x, r->case_insensitive) &&
		xdr_enc_bool(x, r->case_preserving));
}

/** nfs3_enc_COMMIT3res() - RFC 1813 §3.3.21. */
bool nfs3_enc_COMMIT3res(struct xdr_buf *x, const void *res)
{
	const struct COMMIT3res *r = res;

	if (!xdr_enc_u32(x, r->status) || !nfs3_enc_wcc_data(x, &r->file_wcc))
		return false;
	return r->status != NFS3_OK || xdr_enc_u64(x, r->verf);
}
