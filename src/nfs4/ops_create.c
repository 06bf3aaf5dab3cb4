// SPDX-License-Identifier: MIT
/*
 * Creating names (RFC 8881 §18.4 CREATE, §18.9 LINK) and reading
 * symlinks (§18.24 READLINK). Regular files are created by OPEN.
 */

#include "nfs4/nfs4_int.h"
#include "nfs4/ops.h"
#include "state/file_state.h"

/* Device nodes only for a caller that is root after squashing: the
 * server process has CAP_MKNOD whatever the thread's fsuid is. */
static int create_node(struct nfs4_compound *c, struct vfs_obj *dir,
		       const struct CREATE4args *a, const struct vfs_sattr *sa,
		       struct vfs_obj **out)
{
	const char *name = (const char *)a->objname.data;
	uint32_t len = a->objname.len;

	switch (a->objtype.type) {
	case NF4DIR:
		return vfs_mkdir(dir, name, len, sa, out);
	case NF4LNK:
		if (!a->objtype.linkdata.len)
			return -EINVAL;
		return vfs_symlink(dir, name, len,
				   (const char *)a->objtype.linkdata.data,
				   a->objtype.linkdata.len, sa, out);
	case NF4BLK:
	case NF4CHR:
		if (c->cred.uid != 0)
			return -EPERM;
		return vfs_mknod(dir, name, len,
				 a->objtype.type == NF4BLK ? VFS_BLK : VFS_CHR,
				 a->objtype.specdata1, a->objtype.specdata2, sa,
				 out);
	case NF4SOCK:
		return vfs_mknod(dir, name, len, VFS_SOCK, 0, 0, sa, out);
	case NF4FIFO:
		return vfs_mknod(dir, name, len, VFS_FIFO, 0, 0, sa, out);
	default:
		/* NF4REG is OPEN's; named attributes are not supported */
		return -EBADTYPE;
	}
}

/*
 * nfs4_op_create() - RFC 8881 §18.4: a non-regular object in the current
 * directory, which then becomes the current fh; change_info4 from the
 * directory's change attribute around the call (not atomic).
 */
static uint32_t nfs4_op_create(struct nfs4_compound *c, void *args,
			       void *res)
{
	const struct CREATE4args *a = args;
	struct CREATE4resok *r = res;
	struct vfs_obj *dir, *o;
	struct vfs_sattr sa;
	struct bitmap4 set;
	uint32_t st;
	int err;

	st = nfs4_cur_dir(c, true, &dir);
	if (st != NFS4_OK)
		return st;
	err = nfs4_name_check(&a->objname);
	if (err)
		return nfs4_status(OP_CREATE, err);
	st = nfs4_fattr4_to_sattr(&a->createattrs, &sa, &set);
	if (st != NFS4_OK)
		return st;
	/* a size means nothing for these types: not applied, not reported */
	if (sa.set_size) {
		sa.set_size = false;
		set.map[FATTR4_SIZE / 32] &= ~(1u << (FATTR4_SIZE % 32));
	}
	r->cinfo.before = nfs4_dir_change(dir);
	err = create_node(c, dir, a, &sa, &o);
	if (err)
		return nfs4_status(OP_CREATE, err);
	r->cinfo.after = nfs4_dir_change(dir);
	r->cinfo.atomic = false;
	r->attrset = set;
	nfs4_fh_set_obj(&c->cur, c->cur.export, c->cur.opts, o);
	return NFS4_OK;
}

/*
 * nfs4_op_link() - RFC 8881 §18.9: the saved fh gets a new name in the
 * current directory (same export, else XDEV).
 */
static uint32_t nfs4_op_link(struct nfs4_compound *c, void *args, void *res)
{
	const struct LINK4args *a = args;
	struct LINK4resok *r = res;
	struct vfs_attr va;
	struct vfs_obj *dir;
	uint32_t st;
	int err;

	if (!c->saved.set)
		return NFS4ERR_NOFILEHANDLE;
	st = nfs4_cur_dir(c, true, &dir);
	if (st != NFS4_OK)
		return st;
	if (c->saved.pseudo)
		return NFS4ERR_ISDIR;
	if (c->saved.export != c->cur.export)
		return NFS4ERR_XDEV;
	err = nfs4_name_check(&a->newname);
	if (!err)
		err = vfs_getattr(c->saved.obj, &va);
	if (!err && va.type == VFS_DIR)
		err = -EISDIR;
	/* another client's delegation of the file is recalled first */
	if (!err)
		err = state_grant_break_key(c->saved.obj, STATE_OP_NAMESPACE,
					    nfs4_grant_key(c));
	if (err)
		return nfs4_status(OP_LINK, err);
	r->cinfo.before = nfs4_dir_change(dir);
	err = vfs_link(c->saved.obj, dir, (const char *)a->newname.data,
		       a->newname.len);
	if (err)
		return nfs4_status(OP_LINK, err);
	r->cinfo.after = nfs4_dir_change(dir);
	return NFS4_OK;
}

/* nfs4_op_readlink() - RFC 8881 §18.24: the target of a symlink. */
static uint32_t nfs4_op_readlink(struct nfs4_compound *c, void *args,
				 void *res)
{
	struct READLINK4resok *r = res;
	struct vfs_attr va;
	char *buf;
	ssize_t n;

	if (c->cur.pseudo)
		return NFS4ERR_INVAL;
	if (vfs_getattr(c->cur.obj, &va))
		return NFS4ERR_STALE;
	if (va.type != VFS_LNK)
		return NFS4ERR_INVAL;
	buf = rpc_call_alloc(c->call, VFS_PATH_MAX);
	if (!buf)
		return NFS4ERR_DELAY;
	n = vfs_readlink(c->cur.obj, buf, VFS_PATH_MAX);
	if (n < 0)
		return nfs4_status(OP_READLINK, (int)n);
	r->link = buf;
	r->len = (uint32_t)n;
	return NFS4_OK;
}

const struct nfs4_op nfs4_op_desc_create = {
	.name = "CREATE",
	.minor_min = 0,
	.minor_max = 255,
	.flags = NFS4_OP_NEEDS_FH | NFS4_OP_MODIFIES,
	.args_size = sizeof(struct CREATE4args),
	.res_size = sizeof(struct CREATE4resok),
	.decode = nfs4_dec_CREATE4args,
	.handle = nfs4_op_create,
	.encode = nfs4_enc_CREATE4resok,
};

const struct nfs4_op nfs4_op_desc_link = {
	.name = "LINK",
	.minor_min = 0,
	.minor_max = 255,
	.flags = NFS4_OP_NEEDS_FH | NFS4_OP_MODIFIES,
	.args_size = sizeof(struct LINK4args),
	.res_size = sizeof(struct LINK4resok),
	.decode = nfs4_dec_LINK4args,
	.handle = nfs4_op_link,
	.encode = nfs4_enc_LINK4resok,
};

const struct nfs4_op nfs4_op_desc_readlink = {
	.name = "READLINK",
	.minor_min = 0,
	.minor_max = 255,
	.flags = NFS4_OP_NEEDS_FH,
	.res_size = sizeof(struct READLINK4resok),
	.handle = nfs4_op_readlink,
	.encode = nfs4_enc_READLINK4resok,
};
