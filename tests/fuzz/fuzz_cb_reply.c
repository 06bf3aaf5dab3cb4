/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: a client's reply to the server's CB_COMPOUND
 * (CB_SEQUENCE, CB_RECALL or CB_GETATTR) on the NFSv4.1 back channel or
 * the 4.0 callback path (nfs4_cb_reply(), src/nfs4/state/backchannel.c):
 * the RPC reply header, then CB_COMPOUND4res (RFC 8881 §20.2, §20.9,
 * §20.1: CB_GETATTR's fattr4 of change and size).
 *
 * Input: the reply record as it arrives on the connection. The parser
 * must read only what it is given, answer a status for any input, and
 * NFS4_OK only for a record that says so: a reply accepted with SUCCESS
 * whose results all succeeded. That is checked against a second,
 * independent reading of the record.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "nfs4/state/state_int.h"

static int rd(const uint8_t *d, size_t n, size_t *o, uint32_t *v)
{
	if (n - *o < 4 || *o > n)
		return 0;
	*v = (uint32_t)d[*o] << 24 | (uint32_t)d[*o + 1] << 16 |
	     (uint32_t)d[*o + 2] << 8 | d[*o + 3];
	*o += 4;
	return 1;
}

static int skip(size_t n, size_t *o, size_t k)
{
	if (*o > n || n - *o < k)
		return 0;
	*o += k;
	return 1;
}

/* A CB_GETATTR4resok of change (bit 3) and size (bit 4) only. */
static int attrs_ok(const uint8_t *d, size_t n, size_t *o)
{
	uint32_t cnt, w, w0 = 0, len, i, bits;

	if (!rd(d, n, o, &cnt) || cnt > 3)
		return 0;
	for (i = 0; i < cnt; i++) {
		if (!rd(d, n, o, &w) || (i > 0 && w))
			return 0;
		if (i == 0)
			w0 = w;
	}
	if (w0 & ~0x18u)
		return 0;
	bits = ((w0 >> 3) & 1) + ((w0 >> 4) & 1);
	return rd(d, n, o, &len) && len == 8 * bits && skip(n, o, len);
}

/* The reference: does the record say "all done"? */
static int all_ok(const uint8_t *d, size_t n)
{
	size_t o = 0;
	uint32_t v, len, cnt, op, st, i;

	for (i = 0; i < 3; i++) /* xid, REPLY, MSG_ACCEPTED */
		if (!rd(d, n, &o, &v) || (i == 1 && v != 1) ||
		    (i == 2 && v != 0))
			return 0;
	if (!rd(d, n, &o, &v) || !rd(d, n, &o, &len) || len > 400 ||
	    !skip(n, &o, (len + 3) & ~3u))
		return 0;
	if (!rd(d, n, &o, &v) || v != 0) /* SUCCESS */
		return 0;
	if (!rd(d, n, &o, &st) || !rd(d, n, &o, &len) || len > 1024 ||
	    !skip(n, &o, (len + 3) & ~3u) || !rd(d, n, &o, &cnt))
		return 0;
	for (i = 0; i < cnt; i++) {
		if (!rd(d, n, &o, &op) || !rd(d, n, &o, &v))
			return 0;
		if (v != 0)
			return 0;
		if (op == 11 && !skip(n, &o, 16 + 16))
			return 0;
		if (op == 3 && !attrs_ok(d, n, &o))
			return 0;
	}
	return st == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size ? size : 1);
	struct nfs4_cb_attrs a;
	uint32_t st;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	st = nfs4_cb_reply(copy, size, &a);
	if ((st == NFS4_OK) != (all_ok(copy, size) != 0))
		abort();
	free(copy);
	return 0;
}
