/* SPDX-License-Identifier: MIT */
/*
 * Connections: reading records (loop thread), sending replies (worker
 * thread, or the loop when the socket was full), reference counting and
 * closing.
 */
#include "transport/xprt.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/iobuf.h"
#include "core/log.h"
#include "core/stats.h"

/* Fragment bytes still due at least this large are read in place. */
#define DIRECT_READ_MIN 4096
/*
 * After a large record, the next header is read in a small piece (one
 * header and the head the alignment hint needs), so that the next large
 * payload is not staged and copied but received in place, aligned.
 */
#define BULK_STAGE (RM_HEAD_MAX + 4)

static const uint8_t zero_pad[4];

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
 * passes to it) with one reference, the loop's. NULL on ENOMEM.
 */
struct conn *conn_new(int fd, const struct sockaddr_storage *peer,
		      socklen_t peer_len)
{
	struct conn *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->kind = EP_CONN;
	c->fd = fd;
	atomic_init(&c->refs, 1);
	pthread_mutex_init(&c->lock, NULL);
	rm_init(&c->dec, xprt.lim.max_record);
	rm_set_align(&c->dec, rpc_record_align);
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
	struct xcall *xc;
	int i;

	for (i = 0; i < XCALL_SPARES; i++) {
		xc = atomic_exchange(&c->spare[i], NULL);
		free(xc);
	}
	rm_destroy(&c->dec);
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

static struct xcall *xcall_get(struct conn *c)
{
	struct xcall *xc;
	int i;

	for (i = 0; i < XCALL_SPARES; i++) {
		if (atomic_load_explicit(&c->spare[i], memory_order_relaxed)) {
			xc = atomic_exchange(&c->spare[i], NULL);
			if (xc)
				return xc;
		}
	}
	return malloc(sizeof(*xc));
}

/*
 * A call finished: below the limit again, a paused connection must be
 * resumed by its loop (which may have unread bytes stashed, so waiting
 * for the socket to become readable is not enough).
 */
static void conn_call_done(struct conn *c)
{
	unsigned int left = atomic_fetch_sub(&c->inflight, 1) - 1;

	if (left < xprt.lim.max_inflight && atomic_load(&c->paused) &&
	    atomic_exchange(&c->paused, false))
		loop_post_resume(c);
}

/*
 * xcall_free() - release everything @xc holds (arena, record, reply tail)
 * and its reference on the connection.
 */
void xcall_free(struct xcall *xc)
{
	struct conn *c = xc->rpc.conn;
	struct xcall *expect;
	int i;

	rpc_call_finish(&xc->rpc);
	iobuf_put(xc->rec_buf);
	xc->rec_buf = NULL;
	for (i = 0; i < XCALL_SPARES; i++) {
		expect = NULL;
		if (atomic_compare_exchange_strong(&c->spare[i], &expect, xc))
			break;
	}
	if (i == XCALL_SPARES)
		free(xc);
	conn_call_done(c);
	conn_put(c);
}

/*
 * Write what is left of @xc's reply. Returns 1 when all of it went, 0 when
 * the socket is full, -errno on a socket error. @c->lock held.
 */
static int xcall_write(struct conn *c, struct xcall *xc)
{
	struct msghdr msg = { 0 };
	struct iovec *iov;
	ssize_t n;

	for (;;) {
		msg.msg_iov = xc->iov + xc->iov_first;
		msg.msg_iovlen = (size_t)(xc->iov_cnt - xc->iov_first);
		n = sendmsg(c->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			return -errno;
		}
		while (xc->iov_first < xc->iov_cnt) {
			iov = &xc->iov[xc->iov_first];
			if ((size_t)n < iov->iov_len) {
				iov->iov_base = (uint8_t *)iov->iov_base + n;
				iov->iov_len -= (size_t)n;
				break;
			}
			n -= (ssize_t)iov->iov_len;
			xc->iov_first++;
		}
		if (xc->iov_first == xc->iov_cnt)
			return 1;
	}
}

/* Send the reply in xc->rpc.res; ownership of @xc passes here. */
static void conn_send(struct conn *c, struct xcall *xc)
{
	struct xdr_buf *res = &xc->rpc.res;
	size_t body = res->pos;
	int n = 0, ret;

	if (res->tail)
		body += (size_t)res->tail_len + res->tail_pad;
	if (body > RM_LEN_MASK) {
		log_err("transport: reply of %zu bytes too large", body);
		xcall_free(xc);
		return;
	}
	xc->mark = htonl(RM_LAST_FRAG | (uint32_t)body);
	xc->iov[n++] = (struct iovec){ &xc->mark, 4 };
	xc->iov[n++] = (struct iovec){ res->base, res->pos };
	if (res->tail && res->tail_len)
		xc->iov[n++] = (struct iovec){ (void *)res->tail,
					       res->tail_len };
	if (res->tail && res->tail_pad)
		xc->iov[n++] = (struct iovec){ (void *)zero_pad,
					       res->tail_pad };
	xc->iov_first = 0;
	xc->iov_cnt = n;
	xc->next = NULL;

	pthread_mutex_lock(&c->lock);
	if (atomic_load(&c->closed)) {
		pthread_mutex_unlock(&c->lock);
		xcall_free(xc);
		return;
	}
	/* Replies queued before this one go first (one writer at a time). */
	if (c->sendq_head) {
		c->sendq_tail->next = xc;
		c->sendq_tail = xc;
		pthread_mutex_unlock(&c->lock);
		return;
	}
	ret = xcall_write(c, xc);
	if (ret == 0) {
		c->sendq_head = c->sendq_tail = xc;
		atomic_store(&c->has_sendq, true);
		/*
		 * The socket may have drained between the failed write and
		 * has_sendq becoming visible to the loop, whose EPOLLOUT
		 * would then have been ignored: try once more, so that a
		 * later full socket raises a new edge the loop will see.
		 */
		ret = xcall_write(c, xc);
		if (ret == 0) {
			pthread_mutex_unlock(&c->lock);
			return;
		}
		c->sendq_head = c->sendq_tail = NULL;
		atomic_store(&c->has_sendq, false);
	}
	if (ret < 0) {
		log_debug("transport: send: %s", strerror(-ret));
		/* The loop sees the hang-up and closes the connection. */
		shutdown(c->fd, SHUT_RDWR);
	}
	pthread_mutex_unlock(&c->lock);
	xcall_free(xc);
}

/*
 * xcall_run() - worker side: process the call and send its reply; @xc is
 * freed here or queued on its connection.
 */
void xcall_run(struct xcall *xc)
{
	struct conn *c = xc->rpc.conn;

	if (atomic_load_explicit(&c->closed, memory_order_relaxed) ||
	    !rpc_process_record(&xc->rpc, xc->rec, xc->rec_len)) {
		xcall_free(xc);
		return;
	}
	conn_send(c, xc);
}

/* conn_flush() - loop side: the socket drained, send the queued replies. */
void conn_flush(struct loop *lp, struct conn *c)
{
	struct xcall *done = NULL, *xc;
	int ret = 0;

	(void)lp;
	if (!atomic_load(&c->has_sendq))
		return;
	pthread_mutex_lock(&c->lock);
	while ((xc = c->sendq_head) != NULL && !atomic_load(&c->closed)) {
		ret = xcall_write(c, xc);
		if (ret == 0)
			break;
		c->sendq_head = xc->next;
		xc->next = done;
		done = xc;
		if (ret < 0) {
			shutdown(c->fd, SHUT_RDWR);
			break;
		}
	}
	if (!c->sendq_head) {
		c->sendq_tail = NULL;
		atomic_store(&c->has_sendq, false);
	}
	pthread_mutex_unlock(&c->lock);
	while ((xc = done) != NULL) {
		done = xc->next;
		xcall_free(xc);
	}
}

/* conn_close() - loop side: unregister, close the socket, drop replies. */
void conn_close(struct loop *lp, struct conn *c)
{
	struct xcall *q, *xc;

	if (atomic_load(&c->closed))
		return;
	epoll_ctl(lp->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	pthread_mutex_lock(&c->lock);
	atomic_store(&c->closed, true);
	q = c->sendq_head;
	c->sendq_head = c->sendq_tail = NULL;
	atomic_store(&c->has_sendq, false);
	close(c->fd);
	c->fd = -1;
	pthread_mutex_unlock(&c->lock);
	while ((xc = q) != NULL) {
		q = xc->next;
		xcall_free(xc);
	}
	rm_destroy(&c->dec);
	free(c->stash);
	c->stash = NULL;
	c->stash_len = c->stash_off = 0;
	if (c->prev)
		c->prev->next = c->next;
	else
		lp->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	lp->nconns--;
	atomic_fetch_sub(&xprt.nconns, 1);
	stats_conn_close();
	/* The loop's reference is dropped after this round of events. */
	c->prev = NULL;
	c->next = lp->zombies;
	lp->zombies = c;
}

/* Turn the decoder's complete record into a call on the loop's batch. */
static int conn_emit(struct loop *lp, struct conn *c)
{
	struct xcall *xc = xcall_get(c);
	size_t len, off = 0;

	if (!xc)
		return -ENOMEM;
	if (c->dec.rec_len <= XCALL_REC_INLINE) {
		/* Small records live in the arena; the decoder keeps its
		 * buffer for the next one. */
		len = c->dec.rec_len;
		if (len)
			memcpy(xc->arena, c->dec.rec, len);
		xc->rec = xc->arena;
		xc->rec_len = len;
		xc->rec_buf = NULL;
		off = (len + alignof(max_align_t) - 1) &
		      ~(alignof(max_align_t) - 1);
		rm_record_done(&c->dec);
	} else {
		xc->rec = rm_record_take(&c->dec, &xc->rec_len, &xc->rec_buf);
	}
	c->bulk = xc->rec_len >= RM_ALIGN_MIN;
	rpc_call_init(&xc->rpc, xc->arena + off, sizeof(xc->arena) - off);
	xc->rpc.conn = c;
	memcpy(&xc->rpc.peer, &c->peer, c->peer_len);
	xc->rpc.peer_len = c->peer_len;
	xc->rpc.peer_privileged = c->privileged;
	memcpy(&xc->rpc.local, &c->local, c->local_len);
	xc->rpc.local_len = c->local_len;
	atomic_fetch_add(&c->refs, 1);

	xc->next = NULL;
	if (lp->batch_tail)
		lp->batch_tail->next = xc;
	else
		lp->batch_head = xc;
	lp->batch_tail = xc;
	if (++lp->nbatch >= 64)
		loop_flush_batch(lp);

	if (atomic_fetch_add(&c->inflight, 1) + 1 >= xprt.lim.max_inflight) {
		atomic_store(&c->paused, true);
		/* A worker may have finished one in between (see
		 * conn_call_done): whoever clears the flag resumes. */
		if (atomic_load(&c->inflight) < xprt.lim.max_inflight)
			atomic_exchange(&c->paused, false);
	}
	return 0;
}

/*
 * The pool refused storage for the record being read: wait for the relief
 * hook (loop_mem_resume) unless memory came back in the meantime. Setting
 * the waiter flag before the last try means a buffer freed after the try
 * always wakes us.
 */
static void conn_mem_wait(struct conn *c)
{
	iobuf_wait_relief();
	if (!rm_retry(&c->dec))
		c->mem_paused = true;
}

/*
 * Before reading another request: stop while the pool is above its high
 * watermark (the socket then fills and TCP slows the client down).
 * Returns true when the connection is paused.
 */
static bool conn_mem_check(struct conn *c)
{
	if (rm_need_mem(&c->dec))
		conn_mem_wait(c);
	else if (rm_idle(&c->dec) && iobuf_pressure() && iobuf_wait_relief())
		c->mem_paused = true;
	return c->mem_paused;
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
		n = rm_decode(&c->dec, p, len);
		if (n < 0)
			return (int)n;
		p += n;
		len -= (size_t)n;
		if (rm_need_mem(&c->dec)) {
			conn_mem_wait(c);
			continue;
		}
		if (rm_record_complete(&c->dec)) {
			ret = conn_emit(lp, c);
			if (ret < 0)
				return ret;
		}
	}
	return 0;
}

static void conn_fail(struct loop *lp, struct conn *c, int err)
{
	char host[64] = "?";

	if (c->peer.ss_family == AF_INET)
		inet_ntop(AF_INET, &((struct sockaddr_in *)&c->peer)->sin_addr,
			  host, sizeof(host));
	else if (c->peer.ss_family == AF_INET6)
		inet_ntop(AF_INET6,
			  &((struct sockaddr_in6 *)&c->peer)->sin6_addr, host,
			  sizeof(host));
	if (err == -EMSGSIZE)
		log_warn("transport: %s: record larger than %u bytes, closing",
			 host, xprt.lim.max_record);
	else if (err)
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
	for (;;) {
		if (atomic_load(&c->paused) || c->mem_paused)
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
		body = rm_body_space(&c->dec, &want);
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
		c->last_active = lp->now;
		got = (size_t)n;
		if (direct) {
			want = (size_t)n < direct ? (size_t)n : direct;
			rm_body_advance(&c->dec, want);
			if (rm_record_complete(&c->dec)) {
				ret = conn_emit(lp, c);
				if (ret < 0) {
					conn_fail(lp, c, ret);
					return;
				}
			}
			n -= (ssize_t)want;
		}
		ret = conn_feed(lp, c, lp->stage, (size_t)n);
		if (ret < 0) {
			conn_fail(lp, c, ret);
			return;
		}
		/* A short read drained the socket; the next data raises a
		 * new edge. */
		if (got < asked)
			return;
	}
}
