/* SPDX-License-Identifier: MIT */
/* Universal addresses (RFC 5665 §5.2.3.3, §5.2.3.4): see rpc/uaddr.h. */
#include "rpc/uaddr.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/addr.h"

int uaddr_format(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN];
	uint16_t port = addr_port(ss);
	const void *a;
	int n;

	if (ss->ss_family == AF_INET)
		a = &((const struct sockaddr_in *)ss)->sin_addr;
	else if (ss->ss_family == AF_INET6)
		a = &((const struct sockaddr_in6 *)ss)->sin6_addr;
	else
		return -EINVAL;
	if (!inet_ntop(ss->ss_family, a, host, sizeof(host)))
		return -EINVAL;
	n = snprintf(buf, len, "%s.%u.%u", host, (unsigned int)(port >> 8),
		     (unsigned int)(port & 0xff));
	if (n < 0 || (size_t)n >= len)
		return -EINVAL;
	return n;
}

/*
 * One port octet: all of @s, 1-3 decimal digits, at most 255. (sscanf's
 * %u would take a sign, blanks and trailing junk, and its overflow is
 * undefined.)
 */
static bool uaddr_octet(const char *s, unsigned int *out)
{
	unsigned int v = 0;
	size_t i;

	for (i = 0; s[i]; i++) {
		if (i == 3 || s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (unsigned int)(s[i] - '0');
	}
	if (i == 0 || v > 255)
		return false;
	*out = v;
	return true;
}

int uaddr_parse(const char *uaddr, struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	char host[UADDR_MAX];
	unsigned int p1, p2;
	size_t n = strlen(uaddr);
	char *dot;

	memset(ss, 0, sizeof(*ss));
	if (n >= sizeof(host))
		return -EINVAL;
	memcpy(host, uaddr, n + 1);
	/* "host.p1.p2": the port is the last two dotted numbers. */
	dot = strrchr(host, '.');
	if (!dot || !uaddr_octet(dot + 1, &p2))
		return -EINVAL;
	*dot = '\0';
	dot = strrchr(host, '.');
	if (!dot || !uaddr_octet(dot + 1, &p1))
		return -EINVAL;
	*dot = '\0';
	if (inet_pton(AF_INET, host, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		*len = sizeof(*s4);
	} else if (inet_pton(AF_INET6, host, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		*len = sizeof(*s6);
	} else {
		return -EINVAL;
	}
	addr_set_port(ss, (uint16_t)(p1 << 8 | p2));
	return 0;
}
