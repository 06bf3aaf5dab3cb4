/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: one RPC record through rpc_process() with the
 * NFS program as the server builds it (versions 3 and 4 in one table),
 * aimed at NFSv4 COMPOUND: call header, credentials, COMPOUND decoding,
 * the op loop with every op against temporary exports and the real state
 * module (clients, sessions, opens, locks), and the reply encoders.
 *
 * Set-up (once, and again at every reset): under BASE, export A
 * (rw, pseudo path /a), export R (ro, /r/o) and export B (rw, /b, only
 * for 10.0.0.0/8: the fuzzed calls come from 127.0.0.1 and must never
 * reach it). A fixed handle MAC key, nfs4_init() with a state directory
 * and no grace period. The harness then makes, through COMPOUNDs of its
 * own: a confirmed 4.1 client with two sessions (8 slots and large
 * replies; 2 slots and 1 KiB replies), an unconfirmed 4.1 client, a
 * confirmed and an unconfirmed 4.0 client, an open and a lock stateid of
 * the 4.1 client and a confirmed open of the 4.0 client.
 *
 * What depends on the run (handles, client and session ids, stateids)
 * is named in the input by tokens that start with FE 'N' 'S' 'D', a kind
 * and an index (tests/fuzz/gen_seeds.py writes them):
 *   12 bytes, a length word (any) then FE NSD KIND IDX x x, replaced by a
 *   length-prefixed opaque:
 *     'F' IDX  handle of export A object IDX (see a_paths[])
 *     'R' IDX  handle of export R object IDX (see r_paths[])
 *     'Q' IDX  pseudo-fs handle: "/", "/r"
 *     'G'      handle of export B's root   'S' a stale handle
 *     'X' IDX  hello.txt's handle with bit IDX flipped
 *   8 bytes FE NSD KIND IDX x x, replaced in place by 8 bytes:
 *     'c' IDX  clientid: 0 4.1 confirmed, 1 4.1 unconfirmed, 2 4.0
 *              confirmed, 3 4.0 unconfirmed
 *     'v' IDX  setclientid_confirm verifier of client IDX (2, 3)
 *   16 bytes FE NSD KIND IDX and 10 free bytes, replaced in place:
 *     's' IDX  session id (0: 8 slots, 1: 2 slots, small replies); when
 *              the next 4 bytes are FE 5E 51 D0 they become the next
 *              seqid of the slot named by the 4 bytes after them, so that
 *              a SEQUENCE in a seed is new on every run
 *     't' IDX  stateid4: 0 open (4.1), 1 lock (4.1), 2 open (4.0)
 *
 * Checked for every input:
 *   - a reply unless the record is not a well-formed CALL header, and a
 *     well-formed RPC reply: our xid, REPLY, valid reply/accept/reject/
 *     auth stat, the version range on PROG_MISMATCH, nothing trailing;
 *   - a COMPOUND4res: a valid nfsstat4 status; the tag echoed; no more
 *     results than ops sent; each result's opnum the request's (OP_ILLEGAL
 *     for an opnum the minor version does not have); valid nfsstat4
 *     statuses; only the last result non-OK; an OK compound answered
 *     every op; the compound status is the last result's (or REP_TOO_BIG,
 *     RESOURCE, BADXDR when no result could be sent for the failing op);
 *     every result body parses as RFC 7531/5662/7863 define it and the
 *     reply ends with the last result (a READ tail is read in full). A
 *     4.1 retry answered from the slot cache is only parsed (it answers
 *     an earlier request);
 *   - every 512 inputs or 30 s: exports R and B are unchanged; then the
 *     NFSv4 state is shut down, export A and the state directory are
 *     emptied and re-created, and the set-up runs again, so the fuzzer
 *     can neither fill the disk nor grow the state tables without bound.
 *
 * NASD_FUZZ_TRACE=1 prints each compound's opnums and result statuses;
 * NASD_FUZZ_LOG=1 keeps nasd's log. NASD_FUZZ_STRICT=1 also checks each
 * error status against RFC 8881 §15.2's list for its op.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/log.h"
#include "export/export.h"
#include "fuzz.h"
#include "nfs3/nfs3.h"
#include "nfs4/compound.h"
#include "nfs4/nfs4.h"
#include "nfs4/nfs4_int.h"
#include "nfs4/nfs4_xdr.h"
#include "nfs4/state/state_int.h"
#include "rpc/drc.h"
#include "rpc/rpc.h"
#include "vfs/vfs.h"

#define RESET_EVERY 512
#define RESET_SECONDS 30
#define ARENA_SIZE 4096
#define MAX_OPS 64
#define SETUP_BUF 8192

/* Export A objects ('F' tokens); "" is the root. */
static const char *const a_paths[] = {
	"",	"hello.txt", "sub",  "sub/inner.txt", "scratch",
	"link", "empty",     "fifo", "sparse",
};
#define NA (sizeof(a_paths) / sizeof(a_paths[0]))
static const char *const r_paths[] = {"", "ro.txt", "rodir"};
#define NR (sizeof(r_paths) / sizeof(r_paths[0]))

#define NCLIENTS 4
#define NSESSIONS 2
#define NSTATEIDS 3
#define NPSEUDO 2

struct blob {
	uint8_t data[NFS4_FHSIZE];
	size_t len;
};

static char base[PATH_MAX];
static char path_a[PATH_MAX], path_r[PATH_MAX], path_b[PATH_MAX];
static char state_dir[PATH_MAX];
static struct blob a_fh[NA], r_fh[NR], pseudo_fh[NPSEUDO];
static struct blob fh_b, fh_stale;
static uint8_t clientid[NCLIENTS][8];
static uint8_t confirm_verf[NCLIENTS][8];
static uint8_t sessionid[NSESSIONS][NFS4_SESSIONID_SIZE];
static uint8_t stateid[NSTATEIDS][16];
static uint64_t snap_r, snap_b;
static unsigned long iterations;
static time_t last_reset;
static bool trace, strict;

static const struct vfs_cred root_cred = {0};

/* The NFS program as src/server/main.c builds it: versions 3 and 4. */
static struct rpc_version nfs_versions[2];
static const struct rpc_program nfs_program = {
	.prog = NFS_PROGRAM,
	.name = "nfs",
	.nversions = 2,
	.versions = nfs_versions,
};

static struct nfs4_config nfs4_cfg = {
	.lease_time = 90,
	.grace_time = 0,
	.max_ops = MAX_OPS,
};

static __attribute__((noreturn)) void die(const char *what, int err)
{
	fprintf(stderr, "fuzz_nfs4: set-up: %s: %s\n", what, strerror(err));
	exit(1);
}

static void join(char *out, const char *dir, const char *name)
{
	int n = snprintf(out, PATH_MAX, "%s/%s", dir, name);

	if (n < 0 || n >= PATH_MAX)
		die(name, ENAMETOOLONG);
}

static void write_file(const char *dir, const char *name, const char *text,
		       mode_t mode)
{
	char path[PATH_MAX];
	size_t len = strlen(text);
	int fd;

	join(path, dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (fd < 0)
		die(path, errno);
	if (write(fd, text, len) != (ssize_t)len)
		die(path, errno);
	close(fd);
	if (chmod(path, mode) < 0)
		die(path, errno);
}

static void make_dir(const char *dir, const char *name, mode_t mode)
{
	char path[PATH_MAX];

	join(path, dir, name);
	if (mkdir(path, mode) < 0 || chmod(path, mode) < 0)
		die(path, errno);
}

/* A file with data at 0 and at 64 KiB and a hole between (SEEK, READ_PLUS). */
static void write_sparse(const char *dir, const char *name)
{
	char path[PATH_MAX], buf[4096];
	int fd;

	join(path, dir, name);
	memset(buf, 'd', sizeof(buf));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0)
		die(path, errno);
	if (pwrite(fd, buf, sizeof(buf), 0) != (ssize_t)sizeof(buf) ||
	    pwrite(fd, buf, sizeof(buf), 65536) != (ssize_t)sizeof(buf))
		die(path, errno);
	close(fd);
	if (chmod(path, 0666) < 0)
		die(path, errno);
}

/* Export A's files: everyone may write them and create in A, scratch/. */
static void populate_a(void)
{
	char p[PATH_MAX];

	if (chmod(path_a, 0777) < 0)
		die(path_a, errno);
	write_file(path_a, "hello.txt", "hello, nasd nfsv4 fuzzing\n", 0666);
	write_file(path_a, "empty", "", 0666);
	make_dir(path_a, "sub", 0755);
	write_file(path_a, "sub/inner.txt", "inner\n", 0666);
	make_dir(path_a, "scratch", 0777);
	join(p, path_a, "link");
	if (symlink("hello.txt", p) < 0)
		die(p, errno);
	join(p, path_a, "fifo");
	if (mkfifo(p, 0666) < 0)
		die(p, errno);
	write_sparse(path_a, "sparse");
}

static struct vfs_export *export_of(const char *path)
{
	struct export_table *t = export_table_current();
	struct export *e = export_find_by_path(t, path, strlen(path));
	struct vfs_export *vex = e ? e->vex : NULL;

	export_table_put(t);
	if (!vex)
		die(path, ENOENT);
	return vex;
}

/* Handle of @rel (slash-separated) under export @vex; -errno on failure. */
static int handle_of(struct vfs_export *vex, const char *rel, struct blob *b)
{
	struct vfs_obj *o, *next;
	const char *s = rel, *slash;
	size_t n;
	int ret;

	ret = vfs_obj_root(vex, &o);
	if (ret < 0)
		return ret;
	while (*s) {
		slash = strchr(s, '/');
		n = slash ? (size_t)(slash - s) : strlen(s);
		ret = vfs_lookup(o, s, n, &next);
		vfs_obj_put(o);
		if (ret < 0)
			return ret;
		o = next;
		s += n + (slash ? 1 : 0);
	}
	ret = vfs_obj_fh(o, b->data, NFS4_FHSIZE);
	vfs_obj_put(o);
	if (ret < 0)
		return ret;
	b->len = (size_t)ret;
	return 0;
}

static void handles_compute(void)
{
	struct vfs_export *vex = export_of(path_a);
	char p[PATH_MAX];
	unsigned int i;
	int ret;

	for (i = 0; i < NA; i++) {
		ret = handle_of(vex, a_paths[i], &a_fh[i]);
		if (ret < 0)
			die(a_paths[i], -ret);
	}
	write_file(path_a, "gone", "", 0644);
	ret = handle_of(vex, "gone", &fh_stale);
	if (ret < 0)
		die("gone", -ret);
	join(p, path_a, "gone");
	if (unlink(p) < 0)
		die(p, errno);
}

/* ---- tree snapshots and removal (as fuzz_rpc.c) ---- */

static uint64_t snap_hash;

static int snap_visit(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	const uint64_t v[] = {
		(uint64_t)st->st_mode,	      (uint64_t)st->st_size,
		(uint64_t)st->st_uid,	      (uint64_t)st->st_gid,
		(uint64_t)st->st_nlink,	      (uint64_t)st->st_ino,
		(uint64_t)st->st_mtim.tv_sec, (uint64_t)st->st_mtim.tv_nsec,
		(uint64_t)st->st_ctim.tv_sec, (uint64_t)st->st_ctim.tv_nsec,
	};
	const char *p;
	unsigned int i;

	(void)flag;
	(void)ftw;
	for (p = path; *p; p++)
		snap_hash = (snap_hash ^ (uint8_t)*p) * 0x100000001b3ull;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		snap_hash = (snap_hash ^ v[i]) * 0x100000001b3ull;
	return 0;
}

static uint64_t tree_snapshot(const char *dir)
{
	snap_hash = 0xcbf29ce484222325ull;
	if (nftw(dir, snap_visit, 16, FTW_PHYS) < 0)
		die(dir, errno);
	return snap_hash;
}

static int rm_visit(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	(void)st;
	(void)flag;
	if (ftw->level == 0)
		return 0;
	if (remove(path) < 0 && errno != ENOENT)
		die(path, errno);
	return 0;
}

static void tree_empty(const char *dir)
{
	if (nftw(dir, rm_visit, 16, FTW_DEPTH | FTW_PHYS) < 0)
		die(dir, errno);
}

/* ---- the reply checks ---- */

static bool nfsstat4_valid(uint32_t s)
{
	static const uint32_t low[] = {
		NFS4_OK,	NFS4ERR_PERM,	NFS4ERR_NOENT,	 NFS4ERR_IO,
		NFS4ERR_NXIO,	NFS4ERR_ACCESS, NFS4ERR_EXIST,	 NFS4ERR_XDEV,
		NFS4ERR_NOTDIR, NFS4ERR_ISDIR,	NFS4ERR_INVAL,	 NFS4ERR_FBIG,
		NFS4ERR_NOSPC,	NFS4ERR_ROFS,	NFS4ERR_MLINK,	 NFS4ERR_NAMETOOLONG,
		NFS4ERR_NOTEMPTY, NFS4ERR_DQUOT, NFS4ERR_STALE, NFS4ERR_BADHANDLE,
	};
	unsigned int i;

	for (i = 0; i < sizeof(low) / sizeof(low[0]); i++)
		if (s == low[i])
			return true;
	/* 10002 (NOT_SYNC) is NFSv3 only; 10073 is unassigned */
	return (s >= NFS4ERR_BAD_COOKIE && s <= NFS4ERR_HASH_ALG_UNSUPP) ||
	       (s >= NFS4ERR_CLIENTID_BUSY && s <= NFS4ERR_XATTR2BIG);
}

/* The opnums minor version @minor has (RFC 7530 / 8881 / 7862, and
 * RFC 8276's extended attributes in 4.2). */
static bool opnum_defined(uint32_t op, uint32_t minor)
{
	static const uint32_t last[] = {
		OP_RELEASE_LOCKOWNER,
		OP_RECLAIM_COMPLETE,
		OP_REMOVEXATTR,
	};

	return minor <= 2 && op >= OP_ACCESS && op <= last[minor];
}

static bool skip(struct xdr_buf *x, size_t n)
{
	return xdr_inline(x, n) != NULL;
}

static bool skip_opaque(struct xdr_buf *x, uint32_t max)
{
	const uint8_t *p;
	uint32_t n;

	return xdr_dec_opaque_ref(x, &p, &n, max);
}

static bool skip_bool(struct xdr_buf *x)
{
	bool b;

	return xdr_dec_bool(x, &b);
}

static bool skip_bitmap4(struct xdr_buf *x)
{
	uint32_t n;

	return xdr_dec_u32(x, &n) && n <= 8 && skip(x, (size_t)n * 4);
}

static bool skip_fattr4(struct xdr_buf *x)
{
	return skip_bitmap4(x) && skip_opaque(x, UINT32_MAX);
}

#define STATEID4 16
#define CINFO4 20 /* bool atomic, changeid4 before, after */

/* nfsace4: type, flag, access_mask, who (utf8str_mixed) */
static bool skip_nfsace4(struct xdr_buf *x)
{
	return skip(x, 12) && skip_opaque(x, NFS4_OPAQUE_LIMIT);
}

/* open_delegation4 (RFC 8881 §18.16.2) */
static bool skip_open_delegation4(struct xdr_buf *x)
{
	uint32_t type, why, limitby;

	if (!xdr_dec_u32(x, &type))
		return false;
	switch (type) {
	case OPEN_DELEGATE_NONE:
		return true;
	case OPEN_DELEGATE_READ:
		return skip(x, STATEID4) && skip_bool(x) && skip_nfsace4(x);
	case OPEN_DELEGATE_WRITE:
		if (!skip(x, STATEID4) || !skip_bool(x) ||
		    !xdr_dec_u32(x, &limitby))
			return false;
		/* NFS_LIMIT_SIZE: filesize; NFS_LIMIT_BLOCKS: 2 words */
		if (limitby != 1 && limitby != 2)
			return false;
		return skip(x, 8) && skip_nfsace4(x);
	case OPEN_DELEGATE_NONE_EXT:
		if (!xdr_dec_u32(x, &why) || why > WND4_IS_DIR)
			return false;
		if (why == WND4_CONTENTION || why == WND4_RESOURCE)
			return skip_bool(x);
		return true;
	default:
		return false;
	}
}

/* LOCK4denied: offset, length, locktype, lock_owner4 */
static bool skip_lock4denied(struct xdr_buf *x)
{
	uint32_t type;

	return skip(x, 16) && xdr_dec_u32(x, &type) && type >= READ_LT &&
	       type <= WRITEW_LT && skip(x, 8) &&
	       skip_opaque(x, NFS4_OPAQUE_LIMIT);
}

/* channel_attrs4: six words and ca_rdma_ird<1> */
static bool skip_channel_attrs4(struct xdr_buf *x)
{
	uint32_t n;

	return skip(x, 24) && xdr_dec_u32(x, &n) && n <= 1 &&
	       skip(x, (size_t)n * 4);
}

/* write_response4 (RFC 7862 §15.2.3) */
static bool skip_write_response4(struct xdr_buf *x)
{
	uint32_t n, committed;

	return xdr_dec_u32(x, &n) && n <= 1 && skip(x, n * STATEID4) &&
	       skip(x, 8) && xdr_dec_u32(x, &committed) && committed <= 2 &&
	       skip(x, NFS4_VERIFIER_SIZE);
}

static bool skip_secinfo4(struct xdr_buf *x)
{
	uint32_t n, i, flavor;

	if (!xdr_dec_u32(x, &n) || n > 64)
		return false;
	for (i = 0; i < n; i++) {
		if (!xdr_dec_u32(x, &flavor))
			return false;
		/* RPCSEC_GSS: rpcsec_gss_info (oid, qop, service) */
		if (flavor == RPCSEC_GSS &&
		    (!skip_opaque(x, NFS4_OPAQUE_LIMIT) || !skip(x, 8)))
			return false;
	}
	return true;
}

static bool skip_readdir4resok(struct xdr_buf *x)
{
	bool more;

	if (!skip(x, NFS4_VERIFIER_SIZE) || !xdr_dec_bool(x, &more))
		return false;
	while (more) {
		/* entry4: cookie, name, attrs, then *nextentry */
		if (!skip(x, 8) || !skip_opaque(x, NFS4_OPAQUE_LIMIT) ||
		    !skip_fattr4(x) || !xdr_dec_bool(x, &more))
			return false;
	}
	return skip_bool(x); /* eof */
}

static bool skip_read_plus4resok(struct xdr_buf *x)
{
	uint32_t n, i, type;

	if (!skip_bool(x) || !xdr_dec_u32(x, &n) || n > xdr_remaining(x) / 12)
		return false;
	for (i = 0; i < n; i++) {
		if (!xdr_dec_u32(x, &type) || !skip(x, 8))
			return false;
		if (type == 0) { /* NFS4_CONTENT_DATA: data4 */
			if (!skip_opaque(x, UINT32_MAX))
				return false;
		} else if (type == 1) { /* NFS4_CONTENT_HOLE: data_info4 */
			if (!skip(x, 8))
				return false;
		} else {
			return false;
		}
	}
	return true;
}

static bool skip_exchange_id4resok(struct xdr_buf *x)
{
	uint32_t how, n;

	if (!skip(x, 16) || !xdr_dec_u32(x, &how))
		return false;
	/* state_protect4_r: nasd does SP4_NONE and SP4_MACH_CRED only */
	if (how == SP4_MACH_CRED) {
		if (!skip_bitmap4(x) || !skip_bitmap4(x))
			return false;
	} else if (how != SP4_NONE) {
		return false;
	}
	/* server_owner4, server_scope, impl_id<1> */
	if (!skip(x, 8) || !skip_opaque(x, NFS4_OPAQUE_LIMIT) ||
	    !skip_opaque(x, NFS4_OPAQUE_LIMIT) || !xdr_dec_u32(x, &n) || n > 1)
		return false;
	return n == 0 || (skip_opaque(x, NFS4_OPAQUE_LIMIT) &&
			  skip_opaque(x, NFS4_OPAQUE_LIMIT) && skip(x, 12));
}

/*
 * Step over the body of result @op with @status: true when it is there
 * and well formed (RFC 7531 §2, RFC 5662, RFC 7863).
 */
static bool skip_result(uint32_t op, uint32_t status, struct xdr_buf *x)
{
	uint32_t n, committed;

	/* results with a body on an error */
	switch (op) {
	case OP_SETATTR:
		return skip_bitmap4(x); /* attrsset, always */
	case OP_LOCK:
	case OP_LOCKT:
		if (status == NFS4ERR_DENIED)
			return skip_lock4denied(x);
		break;
	case OP_SETCLIENTID:
		if (status == NFS4ERR_CLID_INUSE)
			return skip_opaque(x, NFS4_OPAQUE_LIMIT) &&
			       skip_opaque(x, NFS4_OPAQUE_LIMIT);
		break;
	case OP_COPY:
		if (status == NFS4ERR_OFFLOAD_NO_REQS)
			return skip_bool(x) && skip_bool(x);
		break;
	case OP_GETDEVICEINFO:
		if (status == NFS4ERR_TOOSMALL)
			return skip(x, 4);
		break;
	case OP_LAYOUTGET:
		if (status == NFS4ERR_LAYOUTTRYLATER)
			return skip_bool(x);
		break;
	}
	if (status != NFS4_OK)
		return true;
	switch (op) {
	case OP_ACCESS:
		return skip(x, 8);
	case OP_CLOSE:
	case OP_LOCK:
	case OP_LOCKU:
	case OP_OPEN_CONFIRM:
	case OP_OPEN_DOWNGRADE:
		return skip(x, STATEID4);
	case OP_COMMIT:
		return skip(x, NFS4_VERIFIER_SIZE);
	case OP_CREATE:
		return skip(x, CINFO4) && skip_bitmap4(x);
	case OP_GETATTR:
		return skip_fattr4(x);
	case OP_GETFH:
		return xdr_dec_u32(x, &n) && n > 0 && n <= NFS4_FHSIZE &&
		       skip(x, n + xdr_pad(n));
	case OP_LINK:
	case OP_REMOVE:
		return skip(x, CINFO4);
	case OP_RENAME:
		return skip(x, 2 * CINFO4);
	case OP_OPEN:
		return skip(x, STATEID4 + CINFO4 + 4) && skip_bitmap4(x) &&
		       skip_open_delegation4(x);
	case OP_READ:
		return skip_bool(x) && skip_opaque(x, NFS4_IO_MAX);
	case OP_READDIR:
		return skip_readdir4resok(x);
	case OP_READLINK:
		return skip_opaque(x, UINT32_MAX);
	case OP_SECINFO:
	case OP_SECINFO_NO_NAME:
		return skip_secinfo4(x);
	case OP_SETCLIENTID:
		return skip(x, 8 + NFS4_VERIFIER_SIZE);
	case OP_WRITE:
		return skip(x, 4) && xdr_dec_u32(x, &committed) &&
		       committed <= 2 && skip(x, NFS4_VERIFIER_SIZE);
	case OP_BIND_CONN_TO_SESSION:
		return skip(x, NFS4_SESSIONID_SIZE) && xdr_dec_u32(x, &n) &&
		       n >= CDFS4_FORE && n <= CDFS4_BOTH && skip_bool(x);
	case OP_EXCHANGE_ID:
		return skip_exchange_id4resok(x);
	case OP_CREATE_SESSION:
		return skip(x, NFS4_SESSIONID_SIZE + 8) &&
		       skip_channel_attrs4(x) && skip_channel_attrs4(x);
	case OP_SEQUENCE:
		return skip(x, NFS4_SESSIONID_SIZE + 20);
	case OP_TEST_STATEID:
		if (!xdr_dec_u32(x, &n) || n > xdr_remaining(x) / 4)
			return false;
		while (n--)
			if (!xdr_dec_u32(x, &committed) ||
			    !nfsstat4_valid(committed))
				return false;
		return true;
	case OP_WANT_DELEGATION:
		return skip_open_delegation4(x);
	case OP_COPY:
		return skip_write_response4(x) && skip_bool(x) && skip_bool(x);
	case OP_IO_ADVISE:
		return skip_bitmap4(x);
	case OP_OFFLOAD_STATUS:
		return skip(x, 8) && xdr_dec_u32(x, &n) && n <= 1 &&
		       skip(x, (size_t)n * 4);
	case OP_READ_PLUS:
		return skip_read_plus4resok(x);
	case OP_SEEK:
		return skip_bool(x) && skip(x, 8);
	case OP_WRITE_SAME:
		return skip_write_response4(x);
	case OP_GETXATTR:
		return skip_opaque(x, 65536);
	case OP_SETXATTR:
	case OP_REMOVEXATTR:
		return skip(x, CINFO4);
	case OP_LISTXATTRS:
		/* cookie, names<> (each at most 250 bytes), eof */
		if (!skip(x, 8) || !xdr_dec_u32(x, &n) ||
		    n > xdr_remaining(x) / 4)
			return false;
		while (n--)
			if (!skip_opaque(x, 250))
				return false;
		return skip_bool(x);
	case OP_COPY_NOTIFY:
	case OP_GET_DIR_DELEGATION:
	case OP_GETDEVICEINFO:
	case OP_GETDEVICELIST:
	case OP_LAYOUTCOMMIT:
	case OP_LAYOUTGET:
	case OP_LAYOUTRETURN:
	case OP_SET_SSV:
		/* nasd does not implement these: they never succeed */
		return false;
	default:
		/* every other op (and OP_ILLEGAL) has a void result */
		return true;
	}
}

/* What the harness read from the request before sending it. */
struct request {
	uint32_t xid, mtype, rpcvers, prog, vers, proc;
	bool header;           /* the CALL header up to the verifier parsed */
	bool compound;         /* NFSv4 COMPOUND arguments parsed */
	const uint8_t *tag;
	uint32_t taglen;
	uint32_t minor;
	uint32_t numops;
	uint32_t nops;         /* opnums known (decoded up to the first bad) */
	uint32_t ops[MAX_OPS + 1];
	bool slot_replay;      /* SEQUENCE will be answered from the cache */
	const uint8_t *seq_args; /* op 0's SEQUENCE4args, when op 0 is it */
};

/* Decode the request as the server will, to learn its opnums. */
static void request_parse(struct request *r, uint8_t *rec, size_t len)
{
	struct xdr_buf x;
	uint32_t flavor, opnum, i;
	const uint8_t *p;
	uint32_t n;
	const struct nfs4_op *op;
	void *args;
	bool ok;

	memset(r, 0, sizeof(*r));
	xdr_init(&x, rec, len);
	if (!xdr_dec_u32(&x, &r->xid) || !xdr_dec_u32(&x, &r->mtype) ||
	    !xdr_dec_u32(&x, &r->rpcvers) || !xdr_dec_u32(&x, &r->prog) ||
	    !xdr_dec_u32(&x, &r->vers) || !xdr_dec_u32(&x, &r->proc))
		return;
	if (!xdr_dec_u32(&x, &flavor) ||
	    !xdr_dec_opaque_ref(&x, &p, &n, RPC_AUTH_MAX_BODY) ||
	    !xdr_dec_u32(&x, &flavor) ||
	    !xdr_dec_opaque_ref(&x, &p, &n, RPC_AUTH_MAX_BODY))
		return;
	r->header = true;
	if (r->prog != NFS_PROGRAM || r->vers != NFS_V4 || r->proc != 1)
		return;
	if (!xdr_dec_opaque_ref(&x, &r->tag, &r->taglen, NFS4_TAG_MAX) ||
	    !xdr_dec_u32(&x, &r->minor) || !xdr_dec_u32(&x, &r->numops))
		return;
	r->compound = true;
	if (r->minor > 2 || r->numops > MAX_OPS)
		return;
	for (i = 0; i < r->numops; i++) {
		if (!xdr_dec_u32(&x, &opnum))
			return;
		r->ops[r->nops++] = opnum;
		if (!opnum_defined(opnum, r->minor))
			return;
		op = opnum < nfs4_ops_count ? nfs4_ops[opnum] : NULL;
		if (!op || !op->handle)
			return;
		if (i == 0 && opnum == OP_SEQUENCE &&
		    xdr_remaining(&x) >= NFS4_SESSIONID_SIZE + 8)
			r->seq_args = x.base + x.pos;
		if (!op->decode)
			continue;
		args = calloc(1, op->args_size ? op->args_size : 1);
		FUZZ_CHECK(args);
		ok = op->decode(&x, args);
		free(args);
		if (!ok)
			return;
	}
}

/* Will op 0 (SEQUENCE) be a retry served from the slot's cache? */
static void request_peek_slot(struct request *r)
{
	struct nfs4_session *s;
	struct nfs4_slot *slot;
	uint32_t seqid, slotid;

	if (!r->seq_args || r->minor == 0)
		return;
	seqid = fuzz_be32(r->seq_args + NFS4_SESSIONID_SIZE);
	slotid = fuzz_be32(r->seq_args + NFS4_SESSIONID_SIZE + 4);
	s = nfs4_session_lookup(r->seq_args);
	if (!s)
		return;
	pthread_mutex_lock(&s->mu);
	if (slotid < s->nslots) {
		slot = &s->slots[slotid];
		r->slot_replay = !slot->inuse && slot->executed &&
				 slot->seqid == seqid && slot->has_cache;
	}
	pthread_mutex_unlock(&s->mu);
	nfs4_session_put(s);
}

/* COMPOUND4res in @x (after accept_stat SUCCESS) answers @r. */
static void check_compound(const struct request *r, struct xdr_buf *x)
{
	const uint8_t *tag;
	uint32_t status, taglen, nres, i, resop, st, last = NFS4_OK, want;
	bool replay = r->slot_replay;

	FUZZ_CHECK(r->compound);
	FUZZ_CHECK(xdr_dec_u32(x, &status) && nfsstat4_valid(status));
	FUZZ_CHECK(xdr_dec_opaque_ref(x, &tag, &taglen, NFS4_TAG_MAX));
	if (!replay) {
		FUZZ_CHECK(taglen == r->taglen);
		FUZZ_CHECK(taglen == 0 || memcmp(tag, r->tag, taglen) == 0);
	}
	FUZZ_CHECK(xdr_dec_u32(x, &nres));
	if (trace)
		fprintf(stderr, "fuzz_nfs4: minor %u, %u ops: status %u, "
			"%u results%s:", r->minor, r->numops, status, nres,
			replay ? " (slot replay)" : "");
	if (!replay) {
		FUZZ_CHECK(nres <= r->numops);
		FUZZ_CHECK(nres <= r->nops);
		if (r->minor > 2)
			FUZZ_CHECK(status == NFS4ERR_MINOR_VERS_MISMATCH);
	}
	FUZZ_CHECK(nres <= MAX_OPS);
	for (i = 0; i < nres; i++) {
		FUZZ_CHECK(last == NFS4_OK); /* evaluation stops at an error */
		FUZZ_CHECK(xdr_dec_u32(x, &resop) && xdr_dec_u32(x, &st));
		if (trace)
			fprintf(stderr, " %u=%u", resop, st);
		FUZZ_CHECK(nfsstat4_valid(st));
		if (!replay) {
			want = opnum_defined(r->ops[i], r->minor) ? r->ops[i]
								   : OP_ILLEGAL;
			FUZZ_CHECK(resop == want);
			/* (NOTSUPP: an op of another minor version) */
			if (strict && st != NFS4_OK && resop != OP_ILLEGAL &&
			    st != NFS4ERR_NOTSUPP)
				FUZZ_CHECK(nfs4_status_allowed(resop, st));
		}
		if (resop == OP_ILLEGAL)
			FUZZ_CHECK(st == NFS4ERR_OP_ILLEGAL);
		else
			FUZZ_CHECK(resop >= OP_ACCESS && resop <= NFS4_OP_MAX);
		FUZZ_CHECK(skip_result(resop, st, x));
		last = st;
	}
	if (trace)
		fprintf(stderr, "\n");
	FUZZ_CHECK(xdr_remaining(x) == 0);
	if (status == NFS4_OK) {
		FUZZ_CHECK(last == NFS4_OK);
		if (!replay)
			FUZZ_CHECK(nres == r->numops);
	} else if (nres > 0 && last != status) {
		/* the failing op got no result: no room for it, or its
		 * opnum was missing */
		FUZZ_CHECK(last == NFS4_OK);
		FUZZ_CHECK(status == NFS4ERR_REP_TOO_BIG ||
			   status == NFS4ERR_RESOURCE ||
			   status == NFS4ERR_BADXDR);
	}
	if (nres == 0 && !replay && r->numops > 0 && r->minor <= 2 &&
	    r->numops <= MAX_OPS)
		FUZZ_CHECK(status != NFS4_OK);
}

/*
 * The reply of request @rq answers @r: a well-formed RPC reply; COMPOUND
 * replies checked by check_compound(). @flat gets the reply with its
 * payload (freed by the caller); returns the offset of the COMPOUND4res
 * in it, or 0 when there is none.
 */
static size_t check_reply(const struct request *r, struct req *rq,
			  uint8_t **flat)
{
	const struct payload *pl = &rq->reply.payload;
	bool tail = pl->kind != PAYLOAD_NONE;
	struct xdr_buf x;
	uint32_t xid, mtype, stat, a, b, flavor, vlen;
	const uint8_t *verf;
	size_t len, body;

	FUZZ_CHECK(rq->reply.nseg > 0);
	if (tail) {
		FUZZ_CHECK(pl->len <= NFS4_IO_MAX);
		FUZZ_CHECK(rq->reply.pad == ((4 - (pl->len & 3)) & 3));
		/* a file range is read as a transport without sendfile
		 * reads it; every byte then is in the buffer (ASan) */
		FUZZ_CHECK(payload_fill(&rq->reply.payload) == 0);
	}
	len = req_reply_len(rq);
	*flat = malloc(len ? len : 1);
	FUZZ_CHECK(*flat);
	FUZZ_CHECK(req_reply_copy(rq, 0, *flat, len) == (ssize_t)len);
	xdr_init(&x, *flat, len);
	FUZZ_CHECK(xdr_dec_u32(&x, &xid) && xid == r->xid);
	FUZZ_CHECK(xdr_dec_u32(&x, &mtype) && mtype == REPLY);
	FUZZ_CHECK(xdr_dec_u32(&x, &stat));
	if (stat == MSG_DENIED) {
		FUZZ_CHECK(!tail);
		FUZZ_CHECK(xdr_dec_u32(&x, &stat));
		if (stat == RPC_MISMATCH) {
			FUZZ_CHECK(r->rpcvers != RPC_VERSION);
			FUZZ_CHECK(xdr_dec_u32(&x, &a) && xdr_dec_u32(&x, &b));
			FUZZ_CHECK(a == RPC_VERSION && b == RPC_VERSION);
		} else {
			FUZZ_CHECK(stat == AUTH_ERROR);
			FUZZ_CHECK(xdr_dec_u32(&x, &a));
			FUZZ_CHECK(a >= AUTH_BADCRED && a <= AUTH_TOOWEAK);
		}
		FUZZ_CHECK(xdr_remaining(&x) == 0);
		return 0;
	}
	FUZZ_CHECK(stat == MSG_ACCEPTED);
	FUZZ_CHECK(r->rpcvers == RPC_VERSION);
	FUZZ_CHECK(xdr_dec_u32(&x, &flavor));
	FUZZ_CHECK(xdr_dec_opaque_ref(&x, &verf, &vlen, RPC_AUTH_MAX_BODY));
	FUZZ_CHECK(xdr_dec_u32(&x, &stat));
	switch (stat) {
	case SUCCESS:
		FUZZ_CHECK(r->prog == NFS_PROGRAM);
		FUZZ_CHECK(r->vers == NFS_V4 || r->vers == NFS_V3);
		if (r->vers == NFS_V4 && r->proc == 1) {
			body = x.pos;
			check_compound(r, &x);
			return body;
		}
		if (r->vers == NFS_V4)
			FUZZ_CHECK(r->proc == 0 && xdr_remaining(&x) == 0);
		return 0; /* NFSv3 replies: fuzz_rpc's business */
	case PROG_MISMATCH:
		FUZZ_CHECK(xdr_dec_u32(&x, &a) && xdr_dec_u32(&x, &b));
		FUZZ_CHECK(a == NFS_V3 && b == NFS_V4);
		FUZZ_CHECK(r->vers < a || r->vers > b);
		break;
	case PROG_UNAVAIL:
		FUZZ_CHECK(r->prog != NFS_PROGRAM);
		break;
	case PROC_UNAVAIL:
		FUZZ_CHECK(r->prog == NFS_PROGRAM);
		FUZZ_CHECK(r->vers != NFS_V4 || r->proc > 1);
		break;
	case GARBAGE_ARGS:
		/* COMPOUND4args whose header does not decode */
		FUZZ_CHECK(r->vers != NFS_V4 || !r->compound);
		break;
	case SYSTEM_ERR:
		break;
	default:
		FUZZ_CHECK(!"accept_stat out of range");
	}
	FUZZ_CHECK(!tail);
	FUZZ_CHECK(xdr_remaining(&x) == 0);
	return 0;
}

/* ---- tokens ---- */

static const uint8_t magic[4] = {0xfe, 'N', 'S', 'D'};
static const uint8_t seq_magic[4] = {0xfe, 0x5e, 0x51, 0xd0};

/* The handle a 12-byte token names, or NULL. */
static const struct blob *token_handle(const uint8_t *t, struct blob *tmp)
{
	size_t bit;

	if (memcmp(t, magic, sizeof(magic)) != 0)
		return NULL;
	switch (t[4]) {
	case 'F':
		return &a_fh[t[5] % NA];
	case 'R':
		return &r_fh[t[5] % NR];
	case 'Q':
		return &pseudo_fh[t[5] % NPSEUDO];
	case 'G':
		return &fh_b;
	case 'S':
		return &fh_stale;
	case 'X':
		*tmp = a_fh[1];
		bit = t[5] % (tmp->len * 8);
		tmp->data[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		return tmp;
	default:
		return NULL;
	}
}

/* The next seqid of @slot of session @sid, as the server sees it now. */
static uint32_t slot_next_seqid(const uint8_t *sid, uint32_t slotid)
{
	struct nfs4_session *s;
	uint32_t v = 1;

	s = nfs4_session_lookup(sid);
	if (!s)
		return v;
	pthread_mutex_lock(&s->mu);
	if (slotid < s->nslots)
		v = s->slots[slotid].seqid + 1;
	pthread_mutex_unlock(&s->mu);
	nfs4_session_put(s);
	return v;
}

/*
 * Replace the tokens of @in; writes to @out when not NULL. Returns the
 * length of the result (call once to size the buffer, once to fill it).
 */
static size_t tokens_expand(const uint8_t *in, size_t len, uint8_t *out)
{
	const struct blob *h;
	const uint8_t *v;
	struct blob tmp;
	size_t i = 0, o = 0, pad, n;
	uint8_t seq[4];

	while (i < len) {
		h = NULL;
		v = NULL;
		n = 0;
		if (len - i >= 12)
			h = token_handle(in + i + 4, &tmp);
		if (h) {
			pad = (4 - (h->len & 3)) & 3;
			if (out) {
				fuzz_put_be32(out + o, (uint32_t)h->len);
				memcpy(out + o + 4, h->data, h->len);
				memset(out + o + 4 + h->len, 0, pad);
			}
			o += 4 + h->len + pad;
			i += 12;
			continue;
		}
		if (len - i >= 8 && memcmp(in + i, magic, 4) == 0) {
			switch (in[i + 4]) {
			case 'c':
				v = clientid[in[i + 5] % NCLIENTS];
				n = 8;
				break;
			case 'v':
				v = confirm_verf[in[i + 5] % NCLIENTS];
				n = 8;
				break;
			case 's':
				v = sessionid[in[i + 5] % NSESSIONS];
				n = 16;
				break;
			case 't':
				v = stateid[in[i + 5] % NSTATEIDS];
				n = 16;
				break;
			}
			if (n > len - i)
				v = NULL;
		}
		if (!v) {
			if (out)
				out[o] = in[i];
			o++;
			i++;
			continue;
		}
		if (out)
			memcpy(out + o, v, n);
		o += n;
		i += n;
		if (in[i - n + 4] == 's' && len - i >= 8 &&
		    memcmp(in + i, seq_magic, 4) == 0) {
			fuzz_put_be32(seq, slot_next_seqid(v,
							   fuzz_be32(in + i + 4)));
			if (out)
				memcpy(out + o, seq, 4);
			o += 4;
			i += 4;
		}
	}
	return o;
}

/* ---- the connection: an identity, and a back channel that answers ---- */

/*
 * Every call arrives on this one fake connection (the state module uses
 * connections as identities and, for the 4.1 back channel, through the
 * operations below instead of the transport's). Callbacks "sent" on it
 * are answered with a successful reply at the start of the next input,
 * through rpc_process() as the transport would deliver it.
 */
static uint64_t fake_conn_mem[8];
#define FAKE_CONN ((struct conn *)(void *)fake_conn_mem)
#define CB_SENT_MAX 8

static pthread_mutex_t cb_sent_mu = PTHREAD_MUTEX_INITIALIZER;
static uint32_t cb_sent_xid[CB_SENT_MAX];
static unsigned int cb_sent;
static unsigned long cb_total;

static void fc_get(struct conn *c)
{
	FUZZ_CHECK(c == FAKE_CONN);
}

static void fc_put(struct conn *c)
{
	FUZZ_CHECK(c == FAKE_CONN);
}

static bool fc_closed(const struct conn *c)
{
	FUZZ_CHECK(c == FAKE_CONN);
	return false;
}

/* Messages of ours are requests with only a reply (transport_msg_new). */
struct fc_msg {
	struct req req;
	uint8_t arena[4096];
};

static struct req *fc_msg_new(struct conn *c)
{
	struct fc_msg *m = calloc(1, sizeof(*m));

	FUZZ_CHECK(c == FAKE_CONN);
	FUZZ_CHECK(m);
	req_init(&m->req, m->arena, sizeof(m->arena));
	m->req.conn = c;
	return &m->req;
}

static void fc_msg_free(struct req *m)
{
	req_finish(m);
	free((struct fc_msg *)(void *)m);
}

/* A CALL of ours: check its header, keep its xid to answer it. */
static int fc_msg_send(struct req *m)
{
	size_t len = req_reply_len(m);
	uint8_t p[512];

	FUZZ_CHECK(m->conn == FAKE_CONN);
	FUZZ_CHECK(len >= 24 && len % 4 == 0 && len <= sizeof(p));
	FUZZ_CHECK(req_reply_copy(m, 0, p, len) == (ssize_t)len);
	FUZZ_CHECK(fuzz_be32(p + 4) == CALL && fuzz_be32(p + 8) == RPC_VERSION);
	pthread_mutex_lock(&cb_sent_mu);
	if (cb_sent < CB_SENT_MAX)
		cb_sent_xid[cb_sent++] = fuzz_be32(p);
	cb_total++;
	pthread_mutex_unlock(&cb_sent_mu);
	fc_msg_free(m);
	return 0;
}

static const struct nfs4_bc_ops fake_bc_ops = {
	.get = fc_get,
	.put = fc_put,
	.closed = fc_closed,
	.msg_new = fc_msg_new,
	.msg_send = fc_msg_send,
	.msg_free = fc_msg_free,
};

static void req_prepare(struct req *rq, uint8_t *arena, uint8_t *rec,
			size_t len);

/* Answer the callbacks sent since the last input: accepted, void. */
static void cb_answer(void)
{
	static uint8_t arena[ARENA_SIZE];
	uint32_t xids[CB_SENT_MAX];
	unsigned int n, i;
	uint8_t rec[24];
	struct req rq;

	pthread_mutex_lock(&cb_sent_mu);
	n = cb_sent;
	memcpy(xids, cb_sent_xid, sizeof(xids));
	cb_sent = 0;
	pthread_mutex_unlock(&cb_sent_mu);
	for (i = 0; i < n; i++) {
		fuzz_put_be32(rec, xids[i]);
		fuzz_put_be32(rec + 4, REPLY);
		fuzz_put_be32(rec + 8, MSG_ACCEPTED);
		fuzz_put_be32(rec + 12, AUTH_NONE);
		fuzz_put_be32(rec + 16, 0);
		fuzz_put_be32(rec + 20, SUCCESS);
		req_prepare(&rq, arena, rec, sizeof(rec));
		FUZZ_CHECK(rpc_process(&rq) == REQ_DROP);
		req_finish(&rq);
	}
}

/* ---- running a record ---- */

static void req_prepare(struct req *rq, uint8_t *arena, uint8_t *rec,
			size_t len)
{
	static struct sockaddr_storage peer, local;
	struct sockaddr_in *sin;

	req_init(rq, arena, ARENA_SIZE);
	rq->conn = FAKE_CONN;
	sin = (struct sockaddr_in *)&peer;
	sin->sin_family = AF_INET;
	sin->sin_port = htons(1000);
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	rq->peer = &peer;
	rq->peer_len = sizeof(*sin);
	rq->peer_privileged = true;
	memcpy(&local, &peer, sizeof(*sin));
	((struct sockaddr_in *)&local)->sin_port = htons(2049);
	rq->local = &local;
	rq->local_len = sizeof(*sin);
	rq->caps = REQ_CAP_FILE;
	rq->msg = rec;
	rq->msg_len = len;
}

/*
 * Run record @rec and check the reply. Returns a malloc'd copy of the
 * flattened reply (*@body: offset of COMPOUND4res, 0 if none), or NULL
 * when the record was dropped. Half the time the request starts on the
 * "event loop" (nowait): a deferred one continues as a worker would.
 */
static uint8_t *run_record(uint8_t *rec, size_t len, size_t *body,
			   size_t *reply_len)
{
	static uint8_t arena[ARENA_SIZE];
	static unsigned int turn;
	enum req_verdict v;
	struct request r;
	uint8_t *flat = NULL;
	struct req rq;

	request_parse(&r, rec, len);
	request_peek_slot(&r);
	req_prepare(&rq, arena, rec, len);
	rq.nowait = ++turn % 2 == 0 && rpc_record_inline(NULL, rec, len);
	v = rpc_process(&rq);
	if (v == REQ_DEFER) {
		FUZZ_CHECK(rq.nowait);
		rq.nowait = false;
		v = rpc_process(&rq);
	}
	FUZZ_CHECK(v != REQ_DEFER);
	/*
	 * The handler left the thread with the caller's fsuid; a failed
	 * check below makes libFuzzer write the input from this thread, which
	 * needs root's.
	 */
	FUZZ_CHECK(vfs_cred_set(&root_cred) == 0);
	if (v == REQ_REPLY) {
		*body = check_reply(&r, &rq, &flat);
		*reply_len = req_reply_len(&rq);
	} else {
		/* Only a broken CALL header is dropped without a word. */
		FUZZ_CHECK(len < 12 || r.mtype != CALL ||
			   (r.rpcvers == RPC_VERSION && len < 24));
	}
	req_finish(&rq);
	return flat;
}

/* ---- the harness's own COMPOUNDs (set-up) ---- */

struct wbuf {
	uint8_t b[SETUP_BUF];
	size_t n;
	uint32_t nops;
	size_t nops_pos;
};

static void w32(struct wbuf *w, uint32_t v)
{
	if (w->n + 4 > sizeof(w->b))
		die("set-up request", E2BIG);
	fuzz_put_be32(w->b + w->n, v);
	w->n += 4;
}

static void w64(struct wbuf *w, uint64_t v)
{
	w32(w, (uint32_t)(v >> 32));
	w32(w, (uint32_t)v);
}

static void wfixed(struct wbuf *w, const void *p, size_t n)
{
	size_t pad = (4 - (n & 3)) & 3;

	if (w->n + n + pad > sizeof(w->b))
		die("set-up request", E2BIG);
	memcpy(w->b + w->n, p, n);
	memset(w->b + w->n + n, 0, pad);
	w->n += n + pad;
}

static void wopaque(struct wbuf *w, const void *p, size_t n)
{
	w32(w, (uint32_t)n);
	wfixed(w, p, n);
}

static void wstr(struct wbuf *w, const char *s)
{
	wopaque(w, s, strlen(s));
}

static void wop(struct wbuf *w, uint32_t op)
{
	w32(w, op);
	w->nops++;
}

/* RPC CALL of COMPOUND, AUTH_SYS 1000:1000 as the seeds use, tag "setup". */
static void compound_begin(struct wbuf *w, uint32_t minor)
{
	static uint32_t xid = 0x5e700000;
	struct wbuf cred = {.n = 0};

	w->n = 0;
	w->nops = 0;
	w32(w, ++xid);
	w32(w, CALL);
	w32(w, RPC_VERSION);
	w32(w, NFS_PROGRAM);
	w32(w, NFS_V4);
	w32(w, 1);
	w32(&cred, 0x5eed);
	wstr(&cred, "fuzzhost");
	w32(&cred, 1000);
	w32(&cred, 1000);
	w32(&cred, 2);
	w32(&cred, 1000);
	w32(&cred, 100);
	w32(w, AUTH_SYS);
	wopaque(w, cred.b, cred.n);
	w32(w, AUTH_NONE);
	w32(w, 0);
	wstr(w, "setup");
	w32(w, minor);
	w->nops_pos = w->n;
	w32(w, 0);
}

static void wsequence(struct wbuf *w, unsigned int sess, uint32_t slot)
{
	wop(w, OP_SEQUENCE);
	wfixed(w, sessionid[sess], NFS4_SESSIONID_SIZE);
	w32(w, slot_next_seqid(sessionid[sess], slot));
	w32(w, slot);
	w32(w, slot);
	w32(w, 0);
}

static void wputfh(struct wbuf *w, const struct blob *fh)
{
	wop(w, OP_PUTFH);
	wopaque(w, fh->data, fh->len);
}

/* Reply of the set-up compound in @w, positioned at result @k's body. */
struct setup_reply {
	uint8_t *flat;
	struct xdr_buf x;
};

static void setup_run(struct wbuf *w, struct setup_reply *sr, uint32_t k,
		      const char *what)
{
	uint32_t status, nres, i, op, st;
	size_t body = 0, rlen = 0;
	struct xdr_buf x;

	fuzz_put_be32(w->b + w->nops_pos, w->nops);
	sr->flat = run_record(w->b, w->n, &body, &rlen);
	if (!sr->flat || !body)
		die(what, EPROTO);
	xdr_init(&x, sr->flat, rlen);
	x.pos = body;
	if (!xdr_dec_u32(&x, &status) || !skip_opaque(&x, NFS4_TAG_MAX) ||
	    !xdr_dec_u32(&x, &nres))
		die(what, EPROTO);
	if (status != NFS4_OK) {
		fprintf(stderr, "fuzz_nfs4: set-up %s: nfsstat4 %u\n", what,
			status);
		exit(1);
	}
	for (i = 0; i < k; i++)
		if (!xdr_dec_u32(&x, &op) || !xdr_dec_u32(&x, &st) ||
		    !skip_result(op, st, &x))
			die(what, EPROTO);
	if (!xdr_dec_u32(&x, &op) || !xdr_dec_u32(&x, &st))
		die(what, EPROTO);
	sr->x = x;
}

static void setup_done(struct setup_reply *sr)
{
	free(sr->flat);
	sr->flat = NULL;
}

static void read_fixed(struct setup_reply *sr, void *dst, size_t n,
		       const char *what)
{
	if (!xdr_dec_opaque_fixed(&sr->x, dst, n))
		die(what, EPROTO);
}

static void wexchange_id(struct wbuf *w, const char *owner)
{
	wop(w, OP_EXCHANGE_ID);
	wfixed(w, "fuzzverf", 8);
	wstr(w, owner);
	w32(w, 0);  /* eia_flags */
	w32(w, SP4_NONE);
	w32(w, 0);  /* no impl id */
}

static void wchannel(struct wbuf *w, uint32_t maxresp, uint32_t cached,
		     uint32_t slots)
{
	w32(w, 0);
	w32(w, 1 << 20);
	w32(w, maxresp);
	w32(w, cached);
	w32(w, MAX_OPS);
	w32(w, slots);
	w32(w, 0);
}

/* EXCHANGE_ID for @owner: clientid into @cid, eir_sequenceid returned. */
static uint32_t setup_exchange_id(const char *owner, uint8_t *cid)
{
	struct setup_reply sr;
	struct wbuf *w = calloc(1, sizeof(*w));
	uint32_t seq;

	if (!w)
		die("set-up", ENOMEM);
	compound_begin(w, 1);
	wexchange_id(w, owner);
	setup_run(w, &sr, 0, "EXCHANGE_ID");
	read_fixed(&sr, cid, 8, "EXCHANGE_ID");
	if (!xdr_dec_u32(&sr.x, &seq))
		die("EXCHANGE_ID", EPROTO);
	setup_done(&sr);
	free(w);
	return seq;
}

static void setup_create_session(const uint8_t *cid, uint32_t seq,
				 uint32_t maxresp, uint32_t slots,
				 uint8_t *out)
{
	struct setup_reply sr;
	struct wbuf *w = calloc(1, sizeof(*w));

	if (!w)
		die("set-up", ENOMEM);
	compound_begin(w, 1);
	wop(w, OP_CREATE_SESSION);
	wfixed(w, cid, 8);
	w32(w, seq);
	w32(w, 0);
	wchannel(w, maxresp, maxresp < 65536 ? maxresp : 65536, slots);
	wchannel(w, 4096, 0, 1);
	w32(w, 0x40000000);
	w32(w, 1);
	w32(w, AUTH_NONE);
	setup_run(w, &sr, 0, "CREATE_SESSION");
	read_fixed(&sr, out, NFS4_SESSIONID_SIZE, "CREATE_SESSION");
	setup_done(&sr);
	free(w);
}

static void wsetclientid(struct wbuf *w, const char *id)
{
	wop(w, OP_SETCLIENTID);
	wfixed(w, "fuzzv40x", 8);
	wstr(w, id);
	w32(w, 0x40000000);
	wstr(w, "tcp");
	wstr(w, "127.0.0.1.0.1"); /* port 1: the probe fails at once */
	w32(w, 1);
}

static void setup_client40(unsigned int idx, const char *id, bool confirm)
{
	struct setup_reply sr;
	struct wbuf *w = calloc(1, sizeof(*w));

	if (!w)
		die("set-up", ENOMEM);
	compound_begin(w, 0);
	wsetclientid(w, id);
	setup_run(w, &sr, 0, "SETCLIENTID");
	read_fixed(&sr, clientid[idx], 8, "SETCLIENTID");
	read_fixed(&sr, confirm_verf[idx], 8, "SETCLIENTID");
	setup_done(&sr);
	if (confirm) {
		compound_begin(w, 0);
		wop(w, OP_SETCLIENTID_CONFIRM);
		wfixed(w, clientid[idx], 8);
		wfixed(w, confirm_verf[idx], 8);
		setup_run(w, &sr, 0, "SETCLIENTID_CONFIRM");
		setup_done(&sr);
	}
	free(w);
}

/* OPEN4args of an existing file, CLAIM_NULL, share both / deny none. */
static void wopen(struct wbuf *w, uint32_t seqid, const uint8_t *cid,
		  const char *owner, const char *name)
{
	wop(w, OP_OPEN);
	w32(w, seqid);
	w32(w, OPEN4_SHARE_ACCESS_BOTH);
	w32(w, OPEN4_SHARE_DENY_NONE);
	wfixed(w, cid, 8);
	wstr(w, owner);
	w32(w, OPEN4_NOCREATE);
	w32(w, CLAIM_NULL);
	wstr(w, name);
}

/* 4.1: an open of hello.txt (stateid 0) and a lock on it (stateid 1). */
static void setup_state41(void)
{
	struct setup_reply sr;
	struct wbuf *w = calloc(1, sizeof(*w));

	if (!w)
		die("set-up", ENOMEM);
	compound_begin(w, 1);
	wsequence(w, 0, 0);
	wop(w, OP_RECLAIM_COMPLETE);
	w32(w, 0);
	setup_run(w, &sr, 1, "RECLAIM_COMPLETE");
	setup_done(&sr);

	compound_begin(w, 1);
	wsequence(w, 0, 0);
	wputfh(w, &a_fh[0]);
	wopen(w, 0, clientid[0], "fuzz-open-owner41", "hello.txt");
	setup_run(w, &sr, 2, "OPEN (4.1)");
	read_fixed(&sr, stateid[0], 16, "OPEN (4.1)");
	setup_done(&sr);

	compound_begin(w, 1);
	wsequence(w, 0, 0);
	wputfh(w, &a_fh[1]);
	wop(w, OP_LOCK);
	w32(w, WRITE_LT);
	w32(w, 0);  /* reclaim */
	w64(w, 0);
	w64(w, 16);
	w32(w, 1);  /* new lock owner */
	w32(w, 0);
	wfixed(w, stateid[0], 16);
	w32(w, 0);
	wfixed(w, clientid[0], 8);
	wstr(w, "fuzz-lock-owner41");
	setup_run(w, &sr, 2, "LOCK (4.1)");
	read_fixed(&sr, stateid[1], 16, "LOCK (4.1)");
	setup_done(&sr);
	free(w);
}

/* 4.0: a confirmed open of sub/inner.txt (stateid 2). */
static void setup_state40(void)
{
	struct setup_reply sr;
	struct wbuf *w = calloc(1, sizeof(*w));
	uint32_t rflags;

	if (!w)
		die("set-up", ENOMEM);
	compound_begin(w, 0);
	wputfh(w, &a_fh[2]);
	wopen(w, 1, clientid[2], "fuzz-open-owner40", "inner.txt");
	setup_run(w, &sr, 1, "OPEN (4.0)");
	read_fixed(&sr, stateid[2], 16, "OPEN (4.0)");
	if (!skip(&sr.x, CINFO4) || !xdr_dec_u32(&sr.x, &rflags))
		die("OPEN (4.0)", EPROTO);
	setup_done(&sr);
	if (rflags & OPEN4_RESULT_CONFIRM) {
		compound_begin(w, 0);
		wputfh(w, &a_fh[3]);
		wop(w, OP_OPEN_CONFIRM);
		wfixed(w, stateid[2], 16);
		w32(w, 2);
		setup_run(w, &sr, 1, "OPEN_CONFIRM");
		read_fixed(&sr, stateid[2], 16, "OPEN_CONFIRM");
		setup_done(&sr);
	}
	free(w);
}

/* Pseudo-fs handles: "/" and "/r". */
static void setup_pseudo(void)
{
	struct setup_reply sr;
	struct wbuf *w = calloc(1, sizeof(*w));
	uint32_t n;
	int i;

	if (!w)
		die("set-up", ENOMEM);
	for (i = 0; i < NPSEUDO; i++) {
		compound_begin(w, 0);
		wop(w, OP_PUTROOTFH);
		if (i == 1) {
			wop(w, OP_LOOKUP);
			wstr(w, "r");
		}
		wop(w, OP_GETFH);
		setup_run(w, &sr, (uint32_t)i + 1, "GETFH");
		if (!xdr_dec_u32(&sr.x, &n) || n > NFS4_FHSIZE ||
		    !xdr_dec_opaque_fixed(&sr.x, pseudo_fh[i].data, n))
			die("GETFH", EPROTO);
		pseudo_fh[i].len = n;
		setup_done(&sr);
	}
	free(w);
}

/* Start NFSv4 and make the clients, sessions and stateids of the tokens. */
static void state_setup(void)
{
	uint32_t seq;
	int ret;

	nfs4_cfg.state_dir = state_dir;
	ret = nfs4_init(&nfs4_cfg);
	if (ret < 0)
		die("nfs4_init", -ret);
	/* after nfs4_init(), which attaches the transport's */
	nfs4_bc_set_ops(&fake_bc_ops);
	seq = setup_exchange_id("nasd-fuzz-41", clientid[0]);
	setup_create_session(clientid[0], seq, 1 << 20, 8, sessionid[0]);
	setup_create_session(clientid[0], seq + 1, 1024, 2, sessionid[1]);
	setup_exchange_id("nasd-fuzz-41-unconfirmed", clientid[1]);
	setup_client40(2, "nasd-fuzz-40", true);
	setup_client40(3, "nasd-fuzz-40-unconfirmed", false);
	setup_state41();
	setup_state40();
	setup_pseudo();
}

/* Parse, open and install the export table (BASE/exports). */
static void exports_load(void)
{
	struct export_table *t;
	char file[PATH_MAX], err[512];
	int ret;

	join(file, base, "exports");
	ret = export_parse_file(file, &t, err, sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "fuzz_nfs4: exports: %s\n", err);
		exit(1);
	}
	ret = export_table_open(t, err, sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "fuzz_nfs4: exports: %s\n", err);
		exit(1);
	}
	export_table_install(t);
}

static void exports_write(void)
{
	char file[PATH_MAX];
	FILE *f;

	join(file, base, "exports");
	f = fopen(file, "w");
	if (!f)
		die(file, errno);
	fprintf(f, "%s *(rw,fsid=1,pseudo=/a)\n", path_a);
	fprintf(f, "%s *(ro,fsid=2,pseudo=/r/o)\n", path_r);
	fprintf(f, "%s 10.0.0.0/8(rw,no_root_squash,fsid=3,pseudo=/b)\n",
		path_b);
	fclose(f);
}

/* Every RESET_EVERY inputs: boundaries held; state and export A afresh. */
static void periodic_reset(void)
{
	FUZZ_CHECK(vfs_cred_set(&root_cred) == 0);
	FUZZ_CHECK(tree_snapshot(path_r) == snap_r);
	FUZZ_CHECK(tree_snapshot(path_b) == snap_b);
	nfs4_shutdown();
	/*
	 * Without a table, every cached object (an open descriptor) of A
	 * is closed: the space of the files removed below comes back.
	 */
	export_table_install(NULL);
	tree_empty(state_dir);
	tree_empty(path_a);
	populate_a();
	exports_load();
	handles_compute();
	state_setup();
	last_reset = time(NULL);
}

/*
 * ALLOCATE, WRITE and SETATTR let the fuzzer ask for any amount of disk:
 * the exports live on a tmpfs of FS_LIMIT_MB in a mount namespace of this
 * process (gone with it, even after a crash), or, where that cannot be
 * made, every file is held under FS_LIMIT_MB by RLIMIT_FSIZE.
 */
#define FS_LIMIT_MB 256

static bool fs_private;

static void fs_limit(void)
{
	struct rlimit rl = {
		.rlim_cur = (rlim_t)FS_LIMIT_MB << 20,
		.rlim_max = (rlim_t)FS_LIMIT_MB << 20,
	};
	char opts[64];

	snprintf(opts, sizeof(opts), "size=%dm,mode=0755", FS_LIMIT_MB);
	if (unshare(CLONE_NEWNS) == 0 &&
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0 &&
	    mount("nasd-fuzz", base, "tmpfs", MS_NOSUID | MS_NODEV, opts) == 0) {
		fs_private = true;
		return;
	}
	fprintf(stderr, "fuzz_nfs4: no private tmpfs (%s): files limited to "
		"%d MiB each\n", strerror(errno), FS_LIMIT_MB);
	signal(SIGXFSZ, SIG_IGN);
	if (setrlimit(RLIMIT_FSIZE, &rl) < 0)
		die("RLIMIT_FSIZE", errno);
}

static void cleanup(void)
{
	nfs4_shutdown();
	vfs_cred_set(&root_cred);
	nftw(base, rm_visit, 16, FTW_DEPTH | FTW_PHYS);
	if (fs_private)
		umount2(base, MNT_DETACH);
	rmdir(base);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const uint8_t key[16] = "nasd-fuzz-key-04";
	const char *tmp = getenv("TMPDIR");
	int ret;

	(void)argc;
	(void)argv;
	if (!getenv("NASD_FUZZ_LOG"))
		log_level_max = -1;
	trace = getenv("NASD_FUZZ_TRACE") != NULL;
	strict = getenv("NASD_FUZZ_STRICT") != NULL;
	if (geteuid() != 0) {
		fprintf(stderr, "fuzz_nfs4: must run as root\n");
		exit(1);
	}
	snprintf(base, sizeof(base), "%s/nasd-fuzz-nfs4.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(base))
		die(base, errno);
	fs_limit();
	if (chmod(base, 0755) < 0)
		die(base, errno);
	atexit(cleanup);
	join(path_a, base, "a");
	join(path_r, base, "r");
	join(path_b, base, "b");
	join(state_dir, base, "state");
	if (mkdir(path_a, 0777) < 0 || mkdir(path_r, 0755) < 0 ||
	    mkdir(path_b, 0755) < 0 || mkdir(state_dir, 0700) < 0)
		die(base, errno);
	populate_a();
	write_file(path_r, "ro.txt", "read only\n", 0666);
	make_dir(path_r, "rodir", 0777);
	write_file(path_b, "secret.txt", "not for 127.0.0.1\n", 0666);

	exports_write();
	vfs_secret_set(key);
	exports_load();
	nfs_versions[0] = nfs3_version;
	nfs_versions[1] = nfs4_version;
	rpc_register_program(&nfs_program);

	handles_compute();
	for (ret = 0; ret < (int)NR; ret++)
		if (handle_of(export_of(path_r), r_paths[ret], &r_fh[ret]) < 0)
			die(r_paths[ret], ENOENT);
	if (handle_of(export_of(path_b), "", &fh_b) < 0)
		die(path_b, ENOENT);
	state_setup();
	snap_r = tree_snapshot(path_r);
	snap_b = tree_snapshot(path_b);
	last_reset = time(NULL);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *rec, *flat;
	size_t len, body, rlen;

	cb_answer();
	/* each input stands alone for the reply checks: an earlier input's
	 * 4.0 COMPOUND with the same xid and argument bytes would be a
	 * retransmission, answered from the reply cache (as it must) */
	drc_flush();
	len = tokens_expand(data, size, NULL);
	rec = malloc(len ? len : 1);
	FUZZ_CHECK(rec);
	FUZZ_CHECK(tokens_expand(data, size, rec) == len);
	flat = run_record(rec, len, &body, &rlen);
	free(flat);
	free(rec);
	if (++iterations % RESET_EVERY == 0 ||
	    time(NULL) - last_reset >= RESET_SECONDS)
		periodic_reset();
	return 0;
}
