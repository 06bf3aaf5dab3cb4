/* SPDX-License-Identifier: MIT */
#ifndef NASD_RPC_UADDR_H
#define NASD_RPC_UADDR_H

/*
 * Universal addresses (RFC 5665 §5.2.3.3/§5.2.3.4) of TCP and UDP over
 * IPv4 and IPv6, as rpcbind v3/v4 carries them: "h1.h2.h3.h4.p1.p2" and
 * "ipv6-address.p1.p2", the port as two decimal octets.
 */

#include <stddef.h>
#include <sys/socket.h>

/* The longest: an IPv6 address with its ".255.255". */
#define UADDR_MAX 64

/*
 * uaddr_format() - the universal address of @ss into @buf (@len bytes).
 * Returns its length, or -EINVAL for another family or a short @buf.
 */
int uaddr_format(const struct sockaddr_storage *ss, char *buf, size_t len);

/*
 * uaddr_parse() - @uaddr into @ss (zeroed first) and its length @len.
 * The host must be a numeric IPv4 or IPv6 address and each port octet
 * one to three decimal digits, at most 255. Returns 0 or -EINVAL.
 */
int uaddr_parse(const char *uaddr, struct sockaddr_storage *ss, socklen_t *len);

#endif
