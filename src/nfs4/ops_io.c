// SPDX-License-Identifier: MIT
/*
 * Data operations (RFC 8881 §18.22 READ, §18.32 WRITE, §18.3 COMMIT).
 * READ data is read into a malloc'd buffer; as the last operation of a
 * reply that no slot caches, it leaves as the reply's tail (no copy),
 * else it is copied into the reply. A large read of data the page cache
 * holds is not read at all: the tail is the file range (vfs_read_ref).
 */

#include <stdlib.h>

#include "core/stats.h"
#include "nfs4/nfs4_int.h"
#include "nfs4/ops.h"
#include "nfs4/state/state.h"

#define IO_ALIGN 4096

/*
 * The current fh as a regular file for @op: ISDIR for directories
 * (pseudo ones too), SYMLINK/WRONG_TYPE for others in 4.1+ and INVAL in
 * 4.0, which has neither for these operations.
 */
static uint32_t cur_file(struct nfs4_compound *c, uint32_t op,
			 struct vfs_attr *va)
{
	if (c->cur.pseudo)
		return NFS4ERR_ISDIR;
	if (vfs_getattr(c->cur.obj, va))
		return NFS4ERR_STALE;
	if (va->type == VFS_REG)
		return NFS4_OK;
	if (va->type == VFS_DIR)
		return NFS4ERR_ISDIR;
	if (c->minorversion == 0)
		return NFS4ERR_INVAL;
	return nfs4_status(op, va->type == VFS_LNK ? -ELOOP : -EBADTYPE);
}

static void verifier_of_boot(struct verifier4 *v)
{
	uint64_t b = vfs_write_verifier();
	int i;

	/* big-endian, as the 4.2 ops encode it (ops42_enc_writeverf) */
	for (i = 0; i < 8; i++)
		v->data[i] = (uint8_t)(b >> (56 - 8 * i));
}

/*
 * nfs4_op_read() - RFC 8881 §18.22: up to min(count, maxread, room left
 * in the reply) bytes at offset, checked against the stateid.
 */
static uint32_t nfs4_op_read(struct nfs4_compound *c, void *args, void *res)
{
	const struct READ4args *a = args;
	struct READ4resok *r = res;
	uint32_t count = a->count, st, room;
	struct vfs_attr va;
	bool eof = false;
	ssize_t n;

	st = cur_file(c, OP_READ, &va);
	if (st != NFS4_OK)
		return st;
	st = nfs4_state_check_io(c, &a->stateid, false, a->offset, count);
	if (st != NFS4_OK)
		return st;
	r->call = c->call;
	if (count > NFS4_IO_MAX)
		count = NFS4_IO_MAX;
	/* small reads are copied: cheap, and their reply stays cacheable */
	r->as_tail = c->opindex + 1 == c->numops && !c->cachethis &&
		     count > NFS4_READ_TAIL_MIN;
	if (!r->as_tail) {
		/* eof + length + padding must fit too */
		room = nfs4_compound_room(c);
		room = room > 12 ? (room - 12) & ~3u : 0;
		if (count > room)
			count = room;
	}
	if (count == 0 || a->offset >= va.size) {
		r->eof = a->offset >= va.size;
		return NFS4_OK;
	}
	if (r->as_tail) {
		/* Large and in the page cache: sent from there, not copied. */
		n = vfs_read_ref(c->cur.obj, a->offset, count, &r->fd, &eof);
		if (n >= 0) {
			vfs_obj_get(c->cur.obj);
			r->owned = c->cur.obj;
			r->owned_free = vfs_obj_release;
			r->in_file = true;
			r->off = a->offset;
			r->len = (uint32_t)n;
			r->eof = eof;
			stats_add_bytes_read(r->len);
			return NFS4_OK;
		}
		if (n != -EAGAIN)
			return nfs4_status(OP_READ, (int)n);
	}
	r->data = aligned_alloc(IO_ALIGN, (count + IO_ALIGN - 1) &
						  ~(uint32_t)(IO_ALIGN - 1));
	if (!r->data)
		return NFS4ERR_DELAY;
	r->owned = r->data;
	r->owned_free = free;
	n = vfs_read(c->cur.obj, a->offset, r->data, count, &eof);
	if (n < 0)
		return nfs4_status(OP_READ, (int)n);
	r->len = (uint32_t)n;
	r->eof = eof;
	/*
	 * A short read (near the end of the file) is copied after all: only
	 * more than NFS4_READ_TAIL_MIN bytes of data go as a tail, which is
	 * what makes a reply with a tail too big for a slot to keep unasked
	 * (compound.c offers the slot no bytes for it).
	 */
	if (r->as_tail && r->len <= NFS4_READ_TAIL_MIN) {
		r->as_tail = false;
		room = nfs4_compound_room(c);
		room = room > 12 ? (room - 12) & ~3u : 0;
		if (r->len > room) {
			r->len = room;
			r->eof = false;
		}
	}
	stats_add_bytes_read(r->len);
	return NFS4_OK;
}

/* What keeps the data: the call releases it once sent (tail), or now. */
static void nfs4_op_read_release(struct nfs4_compound *c, void *res)
{
	struct READ4resok *r = res;

	if (!r || !r->owned)
		return;
	if (r->as_tail && !r->call->tail_release) {
		r->call->tail_release = r->owned_free;
		r->call->tail_arg = r->owned;
	} else {
		r->owned_free(r->owned);
	}
	r->owned = NULL;
	r->data = NULL;
}

/*
 * nfs4_op_write() - RFC 8881 §18.32: write the borrowed data with the
 * asked stability and report exactly that, with the boot verifier.
 */
static uint32_t nfs4_op_write(struct nfs4_compound *c, void *args, void *res)
{
	const struct WRITE4args *a = args;
	struct WRITE4resok *r = res;
	struct vfs_attr va;
	uint32_t st;
	ssize_t n;

	st = cur_file(c, OP_WRITE, &va);
	if (st != NFS4_OK)
		return st;
	if (a->offset > UINT64_MAX - a->len)
		return NFS4ERR_FBIG;
	st = nfs4_state_check_io(c, &a->stateid, true, a->offset, a->len);
	if (st != NFS4_OK)
		return st;
	/* stable_how4 and vfs_stable share their numbering (0..2) */
	n = vfs_write(c->cur.obj, a->offset, a->data, a->len,
		      (enum vfs_stable)a->stable);
	if (n < 0)
		return nfs4_status(OP_WRITE, (int)n);
	r->count = (uint32_t)n;
	stats_add_bytes_written(r->count);
	r->committed = a->stable;
	verifier_of_boot(&r->writeverf);
	return NFS4_OK;
}

/* nfs4_op_commit() - RFC 8881 §18.3: flush, return the verifier. */
static uint32_t nfs4_op_commit(struct nfs4_compound *c, void *args,
			       void *res)
{
	const struct COMMIT4args *a = args;
	struct COMMIT4resok *r = res;
	struct vfs_attr va;
	uint32_t st;
	int err;

	st = cur_file(c, OP_COMMIT, &va);
	if (st != NFS4_OK)
		return st;
	if (a->offset > UINT64_MAX - a->count)
		return NFS4ERR_INVAL;
	err = vfs_commit(c->cur.obj, a->offset, a->count);
	if (err)
		return nfs4_status(OP_COMMIT, err);
	verifier_of_boot(&r->writeverf);
	return NFS4_OK;
}

const struct nfs4_op nfs4_op_desc_read = {
	.name = "READ",
	.minor_min = 0,
	.minor_max = 255,
	.flags = NFS4_OP_NEEDS_FH,
	.args_size = sizeof(struct READ4args),
	.res_size = sizeof(struct READ4resok),
	.decode = nfs4_dec_READ4args,
	.handle = nfs4_op_read,
	.encode = nfs4_enc_READ4resok,
	.release = nfs4_op_read_release,
};

const struct nfs4_op nfs4_op_desc_write = {
	.name = "WRITE",
	.minor_min = 0,
	.minor_max = 255,
	.flags = NFS4_OP_NEEDS_FH | NFS4_OP_MODIFIES,
	.args_size = sizeof(struct WRITE4args),
	.res_size = sizeof(struct WRITE4resok),
	.decode = nfs4_dec_WRITE4args,
	.handle = nfs4_op_write,
	.encode = nfs4_enc_WRITE4resok,
};

const struct nfs4_op nfs4_op_desc_commit = {
	.name = "COMMIT",
	.minor_min = 0,
	.minor_max = 255,
	.flags = NFS4_OP_NEEDS_FH,
	.args_size = sizeof(struct COMMIT4args),
	.res_size = sizeof(struct COMMIT4resok),
	.decode = nfs4_dec_COMMIT4args,
	.handle = nfs4_op_commit,
	.encode = nfs4_enc_COMMIT4resok,
};
