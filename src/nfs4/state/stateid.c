// SPDX-License-Identifier: MIT
/*
 * Stateids (RFC 8881 §8.2, RFC 7530 §9.1.4): the table, the seqid rules
 * (OLD_STATEID/BAD_STATEID), the special stateids (anonymous, READ
 * bypass, 4.1 current and invalid), stale ones from an earlier server
 * instance, and the I/O check READ/WRITE/SETATTR use.
 *
 * other[12] = the 4-byte boot id + an 8-byte counter.
 */
#include <string.h>

#include "nfs4/state/state_int.h"

static const uint8_t zeros[NFS4_OTHER_SIZE];
static const uint8_t ones[NFS4_OTHER_SIZE] = {
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
};

static uint32_t stid_bucket(const uint8_t other[NFS4_OTHER_SIZE])
{
	return nfs4_hash_bytes(other, NFS4_OTHER_SIZE) % NFS4_HASH_SIZE;
}

/** nfs4_stid_init() - a fresh stateid of @type (seqid 1), not hashed. */
void nfs4_stid_init(struct nfs4_stid *s, uint8_t type,
		    struct nfs4_client *cl, struct state_file *f)
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
	uint32_t b = stid_bucket(s->other);

	s->hnext = nfs4_st.stid_hash[b];
	nfs4_st.stid_hash[b] = s;
	nfs4_st.nstateids++;
}

/** nfs4_stid_unhash() - forget @s (tombstoned if its client expired). */
void nfs4_stid_unhash(struct nfs4_stid *s)
{
	struct nfs4_stid **pp;

	for (pp = &nfs4_st.stid_hash[stid_bucket(s->other)]; *pp;
	     pp = &(*pp)->hnext) {
		if (*pp == s) {
			*pp = s->hnext;
			nfs4_st.nstateids--;
			if (s->client && s->client->expiring)
				nfs4_stid_tombstone(s);
			return;
		}
	}
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
	memcpy(nfs4_st.tomb[nfs4_st.tomb_next], s->other, NFS4_OTHER_SIZE);
	nfs4_st.tomb_next = (nfs4_st.tomb_next + 1) % NFS4_TOMBSTONES;
	if (nfs4_st.tomb_count < NFS4_TOMBSTONES)
		nfs4_st.tomb_count++;
}

/** nfs4_stid_find_other() - the stateid with @other, no checks. */
struct nfs4_stid *nfs4_stid_find_other(const uint8_t other[NFS4_OTHER_SIZE])
{
	struct nfs4_stid *s;

	for (s = nfs4_st.stid_hash[stid_bucket(other)]; s; s = s->hnext)
		if (memcmp(s->other, other, NFS4_OTHER_SIZE) == 0)
			return s;
	return NULL;
}

static bool tombstoned(const uint8_t other[NFS4_OTHER_SIZE])
{
	uint32_t i;

	for (i = 0; i < nfs4_st.tomb_count; i++)
		if (memcmp(nfs4_st.tomb[i], other, NFS4_OTHER_SIZE) == 0)
			return true;
	return false;
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

static uint32_t stid_find(struct nfs4_compound *c, const struct stateid4 *sid,
			  unsigned int types, bool check_seqid,
			  struct nfs4_stid **out)
{
	struct nfs4_stid *s;

	if (nfs4_stateid_is_special(sid))
		return NFS4ERR_BAD_STATEID;
	if (memcmp(sid->other, &nfs4_st.boot_id, 4) != 0)
		return c->minorversion == 0 ? NFS4ERR_STALE_STATEID
					    : NFS4ERR_BAD_STATEID;
	s = nfs4_stid_find_other(sid->other);
	if (!s) {
		if (c->minorversion == 0 && tombstoned(sid->other))
			return NFS4ERR_EXPIRED;
		return NFS4ERR_BAD_STATEID;
	}
	if (!(types & (1u << s->type)))
		return NFS4ERR_BAD_STATEID;
	if (c->minorversion >= 1 ? s->client != c->client
				 : s->client->minor != 0)
		return NFS4ERR_BAD_STATEID;
	if (check_seqid) {
		uint32_t status =
			nfs4_stid_check_seqid(s, sid, c->minorversion);

		if (status != NFS4_OK)
			return status;
	}
	nfs4_client_renew(s->client);
	*out = s;
	return NFS4_OK;
}

/** nfs4_stid_lookup() - see state_int.h. Under nfs4_st.mu. */
uint32_t nfs4_stid_lookup(struct nfs4_compound *c, const struct stateid4 *sid,
			  unsigned int types, bool check_seqid,
			  struct nfs4_stid **out)
{
	struct stateid4 tmp;
	uint32_t status;

	status = resolve_current(c, sid, &tmp);
	if (status != NFS4_OK)
		return status;
	return stid_find(c, &tmp, types, check_seqid, out);
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
 * nfs4_state_check_io() - see state.h. NFSv4 byte-range locks are
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

	if (!c->cur.set || c->cur.pseudo || !c->cur.obj)
		return NFS4ERR_BAD_STATEID;
	status = resolve_current(c, sid, &tmp);
	if (status != NFS4_OK)
		return status;
	state_range_io(off, len, &r);
	pthread_mutex_lock(&nfs4_st.mu);
	if (nfs4_stateid_is_anon(&tmp) || nfs4_stateid_is_bypass(&tmp)) {
		status = special_io(c, write, nfs4_stateid_is_bypass(&tmp), &r);
		goto out;
	}
	status = stid_find(c, &tmp,
			   1u << NFS4_STID_OPEN | 1u << NFS4_STID_LOCK, true,
			   &s);
	if (status != NFS4_OK)
		goto out;
	if (state_file_obj(s->file) != c->cur.obj) {
		status = NFS4ERR_BAD_STATEID;
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
out:
	pthread_mutex_unlock(&nfs4_st.mu);
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
