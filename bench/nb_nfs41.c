// SPDX-License-Identifier: MIT
/*
 * nasd-bench's NFSv4.1 client (nb_nfs41.h): the connection, its RPC
 * framing, the session and its slots, and the set-up (EXCHANGE_ID,
 * CREATE_SESSION, RECLAIM_COMPLETE, the export's root handle), done
 * before the load starts.
 *
 * A COMPOUND lives as a struct frame (the bytes on the wire, with room
 * for SEQUENCE's slot and sequence id) from nb_nfs41_submit() until it is
 * written, and as its slot's callback until the reply. Frames wait in
 * `wait` until a slot is free; the xid names the slot (low 16 bits), so a
 * reply finds its call without a search.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "nb_nfs41.h"
#include "nfs4/nfs4_xdr.h"

#define NFS_PROGRAM 100003
#define NFS_V4 4
#define PROC_COMPOUND 1
#define SETUP_MS 20000
#define SLOTS_MAX 1024
#define RBUF_MIN (256u << 10)
/*
 * At most this much per read(), as libnfs and most programs read: taking
 * 2 MiB or more per call made the server's sendfile cost more (1 MiB
 * seq-read on loopback, nasd: 0.27 against 0.17 CPU-s per GiB, and 10 %
 * less throughput), a cost of this client's, not the server's.
 */
#define RECV_CHUNK (256u << 10)
#define HDR_MAX 256             /* RM + RPC call header + COMPOUND head */
#define FATTR4_SIZE 4
#define FATTR4_MAXREAD 30       /* word 0 */
#define FATTR4_MAXWRITE 31
#define FATTR4_MODE 33          /* word 1, bit 1 */
#define ACCESS4_ALL 0x3f
#define EXCHGID4_FLAG_USE_NON_PNFS 0x00010000u
#define CB_PROGRAM 0x40000000u

const uint8_t nb_nfs41_current_stateid[NB_NFS41_STATEID] = { 0, 0, 0, 1 };
const uint8_t nb_nfs41_anon_stateid[NB_NFS41_STATEID];

struct frame {
	struct frame *next;
	nb_nfs41_cb *cb;
	void *priv;
	uint8_t *buf;           /* RM header, RPC header, COMPOUND, ops */
	size_t len;
	size_t xid_off;         /* where the xid goes */
	size_t seq_off;         /* SEQUENCE's sequenceid, slotid, highest */
	const void *ext;        /* payload after buf, not copied */
	size_t ext_len;
	size_t tail;            /* after ext: its pad, then more ops */
	size_t sent;
};

struct slot {
	uint32_t seqid;
	uint16_t gen;
	bool busy;
	nb_nfs41_cb *cb;
	void *priv;
};

struct nb_nfs41 {
	int fd;
	bool failed;
	char error[256];

	uint64_t clientid;
	uint8_t sessionid[NFS4_SESSIONID_SIZE];
	uint32_t nslots;
	struct slot *slots;
	uint32_t busy;
	uint32_t max_read, max_write;
	uint8_t root[NB_NFS41_FH_MAX];
	uint32_t root_len;

	struct frame *wait_head, *wait_tail;
	struct frame *out_head, *out_tail;

	uint8_t *rbuf;
	size_t rcap;
	size_t rlen;
};

static int conn_fail(struct nb_nfs41 *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int conn_fail(struct nb_nfs41 *c, const char *fmt, ...)
{
	va_list ap;

	if (!c->failed) {
		c->failed = true;
		va_start(ap, fmt);
		vsnprintf(c->error, sizeof(c->error), fmt, ap);
		va_end(ap);
	}
	return -EIO;
}

const char *nb_nfs41_error(const struct nb_nfs41 *c)
{
	return c->error;
}

int nb_nfs41_fd(const struct nb_nfs41 *c)
{
	return c->fd;
}

uint32_t nb_nfs41_max_read(const struct nb_nfs41 *c)
{
	return c->max_read;
}

uint32_t nb_nfs41_max_write(const struct nb_nfs41 *c)
{
	return c->max_write;
}

uint64_t nb_nfs41_clientid(const struct nb_nfs41 *c)
{
	return c->clientid;
}

const uint8_t *nb_nfs41_root(const struct nb_nfs41 *c, uint32_t *len)
{
	*len = c->root_len;
	return c->root;
}

short nb_nfs41_events(const struct nb_nfs41 *c)
{
	return (short)(POLLIN | (c->out_head ? POLLOUT : 0));
}

/* ---- URL ---- */

/**
 * nb_nfs41_parse_url() - nfs://HOST[:PORT]/PATH[?...] into @o (strings
 * in *@buf, the caller's to free). -EINVAL when malformed.
 */
int nb_nfs41_parse_url(const char *url, struct nb_nfs41_opts *o,
		       char **buf)
{
	char *s, *path, *q, *colon;

	memset(o, 0, sizeof(*o));
	if (strncmp(url, "nfs://", 6))
		return -EINVAL;
	s = strdup(url + 6);
	if (!s)
		return -ENOMEM;
	*buf = s;
	q = strchr(s, '?');
	if (q)
		*q = '\0';
	path = strchr(s, '/');
	if (!path || path == s)
		return -EINVAL;
	o->path = path + 1;
	*path = '\0';
	o->port = 2049;
	colon = strrchr(s, ':');
	if (colon && !strchr(colon, ']')) {
		*colon = '\0';
		o->port = atoi(colon + 1);
		if (o->port <= 0 || o->port > 65535)
			return -EINVAL;
	}
	o->host = s;
	return 0;
}

/* ---- encoding ---- */

static bool enc_str(struct xdr_buf *x, const char *s)
{
	return xdr_enc_opaque(x, s, (uint32_t)strlen(s));
}

bool nb_enc_op(struct xdr_buf *x, uint32_t op)
{
	return xdr_enc_u32(x, op);
}

bool nb_enc_putfh(struct xdr_buf *x, const uint8_t *fh, uint32_t len)
{
	return xdr_enc_u32(x, OP_PUTFH) && xdr_enc_opaque(x, fh, len);
}

bool nb_enc_lookup(struct xdr_buf *x, const char *name)
{
	return xdr_enc_u32(x, OP_LOOKUP) && enc_str(x, name);
}

bool nb_enc_getattr(struct xdr_buf *x, uint32_t w0, uint32_t w1)
{
	return xdr_enc_u32(x, OP_GETATTR) && xdr_enc_u32(x, 2) &&
	       xdr_enc_u32(x, w0) && xdr_enc_u32(x, w1);
}

bool nb_enc_open(struct xdr_buf *x, uint32_t access, uint64_t clientid,
		 uint64_t owner, const char *name, bool create)
{
	if (!(xdr_enc_u32(x, OP_OPEN) && xdr_enc_u32(x, 0) && /* seqid */
	      xdr_enc_u32(x, access) && xdr_enc_u32(x, 0) &&  /* deny */
	      xdr_enc_u64(x, clientid) && xdr_enc_u32(x, 8) &&
	      xdr_enc_u64(x, owner)))
		return false;
	if (create) {
		/* OPEN4_CREATE, UNCHECKED4, no attributes */
		if (!(xdr_enc_u32(x, 1) && xdr_enc_u32(x, 0) &&
		      xdr_enc_u32(x, 0) && xdr_enc_u32(x, 0)))
			return false;
	} else if (!xdr_enc_u32(x, 0)) {
		return false;
	}
	if (!name)
		return xdr_enc_u32(x, 4);                /* CLAIM_FH */
	return xdr_enc_u32(x, 0) && enc_str(x, name);    /* CLAIM_NULL */
}

bool nb_enc_close(struct xdr_buf *x, const uint8_t *stateid)
{
	return xdr_enc_u32(x, OP_CLOSE) && xdr_enc_u32(x, 0) &&
	       xdr_enc_opaque_fixed(x, stateid, NB_NFS41_STATEID);
}

bool nb_enc_read(struct xdr_buf *x, const uint8_t *stateid, uint64_t off,
		 uint32_t count)
{
	return xdr_enc_u32(x, OP_READ) &&
	       xdr_enc_opaque_fixed(x, stateid, NB_NFS41_STATEID) &&
	       xdr_enc_u64(x, off) && xdr_enc_u32(x, count);
}

bool nb_enc_write_head(struct xdr_buf *x, const uint8_t *stateid,
		       uint64_t off, bool sync, uint32_t len)
{
	return xdr_enc_u32(x, OP_WRITE) &&
	       xdr_enc_opaque_fixed(x, stateid, NB_NFS41_STATEID) &&
	       xdr_enc_u64(x, off) && xdr_enc_u32(x, sync ? 2 : 0) &&
	       xdr_enc_u32(x, len);
}

bool nb_enc_commit(struct xdr_buf *x)
{
	return xdr_enc_u32(x, OP_COMMIT) && xdr_enc_u64(x, 0) &&
	       xdr_enc_u32(x, 0);
}

bool nb_enc_remove(struct xdr_buf *x, const char *name)
{
	return xdr_enc_u32(x, OP_REMOVE) && enc_str(x, name);
}

bool nb_enc_mkdir(struct xdr_buf *x, const char *name)
{
	/* CREATE NF4DIR, mode 0755 */
	return xdr_enc_u32(x, OP_CREATE) && xdr_enc_u32(x, 2) &&
	       enc_str(x, name) && xdr_enc_u32(x, 2) && xdr_enc_u32(x, 0) &&
	       xdr_enc_u32(x, 1u << (FATTR4_MODE - 32)) &&
	       xdr_enc_u32(x, 4) && xdr_enc_u32(x, 0755);
}

bool nb_enc_access(struct xdr_buf *x, uint32_t mask)
{
	return xdr_enc_u32(x, OP_ACCESS) && xdr_enc_u32(x, mask);
}

bool nb_enc_setattr_mode(struct xdr_buf *x, uint32_t mode)
{
	return xdr_enc_u32(x, OP_SETATTR) &&
	       xdr_enc_opaque_fixed(x, nb_nfs41_anon_stateid,
				    NB_NFS41_STATEID) &&
	       xdr_enc_u32(x, 2) && xdr_enc_u32(x, 0) &&
	       xdr_enc_u32(x, 1u << (FATTR4_MODE - 32)) &&
	       xdr_enc_u32(x, 4) && xdr_enc_u32(x, mode);
}

bool nb_enc_readdir(struct xdr_buf *x, uint32_t maxcount)
{
	/* cookie 0, verifier 0, dircount, maxcount, type and fileid */
	return xdr_enc_u32(x, OP_READDIR) && xdr_enc_u64(x, 0) &&
	       xdr_enc_u64(x, 0) && xdr_enc_u32(x, maxcount / 2) &&
	       xdr_enc_u32(x, maxcount) && xdr_enc_u32(x, 1) &&
	       xdr_enc_u32(x, 1u << 1 | 1u << 20);
}

/* ---- decoding ---- */

bool nb_dec_res(struct xdr_buf *x, uint32_t *op, uint32_t *status)
{
	return xdr_dec_u32(x, op) && xdr_dec_u32(x, status);
}

static bool skip_opaque(struct xdr_buf *x, uint32_t max)
{
	const uint8_t *p;
	uint32_t n;

	return xdr_dec_opaque_ref(x, &p, &n, max);
}

static bool skip_bitmap(struct xdr_buf *x)
{
	uint32_t n, w;

	if (!xdr_dec_u32(x, &n) || n > 8)
		return false;
	while (n--)
		if (!xdr_dec_u32(x, &w))
			return false;
	return true;
}

/* change_info4 */
static bool skip_cinfo(struct xdr_buf *x)
{
	return xdr_inline(x, 4 + 16) != NULL;
}

bool nb_dec_open(struct xdr_buf *x, uint8_t *stateid)
{
	uint32_t rflags, dtype, how;

	if (!xdr_dec_opaque_fixed(x, stateid, NB_NFS41_STATEID) ||
	    !skip_cinfo(x) || !xdr_dec_u32(x, &rflags) || !skip_bitmap(x) ||
	    !xdr_dec_u32(x, &dtype))
		return false;
	switch (dtype) {
	case 0:                                     /* NONE */
		return true;
	case 3:                                     /* NONE_EXT */
		if (!xdr_dec_u32(x, &how))
			return false;
		return (how != 1 && how != 2) || xdr_inline(x, 4);
	default:
		return false;       /* no back channel: none is granted */
	}
}

bool nb_dec_getfh(struct xdr_buf *x, uint8_t *fh, uint32_t *len)
{
	const uint8_t *p;

	if (!xdr_dec_opaque_ref(x, &p, len, NB_NFS41_FH_MAX))
		return false;
	memcpy(fh, p, *len);
	return true;
}

bool nb_dec_rw(struct xdr_buf *x, uint32_t op, uint32_t *count)
{
	uint32_t v;
	const uint8_t *p;

	if (op == OP_READ)
		return xdr_dec_u32(x, &v) &&
		       xdr_dec_opaque_ref(x, &p, count, 1u << 30);
	return xdr_dec_u32(x, count) && xdr_dec_u32(x, &v) &&
	       xdr_inline(x, 8);
}

bool nb_dec_size(struct xdr_buf *x, uint64_t *size)
{
	const uint8_t *p;
	uint32_t n;
	struct xdr_buf a;

	if (!skip_bitmap(x) || !xdr_dec_opaque_ref(x, &p, &n, 1024))
		return false;
	xdr_init(&a, (uint8_t *)p, n);
	return xdr_dec_u64(&a, size);
}

bool nb_dec_skip(struct xdr_buf *x, uint32_t op)
{
	uint32_t n;
	uint8_t sid[NB_NFS41_STATEID];

	switch (op) {
	case OP_PUTFH:
	case OP_PUTROOTFH:
	case OP_LOOKUP:
	case OP_RECLAIM_COMPLETE:
		return true;
	case OP_GETATTR:
		return skip_bitmap(x) && skip_opaque(x, 1u << 20);
	case OP_GETFH:
		return skip_opaque(x, NB_NFS41_FH_MAX);
	case OP_OPEN:
		return nb_dec_open(x, sid);
	case OP_CLOSE:
		return xdr_inline(x, NB_NFS41_STATEID) != NULL;
	case OP_READ:
	case OP_WRITE:
		return nb_dec_rw(x, op, &n);
	case OP_COMMIT:
		return xdr_inline(x, 8) != NULL;
	case OP_REMOVE:
		return skip_cinfo(x);
	case OP_CREATE:
		return skip_cinfo(x) && skip_bitmap(x);
	case OP_ACCESS:
		return xdr_inline(x, 8) != NULL;
	case OP_SETATTR:
		return skip_bitmap(x);
	case OP_READDIR:
		/* the entries are not looked at: the rest of the reply */
		return xdr_inline(x, xdr_remaining(x)) != NULL;
	default:
		return false;
	}
}

/* ---- framing and slots ---- */

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* RM header, RPC call header (AUTH_SYS root, AUTH_NONE verifier),
 * COMPOUND4args' head with @nops operations. The xid is left 0. */
static bool enc_call_head(struct xdr_buf *x, uint32_t nops, size_t *xid_off)
{
	static const char machine[] = "nasd-bench";

	if (!xdr_enc_u32(x, 0))                          /* RM, set later */
		return false;
	*xid_off = x->pos;
	return xdr_enc_u32(x, 0) && xdr_enc_u32(x, 0) &&  /* xid, CALL */
	       xdr_enc_u32(x, 2) && xdr_enc_u32(x, NFS_PROGRAM) &&
	       xdr_enc_u32(x, NFS_V4) && xdr_enc_u32(x, PROC_COMPOUND) &&
	       xdr_enc_u32(x, 1) &&                      /* AUTH_SYS */
	       xdr_enc_u32(x, 20 + 12) && xdr_enc_u32(x, 0) &&
	       enc_str(x, machine) && xdr_enc_u32(x, 0) &&
	       xdr_enc_u32(x, 0) && xdr_enc_u32(x, 0) &&
	       xdr_enc_u32(x, 0) && xdr_enc_u32(x, 0) && /* AUTH_NONE */
	       xdr_enc_u32(x, 0) &&                      /* tag */
	       xdr_enc_u32(x, 1) && xdr_enc_u32(x, nops);
}

static void frame_free(struct frame *f)
{
	free(f->buf);
	free(f);
}

/* A free slot for the first waiting frame: set its xid and SEQUENCE and
 * move it out. */
static void dispatch(struct nb_nfs41 *c)
{
	while (c->wait_head && c->busy < c->nslots) {
		struct frame *f = c->wait_head;
		struct slot *s = NULL;
		uint32_t i;

		for (i = 0; i < c->nslots; i++) {
			if (!c->slots[i].busy) {
				s = &c->slots[i];
				break;
			}
		}
		if (!s)
			return;
		c->wait_head = f->next;
		if (!c->wait_head)
			c->wait_tail = NULL;
		s->busy = true;
		s->cb = f->cb;
		s->priv = f->priv;
		s->seqid++;
		s->gen++;
		c->busy++;
		put_be32(f->buf + f->xid_off,
			 (uint32_t)s->gen << 16 | (i & 0xffffu));
		put_be32(f->buf + f->seq_off, s->seqid);
		put_be32(f->buf + f->seq_off + 4, i);
		put_be32(f->buf + f->seq_off + 8, c->nslots - 1);
		f->next = NULL;
		if (c->out_tail)
			c->out_tail->next = f;
		else
			c->out_head = f;
		c->out_tail = f;
	}
}

/** nb_nfs41_submit() - see nb_nfs41.h. */
int nb_nfs41_submit(struct nb_nfs41 *c, const uint8_t *ops, size_t len,
		    uint32_t nops, const void *ext, size_t ext_len,
		    const uint8_t *tail, size_t tail_len, nb_nfs41_cb *cb,
		    void *priv)
{
	static const uint8_t zeros[4];
	size_t pad = (4 - (ext_len & 3)) & 3;
	struct frame *f;
	struct xdr_buf x;

	if (c->failed)
		return -EIO;
	f = calloc(1, sizeof(*f));
	if (f)
		f->buf = malloc(HDR_MAX + 64 + len + pad + tail_len);
	if (!f || !f->buf) {
		if (f)
			free(f);
		return conn_fail(c, "out of memory");
	}
	xdr_init(&x, f->buf, HDR_MAX + 64 + len);
	if (!enc_call_head(&x, nops + 1, &f->xid_off) ||
	    !xdr_enc_u32(&x, OP_SEQUENCE) ||
	    !xdr_enc_opaque_fixed(&x, c->sessionid, NFS4_SESSIONID_SIZE)) {
		frame_free(f);
		return conn_fail(c, "COMPOUND too large");
	}
	f->seq_off = x.pos;
	if (!xdr_enc_u32(&x, 0) || !xdr_enc_u32(&x, 0) ||
	    !xdr_enc_u32(&x, 0) || !xdr_enc_bool(&x, false) ||
	    !xdr_enc_opaque_fixed(&x, ops, len)) {
		frame_free(f);
		return conn_fail(c, "COMPOUND too large");
	}
	/* the payload's pad and the tail go out after it, from here */
	memcpy(f->buf + x.pos, zeros, pad);
	if (tail_len)
		memcpy(f->buf + x.pos + pad, tail, tail_len);
	f->tail = pad + tail_len;
	put_be32(f->buf, 0x80000000u |
		 (uint32_t)(x.pos - 4 + ext_len + f->tail));
	f->len = x.pos;
	f->ext = ext;
	f->ext_len = ext_len;
	f->cb = cb;
	f->priv = priv;
	if (c->wait_tail)
		c->wait_tail->next = f;
	else
		c->wait_head = f;
	c->wait_tail = f;
	dispatch(c);
	return 0;
}

/* Frames gathered into one writev (libnfs sends its queue the same way:
 * a syscall and a TCP push per request cost the client more than the
 * server's NFSv4.1 work). */
#define FLUSH_IOV 48

/*
 * The unsent iovecs of @f (at most 3) into @iov; returns how many.
 */
static int frame_iov(const struct frame *f, struct iovec *iov)
{
	size_t s = f->sent;
	int n = 0;

	if (s < f->len) {
		iov[n].iov_base = f->buf + s;
		iov[n++].iov_len = f->len - s;
		s = 0;
	} else {
		s -= f->len;
	}
	if (f->ext_len && s < f->ext_len) {
		iov[n].iov_base = (uint8_t *)f->ext + s;
		iov[n++].iov_len = f->ext_len - s;
		s = 0;
	} else if (f->ext_len) {
		s -= f->ext_len;
	}
	if (f->tail) {
		iov[n].iov_base = f->buf + f->len + s;
		iov[n++].iov_len = f->tail - s;
	}
	return n;
}

/* Write what can be written of the frames out, several per writev. */
static int flush(struct nb_nfs41 *c)
{
	while (c->out_head) {
		struct iovec iov[FLUSH_IOV];
		struct frame *f;
		int n = 0;
		ssize_t w;

		for (f = c->out_head; f && n + 3 <= FLUSH_IOV; f = f->next)
			n += frame_iov(f, iov + n);
		w = writev(c->fd, iov, n);
		if (w < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return 0;
			return conn_fail(c, "send: %s", strerror(errno));
		}
		/* the frames wholly written go; the first not, keeps its place */
		while ((f = c->out_head) != NULL && w > 0) {
			size_t left = f->len + f->ext_len + f->tail - f->sent;

			if ((size_t)w < left) {
				f->sent += (size_t)w;
				return 0;
			}
			w -= (ssize_t)left;
			c->out_head = f->next;
			if (!c->out_head)
				c->out_tail = NULL;
			frame_free(f);
		}
	}
	return 0;
}

/*
 * One reply record: find its slot by xid, check the RPC and SEQUENCE
 * parts, hand the rest to the callback, free the slot.
 */
static int take_reply(struct nb_nfs41 *c, uint8_t *rec, size_t len)
{
	struct nb_nfs41_reply r = { .status = NFS4ERR_IO };
	uint32_t xid, v, flavor, i, taglen, op, st;
	const uint8_t *p;
	struct xdr_buf x;
	struct slot *s;
	nb_nfs41_cb *cb;
	void *priv;

	xdr_init(&x, rec, len);
	if (!xdr_dec_u32(&x, &xid))
		return conn_fail(c, "short reply");
	i = xid & 0xffffu;
	if (i >= c->nslots || !c->slots[i].busy ||
	    c->slots[i].gen != (uint16_t)(xid >> 16))
		return conn_fail(c, "reply to no call (xid %08x)", xid);
	s = &c->slots[i];
	if (!xdr_dec_u32(&x, &v) || v != 1 || !xdr_dec_u32(&x, &v) ||
	    v != 0 || !xdr_dec_u32(&x, &flavor) ||
	    !xdr_dec_opaque_ref(&x, &p, &v, 400) || !xdr_dec_u32(&x, &v))
		return conn_fail(c, "RPC reply does not parse");
	if (v != 0)
		return conn_fail(c, "RPC call not accepted (%u)", v);
	if (!xdr_dec_u32(&x, &r.status) ||
	    !xdr_dec_opaque_ref(&x, &p, &taglen, 1024) ||
	    !xdr_dec_u32(&x, &r.nres) || !r.nres ||
	    !nb_dec_res(&x, &op, &st) || op != OP_SEQUENCE)
		return conn_fail(c, "COMPOUND reply does not parse");
	if (st != NFS4_OK) {
		/* the slot did not move on: its sequence id again next */
		s->seqid--;
		r.status = st;
		r.nres = 0;
	} else if (!xdr_inline(&x, NFS4_SESSIONID_SIZE + 20)) {
		return conn_fail(c, "SEQUENCE result does not parse");
	} else {
		r.nres--;
	}
	r.res = x;
	cb = s->cb;
	priv = s->priv;
	s->busy = false;
	c->busy--;
	dispatch(c);
	cb(priv, &r);
	return 0;
}

static int read_records(struct nb_nfs41 *c)
{
	for (;;) {
		ssize_t n;
		size_t off = 0, want;

		if (c->rlen == c->rcap) {
			size_t cap = c->rcap * 2;
			uint8_t *b = realloc(c->rbuf, cap);

			if (!b)
				return conn_fail(c, "out of memory");
			c->rbuf = b;
			c->rcap = cap;
		}
		want = c->rcap - c->rlen;
		if (c->rlen >= 4) {
			/* a large record is read up to its end only, so that
			 * what follows it never has to be moved far */
			size_t end = 4 + (get_be32(c->rbuf) & 0x7fffffffu);

			if (end > RBUF_MIN / 4 && end > c->rlen &&
			    end - c->rlen < want)
				want = end - c->rlen;
		}
		n = read(c->fd, c->rbuf + c->rlen,
			 want < RECV_CHUNK ? want : RECV_CHUNK);
		if (n == 0)
			return conn_fail(c, "the server closed the "
					 "connection");
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return 0;
			return conn_fail(c, "recv: %s", strerror(errno));
		}
		c->rlen += (size_t)n;
		while (c->rlen - off >= 4) {
			uint32_t mark = get_be32(c->rbuf + off);
			size_t rl = mark & 0x7fffffffu;

			if (!(mark & 0x80000000u))
				return conn_fail(c, "fragmented record");
			if (rl + 4 > c->rcap - off) {
				/* room for the whole record */
				size_t cap = c->rcap;
				uint8_t *b;

				while (rl + 4 > cap - off)
					cap *= 2;
				b = realloc(c->rbuf, cap);
				if (!b)
					return conn_fail(c, "out of memory");
				c->rbuf = b;
				c->rcap = cap;
			}
			if (c->rlen - off < rl + 4)
				break;
			if (take_reply(c, c->rbuf + off + 4, rl) < 0)
				return -EIO;
			off += rl + 4;
		}
		if (off) {
			memmove(c->rbuf, c->rbuf + off, c->rlen - off);
			c->rlen -= off;
		}
	}
}

/**
 * nb_nfs41_service() - the poll loop saw @revents on the connection.
 * 0, or -EIO once the connection failed.
 */
int nb_nfs41_service(struct nb_nfs41 *c, short revents)
{
	if (c->failed)
		return -EIO;
	if ((revents & POLLIN) && read_records(c) < 0)
		return -EIO;
	if ((revents & (POLLERR | POLLHUP)) && !(revents & POLLIN))
		return conn_fail(c, "connection error");
	if (flush(c) < 0)
		return -EIO;
	return c->failed ? -EIO : 0;
}

/**
 * nb_nfs41_wait() - drive the connection alone until *@done (setup and
 * cleanup calls). 0, -ETIMEDOUT, or -EIO.
 */
int nb_nfs41_wait(struct nb_nfs41 *c, const bool *done, int timeout_ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!*done) {
		struct pollfd p = { .fd = c->fd, .events = nb_nfs41_events(c) };
		long ms;

		if (c->failed)
			return -EIO;
		clock_gettime(CLOCK_MONOTONIC, &t);
		ms = (t.tv_sec - t0.tv_sec) * 1000 +
		     (t.tv_nsec - t0.tv_nsec) / 1000000;
		if (ms > timeout_ms)
			return conn_fail(c, "no reply within %d ms",
					 timeout_ms), -ETIMEDOUT;
		if (poll(&p, 1, 100) < 0 && errno != EINTR)
			return conn_fail(c, "poll: %s", strerror(errno));
		if (nb_nfs41_service(c, p.revents) < 0)
			return -EIO;
	}
	return 0;
}

/* ---- set-up, synchronous ---- */

/* Send one COMPOUND without SEQUENCE (EXCHANGE_ID, CREATE_SESSION) on
 * the still blocking socket; its reply's results in @x (in c->rbuf). */
static int setup_call(struct nb_nfs41 *c, const uint8_t *ops, size_t len,
		      uint32_t nops, struct xdr_buf *x, const char *what)
{
	uint8_t buf[HDR_MAX + 512];
	struct xdr_buf e;
	size_t xid_off, got = 0, need = 4;
	uint32_t v, status, taglen, nres;
	const uint8_t *p;

	xdr_init(&e, buf, sizeof(buf));
	if (!enc_call_head(&e, nops, &xid_off) ||
	    !xdr_enc_opaque_fixed(&e, ops, len))
		return conn_fail(c, "%s: too large", what);
	put_be32(buf + xid_off, 0x7fff0000u);
	put_be32(buf, 0x80000000u | (uint32_t)(e.pos - 4));
	if (send(c->fd, buf, e.pos, MSG_NOSIGNAL) != (ssize_t)e.pos)
		return conn_fail(c, "%s: send: %s", what, strerror(errno));
	while (got < need) {
		ssize_t n = recv(c->fd, c->rbuf + got, need - got, 0);

		if (n <= 0)
			return conn_fail(c, "%s: no reply", what);
		got += (size_t)n;
		if (got == 4) {
			need = 4 + (get_be32(c->rbuf) & 0x7fffffffu);
			if (need > c->rcap)
				return conn_fail(c, "%s: reply too large",
						 what);
		}
	}
	xdr_init(x, c->rbuf + 4, need - 4);
	if (!xdr_dec_u32(x, &v) || !xdr_dec_u32(x, &v) || v != 1 ||
	    !xdr_dec_u32(x, &v) || v != 0 || !xdr_dec_u32(x, &v) ||
	    !xdr_dec_opaque_ref(x, &p, &v, 400) || !xdr_dec_u32(x, &v) ||
	    v != 0 || !xdr_dec_u32(x, &status) ||
	    !xdr_dec_opaque_ref(x, &p, &taglen, 1024) ||
	    !xdr_dec_u32(x, &nres))
		return conn_fail(c, "%s: reply does not parse", what);
	if (status != NFS4_OK)
		return conn_fail(c, "%s: status %u", what, status);
	return 0;
}

static int exchange_id(struct nb_nfs41 *c)
{
	uint8_t ops[256];
	struct xdr_buf x;
	char owner[96];
	uint32_t op, st;
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	snprintf(owner, sizeof(owner), "nasd-bench.%d.%p.%ld",
		 (int)getpid(), (void *)c, (long)ts.tv_nsec);
	xdr_init(&x, ops, sizeof(ops));
	if (!xdr_enc_u32(&x, OP_EXCHANGE_ID) ||
	    !xdr_enc_u64(&x, (uint64_t)ts.tv_sec << 32 ^
			     (uint64_t)ts.tv_nsec) ||
	    !enc_str(&x, owner) ||
	    !xdr_enc_u32(&x, EXCHGID4_FLAG_USE_NON_PNFS) ||
	    !xdr_enc_u32(&x, 0) ||                       /* SP4_NONE */
	    !xdr_enc_u32(&x, 0))                         /* no impl id */
		return conn_fail(c, "EXCHANGE_ID too large");
	if (setup_call(c, ops, x.pos, 1, &x, "EXCHANGE_ID") < 0)
		return -EIO;
	if (!nb_dec_res(&x, &op, &st) || st != NFS4_OK ||
	    !xdr_dec_u64(&x, &c->clientid) || !xdr_dec_u32(&x, &st))
		return conn_fail(c, "EXCHANGE_ID failed");
	return (int)st; /* the sequence id CREATE_SESSION takes */
}

static bool enc_chan(struct xdr_buf *x, uint32_t req, uint32_t resp,
		     uint32_t ops, uint32_t slots)
{
	return xdr_enc_u32(x, 0) && xdr_enc_u32(x, req) &&
	       xdr_enc_u32(x, resp) && xdr_enc_u32(x, resp) &&
	       xdr_enc_u32(x, ops) && xdr_enc_u32(x, slots) &&
	       xdr_enc_u32(x, 0);
}

static int create_session(struct nb_nfs41 *c, uint32_t seq,
			  const struct nb_nfs41_opts *o)
{
	uint32_t io = o->max_io + 8192, op, st, v, n, maxreq, maxresp;
	uint8_t ops[256];
	struct xdr_buf x;

	xdr_init(&x, ops, sizeof(ops));
	if (!xdr_enc_u32(&x, OP_CREATE_SESSION) ||
	    !xdr_enc_u64(&x, c->clientid) || !xdr_enc_u32(&x, seq) ||
	    !xdr_enc_u32(&x, 0) ||                       /* no back chan */
	    !enc_chan(&x, io, io, 32, o->slots) ||
	    !enc_chan(&x, 4096, 4096, 2, 1) ||
	    !xdr_enc_u32(&x, CB_PROGRAM) || !xdr_enc_u32(&x, 1) ||
	    !xdr_enc_u32(&x, 0))                         /* AUTH_NONE */
		return conn_fail(c, "CREATE_SESSION too large");
	if (setup_call(c, ops, x.pos, 1, &x, "CREATE_SESSION") < 0)
		return -EIO;
	if (!nb_dec_res(&x, &op, &st) || st != NFS4_OK ||
	    !xdr_dec_opaque_fixed(&x, c->sessionid, NFS4_SESSIONID_SIZE) ||
	    !xdr_dec_u32(&x, &v) || !xdr_dec_u32(&x, &v) ||
	    !xdr_dec_u32(&x, &v) || !xdr_dec_u32(&x, &maxreq) ||
	    !xdr_dec_u32(&x, &maxresp) || !xdr_dec_u32(&x, &v) ||
	    !xdr_dec_u32(&x, &v) || !xdr_dec_u32(&x, &n))
		return conn_fail(c, "CREATE_SESSION failed (status %u)", st);
	if (!n || n > SLOTS_MAX)
		return conn_fail(c, "CREATE_SESSION: %u slots", n);
	c->nslots = n;
	c->slots = calloc(n, sizeof(*c->slots));
	if (!c->slots)
		return conn_fail(c, "out of memory");
	/* room for the operations around the payload */
	c->max_write = maxreq > 2048 ? maxreq - 2048 : 0;
	c->max_read = maxresp > 2048 ? maxresp - 2048 : 0;
	return 0;
}

struct sync_wait {
	bool done;
	uint32_t status;
	uint8_t fh[NB_NFS41_FH_MAX];
	uint32_t fh_len;
	uint64_t maxread, maxwrite;
};

static void root_cb(void *priv, struct nb_nfs41_reply *r)
{
	struct sync_wait *w = priv;
	uint32_t op, st, i, n;
	const uint8_t *p;
	struct xdr_buf a;

	w->done = true;
	w->status = r->status;
	for (i = 0; r->status == NFS4_OK && i < r->nres; i++) {
		if (!nb_dec_res(&r->res, &op, &st) || st != NFS4_OK)
			break;
		if (op == OP_GETFH) {
			if (!nb_dec_getfh(&r->res, w->fh, &w->fh_len))
				break;
		} else if (op == OP_GETATTR) {
			if (!skip_bitmap(&r->res) ||
			    !xdr_dec_opaque_ref(&r->res, &p, &n, 64))
				break;
			xdr_init(&a, (uint8_t *)p, n);
			if (!xdr_dec_u64(&a, &w->maxread) ||
			    !xdr_dec_u64(&a, &w->maxwrite))
				break;
		} else if (!nb_dec_skip(&r->res, op)) {
			break;
		}
	}
}

/* RECLAIM_COMPLETE, then the export's root: PUTROOTFH, a LOOKUP per
 * component, GETFH, GETATTR(maxread, maxwrite). */
static int find_root(struct nb_nfs41 *c, const char *path)
{
	uint8_t ops[NB_NFS41_OPS_MAX];
	struct sync_wait w = { 0 };
	struct xdr_buf x;
	uint32_t nops = 0;
	char comp[256];
	const char *p = path;
	int r;

	xdr_init(&x, ops, sizeof(ops));
	if (!xdr_enc_u32(&x, OP_RECLAIM_COMPLETE) || !xdr_enc_bool(&x, false))
		return conn_fail(c, "RECLAIM_COMPLETE");
	r = nb_nfs41_submit(c, ops, x.pos, 1, NULL, 0, NULL, 0, root_cb, &w);
	if (r == 0)
		r = nb_nfs41_wait(c, &w.done, SETUP_MS);
	if (r < 0)
		return r;
	/* COMPLETE_ALREADY is fine */
	xdr_init(&x, ops, sizeof(ops));
	if (!nb_enc_op(&x, OP_PUTROOTFH))
		return -EIO;
	nops++;
	while (*p) {
		size_t n = strcspn(p, "/");

		if (n && n < sizeof(comp)) {
			memcpy(comp, p, n);
			comp[n] = '\0';
			if (!nb_enc_lookup(&x, comp))
				return conn_fail(c, "export path too long");
			nops++;
		}
		p += n;
		while (*p == '/')
			p++;
	}
	if (!nb_enc_op(&x, OP_GETFH) ||
	    !nb_enc_getattr(&x, 1u << FATTR4_MAXREAD | 1u << FATTR4_MAXWRITE,
			    0))
		return conn_fail(c, "export path too long");
	nops += 2;
	memset(&w, 0, sizeof(w));
	r = nb_nfs41_submit(c, ops, x.pos, nops, NULL, 0, NULL, 0, root_cb,
			    &w);
	if (r == 0)
		r = nb_nfs41_wait(c, &w.done, SETUP_MS);
	if (r < 0)
		return r;
	if (w.status != NFS4_OK || !w.fh_len)
		return conn_fail(c, "export /%s: status %u", path, w.status);
	memcpy(c->root, w.fh, w.fh_len);
	c->root_len = w.fh_len;
	if (w.maxread && w.maxread < c->max_read)
		c->max_read = (uint32_t)w.maxread;
	if (w.maxwrite && w.maxwrite < c->max_write)
		c->max_write = (uint32_t)w.maxwrite;
	return 0;
}

static int tcp_connect(const struct nb_nfs41_opts *o)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai, *a;
	char port[16];
	int fd = -1, one = 1;

	snprintf(port, sizeof(port), "%d", o->port);
	if (getaddrinfo(o->host, port, &hints, &ai))
		return -EHOSTUNREACH;
	for (a = ai; a; a = a->ai_next) {
		fd = socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			continue;
		if (connect(fd, a->ai_addr, a->ai_addrlen) == 0)
			break;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	if (fd >= 0)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd < 0 ? -ECONNREFUSED : fd;
}

/**
 * nb_nfs41_connect() - connect, make a client and a session, find the
 * export's root. 0 with *@out, or -1 with @err filled.
 */
int nb_nfs41_connect(const struct nb_nfs41_opts *o, struct nb_nfs41 **out,
		     char *err, size_t errlen)
{
	struct nb_nfs41 *c = calloc(1, sizeof(*c));
	int seq;

	*out = NULL;
	if (!c) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	c->rcap = RBUF_MIN;
	c->rbuf = malloc(c->rcap);
	c->fd = tcp_connect(o);
	if (!c->rbuf || c->fd < 0) {
		snprintf(err, errlen, "connect to %s:%d: %s", o->host, o->port,
			 c->rbuf ? strerror(-c->fd) : "out of memory");
		nb_nfs41_destroy(c);
		return -1;
	}
	seq = exchange_id(c);
	if (seq < 0 || create_session(c, (uint32_t)seq, o) < 0 ||
	    fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) | O_NONBLOCK) < 0 ||
	    find_root(c, o->path) < 0) {
		snprintf(err, errlen, "%s", c->error[0] ? c->error :
			 "set-up failed");
		nb_nfs41_destroy(c);
		return -1;
	}
	*out = c;
	return 0;
}

/** nb_nfs41_destroy() - close and free @c (NULL: nothing). */
void nb_nfs41_destroy(struct nb_nfs41 *c)
{
	struct frame *f;

	if (!c)
		return;
	while ((f = c->wait_head)) {
		c->wait_head = f->next;
		frame_free(f);
	}
	while ((f = c->out_head)) {
		c->out_head = f->next;
		frame_free(f);
	}
	if (c->fd >= 0)
		close(c->fd);
	free(c->slots);
	free(c->rbuf);
	free(c);
}
