// SPDX-License-Identifier: MIT
/*
 * Oplocks (MS-SMB2 §2.2.23.1, §2.2.24.1, §2.2.25.1, §3.3.4.6, §3.3.5.22.1):
 * level II, exclusive and batch, as grants of the shared file state's
 * engine (state/grant.c: R, RW, RWH), so that an NFS client's write
 * breaks an SMB client's oplock as another SMB open does.
 *
 *   grant     CREATE asks, the engine says what this open may have now
 *             (exclusive or batch only without another open of the file)
 *   break     the engine's send_break: an OPLOCK_BREAK notification on
 *             the holder's connection (MessageId all ones, unsigned)
 *   wait      a command that conflicts with a break needing an answer
 *             parks its request (REQ_PARK) until the break ends and then
 *             runs again from its start; no thread waits
 *   ack       the client's OPLOCK_BREAK acknowledgement ends the break;
 *             its close ends it too; after 35 s the oplock is the break's
 *             level anyway (Windows' and Samba's timeout)
 */
#include "smb2/smb2_int.h"

#include <string.h>

#include "core/log.h"
#include "smb2/smb2_durable.h"
#include "smb2/smb2_open.h"
#include "smb2/smb2_seal.h"
#include "smb2/smb2_session.h"
#include "state/file_state.h"
#include "transport/transport.h"

#define OPLOCK_BREAK_TIMEOUT_MS 35000
/* The notification (§2.2.23.1) and the acknowledgement (§2.2.24.1). */
#define OPLOCK_BREAK_SIZE 24

static uint32_t level_bits(uint8_t oplock)
{
	switch (oplock) {
	case SMB2_OPLOCK_LEVEL_II:
		return STATE_GRANT_R;
	case SMB2_OPLOCK_LEVEL_EXCLUSIVE:
		return STATE_GRANT_R | STATE_GRANT_W;
	case SMB2_OPLOCK_LEVEL_BATCH:
		return STATE_GRANT_MASK;
	default:
		return 0;
	}
}

static uint8_t level_wire(uint32_t bits)
{
	if (bits & STATE_GRANT_H)
		return SMB2_OPLOCK_LEVEL_BATCH;
	if (bits & STATE_GRANT_W)
		return SMB2_OPLOCK_LEVEL_EXCLUSIVE;
	if (bits & STATE_GRANT_R)
		return SMB2_OPLOCK_LEVEL_II;
	return SMB2_OPLOCK_LEVEL_NONE;
}

/*
 * Whether a break to @o's client on tree @t leaves encrypted
 * (§3.3.4.1.4): its session or share requires it, or the client encrypts
 * on that session.
 */
static bool break_sealed(struct smb2_tree *t)
{
	struct smb2_session *s = t->sess;

	if (!t->encrypt && !s->encrypt_data &&
	    !atomic_load_explicit(&s->client_seals, memory_order_relaxed))
		return false;
	return smb2_session_seals(s);
}

/* The engine asks: send the OPLOCK_BREAK notification (§3.3.4.6). */
static void send_break(struct state_grant *g, uint32_t from, uint32_t to,
		       bool ack_needed)
{
	struct smb2_open *o = state_grant_arg(g);
	struct smb2_tree *t;
	struct conn *c;
	struct req *m = NULL;
	uint8_t *p;
	size_t n = SMB2_HDR_LEN + OPLOCK_BREAK_SIZE;

	(void)from;
	(void)ack_needed;
	if (atomic_load(&o->dead))
		return; /* closing: its close ends the break */
	/* a durable open kept without its connection closes instead */
	c = smb2_durable_break_to(o, &t);
	if (c)
		m = smb2_msg_start(c, n, SMB2_OPLOCK_BREAK, 0,
				   SMB2_FLAGS_SERVER_TO_REDIR, UINT64_MAX, &p);
	if (!m)
		goto out; /* the connection is gone: the break times out */
	p += SMB2_HDR_LEN;
	put_le16(p, OPLOCK_BREAK_SIZE);
	p[2] = level_wire(to);
	put_le64(p + 8, o->persistent);
	put_le64(p + 16, o->volatile_id);
	log_debug("smb2: oplock break of %s to %u", o->path, (unsigned)p[2]);
	if (break_sealed(t) && smb2_reply_seal(m, t->sess) < 0)
		transport_msg_free(m); /* the break times out */
	else
		(void)transport_msg_send(m);
out:
	if (c)
		transport_conn_put(c);
	smb2_tree_put(t);
}

static void grant_release(void *arg)
{
	smb2_open_put(arg);
}

static const struct state_grant_ops oplock_ops = {
	.send_break = send_break,
	.release = grant_release,
};

uint8_t smb2_oplock_grant(struct smb2_work *w, struct smb2_open *o,
			  uint8_t requested, bool stat_open)
{
	struct state_holder h = { .id = o, .tag = STATE_HOLDER_SMB };
	uint32_t want = level_bits(requested), may;
	struct state_grant *g;

	/* A stat open of an existing file gets none (Samba; smbtorture
	 * oplock.exclusive4, batch8), nor does a directory. */
	if (!want || o->is_dir || !o->sf || stat_open)
		return SMB2_OPLOCK_LEVEL_NONE;
	may = state_grant_may(o->sf, &h, STATE_GRANT_OPLOCK, NULL, want);
	if (!may)
		return SMB2_OPLOCK_LEVEL_NONE;
	smb2_open_get(o); /* the grant's, given back by grant_release */
	o->grant_conn = w->req->conn;
	transport_conn_get(o->grant_conn);
	g = state_grant_add(o->sf, &h, STATE_GRANT_OPLOCK, NULL, may,
			    &oplock_ops, o, OPLOCK_BREAK_TIMEOUT_MS);
	if (!g) {
		transport_conn_put(o->grant_conn);
		o->grant_conn = NULL;
		smb2_open_put(o);
		return SMB2_OPLOCK_LEVEL_NONE;
	}
	/* A close on another thread (LOGOFF, TREE_DISCONNECT) may have
	 * released the open meanwhile: then the grant goes at once. */
	pthread_mutex_lock(&o->mu);
	if (atomic_load(&o->dead)) {
		pthread_mutex_unlock(&o->mu);
		state_grant_remove(g);
		return SMB2_OPLOCK_LEVEL_NONE;
	}
	o->grant = g;
	pthread_mutex_unlock(&o->mu);
	return level_wire(may);
}

struct state_grant *smb2_oplock_hold(struct smb2_open *o)
{
	struct state_grant *g;

	pthread_mutex_lock(&o->mu);
	g = o->grant;
	if (g)
		state_grant_hold(g);
	pthread_mutex_unlock(&o->mu);
	return g;
}

bool smb2_oplock_held(struct smb2_open *o)
{
	bool held;

	pthread_mutex_lock(&o->mu);
	held = o->grant != NULL;
	pthread_mutex_unlock(&o->mu);
	return held;
}

uint8_t smb2_oplock_level(struct smb2_open *o)
{
	struct state_grant *g = smb2_oplock_hold(o);
	uint8_t level;

	if (!g)
		return SMB2_OPLOCK_LEVEL_NONE;
	level = level_wire(state_grant_level(g));
	state_grant_put(g);
	return level;
}

void smb2_oplock_release(struct smb2_open *o)
{
	struct state_grant *g;

	/* Unpublished first: a command on another thread that holds it
	 * (smb2_oplock_hold) keeps it allocated, and finds it removed. */
	pthread_mutex_lock(&o->mu);
	g = o->grant;
	o->grant = NULL;
	pthread_mutex_unlock(&o->mu);
	if (g)
		state_grant_remove(g);
}

/* The engine woke a parked request: run it again. */
static void park_wake(struct state_grant_waiter *wt)
{
	transport_req_resume(wt->arg);
}

/* On its connection's list before it can be woken, so that a close
 * always finds it while it waits (conn.mu, then the file's mu). */
static void park_list(struct smb2_work *w)
{
	struct smb2_conn *c = w->conn;

	pthread_mutex_lock(&c->mu);
	w->park_next = c->parked;
	c->parked = w;
	w->park_listed = true;
	pthread_mutex_unlock(&c->mu);
}

void smb2_park_unlist(struct smb2_work *w)
{
	struct smb2_conn *c = w->conn;
	struct smb2_work **pp;

	/* Under conn.mu, as smb2_park_release_all: one of the two gives
	 * the waiter's file reference back, never both at once. */
	pthread_mutex_lock(&c->mu);
	if (w->park_listed) {
		for (pp = &c->parked; *pp; pp = &(*pp)->park_next) {
			if (*pp == w) {
				*pp = w->park_next;
				break;
			}
		}
		w->park_listed = false;
	}
	(void)state_grant_unwait(&w->park_wt);
	pthread_mutex_unlock(&c->mu);
}

void smb2_park_release_all(struct smb2_conn *c)
{
	struct smb2_work *w;

	/* Under conn.mu a listed request cannot run again and go (it
	 * unlists itself first), and unwaiting takes the file's mu, which
	 * is never held while conn.mu is taken. A request its break's end
	 * already woke is not resumed twice (unwait says so). */
	pthread_mutex_lock(&c->mu);
	for (w = c->parked; w; w = w->park_next)
		if (state_grant_unwait(&w->park_wt))
			transport_req_resume(w->req);
	pthread_mutex_unlock(&c->mu);
}

uint32_t smb2_grant_break(struct smb2_work *w, struct state_file *sf,
			  struct vfs_obj *obj,
			  const struct state_grant_ask *ask)
{
	int err;

	w->park_wt.fn = park_wake;
	w->park_wt.arg = w->req;
	park_list(w);
	err = sf ? state_grant_break(sf, ask, &w->park_wt)
		 : state_grant_break_obj(obj, ask, &w->park_wt);
	if (err != -EAGAIN) {
		smb2_park_unlist(w);
		return STATUS_SUCCESS;
	}
	w->parked = true;
	return STATUS_PENDING;
}

uint32_t smb2_open_break(struct smb2_work *w, struct smb2_open *o,
			 enum state_grant_op op)
{
	struct state_holder h = { .id = o, .tag = STATE_HOLDER_SMB };
	struct state_grant_ask ask = { .op = op, .holder = &h };

	return o->sf ? smb2_grant_break(w, o->sf, NULL, &ask) : STATUS_SUCCESS;
}

/*
 * OPLOCK_BREAK acknowledgement (§3.3.5.22.1): the open's break ends at
 * the level the client keeps; the response says it again (§2.2.25.1).
 */
uint32_t smb2_cmd_oplock_break(struct smb2_work *w, struct smb2_buf *body)
{
	struct state_grant *g;
	struct smb2_open *o;
	uint8_t level;
	uint64_t p, v;
	uint32_t st;

	if (!sb_skip(body, 2) || !sb_get_u8(body, &level) ||
	    !sb_skip(body, 5) || !sb_get_u64(body, &p) ||
	    !sb_get_u64(body, &v))
		return STATUS_INVALID_PARAMETER;
	st = smb2_open_lookup(w, p, v, &o);
	if (st != STATUS_SUCCESS)
		return st;
	/* Held: a CLOSE of the open on another thread may remove it. */
	g = smb2_oplock_hold(o);
	/* No break out to answer (a level II break needs none): Samba's
	 * answer, which smbtorture oplock.levelii500 expects (MS-SMB2 now
	 * says STATUS_INVALID_DEVICE_STATE). */
	if (!g || !state_grant_breaking(g, NULL)) {
		st = STATUS_INVALID_OPLOCK_PROTOCOL;
		goto out;
	}
	/* A level that is not one: refused, the break stays out. */
	if (level != SMB2_OPLOCK_LEVEL_NONE && level != SMB2_OPLOCK_LEVEL_II) {
		st = STATUS_INVALID_PARAMETER;
		goto out;
	}
	/* Level II after a break to none keeps none (as Samba). */
	if (state_grant_ack(g, level_bits(level)) == -EINVAL) {
		st = STATUS_INVALID_OPLOCK_PROTOCOL; /* ended meanwhile */
		goto out;
	}
	if (!sb_put_u16(&w->rsp, OPLOCK_BREAK_SIZE) ||
	    !sb_put_u8(&w->rsp, level_wire(state_grant_level(g))) ||
	    !sb_put_u8(&w->rsp, 0) || !sb_put_u32(&w->rsp, 0) ||
	    !sb_put_u64(&w->rsp, o->persistent) ||
	    !sb_put_u64(&w->rsp, o->volatile_id))
		st = STATUS_INSUFFICIENT_RESOURCES;
out:
	if (g)
		state_grant_put(g);
	smb2_open_put(o);
	return st;
}
