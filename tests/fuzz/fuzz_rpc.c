/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: one RPC record through rpc_process() with the
 * real NFSv3 and MOUNT programs registered, over a temporary directory
 * export, so the whole path runs: call header, credentials, dispatch,
 * argument decoding, the handler against the local filesystem, and the
 * reply encoders.
 *
 * Set-up (once): BASE/a is export A, exported to every client, read-only
 * (fuzz_rpc) or read-write (fuzz_rpc_rw, built with -DFUZZ_RPC_RW); BASE/b
 * is export B, read-only and open only to 10.0.0.0/8 (the fuzzed calls
 * come from 127.0.0.1, so B must always refuse them). The handle MAC key
 * is fixed.
 *
 * Valid handles and paths cannot be written into a seed (they depend on
 * the inodes of this run), so the input names them with 12-byte tokens:
 * a 4-byte XDR length (any value) then FE 'N' 'S' 'D' KIND IDX x x. Each
 * token is replaced by a length-prefixed, padded opaque before dispatch:
 *   'F' IDX  handle of export A object IDX (see obj_paths[])
 *   'G'      handle of export B's root
 *   'S'      a stale handle (a file of A since removed)
 *   'X' IDX  a forged handle: hello.txt's with bit IDX flipped
 *   'P' IDX  a path: A's root, A/sub, B's root, A/hello.txt
 * tests/fuzz/gen_seeds.py writes seeds with them. NASD_FUZZ_TRACE=1 prints
 * each reply's accept_stat and status word (to check that seeds reach the
 * handlers); NASD_FUZZ_LOG=1 keeps nasd's own log.
 *
 * Checked for every input:
 *   - a reply is produced unless the record is not a well-formed CALL
 *     header, and it is a well-formed RPC reply: our xid, REPLY, valid
 *     reply_stat / accept_stat / reject_stat / auth_stat, nothing after a
 *     rejection or an error, a mismatch range for RPC and program
 *     versions, a valid nfsstat3 / mountstat3 first word in successful
 *     NFSv3 / MOUNT replies, a full fattr3 in a successful GETATTR;
 *   - a READ tail is readable for its whole length (ASan checks);
 *   - every 256 inputs: export B (and in fuzz_rpc, export A too) is
 *     unchanged; fuzz_rpc_rw then empties A and re-creates its files, so
 *     the fuzzer cannot fill the disk.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/log.h"
#include "export/export.h"
#include "fuzz.h"
#include "nfs3/nfs3.h"
#include "nfs3/nfs3_xdr.h"
#include "rpc/rpc.h"
#include "vfs/vfs.h"

#ifdef FUZZ_RPC_RW
#define EXPORT_A_OPTS "rw"
#else
#define EXPORT_A_OPTS "ro"
#endif

#define CHECK_EVERY 256
#define ARENA_SIZE  2048

/* Objects of export A whose handles 'F' tokens name (index = IDX % N). */
/* "" is the root; link is a symlink to hello.txt; fifo a named pipe. */
static const char *const obj_paths[] = {
	"",	   "hello.txt", "sub",	 "sub/inner.txt",
	"scratch", "link",	"empty", "fifo",
};
#define NOBJ (sizeof(obj_paths) / sizeof(obj_paths[0]))

#define TOKEN_LEN 12 /* length word + 8 token bytes */

struct blob {
	uint8_t data[VFS_PATH_MAX];
	size_t len;
};

static char base[PATH_MAX];
static char path_a[PATH_MAX];
static char path_b[PATH_MAX];
static struct blob obj_fh[NOBJ];
static struct blob fh_b, fh_stale, fh_forged;
static struct blob paths[4];
static uint64_t snap_a, snap_b;
static unsigned long iterations;
static bool trace; /* NASD_FUZZ_TRACE: one line per accepted reply */

static const struct vfs_cred root_cred = {0};

static void die(const char *what, int err)
{
	fprintf(stderr, "fuzz_rpc: set-up: %s: %s\n", what, strerror(err));
	exit(1);
}

static void write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	size_t len = strlen(text);

	if (fd < 0)
		die(path, errno);
	if (write(fd, text, len) != (ssize_t)len)
		die(path, errno);
	close(fd);
	if (chmod(path, mode) < 0)
		die(path, errno);
}

static void join(char *out, const char *dir, const char *name)
{
	int n = snprintf(out, PATH_MAX, "%s/%s", dir, name);

	if (n < 0 || n >= PATH_MAX)
		die(name, ENAMETOOLONG);
}

/* Export A's files. Everyone may create in A and scratch/ (rw target). */
static void populate_a(void)
{
	char p[PATH_MAX];

	if (chmod(path_a, 0777) < 0)
		die(path_a, errno);
	join(p, path_a, "hello.txt");
	write_file(p, "hello, nasd fuzzing\n", 0666);
	join(p, path_a, "empty");
	write_file(p, "", 0644);
	join(p, path_a, "sub");
	if (mkdir(p, 0755) < 0)
		die(p, errno);
	join(p, path_a, "sub/inner.txt");
	write_file(p, "inner\n", 0644);
	join(p, path_a, "scratch");
	if (mkdir(p, 0777) < 0 || chmod(p, 0777) < 0)
		die(p, errno);
	join(p, path_a, "link");
	if (symlink("hello.txt", p) < 0)
		die(p, errno);
	join(p, path_a, "fifo");
	if (mkfifo(p, 0666) < 0)
		die(p, errno);
}

/* The export that serves @path, from the live table. */
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
	ret = vfs_obj_fh(o, b->data, NFS3_FHSIZE);
	vfs_obj_put(o);
	if (ret < 0)
		return ret;
	b->len = (size_t)ret;
	return 0;
}

/* Handles of A's objects (after every re-population: new inodes). */
static void handles_compute(void)
{
	struct vfs_export *vex = export_of(path_a);
	char p[PATH_MAX];
	unsigned int i;
	int ret;

	for (i = 0; i < NOBJ; i++) {
		ret = handle_of(vex, obj_paths[i], &obj_fh[i]);
		if (ret < 0)
			die(obj_paths[i], -ret);
	}
	join(p, path_a, "gone");
	write_file(p, "", 0644);
	ret = handle_of(vex, "gone", &fh_stale);
	if (ret < 0)
		die("gone", -ret);
	if (unlink(p) < 0)
		die(p, errno);
	fh_forged = obj_fh[1];
}

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
	/* FNV-1a over the path and the metadata a change would touch. */
	for (p = path; *p; p++)
		snap_hash = (snap_hash ^ (uint8_t)*p) * 0x100000001b3ull;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		snap_hash = (snap_hash ^ v[i]) * 0x100000001b3ull;
	return 0;
}

/* A digest of the tree under @dir: names, types, modes, sizes, times. */
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
	if (ftw->level == 0)
		return 0;
	if (remove(path) < 0 && errno != ENOENT)
		die(path, errno);
	(void)flag;
	return 0;
}

/* Every 256 inputs: the boundaries held; the rw export starts afresh. */
static void periodic_check(void)
{
	int ret;

	ret = vfs_cred_set(&root_cred);
	if (ret < 0)
		die("vfs_cred_set", -ret);
	FUZZ_CHECK(tree_snapshot(path_b) == snap_b);
#ifdef FUZZ_RPC_RW
	if (nftw(path_a, rm_visit, 16, FTW_DEPTH | FTW_PHYS) < 0)
		die(path_a, errno);
	populate_a();
	handles_compute();
#else
	FUZZ_CHECK(tree_snapshot(path_a) == snap_a);
	(void)rm_visit;
#endif
}

static void cleanup(void)
{
	vfs_cred_set(&root_cred);
	nftw(base, rm_visit, 16, FTW_DEPTH | FTW_PHYS);
	rmdir(base);
}

static void blob_set(struct blob *b, const char *s)
{
	b->len = strlen(s);
	if (b->len > sizeof(b->data))
		die(s, ENAMETOOLONG);
	memcpy(b->data, s, b->len);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const uint8_t key[16] = "nasd-fuzz-key-01";
	struct export_table *t;
	const char *tmp = getenv("TMPDIR");
	char file[PATH_MAX], err[512], p[PATH_MAX];
	FILE *f;
	int ret;

	(void)argc;
	(void)argv;
	if (!getenv("NASD_FUZZ_LOG"))
		log_level_max = -1;
	trace = getenv("NASD_FUZZ_TRACE") != NULL;
	if (geteuid() != 0) {
		/* Handles need open_by_handle_at (CAP_DAC_READ_SEARCH). */
		fprintf(stderr, "fuzz_rpc: must run as root\n");
		exit(1);
	}
	snprintf(base, sizeof(base), "%s/nasd-fuzz-rpc.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(base))
		die(base, errno);
	if (chmod(base, 0755) < 0)
		die(base, errno);
	atexit(cleanup);
	join(path_a, base, "a");
	join(path_b, base, "b");
	if (mkdir(path_a, 0777) < 0 || mkdir(path_b, 0755) < 0)
		die(base, errno);
	populate_a();
	join(p, path_b, "secret.txt");
	write_file(p, "not for 127.0.0.1\n", 0644);

	join(file, base, "exports");
	f = fopen(file, "w");
	if (!f)
		die(file, errno);
	fprintf(f, "%s *(" EXPORT_A_OPTS ",fsid=1)\n", path_a);
	fprintf(f, "%s 10.0.0.0/8(rw,no_root_squash,fsid=2)\n", path_b);
	fclose(f);
	vfs_secret_set(key);
	ret = export_parse_file(file, &t, err, sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "fuzz_rpc: exports: %s\n", err);
		exit(1);
	}
	ret = export_table_open(t, err, sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "fuzz_rpc: exports: %s\n", err);
		exit(1);
	}
	export_table_install(t);
	rpc_register_program(&nfs3_program);
	rpc_register_program(&mount3_program);

	handles_compute();
	ret = handle_of(export_of(path_b), "", &fh_b);
	if (ret < 0)
		die(path_b, -ret);
	blob_set(&paths[0], path_a);
	join(p, path_a, "sub");
	blob_set(&paths[1], p);
	blob_set(&paths[2], path_b);
	join(p, path_a, "hello.txt");
	blob_set(&paths[3], p);
	snap_a = tree_snapshot(path_a);
	snap_b = tree_snapshot(path_b);
	return 0;
}

/* The value a token stands for, or NULL (then it is left as it is). */
static const struct blob *token_value(const uint8_t *t, struct blob *tmp)
{
	static const uint8_t magic[4] = {0xfe, 'N', 'S', 'D'};
	size_t bit;

	if (memcmp(t, magic, sizeof(magic)) != 0)
		return NULL;
	switch (t[4]) {
	case 'F':
		return &obj_fh[t[5] % NOBJ];
	case 'G':
		return &fh_b;
	case 'S':
		return &fh_stale;
	case 'X':
		*tmp = fh_forged;
		bit = t[5] % (tmp->len * 8);
		tmp->data[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		return tmp;
	case 'P':
		return &paths[t[5] % 4];
	default:
		return NULL;
	}
}

/*
 * Replace the tokens of @in; writes to @out when not NULL. Returns the
 * length of the result (call once to size the buffer, once to fill it).
 */
static size_t tokens_expand(const uint8_t *in, size_t len, uint8_t *out)
{
	const struct blob *v;
	struct blob tmp;
	size_t i = 0, o = 0, pad;

	while (i < len) {
		v = NULL;
		if (len - i >= TOKEN_LEN)
			v = token_value(in + i + 4, &tmp);
		if (!v) {
			if (out)
				out[o] = in[i];
			o++;
			i++;
			continue;
		}
		pad = (4 - (v->len & 3)) & 3;
		if (out) {
			fuzz_put_be32(out + o, (uint32_t)v->len);
			memcpy(out + o + 4, v->data, v->len);
			memset(out + o + 4 + v->len, 0, pad);
		}
		o += 4 + v->len + pad;
		i += TOKEN_LEN;
	}
	return o;
}

/* RFC 1813 §2.6 nfsstat3, and Appendix I mountstat3. */
static const uint32_t nfsstat3_all[] = {
	NFS3_OK,	   NFS3ERR_PERM,	NFS3ERR_NOENT,
	NFS3ERR_IO,	   NFS3ERR_NXIO,	NFS3ERR_ACCES,
	NFS3ERR_EXIST,	   NFS3ERR_XDEV,	NFS3ERR_NODEV,
	NFS3ERR_NOTDIR,	   NFS3ERR_ISDIR,	NFS3ERR_INVAL,
	NFS3ERR_FBIG,	   NFS3ERR_NOSPC,	NFS3ERR_ROFS,
	NFS3ERR_MLINK,	   NFS3ERR_NAMETOOLONG, NFS3ERR_NOTEMPTY,
	NFS3ERR_DQUOT,	   NFS3ERR_STALE,	NFS3ERR_REMOTE,
	NFS3ERR_BADHANDLE, NFS3ERR_NOT_SYNC,	NFS3ERR_BAD_COOKIE,
	NFS3ERR_NOTSUPP,   NFS3ERR_TOOSMALL,	NFS3ERR_SERVERFAULT,
	NFS3ERR_BADTYPE,   NFS3ERR_JUKEBOX,
};
static const uint32_t mountstat3_all[] = {
	0, 1, 2, 5, 13, 20, 22, 63, 10004, 10006,
};

static bool in_set(uint32_t v, const uint32_t *set, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (set[i] == v)
			return true;
	return false;
}

#define IN_SET(v, set) in_set(v, set, sizeof(set) / sizeof(set[0]))

struct call_hdr {
	size_t len;
	uint32_t xid, mtype, rpcvers, prog, vers, proc;
};

/* Body of a SUCCESS reply of our programs. */
static void check_success_body(const struct call_hdr *h, struct xdr_buf *x)
{
	const uint8_t *fh;
	struct fattr3 fa;
	uint32_t status, fhlen, nflavors, flavor;

	FUZZ_CHECK(h->prog != NFS_PROGRAM || h->vers == NFS_V3);
	if (h->prog == NFS_PROGRAM && h->proc != NFSPROC3_NULL) {
		FUZZ_CHECK(xdr_dec_u32(x, &status));
		FUZZ_CHECK(IN_SET(status, nfsstat3_all));
		if (h->proc == NFSPROC3_GETATTR && status == NFS3_OK) {
			FUZZ_CHECK(nfs3_dec_fattr3(x, &fa));
			FUZZ_CHECK(xdr_remaining(x) == 0);
		}
		if (status != NFS3_OK && h->proc == NFSPROC3_GETATTR)
			FUZZ_CHECK(xdr_remaining(x) == 0);
	} else if (h->prog == NFS_PROGRAM || h->proc == 0) {
		FUZZ_CHECK(xdr_remaining(x) == 0); /* NULL: void */
	} else if (h->prog == MOUNT_PROGRAM && h->vers == 3 && h->proc == 1) {
		FUZZ_CHECK(xdr_dec_u32(x, &status));
		FUZZ_CHECK(IN_SET(status, mountstat3_all));
		if (status != 0) {
			FUZZ_CHECK(xdr_remaining(x) == 0);
			return;
		}
		/* mountres3_ok: fhandle3<FHSIZE3>, auth_flavors<> */
		FUZZ_CHECK(xdr_dec_opaque_ref(x, &fh, &fhlen, NFS3_FHSIZE));
		FUZZ_CHECK(fhlen > 0);
		FUZZ_CHECK(xdr_dec_u32(x, &nflavors) && nflavors > 0);
		while (nflavors--)
			FUZZ_CHECK(xdr_dec_u32(x, &flavor));
		FUZZ_CHECK(xdr_remaining(x) == 0);
	}
}

/*
 * The reply of request @r answers @h and is a well-formed RPC reply: its
 * header and body (copied out of the chain into @buf), then any payload.
 */
static void check_reply(const struct call_hdr *h, struct req *r)
{
	static uint8_t buf[1 << 17];
	const struct payload *pl = &r->reply.payload;
	struct xdr_buf x;
	uint32_t xid, mtype, stat, a, b, flavor, vlen;
	const uint8_t *verf;
	volatile uint8_t sink = 0;
	bool tail = pl->kind != PAYLOAD_NONE;
	size_t body = r->reply.head_len + req_reply_body_len(r);
	uint32_t i;

	FUZZ_CHECK(r->reply.nseg > 0);
	FUZZ_CHECK(body <= sizeof(buf));
	FUZZ_CHECK(req_reply_copy(r, 0, buf, body) == (ssize_t)body);
	xdr_init(&x, buf, body);
	FUZZ_CHECK(xdr_dec_u32(&x, &xid) && xid == h->xid);
	FUZZ_CHECK(xdr_dec_u32(&x, &mtype) && mtype == REPLY);
	FUZZ_CHECK(xdr_dec_u32(&x, &stat));
	if (tail) {
		/* Only a READ's data travels as a payload. */
		FUZZ_CHECK(h->prog == NFS_PROGRAM && h->proc == NFSPROC3_READ);
		FUZZ_CHECK(pl->len <= NFS3_IO_MAX);
		FUZZ_CHECK(r->reply.pad == ((4 - (pl->len & 3)) & 3));
		/* A file range reads back as a transport without sendfile
		 * would read it; then it is a buffer. */
		FUZZ_CHECK(payload_fill(&r->reply.payload) == 0);
		FUZZ_CHECK(pl->kind == PAYLOAD_BUF);
		for (i = 0; i < pl->len; i++)
			sink ^= pl->data[i];
	}
	(void)sink;
	if (stat == MSG_DENIED) {
		FUZZ_CHECK(!tail);
		FUZZ_CHECK(xdr_dec_u32(&x, &stat));
		if (stat == RPC_MISMATCH) {
			FUZZ_CHECK(h->rpcvers != RPC_VERSION);
			FUZZ_CHECK(xdr_dec_u32(&x, &a) && xdr_dec_u32(&x, &b));
			FUZZ_CHECK(a == RPC_VERSION && b == RPC_VERSION);
		} else {
			FUZZ_CHECK(stat == AUTH_ERROR);
			FUZZ_CHECK(xdr_dec_u32(&x, &a));
			FUZZ_CHECK(a >= AUTH_BADCRED && a <= AUTH_TOOWEAK);
		}
		FUZZ_CHECK(xdr_remaining(&x) == 0);
		return;
	}
	FUZZ_CHECK(stat == MSG_ACCEPTED);
	FUZZ_CHECK(h->rpcvers == RPC_VERSION);
	FUZZ_CHECK(xdr_dec_u32(&x, &flavor));
	FUZZ_CHECK(xdr_dec_opaque_ref(&x, &verf, &vlen, RPC_AUTH_MAX_BODY));
	FUZZ_CHECK(xdr_dec_u32(&x, &stat));
	if (trace)
		fprintf(stderr,
			"fuzz_rpc: prog %u vers %u proc %u: "
			"accept_stat %u, status %u\n",
			h->prog, h->vers, h->proc, stat,
			xdr_remaining(&x) >= 4 ? fuzz_be32(x.base + x.pos) : 0);
	switch (stat) {
	case SUCCESS:
		FUZZ_CHECK(h->prog == NFS_PROGRAM || h->prog == MOUNT_PROGRAM);
		check_success_body(h, &x);
		return;
	case PROG_MISMATCH:
		FUZZ_CHECK(xdr_dec_u32(&x, &a) && xdr_dec_u32(&x, &b));
		FUZZ_CHECK(a <= b && (h->vers < a || h->vers > b));
		break;
	case PROG_UNAVAIL:
		FUZZ_CHECK(h->prog != NFS_PROGRAM && h->prog != MOUNT_PROGRAM);
		break;
	case PROC_UNAVAIL:
	case GARBAGE_ARGS:
	case SYSTEM_ERR:
		break;
	default:
		FUZZ_CHECK(!"accept_stat out of range");
	}
	FUZZ_CHECK(!tail);
	FUZZ_CHECK(xdr_remaining(&x) == 0);
}

static void call_hdr_parse(struct call_hdr *h, const uint8_t *rec, size_t len)
{
	uint32_t *f[] = {&h->xid,  &h->mtype, &h->rpcvers,
			 &h->prog, &h->vers,  &h->proc};
	unsigned int i;

	memset(h, 0, sizeof(*h));
	h->len = len;
	for (i = 0; i < 6 && (i + 1) * 4 <= len; i++)
		*f[i] = fuzz_be32(rec + i * 4);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sockaddr_storage peer, local;
	struct sockaddr_in *sin;
	struct call_hdr h;
	struct req r;
	uint8_t *rec, *arena;
	size_t len;
	bool sent;

	len = tokens_expand(data, size, NULL);
	rec = malloc(len ? len : 1);
	arena = malloc(ARENA_SIZE);
	FUZZ_CHECK(rec && arena);
	tokens_expand(data, size, rec);
	call_hdr_parse(&h, rec, len);

	req_init(&r, arena, ARENA_SIZE);
	sin = (struct sockaddr_in *)&peer;
	sin->sin_family = AF_INET;
	sin->sin_port = htons(1000);
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	r.peer = &peer;
	r.peer_len = sizeof(*sin);
	r.peer_privileged = true;
	memcpy(&local, &peer, sizeof(*sin));
	((struct sockaddr_in *)&local)->sin_port = htons(2049);
	r.local = &local;
	r.local_len = sizeof(*sin);
	r.caps = REQ_CAP_FILE;
	r.msg = rec;
	r.msg_len = len;

	sent = rpc_process(&r) == REQ_REPLY;
	if (sent) {
		check_reply(&h, &r);
	} else {
		/* Only a broken CALL header is dropped without a word. */
		FUZZ_CHECK(len < 12 || h.mtype != CALL ||
			   (h.rpcvers == RPC_VERSION && len < 24));
	}
	req_finish(&r);
	free(arena);
	free(rec);
	/*
	 * The handler left the thread with the caller's fsuid; libFuzzer
	 * writes its corpus from this thread, as root.
	 */
	FUZZ_CHECK(vfs_cred_set(&root_cred) == 0);
	if (++iterations % CHECK_EVERY == 0)
		periodic_check();
	return 0;
}
