// SPDX-License-Identifier: MIT
/*
 * Client records (RFC 7530 §9.1.1 SETCLIENTID, RFC 8881 §2.4 EXCHANGE_ID):
 * the clientid table, leases and the teardown of a client's state.
 *
 * The table is sharded by clientid (lookups by the hot path: RENEW, 4.0
 * OPEN and LOCKT); the list of all clients and every change of
 * membership are under nfs4_st.mu (state_int.h has the lock order).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"
#include "core/stats.h"
#include "nfs4/state/state_int.h"

static struct nfs4_client_shard *client_shard(clientid4 id, uint32_t *bucket)
{
	uint32_t h = nfs4_hash_bytes(&id, sizeof(id));

	*bucket = (h / NFS4_SHARDS) % NFS4_SHARD_BUCKETS;
	return &nfs4_st.client_hash[h % NFS4_SHARDS];
}

/* Under the shard lock. */
static struct nfs4_client *shard_find(struct nfs4_client_shard *sh, uint32_t b,
				      clientid4 id)
{
	struct nfs4_client *cl;

	for (cl = sh->b[b]; cl; cl = cl->hnext)
		if (cl->clientid == id)
			return cl;
	return NULL;
}

#define CLIENT_MEM_MIN (32ull << 20)
#define CLIENT_MEM_MAX (1ull << 30)

/** nfs4_state_set_client_memory() - see state.h. */
void nfs4_state_set_client_memory(uint64_t bytes)
{
	if (!bytes) {
		long pages = sysconf(_SC_PHYS_PAGES);
		long psz = sysconf(_SC_PAGESIZE);

		bytes = pages > 0 && psz > 0
				? (uint64_t)pages * (uint64_t)psz / 32
				: CLIENT_MEM_MIN;
		if (bytes < CLIENT_MEM_MIN)
			bytes = CLIENT_MEM_MIN;
		if (bytes > CLIENT_MEM_MAX)
			bytes = CLIENT_MEM_MAX;
	}
	pthread_mutex_lock(&nfs4_st.mu);
	nfs4_st.client_mem_max = bytes;
	pthread_mutex_unlock(&nfs4_st.mu);
}

static uint64_t client_mem(uint32_t ownerid_len)
{
	return sizeof(struct nfs4_client) + ownerid_len;
}

/** nfs4_session_mem() - see state_int.h. */
uint64_t nfs4_session_mem(uint32_t nslots)
{
	return sizeof(struct nfs4_session) +
	       (uint64_t)nslots * sizeof(struct nfs4_slot);
}

/* Nothing but the table and @cl's own state holds it (no request). */
static bool client_idle(struct nfs4_client *cl)
{
	int held;

	nfs4_client_lock(cl);
	held = 1 + (int)cl->nsessions + (int)cl->nowners + (int)cl->ndelegs;
	pthread_mutex_unlock(&cl->mu);
	return atomic_load(&cl->refs) <= held;
}

/*
 * Make room for @n bytes: first courtesy clients (lapsed, their state
 * kept; any other lapsed client is the reaper's within a second, so the
 * whole list is walked for them only when there are some: at the ceiling
 * every new client comes here), then unconfirmed records, oldest first
 * (a flood of SETCLIENTID or EXCHANGE_ID never confirmed must not lock
 * real clients out).
 */
static void client_make_room(uint64_t n, const struct nfs4_client *keep)
{
	struct nfs4_list *l, *next;
	int pass;

	for (pass = nfs4_st.ncourtesy ? 0 : 1; pass < 2; pass++) {
		for (l = nfs4_st.clients.next;
		     l != &nfs4_st.clients &&
		     nfs4_st.client_mem + n > nfs4_st.client_mem_max;
		     l = next) {
			struct nfs4_client *cl =
				nfs4_container_of(l, struct nfs4_client, link);
			bool go;

			next = l->next;
			if (cl == keep)
				continue;
			go = pass == 0 ? nfs4_client_expired(cl)
				       : !cl->confirmed && client_idle(cl);
			if (!go)
				continue;
			log_info("nfs4: client %016llx %s for room",
				 (unsigned long long)cl->clientid,
				 pass == 0 ? "expired" : "(unconfirmed) dropped");
			nfs4_st.clients_evicted++;
			nfs4_client_destroy(cl, pass == 0, pass == 0);
		}
	}
}

/** nfs4_client_mem_reserve() - see state_int.h. */
bool nfs4_client_mem_reserve(uint64_t n, const struct nfs4_client *keep)
{
	if (!nfs4_st.client_mem_max)
		nfs4_st.client_mem_max = CLIENT_MEM_MIN;
	if (nfs4_st.client_mem + n > nfs4_st.client_mem_max)
		client_make_room(n, keep);
	if (nfs4_st.client_mem + n > nfs4_st.client_mem_max)
		return false;
	nfs4_st.client_mem += n;
	return true;
}

/** nfs4_client_mem_release() - see state_int.h. */
void nfs4_client_mem_release(uint64_t n)
{
	nfs4_st.client_mem -= n < nfs4_st.client_mem ? n : nfs4_st.client_mem;
}

/* The statistics' readers: a field of nfs4_st under its mutex. */
#define ST_VALUE(fn, field)                                                    \
	static uint64_t fn(void)                                               \
	{                                                                      \
		uint64_t v;                                                    \
                                                                               \
		pthread_mutex_lock(&nfs4_st.mu);                               \
		v = nfs4_st.field;                                             \
		pthread_mutex_unlock(&nfs4_st.mu);                             \
		return v;                                                      \
	}

ST_VALUE(v_clients, nclients)
ST_VALUE(v_sessions, nsessions)
ST_VALUE(v_client_mem, client_mem)
ST_VALUE(v_client_mem_max, client_mem_max)
ST_VALUE(v_evicted, clients_evicted)
ST_VALUE(v_courtesy, ncourtesy)

/** nfs4_client_courtesy_needed() - see state_int.h. */
bool nfs4_client_courtesy_needed(struct nfs4_client *cl)
{
	if (!atomic_load(&cl->courtesy))
		return false;
	/* a wake-up lost while the reaper runs costs at most its second */
	if (!atomic_exchange(&cl->expire_now, true))
		pthread_cond_signal(&nfs4_st.reaper_cv);
	return true;
}

/** nfs4_client_courtesy_keep() - see state_int.h. */
bool nfs4_client_courtesy_keep(struct nfs4_client *cl, uint64_t now_ms)
{
	uint64_t renewed = atomic_load(&cl->renewed);

	return cl->minor >= 1 && !atomic_load(&cl->expire_now) &&
	       now_ms - renewed < (uint64_t)NFS4_COURTESY_MAX_S * 1000 &&
	       nfs4_client_has_state(cl);
}

/** nfs4_client_stats_init() - see state_int.h. */
void nfs4_client_stats_init(void)
{
	(void)stats_value_add("nfs4_clients", "NFSv4 client records.", false,
			      v_clients);
	(void)stats_value_add("nfs4_sessions", "NFSv4.1 sessions.", false,
			      v_sessions);
	(void)stats_value_add("nfs4_client_memory_bytes", "Memory charged "
			      "to NFSv4 client records and sessions.", false,
			      v_client_mem);
	(void)stats_value_add("nfs4_client_memory_max_bytes", "Ceiling of "
			      "nfs4_client_memory_bytes "
			      "(--nfs4-client-memory).", false,
			      v_client_mem_max);
	(void)stats_value_add("nfs4_clients_evicted_total", "NFSv4 clients "
			      "expired or dropped to make room for new ones.",
			      true, v_evicted);
	(void)stats_value_add("nfs4_courtesy_clients", "NFSv4.1 clients past "
			      "their lease whose state is kept until someone "
			      "needs it.", false, v_courtesy);
}

/**
 * nfs4_client_new() - see state_int.h: a fresh clientid (boot id in the
 * high half, so a restarted server knows its predecessor's ids as stale).
 */
struct nfs4_client *nfs4_client_new(uint32_t minor, const uint8_t *id,
				    uint32_t len, const struct verifier4 *v,
				    const struct nfs4_princ *p)
{
	struct nfs4_client_shard *sh;
	struct nfs4_client *cl;
	uint32_t b;

	if (!nfs4_client_mem_reserve(client_mem(len), NULL))
		return NULL;
	cl = calloc(1, sizeof(*cl));
	if (cl)
		cl->ownerid = malloc(len ? len : 1);
	if (!cl || !cl->ownerid) {
		free(cl);
		nfs4_client_mem_release(client_mem(len));
		return NULL;
	}
	memcpy(cl->ownerid, id, len);
	cl->ownerid_len = len;
	cl->minor = minor;
	cl->verifier = *v;
	cl->princ = *p;
	/* ids are made under nfs4_st.mu, so none can appear meanwhile */
	do {
		cl->clientid = (uint64_t)nfs4_st.boot_id << 32 |
			       ++nfs4_st.next_clientid;
	} while (nfs4_client_find(cl->clientid) ||
		 (uint32_t)cl->clientid == 0);
	atomic_init(&cl->renewed, nfs4_now_ms());
	atomic_init(&cl->refs, 1);
	pthread_mutex_init(&cl->mu, NULL);
	nfs4_list_init(&cl->sessions);
	nfs4_list_init(&cl->owners);
	nfs4_list_init(&cl->delegs);
	/* before it can be found: nothing else sees it yet */
	nfs4_grace_client_known(cl);
	nfs4_list_add_tail(&nfs4_st.clients, &cl->link);
	nfs4_st.nclients++;
	sh = client_shard(cl->clientid, &b);
	pthread_mutex_lock(&sh->mu);
	cl->hnext = sh->b[b];
	sh->b[b] = cl;
	pthread_mutex_unlock(&sh->mu);
	return cl;
}

/** nfs4_client_find() - see state_int.h. */
struct nfs4_client *nfs4_client_find(clientid4 id)
{
	uint32_t b;
	struct nfs4_client_shard *sh = client_shard(id, &b);
	struct nfs4_client *cl;

	pthread_mutex_lock(&sh->mu);
	cl = shard_find(sh, b, id);
	pthread_mutex_unlock(&sh->mu);
	return cl;
}

/** nfs4_client_lookup() - see state_int.h. */
struct nfs4_client *nfs4_client_lookup(clientid4 id)
{
	uint32_t b;
	struct nfs4_client_shard *sh = client_shard(id, &b);
	struct nfs4_client *cl;

	pthread_mutex_lock(&sh->mu);
	cl = shard_find(sh, b, id);
	if (cl)
		atomic_fetch_add(&cl->refs, 1);
	pthread_mutex_unlock(&sh->mu);
	return cl;
}

/** nfs4_client_find_owner() - see state_int.h (nfs4_st.mu). */
struct nfs4_client *nfs4_client_find_owner(uint32_t minor, const uint8_t *id,
					   uint32_t len, bool confirmed)
{
	struct nfs4_list *n;

	for (n = nfs4_st.clients.next; n != &nfs4_st.clients; n = n->next) {
		struct nfs4_client *cl =
			nfs4_container_of(n, struct nfs4_client, link);

		if ((cl->minor == 0) == (minor == 0) &&
		    cl->confirmed == confirmed && cl->ownerid_len == len &&
		    memcmp(cl->ownerid, id, len) == 0)
			return cl;
	}
	return NULL;
}

/** nfs4_client_get() - pin @cl (the caller has a pin or the table lock). */
void nfs4_client_get(struct nfs4_client *cl)
{
	atomic_fetch_add(&cl->refs, 1);
}

/**
 * nfs4_client_put() - drop a pin; the last one frees a destroyed client.
 * Never the last while the caller holds @cl's mutex (it holds a pin).
 */
void nfs4_client_put(struct nfs4_client *cl)
{
	if (atomic_fetch_sub(&cl->refs, 1) != 1)
		return;
	pthread_mutex_destroy(&cl->mu);
	free(cl->ownerid);
	free(cl);
}

/** nfs4_client_lock() - see state_int.h. */
void nfs4_client_lock(struct nfs4_client *cl)
{
	pthread_mutex_lock(&cl->mu);
}

/** nfs4_client_unlock_put() - see state_int.h. */
void nfs4_client_unlock_put(struct nfs4_client *cl)
{
	pthread_mutex_unlock(&cl->mu);
	nfs4_client_put(cl);
}

/** nfs4_client_renew() - restart @cl's lease (RFC 8881 §8.3); no lock. */
void nfs4_client_renew(struct nfs4_client *cl)
{
	atomic_store_explicit(&cl->renewed, nfs4_now_ms(),
			      memory_order_relaxed);
}

/**
 * nfs4_client_expired() - is @cl's lease over? A client pinned by a
 * request in progress is not (the request renews it): only the
 * references of the table, its sessions, owners and delegations may be
 * left.
 * Under nfs4_st.mu; takes @cl's mutex.
 */
bool nfs4_client_expired(struct nfs4_client *cl)
{
	uint64_t now = nfs4_now_ms(), renewed;
	int held;

	if (cl->dead)
		return false;
	nfs4_client_lock(cl);
	held = 1 + (int)cl->nsessions + (int)cl->nowners + (int)cl->ndelegs;
	pthread_mutex_unlock(&cl->mu);
	if (atomic_load(&cl->refs) > held)
		return false;
	renewed = atomic_load_explicit(&cl->renewed, memory_order_relaxed);
	return now > renewed &&
	       now - renewed > (uint64_t)nfs4_st.lease_time * 1000;
}

/** nfs4_client_has_state() - does @cl hold opens, locks or delegations? */
bool nfs4_client_has_state(struct nfs4_client *cl)
{
	bool ret;

	nfs4_client_lock(cl);
	ret = cl->nstates > 0 || cl->ndelegs > 0;
	pthread_mutex_unlock(&cl->mu);
	return ret;
}

/*
 * 4.0 clients by connection, identities only (never dereferenced): a 4.0
 * COMPOUND names its client only in its stateids and owners, so a bare
 * GETATTR of a file the client holds a write delegation of would ask (or,
 * while it is being recalled, wait for) the client's own delegation, and
 * the Linux client's GETATTR while it returns one would wait for itself.
 * The connection a 4.0 client's stateful operations came on is kept, and
 * a COMPOUND on it counts as the client's own for its grants
 * (nfs4_grant_key). Direct-mapped: a collision forgets the older pair
 * (that client's bare COMPOUNDs are anonymous again: correct, slower).
 * conn40_mu is a leaf lock.
 */
#define CONN40_SLOTS 1024

static pthread_mutex_t conn40_mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
	const void *conn;
	const void *client;
} conn40[CONN40_SLOTS];

static uint32_t conn40_slot(const void *conn)
{
	uintptr_t v = (uintptr_t)conn;

	return (uint32_t)((v >> 4) ^ (v >> 14)) % CONN40_SLOTS;
}

/** nfs4_conn40_note() - see state.h. */
void nfs4_conn40_note(const void *conn, const void *client)
{
	uint32_t i = conn40_slot(conn);

	if (!conn)
		return;
	pthread_mutex_lock(&conn40_mu);
	conn40[i].conn = conn;
	conn40[i].client = client;
	pthread_mutex_unlock(&conn40_mu);
}

/** nfs4_conn40_client() - see state.h. */
const void *nfs4_conn40_client(const void *conn)
{
	uint32_t i = conn40_slot(conn);
	const void *cl = NULL;

	if (!conn)
		return NULL;
	pthread_mutex_lock(&conn40_mu);
	if (conn40[i].conn == conn)
		cl = conn40[i].client;
	pthread_mutex_unlock(&conn40_mu);
	return cl;
}

/** nfs4_conn40_forget() - see state.h. */
void nfs4_conn40_forget(const void *conn, const void *client)
{
	uint32_t i;

	pthread_mutex_lock(&conn40_mu);
	if (conn) {
		i = conn40_slot(conn);
		if (conn40[i].conn == conn)
			conn40[i].conn = conn40[i].client = NULL;
	}
	for (i = 0; client && i < CONN40_SLOTS; i++)
		if (conn40[i].client == client)
			conn40[i].conn = conn40[i].client = NULL;
	pthread_mutex_unlock(&conn40_mu);
}

/**
 * nfs4_client_destroy() - see state_int.h. @expired: its stateids become
 * tombstones so that 4.0 clients get EXPIRED. The forget of the stable
 * record is queued; the caller runs nfs4_grace_flush_forgets() after
 * unlocking.
 */
void nfs4_client_destroy(struct nfs4_client *cl, bool forget, bool expired)
{
	struct nfs4_client_shard *sh;
	struct nfs4_client **pp;
	uint32_t b;

	if (cl->dead)
		return;
	/* out of the hash first: no lookup pins it from here on */
	sh = client_shard(cl->clientid, &b);
	pthread_mutex_lock(&sh->mu);
	for (pp = &sh->b[b]; *pp; pp = &(*pp)->hnext) {
		if (*pp == cl) {
			*pp = cl->hnext;
			break;
		}
	}
	pthread_mutex_unlock(&sh->mu);
	if (expired && cl->minor == 0)
		nfs4_clid_tombstone(cl->clientid);
	if (cl->minor == 0)
		nfs4_conn40_forget(NULL, cl);
	nfs4_client_lock(cl);
	cl->expiring = expired;
	while (!nfs4_list_empty(&cl->sessions))
		nfs4_session_destroy(nfs4_container_of(
			cl->sessions.next, struct nfs4_session, client_link));
	while (!nfs4_list_empty(&cl->owners))
		nfs4_owner_release(nfs4_container_of(
			cl->owners.next, struct nfs4_owner, client_link));
	nfs4_deleg_free_all(cl);
	cl->dead = true;
	pthread_mutex_unlock(&cl->mu);
	nfs4_list_del(&cl->link);
	nfs4_st.nclients--;
	if (atomic_exchange(&cl->courtesy, false))
		nfs4_st.ncourtesy--;
	nfs4_client_mem_release(client_mem(cl->ownerid_len));
	if (forget && cl->recorded)
		nfs4_grace_queue_forget(cl);
	nfs4_client_put(cl);
}

/** nfs4_client_check40() - see state_int.h (RFC 7530 §16.33.5). */
uint32_t nfs4_client_check40(clientid4 id, struct nfs4_client **out)
{
	struct nfs4_client *cl = nfs4_client_lookup(id);

	/* RFC 7530 §16.33.5, §9.6.3: a client whose lease expired is
	 * EXPIRED; STALE_CLIENTID means another server instance's */
	if (!cl)
		return nfs4_clid_tombstoned(id) ? NFS4ERR_EXPIRED
						: NFS4ERR_STALE_CLIENTID;
	nfs4_client_lock(cl);
	if (cl->dead || !cl->confirmed || cl->minor != 0) {
		nfs4_client_unlock_put(cl);
		return NFS4ERR_STALE_CLIENTID;
	}
	nfs4_client_renew(cl);
	*out = cl;
	return NFS4_OK;
}
