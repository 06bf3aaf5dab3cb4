// SPDX-License-Identifier: MIT
/*
 * nlm_api: NLM v4 (XNFS §14, RFC 1813 Appendix II) against a running nasd
 * through libnfs's own NLM client (rpc_nlm4_*_async), a codec nobody here
 * wrote: NULL, TEST (free, and denied with the holder reported), LOCK
 * (granted, denied, blocked), CANCEL (of a lock that is not waiting: denied;
 * of one that is: granted), UNLOCK, a stale handle; and, in the grace
 * period after a restart, a new LOCK refused and a reclaim granted.
 *
 * usage: nlm_api PORT EXPORT locks    the first run: leaves lock "R" held
 *        nlm_api PORT EXPORT grace    after a restart, in the grace period
 *        nlm_api PORT EXPORT gateways PORT_B
 *            two servers of one shared filesystem (CephFS gateways, the
 *            same handle key): locks taken through one conflict through
 *            the other, both ways, with POSIX splits and shared locks;
 *            leaves lock "K" (bytes 5000-5009) held through PORT
 *        nlm_api PORT_B EXPORT takeover
 *            after PORT's server was killed and restarted: lock "K"'s
 *            bytes can be taken through PORT_B (within 20 s)
 *
 * The file is EXPORT/nlm-api (made by the first run over NFSv3). Prints
 * "ok - NAME" or "not ok - NAME: DETAIL" per check; exits 1 if any failed.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <nfsc/libnfs-raw-nlm.h>

#include "nt_raw.h"

#define HOST "127.0.0.1"
#define NLM_PROG 100021
#define NLM_V4 4
#define CALLER "libnfs-nlm-api"

static int n_failed;

static void check(int cond, const char *name, const char *fmt, ...)
{
	va_list ap;

	if (cond) {
		printf("ok - %s\n", name);
	} else {
		printf("not ok - %s: ", name);
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		printf("\n");
		n_failed++;
	}
	fflush(stdout);
}

/* What an NLM reply said (copied out of libnfs's structures). */
struct nlm_res {
	struct nt_res r;          /* done, rpc_status, error; status */
	bool has_holder;
	uint32_t exclusive, svid;
	char oh[64];
	uint64_t off, len;
};

static void nlm_cb(struct rpc_context *rpc, int status, void *data,
		   void *priv, int proc)
{
	struct nlm_res *res = priv;

	(void)rpc;
	res->r.done = true;
	res->r.rpc_status = status;
	if (status != RPC_STATUS_SUCCESS) {
		snprintf(res->r.error, sizeof(res->r.error), "rpc status %d",
			 status);
		return;
	}
	switch (proc) {
	case 0:
		res->r.status = 0;
		break;
	case 1: {
		const NLM4_TESTres *t = data;

		res->r.status = t->reply.status;
		if (t->reply.status == NLM4_DENIED) {
			const nlm4_holder *h = &t->reply.nlm4_testreply_u.lock
							.holder;

			res->has_holder = true;
			res->exclusive = h->exclusive;
			res->svid = h->svid;
			snprintf(res->oh, sizeof(res->oh), "%s",
				 h->oh ? h->oh : "");
			res->off = h->l_offset;
			res->len = h->l_len;
		}
		break;
	}
	case 2:
		res->r.status = ((const NLM4_LOCKres *)data)->status;
		break;
	case 3:
		res->r.status = ((const NLM4_CANCres *)data)->status;
		break;
	case 4:
		res->r.status = ((const NLM4_UNLOCKres *)data)->status;
		break;
	}
}

#define CB(n)                                                                  \
	static void cb##n(struct rpc_context *rpc, int status, void *data,     \
			  void *priv)                                          \
	{                                                                      \
		nlm_cb(rpc, status, data, priv, n);                            \
	}
CB(0)
CB(1)
CB(2)
CB(3)
CB(4)

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static struct nt_fh file_fh;
static struct rpc_context *nlm;

static void lock_of(nlm4_lock *l, const char *oh, uint32_t svid,
		    uint64_t off, uint64_t len, const struct nt_fh *fh)
{
	memset(l, 0, sizeof(*l));
	l->caller_name = (char *)CALLER;
	l->fh.data.data_len = fh->len;
	l->fh.data.data_val = (char *)fh->data;
	/* libnfs's nlm4_oh is a string (XDR opaque in the protocol) */
	l->oh = (char *)oh;
	l->svid = svid;
	l->l_offset = off;
	l->l_len = len;
}

static int wait_res(int rc, struct nlm_res *res)
{
	if (rc != 0) {
		snprintf(res->r.error, sizeof(res->r.error), "not sent: %s",
			 rpc_get_error(nlm));
		return -1;
	}
	return nt_wait(nlm, &res->r);
}

static int nlm_test(const char *oh, uint32_t svid, uint64_t off,
		    uint64_t len, const struct nt_fh *fh, struct nlm_res *res)
{
	NLM4_TESTargs a;

	memset(res, 0, sizeof(*res));
	memset(&a, 0, sizeof(a));
	a.exclusive = 1;
	lock_of(&a.lock, oh, svid, off, len, fh);
	return wait_res(rpc_nlm4_test_async(nlm, cb1, &a, res), res);
}

/* Shared (read) locks for the next nlm_lock()s while set. */
static bool lock_shared;

static int nlm_lock(const char *oh, uint32_t svid, uint64_t off,
		    uint64_t len, bool block, bool reclaim,
		    const struct nt_fh *fh, struct nlm_res *res)
{
	NLM4_LOCKargs a;

	memset(res, 0, sizeof(*res));
	memset(&a, 0, sizeof(a));
	a.block = block;
	a.exclusive = !lock_shared;
	a.reclaim = reclaim;
	a.state = 1;
	lock_of(&a.lock, oh, svid, off, len, fh);
	return wait_res(rpc_nlm4_lock_async(nlm, cb2, &a, res), res);
}

static int nlm_cancel(const char *oh, uint32_t svid, uint64_t off,
		      uint64_t len, struct nlm_res *res)
{
	NLM4_CANCargs a;

	memset(res, 0, sizeof(*res));
	memset(&a, 0, sizeof(a));
	a.block = 1;
	a.exclusive = 1;
	lock_of(&a.lock, oh, svid, off, len, &file_fh);
	return wait_res(rpc_nlm4_cancel_async(nlm, cb3, &a, res), res);
}

static int nlm_unlock(const char *oh, uint32_t svid, uint64_t off,
		      uint64_t len, struct nlm_res *res)
{
	NLM4_UNLOCKargs a;

	memset(res, 0, sizeof(*res));
	memset(&a, 0, sizeof(a));
	lock_of(&a.lock, oh, svid, off, len, &file_fh);
	return wait_res(rpc_nlm4_unlock_async(nlm, cb4, &a, res), res);
}

static void expect(int rc, const struct nlm_res *res, int want,
		   const char *name)
{
	if (rc != 0)
		check(0, name, "no reply: %s", res->r.error);
	else
		check(res->r.status == want, name, "expected %d, got %d",
		      want, res->r.status);
}

/* The file's handle over MOUNT + NFSv3 (created by the first run). */
static int file_handle(int port, const char *export, bool create)
{
	struct rpc_context *m = nt_rpc_new(HOST, port, MOUNT_PROGRAM,
					   MOUNT_V3, 0, 0);
	struct rpc_context *n = nt_rpc_new(HOST, port, NFS_PROGRAM, NFS_V3,
					   0, 0);
	struct nt_res r = { 0 };
	struct nt_fh root;
	int ok = -1;

	if (!m || !n)
		goto out;
	if (nt_mnt(m, export, &r) || r.status || !r.has_fh)
		goto out;
	root = r.fh;
	nt_res_clear(&r);
	if (create)
		(void)nt_create(n, &root, "nlm-api", 0, NULL, NULL, &r);
	nt_res_clear(&r);
	if (nt_lookup(n, &root, "nlm-api", &r) || r.status || !r.has_fh)
		goto out;
	file_fh = r.fh;
	ok = 0;
out:
	nt_res_clear(&r);
	if (m)
		rpc_destroy_context(m);
	if (n)
		rpc_destroy_context(n);
	return ok;
}

static void run_locks(void)
{
	struct nlm_res res;
	struct nt_fh stale;
	int rc;

	memset(&res, 0, sizeof(res));
	rc = wait_res(rpc_nlm4_null_async(nlm, cb0, &res), &res);
	check(rc == 0, "nlm4_null", "%s", res.r.error);

	rc = nlm_test("A", 1, 0, 100, &file_fh, &res);
	expect(rc, &res, NLM4_GRANTED, "test_free_granted");
	rc = nlm_lock("A", 1, 0, 100, false, false, &file_fh, &res);
	expect(rc, &res, NLM4_GRANTED, "lock_granted");
	rc = nlm_test("B", 2, 50, 10, &file_fh, &res);
	expect(rc, &res, NLM4_DENIED, "test_conflict_denied");
	check(res.has_holder && res.exclusive == 1 && res.svid == 1 &&
	      !strcmp(res.oh, "A") && res.off == 0 && res.len == 100,
	      "test_holder_reported", "holder excl %u svid %u oh '%s' "
	      "off %llu len %llu", res.exclusive, res.svid, res.oh,
	      (unsigned long long)res.off, (unsigned long long)res.len);
	rc = nlm_lock("B", 2, 50, 10, false, false, &file_fh, &res);
	expect(rc, &res, NLM4_DENIED, "lock_nonblocking_denied");
	rc = nlm_cancel("B", 2, 50, 10, &res);
	expect(rc, &res, NLM4_DENIED, "cancel_not_waiting_denied");
	rc = nlm_lock("B", 2, 50, 10, true, false, &file_fh, &res);
	expect(rc, &res, NLM4_BLOCKED, "lock_blocking_blocked");
	rc = nlm_cancel("B", 2, 50, 10, &res);
	expect(rc, &res, NLM4_GRANTED, "cancel_waiting_granted");
	rc = nlm_unlock("A", 1, 0, 100, &res);
	expect(rc, &res, NLM4_GRANTED, "unlock_granted");
	rc = nlm_test("B", 2, 50, 10, &file_fh, &res);
	expect(rc, &res, NLM4_GRANTED, "test_after_unlock_granted");
	stale = file_fh;
	stale.data[stale.len - 1] ^= 1;
	rc = nlm_lock("A", 1, 0, 1, false, false, &stale, &res);
	expect(rc, &res, NLM4_STALE_FH, "forged_handle_stale_fh");
	rc = nlm_test("A", 1, 0, 1, &stale, &res);
	expect(rc, &res, NLM4_STALE_FH, "test_forged_handle_stale_fh");
	/* held over the restart, reclaimed by the grace run */
	rc = nlm_lock("R", 7, 1000, 10, false, false, &file_fh, &res);
	expect(rc, &res, NLM4_GRANTED, "lock_for_restart_granted");
}

static void run_grace(void)
{
	struct nlm_res res;
	int rc;

	rc = nlm_lock("N", 8, 0, 10, false, false, &file_fh, &res);
	expect(rc, &res, NLM4_DENIED_GRACE_PERIOD, "grace_new_lock_refused");
	rc = nlm_test("N", 8, 0, 10, &file_fh, &res);
	expect(rc, &res, NLM4_DENIED_GRACE_PERIOD, "grace_test_refused");
	rc = nlm_lock("R", 7, 1000, 10, false, true, &file_fh, &res);
	expect(rc, &res, NLM4_GRANTED, "grace_reclaim_granted");
	rc = nlm_unlock("R", 7, 1000, 10, &res);
	expect(rc, &res, NLM4_GRANTED, "grace_unlock_reclaimed");
}

/*
 * Two gateways: @nlm talks to A, @b to B. Owners "A" (svid 1) through A
 * and "B" (svid 2) through B; one file, one handle for both.
 */
static void run_gateways(struct rpc_context *b)
{
	struct rpc_context *a = nlm;
	struct nlm_res res;
	int rc, i;

#define VIA(ctx) (nlm = (ctx))
	VIA(a);
	rc = nlm_lock("A", 1, 0, 100, false, false, &file_fh, &res);
	expect(rc, &res, NLM4_GRANTED, "gw_a_lock_granted");
	VIA(b);
	rc = nlm_test("B", 2, 50, 10, &file_fh, &res);
	expect(rc, &res, NLM4_DENIED, "gw_b_test_denied_by_a");
	/* another server's lock: its range, no owner of ours to name */
	check(res.has_holder && res.exclusive == 1 && res.off == 0 &&
	      res.len == 100, "gw_b_test_reports_range",
	      "holder excl %u off %llu len %llu", res.exclusive,
	      (unsigned long long)res.off, (unsigned long long)res.len);
	rc = nlm_lock("B", 2, 50, 10, false, false, &file_fh, &res);
	expect(rc, &res, NLM4_DENIED, "gw_b_lock_denied_by_a");
	rc = nlm_lock("B", 2, 200, 10, false, false, &file_fh, &res);
	expect(rc, &res, NLM4_GRANTED, "gw_b_lock_elsewhere_granted");
	VIA(a);
	rc = nlm_lock("A", 1, 205, 1, false, false, &file_fh, &res);
	expect(rc, &res, NLM4_DENIED, "gw_a_lock_denied_by_b");
	/* POSIX split: A gives back 40..59 of its 0..99 */
	rc = nlm_unlock("A", 1, 40, 20, &res);
	expect(rc, &res, NLM4_GRANTED, "gw_a_unlock_middle");
	VIA(b);
	rc = nlm_lock("B", 2, 45, 10, false, false, &file_fh, &res);
	expect(rc, &res, NLM4_GRANTED, "gw_b_lock_in_hole_granted");
	rc = nlm_lock("B", 2, 30, 5, false, false, &file_fh, &res);
	expect(rc, &res, NLM4_DENIED, "gw_b_lock_left_piece_denied");
	rc = nlm_lock("B", 2, 90, 5, false, false, &file_fh, &res);
	expect(rc, &res, NLM4_DENIED, "gw_b_lock_right_piece_denied");
	/* a blocked lock through B is granted once A lets go (B's
	 * retries: no wake-up crosses servers) */
	rc = nlm_lock("B", 3, 0, 10, true, false, &file_fh, &res);
	expect(rc, &res, NLM4_BLOCKED, "gw_b_blocking_lock_blocked");
	VIA(a);
	rc = nlm_unlock("A", 1, 0, 100, &res);
	expect(rc, &res, NLM4_GRANTED, "gw_a_unlock_all");
	for (i = 0; i < 100; i++) {
		rc = nlm_test("A", 1, 0, 10, &file_fh, &res);
		if (rc != 0 || res.r.status == NLM4_DENIED)
			break;
		sleep_ms(100);
	}
	expect(rc, &res, NLM4_DENIED, "gw_b_blocked_lock_granted_later");
	VIA(b);
	rc = nlm_unlock("B", 3, 0, 10, &res);
	expect(rc, &res, NLM4_GRANTED, "gw_b_unlock_granted_block");
	rc = nlm_unlock("B", 2, 0, 0, &res);
	expect(rc, &res, NLM4_GRANTED, "gw_b_unlock_all");
	/* shared locks share across servers; exclusive ones do not */
	lock_shared = true;
	rc = nlm_lock("B", 2, 0, 100, false, false, &file_fh, &res);
	expect(rc, &res, NLM4_GRANTED, "gw_b_shared_granted");
	VIA(a);
	rc = nlm_lock("A", 1, 50, 100, false, false, &file_fh, &res);
	expect(rc, &res, NLM4_GRANTED, "gw_a_shared_over_b_shared_granted");
	lock_shared = false;
	rc = nlm_lock("A", 1, 60, 1, false, false, &file_fh, &res);
	expect(rc, &res, NLM4_DENIED, "gw_a_upgrade_denied_by_b_shared");
	rc = nlm_unlock("A", 1, 0, 0, &res);
	expect(rc, &res, NLM4_GRANTED, "gw_a_unlock_shared");
	VIA(b);
	rc = nlm_unlock("B", 2, 0, 0, &res);
	expect(rc, &res, NLM4_GRANTED, "gw_b_unlock_shared");
	VIA(a);
	rc = nlm_lock("A", 1, 0, 0, false, false, &file_fh, &res);
	expect(rc, &res, NLM4_GRANTED, "gw_a_whole_file_after_all_gone");
	rc = nlm_unlock("A", 1, 0, 0, &res);
	expect(rc, &res, NLM4_GRANTED, "gw_a_unlock_whole_file");
	/* held through A for the takeover run */
	rc = nlm_lock("K", 9, 5000, 10, false, false, &file_fh, &res);
	expect(rc, &res, NLM4_GRANTED, "gw_a_lock_k_held");
	VIA(b);
	rc = nlm_test("B", 2, 5005, 1, &file_fh, &res);
	expect(rc, &res, NLM4_DENIED, "gw_b_sees_lock_k");
	VIA(a);
#undef VIA
}

/* After A's kill and restart: K's bytes are free through B. */
static void run_takeover(void)
{
	struct nlm_res res;
	int rc = 0, i;

	for (i = 0; i < 200; i++) {
		rc = nlm_lock("T", 10, 5000, 10, false, false, &file_fh, &res);
		if (rc != 0 || res.r.status == NLM4_GRANTED)
			break;
		sleep_ms(100);
	}
	expect(rc, &res, NLM4_GRANTED, "takeover_lock_granted");
	printf("# takeover after %d tries\n", i + 1);
	rc = nlm_unlock("T", 10, 5000, 10, &res);
	expect(rc, &res, NLM4_GRANTED, "takeover_unlock");
}

int main(int argc, char **argv)
{
	struct rpc_context *b = NULL;
	const char *mode = argc >= 4 ? argv[3] : "";
	int port;
	bool gw = !strcmp(mode, "gateways");

	if (!(argc == 4 && (!strcmp(mode, "locks") || !strcmp(mode, "grace") ||
			    !strcmp(mode, "takeover"))) &&
	    !(argc == 5 && gw)) {
		fprintf(stderr, "usage: nlm_api PORT EXPORT "
				"locks|grace|takeover|gateways PORT_B\n");
		return 2;
	}
	port = atoi(argv[1]);
	if (file_handle(port, argv[2], !strcmp(mode, "locks") || gw) < 0) {
		check(0, "file_handle", "MOUNT/LOOKUP of %s/nlm-api failed",
		      argv[2]);
		return 1;
	}
	nlm = nt_rpc_new(HOST, port, NLM_PROG, NLM_V4, 0, 0);
	if (!nlm) {
		check(0, "nlm_connect", "no NLM connection to port %d", port);
		return 1;
	}
	if (gw) {
		b = nt_rpc_new(HOST, atoi(argv[4]), NLM_PROG, NLM_V4, 0, 0);
		if (!b) {
			check(0, "nlm_connect_b", "no NLM connection to %s",
			      argv[4]);
			return 1;
		}
		run_gateways(b);
		rpc_destroy_context(b);
	} else if (!strcmp(mode, "grace")) {
		run_grace();
	} else if (!strcmp(mode, "takeover")) {
		run_takeover();
	} else {
		run_locks();
	}
	rpc_destroy_context(nlm);
	return n_failed ? 1 : 0;
}
