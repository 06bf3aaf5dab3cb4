// SPDX-License-Identifier: MIT
/*
 * nasd-bench data workloads: seq-read, seq-write, rand-read, rand-write on
 * one file per job ("/PREFIX.JOB" in the export), with nfs_pread_async and
 * nfs_pwrite_async. Writes are UNSTABLE (libnfs's default) and each job ends
 * a write phase with a COMMIT (nfs_fsync_async), inside the timed phase;
 * --sync opens the files O_SYNC so that every WRITE is FILE_SYNC instead.
 * Over NFSv4 (read workloads only) the files are opened read-only and must
 * exist with --size bytes already.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nb.h"

static bool is_write(enum nb_workload w)
{
	return w == NB_SEQ_WRITE || w == NB_RAND_WRITE;
}

static bool is_random(enum nb_workload w)
{
	return w == NB_RAND_READ || w == NB_RAND_WRITE;
}

static void rw_cb(int err, struct nfs_context *nfs, void *data,
		  void *private_data)
{
	struct nb_req *req = private_data;
	struct nb_job *job = req->job;

	if (err < 0) {
		nb_job_fail(job, "%s of %u bytes at %llu: %s",
			    job->write ? "WRITE" : "READ", req->len,
			    (unsigned long long)req->off,
			    data ? (const char *)data : strerror(-err));
		nb_req_done(req, 0, false);
		return;
	}
	if ((uint64_t)err < req->len)
		job->short_io++;
	nb_req_done(req, (uint64_t)err, true);
}

/**
 * nb_data_next() - the offset and length of a job's next request in a data
 * phase (sequential, wrapping when time-based; or random blocks).
 * @job: the job, configured by nb_data_configure()
 * @off: the offset
 * @len: the length
 *
 * Returns 0, or 1 when the phase has nothing more to issue.
 */
int nb_data_next(struct nb_job *job, uint64_t *off, uint64_t *len)
{
	uint64_t bs = job->run->o.bs;

	if (job->random) {
		uint64_t nblocks = job->end_off / bs;

		if (!job->wrap) {
			if (!job->ops_left)
				return 1;
			job->ops_left--;
		}
		if (!nblocks)
			return 1;
		*off = nb_rand(&job->rng) % nblocks * bs;
		*len = bs;
	} else {
		if (job->next_off >= job->end_off) {
			if (!job->wrap || job->end_off <= job->start_off)
				return 1;
			job->next_off = job->start_off;
		}
		*off = job->next_off;
		*len = job->end_off - *off < bs ? job->end_off - *off : bs;
		job->next_off += *len;
	}
	return 0;
}

static int data_issue(struct nb_job *job, struct nb_req *req)
{
	uint64_t off, len;

	if (nb_data_next(job, &off, &len))
		return 1;
	req->off = off;
	req->len = (uint32_t)len;
	if (job->write)
		return nfs_pwrite_async(job->nfs, job->fh, off, len,
					job->run->wbuf, rw_cb, req) < 0 ?
		       -EIO : 0;
	return nfs_pread_async(job->nfs, job->fh, off, len, rw_cb, req) < 0 ?
	       -EIO : 0;
}

static void commit_cb(int err, struct nfs_context *nfs, void *data,
		      void *private_data)
{
	struct nb_job *job = private_data;

	job->inflight--;
	if (err < 0)
		nb_job_fail(job, "COMMIT: %s",
			    data ? (const char *)data : strerror(-err));
}

static int data_finish(struct nb_job *job)
{
	if (!job->write || job->run->o.sync ||
	    !atomic_load(&job->ops_done))
		return 0;
	return nfs_fsync_async(job->nfs, job->fh, commit_cb, job) < 0 ?
	       -EIO : 1;
}

const struct nb_phase_ops nb_data_ops = {
	.name = "data",
	.issue = data_issue,
	.finish = data_finish,
};

/**
 * nb_data_configure() - set every job up for the measured phase, or for
 * the prepare phase that fills files the workload reads.
 * @run:  the run, prepared
 * @prep: true: write [current size rounded down to bs, size) of each file
 */
void nb_data_configure(struct nb_run *run, bool prep)
{
	enum nb_workload w = run->o.workload;
	unsigned int i;

	for (i = 0; i < run->o.jobs; i++) {
		struct nb_job *job = &run->jobs[i];

		job->interval_ns = 0;
		job->end_off = run->o.size;
		if (prep) {
			uint64_t have = job->file_size < run->o.size ?
					job->file_size : run->o.size;

			job->write = true;
			job->random = false;
			job->wrap = false;
			job->start_off = have / run->o.bs * run->o.bs;
		} else {
			job->write = is_write(w);
			job->random = is_random(w);
			job->wrap = run->o.time_s > 0;
			job->start_off = 0;
		}
		job->next_off = job->start_off;
		job->ops_left = run->o.size / run->o.bs;
	}
}

/**
 * nb_data_prepare() - open (creating) each job's file and, for workloads
 * that read or overwrite it, fill it to --size first, untimed.
 * @run: the run, connected
 *
 * Returns 0, or -1 with a message printed.
 */
int nb_data_prepare(struct nb_run *run)
{
	/* NFSv4 reads what an NFSv3 run wrote (see nb_opts.nfs4) */
	int flags = run->o.nfs4 ? O_RDONLY
				: O_RDWR | O_CREAT | (run->o.sync ? O_SYNC : 0);
	uint64_t fill = 0;
	unsigned int i;

	for (i = 0; i < run->o.jobs; i++) {
		struct nb_job *job = &run->jobs[i];
		struct nfs_stat_64 st;
		char path[512];

		snprintf(path, sizeof(path), "/%s.%u", run->o.prefix, i);
		job->path = strdup(path);
		if (!job->path) {
			fprintf(stderr, "nasd-bench: out of memory\n");
			return -1;
		}
		if (nfs_open2(job->nfs, job->path, flags, 0644, &job->fh) < 0) {
			fprintf(stderr, "nasd-bench: open %s: %s\n", job->path,
				nfs_get_error(job->nfs));
			return -1;
		}
		if (nfs_fstat64(job->nfs, job->fh, &st) < 0) {
			fprintf(stderr, "nasd-bench: stat %s: %s\n", job->path,
				nfs_get_error(job->nfs));
			return -1;
		}
		job->file_size = st.nfs_size;
		if (run->o.nfs4 && st.nfs_size < run->o.size) {
			fprintf(stderr, "nasd-bench: %s has %llu bytes, less "
				"than --size: write the files over NFSv3 first "
				"(seq-write with the same --prefix and --size, "
				"version=3)\n", job->path,
				(unsigned long long)st.nfs_size);
			return -1;
		}
		if (run->o.workload != NB_SEQ_WRITE &&
		    st.nfs_size < run->o.size)
			fill += run->o.size - st.nfs_size / run->o.bs *
					      run->o.bs;
	}
	return nb_data_fill(run, fill, &nb_data_ops);
}

/**
 * nb_data_fill() - write @fill bytes with @ops so that the files exist
 * (untimed; every engine's data prepare ends here).
 * @run:  the run, its files open
 * @fill: bytes missing (0: nothing to do)
 * @ops:  the engine's data phase
 *
 * Returns 0, or -1 with a message printed.
 */
int nb_data_fill(struct nb_run *run, uint64_t fill,
		 const struct nb_phase_ops *ops)
{
	struct nb_result *res;
	int ret;

	if (!fill)
		return 0;
	nb_log(run, "preparing: writing %.1f MiB so that the files exist",
	       (double)fill / 1048576.0);
	res = calloc(1, sizeof(*res));
	if (!res) {
		fprintf(stderr, "nasd-bench: out of memory\n");
		return -1;
	}
	nb_data_configure(run, true);
	ret = nb_phase_run(run, ops, "prepare", false, res);
	if (ret < 0)
		fprintf(stderr, "nasd-bench: prepare: %s\n", res->first_error);
	free(res);
	return ret;
}

/**
 * nb_data_cleanup() - remove every job's file (--cleanup).
 * @run: the run
 *
 * Returns 0, or -1 when a file could not be removed (message printed).
 */
int nb_data_cleanup(struct nb_run *run)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < run->o.jobs; i++) {
		struct nb_job *job = &run->jobs[i];

		if (!job->path || job->failed)
			continue;
		if (job->fh) {
			nfs_close(job->nfs, job->fh);
			job->fh = NULL;
		}
		if (nfs_unlink(job->nfs, job->path) < 0) {
			fprintf(stderr, "nasd-bench: remove %s: %s\n",
				job->path, nfs_get_error(job->nfs));
			ret = -1;
		}
	}
	return ret;
}
