// SPDX-License-Identifier: MIT
/*
 * Byte-range locking: LOCK (RFC 8881 §18.10, RFC 7530 §16.10), LOCKT
 * (§18.11), LOCKU (§18.12) and RELEASE_LOCKOWNER (RFC 7530 §16.37).
 * Locks live in the shared file state (src/state/) with POSIX semantics,
 * where other protocols' locks conflict with them; they are not taken on
 * the local file system, so local processes do not see them.
 * Blocking types (READW/WRITEW) are answered like the plain ones: no
 * waiting queue, DENIED at once.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "nfs4/state/ops.h"
#include "nfs4/state/state_int.h"

struct LOCK4args {
	uint32_t locktype;
	bool reclaim;
	uint64_t offset;
	uint64_t length;
	bool new_lock_owner;
	/* open_to_lock_owner4 */
	uint32_t open_seqid;
	struct stateid4 open_stateid;
	uint32_t lock_seqid;
	clientid4 clientid;
	struct nfs4_opaque owner;
	/* exist_lock_owner4 */
	struct stateid4 lock_stateid;
};

struct LOCK4denied {
	uint64_t offset;
	uint64_t length;
	uint32_t locktype;
	clientid4 clientid;
	const uint8_t *owner;      /* call memory */
	uint32_t owner_len;
};

struct LOCK4res {
	struct nfs4_seqres seq;    /* first: see nfs4_seqres_cache */
	struct stateid4 lock_stateid;
	struct LOCK4denied denied;
};

struct LOCKT4args {
	uint32_t locktype;
	uint64_t offset;
	uint64_t length;
	clientid4 clientid;
	struct nfs4_opaque owner;
};

struct LOCKU4args {
	uint32_t locktype;
	uint32_t seqid;
	struct stateid4 lock_stateid;
	uint64_t offset;
	uint64_t length;
};

struct RELEASE_LOCKOWNER4args {
	clientid4 clientid;
	struct nfs4_opaque owner;
};

static bool valid_type(uint32_t t)
{
	return t >= READ_LT && t <= WRITEW_LT;
}

static bool is_write(uint32_t t)
{
	return t == WRITE_LT || t == WRITEW_LT;
}

static uint32_t resource(const struct nfs4_compound *c)
{
	return c->minorversion ? NFS4ERR_DELAY : NFS4ERR_RESOURCE;
}

static bool dec_LOCK4args(struct xdr_buf *x, void *p)
{
	struct LOCK4args *a = p;

	if (!xdr_dec_u32(x, &a->locktype) || !xdr_dec_bool(x, &a->reclaim) ||
	    !xdr_dec_u64(x, &a->offset) || !xdr_dec_u64(x, &a->length) ||
	    !xdr_dec_bool(x, &a->new_lock_owner))
		return false;
	if (a->new_lock_owner)
		return xdr_dec_u32(x, &a->open_seqid) &&
		       nfs4_dec_stateid4(x, &a->open_stateid) &&
		       xdr_dec_u32(x, &a->lock_seqid) &&
		       nfs4_dec_owner4(x, &a->clientid, &a->owner);
	return nfs4_dec_stateid4(x, &a->lock_stateid) &&
	       xdr_dec_u32(x, &a->lock_seqid);
}

static bool enc_LOCK4denied(struct xdr_buf *x, const struct LOCK4denied *d)
{
	return xdr_enc_u64(x, d->offset) && xdr_enc_u64(x, d->length) &&
	       xdr_enc_u32(x, d->locktype) &&
	       nfs4_enc_owner4(x, d->clientid, d->owner, d->owner_len);
}

static bool enc_LOCK4res(struct xdr_buf *x, uint32_t status, const void *p)
{
	const struct LOCK4res *r = p;

	if (status == NFS4_OK)
		return nfs4_enc_stateid4(x, &r->lock_stateid);
	if (status == NFS4ERR_DENIED)
		return enc_LOCK4denied(x, &r->denied);
	return true;
}

/* A conflict to describe in a LOCK4denied (state_conflict_fn). */
struct denied_ctx {
	struct nfs4_compound *c;
	struct LOCK4denied *d;
	bool nomem;
};

/*
 * Fill the LOCK4denied of the conflicting lock @l. Runs under the file's
 * lock in the shared state, which keeps the holder alive: an NFSv4 lock
 * state, whose owner's name and client id do not change. Another
 * protocol's lock is described without an owner.
 */
static void fill_denied(void *arg, const struct state_lock_info *l)
{
	struct denied_ctx *dc = arg;
	struct LOCK4denied *d = dc->d;

	d->offset = l->range.start;
	d->length = state_range_len(&l->range);
	d->locktype = l->excl ? WRITE_LT : READ_LT;
	d->clientid = 0;
	d->owner = NULL;
	d->owner_len = 0;
	if (l->holder.tag == STATE_HOLDER_NFS4) {
		const struct nfs4_lockstate *ls = l->holder.id;
		uint8_t *owner =
			rpc_call_alloc(dc->c->call, ls->owner->name_len + 1);

		if (!owner) {
			dc->nomem = true;
			return;
		}
		memcpy(owner, ls->owner->name, ls->owner->name_len);
		d->clientid = ls->owner->client->clientid;
		d->owner = owner;
		d->owner_len = ls->owner->name_len;
	}
}

/* The status of a denied lock: DENIED, or the resource error when the
 * denial could not be described. */
static uint32_t denied_status(const struct denied_ctx *dc)
{
	return dc->nomem ? resource(dc->c) : NFS4ERR_DENIED;
}

/* @lo's lock state on the file @f, or NULL. */
static struct nfs4_lockstate *lockstate_find(struct nfs4_owner *lo,
					     const struct state_file *f)
{
	struct nfs4_list *n;

	for (n = lo->states.next; n != &lo->states; n = n->next) {
		struct nfs4_lockstate *ls =
			nfs4_container_of(n, struct nfs4_lockstate, owner_link);

		if (ls->sid.file == f)
			return ls;
	}
	return NULL;
}

static struct nfs4_lockstate *lockstate_new(struct nfs4_owner *lo,
					    struct nfs4_open *op)
{
	struct state_file *f = op->sid.file;
	struct nfs4_lockstate *ls;

	if (atomic_load(&nfs4_st.nstateids) >= NFS4_MAX_STATEIDS)
		return NULL;
	ls = calloc(1, sizeof(*ls));
	if (!ls)
		return NULL;
	state_file_hold(f);
	nfs4_stid_init(&ls->sid, NFS4_STID_LOCK, lo->client, f);
	ls->owner = lo;
	ls->open = op;
	nfs4_list_add_tail(&lo->states, &ls->owner_link);
	nfs4_list_add_tail(&op->lockstates, &ls->open_link);
	nfs4_stid_hash(&ls->sid);
	lo->client->nstates++;
	return ls;
}

/* The file of the current filehandle must be the stateid's. */
static uint32_t check_file(const struct nfs4_compound *c,
			   const struct nfs4_stid *s)
{
	return s->file && state_file_obj(s->file) == c->cur.obj
		       ? NFS4_OK
		       : NFS4ERR_BAD_STATEID;
}

struct lock_ctx {
	struct nfs4_client *cl;         /* pinned and locked, or NULL */
	struct nfs4_owner *seq_owner;   /* whose seqid this LOCK uses */
	uint32_t seqid;
	struct nfs4_open *op;
	struct nfs4_owner *lo;          /* lock owner */
	struct nfs4_lockstate *ls;      /* NULL: new lock owner on file */
};

/* open_to_lock_owner4: the open, its owner's seqid, the lock owner. */
static uint32_t lock_new_owner(struct nfs4_compound *c,
			       const struct LOCK4args *a,
			       struct lock_ctx *lc, bool *replay)
{
	struct nfs4_stid *s;
	struct nfs4_open *op;
	uint32_t status;

	status = nfs4_stid_lookup(c, &a->open_stateid,
				  1u << NFS4_STID_OPEN, false, &s);
	if (status != NFS4_OK)
		return status;
	lc->cl = s->client;
	op = nfs4_container_of(s, struct nfs4_open, sid);
	status = nfs4_seqid_check(c, op->owner, a->open_seqid, replay);
	if (*replay || status != NFS4_OK)
		return status;
	lc->seq_owner = op->owner;
	lc->seqid = a->open_seqid;
	lc->op = op;
	if (c->minorversion == 0 && !op->owner->confirmed)
		return NFS4ERR_BAD_STATEID;
	status = check_file(c, s);
	if (status == NFS4_OK)
		status = nfs4_stid_check_seqid(s, &a->open_stateid,
					       c->minorversion);
	if (status != NFS4_OK)
		return status;
	if (c->minorversion == 0 && a->clientid != s->client->clientid)
		return NFS4ERR_STALE_CLIENTID;
	lc->lo = nfs4_owner_find(s->client, true, a->owner.data,
				 a->owner.len);
	if (!lc->lo) {
		lc->lo = nfs4_owner_new(s->client, true, a->owner.data,
					a->owner.len);
		if (!lc->lo)
			return resource(c);
		lc->lo->seqid = a->lock_seqid;
	}
	lc->ls = lockstate_find(lc->lo, s->file);
	return NFS4_OK;
}

/* exist_lock_owner4: the lock stateid and its owner's seqid. */
static uint32_t lock_exist_owner(struct nfs4_compound *c,
				 const struct LOCK4args *a,
				 struct lock_ctx *lc, bool *replay)
{
	struct nfs4_stid *s;
	uint32_t status;

	status = nfs4_stid_lookup(c, &a->lock_stateid, 1u << NFS4_STID_LOCK,
				  false, &s);
	if (status != NFS4_OK)
		return status;
	lc->cl = s->client;
	lc->ls = nfs4_container_of(s, struct nfs4_lockstate, sid);
	lc->lo = lc->ls->owner;
	lc->op = lc->ls->open;
	status = nfs4_seqid_check(c, lc->lo, a->lock_seqid, replay);
	if (*replay || status != NFS4_OK)
		return status;
	lc->seq_owner = lc->lo;
	lc->seqid = a->lock_seqid;
	status = check_file(c, s);
	if (status != NFS4_OK)
		return status;
	return nfs4_stid_check_seqid(s, &a->lock_stateid, c->minorversion);
}

/**
 * nfs4_op_lock() - RFC 8881 §18.10.3: a lock for a new lock owner (from
 * an open stateid, 4.0: with the open owner's seqid) or an existing one
 * (with the lock owner's seqid); reclaims only during grace for clients
 * known from before the restart, new locks only outside it; the open must
 * allow the lock's type (OPENMODE); DENIED names a conflicting lock.
 */
uint32_t nfs4_op_lock(struct nfs4_compound *c, void *args, void *res)
{
	struct LOCK4args *a = args;
	struct LOCK4res *r = res;
	struct lock_ctx lc = {0};
	struct denied_ctx dc = {c, &r->denied, false};
	struct state_holder h, *hp = NULL;
	struct state_range range;
	struct state_file *f;
	bool excl = is_write(a->locktype), created = false;
	uint32_t status;
	bool replay = false, recalling = false;
	int ret;

	if (!valid_type(a->locktype))
		return NFS4ERR_INVAL;
	/* another client's delegation (its holder may lock without telling)
	 * is recalled first, with no state lock held; DELAY then goes
	 * through the seqid rules like any other answer */
	if (state_grant_any() && c->cur.obj)
		recalling = state_grant_break_key(
				    c->cur.obj, STATE_OP_WRITE,
				    nfs4_stid_key(c, a->new_lock_owner
							     ? &a->open_stateid
							     : &a->lock_stateid)) ==
			    -EAGAIN;
	if (a->new_lock_owner)
		status = lock_new_owner(c, a, &lc, &replay);
	else
		status = lock_exist_owner(c, a, &lc, &replay);
	if (replay || !lc.seq_owner)
		goto out;
	if (status != NFS4_OK)
		goto out_seqid;
	status = a->reclaim ? nfs4_grace_check_reclaim(lc.lo->client)
			    : nfs4_grace_check_new_cl(lc.lo->client);
	if (status == NFS4_OK && recalling)
		status = NFS4ERR_DELAY;
	if (status != NFS4_OK)
		goto out_seqid;
	if (!(lc.op->access &
	      (excl ? OPEN4_SHARE_ACCESS_WRITE : OPEN4_SHARE_ACCESS_READ))) {
		status = NFS4ERR_OPENMODE;
		goto out_seqid;
	}
	if (state_range_nfs(a->offset, a->length, &range) < 0) {
		status = NFS4ERR_INVAL;
		goto out_seqid;
	}
	f = lc.op->sid.file;
	/* a conflict answers DENIED before any new lock state is made */
	if (lc.ls) {
		h = nfs4_lockstate_holder(lc.ls);
		hp = &h;
	}
	ret = state_lock_test(f, hp, &range, excl, fill_denied, &dc);
	if (ret == -EAGAIN || ret == -EINPROGRESS) {
		/* DELAY: a courtesy client's lock, being expired */
		status = ret == -EAGAIN ? denied_status(&dc) : NFS4ERR_DELAY;
		goto out_seqid;
	}
	if (!lc.ls) {
		lc.ls = lockstate_new(lc.lo, lc.op);
		if (!lc.ls) {
			status = resource(c);
			goto out_seqid;
		}
		created = true;
	} else {
		nfs4_stid_bump(&lc.ls->sid);
	}
	h = nfs4_lockstate_holder(lc.ls);
	ret = state_lock(f, &h, &range, excl, fill_denied, &dc);
	if (ret == -EAGAIN || ret == -EINPROGRESS) {
		/* another protocol's (or client's) lock came in between */
		if (created)
			nfs4_lockstate_free(lc.ls);
		status = ret == -EAGAIN ? denied_status(&dc) : NFS4ERR_DELAY;
		goto out_seqid;
	}
	if (ret < 0) {
		status = resource(c);
		goto out_seqid;
	}
	nfs4_stid_to_wire(&lc.ls->sid, &r->lock_stateid);
	nfs4_set_current_stateid(c, &r->lock_stateid);
	if (a->reclaim) {
		atomic_fetch_add(&nfs4_st.reclaimed_locks, 1);
		log_debug("nfs4: client %016llx reclaimed a lock",
			  (unsigned long long)lc.lo->client->clientid);
	}
out_seqid:
	nfs4_seqid_done(c, &r->seq, lc.seq_owner, lc.seqid, status);
out:
	if (lc.cl)
		nfs4_client_unlock_put(lc.cl);
	return status;
}

const struct nfs4_op nfs4_op_desc_lock = {
	.name = "LOCK",
	.minor_min = 0,
	.minor_max = 255,
	.flags = NFS4_OP_NEEDS_FH,
	.args_size = sizeof(struct LOCK4args),
	.res_size = sizeof(struct LOCK4res),
	.decode = dec_LOCK4args,
	.handle = nfs4_op_lock,
	.encode = enc_LOCK4res,
	.encode_err = true,
	.release = nfs4_seqres_release,
	.cache = nfs4_seqres_cache,
};

static bool dec_LOCKT4args(struct xdr_buf *x, void *p)
{
	struct LOCKT4args *a = p;

	return xdr_dec_u32(x, &a->locktype) && xdr_dec_u64(x, &a->offset) &&
	       xdr_dec_u64(x, &a->length) &&
	       nfs4_dec_owner4(x, &a->clientid, &a->owner);
}

/* The current filehandle must be a regular file for LOCKT. */
static uint32_t lockt_file(const struct nfs4_compound *c)
{
	struct vfs_attr va;

	if (c->cur.pseudo || !c->cur.obj)
		return NFS4ERR_ISDIR;
	if (vfs_getattr(c->cur.obj, &va))
		return NFS4ERR_STALE;
	if (va.type == VFS_REG)
		return NFS4_OK;
	if (va.type == VFS_DIR)
		return NFS4ERR_ISDIR;
	return c->minorversion ? NFS4ERR_WRONG_TYPE : NFS4ERR_INVAL;
}

/**
 * nfs4_op_lockt() - RFC 8881 §18.11.3: would the lock be granted? No
 * state is created; 4.0 checks (and renews) the clientid; GRACE while
 * reclaims may still add conflicting locks.
 */
uint32_t nfs4_op_lockt(struct nfs4_compound *c, void *args, void *res)
{
	struct LOCKT4args *a = args;
	struct LOCK4res *r = res;
	struct denied_ctx dc = {c, &r->denied, false};
	struct state_holder h, *hp = NULL;
	struct nfs4_lockstate *ls;
	struct state_range range;
	struct nfs4_client *cl;
	struct nfs4_owner *lo;
	struct state_file *f;
	uint32_t status;

	if (!valid_type(a->locktype))
		return NFS4ERR_INVAL;
	status = lockt_file(c);
	if (status != NFS4_OK)
		return status;
	if (state_range_nfs(a->offset, a->length, &range) < 0)
		return NFS4ERR_INVAL;
	/* another client's delegation is recalled first (its holder may
	 * hold locks the server has not seen) */
	if (state_grant_any()) {
		struct nfs4_client *owner = c->client
						    ? NULL
						    : nfs4_client_lookup(
							      a->clientid);
		const void *key = c->client ? (const void *)c->client
					    : (const void *)owner;
		int err = state_grant_break_key(c->cur.obj, STATE_OP_LOCKT,
						key);

		if (owner)
			nfs4_client_put(owner);
		if (err == -EAGAIN)
			return NFS4ERR_DELAY;
	}
	status = nfs4_owner_client(c, a->clientid, &cl);
	if (status != NFS4_OK)
		return status;
	status = nfs4_grace_check_new();
	if (status != NFS4_OK)
		goto out;
	f = state_file_find(c->cur.obj);
	if (!f)
		goto out;
	lo = nfs4_owner_find(cl, true, a->owner.data, a->owner.len);
	ls = lo ? lockstate_find(lo, f) : NULL;
	/* without a lock state on the file the owner conflicts with all */
	if (ls) {
		h = nfs4_lockstate_holder(ls);
		hp = &h;
	}
	switch (state_lock_test(f, hp, &range, is_write(a->locktype),
				fill_denied, &dc)) {
	case -EAGAIN:
		status = denied_status(&dc);
		break;
	case -EINPROGRESS:
		status = NFS4ERR_DELAY; /* a courtesy client's, expiring */
		break;
	default:
		break;
	}
	state_file_put(f);
out:
	nfs4_client_unlock_put(cl);
	return status;
}

static bool enc_LOCKT4res(struct xdr_buf *x, uint32_t status, const void *p)
{
	const struct LOCK4res *r = p;

	if (status == NFS4ERR_DENIED)
		return enc_LOCK4denied(x, &r->denied);
	return true;
}

const struct nfs4_op nfs4_op_desc_lockt = {
	.name = "LOCKT",
	.minor_min = 0,
	.minor_max = 255,
	.flags = NFS4_OP_NEEDS_FH,
	.args_size = sizeof(struct LOCKT4args),
	.res_size = sizeof(struct LOCK4res),
	.decode = dec_LOCKT4args,
	.handle = nfs4_op_lockt,
	.encode = enc_LOCKT4res,
	.encode_err = true,
};

static bool dec_LOCKU4args(struct xdr_buf *x, void *p)
{
	struct LOCKU4args *a = p;

	return xdr_dec_u32(x, &a->locktype) && xdr_dec_u32(x, &a->seqid) &&
	       nfs4_dec_stateid4(x, &a->lock_stateid) &&
	       xdr_dec_u64(x, &a->offset) && xdr_dec_u64(x, &a->length);
}

static bool enc_LOCKU4res(struct xdr_buf *x, uint32_t status, const void *p)
{
	const struct LOCK4res *r = p;

	(void)status;
	return nfs4_enc_stateid4(x, &r->lock_stateid);
}

/**
 * nfs4_op_locku() - RFC 8881 §18.12.3: release a range (any part of the
 * owner's locks; a range inside one lock splits it).
 */
uint32_t nfs4_op_locku(struct nfs4_compound *c, void *args, void *res)
{
	struct LOCKU4args *a = args;
	struct LOCK4res *r = res;
	struct nfs4_lockstate *ls;
	struct state_holder h;
	struct state_range range;
	struct nfs4_stid *s;
	uint32_t status;
	bool replay;

	if (!valid_type(a->locktype))
		return NFS4ERR_INVAL;
	status = nfs4_stid_lookup(c, &a->lock_stateid, 1u << NFS4_STID_LOCK,
				  false, &s);
	if (status != NFS4_OK)
		return status;
	ls = nfs4_container_of(s, struct nfs4_lockstate, sid);
	status = nfs4_seqid_check(c, ls->owner, a->seqid, &replay);
	if (replay || status != NFS4_OK)
		goto out;
	status = check_file(c, s);
	if (status == NFS4_OK)
		status = nfs4_stid_check_seqid(s, &a->lock_stateid,
					       c->minorversion);
	if (status == NFS4_OK &&
	    state_range_nfs(a->offset, a->length, &range) < 0)
		status = NFS4ERR_INVAL;
	if (status == NFS4_OK) {
		h = nfs4_lockstate_holder(ls);
		if (state_unlock(s->file, &h, &range) < 0) {
			status = resource(c);
		} else {
			nfs4_stid_bump(&ls->sid);
			nfs4_stid_to_wire(&ls->sid, &r->lock_stateid);
			nfs4_set_current_stateid(c, &r->lock_stateid);
		}
	}
	nfs4_seqid_done(c, &r->seq, ls->owner, a->seqid, status);
out:
	nfs4_client_unlock_put(s->client);
	return status;
}

const struct nfs4_op nfs4_op_desc_locku = {
	.name = "LOCKU",
	.minor_min = 0,
	.minor_max = 255,
	.flags = NFS4_OP_NEEDS_FH,
	.args_size = sizeof(struct LOCKU4args),
	.res_size = sizeof(struct LOCK4res),
	.decode = dec_LOCKU4args,
	.handle = nfs4_op_locku,
	.encode = enc_LOCKU4res,
	.release = nfs4_seqres_release,
	.cache = nfs4_seqres_cache,
};

static bool dec_RELEASE_LOCKOWNER4args(struct xdr_buf *x, void *p)
{
	struct RELEASE_LOCKOWNER4args *a = p;

	return nfs4_dec_owner4(x, &a->clientid, &a->owner);
}

/**
 * nfs4_op_release_lockowner() - RFC 7530 §16.37.4: forget a lock owner
 * and its lock stateids; LOCKS_HELD while it still holds a range.
 */
uint32_t nfs4_op_release_lockowner(struct nfs4_compound *c, void *args,
				   void *res)
{
	struct RELEASE_LOCKOWNER4args *a = args;
	struct nfs4_client *cl;
	struct nfs4_owner *lo;
	struct nfs4_list *n;
	uint32_t status;

	(void)c;
	(void)res;
	status = nfs4_client_check40(a->clientid, &cl);
	if (status != NFS4_OK)
		return status;
	lo = nfs4_owner_find(cl, true, a->owner.data, a->owner.len);
	if (!lo)
		goto out;
	for (n = lo->states.next; n != &lo->states; n = n->next) {
		if (nfs4_lockstate_has_locks(nfs4_container_of(
			    n, struct nfs4_lockstate, owner_link))) {
			status = NFS4ERR_LOCKS_HELD;
			goto out;
		}
	}
	nfs4_owner_release(lo);
out:
	nfs4_client_unlock_put(cl);
	return status;
}

const struct nfs4_op nfs4_op_desc_release_lockowner = {
	.name = "RELEASE_LOCKOWNER",
	.minor_min = 0,
	.minor_max = 0,
	.args_size = sizeof(struct RELEASE_LOCKOWNER4args),
	.res_size = 0,
	.decode = dec_RELEASE_LOCKOWNER4args,
	.handle = nfs4_op_release_lockowner,
};
