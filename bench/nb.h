/* SPDX-License-Identifier: MIT */
/*
 * nasd-bench: an NFS load generator on libnfs's asynchronous API.
 * NFSv3, and NFSv4.0 (?version=4 in the URL) for the read workloads; an
 * NFSv4.1 one on its own client (?version=4.1, nb_nfs41.h); and an SMB
 * 3.1.1 one on its own client (smb:// URLs, nb_smb2.h).
 *
 * One job = one nfs_context (or SMB2 connection) = one TCP connection with
 * up to `depth`
 * requests in flight. Jobs are spread over client threads; each thread polls
 * its jobs' sockets and refills their request slots. A run is one or more
 * phases (prepare, measure, find-max steps) over the same connections.
 *
 * Ownership: the run owns the jobs; a job owns its context, its request
 * slots and its histograms; a request slot is the job's until the reply's
 * callback returns it to the free list.
 */
#ifndef NASD_BENCH_NB_H
#define NASD_BENCH_NB_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <nfsc/libnfs.h>
#include <nfsc/libnfs-raw.h>
#include <nfsc/libnfs-raw-mount.h>
#include <nfsc/libnfs-raw-nfs.h>
#include <nfsc/libnfs-raw-nfs4.h>

#include "nb_nfs41.h"
#include "nb_smb2.h"

#define NB_MAX_JOBS	1024
#define NB_MAX_DEPTH	1024
#define NB_MAX_THREADS	64
#define NB_MAX_BS	(16u << 20)
#define NB_FH_MAX	128		/* NFS4_FHSIZE (NFSv3: 64, RFC 1813 §2.4) */
#define NB_NS		1000000000ull
#define NB_TIMELINE_MAX	3600		/* seconds of per-second figures */

/* ---- latency histogram (nb_stats.c) ---- */

/*
 * Log-linear: values below 32 ns have their own bucket; above, each power of
 * two is split into 32 buckets, so a reported percentile is within ~3 %.
 */
#define NB_HIST_SUB_BITS	5
#define NB_HIST_SUB		(1u << NB_HIST_SUB_BITS)
#define NB_HIST_BUCKETS		((64 - NB_HIST_SUB_BITS + 1) * NB_HIST_SUB)

struct nb_hist {
	uint64_t count;
	uint64_t sum_ns;
	uint64_t max_ns;
	uint64_t bucket[NB_HIST_BUCKETS];
};

void nb_hist_reset(struct nb_hist *h);
void nb_hist_add(struct nb_hist *h, uint64_t ns);
void nb_hist_merge(struct nb_hist *dst, const struct nb_hist *src);
uint64_t nb_hist_percentile(const struct nb_hist *h, double pct);
double nb_hist_avg_ns(const struct nb_hist *h);

uint64_t nb_now_ns(void);

/* ---- the server process, sampled from /proc (nb_stats.c) ---- */

struct nb_server_sample {
	bool ok;
	double cpu_s;		/* utime + stime, all threads */
	uint64_t vm_hwm_kib;	/* peak RSS over the process's life */
	uint64_t vm_rss_kib;
	unsigned int nproc;	/* processes summed (tree: 1 + descendants) */
};

int nb_server_sample(pid_t pid, bool tree, struct nb_server_sample *s);

/* ---- workloads ---- */

enum nb_workload {
	NB_SEQ_READ,
	NB_SEQ_WRITE,
	NB_RAND_READ,
	NB_RAND_WRITE,
	NB_SWBUILD,
};

/* SPEC SFS 2014 SWBUILD operations, in the order of their weights. */
enum nb_swb_op {
	NB_SWB_STAT,
	NB_SWB_WRITE_FILE,
	NB_SWB_READ_FILE,
	NB_SWB_ACCESS,
	NB_SWB_CHMOD,
	NB_SWB_UNLINK,
	NB_SWB_READDIR,
	NB_SWB_CREATE,
	NB_SWB_MKDIR,
	NB_SWB_NOPS,
};

extern const char *const nb_swb_op_name[NB_SWB_NOPS];
extern const unsigned int nb_swb_op_weight[NB_SWB_NOPS];

struct nb_job;
struct nb_req;

/*
 * What a phase does with a job. issue() starts one request in slot req:
 * 0 = issued, 1 = nothing more to issue in this phase, -errno = failure
 * (the job is marked failed). finish() runs once the job stopped issuing and
 * is idle: it may start one last request (COMMIT) and return 1, or return 0.
 */
struct nb_phase_ops {
	const char *name;
	int (*issue)(struct nb_job *job, struct nb_req *req);
	int (*finish)(struct nb_job *job);
};

struct nb_fh {
	uint32_t len;
	char data[NB_FH_MAX];
};

struct nb_req {
	struct nb_job *job;
	struct nb_req *next_free;
	uint64_t t0;
	uint64_t off;
	uint32_t len;
	int op;
	int slot;
	uint32_t smb_status;		/* SMB: first non-success part */
	uint64_t smb_bytes;		/* SMB: payload of the reply */
};

/* Per-job swbuild state: the handles of the tree it built (nb_swbuild.c). */
enum nb_slot_state {
	NB_SLOT_ABSENT,
	NB_SLOT_PRESENT,
	NB_SLOT_BUSY,
};

struct nb_swb_job {
	struct nb_fh top;
	struct nb_fh *dirs;		/* ndirs */
	struct nb_fh *files;		/* ndirs * nfiles */
	uint8_t *mode_toggle;		/* per file: next chmod mode */
	struct nb_fh churn;
	uint8_t *churn_state;		/* nchurn, enum nb_slot_state */
	struct nb_fh mk;
	uint64_t mk_seq;
	uint64_t noent;			/* unlinks that found nothing */
	uint64_t count[NB_SWB_NOPS];
	uint64_t errors[NB_SWB_NOPS];
	struct nb_hist *hist;		/* NB_SWB_NOPS */
};

struct nb_run;

struct nb_job {
	int id;
	struct nb_run *run;
	struct nfs_context *nfs;
	struct rpc_context *rpc;
	char *path;			/* data file, relative to the export */
	struct nfsfh *fh;
	struct nb_smb2 *smb;		/* SMB: the connection (no nfs) */
	struct nb_nfs41 *v41;		/* NFSv4.1: the connection */
	uint8_t v41_fh[NB_NFS41_FH_MAX];	/* NFSv4.1: the data file */
	uint32_t v41_fh_len;
	uint8_t v41_sid[NB_NFS41_STATEID];	/* ... its open's stateid */
	bool v41_open;
	uint8_t smb_fid[NB_SMB2_FID_SIZE];
	bool smb_open;			/* smb_fid is open */
	uint64_t file_size;		/* size at open */
	uint64_t rng;

	/* Phase state. */
	const struct nb_phase_ops *ops;
	bool write;
	bool random;
	bool wrap;			/* time-based: start over at the end */
	uint64_t start_off;
	uint64_t end_off;
	uint64_t next_off;
	uint64_t ops_left;		/* random, size-based */
	uint64_t next_due;		/* rate mode: when the next op is due */
	uint64_t interval_ns;		/* rate mode; 0 = as fast as possible */
	bool exhausted;
	bool finish_called;
	bool done;
	bool failed;
	char error[256];

	unsigned int inflight;
	struct nb_req *reqs;		/* depth slots */
	struct nb_req *free_reqs;

	/* Counters read by the progress line from another thread. */
	_Atomic uint64_t ops_done;
	_Atomic uint64_t bytes_done;
	uint64_t errors;
	uint64_t short_io;
	struct nb_hist *hist;

	struct nb_swb_job swb;
};

struct nb_opts {
	enum nb_workload workload;
	const char *url;
	bool nfs4;			/* ?version=4: each job an NFSv4.0 client */
	bool v41;			/* ?version=4.1: nb_nfs41.h's client */
	bool smb;			/* smb:// URL */
	bool smb_sign;			/* the client requires signing */
	bool server_tree;		/* sample the server's descendants too */
	unsigned int jobs;
	unsigned int depth;
	unsigned int threads;
	uint64_t bs;
	uint64_t size;
	double time_s;			/* 0 = size-based */
	double rate;			/* swbuild ops/s per job, 0 = AFAP */
	bool find_max;
	double step_s;
	pid_t server_pid;
	bool json;
	bool quiet;
	bool sync;
	bool cleanup;
	const char *prefix;
	unsigned int swb_dirs;
	unsigned int swb_files;
	unsigned int swb_churn;
};

/* Totals of one phase, filled by nb_phase_run(). */
struct nb_result {
	double elapsed_s;
	uint64_t ops;
	uint64_t bytes;
	uint64_t errors;
	uint64_t short_io;
	struct nb_hist hist;
	double client_cpu_s;
	struct nb_server_sample srv_before;
	struct nb_server_sample srv_after;
	uint64_t srv_rss_peak_kib;	/* highest VmRSS seen once a second */
	/* MiB/s of each whole second of the phase, in order (the progress
	 * line's figures; the last, partial second is left out) */
	float timeline[NB_TIMELINE_MAX];
	unsigned int ntimeline;
	double requested_ops_s;		/* rate mode, all jobs */
	/* swbuild */
	uint64_t swb_count[NB_SWB_NOPS];
	uint64_t swb_errors[NB_SWB_NOPS];
	struct nb_hist swb_hist[NB_SWB_NOPS];
	uint64_t swb_noent;
	int failed_jobs;
	char first_error[300];
};

/*
 * What a protocol provides to the workloads: the data files and the
 * swbuild tree, each as a prepare step and phases.
 */
struct nb_proto {
	int (*connect)(struct nb_run *run);
	int (*data_prepare)(struct nb_run *run);
	int (*data_cleanup)(struct nb_run *run);
	const struct nb_phase_ops *data_ops;
	int (*swb_prepare)(struct nb_run *run);
	const struct nb_phase_ops *swb_ops;
	const struct nb_phase_ops *swb_refill_ops;
};

struct nb_run {
	struct nb_opts o;
	const struct nb_proto *proto;
	struct nb_job *jobs;
	char *server;			/* from the URL */
	char *export;
	int mount_port;			/* 0 = ask the port mapper */
	uint64_t readmax;
	uint64_t writemax;
	char *wbuf;			/* write payload, bs bytes */
	struct nb_smb2_opts smb;	/* SMB: from the URL */
	char *smb_url_buf;
	struct nb_nfs41_opts v41;	/* NFSv4.1: from the URL */
	char *v41_url_buf;
	uint8_t *smb_wbody;		/* swbuild WRITE body + payload */
	size_t smb_wbody_len;
	struct nb_fh root;		/* swbuild: the export's root handle */
	_Atomic bool stop;
	uint64_t phase_t0;
};

/* ---- engine (nb_engine.c) ---- */

int nb_job_init(struct nb_run *run, unsigned int i);
int nb_jobs_connect(struct nb_run *run);
void nb_jobs_destroy(struct nb_run *run);
int nb_phase_run(struct nb_run *run, const struct nb_phase_ops *ops,
		 const char *label, bool timed, struct nb_result *res);
struct nb_req *nb_req_get(struct nb_job *job);
void nb_req_done(struct nb_req *req, uint64_t bytes, bool ok);
void nb_job_fail(struct nb_job *job, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
uint64_t nb_rand(uint64_t *state);
void nb_log(const struct nb_run *run, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- data workloads (nb_data.c) ---- */

int nb_data_prepare(struct nb_run *run);
void nb_data_configure(struct nb_run *run, bool prep);
int nb_data_cleanup(struct nb_run *run);
int nb_data_next(struct nb_job *job, uint64_t *off, uint64_t *len);
int nb_data_fill(struct nb_run *run, uint64_t fill,
		 const struct nb_phase_ops *ops);
extern const struct nb_phase_ops nb_data_ops;

/* ---- swbuild (nb_swbuild.c) ---- */

int nb_swb_prepare(struct nb_run *run);
int nb_swb_alloc(struct nb_run *run);
void nb_swb_configure(struct nb_run *run, double rate_per_job);
int nb_swb_refill(struct nb_run *run);
void nb_swb_free(struct nb_run *run);
int nb_swb_pick_op(struct nb_job *job);
int nb_swb_pick_slot(struct nb_job *job, enum nb_slot_state want,
		     enum nb_slot_state alt);
extern const struct nb_phase_ops nb_swb_ops;
extern const struct nb_phase_ops nb_swb_refill_ops;

/* ---- SMB2 workloads (nb_smb2_work.c) ---- */

int nb_smb_jobs_connect(struct nb_run *run);
int nb_smb_data_prepare(struct nb_run *run);
int nb_smb_data_cleanup(struct nb_run *run);
int nb_smb_swb_prepare(struct nb_run *run);
extern const struct nb_phase_ops nb_smb_data_ops;
extern const struct nb_phase_ops nb_smb_swb_ops;
extern const struct nb_phase_ops nb_smb_swb_refill_ops;

/* ---- NFSv4.1 workloads (nb_nfs41_work.c) ---- */

int nb_v41_jobs_connect(struct nb_run *run);
int nb_v41_data_prepare(struct nb_run *run);
int nb_v41_data_cleanup(struct nb_run *run);
int nb_v41_swb_prepare(struct nb_run *run);
extern const struct nb_phase_ops nb_v41_data_ops;
extern const struct nb_phase_ops nb_v41_swb_ops;
extern const struct nb_phase_ops nb_v41_swb_refill_ops;

/* ---- raw calls, synchronous (nb_engine.c) ---- */

int nb_wait_rpc(struct rpc_context *rpc, const bool *done, int timeout_ms);
int nb_mount_root(struct nb_run *run);

#endif /* NASD_BENCH_NB_H */
