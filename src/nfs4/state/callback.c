// SPDX-License-Identifier: MIT
/*
 * The NFSv4.0 callback path (RFC 7530 §16.33, §15.1, §10.2): after
 * SETCLIENTID_CONFIRM a background thread connects to the client's
 * callback address over TCP and sends CB_NULL; the client record notes
 * whether the path is up (and the address that answered). Delegations
 * are recalled the same way: CB_COMPOUND(CB_RECALL) with the client's
 * callback_ident, one connection per call, the answer handed to deleg.c.
 * Only loopback addresses (127.0.0.1, ::1) are ever contacted; any other
 * address leaves the path marked down.
 *
 * The same thread sends the NFSv4.1 back channel's CB_NULL calls
 * (backchannel.c), which go out on the client's own connection.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/log.h"
#include "nfs4/state/state_int.h"

#define CB_VERSION 1
#define CB_TIMEOUT_MS 5000
#define CB_QUEUE_MAX 64

struct cb_job {
	struct cb_job *next;
	struct nfs4_bc_job *bc;        /* 4.1: a back-channel call, or NULL */
	clientid4 clientid;
	struct nfs4_cb40 cb;
	uint32_t op;                   /* OP_CB_RECALL of stateid, fh, or
					* OP_CB_GETATTR of fh; 0: CB_NULL */
	struct stateid4 stateid;
	struct nfs_fh4 fh;
};

/* CB_COMPOUND(CB_RECALL) args: tag, minor, ident, count, op, stateid,
 * truncate, fh */
#define CB_RECALL40_MAX (16 + 4 + 16 + 4 + 4 + NFS4_FHSIZE)
#define CB_REPLY_MAX 1024
/* the AUTH_SYS body (stamp, machine name "nasd", uid, gid, no gids): what
 * it adds to a call over AUTH_NONE's empty one */
#define CB_CRED_LEN 24

static pthread_mutex_t cb_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cb_cv = PTHREAD_COND_INITIALIZER;
static struct cb_job *cb_head, *cb_tail;
static unsigned int cb_queued;
static bool cb_running, cb_stopping;
static pthread_t cb_thread;

/**
 * nfs4_cb_parse_uaddr() - a universal address (RFC 5665 §5.2.3.3) of
 * netid "tcp" or "tcp6" into @ss. -EINVAL when malformed, -EPERM when it
 * is not the loopback address (127.0.0.1 or ::1).
 */
int nfs4_cb_parse_uaddr(const char *netid, const char *uaddr,
			struct sockaddr_storage *ss, socklen_t *len)
{
	char host[64];
	const char *p1, *p2;
	unsigned long hi, lo;
	char *end;
	size_t hl;

	p2 = strrchr(uaddr, '.');
	if (!p2 || p2 == uaddr)
		return -EINVAL;
	for (p1 = p2 - 1; p1 > uaddr && *p1 != '.'; p1--)
		;
	if (*p1 != '.')
		return -EINVAL;
	hi = strtoul(p1 + 1, &end, 10);
	if (end != p2 || hi > 255)
		return -EINVAL;
	lo = strtoul(p2 + 1, &end, 10);
	if (*end || end == p2 + 1 || lo > 255)
		return -EINVAL;
	hl = (size_t)(p1 - uaddr);
	if (hl == 0 || hl >= sizeof(host))
		return -EINVAL;
	memcpy(host, uaddr, hl);
	host[hl] = '\0';
	memset(ss, 0, sizeof(*ss));
	if (strcmp(netid, "tcp") == 0) {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		if (inet_pton(AF_INET, host, &sin->sin_addr) != 1)
			return -EINVAL;
		if (sin->sin_addr.s_addr != htonl(INADDR_LOOPBACK))
			return -EPERM;
		sin->sin_family = AF_INET;
		sin->sin_port = htons((uint16_t)(hi << 8 | lo));
		*len = sizeof(*sin);
		return 0;
	}
	if (strcmp(netid, "tcp6") == 0) {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

		if (inet_pton(AF_INET6, host, &sin6->sin6_addr) != 1)
			return -EINVAL;
		if (!IN6_IS_ADDR_LOOPBACK(&sin6->sin6_addr))
			return -EPERM;
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons((uint16_t)(hi << 8 | lo));
		*len = sizeof(*sin6);
		return 0;
	}
	return -EINVAL;
}

static int wait_fd(int fd, short events)
{
	struct pollfd p = {.fd = fd, .events = events};
	int r;

	do {
		r = poll(&p, 1, CB_TIMEOUT_MS);
	} while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	return r == 0 ? -ETIMEDOUT : 0;
}

static int read_full(int fd, uint8_t *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r;
		int ret = wait_fd(fd, POLLIN);

		if (ret < 0)
			return ret;
		r = read(fd, buf + got, n - got);
		if (r < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -ECONNRESET;
		got += (size_t)r;
	}
	return 0;
}

/*
 * One call of @proc (RFC 7530 §16.33: program cb_program, version 1,
 * AUTH_NONE) with the encoded arguments @args; its reply record into
 * @rep (*@rlen bytes). 0, or -errno (-EPROTO: a record too short or too
 * long, or of another xid).
 */
static int cb_call(const struct sockaddr_storage *ss, socklen_t sl,
		   uint32_t prog, uint32_t xid, uint32_t proc,
		   const uint8_t *args, size_t alen, uint8_t *rep,
		   size_t *rlen)
{
	static const char machine[] = "nasd";
	uint8_t req[44 + CB_CRED_LEN + CB_RECALL40_MAX], hdr[4];
	struct xdr_buf x;
	uint32_t mark, v, n;
	int fd, ret, err = 0;
	socklen_t el = sizeof(err);

	if (alen > CB_RECALL40_MAX)
		return -EINVAL;
	fd = socket(ss->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (const struct sockaddr *)ss, sl) < 0) {
		if (errno != EINPROGRESS) {
			ret = -errno;
			goto out;
		}
		ret = wait_fd(fd, POLLOUT);
		if (ret < 0)
			goto out;
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) < 0 ||
		    err) {
			ret = err ? -err : -errno;
			goto out;
		}
	}
	xdr_init(&x, req, sizeof(req));
	xdr_enc_u32(&x, 0x80000000u | (uint32_t)(40 + CB_CRED_LEN + alen));
	xdr_enc_u32(&x, xid);
	xdr_enc_u32(&x, CALL);
	xdr_enc_u32(&x, RPC_VERSION);
	xdr_enc_u32(&x, prog);
	xdr_enc_u32(&x, CB_VERSION);
	xdr_enc_u32(&x, proc);
	/* AUTH_SYS as root: the Linux client's callback service takes
	 * AUTH_NONE for CB_NULL only (a CB_COMPOUND with it is refused
	 * AUTH_BADCRED), as knfsd calls it */
	xdr_enc_u32(&x, AUTH_SYS);
	xdr_enc_u32(&x, CB_CRED_LEN);
	xdr_enc_u32(&x, 0);                            /* stamp */
	xdr_enc_opaque(&x, machine, sizeof(machine) - 1);
	xdr_enc_u32(&x, 0);                            /* uid, gid, gids */
	xdr_enc_u32(&x, 0);
	xdr_enc_u32(&x, 0);
	xdr_enc_u32(&x, AUTH_NONE);
	if (!xdr_enc_u32(&x, 0) || !xdr_enc_opaque_fixed(&x, args, alen)) {
		ret = -EINVAL;
		goto out;
	}
	ret = wait_fd(fd, POLLOUT);
	if (ret < 0)
		goto out;
	if (send(fd, req, x.pos, MSG_NOSIGNAL) != (ssize_t)x.pos) {
		ret = -EIO;
		goto out;
	}
	ret = read_full(fd, hdr, 4);
	if (ret < 0)
		goto out;
	mark = (uint32_t)hdr[0] << 24 | (uint32_t)hdr[1] << 16 |
	       (uint32_t)hdr[2] << 8 | hdr[3];
	n = mark & 0x7fffffffu;
	if (n < 24 || n > CB_REPLY_MAX) {
		ret = -EPROTO;
		goto out;
	}
	ret = read_full(fd, rep, n);
	if (ret < 0)
		goto out;
	xdr_init(&x, rep, n);
	ret = -EPROTO;
	if (!xdr_dec_u32(&x, &v) || v != xid)
		goto out;
	*rlen = n;
	ret = 0;
out:
	close(fd);
	return ret;
}

/* CB_NULL: 0 when answered accepted with SUCCESS. */
static int cb_null(const struct sockaddr_storage *ss, socklen_t sl,
		   uint32_t prog, uint32_t xid)
{
	uint8_t rep[CB_REPLY_MAX];
	uint32_t rxid, mtype, stat, flavor, accept, blen;
	struct xdr_buf x;
	const uint8_t *body;
	size_t n = 0;
	int ret = cb_call(ss, sl, prog, xid, 0, NULL, 0, rep, &n);

	if (ret < 0)
		return ret;
	xdr_init(&x, rep, n);
	if (!xdr_dec_u32(&x, &rxid) || !xdr_dec_u32(&x, &mtype) ||
	    mtype != REPLY || !xdr_dec_u32(&x, &stat) || stat != MSG_ACCEPTED ||
	    !xdr_dec_u32(&x, &flavor) ||
	    !xdr_dec_opaque_ref(&x, &body, &blen, RPC_AUTH_MAX_BODY) ||
	    !xdr_dec_u32(&x, &accept) || accept != SUCCESS)
		return -EPROTO;
	return 0;
}

/*
 * CB_RECALL of @j's delegation or CB_GETATTR of its file (RFC 7530
 * §16.32, §16.31; minor version 0, the client's callback_ident): the
 * reply's status and attributes (nfs4_cb_reply), or -errno when the call
 * could not be made.
 */
static int cb_compound40(const struct sockaddr_storage *ss, socklen_t sl,
			 const struct cb_job *j, uint32_t xid,
			 uint32_t *status, struct nfs4_cb_attrs *a)
{
	uint8_t args[CB_RECALL40_MAX], rep[CB_REPLY_MAX];
	struct xdr_buf x;
	size_t n = 0;
	int ret;

	xdr_init(&x, args, sizeof(args));
	if (!(xdr_enc_opaque(&x, NULL, 0) &&              /* tag */
	      xdr_enc_u32(&x, 0) &&                        /* minorversion */
	      xdr_enc_u32(&x, j->cb.ident) && xdr_enc_u32(&x, 1) &&
	      nfs4_cb_enc_op(&x, j->op, &j->stateid, &j->fh)))
		return -EINVAL;
	ret = cb_call(ss, sl, j->cb.program, xid, 1, args, x.pos, rep, &n);
	if (ret == 0)
		*status = nfs4_cb_reply(rep, n, a);
	return ret;
}

static void cb_run(const struct cb_job *j, uint32_t xid)
{
	struct nfs4_cb_attrs attrs = {0};
	struct sockaddr_storage ss;
	struct nfs4_client *cl;
	socklen_t sl;
	int ret;

	uint32_t status = NFS4ERR_DELAY;

	ret = nfs4_cb_parse_uaddr(j->cb.netid, j->cb.addr, &ss, &sl);
	if (ret == 0)
		ret = j->op ? cb_compound40(&ss, sl, j, xid, &status, &attrs)
			    : cb_null(&ss, sl, j->cb.program, xid);
	if (ret == 0)
		log_debug("nfs4: client %016llx callback path up%s",
			  (unsigned long long)j->clientid,
			  j->op == OP_CB_RECALL ? " (CB_RECALL answered)" :
			  j->op ? " (CB_GETATTR answered)" : "");
	else if (!j->cb.netid[0] && !j->cb.addr[0])
		/* it gave none (no delegations wanted): not worth a line a
		 * client at the default level */
		log_debug("nfs4: client %016llx has no callback address",
			  (unsigned long long)j->clientid);
	else
		log_info("nfs4: client %016llx callback path down (%s)",
			 (unsigned long long)j->clientid,
			 ret == -EPERM ? "not a loopback address"
				       : strerror(-ret));
	cl = nfs4_client_lookup(j->clientid);
	if (!cl)
		return;
	nfs4_client_lock(cl);
	cl->cb_state = ret == 0 ? NFS4_CB_UP : NFS4_CB_DOWN;
	if (ret == 0 && !j->op)
		cl->cb_probed = j->cb;
	pthread_mutex_unlock(&cl->mu);
	/* a call's answer; a path up again: the recalls it still owes */
	if (j->op == OP_CB_GETATTR)
		nfs4_deleg_getattr_done(cl, j->stateid.other, status, &attrs);
	else if (j->op || ret == 0)
		nfs4_deleg_recall_done(cl, j->op ? j->stateid.other : NULL,
				       status);
	nfs4_client_put(cl);
}

static void *cb_main(void *arg)
{
	uint32_t xid = 0x4e415344; /* any start */

	(void)arg;
	pthread_mutex_lock(&cb_mu);
	while (!cb_stopping) {
		struct cb_job *j = cb_head;

		if (!j) {
			pthread_cond_wait(&cb_cv, &cb_mu);
			continue;
		}
		cb_head = j->next;
		if (!cb_head)
			cb_tail = NULL;
		cb_queued--;
		pthread_mutex_unlock(&cb_mu);
		if (j->bc)
			nfs4_bc_job_run(j->bc);
		else
			cb_run(j, xid++);
		free(j);
		pthread_mutex_lock(&cb_mu);
	}
	pthread_mutex_unlock(&cb_mu);
	return NULL;
}

/** nfs4_cb_start() - start the probe thread. 0 or -errno. */
int nfs4_cb_start(void)
{
	cb_stopping = false;
	if (pthread_create(&cb_thread, NULL, cb_main, NULL) != 0)
		return -EAGAIN;
	cb_running = true;
	return 0;
}

/** nfs4_cb_stop() - stop the probe thread, dropping queued probes. */
void nfs4_cb_stop(void)
{
	struct cb_job *j;

	if (!cb_running)
		return;
	pthread_mutex_lock(&cb_mu);
	cb_stopping = true;
	pthread_cond_broadcast(&cb_cv);
	pthread_mutex_unlock(&cb_mu);
	pthread_join(cb_thread, NULL);
	cb_running = false;
	while ((j = cb_head) != NULL) {
		cb_head = j->next;
		if (j->bc)
			nfs4_bc_job_free(j->bc);
		free(j);
	}
	cb_tail = NULL;
	cb_queued = 0;
}

static bool cb_queue(struct cb_job *j)
{
	pthread_mutex_lock(&cb_mu);
	if (!cb_running || cb_stopping || cb_queued >= CB_QUEUE_MAX) {
		pthread_mutex_unlock(&cb_mu);
		return false;
	}
	if (cb_tail)
		cb_tail->next = j;
	else
		cb_head = j;
	cb_tail = j;
	cb_queued++;
	pthread_cond_signal(&cb_cv);
	pthread_mutex_unlock(&cb_mu);
	return true;
}

/**
 * nfs4_cb_queue_bc() - hand the back-channel call @bc to the thread (it
 * runs and frees it). False when the thread is not running or its queue
 * is full: @bc is then still the caller's.
 */
bool nfs4_cb_queue_bc(struct nfs4_bc_job *bc)
{
	struct cb_job *j = calloc(1, sizeof(*j));

	if (!j)
		return false;
	j->bc = bc;
	if (!cb_queue(j)) {
		free(j);
		return false;
	}
	return true;
}

/** nfs4_cb_call40() - see state_int.h. */
bool nfs4_cb_call40(clientid4 id, const struct nfs4_cb40 *cb, uint32_t op,
		    const struct stateid4 *stateid, const struct nfs_fh4 *fh)
{
	struct cb_job *j;

	if (!cb_running)
		return false;
	j = calloc(1, sizeof(*j));
	if (!j)
		return false;
	j->clientid = id;
	j->cb = *cb;
	j->op = op;
	j->stateid = *stateid;
	j->fh = *fh;
	if (!cb_queue(j)) {
		free(j);
		return false;
	}
	return true;
}

/**
 * nfs4_cb_probe() - queue a CB_NULL probe of client @id's callback @cb
 * (copied). Dropped when the queue is full or the thread is not running.
 */
void nfs4_cb_probe(clientid4 id, const struct nfs4_cb40 *cb)
{
	struct cb_job *j;

	if (!cb_running)
		return;
	j = calloc(1, sizeof(*j));
	if (!j)
		return;
	j->clientid = id;
	j->cb = *cb;
	if (!cb_queue(j))
		free(j);
}
