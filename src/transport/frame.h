/* SPDX-License-Identifier: MIT */
#ifndef NASD_TRANSPORT_FRAME_H
#define NASD_TRANSPORT_FRAME_H

/*
 * Message framing over a byte stream, for any protocol of the listener's
 * table: a message is one or more frames, each a header of a fixed size
 * (struct frame_ops) that gives its body length and whether it ends the
 * message. ONC RPC's record marking (RFC 5531 §11: any number of
 * fragments) and SMB2's direct TCP transport (MS-SMB2 §2.1: one frame, a
 * zero byte and a 24-bit length) are both this. The decoder assembles a
 * message into one buffer, sized from the headers before the data
 * arrives, and refuses any message longer than its limit before
 * allocating for it.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Longest frame header a protocol may have. */
#define FRAME_HDR_MAX 8
/* First frames at least this long get their head inspected ... */
#define FRAME_ALIGN_MIN (16u << 10)
/* ... this many bytes of it, for the payload alignment hint. */
#define FRAME_HEAD_MAX 1024u

struct iobuf;

/* What the decoder needs to know of a protocol's framing. */
struct frame_ops {
	uint32_t hdr_len;     /* bytes of each frame header, 1..FRAME_HDR_MAX */
	/*
	 * One complete header: its body length and whether it ends the
	 * message. 0, or -errno when it is not a header of this protocol
	 * (the connection must close).
	 */
	int (*parse)(const uint8_t *hdr, uint32_t *len, bool *last);
	/*
	 * Optional hint: given the first bytes of a large message, the
	 * offset in it that should sit at an IOBUF_ALIGN-aligned address
	 * (a WRITE's payload), or 0 for no preference. A wrong answer only
	 * costs the payload's alignment, never correctness.
	 */
	size_t (*align)(const uint8_t *head, size_t len);
};

/*
 * Message storage comes from the iobuf pool: msg = buf->data + shift, with
 * shift chosen from the alignment hint so that a WRITE payload lands
 * aligned. When the pool refuses (memory ceiling), need_mem is set and
 * nothing more is consumed until frame_retry() succeeds.
 */
struct frame_decoder {
	const struct frame_ops *ops;
	uint32_t max_msg;
	uint32_t frag_left;   /* body bytes still due in this frame */
	uint8_t hdr[FRAME_HDR_MAX];
	uint8_t hdr_have;     /* header bytes collected so far */
	bool in_body;         /* inside a frame body */
	bool in_head;         /* collecting the head of a large message */
	bool need_mem;        /* storage for frag_left more bytes refused */
	bool last;            /* the current frame ends the message */
	bool complete;        /* msg[0..msg_len) is a whole message */
	uint32_t head_have;
	uint32_t head_want;
	struct iobuf *buf;    /* owned; see frame_take() */
	uint8_t *msg;
	size_t msg_len;
	size_t msg_cap;       /* bytes available from msg */
	size_t shift;         /* msg - buf->data */
	uint8_t head[FRAME_HEAD_MAX];
};

/*
 * frame_init() - an empty decoder for @ops (borrowed; it must outlive the
 * decoder) refusing messages above @max_msg bytes.
 */
void frame_init(struct frame_decoder *d, const struct frame_ops *ops,
		uint32_t max_msg);

/*
 * frame_set_max() - refuse messages above @max_msg bytes from the next
 * frame header on (a protocol's negotiated maximum).
 */
void frame_set_max(struct frame_decoder *d, uint32_t max_msg);

/* frame_destroy() - give the decoder's buffer back to the pool. */
void frame_destroy(struct frame_decoder *d);

/*
 * frame_decode() - feed @len bytes of the stream. Consumes bytes up to the
 * end of the first message that completes (then frame_complete() is true
 * and nothing more is consumed until the message is taken or done), or up
 * to the point where the pool refused storage (frame_need_mem()). Returns
 * the number of bytes consumed, 0 when there was nothing to consume (@len
 * is 0, a complete message is pending, or memory is still refused),
 * -EMSGSIZE (the message would exceed the limit) or the header parser's
 * error; after an error the stream cannot be resynchronised and the
 * connection must be closed.
 */
ssize_t frame_decode(struct frame_decoder *d, const uint8_t *src, size_t len);

/*
 * frame_body_space() - while inside a frame, the place where its next
 * bytes go and how many are still due (*@len), so a reader can receive
 * them straight into the message; NULL otherwise. Report what was written
 * with frame_body_advance().
 */
uint8_t *frame_body_space(struct frame_decoder *d, size_t *len);

/* frame_body_advance() - @n bytes (<= what frame_body_space() gave) came. */
void frame_body_advance(struct frame_decoder *d, size_t n);

static inline bool frame_complete(const struct frame_decoder *d)
{
	return d->complete;
}

/* frame_need_mem() - the pool refused the storage the stream needs now. */
static inline bool frame_need_mem(const struct frame_decoder *d)
{
	return d->need_mem;
}

/* frame_retry() - ask the pool again; true when storage is there now. */
bool frame_retry(struct frame_decoder *d);

/* frame_idle() - between messages: no byte of the next one seen yet. */
static inline bool frame_idle(const struct frame_decoder *d)
{
	return !d->hdr_have && !d->in_body && !d->in_head && !d->need_mem &&
	       !d->complete && !d->msg_len;
}

/*
 * frame_take() - give the completed message to the caller: returns its
 * first byte, *@len its length and *@buf the pool buffer holding it (the
 * caller's reference, for iobuf_put()). NULL (and *@buf NULL) for an
 * empty message.
 */
uint8_t *frame_take(struct frame_decoder *d, size_t *len, struct iobuf **buf);

/*
 * frame_done() - discard the completed message (the caller copied it);
 * its buffer goes back to the pool.
 */
void frame_done(struct frame_decoder *d);

#endif
