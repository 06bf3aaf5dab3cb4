/* SPDX-License-Identifier: MIT */
#ifndef NASD_CORE_ADDR_H
#define NASD_CORE_ADDR_H

/*
 * Socket addresses (IPv4 and IPv6 only) for every layer: parsing the
 * "host[:port]" specs of the command line and of listeners, the port, and
 * text for log lines. No name resolution: hosts are numeric.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* Room for addr_format()'s "[ipv6]:port" and a NUL. */
#define ADDR_STR_MAX 56

/*
 * addr_parse() - "1.2.3.4", "1.2.3.4:2049", "[::1]:2049", "[::1]" or a
 * bare "::1" into @ss (zeroed first) and its length @len; @default_port
 * when @spec names none. A bare IPv6 address takes no port (its last
 * group would be ambiguous). Returns 0, or -EINVAL for anything else
 * (names, a port above 65535, junk after the port).
 */
int addr_parse(const char *spec, uint16_t default_port,
	       struct sockaddr_storage *ss, socklen_t *len);

/*
 * addr_format() - @ss as "1.2.3.4:2049" or "[::1]:2049" into @buf (at
 * most @len bytes, NUL-terminated; ADDR_STR_MAX always suffices), the
 * form addr_parse() reads back. Another family gives "?". Returns @buf.
 */
char *addr_format(const struct sockaddr_storage *ss, char *buf, size_t len);

/* addr_port() - the port of @ss in host order; 0 for another family. */
uint16_t addr_port(const struct sockaddr_storage *ss);

/* addr_set_port() - set the port of @ss (host order); others unchanged. */
void addr_set_port(struct sockaddr_storage *ss, uint16_t port);

/* addr_len() - sizeof the sockaddr of @ss's family, 0 for another one. */
socklen_t addr_len(const struct sockaddr_storage *ss);

/* addr_is_any() - @ss is the wildcard address (0.0.0.0 or ::). */
bool addr_is_any(const struct sockaddr_storage *ss);

/*
 * addr_is_loopback() - @ss is on a loopback network: 127.0.0.0/8, ::1,
 * or 127.0.0.0/8 mapped into IPv6 (::ffff:127.x.y.z).
 */
bool addr_is_loopback(const struct sockaddr_storage *ss);

#endif
