/* SPDX-License-Identifier: MIT */
#ifndef NASD_TRANSPORT_TRANSPORT_H
#define NASD_TRANSPORT_TRANSPORT_H

/*
 * Event-driven TCP transport (DESIGN.md §1, §3), protocol-neutral.
 *
 * Each listener serves one protocol, described by its table (struct
 * transport_proto): how messages are framed on the stream, whether one
 * may run on the event loop, how it is processed, and per-connection
 * hooks. ONC RPC (record marking) is one such protocol, SMB2 (direct
 * TCP) another; the transport includes neither's headers.
 *
 * N event-loop threads (epoll, edge-triggered) own the connections; a new
 * connection goes to the loop with the fewest. A loop reads frames, turns
 * each complete message into one request (core/req.h) and either runs it
 * itself after its round of reads (the protocol's may_inline says the
 * request is cheap and will not block) or passes it once to a pool of
 * worker threads through a single queue (workq.c). A request processed
 * inline that turns out to need blocking I/O is deferred: it goes to the
 * pool and is processed again there, continuing where it stopped.
 * Whichever thread processed the request writes its reply itself (frame
 * header + head + body segments + payload, as one sendmsg, with a file
 * payload by sendfile); what the socket does not take is queued on the
 * connection and flushed by its loop when the socket drains. Replies may
 * leave in any order.
 *
 * Usage: transport_init(), transport_listen() for each address and
 * protocol, transport_run() (blocks), and transport_stop() from anywhere
 * (it is async-signal-safe) to make transport_run() stop accepting, let
 * the in-flight requests finish, close every connection and return.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "core/req.h"

#define TRANSPORT_DEFAULT_WORKERS 16
#define TRANSPORT_DEFAULT_MAX_CONNS 4096
#define TRANSPORT_DEFAULT_MAX_INFLIGHT 128
#define TRANSPORT_DEFAULT_IDLE_TIMEOUT 300 /* seconds */
#define TRANSPORT_DEFAULT_MAX_CONNS_PER_CLIENT 512
#define TRANSPORT_DEFAULT_MAX_INFLIGHT_TOTAL 4096
#define TRANSPORT_DEFAULT_RECORD_TIMEOUT 30 /* seconds */
#define TRANSPORT_DEFAULT_SILENT_TIMEOUT 60 /* seconds */
#define TRANSPORT_DEFAULT_MAX_SENDQ (16u << 20) /* bytes */
#define TRANSPORT_MIN_MAX_SENDQ (64u << 10)
#define TRANSPORT_MAX_LISTENERS 32

/*
 * Resource bounds of the transport (docs/SECURITY.md, "Limits"); each
 * hit is counted (stats_limit_hit()) and logged at most once per
 * LOG_RATELIMIT_SECONDS per kind.
 */
struct transport_limits {
	/* bytes; larger messages close the conn, for protocols that take
	 * their limit from here (RPC: --max-record) */
	uint32_t max_record;
	uint32_t max_conns;     /* further accepts are closed at once */
	/* connections from one address (port ignored); 0 = no limit */
	uint32_t max_conns_per_client;
	/* requests per conn (a protocol may raise it for a connection:
	 * SMB credits); reading pauses at the limit */
	uint32_t max_inflight;
	/*
	 * all conns: every loop stops reading at the limit and resumes
	 * below 3/4 of it; 0 = no limit
	 */
	uint32_t max_inflight_total;
	uint32_t idle_timeout;  /* seconds without traffic; 0 = never */
	/* a conn that never sent a byte: min(this, idle_timeout) */
	uint32_t silent_timeout;
	/* seconds from a record's first byte to its last; 0 = never */
	uint32_t record_timeout;
	/*
	 * unsent reply bytes per conn: beyond it the conn is cut off;
	 * reading new requests pauses above a quarter of it and resumes
	 * at an eighth
	 */
	uint32_t max_sendq;
	uint32_t drain_timeout; /* seconds transport_run waits at stop */
};

/* transport_limits_default() - fill @l with the defaults above. */
void transport_limits_default(struct transport_limits *l);

#define TRANSPORT_DEFAULT_MAX_RECORD ((1u << 20) + (64u << 10))

struct conn;

/*
 * The protocol a listener serves. Filled once by the layer that owns the
 * protocol wiring (server/), read-only afterwards; it must outlive the
 * transport. Hooks run on the threads named; none may block unless said.
 */
struct transport_proto {
	const char *name;             /* for logs */
	/* Framing (see transport/frame.h). */
	uint32_t hdr_len;             /* frame header bytes, 1..8 */
	/* One received header: body length, last frame? 0 or -errno. */
	int (*frame_parse)(const uint8_t *hdr, uint32_t *len, bool *last);
	/* The header of a one-frame message of @len bytes (a reply). */
	void (*frame_build)(uint8_t *hdr, uint32_t len);
	uint32_t frame_max;           /* the longest length frame_build takes */
	/* Longest message accepted (0: lim.max_record); per connection
	 * afterwards, see transport_conn_set_max_msg(). */
	uint32_t max_msg;
	/* Optional: the offset of a large message's payload byte that
	 * should sit aligned for O_DIRECT, from its first bytes; 0 = none. */
	size_t (*align)(const uint8_t *head, size_t len);
	/* Requests in flight per connection (0: lim.max_inflight). */
	uint32_t max_inflight;

	/*
	 * Loop thread, for each complete message: may it be processed on
	 * this thread (cheap, will not block; a wrong "yes" costs only a
	 * deferral)? NULL: never.
	 */
	bool (*may_inline)(void *conn_priv, const uint8_t *msg, size_t len);
	/*
	 * Process request @r (its message in r->msg): build the reply in
	 * r->reply, and answer REQ_REPLY (send it), REQ_DROP (nothing to
	 * send), REQ_DEFER (only when r->nowait: call me again on a
	 * worker) or REQ_PARK (kept until transport_req_resume()). Runs on
	 * a worker, or on the loop with r->nowait set.
	 */
	enum req_verdict (*process)(struct req *r);
	/* Optional: @r is over (its reply sent or dropped), any thread,
	 * before its memory is freed. */
	void (*release)(struct req *r);

	/* Optional, loop thread, at accept: per-connection state into
	 * *@priv (it becomes every request's conn_priv). -errno closes. */
	int (*conn_init)(struct conn *c, void **priv);
	/* Optional, loop thread, once, when the connection closes (its
	 * requests may still be running). */
	void (*conn_close)(struct conn *c, void *priv);
	/* Optional, any thread, at the connection's last reference: no
	 * request of it exists any more. */
	void (*conn_free)(void *priv);
};

/*
 * transport_init() - set up (threads start in transport_run()).
 * @nloops: event loops, 0 = one per online CPU; @nworkers: worker
 * threads, 0 = TRANSPORT_DEFAULT_WORKERS; @lim: NULL for the defaults.
 * Returns 0 or -errno.
 */
int transport_init(unsigned int nloops, unsigned int nworkers,
		   const struct transport_limits *lim);

/*
 * transport_parse_addr() - addr_parse() (core/addr.h): "1.2.3.4",
 * "1.2.3.4:2049", "[::1]:2049", "[::1]" or "::1" into a socket address;
 * @default_port when none is given. Returns 0 or -EINVAL.
 */
int transport_parse_addr(const char *spec, uint16_t default_port,
			 struct sockaddr_storage *ss, socklen_t *len);

/*
 * transport_listen() - open a TCP listener (SO_REUSEADDR, IPv6 sockets
 * v6-only) on @spec (see addr_parse()) serving protocol @proto
 * (borrowed for the transport's life). The bound address, with the real
 * port when 0 was asked, goes to @bound if not NULL.
 * Returns 0 or -errno (e.g. -EADDRINUSE).
 */
int transport_listen(const char *spec, uint16_t default_port,
		     const struct transport_proto *proto,
		     struct sockaddr_storage *bound, socklen_t *bound_len);

/*
 * transport_run() - start the loops and workers and serve until
 * transport_stop(); then stop accepting, wait (up to drain_timeout) for
 * in-flight requests, close all connections and listeners, join every
 * thread. Returns 0 or -errno if the threads could not start.
 */
int transport_run(void);

/* transport_stop() - ask transport_run() to return. Async-signal-safe. */
void transport_stop(void);

/*
 * Connections beyond one request. A layer that keeps a connection (the
 * NFSv4.1 back channel, RFC 8881 §2.10.3.1; SMB sessions) pins it with
 * transport_conn_get() and drops it with transport_conn_put(); the
 * protocol's conn_close hook tells it when the connection is gone.
 */

/* transport_conn_get() - take a reference on @c. */
void transport_conn_get(struct conn *c);

/* transport_conn_put() - drop a reference; the last one frees @c. */
void transport_conn_put(struct conn *c);

/* transport_conn_closed() - has @c been closed (or cut off)? */
bool transport_conn_closed(const struct conn *c);

/*
 * transport_conn_shutdown() - end @c: no more is read from it, replies
 * not yet written are dropped, and its loop closes it (a protocol's
 * answer to a violation that leaves the stream unusable). Any thread.
 */
void transport_conn_shutdown(struct conn *c);

/*
 * transport_conn_set_max_inflight() - let @c have up to @n requests in
 * flight (at least 1) from now on: a protocol granting more (SMB
 * credits) raises it, one granting fewer lowers it. Any thread.
 */
void transport_conn_set_max_inflight(struct conn *c, uint32_t n);

/*
 * transport_conn_set_max_msg() - refuse messages longer than @n bytes on
 * @c from its next read on (a negotiated maximum). Any thread.
 */
void transport_conn_set_max_msg(struct conn *c, uint32_t n);

/*
 * transport_req_resume() - hand back a request whose process() answered
 * REQ_PARK (it waited for something: an oplock break, a delegation
 * recall). Exactly once per park; any thread, never blocks; may come
 * before the transport has seen the REQ_PARK. The request's memory, its
 * reply built so far and r->proto are as process() left them.
 */
void transport_req_resume(struct req *r);

/*
 * Messages the server sends on its own (NFSv4 callbacks, SMB interim
 * responses and lease breaks). transport_msg_new() gives a request bound
 * to @c with no received message, owned by the caller, who builds the
 * message in its reply chain (req_reply_start ... like any reply, of any
 * size, a payload included) and then either sends it with
 * transport_msg_send() or abandons it with transport_msg_free(). The
 * message goes through the same send path and queue as replies and
 * counts as a request in flight on @c until written. Any thread.
 */

/* transport_msg_new() - a new message on @c, or NULL (closed, ENOMEM). */
struct req *transport_msg_new(struct conn *c);

/*
 * transport_msg_send() - frame and send @m (ownership passes, whatever
 * the result). Returns 0 when it was written or queued, -ENOTCONN on a
 * closed connection, -EMSGSIZE when it is empty or too long to frame.
 */
int transport_msg_send(struct req *m);

/* transport_msg_free() - drop @m unsent. */
void transport_msg_free(struct req *m);

#endif
