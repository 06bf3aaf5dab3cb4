/* SPDX-License-Identifier: MIT */
#ifndef NASD_RPC_PMAP_UDP_H
#define NASD_RPC_PMAP_UDP_H

/*
 * The port mapper over UDP (RFC 1833 §3.3: clients ask it on UDP port
 * 111 first): one thread per address answers program 100000 datagrams
 * through the RPC dispatcher, and drops every other program (nasd serves
 * NFS and MOUNT over TCP only).
 */

/*
 * pmap_udp_start() - bind a UDP socket on @addr (core/addr.h syntax,
 * port 111 when none is given) and serve program 100000 on it from a
 * detached thread of its own, which lives as long as the process. The
 * program must be registered (rpc_register_program(&pmap_program)).
 * Returns 0 or -errno (-EINVAL for a bad @addr, -EADDRINUSE, ...).
 */
int pmap_udp_start(const char *addr);

#endif
