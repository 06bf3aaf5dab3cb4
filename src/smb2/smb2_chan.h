/* SPDX-License-Identifier: MIT */
#ifndef NASD_SMB2_SMB2_CHAN_H
#define NASD_SMB2_SMB2_CHAN_H

/*
 * Multichannel: sessions bound to more than one connection (smb2_chan.c
 * says how binding goes and how long channels and sessions live).
 */

#include "smb2/smb2_int.h"

/* Channels one session may have besides its own connection. */
#define SMB2_MAX_CHANNELS 32

/* smb2_chan_get() / _put() - references; the last put frees. NULL is
 * ignored by put. */
void smb2_chan_get(struct smb2_chan *ch);
void smb2_chan_put(struct smb2_chan *ch);

/* smb2_chan_live() - is @c a bound channel of @s? @s->mu held. */
bool smb2_chan_live(struct smb2_session *s, struct smb2_conn *c);

/* smb2_chan_find() - @c's bound channel of @s, referenced, or NULL. */
struct smb2_chan *smb2_chan_find(struct smb2_session *s, struct smb2_conn *c);

/*
 * smb2_session_detach() - @s's own connection closes: true when @s has no
 * bound channel left and must end; else it lives on without it.
 */
bool smb2_session_detach(struct smb2_session *s);

/*
 * smb2_session_async_end_open() - end @o's pending operations (blocking
 * LOCKs, CHANGE_NOTIFY) on every connection of @s (its own and its bound
 * channels).
 */
void smb2_session_async_end_open(struct smb2_session *s, struct smb2_open *o);

/*
 * smb2_conn_unbind_all() - @c closes: its channels leave their sessions,
 * and a session left with no connection at all ends.
 */
void smb2_conn_unbind_all(struct smb2_conn *c);

/*
 * smb2_bind_setup() - one step of a binding SESSION_SETUP on w->conn for
 * w->sess (found in the global table; NULL: none), its token in @token,
 * the answer token written at w->rsp's position and its length in
 * *@outlen. Returns STATUS_MORE_PROCESSING_REQUIRED, STATUS_SUCCESS (the
 * channel is valid, in w->chan, and signs the response) or a refusal
 * (smb2_chan.c lists them).
 */
uint32_t smb2_bind_setup(struct smb2_work *w, const struct smb2_buf *token,
			 size_t *outlen);

#endif
