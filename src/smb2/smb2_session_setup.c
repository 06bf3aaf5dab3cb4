// SPDX-License-Identifier: MIT
/*
 * SESSION_SETUP and LOGOFF (MS-SMB2 §2.2.5-§2.2.8, §3.3.5.5, §3.3.5.6).
 *
 * A SESSION_SETUP carries one GSS token (SPNEGO around NTLMSSP, or bare
 * NTLMSSP) to the session's exchange in auth/; its answer token goes back
 * in the response, with STATUS_MORE_PROCESSING_REQUIRED until the
 * exchange is done. Then:
 *  - a first authentication derives the session's keys (SP800-108 for
 *    3.x, the 3.1.1 ones from the session's preauth hash) and the final
 *    response is signed with them, which is how a 3.1.1 client learns
 *    that nobody tampered with NEGOTIATE or SESSION_SETUP;
 *  - a reauthentication (a SESSION_SETUP on a valid session) keeps the
 *    keys and takes the new identity (§3.3.5.5.3);
 *  - a failure ends the session and its answer waits SMB2_LOGON_DELAY_MS
 *    on a timer (no thread waits), to slow a password guesser down.
 * A SessionId that is not 0 must be one of this connection's sessions,
 * but for a binding (multichannel: smb2_chan.c).
 */
#include "smb2/smb2_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "core/log.h"
#include "core/timer.h"
#include "transport/transport.h"
#include "smb2/auth/auth.h"
#include "smb2/smb2_chan.h"
#include "smb2/smb2_open.h"
#include "smb2/smb2_session.h"

/* The session's exchange, begun on its first SESSION_SETUP. */
static struct smb2_auth *session_auth(struct smb2_session *s)
{
	if (!s->auth)
		s->auth = smb2_auth_new(smb2_auth_config());
	return s->auth;
}

void smb2_session_auth_free(struct smb2_session *s)
{
	smb2_auth_free(s->auth);
	s->auth = NULL;
}

void smb2_session_keys_free(struct smb2_session *s)
{
	smb2_keys_wipe(&s->keys);
	s->have_keys = false;
}

/* Fold one message into the hash @h (3.1.1 preauth integrity). */
static void preauth_fold(uint8_t h[SMB2_PREAUTH_SIZE], const uint8_t *msg,
			 size_t len)
{
	struct iovec iov = { .iov_base = (void *)msg, .iov_len = len };

	(void)smb2_preauth_update(h, &iov, 1);
}

void smb2_preauth_response(struct smb2_work *w)
{
	struct smb2_conn *c = w->conn;
	struct smb2_session *s = w->sess;

	if (c->dialect != SMB2_DIALECT_0311)
		return;
	if (w->command == SMB2_NEGOTIATE &&
	    w->last_status == STATUS_SUCCESS) {
		pthread_mutex_lock(&c->mu);
		preauth_fold(c->preauth, w->rsp.base, w->rsp.pos);
		pthread_mutex_unlock(&c->mu);
	} else if (w->command == SMB2_SESSION_SETUP && s &&
		   w->last_status == STATUS_MORE_PROCESSING_REQUIRED) {
		/* A binding's answers go into its channel's hash, signed as
		 * they are sent (§3.3.5.5.3). */
		pthread_mutex_lock(&s->mu);
		if (w->bind_chan)
			preauth_fold(w->bind_chan->preauth, w->rsp.base,
				     w->rsp.pos);
		else if (s->state == SMB2_SESS_IN_PROGRESS)
			preauth_fold(s->preauth, w->rsp.base, w->rsp.pos);
		pthread_mutex_unlock(&s->mu);
	}
}

/*
 * The session the SESSION_SETUP is for: a new one (SessionId 0), or one
 * of this connection's, in w->sess with a reference.
 */
static uint32_t setup_session(struct smb2_work *w, uint8_t flags)
{
	struct smb2_conn *c = w->conn;
	struct smb2_session *s;

	if (!w->session_id) {
		smb2_session_put(w->sess);
		w->sess = smb2_session_new(c);
		if (!w->sess)
			return STATUS_INSUFFICIENT_RESOURCES;
		s = w->sess;
		w->session_id = s->id;
		pthread_mutex_lock(&c->mu);
		memcpy(s->preauth, c->preauth, sizeof(s->preauth));
		pthread_mutex_unlock(&c->mu);
		return STATUS_SUCCESS;
	}
	(void)flags;
	if (!w->sess || w->sess->id != w->session_id) {
		smb2_session_put(w->sess);
		w->sess = smb2_session_find(c, w->session_id);
	}
	if (!w->sess)
		return STATUS_USER_SESSION_DELETED;
	/* A reauthentication may come over a bound channel too: it was
	 * signed with that channel's key (smb2_sign.c). */
	return STATUS_SUCCESS;
}

/*
 * §3.3.5.5.3: a client that reconnects names the session it had
 * (PreviousSessionId); once the user has proven to be the same, that one
 * goes (its opens with it), wherever it was set up.
 */
static void previous_session_end(struct smb2_session *s, uint64_t prev)
{
	struct smb2_session *old;
	bool same;

	if (!prev || prev == s->id)
		return;
	old = smb2_session_find_any(prev);
	if (!old)
		return;
	pthread_mutex_lock(&old->mu);
	same = old->state == SMB2_SESS_VALID && !old->anonymous &&
	       !strcmp(old->user, s->user);
	pthread_mutex_unlock(&old->mu);
	if (same) {
		/* its durable opens wait for this client's reconnect */
		smb2_open_disconnect_all(old);
		smb2_session_teardown(old);
	}
	smb2_session_put(old);
}

/* The exchange succeeded: the session becomes valid (§3.3.5.5.3). */
static uint32_t setup_done(struct smb2_work *w, struct smb2_auth *a,
			   uint8_t sec_mode, uint64_t prev, uint16_t *sflags)
{
	struct smb2_conn *c = w->conn;
	struct smb2_session *s = w->sess;
	uint8_t key[SMB2_AUTH_KEY_LEN];
	bool reauth, client_requires, anon = smb2_auth_anonymous(a);
	const char *user = smb2_auth_user(a);
	enum smb2_cipher cipher;
	int err = 0;

	pthread_mutex_lock(&c->mu);
	client_requires = (c->client_sec_mode | sec_mode) &
			  SMB2_NEGOTIATE_SIGNING_REQUIRED;
	cipher = c->cipher;
	pthread_mutex_unlock(&c->mu);
	if (!anon && smb2_auth_session_key(a, key) < 0)
		return STATUS_LOGON_FAILURE;

	pthread_mutex_lock(&s->mu);
	reauth = s->state == SMB2_SESS_VALID;
	if (reauth && s->anonymous != anon) {
		/* An anonymous session cannot become a user's (it has no
		 * keys to sign with), nor the reverse. */
		pthread_mutex_unlock(&s->mu);
		OPENSSL_cleanse(key, sizeof(key));
		return STATUS_LOGON_FAILURE;
	}
	(void)snprintf(s->user, sizeof(s->user), "%s", user); /* truncates */
	s->uid = smb2_auth_uid(a);
	s->gid = smb2_auth_gid(a);
	s->ngroups = 0;
	s->anonymous = anon;
	if (!reauth && !anon) {
		err = smb2_session_keys_derive(&s->keys, c->dialect,
					       c->sign_alg, cipher, key,
					       sizeof(key), s->preauth);
		s->have_keys = err == 0;
		s->dialect = c->dialect;
		s->signing_required =
			smb2_cfg()->signing_required || client_requires;
		/* Session.EncryptData (§3.3.5.5.3): what the client sends
		 * after this must be encrypted. */
		s->encrypt_data = cipher != SMB2_CIPHER_NONE &&
				  smb2_cfg()->encrypt == SMB2_ENCRYPT_REQUIRED;
	}
	if (s->encrypt_data)
		*sflags |= SMB2_SESSION_FLAG_ENCRYPT_DATA;
	if (err == 0)
		s->state = SMB2_SESS_VALID;
	pthread_mutex_unlock(&s->mu);
	OPENSSL_cleanse(key, sizeof(key));
	if (err) {
		log_ratelimited(LL_WARN, "smb2: cannot derive session keys "
				"(%d)", err);
		return STATUS_INTERNAL_ERROR;
	}
	if (anon)
		*sflags |= SMB2_SESSION_FLAG_IS_NULL;
	else
		w->sign = true; /* the final response proves the keys */
	if (!reauth)
		previous_session_end(s, prev);
	log_msg(LL_DEBUG, "smb2: session %016llx %s for %s",
		(unsigned long long)s->id, reauth ? "reauthenticated" : "set up",
		anon ? "anonymous" : user);
	return STATUS_SUCCESS;
}

/* Send the delayed answer of a failed logon (core/timer.h). */
static void logon_delay_fire(struct timer *t)
{
	(void)transport_msg_send(t->arg);
}

/*
 * Answer the failed logon later: the message's reply so far moves into
 * a message of its own that a timer sends. False: send it now.
 */
bool smb2_delay_reply(struct req *r, uint32_t ms)
{
	size_t len = req_reply_body_len(r);
	struct timer *t;
	struct req *m;
	uint8_t *p;

	m = transport_msg_new(r->conn);
	if (!m)
		return false;
	t = req_alloc(m, sizeof(*t));
	p = t ? req_reply_start(m, len) : NULL;
	if (!p || req_reply_copy(r, 0, p, len) != (ssize_t)len)
		goto out_free;
	req_reply_used(m, len);
	if (timer_arm(t, ms, logon_delay_fire, m) < 0)
		goto out_free;
	return true;

out_free:
	transport_msg_free(m);
	return false;
}

/*
 * The response's 8 fixed bytes (§2.2.6), room for the answer token after
 * them; where they start (SessionFlags at +2, SecurityBufferLength at +6,
 * both left 0), or NULL when out of memory.
 */
static uint8_t *setup_rsp_fixed(struct smb2_work *w)
{
	size_t fixed = w->rsp.pos;

	if (!smb2_rsp_room(w, 8 + SMB2_AUTH_TOKEN_MAX))
		return NULL;
	sb_put_u16(&w->rsp, 9);
	sb_put_u16(&w->rsp, 0);
	sb_put_u16(&w->rsp, SMB2_HDR_LEN + 8);
	sb_put_u16(&w->rsp, 0);
	return w->rsp.base + fixed;
}

/* A binding step: the response's fixed part, then the exchange's. */
static uint32_t bind_step(struct smb2_work *w, const struct smb2_buf *token)
{
	size_t outlen = 0;
	uint8_t *fix = setup_rsp_fixed(w);
	uint32_t st;

	if (!fix)
		return STATUS_INSUFFICIENT_RESOURCES;
	st = smb2_bind_setup(w, token, &outlen);
	if (st == STATUS_SUCCESS || st == STATUS_MORE_PROCESSING_REQUIRED) {
		w->rsp.pos += outlen;
		put_le16(fix + 6, (uint16_t)outlen);
	}
	return st;
}

uint32_t smb2_cmd_session_setup(struct smb2_work *w, struct smb2_buf *body)
{
	uint16_t ssize, sec_off, sec_len, sflags = 0;
	uint8_t flags, sec_mode;
	uint32_t caps, channel, st;
	uint64_t prev;
	struct smb2_buf token;
	struct smb2_auth *a;
	struct smb2_session *s;
	size_t outlen = 0;
	uint8_t *fix;
	int ret;

	if (!sb_get_u16(body, &ssize) || !sb_get_u8(body, &flags) ||
	    !sb_get_u8(body, &sec_mode) || !sb_get_u32(body, &caps) ||
	    !sb_get_u32(body, &channel) || !sb_get_u16(body, &sec_off) ||
	    !sb_get_u16(body, &sec_len) || !sb_get_u64(body, &prev))
		return STATUS_INVALID_PARAMETER;
	(void)caps;
	(void)channel;
	/* The token lies inside this command (offset from its header). */
	if (sec_len && (sec_off < SMB2_HDR_LEN + 24 ||
			(size_t)sec_off + sec_len > w->cmd_len ||
			!sb_range(&w->msg, w->off + sec_off, sec_len, &token)))
		return STATUS_INVALID_PARAMETER;
	if (!sec_len)
		sb_init(&token, NULL, 0);

	/* §3.3.5.5 step 4: another connection's session, bound as a
	 * channel of this one (smb2_chan.c). */
	if (flags & SMB2_SESSION_FLAG_BINDING)
		return bind_step(w, &token);
	/* §3.3.5.5 steps 1, 2: with encryption required, a client that
	 * cannot encrypt gets no session (RejectUnencryptedAccess). */
	if (smb2_cfg()->encrypt == SMB2_ENCRYPT_REQUIRED &&
	    w->conn->cipher == SMB2_CIPHER_NONE)
		return STATUS_ACCESS_DENIED;
	st = setup_session(w, flags);
	if (st != STATUS_SUCCESS)
		return st;
	s = w->sess;
	pthread_mutex_lock(&s->mu);
	if (s->dead) {
		pthread_mutex_unlock(&s->mu);
		return STATUS_USER_SESSION_DELETED;
	}
	/* One step at a time per session: an exchange is not thread-safe,
	 * and a client that overlaps its own steps gets a refusal. */
	if (s->setup_busy) {
		pthread_mutex_unlock(&s->mu);
		return STATUS_REQUEST_NOT_ACCEPTED;
	}
	if (s->state == SMB2_SESS_VALID) {
		/* A reauthentication (§3.3.5.5): its first step starts a
		 * fresh exchange (none is kept after a logon), the next ones
		 * continue it. Its every step is answered signed with the
		 * session's keys when the client signed it (§3.3.4.1.1): a
		 * client holding keys drops an unsigned answer (smbtorture
		 * session.ntlmssp_bug14932, as Samba and Windows do). */
		w->sign = (w->flags & SMB2_FLAGS_SIGNED) && s->have_keys;
	} else if (w->conn->dialect == SMB2_DIALECT_0311) {
		preauth_fold(s->preauth, w->msg.base + w->off, w->cmd_len);
	}
	a = session_auth(s);
	s->setup_busy = a != NULL;
	pthread_mutex_unlock(&s->mu);
	if (!a)
		return STATUS_INSUFFICIENT_RESOURCES;

	/* The response: 8 fixed bytes, then the answer token. */
	fix = setup_rsp_fixed(w);
	if (!fix) {
		ret = -ENOMEM;
		st = STATUS_INSUFFICIENT_RESOURCES;
		goto out_failed;
	}
	ret = smb2_auth_step(a, token.base, token.len, w->rsp.base + w->rsp.pos,
			     sb_remaining(&w->rsp), &outlen);
	if (ret >= 0) {
		w->rsp.pos += outlen;
		put_le16(fix + 6, (uint16_t)outlen);
	}
	if (ret == SMB2_AUTH_MORE) {
		pthread_mutex_lock(&s->mu);
		s->setup_busy = false;
		pthread_mutex_unlock(&s->mu);
		return STATUS_MORE_PROCESSING_REQUIRED;
	}
	if (ret == 0) {
		st = setup_done(w, a, sec_mode, prev, &sflags);
		if (st == STATUS_SUCCESS) {
			put_le16(fix + 2, sflags);
			pthread_mutex_lock(&s->mu);
			smb2_session_auth_free(s);
			s->setup_busy = false;
			pthread_mutex_unlock(&s->mu);
			return st;
		}
	} else if (ret == -ENOMEM || ret == -EIO || ret == -ENOBUFS) {
		st = STATUS_INSUFFICIENT_RESOURCES;
	} else if (ret == -EINVAL) {
		st = STATUS_INVALID_PARAMETER;
	} else {
		st = STATUS_LOGON_FAILURE;
	}
out_failed:
	{
		const char *u, *d, *ws;

		smb2_auth_client_names(a, &u, &d, &ws);
		log_ratelimited(LL_INFO, "smb2: logon of \"%s\\%s\" from "
				"\"%s\" failed (%d)", d, u, ws, ret);
	}
	/* §3.3.5.5.3: a failed exchange ends the session (its exchange
	 * goes with its last reference). */
	smb2_session_teardown(s);
	if (st == STATUS_LOGON_FAILURE)
		w->delay_ms = SMB2_LOGON_DELAY_MS;
	return st;
}

uint32_t smb2_cmd_logoff(struct smb2_work *w, struct smb2_buf *body)
{
	(void)body;
	/* Durable opens outlive a LOGOFF as they outlive the connection:
	 * the client may take them back from a new session (Samba does;
	 * smbtorture durable-open.reopen4). The response is signed with
	 * the session's key, which the teardown does not wipe (the last
	 * reference does). */
	smb2_open_disconnect_all(w->sess);
	smb2_session_teardown(w->sess);
	return sb_put_u16(&w->rsp, 4) && sb_put_u16(&w->rsp, 0)
		       ? STATUS_SUCCESS
		       : STATUS_INSUFFICIENT_RESOURCES;
}
