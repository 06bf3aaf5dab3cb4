/* SPDX-License-Identifier: MIT */
#ifndef NASD_RPC_PMAP_H
#define NASD_RPC_PMAP_H

/*
 * Port mapper (RFC 1833): registering our programs with a running
 * rpcbind, or, when none runs, serving program 100000 ourselves (portmap
 * v2 and rpcbind v3/v4) from a registry that main() fills.
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "rpc/rpc.h"

#define PMAP_PROGRAM 100000
#define PMAP_PORT 111
#define IPPROTO_TCP_PMAP 6
#define IPPROTO_UDP_PMAP 17

/* Program 100000, v2/v3/v4, dispatched by rpc_process(). */
extern const struct rpc_program pmap_program;

/*
 * pmap_add() - record that (@prog, @vers) is served over @prot (6 = TCP,
 * 17 = UDP) at @addr (address and port). Returns 0 or -ENOSPC.
 */
int pmap_add(uint32_t prog, uint32_t vers, uint32_t prot,
	     const struct sockaddr_storage *addr);

/* pmap_add_program() - pmap_add() for every version of @p. */
int pmap_add_program(const struct rpc_program *p, uint32_t prot,
		     const struct sockaddr_storage *addr);

/*
 * pmap_register_remote() - PMAPPROC_UNSET then PMAPPROC_SET (portmap v2
 * over TCP from a reserved port) every registry entry with the port
 * mapper on 127.0.0.1:111. Returns 0, -ECONNREFUSED when none listens,
 * or another -errno (e.g. -EACCES when it refused a SET).
 */
int pmap_register_remote(void);

/* pmap_unregister_remote() - PMAPPROC_UNSET what we registered. */
void pmap_unregister_remote(void);

/*
 * pmap_udp_start() - serve program 100000 (only) over UDP on @addr from
 * a thread of its own. Returns 0 or -errno.
 */
int pmap_udp_start(const char *addr);

/*
 * pmap_uaddr() - RFC 5665 universal address of @ss ("h1.h2.h3.h4.p1.p2"
 * or "ipv6-address.p1.p2") into @buf. Returns the length or -EINVAL.
 */
int pmap_uaddr(const struct sockaddr_storage *ss, char *buf, size_t len);

#endif
