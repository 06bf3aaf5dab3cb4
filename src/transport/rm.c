/* SPDX-License-Identifier: MIT */
/* RPC record marking decoder (RFC 5531 §11). */
#include "transport/rm.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A buffer above this size is not kept between records. */
#define RM_KEEP_MAX (64u * 1024)

void rm_init(struct rm_decoder *d, uint32_t max_record)
{
	memset(d, 0, sizeof(*d));
	d->max_record = max_record ? max_record : RM_DEFAULT_MAX_RECORD;
	if (d->max_record > RM_LEN_MASK)
		d->max_record = RM_LEN_MASK;
}

void rm_destroy(struct rm_decoder *d)
{
	free(d->rec);
	d->rec = NULL;
	d->rec_cap = 0;
	d->rec_len = 0;
}

/* Make room for @flen more bytes; the size was checked by the caller. */
static int rm_reserve(struct rm_decoder *d, size_t flen)
{
	size_t need = d->rec_len + flen, cap;
	uint8_t *p;

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
	p = realloc(d->rec, cap);
	if (!p)
		return -ENOMEM;
	d->rec = p;
	d->rec_cap = cap;
	return 0;
}

/* A complete header is in d->hdr: start its fragment. */
static int rm_start_fragment(struct rm_decoder *d)
{
	uint32_t v = (uint32_t)d->hdr[0] << 24 | (uint32_t)d->hdr[1] << 16 |
		     (uint32_t)d->hdr[2] << 8 | d->hdr[3];
	uint32_t flen = v & RM_LEN_MASK;
	int ret;

	d->hdr_have = 0;
	d->last = (v & RM_LAST_FRAG) != 0;
	/* Check before any arithmetic or allocation. */
	if (flen > d->max_record || d->rec_len > d->max_record - flen)
		return -EMSGSIZE;
	if (flen) {
		ret = rm_reserve(d, flen);
		if (ret < 0)
			return ret;
		d->frag_left = flen;
		d->in_body = true;
	} else if (d->last) {
		d->complete = true;
	}
	return 0;
}

ssize_t rm_decode(struct rm_decoder *d, const uint8_t *src, size_t len)
{
	size_t off = 0, n;
	int ret;

	while (off < len && !d->complete) {
		if (d->in_body) {
			n = len - off;
			if (n > d->frag_left)
				n = d->frag_left;
			memcpy(d->rec + d->rec_len, src + off, n);
			off += n;
			rm_body_advance(d, n);
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

uint8_t *rm_record_take(struct rm_decoder *d, size_t *len)
{
	uint8_t *p = d->rec;

	*len = d->rec_len;
	d->rec = NULL;
	d->rec_cap = 0;
	d->rec_len = 0;
	d->complete = false;
	d->last = false;
	return p;
}

void rm_record_done(struct rm_decoder *d)
{
	d->rec_len = 0;
	d->complete = false;
	d->last = false;
	if (d->rec_cap > RM_KEEP_MAX) {
		free(d->rec);
		d->rec = NULL;
		d->rec_cap = 0;
	}
}
