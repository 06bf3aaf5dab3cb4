/* SPDX-License-Identifier: MIT */
#ifndef NASD_CORE_STATS_H
#define NASD_CORE_STATS_H

/*
 * Server statistics (DESIGN.md §7): per-procedure call counts, error
 * counts and latency histograms, payload bytes, connections and the
 * process's CPU time and memory.
 *
 * Cost on the request path: each thread that records gets its own shard
 * of counters on first use, so recording a call is one bucket increment,
 * one add to the latency sum and a max check, all relaxed atomic loads and
 * stores on memory no other thread writes (no lock, no read-modify-write
 * instruction), plus the two clock reads of the caller. Readers
 * (stats_snapshot_take) sum the shards with relaxed loads, so a snapshot
 * taken under load is exact per counter but not a single instant across
 * counters.
 *
 * A shard outlives its thread (the counts stay in the totals); a new
 * thread adopts the shard of one that has exited, so memory is bounded by
 * the largest number of threads alive at once.
 *
 * Latency histogram: log-linear, four sub-buckets per power of two of
 * nanoseconds from 2^10 ns (about 1 us) to 2^34 ns (about 17 s), plus an
 * underflow and an overflow bucket. Bucket i (1 <= i <= 96) holds
 * [lo, hi) with e = 10 + (i - 1) / 4, s = (i - 1) % 4,
 * lo = 2^e + s * 2^(e-2), hi = lo + 2^(e-2); relative error <= 25 %.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define STATS_MAX_SLOTS	     256 /* (program, version, procedure) triples */
#define STATS_HIST_MIN_SHIFT 10	 /* first bucket boundary: 2^10 ns */
#define STATS_HIST_MAX_SHIFT 34	 /* overflow from 2^34 ns (17.2 s) */
#define STATS_HIST_SUB	     4	 /* sub-buckets per power of two */
#define STATS_NBUCKETS                                                         \
	(2 + (STATS_HIST_MAX_SHIFT - STATS_HIST_MIN_SHIFT) * STATS_HIST_SUB)
#define STATS_NAME_MAX 32

/*
 * stats_init() - record the start time (uptime is counted from here).
 * Call once at start-up, before any thread records; calling it again
 * only moves the start time.
 */
void stats_init(void);

/* stats_clock_ns() - CLOCK_MONOTONIC in nanoseconds (vDSO, no syscall). */
static inline uint64_t stats_clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * stats_slot_add() - the counter slot of procedure @proc (named @name) of
 * version @vers of program @program (e.g. "nfs", 3, 6, "READ"). The same
 * triple always gets the same slot, so re-registering a program keeps its
 * counts. Strings are copied (truncated to STATS_NAME_MAX - 1 bytes).
 * Thread-safe; meant for start-up. Returns the slot (>= 0), or -ENOSPC
 * when all STATS_MAX_SLOTS are taken (that procedure is then not counted).
 */
int stats_slot_add(const char *program, uint32_t vers, uint32_t proc,
		   const char *name);

/*
 * stats_call_done() - one call of @slot finished: @t0 is the
 * stats_clock_ns() read when it started (this reads the clock once more).
 * @rpc_error: the RPC layer did not answer SUCCESS (e.g. GARBAGE_ARGS,
 * SYSTEM_ERR, RFC 5531 §9); @status_error: the procedure answered a
 * non-OK protocol status (e.g. an nfsstat3 other than NFS3_OK).
 * A negative @slot is ignored.
 */
void stats_call_done(int slot, uint64_t t0, bool rpc_error, bool status_error);

/*
 * stats_record_latency() - like stats_call_done() with a latency already
 * measured (@ns); for tests and callers that time calls themselves.
 */
void stats_record_latency(int slot, uint64_t ns, bool rpc_error,
			  bool status_error);

/*
 * stats_call_rejected() - a call that named no served procedure
 * (PROG_UNAVAIL, PROG_MISMATCH, PROC_UNAVAIL) or failed authentication.
 */
void stats_call_rejected(void);

/* stats_add_bytes_read() - @n bytes of file data sent to clients. */
void stats_add_bytes_read(uint64_t n);

/* stats_add_bytes_written() - @n bytes of file data written for clients. */
void stats_add_bytes_written(uint64_t n);

/* stats_conn_open() / stats_conn_close() - a client connection came/went. */
void stats_conn_open(void);
void stats_conn_close(void);

/*
 * Resource bounds (SECURITY.md "Limits"): each time one is hit, its
 * counter goes up, shown as the "limits" group of `nasd stats` and as
 * nasd_limit_hits_total{limit="NAME"} (NAME from stats_limit_name()).
 */
enum stats_limit {
	STATS_LIMIT_CONNS,	      /* connection refused: total */
	STATS_LIMIT_CONNS_PER_CLIENT, /* connection refused: per address */
	STATS_LIMIT_IDLE,	      /* connection closed: idle/silent */
	STATS_LIMIT_RECORD_TIMEOUT,   /* connection closed: record too slow */
	STATS_LIMIT_RECORD_SIZE,      /* connection closed: record too big */
	STATS_LIMIT_INFLIGHT,	      /* reading paused: per connection */
	STATS_LIMIT_INFLIGHT_TOTAL,   /* reading paused: all connections */
	STATS_LIMIT_SENDQ_PAUSE,      /* reading paused: replies unread */
	STATS_LIMIT_SENDQ,	      /* cut: queue over its cap not taken */
	STATS_LIMIT_MEMORY,	      /* reading paused: buffer memory */
	STATS_LIMIT_NR,
};

/* stats_limit_hit() - bound @l was hit once. Any thread, lock-free. */
void stats_limit_hit(enum stats_limit l);

/* stats_limit_name() - "conns_per_client" etc.; "?" if out of range. */
const char *stats_limit_name(enum stats_limit l);

/* stats_bucket() - the histogram bucket of a latency of @ns nanoseconds. */
unsigned int stats_bucket(uint64_t ns);

/*
 * stats_bucket_upper() - the exclusive upper bound, in ns, of bucket @i;
 * UINT64_MAX for the overflow bucket. stats_bucket_upper(i - 1) is the
 * lower bound of bucket i (0 for bucket 0).
 */
uint64_t stats_bucket_upper(unsigned int i);

/* Totals of one procedure in a snapshot. */
struct stats_proc_snap {
	char program[STATS_NAME_MAX];
	char proc[STATS_NAME_MAX];
	uint32_t vers;
	uint32_t procnum;
	uint64_t count; /* calls: the sum of @buckets */
	uint64_t rpc_errors;
	uint64_t status_errors;
	uint64_t sum_ns;
	uint64_t max_ns;
	uint64_t buckets[STATS_NBUCKETS];
};

/* Event loops whose connection counts a snapshot carries. */
#define STATS_MAX_LOOPS 64

/*
 * stats_set_loop_conns() - the transport's reporter of how many
 * connections each event loop has: fills up to @max counts into @out and
 * returns how many it filled. NULL: none reported.
 */
void stats_set_loop_conns(unsigned int (*fn)(uint32_t *out, unsigned int max));

/* Everything the server reports, summed over the shards. */
/*
 * Named values a module keeps itself (e.g. SMB sessions open, bytes
 * signed), read when a snapshot is taken. @fn must be cheap and
 * thread-safe (an atomic load). @counter: only ever grows (Prometheus
 * "counter"), else a gauge. @name: [a-z0-9_], shown as is and as
 * nasd_NAME in /metrics. Start-up only; -ENOSPC beyond STATS_MAX_VALUES.
 */
#define STATS_MAX_VALUES 32
int stats_value_add(const char *name, const char *help, bool counter,
		    uint64_t (*fn)(void));

struct stats_value_snap {
	char name[STATS_NAME_MAX];
	const char *help;  /* static */
	bool counter;
	uint64_t value;
};

struct stats_snapshot {
	double uptime;	   /* seconds since stats_init() */
	double start_time; /* Unix time of stats_init() */
	double cpu_user;   /* seconds, getrusage(RUSAGE_SELF) */
	double cpu_system;
	uint64_t rss_bytes;	/* resident now (/proc/self/statm) */
	uint64_t max_rss_bytes; /* peak (ru_maxrss) */
	uint64_t conns_current;
	uint64_t conns_total;
	unsigned int nloops; /* event loops, and the connections of each */
	uint32_t loop_conns[STATS_MAX_LOOPS];
	uint64_t bytes_read;
	uint64_t bytes_written;
	uint64_t rejected;
	uint64_t limit_hits[STATS_LIMIT_NR]; /* by enum stats_limit */
	unsigned int nvalues;
	struct stats_value_snap values[STATS_MAX_VALUES];
	unsigned int nprocs;
	struct stats_proc_snap procs[STATS_MAX_SLOTS];
};

/*
 * stats_snapshot_take() - sum every shard into a new snapshot that the
 * caller owns (free with stats_snapshot_free()). Returns 0 or -ENOMEM.
 */
int stats_snapshot_take(struct stats_snapshot **out);

/* stats_snapshot_free() - free a snapshot (NULL is fine). */
void stats_snapshot_free(struct stats_snapshot *s);

/*
 * stats_quantile_ns() - the @q quantile (0 < q <= 1) of @p's latencies in
 * ns, interpolated linearly inside the bucket that holds it and never
 * above the maximum seen; 0 when there were no calls.
 */
uint64_t stats_quantile_ns(const struct stats_proc_snap *p, double q);

enum stats_format {
	STATS_TEXT, /* a table for people */
	STATS_JSON,
	STATS_PROMETHEUS, /* text exposition format 0.0.4 */
};

/*
 * stats_render() - @s as text in format @fmt into a new NUL-terminated
 * buffer that the caller owns (free()); its length in *@len.
 * Returns 0 or -ENOMEM.
 */
int stats_render(const struct stats_snapshot *s, enum stats_format fmt,
		 char **out, size_t *len);

/*
 * stats_format_parse() - "text"/"table", "json", "prometheus"/"prom" into
 * *@fmt; -EINVAL for anything else.
 */
int stats_format_parse(const char *name, enum stats_format *fmt);

#endif
