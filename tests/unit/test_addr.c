/* SPDX-License-Identifier: MIT */
/* Unit tests: core/addr (socket address parsing and formatting). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/addr.h"

/* @spec parses to @family and @port and formats back to @text. */
static void parses_to(const char *spec, uint16_t def, int family, uint16_t port,
		      const char *text)
{
	struct sockaddr_storage ss;
	char buf[ADDR_STR_MAX];
	socklen_t len = 0;

	assert_int_equal(addr_parse(spec, def, &ss, &len), 0);
	assert_int_equal(ss.ss_family, family);
	assert_int_equal(addr_port(&ss), port);
	assert_int_equal(len, family == AF_INET ? sizeof(struct sockaddr_in)
						: sizeof(struct sockaddr_in6));
	assert_int_equal(addr_len(&ss), len);
	assert_string_equal(addr_format(&ss, buf, sizeof(buf)), text);
}

static void test_parse_good(void **state)
{
	parses_to("1.2.3.4", 2049, AF_INET, 2049, "1.2.3.4:2049");
	parses_to("1.2.3.4:111", 2049, AF_INET, 111, "1.2.3.4:111");
	parses_to("0.0.0.0:0", 2049, AF_INET, 0, "0.0.0.0:0");
	parses_to("127.0.0.1:65535", 0, AF_INET, 65535, "127.0.0.1:65535");
	parses_to("[::1]:2049", 0, AF_INET6, 2049, "[::1]:2049");
	parses_to("[::1]", 111, AF_INET6, 111, "[::1]:111");
	parses_to("::1", 20048, AF_INET6, 20048, "[::1]:20048");
	/* Bare IPv6: the last group is part of the address, not a port. */
	parses_to("fe80::1:2", 7, AF_INET6, 7, "[fe80::1:2]:7");
	parses_to("[::ffff:127.0.0.1]:5", 0, AF_INET6, 5,
		  "[::ffff:127.0.0.1]:5");
}

static void test_parse_bad(void **state)
{
	static const char *const bad[] = {
		"",
		":",
		"1.2.3.4:",
		"1.2.3.4:65536",
		"1.2.3.4:99999999999",
		"1.2.3.4:+1",
		"1.2.3.4: 1",
		"1.2.3.4:-1",
		"1.2.3.4:1x",
		"1.2.3",
		"1.2.3.4.5",
		"localhost",
		"localhost:2049",
		"[::1",
		"[::1]x",
		"[::1]:",
		"[::1]:x",
		"[]:1",
		"1.2.3.4:1:2",
		"[1:2:3:4:5:6:7:8:9:10:11:12:13:14:15:16:17:18]:1",
		"1111:2222:3333:4444:5555:6666:7777:8888:9999",
	};
	struct sockaddr_storage ss;
	socklen_t len;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		print_message("bad: '%s'\n", bad[i]);
		assert_int_equal(addr_parse(bad[i], 1, &ss, &len), -EINVAL);
	}
}

static void test_format_edges(void **state)
{
	struct sockaddr_storage ss;
	char buf[ADDR_STR_MAX];
	char small[6];
	socklen_t len;

	memset(&ss, 0, sizeof(ss));
	ss.ss_family = AF_UNIX;
	assert_string_equal(addr_format(&ss, buf, sizeof(buf)), "?");
	assert_int_equal(addr_port(&ss), 0);
	assert_int_equal(addr_len(&ss), 0);
	assert_false(addr_is_any(&ss));
	assert_false(addr_is_loopback(&ss));
	/* A short buffer is cut, and still NUL-terminated. */
	assert_int_equal(addr_parse("10.0.0.1:2049", 0, &ss, &len), 0);
	assert_string_equal(addr_format(&ss, small, sizeof(small)), "10.0.");
	/* The longest text fits ADDR_STR_MAX. */
	assert_int_equal(addr_parse("[ffff:ffff:ffff:ffff:ffff:ffff:255.255."
				    "255.255]:65535",
				    0, &ss, &len),
			 0);
	addr_format(&ss, buf, sizeof(buf));
	assert_string_equal(buf, "[ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff]:"
				 "65535");
}

static void test_port_and_class(void **state)
{
	struct sockaddr_storage ss;
	socklen_t len;

	assert_int_equal(addr_parse("0.0.0.0", 1, &ss, &len), 0);
	assert_true(addr_is_any(&ss));
	assert_false(addr_is_loopback(&ss));
	addr_set_port(&ss, 4242);
	assert_int_equal(addr_port(&ss), 4242);
	assert_int_equal(((struct sockaddr_in *)&ss)->sin_port, htons(4242));

	assert_int_equal(addr_parse("::", 1, &ss, &len), 0);
	assert_true(addr_is_any(&ss));
	addr_set_port(&ss, 80);
	assert_int_equal(addr_port(&ss), 80);

	assert_int_equal(addr_parse("127.9.8.7", 1, &ss, &len), 0);
	assert_true(addr_is_loopback(&ss));
	assert_false(addr_is_any(&ss));
	assert_int_equal(addr_parse("128.0.0.1", 1, &ss, &len), 0);
	assert_false(addr_is_loopback(&ss));
	assert_int_equal(addr_parse("::1", 1, &ss, &len), 0);
	assert_true(addr_is_loopback(&ss));
	assert_int_equal(addr_parse("::ffff:127.0.0.2", 1, &ss, &len), 0);
	assert_true(addr_is_loopback(&ss));
	assert_int_equal(addr_parse("::ffff:10.0.0.2", 1, &ss, &len), 0);
	assert_false(addr_is_loopback(&ss));
	assert_int_equal(addr_parse("::2", 1, &ss, &len), 0);
	assert_false(addr_is_loopback(&ss));
	assert_false(addr_is_any(&ss));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_good),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_format_edges),
		cmocka_unit_test(test_port_and_class),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
