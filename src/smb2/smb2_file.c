// SPDX-License-Identifier: MIT
/*
 * FileIds, CLOSE and FLUSH (MS-SMB2 §2.2.15-§2.2.18, §3.3.5.10,
 * §3.3.5.11): the open a command names, and the two commands that do
 * little more than find it.
 */
#include "smb2/smb2_int.h"

#include "smb2/fscc.h"
#include "smb2/smb2_info.h"
#include "smb2/smb2_open.h"
#include "state/file_state.h"
#include "vfs/vfs.h"

uint32_t smb2_open_lookup(struct smb2_work *w, uint64_t persistent,
			  uint64_t volatile_id, struct smb2_open **out)
{
	struct smb2_open *o;

	*out = NULL;
	if ((w->flags & SMB2_FLAGS_RELATED_OPERATIONS) && w->index > 0 &&
	    persistent == UINT64_MAX && volatile_id == UINT64_MAX) {
		if (!w->have_fid)
			return STATUS_INVALID_HANDLE;
		persistent = w->fid_persistent;
		volatile_id = w->fid_volatile;
	}
	w->fid_persistent = persistent;
	w->fid_volatile = volatile_id;
	w->have_fid = true;
	o = smb2_open_find(w->sess, persistent, volatile_id);
	if (!o)
		return STATUS_FILE_CLOSED;
	/* An open is used through the tree that made it (§3.3.5.x: else
	 * STATUS_FILE_CLOSED), and not once that tree is gone. */
	if (o->tree != w->tree || atomic_load(&o->tree->dead)) {
		smb2_open_put(o);
		return STATUS_FILE_CLOSED;
	}
	*out = o;
	return STATUS_SUCCESS;
}

/* FileId at @b's position (16 bytes: persistent, volatile). */
static bool get_fid(struct smb2_buf *b, uint64_t *p, uint64_t *v)
{
	return sb_get_u64(b, p) && sb_get_u64(b, v);
}

/* Delete-on-close asked by @o, or set on its file by any open. */
static bool close_may_delete(struct smb2_open *o)
{
	bool del;

	pthread_mutex_lock(&o->mu);
	del = o->delete_on_close;
	pthread_mutex_unlock(&o->mu);
	return del || (o->sf && state_delete_pending(o->sf));
}

uint32_t smb2_cmd_close(struct smb2_work *w, struct smb2_buf *body)
{
	struct smb2_buf *b = &w->rsp;
	struct fscc_file_info fi = { 0 };
	struct smb2_open *o;
	struct vfs_attr a;
	uint16_t ssize, flags;
	uint64_t p, v;
	uint32_t st;
	bool post;
	int err;

	if (!sb_get_u16(body, &ssize) || !sb_get_u16(body, &flags) ||
	    !sb_skip(body, 4) || !get_fid(body, &p, &v))
		return STATUS_INVALID_PARAMETER;
	st = smb2_open_lookup(w, p, v, &o);
	if (st != STATUS_SUCCESS)
		return st;
	/* A close that may delete the file (or stream) unlinks it: on a
	 * worker, not the event loop. */
	if (w->req->nowait && close_may_delete(o)) {
		smb2_open_put(o);
		w->req->defer = true;
		return STATUS_SUCCESS;
	}
	/* The attributes are those before the close (a delete-on-close
	 * takes the file with it). */
	post = (flags & SMB2_CLOSE_FLAG_POSTQUERY_ATTRIB) &&
	       vfs_getattr(o->obj, &a) == 0;
	if (post) {
		const char *path = smb2_open_path(o, w->req);

		if (path)
			smb2_file_info(o, path, &a, &fi);
		else
			post = false;
	}
	err = smb2_open_close(w->sess, o);
	smb2_open_put(o);
	if (err && err != -ENOENT && err != -ENOTEMPTY)
		return smb2_status(SMB2_CLOSE, err);
	if (!sb_put_u16(b, 60) ||
	    !sb_put_u16(b, post ? SMB2_CLOSE_FLAG_POSTQUERY_ATTRIB : 0) ||
	    !sb_put_u32(b, 0) || !sb_put_u64(b, fi.creation_time) ||
	    !sb_put_u64(b, fi.last_access_time) ||
	    !sb_put_u64(b, fi.last_write_time) ||
	    !sb_put_u64(b, fi.change_time) ||
	    !sb_put_u64(b, fi.allocation_size) ||
	    !sb_put_u64(b, fi.end_of_file) ||
	    !sb_put_u32(b, post ? fscc_attributes_normalize(fi.attributes)
				: 0))
		return STATUS_INSUFFICIENT_RESOURCES;
	return STATUS_SUCCESS;
}

uint32_t smb2_cmd_flush(struct smb2_work *w, struct smb2_buf *body)
{
	struct smb2_open *o;
	uint16_t ssize;
	uint64_t p, v;
	uint32_t st;
	int err;

	if (!sb_get_u16(body, &ssize) || !sb_skip(body, 6) ||
	    !get_fid(body, &p, &v))
		return STATUS_INVALID_PARAMETER;
	st = smb2_open_lookup(w, p, v, &o);
	if (st != STATUS_SUCCESS)
		return st;
	/* §3.3.5.11: only an open that may write flushes. */
	if (!(o->access & (FILE_WRITE_DATA | FILE_APPEND_DATA))) {
		smb2_open_put(o);
		return STATUS_ACCESS_DENIED;
	}
	err = o->is_dir ? 0 : vfs_commit(o->obj, 0, 0);
	smb2_open_put(o);
	if (err)
		return smb2_status(SMB2_FLUSH, err);
	return sb_put_u16(&w->rsp, 4) && sb_put_u16(&w->rsp, 0)
		       ? STATUS_SUCCESS
		       : STATUS_INSUFFICIENT_RESOURCES;
}
