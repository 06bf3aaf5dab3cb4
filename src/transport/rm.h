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

struct rm_decoder {
	uint32_t max_record;
	uint32_t frag_left;   /* body bytes still due in this fragment */
	uint8_t hdr[4];
	uint8_t hdr_have;     /* header bytes collected so far */
	bool in_body;         /* inside a fragment body */
	bool last;            /* the current fragment ends the record */
	bool complete;        /* rec[0..rec_len) is a whole record */
	uint8_t *rec;         /* owned; see rm_record_take() */
	size_t rec_len;
	size_t rec_cap;
};

/* rm_init() - an empty decoder refusing records above @max_record bytes. */
void rm_init(struct rm_decoder *d, uint32_t max_record);

/* rm_destroy() - free the decoder's buffer. */
void rm_destroy(struct rm_decoder *d);

/*
 * rm_decode() - feed @len bytes of the stream. Consumes bytes up to the
 * end of the first record that completes (then rm_record_complete() is
 * true and nothing more is consumed until the record is taken or done).
 * Returns the number of bytes consumed, 0 when there was nothing to
 * consume (@len is 0 or a complete record is pending), or -EMSGSIZE (the
 * record would exceed the limit) / -ENOMEM; after an error the stream
 * cannot be resynchronised and the connection must be closed.
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

/*
 * rm_record_take() - give the completed record's buffer to the caller, who
 * frees it with free(); *@len gets its length. May return NULL for an
 * empty record.
 */
uint8_t *rm_record_take(struct rm_decoder *d, size_t *len);

/*
 * rm_record_done() - discard the completed record (the caller copied it),
 * keeping a small buffer for the next one.
 */
void rm_record_done(struct rm_decoder *d);

#endif
