// SPDX-License-Identifier: MIT
/*
 * Unit tests of vfs fault injection (vfs/fault.h): NASD_FAULTS specs good
 * and bad, Nth-call triggering (once, every Nth, from the Nth on), rules
 * counting independently, every vfs entry point failing with the injected
 * errno and doing nothing, and the data path absorbing what it must:
 * short writes completed, short reads continued, EINTR retried, in both
 * buffered and direct mode, while ENOSPC/EDQUOT/EIO reach the caller;
 * "cred" failing vfs_cred_set for non-root identities only, cached ones
 * included, and leaving the thread's credential cache invalid.
 * Needs root (handles); exits 77 otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/err.h"
#include "core/iobuf.h"
#include "vfs/fault.h"
#include "vfs/vfs.h"

static char tmpdir[256];
static struct vfs_export *ex;
static struct vfs_obj *root;
static const struct vfs_cred cred_root = {.uid = 0, .gid = 0};
/* A client's identity, and root with a client's groups (uid 0 all the same). */
static const struct vfs_cred cred_user = {
	.uid = 1000,
	.gid = 1000,
	.ngroups = 1,
	.groups = {1001},
};
static const struct vfs_cred cred_root_groups = {
	.uid = 0,
	.gid = 1000,
	.ngroups = 1,
	.groups = {1001},
};

static int setup(void **state)
{
	const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/var/tmp";
	uint8_t key[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9};

	snprintf(tmpdir, sizeof(tmpdir), "%s/nasd-fault-XXXXXX", base);
	if (mkdtemp(tmpdir) == NULL)
		return -1;
	vfs_secret_set(key);
	if (vfs_export_open(tmpdir, 78, &ex) < 0)
		return -1;
	if (vfs_cred_set(&cred_root) < 0)
		return -1;
	return vfs_obj_root(ex, &root);
}

static int teardown(void **state)
{
	char cmd[300];

	vfs_fault_set(NULL, NULL, 0);
	vfs_obj_put(root);
	vfs_export_close(ex);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

/*
 * Each test starts and ends with no rule, the page cache data path and
 * root's identity.
 */
static int per_test_reset(void **state)
{
	vfs_export_set_io(ex, VFS_IO_BUFFERED);
	if (vfs_fault_set(NULL, NULL, 0) < 0)
		return -1;
	return vfs_cred_set(&cred_root);
}

static void set_faults(const char *spec)
{
	char err[160];

	if (vfs_fault_set(spec, err, sizeof(err)) != 0)
		fail_msg("spec '%s' refused: %s", spec ? spec : "(null)",
			 err);
}

static struct vfs_obj *mkfile(const char *name)
{
	struct vfs_sattr sa = {.set_mode = true, .mode = 0644};
	struct vfs_obj *o = NULL;

	assert_int_equal(vfs_create(root, name, strlen(name),
				    VFS_CREATE_UNCHECKED, &sa, NULL, &o),
			 0);
	return o;
}

static bool exists(const char *name)
{
	char path[400];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	return lstat(path, &st) == 0;
}

/* The file's bytes as the kernel has them (read outside the vfs). */
static uint8_t *slurp(const char *name, size_t *len)
{
	char path[400];
	struct stat st;
	uint8_t *p;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	p = malloc((size_t)st.st_size + 1);
	assert_non_null(p);
	assert_int_equal(pread(fd, p, (size_t)st.st_size, 0), st.st_size);
	close(fd);
	*len = (size_t)st.st_size;
	return p;
}

static void fill(uint8_t *p, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (uint8_t)(seed >> 16);
	}
}

static int getattr_root(void)
{
	struct vfs_attr a;

	return vfs_getattr(root, &a);
}

/* ------------------------------------------------------------ parsing */

static void test_parse_good(void **state)
{
	static const char *const good[] = {
		"write:ENOSPC:3",
		"write:ENOSPC:3,read:EIO:5/every,lookup:EIO:1,write:short:2,"
		"write:EINTR:4",
		"getattr:EDQUOT:1+ ; statfs:5:7",
		"  create:ENOSPC:1\tmkdir:EIO:2/every\n",
		"all:EIO:97/every",
		"pread:short:1/every,pwrite:EIO:3,pread:EINTR:2",
		"allocate:ENOSPC:1,deallocate:EIO:1,seek:ENXIO:1,copy:EIO:1,"
		"clone:EIO:1,advise:EINVAL:1,fh:ESTALE:1,commit:EIO:1",
		"setattr:EPERM:1,access:EACCES:1,readlink:EIO:1,symlink:EIO:1,"
		"mknod:EIO:1,remove:EIO:1,rmdir:ENOTEMPTY:1,rename:EXDEV:1,"
		"link:EMLINK:1,readdir:EIO:1,read:EIO:1,write:EJUKEBOX:1",
		"write:EIO:18446744073709551615",
		"cred:EPERM:1+,cred:EACCES:2/every,cred:EIO:3",
	};

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		char err[160] = "untouched";

		if (vfs_fault_set(good[i], err, sizeof(err)) != 0)
			fail_msg("good spec '%s' refused: %s", good[i], err);
		assert_string_equal(err, "");
		assert_true(atomic_load(&vfs_faults_on));
	}
	/* Empty specs turn injection off. */
	assert_int_equal(vfs_fault_set("", NULL, 0), 0);
	assert_false(atomic_load(&vfs_faults_on));
	assert_int_equal(vfs_fault_set(" ,, ", NULL, 0), 0);
	assert_false(atomic_load(&vfs_faults_on));
	set_faults("write:EIO:1");
	assert_int_equal(vfs_fault_set(NULL, NULL, 0), 0);
	assert_false(atomic_load(&vfs_faults_on));
	assert_int_equal(getattr_root(), 0);
	assert_string_equal(vfs_fault_op_name(VFS_OP_WRITE), "write");
	assert_string_equal(vfs_fault_op_name(VFS_OP_CRED), "cred");
	assert_string_equal(vfs_fault_op_name(VFS_OP_COUNT), "?");
}

static void test_parse_bad(void **state)
{
	static const char *const bad[] = {
		"write",
		"write:EIO",
		"write:EIO:",
		"write:EIO:0",
		"write:EIO:-1",
		"write:EIO:+3",
		"write:EIO:3x",
		"write:EIO:3/evry",
		"write:EIO:3/every/every",
		"write:EIO:3++",
		"write:EIO:18446744073709551616",
		"bogus:EIO:1",
		"WRITE:EIO:1",
		"write:EFOO:1",
		"write:eio:1",
		"write:0:1",
		"write:4096:1",
		":EIO:1",
		"write::1",
		"lookup:short:1",
		"all:short:1",
		"getattr:short:1/every",
		"cred:short:1",
		"CRED:EPERM:1",
		"write:ENOSPC:3,read:EIO",
	};
	char big[5000], many[2048], err[160];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		/* A bad spec changes nothing: the previous rule stays. */
		set_faults("getattr:EIO:1");
		err[0] = '\0';
		if (vfs_fault_set(bad[i], err, sizeof(err)) != -EINVAL)
			fail_msg("bad spec '%s' accepted", bad[i]);
		assert_true(strlen(err) > 0);
		assert_true(atomic_load(&vfs_faults_on));
		assert_int_equal(getattr_root(), -EIO);
	}
	/* Too long, too many rules; a NULL error buffer is fine. */
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(vfs_fault_set(big, NULL, 0), -EINVAL);
	many[0] = '\0';
	for (i = 0; i <= VFS_FAULT_RULES_MAX; i++)
		strcat(many, "statfs:EIO:1,");
	assert_int_equal(vfs_fault_set(many, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "rules"));
	/* Exactly the maximum is fine. */
	many[strlen("statfs:EIO:1,") * VFS_FAULT_RULES_MAX] = '\0';
	assert_int_equal(vfs_fault_set(many, err, sizeof(err)), 0);
}

/* NASD_FAULTS is read by vfs_fault_init_env(). */
static void test_env(void **state)
{
	assert_int_equal(unsetenv("NASD_FAULTS"), 0);
	assert_int_equal(vfs_fault_init_env(), 0);
	assert_false(atomic_load(&vfs_faults_on));
	assert_int_equal(setenv("NASD_FAULTS", "getattr:ENOSPC:2", 1), 0);
	assert_int_equal(vfs_fault_init_env(), 0);
	assert_int_equal(getattr_root(), 0);
	assert_int_equal(getattr_root(), -ENOSPC);
	assert_int_equal(getattr_root(), 0);
	assert_int_equal(setenv("NASD_FAULTS", "getattr:ENOSPC", 1), 0);
	assert_int_equal(vfs_fault_init_env(), -EINVAL);
	assert_int_equal(unsetenv("NASD_FAULTS"), 0);
}

/* ------------------------------------------------------------ triggering */

static void test_nth_once(void **state)
{
	set_faults("getattr:EIO:3");
	for (int i = 1; i <= 10; i++)
		assert_int_equal(getattr_root(), i == 3 ? -EIO : 0);
	assert_int_equal(vfs_fault_fired(), 1);
	/* Setting rules again restarts the counts. */
	set_faults("getattr:EIO:1");
	assert_int_equal(vfs_fault_fired(), 0);
	assert_int_equal(getattr_root(), -EIO);
	assert_int_equal(getattr_root(), 0);
}

static void test_every_nth(void **state)
{
	set_faults("getattr:EACCES:3/every");
	for (int i = 1; i <= 12; i++)
		assert_int_equal(getattr_root(), i % 3 == 0 ? -EACCES : 0);
	assert_int_equal(vfs_fault_fired(), 4);
}

static void test_from_nth(void **state)
{
	set_faults("getattr:ESTALE:4+");
	for (int i = 1; i <= 9; i++)
		assert_int_equal(getattr_root(), i >= 4 ? -ESTALE : 0);
	assert_int_equal(vfs_fault_fired(), 6);
}

/* Rules count their own calls; other operations do not count. */
static void test_rules_independent(void **state)
{
	struct vfs_statfs sf;

	set_faults("getattr:EIO:2/every,getattr:ENOSPC:3/every,"
		   "statfs:EDQUOT:2");
	assert_int_equal(getattr_root(), 0);		/* 1 */
	assert_int_equal(vfs_statfs(root, &sf), 0);	/* statfs 1 */
	assert_int_equal(getattr_root(), -EIO);		/* 2 */
	assert_int_equal(getattr_root(), -ENOSPC);	/* 3 */
	assert_int_equal(getattr_root(), -EIO);		/* 4 */
	assert_int_equal(getattr_root(), 0);		/* 5 */
	/* 6: both fire, the first rule decides; both counted. */
	assert_int_equal(getattr_root(), -EIO);
	assert_int_equal(getattr_root(), 0);		/* 7 */
	assert_int_equal(vfs_statfs(root, &sf), -EDQUOT); /* statfs 2 */
	assert_int_equal(vfs_statfs(root, &sf), 0);
	assert_int_equal(getattr_root(), -EIO);		/* 8 */
	assert_int_equal(getattr_root(), -ENOSPC);	/* 9 */
}

/* "all" counts every entry operation with one counter. */
static void test_all_counter(void **state)
{
	struct vfs_statfs sf;
	uint32_t g;

	set_faults("all:EIO:3/every");
	assert_int_equal(getattr_root(), 0);
	assert_int_equal(vfs_statfs(root, &sf), 0);
	assert_int_equal(vfs_access(root, VFS_ACCESS_READ, false, &g), -EIO);
	assert_int_equal(getattr_root(), 0);
}

/* ------------------------------------------------------------ entry points */

static bool dirent_count(void *ctx, const struct vfs_dirent *de)
{
	(*(int *)ctx)++;
	return true;
}

/*
 * Every entry point fails with the injected errno and leaves the file
 * system as it was.
 */
static void test_every_entry_point(void **state)
{
	struct vfs_sattr sa = {.set_mode = true, .mode = 0600};
	uint8_t fh[VFS_FH_MAX], buf[64], verf[8] = {0};
	struct vfs_obj *f, *d, *l, *o = NULL;
	struct vfs_statfs sf;
	struct vfs_attr a;
	struct vfs_read_res rd;
	uint64_t pos, size;
	uint32_t g;
	bool eof;
	int fhlen, n = 0;
	char lbuf[64];

	f = mkfile("f");
	memset(buf, 'a', sizeof(buf));
	assert_int_equal(vfs_write(f, 0, buf, sizeof(buf), VFS_UNSTABLE), 64);
	assert_int_equal(vfs_mkdir(root, "d", 1, NULL, &d), 0);
	assert_int_equal(vfs_symlink(root, "l", 1, "f", 1, NULL, &l), 0);
	fhlen = vfs_obj_fh(f, fh, sizeof(fh));
	assert_true(fhlen > 0);

	set_faults("all:EIO:1/every");
	assert_int_equal(vfs_getattr(f, &a), -EIO);
	assert_int_equal(vfs_setattr(f, &sa), -EIO);
	assert_int_equal(vfs_lookup(root, "f", 1, &o), -EIO);
	assert_int_equal(vfs_access(f, VFS_ACCESS_READ, false, &g), -EIO);
	assert_int_equal(vfs_readlink(l, lbuf, sizeof(lbuf)), -EIO);
	assert_int_equal(vfs_read(f, 0, buf, sizeof(buf), &eof), -EIO);
	assert_int_equal(vfs_read_payload(f, 0, 64, 0, &rd), -EIO);
	assert_int_equal(rd.data.kind, PAYLOAD_NONE);
	assert_int_equal(vfs_write(f, 0, "zz", 2, VFS_FILE_SYNC), -EIO);
	assert_int_equal(vfs_commit(f, 0, 0), -EIO);
	assert_int_equal(vfs_create(root, "c", 1, VFS_CREATE_GUARDED, &sa,
				    verf, &o),
			 -EIO);
	assert_int_equal(vfs_mkdir(root, "m", 1, &sa, &o), -EIO);
	assert_int_equal(vfs_symlink(root, "s", 1, "f", 1, &sa, &o), -EIO);
	assert_int_equal(vfs_mknod(root, "p", 1, VFS_FIFO, 0, 0, &sa, &o),
			 -EIO);
	assert_int_equal(vfs_remove(root, "f", 1), -EIO);
	assert_int_equal(vfs_rmdir(root, "d", 1), -EIO);
	assert_int_equal(vfs_rename(root, "f", 1, root, "g", 1), -EIO);
	assert_int_equal(vfs_link(f, root, "h", 1), -EIO);
	assert_int_equal(vfs_readdir(root, 0, dirent_count, &n, &eof), -EIO);
	assert_int_equal(n, 0);
	assert_int_equal(vfs_statfs(root, &sf), -EIO);
	assert_int_equal(vfs_obj_from_fh(ex, fh, (size_t)fhlen, &o), -EIO);
	assert_int_equal(vfs_allocate(f, 0, 4096), -EIO);
	assert_int_equal(vfs_deallocate(f, 0, 4096), -EIO);
	assert_int_equal(vfs_seek(f, 0, VFS_SEEK_DATA, &pos, &size), -EIO);
	assert_int_equal(vfs_copy_range(f, 0, f, 100, 10, 10, VFS_UNSTABLE),
			 -EIO);
	assert_int_equal(vfs_clone_range(f, 0, f, 4096, 0), -EIO);
	assert_int_equal(vfs_advise(f, 0, 0, VFS_ADV_NORMAL), -EIO);
	assert_null(o);
	/* 26 entry calls, each one fault. */
	assert_int_equal(vfs_fault_fired(), 26);

	set_faults(NULL);
	/* Nothing happened: no new names, the file as it was. */
	assert_false(exists("c") || exists("m") || exists("s") ||
		     exists("p") || exists("g") || exists("h"));
	assert_true(exists("f") && exists("d") && exists("l"));
	assert_int_equal(vfs_getattr(f, &a), 0);
	assert_int_equal(a.size, 64);
	assert_int_equal(a.mode, 0644);
	assert_int_equal(vfs_read(f, 0, buf, sizeof(buf), &eof), 64);
	assert_int_equal(buf[0], 'a');

	/* EINTR outside the data path goes up as it is (JUKEBOX/DELAY). */
	set_faults("lookup:EINTR:1");
	assert_int_equal(vfs_lookup(root, "f", 1, &o), -EINTR);
	assert_int_equal(vfs_lookup(root, "f", 1, &o), 0);
	vfs_obj_put(o);
	set_faults(NULL);

	vfs_obj_put(l);
	vfs_obj_put(d);
	vfs_obj_put(f);
}

/* ------------------------------------------------------------ cred */

/* The calling thread's ids as the kernel has them (not the cache). */
static uid_t kernel_fsuid(void)
{
	return (uid_t)syscall(SYS_setfsuid, (uid_t)-1);
}

static gid_t kernel_fsgid(void)
{
	return (gid_t)syscall(SYS_setfsgid, (gid_t)-1);
}

static void assert_kernel_ids(uid_t uid, gid_t gid)
{
	assert_int_equal(kernel_fsuid(), uid);
	assert_int_equal(kernel_fsgid(), gid);
}

/*
 * "cred" fails vfs_cred_set even for the identity the thread already has
 * (the check comes before the cache's shortcut), changes nothing, and
 * leaves the cache invalid: the next good call really sets the ids.
 */
static void test_cred_fault_cache(void **state)
{
	gid_t groups[4];

	assert_int_equal(vfs_cred_set(&cred_user), 0);
	assert_kernel_ids(1000, 1000);

	set_faults("cred:EPERM:1");
	assert_int_equal(vfs_cred_set(&cred_user), -EPERM);
	assert_int_equal(vfs_fault_fired(), 1);
	/* Nothing was changed by the fault itself. */
	assert_kernel_ids(1000, 1000);

	/*
	 * Move the ids behind the cache's back: the next call must set every
	 * id again (a cache still valid would see 1000:1000 and its groups
	 * unchanged and skip the syscalls, leaving 0:0 in force).
	 */
	syscall(SYS_setfsuid, (uid_t)0);
	syscall(SYS_setfsgid, (gid_t)0);
	assert_int_equal(syscall(SYS_setgroups, (size_t)0, NULL), 0);
	assert_int_equal(vfs_cred_set(&cred_user), 0);
	assert_kernel_ids(1000, 1000);
	assert_int_equal(syscall(SYS_getgroups, 4, groups), 1);
	assert_int_equal(groups[0], 1001);
	assert_int_equal(vfs_fault_fired(), 1);

	/* The error is the rule's; the same failure from another state. */
	set_faults("cred:EACCES:1");
	assert_int_equal(vfs_cred_set(&cred_root), 0);
	assert_int_equal(vfs_cred_set(&cred_user), -EACCES);
	assert_kernel_ids(0, 0);
	assert_int_equal(vfs_cred_set(&cred_user), 0);
	assert_kernel_ids(1000, 1000);

	set_faults(NULL);
	assert_int_equal(vfs_cred_set(&cred_root), 0);
	assert_kernel_ids(0, 0);
}

/* Only identities with a uid other than 0 count, whatever their groups. */
static void test_cred_fault_uid_rule(void **state)
{
	set_faults("cred:EPERM:1+");
	for (int i = 0; i < 3; i++) {
		assert_int_equal(vfs_cred_set(&cred_root), 0);
		assert_int_equal(vfs_cred_set(&cred_root_groups), 0);
		assert_kernel_ids(0, 1000);
	}
	assert_int_equal(vfs_fault_fired(), 0);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(vfs_cred_set(&cred_user), -EPERM);
		/* Root between two failures is still served. */
		assert_int_equal(vfs_cred_set(&cred_root), 0);
		assert_kernel_ids(0, 0);
	}
	assert_int_equal(vfs_fault_fired(), 3);

	/* Counting sees only the non-root calls: 2, 4 of them fail. */
	set_faults("cred:EIO:2/every");
	assert_int_equal(vfs_cred_set(&cred_user), 0);		/* 1 */
	assert_int_equal(vfs_cred_set(&cred_root), 0);
	assert_int_equal(vfs_cred_set(&cred_user), -EIO);	/* 2 */
	assert_int_equal(vfs_cred_set(&cred_root_groups), 0);
	assert_int_equal(vfs_cred_set(&cred_user), 0);		/* 3 */
	assert_int_equal(vfs_cred_set(&cred_user), -EIO);	/* 4 */
	assert_int_equal(vfs_fault_fired(), 2);

	/* "all" is the filesystem operations, not cred. */
	set_faults("all:EIO:1/every");
	assert_int_equal(vfs_cred_set(&cred_user), 0);
	assert_int_equal(vfs_cred_set(&cred_root), 0);
	assert_int_equal(getattr_root(), -EIO);
	assert_int_equal(vfs_fault_fired(), 1);

	/* Other rules do not count cred calls, nor cred rules vfs calls. */
	set_faults("getattr:EIO:2,cred:EPERM:2");
	assert_int_equal(vfs_cred_set(&cred_user), 0);
	assert_int_equal(vfs_cred_set(&cred_root), 0);
	assert_int_equal(getattr_root(), 0);
	assert_int_equal(vfs_cred_set(&cred_user), -EPERM);
	assert_int_equal(vfs_cred_set(&cred_root), 0);
	assert_int_equal(getattr_root(), -EIO);
	set_faults(NULL);
	assert_int_equal(vfs_cred_set(&cred_user), 0);
	assert_int_equal(vfs_cred_set(&cred_root), 0);
}

/* ------------------------------------------------------------ data path */

#define BIG (1u << 20)

/* Write @len bytes at @off under @spec; the file must match. */
static void write_through(const char *name, const char *spec, uint64_t off,
			  size_t len, size_t mis, uint64_t min_fired)
{
	uint8_t *src = malloc(len + 64), *got, *p;
	struct vfs_obj *o;
	size_t flen;

	assert_non_null(src);
	p = src + mis;
	fill(p, len, (uint32_t)len ^ (uint32_t)off);
	o = mkfile(name);
	set_faults(spec);
	assert_int_equal(vfs_write(o, off, p, len, VFS_UNSTABLE),
			 (ssize_t)len);
	assert_true(vfs_fault_fired() >= min_fired);
	set_faults(NULL);
	got = slurp(name, &flen);
	assert_int_equal(flen, off + len);
	for (uint64_t i = 0; i < off; i++)
		assert_int_equal(got[i], 0);
	assert_memory_equal(got + off, p, len);
	free(got);
	free(src);
	vfs_obj_put(o);
}

/* Read @len bytes back at @off under @spec through both read calls. */
static void read_through(const char *name, const char *spec, uint64_t off,
			 size_t len, bool want_eof, uint64_t min_fired)
{
	uint8_t *buf = malloc(len), *want;
	struct vfs_read_res rd;
	struct vfs_obj *o;
	size_t flen;
	bool eof = !want_eof;

	assert_non_null(buf);
	want = slurp(name, &flen);
	assert_true(off + len <= flen);
	assert_int_equal(vfs_lookup(root, name, strlen(name), &o), 0);
	set_faults(spec);
	assert_int_equal(vfs_read(o, off, buf, len, &eof), (ssize_t)len);
	assert_int_equal(eof, want_eof);
	assert_memory_equal(buf, want + off, len);
	assert_true(vfs_fault_fired() >= min_fired);
	set_faults(spec);
	assert_int_equal(vfs_read_payload(o, off, len, VFS_READ_FILE_OK, &rd),
			 (ssize_t)len);
	assert_int_equal(rd.eof, want_eof);
	/* Faults on: never a file range (the pread faults must apply). */
	assert_int_equal(rd.data.kind, PAYLOAD_BUF);
	assert_memory_equal(rd.data.data, want + off, len);
	payload_release(&rd.data);
	assert_true(vfs_fault_fired() >= min_fired);
	set_faults(NULL);
	free(want);
	free(buf);
	vfs_obj_put(o);
}

/* Every write syscall short: the loop still writes every byte. */
static void test_short_write_buffered(void **state)
{
	/* Halving 1 MiB down to 1 byte takes 20 short calls and more. */
	write_through("sw1", "write:short:1/every", 0, BIG, 0, 20);
	write_through("sw2", "pwrite:short:1/every", 3, 100001, 1, 10);
	write_through("sw3", "write:short:1,write:short:2", 0, 5000, 0, 2);
}

static void test_short_read_buffered(void **state)
{
	write_through("sr", "", 0, BIG + 777, 0, 0);
	read_through("sr", "read:short:1/every", 5, BIG, false, 10);
	read_through("sr", "pread:short:1/every", 777, BIG, true, 10);
	read_through("sr", "read:short:1,read:short:2", 0, 5000, false, 2);
}

/* EINTR from write and read syscalls is retried, invisibly. */
static void test_eintr_retried(void **state)
{
	write_through("ei", "write:EINTR:1,write:EINTR:2,write:EINTR:3", 0,
		      70000, 0, 3);
	write_through("ei2", "pwrite:EINTR:2/every,pwrite:short:1/every", 0,
		      70000, 0, 10);
	read_through("ei", "read:EINTR:1", 0, 70000, true, 1);
	read_through("ei", "pread:EINTR:2/every,pread:short:1/every", 100,
		     60000, false, 10);
}

/* Direct mode: short (aligned) and interrupted syscalls, RMW included. */
static void test_direct_short_eintr(void **state)
{
	vfs_export_set_io(ex, VFS_IO_DIRECT);
	write_through("dw1", "write:short:1/every", 0, BIG, 0, 5);
	/* Unaligned head and tail: read-modify-write of their blocks. */
	write_through("dw2", "pwrite:short:1/every,pread:EINTR:1", 100,
		      BIG + 300, 5, 1);
	write_through("dw3", "write:EINTR:1,write:EINTR:2", 0, 1, 0, 2);
	/* The EINTR rule first: the first rule that fires decides. */
	write_through("dw4", "pwrite:EINTR:2/every,pwrite:short:1/every",
		      4096, 3 * 4096, 0, 2);
	/* The file ends inside the block after the range: not eof. */
	read_through("dw2", "", 300, BIG, false, 0);
	read_through("dw2", "", 301, BIG + 99, true, 0);
	read_through("dw2", "read:short:1/every", 0, BIG, false, 1);
	read_through("dw2", "pread:EINTR:1,pread:short:2/every", 300, BIG,
		     false, 1);
	vfs_export_set_io(ex, VFS_IO_BUFFERED);
}

/* ENOSPC, EDQUOT and EIO at the entry reach the caller; the next works. */
static void test_write_errors_propagate(void **state)
{
	struct vfs_obj *o = mkfile("we");
	uint8_t buf[100], back[100];
	bool eof;

	memset(buf, 'w', sizeof(buf));
	set_faults("write:ENOSPC:2,write:EDQUOT:4,read:EIO:1");
	assert_int_equal(vfs_write(o, 0, buf, 100, VFS_UNSTABLE), 100);
	assert_int_equal(vfs_write(o, 100, buf, 100, VFS_FILE_SYNC), -ENOSPC);
	assert_int_equal(vfs_write(o, 100, buf, 100, VFS_DATA_SYNC), 100);
	assert_int_equal(vfs_write(o, 200, buf, 100, VFS_UNSTABLE), -EDQUOT);
	assert_int_equal(vfs_write(o, 200, buf, 100, VFS_UNSTABLE), 100);
	assert_int_equal(vfs_read(o, 0, back, 100, &eof), -EIO);
	assert_int_equal(vfs_read(o, 0, back, 100, &eof), 100);
	assert_memory_equal(back, buf, 100);
	assert_int_equal(vfs_fault_fired(), 3);
	set_faults(NULL);
	vfs_obj_put(o);
}

/*
 * A syscall error with nothing written is the call's error; after part
 * was written the call reports the part (a short WRITE the client
 * resends), never more than reached the file.
 */
static void test_syscall_errors(void **state)
{
	uint8_t buf[8192], *got;
	struct vfs_obj *o = mkfile("se");
	size_t flen;
	bool eof;

	fill(buf, sizeof(buf), 42);
	set_faults("pwrite:ENOSPC:1");
	assert_int_equal(vfs_write(o, 0, buf, sizeof(buf), VFS_UNSTABLE),
			 -ENOSPC);
	set_faults("pwrite:short:1,pwrite:EIO:2");
	assert_int_equal(vfs_write(o, 0, buf, sizeof(buf), VFS_UNSTABLE),
			 4096);
	got = slurp("se", &flen);
	assert_int_equal(flen, 4096);
	assert_memory_equal(got, buf, 4096);
	free(got);
	set_faults("pread:EIO:1");
	assert_int_equal(vfs_read(o, 0, buf, 100, &eof), -EIO);
	/* Direct mode: an aligned write failing is the call's error. */
	vfs_export_set_io(ex, VFS_IO_DIRECT);
	set_faults("pwrite:EDQUOT:1");
	assert_int_equal(vfs_write(o, 0, buf, sizeof(buf), VFS_UNSTABLE),
			 -EDQUOT);
	set_faults("pread:EIO:1");
	assert_int_equal(vfs_read(o, 0, buf, 4096, &eof), -EIO);
	set_faults(NULL);
	vfs_export_set_io(ex, VFS_IO_BUFFERED);
	vfs_obj_put(o);
}

/* The copy fallback's loops take short and interrupted syscalls too. */
static void test_copy_bounce_faults(void **state)
{
	struct vfs_obj *s, *d;
	uint8_t *got, *want;
	size_t slen, dlen;
	ssize_t n;

	write_through("cs", "", 0, 300000, 0, 0);
	assert_int_equal(vfs_lookup(root, "cs", 2, &s), 0);
	d = mkfile("cd");
	set_faults("pread:short:1/every,pwrite:short:1/every,"
		   "pwrite:EINTR:3/every");
	/* copy_file_range may do it all in the kernel; either way whole. */
	n = vfs_copy_range(s, 0, d, 0, 0, UINT64_MAX, VFS_UNSTABLE);
	assert_int_equal(n, 300000);
	set_faults(NULL);
	want = slurp("cs", &slen);
	got = slurp("cd", &dlen);
	assert_int_equal(dlen, slen);
	assert_memory_equal(got, want, slen);
	free(got);
	free(want);
	vfs_obj_put(d);
	vfs_obj_put(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_parse_good, per_test_reset),
		cmocka_unit_test_setup(test_parse_bad, per_test_reset),
		cmocka_unit_test_setup(test_env, per_test_reset),
		cmocka_unit_test_setup(test_nth_once, per_test_reset),
		cmocka_unit_test_setup(test_every_nth, per_test_reset),
		cmocka_unit_test_setup(test_from_nth, per_test_reset),
		cmocka_unit_test_setup(test_rules_independent, per_test_reset),
		cmocka_unit_test_setup(test_all_counter, per_test_reset),
		cmocka_unit_test_setup(test_every_entry_point, per_test_reset),
		cmocka_unit_test_setup(test_cred_fault_cache, per_test_reset),
		cmocka_unit_test_setup(test_cred_fault_uid_rule,
				       per_test_reset),
		cmocka_unit_test_setup(test_short_write_buffered,
				       per_test_reset),
		cmocka_unit_test_setup(test_short_read_buffered,
				       per_test_reset),
		cmocka_unit_test_setup(test_eintr_retried, per_test_reset),
		cmocka_unit_test_setup(test_direct_short_eintr, per_test_reset),
		cmocka_unit_test_setup(test_write_errors_propagate,
				       per_test_reset),
		cmocka_unit_test_setup(test_syscall_errors, per_test_reset),
		cmocka_unit_test_setup(test_copy_bounce_faults,
				       per_test_reset),
	};

	if (geteuid() != 0) {
		printf("SKIP: needs root (open_by_handle_at)\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}
