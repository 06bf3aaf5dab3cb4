// SPDX-License-Identifier: MIT
/*
 * Unit tests of the vfs data path modes (io=buffered|direct|auto):
 * unaligned heads and tails, writes past end of file leaving holes, short
 * reads at end of file, identical files from the three modes against an
 * in-memory model, concurrent writers sharing blocks, stable writes, and
 * the page cache staying empty in direct mode. Needs root (handles) and a
 * filesystem with O_DIRECT (TMPDIR, default /var/tmp); exits 77 otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/err.h"
#include "core/iobuf.h"
#include "vfs/vfs.h"

static char tmpdir[256];
static struct vfs_export *ex;
static struct vfs_obj *root;
static const struct vfs_cred cred_root = {.uid = 0, .gid = 0};

static int setup(void **state)
{
	const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/var/tmp";
	uint8_t key[16] = {9, 8, 7, 6, 5, 4, 3, 2, 1};

	snprintf(tmpdir, sizeof(tmpdir), "%s/nasd-dio-XXXXXX", base);
	if (mkdtemp(tmpdir) == NULL)
		return -1;
	vfs_secret_set(key);
	if (vfs_export_open(tmpdir, 77, &ex) < 0)
		return -1;
	if (vfs_cred_set(&cred_root) < 0)
		return -1;
	return vfs_obj_root(ex, &root);
}

static int teardown(void **state)
{
	char cmd[300];

	vfs_obj_put(root);
	vfs_export_close(ex);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static struct vfs_obj *mkfile(const char *name)
{
	struct vfs_sattr sa = {.set_mode = true, .mode = 0644};
	struct vfs_obj *o = NULL;

	assert_int_equal(vfs_create(root, name, strlen(name),
				    VFS_CREATE_UNCHECKED, &sa, NULL, &o),
			 0);
	return o;
}

/* The file's bytes as the kernel has them (read outside the vfs). */
static uint8_t *slurp(const char *name, size_t *len)
{
	char path[400];
	struct stat st;
	uint8_t *p;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	p = malloc((size_t)st.st_size + 1);
	assert_non_null(p);
	assert_int_equal(pread(fd, p, (size_t)st.st_size, 0), st.st_size);
	close(fd);
	*len = (size_t)st.st_size;
	return p;
}

static void fill(uint8_t *p, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (uint8_t)(seed >> 16);
	}
}

/* Aligned source buffer at @mis bytes past an IOBUF_ALIGN boundary. */
static uint8_t *src_at(uint8_t *base, size_t mis)
{
	return base + mis;
}

#define MODEL_MAX (3u << 20)

struct op {
	uint64_t off;
	size_t len;
	size_t mis;    /* misalignment of the source buffer */
	int stable;
};

/*
 * Writes that exercise every shape: inside one block, across two,
 * head+middle+tail, aligned, past end of file (holes), overwrites,
 * misaligned source buffers, and large ones (auto mode goes direct).
 */
static const struct op ops[] = {
	{100, 50, 0, 0},
	{4000, 200, 3, 0},          /* across a block boundary */
	{10000, 20000, 0, 1},       /* head, middle, tail */
	{65536, 131072, 0, 0},      /* aligned, large: direct in auto */
	{1048576 + 7, 300, 5, 2},   /* far past EOF: a hole before it */
	{8192, 4096, 0, 0},         /* one whole block */
	{12288, 100000, 100, 0},    /* aligned start, misaligned buffer */
	{196608, 262144, 0, 2},     /* aligned, large, FILE_SYNC */
	{2 * 1048576 + 4095, 2, 0, 0}, /* extends across a boundary */
	{1, 1, 0, 0},
	{500000, 70001, 0, 0},      /* large, unaligned length */
	{2 * 1048576 + 3000, 1, 0, 1},
};

static void run_model(enum vfs_io io, const char *name, uint8_t *model,
		      size_t *model_len)
{
	uint8_t *src = aligned_alloc(IOBUF_ALIGN, 512 * 1024);
	struct vfs_obj *o;
	struct vfs_attr a;
	size_t i;

	assert_non_null(src);
	vfs_export_set_io(ex, io);
	o = mkfile(name);
	*model_len = 0;
	memset(model, 0, MODEL_MAX);
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		const struct op *w = &ops[i];
		uint8_t *p = src_at(src, w->mis);

		fill(p, w->len, (uint32_t)i + 1);
		assert_int_equal(vfs_write(o, w->off, p, w->len,
					   (enum vfs_stable)w->stable),
				 (ssize_t)w->len);
		memcpy(model + w->off, p, w->len);
		if (w->off + w->len > *model_len)
			*model_len = w->off + w->len;
		assert_int_equal(vfs_getattr(o, &a), 0);
		assert_int_equal(a.size, *model_len);
	}
	vfs_obj_put(o);
	free(src);
}

/* The three modes write byte-identical files, equal to the model. */
static void test_modes_identical(void **state)
{
	static const enum vfs_io modes[] = {
		VFS_IO_DIRECT, VFS_IO_BUFFERED, VFS_IO_AUTO,
	};
	static const char *names[] = {"m-direct", "m-buffered", "m-auto"};
	uint8_t *model = malloc(MODEL_MAX), *got;
	size_t mlen, glen;

	assert_non_null(model);
	for (int m = 0; m < 3; m++) {
		run_model(modes[m], names[m], model, &mlen);
		got = slurp(names[m], &glen);
		assert_int_equal(glen, mlen);
		assert_memory_equal(got, model, mlen);
		free(got);
	}
	free(model);
	vfs_export_set_io(ex, VFS_IO_AUTO);
}

/* Reads in every mode: slices, short reads at EOF, eof flags. */
static void test_reads_eof(void **state)
{
	static const enum vfs_io modes[] = {
		VFS_IO_DIRECT, VFS_IO_BUFFERED, VFS_IO_AUTO,
	};
	static const struct {
		uint64_t off;
		size_t len;
		ssize_t want;
		bool eof;
	} rd[] = {
		{0, 4096, 4096, false},
		{1, 10, 10, false},
		{4090, 20, 20, false},
		{8000, 5000, 2000, true},     /* short at EOF */
		{0, 10000, 10000, true},      /* ends exactly at EOF */
		{9999, 1, 1, true},
		{10000, 100, 0, true},
		{20000, 100, 0, true},
		{0, 200000, 10000, true},     /* large: direct in auto */
		{4096, 131072, 10000 - 4096, true},
	};
	uint8_t data[10000], buf[200000];
	struct vfs_read_res res;
	struct vfs_obj *o;
	bool eof;
	ssize_t n;

	fill(data, sizeof(data), 99);
	vfs_export_set_io(ex, VFS_IO_BUFFERED);
	o = mkfile("reads");
	assert_int_equal(vfs_write(o, 0, data, sizeof(data), VFS_UNSTABLE),
			 (ssize_t)sizeof(data));
	for (int m = 0; m < 3; m++) {
		vfs_export_set_io(ex, modes[m]);
		for (size_t i = 0; i < sizeof(rd) / sizeof(rd[0]); i++) {
			n = vfs_read(o, rd[i].off, buf, rd[i].len, &eof);
			assert_int_equal(n, rd[i].want);
			assert_int_equal(eof, rd[i].eof);
			if (n > 0)
				assert_memory_equal(buf, data + rd[i].off,
						    (size_t)n);
			n = vfs_read_payload(o, rd[i].off, rd[i].len, 0, &res);
			assert_int_equal(n, rd[i].want);
			assert_int_equal(res.eof, rd[i].eof);
			assert_int_equal(res.attr.size, sizeof(data));
			if (n > 0) {
				assert_int_equal(res.data.kind, PAYLOAD_BUF);
				assert_int_equal(res.data.len, n);
				assert_memory_equal(res.data.data,
						    data + rd[i].off,
						    (size_t)n);
				/* Aligned offsets give aligned data. */
				if (rd[i].off % 4096 == 0)
					assert_int_equal(
						(uintptr_t)res.data.data % 4096,
						0);
			} else {
				assert_int_equal(res.data.kind, PAYLOAD_NONE);
			}
			payload_release(&res.data);
		}
	}
	vfs_obj_put(o);
	vfs_export_set_io(ex, VFS_IO_AUTO);
}

/* Direct writes past EOF leave holes and set the size exactly. */
static void test_direct_holes_size(void **state)
{
	struct vfs_obj *o;
	struct vfs_attr a;
	uint8_t buf[8192];
	size_t len;
	uint8_t *got;
	bool eof;

	vfs_export_set_io(ex, VFS_IO_DIRECT);
	o = mkfile("holes");
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(vfs_write(o, 5000, buf, 100, VFS_UNSTABLE), 100);
	assert_int_equal(vfs_getattr(o, &a), 0);
	assert_int_equal(a.size, 5100);
	/* Inside the file: the size does not change. */
	assert_int_equal(vfs_write(o, 0, buf, 10, VFS_DATA_SYNC), 10);
	assert_int_equal(vfs_getattr(o, &a), 0);
	assert_int_equal(a.size, 5100);
	/* A far hole, then a tail in the middle of a block. */
	assert_int_equal(vfs_write(o, 1 << 20, buf, 8192, VFS_FILE_SYNC),
			 8192);
	assert_int_equal(vfs_write(o, (1 << 20) + 8192, buf, 1, VFS_UNSTABLE),
			 1);
	assert_int_equal(vfs_getattr(o, &a), 0);
	assert_int_equal(a.size, (1 << 20) + 8193);
	assert_int_equal(vfs_read(o, 900000, buf, 100, &eof), 100);
	for (int i = 0; i < 100; i++)
		assert_int_equal(buf[i], 0);
	assert_false(eof);
	got = slurp("holes", &len);
	assert_int_equal(len, (1 << 20) + 8193);
	for (size_t i = 0; i < len; i++) {
		uint8_t want = (i < 10 || (i >= 5000 && i < 5100) ||
				i >= (1 << 20)) ? 'x' : 0;

		if (got[i] != want)
			fail_msg("byte %zu is %d, want %d", i, got[i], want);
	}
	free(got);
	assert_int_equal(vfs_commit(o, 0, 0), 0);
	vfs_obj_put(o);
	vfs_export_set_io(ex, VFS_IO_AUTO);
}

/* Pages of the file in the page cache (mincore over a mapping). */
static size_t resident_pages(const char *name, size_t *total)
{
	char path[400];
	unsigned char *vec;
	struct stat st;
	size_t pages, n = 0;
	void *map;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	pages = ((size_t)st.st_size + 4095) / 4096;
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	assert_true(map != MAP_FAILED);
	vec = malloc(pages);
	assert_non_null(vec);
	assert_int_equal(mincore(map, (size_t)st.st_size, vec), 0);
	for (size_t i = 0; i < pages; i++)
		n += vec[i] & 1;
	free(vec);
	munmap(map, (size_t)st.st_size);
	close(fd);
	*total = pages;
	return n;
}

/* Direct mode: 32 MiB written and read leave (almost) nothing cached. */
static void test_direct_no_page_cache(void **state)
{
	const size_t chunk = 1 << 20;
	uint8_t *buf = aligned_alloc(4096, chunk);
	struct vfs_read_res rd;
	struct vfs_obj *o;
	size_t total, res;

	assert_non_null(buf);
	fill(buf, chunk, 7);
	vfs_export_set_io(ex, VFS_IO_DIRECT);
	o = mkfile("nocache");
	for (int i = 0; i < 32; i++)
		/* Odd offsets: every request has a head and a tail. */
		assert_int_equal(vfs_write(o, (uint64_t)i * chunk + 1, buf,
					   chunk, VFS_UNSTABLE),
				 (ssize_t)chunk);
	for (int i = 0; i < 32; i++) {
		assert_int_equal(vfs_read_payload(o, (uint64_t)i * chunk + 1,
						  chunk, VFS_READ_FILE_OK, &rd),
				 (ssize_t)chunk);
		/* io=direct never hands out the page cache. */
		assert_int_equal(rd.data.kind, PAYLOAD_BUF);
		assert_memory_equal(rd.data.data, buf, chunk);
		payload_release(&rd.data);
	}
	res = resident_pages("nocache", &total);
	/* Buffered I/O would leave all 8193 pages resident. */
	assert_true(total > 8000);
	assert_true(res < total / 100);
	vfs_obj_put(o);
	free(buf);
	vfs_export_set_io(ex, VFS_IO_AUTO);
}

/*
 * io=auto: a large aligned read goes direct unless the page cache already
 * holds all of it (then it is served from there: no disk I/O, no new
 * pages), and the data is the same either way.
 */
static void test_auto_reads_cached_data(void **state)
{
	const size_t chunk = 1 << 20;
	uint8_t *buf = aligned_alloc(4096, chunk), *copy;
	struct vfs_read_res rd;
	struct vfs_obj *o;
	size_t res, total;
	char path[400];
	int fd;

	assert_non_null(buf);
	fill(buf, chunk, 11);
	vfs_export_set_io(ex, VFS_IO_AUTO);
	o = mkfile("autocache");
	for (int i = 0; i < 4; i++)
		assert_int_equal(vfs_write(o, (uint64_t)i * chunk, buf, chunk,
					   VFS_FILE_SYNC),
				 (ssize_t)chunk);
	res = resident_pages("autocache", &total);
	if (res != 0) /* a kernel that caches direct writes: nothing to test */
		skip();
	if (!vfs_read_goes_direct(o, 0, chunk))
		skip(); /* the filesystem refused O_DIRECT */
	assert_true(vfs_read_goes_direct(o, chunk, chunk));
	/* A small read always uses the cache; an unaligned one too. */
	assert_false(vfs_read_goes_direct(o, 0, 4096));
	assert_false(vfs_read_goes_direct(o, 512 + 1, chunk));

	/* Another reader brings the second MiB into the page cache. */
	snprintf(path, sizeof(path), "%s/autocache", tmpdir);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	copy = malloc(chunk);
	assert_non_null(copy);
	assert_int_equal(pread(fd, copy, chunk, (off_t)chunk), (ssize_t)chunk);
	res = resident_pages("autocache", &total);
	if (res < chunk / 4096) /* cachestat(2) missing or pages gone */
		skip();
	assert_false(vfs_read_goes_direct(o, chunk, chunk));
	assert_true(vfs_read_goes_direct(o, 3 * chunk, chunk));
	/* Half cached, half not: direct. */
	assert_true(vfs_read_goes_direct(o, chunk + chunk / 2, chunk));
	for (int i = 0; i < 4; i++) {
		assert_int_equal(vfs_read_payload(o, (uint64_t)i * chunk, chunk,
						  0, &rd),
				 (ssize_t)chunk);
		assert_memory_equal(rd.data.data, buf, chunk);
		payload_release(&rd.data);
	}
	/* Dropped from the cache again: direct again. */
	assert_int_equal(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
	assert_true(vfs_read_goes_direct(o, chunk, chunk));
	close(fd);
	free(copy);
	vfs_obj_put(o);
	free(buf);
}

/*
 * vfs_read_payload() with VFS_READ_FILE_OK: a reference to cached data
 * instead of a copy, only for large reads the page cache holds, cut at
 * end of file; a buffer else. A file range reads back through
 * payload_fill() (as a transport that cannot send one does).
 */
static void test_read_ref(void **state)
{
	const size_t len = (1 << 20) + 100;
	struct vfs_read_res res;
	uint8_t *buf, *back;
	struct vfs_obj *o;
	int fd;

	/* Without cachestat(2) (Linux < 6.5) nasd cannot tell: nothing to do. */
	if (syscall(451, -1, NULL, NULL, 0) < 0 && errno == ENOSYS)
		skip();
	buf = malloc(len);
	back = malloc(len);
	assert_non_null(buf);
	assert_non_null(back);
	fill(buf, len, 5);
	vfs_export_set_io(ex, VFS_IO_BUFFERED);
	o = mkfile("readref");
	assert_int_equal(vfs_write(o, 0, buf, len, VFS_FILE_SYNC),
			 (ssize_t)len);
	/* Whole, cut at end of file, and the data behind the fd. */
	assert_int_equal(vfs_read_payload(o, 0, 1 << 20, VFS_READ_FILE_OK,
					  &res),
			 1 << 20);
	assert_int_equal(res.data.kind, PAYLOAD_FILE);
	assert_false(res.eof);
	assert_int_equal(res.attr.size, len);
	fd = res.data.fd;
	assert_int_equal(pread(fd, back, len, 0), (ssize_t)len);
	assert_memory_equal(back, buf, len);
	/* Filled, it is the same bytes in a buffer. */
	assert_int_equal(payload_fill(&res.data), 0);
	assert_int_equal(res.data.kind, PAYLOAD_BUF);
	assert_memory_equal(res.data.data, buf, 1 << 20);
	payload_release(&res.data);
	assert_int_equal(vfs_read_payload(o, 65536, 1 << 20, VFS_READ_FILE_OK,
					  &res),
			 (ssize_t)(len - 65536));
	assert_int_equal(res.data.kind, PAYLOAD_FILE);
	assert_int_equal(res.data.off, 65536);
	assert_true(res.eof);
	payload_release(&res.data);
	/* Not asked for: a buffer. */
	assert_int_equal(vfs_read_payload(o, 0, 1 << 20, 0, &res), 1 << 20);
	assert_int_equal(res.data.kind, PAYLOAD_BUF);
	payload_release(&res.data);
	/* Too small, near or at end of file: a buffer or nothing. */
	assert_int_equal(vfs_read_payload(o, 0, 4096, VFS_READ_FILE_OK, &res),
			 4096);
	assert_int_equal(res.data.kind, PAYLOAD_BUF);
	payload_release(&res.data);
	assert_int_equal(vfs_read_payload(o, len - 1000, 1 << 20,
					  VFS_READ_FILE_OK, &res),
			 1000);
	assert_int_equal(res.data.kind, PAYLOAD_BUF);
	assert_true(res.eof);
	payload_release(&res.data);
	assert_int_equal(vfs_read_payload(o, len, 1 << 20, VFS_READ_FILE_OK,
					  &res),
			 0);
	assert_int_equal(res.data.kind, PAYLOAD_NONE);
	assert_true(res.eof);
	/* Not in the page cache: a buffer; on an event loop, -EAGAIN (that
	 * try may start readahead, so it comes last). */
	assert_int_equal(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
	assert_int_equal(vfs_read_payload(o, 0, 1 << 20, VFS_READ_FILE_OK,
					  &res),
			 1 << 20);
	assert_int_equal(res.data.kind, PAYLOAD_BUF);
	assert_memory_equal(res.data.data, buf, 1 << 20);
	payload_release(&res.data);
	assert_int_equal(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
	assert_int_equal(vfs_read_payload(o, 0, 1 << 20,
					  VFS_READ_FILE_OK | VFS_READ_NOWAIT,
					  &res),
			 -EAGAIN);
	/* io=direct never hands out the page cache. */
	assert_int_equal(pread(fd, back, len, 0), (ssize_t)len);
	vfs_export_set_io(ex, VFS_IO_DIRECT);
	assert_int_equal(vfs_read_payload(o, 0, 1 << 20, VFS_READ_FILE_OK,
					  &res),
			 1 << 20);
	assert_int_equal(res.data.kind, PAYLOAD_BUF);
	payload_release(&res.data);
	/* ... and reads nothing on an event loop: it would go to disk. */
	assert_int_equal(vfs_read_payload(o, 0, 1 << 20, VFS_READ_NOWAIT,
					  &res),
			 -EAGAIN);
	vfs_export_set_io(ex, VFS_IO_AUTO);
	vfs_obj_put(o);
	free(buf);
	free(back);
}

/*
 * Concurrency: each thread owns a set of unaligned segments interleaved
 * with the other threads' segments, so every block is shared by several
 * writers at once; each thread rewrites its segments several times in
 * random order. Any lost update of a read-modify-write shows as a segment
 * that does not hold its owner's last version.
 */
#define CW_THREADS 4
#define CW_ROUNDS 48
#define CW_VERSIONS 10

static size_t cw_len(int t)
{
	return 700 + 1531 * (size_t)t; /* 700, 2231, 3762, 5293 */
}

static uint64_t cw_off(int t, int r)
{
	size_t per_round = 0;
	uint64_t off;

	for (int i = 0; i < CW_THREADS; i++)
		per_round += cw_len(i);
	off = (uint64_t)r * per_round + 13;
	for (int i = 0; i < t; i++)
		off += cw_len(i);
	return off;
}

struct cw_arg {
	struct vfs_obj *o;
	int t;
	int errors;
};

static void *cw_run(void *p)
{
	struct cw_arg *a = p;
	unsigned int seed = (unsigned int)a->t * 7919u + 1;
	uint8_t buf[8192];
	int order[CW_ROUNDS];

	vfs_cred_set(&cred_root);
	for (int v = 0; v < CW_VERSIONS; v++) {
		for (int r = 0; r < CW_ROUNDS; r++)
			order[r] = r;
		for (int r = CW_ROUNDS - 1; r > 0; r--) {
			int k = rand_r(&seed) % (r + 1), tmp = order[r];

			order[r] = order[k];
			order[k] = tmp;
		}
		for (int i = 0; i < CW_ROUNDS; i++) {
			int r = order[i];

			fill(buf, cw_len(a->t),
			     (uint32_t)(a->t * 100000 + r * 10 + v));
			if (vfs_write(a->o, cw_off(a->t, r), buf, cw_len(a->t),
				      v == 1 ? VFS_DATA_SYNC : VFS_UNSTABLE) !=
			    (ssize_t)cw_len(a->t))
				a->errors++;
		}
	}
	return NULL;
}

static void test_direct_concurrent_rmw(void **state)
{
	struct cw_arg args[CW_THREADS];
	pthread_t th[CW_THREADS];
	uint8_t want[8192], *got;
	struct vfs_obj *o;
	size_t len;

	vfs_export_set_io(ex, VFS_IO_DIRECT);
	o = mkfile("concurrent");
	for (int t = 0; t < CW_THREADS; t++) {
		args[t] = (struct cw_arg){.o = o, .t = t};
		assert_int_equal(pthread_create(&th[t], NULL, cw_run,
						&args[t]),
				 0);
	}
	for (int t = 0; t < CW_THREADS; t++) {
		assert_int_equal(pthread_join(th[t], NULL), 0);
		assert_int_equal(args[t].errors, 0);
	}
	got = slurp("concurrent", &len);
	assert_int_equal(len, cw_off(CW_THREADS - 1, CW_ROUNDS - 1) +
				      cw_len(CW_THREADS - 1));
	for (int i = 0; i < 13; i++)
		assert_int_equal(got[i], 0);
	for (int t = 0; t < CW_THREADS; t++) {
		for (int r = 0; r < CW_ROUNDS; r++) {
			fill(want, cw_len(t),
			     (uint32_t)(t * 100000 + r * 10 + CW_VERSIONS - 1));
			if (memcmp(got + cw_off(t, r), want, cw_len(t)) != 0)
				fail_msg("thread %d segment %d lost an update",
					 t, r);
		}
	}
	free(got);
	vfs_obj_put(o);
	vfs_export_set_io(ex, VFS_IO_AUTO);
}

/* At the memory ceiling a direct read answers -EJUKEBOX, then recovers. */
static void test_direct_jukebox(void **state)
{
	struct iobuf *hog[64];
	struct vfs_read_res res;
	struct vfs_obj *o;
	uint8_t buf[100];
	int n = 0;

	vfs_export_set_io(ex, VFS_IO_DIRECT);
	o = mkfile("jukebox");
	memset(buf, 'j', sizeof(buf));
	assert_int_equal(vfs_write(o, 0, buf, sizeof(buf), VFS_UNSTABLE),
			 (ssize_t)sizeof(buf));
	iobuf_set_max_memory(IOBUF_MIN_MAX_MEMORY);
	for (size_t sz = 1 << 20; sz >= 4096; sz /= 16)
		while (n < 64 && (hog[n] = iobuf_alloc(sz)) != NULL)
			n++;
	assert_int_equal(vfs_read_payload(o, 0, 100, 0, &res), -EJUKEBOX);
	assert_int_equal(vfs_write(o, 1, buf, 10, VFS_UNSTABLE), -EJUKEBOX);
	while (n)
		iobuf_put(hog[--n]);
	assert_int_equal(vfs_read_payload(o, 0, 100, 0, &res), 100);
	assert_memory_equal(res.data.data, buf, 100);
	payload_release(&res.data);
	iobuf_set_max_memory(0);
	vfs_obj_put(o);
	vfs_export_set_io(ex, VFS_IO_AUTO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_modes_identical),
		cmocka_unit_test(test_reads_eof),
		cmocka_unit_test(test_direct_holes_size),
		cmocka_unit_test(test_direct_no_page_cache),
		cmocka_unit_test(test_auto_reads_cached_data),
		cmocka_unit_test(test_read_ref),
		cmocka_unit_test(test_direct_concurrent_rmw),
		cmocka_unit_test(test_direct_jukebox),
	};

	const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/var/tmp";
	char probe[300];
	int fd;

	if (geteuid() != 0) {
		printf("SKIP: needs root (open_by_handle_at)\n");
		return 77;
	}
	snprintf(probe, sizeof(probe), "%s/nasd-dio-probe-%d", base,
		 (int)getpid());
	fd = open(probe, O_RDWR | O_CREAT | O_DIRECT, 0600);
	if (fd < 0) {
		printf("SKIP: %s: no O_DIRECT (%s)\n", base, strerror(errno));
		unlink(probe);
		return 77;
	}
	close(fd);
	unlink(probe);
	return cmocka_run_group_tests(tests, setup, teardown);
}
