// SPDX-License-Identifier: MIT
/*
 * Micro-benchmark behind docs/PERFORMANCE.md "io_uring vs threads": file
 * reads and writes as nasd's data path issues them, done either by N
 * threads with pread/pwrite (what the worker pool does) or by one thread
 * keeping N requests in flight on an io_uring (optionally with registered
 * buffers). Reports MiB/s or IOPS and CPU-seconds per GiB from getrusage.
 *
 * build: cc -O2 -D_GNU_SOURCE -o /tmp/uvt tests/perf/uring_vs_threads.c \
 *            -luring -lpthread
 * usage: uvt FILE SIZE_MIB {threads|uring|uring-reg} {read|write}
 *            BLOCK DEPTH SECONDS [direct]
 */
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

static int fd;
static uint64_t fsize;
static size_t bs;
static int depth;
static int writing;
static double seconds;
static atomic_uint_fast64_t done_ops;
static atomic_bool stop;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t pick(unsigned int *seed)
{
	uint64_t nblk = fsize / bs;

	return ((uint64_t)rand_r(seed) % nblk) * bs;
}

static void *thread_run(void *arg)
{
	unsigned int seed = (unsigned int)(uintptr_t)arg;
	void *buf;

	if (posix_memalign(&buf, 4096, bs))
		return NULL;
	memset(buf, 1, bs);
	while (!atomic_load(&stop)) {
		uint64_t off = pick(&seed);
		ssize_t n = writing ? pwrite(fd, buf, bs, (off_t)off)
				    : pread(fd, buf, bs, (off_t)off);

		if (n != (ssize_t)bs) {
			perror("io");
			exit(1);
		}
		atomic_fetch_add(&done_ops, 1);
	}
	free(buf);
	return NULL;
}

static void prep(struct io_uring *r, void **bufs, int i, bool reg,
		 unsigned int *seed)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(r);
	uint64_t off = pick(seed);

	if (reg && writing)
		io_uring_prep_write_fixed(sqe, fd, bufs[i], bs, off, i);
	else if (reg)
		io_uring_prep_read_fixed(sqe, fd, bufs[i], bs, off, i);
	else if (writing)
		io_uring_prep_write(sqe, fd, bufs[i], bs, off);
	else
		io_uring_prep_read(sqe, fd, bufs[i], bs, off);
	io_uring_sqe_set_data64(sqe, (uint64_t)i);
}

static void uring_run(bool reg)
{
	struct iovec iov[256];
	void *bufs[256];
	struct io_uring r;
	unsigned int seed = 7;
	double end = now() + seconds;
	int i;

	if (io_uring_queue_init(256, &r, 0) < 0) {
		fprintf(stderr, "io_uring unavailable\n");
		exit(77);
	}
	for (i = 0; i < depth; i++) {
		if (posix_memalign(&bufs[i], 4096, bs))
			exit(1);
		memset(bufs[i], 1, bs);
		iov[i] = (struct iovec){bufs[i], bs};
	}
	if (reg && io_uring_register_buffers(&r, iov, (unsigned int)depth)) {
		fprintf(stderr, "register_buffers failed\n");
		exit(1);
	}
	for (i = 0; i < depth; i++)
		prep(&r, bufs, i, reg, &seed);
	io_uring_submit(&r);
	while (now() < end) {
		struct io_uring_cqe *cqe;
		unsigned int head, n = 0;

		if (io_uring_wait_cqe(&r, &cqe) < 0)
			exit(1);
		io_uring_for_each_cqe(&r, head, cqe) {
			if (cqe->res != (int)bs) {
				fprintf(stderr, "io: %d\n", cqe->res);
				exit(1);
			}
			prep(&r, bufs, (int)io_uring_cqe_get_data64(cqe), reg,
			     &seed);
			n++;
		}
		io_uring_cq_advance(&r, n);
		atomic_fetch_add(&done_ops, n);
		io_uring_submit(&r);
	}
	io_uring_queue_exit(&r);
}

int main(int argc, char **argv)
{
	struct rusage ru;
	pthread_t th[256];
	double t0, t1, cpu;
	int i, flags = O_RDWR | O_CREAT;

	if (argc < 8) {
		fprintf(stderr, "usage: %s FILE SIZE_MIB "
				"threads|uring|uring-reg read|write BLOCK "
				"DEPTH SECONDS [direct]\n",
			argv[0]);
		return 2;
	}
	fsize = strtoull(argv[2], NULL, 0) << 20;
	writing = !strcmp(argv[4], "write");
	bs = strtoul(argv[5], NULL, 0);
	depth = atoi(argv[6]);
	seconds = atof(argv[7]);
	if (argc > 8 && !strcmp(argv[8], "direct"))
		flags |= O_DIRECT;
	if (depth < 1 || depth > 256 || !bs || fsize < bs)
		return 2;
	fd = open(argv[1], flags, 0644);
	if (fd < 0 || ftruncate(fd, (off_t)fsize) < 0) {
		perror(argv[1]);
		return 1;
	}
	t0 = now();
	if (!strcmp(argv[3], "threads")) {
		for (i = 0; i < depth; i++)
			pthread_create(&th[i], NULL, thread_run,
				       (void *)(uintptr_t)(i + 1));
		usleep((useconds_t)(seconds * 1e6));
		atomic_store(&stop, true);
		for (i = 0; i < depth; i++)
			pthread_join(th[i], NULL);
	} else {
		uring_run(!strcmp(argv[3], "uring-reg"));
	}
	t1 = now();
	getrusage(RUSAGE_SELF, &ru);
	cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	      (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	{
		double bytes = (double)atomic_load(&done_ops) * (double)bs;

		printf("%s %s bs=%zu depth=%d%s: %.0f MiB/s, %.0f IOPS, "
		       "%.2f CPU-s/GiB\n",
		       argv[3], argv[4], bs, depth,
		       flags & O_DIRECT ? " direct" : "",
		       bytes / (1 << 20) / (t1 - t0),
		       (double)atomic_load(&done_ops) / (t1 - t0),
		       cpu / (bytes / (1 << 30)));
	}
	return 0;
}
