/* SPDX-License-Identifier: MIT */
/*
 * Unit tests: the transport's frame decoder (transport/frame.h) with RPC
 * record marking (RFC 5531 §11, rpc_rm_parse) as its framing, and with a
 * one-frame-per-message framing like SMB2's direct TCP (MS-SMB2 §2.1).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/iobuf.h"
#include "rpc/rpc.h"
#include "transport/frame.h"

#define RM_LAST_FRAG RPC_RM_LAST_FRAG
#define DEF_MAX ((1u << 20) + (64u << 10))

static const struct frame_ops rpc_ops = {
	.hdr_len = RPC_RM_HDR_LEN,
	.parse = rpc_rm_parse,
};

static size_t put_hdr(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
	return 4;
}

static void test_single_fragment(void **state)
{
	struct frame_decoder d;
	uint8_t buf[16];
	size_t n = 0, len;
	uint8_t *rec;
	struct iobuf *ib;

	(void)state;
	frame_init(&d, &rpc_ops, DEF_MAX);
	n += put_hdr(buf, RM_LAST_FRAG | 5);
	memcpy(buf + n, "hello", 5);
	n += 5;
	assert_int_equal(frame_decode(&d, buf, n), (ssize_t)n);
	assert_true(frame_complete(&d));
	/* Nothing more is consumed until the record is taken. */
	assert_int_equal(frame_decode(&d, buf, n), 0);
	rec = frame_take(&d, &len, &ib);
	assert_int_equal(len, 5);
	assert_memory_equal(rec, "hello", 5);
	iobuf_put(ib);
	assert_false(frame_complete(&d));
	assert_int_equal(frame_decode(&d, buf, 0), 0);
	frame_destroy(&d);
}

/* The same stream fed whole and one byte at a time. */
static void feed_bytewise(struct frame_decoder *d, const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		assert_false(frame_complete(d));
		assert_int_equal(frame_decode(d, p + i, 1), 1);
	}
}

static void test_one_byte_fragments(void **state)
{
	struct frame_decoder d;
	uint8_t buf[1000];
	size_t n = 0, len, i;
	const uint8_t *rec;

	(void)state;
	for (i = 0; i < 100; i++) {
		n += put_hdr(buf + n, (i == 99 ? RM_LAST_FRAG : 0) | 1);
		buf[n++] = (uint8_t)i;
	}
	frame_init(&d, &rpc_ops, DEF_MAX);
	assert_int_equal(frame_decode(&d, buf, n), (ssize_t)n);
	assert_true(frame_complete(&d));
	assert_int_equal(d.msg_len, 100);
	for (i = 0; i < 100; i++)
		assert_int_equal(d.msg[i], i);
	frame_done(&d);

	feed_bytewise(&d, buf, n);
	assert_true(frame_complete(&d));
	rec = d.msg;
	len = d.msg_len;
	assert_int_equal(len, 100);
	assert_int_equal(rec[99], 99);
	frame_destroy(&d);
}

static void test_empty_fragments(void **state)
{
	struct frame_decoder d;
	uint8_t buf[64];
	size_t n = 0, len;
	uint8_t *rec;
	struct iobuf *ib;

	(void)state;
	n += put_hdr(buf + n, 0);
	n += put_hdr(buf + n, 2);
	buf[n++] = 'a';
	buf[n++] = 'b';
	n += put_hdr(buf + n, 0);
	n += put_hdr(buf + n, 0);
	n += put_hdr(buf + n, 1);
	buf[n++] = 'c';
	n += put_hdr(buf + n, RM_LAST_FRAG | 0);
	frame_init(&d, &rpc_ops, DEF_MAX);
	assert_int_equal(frame_decode(&d, buf, n), (ssize_t)n);
	assert_true(frame_complete(&d));
	rec = frame_take(&d, &len, &ib);
	assert_int_equal(len, 3);
	assert_memory_equal(rec, "abc", 3);
	iobuf_put(ib);

	/* An empty record: a lone empty last fragment. */
	n = put_hdr(buf, RM_LAST_FRAG);
	assert_int_equal(frame_decode(&d, buf, n), 4);
	assert_true(frame_complete(&d));
	rec = frame_take(&d, &len, &ib);
	assert_int_equal(len, 0);
	iobuf_put(ib);
	frame_destroy(&d);
}

static void test_last_fragment_bit(void **state)
{
	struct frame_decoder d;
	uint8_t buf[64];
	size_t n = 0, first;

	(void)state;
	n += put_hdr(buf + n, 3);
	memcpy(buf + n, "abc", 3);
	n += 3;
	frame_init(&d, &rpc_ops, DEF_MAX);
	assert_int_equal(frame_decode(&d, buf, n), (ssize_t)n);
	assert_false(frame_complete(&d));
	assert_int_equal(d.msg_len, 3);

	/* Two records back to back: the decoder stops after the first. */
	n = 0;
	n += put_hdr(buf + n, RM_LAST_FRAG | 2);
	memcpy(buf + n, "de", 2);
	n += 2;
	first = n;
	n += put_hdr(buf + n, RM_LAST_FRAG | 1);
	buf[n++] = 'z';
	assert_int_equal(frame_decode(&d, buf, n), (ssize_t)first);
	assert_true(frame_complete(&d));
	assert_int_equal(d.msg_len, 5);
	assert_memory_equal(d.msg, "abcde", 5);
	frame_done(&d);
	assert_int_equal(frame_decode(&d, buf + first, n - first),
			 (ssize_t)(n - first));
	assert_true(frame_complete(&d));
	assert_int_equal(d.msg_len, 1);
	assert_int_equal(d.msg[0], 'z');
	frame_destroy(&d);
}

static void test_oversized_header(void **state)
{
	struct frame_decoder d;
	uint8_t buf[8];

	(void)state;
	frame_init(&d, &rpc_ops, DEF_MAX);
	put_hdr(buf, 0x7fffffff);
	assert_int_equal(frame_decode(&d, buf, 4), -EMSGSIZE);
	assert_null(d.msg);
	assert_int_equal(d.msg_cap, 0);
	frame_destroy(&d);

	frame_init(&d, &rpc_ops, DEF_MAX);
	put_hdr(buf, 0xffffffff);
	/* split header: the error comes with its last byte */
	assert_int_equal(frame_decode(&d, buf, 3), 3);
	assert_int_equal(frame_decode(&d, buf + 3, 1), -EMSGSIZE);
	assert_null(d.msg);
	frame_destroy(&d);

	/* One byte over the default limit. */
	frame_init(&d, &rpc_ops, DEF_MAX);
	put_hdr(buf, RM_LAST_FRAG | (DEF_MAX + 1));
	assert_int_equal(frame_decode(&d, buf, 4), -EMSGSIZE);
	assert_null(d.msg);
	frame_destroy(&d);
}

static void test_record_over_max_across_fragments(void **state)
{
	struct frame_decoder d;
	uint8_t buf[256];
	size_t n = 0, cap;

	(void)state;
	memset(buf, 'x', sizeof(buf));
	frame_init(&d, &rpc_ops, 100);
	n += put_hdr(buf + n, 60);
	n += 60;
	assert_int_equal(frame_decode(&d, buf, n), (ssize_t)n);
	cap = d.msg_cap;
	put_hdr(buf, 41);
	assert_int_equal(frame_decode(&d, buf, 4), -EMSGSIZE);
	/* Refused before growing the buffer. */
	assert_int_equal(d.msg_cap, cap);
	assert_int_equal(d.msg_len, 60);
	frame_destroy(&d);

	/* Exactly at the limit is fine. */
	frame_init(&d, &rpc_ops, 100);
	n = put_hdr(buf, 60);
	memset(buf + 4, 'x', 60);
	n += 60;
	n += put_hdr(buf + n, RM_LAST_FRAG | 40);
	memset(buf + n, 'y', 40);
	n += 40;
	assert_int_equal(frame_decode(&d, buf, n), (ssize_t)n);
	assert_true(frame_complete(&d));
	assert_int_equal(d.msg_len, 100);
	assert_int_equal(d.msg[99], 'y');
	frame_destroy(&d);
}

static void test_direct_body(void **state)
{
	struct frame_decoder d;
	uint8_t hdr[4];
	uint8_t *p;
	size_t want, len;
	struct iobuf *ib;

	(void)state;
	frame_init(&d, &rpc_ops, DEF_MAX);
	assert_null(frame_body_space(&d, &want));
	put_hdr(hdr, RM_LAST_FRAG | 10000);
	assert_int_equal(frame_decode(&d, hdr, 4), 4);
	/* Allocated for the announced fragment, before its data came. */
	assert_true(d.msg_cap >= 10000);
	p = frame_body_space(&d, &want);
	assert_non_null(p);
	assert_int_equal(want, 10000);
	memset(p, 'q', 4000);
	frame_body_advance(&d, 4000);
	assert_false(frame_complete(&d));
	p = frame_body_space(&d, &want);
	assert_int_equal(want, 6000);
	memset(p, 'r', 6000);
	frame_body_advance(&d, 6000);
	assert_true(frame_complete(&d));
	p = frame_take(&d, &len, &ib);
	assert_int_equal(len, 10000);
	assert_int_equal(p[0], 'q');
	assert_int_equal(p[9999], 'r');
	assert_non_null(ib);
	iobuf_put(ib);
	frame_destroy(&d);
}

/* Test hint: the byte at offset 300 of the record should be aligned. */
static size_t hint_300(const uint8_t *head, size_t len)
{
	assert_int_equal(len, FRAME_HEAD_MAX);
	assert_int_equal(head[0], 0xab);
	return 300;
}

static const struct frame_ops rpc_ops_hint = {
	.hdr_len = RPC_RM_HDR_LEN,
	.parse = rpc_rm_parse,
	.align = hint_300,
};

/* A large record fed in odd pieces lands with its byte 300 aligned. */
static void test_align_hint(void **state)
{
	const size_t rlen = 100000;
	struct frame_decoder d;
	struct iobuf *ib;
	uint8_t *stream, *rec;
	size_t i, off = 0, len, piece = 777;
	ssize_t n;

	(void)state;
	stream = malloc(rlen + 4);
	assert_non_null(stream);
	put_hdr(stream, RM_LAST_FRAG | (uint32_t)rlen);
	for (i = 0; i < rlen; i++)
		stream[4 + i] = (uint8_t)(i * 7 + 1);
	stream[4] = 0xab;
	frame_init(&d, &rpc_ops_hint, DEF_MAX);
	while (off < rlen + 4) {
		len = rlen + 4 - off < piece ? rlen + 4 - off : piece;
		n = frame_decode(&d, stream + off, len);
		assert_int_equal(n, (ssize_t)len);
		off += len;
	}
	assert_true(frame_complete(&d));
	rec = frame_take(&d, &len, &ib);
	assert_int_equal(len, rlen);
	assert_memory_equal(rec, stream + 4, rlen);
	assert_int_equal((uintptr_t)(rec + 300) % IOBUF_ALIGN, 0);
	iobuf_put(ib);
	frame_destroy(&d);
	free(stream);
}

/*
 * At the memory ceiling the decoder stops consuming and asks again later;
 * nothing is lost or duplicated.
 */
static void test_need_mem(void **state)
{
	const size_t rlen = 200000;
	struct iobuf *hog[256], *ib;
	struct frame_decoder d;
	uint8_t *stream, *rec;
	size_t i, nhog = 0, len;
	ssize_t n;

	(void)state;
	iobuf_set_max_memory(IOBUF_MIN_MAX_MEMORY);
	iobuf_trim();
	/* Fill the pool to the ceiling, big pieces first. */
	for (len = 1u << 20; len >= 4096; len /= 16)
		while (nhog < 256 && (hog[nhog] = iobuf_alloc(len)) != NULL)
			nhog++;
	assert_true(nhog > 0 && nhog < 256);
	assert_null(iobuf_alloc(4096));
	stream = malloc(rlen + 4);
	assert_non_null(stream);
	put_hdr(stream, RM_LAST_FRAG | (uint32_t)rlen);
	for (i = 0; i < rlen; i++)
		stream[4 + i] = (uint8_t)(i % 251);
	frame_init(&d, &rpc_ops_hint, DEF_MAX);
	stream[4] = 0xab;
	n = frame_decode(&d, stream, 4 + FRAME_HEAD_MAX + 10);
	/* Header and head consumed, then refused: the rest is not taken. */
	assert_int_equal(n, 4 + FRAME_HEAD_MAX);
	assert_true(frame_need_mem(&d));
	assert_int_equal(frame_decode(&d, stream + n, 10), 0);
	assert_false(frame_retry(&d));
	while (nhog)
		iobuf_put(hog[--nhog]);
	assert_true(frame_retry(&d));
	assert_false(frame_need_mem(&d));
	assert_int_equal(frame_decode(&d, stream + n, rlen + 4 - (size_t)n),
			 (ssize_t)(rlen + 4 - (size_t)n));
	assert_true(frame_complete(&d));
	rec = frame_take(&d, &len, &ib);
	assert_int_equal(len, rlen);
	assert_memory_equal(rec, stream + 4, rlen);
	iobuf_put(ib);
	frame_destroy(&d);
	free(stream);
	iobuf_set_max_memory(0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_single_fragment),
		cmocka_unit_test(test_one_byte_fragments),
		cmocka_unit_test(test_empty_fragments),
		cmocka_unit_test(test_last_fragment_bit),
		cmocka_unit_test(test_oversized_header),
		cmocka_unit_test(test_record_over_max_across_fragments),
		cmocka_unit_test(test_direct_body),
		cmocka_unit_test(test_align_hint),
		cmocka_unit_test(test_need_mem),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
