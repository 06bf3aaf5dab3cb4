// SPDX-License-Identifier: MIT
/*
 * QUERY_INFO (MS-SMB2 §2.2.37, §2.2.38, §3.3.5.20): file, file system
 * and security information of an open, encoded by fscc.h / sd.h into at
 * most OutputBufferLength bytes of the response. The engine supplies what
 * only it knows: the open's access, position and mode, delete-pending
 * from the shared file state, the path, the share's name and volume.
 */
#include "smb2/smb2_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "smb2/fscc.h"
#include "smb2/smb2_acl.h"
#include "smb2/smb2_ea.h"
#include "smb2/sd.h"
#include "smb2/smb2_info.h"
#include "smb2/smb2_open.h"
#include "smb2/smb2_stream.h"
#include "state/file_state.h"
#include "vfs/vfs.h"

/* The fixed part of the response body (§2.2.38) before the data. */
#define QI_RSP_FIXED 8

void smb2_info_fill(struct vfs_obj *obj, const char *name, size_t len,
		    const struct vfs_attr *a, struct fscc_file_info *fi)
{
	struct vfs_dosattr d;

	fscc_file_info_from_attr(fi, a, 0);
	/* An unreadable xattr leaves the derived view (d stays empty). */
	(void)vfs_dosattr_get(obj, a, &d);
	fscc_file_info_apply_dos(fi, &d);
	if (fscc_name_hidden(name, len))
		fi->attributes |= FILE_ATTRIBUTE_HIDDEN;
	fi->attributes = fscc_attributes_normalize(fi->attributes);
}

bool smb2_readonly_mode(const struct vfs_attr *a, bool readonly,
			uint32_t *mode)
{
	if (a->type == VFS_DIR || readonly != !!(a->mode & 0222))
		return false;
	*mode = readonly ? a->mode & ~0222u : a->mode | 0200u;
	return true;
}

int smb2_dos_store(struct vfs_obj *obj, const struct vfs_attr *a,
		   uint32_t attrib, const uint64_t *create_time)
{
	const uint32_t ro = FILE_ATTRIBUTE_READONLY;
	struct fscc_file_info fi;
	struct vfs_dosattr d;
	uint32_t cur, want, mask = FSCC_ATTR_KEPT;
	bool dir = a->type == VFS_DIR;
	int err;

	err = vfs_dosattr_get(obj, a, &d);
	if (err)
		return err;
	fscc_file_info_from_attr(&fi, a, 0);
	fscc_file_info_apply_dos(&fi, &d);
	if (dir)
		mask &= ~(uint32_t)(FILE_ATTRIBUTE_SPARSE_FILE |
				    FILE_ATTRIBUTE_TEMPORARY);
	want = attrib & mask;
	cur = fi.attributes & mask;
	/* A file's READONLY is its mode's (fscc_file_info_apply_dos()):
	 * kept only to say the same to Samba. */
	if (!dir)
		cur = (cur & ~ro) | (want & ro);
	if (cur == want && (!d.has_attrib || !((d.attrib ^ want) & ro)) &&
	    (!create_time || *create_time == fi.creation_time))
		return 0;
	/* Kept from now on, with the creation time as reported so far. */
	d.has_attrib = true;
	d.attrib = want | (dir ? FILE_ATTRIBUTE_DIRECTORY : 0);
	d.has_create_time = true;
	d.create_time = create_time ? *create_time : fi.creation_time;
	return vfs_dosattr_set(obj, &d);
}

void smb2_file_info(struct smb2_open *o, const char *path,
		    const struct vfs_attr *a, struct fscc_file_info *fi)
{
	const char *leaf = strrchr(path, '/');

	leaf = leaf ? leaf + 1 : path;
	smb2_info_fill(o->obj, leaf, strlen(leaf), a, fi);
	if (o->stream) {
		/* A named stream: the file's times and attributes, its own
		 * length (MS-FSA 2.1.5.12: Stream.Size), never a directory. */
		ssize_t n = smb2_stream_size(o->obj, o->stream);
		uint64_t size = n < 0 ? 0 : (uint64_t)n;

		fi->end_of_file = size;
		fi->allocation_size = (size + 4095) & ~(uint64_t)4095;
		fi->directory = false;
		fi->attributes = fscc_attributes_normalize(
			fi->attributes & ~FILE_ATTRIBUTE_DIRECTORY);
	}
	if (o->sf && state_delete_pending(o->sf)) {
		fi->delete_pending = true;
		if (fi->nlink)
			fi->nlink--;
	}
}

/* The FILE_MODE_INFORMATION flags of @o (MS-FSCC FileModeInformation). */
static uint32_t open_mode(struct smb2_open *o)
{
	uint32_t m = o->create_options &
		     (FILE_WRITE_THROUGH_OPT | FILE_SEQUENTIAL_ONLY_OPT |
		      FILE_NO_INTERMEDIATE_BUFFERING_OPT |
		      FILE_SYNCHRONOUS_IO_ALERT_OPT |
		      FILE_SYNCHRONOUS_IO_NONALERT_OPT);

	pthread_mutex_lock(&o->mu);
	m = (m & ~FILE_WRITE_THROUGH_OPT) | o->mode_flags;
	if (o->delete_on_close)
		m |= FILE_DELETE_ON_CLOSE;
	pthread_mutex_unlock(&o->mu);
	return m;
}

/*
 * An 8.3 name for @name (MS-FSCC 2.1.5.2.1), made up as Samba's
 * "mangled names" does, since the store keeps none: a name that already
 * is one, upper-cased; else up to five legal characters of the base, '~'
 * and two characters of a hash of the whole name, and up to three of the
 * extension. Deterministic, so that the same file always shows the same.
 */
static char ascii_upper(char c)
{
	if (c >= 'a' && c <= 'z')
		c = (char)(c - 'a' + 'A');
	return c;
}

static size_t short_name(const char *name, size_t len, char out[13])
{
	static const char legal[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
				    "!#$%&'()-@^_`{}~";
	static const char digits[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
	const char *dot = NULL;
	uint32_t h = 2166136261u;
	size_t i, n = 0, base, ext;
	bool fits = len && len <= 12 && name[0] != '.';

	for (i = 0; i < len; i++) {
		char c = name[i];

		h = (h ^ (uint8_t)c) * 16777619u;
		if (c == '.') {
			if (dot)
				fits = false;
			dot = name + i;
		} else if (!strchr(legal, c >= 'a' && c <= 'z' ? c - 32 : c) ||
			   !c) {
			fits = false;
		}
	}
	base = dot ? (size_t)(dot - name) : len;
	ext = dot ? len - base - 1 : 0;
	if (fits && base >= 1 && base <= 8 && ext <= 3) {
		for (i = 0; i < len; i++)
			out[i] = ascii_upper(name[i]);
		return len;
	}
	for (i = 0; i < base && n < 5; i++) {
		char c = ascii_upper(name[i]);

		if (c && c != '~' && strchr(legal, c))
			out[n++] = c;
	}
	if (!n)
		out[n++] = '_';
	out[n++] = '~';
	out[n++] = digits[h % 36];
	out[n++] = digits[(h / 36) % 36];
	if (ext) {
		size_t e = 0;

		out[n++] = '.';
		for (i = base + 1; i < len && e < 3; i++) {
			char c = ascii_upper(name[i]);

			if (c && c != '.' && strchr(legal, c)) {
				out[n++] = c;
				e++;
			}
		}
		if (!e)
			n--;
	}
	return n;
}

/* FileAlternateNameInformation (MS-FSCC 2.4.5): the 8.3 name. */
static uint32_t query_alt_name(struct smb2_work *w, struct smb2_open *o,
			       struct smb2_buf *out)
{
	const char *path = smb2_open_path(o, w->req), *leaf;
	char sn[13];
	size_t n, i;

	if (!path)
		return STATUS_INSUFFICIENT_RESOURCES;
	if (!*path)
		return STATUS_OBJECT_NAME_NOT_FOUND; /* the root has none */
	leaf = strrchr(path, '/');
	leaf = leaf ? leaf + 1 : path;
	n = short_name(leaf, strlen(leaf), sn);
	/* Below sizeof(FILE_NAME_INFORMATION), 8 with its padding, as
	 * Windows counts it (smbtorture getinfo.qfile_buffercheck). */
	if (sb_remaining(out) < 8)
		return STATUS_INFO_LENGTH_MISMATCH;
	sb_put_u32(out, (uint32_t)(2 * n));
	for (i = 0; i < n; i++)
		if (!sb_put_u16(out, (uint8_t)sn[i]))
			return STATUS_BUFFER_OVERFLOW;
	return STATUS_SUCCESS;
}

/* The rights a file class needs (MS-FSA 2.1.5.12). */
static uint32_t file_class_access(uint8_t cls)
{
	switch (cls) {
	case FileBasicInformation:
	case FileAllInformation:
	case FileNetworkOpenInformation:
	case FileAttributeTagInformation:
		return FILE_READ_ATTRIBUTES;
	case FileFullEaInformation:
		return FILE_READ_EA;
	default:
		return 0;
	}
}

/* FileStreamInformation's list, in the request's arena. */
struct stream_list {
	struct smb2_work *w;
	struct fscc_stream *e;
	size_t n, max;
	bool nomem;
};

static bool stream_add(void *ctx, const char *name, size_t len, uint64_t size)
{
	struct stream_list *l = ctx;
	struct fscc_stream *e;
	char *s;

	if (l->n == l->max) {
		size_t max = l->max ? 2 * l->max : 16;

		e = req_alloc_raw(l->w->req, max * sizeof(*e));
		if (!e) {
			l->nomem = true;
			return false;
		}
		if (l->n)
			memcpy(e, l->e, l->n * sizeof(*e));
		l->e = e;
		l->max = max;
	}
	s = req_alloc_raw(l->w->req, len + 8);
	if (!s) {
		l->nomem = true;
		return false;
	}
	(void)snprintf(s, len + 8, ":%.*s:$DATA", (int)len, name);
	l->e[l->n++] = (struct fscc_stream){
		.name = s,
		.name_len = len + 7,
		.size = size,
		.allocation_size = (size + 4095) & ~(uint64_t)4095,
	};
	return true;
}

/* The file's streams: its data ("::$DATA", not for a directory), then
 * the named ones (smb2_stream.h). @a is the file's. */
static uint32_t list_streams(struct smb2_work *w, struct smb2_open *o,
			     const struct vfs_attr *a, struct fscc_query *q)
{
	struct stream_list l = { .w = w };
	int err;

	if (a->type != VFS_DIR) {
		/* an empty name: "::$DATA" */
		if (!stream_add(&l, "", 0, a->size))
			return STATUS_INSUFFICIENT_RESOURCES;
		l.e[0].allocation_size = fscc_allocation_size(a);
	}
	err = smb2_stream_each(o->obj, stream_add, &l);
	if (l.nomem)
		return STATUS_INSUFFICIENT_RESOURCES;
	if (err)
		return smb2_status(SMB2_QUERY_INFO, err);
	q->streams = l.e;
	q->nstreams = l.n;
	return STATUS_SUCCESS;
}

static uint32_t query_file(struct smb2_work *w, struct smb2_open *o,
			   uint8_t cls, struct smb2_buf *out)
{
	struct fscc_file_info fi;
	struct fscc_query q = { 0 };
	struct vfs_attr a;
	uint32_t need = file_class_access(cls);
	int err;

	if (need && !(o->access & need))
		return STATUS_ACCESS_DENIED;
	switch (cls) {
	case FileAlternateNameInformation:
		return query_alt_name(w, o, out);
	case FileNormalizedNameInformation:
		/* SMB 3.1.1 and later (Windows 10 1803, Samba) */
		if (w->conn->dialect < SMB2_DIALECT_0311)
			return STATUS_NOT_SUPPORTED;
		break;
	default:
		break;
	}
	err = vfs_getattr(o->obj, &a);
	if (err)
		return smb2_status(SMB2_QUERY_INFO, err);
	q.path = smb2_open_path(o, w->req);
	if (!q.path)
		return STATUS_INSUFFICIENT_RESOURCES;
	smb2_file_info(o, q.path, &a, &fi);
	if (o->stream) {
		/* A stream's name: "file:stream" (MS-FSA 2.1.5.12.18). */
		size_t plen = strlen(q.path), slen;
		const char *sn = smb2_stream_display(o->stream, &slen);
		char *full = req_alloc_raw(w->req, plen + slen + 2);

		if (!full || !sn)
			return STATUS_INSUFFICIENT_RESOURCES;
		memcpy(full, q.path, plen);
		full[plen] = ':';
		memcpy(full + plen + 1, sn, slen);
		full[plen + 1 + slen] = '\0';
		q.path = full;
	}
	q.path_len = strlen(q.path);
	if (cls == FileEaInformation || cls == FileAllInformation)
		fi.ea_size = smb2_ea_size(o->obj, &a);
	if (cls == FileStreamInformation) {
		uint32_t st = list_streams(w, o, &a, &q);

		if (st != STATUS_SUCCESS)
			return st;
	}
	q.fi = &fi;
	q.access = o->access;
	pthread_mutex_lock(&o->mu);
	q.position = o->position;
	pthread_mutex_unlock(&o->mu);
	q.mode = open_mode(o);
	q.volume_serial = fscc_volume_serial(w->tree->export->id);
	return fscc_ntstatus(fscc_query_file(cls, out, &q));
}

/* FileFullEaInformation: AdditionalInformation is the EaIndex
 * (MS-SMB2 §2.2.37), the input buffer a FILE_GET_EA_INFORMATION list. */
static uint32_t query_eas(struct smb2_work *w, struct smb2_open *o,
			  uint16_t in_off, uint32_t in_len, uint32_t flags,
			  uint32_t ea_index, struct smb2_buf *out)
{
	struct smb2_buf get = { 0 };

	if (!(o->access & FILE_READ_EA))
		return STATUS_ACCESS_DENIED;
	if (in_len && !sb_range(&w->msg, w->off + in_off, in_len, &get))
		return STATUS_INVALID_PARAMETER;
	return smb2_ea_query(o, &get, flags, ea_index, out);
}

/* What a share claims of its volume (MS-FSCC 2.5.1). */
uint32_t smb2_fs_attributes(const struct smb2_tree *t)
{
	struct fscc_fs_caps caps = { 0 };

	caps.read_only = !t->acc.opts->rw;
	caps.eas = true;
	caps.streams = true;
	caps.case_insensitive =
		t->export && !t->export->wide.smb_case_sensitive;
	return fscc_fs_attributes(&caps);
}

static uint32_t query_fs(struct smb2_work *w, struct smb2_open *o,
			 uint8_t cls, struct smb2_buf *out)
{
	struct smb2_tree *t = w->tree;
	struct fscc_fs_query q = { 0 };
	struct vfs_statfs st;
	struct vfs_attr root;
	struct vfs_obj *r;
	int err;

	err = vfs_statfs(o->obj, &st);
	if (err)
		return smb2_status(SMB2_QUERY_INFO, err);
	err = vfs_obj_root(t->export->vex, &r);
	if (!err) {
		err = vfs_getattr(r, &root);
		vfs_obj_put(r);
	}
	if (err)
		return smb2_status(SMB2_QUERY_INFO, err);
	q.st = &st;
	q.volume_creation_time = fscc_filetime_from_timespec(&root.ctime);
	q.volume_serial = fscc_volume_serial(t->export->id);
	q.label = t->export->wide.smb;
	q.label_len = strlen(t->export->wide.smb);
	q.fs_attributes = smb2_fs_attributes(t);
	q.read_only = !t->acc.opts->rw;
	/* ObjectId: the server's GUID with the export's id mixed in. */
	memcpy(q.object_id, smb2_server_guid(), 16);
	put_le32(q.object_id + 12,
		 get_le32(q.object_id + 12) ^ t->export->id);
	return fscc_ntstatus(fscc_query_fs(cls, out, &q));
}

static uint32_t query_security(struct smb2_work *w, struct smb2_open *o,
			       uint32_t secinfo, struct smb2_buf *out)
{
	struct smb2_acl acl;
	struct sd_unix u;
	struct vfs_attr a;
	size_t needed = 0;
	enum fscc_status fs;
	int err;

	if ((secinfo & (OWNER_SECURITY_INFORMATION |
			GROUP_SECURITY_INFORMATION |
			DACL_SECURITY_INFORMATION)) &&
	    !(o->access & READ_CONTROL))
		return STATUS_ACCESS_DENIED;
	if ((secinfo & SACL_SECURITY_INFORMATION) &&
	    !(o->access & ACCESS_SYSTEM_SECURITY))
		return STATUS_ACCESS_DENIED;
	err = vfs_getattr(o->obj, &a);
	if (err)
		return smb2_status(SMB2_QUERY_INFO, err);
	/* the descriptor a client set, when one is kept and still true;
	 * else the one the owner, group and mode say */
	if (!smb2_acl_get(o->obj, &a, &acl)) {
		fs = smb2_acl_encode(&acl, secinfo, out, &needed);
		free(acl.sd);
	} else {
		u.uid = a.uid;
		u.gid = a.gid;
		u.mode = a.mode;
		u.is_dir = a.type == VFS_DIR;
		fs = sd_enc_SECURITY_DESCRIPTOR(out, &u, secinfo, &needed);
	}
	if (fs == FSCC_BUFFER_TOO_SMALL) {
		/* §3.3.5.20.3: the error data is the size needed. */
		smb2_error_data_u32(w, (uint32_t)needed);
		return STATUS_BUFFER_TOO_SMALL;
	}
	return fscc_ntstatus(fs);
}

uint32_t smb2_cmd_query_info(struct smb2_work *w, struct smb2_buf *body)
{
	struct smb2_buf out;
	struct smb2_open *o;
	uint16_t ssize, in_off;
	uint8_t type, cls;
	uint32_t out_len, in_len, secinfo, flags, st;
	uint64_t p, v;
	size_t fixed = w->rsp.pos, cap;

	if (!sb_get_u16(body, &ssize) || !sb_get_u8(body, &type) ||
	    !sb_get_u8(body, &cls) || !sb_get_u32(body, &out_len) ||
	    !sb_get_u16(body, &in_off) || !sb_skip(body, 2) ||
	    !sb_get_u32(body, &in_len) || !sb_get_u32(body, &secinfo) ||
	    !sb_get_u32(body, &flags) || !sb_get_u64(body, &p) ||
	    !sb_get_u64(body, &v))
		return STATUS_INVALID_PARAMETER;
	if (out_len > SMB2_MAX_IO ||
	    (in_len && (size_t)in_off + in_len > w->cmd_len))
		return STATUS_INVALID_PARAMETER;
	st = smb2_open_lookup(w, p, v, &o);
	if (st != STATUS_SUCCESS)
		return st;
	/* The data goes after the 8 fixed bytes, within out_len. */
	cap = out_len < 65536 ? out_len : 65536;
	if (!smb2_rsp_room(w, QI_RSP_FIXED + cap)) {
		st = STATUS_INSUFFICIENT_RESOURCES;
		goto out_put;
	}
	sb_init(&out, w->rsp.base + fixed + QI_RSP_FIXED, cap);
	switch (type) {
	case SMB2_0_INFO_FILE:
		if (cls == FileFullEaInformation) {
			st = query_eas(w, o, in_off, in_len, flags, secinfo,
				       &out);
			break;
		}
		st = query_file(w, o, cls, &out);
		break;
	case SMB2_0_INFO_FILESYSTEM:
		st = query_fs(w, o, cls, &out);
		break;
	case SMB2_0_INFO_SECURITY:
		st = query_security(w, o, secinfo, &out);
		break;
	case SMB2_0_INFO_QUOTA:
		st = STATUS_NOT_SUPPORTED;
		break;
	default:
		st = STATUS_INVALID_PARAMETER;
		break;
	}
	if (st == STATUS_SUCCESS || st == STATUS_BUFFER_OVERFLOW) {
		sb_put_u16(&w->rsp, 9);
		sb_put_u16(&w->rsp, SMB2_HDR_LEN + QI_RSP_FIXED);
		sb_put_u32(&w->rsp, (uint32_t)out.pos);
		w->rsp.pos += out.pos;
		if (!out.pos)
			sb_put_u8(&w->rsp, 0);
	}
out_put:
	smb2_open_put(o);
	return st;
}
