/* SPDX-License-Identifier: MIT */
#ifndef NASD_SMB2_SMB2_BUF_H
#define NASD_SMB2_SMB2_BUF_H

/*
 * A bounds-checked little-endian cursor for SMB2 and the security blobs it
 * carries (NTLMSSP, MS-NLMP §2.2), the one way this protocol reads and
 * writes wire bytes (no structs laid over buffers; STYLE.md "Never trust
 * a wire length"). As the XDR cursor: a decode never reads past @len, an
 * encode never writes past it, and a failed primitive poisons the cursor
 * (@pos > @len) so that a codec may check only its last result.
 *
 * SMB2 names variable parts by (offset, length) pairs relative to some
 * base (the SMB2 header, a structure's start): sb_range() turns such a
 * pair into a cursor over exactly those bytes, with the sum checked in
 * 64 bits before anything is touched, so an offset near 2^32 or a length
 * past the end is refused instead of wrapping.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/le.h"

struct smb2_buf {
	uint8_t *base;
	size_t pos;
	size_t len;
};

static inline void sb_init(struct smb2_buf *b, void *base, size_t len)
{
	b->base = base;
	b->pos = 0;
	b->len = len;
}

static inline bool sb_ok(const struct smb2_buf *b)
{
	return b->pos <= b->len;
}

static inline size_t sb_remaining(const struct smb2_buf *b)
{
	return b->pos <= b->len ? b->len - b->pos : 0;
}

static inline void sb_poison(struct smb2_buf *b)
{
	b->pos = b->len + 1;
}

/* The next @n bytes, advancing past them; NULL (poisoned) on overrun. */
static inline uint8_t *sb_take(struct smb2_buf *b, size_t n)
{
	uint8_t *p;

	if (!sb_ok(b) || sb_remaining(b) < n) {
		sb_poison(b);
		return NULL;
	}
	p = b->base + b->pos;
	b->pos += n;
	return p;
}

static inline bool sb_skip(struct smb2_buf *b, size_t n)
{
	return sb_take(b, n) != NULL;
}

static inline bool sb_get_u8(struct smb2_buf *b, uint8_t *v)
{
	const uint8_t *p = sb_take(b, 1);

	if (!p)
		return false;
	*v = p[0];
	return true;
}

static inline bool sb_get_u16(struct smb2_buf *b, uint16_t *v)
{
	const uint8_t *p = sb_take(b, 2);

	if (!p)
		return false;
	*v = get_le16(p);
	return true;
}

static inline bool sb_get_u32(struct smb2_buf *b, uint32_t *v)
{
	const uint8_t *p = sb_take(b, 4);

	if (!p)
		return false;
	*v = get_le32(p);
	return true;
}

static inline bool sb_get_u64(struct smb2_buf *b, uint64_t *v)
{
	const uint8_t *p = sb_take(b, 8);

	if (!p)
		return false;
	*v = get_le64(p);
	return true;
}

/* @n bytes copied to @dst. */
static inline bool sb_get_bytes(struct smb2_buf *b, void *dst, size_t n)
{
	const uint8_t *p = sb_take(b, n);

	if (!p)
		return false;
	if (n)
		memcpy(dst, p, n);
	return true;
}

static inline bool sb_put_u8(struct smb2_buf *b, uint8_t v)
{
	uint8_t *p = sb_take(b, 1);

	if (!p)
		return false;
	p[0] = v;
	return true;
}

static inline bool sb_put_u16(struct smb2_buf *b, uint16_t v)
{
	uint8_t *p = sb_take(b, 2);

	if (!p)
		return false;
	put_le16(p, v);
	return true;
}

static inline bool sb_put_u32(struct smb2_buf *b, uint32_t v)
{
	uint8_t *p = sb_take(b, 4);

	if (!p)
		return false;
	put_le32(p, v);
	return true;
}

static inline bool sb_put_u64(struct smb2_buf *b, uint64_t v)
{
	uint8_t *p = sb_take(b, 8);

	if (!p)
		return false;
	put_le64(p, v);
	return true;
}

static inline bool sb_put_bytes(struct smb2_buf *b, const void *src, size_t n)
{
	uint8_t *p = sb_take(b, n);

	if (!p)
		return false;
	if (n)
		memcpy(p, src, n);
	return true;
}

/* @n zero bytes. */
static inline bool sb_put_zero(struct smb2_buf *b, size_t n)
{
	uint8_t *p = sb_take(b, n);

	if (!p)
		return false;
	memset(p, 0, n);
	return true;
}

/*
 * Zero-pad (encode) or skip (decode, padding ignored) up to the next
 * multiple of @a (a power of two) counted from the cursor's start. False
 * when that passes the end.
 */
static inline bool sb_pad_to(struct smb2_buf *b, size_t a, bool zero)
{
	size_t n = (a - (b->pos & (a - 1))) & (a - 1);

	return zero ? sb_put_zero(b, n) : sb_skip(b, n);
}

/*
 * sb_range() - a cursor over the @len bytes at offset @off of @b (counted
 * from b->base, whatever b->pos is): false when the range does not lie
 * inside b[0..len) (the sum is checked in 64 bits, so no offset or length
 * can wrap). @out borrows @b's memory.
 */
static inline bool sb_range(const struct smb2_buf *b, uint64_t off,
			    uint64_t len, struct smb2_buf *out)
{
	if (off > b->len || len > b->len - off)
		return false;
	sb_init(out, b->base + off, (size_t)len);
	return true;
}

#endif
