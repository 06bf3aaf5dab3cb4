/* SPDX-License-Identifier: MIT */
/*
 * The port mapper nasd serves itself when no rpcbind runs (--portmap):
 * program 100000, portmap v2 (RFC 1833 §3) and rpcbind v3/v4 (RFC 1833
 * §2), over the registry of what nasd serves (rpc/pmap.h).
 *
 * Locking: pmap_lock guards pmap_table and pmap_n. main() fills the
 * registry before any listener thread runs; the handlers below run on
 * event loops, workers and the UDP responder, and take the lock for every
 * read and change. DUMP copies the table into the call's arena under the
 * lock, so the encoders run without it.
 */
#include "rpc/pmap.h"

#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "core/addr.h"
#include "rpc/uaddr.h"

#define PMAP_STR_MAX 256 /* netid, uaddr, owner */

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

static pthread_mutex_t pmap_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pmap_mapping pmap_table[PMAP_MAX_ENTRIES];
static unsigned int pmap_n;

/* Same family, address and port (the rest of sockaddr_storage is junk). */
static bool addr_same(const struct sockaddr_storage *a,
		      const struct sockaddr_storage *b)
{
	const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *)a;
	const struct sockaddr_in6 *b6 = (const struct sockaddr_in6 *)b;

	if (a->ss_family != b->ss_family || addr_port(a) != addr_port(b))
		return false;
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	if (a->ss_family == AF_INET6)
		return !memcmp(&a6->sin6_addr, &b6->sin6_addr,
			       sizeof(a6->sin6_addr));
	return false;
}

const char *pmap_netid(uint32_t prot, sa_family_t family)
{
	if (prot == IPPROTO_UDP_PMAP)
		return family == AF_INET6 ? "udp6" : "udp";
	return family == AF_INET6 ? "tcp6" : "tcp";
}

static const char *entry_netid(const struct pmap_mapping *e)
{
	return pmap_netid(e->prot, e->addr.ss_family);
}

static int pmap_add_locked(uint32_t prog, uint32_t vers, uint32_t prot,
			   const struct sockaddr_storage *addr)
{
	struct pmap_mapping *e;
	unsigned int i;

	for (i = 0; i < pmap_n; i++) {
		e = &pmap_table[i];
		if (e->prog == prog && e->vers == vers && e->prot == prot &&
		    addr_same(&e->addr, addr))
			return 0;
	}
	if (pmap_n == PMAP_MAX_ENTRIES)
		return -ENOSPC;
	e = &pmap_table[pmap_n++];
	e->prog = prog;
	e->vers = vers;
	e->prot = prot;
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

unsigned int pmap_list(struct pmap_mapping *out, unsigned int max)
{
	unsigned int n;

	pthread_mutex_lock(&pmap_lock);
	n = pmap_n < max ? pmap_n : max;
	memcpy(out, pmap_table, sizeof(*out) * n);
	pthread_mutex_unlock(&pmap_lock);
	return n;
}

/*
 * A SET from the wire (RFC 1833 §2.2.1, §3.2): refused when (@prog,
 * @vers, netid) is already mapped to another address, accepted and
 * unchanged when to this one (as rpcbind does). 0, -EEXIST or -ENOSPC.
 */
static int pmap_set(uint32_t prog, uint32_t vers, uint32_t prot,
		    const struct sockaddr_storage *addr)
{
	const char *netid = pmap_netid(prot, addr->ss_family);
	unsigned int i;
	int ret;

	pthread_mutex_lock(&pmap_lock);
	for (i = 0; i < pmap_n; i++) {
		const struct pmap_mapping *e = &pmap_table[i];

		if (e->prog == prog && e->vers == vers &&
		    !strcmp(entry_netid(e), netid)) {
			ret = addr_same(&e->addr, addr) ? 0 : -EEXIST;
			goto out_unlock;
		}
	}
	ret = pmap_add_locked(prog, vers, prot, addr);
out_unlock:
	pthread_mutex_unlock(&pmap_lock);
	return ret;
}

/* Remove (prog, vers) entries; @netid NULL = all transports. */
static bool pmap_remove(uint32_t prog, uint32_t vers, const char *netid)
{
	unsigned int i = 0;
	bool found = false;

	pthread_mutex_lock(&pmap_lock);
	while (i < pmap_n) {
		struct pmap_mapping *e = &pmap_table[i];

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
	return call->req->peer_privileged && addr_is_loopback(call->req->peer);
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
	struct pmap_mapping *e;
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
	/* Portmap v2 has no address: any IPv4 interface, as rpcbind. */
	memset(&ss, 0, sizeof(ss));
	ss.ss_family = AF_INET;
	addr_set_port(&ss, (uint16_t)m->port);
	*ok = pmap_set(m->prog, m->vers, m->prot, &ss) == 0;
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
		const struct pmap_mapping *e = &pmap_table[i];

		if (e->prog == m->prog && e->vers == m->vers &&
		    e->prot == m->prot && e->addr.ss_family == AF_INET) {
			*port = addr_port(&e->addr);
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
		const struct pmap_mapping *e = &l->e[i];

		for (j = 0; j < i; j++)
			if (l->e[j].prog == e->prog &&
			    l->e[j].vers == e->vers &&
			    l->e[j].prot == e->prot &&
			    addr_port(&l->e[j].addr) == addr_port(&e->addr))
				break;
		if (j < i)
			continue;
		if (!xdr_enc_bool(x, true) || !xdr_enc_u32(x, e->prog) ||
		    !xdr_enc_u32(x, e->vers) || !xdr_enc_u32(x, e->prot) ||
		    !xdr_enc_u32(x, addr_port(&e->addr)))
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
	char addr[UADDR_MAX];
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
			const struct pmap_mapping *e, char *buf, size_t len)
{
	struct sockaddr_storage ss = e->addr;

	if (addr_is_any(&ss) && call->req->local_len &&
	    call->req->local->ss_family == ss.ss_family) {
		ss = *call->req->local;
		addr_set_port(&ss, addr_port(&e->addr));
	}
	if (uaddr_format(&ss, buf, len) < 0)
		buf[0] = '\0';
}

static void rpcb_getaddr(struct rpc_call *call, const struct rpcb *r,
			 struct rpcb_uaddr *res, bool exact)
{
	const struct pmap_mapping *best = NULL;
	const char *want = r->netid;
	unsigned int i;

	if (!*want)
		want = call->req->local->ss_family == AF_INET6 ? "tcp6" : "tcp";
	res->addr[0] = '\0';
	pthread_mutex_lock(&pmap_lock);
	for (i = 0; i < pmap_n; i++) {
		const struct pmap_mapping *e = &pmap_table[i];

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

static void rpcb_proc_set(struct rpc_call *call, const void *args, void *res)
{
	const struct rpcb *r = args;
	struct sockaddr_storage ss;
	sa_family_t family;
	socklen_t len;
	uint32_t prot;
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
	family = r->netid[3] == '6' ? AF_INET6 : AF_INET;
	/* The netid names the family the address must be of. */
	if (uaddr_parse(r->addr, &ss, &len) < 0 || ss.ss_family != family)
		return;
	*ok = pmap_set(r->prog, r->vers, prot, &ss) == 0;
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
	char uaddr[UADDR_MAX];
	unsigned int i;

	for (i = 0; i < l->n; i++) {
		const struct pmap_mapping *e = &l->e[i];

		if (uaddr_format(&e->addr, uaddr, sizeof(uaddr)) < 0)
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
	char uaddr[UADDR_MAX];
	unsigned int i;

	for (i = 0; i < r->l.n; i++) {
		const struct pmap_mapping *e = &r->l.e[i];
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
