// SPDX-License-Identifier: MIT
/* Signing in the engine (smb2_sign.h). */
#include "smb2/smb2_sign.h"

#include <string.h>

#include "core/log.h"
#include "core/stats.h"

/* Is the session's signing in force: set up, with keys? */
static bool session_signs(struct smb2_session *s, bool *required)
{
	bool on;

	pthread_mutex_lock(&s->mu);
	on = s->have_keys && s->state == SMB2_SESS_VALID && !s->dead;
	*required = s->signing_required;
	pthread_mutex_unlock(&s->mu);
	return on;
}

/*
 * The key of the command's session on its connection (§3.3.4.1.1,
 * §3.3.5.2.4): a bound channel's own (w->chan), else Session.SigningKey
 * (a binding's steps until its last answer, which its new channel's key
 * signs).
 */
static const struct smb2_sign_key *sign_key(const struct smb2_work *w)
{
	return w->chan ? &w->chan->sign : &w->sess->keys.sign;
}

uint32_t smb2_sign_check_request(struct smb2_work *w)
{
	struct smb2_session *s = w->sess;
	struct iovec iov;
	bool required;

	/* An encrypted request was authenticated by its cipher's tag
	 * (§3.3.5.2.4). */
	if (w->encrypted || !s || !session_signs(s, &required))
		return STATUS_SUCCESS;
	if (!(w->flags & SMB2_FLAGS_SIGNED))
		return required ? STATUS_ACCESS_DENIED : STATUS_SUCCESS;
	iov.iov_base = w->msg.base + w->off;
	iov.iov_len = w->cmd_len;
	if (!smb2_verify(sign_key(w), w->message_id, false,
			 w->command == SMB2_CANCEL, &iov, 1)) {
		log_ratelimited(LL_INFO, "smb2: a request with a bad "
				"signature refused");
		return STATUS_ACCESS_DENIED;
	}
	atomic_fetch_add_explicit(&smb2_n_signed_bytes, iov.iov_len,
				  memory_order_relaxed);
	return STATUS_SUCCESS;
}

bool smb2_sign_wanted(const struct smb2_work *w)
{
	bool required;

	if (!w->sess || !session_signs(w->sess, &required))
		return false;
	return required || (w->flags & SMB2_FLAGS_SIGNED);
}

void smb2_sign_response(struct smb2_work *w)
{
	struct smb2_session *s = w->sess;
	struct payload *pl = &w->req->reply.payload;
	struct iovec iov[3];
	uint8_t *h = w->rsp.base;
	uint8_t sig[SMB2_SIG_SIZE];
	int n = 0;

	if (!s)
		return;
	put_le32(h + SMB2_HDR_FLAGS,
		 get_le32(h + SMB2_HDR_FLAGS) | SMB2_FLAGS_SIGNED);
	iov[n].iov_base = h;
	iov[n++].iov_len = w->rsp.pos;
	/* A READ's data ends the last response: signed with it. */
	if (!w->next_command && pl->kind != PAYLOAD_NONE) {
		if (payload_fill(pl) < 0) {
			req_reply_drop_payload(w->req);
		} else if (pl->len) {
			iov[n].iov_base = (void *)pl->data;
			iov[n++].iov_len = pl->len;
		}
	}
	if (smb2_sign(sign_key(w), w->message_id, true, false, iov, n,
		      sig) < 0) {
		log_ratelimited(LL_WARN, "smb2: cannot sign a response");
		return;
	}
	memcpy(h + SMB2_HDR_SIGNATURE, sig, SMB2_SIG_SIZE);
	while (n--)
		atomic_fetch_add_explicit(&smb2_n_signed_bytes,
					  iov[n].iov_len, memory_order_relaxed);
}
