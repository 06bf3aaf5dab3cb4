/* SPDX-License-Identifier: MIT */
/*
 * Frame decoder (frame.h), storing messages in pooled buffers. The first
 * frame of a large message is not stored until its head (FRAME_HEAD_MAX
 * bytes) is in: the alignment hint then says where the payload starts,
 * and the buffer is placed so that the payload is aligned and can go to
 * O_DIRECT without a copy.
 */
#include "transport/frame.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/iobuf.h"

void frame_init(struct frame_decoder *d, const struct frame_ops *ops,
		uint32_t max_msg)
{
	memset(d, 0, sizeof(*d));
	d->ops = ops;
	frame_set_max(d, max_msg);
}

void frame_set_max(struct frame_decoder *d, uint32_t max_msg)
{
	d->max_msg = max_msg ? max_msg : 1;
}

static void frame_drop_buf(struct frame_decoder *d)
{
	iobuf_put(d->buf);
	d->buf = NULL;
	d->msg = NULL;
	d->msg_cap = 0;
	d->shift = 0;
}

void frame_destroy(struct frame_decoder *d)
{
	frame_drop_buf(d);
	d->msg_len = 0;
}

/*
 * Make room for @flen more bytes (the size was checked by the caller),
 * keeping the bytes so far and the alignment shift. Returns 0 or -ENOMEM
 * when the pool refuses.
 */
static int frame_reserve(struct frame_decoder *d, size_t flen)
{
	size_t need = d->msg_len + flen, cap;
	struct iobuf *b;

	if (need <= d->msg_cap)
		return 0;
	/*
	 * The first frame is allocated exactly (most messages are one
	 * frame); later ones grow geometrically so that many small
	 * frames cost amortised linear time.
	 */
	cap = need;
	if (d->msg_len && d->msg_cap * 2 > need)
		cap = d->msg_cap * 2;
	if (cap > d->max_msg)
		cap = d->max_msg;
	if (cap < need)
		cap = need;
	/* No new message is begun above the payload budget (the pool's
	 * high mark): what is in hand drains first. Checked here, not only
	 * between messages, for a pipelined stream is never between them
	 * when a read ends (the next header comes with the last body). */
	if (!d->msg_len && iobuf_pressure())
		return -ENOMEM;
	b = iobuf_alloc(d->shift + cap);
	if (!b)
		return -ENOMEM;
	if (d->msg_len)
		memcpy(b->data + d->shift, d->msg, d->msg_len);
	iobuf_put(d->buf);
	d->buf = b;
	d->msg = b->data + d->shift;
	d->msg_cap = b->size - d->shift;
	return 0;
}

/* Storage for the frame whose frag_left bytes are due; or need_mem. */
static void frame_store(struct frame_decoder *d)
{
	if (frame_reserve(d, d->frag_left) < 0) {
		d->need_mem = true;
		return;
	}
	d->need_mem = false;
	d->in_body = true;
}

/* The head of a large first frame is in: place and store it. */
static void frame_store_head(struct frame_decoder *d)
{
	size_t at = d->ops->align ? d->ops->align(d->head, d->head_have) : 0;

	/* frame_start: only a message's first, non-empty frame. */
	assert(d->msg_len == 0 && d->frag_left > 0);
	/* Only an offset inside the frame is worth honouring. */
	if (at >= d->frag_left)
		at = 0;
	d->shift = (IOBUF_ALIGN - at % IOBUF_ALIGN) % IOBUF_ALIGN;
	/* Nothing is stored yet: any buffer left is re-placed or dropped. */
	if (d->buf && d->buf->size < d->shift + d->frag_left)
		frame_drop_buf(d);
	if (d->buf) {
		d->msg = d->buf->data + d->shift;
		d->msg_cap = d->buf->size - d->shift;
	}
	if (frame_reserve(d, d->frag_left) < 0) {
		d->need_mem = true;
		return;
	}
	d->need_mem = false;
	d->in_head = false;
	memcpy(d->msg, d->head, d->head_have);
	d->in_body = true;
	frame_body_advance(d, d->head_have);
}

bool frame_retry(struct frame_decoder *d)
{
	if (!d->need_mem)
		return true;
	if (d->in_head)
		frame_store_head(d);
	else
		frame_store(d);
	return !d->need_mem;
}

/* A complete header is in d->hdr: start its frame. */
static int frame_start(struct frame_decoder *d)
{
	uint32_t flen;
	bool last;
	int ret;

	ret = d->ops->parse(d->hdr, &flen, &last);
	if (ret < 0)
		return ret;
	d->hdr_have = 0;
	d->last = last;
	/* Check before any arithmetic or allocation. */
	if (flen > d->max_msg || d->msg_len > d->max_msg - flen)
		return -EMSGSIZE;
	if (!flen) {
		if (d->last)
			d->complete = true;
		return 0;
	}
	d->frag_left = flen;
	if (!d->msg_len && d->ops->align && flen >= FRAME_ALIGN_MIN) {
		d->in_head = true;
		d->head_have = 0;
		d->head_want = flen < FRAME_HEAD_MAX ? flen : FRAME_HEAD_MAX;
		return 0;
	}
	if (!d->msg_len && d->buf) {
		/* A new message: no alignment wanted. */
		d->shift = 0;
		d->msg = d->buf->data;
		d->msg_cap = d->buf->size;
	}
	frame_store(d);
	return 0;
}

ssize_t frame_decode(struct frame_decoder *d, const uint8_t *src, size_t len)
{
	size_t off = 0, n;
	int ret;

	if (d->need_mem && !frame_retry(d))
		return 0;
	while (off < len && !d->complete && !d->need_mem) {
		if (d->in_body) {
			n = len - off;
			if (n > d->frag_left)
				n = d->frag_left;
			memcpy(d->msg + d->msg_len, src + off, n);
			off += n;
			frame_body_advance(d, n);
			continue;
		}
		if (d->in_head) {
			n = d->head_want - d->head_have;
			if (n > len - off)
				n = len - off;
			memcpy(d->head + d->head_have, src + off, n);
			d->head_have += (uint32_t)n;
			off += n;
			if (d->head_have == d->head_want)
				frame_store_head(d);
			continue;
		}
		n = d->ops->hdr_len - d->hdr_have;
		if (n > len - off)
			n = len - off;
		memcpy(d->hdr + d->hdr_have, src + off, n);
		d->hdr_have += (uint8_t)n;
		off += n;
		if (d->hdr_have == d->ops->hdr_len) {
			ret = frame_start(d);
			if (ret < 0)
				return ret;
		}
	}
	return (ssize_t)off;
}

uint8_t *frame_body_space(struct frame_decoder *d, size_t *len)
{
	if (!d->in_body) {
		*len = 0;
		return NULL;
	}
	*len = d->frag_left;
	return d->msg + d->msg_len;
}

void frame_body_advance(struct frame_decoder *d, size_t n)
{
	d->msg_len += n;
	d->frag_left -= (uint32_t)n;
	if (d->frag_left == 0) {
		d->in_body = false;
		if (d->last)
			d->complete = true;
	}
}

uint8_t *frame_take(struct frame_decoder *d, size_t *len,
			struct iobuf **buf)
{
	uint8_t *p = d->msg_len ? d->msg : NULL;

	*len = d->msg_len;
	*buf = p ? d->buf : NULL;
	if (p) {
		d->buf = NULL;
		d->msg = NULL;
		d->msg_cap = 0;
	}
	d->shift = 0;
	d->msg_len = 0;
	d->complete = false;
	d->last = false;
	return p;
}

void frame_done(struct frame_decoder *d)
{
	/* Back to the pool (this thread's shard, so the next one reuses it). */
	frame_drop_buf(d);
	d->msg_len = 0;
	d->complete = false;
	d->last = false;
}
