/* SPDX-License-Identifier: MIT */
#ifndef NASD_SMB2_SMB2_NETIF_H
#define NASD_SMB2_SMB2_NETIF_H

/*
 * The server's network interfaces as FSCTL_QUERY_NETWORK_INTERFACE_INFO
 * answers them (MS-SMB2 §3.3.5.15.11, §2.2.32.5): the addresses of the
 * interfaces that are up on which an SMB listener accepts connections,
 * one NETWORK_INTERFACE_INFO per address.
 *
 * Split in three so that the parts without a system under them are unit
 * tested: the encoder (a list of entries to bytes), the listener match
 * (which addresses a set of listeners accepts; smb2_listen_bound() in
 * smb2.h records the server's) and the enumeration (core/netif.h's
 * addresses filtered and cached for a few seconds).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "smb2/smb2_buf.h"

/* §2.2.32.5 Capability. */
#define SMB2_NETIF_RSS_CAPABLE	0x00000001u
#define SMB2_NETIF_RDMA_CAPABLE 0x00000002u

/* One NETWORK_INTERFACE_INFO: 24 bytes, then SockAddr_Storage (128). */
#define SMB2_NETIF_INFO_LEN 152
/* The most entries answered (every address of a large host still fits:
 * 64 x 152 bytes is under 10 KiB, well inside any client's
 * MaxOutputResponse, Windows' 64 KiB and Linux cifs' 0xFF00). */
#define SMB2_NETIF_MAX	   64
#define SMB2_NETIF_OUT_MAX (SMB2_NETIF_MAX * SMB2_NETIF_INFO_LEN)

struct smb2_netif {
	uint32_t ifindex;	      /* if_nametoindex(), never 0 */
	uint32_t caps;		      /* SMB2_NETIF_*_CAPABLE */
	uint64_t speed;		      /* LinkSpeed, bits per second */
	struct sockaddr_storage addr; /* AF_INET or AF_INET6, port ignored */
};

/*
 * smb2_enc_NETWORK_INTERFACE_INFO() - @n entries of @ifs (borrowed) as a
 * chain of NETWORK_INTERFACE_INFO (§2.2.32.5) into @out: each 152 bytes,
 * so every one starts 8-byte aligned, Next 152 but 0 on the last one
 * written; SockAddr_Storage (§2.2.32.5.1) family 0x2 (port 0, the IPv4
 * address, zero) or 0x17 (port 0, FlowInfo 0, the IPv6 address, ScopeId
 * 0), zero-padded to 128 bytes. Only whole entries are written, as many
 * as fit in sb_remaining(@out); an entry of another family is skipped.
 * Returns the number written.
 */
size_t smb2_enc_NETWORK_INTERFACE_INFO(const struct smb2_netif *ifs, size_t n,
				       struct smb2_buf *out);

/*
 * smb2_netif_accepted() - does one of the @n listener addresses @listens
 * (borrowed) accept connections to @a, an address of an interface that
 * is (@loopback) or is not a loopback one? A listener bound to one address
 * accepts that address only; one bound to the wildcard (0.0.0.0, or ::,
 * which nasd binds v6-only) every address of its family but loopback
 * ones, which a client elsewhere could never reach.
 */
bool smb2_netif_accepted(const struct sockaddr_storage *listens, size_t n,
			 const struct sockaddr_storage *a, bool loopback);

/*
 * smb2_netif_answer() - the output of FSCTL_QUERY_NETWORK_INTERFACE_INFO
 * into @out (§3.3.5.15.11): the addresses of the interfaces that are up
 * and running, with an index, that a listener accepts (see
 * smb2_netif_accepted(); IPv6 link-local ones left out, their scope would
 * be lost in a ScopeId of 0). LinkSpeed from /sys/class/net/IF/speed,
 * RSS_CAPABLE with more than one receive queue, never RDMA_CAPABLE (no
 * SMB Direct). The list is read again when more than a few seconds old.
 * Returns STATUS_SUCCESS (an empty list too), STATUS_BUFFER_OVERFLOW (only
 * the first entries fit, chained as a whole list) or
 * STATUS_BUFFER_TOO_SMALL (not even one fits; nothing written), or
 * STATUS_INSUFFICIENT_RESOURCES when the interfaces cannot be read.
 */
uint32_t smb2_netif_answer(struct smb2_buf *out);

#endif
