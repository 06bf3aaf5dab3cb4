// SPDX-License-Identifier: MIT
/*
 * nasd-bench workloads over NFSv4.1 (nb_nfs41.h): one connection, client
 * and session per job.
 *
 * Data (seq-read, seq-write, rand-read, rand-write): each job opens
 * "PREFIX.JOB" in the export (OPEN, created if needed) once and keeps it
 * open; SEQUENCE + PUTFH + READ or WRITE (UNSTABLE, or FILE_SYNC with
 * --sync) with the open's stateid, `depth` in flight; a write phase ends
 * with a COMMIT.
 *
 * swbuild: the SPEC SFS 2014 SWBUILD mix of nb_swbuild.c on the same tree
 * (PREFIX.swb/jJ/dK/fM, churn/cN, mk/), on handles kept from the build,
 * each operation one COMPOUND, i.e. one round trip (4.1's current
 * stateid carries an OPEN's stateid to the I/O and the CLOSE after it):
 *
 *   stat       PUTFH(dir) LOOKUP GETATTR
 *   write_file PUTFH OPEN(CLAIM_FH, write) WRITE(UNSTABLE) CLOSE
 *   read_file  PUTFH OPEN(CLAIM_FH, read) READ CLOSE
 *   access     PUTFH ACCESS
 *   chmod      PUTFH SETATTR(mode 0644 <-> 0664)
 *   unlink     PUTFH(churn) REMOVE
 *   readdir    PUTFH(dir) READDIR (type, fileid, mode, size, mtime)
 *   create     PUTFH(churn) OPEN(create UNCHECKED) CLOSE
 *   mkdir      PUTFH(mk) CREATE(directory)
 *
 * Open owners: one per request slot of a job, so that two COMPOUNDs in
 * flight never share an open (and its stateid).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nb.h"

#define SYNC_MS 30000
#define DIR_MAX 32768
#define FATTR4_TYPE 1
#define FATTR4_SIZE 4
#define FATTR4_FILEID 20
#define FATTR4_MODE 33          /* word 1 */
#define FATTR4_TIME_MODIFY 53   /* word 1 */
#define ACCESS4_SWB 0x3fu       /* READ LOOKUP MODIFY EXTEND DELETE EXECUTE */

/* The attributes stat and readdir ask for, as a kernel client would. */
#define ATTR_W0 (1u << FATTR4_TYPE | 1u << FATTR4_SIZE | 1u << FATTR4_FILEID)
#define ATTR_W1 (1u << (FATTR4_MODE - 32) | 1u << (FATTR4_TIME_MODIFY - 32))

/* ---- connections ---- */

/**
 * nb_v41_jobs_connect() - one NFSv4.1 connection (client, session) per
 * job, with a slot per request in flight. Returns 0, or -1 with a
 * message printed.
 */
int nb_v41_jobs_connect(struct nb_run *run)
{
	char err[300];
	unsigned int i;

	run->v41.slots = run->o.depth + 1;
	run->v41.max_io = (uint32_t)(run->o.bs > 1048576 ? run->o.bs : 1048576);
	for (i = 0; i < run->o.jobs; i++) {
		struct nb_job *job = &run->jobs[i];

		if (nb_job_init(run, i) < 0)
			return -1;
		if (nb_nfs41_connect(&run->v41, &job->v41, err,
				     sizeof(err)) < 0) {
			fprintf(stderr, "nasd-bench: nfs://%s:%d/%s (job %u, "
				"NFSv4.1): %s\n", run->v41.host, run->v41.port,
				run->v41.path, i, err);
			return -1;
		}
		if (i == 0) {
			run->readmax = nb_nfs41_max_read(job->v41);
			run->writemax = nb_nfs41_max_write(job->v41);
			nb_log(run, "NFSv4.1, max read %llu, write %llu",
			       (unsigned long long)run->readmax,
			       (unsigned long long)run->writemax);
		}
	}
	if (run->o.bs > run->readmax || run->o.bs > run->writemax) {
		fprintf(stderr, "nasd-bench: --bs %llu is more than the "
			"server's NFSv4.1 read %llu / write %llu\n",
			(unsigned long long)run->o.bs,
			(unsigned long long)run->readmax,
			(unsigned long long)run->writemax);
		return -1;
	}
	return 0;
}

/* ---- synchronous calls (setup, cleanup) ---- */

struct sync_wait {
	bool done;
	uint32_t status;           /* the COMPOUND's */
	uint8_t sid[NB_NFS41_STATEID];
	struct nb_fh fh;
	uint64_t size;
	uint32_t count;
	bool have_size;
};

/* Walk the results: the status of the first that failed (the COMPOUND's
 * status then), the stateid, handle, size and count met on the way. */
static void sync_cb(void *priv, struct nb_nfs41_reply *r)
{
	struct sync_wait *w = priv;
	uint32_t op, st, i, len;

	w->done = true;
	w->status = r->status;
	for (i = 0; i < r->nres; i++) {
		if (!nb_dec_res(&r->res, &op, &st) || st != NFS4_OK)
			return;
		switch (op) {
		case OP_OPEN:
			if (!nb_dec_open(&r->res, w->sid))
				return;
			break;
		case OP_GETFH:
			if (!nb_dec_getfh(&r->res, (uint8_t *)w->fh.data, &len))
				return;
			w->fh.len = len;
			break;
		case OP_GETATTR:
			if (!nb_dec_size(&r->res, &w->size))
				return;
			w->have_size = true;
			break;
		case OP_WRITE:
		case OP_READ:
			if (!nb_dec_rw(&r->res, op, &w->count))
				return;
			break;
		default:
			if (!nb_dec_skip(&r->res, op))
				return;
		}
	}
}

/* One COMPOUND of @nops operations: @x, then @ext (a WRITE's data),
 * then @tail (operations after it). */
static int sync_call(struct nb_job *job, struct xdr_buf *x, uint32_t nops,
		     const void *ext, size_t ext_len,
		     const struct xdr_buf *tail, struct sync_wait *w,
		     const char *what)
{
	int r;

	memset(w, 0, sizeof(*w));
	if (!xdr_ok(x) || (tail && !xdr_ok(tail))) {
		fprintf(stderr, "nasd-bench: %s: COMPOUND too large\n", what);
		return -1;
	}
	r = nb_nfs41_submit(job->v41, x->base, x->pos, nops, ext, ext_len,
			    tail ? tail->base : NULL, tail ? tail->pos : 0,
			    sync_cb, w);
	if (r == 0)
		r = nb_nfs41_wait(job->v41, &w->done, SYNC_MS);
	if (r < 0) {
		fprintf(stderr, "nasd-bench: %s: %s\n", what,
			nb_nfs41_error(job->v41)[0] ?
			nb_nfs41_error(job->v41) : strerror(-r));
		return -1;
	}
	return 0;
}

static uint64_t owner_of(const struct nb_job *job, uint32_t slot)
{
	return (uint64_t)(uint32_t)job->id << 32 | slot;
}

static void root_of(const struct nb_job *job, struct nb_fh *fh)
{
	const uint8_t *p = nb_nfs41_root(job->v41, &fh->len);

	memcpy(fh->data, p, fh->len);
}

/* @name in @dir: LOOKUP, else CREATE (a directory) or OPEN-create and
 * CLOSE (a file); its handle in @out. */
static int make(struct nb_job *job, const struct nb_fh *dir,
		const char *name, bool is_dir, struct nb_fh *out)
{
	uint8_t ops[NB_NFS41_OPS_MAX];
	struct sync_wait w;
	struct xdr_buf x;

	xdr_init(&x, ops, sizeof(ops));
	nb_enc_putfh(&x, (const uint8_t *)dir->data, dir->len);
	nb_enc_lookup(&x, name);
	nb_enc_op(&x, OP_GETFH);
	if (sync_call(job, &x, 3, NULL, 0, NULL, &w, name) < 0)
		return -1;
	if (w.status == NFS4ERR_NOENT) {
		xdr_init(&x, ops, sizeof(ops));
		nb_enc_putfh(&x, (const uint8_t *)dir->data, dir->len);
		if (is_dir) {
			nb_enc_mkdir(&x, name);
			nb_enc_op(&x, OP_GETFH);
		} else {
			nb_enc_open(&x, NB_OPEN_BOTH,
				    nb_nfs41_clientid(job->v41),
				    owner_of(job, 0xffffffffu), name, true);
			nb_enc_op(&x, OP_GETFH);
			nb_enc_close(&x, nb_nfs41_current_stateid);
		}
		if (sync_call(job, &x, is_dir ? 3 : 4, NULL, 0, NULL, &w,
			      name) < 0)
			return -1;
	}
	if (w.status != NFS4_OK || !w.fh.len) {
		fprintf(stderr, "nasd-bench: make %s: status %u\n", name,
			w.status);
		return -1;
	}
	*out = w.fh;
	return 0;
}

/* ---- data workloads ---- */

static void data_cb(void *priv, struct nb_nfs41_reply *r)
{
	struct nb_req *req = priv;
	struct nb_job *job = req->job;
	uint32_t op, st, n = 0;

	if (r->status != NFS4_OK || r->nres != 2 ||
	    !nb_dec_res(&r->res, &op, &st) || !nb_dec_res(&r->res, &op, &st) ||
	    !nb_dec_rw(&r->res, op, &n)) {
		nb_job_fail(job, "%s of %u bytes at %llu: status %u",
			    job->write ? "WRITE" : "READ", req->len,
			    (unsigned long long)req->off, r->status);
		nb_req_done(req, 0, false);
		return;
	}
	if (n < req->len)
		job->short_io++;
	nb_req_done(req, n, true);
}

static int data_issue(struct nb_job *job, struct nb_req *req)
{
	struct nb_run *run = job->run;
	uint8_t ops[64 + NB_NFS41_FH_MAX];
	uint64_t off, len;
	struct xdr_buf x;

	if (nb_data_next(job, &off, &len))
		return 1;
	req->off = off;
	req->len = (uint32_t)len;
	xdr_init(&x, ops, sizeof(ops));
	nb_enc_putfh(&x, job->v41_fh, job->v41_fh_len);
	if (job->write)
		nb_enc_write_head(&x, job->v41_sid, off, run->o.sync,
				  (uint32_t)len);
	else
		nb_enc_read(&x, job->v41_sid, off, (uint32_t)len);
	if (!xdr_ok(&x))
		return -EINVAL;
	return nb_nfs41_submit(job->v41, ops, x.pos, 2,
			       job->write ? run->wbuf : NULL,
			       job->write ? len : 0, NULL, 0, data_cb,
			       req) < 0 ? -EIO : 0;
}

static void commit_cb(void *priv, struct nb_nfs41_reply *r)
{
	struct nb_job *job = priv;

	job->inflight--;
	if (r->status != NFS4_OK)
		nb_job_fail(job, "COMMIT: status %u", r->status);
}

static int data_finish(struct nb_job *job)
{
	uint8_t ops[64 + NB_NFS41_FH_MAX];
	struct xdr_buf x;

	if (!job->write || job->run->o.sync || !atomic_load(&job->ops_done))
		return 0;
	xdr_init(&x, ops, sizeof(ops));
	nb_enc_putfh(&x, job->v41_fh, job->v41_fh_len);
	nb_enc_commit(&x);
	return nb_nfs41_submit(job->v41, ops, x.pos, 2, NULL, 0, NULL, 0,
			       commit_cb, job) < 0 ? -EIO : 1;
}

const struct nb_phase_ops nb_v41_data_ops = {
	.name = "data",
	.issue = data_issue,
	.finish = data_finish,
};

/**
 * nb_v41_data_prepare() - open (creating) each job's file and keep it
 * open; for workloads that read or overwrite it, fill it to --size first,
 * untimed. Returns 0, or -1 with a message printed.
 */
int nb_v41_data_prepare(struct nb_run *run)
{
	uint64_t fill = 0;
	unsigned int i;

	for (i = 0; i < run->o.jobs; i++) {
		struct nb_job *job = &run->jobs[i];
		uint8_t ops[NB_NFS41_OPS_MAX];
		struct sync_wait w;
		struct xdr_buf x;
		struct nb_fh root;
		char path[512];

		snprintf(path, sizeof(path), "%s.%u", run->o.prefix, i);
		job->path = strdup(path);
		if (!job->path) {
			fprintf(stderr, "nasd-bench: out of memory\n");
			return -1;
		}
		root_of(job, &root);
		xdr_init(&x, ops, sizeof(ops));
		nb_enc_putfh(&x, (const uint8_t *)root.data, root.len);
		nb_enc_open(&x, NB_OPEN_BOTH, nb_nfs41_clientid(job->v41),
			    owner_of(job, 0xfffffffeu), path, true);
		nb_enc_op(&x, OP_GETFH);
		nb_enc_getattr(&x, 1u << FATTR4_SIZE, 0);
		if (sync_call(job, &x, 4, NULL, 0, NULL, &w, path) < 0)
			return -1;
		if (w.status != NFS4_OK || !w.fh.len || !w.have_size) {
			fprintf(stderr, "nasd-bench: open %s: status %u\n",
				path, w.status);
			return -1;
		}
		memcpy(job->v41_sid, w.sid, NB_NFS41_STATEID);
		memcpy(job->v41_fh, w.fh.data, w.fh.len);
		job->v41_fh_len = w.fh.len;
		job->v41_open = true;
		job->file_size = w.size;
		if (run->o.workload != NB_SEQ_WRITE && w.size < run->o.size)
			fill += run->o.size - w.size / run->o.bs * run->o.bs;
	}
	return nb_data_fill(run, fill, &nb_v41_data_ops);
}

/**
 * nb_v41_data_cleanup() - close and remove every job's file (--cleanup).
 * Returns 0, or -1 when a file could not be removed (message printed).
 */
int nb_v41_data_cleanup(struct nb_run *run)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < run->o.jobs; i++) {
		struct nb_job *job = &run->jobs[i];
		uint8_t ops[NB_NFS41_OPS_MAX];
		struct sync_wait w;
		struct xdr_buf x;
		struct nb_fh root;

		if (!job->path || job->failed)
			continue;
		root_of(job, &root);
		xdr_init(&x, ops, sizeof(ops));
		if (job->v41_open) {
			nb_enc_putfh(&x, job->v41_fh, job->v41_fh_len);
			nb_enc_close(&x, job->v41_sid);
			if (sync_call(job, &x, 2, NULL, 0, NULL, &w, "CLOSE") < 0)
				return -1;
			job->v41_open = false;
			xdr_init(&x, ops, sizeof(ops));
		}
		nb_enc_putfh(&x, (const uint8_t *)root.data, root.len);
		nb_enc_remove(&x, job->path);
		if (sync_call(job, &x, 2, NULL, 0, NULL, &w, job->path) < 0)
			return -1;
		if (w.status != NFS4_OK) {
			fprintf(stderr, "nasd-bench: remove %s: status %u\n",
				job->path, w.status);
			ret = -1;
		}
	}
	return ret;
}

/* ---- swbuild ---- */

static int swb_build(struct nb_run *run, struct nb_job *job,
		     const struct nb_fh *top)
{
	unsigned int nd = run->o.swb_dirs, nf = run->o.swb_files, k, m;
	struct nb_swb_job *s = &job->swb;
	uint8_t ops[NB_NFS41_OPS_MAX], tops[64];
	char name[64];

	snprintf(name, sizeof(name), "j%d", job->id);
	if (make(job, top, name, true, &s->top) < 0)
		return -1;
	for (k = 0; k < nd; k++) {
		snprintf(name, sizeof(name), "d%u", k);
		if (make(job, &s->top, name, true, &s->dirs[k]) < 0)
			return -1;
		for (m = 0; m < nf; m++) {
			struct nb_fh *f = &s->files[k * nf + m];
			struct sync_wait w;
			struct xdr_buf x, t;

			snprintf(name, sizeof(name), "f%u", m);
			if (make(job, &s->dirs[k], name, false, f) < 0)
				return -1;
			/* its --bs bytes: OPEN, WRITE, CLOSE */
			xdr_init(&x, ops, sizeof(ops));
			nb_enc_putfh(&x, (const uint8_t *)f->data, f->len);
			nb_enc_open(&x, NB_OPEN_WRITE,
				    nb_nfs41_clientid(job->v41),
				    owner_of(job, 0xffffffffu), NULL, false);
			nb_enc_write_head(&x, nb_nfs41_current_stateid, 0, true,
					  (uint32_t)run->o.bs);
			xdr_init(&t, tops, sizeof(tops));
			nb_enc_close(&t, nb_nfs41_current_stateid);
			if (sync_call(job, &x, 4, run->wbuf, run->o.bs, &t, &w,
				      name) < 0)
				return -1;
			if (w.status != NFS4_OK || w.count != run->o.bs) {
				fprintf(stderr, "nasd-bench: swbuild setup: "
					"write %s: status %u\n", name,
					w.status);
				return -1;
			}
		}
	}
	if (make(job, &s->top, "churn", true, &s->churn) < 0)
		return -1;
	return make(job, &s->top, "mk", true, &s->mk);
}

/**
 * nb_v41_swb_prepare() - build every job's swbuild tree over NFSv4.1.
 * Untimed. Returns 0, or -1 (message printed).
 */
int nb_v41_swb_prepare(struct nb_run *run)
{
	uint64_t t0 = nb_now_ns();
	struct nb_fh root, top;
	char name[300];
	unsigned int i;

	snprintf(name, sizeof(name), "%s.swb", run->o.prefix);
	root_of(&run->jobs[0], &root);
	if (make(&run->jobs[0], &root, name, true, &top) < 0)
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

/* The churn slot's name. */
static void churn_name(char *buf, size_t size, uint64_t slot)
{
	snprintf(buf, size, "c%llu", (unsigned long long)slot);
}

/* PUTFH(churn) OPEN(create @name) CLOSE: swbuild's create and the
 * refill between phases, by request slot @req's open owner. */
static void enc_churn_create(struct nb_job *job, const struct nb_req *req,
			     const char *name, struct xdr_buf *x)
{
	const struct nb_fh *churn = &job->swb.churn;

	nb_enc_putfh(x, (const uint8_t *)churn->data, churn->len);
	nb_enc_open(x, NB_OPEN_BOTH, nb_nfs41_clientid(job->v41),
		    owner_of(job, (uint32_t)req->slot), name, true);
	nb_enc_close(x, nb_nfs41_current_stateid);
}

static void swb_cb(void *priv, struct nb_nfs41_reply *r)
{
	struct nb_req *req = priv;
	struct nb_job *job = req->job;
	struct nb_swb_job *s = &job->swb;
	int op = req->op;
	uint32_t st = r->status, rop, rst, i, n = 0;
	bool ok = st == NFS4_OK;

	for (i = 0; ok && i < r->nres; i++) {
		if (!nb_dec_res(&r->res, &rop, &rst) || rst != NFS4_OK)
			break;
		if (rop == OP_READ || rop == OP_WRITE) {
			if (!nb_dec_rw(&r->res, rop, &n))
				break;
		} else if (!nb_dec_skip(&r->res, rop)) {
			break;
		}
	}
	switch (op) {
	case NB_SWB_CREATE:
		s->churn_state[req->off] = ok ? NB_SLOT_PRESENT :
					   NB_SLOT_ABSENT;
		break;
	case NB_SWB_UNLINK:
		s->churn_state[req->off] = NB_SLOT_ABSENT;
		if (st == NFS4ERR_NOENT) {
			s->noent++;
			ok = true;
		}
		break;
	default:
		break;
	}
	s->count[op]++;
	if (!ok)
		s->errors[op]++;
	nb_hist_add(&s->hist[op], nb_now_ns() - req->t0);
	nb_req_done(req, ok ? n : 0, ok);
}

static int swb_issue(struct nb_job *job, struct nb_req *req)
{
	struct nb_run *run = job->run;
	struct nb_swb_job *s = &job->swb;
	unsigned int nf = run->o.swb_files;
	unsigned int fi = (unsigned int)(nb_rand(&job->rng) %
					 (run->o.swb_dirs * nf));
	const struct nb_fh *file = &s->files[fi], *dir = &s->dirs[fi / nf];
	uint64_t clid = nb_nfs41_clientid(job->v41);
	uint64_t owner = owner_of(job, (uint32_t)req->slot);
	uint8_t ops[NB_NFS41_OPS_MAX], tops[64];
	int op = nb_swb_pick_op(job), slot = -1;
	const void *ext = NULL;
	size_t ext_len = 0;
	struct xdr_buf x, t;
	uint32_t nops = 2;
	char name[64];

	req->op = op;
	req->off = fi;
	req->len = 0;
	xdr_init(&x, ops, sizeof(ops));
	xdr_init(&t, tops, sizeof(tops));
	switch (op) {
	case NB_SWB_STAT:
		snprintf(name, sizeof(name), "f%u", fi % nf);
		nb_enc_putfh(&x, (const uint8_t *)dir->data, dir->len);
		nb_enc_lookup(&x, name);
		nb_enc_getattr(&x, ATTR_W0, ATTR_W1);
		nops = 3;
		break;
	case NB_SWB_WRITE_FILE:
		/* the CLOSE after the data, in the tail */
		nb_enc_putfh(&x, (const uint8_t *)file->data, file->len);
		nb_enc_open(&x, NB_OPEN_WRITE, clid, owner, NULL, false);
		nb_enc_write_head(&x, nb_nfs41_current_stateid, 0, false,
				  (uint32_t)run->o.bs);
		nb_enc_close(&t, nb_nfs41_current_stateid);
		ext = run->wbuf;
		ext_len = run->o.bs;
		req->len = (uint32_t)run->o.bs;
		nops = 4;
		break;
	case NB_SWB_READ_FILE:
		nb_enc_putfh(&x, (const uint8_t *)file->data, file->len);
		nb_enc_open(&x, NB_OPEN_READ, clid, owner, NULL, false);
		nb_enc_read(&x, nb_nfs41_current_stateid, 0,
			    (uint32_t)run->o.bs);
		nb_enc_close(&x, nb_nfs41_current_stateid);
		req->len = (uint32_t)run->o.bs;
		nops = 4;
		break;
	case NB_SWB_ACCESS:
		nb_enc_putfh(&x, (const uint8_t *)file->data, file->len);
		nb_enc_access(&x, ACCESS4_SWB);
		break;
	case NB_SWB_CHMOD:
		nb_enc_putfh(&x, (const uint8_t *)file->data, file->len);
		nb_enc_setattr_mode(&x, s->mode_toggle[fi] ? 0644 : 0664);
		s->mode_toggle[fi] ^= 1;
		break;
	case NB_SWB_READDIR:
		nb_enc_putfh(&x, (const uint8_t *)dir->data, dir->len);
		nb_enc_readdir(&x, DIR_MAX);
		break;
	case NB_SWB_CREATE:
	case NB_SWB_UNLINK:
		slot = op == NB_SWB_CREATE ?
		       nb_swb_pick_slot(job, NB_SLOT_ABSENT, NB_SLOT_PRESENT) :
		       nb_swb_pick_slot(job, NB_SLOT_PRESENT, NB_SLOT_ABSENT);
		if (slot < 0)
			return -EAGAIN;	/* every slot busy: depth too big */
		req->off = (uint64_t)slot;
		churn_name(name, sizeof(name), (uint64_t)slot);
		if (op == NB_SWB_CREATE) {
			enc_churn_create(job, req, name, &x);
			nops = 3;
		} else {
			nb_enc_putfh(&x, (const uint8_t *)s->churn.data,
				     s->churn.len);
			nb_enc_remove(&x, name);
		}
		break;
	case NB_SWB_MKDIR:
		snprintf(name, sizeof(name), "m%llu.%llu",
			 (unsigned long long)getpid(),
			 (unsigned long long)s->mk_seq++);
		nb_enc_putfh(&x, (const uint8_t *)s->mk.data, s->mk.len);
		nb_enc_mkdir(&x, name);
		break;
	default:
		return -EINVAL;
	}
	if (!xdr_ok(&x))
		return -E2BIG;
	if (slot >= 0)
		s->churn_state[slot] = NB_SLOT_BUSY;
	if (nb_nfs41_submit(job->v41, ops, x.pos, nops, ext, ext_len, t.base,
			    t.pos, swb_cb, req) < 0) {
		if (slot >= 0)
			s->churn_state[slot] = NB_SLOT_ABSENT;
		return -EIO;
	}
	return 0;
}

const struct nb_phase_ops nb_v41_swb_ops = {
	.name = "swbuild",
	.issue = swb_issue,
	.finish = NULL,
};

/* ---- refilling the churn directory between phases (untimed) ---- */

static void refill_cb(void *priv, struct nb_nfs41_reply *r)
{
	struct nb_req *req = priv;
	struct nb_job *job = req->job;
	bool ok = r->status == NFS4_OK;

	job->swb.churn_state[req->off] = ok ? NB_SLOT_PRESENT : NB_SLOT_ABSENT;
	if (!ok)
		nb_job_fail(job, "refill: OPEN c%llu: status %u",
			    (unsigned long long)req->off, r->status);
	nb_req_done(req, 0, ok);
}

static int refill_issue(struct nb_job *job, struct nb_req *req)
{
	struct nb_swb_job *s = &job->swb;
	uint8_t ops[NB_NFS41_OPS_MAX];
	struct xdr_buf x;
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
	churn_name(name, sizeof(name), req->off);
	xdr_init(&x, ops, sizeof(ops));
	enc_churn_create(job, req, name, &x);
	if (!xdr_ok(&x))
		return -E2BIG;
	s->churn_state[req->off] = NB_SLOT_BUSY;
	if (nb_nfs41_submit(job->v41, ops, x.pos, 3, NULL, 0, NULL, 0,
			    refill_cb, req) < 0) {
		s->churn_state[req->off] = NB_SLOT_ABSENT;
		return -EIO;
	}
	return 0;
}

const struct nb_phase_ops nb_v41_swb_refill_ops = {
	.name = "refill",
	.issue = refill_issue,
	.finish = NULL,
};
