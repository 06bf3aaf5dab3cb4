/* SPDX-License-Identifier: MIT */
/*
 * Duplicate request cache. One mutex: only non-idempotent procedures
 * (NFSv3 CREATE, REMOVE, WRITE, ...) and NFSv4.0 COMPOUNDs come here,
 * never NFSv3 READ/GETATTR or a 4.1 COMPOUND.
 */
#include "rpc/drc.h"

#include <assert.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define DRC_BUCKETS 8192 /* power of two */
#define DRC_HASH_LEN 256  /* argument bytes hashed into the key */

enum drc_state {
	DRC_STATE_IN_PROGRESS,
	DRC_STATE_DONE,
};

struct drc_key {
	uint32_t xid;
	uint32_t prog;
	uint32_t vers;
	uint32_t proc;
	uint32_t args_len;
	uint16_t family;
	uint16_t port;
	uint8_t addr[16];
	uint64_t args_hash;
};

struct drc_entry {
	struct drc_key key;
	enum drc_state state;
	struct drc_entry *hnext;
	/* LRU of DONE entries: oldest at lru_head */
	struct drc_entry *lprev;
	struct drc_entry *lnext;
	uint8_t *reply;
	size_t reply_len;
	uint32_t bucket;
};

static pthread_mutex_t drc_lock = PTHREAD_MUTEX_INITIALIZER;
static struct drc_entry *drc_table[DRC_BUCKETS];
static struct drc_entry *lru_head, *lru_tail;
static size_t drc_nentries;
static size_t drc_nbytes;

uint64_t drc_hash64(const uint8_t *p, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ (uint64_t)n;
	uint64_t w;

	while (n >= 8) {
		memcpy(&w, p, 8);
		h ^= w * 0xbf58476d1ce4e5b9ull;
		h = (h << 31 | h >> 33) * 0x94d049bb133111ebull;
		p += 8;
		n -= 8;
	}
	w = 0;
	if (n)
		memcpy(&w, p, n);
	h ^= w * 0xbf58476d1ce4e5b9ull;
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebull;
	h ^= h >> 31;
	return h;
}

static void drc_key_fill(struct drc_key *k, const struct rpc_call *call,
			 const uint8_t *args, size_t args_len)
{
	memset(k, 0, sizeof(*k));
	k->xid = call->xid;
	k->prog = call->prog;
	k->vers = call->vers;
	k->proc = call->proc;
	k->args_len = (uint32_t)args_len;
	/*
	 * As knfsd (RC_CSUMLEN): the first bytes identify the call (handle,
	 * offset, count of a WRITE); hashing a 1 MiB payload would cost more
	 * than the write itself.
	 */
	k->args_hash = drc_hash64(args, args_len < DRC_HASH_LEN ? args_len
							    : DRC_HASH_LEN);
	k->family = call->req->peer->ss_family;
	if (k->family == AF_INET) {
		const struct sockaddr_in *s = (const void *)call->req->peer;

		memcpy(k->addr, &s->sin_addr, 4);
		k->port = s->sin_port;
	} else if (k->family == AF_INET6) {
		const struct sockaddr_in6 *s = (const void *)call->req->peer;

		memcpy(k->addr, &s->sin6_addr, 16);
		k->port = s->sin6_port;
	}
}

static uint32_t drc_key_bucket(const struct drc_key *k)
{
	uint64_t h = k->args_hash ^ drc_hash64((const uint8_t *)k,
					       offsetof(struct drc_key,
							args_hash));

	return (uint32_t)h & (DRC_BUCKETS - 1);
}

static bool drc_key_eq(const struct drc_key *a, const struct drc_key *b)
{
	return memcmp(a, b, sizeof(*a)) == 0;
}

static void lru_unlink(struct drc_entry *e)
{
	if (e->lprev)
		e->lprev->lnext = e->lnext;
	else
		lru_head = e->lnext;
	if (e->lnext)
		e->lnext->lprev = e->lprev;
	else
		lru_tail = e->lprev;
	e->lprev = e->lnext = NULL;
}

static void lru_append(struct drc_entry *e)
{
	e->lnext = NULL;
	e->lprev = lru_tail;
	if (lru_tail)
		lru_tail->lnext = e;
	else
		lru_head = e;
	lru_tail = e;
}

/* Unhash and free @e; drc_lock held. */
static void drc_remove_locked(struct drc_entry *e)
{
	struct drc_entry **pp = &drc_table[e->bucket];

	while (*pp && *pp != e)
		pp = &(*pp)->hnext;
	if (*pp)
		*pp = e->hnext;
	if (e->state == DRC_STATE_DONE)
		lru_unlink(e);
	drc_nbytes -= e->reply_len;
	drc_nentries--;
	free(e->reply);
	free(e);
}

/* Evict the oldest finished entry; false when there is none. */
static bool drc_evict_locked(void)
{
	if (!lru_head)
		return false;
	/* The head is first, and only finished entries are on the LRU. */
	assert(!lru_head->lprev && lru_head->state == DRC_STATE_DONE);
	drc_remove_locked(lru_head);
	return true;
}

enum drc_verdict drc_begin(struct rpc_call *call, const uint8_t *args,
			   size_t args_len, struct drc_entry **out)
{
	struct drc_entry *e;
	struct drc_key k;
	uint32_t b;
	uint8_t *copy;

	*out = NULL;
	drc_key_fill(&k, call, args, args_len);
	b = drc_key_bucket(&k);
	pthread_mutex_lock(&drc_lock);
	for (e = drc_table[b]; e; e = e->hnext) {
		if (!drc_key_eq(&e->key, &k))
			continue;
		if (e->state == DRC_STATE_IN_PROGRESS) {
			pthread_mutex_unlock(&drc_lock);
			return DRC_IN_PROGRESS;
		}
		/* Copy under the lock: the entry may be evicted after. The
		 * stored bytes are the whole reply, header included. */
		copy = req_reply_start(call->req, e->reply_len);
		if (!copy) {
			pthread_mutex_unlock(&drc_lock);
			/* No memory: drop it, the client retries. */
			return DRC_IN_PROGRESS;
		}
		memcpy(copy, e->reply, e->reply_len);
		lru_unlink(e);
		lru_append(e);
		req_reply_used(call->req, e->reply_len);
		pthread_mutex_unlock(&drc_lock);
		return DRC_REPLAY;
	}
	while (drc_nentries >= DRC_MAX_ENTRIES)
		if (!drc_evict_locked())
			break;
	if (drc_nentries >= DRC_MAX_ENTRIES) {
		pthread_mutex_unlock(&drc_lock);
		return DRC_MISS;
	}
	e = calloc(1, sizeof(*e));
	if (!e) {
		pthread_mutex_unlock(&drc_lock);
		return DRC_MISS;
	}
	e->key = k;
	e->state = DRC_STATE_IN_PROGRESS;
	e->bucket = b;
	e->hnext = drc_table[b];
	drc_table[b] = e;
	drc_nentries++;
	pthread_mutex_unlock(&drc_lock);
	*out = e;
	return DRC_MISS;
}

void drc_finish(struct drc_entry *e, const struct req *r)
{
	size_t len;
	uint8_t *buf;

	if (!e)
		return;
	len = req_reply_len(r);
	/*
	 * A reply bigger than 1/64 of the budget is not worth keeping; one
	 * ending in a file range (READ, never cached) cannot be kept.
	 */
	buf = len <= DRC_MAX_BYTES / 64 &&
			      r->reply.payload.kind != PAYLOAD_FILE
		      ? malloc(len ? len : 1)
		      : NULL;
	if (!buf || req_reply_copy(r, 0, buf, len) != (ssize_t)len) {
		free(buf);
		drc_abort(e);
		return;
	}
	pthread_mutex_lock(&drc_lock);
	while (drc_nbytes + len > DRC_MAX_BYTES)
		if (!drc_evict_locked())
			break;
	e->reply = buf;
	e->reply_len = len;
	e->state = DRC_STATE_DONE;
	drc_nbytes += len;
	lru_append(e);
	pthread_mutex_unlock(&drc_lock);
}

void drc_abort(struct drc_entry *e)
{
	if (!e)
		return;
	pthread_mutex_lock(&drc_lock);
	drc_remove_locked(e);
	pthread_mutex_unlock(&drc_lock);
}

void drc_flush(void)
{
	pthread_mutex_lock(&drc_lock);
	while (drc_evict_locked())
		;
	pthread_mutex_unlock(&drc_lock);
}
