// SPDX-License-Identifier: MIT
/*
 * NFSv3 READDIR and READDIRPLUS (RFC 1813 §3.3.16, §3.3.17). Entries are
 * gathered from the backend into the call arena while counting their
 * encoded size against the client's count (clamped to NFS3_DIR_MAX), then
 * (PLUS) each name is looked up for its attributes and handle.
 */

#include <string.h>

#include "nfs3/nfs3_internal.h"

/* READDIR3resok bytes besides entries: status, dir_attributes,
 * cookieverf, the list's final value_follows and eof. */
#define RD_FIXED (4 + NFS3_POST_OP_ATTR_SIZE + 8 + 4 + 4)
/* Largest attributes + handle part of one entryplus3. */
#define RD_PLUS_EXTRA (NFS3_POST_OP_ATTR_SIZE + NFS3_POST_OP_FH3_SIZE)

struct rd_fill {
	struct rpc_call *call;
	bool plus;
	size_t used;	/* bytes of entries so far (worst case for PLUS) */
	size_t limit;	/* bytes the entries may take */
	size_t dirused; /* entry3 part only (READDIRPLUS dircount) */
	size_t dirlimit;
	uint32_t n;
	struct entryplus3 *head;
	struct entryplus3 **tail;
	int err;
};

static bool rd_emit(void *arg, const struct vfs_dirent *de)
{
	struct rd_fill *f = arg;
	size_t base, size;
	struct entryplus3 *e;
	char *name;

	if (de->namelen > NFS3_NAME_MAX)
		return true; /* cannot be named over NFSv3: skip it */
	base = nfs3_entry3_size((uint32_t)de->namelen);
	size = base + (f->plus ? RD_PLUS_EXTRA : 0);
	if (f->used + size > f->limit)
		return false;
	/* dircount limits the names part, but never below one entry. */
	if (f->plus && f->n && f->dirused + base > f->dirlimit)
		return false;
	e = rpc_call_alloc(f->call, sizeof(*e));
	name = rpc_call_alloc(f->call, de->namelen ? de->namelen : 1);
	if (!e || !name) {
		f->err = -ENOMEM;
		return false;
	}
	memcpy(name, de->name, de->namelen);
	e->fileid = de->fileid;
	e->name.s = name;
	e->name.len = (uint32_t)de->namelen;
	e->cookie = de->cookie;
	*f->tail = e;
	f->tail = &e->nextentry;
	f->used += size;
	f->dirused += base;
	f->n++;
	return true;
}

/*
 * READDIRPLUS: attributes and handle of each entry. An entry that vanished
 * since it was listed is dropped, unless dropping would leave an empty,
 * non-final reply (the client could not make progress); other lookup
 * failures (a mount point, no permission) leave the entry without them.
 */
static void rd_plus(struct vfs_obj *dir, struct READDIR3res *r)
{
	struct entryplus3 **pp = &r->entries, *e;
	struct vfs_obj *o;
	int err;

	while ((e = *pp)) {
		err = vfs_lookup(dir, e->name.s, e->name.len, &o);
		if (err == -ENOENT &&
		    (pp != &r->entries || e->nextentry || r->eof)) {
			*pp = e->nextentry;
			continue;
		}
		if (!err) {
			nfs3_post_op_attr(o, &e->name_attributes);
			nfs3_post_op_fh3(o, &e->name_handle);
			vfs_obj_put(o);
		}
		pp = &e->nextentry;
	}
}

static void rd_common(struct rpc_call *call, uint32_t proc,
		      const struct nfs_fh3 *fh, uint64_t cookie,
		      uint64_t cookieverf, uint32_t count, uint32_t dircount,
		      struct READDIR3res *r)
{
	struct nfs3_ctx ctx = {0};
	struct rd_fill f = {0};
	struct vfs_attr va;
	struct vfs_obj *dir;
	uint64_t verf;
	int err;

	r->plus = proc == NFSPROC3_READDIRPLUS;
	r->status = nfs3_resolve(call, proc, &ctx, fh, &dir);
	if (r->status)
		goto out_ctx;
	err = vfs_getattr(dir, &va);
	if (!err && va.type != VFS_DIR)
		err = -ENOTDIR;
	if (err)
		goto out_status;
	verf = vfs_dir_verifier(dir);
	/* A zero verifier is a client that does not keep it: accept. */
	if (cookie && cookieverf && cookieverf != verf) {
		err = -EBADCOOKIE;
		goto out_status;
	}
	if (count > NFS3_DIR_MAX)
		count = NFS3_DIR_MAX;
	f.call = call;
	f.plus = r->plus;
	f.limit = count > RD_FIXED ? count - RD_FIXED : 0;
	f.dirlimit = dircount;
	f.tail = &r->entries;
	err = vfs_readdir(dir, cookie, rd_emit, &f, &r->eof);
	if (!err)
		err = f.err;
	if (!err && !f.n && !r->eof)
		err = -ETOOSMALL;
	if (err) {
		r->entries = NULL;
		goto out_status;
	}
	r->cookieverf = verf;
	if (r->plus)
		rd_plus(dir, r);
out_status:
	r->status = nfs3_status(proc, err);
	nfs3_post_op_attr(dir, &r->dir_attributes);
	vfs_obj_put(dir);
out_ctx:
	nfs3_ctx_release(&ctx);
}

/**
 * nfs3_proc_readdir() - RFC 1813 §3.3.16: names and fileids from @cookie
 * on, as many as fit in the client's count. Entry names live in the call
 * arena.
 */
void nfs3_proc_readdir(struct rpc_call *call, const void *args, void *res)
{
	const struct READDIR3args *a = args;

	rd_common(call, NFSPROC3_READDIR, &a->dir, a->cookie, a->cookieverf,
		  a->count, 0, res);
}

/**
 * nfs3_proc_readdirplus() - RFC 1813 §3.3.17: READDIR with each entry's
 * attributes and handle; maxcount bounds the reply, dircount the
 * entry3 part (at least one entry is always offered).
 */
void nfs3_proc_readdirplus(struct rpc_call *call, const void *args, void *res)
{
	const struct READDIRPLUS3args *a = args;

	rd_common(call, NFSPROC3_READDIRPLUS, &a->dir, a->cookie, a->cookieverf,
		  a->maxcount, a->dircount, res);
}
