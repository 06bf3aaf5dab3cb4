// SPDX-License-Identifier: MIT
/*
 * SEQUENCE (RFC 8881 §18.46): the first op of every 4.1+ COMPOUND that
 * is not session management. It finds the session and slot, enforces
 * exactly-once execution (§2.10.6): a new seqid runs the request, a retry
 * of the last one gets the cached reply (or RETRY_UNCACHED_REP), a retry
 * still running gets DELAY, anything else SEQ_MISORDERED; and it renews
 * the client's lease.
 */
#include <string.h>

#include "nfs4/state/ops.h"
#include "nfs4/state/state_int.h"

struct SEQUENCE4args {
	uint8_t sa_sessionid[NFS4_SESSIONID_SIZE];
	uint32_t sa_sequenceid;
	uint32_t sa_slotid;
	uint32_t sa_highest_slotid;
	bool sa_cachethis;
};

struct SEQUENCE4resok {
	uint8_t sr_sessionid[NFS4_SESSIONID_SIZE];
	uint32_t sr_sequenceid;
	uint32_t sr_slotid;
	uint32_t sr_highest_slotid;
	uint32_t sr_target_highest_slotid;
	uint32_t sr_status_flags;
};

static bool dec_SEQUENCE4args(struct xdr_buf *x, void *p)
{
	struct SEQUENCE4args *a = p;

	return xdr_dec_opaque_fixed(x, a->sa_sessionid,
				    NFS4_SESSIONID_SIZE) &&
	       xdr_dec_u32(x, &a->sa_sequenceid) &&
	       xdr_dec_u32(x, &a->sa_slotid) &&
	       xdr_dec_u32(x, &a->sa_highest_slotid) &&
	       xdr_dec_bool(x, &a->sa_cachethis);
}

static bool enc_SEQUENCE4resok(struct xdr_buf *x, uint32_t status,
			       const void *p)
{
	const struct SEQUENCE4resok *r = p;

	(void)status;
	return xdr_enc_opaque_fixed(x, r->sr_sessionid,
				    NFS4_SESSIONID_SIZE) &&
	       xdr_enc_u32(x, r->sr_sequenceid) &&
	       xdr_enc_u32(x, r->sr_slotid) &&
	       xdr_enc_u32(x, r->sr_highest_slotid) &&
	       xdr_enc_u32(x, r->sr_target_highest_slotid) &&
	       xdr_enc_u32(x, r->sr_status_flags);
}

/* The slot's cached reply, copied into the call's memory (the slot may be
 * reused once the session's mutex is dropped). */
static uint32_t replay(struct nfs4_compound *c, const struct nfs4_slot *slot)
{
	uint8_t *copy = rpc_call_alloc(c->call, slot->cache_len);

	if (!copy)
		return NFS4ERR_DELAY;
	memcpy(copy, slot->cache, slot->cache_len);
	c->replay = copy;
	c->replay_len = slot->cache_len;
	return NFS4_OK;
}

/* The slot algorithm on @s, under its mutex: NFS4_OK for a new request
 * (the slot is then taken), else the status; a replay sets c->replay. */
static uint32_t take_slot(struct nfs4_compound *c, struct nfs4_session *s,
			  const struct SEQUENCE4args *a, uint64_t digest)
{
	struct nfs4_slot *slot;
	enum nfs4_slot_verdict v;

	if (s->dead)
		return NFS4ERR_BADSESSION;
	if (a->sa_slotid >= s->nslots)
		return NFS4ERR_BADSLOT;
	slot = &s->slots[a->sa_slotid];
	v = nfs4_slot_check(slot, a->sa_sequenceid);
	/* the same slot and seqid with other arguments: not a retry */
	if ((v == NFS4_SLOT_REPLAY || v == NFS4_SLOT_UNCACHED ||
	     v == NFS4_SLOT_BUSY) &&
	    slot->digest != digest)
		return NFS4ERR_SEQ_FALSE_RETRY;
	switch (v) {
	case NFS4_SLOT_NEW:
		break;
	case NFS4_SLOT_REPLAY:
		return replay(c, slot);
	case NFS4_SLOT_UNCACHED:
		return NFS4ERR_RETRY_UNCACHED_REP;
	case NFS4_SLOT_BUSY:
		return NFS4ERR_DELAY;
	case NFS4_SLOT_MISORDERED:
	default:
		return NFS4ERR_SEQ_MISORDERED;
	}
	if (c->numops > s->fore.ca_maxoperations)
		return NFS4ERR_TOO_MANY_OPS;
	/* the request as ca_maxrequestsize counts it: RPC header included */
	if (c->call->req->msg_len > s->fore.ca_maxrequestsize)
		return NFS4ERR_REQ_TOO_BIG;
	slot->seqid = a->sa_sequenceid;
	slot->digest = digest;
	slot->inuse = true;
	slot->executed = true;
	slot->has_cache = false;
	/* SP4_NONE: the connection is bound by use (§2.10.3.1) */
	if (!nfs4_session_conn_bound(s, c->call->conn))
		nfs4_session_bind_conn(s, c->call->conn, CDFS4_FORE);
	c->slot = slot;
	return NFS4_OK;
}

/**
 * nfs4_op_sequence() - see the file comment. On success @c holds the
 * session, slot and client (released by nfs4_sequence_cache() and
 * nfs4_compound_end()). sr_status_flags reports CB_PATH_DOWN(_SESSION)
 * while the back channel does not work (backchannel.c), and
 * RECALLABLE_STATE_REVOKED while a revoked delegation is not freed. A retry whose
 * arguments differ from the request that used the slot and seqid (their
 * digest) is a false retry (RFC 8881 §2.10.6.1.3): SEQ_FALSE_RETRY.
 * Only the session's shard lock and mutex are taken (and the client's
 * when the back channel is down): sessions do not serialise.
 */
uint32_t nfs4_op_sequence(struct nfs4_compound *c, void *args, void *res)
{
	struct SEQUENCE4args *a = args;
	struct SEQUENCE4resok *r = res;
	struct nfs4_session *s;
	uint32_t status;
	uint64_t digest;

	if (c->opindex != 0 || c->session)
		return NFS4ERR_SEQUENCE_POS;
	digest = nfs4_seq_digest(c->call->args.base, c->call->args.len);
	s = nfs4_session_lookup(a->sa_sessionid);
	if (!s)
		return NFS4ERR_BADSESSION;
	pthread_mutex_lock(&s->mu);
	status = take_slot(c, s, a, digest);
	pthread_mutex_unlock(&s->mu);
	if (status != NFS4_OK || !c->slot) {
		nfs4_session_put(s);
		return status;
	}
	nfs4_client_renew(s->client);
	nfs4_client_get(s->client);
	c->session = s; /* the lookup's reference */
	c->client = s->client;
	c->cachethis = a->sa_cachethis;
	/* RFC 8881 §2.10.6.4, §18.46.3: a reply the client asked to have
	 * cached must fit the cache (REP_TOO_BIG_TO_CACHE), any reply the
	 * channel (REP_TOO_BIG); the RPC reply header is not in the body */
	c->resp_max = s->fore.ca_maxresponsesize > RPC_REPLY_HDR_MAX
			      ? s->fore.ca_maxresponsesize - RPC_REPLY_HDR_MAX
			      : 0;
	c->too_big = NFS4ERR_REP_TOO_BIG;
	if (a->sa_cachethis &&
	    s->fore.ca_maxresponsesize_cached < c->resp_max) {
		c->resp_max = s->fore.ca_maxresponsesize_cached;
		c->too_big = NFS4ERR_REP_TOO_BIG_TO_CACHE;
	}

	memcpy(r->sr_sessionid, s->id, NFS4_SESSIONID_SIZE);
	r->sr_sequenceid = a->sa_sequenceid;
	r->sr_slotid = a->sa_slotid;
	r->sr_highest_slotid = s->nslots - 1;
	r->sr_target_highest_slotid = s->nslots - 1;
	r->sr_status_flags |= nfs4_bc_seq_flags(s);
	if (atomic_load(&s->client->nrevoked))
		r->sr_status_flags |= SEQ4_STATUS_RECALLABLE_STATE_REVOKED;
	return NFS4_OK;
}

const struct nfs4_op nfs4_op_desc_sequence = {
	.name = "SEQUENCE",
	.minor_min = 1,
	.minor_max = 255,
	.flags = NFS4_OP_NO_SEQ,
	.args_size = sizeof(struct SEQUENCE4args),
	.res_size = sizeof(struct SEQUENCE4resok),
	.decode = dec_SEQUENCE4args,
	.handle = nfs4_op_sequence,
	.encode = enc_SEQUENCE4resok,
};
