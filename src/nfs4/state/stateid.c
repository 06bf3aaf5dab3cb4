// SPDX-License-Identifier: MIT
/*
 * Stateids (RFC 8881 §8.2, RFC 7530 §9.1.4): the table, the seqid rules
 * (OLD_STATEID/BAD_STATEID), the special stateids (anonymous, READ
 * bypass, 4.1 current and invalid), stale ones from an earlier server
 * instance, and the I/O check READ/WRITE/SETATTR use.
 *
 * other[12] = the 4-byte boot id + an 8-byte counter.
 *
 * The table is sharded; a stateid is found under its shard lock and then
 * validated under its client's mutex, which guards its seqid, type and
 * file (state_int.h has the lock order).
 */
#include <string.h>

#include "nfs4/state/state_int.h"

static const uint8_t zeros[NFS4_OTHER_SIZE];
static const uint8_t ones[NFS4_OTHER_SIZE] = {
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
};

static struct nfs4_stid_shard *stid_shard(const uint8_t other[NFS4_OTHER_SIZE],
					  uint32_t *bucket)
{
	uint32_t h = nfs4_hash_bytes(other, NFS4_OTHER_SIZE);

	*bucket = (h / NFS4_SHARDS) % NFS4_SHARD_BUCKETS;
	return &nfs4_st.stid_hash[h % NFS4_SHARDS];
}

/* Under the shard lock. */
static struct nfs4_stid *shard_find(struct nfs4_stid_shard *sh, uint32_t b,
				    const uint8_t other[NFS4_OTHER_SIZE])
{
	struct nfs4_stid *s;

	for (s = sh->b[b]; s; s = s->hnext)
		if (memcmp(s->other, other, NFS4_OTHER_SIZE) == 0)
			return s;
	return NULL;
}

/** nfs4_stid_init() - a fresh stateid of @type (seqid 1), not hashed. */
void nfs4_stid_init(struct nfs4_stid *s, uint8_t type, struct nfs4_client *cl,
		    struct state_file *f)
{
	uint64_t n = nfs4_next_id();

	memcpy(s->other, &nfs4_st.boot_id, 4);
	memcpy(s->other + 4, &n, 8);
	s->seqid = 1;
	s->type = type;
	s->client = cl;
	s->file = f;
	s->hnext = NULL;
}

/** nfs4_stid_hash() - make @s findable. */
void nfs4_stid_hash(struct nfs4_stid *s)
{
	uint32_t b;
	struct nfs4_stid_shard *sh = stid_shard(s->other, &b);

	pthread_mutex_lock(&sh->mu);
	s->hnext = sh->b[b];
	sh->b[b] = s;
	pthread_mutex_unlock(&sh->mu);
	atomic_fetch_add(&nfs4_st.nstateids, 1);
}

/** nfs4_stid_unhash() - forget @s (tombstoned if its client expired). */
void nfs4_stid_unhash(struct nfs4_stid *s)
{
	uint32_t b;
	struct nfs4_stid_shard *sh = stid_shard(s->other, &b);
	struct nfs4_stid **pp;
	bool found = false;

	pthread_mutex_lock(&sh->mu);
	for (pp = &sh->b[b]; *pp; pp = &(*pp)->hnext) {
		if (*pp == s) {
			*pp = s->hnext;
			found = true;
			break;
		}
	}
	pthread_mutex_unlock(&sh->mu);
	if (!found)
		return;
	atomic_fetch_sub(&nfs4_st.nstateids, 1);
	if (s->client && s->client->expiring)
		nfs4_stid_tombstone(s);
}

/** nfs4_stid_bump() - the state changed: next seqid (0 is skipped). */
void nfs4_stid_bump(struct nfs4_stid *s)
{
	if (++s->seqid == 0)
		s->seqid = 1;
}

/** nfs4_stid_tombstone() - remember @s as expired (bounded ring). */
void nfs4_stid_tombstone(const struct nfs4_stid *s)
{
	pthread_mutex_lock(&nfs4_st.tomb_mu);
	memcpy(nfs4_st.tomb[nfs4_st.tomb_next], s->other, NFS4_OTHER_SIZE);
	nfs4_st.tomb_next = (nfs4_st.tomb_next + 1) % NFS4_TOMBSTONES;
	if (nfs4_st.tomb_count < NFS4_TOMBSTONES)
		nfs4_st.tomb_count++;
	pthread_mutex_unlock(&nfs4_st.tomb_mu);
}

/** nfs4_stid_find_other() - see state_int.h. */
struct nfs4_stid *nfs4_stid_find_other(const struct nfs4_client *cl,
				       const uint8_t other[NFS4_OTHER_SIZE])
{
	uint32_t b;
	struct nfs4_stid_shard *sh = stid_shard(other, &b);
	struct nfs4_stid *s;

	/* compared under the shard lock: another client's stateid may be
	 * freed as soon as it is released */
	pthread_mutex_lock(&sh->mu);
	s = shard_find(sh, b, other);
	if (s && s->client != cl)
		s = NULL;
	pthread_mutex_unlock(&sh->mu);
	return s;
}

/** nfs4_clid_tombstone() - see state_int.h. */
void nfs4_clid_tombstone(clientid4 id)
{
	pthread_mutex_lock(&nfs4_st.tomb_mu);
	nfs4_st.tomb_clid[nfs4_st.tomb_clid_next] = id;
	nfs4_st.tomb_clid_next = (nfs4_st.tomb_clid_next + 1) % NFS4_TOMBSTONES;
	if (nfs4_st.tomb_clid_count < NFS4_TOMBSTONES)
		nfs4_st.tomb_clid_count++;
	pthread_mutex_unlock(&nfs4_st.tomb_mu);
}

/** nfs4_clid_tombstoned() - see state_int.h. */
bool nfs4_clid_tombstoned(clientid4 id)
{
	bool found = false;
	uint32_t i;

	pthread_mutex_lock(&nfs4_st.tomb_mu);
	for (i = 0; i < nfs4_st.tomb_clid_count && !found; i++)
		found = nfs4_st.tomb_clid[i] == id;
	pthread_mutex_unlock(&nfs4_st.tomb_mu);
	return found;
}

static bool tombstoned(const uint8_t other[NFS4_OTHER_SIZE])
{
	bool found = false;
	uint32_t i;

	pthread_mutex_lock(&nfs4_st.tomb_mu);
	for (i = 0; i < nfs4_st.tomb_count && !found; i++)
		found = memcmp(nfs4_st.tomb[i], other, NFS4_OTHER_SIZE) == 0;
	pthread_mutex_unlock(&nfs4_st.tomb_mu);
	return found;
}

/** nfs4_stateid_is_special() - other all zeros or all ones. */
bool nfs4_stateid_is_special(const struct stateid4 *sid)
{
	return memcmp(sid->other, zeros, NFS4_OTHER_SIZE) == 0 ||
	       memcmp(sid->other, ones, NFS4_OTHER_SIZE) == 0;
}

/** nfs4_stateid_is_anon() - the anonymous stateid (all zeros). */
bool nfs4_stateid_is_anon(const struct stateid4 *sid)
{
	return sid->seqid == 0 &&
	       memcmp(sid->other, zeros, NFS4_OTHER_SIZE) == 0;
}

/** nfs4_stateid_is_bypass() - the READ bypass stateid (all ones). */
bool nfs4_stateid_is_bypass(const struct stateid4 *sid)
{
	return sid->seqid == 0xffffffff &&
	       memcmp(sid->other, ones, NFS4_OTHER_SIZE) == 0;
}

/** nfs4_stateid_is_current() - 4.1 "current stateid" (seqid 1, zeros). */
bool nfs4_stateid_is_current(const struct stateid4 *sid)
{
	return sid->seqid == 1 &&
	       memcmp(sid->other, zeros, NFS4_OTHER_SIZE) == 0;
}

/**
 * nfs4_stid_check_seqid() - RFC 8881 §8.2.2: a seqid of 0 (4.1) matches
 * the current one; an older seqid is OLD_STATEID, a newer BAD_STATEID.
 */
uint32_t nfs4_stid_check_seqid(const struct nfs4_stid *s,
			       const struct stateid4 *sid, uint32_t minor)
{
	if (sid->seqid == s->seqid || (minor >= 1 && sid->seqid == 0))
		return NFS4_OK;
	if ((int32_t)(sid->seqid - s->seqid) > 0)
		return NFS4ERR_BAD_STATEID;
	return NFS4ERR_OLD_STATEID;
}

/** nfs4_stid_to_wire() - the stateid4 naming @s now. */
void nfs4_stid_to_wire(const struct nfs4_stid *s, struct stateid4 *out)
{
	out->seqid = s->seqid;
	memcpy(out->other, s->other, NFS4_OTHER_SIZE);
}

/**
 * nfs4_set_current_stateid() - 4.1: the op produced @sid; later ops may
 * name it as the current stateid (RFC 8881 §16.2.3.1.2).
 */
void nfs4_set_current_stateid(struct nfs4_compound *c,
			      const struct stateid4 *sid)
{
	if (c->minorversion == 0)
		return;
	c->cur.stateid = *sid;
	c->cur.stateid_set = true;
}

/* Resolve the 4.1 current stateid into @out; BAD_STATEID when unset. */
static uint32_t resolve_current(struct nfs4_compound *c,
				const struct stateid4 *sid,
				struct stateid4 *out)
{
	*out = *sid;
	if (c->minorversion >= 1 && nfs4_stateid_is_current(sid)) {
		if (!c->cur.stateid_set)
			return NFS4ERR_BAD_STATEID;
		*out = c->cur.stateid;
	}
	return NFS4_OK;
}

/* The status of a stateid not found (among @cl's, or at all). */
static uint32_t not_found(const struct nfs4_compound *c,
			  const struct stateid4 *sid)
{
	if (c->minorversion == 0 && tombstoned(sid->other))
		return NFS4ERR_EXPIRED;
	return NFS4ERR_BAD_STATEID;
}

/* Special stateids, and those of an earlier server instance. */
static uint32_t check_form(const struct nfs4_compound *c,
			   const struct stateid4 *sid)
{
	if (nfs4_stateid_is_special(sid))
		return NFS4ERR_BAD_STATEID;
	if (memcmp(sid->other, &nfs4_st.boot_id, 4) != 0)
		return c->minorversion == 0 ? NFS4ERR_STALE_STATEID
					    : NFS4ERR_BAD_STATEID;
	return NFS4_OK;
}

/*
 * The checks on a stateid @s of @cl found with @cl's mutex held: its
 * type, its client (4.1: the session's; 4.0: a 4.0 client), its seqid;
 * renews the lease.
 */
static uint32_t stid_check(struct nfs4_compound *c, struct nfs4_client *cl,
			   struct nfs4_stid *s, const struct stateid4 *sid,
			   unsigned int types, bool check_seqid)
{
	/* a revoked delegation where a live one would do (RFC 8881
	 * §8.2.3; 4.0 has no FREE_STATEID: ADMIN_REVOKED) */
	if (s->type == NFS4_STID_DELEG_REVOKED &&
	    !(types & (1u << s->type)) && (types & (1u << NFS4_STID_DELEG)))
		return c->minorversion ? NFS4ERR_DELEG_REVOKED
				       : NFS4ERR_ADMIN_REVOKED;
	if (!(types & (1u << s->type)))
		return NFS4ERR_BAD_STATEID;
	if (c->minorversion >= 1 ? cl != c->client : cl->minor != 0)
		return NFS4ERR_BAD_STATEID;
	if (check_seqid) {
		uint32_t status =
			nfs4_stid_check_seqid(s, sid, c->minorversion);

		if (status != NFS4_OK)
			return status;
	}
	nfs4_client_renew(cl);
	return NFS4_OK;
}

/** nfs4_stid_lookup_in() - see state_int.h. */
uint32_t nfs4_stid_lookup_in(struct nfs4_compound *c, struct nfs4_client *cl,
			     const struct stateid4 *sid, unsigned int types,
			     bool check_seqid, struct nfs4_stid **out)
{
	struct stateid4 tmp;
	struct nfs4_stid *s;
	uint32_t status;

	status = resolve_current(c, sid, &tmp);
	if (status == NFS4_OK)
		status = check_form(c, &tmp);
	if (status != NFS4_OK)
		return status;
	s = nfs4_stid_find_other(cl, tmp.other);
	if (!s)
		return not_found(c, &tmp);
	status = stid_check(c, cl, s, &tmp, types, check_seqid);
	if (status == NFS4_OK)
		*out = s;
	return status;
}

/*
 * Find @sid (resolved) and return with its client pinned and locked.
 * 4.1: only the session's client can own it, so that one is locked and
 * searched. 4.0: the client is found through the stateid, pinned under
 * the shard lock, locked, and the stateid looked up again: it may have
 * gone meanwhile, and it cannot go while the mutex is held.
 */
static uint32_t stid_find_lock(struct nfs4_compound *c,
			       const struct stateid4 *sid, unsigned int types,
			       bool check_seqid, struct nfs4_stid **out)
{
	struct nfs4_stid_shard *sh;
	struct nfs4_client *cl;
	struct nfs4_stid *s;
	uint32_t status, b;

	status = check_form(c, sid);
	if (status != NFS4_OK)
		return status;
	if (c->minorversion >= 1) {
		cl = c->client;
		if (!cl) /* no SEQUENCE: no client can match */
			return NFS4ERR_BAD_STATEID;
		nfs4_client_get(cl);
	} else {
		sh = stid_shard(sid->other, &b);
		pthread_mutex_lock(&sh->mu);
		s = shard_find(sh, b, sid->other);
		cl = s ? s->client : NULL;
		if (cl)
			nfs4_client_get(cl);
		pthread_mutex_unlock(&sh->mu);
		if (!cl)
			return not_found(c, sid);
	}
	nfs4_client_lock(cl);
	s = nfs4_stid_find_other(cl, sid->other);
	status = s ? stid_check(c, cl, s, sid, types, check_seqid)
		   : not_found(c, sid);
	if (status != NFS4_OK) {
		nfs4_client_unlock_put(cl);
		return status;
	}
	*out = s;
	return NFS4_OK;
}

/** nfs4_stid_key() - see state_int.h. */
const void *nfs4_stid_key(struct nfs4_compound *c, const struct stateid4 *sid)
{
	struct nfs4_stid_shard *sh;
	struct nfs4_stid *s;
	const void *key;
	uint32_t b;

	if (c->client)
		return c->client;
	sh = stid_shard(sid->other, &b);
	pthread_mutex_lock(&sh->mu);
	s = shard_find(sh, b, sid->other);
	key = s ? (const void *)s->client : NULL;
	pthread_mutex_unlock(&sh->mu);
	return key;
}

/** nfs4_stid_lookup() - see state_int.h. */
uint32_t nfs4_stid_lookup(struct nfs4_compound *c, const struct stateid4 *sid,
			  unsigned int types, bool check_seqid,
			  struct nfs4_stid **out)
{
	struct stateid4 tmp;
	uint32_t status;

	status = resolve_current(c, sid, &tmp);
	if (status != NFS4_OK)
		return status;
	return stid_find_lock(c, &tmp, types, check_seqid, out);
}

/*
 * Anonymous/bypass I/O against share reservations (RFC 7530 §9.1.4.3) and
 * mandatory (other protocols') byte-range locks; the READ bypass stateid
 * bypasses both.
 */
static uint32_t special_io(struct nfs4_compound *c, bool write, bool bypass,
			   const struct state_range *r)
{
	if (bypass && !write)
		return NFS4_OK;
	if (state_share_denies_obj(c->cur.obj, write ? STATE_ACCESS_WRITE
						     : STATE_ACCESS_READ))
		return NFS4ERR_LOCKED;
	if (state_check_io_obj(c->cur.obj, NULL, write, r) < 0)
		return NFS4ERR_LOCKED;
	return NFS4_OK;
}

/**
 * nfs4_state_check_io() - see state.h. The hot path of READ and WRITE:
 * the stateid's shard lock and its client's mutex, no global lock; the
 * shared file state is asked only while a mandatory lock exists
 * somewhere. NFSv4 byte-range locks are
 * advisory (POSIX semantics, as knfsd): I/O under an open or lock
 * stateid is not refused because another owner holds a lock over the
 * range; only mandatory locks of other protocols (SMB) refuse it.
 */
uint32_t nfs4_state_check_io(struct nfs4_compound *c,
			     const struct stateid4 *sid, bool write,
			     uint64_t off, uint64_t len)
{
	struct state_holder h;
	struct state_range r;
	struct nfs4_stid *s;
	struct nfs4_open *op;
	struct stateid4 tmp;
	uint32_t status;

	c->io_open_read = false;
	if (!c->cur.set || c->cur.pseudo || !c->cur.obj)
		return NFS4ERR_BAD_STATEID;
	status = resolve_current(c, sid, &tmp);
	if (status != NFS4_OK)
		return status;
	state_range_io(off, len, &r);
	/* the shared file state alone: no client is involved */
	if (nfs4_stateid_is_anon(&tmp) || nfs4_stateid_is_bypass(&tmp))
		return special_io(c, write, nfs4_stateid_is_bypass(&tmp), &r);
	status = stid_find_lock(c, &tmp,
				1u << NFS4_STID_OPEN | 1u << NFS4_STID_LOCK |
					1u << NFS4_STID_DELEG,
				true, &s);
	if (status != NFS4_OK)
		return status;
	if (state_file_obj(s->file) != c->cur.obj) {
		status = NFS4ERR_BAD_STATEID;
		goto out;
	}
	if (c->minorversion == 0 && c->grant_key != s->client) {
		/* 4.0: whose delegations are its own, on this connection */
		c->grant_key = s->client;
		nfs4_conn40_note(c->call->conn, s->client);
	}
	if (s->type == NFS4_STID_DELEG) {
		/* I/O under a delegation: reads under either kind, writes
		 * under a write delegation (RFC 8881 §10.2, §9.1.2) */
		struct nfs4_deleg *d =
			nfs4_container_of(s, struct nfs4_deleg, sid);

		h = (struct state_holder){d, STATE_HOLDER_NFS4};
		if (write && d->type != OPEN_DELEGATE_WRITE)
			status = NFS4ERR_OPENMODE;
		else if (state_check_io(s->file, &h, write, &r) < 0)
			status = NFS4ERR_LOCKED;
		goto out;
	}
	if (s->type == NFS4_STID_OPEN) {
		op = nfs4_container_of(s, struct nfs4_open, sid);
		h = nfs4_open_holder(op);
	} else {
		struct nfs4_lockstate *ls =
			nfs4_container_of(s, struct nfs4_lockstate, sid);

		op = ls->open;
		h = nfs4_lockstate_holder(ls);
	}
	if (!op->owner->confirmed) {
		status = NFS4ERR_BAD_STATEID; /* before OPEN_CONFIRM */
		goto out;
	}
	/* READ is allowed under a write-only open, as knfsd does: clients
	 * read to fill partial pages of files they write */
	if (write && !(op->access & OPEN4_SHARE_ACCESS_WRITE))
		status = NFS4ERR_OPENMODE;
	else if (state_check_io(s->file, &h, write, &r) < 0)
		status = NFS4ERR_LOCKED;
	else
		c->io_open_read = op->access & OPEN4_SHARE_ACCESS_READ;
out:
	nfs4_client_unlock_put(s->client);
	return status;
}

/**
 * nfs4_state_file_removed() - see state.h. Opens keep their vfs object
 * referenced, so an unlinked open file stays usable until CLOSE; nothing
 * to do here.
 */
void nfs4_state_file_removed(struct vfs_obj *obj)
{
	(void)obj;
}
