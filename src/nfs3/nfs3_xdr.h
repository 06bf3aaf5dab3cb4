/* SPDX-License-Identifier: MIT */
#ifndef NASD_NFS3_NFS3_XDR_H
#define NASD_NFS3_NFS3_XDR_H

/*
 * NFSv3 wire types (RFC 1813 §2.5 and §3.3) and their XDR codecs, one
 * dec/enc per RFC type. Names keep the RFC's spelling so the code can be
 * read beside the spec.
 *
 * Decoders are strict: booleans are 0/1, enums are range-checked, every
 * length is checked against its maximum and the bytes left. Strings and
 * opaques are borrowed from the receive buffer (pointer + length, not
 * NUL-terminated). The procedure-level codecs (…3args / …3res) take void
 * pointers so that they fit struct rpc_proc without casts.
 */

#include <stdbool.h>
#include <stdint.h>

#include "vfs/vfs.h"
#include "xdr/xdr.h"

#define NFS3_FHSIZE	    64
#define NFS3_COOKIEVERFSIZE 8
#define NFS3_CREATEVERFSIZE 8
#define NFS3_WRITEVERFSIZE  8

/* Server limits (FSINFO reports them). */
#define NFS3_IO_MAX	     (1024 * 1024) /* rtmax = wtmax */
#define NFS3_IO_MULT	     4096
#define NFS3_DIR_PREF	     65536	   /* dtpref */
#define NFS3_DIR_MAX	     (1024 * 1024) /* READDIR(PLUS) count clamp */
#define NFS3_NAME_MAX	     255	   /* filename3 the server accepts */
#define NFS3_NAME_DECODE_MAX 4096	   /* longer is GARBAGE_ARGS */
#define NFS3_PATH_MAX	     4096	   /* nfspath3 */

/* RFC 1813 §3.2 procedure numbers. */
enum nfs3_procnum {
	NFSPROC3_NULL = 0,
	NFSPROC3_GETATTR = 1,
	NFSPROC3_SETATTR = 2,
	NFSPROC3_LOOKUP = 3,
	NFSPROC3_ACCESS = 4,
	NFSPROC3_READLINK = 5,
	NFSPROC3_READ = 6,
	NFSPROC3_WRITE = 7,
	NFSPROC3_CREATE = 8,
	NFSPROC3_MKDIR = 9,
	NFSPROC3_SYMLINK = 10,
	NFSPROC3_MKNOD = 11,
	NFSPROC3_REMOVE = 12,
	NFSPROC3_RMDIR = 13,
	NFSPROC3_RENAME = 14,
	NFSPROC3_LINK = 15,
	NFSPROC3_READDIR = 16,
	NFSPROC3_READDIRPLUS = 17,
	NFSPROC3_FSSTAT = 18,
	NFSPROC3_FSINFO = 19,
	NFSPROC3_PATHCONF = 20,
	NFSPROC3_COMMIT = 21,
	NFSPROC3_NPROCS = 22,
};

/* RFC 1813 §2.6 nfsstat3. */
enum nfsstat3 {
	NFS3_OK = 0,
	NFS3ERR_PERM = 1,
	NFS3ERR_NOENT = 2,
	NFS3ERR_IO = 5,
	NFS3ERR_NXIO = 6,
	NFS3ERR_ACCES = 13,
	NFS3ERR_EXIST = 17,
	NFS3ERR_XDEV = 18,
	NFS3ERR_NODEV = 19,
	NFS3ERR_NOTDIR = 20,
	NFS3ERR_ISDIR = 21,
	NFS3ERR_INVAL = 22,
	NFS3ERR_FBIG = 27,
	NFS3ERR_NOSPC = 28,
	NFS3ERR_ROFS = 30,
	NFS3ERR_MLINK = 31,
	NFS3ERR_NAMETOOLONG = 63,
	NFS3ERR_NOTEMPTY = 66,
	NFS3ERR_DQUOT = 69,
	NFS3ERR_STALE = 70,
	NFS3ERR_REMOTE = 71,
	NFS3ERR_BADHANDLE = 10001,
	NFS3ERR_NOT_SYNC = 10002,
	NFS3ERR_BAD_COOKIE = 10003,
	NFS3ERR_NOTSUPP = 10004,
	NFS3ERR_TOOSMALL = 10005,
	NFS3ERR_SERVERFAULT = 10006,
	NFS3ERR_BADTYPE = 10007,
	NFS3ERR_JUKEBOX = 10008,
};

enum ftype3 {
	NF3REG = 1,
	NF3DIR = 2,
	NF3BLK = 3,
	NF3CHR = 4,
	NF3LNK = 5,
	NF3SOCK = 6,
	NF3FIFO = 7,
};

enum time_how {
	DONT_CHANGE = 0,
	SET_TO_SERVER_TIME = 1,
	SET_TO_CLIENT_TIME = 2,
};

enum stable_how {
	UNSTABLE = 0,
	DATA_SYNC = 1,
	FILE_SYNC = 2,
};

enum createmode3 {
	UNCHECKED = 0,
	GUARDED = 1,
	EXCLUSIVE = 2,
};

#define ACCESS3_READ	0x0001
#define ACCESS3_LOOKUP	0x0002
#define ACCESS3_MODIFY	0x0004
#define ACCESS3_EXTEND	0x0008
#define ACCESS3_DELETE	0x0010
#define ACCESS3_EXECUTE 0x0020

#define FSF3_LINK	 0x0001
#define FSF3_SYMLINK	 0x0002
#define FSF3_HOMOGENEOUS 0x0008
#define FSF3_CANSETTIME	 0x0010

/* Encoded sizes of the fixed-size types, for reply budgets. */
#define NFS3_FATTR3_SIZE       84
#define NFS3_POST_OP_ATTR_SIZE (4 + NFS3_FATTR3_SIZE)
#define NFS3_WCC_DATA_SIZE     (4 + 24 + NFS3_POST_OP_ATTR_SIZE)
#define NFS3_POST_OP_FH3_SIZE  (4 + 4 + NFS3_FHSIZE)

struct nfs_fh3 {
	uint32_t len;
	uint8_t data[NFS3_FHSIZE];
};

/* filename3 / nfspath3: borrowed, not NUL-terminated. */
struct nfs3_str {
	const char *s;
	uint32_t len;
};

struct nfstime3 {
	uint32_t seconds;
	uint32_t nseconds;
};

struct specdata3 {
	uint32_t specdata1;
	uint32_t specdata2;
};

struct fattr3 {
	uint32_t type; /* enum ftype3 */
	uint32_t mode;
	uint32_t nlink;
	uint32_t uid;
	uint32_t gid;
	uint64_t size;
	uint64_t used;
	struct specdata3 rdev;
	uint64_t fsid;
	uint64_t fileid;
	struct nfstime3 atime;
	struct nfstime3 mtime;
	struct nfstime3 ctime;
};

struct post_op_attr {
	bool attributes_follow;
	struct fattr3 attributes;
};

struct wcc_attr {
	uint64_t size;
	struct nfstime3 mtime;
	struct nfstime3 ctime;
};

struct pre_op_attr {
	bool attributes_follow;
	struct wcc_attr attributes;
};

struct wcc_data {
	struct pre_op_attr before;
	struct post_op_attr after;
};

struct post_op_fh3 {
	bool handle_follows;
	struct nfs_fh3 handle;
};

/* sattr3 with its discriminated unions flattened. */
struct sattr3 {
	bool set_mode;
	uint32_t mode;
	bool set_uid;
	uint32_t uid;
	bool set_gid;
	uint32_t gid;
	bool set_size;
	uint64_t size;
	uint32_t set_atime; /* enum time_how */
	struct nfstime3 atime;
	uint32_t set_mtime; /* enum time_how */
	struct nfstime3 mtime;
};

struct diropargs3 {
	struct nfs_fh3 dir;
	struct nfs3_str name;
};

struct sattrguard3 {
	bool check;
	struct nfstime3 obj_ctime;
};

/* ---- arguments ---- */

struct GETATTR3args {
	struct nfs_fh3 object;
};

struct SETATTR3args {
	struct nfs_fh3 object;
	struct sattr3 new_attributes;
	struct sattrguard3 guard;
};

struct LOOKUP3args {
	struct diropargs3 what;
};

struct ACCESS3args {
	struct nfs_fh3 object;
	uint32_t access;
};

struct READLINK3args {
	struct nfs_fh3 symlink;
};

struct READ3args {
	struct nfs_fh3 file;
	uint64_t offset;
	uint32_t count;
};

struct WRITE3args {
	struct nfs_fh3 file;
	uint64_t offset;
	uint32_t count;
	uint32_t stable;     /* enum stable_how */
	const uint8_t *data; /* borrowed, count bytes */
};

struct CREATE3args {
	struct diropargs3 where;
	uint32_t mode;			   /* enum createmode3 */
	struct sattr3 obj_attributes;	   /* UNCHECKED, GUARDED */
	uint8_t verf[NFS3_CREATEVERFSIZE]; /* EXCLUSIVE */
};

struct MKDIR3args {
	struct diropargs3 where;
	struct sattr3 attributes;
};

struct SYMLINK3args {
	struct diropargs3 where;
	struct sattr3 symlink_attributes;
	struct nfs3_str symlink_data;
};

struct MKNOD3args {
	struct diropargs3 where;
	uint32_t type;		  /* enum ftype3 */
	struct sattr3 attributes; /* dev_attributes or pipe_attributes */
	struct specdata3 spec;	  /* NF3CHR, NF3BLK */
};

struct REMOVE3args {
	struct diropargs3 object;
};

struct RMDIR3args {
	struct diropargs3 object;
};

struct RENAME3args {
	struct diropargs3 from;
	struct diropargs3 to;
};

struct LINK3args {
	struct nfs_fh3 file;
	struct diropargs3 link;
};

struct READDIR3args {
	struct nfs_fh3 dir;
	uint64_t cookie;
	uint64_t cookieverf;
	uint32_t count;
};

struct READDIRPLUS3args {
	struct nfs_fh3 dir;
	uint64_t cookie;
	uint64_t cookieverf;
	uint32_t dircount;
	uint32_t maxcount;
};

/* FSSTAT3args, FSINFO3args, PATHCONF3args */
struct FSSTAT3args {
	struct nfs_fh3 fsroot;
};

struct COMMIT3args {
	struct nfs_fh3 file;
	uint64_t offset;
	uint32_t count;
};

/* ---- results: the resok and resfail arms share one struct ---- */

struct GETATTR3res {
	uint32_t status;
	struct fattr3 obj_attributes; /* NFS3_OK only */
};

struct SETATTR3res {
	uint32_t status;
	struct wcc_data obj_wcc;
};

struct LOOKUP3res {
	uint32_t status;
	struct nfs_fh3 object;		    /* NFS3_OK only */
	struct post_op_attr obj_attributes; /* NFS3_OK only */
	struct post_op_attr dir_attributes;
};

struct ACCESS3res {
	uint32_t status;
	struct post_op_attr obj_attributes;
	uint32_t access; /* NFS3_OK only */
};

struct READLINK3res {
	uint32_t status;
	struct post_op_attr symlink_attributes;
	struct nfs3_str data; /* NFS3_OK only; lives in the call arena */
};

struct READ3res {
	uint32_t status;
	struct post_op_attr file_attributes;
	uint32_t count; /* NFS3_OK only, as is eof */
	bool eof;
	/* data<>: count bytes, the request's reply payload (not copied) */
};

struct WRITE3res {
	uint32_t status;
	struct wcc_data file_wcc;
	uint32_t count; /* NFS3_OK only, as are committed and verf */
	uint32_t committed;
	uint64_t verf;
};

/*
 * CREATE3res; MKDIR3res, SYMLINK3res and MKNOD3res have exactly the same
 * shape (RFC 1813 §3.3.9-§3.3.11) and use this struct too.
 */
struct CREATE3res {
	uint32_t status;
	struct post_op_fh3 obj;		    /* NFS3_OK only */
	struct post_op_attr obj_attributes; /* NFS3_OK only */
	struct wcc_data dir_wcc;
};

/* REMOVE3res; RMDIR3res has the same shape. */
struct REMOVE3res {
	uint32_t status;
	struct wcc_data dir_wcc;
};

struct RENAME3res {
	uint32_t status;
	struct wcc_data fromdir_wcc;
	struct wcc_data todir_wcc;
};

struct LINK3res {
	uint32_t status;
	struct post_op_attr file_attributes;
	struct wcc_data linkdir_wcc;
};

/* entry3 and entryplus3 (the plus fields unused for READDIR). */
struct entryplus3 {
	uint64_t fileid;
	struct nfs3_str name; /* in the call arena */
	uint64_t cookie;
	struct post_op_attr name_attributes;
	struct post_op_fh3 name_handle;
	struct entryplus3 *nextentry;
};

/* READDIR3res and READDIRPLUS3res (@plus selects the entry form). */
struct READDIR3res {
	uint32_t status;
	bool plus;
	struct post_op_attr dir_attributes;
	uint64_t cookieverf; /* NFS3_OK only, as are entries, eof */
	struct entryplus3 *entries;
	bool eof;
};

struct FSSTAT3res {
	uint32_t status;
	struct post_op_attr obj_attributes;
	uint64_t tbytes;
	uint64_t fbytes;
	uint64_t abytes;
	uint64_t tfiles;
	uint64_t ffiles;
	uint64_t afiles;
	uint32_t invarsec;
};

struct FSINFO3res {
	uint32_t status;
	struct post_op_attr obj_attributes;
	uint32_t rtmax;
	uint32_t rtpref;
	uint32_t rtmult;
	uint32_t wtmax;
	uint32_t wtpref;
	uint32_t wtmult;
	uint32_t dtpref;
	uint64_t maxfilesize;
	struct nfstime3 time_delta;
	uint32_t properties;
};

struct PATHCONF3res {
	uint32_t status;
	struct post_op_attr obj_attributes;
	uint32_t linkmax;
	uint32_t name_max;
	bool no_trunc;
	bool chown_restricted;
	bool case_insensitive;
	bool case_preserving;
};

struct COMMIT3res {
	uint32_t status;
	struct wcc_data file_wcc;
	uint64_t verf;
};

/* ---- conversions (no I/O) ---- */

/* nfs3_fattr3_from_vfs() - fill @f from the backend's attributes. */
void nfs3_fattr3_from_vfs(struct fattr3 *f, const struct vfs_attr *a);

/* nfs3_wcc_attr_from_vfs() - the pre-op subset (size, mtime, ctime). */
void nfs3_wcc_attr_from_vfs(struct wcc_attr *w, const struct vfs_attr *a);

/* nfs3_sattr3_to_vfs() - a decoded sattr3 as the backend's vfs_sattr. */
void nfs3_sattr3_to_vfs(const struct sattr3 *s, struct vfs_sattr *out);

/* ---- type codecs (RFC 1813 §2.5, §2.6) ---- */

bool nfs3_dec_nfs_fh3(struct xdr_buf *x, struct nfs_fh3 *fh);
bool nfs3_enc_nfs_fh3(struct xdr_buf *x, const struct nfs_fh3 *fh);
bool nfs3_dec_filename3(struct xdr_buf *x, struct nfs3_str *name);
bool nfs3_dec_nfspath3(struct xdr_buf *x, struct nfs3_str *path);
bool nfs3_dec_nfstime3(struct xdr_buf *x, struct nfstime3 *t);
bool nfs3_enc_nfstime3(struct xdr_buf *x, const struct nfstime3 *t);
bool nfs3_enc_specdata3(struct xdr_buf *x, const struct specdata3 *s);
bool nfs3_dec_fattr3(struct xdr_buf *x, struct fattr3 *f);
bool nfs3_enc_fattr3(struct xdr_buf *x, const struct fattr3 *f);
bool nfs3_enc_post_op_attr(struct xdr_buf *x, const struct post_op_attr *a);
bool nfs3_enc_wcc_attr(struct xdr_buf *x, const struct wcc_attr *w);
bool nfs3_enc_pre_op_attr(struct xdr_buf *x, const struct pre_op_attr *a);
bool nfs3_enc_wcc_data(struct xdr_buf *x, const struct wcc_data *w);
bool nfs3_enc_post_op_fh3(struct xdr_buf *x, const struct post_op_fh3 *h);
bool nfs3_dec_sattr3(struct xdr_buf *x, struct sattr3 *s);
bool nfs3_enc_sattr3(struct xdr_buf *x, const struct sattr3 *s);
bool nfs3_dec_diropargs3(struct xdr_buf *x, struct diropargs3 *d);
bool nfs3_dec_sattrguard3(struct xdr_buf *x, struct sattrguard3 *g);

/* Size in bytes of an entry3 / entryplus3 as encoded (with value_follows). */
size_t nfs3_entry3_size(uint32_t namelen);
size_t nfs3_entryplus3_size(const struct entryplus3 *e);

/* ---- procedure codecs (RFC 1813 §3.3) ---- */

bool nfs3_dec_void(struct xdr_buf *x, void *args);
bool nfs3_enc_void(struct xdr_buf *x, const void *res);

bool nfs3_dec_GETATTR3args(struct xdr_buf *x, void *args);
bool nfs3_dec_SETATTR3args(struct xdr_buf *x, void *args);
bool nfs3_inline_SETATTR3args(const uint8_t *args, size_t len);
bool nfs3_dec_LOOKUP3args(struct xdr_buf *x, void *args);
bool nfs3_dec_ACCESS3args(struct xdr_buf *x, void *args);
bool nfs3_dec_READLINK3args(struct xdr_buf *x, void *args);
bool nfs3_dec_READ3args(struct xdr_buf *x, void *args);
bool nfs3_dec_WRITE3args(struct xdr_buf *x, void *args);
size_t nfs3_align_WRITE3args(const uint8_t *args, size_t len);
/* READs up to this many bytes may run on the event loop (nfs3.c). */
#define NFS3_READ_INLINE_MAX (64 * 1024)
bool nfs3_inline_READ3args(const uint8_t *args, size_t len);
bool nfs3_dec_CREATE3args(struct xdr_buf *x, void *args);
bool nfs3_dec_MKDIR3args(struct xdr_buf *x, void *args);
bool nfs3_dec_SYMLINK3args(struct xdr_buf *x, void *args);
bool nfs3_dec_MKNOD3args(struct xdr_buf *x, void *args);
bool nfs3_dec_REMOVE3args(struct xdr_buf *x, void *args);
bool nfs3_dec_RMDIR3args(struct xdr_buf *x, void *args);
bool nfs3_dec_RENAME3args(struct xdr_buf *x, void *args);
bool nfs3_dec_LINK3args(struct xdr_buf *x, void *args);
bool nfs3_dec_READDIR3args(struct xdr_buf *x, void *args);
bool nfs3_dec_READDIRPLUS3args(struct xdr_buf *x, void *args);
bool nfs3_dec_FSSTAT3args(struct xdr_buf *x, void *args);
bool nfs3_dec_COMMIT3args(struct xdr_buf *x, void *args);

bool nfs3_enc_GETATTR3res(struct xdr_buf *x, const void *res);
bool nfs3_enc_SETATTR3res(struct xdr_buf *x, const void *res);
bool nfs3_enc_LOOKUP3res(struct xdr_buf *x, const void *res);
bool nfs3_enc_ACCESS3res(struct xdr_buf *x, const void *res);
bool nfs3_enc_READLINK3res(struct xdr_buf *x, const void *res);
bool nfs3_enc_READ3res(struct xdr_buf *x, const void *res);
bool nfs3_enc_WRITE3res(struct xdr_buf *x, const void *res);
bool nfs3_enc_CREATE3res(struct xdr_buf *x, const void *res);
bool nfs3_enc_REMOVE3res(struct xdr_buf *x, const void *res);
bool nfs3_enc_RENAME3res(struct xdr_buf *x, const void *res);
bool nfs3_enc_LINK3res(struct xdr_buf *x, const void *res);
bool nfs3_enc_READDIR3res(struct xdr_buf *x, const void *res);
bool nfs3_enc_FSSTAT3res(struct xdr_buf *x, const void *res);
bool nfs3_enc_FSINFO3res(struct xdr_buf *x, const void *res);
bool nfs3_enc_PATHCONF3res(struct xdr_buf *x, const void *res);
bool nfs3_enc_COMMIT3res(struct xdr_buf *x, const void *res);

#endif
