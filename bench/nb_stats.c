// SPDX-License-Identifier: MIT
/*
 * nasd-bench: latency histograms, the clock, and samples of the server
 * process from /proc/PID/stat and /proc/PID/status (proc(5)).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nb.h"

/**
 * nb_now_ns() - CLOCK_MONOTONIC in nanoseconds.
 */
uint64_t nb_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NB_NS + (uint64_t)ts.tv_nsec;
}

static unsigned int hist_index(uint64_t v)
{
	unsigned int e;

	if (v < NB_HIST_SUB)
		return (unsigned int)v;
	e = 63 - (unsigned int)__builtin_clzll(v);
	return (e - NB_HIST_SUB_BITS + 1) * NB_HIST_SUB +
	       (unsigned int)((v >> (e - NB_HIST_SUB_BITS)) &
			      (NB_HIST_SUB - 1));
}

/* Lowest value of bucket i, and its width. */
static uint64_t hist_lower(unsigned int i, uint64_t *width)
{
	unsigned int e;

	if (i < NB_HIST_SUB) {
		*width = 1;
		return i;
	}
	e = i / NB_HIST_SUB + NB_HIST_SUB_BITS - 1;
	*width = 1ull << (e - NB_HIST_SUB_BITS);
	return (uint64_t)(NB_HIST_SUB + i % NB_HIST_SUB) <<
	       (e - NB_HIST_SUB_BITS);
}

/**
 * nb_hist_reset() - empty a histogram.
 * @h: the histogram
 */
void nb_hist_reset(struct nb_hist *h)
{
	memset(h, 0, sizeof(*h));
}

/**
 * nb_hist_add() - record one latency.
 * @h:  the histogram
 * @ns: the latency in nanoseconds
 */
void nb_hist_add(struct nb_hist *h, uint64_t ns)
{
	h->bucket[hist_index(ns)]++;
	h->count++;
	h->sum_ns += ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
}

/**
 * nb_hist_merge() - add every sample of @src to @dst.
 * @dst: the histogram that grows
 * @src: the histogram read
 */
void nb_hist_merge(struct nb_hist *dst, const struct nb_hist *src)
{
	unsigned int i;

	for (i = 0; i < NB_HIST_BUCKETS; i++)
		dst->bucket[i] += src->bucket[i];
	dst->count += src->count;
	dst->sum_ns += src->sum_ns;
	if (src->max_ns > dst->max_ns)
		dst->max_ns = src->max_ns;
}

/**
 * nb_hist_percentile() - the value below which @pct percent of samples lie.
 * @h:   the histogram
 * @pct: 0 < pct <= 100
 *
 * Returns the middle of the bucket that holds that sample (never above the
 * largest sample seen), or 0 for an empty histogram.
 */
uint64_t nb_hist_percentile(const struct nb_hist *h, double pct)
{
	uint64_t want, seen = 0, lo, width, v;
	unsigned int i;

	if (!h->count)
		return 0;
	want = (uint64_t)((double)h->count * pct / 100.0 + 0.5);
	if (want < 1)
		want = 1;
	if (want > h->count)
		want = h->count;
	for (i = 0; i < NB_HIST_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen >= want) {
			lo = hist_lower(i, &width);
			v = lo + width / 2;
			return v > h->max_ns ? h->max_ns : v;
		}
	}
	return h->max_ns;
}

/**
 * nb_hist_avg_ns() - mean latency, 0 for an empty histogram.
 * @h: the histogram
 */
double nb_hist_avg_ns(const struct nb_hist *h)
{
	return h->count ? (double)h->sum_ns / (double)h->count : 0.0;
}

static int read_file(const char *path, char *buf, size_t size)
{
	FILE *f;
	size_t n;

	f = fopen(path, "r");
	if (!f)
		return -errno;
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = '\0';
	return 0;
}

static uint64_t status_kib(const char *status, const char *key)
{
	const char *p = strstr(status, key);

	if (!p)
		return 0;
	return strtoull(p + strlen(key), NULL, 10);
}

/* utime, stime, cutime, cstime (clock ticks) and ppid of one process. */
static int proc_stat(pid_t pid, pid_t *ppid, unsigned long long t[4])
{
	char path[64], buf[4096], *p;
	int ret, field, pp;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	ret = read_file(path, buf, sizeof(buf));
	if (ret < 0)
		return ret;
	/* The command name may hold spaces and parentheses: skip past the
	 * last ')' and count fields from there (field 3 follows it). */
	p = strrchr(buf, ')');
	if (!p)
		return -EINVAL;
	p++;
	if (sscanf(p, " %*c %d", &pp) != 1)
		return -EINVAL;
	*ppid = pp;
	for (field = 3; field < 14 && p; field++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p, " %llu %llu %llu %llu", &t[0], &t[1], &t[2],
			 &t[3]) != 4)
		return -EINVAL;
	return 0;
}

static int proc_mem(pid_t pid, uint64_t *hwm, uint64_t *rss)
{
	char path[64], buf[4096];
	int ret;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	ret = read_file(path, buf, sizeof(buf));
	if (ret < 0)
		return ret;
	*hwm = status_kib(buf, "VmHWM:");
	*rss = status_kib(buf, "VmRSS:");
	return 0;
}

struct proc_ent {
	pid_t pid;
	pid_t ppid;
	bool in;
};

/* Mark every descendant of @root among @n processes; returns how many. */
static unsigned int mark_tree(struct proc_ent *e, size_t n, pid_t root)
{
	unsigned int count = 0;
	bool grew = true;
	size_t i, k;

	for (i = 0; i < n; i++)
		e[i].in = e[i].pid == root;
	while (grew) {
		grew = false;
		for (i = 0; i < n; i++) {
			if (e[i].in)
				continue;
			for (k = 0; k < n; k++) {
				if (e[k].in && e[k].pid == e[i].ppid) {
					e[i].in = true;
					grew = true;
					break;
				}
			}
		}
	}
	for (i = 0; i < n; i++)
		count += e[i].in;
	return count;
}

/* Sum over @root and its descendants (Samba forks one smbd per
 * connection): CPU with the children each has reaped, so that a child
 * ending between two samples keeps its CPU in the sum; RSS and VmHWM
 * added up (pages the processes share count once per process). */
static int sample_tree(pid_t root, struct nb_server_sample *s, double tck)
{
	struct proc_ent *e = NULL;
	size_t n = 0, cap = 0, i;
	struct dirent *d;
	DIR *dir;

	dir = opendir("/proc");
	if (!dir)
		return -errno;
	while ((d = readdir(dir))) {
		unsigned long long t[4];
		char *end;
		long v = strtol(d->d_name, &end, 10);
		pid_t pp;

		if (*end || v <= 0 || proc_stat((pid_t)v, &pp, t) < 0)
			continue;
		if (n == cap) {
			struct proc_ent *ne;

			cap = cap ? cap * 2 : 256;
			ne = realloc(e, cap * sizeof(*e));
			if (!ne) {
				free(e);
				closedir(dir);
				return -ENOMEM;
			}
			e = ne;
		}
		e[n].pid = (pid_t)v;
		e[n].ppid = pp;
		n++;
	}
	closedir(dir);
	s->nproc = mark_tree(e, n, root);
	for (i = 0; i < n; i++) {
		unsigned long long t[4];
		uint64_t hwm, rss;
		pid_t pp;

		if (!e[i].in || proc_stat(e[i].pid, &pp, t) < 0 ||
		    proc_mem(e[i].pid, &hwm, &rss) < 0)
			continue;
		s->cpu_s += (double)(t[0] + t[1] + t[2] + t[3]) / tck;
		s->vm_hwm_kib += hwm;
		s->vm_rss_kib += rss;
	}
	free(e);
	if (!s->nproc)
		return -ESRCH;
	s->ok = true;
	return 0;
}

/**
 * nb_server_sample() - read a process's CPU time and memory.
 * @pid:  the server's process id
 * @tree: sum over @pid and all its descendants
 * @s:    filled in; s->ok tells whether the sample is valid
 *
 * CPU is utime + stime of /proc/PID/stat (fields 14 and 15, every thread;
 * with @tree also cutime and cstime, fields 16 and 17); memory is VmHWM and
 * VmRSS of /proc/PID/status. Returns 0 or -errno.
 */
int nb_server_sample(pid_t pid, bool tree, struct nb_server_sample *s)
{
	unsigned long long t[4];
	long tck = sysconf(_SC_CLK_TCK);
	pid_t pp;
	int ret;

	memset(s, 0, sizeof(*s));
	if (tck <= 0)
		tck = 100;
	if (tree)
		return sample_tree(pid, s, (double)tck);
	ret = proc_stat(pid, &pp, t);
	if (ret < 0)
		return ret;
	s->cpu_s = (double)(t[0] + t[1]) / (double)tck;
	ret = proc_mem(pid, &s->vm_hwm_kib, &s->vm_rss_kib);
	if (ret < 0)
		return ret;
	s->nproc = 1;
	s->ok = true;
	return 0;
}
