/* SPDX-License-Identifier: MIT */
/*
 * Unit tests: the SMB2 wire basics: the little-endian cursor (bounds,
 * poisoning, (offset, length) ranges that must not wrap), UTF-16LE
 * conversion (strict both ways) and the stream part of a CREATE name.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "smb2/smb2_buf.h"
#include "smb2/smb2_stream.h"
#include "smb2/smb2_wire.h"
#include "smb2/utf16.h"

static void test_buf_layout(void **state)
{
	uint8_t b[15];
	struct smb2_buf x;
	uint64_t q;
	uint32_t w;
	uint16_t h;
	uint8_t c;

	(void)state;
	sb_init(&x, b, sizeof(b));
	assert_true(sb_put_u8(&x, 0xfe) && sb_put_u16(&x, 0x534d) &&
		    sb_put_u32(&x, 0x11223344) &&
		    sb_put_u64(&x, 0x0102030405060708ull));
	assert_int_equal(x.pos, 15);
	assert_memory_equal(b, "\xfe\x4d\x53\x44\x33\x22\x11"
			       "\x08\x07\x06\x05\x04\x03\x02\x01", 15);
	/* full: the next put fails and poisons */
	assert_false(sb_put_u8(&x, 0));
	assert_false(sb_ok(&x));
	assert_false(sb_put_u8(&x, 0));
	sb_init(&x, b, sizeof(b));
	assert_true(sb_get_u8(&x, &c) && c == 0xfe);
	assert_true(sb_get_u16(&x, &h) && h == 0x534d);
	assert_true(sb_get_u32(&x, &w) && w == 0x11223344);
	assert_true(sb_get_u64(&x, &q) && q == 0x0102030405060708ull);
	assert_int_equal(sb_remaining(&x), 0);
	assert_false(sb_get_u8(&x, &c));
	/* a read that does not fit leaves nothing read and poisons */
	sb_init(&x, b, 3);
	assert_false(sb_get_u32(&x, &w));
	assert_false(sb_get_u8(&x, &c));
}

static void test_buf_pad(void **state)
{
	uint8_t b[16];
	struct smb2_buf x;

	(void)state;
	memset(b, 0xaa, sizeof(b));
	sb_init(&x, b, sizeof(b));
	assert_true(sb_put_u8(&x, 1));
	assert_true(sb_pad_to(&x, 8, true));
	assert_int_equal(x.pos, 8);
	assert_memory_equal(b + 1, "\0\0\0\0\0\0\0", 7);
	/* already aligned: nothing */
	assert_true(sb_pad_to(&x, 8, true));
	assert_int_equal(x.pos, 8);
	assert_true(sb_skip(&x, 7));
	assert_true(sb_pad_to(&x, 16, true));
	assert_int_equal(x.pos, 16);
	/* padding that does not fit fails */
	sb_init(&x, b, 12);
	assert_true(sb_skip(&x, 9));
	assert_false(sb_pad_to(&x, 8, false));
	assert_false(sb_ok(&x));
}

static void test_buf_range(void **state)
{
	uint8_t b[100];
	struct smb2_buf x, r;

	(void)state;
	sb_init(&x, b, sizeof(b));
	assert_true(sb_range(&x, 0, 100, &r));
	assert_int_equal(r.len, 100);
	assert_true(sb_range(&x, 100, 0, &r));
	assert_true(sb_range(&x, 64, 36, &r));
	assert_ptr_equal(r.base, b + 64);
	assert_false(sb_range(&x, 64, 37, &r));
	assert_false(sb_range(&x, 101, 0, &r));
	/* sums that would wrap a 32- or 64-bit addition */
	assert_false(sb_range(&x, 0xffffffffull, 2, &r));
	assert_false(sb_range(&x, 2, 0xffffffffffffffffull, &r));
	assert_false(sb_range(&x, 0xffffffffffffffffull,
			      0xffffffffffffffffull, &r));
}

static void u16(const char *ascii, uint8_t *out, size_t *n)
{
	size_t i;

	for (i = 0; ascii[i]; i++) {
		out[2 * i] = (uint8_t)ascii[i];
		out[2 * i + 1] = 0;
	}
	*n = 2 * i;
}

static void test_utf16(void **state)
{
	/* "a", U+00E9, U+20AC, U+1F600 (a surrogate pair) */
	static const uint8_t w[] = { 'a', 0, 0xe9, 0, 0xac, 0x20,
				     0x3d, 0xd8, 0x00, 0xde };
	static const char u8[] = "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80";
	uint8_t back[32];
	char out[32];
	size_t n;

	(void)state;
	assert_int_equal(utf16le_to_utf8(w, sizeof(w), out, sizeof(out), &n,
					 false), 0);
	assert_int_equal(n, sizeof(u8) - 1);
	assert_memory_equal(out, u8, n);
	assert_int_equal(utf16le_len_of_utf8(u8, sizeof(u8) - 1),
			 (long)sizeof(w));
	assert_int_equal(utf8_to_utf16le(u8, sizeof(u8) - 1, back,
					 sizeof(back), &n), 0);
	assert_int_equal(n, sizeof(w));
	assert_memory_equal(back, w, n);
	/* too small outputs */
	assert_int_equal(utf16le_to_utf8(w, sizeof(w), out, 9, &n, false),
			 -ENAMETOOLONG);
	assert_int_equal(utf8_to_utf16le(u8, sizeof(u8) - 1, back, 9, &n),
			 -ENAMETOOLONG);
	/* odd length, lone surrogates, a pair cut short */
	assert_int_equal(utf16le_to_utf8(w, 3, out, sizeof(out), &n, false),
			 -EINVAL);
	assert_int_equal(utf16le_to_utf8(w + 6, 2, out, sizeof(out), &n,
					 false),
			 -EINVAL);
	assert_int_equal(utf16le_to_utf8(w + 8, 2, out, sizeof(out), &n,
					 false),
			 -EINVAL);
	/* NUL only when asked */
	assert_int_equal(utf16le_to_utf8((const uint8_t *)"\0\0", 2, out,
					 sizeof(out), &n, false),
			 -EINVAL);
	assert_int_equal(utf16le_to_utf8((const uint8_t *)"\0\0", 2, out,
					 sizeof(out), &n, true),
			 0);
	/* ill-formed UTF-8: overlong, surrogate, past U+10FFFF, cut, NUL */
	assert_int_equal(utf8_to_utf16le("\xc0\xaf", 2, back, sizeof(back), &n),
			 -EINVAL);
	assert_int_equal(utf8_to_utf16le("\xe0\x80\xaf", 3, back, sizeof(back),
					 &n),
			 -EINVAL);
	assert_int_equal(utf8_to_utf16le("\xed\xa0\x80", 3, back, sizeof(back),
					 &n),
			 -EINVAL);
	assert_int_equal(utf8_to_utf16le("\xf4\x90\x80\x80", 4, back,
					 sizeof(back), &n),
			 -EINVAL);
	assert_int_equal(utf8_to_utf16le("\xe2\x82", 2, back, sizeof(back), &n),
			 -EINVAL);
	assert_int_equal(utf8_to_utf16le("a\0b", 3, back, sizeof(back), &n),
			 -EINVAL);
	assert_int_equal(utf16le_len_of_utf8("\xff", 1), -EINVAL);
}

static void test_utf16_upper(void **state)
{
	uint8_t in[32], out[32], want[32];
	size_t n, m;

	(void)state;
	u16("User1-x", in, &n);
	utf16le_upper(in, n, out);
	u16("USER1-X", want, &m);
	assert_memory_equal(out, want, n);
	/* U+00E9 -> U+00C9; a surrogate pair untouched */
	in[0] = 0xe9;
	in[1] = 0;
	in[2] = 0x3d;
	in[3] = 0xd8;
	in[4] = 0x00;
	in[5] = 0xde;
	utf16le_upper(in, 6, out);
	assert_int_equal(out[0], 0xc9);
	assert_int_equal(out[1], 0);
	assert_memory_equal(out + 2, in + 2, 4);
}

static uint32_t parse(const char *spec, const char **name, size_t *len)
{
	return smb2_stream_parse(spec, strlen(spec), name, len);
}

static void test_stream_names(void **state)
{
	char longname[SMB2_STREAM_NAME_MAX + 2], xname[300];
	const char *name, *dn;
	size_t len;

	(void)state;
	assert_int_equal(parse("zone", &name, &len), STATUS_SUCCESS);
	assert_int_equal(len, 4);
	assert_memory_equal(name, "zone", 4);
	assert_int_equal(parse("Zone.Identifier:$DaTa", &name, &len),
			 STATUS_SUCCESS);
	assert_int_equal(len, 15);
	/* the unnamed stream */
	assert_int_equal(parse(":$DATA", &name, &len), STATUS_SUCCESS);
	assert_int_equal(len, 0);
	/* NTFS allows these */
	assert_int_equal(parse("\x05Stream\n One", &name, &len),
			 STATUS_SUCCESS);
	assert_int_equal(parse("?Stream*", &name, &len), STATUS_SUCCESS);
	/* refused */
	assert_int_equal(parse("", &name, &len), STATUS_OBJECT_NAME_INVALID);
	assert_int_equal(parse("s:", &name, &len), STATUS_OBJECT_NAME_INVALID);
	assert_int_equal(parse("s:$FOO", &name, &len),
			 STATUS_OBJECT_NAME_INVALID);
	assert_int_equal(parse("s:$DATA:", &name, &len),
			 STATUS_OBJECT_NAME_INVALID);
	assert_int_equal(parse("s:$DATAX", &name, &len),
			 STATUS_OBJECT_NAME_INVALID);
	assert_int_equal(parse("a/b", &name, &len),
			 STATUS_OBJECT_NAME_INVALID);
	assert_int_equal(parse("a\\b", &name, &len),
			 STATUS_OBJECT_NAME_INVALID);
	assert_int_equal(smb2_stream_parse("a\0b", 3, &name, &len),
			 STATUS_OBJECT_NAME_INVALID);
	memset(longname, 'n', sizeof(longname));
	longname[SMB2_STREAM_NAME_MAX] = '\0';
	assert_int_equal(parse(longname, &name, &len), STATUS_SUCCESS);
	longname[SMB2_STREAM_NAME_MAX] = 'n';
	longname[SMB2_STREAM_NAME_MAX + 1] = '\0';
	assert_int_equal(parse(longname, &name, &len),
			 STATUS_OBJECT_NAME_INVALID);
	/* xattr names back to stream names */
	dn = smb2_stream_display("user.DosStream.zone:$DATA", &len);
	assert_non_null(dn);
	assert_int_equal(len, 4);
	assert_memory_equal(dn, "zone", 4);
	assert_null(smb2_stream_display("user.DosStream.:$DATA", &len));
	assert_null(smb2_stream_display("user.DosStream.zone", &len));
	assert_null(smb2_stream_display("user.DOSATTRIB", &len));
	assert_null(smb2_stream_display("user.zone:$DATA", &len));
	/* the longest name's xattr name fits XATTR_NAME_MAX */
	snprintf(xname, sizeof(xname), "%s%.*s%s", SMB2_STREAM_PREFIX,
		 SMB2_STREAM_NAME_MAX, longname, SMB2_STREAM_SUFFIX);
	assert_int_equal(strlen(xname), 255);
	assert_true(strlen(xname) < SMB2_STREAM_XNAME_SIZE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buf_layout),
		cmocka_unit_test(test_buf_pad),
		cmocka_unit_test(test_buf_range),
		cmocka_unit_test(test_utf16),
		cmocka_unit_test(test_utf16_upper),
		cmocka_unit_test(test_stream_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
