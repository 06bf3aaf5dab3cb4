// SPDX-License-Identifier: MIT
/*
 * XDR cursor primitives (src/xdr/xdr.h, RFC 4506): exact byte layout,
 * padding, and that no primitive reads or writes past the buffer — every
 * overrun poisons the cursor so later calls fail too.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "xdr/xdr.h"

static void test_u32_u64_layout(void **state)
{
	uint8_t buf[12];
	struct xdr_buf x;
	uint32_t v;
	uint64_t w;

	(void)state;
	xdr_init(&x, buf, sizeof(buf));
	assert_true(xdr_enc_u32(&x, 0x01020304));
	assert_true(xdr_enc_u64(&x, 0x05060708090a0b0cULL));
	assert_int_equal(x.pos, 12);
	for (int i = 0; i < 12; i++)
		assert_int_equal(buf[i], i + 1);
	/* The buffer is full: one more byte is an overrun. */
	assert_false(xdr_enc_u32(&x, 1));
	assert_false(xdr_ok(&x));

	xdr_init(&x, buf, sizeof(buf));
	assert_true(xdr_dec_u32(&x, &v));
	assert_int_equal(v, 0x01020304);
	assert_true(xdr_dec_u64(&x, &w));
	assert_true(w == 0x05060708090a0b0cULL);
	assert_int_equal(xdr_remaining(&x), 0);
	assert_false(xdr_dec_u32(&x, &v));
}

static void test_truncated_poisons(void **state)
{
	uint8_t buf[6] = {0, 0, 0, 7, 0, 0};
	struct xdr_buf x;
	uint32_t v;
	uint64_t w;

	(void)state;
	xdr_init(&x, buf, sizeof(buf));
	assert_true(xdr_dec_u32(&x, &v));
	/* two bytes left: a u32 fails, and so does everything after it */
	assert_false(xdr_dec_u32(&x, &v));
	assert_false(xdr_ok(&x));
	assert_int_equal(xdr_remaining(&x), 0);
	assert_false(xdr_dec_u64(&x, &w));
	assert_null(xdr_inline(&x, 0));

	/* a u64 with only 6 bytes: fails without reading past the end */
	xdr_init(&x, buf, sizeof(buf));
	assert_false(xdr_dec_u64(&x, &w));
}

static void test_bool_strict(void **state)
{
	uint8_t buf[8] = {0, 0, 0, 1, 0, 0, 0, 2};
	struct xdr_buf x;
	bool b;

	(void)state;
	xdr_init(&x, buf, sizeof(buf));
	assert_true(xdr_dec_bool(&x, &b));
	assert_true(b);
	/* RFC 4506 §4.4: 2 is not a boolean */
	assert_false(xdr_dec_bool(&x, &b));
	assert_false(xdr_ok(&x));
}

static void test_opaque_ref_limits(void **state)
{
	/* length 5, "hello", 3 pad bytes, then length 0 */
	uint8_t buf[16] = {0, 0, 0, 5, 'h', 'e', 'l', 'l', 'o', 0, 0, 0,
			   0, 0, 0, 0};
	struct xdr_buf x;
	const uint8_t *p;
	uint32_t n;

	(void)state;
	xdr_init(&x, buf, sizeof(buf));
	assert_true(xdr_dec_opaque_ref(&x, &p, &n, 5));
	assert_int_equal(n, 5);
	assert_memory_equal(p, "hello", 5);
	assert_int_equal(x.pos, 12); /* padding consumed */
	assert_true(xdr_dec_opaque_ref(&x, &p, &n, 0));
	assert_int_equal(n, 0);

	/* over the protocol maximum */
	xdr_init(&x, buf, sizeof(buf));
	assert_false(xdr_dec_opaque_ref(&x, &p, &n, 4));
	assert_false(xdr_ok(&x));

	/* length larger than what remains (remaining + 1) */
	buf[3] = 13;
	xdr_init(&x, buf, sizeof(buf));
	assert_false(xdr_dec_opaque_ref(&x, &p, &n, 1000));

	/* data fits but its padding does not */
	buf[3] = 11;
	xdr_init(&x, buf, 4 + 11);
	assert_false(xdr_dec_opaque_ref(&x, &p, &n, 1000));

	/* a 0xffffffff length must not wrap any arithmetic */
	buf[0] = buf[1] = buf[2] = buf[3] = 0xff;
	xdr_init(&x, buf, sizeof(buf));
	assert_false(xdr_dec_opaque_ref(&x, &p, &n, UINT32_MAX));
}

static void test_opaque_fixed_and_pad(void **state)
{
	uint8_t buf[8];
	uint8_t out[3];
	struct xdr_buf x;

	(void)state;
	memset(buf, 0xee, sizeof(buf));
	xdr_init(&x, buf, sizeof(buf));
	assert_true(xdr_enc_opaque_fixed(&x, "abc", 3));
	assert_int_equal(x.pos, 4);
	assert_int_equal(buf[3], 0); /* pad bytes are zero */
	assert_false(xdr_enc_opaque(&x, "abcde", 5)); /* 4 + 8 > 4 left */

	xdr_init(&x, buf, 4);
	assert_true(xdr_dec_opaque_fixed(&x, out, 3));
	assert_memory_equal(out, "abc", 3);
	xdr_init(&x, buf, 3);
	assert_false(xdr_dec_opaque_fixed(&x, out, 3)); /* pad missing */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_u32_u64_layout),
		cmocka_unit_test(test_truncated_poisons),
		cmocka_unit_test(test_bool_strict),
		cmocka_unit_test(test_opaque_ref_limits),
		cmocka_unit_test(test_opaque_fixed_and_pad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
