// SPDX-License-Identifier: MIT
/*
 * nasd-bench engine: connections (one nfs_context per job, or one SMB2
 * connection: nb_smb2_work.c), the client threads that poll them and keep
 * `depth` requests in flight per job, and phases with their progress line
 * and server samples.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "nb.h"

#define NB_HANG_S	120	/* a phase that cannot drain by then is hung */

struct nb_thread {
	struct nb_run *run;
	unsigned int idx;
	pthread_t tid;
	uint64_t t_end;
	_Atomic bool finished;
};

/**
 * nb_log() - a message on stderr unless --quiet or --json asked for silence
 * about progress (errors are always printed by their callers).
 * @run: the run
 * @fmt: printf format
 */
void nb_log(const struct nb_run *run, const char *fmt, ...)
{
	va_list ap;

	if (run->o.quiet)
		return;
	va_start(ap, fmt);
	fputs("nasd-bench: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/**
 * nb_rand() - xorshift64*: a fast generator for offsets and op choice.
 * @state: the generator's state, never 0
 */
uint64_t nb_rand(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1Dull;
}

/**
 * nb_job_fail() - mark a job failed with a message; it issues nothing more.
 * @job: the job
 * @fmt: printf format of the reason
 */
void nb_job_fail(struct nb_job *job, const char *fmt, ...)
{
	va_list ap;

	if (job->failed)
		return;
	job->failed = true;
	va_start(ap, fmt);
	vsnprintf(job->error, sizeof(job->error), fmt, ap);
	va_end(ap);
}

/**
 * nb_req_get() - take a free request slot of a job, or NULL if all
 * `depth` slots are in flight. The slot is the caller's until it passes it
 * to nb_req_done().
 * @job: the job
 */
struct nb_req *nb_req_get(struct nb_job *job)
{
	struct nb_req *req = job->free_reqs;

	if (!req)
		return NULL;
	job->free_reqs = req->next_free;
	req->next_free = NULL;
	req->t0 = nb_now_ns();
	return req;
}

/**
 * nb_req_done() - account a completed request and return its slot.
 * @req:   the slot (given back to the job)
 * @bytes: payload bytes moved
 * @ok:    false counts an error
 */
void nb_req_done(struct nb_req *req, uint64_t bytes, bool ok)
{
	struct nb_job *job = req->job;

	nb_hist_add(job->hist, nb_now_ns() - req->t0);
	atomic_fetch_add_explicit(&job->ops_done, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&job->bytes_done, bytes,
				  memory_order_relaxed);
	if (!ok)
		job->errors++;
	job->inflight--;
	req->next_free = job->free_reqs;
	job->free_reqs = req;
}

/* The job's connection, whichever protocol it speaks. */
static int job_fd(const struct nb_job *job)
{
	return job->smb ? nb_smb2_fd(job->smb) :
	       job->v41 ? nb_nfs41_fd(job->v41) : nfs_get_fd(job->nfs);
}

static short job_events(const struct nb_job *job)
{
	return job->smb ? nb_smb2_events(job->smb) :
	       job->v41 ? nb_nfs41_events(job->v41) :
			  (short)nfs_which_events(job->nfs);
}

static int job_service(struct nb_job *job, short revents)
{
	return job->smb ? nb_smb2_service(job->smb, revents) :
	       job->v41 ? nb_nfs41_service(job->v41, revents) :
			  nfs_service(job->nfs, revents);
}

static const char *job_error(const struct nb_job *job)
{
	return job->smb ? nb_smb2_error(job->smb) :
	       job->v41 ? nb_nfs41_error(job->v41) : nfs_get_error(job->nfs);
}

/**
 * nb_job_init() - the protocol-independent part of job @i: its id, random
 * state, histogram and `depth` free request slots.
 * @run: the run
 * @i:   the job's index
 *
 * Returns 0, or -1 with a message printed.
 */
int nb_job_init(struct nb_run *run, unsigned int i)
{
	struct nb_job *job = &run->jobs[i];
	unsigned int d;

	job->id = (int)i;
	job->run = run;
	job->rng = 0x9E3779B97F4A7C15ull * (i + 1) ^
		   (uint64_t)getpid() << 16 ^ nb_now_ns();
	if (!job->rng)
		job->rng = 1;
	job->hist = calloc(1, sizeof(*job->hist));
	job->reqs = calloc(run->o.depth, sizeof(*job->reqs));
	if (!job->hist || !job->reqs) {
		fprintf(stderr, "nasd-bench: out of memory\n");
		return -1;
	}
	for (d = 0; d < run->o.depth; d++) {
		job->reqs[d].job = job;
		job->reqs[d].slot = (int)d;
		job->reqs[d].next_free = d + 1 < run->o.depth ?
					 &job->reqs[d + 1] : NULL;
	}
	job->free_reqs = &job->reqs[0];
	return 0;
}

static int parse_mount_port(const char *url)
{
	const char *p = strstr(url, "mountport=");
	long v;

	if (!p)
		return 0;
	v = strtol(p + strlen("mountport="), NULL, 10);
	return v > 0 && v < 65536 ? (int)v : 0;
}

/*
 * NFSv4: a client id of its own per job (SETCLIENTID's id and verifier),
 * so that the server sees as many clients as there are connections.
 */
static int set_nfs4_client(struct nb_job *job)
{
	char name[96], verf[8];
	uint64_t v = nb_rand(&job->rng);

	if (nfs_set_version(job->nfs, NFS_V4) < 0) {
		fprintf(stderr, "nasd-bench: NFSv4: %s\n",
			nfs_get_error(job->nfs));
		return -1;
	}
	snprintf(name, sizeof(name), "nasd-bench.%d.%d.%llx", (int)getpid(),
		 job->id, (unsigned long long)nb_now_ns());
	nfs4_set_client_name(job->nfs, name);
	memcpy(verf, &v, sizeof(verf));
	nfs4_set_verifier(job->nfs, verf);
	return 0;
}

/**
 * nb_jobs_connect() - create and mount one nfs_context per job.
 * @run: the run; run->jobs must hold o.jobs zeroed jobs
 *
 * Each context gets its own XID range so that a server's reply cache never
 * confuses two jobs, and with NFSv4 its own client id. Returns 0, or -1
 * with a message printed.
 */
int nb_jobs_connect(struct nb_run *run)
{
	unsigned int i;

	run->mount_port = parse_mount_port(run->o.url);
	for (i = 0; i < run->o.jobs; i++) {
		struct nb_job *job = &run->jobs[i];
		struct nfs_url *url;

		if (nb_job_init(run, i) < 0)
			return -1;
		job->nfs = nfs_init_context();
		if (!job->nfs) {
			fprintf(stderr,
				"nasd-bench: nfs_init_context failed\n");
			return -1;
		}
		url = nfs_parse_url_dir(job->nfs, run->o.url);
		if (!url) {
			fprintf(stderr, "nasd-bench: bad URL '%s': %s\n",
				run->o.url, nfs_get_error(job->nfs));
			return -1;
		}
		if (!url->server || !url->path) {
			fprintf(stderr, "nasd-bench: URL '%s' has no server "
				"or export path\n", run->o.url);
			nfs_destroy_url(url);
			return -1;
		}
		job->rpc = nfs_get_rpc_context(job->nfs);
		rpc_set_next_xid(job->rpc, (uint32_t)(i + 1) << 22 |
				 (uint32_t)(nb_rand(&job->rng) & 0xffff));
		if (run->o.nfs4 && set_nfs4_client(job) < 0) {
			nfs_destroy_url(url);
			return -1;
		}
		if (nfs_mount(job->nfs, url->server, url->path) < 0) {
			fprintf(stderr, "nasd-bench: mount %s:%s (job %u): "
				"%s\n", url->server, url->path, i,
				nfs_get_error(job->nfs));
			nfs_destroy_url(url);
			return -1;
		}
		nfs_set_autoreconnect(job->nfs, 0);
		if (i == 0) {
			run->server = strdup(url->server);
			run->export = strdup(url->path);
			run->readmax = nfs_get_readmax(job->nfs);
			run->writemax = nfs_get_writemax(job->nfs);
		}
		nfs_destroy_url(url);
		if (!run->server || !run->export) {
			fprintf(stderr, "nasd-bench: out of memory\n");
			return -1;
		}
	}
	return 0;
}

/**
 * nb_jobs_destroy() - close every job's file and connection and free it.
 * @run: the run
 */
void nb_jobs_destroy(struct nb_run *run)
{
	unsigned int i;

	if (!run->jobs)
		return;
	for (i = 0; i < run->o.jobs; i++) {
		struct nb_job *job = &run->jobs[i];

		if (job->nfs) {
			if (job->fh && !job->failed)
				nfs_close(job->nfs, job->fh);
			nfs_destroy_context(job->nfs);
		}
		nb_smb2_destroy(job->smb);
		nb_nfs41_destroy(job->v41);
		free(job->hist);
		free(job->reqs);
		free(job->path);
	}
	nb_swb_free(run);
	free(run->jobs);
	run->jobs = NULL;
	free(run->smb_wbody);
	run->smb_wbody = NULL;
}

/* Issue what the job may issue now; finish it once it is idle. */
static void job_pump(struct nb_job *job, uint64_t now)
{
	struct nb_run *run = job->run;
	struct nb_req *req;
	int r;

	if (job->done || job->failed)
		return;
	while (!job->exhausted && !job->finish_called &&
	       !atomic_load_explicit(&run->stop, memory_order_relaxed)) {
		if (job->interval_ns && now < job->next_due)
			break;
		req = nb_req_get(job);
		if (!req)
			break;
		r = job->ops->issue(job, req);
		if (r != 0) {
			req->next_free = job->free_reqs;
			job->free_reqs = req;
			if (r > 0) {
				job->exhausted = true;
			} else {
				nb_job_fail(job, "%s: cannot queue a request: "
					    "%s", job->ops->name,
					    r == -EAGAIN ? "every slot busy" :
					    job_error(job));
				return;
			}
			break;
		}
		job->inflight++;
		if (job->interval_ns)
			job->next_due += job->interval_ns;
	}
	if (job->inflight)
		return;
	if (!job->exhausted &&
	    !atomic_load_explicit(&run->stop, memory_order_relaxed))
		return;
	if (!job->finish_called) {
		job->finish_called = true;
		if (job->ops->finish) {
			r = job->ops->finish(job);
			if (r > 0) {
				job->inflight++;
				return;
			}
			if (r < 0) {
				nb_job_fail(job, "%s: cannot finish: %s",
					    job->ops->name, job_error(job));
				return;
			}
		}
	}
	job->done = true;
}

static void *thread_main(void *arg)
{
	struct nb_thread *t = arg;
	struct nb_run *run = t->run;
	unsigned int nj = 0, i, k;
	struct nb_job **mine;
	struct pollfd *pfd;
	unsigned int *map;

	mine = calloc(run->o.jobs, sizeof(*mine));
	pfd = calloc(run->o.jobs, sizeof(*pfd));
	map = calloc(run->o.jobs, sizeof(*map));
	if (!mine || !pfd || !map) {
		for (i = t->idx; i < run->o.jobs; i += run->o.threads)
			nb_job_fail(&run->jobs[i], "out of memory");
		goto out;
	}
	for (i = t->idx; i < run->o.jobs; i += run->o.threads)
		mine[nj++] = &run->jobs[i];

	for (;;) {
		uint64_t now = nb_now_ns(), wait_ns = 100000000ull;
		struct timespec ts;
		unsigned int n = 0;
		int r;

		for (i = 0; i < nj; i++) {
			struct nb_job *job = mine[i];

			job_pump(job, now);
			if (job->done || job->failed)
				continue;
			if (job->interval_ns && !job->exhausted &&
			    job->inflight < run->o.depth &&
			    !atomic_load_explicit(&run->stop,
						  memory_order_relaxed)) {
				uint64_t d = job->next_due > now ?
					     job->next_due - now : 0;

				if (d < wait_ns)
					wait_ns = d;
			}
			pfd[n].fd = job_fd(job);
			pfd[n].events = job_events(job);
			pfd[n].revents = 0;
			map[n++] = i;
		}
		if (!n)
			break;
		ts.tv_sec = (time_t)(wait_ns / NB_NS);
		ts.tv_nsec = (long)(wait_ns % NB_NS);
		r = ppoll(pfd, n, &ts, NULL);
		if (r < 0 && errno != EINTR) {
			for (k = 0; k < n; k++)
				nb_job_fail(mine[map[k]], "poll: %s",
					    strerror(errno));
			break;
		}
		now = nb_now_ns();
		for (k = 0; k < n; k++) {
			struct nb_job *job = mine[map[k]];

			if (!pfd[k].revents)
				continue;
			if (job_service(job, pfd[k].revents) < 0) {
				nb_job_fail(job, "connection lost: %s",
					    job_error(job));
				continue;
			}
			job_pump(job, now);
		}
	}
out:
	free(mine);
	free(pfd);
	free(map);
	t->t_end = nb_now_ns();
	atomic_store(&t->finished, true);
	return NULL;
}

static double rusage_cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static void job_reset_phase(struct nb_job *job, const struct nb_phase_ops *ops)
{
	unsigned int i;

	job->ops = ops;
	job->exhausted = false;
	job->finish_called = false;
	job->done = job->failed;
	atomic_store(&job->ops_done, 0);
	atomic_store(&job->bytes_done, 0);
	job->errors = 0;
	job->short_io = 0;
	nb_hist_reset(job->hist);
	job->swb.noent = 0;
	for (i = 0; i < NB_SWB_NOPS; i++) {
		job->swb.count[i] = 0;
		job->swb.errors[i] = 0;
		if (job->swb.hist)
			nb_hist_reset(&job->swb.hist[i]);
	}
}

static void progress(struct nb_run *run, const char *label, double t,
		     uint64_t ops, uint64_t bytes, uint64_t dops,
		     uint64_t dbytes, double dt, bool last)
{
	const char *end = isatty(STDERR_FILENO) ? (last ? "\n" : "\r") : "\n";

	if (run->o.quiet)
		return;
	fprintf(stderr, "[%s] %5.1fs  %9.1f MiB/s  %9.0f ops/s  "
		"total %.1f MiB, %llu ops%s", label, t,
		dt > 0 ? (double)dbytes / 1048576.0 / dt : 0.0,
		dt > 0 ? (double)dops / dt : 0.0, (double)bytes / 1048576.0,
		(unsigned long long)ops, end);
	fflush(stderr);
}

static void collect(struct nb_run *run, struct nb_result *res)
{
	unsigned int i, k;

	for (i = 0; i < run->o.jobs; i++) {
		struct nb_job *job = &run->jobs[i];

		res->ops += atomic_load(&job->ops_done);
		res->bytes += atomic_load(&job->bytes_done);
		res->errors += job->errors;
		res->short_io += job->short_io;
		nb_hist_merge(&res->hist, job->hist);
		for (k = 0; k < NB_SWB_NOPS && job->swb.hist; k++) {
			res->swb_count[k] += job->swb.count[k];
			res->swb_errors[k] += job->swb.errors[k];
			nb_hist_merge(&res->swb_hist[k], &job->swb.hist[k]);
		}
		res->swb_noent += job->swb.noent;
		if (job->failed) {
			if (!res->failed_jobs)
				snprintf(res->first_error,
					 sizeof(res->first_error),
					 "job %u: %s", i, job->error);
			res->failed_jobs++;
		}
	}
}

/**
 * nb_phase_run() - run one phase over every job and gather its totals.
 * @run:   the run; the workload has configured each job's phase state
 * @ops:   what each job issues
 * @label: shown on the progress line
 * @timed: stop after run->o.time_s seconds (if set); otherwise the phase
 *         ends when every job's issue() returned 1
 * @res:   zeroed and filled
 *
 * Returns 0, or -1 when a job failed (res->first_error says why).
 */
int nb_phase_run(struct nb_run *run, const struct nb_phase_ops *ops,
		 const char *label, bool timed, struct nb_result *res)
{
	struct nb_thread th[NB_MAX_THREADS];
	uint64_t t0, last_t, last_ops = 0, last_bytes = 0, t_end = 0;
	unsigned int i, nth = run->o.threads;
	double cpu0, limit = timed ? run->o.time_s : 0;
	bool stopped = false;

	memset(res, 0, sizeof(*res));
	for (i = 0; i < run->o.jobs; i++)
		job_reset_phase(&run->jobs[i], ops);
	if (run->o.server_pid > 0)
		nb_server_sample(run->o.server_pid, run->o.server_tree,
				 &res->srv_before);
	res->srv_rss_peak_kib = res->srv_before.vm_rss_kib;
	cpu0 = rusage_cpu_s();
	atomic_store(&run->stop, false);
	t0 = nb_now_ns();
	run->phase_t0 = t0;
	/* Rate mode: spread the jobs' first requests over one interval so
	 * that they do not arrive in lock-step bursts. */
	for (i = 0; i < run->o.jobs; i++)
		run->jobs[i].next_due = t0 + run->jobs[i].interval_ns * i /
					     run->o.jobs;

	/* Thread i takes jobs i, i + nth, ... (main() keeps nth <= jobs). */
	for (i = 0; i < nth; i++) {
		th[i].run = run;
		th[i].idx = i;
		th[i].t_end = 0;
		atomic_store(&th[i].finished, false);
		if (pthread_create(&th[i].tid, NULL, thread_main, &th[i])) {
			fprintf(stderr, "nasd-bench: cannot start a thread\n");
			exit(1);
		}
	}

	last_t = t0;
	for (;;) {
		struct timespec ts = { 0, 50 * 1000 * 1000 };
		uint64_t now, nops = 0, bytes = 0;
		bool all = true;

		nanosleep(&ts, NULL);
		for (i = 0; i < nth; i++)
			all = all && atomic_load(&th[i].finished);
		if (all)
			break;
		now = nb_now_ns();
		if (!stopped && limit > 0 &&
		    (double)(now - t0) / NB_NS >= limit) {
			atomic_store(&run->stop, true);
			stopped = true;
		}
		if (stopped && (double)(now - t0) / NB_NS > limit + NB_HANG_S) {
			fprintf(stderr, "\nnasd-bench: %s: requests still "
				"in flight %d s after the end; the server "
				"does not answer\n", label, NB_HANG_S);
			exit(1);
		}
		if (now - last_t < NB_NS)
			continue;
		for (i = 0; i < run->o.jobs; i++) {
			nops += atomic_load_explicit(&run->jobs[i].ops_done,
						    memory_order_relaxed);
			bytes += atomic_load_explicit(
				&run->jobs[i].bytes_done,
				memory_order_relaxed);
		}
		progress(run, label, (double)(now - t0) / NB_NS, nops, bytes,
			 nops - last_ops, bytes - last_bytes,
			 (double)(now - last_t) / NB_NS, false);
		if (res->ntimeline < NB_TIMELINE_MAX)
			res->timeline[res->ntimeline++] =
				(float)((double)(bytes - last_bytes) /
					1048576.0 /
					((double)(now - last_t) / NB_NS));
		last_ops = nops;
		last_bytes = bytes;
		last_t = now;
		if (run->o.server_pid > 0) {
			struct nb_server_sample s;

			if (!nb_server_sample(run->o.server_pid,
					      run->o.server_tree, &s) &&
			    s.vm_rss_kib > res->srv_rss_peak_kib)
				res->srv_rss_peak_kib = s.vm_rss_kib;
		}
	}
	for (i = 0; i < nth; i++) {
		pthread_join(th[i].tid, NULL);
		if (th[i].t_end > t_end)
			t_end = th[i].t_end;
	}
	res->elapsed_s = (double)(t_end - t0) / NB_NS;
	res->client_cpu_s = rusage_cpu_s() - cpu0;
	if (run->o.server_pid > 0) {
		nb_server_sample(run->o.server_pid, run->o.server_tree,
				 &res->srv_after);
		if (res->srv_after.vm_rss_kib > res->srv_rss_peak_kib)
			res->srv_rss_peak_kib = res->srv_after.vm_rss_kib;
	}
	collect(run, res);
	progress(run, label, res->elapsed_s, res->ops, res->bytes, res->ops,
		 res->bytes, res->elapsed_s, true);
	return res->failed_jobs ? -1 : 0;
}

struct mnt_wait {
	bool done;
	bool ok;
	char error[256];
	struct nb_fh fh;
};

static void connect_cb(struct rpc_context *rpc, int status, void *data,
		       void *private_data)
{
	struct mnt_wait *w = private_data;

	w->done = true;
	w->ok = status == RPC_STATUS_SUCCESS;
	if (!w->ok)
		snprintf(w->error, sizeof(w->error), "connect: %s",
			 data ? (const char *)data : "failed");
}

static void mnt_cb(struct rpc_context *rpc, int status, void *data,
		   void *private_data)
{
	struct mnt_wait *w = private_data;
	mountres3 *res = data;
	fhandle3 *fh;

	w->done = true;
	w->ok = false;
	if (status != RPC_STATUS_SUCCESS) {
		snprintf(w->error, sizeof(w->error), "MNT: %s",
			 status == RPC_STATUS_ERROR && data ?
			 (const char *)data : "no reply");
		return;
	}
	if (res->fhs_status != MNT3_OK) {
		snprintf(w->error, sizeof(w->error), "MNT: status %d",
			 (int)res->fhs_status);
		return;
	}
	fh = &res->mountres3_u.mountinfo.fhandle;
	if (fh->fhandle3_len > NB_FH_MAX || !fh->fhandle3_len) {
		snprintf(w->error, sizeof(w->error), "MNT: handle of %u bytes",
			 fh->fhandle3_len);
		return;
	}
	w->fh.len = fh->fhandle3_len;
	memcpy(w->fh.data, fh->fhandle3_val, w->fh.len);
	w->ok = true;
}

/**
 * nb_wait_rpc() - drive an rpc_context until *done or a timeout.
 * @rpc:        the context
 * @done:       set by the callback being waited for
 * @timeout_ms: give up after this long
 *
 * Returns 0, -EIO when the connection failed, -ETIMEDOUT.
 */
int nb_wait_rpc(struct rpc_context *rpc, const bool *done, int timeout_ms)
{
	uint64_t end = nb_now_ns() + (uint64_t)timeout_ms * 1000000ull;

	while (!*done) {
		struct pollfd p = {
			.fd = rpc_get_fd(rpc),
			.events = (short)rpc_which_events(rpc),
		};
		int r;

		if (nb_now_ns() > end)
			return -ETIMEDOUT;
		r = poll(&p, 1, 100);
		if (r < 0 && errno != EINTR)
			return -errno;
		if (rpc_service(rpc, r > 0 ? p.revents : 0) < 0)
			return -EIO;
	}
	return 0;
}

/**
 * nb_mount_root() - fetch the export's root handle with a MOUNT v3 MNT call
 * (RFC 1813 §5.2.1) over a connection of its own, into run->root.
 * @run: the run, connected (server, export, mount_port known)
 *
 * Returns 0, or -1 with a message printed.
 */
int nb_mount_root(struct nb_run *run)
{
	struct rpc_context *rpc = rpc_init_context();
	struct mnt_wait w = { 0 };
	int r;

	if (!rpc) {
		fprintf(stderr, "nasd-bench: rpc_init_context failed\n");
		return -1;
	}
	if (run->mount_port)
		r = rpc_connect_port_async(rpc, run->server, run->mount_port,
					   MOUNT_PROGRAM, MOUNT_V3, connect_cb,
					   &w);
	else
		r = rpc_connect_program_async(rpc, run->server, MOUNT_PROGRAM,
					      MOUNT_V3, connect_cb, &w);
	if (r < 0 || nb_wait_rpc(rpc, &w.done, 20000) < 0 || !w.ok)
		goto fail;
	memset(&w, 0, sizeof(w));
	if (rpc_mount3_mnt_async(rpc, mnt_cb, run->export, &w) < 0 ||
	    nb_wait_rpc(rpc, &w.done, 20000) < 0 || !w.ok)
		goto fail;
	run->root = w.fh;
	rpc_destroy_context(rpc);
	return 0;
fail:
	fprintf(stderr, "nasd-bench: root handle of %s:%s: %s\n",
		run->server, run->export,
		w.error[0] ? w.error : rpc_get_error(rpc));
	rpc_destroy_context(rpc);
	return -1;
}
