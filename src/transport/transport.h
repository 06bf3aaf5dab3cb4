/* SPDX-License-Identifier: MIT */
#ifndef NASD_TRANSPORT_TRANSPORT_H
#define NASD_TRANSPORT_TRANSPORT_H

/*
 * Event-driven TCP transport for ONC RPC (DESIGN.md §3).
 *
 * N event-loop threads (epoll, edge-triggered) own the connections, which
 * are dealt round-robin at accept; a loop reads RPC records (RFC 5531 §11)
 * and turns each complete record into one call. Cheap calls that do not
 * block (RPC_PROC_INLINE) run on the loop itself after its round of reads;
 * the others pass once to a pool of worker threads through a single queue
 * (workq.c). Whichever thread runs rpc_process_record() writes the reply
 * itself (record mark + header/body + borrowed tail + pad in one
 * sendmsg); what the socket does not take is queued on the connection and
 * flushed by its loop when the socket drains. Replies may leave in any
 * order.
 *
 * Usage: transport_init(), transport_listen() for each address,
 * transport_run() (blocks), and transport_stop() from anywhere (it is
 * async-signal-safe) to make transport_run() stop accepting, let the
 * in-flight calls finish, close every connection and return.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

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
	uint32_t max_record;    /* bytes; larger records close the conn */
	uint32_t max_conns;     /* further accepts are closed at once */
	/* connections from one address (port ignored); 0 = no limit */
	uint32_t max_conns_per_client;
	uint32_t max_inflight;  /* per conn; reading pauses at the limit */
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
 * v6-only) on @spec (see addr_parse()). The bound address,
 * with the real port when 0 was asked, goes to @bound if not NULL.
 * Every registered RPC program is served on every listener.
 * Returns 0 or -errno (e.g. -EADDRINUSE).
 */
int transport_listen(const char *spec, uint16_t default_port,
		     struct sockaddr_storage *bound, socklen_t *bound_len);

/*
 * transport_run() - start the loops and workers and serve until
 * transport_stop(); then stop accepting, wait (up to drain_timeout) for
 * in-flight calls, close all connections and listeners, join every
 * thread. Returns 0 or -errno if the threads could not start.
 */
int transport_run(void);

/* transport_stop() - ask transport_run() to return. Async-signal-safe. */
void transport_stop(void);

/*
 * Server-initiated calls on a client's connection (the NFSv4.1 back
 * channel, RFC 8881 §2.10.3.1). A layer that keeps a connection beyond
 * the call it came with pins it with transport_conn_get() and drops it
 * with transport_conn_put(); the close hook tells it when the connection
 * is gone (called once per connection, on its loop thread, after it is
 * marked closed, without transport locks held; it must not block).
 */
struct conn;

/* transport_conn_get() - take a reference on @c. */
void transport_conn_get(struct conn *c);

/* transport_conn_put() - drop a reference; the last one frees @c. */
void transport_conn_put(struct conn *c);

/* transport_conn_closed() - has @c been closed (or cut off)? */
bool transport_conn_closed(const struct conn *c);

/*
 * transport_conn_send_call() - send the RPC message @rec (@len bytes,
 * without record mark; copied) on @c as one record, through the same
 * send path and queue as replies. Returns 0 when it was written or
 * queued, -ENOTCONN on a closed connection, -EMSGSIZE when @len is 0 or
 * above 8 KiB, -ENOMEM. Any thread.
 */
int transport_conn_send_call(struct conn *c, const void *rec, size_t len);

/*
 * transport_set_close_hook() - @hook(c) runs when connection @c closes.
 * Set at start-up, before transport_run(); NULL for none.
 */
void transport_set_close_hook(void (*hook)(struct conn *c));

#endif
