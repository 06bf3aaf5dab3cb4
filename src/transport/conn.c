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
	transport_total_done(1);
}

/* Reply bytes of @xc not yet written. */
static size_t xcall_left(const struct xcall *xc)
{
	size_t n = 0;
	int i;

	for (i = xc->iov_first; i < xc->iov_cnt; i++)
		n += xc->iov[i].iov_len;
	return n;
}

/*
 * A reply is leaving the send queue to be freed: it stopped counting
 * against max_inflight_total when it was queued (transport_total_done),
 * so give back the count xcall_free() is about to take.
 */
static void xcall_unqueue(struct xcall *xc)
{
	(void)xc;
	if (xprt.lim.max_inflight_total)
		atomic_fetch_add(&xprt.inflight_total, 1);
}

/*
 * @xc joins the send queue (@c->lock held): its call is answered, so it
 * no longer counts as in flight in total; its unsent bytes count against
 * max_sendq. Returns false when they would exceed it: the connection is
 * then cut off (shut down here, closed by its loop; every reply still
 * coming is dropped) and @xc is not queued.
 */
static bool conn_queue_reply(struct conn *c, struct xcall *xc)
{
	size_t q = atomic_load(&c->sendq_bytes) + xcall_left(xc);
	char host[64];

	if (xprt.lim.max_sendq && q > xprt.lim.max_sendq) {
		atomic_store(&c->cut, true);
		stats_limit_hit(STATS_LIMIT_SENDQ);
		xprt_host(&c->peer, host, sizeof(host));
		log_ratelimited(LL_WARN,
				"transport: %s: %zu reply bytes not read, over "
				"%u, closing (--max-sendq)",
				host, q, xprt.lim.max_sendq);
		shutdown(c->fd, SHUT_RDWR);
		return false;
	}
	atomic_store(&c->sendq_bytes, q);
	xc->next = NULL;
	if (c->sendq_head)
		c->sendq_tail->next = xc;
	else
		c->sendq_head = xc;
	c->sendq_tail = xc;
	atomic_store(&c->has_sendq, true);
	transport_total_done(1);
	return true;
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
 * Send what is left of the file range @iov of @xc with sendfile(2): the
 * socket takes references to the page-cache pages, nothing is copied here.
 * Returns 1 when a part went (@iov advanced), 0 when the socket is full,
 * -errno on an error; -EIO when the file ended early (its length is
 * already in the record mark: the connection has to go).
 */
static ssize_t xcall_write_file(struct conn *c, struct xcall *xc,
				struct iovec *iov)
{
	off_t off = (off_t)xc->file_off;
	ssize_t n;

	for (;;) {
		n = sendfile(c->fd, xc->file_fd, &off, iov->iov_len);
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
	xc->file_off = (uint64_t)off;
	iov->iov_len -= (size_t)n;
	if (!iov->iov_len)
		xc->iov_first++;
	return 1;
}

/*
 * Write what is left of @xc's reply, with extra sendmsg @flags (MSG_MORE).
 * Returns 1 when all of it went, 0 when the socket is full, -errno on a
 * socket error. @c->lock held.
 */
static int xcall_write(struct conn *c, struct xcall *xc, int flags)
{
	struct msghdr msg = { 0 };
	struct iovec *iov;
	ssize_t n;
	int i;

	for (;;) {
		if (xc->iov_first == xc->iov_cnt)
			return 1;
		iov = &xc->iov[xc->iov_first];
		if (!iov->iov_base) {
			n = xcall_write_file(c, xc, iov);
			if (n <= 0)
				return (int)n;
			continue;
		}
		/* Memory pieces up to the file range or the end. */
		for (i = xc->iov_first; i < xc->iov_cnt && xc->iov[i].iov_base;)
			i++;
		msg.msg_iov = iov;
		msg.msg_iovlen = (size_t)(i - xc->iov_first);
		n = sendmsg(c->fd, &msg,
			    MSG_NOSIGNAL | MSG_DONTWAIT |
				    (i < xc->iov_cnt ? MSG_MORE : flags));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			return -errno;
		}
		/* Advance over what went, never into the file range. */
		while (xc->iov_first < i) {
			iov = &xc->iov[xc->iov_first];
			if ((size_t)n < iov->iov_len) {
				iov->iov_base = (uint8_t *)iov->iov_base + n;
				iov->iov_len -= (size_t)n;
				break;
			}
			n -= (ssize_t)iov->iov_len;
			xc->iov_first++;
		}
	}
}

/*
 * Send the reply in xc->rpc.res; ownership of @xc passes here. @flags:
 * MSG_MORE when another reply follows at once (the loop's inline calls).
 */
static void conn_send(struct conn *c, struct xcall *xc, int flags)
{
	struct xdr_buf *res = &xc->rpc.res;
	size_t body = res->pos;
	int n = 0, ret;

	if (xdr_has_tail(res))
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
	/* A file range: its piece has no base (see xcall_write). */
	xc->file_fd = res->tail_fd;
	xc->file_off = res->tail_off;
	if (res->tail_fd >= 0 && res->tail_len)
		xc->iov[n++] = (struct iovec){ NULL, res->tail_len };
	if (xdr_has_tail(res) && res->tail_pad)
		xc->iov[n++] = (struct iovec){ (void *)zero_pad,
					       res->tail_pad };
	xc->iov_first = 0;
	xc->iov_cnt = n;
	xc->next = NULL;

	pthread_mutex_lock(&c->lock);
	if (atomic_load(&c->closed) || atomic_load(&c->cut)) {
		pthread_mutex_unlock(&c->lock);
		xcall_free(xc);
		return;
	}
	/* Replies queued before this one go first (one writer at a time). */
	if (c->sendq_head) {
		if (conn_queue_reply(c, xc)) {
			pthread_mutex_unlock(&c->lock);
			return;
		}
		pthread_mutex_unlock(&c->lock);
		xcall_free(xc);
		return;
	}
	ret = xcall_write(c, xc, flags);
	if (ret == 0) {
		if (!conn_queue_reply(c, xc)) {
			pthread_mutex_unlock(&c->lock);
			xcall_free(xc);
			return;
		}
		/*
		 * The socket may have drained between the failed write and
		 * has_sendq becoming visible to the loop, whose EPOLLOUT
		 * would then have been ignored: try once more, so that a
		 * later full socket raises a new edge the loop will see.
		 */
		ret = xcall_write(c, xc, 0);
		if (ret == 0) {
			atomic_store(&c->sendq_bytes, xcall_left(xc));
			pthread_mutex_unlock(&c->lock);
			return;
		}
		c->sendq_head = c->sendq_tail = NULL;
		atomic_store(&c->sendq_bytes, 0);
		atomic_store(&c->has_sendq, false);
		xcall_unqueue(xc);
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
	conn_send(c, xc, 0);
}

/* Fill xc->rpc for a fresh run of its record on @c. */
static void xcall_prep(struct xcall *xc, struct conn *c)
{
	rpc_call_init(&xc->rpc, xc->arena + xc->arena_off,
		      sizeof(xc->arena) - xc->arena_off);
	xc->rpc.conn = c;
	memcpy(&xc->rpc.peer, &c->peer, c->peer_len);
	xc->rpc.peer_len = c->peer_len;
	xc->rpc.peer_privileged = c->privileged;
	memcpy(&xc->rpc.local, &c->local, c->local_len);
	xc->rpc.local_len = c->local_len;
}

/*
 * xcall_run_inline() - loop side: process a call marked rpc.nowait and
 * send its reply, with MSG_MORE when @more (another reply to the same
 * connection follows in this round). Returns true when the call must
 * block after all: it is then ready to run again and the caller hands it
 * to the pool; else @xc is freed or queued on its connection.
 */
bool xcall_run_inline(struct xcall *xc, bool more)
{
	struct conn *c = xc->rpc.conn;

	if (atomic_load_explicit(&c->closed, memory_order_relaxed)) {
		xcall_free(xc);
		return false;
	}
	if (rpc_process_record(&xc->rpc, xc->rec, xc->rec_len)) {
		c->corked = more;
		conn_send(c, xc, more ? MSG_MORE : 0);
		return false;
	}
	if (!xc->rpc.defer) {
		xcall_free(xc);
		return false;
	}
	rpc_call_finish(&xc->rpc);
	xcall_prep(xc, c);
	return true;
}

/*
 * xcall_uncork() - loop side: the last inline call of a round on @c sent
 * nothing (dropped, or handed to the pool) after replies that went with
 * MSG_MORE: push them out now (setting TCP_NODELAY pushes pending data).
 */
void xcall_uncork(struct conn *c)
{
	int one = 1;

	c->corked = false;
	if (atomic_load(&c->closed))
		return;
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* See transport.h: connections used by a layer beyond one call. */
static void (*conn_close_hook)(struct conn *c);

void transport_set_close_hook(void (*hook)(struct conn *c))
{
	conn_close_hook = hook;
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

/*
 * The message is copied into a call object's arena and leaves as that
 * call's "reply": it counts as a call in flight on @c (and in total) until
 * written, like any reply, so the send queue limits apply to it too.
 */
int transport_conn_send_call(struct conn *c, const void *rec, size_t len)
{
	struct xcall *xc;

	if (!len || len > XCALL_ARENA / 2)
		return -EMSGSIZE;
	if (transport_conn_closed(c))
		return -ENOTCONN;
	xc = xcall_get(c);
	if (!xc)
		return -ENOMEM;
	xc->rec = NULL;
	xc->rec_len = 0;
	xc->rec_buf = NULL;
	xc->arena_off = XCALL_ARENA / 2;
	xcall_prep(xc, c);
	memcpy(xc->arena, rec, len);
	xdr_init(&xc->rpc.res, xc->arena, len);
	xc->rpc.res.pos = len;
	atomic_fetch_add(&c->refs, 1);
	atomic_fetch_add(&c->inflight, 1);
	if (xprt.lim.max_inflight_total)
		atomic_fetch_add(&xprt.inflight_total, 1);
	conn_send(c, xc, 0);
	return 0;
}

/* conn_flush() - loop side: the socket drained, send the queued replies. */
void conn_flush(struct loop *lp, struct conn *c)
{
	struct xcall *done = NULL, *xc;
	size_t before, after, q0, q;
	int ret = 0;

	if (!atomic_load(&c->has_sendq))
		return;
	pthread_mutex_lock(&c->lock);
	q = q0 = atomic_load(&c->sendq_bytes);
	while ((xc = c->sendq_head) != NULL && !atomic_load(&c->closed) &&
	       !atomic_load(&c->cut)) {
		before = xcall_left(xc);
		ret = xcall_write(c, xc, 0);
		after = ret == 0 ? xcall_left(xc) : 0;
		q -= q >= before - after ? before - after : q;
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
		q = 0;
		atomic_store(&c->has_sendq, false);
	}
	atomic_store(&c->sendq_bytes, q);
	pthread_mutex_unlock(&c->lock);
	/* The client takes its replies: not idle. */
	if (q < q0)
		c->last_active = lp->now;
	while ((xc = done) != NULL) {
		done = xc->next;
		xcall_unqueue(xc);
		xcall_free(xc);
	}
	/* Reading paused for the queue resumes once it has drained. */
	if (c->sendq_paused && q <= xprt.lim.max_sendq / 8)
		conn_read(lp, c);
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
	atomic_store(&c->sendq_bytes, 0);
	close(c->fd);
	c->fd = -1;
	pthread_mutex_unlock(&c->lock);
	while ((xc = q) != NULL) {
		q = xc->next;
		xcall_unqueue(xc);
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
	atomic_fetch_sub(&lp->nconns, 1);
	atomic_fetch_sub(&xprt.nconns, 1);
	client_conn_del(&c->peer);
	stats_conn_close();
	if (conn_close_hook)
		conn_close_hook(c);
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
	xc->arena_off = (uint32_t)off;
	xcall_prep(xc, c);
	atomic_fetch_add(&c->refs, 1);

	xc->next = NULL;
	if (lp->ninl < LOOP_INLINE_MAX &&
	    rpc_record_inline(xc->rec, xc->rec_len)) {
		/* Cheap: run on this thread once the round's reads are done
		 * (workq.c, loop_run_inline). */
		xc->rpc.nowait = true;
		if (lp->inl_tail)
			lp->inl_tail->next = xc;
		else
			lp->inl_head = xc;
		lp->inl_tail = xc;
		lp->ninl++;
		c->inl_pending++;
	} else {
		if (lp->batch_tail)
			lp->batch_tail->next = xc;
		else
			lp->batch_head = xc;
		lp->batch_tail = xc;
		if (++lp->nbatch >= 64)
			loop_flush_batch(lp);
	}

	if (atomic_fetch_add(&c->inflight, 1) + 1 >= xprt.lim.max_inflight) {
		atomic_store(&c->paused, true);
		/* A worker may have finished one in between (see
		 * conn_call_done): whoever clears the flag resumes. */
		if (atomic_load(&c->inflight) < xprt.lim.max_inflight)
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
 * The pool refused storage for the record being read: wait for the relief
 * hook (loop_mem_resume) unless memory came back in the meantime. Setting
 * the waiter flag before the last try means a buffer freed after the try
 * always wakes us.
 */
static void conn_mem_wait(struct conn *c)
{
	iobuf_wait_relief();
	if (!rm_retry(&c->dec)) {
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
	if (rm_need_mem(&c->dec))
		conn_mem_wait(c);
	else if (rm_idle(&c->dec) && iobuf_pressure() &&
		 iobuf_wait_relief()) {
		c->mem_paused = true;
		conn_mem_hit();
	}
	return c->mem_paused;
}

/*
 * A record just became a call: the record clock stops, the call counts
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
				"transport: %u calls in flight on a "
				"connection, reading paused (--max-inflight)",
				xprt.lim.max_inflight);
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

/* The first bytes of a record arrived: its clock starts (conn_expired). */
static void conn_note_read(struct loop *lp, struct conn *c)
{
	c->spoke = true;
	c->last_active = lp->now;
	if (!c->rec_start && !rm_idle(&c->dec))
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
				"transport: %s: record larger than %u bytes, "
				"closing (--max-record)",
				host, xprt.lim.max_record);
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
		/* Its replies went over max_sendq (conn_queue_reply). */
		conn_close(lp, c);
		return;
	}
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
