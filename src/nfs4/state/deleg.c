// SPDX-License-Identifier: MIT
/*
 * NFSv4.1 delegations (RFC 8881 §10.2, §10.4): read and write
 * delegations offered at OPEN, recalled over the back channel
 * (CB_RECALL, backchannel.c) when another client or protocol conflicts,
 * returned with DELEGRETURN, revoked when not returned within a lease.
 *
 * A delegation is a grant of the shared file state's engine (kind
 * DELEG, key: the client), so that the engine's one conflict table
 * decides which access recalls it, whoever makes it: another NFSv4
 * client's OPEN, READ, WRITE, SETATTR, REMOVE, RENAME, LINK; NFSv3's;
 * SMB's CREATE, WRITE, LOCK (a GETATTR asks, see below).
 * The accessor gets -EAGAIN meanwhile (NFS4ERR_DELAY, NFS3ERR_JUKEBOX;
 * an SMB request waits). The engine calls deleg_send_break(), which
 * marks the delegation as owed a recall and sends it on a session of
 * the client whose back channel is up and free (one call at a time per
 * session: slot 0 of the back channel); answers send the next.
 *
 * Policy (RFC 8881 §10.4 leaves it to the server): no delegation while
 * the back channel is not up or (but reclaims) in a grace period, none
 * with an OPEN that created the file unless asked for (ops_open.c); none
 * on a file recalled in the last
 * NFS4_DELEG_RECALL_QUIET_MS (the conflict is likely to come back); no
 * write delegation over a back channel slower than
 * NFS4_DELEG_SLOW_CB_MS; none under memory pressure, past
 * NFS4_MAX_DELEGS in all or NFS4_MAX_DELEGS_PER_CLIENT for a client, or
 * on an export with deleg=no. A write delegation goes with an OPEN for
 * writing, a read delegation with one for reading only.
 *
 * Revocation: a recall unanswered within the lease time (the engine's
 * timer) revokes the delegation: its stateid then answers
 * NFS4ERR_DELEG_REVOKED, SEQUENCE reports
 * SEQ4_STATUS_RECALLABLE_STATE_REVOKED until the client frees it with
 * FREE_STATEID (RFC 8881 §8.2.3, §18.46.3).
 *
 * NFSv4.0 clients get read and write delegations over their callback
 * path (callback.c: CB_RECALL and CB_GETATTR on a connection of the
 * server's own, to a loopback address only, as the probe); a revoked one
 * is forgotten at once (4.0 has no FREE_STATEID). Their own accesses are
 * told from others' by the stateids and owners in the COMPOUND, else by
 * the connection (nfs4_conn40_client()).
 *
 * A GETATTR by another client (or NFSv3) of a file with a write
 * delegation asks its holder with CB_GETATTR (RFC 8881 §10.4.3) through
 * the engine's state_grant_getattr(): when the holder's change attribute
 * is not the one it was granted with, it changed the file, and the
 * GETATTR answers its size with the file's mtime set to now; a holder
 * that cannot be asked or does not answer within
 * STATE_GRANT_ATTR_WAIT_MS is recalled instead.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/iobuf.h"
#include "core/log.h"
#include "core/stats.h"
#include "nfs4/state/state_int.h"

/* recall answered with an error: sent again this often, this many times */
#define RETRY_MS 1000
#define RETRIES_MAX 3
/* the table of files recalled recently (hashes of their handles) */
#define QUIET_SLOTS 1024

static atomic_uint g_delegs;
static atomic_ullong g_granted, g_recalls, g_returns, g_revoked;
static _Atomic uint32_t quiet_hash[QUIET_SLOTS];
static _Atomic uint64_t quiet_ms[QUIET_SLOTS];
/* set once by nfs4_deleg_stats_init(), before requests */
static int return_slot = -1;

static void deleg_send_break(struct state_grant *g, uint32_t from,
			     uint32_t to, bool ack_needed);
static void deleg_revoked(struct state_grant *g);
static void deleg_release(void *arg);
static bool deleg_send_getattr(struct state_grant *g);

static const struct state_grant_ops deleg_ops = {
	.send_break = deleg_send_break,
	.revoked = deleg_revoked,
	.release = deleg_release,
	.send_getattr = deleg_send_getattr,
};

/* Drop @n references of @d; the last frees it. */
static void deleg_put_n(struct nfs4_deleg *d, int n)
{
	struct nfs4_client *cl = d->sid.client;

	if (atomic_fetch_sub(&d->refs, n) != n)
		return;
	free(d);
	nfs4_client_put(cl);
}

static void deleg_put(struct nfs4_deleg *d)
{
	deleg_put_n(d, 1);
}

static uint32_t fh_hash(const struct nfs_fh4 *fh)
{
	return nfs4_hash_bytes(fh->data, fh->len) | 1u; /* 0: empty slot */
}

static void quiet_mark(const struct nfs_fh4 *fh)
{
	uint32_t h = fh_hash(fh);

	atomic_store(&quiet_ms[h % QUIET_SLOTS], nfs4_now_ms());
	atomic_store(&quiet_hash[h % QUIET_SLOTS], h);
}

static bool quiet_recent(const struct nfs_fh4 *fh)
{
	uint32_t h = fh_hash(fh);
	uint64_t now = nfs4_now_ms();
	uint64_t t = atomic_load(&quiet_ms[h % QUIET_SLOTS]);

	return atomic_load(&quiet_hash[h % QUIET_SLOTS]) == h && now >= t &&
	       now - t < NFS4_DELEG_RECALL_QUIET_MS;
}

/** nfs4_deleg_find() - see state_int.h. */
struct nfs4_deleg *nfs4_deleg_find(struct nfs4_client *cl,
				   const struct state_file *f)
{
	struct nfs4_list *n;

	for (n = cl->delegs.next; n != &cl->delegs; n = n->next) {
		struct nfs4_deleg *d =
			nfs4_container_of(n, struct nfs4_deleg, client_link);

		if (d->sid.file == f && d->sid.type == NFS4_STID_DELEG)
			return d;
	}
	return NULL;
}

/* The slowest answer of @cl's working back channels; UINT32_MAX when
 * none is up. Under @cl's mutex. */
static uint32_t cb_rtt(struct nfs4_client *cl)
{
	uint32_t best = UINT32_MAX;
	struct nfs4_list *n;

	for (n = cl->sessions.next; n != &cl->sessions; n = n->next) {
		struct nfs4_session *s =
			nfs4_container_of(n, struct nfs4_session, client_link);

		pthread_mutex_lock(&s->mu);
		if (nfs4_bc_session_ok(s) && s->cb_state == NFS4_CB_UP &&
		    s->cb_rtt_ms < best)
			best = s->cb_rtt_ms;
		pthread_mutex_unlock(&s->mu);
	}
	return best;
}

/*
 * What @cl may get for an open of @access with the delegation wants
 * @want: OPEN_DELEGATE_READ or _WRITE, or NONE with *@why. Under @cl's
 * mutex.
 */
static uint32_t offer_type(struct nfs4_compound *c, struct nfs4_client *cl,
			   struct state_file *f, uint32_t access,
			   uint32_t want, uint32_t reclaim, uint32_t *why)
{
	struct nfs4_deleg *have;
	uint32_t type, rtt;

	if (want == OPEN4_SHARE_ACCESS_WANT_NO_DELEG) {
		*why = WND4_NOT_WANTED;
		return OPEN_DELEGATE_NONE;
	}
	if (want == OPEN4_SHARE_ACCESS_WANT_CANCEL) {
		*why = WND4_CANCELLED;
		return OPEN_DELEGATE_NONE;
	}
	*why = WND4_CONTENTION;
	if (reclaim)
		type = reclaim;
	else if (access & OPEN4_SHARE_ACCESS_WRITE)
		type = want == OPEN4_SHARE_ACCESS_WANT_READ_DELEG
			       ? OPEN_DELEGATE_NONE
			       : OPEN_DELEGATE_WRITE;
	else
		type = want == OPEN4_SHARE_ACCESS_WANT_WRITE_DELEG
			       ? OPEN_DELEGATE_NONE
			       : OPEN_DELEGATE_READ;
	if (type == OPEN_DELEGATE_NONE)
		return type;
	/* one per client and file: no upgrade, no second one */
	have = nfs4_deleg_find(cl, f);
	if (have) {
		if (have->type == OPEN_DELEGATE_READ &&
		    type == OPEN_DELEGATE_WRITE)
			*why = WND4_NOT_SUPP_UPGRADE;
		return OPEN_DELEGATE_NONE;
	}
	*why = WND4_RESOURCE;
	/* in a grace period only reclaims: a new one could conflict with
	 * what another client is about to reclaim (RFC 8881 §10.2.1) */
	if (!reclaim && nfs4_grace_check_new() != NFS4_OK)
		return OPEN_DELEGATE_NONE;
	if (!c->cur.export || c->cur.export->wide.no_deleg ||
	    cl->ndelegs >= NFS4_MAX_DELEGS_PER_CLIENT ||
	    atomic_load(&g_delegs) >= NFS4_MAX_DELEGS ||
	    atomic_load(&nfs4_st.nstateids) >= NFS4_MAX_STATEIDS ||
	    iobuf_pressure())
		return OPEN_DELEGATE_NONE;
	if (cl->minor == 0) {
		/* 4.0: over a callback path probed up. Nothing tells a 4.0
		 * client's bare GETATTR from another's: its own asks it with
		 * CB_GETATTR, which it answers (no recall). */
		if (cl->cb_state != NFS4_CB_UP && !reclaim)
			return OPEN_DELEGATE_NONE;
		*why = WND4_CONTENTION;
		return type;
	}
	/* a reclaim may come before the back channel is up again */
	rtt = cb_rtt(cl);
	if (rtt == UINT32_MAX && !reclaim)
		return OPEN_DELEGATE_NONE;
	if (type == OPEN_DELEGATE_WRITE && !reclaim &&
	    rtt > NFS4_DELEG_SLOW_CB_MS)
		return OPEN_DELEGATE_NONE;
	*why = WND4_CONTENTION;
	return type;
}

/** nfs4_deleg_offer() - see state_int.h. */
void nfs4_deleg_offer(struct nfs4_compound *c, struct nfs4_client *cl,
		      struct state_file *f, const struct state_holder *h,
		      uint32_t access, uint32_t want, uint32_t reclaim,
		      uint64_t change, const struct nfs_fh4 *fh,
		      struct nfs4_deleg_offer *out)
{
	struct state_holder dh;
	struct nfs4_deleg *d = NULL;
	uint32_t type, level = 0, may = 0, why = WND4_CONTENTION;

	memset(out, 0, sizeof(*out));
	want &= OPEN4_SHARE_ACCESS_WANT_DELEG_MASK;
	type = offer_type(c, cl, f, access, want, reclaim, &why);
	if (type != OPEN_DELEGATE_NONE) {
		level = type == OPEN_DELEGATE_WRITE
				? STATE_GRANT_R | STATE_GRANT_W
				: STATE_GRANT_R;
		may = state_grant_may(f, h, STATE_GRANT_DELEG, cl, level);
		if (!reclaim && ((may & level) != level || quiet_recent(fh)))
			type = OPEN_DELEGATE_NONE;
	}
	if (type != OPEN_DELEGATE_NONE) {
		d = calloc(1, sizeof(*d));
		if (!d)
			why = WND4_RESOURCE;
	}
	if (d) {
		d->change_base = change; /* CB_GETATTR's answers' base */
		state_file_hold(f);
		nfs4_stid_init(&d->sid, NFS4_STID_DELEG, cl, f);
		d->type = type;
		d->fh = *fh;
		atomic_init(&d->refs, 2); /* the client's list, the grant */
		dh.id = d;
		dh.tag = STATE_HOLDER_NFS4;
		d->grant = state_grant_add(f, &dh, STATE_GRANT_DELEG, cl, level,
					   &deleg_ops, d,
					   nfs4_st.lease_time * 1000u);
		if (!d->grant) {
			state_file_put(f);
			free(d);
			d = NULL;
		}
	}
	if (!d) {
		/* 4.1: the reason, when the client said what it wanted */
		if (want != OPEN4_SHARE_ACCESS_WANT_NO_PREFERENCE) {
			out->type = OPEN_DELEGATE_NONE_EXT;
			out->why = why;
		}
		return;
	}
	nfs4_client_get(cl);
	nfs4_list_add_tail(&cl->delegs, &d->client_link);
	cl->ndelegs++;
	nfs4_stid_hash(&d->sid);
	atomic_fetch_add(&g_delegs, 1);
	atomic_fetch_add(&g_granted, 1);
	out->type = type;
	nfs4_stid_to_wire(&d->sid, &out->stateid);
	/* a reclaim the state of the file no longer allows: to be given
	 * back at once (RFC 8881 §10.2.1) */
	out->recall = reclaim && (may & level) != level;
}

/* Take @d out of its client's list and hash (under the client's mutex);
 * its grant, if any, is the caller's to remove. */
static struct state_grant *deleg_unlink(struct nfs4_deleg *d)
{
	/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): see state_int.h lists */
	struct nfs4_client *cl = d->sid.client;
	struct state_grant *g = d->grant;

	if (d->sid.type == NFS4_STID_DELEG_REVOKED)
		cl->nrevoked--;
	else
		atomic_fetch_sub(&g_delegs, 1);
	nfs4_list_del(&d->client_link);
	cl->ndelegs--;
	nfs4_stid_unhash(&d->sid);
	d->grant = NULL;
	d->recall_due = false;
	return g;
}

/* The rest of a freeing, once unlinked: the grant, the file, the
 * references of the list and an armed retry. */
static void deleg_finish(struct nfs4_deleg *d, struct state_grant *g)
{
	struct state_file *f = d->sid.file;
	bool retry = d->retry_armed && timer_cancel(&d->retry);

	/* @d's own fields first: the puts below may free it */
	if (retry)
		d->retry_armed = false;
	d->sid.file = NULL;
	if (g)
		state_grant_remove(g);
	state_file_put(f);
	deleg_put_n(d, retry ? 2 : 1);
}

/** nfs4_deleg_free() - see state_int.h. */
void nfs4_deleg_free(struct nfs4_deleg *d)
{
	bool live = d->sid.type == NFS4_STID_DELEG;
	uint64_t since = d->recall_ms;

	if (live)
		atomic_fetch_add(&g_returns, 1);
	if (live && d->recalled && return_slot >= 0) {
		uint64_t now = nfs4_now_ms();

		stats_record_latency(return_slot,
				     (now > since ? now - since : 0) * 1000000u,
				     false, false);
	}
	deleg_finish(d, deleg_unlink(d));
}

/** nfs4_deleg_free_all() - see state_int.h. */
void nfs4_deleg_free_all(struct nfs4_client *cl)
{
	while (!nfs4_list_empty(&cl->delegs)) {
		struct nfs4_deleg *d = nfs4_container_of(
			cl->delegs.next, struct nfs4_deleg, client_link);

		deleg_finish(d, deleg_unlink(d));
	}
}

/* The first delegation of @cl owed a CB_GETATTR, else the first owed a
 * recall, or NULL. */
static struct nfs4_deleg *first_due(struct nfs4_client *cl)
{
	struct nfs4_deleg *recall = NULL;
	struct nfs4_list *m;

	for (m = cl->delegs.next; m != &cl->delegs; m = m->next) {
		struct nfs4_deleg *d =
			nfs4_container_of(m, struct nfs4_deleg, client_link);

		if (d->getattr_due)
			return d;
		if (d->recall_due && !recall)
			recall = d;
	}
	return recall;
}

/* @due's call went out (@op, on a 4.0 path when @v40). */
static void call_sent(struct nfs4_client *cl, struct nfs4_deleg *due,
		      uint32_t op)
{
	if (op == OP_CB_GETATTR) {
		due->getattr_due = false;
		due->getattr_sent = true;
	} else {
		due->recall_due = false;
		due->recalled = true;
	}
	if (cl->minor == 0)
		cl->cb40_busy = true;
}

/* 4.0: one call at a time, over the callback path probed up. */
static void kick40(struct nfs4_client *cl)
{
	struct nfs4_deleg *due;
	struct stateid4 sid;
	uint32_t op;

	if (cl->cb_state != NFS4_CB_UP || cl->cb40_busy)
		return;
	due = first_due(cl);
	if (!due)
		return;
	op = due->getattr_due ? OP_CB_GETATTR : OP_CB_RECALL;
	nfs4_stid_to_wire(&due->sid, &sid);
	if (nfs4_cb_call40(cl->clientid, &cl->cb_probed, op, &sid, &due->fh))
		call_sent(cl, due, op);
}

/** nfs4_deleg_kick() - see state_int.h. */
void nfs4_deleg_kick(struct nfs4_client *cl)
{
	struct nfs4_list *n;

	if (cl->minor == 0) {
		kick40(cl);
		return;
	}
	for (n = cl->sessions.next; n != &cl->sessions; n = n->next) {
		struct nfs4_session *s =
			nfs4_container_of(n, struct nfs4_session, client_link);
		struct nfs4_deleg *due = first_due(cl);
		struct stateid4 sid;
		uint32_t op;

		if (!due)
			return;
		op = due->getattr_due ? OP_CB_GETATTR : OP_CB_RECALL;
		pthread_mutex_lock(&s->mu);
		if (nfs4_bc_session_ok(s) && s->cb_state == NFS4_CB_UP &&
		    nfs4_bc_call_free(s)) {
			nfs4_stid_to_wire(&due->sid, &sid);
			if (nfs4_bc_call(s, op, &sid, &due->fh))
				call_sent(cl, due, op);
		}
		pthread_mutex_unlock(&s->mu);
	}
}

/* The engine wants @g's delegation back (any break recalls all of it). */
static void deleg_send_break(struct state_grant *g, uint32_t from,
			     uint32_t to, bool ack_needed)
{
	struct nfs4_deleg *d = state_grant_arg(g);
	struct nfs4_client *cl = d->sid.client;

	(void)from;
	(void)to;
	(void)ack_needed;
	/* a courtesy client cannot return it: it is expired instead */
	(void)nfs4_client_courtesy_needed(cl);
	nfs4_client_get(cl);
	nfs4_client_lock(cl);
	if (d->grant == g && !d->recall_due && !d->recalled) {
		d->recall_due = true;
		d->recall_ms = nfs4_now_ms();
		atomic_fetch_add(&g_recalls, 1);
		quiet_mark(&d->fh);
		log_debug("nfs4: client %016llx: recalling a %s delegation",
			  (unsigned long long)cl->clientid,
			  d->type == OPEN_DELEGATE_WRITE ? "write" : "read");
		nfs4_deleg_kick(cl);
	}
	nfs4_client_unlock_put(cl);
}

/* Can @cl be called now (its callback path or a back channel up)?
 * Under its mutex. */
static bool cb_usable(struct nfs4_client *cl)
{
	if (cl->minor == 0)
		return cl->cb_state == NFS4_CB_UP;
	return cb_rtt(cl) != UINT32_MAX;
}

/*
 * The engine asks what @g's write delegation's holder caches (another
 * client's GETATTR): CB_GETATTR, answered in nfs4_deleg_getattr_done().
 * False when it cannot be asked (no callback path, a recall under way):
 * the engine recalls it instead.
 */
static bool deleg_send_getattr(struct state_grant *g)
{
	struct nfs4_deleg *d = state_grant_arg(g);
	struct nfs4_client *cl = d->sid.client;
	bool ok;

	nfs4_client_get(cl);
	nfs4_client_lock(cl);
	ok = d->grant == g && d->sid.type == NFS4_STID_DELEG &&
	     d->type == OPEN_DELEGATE_WRITE && !d->recall_due &&
	     !d->recalled && cb_usable(cl);
	if (ok && !d->getattr_sent) {
		d->getattr_due = true;
		nfs4_deleg_kick(cl);
	}
	nfs4_client_unlock_put(cl);
	return ok;
}

/** nfs4_deleg_getattr_done() - see state_int.h. */
void nfs4_deleg_getattr_done(struct nfs4_client *cl,
			     const uint8_t other[NFS4_OTHER_SIZE],
			     uint32_t status, const struct nfs4_cb_attrs *a)
{
	struct state_grant_attrs ga = {0};
	struct nfs4_list *n;

	nfs4_client_lock(cl);
	if (cl->minor == 0)
		cl->cb40_busy = false;
	for (n = cl->delegs.next; n != &cl->delegs; n = n->next) {
		struct nfs4_deleg *d =
			nfs4_container_of(n, struct nfs4_deleg, client_link);
		bool ok = status == NFS4_OK && a->have_change && a->have_size;

		if (!d->getattr_sent ||
		    memcmp(d->sid.other, other, NFS4_OTHER_SIZE) != 0)
			continue;
		d->getattr_sent = false;
		log_debug("nfs4: client %016llx: CB_GETATTR answered %u",
			  (unsigned long long)cl->clientid, status);
		if (!d->grant)
			break;
		/* RFC 8881 §10.4.3: a change attribute other than the one
		 * it was granted with says the holder changed the file */
		ga.size = a->size;
		ga.modified = a->change != d->change_base;
		/* cl->mu before the file's: as when a delegation is given */
		state_grant_attrs_done(d->grant, ok, &ga);
		break;
	}
	nfs4_deleg_kick(cl);
	pthread_mutex_unlock(&cl->mu);
}

/* Not returned within the lease: revoked (the engine already took its
 * grant's level away). */
static void deleg_revoked(struct state_grant *g)
{
	struct nfs4_deleg *d = state_grant_arg(g);
	struct nfs4_client *cl = d->sid.client;
	bool revoked = false;

	nfs4_client_get(cl);
	nfs4_client_lock(cl);
	if (d->grant == g && d->sid.type == NFS4_STID_DELEG) {
		atomic_fetch_add(&g_revoked, 1);
		revoked = true;
		if (cl->minor == 0) {
			/* 4.0 has no FREE_STATEID: forgotten at once (its
			 * stateid is then BAD_STATEID, as knfsd's) */
			deleg_finish(d, deleg_unlink(d));
			g = NULL;
		} else {
			d->sid.type = NFS4_STID_DELEG_REVOKED;
			d->grant = NULL;
			d->recall_due = false;
			cl->nrevoked++;
			atomic_fetch_sub(&g_delegs, 1);
		}
	}
	pthread_mutex_unlock(&cl->mu);
	if (revoked) {
		log_info("nfs4: client %016llx: delegation revoked (not "
			 "returned within %u s of its recall)",
			 (unsigned long long)cl->clientid, nfs4_st.lease_time);
		if (g)
			state_grant_remove(g);
	}
	nfs4_client_put(cl);
}

/* The engine is done with @arg's grant. */
static void deleg_release(void *arg)
{
	deleg_put(arg);
}

/* A recall answered with an error is sent again after RETRY_MS. */
static void retry_fired(struct timer *t)
{
	struct nfs4_deleg *d = t->arg;
	struct nfs4_client *cl = d->sid.client;

	nfs4_client_get(cl);
	nfs4_client_lock(cl);
	d->retry_armed = false;
	if (d->grant && d->sid.type == NFS4_STID_DELEG) {
		d->recall_due = true;
		nfs4_deleg_kick(cl);
	}
	nfs4_client_unlock_put(cl);
	deleg_put(d);
}

/** nfs4_deleg_recall_done() - see state_int.h; @other NULL: a back
 * channel came up, every recall not yet returned is sent again. */
void nfs4_deleg_recall_done(struct nfs4_client *cl,
			    const uint8_t other[NFS4_OTHER_SIZE],
			    uint32_t status)
{
	struct nfs4_list *n;

	nfs4_client_lock(cl);
	if (other && cl->minor == 0)
		cl->cb40_busy = false;
	for (n = cl->delegs.next; n != &cl->delegs; n = n->next) {
		struct nfs4_deleg *d =
			nfs4_container_of(n, struct nfs4_deleg, client_link);

		if (!other && d->getattr_sent) {
			/* a call lost with the path: its asker gave up */
			d->getattr_sent = false;
			if (d->grant)
				state_grant_attrs_done(d->grant, false, NULL);
		}
		if (!d->grant || !d->recalled)
			continue;
		if (!other) {
			d->recall_due = true;
			continue;
		}
		if (memcmp(d->sid.other, other, NFS4_OTHER_SIZE) != 0)
			continue;
		log_debug("nfs4: client %016llx: CB_RECALL answered %u",
			  (unsigned long long)cl->clientid, status);
		/* the client may not know it yet (the OPEN's reply still on
		 * its way: BAD_STATEID) or its slot was out of step */
		if (status != NFS4_OK && d->retries < RETRIES_MAX &&
		    !d->retry_armed) {
			d->retries++;
			atomic_fetch_add(&d->refs, 1);
			d->retry_armed = true;
			if (timer_arm(&d->retry, RETRY_MS, retry_fired, d)) {
				d->retry_armed = false;
				atomic_fetch_sub(&d->refs, 1);
			}
		}
		break;
	}
	nfs4_deleg_kick(cl);
	pthread_mutex_unlock(&cl->mu);
}

static uint64_t v_delegs(void)
{
	return atomic_load(&g_delegs);
}

static uint64_t v_granted(void)
{
	return atomic_load(&g_granted);
}

static uint64_t v_recalls(void)
{
	return atomic_load(&g_recalls);
}

static uint64_t v_returns(void)
{
	return atomic_load(&g_returns);
}

static uint64_t v_revoked(void)
{
	return atomic_load(&g_revoked);
}

/** nfs4_deleg_stats_init() - see state_int.h. */
void nfs4_deleg_stats_init(void)
{
	(void)stats_value_add("nfs4_delegations", "NFSv4 delegations held.",
			      false, v_delegs);
	(void)stats_value_add("nfs4_delegations_total", "NFSv4 delegations "
			      "granted.", true, v_granted);
	(void)stats_value_add("nfs4_deleg_recalls_total", "NFSv4 delegations "
			      "recalled.", true, v_recalls);
	(void)stats_value_add("nfs4_deleg_returns_total", "NFSv4 delegations "
			      "returned (DELEGRETURN).", true, v_returns);
	(void)stats_value_add("nfs4_deleg_revoked_total", "NFSv4 delegations "
			      "revoked (not returned in a lease after their "
			      "recall).", true, v_revoked);
	/* latency from a recall to its DELEGRETURN */
	return_slot = stats_slot_add("nfs4_deleg", 1, 0, "RECALL_RETURN");
}
