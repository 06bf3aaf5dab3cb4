// SPDX-License-Identifier: MIT
/*
 * NFSv3 CREATE, MKDIR, SYMLINK, MKNOD (RFC 1813 §3.3.8-§3.3.11): one shape
 * (a new entry in a directory, answered with post_op_fh3, its attributes
 * and the directory's wcc_data), so one frame and one "make" step each.
 */

#include <string.h>

#include "nfs3/nfs3_internal.h"

/* What differs between the four procedures: how the entry is made. */
struct make_op {
	uint32_t proc;
	const struct diropargs3 *where;
	int (*make)(struct nfs3_ctx *ctx, struct vfs_obj *dir, const void *args,
		    struct vfs_obj **out);
	const void *args;
};

static void dirent_make(struct rpc_call *call, const struct make_op *op,
			struct CREATE3res *r)
{
	struct nfs3_ctx ctx = {0};
	struct vfs_obj *dir, *o = NULL;
	int err;

	r->status = nfs3_resolve(call, op->proc, &ctx, &op->where->dir, &dir);
	if (r->status)
		goto out_ctx;
	nfs3_pre_op_attr(dir, &r->dir_wcc.before);
	err = nfs3_ctx_ro(&ctx) ? -EROFS : nfs3_name_check(&op->where->name);
	if (!err)
		err = op->make(&ctx, dir, op->args, &o);
	if (!err) {
		nfs3_post_op_fh3(o, &r->obj);
		nfs3_post_op_attr(o, &r->obj_attributes);
		vfs_obj_put(o);
	}
	r->status = nfs3_status(op->proc, err);
	nfs3_post_op_attr(dir, &r->dir_wcc.after);
	vfs_obj_put(dir);
out_ctx:
	nfs3_ctx_release(&ctx);
}

static int make_file(struct nfs3_ctx *ctx, struct vfs_obj *dir,
		     const void *args, struct vfs_obj **out)
{
	static const enum vfs_createmode how[] = {
		[UNCHECKED] = VFS_CREATE_UNCHECKED,
		[GUARDED] = VFS_CREATE_GUARDED,
		[EXCLUSIVE] = VFS_CREATE_EXCLUSIVE,
	};
	const struct CREATE3args *a = args;
	struct vfs_sattr sa;

	(void)ctx;
	/* EXCLUSIVE carries no sattr3: the decoder left it zeroed. */
	nfs3_sattr3_to_vfs(&a->obj_attributes, &sa);
	return vfs_create(dir, a->where.name.s, a->where.name.len, how[a->mode],
			  &sa, a->verf, out);
}

/**
 * nfs3_proc_create() - RFC 1813 §3.3.8: a regular file, UNCHECKED,
 * GUARDED or EXCLUSIVE (verifier kept by the backend; the client follows
 * up with SETATTR).
 */
void nfs3_proc_create(struct rpc_call *call, const void *args, void *res)
{
	const struct CREATE3args *a = args;
	const struct make_op op = {
		.proc = NFSPROC3_CREATE,
		.where = &a->where,
		.make = make_file,
		.args = args,
	};

	dirent_make(call, &op, res);
}

static int make_dir(struct nfs3_ctx *ctx, struct vfs_obj *dir, const void *args,
		    struct vfs_obj **out)
{
	const struct MKDIR3args *a = args;
	struct vfs_sattr sa;

	(void)ctx;
	nfs3_sattr3_to_vfs(&a->attributes, &sa);
	return vfs_mkdir(dir, a->where.name.s, a->where.name.len, &sa, out);
}

/** nfs3_proc_mkdir() - RFC 1813 §3.3.9: a directory. */
void nfs3_proc_mkdir(struct rpc_call *call, const void *args, void *res)
{
	const struct MKDIR3args *a = args;
	const struct make_op op = {
		.proc = NFSPROC3_MKDIR,
		.where = &a->where,
		.make = make_dir,
		.args = args,
	};

	dirent_make(call, &op, res);
}

static int make_symlink(struct nfs3_ctx *ctx, struct vfs_obj *dir,
			const void *args, struct vfs_obj **out)
{
	const struct SYMLINK3args *a = args;
	struct vfs_sattr sa;

	(void)ctx;
	/* The kernel takes a C string: no empty target, no NUL inside. */
	if (!a->symlink_data.len ||
	    memchr(a->symlink_data.s, 0, a->symlink_data.len))
		return -EINVAL;
	nfs3_sattr3_to_vfs(&a->symlink_attributes, &sa);
	/* A symlink's mode is meaningless on Linux; never try to set it. */
	sa.set_mode = false;
	return vfs_symlink(dir, a->where.name.s, a->where.name.len,
			   a->symlink_data.s, a->symlink_data.len, &sa, out);
}

/** nfs3_proc_symlink() - RFC 1813 §3.3.10: a symbolic link. */
void nfs3_proc_symlink(struct rpc_call *call, const void *args, void *res)
{
	const struct SYMLINK3args *a = args;
	const struct make_op op = {
		.proc = NFSPROC3_SYMLINK,
		.where = &a->where,
		.make = make_symlink,
		.args = args,
	};

	dirent_make(call, &op, res);
}

/* ftype3 → what MKNOD may make; 0 = NFS3ERR_BADTYPE. */
static const enum vfs_ftype mknod_type[] = {
	[NF3BLK] = VFS_BLK,
	[NF3CHR] = VFS_CHR,
	[NF3SOCK] = VFS_SOCK,
	[NF3FIFO] = VFS_FIFO,
};

static int make_node(struct nfs3_ctx *ctx, struct vfs_obj *dir,
		     const void *args, struct vfs_obj **out)
{
	const struct MKNOD3args *a = args;
	enum vfs_ftype type;
	struct vfs_sattr sa;

	/* The decoder has checked NF3REG <= type <= NF3FIFO. */
	type = mknod_type[a->type];
	if (!type)
		return -EBADTYPE;
	/* Device nodes only for root after squashing. */
	if ((type == VFS_CHR || type == VFS_BLK) && ctx->cred.uid != 0)
		return -EPERM;
	nfs3_sattr3_to_vfs(&a->attributes, &sa);
	return vfs_mknod(dir, a->where.name.s, a->where.name.len, type,
			 a->spec.specdata1, a->spec.specdata2, &sa, out);
}

/**
 * nfs3_proc_mknod() - RFC 1813 §3.3.11: a device (root only), socket or
 * FIFO; regular files, directories and symlinks are NFS3ERR_BADTYPE.
 */
void nfs3_proc_mknod(struct rpc_call *call, const void *args, void *res)
{
	const struct MKNOD3args *a = args;
	const struct make_op op = {
		.proc = NFSPROC3_MKNOD,
		.where = &a->where,
		.make = make_node,
		.args = args,
	};

	dirent_make(call, &op, res);
}
