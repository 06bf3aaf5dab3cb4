/* SPDX-License-Identifier: MIT */
/*
 * Per-call bump allocator. The first chunk is lent by the transport (it is
 * part of the transport's call object, so a typical request allocates
 * nothing); later chunks are malloc'd and chained on arena_overflow, and
 * all of them are freed at once by rpc_call_finish().
 */
#include "rpc/rpc.h"
#include "rpc/rpc_int.h"

#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_ALIGN alignof(max_align_t)
#define ARENA_CHUNK (16 * 1024)

struct arena_chunk {
	struct arena_chunk *next;
	alignas(max_align_t) uint8_t data[];
};

static size_t arena_round(size_t n)
{
	return (n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
}

void rpc_call_init(struct rpc_call *call, void *arena, size_t arena_size)
{
	memset(call, 0, offsetof(struct rpc_call, arena));
	call->arena = arena;
	call->arena_used = 0;
	call->arena_size = arena_size;
	call->arena_overflow = NULL;
	call->tail_release = NULL;
	call->tail_arg = NULL;
	xdr_tail_clear(&call->res);
}

void *rpc_call_alloc_raw(struct rpc_call *call, size_t n)
{
	struct arena_chunk *c;
	size_t sz;
	void *p;

	n = arena_round(n ? n : 1);
	if (n < n - 1)
		return NULL;
	if (call->arena && call->arena_size - call->arena_used >= n) {
		p = call->arena + call->arena_used;
		call->arena_used += n;
		return p;
	}
	/* A big request gets a chunk of its own; the current chunk stays. */
	if (n > ARENA_CHUNK / 2) {
		if (n > SIZE_MAX - sizeof(*c))
			return NULL;
		c = malloc(sizeof(*c) + n);
		if (!c)
			return NULL;
		c->next = call->arena_overflow;
		call->arena_overflow = c;
		return c->data;
	}
	sz = ARENA_CHUNK;
	c = malloc(sizeof(*c) + sz);
	if (!c)
		return NULL;
	c->next = call->arena_overflow;
	call->arena_overflow = c;
	call->arena = c->data;
	call->arena_size = sz;
	call->arena_used = n;
	return c->data;
}

void *rpc_call_alloc(struct rpc_call *call, size_t n)
{
	void *p = rpc_call_alloc_raw(call, n);

	if (p)
		memset(p, 0, n);
	return p;
}

void rpc_call_finish(struct rpc_call *call)
{
	struct arena_chunk *c, *next;

	if (call->tail_release) {
		call->tail_release(call->tail_arg);
		call->tail_release = NULL;
		call->tail_arg = NULL;
	}
	for (c = call->arena_overflow; c; c = next) {
		next = c->next;
		free(c);
	}
	call->arena_overflow = NULL;
	call->arena = NULL;
	call->arena_size = 0;
	call->arena_used = 0;
}
