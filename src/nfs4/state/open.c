// SPDX-License-Identifier: MIT
/*
 * Open/lock owners, open stateids with their share reservations (RFC 8881
 * §9.7, RFC 7530 §9.9) and lock stateids. The reservations and the byte
 * ranges themselves are kept in the shared file state (src/state/), whose
 * entry each open and lock stateid holds a reference on, so that other
 * protocols see them. Under the client's mutex (state_int.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nfs4/state/state_int.h"

/* NFSv4's share bits are the shared state's (file_state.h): no mapping. */
_Static_assert(OPEN4_SHARE_ACCESS_READ == STATE_ACCESS_READ &&
		       OPEN4_SHARE_ACCESS_WRITE == STATE_ACCESS_WRITE,
	       "NFSv4 share access bits");
_Static_assert(OPEN4_SHARE_DENY_READ == STATE_DENY_READ &&
		       OPEN4_SHARE_DENY_WRITE == STATE_DENY_WRITE,
	       "NFSv4 share deny bits");

/* The bucket of owner @name in its client's hash. */
static uint32_t owner_bucket(bool is_lock, const uint8_t *name, uint32_t len)
{
	return (nfs4_hash_bytes(name, len) + is_lock) % NFS4_OWNER_BUCKETS;
}

/** nfs4_owner_find() - @cl's open (or lock) owner @name, or NULL. */
struct nfs4_owner *nfs4_owner_find(struct nfs4_client *cl, bool is_lock,
				   const uint8_t *name, uint32_t len)
{
	struct nfs4_owner *o;

	for (o = cl->owner_hash[owner_bucket(is_lock, name, len)]; o;
	     o = o->hnext)
		if (o->is_lock == is_lock && o->name_len == len &&
		    memcmp(o->name, name, len) == 0)
			return o;
	return NULL;
}

/**
 * nfs4_owner_new() - a new owner of @cl (4.1 owners are born confirmed),
 * holding a reference on @cl. NULL at the per-client limit or without
 * memory.
 */
struct nfs4_owner *nfs4_owner_new(struct nfs4_client *cl, bool is_lock,
				  const uint8_t *name, uint32_t len)
{
	struct nfs4_owner *o;
	uint32_t b;

	if (cl->nowners >= NFS4_MAX_OWNERS_PER_CLIENT)
		return NULL;
	o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	o->name = malloc(len ? len : 1);
	if (!o->name) {
		free(o);
		return NULL;
	}
	memcpy(o->name, name, len);
	o->name_len = len;
	nfs4_client_get(cl);
	o->client = cl;
	o->is_lock = is_lock;
	o->confirmed = cl->minor >= 1;
	o->last_used = nfs4_now_ms();
	nfs4_list_init(&o->states);
	b = owner_bucket(is_lock, name, len);
	o->hnext = cl->owner_hash[b];
	cl->owner_hash[b] = o;
	nfs4_list_add_tail(&cl->owners, &o->client_link);
	cl->nowners++;
	return o;
}

/** nfs4_owner_get() - pin @o across an unlock. */
void nfs4_owner_get(struct nfs4_owner *o)
{
	o->refs++;
}

/* Under the client's mutex: the caller holds its own reference on the
 * client, so this put is never the client's last. */
static void owner_free(struct nfs4_owner *o)
{
	nfs4_client_put(o->client);
	free(o->replay);
	free(o->name);
	free(o);
}

/** nfs4_owner_put() - unpin; frees a released owner. */
void nfs4_owner_put(struct nfs4_owner *o)
{
	if (--o->refs == 0 && o->dead)
		owner_free(o);
}

/** nfs4_owner_drop_closed() - forget the stateid kept for CLOSE replay. */
void nfs4_owner_drop_closed(struct nfs4_owner *o)
{
	if (!o->closed)
		return;
	nfs4_stid_unhash(o->closed);
	free(nfs4_container_of(o->closed, struct nfs4_open, sid));
	o->closed = NULL;
}

/**
 * nfs4_owner_release() - free all of @o's state (opens with their lock
 * states, or lock states with their ranges) and @o itself (deferred while
 * pinned).
 */
void nfs4_owner_release(struct nfs4_owner *o)
{
	struct nfs4_owner **pp;

	if (o->dead)
		return;
	while (!nfs4_list_empty(&o->states)) {
		if (o->is_lock)
			nfs4_lockstate_free(nfs4_container_of(
				o->states.next, struct nfs4_lockstate,
				owner_link));
		else
			nfs4_open_free(nfs4_container_of(
				o->states.next, struct nfs4_open, owner_link));
	}
	nfs4_owner_drop_closed(o);
	pp = &o->client->owner_hash[owner_bucket(o->is_lock, o->name,
						 o->name_len)];
	for (; *pp; pp = &(*pp)->hnext) {
		if (*pp == o) {
			*pp = o->hnext;
			break;
		}
	}
	nfs4_list_del(&o->client_link);
	o->client->nowners--;
	o->dead = true;
	if (o->refs == 0)
		owner_free(o);
}

/** nfs4_open_find() - @o's open of @f, or NULL. */
struct nfs4_open *nfs4_open_find(struct nfs4_owner *o,
				 const struct state_file *f)
{
	struct nfs4_list *n;

	for (n = o->states.next; n != &o->states; n = n->next) {
		struct nfs4_open *op =
			nfs4_container_of(n, struct nfs4_open, owner_link);

		if (op->sid.file == f)
			return op;
	}
	return NULL;
}

/** nfs4_open_holder() - @op as a holder of shares. */
struct state_holder nfs4_open_holder(const struct nfs4_open *op)
{
	struct state_holder h = {op, STATE_HOLDER_NFS4};

	return h;
}

/** nfs4_lockstate_holder() - @ls as a holder of byte ranges. */
struct state_holder nfs4_lockstate_holder(const struct nfs4_lockstate *ls)
{
	struct state_holder h = {ls, STATE_HOLDER_NFS4};

	return h;
}

/* Remember the union and the modes seen (OPEN_DOWNGRADE's rules). */
static void open_add_mode(struct nfs4_open *op, uint32_t access, uint32_t deny)
{
	op->access |= access;
	op->deny |= deny;
	op->access_bmap |= (uint8_t)(1u << access);
	op->deny_bmap |= (uint8_t)(1u << deny);
}

/** nfs4_open_new() - see state_int.h. */
int nfs4_open_new(struct nfs4_owner *o, struct state_file *f, uint32_t access,
		  uint32_t deny, struct nfs4_open **out)
{
	struct state_holder h;
	struct nfs4_open *op;
	int ret;

	op = calloc(1, sizeof(*op));
	if (!op)
		return -ENOMEM;
	h = nfs4_open_holder(op);
	/* its client is set before the share is seen: another request's
	 * conflict may ask whether it is lapsed (state_set_lapsed) */
	nfs4_stid_init(&op->sid, NFS4_STID_OPEN, o->client, f);
	/* the share first: a conflict answers before the stateid limit */
	ret = state_share_acquire(f, &h, access, deny);
	if (ret < 0) {
		free(op);
		return ret;
	}
	if (atomic_load(&nfs4_st.nstateids) >= NFS4_MAX_STATEIDS) {
		state_share_release(f, &h);
		free(op);
		return -ENOSPC;
	}
	state_file_hold(f);
	op->owner = o;
	nfs4_list_init(&op->lockstates);
	nfs4_list_add_tail(&o->states, &op->owner_link);
	nfs4_stid_hash(&op->sid);
	o->client->nstates++;
	open_add_mode(op, access, deny);
	*out = op;
	return 0;
}

/** nfs4_open_upgrade() - see state_int.h. */
int nfs4_open_upgrade(struct nfs4_open *op, uint32_t access, uint32_t deny)
{
	struct state_holder h = nfs4_open_holder(op);
	int ret;

	/* the owner's earlier opens of the file count as others: what it
	 * denied it may not now ask for, nor deny what it holds (RFC 7530
	 * §9.9, §16.16.5) */
	if ((access & op->deny) || (deny & op->access))
		return -EBUSY;
	ret = state_share_change(op->sid.file, &h, op->access | access,
				 op->deny | deny);
	if (ret == 0)
		open_add_mode(op, access, deny);
	return ret;
}

/** nfs4_open_downgrade() - see state_int.h. */
void nfs4_open_downgrade(struct nfs4_open *op, uint32_t access, uint32_t deny)
{
	struct state_holder h = nfs4_open_holder(op);

	/* less than before: it cannot conflict */
	(void)state_share_change(op->sid.file, &h, access, deny);
	op->access = access;
	op->deny = deny;
}

static void open_unlink(struct nfs4_open *op)
{
	/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): see state_int.h lists */
	struct state_file *f = op->sid.file;
	struct state_holder h = nfs4_open_holder(op);

	while (!nfs4_list_empty(&op->lockstates))
		nfs4_lockstate_free(nfs4_container_of(op->lockstates.next,
						      struct nfs4_lockstate,
						      open_link));
	state_share_release(f, &h);
	nfs4_list_del(&op->owner_link);
	op->sid.client->nstates--;
	op->sid.file = NULL;
	state_file_put(f);
}

/** nfs4_open_free() - release @op's share, lock states and stateid. */
void nfs4_open_free(struct nfs4_open *op)
{
	/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): see state_int.h lists */
	if (op->sid.file)
		open_unlink(op);
	nfs4_stid_unhash(&op->sid);
	free(op);
}

/**
 * nfs4_open_close() - CLOSE: release @op. In 4.0 its stateid stays as
 * the owner's "closed" stateid so that a retransmitted CLOSE is answered
 * from the replay cache (RFC 7530 §9.10.1); the next seqid op of the
 * owner drops it.
 */
void nfs4_open_close(struct nfs4_open *op, uint32_t minor)
{
	struct nfs4_owner *o = op->owner;

	if (minor >= 1) {
		nfs4_open_free(op);
		return;
	}
	open_unlink(op);
	nfs4_owner_drop_closed(o);
	op->sid.type = NFS4_STID_CLOSED;
	nfs4_stid_bump(&op->sid);
	o->closed = &op->sid;
}

/** nfs4_lockstate_free() - release @ls's ranges and stateid. */
void nfs4_lockstate_free(struct nfs4_lockstate *ls)
{
	/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): see state_int.h lists */
	struct state_file *f = ls->sid.file;
	struct state_holder h = nfs4_lockstate_holder(ls);

	state_unlock_all(f, &h);
	nfs4_list_del(&ls->owner_link);
	nfs4_list_del(&ls->open_link);
	nfs4_stid_unhash(&ls->sid);
	ls->sid.client->nstates--;
	free(ls);
	state_file_put(f);
}

/** nfs4_lockstate_has_locks() - see state_int.h. */
bool nfs4_lockstate_has_locks(const struct nfs4_lockstate *ls)
{
	struct state_holder h = nfs4_lockstate_holder(ls);

	return state_lock_count(ls->sid.file, &h) > 0;
}
