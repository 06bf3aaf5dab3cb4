// SPDX-License-Identifier: MIT
/*
 * Helpers of the state operations: the NFSv4.0 owner seqid rules and
 * replay cache (RFC 7530 §9.1.7, §9.1.9), open_owner4/lock_owner4 codecs
 * and the client a stateful request acts for.
 */
#include <stdlib.h>
#include <string.h>

#include "core/be.h"
#include "nfs4/state/state_int.h"

/** nfs4_status_bumps_seqid() - see state_int.h (RFC 7530 §9.1.7). */
bool nfs4_status_bumps_seqid(uint32_t status)
{
	switch (status) {
	case NFS4ERR_STALE_CLIENTID:
	case NFS4ERR_STALE_STATEID:
	case NFS4ERR_BAD_STATEID:
	case NFS4ERR_BAD_SEQID:
	case NFS4ERR_BADXDR:
	case NFS4ERR_RESOURCE:
	case NFS4ERR_NOFILEHANDLE:
	case NFS4ERR_MOVED:
		return false;
	default:
		return true;
	}
}

/** nfs4_seqid_check() - see state_int.h. */
uint32_t nfs4_seqid_check(struct nfs4_compound *c, struct nfs4_owner *o,
			  uint32_t seqid, bool *replay)
{
	uint8_t *copy;

	*replay = false;
	if (c->minorversion >= 1)
		return NFS4_OK;
	o->last_used = nfs4_now_ms();
	if (seqid == o->seqid + 1) {
		nfs4_owner_drop_closed(o);
		return NFS4_OK;
	}
	if (seqid != o->seqid || !o->replay || o->replay_len < 4)
		return NFS4ERR_BAD_SEQID;
	copy = rpc_call_alloc(c->call, o->replay_len);
	if (!copy)
		return NFS4ERR_RESOURCE;
	memcpy(copy, o->replay, o->replay_len);
	c->op_replay = copy;
	c->op_replay_len = o->replay_len;
	*replay = true;
	return get_be32(copy);
}

/**
 * nfs4_seqid_done() - see state_int.h. Until the .cache hook stores the
 * op's full encoding, the replay cache holds the bare status for errors
 * without a result body (so a retransmission never re-executes).
 */
void nfs4_seqid_done(struct nfs4_compound *c, struct nfs4_seqres *r,
		     struct nfs4_owner *o, uint32_t seqid, uint32_t status)
{
	if (c->minorversion >= 1 || !nfs4_status_bumps_seqid(status))
		return;
	o->seqid = seqid;
	o->last_used = nfs4_now_ms();
	free(o->replay);
	o->replay = NULL;
	o->replay_len = 0;
	if (status != NFS4_OK && status != NFS4ERR_DENIED) {
		o->replay = malloc(4);
		if (o->replay) {
			o->replay[0] = (uint8_t)(status >> 24);
			o->replay[1] = (uint8_t)(status >> 16);
			o->replay[2] = (uint8_t)(status >> 8);
			o->replay[3] = (uint8_t)status;
			o->replay_len = 4;
		}
	}
	if (r->seq_owner)
		nfs4_owner_put(r->seq_owner);
	r->seq_owner = o;
	nfs4_owner_get(o);
}

/**
 * nfs4_seqres_cache() - .cache hook of the 4.0 seqid-mutating ops: keep
 * the op's encoded status + result as its owner's replay answer.
 */
void nfs4_seqres_cache(struct nfs4_compound *c, const void *res,
		       const uint8_t *enc, size_t len)
{
	const struct nfs4_seqres *r = res;
	uint8_t *copy, *old = NULL;

	(void)c;
	if (!r->seq_owner || len < 4)
		return;
	copy = malloc(len);
	if (!copy)
		return;
	memcpy(copy, enc, len);
	/* the pinned owner holds its client: its mutex may be taken */
	nfs4_client_lock(r->seq_owner->client);
	if (!r->seq_owner->dead) {
		old = r->seq_owner->replay;
		r->seq_owner->replay = copy;
		r->seq_owner->replay_len = len;
		copy = NULL;
	}
	pthread_mutex_unlock(&r->seq_owner->client->mu);
	free(old);
	free(copy);
}

/** nfs4_seqres_release() - .release hook: unpin the replay owner. */
void nfs4_seqres_release(struct nfs4_compound *c, void *res)
{
	struct nfs4_seqres *r = res;
	struct nfs4_client *cl;

	(void)c;
	if (!r->seq_owner)
		return;
	/* a pin of our own: the owner's put may drop the owner's */
	cl = r->seq_owner->client;
	nfs4_client_get(cl);
	nfs4_client_lock(cl);
	nfs4_owner_put(r->seq_owner);
	nfs4_client_unlock_put(cl);
	r->seq_owner = NULL;
}

/** nfs4_dec_owner4() - open_owner4 / lock_owner4 (RFC 7531). */
bool nfs4_dec_owner4(struct xdr_buf *x, clientid4 *clid,
		     struct nfs4_opaque *owner)
{
	return xdr_dec_u64(x, clid) &&
	       nfs4_dec_opaque(x, owner, NFS4_OPAQUE_LIMIT);
}

/** nfs4_enc_owner4() - lock_owner4 of a LOCK4denied. */
bool nfs4_enc_owner4(struct xdr_buf *x, clientid4 clid, const uint8_t *owner,
		     uint32_t len)
{
	return xdr_enc_u64(x, clid) && xdr_enc_opaque(x, owner, len);
}

/**
 * nfs4_owner_client() - see state_int.h: in 4.0 the confirmed client
 * @clid names; in 4.1 the session's (the clientid in the owner is
 * ignored, RFC 8881 §18.16.3).
 */
uint32_t nfs4_owner_client(struct nfs4_compound *c, clientid4 clid,
			   struct nfs4_client **out)
{
	struct nfs4_client *cl = c->client;

	if (c->minorversion == 0)
		return nfs4_client_check40(clid, out);
	if (!cl)
		return NFS4ERR_BADSESSION;
	nfs4_client_get(cl);
	nfs4_client_lock(cl);
	if (cl->dead) {
		nfs4_client_unlock_put(cl);
		return NFS4ERR_BADSESSION;
	}
	nfs4_client_renew(cl);
	*out = cl;
	return NFS4_OK;
}
