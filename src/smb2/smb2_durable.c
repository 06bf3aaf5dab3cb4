// SPDX-License-Identifier: MIT
/*
 * Durable handles (smb2_durable.h).
 *
 * The durable table: every durable open, connected or not, chained by
 * its FileId.Persistent (which smb2_open_add makes unique over the
 * process) and, for DH2Q's, by CreateGuid. It holds a reference on each.
 * Its one mutex is taken with no other lock held, or inside an open's
 * mu... never: it is a leaf, apart from the timer's own lock (arming and
 * cancelling under it) and an open's mu for its path.
 *
 *   granted    CREATE with DHnQ or DH2Q got a batch oplock on a file
 *   kept       its connection went with the oplock held (§3.3.7.1): out
 *              of its session, its share, locks and oplock kept, the
 *              scavenger armed (its timeout, 60 s by default)
 *   taken back DHnC or DH2C from the same user on the same share and
 *              name (and CreateGuid) before the scavenger fires: the open
 *              joins the new session with a new volatile id
 *   closed     the scavenger fired, or a break reached it while kept
 *              (§3.3.4.6: nobody can answer; it closes at once so that
 *              the conflicting open goes ahead), or nasd stops
 *
 * Whoever cancels the armed scavenger (timer_cancel true, under the
 * table's mutex) owns the kept open's next step: a reconnect takes it, a
 * break re-arms the scavenger for now. The scavenger's close runs on the
 * timer thread; its one possibly slow step is delete-on-close's unlink.
 */
#include "smb2/smb2_durable.h"

#include <string.h>

#include "core/log.h"
#include "smb2/smb2_open.h"
#include "smb2/smb2_session.h"
#include "transport/transport.h"

#define DT_BUCKETS 1024u

static struct {
	pthread_mutex_t mu;
	struct smb2_open *by_id[DT_BUCKETS];
	struct smb2_open *by_guid[DT_BUCKETS];
	atomic_ullong idle;
} dt = { .mu = PTHREAD_MUTEX_INITIALIZER };

static uint32_t id_bucket(uint64_t id)
{
	return (uint32_t)(id * 0x9e3779b97f4a7c15ull >> 54) % DT_BUCKETS;
}

static uint32_t guid_bucket(const uint8_t *g)
{
	return id_bucket(get_le64(g) ^ get_le64(g + 8));
}

static struct smb2_open *find_id(uint64_t persistent)
{
	struct smb2_open *o;

	for (o = dt.by_id[id_bucket(persistent)]; o; o = o->dnext)
		if (o->persistent == persistent)
			return o;
	return NULL;
}

static void unlink_chain(struct smb2_open **pp, struct smb2_open *o,
			 bool by_guid)
{
	for (; *pp; pp = by_guid ? &(*pp)->gnext : &(*pp)->dnext) {
		if (*pp == o) {
			*pp = by_guid ? o->gnext : o->dnext;
			return;
		}
	}
}

uint64_t smb2_durable_idle(void)
{
	return atomic_load_explicit(&dt.idle, memory_order_relaxed);
}

uint32_t smb2_durable_sort(struct smb2_work *w, struct smb2_create_ctx *c,
			   struct smb2_open **replay)
{
	const uint8_t v1 = SMB2_DURABLE_DHNQ | SMB2_DURABLE_DHNC;
	const uint8_t v2 = SMB2_DURABLE_DH2Q | SMB2_DURABLE_DH2C;
	uint8_t client[16];
	uint16_t dialect;
	struct smb2_open *o;
	uint32_t st = STATUS_SUCCESS;

	*replay = NULL;
	if (!c->durable)
		return STATUS_SUCCESS;
	pthread_mutex_lock(&w->conn->mu);
	dialect = w->conn->dialect;
	memcpy(client, w->conn->client_guid, sizeof(client));
	pthread_mutex_unlock(&w->conn->mu);
	/* version 2 is SMB 3.x's (§3.3.5.9.10, .12): ignored below */
	if (dialect < SMB2_DIALECT_0300)
		c->durable &= (uint8_t)~v2;
	if ((c->durable & v1) && (c->durable & v2))
		return STATUS_INVALID_PARAMETER;
	if ((c->durable & v2) == v2)
		return STATUS_INVALID_PARAMETER;
	/* a reconnect ignores a request next to it (§3.3.5.9.6) */
	if (c->durable & SMB2_DURABLE_DHNC)
		c->durable &= (uint8_t)~SMB2_DURABLE_DHNQ;
	if (!(c->durable & SMB2_DURABLE_DH2Q))
		return STATUS_SUCCESS;
	/* §3.3.5.9.10: this client's open made with this CreateGuid */
	pthread_mutex_lock(&dt.mu);
	for (o = dt.by_guid[guid_bucket(c->create_guid)]; o; o = o->gnext)
		if (!memcmp(o->create_guid, c->create_guid, 16) &&
		    !memcmp(o->client_guid, client, 16))
			break;
	if (o) {
		/* A replayed CREATE gets its open again, in the session
		 * that has it; anything else is a second use of the
		 * CreateGuid. */
		if ((w->flags & SMB2_FLAGS_REPLAY_OPERATION) &&
		    !o->disconnected && o->tree->sess == w->sess &&
		    o->tree == w->tree && !atomic_load(&o->dead)) {
			smb2_open_get(o);
			*replay = o;
		} else {
			st = STATUS_DUPLICATE_OBJECTID;
		}
	}
	pthread_mutex_unlock(&dt.mu);
	return st;
}

void smb2_durable_grant(struct smb2_work *w, struct smb2_open *o,
			struct smb2_create_ctx *c, uint8_t oplock)
{
	uint8_t kind = c->durable & (SMB2_DURABLE_DHNQ | SMB2_DURABLE_DH2Q);
	uint32_t timeout = SMB2_DURABLE_TIMEOUT_MS;
	struct smb2_session *s = w->sess;

	/* §3.3.5.9.6, .10: with a batch oplock (no leases here), on a
	 * file */
	if (!kind || oplock != SMB2_OPLOCK_LEVEL_BATCH || o->is_dir)
		return;
	if (kind == SMB2_DURABLE_DH2Q && c->dtimeout_ms)
		timeout = c->dtimeout_ms < SMB2_DURABLE_TIMEOUT_MAX_MS
				  ? c->dtimeout_ms
				  : SMB2_DURABLE_TIMEOUT_MAX_MS;
	o->durable_timeout_ms = timeout;
	memcpy(o->create_guid, c->create_guid, 16);
	pthread_mutex_lock(&w->conn->mu);
	memcpy(o->client_guid, w->conn->client_guid, 16);
	pthread_mutex_unlock(&w->conn->mu);
	pthread_mutex_lock(&s->mu);
	o->owner_uid = s->uid;
	memcpy(o->owner, s->user, sizeof(o->owner));
	pthread_mutex_unlock(&s->mu);

	smb2_open_get(o); /* the table's */
	pthread_mutex_lock(&dt.mu);
	o->dnext = dt.by_id[id_bucket(o->persistent)];
	dt.by_id[id_bucket(o->persistent)] = o;
	if (kind == SMB2_DURABLE_DH2Q) {
		o->gnext = dt.by_guid[guid_bucket(o->create_guid)];
		dt.by_guid[guid_bucket(o->create_guid)] = o;
	}
	o->dlisted = true;
	atomic_store(&o->durable, kind);
	pthread_mutex_unlock(&dt.mu);
	c->durable_granted = kind;
	c->granted_timeout_ms = timeout;
}

bool smb2_durable_forget(struct smb2_open *o)
{
	bool listed;

	if (!atomic_load(&o->durable))
		return false;
	pthread_mutex_lock(&dt.mu);
	listed = o->dlisted;
	if (listed) {
		unlink_chain(&dt.by_id[id_bucket(o->persistent)], o, false);
		if (atomic_load(&o->durable) == SMB2_DURABLE_DH2Q)
			unlink_chain(&dt.by_guid[guid_bucket(o->create_guid)],
				     o, true);
		o->dlisted = false;
	}
	pthread_mutex_unlock(&dt.mu);
	return listed;
}

/* The scavenger, or a break's close of a kept open: it goes. */
static void scavenge(struct timer *t)
{
	struct smb2_open *o = t->arg;
	bool kept;

	pthread_mutex_lock(&dt.mu);
	kept = o->disconnected;
	if (kept) {
		o->disconnected = false;
		atomic_fetch_sub(&dt.idle, 1);
	}
	pthread_mutex_unlock(&dt.mu);
	if (!kept)
		return;
	log_debug("smb2: durable open of %s closed (not reconnected)",
		  o->path);
	/* the table's reference goes with the close */
	smb2_open_close(o->tree->sess, o);
}

/* A kept open closes now (dt.mu held), unless its scavenger is running
 * already or a reconnect took it. */
static void close_soon(struct smb2_open *o)
{
	if (o->disconnected && timer_cancel(&o->dtimer) &&
	    timer_arm(&o->dtimer, 0, scavenge, o) < 0)
		log_warn("smb2: no timer to close the durable open of %s",
			 o->path);
}

bool smb2_durable_keep(struct smb2_open *o)
{
	struct state_grant *g;
	struct conn *gone;
	bool breaking;

	if (!atomic_load(&o->durable) || atomic_load(&o->dead) ||
	    smb2_durable_idle() >= SMB2_DURABLE_IDLE_MAX)
		return false;
	/* held: a CLOSE on another thread may remove it */
	g = smb2_oplock_hold(o);
	if (!g)
		return false;
	if (!(state_grant_level(g) & STATE_GRANT_H) ||
	    state_grant_breaking(g, NULL)) {
		state_grant_put(g);
		return false;
	}
	pthread_mutex_lock(&dt.mu);
	if (timer_arm(&o->dtimer, o->durable_timeout_ms, scavenge, o) < 0) {
		pthread_mutex_unlock(&dt.mu);
		state_grant_put(g);
		return false;
	}
	gone = o->grant_conn;
	o->grant_conn = NULL;
	o->disconnected = true;
	atomic_fetch_add(&dt.idle, 1);
	/* a break that began since the check above found it connected:
	 * nobody will answer it */
	breaking = state_grant_breaking(g, NULL);
	if (breaking)
		close_soon(o);
	pthread_mutex_unlock(&dt.mu);
	state_grant_put(g);
	if (gone)
		transport_conn_put(gone);
	log_debug("smb2: durable open of %s kept for %u ms", o->path,
		  (unsigned)o->durable_timeout_ms);
	return true;
}

struct conn *smb2_durable_break_to(struct smb2_open *o,
				   struct smb2_tree **tree)
{
	struct conn *c;

	*tree = NULL;
	if (!atomic_load(&o->durable)) {
		/* never moves: set before the grant, gone after it */
		c = o->grant_conn;
		if (c)
			transport_conn_get(c);
		*tree = o->tree;
		smb2_tree_get(*tree);
		return c;
	}
	pthread_mutex_lock(&dt.mu);
	if (o->disconnected) {
		close_soon(o);
		pthread_mutex_unlock(&dt.mu);
		return NULL;
	}
	c = o->grant_conn;
	if (c)
		transport_conn_get(c);
	*tree = o->tree;
	smb2_tree_get(*tree);
	pthread_mutex_unlock(&dt.mu);
	return c;
}

/* Is @o (dt.mu held) the one @c asks to reconnect? */
static uint32_t reconnect_check(struct smb2_work *w, struct smb2_open *o,
				const struct smb2_create_ctx *c)
{
	struct smb2_session *s = w->sess;
	uint8_t kind = atomic_load(&o->durable);
	bool same;

	if (!o->disconnected || atomic_load(&o->dead))
		return STATUS_OBJECT_NAME_NOT_FOUND;
	/* DHnC takes back either version; DH2C only a DH2Q's, by its
	 * CreateGuid (smbtorture durable-v2-open.reopen2b, reopen2c) */
	if ((c->durable & SMB2_DURABLE_DH2C) &&
	    (kind != SMB2_DURABLE_DH2Q ||
	     memcmp(o->create_guid, c->create_guid, 16) != 0))
		return STATUS_OBJECT_NAME_NOT_FOUND;
	/* the same share; the name is not looked at (an oplock's open is
	 * named by its FileId alone, as Windows and Samba do) */
	if (!o->tree->export || !w->tree->export ||
	    o->tree->export->id != w->tree->export->id)
		return STATUS_OBJECT_NAME_NOT_FOUND;
	/* Open.DurableOwner (§3.3.5.9.7): the user who opened it */
	pthread_mutex_lock(&s->mu);
	same = o->owner_uid == s->uid && !strcmp(o->owner, s->user);
	pthread_mutex_unlock(&s->mu);
	return same ? STATUS_SUCCESS : STATUS_ACCESS_DENIED;
}

uint32_t smb2_durable_reconnect(struct smb2_work *w,
				const struct smb2_create_ctx *c,
				struct smb2_open **out)
{
	struct smb2_tree *old = NULL;
	struct smb2_open *o;
	uint32_t st;
	int err;

	*out = NULL;
	pthread_mutex_lock(&dt.mu);
	o = find_id(c->dfid_persistent);
	st = o ? reconnect_check(w, o, c)
	       : STATUS_OBJECT_NAME_NOT_FOUND;
	/* the scavenger not yet running: this reconnect owns it now */
	if (st == STATUS_SUCCESS && !timer_cancel(&o->dtimer))
		st = STATUS_OBJECT_NAME_NOT_FOUND;
	if (st == STATUS_SUCCESS) {
		o->disconnected = false;
		atomic_fetch_sub(&dt.idle, 1);
		o->grant_conn = w->req->conn;
		transport_conn_get(o->grant_conn);
		old = o->tree;
		smb2_tree_get(w->tree);
		o->tree = w->tree;
		smb2_open_get(o); /* the caller's */
	}
	pthread_mutex_unlock(&dt.mu);
	if (st != STATUS_SUCCESS)
		return st;
	smb2_tree_put(old);
	err = smb2_open_add(w->sess, o);
	if (err) {
		smb2_open_close(w->sess, o);
		smb2_open_put(o);
		return err == -ENOSPC ? STATUS_INSUFFICIENT_RESOURCES
				      : STATUS_USER_SESSION_DELETED;
	}
	log_debug("smb2: durable open of %s reconnected", o->path);
	*out = o;
	return STATUS_SUCCESS;
}

void smb2_durable_shutdown(void)
{
	struct smb2_open *o;

	for (;;) {
		o = NULL;
		pthread_mutex_lock(&dt.mu);
		for (uint32_t b = 0; b < DT_BUCKETS && !o; b++)
			for (o = dt.by_id[b]; o; o = o->dnext)
				if (o->disconnected &&
				    timer_cancel(&o->dtimer))
					break;
		if (o) {
			o->disconnected = false;
			atomic_fetch_sub(&dt.idle, 1);
		}
		pthread_mutex_unlock(&dt.mu);
		if (!o)
			return;
		smb2_open_close(o->tree->sess, o);
	}
}
