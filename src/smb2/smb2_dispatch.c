// SPDX-License-Identifier: MIT
/*
 * One SMB2 message (MS-SMB2 §3.3.5.2): the SMB1 upgrade, the header of
 * each command of a compound (§3.3.5.2.7), credits (§3.3.5.2.3), the
 * session and tree a command needs (§3.3.5.2.9, §3.3.5.2.11), signature
 * verification (§3.3.5.2.4), dispatch by table, and the responses, built
 * in the request's reply chain: one response after the other, each but
 * the last padded to 8 bytes with its NextCommand set, each signed on its
 * own (§3.3.4.1.1), so that compounds of any length never copy a
 * response once written.
 *
 * What a protocol violation gets: a malformed header, a MessageId outside
 * the credit window or reused, a NextCommand that does not point forward
 * inside the message: the connection is closed (no answer can be matched
 * to such a request). Everything else is a status in a valid response.
 */
#include "smb2/smb2_int.h"

#include <string.h>

#include "core/log.h"
#include "core/stats.h"
#include "smb2/smb2_chan.h"
#include "smb2/smb2_durable.h"
#include "smb2/smb2_seal.h"
#include "smb2/smb2_session.h"
#include "smb2/smb2_sign.h"
#include "transport/transport.h"

/* Room for the first response before it asks for more. */
#define RSP_FIRST 4096

const struct smb2_cmd smb2_cmds[SMB2_NCOMMANDS] = {
	[SMB2_NEGOTIATE] = {
		.name = "NEGOTIATE",
		.inline_ok = true,
		.structure_size = 36,
		.rsp_max = 65 + 512 + 256,
		.handle = smb2_cmd_negotiate,
	},
	[SMB2_SESSION_SETUP] = {
		.name = "SESSION_SETUP",
		.inline_ok = true,
		.structure_size = 25,
		.rsp_max = 9 + 1024,
		.handle = smb2_cmd_session_setup,
	},
	[SMB2_LOGOFF] = {
		.name = "LOGOFF",
		.structure_size = 4,
		.needs_session = true,
		.rsp_max = 4,
		.handle = smb2_cmd_logoff,
	},
	[SMB2_TREE_CONNECT] = {
		.name = "TREE_CONNECT",
		.inline_ok = true,
		.structure_size = 9,
		.needs_session = true,
		.rsp_max = 16,
		.handle = smb2_cmd_tree_connect,
	},
	[SMB2_TREE_DISCONNECT] = {
		.name = "TREE_DISCONNECT",
		.structure_size = 4,
		.needs_session = true,
		.needs_tree = true,
		.rsp_max = 4,
		.handle = smb2_cmd_tree_disconnect,
	},
	[SMB2_CREATE] = {
		.name = "CREATE",
		/* an open of what exists, as it is (create_on_loop) */
		.inline_ok = true,
		.inline_body = smb2_create_inline_body,
		.structure_size = 57,
		.needs_session = true,
		.needs_tree = true,
		.uses_fid = true,
		.rsp_max = 88 + 8 + 2 * 40,
		.handle = smb2_cmd_create,
	},
	[SMB2_CLOSE] = {
		.name = "CLOSE",
		.inline_ok = true, /* but one that deletes (smb2_cmd_close) */
		.structure_size = 24,
		.needs_session = true,
		.needs_tree = true,
		.uses_fid = true,
		.rsp_max = 60,
		.handle = smb2_cmd_close,
	},
	[SMB2_FLUSH] = {
		.name = "FLUSH",
		.structure_size = 24,
		.needs_session = true,
		.needs_tree = true,
		.uses_fid = true,
		.rsp_max = 4,
		.handle = smb2_cmd_flush,
	},
	[SMB2_READ] = {
		.name = "READ",
		.structure_size = 49,
		.needs_session = true,
		.needs_tree = true,
		.uses_fid = true,
		.inline_ok = true,
		.rsp_max = 16,
		.handle = smb2_cmd_read,
		.out_len_at = 4,
	},
	[SMB2_WRITE] = {
		.name = "WRITE",
		.structure_size = 49,
		.needs_session = true,
		.needs_tree = true,
		.uses_fid = true,
		.rsp_max = 16,
		.handle = smb2_cmd_write,
		.in_len_at = 4,
	},
	[SMB2_LOCK] = {
		.name = "LOCK",
		.structure_size = 48,
		.needs_session = true,
		.needs_tree = true,
		.uses_fid = true,
		.inline_ok = true,
		.rsp_max = 4,
		.handle = smb2_cmd_lock,
	},
	[SMB2_IOCTL] = {
		.name = "IOCTL",
		.structure_size = 57,
		.needs_session = true,
		.needs_tree = true,
		.uses_fid = true,
		.rsp_max = 48 + 32,
		/* its charge covers four counts: smb2_ioctl.c checks it */
		.handle = smb2_cmd_ioctl,
	},
	[SMB2_CANCEL] = {
		.name = "CANCEL",
		.structure_size = 4,
	},
	[SMB2_ECHO] = {
		.name = "ECHO",
		.inline_ok = true,
		.structure_size = 4,
		.rsp_max = 4,
		.handle = smb2_cmd_echo,
	},
	[SMB2_QUERY_DIRECTORY] = {
		.name = "QUERY_DIRECTORY",
		.structure_size = 33,
		.needs_session = true,
		.needs_tree = true,
		.uses_fid = true,
		.rsp_max = 8,
		.handle = smb2_cmd_query_directory,
		.out_len_at = 28,
	},
	[SMB2_CHANGE_NOTIFY] = {
		.name = "CHANGE_NOTIFY",
		.structure_size = 32,
		.needs_session = true,
		.needs_tree = true,
		.uses_fid = true,
		.inline_ok = true,
		.rsp_max = 8,
		.handle = smb2_cmd_change_notify,
		.out_len_at = 4,
	},
	[SMB2_QUERY_INFO] = {
		.name = "QUERY_INFO",
		.structure_size = 41,
		.needs_session = true,
		.needs_tree = true,
		.uses_fid = true,
		.inline_ok = true,
		.rsp_max = 8,
		.handle = smb2_cmd_query_info,
		.in_len_at = 12,
		.out_len_at = 4,
	},
	[SMB2_SET_INFO] = {
		.name = "SET_INFO",
		.structure_size = 33,
		.needs_session = true,
		.needs_tree = true,
		.uses_fid = true,
		.rsp_max = 2,
		.handle = smb2_cmd_set_info,
		.in_len_at = 4,
	},
	[SMB2_OPLOCK_BREAK] = {
		.name = "OPLOCK_BREAK",
		.structure_size = 24,
		.needs_session = true,
		.needs_tree = true,
		.uses_fid = true,
		.rsp_max = 24,
		.handle = smb2_cmd_oplock_break,
	},
};

/*
 * The header of the command at w->off (§2.2.1.2), and where the next one
 * starts. False: not a header this server can answer (the connection
 * closes).
 */
static bool header_parse(struct smb2_work *w)
{
	struct smb2_buf h;
	uint32_t proto, status;
	uint16_t ssize;
	size_t left = w->msg.len - w->off;

	if (left < SMB2_HDR_LEN || !sb_range(&w->msg, w->off, left, &h))
		return false;
	if (!sb_get_u32(&h, &proto) || proto != SMB2_PROTOCOL_ID ||
	    !sb_get_u16(&h, &ssize) || ssize != SMB2_HDR_LEN ||
	    !sb_get_u16(&h, &w->credit_charge) || !sb_get_u32(&h, &status) ||
	    !sb_get_u16(&h, &w->command) ||
	    !sb_get_u16(&h, &w->credit_request) ||
	    !sb_get_u32(&h, &w->flags) || !sb_get_u32(&h, &w->next_command) ||
	    !sb_get_u64(&h, &w->message_id))
		return false;
	if (w->flags & SMB2_FLAGS_ASYNC_COMMAND) {
		if (!sb_get_u64(&h, &w->async_id))
			return false;
		w->tree_id = 0;
		w->process_id = 0;
	} else {
		if (!sb_get_u32(&h, &w->process_id) ||
		    !sb_get_u32(&h, &w->tree_id))
			return false;
		w->async_id = 0;
	}
	if (!sb_get_u64(&h, &w->session_id))
		return false;
	/* A response, or a command that points backwards or outside: the
	 * stream cannot be trusted any more. */
	if (w->flags & SMB2_FLAGS_SERVER_TO_REDIR)
		return false;
	if (w->next_command) {
		if (w->next_command & 7 || w->next_command < SMB2_HDR_LEN ||
		    w->next_command > left - SMB2_HDR_LEN)
			return false;
		w->cmd_len = w->next_command;
	} else {
		w->cmd_len = left;
	}
	return true;
}

/*
 * Open a new reply segment of at least @cap bytes: the open one ends at
 * the responses committed to it (w->seg_used).
 */
static bool seg_new(struct smb2_work *w, size_t cap)
{
	uint8_t *b;

	if (cap < RSP_FIRST)
		cap = RSP_FIRST;
	b = req_reply_extend(w->req, w->seg_used, cap);
	if (!b)
		return false;
	w->seg_base = b;
	w->seg_cap = cap;
	w->seg_used = 0;
	return true;
}

bool smb2_rsp_room(struct smb2_work *w, size_t n)
{
	size_t done = w->rsp.pos;
	uint8_t *old = w->rsp.base;

	if (sb_remaining(&w->rsp) >= n)
		return true;
	/* One response stays contiguous (it is signed as one piece): what
	 * it has so far moves to the new segment with it. */
	if (!seg_new(w, done + n + 8))
		return false;
	memmove(w->seg_base, old, done);
	sb_init(&w->rsp, w->seg_base, w->seg_cap);
	w->rsp.pos = done;
	return true;
}

/*
 * Begin the response of the current command after the responses already
 * committed: its header's 64 bytes are reserved (rsp_finish writes them
 * once the status is known) and the body follows.
 */
static bool rsp_begin(struct smb2_work *w, uint32_t body_max)
{
	size_t need = SMB2_HDR_LEN + (size_t)body_max + 8;

	if (w->seg_cap - w->seg_used < need && !seg_new(w, need))
		return false;
	sb_init(&w->rsp, w->seg_base + w->seg_used, w->seg_cap - w->seg_used);
	return sb_put_zero(&w->rsp, SMB2_HDR_LEN);
}

/*
 * Whether a command after the current one will be answered: CANCEL never
 * is, so a compound that ends in CANCELs ends its responses before them
 * (a NextCommand pointing past the last response would send the client
 * looking for one). A malformed rest counts as answered: header_parse()
 * closes the connection when it gets there.
 */
static bool more_answers(const struct smb2_work *w)
{
	size_t off = w->off + w->cmd_len;
	unsigned int i;

	for (i = w->index + 1; i < SMB2_MAX_COMPOUND; i++) {
		uint32_t next;

		if (off > w->msg.len || w->msg.len - off < SMB2_HDR_LEN)
			return true;
		if (get_le16(w->msg.base + off + SMB2_HDR_COMMAND) !=
		    SMB2_CANCEL)
			return true;
		next = get_le32(w->msg.base + off + SMB2_HDR_NEXT_COMMAND);
		if (!next)
			return false;
		off += next;
	}
	return true;
}

/*
 * The current response is complete: pad it to 8 bytes and point its
 * NextCommand past the padding when another response follows (MS-SMB2
 * §3.3.4.1.3), sign it, and commit it to the segment. The last response
 * of a compounded answer is padded too, as Windows and Samba pad it
 * (smbtorture compound.compound-padding); a lone one is not.
 */
static bool rsp_commit(struct smb2_work *w, bool more)
{
	if (more || w->answered) {
		if (w->rsp.pos & 7 && !smb2_rsp_room(w, 8))
			return false;
		if (!sb_pad_to(&w->rsp, 8, true))
			return false;
	}
	if (more)
		put_le32(w->rsp.base + SMB2_HDR_NEXT_COMMAND,
			 (uint32_t)w->rsp.pos);
	/* An encrypted response is not signed: the cipher's tag
	 * authenticates it (§3.3.4.1.1). */
	if (w->sign && !w->seal)
		smb2_sign_response(w);
	/* After signing: a binding's signed answers enter its hash as
	 * sent (the others are not signed). */
	smb2_preauth_response(w);
	w->seg_used += w->rsp.pos;
	return true;
}

/* The ERROR response body (§2.2.2): 8 bytes and the error data, at
 * least one byte. */
static bool rsp_error_body(struct smb2_work *w)
{
	w->rsp.pos = SMB2_HDR_LEN;
	if (!sb_put_u16(&w->rsp, SMB2_ERROR_STRUCTURE_SIZE) ||
	    !sb_put_u8(&w->rsp, 0) || !sb_put_u8(&w->rsp, 0) ||
	    !sb_put_u32(&w->rsp, w->err_data_len))
		return false;
	if (!w->err_data_len)
		return sb_put_u8(&w->rsp, 0);
	return sb_put_bytes(&w->rsp, w->err_data, w->err_data_len);
}

void smb2_error_data_u32(struct smb2_work *w, uint32_t v)
{
	put_le32(w->err_data, v);
	w->err_data_len = 4;
}

/* Statuses whose response carries the command's own body (§3.3.4.4). */
static bool status_has_body(uint16_t cmd, uint32_t status)
{
	if (status == STATUS_SUCCESS)
		return true;
	switch (cmd) {
	case SMB2_SESSION_SETUP:
		return status == STATUS_MORE_PROCESSING_REQUIRED;
	case SMB2_READ:
	case SMB2_QUERY_INFO:
	case SMB2_IOCTL:
	case SMB2_QUERY_DIRECTORY:
		return status == STATUS_BUFFER_OVERFLOW;
	case SMB2_CHANGE_NOTIFY:
		return status == STATUS_NOTIFY_ENUM_DIR;
	default:
		return false;
	}
}

/*
 * smb2_rsp_header() - write the response header of the current command
 * (w->rsp starts with it) with @status; a status without a body of its
 * own makes the body an ERROR response. Grants credits.
 */
void smb2_rsp_header(struct smb2_work *w, uint32_t status)
{
	uint8_t *h = w->rsp.base;
	uint32_t flags = SMB2_FLAGS_SERVER_TO_REDIR;

	if (!status_has_body(w->command, status) && !w->keep_body)
		rsp_error_body(w);
	w->keep_body = false;
	if (w->flags & SMB2_FLAGS_RELATED_OPERATIONS)
		flags |= SMB2_FLAGS_RELATED_OPERATIONS;
	w->err_data_len = 0;
	/* After an interim response, which granted them, none (§3.3.4.3). */
	w->granted = w->interim_sent ? 0
				     : smb2_credit_grant(w->conn,
							 w->credit_request,
							 w->credit_charge);
	put_le32(h + SMB2_HDR_PROTOCOL, SMB2_PROTOCOL_ID);
	put_le16(h + SMB2_HDR_STRUCTURE_SIZE, SMB2_HDR_LEN);
	put_le16(h + SMB2_HDR_CREDIT_CHARGE, w->credit_charge);
	put_le32(h + SMB2_HDR_STATUS, status);
	put_le16(h + SMB2_HDR_COMMAND, w->command);
	put_le16(h + SMB2_HDR_CREDIT, (uint16_t)w->granted);
	put_le32(h + SMB2_HDR_FLAGS, flags);
	put_le32(h + SMB2_HDR_NEXT_COMMAND, 0);
	put_le64(h + SMB2_HDR_MESSAGE_ID, w->message_id);
	if (status == STATUS_PENDING && w->async_id) {
		/* The interim response of an operation gone asynchronous
		 * (§3.3.4.2): its AsyncId, never signed. */
		put_le32(h + SMB2_HDR_FLAGS, flags | SMB2_FLAGS_ASYNC_COMMAND);
		put_le64(h + SMB2_HDR_ASYNC_ID, w->async_id);
		w->sign = false;
	} else if (w->interim_sent) {
		/* The final response of a parked command (§3.3.4.3). */
		put_le32(h + SMB2_HDR_FLAGS, flags | SMB2_FLAGS_ASYNC_COMMAND);
		put_le64(h + SMB2_HDR_ASYNC_ID, w->async_id);
	} else {
		put_le32(h + SMB2_HDR_PROCESS_ID, w->process_id);
		put_le32(h + SMB2_HDR_TREE_ID, w->tree_id);
	}
	put_le64(h + SMB2_HDR_SESSION_ID, w->session_id);
	memset(h + SMB2_HDR_SIGNATURE, 0, SMB2_SIGNATURE_LEN);
	if (status == STATUS_USER_SESSION_DELETED &&
	    (w->flags & SMB2_FLAGS_SIGNED) && !w->sign) {
		/* No session, no key: a signed request's answer echoes its
		 * flag and signature, which clients accept for this status
		 * (as Samba and Windows send it). */
		put_le32(h + SMB2_HDR_FLAGS,
			 get_le32(h + SMB2_HDR_FLAGS) | SMB2_FLAGS_SIGNED);
		memcpy(h + SMB2_HDR_SIGNATURE,
		       w->msg.base + w->off + SMB2_HDR_SIGNATURE,
		       SMB2_SIGNATURE_LEN);
	}
	w->last_status = status;
}

/*
 * The session of the command (§3.3.5.2.9), related commands inheriting
 * the previous one's. STATUS_SUCCESS with w->sess set, or the status to
 * answer.
 */
static uint32_t find_session(struct smb2_work *w, const struct smb2_cmd *cmd)
{
	struct smb2_session *s;
	enum smb2_sess_state st;
	bool dead, bound;

	if ((w->flags & SMB2_FLAGS_RELATED_OPERATIONS) && w->index > 0) {
		/* Inherit, and check again that it is still alive. After a
		 * command whose session was not found there is nothing to
		 * inherit; the answer is still signed with the last session
		 * found (as Samba: smbtorture compound.invalid2). */
		if (!w->sess || w->sess_lost)
			return STATUS_INVALID_PARAMETER;
		w->session_id = w->sess->id;
	} else {
		/* A binding SESSION_SETUP names a session of another
		 * connection (§3.3.5.5: the global table). */
		s = !w->session_id ? NULL
		    : w->binding  ? smb2_session_find_any(w->session_id)
				  : smb2_session_find(w->conn, w->session_id);
		w->sess_lost = !s;
		if (!s)
			return STATUS_USER_SESSION_DELETED;
		smb2_session_put(w->sess);
		w->sess = s;
		/* Over a bound channel its key signs, and verifies (a
		 * binding's requests excepted: its channel has no key
		 * yet, §3.3.4.1.1). */
		smb2_chan_put(w->chan);
		w->chan = NULL;
		if (!w->binding) {
			pthread_mutex_lock(&s->mu);
			bound = s->conn != w->conn;
			pthread_mutex_unlock(&s->mu);
			if (bound)
				w->chan = smb2_chan_find(s, w->conn);
		}
	}
	s = w->sess;
	pthread_mutex_lock(&s->mu);
	st = s->state;
	dead = s->dead;
	pthread_mutex_unlock(&s->mu);
	/* Logged off or torn down (a related command after LOGOFF): it is
	 * gone, as if not found, for every command. */
	if (dead)
		return STATUS_USER_SESSION_DELETED;
	if (st == SMB2_SESS_VALID)
		return STATUS_SUCCESS;
	/* ...and SESSION_SETUP continues or renews one (§3.3.5.5) */
	if (w->command == SMB2_LOGOFF || w->command == SMB2_CLOSE ||
	    w->command == SMB2_LOCK || w->command == SMB2_SESSION_SETUP)
		return STATUS_SUCCESS;
	(void)cmd;
	return st == SMB2_SESS_EXPIRED ? STATUS_NETWORK_SESSION_EXPIRED
				       : STATUS_USER_SESSION_DELETED;
}

/*
 * The session whose key signs a refusal: the command's own, or for a
 * related command after one whose session was not found, the last one
 * found.
 */
static bool session_for_refusal(struct smb2_work *w, const struct smb2_cmd *cmd)
{
	uint32_t st = find_session(w, cmd);

	return st == STATUS_SUCCESS ||
	       (st == STATUS_INVALID_PARAMETER && w->sess && w->sess_lost);
}

/* The tree of the command (§3.3.5.2.11). */
static uint32_t find_tree(struct smb2_work *w)
{
	if ((w->flags & SMB2_FLAGS_RELATED_OPERATIONS) && w->index > 0) {
		if (!w->tree || atomic_load(&w->tree->dead))
			return STATUS_NETWORK_NAME_DELETED;
		w->tree_id = w->tree->id;
		return STATUS_SUCCESS;
	}
	smb2_tree_put(w->tree);
	w->tree = smb2_tree_find(w->sess, w->tree_id);
	return w->tree ? STATUS_SUCCESS : STATUS_NETWORK_NAME_DELETED;
}

/*
 * §3.3.5.2.9, §3.3.5.2.11: a session or share that requires encryption
 * takes only encrypted requests (SESSION_SETUP and, for a share, TREE_
 * CONNECT excepted: they come before the client knows), and what it
 * answers leaves encrypted.
 */
static uint32_t check_encrypted(struct smb2_work *w, bool required)
{
	if (!required || w->encrypted)
		return STATUS_SUCCESS;
	if (!w->seal && smb2_session_seals(w->sess)) {
		smb2_session_get(w->sess);
		w->seal = w->sess;
	}
	return STATUS_ACCESS_DENIED;
}

/* Each command's counter slot in `nasd stats` ("smb2", 2, command),
 * plus one (0: not counted). */
static int cmd_slot[SMB2_NCOMMANDS];

atomic_ullong smb2_n_trees, smb2_n_opens, smb2_n_credits,
	smb2_n_signed_bytes, smb2_n_sealed_bytes;

static uint64_t n_sessions(void)
{
	return smb2_session_count();
}

static uint64_t n_trees(void)
{
	return atomic_load_explicit(&smb2_n_trees, memory_order_relaxed);
}

static uint64_t n_opens(void)
{
	return atomic_load_explicit(&smb2_n_opens, memory_order_relaxed);
}

static uint64_t n_credits(void)
{
	return atomic_load_explicit(&smb2_n_credits, memory_order_relaxed);
}

static uint64_t n_signed_bytes(void)
{
	return atomic_load_explicit(&smb2_n_signed_bytes,
				    memory_order_relaxed);
}

static uint64_t n_sealed_bytes(void)
{
	return atomic_load_explicit(&smb2_n_sealed_bytes,
				    memory_order_relaxed);
}

void smb2_stats_init(void)
{
	unsigned int i;

	(void)stats_value_add("smb2_sessions", "SMB sessions set up or being "
			      "set up.", false, n_sessions);
	(void)stats_value_add("smb2_trees", "SMB tree connects.", false,
			      n_trees);
	(void)stats_value_add("smb2_opens", "SMB opens.", false, n_opens);
	(void)stats_value_add("smb2_durable_disconnected_opens", "SMB durable "
			      "opens kept for a client to reconnect.", false,
			      smb2_durable_idle);
	(void)stats_value_add("smb2_credits", "SMB credits clients hold.",
			      false, n_credits);
	(void)stats_value_add("smb2_signed_bytes_total", "SMB message bytes "
			      "signed or verified.", true, n_signed_bytes);
	(void)stats_value_add("smb2_encrypted_bytes_total", "SMB message "
			      "bytes encrypted or decrypted.", true,
			      n_sealed_bytes);

	for (i = 0; i < SMB2_NCOMMANDS; i++)
		if (smb2_cmds[i].name)
			cmd_slot[i] = 1 + stats_slot_add("smb2", 2, i,
							 smb2_cmds[i].name);
}

/* The 32-bit size at @at of @body, 0 when there is none. */
static uint32_t body_len_at(const struct smb2_buf *body, uint8_t at)
{
	if (!at || body->len < (size_t)at + 4)
		return 0;
	return get_le32(body->base + at);
}

/*
 * §3.3.5.2.5: the CreditCharge covers the larger of the data the request
 * carries and the data it asks back, one credit per 64 KiB (0 counts as
 * 1); without multi-credit (2.0.2) neither may pass 64 KiB. A request
 * asking for more than it paid for fails, whatever it is.
 */
static bool charge_covers(const struct smb2_work *w,
			  const struct smb2_cmd *cmd,
			  const struct smb2_buf *body)
{
	uint32_t in = body_len_at(body, cmd->in_len_at);
	uint32_t out = body_len_at(body, cmd->out_len_at);
	uint32_t size = in > out ? in : out;
	uint32_t charge = w->credit_charge ? w->credit_charge : 1;

	if (w->conn->dialect == SMB2_DIALECT_0202)
		return size <= 65536;
	return !size || charge >= (size - 1) / 65536 + 1;
}

/*
 * Run the current command; its response is left built in w->rsp. False:
 * out of memory, or (w->deferred) it must run on a worker.
 */
/*
 * The interim response of a command that waits parked (§3.3.4.2): its
 * own message, STATUS_PENDING with a new AsyncId and the credits, so that
 * the client can go on (and answer the break it waits for) meanwhile.
 * Only for a command alone in its message: one in a compound waits
 * without (the responses before it would have to go first).
 */
static void send_interim(struct smb2_work *w)
{
	struct smb2_conn *c = w->conn;
	struct req *m;
	uint8_t *h;

	/* the body: an ERROR response's 9 bytes */
	m = smb2_msg_start(w->req->conn, SMB2_HDR_LEN + 9, w->command,
			   STATUS_PENDING,
			   SMB2_FLAGS_SERVER_TO_REDIR | SMB2_FLAGS_ASYNC_COMMAND,
			   w->message_id, &h);
	if (!m)
		return;
	pthread_mutex_lock(&c->mu);
	w->async_id = ++c->next_async_id;
	pthread_mutex_unlock(&c->mu);
	put_le16(h + SMB2_HDR_CREDIT_CHARGE, w->credit_charge);
	put_le16(h + SMB2_HDR_CREDIT,
		 smb2_credit_grant(c, w->credit_request, w->credit_charge));
	put_le64(h + SMB2_HDR_ASYNC_ID, w->async_id);
	put_le64(h + SMB2_HDR_SESSION_ID, w->session_id);
	put_le16(h + SMB2_HDR_LEN, SMB2_ERROR_STRUCTURE_SIZE);
	w->interim_sent = true;
	if (w->seal && smb2_reply_seal(m, w->seal) < 0) {
		transport_msg_free(m);
		transport_conn_shutdown(w->req->conn);
		return;
	}
	(void)transport_msg_send(m);
}

static bool run_command(struct smb2_work *w)
{
	const struct smb2_cmd *cmd;
	struct smb2_buf body;
	uint64_t t0 = stats_clock_ns();
	uint16_t ssize;
	uint32_t status;

	cmd = w->command < SMB2_NCOMMANDS ? &smb2_cmds[w->command] : NULL;
	if (w->req->nowait && cmd && cmd->handle && !cmd->inline_ok) {
		w->deferred = true;
		return false;
	}
	/* A large answer to encrypt is the worker's work, not the event
	 * loop's (a 1 MiB READ costs a quarter of a millisecond of AES). */
	if (w->req->nowait && w->encrypted && cmd && cmd->out_len_at &&
	    w->cmd_len >= SMB2_HDR_LEN + (size_t)cmd->out_len_at + 4 &&
	    get_le32(w->msg.base + w->off + SMB2_HDR_LEN + cmd->out_len_at) >
		    SMB2_SEAL_INLINE_MAX) {
		w->deferred = true;
		return false;
	}
	if (!rsp_begin(w, cmd && cmd->rsp_max ? cmd->rsp_max : 16))
		return false;
	w->sign = false;
	if (!cmd || !cmd->name) {
		status = STATUS_INVALID_PARAMETER;
		goto out_refuse;
	}
	/* The body: the bytes after the header, to the next command. */
	if (!sb_range(&w->msg, w->off + SMB2_HDR_LEN,
		      w->cmd_len - SMB2_HDR_LEN, &body) ||
	    !sb_get_u16(&body, &ssize) || ssize != cmd->structure_size) {
		status = STATUS_INVALID_PARAMETER;
		goto out_refuse;
	}
	body.pos = 0;
	/* SESSION_SETUP's Flags: SMB2_SESSION_FLAG_BINDING (§2.2.5) */
	w->binding = w->command == SMB2_SESSION_SETUP && body.len > 2 &&
		     (body.base[2] & SMB2_SESSION_FLAG_BINDING);
	if (w->command != SMB2_NEGOTIATE && !w->conn->negotiated) {
		status = STATUS_INVALID_PARAMETER;
		goto out_finish;
	}
	if (!charge_covers(w, cmd, &body)) {
		status = STATUS_INVALID_PARAMETER;
		goto out_finish;
	}
	/* A SESSION_SETUP for a session set up already (reauthentication)
	 * must be signed as any other request of that session. */
	if (cmd->needs_session || (w->flags & SMB2_FLAGS_SIGNED) ||
	    ((w->command == SMB2_ECHO ||
	      (w->command == SMB2_SESSION_SETUP && !w->binding)) &&
	     w->session_id)) {
		status = find_session(w, cmd);
		if (status == STATUS_INVALID_PARAMETER && w->sess)
			goto out_refuse;
		if (status != STATUS_SUCCESS)
			goto out_finish;
		status = smb2_sign_check_request(w);
		if (status != STATUS_SUCCESS && w->chan &&
		    w->command == SMB2_SESSION_SETUP) {
			/* Over a bound channel, signed with the session's
			 * key rather than the channel's: refused, and the
			 * refusal signed with the key the client holds
			 * (§3.3.4.1.1; smbtorture session.bind_negative_*) */
			smb2_chan_put(w->chan);
			w->chan = NULL;
			w->sign = smb2_sign_check_request(w) == STATUS_SUCCESS;
			status = STATUS_ACCESS_DENIED;
		}
		if (status != STATUS_SUCCESS)
			goto out_finish;
		status = check_encrypted(w, w->command != SMB2_SESSION_SETUP &&
						    w->sess->encrypt_data);
		if (status != STATUS_SUCCESS)
			goto out_finish;
		/* Decided now: the handler may end the session (LOGOFF)
		 * and its response is still signed. */
		w->sign = w->command != SMB2_SESSION_SETUP &&
			  smb2_sign_wanted(w);
	}
	/* §3.3.5.2.7.2: the first command of a compound has nothing to be
	 * related to, and the related commands after it inherit that
	 * (smbtorture compound.invalid1, related9); each answer is still
	 * signed. */
	if (w->flags & SMB2_FLAGS_RELATED_OPERATIONS) {
		if (w->index == 0)
			w->related_bad = true;
		if (w->related_bad) {
			status = STATUS_INVALID_PARAMETER;
			goto out_finish;
		}
	} else {
		w->related_bad = false;
	}
	if (cmd->needs_tree) {
		status = find_tree(w);
		if (status != STATUS_SUCCESS)
			goto out_finish;
		status = check_encrypted(w, w->tree->encrypt);
		if (status != STATUS_SUCCESS)
			goto out_finish;
		/* Every command on a share runs as the tree's (squashed)
		 * user, whichever thread runs it; fail closed. */
		if (!w->tree->ipc && export_cred_apply(&w->tree->acc.cred)) {
			status = STATUS_INTERNAL_ERROR;
			goto out_finish;
		}
		/* A share whose storage is across a network: no command of
		 * it on the event loop (the worker runs it from its start). */
		if (w->req->nowait && !w->tree->ipc &&
		    vfs_export_may_block(w->tree->export->vex)) {
			w->deferred = true;
			return false;
		}
	}
	/* §3.3.5.2.7.2: a related command on a file after a failed CREATE
	 * fails with its status. Windows (smbtorture compound.related6)
	 * and Samba carry only a CREATE's failure down the chain: a READ
	 * still runs after a WRITE was denied. */
	if ((w->flags & SMB2_FLAGS_RELATED_OPERATIONS) && cmd->uses_fid &&
	    w->command != SMB2_CREATE && w->fid_error) {
		status = w->fid_error;
		goto out_finish;
	}
	if (!cmd->handle) {
		status = STATUS_NOT_SUPPORTED;
		goto out_finish;
	}
	w->req->defer = false;
	w->parked = false;
	status = cmd->handle(w, &body);
	if (w->parked) {
		/* It waits for an oplock break: parked, then run again from
		 * its start (its credits are taken, its header decoded). */
		w->deferred = true;
		if (!w->interim_sent && w->index == 0 && !w->next_command)
			send_interim(w);
		return false;
	}
	if (w->req->defer && w->req->nowait) {
		/* It would block here (a READ missing the page cache): the
		 * worker runs it again from its start. */
		w->deferred = true;
		return false;
	}
	goto out_finish;
out_refuse:
	/* A command refused before its session was looked at: its answer
	 * is signed all the same when the request was (a client on a
	 * signed session drops an unsigned one: compound.invalid4). */
	if (((w->flags & SMB2_FLAGS_SIGNED) ||
	     ((w->flags & SMB2_FLAGS_RELATED_OPERATIONS) && w->index > 0)) &&
	    w->conn->negotiated && session_for_refusal(w, cmd) &&
	    smb2_sign_check_request(w) == STATUS_SUCCESS)
		w->sign = w->command != SMB2_SESSION_SETUP &&
			  smb2_sign_wanted(w);
out_finish:
	/* What a CREATE leaves to the related commands after it, whether it
	 * failed in its handler or before (a tree gone). Any status but
	 * success made no FileId, warnings too (EA_LIST_INCONSISTENT). */
	if (w->command == SMB2_CREATE)
		w->fid_error = status != STATUS_SUCCESS ? status : 0;
	if (smb2_status_is_error(status))
		log_debug("smb2: %s (mid %llu%s%s) -> %#x",
			  cmd && cmd->name ? cmd->name : "?",
			  (unsigned long long)w->message_id,
			  w->encrypted ? ", encrypted" : "",
			  w->flags & SMB2_FLAGS_SIGNED ? ", signed" : "",
			  status);
	if (cmd)
		stats_call_done(cmd_slot[w->command] - 1, t0, false,
				smb2_status_is_error(status) &&
					status != STATUS_MORE_PROCESSING_REQUIRED);
	smb2_rsp_header(w, status);
	return true;
}

/* Drop what the message's commands held. */
static void work_release(struct smb2_work *w)
{
	smb2_session_put(w->sess);
	w->sess = NULL;
	smb2_tree_put(w->tree);
	w->tree = NULL;
	smb2_session_put(w->seal);
	w->seal = NULL;
	smb2_chan_put(w->chan);
	w->chan = NULL;
	smb2_chan_put(w->bind_chan);
	w->bind_chan = NULL;
}

enum req_verdict smb2_process(struct req *r)
{
	struct smb2_conn *c = r->conn_priv;
	struct smb2_work *w = r->proto;

	if (!w) {
		struct smb2_session *seal = NULL;
		uint8_t *msg = r->msg;
		size_t len = r->msg_len;

		if (!len)
			return REQ_DROP; /* a NetBIOS keepalive */
		if (len < 4)
			goto out_violation;
		if (get_le32(msg) == SMB1_PROTOCOL_ID) {
			if (smb2_smb1_negotiate(c, r, msg, len))
				return REQ_REPLY;
			goto out_violation;
		}
		if (get_le32(msg) == SMB2_TRANSFORM_PROTOCOL_ID) {
			/* §3.3.5.2.1.1: opened in place, or the connection
			 * closes (no session, a bad tag, no cipher). */
			seal = smb2_request_decrypt(c, msg, len);
			if (!seal)
				goto out_violation;
			msg += SMB2_TRANSFORM_LEN;
			len -= SMB2_TRANSFORM_LEN;
		}
		if (len < 4 || get_le32(msg) != SMB2_PROTOCOL_ID) {
			smb2_session_put(seal);
			goto out_violation;
		}
		w = req_alloc(r, sizeof(*w));
		if (!w) {
			smb2_session_put(seal);
			return REQ_DROP;
		}
		r->proto = w;
		w->req = r;
		w->conn = c;
		w->seal = seal;
		w->encrypted = seal != NULL;
		sb_init(&w->msg, msg, len);
		w->seg_base = req_reply_start(r, RSP_FIRST);
		if (!w->seg_base)
			return REQ_DROP;
		w->seg_cap = RSP_FIRST;
	} else if (w->deferred) {
		/* On a worker now: the deferred command's header is
		 * decoded and its credits taken; run it. */
		w->deferred = false;
		smb2_park_unlist(w);
		goto run;
	}
	for (;;) {
		if (w->index >= SMB2_MAX_COMPOUND || !header_parse(w))
			goto out_violation;
		/* An encrypted message speaks for the session whose key
		 * opened it, and for no other. */
		if (w->encrypted && w->session_id != w->seal->id &&
		    !((w->flags & SMB2_FLAGS_RELATED_OPERATIONS) &&
		      w->index > 0 && w->session_id == UINT64_MAX)) {
			goto out_violation;
		}
		/* CANCEL takes no credit and gets no response. */
		if (w->command == SMB2_CANCEL) {
			smb2_cancel(w);
			goto next;
		}
		if (!smb2_credit_take(c, w->message_id, w->credit_charge))
			goto out_violation;
run:
		if (!run_command(w)) {
			if (w->parked)
				return REQ_PARK;
			if (w->deferred)
				return REQ_DEFER;
			break; /* out of memory: what is done goes */
		}
		if (!rsp_commit(w, w->next_command != 0 && more_answers(w)))
			break;
		w->answered = true;
next:
		if (!w->next_command)
			break;
		w->off += w->cmd_len;
		w->index++;
	}
	req_reply_used(r, w->seg_used);
	if (w->answered && w->seal && smb2_reply_seal(r, w->seal) < 0) {
		work_release(w);
		transport_conn_shutdown(r->conn);
		return REQ_DROP;
	}
	work_release(w);
	if (!w->answered)
		return REQ_DROP;
	if (w->delay_ms && smb2_delay_reply(r, w->delay_ms))
		return REQ_DROP;
	return REQ_REPLY;

out_violation:
	if (w)
		work_release(w);
	log_ratelimited(LL_INFO, "smb2: malformed message or credit "
			"violation, closing the connection");
	transport_conn_shutdown(r->conn);
	return REQ_DROP;
}

/*
 * smb2_release() - the transport's release hook: a request deferred or
 * parked whose connection closed before it ran again lets go of what its
 * commands held.
 */
void smb2_release(struct req *r)
{
	if (r->proto) {
		smb2_park_unlist(r->proto);
		work_release(r->proto);
	}
}

/*
 * smb2_may_inline() - the transport's may_inline: may the message run
 * on the event loop? By its first command (a wrong guess costs one
 * deferral: run_command checks each command again).
 */
bool smb2_may_inline(void *conn_priv, const uint8_t *msg, size_t len)
{
	uint16_t cmd;

	(void)conn_priv;
	/* Encrypted: decrypting a large message is the worker's work. */
	if (len >= 4 && get_le32(msg) == SMB2_TRANSFORM_PROTOCOL_ID)
		return len <= SMB2_TRANSFORM_LEN + SMB2_SEAL_INLINE_MAX;
	if (len < SMB2_HDR_LEN || get_le32(msg) != SMB2_PROTOCOL_ID)
		return true; /* SMB1 upgrade, or closed at once */
	cmd = get_le16(msg + SMB2_HDR_COMMAND);
	if (cmd >= SMB2_NCOMMANDS || !smb2_cmds[cmd].inline_ok)
		return false;
	return !smb2_cmds[cmd].inline_body ||
	       smb2_cmds[cmd].inline_body(msg + SMB2_HDR_LEN,
					  len - SMB2_HDR_LEN);
}
