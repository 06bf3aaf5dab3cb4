/* SPDX-License-Identifier: MIT */
/*
 * Probe: what does a buffered 1 MiB WRITE cost its receiver, taken from a
 * TCP socket into a file (a) with read() into a buffer and pwrite(), as
 * nasd does, or (b) with splice() socket -> pipe -> file, one copy fewer
 * (knfsd's way)? A child process sends MIB MiB over loopback; the parent
 * receives and writes them into FILE, over the first 256 MiB again and
 * again (the page cache is reused, so block allocation does not blur the
 * copies), and prints its own CPU seconds per GiB.
 *
 *   cc -O2 -o /tmp/splice_recv bench/probes/splice_recv.c
 *   /tmp/splice_recv 0|1 MIB FILE      (0: read+pwrite, 1: splice)
 *
 * docs/PERFORMANCE.md ("One copy fewer for WRITE payloads") has what it
 * measured here.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CHUNK (1L << 20)
#define SPAN (256L << 20)
#define PORT 39999

static double secs(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

static double cpu_now(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return secs(&ru.ru_utime) + secs(&ru.ru_stime);
}

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void send_all(const struct sockaddr_in *a, long total)
{
	int s = socket(AF_INET, SOCK_STREAM, 0);
	char *b = malloc(CHUNK);

	if (s < 0 || !b || connect(s, (const void *)a, sizeof(*a)) < 0)
		_exit(1);
	memset(b, 7, CHUNK);
	for (long done = 0; done < total;) {
		ssize_t n = write(s, b, CHUNK);

		if (n <= 0)
			break;
		done += n;
	}
	close(s);
	_exit(0);
}

/* One chunk by read() into @buf, then pwrite(). */
static int recv_copy(int s, int fd, char *buf, long at)
{
	size_t have = 0;

	while (have < CHUNK) {
		ssize_t n = read(s, buf + have, CHUNK - have);

		if (n <= 0)
			return -1;
		have += (size_t)n;
	}
	return pwrite(fd, buf, CHUNK, at % SPAN) == CHUNK ? 0 : -1;
}

/* One chunk by splice() into the pipe, then from it into the file. */
static int recv_splice(int s, int fd, const int pp[2], long at)
{
	loff_t off = at % SPAN;
	size_t have = 0, left = CHUNK;

	while (have < CHUNK) {
		ssize_t n = splice(s, NULL, pp[1], NULL, CHUNK - have,
				   SPLICE_F_MOVE);

		if (n <= 0)
			return -1;
		have += (size_t)n;
	}
	while (left) {
		ssize_t n = splice(pp[0], NULL, fd, &off, left, SPLICE_F_MOVE);

		if (n <= 0)
			return -1;
		left -= (size_t)n;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = {
		.sin_family = AF_INET,
		.sin_port = htons(PORT),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	int ls, s, fd, one = 1, pp[2] = { -1, -1 }, mode;
	long total, got = 0;
	double t0, c0, t, cpu;
	char *buf;

	if (argc != 4) {
		fprintf(stderr, "usage: %s 0|1 MIB FILE\n", argv[0]);
		return 2;
	}
	mode = atoi(argv[1]);
	total = atol(argv[2]) << 20;
	ls = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ls < 0 || bind(ls, (void *)&a, sizeof(a)) < 0 || listen(ls, 1) < 0) {
		perror("listen");
		return 1;
	}
	if (fork() == 0)
		send_all(&a, total);
	s = accept(ls, NULL, NULL);
	fd = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	buf = aligned_alloc(4096, CHUNK);
	if (s < 0 || fd < 0 || !buf || pipe(pp) < 0 ||
	    fcntl(pp[1], F_SETPIPE_SZ, CHUNK) < 0) {
		perror("setup");
		return 1;
	}
	t0 = wall_now();
	c0 = cpu_now();
	while (got < total) {
		if ((mode ? recv_splice(s, fd, pp, got) :
			    recv_copy(s, fd, buf, got)) < 0)
			break;
		got += CHUNK;
	}
	t = wall_now() - t0;
	cpu = cpu_now() - c0;
	printf("%s: %ld MiB in %.2f s = %.0f MiB/s, receiver %.3f CPU-s/GiB\n",
	       mode ? "splice" : "read+pwrite", got >> 20, t,
	       (double)(got >> 20) / t, cpu / ((double)got / (1L << 30)));
	wait(NULL);
	return got == total ? 0 : 1;
}
