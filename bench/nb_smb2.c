// SPDX-License-Identifier: MIT
/*
 * nasd-bench's SMB2/3 client (nb_smb2.h): the connection, its credits and
 * message ids, signing, framing, and the logon (NEGOTIATE 3.1.1,
 * SESSION_SETUP, TREE_CONNECT), done synchronously before the load starts.
 *
 * A request lives as a struct smb2_call (callback, its parts' message ids
 * and CreditCharges) from nb_smb2_submit() to its last reply part, and as
 * a struct smb2_frame (the bytes on the wire) until it is written. Frames
 * wait in `wait` until the connection holds the credits they are charged,
 * then get their message ids and signatures and move to `out`; calls are
 * found again by message id in a table as large as any credit window.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "nb_smb2_int.h"
#include "smb2/crypto.h"
#include "smb2/utf16.h"

#define TABLE_SIZE	16384		/* > any credit window we hold */
#define CREDITS_MAX	8192
#define RBUF_MIN	(256u << 10)
#define FRAME_MAX	(17u << 20)	/* largest reply frame accepted */
#define IOV_MAX_OUT	64
#define SETUP_MS	20000

const uint8_t nb_smb2_related_fid[NB_SMB2_FID_SIZE] = {
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
};

struct smb2_call {
	nb_smb2_cb *cb;
	void *priv;
	unsigned int nparts;
	unsigned int left;
	uint64_t mid[NB_SMB2_MAX_PARTS];
	uint16_t charge[NB_SMB2_MAX_PARTS];
	bool answered[NB_SMB2_MAX_PARTS];
};

struct smb2_frame {
	struct smb2_frame *next;
	struct smb2_call *call;
	uint8_t *buf;			/* 4-byte direct-TCP header + parts */
	size_t len;
	size_t part_off[NB_SMB2_MAX_PARTS];
	size_t part_len[NB_SMB2_MAX_PARTS];	/* without ext */
	const void *ext;		/* last part's payload, not copied */
	size_t ext_len;
	uint32_t charge;
	size_t sent;
	bool force_sign;
};

struct nb_smb2 {
	int fd;
	bool failed;
	char error[256];

	uint16_t dialect;
	uint32_t max_read;
	uint32_t max_write;
	uint32_t max_trans;
	bool large_mtu;
	uint16_t sign_alg;
	bool signing;			/* every request signed */
	bool have_key;
	struct smb2_sign_key key;
	uint64_t session_id;
	uint32_t tree_id;
	bool preauth_on;
	uint8_t preauth[SMB2_PREAUTH_SIZE];

	uint32_t avail;			/* credits not yet spent */
	uint32_t outstanding;		/* charged to requests in flight */
	uint32_t target;
	uint64_t next_mid;

	struct smb2_frame *wait_head, *wait_tail;
	struct smb2_frame *out_head, *out_tail;
	struct smb2_call *table[TABLE_SIZE];

	uint8_t *rbuf;
	size_t rcap;
	size_t rlen;
};

static int conn_fail(struct nb_smb2 *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int conn_fail(struct nb_smb2 *c, const char *fmt, ...)
{
	va_list ap;

	if (!c->failed) {
		c->failed = true;
		va_start(ap, fmt);
		vsnprintf(c->error, sizeof(c->error), fmt, ap);
		va_end(ap);
	}
	return -EIO;
}

/**
 * nb_smb2_error() - why the connection failed ("" while it has not).
 * @c: the connection
 */
const char *nb_smb2_error(const struct nb_smb2 *c)
{
	return c->error;
}

/** nb_smb2_fd() - the connection's socket, for poll(). @c: connection */
int nb_smb2_fd(const struct nb_smb2 *c)
{
	return c->fd;
}

/**
 * nb_smb2_events() - what to poll the socket for: always POLLIN, POLLOUT
 * while frames wait to be written.
 * @c: the connection
 */
short nb_smb2_events(const struct nb_smb2 *c)
{
	return (short)(POLLIN | (c->out_head ? POLLOUT : 0));
}

/** nb_smb2_max_read() - the server's MaxReadSize. @c: connection */
uint32_t nb_smb2_max_read(const struct nb_smb2 *c)
{
	return c->max_read;
}

/** nb_smb2_max_write() - the server's MaxWriteSize. @c: connection */
uint32_t nb_smb2_max_write(const struct nb_smb2 *c)
{
	return c->max_write;
}

/** nb_smb2_signing() - whether the session signs. @c: connection */
bool nb_smb2_signing(const struct nb_smb2 *c)
{
	return c->signing;
}

/** nb_smb2_sign_alg() - the negotiated SigningAlgorithmId. @c: connection */
uint16_t nb_smb2_sign_alg(const struct nb_smb2 *c)
{
	return c->sign_alg;
}

/* ---- sending ---- */

/* CreditCharge of a part moving @bytes (MS-SMB2 §3.2.4.1.5). */
static uint16_t charge_of(const struct nb_smb2 *c, size_t bytes)
{
	if (!c->large_mtu || bytes <= 65536)
		return 1;
	return (uint16_t)((bytes - 1) / 65536 + 1);
}

static void call_free(struct smb2_call *call)
{
	free(call);
}

static void frame_free(struct smb2_frame *f)
{
	free(f->buf);
	free(f);
}

/* Message ids, credit requests and signatures, as the frame leaves. */
static int frame_seal(struct nb_smb2 *c, struct smb2_frame *f)
{
	struct smb2_call *call = f->call;
	unsigned int i;
	uint32_t held = c->avail + c->outstanding, want;

	want = held < c->target ? c->target - held : 0;
	for (i = 0; i < call->nparts; i++) {
		uint8_t *h = f->buf + f->part_off[i];
		uint16_t charge = call->charge[i];
		uint32_t ask = charge + (i == 0 ? want : 0);
		uint64_t mid = c->next_mid;
		bool sign = (c->signing || f->force_sign) && c->have_key;

		if (c->table[mid % TABLE_SIZE])
			return conn_fail(c, "message id window of more than "
					 "%u requests", TABLE_SIZE);
		c->next_mid += charge ? charge : 1;
		call->mid[i] = mid;
		c->table[mid % TABLE_SIZE] = call;
		put_le16(h + SMB2_HDR_CREDIT_CHARGE, charge);
		put_le16(h + SMB2_HDR_CREDIT,
			 (uint16_t)(ask > 0xffff ? 0xffff : ask));
		put_le64(h + SMB2_HDR_MESSAGE_ID, mid);
		if (sign) {
			struct iovec iov[2] = {
				{ h, f->part_len[i] },
				{ (void *)f->ext, f->ext_len },
			};
			int n = i + 1 == call->nparts && f->ext_len ? 2 : 1;
			uint8_t sig[SMB2_SIG_SIZE];

			put_le32(h + SMB2_HDR_FLAGS,
				 get_le32(h + SMB2_HDR_FLAGS) |
				 SMB2_FLAGS_SIGNED);
			if (smb2_sign(&c->key, mid, false, false, iov, n, sig))
				return conn_fail(c, "cannot sign a request");
			memcpy(h + SMB2_HDR_SIGNATURE, sig, SMB2_SIG_SIZE);
		}
		if (c->preauth_on && (get_le16(h + SMB2_HDR_COMMAND) ==
				      SMB2_NEGOTIATE ||
				      get_le16(h + SMB2_HDR_COMMAND) ==
				      SMB2_SESSION_SETUP)) {
			struct iovec iov = { h, f->part_len[i] };

			if (smb2_preauth_update(c->preauth, &iov, 1))
				return conn_fail(c, "preauth hash failed");
		}
	}
	c->avail -= f->charge;
	c->outstanding += f->charge;
	return 0;
}

/* Move every waiting frame the credits pay for to the write queue. */
static int frames_release(struct nb_smb2 *c)
{
	while (c->wait_head && c->wait_head->charge <= c->avail) {
		struct smb2_frame *f = c->wait_head;

		c->wait_head = f->next;
		if (!c->wait_head)
			c->wait_tail = NULL;
		f->next = NULL;
		if (frame_seal(c, f) < 0) {
			frame_free(f);
			return -EIO;
		}
		if (c->out_tail)
			c->out_tail->next = f;
		else
			c->out_head = f;
		c->out_tail = f;
	}
	return 0;
}

static int frames_write(struct nb_smb2 *c)
{
	while (c->out_head) {
		struct iovec iov[IOV_MAX_OUT];
		struct smb2_frame *f;
		int n = 0;
		ssize_t w;

		for (f = c->out_head; f && n + 2 <= IOV_MAX_OUT; f = f->next) {
			size_t s = f->sent;

			if (s < f->len) {
				iov[n].iov_base = f->buf + s;
				iov[n++].iov_len = f->len - s;
				s = f->len;
			}
			if (f->ext_len) {
				iov[n].iov_base = (uint8_t *)f->ext + (s - f->len);
				iov[n++].iov_len = f->ext_len - (s - f->len);
			}
		}
		w = writev(c->fd, iov, n);
		if (w < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return 0;
			return conn_fail(c, "send: %s", strerror(errno));
		}
		while (w > 0 && c->out_head) {
			f = c->out_head;
			size_t left = f->len + f->ext_len - f->sent;

			if ((size_t)w < left) {
				f->sent += (size_t)w;
				break;
			}
			w -= (ssize_t)left;
			c->out_head = f->next;
			if (!c->out_head)
				c->out_tail = NULL;
			frame_free(f);
		}
	}
	return 0;
}

static int submit(struct nb_smb2 *c, const struct nb_smb2_part *parts,
		  unsigned int n, nb_smb2_cb *cb, void *priv, bool force_sign)
{
	struct smb2_call *call;
	struct smb2_frame *f;
	size_t len = 4, off;
	unsigned int i;

	if (c->failed)
		return -EIO;
	if (!n || n > NB_SMB2_MAX_PARTS)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (parts[i].ext_len && i + 1 < n)
			return -EINVAL;
		len += NB_SMB2_HDR + parts[i].body_len;
		if (i + 1 < n)
			len = (len - 4 + 7) / 8 * 8 + 4;
	}
	call = calloc(1, sizeof(*call));
	f = calloc(1, sizeof(*f));
	if (f)
		f->buf = calloc(1, len);
	if (!call || !f || !f->buf) {
		free(call);
		if (f)
			free(f->buf);
		free(f);
		return -ENOMEM;
	}
	call->cb = cb;
	call->priv = priv;
	call->nparts = n;
	call->left = n;
	f->call = call;
	f->len = len;
	f->force_sign = force_sign;
	off = 4;
	for (i = 0; i < n; i++) {
		uint8_t *h = f->buf + off;
		size_t plen = NB_SMB2_HDR + parts[i].body_len, end;
		size_t io = parts[i].ext_len > parts[i].rsp_len ?
			    parts[i].ext_len : parts[i].rsp_len;

		end = i + 1 < n ? (off - 4 + plen + 7) / 8 * 8 + 4 : off + plen;
		put_le32(h, SMB2_PROTOCOL_ID);
		put_le16(h + SMB2_HDR_STRUCTURE_SIZE, NB_SMB2_HDR);
		put_le16(h + SMB2_HDR_COMMAND, parts[i].command);
		put_le32(h + SMB2_HDR_FLAGS, i ? SMB2_FLAGS_RELATED_OPERATIONS :
					      0);
		put_le32(h + SMB2_HDR_NEXT_COMMAND,
			 i + 1 < n ? (uint32_t)(end - off) : 0);
		put_le32(h + SMB2_HDR_PROCESS_ID, 0xfeff);
		put_le32(h + SMB2_HDR_TREE_ID, c->tree_id);
		put_le64(h + SMB2_HDR_SESSION_ID, c->session_id);
		memcpy(h + NB_SMB2_HDR, parts[i].body, parts[i].body_len);
		call->charge[i] = charge_of(c, io);
		f->charge += call->charge[i];
		f->part_off[i] = off;
		f->part_len[i] = end - off;
		off = end;
	}
	f->ext = parts[n - 1].ext;
	f->ext_len = parts[n - 1].ext_len;
	len = len - 4 + f->ext_len;
	f->buf[0] = 0;
	f->buf[1] = (uint8_t)(len >> 16);
	f->buf[2] = (uint8_t)(len >> 8);
	f->buf[3] = (uint8_t)len;
	if (f->charge > c->target + 64) {
		frame_free(f);
		call_free(call);
		return -E2BIG;
	}
	if (c->wait_tail)
		c->wait_tail->next = f;
	else
		c->wait_head = f;
	c->wait_tail = f;
	return frames_release(c);
}

/**
 * nb_smb2_submit() - queue a request of @n parts (a related compound when
 * @n > 1: the parts after the first carry SMB2_FLAGS_RELATED_OPERATIONS
 * and refer to the file the first opened with nb_smb2_related_fid).
 * @c:     the connection, logged on
 * @parts: the parts; bodies are copied, a part's ext is not
 * @n:     1..NB_SMB2_MAX_PARTS
 * @cb:    called for each part of the reply, done set with the last
 * @priv:  for @cb
 *
 * It leaves when the credits pay for it, at the next nb_smb2_service().
 * Returns 0, -EIO (connection failed), -ENOMEM, -EINVAL, -E2BIG (charged
 * more credits than the connection ever holds).
 */
int nb_smb2_submit(struct nb_smb2 *c, const struct nb_smb2_part *parts,
		   unsigned int n, nb_smb2_cb *cb, void *priv)
{
	return submit(c, parts, n, cb, priv, false);
}

/* ---- receiving ---- */

static int reply_part(struct nb_smb2 *c, uint8_t *h, size_t len)
{
	uint64_t mid = get_le64(h + SMB2_HDR_MESSAGE_ID);
	uint32_t flags = get_le32(h + SMB2_HDR_FLAGS);
	uint32_t status = get_le32(h + SMB2_HDR_STATUS);
	uint16_t cmd = get_le16(h + SMB2_HDR_COMMAND);
	struct smb2_call *call = c->table[mid % TABLE_SIZE];
	struct nb_smb2_reply r;
	unsigned int i;

	if (get_le32(h) != SMB2_PROTOCOL_ID ||
	    get_le16(h + SMB2_HDR_STRUCTURE_SIZE) != NB_SMB2_HDR)
		return conn_fail(c, "reply without an SMB2 header");
	if (!(flags & SMB2_FLAGS_SERVER_TO_REDIR))
		return conn_fail(c, "reply not flagged as one");
	c->avail += get_le16(h + SMB2_HDR_CREDIT);
	if (c->avail > CREDITS_MAX)
		c->avail = CREDITS_MAX;
	if (!call)
		return conn_fail(c, "reply to message id %llu, not asked",
				 (unsigned long long)mid);
	for (i = 0; i < call->nparts; i++)
		if (call->mid[i] == mid && !call->answered[i])
			break;
	if (i == call->nparts)
		return conn_fail(c, "second reply to message id %llu",
				 (unsigned long long)mid);
	/* an interim reply (§3.3.4.2): the real one follows */
	if ((flags & SMB2_FLAGS_ASYNC_COMMAND) && status == STATUS_PENDING)
		return 0;
	if (c->have_key && cmd != SMB2_SESSION_SETUP &&
	    (c->signing || (flags & SMB2_FLAGS_SIGNED))) {
		struct iovec iov = { h, len };

		if (!(flags & SMB2_FLAGS_SIGNED))
			return conn_fail(c, "unsigned reply to command %u "
					 "(status 0x%08x) in a signed session",
					 cmd, status);
		if (!smb2_verify(&c->key, mid, true, false, &iov, 1))
			return conn_fail(c, "bad signature on the reply to "
					 "command %u", cmd);
	}
	if (c->preauth_on && cmd == SMB2_NEGOTIATE) {
		struct iovec iov = { h, len };

		smb2_preauth_update(c->preauth, &iov, 1);
	}
	if (c->preauth_on && cmd == SMB2_SESSION_SETUP &&
	    status == STATUS_MORE_PROCESSING_REQUIRED) {
		struct iovec iov = { h, len };

		smb2_preauth_update(c->preauth, &iov, 1);
	}
	if (len < NB_SMB2_HDR + 2)
		return conn_fail(c, "reply of %zu bytes", len);
	call->answered[i] = true;
	c->table[mid % TABLE_SIZE] = NULL;
	c->outstanding -= call->charge[i];
	call->left--;
	r.part = i;
	r.done = !call->left;
	r.status = status;
	r.command = cmd;
	r.hdr = h;
	r.body = h + NB_SMB2_HDR;
	r.body_len = len - NB_SMB2_HDR;
	call->cb(call->priv, &r);
	if (r.done)
		call_free(call);
	return 0;
}

static int reply_frame(struct nb_smb2 *c, uint8_t *p, size_t len)
{
	while (len) {
		uint32_t next;
		size_t plen;

		if (len < NB_SMB2_HDR)
			return conn_fail(c, "frame of %zu bytes", len);
		next = get_le32(p + SMB2_HDR_NEXT_COMMAND);
		if (next && (next < NB_SMB2_HDR || next > len || next % 8))
			return conn_fail(c, "bad NextCommand %u", next);
		plen = next ? next : len;
		if (reply_part(c, p, plen) < 0)
			return -EIO;
		p += plen;
		len -= plen;
	}
	return 0;
}

static int conn_read(struct nb_smb2 *c)
{
	for (;;) {
		size_t want = c->rcap - c->rlen, pos = 0;
		ssize_t r;

		/* A large frame is read up to its end only, so that what
		 * follows never has to be moved far. */
		if (c->rlen >= 4) {
			size_t fl = 4 + ((size_t)c->rbuf[1] << 16 |
					 (size_t)c->rbuf[2] << 8 | c->rbuf[3]);

			if (fl > FRAME_MAX)
				return conn_fail(c, "frame of %zu bytes", fl);
			if (fl > c->rcap) {
				uint8_t *nb = realloc(c->rbuf, fl);

				if (!nb)
					return conn_fail(c, "out of memory");
				c->rbuf = nb;
				c->rcap = fl;
				want = c->rcap - c->rlen;
			}
			if (fl > RBUF_MIN / 4 && fl > c->rlen)
				want = fl - c->rlen;
		}
		r = recv(c->fd, c->rbuf + c->rlen, want, 0);
		if (r < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return 0;
			return conn_fail(c, "recv: %s", strerror(errno));
		}
		if (r == 0)
			return conn_fail(c, "the server closed the connection");
		c->rlen += (size_t)r;
		while (c->rlen - pos >= 4) {
			uint8_t *b = c->rbuf + pos;
			size_t fl = (size_t)b[1] << 16 | (size_t)b[2] << 8 |
				    b[3];

			if (b[0])
				return conn_fail(c, "not a direct-TCP frame");
			if (c->rlen - pos < 4 + fl)
				break;
			if (reply_frame(c, b + 4, fl) < 0)
				return -EIO;
			pos += 4 + fl;
		}
		if (pos) {
			memmove(c->rbuf, c->rbuf + pos, c->rlen - pos);
			c->rlen -= pos;
		}
		if ((size_t)r < want)
			return 0;
	}
}

/**
 * nb_smb2_service() - read and dispatch what arrived, write what waits.
 * @c:       the connection
 * @revents: poll()'s events for nb_smb2_fd()
 *
 * Callbacks run from here. Returns 0, or -EIO once the connection failed
 * (nb_smb2_error() says why).
 */
int nb_smb2_service(struct nb_smb2 *c, short revents)
{
	if (c->failed)
		return -EIO;
	if (revents & (POLLIN | POLLHUP | POLLERR)) {
		if (conn_read(c) < 0)
			return -EIO;
		if (frames_release(c) < 0)
			return -EIO;
	}
	if (c->out_head && frames_write(c) < 0)
		return -EIO;
	return c->failed ? -EIO : 0;
}

/**
 * nb_smb2_wait() - drive the connection alone until *@done.
 * @c:          the connection
 * @done:       set by the callback waited for
 * @timeout_ms: give up after this long
 *
 * Returns 0, -EIO, -ETIMEDOUT.
 */
int nb_smb2_wait(struct nb_smb2 *c, const bool *done, int timeout_ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!*done) {
		struct pollfd p = { .fd = c->fd, .events = nb_smb2_events(c) };
		int r;

		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000 +
		    (t.tv_nsec - t0.tv_nsec) / 1000000 > timeout_ms) {
			conn_fail(c, "no reply in %d ms", timeout_ms);
			return -ETIMEDOUT;
		}
		r = poll(&p, 1, 100);
		if (r < 0 && errno != EINTR)
			return conn_fail(c, "poll: %s", strerror(errno));
		if (nb_smb2_service(c, r > 0 ? p.revents : 0) < 0)
			return -EIO;
	}
	return 0;
}

/* ---- the logon, synchronously ---- */

struct setup_wait {
	bool done;
	uint32_t status;
	uint8_t *body;			/* copy of the reply body */
	size_t body_len;
	uint8_t *msg;			/* copy of the whole reply part */
	size_t msg_len;
	uint64_t session_id;
	uint32_t tree_id;
};

static void setup_cb(void *priv, const struct nb_smb2_reply *r)
{
	struct setup_wait *w = priv;

	w->done = true;
	w->status = r->status;
	w->session_id = get_le64(r->hdr + SMB2_HDR_SESSION_ID);
	w->tree_id = get_le32(r->hdr + SMB2_HDR_TREE_ID);
	w->msg_len = NB_SMB2_HDR + r->body_len;
	w->msg = malloc(w->msg_len);
	if (w->msg) {
		memcpy(w->msg, r->hdr, w->msg_len);
		w->body = w->msg + NB_SMB2_HDR;
		w->body_len = r->body_len;
	}
}

static void setup_reset(struct setup_wait *w)
{
	free(w->msg);
	memset(w, 0, sizeof(*w));
}

static int setup_call(struct nb_smb2 *c, uint16_t cmd, const void *body,
		      size_t len, struct setup_wait *w, bool force_sign)
{
	struct nb_smb2_part p = { .command = cmd, .body = body,
				  .body_len = len };
	int r;

	setup_reset(w);
	r = submit(c, &p, 1, setup_cb, w, force_sign);
	if (r < 0)
		return conn_fail(c, "cannot queue command %u: %s", cmd,
				 strerror(-r));
	r = nb_smb2_wait(c, &w->done, SETUP_MS);
	if (r < 0)
		return r;
	if (!w->msg)
		return conn_fail(c, "out of memory");
	return 0;
}

static int negotiate(struct nb_smb2 *c, const struct nb_smb2_opts *o)
{
	uint8_t b[128] = { 0 }, *ctx;
	struct setup_wait w = { 0 };
	size_t len, off, nctx, i;
	uint16_t dialect, smode;
	int r;

	put_le16(b, 36);
	put_le16(b + 2, 1);			/* DialectCount */
	put_le16(b + 4, SMB2_NEGOTIATE_SIGNING_ENABLED |
		 (o->sign ? SMB2_NEGOTIATE_SIGNING_REQUIRED : 0));
	put_le32(b + 8, SMB2_GLOBAL_CAP_LARGE_MTU);
	if (ntlm_random(b + 12, 16))		/* ClientGuid */
		return conn_fail(c, "no random bytes");
	put_le16(b + 36, SMB2_DIALECT_0311);
	/* contexts at header offset 64 + 40 (8-aligned) */
	put_le32(b + 28, NB_SMB2_HDR + 40);
	put_le16(b + 32, 2);
	ctx = b + 40;
	put_le16(ctx, SMB2_PREAUTH_INTEGRITY_CAPABILITIES);
	put_le16(ctx + 2, 38);
	put_le16(ctx + 8, 1);			/* HashAlgorithmCount */
	put_le16(ctx + 10, 32);			/* SaltLength */
	put_le16(ctx + 12, SMB2_PREAUTH_INTEGRITY_SHA512);
	if (ntlm_random(ctx + 14, 32))
		return conn_fail(c, "no random bytes");
	ctx += 8 + 38 + 2;			/* 8-aligned */
	put_le16(ctx, SMB2_SIGNING_CAPABILITIES);
	put_le16(ctx + 2, 6);
	put_le16(ctx + 8, 2);
	put_le16(ctx + 10, SMB2_SIGNING_AES_GMAC);
	put_le16(ctx + 12, SMB2_SIGNING_AES_CMAC);
	len = (size_t)(ctx + 14 - b);

	smb2_preauth_init(c->preauth);
	c->preauth_on = true;
	r = setup_call(c, SMB2_NEGOTIATE, b, len, &w, false);
	if (r < 0)
		goto out;
	if (w.status != STATUS_SUCCESS || w.body_len < 64) {
		r = conn_fail(c, "NEGOTIATE: status 0x%08x", w.status);
		goto out;
	}
	smode = get_le16(w.body + 2);
	dialect = get_le16(w.body + 4);
	if (dialect != SMB2_DIALECT_0311) {
		r = conn_fail(c, "NEGOTIATE: dialect 0x%04x, not 3.1.1",
			      dialect);
		goto out;
	}
	c->dialect = dialect;
	c->large_mtu = get_le32(w.body + 24) & SMB2_GLOBAL_CAP_LARGE_MTU;
	c->max_trans = get_le32(w.body + 28);
	c->max_read = get_le32(w.body + 32);
	c->max_write = get_le32(w.body + 36);
	c->signing = o->sign || (smode & SMB2_NEGOTIATE_SIGNING_REQUIRED);
	c->sign_alg = SMB2_SIGNING_AES_CMAC;
	nctx = get_le16(w.body + 6);
	off = get_le32(w.body + 60);
	for (i = 0; i < nctx; i++) {
		const uint8_t *p;
		size_t dl;

		off = (off + 7) / 8 * 8;
		if (off < NB_SMB2_HDR || off + 8 > w.msg_len)
			break;
		p = w.msg + off;
		dl = get_le16(p + 2);
		if (off + 8 + dl > w.msg_len)
			break;
		if (get_le16(p) == SMB2_SIGNING_CAPABILITIES && dl >= 4 &&
		    get_le16(p + 8) == 1)
			c->sign_alg = get_le16(p + 10);
		off += 8 + dl;
	}
	r = 0;
out:
	setup_reset(&w);
	return r;
}

static int session_setup(struct nb_smb2 *c, const struct nb_smb2_opts *o)
{
	uint8_t b[24 + 2048] = { 0 }, key[16];
	struct setup_wait w = { 0 };
	size_t tok_len, off, blen;
	struct iovec iov;
	int r;

	put_le16(b, 25);
	b[3] = SMB2_NEGOTIATE_SIGNING_ENABLED |
	       (o->sign ? SMB2_NEGOTIATE_SIGNING_REQUIRED : 0);
	put_le16(b + 12, NB_SMB2_HDR + 24);
	r = nb_ntlm_negotiate(b + 24, sizeof(b) - 24, &tok_len);
	if (r < 0)
		return conn_fail(c, "NTLMSSP NEGOTIATE: %s", strerror(-r));
	put_le16(b + 14, (uint16_t)tok_len);
	r = setup_call(c, SMB2_SESSION_SETUP, b, 24 + tok_len, &w, false);
	if (r < 0)
		goto out;
	if (w.status != STATUS_MORE_PROCESSING_REQUIRED || w.body_len < 8) {
		r = conn_fail(c, "SESSION_SETUP 1: status 0x%08x", w.status);
		goto out;
	}
	c->session_id = w.session_id;
	off = get_le16(w.body + 4);
	blen = get_le16(w.body + 6);
	if (off < NB_SMB2_HDR + 8 || off + blen > w.msg_len) {
		r = conn_fail(c, "SESSION_SETUP 1: bad security buffer");
		goto out;
	}
	r = nb_ntlm_authenticate(o, w.msg + off, blen, b + 24, sizeof(b) - 24,
				 &tok_len, key);
	if (r < 0) {
		r = conn_fail(c, "NTLMSSP AUTHENTICATE: %s", strerror(-r));
		goto out;
	}
	put_le16(b + 14, (uint16_t)tok_len);
	r = setup_call(c, SMB2_SESSION_SETUP, b, 24 + tok_len, &w, false);
	if (r < 0)
		goto out;
	if (w.status != STATUS_SUCCESS) {
		r = conn_fail(c, "logon of %s refused: status 0x%08x%s",
			      o->user, w.status,
			      w.status == STATUS_LOGON_FAILURE ?
			      " (LOGON_FAILURE: user or password)" : "");
		goto out;
	}
	if (get_le16(w.body + 2) & (SMB2_SESSION_FLAG_IS_GUEST |
					SMB2_SESSION_FLAG_IS_NULL)) {
		r = conn_fail(c, "logged on as guest/anonymous, not %s",
			      o->user);
		goto out;
	}
	r = smb2_sign_key_derive(&c->key, c->dialect,
				 (enum smb2_sign_alg)c->sign_alg, key, 16,
				 c->preauth);
	ntlm_wipe(key, sizeof(key));
	if (r < 0) {
		r = conn_fail(c, "signing key: %s", strerror(-r));
		goto out;
	}
	c->have_key = true;
	c->preauth_on = false;
	/* the final reply of a 3.1.1 logon is signed (§3.3.5.5.3): this
	 * proves the whole key derivation */
	iov.iov_base = w.msg;
	iov.iov_len = w.msg_len;
	if (!(get_le32(w.msg + SMB2_HDR_FLAGS) & SMB2_FLAGS_SIGNED) ||
	    !smb2_verify(&c->key, get_le64(w.msg + SMB2_HDR_MESSAGE_ID), true,
			 false, &iov, 1)) {
		r = conn_fail(c, "SESSION_SETUP: the server's signature does "
			      "not verify (wrong key derivation?)");
		goto out;
	}
	r = 0;
out:
	setup_reset(&w);
	return r;
}

static int tree_connect(struct nb_smb2 *c, const struct nb_smb2_opts *o)
{
	uint8_t b[8 + 1024] = { 0 };
	struct setup_wait w = { 0 };
	char path[400];
	size_t n = 0;
	int r;

	snprintf(path, sizeof(path), "\\\\%s\\%s", o->host, o->share);
	if (utf8_to_utf16le(path, strlen(path), b + 8, sizeof(b) - 8, &n))
		return conn_fail(c, "share name '%s' is not UTF-8", o->share);
	put_le16(b, 9);
	put_le16(b + 4, NB_SMB2_HDR + 8);
	put_le16(b + 6, (uint16_t)n);
	/* 3.1.1 signs TREE_CONNECT whatever the session does (§3.2.4.1.1) */
	r = setup_call(c, SMB2_TREE_CONNECT, b, 8 + n, &w, true);
	if (r < 0)
		goto out;
	if (w.status != STATUS_SUCCESS) {
		r = conn_fail(c, "TREE_CONNECT %s: status 0x%08x%s", path,
			      w.status, w.status == STATUS_BAD_NETWORK_NAME ?
			      " (no such share)" : "");
		goto out;
	}
	c->tree_id = w.tree_id;
	r = 0;
out:
	setup_reset(&w);
	return r;
}

static int tcp_connect(struct nb_smb2 *c, const struct nb_smb2_opts *o)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *ai;
	char port[16];
	int r, one = 1;

	snprintf(port, sizeof(port), "%d", o->port);
	r = getaddrinfo(o->host, port, &hints, &res);
	if (r)
		return conn_fail(c, "%s: %s", o->host, gai_strerror(r));
	c->fd = -1;
	for (ai = res; ai; ai = ai->ai_next) {
		c->fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (c->fd < 0)
			continue;
		if (!connect(c->fd, ai->ai_addr, ai->ai_addrlen))
			break;
		close(c->fd);
		c->fd = -1;
	}
	freeaddrinfo(res);
	if (c->fd < 0)
		return conn_fail(c, "connect %s:%d: %s", o->host, o->port,
				 strerror(errno));
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) | O_NONBLOCK);
	return 0;
}

/**
 * nb_smb2_connect() - connect, negotiate 3.1.1, log on and connect the
 * share, synchronously.
 * @o:      where and who
 * @out:    the connection, the caller's (nb_smb2_destroy()) even on failure
 *          when not NULL
 * @err:    a message on failure
 * @errlen: its room
 *
 * Returns 0 or -1.
 */
int nb_smb2_connect(const struct nb_smb2_opts *o, struct nb_smb2 **out,
		    char *err, size_t errlen)
{
	struct nb_smb2 *c = calloc(1, sizeof(*c));

	*out = c;
	if (!c || smb2_crypto_init()) {
		snprintf(err, errlen, "out of memory or no crypto");
		return -1;
	}
	c->fd = -1;
	c->avail = 1;
	c->target = o->credits < 16 ? 16 : o->credits > CREDITS_MAX ?
		    CREDITS_MAX : o->credits;
	c->rcap = RBUF_MIN;
	c->rbuf = malloc(c->rcap);
	if (!c->rbuf) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (tcp_connect(c, o) < 0 || negotiate(c, o) < 0 ||
	    session_setup(c, o) < 0 || tree_connect(c, o) < 0) {
		snprintf(err, errlen, "%s", c->error);
		return -1;
	}
	return 0;
}

/**
 * nb_smb2_destroy() - close the socket and free the connection; requests
 * still queued or in flight are dropped without their callbacks.
 * @c: the connection, or NULL
 */
void nb_smb2_destroy(struct nb_smb2 *c)
{
	struct smb2_frame *f, *n;
	unsigned int i;

	if (!c)
		return;
	for (f = c->wait_head; f; f = n) {
		n = f->next;
		call_free(f->call);
		frame_free(f);
	}
	for (f = c->out_head; f; f = n) {
		n = f->next;
		frame_free(f);
	}
	for (i = 0; i < TABLE_SIZE; i++) {
		struct smb2_call *call = c->table[i];
		unsigned int k;

		if (!call)
			continue;
		for (k = 0; k < call->nparts; k++)
			if (!call->answered[k])
				c->table[call->mid[k] % TABLE_SIZE] = NULL;
		call_free(call);
	}
	if (c->fd >= 0)
		close(c->fd);
	smb2_sign_key_wipe(&c->key);
	free(c->rbuf);
	free(c);
}
