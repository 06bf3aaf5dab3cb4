/* SPDX-License-Identifier: MIT */
#ifndef NASD_CORE_REQ_H
#define NASD_CORE_REQ_H

/*
 * A request (DESIGN.md §1, core/): one message a protocol handles, as the
 * transport hands it over, and the reply it builds. Protocol-neutral: ONC
 * RPC and SMB2 requests are both this, and so is a message the server
 * sends on its own (an NFSv4 callback, an SMB interim response or lease
 * break), which is a request with no received message and only a reply.
 *
 * Memory. Everything a handler needs for one request comes from the
 * request's arena (req_alloc): a bump allocator whose first chunk is lent
 * by the transport, so that a typical request allocates nothing; further
 * chunks are malloc'd and all of them are freed at once by req_finish().
 *
 * The reply is a chain that the transport writes with one gathered send:
 *
 *     [head room][body segment 0][segment 1]...[payload][pad]
 *
 * - Segment 0 starts REQ_HEAD_ROOM bytes into its allocation. Headers whose
 *   content depends on the body (the RPC reply header with its accept
 *   status, the transport's frame header with the total length) are
 *   written last, growing down into that room (req_reply_prepend), so a
 *   header is never moved in front of a body after the fact.
 * - The body is encoded into the open (last) segment. When it is full, the
 *   encoder closes it and continues in a new one (req_reply_extend): no
 *   segment ever moves, so positions inside earlier segments stay valid
 *   for back-patching, and nothing is copied as a reply grows.
 * - At most one payload ends the body: a pooled buffer (struct iobuf) or a
 *   range of a file that the page cache holds, which a TCP transport hands
 *   to the socket with sendfile(2). A transport that cannot send a file
 *   range (RDMA), or a protocol that must sign or encrypt the bytes, turns
 *   it into a buffer first (req_payload_fill). Zero padding may follow it
 *   (XDR rounds opaque data to four bytes).
 *
 * Threads: a request is owned by one thread at a time (the event loop that
 * read it, then at most one worker, then the connection's send queue).
 * Nothing here locks.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>

struct conn;
struct iobuf;

/* Bytes reserved in front of the body for headers written last. */
#define REQ_HEAD_ROOM 64
/* Body segments a reply may have (a doubling reply reaches 128 MiB). */
#define REQ_MAX_SEGS 16
/* iovecs the transport needs for a whole reply: head+segment 0 as one,
 * the other segments, the payload, its padding. */
#define REQ_MAX_IOV (REQ_MAX_SEGS + 2)

/*
 * What keeps a file-range payload's descriptor valid, and how its bytes
 * are read when they must be in memory after all. Supplied by the vfs
 * (the only layer that touches files).
 */
struct payload_file_ops {
	/* The payload is gone: drop what kept @fd valid (@arg). */
	void (*release)(void *arg);
	/*
	 * Read @len bytes at @off of @fd into @dst: 0, or -errno (also when
	 * the file has become shorter than @len bytes from @off).
	 */
	int (*fill)(void *arg, int fd, uint64_t off, void *dst, size_t len);
};

enum payload_kind {
	PAYLOAD_NONE = 0,
	PAYLOAD_BUF,     /* @len bytes at @data inside pooled buffer @buf */
	PAYLOAD_FILE,    /* @len bytes at @off of file @fd */
};

/*
 * Data that travels after a reply's body without being copied into it.
 * Whoever holds a payload owns its reference (@buf, or @arg through
 * @ops->release) and gives it back with payload_release().
 */
struct payload {
	enum payload_kind kind;
	uint32_t len;
	/* PAYLOAD_BUF */
	struct iobuf *buf;
	const uint8_t *data;
	/* PAYLOAD_FILE */
	int fd;
	uint64_t off;
	const struct payload_file_ops *ops;
	void *arg;
};

/* payload_release() - give back what @p holds; it becomes PAYLOAD_NONE. */
void payload_release(struct payload *p);

/*
 * payload_fill() - make a file-range payload a buffer payload: read its
 * bytes into a new pooled buffer (iobuf_alloc) and release the range.
 * Returns 0 (also for payloads that are not file ranges), -EJUKEBOX when
 * the pool refuses at its ceiling, or the error of the read (then @p is
 * unchanged).
 */
int payload_fill(struct payload *p);

/* The body segments and payload of a reply being built. */
struct req_reply {
	uint8_t *alloc;          /* segment 0's allocation: room + body */
	size_t head_len;         /* header bytes in front of seg[0] */
	struct iovec seg[REQ_MAX_SEGS];
	unsigned int nseg;       /* 0: no reply started */
	size_t open_cap;         /* capacity of seg[nseg - 1] */
	struct payload payload;
	uint32_t pad;            /* zero bytes sent after the payload */
};

/* req.caps: what the transport of this request can send. */
#define REQ_CAP_FILE 0x1        /* file-range payloads (sendfile) */

/*
 * What process() answers (the transport's protocol table): send the
 * reply, drop the message (nothing to send), or run it again on a worker
 * (it would block on the event loop; see req.nowait).
 */
enum req_verdict {
	REQ_REPLY = 0,
	REQ_DROP,
	REQ_DEFER,
	/* The protocol keeps the request until it calls
	 * transport_req_resume() (once); process() then runs again on a
	 * worker, or, if the connection closed meanwhile, the request is
	 * released unprocessed (the release hook runs). */
	REQ_PARK,
};

struct req {
	/* Set by the transport for each message; read-only for protocols. */
	struct conn *conn;       /* the connection (a reference is held) */
	void *conn_priv;         /* the protocol's per-connection state */
	const struct sockaddr_storage *peer; /* the connection's, stable */
	const struct sockaddr_storage *local;
	socklen_t peer_len;
	socklen_t local_len;
	bool peer_privileged;    /* source port < 1024 */
	uint32_t caps;           /* REQ_CAP_* */
	uint8_t *msg;            /* the received message, or NULL */
	size_t msg_len;
	/*
	 * The request runs on the event-loop thread that read it and must
	 * not block. A handler that finds it would (a READ missing the page
	 * cache) sets @defer and returns; process() then answers REQ_DEFER,
	 * having kept in @proto (the request's memory) whatever it needs to
	 * continue, and the transport calls it again on a worker with
	 * @nowait clear. It passes between threads at most once each way.
	 */
	bool nowait;
	bool defer;
	void *proto;             /* the protocol's per-request state */

	/* Arena (req_alloc). */
	uint8_t *arena;
	size_t arena_used;
	size_t arena_size;
	void *arena_overflow;    /* malloc'd chunks, freed by req_finish */

	struct req_reply reply;
};

/*
 * req_init() - a fresh request whose arena's first chunk is @arena
 * (@arena_size bytes, lent by the caller until req_finish()). Everything
 * else is zero: the caller then sets what its fields say.
 */
void req_init(struct req *r, void *arena, size_t arena_size);

/*
 * req_finish() - the request is over (its reply sent or dropped): release
 * the payload and free every arena chunk the request allocated. Pointers
 * from req_alloc() are invalid afterwards; @r and its first chunk stay
 * the caller's.
 */
void req_finish(struct req *r);

/*
 * req_alloc() - @n zeroed bytes, aligned for any type, living until
 * req_finish(). NULL only when malloc fails. req_alloc_raw(): the same,
 * not zeroed (for buffers that are written before they are read).
 */
void *req_alloc(struct req *r, size_t n);
void *req_alloc_raw(struct req *r, size_t n);

/*
 * req_reply_start() - begin (or begin again) the reply: drop any reply
 * built so far (its payload too) and open segment 0 with @cap bytes of
 * body after REQ_HEAD_ROOM bytes of head room. Returns the body's first
 * byte, or NULL when out of memory.
 */
uint8_t *req_reply_start(struct req *r, size_t cap);

/*
 * req_reply_used() - the open segment holds @used bytes (<= its
 * capacity); call when its encoder is done with it.
 */
void req_reply_used(struct req *r, size_t used);

/*
 * req_reply_extend() - close the open segment at @used bytes and open a
 * new one of @cap bytes, returned (NULL when out of memory or segments;
 * then the open segment is unchanged). Bytes written to earlier segments
 * stay where they are.
 */
uint8_t *req_reply_extend(struct req *r, size_t used, size_t cap);

/*
 * req_reply_prepend() - @n bytes in front of everything written so far
 * (header room), returned for the caller to fill; NULL when the room is
 * used up or no reply was started.
 */
uint8_t *req_reply_prepend(struct req *r, size_t n);

/*
 * req_reply_set_payload() - the reply ends with payload @p followed by
 * @pad zero bytes (0..7). Ownership of @p's reference passes to the
 * request (*@p becomes PAYLOAD_NONE); a payload set before is released.
 */
void req_reply_set_payload(struct req *r, struct payload *p, uint32_t pad);

/* req_reply_drop_payload() - release the reply's payload, if any. */
void req_reply_drop_payload(struct req *r);

/* req_reply_len() - bytes of the whole reply: head, body, payload, pad. */
size_t req_reply_len(const struct req *r);

/* req_reply_body_len() - bytes of the body segments alone. */
size_t req_reply_body_len(const struct req *r);

/*
 * req_reply_copy() - copy @len bytes of the reply, starting @from bytes
 * after its first byte (the first header byte prepended so far, else the
 * body's), into @dst: head, body, then a buffer payload and its padding.
 * Returns the bytes copied (fewer at the end of the reply), or -EINVAL
 * when the range reaches a file-range payload (payload_fill() it first).
 */
ssize_t req_reply_copy(const struct req *r, size_t from, void *dst,
		       size_t len);

/*
 * req_reply_iov() - the reply as iovecs for one gathered send: @iov (room
 * for REQ_MAX_IOV) gets head + segment 0, the other segments, the
 * payload and its padding, skipping empty pieces; a file-range payload
 * appears as an iovec with a NULL base (its length in iov_len), which the
 * sender handles itself. Returns the number of iovecs.
 */
int req_reply_iov(const struct req *r, struct iovec *iov);

#endif
