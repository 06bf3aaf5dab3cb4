// SPDX-License-Identifier: MIT
/*
 * NFSv4.1 sessions (RFC 8881 §2.10): the session table, slot tables with
 * exactly-once semantics (§2.10.6), the reply cache of each slot and the
 * connections bound to a session (§2.10.3.1). Under nfs4_st.mu unless noted.
 */
#include <stdlib.h>
#include <string.h>

#include "nfs4/state/state_int.h"

static uint32_t session_bucket(const uint8_t id[NFS4_SESSIONID_SIZE])
{
	return nfs4_hash_bytes(id, NFS4_SESSIONID_SIZE) % NFS4_HASH_SIZE;
}

/**
 * nfs4_session_new() - a session of @cl with @nslots slots and the
 * negotiated channel attributes; hashed, linked to @cl, with the table's
 * reference. NULL at the limits or without memory.
 */
struct nfs4_session *nfs4_session_new(struct nfs4_client *cl,
				      const struct channel_attrs4 *fore,
				      const struct channel_attrs4 *back,
				      uint32_t flags, uint32_t cb_program)
{
	struct nfs4_session *s;
	uint64_t n;
	uint32_t b;

	if (nfs4_st.nsessions >= NFS4_MAX_SESSIONS ||
	    cl->nsessions >= NFS4_MAX_SESSIONS_PER_CLIENT)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->nslots = fore->ca_maxrequests;
	s->slots = calloc(s->nslots, sizeof(*s->slots));
	if (!s->slots) {
		free(s);
		return NULL;
	}
	/* boot id | counter | clientid low half: unique, and never valid
	 * after a restart */
	n = nfs4_next_id();
	memcpy(s->id, &nfs4_st.boot_id, 4);
	memcpy(s->id + 4, &n, 8);
	memcpy(s->id + 12, &cl->clientid, 4);
	s->client = cl;
	s->fore = *fore;
	s->back = *back;
	s->flags = flags;
	s->cb_program = cb_program;
	s->cb_state = NFS4_CB_DOWN;
	s->cb_sec.flavor = AUTH_NONE;
	s->refs = 1;
	b = session_bucket(s->id);
	s->hnext = nfs4_st.session_hash[b];
	nfs4_st.session_hash[b] = s;
	nfs4_list_add_tail(&cl->sessions, &s->client_link);
	cl->nsessions++;
	nfs4_st.nsessions++;
	return s;
}

/** nfs4_session_find() - the live session @id, or NULL. */
struct nfs4_session *nfs4_session_find(const uint8_t id[NFS4_SESSIONID_SIZE])
{
	struct nfs4_session *s;

	for (s = nfs4_st.session_hash[session_bucket(id)]; s; s = s->hnext)
		if (memcmp(s->id, id, NFS4_SESSIONID_SIZE) == 0)
			return s;
	return NULL;
}

/** nfs4_session_put() - drop a reference; the last one frees @s. */
void nfs4_session_put(struct nfs4_session *s)
{
	uint32_t i;

	if (--s->refs > 0)
		return;
	for (i = 0; i < s->nconns; i++)
		nfs4_bc_conn_put(s->conns[i]);
	for (i = 0; i < s->nslots; i++) {
		nfs4_st.cache_bytes -= s->slots[i].cache_len;
		free(s->slots[i].cache);
	}
	free(s->slots);
	free(s);
}

/**
 * nfs4_session_destroy() - unhash @s and unlink it from its client;
 * requests that still hold it finish, then the last put frees it.
 */
void nfs4_session_destroy(struct nfs4_session *s)
{
	struct nfs4_session **pp;

	if (s->dead)
		return;
	for (pp = &nfs4_st.session_hash[session_bucket(s->id)]; *pp;
	     pp = &(*pp)->hnext) {
		if (*pp == s) {
			*pp = s->hnext;
			break;
		}
	}
	nfs4_list_del(&s->client_link);
	s->client->nsessions--;
	nfs4_st.nsessions--;
	s->dead = true;
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

/**
 * nfs4_seq_digest() - see state_int.h: FNV-1a over the head of the
 * arguments, then the length.
 */
uint64_t nfs4_seq_digest(const uint8_t *args, size_t len)
{
	uint64_t h = 14695981039346656037ull;
	size_t i, n = len < NFS4_SEQ_DIGEST_BYTES ? len : NFS4_SEQ_DIGEST_BYTES;

	for (i = 0; i < n; i++) {
		h ^= args[i];
		h *= 1099511628211ull;
	}
	for (i = 0; i < 8; i++) {
		h ^= (uint8_t)(len >> (8 * i));
		h *= 1099511628211ull;
	}
	return h;
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
 * nfs4_sequence_cache() - see state.h. The copy is made before taking
 * nfs4_st.mu; a reply larger than ca_maxresponsesize_cached, or one the client
 * did not ask to cache (above NFS4_SLOT_CACHE_ALWAYS bytes), is not kept
 * and a retry then gets RETRY_UNCACHED_REP.
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
	pthread_mutex_lock(&nfs4_st.mu);
	old = slot->cache;
	nfs4_st.cache_bytes -= slot->cache_len;
	slot->cache = NULL;
	slot->cache_len = 0;
	if (copy && nfs4_st.cache_bytes + len <= NFS4_SLOT_CACHE_TOTAL) {
		slot->cache = copy;
		slot->cache_len = len;
		nfs4_st.cache_bytes += len;
		copy = NULL;
	}
	slot->has_cache = slot->cache != NULL;
	slot->inuse = false;
	c->slot = NULL;
	pthread_mutex_unlock(&nfs4_st.mu);
	free(old);
	free(copy); /* over the ceiling: not kept */
}

/**
 * nfs4_compound_end() - see state.h: frees the slot if the reply was not
 * offered to nfs4_sequence_cache() (nothing cached then), drops the
 * session and client references SEQUENCE took.
 */
void nfs4_compound_end(struct nfs4_compound *c)
{
	if (!c->slot && !c->session && !c->client)
		return;
	pthread_mutex_lock(&nfs4_st.mu);
	if (c->slot) {
		nfs4_st.cache_bytes -= c->slot->cache_len;
		free(c->slot->cache);
		c->slot->cache = NULL;
		c->slot->cache_len = 0;
		c->slot->has_cache = false;
		c->slot->inuse = false;
		c->slot = NULL;
	}
	if (c->session) {
		nfs4_session_put(c->session);
		c->session = NULL;
	}
	if (c->client) {
		nfs4_client_put(c->client);
		c->client = NULL;
	}
	pthread_mutex_unlock(&nfs4_st.mu);
}
