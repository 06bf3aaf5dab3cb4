// SPDX-License-Identifier: MIT
/*
 * nasd's Network Status Monitor (program 100024 v1, XNFS ch. 11), as the
 * statd of its own NLM clients:
 *  - the state number (@state_dir/nsm_state) is odd while nasd runs and
 *    goes up by two at every start (XNFS §11.2);
 *  - the clients recorded before a restart (nlm_host.c's nlm_hosts) are
 *    sent SM_NOTIFY(this host's name, state) at start, through the
 *    callback thread, so that they reclaim their locks in the grace
 *    period; a record is forgotten once its notify is done or given up;
 *  - SM_NOTIFY from a client that rebooted frees its locks (as FREE_ALL):
 *    only those of the hosts of that name at the sender's address, so
 *    that no other machine can drop a client's locks;
 *  - SM_STAT answers the state; SM_MON is refused (STAT_FAIL): nasd
 *    monitors for its own NLM only, not for other local programs;
 *    SM_UNMON and SM_UNMON_ALL answer the state. SM_SIMU_CRASH is not
 *    served (PROC_UNAVAIL).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"
#include "core/statefile.h"
#include "nlm/nlm_int.h"

#define STATE_FILE   "nsm_state"
#define HOSTS_FILE   "nlm_hosts"
#define NOTIFY_TRIES 6

struct nsm_pending {
	struct nsm_pending *next;
	struct sockaddr_storage addr;
	uint32_t namelen;
	char name[];
};

static int32_t nsm_cur_state = 1;
static pthread_mutex_t pend_mu = PTHREAD_MUTEX_INITIALIZER;
static struct nsm_pending *pending;

/** nsm_state() - see nlm_int.h. */
int32_t nsm_state(void)
{
	return nsm_cur_state;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* One "ADDRESS HEXNAME" line into the pending list; false if bad. */
static bool pending_parse(const char *line, size_t len)
{
	char ab[INET6_ADDRSTRLEN + 1];
	struct sockaddr_storage ss = {0};
	const char *sp = memchr(line, ' ', len);
	struct nsm_pending *p;
	size_t alen, hlen, i;

	if (!sp || (size_t)(sp - line) >= sizeof(ab))
		return false;
	alen = (size_t)(sp - line);
	memcpy(ab, line, alen);
	ab[alen] = 0;
	if (inet_pton(AF_INET, ab, &((struct sockaddr_in *)&ss)->sin_addr) == 1)
		ss.ss_family = AF_INET;
	else if (inet_pton(AF_INET6, ab,
			   &((struct sockaddr_in6 *)&ss)->sin6_addr) == 1)
		ss.ss_family = AF_INET6;
	else
		return false;
	hlen = len - alen - 1;
	if (hlen == 1 && sp[1] == '-')
		hlen = 0;
	if (hlen % 2 || hlen / 2 > LM_MAXSTRLEN)
		return false;
	p = calloc(1, sizeof(*p) + hlen / 2 + 1);
	if (!p)
		return false;
	p->addr = ss;
	p->namelen = (uint32_t)(hlen / 2);
	for (i = 0; i < p->namelen; i++) {
		int hi = hexval(sp[1 + 2 * i]), lo = hexval(sp[2 + 2 * i]);

		if (hi < 0 || lo < 0) {
			free(p);
			return false;
		}
		p->name[i] = (char)(hi << 4 | lo);
	}
	p->next = pending;
	pending = p;
	return true;
}

/** nsm_load() - see nlm_int.h; returns the number of records. */
int nsm_load(void)
{
	size_t max = (size_t)NLM_MAX_HOSTS * 2 * (2 * LM_MAXSTRLEN + 64);
	const char *dir = nlm_config.state_dir;
	char sbuf[32], *buf, *line, *nl;
	long n, old = 0;
	int count = 0, ret;

	if (!dir)
		return 0;
	n = statefile_read(dir, STATE_FILE, sbuf, sizeof(sbuf) - 1);
	if (n > 0) {
		sbuf[n] = 0;
		old = strtol(sbuf, NULL, 10);
	}
	if (old < 0 || old > INT32_MAX - 4)
		old = 0;
	nsm_cur_state = (int32_t)(old % 2 ? old + 2 : old + 1);
	n = snprintf(sbuf, sizeof(sbuf), "%d\n", (int)nsm_cur_state);
	ret = statefile_write(dir, STATE_FILE, sbuf, (size_t)n);
	if (ret < 0)
		return ret;
	buf = malloc(max + 1);
	if (!buf)
		return -ENOMEM;
	n = statefile_read(dir, HOSTS_FILE, buf, max);
	if (n < 0 && n != -ENOENT)
		log_warn("nlm: %s/%s: %s", dir, HOSTS_FILE, strerror((int)-n));
	for (line = buf; n > 0 && line < buf + n; line = nl + 1) {
		nl = memchr(line, '\n', (size_t)(buf + n - line));
		if (!nl)
			break;
		if (pending_parse(line, (size_t)(nl - line)))
			count++;
		else
			log_warn("nlm: %s: a bad line is skipped", HOSTS_FILE);
	}
	free(buf);
	return count;
}

/** nsm_pending_lines() - see nlm_int.h. */
size_t nsm_pending_lines(char *buf, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	struct nsm_pending *p;
	char ab[INET6_ADDRSTRLEN];
	size_t n = 0, k, i;

	pthread_mutex_lock(&pend_mu);
	for (p = pending; p; p = p->next) {
		if (p->addr.ss_family == AF_INET6)
			inet_ntop(AF_INET6,
				  &((struct sockaddr_in6 *)&p->addr)->sin6_addr,
				  ab, sizeof(ab));
		else
			inet_ntop(AF_INET,
				  &((struct sockaddr_in *)&p->addr)->sin_addr,
				  ab, sizeof(ab));
		k = strlen(ab);
		if (n + k + 3 + 2 * (size_t)p->namelen > len)
			break;
		memcpy(buf + n, ab, k);
		n += k;
		buf[n++] = ' ';
		for (i = 0; i < p->namelen; i++) {
			buf[n++] = hex[(uint8_t)p->name[i] >> 4];
			buf[n++] = hex[(uint8_t)p->name[i] & 15];
		}
		if (!p->namelen)
			buf[n++] = '-';
		buf[n++] = '\n';
	}
	pthread_mutex_unlock(&pend_mu);
	return n;
}

static void notify_done(struct nlm_cb *cb, int err, const uint8_t *res,
			size_t len)
{
	struct nsm_pending *p = cb->arg, **pp;

	(void)res;
	(void)len;
	if (err)
		log_warn("nlm: SM_NOTIFY to %.*s not delivered: %s",
			 (int)p->namelen, p->name, strerror(-err));
	else
		log_info("nlm: SM_NOTIFY sent to %.*s", (int)p->namelen,
			 p->name);
	pthread_mutex_lock(&pend_mu);
	for (pp = &pending; *pp; pp = &(*pp)->next)
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	pthread_mutex_unlock(&pend_mu);
	free(p);
	nlm_hosts_save();
}

/** nsm_notify_all() - see nlm_int.h. */
void nsm_notify_all(void)
{
	char host[256] = "";
	uint8_t args[300];
	struct nsm_pending *p, *next;
	struct xdr_buf x;

	if (gethostname(host, sizeof(host) - 1) < 0)
		(void)snprintf(host, sizeof(host), "localhost");
	xdr_init(&x, args, sizeof(args));
	if (!nsm_enc_stat_chge(&x, host, nsm_cur_state))
		return;
	pthread_mutex_lock(&pend_mu);
	p = pending;
	pthread_mutex_unlock(&pend_mu);
	/* Only notify_done() takes records off, and none is queued yet. */
	for (; p; p = next) {
		next = p->next;
		if (nlm_cb_send(&p->addr, NSM_PROG, 1, SM_NOTIFY, args, x.pos,
				NOTIFY_TRIES, notify_done, p) < 0)
			log_warn("nlm: SM_NOTIFY to %.*s not queued",
				 (int)p->namelen, p->name);
	}
}

/* ---- program 100024 ---- */

static void nsm_proc_stat(struct rpc_call *call, const void *args, void *res)
{
	struct nsm_res *r = res;

	(void)call;
	(void)args;
	r->res_stat = STAT_SUCC;
	r->state = nsm_cur_state;
}

static void nsm_proc_mon(struct rpc_call *call, const void *args, void *res)
{
	struct nsm_res *r = res;

	(void)call;
	(void)args;
	r->res_stat = STAT_FAIL; /* nasd monitors for its own NLM only */
	r->state = nsm_cur_state;
}

static void nsm_proc_unmon(struct rpc_call *call, const void *args, void *res)
{
	struct nsm_res *r = res;

	(void)call;
	(void)args;
	r->state = nsm_cur_state;
}

static void nsm_proc_notify(struct rpc_call *call, const void *args, void *res)
{
	const struct nsm_args *a = args;
	unsigned int n;

	(void)res;
	n = nlm_hosts_free_name(&a->mon_name, rpc_call_peer(call));
	log_info("nlm: SM_NOTIFY from %.*s (state %d): %u hosts' locks freed",
		 (int)a->mon_name.len, (const char *)a->mon_name.p,
		 (int)a->state, n);
}

#define NSM_PROC(NAME, fn, dec, enc, fl)                                       \
	[NAME] = {                                                             \
		.name = #NAME,                                                 \
		.args_size = sizeof(struct nsm_args),                          \
		.res_size = sizeof(struct nsm_res),                            \
		.decode = (dec),                                               \
		.handle = (fn),                                                \
		.encode = (enc),                                               \
		.flags = (fl),                                                 \
		.max_reply = 16,                                               \
	}

static const struct rpc_proc nsm_procs[SM_NPROCS] = {
	[SM_NULL] =
		{
			.name = "NULL",
			.decode = nlm_dec_void,
			.encode = nlm_enc_void,
			.max_reply = 4,
		},
	NSM_PROC(SM_STAT, nsm_proc_stat, nsm_dec_mon_name, nsm_enc_stat_res, 0),
	NSM_PROC(SM_MON, nsm_proc_mon, nsm_dec_mon, nsm_enc_stat_res, 0),
	NSM_PROC(SM_UNMON, nsm_proc_unmon, nsm_dec_mon_id, nsm_enc_stat, 0),
	NSM_PROC(SM_UNMON_ALL, nsm_proc_unmon, nsm_dec_my_id, nsm_enc_stat, 0),
	NSM_PROC(SM_NOTIFY, nsm_proc_notify, nsm_dec_stat_chge, nlm_enc_void,
		 RPC_PROC_NONIDEMPOTENT),
};

static const struct rpc_version nsm_versions[] = {
	{
		.vers = 1,
		.nprocs = SM_NPROCS,
		.procs = nsm_procs,
	},
};

const struct rpc_program nsm_program = {
	.prog = NSM_PROG,
	.name = "status",
	.nversions = 1,
	.versions = nsm_versions,
};
