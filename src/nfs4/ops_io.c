// SPDX-License-Identifier: MIT
/*
 * Data operations (RFC 8881 §18.22 READ, §18.32 WRITE, §18.3 COMMIT).
 * READ goes through the vfs's one read entry: a pooled buffer (counted
 * against --max-memory; DELAY at the ceiling) or, for a large read the
 * page cache holds, the file range. As the last operation of a reply
 * that no slot caches it leaves as the reply's payload (not copied, the
 * range sent by sendfile), else it is copied into the reply. On the
 * event loop a READ that misses the page cache defers to a worker.
 */

#include "core/stats.h"
#include "nfs4/nfs4_int.h"
#include "nfs4/ops.h"
#include "nfs4/state/state.h"
#include "state/file_state.h"

/*
 * The current fh as a regular file for @op: ISDIR for directories
 * (pseudo ones too), SYMLINK/WRONG_TYPE for others in 4.1+ and INVAL in
 * 4.0, which has neither for these operations. The object knows its type:
 * no syscall.
 */
static uint32_t cur_file(struct nfs4_compound *c, uint32_t op)
{
	enum vfs_ftype t;

	if (c->cur.pseudo)
		return NFS4ERR_ISDIR;
	t = vfs_obj_type(c->cur.obj);
	if (t == VFS_REG)
		return NFS4_OK;
	if (t == VFS_DIR)
		return NFS4ERR_ISDIR;
	if (c->minorversion == 0)
		return NFS4ERR_INVAL;
	return nfs4_status(op, t == VFS_LNK ? -ELOOP : -EBADTYPE);
}

static void verifier_of_boot(struct verifier4 *v)
{
	uint64_t b = vfs_write_verifier();
	int i;

	/* big-endian, as the 4.2 ops encode it (ops42_enc_writeverf) */
	for (i = 0; i < 8; i++)
		v->data[i] = (uint8_t)(b >> (56 - 8 * i));
}

/* Reply room for @len bytes of copied data: eof + length + padding. */
static uint32_t read_room(const struct nfs4_compound *c)
{
	uint32_t room = nfs4_compound_room(c);

	return room > 12 ? (room - 12) & ~3u : 0;
}

/*
 * nfs4_op_read() - RFC 8881 §18.22: up to min(count, maxread, room left
 * in the reply) bytes at offset, checked against the stateid.
 */
static uint32_t nfs4_op_read(struct nfs4_compound *c, void *args, void *res)
{
	const struct READ4args *a = args;
	struct READ4resok *r = res;
	struct req *rq = c->call->req;
	uint32_t count = a->count, st, room;
	struct vfs_read_res rd;
	unsigned int flags = 0;
	bool as_payload;
	ssize_t n;

	st = cur_file(c, OP_READ);
	if (st != NFS4_OK)
		return st;
	st = nfs4_state_check_io(c, &a->stateid, false, a->offset, count);
	if (st != NFS4_OK)
		return st;
	/* An SMB client caching writes (exclusive, batch) flushes first,
	 * another NFSv4 client's write delegation is recalled. */
	if (state_grant_break_key(c->cur.obj, STATE_OP_READ,
				  nfs4_grant_key(c)))
		return NFS4ERR_DELAY;
	if (count > NFS4_IO_MAX)
		count = NFS4_IO_MAX;
	/* small reads are copied: cheap, and their reply stays cacheable */
	as_payload = c->opindex + 1 == c->numops && !c->cachethis &&
		     count > NFS4_READ_TAIL_MIN;
	if (!as_payload && count > read_room(c))
		count = read_room(c);
	if (rq->nowait)
		flags |= VFS_READ_NOWAIT;
	if (as_payload && (rq->caps & REQ_CAP_FILE))
		flags |= VFS_READ_FILE_OK;
	/* read under an open for read: its OPEN checked the right */
	if (c->io_open_read)
		flags |= VFS_READ_CHECKED;
	n = vfs_read_payload(c->cur.obj, a->offset, count, flags, &rd);
	if (n == -EAGAIN && rq->nowait) {
		rq->defer = true; /* not in the page cache: a worker reads */
		return NFS4_OK;
	}
	if (n < 0)
		return nfs4_status(OP_READ, (int)n);
	r->len = (uint32_t)n;
	r->eof = rd.eof;
	stats_add_bytes_read(r->len);
	/*
	 * Only more than NFS4_READ_TAIL_MIN bytes of data go as a payload,
	 * which is what makes such a reply too big for a slot to keep
	 * unasked (compound.c offers the slot no bytes for it). A short read
	 * (near the end of the file) is copied after all, within the room.
	 */
	if (as_payload && r->len > NFS4_READ_TAIL_MIN) {
		req_reply_set_payload(rq, &rd.data,
				      (uint32_t)xdr_pad(r->len));
		r->in_payload = true;
		return NFS4_OK;
	}
	room = read_room(c);
	if (r->len > room) {
		r->len = room;
		r->eof = false;
	}
	r->data = rd.data;
	return NFS4_OK;
}

/* The data copied into the reply goes back to the pool. */
static void nfs4_op_read_release(struct nfs4_compound *c, void *res)
{
	struct READ4resok *r = res;

	(void)c;
	if (r)
		payload_release(&r->data);
}

/*
 * nfs4_op_write() - RFC 8881 §18.32: write the borrowed data with the
 * asked stability and report exactly that, with the boot verifier.
 */
static uint32_t nfs4_op_write(struct nfs4_compound *c, void *args, void *res)
{
	const struct WRITE4args *a = args;
	struct WRITE4resok *r = res;
	uint32_t st;
	ssize_t n;

	st = cur_file(c, OP_WRITE);
	if (st != NFS4_OK)
		return st;
	if (a->offset > UINT64_MAX - a->len)
		return NFS4ERR_FBIG;
	st = nfs4_state_check_io(c, &a->stateid, true, a->offset, a->len);
	if (st != NFS4_OK)
		return st;
	if (state_grant_break_key(c->cur.obj, STATE_OP_WRITE,
				  nfs4_grant_key(c)))
		return NFS4ERR_DELAY;
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
	uint32_t st;
	int err;

	st = cur_file(c, OP_COMMIT);
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
