// SPDX-License-Identifier: MIT
/*
 * Unit tests of the statistics: histogram bucket math, quantiles from
 * buckets, exact totals under concurrent recording from many threads
 * (and threads that exit and hand their shard on), the RPC dispatcher's
 * hooks (success, GARBAGE_ARGS, a non-OK protocol status, rejected calls),
 * well-formed JSON and Prometheus text, and the /metrics HTTP handling.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/stats.h"
#include "rpc/rpc.h"
#include "server/metrics.h"

/* ---- helpers ---------------------------------------------------------- */

static const struct stats_proc_snap *find_proc(const struct stats_snapshot *s,
					       const char *program,
					       uint32_t vers, const char *proc)
{
	unsigned int i;

	for (i = 0; i < s->nprocs; i++)
		if (!strcmp(s->procs[i].program, program) &&
		    s->procs[i].vers == vers && !strcmp(s->procs[i].proc, proc))
			return &s->procs[i];
	return NULL;
}

static struct stats_snapshot *snap(void)
{
	struct stats_snapshot *s;

	assert_int_equal(stats_snapshot_take(&s), 0);
	assert_non_null(s);
	return s;
}

/* A JSON syntax checker (RFC 8259), enough to prove well-formedness. */
struct jp {
	const char *p;
	const char *end;
	int depth;
};

static void j_ws(struct jp *j)
{
	while (j->p < j->end && strchr(" \t\r\n", *j->p))
		j->p++;
}

static bool j_value(struct jp *j);

static bool j_lit(struct jp *j, const char *lit)
{
	size_t n = strlen(lit);

	if ((size_t)(j->end - j->p) < n || memcmp(j->p, lit, n))
		return false;
	j->p += n;
	return true;
}

static bool j_string(struct jp *j)
{
	if (j->p >= j->end || *j->p != '"')
		return false;
	for (j->p++; j->p < j->end; j->p++) {
		unsigned char c = (unsigned char)*j->p;

		if (c == '"') {
			j->p++;
			return true;
		}
		if (c < 0x20)
			return false;
		if (c == '\\') {
			j->p++;
			if (j->p >= j->end)
				return false;
			if (*j->p == 'u') {
				int k;

				for (k = 1; k <= 4; k++)
					if (j->p + k >= j->end ||
					    !strchr("0123456789abcdefABCDEF",
						    j->p[k]))
						return false;
				j->p += 4;
			} else if (!strchr("\"\\/bfnrt", *j->p)) {
				return false;
			}
		}
	}
	return false;
}

static bool j_number(struct jp *j)
{
	const char *s = j->p;

	if (j->p < j->end && *j->p == '-')
		j->p++;
	if (j->p >= j->end || *j->p < '0' || *j->p > '9')
		return false;
	if (*j->p == '0')
		j->p++;
	else
		while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
			j->p++;
	if (j->p < j->end && *j->p == '.') {
		j->p++;
		if (j->p >= j->end || *j->p < '0' || *j->p > '9')
			return false;
		while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
			j->p++;
	}
	if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
		j->p++;
		if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
			j->p++;
		if (j->p >= j->end || *j->p < '0' || *j->p > '9')
			return false;
		while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
			j->p++;
	}
	return j->p > s;
}

static bool j_container(struct jp *j, char open, char close, bool keys)
{
	if (*j->p != open || ++j->depth > 64)
		return false;
	j->p++;
	j_ws(j);
	if (j->p < j->end && *j->p == close) {
		j->p++;
		j->depth--;
		return true;
	}
	for (;;) {
		j_ws(j);
		if (keys) {
			if (!j_string(j))
				return false;
			j_ws(j);
			if (j->p >= j->end || *j->p != ':')
				return false;
			j->p++;
		}
		if (!j_value(j))
			return false;
		j_ws(j);
		if (j->p >= j->end)
			return false;
		if (*j->p == ',') {
			j->p++;
			continue;
		}
		if (*j->p != close)
			return false;
		j->p++;
		j->depth--;
		return true;
	}
}

static bool j_value(struct jp *j)
{
	j_ws(j);
	if (j->p >= j->end)
		return false;
	switch (*j->p) {
	case '{':
		return j_container(j, '{', '}', true);
	case '[':
		return j_container(j, '[', ']', false);
	case '"':
		return j_string(j);
	case 't':
		return j_lit(j, "true");
	case 'f':
		return j_lit(j, "false");
	case 'n':
		return j_lit(j, "null");
	default:
		return j_number(j);
	}
}

static bool json_valid(const char *text, size_t len)
{
	struct jp j = {.p = text, .end = text + len};

	if (!j_value(&j))
		return false;
	j_ws(&j);
	return j.p == j.end;
}

static bool prom_name_ok(const char *s, size_t n)
{
	size_t i;

	if (!n ||
	    !(s[0] == '_' || s[0] == ':' || (s[0] >= 'a' && s[0] <= 'z') ||
	      (s[0] >= 'A' && s[0] <= 'Z')))
		return false;
	for (i = 1; i < n; i++)
		if (!(s[i] == '_' || s[i] == ':' ||
		      (s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9')))
			return false;
	return true;
}

/*
 * One Prometheus exposition line: a comment, or name{labels} value. For a
 * sample, its name goes to @name (NUL-terminated) and value to *@v.
 */
static bool prom_line_ok(const char *l, char *name, size_t nlen, double *v)
{
	const char *p = l, *q;
	char *e;

	name[0] = '\0';
	if (*p == '#') {
		if (!strncmp(p, "# HELP ", 7) || !strncmp(p, "# TYPE ", 7)) {
			p += 7;
			q = strchr(p, ' ');
			if (!q || !prom_name_ok(p, (size_t)(q - p)))
				return false;
			if (!strncmp(l, "# TYPE", 6))
				return !strcmp(q + 1, "counter") ||
				       !strcmp(q + 1, "gauge") ||
				       !strcmp(q + 1, "histogram");
			return q[1] != '\0';
		}
		return false;
	}
	for (q = p; *q && *q != '{' && *q != ' '; q++)
		;
	if (!prom_name_ok(p, (size_t)(q - p)) || (size_t)(q - p) >= nlen)
		return false;
	memcpy(name, p, (size_t)(q - p));
	name[q - p] = '\0';
	p = q;
	if (*p == '{') {
		p++;
		for (;;) {
			for (q = p; *q && *q != '='; q++)
				;
			if (*q != '=' || !prom_name_ok(p, (size_t)(q - p)) ||
			    q[1] != '"')
				return false;
			for (p = q + 2; *p && *p != '"'; p++) {
				if (*p == '\\') {
					p++;
					if (*p != '\\' && *p != '"' &&
					    *p != 'n')
						return false;
				}
			}
			if (*p != '"')
				return false;
			p++;
			if (*p == ',') {
				p++;
				continue;
			}
			if (*p != '}')
				return false;
			p++;
			break;
		}
	}
	if (*p != ' ')
		return false;
	p++;
	*v = strtod(p, &e);
	return e != p && *e == '\0';
}

/* ---- bucket math ------------------------------------------------------ */

static void test_bucket_bounds(void **state)
{
	uint64_t prev = 0, up, lo;
	unsigned int i;

	(void)state;
	assert_int_equal(STATS_NBUCKETS, 98);
	assert_int_equal(stats_bucket(0), 0);
	assert_int_equal(stats_bucket(1023), 0);
	assert_int_equal(stats_bucket(1024), 1);
	assert_int_equal(stats_bucket(1279), 1);
	assert_int_equal(stats_bucket(1280), 2);
	assert_int_equal(stats_bucket(2047), 4);
	assert_int_equal(stats_bucket(2048), 5);
	assert_int_equal(stats_bucket((UINT64_C(1) << 34) - 1), 96);
	assert_int_equal(stats_bucket(UINT64_C(1) << 34), 97);
	assert_int_equal(stats_bucket(UINT64_MAX), 97);
	assert_true(stats_bucket_upper(97) == UINT64_MAX);
	for (i = 0; i < STATS_NBUCKETS - 1; i++) {
		up = stats_bucket_upper(i);
		lo = i ? stats_bucket_upper(i - 1) : 0;
		assert_true(up > prev);
		prev = up;
		/* Every bucket holds exactly [lo, up). */
		assert_int_equal(stats_bucket(lo), i);
		assert_int_equal(stats_bucket(up - 1), i);
		assert_int_equal(stats_bucket(up), i + 1);
		/* Log-linear: width at most a quarter of the lower bound. */
		if (i)
			assert_true((up - lo) * 4 <= lo);
	}
	/* 1 us and 10 s both fall inside the counted range. */
	assert_true(stats_bucket(1000) == 0);
	assert_true(stats_bucket(10000000000ull) < STATS_NBUCKETS - 1);
}

static void test_bucket_sweep_monotonic(void **state)
{
	unsigned int prev = 0, b;
	uint64_t v;

	(void)state;
	for (v = 1; v < (UINT64_C(1) << 40); v += v / 7 + 1) {
		b = stats_bucket(v);
		assert_true(b >= prev);
		assert_true(b < STATS_NBUCKETS);
		if (b < STATS_NBUCKETS - 1)
			assert_true(v < stats_bucket_upper(b));
		if (b)
			assert_true(v >= stats_bucket_upper(b - 1));
		prev = b;
	}
}

static void test_quantiles(void **state)
{
	struct stats_proc_snap p;
	unsigned int b10 = stats_bucket(10000);
	uint64_t v;

	(void)state;
	memset(&p, 0, sizeof(p));
	assert_int_equal(stats_quantile_ns(&p, 0.5), 0);

	/* 100 calls of 10 us and one of 5 ms. */
	p.buckets[b10] = 100;
	p.buckets[stats_bucket(5000000)] = 1;
	p.count = 101;
	p.max_ns = 5000000;
	v = stats_quantile_ns(&p, 0.5);
	assert_true(v >= stats_bucket_upper(b10 - 1));
	assert_true(v < stats_bucket_upper(b10));
	v = stats_quantile_ns(&p, 0.99);
	assert_true(v < stats_bucket_upper(b10));
	v = stats_quantile_ns(&p, 1.0);
	assert_true(v == 5000000);
	/* Never above the maximum, even inside the overflow bucket. */
	memset(&p, 0, sizeof(p));
	p.buckets[STATS_NBUCKETS - 1] = 3;
	p.count = 3;
	p.max_ns = 30000000000ull;
	v = stats_quantile_ns(&p, 0.99);
	assert_true(v >= stats_bucket_upper(STATS_NBUCKETS - 2));
	assert_true(v <= p.max_ns);
	/* Uniform 1..1000 us: p50 near 500 us, within one bucket's error. */
	memset(&p, 0, sizeof(p));
	for (v = 1; v <= 1000; v++)
		p.buckets[stats_bucket(v * 1000)]++;
	p.count = 1000;
	p.max_ns = 1000000;
	v = stats_quantile_ns(&p, 0.5);
	assert_true(v > 400000 && v < 625000);
	v = stats_quantile_ns(&p, 0.99);
	assert_true(v > 900000 && v <= 1000000);
}

/* ---- recording -------------------------------------------------------- */

static void test_slot_add(void **state)
{
	int a, b, c;

	(void)state;
	a = stats_slot_add("test", 1, 0, "NULL");
	b = stats_slot_add("test", 1, 1, "PING");
	c = stats_slot_add("test", 1, 0, "NULL");
	assert_true(a >= 0 && b >= 0);
	assert_int_not_equal(a, b);
	assert_int_equal(a, c);
	assert_int_not_equal(stats_slot_add("test", 2, 0, "NULL"), a);
}

static void test_record_and_snapshot(void **state)
{
	struct stats_snapshot *s0, *s1;
	const struct stats_proc_snap *p;
	int slot = stats_slot_add("rec", 1, 3, "THREE");

	(void)state;
	assert_true(slot >= 0);
	s0 = snap();
	stats_record_latency(slot, 2000, false, false);
	stats_record_latency(slot, 4000, true, false);
	stats_record_latency(slot, 6000, false, true);
	stats_record_latency(-1, 6000, false, true); /* ignored */
	stats_add_bytes_read(100);
	stats_add_bytes_written(7);
	stats_call_rejected();
	stats_conn_open();
	stats_conn_open();
	stats_conn_close();
	s1 = snap();
	p = find_proc(s1, "rec", 1, "THREE");
	assert_non_null(p);
	assert_int_equal(p->procnum, 3);
	assert_int_equal(p->count, 3);
	assert_int_equal(p->rpc_errors, 1);
	assert_int_equal(p->status_errors, 1);
	assert_int_equal(p->sum_ns, 12000);
	assert_int_equal(p->max_ns, 6000);
	assert_int_equal(p->buckets[stats_bucket(2000)], 1);
	assert_int_equal(s1->bytes_read - s0->bytes_read, 100);
	assert_int_equal(s1->bytes_written - s0->bytes_written, 7);
	assert_int_equal(s1->rejected - s0->rejected, 1);
	assert_int_equal(s1->conns_current - s0->conns_current, 1);
	assert_int_equal(s1->conns_total - s0->conns_total, 2);
	assert_true(s1->uptime >= 0);
	assert_true(s1->rss_bytes > 0);
	assert_true(s1->max_rss_bytes >= s1->rss_bytes);
	stats_conn_close();
	stats_snapshot_free(s0);
	stats_snapshot_free(s1);
}

#define THREADS	   8
#define PER_THREAD 200000

static int conc_slot;

static void *conc_worker(void *arg)
{
	uintptr_t id = (uintptr_t)arg;
	unsigned int i;

	for (i = 0; i < PER_THREAD; i++) {
		stats_record_latency(conc_slot, 1000 + (i % 4096) * id,
				     (i % 10) == 0, (i % 100) == 0);
		stats_add_bytes_read(3);
	}
	return NULL;
}

static void run_workers(void)
{
	pthread_t t[THREADS];
	uintptr_t i;

	for (i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, conc_worker,
						(void *)(i + 1)),
				 0);
	for (i = 0; i < THREADS; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
}

/*
 * Threads record concurrently while a reader takes snapshots; totals are
 * exact afterwards. A second round of threads adopts the exited threads'
 * shards and the totals keep adding up.
 */
static void test_concurrent_exact(void **state)
{
	struct stats_snapshot *s0, *s1, *s2, *mid;
	const struct stats_proc_snap *p;
	uint64_t sum = 0, i, id;

	(void)state;
	conc_slot = stats_slot_add("conc", 1, 0, "HAMMER");
	assert_true(conc_slot >= 0);
	s0 = snap();
	run_workers();
	s1 = snap();
	p = find_proc(s1, "conc", 1, "HAMMER");
	assert_non_null(p);
	assert_int_equal(p->count, THREADS * PER_THREAD);
	assert_int_equal(p->rpc_errors, THREADS * PER_THREAD / 10);
	assert_int_equal(p->status_errors, THREADS * PER_THREAD / 100);
	for (id = 1; id <= THREADS; id++)
		for (i = 0; i < PER_THREAD; i++)
			sum += 1000 + (i % 4096) * id;
	assert_true(p->sum_ns == sum);
	assert_true(p->max_ns == 1000 + 4095 * THREADS);
	assert_int_equal(s1->bytes_read - s0->bytes_read,
			 3ull * THREADS * PER_THREAD);

	/* Round two, with a snapshot racing the writers. */
	{
		pthread_t t[THREADS];
		uintptr_t k;

		for (k = 0; k < THREADS; k++)
			assert_int_equal(pthread_create(&t[k], NULL,
							conc_worker,
							(void *)(k + 1)),
					 0);
		mid = snap();
		p = find_proc(mid, "conc", 1, "HAMMER");
		assert_true(p->count >= THREADS * PER_THREAD &&
			    p->count <= 2 * THREADS * PER_THREAD);
		stats_snapshot_free(mid);
		for (k = 0; k < THREADS; k++)
			assert_int_equal(pthread_join(t[k], NULL), 0);
	}
	s2 = snap();
	p = find_proc(s2, "conc", 1, "HAMMER");
	assert_int_equal(p->count, 2 * THREADS * PER_THREAD);
	assert_true(p->sum_ns == 2 * sum);
	stats_snapshot_free(s0);
	stats_snapshot_free(s1);
	stats_snapshot_free(s2);
}

/* ---- the RPC dispatcher's hooks --------------------------------------- */

#define TPROG 0x20000099u

static bool t_dec_u32(struct xdr_buf *x, void *args)
{
	return xdr_dec_u32(x, args);
}

static bool t_enc_status(struct xdr_buf *x, const void *res)
{
	return xdr_enc_u32(x, *(const uint32_t *)res);
}

/* Answers its argument as the protocol status. */
static void t_echo(struct rpc_call *call, const void *args, void *res)
{
	(void)call;
	*(uint32_t *)res = *(const uint32_t *)args;
}

static const struct rpc_proc t_procs[] = {
	[0] = {.name = "NULL"},
	[1] =
		{
			.name = "ECHO",
			.args_size = sizeof(uint32_t),
			.res_size = sizeof(uint32_t),
			.decode = t_dec_u32,
			.handle = t_echo,
			.encode = t_enc_status,
			.flags = RPC_PROC_RES_STATUS,
		},
};

static const struct rpc_version t_versions[] = {
	{.vers = 1, .nprocs = 2, .procs = t_procs},
};

static const struct rpc_program t_program = {
	.prog = TPROG,
	.name = "tprog",
	.nversions = 1,
	.versions = t_versions,
};

/* Build and process one call; returns whether a reply was made. */
static bool t_call(uint32_t vers, uint32_t proc, const uint32_t *arg)
{
	static uint32_t xid = 1;
	uint32_t rec[16];
	size_t n = 0;
	static struct sockaddr_storage peer;
	struct req *r = calloc(1, sizeof(*r));
	void *arena = malloc(4096);
	bool ok;

	assert_non_null(r);
	assert_non_null(arena);
	rec[n++] = htonl(xid++);
	rec[n++] = htonl(0); /* CALL */
	rec[n++] = htonl(2);
	rec[n++] = htonl(TPROG);
	rec[n++] = htonl(vers);
	rec[n++] = htonl(proc);
	rec[n++] = htonl(0); /* AUTH_NONE credential */
	rec[n++] = htonl(0);
	rec[n++] = htonl(0); /* AUTH_NONE verifier */
	rec[n++] = htonl(0);
	if (arg)
		rec[n++] = htonl(*arg);
	req_init(r, arena, 4096);
	peer.ss_family = AF_INET;
	r->peer = &peer;
	r->peer_len = sizeof(struct sockaddr_in);
	r->msg = (uint8_t *)rec;
	r->msg_len = n * 4;
	ok = rpc_process(r) == REQ_REPLY;
	req_finish(r);
	free(arena);
	free(r);
	return ok;
}

static void test_rpc_hooks(void **state)
{
	const struct stats_proc_snap *echo, *null;
	struct stats_snapshot *s;
	uint32_t zero = 0, bad = 70;

	(void)state;
	rpc_register_program(&t_program);
	assert_true(t_call(1, 0, NULL));
	assert_true(t_call(1, 1, &zero));
	assert_true(t_call(1, 1, &bad)); /* non-OK status */
	assert_true(t_call(1, 1, NULL)); /* GARBAGE_ARGS */
	assert_true(t_call(1, 7, NULL)); /* PROC_UNAVAIL: rejected */
	assert_true(t_call(9, 0, NULL)); /* PROG_MISMATCH: rejected */
	/* Registering again keeps the same slots and counts. */
	rpc_register_program(&t_program);
	s = snap();
	null = find_proc(s, "tprog", 1, "NULL");
	echo = find_proc(s, "tprog", 1, "ECHO");
	assert_non_null(null);
	assert_non_null(echo);
	assert_int_equal(null->count, 1);
	assert_int_equal(null->rpc_errors, 0);
	assert_int_equal(echo->count, 3);
	assert_int_equal(echo->status_errors, 1);
	assert_int_equal(echo->rpc_errors, 1);
	assert_true(echo->max_ns > 0);
	assert_true(s->rejected >= 2);
	stats_snapshot_free(s);
}

/* ---- rendering -------------------------------------------------------- */

static void test_render_json(void **state)
{
	struct stats_snapshot *s;
	char *out;
	size_t len;
	int slot = stats_slot_add("we\"ird\\prog\n", 4, 1, "A\tB");

	(void)state;
	assert_true(slot >= 0);
	stats_record_latency(slot, 12345, false, false);
	s = snap();
	assert_int_equal(stats_render(s, STATS_JSON, &out, &len), 0);
	assert_int_equal(strlen(out), len);
	assert_true(json_valid(out, len));
	assert_non_null(strstr(out, "\"procedures\":["));
	assert_non_null(
		strstr(out, "\"program\":\"we\\\"ird\\\\prog\\u000a\""));
	assert_non_null(strstr(out, "\"procedure\":\"HAMMER\""));
	assert_non_null(strstr(out, "\"bytes_read\":"));
	/* The checker does catch broken JSON. */
	assert_false(json_valid(out, len - 3));
	assert_false(json_valid("{\"a\":1,}", 8));
	free(out);

	/* An empty snapshot is valid JSON too. */
	memset(s, 0, sizeof(*s));
	assert_int_equal(stats_render(s, STATS_JSON, &out, &len), 0);
	assert_true(json_valid(out, len));
	free(out);
	stats_snapshot_free(s);
}

static void test_render_prometheus(void **state)
{
	struct stats_snapshot *s;
	char *out, *line, *save = NULL, name[128], lastname[128] = "";
	double v, prev = -1, count_inf = -1;
	size_t len, nlines = 0;
	bool seen_req = false, seen_hist = false, seen_cpu = false;

	(void)state;
	s = snap();
	assert_int_equal(stats_render(s, STATS_PROMETHEUS, &out, &len), 0);
	assert_int_equal(strlen(out), len);
	assert_true(len > 0 && out[len - 1] == '\n');
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		nlines++;
		if (!prom_line_ok(line, name, sizeof(name), &v))
			fail_msg("bad exposition line: %s", line);
		if (!name[0])
			continue;
		if (!strcmp(name, "nasd_rpc_requests_total"))
			seen_req = true;
		if (!strcmp(name, "process_cpu_seconds_total"))
			seen_cpu = true;
		/* Histogram buckets are cumulative; +Inf equals _count. */
		if (!strcmp(name, "nasd_rpc_latency_seconds_bucket")) {
			seen_hist = true;
			if (strcmp(lastname, name) ||
			    strstr(line, "le=\"1.024e-06\""))
				prev = -1;
			assert_true(v >= prev);
			prev = v;
			if (strstr(line, "le=\"+Inf\""))
				count_inf = v;
		}
		if (!strcmp(name, "nasd_rpc_latency_seconds_count")) {
			assert_true(v == count_inf);
			prev = -1;
		}
		snprintf(lastname, sizeof(lastname), "%s", name);
	}
	assert_true(nlines > 20);
	assert_true(seen_req && seen_hist && seen_cpu);
	free(out);

	/* The line checker rejects what Prometheus would. */
	assert_false(prom_line_ok("9bad 1", name, sizeof(name), &v));
	assert_false(prom_line_ok("a{b=\"c} 1", name, sizeof(name), &v));
	assert_false(prom_line_ok("a 1x", name, sizeof(name), &v));
	assert_true(prom_line_ok("a{b=\"c\\\"\"} 1.5", name, sizeof(name), &v));
	stats_snapshot_free(s);
}

static void test_render_text(void **state)
{
	struct stats_snapshot *s = snap();
	char *out;
	size_t len;
	enum stats_format f;

	(void)state;
	assert_int_equal(stats_render(s, STATS_TEXT, &out, &len), 0);
	assert_non_null(strstr(out, "PROCEDURE"));
	assert_non_null(strstr(out, "conc/1/HAMMER"));
	assert_non_null(strstr(out, "P99(us)"));
	free(out);
	assert_int_equal(stats_format_parse("json", &f), 0);
	assert_int_equal(f, STATS_JSON);
	assert_int_equal(stats_format_parse("prometheus", &f), 0);
	assert_int_equal(f, STATS_PROMETHEUS);
	assert_int_equal(stats_format_parse("text", &f), 0);
	assert_int_equal(f, STATS_TEXT);
	assert_int_equal(stats_format_parse("xml", &f), -EINVAL);
	assert_int_equal(stats_render(s, (enum stats_format)9, &out, &len),
			 -EINVAL);
	stats_snapshot_free(s);
}

/* ---- /metrics HTTP handling ------------------------------------------- */

static int http(const char *req, bool full, char **reply)
{
	size_t rlen;
	int ret = metrics_http_handle(req, strlen(req), full, reply, &rlen);

	if (ret == 1)
		assert_int_equal(strlen(*reply), rlen);
	return ret;
}

static void expect_status(const char *req, bool full, const char *status)
{
	char *r = NULL;

	assert_int_equal(http(req, full, &r), 1);
	if (strncmp(r, status, strlen(status)))
		fail_msg("%s -> %.40s, want %s", req, r, status);
	assert_non_null(strstr(r, "Connection: close\r\n"));
	free(r);
}

static void test_http(void **state)
{
	char *r = NULL, big[METRICS_REQ_MAX + 1];
	const char *body;
	unsigned long clen;

	(void)state;
	assert_int_equal(http("", false, &r), 0);
	assert_int_equal(http("GET /metr", false, &r), 0);
	assert_int_equal(
		http("GET /metrics HTTP/1.1\r\nHost: x\r\n", false, &r), 0);
	assert_int_equal(
		http("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", false, &r), 1);
	assert_memory_equal(r, "HTTP/1.1 200 OK\r\n", 17);
	assert_non_null(strstr(r, "text/plain; version=0.0.4"));
	body = strstr(r, "\r\n\r\n");
	assert_non_null(body);
	body += 4;
	assert_true(sscanf(strstr(r, "Content-Length: "), "Content-Length: %lu",
			   &clen) == 1);
	assert_int_equal(clen, strlen(body));
	assert_non_null(strstr(body, "nasd_rpc_requests_total{"));
	free(r);

	expect_status("GET /metrics?x=1 HTTP/1.0\n\n", false, "HTTP/1.1 200 ");
	expect_status("GET / HTTP/1.1\r\n\r\n", false, "HTTP/1.1 404 ");
	expect_status("GET /metricsX HTTP/1.1\r\n\r\n", false, "HTTP/1.1 404 ");
	expect_status("POST /metrics HTTP/1.1\r\n\r\n", false, "HTTP/1.1 405 ");
	/* A bad request line is answered as soon as it is complete. */
	expect_status("\x01\x02\r\n", false, "HTTP/1.1 400 ");
	expect_status("GET  /metrics HTTP/1.1\r\n", false, "HTTP/1.1 400 ");
	expect_status("GET metrics HTTP/1.1\r\n", false, "HTTP/1.1 400 ");
	expect_status("GET /metrics HTTP/2.0\r\n", false, "HTTP/1.1 400 ");
	expect_status("GET /metrics\r\n", false, "HTTP/1.1 400 ");
	expect_status("GET /met rics HTTP/1.1\r\n", false, "HTTP/1.1 400 ");
	/* The peer stopped sending before the head ended. */
	expect_status("GET /metrics HTTP/1.1\r\nHost: x", true,
		      "HTTP/1.1 400 ");
	/* A head that fills the buffer. */
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	expect_status(big, true, "HTTP/1.1 431 ");
	memcpy(big, "GET /metrics HTTP/1.1\r\nX: ", 26);
	expect_status(big, true, "HTTP/1.1 431 ");

	/* HEAD: the length of the body, but no body. */
	assert_int_equal(http("HEAD /metrics HTTP/1.1\r\n\r\n", false, &r), 1);
	assert_memory_equal(r, "HTTP/1.1 200 OK\r\n", 17);
	body = strstr(r, "\r\n\r\n");
	assert_non_null(body);
	assert_string_equal(body, "\r\n\r\n");
	assert_true(sscanf(strstr(r, "Content-Length: "), "Content-Length: %lu",
			   &clen) == 1);
	assert_true(clen > 100);
	free(r);
}

/* Last: fills the slot table. */
static void test_slots_full(void **state)
{
	char name[16];
	unsigned int i;
	int ret = 0;

	(void)state;
	for (i = 0; i <= STATS_MAX_SLOTS && ret >= 0; i++) {
		snprintf(name, sizeof(name), "P%u", i);
		ret = stats_slot_add("fill", 1, i, name);
	}
	assert_int_equal(ret, -ENOSPC);
	/* Existing triples are still found; recording to -ENOSPC is a no-op. */
	assert_true(stats_slot_add("fill", 1, 0, "P0") >= 0);
	stats_record_latency(-ENOSPC, 5, true, true);
	stats_call_done(-ENOSPC, 0, true, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bucket_bounds),
		cmocka_unit_test(test_bucket_sweep_monotonic),
		cmocka_unit_test(test_quantiles),
		cmocka_unit_test(test_slot_add),
		cmocka_unit_test(test_record_and_snapshot),
		cmocka_unit_test(test_concurrent_exact),
		cmocka_unit_test(test_rpc_hooks),
		cmocka_unit_test(test_render_json),
		cmocka_unit_test(test_render_prometheus),
		cmocka_unit_test(test_render_text),
		cmocka_unit_test(test_http),
		cmocka_unit_test(test_slots_full),
	};

	stats_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
