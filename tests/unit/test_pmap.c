/* SPDX-License-Identifier: MIT */
/*
 * Unit tests: universal addresses (rpc/uaddr.h) and the port mapper
 * program nasd serves itself (rpc/pmap.h), driven through
 * rpc_process_record() on buffers, without sockets.
 */
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
#include "rpc/pmap.h"
#include "rpc/rpc.h"
#include "rpc/uaddr.h"

/* ---- universal addresses ---- */

static void uaddr_round_trip(const char *spec, const char *uaddr)
{
	struct sockaddr_storage ss, back;
	char buf[UADDR_MAX];
	socklen_t len, blen;

	assert_int_equal(addr_parse(spec, 0, &ss, &len), 0);
	assert_int_equal(uaddr_format(&ss, buf, sizeof(buf)),
			 (int)strlen(uaddr));
	assert_string_equal(buf, uaddr);
	assert_int_equal(uaddr_parse(uaddr, &back, &blen), 0);
	assert_int_equal(blen, len);
	assert_int_equal(back.ss_family, ss.ss_family);
	assert_int_equal(addr_port(&back), addr_port(&ss));
	assert_memory_equal(&back, &ss, len);
}

static void test_uaddr_good(void **state)
{
	uaddr_round_trip("127.0.0.1:2049", "127.0.0.1.8.1");
	uaddr_round_trip("0.0.0.0:111", "0.0.0.0.0.111");
	uaddr_round_trip("10.1.2.3:0", "10.1.2.3.0.0");
	uaddr_round_trip("1.2.3.4:65535", "1.2.3.4.255.255");
	uaddr_round_trip("[::1]:2049", "::1.8.1");
	uaddr_round_trip("[::]:111", "::.0.111");
	uaddr_round_trip("[fe80::1:2]:20048", "fe80::1:2.78.80");
	uaddr_round_trip("[::ffff:1.2.3.4]:1", "::ffff:1.2.3.4.0.1");
}

static void test_uaddr_bad(void **state)
{
	static const char *const bad[] = {
		"",
		".",
		"..",
		"1.2.3.4",
		"1.2.3.4.1",
		"1.2.3.4.1.",
		"1.2.3.4..1",
		"1.2.3.4.256.1",
		"1.2.3.4.1.256",
		"1.2.3.4.+1.2",
		"1.2.3.4. 1.2",
		"1.2.3.4.0001.2",
		"1.2.3.4.1.2x",
		"a.b.c.d.1.2",
		"1.2.3.1.2",
		"1.2.3.4:5.1.2",
		"[::1].1.2",
		"localhost.8.1",
		"::1:.8.1",
		"ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff.1.2",
	};
	struct sockaddr_storage ss;
	socklen_t len;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		print_message("bad: '%s'\n", bad[i]);
		assert_int_equal(uaddr_parse(bad[i], &ss, &len), -EINVAL);
	}
}

static void test_uaddr_format_edges(void **state)
{
	struct sockaddr_storage ss;
	char buf[UADDR_MAX];
	socklen_t len;

	memset(&ss, 0, sizeof(ss));
	ss.ss_family = AF_UNIX;
	assert_int_equal(uaddr_format(&ss, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(addr_parse("1.2.3.4:5", 0, &ss, &len), 0);
	/* "1.2.3.4.0.5" is 11 bytes: 11 do not hold its NUL, 12 do. */
	assert_int_equal(uaddr_format(&ss, buf, 11), -EINVAL);
	assert_int_equal(uaddr_format(&ss, buf, 12), 11);
	assert_int_equal(addr_parse("[ffff:ffff:ffff:ffff:ffff:ffff:255.255."
				    "255.255]:65535",
				    0, &ss, &len),
			 0);
	assert_true(uaddr_format(&ss, buf, sizeof(buf)) > 0);
}

/* ---- the program, through the dispatcher ---- */

enum { PMAP_SET = 1, PMAP_UNSET = 2, PMAP_GETPORT = 3, PMAP_DUMP = 4 };
enum {
	RPCB_SET = 1,
	RPCB_UNSET = 2,
	RPCB_GETADDR = 3,
	RPCB_DUMP = 4,
	RPCB_GETVERSADDR = 9,
};

#define TP 400700 /* test program numbers from here */

struct msg {
	uint8_t buf[1024];
	struct xdr_buf x;
};

static uint32_t next_xid = 1;

static void call(struct msg *m, uint32_t vers, uint32_t proc)
{
	xdr_init(&m->x, m->buf, sizeof(m->buf));
	assert_true(xdr_enc_u32(&m->x, next_xid++) &&
		    xdr_enc_u32(&m->x, CALL) &&
		    xdr_enc_u32(&m->x, RPC_VERSION) &&
		    xdr_enc_u32(&m->x, PMAP_PROGRAM) &&
		    xdr_enc_u32(&m->x, vers) && xdr_enc_u32(&m->x, proc) &&
		    xdr_enc_u32(&m->x, AUTH_NONE) && xdr_enc_u32(&m->x, 0) &&
		    xdr_enc_u32(&m->x, AUTH_NONE) && xdr_enc_u32(&m->x, 0));
}

static void enc_str(struct msg *m, const char *s)
{
	assert_true(xdr_enc_opaque(&m->x, s, (uint32_t)strlen(s)));
}

static void rpcb_call(struct msg *m, uint32_t proc, uint32_t prog,
		      uint32_t vers, const char *netid, const char *uaddr)
{
	call(m, 4, proc);
	assert_true(xdr_enc_u32(&m->x, prog) && xdr_enc_u32(&m->x, vers));
	enc_str(m, netid);
	enc_str(m, uaddr);
	enc_str(m, "0");
}

static void pmap_call(struct msg *m, uint32_t proc, uint32_t prog,
		      uint32_t vers, uint32_t prot, uint32_t port)
{
	call(m, 2, proc);
	assert_true(xdr_enc_u32(&m->x, prog) && xdr_enc_u32(&m->x, vers) &&
		    xdr_enc_u32(&m->x, prot) && xdr_enc_u32(&m->x, port));
}

struct reply {
	uint8_t bytes[8192];
	struct xdr_buf body; /* the results, after the accepted header */
};

static uint8_t arena[16384];

/* Run @m as if from @peer ("1.2.3.4:port"); the reply must be SUCCESS. */
static void run_from(struct msg *m, const char *peer, struct reply *r)
{
	static struct sockaddr_storage from, local;
	uint8_t rec[1024];
	uint32_t w[6];
	socklen_t len;
	struct req c;
	ssize_t n;
	size_t i;

	memcpy(rec, m->buf, m->x.pos);
	req_init(&c, arena, sizeof(arena));
	assert_int_equal(addr_parse(peer, 0, &from, &len), 0);
	c.peer = &from;
	c.peer_len = len;
	c.peer_privileged = addr_port(&from) < 1024;
	assert_int_equal(addr_parse("127.0.0.1:111", 0, &local, &len), 0);
	c.local = &local;
	c.local_len = len;
	c.msg = rec;
	c.msg_len = m->x.pos;
	assert_int_equal(rpc_process(&c), REQ_REPLY);
	assert_int_equal(c.reply.payload.kind, PAYLOAD_NONE);
	n = req_reply_copy(&c, 0, r->bytes, sizeof(r->bytes));
	assert_true(n >= 24 && (size_t)n == req_reply_len(&c));
	xdr_init(&r->body, r->bytes, (size_t)n);
	for (i = 0; i < 6; i++)
		assert_true(xdr_dec_u32(&r->body, &w[i]));
	assert_int_equal(w[1], REPLY);
	assert_int_equal(w[2], MSG_ACCEPTED);
	assert_int_equal(w[5], SUCCESS);
	req_finish(&c);
}

static void run(struct msg *m, struct reply *r)
{
	run_from(m, "127.0.0.1:700", r);
}

static bool reply_bool(struct reply *r)
{
	bool v = false;

	assert_true(xdr_dec_bool(&r->body, &v));
	return v;
}

static uint32_t reply_u32(struct reply *r)
{
	uint32_t v = 0;

	assert_true(xdr_dec_u32(&r->body, &v));
	return v;
}

static void reply_str(struct reply *r, char *buf, size_t len)
{
	const uint8_t *p = NULL;
	uint32_t n = 0;

	assert_true(xdr_dec_opaque_ref(&r->body, &p, &n, 1024));
	assert_true(n < len);
	memcpy(buf, p, n);
	buf[n] = '\0';
}

static bool rpcb_set(const char *peer, uint32_t prog, uint32_t vers,
		     const char *netid, const char *uaddr)
{
	struct msg m;
	struct reply r;

	rpcb_call(&m, RPCB_SET, prog, vers, netid, uaddr);
	run_from(&m, peer, &r);
	return reply_bool(&r);
}

static bool rpcb_unset(const char *peer, uint32_t prog, uint32_t vers,
		       const char *netid)
{
	struct msg m;
	struct reply r;

	rpcb_call(&m, RPCB_UNSET, prog, vers, netid, "");
	run_from(&m, peer, &r);
	return reply_bool(&r);
}

/* GETADDR, or GETVERSADDR (@exact: that version only). */
static void rpcb_lookup(uint32_t prog, uint32_t vers, const char *netid,
			char *buf, size_t len, bool exact)
{
	struct msg m;
	struct reply r;

	rpcb_call(&m, exact ? RPCB_GETVERSADDR : RPCB_GETADDR, prog, vers,
		  netid, "");
	run(&m, &r);
	reply_str(&r, buf, len);
}

static void rpcb_getaddr(uint32_t prog, uint32_t vers, const char *netid,
			 char *buf, size_t len)
{
	rpcb_lookup(prog, vers, netid, buf, len, false);
}

static void rpcb_getversaddr(uint32_t prog, uint32_t vers, const char *netid,
			     char *buf, size_t len)
{
	rpcb_lookup(prog, vers, netid, buf, len, true);
}

static uint32_t pmap_getport(uint32_t prog, uint32_t vers, uint32_t prot)
{
	struct msg m;
	struct reply r;

	pmap_call(&m, PMAP_GETPORT, prog, vers, prot, 0);
	run(&m, &r);
	return reply_u32(&r);
}

static int setup(void **state)
{
	rpc_register_program(&pmap_program);
	return 0;
}

static void test_registry_lookups(void **state)
{
	struct sockaddr_storage ss;
	struct pmap_mapping list[PMAP_MAX_ENTRIES];
	char ua[UADDR_MAX];
	unsigned int n, i, found = 0;
	socklen_t len;

	assert_int_equal(addr_parse("127.0.0.1:2049", 0, &ss, &len), 0);
	assert_int_equal(pmap_add(TP, 3, IPPROTO_TCP_PMAP, &ss), 0);
	/* The same entry twice is one entry. */
	assert_int_equal(pmap_add(TP, 3, IPPROTO_TCP_PMAP, &ss), 0);
	assert_int_equal(addr_parse("0.0.0.0:2050", 0, &ss, &len), 0);
	assert_int_equal(pmap_add(TP, 4, IPPROTO_TCP_PMAP, &ss), 0);
	assert_int_equal(addr_parse("[::1]:2051", 0, &ss, &len), 0);
	assert_int_equal(pmap_add(TP, 3, IPPROTO_TCP_PMAP, &ss), 0);

	n = pmap_list(list, PMAP_MAX_ENTRIES);
	for (i = 0; i < n; i++)
		if (list[i].prog == TP)
			found++;
	assert_int_equal(found, 3);
	assert_int_equal(pmap_list(list, 1), 1);

	assert_int_equal(pmap_getport(TP, 3, IPPROTO_TCP_PMAP), 2049);
	assert_int_equal(pmap_getport(TP, 4, IPPROTO_TCP_PMAP), 2050);
	assert_int_equal(pmap_getport(TP, 3, IPPROTO_UDP_PMAP), 0);
	assert_int_equal(pmap_getport(TP + 99, 3, IPPROTO_TCP_PMAP), 0);

	rpcb_getaddr(TP, 3, "tcp", ua, sizeof(ua));
	assert_string_equal(ua, "127.0.0.1.8.1");
	rpcb_getaddr(TP, 3, "tcp6", ua, sizeof(ua));
	assert_string_equal(ua, "::1.8.3");
	/* A wildcard entry answers with the address the call came in on. */
	rpcb_getaddr(TP, 4, "tcp", ua, sizeof(ua));
	assert_string_equal(ua, "127.0.0.1.8.2");
	rpcb_getaddr(TP, 3, "udp", ua, sizeof(ua));
	assert_string_equal(ua, "");
	/* RFC 1833 §2.2.1: GETADDR may answer another version. */
	rpcb_getaddr(TP, 5, "tcp", ua, sizeof(ua));
	assert_true(!strcmp(ua, "127.0.0.1.8.1") ||
		    !strcmp(ua, "127.0.0.1.8.2"));
	rpcb_getversaddr(TP, 5, "tcp", ua, sizeof(ua));
	assert_string_equal(ua, "");
	rpcb_getversaddr(TP, 4, "tcp", ua, sizeof(ua));
	assert_string_equal(ua, "127.0.0.1.8.2");
	assert_string_equal(pmap_netid(IPPROTO_TCP_PMAP, AF_INET), "tcp");
	assert_string_equal(pmap_netid(IPPROTO_UDP_PMAP, AF_INET6), "udp6");
}

/* RFC 1833 §2.2.1: SET refuses a tuple mapped to another address. */
static void test_rpcb_set_unset(void **state)
{
	const char *priv = "127.0.0.1:700";
	char ua[UADDR_MAX];

	assert_true(rpcb_set(priv, TP + 1, 1, "tcp", "127.0.0.1.8.2"));
	rpcb_getversaddr(TP + 1, 1, "tcp", ua, sizeof(ua));
	assert_string_equal(ua, "127.0.0.1.8.2");
	/* The same again: accepted, nothing changes. */
	assert_true(rpcb_set(priv, TP + 1, 1, "tcp", "127.0.0.1.8.2"));
	/* Another address for the same tuple: refused, the first stays. */
	assert_false(rpcb_set(priv, TP + 1, 1, "tcp", "127.0.0.1.8.3"));
	assert_false(rpcb_set(priv, TP + 1, 1, "tcp", "127.0.0.2.8.2"));
	rpcb_getversaddr(TP + 1, 1, "tcp", ua, sizeof(ua));
	assert_string_equal(ua, "127.0.0.1.8.2");
	/* Another netid or version is another tuple. */
	assert_true(rpcb_set(priv, TP + 1, 1, "tcp6", "::1.8.3"));
	assert_true(rpcb_set(priv, TP + 1, 2, "tcp", "127.0.0.1.8.4"));
	/* The netid names the family; junk addresses and netids fail. */
	assert_false(rpcb_set(priv, TP + 2, 1, "tcp6", "127.0.0.1.8.1"));
	assert_false(rpcb_set(priv, TP + 2, 1, "tcp", "::1.8.1"));
	assert_false(rpcb_set(priv, TP + 2, 1, "tcp", "127.0.0.1.8"));
	assert_false(rpcb_set(priv, TP + 2, 1, "local", "/run/x.sock"));
	/* Only privileged local callers change the map. */
	assert_false(
		rpcb_set("127.0.0.1:40000", TP + 2, 1, "tcp", "127.0.0.1.8.1"));
	assert_false(
		rpcb_set("10.0.0.1:700", TP + 2, 1, "tcp", "127.0.0.1.8.1"));
	rpcb_getversaddr(TP + 2, 1, "tcp", ua, sizeof(ua));
	assert_string_equal(ua, "");
	assert_false(rpcb_unset("127.0.0.1:40000", TP + 1, 1, "tcp"));
	assert_false(rpcb_unset("10.0.0.1:700", TP + 1, 1, "tcp"));
	rpcb_getversaddr(TP + 1, 1, "tcp", ua, sizeof(ua));
	assert_string_equal(ua, "127.0.0.1.8.2");

	/* UNSET names one netid: the tcp6 entry and v2 stay. */
	assert_true(rpcb_unset(priv, TP + 1, 1, "tcp"));
	rpcb_getversaddr(TP + 1, 1, "tcp", ua, sizeof(ua));
	assert_string_equal(ua, "");
	rpcb_getversaddr(TP + 1, 1, "tcp6", ua, sizeof(ua));
	assert_string_equal(ua, "::1.8.3");
	rpcb_getversaddr(TP + 1, 2, "tcp", ua, sizeof(ua));
	assert_string_equal(ua, "127.0.0.1.8.4");
	assert_false(rpcb_unset(priv, TP + 1, 1, "tcp"));
	/* Once free, the tuple takes a new address. */
	assert_true(rpcb_set(priv, TP + 1, 1, "tcp", "127.0.0.1.8.9"));
	rpcb_getversaddr(TP + 1, 1, "tcp", ua, sizeof(ua));
	assert_string_equal(ua, "127.0.0.1.8.9");
}

/* RFC 1833 §3.2: portmap v2 SET refuses a mapped (prog, vers, prot). */
static void test_pmap_set_unset(void **state)
{
	struct msg m;
	struct reply r;

	pmap_call(&m, PMAP_SET, TP + 3, 1, IPPROTO_TCP_PMAP, 3000);
	run(&m, &r);
	assert_true(reply_bool(&r));
	pmap_call(&m, PMAP_SET, TP + 3, 1, IPPROTO_TCP_PMAP, 3000);
	run(&m, &r);
	assert_true(reply_bool(&r));
	pmap_call(&m, PMAP_SET, TP + 3, 1, IPPROTO_TCP_PMAP, 3001);
	run(&m, &r);
	assert_false(reply_bool(&r));
	pmap_call(&m, PMAP_SET, TP + 3, 1, IPPROTO_UDP_PMAP, 3002);
	run(&m, &r);
	assert_true(reply_bool(&r));
	pmap_call(&m, PMAP_SET, TP + 3, 1, 99, 3003);
	run(&m, &r);
	assert_false(reply_bool(&r));
	pmap_call(&m, PMAP_SET, TP + 3, 2, IPPROTO_TCP_PMAP, 70000);
	run(&m, &r);
	assert_false(reply_bool(&r));
	pmap_call(&m, PMAP_SET, TP + 3, 2, IPPROTO_TCP_PMAP, 3004);
	run_from(&m, "127.0.0.1:1024", &r);
	assert_false(reply_bool(&r));
	assert_int_equal(pmap_getport(TP + 3, 1, IPPROTO_TCP_PMAP), 3000);
	assert_int_equal(pmap_getport(TP + 3, 1, IPPROTO_UDP_PMAP), 3002);
	assert_int_equal(pmap_getport(TP + 3, 2, IPPROTO_TCP_PMAP), 0);

	/* v2 UNSET: every transport of (prog, vers). */
	pmap_call(&m, PMAP_UNSET, TP + 3, 1, 0, 0);
	run_from(&m, "127.0.0.1:5000", &r);
	assert_false(reply_bool(&r));
	pmap_call(&m, PMAP_UNSET, TP + 3, 1, 0, 0);
	run(&m, &r);
	assert_true(reply_bool(&r));
	assert_int_equal(pmap_getport(TP + 3, 1, IPPROTO_TCP_PMAP), 0);
	assert_int_equal(pmap_getport(TP + 3, 1, IPPROTO_UDP_PMAP), 0);
}

/* DUMP (v4) lists each registration with netid, uaddr and owner. */
static void test_rpcb_dump(void **state)
{
	char netid[16], ua[UADDR_MAX], owner[32];
	uint32_t prog, vers;
	struct msg m;
	struct reply r;
	bool seen = false;

	assert_true(rpcb_set("127.0.0.1:700", TP + 4, 7, "udp6", "::1.1.1"));
	call(&m, 4, RPCB_DUMP);
	run(&m, &r);
	while (reply_bool(&r)) {
		prog = reply_u32(&r);
		vers = reply_u32(&r);
		reply_str(&r, netid, sizeof(netid));
		reply_str(&r, ua, sizeof(ua));
		reply_str(&r, owner, sizeof(owner));
		if (prog == TP + 4) {
			assert_false(seen);
			seen = true;
			assert_int_equal(vers, 7);
			assert_string_equal(netid, "udp6");
			assert_string_equal(ua, "::1.1.1");
			assert_string_equal(owner, "superuser");
		}
	}
	assert_true(seen);
	assert_int_equal(xdr_remaining(&r.body), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uaddr_good),
		cmocka_unit_test(test_uaddr_bad),
		cmocka_unit_test(test_uaddr_format_edges),
		cmocka_unit_test_setup(test_registry_lookups, setup),
		cmocka_unit_test_setup(test_rpcb_set_unset, setup),
		cmocka_unit_test_setup(test_pmap_set_unset, setup),
		cmocka_unit_test_setup(test_rpcb_dump, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
