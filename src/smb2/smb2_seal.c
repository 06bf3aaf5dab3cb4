// SPDX-License-Identifier: MIT
/* Encryption in the engine (smb2_seal.h). */
#include "smb2/smb2_seal.h"

#include <errno.h>
#include <string.h>

#include "core/log.h"
#include "smb2/smb2_session.h"

bool smb2_session_seals(struct smb2_session *s)
{
	bool on;

	pthread_mutex_lock(&s->mu);
	on = s->have_keys && s->keys.cipher != SMB2_CIPHER_NONE &&
	     s->state == SMB2_SESS_VALID && !s->dead && !s->anonymous;
	pthread_mutex_unlock(&s->mu);
	return on;
}

struct smb2_session *smb2_request_decrypt(struct smb2_conn *c, uint8_t *msg,
					  size_t len)
{
	struct smb2_session *s;
	enum smb2_cipher cipher;
	uint64_t id;

	pthread_mutex_lock(&c->mu);
	cipher = c->negotiated ? c->cipher : SMB2_CIPHER_NONE;
	pthread_mutex_unlock(&c->mu);
	if (cipher == SMB2_CIPHER_NONE || smb2_transform_parse(msg, len, &id))
		return NULL;
	s = smb2_session_find(c, id);
	if (!s)
		return NULL;
	/* Keys are derived once, before the session is valid, and wiped
	 * only when it is freed: the reference keeps them. */
	if (!smb2_session_seals(s) ||
	    smb2_decrypt(&s->keys.dec, msg, len) < 0) {
		smb2_session_put(s);
		return NULL;
	}
	atomic_store_explicit(&s->client_seals, true, memory_order_relaxed);
	atomic_fetch_add_explicit(&smb2_n_sealed_bytes,
				  len - SMB2_TRANSFORM_LEN,
				  memory_order_relaxed);
	return s;
}

int smb2_reply_seal(struct req *r, struct smb2_session *s)
{
	struct payload *pl = &r->reply.payload;
	struct iovec iov[REQ_MAX_IOV];
	uint8_t th[SMB2_TRANSFORM_LEN], *p;
	int n, err;

	/* The bytes must be in memory to be encrypted: a READ's file range
	 * is read into a buffer, never sent as it lies. */
	if (pl->kind == PAYLOAD_FILE) {
		err = payload_fill(pl);
		if (err < 0)
			return err;
	}
	/* SMB pads nothing after a payload, and nothing is in front yet. */
	if (r->reply.pad || r->reply.head_len)
		return -EINVAL;
	n = req_reply_iov(r, iov);
	err = smb2_encrypt(&s->keys.enc, s->id, iov, n, th);
	if (err < 0) {
		log_ratelimited(LL_WARN, "smb2: cannot encrypt a message (%d)",
				err);
		return err;
	}
	p = req_reply_prepend(r, sizeof(th));
	if (!p)
		return -ENOSPC;
	memcpy(p, th, sizeof(th));
	atomic_fetch_add_explicit(&smb2_n_sealed_bytes,
				  req_reply_len(r) - sizeof(th),
				  memory_order_relaxed);
	return 0;
}
