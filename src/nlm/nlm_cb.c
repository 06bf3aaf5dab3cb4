// SPDX-License-Identifier: MIT
/*
 * The callback thread: the calls nasd makes to its NLM clients (GRANTED,
 * the *_RES messages) and their statds (SM_NOTIFY), over TCP (a client
 * behind NAT may take no UDP back, see kclient's README). Each call
 * first asks the port mapper at the client's address for the program's
 * port, then connects, calls and waits for the reply; a failed call is
 * tried again a second later, then two, up to its tries.
 *
 * The queue is a list under cb_mu sorted by due time, bounded by
 * NLM_CB_QUEUE_MAX. Jobs are run one at a time: a slow client delays the
 * others by at most the call timeout.
 */
#include <errno.h>
#include <stdatomic.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/addr.h"
#include "core/log.h"
#include "nlm/nlm_int.h"
#include "rpc/pmap.h"
#include "rpc/rpc_clnt.h"

#define CB_TIMEOUT_MS 3000

static pthread_mutex_t cb_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cb_cv;
static struct nlm_cb *cb_queue;
static unsigned int cb_len;
/* callbacks answered / given up on (nasd stats) */
static atomic_uint_fast64_t cb_done_n, cb_failed_n;
static bool cb_running, cb_stopping;
static pthread_t cb_thread;

static uint64_t cb_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Under cb_mu: insert @cb by due time. */
static void cb_insert(struct nlm_cb *cb)
{
	struct nlm_cb **pp = &cb_queue;

	while (*pp && (*pp)->due_ms <= cb->due_ms)
		pp = &(*pp)->next;
	cb->next = *pp;
	*pp = cb;
	cb_len++;
	pthread_cond_signal(&cb_cv);
}

/** nlm_cb_send() - see nlm_int.h. */
int nlm_cb_send(const struct sockaddr_storage *addr, uint32_t prog,
		uint32_t vers, uint32_t proc, const uint8_t *args, size_t alen,
		uint32_t tries, nlm_cb_done done, void *arg)
{
	struct nlm_cb *cb;

	cb = calloc(1, sizeof(*cb) + alen);
	if (!cb)
		return -ENOMEM;
	cb->addr = *addr;
	cb->prog = prog;
	cb->vers = vers;
	cb->proc = proc;
	cb->tries = tries ? tries : 1;
	cb->due_ms = cb_now_ms();
	cb->done = done;
	cb->arg = arg;
	cb->alen = alen;
	memcpy(cb->args, args, alen);
	pthread_mutex_lock(&cb_mu);
	if (cb_len >= NLM_CB_QUEUE_MAX || !cb_running) {
		pthread_mutex_unlock(&cb_mu);
		free(cb);
		return -ENOSPC;
	}
	cb_insert(cb);
	pthread_mutex_unlock(&cb_mu);
	return 0;
}

static int cb_call(struct nlm_cb *cb, uint8_t *res, size_t *len)
{
	struct sockaddr_storage a = cb->addr;
	int port;

	port = rpc_clnt_getport(&a, nlm_config.client_rpcbind_port, cb->prog,
				cb->vers, IPPROTO_TCP_PMAP, CB_TIMEOUT_MS);
	if (port < 0)
		return port;
	addr_set_port(&a, (uint16_t)port);
	return rpc_clnt_call(&a, cb->prog, cb->vers, cb->proc, cb->args,
			     cb->alen, res, RPC_CLNT_REPLY_MAX, len,
			     CB_TIMEOUT_MS);
}

static void *cb_main(void *unused)
{
	static uint8_t res[RPC_CLNT_REPLY_MAX];
	struct timespec ts;
	struct nlm_cb *cb;
	uint64_t now;
	size_t len;
	int err;

	(void)unused;
	pthread_mutex_lock(&cb_mu);
	while (!cb_stopping) {
		now = cb_now_ms();
		if (!cb_queue || cb_queue->due_ms > now) {
			if (!cb_queue) {
				pthread_cond_wait(&cb_cv, &cb_mu);
				continue;
			}
			clock_gettime(CLOCK_MONOTONIC, &ts);
			ts.tv_sec += (time_t)((cb_queue->due_ms - now) / 1000);
			ts.tv_nsec += (long)((cb_queue->due_ms - now) % 1000) *
				      1000000;
			if (ts.tv_nsec >= 1000000000) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000;
			}
			pthread_cond_timedwait(&cb_cv, &cb_mu, &ts);
			continue;
		}
		cb = cb_queue;
		cb_queue = cb->next;
		cb_len--;
		pthread_mutex_unlock(&cb_mu);
		len = 0;
		err = cb_call(cb, res, &len);
		pthread_mutex_lock(&cb_mu);
		if (err < 0 && --cb->tries && !cb_stopping) {
			/* 1 s, 2 s, 4 s, ... between the tries */
			cb->due_ms =
				cb_now_ms() +
				1000u * (1u << (cb->tries > 4 ? 0
							      : 4 - cb->tries));
			cb_insert(cb);
			continue;
		}
		pthread_mutex_unlock(&cb_mu);
		atomic_fetch_add(err < 0 ? &cb_failed_n : &cb_done_n, 1);
		if (cb->done)
			cb->done(cb, err, res, len);
		free(cb);
		pthread_mutex_lock(&cb_mu);
	}
	pthread_mutex_unlock(&cb_mu);
	return NULL;
}

/** nlm_cb_counts() - callbacks answered and given up on, so far. */
void nlm_cb_counts(uint64_t *done, uint64_t *failed)
{
	*done = atomic_load(&cb_done_n);
	*failed = atomic_load(&cb_failed_n);
}

/** nlm_cb_start() - start the callback thread. 0 or -errno. */
int nlm_cb_start(void)
{
	pthread_condattr_t ca;
	int ret;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&cb_cv, &ca);
	pthread_condattr_destroy(&ca);
	cb_running = true;
	ret = pthread_create(&cb_thread, NULL, cb_main, NULL);
	if (ret) {
		cb_running = false;
		return -ret;
	}
	return 0;
}

/** nlm_cb_stop() - stop the thread; calls still queued are dropped. */
void nlm_cb_stop(void)
{
	struct nlm_cb *cb;

	pthread_mutex_lock(&cb_mu);
	if (!cb_running) {
		pthread_mutex_unlock(&cb_mu);
		return;
	}
	cb_stopping = true;
	pthread_cond_signal(&cb_cv);
	pthread_mutex_unlock(&cb_mu);
	pthread_join(cb_thread, NULL);
	pthread_mutex_lock(&cb_mu);
	cb_running = false;
	while ((cb = cb_queue)) {
		cb_queue = cb->next;
		cb_len--;
		pthread_mutex_unlock(&cb_mu);
		if (cb->done)
			cb->done(cb, -ECANCELED, NULL, 0);
		free(cb);
		pthread_mutex_lock(&cb_mu);
	}
	pthread_mutex_unlock(&cb_mu);
}
