/* SPDX-License-Identifier: MIT */
/* The host's network interfaces (core/netif.h). */
#include "core/netif.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int netif_foreach(bool (*fn)(const struct netif_addr *a, void *arg), void *arg)
{
	struct ifaddrs *all, *ifa;
	struct netif_addr a;
	char *colon;
	int fam;

	if (getifaddrs(&all) < 0)
		return -errno;
	for (ifa = all; ifa; ifa = ifa->ifa_next) {
		if (!ifa->ifa_addr || !(ifa->ifa_flags & IFF_UP) ||
		    !(ifa->ifa_flags & IFF_RUNNING))
			continue;
		fam = ifa->ifa_addr->sa_family;
		if (fam != AF_INET && fam != AF_INET6)
			continue;
		memset(&a, 0, sizeof(a));
		/* An IPv4 alias is labelled "eth0:1"; the device is "eth0". */
		if (snprintf(a.dev, sizeof(a.dev), "%s", ifa->ifa_name) >=
		    (int)sizeof(a.dev))
			continue;
		colon = strchr(a.dev, ':');
		if (colon)
			*colon = '\0';
		a.index = if_nametoindex(a.dev);
		if (!a.index)
			continue;
		a.loopback = ifa->ifa_flags & IFF_LOOPBACK;
		memcpy(&a.addr, ifa->ifa_addr,
		       fam == AF_INET ? sizeof(struct sockaddr_in)
				      : sizeof(struct sockaddr_in6));
		if (!fn(&a, arg))
			break;
	}
	freeifaddrs(all);
	return 0;
}

uint64_t netif_speed_mbps(const char *dev)
{
	char path[96], buf[32], *end;
	long v;
	ssize_t n;
	int fd;

	if (snprintf(path, sizeof(path), "/sys/class/net/%s/speed", dev) >=
	    (int)sizeof(path))
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	errno = 0;
	v = strtol(buf, &end, 10);
	/* -1 is SPEED_UNKNOWN; 0 says nothing either. */
	return errno || end == buf || v <= 0 ? 0 : (uint64_t)v;
}

unsigned int netif_rx_queues(const char *dev, unsigned int max)
{
	char path[96];
	struct dirent *de;
	unsigned int rx = 0;
	DIR *d;

	if (snprintf(path, sizeof(path), "/sys/class/net/%s/queues", dev) >=
	    (int)sizeof(path))
		return 0;
	d = opendir(path);
	if (!d)
		return 0;
	while (rx < max && (de = readdir(d)) != NULL)
		if (!strncmp(de->d_name, "rx-", 3))
			rx++;
	closedir(d);
	return rx;
}
