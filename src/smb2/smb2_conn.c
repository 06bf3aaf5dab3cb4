// SPDX-License-Identifier: MIT
/*
 * SMB2 connections (MS-SMB2 §3.3.1.7): their negotiated state and the
 * credit window (§3.3.1.1, §3.3.1.2). Requests of one connection run on
 * several workers at once; everything here is under smb2_conn.mu.
 *
 * The window: the client may use MessageIds seq_low .. seq_low +
 * seq_range - 1, each once. A request charging C credits uses C
 * consecutive ids. Used ids are marked in a ring bitmap; seq_low moves
 * past the ones used at its start, so the window slides as requests come
 * in any order. A response grants credits: the window grows by as many
 * ids. What the client holds (outstanding) is seq_range - seq_nused, and
 * nasd never lets it pass the configured maximum.
 */
#include "smb2/smb2_int.h"

#include <stdlib.h>
#include <string.h>

#include "smb2/smb2_async.h"
#include "smb2/smb2_chan.h"
#include "smb2/smb2_open.h"
#include "smb2/smb2_session.h"
#include "transport/transport.h"

struct smb2_conn *smb2_conn_new(struct conn *tc, const struct smb2_config *cfg)
{
	struct smb2_conn *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->tconn = tc;
	c->cfg = cfg;
	pthread_mutex_init(&c->mu, NULL);
	/* Before NEGOTIATE the client has one credit: MessageId 0. */
	c->seq_low = 0;
	c->seq_range = 1;
	atomic_fetch_add_explicit(&smb2_n_credits, 1, memory_order_relaxed);
	return c;
}

/*
 * smb2_conn_close() - the transport closed the connection (§3.3.7.1): it
 * leaves the sessions it was bound to as a channel, and its own sessions
 * are logged off unless another channel keeps them; their durable opens
 * are kept for a reconnect (smb2_durable.h).
 */
void smb2_conn_close(struct smb2_conn *c)
{
	struct smb2_session *s;

	pthread_mutex_lock(&c->mu);
	c->closing = true;
	pthread_mutex_unlock(&c->mu);
	smb2_async_end_all(c);
	smb2_park_release_all(c);
	smb2_conn_unbind_all(c);
	while ((s = smb2_session_unbind_first(c)) != NULL) {
		if (smb2_session_detach(s)) {
			smb2_open_disconnect_all(s);
			smb2_session_teardown(s);
		}
		smb2_session_put(s);
	}
}

/* smb2_conn_free() - the last request of the connection is gone. */
void smb2_conn_free(struct smb2_conn *c)
{
	atomic_fetch_sub_explicit(&smb2_n_credits, c->seq_range - c->seq_nused,
				  memory_order_relaxed);
	pthread_mutex_destroy(&c->mu);
	free(c);
}

static bool seq_test(const struct smb2_conn *c, uint64_t id)
{
	uint32_t i = (uint32_t)(id % SMB2_SEQ_RING);

	return c->seq_used[i / 64] & (1ull << (i % 64));
}

static void seq_set(struct smb2_conn *c, uint64_t id, bool on)
{
	uint32_t i = (uint32_t)(id % SMB2_SEQ_RING);

	if (on)
		c->seq_used[i / 64] |= 1ull << (i % 64);
	else
		c->seq_used[i / 64] &= ~(1ull << (i % 64));
}

bool smb2_credit_take(struct smb2_conn *c, uint64_t id, uint16_t charge)
{
	uint64_t i, n = charge ? charge : 1;
	bool ok = false;

	pthread_mutex_lock(&c->mu);
	/* Inside the window (no wrap: ids are below 2^64 - 1 here). */
	if (id == UINT64_MAX || id < c->seq_low || n > c->seq_range ||
	    id - c->seq_low > c->seq_range - n)
		goto out_unlock;
	for (i = 0; i < n; i++)
		if (seq_test(c, id + i))
			goto out_unlock;
	for (i = 0; i < n; i++)
		seq_set(c, id + i, true);
	c->seq_nused += (uint32_t)n;
	atomic_fetch_sub_explicit(&smb2_n_credits, n, memory_order_relaxed);
	/* Slide past the ids used at the window's start. */
	while (c->seq_range && seq_test(c, c->seq_low)) {
		seq_set(c, c->seq_low, false);
		c->seq_low++;
		c->seq_range--;
		c->seq_nused--;
	}
	ok = true;
out_unlock:
	pthread_mutex_unlock(&c->mu);
	return ok;
}

uint16_t smb2_credit_grant(struct smb2_conn *c, uint16_t requested,
			   uint16_t charge)
{
	uint32_t max = c->cfg->max_credits, held, room, g;

	(void)charge;
	pthread_mutex_lock(&c->mu);
	held = c->seq_range - c->seq_nused;
	room = held < max ? max - held : 0;
	g = requested ? requested : 1;
	if (g > room)
		g = room;
	/* A client holding nothing could never send again. */
	if (!g && !held)
		g = 1;
	/* The ring must cover the whole window. */
	if (c->seq_range + g > SMB2_SEQ_RING)
		g = SMB2_SEQ_RING - c->seq_range;
	c->seq_range += g;
	atomic_fetch_add_explicit(&smb2_n_credits, g, memory_order_relaxed);
	pthread_mutex_unlock(&c->mu);
	return (uint16_t)g;
}
