// SPDX-License-Identifier: MIT
/*
 * io=auto's choice for large I/O (vfs.h, "Adaptive io=auto"): through the
 * page cache while the memory situation allows it, O_DIRECT when it does
 * not. The knfsd direct-I/O work shows why direct wins when the working
 * set is far larger than memory (no reclaim storms, CPU spent on copies
 * and page management drops); a working set that fits is read back from
 * the cache, which direct I/O would have bypassed.
 *
 * The situation, sampled every VFS_AUTO_SAMPLE_MS by the server's timer:
 *  - the memory nasd may use: its cgroup's memory.max (v2) or
 *    memory.limit_in_bytes (v1), else MemTotal;
 *  - the page cache charged there: memory.stat "file" (v2) or "cache"
 *    (v1), else Cached;
 *  - pressure: memory.pressure (else /proc/pressure/memory) "some avg10",
 *    and MemAvailable;
 *  - dirty data: memory.stat "file_dirty" + "file_writeback" (v2) or
 *    "dirty" + "writeback" (v1), else Dirty + Writeback, against the
 *    kernel's own throttling point (vm.dirty_background_ratio and
 *    vm.dirty_ratio): a writer that outpaces writeback is throttled to the
 *    disk's speed with the copy into the cache on top (measured: io=buffered
 *    fell to ~530 MiB/s writing 12 GiB in a 6 GiB cgroup, io=direct
 *    2200-2700).
 * The cache budget is a share of that memory (--cache-budget, default
 * 20%) or a size. Large I/O goes buffered while the cache is under the
 * budget and there is no pressure; it goes direct from the moment the
 * budget is reached (counting the bytes nasd itself put in the cache
 * since the last sample, so a fast writer cannot overshoot by a sampling
 * period), and comes back only once the cache fell below 3/4 of the
 * budget with no pressure for a whole sample: hysteresis, no flapping.
 * Where nothing can be read (no /proc), large I/O goes direct, as before.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vfs/vfs.h"

static struct {
	uint64_t budget_bytes; /* configured size, 0: by percent */
	unsigned int budget_pct;
	char cg[256];	       /* our memory cgroup's directory, or "" */
	bool cg_v1;	       /* ... in the v1 hierarchy */
	bool sampled;	       /* the first sample sets, not switches */
	atomic_bool buffered;
	atomic_uint_fast64_t base;  /* cache bytes at the last sample */
	atomic_uint_fast64_t added; /* bytes nasd cached since then */
	atomic_uint_fast64_t budget;
	atomic_uint_fast64_t limit;
	atomic_uint_fast64_t switches;
	atomic_uint pressure_x100;  /* some avg10, in hundredths */
	atomic_uint_fast64_t dirty; /* dirty + writeback at the last sample */
} au = { .budget_pct = 20 };

void vfs_auto_configure(uint64_t bytes, unsigned int pct)
{
	au.budget_bytes = bytes;
	au.budget_pct = bytes ? 0 : pct;
}

/*
 * One pass over @path: for each of the @n @keys, the number after the
 * first line starting with it into @out[i]. A bit per key found.
 */
static unsigned int read_keys(const char *path, const char *const *keys,
			      uint64_t *out, unsigned int n)
{
	char line[256];
	unsigned int found = 0, i;
	FILE *f = fopen(path, "re");

	if (!f)
		return 0;
	while (found != (1u << n) - 1 && fgets(line, sizeof(line), f)) {
		for (i = 0; i < n; i++) {
			if (!(found & (1u << i)) &&
			    !strncmp(line, keys[i], strlen(keys[i]))) {
				out[i] = strtoull(line + strlen(keys[i]), NULL,
						  10);
				found |= 1u << i;
				break;
			}
		}
	}
	(void)fclose(f);
	return found;
}

/* A file holding one number, or "max" (*@out = 0). */
static bool read_num(const char *path, uint64_t *out)
{
	char buf[64];
	FILE *f = fopen(path, "re");
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, sizeof(buf), f) != NULL;
	(void)fclose(f);
	if (!ok)
		return false;
	*out = strncmp(buf, "max", 3) ? strtoull(buf, NULL, 10) : 0;
	return true;
}

/* "some avg10=X.YY ..." of a PSI file, in hundredths of a percent. */
static bool read_psi(const char *path, unsigned int *out)
{
	char line[256], *p;
	FILE *f = fopen(path, "re");
	bool ok = false;

	if (!f)
		return false;
	if (fgets(line, sizeof(line), f) && !strncmp(line, "some", 4) &&
	    (p = strstr(line, "avg10=")) != NULL) {
		*out = (unsigned int)(strtod(p + 6, NULL) * 100.0);
		ok = true;
	}
	(void)fclose(f);
	return ok;
}

/*
 * Our memory cgroup directory: v2 ("0::/path" in /proc/self/cgroup, when
 * it has memory.max) or v1 ("N:...memory...:/path"). Looked up at every
 * sample: a process may be moved into a cgroup after it started.
 */
static void cg_probe(void)
{
	char line[200], v1[256] = "", path[300], *nl, *p;
	FILE *f;

	au.cg[0] = '\0';
	au.cg_v1 = false;
	f = fopen("/proc/self/cgroup", "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (!strncmp(line, "0::", 3)) {
			(void)snprintf(path, sizeof(path), "/sys/fs/cgroup%s/memory.max",
				 line + 3);
			if (!access(path, R_OK))
				(void)snprintf(au.cg, sizeof(au.cg), "/sys/fs/cgroup%s",
					 line + 3);
			continue;
		}
		/* v1: "N:controllers:/path", memory among the controllers */
		p = strchr(line, ':');
		if (!p || !strstr(p, "memory"))
			continue;
		p = strchr(p + 1, ':');
		if (p)
			(void)snprintf(v1, sizeof(v1), "/sys/fs/cgroup/memory%s",
				 p + 1);
	}
	(void)fclose(f);
	if (!au.cg[0] && v1[0]) {
		(void)snprintf(au.cg, sizeof(au.cg), "%s", v1);
		au.cg_v1 = true;
	}
}

/* The kernel's dirty ratios (percent); 0 when set as bytes instead. */
static void read_dirty_ratios(struct vfs_auto_reading *r)
{
	uint64_t v;

	r->dirty_bg_pct = read_num("/proc/sys/vm/dirty_background_ratio", &v)
				  ? (unsigned int)v : 10;
	r->dirty_pct = read_num("/proc/sys/vm/dirty_ratio", &v)
			       ? (unsigned int)v : 20;
}

/* Fill @r from /proc and our cgroup; false when nothing could be read. */
static bool auto_read(struct vfs_auto_reading *r)
{
	static const char *const mem_keys[] = { "MemTotal:", "MemAvailable:",
						"Cached:", "Dirty:",
						"Writeback:" };
	static const char *const v1_keys[] = { "cache ", "dirty ",
					       "writeback " };
	static const char *const v2_keys[] = { "file ", "file_dirty ",
					       "file_writeback " };
	uint64_t m[5] = { 0 }, cg[3] = { 0 }, cg_max = 0;
	unsigned int got;
	char path[320];

	memset(r, 0, sizeof(*r));
	cg_probe();
	/* MemTotal, MemAvailable and Cached are needed; dirty data not */
	if ((read_keys("/proc/meminfo", mem_keys, m, 5) & 7) != 7)
		return false;
	r->limit = m[0] << 10;
	r->avail = m[1] << 10;
	r->cached = m[2] << 10;
	r->dirty = (m[3] + m[4]) << 10;
	read_dirty_ratios(r);
	if (!au.cg[0]) {
		(void)read_psi("/proc/pressure/memory", &r->psi);
		return true;
	}
	(void)snprintf(path, sizeof(path), "%s/%s", au.cg,
		       au.cg_v1 ? "memory.limit_in_bytes" : "memory.max");
	if (read_num(path, &cg_max) && cg_max && cg_max < r->limit)
		r->limit = cg_max;
	(void)snprintf(path, sizeof(path), "%s/memory.stat", au.cg);
	got = read_keys(path, au.cg_v1 ? v1_keys : v2_keys, cg, 3);
	if (got & 1)
		r->cached = cg[0];
	if ((got & 6) == 6)
		r->dirty = cg[1] + cg[2];
	(void)snprintf(path, sizeof(path), "%s/memory.pressure", au.cg);
	if (au.cg_v1 || !read_psi(path, &r->psi))
		(void)read_psi("/proc/pressure/memory", &r->psi);
	return true;
}

/** vfs_auto_decide() - see vfs.h. */
bool vfs_auto_decide(const struct vfs_auto_reading *r, uint64_t budget,
		     bool was, bool first)
{
	uint64_t dirtyable, throttle, dirty_max;
	unsigned int bg = r->dirty_bg_pct, hi = r->dirty_pct;

	if (!r->limit || !budget)
		return false;
	/* set as bytes (ratios 0): the kernel's defaults stand in */
	if (!bg || !hi) {
		bg = 10;
		hi = 20;
	}
	dirtyable = r->avail < r->limit ? r->avail : r->limit;
	throttle = dirtyable / 200 * (bg + hi);
	dirty_max = throttle / 4 * 3;
	if (was || first)
		return r->cached < budget && r->psi < 1000 &&
		       r->avail >= r->limit / 10 && r->dirty < dirty_max;
	return r->cached <= budget / 4 * 3 && r->psi < 100 &&
	       r->avail >= r->limit / 5 && r->dirty < throttle / 2;
}

void vfs_auto_sample(void)
{
	struct vfs_auto_reading r;
	uint64_t budget;
	bool was, now;

	if (!auto_read(&r) || !r.limit) {
		atomic_store(&au.buffered, false);
		return;
	}
	budget = au.budget_bytes ? au.budget_bytes
				 : r.limit / 100 * au.budget_pct;
	atomic_store(&au.limit, r.limit);
	atomic_store(&au.budget, budget);
	atomic_store(&au.pressure_x100, r.psi);
	atomic_store(&au.dirty, r.dirty);
	atomic_store(&au.base, r.cached);
	atomic_store(&au.added, 0);
	was = atomic_load(&au.buffered);
	now = vfs_auto_decide(&r, budget, was, !au.sampled);
	if (now != was) {
		atomic_store(&au.buffered, now);
		if (au.sampled)
			atomic_fetch_add(&au.switches, 1);
	}
	au.sampled = true;
}

bool vfs_auto_buffered(size_t len)
{
	uint64_t budget, used;

	if (!atomic_load_explicit(&au.buffered, memory_order_relaxed))
		return false;
	budget = atomic_load_explicit(&au.budget, memory_order_relaxed);
	used = atomic_load_explicit(&au.base, memory_order_relaxed) +
	       atomic_fetch_add_explicit(&au.added, len,
					 memory_order_relaxed) +
	       len;
	if (used < budget)
		return true;
	/* The budget is reached between two samples: direct from now. */
	if (atomic_exchange(&au.buffered, false))
		atomic_fetch_add(&au.switches, 1);
	return false;
}

void vfs_auto_stats(struct vfs_auto_stats *out)
{
	out->buffered = atomic_load(&au.buffered);
	out->cached = atomic_load(&au.base) + atomic_load(&au.added);
	out->budget = atomic_load(&au.budget);
	out->limit = atomic_load(&au.limit);
	out->switches = atomic_load(&au.switches);
	out->pressure_x100 = atomic_load(&au.pressure_x100);
	out->dirty = atomic_load(&au.dirty);
}
