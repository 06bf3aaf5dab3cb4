/* SPDX-License-Identifier: MIT */
#ifndef NASD_SMB2_SMB2_INT_H
#define NASD_SMB2_SMB2_INT_H

/*
 * Internals of the SMB2/3 server (src/smb2/), shared by its files.
 *
 * Objects and their owners (MS-SMB2 §3.3.1):
 *
 *   struct smb2_conn      one per TCP connection (the transport's
 *                         per-connection state: conn_init/conn_free);
 *                         dialect, negotiated options, the credit window,
 *                         the sessions established on it.
 *   struct smb2_session   one per SessionId, in the global session table;
 *                         the user, the keys, its trees and opens.
 *   struct smb2_tree      one per TreeId of a session: a share (an export
 *                         with smb=NAME, or IPC$) and the access granted.
 *   struct smb2_open      one per FileId of a session: an open file or
 *                         directory, its share reservation in the shared
 *                         file state (src/state/).
 *
 * Lifetime (SMB3.md §4 class B, C): sessions, trees and opens are
 * refcounted and found by id under their owner's lock; a teardown
 * (LOGOFF, TREE_DISCONNECT, CLOSE, the connection going) marks the
 * object dead and unlinks it, and the last reference frees it, so a
 * request still holding one never sees freed memory; every use checks
 * "dead" again (a related command in a compound re-validates what it
 * inherits).
 *
 * Locking: smb2_conn.mu guards the connection's fields below it (credit
 * window, session list); smb2_session.mu guards its state, keys, tree and
 * open tables; the session table has its own lock. Order: conn.mu, then
 * session.mu; nothing else is held under them (no I/O, no vfs call).
 * Every live open is also in the process-wide open registry
 * (smb2_open.c), striped, each stripe with its own lock, taken with no
 * other lock held.
 */

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/req.h"
#include "core/timer.h"
#include "export/export.h"
#include "smb2/smb2.h"
#include "smb2/crypto.h"
#include "smb2/smb2_buf.h"
#include "smb2/smb2_wire.h"
#include "state/file_state.h"

struct conn;
struct vfs_obj;
struct wildcard;

/* Most credits granted to one connection (MS-SMB2 §3.3.1.2; Samba's
 * default). Credits bound what a client may send, not what the server
 * holds: the transport stops reading a connection at SMB2_MAX_INFLIGHT
 * requests in processing, which bounds memory. */
#define SMB2_MAX_CREDITS 8192
#define SMB2_MAX_INFLIGHT 512
/* The sequence window is tracked in a ring of this many MessageIds. */
#define SMB2_SEQ_RING 16384
/* Commands in one compound message (class B: 1000-element compounds). */
#define SMB2_MAX_COMPOUND 64
/* Sessions per connection, trees per session, opens per session. */
#define SMB2_MAX_SESSIONS_PER_CONN 64
#define SMB2_MAX_TREES_PER_SESSION 256
#define SMB2_MAX_OPENS_PER_SESSION 16384
/* Operations pending (blocking LOCK, CHANGE_NOTIFY) per connection. */
#define SMB2_MAX_ASYNC_PER_CONN 1024
/* Entries of an open's lock sequence array (MS-SMB2 §3.3.1.10). */
#define SMB2_LOCK_SEQUENCES 64
/* Largest READ/WRITE/TRANSACT nasd offers (MS-SMB2 §2.2.4), 8 MiB. */
#define SMB2_MAX_IO (8u << 20)
/* No WRITE puts data past this (MS-FSA 2.1.5.3 MAXFILESIZE, as Windows
 * and Samba): 16 TiB less 64 KiB. */
#define SMB2_MAX_FILE_SIZE 0xfffffff0000ull
/* Largest message accepted before NEGOTIATE: enough for any NEGOTIATE. */
#define SMB2_MAX_MSG_UNNEGOTIATED (64u << 10)
/* ... and after it: an 8 MiB WRITE plus its headers. */
#define SMB2_MAX_MSG (SMB2_MAX_IO + (64u << 10))

struct smb2_conn {
	struct conn *tconn;          /* the transport's connection */
	const struct smb2_config *cfg;

	pthread_mutex_t mu;          /* everything below */
	bool negotiated;             /* a NEGOTIATE succeeded: no second */
	bool smb1_upgraded;          /* answered an SMB1 NEGOTIATE */
	uint16_t dialect;
	uint16_t client_sec_mode;
	uint32_t client_caps;
	uint32_t server_caps;
	uint8_t client_guid[16];
	enum smb2_sign_alg sign_alg; /* by dialect, or the 3.1.1 context */
	/* Connection.CipherId: 3.1.1's context, AES-128-CCM for 3.0.x when
	 * the client can encrypt; NONE: no encryption on this connection */
	enum smb2_cipher cipher;
	bool posix;                  /* the client offered POSIX extensions */
	uint8_t preauth[64];         /* 3.1.1: hash after NEGOTIATE */

	/* Credit window (MS-SMB2 §3.3.1.1): MessageIds [seq_low, seq_low +
	 * seq_range) are granted; a bit of @seq_used (ring index id %
	 * SMB2_SEQ_RING) marks one already used. */
	uint64_t seq_low;
	uint32_t seq_range;
	uint32_t seq_nused;          /* used ids inside the window */
	uint64_t seq_used[SMB2_SEQ_RING / 64];

	uint32_t nsessions;
	struct smb2_session *sessions; /* through smb2_session.conn_next */
	/* Sessions of other connections this one is (being) bound to as a
	 * channel (smb2_chan.c), each referenced. */
	struct smb2_bound *bound;
	uint32_t nbound;
	bool closing;
	/* Requests parked on a grant break (smb2_oplock.c), through
	 * smb2_work.park_next: the connection's close lets them go. */
	struct smb2_work *parked;
	/* Operations answered STATUS_PENDING (smb2_async.h). */
	struct smb2_async *asyncs;
	uint32_t nasync;
	uint64_t next_async_id;
};

enum smb2_sess_state {
	SMB2_SESS_IN_PROGRESS = 0,
	SMB2_SESS_VALID,
	SMB2_SESS_EXPIRED,
};

struct smb2_tree;
struct smb2_open;
struct smb2_auth;
struct smb2_async;
struct smb2_bound;

/*
 * A channel (MS-SMB2 §3.3.1.14): a connection bound to a session that was
 * set up on another one (multichannel, smb2_chan.c). The session's own
 * connection needs none: its key is Session.SigningKey. In the session's
 * list (which holds a reference) from the first binding SESSION_SETUP on,
 * valid once the binding's authentication is done, out of the list when
 * its connection closes; requests of that connection hold a reference
 * while they sign with its key.
 */
struct smb2_chan {
	atomic_int refs;
	struct smb2_chan *next;      /* smb2_session.chans; session.mu */
	struct smb2_conn *conn;      /* session.mu; NULL once closed */
	bool valid;                  /* session.mu */
	struct smb2_sign_key sign;   /* Channel.SigningKey, once valid */
	/* the binding's exchange: session.mu, as the session's own */
	struct smb2_auth *auth;
	bool setup_busy;
	uint8_t preauth[64];         /* 3.1.1: the binding's preauth hash */
};

struct smb2_session {
	uint64_t id;
	atomic_int refs;
	struct smb2_session *hnext;  /* session table bucket */
	struct smb2_session *conn_next; /* smb2_conn.sessions */
	/* The connection it was set up on (session.mu); NULL once that
	 * closed while other channels live on. */
	struct smb2_conn *conn;

	pthread_mutex_t mu;          /* everything below */
	bool dead;
	enum smb2_sess_state state;
	struct smb2_auth *auth;      /* the exchange in progress (auth/) */
	bool setup_busy;             /* a SESSION_SETUP is stepping @auth */
	uint8_t preauth[64];         /* 3.1.1: session's preauth hash */
	bool signing_required;
	bool encrypt_data;           /* Session.EncryptData (--smb-encrypt) */
	bool anonymous;
	bool have_keys;              /* @keys derived: the session signs */
	uint16_t dialect;            /* Session.Connection.Dialect */
	struct smb2_chan *chans;     /* bound channels (multichannel) */
	uint32_t nchans;
	/* The client has sent an encrypted request on this session: the
	 * server's own messages to it (oplock breaks) go encrypted too. */
	atomic_bool client_seals;
	struct smb2_keys keys;
	/* the user, mapped to a local identity (export admission squashes
	 * it per share) */
	char user[64];
	uint32_t uid;
	uint32_t gid;
	uint32_t ngroups;
	uint32_t groups[16];
	struct smb2_tree *trees;
	uint32_t ntrees;
	uint32_t next_tree_id;
	struct smb2_open **opens;    /* SMB2_OPEN_BUCKETS chains by volatile id */
	uint32_t nopens;
	uint64_t next_volatile;
};

#define SMB2_OPEN_BUCKETS 1024

struct smb2_tree {
	uint32_t id;
	atomic_int refs;
	struct smb2_tree *next;      /* smb2_session.trees; session.mu */
	struct smb2_session *sess;   /* referenced */
	atomic_bool dead;
	bool ipc;                    /* IPC$ */
	bool encrypt;                /* Share.EncryptData: only encrypted */
	struct export_table *table;  /* held while the tree lives */
	struct export *export;       /* NULL for IPC$ */
	struct export_access acc;    /* options and squashed identity */
	uint32_t maximal_access;
};

/*
 * An open (MS-SMB2 §3.3.1.10): a file or directory opened by CREATE,
 * named by FileId {persistent, volatile} within its session. It holds
 * its tree (and so the session), its vfs object and, while it has one,
 * its share reservation in the shared file state.
 */
struct smb2_open {
	uint64_t persistent;
	uint64_t volatile_id;
	atomic_int refs;
	atomic_bool dead;
	struct smb2_open *hnext;     /* session's chain; session.mu */
	/* the open registry (smb2_open.c), under its stripe's lock */
	struct smb2_open *reg_prev, *reg_next;
	bool reg_linked;
	uint8_t reg_stripe;
	struct smb2_tree *tree;      /* referenced */
	struct vfs_obj *obj;         /* referenced */
	struct state_file *sf;       /* referenced, with the share */
	uint32_t access;             /* granted access mask */
	uint32_t share_access;
	uint32_t create_options;
	bool is_dir;
	char *path;                  /* share-relative, UTF-8, '/' separated */
	char *stream;                /* a named stream's xattr (smb2_stream.h)
					or NULL: the file's data */
	/* a renamed stream's former state entries and names, kept until
	 * the open goes (smb2_setinfo.c set_stream_rename) */
#define SMB2_STREAM_RENAMES_MAX 4
	struct state_file *sf_old[SMB2_STREAM_RENAMES_MAX];
	char *stream_old[SMB2_STREAM_RENAMES_MAX];
	uint8_t nsf_old;

	pthread_mutex_t mu;          /* everything below */
	bool delete_on_close;
	uint64_t position;           /* FilePositionInformation */
	uint32_t mode_flags;         /* FileModeInformation: WRITE_THROUGH */
	/* Open.LockSequenceArray (§3.3.5.14, smb2_lock.c): a 4-bit number
	 * per index, valid where its bit is set. */
	uint8_t lock_seq[SMB2_LOCK_SEQUENCES];
	uint64_t lock_seq_valid;
	/* QUERY_DIRECTORY: where the enumeration stands, under @dir_mu
	 * (held for a whole query: queries of one open run one at a time) */
	pthread_mutex_t dir_mu;
	uint64_t dir_cookie;
	bool dir_started;            /* an entry was returned since restart */
	bool dir_done;
	bool dir_literal;            /* the pattern has no wildcard */
	struct wildcard *dir_pattern; /* NULL until the first query */
	uint32_t ea_index;           /* FullEa enumeration: EAs returned */
	/* Its oplock (smb2_oplock.c): set at CREATE, removed at close. */
	struct state_grant *grant;
	/* referenced while set: breaks go here; for a durable open, under
	 * the durable table's lock (a reconnect moves it) */
	struct conn *grant_conn;

	/* Durable handles (smb2_durable.c): 0, or SMB2_DURABLE_DHNQ or
	 * _DH2Q once granted; the rest is set before it is. */
	atomic_uchar durable;
	uint32_t durable_timeout_ms;
	uint8_t create_guid[16];     /* DH2Q's */
	uint8_t client_guid[16];     /* the connection's ClientGuid */
	uint32_t owner_uid;          /* Open.DurableOwner: the user */
	char owner[64];
	/* under the durable table's lock */
	struct smb2_open *dnext;     /* chain by persistent id */
	struct smb2_open *gnext;     /* chain by CreateGuid */
	bool dlisted;
	bool disconnected;           /* kept for a reconnect, in no session */
	struct timer dtimer;         /* while disconnected: the scavenger */
};

/*
 * The processing of one message (a compound of commands), kept in the
 * request's arena so that a request that must wait continues where it
 * stopped.
 */
struct smb2_work {
	struct req *req;
	struct smb2_conn *conn;
	struct smb2_buf msg;         /* the whole message */
	size_t off;                  /* this command's header offset */
	size_t cmd_len;              /* its length (to the next one) */
	unsigned int index;          /* its index in the compound */

	/* The command's header, decoded. */
	uint16_t credit_charge;
	uint16_t command;
	uint16_t credit_request;
	uint32_t flags;
	uint32_t next_command;
	uint64_t message_id;
	uint64_t async_id;
	uint32_t process_id;
	uint32_t tree_id;
	uint64_t session_id;

	/* What related commands inherit (MS-SMB2 §3.3.5.2.7.2). */
	struct smb2_session *sess;   /* referenced, or NULL */
	struct smb2_tree *tree;      /* referenced, or NULL */
	uint64_t fid_persistent;
	uint64_t fid_volatile;
	bool have_fid;
	uint32_t fid_error;          /* a failed CREATE's status, or 0 */
	bool related_bad;            /* related to nothing (index 0) */
	bool sess_lost;              /* the last session lookup failed */
	uint32_t last_status;

	/* The responses: the open reply segment holds @seg_used bytes of
	 * committed responses, then the current one, which @rsp covers
	 * from its header on (one response is always contiguous: it is
	 * signed as one piece). */
	uint8_t *seg_base;
	size_t seg_cap;
	size_t seg_used;
	struct smb2_buf rsp;
	uint32_t granted;            /* credits granted in this response */
	bool sign;                   /* sign this response */
	/* The message arrived encrypted under @seal's key, or a command's
	 * session or share requires encryption: the reply leaves encrypted
	 * with @seal's key (referenced), and unsigned. */
	bool encrypted;
	struct smb2_session *seal;
	/* The command's session reached over a bound channel: that
	 * channel (referenced), whose key signs. */
	struct smb2_chan *chan;
	/* A SESSION_SETUP that binds this connection to a session of
	 * another one, and its channel while the exchange runs. */
	bool binding;
	struct smb2_chan *bind_chan;
	uint32_t delay_ms;           /* answer this much later (logon) */
	bool answered;               /* a response was committed */
	uint8_t err_data[8];         /* an error response's ErrorData */
	uint8_t err_data_len;
	bool deferred;               /* the command waits for a worker */
	/* The handler's body goes with its error status (an IOCTL's
	 * copychunk answer, MS-SMB2 §3.3.5.15.6.1). */
	bool keep_body;
	/* The command waits for an oplock break (smb2_grant_break): the
	 * request is parked and runs the command again when woken. */
	bool parked;
	bool interim_sent;           /* its STATUS_PENDING went out */
	struct state_grant_waiter park_wt;
	struct smb2_work *park_next; /* smb2_conn.parked; conn.mu */
	bool park_listed;            /* conn.mu */
};

/* One command (MS-SMB2 §3.3.5): its handler and what it needs. */
struct smb2_cmd {
	const char *name;
	uint16_t structure_size;     /* of the request body */
	bool needs_session;          /* a valid session */
	bool needs_tree;             /* a tree of that session */
	/* Runs on the event loop (cheap, never blocks; a handler that
	 * finds it would sets req.defer). Else it goes to a worker. */
	bool inline_ok;
	/* With inline_ok, the transport's first guess from the body (@len
	 * bytes after the header) whether this one may run there (NULL:
	 * yes); the handler has the last word. */
	bool (*inline_body)(const uint8_t *body, size_t len);
	bool uses_fid;               /* names a FileId (or makes one) */
	/* Bytes of response body the handler may write (more: it asks). */
	uint32_t rsp_max;
	/* Where the body holds the 32-bit sizes of the data the request
	 * carries and of the data it asks back (WRITE's Length, READ's
	 * Length, QUERY_INFO's OutputBufferLength...), 0: none. The credit
	 * charge must cover the larger (MS-SMB2 §3.3.5.2.5). */
	uint8_t in_len_at;
	uint8_t out_len_at;
	/*
	 * Decode the request body in @body (the command's bytes after the
	 * header), act, write the response body into w->rsp after the
	 * header, and return the NTSTATUS. A status other than success (and
	 * the few that carry a body, see smb2_status_has_body) makes the
	 * response an ERROR response, whatever was written.
	 */
	uint32_t (*handle)(struct smb2_work *w, struct smb2_buf *body);
};

/* smb2.c */
/* smb2_cfg() - the configuration given to smb2_init(). */
const struct smb2_config *smb2_cfg(void);
/* smb2_auth_config() - the names and users every logon uses. */
const struct smb2_auth_cfg *smb2_auth_config(void);
/* smb2_server_guid() - the ServerGuid (MS-SMB2 §2.2.4), 16 bytes. */
const uint8_t *smb2_server_guid(void);

/* smb2_dispatch.c */
extern const struct smb2_cmd smb2_cmds[SMB2_NCOMMANDS];
/* What `nasd stats` shows of SMB besides the commands (smb2_dispatch.c
 * registers them): objects alive now, credits clients hold, bytes signed
 * and verified, bytes encrypted and decrypted. */
extern atomic_ullong smb2_n_trees, smb2_n_opens, smb2_n_credits,
	smb2_n_signed_bytes, smb2_n_sealed_bytes;

/* smb2_stats_init() - give each command a counter in `nasd stats`. */
void smb2_stats_init(void);
enum req_verdict smb2_process(struct req *r);
void smb2_release(struct req *r);
/*
 * smb2_msg_start() - a message of the server's own on @tconn (interim and
 * final async responses, oplock breaks): @len bytes, zeroed, its header's
 * ProtocolId, StructureSize, @cmd, @status, @flags and MessageId @mid
 * set; *@hdr points at it. NULL when the connection is gone or out of
 * memory. The caller fills the rest, then transport_msg_send().
 */
struct req *smb2_msg_start(struct conn *tconn, size_t len, uint16_t cmd,
			   uint32_t status, uint32_t flags, uint64_t mid,
			   uint8_t **hdr);
bool smb2_may_inline(void *conn_priv, const uint8_t *msg, size_t len);
/*
 * smb2_rsp_room() - make the response body able to hold @n more bytes
 * (the handler's data beyond its command's rsp_max). False when out of
 * memory (the handler answers STATUS_INSUFFICIENT_RESOURCES).
 */
bool smb2_rsp_room(struct smb2_work *w, size_t n);
void smb2_rsp_header(struct smb2_work *w, uint32_t status);
/*
 * smb2_error_data_u32() - the error response of the current command
 * carries @v as its 4 bytes of ErrorData (§2.2.2: the size a
 * STATUS_BUFFER_TOO_SMALL answer needed).
 */
void smb2_error_data_u32(struct smb2_work *w, uint32_t v);

/* smb2_session_setup.c */
uint32_t smb2_cmd_session_setup(struct smb2_work *w, struct smb2_buf *body);
uint32_t smb2_cmd_logoff(struct smb2_work *w, struct smb2_buf *body);
/* What a session's authentication and keys hold goes (session free). */
/* A failed logon is answered this much later. */
#define SMB2_LOGON_DELAY_MS 1000

void smb2_session_auth_free(struct smb2_session *s);
void smb2_session_keys_free(struct smb2_session *s);
/*
 * smb2_preauth_response() - after a response is built: fold it into the
 * connection's (NEGOTIATE) or the session's (SESSION_SETUP in progress)
 * 3.1.1 preauth integrity hash (MS-SMB2 §3.3.5.4, §3.3.5.5).
 */
void smb2_preauth_response(struct smb2_work *w);
/*
 * smb2_delay_reply() - send @r's reply (built, not yet sent) @ms later
 * from a timer instead of now: the reply is copied into a message of its
 * own (transport_msg_new). False when that cannot be done: send it now.
 */
bool smb2_delay_reply(struct req *r, uint32_t ms);

/* smb2_tree.c */
uint32_t smb2_cmd_tree_connect(struct smb2_work *w, struct smb2_buf *body);
uint32_t smb2_cmd_tree_disconnect(struct smb2_work *w, struct smb2_buf *body);

/* smb2_conn.c */
struct smb2_conn *smb2_conn_new(struct conn *tc, const struct smb2_config *cfg);
void smb2_conn_close(struct smb2_conn *c);
void smb2_conn_free(struct smb2_conn *c);
/*
 * smb2_credit_take() - the request's MessageId @id with @charge credits:
 * inside the granted window and not used before? Marks them used. conn.mu
 * taken here. False: the connection must be closed (MS-SMB2 §3.3.5.2.3).
 */
bool smb2_credit_take(struct smb2_conn *c, uint64_t id, uint16_t charge);
/*
 * smb2_credit_grant() - credits to grant in a response to a request that
 * asked for @requested and charged @charge (MS-SMB2 §3.3.1.2): at least 1
 * while the client would hold none, never past SMB2_MAX_CREDITS
 * outstanding. Widens the window accordingly. conn.mu taken here.
 */
uint16_t smb2_credit_grant(struct smb2_conn *c, uint16_t requested,
			   uint16_t charge);

/* smb2_negotiate.c */
uint32_t smb2_cmd_negotiate(struct smb2_work *w, struct smb2_buf *body);
/*
 * smb2_smb1_negotiate() - an SMB1 NEGOTIATE (MS-SMB2 §3.3.5.3.1): when it
 * offers "SMB 2.002" or "SMB 2.???", build the SMB2 NEGOTIATE response
 * into @r and return true; false: not an upgrade (the connection closes).
 */
bool smb2_smb1_negotiate(struct smb2_conn *c, struct req *r,
			 const uint8_t *msg, size_t len);

/* smb2_misc.c */
uint32_t smb2_cmd_echo(struct smb2_work *w, struct smb2_buf *body);
/* smb2_async.c: smb2_cancel() - CANCEL (§3.3.5.16), no response. */
void smb2_cancel(struct smb2_work *w);

/* smb2_file.c */
/*
 * smb2_open_lookup() - the open a command names by FileId {@persistent,
 * @volatile_id} (all ones in a related command: the previous command's,
 * §3.3.5.2.7.2), of the command's session and tree, with a reference in
 * *@out; STATUS_SUCCESS, STATUS_FILE_CLOSED, STATUS_INVALID_HANDLE, or
 * the status of the failed command whose FileId it inherits.
 */
uint32_t smb2_open_lookup(struct smb2_work *w, uint64_t persistent,
			  uint64_t volatile_id, struct smb2_open **out);
uint32_t smb2_cmd_create(struct smb2_work *w, struct smb2_buf *body);
/* smb2_cmds[SMB2_CREATE].inline_body: FILE_OPEN, not delete-on-close */
bool smb2_create_inline_body(const uint8_t *body, size_t len);
uint32_t smb2_cmd_close(struct smb2_work *w, struct smb2_buf *body);
uint32_t smb2_cmd_flush(struct smb2_work *w, struct smb2_buf *body);
/* smb2_query.c, smb2_setinfo.c */
uint32_t smb2_cmd_query_info(struct smb2_work *w, struct smb2_buf *body);
uint32_t smb2_cmd_set_info(struct smb2_work *w, struct smb2_buf *body);
/* smb2_lock.c, smb2_notify.c */
uint32_t smb2_cmd_lock(struct smb2_work *w, struct smb2_buf *body);
uint32_t smb2_cmd_change_notify(struct smb2_work *w, struct smb2_buf *body);
/* smb2_dir.c */
uint32_t smb2_cmd_query_directory(struct smb2_work *w, struct smb2_buf *body);
/* smb2_ioctl.c */
uint32_t smb2_cmd_ioctl(struct smb2_work *w, struct smb2_buf *body);
/* smb2_oplock.c */
/*
 * smb2_oplock_grant() - the oplock CREATE gives open @o for @requested
 * (the request's OplockLevel): what the file state allows now; none for
 * a @stat_open (attributes only) of a file that existed.
 */
uint8_t smb2_oplock_grant(struct smb2_work *w, struct smb2_open *o,
			  uint8_t requested, bool stat_open);
/* smb2_oplock_level() - the oplock @o holds now (SMB2_OPLOCK_LEVEL_*). */
uint8_t smb2_oplock_level(struct smb2_open *o);

/* smb2_oplock_release() - @o's oplock goes (close). */
void smb2_oplock_release(struct smb2_open *o);

/*
 * smb2_oplock_hold() - @o's oplock grant with a reference of the
 * caller's (state_grant_put()), or NULL: safe against a CLOSE of @o on
 * another thread, which removes the grant (o->grant is o->mu's).
 */
struct state_grant *smb2_oplock_hold(struct smb2_open *o);

/* smb2_oplock_held() - does @o hold an oplock grant now? */
bool smb2_oplock_held(struct smb2_open *o);
/*
 * smb2_grant_break() - the command is about to do @ask to the file of
 * @sf (or, @sf NULL, of @obj): break what conflicts. STATUS_SUCCESS to go
 * on; STATUS_PENDING when it must wait for a break's answer: the handler
 * then returns that at once, having undone what it did, and runs again
 * from its start when the break ends.
 */
uint32_t smb2_grant_break(struct smb2_work *w, struct state_file *sf,
			  struct vfs_obj *obj,
			  const struct state_grant_ask *ask);
/* smb2_open_break() - smb2_grant_break() of @op through open @o (its own
 * oplock is not broken). */
uint32_t smb2_open_break(struct smb2_work *w, struct smb2_open *o,
			 enum state_grant_op op);
uint32_t smb2_cmd_oplock_break(struct smb2_work *w, struct smb2_buf *body);
/*
 * smb2_park_unlist() - @w runs again, or goes: off its connection's list
 * of parked requests. smb2_park_release_all() - the connection closes:
 * every request of it still parked stops waiting and is resumed, which
 * releases it (its connection is closed).
 */
void smb2_park_unlist(struct smb2_work *w);
void smb2_park_release_all(struct smb2_conn *c);
/* smb2_rw.c */
uint32_t smb2_cmd_read(struct smb2_work *w, struct smb2_buf *body);
uint32_t smb2_cmd_write(struct smb2_work *w, struct smb2_buf *body);
/* smb2_proto's align hook: where a WRITE's data starts. */
size_t smb2_write_align(const uint8_t *head, size_t len);

/* smb2_status.c */
/* smb2_status_is_error() - an error severity status (not a warning). */
static inline bool smb2_status_is_error(uint32_t st)
{
	return (st >> 30) == 3;
}
/*
 * smb2_status() - the NTSTATUS for internal status @err (0, -errno or
 * core/err.h's values) answered by @command (one table, aware of the
 * command, as nfs3_status/nfs4_status).
 */
uint32_t smb2_status(uint16_t command, int err);

#endif
