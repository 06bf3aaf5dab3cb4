// SPDX-License-Identifier: MIT
/* Removing and renaming names (RFC 8881 §18.25 REMOVE, §18.26 RENAME). */

#include "nfs4/nfs4_int.h"
#include "nfs4/ops.h"
#include "state/file_state.h"

/*
 * nfs4_op_remove() - RFC 8881 §18.25: a file or an empty directory
 * (unlink first; a directory answers EISDIR and is rmdir'ed). FILE_OPEN
 * while an open (of another protocol: an SMB open without
 * FILE_SHARE_DELETE) denies deleting it; DELAY while another client's
 * delegation of it is recalled.
 */
static uint32_t nfs4_op_remove(struct nfs4_compound *c, void *args,
			       void *res)
{
	const struct REMOVE4args *a = args;
	struct REMOVE4resok *r = res;
	const char *name = (const char *)a->target.data;
	struct vfs_obj *dir;
	uint32_t st;
	int err;

	st = nfs4_cur_dir(c, true, &dir);
	if (st != NFS4_OK)
		return st;
	err = nfs4_name_check(&a->target);
	if (err)
		return nfs4_status(OP_REMOVE, err);
	err = state_may_unlink_name(dir, name, a->target.len,
				    nfs4_grant_key(c));
	if (err)
		return nfs4_status(OP_REMOVE, err);
	r->cinfo.before = nfs4_dir_change(dir);
	err = vfs_remove(dir, name, a->target.len);
	if (err == -EISDIR || err == -EPERM) {
		int derr = vfs_rmdir(dir, name, a->target.len);

		/* not a directory after all: the unlink error stands */
		if (derr != -ENOTDIR)
			err = derr;
	}
	if (err)
		return nfs4_status(OP_REMOVE, err);
	r->cinfo.after = nfs4_dir_change(dir);
	return NFS4_OK;
}

/*
 * nfs4_op_rename() - RFC 8881 §18.26: from the saved directory to the
 * current one, both in one export (XDEV otherwise). FILE_OPEN while an
 * open denies deleting the file renamed or the one renamed over; DELAY
 * while another client's delegation of either is recalled.
 */
static uint32_t nfs4_op_rename(struct nfs4_compound *c, void *args,
			       void *res)
{
	const struct RENAME4args *a = args;
	struct RENAME4resok *r = res;
	struct vfs_obj *tdir, *sdir;
	struct vfs_attr va;
	uint32_t st;
	int err;

	if (!c->saved.set)
		return NFS4ERR_NOFILEHANDLE;
	st = nfs4_cur_dir(c, true, &tdir);
	if (st != NFS4_OK)
		return st;
	if (c->saved.pseudo || c->saved.export != c->cur.export)
		return NFS4ERR_XDEV;
	sdir = c->saved.obj;
	if (vfs_getattr(sdir, &va))
		return NFS4ERR_STALE;
	if (va.type != VFS_DIR)
		return NFS4ERR_NOTDIR;
	err = nfs4_name_check(&a->oldname);
	if (!err)
		err = nfs4_name_check(&a->newname);
	if (!err)
		err = state_may_unlink_name(sdir, (const char *)a->oldname.data,
					    a->oldname.len,
					    nfs4_grant_key(c));
	if (!err)
		err = state_may_unlink_name(tdir, (const char *)a->newname.data,
					    a->newname.len,
					    nfs4_grant_key(c));
	if (err)
		return nfs4_status(OP_RENAME, err);
	r->source_cinfo.before = va.change;
	r->target_cinfo.before = nfs4_dir_change(tdir);
	err = vfs_rename(sdir, (const char *)a->oldname.data, a->oldname.len,
			 tdir, (const char *)a->newname.data, a->newname.len);
	if (err)
		return nfs4_status(OP_RENAME, err);
	r->source_cinfo.after = nfs4_dir_change(sdir);
	r->target_cinfo.after = nfs4_dir_change(tdir);
	return NFS4_OK;
}

const struct nfs4_op nfs4_op_desc_remove = {
	.name = "REMOVE",
	.minor_min = 0,
	.minor_max = 255,
	.flags = NFS4_OP_NEEDS_FH | NFS4_OP_MODIFIES,
	.args_size = sizeof(struct REMOVE4args),
	.res_size = sizeof(struct REMOVE4resok),
	.decode = nfs4_dec_REMOVE4args,
	.handle = nfs4_op_remove,
	.encode = nfs4_enc_REMOVE4resok,
};

const struct nfs4_op nfs4_op_desc_rename = {
	.name = "RENAME",
	.minor_min = 0,
	.minor_max = 255,
	.flags = NFS4_OP_NEEDS_FH | NFS4_OP_MODIFIES,
	.args_size = sizeof(struct RENAME4args),
	.res_size = sizeof(struct RENAME4resok),
	.decode = nfs4_dec_RENAME4args,
	.handle = nfs4_op_rename,
	.encode = nfs4_enc_RENAME4resok,
};
