/* SPDX-License-Identifier: MIT */
/* Socket addresses: parsing, formatting, port and class (core/addr.h). */
#include "core/addr.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Split @spec into its host (into @host, @hostsz bytes) and the text of
 * its port (NULL when it names none). Brackets are required around an
 * IPv6 address that carries a port.
 */
static int addr_split(const char *spec, char *host, size_t hostsz,
		      const char **port)
{
	const char *end;
	size_t hlen;

	*port = NULL;
	if (spec[0] == '[') {
		end = strchr(spec, ']');
		if (!end)
			return -EINVAL;
		hlen = (size_t)(end - spec - 1);
		if (end[1] == ':')
			*port = end + 2;
		else if (end[1])
			return -EINVAL;
		spec++;
	} else {
		end = strrchr(spec, ':');
		/* More than one colon and no brackets: a bare IPv6 address. */
		if (end && strchr(spec, ':') == end) {
			hlen = (size_t)(end - spec);
			*port = end + 1;
		} else {
			hlen = strlen(spec);
		}
	}
	if (hlen >= hostsz)
		return -EINVAL;
	memcpy(host, spec, hlen);
	host[hlen] = '\0';
	return 0;
}

int addr_parse(const char *spec, uint16_t default_port,
	       struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	char host[INET6_ADDRSTRLEN + 1];
	unsigned long p = default_port;
	const char *port;
	char *e;

	memset(ss, 0, sizeof(*ss));
	if (addr_split(spec, host, sizeof(host), &port) < 0)
		return -EINVAL;
	if (port) {
		/* strtoul would take blanks and a sign: digits only. */
		if (*port < '0' || *port > '9')
			return -EINVAL;
		errno = 0;
		p = strtoul(port, &e, 10);
		if (*e || errno || p > 65535)
			return -EINVAL;
	}
	if (inet_pton(AF_INET, host, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)p);
		*len = sizeof(*s4);
		return 0;
	}
	if (inet_pton(AF_INET6, host, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)p);
		*len = sizeof(*s6);
		return 0;
	}
	return -EINVAL;
}

char *addr_format(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN];

	if (ss->ss_family == AF_INET &&
	    inet_ntop(AF_INET, &((const struct sockaddr_in *)ss)->sin_addr,
		      host, sizeof(host)))
		(void)snprintf(buf, len, "%s:%u", host,
			       (unsigned int)addr_port(ss));
	else if (ss->ss_family == AF_INET6 &&
		 inet_ntop(AF_INET6,
			   &((const struct sockaddr_in6 *)ss)->sin6_addr, host,
			   sizeof(host)))
		(void)snprintf(buf, len, "[%s]:%u", host,
			       (unsigned int)addr_port(ss));
	else
		(void)snprintf(buf, len, "?");
	return buf;
}

uint16_t addr_port(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)ss)->sin_port);
	if (ss->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
	return 0;
}

void addr_set_port(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	else if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
}

socklen_t addr_len(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return sizeof(struct sockaddr_in);
	if (ss->ss_family == AF_INET6)
		return sizeof(struct sockaddr_in6);
	return 0;
}

bool addr_is_any(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ((const struct sockaddr_in *)ss)->sin_addr.s_addr ==
		       htonl(INADDR_ANY);
	if (ss->ss_family == AF_INET6)
		return IN6_IS_ADDR_UNSPECIFIED(
			&((const struct sockaddr_in6 *)ss)->sin6_addr);
	return false;
}

bool addr_is_loopback(const struct sockaddr_storage *ss)
{
	const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;

	if (ss->ss_family == AF_INET)
		return ntohl(s4->sin_addr.s_addr) >> 24 == 127;
	if (ss->ss_family == AF_INET6)
		return IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr) ||
		       (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr) &&
			s6->sin6_addr.s6_addr[12] == 127);
	return false;
}
