/* SPDX-License-Identifier: MIT */
/*
 * Server statistics: per-thread counter shards, the histogram bucket
 * math, and snapshots summed over the shards (see stats.h for the cost
 * model and the bucket layout).
 */
#include "core/stats.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define STATS_HIST_SUB_BITS 2 /* log2(STATS_HIST_SUB) */

_Static_assert((1 << STATS_HIST_SUB_BITS) == STATS_HIST_SUB,
	       "STATS_HIST_SUB must be 1 << STATS_HIST_SUB_BITS");
_Static_assert(STATS_HIST_MIN_SHIFT >= STATS_HIST_SUB_BITS,
	       "sub-buckets need at least STATS_HIST_SUB_BITS bits");

/* One procedure's counters in one shard. */
struct stats_slot {
	_Atomic uint64_t buckets[STATS_NBUCKETS];
	_Atomic uint64_t sum_ns;
	_Atomic uint64_t max_ns;
	_Atomic uint64_t rpc_errors;
	_Atomic uint64_t status_errors;
};

/*
 * One thread's counters. Only the owning thread writes them (so updates
 * are plain relaxed load + store); snapshots read them concurrently.
 */
struct stats_shard {
	struct stats_shard *next; /* under shards_lock; never unlinked */
	atomic_bool idle;	  /* owner exited; may be adopted */
	_Atomic uint64_t bytes_read;
	_Atomic uint64_t bytes_written;
	_Atomic uint64_t rejected;
	struct stats_slot slots[STATS_MAX_SLOTS];
};

struct slot_name {
	char program[STATS_NAME_MAX];
	char proc[STATS_NAME_MAX];
	uint32_t vers;
	uint32_t procnum;
};

/* Slot names: appended under names_lock, published by nslots (release). */
static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;
static struct slot_name slot_names[STATS_MAX_SLOTS];
static atomic_uint nslots;

static pthread_mutex_t shards_lock = PTHREAD_MUTEX_INITIALIZER;
static struct stats_shard *shards;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static pthread_key_t shard_key;
static bool shard_key_ok;
static _Thread_local struct stats_shard *tls_shard;

static _Atomic uint64_t limit_hits[STATS_LIMIT_NR];
static const char *const limit_names[STATS_LIMIT_NR] = {
	[STATS_LIMIT_CONNS] = "conns",
	[STATS_LIMIT_CONNS_PER_CLIENT] = "conns_per_client",
	[STATS_LIMIT_IDLE] = "idle_timeout",
	[STATS_LIMIT_RECORD_TIMEOUT] = "record_timeout",
	[STATS_LIMIT_RECORD_SIZE] = "record_size",
	[STATS_LIMIT_INFLIGHT] = "inflight",
	[STATS_LIMIT_INFLIGHT_TOTAL] = "inflight_total",
	[STATS_LIMIT_SENDQ_PAUSE] = "sendq_pause",
	[STATS_LIMIT_SENDQ] = "sendq",
	[STATS_LIMIT_MEMORY] = "memory",
};
static _Atomic uint64_t conns_current;
static _Atomic uint64_t conns_total;
static unsigned int (*_Atomic loop_conns_fn)(uint32_t *out, unsigned int max);
static _Atomic uint64_t start_mono_ns;
static _Atomic uint64_t start_real_ns;

/* Add to a counter only this thread writes: no locked instruction. */
static inline void own_add(_Atomic uint64_t *c, uint64_t n)
{
	atomic_store_explicit(c,
			      atomic_load_explicit(c, memory_order_relaxed) + n,
			      memory_order_relaxed);
}

static inline uint64_t rd(_Atomic uint64_t *c)
{
	return atomic_load_explicit(c, memory_order_relaxed);
}

void stats_init(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	atomic_store(&start_real_ns,
		     (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec);
	atomic_store(&start_mono_ns, stats_clock_ns());
}

unsigned int stats_bucket(uint64_t ns)
{
	unsigned int e;

	if (ns < (UINT64_C(1) << STATS_HIST_MIN_SHIFT))
		return 0;
	e = 63u - (unsigned int)__builtin_clzll(ns);
	if (e >= STATS_HIST_MAX_SHIFT)
		return STATS_NBUCKETS - 1;
	return 1 + (e - STATS_HIST_MIN_SHIFT) * STATS_HIST_SUB +
	       (unsigned int)((ns >> (e - STATS_HIST_SUB_BITS)) &
			      (STATS_HIST_SUB - 1));
}

uint64_t stats_bucket_upper(unsigned int i)
{
	unsigned int e, s;

	if (i == 0)
		return UINT64_C(1) << STATS_HIST_MIN_SHIFT;
	if (i >= STATS_NBUCKETS - 1)
		return UINT64_MAX;
	e = STATS_HIST_MIN_SHIFT + (i - 1) / STATS_HIST_SUB;
	s = (i - 1) % STATS_HIST_SUB;
	return (UINT64_C(1) << e) +
	       ((uint64_t)(s + 1) << (e - STATS_HIST_SUB_BITS));
}

int stats_slot_add(const char *program, uint32_t vers, uint32_t proc,
		   const char *name)
{
	struct slot_name *n;
	unsigned int i, cnt;
	int ret = -ENOSPC;

	pthread_mutex_lock(&names_lock);
	cnt = atomic_load_explicit(&nslots, memory_order_relaxed);
	for (i = 0; i < cnt; i++) {
		n = &slot_names[i];
		if (n->vers == vers && n->procnum == proc &&
		    !strncmp(n->program, program, STATS_NAME_MAX - 1) &&
		    !strncmp(n->proc, name, STATS_NAME_MAX - 1)) {
			ret = (int)i;
			goto out_unlock;
		}
	}
	if (cnt < STATS_MAX_SLOTS) {
		n = &slot_names[cnt];
		/* Truncated alike here and in the lookup's strncmp above. */
		(void)snprintf(n->program, sizeof(n->program), "%s", program);
		(void)snprintf(n->proc, sizeof(n->proc), "%s", name);
		n->vers = vers;
		n->procnum = proc;
		/* The name is complete before a reader can see the count. */
		atomic_store_explicit(&nslots, cnt + 1, memory_order_release);
		ret = (int)cnt;
	}
out_unlock:
	pthread_mutex_unlock(&names_lock);
	return ret;
}

/* Thread exit: the shard's counts stay; another thread may adopt it. */
static void shard_release(void *arg)
{
	struct stats_shard *sh = arg;

	tls_shard = NULL;
	atomic_store_explicit(&sh->idle, true, memory_order_release);
}

static void shard_key_init(void)
{
	shard_key_ok = pthread_key_create(&shard_key, shard_release) == 0;
}

/* This thread's shard, adopting an idle one or allocating on first use. */
static struct stats_shard *shard_get(void)
{
	struct stats_shard *sh = tls_shard;

	if (sh)
		return sh;
	pthread_once(&key_once, shard_key_init);
	pthread_mutex_lock(&shards_lock);
	for (sh = shards; sh; sh = sh->next)
		if (atomic_load_explicit(&sh->idle, memory_order_acquire))
			break;
	if (sh) {
		atomic_store_explicit(&sh->idle, false, memory_order_relaxed);
	} else {
		/* Large and zeroed: calloc maps it, pages fault in as used. */
		sh = calloc(1, sizeof(*sh));
		if (sh) {
			sh->next = shards;
			shards = sh;
		}
	}
	pthread_mutex_unlock(&shards_lock);
	if (!sh)
		return NULL;
	tls_shard = sh;
	if (shard_key_ok)
		pthread_setspecific(shard_key, sh);
	return sh;
}

void stats_record_latency(int slot, uint64_t ns, bool rpc_error,
			  bool status_error)
{
	struct stats_shard *sh;
	struct stats_slot *s;

	if (slot < 0 || slot >= STATS_MAX_SLOTS)
		return;
	sh = shard_get();
	if (!sh)
		return;
	s = &sh->slots[slot];
	own_add(&s->buckets[stats_bucket(ns)], 1);
	own_add(&s->sum_ns, ns);
	if (ns > rd(&s->max_ns))
		atomic_store_explicit(&s->max_ns, ns, memory_order_relaxed);
	if (rpc_error)
		own_add(&s->rpc_errors, 1);
	if (status_error)
		own_add(&s->status_errors, 1);
}

void stats_call_done(int slot, uint64_t t0, bool rpc_error, bool status_error)
{
	uint64_t now;

	if (slot < 0)
		return;
	now = stats_clock_ns();
	stats_record_latency(slot, now > t0 ? now - t0 : 0, rpc_error,
			     status_error);
}

void stats_call_rejected(void)
{
	struct stats_shard *sh = shard_get();

	if (sh)
		own_add(&sh->rejected, 1);
}

void stats_add_bytes_read(uint64_t n)
{
	struct stats_shard *sh = shard_get();

	if (sh)
		own_add(&sh->bytes_read, n);
}

void stats_add_bytes_written(uint64_t n)
{
	struct stats_shard *sh = shard_get();

	if (sh)
		own_add(&sh->bytes_written, n);
}

void stats_conn_open(void)
{
	atomic_fetch_add_explicit(&conns_current, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&conns_total, 1, memory_order_relaxed);
}

void stats_set_loop_conns(unsigned int (*fn)(uint32_t *out, unsigned int max))
{
	atomic_store(&loop_conns_fn, fn);
}

void stats_conn_close(void)
{
	atomic_fetch_sub_explicit(&conns_current, 1, memory_order_relaxed);
}

void stats_limit_hit(enum stats_limit l)
{
	/* Rare events, hit from any thread: a shared counter is fine. */
	if ((unsigned int)l < STATS_LIMIT_NR)
		atomic_fetch_add_explicit(&limit_hits[l], 1,
					  memory_order_relaxed);
}

const char *stats_limit_name(enum stats_limit l)
{
	return (unsigned int)l < STATS_LIMIT_NR ? limit_names[l] : "?";
}

/* Resident set size now, from /proc/self/statm; 0 if unreadable. */
static uint64_t rss_now(void)
{
	long page = sysconf(_SC_PAGESIZE);
	FILE *f = fopen("/proc/self/statm", "re");
	unsigned long long resident;
	char line[128], *p, *end;
	bool ok;

	if (!f)
		return 0;
	ok = fgets(line, sizeof(line), f) != NULL;
	(void)fclose(f); /* read only: nothing to lose */
	if (!ok || page <= 0)
		return 0;
	/* "size resident shared ..." in pages: the second field. */
	p = strchr(line, ' ');
	if (!p)
		return 0;
	errno = 0;
	resident = strtoull(p, &end, 10);
	if (end == p || errno)
		return 0;
	return (uint64_t)resident * (uint64_t)page;
}

static void snap_process(struct stats_snapshot *s)
{
	uint64_t mono = atomic_load(&start_mono_ns);
	unsigned int (*fn)(uint32_t *out, unsigned int max);
	struct rusage ru;

	s->uptime = mono ? (double)(stats_clock_ns() - mono) / 1e9 : 0;
	s->start_time = (double)atomic_load(&start_real_ns) / 1e9;
	if (getrusage(RUSAGE_SELF, &ru) == 0) {
		s->cpu_user = (double)ru.ru_utime.tv_sec +
			      (double)ru.ru_utime.tv_usec / 1e6;
		s->cpu_system = (double)ru.ru_stime.tv_sec +
				(double)ru.ru_stime.tv_usec / 1e6;
		s->max_rss_bytes = (uint64_t)ru.ru_maxrss * 1024u;
	}
	s->rss_bytes = rss_now();
	/* ru_maxrss lags statm by a page or two; a peak is never below now. */
	if (s->max_rss_bytes < s->rss_bytes)
		s->max_rss_bytes = s->rss_bytes;
	s->conns_current = atomic_load(&conns_current);
	s->conns_total = atomic_load(&conns_total);
	fn = atomic_load(&loop_conns_fn);
	s->nloops = fn ? fn(s->loop_conns, STATS_MAX_LOOPS) : 0;
	for (unsigned int i = 0; i < STATS_LIMIT_NR; i++)
		s->limit_hits[i] = atomic_load_explicit(&limit_hits[i],
							memory_order_relaxed);
}

static void snap_slot(struct stats_proc_snap *p, struct stats_slot *s)
{
	uint64_t m = rd(&s->max_ns);
	unsigned int b;

	for (b = 0; b < STATS_NBUCKETS; b++)
		p->buckets[b] += rd(&s->buckets[b]);
	p->sum_ns += rd(&s->sum_ns);
	p->rpc_errors += rd(&s->rpc_errors);
	p->status_errors += rd(&s->status_errors);
	if (m > p->max_ns)
		p->max_ns = m;
}

static struct {
	char name[STATS_NAME_MAX];
	const char *help;
	bool counter;
	uint64_t (*fn)(void);
} values[STATS_MAX_VALUES];
static atomic_uint nvalues;
static pthread_mutex_t values_lock = PTHREAD_MUTEX_INITIALIZER;

int stats_value_add(const char *name, const char *help, bool counter,
		    uint64_t (*fn)(void))
{
	unsigned int n, i;
	int ret = 0;

	pthread_mutex_lock(&values_lock);
	n = atomic_load_explicit(&nvalues, memory_order_relaxed);
	for (i = 0; i < n; i++)
		if (!strcmp(values[i].name, name))
			goto out; /* already there (a restart of a module) */
	if (n == STATS_MAX_VALUES) {
		ret = -ENOSPC;
		goto out;
	}
	(void)snprintf(values[n].name, STATS_NAME_MAX, "%s", name);
	values[n].help = help;
	values[n].counter = counter;
	values[n].fn = fn;
	atomic_store_explicit(&nvalues, n + 1, memory_order_release);
out:
	pthread_mutex_unlock(&values_lock);
	return ret;
}

int stats_snapshot_take(struct stats_snapshot **out)
{
	struct stats_snapshot *s = calloc(1, sizeof(*s));
	struct stats_shard *sh;
	unsigned int i, b, n;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	n = atomic_load_explicit(&nslots, memory_order_acquire);
	s->nprocs = n;
	for (i = 0; i < n; i++) {
		memcpy(s->procs[i].program, slot_names[i].program,
		       STATS_NAME_MAX);
		memcpy(s->procs[i].proc, slot_names[i].proc, STATS_NAME_MAX);
		s->procs[i].vers = slot_names[i].vers;
		s->procs[i].procnum = slot_names[i].procnum;
	}
	pthread_mutex_lock(&shards_lock);
	for (sh = shards; sh; sh = sh->next) {
		s->bytes_read += rd(&sh->bytes_read);
		s->bytes_written += rd(&sh->bytes_written);
		s->rejected += rd(&sh->rejected);
		for (i = 0; i < n; i++)
			snap_slot(&s->procs[i], &sh->slots[i]);
	}
	pthread_mutex_unlock(&shards_lock);
	for (i = 0; i < n; i++)
		for (b = 0; b < STATS_NBUCKETS; b++)
			s->procs[i].count += s->procs[i].buckets[b];
	snap_process(s);
	n = atomic_load_explicit(&nvalues, memory_order_acquire);
	for (i = 0; i < n; i++) {
		memcpy(s->values[i].name, values[i].name, STATS_NAME_MAX);
		s->values[i].help = values[i].help;
		s->values[i].counter = values[i].counter;
		s->values[i].value = values[i].fn();
	}
	s->nvalues = n;
	*out = s;
	return 0;
}

void stats_snapshot_free(struct stats_snapshot *s)
{
	free(s);
}

uint64_t stats_quantile_ns(const struct stats_proc_snap *p, double q)
{
	uint64_t total = 0, cum = 0, lo, hi, v;
	double rank;
	unsigned int i;

	for (i = 0; i < STATS_NBUCKETS; i++)
		total += p->buckets[i];
	if (!total)
		return 0;
	if (q > 1)
		q = 1;
	rank = q * (double)total;
	if (rank < 1)
		rank = 1;
	for (i = 0; i < STATS_NBUCKETS; i++) {
		if (!p->buckets[i])
			continue;
		if ((double)(cum + p->buckets[i]) >= rank)
			break;
		cum += p->buckets[i];
	}
	if (i == STATS_NBUCKETS)
		return p->max_ns;
	lo = i ? stats_bucket_upper(i - 1) : 0;
	hi = stats_bucket_upper(i);
	/* The top of the occupied range is known exactly: the maximum. */
	if (p->max_ns && p->max_ns < hi)
		hi = p->max_ns > lo ? p->max_ns : lo;
	v = lo + (uint64_t)((double)(hi - lo) * (rank - (double)cum) /
			    (double)p->buckets[i]);
	if (p->max_ns && v > p->max_ns)
		v = p->max_ns;
	return v;
}
