// SPDX-License-Identifier: MIT
/*
 * Wire file handles and the server secret that authenticates them.
 *
 * Layout (all integers big-endian):
 *   0      version (VFS_FH_VERSION)
 *   1      N: the backend handle's length less 4
 *   2..5   export id
 *   6..    N + 4 bytes of backend handle (struct vfs_bh)
 *   then   8-byte SipHash-2-4 MAC, keyed with the server secret, over
 *          all the bytes before it
 * The length byte does not count the first four backend bytes: the
 * layout was the local backend's (kernel handle type, then N bytes of
 * kernel handle) before there was a table, and handles minted then stay
 * valid. The local backend's ext4 handle gives 26 bytes, btrfs 38, so
 * NFSv3's 64-byte limit holds for the common filesystems.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/be.h"
#include "core/log.h"
#include "vfs/siphash.h"
#include "vfs/vfs_int.h"

#define VFS_FH_VERSION	1
#define VFS_FH_HDR	10
#define VFS_FH_MAC	8
#define VFS_FH_OVERHEAD (VFS_FH_HDR + VFS_FH_MAC)

static uint8_t secret_key[16];
static uint8_t hash_key[16]; /* cache/verifier hashing, never on the wire */
static uint64_t write_verf;
static uint8_t instance_id[16]; /* instance.id, else per process */
static pthread_once_t secret_once = PTHREAD_ONCE_INIT;

static int fill_random(void *buf, size_t len)
{
	uint8_t *p = buf;

	while (len > 0) {
		ssize_t n = getrandom(p, len, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Until vfs_secret_init() runs, handles are keyed by a per-process random
 * key (valid only for this run), so that nothing is ever keyed by zeros.
 */
static void secret_boot(void)
{
	if (fill_random(secret_key, sizeof(secret_key)) < 0 ||
	    fill_random(hash_key, sizeof(hash_key)) < 0 ||
	    fill_random(&write_verf, sizeof(write_verf)) < 0 ||
	    fill_random(instance_id, sizeof(instance_id)) < 0) {
		/* getrandom() cannot fail on a kernel with it; be loud. */
		log_err("vfs: getrandom failed: %s", strerror(errno));
		abort();
	}
}

static int read_full(int fd, void *buf, size_t len)
{
	uint8_t *p = buf;

	while (len > 0) {
		ssize_t n = read(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EINVAL;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int write_full(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int secret_load(const char *file, uint8_t key[16])
{
	uint8_t extra;
	int fd, ret;

	fd = open(file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	ret = read_full(fd, key, 16);
	/* Exactly 16 bytes: anything else is not a key we wrote. */
	if (ret == 0 && read(fd, &extra, 1) != 0)
		ret = -EINVAL;
	close(fd);
	return ret;
}

static int secret_create(const char *dir, const char *name, const char *file,
			 uint8_t key[16])
{
	char tmp[PATH_MAX];
	int fd, ret;

	if (snprintf(tmp, sizeof(tmp), "%s/.%s.%d", dir, name,
		     (int)getpid()) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	ret = fill_random(key, 16);
	if (ret < 0)
		return ret;
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
		  0600);
	if (fd < 0)
		return -errno;
	ret = write_full(fd, key, 16);
	if (ret == 0 && fchmod(fd, 0600) < 0)
		ret = -errno;
	if (ret == 0 && fsync(fd) < 0)
		ret = -errno;
	close(fd);
	/* link() rather than rename(): a concurrent creator's key wins. */
	if (ret == 0 && link(tmp, file) < 0)
		ret = -errno;
	unlink(tmp);
	return ret;
}

/*
 * The 16 random bytes of @name in @state_dir, created (0600, a
 * concurrent creator's bytes winning) when absent. 0 or -errno (logged).
 */
static int state_bytes(const char *state_dir, const char *name,
		       uint8_t key[16])
{
	char file[PATH_MAX];
	int ret;

	if (snprintf(file, sizeof(file), "%s/%s", state_dir, name) >=
	    (int)sizeof(file))
		return -ENAMETOOLONG;
	ret = secret_load(file, key);
	if (ret == -ENOENT) {
		ret = secret_create(state_dir, name, file, key);
		if (ret == -EEXIST)
			ret = secret_load(file, key);
	}
	if (ret < 0)
		log_err("vfs: cannot load or create %s: %s", file,
			strerror(-ret));
	return ret;
}

int vfs_secret_init(const char *state_dir)
{
	uint8_t key[16];
	int ret;

	pthread_once(&secret_once, secret_boot);
	if (mkdir(state_dir, 0700) < 0 && errno != EEXIST)
		return -errno;
	ret = state_bytes(state_dir, "handle.key", key);
	if (ret < 0)
		return ret;
	memcpy(secret_key, key, sizeof(key));
	memset(key, 0, sizeof(key));
	/* Not a secret: this server's name towards a cluster (the CephFS
	 * backend's session uuid), the same across its restarts. */
	ret = state_bytes(state_dir, "instance.id", instance_id);
	return ret;
}

void vfs_instance_id(uint8_t out[16])
{
	pthread_once(&secret_once, secret_boot);
	memcpy(out, instance_id, 16);
}

void vfs_secret_set(const uint8_t key[16])
{
	pthread_once(&secret_once, secret_boot);
	memcpy(secret_key, key, sizeof(secret_key));
}

uint64_t vfs_write_verifier(void)
{
	pthread_once(&secret_once, secret_boot);
	return write_verf;
}

/*
 * vfs_secret_hash() - keyed hash for internal tables and verifiers, under
 * a per-process key distinct from the handle MAC key.
 */
uint64_t vfs_secret_hash(const void *msg, size_t len)
{
	pthread_once(&secret_once, secret_boot);
	return siphash24(hash_key, msg, len);
}

static void fh_mac(const uint8_t *fh, size_t len, uint8_t mac[VFS_FH_MAC])
{
	uint64_t h = siphash24(secret_key, fh, len);

	for (int i = 0; i < VFS_FH_MAC; i++)
		mac[i] = (uint8_t)(h >> (8 * i));
}

/* Constant time, so a forger learns nothing from response timing. */
static bool mac_equal(const uint8_t *a, const uint8_t *b)
{
	uint8_t d = 0;

	for (int i = 0; i < VFS_FH_MAC; i++)
		d |= a[i] ^ b[i];
	return d == 0;
}

/*
 * fh_parse() - check a wire handle's format and MAC and extract its
 * fields. Returns 0 or -EBADHANDLE.
 */
static int fh_parse(const void *fh, size_t len, uint32_t *id, struct vfs_bh *bh)
{
	const uint8_t *p = fh;
	uint8_t mac[VFS_FH_MAC];
	size_t n;

	pthread_once(&secret_once, secret_boot);
	if (fh == NULL || len < VFS_FH_OVERHEAD + 1 || len > VFS_FH_MAX)
		return -EBADHANDLE;
	if (p[0] != VFS_FH_VERSION)
		return -EBADHANDLE;
	n = p[1];
	if (n == 0 || n + 4 > VFS_BH_MAX || n != len - VFS_FH_OVERHEAD)
		return -EBADHANDLE;
	fh_mac(p, len - VFS_FH_MAC, mac);
	if (!mac_equal(mac, p + len - VFS_FH_MAC))
		return -EBADHANDLE;
	*id = get_be32(p + 2);
	if (bh != NULL) {
		bh->len = (uint32_t)n + 4;
		memcpy(bh->bytes, p + 6, bh->len);
	}
	return 0;
}

int vfs_fh_export_id(const void *fh, size_t len, uint32_t *export_id)
{
	return fh_parse(fh, len, export_id, NULL);
}

int vfs_obj_fh(const struct vfs_obj *o, void *buf, size_t max)
{
	uint8_t *p = buf;
	size_t len = 6 + o->bh.len + VFS_FH_MAC;

	pthread_once(&secret_once, secret_boot);
	if (len > max || len > VFS_FH_MAX)
		return -EOVERFLOW;
	p[0] = VFS_FH_VERSION;
	p[1] = (uint8_t)(o->bh.len - 4);
	put_be32(p + 2, o->ex->id);
	memcpy(p + 6, o->bh.bytes, o->bh.len);
	fh_mac(p, len - VFS_FH_MAC, p + len - VFS_FH_MAC);
	return (int)len;
}

int vfs_obj_from_fh(struct vfs_export *ex, const void *fh, size_t len,
		    struct vfs_obj **out)
{
	struct vfs_bh bh;
	uint32_t id;
	int ret;

	ret = fh_parse(fh, len, &id, &bh);
	if (ret < 0)
		return ret;
	if (id != ex->id)
		return -EBADHANDLE;
	return vfs_ops(ex)->obj_resolve(ex, &bh, out);
}

/*
 * Opaque handles (version VFS_FH_OPAQUE_VERSION): for objects a protocol
 * synthesises itself, such as NFSv4 pseudo-filesystem directories.
 * Layout: version, payload length N (1..VFS_FH_OPAQUE_MAX), N payload
 * bytes, 8-byte MAC over the rest. vfs_fh_export_id() refuses them (other
 * version), so they never name an export's file.
 */
#define VFS_FH_OPAQUE_VERSION 2

int vfs_fh_mint_opaque(const void *payload, size_t n, void *buf, size_t max)
{
	uint8_t *p = buf;
	size_t len = 2 + n + VFS_FH_MAC;

	pthread_once(&secret_once, secret_boot);
	if (n == 0 || n > VFS_FH_OPAQUE_MAX)
		return -EINVAL;
	if (len > max)
		return -EOVERFLOW;
	p[0] = VFS_FH_OPAQUE_VERSION;
	p[1] = (uint8_t)n;
	memcpy(p + 2, payload, n);
	fh_mac(p, len - VFS_FH_MAC, p + len - VFS_FH_MAC);
	return (int)len;
}

int vfs_fh_verify_opaque(const void *fh, size_t len, void *payload,
			 size_t max)
{
	const uint8_t *p = fh;
	uint8_t mac[VFS_FH_MAC];
	size_t n;

	pthread_once(&secret_once, secret_boot);
	if (fh == NULL || len < 2 + 1 + VFS_FH_MAC || len > VFS_FH_MAX)
		return -EBADHANDLE;
	if (p[0] != VFS_FH_OPAQUE_VERSION)
		return -EBADHANDLE;
	n = p[1];
	if (n == 0 || n > VFS_FH_OPAQUE_MAX || n != len - 2 - VFS_FH_MAC)
		return -EBADHANDLE;
	fh_mac(p, len - VFS_FH_MAC, mac);
	if (!mac_equal(mac, p + len - VFS_FH_MAC))
		return -EBADHANDLE;
	if (n > max)
		return -EOVERFLOW;
	memcpy(payload, p + 2, n);
	return (int)n;
}
