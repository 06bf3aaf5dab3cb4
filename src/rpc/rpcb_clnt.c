/* SPDX-License-Identifier: MIT */
/*
 * The rpcbind client (rpc/rpcb_clnt.h): rpcbind v4 SET, UNSET and DUMP
 * (RFC 1833 §2.2.1) over a blocking stream socket with record marking
 * (RFC 5531 §11). Start-up and exit only, from the main thread: nothing
 * here is shared with another thread.
 */
#include "rpc/rpcb_clnt.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "core/addr.h"
#include "core/log.h"
#include "rpc/pmap.h"
#include "rpc/rpc.h"
#include "rpc/uaddr.h"

#define RPCB_SOCK_PATH	 "/run/rpcbind.sock"
#define RPCB_VERS	 4
#define RPCBPROC_SET	 1
#define RPCBPROC_UNSET	 2
#define RPCBPROC_DUMP	 4
#define RPCB_TIMEOUT_SEC 5
/* A DUMP of a busy host (about 100 bytes an entry) fits many times. */
#define RPCB_REPLY_MAX (256 * 1024)
#define RPCB_STR_MAX   255 /* netid and uaddr: what we keep of them */
/* Longest DUMP string decoded (paths of local sockets are long). */
#define RPCB_WIRE_STR_MAX 4096
#define RPCB_NETID_MAX	  8 /* "tcp6" and its kin */

/* One tuple nasd registered, for rpcb_unregister(). */
struct rpcb_reg {
	uint32_t prog;
	uint32_t vers;
	char netid[RPCB_NETID_MAX];
	char uaddr[UADDR_MAX];
};

static struct rpcb_reg rpcb_regs[PMAP_MAX_ENTRIES];
static unsigned int rpcb_nregs;

/* A connection to rpcbind and the last reply body read on it. */
struct rpcb_conn {
	int fd;
	uint32_t xid;
	const char *via;    /* for log lines */
	uint8_t *rep;	    /* RPCB_REPLY_MAX bytes, the whole last reply */
	struct xdr_buf res; /* the last reply's results, within @rep */
};

static void rpcb_set_timeouts(int fd)
{
	struct timeval tv = {.tv_sec = RPCB_TIMEOUT_SEC};

	/* Best effort: without them a hung rpcbind only delays start-up. */
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

/* rpcbind's local socket: it learns our uid from it (SO_PEERCRED). */
static int rpcb_connect_local(void)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	int fd, ret;

	(void)snprintf(sun.sun_path, sizeof(sun.sun_path), "%s",
		       RPCB_SOCK_PATH);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	rpcb_set_timeouts(fd);
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	return fd;
}

/*
 * 127.0.0.1:111 from a reserved port when we may bind one: rpcbind then
 * records the owner "superuser", else "unknown".
 */
static int rpcb_connect_tcp(void)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(PMAP_PORT),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	struct sockaddr_in me = {.sin_family = AF_INET};
	uint16_t port;
	int fd, ret;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	for (port = 1023; port >= 600; port--) {
		me.sin_port = htons(port);
		if (bind(fd, (struct sockaddr *)&me, sizeof(me)) == 0)
			break;
		if (errno != EADDRINUSE)
			break;
	}
	rpcb_set_timeouts(fd);
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	return fd;
}

static int rpcb_open(struct rpcb_conn *c)
{
	int fd;

	memset(c, 0, sizeof(*c));
	c->fd = -1;
	c->xid = (uint32_t)time(NULL) ^ ((uint32_t)getpid() << 16);
	c->rep = malloc(RPCB_REPLY_MAX);
	if (!c->rep)
		return -ENOMEM;
	fd = rpcb_connect_local();
	c->via = RPCB_SOCK_PATH;
	if (fd < 0) {
		log_debug("rpcbind: %s: %s; trying 127.0.0.1:111",
			  RPCB_SOCK_PATH, strerror(-fd));
		fd = rpcb_connect_tcp();
		c->via = "127.0.0.1:111";
	}
	if (fd < 0) {
		free(c->rep);
		c->rep = NULL;
		return fd;
	}
	c->fd = fd;
	return 0;
}

static void rpcb_close(struct rpcb_conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	free(c->rep);
	c->fd = -1;
	c->rep = NULL;
}

static int rpcb_read_full(int fd, uint8_t *p, size_t n)
{
	ssize_t r;

	while (n) {
		r = read(fd, p, n);
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

static int rpcb_write_full(int fd, const uint8_t *p, size_t n)
{
	ssize_t r;

	while (n) {
		r = send(fd, p, n, MSG_NOSIGNAL);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

/* Read one whole record (any number of fragments) into c->rep. */
static int rpcb_read_record(struct rpcb_conn *c, size_t *len)
{
	uint32_t mark, flen;
	size_t n = 0;
	int ret;

	for (;;) {
		ret = rpcb_read_full(c->fd, (uint8_t *)&mark, 4);
		if (ret < 0)
			return ret;
		mark = ntohl(mark);
		flen = mark & 0x7fffffffu;
		if (flen > RPCB_REPLY_MAX - n)
			return -EMSGSIZE;
		ret = rpcb_read_full(c->fd, c->rep + n, flen);
		if (ret < 0)
			return ret;
		n += flen;
		if (mark & 0x80000000u)
			break;
	}
	*len = n;
	return 0;
}

/*
 * One rpcbind v4 call with AUTH_NONE (rpcbind asks for nothing more) and
 * @args (@alen bytes, XDR). On success c->res holds the results. Returns
 * 0, -EACCES when rpcbind rejected or refused the call, -EPROTO for a
 * reply that makes no sense, or the socket's -errno.
 */
static int rpcb_call(struct rpcb_conn *c, uint32_t proc, const uint8_t *args,
		     size_t alen)
{
	uint8_t msg[4 + 40 + 1024];
	uint32_t xid = ++c->xid, v, flavor, vlen;
	const uint8_t *verf;
	struct xdr_buf x;
	size_t len;
	int ret;

	if (alen > sizeof(msg) - 44)
		return -EINVAL;
	xdr_init(&x, msg + 4, sizeof(msg) - 4);
	if (!(xdr_enc_u32(&x, xid) && xdr_enc_u32(&x, CALL) &&
	      xdr_enc_u32(&x, RPC_VERSION) && xdr_enc_u32(&x, PMAP_PROGRAM) &&
	      xdr_enc_u32(&x, RPCB_VERS) && xdr_enc_u32(&x, proc) &&
	      xdr_enc_u32(&x, AUTH_NONE) && xdr_enc_u32(&x, 0) &&
	      xdr_enc_u32(&x, AUTH_NONE) && xdr_enc_u32(&x, 0) &&
	      xdr_enc_opaque_fixed(&x, args, (uint32_t)alen)))
		return -EINVAL;
	v = htonl(0x80000000u | (uint32_t)x.pos);
	memcpy(msg, &v, 4);
	ret = rpcb_write_full(c->fd, msg, x.pos + 4);
	if (ret < 0)
		return ret;
	/* One call in flight: a reply with another xid is not ours. */
	do {
		ret = rpcb_read_record(c, &len);
		if (ret < 0)
			return ret;
		xdr_init(&c->res, c->rep, len);
	} while (xdr_dec_u32(&c->res, &v) && v != xid);
	if (!xdr_ok(&c->res) || !xdr_dec_u32(&c->res, &v) || v != REPLY ||
	    !xdr_dec_u32(&c->res, &v))
		return -EPROTO;
	if (v != MSG_ACCEPTED)
		return -EACCES;
	if (!xdr_dec_u32(&c->res, &flavor) ||
	    !xdr_dec_opaque_ref(&c->res, &verf, &vlen, RPC_AUTH_MAX_BODY) ||
	    !xdr_dec_u32(&c->res, &v))
		return -EPROTO;
	return v == SUCCESS ? 0 : -EPROTO;
}

/* struct rpcb (RFC 1833 §2.1) into @buf; its length, or 0 if too long. */
static size_t rpcb_enc_args(uint8_t *buf, size_t len, uint32_t prog,
			    uint32_t vers, const char *netid, const char *uaddr)
{
	char owner[16];
	struct xdr_buf x;

	/* As libtirpc's rpcb_set(); rpcbind records its own view instead. */
	(void)snprintf(owner, sizeof(owner), "%u", (unsigned int)geteuid());
	xdr_init(&x, buf, len);
	if (!(xdr_enc_u32(&x, prog) && xdr_enc_u32(&x, vers) &&
	      xdr_enc_opaque(&x, netid, (uint32_t)strlen(netid)) &&
	      xdr_enc_opaque(&x, uaddr, (uint32_t)strlen(uaddr)) &&
	      xdr_enc_opaque(&x, owner, (uint32_t)strlen(owner))))
		return 0;
	return x.pos;
}

/* RPCBPROC_SET or _UNSET: 0 when rpcbind said TRUE, else -errno. */
static int rpcb_change(struct rpcb_conn *c, uint32_t proc, uint32_t prog,
		       uint32_t vers, const char *netid, const char *uaddr)
{
	uint8_t args[512];
	size_t alen;
	bool ok;
	int ret;

	alen = rpcb_enc_args(args, sizeof(args), prog, vers, netid, uaddr);
	if (!alen)
		return -EINVAL;
	ret = rpcb_call(c, proc, args, alen);
	if (ret < 0)
		return ret;
	if (!xdr_dec_bool(&c->res, &ok))
		return -EPROTO;
	return ok ? 0 : -EACCES;
}

/* A DUMP reply's rpcblist_ptr (RFC 1833 §2.1), read by rpcb_find(). */
struct rpcb_dump {
	uint8_t *buf;
	size_t len;
};

/* RPCBPROC_DUMP into @d (its buffer the caller's to free). */
static int rpcb_dump(struct rpcb_conn *c, struct rpcb_dump *d)
{
	int ret = rpcb_call(c, RPCBPROC_DUMP, NULL, 0);

	if (ret < 0)
		return ret;
	d->len = c->res.len - c->res.pos;
	d->buf = malloc(d->len ? d->len : 1);
	if (!d->buf)
		return -ENOMEM;
	memcpy(d->buf, c->res.base + c->res.pos, d->len);
	return 0;
}

/*
 * One XDR string of at most RPCB_WIRE_STR_MAX bytes into @dst (@dstlen
 * bytes, NUL ended, cut short if need be).
 */
static bool rpcb_dec_str(struct xdr_buf *x, char *dst, size_t dstlen)
{
	const uint8_t *p;
	uint32_t n;

	if (!xdr_dec_opaque_ref(x, &p, &n, RPCB_WIRE_STR_MAX))
		return false;
	n = n < dstlen - 1 ? n : (uint32_t)(dstlen - 1);
	memcpy(dst, p, n);
	dst[n] = '\0';
	return true;
}

/*
 * The address rpcbind maps (@prog, @vers, @netid) to, from the DUMP @d,
 * into @uaddr (RPCB_STR_MAX + 1 bytes). Netids compare without case, as
 * rpcbind does. Returns 1 when found, 0 when not, -EPROTO for a DUMP
 * that does not decode.
 */
static int rpcb_find(const struct rpcb_dump *d, uint32_t prog, uint32_t vers,
		     const char *netid, char *uaddr)
{
	char n[RPCB_STR_MAX + 1], owner[RPCB_STR_MAX + 1];
	uint32_t p, v;
	struct xdr_buf x;
	bool more;

	xdr_init(&x, d->buf, d->len);
	for (;;) {
		if (!xdr_dec_bool(&x, &more))
			return -EPROTO;
		if (!more)
			return 0;
		if (!xdr_dec_u32(&x, &p) || !xdr_dec_u32(&x, &v) ||
		    !rpcb_dec_str(&x, n, sizeof(n)) ||
		    !rpcb_dec_str(&x, uaddr, RPCB_STR_MAX + 1) ||
		    !rpcb_dec_str(&x, owner, sizeof(owner)))
			return -EPROTO;
		if (p == prog && v == vers && !strcasecmp(n, netid))
			return 1;
	}
}

/*
 * Whether nothing is bound at @uaddr over @netid any more: a bind() to
 * it succeeds. Any failure (in use, not a local address, not allowed)
 * counts as alive. TCP probes set SO_REUSEADDR so that connections of a
 * dead server lingering in TIME_WAIT do not count, while a listener
 * still does.
 */
static bool rpcb_addr_dead(const char *netid, const char *uaddr)
{
	bool udp = strncasecmp(netid, "udp", 3) == 0;
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, one = 1;
	bool dead;

	if (!udp && strncasecmp(netid, "tcp", 3) != 0)
		return false;
	if (uaddr_parse(uaddr, &ss, &len) < 0)
		return false;
	fd = socket(ss.ss_family,
		    (udp ? SOCK_DGRAM : SOCK_STREAM) | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return false;
	if ((!udp &&
	     setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0) ||
	    (ss.ss_family == AF_INET6 &&
	     setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) <
		     0)) {
		close(fd);
		return false;
	}
	dead = bind(fd, (struct sockaddr *)&ss, len) == 0;
	close(fd);
	return dead;
}

/* An earlier registry entry has the same (prog, vers, netid). */
static bool rpcb_dup(const struct pmap_mapping *m, unsigned int i)
{
	const char *netid = pmap_netid(m[i].prot, m[i].addr.ss_family);
	unsigned int j;

	for (j = 0; j < i; j++)
		if (m[j].prog == m[i].prog && m[j].vers == m[i].vers &&
		    !strcmp(pmap_netid(m[j].prot, m[j].addr.ss_family), netid))
			return true;
	return false;
}

static void rpcb_remember(uint32_t prog, uint32_t vers, const char *netid,
			  const char *uaddr)
{
	struct rpcb_reg *r;

	/* One entry per registry entry at most: rpcb_register() runs once. */
	if (rpcb_nregs == PMAP_MAX_ENTRIES)
		return;
	r = &rpcb_regs[rpcb_nregs++];
	r->prog = prog;
	r->vers = vers;
	(void)snprintf(r->netid, sizeof(r->netid), "%s", netid);
	(void)snprintf(r->uaddr, sizeof(r->uaddr), "%s", uaddr);
}

/*
 * Register (@prog, @vers, @netid) at @ours by the rules of rpcb_clnt.h,
 * given @d, what rpcbind holds. Returns 1 when the tuple is now ours, 0
 * when it was left alone or refused (logged), or a -errno of the
 * connection.
 */
static int rpcb_register_one(struct rpcb_conn *c, const struct rpcb_dump *d,
			     uint32_t prog, uint32_t vers, const char *netid,
			     const char *ours)
{
	char theirs[RPCB_STR_MAX + 1];
	int ret;

	ret = rpcb_find(d, prog, vers, netid, theirs);
	if (ret < 0)
		return ret;
	if (ret == 1 && !strcmp(theirs, ours)) {
		log_debug("rpcbind: %u v%u %s at %s: there already", prog, vers,
			  netid, ours);
		return 1;
	}
	if (ret == 1 && !rpcb_addr_dead(netid, theirs)) {
		log_warn("rpcbind: %u v%u %s is registered at %s by another "
			 "server: left alone, not registered (nasd serves it "
			 "at %s)",
			 prog, vers, netid, theirs, ours);
		return 0;
	}
	if (ret == 1) {
		log_info("rpcbind: %u v%u %s: replacing the stale entry %s "
			 "(nothing is bound there)",
			 prog, vers, netid, theirs);
		ret = rpcb_change(c, RPCBPROC_UNSET, prog, vers, netid, "");
		if (ret < 0 && ret != -EACCES)
			return ret;
	}
	ret = rpcb_change(c, RPCBPROC_SET, prog, vers, netid, ours);
	if (ret == -EACCES) {
		log_warn("rpcbind: refused to register %u v%u %s at %s", prog,
			 vers, netid, ours);
		return 0;
	}
	return ret < 0 ? ret : 1;
}

int rpcb_register(void)
{
	static struct pmap_mapping m[PMAP_MAX_ENTRIES];
	struct rpcb_dump d = {0};
	unsigned int n, i, nwant = 0;
	struct rpcb_conn c;
	char ours[UADDR_MAX];
	const char *netid;
	int ret;

	n = pmap_list(m, PMAP_MAX_ENTRIES);
	ret = rpcb_open(&c);
	if (ret < 0)
		return ret;
	ret = rpcb_dump(&c, &d);
	if (ret < 0)
		goto out_close;
	for (i = 0; i < n; i++) {
		/* rpcbind holds one address per tuple: the first one wins. */
		if (m[i].prog == PMAP_PROGRAM || rpcb_dup(m, i) ||
		    uaddr_format(&m[i].addr, ours, sizeof(ours)) < 0)
			continue;
		netid = pmap_netid(m[i].prot, m[i].addr.ss_family);
		nwant++;
		ret = rpcb_register_one(&c, &d, m[i].prog, m[i].vers, netid,
					ours);
		if (ret < 0)
			goto out_free;
		if (ret == 1)
			rpcb_remember(m[i].prog, m[i].vers, netid, ours);
	}
	ret = 0;
	log_info("registered with rpcbind (%s): %u of %u entries", c.via,
		 rpcb_nregs, nwant);
out_free:
	free(d.buf);
out_close:
	if (ret < 0 && ret != -ECONNREFUSED && ret != -ENOENT)
		log_warn("rpcbind (%s): %s", c.via, strerror(-ret));
	rpcb_close(&c);
	return ret;
}

void rpcb_unregister(void)
{
	char theirs[RPCB_STR_MAX + 1];
	struct rpcb_dump d = {0};
	struct rpcb_conn c;
	unsigned int i;
	int ret;

	if (!rpcb_nregs)
		return;
	ret = rpcb_open(&c);
	if (ret < 0)
		goto out_log;
	/* Look first: a tuple mapped elsewhere since is not ours any more. */
	ret = rpcb_dump(&c, &d);
	for (i = 0; ret >= 0 && i < rpcb_nregs; i++) {
		const struct rpcb_reg *r = &rpcb_regs[i];

		ret = rpcb_find(&d, r->prog, r->vers, r->netid, theirs);
		if (ret == 1 && strcmp(theirs, r->uaddr) != 0) {
			log_info("rpcbind: %u v%u %s now points at %s: not "
				 "ours, left alone",
				 r->prog, r->vers, r->netid, theirs);
			continue;
		}
		if (ret != 1)
			continue;
		ret = rpcb_change(&c, RPCBPROC_UNSET, r->prog, r->vers,
				  r->netid, "");
		if (ret == -EACCES) {
			log_warn("rpcbind: refused to unregister %u v%u %s",
				 r->prog, r->vers, r->netid);
			ret = 0;
		}
	}
	free(d.buf);
	rpcb_close(&c);
out_log:
	if (ret < 0)
		log_warn("rpcbind (unregistering): %s", strerror(-ret));
	rpcb_nregs = 0;
}
