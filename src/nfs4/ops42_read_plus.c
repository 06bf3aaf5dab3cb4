// SPDX-License-Identifier: MIT
/*
 * READ_PLUS (RFC 7862 §15.10): READ that returns holes as holes. The
 * range is walked with SEEK_DATA/SEEK_HOLE; each data extent is read
 * (through the vfs's one read entry, into a pooled buffer the result
 * holds until the reply is encoded) and returned as an
 * NFS4_CONTENT_DATA segment, each hole as an
 * NFS4_CONTENT_HOLE segment (offset and length, no bytes). Segments are
 * clipped to the requested range and the end of the file, and a reply
 * holds at most READ_PLUS_MAX_SEGS of them within the room the COMPOUND
 * reply has left (a short reply is a short read: the client asks again
 * from where it ended).
 */
#include <errno.h>

#include "nfs4/compound.h"
#include "nfs4/nfs4_xdr.h"
#include "nfs4/ops42_int.h"
#include "nfs4/state/state.h"
#include "vfs/vfs.h"

#define READ_PLUS_MAX_COUNT (1U << 20)
#define READ_PLUS_MAX_SEGS  64
/* Encoded size of a hole segment (type, offset, length) and the most a
 * data segment adds besides its bytes (type, offset, length, padding). */
#define READ_PLUS_HOLE_SIZE	20
#define READ_PLUS_DATA_OVERHEAD 19

struct READ_PLUS4args {
	struct stateid4 rpa_stateid;
	uint64_t rpa_offset;
	uint32_t rpa_count;
};

/* read_plus_content: data4 or data_info4 (hole); @data points into the
 * segment's buffer (struct read_plus_res4's bufs). */
struct read_plus_content {
	uint32_t rpc_content; /* data_content4 */
	uint64_t offset;
	uint64_t length;
	const uint8_t *data;
};

struct read_plus_res4 {
	bool rpr_eof;
	uint32_t nsegs;
	struct read_plus_content segs[READ_PLUS_MAX_SEGS];
	uint32_t nbufs;
	struct payload bufs[READ_PLUS_MAX_SEGS]; /* owned; released after */
};

static bool nfs4_dec_READ_PLUS4args(struct xdr_buf *x, void *p)
{
	struct READ_PLUS4args *a = p;

	return nfs4_dec_stateid4(x, &a->rpa_stateid) &&
	       xdr_dec_u64(x, &a->rpa_offset) && xdr_dec_u32(x, &a->rpa_count);
}

static bool nfs4_enc_read_plus_content(struct xdr_buf *x,
				       const struct read_plus_content *s)
{
	if (!xdr_enc_u32(x, s->rpc_content) || !xdr_enc_u64(x, s->offset))
		return false;
	if (s->rpc_content == NFS4_CONTENT_HOLE)
		return xdr_enc_u64(x, s->length);		/* data_info4 */
	return xdr_enc_opaque(x, s->data, (uint32_t)s->length); /* data4 */
}

static bool nfs4_enc_read_plus_res4(struct xdr_buf *x, uint32_t status,
				    const void *p)
{
	const struct read_plus_res4 *r = p;

	if (!xdr_enc_bool(x, r->rpr_eof) || !xdr_enc_u32(x, r->nsegs))
		return false;
	for (uint32_t i = 0; i < r->nsegs; i++)
		if (!nfs4_enc_read_plus_content(x, &r->segs[i]))
			return false;
	return true;
}

static void read_plus_seg(struct read_plus_res4 *r, uint32_t type, uint64_t off,
			  uint64_t len, const uint8_t *data)
{
	struct read_plus_content *s = &r->segs[r->nsegs++];

	s->rpc_content = type;
	s->offset = off;
	s->length = len;
	s->data = data;
}

/*
 * Fill @r with the segments of [@off, @end) of @o, with at most @room
 * bytes of encoded segments. Returns the offset reached and the file size
 * seen last in *@size, or -errno when nothing could be read at all.
 */
static int64_t read_plus_walk(struct vfs_obj *o, uint64_t off, uint64_t end,
			      uint64_t room, struct read_plus_res4 *r,
			      uint64_t *size)
{
	uint64_t pos = off, data, hole, want;
	struct vfs_read_res rd;
	int ret;

	while (pos < end && r->nsegs < READ_PLUS_MAX_SEGS) {
		ssize_t n;

		/* A segment must fit whole, with at least 4 data bytes. */
		if (room < READ_PLUS_HOLE_SIZE + 4)
			break;

		ret = vfs_seek(o, pos, VFS_SEEK_DATA, &data, size);
		if (ret == -ENXIO)
			break; /* the file shrank to @pos */
		if (ret < 0)
			return r->nsegs ? (int64_t)pos : ret;
		if (end > *size)
			end = *size;
		if (data > pos) {
			hole = data < end ? data : end;
			read_plus_seg(r, NFS4_CONTENT_HOLE, pos, hole - pos,
				      NULL);
			room -= READ_PLUS_HOLE_SIZE;
			pos = hole;
			continue;
		}
		ret = vfs_seek(o, pos, VFS_SEEK_HOLE, &hole, size);
		if (ret < 0)
			return r->nsegs ? (int64_t)pos : ret;
		if (hole > end)
			hole = end;
		if (hole <= pos)
			break;
		want = hole - pos;
		if (want > room - READ_PLUS_DATA_OVERHEAD)
			want = room - READ_PLUS_DATA_OVERHEAD;
		n = vfs_read_payload(o, pos, (size_t)want, 0, &rd);
		if (n < 0)
			return r->nsegs ? (int64_t)pos : n;
		if (n == 0)
			break;
		r->bufs[r->nbufs++] = rd.data;
		read_plus_seg(r, NFS4_CONTENT_DATA, pos, (uint64_t)n,
			      rd.data.data);
		pos += (uint64_t)n;
		room -= READ_PLUS_DATA_OVERHEAD + (uint64_t)n;
		if ((uint64_t)n < want)
			break; /* short read: the file shrank under us */
	}
	return (int64_t)pos;
}

/*
 * nfs4_op_read_plus() - READ_PLUS (RFC 7862 §15.10) of the current file
 * with a stateid that allows reading. An offset at or past the end of the
 * file returns no segments and rpr_eof; rpr_eof is set whenever the reply
 * reaches the end of the file.
 */
static uint32_t nfs4_op_read_plus(struct nfs4_compound *c, void *args,
				  void *res)
{
	struct READ_PLUS4args *a = args;
	struct read_plus_res4 *r = res;
	uint64_t count = a->rpa_count, end, size = 0, pos, room;
	struct vfs_attr attr;
	struct vfs_obj *o;
	int64_t got;
	uint32_t st;
	int ret;

	st = ops42_file(&c->cur, &o);
	if (st != NFS4_OK)
		return st;
	st = nfs4_state_check_io(c, &a->rpa_stateid, false, a->rpa_offset,
				 count);
	if (st != NFS4_OK)
		return st;
	if (count > READ_PLUS_MAX_COUNT)
		count = READ_PLUS_MAX_COUNT;
	/* What the reply has room for after rpr_eof and the array count. */
	room = c->reply_room > 8 ? c->reply_room - 8 : 0;
	ret = vfs_getattr(o, &attr);
	if (ret < 0)
		return nfs4_status(OP_READ_PLUS, ret);
	size = attr.size;
	if (a->rpa_offset >= size || count == 0) {
		r->rpr_eof = a->rpa_offset >= size;
		return NFS4_OK;
	}
	end = a->rpa_offset +
	      (count < size - a->rpa_offset ? count : size - a->rpa_offset);
	got = read_plus_walk(o, a->rpa_offset, end, room, r, &size);
	if (got < 0)
		return nfs4_status(OP_READ_PLUS, (int)got);
	pos = (uint64_t)got;
	r->rpr_eof = pos >= size;
	return NFS4_OK;
}

/* The data segments' buffers go back to the pool once encoded. */
static void nfs4_op_read_plus_release(struct nfs4_compound *c, void *res)
{
	struct read_plus_res4 *r = res;
	uint32_t i;

	(void)c;
	for (i = 0; r && i < r->nbufs; i++)
		payload_release(&r->bufs[i]);
}

const struct nfs4_op nfs4_op_desc_read_plus = {
	.name = "READ_PLUS",
	.minor_min = 2,
	.minor_max = 255,
	.flags = NFS4_OP_NEEDS_FH,
	.args_size = sizeof(struct READ_PLUS4args),
	.res_size = sizeof(struct read_plus_res4),
	.decode = nfs4_dec_READ_PLUS4args,
	.handle = nfs4_op_read_plus,
	.encode = nfs4_enc_read_plus_res4,
	.release = nfs4_op_read_plus_release,
};
