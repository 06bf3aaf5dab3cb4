/* SPDX-License-Identifier: MIT */
#ifndef NASD_SMB2_SMB2_ASYNC_H
#define NASD_SMB2_SMB2_ASYNC_H

/*
 * Asynchronous operations (smb2_async.c): an interim STATUS_PENDING now,
 * the final response later from whatever thread completes it.
 *
 * A handler that must wait calls smb2_async_start() and returns
 * STATUS_PENDING: the engine then sends the interim response (AsyncId,
 * credits, unsigned, §3.3.4.2). Later exactly one smb2_async_complete()
 * sends the final response; CANCEL, CLOSE of the open, LOGOFF and the
 * connection closing end it through the command's ops->stop first.
 */

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/timer.h"
#include "smb2/smb2_int.h"

enum smb2_async_state {
	SMB2_ASYNC_PENDING = 0,
	SMB2_ASYNC_DONE,
};

/* Why an operation is being ended from outside. */
enum smb2_async_why {
	SMB2_ASYNC_CANCEL,  /* CANCEL: STATUS_CANCELLED */
	SMB2_ASYNC_CLOSED,  /* its open, tree or session went */
	SMB2_ASYNC_GONE,    /* the connection closed: nothing is sent */
};

struct smb2_async;

struct smb2_async_ops {
	/* Before the engine completes @a for @why: stop what would
	 * complete it (disarm a timer) and return the status to answer,
	 * 0 for the default (STATUS_CANCELLED; STATUS_NOTIFY_CLEANUP for
	 * a CHANGE_NOTIFY whose open went). May be NULL. */
	uint32_t (*stop)(struct smb2_async *a, enum smb2_async_why why);
	/* At the last reference, before @priv is freed. May be NULL. */
	void (*release)(struct smb2_async *a);
};

struct smb2_async {
	uint64_t id;                  /* AsyncId, unique on the connection */
	atomic_int refs;
	atomic_int state;             /* enum smb2_async_state */
	struct smb2_async *next;      /* smb2_conn.asyncs; conn.mu */
	struct smb2_conn *conn;
	struct conn *tconn;           /* referenced */
	struct smb2_session *sess;    /* referenced: its key signs */
	struct smb2_chan *chan;       /* referenced: a bound channel's key
				       * signs instead */
	struct smb2_open *open;       /* referenced */
	uint16_t command;
	uint16_t credit_charge;       /* the request's, echoed (§3.3.4.3) */
	uint64_t message_id;
	uint64_t session_id;
	bool sign;                    /* sign the final response */
	bool seal;                    /* encrypt it with @sess's key */
	const struct smb2_async_ops *ops;
	void *priv;                   /* the command's (malloc'd; freed) */
	struct timer timer;           /* the command's to arm */
};

/*
 * smb2_async_start() - make the current command of @w asynchronous on
 * open @o with @ops and @priv (malloc'd; owned by the operation from
 * here on success, the caller's on failure): w->async_id is set, so the
 * handler's STATUS_PENDING becomes the interim response. The returned
 * operation is on the connection's list (the list's reference); take
 * your own with smb2_async_get() before handing it to a timer. NULL when
 * the command is not the last of its compound, the connection is at
 * SMB2_MAX_ASYNC_PER_CONN or closing, or out of memory: answer
 * STATUS_INSUFFICIENT_RESOURCES (§3.3.4.2 allows it).
 */
struct smb2_async *smb2_async_start(struct smb2_work *w, struct smb2_open *o,
				    const struct smb2_async_ops *ops,
				    void *priv);

/*
 * smb2_async_complete() - send @a's final response with @status and
 * response body @body (@len bytes; NULL: an ERROR body) and take it off
 * its connection. Only the first call does anything (true); any thread.
 */
bool smb2_async_complete(struct smb2_async *a, uint32_t status,
			 const uint8_t *body, size_t len);

void smb2_async_get(struct smb2_async *a);
void smb2_async_put(struct smb2_async *a);

/* End the operations of open @o, of session @s, or all of @c's. */
void smb2_async_end_open(struct smb2_conn *c, struct smb2_open *o);
void smb2_async_end_session(struct smb2_conn *c, struct smb2_session *s);
void smb2_async_end_all(struct smb2_conn *c);

#endif
