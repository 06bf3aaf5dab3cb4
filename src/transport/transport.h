/* SPDX-License-Identifier: MIT */
#ifndef NASD_TRANSPORT_TRANSPORT_H
#define NASD_TRANSPORT_TRANSPORT_H

/*
 * Event-driven TCP transport for ONC RPC (DESIGN.md §3).
 *
 * N event-loop threads (epoll, edge-triggered) own the connections, which
 * are dealt round-robin at accept; a loop reads RPC records (RFC 5531 §11)
 * and hands each complete record, as one call, to a pool of worker
 * threads through a single queue. The worker runs rpc_process_record()
 * and writes the reply itself (record mark + header/body + borrowed tail
 * + pad in one writev); what the socket does not take is queued on the
 * connection and flushed by its loop when the socket drains. Replies may
 * leave in any order.
 *
 * Usage: transport_init(), transport_listen() for each address,
 * transport_run() (blocks), and transport_stop() from anywhere (it is
 * async-signal-safe) to make transport_run() stop accepting, let the
 * in-flight calls finish, close every connection and return.
 */

#include <stdint.h>
#include <sys/socket.h>

#define TRANSPORT_DEFAULT_WORKERS 16
#define TRANSPORT_DEFAULT_MAX_CONNS 4096
#define TRANSPORT_DEFAULT_MAX_INFLIGHT 128
#define TRANSPORT_DEFAULT_IDLE_TIMEOUT 300 /* seconds */
#define TRANSPORT_MAX_LISTENERS 32

struct transport_limits {
	uint32_t max_record;    /* bytes; larger records close the conn */
	uint32_t max_conns;     /* further accepts are closed at once */
	uint32_t max_inflight;  /* per conn; reading pauses at the limit */
	uint32_t idle_timeout;  /* seconds without traffic; 0 = never */
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
 * transport_parse_addr() - "1.2.3.4", "1.2.3.4:2049", "[::1]:2049",
 * "[::1]" or "::1" into a socket address; @default_port when none is
 * given. Returns 0 or -EINVAL.
 */
int transport_parse_addr(const char *spec, uint16_t default_port,
			 struct sockaddr_storage *ss, socklen_t *len);

/*
 * transport_listen() - open a TCP listener (SO_REUSEADDR, IPv6 sockets
 * v6-only) on @spec (see transport_parse_addr()). The bound address,
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

#endif
