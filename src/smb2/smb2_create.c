// SPDX-License-Identifier: MIT
/*
 * CREATE (MS-SMB2 §2.2.13, §2.2.14, §3.3.5.9; MS-FSA 2.1.5.1): open or
 * make a file or directory of the share, as the tree's (squashed) user.
 *
 *   check the request   impersonation, disposition, options, access bits,
 *                       attributes, the name (no leading separator)
 *   contexts            smb2_create_ctx.c: parsed and checked first, so
 *                       that a malformed one fails before anything moves
 *   walk                from the share root to the parent (vfs_lookup
 *                       never follows a symlink, never leaves the export)
 *   disposition         open / create / overwrite per MS-FSA 2.1.5.1.1
 *                       and 2.1.5.1.2, the type checked against the
 *                       options
 *   access              MAXIMUM_ALLOWED and the generic rights mapped,
 *                       refused beyond the user's maximal access
 *   share               the share reservation in the shared file state
 *                       (state/): SMB share modes and NFSv4 OPEN deny
 *                       modes conflict both ways; taken before any
 *                       truncation, so a refused open changes nothing
 *   response            attributes, FileId, the answered contexts
 */
#include "smb2/smb2_int.h"

#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "smb2/fscc.h"
#include "smb2/sd.h"
#include "smb2/smb2_access.h"
#include "smb2/smb2_acl.h"
#include "smb2/smb2_create.h"
#include "smb2/smb2_ea.h"
#include "smb2/smb2_info.h"
#include "smb2/smb2_durable.h"
#include "smb2/smb2_open.h"
#include "smb2/smb2_path.h"
#include "smb2/smb2_session.h"
#include "smb2/smb2_stream.h"
#include "smb2/utf16.h"
#include "state/file_state.h"
#include "vfs/vfs.h"

/* Modes of what CREATE makes (Samba's create mask 0744 is stricter; a
 * security descriptor in the request sets its own). */
#define SMB2_FILE_MODE 0644
#define SMB2_DIR_MODE 0755

/* FileAttributes a CREATE may carry (MS-SMB2 §2.2.13). */
#define CREATE_ATTRS_VALID                                                     \
	(FILE_ATTRIBUTE_READONLY | FILE_ATTRIBUTE_HIDDEN |                     \
	 FILE_ATTRIBUTE_SYSTEM | FILE_ATTRIBUTE_DIRECTORY |                    \
	 FILE_ATTRIBUTE_ARCHIVE | FILE_ATTRIBUTE_NORMAL |                      \
	 FILE_ATTRIBUTE_TEMPORARY | FILE_ATTRIBUTE_SPARSE_FILE |               \
	 FILE_ATTRIBUTE_REPARSE_POINT | FILE_ATTRIBUTE_COMPRESSED |            \
	 FILE_ATTRIBUTE_OFFLINE | FILE_ATTRIBUTE_NOT_CONTENT_INDEXED |         \
	 FILE_ATTRIBUTE_ENCRYPTED | FILE_ATTRIBUTE_INTEGRITY_STREAM |          \
	 FILE_ATTRIBUTE_NO_SCRUB_DATA)

/* The decoded request (§2.2.13). */
struct create_req {
	uint8_t oplock;
	uint32_t impersonation;
	uint32_t access;
	uint32_t attrs;
	uint32_t share;
	uint32_t disposition;
	uint32_t options;
	char *path;                 /* UTF-8, '/' separated */
	const char *stream;         /* a named stream of it (UTF-8), or NULL */
	size_t stream_len;
	bool data_stream;           /* "NAME::$DATA": its unnamed stream */
	char xname[SMB2_STREAM_XNAME_SIZE]; /* the stream's xattr */
	struct smb2_create_ctx ctx;
	uint32_t refused;           /* create_resolve()'s own NTSTATUS, with
				       -ECANCELED */
	bool nowait;                /* on the event loop: -EAGAIN where
				       resolving would list a directory */
};

/* The fixed fields of a CREATE that opens something (§3.3.5.9). */
static uint32_t create_check(const struct create_req *c)
{
	if (c->impersonation > SMB2_IMPERSONATION_DELEGATE)
		return STATUS_BAD_IMPERSONATION_LEVEL;
	if (c->disposition > FILE_OVERWRITE_IF ||
	    (c->options & ~FILE_CREATE_OPTIONS_VALID) ||
	    (c->options & (FILE_DIRECTORY_FILE | FILE_NON_DIRECTORY_FILE)) ==
		    (FILE_DIRECTORY_FILE | FILE_NON_DIRECTORY_FILE) ||
	    (c->attrs & ~CREATE_ATTRS_VALID) ||
	    (c->share & ~(FILE_SHARE_READ | FILE_SHARE_WRITE |
			  FILE_SHARE_DELETE)))
		return STATUS_INVALID_PARAMETER;
	if ((c->options & FILE_DIRECTORY_FILE) &&
	    c->disposition != FILE_CREATE && c->disposition != FILE_OPEN &&
	    c->disposition != FILE_OPEN_IF)
		return STATUS_INVALID_PARAMETER;
	/* §3.3.5.9: reserved option bits and options a server does not
	 * offer over the network. */
	if (c->options & (FILE_OPEN_BY_FILE_ID | FILE_RESERVE_OPFILTER))
		return STATUS_NOT_SUPPORTED;
	if (c->access & SMB2_ACCESS_RESERVED)
		return STATUS_ACCESS_DENIED;
	if (!c->access)
		return STATUS_ACCESS_DENIED;
	return STATUS_SUCCESS;
}

/*
 * Split a CREATE name (UTF-16LE, @len bytes) at the first ':' of its last
 * component: the file's name is what precedes it, the stream part (UTF-8)
 * goes to @c (smb2_stream_parse). "name::$DATA" names the unnamed data
 * stream: the file itself. Returns the length of the file's name.
 */
static uint32_t create_stream_split(struct smb2_work *w, const uint8_t *name,
				    size_t len, struct create_req *c,
				    size_t *base_len)
{
	size_t i, last = 0, max, n;
	const char *sname;
	char *spec;
	uint32_t st;

	*base_len = len;
	for (i = 0; i + 1 < len; i += 2)
		if (get_le16(name + i) == '\\')
			last = i + 2;
	for (i = last; i + 1 < len; i += 2)
		if (get_le16(name + i) == ':')
			break;
	if (i + 1 >= len)
		return STATUS_SUCCESS;
	*base_len = i;
	i += 2;
	max = (len - i) / 2 * 3 + 1;
	spec = req_alloc_raw(w->req, max);
	if (!spec)
		return STATUS_INSUFFICIENT_RESOURCES;
	if (utf16le_to_utf8(name + i, len - i, spec, max, &n, false) < 0)
		return STATUS_OBJECT_NAME_INVALID;
	st = smb2_stream_parse(spec, n, &sname, &c->stream_len);
	if (st != STATUS_SUCCESS)
		return st;
	if (c->stream_len)
		c->stream = sname;
	else
		c->data_stream = true;
	return STATUS_SUCCESS;
}

static uint32_t create_decode(struct smb2_work *w, struct smb2_buf *body,
			      struct create_req *c)
{
	uint16_t ssize, name_off, name_len;
	uint32_t ctx_off, ctx_len;
	uint8_t secflags;
	struct smb2_buf name;
	size_t nlen;
	uint32_t st;

	if (!sb_get_u16(body, &ssize) || !sb_get_u8(body, &secflags) ||
	    !sb_get_u8(body, &c->oplock) ||
	    !sb_get_u32(body, &c->impersonation) || !sb_skip(body, 16) ||
	    !sb_get_u32(body, &c->access) || !sb_get_u32(body, &c->attrs) ||
	    !sb_get_u32(body, &c->share) ||
	    !sb_get_u32(body, &c->disposition) ||
	    !sb_get_u32(body, &c->options) || !sb_get_u16(body, &name_off) ||
	    !sb_get_u16(body, &name_len) || !sb_get_u32(body, &ctx_off) ||
	    !sb_get_u32(body, &ctx_len))
		return STATUS_INVALID_PARAMETER;
	(void)secflags;
	/* The contexts first: a durable reconnect takes its open as it is,
	 * whatever the other fields say (§3.3.5.9.7; smbtorture
	 * durable-open.reopen2 sets them all to junk). */
	if (ctx_len) {
		struct smb2_buf cb;

		if (ctx_off < SMB2_HDR_LEN + 56 || ctx_off & 7 ||
		    (size_t)ctx_off + ctx_len > w->cmd_len ||
		    !sb_range(&w->msg, w->off + ctx_off, ctx_len, &cb))
			return STATUS_INVALID_PARAMETER;
		st = smb2_create_ctx_parse(&cb, &c->ctx);
		if (st != STATUS_SUCCESS)
			return st;
	}
	if (!(c->ctx.durable & (SMB2_DURABLE_DHNC | SMB2_DURABLE_DH2C))) {
		st = create_check(c);
		if (st != STATUS_SUCCESS)
			return st;
	}
	/* The name, inside this command, from the header. */
	if (name_len) {
		if (name_off < SMB2_HDR_LEN + 56 ||
		    (size_t)name_off + name_len > w->cmd_len ||
		    !sb_range(&w->msg, w->off + name_off, name_len, &name))
			return STATUS_INVALID_PARAMETER;
		if (name_len >= 2 && (get_le16(name.base) == '\\' ||
				      get_le16(name.base) == '/'))
			return STATUS_INVALID_PARAMETER;
		st = create_stream_split(w, name.base, name_len, c, &nlen);
		if (st != STATUS_SUCCESS)
			return st;
	} else {
		sb_init(&name, NULL, 0);
		nlen = 0;
	}
	st = smb2_path_from_wire(w->req, name.base, nlen, &c->path);
	if (st != STATUS_SUCCESS)
		return st;
	return STATUS_SUCCESS;
}

/* What @disposition does to something that exists: *@action, or
 * -EEXIST for FILE_CREATE. */
static int existing(uint32_t disposition, uint32_t *action)
{
	switch (disposition) {
	case FILE_CREATE:
		return -EEXIST;
	case FILE_OPEN:
	case FILE_OPEN_IF:
		*action = FILE_OPENED;
		return 0;
	case FILE_SUPERSEDE:
		*action = FILE_SUPERSEDED;
		return 0;
	default:
		*action = FILE_OVERWRITTEN;
		return 0;
	}
}

/*
 * Find the leaf, or make it as the disposition says. *@obj (referenced)
 * and *@action on success; the parent stays in *@dir for the access
 * check (NULL at the share root).
 */
static int create_resolve(struct smb2_tree *t, struct create_req *c,
			  struct vfs_obj **dir, struct vfs_obj **obj,
			  uint32_t *action)
{
	const char *leaf;
	size_t len;
	struct vfs_sattr sa = { 0 };
	bool want_dir = c->options & FILE_DIRECTORY_FILE;
	char real[VFS_NAME_MAX * 3];
	size_t reallen = 0;
	int err, tries;

	*dir = NULL;
	*obj = NULL;
	err = smb2_path_walk(t, c->path, c->nowait, dir, &leaf, &len);
	if (err)
		return err;
	if (!leaf) {
		/* The share root: it exists, and is a directory. */
		*obj = *dir;
		*dir = NULL;
		if (c->disposition == FILE_CREATE)
			return -EEXIST;
		if (c->disposition != FILE_OPEN &&
		    c->disposition != FILE_OPEN_IF)
			return -EINVAL;
		*action = FILE_OPENED;
		return 0;
	}
	tries = 0;
again:
	err = smb2_path_lookup(t, *dir, leaf, len, c->nowait, obj, real,
			       &reallen);
	if (err == 0) {
		/* The open's name as spelt on disk (a case-insensitive
		 * share found it by another spelling). */
		if (reallen == len)
			memcpy(c->path + (leaf - c->path), real, len);
		return existing(c->disposition, action);
	}
	if (err != -ENOENT)
		return err;
	if (c->disposition == FILE_OPEN || c->disposition == FILE_OVERWRITE)
		return -ENOENT;
	if (!t->acc.opts->rw)
		return -EACCES;
	/* MS-FSA 2.1.5.1.1: a new read-only file cannot be deleted on
	 * close, and is not made. */
	if (!want_dir && (c->attrs & FILE_ATTRIBUTE_READONLY) &&
	    (c->options & FILE_DELETE_ON_CLOSE_OPT)) {
		c->refused = STATUS_CANNOT_DELETE;
		return -ECANCELED;
	}
	sa.set_mode = true;
	if (c->ctx.have_mode)
		sa.mode = c->ctx.mode;
	else
		sa.mode = want_dir ? SMB2_DIR_MODE : SMB2_FILE_MODE;
	if (!want_dir && (c->attrs & FILE_ATTRIBUTE_READONLY))
		sa.mode &= ~0222u;
	if (want_dir)
		err = vfs_mkdir(*dir, leaf, len, &sa, obj);
	else
		err = vfs_create(*dir, leaf, len, VFS_CREATE_GUARDED, &sa,
				 NULL, obj);
	/* Made by another open in between (two OPEN_IFs racing,
	 * smbtorture create.mkdir-dup): open what is there now. */
	if (err == -EEXIST && c->disposition != FILE_CREATE && ++tries < 3)
		goto again;
	if (err)
		return err;
	*action = FILE_CREATED;
	return 0;
}

/*
 * A named stream: its file (made, as Windows makes it, when the
 * disposition may create and there is none), then the stream itself as
 * the disposition says. *@action is the stream's; *@base_made says the
 * file was made. A stream to be made is made later (create_stream_make),
 * once the open may have it.
 */
static int create_stream_resolve(struct smb2_tree *t, struct create_req *c,
				 struct vfs_obj **dir, struct vfs_obj **obj,
				 uint32_t *action, bool *base_made)
{
	uint32_t disposition = c->disposition, base_action;
	struct vfs_attr a;
	int err;

	*base_made = false;
	if (c->options & FILE_DIRECTORY_FILE) {
		/* a stream is never a directory */
		c->refused = STATUS_NOT_A_DIRECTORY;
		return -ECANCELED;
	}
	c->disposition = disposition == FILE_OPEN ||
					 disposition == FILE_OVERWRITE
				 ? FILE_OPEN
				 : FILE_OPEN_IF;
	err = create_resolve(t, c, dir, obj, &base_action);
	c->disposition = disposition;
	if (err)
		return err;
	*base_made = base_action == FILE_CREATED;
	err = vfs_getattr(*obj, &a);
	if (err)
		return err;
	/* Files and directories have streams; nasd opens no symlink's. */
	if (a.type != VFS_REG && a.type != VFS_DIR)
		return -EACCES;
	err = smb2_stream_find(*obj, c->stream, c->stream_len, c->xname);
	if (err == 0)
		return existing(disposition, action);
	if (err != -ENOENT)
		return err;
	if (disposition == FILE_OPEN || disposition == FILE_OVERWRITE)
		return -ENOENT;
	if (!t->acc.opts->rw)
		return -EACCES;
	*action = FILE_CREATED;
	return 0;
}

/* The type of @a against what the options ask (MS-FSA 2.1.5.1.2). */
static int create_type_check(struct create_req *c, const struct vfs_attr *a)
{
	if (a->type == VFS_DIR) {
		/* A directory's "::$DATA" names a data stream, which it
		 * has not (smbtorture streams.dir). */
		if (c->data_stream) {
			c->refused = c->options & FILE_DIRECTORY_FILE
					     ? STATUS_NOT_A_DIRECTORY
					     : STATUS_FILE_IS_A_DIRECTORY;
			return -ECANCELED;
		}
		if (c->options & FILE_NON_DIRECTORY_FILE)
			return -EISDIR;
		if (c->disposition == FILE_SUPERSEDE ||
		    c->disposition == FILE_OVERWRITE ||
		    c->disposition == FILE_OVERWRITE_IF)
			return -EINVAL;
		return 0;
	}
	if (c->options & FILE_DIRECTORY_FILE) {
		/* the leaf is no directory: not a missing path (ENOTDIR's
		 * meaning for CREATE), smbtorture smb2.mkdir */
		c->refused = STATUS_NOT_A_DIRECTORY;
		return -ECANCELED;
	}
	/* nasd never follows a symlink: opening one is refused unless the
	 * client asks for the link itself (to delete or query it). */
	if (a->type == VFS_LNK && !(c->options & FILE_OPEN_REPARSE_POINT))
		return -EACCES;
	if (a->type != VFS_REG && a->type != VFS_LNK)
		return -EACCES;
	return 0;
}

/*
 * The access the open gets: the generic rights mapped, MAXIMUM_ALLOWED
 * made the maximal access, nothing beyond it (MS-FSA 2.1.5.1.2.1).
 */
static uint32_t create_access(struct create_req *c, uint32_t maximal,
			      bool created, uint32_t *granted)
{
	uint32_t want = smb2_access_map_generic(c->access);

	if (want & ACCESS_SYSTEM_SECURITY)
		return STATUS_PRIVILEGE_NOT_HELD;
	/* Whoever created the file may use it as asked: the mode it was
	 * given may already deny its creator (a read-only file). */
	if (created)
		maximal |= FILE_ALL_ACCESS;
	if (want & MAXIMUM_ALLOWED)
		want = (want & ~MAXIMUM_ALLOWED) | maximal;
	if (want & ~maximal) {
		log_msg(LL_DEBUG, "smb2: CREATE %s: access %#x beyond the "
			"maximal %#x", c->path, want, maximal);
		return STATUS_ACCESS_DENIED;
	}
	if ((c->options & FILE_DELETE_ON_CLOSE_OPT) && !(want & DELETE))
		return STATUS_ACCESS_DENIED;
	*granted = want;
	return STATUS_SUCCESS;
}

/* The CREATE response body (§2.2.14) for @o, with the answered contexts. */
static uint32_t create_reply(struct smb2_work *w, struct create_req *c,
			     struct smb2_open *o, uint32_t action,
			     const struct vfs_attr *a, uint32_t maximal,
			     uint8_t oplock)
{
	struct fscc_file_info fi;
	struct smb2_buf *b = &w->rsp;
	size_t fixed = b->pos, ctx_start;
	uint32_t attrs;

	smb2_file_info(o, c->path, a, &fi);
	attrs = fi.attributes;
	if (!sb_put_u16(b, 89) || !sb_put_u8(b, oplock) ||
	    !sb_put_u8(b, 0) || !sb_put_u32(b, action) ||
	    !sb_put_u64(b, fi.creation_time) ||
	    !sb_put_u64(b, fi.last_access_time) ||
	    !sb_put_u64(b, fi.last_write_time) ||
	    !sb_put_u64(b, fi.change_time) ||
	    !sb_put_u64(b, fi.allocation_size) ||
	    !sb_put_u64(b, fi.end_of_file) || !sb_put_u32(b, attrs) ||
	    !sb_put_u32(b, 0) || !sb_put_u64(b, o->persistent) ||
	    !sb_put_u64(b, o->volatile_id) || !sb_put_u32(b, 0) ||
	    !sb_put_u32(b, 0))
		return STATUS_INSUFFICIENT_RESOURCES;
	ctx_start = b->pos;
	if (!smb2_create_ctx_reply(b, &c->ctx, a, maximal,
				   vfs_export_id(vfs_obj_export(o->obj))))
		return STATUS_INSUFFICIENT_RESOURCES;
	if (b->pos > ctx_start) {
		/* offsets count from the header, which w->rsp starts with */
		put_le32(b->base + fixed + 80, (uint32_t)ctx_start);
		put_le32(b->base + fixed + 84, (uint32_t)(b->pos - ctx_start));
	} else {
		/* an empty Buffer still has one byte (StructureSize 89) */
		if (!sb_put_u8(b, 0))
			return STATUS_INSUFFICIENT_RESOURCES;
	}
	return STATUS_SUCCESS;
}

/*
 * The answer for an open that exists already (a durable reconnect, a
 * replayed CREATE): opened, at the oplock it holds, with its FileId;
 * the access it was granted stands for the maximal one. Takes @o's
 * reference.
 */
static uint32_t create_again(struct smb2_work *w, struct create_req *c,
			     struct smb2_open *o)
{
	struct vfs_attr a;
	uint32_t st;
	int err;

	err = vfs_getattr(o->obj, &a);
	st = err ? smb2_status(SMB2_CREATE, err)
		 : create_reply(w, c, o, FILE_OPENED, &a, o->access,
				smb2_oplock_level(o));
	if (st == STATUS_SUCCESS) {
		w->fid_persistent = o->persistent;
		w->fid_volatile = o->volatile_id;
		w->have_fid = true;
	}
	smb2_open_put(o);
	return st;
}

/* FILE_OPEN without delete-on-close, from the fixed fields (§2.2.13:
 * CreateDisposition at 36, CreateOptions at 40): the transport's guess,
 * and the first half of create_on_loop(). */
bool smb2_create_inline_body(const uint8_t *body, size_t len)
{
	return len >= 44 && get_le32(body + 36) == FILE_OPEN &&
	       !(get_le32(body + 40) & FILE_DELETE_ON_CLOSE_OPT);
}

/*
 * What a CREATE (@body, decoded into @c) may do on the event loop
 * (DESIGN.md §3): open what exists, as it is, as NFS's LOOKUP and GETATTR
 * run there. Making, replacing or deleting a file, a named stream, EAs, a
 * security descriptor or an allocation to apply, a durable reconnect: the
 * worker's (they write to the disk, or are rare).
 */
static bool create_on_loop(const struct smb2_buf *body,
			   const struct create_req *c)
{
	return smb2_create_inline_body(body->base, body->len) && !c->stream &&
	       !c->ctx.have_eas && !c->ctx.have_sd && !c->ctx.have_alloc &&
	       !(c->ctx.durable & (SMB2_DURABLE_DHNC | SMB2_DURABLE_DH2C));
}

uint32_t smb2_cmd_create(struct smb2_work *w, struct smb2_buf *body)
{
	struct smb2_tree *t = w->tree;
	struct state_holder h = { .tag = STATE_HOLDER_SMB };
	struct create_req c = { 0 };
	struct vfs_obj *dir = NULL, *obj = NULL;
	struct smb2_open *o = NULL;
	struct vfs_attr a;
	uint32_t st, action = FILE_OPENED, maximal, granted = 0, access, deny;
	struct state_file *sf;
	bool stat_open;
	bool created, base_made = false;
	uint8_t oplock;
	int err;

	st = create_decode(w, body, &c);
	if (st != STATUS_SUCCESS)
		return st;
	if (w->req->nowait && !create_on_loop(body, &c)) {
		w->req->defer = true; /* nothing done yet: a worker runs it */
		return STATUS_SUCCESS;
	}
	c.nowait = w->req->nowait;
	if (t->ipc)
		return STATUS_OBJECT_NAME_NOT_FOUND; /* no named pipes */
	st = smb2_durable_sort(w, &c.ctx, &o);
	if (st != STATUS_SUCCESS)
		return st;
	if (o) { /* a replayed CREATE of a durable open: answered again */
		c.ctx.durable_granted = atomic_load(&o->durable);
		c.ctx.granted_timeout_ms = o->durable_timeout_ms;
		return create_again(w, &c, o);
	}
	if (c.ctx.durable & (SMB2_DURABLE_DHNC | SMB2_DURABLE_DH2C)) {
		st = smb2_durable_reconnect(w, &c.ctx, &o);
		return st == STATUS_SUCCESS ? create_again(w, &c, o) : st;
	}
	if (c.ctx.timewarp)
		return STATUS_OBJECT_NAME_NOT_FOUND; /* no snapshots */
	if (export_cred_apply(&t->acc.cred))
		return STATUS_INTERNAL_ERROR;

	if (c.stream)
		err = create_stream_resolve(t, &c, &dir, &obj, &action,
					    &base_made);
	else
		err = create_resolve(t, &c, &dir, &obj, &action);
	if (err == -EAGAIN && c.nowait) {
		w->req->defer = true; /* a directory to list: on a worker */
		st = STATUS_SUCCESS;
		goto out_put;
	}
	if (err)
		goto out_err;
	created = c.stream ? base_made : action == FILE_CREATED;
	err = vfs_getattr(obj, &a);
	if (!err && !c.stream)
		err = create_type_check(&c, &a);
	if (!err)
		err = smb2_access_maximal(obj, &a, dir, &t->acc.cred,
					  !t->acc.opts->rw, &maximal);
	if (err)
		goto out_err;
	maximal &= t->maximal_access;
	st = create_access(&c, maximal, created, &granted);
	if (st != STATUS_SUCCESS)
		goto out_put;
	/* Overwriting needs write access, and a read-only file refuses
	 * delete-on-close (MS-FSA 2.1.5.1.2.1). */
	if ((action == FILE_OVERWRITTEN || action == FILE_SUPERSEDED ||
	     (c.stream && action == FILE_CREATED)) &&
	    !(maximal & FILE_WRITE_DATA)) {
		st = STATUS_ACCESS_DENIED;
		goto out_put;
	}
	/* Replacing a hidden or system file must say so (MS-FSA
	 * 2.1.5.1.2.1): a program that does not know it is there does not
	 * overwrite it. */
	if (action == FILE_OVERWRITTEN || action == FILE_SUPERSEDED) {
		const uint32_t hs = FILE_ATTRIBUTE_HIDDEN |
				    FILE_ATTRIBUTE_SYSTEM;
		struct fscc_file_info fi;

		smb2_info_fill(obj, "", 0, &a, &fi);
		if (fi.attributes & hs & ~c.attrs) {
			st = STATUS_ACCESS_DENIED;
			goto out_put;
		}
	}
	if ((c.options & FILE_DELETE_ON_CLOSE_OPT) && !created &&
	    (c.stream || a.type != VFS_DIR) && !(a.mode & 0222)) {
		st = STATUS_CANNOT_DELETE;
		goto out_put;
	}

	/* A stream of a file about to go goes with it. */
	if (c.stream && action != FILE_CREATED) {
		sf = state_file_find(obj);
		if (sf && state_delete_pending(sf)) {
			state_file_put(sf);
			st = STATUS_DELETE_PENDING;
			goto out_put;
		}
		if (sf)
			state_file_put(sf);
	}
	sf = c.stream ? state_file_get_stream(obj, c.xname)
		      : state_file_get(obj);
	if (!sf) {
		st = STATUS_INSUFFICIENT_RESOURCES;
		goto out_put;
	}
	/* An open without data or delete access (attributes, security)
	 * takes no part in sharing, either way (MS-FSA 2.1.5.1.2.2): it
	 * holds a share that denies nothing, for delete-pending only. */
	access = smb2_access_share_bits(granted);
	deny = access ? smb2_access_deny_bits(c.share) : 0;
	/* Oplocks of other opens that this one conflicts with break first
	 * (MS-FSA 2.1.5.1.2): a batch holder whose share modes refuse this
	 * open may close; until the answers come, this CREATE waits. */
	stat_open = !(granted & ~(SYNCHRONIZE | FILE_READ_ATTRIBUTES |
				  FILE_WRITE_ATTRIBUTES)) &&
		    action == FILE_OPENED;
	/* A delete-pending file refuses the open before any oplock breaks
	 * (smbtorture oplock.doc); state_share_acquire() checks again. */
	if (action != FILE_CREATED && state_delete_pending(sf)) {
		state_file_put(sf);
		st = STATUS_DELETE_PENDING;
		goto out_put;
	}
	if (action != FILE_CREATED) {
		struct state_grant_ask ask = {
			.op = STATE_OP_OPEN,
			.access = access,
			.deny = deny,
		};

		if (!stat_open)
			ask.flags |= STATE_ASK_DATA;
		if (granted & (FILE_WRITE_DATA | FILE_APPEND_DATA))
			ask.flags |= STATE_ASK_WRITE;
		if (action == FILE_OVERWRITTEN || action == FILE_SUPERSEDED)
			ask.flags |= STATE_ASK_OVERWRITE;
		st = smb2_grant_break(w, sf, NULL, &ask);
		if (st != STATUS_SUCCESS) {
			state_file_put(sf);
			goto out_put;
		}
	}
	o = calloc(1, sizeof(*o));
	if (!o) {
		state_file_put(sf);
		st = STATUS_INSUFFICIENT_RESOURCES;
		goto out_put;
	}
	atomic_init(&o->refs, 1);
	pthread_mutex_init(&o->mu, NULL);
	pthread_mutex_init(&o->dir_mu, NULL);
	o->sf = sf;
	o->path = strdup(c.path);
	if (c.stream)
		o->stream = strdup(c.xname);
	if (!o->path || (c.stream && !o->stream)) {
		state_file_put(o->sf);
		o->sf = NULL;
		st = STATUS_INSUFFICIENT_RESOURCES;
		goto out_free;
	}
	h.id = o;
	/* A file opened for delete: its streams' opens must share delete
	 * too (the file's delete takes them, MS-FSA 2.1.5.1.2.2). */
	if (!c.stream && (access & STATE_ACCESS_DELETE) &&
	    state_streams_deny(obj, STATE_ACCESS_DELETE)) {
		state_file_put(o->sf);
		o->sf = NULL;
		st = STATUS_SHARING_VIOLATION;
		goto out_free;
	}
	err = state_share_acquire(o->sf, &h, access, deny);
	if (err == -EINPROGRESS)
		err = -EBUSY; /* a courtesy NFSv4 client's, being expired:
			       * a sharing violation, which clients retry */
	if (err) {
		state_file_put(o->sf);
		o->sf = NULL;
		goto out_free_err;
	}
	if (c.stream && action != FILE_OPENED) {
		/* made (refused if another CREATE made it meanwhile), or
		 * cut to nothing */
		err = smb2_stream_create(obj, c.xname,
					 action == FILE_CREATED);
		if (err)
			goto out_release_err;
	} else if (action == FILE_OVERWRITTEN || action == FILE_SUPERSEDED) {
		struct vfs_sattr sa = { .set_size = true, .size = 0 };

		struct vfs_sattr sm = { .set_mode = true };

		err = vfs_setattr(obj, &sa);
		/* The attributes asked for replace the file's (below), its
		 * READONLY too (smbtorture smb2.openattr): after the
		 * truncation, and as far as the user may (only the owner
		 * changes a mode), the overwrite standing either way. */
		if (!err && smb2_readonly_mode(&a, c.attrs &
						FILE_ATTRIBUTE_READONLY,
					&sm.mode))
			(void)vfs_setattr(obj, &sm);
		if (!err)
			err = vfs_getattr(obj, &a);
		if (err)
			goto out_release_err;
	}
	/* The attributes of a file this CREATE made or replaced: those
	 * asked for, and ARCHIVE for a file (MS-FSA 2.1.5.1.1, 2.1.5.1.2.1);
	 * kept when they say more than the derived ones. */
	if (c.stream ? base_made : action != FILE_OPENED) {
		uint32_t attrib = c.attrs & FSCC_ATTR_SETTABLE;

		if (a.type != VFS_DIR)
			attrib |= FILE_ATTRIBUTE_ARCHIVE;
		err = smb2_dos_store(obj, &a, attrib, NULL);
		if (err && err != -EOPNOTSUPP) {
			st = smb2_status(SMB2_CREATE, err);
			goto out_unmake;
		}
	}
	/* ExtA: the EAs of a file this CREATE made or overwrote
	 * (MS-FSA 2.1.5.1.1, 2.1.5.1.2.1); an existing file keeps its. */
	if (c.ctx.have_eas && (c.stream ? base_made : action != FILE_OPENED)) {
		st = smb2_ea_apply(obj, &c.ctx.eas);
		if (st != STATUS_SUCCESS)
			goto out_unmake;
	}
	/* A file or directory this CREATE made gets the inheritable ACEs
	 * its directory keeps (MS-DTYP 2.5.3.4), before any SecD. */
	if (created && dir) {
		err = smb2_acl_inherit(dir, obj, &a, a.type == VFS_DIR,
				       &t->acc.cred);
		if (err && err != -ENODATA)
			log_msg(LL_DEBUG, "smb2: CREATE %s: inheriting the "
				"directory's ACL: %s", c.path, strerror(-err));
	}
	/* SecD: owner, group and mode of a file this CREATE made
	 * (MS-SMB2 §2.2.13.2.2), as far as the user may set them, and the
	 * whole descriptor kept (smb2_acl.h). */
	if (c.ctx.have_sd && created) {
		struct smb2_buf sdb = c.ctx.sd;
		uint32_t secinfo = OWNER_SECURITY_INFORMATION |
				   GROUP_SECURITY_INFORMATION;

		/* Without SE_DACL_PRESENT the file keeps the DACL it
		 * inherited (smbtorture create.nulldacl). */
		if (sb_remaining(&sdb) >= 4 &&
		    (get_le16(sdb.base + sdb.pos + 2) & SE_DACL_PRESENT))
			secinfo |= DACL_SECURITY_INFORMATION;
		st = smb2_sd_apply(obj, secinfo, &sdb);
		if (st != STATUS_SUCCESS)
			goto out_unmake;
		err = vfs_getattr(obj, &a);
		if (err)
			goto out_release_err;
	}
	o->obj = obj;
	obj = NULL;
	o->access = granted;
	o->share_access = c.share;
	o->create_options = c.options;
	o->is_dir = a.type == VFS_DIR && !c.stream;
	o->delete_on_close = c.options & FILE_DELETE_ON_CLOSE_OPT;
	smb2_tree_get(t);
	o->tree = t;
	err = smb2_open_add(w->sess, o);
	if (err) {
		st = err == -ENOSPC ? STATUS_INSUFFICIENT_RESOURCES
				    : STATUS_USER_SESSION_DELETED;
		goto out_close;
	}
	oplock = smb2_oplock_grant(w, o, c.oplock, stat_open);
	smb2_durable_grant(w, o, &c.ctx, oplock);
	st = create_reply(w, &c, o, action, &a, maximal, oplock);
	if (st != STATUS_SUCCESS)
		goto out_close;
	/* Related commands that follow name this open by the all-ones id. */
	w->fid_persistent = o->persistent;
	w->fid_volatile = o->volatile_id;
	w->have_fid = true;
	smb2_open_put(o);
	if (dir)
		vfs_obj_put(dir);
	return STATUS_SUCCESS;

out_unmake:
	/* A file this CREATE made, whose EAs or security descriptor could
	 * not be set, is not left behind (the CREATE fails whole); our own
	 * share goes first, it may deny delete. */
	state_share_release(o->sf, &h);
	state_file_put(o->sf);
	o->sf = NULL;
	if (c.stream && action == FILE_CREATED)
		(void)smb2_stream_remove(obj, c.xname);
	if (created)
		(void)smb2_path_remove(t, c.path, obj);
	goto out_free;
out_release_err:
	st = smb2_status(SMB2_CREATE, err);
	state_share_release(o->sf, &h);
	state_file_put(o->sf);
	o->sf = NULL;
	goto out_free;
out_close:
	/* The open owns obj, the tree and the share now: closing it
	 * releases them, its last put frees it. */
	smb2_open_close(w->sess, o);
	smb2_open_put(o);
	if (dir)
		vfs_obj_put(dir);
	return st;
out_free_err:
	st = smb2_status(SMB2_CREATE, err);
out_free:
	free(o->stream);
	free(o->path);
	pthread_mutex_destroy(&o->mu);
	pthread_mutex_destroy(&o->dir_mu);
	free(o);
	goto out_put;
out_err:
	st = err == -ECANCELED && c.refused ? c.refused
					    : smb2_status(SMB2_CREATE, err);
out_put:
	if (obj)
		vfs_obj_put(obj);
	if (dir)
		vfs_obj_put(dir);
	return st;
}
