// SPDX-License-Identifier: MIT
/*
 * SET_INFO (MS-SMB2 §2.2.39, §2.2.40, §3.3.5.21; MS-FSA 2.1.5.15): the
 * file classes a client sets (times and the read-only attribute, rename,
 * hard link, delete disposition, position, mode, allocation, end of file)
 * and the security descriptor (owner, group and mode), each checked
 * against the open's granted access first. The input is decoded by
 * fscc.h / sd.h; what it changes goes through the vfs as the tree's user,
 * so the kernel has the last word on permissions.
 */
#include "smb2/smb2_int.h"

#include <stdlib.h>
#include <string.h>

#include "smb2/fscc.h"
#include "smb2/sd.h"
#include "smb2/smb2_access.h"
#include "smb2/smb2_acl.h"
#include "smb2/smb2_ea.h"
#include "smb2/smb2_info.h"
#include "smb2/smb2_open.h"
#include "smb2/smb2_path.h"
#include "smb2/smb2_stream.h"
#include "state/file_state.h"
#include "vfs/vfs.h"

#define SMB2_RENAME_NAME_MAX (VFS_PATH_MAX)

static uint32_t set_basic(struct smb2_open *o, struct smb2_buf *in)
{
	struct fscc_set_basic sb;
	struct vfs_sattr sa = { 0 };
	struct vfs_attr a;
	enum fscc_status fs;
	int err;

	if (!(o->access & FILE_WRITE_ATTRIBUTES))
		return STATUS_ACCESS_DENIED;
	fs = fscc_dec_FILE_BASIC_INFORMATION(in, o->is_dir, &sb);
	if (fs != FSCC_OK)
		return fscc_ntstatus(fs);
	/* ChangeTime cannot be set on Linux (as Samba); FREEZE/THAW change
	 * nothing here. */
	if (sb.last_access.op == FSCC_TIME_SET) {
		sa.atime_how = VFS_TIME_CLIENT;
		sa.atime = sb.last_access.ts;
	}
	if (sb.last_write.op == FSCC_TIME_SET) {
		sa.mtime_how = VFS_TIME_CLIENT;
		sa.mtime = sb.last_write.ts;
	}
	/* The other attributes and the creation time are kept with the
	 * file (where it can keep none, they stay as derived); SPARSE_FILE
	 * is FSCTL_SET_SPARSE's, and stays. */
	if (sb.attributes || sb.creation.op == FSCC_TIME_SET) {
		struct fscc_file_info fi;
		uint32_t attrib;

		err = vfs_getattr(o->obj, &a);
		if (err)
			return smb2_status(SMB2_SET_INFO, err);
		smb2_info_fill(o->obj, "", 0, &a, &fi);
		attrib = sb.attributes ? sb.attributes & FSCC_ATTR_SETTABLE
				       : fi.attributes;
		attrib |= fi.attributes & FILE_ATTRIBUTE_SPARSE_FILE;
		err = smb2_dos_store(o->obj, &a, attrib,
				     sb.creation.op == FSCC_TIME_SET
					     ? &sb.creation.filetime
					     : NULL);
		if (err && err != -EOPNOTSUPP)
			return smb2_status(SMB2_SET_INFO, err);
		if (sb.attributes && !o->is_dir)
			sa.set_mode = smb2_readonly_mode(
				&a, sb.attributes & FILE_ATTRIBUTE_READONLY,
				&sa.mode);
	}
	if (!sa.set_mode && sa.atime_how == VFS_TIME_DONT &&
	    sa.mtime_how == VFS_TIME_DONT)
		return STATUS_SUCCESS;
	err = vfs_setattr(o->obj, &sa);
	return err ? smb2_status(SMB2_SET_INFO, err) : STATUS_SUCCESS;
}

/* Is directory @d empty (nothing but "." and "..")? */
static bool dirent_any(void *ctx, const struct vfs_dirent *de)
{
	bool *found = ctx;

	if ((de->namelen == 1 && de->name[0] == '.') ||
	    (de->namelen == 2 && de->name[0] == '.' && de->name[1] == '.'))
		return true;
	*found = true;
	return false;
}

static int dir_empty(struct vfs_obj *d)
{
	bool found = false, eof;
	int err = vfs_readdir(d, 0, dirent_any, &found, &eof);

	if (err)
		return err;
	return found ? -ENOTEMPTY : 0;
}

/* MS-FSA 2.1.5.15.3: mark (or unmark) the file for deletion. */
static uint32_t set_disposition(struct smb2_open *o, bool del, bool on_close)
{
	struct vfs_attr a;
	int err;

	if (!(o->access & DELETE))
		return STATUS_ACCESS_DENIED;
	if (del) {
		if (vfs_obj_is_root(o->obj))
			return STATUS_CANNOT_DELETE; /* the share root */
		err = vfs_getattr(o->obj, &a);
		if (err)
			return smb2_status(SMB2_SET_INFO, err);
		if ((o->stream || a.type != VFS_DIR) && !(a.mode & 0222))
			return STATUS_CANNOT_DELETE;
		if (a.type == VFS_DIR && !o->stream) {
			err = dir_empty(o->obj);
			if (err)
				return smb2_status(SMB2_SET_INFO, err);
		}
	}
	if (on_close) {
		pthread_mutex_lock(&o->mu);
		o->delete_on_close = del;
		pthread_mutex_unlock(&o->mu);
	} else {
		state_delete_pending_set(o->sf, del);
	}
	return STATUS_SUCCESS;
}

/*
 * Where a rename or link goes: the target path's directory and leaf
 * (MS-SMB2 §3.3.5.21.1: relative to the share root).
 */
/* The FileRenameInformation or FileLinkInformation in @in, its name in
 * the request's arena. */
static uint32_t link_info_decode(struct smb2_work *w, struct smb2_buf *in,
				 bool rename, struct fscc_set_link *l)
{
	enum fscc_status fs;
	char *name;
	uint32_t st;

	name = req_alloc_raw(w->req, SMB2_RENAME_NAME_MAX);
	if (!name)
		return STATUS_INSUFFICIENT_RESOURCES;
	fs = rename ? fscc_dec_FILE_RENAME_INFORMATION_TYPE_2(
			      in, name, SMB2_RENAME_NAME_MAX, l)
		    : fscc_dec_FILE_LINK_INFORMATION_TYPE_2(
			      in, name, SMB2_RENAME_NAME_MAX, l);
	if (fs == FSCC_OK)
		return STATUS_SUCCESS;
	st = fscc_ntstatus(fs);
	return st != STATUS_SUCCESS ? st : STATUS_INVALID_PARAMETER;
}

static uint32_t target_of(struct smb2_work *w, struct smb2_buf *in,
			  bool rename, char **path, struct vfs_obj **dir,
			  const char **leaf, size_t *leaflen, bool *replace)
{
	struct fscc_set_link l;
	uint32_t st;
	int err;

	*path = NULL;
	*dir = NULL;
	*leaf = NULL;
	*leaflen = 0;
	*replace = false;
	st = link_info_decode(w, in, rename, &l);
	if (st != STATUS_SUCCESS)
		return st;
	/* A file's data is no named stream (":name" renames a stream, from
	 * an open of it). */
	if (l.name_len && l.name[0] == ':')
		return STATUS_INVALID_PARAMETER;
	st = smb2_path_from_utf8(w->req, l.name, l.name_len, path);
	if (st != STATUS_SUCCESS)
		return st;
	if (!**path)
		return STATUS_OBJECT_NAME_INVALID;
	err = smb2_path_walk(w->tree, *path, false, dir, leaf, leaflen);
	if (err)
		return err == -ENOTDIR ? STATUS_OBJECT_PATH_NOT_FOUND
				       : smb2_status(SMB2_SET_INFO, err);
	if (!*leaf) { /* the share root */
		vfs_obj_put(*dir);
		*dir = NULL;
		return STATUS_OBJECT_NAME_INVALID;
	}
	*replace = l.replace_if_exists;
	return STATUS_SUCCESS;
}

/*
 * An existing target of a rename or link: refused unless the client asked
 * to replace it, and never a directory or a file open without
 * FILE_SHARE_DELETE (MS-FSA 2.1.5.15.11).
 */
/*
 * May @self take the name @leaf in @dir? The name in use there (matched
 * as the share matches names) goes to @real / *@reallen, length 0 if
 * none.
 */
static uint32_t target_check(const struct smb2_tree *tree, struct vfs_obj *dir,
			     const char *leaf, size_t len,
			     struct vfs_obj *self, bool replace, char *real,
			     size_t *reallen)
{
	struct vfs_obj *t;
	uint32_t st = STATUS_SUCCESS;
	int err;

	*reallen = 0;
	err = smb2_path_lookup(tree, dir, leaf, len, false, &t, real, reallen);
	if (err == -ENOENT)
		return STATUS_SUCCESS;
	if (err)
		return smb2_status(SMB2_SET_INFO, err);
	if (t == self)
		st = STATUS_SUCCESS; /* a change of case, or the same name */
	else if (!replace)
		st = STATUS_OBJECT_NAME_COLLISION;
	else if (vfs_obj_type(t) == VFS_DIR || state_may_delete(t))
		st = STATUS_ACCESS_DENIED;
	vfs_obj_put(t);
	return st;
}

/*
 * A named stream renamed from an open of it (MS-FSA 2.1.5.15.12.1): the
 * new name is ":NAME[:$DATA]" of the same file; an existing stream is
 * replaced only when ReplaceIfExists and it is empty (Windows: else
 * INVALID_PARAMETER; without ReplaceIfExists, a collision). The open's
 * share moves to the new name's state entry. An open that holds locks or
 * an oplock on the stream, or a stream other opens hold too, keeps its
 * name (ACCESS_DENIED): their state is the old name's.
 */
static uint32_t set_stream_rename(struct smb2_work *w, struct smb2_open *o,
				  struct smb2_buf *in)
{
	struct state_holder h = { .id = o, .tag = STATE_HOLDER_SMB };
	char txname[SMB2_STREAM_XNAME_SIZE], *copy, *old;
	struct state_file *nsf, *osf;
	struct fscc_set_link l;
	const char *sname;
	uint32_t access, deny, st;
	ssize_t size;
	size_t slen;
	bool busy;
	int err;

	st = link_info_decode(w, in, true, &l);
	if (st != STATUS_SUCCESS)
		return st;
	/* a stream becomes another stream of its file, nothing else */
	if (!l.name_len || l.name[0] != ':')
		return STATUS_INVALID_PARAMETER;
	st = smb2_stream_parse(l.name + 1, l.name_len - 1, &sname, &slen);
	if (st != STATUS_SUCCESS)
		return st;
	if (!slen)
		return STATUS_INVALID_PARAMETER; /* onto the file's data */
	err = smb2_stream_find(o->obj, sname, slen, txname);
	if (!err && !strcmp(txname, o->stream))
		return STATUS_SUCCESS;
	if (!err) {
		if (!l.replace_if_exists)
			return STATUS_OBJECT_NAME_COLLISION;
		/* an open target first (smbtorture streams.rename2) */
		nsf = state_file_get_stream(o->obj, txname);
		if (!nsf)
			return STATUS_INSUFFICIENT_RESOURCES;
		busy = state_share_count(nsf) > 0;
		state_file_put(nsf);
		if (busy)
			return STATUS_SHARING_VIOLATION;
		size = smb2_stream_size(o->obj, txname);
		if (size != 0)
			return size < 0 ? smb2_status(SMB2_SET_INFO, (int)size)
					: STATUS_INVALID_PARAMETER;
	} else if (err != -ENOENT) {
		return smb2_status(SMB2_SET_INFO, err);
	}
	if (smb2_oplock_held(o) || state_lock_count(o->sf, &h) ||
	    state_share_count(o->sf) > 1 ||
	    o->nsf_old == SMB2_STREAM_RENAMES_MAX)
		return STATUS_ACCESS_DENIED;
	nsf = state_file_get_stream(o->obj, txname);
	copy = strdup(txname);
	if (!nsf || !copy) {
		if (nsf)
			state_file_put(nsf);
		free(copy);
		return STATUS_INSUFFICIENT_RESOURCES;
	}
	access = smb2_access_share_bits(o->access);
	deny = access ? smb2_access_deny_bits(o->share_access) : 0;
	err = state_share_acquire(nsf, &h, access, deny);
	if (!err)
		err = smb2_stream_rename(o->obj, o->stream, txname);
	if (err) {
		state_share_release(nsf, &h);
		state_file_put(nsf);
		free(copy);
		return err == -EBUSY || err == -EINPROGRESS
			       ? STATUS_SHARING_VIOLATION
			       : smb2_status(SMB2_SET_INFO, err);
	}
	state_share_release(o->sf, &h);
	/* The old entry stays referenced until the open goes: a request of
	 * this open on another thread may hold its pointer now. */
	pthread_mutex_lock(&o->mu);
	osf = o->sf;
	o->sf = nsf;
	o->sf_old[o->nsf_old++] = osf;
	old = o->stream;
	o->stream = copy;
	o->stream_old[o->nsf_old - 1] = old;
	pthread_mutex_unlock(&o->mu);
	return STATUS_SUCCESS;
}

static uint32_t set_rename(struct smb2_work *w, struct smb2_open *o,
			   struct smb2_buf *in)
{
	char sreal[VFS_NAME_MAX * 3], treal[VFS_NAME_MAX * 3];
	struct vfs_obj *sdir = NULL, *tdir = NULL, *cur = NULL;
	const char *sleaf, *tleaf;
	size_t slen, tlen, sreallen = 0, treallen;
	char *tpath, *spath, *copy, *old;
	bool replace;
	uint32_t st;
	int err;

	if (!(o->access & DELETE))
		return STATUS_ACCESS_DENIED;
	if (o->stream)
		return set_stream_rename(w, o, in);
	st = target_of(w, in, true, &tpath, &tdir, &tleaf, &tlen, &replace);
	if (st != STATUS_SUCCESS)
		return st;
	spath = smb2_open_path(o, w->req);
	err = spath ? smb2_path_walk(w->tree, spath, false, &sdir, &sleaf,
				     &slen)
		    : -ENOMEM;
	if (err || !sleaf) {
		st = err ? smb2_status(SMB2_SET_INFO, err)
			 : STATUS_ACCESS_DENIED; /* the share root */
		goto out_put;
	}
	/* An open of the source's directory with DELETE access holds its
	 * names in place, as on Windows and Samba (smbtorture
	 * rename.share_delete_and_delete_access and
	 * no_share_delete_but_delete_access). */
	if (state_share_grants_obj(sdir, STATE_ACCESS_DELETE)) {
		st = STATUS_SHARING_VIOLATION;
		goto out_put;
	}
	/* The source by its name on disk (the open's path is as the client
	 * spelt it), and still this open's file. */
	err = smb2_path_lookup(w->tree, sdir, sleaf, slen, false, &cur, sreal,
			       &sreallen);
	if (!err && cur != o->obj)
		err = -ENOENT;
	if (cur)
		vfs_obj_put(cur);
	if (err) {
		st = smb2_status(SMB2_SET_INFO, err);
		goto out_put;
	}
	st = target_check(w->tree, tdir, tleaf, tlen, o->obj, replace, treal,
			  &treallen);
	if (st != STATUS_SUCCESS)
		goto out_put;
	/* A directory with anything open below it, by any SMB client, keeps
	 * its name (Windows and Samba: smbtorture
	 * rename.rename_dir_openfile). NFS renames do not ask: NFS has no
	 * such rule. The check and the rename are not atomic against a
	 * CREATE below racing with it, as nothing orders the two. */
	if (o->is_dir && smb2_open_any_below(o->obj)) {
		st = STATUS_ACCESS_DENIED;
		goto out_put;
	}
	/* Handle caching of the file's other opens breaks first. */
	st = smb2_open_break(w, o, STATE_OP_NAMESPACE);
	if (st != STATUS_SUCCESS)
		goto out_put;
	copy = strdup(tpath);
	if (!copy) {
		st = STATUS_INSUFFICIENT_RESOURCES;
		goto out_put;
	}
	/* Replacing a file whose name differs from the new one in case
	 * only: onto its name (atomic), then to the new spelling. */
	err = 0;
	if (treallen && (treallen != tlen || memcmp(treal, tleaf, tlen) != 0) &&
	    !(sdir == tdir && sreallen == treallen &&
	      memcmp(sreal, treal, treallen) == 0)) {
		err = vfs_rename(sdir, sreal, sreallen, tdir, treal, treallen);
		if (!err) {
			memcpy(sreal, treal, treallen);
			sreallen = treallen;
			vfs_obj_put(sdir);
			vfs_obj_get(tdir);
			sdir = tdir;
		}
	}
	if (!err)
		err = vfs_rename(sdir, sreal, sreallen, tdir, tleaf, tlen);
	if (err) {
		free(copy);
		st = err == -ENOTEMPTY || err == -EEXIST
			     ? STATUS_ACCESS_DENIED
			     : smb2_status(SMB2_SET_INFO, err);
		goto out_put;
	}
	pthread_mutex_lock(&o->mu);
	old = o->path;
	o->path = copy;
	pthread_mutex_unlock(&o->mu);
	free(old);
	st = STATUS_SUCCESS;
out_put:
	if (sdir)
		vfs_obj_put(sdir);
	vfs_obj_put(tdir);
	return st;
}

static uint32_t set_link(struct smb2_work *w, struct smb2_open *o,
			 struct smb2_buf *in)
{
	char treal[VFS_NAME_MAX * 3];
	struct vfs_obj *tdir;
	const char *tleaf;
	size_t tlen, treallen;
	char *tpath;
	bool replace;
	uint32_t st;
	int err;

	if (o->is_dir)
		return STATUS_FILE_IS_A_DIRECTORY;
	if (o->stream)
		return STATUS_INVALID_PARAMETER; /* a stream has no links */
	st = target_of(w, in, false, &tpath, &tdir, &tleaf, &tlen, &replace);
	if (st != STATUS_SUCCESS)
		return st;
	st = target_check(w->tree, tdir, tleaf, tlen, o->obj, replace, treal,
			  &treallen);
	if (st == STATUS_SUCCESS) {
		err = treallen && replace ? -EEXIST
					  : vfs_link(o->obj, tdir, tleaf, tlen);
		if (err == -EEXIST && replace) {
			err = treallen ? vfs_remove(tdir, treal, treallen)
				       : vfs_remove(tdir, tleaf, tlen);
			if (!err)
				err = vfs_link(o->obj, tdir, tleaf, tlen);
		}
		if (err)
			st = smb2_status(SMB2_SET_INFO, err);
	}
	vfs_obj_put(tdir);
	return st;
}

static uint32_t set_size(struct smb2_work *w, struct smb2_open *o,
			 uint64_t size, bool alloc)
{
	struct vfs_sattr sa = { .set_size = true, .size = size };
	struct vfs_attr a;
	uint32_t st;
	int err;

	if (!(o->access & FILE_WRITE_DATA))
		return STATUS_ACCESS_DENIED;
	if (o->is_dir)
		return STATUS_INVALID_PARAMETER;
	/* Level II oplocks break on either (smbtorture oplock.batch12). */
	st = smb2_open_break(w, o, STATE_OP_WRITE);
	if (st != STATUS_SUCCESS)
		return st;
	if (alloc) {
		/* MS-FSA 2.1.5.15.1: an allocation below the end of file
		 * truncates it; above, nothing is preallocated here. */
		if (o->stream) {
			ssize_t n = smb2_stream_size(o->obj, o->stream);

			if (n < 0)
				return smb2_status(SMB2_SET_INFO, (int)n);
			a.size = (uint64_t)n;
		} else {
			err = vfs_getattr(o->obj, &a);
			if (err)
				return smb2_status(SMB2_SET_INFO, err);
		}
		if (size >= a.size)
			return STATUS_SUCCESS;
	}
	if (o->stream)
		err = smb2_stream_set_size(o->obj, o->stream, size);
	else
		err = vfs_setattr(o->obj, &sa);
	return err ? smb2_status(SMB2_SET_INFO, err) : STATUS_SUCCESS;
}

static uint32_t set_file(struct smb2_work *w, struct smb2_open *o,
			 uint8_t cls, struct smb2_buf *in)
{
	enum fscc_status fs;
	uint64_t v64;
	uint32_t v32;
	bool b;

	switch (cls) {
	case FileBasicInformation:
		return set_basic(o, in);
	case FileRenameInformation:
		return set_rename(w, o, in);
	case FileLinkInformation:
		return set_link(w, o, in);
	case FileDispositionInformation:
		fs = fscc_dec_FILE_DISPOSITION_INFORMATION(in, &b);
		return fs != FSCC_OK ? fscc_ntstatus(fs)
				     : set_disposition(o, b, false);
	case FileDispositionInformationEx:
		fs = fscc_dec_FILE_DISPOSITION_INFORMATION_EX(in, &v32);
		return fs != FSCC_OK
			       ? fscc_ntstatus(fs)
			       : set_disposition(o,
						 v32 & FILE_DISPOSITION_DELETE,
						 v32 & FILE_DISPOSITION_ON_CLOSE);
	case FilePositionInformation:
		fs = fscc_dec_FILE_POSITION_INFORMATION(in, &v64);
		if (fs != FSCC_OK)
			return fscc_ntstatus(fs);
		pthread_mutex_lock(&o->mu);
		o->position = v64;
		pthread_mutex_unlock(&o->mu);
		return STATUS_SUCCESS;
	case FileModeInformation:
		fs = fscc_dec_FILE_MODE_INFORMATION(in, &v32);
		if (fs != FSCC_OK)
			return fscc_ntstatus(fs);
		pthread_mutex_lock(&o->mu);
		o->mode_flags = v32 & FILE_WRITE_THROUGH;
		pthread_mutex_unlock(&o->mu);
		return STATUS_SUCCESS;
	case FileAllocationInformation:
		fs = fscc_dec_FILE_ALLOCATION_INFORMATION(in, &v64);
		return fs != FSCC_OK ? fscc_ntstatus(fs)
				     : set_size(w, o, v64, true);
	case FileEndOfFileInformation:
		fs = fscc_dec_FILE_END_OF_FILE_INFORMATION(in, &v64);
		return fs != FSCC_OK ? fscc_ntstatus(fs)
				     : set_size(w, o, v64, false);
	case FileFullEaInformation:
		return o->access & FILE_WRITE_EA ? smb2_ea_apply(o->obj, in)
						 : STATUS_ACCESS_DENIED;
	default:
		return STATUS_INVALID_INFO_CLASS;
	}
}

/* MS-SMB2 §3.3.5.21.3: owner, group and the mode a DACL says. */
static uint32_t set_security(struct smb2_open *o, uint32_t secinfo,
			     struct smb2_buf *in)
{
	if ((secinfo & (OWNER_SECURITY_INFORMATION |
			GROUP_SECURITY_INFORMATION)) &&
	    !(o->access & WRITE_OWNER))
		return STATUS_ACCESS_DENIED;
	if ((secinfo & DACL_SECURITY_INFORMATION) &&
	    !(o->access & WRITE_DAC))
		return STATUS_ACCESS_DENIED;
	if ((secinfo & SACL_SECURITY_INFORMATION) &&
	    !(o->access & ACCESS_SYSTEM_SECURITY))
		return STATUS_ACCESS_DENIED;
	return smb2_sd_apply(o->obj, secinfo, in);
}

uint32_t smb2_sd_apply(struct vfs_obj *obj, uint32_t secinfo,
		       struct smb2_buf *in)
{
	struct sd_parsed sd;
	struct vfs_sattr sa = { 0 };
	struct vfs_attr a;
	enum fscc_status fs;
	bool foreign_owner, foreign_group;
	uint32_t mode, dacl_mode;
	int err;

	err = vfs_getattr(obj, &a);
	if (err)
		return smb2_status(SMB2_SET_INFO, err);
	dacl_mode = a.mode;
	fs = sd_dec_SECURITY_DESCRIPTOR(in, a.uid, a.gid, &sd);
	if (fs != FSCC_OK)
		return fscc_ntstatus(fs);
	/* An owner or group that is no Unix user or group can only be
	 * kept in the stored descriptor (below). */
	foreign_owner = (secinfo & OWNER_SECURITY_INFORMATION) &&
			sd.has_owner && !sd.owner_unix;
	foreign_group = (secinfo & GROUP_SECURITY_INFORMATION) &&
			sd.has_group && !sd.group_unix;
	if ((secinfo & OWNER_SECURITY_INFORMATION) && sd.has_owner &&
	    sd.owner_unix) {
		if (sd.uid != a.uid) {
			sa.set_uid = true;
			sa.uid = sd.uid;
		}
	}
	if ((secinfo & GROUP_SECURITY_INFORMATION) && sd.has_group &&
	    sd.group_unix) {
		if (sd.gid != a.gid) {
			sa.set_gid = true;
			sa.gid = sd.gid;
		}
	}
	/* The owner, group and Everyone classes of the DACL become the
	 * mode, so that NFS sees what SMB set. The owner's write bit stays
	 * as it was while the whole descriptor is kept (below): it is the
	 * file's READONLY attribute (fscc.h), which a DACL does not set on
	 * Windows, and the owner may chmod it back anyway; the kept DACL
	 * bounds what SMB grants. */
	if ((secinfo & DACL_SECURITY_INFORMATION) && sd.has_dacl) {
		dacl_mode = (a.mode & ~0777u) | (sd.mode & 0777u);
		mode = a.type == VFS_REG
			       ? (dacl_mode & ~0200u) | (a.mode & 0200u)
			       : dacl_mode;
		if (mode != a.mode) {
			sa.set_mode = true;
			sa.mode = mode;
		}
	}
	if (sa.set_uid || sa.set_gid || sa.set_mode) {
		err = vfs_setattr(obj, &sa);
		if (!err)
			err = vfs_getattr(obj, &a);
		if (err)
			return smb2_status(SMB2_SET_INFO, err);
	}
	/* The whole descriptor is kept too (smb2_acl.h), for the ACEs a
	 * mode cannot say; where it cannot be kept, the mode is all. */
	err = smb2_acl_set(obj, &a, secinfo, in);
	if (err && (foreign_owner || foreign_group))
		return foreign_owner ? STATUS_INVALID_OWNER
				     : STATUS_INVALID_PRIMARY_GROUP;
	if (err && err != -EPERM && err != -ENOTSUP)
		return smb2_status(SMB2_SET_INFO, err);
	if (err && dacl_mode != a.mode) {
		struct vfs_sattr sm = { .set_mode = true, .mode = dacl_mode };

		err = vfs_setattr(obj, &sm);
		if (err)
			return smb2_status(SMB2_SET_INFO, err);
	}
	return STATUS_SUCCESS;
}

uint32_t smb2_cmd_set_info(struct smb2_work *w, struct smb2_buf *body)
{
	struct smb2_open *o;
	struct smb2_buf in;
	uint16_t ssize, in_off;
	uint8_t type, cls;
	uint32_t in_len, secinfo, st;
	uint64_t p, v;

	if (!sb_get_u16(body, &ssize) || !sb_get_u8(body, &type) ||
	    !sb_get_u8(body, &cls) || !sb_get_u32(body, &in_len) ||
	    !sb_get_u16(body, &in_off) || !sb_skip(body, 2) ||
	    !sb_get_u32(body, &secinfo) || !sb_get_u64(body, &p) ||
	    !sb_get_u64(body, &v))
		return STATUS_INVALID_PARAMETER;
	if (in_len > SMB2_MAX_IO ||
	    (in_len && (in_off < SMB2_HDR_LEN + 32 ||
			(size_t)in_off + in_len > w->cmd_len ||
			!sb_range(&w->msg, w->off + in_off, in_len, &in))))
		return STATUS_INVALID_PARAMETER;
	if (!in_len)
		sb_init(&in, NULL, 0);
	st = smb2_open_lookup(w, p, v, &o);
	if (st != STATUS_SUCCESS)
		return st;
	if (!w->tree->acc.opts->rw) {
		st = STATUS_ACCESS_DENIED;
		goto out_put;
	}
	switch (type) {
	case SMB2_0_INFO_FILE:
		st = set_file(w, o, cls, &in);
		break;
	case SMB2_0_INFO_SECURITY:
		st = set_security(o, secinfo, &in);
		break;
	case SMB2_0_INFO_FILESYSTEM:
	case SMB2_0_INFO_QUOTA:
		st = STATUS_NOT_SUPPORTED;
		break;
	default:
		st = STATUS_INVALID_PARAMETER;
		break;
	}
	if (st == STATUS_SUCCESS && !sb_put_u16(&w->rsp, 2))
		st = STATUS_INSUFFICIENT_RESOURCES;
out_put:
	smb2_open_put(o);
	return st;
}
