// SPDX-License-Identifier: MIT
/*
 * Multichannel (MS-SMB2 §3.3.5.5, §3.3.5.5.2, §3.3.5.5.3, §3.3.7.1): a
 * session set up on one connection is bound to others, each a channel
 * with a signing key of its own, and lives as long as any of them.
 *
 * Binding. A SESSION_SETUP with SMB2_SESSION_FLAG_BINDING on connection C
 * names a session S of another connection, signed with S's key (the
 * dispatcher found S in the global table and verified that). Refusals, in
 * the order Windows and Samba answer them (smbtorture session.bind_*):
 * unsigned INVALID_PARAMETER; S signing with AES-GMAC and C another
 * algorithm REQUEST_OUT_OF_SEQUENCE; C signing with AES-GMAC and S another
 * NOT_SUPPORTED; C below 3.0 REQUEST_NOT_ACCEPTED; another cipher
 * INVALID_PARAMETER; no multichannel on C REQUEST_NOT_ACCEPTED; another
 * dialect INVALID_PARAMETER; an anonymous S NOT_SUPPORTED; C already bound
 * to S (or S's own) ACCESS_DENIED. Then a full authentication runs on C
 * (its own exchange and, for 3.1.1, its own preauth hash from C's
 * NEGOTIATE); the same user must come out of it, and its session key and
 * hash give Channel.SigningKey, which signs the final response and every
 * later request and response of S on C. A failed binding leaves S alone.
 *
 * Lifetime. A channel is in S's list (a reference) from its first binding
 * step; C's list of bound sessions holds S. When C closes, its channels
 * leave their sessions; when S's own connection closes, S stays while a
 * bound channel is left (its conn becomes NULL); the last one to go ends
 * S. Both decisions are taken under S's mu, so exactly one ends it.
 */
#include "smb2/smb2_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "core/log.h"
#include "smb2/auth/auth.h"
#include "smb2/smb2_async.h"
#include "smb2/smb2_chan.h"
#include "smb2/smb2_session.h"
#include "transport/transport.h"

/* A connection's record of a session it is bound to. */
struct smb2_bound {
	struct smb2_session *sess;   /* referenced */
	struct smb2_bound *next;     /* smb2_conn.bound; conn.mu */
};

void smb2_chan_get(struct smb2_chan *ch)
{
	atomic_fetch_add(&ch->refs, 1);
}

void smb2_chan_put(struct smb2_chan *ch)
{
	if (!ch || atomic_fetch_sub(&ch->refs, 1) != 1)
		return;
	smb2_sign_key_wipe(&ch->sign);
	smb2_auth_free(ch->auth);
	OPENSSL_cleanse(ch->preauth, sizeof(ch->preauth));
	free(ch);
}

/* @c's channel of @s, valid or being bound, or NULL; s->mu held. */
static struct smb2_chan *chan_of(struct smb2_session *s, struct smb2_conn *c)
{
	struct smb2_chan *ch;

	for (ch = s->chans; ch; ch = ch->next)
		if (ch->conn == c)
			return ch;
	return NULL;
}

bool smb2_chan_live(struct smb2_session *s, struct smb2_conn *c)
{
	struct smb2_chan *ch = chan_of(s, c);

	return ch && ch->valid;
}

struct smb2_chan *smb2_chan_find(struct smb2_session *s, struct smb2_conn *c)
{
	struct smb2_chan *ch;

	pthread_mutex_lock(&s->mu);
	ch = chan_of(s, c);
	if (ch && ch->valid)
		smb2_chan_get(ch);
	else
		ch = NULL;
	pthread_mutex_unlock(&s->mu);
	return ch;
}

/* Any valid channel left on @s; s->mu held. */
static bool any_live(struct smb2_session *s)
{
	struct smb2_chan *ch;

	for (ch = s->chans; ch; ch = ch->next)
		if (ch->valid)
			return true;
	return false;
}

/* Take @c's channel out of @s; true when @s has nothing left to live
 * on and must end. */
static bool chan_remove(struct smb2_session *s, struct smb2_conn *c)
{
	struct smb2_chan **pp, *gone = NULL;
	bool end;

	pthread_mutex_lock(&s->mu);
	for (pp = &s->chans; *pp; pp = &(*pp)->next) {
		if ((*pp)->conn == c) {
			gone = *pp;
			*pp = gone->next;
			gone->conn = NULL;
			gone->valid = false;
			s->nchans--;
			break;
		}
	}
	end = !s->conn && !any_live(s) && !s->dead;
	pthread_mutex_unlock(&s->mu);
	smb2_chan_put(gone); /* the list's */
	return end;
}

bool smb2_session_detach(struct smb2_session *s)
{
	bool end;

	pthread_mutex_lock(&s->mu);
	end = !any_live(s);
	if (!end)
		s->conn = NULL;
	pthread_mutex_unlock(&s->mu);
	return end;
}

void smb2_session_async_end_open(struct smb2_session *s, struct smb2_open *o)
{
	struct conn *tc[1 + SMB2_MAX_CHANNELS];
	struct smb2_conn *cs[1 + SMB2_MAX_CHANNELS];
	struct smb2_chan *ch;
	unsigned int n = 0, i;

	/* Every connection of @s may hold operations of @o; each is kept
	 * (its transport reference) while they are ended. */
	pthread_mutex_lock(&s->mu);
	if (s->conn)
		cs[n++] = s->conn;
	for (ch = s->chans; ch && n < 1 + SMB2_MAX_CHANNELS; ch = ch->next)
		if (ch->conn)
			cs[n++] = ch->conn;
	for (i = 0; i < n; i++) {
		tc[i] = cs[i]->tconn;
		transport_conn_get(tc[i]);
	}
	pthread_mutex_unlock(&s->mu);
	for (i = 0; i < n; i++) {
		smb2_async_end_open(cs[i], o);
		transport_conn_put(tc[i]);
	}
}

void smb2_conn_unbind_all(struct smb2_conn *c)
{
	struct smb2_bound *b;

	for (;;) {
		pthread_mutex_lock(&c->mu);
		b = c->bound;
		if (b) {
			c->bound = b->next;
			c->nbound--;
		}
		pthread_mutex_unlock(&c->mu);
		if (!b)
			return;
		if (chan_remove(b->sess, c))
			smb2_session_teardown(b->sess);
		smb2_session_put(b->sess);
		free(b);
	}
}

/* §3.3.5.5: what refuses a binding before any authentication. */
static uint32_t bind_check(struct smb2_work *w, struct smb2_session *s)
{
	struct smb2_conn *c = w->conn;
	enum smb2_sign_alg s_alg, c_alg;
	enum smb2_cipher s_cipher, c_cipher;
	uint16_t s_dialect, c_dialect;
	uint32_t caps;
	bool anon, valid;

	if (!(w->flags & SMB2_FLAGS_SIGNED))
		return STATUS_INVALID_PARAMETER;
	pthread_mutex_lock(&s->mu);
	s_alg = s->keys.sign.alg;
	s_cipher = s->keys.cipher;
	s_dialect = s->dialect;
	anon = s->anonymous || !s->have_keys;
	valid = s->state == SMB2_SESS_VALID && !s->dead;
	pthread_mutex_unlock(&s->mu);
	pthread_mutex_lock(&c->mu);
	c_alg = c->sign_alg;
	c_cipher = c->cipher;
	c_dialect = c->dialect;
	caps = c->server_caps;
	pthread_mutex_unlock(&c->mu);
	if (!valid)
		return STATUS_USER_SESSION_DELETED;
	if (s_alg == SMB2_SIGN_AES_GMAC && c_alg != s_alg)
		return STATUS_REQUEST_OUT_OF_SEQUENCE;
	if (c_alg == SMB2_SIGN_AES_GMAC && c_alg != s_alg)
		return STATUS_NOT_SUPPORTED;
	if (c_dialect < SMB2_DIALECT_0300)
		return STATUS_REQUEST_NOT_ACCEPTED;
	if (s_cipher != c_cipher)
		return STATUS_INVALID_PARAMETER;
	if (!(caps & SMB2_GLOBAL_CAP_MULTI_CHANNEL))
		return STATUS_REQUEST_NOT_ACCEPTED;
	if (s_dialect != c_dialect)
		return STATUS_INVALID_PARAMETER;
	if (anon)
		return STATUS_NOT_SUPPORTED;
	return STATUS_SUCCESS;
}

/* @c's record of @s, or NULL; c->mu held. */
static struct smb2_bound *bound_find(struct smb2_conn *c,
				     const struct smb2_session *s)
{
	struct smb2_bound *b;

	for (b = c->bound; b; b = b->next)
		if (b->sess == s)
			return b;
	return NULL;
}

/*
 * The channel of @c on @s being bound, made (and @c's record of @s) at
 * the first step, with a reference for the caller; NULL with *@st set:
 * @c is @s's own or already bound (ACCESS_DENIED), no room, no memory.
 */
static struct smb2_chan *bind_chan(struct smb2_work *w, struct smb2_session *s,
				   uint32_t *st)
{
	struct smb2_conn *c = w->conn;
	struct smb2_chan *ch;
	struct smb2_bound *b;

	b = calloc(1, sizeof(*b));
	ch = calloc(1, sizeof(*ch));
	if (!b || !ch)
		goto out_nomem;
	pthread_mutex_lock(&c->mu);
	if (c->closing || (c->nbound >= SMB2_MAX_SESSIONS_PER_CONN &&
			   !bound_find(c, s))) {
		pthread_mutex_unlock(&c->mu);
		*st = STATUS_INSUFFICIENT_RESOURCES;
		goto out_free;
	}
	memcpy(ch->preauth, c->preauth, sizeof(ch->preauth));
	pthread_mutex_lock(&s->mu);
	if (s->conn == c || (chan_of(s, c) && chan_of(s, c)->valid)) {
		pthread_mutex_unlock(&s->mu);
		pthread_mutex_unlock(&c->mu);
		*st = STATUS_ACCESS_DENIED;
		goto out_free;
	}
	if (chan_of(s, c)) {
		/* a later step of the binding under way */
		struct smb2_chan *cur = chan_of(s, c);

		smb2_chan_get(cur);
		pthread_mutex_unlock(&s->mu);
		pthread_mutex_unlock(&c->mu);
		free(b);
		free(ch);
		return cur;
	}
	if (s->nchans >= SMB2_MAX_CHANNELS || s->dead) {
		pthread_mutex_unlock(&s->mu);
		pthread_mutex_unlock(&c->mu);
		*st = s->dead ? STATUS_USER_SESSION_DELETED
			      : STATUS_INSUFFICIENT_RESOURCES;
		goto out_free;
	}
	atomic_init(&ch->refs, 2); /* the list's, the caller's */
	ch->conn = c;
	ch->next = s->chans;
	s->chans = ch;
	s->nchans++;
	pthread_mutex_unlock(&s->mu);
	/* One record per session on @c (an earlier binding that failed
	 * left its own). */
	if (!bound_find(c, s)) {
		smb2_session_get(s);
		b->sess = s;
		b->next = c->bound;
		c->bound = b;
		c->nbound++;
		b = NULL;
	}
	pthread_mutex_unlock(&c->mu);
	free(b);
	return ch;

out_nomem:
	*st = STATUS_INSUFFICIENT_RESOURCES;
out_free:
	free(b);
	free(ch);
	return NULL;
}

/* The binding failed: @ch leaves @s (its connection's record of @s stays
 * until the connection closes; a later binding may use it again). */
static void bind_fail(struct smb2_session *s, struct smb2_chan *ch)
{
	struct smb2_chan **pp;
	bool found = false;

	pthread_mutex_lock(&s->mu);
	for (pp = &s->chans; *pp; pp = &(*pp)->next) {
		if (*pp == ch) {
			*pp = ch->next;
			s->nchans--;
			found = true;
			break;
		}
	}
	ch->conn = NULL;
	pthread_mutex_unlock(&s->mu);
	if (found)
		smb2_chan_put(ch); /* the list's */
}

/* The exchange succeeded: the same user, then Channel.SigningKey. */
static uint32_t bind_done(struct smb2_work *w, struct smb2_session *s,
			  struct smb2_chan *ch, struct smb2_auth *a)
{
	struct smb2_conn *c = w->conn;
	uint8_t key[SMB2_AUTH_KEY_LEN];
	enum smb2_sign_alg alg;
	uint16_t dialect;
	bool same;
	int err;

	if (smb2_auth_anonymous(a) || smb2_auth_session_key(a, key) < 0)
		return STATUS_LOGON_FAILURE;
	pthread_mutex_lock(&c->mu);
	alg = c->sign_alg;
	dialect = c->dialect;
	pthread_mutex_unlock(&c->mu);
	pthread_mutex_lock(&s->mu);
	/* §3.3.5.5.3: a binding proves the session's own user */
	same = !strcmp(s->user, smb2_auth_user(a)) && !s->dead;
	err = same ? smb2_sign_key_derive(&ch->sign, dialect, alg, key,
					  sizeof(key), ch->preauth)
		   : 0;
	if (same && !err && ch->conn == c)
		ch->valid = true;
	pthread_mutex_unlock(&s->mu);
	OPENSSL_cleanse(key, sizeof(key));
	if (!same)
		return STATUS_ACCESS_DENIED;
	if (err)
		return STATUS_INTERNAL_ERROR;
	return ch->valid ? STATUS_SUCCESS : STATUS_USER_SESSION_DELETED;
}

uint32_t smb2_bind_setup(struct smb2_work *w, const struct smb2_buf *token,
			 size_t *outlen)
{
	struct smb2_session *s = w->sess;
	struct smb2_auth *a;
	struct smb2_chan *ch;
	uint32_t st;
	int ret;

	if (!s)
		return (w->flags & SMB2_FLAGS_SIGNED)
			       ? STATUS_USER_SESSION_DELETED
			       : STATUS_INVALID_PARAMETER;
	/* Every answer is signed, refusals too (the request was, with the
	 * session's key): Session.SigningKey, but Channel.SigningKey for
	 * the last (§3.3.4.1.1). */
	w->sign = (w->flags & SMB2_FLAGS_SIGNED) != 0;
	st = bind_check(w, s);
	if (st != STATUS_SUCCESS)
		return st;
	ch = bind_chan(w, s, &st);
	if (!ch)
		return st;
	pthread_mutex_lock(&s->mu);
	if (ch->setup_busy || !ch->conn) {
		pthread_mutex_unlock(&s->mu);
		smb2_chan_put(ch);
		return STATUS_REQUEST_NOT_ACCEPTED;
	}
	if (!ch->auth)
		ch->auth = smb2_auth_new(smb2_auth_config());
	a = ch->auth;
	ch->setup_busy = a != NULL;
	if (w->conn->dialect == SMB2_DIALECT_0311) {
		struct iovec iov = { .iov_base = w->msg.base + w->off,
				     .iov_len = w->cmd_len };

		(void)smb2_preauth_update(ch->preauth, &iov, 1);
	}
	pthread_mutex_unlock(&s->mu);
	if (!a) {
		bind_fail(s, ch);
		smb2_chan_put(ch);
		return STATUS_INSUFFICIENT_RESOURCES;
	}
	ret = smb2_auth_step(a, token->base, token->len,
			     w->rsp.base + w->rsp.pos, sb_remaining(&w->rsp),
			     outlen);
	if (ret == SMB2_AUTH_MORE) {
		pthread_mutex_lock(&s->mu);
		ch->setup_busy = false;
		pthread_mutex_unlock(&s->mu);
		w->bind_chan = ch; /* the response goes into its hash */
		return STATUS_MORE_PROCESSING_REQUIRED;
	}
	st = ret == 0 ? bind_done(w, s, ch, a)
		      : ret == -ENOMEM || ret == -EIO || ret == -ENOBUFS
			? STATUS_INSUFFICIENT_RESOURCES
			: ret == -EINVAL ? STATUS_INVALID_PARAMETER
					 : STATUS_LOGON_FAILURE;
	pthread_mutex_lock(&s->mu);
	smb2_auth_free(ch->auth);
	ch->auth = NULL;
	ch->setup_busy = false;
	pthread_mutex_unlock(&s->mu);
	if (st != STATUS_SUCCESS) {
		bind_fail(s, ch);
		smb2_chan_put(ch);
		if (st == STATUS_LOGON_FAILURE)
			w->delay_ms = SMB2_LOGON_DELAY_MS;
		return st;
	}
	log_msg(LL_DEBUG, "smb2: session %016llx bound to another connection",
		(unsigned long long)s->id);
	smb2_chan_put(w->chan);
	w->chan = ch; /* the caller's reference: its key signs the answer */
	return STATUS_SUCCESS;
}
