/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: RPC record marking (RFC 5531 §11) through the
 * transport's frame decoder (transport/frame.h).
 *
 * Input: an 11-byte control block, then the byte stream.
 *   [0]     record limit: high bit set = RM_DEFAULT_MAX_RECORD, else
 *           1 + (b & 0x7f) * 64 bytes (small limits reach -EMSGSIZE)
 *   [1..8]  eight chunk sizes (1..256), used in turn to cut the stream
 *   [9]     bit i: feed chunk i % 8 through frame_body_space()/advance (the
 *           transport's zero-copy path) instead of frame_decode() while the
 *           decoder is inside a fragment body; bit 7 set: completed
 *           records are taken with frame_take(), else frame_done()
 *   [10]    0: no alignment hint; else an alignment hint that
 *           answers 4 * b (possibly past the head: a wrong hint must
 *           only cost alignment)
 *
 * The decoder's output is compared with a straightforward reference
 * decoder over the whole stream: the same records, byte for byte, in
 * the same order, then the same verdict (error, or "need more"). The
 * decoder must never consume more than it is given, return 0 with bytes
 * offered unless a record is pending, or hold a record above its limit;
 * when the stream ends between records it must be idle. With a hint, a
 * record whose first fragment is at least FRAME_ALIGN_MIN long must have the
 * hinted offset (when inside that fragment) IOBUF_ALIGN-aligned.
 */
#include <errno.h>
#include <string.h>

#include "core/iobuf.h"
#include "fuzz.h"
#include "rpc/rpc.h"
#include "transport/frame.h"

#define RM_LAST_FRAG RPC_RM_LAST_FRAG
#define RM_LEN_MASK RPC_RM_LEN_MASK
#define RM_DEFAULT_MAX_RECORD ((1u << 20) + (64u << 10))

#define CTL_LEN 11

static size_t align_answer;

static size_t align_hint(const uint8_t *head, size_t len)
{
	FUZZ_CHECK(len > 0 && len <= FRAME_HEAD_MAX);
	FUZZ_CHECK(head != NULL);
	return align_answer;
}

static const struct frame_ops rpc_ops = {
	.hdr_len = RPC_RM_HDR_LEN,
	.parse = rpc_rm_parse,
};

static const struct frame_ops rpc_ops_hint = {
	.hdr_len = RPC_RM_HDR_LEN,
	.parse = rpc_rm_parse,
	.align = align_hint,
};

struct ref_decoder {
	const uint8_t *p;
	size_t len;
	size_t off;
	uint32_t max;
	uint8_t *rec; /* room for len bytes: no record is longer */
	size_t rec_len;
	uint32_t first_flen; /* length of the record's first fragment */
};

/* Next record: 1 (in rec/rec_len), 0 (stream ends first), -1 (too big). */
static int ref_next(struct ref_decoder *r)
{
	uint32_t v, flen;

	r->rec_len = 0;
	for (;;) {
		if (r->len - r->off < 4)
			return 0;
		v = fuzz_be32(r->p + r->off);
		r->off += 4;
		flen = v & RM_LEN_MASK;
		if (flen > r->max || r->rec_len > r->max - flen)
			return -1;
		if (r->len - r->off < flen)
			return 0;
		if (!r->rec_len)
			r->first_flen = flen;
		memcpy(r->rec + r->rec_len, r->p + r->off, flen);
		r->rec_len += flen;
		r->off += flen;
		if (v & RM_LAST_FRAG)
			return 1;
	}
}

struct run {
	struct frame_decoder d;
	struct ref_decoder ref;
	bool take;
	bool align;
	size_t nrecords;
};

/* A record completed in the decoder: it must be the reference's next. */
static void record_check(struct run *r)
{
	struct iobuf *buf;
	uint8_t *rec;
	size_t len;

	FUZZ_CHECK(ref_next(&r->ref) == 1);
	FUZZ_CHECK(r->d.msg_len <= r->d.max_msg);
	FUZZ_CHECK(r->d.msg_len == r->ref.rec_len);
	if (r->d.msg_len)
		FUZZ_CHECK(memcmp(r->d.msg, r->ref.rec, r->d.msg_len) == 0);
	if (r->align && r->ref.first_flen >= FRAME_ALIGN_MIN) {
		size_t at = align_answer < r->ref.first_flen ? align_answer : 0;

		FUZZ_CHECK((uintptr_t)(r->d.msg + at) % IOBUF_ALIGN == 0);
	}
	r->nrecords++;
	if (r->take) {
		rec = frame_take(&r->d, &len, &buf);
		FUZZ_CHECK(len == r->ref.rec_len);
		FUZZ_CHECK(!frame_complete(&r->d));
		FUZZ_CHECK(!len || (rec && buf));
		if (buf) {
			FUZZ_CHECK(rec >= buf->data &&
				   rec + len <= buf->data + buf->size);
			if (len)
				FUZZ_CHECK(memcmp(rec, r->ref.rec, len) == 0);
		}
		iobuf_put(buf);
	} else {
		frame_done(&r->d);
		FUZZ_CHECK(!frame_complete(&r->d));
	}
}

/* Feed @len bytes through frame_decode(); -1 once the decoder failed. */
static int feed_decode(struct run *r, const uint8_t *p, size_t len)
{
	ssize_t n;

	while (len) {
		n = frame_decode(&r->d, p, len);
		if (n < 0) {
			FUZZ_CHECK(n == -EMSGSIZE);
			return -1;
		}
		FUZZ_CHECK((size_t)n <= len);
		if (frame_need_mem(&r->d)) {
			/* The pool never refuses its only user (iobuf.h). */
			FUZZ_CHECK(frame_retry(&r->d));
		} else if (frame_complete(&r->d)) {
			record_check(r);
		} else {
			FUZZ_CHECK(n > 0 && (size_t)n == len);
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The transport's path: receive body bytes straight into the record. */
static int feed_space(struct run *r, const uint8_t *p, size_t len)
{
	uint8_t *dst;
	size_t room, n;

	while (len) {
		dst = frame_body_space(&r->d, &room);
		if (!dst)
			return feed_decode(r, p, len) < 0 ? -1 : 0;
		FUZZ_CHECK(room > 0 && room <= r->d.max_msg);
		n = len < room ? len : room;
		memcpy(dst, p, n);
		frame_body_advance(&r->d, n);
		p += n;
		len -= n;
		if (frame_complete(&r->d))
			record_check(r);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *stream;
	struct run r;
	size_t slen, off = 0, i = 0, n;
	uint32_t max;
	int ret = 0, verdict;
	bool between;

	if (size < CTL_LEN)
		return 0;
	max = data[0] & 0x80 ? RM_DEFAULT_MAX_RECORD
			     : 1u + (data[0] & 0x7fu) * 64u;
	stream = data + CTL_LEN;
	slen = size - CTL_LEN;

	memset(&r, 0, sizeof(r));
	r.align = data[10] != 0;
	align_answer = 4u * data[10];
	frame_init(&r.d, r.align ? &rpc_ops_hint : &rpc_ops, max);
	FUZZ_CHECK(r.d.max_msg == max);
	FUZZ_CHECK(frame_idle(&r.d));
	r.take = data[9] & 0x80;
	r.ref.p = stream;
	r.ref.len = slen;
	r.ref.max = max;
	r.ref.rec = malloc(slen ? slen : 1);
	FUZZ_CHECK(r.ref.rec);

	while (off < slen && ret == 0) {
		n = (size_t)data[1 + i % 8] + 1;
		if (n > slen - off)
			n = slen - off;
		if (data[9] & (1u << (i % 8)) & 0x7f)
			ret = feed_space(&r, stream + off, n);
		else
			ret = feed_decode(&r, stream + off, n);
		off += n;
		i++;
	}
	/* Whatever is left must agree with the reference's verdict. */
	between = r.ref.off == slen;
	verdict = ref_next(&r.ref);
	if (ret < 0) {
		FUZZ_CHECK(verdict == -1);
	} else {
		FUZZ_CHECK(verdict == 0);
		FUZZ_CHECK(!frame_complete(&r.d));
		/* The stream ended between records: nothing may be held. */
		if (between)
			FUZZ_CHECK(frame_idle(&r.d));
		FUZZ_CHECK(frame_decode(&r.d, stream, 0) == 0);
	}
	frame_destroy(&r.d);
	free(r.ref.rec);
	return 0;
}
