// SPDX-License-Identifier: MIT
/*
 * Client records (RFC 7530 §9.1.1 SETCLIENTID, RFC 8881 §2.4 EXCHANGE_ID):
 * the clientid table, leases and the teardown of a client's state. All
 * functions here run under nfs4_st.mu.
 */
#include <stdlib.h>
#include <string.h>

#include "nfs4/state/state_int.h"

static uint32_t clientid_bucket(clientid4 id)
{
	return nfs4_hash_bytes(&id, sizeof(id)) % NFS4_HASH_SIZE;
}

/**
 * nfs4_client_new() - a new, unconfirmed client record with a fresh
 * clientid (boot id in the high half, so a restarted server knows its
 * predecessor's ids as stale). The table holds the returned reference.
 * NULL at the client limit or when out of memory.
 */
struct nfs4_client *nfs4_client_new(uint32_t minor, const uint8_t *id,
				    uint32_t len, const struct verifier4 *v,
				    const struct nfs4_princ *p)
{
	struct nfs4_client *cl;
	uint32_t b;

	if (nfs4_st.nclients >= NFS4_MAX_CLIENTS)
		return NULL;
	cl = calloc(1, sizeof(*cl));
	if (!cl)
		return NULL;
	cl->ownerid = malloc(len ? len : 1);
	if (!cl->ownerid) {
		free(cl);
		return NULL;
	}
	memcpy(cl->ownerid, id, len);
	cl->ownerid_len = len;
	cl->minor = minor;
	cl->verifier = *v;
	cl->princ = *p;
	do {
		cl->clientid = (uint64_t)nfs4_st.boot_id << 32 |
			       ++nfs4_st.next_clientid;
	} while (nfs4_client_find(cl->clientid) ||
		 (uint32_t)cl->clientid == 0);
	cl->renewed = nfs4_now_ms();
	cl->refs = 1;
	nfs4_list_init(&cl->sessions);
	nfs4_list_init(&cl->owners);
	nfs4_list_add_tail(&nfs4_st.clients, &cl->link);
	b = clientid_bucket(cl->clientid);
	cl->hnext = nfs4_st.client_hash[b];
	nfs4_st.client_hash[b] = cl;
	nfs4_st.nclients++;
	nfs4_grace_client_known(cl);
	return cl;
}

/** nfs4_client_find() - the live client with @id, or NULL. */
struct nfs4_client *nfs4_client_find(clientid4 id)
{
	struct nfs4_client *cl;

	for (cl = nfs4_st.client_hash[clientid_bucket(id)]; cl; cl = cl->hnext)
		if (cl->clientid == id)
			return cl;
	return NULL;
}

/**
 * nfs4_client_find_owner() - the live record of minor version family
 * @minor (0 or 1+) with owner id @id and confirmation state @confirmed.
 */
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

/** nfs4_client_get() - pin @cl across an unlock. */
void nfs4_client_get(struct nfs4_client *cl)
{
	cl->refs++;
}

/** nfs4_client_put() - drop a pin; frees a destroyed client's memory. */
void nfs4_client_put(struct nfs4_client *cl)
{
	if (--cl->refs > 0)
		return;
	free(cl->ownerid);
	free(cl);
}

/** nfs4_client_renew() - restart @cl's lease (RFC 8881 §8.3). */
void nfs4_client_renew(struct nfs4_client *cl)
{
	cl->renewed = nfs4_now_ms();
}

/**
 * nfs4_client_expired() - is @cl's lease over? A client pinned by a
 * request in progress is not (the request renews it).
 */
bool nfs4_client_expired(const struct nfs4_client *cl)
{
	uint64_t now = nfs4_now_ms();

	if (cl->dead || cl->refs > 1)
		return false;
	return now > cl->renewed &&
	       now - cl->renewed > (uint64_t)nfs4_st.lease_time * 1000;
}

/** nfs4_client_has_state() - does @cl hold opens or locks? */
bool nfs4_client_has_state(const struct nfs4_client *cl)
{
	return cl->nstates > 0;
}

/**
 * nfs4_client_destroy() - unhash @cl and release its sessions, owners,
 * opens and locks. @forget: remove its stable record too (queued; the
 * caller runs nfs4_grace_flush_forgets() after unlocking). @expired: its
 * stateids become tombstones so that 4.0 clients get EXPIRED.
 */
void nfs4_client_destroy(struct nfs4_client *cl, bool forget, bool expired)
{
	struct nfs4_client **pp;

	if (cl->dead)
		return;
	cl->expiring = expired;
	while (!nfs4_list_empty(&cl->sessions))
		nfs4_session_destroy(nfs4_container_of(
			cl->sessions.next, struct nfs4_session, client_link));
	while (!nfs4_list_empty(&cl->owners))
		nfs4_owner_release(nfs4_container_of(
			cl->owners.next, struct nfs4_owner, client_link));
	for (pp = &nfs4_st.client_hash[clientid_bucket(cl->clientid)]; *pp;
	     pp = &(*pp)->hnext) {
		if (*pp == cl) {
			*pp = cl->hnext;
			break;
		}
	}
	nfs4_list_del(&cl->link);
	nfs4_st.nclients--;
	cl->dead = true;
	if (forget && cl->recorded)
		nfs4_grace_queue_forget(cl);
	nfs4_client_put(cl);
}

/**
 * nfs4_client_check40() - the confirmed client @id of a 4.0 request
 * (RENEW, LOCKT, RELEASE_LOCKOWNER, OPEN's open_owner4): renews its
 * lease. STALE_CLIENTID when unknown, unconfirmed or from an earlier
 * server instance (RFC 7530 §16.33.5).
 */
uint32_t nfs4_client_check40(clientid4 id, struct nfs4_client **out)
{
	struct nfs4_client *cl = nfs4_client_find(id);

	if (!cl || !cl->confirmed || cl->minor != 0)
		return NFS4ERR_STALE_CLIENTID;
	nfs4_client_renew(cl);
	*out = cl;
	return NFS4_OK;
}
