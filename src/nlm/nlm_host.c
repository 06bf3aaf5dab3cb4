// SPDX-License-Identifier: MIT
/*
 * NLM hosts, lock owners and the records of what they hold (nlm_int.h
 * has the locking and identity rules), handle resolution, the grace
 * period, and the file of monitored hosts that survives a restart.
 *
 * The file (@state_dir/nlm_hosts) has one line per host that held locks,
 * "ADDRESS HEX(caller_name)": hex, because a caller_name is the client's
 * bytes and may hold spaces or newlines. It is rewritten when a host is
 * first monitored and when a notification after a restart is done; its
 * writes are serialized by save_mu, outside nlm_mu.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdatomic.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/addr.h"
#include "core/err.h"
#include "core/log.h"
#include "core/stats.h"
#include "core/statefile.h"
#include "export/export.h"
#include "nlm/nlm_int.h"
#include "vfs/vfs.h"

#define HOSTS_FILE "nlm_hosts"

pthread_mutex_t nlm_mu = PTHREAD_MUTEX_INITIALIZER;
struct nlm_cfg nlm_config;

static struct nlm_host *nlm_hosts;
static atomic_uint nlm_nhosts; /* under nlm_mu; atomic for nasd stats */
static pthread_mutex_t save_mu = PTHREAD_MUTEX_INITIALIZER;
static uint64_t grace_end_ms;

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The address of @sa without its port, for host identity. */
static void addr_key(const struct sockaddr *sa, struct sockaddr_storage *out)
{
	memset(out, 0, sizeof(*out));
	if (sa->sa_family == AF_INET6)
		memcpy(out, sa, sizeof(struct sockaddr_in6));
	else
		memcpy(out, sa, sizeof(struct sockaddr_in));
	addr_set_port(out, 0);
	if (out->ss_family == AF_INET6)
		((struct sockaddr_in6 *)out)->sin6_flowinfo = 0;
}

static bool addr_eq(const struct sockaddr_storage *a,
		    const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
			       &((const struct sockaddr_in6 *)b)->sin6_addr,
			       16);
	return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
	       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
}

static bool name_eq(const struct nlm_host *h, const struct nlm_obj *n)
{
	return h->namelen == n->len && !memcmp(h->name, n->p, n->len);
}

static void host_unlink(struct nlm_host *h)
{
	struct nlm_host **pp;

	for (pp = &nlm_hosts; *pp; pp = &(*pp)->next)
		if (*pp == h) {
			*pp = h->next;
			nlm_nhosts--;
			free(h);
			return;
		}
}

/* At NLM_MAX_HOSTS: free one host that holds nothing, if any. */
static bool host_evict_idle(void)
{
	struct nlm_host *h;

	for (h = nlm_hosts; h; h = h->next)
		if (!h->nowners) {
			host_unlink(h);
			return true;
		}
	return false;
}

/** nlm_host_find() - see nlm_int.h. */
struct nlm_host *nlm_host_find(const struct nlm_obj *name,
			       const struct sockaddr *peer, bool create)
{
	struct sockaddr_storage key;
	struct nlm_host *h;

	addr_key(peer, &key);
	for (h = nlm_hosts; h; h = h->next)
		if (name_eq(h, name) && addr_eq(&h->addr, &key))
			return h;
	if (!create)
		return NULL;
	if (nlm_nhosts >= NLM_MAX_HOSTS && !host_evict_idle()) {
		log_warn("nlm: %u hosts: refusing another", nlm_nhosts);
		return NULL;
	}
	h = calloc(1, sizeof(*h) + name->len + 1);
	if (!h)
		return NULL;
	h->addr = key;
	h->namelen = name->len;
	if (name->len)
		memcpy(h->name, name->p, name->len);
	h->next = nlm_hosts;
	nlm_hosts = h;
	nlm_nhosts++;
	return h;
}

/** nlm_owner_find() - see nlm_int.h. */
struct nlm_owner *nlm_owner_find(struct nlm_host *h, int32_t svid,
				 const struct nlm_obj *oh, bool share,
				 bool create)
{
	struct nlm_owner *o;

	for (o = h->owners; o; o = o->next)
		if (o->share == share && (share || o->svid == svid) &&
		    o->ohlen == oh->len && !memcmp(o->oh, oh->p, oh->len))
			return o;
	if (!create || h->nowners >= NLM_MAX_OWNERS_PER_HOST)
		return NULL;
	o = calloc(1, sizeof(*o) + oh->len);
	if (!o)
		return NULL;
	o->host = h;
	o->svid = share ? 0 : svid;
	o->share = share;
	o->ohlen = oh->len;
	if (oh->len)
		memcpy(o->oh, oh->p, oh->len);
	o->next = h->owners;
	h->owners = o;
	h->nowners++;
	return o;
}

/** nlm_owner_put() - see nlm_int.h; refs 0 also frees a new owner. */
void nlm_owner_put(struct nlm_owner *o)
{
	struct nlm_owner **pp;
	struct nlm_host *h = o->host;

	if (o->refs && --o->refs)
		return;
	for (pp = &h->owners; *pp; pp = &(*pp)->next)
		if (*pp == o) {
			*pp = o->next;
			h->nowners--;
			break;
		}
	free(o);
}

/** nlm_holder() - see nlm_int.h. */
struct state_holder nlm_holder(const struct nlm_owner *o)
{
	struct state_holder sh = {.id = o, .tag = STATE_HOLDER_NLM};

	return sh;
}

/** nlm_rec_add() - see nlm_int.h. */
int nlm_rec_add(struct nlm_owner *o, struct state_file *f, bool share)
{
	struct nlm_host *h = o->host;
	struct nlm_rec *r;

	for (r = h->recs; r; r = r->next)
		if (r->owner == o && r->f == f && r->share == share)
			return 0;
	if (h->nrecs >= NLM_MAX_RECS_PER_HOST)
		return -ENOSPC;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->owner = o;
	r->f = f;
	r->share = share;
	state_file_hold(f);
	o->refs++;
	r->next = h->recs;
	h->recs = r;
	h->nrecs++;
	return 0;
}

static void rec_free(struct nlm_host *h, struct nlm_rec **pp)
{
	struct nlm_rec *r = *pp;

	*pp = r->next;
	h->nrecs--;
	state_file_put(r->f);
	nlm_owner_put(r->owner);
	free(r);
}

/** nlm_rec_drop() - see nlm_int.h. */
void nlm_rec_drop(struct nlm_owner *o, struct state_file *f, bool share)
{
	struct nlm_host *h = o->host;
	struct nlm_rec **pp;

	for (pp = &h->recs; *pp; pp = &(*pp)->next)
		if ((*pp)->owner == o && (*pp)->f == f &&
		    (*pp)->share == share) {
			rec_free(h, pp);
			return;
		}
}

/** nlm_host_monitor() - see nlm_int.h. */
bool nlm_host_monitor(struct nlm_host *h)
{
	if (h->monitored)
		return false;
	h->monitored = true;
	return true;
}

static size_t host_line(char *buf, size_t len, const struct sockaddr_storage *a,
			const char *name, uint32_t namelen)
{
	static const char hex[] = "0123456789abcdef";
	char ab[INET6_ADDRSTRLEN] = "";
	size_t n, i;

	if (a->ss_family == AF_INET6)
		inet_ntop(AF_INET6,
			  &((const struct sockaddr_in6 *)a)->sin6_addr, ab,
			  sizeof(ab));
	else
		inet_ntop(AF_INET, &((const struct sockaddr_in *)a)->sin_addr,
			  ab, sizeof(ab));
	n = strlen(ab);
	if (n + 2 + 2 * (size_t)namelen + 1 > len)
		return 0;
	memcpy(buf, ab, n);
	buf[n++] = ' ';
	for (i = 0; i < namelen; i++) {
		buf[n++] = hex[(uint8_t)name[i] >> 4];
		buf[n++] = hex[(uint8_t)name[i] & 15];
	}
	if (!namelen)
		buf[n++] = '-';
	buf[n++] = '\n';
	return n;
}

/** nlm_hosts_save() - see nlm_int.h. */
void nlm_hosts_save(void)
{
	size_t max = (size_t)NLM_MAX_HOSTS * 2 * (2 * LM_MAXSTRLEN + 64);
	struct nlm_host *h;
	size_t n = 0, k;
	char *buf;
	int ret;

	if (!nlm_config.state_dir)
		return;
	buf = malloc(max);
	if (!buf)
		return;
	pthread_mutex_lock(&save_mu);
	pthread_mutex_lock(&nlm_mu);
	for (h = nlm_hosts; h; h = h->next) {
		if (!h->monitored)
			continue;
		k = host_line(buf + n, max - n, &h->addr, h->name, h->namelen);
		n += k;
	}
	pthread_mutex_unlock(&nlm_mu);
	n += nsm_pending_lines(buf + n, max - n);
	ret = statefile_write(nlm_config.state_dir, HOSTS_FILE, buf, n);
	pthread_mutex_unlock(&save_mu);
	if (ret < 0)
		log_warn("nlm: cannot record the lock clients in %s: %s",
			 nlm_config.state_dir, strerror(-ret));
	free(buf);
}

/* Everything @h holds goes: locks, shares, blocked locks. */
static void host_release(struct nlm_host *h)
{
	nlm_blocks_of_host(h);
	while (h->recs) {
		struct nlm_rec *r = h->recs;
		struct state_holder sh = nlm_holder(r->owner);

		if (r->share)
			state_share_release(r->f, &sh);
		else
			(void)state_unlock_all(r->f, &sh);
		rec_free(h, &h->recs);
	}
	h->monitored = false;
}

/** nlm_hosts_free_name() - see nlm_int.h. */
unsigned int nlm_hosts_free_name(const struct nlm_obj *name,
				 const struct sockaddr *peer)
{
	struct sockaddr_storage key;
	struct nlm_host *h, *next;
	unsigned int n = 0;

	if (peer)
		addr_key(peer, &key);
	pthread_mutex_lock(&nlm_mu);
	for (h = nlm_hosts; h; h = next) {
		next = h->next;
		if (!name_eq(h, name) || (peer && !addr_eq(&h->addr, &key)))
			continue;
		host_release(h);
		if (!h->nowners)
			host_unlink(h);
		n++;
	}
	nlm_blocked_kick();
	pthread_mutex_unlock(&nlm_mu);
	if (n)
		nlm_hosts_save();
	return n;
}

/** nlm_resolve() - see nlm_int.h; the steps of nfs3_resolve(). */
uint32_t nlm_resolve(struct rpc_call *call, const struct nlm_obj *fh,
		     struct vfs_obj **out, bool *ro)
{
	struct export_identity id = {
		.anonymous = call->cred.flavor != AUTH_SYS,
		.uid = call->cred.uid,
		.gid = call->cred.gid,
		.ngroups = call->cred.ngids,
		.groups = call->cred.gids,
	};
	struct export_access acc;
	struct export_table *t;
	struct export *e;
	uint32_t xid, st = NLM4_STALE_FH;
	int err;

	*out = NULL;
	if (vfs_fh_export_id(fh->p, fh->len, &xid) < 0)
		return NLM4_STALE_FH;
	t = export_table_current();
	if (!t)
		return NLM4_STALE_FH;
	e = export_find_by_id(t, xid);
	if (!e || !e->vex)
		goto out_put;
	err = export_admit(e, rpc_call_peer(call), call->req->peer_privileged,
			   &id, &acc);
	if (err) {
		st = NLM4_FAILED;
		goto out_put;
	}
	*ro = !acc.opts->rw;
	err = vfs_obj_from_fh(e->vex, fh->p, fh->len, out);
	if (err) {
		*out = NULL;
		st = err == -ENOMEM ? NLM4_DENIED_NOLOCKS : NLM4_STALE_FH;
		goto out_put;
	}
	/* Whoever may not read a file may not lock it either (knfsd's
	 * NFSD_MAY_LOCK): a lock would stop its readers and writers. */
	if (export_cred_apply(&acc.cred) || vfs_check_lock(*out)) {
		vfs_obj_put(*out);
		*out = NULL;
		st = NLM4_DENIED;
		goto out_put;
	}
	st = NLM4_GRANTED;
out_put:
	export_table_put(t);
	return st;
}

/** nlm_range() - see nlm_int.h. */
uint32_t nlm_range(uint64_t off, uint64_t len, struct state_range *r)
{
	if (len == 0)
		len = UINT64_MAX;
	return state_range_nfs(off, len, r) ? NLM4_FBIG : NLM4_GRANTED;
}

/** nlm_own_grace() - see nlm.h. */
bool nlm_own_grace(void)
{
	return grace_end_ms && now_ms() < grace_end_ms;
}

/** nlm_in_grace() - see nlm.h. */
bool nlm_in_grace(void)
{
	return nlm_own_grace() ||
	       (nlm_config.other_grace && nlm_config.other_grace());
}

static uint64_t v_hosts(void)
{
	return atomic_load(&nlm_nhosts);
}

static uint64_t v_blocked(void)
{
	return nlm_blocked_count();
}

static uint64_t v_cb_done(void)
{
	uint64_t d, f;

	nlm_cb_counts(&d, &f);
	return d;
}

static uint64_t v_cb_failed(void)
{
	uint64_t d, f;

	nlm_cb_counts(&d, &f);
	return f;
}

/** nlm_init() - see nlm.h. */
int nlm_init(const struct nlm_cfg *cfg)
{
	int recorded, ret;

	(void)stats_value_add("nlm_hosts", "NLM client hosts known.", false,
			      v_hosts);
	(void)stats_value_add("nlm_blocked", "NLM blocked locks waiting.",
			      false, v_blocked);
	(void)stats_value_add("nlm_callbacks_total",
			      "NLM and NSM calls to clients answered "
			      "(GRANTED, *_RES, SM_NOTIFY).",
			      true, v_cb_done);
	(void)stats_value_add("nlm_callbacks_failed_total",
			      "NLM and NSM calls to clients given up on.",
			      true, v_cb_failed);

	nlm_config = *cfg;
	if (!nlm_config.client_rpcbind_port)
		nlm_config.client_rpcbind_port = 111;
	recorded = nsm_load();
	if (recorded < 0)
		return recorded;
	if (recorded > 0 && cfg->grace_time) {
		grace_end_ms = now_ms() + (uint64_t)cfg->grace_time * 1000;
		log_info("nlm: %d lock clients recorded: grace for %u s",
			 recorded, cfg->grace_time);
	}
	ret = nlm_cb_start();
	if (ret < 0)
		return ret;
	nsm_notify_all();
	return 0;
}

/** nlm_shutdown() - see nlm.h. */
void nlm_shutdown(void)
{
	nlm_cb_stop();
}
