// SPDX-License-Identifier: MIT
/*
 * nasd-bench workloads over SMB 3.1.1 (nb_smb2.h): one connection per job.
 *
 * Data (seq-read, seq-write, rand-read, rand-write): each job opens
 * "PREFIX.JOB" in the share once and keeps it open; READ and WRITE of --bs
 * with a CreditCharge of one credit per 64 KiB, `depth` in flight; a
 * write phase ends with a FLUSH (what NFS's COMMIT is to UNSTABLE writes),
 * or --sync writes with SMB2_WRITEFLAG_WRITE_THROUGH instead.
 *
 * swbuild: the SPEC SFS 2014 SWBUILD mix of nb_swbuild.c on the same tree
 * (PREFIX.swb/jJ/dK/fM, churn/cN, mk/), each operation one related
 * compound, i.e. one round trip, as Windows and Linux clients send them:
 *
 *   stat       CREATE + QUERY_INFO FileAllInformation + CLOSE
 *   write_file CREATE + WRITE of the whole file + CLOSE
 *   read_file  CREATE + READ of the whole file + CLOSE
 *   access     CREATE with an MxAc context (maximal access) + CLOSE
 *   chmod      CREATE + SET_INFO FileBasicInformation (attributes
 *              ARCHIVE <-> NORMAL) + CLOSE
 *   unlink     CREATE DELETE_ON_CLOSE + CLOSE of a churn file
 *   readdir    CREATE + QUERY_DIRECTORY FileIdBothDirectoryInformation
 *              + CLOSE of a source directory
 *   create     CREATE FILE_OPEN_IF + CLOSE of a churn file
 *   mkdir      CREATE FILE_CREATE directory + CLOSE
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/le.h"
#include "nb.h"

#define SYNC_MS			30000
#define FILE_ALL_INFORMATION	18
#define FILE_ID_BOTH_DIR_INFO	0x25
#define QUERY_OUT		4096
#define DIR_OUT			65536
#define CREATE_RSP_FID		64	/* FileId in the CREATE response */
#define CREATE_RSP_EOF		48	/* EndofFile */
#define RW_RSP_COUNT		4	/* DataLength / Count */
#define FILE_ATTRIBUTE_ARCHIVE	0x00000020u	/* MS-FSCC §2.6 */
#define FILE_ATTRIBUTE_NORMAL	0x00000080u

/* ---- connections ---- */

/**
 * nb_smb_jobs_connect() - one logged-on SMB connection per job.
 * @run: the run; run->smb from the URL, run->jobs zeroed
 *
 * Each holds credits for `depth` requests of --bs (or of a 3-part
 * compound). Returns 0, or -1 with a message printed.
 */
int nb_smb_jobs_connect(struct nb_run *run)
{
	uint64_t per = run->o.bs > 65536 ? (run->o.bs - 1) / 65536 + 1 : 1;
	char err[300];
	unsigned int i;

	if (per < NB_SMB2_MAX_PARTS)
		per = NB_SMB2_MAX_PARTS;
	run->smb.sign = run->o.smb_sign;
	run->smb.credits = (unsigned int)(per * run->o.depth + 32);
	for (i = 0; i < run->o.jobs; i++) {
		struct nb_job *job = &run->jobs[i];

		if (nb_job_init(run, i) < 0)
			return -1;
		if (nb_smb2_connect(&run->smb, &job->smb, err,
				    sizeof(err)) < 0) {
			fprintf(stderr, "nasd-bench: smb://%s:%d/%s (job %u): "
				"%s\n", run->smb.host, run->smb.port,
				run->smb.share, i, err);
			return -1;
		}
		if (i == 0) {
			run->readmax = nb_smb2_max_read(job->smb);
			run->writemax = nb_smb2_max_write(job->smb);
			nb_log(run, "SMB 3.1.1, signing %s%s, max read %llu, "
			       "write %llu", nb_smb2_signing(job->smb) ?
			       "on, " : "off",
			       !nb_smb2_signing(job->smb) ? "" :
			       nb_smb2_sign_alg(job->smb) ==
			       SMB2_SIGNING_AES_GMAC ? "AES-GMAC" :
			       nb_smb2_sign_alg(job->smb) ==
			       SMB2_SIGNING_AES_CMAC ? "AES-CMAC" :
			       "HMAC-SHA256",
			       (unsigned long long)run->readmax,
			       (unsigned long long)run->writemax);
		}
	}
	if (run->o.bs > run->readmax || run->o.bs > run->writemax) {
		fprintf(stderr, "nasd-bench: --bs %llu is more than the "
			"server's MaxReadSize %llu / MaxWriteSize %llu\n",
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
	uint32_t status[NB_SMB2_MAX_PARTS];
	uint8_t fid[NB_SMB2_FID_SIZE];
	uint64_t eof;
	uint32_t count;
};

static void sync_cb(void *priv, const struct nb_smb2_reply *r)
{
	struct sync_wait *w = priv;

	w->status[r->part] = r->status;
	if (r->command == SMB2_CREATE && r->status == STATUS_SUCCESS &&
	    r->body_len >= 88) {
		memcpy(w->fid, r->body + CREATE_RSP_FID, NB_SMB2_FID_SIZE);
		w->eof = get_le64(r->body + CREATE_RSP_EOF);
	}
	if ((r->command == SMB2_WRITE || r->command == SMB2_READ) &&
	    r->status == STATUS_SUCCESS && r->body_len >= 8)
		w->count = get_le32(r->body + RW_RSP_COUNT);
	if (r->done)
		w->done = true;
}

static int sync_call(struct nb_job *job, const struct nb_smb2_part *p,
		     unsigned int n, struct sync_wait *w, const char *what)
{
	int r;

	memset(w, 0, sizeof(*w));
	r = nb_smb2_submit(job->smb, p, n, sync_cb, w);
	if (r == 0)
		r = nb_smb2_wait(job->smb, &w->done, SYNC_MS);
	if (r < 0) {
		fprintf(stderr, "nasd-bench: %s: %s\n", what,
			nb_smb2_error(job->smb)[0] ? nb_smb2_error(job->smb) :
			strerror(-r));
		return -1;
	}
	return 0;
}

/* CREATE + CLOSE of @path; the CREATE's status (and EndofFile) in @w. */
static int open_close(struct nb_job *job, const char *path, uint32_t access,
		      uint32_t disp, uint32_t options, struct sync_wait *w)
{
	uint8_t cb[NB_SMB2_CREATE_MAX], cl[24];
	struct nb_smb2_part p[2] = {
		{ .command = SMB2_CREATE, .body = cb },
		{ .command = SMB2_CLOSE, .body = cl },
	};

	p[0].body_len = nb_smb2_create_body(cb, path, access, disp, options,
					    false);
	p[1].body_len = nb_smb2_fid_body(cl, SMB2_CLOSE, nb_smb2_related_fid);
	if (!p[0].body_len) {
		fprintf(stderr, "nasd-bench: name too long: %s\n", path);
		return -1;
	}
	return sync_call(job, p, 2, w, path);
}

static int smb_mkdir(struct nb_job *job, const char *path)
{
	struct sync_wait w;

	if (open_close(job, path, FILE_READ_ATTRIBUTES | SYNCHRONIZE,
		       FILE_OPEN_IF, FILE_DIRECTORY_FILE, &w) < 0)
		return -1;
	if (w.status[0] != STATUS_SUCCESS) {
		fprintf(stderr, "nasd-bench: mkdir %s: status 0x%08x\n", path,
			w.status[0]);
		return -1;
	}
	return 0;
}

/* ---- data workloads ---- */

static void data_cb(void *priv, const struct nb_smb2_reply *r)
{
	struct nb_req *req = priv;
	struct nb_job *job = req->job;
	uint32_t n;

	if (r->status != STATUS_SUCCESS || r->body_len < 8) {
		nb_job_fail(job, "%s of %u bytes at %llu: status 0x%08x",
			    job->write ? "WRITE" : "READ", req->len,
			    (unsigned long long)req->off, r->status);
		nb_req_done(req, 0, false);
		return;
	}
	n = get_le32(r->body + RW_RSP_COUNT);
	if (n < req->len)
		job->short_io++;
	nb_req_done(req, n, true);
}

static int data_issue(struct nb_job *job, struct nb_req *req)
{
	struct nb_run *run = job->run;
	uint64_t off, len;
	uint8_t b[49];
	struct nb_smb2_part p = { 0 };

	if (nb_data_next(job, &off, &len))
		return 1;
	req->off = off;
	req->len = (uint32_t)len;
	p.command = job->write ? SMB2_WRITE : SMB2_READ;
	p.body = b;
	p.body_len = nb_smb2_rw_body(b, job->write, job->smb_fid, off,
				     (uint32_t)len, run->o.sync);
	if (job->write) {
		p.ext = run->wbuf;
		p.ext_len = len;
	} else {
		p.rsp_len = len;
	}
	return nb_smb2_submit(job->smb, &p, 1, data_cb, req) < 0 ? -EIO : 0;
}

static void flush_cb(void *priv, const struct nb_smb2_reply *r)
{
	struct nb_job *job = priv;

	job->inflight--;
	if (r->status != STATUS_SUCCESS)
		nb_job_fail(job, "FLUSH: status 0x%08x", r->status);
}

static int data_finish(struct nb_job *job)
{
	uint8_t b[24];
	struct nb_smb2_part p = { .command = SMB2_FLUSH, .body = b };

	if (!job->write || job->run->o.sync || !atomic_load(&job->ops_done))
		return 0;
	p.body_len = nb_smb2_fid_body(b, SMB2_FLUSH, job->smb_fid);
	return nb_smb2_submit(job->smb, &p, 1, flush_cb, job) < 0 ? -EIO : 1;
}

const struct nb_phase_ops nb_smb_data_ops = {
	.name = "data",
	.issue = data_issue,
	.finish = data_finish,
};

/**
 * nb_smb_data_prepare() - open (creating) each job's file and keep it
 * open; for workloads that read or overwrite it, fill it to --size first,
 * untimed.
 * @run: the run, connected
 *
 * Returns 0, or -1 with a message printed.
 */
int nb_smb_data_prepare(struct nb_run *run)
{
	uint64_t fill = 0;
	unsigned int i;

	for (i = 0; i < run->o.jobs; i++) {
		struct nb_job *job = &run->jobs[i];
		uint8_t cb[NB_SMB2_CREATE_MAX];
		struct nb_smb2_part p = { .command = SMB2_CREATE, .body = cb };
		struct sync_wait w;
		char path[512];

		snprintf(path, sizeof(path), "%s.%u", run->o.prefix, i);
		job->path = strdup(path);
		if (!job->path) {
			fprintf(stderr, "nasd-bench: out of memory\n");
			return -1;
		}
		p.body_len = nb_smb2_create_body(cb, path, FILE_READ_DATA |
			FILE_WRITE_DATA | FILE_READ_ATTRIBUTES | SYNCHRONIZE,
			FILE_OPEN_IF, FILE_NON_DIRECTORY_FILE, false);
		if (sync_call(job, &p, 1, &w, path) < 0)
			return -1;
		if (w.status[0] != STATUS_SUCCESS) {
			fprintf(stderr, "nasd-bench: open %s: status 0x%08x\n",
				path, w.status[0]);
			return -1;
		}
		memcpy(job->smb_fid, w.fid, NB_SMB2_FID_SIZE);
		job->smb_open = true;
		job->file_size = w.eof;
		if (run->o.workload != NB_SEQ_WRITE && w.eof < run->o.size)
			fill += run->o.size - w.eof / run->o.bs * run->o.bs;
	}
	return nb_data_fill(run, fill, &nb_smb_data_ops);
}

/**
 * nb_smb_data_cleanup() - close and delete every job's file (--cleanup).
 * @run: the run
 *
 * Returns 0, or -1 when a file could not be removed (message printed).
 */
int nb_smb_data_cleanup(struct nb_run *run)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < run->o.jobs; i++) {
		struct nb_job *job = &run->jobs[i];
		struct sync_wait w;

		if (!job->path || job->failed)
			continue;
		if (job->smb_open) {
			uint8_t b[24];
			struct nb_smb2_part p = { .command = SMB2_CLOSE,
						  .body = b };

			p.body_len = nb_smb2_fid_body(b, SMB2_CLOSE,
						      job->smb_fid);
			if (sync_call(job, &p, 1, &w, "CLOSE") < 0)
				return -1;
			job->smb_open = false;
		}
		if (open_close(job, job->path, DELETE | SYNCHRONIZE, FILE_OPEN,
			       FILE_NON_DIRECTORY_FILE |
			       FILE_DELETE_ON_CLOSE_OPT, &w) < 0)
			return -1;
		if (w.status[0] != STATUS_SUCCESS) {
			fprintf(stderr, "nasd-bench: remove %s: status "
				"0x%08x\n", job->path, w.status[0]);
			ret = -1;
		}
	}
	return ret;
}

/* ---- swbuild ---- */

/* PREFIX.swb/jJ, and /FMT of @a and @b after it when @fmt is set. */
static void swb_path(const struct nb_job *job, char *buf, size_t size,
		     const char *fmt, unsigned long long a,
		     unsigned long long b)
{
	int n = snprintf(buf, size, "%s.swb/j%d", job->run->o.prefix,
			 job->id);

	if (fmt && n > 0 && (size_t)n + 1 < size) {
		buf[n] = '/';
		snprintf(buf + n + 1, size - (size_t)n - 1, fmt, a, b);
	}
}

static int swb_build(struct nb_run *run, struct nb_job *job)
{
	unsigned int nd = run->o.swb_dirs, nf = run->o.swb_files, k, m;
	char path[512];

	swb_path(job, path, sizeof(path), NULL, 0, 0);
	if (smb_mkdir(job, path) < 0)
		return -1;
	for (k = 0; k < nd; k++) {
		swb_path(job, path, sizeof(path), "d%llu", k, 0);
		if (smb_mkdir(job, path) < 0)
			return -1;
		for (m = 0; m < nf; m++) {
			uint8_t cb[NB_SMB2_CREATE_MAX], cl[24];
			struct nb_smb2_part p[3] = {
				{ .command = SMB2_CREATE, .body = cb },
				{ .command = SMB2_WRITE,
				  .body = run->smb_wbody,
				  .body_len = run->smb_wbody_len },
				{ .command = SMB2_CLOSE, .body = cl },
			};
			struct sync_wait w;

			swb_path(job, path, sizeof(path), "d%llu/f%llu", k, m);
			if (open_close(job, path, FILE_READ_ATTRIBUTES |
				       SYNCHRONIZE, FILE_OPEN_IF,
				       FILE_NON_DIRECTORY_FILE, &w) < 0)
				return -1;
			if (w.status[0] == STATUS_SUCCESS && w.eof == run->o.bs)
				continue;
			p[0].body_len = nb_smb2_create_body(cb, path,
				FILE_WRITE_DATA | FILE_READ_ATTRIBUTES |
				SYNCHRONIZE, FILE_OVERWRITE_IF,
				FILE_NON_DIRECTORY_FILE, false);
			p[2].body_len = nb_smb2_fid_body(cl, SMB2_CLOSE,
							 nb_smb2_related_fid);
			if (sync_call(job, p, 3, &w, path) < 0)
				return -1;
			if (w.status[0] || w.status[1] || w.count != run->o.bs) {
				fprintf(stderr, "nasd-bench: swbuild setup: "
					"write %s: status 0x%08x 0x%08x\n",
					path, w.status[0], w.status[1]);
				return -1;
			}
		}
	}
	swb_path(job, path, sizeof(path), "churn", 0, 0);
	if (smb_mkdir(job, path) < 0)
		return -1;
	swb_path(job, path, sizeof(path), "mk", 0, 0);
	return smb_mkdir(job, path);
}

/**
 * nb_smb_swb_prepare() - build every job's swbuild tree over SMB.
 * @run: the run, connected
 *
 * Untimed; files already there with the right size are kept. Returns 0,
 * or -1 (message printed).
 */
int nb_smb_swb_prepare(struct nb_run *run)
{
	uint64_t t0 = nb_now_ns();
	char name[300];
	unsigned int i;

	/* every write_file sends the same WRITE body: related FileId,
	 * offset 0, the whole file */
	run->smb_wbody_len = 48 + run->o.bs;
	run->smb_wbody = malloc(run->smb_wbody_len);
	if (!run->smb_wbody) {
		fprintf(stderr, "nasd-bench: out of memory\n");
		return -1;
	}
	nb_smb2_rw_body(run->smb_wbody, true, nb_smb2_related_fid, 0,
			(uint32_t)run->o.bs, false);
	memcpy(run->smb_wbody + 48, run->wbuf, run->o.bs);

	snprintf(name, sizeof(name), "%s.swb", run->o.prefix);
	if (smb_mkdir(&run->jobs[0], name) < 0)
		return -1;
	nb_log(run, "swbuild: building %u directories x %u files of %llu "
	       "bytes per job", run->o.swb_dirs, run->o.swb_files,
	       (unsigned long long)run->o.bs);
	if (nb_swb_alloc(run) < 0)
		return -1;
	for (i = 0; i < run->o.jobs; i++)
		if (swb_build(run, &run->jobs[i]) < 0)
			return -1;
	nb_log(run, "swbuild: tree ready in %.1f s",
	       (double)(nb_now_ns() - t0) / NB_NS);
	return 0;
}

static void swb_cb(void *priv, const struct nb_smb2_reply *r)
{
	struct nb_req *req = priv;
	struct nb_job *job = req->job;
	struct nb_swb_job *s = &job->swb;
	int op = req->op;
	bool ok;

	if (r->status != STATUS_SUCCESS && !req->smb_status)
		req->smb_status = r->status;
	if ((r->command == SMB2_READ || r->command == SMB2_WRITE) &&
	    r->status == STATUS_SUCCESS && r->body_len >= 8)
		req->smb_bytes = get_le32(r->body + RW_RSP_COUNT);
	if (!r->done)
		return;
	ok = !req->smb_status;
	switch (op) {
	case NB_SWB_CREATE:
		s->churn_state[req->off] = ok ? NB_SLOT_PRESENT :
					   NB_SLOT_ABSENT;
		break;
	case NB_SWB_UNLINK:
		s->churn_state[req->off] = NB_SLOT_ABSENT;
		if (req->smb_status == STATUS_OBJECT_NAME_NOT_FOUND) {
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
	nb_req_done(req, ok ? req->smb_bytes : 0, ok);
}

/* The compound of one swbuild operation: CREATE, a middle part, CLOSE. */
struct swb_msg {
	uint8_t create[NB_SMB2_CREATE_MAX];
	uint8_t mid[72];
	uint8_t close[24];
	struct nb_smb2_part p[3];
	unsigned int n;
};

static void swb_compound(struct swb_msg *m, size_t create_len)
{
	m->p[0] = (struct nb_smb2_part){ .command = SMB2_CREATE,
					 .body = m->create,
					 .body_len = create_len };
	m->p[m->n - 1] = (struct nb_smb2_part){
		.command = SMB2_CLOSE,
		.body = m->close,
		.body_len = nb_smb2_fid_body(m->close, SMB2_CLOSE,
					     nb_smb2_related_fid),
	};
}

static int swb_issue(struct nb_job *job, struct nb_req *req)
{
	struct nb_run *run = job->run;
	struct nb_swb_job *s = &job->swb;
	unsigned int nf = run->o.swb_files;
	unsigned int fi = (unsigned int)(nb_rand(&job->rng) %
					 (run->o.swb_dirs * nf));
	const uint8_t *rf = nb_smb2_related_fid;
	struct swb_msg m;
	char path[512];
	int op = nb_swb_pick_op(job), slot = -1;
	uint32_t acc = FILE_READ_ATTRIBUTES | SYNCHRONIZE, disp = FILE_OPEN;
	uint32_t opt = FILE_NON_DIRECTORY_FILE;
	bool mxac = false;
	size_t cl;

	req->op = op;
	req->off = fi;
	req->len = 0;
	req->smb_status = 0;
	req->smb_bytes = 0;
	m.n = 2;
	swb_path(job, path, sizeof(path), "d%llu/f%llu", fi / nf, fi % nf);
	switch (op) {
	case NB_SWB_STAT:
		m.n = 3;
		m.p[1] = (struct nb_smb2_part){
			.command = SMB2_QUERY_INFO, .body = m.mid,
			.body_len = nb_smb2_query_info_body(m.mid, rf,
				FILE_ALL_INFORMATION, QUERY_OUT),
			.rsp_len = QUERY_OUT };
		break;
	case NB_SWB_WRITE_FILE:
		m.n = 3;
		acc |= FILE_WRITE_DATA;
		req->len = (uint32_t)run->o.bs;
		m.p[1] = (struct nb_smb2_part){ .command = SMB2_WRITE,
						.body = run->smb_wbody,
						.body_len =
						run->smb_wbody_len };
		break;
	case NB_SWB_READ_FILE:
		m.n = 3;
		acc |= FILE_READ_DATA;
		req->len = (uint32_t)run->o.bs;
		m.p[1] = (struct nb_smb2_part){
			.command = SMB2_READ, .body = m.mid,
			.body_len = nb_smb2_rw_body(m.mid, false, rf, 0,
						    (uint32_t)run->o.bs,
						    false),
			.rsp_len = run->o.bs };
		break;
	case NB_SWB_ACCESS:
		mxac = true;
		break;
	case NB_SWB_CHMOD:
		m.n = 3;
		acc |= FILE_WRITE_ATTRIBUTES;
		m.p[1] = (struct nb_smb2_part){
			.command = SMB2_SET_INFO, .body = m.mid,
			.body_len = nb_smb2_set_basic_body(m.mid, rf,
				s->mode_toggle[fi] ? FILE_ATTRIBUTE_NORMAL :
				FILE_ATTRIBUTE_ARCHIVE) };
		s->mode_toggle[fi] ^= 1;
		break;
	case NB_SWB_READDIR:
		m.n = 3;
		acc = FILE_LIST_DIRECTORY | FILE_READ_ATTRIBUTES | SYNCHRONIZE;
		opt = FILE_DIRECTORY_FILE;
		swb_path(job, path, sizeof(path), "d%llu", fi / nf, 0);
		m.p[1] = (struct nb_smb2_part){
			.command = SMB2_QUERY_DIRECTORY, .body = m.mid,
			.body_len = nb_smb2_query_dir_body(m.mid, rf,
				FILE_ID_BOTH_DIR_INFO, DIR_OUT),
			.rsp_len = DIR_OUT };
		break;
	case NB_SWB_CREATE:
	case NB_SWB_UNLINK:
		slot = op == NB_SWB_CREATE ?
		       nb_swb_pick_slot(job, NB_SLOT_ABSENT, NB_SLOT_PRESENT) :
		       nb_swb_pick_slot(job, NB_SLOT_PRESENT, NB_SLOT_ABSENT);
		if (slot < 0)
			return -EAGAIN;	/* every slot busy: depth too big */
		req->off = (uint64_t)slot;
		swb_path(job, path, sizeof(path), "churn/c%llu",
			 (unsigned long long)slot, 0);
		if (op == NB_SWB_CREATE) {
			acc |= FILE_READ_DATA | FILE_WRITE_DATA;
			disp = FILE_OPEN_IF;
		} else {
			acc = DELETE | SYNCHRONIZE;
			opt |= FILE_DELETE_ON_CLOSE_OPT;
		}
		break;
	case NB_SWB_MKDIR:
		swb_path(job, path, sizeof(path), "mk/m%llu.%llu",
			 (unsigned long long)getpid(),
			 (unsigned long long)s->mk_seq++);
		disp = FILE_CREATE;
		opt = FILE_DIRECTORY_FILE;
		break;
	default:
		return -EINVAL;
	}
	cl = nb_smb2_create_body(m.create, path, acc, disp, opt, mxac);
	if (!cl)
		return -ENAMETOOLONG;
	swb_compound(&m, cl);
	if (slot >= 0)
		s->churn_state[slot] = NB_SLOT_BUSY;
	if (nb_smb2_submit(job->smb, m.p, m.n, swb_cb, req) < 0) {
		if (slot >= 0)
			s->churn_state[slot] = NB_SLOT_ABSENT;
		return -EIO;
	}
	return 0;
}

const struct nb_phase_ops nb_smb_swb_ops = {
	.name = "swbuild",
	.issue = swb_issue,
	.finish = NULL,
};

/* ---- refilling the churn directory between phases (untimed) ---- */

static void refill_cb(void *priv, const struct nb_smb2_reply *r)
{
	struct nb_req *req = priv;
	struct nb_job *job = req->job;

	if (r->status != STATUS_SUCCESS && !req->smb_status)
		req->smb_status = r->status;
	if (!r->done)
		return;
	job->swb.churn_state[req->off] = req->smb_status ? NB_SLOT_ABSENT :
				       NB_SLOT_PRESENT;
	if (req->smb_status)
		nb_job_fail(job, "refill: CREATE c%llu: status 0x%08x",
			    (unsigned long long)req->off, req->smb_status);
	nb_req_done(req, 0, !req->smb_status);
}

static int refill_issue(struct nb_job *job, struct nb_req *req)
{
	struct nb_swb_job *s = &job->swb;
	struct swb_msg m;
	char path[512];
	size_t cl;

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
	req->smb_status = 0;
	swb_path(job, path, sizeof(path), "churn/c%llu",
		 (unsigned long long)req->off, 0);
	cl = nb_smb2_create_body(m.create, path, FILE_READ_DATA |
				 FILE_WRITE_DATA | FILE_READ_ATTRIBUTES |
				 SYNCHRONIZE, FILE_OPEN_IF,
				 FILE_NON_DIRECTORY_FILE, false);
	m.n = 2;
	swb_compound(&m, cl);
	s->churn_state[req->off] = NB_SLOT_BUSY;
	if (nb_smb2_submit(job->smb, m.p, m.n, refill_cb, req) < 0) {
		s->churn_state[req->off] = NB_SLOT_ABSENT;
		return -EIO;
	}
	return 0;
}

const struct nb_phase_ops nb_smb_swb_refill_ops = {
	.name = "refill",
	.issue = refill_issue,
	.finish = NULL,
};
