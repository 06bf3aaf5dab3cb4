// SPDX-License-Identifier: MIT
/*
 * Pooled, refcounted, aligned payload buffers (see iobuf.h).
 *
 * Accounting is two atomic counters: bytes handed out (in_use) and bytes
 * cached in the free lists (cached); their sum never exceeds the ceiling
 * except for the one allocation always allowed while nothing is in use.
 * A thread picks a free-list shard once (round-robin), so that threads
 * rarely share a shard lock; a shard that is empty borrows from the next
 * shards before new memory is taken from the system.
 */
#include "core/iobuf.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>

#define IOBUF_SHARDS 16

static const size_t class_size[] = {
	4u << 10,   8u << 10,   16u << 10,  32u << 10,
	64u << 10,  128u << 10, 256u << 10, 512u << 10,
	1u << 20,
	/* A 1 MiB WRITE record plus its header and alignment shift. */
	(1u << 20) + (128u << 10),
	2u << 20,
	/* SMB: the Linux client's 4 MiB I/O, and the 8 MiB nasd offers,
	 * each with room for a WRITE's headers. */
	4u << 20,   (4u << 20) + (128u << 10),
	8u << 20,   (8u << 20) + (128u << 10),
};

#define NCLASSES (sizeof(class_size) / sizeof(class_size[0]))

struct iobuf_shard {
	pthread_mutex_t lock;
	struct iobuf *free[NCLASSES];
};

static struct iobuf_shard shards[IOBUF_SHARDS] = {
	[0 ... IOBUF_SHARDS - 1] = { .lock = PTHREAD_MUTEX_INITIALIZER },
};

static atomic_uint_fast64_t in_use;
static atomic_uint_fast64_t cached;
static atomic_uint_fast64_t peak;
/* Since the last iobuf_periodic_trim(): the most in use, classes taken. */
static atomic_uint_fast64_t window_peak;
static atomic_bool class_taken[NCLASSES];
static atomic_uint_fast64_t ceiling = IOBUF_DEFAULT_MAX_MEMORY;
static atomic_uint_fast64_t nallocs;
static atomic_uint_fast64_t nfailures;
static atomic_bool waiters;
static atomic_uint_fast64_t budget; /* iobuf_set_budget(); 0: none */
static void (*_Atomic relief_hook)(void);
static atomic_uint next_shard;
static _Thread_local int my_shard = -1;

void iobuf_set_max_memory(uint64_t bytes)
{
	if (!bytes)
		bytes = IOBUF_DEFAULT_MAX_MEMORY;
	if (bytes < IOBUF_MIN_MAX_MEMORY)
		bytes = IOBUF_MIN_MAX_MEMORY;
	atomic_store(&ceiling, bytes);
}

void iobuf_set_budget(uint64_t bytes)
{
	if (bytes && bytes < IOBUF_MIN_MAX_MEMORY)
		bytes = IOBUF_MIN_MAX_MEMORY;
	atomic_store(&budget, bytes);
}

/* Above this many bytes in use, stop reading: the budget, at most 3/4
 * of the ceiling. */
static uint64_t high_mark(void)
{
	uint64_t max = atomic_load(&ceiling), b = atomic_load(&budget);
	uint64_t high = max - max / 4;

	return b && b < high ? b : high;
}

/* ...and read again below this: 2/3 of it (1/2 of the ceiling when the
 * budget is the ceiling's). */
static uint64_t low_mark(void)
{
	return high_mark() / 3 * 2;
}

static struct iobuf_shard *shard_self(void)
{
	if (my_shard < 0)
		my_shard = (int)(atomic_fetch_add(&next_shard, 1) %
				 IOBUF_SHARDS);
	return &shards[my_shard];
}

static int class_of(size_t size)
{
	for (size_t i = 0; i < NCLASSES; i++)
		if (size <= class_size[i])
			return (int)i;
	return -1;
}

/* Count @sz bytes as in use unless that crosses the ceiling. */
static bool reserve(uint64_t sz)
{
	uint64_t cur = atomic_load(&in_use), max = atomic_load(&ceiling), p;

	do {
		if (cur != 0 && (cur > max || sz > max - cur))
			return false;
	} while (!atomic_compare_exchange_weak(&in_use, &cur, cur + sz));
	cur += sz;
	p = atomic_load(&peak);
	while (cur > p && !atomic_compare_exchange_weak(&peak, &p, cur))
		;
	p = atomic_load(&window_peak);
	while (cur > p && !atomic_compare_exchange_weak(&window_peak, &p, cur))
		;
	return true;
}

static struct iobuf *pop(struct iobuf_shard *s, int cls)
{
	struct iobuf *b;

	pthread_mutex_lock(&s->lock);
	b = s->free[cls];
	if (b)
		s->free[cls] = b->next;
	pthread_mutex_unlock(&s->lock);
	if (b)
		atomic_fetch_sub(&cached, b->size);
	return b;
}

/*
 * Buffers of SLAB_MIN bytes and more (the 1 MiB READ/WRITE classes) are
 * carved from slabs of 4 MiB or more (slab_len()) aligned to 2 MiB and
 * advised for transparent huge pages: a 1 MiB O_DIRECT request then lies
 * in one or two physically contiguous pages instead of 256 small ones,
 * which the kernel pins faster and the disk gets as one or two segments
 * instead of 256 (1 MiB direct reads, 16 threads, on the test VM:
 * 0.8-1.0 GB/s from 4 KiB pages, 1.9-2.6 GB/s from huge pages;
 * docs/PERFORMANCE.md). Without huge pages (THP "never", or none free)
 * the slab is ordinary memory. A slab goes back to the system when its
 * last buffer does (iobuf_trim).
 */
#define HUGE_PAGE (2u << 20)
#define SLAB_SIZE (2 * HUGE_PAGE)
/* Under AddressSanitizer every buffer is malloc'd, with its red zones. */
#if defined(__SANITIZE_ADDRESS__)
#define SLAB_MIN SIZE_MAX
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SLAB_MIN SIZE_MAX
#endif
#endif
#ifndef SLAB_MIN
#define SLAB_MIN (1u << 20)
#endif

struct iobuf_slab {
	uint8_t *base;
	size_t len;          /* slab_len() of its class */
	unsigned int carved; /* buffers cut from it so far */
	unsigned int live;   /* of those, not given back to the system */
	bool full;           /* no longer the class's current slab */
};

static pthread_mutex_t slab_lock = PTHREAD_MUTEX_INITIALIZER;
static struct iobuf_slab *slab_cur[NCLASSES];

/* A slab of @size bytes (a multiple of HUGE_PAGE), 2 MiB aligned. */
static struct iobuf_slab *slab_new(size_t size)
{
	size_t len = size + HUGE_PAGE, head;
	struct iobuf_slab *sl;
	uint8_t *m, *a;

	m = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	head = (HUGE_PAGE - ((uintptr_t)m & (HUGE_PAGE - 1))) & (HUGE_PAGE - 1);
	a = m + head;
	if (head)
		munmap(m, head);
	if (len - head > size)
		munmap(a + size, len - head - size);
	/* Advice only: without it the slab is ordinary memory. */
	(void)madvise(a, size, MADV_HUGEPAGE);
	sl = calloc(1, sizeof(*sl));
	if (!sl) {
		munmap(a, size);
		return NULL;
	}
	sl->base = a;
	sl->len = size;
	return sl;
}

/*
 * The slab length for buffers of @sz bytes: SLAB_SIZE, or the first
 * multiple of HUGE_PAGE up to four times it that @sz pieces fill to within
 * 1/32: a huge page is resident whole once touched, so the tail a slab
 * cannot use costs memory (1 MiB + 128 KiB pieces: 3 in 4 MiB, 16 % lost;
 * 7 in 8 MiB, 1.6 %). A buffer bigger than a slab gets one of its own.
 */
static size_t slab_len(size_t sz)
{
	if (sz > SLAB_SIZE)
		return (sz + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1);
	for (size_t len = SLAB_SIZE; len <= 4 * SLAB_SIZE; len += HUGE_PAGE)
		if (len % sz <= len / 32)
			return len;
	return SLAB_SIZE;
}

/* The next free piece of class @cls's current slab (a new one if none). */
static uint8_t *slab_carve(int cls, struct iobuf_slab **out)
{
	size_t sz = class_size[cls];
	size_t len = slab_len(sz);
	unsigned int n = (unsigned int)(len / sz);
	struct iobuf_slab *sl;
	uint8_t *p;

	pthread_mutex_lock(&slab_lock);
	sl = slab_cur[cls];
	if (!sl) {
		sl = slab_new(len);
		if (!sl) {
			pthread_mutex_unlock(&slab_lock);
			return NULL;
		}
		slab_cur[cls] = sl;
	}
	p = sl->base + (size_t)sl->carved * sz;
	sl->carved++;
	sl->live++;
	if (sl->carved == n) {
		sl->full = true;
		slab_cur[cls] = NULL;
	}
	pthread_mutex_unlock(&slab_lock);
	*out = sl;
	return p;
}

/* Piece @p (@sz bytes) of @sl goes back to the system. */
static void slab_put(struct iobuf_slab *sl, uint8_t *p, size_t sz)
{
	bool gone;

	pthread_mutex_lock(&slab_lock);
	gone = --sl->live == 0 && sl->full;
	pthread_mutex_unlock(&slab_lock);
	if (gone) {
		munmap(sl->base, sl->len);
		free(sl);
	} else {
		/* Pieces are never cut twice: its memory is not needed. */
		(void)madvise(p, sz, MADV_DONTNEED);
	}
}

static void buf_free(struct iobuf *b)
{
	if (b->slab)
		slab_put(b->slab, b->data, b->size);
	else
		free(b->data);
	free(b);
}

/* Free cached buffers of class @c until @want bytes are released; the
 * bytes freed. */
static uint64_t trim_class(int c, uint64_t want)
{
	uint64_t freed = 0;

	for (int i = 0; i < IOBUF_SHARDS && freed < want; i++) {
		struct iobuf *b;

		while (freed < want && (b = pop(&shards[i], c))) {
			freed += b->size;
			buf_free(b);
		}
	}
	return freed;
}

/* Free cached buffers, largest first, until @want bytes are released. */
static void trim_bytes(uint64_t want)
{
	uint64_t freed = 0;

	for (int c = (int)NCLASSES - 1; c >= 0 && freed < want; c--)
		freed += trim_class(c, want - freed);
}

void iobuf_trim(void)
{
	trim_bytes(UINT64_MAX);
}

void iobuf_periodic_trim(void)
{
	uint64_t need = atomic_exchange(&window_peak, atomic_load(&in_use));
	uint64_t have;

	/* A class nobody took since the last call keeps nothing cached... */
	for (int c = 0; c < (int)NCLASSES; c++)
		if (!atomic_exchange(&class_taken[c], false))
			trim_class(c, UINT64_MAX);
	/* ...and the rest is no more than the most that was in use. */
	have = atomic_load(&in_use) + atomic_load(&cached);
	if (have > need)
		trim_bytes(have - need);
}

static struct iobuf *buf_new(size_t size, int cls)
{
	struct iobuf *b = malloc(sizeof(*b));

	if (!b)
		return NULL;
	b->slab = NULL;
	if (cls >= 0 && size >= SLAB_MIN)
		b->data = slab_carve(cls, &b->slab);
	else
		b->data = aligned_alloc(IOBUF_ALIGN, size);
	if (!b->data) {
		free(b);
		return NULL;
	}
	b->size = size;
	b->cls = cls;
	return b;
}

struct iobuf *iobuf_alloc(size_t size)
{
	struct iobuf_shard *s;
	struct iobuf *b = NULL;
	uint64_t total, max;
	size_t sz;
	int cls, i;

	if (!size || size > SIZE_MAX - IOBUF_ALIGN)
		return NULL;
	cls = class_of(size);
	sz = cls >= 0 ? class_size[cls]
		      : (size + IOBUF_ALIGN - 1) & ~(size_t)(IOBUF_ALIGN - 1);
	if (!reserve(sz)) {
		atomic_fetch_add(&nfailures, 1);
		return NULL;
	}
	if (cls >= 0) {
		if (!atomic_load_explicit(&class_taken[cls],
					  memory_order_relaxed))
			atomic_store(&class_taken[cls], true);
		s = shard_self();
		b = pop(s, cls);
		for (i = 1; !b && i < IOBUF_SHARDS; i++)
			b = pop(&shards[(s - shards + i) % IOBUF_SHARDS], cls);
	}
	if (!b) {
		/* New memory: make room under the ceiling from the cache. */
		total = atomic_load(&in_use) + atomic_load(&cached);
		max = atomic_load(&ceiling);
		if (total > max)
			trim_bytes(total - max);
		b = buf_new(sz, cls);
		if (!b) {
			atomic_fetch_sub(&in_use, sz);
			atomic_fetch_add(&nfailures, 1);
			return NULL;
		}
	}
	atomic_init(&b->refs, 1);
	b->next = NULL;
	atomic_fetch_add(&nallocs, 1);
	return b;
}

void iobuf_get(struct iobuf *b)
{
	atomic_fetch_add_explicit(&b->refs, 1, memory_order_relaxed);
}

static void relief_check(void)
{
	void (*fn)(void);

	if (!atomic_load(&waiters) || atomic_load(&in_use) >= low_mark())
		return;
	if (!atomic_exchange(&waiters, false))
		return;
	fn = atomic_load(&relief_hook);
	if (fn)
		fn();
}

void iobuf_put(struct iobuf *b)
{
	struct iobuf_shard *s;
	uint64_t sz;

	if (!b || atomic_fetch_sub_explicit(&b->refs, 1,
					    memory_order_acq_rel) != 1)
		return;
	sz = b->size;
	atomic_fetch_sub(&in_use, sz);
	if (b->cls < 0 || atomic_load(&in_use) + atomic_load(&cached) + sz >
				  atomic_load(&ceiling)) {
		buf_free(b);
	} else {
		s = shard_self();
		atomic_fetch_add(&cached, sz);
		pthread_mutex_lock(&s->lock);
		b->next = s->free[b->cls];
		s->free[b->cls] = b;
		pthread_mutex_unlock(&s->lock);
	}
	relief_check();
}

void iobuf_release(void *b)
{
	iobuf_put(b);
}

bool iobuf_pressure(void)
{
	return atomic_load(&in_use) > high_mark();
}

bool iobuf_wait_relief(void)
{
	atomic_store(&waiters, true);
	/*
	 * Memory freed between the caller's check and the flag: go on. The
	 * flag stays set, so a caller that still cannot allocate and waits
	 * anyway is woken by the next buffer returned.
	 */
	return atomic_load(&in_use) >= low_mark();
}

void iobuf_set_relief_hook(void (*fn)(void))
{
	atomic_store(&relief_hook, fn);
}

void iobuf_stats(struct iobuf_stats *st)
{
	st->in_use = atomic_load(&in_use);
	st->peak = atomic_load(&peak);
	st->cached = atomic_load(&cached);
	st->ceiling = atomic_load(&ceiling);
	st->high_mark = high_mark();
	st->allocs = atomic_load(&nallocs);
	st->failures = atomic_load(&nfailures);
}
