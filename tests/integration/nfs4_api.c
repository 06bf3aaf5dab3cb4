// SPDX-License-Identifier: MIT
/*
 * NFSv4.0 through libnfs's v4 client (nfs_set_version(NFS_V4)): mount of
 * an export through the pseudo root, stat, create / write / read back
 * (compared with the file on the server's disk), readdir, rename, mkdir,
 * remove, and byte-range locks between two clients (nfs_lockf and
 * nfs_fcntl). Prints "ok - NAME" / "not ok - NAME: DETAIL"; exits 1 if any
 * check failed.
 *
 * usage: nfs4_api PORT EXPORT_PATH
 *   EXPORT_PATH is both the local directory and its path in the
 *   pseudo-filesystem (nasd places an export at its own path).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nfsc/libnfs.h>

/* libnfs-raw-nfs4.h defines it; that header is not needed otherwise */
#ifndef NFS_V4
#define NFS_V4 4
#endif

static int fails, passes;

static bool check(bool ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		printf("ok - %s\n", name);
		passes++;
		return true;
	}
	printf("not ok - %s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fails++;
	return false;
}

static void fill_pattern(unsigned char *buf, size_t len, unsigned int seed)
{
	uint32_t x = seed * 2654435761u + 1;

	for (size_t i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		buf[i] = (unsigned char)x;
	}
}

static struct nfs_context *v4_mount(int port, const char *path, int id)
{
	struct nfs_context *nfs = nfs_init_context();
	struct nfs_url *url;
	char u[4200], name[64];
	int rc;

	if (!nfs)
		return NULL;
	nfs_set_timeout(nfs, 20000);
	/* two contexts of one process must be two NFSv4 clients */
	snprintf(name, sizeof(name), "nasd-nfs4-api-%d-%d", (int)getpid(), id);
	nfs4_set_client_name(nfs, name);
	snprintf(u, sizeof(u), "nfs://127.0.0.1%s?version=4&nfsport=%d", path,
		 port);
	url = nfs_parse_url_dir(nfs, u);
	if (!url) {
		printf("# cannot parse %s: %s\n", u, nfs_get_error(nfs));
		nfs_destroy_context(nfs);
		return NULL;
	}
	rc = nfs_set_version(nfs, NFS_V4);
	if (rc == 0)
		rc = nfs_mount(nfs, url->server, url->path);
	nfs_destroy_url(url);
	if (rc != 0) {
		printf("# nfs_mount %s: %d %s\n", u, rc, nfs_get_error(nfs));
		nfs_destroy_context(nfs);
		return NULL;
	}
	return nfs;
}

/* Read @len bytes of the server-side file @path. */
static bool local_equal(const char *path, const unsigned char *want, size_t len)
{
	unsigned char *buf = malloc(len + 1);
	FILE *f = fopen(path, "rb");
	size_t n = 0;
	bool same;

	if (!f || !buf) {
		if (f)
			fclose(f);
		free(buf);
		return false;
	}
	n = fread(buf, 1, len + 1, f);
	fclose(f);
	same = n == len && memcmp(buf, want, len) == 0;
	free(buf);
	return same;
}

static void rw_test(struct nfs_context *nfs, const char *local,
		    const char *name, size_t len, unsigned int seed)
{
	unsigned char *wbuf = malloc(len), *rbuf = malloc(len);
	struct nfsfh *fh = NULL;
	struct nfs_stat_64 st;
	char path[300], lpath[4200], tn[100];
	size_t done;
	int rc;

	snprintf(path, sizeof(path), "/%s", name);
	snprintf(lpath, sizeof(lpath), "%s/%s", local, name);
	fill_pattern(wbuf, len, seed);
	/* not nfs_creat: libnfs 5.0.2's NFSv4 creat sends OPEN with
	 * share_access READ only, and the server then rightly refuses the
	 * writes with OPENMODE */
	rc = nfs_create(nfs, path, O_CREAT | O_RDWR | O_TRUNC, 0644, &fh);
	snprintf(tn, sizeof(tn), "creat_%zu", len);
	if (!check(rc == 0, tn, "%d %s", rc, nfs_get_error(nfs)))
		goto out;
	/* at most 3000 bytes per call: libnfs 5.0.2's NFSv4 WRITE fails to
	 * encode larger ones ("ZDR error: Failed to encode COMPOUND4args",
	 * client side, nothing is sent) */
	for (done = 0; done < len;) {
		size_t n = len - done < 3000 ? len - done : 3000;

		rc = nfs_pwrite(nfs, fh, done, n, wbuf + done);
		if (rc <= 0)
			break;
		done += (size_t)rc;
	}
	snprintf(tn, sizeof(tn), "write_%zu", len);
	check(done == len, tn, "wrote %zu of %zu: %d %s", done, len, rc,
	      nfs_get_error(nfs));
	rc = nfs_fsync(nfs, fh);
	snprintf(tn, sizeof(tn), "fsync_%zu", len);
	check(rc == 0, tn, "%d %s", rc, nfs_get_error(nfs));
	nfs_close(nfs, fh);
	snprintf(tn, sizeof(tn), "server_file_equal_%zu", len);
	check(local_equal(lpath, wbuf, len), tn, "%s differs", lpath);

	rc = nfs_open(nfs, path, O_RDONLY, &fh);
	snprintf(tn, sizeof(tn), "open_ro_%zu", len);
	if (!check(rc == 0, tn, "%d %s", rc, nfs_get_error(nfs)))
		goto out;
	memset(rbuf, 0, len);
	for (done = 0; done < len;) {
		rc = nfs_pread(nfs, fh, done, len - done, rbuf + done);
		if (rc <= 0)
			break;
		done += (size_t)rc;
	}
	snprintf(tn, sizeof(tn), "read_back_%zu", len);
	check(done == len && memcmp(wbuf, rbuf, len) == 0, tn,
	      "read %zu of %zu, equal=%d", done, len,
	      done == len && memcmp(wbuf, rbuf, len) == 0);
	nfs_close(nfs, fh);
	/* libnfs creates with EXCLUSIVE4, which carries no mode (the file
	 * starts as 0000, as with knfsd), and sends no SETATTR after it */
	rc = nfs_chmod(nfs, path, 0644);
	snprintf(tn, sizeof(tn), "chmod_%zu", len);
	check(rc == 0, tn, "%d %s", rc, nfs_get_error(nfs));
	rc = nfs_stat64(nfs, path, &st);
	snprintf(tn, sizeof(tn), "stat_size_%zu", len);
	check(rc == 0 && st.nfs_size == len && (st.nfs_mode & 0777) == 0644, tn,
	      "rc %d size %llu mode %o", rc, (unsigned long long)st.nfs_size,
	      (unsigned)st.nfs_mode);
out:
	free(wbuf);
	free(rbuf);
}

static bool dir_has(struct nfs_context *nfs, const char *dir, const char *name)
{
	struct nfsdir *d;
	struct nfsdirent *e;
	bool found = false;

	if (nfs_opendir(nfs, dir, &d) != 0)
		return false;
	while ((e = nfs_readdir(nfs, d)) != NULL)
		if (strcmp(e->name, name) == 0)
			found = true;
	nfs_closedir(nfs, d);
	return found;
}

/*
 * Never count 0 ("to the end of the file" in lockf): libnfs 5.0.2 sends it
 * as LOCK length 0, which is INVAL (RFC 7530 §16.10.5).
 */
#define LOCK_LEN 1000

static int api_port;
static const char *api_path;
static int api_ids = 10;

/*
 * One attempt to take a lock from a fresh client (0 or -errno).
 * libnfs 5.0.2 does not advance its open/lock-owner seqid after DENIED
 * (RFC 7530 §9.1.7 says it must), so its next LOCK would repeat the seqid
 * and get the server's cached DENIED as a replay: a client that was
 * refused is never used for locks again.
 */
static int other_client_lock(bool use_fcntl, int type, uint64_t start,
			     uint64_t len)
{
	struct nfs_context *t = v4_mount(api_port, api_path, api_ids++);
	struct nfsfh *fh = NULL;
	struct nfs4_flock fl;
	int rc;

	if (!t)
		return -999;
	rc = nfs_open(t, "/lockfile", O_RDWR, &fh);
	if (rc == 0) {
		if (use_fcntl) {
			memset(&fl, 0, sizeof(fl));
			fl.l_type = type;
			fl.l_whence = SEEK_SET;
			fl.l_start = start;
			fl.l_len = len;
			rc = nfs_fcntl(t, fh, NFS4_F_SETLK, &fl);
		} else {
			rc = nfs_lockf(t, fh, NFS4_F_TLOCK, len);
		}
		nfs_close(t, fh);
	} else {
		rc = -998;
	}
	nfs_destroy_context(t);
	return rc;
}

static int setlk(struct nfs_context *n, struct nfsfh *fh, int type,
		 uint64_t start, uint64_t len)
{
	struct nfs4_flock fl;

	memset(&fl, 0, sizeof(fl));
	fl.l_type = type;
	fl.l_whence = SEEK_SET;
	fl.l_start = start;
	fl.l_len = len;
	return nfs_fcntl(n, fh, NFS4_F_SETLK, &fl);
}

static void lock_test(struct nfs_context *a, struct nfs_context *b)
{
	struct nfsfh *fa = NULL, *fb = NULL;
	int rc;

	rc = nfs_create(a, "/lockfile", O_CREAT | O_RDWR | O_TRUNC, 0666, &fa);
	if (!check(rc == 0, "lock_creat", "%d %s", rc, nfs_get_error(a)))
		return;
	nfs_pwrite(a, fa, 0, 4, "lock");
	rc = nfs_open(b, "/lockfile", O_RDWR, &fb);
	if (!check(rc == 0, "lock_open_second_client", "%d %s", rc,
		   nfs_get_error(b)))
		goto out;

	/* lockf: a exclusive lock refused to others until released */
	rc = nfs_lockf(a, fa, NFS4_F_TLOCK, LOCK_LEN);
	check(rc == 0, "lockf_tlock_a", "%d %s", rc, nfs_get_error(a));
	rc = other_client_lock(false, F_WRLCK, 0, LOCK_LEN);
	check(rc != 0 && rc > -990, "lockf_tlock_other_client_refused",
	      "got %d", rc);
	rc = nfs_lockf(b, fb, NFS4_F_TEST, LOCK_LEN);
	check(rc != 0, "lockf_test_b_sees_lock", "got %d", rc);
	rc = nfs_lockf(a, fa, NFS4_F_ULOCK, LOCK_LEN);
	check(rc == 0, "lockf_ulock_a", "%d %s", rc, nfs_get_error(a));
	rc = nfs_lockf(b, fb, NFS4_F_TEST, LOCK_LEN);
	check(rc == 0, "lockf_test_b_after_release", "%d %s", rc,
	      nfs_get_error(b));
	rc = nfs_lockf(b, fb, NFS4_F_TLOCK, LOCK_LEN);
	check(rc == 0, "lockf_tlock_b_after_release", "%d %s", rc,
	      nfs_get_error(b));
	rc = nfs_lockf(b, fb, NFS4_F_ULOCK, LOCK_LEN);
	check(rc == 0, "lockf_ulock_b", "%d %s", rc, nfs_get_error(b));

	/* fcntl: read locks share, a write lock over them is refused, and
	 * granted (an upgrade of b's own read lock) once a has unlocked */
	rc = setlk(a, fa, F_RDLCK, 0, 100);
	check(rc == 0, "fcntl_rdlck_a", "%d %s", rc, nfs_get_error(a));
	rc = setlk(b, fb, F_RDLCK, 0, 100);
	check(rc == 0, "fcntl_rdlck_b_shared", "%d %s", rc, nfs_get_error(b));
	rc = other_client_lock(true, F_WRLCK, 50, 10);
	check(rc != 0 && rc > -990, "fcntl_wrlck_other_client_refused",
	      "got %d", rc);
	rc = setlk(a, fa, F_UNLCK, 0, 100);
	check(rc == 0, "fcntl_unlock_a", "%d %s", rc, nfs_get_error(a));
	rc = setlk(b, fb, F_WRLCK, 50, 10);
	check(rc == 0, "fcntl_wrlck_b_upgrade", "%d %s", rc, nfs_get_error(b));
	rc = other_client_lock(true, F_RDLCK, 55, 1);
	check(rc != 0 && rc > -990, "fcntl_rdlck_other_refused_by_wrlck",
	      "got %d", rc);
	rc = other_client_lock(true, F_WRLCK, 200, 40);
	check(rc == 0, "fcntl_wrlck_other_disjoint_range", "got %d", rc);
	rc = setlk(b, fb, F_UNLCK, 0, 100);
	check(rc == 0, "fcntl_unlock_b", "%d %s", rc, nfs_get_error(b));
out:
	if (fb)
		nfs_close(b, fb);
	nfs_close(a, fa);
}

int main(int argc, char **argv)
{
	struct nfs_context *nfs, *nfs2;
	struct nfs_stat_64 st;
	char lpath[4200];
	int port, rc;

	if (argc != 3) {
		fprintf(stderr, "usage: %s PORT EXPORT_PATH\n", argv[0]);
		return 2;
	}
	port = atoi(argv[1]);
	api_port = port;
	api_path = argv[2];
	nfs = v4_mount(port, argv[2], 1);
	if (!check(nfs != NULL, "v4_mount_export", "see above"))
		return 1;
	rc = nfs_stat64(nfs, "/", &st);
	check(rc == 0 && (st.nfs_mode & S_IFMT) == S_IFDIR, "stat_root",
	      "rc %d mode %o", rc, (unsigned)st.nfs_mode);

	rw_test(nfs, argv[2], "small.txt", 3000, 1);
	rw_test(nfs, argv[2], "big.bin", 1 << 20, 2);

	check(dir_has(nfs, "/", "small.txt") && dir_has(nfs, "/", "big.bin"),
	      "readdir_lists_files", "entries missing");
	rc = nfs_rename(nfs, "/small.txt", "/renamed.txt");
	check(rc == 0, "rename", "%d %s", rc, nfs_get_error(nfs));
	rc = nfs_stat64(nfs, "/small.txt", &st);
	check(rc == -ENOENT, "stat_old_name_enoent", "got %d", rc);
	snprintf(lpath, sizeof(lpath), "%s/renamed.txt", argv[2]);
	check(access(lpath, F_OK) == 0, "rename_on_disk", "%s missing", lpath);
	rc = nfs_mkdir(nfs, "/sub");
	check(rc == 0, "mkdir", "%d %s", rc, nfs_get_error(nfs));
	check(dir_has(nfs, "/", "sub"), "readdir_lists_dir", "sub missing");
	rc = nfs_rmdir(nfs, "/sub");
	check(rc == 0, "rmdir", "%d %s", rc, nfs_get_error(nfs));
	rc = nfs_unlink(nfs, "/renamed.txt");
	check(rc == 0, "remove", "%d %s", rc, nfs_get_error(nfs));
	check(access(lpath, F_OK) != 0, "remove_on_disk", "%s still there",
	      lpath);
	check(!dir_has(nfs, "/", "renamed.txt"), "readdir_after_remove",
	      "still listed");

	nfs2 = v4_mount(port, argv[2], 2);
	if (check(nfs2 != NULL, "v4_mount_second_client", "see above")) {
		lock_test(nfs, nfs2);
		nfs_destroy_context(nfs2);
	}
	nfs_destroy_context(nfs);
	printf("# %d passed, %d failed\n", passes, fails);
	return fails ? 1 : 0;
}
