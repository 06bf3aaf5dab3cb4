// SPDX-License-Identifier: MIT
/*
 * ONC RPC over UDP (rpc/rpc_udp.h): a table of sockets, each with the
 * programs it answers, and one blocking recvfrom() thread per socket.
 */
#include "rpc/rpc_udp.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "core/addr.h"
#include "core/log.h"
#include "core/req.h"
#include "rpc/rpc.h"

/* Largest datagram taken: the largest a UDP/IPv4 datagram carries. */
#define UDP_MSG_MAX 65507
#define UDP_SOCKETS_MAX 64
#define UDP_ARENA 16384

struct rpc_udp {
	int fd;
	struct sockaddr_storage local;
	socklen_t local_len;
	unsigned int nprogs;
	uint32_t progs[RPC_UDP_MAX_PROGS];
};

/* filled by rpc_udp_open() on the main thread before rpc_udp_start() */
static struct rpc_udp udp_socks[UDP_SOCKETS_MAX];
static unsigned int udp_nsocks, udp_nstarted;

/*
 * Run the call in @msg (@len bytes from @peer, @plen) through the RPC
 * dispatcher as one request (core/req.h) and send its reply, if any, to
 * @peer as one datagram. The request lives on this stack and its arena
 * in a per-thread buffer; both are done with when this returns. The
 * handler may block: this thread is nobody's event loop.
 */
static void udp_answer(const struct rpc_udp *u, uint8_t *msg, size_t len,
		       const struct sockaddr_storage *peer, socklen_t plen)
{
	static _Thread_local uint8_t arena[UDP_ARENA];
	struct iovec iov[REQ_MAX_IOV];
	struct msghdr mh = { 0 };
	struct req r;

	req_init(&r, arena, sizeof(arena));
	r.peer = peer;
	r.peer_len = plen;
	r.peer_privileged = addr_port(peer) < 1024;
	r.local = &u->local;
	r.local_len = u->local_len;
	r.msg = msg;
	r.msg_len = len;
	/* the replies of these programs carry no payload: the chain is the
	 * message */
	if (rpc_process(&r) == REQ_REPLY) {
		mh.msg_name = (void *)peer;
		mh.msg_namelen = plen;
		mh.msg_iov = iov;
		mh.msg_iovlen = (size_t)req_reply_iov(&r, iov);
		if (sendmsg(u->fd, &mh, MSG_NOSIGNAL) < 0)
			log_debug("rpc: udp send: %s", strerror(errno));
	}
	req_finish(&r);
}

/* A CALL (word 1 is 0) of one of @u's programs (word 3). */
static bool udp_wanted(const struct rpc_udp *u, const uint8_t *msg,
		       size_t len)
{
	uint32_t mtype, prog;
	unsigned int i;

	if (len < 24)
		return false;
	memcpy(&mtype, msg + 4, 4);
	memcpy(&prog, msg + 12, 4);
	if (ntohl(mtype) != CALL)
		return false;
	for (i = 0; i < u->nprogs; i++)
		if (u->progs[i] == ntohl(prog))
			return true;
	return false;
}

static void *udp_main(void *arg)
{
	const struct rpc_udp *u = arg;
	/* zeroed for the analyzer: recvfrom's address is a transparent union */
	struct sockaddr_storage peer = {0};
	static _Thread_local uint8_t buf[UDP_MSG_MAX];
	socklen_t plen;
	ssize_t n;

	for (;;) {
		plen = sizeof(peer);
		n = recvfrom(u->fd, buf, sizeof(buf), 0,
			     (struct sockaddr *)&peer, &plen);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			log_warn("rpc: udp: %s", strerror(errno));
			break;
		}
		if (plen > sizeof(peer) || !udp_wanted(u, buf, (size_t)n))
			continue;
		udp_answer(u, buf, (size_t)n, &peer, plen);
	}
	return NULL;
}

/** rpc_udp_open() - see rpc_udp.h. */
int rpc_udp_open(const char *addr, uint16_t def_port, const uint32_t *progs,
		 unsigned int nprogs, struct sockaddr_storage *bound)
{
	struct rpc_udp *u;
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, one = 1, ret;

	if (!nprogs || nprogs > RPC_UDP_MAX_PROGS ||
	    udp_nsocks == UDP_SOCKETS_MAX)
		return -EINVAL;
	ret = addr_parse(addr, def_port, &ss, &len);
	if (ret < 0)
		return ret;
	fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* no SO_REUSEADDR: a UDP port taken by another socket is an error
	 * here, not a port shared */
	if ((ss.ss_family == AF_INET6 &&
	     setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) <
		     0) ||
	    bind(fd, (struct sockaddr *)&ss, len) < 0 ||
	    getsockname(fd, (struct sockaddr *)&ss, &len) < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	u = &udp_socks[udp_nsocks++];
	u->fd = fd;
	u->local = ss;
	u->local_len = len;
	u->nprogs = nprogs;
	memcpy(u->progs, progs, nprogs * sizeof(*progs));
	if (bound)
		*bound = ss;
	return 0;
}

/** rpc_udp_start() - see rpc_udp.h. */
int rpc_udp_start(void)
{
	pthread_t t;
	int ret;

	for (; udp_nstarted < udp_nsocks; udp_nstarted++) {
		/* lives as long as the process: the thread never ends */
		ret = pthread_create(&t, NULL, udp_main,
				     &udp_socks[udp_nstarted]);
		if (ret)
			return -ret;
		pthread_detach(t);
	}
	return 0;
}
