/* SPDX-License-Identifier: MIT */
/*
 * The UDP responder for program 100000 (rpc/pmap_udp.h): a blocking
 * recvfrom() loop per socket. Each datagram is one whole RPC message
 * (RFC 5531 §10 record marking is for streams only); the reply goes back
 * to its sender in one datagram.
 */
#include "rpc/pmap_udp.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/addr.h"
#include "core/log.h"
#include "rpc/pmap.h"
#include "rpc/rpc.h"

/* Largest datagram read; a port mapper call is far smaller. */
#define PMAP_UDP_MAX 9000

struct pmap_udp {
	int fd;
	struct sockaddr_storage local;
	socklen_t local_len;
};

/*
 * Run the call in @msg (@len bytes from @peer, @plen) through the RPC
 * dispatcher as one request (core/req.h) and send its reply, if any, to
 * @peer as one datagram. The request lives on this stack and its arena
 * in a per-thread buffer; both are done with when this returns.
 */
static void pmap_udp_answer(const struct pmap_udp *u, uint8_t *msg, size_t len,
			    const struct sockaddr_storage *peer, socklen_t plen)
{
	static _Thread_local uint8_t arena[16384];
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
	/* Port mapper replies have no payload: the chain is the message. */
	if (rpc_process(&r) == REQ_REPLY) {
		mh.msg_name = (void *)peer;
		mh.msg_namelen = plen;
		mh.msg_iov = iov;
		mh.msg_iovlen = (size_t)req_reply_iov(&r, iov);
		if (sendmsg(u->fd, &mh, MSG_NOSIGNAL) < 0)
			log_debug("pmap: udp send: %s", strerror(errno));
	}
	req_finish(&r);
}

/* Only program 100000 is answered: the program is word 3 of a CALL. */
static bool pmap_udp_wanted(const uint8_t *msg, size_t len)
{
	uint32_t prog;

	if (len < 16)
		return false;
	memcpy(&prog, msg + 12, 4);
	return ntohl(prog) == PMAP_PROGRAM;
}

static void *pmap_udp_main(void *arg)
{
	const struct pmap_udp *u = arg;
	/* zeroed for the analyzer: recvfrom's address is a transparent union */
	struct sockaddr_storage peer = {0};
	static _Thread_local uint8_t buf[PMAP_UDP_MAX];
	socklen_t plen;
	ssize_t n;

	for (;;) {
		plen = sizeof(peer);
		n = recvfrom(u->fd, buf, sizeof(buf), 0,
			     (struct sockaddr *)&peer, &plen);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			log_warn("pmap: udp: %s", strerror(errno));
			break;
		}
		if (plen > sizeof(peer) || !pmap_udp_wanted(buf, (size_t)n))
			continue;
		pmap_udp_answer(u, buf, (size_t)n, &peer, plen);
	}
	return NULL;
}

int pmap_udp_start(const char *addr)
{
	struct sockaddr_storage ss;
	struct pmap_udp *u;
	pthread_t t;
	socklen_t len;
	int fd, one = 1, ret;

	ret = addr_parse(addr, PMAP_PORT, &ss, &len);
	if (ret < 0)
		return ret;
	fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    (ss.ss_family == AF_INET6 &&
	     setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) <
		     0) ||
	    bind(fd, (struct sockaddr *)&ss, len) < 0) {
		ret = -errno;
		goto out_close;
	}
	/* Lives as long as the process: the thread never ends. */
	u = calloc(1, sizeof(*u));
	if (!u) {
		ret = -ENOMEM;
		goto out_close;
	}
	u->fd = fd;
	u->local = ss;
	u->local_len = len;
	ret = pthread_create(&t, NULL, pmap_udp_main, u);
	if (ret) {
		ret = -ret;
		goto out_free;
	}
	pthread_detach(t);
	return 0;

out_free:
	free(u);
out_close:
	close(fd);
	return ret;
}
