/* SPDX-License-Identifier: MIT */
#ifndef NASD_RPC_RPC_UDP_H
#define NASD_RPC_RPC_UDP_H

/*
 * ONC RPC over UDP (RFC 5531 §10: one message per datagram, no record
 * marking) for the programs whose clients call over UDP: the port mapper
 * (RFC 1833 §3.3: asked on UDP port 111 first), NSM (sm-notify sends
 * SM_NOTIFY over UDP only) and NLM (clients whose lockd speaks UDP).
 * NFS and MOUNT stay on TCP: a datagram for any program a socket was not
 * opened for is dropped, as is anything but a CALL.
 *
 * Each socket is answered by one thread of its own, blocking in
 * recvfrom(): lock and port mapper traffic is light, and its handlers may
 * block (they run as on a worker). Calls go through the RPC dispatcher and
 * its duplicate request cache, so that a retransmitted LOCK gets its
 * first reply; the reply goes back to the sender in one datagram.
 */
#include <stdint.h>
#include <sys/socket.h>

#define RPC_UDP_MAX_PROGS 4

/*
 * rpc_udp_open() - bind a UDP socket on @addr (core/addr.h syntax; port
 * @def_port when it names none) for the @nprogs programs in @progs, which
 * must be registered (rpc_register_program()). The socket is served once
 * rpc_udp_start() runs; it lives as long as the process. @bound gets the
 * address bound. Returns 0 or -errno (-EINVAL for a bad @addr or too many
 * programs or sockets, -EADDRINUSE, ...).
 */
int rpc_udp_open(const char *addr, uint16_t def_port, const uint32_t *progs,
		 unsigned int nprogs, struct sockaddr_storage *bound);

/*
 * rpc_udp_start() - start the thread of every socket opened (after any
 * fork). Returns 0, or -errno when a thread could not start (the sockets
 * before it are served).
 */
int rpc_udp_start(void);

#endif
