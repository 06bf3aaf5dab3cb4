/* SPDX-License-Identifier: MIT */
#ifndef NASD_CORE_NETIF_H
#define NASD_CORE_NETIF_H

/*
 * The host's network interfaces, for a protocol that tells clients where
 * else to reach the server (SMB's QUERY_NETWORK_INTERFACE_INFO): each
 * IPv4 and IPv6 address of an interface that is up and running, and what
 * the kernel says of its device in /sys/class/net (link speed, receive
 * queues). Protocols may not read files themselves (DESIGN.md: a protocol
 * reaches the filesystem only through vfs/), and these are not files of
 * an export, so the reading lives here.
 */

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

struct netif_addr {
	char dev[IF_NAMESIZE];	      /* the device ("eth0" of "eth0:1") */
	uint32_t index;		      /* if_nametoindex(dev), never 0 */
	bool loopback;		      /* IFF_LOOPBACK */
	struct sockaddr_storage addr; /* AF_INET or AF_INET6 */
};

/*
 * netif_foreach() - call @fn with each address (borrowed for the call) of
 * the interfaces that are up and running (IFF_UP and IFF_RUNNING: one
 * without carrier cannot be reached) and have an index, IPv4 and IPv6
 * only, in getifaddrs() order; stops early when @fn returns false.
 * Returns 0 or -errno (getifaddrs()).
 */
int netif_foreach(bool (*fn)(const struct netif_addr *a, void *arg), void *arg);

/*
 * netif_speed_mbps() - /sys/class/net/@dev/speed in Mb/s; 0 when the
 * kernel knows none (-1, unreadable, as for lo, virtio or a bridge).
 */
uint64_t netif_speed_mbps(const char *dev);

/*
 * netif_rx_queues() - how many receive queues (queues/rx-N) @dev has, at
 * most @max counted; 0 when unreadable.
 */
unsigned int netif_rx_queues(const char *dev, unsigned int max);

#endif
