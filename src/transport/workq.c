/* SPDX-License-Identifier: MIT */
/*
 * Worker pool: the one hand-off of a request between threads. Loops push
 * a batch of calls under one lock acquisition and wake at most as many
 * idle workers as there are new calls.
 */
#include "transport/xprt.h"

#include <errno.h>
#include <stdlib.h>

#include "core/log.h"

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct xcall *head;
	struct xcall *tail;
	unsigned int idle;
	bool stop;
	pthread_t *threads;
	unsigned int nthreads;
} wq = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER,
};

static void *workq_main(void *arg)
{
	struct xcall *xc;

	(void)arg;
	for (;;) {
		pthread_mutex_lock(&wq.lock);
		while (!wq.head && !wq.stop) {
			wq.idle++;
			pthread_cond_wait(&wq.cond, &wq.lock);
			wq.idle--;
		}
		xc = wq.head;
		if (!xc) {
			pthread_mutex_unlock(&wq.lock);
			break;
		}
		wq.head = xc->next;
		if (!wq.head)
			wq.tail = NULL;
		pthread_mutex_unlock(&wq.lock);
		xc->next = NULL;
		xcall_run(xc);
	}
	return NULL;
}

/*
 * workq_push() - queue @n calls linked head..tail; ownership passes to the
 * pool.
 */
void workq_push(struct xcall *head, struct xcall *tail, unsigned int n)
{
	unsigned int wake;

	tail->next = NULL;
	pthread_mutex_lock(&wq.lock);
	if (wq.tail)
		wq.tail->next = head;
	else
		wq.head = head;
	wq.tail = tail;
	wake = n < wq.idle ? n : wq.idle;
	if (wake >= wq.idle && wake > 1)
		pthread_cond_broadcast(&wq.cond);
	else
		while (wake--)
			pthread_cond_signal(&wq.cond);
	pthread_mutex_unlock(&wq.lock);
}

/* workq_start() - start @nworkers threads. Returns 0 or -errno. */
int workq_start(unsigned int nworkers)
{
	unsigned int i;
	int ret;

	wq.stop = false;
	wq.threads = calloc(nworkers, sizeof(*wq.threads));
	if (!wq.threads)
		return -ENOMEM;
	for (i = 0; i < nworkers; i++) {
		ret = pthread_create(&wq.threads[i], NULL, workq_main, NULL);
		if (ret) {
			log_err("transport: cannot start worker: %d", ret);
			wq.nthreads = i;
			workq_stop();
			return -ret;
		}
	}
	wq.nthreads = nworkers;
	return 0;
}

/*
 * workq_stop() - let the workers finish every queued call, then join
 * them.
 */
void workq_stop(void)
{
	unsigned int i;

	pthread_mutex_lock(&wq.lock);
	wq.stop = true;
	pthread_cond_broadcast(&wq.cond);
	pthread_mutex_unlock(&wq.lock);
	for (i = 0; i < wq.nthreads; i++)
		pthread_join(wq.threads[i], NULL);
	free(wq.threads);
	wq.threads = NULL;
	wq.nthreads = 0;
}
