/* SPDX-License-Identifier: MIT */
/*
 * Port mapper: portmap v2 (RFC 1833 §3) and rpcbind v3/v4 (RFC 1833 §2)
 * server over our own registry, a client that registers with a running
 * rpcbind, and a small UDP responder for program 100000.
 */
#include "rpc/pmap.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "core/log.h"
#include "transport/transport.h"

#define PMAP_MAX_ENTRIES 64
#define PMAP_STR_MAX 256 /* netid, uaddr, owner */
#define PMAP_UADDR_MAX 64

enum {
	PMAPPROC_NULL = 0,
	PMAPPROC_SET = 1,
	PMAPPROC_UNSET = 2,
	PMAPPROC_GETPORT = 3,
	PMAPPROC_DUMP = 4,
};

enum {
	RPCBPROC_NULL = 0,
	RPCBPROC_SET = 1,
	RPCBPROC_UNSET = 2,
	RPCBPROC_GETADDR = 3,
	RPCBPROC_DUMP = 4,
	RPCBPROC_GETTIME = 6,
	RPCBPROC_GETVERSADDR = 9,
	RPCBPROC_GETADDRLIST = 11,
};

struct pmap_entry {
	uint32_t prog;
	uint32_t vers;
	uint32_t prot;
	uint16_t port;
	struct sockaddr_storage addr;
};

static pthread_mutex_t pmap_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pmap_entry pmap_table[PMAP_MAX_ENTRIES];
static unsigned int pmap_n;
static bool pmap_remote_done;

static uint16_t ss_port(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)ss)->sin_port);
	if (ss->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
	return 0;
}

static void ss_set_port(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	else if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
}

static bool ss_is_any(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ((const struct sockaddr_in *)ss)->sin_addr.s_addr ==
		       htonl(INADDR_ANY);
	if (ss->ss_family == AF_INET6)
		return IN6_IS_ADDR_UNSPECIFIED(
			&((const struct sockaddr_in6 *)ss)->sin6_addr);
	return false;
}

static bool ss_is_loopback(const struct sockaddr_storage *ss)
{
	const struct sockaddr_in6 *s6 = (const void *)ss;

	if (ss->ss_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)ss)->sin_addr
				      .s_addr) >> 24) == 127;
	if (ss->ss_family == AF_INET6)
		return IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr) ||
		       (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr) &&
			s6->sin6_addr.s6_addr[12] == 127);
	return false;
}

static const char *entry_netid(const struct pmap_entry *e)
{
	if (e->prot == IPPROTO_UDP_PMAP)
		return e->addr.ss_family == AF_INET6 ? "udp6" : "udp";
	return e->addr.ss_family == AF_INET6 ? "tcp6" : "tcp";
}

int pmap_uaddr(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN];
	uint16_t port = ss_port(ss);
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

static int pmap_add_locked(uint32_t prog, uint32_t vers, uint32_t prot,
			   const struct sockaddr_storage *addr)
{
	struct pmap_entry *e;
	unsigned int i;

	for (i = 0; i < pmap_n; i++) {
		e = &pmap_table[i];
		if (e->prog == prog && e->vers == vers && e->prot == prot &&
		    e->port == ss_port(addr) &&
		    e->addr.ss_family == addr->ss_family)
			return 0;
	}
	if (pmap_n == PMAP_MAX_ENTRIES)
		return -ENOSPC;
	e = &pmap_table[pmap_n++];
	e->prog = prog;
	e->vers = vers;
	e->prot = prot;
	e->port = ss_port(addr);
	e->addr = *addr;
	return 0;
}

int pmap_add(uint32_t prog, uint32_t vers, uint32_t prot,
	     const struct sockaddr_storage *addr)
{
	int ret;

	pthread_mutex_lock(&pmap_lock);
	ret = pmap_add_locked(prog, vers, prot, addr);
	pthread_mutex_unlock(&pmap_lock);
	return ret;
}

int pmap_add_program(const struct rpc_program *p, uint32_t prot,
		     const struct sockaddr_storage *addr)
{
	uint32_t i;
	int ret;

	for (i = 0; i < p->nversions; i++) {
		ret = pmap_add(p->prog, p->versions[i].vers, prot, addr);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* Remove (prog, vers) entries; @netid NULL = all transports. */
static bool pmap_remove(uint32_t prog, uint32_t vers, const char *netid)
{
	unsigned int i = 0;
	bool found = false;

	pthread_mutex_lock(&pmap_lock);
	while (i < pmap_n) {
		struct pmap_entry *e = &pmap_table[i];

		if (e->prog == prog && e->vers == vers &&
		    (!netid || !*netid || !strcmp(netid, entry_netid(e)))) {
			*e = pmap_table[--pmap_n];
			found = true;
			continue;
		}
		i++;
	}
	pthread_mutex_unlock(&pmap_lock);
	return found;
}

/* Only local, privileged callers may change the map (as rpcbind). */
static bool pmap_may_change(const struct rpc_call *call)
{
	return call->req->peer_privileged && ss_is_loopback(call->req->peer);
}

/* ---- portmap v2 ---- */

struct mapping {
	uint32_t prog;
	uint32_t vers;
	uint32_t prot;
	uint32_t port;
};

struct pmap_list {
	unsigned int n;
	struct pmap_entry *e;
};

static bool dec_mapping(struct xdr_buf *x, void *arg)
{
	struct mapping *m = arg;

	return xdr_dec_u32(x, &m->prog) && xdr_dec_u32(x, &m->vers) &&
	       xdr_dec_u32(x, &m->prot) && xdr_dec_u32(x, &m->port);
}

static bool enc_bool(struct xdr_buf *x, const void *res)
{
	return xdr_enc_bool(x, *(const bool *)res);
}

static bool enc_u32(struct xdr_buf *x, const void *res)
{
	return xdr_enc_u32(x, *(const uint32_t *)res);
}

static void pmap_proc_set(struct rpc_call *call, const void *args, void *res)
{
	const struct mapping *m = args;
	struct sockaddr_storage ss;
	bool *ok = res;

	*ok = false;
	if (!pmap_may_change(call) || m->port > 65535 ||
	    (m->prot != IPPROTO_TCP_PMAP && m->prot != IPPROTO_UDP_PMAP))
		return;
	memset(&ss, 0, sizeof(ss));
	ss.ss_family = AF_INET;
	ss_set_port(&ss, (uint16_t)m->port);
	*ok = pmap_add(m->prog, m->vers, m->prot, &ss) == 0;
}

static void pmap_proc_unset(struct rpc_call *call, const void *args,
			    void *res)
{
	const struct mapping *m = args;
	bool *ok = res;

	*ok = pmap_may_change(call) && pmap_remove(m->prog, m->vers, NULL);
}

static void pmap_proc_getport(struct rpc_call *call, const void *args,
			      void *res)
{
	const struct mapping *m = args;
	uint32_t *port = res;
	unsigned int i;

	*port = 0;
	pthread_mutex_lock(&pmap_lock);
	for (i = 0; i < pmap_n; i++) {
		const struct pmap_entry *e = &pmap_table[i];

		if (e->prog == m->prog && e->vers == m->vers &&
		    e->prot == m->prot && e->addr.ss_family == AF_INET) {
			*port = e->port;
			break;
		}
	}
	pthread_mutex_unlock(&pmap_lock);
}

/* Snapshot the registry into the call's arena for the DUMP encoders. */
static void pmap_proc_dump(struct rpc_call *call, const void *args,
			   void *res)
{
	struct pmap_list *l = res;

	pthread_mutex_lock(&pmap_lock);
	l->e = rpc_call_alloc(call, sizeof(*l->e) * (pmap_n ? pmap_n : 1));
	if (l->e) {
		memcpy(l->e, pmap_table, sizeof(*l->e) * pmap_n);
		l->n = pmap_n;
	}
	pthread_mutex_unlock(&pmap_lock);
}

/* RFC 1833 §3.2: pmaplist, one entry per (prog, vers, prot, port). */
static bool enc_pmaplist(struct xdr_buf *x, const void *res)
{
	const struct pmap_list *l = res;
	unsigned int i, j;

	for (i = 0; i < l->n; i++) {
		const struct pmap_entry *e = &l->e[i];

		for (j = 0; j < i; j++)
			if (l->e[j].prog == e->prog &&
			    l->e[j].vers == e->vers &&
			    l->e[j].prot == e->prot &&
			    l->e[j].port == e->port)
				break;
		if (j < i)
			continue;
		if (!xdr_enc_bool(x, true) || !xdr_enc_u32(x, e->prog) ||
		    !xdr_enc_u32(x, e->vers) || !xdr_enc_u32(x, e->prot) ||
		    !xdr_enc_u32(x, e->port))
			return false;
	}
	return xdr_enc_bool(x, false);
}

/* ---- rpcbind v3/v4 ---- */

struct rpcb {
	uint32_t prog;
	uint32_t vers;
	char netid[PMAP_STR_MAX + 1];
	char addr[PMAP_STR_MAX + 1];
};

struct rpcb_uaddr {
	char addr[PMAP_UADDR_MAX];
};

static bool dec_string(struct xdr_buf *x, char *dst)
{
	const uint8_t *p;
	uint32_t n;

	if (!xdr_dec_opaque_ref(x, &p, &n, PMAP_STR_MAX))
		return false;
	memcpy(dst, p, n);
	dst[n] = '\0';
	return true;
}

static bool dec_rpcb(struct xdr_buf *x, void *arg)
{
	struct rpcb *r = arg;
	char owner[PMAP_STR_MAX + 1];

	return xdr_dec_u32(x, &r->prog) && xdr_dec_u32(x, &r->vers) &&
	       dec_string(x, r->netid) && dec_string(x, r->addr) &&
	       dec_string(x, owner);
}

static bool enc_string(struct xdr_buf *x, const char *s)
{
	return xdr_enc_opaque(x, s, (uint32_t)strlen(s));
}

static bool enc_uaddr(struct xdr_buf *x, const void *res)
{
	return enc_string(x, ((const struct rpcb_uaddr *)res)->addr);
}

/* The address a client should use for @e, seen from @call. */
static void entry_uaddr(const struct rpc_call *call,
			const struct pmap_entry *e, char *buf, size_t len)
{
	struct sockaddr_storage ss = e->addr;

	if (ss_is_any(&ss) && call->req->local_len &&
	    call->req->local->ss_family == ss.ss_family) {
		ss = *call->req->local;
		ss_set_port(&ss, e->port);
	}
	if (pmap_uaddr(&ss, buf, len) < 0)
		buf[0] = '\0';
}

static void rpcb_getaddr(struct rpc_call *call, const struct rpcb *r,
			 struct rpcb_uaddr *res, bool exact)
{
	const struct pmap_entry *best = NULL;
	const char *want = r->netid;
	unsigned int i;

	if (!*want)
		want = call->req->local->ss_family == AF_INET6 ? "tcp6" : "tcp";
	res->addr[0] = '\0';
	pthread_mutex_lock(&pmap_lock);
	for (i = 0; i < pmap_n; i++) {
		const struct pmap_entry *e = &pmap_table[i];

		if (e->prog != r->prog || strcmp(entry_netid(e), want) != 0)
			continue;
		if (e->vers == r->vers) {
			best = e;
			break;
		}
		/* RFC 1833 §2.2.1: GETADDR may answer another version. */
		if (!exact && !best)
			best = e;
	}
	if (best)
		entry_uaddr(call, best, res->addr, sizeof(res->addr));
	pthread_mutex_unlock(&pmap_lock);
}

static void rpcb_proc_getaddr(struct rpc_call *call, const void *args,
			      void *res)
{
	rpcb_getaddr(call, args, res, false);
}

static void rpcb_proc_getversaddr(struct rpc_call *call, const void *args,
				  void *res)
{
	rpcb_getaddr(call, args, res, true);
}

/*
 * One port octet of a universal address (RFC 5665 "h1.h2.h3.h4.p1.p2"):
 * all of @s, 1-3 decimal digits, at most 255. (sscanf's %u would take a
 * sign, blanks and trailing junk, and its overflow is undefined.)
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

static void rpcb_proc_set(struct rpc_call *call, const void *args, void *res)
{
	const struct rpcb *r = args;
	struct sockaddr_storage ss;
	socklen_t len;
	char host[PMAP_STR_MAX + 1];
	unsigned int p1, p2;
	uint32_t prot;
	char *dot;
	bool *ok = res;

	*ok = false;
	if (!pmap_may_change(call))
		return;
	if (!strcmp(r->netid, "tcp") || !strcmp(r->netid, "tcp6"))
		prot = IPPROTO_TCP_PMAP;
	else if (!strcmp(r->netid, "udp") || !strcmp(r->netid, "udp6"))
		prot = IPPROTO_UDP_PMAP;
	else
		return;
	/* uaddr "host.p1.p2": split off the last two dotted numbers. */
	memcpy(host, r->addr, sizeof(host));
	dot = strrchr(host, '.');
	if (!dot || !uaddr_octet(dot + 1, &p2))
		return;
	*dot = '\0';
	dot = strrchr(host, '.');
	if (!dot || !uaddr_octet(dot + 1, &p1))
		return;
	*dot = '\0';
	if (transport_parse_addr(host, 0, &ss, &len) < 0)
		return;
	ss_set_port(&ss, (uint16_t)(p1 << 8 | p2));
	*ok = pmap_add(r->prog, r->vers, prot, &ss) == 0;
}

static void rpcb_proc_unset(struct rpc_call *call, const void *args,
			    void *res)
{
	const struct rpcb *r = args;
	bool *ok = res;

	*ok = pmap_may_change(call) && pmap_remove(r->prog, r->vers, r->netid);
}

static void rpcb_proc_gettime(struct rpc_call *call, const void *args,
			      void *res)
{
	*(uint32_t *)res = (uint32_t)time(NULL);
}

/* RFC 1833 §2.1: rpcblist_ptr, one entry per registration. */
static bool enc_rpcblist(struct xdr_buf *x, const void *res)
{
	const struct pmap_list *l = res;
	char uaddr[PMAP_UADDR_MAX];
	unsigned int i;

	for (i = 0; i < l->n; i++) {
		const struct pmap_entry *e = &l->e[i];

		if (pmap_uaddr(&e->addr, uaddr, sizeof(uaddr)) < 0)
			continue;
		if (!xdr_enc_bool(x, true) || !xdr_enc_u32(x, e->prog) ||
		    !xdr_enc_u32(x, e->vers) ||
		    !enc_string(x, entry_netid(e)) || !enc_string(x, uaddr) ||
		    !enc_string(x, "superuser"))
			return false;
	}
	return xdr_enc_bool(x, false);
}

/*
 * RFC 1833 §2.2.1: rpcb_entry_list for (prog, vers), the address of
 * every transport the version is served on.
 */
struct rpcb_addrlist {
	const struct rpc_call *call;
	struct rpcb q;
	struct pmap_list l;
};

static void rpcb_proc_getaddrlist(struct rpc_call *call, const void *args,
				  void *res)
{
	struct rpcb_addrlist *r = res;

	r->call = call;
	r->q = *(const struct rpcb *)args;
	pmap_proc_dump(call, NULL, &r->l);
}

static bool enc_rpcb_entry_list(struct xdr_buf *x, const void *res)
{
	const struct rpcb_addrlist *r = res;
	char uaddr[PMAP_UADDR_MAX];
	unsigned int i;

	for (i = 0; i < r->l.n; i++) {
		const struct pmap_entry *e = &r->l.e[i];
		bool udp = e->prot == IPPROTO_UDP_PMAP;

		if (e->prog != r->q.prog || e->vers != r->q.vers)
			continue;
		entry_uaddr(r->call, e, uaddr, sizeof(uaddr));
		if (!xdr_enc_bool(x, true) || !enc_string(x, uaddr) ||
		    !enc_string(x, entry_netid(e)) ||
		    /* NC_TPI_CLTS or NC_TPI_COTS_ORD */
		    !xdr_enc_u32(x, udp ? 1 : 3) ||
		    !enc_string(x, e->addr.ss_family == AF_INET6 ? "inet6"
								 : "inet") ||
		    !enc_string(x, udp ? "udp" : "tcp"))
			return false;
	}
	return xdr_enc_bool(x, false);
}

#define PMAP_DUMP_MAX_REPLY (PMAP_MAX_ENTRIES * 128 + 16)

static const struct rpc_proc pmap2_procs[] = {
	[PMAPPROC_NULL] = {
		.name = "NULL",
	},
	[PMAPPROC_SET] = {
		.name = "SET",
		.args_size = sizeof(struct mapping),
		.res_size = sizeof(bool),
		.decode = dec_mapping,
		.handle = pmap_proc_set,
		.encode = enc_bool,
	},
	[PMAPPROC_UNSET] = {
		.name = "UNSET",
		.args_size = sizeof(struct mapping),
		.res_size = sizeof(bool),
		.decode = dec_mapping,
		.handle = pmap_proc_unset,
		.encode = enc_bool,
	},
	[PMAPPROC_GETPORT] = {
		.name = "GETPORT",
		.args_size = sizeof(struct mapping),
		.res_size = sizeof(uint32_t),
		.decode = dec_mapping,
		.handle = pmap_proc_getport,
		.encode = enc_u32,
	},
	[PMAPPROC_DUMP] = {
		.name = "DUMP",
		.res_size = sizeof(struct pmap_list),
		.handle = pmap_proc_dump,
		.encode = enc_pmaplist,
		.max_reply = PMAP_DUMP_MAX_REPLY,
	},
};

#define RPCB_COMMON_PROCS                                                      \
	[RPCBPROC_NULL] = {                                                    \
		.name = "NULL",                                                \
	},                                                                     \
	[RPCBPROC_SET] = {                                                     \
		.name = "SET",                                                 \
		.args_size = sizeof(struct rpcb),                              \
		.res_size = sizeof(bool),                                      \
		.decode = dec_rpcb,                                            \
		.handle = rpcb_proc_set,                                       \
		.encode = enc_bool,                                            \
	},                                                                     \
	[RPCBPROC_UNSET] = {                                                   \
		.name = "UNSET",                                               \
		.args_size = sizeof(struct rpcb),                              \
		.res_size = sizeof(bool),                                      \
		.decode = dec_rpcb,                                            \
		.handle = rpcb_proc_unset,                                     \
		.encode = enc_bool,                                            \
	},                                                                     \
	[RPCBPROC_GETADDR] = {                                                 \
		.name = "GETADDR",                                             \
		.args_size = sizeof(struct rpcb),                              \
		.res_size = sizeof(struct rpcb_uaddr),                         \
		.decode = dec_rpcb,                                            \
		.handle = rpcb_proc_getaddr,                                   \
		.encode = enc_uaddr,                                           \
	},                                                                     \
	[RPCBPROC_DUMP] = {                                                    \
		.name = "DUMP",                                                \
		.res_size = sizeof(struct pmap_list),                          \
		.handle = pmap_proc_dump,                                      \
		.encode = enc_rpcblist,                                        \
		.max_reply = PMAP_DUMP_MAX_REPLY * 2,                          \
	},                                                                     \
	[RPCBPROC_GETTIME] = {                                                 \
		.name = "GETTIME",                                             \
		.res_size = sizeof(uint32_t),                                  \
		.handle = rpcb_proc_gettime,                                   \
		.encode = enc_u32,                                             \
	}

static const struct rpc_proc rpcb3_procs[] = {
	RPCB_COMMON_PROCS,
	[8] = { 0 }, /* up to TADDR2UADDR: holes answer PROC_UNAVAIL */
};

static const struct rpc_proc rpcb4_procs[] = {
	RPCB_COMMON_PROCS,
	[RPCBPROC_GETVERSADDR] = {
		.name = "GETVERSADDR",
		.args_size = sizeof(struct rpcb),
		.res_size = sizeof(struct rpcb_uaddr),
		.decode = dec_rpcb,
		.handle = rpcb_proc_getversaddr,
		.encode = enc_uaddr,
	},
	[RPCBPROC_GETADDRLIST] = {
		.name = "GETADDRLIST",
		.args_size = sizeof(struct rpcb),
		.res_size = sizeof(struct rpcb_addrlist),
		.decode = dec_rpcb,
		.handle = rpcb_proc_getaddrlist,
		.encode = enc_rpcb_entry_list,
		.max_reply = PMAP_DUMP_MAX_REPLY * 2,
	},
	[12] = { 0 },
};

static const struct rpc_version pmap_versions[] = {
	{
		.vers = 2,
		.nprocs = sizeof(pmap2_procs) / sizeof(pmap2_procs[0]),
		.procs = pmap2_procs,
	},
	{
		.vers = 3,
		.nprocs = sizeof(rpcb3_procs) / sizeof(rpcb3_procs[0]),
		.procs = rpcb3_procs,
	},
	{
		.vers = 4,
		.nprocs = sizeof(rpcb4_procs) / sizeof(rpcb4_procs[0]),
		.procs = rpcb4_procs,
	},
};

const struct rpc_program pmap_program = {
	.prog = PMAP_PROGRAM,
	.name = "portmapper",
	.nversions = 3,
	.versions = pmap_versions,
};

/* ---- client: registering with a running rpcbind ---- */

/* Connect to 127.0.0.1:111 from a reserved port when we may bind one. */
static int pmap_connect(void)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(PMAP_PORT),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	struct sockaddr_in me = { .sin_family = AF_INET };
	struct timeval tv = { .tv_sec = 5 };
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
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	return fd;
}

static int read_full(int fd, uint8_t *p, size_t n)
{
	ssize_t r;

	while (n) {
		r = read(fd, p, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -ECONNRESET;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

/* One portmap v2 SET/UNSET call; returns 0 (true), -EACCES (false). */
static int pmap_call(int fd, uint32_t xid, uint32_t proc,
		     const struct pmap_entry *e)
{
	static const char host[] = "localhost";
	uint8_t buf[128], rep[512];
	struct xdr_buf x;
	uint32_t v, len, flavor;
	const uint8_t *p;
	int ret;

	xdr_init(&x, buf + 4, sizeof(buf) - 4);
	if (!(xdr_enc_u32(&x, xid) && xdr_enc_u32(&x, CALL) &&
	      xdr_enc_u32(&x, RPC_VERSION) && xdr_enc_u32(&x, PMAP_PROGRAM) &&
	      xdr_enc_u32(&x, 2) && xdr_enc_u32(&x, proc) &&
	      xdr_enc_u32(&x, AUTH_SYS) &&
	      xdr_enc_u32(&x, 4 + 4 + 12 + 4 + 4 + 4) &&
	      xdr_enc_u32(&x, 0) &&
	      xdr_enc_opaque(&x, host, sizeof(host) - 1) &&
	      xdr_enc_u32(&x, 0) && xdr_enc_u32(&x, 0) &&
	      xdr_enc_u32(&x, 0) && xdr_enc_u32(&x, AUTH_NONE) &&
	      xdr_enc_u32(&x, 0) && xdr_enc_u32(&x, e->prog) &&
	      xdr_enc_u32(&x, e->vers) && xdr_enc_u32(&x, e->prot) &&
	      xdr_enc_u32(&x, e->port)))
		return -EINVAL;
	v = htonl(0x80000000u | (uint32_t)x.pos);
	memcpy(buf, &v, 4);
	if (write(fd, buf, x.pos + 4) != (ssize_t)(x.pos + 4))
		return -EIO;
	ret = read_full(fd, (uint8_t *)&v, 4);
	if (ret < 0)
		return ret;
	len = ntohl(v) & 0x7fffffffu;
	if (len > sizeof(rep))
		return -EPROTO;
	ret = read_full(fd, rep, len);
	if (ret < 0)
		return ret;
	xdr_init(&x, rep, len);
	if (!xdr_dec_u32(&x, &v) || v != xid || !xdr_dec_u32(&x, &v) ||
	    v != REPLY || !xdr_dec_u32(&x, &v))
		return -EPROTO;
	if (v != MSG_ACCEPTED)
		return -EACCES;
	if (!xdr_dec_u32(&x, &flavor) ||
	    !xdr_dec_opaque_ref(&x, &p, &len, RPC_AUTH_MAX_BODY) ||
	    !xdr_dec_u32(&x, &v) || v != SUCCESS || !xdr_dec_u32(&x, &v))
		return -EPROTO;
	return v ? 0 : -EACCES;
}

/* The first entry for (prog, vers, prot) is the one portmap v2 holds. */
static bool pmap_entry_first(unsigned int i, bool same_prot)
{
	const struct pmap_entry *e = &pmap_table[i];
	unsigned int j;

	for (j = 0; j < i; j++) {
		const struct pmap_entry *f = &pmap_table[j];

		if (f->prog == e->prog && f->vers == e->vers &&
		    f->addr.ss_family == AF_INET &&
		    (!same_prot || f->prot == e->prot))
			return false;
	}
	return true;
}

static int pmap_remote(bool set)
{
	struct pmap_entry e;
	unsigned int i;
	uint32_t xid = (uint32_t)time(NULL);
	bool first_vers, first_prot;
	int fd, ret = 0, r;

	fd = pmap_connect();
	if (fd < 0)
		return fd;
	/* Start-up and exit only: the registry does not change meanwhile. */
	for (i = 0; i < pmap_n; i++) {
		e = pmap_table[i];
		if (e.prog == PMAP_PROGRAM || e.addr.ss_family != AF_INET)
			continue;
		first_vers = pmap_entry_first(i, false);
		first_prot = pmap_entry_first(i, true);
		/* UNSET (all protocols) clears what an earlier run left. */
		if (first_vers) {
			r = pmap_call(fd, xid++, PMAPPROC_UNSET, &e);
			if (r < 0 && r != -EACCES) {
				ret = r;
				break;
			}
		}
		if (!set || !first_prot)
			continue;
		r = pmap_call(fd, xid++, PMAPPROC_SET, &e);
		if (r < 0) {
			log_warn("pmap: rpcbind refused %u v%u port %u",
				 e.prog, e.vers, e.port);
			ret = r;
			if (r != -EACCES)
				break;
		}
	}
	close(fd);
	return ret;
}

int pmap_register_remote(void)
{
	int ret = pmap_remote(true);

	if (ret == 0)
		pmap_remote_done = true;
	return ret;
}

void pmap_unregister_remote(void)
{
	if (pmap_remote_done)
		pmap_remote(false);
	pmap_remote_done = false;
}

/* ---- UDP responder ---- */

struct pmap_udp {
	int fd;
	struct sockaddr_storage local;
	socklen_t local_len;
};

static void *pmap_udp_main(void *arg)
{
	struct pmap_udp *u = arg;
	static _Thread_local uint8_t arena[16384];
	struct req r;
	/* zeroed for the analyzer: recvfrom's address is a transparent union */
	struct sockaddr_storage peer = {0};
	struct iovec iov[REQ_MAX_IOV];
	struct msghdr msg;
	uint8_t buf[9000];
	socklen_t plen;
	ssize_t n;
	uint32_t prog;

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
		/* Only the port mapper is served over UDP. */
		if (n < 16)
			continue;
		memcpy(&prog, buf + 12, 4);
		if (ntohl(prog) != PMAP_PROGRAM)
			continue;
		/* One datagram, one request; the reply is one datagram. */
		req_init(&r, arena, sizeof(arena));
		r.peer = &peer;
		r.peer_len = plen;
		r.peer_privileged = ss_port(&peer) < 1024;
		r.local = &u->local;
		r.local_len = u->local_len;
		r.msg = buf;
		r.msg_len = (size_t)n;
		if (rpc_process(&r) == REQ_REPLY) {
			memset(&msg, 0, sizeof(msg));
			msg.msg_name = &peer;
			msg.msg_namelen = plen;
			msg.msg_iov = iov;
			msg.msg_iovlen = (size_t)req_reply_iov(&r, iov);
			if (sendmsg(u->fd, &msg, MSG_NOSIGNAL) < 0)
				log_debug("pmap: udp send: %s",
					  strerror(errno));
		}
		req_finish(&r);
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

	ret = transport_parse_addr(addr, PMAP_PORT, &ss, &len);
	if (ret < 0)
		return ret;
	fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ss.ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	/* Lives as long as the process: the thread never ends. */
	u = calloc(1, sizeof(*u));
	if (!u) {
		close(fd);
		return -ENOMEM;
	}
	u->fd = fd;
	u->local = ss;
	u->local_len = len;
	ret = pthread_create(&t, NULL, pmap_udp_main, u);
	if (ret) {
		close(fd);
		free(u);
		return -ret;
	}
	pthread_detach(t);
	return 0;
}
