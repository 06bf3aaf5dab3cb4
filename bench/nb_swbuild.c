// SPDX-License-Identifier: MIT
/*
 * nasd-bench swbuild: the SPEC SFS 2014 SWBUILD operation mix on a tree
 * each job builds first (untimed), with raw NFSv3 calls on handles the job
 * keeps, so one operation is one RPC, as a kernel client with a warm dentry
 * cache would send it:
 *
 *   stat       LOOKUP of a file in its directory          (RFC 1813 §3.3.3)
 *   write_file WRITE of the whole file, UNSTABLE          (§3.3.7)
 *   read_file  READ of the whole file                     (§3.3.6)
 *   access     ACCESS                                     (§3.3.4)
 *   chmod      SETATTR of the mode (0644 <-> 0664)        (§3.3.2)
 *   unlink     REMOVE of a file in the churn directory    (§3.3.12)
 *   readdir    READDIRPLUS of a source directory          (§3.3.17)
 *   create     CREATE UNCHECKED in the churn directory    (§3.3.8)
 *   mkdir      MKDIR of a new directory                   (§3.3.9)
 *
 * Tree per job: TOP/jJ/dK/fM (swb_dirs x swb_files files of --bs bytes),
 * TOP/jJ/churn/cN (swb_churn slots, half present at the start) and
 * TOP/jJ/mk (where mkdir adds directories), TOP = /PREFIX.swb.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nb.h"

const char *const nb_swb_op_name[NB_SWB_NOPS] = {
	[NB_SWB_STAT] = "stat",
	[NB_SWB_WRITE_FILE] = "write_file",
	[NB_SWB_READ_FILE] = "read_file",
	[NB_SWB_ACCESS] = "access",
	[NB_SWB_CHMOD] = "chmod",
	[NB_SWB_UNLINK] = "unlink",
	[NB_SWB_READDIR] = "readdir",
	[NB_SWB_CREATE] = "create",
	[NB_SWB_MKDIR] = "mkdir",
};

/* Per-thread operation counts of SPEC SFS 2014 SWBUILD. */
const unsigned int nb_swb_op_weight[NB_SWB_NOPS] = {
	[NB_SWB_STAT] = 16556,
	[NB_SWB_WRITE_FILE] = 1605,
	[NB_SWB_READ_FILE] = 1447,
	[NB_SWB_ACCESS] = 1401,
	[NB_SWB_CHMOD] = 1226,
	[NB_SWB_UNLINK] = 717,
	[NB_SWB_READDIR] = 481,
	[NB_SWB_CREATE] = 256,
	[NB_SWB_MKDIR] = 246,
};

#define SWB_SETUP_TIMEOUT_MS	30000

static nfs_fh3 fh3(const struct nb_fh *fh)
{
	nfs_fh3 f;

	f.data.data_len = fh->len;
	f.data.data_val = (char *)fh->data;
	return f;
}

static bool fh_copy(struct nb_fh *dst, const nfs_fh3 *src)
{
	if (src->data.data_len > NB_FH_MAX || !src->data.data_len)
		return false;
	dst->len = src->data.data_len;
	memcpy(dst->data, src->data.data_val, dst->len);
	return true;
}

/* ---- synchronous calls for building the tree ---- */

struct swb_wait {
	bool done;
	bool rpc_ok;
	int status;		/* nfsstat3 */
	bool has_fh;
	struct nb_fh fh;
	bool has_size;
	uint64_t size;
	char error[200];
};

static void wait_cb(struct rpc_context *rpc, int status, void *data,
		    void *private_data, int proc)
{
	struct swb_wait *w = private_data;
	const nfsstat3 *st = data;

	w->done = true;
	if (status != RPC_STATUS_SUCCESS) {
		snprintf(w->error, sizeof(w->error), "%s",
			 status == RPC_STATUS_ERROR && data ?
			 (const char *)data : "no reply");
		return;
	}
	w->rpc_ok = true;
	w->status = (int)*st;
	if (*st != NFS3_OK)
		return;
	switch (proc) {
	case NFS3_LOOKUP: {
		LOOKUP3res *r = data;

		w->has_fh = fh_copy(&w->fh, &r->LOOKUP3res_u.resok.object);
		if (r->LOOKUP3res_u.resok.obj_attributes.attributes_follow) {
			w->has_size = true;
			w->size = r->LOOKUP3res_u.resok.obj_attributes
					.post_op_attr_u.attributes.size;
		}
		break;
	}
	case NFS3_CREATE: {
		CREATE3res *r = data;

		if (r->CREATE3res_u.resok.obj.handle_follows)
			w->has_fh = fh_copy(&w->fh, &r->CREATE3res_u.resok.obj
						.post_op_fh3_u.handle);
		break;
	}
	case NFS3_MKDIR: {
		MKDIR3res *r = data;

		if (r->MKDIR3res_u.resok.obj.handle_follows)
			w->has_fh = fh_copy(&w->fh, &r->MKDIR3res_u.resok.obj
						.post_op_fh3_u.handle);
		break;
	}
	default:
		break;
	}
}

static void lookup_wait_cb(struct rpc_context *rpc, int status, void *data,
			   void *private_data)
{
	wait_cb(rpc, status, data, private_data, NFS3_LOOKUP);
}

static void create_wait_cb(struct rpc_context *rpc, int status, void *data,
			   void *private_data)
{
	wait_cb(rpc, status, data, private_data, NFS3_CREATE);
}

static void mkdir_wait_cb(struct rpc_context *rpc, int status, void *data,
			  void *private_data)
{
	wait_cb(rpc, status, data, private_data, NFS3_MKDIR);
}

static void plain_wait_cb(struct rpc_context *rpc, int status, void *data,
			  void *private_data)
{
	wait_cb(rpc, status, data, private_data, 0);
}

static int swb_wait(struct nb_job *job, struct swb_wait *w, int queued,
		    const char *what, const char *name)
{
	if (queued < 0) {
		fprintf(stderr, "nasd-bench: swbuild setup: %s %s: cannot "
			"queue: %s\n", what, name, rpc_get_error(job->rpc));
		return -1;
	}
	if (nb_wait_rpc(job->rpc, &w->done, SWB_SETUP_TIMEOUT_MS) < 0 ||
	    !w->rpc_ok) {
		fprintf(stderr, "nasd-bench: swbuild setup: %s %s: %s\n",
			what, name, w->error[0] ? w->error :
			rpc_get_error(job->rpc));
		return -1;
	}
	return 0;
}

static int swb_lookup(struct nb_job *job, const struct nb_fh *dir,
		      const char *name, struct swb_wait *w)
{
	LOOKUP3args a = { 0 };

	memset(w, 0, sizeof(*w));
	a.what.dir = fh3(dir);
	a.what.name = (char *)name;
	return swb_wait(job, w, rpc_nfs3_lookup_async(job->rpc,
		lookup_wait_cb, &a, w), "LOOKUP", name);
}

/* MKDIR, or LOOKUP of what is already there. */
static int swb_mkdir(struct nb_job *job, const struct nb_fh *dir,
		     const char *name, struct nb_fh *out)
{
	MKDIR3args a = { 0 };
	struct swb_wait w = { 0 };

	a.where.dir = fh3(dir);
	a.where.name = (char *)name;
	a.attributes.mode.set_it = 1;
	a.attributes.mode.set_mode3_u.mode = 0755;
	if (swb_wait(job, &w, rpc_nfs3_mkdir_async(job->rpc, mkdir_wait_cb,
						   &a, &w), "MKDIR", name) < 0)
		return -1;
	if (w.status != NFS3_OK && w.status != NFS3ERR_EXIST) {
		fprintf(stderr, "nasd-bench: swbuild setup: MKDIR %s: "
			"status %d\n", name, w.status);
		return -1;
	}
	if (!w.has_fh) {
		if (swb_lookup(job, dir, name, &w) < 0)
			return -1;
		if (w.status != NFS3_OK || !w.has_fh) {
			fprintf(stderr, "nasd-bench: swbuild setup: LOOKUP "
				"%s: status %d\n", name, w.status);
			return -1;
		}
	}
	*out = w.fh;
	return 0;
}

static int swb_create(struct nb_job *job, const struct nb_fh *dir,
		      const char *name, struct nb_fh *out)
{
	CREATE3args a = { 0 };
	struct swb_wait w = { 0 };

	a.where.dir = fh3(dir);
	a.where.name = (char *)name;
	a.how.mode = UNCHECKED;
	a.how.createhow3_u.obj_attributes.mode.set_it = 1;
	a.how.createhow3_u.obj_attributes.mode.set_mode3_u.mode = 0644;
	if (swb_wait(job, &w, rpc_nfs3_create_async(job->rpc, create_wait_cb,
						    &a, &w), "CREATE",
		     name) < 0)
		return -1;
	if (w.status != NFS3_OK) {
		fprintf(stderr, "nasd-bench: swbuild setup: CREATE %s: "
			"status %d\n", name, w.status);
		return -1;
	}
	if (!w.has_fh) {
		if (swb_lookup(job, dir, name, &w) < 0 ||
		    w.status != NFS3_OK || !w.has_fh) {
			fprintf(stderr, "nasd-bench: swbuild setup: no handle "
				"for %s\n", name);
			return -1;
		}
	}
	if (out)
		*out = w.fh;
	return 0;
}

static int swb_fill(struct nb_job *job, const struct nb_fh *fh, uint32_t len)
{
	WRITE3args a = { 0 };
	struct swb_wait w = { 0 };

	a.file = fh3(fh);
	a.offset = 0;
	a.count = len;
	a.stable = FILE_SYNC;
	a.data.data_len = len;
	a.data.data_val = job->run->wbuf;
	if (swb_wait(job, &w, rpc_nfs3_write_async(job->rpc, plain_wait_cb,
						   &a, &w), "WRITE",
		     "file") < 0)
		return -1;
	if (w.status != NFS3_OK) {
		fprintf(stderr, "nasd-bench: swbuild setup: WRITE: status "
			"%d\n", w.status);
		return -1;
	}
	return 0;
}

static int swb_build(struct nb_run *run, struct nb_job *job,
		     const struct nb_fh *top)
{
	struct nb_swb_job *s = &job->swb;
	unsigned int nd = run->o.swb_dirs, nf = run->o.swb_files;
	unsigned int k, m, n;
	struct nb_fh jd;
	struct swb_wait w;
	char name[64];

	snprintf(name, sizeof(name), "j%d", job->id);
	if (swb_mkdir(job, top, name, &jd) < 0)
		return -1;
	s->top = jd;
	for (k = 0; k < nd; k++) {
		snprintf(name, sizeof(name), "d%u", k);
		if (swb_mkdir(job, &jd, name, &s->dirs[k]) < 0)
			return -1;
		for (m = 0; m < nf; m++) {
			struct nb_fh *f = &s->files[k * nf + m];

			snprintf(name, sizeof(name), "f%u", m);
			if (swb_lookup(job, &s->dirs[k], name, &w) < 0)
				return -1;
			if (w.status == NFS3_OK && w.has_fh && w.has_size &&
			    w.size == run->o.bs) {
				*f = w.fh;
				continue;
			}
			if (swb_create(job, &s->dirs[k], name, f) < 0 ||
			    swb_fill(job, f, (uint32_t)run->o.bs) < 0)
				return -1;
		}
	}
	if (swb_mkdir(job, &jd, "churn", &s->churn) < 0 ||
	    swb_mkdir(job, &jd, "mk", &s->mk) < 0)
		return -1;
	/* Slot states start unknown-as-absent: nb_swb_refill() creates half
	 * of them with UNCHECKED, which is right whether a previous run left
	 * the file there or not. */
	for (n = 0; n < run->o.swb_churn; n++)
		s->churn_state[n] = NB_SLOT_ABSENT;
	return 0;
}

/**
 * nb_swb_prepare() - fetch the root handle and build every job's tree.
 * @run: the run, connected
 *
 * Untimed. Files already there with the right size are reused, so a second
 * run on the same export starts quickly. Returns 0, or -1 (message printed).
 */
int nb_swb_prepare(struct nb_run *run)
{
	struct nb_fh top;
	uint64_t t0 = nb_now_ns();
	char name[300];
	unsigned int i;

	if (nb_mount_root(run) < 0)
		return -1;
	snprintf(name, sizeof(name), "%s.swb", run->o.prefix);
	if (swb_mkdir(&run->jobs[0], &run->root, name, &top) < 0)
		return -1;
	nb_log(run, "swbuild: building %u directories x %u files of %llu "
	       "bytes per job", run->o.swb_dirs, run->o.swb_files,
	       (unsigned long long)run->o.bs);
	if (nb_swb_alloc(run) < 0)
		return -1;
	for (i = 0; i < run->o.jobs; i++)
		if (swb_build(run, &run->jobs[i], &top) < 0)
			return -1;
	nb_log(run, "swbuild: tree ready in %.1f s",
	       (double)(nb_now_ns() - t0) / NB_NS);
	return 0;
}

/**
 * nb_swb_alloc() - the per-job swbuild state (handles, churn slots,
 * per-operation histograms), whichever protocol builds the tree.
 * @run: the run, connected
 *
 * Returns 0, or -1 with a message printed.
 */
int nb_swb_alloc(struct nb_run *run)
{
	unsigned int nfiles = run->o.swb_dirs * run->o.swb_files, i;

	for (i = 0; i < run->o.jobs; i++) {
		struct nb_swb_job *s = &run->jobs[i].swb;

		s->dirs = calloc(run->o.swb_dirs, sizeof(*s->dirs));
		s->files = calloc(nfiles, sizeof(*s->files));
		s->mode_toggle = calloc(nfiles, 1);
		s->churn_state = calloc(run->o.swb_churn, 1);
		s->hist = calloc(NB_SWB_NOPS, sizeof(*s->hist));
		if (!s->dirs || !s->files || !s->mode_toggle ||
		    !s->churn_state || !s->hist) {
			fprintf(stderr, "nasd-bench: out of memory\n");
			return -1;
		}
	}
	return 0;
}

/**
 * nb_swb_free() - free the swbuild state of every job.
 * @run: the run
 */
void nb_swb_free(struct nb_run *run)
{
	unsigned int i;

	for (i = 0; i < run->o.jobs; i++) {
		struct nb_swb_job *s = &run->jobs[i].swb;

		free(s->dirs);
		free(s->files);
		free(s->mode_toggle);
		free(s->churn_state);
		free(s->hist);
		memset(s, 0, sizeof(*s));
	}
}

/**
 * nb_swb_configure() - set the request rate of every job for the next
 * phase.
 * @run:          the run, prepared
 * @rate_per_job: operations per second per job; 0 = as fast as possible
 */
void nb_swb_configure(struct nb_run *run, double rate_per_job)
{
	unsigned int i;

	for (i = 0; i < run->o.jobs; i++) {
		struct nb_job *job = &run->jobs[i];

		job->interval_ns = rate_per_job > 0 ?
				   (uint64_t)(1e9 / rate_per_job) : 0;
		if (rate_per_job > 0 && !job->interval_ns)
			job->interval_ns = 1;
		job->write = false;
		job->random = true;
		job->wrap = true;
	}
}

/* ---- the measured operations ---- */

static void swb_cb(struct rpc_context *rpc, int status, void *data,
		   void *private_data)
{
	struct nb_req *req = private_data;
	struct nb_job *job = req->job;
	struct nb_swb_job *s = &job->swb;
	uint64_t lat = nb_now_ns() - req->t0, bytes = 0;
	int op = req->op;
	const nfsstat3 *st = data;
	bool ok;

	if (status != RPC_STATUS_SUCCESS) {
		if (op == NB_SWB_CREATE || op == NB_SWB_UNLINK)
			s->churn_state[req->off] = NB_SLOT_ABSENT;
		nb_job_fail(job, "%s: %s", nb_swb_op_name[op],
			    status == RPC_STATUS_ERROR && data ?
			    (const char *)data : "no reply");
		nb_req_done(req, 0, false);
		return;
	}
	ok = *st == NFS3_OK;
	switch (op) {
	case NB_SWB_CREATE:
		s->churn_state[req->off] = ok || *st == NFS3ERR_EXIST ?
					   NB_SLOT_PRESENT : NB_SLOT_ABSENT;
		break;
	case NB_SWB_UNLINK:
		s->churn_state[req->off] = NB_SLOT_ABSENT;
		if (*st == NFS3ERR_NOENT) {
			s->noent++;
			ok = true;
		}
		break;
	case NB_SWB_READ_FILE:
		if (ok)
			bytes = ((READ3res *)data)->READ3res_u.resok.count;
		break;
	case NB_SWB_WRITE_FILE:
		if (ok)
			bytes = ((WRITE3res *)data)->WRITE3res_u.resok.count;
		break;
	default:
		break;
	}
	s->count[op]++;
	if (!ok)
		s->errors[op]++;
	nb_hist_add(&s->hist[op], lat);
	nb_req_done(req, bytes, ok);
}

/**
 * nb_swb_pick_slot() - a churn slot in state @want (not busy), else one in
 * @alt, from a random start.
 * @job:  the job
 * @want: the state looked for
 * @alt:  the state taken when none is in @want
 *
 * Returns the slot, -1 if none.
 */
int nb_swb_pick_slot(struct nb_job *job, enum nb_slot_state want,
		     enum nb_slot_state alt)
{
	unsigned int n = job->run->o.swb_churn, i, start;
	int fallback = -1;

	start = (unsigned int)(nb_rand(&job->rng) % n);
	for (i = 0; i < n; i++) {
		unsigned int k = (start + i) % n;

		if (job->swb.churn_state[k] == want)
			return (int)k;
		if (fallback < 0 && job->swb.churn_state[k] == alt)
			fallback = (int)k;
	}
	return fallback;
}

/**
 * nb_swb_pick_op() - the next operation, drawn by the SWBUILD weights.
 * @job: the job (its random state)
 */
int nb_swb_pick_op(struct nb_job *job)
{
	unsigned int total = 0, r, i;

	for (i = 0; i < NB_SWB_NOPS; i++)
		total += nb_swb_op_weight[i];
	r = (unsigned int)(nb_rand(&job->rng) % total);
	for (i = 0; i < NB_SWB_NOPS; i++) {
		if (r < nb_swb_op_weight[i])
			return (int)i;
		r -= nb_swb_op_weight[i];
	}
	return NB_SWB_STAT;
}

static int swb_issue(struct nb_job *job, struct nb_req *req)
{
	struct nb_run *run = job->run;
	struct nb_swb_job *s = &job->swb;
	unsigned int nf = run->o.swb_files;
	unsigned int fi = (unsigned int)(nb_rand(&job->rng) %
					 (run->o.swb_dirs * nf));
	struct rpc_context *rpc = job->rpc;
	char name[64];
	int op = nb_swb_pick_op(job), slot, r;

	req->op = op;
	req->off = fi;
	req->len = 0;
	switch (op) {
	case NB_SWB_STAT: {
		LOOKUP3args a = { 0 };

		snprintf(name, sizeof(name), "f%u", fi % nf);
		a.what.dir = fh3(&s->dirs[fi / nf]);
		a.what.name = name;
		r = rpc_nfs3_lookup_async(rpc, swb_cb, &a, req);
		break;
	}
	case NB_SWB_WRITE_FILE: {
		WRITE3args a = { 0 };

		a.file = fh3(&s->files[fi]);
		a.count = (count3)run->o.bs;
		a.stable = UNSTABLE;
		a.data.data_len = (u_int)run->o.bs;
		a.data.data_val = run->wbuf;
		req->len = (uint32_t)run->o.bs;
		r = rpc_nfs3_write_async(rpc, swb_cb, &a, req);
		break;
	}
	case NB_SWB_READ_FILE: {
		READ3args a = { 0 };

		a.file = fh3(&s->files[fi]);
		a.count = (count3)run->o.bs;
		req->len = (uint32_t)run->o.bs;
		r = rpc_nfs3_read_async(rpc, swb_cb, &a, req);
		break;
	}
	case NB_SWB_ACCESS: {
		ACCESS3args a = { 0 };

		a.object = fh3(&s->files[fi]);
		a.access = ACCESS3_READ | ACCESS3_LOOKUP | ACCESS3_MODIFY |
			   ACCESS3_EXTEND | ACCESS3_DELETE | ACCESS3_EXECUTE;
		r = rpc_nfs3_access_async(rpc, swb_cb, &a, req);
		break;
	}
	case NB_SWB_CHMOD: {
		SETATTR3args a = { 0 };

		a.object = fh3(&s->files[fi]);
		a.new_attributes.mode.set_it = 1;
		a.new_attributes.mode.set_mode3_u.mode =
			s->mode_toggle[fi] ? 0644 : 0664;
		s->mode_toggle[fi] ^= 1;
		r = rpc_nfs3_setattr_async(rpc, swb_cb, &a, req);
		break;
	}
	case NB_SWB_READDIR: {
		READDIRPLUS3args a = { 0 };

		a.dir = fh3(&s->dirs[fi / nf]);
		a.dircount = 4096;
		a.maxcount = 32768;
		r = rpc_nfs3_readdirplus_async(rpc, swb_cb, &a, req);
		break;
	}
	case NB_SWB_CREATE:
	case NB_SWB_UNLINK:
		if (op == NB_SWB_CREATE)
			slot = nb_swb_pick_slot(job, NB_SLOT_ABSENT,
						NB_SLOT_PRESENT);
		else
			slot = nb_swb_pick_slot(job, NB_SLOT_PRESENT,
						NB_SLOT_ABSENT);
		if (slot < 0)
			return -EAGAIN;	/* every slot busy: depth too big */
		req->off = (uint64_t)slot;
		s->churn_state[slot] = NB_SLOT_BUSY;
		snprintf(name, sizeof(name), "c%d", slot);
		if (op == NB_SWB_CREATE) {
			CREATE3args a = { 0 };

			a.where.dir = fh3(&s->churn);
			a.where.name = name;
			a.how.mode = UNCHECKED;
			a.how.createhow3_u.obj_attributes.mode.set_it = 1;
			a.how.createhow3_u.obj_attributes.mode
				.set_mode3_u.mode = 0644;
			r = rpc_nfs3_create_async(rpc, swb_cb, &a, req);
		} else {
			REMOVE3args a = { 0 };

			a.object.dir = fh3(&s->churn);
			a.object.name = name;
			r = rpc_nfs3_remove_async(rpc, swb_cb, &a, req);
		}
		if (r < 0)
			s->churn_state[slot] = NB_SLOT_ABSENT;
		break;
	case NB_SWB_MKDIR: {
		MKDIR3args a = { 0 };

		snprintf(name, sizeof(name), "m%d.%d.%llu", (int)getpid(),
			 job->id, (unsigned long long)s->mk_seq++);
		a.where.dir = fh3(&s->mk);
		a.where.name = name;
		a.attributes.mode.set_it = 1;
		a.attributes.mode.set_mode3_u.mode = 0755;
		r = rpc_nfs3_mkdir_async(rpc, swb_cb, &a, req);
		break;
	}
	default:
		return -EINVAL;
	}
	return r < 0 ? -EIO : 0;
}

const struct nb_phase_ops nb_swb_ops = {
	.name = "swbuild",
	.issue = swb_issue,
	.finish = NULL,
};

/* ---- refilling the churn directory between phases (untimed) ---- */

static void refill_cb(struct rpc_context *rpc, int status, void *data,
		      void *private_data)
{
	struct nb_req *req = private_data;
	struct nb_job *job = req->job;
	const nfsstat3 *st = data;
	bool ok = status == RPC_STATUS_SUCCESS && *st == NFS3_OK;

	job->swb.churn_state[req->off] = ok ? NB_SLOT_PRESENT : NB_SLOT_ABSENT;
	if (!ok)
		nb_job_fail(job, "refill: CREATE c%llu: %s",
			    (unsigned long long)req->off,
			    status != RPC_STATUS_SUCCESS ? "no reply" :
			    "error status");
	nb_req_done(req, 0, ok);
}

static int refill_issue(struct nb_job *job, struct nb_req *req)
{
	struct nb_swb_job *s = &job->swb;
	CREATE3args a = { 0 };
	char name[64];

	if (!job->ops_left)
		return 1;
	while (job->next_off < job->run->o.swb_churn &&
	       s->churn_state[job->next_off] != NB_SLOT_ABSENT)
		job->next_off++;
	if (job->next_off >= job->run->o.swb_churn)
		return 1;
	job->ops_left--;
	req->op = NB_SWB_CREATE;
	req->off = job->next_off;
	s->churn_state[req->off] = NB_SLOT_BUSY;
	snprintf(name, sizeof(name), "c%llu", (unsigned long long)req->off);
	a.where.dir = fh3(&s->churn);
	a.where.name = name;
	a.how.mode = UNCHECKED;
	a.how.createhow3_u.obj_attributes.mode.set_it = 1;
	a.how.createhow3_u.obj_attributes.mode.set_mode3_u.mode = 0644;
	if (rpc_nfs3_create_async(job->rpc, refill_cb, &a, req) < 0) {
		s->churn_state[req->off] = NB_SLOT_ABSENT;
		return -EIO;
	}
	return 0;
}

const struct nb_phase_ops nb_swb_refill_ops = {
	.name = "refill",
	.issue = refill_issue,
	.finish = NULL,
};

/**
 * nb_swb_refill() - bring every job's churn directory back to half full
 * (unlinks outnumber creates in the SWBUILD mix), untimed, before a
 * measured phase.
 * @run: the run, prepared
 *
 * Returns 0, or -1 with a message printed.
 */
int nb_swb_refill(struct nb_run *run)
{
	struct nb_result *res;
	unsigned int i, k;
	int ret;

	for (i = 0; i < run->o.jobs; i++) {
		struct nb_job *job = &run->jobs[i];
		unsigned int present = 0;

		for (k = 0; k < run->o.swb_churn; k++)
			present += job->swb.churn_state[k] == NB_SLOT_PRESENT;
		job->ops_left = present < run->o.swb_churn / 2 ?
				run->o.swb_churn / 2 - present : 0;
		job->next_off = 0;
		job->interval_ns = 0;
	}
	res = calloc(1, sizeof(*res));
	if (!res) {
		fprintf(stderr, "nasd-bench: out of memory\n");
		return -1;
	}
	ret = nb_phase_run(run, run->proto->swb_refill_ops, "refill", false,
			   res);
	if (ret < 0)
		fprintf(stderr, "nasd-bench: swbuild refill: %s\n",
			res->first_error);
	free(res);
	return ret;
}
