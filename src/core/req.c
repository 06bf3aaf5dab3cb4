// SPDX-License-Identifier: MIT
/*
 * Requests: the per-request arena and the reply chain (see req.h).
 */
#include "core/req.h"

#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/iobuf.h"

#define ARENA_ALIGN alignof(max_align_t)
#define ARENA_CHUNK (16 * 1024)

static const uint8_t zero_pad[8];

struct arena_chunk {
	struct arena_chunk *next;
	alignas(max_align_t) uint8_t data[];
};

void payload_release(struct payload *p)
{
	if (p->kind == PAYLOAD_BUF)
		iobuf_put(p->buf);
	else if (p->kind == PAYLOAD_FILE && p->ops && p->ops->release)
		p->ops->release(p->arg);
	memset(p, 0, sizeof(*p));
	p->fd = -1;
}

int payload_fill(struct payload *p)
{
	struct iobuf *b;
	int ret;

	if (p->kind != PAYLOAD_FILE)
		return 0;
	b = iobuf_alloc(p->len ? p->len : 1);
	if (!b)
		return -EJUKEBOX;
	ret = p->ops->fill(p->arg, p->fd, p->off, b->data, p->len);
	if (ret < 0) {
		iobuf_put(b);
		return ret;
	}
	/* The range's keeper goes; the buffer is the payload now. */
	if (p->ops->release)
		p->ops->release(p->arg);
	p->kind = PAYLOAD_BUF;
	p->buf = b;
	p->data = b->data;
	p->fd = -1;
	p->off = 0;
	p->ops = NULL;
	p->arg = NULL;
	return 0;
}

void req_init(struct req *r, void *arena, size_t arena_size)
{
	memset(r, 0, sizeof(*r));
	r->arena = arena;
	r->arena_size = arena_size;
	r->reply.payload.fd = -1;
}

void req_finish(struct req *r)
{
	struct arena_chunk *c, *next;

	payload_release(&r->reply.payload);
	for (c = r->arena_overflow; c; c = next) {
		next = c->next;
		free(c);
	}
	r->arena_overflow = NULL;
	r->arena = NULL;
	r->arena_size = 0;
	r->arena_used = 0;
	memset(&r->reply, 0, sizeof(r->reply));
	r->reply.payload.fd = -1;
	r->proto = NULL;
}

static size_t arena_round(size_t n)
{
	return (n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
}

void *req_alloc_raw(struct req *r, size_t n)
{
	struct arena_chunk *c;
	void *p;

	if (n > SIZE_MAX - ARENA_ALIGN - sizeof(*c))
		return NULL;
	n = arena_round(n ? n : 1);
	if (r->arena && r->arena_size - r->arena_used >= n) {
		p = r->arena + r->arena_used;
		r->arena_used += n;
		return p;
	}
	/* A big request gets a chunk of its own; the current chunk stays. */
	if (n > ARENA_CHUNK / 2) {
		c = malloc(sizeof(*c) + n);
		if (!c)
			return NULL;
		c->next = r->arena_overflow;
		r->arena_overflow = c;
		return c->data;
	}
	c = malloc(sizeof(*c) + ARENA_CHUNK);
	if (!c)
		return NULL;
	c->next = r->arena_overflow;
	r->arena_overflow = c;
	r->arena = c->data;
	r->arena_size = ARENA_CHUNK;
	r->arena_used = n;
	return c->data;
}

void *req_alloc(struct req *r, size_t n)
{
	void *p = req_alloc_raw(r, n);

	if (p)
		memset(p, 0, n);
	return p;
}

uint8_t *req_reply_start(struct req *r, size_t cap)
{
	struct req_reply *rp = &r->reply;
	uint8_t *buf;

	payload_release(&rp->payload);
	rp->pad = 0;
	rp->nseg = 0;
	rp->head_len = 0;
	if (cap > SIZE_MAX - REQ_HEAD_ROOM)
		return NULL;
	buf = req_alloc_raw(r, REQ_HEAD_ROOM + cap);
	if (!buf)
		return NULL;
	rp->alloc = buf;
	rp->seg[0].iov_base = buf + REQ_HEAD_ROOM;
	rp->seg[0].iov_len = 0;
	rp->nseg = 1;
	rp->open_cap = cap;
	return buf + REQ_HEAD_ROOM;
}

void req_reply_used(struct req *r, size_t used)
{
	struct req_reply *rp = &r->reply;

	if (!rp->nseg)
		return;
	rp->seg[rp->nseg - 1].iov_len = used <= rp->open_cap ? used
							     : rp->open_cap;
}

uint8_t *req_reply_extend(struct req *r, size_t used, size_t cap)
{
	struct req_reply *rp = &r->reply;
	uint8_t *buf;

	if (!rp->nseg || rp->nseg == REQ_MAX_SEGS)
		return NULL;
	buf = req_alloc_raw(r, cap);
	if (!buf)
		return NULL;
	req_reply_used(r, used);
	rp->seg[rp->nseg].iov_base = buf;
	rp->seg[rp->nseg].iov_len = 0;
	rp->nseg++;
	rp->open_cap = cap;
	return buf;
}

uint8_t *req_reply_prepend(struct req *r, size_t n)
{
	struct req_reply *rp = &r->reply;

	if (!rp->nseg || n > REQ_HEAD_ROOM - rp->head_len)
		return NULL;
	rp->head_len += n;
	return (uint8_t *)rp->seg[0].iov_base - rp->head_len;
}

void req_reply_set_payload(struct req *r, struct payload *p, uint32_t pad)
{
	struct req_reply *rp = &r->reply;

	payload_release(&rp->payload);
	rp->payload = *p;
	rp->pad = pad < sizeof(zero_pad) ? pad : 0;
	memset(p, 0, sizeof(*p));
	p->fd = -1;
}

void req_reply_drop_payload(struct req *r)
{
	payload_release(&r->reply.payload);
	r->reply.pad = 0;
}

size_t req_reply_body_len(const struct req *r)
{
	size_t n = 0;
	unsigned int i;

	for (i = 0; i < r->reply.nseg; i++)
		n += r->reply.seg[i].iov_len;
	return n;
}

size_t req_reply_len(const struct req *r)
{
	const struct req_reply *rp = &r->reply;
	size_t n = req_reply_body_len(r) + rp->head_len;

	if (rp->payload.kind != PAYLOAD_NONE)
		n += rp->payload.len + rp->pad;
	return n;
}

int req_reply_iov(const struct req *r, struct iovec *iov)
{
	const struct req_reply *rp = &r->reply;
	const struct payload *p = &rp->payload;
	unsigned int i;
	int n = 0;

	if (!rp->nseg)
		return 0;
	iov[n].iov_base = (uint8_t *)rp->seg[0].iov_base - rp->head_len;
	iov[n].iov_len = rp->head_len + rp->seg[0].iov_len;
	if (iov[n].iov_len)
		n++;
	for (i = 1; i < rp->nseg; i++)
		if (rp->seg[i].iov_len)
			iov[n++] = rp->seg[i];
	if (p->kind == PAYLOAD_NONE)
		return n;
	if (p->len) {
		iov[n].iov_base = p->kind == PAYLOAD_BUF ? (void *)p->data : NULL;
		iov[n].iov_len = p->len;
		n++;
	}
	if (rp->pad) {
		iov[n].iov_base = (void *)zero_pad;
		iov[n].iov_len = rp->pad;
		n++;
	}
	return n;
}

ssize_t req_reply_copy(const struct req *r, size_t from, void *dst,
		       size_t len)
{
	struct iovec iov[REQ_MAX_IOV];
	uint8_t *out = dst;
	size_t done = 0, k;
	int i, n = req_reply_iov(r, iov);

	for (i = 0; i < n && done < len; i++) {
		if (from >= iov[i].iov_len) {
			from -= iov[i].iov_len;
			continue;
		}
		if (!iov[i].iov_base)
			return -EINVAL;
		k = iov[i].iov_len - from;
		if (k > len - done)
			k = len - done;
		memcpy(out + done, (uint8_t *)iov[i].iov_base + from, k);
		done += k;
		from = 0;
	}
	return (ssize_t)done;
}
