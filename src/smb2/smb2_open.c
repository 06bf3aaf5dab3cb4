// SPDX-License-Identifier: MIT
/*
 * SMB2 opens (smb2_open.h): the per-session table by volatile id, and
 * what closing an open undoes. The FileId's persistent half is unique
 * over the process (a durable open keeps it across a reconnect,
 * smb2_durable.c) and checked on every lookup, so that a FileId from
 * another open or session never matches.
 *
 * The open registry: every live open of every session, so that a rename
 * of a directory can ask whether anything below it is open (Windows and
 * Samba refuse it then, smbtorture rename.rename_dir_openfile). What is
 * below is the kernel's answer at the time of the rename (vfs_subtree),
 * not our path strings: an NFS client may have renamed a directory above
 * an open since it was made. The registry costs CREATE and CLOSE one
 * uncontended lock and a list link each; it is striped by open so that
 * opens and closes on other threads take other locks, and only a
 * directory rename walks it, one stripe at a time, asking the kernel
 * about each open it holds (one readlink each, no disk I/O) with that
 * stripe's lock held. Lock order: a stripe's lock is taken with no other
 * lock held.
 */
#include "smb2/smb2_open.h"

#include <assert.h>
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "smb2/smb2_async.h"
#include "smb2/smb2_chan.h"
#include "smb2/smb2_durable.h"
#include "smb2/smb2_path.h"
#include "smb2/smb2_session.h"
#include "smb2/smb2_stream.h"
#include "state/file_state.h"
#include "transport/transport.h"
#include "vfs/vfs.h"

static uint64_t persistent_salt;

static void persistent_init(void)
{
	if (getrandom(&persistent_salt, sizeof(persistent_salt), 0) !=
	    sizeof(persistent_salt))
		persistent_salt = (uint64_t)(uintptr_t)&persistent_salt;
}

static uint32_t bucket(uint64_t v)
{
	return (uint32_t)(v * 0x9e3779b97f4a7c15ull >> 50) %
	       SMB2_OPEN_BUCKETS;
}

#define REG_STRIPES 64

/* A stripe of the open registry, on a cache line of its own. */
struct reg_stripe {
	alignas(64) pthread_mutex_t mu;
	struct smb2_open *head;
};

static struct reg_stripe reg[REG_STRIPES] = {
	[0 ... REG_STRIPES - 1] = { .mu = PTHREAD_MUTEX_INITIALIZER },
};

static void reg_link(struct smb2_open *o)
{
	struct reg_stripe *st;

	o->reg_stripe = (uint8_t)(((uintptr_t)o * 0x9e3779b97f4a7c15ull) >> 58);
	st = &reg[o->reg_stripe % REG_STRIPES];
	pthread_mutex_lock(&st->mu);
	o->reg_prev = NULL;
	o->reg_next = st->head;
	if (st->head)
		st->head->reg_prev = o;
	st->head = o;
	o->reg_linked = true;
	pthread_mutex_unlock(&st->mu);
}

/* Out of the registry, if it is in (idempotent). */
static void reg_unlink(struct smb2_open *o)
{
	struct reg_stripe *st = &reg[o->reg_stripe % REG_STRIPES];

	pthread_mutex_lock(&st->mu);
	if (o->reg_linked) {
		if (o->reg_prev)
			o->reg_prev->reg_next = o->reg_next;
		else
			st->head = o->reg_next;
		if (o->reg_next)
			o->reg_next->reg_prev = o->reg_prev;
		o->reg_prev = o->reg_next = NULL;
		o->reg_linked = false;
	}
	pthread_mutex_unlock(&st->mu);
}

bool smb2_open_any_below(struct vfs_obj *dir)
{
	struct vfs_subtree *t;
	struct smb2_open *o;
	bool found = false;

	/* The renaming open itself is one: nothing else is open. */
	if (atomic_load_explicit(&smb2_n_opens, memory_order_relaxed) +
		    smb2_durable_idle() <= 1)
		return false;
	t = malloc(sizeof(*t));
	if (!t)
		return false;
	if (vfs_subtree_init(t, dir))
		goto out_free; /* no name to compare: nothing found */
	for (unsigned int i = 0; i < REG_STRIPES && !found; i++) {
		pthread_mutex_lock(&reg[i].mu);
		for (o = reg[i].head; o && !found; o = o->reg_next)
			found = vfs_subtree_holds(t, o->obj);
		pthread_mutex_unlock(&reg[i].mu);
	}
out_free:
	free(t);
	return found;
}

/* A fresh FileId.Persistent: a counter from a random start, never 0 or
 * all ones (scrambled: not guessable from another open's). */
static uint64_t persistent_next(void)
{
	static atomic_uint_fast64_t next;
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	uint64_t v;

	(void)pthread_once(&once, persistent_init);
	do {
		v = atomic_fetch_add(&next, 1) * 0x9e3779b97f4a7c15ull ^
		    persistent_salt;
	} while (!v || v == UINT64_MAX);
	return v;
}

int smb2_open_add(struct smb2_session *s, struct smb2_open *o)
{
	bool fresh = !o->persistent;
	int ret = 0;
	uint32_t b;

	/* A new open: in the registry before a FileId exists, so that no
	 * close can come first; out again below when the add fails. A
	 * durable open taken back is in it already. */
	if (fresh)
		reg_link(o);
	pthread_mutex_lock(&s->mu);
	if (s->dead) {
		ret = -ENOENT;
		goto out_unlock;
	}
	if (s->nopens >= SMB2_MAX_OPENS_PER_SESSION) {
		ret = -ENOSPC;
		goto out_unlock;
	}
	if (!s->opens) {
		/* NOLINTNEXTLINE(bugprone-sizeof-expression): array of pointers */
		s->opens = calloc(SMB2_OPEN_BUCKETS, sizeof(*s->opens));
		if (!s->opens) {
			ret = -ENOMEM;
			goto out_unlock;
		}
	}
	o->volatile_id = s->next_volatile++;
	if (!o->persistent)
		o->persistent = persistent_next();
	b = bucket(o->volatile_id);
	o->hnext = s->opens[b];
	s->opens[b] = o;
	s->nopens++;
	atomic_fetch_add_explicit(&smb2_n_opens, 1, memory_order_relaxed);
	smb2_open_get(o); /* the table's */
out_unlock:
	pthread_mutex_unlock(&s->mu);
	if (ret && fresh)
		reg_unlink(o);
	return ret;
}

struct smb2_open *smb2_open_find(struct smb2_session *s, uint64_t persistent,
				 uint64_t volatile_id)
{
	struct smb2_open *o = NULL;

	pthread_mutex_lock(&s->mu);
	if (s->opens)
		for (o = s->opens[bucket(volatile_id)]; o; o = o->hnext)
			if (o->volatile_id == volatile_id)
				break;
	if (o && (o->persistent != persistent || atomic_load(&o->dead)))
		o = NULL;
	if (o)
		smb2_open_get(o);
	pthread_mutex_unlock(&s->mu);
	return o;
}

char *smb2_open_path(struct smb2_open *o, struct req *r)
{
	size_t n;
	char *p;

	pthread_mutex_lock(&o->mu);
	n = strlen(o->path) + 1;
	p = r ? req_alloc_raw(r, n) : malloc(n);
	if (p)
		memcpy(p, o->path, n);
	pthread_mutex_unlock(&o->mu);
	return p;
}

void smb2_open_get(struct smb2_open *o)
{
	atomic_fetch_add(&o->refs, 1);
}

static void open_free(struct smb2_open *o)
{
	assert(!o->reg_linked);
	if (o->sf)
		state_file_put(o->sf);
	if (o->obj)
		vfs_obj_put(o->obj);
	smb2_tree_put(o->tree);
	if (o->grant_conn)
		transport_conn_put(o->grant_conn);
	pthread_mutex_destroy(&o->mu);
	pthread_mutex_destroy(&o->dir_mu);
	for (unsigned int i = 0; i < o->nsf_old; i++) {
		state_file_put(o->sf_old[i]);
		free(o->stream_old[i]);
	}
	free(o->stream);
	free(o->path);
	free(o->dir_pattern);
	free(o);
}

void smb2_open_put(struct smb2_open *o)
{
	if (o && atomic_fetch_sub(&o->refs, 1) == 1)
		open_free(o);
}

/* Unlink @o from @s's table; true when this call did (its reference). */
static bool table_unlink(struct smb2_session *s, struct smb2_open *o)
{
	struct smb2_open **pp;
	bool found = false;

	pthread_mutex_lock(&s->mu);
	if (s->opens) {
		for (pp = &s->opens[bucket(o->volatile_id)]; *pp;
		     pp = &(*pp)->hnext) {
			if (*pp == o) {
				*pp = o->hnext;
				s->nopens--;
				atomic_fetch_sub_explicit(&smb2_n_opens, 1,
							  memory_order_relaxed);
				found = true;
				break;
			}
		}
	}
	pthread_mutex_unlock(&s->mu);
	return found;
}

/*
 * What the open held in the shared file state goes. Delete-on-close
 * (MS-FSA 2.1.5.4): an open made with FILE_DELETE_ON_CLOSE marks the
 * file delete-pending as it closes, and the close of the last SMB open
 * of a marked file (whichever it is) deletes it.
 */
static int open_release(struct smb2_open *o)
{
	struct state_holder h = { .id = o, .tag = STATE_HOLDER_SMB };
	bool mark, del;
	int ret = 0;

	/* o->dead is set: a lock retried from a timer checks it under
	 * o->mu, so after this no lock of this open appears any more. */
	pthread_mutex_lock(&o->mu);
	mark = o->delete_on_close;
	o->delete_on_close = false;
	pthread_mutex_unlock(&o->mu);
	if (!o->sf)
		return 0;
	state_unlock_all(o->sf, &h);
	if (mark)
		state_delete_pending_set(o->sf, true);
	del = state_share_release_last(o->sf, &h);
	if (del && o->stream) {
		ret = smb2_stream_remove(o->obj, o->stream);
	} else if (del) {
		char *path = smb2_open_path(o, NULL);

		ret = path ? smb2_path_remove(o->tree, path, o->obj) : -ENOMEM;
		free(path);
	}
	/* Its oplock last: a break waiting for this close ends, and the
	 * opens it held back find the share gone, and a file deleted on
	 * close gone too (they run again at once). */
	smb2_oplock_release(o);
	return ret;
}

int smb2_open_close(struct smb2_session *s, struct smb2_open *o)
{
	bool linked = table_unlink(s, o);
	int ret = 0;

	/* A rename of a directory above it no longer finds it. */
	reg_unlink(o);

	/* Its pending CHANGE_NOTIFY and blocking LOCKs end first
	 * (STATUS_NOTIFY_CLEANUP, STATUS_CANCELLED). */
	smb2_session_async_end_open(s, o);
	/* Out of the table first: a concurrent closer never finds it again;
	 * whichever marks it dead releases what it holds. */
	if (!atomic_exchange(&o->dead, true))
		ret = open_release(o);
	if (linked)
		smb2_open_put(o);
	if (smb2_durable_forget(o))
		smb2_open_put(o); /* the durable table's */
	return ret;
}

/* Close every open of @s matching @t (NULL: all). */
static void close_matching(struct smb2_session *s, struct smb2_tree *t)
{
	struct smb2_open *o;
	uint32_t b;

	for (;;) {
		o = NULL;
		pthread_mutex_lock(&s->mu);
		for (b = 0; s->opens && b < SMB2_OPEN_BUCKETS && !o; b++)
			for (o = s->opens[b]; o; o = o->hnext)
				if (!t || o->tree == t)
					break;
		if (o)
			smb2_open_get(o);
		pthread_mutex_unlock(&s->mu);
		if (!o)
			return;
		smb2_open_close(s, o);
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): our reference */
		smb2_open_put(o);
	}
}

void smb2_open_close_all(struct smb2_session *s)
{
	close_matching(s, NULL);
}

void smb2_open_disconnect_all(struct smb2_session *s)
{
	struct smb2_open *o;
	uint32_t b;

	for (;;) {
		o = NULL;
		pthread_mutex_lock(&s->mu);
		for (b = 0; s->opens && b < SMB2_OPEN_BUCKETS && !o; b++)
			o = s->opens[b];
		if (o)
			smb2_open_get(o);
		pthread_mutex_unlock(&s->mu);
		if (!o)
			return;
		if (table_unlink(s, o)) {
			/* kept for a reconnect (the durable table holds
			 * it), or closed; what waited on it ends */
			smb2_session_async_end_open(s, o);
			if (!smb2_durable_keep(o))
				smb2_open_close(s, o);
			smb2_open_put(o); /* the session table's */
		}
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): our reference */
		smb2_open_put(o);
	}
}

void smb2_open_close_tree(struct smb2_session *s, struct smb2_tree *t)
{
	close_matching(s, t);
}
