/* SPDX-License-Identifier: MIT */
/*
 * Transport set-up, listeners, event loops, accept, idle timeouts and the
 * graceful stop.
 */
#include "transport/xprt.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "core/addr.h"
#include "core/iobuf.h"
#include "core/log.h"
#include "core/stats.h"

struct transport xprt = {
	.stop_fd = -1,
};

void transport_limits_default(struct transport_limits *l)
{
	l->max_record = TRANSPORT_DEFAULT_MAX_RECORD;
	l->max_conns = TRANSPORT_DEFAULT_MAX_CONNS;
	l->max_inflight = TRANSPORT_DEFAULT_MAX_INFLIGHT;
	l->idle_timeout = TRANSPORT_DEFAULT_IDLE_TIMEOUT;
	l->drain_timeout = 30;
	l->max_conns_per_client = TRANSPORT_DEFAULT_MAX_CONNS_PER_CLIENT;
	l->max_inflight_total = TRANSPORT_DEFAULT_MAX_INFLIGHT_TOTAL;
	l->silent_timeout = TRANSPORT_DEFAULT_SILENT_TIMEOUT;
	l->record_timeout = TRANSPORT_DEFAULT_RECORD_TIMEOUT;
	l->max_sendq = TRANSPORT_DEFAULT_MAX_SENDQ;
}

/* xprt_host() - the address of @ss (no port) as text, for log lines. */
void xprt_host(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	(void)snprintf(buf, len, "?");
	if (ss->ss_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)ss)->sin_addr,
			  buf, (socklen_t)len);
	else if (ss->ss_family == AF_INET6)
		inet_ntop(AF_INET6,
			  &((const struct sockaddr_in6 *)ss)->sin6_addr, buf,
			  (socklen_t)len);
}

/*
 * Connections per client address, for lim.max_conns_per_client: a hash
 * table of the addresses with at least one connection (so at most
 * max_conns entries), keyed with a per-process random seed. Added to on
 * loop 0 (accept), removed from on any loop (close).
 */
#define CLIENT_BUCKETS 1024

struct client_ent {
	struct client_ent *next;
	sa_family_t family;
	uint8_t addr[16];
	uint32_t nconns;
};

static struct {
	pthread_mutex_t lock;
	uint64_t seed;
	struct client_ent *buckets[CLIENT_BUCKETS];
} clients = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
};

/* The address of @ss without the port; false for other families. */
static bool client_key(const struct sockaddr_storage *ss, uint8_t addr[16])
{
	memset(addr, 0, 16);
	if (ss->ss_family == AF_INET) {
		memcpy(addr, &((const struct sockaddr_in *)ss)->sin_addr, 4);
		return true;
	}
	if (ss->ss_family == AF_INET6) {
		memcpy(addr, &((const struct sockaddr_in6 *)ss)->sin6_addr,
		       16);
		return true;
	}
	return false;
}

static unsigned int client_hash(sa_family_t family, const uint8_t addr[16])
{
	uint64_t a, b, h;

	memcpy(&a, addr, 8);
	memcpy(&b, addr + 8, 8);
	/* Two rounds of a 64-bit finaliser over the seeded words. */
	h = (a ^ clients.seed) * 0x9e3779b97f4a7c15ull;
	h ^= (b + family) ^ (h >> 29);
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 32;
	h *= 0x94d049bb133111ebull;
	h ^= h >> 31;
	return (unsigned int)(h % CLIENT_BUCKETS);
}

static struct client_ent **client_find(sa_family_t family,
				       const uint8_t addr[16])
{
	struct client_ent **pp = &clients.buckets[client_hash(family, addr)];

	while (*pp &&
	       ((*pp)->family != family || memcmp((*pp)->addr, addr, 16) != 0))
		pp = &(*pp)->next;
	return pp;
}

/*
 * client_conn_add() - count one more connection from @peer's address.
 * Returns 0, -EMFILE when the address is at max_conns_per_client (nothing
 * counted), or -ENOMEM.
 */
int client_conn_add(const struct sockaddr_storage *peer)
{
	struct client_ent **pp, *e;
	uint8_t addr[16];
	int ret = 0;

	if (!xprt.lim.max_conns_per_client || !client_key(peer, addr))
		return 0;
	pthread_mutex_lock(&clients.lock);
	pp = client_find(peer->ss_family, addr);
	e = *pp;
	if (!e) {
		e = calloc(1, sizeof(*e));
		if (!e) {
			ret = -ENOMEM;
			goto out_unlock;
		}
		e->family = peer->ss_family;
		memcpy(e->addr, addr, 16);
		*pp = e;
	}
	if (e->nconns >= xprt.lim.max_conns_per_client)
		ret = -EMFILE;
	else
		e->nconns++;
out_unlock:
	pthread_mutex_unlock(&clients.lock);
	return ret;
}

/* client_conn_del() - a connection from @peer (counted) is gone. */
void client_conn_del(const struct sockaddr_storage *peer)
{
	struct client_ent **pp, *e;
	uint8_t addr[16];

	if (!xprt.lim.max_conns_per_client || !client_key(peer, addr))
		return;
	pthread_mutex_lock(&clients.lock);
	pp = client_find(peer->ss_family, addr);
	e = *pp;
	if (e && --e->nconns == 0) {
		*pp = e->next;
		free(e);
	}
	pthread_mutex_unlock(&clients.lock);
}

/*
 * transport_total_done() - any thread: @n calls counted against
 * max_inflight_total were answered (or dropped). Below the low watermark
 * (3/4 of the limit), the loops resume the connections they paused.
 */
void transport_total_done(unsigned int n)
{
	unsigned int max = xprt.lim.max_inflight_total, left;

	if (!max)
		return;
	left = atomic_fetch_sub(&xprt.inflight_total, n) - n;
	if (left <= max - max / 4 && atomic_load(&xprt.total_paused) &&
	    atomic_exchange(&xprt.total_paused, false))
		transport_mem_relief();
}

static uint64_t mono_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec;
}

int transport_init(unsigned int nloops, unsigned int nworkers,
		   const struct transport_limits *lim)
{
	long ncpu;

	if (lim)
		xprt.lim = *lim;
	else
		transport_limits_default(&xprt.lim);
	if (!xprt.lim.max_record)
		xprt.lim.max_record = TRANSPORT_DEFAULT_MAX_RECORD;
	if (!xprt.lim.max_inflight)
		xprt.lim.max_inflight = 1;
	/* One whole reply must fit, or every large READ would be cut. */
	if (xprt.lim.max_sendq &&
	    xprt.lim.max_sendq / 2 < xprt.lim.max_record) {
		xprt.lim.max_sendq = xprt.lim.max_record > UINT32_MAX / 2
					     ? UINT32_MAX
					     : xprt.lim.max_record * 2;
		log_info("transport: reply queue cap raised to %u bytes "
			 "(2 x max record)", xprt.lim.max_sendq);
	}
	if (getrandom(&clients.seed, sizeof(clients.seed), GRND_NONBLOCK) !=
	    sizeof(clients.seed))
		clients.seed = (uint64_t)time(NULL) ^ (uint64_t)getpid();
	if (!nloops) {
		ncpu = sysconf(_SC_NPROCESSORS_ONLN);
		nloops = ncpu > 0 ? (unsigned int)ncpu : 1;
	}
	xprt.nloops = nloops;
	xprt.nworkers = nworkers ? nworkers : TRANSPORT_DEFAULT_WORKERS;
	if (xprt.stop_fd < 0) {
		xprt.stop_fd = eventfd(0, EFD_CLOEXEC);
		if (xprt.stop_fd < 0)
			return -errno;
	}
	return 0;
}

int transport_parse_addr(const char *spec, uint16_t default_port,
			 struct sockaddr_storage *ss, socklen_t *len)
{
	return addr_parse(spec, default_port, ss, len);
}

int transport_listen(const char *spec, uint16_t default_port,
		     const struct transport_proto *proto,
		     struct sockaddr_storage *bound, socklen_t *bound_len)
{
	struct listener *l;
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, one = 1, ret;

	if (xprt.nlisteners == TRANSPORT_MAX_LISTENERS)
		return -ENOSPC;
	if (!proto || !proto->process || !proto->frame_parse ||
	    !proto->frame_build || !proto->hdr_len ||
	    proto->hdr_len > FRAME_HDR_MAX)
		return -EINVAL;
	ret = addr_parse(spec, default_port, &ss, &len);
	if (ret < 0)
		return ret;
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    0);
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0)
		goto out_close;
	if (ss.ss_family == AF_INET6 &&
	    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) < 0)
		goto out_close;
	if (bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, 1024) < 0)
		goto out_close;
	l = &xprt.listeners[xprt.nlisteners];
	memset(l, 0, sizeof(*l));
	l->kind = EP_LISTENER;
	l->fd = fd;
	l->proto = proto;
	l->addr_len = sizeof(l->addr);
	if (getsockname(fd, (struct sockaddr *)&l->addr, &l->addr_len) < 0)
		goto out_close;
	xprt.nlisteners++;
	if (bound)
		memcpy(bound, &l->addr, l->addr_len);
	if (bound_len)
		*bound_len = l->addr_len;
	return 0;

out_close:
	ret = -errno;
	close(fd);
	return ret;
}

void transport_stop(void)
{
	uint64_t one = 1;

	/* write(2) is async-signal-safe; nothing else happens here. */
	if (xprt.stop_fd >= 0 && write(xprt.stop_fd, &one, sizeof(one)) < 0)
		return;
}

static void loop_wake(struct loop *lp)
{
	uint64_t one = 1;

	if (write(lp->evfd, &one, sizeof(one)) < 0)
		return;
}

/* loop_flush_batch() - hand the calls read this round to the workers. */
void loop_flush_batch(struct loop *lp)
{
	if (!lp->batch_head)
		return;
	workq_push(lp->batch_head, lp->batch_tail, lp->nbatch);
	lp->batch_head = lp->batch_tail = NULL;
	lp->nbatch = 0;
}

/*
 * loop_post_resume() - any thread: ask @c's loop to resume reading @c
 * (it dropped below its in-flight limit). Takes a reference for the loop.
 */
void loop_post_resume(struct conn *c)
{
	struct loop *lp = c->loop;
	bool wake = false;

	if (atomic_load(&c->closed))
		return;
	pthread_mutex_lock(&lp->inbox_lock);
	if (!c->resume_queued) {
		c->resume_queued = true;
		atomic_fetch_add(&c->refs, 1);
		c->resume_next = lp->resume_head;
		lp->resume_head = c;
		wake = true;
	}
	pthread_mutex_unlock(&lp->inbox_lock);
	if (wake)
		loop_wake(lp);
}

/* Adopt new connection @c on its own loop. */
static void loop_attach(struct loop *lp, struct conn *c)
{
	struct epoll_event ev = {
		.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET,
		.data.ptr = c,
	};

	c->loop = lp;
	c->last_active = lp->now;
	c->prev = NULL;
	c->next = lp->conns;
	if (lp->conns)
		lp->conns->prev = c;
	lp->conns = c;
	if (atomic_load(&xprt.stopping)) {
		/* conn_close() expects the fd registered; DEL just fails */
		conn_close(lp, c);
		return;
	}
	/* The protocol's state first: nothing is read before it exists. */
	c->proto_up = !c->proto->conn_init ||
		      c->proto->conn_init(c, &c->priv) == 0;
	if (!c->proto_up ||
	    epoll_ctl(lp->epfd, EPOLL_CTL_ADD, c->fd, &ev) < 0)
		conn_close(lp, c);
}

/*
 * transport_mem_relief() - the iobuf pool's relief hook (any thread):
 * memory fell below the low watermark, so every loop resumes the
 * connections it paused at the memory ceiling.
 */
void transport_mem_relief(void)
{
	struct loop *loops = xprt.loops;
	unsigned int i;

	if (!loops)
		return;
	for (i = 0; i < xprt.nloops; i++) {
		atomic_store(&loops[i].mem_relief, true);
		loop_wake(&loops[i]);
	}
}

/*
 * Resume the connections paused for memory (loop side), beginning with
 * the first one the last relief did not get to (lp->resume_at), so that
 * the room freed goes round them all rather than to the head of the list
 * every time: each reads until the budget is reached again, and the first
 * that finds it reached is where the next relief begins.
 */
static void loop_mem_resume(struct loop *lp)
{
	struct conn *start = lp->resume_at, *c, *next;
	int pass;

	lp->resume_at = NULL;
	/* from @start to the end, then from the head up to @start */
	for (pass = 0; pass < 2; pass++) {
		for (c = pass ? lp->conns : start; c && !(pass && c == start);
		     c = next) {
			next = c->next;
			if (!c->mem_paused)
				continue;
			c->mem_paused = false;
			conn_read(lp, c);
			if (c->mem_paused && !atomic_load(&c->closed) &&
			    !lp->resume_at)
				lp->resume_at = c;
		}
	}
}

static void loop_drain_inbox(struct loop *lp)
{
	struct conn *news, *c;
	unsigned int budget = 256;
	uint64_t v;

	if (read(lp->evfd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		log_debug("transport: eventfd read: %s", strerror(errno));
	if (atomic_exchange(&lp->mem_relief, false))
		loop_mem_resume(lp);
	pthread_mutex_lock(&lp->inbox_lock);
	news = lp->new_head;
	lp->new_head = NULL;
	pthread_mutex_unlock(&lp->inbox_lock);
	while ((c = news) != NULL) {
		news = c->new_next;
		loop_attach(lp, c);
	}
	/*
	 * One at a time: once unqueued, a worker may queue the connection
	 * again (rewriting resume_next), so the list is never walked
	 * outside the lock.
	 */
	while (budget--) {
		pthread_mutex_lock(&lp->inbox_lock);
		c = lp->resume_head;
		if (c) {
			lp->resume_head = c->resume_next;
			c->resume_queued = false;
		}
		pthread_mutex_unlock(&lp->inbox_lock);
		if (!c)
			return;
		conn_read(lp, c);
		conn_put(c);
	}
	/* Leave the rest for the next round, after the other events. */
	loop_wake(lp);
}

/*
 * The loop for a new connection: the one with the fewest, ties taken in
 * turn. Plain round-robin is not enough: a client that opens a short
 * MOUNT (or portmapper) connection before each NFS one would put every
 * long-lived connection on the same loop when there are two.
 */
static struct loop *loop_pick(void)
{
	unsigned int start = atomic_fetch_add(&xprt.rr, 1);
	struct loop *best = &xprt.loops[start % xprt.nloops], *lp;
	unsigned int i, n, best_n = UINT_MAX;

	for (i = 0; i < xprt.nloops; i++) {
		lp = &xprt.loops[(start + i) % xprt.nloops];
		n = atomic_load(&lp->nconns);
		if (n < best_n) {
			best = lp;
			best_n = n;
		}
	}
	atomic_fetch_add(&best->nconns, 1);
	return best;
}

static void loop_accept(struct loop *lp, struct listener *l)
{
	/* zeroed for the analyzer: accept4's address is a transparent union */
	struct sockaddr_storage peer = {0};
	socklen_t plen;
	struct loop *to;
	struct conn *c;
	int fd, i, one = 1, ret;

	for (i = 0; i < 64; i++) {
		plen = sizeof(peer);
		fd = accept4(l->fd, (struct sockaddr *)&peer, &plen,
			     SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return;
			log_warn("transport: accept: %s; pausing 1 s",
				 strerror(errno));
			/* Level-triggered: stop polling it for a while. */
			epoll_ctl(lp->epfd, EPOLL_CTL_DEL, l->fd, NULL);
			l->paused = true;
			l->resume_at = lp->now + 1;
			return;
		}
		if (atomic_load(&xprt.nconns) >= xprt.lim.max_conns) {
			stats_limit_hit(STATS_LIMIT_CONNS);
			log_ratelimited(LL_WARN,
					"transport: %u connections, refusing "
					"more (--max-conns)",
					xprt.lim.max_conns);
			close(fd);
			continue;
		}
		ret = client_conn_add(&peer);
		if (ret == -EMFILE) {
			char host[INET6_ADDRSTRLEN];

			stats_limit_hit(STATS_LIMIT_CONNS_PER_CLIENT);
			xprt_host(&peer, host, sizeof(host));
			log_ratelimited(LL_WARN,
					"transport: %s has %u connections, "
					"refusing more "
					"(--max-conns-per-client)",
					host, xprt.lim.max_conns_per_client);
		}
		if (ret < 0) {
			close(fd);
			continue;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		c = conn_new(fd, &peer, plen, l->proto);
		if (!c) {
			client_conn_del(&peer);
			close(fd);
			continue;
		}
		atomic_fetch_add(&xprt.nconns, 1);
		stats_conn_open();
		to = loop_pick();
		if (to == lp) {
			loop_attach(lp, c);
			continue;
		}
		c->loop = to;
		pthread_mutex_lock(&to->inbox_lock);
		c->new_next = to->new_head;
		to->new_head = c;
		pthread_mutex_unlock(&to->inbox_lock);
		loop_wake(to);
	}
}

static int listener_add(struct loop *lp, struct listener *l)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = l };

	l->paused = false;
	return epoll_ctl(lp->epfd, EPOLL_CTL_ADD, l->fd, &ev);
}

/*
 * Is @c's send queue over max_sendq without the client taking a byte of
 * it for record_timeout? A client that takes its replies, however
 * slowly, is never cut for the queue's length: its requests are not
 * read meanwhile (conn_read_stopped), so the queue is bounded by what it
 * had in flight, and the payload buffers those hold count against the
 * memory every connection shares.
 */
static bool conn_sendq_stalled(struct loop *lp, struct conn *c)
{
	const struct transport_limits *l = &xprt.lim;

	if (!l->max_sendq ||
	    atomic_load_explicit(&c->sendq_bytes, memory_order_relaxed) <=
		    l->max_sendq) {
		c->sendq_full_at = 0;
		return false;
	}
	if (!c->sendq_full_at) {
		c->sendq_full_at = lp->now; /* conn_flush() resets it */
		return false;
	}
	return l->record_timeout &&
	       lp->now - c->sendq_full_at > l->record_timeout;
}

/*
 * Which time bound @c is past, if any (STATS_LIMIT_NR for none): a message
 * begun more than record_timeout ago and still incomplete, a send queue
 * over max_sendq that did not move for as long, or no traffic for
 * idle_timeout (silent_timeout if it never sent a byte). Calls being
 * worked on keep a connection; replies it does not read do not: reading
 * nothing and taking none of them counts as idle.
 */
static enum stats_limit conn_expired(struct loop *lp, struct conn *c)
{
	const struct transport_limits *l = &xprt.lim;
	uint64_t idle = l->idle_timeout;

	if (conn_sendq_stalled(lp, c))
		return STATS_LIMIT_SENDQ;
	if (frame_idle(&c->dec) && !c->stash) {
		c->rec_start = 0;
	} else if (atomic_load(&c->paused) || c->mem_paused ||
		   c->sendq_paused || !c->rec_start) {
		/* We stopped reading, not the client, or a message began. */
		c->rec_start = lp->now;
	} else if (l->record_timeout &&
		   lp->now - c->rec_start > l->record_timeout) {
		return STATS_LIMIT_RECORD_TIMEOUT;
	}
	if (!c->spoke && l->silent_timeout && l->silent_timeout < idle)
		idle = l->silent_timeout;
	/* Whole seconds: "> idle" so that no connection goes before a full
	 * idle_timeout has passed (it goes within one second after). */
	if (!idle || lp->now - c->last_active <= idle)
		return STATS_LIMIT_NR;
	if (atomic_load(&c->inflight) && !atomic_load(&c->has_sendq))
		return STATS_LIMIT_NR;
	return STATS_LIMIT_IDLE;
}

/* Once a second: time bounds of connections, paused listeners. */
static void loop_tick(struct loop *lp)
{
	struct conn *c, *next;
	enum stats_limit why;
	unsigned int i;

	for (c = lp->conns; c; c = next) {
		next = c->next;
		if (atomic_load(&c->cut)) {
			conn_close(lp, c); /* transport_conn_shutdown() */
			continue;
		}
		why = conn_expired(lp, c);
		if (why == STATS_LIMIT_NR)
			continue;
		if (why == STATS_LIMIT_SENDQ) {
			char host[64];

			stats_limit_hit(why);
			xprt_host(&c->peer, host, sizeof(host));
			log_ratelimited(LL_WARN,
					"transport: %s: %zu reply bytes queued "
					"(over --max-sendq %u), none taken for "
					"%u s, closing",
					host, atomic_load(&c->sendq_bytes),
					xprt.lim.max_sendq,
					xprt.lim.record_timeout);
		} else if (why == STATS_LIMIT_RECORD_TIMEOUT) {
			stats_limit_hit(why);
			log_ratelimited(LL_WARN,
					"transport: record not complete after "
					"%u s, closing (--record-timeout)",
					xprt.lim.record_timeout);
		} else if (why == STATS_LIMIT_IDLE) {
			stats_limit_hit(why);
			log_ratelimited(LL_INFO,
					"transport: closing idle connection "
					"(--idle-timeout %u s)",
					xprt.lim.idle_timeout);
		}
		conn_close(lp, c);
	}
	if (lp->idx != 0 || atomic_load(&xprt.stopping))
		return;
	for (i = 0; i < xprt.nlisteners; i++) {
		struct listener *l = &xprt.listeners[i];

		if (l->paused && lp->now >= l->resume_at)
			listener_add(lp, l);
	}
}

static void loop_put_zombies(struct loop *lp)
{
	struct conn *c;

	while ((c = lp->zombies) != NULL) {
		lp->zombies = c->next;
		c->next = NULL;
		conn_put(c);
	}
}

/* Stopping: close connections whose calls are all done; true when none. */
static bool loop_drain(struct loop *lp, bool force)
{
	struct conn *c, *next;

	/* A connection whose calls all wait on someone else (parked) has
	 * nothing to finish: it closes now, and its protocol lets them go
	 * (its conn_close hook). */
	for (c = lp->conns; c; c = next) {
		next = c->next;
		if (force || atomic_load(&c->inflight) <=
				     atomic_load(&c->parked))
			conn_close(lp, c);
	}
	return lp->conns == NULL;
}

static void *loop_main(void *arg)
{
	struct loop *lp = arg;
	struct epoll_event evs[LOOP_MAX_EVENTS];
	uint64_t last_tick, deadline = 0;
	bool stopping = false;
	unsigned int i;
	int n, timeout;

	lp->now = mono_seconds();
	last_tick = lp->now;
	for (;;) {
		timeout = stopping ? 50 : 1000;
		n = epoll_wait(lp->epfd, evs, LOOP_MAX_EVENTS, timeout);
		if (n < 0 && errno != EINTR) {
			log_err("transport: epoll_wait: %s", strerror(errno));
			break;
		}
		lp->now = mono_seconds();
		for (i = 0; i < (unsigned int)(n > 0 ? n : 0); i++) {
			enum ep_kind *kind = evs[i].data.ptr;
			struct conn *c;

			if (!kind) {
				loop_drain_inbox(lp);
				continue;
			}
			if (*kind == EP_LISTENER) {
				loop_accept(lp, (struct listener *)kind);
				continue;
			}
			c = (struct conn *)kind;
			if (atomic_load(&c->closed))
				continue;
			if (evs[i].events & EPOLLOUT)
				conn_flush(lp, c);
			if (evs[i].events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP |
					     EPOLLERR))
				conn_read(lp, c);
		}
		loop_flush_batch(lp);
		loop_run_inline(lp);
		if (lp->now != last_tick) {
			last_tick = lp->now;
			loop_tick(lp);
		}
		if (!stopping && atomic_load(&xprt.stopping)) {
			stopping = true;
			deadline = lp->now + xprt.lim.drain_timeout;
			if (lp->idx == 0)
				for (i = 0; i < xprt.nlisteners; i++)
					epoll_ctl(lp->epfd, EPOLL_CTL_DEL,
						  xprt.listeners[i].fd, NULL);
		}
		if (stopping && loop_drain(lp, lp->now >= deadline)) {
			loop_put_zombies(lp);
			break;
		}
		loop_put_zombies(lp);
	}
	/* Connections posted to us after the drain are closed unseen. */
	loop_drain_inbox(lp);
	loop_drain(lp, true);
	loop_put_zombies(lp);
	return NULL;
}

static int loop_setup(struct loop *lp, unsigned int idx)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };

	lp->idx = idx;
	pthread_mutex_init(&lp->inbox_lock, NULL);
	lp->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (lp->epfd < 0)
		return -errno;
	lp->evfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (lp->evfd < 0)
		return -errno;
	if (epoll_ctl(lp->epfd, EPOLL_CTL_ADD, lp->evfd, &ev) < 0)
		return -errno;
	return 0;
}

/* stats_set_loop_conns()'s reporter: each loop's connection count. */
static unsigned int loop_conns_report(uint32_t *out, unsigned int max)
{
	unsigned int i;

	for (i = 0; i < xprt.nloops && i < max; i++)
		out[i] = atomic_load(&xprt.loops[i].nconns);
	return i;
}

static void loops_free(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct loop *lp = &xprt.loops[i];

		if (lp->epfd >= 0)
			close(lp->epfd);
		if (lp->evfd >= 0)
			close(lp->evfd);
		pthread_mutex_destroy(&lp->inbox_lock);
	}
	free(xprt.loops);
	xprt.loops = NULL;
}

int transport_run(void)
{
	unsigned int i, started = 0;
	uint64_t v;
	int ret;

	if (xprt.stop_fd < 0)
		return -EINVAL;
	xprt.loops = calloc(xprt.nloops, sizeof(*xprt.loops));
	if (!xprt.loops)
		return -ENOMEM;
	for (i = 0; i < xprt.nloops; i++) {
		xprt.loops[i].epfd = xprt.loops[i].evfd = -1;
		ret = loop_setup(&xprt.loops[i], i);
		if (ret < 0)
			goto out_free;
	}
	for (i = 0; i < xprt.nlisteners; i++) {
		if (listener_add(&xprt.loops[0], &xprt.listeners[i]) < 0) {
			ret = -errno;
			goto out_free;
		}
	}
	ret = workq_start(xprt.nworkers);
	if (ret < 0)
		goto out_free;
	iobuf_set_relief_hook(transport_mem_relief);
	stats_set_loop_conns(loop_conns_report);
	for (i = 0; i < xprt.nloops; i++) {
		ret = -pthread_create(&xprt.loops[i].thread, NULL, loop_main,
				      &xprt.loops[i]);
		if (ret)
			break;
		started++;
	}
	if (ret) {
		log_err("transport: cannot start event loop: %s",
			strerror(-ret));
	} else {
		while (read(xprt.stop_fd, &v, sizeof(v)) < 0 && errno == EINTR)
			;
	}

	/* Stop: no more accepts or reads, in-flight calls finish. */
	stats_set_loop_conns(NULL);
	atomic_store(&xprt.stopping, true);
	for (i = 0; i < started; i++)
		loop_wake(&xprt.loops[i]);
	for (i = 0; i < started; i++)
		pthread_join(xprt.loops[i].thread, NULL);
	/* Connections handed over while a loop was exiting. */
	for (i = 0; i < started; i++) {
		loop_drain_inbox(&xprt.loops[i]);
		loop_drain(&xprt.loops[i], true);
		loop_put_zombies(&xprt.loops[i]);
	}
	workq_stop();
	iobuf_set_relief_hook(NULL);
	for (i = 0; i < xprt.nlisteners; i++)
		close(xprt.listeners[i].fd);
	xprt.nlisteners = 0;
	i = xprt.nloops;
	goto out_loops;

out_free:
	i = xprt.nloops;
out_loops:
	loops_free(i);
	atomic_store(&xprt.stopping, false);
	return ret;
}
