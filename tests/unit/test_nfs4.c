// SPDX-License-Identifier: MIT
/*
 * Unit tests of the NFSv4 core (engineer N1's part): the errno to
 * nfsstat4 table over every operation x errno, the attribute codecs, and
 * whole COMPOUNDs run through rpc_process() against a temporary
 * export: minor versions, OP_ILLEGAL, BADXDR, op limits, NOFILEHANDLE,
 * the pseudo-fs (PUTROOTFH, LOOKUP across the junction, LOOKUPP back,
 * READDIR, ROFS), forged handles, and the namespace and I/O operations.
 */

#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/err.h"
#include "export/export.h"
#include "nfs4/attrs.h"
#include "nfs4/nfs4.h"
#include "nfs4/nfs4_int.h"
#include "nfs4/ops.h"
#include "nfs4/pseudo.h"
#include "nfs4/state/state.h"
#include "rpc/rpc.h"
#include "vfs/vfs.h"

/* ---- the status table ---- */

static void test_status_every_op_every_errno(void **state)
{
	static const int internal[] = {EBADHANDLE, ENOTSYNC,	 EBADCOOKIE,
				       ENOTSUPP,   ETOOSMALL,	 ESERVERFAULT,
				       EBADTYPE,   EJUKEBOX,	 EBADNAME,
				       4095,	   100000};
	uint32_t op, st;
	int e;
	size_t i;

	for (op = OP_ACCESS; op <= NFS4_OP_MAX; op++) {
		for (e = 1; e < 134; e++) {
			st = nfs4_status(op, -e);
			assert_true(nfs4_status_allowed(op, st));
			assert_int_not_equal(st, NFS4_OK);
			/* the sign of the error does not matter */
			assert_int_equal(nfs4_status(op, e), st);
		}
		for (i = 0; i < sizeof(internal) / sizeof(internal[0]); i++) {
			st = nfs4_status(op, -internal[i]);
			assert_true(nfs4_status_allowed(op, st));
		}
		assert_int_equal(nfs4_status(op, 0), NFS4_OK);
	}
	/* ops outside the table can only fail with SERVERFAULT */
	assert_int_equal(nfs4_status(9999, -ENOENT), NFS4ERR_SERVERFAULT);
}

/* RFC 8881 §15.2's list for READDIR, written out again here. */
static void test_status_readdir_list(void **state)
{
	static const uint32_t rfc[] = {
		NFS4ERR_ACCESS,		NFS4ERR_BADXDR,
		NFS4ERR_BAD_COOKIE,	NFS4ERR_DEADSESSION,
		NFS4ERR_DELAY,		NFS4ERR_FHEXPIRED,
		NFS4ERR_INVAL,		NFS4ERR_IO,
		NFS4ERR_MOVED,		NFS4ERR_NOFILEHANDLE,
		NFS4ERR_NOTDIR,		NFS4ERR_NOT_SAME,
		NFS4ERR_OP_NOT_IN_SESSION, NFS4ERR_REP_TOO_BIG,
		NFS4ERR_REP_TOO_BIG_TO_CACHE, NFS4ERR_REQ_TOO_BIG,
		NFS4ERR_RETRY_UNCACHED_REP, NFS4ERR_SERVERFAULT,
		NFS4ERR_STALE,		NFS4ERR_TOOSMALL,
		NFS4ERR_TOO_MANY_OPS,
	};
	size_t i;

	for (i = 0; i < sizeof(rfc) / sizeof(rfc[0]); i++)
		assert_true(nfs4_status_allowed(OP_READDIR, rfc[i]));
	assert_false(nfs4_status_allowed(OP_READDIR, NFS4ERR_NOENT));
	assert_false(nfs4_status_allowed(OP_READDIR, NFS4ERR_SYMLINK));
	assert_false(nfs4_status_allowed(OP_PUTFH, NFS4ERR_NOENT));
	assert_false(nfs4_status_allowed(OP_PUTFH, NFS4ERR_IO));
}

static void test_status_specific(void **state)
{
	assert_int_equal(nfs4_status(OP_LOOKUP, -ENOENT), NFS4ERR_NOENT);
	assert_int_equal(nfs4_status(OP_LOOKUP, -ELOOP), NFS4ERR_SYMLINK);
	assert_int_equal(nfs4_status(OP_LOOKUP, -EBADNAME), NFS4ERR_BADNAME);
	assert_int_equal(nfs4_status(OP_CREATE, -EILSEQ), NFS4ERR_BADCHAR);
	assert_int_equal(nfs4_status(OP_REMOVE, -ENOTEMPTY),
			 NFS4ERR_NOTEMPTY);
	assert_int_equal(nfs4_status(OP_RENAME, -EXDEV), NFS4ERR_XDEV);
	assert_int_equal(nfs4_status(OP_WRITE, -ENOSPC), NFS4ERR_NOSPC);
	assert_int_equal(nfs4_status(OP_READ, -EJUKEBOX), NFS4ERR_DELAY);
	assert_int_equal(nfs4_status(OP_PUTFH, -EBADHANDLE),
			 NFS4ERR_BADHANDLE);
	assert_int_equal(nfs4_status(OP_PUTFH, -ESTALE), NFS4ERR_STALE);
	/* not allowed as such: a related status, then IO/SERVERFAULT */
	assert_int_equal(nfs4_status(OP_PUTFH, -ENOENT), NFS4ERR_STALE);
	assert_int_equal(nfs4_status(OP_GETATTR, -ENOSPC), NFS4ERR_IO);
	assert_int_equal(nfs4_status(OP_REMOVE, -EPERM), NFS4ERR_ACCESS);
	assert_int_equal(nfs4_status(OP_PUTROOTFH, -EIO),
			 NFS4ERR_SERVERFAULT);
	assert_int_equal(nfs4_status(OP_READDIR, -ELOOP), NFS4ERR_INVAL);
	assert_int_equal(nfs4_status(OP_SETATTR, -EISDIR), NFS4ERR_ISDIR);
}

/* ---- attributes ---- */

struct wbuf {
	uint8_t b[8192];
	struct xdr_buf x;
};

static void wb_init(struct wbuf *w)
{
	xdr_init(&w->x, w->b, sizeof(w->b));
}

static void fattr_of(struct wbuf *vals, uint32_t w0, uint32_t w1,
		     struct fattr4 *f)
{
	memset(f, 0, sizeof(*f));
	f->attrmask.len = 2;
	f->attrmask.map[0] = w0;
	f->attrmask.map[1] = w1;
	f->attr_vals.data = vals->b;
	f->attr_vals.len = (uint32_t)vals->x.pos;
}

#define W1(n) (1u << ((n) - 32))

static void test_sattr_decode(void **state)
{
	struct vfs_sattr sa;
	struct bitmap4 set;
	struct fattr4 f;
	struct wbuf v;

	/* size (word 0), mode, owner, time_modify_set(client) (word 1) */
	wb_init(&v);
	assert_true(xdr_enc_u64(&v.x, 12345));
	assert_true(xdr_enc_u32(&v.x, 0640));
	assert_true(xdr_enc_opaque(&v.x, "1000", 4));
	assert_true(xdr_enc_u32(&v.x, SET_TO_CLIENT_TIME4));
	assert_true(xdr_enc_u64(&v.x, 1700000000));
	assert_true(xdr_enc_u32(&v.x, 5));
	fattr_of(&v, 1u << FATTR4_SIZE,
		 W1(FATTR4_MODE) | W1(FATTR4_OWNER) |
			 W1(FATTR4_TIME_MODIFY_SET),
		 &f);
	assert_int_equal(nfs4_fattr4_to_sattr(&f, &sa, &set), NFS4_OK);
	assert_true(sa.set_size && sa.size == 12345);
	assert_true(sa.set_mode && sa.mode == 0640);
	assert_true(sa.set_uid && sa.uid == 1000);
	assert_false(sa.set_gid);
	assert_int_equal(sa.mtime_how, VFS_TIME_CLIENT);
	assert_int_equal(sa.mtime.tv_sec, 1700000000);
	assert_int_equal(sa.mtime.tv_nsec, 5);
	assert_true(nfs4_bitmap_isset(&set, FATTR4_SIZE));
	assert_true(nfs4_bitmap_isset(&set, FATTR4_TIME_MODIFY_SET));

	/* one byte too many: the values do not match the mask */
	f.attr_vals.len += 4;
	assert_int_equal(nfs4_fattr4_to_sattr(&f, &sa, &set), NFS4ERR_BADXDR);
	/* one byte too few */
	f.attr_vals.len -= 8;
	assert_int_equal(nfs4_fattr4_to_sattr(&f, &sa, &set), NFS4ERR_BADXDR);

	/* read-only attribute: INVAL; unsupported one: ATTRNOTSUPP */
	wb_init(&v);
	assert_true(xdr_enc_u64(&v.x, 7));
	fattr_of(&v, 1u << FATTR4_CHANGE, 0, &f);
	assert_int_equal(nfs4_fattr4_to_sattr(&f, &sa, &set), NFS4ERR_INVAL);
	fattr_of(&v, 1u << FATTR4_ACL, 0, &f);
	assert_int_equal(nfs4_fattr4_to_sattr(&f, &sa, &set),
			 NFS4ERR_ATTRNOTSUPP);
	fattr_of(&v, 0, 0, &f);
	f.attrmask.beyond = true;
	assert_int_equal(nfs4_fattr4_to_sattr(&f, &sa, &set),
			 NFS4ERR_ATTRNOTSUPP);

	/* mode bits beyond 07777, nseconds >= 1e9, bad time_how */
	wb_init(&v);
	assert_true(xdr_enc_u32(&v.x, 010000));
	fattr_of(&v, 0, W1(FATTR4_MODE), &f);
	assert_int_equal(nfs4_fattr4_to_sattr(&f, &sa, &set), NFS4ERR_INVAL);
	wb_init(&v);
	assert_true(xdr_enc_u32(&v.x, SET_TO_CLIENT_TIME4));
	assert_true(xdr_enc_u64(&v.x, 1));
	assert_true(xdr_enc_u32(&v.x, 1000000000));
	fattr_of(&v, 0, W1(FATTR4_TIME_ACCESS_SET), &f);
	assert_int_equal(nfs4_fattr4_to_sattr(&f, &sa, &set), NFS4ERR_INVAL);
	wb_init(&v);
	assert_true(xdr_enc_u32(&v.x, 7));
	fattr_of(&v, 0, W1(FATTR4_TIME_ACCESS_SET), &f);
	assert_int_equal(nfs4_fattr4_to_sattr(&f, &sa, &set), NFS4ERR_BADXDR);

	/* owner: not a number and no domain configured */
	wb_init(&v);
	assert_true(xdr_enc_opaque(&v.x, "bob@example.com", 15));
	fattr_of(&v, 0, W1(FATTR4_OWNER), &f);
	assert_int_equal(nfs4_fattr4_to_sattr(&f, &sa, &set),
			 NFS4ERR_BADOWNER);
}

/*
 * supported_attrs of each minor version, written out: RFC 7530 §5's
 * attributes but acl (12), archive (14), fs_locations (24), hidden (25),
 * mimetype (32), quota_* (38-40), system (46), time_backup (49) and
 * time_create (50); 4.1 adds fs_layout_types (62) and
 * suppattr_exclcreat (75); 4.2 clone_blksize (77), change_attr_type
 * (79) and xattr_support (82, RFC 8276). A minor version past 2 gets
 * 4.2's set.
 */
static void test_attr_supported_per_minor(void **state)
{
	static const struct bitmap4 want[] = {
		{.len = 2, .map = {0xfcffafff, 0x00f9be3e, 0}},
		{.len = 3, .map = {0xfcffafff, 0x40f9be3e, 0x00000800}},
		{.len = 3, .map = {0xfcffafff, 0x40f9be3e, 0x0004a800}},
		{.len = 3, .map = {0xfcffafff, 0x40f9be3e, 0x0004a800}},
	};
	struct bitmap4 b;
	uint32_t minor;

	for (minor = 0; minor < 4; minor++) {
		memset(&b, 0x5a, sizeof(b));
		nfs4_attr_supported(minor, &b);
		assert_int_equal(b.len, want[minor].len);
		assert_int_equal(b.map[0], want[minor].map[0]);
		assert_int_equal(b.map[1], want[minor].map[1]);
		assert_int_equal(b.map[2], want[minor].map[2]);
		assert_false(b.beyond);
	}
}

/* An attribute source with every field set, as for a regular file. */
static void attr_src_file(struct nfs4_attr_src *s, uint32_t minor)
{
	memset(s, 0, sizeof(*s));
	s->minorversion = minor;
	s->va.type = VFS_REG;
	s->va.mode = 0100640;
	s->va.nlink = 2;
	s->va.uid = 1234;
	s->va.gid = 5678;
	s->va.size = 0x123456789ULL;
	s->va.used = 8192;
	s->va.fileid = 77;
	s->va.atime.tv_sec = 1700000000;
	s->va.atime.tv_nsec = 1;
	s->va.mtime.tv_sec = 1700000001;
	s->va.mtime.tv_nsec = 2;
	s->va.ctime.tv_sec = 1700000002;
	s->va.ctime.tv_nsec = 3;
	s->va.change = 99;
	s->va.rdev_major = 8;
	s->va.rdev_minor = 1;
	s->fsid_major = 5;
	s->mounted_on_fileid = 78;
	s->have_statfs = true;
	s->sf.afiles = 11;
	s->sf.ffiles = 12;
	s->sf.tfiles = 13;
	s->sf.abytes = 21;
	s->sf.fbytes = 22;
	s->sf.tbytes = 23;
	s->sf.namemax = 200;
	s->sf.bsize = 8192;
	s->have_fh = true;
	s->fh.len = 8;
	memset(s->fh.data, 0xa5, 8);
}

/* Encode the fattr4 of @req from @s; decode it back into @f. */
static void attr_enc_dec(struct wbuf *w, const struct bitmap4 *req,
			 const struct nfs4_attr_src *s, struct fattr4 *f)
{
	struct xdr_buf x;

	wb_init(w);
	assert_true(nfs4_enc_fattr4(&w->x, req, s));
	xdr_init(&x, w->b, w->x.pos);
	assert_true(nfs4_dec_fattr4(&x, f));
	assert_int_equal(xdr_remaining(&x), 0);
}

/*
 * A GETATTR of every supported attribute of each minor version encodes,
 * answers all of them but the write-only two, and is the concatenation
 * of the attributes asked one at a time.
 */
static void test_attr_getattr_every(void **state)
{
	struct nfs4_attr_src s;
	struct bitmap4 sup, one;
	struct fattr4 f;
	struct wbuf w;
	uint32_t minor, n, i, total;

	for (minor = 0; minor <= 2; minor++) {
		attr_src_file(&s, minor);
		nfs4_attr_supported(minor, &sup);
		attr_enc_dec(&w, &sup, &s, &f);
		/* (trailing zero words are not sent) */
		assert_int_equal(f.attrmask.len, minor ? 3 : 2);
		for (i = 0; i < NFS4_BITMAP_WORDS; i++) {
			uint32_t want = i < sup.len ? sup.map[i] : 0;

			if (i == 1)
				want &= ~(W1(FATTR4_TIME_ACCESS_SET) |
					  W1(FATTR4_TIME_MODIFY_SET));
			assert_int_equal(f.attrmask.map[i], want);
		}
		total = f.attr_vals.len;
		for (n = 0; n < NFS4_BITMAP_WORDS * 32; n++) {
			if (!nfs4_bitmap_isset(&sup, n))
				continue;
			memset(&one, 0, sizeof(one));
			nfs4_bitmap_set(&one, n);
			attr_enc_dec(&w, &one, &s, &f);
			if (n == FATTR4_TIME_ACCESS_SET ||
			    n == FATTR4_TIME_MODIFY_SET) {
				assert_false(nfs4_bitmap_isset(&f.attrmask, n));
				assert_int_equal(f.attr_vals.len, 0);
				continue;
			}
			assert_true(nfs4_bitmap_isset(&f.attrmask, n));
			assert_true(f.attr_vals.len >= 4);
			assert_int_equal(f.attr_vals.len % 4, 0);
			assert_true(total >= f.attr_vals.len);
			total -= f.attr_vals.len;
		}
		assert_int_equal(total, 0);
	}
	/* without a filehandle, filehandle is left out of the answer */
	attr_src_file(&s, 0);
	s.have_fh = false;
	nfs4_attr_supported(0, &sup);
	attr_enc_dec(&w, &sup, &s, &f);
	assert_false(nfs4_bitmap_isset(&f.attrmask, FATTR4_FILEHANDLE));
	assert_true(nfs4_bitmap_isset(&f.attrmask, FATTR4_FILEID));
	/* an entry with rdattr_error: only it and mounted_on_fileid */
	s.rdattr_error = NFS4ERR_ACCESS;
	attr_enc_dec(&w, &sup, &s, &f);
	assert_int_equal(f.attrmask.map[0], 1u << FATTR4_RDATTR_ERROR);
	assert_int_equal(f.attrmask.map[1], W1(FATTR4_MOUNTED_ON_FILEID));
	assert_int_equal(f.attr_vals.len, 12);
}

/* The next value of @x is @want (a u32, a u64, an opaque of @len). */
static void want_u32(struct xdr_buf *x, uint32_t want)
{
	uint32_t v = ~want;

	assert_true(xdr_dec_u32(x, &v));
	assert_int_equal(v, want);
}

static void want_u64(struct xdr_buf *x, uint64_t want)
{
	uint64_t v = ~want;

	assert_true(xdr_dec_u64(x, &v));
	assert_true(v == want);
}

static void want_opaque(struct xdr_buf *x, const void *want, uint32_t len)
{
	struct nfs4_opaque o;

	assert_true(nfs4_dec_opaque(x, &o, 1024));
	assert_int_equal(o.len, len);
	assert_memory_equal(o.data, want, len);
}

/*
 * Every attribute's value, as GETATTR of everything in 4.2 encodes it
 * from attr_src_file(), written out in attribute number order.
 */
static void test_attr_values(void **state)
{
	static const uint8_t fh[8] = {0xa5, 0xa5, 0xa5, 0xa5,
				      0xa5, 0xa5, 0xa5, 0xa5};
	struct nfs4_attr_src s;
	struct bitmap4 sup;
	struct xdr_buf x;
	struct fattr4 f;
	struct wbuf w;

	attr_src_file(&s, 2);
	nfs4_attr_supported(2, &sup);
	attr_enc_dec(&w, &sup, &s, &f);
	xdr_init(&x, (uint8_t *)f.attr_vals.data, f.attr_vals.len);
	want_u32(&x, 3); /* supported_attrs */
	want_u32(&x, 0xfcffafff);
	want_u32(&x, 0x40f9be3e);
	want_u32(&x, 0x0004a800);
	want_u32(&x, NF4REG);                  /* type */
	want_u32(&x, FH4_PERSISTENT);          /* fh_expire_type */
	want_u64(&x, 99);                      /* change */
	want_u64(&x, 0x123456789ULL);          /* size */
	want_u32(&x, 1);                       /* link_support */
	want_u32(&x, 1);                       /* symlink_support */
	want_u32(&x, 0);                       /* named_attr */
	want_u64(&x, 5);                       /* fsid */
	want_u64(&x, 0);
	want_u32(&x, 1);                       /* unique_handles */
	want_u32(&x, nfs4_lease_time());       /* lease_time */
	want_u32(&x, NFS4_OK);                 /* rdattr_error */
	want_u32(&x, 0);                       /* aclsupport */
	want_u32(&x, 1);                       /* cansettime */
	want_u32(&x, 0);                       /* case_insensitive */
	want_u32(&x, 1);                       /* case_preserving */
	want_u32(&x, 1);                       /* chown_restricted */
	want_opaque(&x, fh, sizeof(fh));       /* filehandle */
	want_u64(&x, 77);                      /* fileid */
	want_u64(&x, 11);                      /* files_avail */
	want_u64(&x, 12);                      /* files_free */
	want_u64(&x, 13);                      /* files_total */
	want_u32(&x, 1);                       /* homogeneous */
	want_u64(&x, 0x7fffffffffffffffULL);   /* maxfilesize */
	want_u32(&x, 65000);                   /* maxlink */
	want_u32(&x, 200);                     /* maxname */
	want_u64(&x, NFS4_IO_MAX);             /* maxread */
	want_u64(&x, NFS4_IO_MAX);             /* maxwrite */
	want_u32(&x, 0640);                    /* mode */
	want_u32(&x, 1);                       /* no_trunc */
	want_u32(&x, 2);                       /* numlinks */
	want_opaque(&x, "1234", 4);            /* owner */
	want_opaque(&x, "5678", 4);            /* owner_group */
	want_u32(&x, 8);                       /* rawdev */
	want_u32(&x, 1);
	want_u64(&x, 21);                      /* space_avail */
	want_u64(&x, 22);                      /* space_free */
	want_u64(&x, 23);                      /* space_total */
	want_u64(&x, 8192);                    /* space_used */
	want_u64(&x, 1700000000);              /* time_access */
	want_u32(&x, 1);
	want_u64(&x, 0);                       /* time_delta */
	want_u32(&x, 1);
	want_u64(&x, 1700000002);              /* time_metadata */
	want_u32(&x, 3);
	want_u64(&x, 1700000001);              /* time_modify */
	want_u32(&x, 2);
	want_u64(&x, 78);                      /* mounted_on_fileid */
	want_u32(&x, 0);                       /* fs_layout_types */
	want_u32(&x, 2);                       /* suppattr_exclcreat */
	want_u32(&x, 1u << FATTR4_SIZE);
	want_u32(&x, W1(FATTR4_MODE) | W1(FATTR4_OWNER) |
			     W1(FATTR4_OWNER_GROUP));
	want_u32(&x, 8192);                    /* clone_blksize */
	want_u32(&x, NFS4_CHANGE_TYPE_IS_TIME_METADATA); /* change_attr_type */
	want_u32(&x, 0);                       /* xattr_support */
	assert_int_equal(xdr_remaining(&x), 0);

	/* what is left to defaults: maxname and clone_blksize */
	s.sf.namemax = 0;
	s.sf.bsize = 0;
	memset(&sup, 0, sizeof(sup));
	nfs4_bitmap_set(&sup, FATTR4_MAXNAME);
	nfs4_bitmap_set(&sup, FATTR4_CLONE_BLKSIZE);
	attr_enc_dec(&w, &sup, &s, &f);
	xdr_init(&x, (uint8_t *)f.attr_vals.data, f.attr_vals.len);
	want_u32(&x, VFS_NAME_MAX);
	want_u32(&x, 4096);
	assert_int_equal(xdr_remaining(&x), 0);
}

/* The attribute names of RFC 7530 §5, RFC 8881 §5.8 and RFC 7862 §12.2,
 * by number. */
static const char *const rfc_attr_names[] = {
	"supported_attrs", "type", "fh_expire_type", "change", "size",
	"link_support", "symlink_support", "named_attr", "fsid",
	"unique_handles", "lease_time", "rdattr_error", "acl", "aclsupport",
	"archive", "cansettime", "case_insensitive", "case_preserving",
	"chown_restricted", "filehandle", "fileid", "files_avail",
	"files_free", "files_total", "fs_locations", "hidden", "homogeneous",
	"maxfilesize", "maxlink", "maxname", "maxread", "maxwrite",
	"mimetype", "mode", "no_trunc", "numlinks", "owner", "owner_group",
	"quota_avail_hard", "quota_avail_soft", "quota_used", "rawdev",
	"space_avail", "space_free", "space_total", "space_used", "system",
	"time_access", "time_access_set", "time_backup", "time_create",
	"time_delta", "time_metadata", "time_modify", "time_modify_set",
	"mounted_on_fileid",
	/* 56: RFC 8881 (4.1) */
	"dir_notif_delay", "dirent_notif_delay", "dacl", "sacl",
	"change_policy", "fs_status", "fs_layout_types", "layout_hint",
	"layout_type", "layout_blksize", "layout_alignment",
	"fs_locations_info", "mdsthreshold", "retention_get",
	"retention_set", "retentevt_get", "retentevt_set", "retention_hold",
	"mode_set_masked", "suppattr_exclcreat", "fs_charset_cap",
	/* 77: RFC 7862 (4.2) */
	"clone_blksize", "space_freed", "change_attr_type", "sec_label",
	/* 81: RFC 8275 (mode_umask), RFC 8276 */
	"mode_umask", "xattr_support",
};

#define NATTR_RFC (sizeof(rfc_attr_names) / sizeof(rfc_attr_names[0]))

/* The minor version that defined attribute @n. */
static uint32_t rfc_attr_minor(uint32_t n)
{
	return n <= 55 ? 0 : n <= 76 ? 1 : 2;
}

static bool in_list(const uint32_t *list, size_t len, uint32_t n)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (list[i] == n)
			return true;
	return false;
}

#define LEN(a) (sizeof(a) / sizeof((a)[0]))

/*
 * The attribute table: each row in the slot of its RFC number, with the
 * RFC's name and minor version, names unique; its columns coherent
 * (write-only = no encoder, a decoder exactly for the settable ones);
 * and the flags on the attributes written out here.
 */
static void test_attr_table(void **state)
{
	static const uint32_t settable[] = {
		FATTR4_SIZE, FATTR4_MODE, FATTR4_OWNER, FATTR4_OWNER_GROUP,
		FATTR4_TIME_ACCESS_SET, FATTR4_TIME_MODIFY_SET,
	};
	static const uint32_t write_only[] = {
		FATTR4_TIME_ACCESS_SET, FATTR4_TIME_MODIFY_SET,
	};
	static const uint32_t statfs[] = {
		FATTR4_FILES_AVAIL, FATTR4_FILES_FREE, FATTR4_FILES_TOTAL,
		FATTR4_MAXNAME, FATTR4_SPACE_AVAIL, FATTR4_SPACE_FREE,
		FATTR4_SPACE_TOTAL, FATTR4_CLONE_BLKSIZE,
	};
	static const uint32_t exclcreat[] = {
		FATTR4_SIZE, FATTR4_MODE, FATTR4_OWNER, FATTR4_OWNER_GROUP,
	};
	const struct nfs4_attr *a, *b;
	struct nfs4_attr_src s;
	struct bitmap4 sup, req;
	struct fattr4 f;
	struct wbuf w;
	struct xdr_buf x;
	uint32_t n, m, v, rows = 0;

	nfs4_attr_supported(2, &sup);
	for (n = 0; n < NFS4_BITMAP_WORDS * 32 + 8; n++) {
		a = nfs4_attr_get(n);
		assert_int_equal(a != NULL, nfs4_bitmap_isset(&sup, n));
		if (!a)
			continue;
		rows++;
		assert_true(n < NATTR_RFC);
		assert_string_equal(a->name, rfc_attr_names[n]);
		assert_int_equal(a->minor_min, rfc_attr_minor(n));
		for (m = 0; m < n; m++) {
			b = nfs4_attr_get(m);
			if (b)
				assert_string_not_equal(a->name, b->name);
		}
		assert_int_equal(a->flags & ~(NFS4_ATTR_WRITE_ONLY |
					      NFS4_ATTR_STATFS |
					      NFS4_ATTR_EXCLCREAT),
				 0);
		assert_int_equal(!a->encode,
				 !!(a->flags & NFS4_ATTR_WRITE_ONLY));
		assert_int_equal(!!a->decode,
				 in_list(settable, LEN(settable), n));
		assert_int_equal(!!(a->flags & NFS4_ATTR_WRITE_ONLY),
				 in_list(write_only, LEN(write_only), n));
		assert_int_equal(!!(a->flags & NFS4_ATTR_STATFS),
				 in_list(statfs, LEN(statfs), n));
		assert_int_equal(!!(a->flags & NFS4_ATTR_EXCLCREAT),
				 in_list(exclcreat, LEN(exclcreat), n));
		/* a minor version has it from minor_min on */
		for (m = 0; m <= 2; m++) {
			nfs4_attr_supported(m, &req);
			assert_int_equal(nfs4_bitmap_isset(&req, n),
					 m >= a->minor_min);
		}
		/* nfs4_attr_any() sees each flag */
		memset(&req, 0, sizeof(req));
		nfs4_bitmap_set(&req, n);
		for (m = 0; m < 8; m++)
			assert_int_equal(nfs4_attr_any(&req, 1u << m),
					 !!(a->flags & (1u << m)));
		assert_false(nfs4_attr_any(&req, 0));
		assert_false(nfs4_attr_any(&req, NFS4_ATTR_WRITE_ONLY |
						       NFS4_ATTR_STATFS));
	}
	assert_int_equal(rows, 50);
	assert_null(nfs4_attr_get(UINT32_MAX));

	/* suppattr_exclcreat as sent: size (word 0), mode and owners */
	attr_src_file(&s, 1);
	memset(&req, 0, sizeof(req));
	nfs4_bitmap_set(&req, FATTR4_SUPPATTR_EXCLCREAT);
	attr_enc_dec(&w, &req, &s, &f);
	xdr_init(&x, (uint8_t *)f.attr_vals.data, f.attr_vals.len);
	assert_true(xdr_dec_u32(&x, &v) && v == 2);
	assert_true(xdr_dec_u32(&x, &v) && v == 1u << FATTR4_SIZE);
	assert_true(xdr_dec_u32(&x, &v) &&
		    v == (W1(FATTR4_MODE) | W1(FATTR4_OWNER) |
			  W1(FATTR4_OWNER_GROUP)));
	assert_int_equal(xdr_remaining(&x), 0);
}

/* Encode the settime4 of @how (and @ts) for time_*_set. */
static void enc_settime(struct wbuf *w, uint32_t how,
			const struct timespec *ts)
{
	wb_init(w);
	assert_true(xdr_enc_u32(&w->x, how));
	if (how == SET_TO_CLIENT_TIME4) {
		assert_true(xdr_enc_u64(&w->x, (uint64_t)ts->tv_sec));
		assert_true(xdr_enc_u32(&w->x, (uint32_t)ts->tv_nsec));
	}
}

/*
 * Each settable attribute, encoded as GETATTR answers it (the write-only
 * times as a client sends them), decodes into the same value.
 */
static void test_attr_settable_round_trip(void **state)
{
	static const uint32_t readable[] = {
		FATTR4_SIZE, FATTR4_MODE, FATTR4_OWNER, FATTR4_OWNER_GROUP,
	};
	static const uint32_t times[] = {
		FATTR4_TIME_ACCESS_SET, FATTR4_TIME_MODIFY_SET,
	};
	struct nfs4_attr_src s;
	struct vfs_sattr sa;
	struct bitmap4 req, set;
	struct timespec ts = {.tv_sec = 1600000000, .tv_nsec = 999999999};
	struct fattr4 f;
	const struct nfs4_attr *a;
	struct wbuf w;
	uint32_t i, how, n;

	/* the two lists are the table's settable rows */
	for (n = 0; n < NFS4_BITMAP_WORDS * 32; n++) {
		a = nfs4_attr_get(n);
		if (in_list(readable, LEN(readable), n)) {
			assert_true(a && a->decode && a->encode);
		} else if (in_list(times, LEN(times), n)) {
			assert_true(a && a->decode && !a->encode);
		} else {
			assert_true(!a || !a->decode);
		}
	}
	attr_src_file(&s, 0);
	for (i = 0; i < LEN(readable); i++) {
		memset(&req, 0, sizeof(req));
		nfs4_bitmap_set(&req, readable[i]);
		attr_enc_dec(&w, &req, &s, &f);
		assert_int_equal(nfs4_fattr4_to_sattr(&f, &sa, &set), NFS4_OK);
		assert_memory_equal(&set, &req, sizeof(set));
		assert_int_equal(sa.set_size, readable[i] == FATTR4_SIZE);
		assert_int_equal(sa.set_mode, readable[i] == FATTR4_MODE);
		assert_int_equal(sa.set_uid, readable[i] == FATTR4_OWNER);
		assert_int_equal(sa.set_gid, readable[i] == FATTR4_OWNER_GROUP);
		if (sa.set_size)
			assert_true(sa.size == s.va.size);
		if (sa.set_mode)
			assert_int_equal(sa.mode, s.va.mode & 07777);
		if (sa.set_uid)
			assert_int_equal(sa.uid, s.va.uid);
		if (sa.set_gid)
			assert_int_equal(sa.gid, s.va.gid);
		assert_int_equal(sa.atime_how, VFS_TIME_DONT);
		assert_int_equal(sa.mtime_how, VFS_TIME_DONT);
	}
	for (i = 0; i < LEN(times); i++) {
		for (how = SET_TO_SERVER_TIME4; how <= SET_TO_CLIENT_TIME4;
		     how++) {
			bool atime = times[i] == FATTR4_TIME_ACCESS_SET;
			enum vfs_time_how want = how == SET_TO_CLIENT_TIME4
							 ? VFS_TIME_CLIENT
							 : VFS_TIME_SERVER;

			enc_settime(&w, how, &ts);
			fattr_of(&w, 0, W1(times[i]), &f);
			assert_int_equal(nfs4_fattr4_to_sattr(&f, &sa, &set),
					 NFS4_OK);
			assert_true(nfs4_bitmap_isset(&set, times[i]));
			assert_false(sa.set_size || sa.set_mode ||
				     sa.set_uid || sa.set_gid);
			assert_int_equal(atime ? sa.atime_how : sa.mtime_how,
					 want);
			assert_int_equal(atime ? sa.mtime_how : sa.atime_how,
					 VFS_TIME_DONT);
			if (how == SET_TO_CLIENT_TIME4) {
				const struct timespec *got =
					atime ? &sa.atime : &sa.mtime;

				assert_int_equal(got->tv_sec, ts.tv_sec);
				assert_int_equal(got->tv_nsec, ts.tv_nsec);
			}
		}
	}
}

static void test_bitmap_decode_limits(void **state)
{
	uint8_t buf[64];
	struct bitmap4 b;
	struct xdr_buf x;

	/* a count far beyond the bytes present fails at once */
	xdr_init(&x, buf, sizeof(buf));
	assert_true(xdr_enc_u32(&x, 0x40000000));
	xdr_init(&x, buf, 8);
	assert_false(nfs4_dec_bitmap4(&x, &b));
	/* five words: the 4th and 5th only set "beyond" */
	xdr_init(&x, buf, sizeof(buf));
	assert_true(xdr_enc_u32(&x, 5));
	assert_true(xdr_enc_u32(&x, 1));
	assert_true(xdr_enc_u32(&x, 2));
	assert_true(xdr_enc_u32(&x, 4));
	assert_true(xdr_enc_u32(&x, 0));
	assert_true(xdr_enc_u32(&x, 8));
	xdr_init(&x, buf, 24);
	assert_true(nfs4_dec_bitmap4(&x, &b));
	assert_int_equal(b.len, 3);
	assert_int_equal(b.map[2], 4);
	assert_true(b.beyond);
	assert_int_equal(x.pos, 24);
}

static void test_name_check(void **state)
{
	struct nfs4_opaque n;
	char longname[300];

	n.data = (const uint8_t *)"ok";
	n.len = 2;
	assert_int_equal(nfs4_name_check(&n), 0);
	n.len = 0;
	assert_int_equal(nfs4_name_check(&n), -EINVAL);
	n.data = (const uint8_t *)"..";
	n.len = 2;
	assert_int_equal(nfs4_name_check(&n), -EBADNAME);
	n.data = (const uint8_t *)"a/b";
	n.len = 3;
	assert_int_equal(nfs4_name_check(&n), -EILSEQ);
	n.data = (const uint8_t *)"a\0b";
	assert_int_equal(nfs4_name_check(&n), -EILSEQ);
	n.data = (const uint8_t *)"\xc3\x28";
	n.len = 2;
	assert_int_equal(nfs4_name_check(&n), -EINVAL);
	n.data = (const uint8_t *)"\xc3\xa9t\xc3\xa9";
	n.len = 5;
	assert_int_equal(nfs4_name_check(&n), 0);
	memset(longname, 'a', sizeof(longname));
	n.data = (const uint8_t *)longname;
	n.len = 256;
	assert_int_equal(nfs4_name_check(&n), -ENAMETOOLONG);
}

/* ---- the operation table ---- */

/*
 * Every operation of RFC 7530 §16 (4.0), RFC 8881 §18 (4.1) and RFC 7862
 * §15 (4.2), written out again here: its name, the minor version that
 * introduced it, the last one that has it (the 4.0-only operations are
 * "MNI", must not implement, in RFC 8881 §17: 0) and whether nasd
 * answers it NFS4ERR_NOTSUPP by decision (ops_notsupp.c,
 * ops42_notsupp.c), after COMPOUND's prechecks or at once.
 */
enum op_impl {
	IMPL,              /* implemented */
	NOTSUPP,           /* NOTSUPP from nfs4_op_notsupp(), after prechecks */
	NOTSUPP_AT_ONCE,   /* no handler: NOTSUPP before any check */
};

struct rfc_op {
	const char *name;
	uint8_t minor_min;
	uint8_t minor_max;
	enum op_impl impl;
};

#define ALL 255

static const struct rfc_op rfc_ops[NFS4_OP_MAX + 1] = {
	[OP_ACCESS] = {"ACCESS", 0, ALL, IMPL},
	[OP_CLOSE] = {"CLOSE", 0, ALL, IMPL},
	[OP_COMMIT] = {"COMMIT", 0, ALL, IMPL},
	[OP_CREATE] = {"CREATE", 0, ALL, IMPL},
	[OP_DELEGPURGE] = {"DELEGPURGE", 0, ALL, IMPL},
	[OP_DELEGRETURN] = {"DELEGRETURN", 0, ALL, IMPL},
	[OP_GETATTR] = {"GETATTR", 0, ALL, IMPL},
	[OP_GETFH] = {"GETFH", 0, ALL, IMPL},
	[OP_LINK] = {"LINK", 0, ALL, IMPL},
	[OP_LOCK] = {"LOCK", 0, ALL, IMPL},
	[OP_LOCKT] = {"LOCKT", 0, ALL, IMPL},
	[OP_LOCKU] = {"LOCKU", 0, ALL, IMPL},
	[OP_LOOKUP] = {"LOOKUP", 0, ALL, IMPL},
	[OP_LOOKUPP] = {"LOOKUPP", 0, ALL, IMPL},
	[OP_NVERIFY] = {"NVERIFY", 0, ALL, IMPL},
	[OP_OPEN] = {"OPEN", 0, ALL, IMPL},
	[OP_OPENATTR] = {"OPENATTR", 0, ALL, NOTSUPP},
	[OP_OPEN_CONFIRM] = {"OPEN_CONFIRM", 0, 0, IMPL},
	[OP_OPEN_DOWNGRADE] = {"OPEN_DOWNGRADE", 0, ALL, IMPL},
	[OP_PUTFH] = {"PUTFH", 0, ALL, IMPL},
	[OP_PUTPUBFH] = {"PUTPUBFH", 0, ALL, IMPL},
	[OP_PUTROOTFH] = {"PUTROOTFH", 0, ALL, IMPL},
	[OP_READ] = {"READ", 0, ALL, IMPL},
	[OP_READDIR] = {"READDIR", 0, ALL, IMPL},
	[OP_READLINK] = {"READLINK", 0, ALL, IMPL},
	[OP_REMOVE] = {"REMOVE", 0, ALL, IMPL},
	[OP_RENAME] = {"RENAME", 0, ALL, IMPL},
	[OP_RENEW] = {"RENEW", 0, 0, IMPL},
	[OP_RESTOREFH] = {"RESTOREFH", 0, ALL, IMPL},
	[OP_SAVEFH] = {"SAVEFH", 0, ALL, IMPL},
	[OP_SECINFO] = {"SECINFO", 0, ALL, IMPL},
	[OP_SETATTR] = {"SETATTR", 0, ALL, IMPL},
	[OP_SETCLIENTID] = {"SETCLIENTID", 0, 0, IMPL},
	[OP_SETCLIENTID_CONFIRM] = {"SETCLIENTID_CONFIRM", 0, 0, IMPL},
	[OP_VERIFY] = {"VERIFY", 0, ALL, IMPL},
	[OP_WRITE] = {"WRITE", 0, ALL, IMPL},
	[OP_RELEASE_LOCKOWNER] = {"RELEASE_LOCKOWNER", 0, 0, IMPL},
	[OP_BACKCHANNEL_CTL] = {"BACKCHANNEL_CTL", 1, ALL, IMPL},
	[OP_BIND_CONN_TO_SESSION] = {"BIND_CONN_TO_SESSION", 1, ALL, IMPL},
	[OP_EXCHANGE_ID] = {"EXCHANGE_ID", 1, ALL, IMPL},
	[OP_CREATE_SESSION] = {"CREATE_SESSION", 1, ALL, IMPL},
	[OP_DESTROY_SESSION] = {"DESTROY_SESSION", 1, ALL, IMPL},
	[OP_FREE_STATEID] = {"FREE_STATEID", 1, ALL, IMPL},
	[OP_GET_DIR_DELEGATION] = {"GET_DIR_DELEGATION", 1, ALL,
		NOTSUPP_AT_ONCE},
	[OP_GETDEVICEINFO] = {"GETDEVICEINFO", 1, ALL, NOTSUPP},
	[OP_GETDEVICELIST] = {"GETDEVICELIST", 1, ALL, NOTSUPP},
	[OP_LAYOUTCOMMIT] = {"LAYOUTCOMMIT", 1, ALL, NOTSUPP},
	[OP_LAYOUTGET] = {"LAYOUTGET", 1, ALL, NOTSUPP},
	[OP_LAYOUTRETURN] = {"LAYOUTRETURN", 1, ALL, NOTSUPP},
	[OP_SECINFO_NO_NAME] = {"SECINFO_NO_NAME", 1, ALL, IMPL},
	[OP_SEQUENCE] = {"SEQUENCE", 1, ALL, IMPL},
	[OP_SET_SSV] = {"SET_SSV", 1, ALL, NOTSUPP_AT_ONCE},
	[OP_TEST_STATEID] = {"TEST_STATEID", 1, ALL, IMPL},
	[OP_WANT_DELEGATION] = {"WANT_DELEGATION", 1, ALL, IMPL},
	[OP_DESTROY_CLIENTID] = {"DESTROY_CLIENTID", 1, ALL, IMPL},
	[OP_RECLAIM_COMPLETE] = {"RECLAIM_COMPLETE", 1, ALL, IMPL},
	[OP_ALLOCATE] = {"ALLOCATE", 2, ALL, IMPL},
	[OP_COPY] = {"COPY", 2, ALL, IMPL},
	[OP_COPY_NOTIFY] = {"COPY_NOTIFY", 2, ALL, IMPL},
	[OP_DEALLOCATE] = {"DEALLOCATE", 2, ALL, IMPL},
	[OP_IO_ADVISE] = {"IO_ADVISE", 2, ALL, IMPL},
	[OP_LAYOUTERROR] = {"LAYOUTERROR", 2, ALL, NOTSUPP},
	[OP_LAYOUTSTATS] = {"LAYOUTSTATS", 2, ALL, NOTSUPP},
	[OP_OFFLOAD_CANCEL] = {"OFFLOAD_CANCEL", 2, ALL, IMPL},
	[OP_OFFLOAD_STATUS] = {"OFFLOAD_STATUS", 2, ALL, IMPL},
	[OP_READ_PLUS] = {"READ_PLUS", 2, ALL, IMPL},
	[OP_SEEK] = {"SEEK", 2, ALL, IMPL},
	[OP_WRITE_SAME] = {"WRITE_SAME", 2, ALL, NOTSUPP},
	[OP_CLONE] = {"CLONE", 2, ALL, IMPL},
	[OP_GETXATTR] = {"GETXATTR", 2, ALL, IMPL},
	[OP_SETXATTR] = {"SETXATTR", 2, ALL, IMPL},
	[OP_LISTXATTRS] = {"LISTXATTRS", 2, ALL, IMPL},
	[OP_REMOVEXATTR] = {"REMOVEXATTR", 2, ALL, IMPL},
};

/* The last opnum of each minor version (RFC 7530, 8881, 7862). */
static const uint32_t rfc_last_op[] = {
	[0] = OP_RELEASE_LOCKOWNER,
	[1] = OP_RECLAIM_COMPLETE,
	[2] = OP_REMOVEXATTR,
};

/* How the table has nasd answer @op (in a minor version it has). */
static enum op_impl op_impl_of(const struct nfs4_op *op)
{
	if (!op->handle)
		return NOTSUPP_AT_ONCE;
	return op->handle == nfs4_op_notsupp ? NOTSUPP : IMPL;
}

static void test_op_table(void **state)
{
	const struct nfs4_op *op;
	const struct rfc_op *r;
	uint32_t minor, n, i, count[3] = {0};

	assert_int_equal(nfs4_ops_count, OP_REMOVEXATTR + 1);
	for (n = 0; n < OP_ACCESS; n++)
		assert_null(nfs4_ops[n]);
	for (minor = 0; minor <= 2; minor++) {
		for (n = OP_ACCESS; n <= rfc_last_op[minor]; n++) {
			r = &rfc_ops[n];
			op = nfs4_ops[n];
			assert_non_null(r->name);
			assert_non_null(op);
			assert_non_null(op->name);
			assert_string_equal(op->name, r->name);
			/* the minor range: coherent, and the RFC's */
			assert_true(op->minor_min <= minor);
			assert_true(op->minor_min <= op->minor_max);
			assert_int_equal(op->minor_min, r->minor_min);
			assert_int_equal(op->minor_max, r->minor_max);
			/* implemented, or NOTSUPP by decision */
			assert_int_equal(op_impl_of(op), r->impl);
			/* a handler-less op skips the prechecks and has
			 * nothing to decode: flags or a decoder would lie */
			if (!op->handle) {
				assert_int_equal(op->flags, 0);
				assert_null(op->decode);
			}
			count[minor]++;
		}
		/* the ops after the last one of @minor are the next minor's */
		for (; n <= NFS4_OP_MAX; n++)
			assert_true(rfc_ops[n].minor_min > minor);
	}
	assert_int_equal(count[0], 37);
	assert_int_equal(count[1], 56);
	assert_int_equal(count[2], 73); /* RFC 7862 and RFC 8276 */
	/* no descriptor sits in two slots */
	for (n = OP_ACCESS; n <= NFS4_OP_MAX; n++)
		for (i = n + 1; i <= NFS4_OP_MAX; i++)
			assert_ptr_not_equal(nfs4_ops[n], nfs4_ops[i]);
}

/* ---- whole COMPOUNDs ---- */

static char export_dir[64];
static char ro_dir[64];       /* exported read-only at pseudo=/ro */
static char export_sub[64]; /* the export dir's name inside /tmp */

/* A request being built: RPC call header + COMPOUND4args. */
struct creq {
	uint8_t b[16384];
	struct xdr_buf x;
	size_t numops_pos;
	uint32_t numops;
};

static void req_begin(struct creq *r, uint32_t minor, const char *tag)
{
	xdr_init(&r->x, r->b, sizeof(r->b));
	assert_true(xdr_enc_u32(&r->x, 0x1234));        /* xid */
	assert_true(xdr_enc_u32(&r->x, 0));             /* CALL */
	assert_true(xdr_enc_u32(&r->x, 2));
	assert_true(xdr_enc_u32(&r->x, 100003));
	assert_true(xdr_enc_u32(&r->x, 4));
	assert_true(xdr_enc_u32(&r->x, 1));             /* COMPOUND */
	/* AUTH_SYS root */
	assert_true(xdr_enc_u32(&r->x, AUTH_SYS));
	assert_true(xdr_enc_u32(&r->x, 20));
	assert_true(xdr_enc_u32(&r->x, 0));             /* stamp */
	assert_true(xdr_enc_u32(&r->x, 0));             /* machine "" */
	assert_true(xdr_enc_u32(&r->x, 0));             /* uid */
	assert_true(xdr_enc_u32(&r->x, 0));             /* gid */
	assert_true(xdr_enc_u32(&r->x, 0));             /* gids */
	assert_true(xdr_enc_u32(&r->x, AUTH_NONE));
	assert_true(xdr_enc_u32(&r->x, 0));
	assert_true(xdr_enc_opaque(&r->x, tag, (uint32_t)strlen(tag)));
	assert_true(xdr_enc_u32(&r->x, minor));
	r->numops_pos = r->x.pos;
	assert_true(xdr_enc_u32(&r->x, 0));
	r->numops = 0;
}

static void req_op(struct creq *r, uint32_t op)
{
	assert_true(xdr_enc_u32(&r->x, op));
	r->numops++;
	r->b[r->numops_pos + 3] = (uint8_t)r->numops;
	r->b[r->numops_pos + 2] = (uint8_t)(r->numops >> 8);
}

static void req_name(struct creq *r, uint32_t op, const char *name)
{
	req_op(r, op);
	assert_true(xdr_enc_opaque(&r->x, name, (uint32_t)strlen(name)));
}

static void req_getattr(struct creq *r, uint32_t w0, uint32_t w1)
{
	req_op(r, OP_GETATTR);
	assert_true(xdr_enc_u32(&r->x, 2));
	assert_true(xdr_enc_u32(&r->x, w0));
	assert_true(xdr_enc_u32(&r->x, w1));
}

static void req_putfh(struct creq *r, const struct nfs_fh4 *fh)
{
	req_op(r, OP_PUTFH);
	assert_true(xdr_enc_opaque(&r->x, fh->data, fh->len));
}

static const uint8_t zero_stateid[16];

/* The reply: COMPOUND4res after the RPC header, plus any payload. */
struct rep {
	uint8_t b[1 << 20];
	size_t len;
	struct xdr_buf x;
	uint32_t status;
	uint32_t nres;
	size_t tail_len;
};

/*
 * run() as the event loop would start it (nowait), when set: a request
 * that defers is continued as the worker that takes it would, and
 * counted. Its hint (the transport's may_inline) is recorded too.
 */
static bool run_nowait;
static int run_deferred;
static bool run_hint;

static void run(struct creq *r, struct rep *out)
{
	static uint8_t arena[65536];
	struct sockaddr_storage peer = { 0 };
	struct sockaddr_in *sin = (struct sockaddr_in *)&peer;
	enum req_verdict vd;
	struct req rq;
	ssize_t n;
	uint32_t v;

	req_init(&rq, arena, sizeof(arena));
	sin->sin_family = AF_INET;
	sin->sin_port = htons(800);
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	rq.peer = &peer;
	rq.peer_len = sizeof(*sin);
	rq.peer_privileged = true;
	rq.caps = REQ_CAP_FILE;
	rq.msg = r->b;
	rq.msg_len = r->x.pos;
	rq.nowait = run_nowait;
	run_hint = rpc_record_inline(NULL, r->b, r->x.pos);
	vd = rpc_process(&rq);
	if (vd == REQ_DEFER) {
		assert_true(run_nowait);
		run_deferred++;
		rq.nowait = false;
		vd = rpc_process(&rq);
	}
	assert_int_equal(vd, REQ_REPLY);
	out->tail_len = rq.reply.payload.len;
	/* A file range is read as a transport that cannot send one would. */
	assert_int_equal(payload_fill(&rq.reply.payload), 0);
	assert_true(req_reply_len(&rq) <= sizeof(out->b));
	n = req_reply_copy(&rq, 0, out->b, sizeof(out->b));
	assert_int_equal(n, (ssize_t)req_reply_len(&rq));
	out->len = (size_t)n;
	req_finish(&rq);
	xdr_init(&out->x, out->b, out->len);
	/* xid, REPLY, MSG_ACCEPTED, verifier, SUCCESS */
	assert_true(xdr_dec_u32(&out->x, &v) && v == 0x1234);
	assert_true(xdr_dec_u32(&out->x, &v) && v == 1);
	assert_true(xdr_dec_u32(&out->x, &v) && v == 0);
	assert_true(xdr_dec_u32(&out->x, &v));
	assert_true(xdr_dec_u32(&out->x, &v) && v == 0);
	assert_true(xdr_dec_u32(&out->x, &v) && v == 0);
	assert_true(xdr_dec_u32(&out->x, &out->status));
}

/* After run(): skip the tag and read the result count. */
static void rep_tag(struct rep *p, const char *tag)
{
	struct nfs4_opaque t;

	assert_true(nfs4_dec_opaque(&p->x, &t, 1024));
	assert_int_equal(t.len, strlen(tag));
	assert_memory_equal(t.data, tag, t.len);
	assert_true(xdr_dec_u32(&p->x, &p->nres));
}

/* Next result: its op and status. */
static uint32_t rep_op(struct rep *p, uint32_t op)
{
	uint32_t v = 0, st = 0;

	assert_true(xdr_dec_u32(&p->x, &v));
	assert_int_equal(v, op);
	assert_true(xdr_dec_u32(&p->x, &st));
	return st;
}

static void rep_fh(struct rep *p, struct nfs_fh4 *fh)
{
	assert_int_equal(rep_op(p, OP_GETFH), NFS4_OK);
	assert_true(nfs4_dec_nfs_fh4(&p->x, fh));
}

/* Skip a GETATTR resok, returning the attrlist (borrowed). */
static void rep_getattr(struct rep *p, struct fattr4 *f)
{
	assert_int_equal(rep_op(p, OP_GETATTR), NFS4_OK);
	assert_true(nfs4_dec_fattr4(&p->x, f));
}

static int setup_export(void **state)
{
	struct export_table *t = export_table_new();
	static const uint8_t key[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
	struct nfs4_config cfg = {
		.lease_time = 90,
		.grace_time = 0,
		.max_ops = 64,
	};
	static struct rpc_program prog;
	static struct rpc_version vers[1];
	char spec[128], err[256], sdir[96];

	vfs_secret_set(key);
	strcpy(export_dir, "/tmp/nfs4t.XXXXXX");
	assert_non_null(mkdtemp(export_dir));
	strcpy(export_sub, export_dir + 5);
	snprintf(sdir, sizeof(sdir), "%s/.state", export_dir);
	assert_int_equal(mkdir(sdir, 0700), 0);
	cfg.state_dir = strdup(sdir);
	snprintf(spec, sizeof(spec), "%s:rw,no_root_squash", export_dir);
	assert_non_null(t);
	assert_int_equal(export_parse_spec(t, spec, err, sizeof(err)), 0);
	strcpy(ro_dir, "/tmp/nfs4r.XXXXXX");
	assert_non_null(mkdtemp(ro_dir));
	snprintf(spec, sizeof(spec), "%s:ro,pseudo=/ro", ro_dir);
	assert_int_equal(export_parse_spec(t, spec, err, sizeof(err)), 0);
	if (export_table_open(t, err, sizeof(err)))
		fail_msg("%s", err);
	export_table_install(t);
	assert_int_equal(nfs4_init(&cfg), 0);
	vers[0] = nfs4_version;
	prog.prog = 100003;
	prog.name = "nfs";
	prog.nversions = 1;
	prog.versions = vers;
	rpc_register_program(&prog);
	return 0;
}

static int teardown_export(void **state)
{
	char cmd[192];

	nfs4_shutdown();
	export_table_install(NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf %s %s", export_dir, ro_dir);
	assert_int_equal(system(cmd), 0);
	return 0;
}

static struct creq rq;
static struct rep rp;

static void test_minor_version_mismatch(void **state)
{
	req_begin(&rq, 3, "tag3");
	req_op(&rq, OP_PUTROOTFH);
	run(&rq, &rp);
	assert_int_equal(rp.status, NFS4ERR_MINOR_VERS_MISMATCH);
	rep_tag(&rp, "tag3");
	assert_int_equal(rp.nres, 0);
}

static void test_illegal_ops(void **state)
{
	/* an unknown opnum */
	req_begin(&rq, 0, "");
	req_op(&rq, OP_PUTROOTFH);
	req_op(&rq, 9999);
	req_op(&rq, OP_GETFH);
	run(&rq, &rp);
	assert_int_equal(rp.status, NFS4ERR_OP_ILLEGAL);
	rep_tag(&rp, "");
	assert_int_equal(rp.nres, 2);
	assert_int_equal(rep_op(&rp, OP_PUTROOTFH), NFS4_OK);
	assert_int_equal(rep_op(&rp, OP_ILLEGAL), NFS4ERR_OP_ILLEGAL);
	/* a 4.1 op in a 4.0 compound (RFC 7530: OP_ILLEGAL) */
	req_begin(&rq, 0, "x");
	req_op(&rq, OP_RECLAIM_COMPLETE);
	run(&rq, &rp);
	assert_int_equal(rp.status, NFS4ERR_OP_ILLEGAL);
	rep_tag(&rp, "x");
	assert_int_equal(rep_op(&rp, OP_ILLEGAL), NFS4ERR_OP_ILLEGAL);
	/* a 4.2 op in a 4.1 compound */
	req_begin(&rq, 1, "");
	req_op(&rq, OP_CLONE);
	run(&rq, &rp);
	assert_int_equal(rp.status, NFS4ERR_OP_ILLEGAL);
}

static void test_session_rules(void **state)
{
	/* 4.1 without SEQUENCE first */
	req_begin(&rq, 1, "");
	req_op(&rq, OP_PUTROOTFH);
	run(&rq, &rp);
	assert_int_equal(rp.status, NFS4ERR_OP_NOT_IN_SESSION);
	rep_tag(&rp, "");
	assert_int_equal(rp.nres, 1);
	assert_int_equal(rep_op(&rp, OP_PUTROOTFH),
			 NFS4ERR_OP_NOT_IN_SESSION);
	/* a 4.0-only op in 4.1: NOTSUPP */
	req_begin(&rq, 1, "");
	req_op(&rq, OP_RENEW);
	assert_true(xdr_enc_u64(&rq.x, 1));
	run(&rq, &rp);
	assert_int_equal(rp.status, NFS4ERR_NOTSUPP);
}

/*
 * Every opnum alone in a COMPOUND of each minor version, with no
 * arguments (so nothing runs that could change state: an op with
 * arguments fails to decode them): an opnum the minor version does not
 * define is OP_ILLEGAL, a defined one is answered under its own number:
 * BADXDR when it has arguments, else the first precheck that fails; the
 * handler-less NOTSUPP ops say NOTSUPP before any of that.
 */
static void test_opnums_per_minor(void **state)
{
	const struct nfs4_op *op;
	uint32_t minor, n, st;
	bool defined;

	for (minor = 0; minor <= 2; minor++) {
		for (n = 0; n <= NFS4_OP_MAX + 3; n++) {
			defined = n >= OP_ACCESS && n <= NFS4_OP_MAX &&
				  rfc_ops[n].minor_min <= minor;
			req_begin(&rq, minor, "");
			req_op(&rq, n);
			run(&rq, &rp);
			rep_tag(&rp, "");
			assert_int_equal(rp.nres, 1);
			if (!defined) {
				assert_int_equal(rep_op(&rp, OP_ILLEGAL),
						 NFS4ERR_OP_ILLEGAL);
				assert_int_equal(rp.status, NFS4ERR_OP_ILLEGAL);
				continue;
			}
			st = rep_op(&rp, n);
			assert_int_equal(rp.status, st);
			assert_int_not_equal(st, NFS4ERR_OP_ILLEGAL);
			op = nfs4_ops[n];
			if (rfc_ops[n].impl == NOTSUPP_AT_ONCE)
				assert_int_equal(st, NFS4ERR_NOTSUPP);
			else if (op->decode)
				/* arguments are decoded before any check */
				assert_int_equal(st, NFS4ERR_BADXDR);
			else if (minor >= 1 && !(op->flags & NFS4_OP_NO_SEQ))
				/* then the prechecks: not SEQUENCE first */
				assert_int_equal(st, NFS4ERR_OP_NOT_IN_SESSION);
			else if (rfc_ops[n].impl == NOTSUPP)
				assert_int_equal(st, NFS4ERR_NOFILEHANDLE);
		}
		req_begin(&rq, minor, "");
		req_op(&rq, OP_ILLEGAL);
		run(&rq, &rp);
		assert_int_equal(rp.status, NFS4ERR_OP_ILLEGAL);
	}
	/* OPENATTR (prechecks, then its handler): NOTSUPP with a fh */
	req_begin(&rq, 0, "");
	req_op(&rq, OP_PUTROOTFH);
	req_op(&rq, OP_OPENATTR);
	assert_true(xdr_enc_bool(&rq.x, false));
	run(&rq, &rp);
	assert_int_equal(rp.status, NFS4ERR_NOTSUPP);
}

static void test_badxdr_and_limits(void **state)
{
	uint32_t v;
	int i;

	/* numops says 2, only one op present */
	req_begin(&rq, 0, "");
	req_op(&rq, OP_PUTROOTFH);
	rq.b[rq.numops_pos + 3] = 2;
	run(&rq, &rp);
	assert_int_equal(rp.status, NFS4ERR_BADXDR);
	rep_tag(&rp, "");
	assert_int_equal(rp.nres, 1);
	/* an op whose arguments are cut short */
	req_begin(&rq, 0, "");
	req_op(&rq, OP_PUTFH);
	assert_true(xdr_enc_u32(&rq.x, 100));
	run(&rq, &rp);
	assert_int_equal(rp.status, NFS4ERR_BADXDR);
	rep_tag(&rp, "");
	assert_int_equal(rep_op(&rp, OP_PUTFH), NFS4ERR_BADXDR);
	/* a handle longer than NFS4_FHSIZE */
	req_begin(&rq, 0, "");
	req_op(&rq, OP_PUTFH);
	assert_true(xdr_enc_u32(&rq.x, 129));
	for (i = 0; i < 33; i++)
		assert_true(xdr_enc_u32(&rq.x, 0));
	run(&rq, &rp);
	assert_int_equal(rp.status, NFS4ERR_BADXDR);
	/*
	 * SETATTR4res carries attrsset whatever the status, also when the
	 * op fails before it runs (fuzz_nfs4 regression
	 * setattr-badxdr-no-attrsset): cut-short arguments, then no fh.
	 */
	req_begin(&rq, 0, "");
	req_op(&rq, OP_SETATTR);
	assert_true(xdr_enc_u32(&rq.x, 0));
	run(&rq, &rp);
	assert_int_equal(rp.status, NFS4ERR_BADXDR);
	rep_tag(&rp, "");
	assert_int_equal(rep_op(&rp, OP_SETATTR), NFS4ERR_BADXDR);
	assert_true(xdr_dec_u32(&rp.x, &v));
	assert_int_equal(v, 0);
	assert_int_equal(xdr_remaining(&rp.x), 0);
	req_begin(&rq, 0, "");
	req_op(&rq, OP_SETATTR);
	assert_true(xdr_enc_opaque_fixed(&rq.x, zero_stateid, 16));
	assert_true(xdr_enc_u32(&rq.x, 0) && xdr_enc_u32(&rq.x, 0));
	run(&rq, &rp);
	assert_int_equal(rp.status, NFS4ERR_NOFILEHANDLE);
	rep_tag(&rp, "");
	assert_int_equal(rep_op(&rp, OP_SETATTR), NFS4ERR_NOFILEHANDLE);
	assert_true(xdr_dec_u32(&rp.x, &v));
	assert_int_equal(v, 0);
	assert_int_equal(xdr_remaining(&rp.x), 0);
	/* too many ops: 4.0 RESOURCE, 4.1 TOO_MANY_OPS, no results */
	req_begin(&rq, 0, "");
	for (i = 0; i < 65; i++)
		req_op(&rq, OP_PUTROOTFH);
	run(&rq, &rp);
	assert_int_equal(rp.status, NFS4ERR_RESOURCE);
	rep_tag(&rp, "");
	assert_int_equal(rp.nres, 0);
	rq.b[rq.numops_pos - 1] = 1; /* minorversion 1 */
	run(&rq, &rp);
	assert_int_equal(rp.status, NFS4ERR_TOO_MANY_OPS);
}

static void test_nofilehandle(void **state)
{
	static const uint32_t ops[] = {
		OP_GETFH,   OP_GETATTR, OP_LOOKUP,  OP_LOOKUPP, OP_SAVEFH,
		OP_READDIR, OP_REMOVE,	OP_ACCESS,  OP_READLINK,
	};
	size_t i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		req_begin(&rq, 0, "");
		req_op(&rq, ops[i]);
		/* enough zero bytes for any of these ops' arguments */
		while (rq.x.pos < 200)
			assert_true(xdr_enc_u32(&rq.x, 0));
		run(&rq, &rp);
		/* (an empty name decodes; the fh check comes first) */
		assert_int_equal(rp.status, NFS4ERR_NOFILEHANDLE);
		rep_tag(&rp, "");
		assert_int_equal(rp.nres, 1);
		assert_int_equal(rep_op(&rp, ops[i]), NFS4ERR_NOFILEHANDLE);
	}
	/* RESTOREFH without a saved fh */
	req_begin(&rq, 0, "");
	req_op(&rq, OP_PUTROOTFH);
	req_op(&rq, OP_RESTOREFH);
	run(&rq, &rp);
	assert_int_equal(rp.status, NFS4ERR_RESTOREFH);
}

/* PUTROOTFH, LOOKUP tmp, LOOKUP <export>, GETFH: the export's root. */
static void get_export_fh(struct nfs_fh4 *fh, struct nfs_fh4 *tmpfh)
{
	req_begin(&rq, 0, "");
	req_op(&rq, OP_PUTROOTFH);
	req_name(&rq, OP_LOOKUP, "tmp");
	req_op(&rq, OP_GETFH);
	req_name(&rq, OP_LOOKUP, export_sub);
	req_op(&rq, OP_GETFH);
	run(&rq, &rp);
	assert_int_equal(rp.status, NFS4_OK);
	rep_tag(&rp, "");
	assert_int_equal(rp.nres, 5);
	assert_int_equal(rep_op(&rp, OP_PUTROOTFH), NFS4_OK);
	assert_int_equal(rep_op(&rp, OP_LOOKUP), NFS4_OK);
	rep_fh(&rp, tmpfh);
	assert_int_equal(rep_op(&rp, OP_LOOKUP), NFS4_OK);
	rep_fh(&rp, fh);
}

static void attr_fsid_type(struct fattr4 *f, uint32_t *type, uint64_t *maj,
			   uint64_t *min)
{
	struct xdr_buf x;

	/* requested type (1) and fsid (8): both present, in that order */
	assert_int_equal(f->attrmask.map[0],
			 (1u << FATTR4_TYPE) | (1u << FATTR4_FSID));
	xdr_init(&x, (uint8_t *)f->attr_vals.data, f->attr_vals.len);
	assert_true(xdr_dec_u32(&x, type));
	assert_true(xdr_dec_u64(&x, maj));
	assert_true(xdr_dec_u64(&x, min));
	assert_int_equal(xdr_remaining(&x), 0);
}

static void req_create_dir(struct creq *r, const char *name)
{
	req_name(r, OP_CREATE, "");
	/* rewrite: CREATE args are objtype, objname, createattrs */
	r->x.pos -= 4;
	assert_true(xdr_enc_u32(&r->x, NF4DIR));
	assert_true(xdr_enc_opaque(&r->x, name, (uint32_t)strlen(name)));
	assert_true(xdr_enc_u32(&r->x, 2));
	assert_true(xdr_enc_u32(&r->x, 0));
	assert_true(xdr_enc_u32(&r->x, W1(FATTR4_MODE)));
	assert_true(xdr_enc_u32(&r->x, 4));
	assert_true(xdr_enc_u32(&r->x, 0750));
}

static void test_pseudo_fs(void **state)
{
	struct nfs_fh4 efh, tmpfh, fh2;
	uint64_t pmaj, pmin, emaj, emin;
	uint32_t type;
	struct fattr4 f;

	get_export_fh(&efh, &tmpfh);
	/* the pseudo dir and the export differ in fsid */
	req_begin(&rq, 0, "");
	req_putfh(&rq, &tmpfh);
	req_getattr(&rq, (1u << FATTR4_TYPE) | (1u << FATTR4_FSID), 0);
	req_putfh(&rq, &efh);
	req_getattr(&rq, (1u << FATTR4_TYPE) | (1u << FATTR4_FSID), 0);
	run(&rq, &rp);
	assert_int_equal(rp.status, NFS4_OK);
	rep_tag(&rp, "");
	assert_int_equal(rep_op(&rp, OP_PUTFH), NFS4_OK);
	rep_getattr(&rp, &f);
	attr_fsid_type(&f, &type, &pmaj, &pmin);
	assert_int_equal(type, NF4DIR);
	assert_int_equal(rep_op(&rp, OP_PUTFH), NFS4_OK);
	rep_getattr(&rp, &f);
	attr_fsid_type(&f, &type, &emaj, &emin);
	assert_int_equal(type, NF4DIR);
	assert_true(pmaj != emaj || pmin != emin);

	/* LOOKUPP from the export root: back to the pseudo parent */
	req_begin(&rq, 0, "");
	req_putfh(&rq, &efh);
	req_op(&rq, OP_LOOKUPP);
	req_op(&rq, OP_GETFH);
	req_op(&rq, OP_LOOKUPP);
	req_op(&rq, OP_LOOKUPP);
	run(&rq, &rp);
	/* the root has no parent */
	assert_int_equal(rp.status, NFS4ERR_NOENT);
	rep_tag(&rp, "");
	assert_int_equal(rp.nres, 5);
	assert_int_equal(rep_op(&rp, OP_PUTFH), NFS4_OK);
	assert_int_equal(rep_op(&rp, OP_LOOKUPP), NFS4_OK);
	rep_fh(&rp, &fh2);
	assert_int_equal(fh2.len, tmpfh.len);
	assert_memory_equal(fh2.data, tmpfh.data, fh2.len);

	/* names that are not there, and modifying the pseudo-fs */
	req_begin(&rq, 0, "");
	req_op(&rq, OP_PUTROOTFH);
	req_name(&rq, OP_LOOKUP, "etc");
	run(&rq, &rp);
	assert_int_equal(rp.status, NFS4ERR_NOENT);
	req_begin(&rq, 0, "");
	req_op(&rq, OP_PUTROOTFH);
	req_name(&rq, OP_REMOVE, "tmp");
	run(&rq, &rp);
	assert_int_equal(rp.status, NFS4ERR_ROFS);

	/* the read-only export at /ro: a junction, and ROFS */
	req_begin(&rq, 0, "");
	req_op(&rq, OP_PUTROOTFH);
	req_name(&rq, OP_LOOKUP, "ro");
	req_getattr(&rq, (1u << FATTR4_TYPE) | (1u << FATTR4_FSID), 0);
	req_create_dir(&rq, "x");
	run(&rq, &rp);
	assert_int_equal(rp.status, NFS4ERR_ROFS);
	rep_tag(&rp, "");
	assert_int_equal(rp.nres, 4);
	assert_int_equal(rep_op(&rp, OP_PUTROOTFH), NFS4_OK);
	assert_int_equal(rep_op(&rp, OP_LOOKUP), NFS4_OK);
	rep_getattr(&rp, &f);
	attr_fsid_type(&f, &type, &emaj, &emin);
	assert_true(pmaj != emaj || pmin != emin);

	/* a forged pseudo handle and a forged export handle */
	tmpfh.data[tmpfh.len - 1] ^= 1;
	req_begin(&rq, 0, "");
	req_putfh(&rq, &tmpfh);
	run(&rq, &rp);
	assert_int_equal(rp.status, NFS4ERR_BADHANDLE);
	efh.data[3] ^= 0x40;
	req_begin(&rq, 0, "");
	req_putfh(&rq, &efh);
	run(&rq, &rp);
	assert_int_equal(rp.status, NFS4ERR_BADHANDLE);
}

static void test_pseudo_readdir(void **state)
{
	uint64_t cookie;
	uint32_t follows, eof;
	struct nfs4_opaque name;
	struct verifier4 verf;
	struct fattr4 f;
	int i;

	req_begin(&rq, 0, "");
	req_op(&rq, OP_PUTROOTFH);
	req_op(&rq, OP_READDIR);
	assert_true(xdr_enc_u64(&rq.x, 0));
	assert_true(xdr_enc_opaque_fixed(&rq.x, zero_stateid, 8));
	assert_true(xdr_enc_u32(&rq.x, 4096));
	assert_true(xdr_enc_u32(&rq.x, 8192));
	assert_true(xdr_enc_u32(&rq.x, 1));
	assert_true(xdr_enc_u32(&rq.x, 1u << FATTR4_TYPE));
	run(&rq, &rp);
	assert_int_equal(rp.status, NFS4_OK);
	rep_tag(&rp, "");
	assert_int_equal(rep_op(&rp, OP_PUTROOTFH), NFS4_OK);
	assert_int_equal(rep_op(&rp, OP_READDIR), NFS4_OK);
	assert_true(nfs4_dec_verifier4(&rp.x, &verf));
	/* sorted: the pseudo= export "ro", then "tmp" */
	for (i = 0; i < 2; i++) {
		assert_true(xdr_dec_u32(&rp.x, &follows) && follows == 1);
		assert_true(xdr_dec_u64(&rp.x, &cookie));
		assert_true(cookie > 2);
		assert_true(nfs4_dec_opaque(&rp.x, &name, 255));
		assert_int_equal(name.len, i ? 3 : 2);
		assert_memory_equal(name.data, i ? "tmp" : "ro", name.len);
		assert_true(nfs4_dec_fattr4(&rp.x, &f));
	}
	assert_true(xdr_dec_u32(&rp.x, &follows) && follows == 0);
	assert_true(xdr_dec_u32(&rp.x, &eof) && eof == 1);

	/* reserved cookies */
	req_begin(&rq, 0, "");
	req_op(&rq, OP_PUTROOTFH);
	req_op(&rq, OP_READDIR);
	assert_true(xdr_enc_u64(&rq.x, 1));
	assert_true(xdr_enc_opaque_fixed(&rq.x, zero_stateid, 8));
	assert_true(xdr_enc_u32(&rq.x, 4096));
	assert_true(xdr_enc_u32(&rq.x, 8192));
	assert_true(xdr_enc_u32(&rq.x, 0));
	run(&rq, &rp);
	assert_int_equal(rp.status, NFS4ERR_BAD_COOKIE);
}

/* The status of @op (VERIFY or NVERIFY) of @mask and @vals on @fh. */
static uint32_t run_verify(const struct nfs_fh4 *fh, uint32_t op,
			   const uint32_t mask[3], const uint8_t *vals,
			   uint32_t len)
{
	req_begin(&rq, 0, "");
	req_putfh(&rq, fh);
	req_op(&rq, op);
	assert_true(xdr_enc_u32(&rq.x, 3));
	assert_true(xdr_enc_u32(&rq.x, mask[0]));
	assert_true(xdr_enc_u32(&rq.x, mask[1]));
	assert_true(xdr_enc_u32(&rq.x, mask[2]));
	assert_true(xdr_enc_opaque(&rq.x, vals, len));
	run(&rq, &rp);
	return rp.status;
}

/*
 * VERIFY and NVERIFY (RFC 8881 §18.31, §18.15) compare our encoding of
 * the mask byte for byte: the values GETATTR gave are SAME, any other
 * bytes NOT_SAME; rdattr_error and the write-only attributes are INVAL,
 * an attribute this minor version lacks ATTRNOTSUPP (checked first).
 */
static void test_verify(void **state)
{
	uint32_t mask[3] = {(1u << FATTR4_TYPE) | (1u << FATTR4_SIZE),
			    W1(FATTR4_MODE) | W1(FATTR4_NUMLINKS), 0};
	struct nfs_fh4 efh, tmpfh;
	uint8_t vals[256];
	struct fattr4 f;
	uint32_t len;

	get_export_fh(&efh, &tmpfh);
	req_begin(&rq, 0, "");
	req_putfh(&rq, &efh);
	req_getattr(&rq, mask[0], mask[1]);
	run(&rq, &rp);
	assert_int_equal(rp.status, NFS4_OK);
	rep_tag(&rp, "");
	assert_int_equal(rep_op(&rp, OP_PUTFH), NFS4_OK);
	rep_getattr(&rp, &f);
	len = f.attr_vals.len;
	assert_int_equal(len, 4 + 8 + 4 + 4);
	memcpy(vals, f.attr_vals.data, len);

	assert_int_equal(run_verify(&efh, OP_VERIFY, mask, vals, len),
			 NFS4_OK);
	assert_int_equal(run_verify(&efh, OP_NVERIFY, mask, vals, len),
			 NFS4ERR_SAME);
	/* longer and shorter than ours: not the same */
	assert_int_equal(run_verify(&efh, OP_VERIFY, mask, vals, len + 4),
			 NFS4ERR_NOT_SAME);
	assert_int_equal(run_verify(&efh, OP_VERIFY, mask, vals, len - 4),
			 NFS4ERR_NOT_SAME);
	vals[len - 1] ^= 1;
	assert_int_equal(run_verify(&efh, OP_VERIFY, mask, vals, len),
			 NFS4ERR_NOT_SAME);
	assert_int_equal(run_verify(&efh, OP_NVERIFY, mask, vals, len),
			 NFS4_OK);

	/* rdattr_error, even with an unsupported attribute: INVAL */
	mask[0] |= (1u << FATTR4_RDATTR_ERROR) | (1u << FATTR4_ACL);
	assert_int_equal(run_verify(&efh, OP_VERIFY, mask, vals, len),
			 NFS4ERR_INVAL);
	/* acl (never), clone_blksize (4.2 only): ATTRNOTSUPP */
	mask[0] &= ~(1u << FATTR4_RDATTR_ERROR);
	mask[1] |= W1(FATTR4_TIME_MODIFY_SET);
	assert_int_equal(run_verify(&efh, OP_NVERIFY, mask, vals, len),
			 NFS4ERR_ATTRNOTSUPP);
	mask[0] &= ~(1u << FATTR4_ACL);
	mask[2] = 1u << (FATTR4_CLONE_BLKSIZE - 64);
	assert_int_equal(run_verify(&efh, OP_VERIFY, mask, vals, len),
			 NFS4ERR_ATTRNOTSUPP);
	/* a write-only attribute cannot be compared: INVAL */
	mask[2] = 0;
	assert_int_equal(run_verify(&efh, OP_VERIFY, mask, vals, len),
			 NFS4ERR_INVAL);
	mask[1] = W1(FATTR4_TIME_ACCESS_SET);
	assert_int_equal(run_verify(&efh, OP_NVERIFY, mask, vals, len),
			 NFS4ERR_INVAL);
}

static void test_namespace_ops(void **state)
{
	struct nfs_fh4 efh, tmpfh;
	char path[128];
	struct stat st;
	uint32_t v;

	get_export_fh(&efh, &tmpfh);
	/* CREATE a directory, SAVEFH/RENAME it, then REMOVE it */
	req_begin(&rq, 0, "");
	req_putfh(&rq, &efh);
	req_create_dir(&rq, "d1");
	run(&rq, &rp);
	assert_int_equal(rp.status, NFS4_OK);
	rep_tag(&rp, "");
	assert_int_equal(rep_op(&rp, OP_PUTFH), NFS4_OK);
	assert_int_equal(rep_op(&rp, OP_CREATE), NFS4_OK);
	assert_true(xdr_dec_u32(&rp.x, &v) && v == 0); /* atomic false */
	snprintf(path, sizeof(path), "%s/d1", export_dir);
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0750);

	req_begin(&rq, 0, "");
	req_putfh(&rq, &efh);
	req_op(&rq, OP_SAVEFH);
	req_op(&rq, OP_RENAME);
	assert_true(xdr_enc_opaque(&rq.x, "d1", 2));
	assert_true(xdr_enc_opaque(&rq.x, "d2", 2));
	req_name(&rq, OP_REMOVE, "d2");
	req_name(&rq, OP_REMOVE, "d2");
	run(&rq, &rp);
	assert_int_equal(rp.status, NFS4ERR_NOENT);
	rep_tag(&rp, "");
	assert_int_equal(rp.nres, 5);
	assert_int_not_equal(stat(path, &st), 0);

	/* bad names */
	req_begin(&rq, 0, "");
	req_putfh(&rq, &efh);
	req_name(&rq, OP_LOOKUP, "a/b");
	run(&rq, &rp);
	assert_int_equal(rp.status, NFS4ERR_BADCHAR);
	req_begin(&rq, 0, "");
	req_putfh(&rq, &efh);
	req_name(&rq, OP_LOOKUP, "..");
	run(&rq, &rp);
	assert_int_equal(rp.status, NFS4ERR_BADNAME);

	/* CREATE of a regular file is OPEN's: BADTYPE */
	req_begin(&rq, 0, "");
	req_putfh(&rq, &efh);
	req_op(&rq, OP_CREATE);
	assert_true(xdr_enc_u32(&rq.x, NF4REG));
	assert_true(xdr_enc_opaque(&rq.x, "f", 1));
	assert_true(xdr_enc_u32(&rq.x, 0));
	assert_true(xdr_enc_u32(&rq.x, 0));
	run(&rq, &rp);
	assert_int_equal(rp.status, NFS4ERR_BADTYPE);
}

static void test_io_ops(void **state)
{
	struct nfs_fh4 efh, tmpfh, ffh;
	char path[128], data[100];
	uint32_t v, eof, len;
	struct fattr4 f;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/file", export_dir);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs("0123456789", fp);
	fclose(fp);
	get_export_fh(&efh, &tmpfh);
	req_begin(&rq, 0, "");
	req_putfh(&rq, &efh);
	req_name(&rq, OP_LOOKUP, "file");
	req_op(&rq, OP_GETFH);
	run(&rq, &rp);
	assert_int_equal(rp.status, NFS4_OK);
	rep_tag(&rp, "");
	assert_int_equal(rep_op(&rp, OP_PUTFH), NFS4_OK);
	assert_int_equal(rep_op(&rp, OP_LOOKUP), NFS4_OK);
	rep_fh(&rp, &ffh);

	/* WRITE FILE_SYNC with the anonymous stateid, READ back (tail) */
	req_begin(&rq, 0, "");
	req_putfh(&rq, &ffh);
	req_op(&rq, OP_WRITE);
	assert_true(xdr_enc_opaque_fixed(&rq.x, zero_stateid, 16));
	assert_true(xdr_enc_u64(&rq.x, 8));
	assert_true(xdr_enc_u32(&rq.x, 2));
	assert_true(xdr_enc_opaque(&rq.x, "abcd", 4));
	req_op(&rq, OP_READ);
	assert_true(xdr_enc_opaque_fixed(&rq.x, zero_stateid, 16));
	assert_true(xdr_enc_u64(&rq.x, 6));
	assert_true(xdr_enc_u32(&rq.x, 100));
	run(&rq, &rp);
	assert_int_equal(rp.status, NFS4_OK);
	rep_tag(&rp, "");
	assert_int_equal(rep_op(&rp, OP_PUTFH), NFS4_OK);
	assert_int_equal(rep_op(&rp, OP_WRITE), NFS4_OK);
	assert_true(xdr_dec_u32(&rp.x, &v) && v == 4);
	assert_true(xdr_dec_u32(&rp.x, &v) && v == 2);
	assert_true(xdr_dec_opaque_fixed(&rp.x, data, 8));
	assert_int_equal(rep_op(&rp, OP_READ), NFS4_OK);
	assert_true(xdr_dec_u32(&rp.x, &eof) && eof == 1);
	assert_true(xdr_dec_u32(&rp.x, &len) && len == 6);
	assert_int_equal(rp.tail_len, 0); /* small: copied inline */
	assert_true(xdr_dec_opaque_fixed(&rp.x, data, 6));
	assert_memory_equal(data, "67abcd", 6);

	/* READ not last: data inline; then GETATTR size */
	req_begin(&rq, 0, "");
	req_putfh(&rq, &ffh);
	req_op(&rq, OP_READ);
	assert_true(xdr_enc_opaque_fixed(&rq.x, zero_stateid, 16));
	assert_true(xdr_enc_u64(&rq.x, 0));
	assert_true(xdr_enc_u32(&rq.x, 3));
	req_getattr(&rq, 1u << FATTR4_SIZE, 0);
	run(&rq, &rp);
	assert_int_equal(rp.status, NFS4_OK);
	assert_int_equal(rp.tail_len, 0);
	rep_tag(&rp, "");
	assert_int_equal(rep_op(&rp, OP_PUTFH), NFS4_OK);
	assert_int_equal(rep_op(&rp, OP_READ), NFS4_OK);
	assert_true(xdr_dec_u32(&rp.x, &eof) && eof == 0);
	assert_true(xdr_dec_u32(&rp.x, &len) && len == 3);
	assert_true(xdr_dec_opaque_fixed(&rp.x, data, 3));
	assert_memory_equal(data, "012", 3);
	rep_getattr(&rp, &f);
	assert_int_equal(f.attr_vals.len, 8);
	assert_int_equal(f.attr_vals.data[7], 12);

	/* a big READ as the last op: the data is the reply's tail */
	fp = fopen(path, "w");
	assert_non_null(fp);
	for (v = 0; v < 20000; v++)
		fputc('a' + (int)(v % 26), fp);
	fclose(fp);
	req_begin(&rq, 0, "");
	req_putfh(&rq, &ffh);
	req_op(&rq, OP_READ);
	assert_true(xdr_enc_opaque_fixed(&rq.x, zero_stateid, 16));
	assert_true(xdr_enc_u64(&rq.x, 1));
	assert_true(xdr_enc_u32(&rq.x, 30000));
	run(&rq, &rp);
	assert_int_equal(rp.status, NFS4_OK);
	assert_int_equal(rp.tail_len, 19999);
	rep_tag(&rp, "");
	assert_int_equal(rep_op(&rp, OP_PUTFH), NFS4_OK);
	assert_int_equal(rep_op(&rp, OP_READ), NFS4_OK);
	assert_true(xdr_dec_u32(&rp.x, &eof) && eof == 1);
	assert_true(xdr_dec_u32(&rp.x, &len) && len == 19999);
	assert_true(xdr_dec_opaque_fixed(&rp.x, data, 4));
	assert_memory_equal(data, "bcde", 4);

	/* the transport may place a WRITE's data block-aligned */
	req_begin(&rq, 0, "");
	req_putfh(&rq, &ffh);
	req_op(&rq, OP_WRITE);
	assert_true(xdr_enc_opaque_fixed(&rq.x, zero_stateid, 16));
	assert_true(xdr_enc_u64(&rq.x, 100));
	assert_true(xdr_enc_u32(&rq.x, 0));
	assert_true(xdr_enc_u32(&rq.x, 8192));
	len = (uint32_t)rq.x.pos; /* first data byte */
	assert_int_equal(rpc_record_align(rq.b, rq.x.pos), len + 4096 - 100);
	/* at an aligned offset, the first data byte itself */
	rq.x.pos -= 16;
	assert_true(xdr_enc_u64(&rq.x, 8192));
	rq.x.pos += 8;
	assert_int_equal(rpc_record_align(rq.b, rq.x.pos), len);

	/* READ on a directory */
	req_begin(&rq, 0, "");
	req_putfh(&rq, &efh);
	req_op(&rq, OP_READ);
	assert_true(xdr_enc_opaque_fixed(&rq.x, zero_stateid, 16));
	assert_true(xdr_enc_u64(&rq.x, 0));
	assert_true(xdr_enc_u32(&rq.x, 3));
	run(&rq, &rp);
	assert_int_equal(rp.status, NFS4ERR_ISDIR);
}

/*
 * COMPOUNDs on the event loop (req.nowait): cheap operations run there;
 * the first that may block defers the request, and the worker continues
 * at that operation (the ones before it are not run again).
 */
static void test_inline_and_defer(void **state)
{
	struct nfs_fh4 efh, tmpfh, ffh;
	char path[128];
	uint8_t data[8];
	struct stat st;
	uint32_t v;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/inl", export_dir);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs("inline!", fp);
	fclose(fp);
	get_export_fh(&efh, &tmpfh);
	run_nowait = true;
	run_deferred = 0;

	/* Metadata only: answered on the loop, as the hint said. */
	req_begin(&rq, 0, "m");
	req_putfh(&rq, &efh);
	req_name(&rq, OP_LOOKUP, "inl");
	req_op(&rq, OP_GETFH);
	req_getattr(&rq, 1u << FATTR4_TYPE, 0);
	run(&rq, &rp);
	assert_true(run_hint);
	assert_int_equal(run_deferred, 0);
	assert_int_equal(rp.status, NFS4_OK);
	rep_tag(&rp, "m");
	assert_int_equal(rp.nres, 4);
	assert_int_equal(rep_op(&rp, OP_PUTFH), NFS4_OK);
	assert_int_equal(rep_op(&rp, OP_LOOKUP), NFS4_OK);
	rep_fh(&rp, &ffh);

	/* A small READ of cached data: on the loop too. */
	req_begin(&rq, 0, "r");
	req_putfh(&rq, &ffh);
	req_op(&rq, OP_READ);
	assert_true(xdr_enc_opaque_fixed(&rq.x, zero_stateid, 16));
	assert_true(xdr_enc_u64(&rq.x, 0));
	assert_true(xdr_enc_u32(&rq.x, 100));
	run(&rq, &rp);
	assert_true(run_hint);
	assert_int_equal(run_deferred, 0);
	assert_int_equal(rp.status, NFS4_OK);
	rep_tag(&rp, "r");
	assert_int_equal(rep_op(&rp, OP_PUTFH), NFS4_OK);
	assert_int_equal(rep_op(&rp, OP_READ), NFS4_OK);
	assert_true(xdr_dec_u32(&rp.x, &v) && v == 1); /* eof */
	assert_true(xdr_dec_u32(&rp.x, &v) && v == 7);
	assert_true(xdr_dec_opaque_fixed(&rp.x, data, 7));
	assert_memory_equal(data, "inline!", 7);

	/*
	 * CREATE may block: the hint sends it to a worker; started on the
	 * loop anyway, PUTFH and GETFH run there, the request defers at
	 * CREATE, and the continuation answers all four.
	 */
	req_begin(&rq, 0, "c");
	req_putfh(&rq, &efh);
	req_op(&rq, OP_GETFH);
	req_create_dir(&rq, "inldir");
	req_op(&rq, OP_GETFH);
	run(&rq, &rp);
	assert_false(run_hint);
	assert_int_equal(run_deferred, 1);
	assert_int_equal(rp.status, NFS4_OK);
	rep_tag(&rp, "c");
	assert_int_equal(rp.nres, 4);
	assert_int_equal(rep_op(&rp, OP_PUTFH), NFS4_OK);
	rep_fh(&rp, &tmpfh);
	assert_int_equal(tmpfh.len, efh.len);
	assert_memory_equal(tmpfh.data, efh.data, efh.len);
	assert_int_equal(rep_op(&rp, OP_CREATE), NFS4_OK);
	snprintf(path, sizeof(path), "%s/inldir", export_dir);
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	run_nowait = false;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status_every_op_every_errno),
		cmocka_unit_test(test_status_readdir_list),
		cmocka_unit_test(test_status_specific),
		cmocka_unit_test(test_sattr_decode),
		cmocka_unit_test(test_attr_supported_per_minor),
		cmocka_unit_test(test_attr_getattr_every),
		cmocka_unit_test(test_attr_table),
		cmocka_unit_test(test_attr_values),
		cmocka_unit_test(test_attr_settable_round_trip),
		cmocka_unit_test(test_bitmap_decode_limits),
		cmocka_unit_test(test_name_check),
		cmocka_unit_test(test_op_table),
	};
	const struct CMUnitTest compounds[] = {
		cmocka_unit_test(test_minor_version_mismatch),
		cmocka_unit_test(test_illegal_ops),
		cmocka_unit_test(test_session_rules),
		cmocka_unit_test(test_opnums_per_minor),
		cmocka_unit_test(test_badxdr_and_limits),
		cmocka_unit_test(test_nofilehandle),
		cmocka_unit_test(test_pseudo_fs),
		cmocka_unit_test(test_pseudo_readdir),
		cmocka_unit_test(test_verify),
		cmocka_unit_test(test_namespace_ops),
		cmocka_unit_test(test_io_ops),
		cmocka_unit_test(test_inline_and_defer),
	};
	int fails;

	fails = cmocka_run_group_tests_name("nfs4", tests, NULL, NULL);
	fails += cmocka_run_group_tests_name("nfs4-compound", compounds,
					     setup_export, teardown_export);
	return fails;
}
