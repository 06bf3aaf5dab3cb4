// SPDX-License-Identifier: MIT
/*
 * The session table and session/tree lifetimes (smb2_session.h).
 *
 * Locking: the table is 64 shards, each a mutex over its buckets; a
 * session's fields are under its own mu; the connection's session list
 * under conn.mu. Order: conn.mu, then a shard, then session.mu. A session
 * holds one reference for being in the table (dropped at teardown) and
 * one for being on its connection's list (dropped when unlinked from it).
 */
#include "smb2/smb2_session.h"

#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "core/log.h"
#include "smb2/smb2_chan.h"
#include "smb2/smb2_open.h"

#define SESS_SHARDS 64
#define SESS_BUCKETS 1024 /* per table; a power of two */

static struct {
	pthread_mutex_t mu[SESS_SHARDS];
	struct smb2_session *bucket[SESS_BUCKETS];
	atomic_uint_fast64_t next;
	uint64_t salt;
	atomic_uint count;
	pthread_once_t once;
} tab = {
	.mu = { [0 ... SESS_SHARDS - 1] = PTHREAD_MUTEX_INITIALIZER },
	.once = PTHREAD_ONCE_INIT,
};

static void tab_init(void)
{
	if (getrandom(&tab.salt, sizeof(tab.salt), 0) != sizeof(tab.salt))
		tab.salt = (uint64_t)(uintptr_t)&tab ^ 0x5bd1e995u;
}

static uint32_t bucket_of(uint64_t id)
{
	uint64_t h = id * 0x9e3779b97f4a7c15ull;

	return (uint32_t)(h >> 40) & (SESS_BUCKETS - 1);
}

static pthread_mutex_t *shard_of(uint32_t b)
{
	return &tab.mu[b % SESS_SHARDS];
}

/*
 * A SessionId to try: a counter whose bits a per-process salt scrambles
 * (an odd multiplier is a bijection on 32 bits), so that ids are not
 * guessable from one another. 32 bits wide, as Samba's and Windows'
 * are: clients keep them in 32-bit variables (smbtorture's
 * smb2.session-id does), and a wider id would not come back. Never 0;
 * the caller checks that no live session has it (the counter wraps).
 */
static uint64_t session_id_next(void)
{
	uint32_t n, id;

	do {
		n = (uint32_t)atomic_fetch_add(&tab.next, 1) + 1;
		id = (n ^ (uint32_t)tab.salt) * 0x9e3779b1u;
	} while (id == 0);
	return id;
}

/* Under the bucket's shard lock: whether a live session has @id. */
static bool session_id_taken(uint32_t b, uint64_t id)
{
	for (const struct smb2_session *s = tab.bucket[b]; s; s = s->hnext)
		if (s->id == id)
			return true;
	return false;
}

struct smb2_session *smb2_session_new(struct smb2_conn *c)
{
	struct smb2_session *s;
	uint32_t b;

	pthread_once(&tab.once, tab_init);
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	pthread_mutex_init(&s->mu, NULL);
	/* the caller's, the table's, the connection list's */
	atomic_init(&s->refs, 3);
	s->conn = c;
	s->next_tree_id = 1;
	s->next_volatile = 1;
	pthread_mutex_lock(&c->mu);
	if (c->closing || c->nsessions >= SMB2_MAX_SESSIONS_PER_CONN) {
		pthread_mutex_unlock(&c->mu);
		pthread_mutex_destroy(&s->mu);
		free(s);
		return NULL;
	}
	for (;;) {
		s->id = session_id_next();
		b = bucket_of(s->id);
		pthread_mutex_lock(shard_of(b));
		if (!session_id_taken(b, s->id))
			break;
		pthread_mutex_unlock(shard_of(b));
	}
	s->hnext = tab.bucket[b];
	tab.bucket[b] = s;
	pthread_mutex_unlock(shard_of(b));
	s->conn_next = c->sessions;
	c->sessions = s;
	c->nsessions++;
	pthread_mutex_unlock(&c->mu);
	atomic_fetch_add(&tab.count, 1);
	return s;
}

/* The session @id on connection @c (NULL: on any), with a reference. */
static struct smb2_session *session_lookup(struct smb2_conn *c, uint64_t id)
{
	uint32_t b = bucket_of(id);
	struct smb2_session *s;

	pthread_mutex_lock(shard_of(b));
	for (s = tab.bucket[b]; s; s = s->hnext)
		if (s->id == id)
			break;
	if (s && c) {
		/* its own connection, or one bound to it (multichannel) */
		bool on;

		pthread_mutex_lock(&s->mu);
		on = s->conn == c || smb2_chan_live(s, c);
		pthread_mutex_unlock(&s->mu);
		if (!on)
			s = NULL;
	}
	if (s)
		smb2_session_get(s);
	pthread_mutex_unlock(shard_of(b));
	return s;
}

struct smb2_session *smb2_session_find(struct smb2_conn *c, uint64_t id)
{
	return session_lookup(c, id);
}

struct smb2_session *smb2_session_find_any(uint64_t id)
{
	return session_lookup(NULL, id);
}

void smb2_session_get(struct smb2_session *s)
{
	atomic_fetch_add(&s->refs, 1);
}

static void session_free(struct smb2_session *s)
{
	struct smb2_chan *ch;

	/* Channels still listed (their connections hold the session until
	 * they close, so none normally is). */
	while ((ch = s->chans) != NULL) {
		s->chans = ch->next;
		smb2_chan_put(ch);
	}
	smb2_session_auth_free(s);
	smb2_session_keys_free(s);
	free(s->opens);
	pthread_mutex_destroy(&s->mu);
	free(s);
}

void smb2_session_put(struct smb2_session *s)
{
	if (s && atomic_fetch_sub(&s->refs, 1) == 1)
		session_free(s);
}

/* Take @s out of the table; true when this call did (its reference). */
static bool table_unlink(struct smb2_session *s)
{
	uint32_t b = bucket_of(s->id);
	struct smb2_session **pp;
	bool found = false;

	pthread_mutex_lock(shard_of(b));
	for (pp = &tab.bucket[b]; *pp; pp = &(*pp)->hnext) {
		if (*pp == s) {
			*pp = s->hnext;
			found = true;
			break;
		}
	}
	pthread_mutex_unlock(shard_of(b));
	if (found)
		atomic_fetch_sub(&tab.count, 1);
	return found;
}

void smb2_session_teardown(struct smb2_session *s)
{
	struct smb2_conn *c;
	struct smb2_session **pp;
	struct smb2_tree *trees;
	bool listed = false, tabled;

	pthread_mutex_lock(&s->mu);
	if (s->dead) {
		pthread_mutex_unlock(&s->mu);
		return;
	}
	/* Its own connection's list (none once that closed: the list let
	 * it go then); bound channels leave it as their connections
	 * close. */
	c = s->conn;
	/* the connection may go before the session's last reference (a
	 * durable open keeps it): nothing reaches it through here */
	s->conn = NULL;
	s->dead = true;
	s->state = SMB2_SESS_EXPIRED;
	trees = s->trees;
	s->trees = NULL;
	atomic_fetch_sub_explicit(&smb2_n_trees, s->ntrees,
				  memory_order_relaxed);
	s->ntrees = 0;
	pthread_mutex_unlock(&s->mu);

	/* Opens first (they hold trees), then the trees. */
	smb2_open_close_all(s);
	while (trees) {
		struct smb2_tree *t = trees;

		trees = t->next;
		t->next = NULL;
		t->dead = true;
		smb2_tree_put(t); /* the session's */
	}
	if (c) {
		pthread_mutex_lock(&c->mu);
		for (pp = &c->sessions; *pp; pp = &(*pp)->conn_next) {
			if (*pp == s) {
				*pp = s->conn_next;
				c->nsessions--;
				listed = true;
				break;
			}
		}
		pthread_mutex_unlock(&c->mu);
	}
	/* Unlinked from both before either reference goes: @s stays valid
	 * until the last put, whoever holds the others. */
	tabled = table_unlink(s);
	if (listed)
		smb2_session_put(s);
	if (tabled)
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): a second ref */
		smb2_session_put(s);
}

struct smb2_session *smb2_session_unbind_first(struct smb2_conn *c)
{
	struct smb2_session *s;

	pthread_mutex_lock(&c->mu);
	s = c->sessions;
	if (s) {
		c->sessions = s->conn_next;
		c->nsessions--;
	}
	pthread_mutex_unlock(&c->mu);
	return s;
}

uint32_t smb2_session_count(void)
{
	return atomic_load(&tab.count);
}

/* ---- trees ---- */

struct smb2_tree *smb2_tree_find(struct smb2_session *s, uint32_t id)
{
	struct smb2_tree *t;

	pthread_mutex_lock(&s->mu);
	for (t = s->trees; t; t = t->next)
		if (t->id == id && !t->dead)
			break;
	if (t)
		smb2_tree_get(t);
	pthread_mutex_unlock(&s->mu);
	return t;
}

void smb2_tree_get(struct smb2_tree *t)
{
	atomic_fetch_add(&t->refs, 1);
}

void smb2_tree_put(struct smb2_tree *t)
{
	if (!t || atomic_fetch_sub(&t->refs, 1) != 1)
		return;
	if (t->table)
		export_table_put(t->table);
	smb2_session_put(t->sess);
	free(t);
}

int smb2_tree_add(struct smb2_session *s, struct smb2_tree *t)
{
	int ret = 0;

	pthread_mutex_lock(&s->mu);
	if (s->dead) {
		ret = -ENOENT;
	} else if (s->ntrees >= SMB2_MAX_TREES_PER_SESSION) {
		ret = -ENOSPC;
	} else {
		/* TreeIds are not reused while the session lives. */
		t->id = s->next_tree_id++;
		if (!s->next_tree_id || s->next_tree_id == UINT32_MAX)
			s->next_tree_id = 1;
		smb2_tree_get(t);
		t->next = s->trees;
		s->trees = t;
		s->ntrees++;
		atomic_fetch_add_explicit(&smb2_n_trees, 1,
					  memory_order_relaxed);
	}
	pthread_mutex_unlock(&s->mu);
	return ret;
}

void smb2_tree_disconnect(struct smb2_tree *t)
{
	struct smb2_session *s = t->sess;
	struct smb2_tree **pp;
	bool found = false;

	smb2_open_close_tree(s, t);
	pthread_mutex_lock(&s->mu);
	for (pp = &s->trees; *pp; pp = &(*pp)->next) {
		if (*pp == t) {
			*pp = t->next;
			s->ntrees--;
			atomic_fetch_sub_explicit(&smb2_n_trees, 1,
						  memory_order_relaxed);
			found = true;
			break;
		}
	}
	t->dead = true;
	pthread_mutex_unlock(&s->mu);
	if (found)
		smb2_tree_put(t);
}
