/* SPDX-License-Identifier: MIT */
/*
 * Connections: reading messages (loop thread), sending replies and the
 * server's own messages (worker thread, or the loop when the socket was
 * full), reference counting and closing. What a message means is the
 * listener's protocol's business (struct transport_proto).
 */
#include "transport/xprt.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/iobuf.h"
#include "core/log.h"
#include "core/stats.h"

/* Frame bytes still due at least this large are read in place. */
#define DIRECT_READ_MIN 4096
/*
 * After a large message, the next header is read in a small piece (one
 * header and the head the alignment hint needs), so that the next large
 * payload is not staged and copied but received in place, aligned.
 */
#define BULK_STAGE (FRAME_HEAD_MAX + FRAME_HDR_MAX)

static bool sockaddr_privileged(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)ss)->sin_port) < 1024;
	if (ss->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port) <
		       1024;
	return false;
}

/*
 * conn_new() - a connection for accepted socket @fd (ownership of @fd
 * passes to it) serving @proto, with one reference, the loop's. NULL on
 * ENOMEM.
 */
struct conn *conn_new(int fd, const struct sockaddr_storage *peer,
		      socklen_t peer_len, const struct transport_proto *proto)
{
	struct conn *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->kind = EP_CONN;
	c->fd = fd;
	c->proto = proto;
	atomic_init(&c->refs, 1);
	atomic_init(&c->max_inflight, proto->max_inflight
					       ? proto->max_inflight
					       : xprt.lim.max_inflight);
	pthread_mutex_init(&c->lock, NULL);
	c->fops.hdr_len = proto->hdr_len;
	c->fops.parse = proto->frame_parse;
	c->fops.align = proto->align;
	atomic_init(&c->max_msg, proto->max_msg ? proto->max_msg
					       : xprt.lim.max_record);
	frame_init(&c->dec, &c->fops, atomic_load(&c->max_msg));
	memcpy(&c->peer, peer, peer_len);
	c->peer_len = peer_len;
	c->privileged = sockaddr_privileged(peer);
	c->local_len = sizeof(c->local);
	if (getsockname(fd, (struct sockaddr *)&c->local, &c->local_len) < 0)
		c->local_len = 0;
	return c;
}

static void conn_free(struct conn *c)
{
	struct xreq *xr;
	int i;

	for (i = 0; i < XREQ_SPARES; i++) {
		xr = atomic_exchange(&c->spare[i], NULL);
		free(xr);
	}
	if (c->proto_up && c->proto->conn_free)
		c->proto->conn_free(c->priv);
	frame_destroy(&c->dec);
	free(c->stash);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

/* conn_put() - drop a reference; the last one frees @c. */
void conn_put(struct conn *c)
{
	if (atomic_fetch_sub(&c->refs, 1) == 1)
		conn_free(c);
}

static struct xreq *xreq_get(struct conn *c)
{
	struct xreq *xr;
	int i;

	for (i = 0; i < XREQ_SPARES; i++) {
		if (atomic_load_explicit(&c->spare[i], memory_order_relaxed)) {
			xr = atomic_exchange(&c->spare[i], NULL);
			if (xr)
				return xr;
		}
	}
	return malloc(sizeof(*xr));
}

/*
 * A request finished: below the limit again, a paused connection must be
 * resumed by its loop (which may have unread bytes stashed, so waiting
 * for the socket to become readable is not enough).
 */
static void conn_call_done(struct conn *c)
{
	unsigned int left = atomic_fetch_sub(&c->inflight, 1) - 1;

	if (left < atomic_load_explicit(&c->max_inflight,
					memory_order_relaxed) &&
	    atomic_load(&c->paused) && atomic_exchange(&c->paused, false))
		loop_post_resume(c);
	transport_total_done(1);
}

/* Reply bytes of @xr not yet written. */
static size_t xreq_left(const struct xreq *xr)
{
	size_t n = 0;
	int i;

	for (i = xr->iov_first; i < xr->iov_cnt; i++)
		n += xr->iov[i].iov_len;
	return n;
}

/*
 * A reply is leaving the send queue to be freed: it stopped counting
 * against max_inflight_total when it was queued (transport_total_done),
 * so give back the count xreq_free() is about to take.
 */
static void xreq_unqueue(struct xreq *xr)
{
	(void)xr;
	if (xprt.lim.max_inflight_total)
		atomic_fetch_add(&xprt.inflight_total, 1);
}

/*
 * @xr joins the send queue (@c->lock held): its call is answered, so it
 * no longer counts as in flight in total; its unsent bytes count against
 * max_sendq (reading pauses above a quarter of it, conn_read_stopped; a
 * queue over it that the client does not take is cut, conn_expired).
 */
static void conn_queue_reply(struct conn *c, struct xreq *xr)
{
	size_t q = atomic_load(&c->sendq_bytes) + xreq_left(xr);

	atomic_store(&c->sendq_bytes, q);
	xr->next = NULL;
	if (c->sendq_head)
		c->sendq_tail->next = xr;
	else
		c->sendq_head = xr;
	c->sendq_tail = xr;
	atomic_store(&c->has_sendq, true);
	transport_total_done(1);
}

/*
 * xreq_free() - release everything @xr holds (arena, message, reply
 * payload) and its reference on the connection.
 */
void xreq_free(struct xreq *xr)
{
	struct conn *c = xr->req.conn;
	struct xreq *expect;
	int i;

	if (c->proto->release)
		c->proto->release(&xr->req);
	req_finish(&xr->req);
	iobuf_put(xr->msg_buf);
	xr->msg_buf = NULL;
	for (i = 0; i < XREQ_SPARES; i++) {
		expect = NULL;
		if (atomic_compare_exchange_strong(&c->spare[i], &expect, xr))
			break;
	}
	if (i == XREQ_SPARES)
		free(xr);
	conn_call_done(c);
	conn_put(c);
}

/*
 * Send what is left of the file range @iov of @xr with sendfile(2): the
 * socket takes references to the page-cache pages, nothing is copied here.
 * Returns 1 when a part went (@iov advanced), 0 when the socket is full,
 * -errno on an error; -EIO when the file ended early (its length is
 * already in the frame header: the connection has to go).
 */
static ssize_t xreq_write_file(struct conn *c, struct xreq *xr,
				struct iovec *iov)
{
	off_t off = (off_t)xr->file_off;
	ssize_t n;

	for (;;) {
		n = sendfile(c->fd, xr->file_fd, &off, iov->iov_len);
		if (n > 0)
			break;
		if (n == 0)
			return -EIO;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return 0;
		return -errno;
	}
	xr->file_off = (uint64_t)off;
	iov->iov_len -= (size_t)n;
	if (!iov->iov_len)
		xr->iov_first++;
	return 1;
}

/*
 * Write what is left of @xr's reply, with extra sendmsg @flags (MSG_MORE).
 * Returns 1 when all of it went, 0 when the socket is full, -errno on a
 * socket error. @c->lock held.
 */
static int xreq_write(struct conn *c, struct xreq *xr, int flags)
{
	struct msghdr msg = { 0 };
	struct iovec *iov;
	ssize_t n;
	int i;

	for (;;) {
		if (xr->iov_first == xr->iov_cnt)
			return 1;
		iov = &xr->iov[xr->iov_first];
		if (!iov->iov_base) {
			n = xreq_write_file(c, xr, iov);
			if (n <= 0)
				return (int)n;
			continue;
		}
		/* Memory pieces up to the file range or the end. */
		for (i = xr->iov_first; i < xr->iov_cnt && xr->iov[i].iov_base;)
			i++;
		msg.msg_iov = iov;
		msg.msg_iovlen = (size_t)(i - xr->iov_first);
		n = sendmsg(c->fd, &msg,
			    MSG_NOSIGNAL | MSG_DONTWAIT |
				    (i < xr->iov_cnt ? MSG_MORE : flags));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			return -errno;
		}
		/* Advance over what went, never into the file range. */
		while (xr->iov_first < i) {
			iov = &xr->iov[xr->iov_first];
			if ((size_t)n < iov->iov_len) {
				iov->iov_base = (uint8_t *)iov->iov_base + n;
				iov->iov_len -= (size_t)n;
				break;
			}
			n -= (ssize_t)iov->iov_len;
			xr->iov_first++;
		}
	}
}

/*
 * Frame the reply built in xr->req and lay out its pieces for the writes:
 * the frame header goes into the head room in front of the protocol's
 * headers, so it leaves in the same iovec. A file-range payload this
 * transport can always send (sendfile). False when the reply cannot be
 * framed (empty, or too long for the protocol's frame header).
 */
static bool xreq_frame(struct conn *c, struct xreq *xr)
{
	struct req *r = &xr->req;
	size_t len = req_reply_len(r);
	uint8_t *hdr;

	if (!len || len > c->proto->frame_max) {
		log_err("transport: %s: reply of %zu bytes cannot be framed",
			c->proto->name, len);
		return false;
	}
	hdr = req_reply_prepend(r, c->proto->hdr_len);
	if (!hdr) {
		log_err("transport: %s: no head room for the frame header",
			c->proto->name);
		return false;
	}
	c->proto->frame_build(hdr, (uint32_t)len);
	xr->iov_first = 0;
	xr->iov_cnt = req_reply_iov(r, xr->iov);
	/* A file range: its piece has no base (see xreq_write). */
	xr->file_fd = r->reply.payload.fd;
	xr->file_off = r->reply.payload.off;
	xr->next = NULL;
	return true;
}

/*
 * Send the reply built in xr->req; ownership of @xr passes here. @flags:
 * MSG_MORE when another reply follows at once (the loop's inline calls).
 */
static void conn_send(struct conn *c, struct xreq *xr, int flags)
{
	int ret;

	if (!xreq_frame(c, xr)) {
		xreq_free(xr);
		return;
	}
	pthread_mutex_lock(&c->lock);
	if (atomic_load(&c->closed) || atomic_load(&c->cut)) {
		pthread_mutex_unlock(&c->lock);
		xreq_free(xr);
		return;
	}
	/* Replies queued before this one go first (one writer at a time). */
	if (c->sendq_head) {
		conn_queue_reply(c, xr);
		pthread_mutex_unlock(&c->lock);
		return;
	}
	ret = xreq_write(c, xr, flags);
	if (ret == 0) {
		conn_queue_reply(c, xr);
		/*
		 * The socket may have drained between the failed write and
		 * has_sendq becoming visible to the loop, whose EPOLLOUT
		 * would then have been ignored: try once more, so that a
		 * later full socket raises a new edge the loop will see.
		 */
		ret = xreq_write(c, xr, 0);
		if (ret == 0) {
			atomic_store(&c->sendq_bytes, xreq_left(xr));
			pthread_mutex_unlock(&c->lock);
			return;
		}
		c->sendq_head = c->sendq_tail = NULL;
		atomic_store(&c->sendq_bytes, 0);
		atomic_store(&c->has_sendq, false);
		xreq_unqueue(xr);
	}
	if (ret < 0) {
		log_debug("transport: send: %s", strerror(-ret));
		/* The loop sees the hang-up and closes the connection. */
		shutdown(c->fd, SHUT_RDWR);
	}
	pthread_mutex_unlock(&c->lock);
	xreq_free(xr);
}

static struct xreq *xreq_of(struct req *r)
{
	return (struct xreq *)(void *)((char *)r - offsetof(struct xreq, req));
}

/*
 * A request its protocol parked (REQ_PARK): whichever of this and
 * transport_req_resume() comes second queues it; true when this did
 * (the resume came first).
 */
static bool park_meet(struct xreq *xr, int mine)
{
	if (atomic_exchange(&xr->park, mine) == XREQ_PARK_NONE)
		return false;
	atomic_store(&xr->park, XREQ_PARK_NONE);
	return true;
}

/* @xr's protocol parked it: true when it was resumed meanwhile (it runs
 * again now), else it waits, counted in its connection's parked. */
static bool xreq_park(struct xreq *xr)
{
	struct conn *c = xr->req.conn;

	atomic_fetch_add(&c->parked, 1);
	if (!park_meet(xr, XREQ_PARK_PARKED))
		return false;
	atomic_fetch_sub(&c->parked, 1);
	return true;
}

static void xreq_parked(struct xreq *xr)
{
	if (xreq_park(xr))
		workq_push(xr, xr, 1);
}

void transport_req_resume(struct req *r)
{
	struct xreq *xr = xreq_of(r);

	if (park_meet(xr, XREQ_PARK_RESUMED)) {
		atomic_fetch_sub(&r->conn->parked, 1);
		workq_push(xr, xr, 1);
	}
}

/*
 * xreq_run() - worker side: process the request (or continue a deferred
 * one) and send its reply; @xr is freed here or queued on its connection.
 */
void xreq_run(struct xreq *xr)
{
	struct conn *c = xr->req.conn;

	xr->req.nowait = false;
	if (atomic_load_explicit(&c->closed, memory_order_relaxed)) {
		xreq_free(xr);
		return;
	}
	switch (c->proto->process(&xr->req)) {
	case REQ_REPLY:
		conn_send(c, xr, 0);
		return;
	case REQ_PARK:
		xreq_parked(xr);
		return;
	case REQ_DEFER:
		/* Only an inline request may defer; a worker may block. */
		log_err("transport: %s: request deferred on a worker",
			c->proto->name);
		break;
	case REQ_DROP:
		break;
	}
	xreq_free(xr);
}

/* A fresh request on @c in @xr, its arena after @xr->arena_off bytes. */
static void xreq_prep(struct xreq *xr, struct conn *c)
{
	struct req *r = &xr->req;

	req_init(r, xr->arena + xr->arena_off,
		 sizeof(xr->arena) - xr->arena_off);
	r->conn = c;
	r->conn_priv = c->priv;
	r->peer = &c->peer;
	r->peer_len = c->peer_len;
	r->local = &c->local;
	r->local_len = c->local_len;
	r->peer_privileged = c->privileged;
	r->caps = REQ_CAP_FILE;
	xr->msg_buf = NULL;
	atomic_store(&xr->park, XREQ_PARK_NONE);
}

/*
 * xreq_run_inline() - loop side: process a request marked nowait and send
 * its reply, with MSG_MORE when @more (another reply to the same
 * connection follows in this round). Returns true when the request must
 * block after all: it is deferred, ready to continue, and the caller
 * hands it to the pool; else @xr is freed or queued on its connection.
 */
bool xreq_run_inline(struct xreq *xr, bool more)
{
	struct conn *c = xr->req.conn;

	if (atomic_load_explicit(&c->closed, memory_order_relaxed)) {
		xreq_free(xr);
		return false;
	}
	xr->req.nowait = true;
	switch (c->proto->process(&xr->req)) {
	case REQ_REPLY:
		c->corked = more;
		conn_send(c, xr, more ? MSG_MORE : 0);
		return false;
	case REQ_DEFER:
		return true;
	case REQ_PARK:
		/* Resumed already: the caller hands it to the pool. */
		return xreq_park(xr);
	case REQ_DROP:
		break;
	}
	xreq_free(xr);
	return false;
}

/*
 * xreq_uncork() - loop side: the last inline call of a round on @c sent
 * nothing (dropped, or handed to the pool) after replies that went with
 * MSG_MORE: push them out now (setting TCP_NODELAY pushes pending data).
 */
void xreq_uncork(struct conn *c)
{
	int one = 1;

	c->corked = false;
	if (atomic_load(&c->closed))
		return;
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

void transport_conn_get(struct conn *c)
{
	atomic_fetch_add(&c->refs, 1);
}

void transport_conn_put(struct conn *c)
{
	conn_put(c);
}

bool transport_conn_closed(const struct conn *c)
{
	return atomic_load(&c->closed) || atomic_load(&c->cut);
}

void transport_conn_shutdown(struct conn *c)
{
	pthread_mutex_lock(&c->lock);
	if (!atomic_load(&c->closed)) {
		atomic_store(&c->cut, true);
		/* The loop sees the hang-up and closes the connection. */
		shutdown(c->fd, SHUT_RDWR);
	}
	pthread_mutex_unlock(&c->lock);
}

void transport_conn_set_max_inflight(struct conn *c, uint32_t n)
{
	atomic_store(&c->max_inflight, n ? n : 1);
	/* Raised above what is in flight: a paused reader may go on. */
	if (atomic_load(&c->inflight) < (n ? n : 1) &&
	    atomic_load(&c->paused) && atomic_exchange(&c->paused, false))
		loop_post_resume(c);
}

void transport_conn_set_max_msg(struct conn *c, uint32_t n)
{
	/* The loop owns the decoder: it takes the new limit on its next
	 * read (conn_read). */
	atomic_store(&c->max_msg, n);
}

/*
 * A server message is a request with no received message whose reply is
 * the message: it counts as a request in flight on @c (and in total)
 * until written, like any reply, so the send queue limits apply to it.
 */
struct req *transport_msg_new(struct conn *c)
{
	struct xreq *xr;

	if (transport_conn_closed(c))
		return NULL;
	xr = xreq_get(c);
	if (!xr)
		return NULL;
	xr->arena_off = 0;
	xreq_prep(xr, c);
	atomic_fetch_add(&c->refs, 1);
	atomic_fetch_add(&c->inflight, 1);
	if (xprt.lim.max_inflight_total)
		atomic_fetch_add(&xprt.inflight_total, 1);
	return &xr->req;
}

int transport_msg_send(struct req *m)
{
	struct xreq *xr = xreq_of(m);
	struct conn *c = m->conn;
	size_t len = req_reply_len(m);

	if (!len || len > c->proto->frame_max) {
		xreq_free(xr);
		return -EMSGSIZE;
	}
	if (transport_conn_closed(c)) {
		xreq_free(xr);
		return -ENOTCONN;
	}
	conn_send(c, xr, 0);
	return 0;
}

void transport_msg_free(struct req *m)
{
	xreq_free(xreq_of(m));
}

/* conn_flush() - loop side: the socket drained, send the queued replies. */
void conn_flush(struct loop *lp, struct conn *c)
{
	struct xreq *done = NULL, *xr;
	size_t before, after, q0, q;
	int ret = 0;

	if (!atomic_load(&c->has_sendq))
		return;
	pthread_mutex_lock(&c->lock);
	q = q0 = atomic_load(&c->sendq_bytes);
	while ((xr = c->sendq_head) != NULL && !atomic_load(&c->closed) &&
	       !atomic_load(&c->cut)) {
		before = xreq_left(xr);
		ret = xreq_write(c, xr, 0);
		after = ret == 0 ? xreq_left(xr) : 0;
		q -= q >= before - after ? before - after : q;
		if (ret == 0)
			break;
		c->sendq_head = xr->next;
		xr->next = done;
		done = xr;
		if (ret < 0) {
			shutdown(c->fd, SHUT_RDWR);
			break;
		}
	}
	if (!c->sendq_head) {
		c->sendq_tail = NULL;
		q = 0;
		atomic_store(&c->has_sendq, false);
	}
	atomic_store(&c->sendq_bytes, q);
	pthread_mutex_unlock(&c->lock);
	/* The client takes its replies: not idle, not stalled. */
	if (q < q0) {
		c->last_active = lp->now;
		c->sendq_full_at = 0;
	}
	while ((xr = done) != NULL) {
		done = xr->next;
		xreq_unqueue(xr);
		xreq_free(xr);
	}
	/* Reading paused for the queue resumes once it has drained. */
	if (c->sendq_paused && q <= xprt.lim.max_sendq / 8)
		conn_read(lp, c);
}

/* conn_close() - loop side: unregister, close the socket, drop replies. */
void conn_close(struct loop *lp, struct conn *c)
{
	struct xreq *q, *xr;

	if (atomic_load(&c->closed))
		return;
	epoll_ctl(lp->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	pthread_mutex_lock(&c->lock);
	atomic_store(&c->closed, true);
	q = c->sendq_head;
	c->sendq_head = c->sendq_tail = NULL;
	atomic_store(&c->has_sendq, false);
	atomic_store(&c->sendq_bytes, 0);
	close(c->fd);
	c->fd = -1;
	pthread_mutex_unlock(&c->lock);
	while ((xr = q) != NULL) {
		q = xr->next;
		xreq_unqueue(xr);
		xreq_free(xr);
	}
	frame_destroy(&c->dec);
	free(c->stash);
	c->stash = NULL;
	c->stash_len = c->stash_off = 0;
	if (c->prev)
		c->prev->next = c->next;
	else
		lp->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	if (lp->resume_at == c)
		lp->resume_at = c->next;
	atomic_fetch_sub(&lp->nconns, 1);
	atomic_fetch_sub(&xprt.nconns, 1);
	client_conn_del(&c->peer);
	stats_conn_close();
	if (c->proto_up && c->proto->conn_close)
		c->proto->conn_close(c, c->priv);
	/* The loop's reference is dropped after this round of events. */
	c->prev = NULL;
	c->next = lp->zombies;
	lp->zombies = c;
}

/* Turn the decoder's complete message into a request on the loop's batch. */
static int conn_emit(struct loop *lp, struct conn *c)
{
	struct xreq *xr = xreq_get(c);
	struct iobuf *buf = NULL;
	uint8_t *msg;
	size_t len, off = 0;
	uint32_t max;

	if (!xr)
		return -ENOMEM;
	if (c->dec.msg_len <= XREQ_MSG_INLINE) {
		/* Small messages live in the arena; the decoder keeps its
		 * buffer for the next one. */
		len = c->dec.msg_len;
		if (len)
			memcpy(xr->arena, c->dec.msg, len);
		msg = xr->arena;
		off = (len + alignof(max_align_t) - 1) &
		      ~(alignof(max_align_t) - 1);
		frame_done(&c->dec);
	} else {
		msg = frame_take(&c->dec, &len, &buf);
	}
	c->bulk = len >= FRAME_ALIGN_MIN;
	xr->arena_off = (uint32_t)off;
	xreq_prep(xr, c);
	xr->req.msg = msg;
	xr->req.msg_len = len;
	xr->msg_buf = buf;
	atomic_fetch_add(&c->refs, 1);

	xr->next = NULL;
	if (lp->ninl < LOOP_INLINE_MAX && c->proto->may_inline &&
	    c->proto->may_inline(c->priv, msg, len)) {
		/* Cheap: run on this thread once the round's reads are done
		 * (workq.c, loop_run_inline). */
		if (lp->inl_tail)
			lp->inl_tail->next = xr;
		else
			lp->inl_head = xr;
		lp->inl_tail = xr;
		lp->ninl++;
		c->inl_pending++;
	} else {
		if (lp->batch_tail)
			lp->batch_tail->next = xr;
		else
			lp->batch_head = xr;
		lp->batch_tail = xr;
		if (++lp->nbatch >= 64)
			loop_flush_batch(lp);
	}

	max = atomic_load_explicit(&c->max_inflight, memory_order_relaxed);
	if (atomic_fetch_add(&c->inflight, 1) + 1 >= max) {
		atomic_store(&c->paused, true);
		/* A worker may have finished one in between (see
		 * conn_call_done): whoever clears the flag resumes. */
		if (atomic_load(&c->inflight) < max)
			atomic_exchange(&c->paused, false);
	}
	return 0;
}

/* Reading paused at the memory ceiling: count it, say so (rate-limited). */
static void conn_mem_hit(void)
{
	stats_limit_hit(STATS_LIMIT_MEMORY);
	log_ratelimited(LL_INFO, "transport: payload buffers at their "
			"ceiling, reading paused (--max-memory)");
}

/*
 * The pool refused storage for the message being read: wait for the relief
 * hook (loop_mem_resume) unless memory came back in the meantime. Setting
 * the waiter flag before the last try means a buffer freed after the try
 * always wakes us.
 */
static void conn_mem_wait(struct conn *c)
{
	iobuf_wait_relief();
	if (!frame_retry(&c->dec)) {
		c->mem_paused = true;
		conn_mem_hit();
	}
}

/*
 * Before reading another request: stop while the pool is above its high
 * watermark (the socket then fills and TCP slows the client down).
 * Returns true when the connection is paused.
 */
static bool conn_mem_check(struct conn *c)
{
	if (frame_need_mem(&c->dec))
		conn_mem_wait(c);
	else if (frame_idle(&c->dec) && iobuf_pressure() &&
		 iobuf_wait_relief()) {
		c->mem_paused = true;
		conn_mem_hit();
	}
	return c->mem_paused;
}

/*
 * A message just became a request: its clock stops, the request counts
 * against max_inflight_total (reading stops at the limit, on every
 * connection, until transport_total_done() sees the low watermark).
 */
static void conn_note_call(struct conn *c)
{
	unsigned int max = xprt.lim.max_inflight_total;

	c->rec_start = 0;
	if (atomic_load_explicit(&c->paused, memory_order_relaxed)) {
		/* Flow control, as designed: counted, logged for debugging. */
		stats_limit_hit(STATS_LIMIT_INFLIGHT);
		log_ratelimited(LL_DEBUG,
				"transport: %u requests in flight on a "
				"connection, reading paused (--max-inflight)",
				atomic_load(&c->max_inflight));
	}
	if (!max || atomic_fetch_add(&xprt.inflight_total, 1) + 1 < max)
		return;
	if (!atomic_exchange(&xprt.total_paused, true)) {
		stats_limit_hit(STATS_LIMIT_INFLIGHT_TOTAL);
		log_ratelimited(LL_INFO,
				"transport: %u calls in flight, reading "
				"paused (--max-inflight-total)",
				max);
		/* All of them may have finished before the flag was up. */
		if (atomic_load(&xprt.inflight_total) <= max - max / 4 &&
		    atomic_exchange(&xprt.total_paused, false))
			transport_mem_relief();
	}
	/* Stop decoding now; loop_mem_resume() restarts us. */
	c->mem_paused = true;
}

/*
 * Before reading more from @c: are the limits shared by all connections
 * (in flight in total) or its own unread replies in the way? Returns
 * true when reading must stop; the total's relief, or conn_flush() once
 * the queue drained below an eighth of max_sendq, resumes it.
 */
static bool conn_read_stopped(struct conn *c)
{
	size_t q, max = xprt.lim.max_sendq;

	if (atomic_load(&xprt.total_paused)) {
		c->mem_paused = true;
		return true;
	}
	if (!max)
		return false;
	q = atomic_load_explicit(&c->sendq_bytes, memory_order_relaxed);
	if (c->sendq_paused) {
		if (q > max / 8)
			return true;
		c->sendq_paused = false;
		return false;
	}
	if (q <= max / 4)
		return false;
	c->sendq_paused = true;
	stats_limit_hit(STATS_LIMIT_SENDQ_PAUSE);
	log_ratelimited(LL_DEBUG,
			"transport: %zu reply bytes unread, reading paused",
			q);
	return true;
}

/* The first bytes of a message arrived: its clock starts (conn_expired). */
static void conn_note_read(struct loop *lp, struct conn *c)
{
	c->spoke = true;
	c->last_active = lp->now;
	if (!c->rec_start && !frame_idle(&c->dec))
		c->rec_start = lp->now;
}

/*
 * Decode @len bytes; at the in-flight limit keep the rest in the stash.
 * Returns 0 or -errno (the connection must close).
 */
static int conn_feed(struct loop *lp, struct conn *c, const uint8_t *p,
		     size_t len)
{
	ssize_t n;
	uint8_t *s;
	int ret;

	while (len) {
		if (atomic_load(&c->paused) || c->mem_paused) {
			s = malloc(len);
			if (!s)
				return -ENOMEM;
			memcpy(s, p, len);
			free(c->stash);
			c->stash = s;
			c->stash_off = 0;
			c->stash_len = len;
			return 0;
		}
		n = frame_decode(&c->dec, p, len);
		if (n < 0)
			return (int)n;
		p += n;
		len -= (size_t)n;
		if (frame_need_mem(&c->dec)) {
			conn_mem_wait(c);
			continue;
		}
		if (frame_complete(&c->dec)) {
			ret = conn_emit(lp, c);
			if (ret < 0)
				return ret;
			conn_note_call(c);
		}
	}
	return 0;
}

static void conn_fail(struct loop *lp, struct conn *c, int err)
{
	char host[64];

	xprt_host(&c->peer, host, sizeof(host));
	if (err == -EMSGSIZE) {
		stats_limit_hit(STATS_LIMIT_RECORD_SIZE);
		log_ratelimited(LL_WARN,
				"transport: %s: %s record larger than %u "
				"bytes, closing",
				host, c->proto->name, c->dec.max_msg);
	} else if (err)
		log_debug("transport: %s: %s, closing", host, strerror(-err));
	conn_close(lp, c);
}

/*
 * conn_read() - loop side: decode stashed bytes, then read the socket
 * until it is drained (edge-triggered), the peer closes, or the
 * connection reaches its in-flight limit.
 */
void conn_read(struct loop *lp, struct conn *c)
{
	struct iovec iov[2];
	size_t want, asked, direct, got, stage;
	uint8_t *body, *s;
	ssize_t n;
	int niov, ret;

	if (atomic_load(&c->closed) || atomic_load(&xprt.stopping))
		return;
	if (atomic_load(&c->cut)) {
		/* transport_conn_shutdown() */
		conn_close(lp, c);
		return;
	}
	frame_set_max(&c->dec,
		      atomic_load_explicit(&c->max_msg, memory_order_relaxed));
	for (;;) {
		if (atomic_load(&c->paused) || c->mem_paused ||
		    conn_read_stopped(c))
			return;
		/*
		 * Stashed bytes precede anything still in the socket: a
		 * worker may unpause us right after a stash was made.
		 */
		if (c->stash) {
			s = c->stash;
			c->stash = NULL;
			ret = conn_feed(lp, c, s + c->stash_off,
					c->stash_len - c->stash_off);
			free(s);
			if (ret < 0) {
				conn_fail(lp, c, ret);
				return;
			}
			continue;
		}
		if (conn_mem_check(c))
			return;
		niov = 0;
		direct = 0;
		body = frame_body_space(&c->dec, &want);
		if (body && want >= DIRECT_READ_MIN) {
			iov[niov++] = (struct iovec){ body, want };
			direct = want;
		}
		stage = c->bulk ? BULK_STAGE : sizeof(lp->stage);
		iov[niov++] = (struct iovec){ lp->stage, stage };
		asked = direct + stage;
		n = readv(c->fd, iov, niov);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				conn_fail(lp, c, -errno);
			return;
		}
		if (n == 0) {
			conn_fail(lp, c, 0);
			return;
		}
		got = (size_t)n;
		if (direct) {
			want = (size_t)n < direct ? (size_t)n : direct;
			frame_body_advance(&c->dec, want);
			if (frame_complete(&c->dec)) {
				ret = conn_emit(lp, c);
				if (ret < 0) {
					conn_fail(lp, c, ret);
					return;
				}
				conn_note_call(c);
			}
			n -= (ssize_t)want;
		}
		ret = conn_feed(lp, c, lp->stage, (size_t)n);
		if (ret < 0) {
			conn_fail(lp, c, ret);
			return;
		}
		conn_note_read(lp, c);
		/* A short read drained the socket; the next data raises a
		 * new edge. */
		if (got < asked)
			return;
	}
}
