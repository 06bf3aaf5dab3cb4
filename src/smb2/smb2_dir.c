// SPDX-License-Identifier: MIT
/*
 * QUERY_DIRECTORY (MS-SMB2 §2.2.33, §2.2.34, §3.3.5.18): the entries of
 * an open directory that match its search pattern, in one of the classes
 * FileDirectory (1), FileFullDirectory (2), FileBothDirectory (3),
 * FileNames (12), FileIdBothDirectory (37), FileIdFullDirectory (38) and
 * FileIdExtdDirectory (60), packed by fscc_dir_append() into at most
 * OutputBufferLength bytes.
 *
 * The enumeration's state is the open's: the vfs cookie after the last
 * entry returned, whether the search has returned anything since it
 * (re)started, and the compiled pattern (wildcard.h). A query continues
 * from there; RESTART_SCANS and REOPEN start again (with a new pattern
 * if one is given), INDEX_SPECIFIED is taken as a continuation (FileIndex
 * has no meaning on this store), RETURN_SINGLE_ENTRY stops after one.
 * A pattern without wildcards is looked up, not searched for.
 */
#include "smb2/smb2_int.h"

#include <stdlib.h>
#include <string.h>

#include "smb2/fscc.h"
#include "smb2/smb2_info.h"
#include "smb2/smb2_open.h"
#include "smb2/smb2_path.h"
#include "smb2/utf16.h"
#include "smb2/wildcard.h"
#include "vfs/vfs.h"

#define SMB2_RESTART_SCANS 0x01
#define SMB2_RETURN_SINGLE_ENTRY 0x02
#define SMB2_INDEX_SPECIFIED 0x04
#define SMB2_REOPEN 0x10
#define QD_RSP_FIXED 8

/* One query in progress: the output list and where it stands. */
struct dir_fill {
	struct smb2_open *o;
	const struct smb2_tree *tree;
	struct fscc_list list;
	uint8_t cls;
	bool single;
	bool full;          /* an entry did not fit: stop here */
	int err;            /* a vfs error that ends the query */
	uint64_t cookie;    /* after the last entry taken */
};

/* The FSCC view of entry @name of the open directory. */
static int entry_info(struct dir_fill *f, const char *name, size_t len,
		      struct fscc_file_info *fi)
{
	struct vfs_obj *e;
	struct vfs_attr a;
	int err;

	if (len == 1 && name[0] == '.') {
		e = f->o->obj;
		vfs_obj_get(e);
	} else {
		err = vfs_lookup(f->o->obj, name, len, &e);
		if (err)
			return err;
	}
	err = vfs_getattr(e, &a);
	if (!err)
		smb2_info_fill(e, name, len, &a, fi);
	vfs_obj_put(e);
	return err;
}

/* Add entry @name; false when the query must stop before it. */
static bool fill_one(struct dir_fill *f, const char *name, size_t len)
{
	struct fscc_file_info fi = { 0 };
	enum fscc_status fs;
	int err;

	if (f->cls != FileNamesInformation) {
		err = entry_info(f, name, len, &fi);
		if (err == -ENOENT || err == -EXDEV)
			return true; /* gone meanwhile, or a mount: skipped */
		if (err) {
			f->err = err;
			return false;
		}
	}
	fs = fscc_dir_append(&f->list, f->cls, name, len, &fi);
	if (fs == FSCC_NO_SPACE) {
		f->full = true;
		return false;
	}
	/* A name that cannot be sent (not UTF-8) is skipped. */
	return true;
}

static bool dir_emit(void *ctx, const struct vfs_dirent *de)
{
	struct dir_fill *f = ctx;
	uint32_t before = f->list.count;

	if (!wildcard_match(f->o->dir_pattern, de->name, de->namelen)) {
		f->cookie = de->cookie;
		return true;
	}
	if (!fill_one(f, de->name, de->namelen))
		return false;
	f->cookie = de->cookie;
	return !(f->single && f->list.count > before);
}

/* A literal pattern: the one name, looked up. */
static int dir_literal(struct dir_fill *f, const uint8_t *pat, size_t plen,
		       bool *eof)
{
	char name[VFS_NAME_MAX * 3 + 1], real[VFS_NAME_MAX * 3];
	struct vfs_obj *e;
	size_t n, reallen;
	int err;

	*eof = true;
	if (utf16le_to_utf8(pat, plen, name, sizeof(name), &n, false) < 0 ||
	    memchr(name, '/', n) || memchr(name, '\\', n))
		return 0;
	/* Listed under its name on disk, whatever case was asked for. */
	err = smb2_path_lookup(f->tree, f->o->obj, name, n, false, &e, real,
			       &reallen);
	if (err)
		return err == -ENOENT ? 0 : err;
	vfs_obj_put(e);
	fill_one(f, real, reallen);
	return f->err;
}

uint32_t smb2_cmd_query_directory(struct smb2_work *w, struct smb2_buf *body)
{
	struct dir_fill f = { 0 };
	struct smb2_buf out, pat = { 0 };
	struct smb2_open *o;
	uint16_t ssize, name_off, name_len;
	uint8_t cls, flags;
	uint32_t index, out_len, st;
	uint64_t p, v;
	size_t fixed = w->rsp.pos;
	bool restart, eof = false, icase;
	int err = 0;

	icase = w->tree->export && !w->tree->export->wide.smb_case_sensitive;
	f.tree = w->tree;
	if (!sb_get_u16(body, &ssize) || !sb_get_u8(body, &cls) ||
	    !sb_get_u8(body, &flags) || !sb_get_u32(body, &index) ||
	    !sb_get_u64(body, &p) || !sb_get_u64(body, &v) ||
	    !sb_get_u16(body, &name_off) || !sb_get_u16(body, &name_len) ||
	    !sb_get_u32(body, &out_len))
		return STATUS_INVALID_PARAMETER;
	(void)index;
	if (name_len &&
	    (name_off < SMB2_HDR_LEN + 32 ||
	     (size_t)name_off + name_len > w->cmd_len ||
	     !sb_range(&w->msg, w->off + name_off, name_len, &pat)))
		return STATUS_INVALID_PARAMETER;
	if (!fscc_dir_entry_min(cls))
		return STATUS_INVALID_INFO_CLASS;
	if (!out_len || out_len > SMB2_MAX_IO)
		return STATUS_INVALID_PARAMETER;
	st = smb2_open_lookup(w, p, v, &o);
	if (st != STATUS_SUCCESS)
		return st;
	if (!o->is_dir) {
		st = STATUS_INVALID_PARAMETER;
		goto out_put;
	}
	if (!(o->access & FILE_LIST_DIRECTORY)) {
		st = STATUS_ACCESS_DENIED;
		goto out_put;
	}
	if (out_len < fscc_dir_entry_min(cls)) {
		st = STATUS_INFO_LENGTH_MISMATCH;
		goto out_put;
	}
	if (!smb2_rsp_room(w, QD_RSP_FIXED + (size_t)out_len)) {
		st = STATUS_INSUFFICIENT_RESOURCES;
		goto out_put;
	}
	pthread_mutex_lock(&o->dir_mu);
	restart = (flags & (SMB2_RESTART_SCANS | SMB2_REOPEN)) ||
		  !o->dir_pattern;
	if (restart) {
		struct wildcard *wc = o->dir_pattern;

		if (!wc)
			wc = malloc(sizeof(*wc));
		if (!wc) {
			st = STATUS_INSUFFICIENT_RESOURCES;
			goto out_unlock;
		}
		o->dir_pattern = wc;
		/* No pattern: "*" (§3.3.5.18); a new one on a restart. */
		if (name_len)
			err = wildcard_compile(wc, pat.base, name_len, icase);
		else
			err = wildcard_compile(wc, (const uint8_t *)"*\0", 2,
					       icase);
		if (err) {
			free(wc);
			o->dir_pattern = NULL;
			st = STATUS_OBJECT_NAME_INVALID;
			goto out_unlock;
		}
		o->dir_cookie = 0;
		o->dir_started = false;
		o->dir_done = false;
		o->dir_literal = wildcard_kind(wc) == WILDCARD_LITERAL;
	}
	sb_init(&out, w->rsp.base + fixed + QD_RSP_FIXED, out_len);
	f.o = o;
	f.cls = cls;
	f.single = flags & SMB2_RETURN_SINGLE_ENTRY;
	f.cookie = o->dir_cookie;
	fscc_list_init(&f.list, &out, 8);
	if (o->dir_done) {
		eof = true;
	} else if (o->dir_literal) {
		/* One lookup answers the whole search, fitting or not. */
		err = dir_literal(&f, pat.base, name_len, &eof);
		f.full = false;
	} else {
		err = vfs_readdir(o->obj, o->dir_cookie, dir_emit, &f, &eof);
		if (!err)
			err = f.err;
	}
	if (err) {
		st = smb2_status(SMB2_QUERY_DIRECTORY, err);
		goto out_unlock;
	}
	o->dir_cookie = f.cookie;
	if (eof && !f.full)
		o->dir_done = true;
	if (!f.list.count && !f.full) {
		/* Nothing (more) matches. */
		st = o->dir_started ? STATUS_NO_MORE_FILES
				    : STATUS_NO_SUCH_FILE;
		goto out_unlock;
	}
	/* MS-FSA 2.1.5.6.3: a first entry larger than the buffer is
	 * STATUS_BUFFER_OVERFLOW with no data; the search stays there. */
	st = f.list.count ? STATUS_SUCCESS : STATUS_BUFFER_OVERFLOW;
	if (f.list.count)
		o->dir_started = true;
	sb_put_u16(&w->rsp, 9);
	sb_put_u16(&w->rsp, SMB2_HDR_LEN + QD_RSP_FIXED);
	sb_put_u32(&w->rsp, (uint32_t)out.pos);
	w->rsp.pos += out.pos;
	if (!out.pos)
		sb_put_u8(&w->rsp, 0);
out_unlock:
	pthread_mutex_unlock(&o->dir_mu);
out_put:
	smb2_open_put(o);
	return st;
}
