/* SPDX-License-Identifier: MIT */
#ifndef NASD_STATE_FILE_STATE_INT_H
#define NASD_STATE_FILE_STATE_INT_H

/*
 * Internals of the shared file state (src/state/): the entry and its
 * records, for file.c, share.c, lock.c and the unit tests. The locking
 * rules are in file.c's header comment.
 */

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "state/file_state.h"

/* A tiny intrusive doubly linked list. */
struct state_link {
	struct state_link *next, *prev;
};

static inline void state_link_init(struct state_link *h)
{
	h->next = h->prev = h;
}

static inline bool state_link_empty(const struct state_link *h)
{
	return h->next == h;
}

/* Insert @n before @pos (at the tail when @pos is the head). */
static inline void state_link_add_before(struct state_link *pos,
					 struct state_link *n)
{
	n->prev = pos->prev;
	n->next = pos;
	pos->prev->next = n;
	pos->prev = n;
}

/*
 * clang-analyzer (unix.Malloc) cannot tell that an entry's prev is the
 * list head, so after state_link_del() and free() it may still see the
 * head pointing at the entry: the reads it then flags are suppressed
 * inline with a pointer here.
 */
static inline void state_link_del(struct state_link *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	n->next = n->prev = n;
}

#define state_container_of(ptr, type, member)                                  \
	((type *)(void *)((char *)(ptr)-offsetof(type, member)))

/* One holder's share reservation on a file. */
struct state_share {
	struct state_link link;        /* state_file.shares */
	struct state_holder holder;
	uint32_t access;               /* STATE_ACCESS_* */
	uint32_t deny;                 /* STATE_DENY_* */
};

/* One byte-range lock. */
struct state_lock {
	struct state_link link;        /* state_file.locks, sorted by start */
	struct state_holder holder;
	struct state_range range;
	bool excl;
	bool win;                      /* Windows flavor: stacks, mandatory */
};

struct state_file {
	/* Table linkage: under the shard lock. */
	struct state_file *hnext;
	uint32_t refs;                 /* callers' + 1 while it has state */
	/* Immutable while the entry lives. */
	struct vfs_obj *obj;           /* a vfs reference */
	char *stream;                  /* a named stream of obj, or NULL */
	pthread_mutex_t mu;
	/* Everything below: under @mu. */
	bool has_state;                /* holds the state's reference */
	struct state_link shares;      /* struct state_share */
	uint32_t nshares;
	uint32_t nacc[3];              /* shares with each access bit */
	uint32_t ndeny[3];             /* shares with each deny bit */
	/* SMB: the file goes at the last SMB open's close (MS-FSA
	 * 2.1.5.4); new SMB opens fail meanwhile. Cleared with it. */
	bool delete_pending;
	struct state_link locks;       /* struct state_lock, by start */
	uint32_t nlocks;
	uint32_t nwin;                 /* Windows locks among them */
	/* Locks mirrored to a backend that other servers share (lock.c):
	 * @remote is immutable, @remote_used says the backend keeps
	 * something for this file until the last lock goes. */
	bool remote;
	bool remote_used;
	/* Others may change the file unseen (vfs_obj_changed_elsewhere):
	 * no caching grant. Immutable. */
	bool elsewhere;
	/* Caching grants (grant.c): a grant is state like a share, it
	 * keeps the entry. Waiters hold references of their own. */
	struct state_link grants;      /* struct state_grant */
	uint32_t ngrants;
	uint32_t nbreaking;            /* grants whose break awaits an answer */
	struct state_grant_waiter *waiters;
};

/* Global counters (file.c); see struct state_counts. */
extern atomic_uint state_g_files;
extern atomic_uint state_g_ranges;
extern atomic_uint state_g_win_ranges;
extern atomic_uint state_g_shares;
extern atomic_uint state_g_deny[3];
extern atomic_uint state_g_max_ranges;

/*
 * state_file_settle() - after a change to @f's shares or locks (under
 * f->mu, caller holding a reference): take or drop the reference that
 * state holds, so that an entry with state outlives its callers.
 */
void state_file_settle(struct state_file *f);

/* The bit index of each STATE_ACCESS_* / STATE_DENY_* bit. */
#define STATE_NBITS 3

/* Does @h belong to a lapsed client (state_set_lapsed)? @f->mu held. */
bool state_holder_lapsed(const struct state_holder *h);

#endif
