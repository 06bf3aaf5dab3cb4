// SPDX-License-Identifier: MIT
/*
 * NFSv4.1 sessions (RFC 8881 §2.10): the session table, slot tables with
 * exactly-once semantics (§2.10.6), the reply cache of each slot and the
 * connections bound to a session (§2.10.3.1).
 *
 * Sessions are found through a sharded hash (SEQUENCE takes no global
 * lock) and pinned; each has its own mutex for its slots, connections
 * and back-channel state. Creation and destruction are under nfs4_st.mu
 * and the client's mutex (state_int.h has the lock order).
 */
#include <stdlib.h>
#include <string.h>

#include "nfs4/state/state_int.h"

static struct nfs4_session_shard *
session_shard(const uint8_t id[NFS4_SESSIONID_SIZE], uint32_t *bucket)
{
	uint32_t h = nfs4_hash_bytes(id, NFS4_SESSIONID_SIZE);

	*bucket = (h / NFS4_SHARDS) % NFS4_SHARD_BUCKETS;
	return &nfs4_st.session_hash[h % NFS4_SHARDS];
}

/* Under the shard lock. */
static struct nfs4_session *shard_find(struct nfs4_session_shard *sh,
				       uint32_t b,
				       const uint8_t id[NFS4_SESSIONID_SIZE])
{
	struct nfs4_session *s;

	for (s = sh->b[b]; s; s = s->hnext)
		if (memcmp(s->id, id, NFS4_SESSIONID_SIZE) == 0)
			return s;
	return NULL;
}

/**
 * nfs4_session_new() - see state_int.h: @nslots slots and the negotiated
 * channel attributes. NULL at the limits or without memory.
 */
struct nfs4_session *nfs4_session_new(struct nfs4_client *cl,
				      const struct channel_attrs4 *fore,
				      const struct channel_attrs4 *back,
				      uint32_t flags, uint32_t cb_program)
{
	struct nfs4_session_shard *sh;
	struct nfs4_session *s;
	uint64_t n;
	uint32_t b;

	if (cl->nsessions >= NFS4_MAX_SESSIONS_PER_CLIENT ||
	    !nfs4_client_mem_reserve(nfs4_session_mem(fore->ca_maxrequests),
				     cl))
		return NULL;
	s = calloc(1, sizeof(*s));
	if (s) {
		s->nslots = fore->ca_maxrequests;
		s->slots = calloc(s->nslots, sizeof(*s->slots));
	}
	if (!s || !s->slots) {
		free(s);
		nfs4_client_mem_release(
			nfs4_session_mem(fore->ca_maxrequests));
		return NULL;
	}
	/* boot id | counter | clientid low half: unique, and never valid
	 * after a restart */
	n = nfs4_next_id();
	memcpy(s->id, &nfs4_st.boot_id, 4);
	memcpy(s->id + 4, &n, 8);
	memcpy(s->id + 12, &cl->clientid, 4);
	nfs4_client_get(cl);
	s->client = cl;
	s->fore = *fore;
	s->back = *back;
	s->flags = flags;
	s->cb_program = cb_program;
	s->cb_state = NFS4_CB_DOWN;
	s->cb_sec.flavor = AUTH_NONE;
	atomic_init(&s->refs, 1);
	pthread_mutex_init(&s->mu, NULL);
	nfs4_client_lock(cl);
	nfs4_list_add_tail(&cl->sessions, &s->client_link);
	cl->nsessions++;
	pthread_mutex_unlock(&cl->mu);
	nfs4_st.nsessions++;
	sh = session_shard(s->id, &b);
	pthread_mutex_lock(&sh->mu);
	s->hnext = sh->b[b];
	sh->b[b] = s;
	pthread_mutex_unlock(&sh->mu);
	return s;
}

/** nfs4_session_find() - see state_int.h. */
struct nfs4_session *nfs4_session_find(const uint8_t id[NFS4_SESSIONID_SIZE])
{
	uint32_t b;
	struct nfs4_session_shard *sh = session_shard(id, &b);
	struct nfs4_session *s;

	pthread_mutex_lock(&sh->mu);
	s = shard_find(sh, b, id);
	pthread_mutex_unlock(&sh->mu);
	return s;
}

/** nfs4_session_lookup() - see state_int.h. */
struct nfs4_session *nfs4_session_lookup(const uint8_t id[NFS4_SESSIONID_SIZE])
{
	uint32_t b;
	struct nfs4_session_shard *sh = session_shard(id, &b);
	struct nfs4_session *s;

	pthread_mutex_lock(&sh->mu);
	s = shard_find(sh, b, id);
	if (s)
		atomic_fetch_add(&s->refs, 1);
	pthread_mutex_unlock(&sh->mu);
	return s;
}

/** nfs4_session_get() - another pin on @s (the caller has one). */
void nfs4_session_get(struct nfs4_session *s)
{
	atomic_fetch_add(&s->refs, 1);
}

/** nfs4_session_put() - drop a reference; the last one frees @s. */
void nfs4_session_put(struct nfs4_session *s)
{
	uint32_t i;

	if (atomic_fetch_sub(&s->refs, 1) != 1)
		return;
	for (i = 0; i < s->nconns; i++)
		nfs4_bc_conn_put(s->conns[i]);
	for (i = 0; i < s->nslots; i++) {
		atomic_fetch_sub(&nfs4_st.cache_bytes, s->slots[i].cache_len);
		free(s->slots[i].cache);
	}
	free(s->slots);
	pthread_mutex_destroy(&s->mu);
	nfs4_client_put(s->client);
	free(s);
}

/**
 * nfs4_session_destroy() - see state_int.h: requests that still hold @s
 * finish, then the last put frees it.
 */
void nfs4_session_destroy(struct nfs4_session *s)
{
	struct nfs4_session_shard *sh;
	struct nfs4_session **pp;
	uint32_t b;

	if (s->dead)
		return;
	sh = session_shard(s->id, &b);
	pthread_mutex_lock(&sh->mu);
	for (pp = &sh->b[b]; *pp; pp = &(*pp)->hnext) {
		if (*pp == s) {
			*pp = s->hnext;
			break;
		}
	}
	pthread_mutex_unlock(&sh->mu);
	nfs4_list_del(&s->client_link);
	s->client->nsessions--;
	nfs4_st.nsessions--;
	nfs4_client_mem_release(nfs4_session_mem(s->nslots));
	pthread_mutex_lock(&s->mu);
	s->dead = true;
	pthread_mutex_unlock(&s->mu);
	nfs4_session_put(s);
}

static void unbind_at(struct nfs4_session *s, uint32_t i)
{
	struct conn *c = s->conns[i];
	/* NOLINTNEXTLINE(bugprone-sizeof-expression): array of pointers */
	size_t tail = sizeof(s->conns[0]) * (s->nconns - i - 1);

	memmove(&s->conns[i], &s->conns[i + 1], tail);
	memmove(&s->conn_dir[i], &s->conn_dir[i + 1], s->nconns - i - 1);
	s->nconns--;
	if (s->cb_conn == c)
		s->cb_conn = NULL;
	nfs4_bc_conn_put(c);
}

/**
 * nfs4_session_bind_conn() - associate the connection @conn with @s for
 * directions @dir (CDFS4_*), pinning it until it is unbound (it closes,
 * or the session goes). The oldest binding makes room at the
 * per-session limit. A connection already closed is not bound. Returns
 * true when @conn was not bound for the back channel before and now is.
 */
bool nfs4_session_bind_conn(struct nfs4_session *s, struct conn *conn,
			    uint8_t dir)
{
	uint32_t i;
	bool was_back;

	for (i = 0; i < s->nconns; i++) {
		if (s->conns[i] == conn) {
			was_back = s->conn_dir[i] & CDFS4_BACK;
			s->conn_dir[i] |= dir;
			return !was_back && (dir & CDFS4_BACK);
		}
	}
	if (!nfs4_bc_conn_get(conn))
		return false;
	if (s->nconns == NFS4_MAX_CONNS_PER_SESSION)
		unbind_at(s, 0);
	s->conns[s->nconns] = conn;
	s->conn_dir[s->nconns] = dir;
	s->nconns++;
	return (dir & CDFS4_BACK) != 0;
}

/**
 * nfs4_session_unbind_conn() - @conn no longer serves @s (it closed);
 * the back channel is down if it was the one probed, unless another
 * back-channel connection remains (probed again then).
 */
void nfs4_session_unbind_conn(struct nfs4_session *s, struct conn *conn)
{
	uint32_t i;
	bool probed;

	for (i = 0; i < s->nconns; i++) {
		if (s->conns[i] != conn)
			continue;
		probed = s->cb_conn == conn;
		unbind_at(s, i);
		if (probed && !s->dead)
			nfs4_bc_probe(s);
		return;
	}
}

/* One 64-bit word into the digest (multiply, then fold the high bits
 * down: every input bit reaches every output bit within two words). */
static uint64_t digest_mix(uint64_t h, uint64_t w)
{
	h = (h ^ w) * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

/**
 * nfs4_seq_digest() - see state_int.h: the head of the arguments eight
 * bytes at a time (byte by byte it was the first of nasd's own functions
 * in a profile of NFSv4.1 I/O, 5 % of its samples), then the rest, then
 * the length.
 */
uint64_t nfs4_seq_digest(const uint8_t *args, size_t len)
{
	uint64_t h = 14695981039346656037ull, w;
	size_t i, n = len < NFS4_SEQ_DIGEST_BYTES ? len : NFS4_SEQ_DIGEST_BYTES;

	for (i = 0; i + 8 <= n; i += 8) {
		memcpy(&w, args + i, 8);
		h = digest_mix(h, w);
	}
	if (i < n) {
		w = 0;
		memcpy(&w, args + i, n - i);
		h = digest_mix(h, w);
	}
	return digest_mix(h, (uint64_t)len);
}

/** nfs4_session_conn_bound() - is @conn bound to @s? */
bool nfs4_session_conn_bound(const struct nfs4_session *s,
			     const struct conn *conn)
{
	uint32_t i;

	for (i = 0; i < s->nconns; i++)
		if (s->conns[i] == conn)
			return true;
	return false;
}

/** nfs4_session_has_backchannel() - a connection bound for callbacks? */
bool nfs4_session_has_backchannel(const struct nfs4_session *s)
{
	uint32_t i;

	for (i = 0; i < s->nconns; i++)
		if (s->conn_dir[i] & CDFS4_BACK)
			return true;
	return false;
}

/**
 * nfs4_slot_check() - classify a request with @seqid on @slot (RFC 8881
 * §2.10.6.1): the next seqid is new; the current one is a retry, served
 * from the cache if the reply was cached, else RETRY_UNCACHED_REP; any
 * other is misordered. A slot whose request is still running answers a
 * retry with DELAY (BUSY) and anything else as misordered.
 */
enum nfs4_slot_verdict nfs4_slot_check(const struct nfs4_slot *slot,
				       uint32_t seqid)
{
	if (slot->inuse)
		return seqid == slot->seqid ? NFS4_SLOT_BUSY
					    : NFS4_SLOT_MISORDERED;
	/* unsigned arithmetic handles the wrap */
	if (seqid == slot->seqid + 1)
		return NFS4_SLOT_NEW;
	if (seqid == slot->seqid && slot->executed)
		return slot->has_cache ? NFS4_SLOT_REPLAY : NFS4_SLOT_UNCACHED;
	return NFS4_SLOT_MISORDERED;
}

/**
 * nfs4_sequence_cache() - see state.h. The copy is made before taking the
 * session's mutex; a reply larger than ca_maxresponsesize_cached, or one
 * the client did not ask to cache (above NFS4_SLOT_CACHE_ALWAYS bytes), is
 * not kept and a retry then gets RETRY_UNCACHED_REP; so is one that would
 * pass NFS4_SLOT_CACHE_TOTAL for all slots together.
 */
void nfs4_sequence_cache(struct nfs4_compound *c, const uint8_t *reply,
			 size_t len)
{
	struct nfs4_session *s = c->session;
	struct nfs4_slot *slot = c->slot;
	uint8_t *copy = NULL, *old = NULL;
	bool keep;

	if (!slot || !s)
		return;
	keep = reply && (c->cachethis || len <= NFS4_SLOT_CACHE_ALWAYS) &&
	       len <= s->fore.ca_maxresponsesize_cached;
	if (keep) {
		copy = malloc(len ? len : 1);
		if (copy)
			memcpy(copy, reply, len);
	}
	/* reserve under the ceiling, without a lock */
	if (copy && atomic_fetch_add(&nfs4_st.cache_bytes, len) + len >
			    NFS4_SLOT_CACHE_TOTAL) {
		atomic_fetch_sub(&nfs4_st.cache_bytes, len);
		free(copy); /* over the ceiling: not kept */
		copy = NULL;
	}
	pthread_mutex_lock(&s->mu);
	old = slot->cache;
	atomic_fetch_sub(&nfs4_st.cache_bytes, slot->cache_len);
	slot->cache = copy;
	slot->cache_len = copy ? len : 0;
	slot->has_cache = slot->cache != NULL;
	slot->inuse = false;
	c->slot = NULL;
	pthread_mutex_unlock(&s->mu);
	free(old);
}

/**
 * nfs4_compound_end() - see state.h: frees the slot if the reply was not
 * offered to nfs4_sequence_cache() (nothing cached then), drops the
 * session and client references SEQUENCE took. No global lock.
 */
void nfs4_compound_end(struct nfs4_compound *c)
{
	uint8_t *old = NULL;

	if (c->slot) {
		pthread_mutex_lock(&c->session->mu);
		atomic_fetch_sub(&nfs4_st.cache_bytes, c->slot->cache_len);
		old = c->slot->cache;
		c->slot->cache = NULL;
		c->slot->cache_len = 0;
		c->slot->has_cache = false;
		c->slot->inuse = false;
		pthread_mutex_unlock(&c->session->mu);
		c->slot = NULL;
		free(old);
	}
	if (c->session) {
		nfs4_session_put(c->session);
		c->session = NULL;
	}
	if (c->client) {
		nfs4_client_put(c->client);
		c->client = NULL;
	}
}
