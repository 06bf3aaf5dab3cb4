/* SPDX-License-Identifier: MIT */
/*
 * Unit tests: RPC call header, credentials, dispatch, DRC (on buffers,
 * without sockets), and one round trip through the TCP transport.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "rpc/drc.h"
#include "rpc/rpc.h"
#include "transport/transport.h"

#define TEST_PROG 400123

static atomic_int runs;

static bool dec_u32(struct xdr_buf *x, void *args)
{
	return xdr_dec_u32(x, args);
}

static bool enc_u32(struct xdr_buf *x, const void *res)
{
	return xdr_enc_u32(x, *(const uint32_t *)res);
}

static void h_echo(struct rpc_call *call, const void *args, void *res)
{
	atomic_fetch_add(&runs, 1);
	*(uint32_t *)res = *(const uint32_t *)args + 1;
}

static void h_count(struct rpc_call *call, const void *args, void *res)
{
	*(uint32_t *)res = (uint32_t)atomic_fetch_add(&runs, 1) + 1;
}

static void h_cred(struct rpc_call *call, const void *args, void *res)
{
	*(uint32_t *)res = call->cred.uid ^ call->cred.ngids << 24;
}

static void h_slow(struct rpc_call *call, const void *args, void *res)
{
	usleep(300 * 1000);
	*(uint32_t *)res = 99;
}

/* A status-first result that says "try again later" (like JUKEBOX). */
#define TEST_STATUS_RETRY 10008

static void h_retry(struct rpc_call *call, const void *args, void *res)
{
	atomic_fetch_add(&runs, 1);
	*(uint32_t *)res = TEST_STATUS_RETRY;
}

static atomic_int inline_runs, deferrals;

/*
 * An inline procedure that "would block" for arguments divisible by 3
 * when it runs on the event loop (req.nowait): it defers, and the
 * worker's run answers. Either way the answer is the argument + 1.
 */
static void h_maybe_block(struct rpc_call *call, const void *args,
			  void *res)
{
	uint32_t a = *(const uint32_t *)args;

	if (call->req->nowait && a % 3 == 0) {
		atomic_fetch_add(&deferrals, 1);
		call->req->defer = true;
		return;
	}
	if (call->req->nowait)
		atomic_fetch_add(&inline_runs, 1);
	*(uint32_t *)res = a + 1;
}

/* inline_ok of MAYBLOCK: arguments below 1000000 only. */
static bool small_arg(const uint8_t *args, size_t len)
{
	struct xdr_buf x;
	uint32_t a;

	xdr_init(&x, (uint8_t *)args, len);
	return xdr_dec_u32(&x, &a) && a < 1000000;
}

static bool enc_big(struct xdr_buf *x, const void *res)
{
	uint8_t junk[64] = { 0 };

	return xdr_enc_opaque(x, junk, sizeof(junk));
}

static const struct rpc_proc test_v2_procs[] = {
	[0] = {
		.name = "NULL",
	},
	[1] = {
		.name = "ECHO",
		.args_size = sizeof(uint32_t),
		.res_size = sizeof(uint32_t),
		.decode = dec_u32,
		.handle = h_echo,
		.encode = enc_u32,
	},
	/* [2] is a hole */
	[3] = {
		.name = "COUNT",
		.args_size = sizeof(uint32_t),
		.res_size = sizeof(uint32_t),
		.decode = dec_u32,
		.handle = h_count,
		.encode = enc_u32,
		.flags = RPC_PROC_NONIDEMPOTENT,
	},
	[4] = {
		.name = "BIG",
		.encode = enc_big,
		.max_reply = 16,
	},
	[5] = {
		.name = "CRED",
		.res_size = sizeof(uint32_t),
		.handle = h_cred,
		.encode = enc_u32,
	},
	[6] = {
		.name = "SLOW",
		.res_size = sizeof(uint32_t),
		.handle = h_slow,
		.encode = enc_u32,
	},
	[7] = {
		.name = "RETRY",
		.args_size = sizeof(uint32_t),
		.res_size = sizeof(uint32_t),
		.decode = dec_u32,
		.handle = h_retry,
		.encode = enc_u32,
		.flags = RPC_PROC_NONIDEMPOTENT | RPC_PROC_RES_STATUS,
	},
	[8] = {
		.name = "MAYBLOCK",
		.args_size = sizeof(uint32_t),
		.res_size = sizeof(uint32_t),
		.decode = dec_u32,
		.handle = h_maybe_block,
		.encode = enc_u32,
		.flags = RPC_PROC_INLINE,
		.inline_ok = small_arg,
	},
	[9] = {
		.name = "INULL",
		.flags = RPC_PROC_INLINE,
	},
};

static const struct rpc_proc test_v4_procs[] = {
	[0] = {
		.name = "NULL",
	},
};

static const struct rpc_version test_versions[] = {
	{ .vers = 2, .nprocs = 10, .procs = test_v2_procs,
	  .status_retry = TEST_STATUS_RETRY },
	{ .vers = 4, .nprocs = 1, .procs = test_v4_procs },
};

static const struct rpc_program test_program = {
	.prog = TEST_PROG,
	.name = "test",
	.nversions = 2,
	.versions = test_versions,
};

/* ---- building calls ---- */

struct msg {
	uint8_t buf[2048];
	struct xdr_buf x;
};

static void call_hdr(struct msg *m, uint32_t xid, uint32_t mtype,
		     uint32_t rpcvers, uint32_t prog, uint32_t vers,
		     uint32_t proc)
{
	xdr_init(&m->x, m->buf, sizeof(m->buf));
	assert_true(xdr_enc_u32(&m->x, xid) && xdr_enc_u32(&m->x, mtype) &&
		    xdr_enc_u32(&m->x, rpcvers) && xdr_enc_u32(&m->x, prog) &&
		    xdr_enc_u32(&m->x, vers) && xdr_enc_u32(&m->x, proc));
}

static void auth_none(struct msg *m)
{
	assert_true(xdr_enc_u32(&m->x, AUTH_NONE) && xdr_enc_u32(&m->x, 0) &&
		    xdr_enc_u32(&m->x, AUTH_NONE) && xdr_enc_u32(&m->x, 0));
}

/* AUTH_SYS with a machine name of @namelen bytes and @ngids gids. */
static void auth_sys(struct msg *m, uint32_t namelen, uint32_t ngids,
		     int32_t body_adjust)
{
	uint8_t body[1024], name[512];
	struct xdr_buf b;
	uint32_t i;

	memset(name, 'm', sizeof(name));
	xdr_init(&b, body, sizeof(body));
	assert_true(xdr_enc_u32(&b, 12345) &&
		    xdr_enc_opaque(&b, name, namelen) &&
		    xdr_enc_u32(&b, 1000) && xdr_enc_u32(&b, 100) &&
		    xdr_enc_u32(&b, ngids));
	for (i = 0; i < ngids; i++)
		assert_true(xdr_enc_u32(&b, 2000 + i));
	assert_true(xdr_enc_u32(&m->x, AUTH_SYS) &&
		    xdr_enc_opaque(&m->x, body,
				   (uint32_t)((int32_t)b.pos + body_adjust)) &&
		    xdr_enc_u32(&m->x, AUTH_NONE) && xdr_enc_u32(&m->x, 0));
}

/* ---- running them ---- */

struct result {
	bool sent;
	uint8_t bytes[4096];
	size_t len;
	uint32_t w[64];
	unsigned int nw;
};

static uint8_t arena[16384];

static void run_peer(struct msg *m, struct result *r, uint16_t port)
{
	struct sockaddr_storage peer = { 0 };
	struct sockaddr_in *sin = (struct sockaddr_in *)&peer;
	uint8_t rec[2048];
	struct req rq;
	ssize_t n;
	size_t i;

	memcpy(rec, m->buf, m->x.pos);
	req_init(&rq, arena, sizeof(arena));
	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	sin->sin_addr.s_addr = htonl(0x7f000001);
	rq.peer = &peer;
	rq.peer_len = sizeof(*sin);
	rq.msg = rec;
	rq.msg_len = m->x.pos;
	memset(r, 0, sizeof(*r));
	r->sent = rpc_process(&rq) == REQ_REPLY;
	if (r->sent) {
		assert_true(req_reply_len(&rq) <= sizeof(r->bytes));
		n = req_reply_copy(&rq, 0, r->bytes, sizeof(r->bytes));
		assert_true(n >= 0);
		r->len = (size_t)n;
		for (i = 0; i + 4 <= r->len && r->nw < 64; i += 4) {
			uint32_t v;

			memcpy(&v, r->bytes + i, 4);
			r->w[r->nw++] = ntohl(v);
		}
	}
	req_finish(&rq);
}

static void run(struct msg *m, struct result *r)
{
	run_peer(m, r, 700);
}

/* xid, REPLY, MSG_ACCEPTED, AUTH_NONE, 0, stat */
static void assert_accepted(const struct result *r, uint32_t xid,
			    uint32_t stat)
{
	assert_true(r->sent);
	assert_true(r->nw >= 6);
	assert_int_equal(r->w[0], xid);
	assert_int_equal(r->w[1], REPLY);
	assert_int_equal(r->w[2], MSG_ACCEPTED);
	assert_int_equal(r->w[3], AUTH_NONE);
	assert_int_equal(r->w[4], 0);
	assert_int_equal(r->w[5], stat);
}

static void assert_auth_error(const struct result *r, uint32_t why)
{
	assert_true(r->sent);
	assert_int_equal(r->nw, 5);
	assert_int_equal(r->w[1], REPLY);
	assert_int_equal(r->w[2], MSG_DENIED);
	assert_int_equal(r->w[3], AUTH_ERROR);
	assert_int_equal(r->w[4], why);
}

static int setup(void **state)
{
	rpc_register_program(&test_program);
	drc_flush();
	atomic_store(&runs, 0);
	atomic_store(&inline_runs, 0);
	atomic_store(&deferrals, 0);
	return 0;
}

static void test_success_and_null(void **state)
{
	struct msg m;
	struct result r;

	call_hdr(&m, 1, CALL, 2, TEST_PROG, 2, 1);
	auth_none(&m);
	assert_true(xdr_enc_u32(&m.x, 41));
	run(&m, &r);
	assert_accepted(&r, 1, SUCCESS);
	assert_int_equal(r.nw, 7);
	assert_int_equal(r.w[6], 42);

	call_hdr(&m, 2, CALL, 2, TEST_PROG, 4, 0);
	auth_none(&m);
	run(&m, &r);
	assert_accepted(&r, 2, SUCCESS);
	assert_int_equal(r.nw, 6);
}

static void test_rpc_mismatch(void **state)
{
	struct msg m;
	struct result r;

	call_hdr(&m, 7, CALL, 3, TEST_PROG, 2, 0);
	auth_none(&m);
	run(&m, &r);
	assert_true(r.sent);
	assert_int_equal(r.nw, 6);
	assert_int_equal(r.w[0], 7);
	assert_int_equal(r.w[2], MSG_DENIED);
	assert_int_equal(r.w[3], RPC_MISMATCH);
	assert_int_equal(r.w[4], 2);
	assert_int_equal(r.w[5], 2);
}

static void test_prog_unavail(void **state)
{
	struct msg m;
	struct result r;

	call_hdr(&m, 8, CALL, 2, 399999, 1, 0);
	auth_none(&m);
	run(&m, &r);
	assert_accepted(&r, 8, PROG_UNAVAIL);
	assert_int_equal(r.nw, 6);
}

static void test_prog_mismatch(void **state)
{
	struct msg m;
	struct result r;

	call_hdr(&m, 9, CALL, 2, TEST_PROG, 3, 0);
	auth_none(&m);
	run(&m, &r);
	assert_accepted(&r, 9, PROG_MISMATCH);
	assert_int_equal(r.nw, 8);
	assert_int_equal(r.w[6], 2);
	assert_int_equal(r.w[7], 4);
}

static void test_proc_unavail(void **state)
{
	struct msg m;
	struct result r;

	call_hdr(&m, 10, CALL, 2, TEST_PROG, 2, 2); /* hole */
	auth_none(&m);
	run(&m, &r);
	assert_accepted(&r, 10, PROC_UNAVAIL);
	call_hdr(&m, 11, CALL, 2, TEST_PROG, 2, 10); /* past the end */
	auth_none(&m);
	run(&m, &r);
	assert_accepted(&r, 11, PROC_UNAVAIL);
	call_hdr(&m, 12, CALL, 2, TEST_PROG, 4, 0xffffffff);
	auth_none(&m);
	run(&m, &r);
	assert_accepted(&r, 12, PROC_UNAVAIL);
}

static void test_garbage_args(void **state)
{
	struct msg m;
	struct result r;

	call_hdr(&m, 13, CALL, 2, TEST_PROG, 2, 1);
	auth_none(&m);
	run(&m, &r); /* ECHO without its argument */
	assert_accepted(&r, 13, GARBAGE_ARGS);
	assert_int_equal(r.nw, 6);
	assert_int_equal(atomic_load(&runs), 0);
}

static void test_system_err(void **state)
{
	struct msg m;
	struct result r;

	call_hdr(&m, 14, CALL, 2, TEST_PROG, 2, 4);
	auth_none(&m);
	run(&m, &r);
	assert_accepted(&r, 14, SYSTEM_ERR);
	assert_int_equal(r.nw, 6);
}

static void test_auth_sys(void **state)
{
	struct msg m;
	struct result r;

	/* The limits themselves are fine. */
	call_hdr(&m, 20, CALL, 2, TEST_PROG, 2, 5);
	auth_sys(&m, 255, 16, 0);
	run(&m, &r);
	assert_accepted(&r, 20, SUCCESS);
	assert_int_equal(r.w[6], 1000u ^ 16u << 24);

	call_hdr(&m, 21, CALL, 2, TEST_PROG, 2, 5);
	auth_sys(&m, 256, 0, 0);
	run(&m, &r);
	assert_auth_error(&r, AUTH_BADCRED);

	call_hdr(&m, 22, CALL, 2, TEST_PROG, 2, 5);
	auth_sys(&m, 8, 17, 0);
	run(&m, &r);
	assert_auth_error(&r, AUTH_BADCRED);

	/* body shorter than its contents, and with trailing bytes */
	call_hdr(&m, 23, CALL, 2, TEST_PROG, 2, 5);
	auth_sys(&m, 8, 2, -4);
	run(&m, &r);
	assert_auth_error(&r, AUTH_BADCRED);
	call_hdr(&m, 24, CALL, 2, TEST_PROG, 2, 5);
	auth_sys(&m, 8, 2, 4);
	run(&m, &r);
	assert_auth_error(&r, AUTH_BADCRED);
}

static void test_auth_flavors(void **state)
{
	uint8_t body[404] = { 0 };
	struct msg m;
	struct result r;

	call_hdr(&m, 30, CALL, 2, TEST_PROG, 2, 0);
	assert_true(xdr_enc_u32(&m.x, RPCSEC_GSS) &&
		    xdr_enc_opaque(&m.x, body, 20) &&
		    xdr_enc_u32(&m.x, AUTH_NONE) && xdr_enc_u32(&m.x, 0));
	run(&m, &r);
	assert_auth_error(&r, AUTH_TOOWEAK);

	call_hdr(&m, 31, CALL, 2, TEST_PROG, 2, 0);
	assert_true(xdr_enc_u32(&m.x, AUTH_DH) &&
		    xdr_enc_opaque(&m.x, body, 20) &&
		    xdr_enc_u32(&m.x, AUTH_NONE) && xdr_enc_u32(&m.x, 0));
	run(&m, &r);
	assert_auth_error(&r, AUTH_TOOWEAK);

	call_hdr(&m, 32, CALL, 2, TEST_PROG, 2, 0);
	assert_true(xdr_enc_u32(&m.x, 390003) &&
		    xdr_enc_opaque(&m.x, body, 0) &&
		    xdr_enc_u32(&m.x, AUTH_NONE) && xdr_enc_u32(&m.x, 0));
	run(&m, &r);
	assert_auth_error(&r, AUTH_BADCRED);

	/* opaque_auth body<400>: 401 bytes is malformed */
	call_hdr(&m, 33, CALL, 2, TEST_PROG, 2, 0);
	assert_true(xdr_enc_u32(&m.x, AUTH_NONE) &&
		    xdr_enc_opaque(&m.x, body, 401) &&
		    xdr_enc_u32(&m.x, AUTH_NONE) && xdr_enc_u32(&m.x, 0));
	run(&m, &r);
	assert_auth_error(&r, AUTH_BADCRED);

	/* credential cut short by the end of the record */
	call_hdr(&m, 34, CALL, 2, TEST_PROG, 2, 0);
	assert_true(xdr_enc_u32(&m.x, AUTH_SYS) && xdr_enc_u32(&m.x, 40));
	run(&m, &r);
	assert_auth_error(&r, AUTH_BADCRED);

	/* verifier too long */
	call_hdr(&m, 35, CALL, 2, TEST_PROG, 2, 0);
	assert_true(xdr_enc_u32(&m.x, AUTH_NONE) && xdr_enc_u32(&m.x, 0) &&
		    xdr_enc_u32(&m.x, AUTH_NONE) &&
		    xdr_enc_opaque(&m.x, body, 404));
	run(&m, &r);
	assert_auth_error(&r, AUTH_BADVERF);
}

static void test_not_a_call(void **state)
{
	struct msg m;
	struct result r;

	call_hdr(&m, 40, REPLY, 2, TEST_PROG, 2, 0);
	auth_none(&m);
	run(&m, &r);
	assert_false(r.sent);
	call_hdr(&m, 41, 7, 2, TEST_PROG, 2, 0);
	run(&m, &r);
	assert_false(r.sent);
	/* too short for a header */
	call_hdr(&m, 42, CALL, 2, TEST_PROG, 2, 0);
	m.x.pos = 14;
	run(&m, &r);
	assert_false(r.sent);
	m.x.pos = 0;
	run(&m, &r);
	assert_false(r.sent);
}

/*
 * A "try again later" answer (JUKEBOX) is not cached: the client's retry
 * with the same xid must run the procedure again.
 */
static void test_drc_skips_retry_status(void **state)
{
	struct msg m;
	struct result r1, r2;

	call_hdr(&m, 77, CALL, 2, TEST_PROG, 2, 7);
	auth_sys(&m, 8, 1, 0);
	assert_true(xdr_enc_u32(&m.x, 1));
	run(&m, &r1);
	assert_accepted(&r1, 77, SUCCESS);
	assert_int_equal(r1.w[6], TEST_STATUS_RETRY);
	run(&m, &r2);
	assert_true(r2.sent);
	assert_int_equal(r2.w[6], TEST_STATUS_RETRY);
	assert_int_equal(atomic_load(&runs), 2);
	drc_flush();
}

static void test_drc_replay(void **state)
{
	struct msg m;
	struct result r1, r2, r3, r4;

	call_hdr(&m, 50, CALL, 2, TEST_PROG, 2, 3);
	auth_sys(&m, 8, 1, 0);
	assert_true(xdr_enc_u32(&m.x, 5));
	run(&m, &r1);
	assert_accepted(&r1, 50, SUCCESS);
	assert_int_equal(r1.w[6], 1);
	assert_int_equal(atomic_load(&runs), 1);

	/* Retransmission: same bytes back, handler not run again. */
	run(&m, &r2);
	assert_true(r2.sent);
	assert_int_equal(r2.len, r1.len);
	assert_memory_equal(r2.bytes, r1.bytes, r1.len);
	assert_int_equal(atomic_load(&runs), 1);

	/* Another client port, or other arguments: a new call. */
	run_peer(&m, &r3, 701);
	assert_int_equal(r3.w[6], 2);
	call_hdr(&m, 50, CALL, 2, TEST_PROG, 2, 3);
	auth_sys(&m, 8, 1, 0);
	assert_true(xdr_enc_u32(&m.x, 6));
	run(&m, &r4);
	assert_int_equal(r4.w[6], 3);
	assert_int_equal(atomic_load(&runs), 3);

	drc_flush();
	call_hdr(&m, 50, CALL, 2, TEST_PROG, 2, 3);
	auth_sys(&m, 8, 1, 0);
	assert_true(xdr_enc_u32(&m.x, 5));
	run(&m, &r2);
	assert_int_equal(r2.w[6], 4);
}

/* Which records the transport may run on its event loop. */
static void test_record_inline(void **state)
{
	struct msg m;

	/* Inline procedures; MAYBLOCK only while inline_ok agrees. */
	call_hdr(&m, 1, CALL, 2, TEST_PROG, 2, 9);
	auth_none(&m);
	assert_true(rpc_record_inline(NULL, m.buf, m.x.pos));
	call_hdr(&m, 1, CALL, 2, TEST_PROG, 2, 8);
	auth_sys(&m, 8, 2, 0);
	assert_true(xdr_enc_u32(&m.x, 999999));
	assert_true(rpc_record_inline(NULL, m.buf, m.x.pos));
	call_hdr(&m, 1, CALL, 2, TEST_PROG, 2, 8);
	auth_sys(&m, 8, 2, 0);
	assert_true(xdr_enc_u32(&m.x, 1000000));
	assert_false(rpc_record_inline(NULL, m.buf, m.x.pos));
	/* Arguments cut short: inline_ok says no. */
	call_hdr(&m, 1, CALL, 2, TEST_PROG, 2, 8);
	auth_none(&m);
	assert_false(rpc_record_inline(NULL, m.buf, m.x.pos));
	/* Procedures without the flag go to the workers. */
	call_hdr(&m, 1, CALL, 2, TEST_PROG, 2, 1);
	auth_none(&m);
	assert_true(xdr_enc_u32(&m.x, 1));
	assert_false(rpc_record_inline(NULL, m.buf, m.x.pos));
	call_hdr(&m, 1, CALL, 2, TEST_PROG, 2, 3);
	auth_none(&m);
	assert_false(rpc_record_inline(NULL, m.buf, m.x.pos));
	call_hdr(&m, 1, CALL, 2, TEST_PROG, 4, 0);
	auth_none(&m);
	assert_false(rpc_record_inline(NULL, m.buf, m.x.pos));
	/* Answered (or dropped) from the header alone: inline. */
	call_hdr(&m, 1, CALL, 2, TEST_PROG + 1, 2, 1);
	auth_none(&m);
	assert_true(rpc_record_inline(NULL, m.buf, m.x.pos));
	call_hdr(&m, 1, CALL, 2, TEST_PROG, 3, 1);
	auth_none(&m);
	assert_true(rpc_record_inline(NULL, m.buf, m.x.pos));
	call_hdr(&m, 1, CALL, 2, TEST_PROG, 2, 2); /* a hole */
	auth_none(&m);
	assert_true(rpc_record_inline(NULL, m.buf, m.x.pos));
	call_hdr(&m, 1, CALL, 2, TEST_PROG, 2, 77);
	auth_none(&m);
	assert_true(rpc_record_inline(NULL, m.buf, m.x.pos));
	call_hdr(&m, 1, REPLY, 2, TEST_PROG, 2, 1);
	assert_true(rpc_record_inline(NULL, m.buf, m.x.pos));
	call_hdr(&m, 1, CALL, 3, TEST_PROG, 2, 1);
	assert_true(rpc_record_inline(NULL, m.buf, m.x.pos));
	assert_true(rpc_record_inline(NULL, m.buf, 10));
	assert_true(rpc_record_inline(NULL, m.buf, 0));
}

/* Run the record in @rec as request @rq (nowait as asked): the verdict. */
static enum req_verdict run_req(struct req *rq, uint8_t *rec, size_t len,
				bool nowait)
{
	static struct sockaddr_storage peer;

	req_init(rq, arena, sizeof(arena));
	peer.ss_family = AF_INET;
	rq->peer = &peer;
	rq->peer_len = sizeof(struct sockaddr_in);
	rq->msg = rec;
	rq->msg_len = len;
	rq->nowait = nowait;
	return rpc_process(rq);
}

/* The 32-bit word at @off of @rq's reply. */
static uint32_t reply_word(const struct req *rq, size_t off)
{
	uint32_t v = 0;

	assert_int_equal(req_reply_copy(rq, off, &v, 4), 4);
	return ntohl(v);
}

/*
 * A nowait call that would block: no reply, the call kept; continued on
 * the same request (as a worker does, nowait clear), it answers.
 */
static void test_defer(void **state)
{
	uint8_t rec[2048];
	struct req rq;
	struct msg m;
	size_t len;

	call_hdr(&m, 31, CALL, 2, TEST_PROG, 2, 8);
	auth_none(&m);
	assert_true(xdr_enc_u32(&m.x, 42));
	len = m.x.pos;
	memcpy(rec, m.buf, len);

	assert_int_equal(run_req(&rq, rec, len, true), REQ_DEFER);
	assert_true(rq.defer);
	assert_non_null(rq.proto);
	assert_int_equal(atomic_load(&deferrals), 1);

	/* The worker's turn: the same request, not decoded again. */
	memset(rec, 0xee, len);
	rq.nowait = false;
	assert_int_equal(rpc_process(&rq), REQ_REPLY);
	assert_false(rq.defer);
	assert_true(req_reply_len(&rq) >= 28);
	assert_int_equal(reply_word(&rq, 0), 31);
	assert_int_equal(reply_word(&rq, 24), 43);
	assert_int_equal(atomic_load(&deferrals), 1);
	req_finish(&rq);

	/* A nowait call that does not block answers at once. */
	call_hdr(&m, 32, CALL, 2, TEST_PROG, 2, 8);
	auth_none(&m);
	assert_true(xdr_enc_u32(&m.x, 43));
	memcpy(rec, m.buf, m.x.pos);
	assert_int_equal(run_req(&rq, rec, m.x.pos, true), REQ_REPLY);
	assert_false(rq.defer);
	assert_int_equal(reply_word(&rq, 24), 44);
	assert_int_equal(atomic_load(&inline_runs), 1);
	req_finish(&rq);
}

/* ---- over TCP ---- */

/* RPC over TCP, as the server wires it (server/main.c). */
static const struct transport_proto test_rpc_tcp = {
	.name = "rpc",
	.hdr_len = RPC_RM_HDR_LEN,
	.frame_parse = rpc_rm_parse,
	.frame_build = rpc_rm_build,
	.frame_max = RPC_RM_LEN_MASK,
	.align = rpc_record_align,
	.may_inline = rpc_record_inline,
	.process = rpc_process,
	.conn_close = rpc_conn_close,
};

static void *transport_thread(void *arg)
{
	*(int *)arg = transport_run();
	return NULL;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
	ssize_t w;

	while (n) {
		w = write(fd, p, n);
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int read_all(int fd, uint8_t *p, size_t n)
{
	ssize_t r;

	while (n) {
		r = read(fd, p, n);
		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

static void test_transport_loopback(void **state)
{
	enum { NREQ = 2000 };
	struct transport_limits lim;
	struct sockaddr_storage ss;
	static uint8_t out[NREQ * 64];
	static bool seen[NREQ];
	socklen_t len;
	pthread_t t;
	struct msg m;
	size_t n = 0;
	uint8_t rep[64];
	uint32_t v, xid, mark;
	int fd, ret = -1, i;

	transport_limits_default(&lim);
	lim.max_inflight = 8; /* exercise pausing */
	assert_int_equal(transport_init(2, 4, &lim), 0);
	assert_int_equal(transport_listen("127.0.0.1:0", 0, &test_rpc_tcp, &ss, &len), 0);
	assert_int_equal(pthread_create(&t, NULL, transport_thread, &ret), 0);

	/*
	 * Many calls in one burst, each split over two fragments: ECHO
	 * goes to the workers, MAYBLOCK runs on the loop and defers to a
	 * worker for a third of them; all answer the argument + 1.
	 */
	for (i = 0; i < NREQ; i++) {
		call_hdr(&m, (uint32_t)i, CALL, 2, TEST_PROG, 2,
			 i % 2 ? 8 : 1);
		auth_none(&m);
		assert_true(xdr_enc_u32(&m.x, (uint32_t)(i % 2 ? i : i * 3)));
		v = htonl(10);
		memcpy(out + n, &v, 4);
		memcpy(out + n + 4, m.buf, 10);
		n += 14;
		v = htonl(0x80000000u | (uint32_t)(m.x.pos - 10));
		memcpy(out + n, &v, 4);
		memcpy(out + n + 4, m.buf + 10, m.x.pos - 10);
		n += 4 + m.x.pos - 10;
	}
	fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&ss, len), 0);
	assert_int_equal(write_all(fd, out, n), 0);
	for (i = 0; i < NREQ; i++) {
		assert_int_equal(read_all(fd, (uint8_t *)&mark, 4), 0);
		mark = ntohl(mark);
		assert_int_equal(mark, 0x80000000u | 28);
		assert_int_equal(read_all(fd, rep, 28), 0);
		memcpy(&xid, rep, 4);
		xid = ntohl(xid);
		assert_true(xid < NREQ);
		assert_false(seen[xid]);
		seen[xid] = true;
		memcpy(&v, rep + 24, 4);
		assert_int_equal(ntohl(v), (xid % 2 ? xid : xid * 3) + 1);
	}
	assert_true(atomic_load(&inline_runs) > 0);
	assert_true(atomic_load(&deferrals) > 0);
	/* An oversized record closes the connection. */
	v = htonl(0x7fffffff);
	assert_int_equal(write_all(fd, (uint8_t *)&v, 4), 0);
	/* EOF, or a reset if the server closed with bytes unread. */
	n = (size_t)read(fd, rep, sizeof(rep));
	assert_true(n == 0 || (n == (size_t)-1 && errno == ECONNRESET));
	close(fd);

	transport_stop();
	pthread_join(t, NULL);
	assert_int_equal(ret, 0);
}

static int connect_to(const struct sockaddr_storage *ss, socklen_t len)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (const struct sockaddr *)ss, len), 0);
	return fd;
}

/* Connection limit, idle timeout, and a stop that lets calls finish. */
static void test_transport_limits_and_stop(void **state)
{
	struct transport_limits lim;
	struct sockaddr_storage ss;
	socklen_t len;
	pthread_t t;
	struct msg m;
	uint8_t rec[64];
	uint32_t v;
	int a, b, c, ret = -1;
	ssize_t n;

	transport_limits_default(&lim);
	lim.max_conns = 2;
	lim.idle_timeout = 1;
	assert_int_equal(transport_init(1, 2, &lim), 0);
	assert_int_equal(transport_listen("127.0.0.1:0", 0, &test_rpc_tcp, &ss, &len), 0);
	assert_int_equal(pthread_create(&t, NULL, transport_thread, &ret), 0);

	a = connect_to(&ss, len);
	b = connect_to(&ss, len);
	usleep(100 * 1000);
	c = connect_to(&ss, len); /* over the limit: closed at once */
	n = read(c, rec, sizeof(rec));
	assert_true(n == 0 || (n < 0 && errno == ECONNRESET));
	close(c);
	/* idle: closed 1 to 2 s after its last traffic (whole seconds) */
	n = read(a, rec, sizeof(rec));
	assert_true(n == 0 || (n < 0 && errno == ECONNRESET));
	close(a);
	close(b);

	/* A slow call in flight when the stop comes still gets its reply. */
	c = connect_to(&ss, len);
	call_hdr(&m, 77, CALL, 2, TEST_PROG, 2, 6);
	auth_none(&m);
	v = htonl(0x80000000u | (uint32_t)m.x.pos);
	assert_int_equal(write_all(c, (uint8_t *)&v, 4), 0);
	assert_int_equal(write_all(c, m.buf, m.x.pos), 0);
	usleep(100 * 1000);
	transport_stop();
	assert_int_equal(read_all(c, rec, 4 + 28), 0);
	memcpy(&v, rec + 4, 4);
	assert_int_equal(ntohl(v), 77);
	memcpy(&v, rec + 28, 4);
	assert_int_equal(ntohl(v), 99);
	pthread_join(t, NULL);
	assert_int_equal(ret, 0);
	close(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_success_and_null, setup),
		cmocka_unit_test_setup(test_rpc_mismatch, setup),
		cmocka_unit_test_setup(test_prog_unavail, setup),
		cmocka_unit_test_setup(test_prog_mismatch, setup),
		cmocka_unit_test_setup(test_proc_unavail, setup),
		cmocka_unit_test_setup(test_garbage_args, setup),
		cmocka_unit_test_setup(test_system_err, setup),
		cmocka_unit_test_setup(test_auth_sys, setup),
		cmocka_unit_test_setup(test_auth_flavors, setup),
		cmocka_unit_test_setup(test_not_a_call, setup),
		cmocka_unit_test_setup(test_drc_replay, setup),
		cmocka_unit_test_setup(test_drc_skips_retry_status, setup),
		cmocka_unit_test_setup(test_record_inline, setup),
		cmocka_unit_test_setup(test_defer, setup),
		cmocka_unit_test_setup(test_transport_loopback, setup),
		cmocka_unit_test_setup(test_transport_limits_and_stop, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
