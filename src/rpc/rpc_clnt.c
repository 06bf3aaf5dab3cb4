// SPDX-License-Identifier: MIT
/*
 * The server's own outgoing RPC calls (rpc/rpc_clnt.h): a non-blocking
 * connect bounded by poll(), then a blocking exchange bounded by socket
 * timeouts. A reply whose xid is not ours is skipped (one call in flight
 * per connection, so it can only be junk).
 */
#include "rpc/rpc_clnt.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <sys/random.h>
#include <sys/time.h>
#include <unistd.h>

#include "core/addr.h"
#include "rpc/pmap.h"
#include "rpc/rpc.h"
#include "xdr/xdr.h"

#define CLNT_MSG_MAX	 (RPC_CLNT_REPLY_MAX + 512)
#define PMAPPROC_GETPORT 3

static atomic_uint clnt_xid;

static int clnt_connect(const struct sockaddr_storage *addr, int timeout_ms)
{
	struct timeval tv = {
		.tv_sec = timeout_ms / 1000,
		.tv_usec = (timeout_ms % 1000) * 1000,
	};
	socklen_t len = addr->ss_family == AF_INET6
				? sizeof(struct sockaddr_in6)
				: sizeof(struct sockaddr_in);
	struct pollfd pfd;
	int fd, err = 0, ret;
	socklen_t elen = sizeof(err);

	fd = socket(addr->ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
		    0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (const struct sockaddr *)addr, len) < 0) {
		if (errno != EINPROGRESS) {
			ret = -errno;
			goto out_close;
		}
		pfd.fd = fd;
		pfd.events = POLLOUT;
		ret = poll(&pfd, 1, timeout_ms);
		if (ret <= 0) {
			ret = ret == 0 ? -ETIMEDOUT : -errno;
			goto out_close;
		}
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) < 0 ||
		    err) {
			ret = err ? -err : -errno;
			goto out_close;
		}
	}
	/* Blocking from here on, each step bounded by the timeouts. */
	if (fcntl(fd, F_SETFL, 0) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0) {
		ret = -errno;
		goto out_close;
	}
	return fd;

out_close:
	close(fd);
	return ret;
}

static int clnt_io(int fd, uint8_t *p, size_t n, bool wr)
{
	ssize_t r;

	while (n) {
		r = wr ? send(fd, p, n, MSG_NOSIGNAL) : recv(fd, p, n, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		if (r == 0)
			return -ECONNRESET;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

/* One whole record into @buf (@max bytes). */
static int clnt_read_record(int fd, uint8_t *buf, size_t max, size_t *len)
{
	uint8_t hdr[RPC_RM_HDR_LEN];
	uint32_t flen;
	size_t n = 0;
	bool last;
	int ret;

	do {
		ret = clnt_io(fd, hdr, sizeof(hdr), false);
		if (ret < 0)
			return ret;
		(void)rpc_rm_parse(hdr, &flen, &last);
		if (flen > max - n)
			return -EMSGSIZE;
		ret = clnt_io(fd, buf + n, flen, false);
		if (ret < 0)
			return ret;
		n += flen;
	} while (!last);
	*len = n;
	return 0;
}

static bool enc_auth_sys(struct xdr_buf *x)
{
	char host[RPC_AUTH_SYS_MACHINE_MAX + 1] = "";
	uint32_t n;

	if (gethostname(host, sizeof(host) - 1) < 0)
		host[0] = 0;
	n = (uint32_t)strlen(host);
	/* stamp, machinename, uid 0, gid 0, no more gids */
	return xdr_enc_u32(x, AUTH_SYS) &&
	       xdr_enc_u32(x, 4 + 4 + n + (uint32_t)xdr_pad(n) + 12) &&
	       xdr_enc_u32(x, 0) && xdr_enc_opaque(x, host, n) &&
	       xdr_enc_u32(x, 0) && xdr_enc_u32(x, 0) && xdr_enc_u32(x, 0) &&
	       xdr_enc_u32(x, AUTH_NONE) && xdr_enc_u32(x, 0);
}

/* The results of a reply to @xid in @msg, or an error. */
static int clnt_parse_reply(struct xdr_buf *x, uint32_t xid)
{
	uint32_t v, flavor, vlen;
	const uint8_t *verf;

	if (!xdr_dec_u32(x, &v) || v != xid)
		return -EAGAIN;
	if (!xdr_dec_u32(x, &v) || v != REPLY || !xdr_dec_u32(x, &v))
		return -EPROTO;
	if (v != MSG_ACCEPTED)
		return -EACCES;
	if (!xdr_dec_u32(x, &flavor) ||
	    !xdr_dec_opaque_ref(x, &verf, &vlen, RPC_AUTH_MAX_BODY) ||
	    !xdr_dec_u32(x, &v))
		return -EPROTO;
	return v == SUCCESS ? 0 : -EPROTO;
}

/** rpc_clnt_call() - see rpc_clnt.h. */
int rpc_clnt_call(const struct sockaddr_storage *addr, uint32_t prog,
		  uint32_t vers, uint32_t proc, const uint8_t *args,
		  size_t alen, uint8_t *res, size_t resmax, size_t *reslen,
		  int timeout_ms)
{
	static _Thread_local uint8_t msg[CLNT_MSG_MAX];
	uint32_t xid;
	struct xdr_buf x;
	size_t len;
	int fd, ret;

	if (atomic_load(&clnt_xid) == 0) {
		uint32_t seed = 0;

		if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) < 0)
			seed = (uint32_t)getpid();
		atomic_store(&clnt_xid, seed | 1);
	}
	xid = atomic_fetch_add(&clnt_xid, 1);
	xdr_init(&x, msg + RPC_RM_HDR_LEN, sizeof(msg) - RPC_RM_HDR_LEN);
	if (!(xdr_enc_u32(&x, xid) && xdr_enc_u32(&x, CALL) &&
	      xdr_enc_u32(&x, RPC_VERSION) && xdr_enc_u32(&x, prog) &&
	      xdr_enc_u32(&x, vers) && xdr_enc_u32(&x, proc) &&
	      enc_auth_sys(&x) && xdr_inline(&x, 0) &&
	      alen <= xdr_remaining(&x)))
		return -EMSGSIZE;
	memcpy(msg + RPC_RM_HDR_LEN + x.pos, args, alen);
	x.pos += alen;
	rpc_rm_build(msg, (uint32_t)x.pos);
	fd = clnt_connect(addr, timeout_ms);
	if (fd < 0)
		return fd;
	ret = clnt_io(fd, msg, x.pos + RPC_RM_HDR_LEN, true);
	while (ret == 0) {
		ret = clnt_read_record(fd, msg, sizeof(msg), &len);
		if (ret < 0)
			break;
		xdr_init(&x, msg, len);
		ret = clnt_parse_reply(&x, xid);
		if (ret == -EAGAIN) {
			ret = 0; /* not our xid: read on */
			continue;
		}
		if (ret < 0)
			break;
		if (xdr_remaining(&x) > resmax) {
			ret = -EMSGSIZE;
			break;
		}
		*reslen = xdr_remaining(&x);
		memcpy(res, x.base + x.pos, *reslen);
		break;
	}
	close(fd);
	return ret;
}

/** rpc_clnt_getport() - see rpc_clnt.h. */
int rpc_clnt_getport(const struct sockaddr_storage *addr, uint16_t pmap_port,
		     uint32_t prog, uint32_t vers, uint32_t prot,
		     int timeout_ms)
{
	struct sockaddr_storage pa = *addr;
	uint8_t args[16], res[8];
	struct xdr_buf x;
	uint32_t port;
	size_t len = 0;
	int ret;

	addr_set_port(&pa, pmap_port);
	xdr_init(&x, args, sizeof(args));
	(void)(xdr_enc_u32(&x, prog) && xdr_enc_u32(&x, vers) &&
	       xdr_enc_u32(&x, prot) && xdr_enc_u32(&x, 0));
	ret = rpc_clnt_call(&pa, PMAP_PROGRAM, 2, PMAPPROC_GETPORT, args,
			    sizeof(args), res, sizeof(res), &len, timeout_ms);
	if (ret < 0)
		return ret;
	xdr_init(&x, res, len);
	if (!xdr_dec_u32(&x, &port) || port > 65535)
		return -EPROTO;
	return port ? (int)port : -ENOENT;
}
