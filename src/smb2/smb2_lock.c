// SPDX-License-Identifier: MIT
/*
 * LOCK (MS-SMB2 §2.2.26, §2.2.27, §3.3.5.14; MS-FSA 2.1.5.7, 2.1.5.8):
 * byte-range locks with Windows semantics in the shared file state
 * (state/), so that NFSv4 and NLM locks and SMB locks conflict across
 * protocols. The holder is the open (locks belong to a handle).
 *
 *  - An unlock request is all unlocks: each must match one lock exactly
 *    (STATUS_RANGE_NOT_LOCKED otherwise; those before it stay undone).
 *  - A lock request of several elements must fail immediately on
 *    conflict; its elements are taken in order and, when one conflicts,
 *    the ones taken are given back: all or nothing.
 *  - A single lock without FAIL_IMMEDIATELY that conflicts waits: the
 *    request goes asynchronous (STATUS_PENDING) and is retried from a
 *    timer until it is granted, cancelled (STATUS_CANCELLED) or its open
 *    goes (STATUS_RANGE_NOT_LOCKED). No thread waits for it.
 */
#include "smb2/smb2_int.h"

#include <stdlib.h>

#include "core/timer.h"
#include "smb2/smb2_async.h"
#include "smb2/smb2_open.h"
#include "state/file_state.h"

#define SMB2_LOCKFLAG_SHARED_LOCK 0x01u
#define SMB2_LOCKFLAG_EXCLUSIVE_LOCK 0x02u
#define SMB2_LOCKFLAG_UNLOCK 0x04u
#define SMB2_LOCKFLAG_FAIL_IMMEDIATELY 0x10u
#define LOCK_ELEMENT_LEN 24
/* A waiting lock is tried again this often. */
#define LOCK_RETRY_MS 50

struct lock_elem {
	struct state_range r;
	bool excl;
	bool unlock;
	uint32_t st;  /* its decoding: bad flags are found in turn */
};

/* A waiting lock: what to try again, and its lock sequence (0: none). */
struct lock_wait {
	struct lock_elem e;
	uint32_t seq;
};

/*
 * Lock sequence verification (MS-SMB2 §3.3.5.14): for a durable open (a
 * client may resend after a reconnect) and on a connection that could
 * have resent the request over another channel (3.x with multichannel;
 * resilient opens are not served), LockSequence
 * holds an index (1..64) and a 4-bit number; a request whose index holds
 * its number already was done before, and is answered success without
 * running again. lock_seq_index() is the index to use, 0 for none.
 */
static unsigned int lock_seq_index(const struct smb2_work *w,
				   const struct smb2_open *o, uint32_t seq)
{
	uint32_t index = seq >> 4;
	bool verify;

	pthread_mutex_lock(&w->conn->mu);
	verify = w->conn->dialect >= SMB2_DIALECT_0300 &&
		 (w->conn->server_caps & SMB2_GLOBAL_CAP_MULTI_CHANNEL);
	pthread_mutex_unlock(&w->conn->mu);
	verify = verify || atomic_load(&o->durable);
	return verify && index >= 1 && index <= SMB2_LOCK_SEQUENCES ? index
								     : 0;
}

/* Was the request with @seq done already? Else its entry is invalid
 * until it succeeds. */
static bool lock_seq_replay(struct smb2_open *o, unsigned int index,
			    uint32_t seq)
{
	uint64_t bit = 1ull << (index - 1);
	bool done;

	pthread_mutex_lock(&o->mu);
	done = (o->lock_seq_valid & bit) &&
	       o->lock_seq[index - 1] == (seq & 0xF);
	if (!done)
		o->lock_seq_valid &= ~bit;
	pthread_mutex_unlock(&o->mu);
	return done;
}

static void lock_seq_done(struct smb2_open *o, unsigned int index,
			  uint32_t seq)
{
	if (!index)
		return;
	pthread_mutex_lock(&o->mu);
	o->lock_seq[index - 1] = (uint8_t)(seq & 0xF);
	o->lock_seq_valid |= 1ull << (index - 1);
	pthread_mutex_unlock(&o->mu);
}

static const uint8_t lock_ok_body[4] = { 4, 0, 0, 0 };

static int lock_try(struct smb2_open *o, const struct lock_elem *e)
{
	struct state_holder h = { .id = o, .tag = STATE_HOLDER_SMB };
	int err = state_lock(o->sf, &h, &e->r, e->excl, NULL, NULL);

	/* a courtesy NFSv4 client's lock, being expired: a conflict, which
	 * a lock with a timeout waits out */
	return err == -EINPROGRESS ? -EAGAIN : err;
}

static void lock_retry(struct timer *t);

static void lock_arm(struct smb2_async *a)
{
	smb2_async_get(a); /* the timer's */
	if (timer_arm(&a->timer, LOCK_RETRY_MS, lock_retry, a) < 0) {
		smb2_async_put(a);
		(void)smb2_async_complete(a, STATUS_INSUFFICIENT_RESOURCES,
					  NULL, 0);
	}
}

static void lock_retry(struct timer *t)
{
	struct smb2_async *a = t->arg;
	struct lock_wait *lw = a->priv;
	int err;

	if (atomic_load(&a->state) == SMB2_ASYNC_PENDING) {
		/* Under o->mu against the open's close (smb2_open.c). */
		pthread_mutex_lock(&a->open->mu);
		err = atomic_load(&a->open->dead) ? -EBADF
						  : lock_try(a->open, &lw->e);
		pthread_mutex_unlock(&a->open->mu);
		if (err == 0) {
			lock_seq_done(a->open, lw->seq >> 4, lw->seq);
			if (!smb2_async_complete(a, STATUS_SUCCESS,
						 lock_ok_body,
						 sizeof(lock_ok_body))) {
				/* Ended meanwhile: the lock is not wanted. */
				struct state_holder h = {
					.id = a->open,
					.tag = STATE_HOLDER_SMB,
				};

				(void)state_unlock(a->open->sf, &h, &lw->e.r);
			}
		} else if (err == -EAGAIN) {
			lock_arm(a);
		} else {
			(void)smb2_async_complete(
				a, smb2_status(SMB2_LOCK, err), NULL, 0);
		}
	}
	smb2_async_put(a); /* the timer's */
}

static uint32_t lock_stop(struct smb2_async *a, enum smb2_async_why why)
{
	if (timer_cancel(&a->timer))
		smb2_async_put(a); /* the timer's */
	/* §3.3.5.14: a lock whose open went is not granted. */
	return why == SMB2_ASYNC_CLOSED ? STATUS_RANGE_NOT_LOCKED : 0;
}

static const struct smb2_async_ops lock_ops = {
	.stop = lock_stop,
};

/* Decode element @i at @b's position. */
static uint32_t elem_decode(struct smb2_buf *b, bool *unlock, bool *fail_now,
			    struct lock_elem *e)
{
	uint64_t off, len;
	uint32_t flags;

	if (!sb_get_u64(b, &off) || !sb_get_u64(b, &len) ||
	    !sb_get_u32(b, &flags) || !sb_skip(b, 4))
		return STATUS_INVALID_PARAMETER;
	*unlock = flags == SMB2_LOCKFLAG_UNLOCK;
	*fail_now = flags & SMB2_LOCKFLAG_FAIL_IMMEDIATELY;
	flags &= ~SMB2_LOCKFLAG_FAIL_IMMEDIATELY;
	if (!*unlock && flags != SMB2_LOCKFLAG_SHARED_LOCK &&
	    flags != SMB2_LOCKFLAG_EXCLUSIVE_LOCK)
		return STATUS_INVALID_PARAMETER;
	e->excl = flags == SMB2_LOCKFLAG_EXCLUSIVE_LOCK;
	if (state_range_win(off, len, &e->r))
		return STATUS_INVALID_LOCK_RANGE;
	return STATUS_SUCCESS;
}

uint32_t smb2_cmd_lock(struct smb2_work *w, struct smb2_buf *body)
{
	struct state_holder h = { .tag = STATE_HOLDER_SMB };
	struct lock_elem *el;
	struct smb2_open *o;
	struct smb2_async *a;
	struct lock_wait *lw;
	uint16_t ssize, count, i, taken = 0;
	uint32_t seq, st = STATUS_SUCCESS;
	unsigned int seq_index;
	uint64_t p, v;
	bool unlock = false, first_unlock = false, fail_now = false;
	bool all_fail_now = true;
	int err;

	if (!sb_get_u16(body, &ssize) || !sb_get_u16(body, &count) ||
	    !sb_get_u32(body, &seq) || !sb_get_u64(body, &p) ||
	    !sb_get_u64(body, &v))
		return STATUS_INVALID_PARAMETER;
	if (!count || sb_remaining(body) / LOCK_ELEMENT_LEN < count)
		return STATUS_INVALID_PARAMETER;
	/* The open first: a closed FileId is FILE_CLOSED whatever its
	 * elements say (smbtorture lock.valid-request). */
	st = smb2_open_lookup(w, p, v, &o);
	if (st != STATUS_SUCCESS)
		return st;
	seq_index = lock_seq_index(w, o, seq);
	if (seq_index && lock_seq_replay(o, seq_index, seq))
		goto out_reply;
	h.id = o;
	el = req_alloc(w->req, (size_t)count * sizeof(*el));
	if (!el) {
		st = STATUS_INSUFFICIENT_RESOURCES;
		goto out_put;
	}
	for (i = 0; i < count; i++) {
		el[i].st = elem_decode(body, &unlock, &fail_now, &el[i]);
		el[i].unlock = unlock;
		if (i == 0)
			first_unlock = unlock;
		if (!fail_now)
			all_fail_now = false;
	}
	if (el[0].st != STATUS_SUCCESS) {
		st = el[0].st;
		goto out_put;
	}
	if (!first_unlock && count > 1 && !all_fail_now) {
		st = STATUS_INVALID_PARAMETER;
		goto out_put;
	}
	/* §3.3.5.14.1: the elements run in order; a lock or a malformed
	 * element among unlocks fails the request there, the unlocks
	 * before it stay done (smbtorture lock.multiple-unlock,
	 * valid-request). */
	if (first_unlock) {
		for (i = 0; i < count; i++) {
			if (el[i].st != STATUS_SUCCESS || !el[i].unlock) {
				st = el[i].st != STATUS_SUCCESS
					     ? el[i].st
					     : STATUS_INVALID_PARAMETER;
				goto out_put;
			}
			err = state_unlock(o->sf, &h, &el[i].r);
			if (err) {
				st = STATUS_RANGE_NOT_LOCKED;
				goto out_put;
			}
		}
		goto out_reply;
	}
	/* Locking breaks level II oplocks, the locker's own too (MS-FSA
	 * 2.1.5.7; smbtorture oplock.brl1). */
	st = smb2_open_break(w, o, STATE_OP_WRITE);
	if (st != STATUS_SUCCESS)
		goto out_put;
	/* §3.3.5.14.2: an unlock among locks fails the request, and the
	 * locks it took go back like those of a lock that conflicts. */
	for (taken = 0; taken < count; taken++) {
		if (el[taken].st != STATUS_SUCCESS || el[taken].unlock) {
			st = el[taken].st != STATUS_SUCCESS
				     ? el[taken].st
				     : STATUS_INVALID_PARAMETER;
			err = -EINVAL;
			break;
		}
		err = lock_try(o, &el[taken]);
		if (err)
			break;
	}
	if (taken == count)
		goto out_reply;
	/* All or nothing: what this request took goes back. */
	for (i = 0; i < taken; i++)
		(void)state_unlock(o->sf, &h, &el[i].r);
	if (err == -EINVAL && st != STATUS_SUCCESS)
		goto out_put;
	if (err != -EAGAIN || all_fail_now) {
		st = smb2_status(SMB2_LOCK, err);
		goto out_put;
	}
	/* One blocking lock that conflicts: wait for it. */
	lw = malloc(sizeof(*lw));
	if (!lw) {
		st = STATUS_INSUFFICIENT_RESOURCES;
		goto out_put;
	}
	lw->e = el[0];
	lw->seq = seq_index ? seq : 0;
	a = smb2_async_start(w, o, &lock_ops, lw);
	if (!a) {
		free(lw);
		st = STATUS_INSUFFICIENT_RESOURCES;
		goto out_put;
	}
	lock_arm(a);
	st = STATUS_PENDING;
	goto out_put;
out_reply:
	lock_seq_done(o, seq_index, seq);
	if (!sb_put_bytes(&w->rsp, lock_ok_body, sizeof(lock_ok_body)))
		st = STATUS_INSUFFICIENT_RESOURCES;
out_put:
	smb2_open_put(o);
	return st;
}
