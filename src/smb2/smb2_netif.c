// SPDX-License-Identifier: MIT
/*
 * The interface list of FSCTL_QUERY_NETWORK_INTERFACE_INFO (MS-SMB2
 * §3.3.5.15.11, §2.2.32.5); see smb2_netif.h.
 *
 * Locking: one mutex guards the listener addresses (written at start-up,
 * before any worker runs, so in practice only read) and the cached list
 * with its time. A worker that finds the list stale reads it again under
 * the mutex (core/netif.c: getifaddrs() and a few small /sys files,
 * well under a millisecond), so concurrent askers wait for that one read
 * and never see half a list; the answer is then encoded under the mutex too,
 * straight from the cache into the response.
 *
 * Why a cache: clients ask on every mount and session (Linux cifs) and
 * Windows again every 10 minutes per channel; a few seconds of staleness
 * is what an address change costs a client anyway, and saves a netlink
 * dump and several file reads per ask.
 */
#include "smb2/smb2_netif.h"

#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "core/addr.h"
#include "core/log.h"
#include "core/netif.h"
#include "smb2/smb2.h"
#include "smb2/smb2_wire.h"
#include "transport/transport.h"

/* §2.2.32.5.1 Family. */
#define NETIF_AF_INET  0x0002
#define NETIF_AF_INET6 0x0017
#define NETIF_HDR_LEN  24  /* Next, IfIndex, Capability, Reserved, LinkSpeed */
#define NETIF_SA_LEN   128 /* SockAddr_Storage */

/* How long a read list is answered from (seconds). */
#define NETIF_CACHE_SEC 5

/*
 * LinkSpeed when the kernel reports none (/sys/class/net/IF/speed is -1
 * or unreadable, as for virtio, bridges, tunnels and lo): 1 Gb/s, the
 * least any NIC sold today runs at, so that a client ranking interfaces
 * by speed neither favours nor shuns one it knows nothing about; lo moves
 * bytes in memory, far faster than any wire, and 10 Gb/s says that
 * without claiming a number nobody measured.
 */
#define NETIF_SPEED_DEFAULT (1000ull * 1000 * 1000)
#define NETIF_SPEED_LO	    (10ull * 1000 * 1000 * 1000)

static pthread_mutex_t netif_mu = PTHREAD_MUTEX_INITIALIZER;
static struct sockaddr_storage listens[TRANSPORT_MAX_LISTENERS];
static size_t nlistens;
static struct smb2_netif cache[SMB2_NETIF_MAX];
static size_t ncache;
static bool cache_valid;
static struct timespec cache_time;

/* ---- encoder ----------------------------------------------------------- */

/* SockAddr_Storage of @ss (§2.2.32.5.1.1, §2.2.32.5.1.2); false: family. */
static bool enc_sockaddr(const struct sockaddr_storage *ss, uint8_t sa[128])
{
	const struct sockaddr_in *in4 = (const struct sockaddr_in *)ss;
	const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)ss;

	memset(sa, 0, NETIF_SA_LEN);
	switch (ss->ss_family) {
	case AF_INET:
		/* Family, Port 0, IPv4Address (network order), Reserved. */
		put_le16(sa, NETIF_AF_INET);
		memcpy(sa + 4, &in4->sin_addr, 4);
		return true;
	case AF_INET6:
		/* Family, Port 0, FlowInfo 0, IPv6Address, ScopeId 0. */
		put_le16(sa, NETIF_AF_INET6);
		memcpy(sa + 8, &in6->sin6_addr, 16);
		return true;
	default:
		return false;
	}
}

size_t smb2_enc_NETWORK_INTERFACE_INFO(const struct smb2_netif *ifs, size_t n,
				       struct smb2_buf *out)
{
	uint8_t sa[NETIF_SA_LEN];
	size_t room = sb_remaining(out) / SMB2_NETIF_INFO_LEN, want = 0, i;
	size_t done = 0;

	/* How many will be written, so that the last one says Next 0. */
	for (i = 0; i < n; i++)
		if (ifs[i].addr.ss_family == AF_INET ||
		    ifs[i].addr.ss_family == AF_INET6)
			want++;
	if (want > room)
		want = room;
	for (i = 0; i < n && done < want; i++) {
		if (!enc_sockaddr(&ifs[i].addr, sa))
			continue;
		done++;
		sb_put_u32(out, done < want ? SMB2_NETIF_INFO_LEN : 0);
		sb_put_u32(out, ifs[i].ifindex);
		sb_put_u32(out, ifs[i].caps);
		sb_put_u32(out, 0);
		sb_put_u64(out, ifs[i].speed);
		sb_put_bytes(out, sa, sizeof(sa));
	}
	return done;
}

/* ---- which addresses the listeners take -------------------------------- */

static bool same_addr(const struct sockaddr_storage *x,
		      const struct sockaddr_storage *y)
{
	if (x->ss_family != y->ss_family)
		return false;
	if (x->ss_family == AF_INET)
		return ((const struct sockaddr_in *)x)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)y)->sin_addr.s_addr;
	if (x->ss_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)x)->sin6_addr,
			       &((const struct sockaddr_in6 *)y)->sin6_addr,
			       16);
	return false;
}

bool smb2_netif_accepted(const struct sockaddr_storage *ls, size_t n,
			 const struct sockaddr_storage *a, bool loopback)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (ls[i].ss_family != a->ss_family)
			continue;
		if (addr_is_any(&ls[i]) ? !loopback : same_addr(&ls[i], a))
			return true;
	}
	return false;
}

int smb2_listen_bound(const struct sockaddr_storage *ss)
{
	int ret = 0;

	pthread_mutex_lock(&netif_mu);
	if (nlistens == TRANSPORT_MAX_LISTENERS)
		ret = -ENOSPC;
	else
		listens[nlistens++] = *ss;
	cache_valid = false;
	pthread_mutex_unlock(&netif_mu);
	return ret;
}

/* ---- enumeration -------------------------------------------------------- */

/* netif_foreach() callback: keep @a if answered; netif_mu held. */
static bool netif_keep(const struct netif_addr *a, void *arg)
{
	size_t *skipped = arg;
	const struct sockaddr_in6 *in6;
	struct smb2_netif *e;
	uint64_t mbps;

	if (a->addr.ss_family == AF_INET6) {
		/* A link-local address means nothing without its scope,
		 * which SockAddr_Storage has no room for (ScopeId 0). */
		in6 = (const struct sockaddr_in6 *)&a->addr;
		if (IN6_IS_ADDR_LINKLOCAL(&in6->sin6_addr) ||
		    IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr))
			return true;
	}
	if (!smb2_netif_accepted(listens, nlistens, &a->addr, a->loopback))
		return true;
	if (ncache == SMB2_NETIF_MAX) {
		(*skipped)++;
		return true;
	}
	e = &cache[ncache++];
	e->ifindex = a->index;
	e->caps = netif_rx_queues(a->dev, 2) > 1 ? SMB2_NETIF_RSS_CAPABLE : 0;
	mbps = netif_speed_mbps(a->dev);
	if (mbps)
		e->speed = mbps * 1000 * 1000;
	else
		e->speed = a->loopback ? NETIF_SPEED_LO : NETIF_SPEED_DEFAULT;
	e->addr = a->addr;
	return true;
}

/* Read the list into the cache; netif_mu held. Returns 0 or -errno. */
static int netif_refresh(void)
{
	size_t skipped = 0;
	int err;

	ncache = 0;
	err = netif_foreach(netif_keep, &skipped);
	if (err)
		return err;
	if (skipped)
		log_ratelimited(LL_WARN,
				"smb2: %zu interface addresses past the first "
				"%d left out of QUERY_NETWORK_INTERFACE_INFO",
				skipped, SMB2_NETIF_MAX);
	clock_gettime(CLOCK_MONOTONIC, &cache_time);
	cache_valid = true;
	return 0;
}

/* Is the cache missing or older than NETIF_CACHE_SEC? netif_mu held. */
static bool netif_stale(void)
{
	struct timespec now;

	if (!cache_valid)
		return true;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec - cache_time.tv_sec >= NETIF_CACHE_SEC ||
	       now.tv_sec < cache_time.tv_sec;
}

uint32_t smb2_netif_answer(struct smb2_buf *out)
{
	uint32_t st = STATUS_SUCCESS;
	size_t done;
	int err;

	pthread_mutex_lock(&netif_mu);
	if (netif_stale()) {
		err = netif_refresh();
		if (err) {
			log_ratelimited(LL_WARN, "smb2: getifaddrs: %s",
					strerror(-err));
			st = STATUS_INSUFFICIENT_RESOURCES;
			goto out_unlock;
		}
	}
	done = smb2_enc_NETWORK_INTERFACE_INFO(cache, ncache, out);
	/* As the other lists IOCTL and QUERY_INFO return (EAs, allocated
	 * ranges): the entries that fit with a warning; none, an error. */
	if (done < ncache)
		st = done ? STATUS_BUFFER_OVERFLOW : STATUS_BUFFER_TOO_SMALL;
out_unlock:
	pthread_mutex_unlock(&netif_mu);
	return st;
}
