// SPDX-License-Identifier: MIT
/*
 * Data path stress for the integration suite (test_datapath.sh): many
 * libnfs connections write one file at once, with unaligned offsets and
 * lengths, disjoint and overlapping ranges, UNSTABLE writes and COMMIT
 * (nfs_fsync), then the file is verified byte for byte through NFS READs
 * (including short reads at end of file) and on the server's disk.
 *
 * Every byte's expected value is a function of its offset and generation
 * (pattern()), so overlapping writes of the same generation agree, and a
 * lost update (a block read-modify-written under another writer) leaves
 * an older generation behind and is caught.
 *
 * usage: datapath_tool PORT EXPORT LOCAL_EXPORT_DIR FILE SIZE NCONN
 * Prints TAP-ish "ok"/"not ok" lines; exits 1 on any failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nfsc/libnfs.h>

#define MAX_CONN 32
#define PIECE_MAX (1u << 20)

static int port;
static const char *export;
static const char *file;
static uint64_t fsize;
static int nconn;
static int failures;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

static void check(int ok, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void check(int ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&out_lock);
	if (ok) {
		printf("ok - %s\n", name);
	} else {
		printf("not ok - %s: ", name);
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		printf("\n");
		failures++;
	}
	fflush(stdout);
	pthread_mutex_unlock(&out_lock);
}

static uint8_t pattern(uint64_t off, int gen)
{
	uint64_t x = off * 0x9e3779b97f4a7c15ull + (uint64_t)gen * 0x1234567;

	x ^= x >> 29;
	return (uint8_t)(x ^ (x >> 17));
}

static void fill(uint8_t *p, uint64_t off, size_t len, int gen)
{
	for (size_t i = 0; i < len; i++)
		p[i] = pattern(off + i, gen);
}

static struct nfs_context *connect_nfs(void)
{
	struct nfs_context *nfs = nfs_init_context();
	struct nfs_url *url;
	char u[4200];

	if (!nfs)
		return NULL;
	snprintf(u, sizeof(u), "nfs://127.0.0.1%s?nfsport=%d&mountport=%d",
		 export, port, port);
	url = nfs_parse_url_dir(nfs, u);
	if (!url || nfs_mount(nfs, url->server, url->path) != 0) {
		printf("# mount %s: %s\n", u, nfs_get_error(nfs));
		if (url)
			nfs_destroy_url(url);
		nfs_destroy_context(nfs);
		return NULL;
	}
	nfs_destroy_url(url);
	return nfs;
}

/* Write [off, off + len) of generation @gen in pieces of odd sizes. */
static int write_range(struct nfs_context *nfs, struct nfsfh *fh,
		       uint8_t *buf, uint64_t off, uint64_t len, int gen,
		       unsigned int *seed)
{
	while (len) {
		size_t n = (size_t)(rand_r(seed) % PIECE_MAX) + 1;
		int rc;

		if (n > len)
			n = (size_t)len;
		fill(buf, off, n, gen);
		rc = nfs_pwrite(nfs, fh, off, n, buf);
		if (rc != (int)n) {
			printf("# pwrite at %llu of %zu: %d %s\n",
			       (unsigned long long)off, n, rc,
			       nfs_get_error(nfs));
			return -1;
		}
		off += n;
		len -= n;
	}
	return 0;
}

struct worker {
	int idx;
	int errors;
};

/*
 * Generation 2 from every connection: connection i owns the i-th of
 * nconn stripes of odd sizes (together they cover the file), and also
 * rewrites random ranges anywhere with the same generation, overlapping
 * the other connections' stripes and blocks.
 */
static void *worker_run(void *arg)
{
	struct worker *w = arg;
	unsigned int seed = (unsigned int)w->idx * 7717u + 3;
	struct nfs_context *nfs = connect_nfs();
	struct nfsfh *fh = NULL;
	uint64_t stripe, a, b;
	uint8_t *buf;
	int k;

	buf = malloc(PIECE_MAX);
	if (!nfs || !buf || nfs_open(nfs, file, O_RDWR, &fh) != 0) {
		w->errors++;
		goto out;
	}
	/* Stripe boundaries are deliberately not block multiples. */
	stripe = fsize / (uint64_t)nconn + 1;
	a = stripe * (uint64_t)w->idx;
	b = a + stripe < fsize ? a + stripe : fsize;
	if (a < b && write_range(nfs, fh, buf, a, b - a, 2, &seed) < 0)
		w->errors++;
	for (k = 0; k < 8; k++) {
		uint64_t off = ((uint64_t)rand_r(&seed) << 16 ^
				(uint64_t)rand_r(&seed)) % fsize;
		uint64_t len = (uint64_t)(rand_r(&seed) % (3 * PIECE_MAX)) + 1;

		if (len > fsize - off)
			len = fsize - off;
		if (write_range(nfs, fh, buf, off, len, 2, &seed) < 0)
			w->errors++;
	}
	/* UNSTABLE data reaches the disk with COMMIT. */
	if (nfs_fsync(nfs, fh) != 0)
		w->errors++;
out:
	if (fh)
		nfs_close(nfs, fh);
	if (nfs)
		nfs_destroy_context(nfs);
	free(buf);
	return NULL;
}

static uint64_t first_bad(const uint8_t *p, uint64_t off, size_t n, int gen)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != pattern(off + i, gen))
			return off + i;
	return UINT64_MAX;
}

static void verify_nfs(void)
{
	struct nfs_context *nfs = connect_nfs();
	struct nfsfh *fh = NULL;
	uint8_t *buf = malloc(PIECE_MAX + 8192);
	unsigned int seed = 99;
	uint64_t off = 0, bad = UINT64_MAX;
	int rc;

	if (!nfs || !buf || nfs_open(nfs, file, O_RDONLY, &fh) != 0) {
		check(0, "verify_open", "%s", nfs ? nfs_get_error(nfs) : "");
		goto out;
	}
	while (off < fsize && bad == UINT64_MAX) {
		size_t n = (size_t)(rand_r(&seed) % PIECE_MAX) + 1;

		rc = nfs_pread(nfs, fh, off, n, buf);
		if (rc <= 0) {
			check(0, "verify_nfs_read", "pread at %llu: %d %s",
			      (unsigned long long)off, rc, nfs_get_error(nfs));
			goto out;
		}
		bad = first_bad(buf, off, (size_t)rc, 2);
		off += (uint64_t)rc;
	}
	check(bad == UINT64_MAX, "verify_nfs_bytes", "byte %llu differs",
	      (unsigned long long)bad);
	/* Short read across end of file, empty read beyond it. */
	rc = nfs_pread(nfs, fh, fsize - 1000, 8192, buf);
	check(rc == 1000 && first_bad(buf, fsize - 1000, 1000, 2) ==
				    UINT64_MAX,
	      "short_read_at_eof", "got %d", rc);
	rc = nfs_pread(nfs, fh, fsize + 5000, 100, buf);
	check(rc == 0, "read_beyond_eof", "got %d", rc);
out:
	if (fh)
		nfs_close(nfs, fh);
	if (nfs)
		nfs_destroy_context(nfs);
	free(buf);
}

/* Read with O_DIRECT, so that the check itself fills no page cache. */
static void verify_disk(const char *local)
{
	uint8_t *buf = aligned_alloc(4096, PIECE_MAX);
	uint64_t off = 0, bad = UINT64_MAX;
	struct stat st;
	ssize_t n;
	int fd;

	fd = open(local, O_RDONLY | O_DIRECT);
	if (fd < 0 || !buf || fstat(fd, &st) < 0) {
		check(0, "verify_disk_open", "%s: %s", local, strerror(errno));
		goto out;
	}
	check((uint64_t)st.st_size == fsize, "disk_size",
	      "size %lld, want %llu", (long long)st.st_size,
	      (unsigned long long)fsize);
	while (off < fsize && bad == UINT64_MAX) {
		n = pread(fd, buf, PIECE_MAX, (off_t)off);
		if (n <= 0)
			break;
		bad = first_bad(buf, off, (size_t)n, 2);
		off += (uint64_t)n;
	}
	check(bad == UINT64_MAX && off == fsize, "verify_disk_bytes",
	      "byte %llu differs (read %llu)", (unsigned long long)bad,
	      (unsigned long long)off);
out:
	if (fd >= 0)
		close(fd);
	free(buf);
}

int main(int argc, char **argv)
{
	struct worker w[MAX_CONN];
	pthread_t th[MAX_CONN];
	struct nfs_context *nfs;
	struct nfsfh *fh = NULL;
	char local[4200];
	unsigned int seed = 1;
	uint8_t *buf;
	int i, errors = 0;

	if (argc != 7) {
		fprintf(stderr, "usage: %s PORT EXPORT LOCAL_DIR FILE SIZE "
				"NCONN\n", argv[0]);
		return 2;
	}
	port = atoi(argv[1]);
	export = argv[2];
	file = argv[4];
	fsize = strtoull(argv[5], NULL, 0);
	nconn = atoi(argv[6]);
	if (nconn < 1 || nconn > MAX_CONN || fsize < 10000) {
		fprintf(stderr, "bad NCONN or SIZE\n");
		return 2;
	}
	snprintf(local, sizeof(local), "%s%s", argv[3], file);

	/* Generation 1, sequentially from one connection (holes first:
	 * written back to front so every write extends past EOF). */
	nfs = connect_nfs();
	buf = malloc(PIECE_MAX);
	if (!nfs || !buf ||
	    nfs_create(nfs, file, O_CREAT | O_TRUNC | O_RDWR, 0644, &fh) != 0) {
		check(0, "create", "%s", nfs ? nfs_get_error(nfs) : "no mount");
		return 1;
	}
	for (uint64_t end = fsize; end > 0;) {
		uint64_t len = end > 3 * PIECE_MAX + 777 ? 3 * PIECE_MAX + 777
							 : end;

		if (write_range(nfs, fh, buf, end - len, len, 1, &seed) < 0) {
			errors++;
			break;
		}
		end -= len;
	}
	check(!errors && nfs_fsync(nfs, fh) == 0, "gen1_written", "errors");
	nfs_close(nfs, fh);
	nfs_destroy_context(nfs);
	free(buf);

	for (i = 0; i < nconn; i++) {
		w[i] = (struct worker){.idx = i};
		if (pthread_create(&th[i], NULL, worker_run, &w[i]) != 0)
			return 1;
	}
	for (i = 0; i < nconn; i++) {
		pthread_join(th[i], NULL);
		errors += w[i].errors;
	}
	check(errors == 0, "gen2_written_concurrently", "%d errors", errors);
	verify_nfs();
	verify_disk(local);
	return failures ? 1 : 0;
}
