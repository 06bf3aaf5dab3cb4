/* SPDX-License-Identifier: MIT */
/*
 * RPC record marking decoder (RFC 5531 §11), storing records in pooled
 * buffers. The first fragment of a large record is not stored until its
 * head (RM_HEAD_MAX bytes) is in: the alignment hint then says where the
 * payload starts, and the buffer is placed so that the payload is aligned
 * and can go to O_DIRECT without a copy.
 */
#include "transport/rm.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/iobuf.h"

void rm_init(struct rm_decoder *d, uint32_t max_record)
{
	memset(d, 0, sizeof(*d));
	d->max_record = max_record ? max_record : RM_DEFAULT_MAX_RECORD;
	if (d->max_record > RM_LEN_MASK)
		d->max_record = RM_LEN_MASK;
}

void rm_set_align(struct rm_decoder *d,
		  size_t (*fn)(const uint8_t *head, size_t len))
{
	d->align = fn;
}

static void rm_drop_buf(struct rm_decoder *d)
{
	iobuf_put(d->buf);
	d->buf = NULL;
	d->rec = NULL;
	d->rec_cap = 0;
	d->shift = 0;
}

void rm_destroy(struct rm_decoder *d)
{
	rm_drop_buf(d);
	d->rec_len = 0;
}

/*
 * Make room for @flen more bytes (the size was checked by the caller),
 * keeping the bytes so far and the alignment shift. Returns 0 or -ENOMEM
 * when the pool refuses.
 */
static int rm_reserve(struct rm_decoder *d, size_t flen)
{
	size_t need = d->rec_len + flen, cap;
	struct iobuf *b;

	if (need <= d->rec_cap)
		return 0;
	/*
	 * The first fragment is allocated exactly (most records are one
	 * fragment); later ones grow geometrically so that many small
	 * fragments cost amortised linear time.
	 */
	cap = need;
	if (d->rec_len && d->rec_cap * 2 > need)
		cap = d->rec_cap * 2;
	if (cap > d->max_record)
		cap = d->max_record;
	if (cap < need)
		cap = need;
	b = iobuf_alloc(d->shift + cap);
	if (!b)
		return -ENOMEM;
	if (d->rec_len)
		memcpy(b->data + d->shift, d->rec, d->rec_len);
	iobuf_put(d->buf);
	d->buf = b;
	d->rec = b->data + d->shift;
	d->rec_cap = b->size - d->shift;
	return 0;
}

/* Storage for the fragment whose frag_left bytes are due; or need_mem. */
static void rm_store_fragment(struct rm_decoder *d)
{
	if (rm_reserve(d, d->frag_left) < 0) {
		d->need_mem = true;
		return;
	}
	d->need_mem = false;
	d->in_body = true;
}

/* The head of a large first fragment is in: place and store it. */
static void rm_store_head(struct rm_decoder *d)
{
	size_t at = d->align ? d->align(d->head, d->head_have) : 0;

	/* rm_start_fragment: only a record's first, non-empty fragment. */
	assert(d->rec_len == 0 && d->frag_left > 0);
	/* Only an offset inside the fragment is worth honouring. */
	if (at >= d->frag_left)
		at = 0;
	d->shift = (IOBUF_ALIGN - at % IOBUF_ALIGN) % IOBUF_ALIGN;
	/* Nothing is stored yet: any buffer left is re-placed or dropped. */
	if (d->buf && d->buf->size < d->shift + d->frag_left)
		rm_drop_buf(d);
	if (d->buf) {
		d->rec = d->buf->data + d->shift;
		d->rec_cap = d->buf->size - d->shift;
	}
	if (rm_reserve(d, d->frag_left) < 0) {
		d->need_mem = true;
		return;
	}
	d->need_mem = false;
	d->in_head = false;
	memcpy(d->rec, d->head, d->head_have);
	d->in_body = true;
	rm_body_advance(d, d->head_have);
}

bool rm_retry(struct rm_decoder *d)
{
	if (!d->need_mem)
		return true;
	if (d->in_head)
		rm_store_head(d);
	else
		rm_store_fragment(d);
	return !d->need_mem;
}

/* A complete header is in d->hdr: start its fragment. */
static int rm_start_fragment(struct rm_decoder *d)
{
	uint32_t v = (uint32_t)d->hdr[0] << 24 | (uint32_t)d->hdr[1] << 16 |
		     (uint32_t)d->hdr[2] << 8 | d->hdr[3];
	uint32_t flen = v & RM_LEN_MASK;

	d->hdr_have = 0;
	d->last = (v & RM_LAST_FRAG) != 0;
	/* Check before any arithmetic or allocation. */
	if (flen > d->max_record || d->rec_len > d->max_record - flen)
		return -EMSGSIZE;
	if (!flen) {
		if (d->last)
			d->complete = true;
		return 0;
	}
	d->frag_left = flen;
	if (!d->rec_len && d->align && flen >= RM_ALIGN_MIN) {
		d->in_head = true;
		d->head_have = 0;
		d->head_want = flen < RM_HEAD_MAX ? flen : RM_HEAD_MAX;
		return 0;
	}
	if (!d->rec_len && d->buf) {
		/* A new record: no alignment wanted. */
		d->shift = 0;
		d->rec = d->buf->data;
		d->rec_cap = d->buf->size;
	}
	rm_store_fragment(d);
	return 0;
}

ssize_t rm_decode(struct rm_decoder *d, const uint8_t *src, size_t len)
{
	size_t off = 0, n;
	int ret;

	if (d->need_mem && !rm_retry(d))
		return 0;
	while (off < len && !d->complete && !d->need_mem) {
		if (d->in_body) {
			n = len - off;
			if (n > d->frag_left)
				n = d->frag_left;
			memcpy(d->rec + d->rec_len, src + off, n);
			off += n;
			rm_body_advance(d, n);
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
				rm_store_head(d);
			continue;
		}
		n = 4u - d->hdr_have;
		if (n > len - off)
			n = len - off;
		memcpy(d->hdr + d->hdr_have, src + off, n);
		d->hdr_have += (uint8_t)n;
		off += n;
		if (d->hdr_have == 4) {
			ret = rm_start_fragment(d);
			if (ret < 0)
				return ret;
		}
	}
	return (ssize_t)off;
}

uint8_t *rm_body_space(struct rm_decoder *d, size_t *len)
{
	if (!d->in_body) {
		*len = 0;
		return NULL;
	}
	*len = d->frag_left;
	return d->rec + d->rec_len;
}

void rm_body_advance(struct rm_decoder *d, size_t n)
{
	d->rec_len += n;
	d->frag_left -= (uint32_t)n;
	if (d->frag_left == 0) {
		d->in_body = false;
		if (d->last)
			d->complete = true;
	}
}

uint8_t *rm_record_take(struct rm_decoder *d, size_t *len,
			struct iobuf **buf)
{
	uint8_t *p = d->rec_len ? d->rec : NULL;

	*len = d->rec_len;
	*buf = p ? d->buf : NULL;
	if (p) {
		d->buf = NULL;
		d->rec = NULL;
		d->rec_cap = 0;
	}
	d->shift = 0;
	d->rec_len = 0;
	d->complete = false;
	d->last = false;
	return p;
}

void rm_record_done(struct rm_decoder *d)
{
	/* Back to the pool (this thread's shard, so the next one reuses it). */
	rm_drop_buf(d);
	d->rec_len = 0;
	d->complete = false;
	d->last = false;
}
