/* SPDX-License-Identifier: MIT */
#ifndef NASD_TRANSPORT_RM_H
#define NASD_TRANSPORT_RM_H

/*
 * RPC record marking over a byte stream (RFC 5531 §11): a record is any
 * number of fragments, each preceded by a 4-byte big-endian header whose
 * top bit marks the last fragment and whose low 31 bits give its length
 * (0 allowed). The decoder assembles records into one buffer, sized from
 * the fragment headers before the data arrives, and refuses any record
 * longer than its limit before allocating for it.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define RM_LAST_FRAG 0x80000000u
#define RM_LEN_MASK 0x7fffffffu
#define RM_DEFAULT_MAX_RECORD ((1u << 20) + (64u << 10))
/* First fragments at least this long get their head inspected ... */
#define RM_ALIGN_MIN (16u << 10)
/* ... this many bytes of it, for the payload alignment hint. */
#define RM_HEAD_MAX 1024u

struct iobuf;

/*
 * Record storage comes from the iobuf pool: rec = buf->data + shift, with
 * shift chosen from the alignment hint so that a WRITE payload lands
 * aligned. When the pool refuses (memory ceiling), need_mem is set and
 * nothing more is consumed until rm_retry() succeeds.
 */
struct rm_decoder {
	uint32_t max_record;
	uint32_t frag_left;   /* body bytes still due in this fragment */
	uint8_t hdr[4];
	uint8_t hdr_have;     /* header bytes collected so far */
	bool in_body;         /* inside a fragment body */
	bool in_head;         /* collecting the head of a large record */
	bool need_mem;        /* storage for frag_left more bytes refused */
	bool last;            /* the current fragment ends the record */
	bool complete;        /* rec[0..rec_len) is a whole record */
	uint32_t head_have;
	uint32_t head_want;
	/* optional hint, see rm_set_align() */
	size_t (*align)(const uint8_t *head, size_t len);
	struct iobuf *buf;    /* owned; see rm_record_take() */
	uint8_t *rec;
	size_t rec_len;
	size_t rec_cap;       /* bytes available from rec */
	size_t shift;         /* rec - buf->data */
	uint8_t head[RM_HEAD_MAX];
};

/* rm_init() - an empty decoder refusing records above @max_record bytes. */
void rm_init(struct rm_decoder *d, uint32_t max_record);

/*
 * rm_set_align() - place large records so that the record offset @fn
 * returns (given the first bytes of the record; 0 for no preference) sits
 * at an IOBUF_ALIGN-aligned address. A wrong answer only costs the
 * payload's alignment, never correctness.
 */
void rm_set_align(struct rm_decoder *d,
		  size_t (*fn)(const uint8_t *head, size_t len));

/* rm_destroy() - give the decoder's buffer back to the pool. */
void rm_destroy(struct rm_decoder *d);

/*
 * rm_decode() - feed @len bytes of the stream. Consumes bytes up to the
 * end of the first record that completes (then rm_record_complete() is
 * true and nothing more is consumed until the record is taken or done),
 * or up to the point where the pool refused storage (rm_need_mem()).
 * Returns the number of bytes consumed, 0 when there was nothing to
 * consume (@len is 0, a complete record is pending, or memory is still
 * refused), or -EMSGSIZE (the record would exceed the limit); after an
 * error the stream cannot be resynchronised and the connection must be
 * closed.
 */
ssize_t rm_decode(struct rm_decoder *d, const uint8_t *src, size_t len);

/*
 * rm_body_space() - while inside a fragment, the place where its next
 * bytes go and how many are still due (*@len), so a reader can receive
 * them straight into the record; NULL otherwise. Report what was written
 * with rm_body_advance().
 */
uint8_t *rm_body_space(struct rm_decoder *d, size_t *len);

/* rm_body_advance() - @n bytes (<= what rm_body_space() gave) arrived. */
void rm_body_advance(struct rm_decoder *d, size_t n);

static inline bool rm_record_complete(const struct rm_decoder *d)
{
	return d->complete;
}

/* rm_need_mem() - the pool refused the storage the stream needs now. */
static inline bool rm_need_mem(const struct rm_decoder *d)
{
	return d->need_mem;
}

/* rm_retry() - ask the pool again; true when storage is there now. */
bool rm_retry(struct rm_decoder *d);

/* rm_idle() - between records: no byte of the next one seen yet. */
static inline bool rm_idle(const struct rm_decoder *d)
{
	return !d->hdr_have && !d->in_body && !d->in_head && !d->need_mem &&
	       !d->complete && !d->rec_len;
}

/*
 * rm_record_take() - give the completed record to the caller: returns its
 * first byte, *@len its length and *@buf the pool buffer holding it (the
 * caller's reference, for iobuf_put()). NULL (and *@buf NULL) for an
 * empty record.
 */
uint8_t *rm_record_take(struct rm_decoder *d, size_t *len,
			struct iobuf **buf);

/*
 * rm_record_done() - discard the completed record (the caller copied it);
 * its buffer goes back to the pool.
 */
void rm_record_done(struct rm_decoder *d);

#endif
