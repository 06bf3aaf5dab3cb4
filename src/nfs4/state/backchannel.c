// SPDX-License-Identifier: MIT
/*
 * The NFSv4.1 back channel (RFC 8881 §2.10.3.1): the server calls the
 * client on a connection the client bound for callbacks (CREATE_SESSION
 * with CREATE_SESSION4_FLAG_CONN_BACK_CHAN, BIND_CONN_TO_SESSION with a
 * back direction), using csa_cb_program, callback version 1 (RFC 8881
 * §20's XDR; what knfsd and Linux use) and the first AUTH_NONE or
 * AUTH_SYS entry of csa_sec_parms.
 *
 * Two calls are made. CB_NULL is sent when a back channel appears or
 * changes (BACKCHANNEL_CTL), answered on the same connection.
 * CB_COMPOUND(CB_SEQUENCE, CB_RECALL) recalls a delegation, and
 * CB_COMPOUND(CB_SEQUENCE, CB_GETATTR) asks a write delegation's holder
 * for its size and change (deleg.c decides which and when): one call at
 * a time per session, on slot 0 of
 * the back channel (csa_sequenceid advances with each answer), lost when
 * unanswered after NFS4_CB_PROBE_TIMEOUT_MS (the path is then down; the
 * client's next BIND_CONN_TO_SESSION probes it again, and the recalls
 * still owed are sent once it is up). Answers arrive through the RPC
 * layer's reply handler on the connection's event loop; a probe
 * unanswered after
 * NFS4_CB_PROBE_TIMEOUT_MS, refused, or whose connection closed leaves
 * the session's callback path down, which SEQUENCE reports
 * (SEQ4_STATUS_CB_PATH_DOWN_SESSION, and SEQ4_STATUS_CB_PATH_DOWN when no
 * session of the client has a working one). The client then binds a
 * connection again (BIND_CONN_TO_SESSION), which probes again.
 *
 * Bound connections are pinned by a reference and unbound by the
 * transport's close hook, so a session never holds a freed connection.
 * A session's back-channel state is under its mutex; the table of probes
 * awaiting an answer, the counters and the xid are under bc_mu, a leaf
 * lock (state_int.h has the order). Sending happens on the callback
 * thread (callback.c), without either.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/log.h"
#include "core/stats.h"
#include "nfs4/attrs.h"
#include "nfs4/state/state_int.h"
#include "transport/transport.h"

#define CB_NULL_PROC 0
#define CB_COMPOUND_PROC 1
#define OP_CB_SEQUENCE 11
#define CB_PENDING_MAX 128
#define CB_TIMEOUT_NS ((uint64_t)NFS4_CB_PROBE_TIMEOUT_MS * 1000000u)
/* xid, CALL, rpcvers, prog, vers, proc, cred, verf (AUTH_NONE): 40 */
#define CB_CALL_MAX (40 + 20 + RPC_AUTH_SYS_MACHINE_MAX + 4 + \
		     4 * RPC_AUTH_SYS_NGIDS_MAX)
/* CB_COMPOUND(CB_SEQUENCE, CB_RECALL): tag, minor, ident, count; the
 * two ops with a full-size filehandle */
#define CB_RECALL_ARGS (16 + 4 + NFS4_SESSIONID_SIZE + 20 + 4 + 20 + 8 + \
			NFS4_FHSIZE)

struct nfs4_bc_job {
	struct conn *conn;             /* pinned */
	uint32_t xid;
	uint32_t prog;
	uint32_t proc;                 /* CB_NULL_PROC or CB_COMPOUND_PROC */
	uint32_t minor;                /* the session's minor version */
	uint8_t sid[NFS4_SESSIONID_SIZE];
	struct nfs4_cb_sec sec;
	/* CB_COMPOUND: CB_SEQUENCE's sequenceid, the operation (CB_RECALL
	 * or CB_GETATTR) and its arguments */
	uint32_t seq;
	uint32_t op;
	struct stateid4 stateid;
	struct nfs_fh4 fh;
};

/* Probes awaiting an answer: which session an xid on a conn belongs to. */
struct pending {
	struct conn *conn;             /* identity only */
	uint32_t xid;
	uint64_t sent_ns;
	uint8_t sid[NFS4_SESSIONID_SIZE];
};

static const struct nfs4_bc_ops *_Atomic bc_ops;
static pthread_mutex_t bc_mu = PTHREAD_MUTEX_INITIALIZER;
/* set once by nfs4_bc_attach(), before requests */
static int call_slot = -1;
/* bc_mu */
static struct pending pending[CB_PENDING_MAX];
static uint32_t pending_next;
static uint32_t bc_xid;
static struct nfs4_bc_counts counts;
/* set once by nfs4_bc_attach(), before requests */
static int stats_slot = -1;

static const struct nfs4_bc_ops transport_ops = {
	.get = transport_conn_get,
	.put = transport_conn_put,
	.closed = transport_conn_closed,
	.msg_new = transport_msg_new,
	.msg_send = transport_msg_send,
	.msg_free = transport_msg_free,
};

/** nfs4_bc_set_ops() - see state_int.h. */
void nfs4_bc_set_ops(const struct nfs4_bc_ops *ops)
{
	pthread_mutex_lock(&bc_mu);
	atomic_store(&bc_ops, ops);
	memset(pending, 0, sizeof(pending));
	pthread_mutex_unlock(&bc_mu);
}

/**
 * nfs4_bc_attach() - see state.h: callbacks go through the transport,
 * their answers come from the RPC layer, closed connections are unbound.
 */
void nfs4_bc_attach(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	pthread_mutex_lock(&bc_mu);
	bc_xid = (uint32_t)ts.tv_nsec ^ (uint32_t)ts.tv_sec << 12;
	pthread_mutex_unlock(&bc_mu);
	stats_slot = stats_slot_add("nfs4_cb", NFS4_CB_VERSION, CB_NULL_PROC,
				    "CB_NULL");
	call_slot = stats_slot_add("nfs4_cb", NFS4_CB_VERSION,
				   CB_COMPOUND_PROC, "CB_RECALL");
	nfs4_deleg_stats_init();
	nfs4_client_stats_init();
	nfs4_bc_set_ops(&transport_ops);
	rpc_set_reply_handler(nfs4_bc_reply);
	rpc_set_close_handler(nfs4_bc_conn_closed);
}

/** nfs4_bc_conn_get() - pin @c; false if it is already closed. */
bool nfs4_bc_conn_get(struct conn *c)
{
	const struct nfs4_bc_ops *ops = atomic_load(&bc_ops);

	if (!ops)
		return true;
	if (ops->closed(c))
		return false;
	ops->get(c);
	return true;
}

/** nfs4_bc_conn_put() - unpin @c. */
void nfs4_bc_conn_put(struct conn *c)
{
	const struct nfs4_bc_ops *ops = atomic_load(&bc_ops);

	if (ops)
		ops->put(c);
}

/** nfs4_bc_counts() - probes sent, answered, failed (for tests). */
void nfs4_bc_counts(struct nfs4_bc_counts *out)
{
	pthread_mutex_lock(&bc_mu);
	*out = counts;
	pthread_mutex_unlock(&bc_mu);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void hex_id(const uint8_t *id, char *buf)
{
	static const char hx[] = "0123456789abcdef";
	int i;

	for (i = 0; i < NFS4_SESSIONID_SIZE; i++) {
		buf[2 * i] = hx[id[i] >> 4];
		buf[2 * i + 1] = hx[id[i] & 15];
	}
	buf[2 * NFS4_SESSIONID_SIZE] = '\0';
}

static void set_down(struct nfs4_session *s, const char *why)
{
	char id[2 * NFS4_SESSIONID_SIZE + 1];

	if (s->cb_state != NFS4_CB_DOWN) {
		hex_id(s->id, id);
		log_info("nfs4: session %s: callback path down (%s)", id, why);
	}
	s->cb_state = NFS4_CB_DOWN;
}

/* The newest connection of @s bound for the back channel, or NULL. */
static struct conn *back_conn(const struct nfs4_session *s)
{
	uint32_t i;

	for (i = s->nconns; i-- > 0;)
		if (s->conn_dir[i] & CDFS4_BACK)
			return s->conns[i];
	return NULL;
}

/*
 * A call of @proc to send on @s's newest back-channel connection: the
 * job, registered as pending under a new xid, or NULL (the path is then
 * marked down). Under s->mu.
 */
static struct nfs4_bc_job *job_new(struct nfs4_session *s, uint32_t proc)
{
	const struct nfs4_bc_ops *ops = atomic_load(&bc_ops);
	struct nfs4_bc_job *j;
	struct pending *p;
	struct conn *c;

	if (!ops)
		return NULL;
	c = back_conn(s);
	if (!c) {
		set_down(s, "no connection bound for callbacks");
		return NULL;
	}
	if (s->cb_sec.flavor == NFS4_CB_FLAVOR_NONE_USABLE) {
		set_down(s, "no AUTH_NONE or AUTH_SYS callback security");
		return NULL;
	}
	j = calloc(1, sizeof(*j));
	if (!j) {
		set_down(s, "out of memory");
		return NULL;
	}
	j->conn = c;
	j->prog = s->cb_program;
	j->proc = proc;
	j->minor = s->minor;
	j->sec = s->cb_sec;
	memcpy(j->sid, s->id, NFS4_SESSIONID_SIZE);
	ops->get(c);
	pthread_mutex_lock(&bc_mu);
	if (++bc_xid == 0)
		bc_xid = 1;
	j->xid = bc_xid;
	p = &pending[pending_next++ % CB_PENDING_MAX];
	p->conn = c;
	p->xid = j->xid;
	p->sent_ns = now_ns();
	memcpy(p->sid, s->id, NFS4_SESSIONID_SIZE);
	pthread_mutex_unlock(&bc_mu);
	return j;
}

/* Hand @j to the callback thread; false (and @j dropped, its pending
 * entry forgotten) when its queue is full. */
static bool job_queue(struct nfs4_bc_job *j)
{
	const struct nfs4_bc_ops *ops = atomic_load(&bc_ops);
	uint32_t i;

	if (nfs4_cb_queue_bc(j))
		return true;
	pthread_mutex_lock(&bc_mu);
	for (i = 0; i < CB_PENDING_MAX; i++)
		if (pending[i].conn == j->conn && pending[i].xid == j->xid)
			pending[i].conn = NULL;
	pthread_mutex_unlock(&bc_mu);
	if (ops)
		ops->put(j->conn);
	free(j);
	return false;
}

/** nfs4_bc_probe() - see state_int.h. */
void nfs4_bc_probe(struct nfs4_session *s)
{
	struct nfs4_bc_job *j;

	s->cb_conn = NULL;
	j = job_new(s, CB_NULL_PROC);
	if (!j)
		return;
	s->cb_conn = j->conn;
	s->cb_xid = j->xid;
	s->cb_sent = nfs4_now_ms();
	s->cb_state = NFS4_CB_PROBING;
	if (!job_queue(j))
		set_down(s, "callback queue full");
}

/** nfs4_bc_call_free() - see state_int.h. */
bool nfs4_bc_call_free(struct nfs4_session *s)
{
	if (!s->call_busy)
		return true;
	if (nfs4_now_ms() - s->call_sent < NFS4_CB_PROBE_TIMEOUT_MS)
		return false;
	/* lost: the recall is sent again once the path is up again */
	s->call_busy = false;
	set_down(s, s->call_op == OP_CB_GETATTR ? "CB_GETATTR not answered"
						: "CB_RECALL not answered");
	pthread_mutex_lock(&bc_mu);
	counts.failed++;
	pthread_mutex_unlock(&bc_mu);
	if (call_slot >= 0)
		stats_record_latency(call_slot, CB_TIMEOUT_NS, true, false);
	return false;
}

/** nfs4_bc_call() - see state_int.h. */
bool nfs4_bc_call(struct nfs4_session *s, uint32_t op,
		  const struct stateid4 *stateid, const struct nfs_fh4 *fh)
{
	struct nfs4_bc_job *j = job_new(s, CB_COMPOUND_PROC);

	if (!j)
		return false;
	j->seq = s->call_seq + 1;
	j->op = op;
	s->call_op = op;
	j->stateid = *stateid;
	j->fh = *fh;
	s->call_busy = true;
	s->call_xid = j->xid;
	s->call_sent = nfs4_now_ms();
	memcpy(s->call_other, stateid->other, NFS4_OTHER_SIZE);
	if (!job_queue(j)) {
		s->call_busy = false;
		set_down(s, "callback queue full");
		return false;
	}
	return true;
}

/* nfs4_bc_session_ok() - is the back channel of @s working (or being
 * probed, in time)? Under s->mu; the clock is read under it too, so that
 * cb_sent (written under it) is never later than now. A CB_RECALL out
 * for too long takes it down. */
bool nfs4_bc_session_ok(struct nfs4_session *s)
{
	uint64_t now = nfs4_now_ms();

	if (!atomic_load(&bc_ops))
		return nfs4_session_has_backchannel(s);
	switch (s->cb_state) {
	case NFS4_CB_UP:
		if (s->call_busy)
			(void)nfs4_bc_call_free(s);
		if (s->cb_state != NFS4_CB_UP)
			return false;
		if (s->cb_conn && nfs4_session_conn_bound(s, s->cb_conn))
			return true;
		set_down(s, "its connection is gone");
		return false;
	case NFS4_CB_PROBING:
		if (now - s->cb_sent < NFS4_CB_PROBE_TIMEOUT_MS)
			return true;
		set_down(s, "CB_NULL not answered");
		pthread_mutex_lock(&bc_mu);
		counts.failed++;
		pthread_mutex_unlock(&bc_mu);
		if (stats_slot >= 0)
			stats_record_latency(stats_slot, CB_TIMEOUT_NS, true,
					     false);
		return false;
	default:
		return false;
	}
}

/** nfs4_bc_seq_flags() - see state_int.h. */
uint32_t nfs4_bc_seq_flags(struct nfs4_session *s)
{
	struct nfs4_client *cl = s->client;
	uint32_t flags =
		SEQ4_STATUS_CB_PATH_DOWN_SESSION | SEQ4_STATUS_CB_PATH_DOWN;
	struct nfs4_list *n;
	bool ok;

	pthread_mutex_lock(&s->mu);
	ok = nfs4_bc_session_ok(s);
	pthread_mutex_unlock(&s->mu);
	if (ok)
		return 0;
	/* down here: is any other session of the client still up? The
	 * caller's pin on @s keeps the client, and the client's mutex the
	 * list of its sessions */
	nfs4_client_lock(cl);
	for (n = cl->sessions.next; n != &cl->sessions; n = n->next) {
		struct nfs4_session *o =
			nfs4_container_of(n, struct nfs4_session, client_link);

		if (o == s)
			continue;
		pthread_mutex_lock(&o->mu);
		ok = nfs4_bc_session_ok(o);
		pthread_mutex_unlock(&o->mu);
		if (ok) {
			flags = SEQ4_STATUS_CB_PATH_DOWN_SESSION;
			break;
		}
	}
	pthread_mutex_unlock(&cl->mu);
	return flags;
}

static bool enc_cred(struct xdr_buf *x, const struct nfs4_cb_sec *sec)
{
	size_t len_at;
	uint32_t i;

	if (sec->flavor != AUTH_SYS)
		return xdr_enc_u32(x, AUTH_NONE) && xdr_enc_u32(x, 0);
	if (!xdr_enc_u32(x, AUTH_SYS))
		return false;
	len_at = x->pos;
	if (!xdr_enc_u32(x, 0) || !xdr_enc_u32(x, sec->stamp) ||
	    !xdr_enc_opaque(x, sec->machine, sec->machine_len) ||
	    !xdr_enc_u32(x, sec->uid) || !xdr_enc_u32(x, sec->gid) ||
	    !xdr_enc_u32(x, sec->ngids))
		return false;
	for (i = 0; i < sec->ngids; i++)
		if (!xdr_enc_u32(x, sec->gids[i]))
			return false;
	/* body length, now known */
	{
		uint32_t blen = (uint32_t)(x->pos - len_at - 4);
		uint8_t *p = x->base + len_at;

		p[0] = (uint8_t)(blen >> 24);
		p[1] = (uint8_t)(blen >> 16);
		p[2] = (uint8_t)(blen >> 8);
		p[3] = (uint8_t)blen;
	}
	return true;
}

/** nfs4_bc_call_max() - see state_int.h (enc_cred(), enc_recall()). */
uint32_t nfs4_bc_call_max(const struct nfs4_cb_sec *sec)
{
	/* xid, CALL, rpcvers, prog, vers, proc; flavor and length of the
	 * credential and of the AUTH_NONE verifier */
	uint32_t n = 24 + 8 + 8;

	if (sec->flavor == AUTH_SYS)
		n += 20 + ((sec->machine_len + 3) & ~3u) + 4 * sec->ngids;
	return n + CB_RECALL_ARGS;
}

/** nfs4_cb_enc_op() - see state_int.h. */
bool nfs4_cb_enc_op(struct xdr_buf *x, uint32_t op,
		    const struct stateid4 *stateid, const struct nfs_fh4 *fh)
{
	if (op == OP_CB_GETATTR)
		return xdr_enc_u32(x, OP_CB_GETATTR) &&
		       nfs4_enc_nfs_fh4(x, fh) && xdr_enc_u32(x, 1) &&
		       xdr_enc_u32(x, 1u << FATTR4_CHANGE | 1u << FATTR4_SIZE);
	return xdr_enc_u32(x, OP_CB_RECALL) &&
	       nfs4_enc_stateid4(x, stateid) &&
	       xdr_enc_bool(x, false) &&               /* truncate */
	       nfs4_enc_nfs_fh4(x, fh);
}

/* CB_COMPOUND4args of a recall or a getattr (RFC 8881 §20.9.1, §20.2,
 * §20.1). */
static bool enc_call(struct xdr_buf *x, const struct nfs4_bc_job *j)
{
	/* the session's minor version: a Linux 4.2 client finds its
	 * session among its 4.2 clients only */
	return xdr_enc_u32(x, 0) &&                    /* tag */
	       xdr_enc_u32(x, j->minor) &&             /* minorversion */
	       xdr_enc_u32(x, 0) &&                    /* callback_ident */
	       xdr_enc_u32(x, 2) &&
	       xdr_enc_u32(x, OP_CB_SEQUENCE) &&
	       xdr_enc_opaque_fixed(x, j->sid, NFS4_SESSIONID_SIZE) &&
	       xdr_enc_u32(x, j->seq) && xdr_enc_u32(x, 0) && /* slot 0 */
	       xdr_enc_u32(x, 0) &&                    /* highest slot */
	       xdr_enc_bool(x, false) &&               /* cachethis */
	       xdr_enc_u32(x, 0) &&                    /* referring calls */
	       nfs4_cb_enc_op(x, j->op, &j->stateid, &j->fh);
}

/*
 * Encode @j's call as a message of the connection (a request with only
 * a reply, core/req.h) and send it. 0 or -errno.
 */
static int bc_send(struct nfs4_bc_job *j)
{
	const struct nfs4_bc_ops *ops = atomic_load(&bc_ops);
	struct req *m = ops ? ops->msg_new(j->conn) : NULL;
	size_t max = CB_CALL_MAX + CB_RECALL_ARGS;
	struct xdr_buf x;
	uint8_t *b;

	if (!m)
		return -ENOTCONN;
	b = req_reply_start(m, max);
	if (!b) {
		ops->msg_free(m);
		return -ENOMEM;
	}
	xdr_init(&x, b, max);
	if (!(xdr_enc_u32(&x, j->xid) && xdr_enc_u32(&x, CALL) &&
	      xdr_enc_u32(&x, RPC_VERSION) && xdr_enc_u32(&x, j->prog) &&
	      xdr_enc_u32(&x, NFS4_CB_VERSION) && xdr_enc_u32(&x, j->proc) &&
	      enc_cred(&x, &j->sec) && xdr_enc_u32(&x, AUTH_NONE) &&
	      xdr_enc_u32(&x, 0)) ||
	    (j->proc == CB_COMPOUND_PROC && !enc_call(&x, j))) {
		ops->msg_free(m);
		return -EINVAL;
	}
	req_reply_used(m, x.pos);
	return ops->msg_send(m);
}

/*
 * nfs4_bc_job_run() - callback thread: send @j's call, then free @j.
 * A failure to send marks the session's path down at once.
 */
void nfs4_bc_job_run(struct nfs4_bc_job *j)
{
	bool recall = j->proc == CB_COMPOUND_PROC;
	int slot = recall ? call_slot : stats_slot;
	struct nfs4_session *s;
	int ret = bc_send(j);

	if (ret == 0) {
		pthread_mutex_lock(&bc_mu);
		counts.sent++;
		pthread_mutex_unlock(&bc_mu);
	} else {
		bool failed = false;

		s = nfs4_session_lookup(j->sid);
		if (s) {
			pthread_mutex_lock(&s->mu);
			if (recall ? s->call_busy && s->call_xid == j->xid
				   : s->cb_xid == j->xid &&
					     s->cb_state == NFS4_CB_PROBING) {
				if (recall)
					s->call_busy = false;
				set_down(s, strerror(-ret));
				failed = true;
			}
			pthread_mutex_unlock(&s->mu);
			nfs4_session_put(s);
		}
		if (failed) {
			pthread_mutex_lock(&bc_mu);
			counts.failed++;
			pthread_mutex_unlock(&bc_mu);
		} else {
			ret = 0; /* superseded: nothing to count */
		}
	}
	if (ret < 0 && slot >= 0)
		stats_record_latency(slot, 0, true, false);
	nfs4_bc_job_free(j);
}

/** nfs4_bc_job_free() - drop @j unsent (and its connection pin). */
void nfs4_bc_job_free(struct nfs4_bc_job *j)
{
	const struct nfs4_bc_ops *ops = atomic_load(&bc_ops);

	if (ops)
		ops->put(j->conn);
	free(j);
}

/*
 * Parse a reply record: true when it is MSG_ACCEPTED with SUCCESS; then
 * @x is at the results. Every length is checked.
 */
static bool reply_ok(struct xdr_buf *x, const uint8_t *rec, size_t len)
{
	const uint8_t *body;
	uint32_t xid, v, blen;

	xdr_init(x, (uint8_t *)rec, len);
	if (!xdr_dec_u32(x, &xid) || !xdr_dec_u32(x, &v) || v != REPLY ||
	    !xdr_dec_u32(x, &v) || v != MSG_ACCEPTED)
		return false;
	if (!xdr_dec_u32(x, &v) ||
	    !xdr_dec_opaque_ref(x, &body, &blen, RPC_AUTH_MAX_BODY))
		return false;
	return xdr_dec_u32(x, &v) && v == SUCCESS;
}

/*
 * CB_GETATTR4resok (RFC 8881 §20.1.2): a fattr4 of change and size only,
 * as asked (in bit order); anything else is not understood. True when it
 * parses.
 */
static bool dec_cb_attrs(struct xdr_buf *x, struct nfs4_cb_attrs *a)
{
	const uint8_t *list;
	uint32_t nw, w0 = 0, w, len, i;
	struct xdr_buf l;

	if (!xdr_dec_u32(x, &nw) || nw > NFS4_BITMAP_WORDS)
		return false;
	for (i = 0; i < nw; i++) {
		if (!xdr_dec_u32(x, &w))
			return false;
		if (i == 0)
			w0 = w;
		else if (w)
			return false;
	}
	if (w0 & ~(1u << FATTR4_CHANGE | 1u << FATTR4_SIZE) ||
	    !xdr_dec_opaque_ref(x, &list, &len, 16))
		return false;
	xdr_init(&l, (uint8_t *)list, len);
	a->have_change = w0 & 1u << FATTR4_CHANGE;
	a->have_size = w0 & 1u << FATTR4_SIZE;
	if ((a->have_change && !xdr_dec_u64(&l, &a->change)) ||
	    (a->have_size && !xdr_dec_u64(&l, &a->size)))
		return false;
	return xdr_remaining(&l) == 0;
}

/*
 * The status of a CB_COMPOUND4res of (CB_SEQUENCE, CB_RECALL or
 * CB_GETATTR): the first failed operation's, else the compound's;
 * SERVERFAULT when it does not parse. A CB_GETATTR's attributes go to
 * @a.
 */
static uint32_t cb_results(struct xdr_buf *x, struct nfs4_cb_attrs *a)
{
	const uint8_t *tag;
	uint32_t status, taglen, n, op, st;

	if (!xdr_dec_u32(x, &status) ||
	    !xdr_dec_opaque_ref(x, &tag, &taglen, 1024) ||
	    !xdr_dec_u32(x, &n))
		return NFS4ERR_SERVERFAULT;
	while (n-- > 0) {
		if (!xdr_dec_u32(x, &op) || !xdr_dec_u32(x, &st))
			return NFS4ERR_SERVERFAULT;
		if (st != NFS4_OK)
			return st;
		if (op == OP_CB_GETATTR && !dec_cb_attrs(x, a))
			return NFS4ERR_SERVERFAULT;
		if (op != OP_CB_SEQUENCE)
			continue;
		/* sessionid, sequenceid, slotid, highest, target highest */
		if (!xdr_inline(x, NFS4_SESSIONID_SIZE + 16))
			return NFS4ERR_SERVERFAULT;
	}
	return status;
}

/** nfs4_cb_reply() - see state_int.h. */
uint32_t nfs4_cb_reply(const uint8_t *rec, size_t len,
		       struct nfs4_cb_attrs *a)
{
	struct xdr_buf x;

	memset(a, 0, sizeof(*a));
	if (!reply_ok(&x, rec, len))
		return NFS4ERR_SERVERFAULT;
	return cb_results(&x, a);
}

/* A probe of @s answered (@ok) in @ns. Under s->mu; true when counted. */
static bool probe_answered(struct nfs4_session *s, bool ok, uint64_t ns)
{
	char id[2 * NFS4_SESSIONID_SIZE + 1];

	if (ok) {
		s->cb_state = NFS4_CB_UP;
		s->cb_rtt_ms = (uint32_t)(ns / 1000000u);
		hex_id(s->id, id);
		log_info("nfs4: session %s: callback path up "
			 "(CB_NULL answered in %llu us)",
			 id, (unsigned long long)(ns / 1000));
	} else {
		set_down(s, "CB_NULL refused");
	}
	return true;
}

/** nfs4_bc_reply() - see state_int.h. Runs on an event loop: no I/O. */
void nfs4_bc_reply(struct conn *c, uint32_t xid, const uint8_t *rec,
		   size_t len)
{
	uint8_t sid[NFS4_SESSIONID_SIZE], other[NFS4_OTHER_SIZE];
	struct nfs4_cb_attrs attrs = {0};
	struct nfs4_client *cl = NULL;
	uint32_t op = OP_CB_RECALL;
	struct nfs4_session *s;
	struct pending *p = NULL;
	struct xdr_buf x;
	bool ok = reply_ok(&x, rec, len), counted = false, recall = false;
	bool up = false;
	uint32_t status = NFS4ERR_SERVERFAULT;
	uint64_t ns = 0;
	uint32_t i;

	pthread_mutex_lock(&bc_mu);
	for (i = 0; i < CB_PENDING_MAX; i++) {
		if (pending[i].conn == c && pending[i].xid == xid) {
			p = &pending[i];
			break;
		}
	}
	if (!p) {
		pthread_mutex_unlock(&bc_mu);
		log_debug("nfs4: unexpected RPC reply xid %08x dropped", xid);
		return;
	}
	p->conn = NULL;
	ns = now_ns() - p->sent_ns;
	memcpy(sid, p->sid, NFS4_SESSIONID_SIZE);
	pthread_mutex_unlock(&bc_mu);
	s = nfs4_session_lookup(sid);
	if (s) {
		pthread_mutex_lock(&s->mu);
		if (s->cb_xid == xid && s->cb_conn == c &&
		    s->cb_state == NFS4_CB_PROBING) {
			counted = probe_answered(s, ok, ns);
			up = ok;
		} else if (s->call_busy && s->call_xid == xid) {
			/* any answer moves slot 0 on */
			counted = recall = true;
			s->call_busy = false;
			s->call_seq++;
			s->cb_rtt_ms = (uint32_t)(ns / 1000000u);
			memcpy(other, s->call_other, NFS4_OTHER_SIZE);
			op = s->call_op;
			/* the header was read above: the results only */
			status = ok ? cb_results(&x, &attrs)
				    : NFS4ERR_SERVERFAULT;
			ok = status == NFS4_OK;
		}
		if (up || recall) {
			cl = s->client;
			nfs4_client_get(cl);
		}
		pthread_mutex_unlock(&s->mu);
		nfs4_session_put(s);
	}
	if (counted) {
		pthread_mutex_lock(&bc_mu);
		if (ok)
			counts.answered++;
		else
			counts.failed++;
		pthread_mutex_unlock(&bc_mu);
	}
	/* a late answer was counted as a failure at its timeout */
	if (counted && (recall ? call_slot : stats_slot) >= 0)
		stats_record_latency(recall ? call_slot : stats_slot, ns, !ok,
				     false);
	if (cl) {
		if (recall && op == OP_CB_GETATTR)
			nfs4_deleg_getattr_done(cl, other, status, &attrs);
		else if (recall)
			nfs4_deleg_recall_done(cl, other, status);
		else
			nfs4_deleg_recall_done(cl, NULL, NFS4_OK);
		nfs4_client_put(cl);
	}
}

/** nfs4_bc_conn_closed() - see state_int.h. */
void nfs4_bc_conn_closed(struct conn *c)
{
	struct nfs4_list *n, *m;
	uint32_t i;

	pthread_mutex_lock(&bc_mu);
	for (i = 0; i < CB_PENDING_MAX; i++)
		if (pending[i].conn == c)
			pending[i].conn = NULL;
	pthread_mutex_unlock(&bc_mu);
	nfs4_conn40_forget(c, NULL);
	/* the sessions of every client: their lists change only under
	 * nfs4_st.mu (and the client's mutex) */
	pthread_mutex_lock(&nfs4_st.mu);
	for (n = nfs4_st.clients.next; n && n != &nfs4_st.clients;
	     n = n->next) {
		struct nfs4_client *cl =
			nfs4_container_of(n, struct nfs4_client, link);

		for (m = cl->sessions.next; m != &cl->sessions; m = m->next) {
			struct nfs4_session *s = nfs4_container_of(
				m, struct nfs4_session, client_link);

			pthread_mutex_lock(&s->mu);
			nfs4_session_unbind_conn(s, c);
			pthread_mutex_unlock(&s->mu);
		}
	}
	pthread_mutex_unlock(&nfs4_st.mu);
}
