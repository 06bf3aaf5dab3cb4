/* SPDX-License-Identifier: MIT */
#ifndef NASD_XDR_XDR_H
#define NASD_XDR_XDR_H

/*
 * Bounds-checked XDR cursor (RFC 4506). A decode never reads past @len and
 * an encode never writes past @len; every primitive returns false instead.
 * Once a primitive fails the cursor is poisoned (@pos > @len) so later
 * calls fail too and a codec may check only its final result.
 *
 * A cursor and primitives only: where the bytes live and how a reply's
 * pieces are sent (body segments, a payload that is not copied) is the
 * request's business (core/req.h).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct xdr_buf {
	uint8_t *base;
	size_t pos;
	size_t len;
};

static inline void xdr_init(struct xdr_buf *x, void *base, size_t len)
{
	x->base = base;
	x->pos = 0;
	x->len = len;
}

static inline size_t xdr_remaining(const struct xdr_buf *x)
{
	return x->pos <= x->len ? x->len - x->pos : 0;
}

static inline bool xdr_ok(const struct xdr_buf *x)
{
	return x->pos <= x->len;
}

static inline void xdr_poison(struct xdr_buf *x)
{
	x->pos = x->len + 1;
}

static inline size_t xdr_pad(size_t n)
{
	return (4 - (n & 3)) & 3;
}

/* Pointer to the next @n bytes (n multiple of 4 for alignment of later
 * items is the caller's business), advancing past them; NULL on overrun. */
static inline uint8_t *xdr_inline(struct xdr_buf *x, size_t n)
{
	uint8_t *p;

	if (xdr_remaining(x) < n || !xdr_ok(x)) {
		xdr_poison(x);
		return NULL;
	}
	p = x->base + x->pos;
	x->pos += n;
	return p;
}

static inline bool xdr_dec_u32(struct xdr_buf *x, uint32_t *v)
{
	const uint8_t *p = xdr_inline(x, 4);

	if (!p)
		return false;
	*v = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	     (uint32_t)p[2] << 8 | p[3];
	return true;
}

static inline bool xdr_dec_i32(struct xdr_buf *x, int32_t *v)
{
	uint32_t u;

	if (!xdr_dec_u32(x, &u))
		return false;
	*v = (int32_t)u;
	return true;
}

static inline bool xdr_dec_u64(struct xdr_buf *x, uint64_t *v)
{
	uint32_t hi, lo;

	if (!xdr_dec_u32(x, &hi) || !xdr_dec_u32(x, &lo))
		return false;
	*v = (uint64_t)hi << 32 | lo;
	return true;
}

/* RFC 4506 §4.4: only 0 and 1 are valid booleans. */
static inline bool xdr_dec_bool(struct xdr_buf *x, bool *v)
{
	uint32_t u;

	if (!xdr_dec_u32(x, &u) || u > 1) {
		xdr_poison(x);
		return false;
	}
	*v = u;
	return true;
}

/* Fixed-length opaque of @n bytes plus padding, copied to @dst. */
static inline bool xdr_dec_opaque_fixed(struct xdr_buf *x, void *dst,
					size_t n)
{
	const uint8_t *p = xdr_inline(x, n + xdr_pad(n));

	if (!p)
		return false;
	memcpy(dst, p, n);
	return true;
}

/*
 * Variable-length opaque<max> or string<max>, borrowed from the buffer:
 * *@p points into the receive buffer and stays valid as long as it does.
 * A length above @max poisons the cursor.
 */
static inline bool xdr_dec_opaque_ref(struct xdr_buf *x, const uint8_t **p,
				      uint32_t *len, uint32_t max)
{
	uint32_t n;

	if (!xdr_dec_u32(x, &n))
		return false;
	if (n > max || n > xdr_remaining(x)) {
		xdr_poison(x);
		return false;
	}
	*p = xdr_inline(x, n + xdr_pad(n));
	*len = n;
	return *p != NULL;
}

static inline bool xdr_enc_u32(struct xdr_buf *x, uint32_t v)
{
	uint8_t *p = xdr_inline(x, 4);

	if (!p)
		return false;
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
	return true;
}

static inline bool xdr_enc_u64(struct xdr_buf *x, uint64_t v)
{
	return xdr_enc_u32(x, (uint32_t)(v >> 32)) &&
	       xdr_enc_u32(x, (uint32_t)v);
}

static inline bool xdr_enc_bool(struct xdr_buf *x, bool v)
{
	return xdr_enc_u32(x, v ? 1 : 0);
}

static inline bool xdr_enc_opaque_fixed(struct xdr_buf *x, const void *src,
					size_t n)
{
	size_t pad = xdr_pad(n);
	uint8_t *p = xdr_inline(x, n + pad);

	if (!p)
		return false;
	if (n)
		memcpy(p, src, n);
	memset(p + n, 0, pad);
	return true;
}

static inline bool xdr_enc_opaque(struct xdr_buf *x, const void *src,
				  uint32_t n)
{
	return xdr_enc_u32(x, n) && xdr_enc_opaque_fixed(x, src, n);
}

#endif
