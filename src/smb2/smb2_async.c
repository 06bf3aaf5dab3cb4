// SPDX-License-Identifier: MIT
/*
 * Asynchronous operations (MS-SMB2 §3.3.4.2, §3.3.4.3, §3.3.5.16): a
 * command that may wait indefinitely (a blocking LOCK, CHANGE_NOTIFY)
 * answers STATUS_PENDING at once, in an interim response carrying a new
 * AsyncId and the credits, and its final response leaves later as a
 * message of its own (transport_msg_new) with that AsyncId and no
 * credits. No thread waits meanwhile: what completes it is a CANCEL, the
 * close of its open, a timer (a lock retried), or the connection going.
 *
 * Lifetime. An operation is on its connection's list (conn.mu) from
 * smb2_async_start() until it completes; it holds references on the
 * transport connection, the session (the final response is signed with
 * its key) and the open. Whoever moves @state from PENDING to DONE sends
 * the final response and unlinks it; references (the list's, an armed
 * timer's, a caller's) free it at the last put.
 */
#include "smb2/smb2_async.h"

#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "smb2/smb2_chan.h"
#include "smb2/smb2_open.h"
#include "smb2/smb2_seal.h"
#include "smb2/smb2_session.h"
#include "transport/transport.h"

void smb2_async_get(struct smb2_async *a)
{
	atomic_fetch_add(&a->refs, 1);
}

void smb2_async_put(struct smb2_async *a)
{
	if (!a || atomic_fetch_sub(&a->refs, 1) != 1)
		return;
	if (a->ops && a->ops->release)
		a->ops->release(a);
	smb2_open_put(a->open);
	smb2_chan_put(a->chan);
	smb2_session_put(a->sess);
	transport_conn_put(a->tconn);
	free(a->priv);
	free(a);
}

struct smb2_async *smb2_async_start(struct smb2_work *w, struct smb2_open *o,
				    const struct smb2_async_ops *ops,
				    void *priv)
{
	struct smb2_conn *c = w->conn;
	struct smb2_async *a;

	/* Only the last command of a compound may go asynchronous: the
	 * responses after it would have to wait for it. */
	if (w->next_command)
		return NULL;
	a = calloc(1, sizeof(*a));
	if (!a)
		return NULL;
	pthread_mutex_lock(&c->mu);
	if (c->closing || c->nasync >= SMB2_MAX_ASYNC_PER_CONN) {
		pthread_mutex_unlock(&c->mu);
		free(a);
		return NULL;
	}
	a->id = ++c->next_async_id;
	a->next = c->asyncs;
	c->asyncs = a;
	c->nasync++;
	pthread_mutex_unlock(&c->mu);
	atomic_init(&a->refs, 1); /* the list's */
	atomic_init(&a->state, SMB2_ASYNC_PENDING);
	a->conn = c;
	a->tconn = w->req->conn;
	transport_conn_get(a->tconn);
	a->command = w->command;
	a->message_id = w->message_id;
	a->credit_charge = w->credit_charge;
	a->session_id = w->session_id;
	a->sign = w->sign;
	a->seal = w->seal != NULL;
	a->sess = w->sess;
	smb2_session_get(a->sess);
	a->chan = w->chan;
	if (a->chan)
		smb2_chan_get(a->chan);
	a->open = o;
	smb2_open_get(o);
	a->ops = ops;
	a->priv = priv;
	w->async_id = a->id;
	return a;
}

/* Take @a off its connection's list; true when this call did. */
static bool list_unlink(struct smb2_async *a)
{
	struct smb2_conn *c = a->conn;
	struct smb2_async **pp;
	bool found = false;

	pthread_mutex_lock(&c->mu);
	for (pp = &c->asyncs; *pp; pp = &(*pp)->next) {
		if (*pp == a) {
			*pp = a->next;
			c->nasync--;
			found = true;
			break;
		}
	}
	pthread_mutex_unlock(&c->mu);
	return found;
}

/** smb2_msg_start() - see smb2_int.h. */
struct req *smb2_msg_start(struct conn *tconn, size_t len, uint16_t cmd,
			   uint32_t status, uint32_t flags, uint64_t mid,
			   uint8_t **hdr)
{
	struct req *m = transport_msg_new(tconn);
	uint8_t *p;

	if (!m)
		return NULL; /* the connection is gone */
	p = req_reply_start(m, len);
	if (!p) {
		transport_msg_free(m);
		return NULL;
	}
	memset(p, 0, len);
	put_le32(p + SMB2_HDR_PROTOCOL, SMB2_PROTOCOL_ID);
	put_le16(p + SMB2_HDR_STRUCTURE_SIZE, SMB2_HDR_LEN);
	put_le32(p + SMB2_HDR_STATUS, status);
	put_le16(p + SMB2_HDR_COMMAND, cmd);
	put_le32(p + SMB2_HDR_FLAGS, flags);
	put_le64(p + SMB2_HDR_MESSAGE_ID, mid);
	req_reply_used(m, len);
	*hdr = p;
	return m;
}

/* Build and send the final response of @a (§3.3.4.3, §3.3.4.4). */
static void final_send(struct smb2_async *a, uint32_t status,
		       const uint8_t *body, size_t len)
{
	struct smb2_session *s = a->sess;
	uint8_t *p, sig[SMB2_SIG_SIZE];
	struct req *m;
	size_t n;

	if (!body) {
		/* The ERROR response (§2.2.2): 9 bytes. */
		static const uint8_t err[9] = { SMB2_ERROR_STRUCTURE_SIZE };

		body = err;
		len = sizeof(err);
	}
	n = SMB2_HDR_LEN + len;
	m = smb2_msg_start(a->tconn, n, a->command, status,
			   SMB2_FLAGS_SERVER_TO_REDIR | SMB2_FLAGS_ASYNC_COMMAND,
			   a->message_id, &p);
	if (!m)
		return; /* the connection is gone: nobody to answer */
	/* The header matches the request's but for the credits granted:
	 * none, they went with the interim response (§3.3.4.3). A zero
	 * charge here sends impacket's window back onto a used MessageId. */
	put_le16(p + SMB2_HDR_CREDIT_CHARGE, a->credit_charge);
	put_le16(p + SMB2_HDR_CREDIT, 0);
	put_le64(p + SMB2_HDR_ASYNC_ID, a->id);
	put_le64(p + SMB2_HDR_SESSION_ID, a->session_id);
	memcpy(p + SMB2_HDR_LEN, body, len);
	if (a->seal) {
		/* It answers an encrypted request (§3.3.4.1.4): encrypted,
		 * not signed. */
		if (smb2_reply_seal(m, s) < 0) {
			transport_msg_free(m);
			transport_conn_shutdown(a->tconn);
			return;
		}
	} else if (a->sign && s->have_keys) {
		struct iovec iov = { .iov_base = p, .iov_len = n };

		put_le32(p + SMB2_HDR_FLAGS,
			 get_le32(p + SMB2_HDR_FLAGS) | SMB2_FLAGS_SIGNED);
		if (smb2_sign(a->chan ? &a->chan->sign : &s->keys.sign,
			      a->message_id, true, false, &iov, 1, sig) == 0)
			memcpy(p + SMB2_HDR_SIGNATURE, sig, SMB2_SIG_SIZE);
	}
	(void)transport_msg_send(m);
}

bool smb2_async_complete(struct smb2_async *a, uint32_t status,
			 const uint8_t *body, size_t len)
{
	int pending = SMB2_ASYNC_PENDING;

	if (!atomic_compare_exchange_strong(&a->state, &pending,
					    SMB2_ASYNC_DONE))
		return false;
	final_send(a, status, body, len);
	if (list_unlink(a))
		smb2_async_put(a);
	return true;
}

/* The operations of @c that @match selects, one at a time, referenced. */
static struct smb2_async *find_first(struct smb2_conn *c,
				     bool (*match)(struct smb2_async *,
						   const void *),
				     const void *arg)
{
	struct smb2_async *a;

	pthread_mutex_lock(&c->mu);
	for (a = c->asyncs; a; a = a->next)
		if (atomic_load(&a->state) == SMB2_ASYNC_PENDING &&
		    match(a, arg))
			break;
	if (a)
		smb2_async_get(a);
	pthread_mutex_unlock(&c->mu);
	return a;
}

static bool match_id(struct smb2_async *a, const void *arg)
{
	return a->id == *(const uint64_t *)arg;
}

static bool match_msgid(struct smb2_async *a, const void *arg)
{
	return a->message_id == *(const uint64_t *)arg;
}

static bool match_open(struct smb2_async *a, const void *arg)
{
	return a->open == arg;
}

static bool match_session(struct smb2_async *a, const void *arg)
{
	return a->sess == arg;
}

static bool match_any(struct smb2_async *a, const void *arg)
{
	(void)a;
	(void)arg;
	return true;
}

/* Let @a's command end itself for @why (its ops), or end it here. */
static void async_end(struct smb2_async *a, enum smb2_async_why why)
{
	uint32_t st = why == SMB2_ASYNC_CANCEL ? STATUS_CANCELLED
		      : a->command == SMB2_CHANGE_NOTIFY ? STATUS_NOTIFY_CLEANUP
							 : STATUS_CANCELLED;

	if (a->ops && a->ops->stop) {
		uint32_t over = a->ops->stop(a, why);

		if (over)
			st = over;
	}
	(void)smb2_async_complete(a, st, NULL, 0);
}

void smb2_cancel(struct smb2_work *w)
{
	struct smb2_async *a;

	/* §3.3.5.16: by AsyncId once it went async; by MessageId for one
	 * still being processed (which, here, answers on its own). */
	if (w->flags & SMB2_FLAGS_ASYNC_COMMAND)
		a = find_first(w->conn, match_id, &w->async_id);
	else
		a = find_first(w->conn, match_msgid, &w->message_id);
	if (!a)
		return;
	/* Only the session that started it may cancel it. */
	if (a->session_id == w->session_id)
		async_end(a, SMB2_ASYNC_CANCEL);
	/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): find_first's reference */
	smb2_async_put(a);
}

void smb2_async_end_open(struct smb2_conn *c, struct smb2_open *o)
{
	struct smb2_async *a;

	while ((a = find_first(c, match_open, o)) != NULL) {
		async_end(a, SMB2_ASYNC_CLOSED);
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): find_first's */
		smb2_async_put(a);
	}
}

void smb2_async_end_session(struct smb2_conn *c, struct smb2_session *s)
{
	struct smb2_async *a;

	while ((a = find_first(c, match_session, s)) != NULL) {
		async_end(a, SMB2_ASYNC_CLOSED);
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): find_first's */
		smb2_async_put(a);
	}
}

void smb2_async_end_all(struct smb2_conn *c)
{
	struct smb2_async *a;

	while ((a = find_first(c, match_any, NULL)) != NULL) {
		async_end(a, SMB2_ASYNC_GONE);
		/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): find_first's */
		smb2_async_put(a);
	}
}
