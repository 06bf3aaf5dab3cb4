/* SPDX-License-Identifier: MIT */
#ifndef NASD_RPC_PMAP_H
#define NASD_RPC_PMAP_H

/*
 * The port mapper registry and program 100000 (RFC 1833).
 *
 * The registry lists what nasd serves: (program, version, protocol,
 * address) for every listener, filled by main() at start-up. It is read
 * by two users:
 *  - rpc/rpcb_clnt.h, which registers it with a running rpcbind;
 *  - pmap_program, the port mapper nasd serves itself when no rpcbind
 *    runs (--portmap): portmap v2 (RFC 1833 §3) and rpcbind v3/v4
 *    (RFC 1833 §2) over TCP through the normal listeners, and over UDP
 *    through rpc/rpc_udp.h.
 * Like rpcbind, pmap_program lets only privileged local callers (a
 * loopback address and a source port below 1024) SET and UNSET, and a
 * SET for a (program, version, netid) that is mapped to another address
 * already is refused.
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "rpc/rpc.h"

#define PMAP_PROGRAM 100000
#define PMAP_PORT 111
#define IPPROTO_TCP_PMAP 6
#define IPPROTO_UDP_PMAP 17
#define PMAP_MAX_ENTRIES 64

/* Program 100000, v2/v3/v4, dispatched by rpc_process(). */
extern const struct rpc_program pmap_program;

/* One registry entry. */
struct pmap_mapping {
	uint32_t prog;
	uint32_t vers;
	uint32_t prot;                /* IPPROTO_TCP_PMAP or _UDP_PMAP */
	struct sockaddr_storage addr; /* address and port served on */
};

/*
 * pmap_add() - record that (@prog, @vers) is served over @prot (6 = TCP,
 * 17 = UDP) at @addr (address and port; copied). Adding an entry that is
 * there already does nothing. Thread-safe. Returns 0 or -ENOSPC.
 */
int pmap_add(uint32_t prog, uint32_t vers, uint32_t prot,
	     const struct sockaddr_storage *addr);

/* pmap_add_program() - pmap_add() for every version of @p. */
int pmap_add_program(const struct rpc_program *p, uint32_t prot,
		     const struct sockaddr_storage *addr);

/*
 * pmap_list() - copy up to @max registry entries into @out, in the order
 * they were added. Thread-safe. Returns the number copied.
 */
unsigned int pmap_list(struct pmap_mapping *out, unsigned int max);

/*
 * pmap_netid() - the netid (RFC 5665 §5.1) of @prot over @family: "tcp",
 * "tcp6", "udp" or "udp6". A static string.
 */
const char *pmap_netid(uint32_t prot, sa_family_t family);

#endif
