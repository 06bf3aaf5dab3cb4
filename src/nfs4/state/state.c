// SPDX-License-Identifier: MIT
/*
 * NFSv4 state: the global tables, the clock, start-up (boot id, server
 * owner, stable records, grace), and the lease reaper thread that expires
 * clients whose lease ran out (RFC 8881 §8.3, RFC 7530 §9.5).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/log.h"
#include "nfs4/state/state_int.h"

struct nfs4_state nfs4_st = {
	.mu = PTHREAD_MUTEX_INITIALIZER,
	.tomb_mu = PTHREAD_MUTEX_INITIALIZER,
	.lease_time = 90,
	.grace_time = 90,
};
static pthread_once_t shards_once = PTHREAD_ONCE_INIT;

static void shards_init(void)
{
	for (int i = 0; i < NFS4_SHARDS; i++) {
		pthread_mutex_init(&nfs4_st.client_hash[i].mu, NULL);
		pthread_mutex_init(&nfs4_st.session_hash[i].mu, NULL);
		pthread_mutex_init(&nfs4_st.stid_hash[i].mu, NULL);
	}
}

static uint64_t (*clock_fn)(void);

/*
 * The coarse clock: leases, grace, recall and probe timeouts are seconds
 * or hundreds of milliseconds long, and it is read several times per
 * COMPOUND (lease renewal, stateid use): its tick (1-4 ms) costs a load,
 * where CLOCK_MONOTONIC reads the TSC (2.8 % of nasd's samples in a
 * 4 KiB NFSv4.1 READ profile).
 */
static uint64_t clock_monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/**
 * nfs4_now_ms() - the state module's clock (monotonic milliseconds, or
 * the test clock set with nfs4_state_set_clock()).
 */
uint64_t nfs4_now_ms(void)
{
	return clock_fn ? clock_fn() : clock_monotonic_ms();
}

/**
 * nfs4_state_set_clock() - for tests: use @now_ms as the clock; NULL
 * restores CLOCK_MONOTONIC.
 */
void nfs4_state_set_clock(uint64_t (*now_ms)(void))
{
	clock_fn = now_ms;
}

/** nfs4_hash_bytes() - FNV-1a over @n bytes at @p. */
uint32_t nfs4_hash_bytes(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint32_t h = 2166136261u;

	while (n--) {
		h ^= *b++;
		h *= 16777619u;
	}
	return h;
}

/** nfs4_next_id() - a fresh 64-bit value for stateids/sessions; no lock. */
uint64_t nfs4_next_id(void)
{
	return atomic_fetch_add(&nfs4_st.next_id, 1) + 1;
}

/**
 * nfs4_princ_of() - the principal of @call for client-record checks: the
 * flavor and, for AUTH_SYS, uid and gid (RFC 8881 §18.35.4 "principal").
 */
void nfs4_princ_of(const struct rpc_call *call, struct nfs4_princ *p)
{
	memset(p, 0, sizeof(*p));
	p->flavor = call->cred.flavor;
	if (call->cred.flavor == AUTH_SYS) {
		p->uid = call->cred.uid;
		p->gid = call->cred.gid;
	}
}

/** nfs4_princ_equal() - same principal? */
bool nfs4_princ_equal(const struct nfs4_princ *a, const struct nfs4_princ *b)
{
	return a->flavor == b->flavor && a->uid == b->uid && a->gid == b->gid;
}

/**
 * nfs4_lease_time() - the lease period in seconds (RFC 8881 §5.8.1.11
 * lease_time attribute).
 */
uint32_t nfs4_lease_time(void)
{
	return nfs4_st.lease_time;
}

/* A 32-bit id that differs on every start: a counter in the state
 * directory when there is one, else random. */
static uint32_t boot_id_load(void)
{
	char path[VFS_PATH_MAX], buf[32];
	uint32_t id = 0;
	ssize_t n;
	int fd;

	if (!nfs4_st.state_dir ||
	    snprintf(path, sizeof(path), "%s/nfs4_boot", nfs4_st.state_dir) >=
		    (int)sizeof(path))
		goto random;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		goto random;
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n > 0) {
		buf[n] = '\0';
		id = (uint32_t)strtoul(buf, NULL, 10);
	}
	id++;
	if (id == 0)
		id = 1;
	n = snprintf(buf, sizeof(buf), "%u\n", id);
	if (ftruncate(fd, 0) < 0 || pwrite(fd, buf, (size_t)n, 0) != n ||
	    fsync(fd) < 0) {
		close(fd);
		goto random;
	}
	close(fd);
	return id;
random:
	if (getrandom(&id, sizeof(id), 0) != sizeof(id))
		id = (uint32_t)time(NULL) ^ (uint32_t)getpid();
	return id ? id : 1;
}

/* server_owner / server_scope: random once, then kept in the state
 * directory so that clients see the same server after a restart. */
static void server_owner_load(void)
{
	char path[VFS_PATH_MAX], tmp[VFS_PATH_MAX + 8];
	int fd;

	if (nfs4_st.state_dir &&
	    snprintf(path, sizeof(path), "%s/nfs4_server_owner",
		     nfs4_st.state_dir) < (int)sizeof(path)) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			ssize_t n = read(fd, nfs4_st.server_owner,
					 sizeof(nfs4_st.server_owner));

			close(fd);
			if (n == (ssize_t)sizeof(nfs4_st.server_owner))
				return;
		}
	}
	if (getrandom(nfs4_st.server_owner, sizeof(nfs4_st.server_owner), 0) !=
	    (ssize_t)sizeof(nfs4_st.server_owner)) {
		uint64_t t = (uint64_t)time(NULL);

		memcpy(nfs4_st.server_owner, &t, sizeof(t));
	}
	/* Not to a cut path: the state dir's name may be too long. */
	if (!nfs4_st.state_dir ||
	    snprintf(path, sizeof(path), "%s/nfs4_server_owner",
		     nfs4_st.state_dir) >= (int)sizeof(path))
		return;
	(void)snprintf(tmp, sizeof(tmp), "%s.tmp", path); /* fits: +8 */
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	if (write(fd, nfs4_st.server_owner, sizeof(nfs4_st.server_owner)) ==
		    (ssize_t)sizeof(nfs4_st.server_owner) &&
	    fsync(fd) == 0)
		(void)rename(tmp, path);
	close(fd);
}

/*
 * The state layer's lapsed hook (state_set_lapsed): the NFSv4 holders of
 * shares and locks are opens and lock states, which start with their
 * nfs4_stid (its client immutable).
 */
static bool holder_lapsed(const void *id)
{
	const struct nfs4_stid *s = id;

	return nfs4_client_courtesy_needed(s->client);
}

static void *reaper_main(void *arg)
{
	struct timespec ts;

	(void)arg;
	pthread_mutex_lock(&nfs4_st.mu);
	while (!nfs4_st.stopping) {
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 1;
		pthread_cond_timedwait(&nfs4_st.reaper_cv, &nfs4_st.mu, &ts);
		if (nfs4_st.stopping)
			break;
		pthread_mutex_unlock(&nfs4_st.mu);
		nfs4_state_reap();
		pthread_mutex_lock(&nfs4_st.mu);
	}
	pthread_mutex_unlock(&nfs4_st.mu);
	return NULL;
}

/**
 * nfs4_state_init() - see state.h. Without @state_dir nothing persists
 * and no grace period is needed (no client can have state to reclaim).
 */
int nfs4_state_init(const char *state_dir, uint32_t lease_time,
		    uint32_t grace_time)
{
	int ret;

	if (nfs4_st.inited)
		return -EALREADY;
	pthread_once(&shards_once, shards_init);
	pthread_cond_init(&nfs4_st.reaper_cv, NULL);
	nfs4_list_init(&nfs4_st.clients);
	nfs4_st.lease_time = lease_time ? lease_time : 90;
	nfs4_st.grace_time = grace_time;
	nfs4_st.state_dir = state_dir ? strdup(state_dir) : NULL;
	if (state_dir && !nfs4_st.state_dir)
		return -ENOMEM;
	nfs4_st.boot_id = boot_id_load();
	server_owner_load();
	nfs4_st.next_clientid = 0;
	ret = nfs4_grace_load();
	if (ret < 0) {
		log_warn("nfs4: cannot load client records: %s",
			 strerror(-ret));
	}
	nfs4_st.grace_end = nfs4_now_ms() + (uint64_t)grace_time * 1000;
	atomic_store(&nfs4_st.in_grace, grace_time > 0 && nfs4_st.recs != NULL);
	atomic_store(&nfs4_st.reclaimed_opens, 0);
	atomic_store(&nfs4_st.reclaimed_locks, 0);
	if (atomic_load(&nfs4_st.in_grace))
		log_info("nfs4: grace period of %u s for reclaims",
			 grace_time);
	nfs4_st.stopping = false;
	nfs4_st.inited = true;
	if (pthread_create(&nfs4_st.reaper, NULL, reaper_main, NULL) == 0)
		nfs4_st.reaper_running = true;
	else
		log_warn("nfs4: no lease reaper thread");
	nfs4_cb_start();
	state_set_lapsed(STATE_HOLDER_NFS4, holder_lapsed);
	return 0;
}

/**
 * nfs4_state_shutdown() - stop the reaper and the callback prober and
 * free every client with its state. Stable records stay, for the next
 * start's grace period.
 */
void nfs4_state_shutdown(void)
{
	struct nfs4_list *n;

	if (!nfs4_st.inited)
		return;
	state_set_lapsed(STATE_HOLDER_NFS4, NULL);
	pthread_mutex_lock(&nfs4_st.mu);
	nfs4_st.stopping = true;
	pthread_cond_broadcast(&nfs4_st.reaper_cv);
	pthread_mutex_unlock(&nfs4_st.mu);
	if (nfs4_st.reaper_running)
		pthread_join(nfs4_st.reaper, NULL);
	nfs4_st.reaper_running = false;
	nfs4_cb_stop();

	pthread_mutex_lock(&nfs4_st.mu);
	while (!nfs4_list_empty(&nfs4_st.clients)) {
		n = nfs4_st.clients.next;
		nfs4_client_destroy(
			nfs4_container_of(n, struct nfs4_client, link), false,
			false);
	}
	nfs4_grace_free();
	pthread_mutex_unlock(&nfs4_st.mu);
	pthread_mutex_lock(&nfs4_st.tomb_mu);
	nfs4_st.tomb_count = 0;
	nfs4_st.tomb_next = 0;
	pthread_mutex_unlock(&nfs4_st.tomb_mu);
	free(nfs4_st.state_dir);
	nfs4_st.state_dir = NULL;
	pthread_cond_destroy(&nfs4_st.reaper_cv);
	nfs4_st.inited = false;
}

/**
 * nfs4_state_reap() - expire clients past their lease and free idle
 * open owners without opens (RFC 7530 §9.6: the server may release an
 * owner's state after a lease period without use); end grace on time.
 */
void nfs4_state_reap(void)
{
	struct nfs4_list *n, *next;
	uint64_t now = nfs4_now_ms();
	uint64_t lease = (uint64_t)nfs4_st.lease_time * 1000;

	pthread_mutex_lock(&nfs4_st.mu);
	nfs4_grace_check_end();
	for (n = nfs4_st.clients.next; n != &nfs4_st.clients; n = next) {
		struct nfs4_client *cl =
			nfs4_container_of(n, struct nfs4_client, link);
		struct nfs4_list *o, *onext;

		next = n->next;
		if (nfs4_client_expired(cl)) {
			bool was = atomic_load(&cl->courtesy);

			if (nfs4_client_courtesy_keep(cl, now)) {
				if (!was) {
					atomic_store(&cl->courtesy, true);
					nfs4_st.ncourtesy++;
					log_info("nfs4: client %016llx lease "
						 "expired: its state is kept "
						 "until needed",
						 (unsigned long long)
							 cl->clientid);
				}
				continue;
			}
			log_info("nfs4: client %016llx %s",
				 (unsigned long long)cl->clientid,
				 was ? "expired (its state was needed, or kept "
				       "a day)"
				     : "lease expired");
			nfs4_client_destroy(cl, true, true);
			continue;
		}
		if (atomic_load(&cl->courtesy)) {
			/* it came back (SEQUENCE renewed it) */
			atomic_store(&cl->courtesy, false);
			atomic_store(&cl->expire_now, false);
			nfs4_st.ncourtesy--;
			log_info("nfs4: client %016llx is back within its "
				 "state's courtesy time",
				 (unsigned long long)cl->clientid);
		}
		/* the table's reference keeps it while it is locked */
		nfs4_client_lock(cl);
		for (o = cl->owners.next; o != &cl->owners; o = onext) {
			struct nfs4_owner *ow = nfs4_container_of(
				o, struct nfs4_owner, client_link);

			onext = o->next;
			/* last_used may be newer than @now: requests do not
			 * wait for the reaper */
			if (!ow->is_lock && nfs4_list_empty(&ow->states) &&
			    ow->refs == 0 && now > ow->last_used &&
			    now - ow->last_used > lease)
				nfs4_owner_release(ow);
		}
		pthread_mutex_unlock(&cl->mu);
	}
	pthread_mutex_unlock(&nfs4_st.mu);
	nfs4_grace_flush_forgets();
}

