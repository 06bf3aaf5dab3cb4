/* SPDX-License-Identifier: MIT */
/*
 * Unit tests: FSCTL_QUERY_NETWORK_INTERFACE_INFO's pure parts
 * (src/smb2/smb2_netif.c): the NETWORK_INTERFACE_INFO encoder (MS-SMB2
 * §2.2.32.5) against bytes written out by hand from the spec's layout,
 * whole entries only when the room runs out, and which interface
 * addresses a set of listener addresses accepts.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/un.h>

#include <cmocka.h>

#include "smb2/smb2_netif.h"

static struct sockaddr_storage v4(const char *s)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *in = (struct sockaddr_in *)&ss;

	memset(&ss, 0, sizeof(ss));
	in->sin_family = AF_INET;
	in->sin_port = htons(445);
	assert_int_equal(inet_pton(AF_INET, s, &in->sin_addr), 1);
	return ss;
}

static struct sockaddr_storage v6(const char *s)
{
	struct sockaddr_storage ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;

	memset(&ss, 0, sizeof(ss));
	in6->sin6_family = AF_INET6;
	in6->sin6_port = htons(445);
	in6->sin6_flowinfo = htonl(7);
	in6->sin6_scope_id = 3;
	assert_int_equal(inet_pton(AF_INET6, s, &in6->sin6_addr), 1);
	return ss;
}

/*
 * The 152 bytes of one entry, laid out field by field from §2.2.32.5 and
 * §2.2.32.5.1.1/2 (not through the code under test).
 */
static void expect_entry(uint8_t e[152], uint32_t next, uint32_t idx,
			 uint32_t caps, uint64_t speed, uint16_t fam,
			 const uint8_t *addr, size_t alen)
{
	int i;

	memset(e, 0, 152);
	for (i = 0; i < 4; i++) {
		e[i] = (uint8_t)(next >> (8 * i));
		e[4 + i] = (uint8_t)(idx >> (8 * i));
		e[8 + i] = (uint8_t)(caps >> (8 * i));
	}
	for (i = 0; i < 8; i++)
		e[16 + i] = (uint8_t)(speed >> (8 * i));
	e[24] = (uint8_t)fam;
	e[25] = (uint8_t)(fam >> 8);
	/* Port (2 bytes) 0; IPv6 also FlowInfo (4) 0 before the address. */
	memcpy(e + (fam == 0x0002 ? 28 : 32), addr, alen);
}

static void test_enc_two(void **state)
{
	static const uint8_t a4[4] = {192, 0, 2, 7};
	static const uint8_t a6[16] = {0xfd, 0, 0, 0, 0, 0, 0, 0,
				       0,    0, 0, 0, 0, 0, 0, 2};
	struct smb2_netif ifs[2] = {
		{.ifindex = 4,
		 .caps = SMB2_NETIF_RSS_CAPABLE,
		 .speed = 10000000000ull,
		 .addr = v4("192.0.2.7")},
		{.ifindex = 4,
		 .caps = 0,
		 .speed = 1000000000,
		 .addr = v6("fd00::2")},
	};
	uint8_t buf[400], want[304];
	struct smb2_buf out;

	(void)state;
	expect_entry(want, 152, 4, 1, 10000000000ull, 0x0002, a4, 4);
	expect_entry(want + 152, 0, 4, 0, 1000000000, 0x0017, a6, 16);
	memset(buf, 0xaa, sizeof(buf));
	sb_init(&out, buf, sizeof(buf));
	assert_int_equal(smb2_enc_NETWORK_INTERFACE_INFO(ifs, 2, &out), 2);
	assert_int_equal(out.pos, 304);
	assert_memory_equal(buf, want, sizeof(want));
	/* nothing written past the list */
	assert_int_equal(buf[304], 0xaa);
}

static void test_enc_room(void **state)
{
	struct smb2_netif ifs[3] = {
		{.ifindex = 1, .speed = 1, .addr = v4("127.0.0.1")},
		{.ifindex = 1, .speed = 1, .addr = v6("::1")},
		{.ifindex = 2, .speed = 1, .addr = v4("192.0.2.2")},
	};
	uint8_t buf[3 * 152];
	struct smb2_buf out;
	uint32_t next;

	(void)state;
	/* Room for two and a half: two, the second one last (Next 0). */
	sb_init(&out, buf, 2 * 152 + 76);
	assert_int_equal(smb2_enc_NETWORK_INTERFACE_INFO(ifs, 3, &out), 2);
	assert_int_equal(out.pos, 304);
	assert_true(sb_ok(&out));
	memcpy(&next, buf, 4);
	assert_int_equal(le32toh(next), 152);
	memcpy(&next, buf + 152, 4);
	assert_int_equal(next, 0);
	/* One byte short of one entry: none at all, nothing written. */
	memset(buf, 0xaa, sizeof(buf));
	sb_init(&out, buf, 151);
	assert_int_equal(smb2_enc_NETWORK_INTERFACE_INFO(ifs, 3, &out), 0);
	assert_int_equal(out.pos, 0);
	assert_int_equal(buf[0], 0xaa);
	/* Exactly one. */
	sb_init(&out, buf, 152);
	assert_int_equal(smb2_enc_NETWORK_INTERFACE_INFO(ifs, 3, &out), 1);
	assert_int_equal(out.pos, 152);
	memcpy(&next, buf, 4);
	assert_int_equal(next, 0);
	/* An empty list is empty. */
	sb_init(&out, buf, sizeof(buf));
	assert_int_equal(smb2_enc_NETWORK_INTERFACE_INFO(ifs, 0, &out), 0);
	assert_int_equal(out.pos, 0);
}

static void test_enc_other_family(void **state)
{
	struct smb2_netif ifs[3] = {
		{.ifindex = 1, .speed = 1, .addr = v4("127.0.0.1")},
		{.ifindex = 9, .speed = 1},
		{.ifindex = 1, .speed = 1, .addr = v6("::1")},
	};
	uint8_t buf[3 * 152];
	struct smb2_buf out;
	uint32_t next, idx;

	(void)state;
	ifs[1].addr.ss_family = AF_UNIX;
	sb_init(&out, buf, sizeof(buf));
	/* Skipped, and the chain still ends on the last one written. */
	assert_int_equal(smb2_enc_NETWORK_INTERFACE_INFO(ifs, 3, &out), 2);
	assert_int_equal(out.pos, 304);
	memcpy(&next, buf, 4);
	assert_int_equal(le32toh(next), 152);
	memcpy(&idx, buf + 152 + 4, 4);
	assert_int_equal(le32toh(idx), 1);
	memcpy(&next, buf + 152, 4);
	assert_int_equal(next, 0);
	/* Room for one, the first two of another family: the IPv6 one. */
	sb_init(&out, buf, 152);
	ifs[0].addr.ss_family = AF_UNIX;
	assert_int_equal(smb2_enc_NETWORK_INTERFACE_INFO(ifs, 3, &out), 1);
	assert_int_equal(buf[24], 0x17);
}

static void test_accepted(void **state)
{
	struct sockaddr_storage ls[3], lo4 = v4("127.0.0.1"),
				       eth4 = v4("192.0.2.2"), lo6 = v6("::1"),
				       eth6 = v6("fd00::2");

	(void)state;
	/* No listeners: nothing accepted. */
	assert_false(smb2_netif_accepted(ls, 0, &lo4, true));
	/* One address: that one only, loopback or not. */
	ls[0] = v4("127.0.0.1");
	assert_true(smb2_netif_accepted(ls, 1, &lo4, true));
	assert_false(smb2_netif_accepted(ls, 1, &eth4, false));
	assert_false(smb2_netif_accepted(ls, 1, &lo6, true));
	ls[0] = v4("192.0.2.2");
	assert_true(smb2_netif_accepted(ls, 1, &eth4, false));
	assert_false(smb2_netif_accepted(ls, 1, &lo4, true));
	/* 0.0.0.0: every IPv4 address but loopback ones; no IPv6 (nasd
	 * binds IPv6 v6-only). */
	ls[0] = v4("0.0.0.0");
	assert_true(smb2_netif_accepted(ls, 1, &eth4, false));
	assert_false(smb2_netif_accepted(ls, 1, &lo4, true));
	assert_false(smb2_netif_accepted(ls, 1, &eth6, false));
	/* ... with 127.0.0.1 beside it, loopback too. */
	ls[1] = v4("127.0.0.1");
	assert_true(smb2_netif_accepted(ls, 2, &lo4, true));
	assert_true(smb2_netif_accepted(ls, 2, &eth4, false));
	/* ::: IPv6 only. */
	ls[0] = v6("::");
	assert_true(smb2_netif_accepted(ls, 1, &eth6, false));
	assert_false(smb2_netif_accepted(ls, 1, &lo6, true));
	assert_false(smb2_netif_accepted(ls, 1, &eth4, false));
	/* A specific IPv6 address, and the port never matters. */
	ls[0] = v6("::1");
	ls[1] = v4("192.0.2.2");
	((struct sockaddr_in *)&ls[1])->sin_port = htons(4455);
	ls[2] = v6("fd00::3");
	assert_true(smb2_netif_accepted(ls, 3, &lo6, true));
	assert_true(smb2_netif_accepted(ls, 3, &eth4, false));
	assert_false(smb2_netif_accepted(ls, 3, &eth6, false));
	assert_false(smb2_netif_accepted(ls, 3, &lo4, true));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_enc_two),
		cmocka_unit_test(test_enc_room),
		cmocka_unit_test(test_enc_other_family),
		cmocka_unit_test(test_accepted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
