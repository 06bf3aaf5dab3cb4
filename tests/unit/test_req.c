/* SPDX-License-Identifier: MIT */
/*
 * Unit tests: requests (core/req.h): the arena, the reply chain (head
 * room, segments that never move, payload and padding), and payloads
 * (release, fill).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/iobuf.h"
#include "core/req.h"

static void test_arena(void **state)
{
	uint8_t small[256];
	uint8_t *p, *q, *big;
	struct req r;
	int i;

	(void)state;
	req_init(&r, small, sizeof(small));
	p = req_alloc(&r, 100);
	assert_true(p >= small && p < small + sizeof(small));
	assert_int_equal((uintptr_t)p % 16, 0);
	q = req_alloc(&r, 200); /* overflows into a chunk */
	assert_non_null(q);
	assert_true(q < small || q >= small + sizeof(small));
	big = req_alloc(&r, 1 << 20);
	assert_non_null(big);
	for (i = 0; i < (1 << 20); i++)
		assert_int_equal(big[i], 0);
	for (i = 0; i < 100; i++)
		assert_non_null(req_alloc(&r, 1000));
	/* Sizes that would wrap are refused, not rounded into tiny ones. */
	assert_null(req_alloc(&r, SIZE_MAX));
	assert_null(req_alloc(&r, SIZE_MAX - 8));
	req_finish(&r);
	assert_null(r.arena_overflow);
}

/* The reply as bytes, through req_reply_copy(). */
static size_t flat(const struct req *r, uint8_t *out, size_t max)
{
	ssize_t n = req_reply_copy(r, 0, out, max);

	assert_true(n >= 0);
	assert_int_equal((size_t)n, req_reply_len(r) < max ? req_reply_len(r)
							    : max);
	return (size_t)n;
}

static void test_chain(void **state)
{
	static uint8_t arena[16384];
	uint8_t out[256], *b0, *b1, *h;
	struct iovec iov[REQ_MAX_IOV];
	struct req r;
	int n;

	(void)state;
	req_init(&r, arena, sizeof(arena));
	assert_int_equal(req_reply_len(&r), 0);
	assert_null(req_reply_prepend(&r, 4)); /* no reply begun */
	b0 = req_reply_start(&r, 8);
	assert_non_null(b0);
	memcpy(b0, "abcdef", 6);
	/* Segment 0 is full at 6 of 8: continue in a new one. */
	b1 = req_reply_extend(&r, 6, 16);
	assert_non_null(b1);
	memcpy(b1, "ghij", 4);
	req_reply_used(&r, 4);
	/* Earlier bytes did not move. */
	assert_memory_equal(b0, "abcdef", 6);
	assert_int_equal(req_reply_body_len(&r), 10);
	/* Headers go in front, the last prepended first. */
	h = req_reply_prepend(&r, 2);
	assert_non_null(h);
	memcpy(h, "HH", 2);
	h = req_reply_prepend(&r, 1);
	memcpy(h, "F", 1);
	assert_int_equal(req_reply_len(&r), 13);
	assert_int_equal(flat(&r, out, sizeof(out)), 13);
	assert_memory_equal(out, "FHHabcdefghij", 13);
	/* The head and segment 0 are one iovec. */
	n = req_reply_iov(&r, iov);
	assert_int_equal(n, 2);
	assert_int_equal(iov[0].iov_len, 9);
	assert_int_equal(iov[1].iov_len, 4);
	/* A part of it. */
	assert_int_equal(req_reply_copy(&r, 5, out, 4), 4);
	assert_memory_equal(out, "cdef", 4);
	assert_int_equal(req_reply_copy(&r, 12, out, 10), 1);
	assert_int_equal(req_reply_copy(&r, 13, out, 10), 0);
	/* The head room is bounded. */
	assert_null(req_reply_prepend(&r, REQ_HEAD_ROOM));
	assert_non_null(req_reply_prepend(&r, REQ_HEAD_ROOM - 3));
	assert_null(req_reply_prepend(&r, 1));
	/* Starting again drops everything. */
	b0 = req_reply_start(&r, 4);
	assert_non_null(b0);
	assert_int_equal(req_reply_len(&r), 0);
	req_reply_used(&r, 9); /* more than the capacity: clamped */
	assert_int_equal(req_reply_body_len(&r), 4);
	req_finish(&r);
}

/* Segments run out at REQ_MAX_SEGS; the open one then stays as it was. */
static void test_chain_segments(void **state)
{
	static uint8_t arena[16384];
	struct req r;
	uint8_t *b;
	int i;

	(void)state;
	req_init(&r, arena, sizeof(arena));
	b = req_reply_start(&r, 4);
	assert_non_null(b);
	for (i = 1; i < REQ_MAX_SEGS; i++) {
		memcpy(b, "seg.", 4);
		b = req_reply_extend(&r, 4, 4);
		assert_non_null(b);
	}
	memcpy(b, "last", 4);
	assert_null(req_reply_extend(&r, 4, 4));
	req_reply_used(&r, 4);
	assert_int_equal(req_reply_len(&r), 4 * REQ_MAX_SEGS);
	req_finish(&r);
}

static void test_payload_buf(void **state)
{
	static uint8_t arena[16384];
	struct iobuf_stats st0, st1;
	struct payload p = { 0 };
	uint8_t out[64], *b;
	struct iovec iov[REQ_MAX_IOV];
	struct req r;

	(void)state;
	iobuf_stats(&st0);
	req_init(&r, arena, sizeof(arena));
	b = req_reply_start(&r, 8);
	memcpy(b, "len=", 4);
	req_reply_used(&r, 4);
	p.kind = PAYLOAD_BUF;
	p.buf = iobuf_alloc(4096);
	assert_non_null(p.buf);
	memcpy(p.buf->data, "xyzzy", 5);
	p.data = p.buf->data;
	p.len = 5;
	req_reply_set_payload(&r, &p, 3);
	/* Ownership moved: the caller's copy is empty. */
	assert_int_equal(p.kind, PAYLOAD_NONE);
	assert_int_equal(req_reply_len(&r), 12);
	assert_int_equal(flat(&r, out, sizeof(out)), 12);
	assert_memory_equal(out, "len=xyzzy\0\0\0", 12);
	assert_int_equal(req_reply_iov(&r, iov), 3);
	/* The buffer goes back with the request. */
	iobuf_stats(&st1);
	assert_true(st1.in_use > st0.in_use);
	req_finish(&r);
	iobuf_stats(&st1);
	assert_int_equal(st1.in_use, st0.in_use);
}

/* A file-range payload's keeper and reader, as the vfs gives them. */
static int released;

static void fk_release(void *arg)
{
	(void)arg;
	released++;
}

static int fk_fill(void *arg, int fd, uint64_t off, void *dst, size_t len)
{
	(void)arg;
	if (pread(fd, dst, len, (off_t)off) != (ssize_t)len)
		return -EIO;
	return 0;
}

static const struct payload_file_ops fk_ops = {
	.release = fk_release,
	.fill = fk_fill,
};

static void test_payload_file(void **state)
{
	static uint8_t arena[16384];
	char path[] = "/tmp/nasd-test-req.XXXXXX";
	struct iovec iov[REQ_MAX_IOV];
	struct payload p = { 0 };
	uint8_t out[64];
	struct req r;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	unlink(path);
	assert_int_equal(write(fd, "0123456789", 10), 10);
	req_init(&r, arena, sizeof(arena));
	assert_non_null(req_reply_start(&r, 4));
	req_reply_used(&r, 0);
	p.kind = PAYLOAD_FILE;
	p.fd = fd;
	p.off = 2;
	p.len = 5;
	p.ops = &fk_ops;
	p.arg = NULL;
	req_reply_set_payload(&r, &p, 3);
	/* The range has no bytes in memory: copying it is refused. */
	assert_int_equal(req_reply_copy(&r, 0, out, sizeof(out)), -EINVAL);
	assert_int_equal(req_reply_iov(&r, iov), 2);
	assert_null(iov[0].iov_base);
	assert_int_equal(iov[0].iov_len, 5);
	/* Filled: a buffer payload with the same bytes; the keeper goes. */
	released = 0;
	assert_int_equal(payload_fill(&r.reply.payload), 0);
	assert_int_equal(released, 1);
	assert_int_equal(r.reply.payload.kind, PAYLOAD_BUF);
	assert_int_equal(flat(&r, out, sizeof(out)), 8);
	assert_memory_equal(out, "23456\0\0\0", 8);
	req_finish(&r);
	/* A range the file no longer holds: the fill fails, nothing lost. */
	req_init(&r, arena, sizeof(arena));
	assert_non_null(req_reply_start(&r, 4));
	p.kind = PAYLOAD_FILE;
	p.fd = fd;
	p.off = 8;
	p.len = 5;
	p.ops = &fk_ops;
	req_reply_set_payload(&r, &p, 0);
	released = 0;
	assert_int_equal(payload_fill(&r.reply.payload), -EIO);
	assert_int_equal(r.reply.payload.kind, PAYLOAD_FILE);
	assert_int_equal(released, 0);
	/* Dropping it releases the keeper once. */
	req_reply_drop_payload(&r);
	assert_int_equal(released, 1);
	req_finish(&r);
	assert_int_equal(released, 1);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arena),
		cmocka_unit_test(test_chain),
		cmocka_unit_test(test_chain_segments),
		cmocka_unit_test(test_payload_buf),
		cmocka_unit_test(test_payload_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
