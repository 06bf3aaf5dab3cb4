// SPDX-License-Identifier: MIT
/*
 * nfs3_api: drive every NFSv3 and MOUNTv3 procedure (RFC 1813) of a running
 * nasd through libnfs, on the success path and on the main errors, and check
 * each result against the server's local filesystem.
 *
 * usage: nfs3_api PORT MOUNTPORT RW_EXPORT RO_EXPORT
 *
 * The server runs on this host and exports RW_EXPORT (rw,no_root_squash)
 * and RO_EXPORT (ro) under their local paths, so the test can look at the
 * files it makes through NFS directly. Prints "ok - NAME" or
 * "not ok - NAME: DETAIL" per check; exits 1 if any check failed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/time.h>
#include <unistd.h>

#include "nt_raw.h"

#define HOST "127.0.0.1"
#define BIG_DIR_ENTRIES 3000

static int n_failed;
static int n_passed;
static const char *rw_export;
static const char *ro_export;

static void check(int cond, const char *name, const char *fmt, ...)
{
	va_list ap;

	if (cond) {
		printf("ok - %s\n", name);
		n_passed++;
	} else {
		printf("not ok - %s: ", name);
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		printf("\n");
		n_failed++;
	}
	fflush(stdout);
}

/* Check that a raw call got a reply with exactly status @want. */
static int check_stat(int rc, const struct nt_res *r, int want,
		      const char *name)
{
	if (rc != 0) {
		check(0, name, "no reply: %s", r->error);
		return 0;
	}
	check(r->status == want, name, "expected %s, got %s (%d)",
	      nt_nfsstat_name(want), nt_nfsstat_name(r->status), r->status);
	return r->status == want;
}

static const char *lpath(const char *export, const char *rel)
{
	static char buf[4][4096];
	static int idx;
	char *p = buf[idx++ & 3];

	snprintf(p, 4096, "%s/%s", export, rel);
	return p;
}

static int write_local(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, data, len);
	close(fd);
	return n == (ssize_t)len ? 0 : -EIO;
}

static ssize_t read_local(const char *path, void *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	size_t got = 0;

	if (fd < 0)
		return -errno;
	while (got < len) {
		ssize_t n = read(fd, (char *)buf + got, len - got);

		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	return (ssize_t)got;
}

static void fill_pattern(unsigned char *buf, size_t len, unsigned int seed)
{
	size_t i;
	uint32_t x = seed * 2654435761u + 1;

	for (i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		buf[i] = (unsigned char)x;
	}
}

/* ------------------------------------------------------------ high level */

static struct nfs_context *hl_mount(const char *export, int port,
				    int mountport)
{
	struct nfs_context *nfs = nfs_init_context();
	struct nfs_url *url;
	char u[4600];
	int rc;

	if (!nfs)
		return NULL;
	snprintf(u, sizeof(u), "nfs://%s%s?nfsport=%d&mountport=%d", HOST,
		 export, port, mountport);
	url = nfs_parse_url_dir(nfs, u);
	if (!url) {
		printf("# cannot parse %s: %s\n", u, nfs_get_error(nfs));
		nfs_destroy_context(nfs);
		return NULL;
	}
	rc = nfs_mount(nfs, url->server, url->path);
	nfs_destroy_url(url);
	if (rc != 0) {
		printf("# nfs_mount %s: %d %s\n", u, rc, nfs_get_error(nfs));
		nfs_destroy_context(nfs);
		return NULL;
	}
	return nfs;
}

static void hl_rw_tests(struct nfs_context *nfs)
{
	const size_t len = 100 * 1024;
	unsigned char *wbuf = malloc(len), *rbuf = malloc(len),
		      *lbuf = malloc(len);
	struct nfsfh *fh = NULL;
	struct nfs_stat_64 st;
	struct stat lst;
	int rc;

	if (!wbuf || !rbuf || !lbuf) {
		check(0, "hl_alloc", "out of memory");
		goto out;
	}
	fill_pattern(wbuf, len, 1);

	rc = nfs_creat(nfs, "/a.txt", 0644, &fh);
	check(rc == 0, "hl_creat", "nfs_creat: %d %s", rc, nfs_get_error(nfs));
	if (rc != 0)
		goto out;
	rc = nfs_pwrite(nfs, fh, 0, len, wbuf);
	check(rc == (int)len, "hl_pwrite", "wrote %d of %zu: %s", rc, len,
	      nfs_get_error(nfs));
	rc = nfs_fsync(nfs, fh);
	check(rc == 0, "hl_fsync", "%d %s", rc, nfs_get_error(nfs));
	nfs_close(nfs, fh);
	fh = NULL;

	check(read_local(lpath(rw_export, "a.txt"), lbuf, len) == (ssize_t)len
		      && memcmp(lbuf, wbuf, len) == 0,
	      "hl_pwrite_reaches_disk", "local file content differs");

	rc = nfs_open(nfs, "/a.txt", O_RDONLY, &fh);
	check(rc == 0, "hl_open", "%d %s", rc, nfs_get_error(nfs));
	if (rc == 0) {
		memset(rbuf, 0, len);
		rc = nfs_pread(nfs, fh, 0, len, rbuf);
		check(rc == (int)len && memcmp(rbuf, wbuf, len) == 0,
		      "hl_pread", "read %d of %zu, content %s", rc, len,
		      rc == (int)len ? "differs" : "short");
		rc = nfs_pread(nfs, fh, len, 4096, rbuf);
		check(rc == 0, "hl_pread_eof", "read at EOF returned %d", rc);
		nfs_close(nfs, fh);
		fh = NULL;
	}

	rc = nfs_stat64(nfs, "/a.txt", &st);
	check(rc == 0, "hl_stat64", "%d %s", rc, nfs_get_error(nfs));
	if (rc == 0 && stat(lpath(rw_export, "a.txt"), &lst) == 0) {
		check(st.nfs_size == len && st.nfs_size == (uint64_t)lst.st_size,
		      "hl_stat64_size", "nfs %" PRIu64 " local %lld",
		      st.nfs_size, (long long)lst.st_size);
		check(st.nfs_mode == lst.st_mode, "hl_stat64_mode",
		      "nfs 0%" PRIo64 " local 0%o", st.nfs_mode, lst.st_mode);
		check(st.nfs_uid == lst.st_uid && st.nfs_gid == lst.st_gid,
		      "hl_stat64_owner", "nfs %" PRIu64 ":%" PRIu64
		      " local %u:%u", st.nfs_uid, st.nfs_gid, lst.st_uid,
		      lst.st_gid);
		check(st.nfs_nlink == lst.st_nlink, "hl_stat64_nlink",
		      "nfs %" PRIu64 " local %lu", st.nfs_nlink,
		      (unsigned long)lst.st_nlink);
		check(st.nfs_mtime == (uint64_t)lst.st_mtim.tv_sec &&
			      st.nfs_mtime_nsec ==
				      (uint64_t)lst.st_mtim.tv_nsec,
		      "hl_stat64_mtime", "nfs %" PRIu64 ".%09" PRIu64
		      " local %lld.%09ld", st.nfs_mtime, st.nfs_mtime_nsec,
		      (long long)lst.st_mtim.tv_sec, lst.st_mtim.tv_nsec);
		check(st.nfs_ino == lst.st_ino, "hl_stat64_fileid_is_inode",
		      "nfs fileid %" PRIu64 " local ino %lu", st.nfs_ino,
		      (unsigned long)lst.st_ino);
	}
	rc = nfs_stat64(nfs, "/missing", &st);
	check(rc == -ENOENT, "hl_stat64_missing", "expected -ENOENT, got %d",
	      rc);

	/* attributes */
	rc = nfs_chmod(nfs, "/a.txt", 0600);
	check(rc == 0 && stat(lpath(rw_export, "a.txt"), &lst) == 0 &&
		      (lst.st_mode & 07777) == 0600,
	      "hl_chmod", "rc %d, local mode 0%o", rc, lst.st_mode & 07777);
	rc = nfs_chown(nfs, "/a.txt", 1000, 1001);
	check(rc == 0 && stat(lpath(rw_export, "a.txt"), &lst) == 0 &&
		      lst.st_uid == 1000 && lst.st_gid == 1001,
	      "hl_chown", "rc %d, local owner %u:%u", rc, lst.st_uid,
	      lst.st_gid);
	{
		struct timeval tv[2] = { { 1000000000, 0 },
					 { 1100000000, 500000 } };

		rc = nfs_utimes(nfs, "/a.txt", tv);
		check(rc == 0 && stat(lpath(rw_export, "a.txt"), &lst) == 0 &&
			      lst.st_atim.tv_sec == 1000000000 &&
			      lst.st_mtim.tv_sec == 1100000000 &&
			      lst.st_mtim.tv_nsec == 500000000,
		      "hl_utimes", "rc %d, local atime %lld mtime %lld.%09ld",
		      rc, (long long)lst.st_atim.tv_sec,
		      (long long)lst.st_mtim.tv_sec, lst.st_mtim.tv_nsec);
	}
	rc = nfs_truncate(nfs, "/a.txt", 5000);
	check(rc == 0 && stat(lpath(rw_export, "a.txt"), &lst) == 0 &&
		      lst.st_size == 5000,
	      "hl_truncate_shrink", "rc %d, local size %lld", rc,
	      (long long)lst.st_size);
	rc = nfs_truncate(nfs, "/a.txt", 1 << 20);
	check(rc == 0 && stat(lpath(rw_export, "a.txt"), &lst) == 0 &&
		      lst.st_size == 1 << 20,
	      "hl_truncate_extend", "rc %d, local size %lld", rc,
	      (long long)lst.st_size);
	rc = nfs_open(nfs, "/a.txt", O_RDONLY, &fh);
	if (rc == 0) {
		size_t i;
		int zero = 1;

		rc = nfs_pread(nfs, fh, 5000, 8192, rbuf);
		for (i = 0; rc == 8192 && i < 8192; i++)
			zero &= rbuf[i] == 0;
		check(rc == 8192 && zero,
		      "hl_truncate_hole_reads_zero", "rc %d zero %d", rc,
		      zero);
		rc = nfs_pread(nfs, fh, 0, 5000, rbuf);
		check(rc == 5000 && memcmp(rbuf, wbuf, 5000) == 0,
		      "hl_truncate_keeps_head", "rc %d", rc);
		nfs_close(nfs, fh);
		fh = NULL;
	} else {
		check(0, "hl_truncate_hole_reads_zero", "open: %d", rc);
	}

	rc = nfs_access(nfs, "/a.txt", R_OK | W_OK);
	check(rc == 0, "hl_access_rw", "nfs_access: %d %s", rc,
	      nfs_get_error(nfs));

	/* ftruncate + fstat */
	rc = nfs_open(nfs, "/a.txt", O_RDWR, &fh);
	if (rc == 0) {
		rc = nfs_ftruncate(nfs, fh, 1234);
		check(rc == 0, "hl_ftruncate", "%d", rc);
		rc = nfs_fstat64(nfs, fh, &st);
		check(rc == 0 && st.nfs_size == 1234, "hl_fstat64",
		      "rc %d size %" PRIu64, rc, st.nfs_size);
		nfs_close(nfs, fh);
		fh = NULL;
	}

	/* O_EXCL create of an existing file */
	rc = nfs_create(nfs, "/a.txt", O_CREAT | O_EXCL | O_RDWR, 0644, &fh);
	check(rc == -EEXIST, "hl_create_excl_existing",
	      "expected -EEXIST, got %d", rc);
	if (rc == 0)
		nfs_close(nfs, fh);
out:
	free(wbuf);
	free(rbuf);
	free(lbuf);
}

static void hl_namespace_tests(struct nfs_context *nfs)
{
	struct stat lst, lst2;
	char buf[256];
	int rc;

	rc = nfs_mkdir(nfs, "/d1");
	check(rc == 0 && stat(lpath(rw_export, "d1"), &lst) == 0 &&
		      S_ISDIR(lst.st_mode),
	      "hl_mkdir", "rc %d", rc);
	rc = nfs_mkdir(nfs, "/d1");
	check(rc == -EEXIST, "hl_mkdir_existing", "expected -EEXIST, got %d",
	      rc);
	write_local(lpath(rw_export, "d1/inner"), "x", 1);
	rc = nfs_rmdir(nfs, "/d1");
	check(rc == -ENOTEMPTY || rc == -EEXIST, "hl_rmdir_nonempty",
	      "expected -ENOTEMPTY, got %d", rc);
	unlink(lpath(rw_export, "d1/inner"));
	rc = nfs_rmdir(nfs, "/d1");
	check(rc == 0 && stat(lpath(rw_export, "d1"), &lst) != 0,
	      "hl_rmdir", "rc %d", rc);

	write_local(lpath(rw_export, "u1"), "abc", 3);
	rc = nfs_unlink(nfs, "/u1");
	check(rc == 0 && lstat(lpath(rw_export, "u1"), &lst) != 0,
	      "hl_unlink", "rc %d", rc);
	rc = nfs_unlink(nfs, "/u1");
	check(rc == -ENOENT, "hl_unlink_missing", "expected -ENOENT, got %d",
	      rc);

	write_local(lpath(rw_export, "r1"), "one", 3);
	write_local(lpath(rw_export, "r3"), "three", 5);
	rc = nfs_rename(nfs, "/r1", "/r2");
	check(rc == 0 && lstat(lpath(rw_export, "r1"), &lst) != 0 &&
		      lstat(lpath(rw_export, "r2"), &lst) == 0,
	      "hl_rename", "rc %d", rc);
	rc = nfs_rename(nfs, "/r2", "/r3");
	memset(buf, 0, sizeof(buf));
	read_local(lpath(rw_export, "r3"), buf, sizeof(buf) - 1);
	check(rc == 0 && strcmp(buf, "one") == 0, "hl_rename_overwrite",
	      "rc %d, r3 holds '%s'", rc, buf);

	rc = nfs_link(nfs, "/r3", "/r3.link");
	check(rc == 0 && stat(lpath(rw_export, "r3"), &lst) == 0 &&
		      stat(lpath(rw_export, "r3.link"), &lst2) == 0 &&
		      lst.st_ino == lst2.st_ino && lst.st_nlink == 2,
	      "hl_link", "rc %d nlink %lu", rc, (unsigned long)lst.st_nlink);

	rc = nfs_symlink(nfs, "target/x", "/sl");
	memset(buf, 0, sizeof(buf));
	check(rc == 0 && readlink(lpath(rw_export, "sl"), buf,
				  sizeof(buf) - 1) == 8 &&
		      strcmp(buf, "target/x") == 0,
	      "hl_symlink", "rc %d local target '%s'", rc, buf);
	memset(buf, 0, sizeof(buf));
	rc = nfs_readlink(nfs, "/sl", buf, sizeof(buf));
	check(rc == 0 && strcmp(buf, "target/x") == 0, "hl_readlink",
	      "rc %d target '%s'", rc, buf);

	rc = nfs_mknod(nfs, "/fifo", S_IFIFO | 0644, 0);
	check(rc == 0 && lstat(lpath(rw_export, "fifo"), &lst) == 0 &&
		      S_ISFIFO(lst.st_mode),
	      "hl_mknod_fifo", "rc %d %s", rc, nfs_get_error(nfs));

	{
		struct nfs_statvfs_64 sv;
		struct statvfs lsv;

		rc = nfs_statvfs64(nfs, "/", &sv);
		if (rc == 0 && statvfs(rw_export, &lsv) == 0) {
			double nb = (double)sv.f_blocks * (double)sv.f_frsize;
			double lb = (double)lsv.f_blocks * (double)lsv.f_frsize;

			check(nb > 0 && nb > lb * 0.99 && nb < lb * 1.01,
			      "hl_statvfs_total", "nfs %.0f local %.0f bytes",
			      nb, lb);
			check(sv.f_files > 0, "hl_statvfs_files",
			      "f_files %" PRIu64, sv.f_files);
		} else {
			check(0, "hl_statvfs", "rc %d %s", rc,
			      nfs_get_error(nfs));
		}
	}
}

static void hl_readdir_test(struct nfs_context *nfs)
{
	static unsigned char seen[BIG_DIR_ENTRIES];
	struct nfsdir *dir;
	struct nfsdirent *de;
	int i, n = 0, dup = 0, bad = 0, dots = 0, rc;
	char name[64];

	if (mkdir(lpath(rw_export, "big"), 0755) != 0 && errno != EEXIST) {
		check(0, "hl_readdir_setup", "mkdir: %s", strerror(errno));
		return;
	}
	for (i = 0; i < BIG_DIR_ENTRIES; i++) {
		snprintf(name, sizeof(name), "big/file-with-a-longish-name-%05d",
			 i);
		if (write_local(lpath(rw_export, name), "", 0) != 0) {
			check(0, "hl_readdir_setup", "create %s failed", name);
			return;
		}
	}
	memset(seen, 0, sizeof(seen));
	rc = nfs_opendir(nfs, "/big", &dir);
	check(rc == 0, "hl_opendir", "rc %d %s", rc, nfs_get_error(nfs));
	if (rc != 0)
		return;
	while ((de = nfs_readdir(nfs, dir)) != NULL) {
		int k;

		if (!strcmp(de->name, ".") || !strcmp(de->name, "..")) {
			dots++;
			continue;
		}
		if (sscanf(de->name, "file-with-a-longish-name-%d", &k) != 1 ||
		    k < 0 || k >= BIG_DIR_ENTRIES) {
			bad++;
			continue;
		}
		if (seen[k]++)
			dup++;
		n++;
	}
	nfs_closedir(nfs, dir);
	check(n == BIG_DIR_ENTRIES && dup == 0 && bad == 0,
	      "hl_readdir_3000_complete", "%d entries, %d duplicates, %d bad",
	      n, dup, bad);
	check(dots == 2, "hl_readdir_dot_entries", "%d of '.'/'..'", dots);
}

static void hl_ro_tests(int port, int mountport)
{
	struct nfs_context *nfs = hl_mount(ro_export, port, mountport);
	struct nfsfh *fh = NULL;
	char buf[64];
	int rc;

	check(nfs != NULL, "hl_mount_ro", "mount of %s failed", ro_export);
	if (!nfs)
		return;
	rc = nfs_creat(nfs, "/new", 0644, &fh);
	check(rc == -EROFS, "hl_ro_creat", "expected -EROFS, got %d", rc);
	if (rc == 0)
		nfs_close(nfs, fh);
	rc = nfs_mkdir(nfs, "/newdir");
	check(rc == -EROFS, "hl_ro_mkdir", "expected -EROFS, got %d", rc);
	rc = nfs_open(nfs, "/ro.txt", O_RDONLY, &fh);
	check(rc == 0, "hl_ro_open_read", "rc %d", rc);
	if (rc == 0) {
		memset(buf, 0, sizeof(buf));
		rc = nfs_pread(nfs, fh, 0, sizeof(buf) - 1, buf);
		check(rc == 9 && !strcmp(buf, "readonly\n"), "hl_ro_pread",
		      "rc %d '%s'", rc, buf);
		nfs_close(nfs, fh);
	}
	nfs_umount(nfs);
	nfs_destroy_context(nfs);
}

/* ------------------------------------------------------------ raw MOUNT */

static int names_contain(const struct nt_res *r, const char *s)
{
	unsigned int i;

	for (i = 0; i < r->nnames; i++)
		if (r->names[i] && !strcmp(r->names[i], s))
			return 1;
	return 0;
}

static void raw_mount_tests(int mountport, struct nt_fh *root,
			    struct nt_fh *ro_root)
{
	struct rpc_context *m = nt_rpc_new(HOST, mountport, MOUNT_PROGRAM,
					   MOUNT_V3, -1, -1);
	struct nt_res r;
	int rc;

	memset(&r, 0, sizeof(r));
	check(m != NULL, "mnt_connect", "cannot connect to MOUNT on %d",
	      mountport);
	if (!m)
		return;
	rc = nt_mnt_null(m, &r);
	check(rc == 0, "mnt_null", "%s", r.error);

	rc = nt_mnt(m, rw_export, &r);
	check(rc == 0 && r.status == MNT3_OK && r.fh.len > 0 &&
		      r.fh.len <= 64,
	      "mnt_export", "rc %d %s status %s fh len %u", rc, r.error,
	      nt_mntstat_name(r.status), r.fh.len);
	if (rc == 0 && r.status == MNT3_OK) {
		unsigned int i;
		int unix_ok = 0;

		*root = r.fh;
		for (i = 0; i < r.nflavors; i++)
			unix_ok |= r.flavors[i] == AUTH_UNIX;
		check(unix_ok, "mnt_auth_flavors_has_sys",
		      "%u flavors, AUTH_SYS not among them", r.nflavors);
	}
	rc = nt_mnt(m, ro_export, &r);
	check(rc == 0 && r.status == MNT3_OK, "mnt_ro_export",
	      "rc %d %s status %s", rc, r.error, nt_mntstat_name(r.status));
	if (rc == 0 && r.status == MNT3_OK)
		*ro_root = r.fh;

	rc = nt_mnt(m, "/nonexistent/nasd/path", &r);
	check(rc == 0 && r.status == MNT3ERR_NOENT, "mnt_nonexistent",
	      "rc %d %s status %s", rc, r.error, nt_mntstat_name(r.status));

	write_local(lpath(rw_export, "mntfile"), "f", 1);
	rc = nt_mnt(m, lpath(rw_export, "mntfile"), &r);
	check(rc == 0 && (r.status == MNT3ERR_NOTDIR ||
			  r.status == MNT3ERR_NOENT ||
			  r.status == MNT3ERR_ACCES),
	      "mnt_file_path", "rc %d %s status %s", rc, r.error,
	      nt_mntstat_name(r.status));
	if (rc == 0)
		printf("# MNT of a file path answered %s\n",
		       nt_mntstat_name(r.status));

	if (mkdir(lpath(rw_export, "subdir"), 0755) == 0 || errno == EEXIST) {
		rc = nt_mnt(m, lpath(rw_export, "subdir"), &r);
		printf("# MNT of a subdirectory answered %s (%s)\n",
		       nt_mntstat_name(r.status),
		       r.status == MNT3_OK ? "subdirectory mounts supported" :
					     "subdirectory mounts refused");
		check(rc == 0 && (r.status == MNT3_OK ||
				  r.status == MNT3ERR_NOENT ||
				  r.status == MNT3ERR_ACCES),
		      "mnt_subdir", "rc %d %s status %s", rc, r.error,
		      nt_mntstat_name(r.status));
	}

	rc = nt_mnt_dump(m, &r);
	check(rc == 0 && names_contain(&r, rw_export), "mnt_dump_lists_mount",
	      "rc %d %s, %u entries, %s absent", rc, r.error, r.nnames_total,
	      rw_export);

	rc = nt_mnt_export(m, &r);
	check(rc == 0 && names_contain(&r, rw_export) &&
		      names_contain(&r, ro_export),
	      "mnt_export_list", "rc %d %s, %u exports, first '%s'", rc,
	      r.error, r.nnames_total, r.nnames ? r.names[0] : "");

	rc = nt_mnt_umnt(m, ro_export, &r);
	check(rc == 0, "mnt_umnt", "%s", r.error);
	rc = nt_mnt_dump(m, &r);
	check(rc == 0 && !names_contain(&r, ro_export),
	      "mnt_dump_after_umnt", "rc %d, %s still listed", rc, ro_export);

	rc = nt_mnt_umntall(m, &r);
	check(rc == 0, "mnt_umntall", "%s", r.error);
	rc = nt_mnt_dump(m, &r);
	check(rc == 0 && !names_contain(&r, rw_export),
	      "mnt_dump_after_umntall", "rc %d, %u entries remain", rc,
	      r.nnames_total);

	/* the MNT root handle stays valid after UMNT (RFC 1813 §5.2.3) */
	nt_res_clear(&r);
	rpc_destroy_context(m);
}

/* ------------------------------------------------------------ raw NFS */

struct dirscan {
	unsigned char seen[BIG_DIR_ENTRIES];
	int n, dup, bad, dots, no_attr, no_fh, zero_cookie;
};

static void dirscan_entry(void *arg, const char *name, uint64_t fileid,
			  uint64_t cookie, bool has_attr,
			  const struct fattr3 *attr, bool has_fh,
			  const struct nt_fh *fh)
{
	struct dirscan *ds = arg;
	int k;

	if (!strcmp(name, ".") || !strcmp(name, "..")) {
		ds->dots++;
		return;
	}
	if (cookie == 0)
		ds->zero_cookie++;
	if (sscanf(name, "file-with-a-longish-name-%d", &k) != 1 || k < 0 ||
	    k >= BIG_DIR_ENTRIES) {
		ds->bad++;
		return;
	}
	if (ds->seen[k]++)
		ds->dup++;
	ds->n++;
	if (!has_attr || attr->fileid != fileid)
		ds->no_attr++;
	if (!has_fh || fh->len == 0)
		ds->no_fh++;
}

static void raw_readdir_tests(struct rpc_context *rpc,
			      const struct nt_fh *root)
{
	static struct dirscan ds;
	struct nt_res r;
	struct nt_fh big;
	unsigned char verf[8] = { 0 };
	uint64_t cookie = 0;
	int rc, calls = 0, ok = 1;

	memset(&r, 0, sizeof(r));
	if (nt_lookup(rpc, root, "big", &r) != 0 || r.status != NFS3_OK) {
		check(0, "raw_readdir_lookup", "LOOKUP big: %s %s", r.error,
		      nt_nfsstat_name(r.status));
		return;
	}
	big = r.fh;

	/* READDIR with small pages */
	memset(&ds, 0, sizeof(ds));
	r.on_entry = dirscan_entry;
	r.entry_arg = &ds;
	for (;;) {
		rc = nt_readdir(rpc, &big, cookie, verf, 1024, &r);
		calls++;
		if (rc != 0 || r.status != NFS3_OK) {
			check(0, "raw_readdir", "page %d: %s %s", calls,
			      r.error, nt_nfsstat_name(r.status));
			ok = 0;
			break;
		}
		memcpy(verf, r.cookieverf, 8);
		if (r.eof)
			break;
		if (r.nentries == 0) {
			check(0, "raw_readdir", "page %d empty without eof",
			      calls);
			ok = 0;
			break;
		}
		cookie = r.last_cookie;
		if (calls > 10000) {
			check(0, "raw_readdir", "no eof after %d pages", calls);
			ok = 0;
			break;
		}
	}
	if (ok)
		check(ds.n == BIG_DIR_ENTRIES && ds.dup == 0 && ds.bad == 0 &&
			      ds.zero_cookie == 0 && calls > 1,
		      "raw_readdir_paged_complete",
		      "%d entries, %d dup, %d bad, %d zero cookies, %d pages",
		      ds.n, ds.dup, ds.bad, ds.zero_cookie, calls);

	/* READDIRPLUS with small dircount/maxcount */
	memset(&ds, 0, sizeof(ds));
	memset(verf, 0, sizeof(verf));
	cookie = 0;
	calls = 0;
	ok = 1;
	for (;;) {
		rc = nt_readdirplus(rpc, &big, cookie, verf, 512, 4096, &r);
		calls++;
		if (rc != 0 || r.status != NFS3_OK) {
			check(0, "raw_readdirplus", "page %d: %s %s", calls,
			      r.error, nt_nfsstat_name(r.status));
			ok = 0;
			break;
		}
		memcpy(verf, r.cookieverf, 8);
		if (r.eof)
			break;
		if (r.nentries == 0) {
			check(0, "raw_readdirplus", "page %d empty without eof",
			      calls);
			ok = 0;
			break;
		}
		cookie = r.last_cookie;
		if (calls > 10000) {
			check(0, "raw_readdirplus", "no eof after %d pages",
			      calls);
			ok = 0;
			break;
		}
	}
	if (ok) {
		check(ds.n == BIG_DIR_ENTRIES && ds.dup == 0 && ds.bad == 0 &&
			      calls > 10,
		      "raw_readdirplus_paged_complete",
		      "%d entries, %d dup, %d bad, %d pages", ds.n, ds.dup,
		      ds.bad, calls);
		check(ds.no_attr == 0 && ds.no_fh == 0,
		      "raw_readdirplus_attrs_and_handles",
		      "%d entries without attributes, %d without handle",
		      ds.no_attr, ds.no_fh);
	}

	/* maxcount too small for even one entry */
	rc = nt_readdirplus(rpc, &big, 0, NULL, 16, 16, &r);
	check(rc == 0 && r.status == NFS3ERR_TOOSMALL,
	      "raw_readdirplus_toosmall", "rc %d %s status %s", rc, r.error,
	      nt_nfsstat_name(r.status));

	/* READDIR on a file */
	r.on_entry = NULL;
	if (nt_lookup(rpc, root, "w.bin", &r) == 0 && r.status == NFS3_OK) {
		struct nt_fh f = r.fh;

		rc = nt_readdir(rpc, &f, 0, NULL, 4096, &r);
		check_stat(rc, &r, NFS3ERR_NOTDIR, "raw_readdir_on_file");
	}
	nt_res_clear(&r);
}

static void raw_write_tests(struct rpc_context *rpc, const struct nt_fh *root)
{
	unsigned char buf[16384], v1[8];
	struct nt_res r;
	struct nt_fh f;
	struct stat lst;
	int rc;

	memset(&r, 0, sizeof(r));
	fill_pattern(buf, sizeof(buf), 7);

	rc = nt_create(rpc, root, "w.bin", UNCHECKED, NULL, NULL, &r);
	if (!check_stat(rc, &r, NFS3_OK, "raw_create_unchecked"))
		return;
	check(r.has_fh && r.fh.len > 0, "raw_create_returns_handle",
	      "no handle in CREATE reply");
	if (!r.has_fh)
		return;
	f = r.fh;

	rc = nt_write(rpc, &f, 0, buf, 8192, FILE_SYNC, &r);
	if (check_stat(rc, &r, NFS3_OK, "raw_write_file_sync")) {
		check(r.count == 8192 && r.committed == FILE_SYNC,
		      "raw_write_file_sync_committed",
		      "count %u committed %d", r.count, r.committed);
		check(r.has_wcc_after && r.wcc_after.size == 8192,
		      "raw_write_wcc_after", "after attrs %s size %" PRIu64,
		      r.has_wcc_after ? "present" : "absent",
		      r.wcc_after.size);
	}
	memcpy(v1, r.verf, 8);
	rc = nt_write(rpc, &f, 8192, buf + 8192, 4096, UNSTABLE, &r);
	if (check_stat(rc, &r, NFS3_OK, "raw_write_unstable"))
		check(r.count == 4096 && memcmp(v1, r.verf, 8) == 0,
		      "raw_write_unstable_same_verf", "count %u, verf %s",
		      r.count, memcmp(v1, r.verf, 8) ? "differs" : "same");
	rc = nt_write(rpc, &f, 12288, buf + 12288, 4096, DATA_SYNC, &r);
	if (check_stat(rc, &r, NFS3_OK, "raw_write_data_sync"))
		check(r.committed == DATA_SYNC || r.committed == FILE_SYNC,
		      "raw_write_data_sync_committed", "committed %d",
		      r.committed);
	rc = nt_commit(rpc, &f, 0, 0, &r);
	if (check_stat(rc, &r, NFS3_OK, "raw_commit"))
		check(memcmp(v1, r.verf, 8) == 0, "raw_commit_verf_matches",
		      "COMMIT verifier differs from WRITE verifier");
	rc = nt_commit(rpc, &f, 4096, 100, &r);
	check_stat(rc, &r, NFS3_OK, "raw_commit_range");

	check(stat(lpath(rw_export, "w.bin"), &lst) == 0 &&
		      lst.st_size == 16384,
	      "raw_write_local_size", "local size %lld",
	      (long long)lst.st_size);

	rc = nt_read(rpc, &f, 0, 16384, &r);
	if (check_stat(rc, &r, NFS3_OK, "raw_read"))
		check(r.count == 16384 && r.data_len == 16384 &&
			      memcmp(r.data, buf, 16384) == 0 && r.eof,
		      "raw_read_data_eof", "count %u len %u eof %d", r.count,
		      r.data_len, r.eof);
	rc = nt_read(rpc, &f, 1000, 100, &r);
	if (check_stat(rc, &r, NFS3_OK, "raw_read_middle"))
		check(r.count == 100 && memcmp(r.data, buf + 1000, 100) == 0 &&
			      !r.eof,
		      "raw_read_middle_data", "count %u eof %d", r.count,
		      r.eof);
	rc = nt_read(rpc, &f, 1 << 20, 100, &r);
	if (check_stat(rc, &r, NFS3_OK, "raw_read_past_eof"))
		check(r.count == 0 && r.eof, "raw_read_past_eof_empty",
		      "count %u eof %d", r.count, r.eof);
	rc = nt_read(rpc, &f, 0, 4u << 20, &r);
	if (check_stat(rc, &r, NFS3_OK, "raw_read_huge_count"))
		check(r.count <= 1048576 && r.count == 16384,
		      "raw_read_huge_count_clamped", "count %u", r.count);

	/* READ/WRITE on a directory */
	rc = nt_read(rpc, root, 0, 10, &r);
	check(rc == 0 && (r.status == NFS3ERR_ISDIR ||
			  r.status == NFS3ERR_INVAL),
	      "raw_read_directory", "rc %d status %s", rc,
	      nt_nfsstat_name(r.status));
	rc = nt_write(rpc, root, 0, buf, 10, FILE_SYNC, &r);
	check(rc == 0 && (r.status == NFS3ERR_ISDIR ||
			  r.status == NFS3ERR_INVAL),
	      "raw_write_directory", "rc %d status %s", rc,
	      nt_nfsstat_name(r.status));
	nt_res_clear(&r);
}

static void raw_create_tests(struct rpc_context *rpc,
			     const struct nt_fh *root)
{
	const unsigned char va[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	const unsigned char vb[8] = { 8, 7, 6, 5, 4, 3, 2, 1 };
	struct nt_res r;
	struct sattr3 sa;
	struct nfstime3 ctime;
	uint64_t fileid = 0;
	struct nt_fh f;
	struct stat lst;
	int rc;

	memset(&r, 0, sizeof(r));
	rc = nt_create(rpc, root, "ex1", EXCLUSIVE, NULL, va, &r);
	if (check_stat(rc, &r, NFS3_OK, "raw_create_exclusive")) {
		if (r.has_attr)
			fileid = r.attr.fileid;
		else if (r.has_fh && nt_getattr(rpc, &r.fh, &r) == 0)
			fileid = r.attr.fileid;
	}
	rc = nt_create(rpc, root, "ex1", EXCLUSIVE, NULL, va, &r);
	if (check_stat(rc, &r, NFS3_OK, "raw_create_exclusive_retry_same"))
		check(!r.has_attr || r.attr.fileid == fileid,
		      "raw_create_exclusive_retry_same_file",
		      "fileid %" PRIu64 " vs %" PRIu64, r.attr.fileid, fileid);
	rc = nt_create(rpc, root, "ex1", EXCLUSIVE, NULL, vb, &r);
	check_stat(rc, &r, NFS3ERR_EXIST, "raw_create_exclusive_other_verf");

	/* after an exclusive create the client sets the real attributes */
	if (nt_lookup(rpc, root, "ex1", &r) == 0 && r.status == NFS3_OK) {
		f = r.fh;
		memset(&sa, 0, sizeof(sa));
		sa.mode.set_it = 1;
		sa.mode.set_mode3_u.mode = 0640;
		sa.mtime.set_it = SET_TO_SERVER_TIME;
		sa.atime.set_it = SET_TO_SERVER_TIME;
		rc = nt_setattr(rpc, &f, &sa, NULL, &r);
		check_stat(rc, &r, NFS3_OK, "raw_setattr_after_exclusive");
		check(stat(lpath(rw_export, "ex1"), &lst) == 0 &&
			      (lst.st_mode & 07777) == 0640,
		      "raw_setattr_mode_local", "local mode 0%o",
		      lst.st_mode & 07777);
	}

	memset(&sa, 0, sizeof(sa));
	rc = nt_create(rpc, root, "ex1", GUARDED, &sa, NULL, &r);
	check_stat(rc, &r, NFS3ERR_EXIST, "raw_create_guarded_existing");
	sa.mode.set_it = 1;
	sa.mode.set_mode3_u.mode = 0604;
	rc = nt_create(rpc, root, "g1", GUARDED, &sa, NULL, &r);
	if (check_stat(rc, &r, NFS3_OK, "raw_create_guarded_new"))
		check(stat(lpath(rw_export, "g1"), &lst) == 0 &&
			      (lst.st_mode & 07777) == 0604,
		      "raw_create_guarded_mode", "local mode 0%o",
		      lst.st_mode & 07777);
	/* UNCHECKED on an existing file with size 0 truncates it */
	write_local(lpath(rw_export, "g1"), "12345", 5);
	memset(&sa, 0, sizeof(sa));
	sa.size.set_it = 1;
	sa.size.set_size3_u.size = 0;
	rc = nt_create(rpc, root, "g1", UNCHECKED, &sa, NULL, &r);
	check(rc == 0 && r.status == NFS3_OK &&
		      stat(lpath(rw_export, "g1"), &lst) == 0 &&
		      lst.st_size == 0,
	      "raw_create_unchecked_existing_truncates",
	      "rc %d status %s size %lld", rc, nt_nfsstat_name(r.status),
	      (long long)lst.st_size);

	/* SETATTR guard */
	if (nt_lookup(rpc, root, "g1", &r) != 0 || r.status != NFS3_OK)
		goto out;
	f = r.fh;
	if (nt_getattr(rpc, &f, &r) != 0 || r.status != NFS3_OK)
		goto out;
	ctime = r.attr.ctime;
	memset(&sa, 0, sizeof(sa));
	sa.size.set_it = 1;
	sa.size.set_size3_u.size = 77;
	{
		struct nfstime3 wrong = ctime;

		wrong.seconds -= 1000;
		rc = nt_setattr(rpc, &f, &sa, &wrong, &r);
		check_stat(rc, &r, NFS3ERR_NOT_SYNC,
			   "raw_setattr_guard_mismatch");
	}
	check(stat(lpath(rw_export, "g1"), &lst) == 0 && lst.st_size == 0,
	      "raw_setattr_guard_mismatch_no_change", "size became %lld",
	      (long long)lst.st_size);
	rc = nt_setattr(rpc, &f, &sa, &ctime, &r);
	if (check_stat(rc, &r, NFS3_OK, "raw_setattr_guard_match")) {
		check(stat(lpath(rw_export, "g1"), &lst) == 0 &&
			      lst.st_size == 77,
		      "raw_setattr_size_local", "size %lld",
		      (long long)lst.st_size);
		check(r.has_wcc_after && r.wcc_after.size == 77,
		      "raw_setattr_wcc", "after attrs %s",
		      r.has_wcc_after ? "wrong" : "absent");
	}
	/* SETATTR size on a directory */
	rc = nt_setattr(rpc, root, &sa, NULL, &r);
	check(rc == 0 && r.status != NFS3_OK, "raw_setattr_size_directory",
	      "rc %d status %s", rc, nt_nfsstat_name(r.status));
out:
	nt_res_clear(&r);
}

static void raw_namespace_tests(struct rpc_context *rpc,
				const struct nt_fh *root)
{
	struct nt_res r;
	struct nt_fh d, f, removed;
	struct stat lst;
	uint64_t root_fileid = 0;
	char longname[300];
	int rc;

	memset(&r, 0, sizeof(r));
	rc = nt_null(rpc, &r);
	check(rc == 0, "raw_null", "%s", r.error);

	rc = nt_getattr(rpc, root, &r);
	if (check_stat(rc, &r, NFS3_OK, "raw_getattr_root")) {
		root_fileid = r.attr.fileid;
		check(r.attr.type == NF3DIR && stat(rw_export, &lst) == 0 &&
			      r.attr.fileid == lst.st_ino,
		      "raw_getattr_root_attrs",
		      "type %d fileid %" PRIu64 " local ino %lu", r.attr.type,
		      r.attr.fileid, (unsigned long)lst.st_ino);
	}

	rc = nt_lookup(rpc, root, "no-such-name", &r);
	check_stat(rc, &r, NFS3ERR_NOENT, "raw_lookup_missing");
	rc = nt_lookup(rpc, root, "..", &r);
	if (check_stat(rc, &r, NFS3_OK, "raw_lookup_dotdot_at_root"))
		check(r.has_attr && r.attr.fileid == root_fileid,
		      "raw_lookup_dotdot_is_root",
		      "'..' at root has fileid %" PRIu64 ", root %" PRIu64,
		      r.attr.fileid, root_fileid);
	rc = nt_lookup(rpc, root, ".", &r);
	if (check_stat(rc, &r, NFS3_OK, "raw_lookup_dot"))
		check(r.has_attr && r.attr.fileid == root_fileid,
		      "raw_lookup_dot_is_root", "fileid %" PRIu64,
		      r.attr.fileid);
	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	rc = nt_lookup(rpc, root, longname, &r);
	check_stat(rc, &r, NFS3ERR_NAMETOOLONG, "raw_lookup_nametoolong");
	rc = nt_lookup(rpc, root, "a/b", &r);
	check(rc == 0 && r.status != NFS3_OK, "raw_lookup_slash_in_name",
	      "rc %d status %s", rc, nt_nfsstat_name(r.status));

	rc = nt_mkdir(rpc, root, "rd", 0755, &r);
	if (!check_stat(rc, &r, NFS3_OK, "raw_mkdir") || !r.has_fh)
		goto out;
	d = r.fh;
	check(stat(lpath(rw_export, "rd"), &lst) == 0 && S_ISDIR(lst.st_mode)
		      && (lst.st_mode & 0777) == 0755,
	      "raw_mkdir_local", "local mode 0%o", lst.st_mode);
	rc = nt_mkdir(rpc, root, "rd", 0755, &r);
	check_stat(rc, &r, NFS3ERR_EXIST, "raw_mkdir_existing");

	rc = nt_create(rpc, &d, "f", UNCHECKED, NULL, NULL, &r);
	if (!check_stat(rc, &r, NFS3_OK, "raw_create_in_subdir") ||
	    !r.has_fh)
		goto out;
	f = r.fh;
	rc = nt_rmdir(rpc, root, "rd", &r);
	check_stat(rc, &r, NFS3ERR_NOTEMPTY, "raw_rmdir_nonempty");
	/* RFC 1813 lists no error for this; Linux says EISDIR (knfsd:
	 * NFS3ERR_ISDIR). IO would tell the client its disk failed. */
	rc = nt_remove(rpc, root, "rd", &r);
	check(rc == 0 && (r.status == NFS3ERR_ISDIR ||
			  r.status == NFS3ERR_ACCES ||
			  r.status == NFS3ERR_PERM ||
			  r.status == NFS3ERR_INVAL),
	      "raw_remove_directory",
	      "rc %d status %s, expected ISDIR (or ACCES/PERM/INVAL)", rc,
	      nt_nfsstat_name(r.status));
	if (rc == 0)
		printf("# REMOVE of a directory answered %s\n",
		       nt_nfsstat_name(r.status));
	rc = nt_rmdir(rpc, &d, "f", &r);
	check_stat(rc, &r, NFS3ERR_NOTDIR, "raw_rmdir_file");
	rc = nt_lookup(rpc, &f, "x", &r);
	check_stat(rc, &r, NFS3ERR_NOTDIR, "raw_lookup_in_file");

	rc = nt_link(rpc, &f, root, "f.hard", &r);
	if (check_stat(rc, &r, NFS3_OK, "raw_link"))
		check(r.has_attr && r.attr.nlink == 2, "raw_link_nlink",
		      "nlink %u", r.attr.nlink);
	rc = nt_link(rpc, &f, root, "f.hard", &r);
	check_stat(rc, &r, NFS3ERR_EXIST, "raw_link_existing");
	rc = nt_link(rpc, &d, root, "dir.hard", &r);
	check(rc == 0 && r.status != NFS3_OK, "raw_link_directory",
	      "rc %d status %s", rc, nt_nfsstat_name(r.status));

	rc = nt_rename(rpc, &d, "f", root, "f.moved", &r);
	check(rc == 0 && r.status == NFS3_OK &&
		      stat(lpath(rw_export, "f.moved"), &lst) == 0,
	      "raw_rename_cross_dir", "rc %d status %s", rc,
	      nt_nfsstat_name(r.status));
	rc = nt_rename(rpc, root, "no-such", root, "x", &r);
	check_stat(rc, &r, NFS3ERR_NOENT, "raw_rename_missing");
	/* a file handle survives a rename */
	rc = nt_getattr(rpc, &f, &r);
	check_stat(rc, &r, NFS3_OK, "raw_handle_survives_rename");

	rc = nt_symlink(rpc, root, "rsl", "../outside/target", &r);
	if (check_stat(rc, &r, NFS3_OK, "raw_symlink") && r.has_fh) {
		struct nt_fh sl = r.fh;

		rc = nt_readlink(rpc, &sl, &r);
		if (check_stat(rc, &r, NFS3_OK, "raw_readlink"))
			check(r.data && !strcmp(r.data, "../outside/target"),
			      "raw_readlink_target", "got '%s'",
			      r.data ? r.data : "(null)");
		rc = nt_lookup(rpc, root, "rsl", &r);
		check(rc == 0 && r.status == NFS3_OK && r.has_attr &&
			      r.attr.type == NF3LNK,
		      "raw_lookup_symlink_not_followed", "status %s type %d",
		      nt_nfsstat_name(r.status), r.attr.type);
	}
	rc = nt_readlink(rpc, &f, &r);
	check_stat(rc, &r, NFS3ERR_INVAL, "raw_readlink_on_file");

	rc = nt_mknod(rpc, root, "rfifo", NF3FIFO, 0600, &r);
	check(rc == 0 && r.status == NFS3_OK &&
		      lstat(lpath(rw_export, "rfifo"), &lst) == 0 &&
		      S_ISFIFO(lst.st_mode),
	      "raw_mknod_fifo", "rc %d status %s", rc,
	      nt_nfsstat_name(r.status));
	rc = nt_mknod(rpc, root, "rsock", NF3SOCK, 0600, &r);
	check(rc == 0 && r.status == NFS3_OK &&
		      lstat(lpath(rw_export, "rsock"), &lst) == 0 &&
		      S_ISSOCK(lst.st_mode),
	      "raw_mknod_socket", "rc %d status %s", rc,
	      nt_nfsstat_name(r.status));
	rc = nt_mknod(rpc, root, "rreg", NF3REG, 0600, &r);
	check_stat(rc, &r, NFS3ERR_BADTYPE, "raw_mknod_regular_badtype");

	/* ACCESS */
	rc = nt_access(rpc, root, 0x3f, &r);
	if (check_stat(rc, &r, NFS3_OK, "raw_access_dir"))
		check((r.access & 0x1f) == 0x1f && (r.access & ~0x3fu) == 0,
		      "raw_access_dir_root_bits", "granted 0x%x", r.access);

	/* FSSTAT / FSINFO / PATHCONF */
	rc = nt_fsstat(rpc, root, &r);
	if (check_stat(rc, &r, NFS3_OK, "raw_fsstat"))
		check(r.fsstat.tbytes > 0 && r.fsstat.fbytes <= r.fsstat.tbytes
			      && r.fsstat.abytes <= r.fsstat.fbytes &&
			      r.fsstat.tfiles > 0,
		      "raw_fsstat_values",
		      "tbytes %" PRIu64 " fbytes %" PRIu64 " abytes %" PRIu64,
		      r.fsstat.tbytes, r.fsstat.fbytes, r.fsstat.abytes);
	rc = nt_fsinfo(rpc, root, &r);
	if (check_stat(rc, &r, NFS3_OK, "raw_fsinfo")) {
		check(r.fsinfo.rtmax == 1048576, "raw_fsinfo_rtmax",
		      "rtmax %u", r.fsinfo.rtmax);
		check(r.fsinfo.wtmax >= 65536 && r.fsinfo.rtpref > 0 &&
			      r.fsinfo.rtpref <= r.fsinfo.rtmax &&
			      r.fsinfo.wtpref > 0 &&
			      r.fsinfo.wtpref <= r.fsinfo.wtmax &&
			      r.fsinfo.dtpref > 0 && r.fsinfo.maxfilesize > 0,
		      "raw_fsinfo_values",
		      "wtmax %u rtpref %u wtpref %u dtpref %u", r.fsinfo.wtmax,
		      r.fsinfo.rtpref, r.fsinfo.wtpref, r.fsinfo.dtpref);
		check((r.fsinfo.properties & 0x1) && (r.fsinfo.properties & 0x2),
		      "raw_fsinfo_link_symlink_props", "properties 0x%x",
		      r.fsinfo.properties);
	}
	rc = nt_pathconf(rpc, root, &r);
	if (check_stat(rc, &r, NFS3_OK, "raw_pathconf"))
		check(r.pathconf.name_max == 255 && r.pathconf.linkmax > 1 &&
			      r.pathconf.no_trunc &&
			      !r.pathconf.case_insensitive &&
			      r.pathconf.case_preserving,
		      "raw_pathconf_values", "name_max %u linkmax %u",
		      r.pathconf.name_max, r.pathconf.linkmax);

	/* REMOVE then the old handle is stale */
	rc = nt_create(rpc, root, "gone", UNCHECKED, NULL, NULL, &r);
	if (check_stat(rc, &r, NFS3_OK, "raw_create_gone") && r.has_fh) {
		removed = r.fh;
		rc = nt_remove(rpc, root, "gone", &r);
		check(rc == 0 && r.status == NFS3_OK &&
			      lstat(lpath(rw_export, "gone"), &lst) != 0,
		      "raw_remove", "rc %d status %s", rc,
		      nt_nfsstat_name(r.status));
		rc = nt_getattr(rpc, &removed, &r);
		check_stat(rc, &r, NFS3ERR_STALE, "raw_removed_handle_stale");
	}
	rc = nt_remove(rpc, root, "gone", &r);
	check_stat(rc, &r, NFS3ERR_NOENT, "raw_remove_missing");
	rc = nt_rmdir(rpc, root, "f.moved", &r);
	check_stat(rc, &r, NFS3ERR_NOTDIR, "raw_rmdir_on_file");
	rc = nt_remove(rpc, &d, "x", &r);
	check_stat(rc, &r, NFS3ERR_NOENT, "raw_remove_missing_in_subdir");
	rc = nt_rmdir(rpc, root, "rd", &r);
	check_stat(rc, &r, NFS3_OK, "raw_rmdir");
out:
	nt_res_clear(&r);
}

static void raw_handle_tests(struct rpc_context *rpc,
			     const struct nt_fh *root)
{
	struct nt_res r;
	struct nt_fh f, bad;
	unsigned int i, n_ok = 0, n_other = 0;
	int other_status = 0;
	int rc;

	memset(&r, 0, sizeof(r));
	if (nt_lookup(rpc, root, "w.bin", &r) != 0 || r.status != NFS3_OK) {
		check(0, "raw_handle_setup", "LOOKUP w.bin failed");
		return;
	}
	f = r.fh;
	/* flip one bit in every byte position in turn */
	for (i = 0; i < f.len; i++) {
		bad = f;
		bad.data[i] ^= (unsigned char)(1u << (i % 8));
		rc = nt_getattr(rpc, &bad, &r);
		if (rc != 0) {
			check(0, "raw_bitflip_handles", "byte %u: %s", i,
			      r.error);
			return;
		}
		if (r.status == NFS3_OK)
			n_ok++;
		else if (r.status != NFS3ERR_BADHANDLE &&
			 r.status != NFS3ERR_STALE) {
			n_other++;
			other_status = r.status;
		}
	}
	check(n_ok == 0, "raw_bitflip_handles_never_ok",
	      "%u of %u one-bit-flipped handles were accepted", n_ok, f.len);
	check(n_other == 0, "raw_bitflip_handles_badhandle_or_stale",
	      "%u answered %s instead of BADHANDLE/STALE", n_other,
	      nt_nfsstat_name(other_status));

	bad = f;
	bad.len = f.len - 1;
	rc = nt_getattr(rpc, &bad, &r);
	check(rc == 0 && (r.status == NFS3ERR_BADHANDLE ||
			  r.status == NFS3ERR_STALE),
	      "raw_truncated_handle", "rc %d status %s", rc,
	      nt_nfsstat_name(r.status));
	bad.len = 0;
	rc = nt_getattr(rpc, &bad, &r);
	check(rc == 0 && (r.status == NFS3ERR_BADHANDLE ||
			  r.status == NFS3ERR_STALE),
	      "raw_empty_handle", "rc %d status %s", rc,
	      nt_nfsstat_name(r.status));
	bad = f;
	for (i = 0; i < bad.len; i++)
		bad.data[i] = (unsigned char)(i * 37 + 11);
	rc = nt_lookup(rpc, &bad, "x", &r);
	check(rc == 0 && (r.status == NFS3ERR_BADHANDLE ||
			  r.status == NFS3ERR_STALE),
	      "raw_random_dir_handle", "rc %d status %s", rc,
	      nt_nfsstat_name(r.status));
	nt_res_clear(&r);
}

static void raw_ro_tests(struct rpc_context *rpc, const struct nt_fh *ro_root)
{
	struct nt_res r;
	struct nt_fh f;
	struct sattr3 sa;
	int rc;

	memset(&r, 0, sizeof(r));
	rc = nt_lookup(rpc, ro_root, "ro.txt", &r);
	if (!check_stat(rc, &r, NFS3_OK, "raw_ro_lookup"))
		return;
	f = r.fh;
	rc = nt_read(rpc, &f, 0, 100, &r);
	if (check_stat(rc, &r, NFS3_OK, "raw_ro_read"))
		check(r.data_len == 9 && !memcmp(r.data, "readonly\n", 9),
		      "raw_ro_read_data", "len %u", r.data_len);
	rc = nt_write(rpc, &f, 0, "xx", 2, FILE_SYNC, &r);
	check_stat(rc, &r, NFS3ERR_ROFS, "raw_ro_write");
	rc = nt_create(rpc, ro_root, "n", UNCHECKED, NULL, NULL, &r);
	check_stat(rc, &r, NFS3ERR_ROFS, "raw_ro_create");
	rc = nt_mkdir(rpc, ro_root, "n", 0755, &r);
	check_stat(rc, &r, NFS3ERR_ROFS, "raw_ro_mkdir");
	rc = nt_remove(rpc, ro_root, "ro.txt", &r);
	check_stat(rc, &r, NFS3ERR_ROFS, "raw_ro_remove");
	rc = nt_rename(rpc, ro_root, "ro.txt", ro_root, "ro2", &r);
	check_stat(rc, &r, NFS3ERR_ROFS, "raw_ro_rename");
	rc = nt_symlink(rpc, ro_root, "s", "t", &r);
	check_stat(rc, &r, NFS3ERR_ROFS, "raw_ro_symlink");
	memset(&sa, 0, sizeof(sa));
	sa.mode.set_it = 1;
	sa.mode.set_mode3_u.mode = 0777;
	rc = nt_setattr(rpc, &f, &sa, NULL, &r);
	check_stat(rc, &r, NFS3ERR_ROFS, "raw_ro_setattr");
	rc = nt_commit(rpc, &f, 0, 0, &r);
	check(rc == 0 && (r.status == NFS3_OK || r.status == NFS3ERR_ROFS),
	      "raw_ro_commit", "rc %d status %s", rc,
	      nt_nfsstat_name(r.status));
	rc = nt_access(rpc, &f, 0x3f, &r);
	if (check_stat(rc, &r, NFS3_OK, "raw_ro_access"))
		check((r.access & 0x1) && !(r.access & (0x4 | 0x8 | 0x10)),
		      "raw_ro_access_no_write_bits", "granted 0x%x", r.access);
	check(access(lpath(ro_export, "ro.txt"), F_OK) == 0,
	      "raw_ro_file_still_there", "ro.txt vanished");
	nt_res_clear(&r);
}

int main(int argc, char **argv)
{
	struct nfs_context *nfs;
	struct rpc_context *rpc;
	struct nt_fh root = { 0 }, ro_root = { 0 };
	int port, mountport;

	if (argc != 5) {
		fprintf(stderr,
			"usage: %s PORT MOUNTPORT RW_EXPORT RO_EXPORT\n",
			argv[0]);
		return 2;
	}
	port = atoi(argv[1]);
	mountport = atoi(argv[2]);
	rw_export = argv[3];
	ro_export = argv[4];
	if (write_local(lpath(ro_export, "ro.txt"), "readonly\n", 9) != 0) {
		fprintf(stderr, "cannot write %s/ro.txt\n", ro_export);
		return 2;
	}

	nfs = hl_mount(rw_export, port, mountport);
	check(nfs != NULL, "hl_mount", "nfs_mount of %s failed", rw_export);
	if (nfs) {
		hl_rw_tests(nfs);
		hl_namespace_tests(nfs);
		hl_readdir_test(nfs);
		nfs_umount(nfs);
		nfs_destroy_context(nfs);
	}
	hl_ro_tests(port, mountport);

	raw_mount_tests(mountport, &root, &ro_root);
	if (mountport != port) {
		/* MOUNT is also served on the NFS port */
		struct rpc_context *m = nt_rpc_new(HOST, port, MOUNT_PROGRAM,
						   MOUNT_V3, -1, -1);
		struct nt_res r;

		memset(&r, 0, sizeof(r));
		check(m && nt_mnt(m, rw_export, &r) == 0 &&
			      r.status == MNT3_OK && r.fh.len == root.len &&
			      !memcmp(r.fh.data, root.data, root.len),
		      "mnt_on_nfs_port_same_handle", "%s status %s",
		      m ? r.error : "cannot connect",
		      nt_mntstat_name(r.status));
		nt_res_clear(&r);
		if (m)
			rpc_destroy_context(m);
	}
	if (root.len == 0) {
		check(0, "raw_nfs", "no root handle from MNT; skipping");
		goto done;
	}

	rpc = nt_rpc_new(HOST, port, NFS_PROGRAM, NFS_V3, -1, -1);
	check(rpc != NULL, "nfs_connect", "cannot connect to NFS on %d", port);
	if (!rpc)
		goto done;
	raw_namespace_tests(rpc, &root);
	raw_write_tests(rpc, &root);
	raw_create_tests(rpc, &root);
	raw_readdir_tests(rpc, &root);
	raw_handle_tests(rpc, &root);
	if (ro_root.len)
		raw_ro_tests(rpc, &ro_root);
	else
		check(0, "raw_ro", "no handle for the ro export");
	rpc_destroy_context(rpc);
done:
	printf("# %d passed, %d failed\n", n_passed, n_failed);
	return n_failed ? 1 : 0;
}
