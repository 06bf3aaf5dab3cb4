/* SPDX-License-Identifier: MIT */
#ifndef NASD_TRANSPORT_XPRT_H
#define NASD_TRANSPORT_XPRT_H

/* Private to src/transport/: loops, connections, calls, worker queue. */

#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "core/req.h"
#include "transport/frame.h"
#include "transport/transport.h"

#define XREQ_ARENA (16 * 1024)   /* first arena chunk, inside the request */
#define XREQ_MSG_INLINE 2048     /* messages up to this are copied in it */
#define XREQ_SPARES 2            /* request objects kept per connection */
#define LOOP_STAGE (64 * 1024)   /* per-loop receive staging buffer */
#define LOOP_MAX_EVENTS 128
#define LOOP_INLINE_MAX 64       /* calls run inline per loop round */

enum ep_kind {
	EP_CONN = 1,
	EP_LISTENER,
};

/*
 * One request in flight: the protocol-neutral request, its message and
 * its send state. Owned by the loop until queued, then by a worker, then
 * (if the socket was full) by the connection's send queue; freed by
 * xreq_free().
 */
/* A parked request (REQ_PARK) and its resumption meet here. */
enum {
	XREQ_PARK_NONE = 0,   /* running, or not parked */
	XREQ_PARK_PARKED,     /* process() answered REQ_PARK */
	XREQ_PARK_RESUMED,    /* transport_req_resume() came first */
};

struct xreq {
	struct req req;
	struct xreq *next;
	struct iobuf *msg_buf; /* pooled buffer holding req.msg, or NULL */
	int iov_first;
	int iov_cnt;
	/* The reply's pieces; one with iov_base NULL is the file range. */
	struct iovec iov[REQ_MAX_IOV];
	int file_fd;	      /* the reply's file-range payload, */
	uint64_t file_off;    /* where its unsent part starts */
	uint32_t arena_off;   /* the arena starts here (after a small msg) */
	atomic_int park;      /* XREQ_PARK_*: a parked request's hand-back */
	alignas(max_align_t) uint8_t arena[XREQ_ARENA];
};

struct loop;

struct conn {
	enum ep_kind kind;    /* EP_CONN; first, for epoll dispatch */
	int fd;
	struct loop *loop;
	const struct transport_proto *proto; /* the listener's */
	void *priv;           /* the protocol's per-connection state */
	bool proto_up;        /* conn_init succeeded: close/free hooks due */
	struct frame_ops fops; /* the decoder's view of proto */
	atomic_uint max_inflight; /* per connection (protocol may change) */
	atomic_uint max_msg;  /* the decoder's limit, as the protocol set it */
	atomic_int refs;      /* the loop's (until closed) + one per call */
	atomic_uint inflight; /* calls alive */
	/* ...of which parked by their protocol (REQ_PARK), waiting on
	 * someone else: at stop they do not keep the connection open */
	atomic_uint parked;
	atomic_bool paused;   /* reading stopped at max_inflight */
	atomic_bool closed;   /* set under @lock */
	atomic_bool has_sendq;
	atomic_bool cut;      /* transport_conn_shutdown(): loop closes */
	atomic_size_t sendq_bytes; /* unsent reply bytes queued, under @lock */

	/* Send side: fd writes, the send queue and @closed. */
	pthread_mutex_t lock;
	struct xreq *sendq_head;
	struct xreq *sendq_tail;
	_Atomic(struct xreq *) spare[XREQ_SPARES];

	/* Owned by the loop thread. */
	bool mem_paused;      /* reading stopped by the memory ceiling */
	bool bulk;            /* last message was large: read headers small */
	unsigned int inl_pending; /* calls on the loop's inline list */
	bool corked;          /* an inline reply went with MSG_MORE */
	struct frame_decoder dec;
	uint8_t *stash;       /* bytes read but not decoded while paused */
	size_t stash_off;
	size_t stash_len;
	struct conn *prev;
	struct conn *next;
	uint64_t last_active;
	uint64_t rec_start;   /* loop s of a pending message's first read */
	bool spoke;           /* sent at least one byte */
	bool sendq_paused;    /* reading stopped: replies not being read */
	/* loop s since when the send queue has been over max_sendq and
	 * not moved (0: it is not); conn_expired cuts it at record_timeout */
	uint64_t sendq_full_at;

	/* Loop inbox links, under loop->inbox_lock. */
	struct conn *new_next;
	struct conn *resume_next;
	bool resume_queued;

	struct sockaddr_storage peer;
	struct sockaddr_storage local;
	socklen_t peer_len;
	socklen_t local_len;
	bool privileged;
};

struct listener {
	enum ep_kind kind;    /* EP_LISTENER */
	int fd;
	const struct transport_proto *proto;
	bool paused;          /* accept failed for lack of fds */
	uint64_t resume_at;
	struct sockaddr_storage addr;
	socklen_t addr_len;
};

struct loop {
	pthread_t thread;
	unsigned int idx;
	int epfd;
	int evfd;             /* wakes the loop: inbox, stop, memory */
	atomic_bool mem_relief; /* memory freed: resume mem_paused conns */
	pthread_mutex_t inbox_lock;
	struct conn *new_head;
	struct conn *resume_head;
	/*
	 * Connections given to this loop and not yet closed: counted by the
	 * acceptor when it picks the loop, so that the next accept sees it.
	 */
	atomic_uint nconns;
	/* loop-owned */
	struct conn *conns;
	/* where the next memory relief begins resuming (loop_mem_resume) */
	struct conn *resume_at;
	struct conn *zombies; /* closed this round, put after it */
	struct xreq *batch_head;
	struct xreq *batch_tail;
	unsigned int nbatch;
	/* Requests to run on this thread after the round's reads (workq.c). */
	struct xreq *inl_head;
	struct xreq *inl_tail;
	unsigned int ninl;
	uint64_t now;         /* monotonic seconds, per iteration */
	uint8_t stage[LOOP_STAGE];
};

struct transport {
	struct transport_limits lim;
	unsigned int nloops;
	unsigned int nworkers;
	struct loop *loops;
	struct listener listeners[TRANSPORT_MAX_LISTENERS];
	unsigned int nlisteners;
	atomic_uint nconns;
	atomic_uint inflight_total; /* requests read, not yet answered */
	atomic_bool total_paused;   /* at lim.max_inflight_total */
	atomic_uint rr;
	atomic_bool stopping;
	int stop_fd;
};

extern struct transport xprt;

/* conn.c */
struct conn *conn_new(int fd, const struct sockaddr_storage *peer,
		      socklen_t peer_len, const struct transport_proto *proto);
void conn_put(struct conn *c);
void conn_read(struct loop *lp, struct conn *c);
void conn_flush(struct loop *lp, struct conn *c);
void conn_close(struct loop *lp, struct conn *c);
void xreq_run(struct xreq *xr);
void xreq_free(struct xreq *xr);
bool xreq_run_inline(struct xreq *xr, bool more);
void xreq_uncork(struct conn *c);

/* transport.c */
void loop_post_resume(struct conn *c);
void transport_mem_relief(void);
void loop_flush_batch(struct loop *lp);
void xprt_host(const struct sockaddr_storage *ss, char *buf, size_t len);
int client_conn_add(const struct sockaddr_storage *peer);
void client_conn_del(const struct sockaddr_storage *peer);
void transport_total_done(unsigned int n);

/* workq.c */
int workq_start(unsigned int nworkers);
void workq_push(struct xreq *head, struct xreq *tail, unsigned int n);
void workq_stop(void);
void loop_run_inline(struct loop *lp);

#endif
