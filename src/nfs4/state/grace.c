// SPDX-License-Identifier: MIT
/*
 * Restart recovery (RFC 8881 §8.4.2, RFC 7530 §9.6.2): one record per
 * confirmed client in <state_dir>/nfs4_clients/, written with fsync and a
 * directory fsync before the client can hold state. After a restart the
 * records found are the clients allowed to reclaim during the grace
 * period; it ends at --grace-time, or earlier once every known client has
 * sent RECLAIM_COMPLETE (4.1 only: a 4.0 client cannot say it is done).
 *
 * File I/O runs under grace_io_mu, never under nfs4_st.mu (lock order:
 * grace_io_mu, then nfs4_st.mu). The records and the end of grace are
 * under nfs4_st.mu; the checks OPEN and LOCK make take no lock: grace is
 * over once in_grace is false or its time is up (the bookkeeping of the
 * end follows at the next nfs4_grace_check_end(): the reaper's, every
 * second).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/log.h"
#include "nfs4/nfs4_int.h"
#include "nfs4/state/state_int.h"

#define REC_DIR "nfs4_clients"
#define REC_MAGIC "nasd-nfs4-client 1"

static pthread_mutex_t grace_io_mu = PTHREAD_MUTEX_INITIALIZER;

struct forget {
	struct forget *next;
	uint32_t minor;
	uint32_t len;
	uint8_t id[];
};
static struct forget *forgets; /* under nfs4_st.mu */

/*
 * The records are the server's own files: write them with root fs
 * credentials whatever client identity the worker thread carries (the
 * per-thread fsuid/fsgid of vfs_cred_set), and put those back after.
 */
struct fs_ids {
	long uid;
	long gid;
};

static struct fs_ids root_enter(void)
{
	struct fs_ids prev;

	prev.uid = syscall(SYS_setfsuid, 0);
	prev.gid = syscall(SYS_setfsgid, 0);
	return prev;
}

static void root_leave(struct fs_ids prev)
{
	if (prev.gid > 0)
		syscall(SYS_setfsgid, (gid_t)prev.gid);
	if (prev.uid > 0)
		syscall(SYS_setfsuid, (uid_t)prev.uid);
}

static uint64_t rec_hash(uint32_t minor, const uint8_t *id, uint32_t len)
{
	uint64_t h = 14695981039346656037ull;
	uint32_t i;

	h ^= minor ? 1 : 0;
	h *= 1099511628211ull;
	for (i = 0; i < len; i++) {
		h ^= id[i];
		h *= 1099511628211ull;
	}
	return h;
}

static int rec_dir(char *buf, size_t size)
{
	if (!nfs4_st.state_dir)
		return -ENOENT;
	if (snprintf(buf, size, "%s/" REC_DIR, nfs4_st.state_dir) >= (int)size)
		return -ENAMETOOLONG;
	return 0;
}

static int rec_path(char *buf, size_t size, uint32_t minor,
		    const uint8_t *id, uint32_t len)
{
	if (!nfs4_st.state_dir)
		return -ENOENT;
	if (snprintf(buf, size, "%s/" REC_DIR "/%016llx", nfs4_st.state_dir,
		     (unsigned long long)rec_hash(minor, id, len)) >=
	    (int)size)
		return -ENAMETOOLONG;
	return 0;
}

static int fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Parse one record file's contents into a new nfs4_grace_rec. */
static struct nfs4_grace_rec *rec_parse(const char *buf, size_t n)
{
	const char *p = buf, *end = buf + n, *nl;
	struct nfs4_grace_rec *r;
	unsigned long minor;
	size_t hexlen, i;
	char *ep;

	nl = memchr(p, '\n', n);
	if (!nl || (size_t)(nl - p) != strlen(REC_MAGIC) ||
	    memcmp(p, REC_MAGIC, strlen(REC_MAGIC)) != 0)
		return NULL;
	p = nl + 1;
	minor = strtoul(p, &ep, 10);
	if (ep == p || ep >= end || *ep != '\n' || minor > 2)
		return NULL;
	p = ep + 1;
	nl = memchr(p, '\n', (size_t)(end - p));
	if (!nl)
		return NULL;
	hexlen = (size_t)(nl - p);
	if (hexlen % 2 || hexlen / 2 > NFS4_OPAQUE_LIMIT)
		return NULL;
	r = calloc(1, sizeof(*r) + hexlen / 2 + 1);
	if (!r)
		return NULL;
	r->minor = (uint32_t)minor;
	r->len = (uint32_t)(hexlen / 2);
	for (i = 0; i < r->len; i++) {
		int hi = hexval(p[2 * i]), lo = hexval(p[2 * i + 1]);

		if (hi < 0 || lo < 0) {
			free(r);
			return NULL;
		}
		r->id[i] = (uint8_t)(hi << 4 | lo);
	}
	return r;
}

/**
 * nfs4_grace_load() - read the client records of the previous server
 * instance into nfs4_st.recs (creating the directory if needed). 0 or -errno.
 */
int nfs4_grace_load(void)
{
	char dir[VFS_PATH_MAX], path[VFS_PATH_MAX + 300];
	char buf[2 * NFS4_OPAQUE_LIMIT + 64];
	struct dirent *de;
	DIR *d;
	int ret;

	ret = rec_dir(dir, sizeof(dir));
	if (ret < 0)
		return ret == -ENOENT ? 0 : ret;
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return -errno;
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d)) != NULL) {
		struct nfs4_grace_rec *r;
		ssize_t n;
		int fd;

		if (de->d_name[0] == '.')
			continue;
		if (strstr(de->d_name, ".tmp")) {
			(void)snprintf(path, sizeof(path), "%s/%s", dir,
				       de->d_name); /* fits: dir + NAME_MAX */
			unlink(path);
			continue;
		}
		(void)snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf));
		close(fd);
		r = n > 0 ? rec_parse(buf, (size_t)n) : NULL;
		if (!r) {
			log_warn("nfs4: ignoring bad client record %s", path);
			continue;
		}
		r->next = nfs4_st.recs;
		nfs4_st.recs = r;
	}
	closedir(d);
	return 0;
}

/** nfs4_grace_free() - drop the loaded records (not the files). */
void nfs4_grace_free(void)
{
	struct forget *f;

	while (nfs4_st.recs) {
		struct nfs4_grace_rec *r = nfs4_st.recs;

		nfs4_st.recs = r->next;
		free(r);
	}
	while ((f = forgets) != NULL) {
		forgets = f->next;
		free(f);
	}
}

static struct nfs4_grace_rec *rec_find(uint32_t minor, const uint8_t *id,
				       uint32_t len)
{
	struct nfs4_grace_rec *r;

	for (r = nfs4_st.recs; r; r = r->next)
		if ((r->minor == 0) == (minor == 0) && r->len == len &&
		    memcmp(r->id, id, len) == 0)
			return r;
	return NULL;
}

/**
 * nfs4_grace_client_known() - a client record @cl was created: if the
 * previous instance had it, it may reclaim (during grace) and its record
 * is already on disk.
 */
void nfs4_grace_client_known(struct nfs4_client *cl)
{
	struct nfs4_grace_rec *r =
		rec_find(cl->minor, cl->ownerid, cl->ownerid_len);

	if (!r)
		return;
	cl->can_reclaim = atomic_load(&nfs4_st.in_grace);
	r->reclaimed = true;
}

static void queue_forget(uint32_t minor, const uint8_t *id, uint32_t len)
{
	struct forget *f = malloc(sizeof(*f) + len + 1);

	if (!f)
		return;
	f->minor = minor;
	f->len = len;
	memcpy(f->id, id, len);
	f->next = forgets;
	forgets = f;
}

static bool all_complete(void)
{
	struct nfs4_grace_rec *r;

	for (r = nfs4_st.recs; r; r = r->next)
		if (r->minor == 0 || !r->complete)
			return false;
	return true;
}

/**
 * nfs4_grace_check_end() - end grace when its time is up or every known
 * client completed its reclaims; records of clients that did not come
 * back are then removed (queued). Under nfs4_st.mu.
 */
void nfs4_grace_check_end(void)
{
	struct nfs4_grace_rec *r;
	struct nfs4_list *n;

	bool in = atomic_load(&nfs4_st.in_grace);

	if (!in && !nfs4_st.recs)
		return;
	if (in && nfs4_now_ms() < nfs4_st.grace_end && !all_complete())
		return;
	if (in)
		log_info("nfs4: grace period over (%u opens, %u locks "
			 "reclaimed)",
			 atomic_load(&nfs4_st.reclaimed_opens),
			 atomic_load(&nfs4_st.reclaimed_locks));
	atomic_store(&nfs4_st.in_grace, false);
	for (r = nfs4_st.recs; r; r = r->next)
		if (!r->reclaimed)
			queue_forget(r->minor, r->id, r->len);
	for (n = nfs4_st.clients.next; n != &nfs4_st.clients; n = n->next) {
		struct nfs4_client *cl =
			nfs4_container_of(n, struct nfs4_client, link);

		nfs4_client_lock(cl); /* the table's reference keeps it */
		cl->can_reclaim = false;
		pthread_mutex_unlock(&cl->mu);
	}
	while (nfs4_st.recs) {
		r = nfs4_st.recs;
		nfs4_st.recs = r->next;
		free(r);
	}
}

/** nfs4_grace_reclaim_complete() - @cl finished reclaiming. nfs4_st.mu. */
void nfs4_grace_reclaim_complete(struct nfs4_client *cl)
{
	struct nfs4_grace_rec *r =
		rec_find(cl->minor, cl->ownerid, cl->ownerid_len);

	nfs4_client_lock(cl);
	cl->reclaim_complete = true;
	cl->can_reclaim = false;
	pthread_mutex_unlock(&cl->mu);
	if (r)
		r->complete = true;
	nfs4_grace_check_end();
}

/**
 * nfs4_in_grace() - see nfs4/nfs4.h.
 */
bool nfs4_in_grace(void)
{
	bool in;

	if (!atomic_load(&nfs4_st.in_grace))
		return false;
	pthread_mutex_lock(&nfs4_st.mu);
	nfs4_grace_check_end();
	in = atomic_load(&nfs4_st.in_grace);
	pthread_mutex_unlock(&nfs4_st.mu);
	return in;
}

/* Is grace on (not ended, and its time not up)? No lock. */
static bool grace_active(void)
{
	return atomic_load(&nfs4_st.in_grace) &&
	       nfs4_now_ms() < nfs4_st.grace_end;
}

/**
 * nfs4_grace_check_reclaim() - may @cl reclaim now? NO_GRACE outside
 * grace or after its RECLAIM_COMPLETE; RECLAIM_BAD for a client the
 * previous instance did not know (as knfsd). Under nfs4_st.mu or @cl's
 * mutex.
 */
uint32_t nfs4_grace_check_reclaim(const struct nfs4_client *cl)
{
	if (!grace_active() || cl->reclaim_complete)
		return NFS4ERR_NO_GRACE;
	if (!cl->can_reclaim)
		return NFS4ERR_RECLAIM_BAD;
	return NFS4_OK;
}

/** nfs4_grace_check_new() - GRACE while new state must wait: in NFSv4's
 * grace, or another protocol's (nfs4_config.other_grace). No lock. */
uint32_t nfs4_grace_check_new(void)
{
	bool (*other)(void) = nfs4_config_get()->other_grace;

	return grace_active() || (other && other()) ? NFS4ERR_GRACE
						    : NFS4_OK;
}

/** nfs4_grace_check_new_cl() - see state_int.h. */
uint32_t nfs4_grace_check_new_cl(const struct nfs4_client *cl)
{
	uint32_t st = nfs4_grace_check_new();

	/* RFC 8881 §18.51.3: a 4.1 client's new locking state waits for its
	 * RECLAIM_COMPLETE, whatever the server's grace */
	if (st == NFS4_OK && cl->minor && !cl->reclaim_complete)
		st = NFS4ERR_GRACE;
	return st;
}

/*
 * Write the record of client @id durably: a
 * temporary file, fsync, rename, directory fsync. 0 or -errno.
 */
static int grace_record(uint32_t minor, const uint8_t *id, uint32_t len)
{
	char dir[VFS_PATH_MAX], path[VFS_PATH_MAX], tmp[VFS_PATH_MAX + 8];
	char *buf;
	size_t n, i;
	int fd, ret;

	ret = rec_dir(dir, sizeof(dir));
	if (ret < 0)
		return ret == -ENOENT ? 0 : ret;
	ret = rec_path(path, sizeof(path), minor, id, len);
	if (ret < 0)
		return ret;
	(void)snprintf(tmp, sizeof(tmp), "%s.tmp", path); /* fits: +8 */
	buf = malloc(2 * (size_t)len + 64);
	if (!buf)
		return -ENOMEM;
	n = (size_t)sprintf(buf, REC_MAGIC "\n%u\n", minor ? 1u : 0u);
	for (i = 0; i < len; i++)
		n += (size_t)sprintf(buf + n, "%02x", id[i]);
	buf[n++] = '\n';
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	if (write(fd, buf, n) != (ssize_t)n || fsync(fd) < 0) {
		ret = -errno ? -errno : -EIO;
		close(fd);
		unlink(tmp);
		goto out;
	}
	close(fd);
	if (rename(tmp, path) < 0) {
		ret = -errno;
		unlink(tmp);
		goto out;
	}
	ret = fsync_dir(dir);
out:
	free(buf);
	return ret;
}

/** nfs4_grace_record() - see grace_record(); as root. */
int nfs4_grace_record(uint32_t minor, const uint8_t *id, uint32_t len)
{
	struct fs_ids prev = root_enter();
	int ret = grace_record(minor, id, len);

	root_leave(prev);
	return ret;
}

/* Remove client @id's record durably. */
static int grace_forget(uint32_t minor, const uint8_t *id, uint32_t len)
{
	char dir[VFS_PATH_MAX], path[VFS_PATH_MAX];
	int ret;

	ret = rec_dir(dir, sizeof(dir));
	if (ret < 0)
		return ret == -ENOENT ? 0 : ret;
	ret = rec_path(path, sizeof(path), minor, id, len);
	if (ret < 0)
		return ret;
	if (unlink(path) < 0)
		return errno == ENOENT ? 0 : -errno;
	return fsync_dir(dir);
}

/** nfs4_grace_forget() - remove client @id's record durably, as root. */
int nfs4_grace_forget(uint32_t minor, const uint8_t *id, uint32_t len)
{
	struct fs_ids prev = root_enter();
	int ret = grace_forget(minor, id, len);

	root_leave(prev);
	return ret;
}

/** nfs4_grace_queue_forget() - see state_int.h. Under nfs4_st.mu. */
void nfs4_grace_queue_forget(const struct nfs4_client *cl)
{
	if (nfs4_st.state_dir)
		queue_forget(cl->minor, cl->ownerid, cl->ownerid_len);
}

static bool id_recorded_live(const struct forget *f)
{
	struct nfs4_client *cl =
		nfs4_client_find_owner(f->minor, f->id, f->len, true);

	return cl && cl->recorded;
}

/**
 * nfs4_grace_flush_forgets() - remove the queued records, except those a
 * new instance of the same client has meanwhile recorded. Call without
 * nfs4_st.mu.
 */
void nfs4_grace_flush_forgets(void)
{
	struct forget *list, *f;

	pthread_mutex_lock(&grace_io_mu);
	pthread_mutex_lock(&nfs4_st.mu);
	list = forgets;
	forgets = NULL;
	pthread_mutex_unlock(&nfs4_st.mu);
	while ((f = list) != NULL) {
		bool live;

		list = f->next;
		pthread_mutex_lock(&nfs4_st.mu);
		live = id_recorded_live(f);
		pthread_mutex_unlock(&nfs4_st.mu);
		if (!live)
			nfs4_grace_forget(f->minor, f->id, f->len);
		free(f);
	}
	pthread_mutex_unlock(&grace_io_mu);
}

/**
 * nfs4_grace_record_client() - put @cl's record on stable storage once
 * (at SETCLIENTID_CONFIRM / the first CREATE_SESSION), before it can get
 * state. Call without nfs4_st.mu; @cl must be pinned by the caller.
 */
void nfs4_grace_record_client(struct nfs4_client *cl)
{
	uint8_t *id;
	uint32_t len, minor;
	int ret;

	if (!nfs4_st.state_dir)
		return;
	pthread_mutex_lock(&grace_io_mu);
	pthread_mutex_lock(&nfs4_st.mu);
	if (cl->dead || cl->recorded) {
		pthread_mutex_unlock(&nfs4_st.mu);
		pthread_mutex_unlock(&grace_io_mu);
		return;
	}
	len = cl->ownerid_len;
	minor = cl->minor;
	id = malloc(len ? len : 1);
	if (id) {
		memcpy(id, cl->ownerid, len);
		cl->recorded = true;
	}
	pthread_mutex_unlock(&nfs4_st.mu);
	if (id) {
		ret = nfs4_grace_record(minor, id, len);
		if (ret < 0)
			log_warn("nfs4: cannot record client: %s",
				 strerror(-ret));
		free(id);
	}
	pthread_mutex_unlock(&grace_io_mu);
}
