/* SPDX-License-Identifier: MIT */
#ifndef NASD_CORE_IOBUF_H
#define NASD_CORE_IOBUF_H

/*
 * Payload buffers (DESIGN.md §4): pooled, refcounted, IOBUF_ALIGN-aligned
 * memory for WRITE records and READ replies, suitable for O_DIRECT.
 *
 * Buffers come in size classes (4 KiB .. 8 MiB; larger ones are made to
 * measure and not kept). Freed buffers go back to sharded free lists and
 * are reused without touching the kernel. Every byte the pool holds, in
 * use or cached, counts against one ceiling (--max-memory): an allocation
 * that would exceed it first trims the cached buffers, and then fails
 * (NULL: the caller answers -EJUKEBOX or waits), except that an allocation
 * always succeeds while nothing is in use, so that one request can always
 * make progress. Above a high watermark of bytes in use (the payload
 * budget, iobuf_set_budget, at most 3/4 of the ceiling), iobuf_pressure()
 * tells readers to stop taking new requests; when usage falls below the
 * low watermark, the relief hook is called once for those who waited.
 */

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IOBUF_ALIGN 4096
#define IOBUF_DEFAULT_MAX_MEMORY (1ull << 30)
/* The smallest ceiling accepted: a few largest records must fit. */
#define IOBUF_MIN_MAX_MEMORY (8ull << 20)

struct iobuf {
	uint8_t *data;        /* IOBUF_ALIGN-aligned, @size bytes */
	size_t size;          /* usable bytes (the class size) */
	atomic_uint refs;
	int cls;              /* size class, or -1 when made to measure */
	struct iobuf *next;   /* free-list link, only while free */
	struct iobuf_slab *slab; /* the huge-page slab @data is in, or NULL */
};

struct iobuf_stats {
	uint64_t in_use;      /* bytes of buffers handed out */
	uint64_t peak;        /* highest in_use since start */
	uint64_t cached;      /* bytes in the free lists */
	uint64_t ceiling;     /* --max-memory */
	uint64_t high_mark;   /* reading stops above (budget, ceiling) */
	uint64_t allocs;      /* successful iobuf_alloc() calls */
	uint64_t failures;    /* iobuf_alloc() refused at the ceiling */
};

/*
 * iobuf_set_max_memory() - set the ceiling in bytes (0 = the default; less
 * than IOBUF_MIN_MAX_MEMORY is raised to it). Call at start-up; later
 * calls take effect for later allocations.
 */
void iobuf_set_max_memory(uint64_t bytes);

/*
 * iobuf_alloc() - a buffer of at least @size bytes with one reference,
 * owned by the caller. Its contents are undefined. Returns NULL when the
 * ceiling would be exceeded or memory is exhausted (and for @size 0).
 */
struct iobuf *iobuf_alloc(size_t size);

/* iobuf_get() - take another reference on @b. */
void iobuf_get(struct iobuf *b);

/*
 * iobuf_put() - drop a reference; the last one returns @b to the pool.
 * NULL is ignored.
 */
void iobuf_put(struct iobuf *b);

/* iobuf_release() - iobuf_put() with a void * argument, for hooks such as
 * release hooks (no function-pointer casts). */
void iobuf_release(void *b);

/*
 * iobuf_set_budget() - the payload bytes in use worth having (0: no
 * budget; less than IOBUF_MIN_MAX_MEMORY is raised to it): the high
 * watermark becomes the budget, when below 3/4 of the ceiling. Requests
 * beyond what the storage path can take at once gain nothing by being
 * read into memory, only latency and resident memory: they wait in the
 * clients' TCP streams instead. Call at start-up.
 */
void iobuf_set_budget(uint64_t bytes);

/*
 * iobuf_pressure() - true while the bytes in use are above the high
 * watermark (the budget, at most 3/4 of the ceiling): stop reading new
 * requests.
 */
bool iobuf_pressure(void);

/*
 * iobuf_wait_relief() - the caller stops reading because of pressure (or
 * a failed allocation) and wants the relief hook called once usage falls
 * below the low watermark (2/3 of the high one). Returns false when usage
 * is already below it (the caller should retry instead of waiting; if it
 * waits anyway, the next buffer returned to the pool calls the hook).
 */
bool iobuf_wait_relief(void);

/*
 * iobuf_set_relief_hook() - @fn is called (from whichever thread freed
 * the memory, with no pool lock held) after iobuf_wait_relief() once usage
 * is below the low watermark. It must be cheap and thread-safe.
 */
void iobuf_set_relief_hook(void (*fn)(void));

/* iobuf_stats() - current counters into @st. */
void iobuf_stats(struct iobuf_stats *st);

/* iobuf_trim() - free every cached buffer (tests, memory pressure). */
void iobuf_trim(void);

/*
 * iobuf_periodic_trim() - give back what the cache holds beyond the need of
 * the time since the previous call: every cached buffer of a class not
 * taken since, and then, largest first, whatever makes in use + cached
 * more than the most that was in use. Call it every few seconds: the
 * cache a burst of large I/O left goes back to the system once the
 * server is idle or busy with other sizes, and stays while it is used.
 * One caller (a timer) at a time.
 */
void iobuf_periodic_trim(void);

#endif
