// SPDX-License-Identifier: MIT
/*
 * Files, open/lock owners, open stateids with their share reservations
 * (RFC 8881 §9.7, RFC 7530 §9.9) and lock stateids. Under nfs4_st.mu.
 */
#include <stdlib.h>
#include <string.h>

#include "nfs4/state/state_int.h"

static uint32_t file_bucket(const struct vfs_obj *obj)
{
	uintptr_t key = (uintptr_t)obj; /* the object's identity */

	return nfs4_hash_bytes(&key, sizeof(key)) % NFS4_HASH_SIZE;
}

/**
 * nfs4_file_find() - the state of the file @obj (the vfs object cache
 * gives one object per file while it is referenced, so the pointer is the
 * key). @create: make it, taking a reference on @obj. NULL if absent or
 * out of memory.
 */
struct nfs4_file *nfs4_file_find(struct vfs_obj *obj, bool create)
{
	uint32_t b = file_bucket(obj);
	struct nfs4_file *f;

	for (f = nfs4_st.file_hash[b]; f; f = f->hnext)
		if (f->obj == obj)
			return f;
	if (!create)
		return NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	vfs_obj_get(obj);
	f->obj = obj;
	nfs4_list_init(&f->opens);
	nfs4_list_init(&f->locks);
	f->hnext = nfs4_st.file_hash[b];
	nfs4_st.file_hash[b] = f;
	return f;
}

/** nfs4_file_maybe_free() - free @f once no open or lock state uses it. */
void nfs4_file_maybe_free(struct nfs4_file *f)
{
	struct nfs4_file **pp;

	if (f->nstates > 0 || !nfs4_list_empty(&f->opens) ||
	    !nfs4_list_empty(&f->locks))
		return;
	for (pp = &nfs4_st.file_hash[file_bucket(f->obj)]; *pp;
	     pp = &(*pp)->hnext) {
		if (*pp == f) {
			*pp = f->hnext;
			break;
		}
	}
	vfs_obj_put(f->obj);
	free(f);
}

static uint32_t owner_bucket(const struct nfs4_client *cl, bool is_lock,
			     const uint8_t *name, uint32_t len)
{
	uint32_t h = nfs4_hash_bytes(name, len);
	uintptr_t key = (uintptr_t)cl; /* the client's identity */

	h ^= nfs4_hash_bytes(&key, sizeof(key)) + is_lock;
	return h % NFS4_HASH_SIZE;
}

/** nfs4_owner_find() - @cl's open (or lock) owner @name, or NULL. */
struct nfs4_owner *nfs4_owner_find(struct nfs4_client *cl, bool is_lock,
				   const uint8_t *name, uint32_t len)
{
	struct nfs4_owner *o;

	for (o = nfs4_st.owner_hash[owner_bucket(cl, is_lock, name, len)]; o;
	     o = o->hnext)
		if (o->client == cl && o->is_lock == is_lock &&
		    o->name_len == len && memcmp(o->name, name, len) == 0)
			return o;
	return NULL;
}

/**
 * nfs4_owner_new() - a new owner of @cl (4.1 owners are born confirmed).
 * NULL at the per-client limit or without memory.
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
	o->client = cl;
	o->is_lock = is_lock;
	o->confirmed = cl->minor >= 1;
	o->last_used = nfs4_now_ms();
	nfs4_list_init(&o->states);
	b = owner_bucket(cl, is_lock, name, len);
	o->hnext = nfs4_st.owner_hash[b];
	nfs4_st.owner_hash[b] = o;
	nfs4_list_add_tail(&cl->owners, &o->client_link);
	cl->nowners++;
	return o;
}

/** nfs4_owner_get() - pin @o across an unlock. */
void nfs4_owner_get(struct nfs4_owner *o)
{
	o->refs++;
}

static void owner_free(struct nfs4_owner *o)
{
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
	pp = &nfs4_st.owner_hash[owner_bucket(o->client, o->is_lock, o->name,
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
struct nfs4_open *nfs4_open_find(struct nfs4_owner *o, struct nfs4_file *f)
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

/**
 * nfs4_share_conflict() - see state_int.h: another open denies what we
 * want, or wants what we deny.
 */
bool nfs4_share_conflict(const struct nfs4_file *f,
			 const struct nfs4_open *self, uint32_t access,
			 uint32_t deny)
{
	const struct nfs4_list *n;

	for (n = f->opens.next; n != &f->opens; n = n->next) {
		const struct nfs4_open *op =
			nfs4_container_of(n, struct nfs4_open, file_link);

		if (op == self)
			continue;
		if ((op->deny & access) || (op->access & deny))
			return true;
	}
	return false;
}

/**
 * nfs4_open_new() - an open stateid of @o on @f without share modes yet
 * (the caller adds them). NULL at the stateid limit or without memory.
 */
struct nfs4_open *nfs4_open_new(struct nfs4_owner *o, struct nfs4_file *f)
{
	struct nfs4_open *op;

	if (nfs4_st.nstateids >= NFS4_MAX_STATEIDS)
		return NULL;
	op = calloc(1, sizeof(*op));
	if (!op)
		return NULL;
	nfs4_stid_init(&op->sid, NFS4_STID_OPEN, o->client, f);
	op->owner = o;
	nfs4_list_init(&op->lockstates);
	nfs4_list_add_tail(&o->states, &op->owner_link);
	nfs4_list_add_tail(&f->opens, &op->file_link);
	nfs4_stid_hash(&op->sid);
	f->nstates++;
	o->client->nstates++;
	return op;
}

/** nfs4_open_add_mode() - OPEN upgrade: add @access/@deny to @op. */
void nfs4_open_add_mode(struct nfs4_open *op, uint32_t access, uint32_t deny)
{
	op->access |= access;
	op->deny |= deny;
	op->access_bmap |= (uint8_t)(1u << access);
	op->deny_bmap |= (uint8_t)(1u << deny);
}

static void open_unlink(struct nfs4_open *op)
{
	/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): see state_int.h lists */
	struct nfs4_file *f = op->sid.file;

	while (!nfs4_list_empty(&op->lockstates))
		nfs4_lockstate_free(nfs4_container_of(op->lockstates.next,
						      struct nfs4_lockstate,
						      open_link));
	nfs4_list_del(&op->owner_link);
	nfs4_list_del(&op->file_link);
	f->nstates--;
	op->sid.client->nstates--;
	op->sid.file = NULL;
	nfs4_file_maybe_free(f);
}

/** nfs4_open_free() - release @op's share, lock states and stateid. */
void nfs4_open_free(struct nfs4_open *op)
{
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
	struct nfs4_file *f = ls->sid.file;
	int n = nfs4_lock_clear_all(&f->locks, ls);

	nfs4_st.nranges -= (uint32_t)n;
	nfs4_list_del(&ls->owner_link);
	nfs4_list_del(&ls->open_link);
	nfs4_stid_unhash(&ls->sid);
	f->nstates--;
	ls->sid.client->nstates--;
	free(ls);
	nfs4_file_maybe_free(f);
}
