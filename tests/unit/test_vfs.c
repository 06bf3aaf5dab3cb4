// SPDX-License-Identifier: MIT
/*
 * Unit tests of the local vfs: SipHash vectors, handle MAC and restart
 * survival, the name operations, readdir cookies over a large directory,
 * data path, setattr, and permission checks under per-thread creds.
 * Needs root (fsuid switching, open_by_handle_at); exits 77 otherwise.
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
#include <pthread.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/err.h"
#include "vfs/siphash.h"
#include "vfs/vfs.h"

static char tmpdir[256];
static struct vfs_export *ex;
static struct vfs_obj *root;
static const struct vfs_cred cred_root = {.uid = 0, .gid = 0};

/* SipHash-2-4 of bytes 00..len-1 under key 00..0f (the paper's table). */
static void test_siphash_vectors(void **state)
{
	static const struct {
		size_t len;
		uint64_t h;
	} v[] = {
		{0, 0x726fdb47dd0e0e31ULL},  {1, 0x74f839c593dc67fdULL},
		{2, 0x0d6c8009d9a94f5aULL},  {7, 0xab0200f58b01d137ULL},
		{8, 0x93f5f5799a932462ULL},  {9, 0x9e0082df0ba9e4b0ULL},
		{15, 0xa129ca6149be45e5ULL}, {16, 0x3f2acc7f57c29bdbULL},
		{31, 0x32d892fad841c342ULL}, {63, 0x958a324ceb064572ULL},
	};
	uint8_t key[16], msg[64];

	for (int i = 0; i < 16; i++)
		key[i] = (uint8_t)i;
	for (int i = 0; i < 64; i++)
		msg[i] = (uint8_t)i;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		assert_true(siphash24(key, msg, v[i].len) == v[i].h);
}

static int setup(void **state)
{
	const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/var/tmp";
	uint8_t key[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14};

	snprintf(tmpdir, sizeof(tmpdir), "%s/nasd-vfs-XXXXXX", base);
	if (mkdtemp(tmpdir) == NULL)
		return -1;
	/* Others (uid 1000/1001 in the permission tests) must search it. */
	chmod(tmpdir, 0755);
	vfs_secret_set(key);
	if (vfs_export_open(tmpdir, 42, &ex) < 0)
		return -1;
	return vfs_obj_root(ex, &root);
}

static int teardown(void **state)
{
	char cmd[300];

	vfs_obj_put(root);
	vfs_export_close(ex);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static int reset_cred(void **state)
{
	return vfs_cred_set(&cred_root);
}

static struct vfs_obj *mkfile(struct vfs_obj *dir, const char *name,
			      uint32_t mode)
{
	struct vfs_sattr sa = {.set_mode = true, .mode = mode};
	struct vfs_obj *o = NULL;

	assert_int_equal(vfs_create(dir, name, strlen(name), VFS_CREATE_GUARDED,
				    &sa, NULL, &o),
			 0);
	return o;
}

static struct vfs_obj *mkdir_obj(struct vfs_obj *dir, const char *name)
{
	struct vfs_sattr sa = {.set_mode = true, .mode = 0755};
	struct vfs_obj *o = NULL;

	assert_int_equal(vfs_mkdir(dir, name, strlen(name), &sa, &o), 0);
	return o;
}

static uint64_t fileid(struct vfs_obj *o)
{
	struct vfs_attr a;

	assert_int_equal(vfs_getattr(o, &a), 0);
	return a.fileid;
}

static void test_handle_mac(void **state)
{
	struct vfs_obj *f = mkfile(root, "macfile", 0644), *g;
	uint8_t fh[VFS_FH_MAX], bad[VFS_FH_MAX];
	uint32_t id;
	int len;

	len = vfs_obj_fh(f, fh, 64);
	assert_true(len > 0 && len <= 64);
	assert_int_equal(vfs_obj_fh(f, fh, (size_t)len - 1), -EOVERFLOW);
	assert_int_equal(vfs_fh_export_id(fh, (size_t)len, &id), 0);
	assert_int_equal(id, 42);
	assert_int_equal(vfs_obj_from_fh(ex, fh, (size_t)len, &g), 0);
	assert_ptr_equal(g, f);
	vfs_obj_put(g);

	/* Every single-byte change is caught, with two kinds of flip. */
	for (int i = 0; i < len; i++) {
		for (int k = 0; k < 2; k++) {
			int ret;

			memcpy(bad, fh, (size_t)len);
			bad[i] ^= k ? 0xff : 0x01;
			ret = vfs_obj_from_fh(ex, bad, (size_t)len, &g);
			assert_true(ret == -EBADHANDLE || ret == -ESTALE);
			assert_int_equal(
				vfs_fh_export_id(bad, (size_t)len, &id),
				-EBADHANDLE);
		}
	}
	/* Every truncation and an extension. */
	for (int l = 0; l < len; l++)
		assert_int_equal(vfs_obj_from_fh(ex, fh, (size_t)l, &g),
				 -EBADHANDLE);
	memcpy(bad, fh, (size_t)len);
	bad[len] = 0;
	assert_int_equal(vfs_obj_from_fh(ex, bad, (size_t)len + 1, &g),
			 -EBADHANDLE);
	vfs_obj_put(f);
}

static void test_handle_other_export(void **state)
{
	struct vfs_export *ex2;
	struct vfs_obj *r2, *o;
	uint8_t fh[VFS_FH_MAX];
	int len;

	/* Same directory, another id: its handles are not valid here. */
	assert_int_equal(vfs_export_open(tmpdir, 43, &ex2), 0);
	assert_int_equal(vfs_obj_root(ex2, &r2), 0);
	len = vfs_obj_fh(r2, fh, sizeof(fh));
	assert_true(len > 0);
	assert_int_equal(vfs_obj_from_fh(ex, fh, (size_t)len, &o), -EBADHANDLE);
	vfs_obj_put(r2);
	vfs_export_close(ex2);
}

static void test_handle_restart(void **state)
{
	struct vfs_obj *f = mkfile(root, "restart", 0644), *r2, *g;
	uint8_t fh[VFS_FH_MAX], other[16] = {0xaa};
	char sdir[300], kfile[320];
	struct vfs_export *ex2;
	uint64_t ino = fileid(f);
	struct stat st;
	int len;

	/* The key lives in the state dir, 0600, and is reloaded. */
	snprintf(sdir, sizeof(sdir), "%s/state", tmpdir);
	assert_int_equal(vfs_secret_init(sdir), 0);
	snprintf(kfile, sizeof(kfile), "%s/handle.key", sdir);
	assert_int_equal(stat(kfile, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(st.st_size, 16);
	len = vfs_obj_fh(f, fh, sizeof(fh));
	vfs_obj_put(f);

	/* "Restart": another export instance, the key loaded again. */
	vfs_secret_set(other);
	assert_int_equal(vfs_secret_init(sdir), 0);
	assert_int_equal(vfs_export_open(tmpdir, 42, &ex2), 0);
	assert_int_equal(vfs_obj_from_fh(ex2, fh, (size_t)len, &g), 0);
	assert_true(fileid(g) == ino);
	vfs_obj_put(g);
	assert_int_equal(vfs_obj_root(ex2, &r2), 0);
	vfs_obj_put(r2);
	vfs_export_close(ex2);

	/* Another key: the handle is forged. */
	vfs_secret_set(other);
	assert_int_equal(vfs_obj_from_fh(ex, fh, (size_t)len, &g), -EBADHANDLE);
	assert_int_equal(vfs_secret_init(sdir), 0);
	assert_int_equal(vfs_obj_from_fh(ex, fh, (size_t)len, &g), 0);
	vfs_obj_put(g);
}

static void test_handle_stale(void **state)
{
	struct vfs_obj *f = mkfile(root, "stale", 0644), *g;
	uint8_t fh[VFS_FH_MAX];
	int len = vfs_obj_fh(f, fh, sizeof(fh));

	vfs_obj_put(f);
	assert_int_equal(vfs_remove(root, "stale", 5), 0);
	assert_int_equal(vfs_obj_from_fh(ex, fh, (size_t)len, &g), -ESTALE);
}

/*
 * The wire layout is the one handles had before the backend table (the
 * local backend's bytes are the kernel handle's type and bytes): built
 * here by hand from name_to_handle_at() and the key, it must be what
 * vfs_obj_fh() mints, so clients' handles survive the upgrade.
 */
static void test_handle_layout(void **state)
{
	static const uint8_t key[16] = {1, 2, 3, 4, 5, 6, 7, 8,
					9, 10, 11, 12, 13, 14, 15, 16};
	struct vfs_obj *f = mkfile(root, "layout", 0644);
	union {
		struct file_handle fh;
		uint8_t space[sizeof(struct file_handle) + 128];
	} u;
	uint8_t fh[VFS_FH_MAX], want[VFS_FH_MAX];
	char path[320];
	uint64_t mac;
	size_t n;
	int mnt, len;

	vfs_secret_set(key);
	snprintf(path, sizeof(path), "%s/layout", tmpdir);
	u.fh.handle_bytes = 128;
	assert_int_equal(name_to_handle_at(AT_FDCWD, path, &u.fh, &mnt, 0), 0);
	n = u.fh.handle_bytes;
	want[0] = 1;
	want[1] = (uint8_t)n;
	want[2] = 0, want[3] = 0, want[4] = 0, want[5] = 42;
	for (int i = 0; i < 4; i++)
		want[6 + i] = (uint8_t)((uint32_t)u.fh.handle_type >>
					(24 - 8 * i));
	memcpy(want + 10, u.fh.f_handle, n);
	mac = siphash24(key, want, 10 + n);
	for (int i = 0; i < 8; i++)
		want[10 + n + (size_t)i] = (uint8_t)(mac >> (8 * i));
	len = vfs_obj_fh(f, fh, sizeof(fh));
	assert_int_equal(len, (int)(18 + n));
	assert_memory_equal(fh, want, (size_t)len);
	vfs_obj_put(f);
}

static void test_names(void **state)
{
	char longname[300];
	struct vfs_obj *o;

	memset(longname, 'a', sizeof(longname));
	assert_int_equal(vfs_lookup(root, "a/b", 3, &o), -ENOENT);
	assert_int_equal(vfs_lookup(root, "a\0b", 3, &o), -ENOENT);
	assert_int_equal(vfs_lookup(root, "", 0, &o), -ENOENT);
	assert_int_equal(vfs_lookup(root, longname, 256, &o), -ENAMETOOLONG);
	assert_int_equal(vfs_lookup(root, "nonexistent", 11, &o), -ENOENT);
	assert_int_equal(
		vfs_create(root, "a/b", 3, VFS_CREATE_GUARDED, NULL, NULL, &o),
		-EINVAL);
	assert_int_equal(
		vfs_create(root, ".", 1, VFS_CREATE_GUARDED, NULL, NULL, &o),
		-EEXIST);
	assert_int_equal(vfs_mkdir(root, "..", 2, NULL, &o), -EEXIST);
	assert_int_equal(vfs_remove(root, ".", 1), -EINVAL);
	assert_int_equal(vfs_rmdir(root, "..", 2), -EINVAL);
	assert_int_equal(vfs_create(root, longname, 256, VFS_CREATE_GUARDED,
				    NULL, NULL, &o),
			 -ENAMETOOLONG);
	/* 255 bytes is fine. */
	o = NULL;
	assert_int_equal(vfs_create(root, longname, 255, VFS_CREATE_GUARDED,
				    NULL, NULL, &o),
			 0);
	vfs_obj_put(o);
	assert_int_equal(vfs_remove(root, longname, 255), 0);
}

static void test_dotdot(void **state)
{
	struct vfs_obj *d = mkdir_obj(root, "sub"), *o, *dd;

	assert_int_equal(vfs_lookup(root, "..", 2, &o), 0);
	assert_ptr_equal(o, root);
	assert_true(vfs_obj_is_root(o));
	vfs_obj_put(o);
	assert_int_equal(vfs_lookup(root, ".", 1, &o), 0);
	assert_ptr_equal(o, root);
	vfs_obj_put(o);
	assert_int_equal(vfs_lookup(d, "..", 2, &dd), 0);
	assert_ptr_equal(dd, root);
	assert_int_equal(vfs_lookup(d, ".", 1, &o), 0);
	assert_ptr_equal(o, d);
	assert_false(vfs_obj_is_root(d));
	vfs_obj_put(o);
	vfs_obj_put(dd);
	/* Lookup in a non-directory. */
	o = mkfile(d, "f", 0644);
	assert_int_equal(vfs_lookup(o, "x", 1, &dd), -ENOTDIR);
	vfs_obj_put(o);
	vfs_obj_put(d);
}

static void test_symlink(void **state)
{
	struct vfs_obj *l, *o;
	struct vfs_attr a;
	char buf[64];

	assert_int_equal(vfs_symlink(root, "toetc", 5, "/etc", 4, NULL, &l), 0);
	assert_int_equal(vfs_lookup(root, "toetc", 5, &o), 0);
	assert_ptr_equal(o, l);
	assert_int_equal(vfs_getattr(o, &a), 0);
	assert_int_equal(a.type, VFS_LNK);
	assert_int_equal(vfs_readlink(o, buf, sizeof(buf)), 4);
	assert_memory_equal(buf, "/etc", 4);
	/* Not a directory: lookup through it is refused. */
	assert_int_equal(vfs_lookup(o, "passwd", 6, &l), -ENOTDIR);
	/* Mode on a symlink is ignored, as by Linux. */
	struct vfs_sattr sa = {.set_mode = true, .mode = 0600};
	assert_int_equal(vfs_setattr(o, &sa), 0);
	assert_int_equal(vfs_symlink(root, "bad", 3, "a\0b", 3, NULL, &l),
			 -EINVAL);
	vfs_obj_put(o);
	vfs_obj_put(o);
}

static void test_rename_link(void **state)
{
	struct vfs_obj *f = mkfile(root, "orig", 0644), *o, *d;
	struct vfs_attr a;

	d = mkdir_obj(root, "rdir");
	assert_int_equal(vfs_rename(root, "orig", 4, d, "moved", 5), 0);
	assert_int_equal(vfs_lookup(root, "orig", 4, &o), -ENOENT);
	assert_int_equal(vfs_lookup(d, "moved", 5, &o), 0);
	assert_ptr_equal(o, f);
	vfs_obj_put(o);
	assert_int_equal(vfs_link(f, root, "hard", 4), 0);
	assert_int_equal(vfs_getattr(f, &a), 0);
	assert_int_equal(a.nlink, 2);
	assert_int_equal(vfs_link(f, root, "hard", 4), -EEXIST);
	assert_int_equal(vfs_link(d, root, "dirlink", 7), -EPERM);
	/* Rename over an existing name replaces it. */
	o = mkfile(root, "victim", 0644);
	vfs_obj_put(o);
	assert_int_equal(vfs_rename(root, "hard", 4, root, "victim", 6), 0);
	assert_int_equal(vfs_lookup(root, "victim", 6, &o), 0);
	assert_ptr_equal(o, f);
	vfs_obj_put(o);
	assert_int_equal(vfs_rmdir(root, "rdir", 4), -ENOTEMPTY);
	assert_int_equal(vfs_remove(d, "moved", 5), 0);
	assert_int_equal(vfs_rmdir(root, "rdir", 4), 0);
	assert_int_equal(vfs_remove(root, "victim", 6), 0);
	vfs_obj_put(d);
	vfs_obj_put(f);
}

/*
 * vfs_subtree: below means below by the names the kernel has now: a
 * name that merely starts like the directory's is not below it, nor is
 * the directory itself; a move takes what is below along.
 */
static void test_subtree(void **state)
{
	struct vfs_obj *a = mkdir_obj(root, "st_a");
	struct vfs_obj *b = mkdir_obj(a, "st_b");
	struct vfs_obj *f = mkfile(b, "f", 0644);
	struct vfs_obj *ab = mkdir_obj(root, "st_ab");
	struct vfs_obj *abf = mkfile(ab, "f", 0644);
	struct vfs_obj *c = mkdir_obj(root, "st_c");
	struct vfs_obj *g = mkfile(c, "g", 0644);
	struct vfs_subtree *t = malloc(sizeof(*t));

	assert_non_null(t);
	assert_int_equal(vfs_subtree_init(t, f), -ENOTDIR);
	assert_int_equal(vfs_subtree_init(t, a), 0);
	assert_true(vfs_subtree_holds(t, b));
	assert_true(vfs_subtree_holds(t, f));
	assert_false(vfs_subtree_holds(t, a));
	assert_false(vfs_subtree_holds(t, root));
	assert_false(vfs_subtree_holds(t, ab));
	assert_false(vfs_subtree_holds(t, abf));
	assert_false(vfs_subtree_holds(t, g));
	assert_int_equal(vfs_subtree_init(t, b), 0);
	assert_true(vfs_subtree_holds(t, f));
	assert_false(vfs_subtree_holds(t, a));
	/* The export root holds everything in it but itself. */
	assert_int_equal(vfs_subtree_init(t, root), 0);
	assert_true(vfs_subtree_holds(t, abf));
	assert_false(vfs_subtree_holds(t, root));

	/* st_a/st_b moves to st_c: f goes with it. */
	assert_int_equal(vfs_rename(a, "st_b", 4, c, "st_b", 4), 0);
	assert_int_equal(vfs_subtree_init(t, a), 0);
	assert_false(vfs_subtree_holds(t, f));
	assert_false(vfs_subtree_holds(t, b));
	assert_int_equal(vfs_subtree_init(t, c), 0);
	assert_true(vfs_subtree_holds(t, f));
	assert_true(vfs_subtree_holds(t, b));
	/* An unlinked file is no longer in its directory. */
	assert_true(vfs_subtree_holds(t, g));
	assert_int_equal(vfs_remove(c, "g", 1), 0);
	assert_false(vfs_subtree_holds(t, g));

	free(t);
	assert_int_equal(vfs_remove(b, "f", 1), 0);
	assert_int_equal(vfs_rmdir(c, "st_b", 4), 0);
	assert_int_equal(vfs_rmdir(root, "st_a", 4), 0);
	assert_int_equal(vfs_rmdir(root, "st_c", 4), 0);
	assert_int_equal(vfs_remove(ab, "f", 1), 0);
	assert_int_equal(vfs_rmdir(root, "st_ab", 5), 0);
	vfs_obj_put(g);
	vfs_obj_put(c);
	vfs_obj_put(abf);
	vfs_obj_put(ab);
	vfs_obj_put(f);
	vfs_obj_put(b);
	vfs_obj_put(a);
}

static void test_mknod(void **state)
{
	struct vfs_obj *o;
	struct vfs_attr a;

	assert_int_equal(vfs_mknod(root, "fifo", 4, VFS_FIFO, 0, 0, NULL, &o),
			 0);
	assert_int_equal(vfs_getattr(o, &a), 0);
	assert_int_equal(a.type, VFS_FIFO);
	vfs_obj_put(o);
	assert_int_equal(vfs_mknod(root, "null", 4, VFS_CHR, 1, 3, NULL, &o),
			 0);
	assert_int_equal(vfs_getattr(o, &a), 0);
	assert_int_equal(a.type, VFS_CHR);
	assert_int_equal(a.rdev_major, 1);
	assert_int_equal(a.rdev_minor, 3);
	vfs_obj_put(o);
	assert_int_equal(vfs_mknod(root, "x", 1, VFS_REG, 0, 0, NULL, &o),
			 -EBADTYPE);
}

static void test_create_modes(void **state)
{
	uint8_t v1[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	uint8_t v2[8] = {1, 2, 3, 4, 5, 6, 7, 9};
	struct vfs_sattr sa = {.set_mode = true, .mode = 0640};
	struct vfs_obj *a, *b;
	struct vfs_attr at;

	assert_int_equal(
		vfs_create(root, "ex", 2, VFS_CREATE_EXCLUSIVE, NULL, v1, &a),
		0);
	assert_int_equal(
		vfs_create(root, "ex", 2, VFS_CREATE_EXCLUSIVE, NULL, v1, &b),
		0);
	assert_ptr_equal(a, b);
	vfs_obj_put(b);
	assert_int_equal(
		vfs_create(root, "ex", 2, VFS_CREATE_EXCLUSIVE, NULL, v2, &b),
		-EEXIST);
	vfs_obj_put(a);

	a = mkfile(root, "g", 0640);
	assert_int_equal(vfs_getattr(a, &at), 0);
	assert_int_equal(at.mode, 0640); /* no umask */
	assert_int_equal(vfs_write(a, 0, "hello", 5, VFS_UNSTABLE), 5);
	assert_int_equal(
		vfs_create(root, "g", 1, VFS_CREATE_GUARDED, &sa, NULL, &b),
		-EEXIST);
	/* UNCHECKED on an existing file: same file, only the size. */
	sa.set_size = true;
	sa.size = 2;
	sa.mode = 0600;
	assert_int_equal(
		vfs_create(root, "g", 1, VFS_CREATE_UNCHECKED, &sa, NULL, &b),
		0);
	assert_ptr_equal(a, b);
	assert_int_equal(vfs_getattr(b, &at), 0);
	assert_int_equal(at.size, 2);
	assert_int_equal(at.mode, 0640);
	vfs_obj_put(b);
	vfs_obj_put(a);
	/* UNCHECKED on a directory name. */
	a = mkdir_obj(root, "cdir");
	assert_int_equal(vfs_create(root, "cdir", 4, VFS_CREATE_UNCHECKED, &sa,
				    NULL, &b),
			 -EEXIST);
	vfs_obj_put(a);
}

static void test_read_write(void **state)
{
	struct vfs_obj *f = mkfile(root, "data", 0644);
	static char buf[100000], out[100000];
	bool eof;

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (char)(i * 7);
	assert_int_equal(vfs_write(f, 0, buf, sizeof(buf), VFS_FILE_SYNC),
			 sizeof(buf));
	assert_int_equal(vfs_write(f, 10, buf, 10, VFS_DATA_SYNC), 10);
	memcpy(buf + 10, buf, 10);
	assert_int_equal(vfs_read(f, 0, out, 50000, &eof), 50000);
	assert_false(eof);
	assert_int_equal(vfs_read(f, 50000, out + 50000, 50000, &eof), 50000);
	assert_true(eof);
	assert_memory_equal(buf, out, sizeof(buf));
	assert_int_equal(vfs_read(f, 99990, out, 100, &eof), 10);
	assert_true(eof);
	assert_int_equal(vfs_read(f, 1000000, out, 100, &eof), 0);
	assert_true(eof);
	assert_int_equal(vfs_commit(f, 0, 0), 0);
	assert_int_equal(vfs_read(root, 0, out, 10, &eof), -EISDIR);
	assert_int_equal(vfs_write(f, UINT64_MAX - 1, buf, 10, VFS_UNSTABLE),
			 -EFBIG);
	vfs_obj_put(f);
}

static void test_setattr(void **state)
{
	struct vfs_obj *f = mkfile(root, "sattr", 0644);
	struct vfs_sattr sa = {0};
	struct vfs_attr a;
	struct timespec now;

	sa.set_size = true;
	sa.size = 12345;
	sa.set_mode = true;
	sa.mode = 04711;
	sa.atime_how = VFS_TIME_CLIENT;
	sa.atime.tv_sec = 1000000;
	sa.atime.tv_nsec = 5;
	sa.mtime_how = VFS_TIME_CLIENT;
	sa.mtime.tv_sec = 2000000;
	assert_int_equal(vfs_setattr(f, &sa), 0);
	assert_int_equal(vfs_getattr(f, &a), 0);
	assert_int_equal(a.size, 12345);
	assert_int_equal(a.mode, 04711);
	assert_int_equal(a.atime.tv_sec, 1000000);
	assert_int_equal(a.atime.tv_nsec, 5);
	assert_int_equal(a.mtime.tv_sec, 2000000);
	assert_int_equal(a.fsid, 42);

	memset(&sa, 0, sizeof(sa));
	sa.atime_how = VFS_TIME_SERVER;
	sa.mtime_how = VFS_TIME_SERVER;
	sa.set_uid = true;
	sa.uid = 1000;
	assert_int_equal(vfs_setattr(f, &sa), 0);
	assert_int_equal(vfs_getattr(f, &a), 0);
	clock_gettime(CLOCK_REALTIME, &now);
	assert_true(a.mtime.tv_sec >= now.tv_sec - 5);
	assert_int_equal(a.uid, 1000);
	assert_int_equal(a.mode & 04000, 0); /* chown cleared set-uid */
	memset(&sa, 0, sizeof(sa));
	sa.set_size = true;
	assert_int_equal(vfs_setattr(root, &sa), -EISDIR);
	vfs_obj_put(f);
}

static void test_permissions(void **state)
{
	struct vfs_cred u1000 = {.uid = 1000, .gid = 1000};
	struct vfs_cred u1001 = {.uid = 1001, .gid = 1001};
	struct vfs_obj *f = mkfile(root, "private", 0600), *r;
	struct vfs_sattr sa = {
		.set_uid = true, .uid = 1000, .set_gid = true, .gid = 1000};
	uint32_t granted;
	char buf[16];
	bool eof;

	assert_int_equal(vfs_setattr(f, &sa), 0);
	assert_int_equal(vfs_write(f, 0, "secret", 6, VFS_UNSTABLE), 6);

	assert_int_equal(vfs_cred_set(&u1001), 0);
	assert_int_equal(vfs_read(f, 0, buf, sizeof(buf), &eof), -EACCES);
	assert_int_equal(vfs_write(f, 0, "x", 1, VFS_UNSTABLE), -EACCES);
	assert_int_equal(vfs_access(f, 0x3f, false, &granted), 0);
	assert_int_equal(granted, 0);
	/* Creating in the root-owned 0755 export root is refused too. */
	assert_int_equal(
		vfs_create(root, "nope", 4, VFS_CREATE_GUARDED, NULL, NULL, &r),
		-EACCES);

	assert_int_equal(vfs_cred_set(&u1000), 0);
	assert_int_equal(vfs_read(f, 0, buf, sizeof(buf), &eof), 6);
	assert_int_equal(vfs_access(f, 0x3f, false, &granted), 0);
	assert_int_equal(granted, VFS_ACCESS_READ | VFS_ACCESS_MODIFY |
					  VFS_ACCESS_EXTEND);
	assert_int_equal(vfs_access(f, 0x3f, true, &granted), 0);
	assert_int_equal(granted, VFS_ACCESS_READ);

	/* Owner override: the owner writes a 0444 file. */
	assert_int_equal(vfs_cred_set(&cred_root), 0);
	sa = (struct vfs_sattr){.set_mode = true, .mode = 0444};
	assert_int_equal(vfs_setattr(f, &sa), 0);
	assert_int_equal(vfs_cred_set(&u1000), 0);
	assert_int_equal(vfs_write(f, 0, "S", 1, VFS_UNSTABLE), 1);
	sa = (struct vfs_sattr){.set_size = true, .size = 3};
	assert_int_equal(vfs_setattr(f, &sa), 0);
	assert_int_equal(vfs_cred_set(&u1001), 0);
	assert_int_equal(vfs_read(f, 0, buf, sizeof(buf), &eof), 3);
	assert_memory_equal(buf, "Sec", 3);
	assert_int_equal(vfs_write(f, 0, "x", 1, VFS_UNSTABLE), -EACCES);
	assert_int_equal(vfs_setattr(f, &sa), -EACCES);
	/* Explicit times need ownership. */
	sa = (struct vfs_sattr){.mtime_how = VFS_TIME_CLIENT};
	assert_int_equal(vfs_setattr(f, &sa), -EPERM);
	/*
	 * A handle not in the cache (fresh export instance) is opened as
	 * root whatever the caller's fsuid; the data check still applies.
	 */
	{
		struct vfs_export *ex2;
		uint8_t fh[VFS_FH_MAX];
		struct vfs_obj *g;
		int len;

		len = vfs_obj_fh(f, fh, sizeof(fh));
		assert_int_equal(vfs_cred_set(&cred_root), 0);
		assert_int_equal(vfs_export_open(tmpdir, 42, &ex2), 0);
		assert_int_equal(vfs_cred_set(&u1001), 0);
		assert_int_equal(vfs_obj_from_fh(ex2, fh, (size_t)len, &g), 0);
		assert_int_equal(vfs_read(g, 0, buf, sizeof(buf), &eof), 3);
		assert_int_equal(vfs_write(g, 0, "x", 1, VFS_UNSTABLE),
				 -EACCES);
		vfs_obj_put(g);
		vfs_export_close(ex2);
	}
	vfs_obj_put(f);
	assert_int_equal(vfs_cred_set(&cred_root), 0);
}

struct listing {
	char (*names)[32];
	int n, max;
	int calls;
	int budget; /* entries accepted per call */
	int taken;
	uint64_t cookie;
};

static bool collect(void *ctx, const struct vfs_dirent *de)
{
	struct listing *l = ctx;

	if (l->taken == l->budget)
		return false;
	assert_true(l->n < l->max);
	assert_true(de->namelen < 32);
	memcpy(l->names[l->n], de->name, de->namelen);
	l->names[l->n][de->namelen] = '\0';
	l->n++;
	l->taken++;
	l->cookie = de->cookie;
	return true;
}

static int cmpname(const void *a, const void *b)
{
	return strcmp(a, b);
}

static void test_readdir_large(void **state)
{
	enum { N = 5000 };
	struct vfs_obj *d = mkdir_obj(root, "big"), *o;
	struct listing l = {.max = N + 10, .budget = 37};
	uint64_t verf;
	char name[32];
	bool eof = false;
	int i;

	for (i = 0; i < N; i++) {
		int len = snprintf(name, sizeof(name), "entry-%05d", i);

		assert_int_equal(vfs_create(d, name, (size_t)len,
					    VFS_CREATE_UNCHECKED, NULL, NULL,
					    &o),
				 0);
		vfs_obj_put(o);
	}
	verf = vfs_dir_verifier(d);
	l.names = calloc((size_t)l.max, sizeof(*l.names));
	assert_non_null(l.names);
	while (!eof) {
		l.taken = 0;
		assert_int_equal(vfs_readdir(d, l.cookie, collect, &l, &eof),
				 0);
		l.calls++;
		assert_true(l.calls < 1000);
		/* Adding entries does not change the verifier. */
		if (l.calls == 3) {
			assert_int_equal(vfs_create(d, "zz-late", 7,
						    VFS_CREATE_GUARDED, NULL,
						    NULL, &o),
					 0);
			vfs_obj_put(o);
			assert_int_equal(vfs_remove(d, "zz-late", 7), 0);
		}
	}
	assert_true(vfs_dir_verifier(d) == verf);
	assert_true(vfs_dir_verifier(root) != verf);
	assert_int_equal(l.n, N + 2);
	qsort(l.names, (size_t)l.n, sizeof(*l.names), cmpname);
	assert_string_equal(l.names[0], ".");
	assert_string_equal(l.names[1], "..");
	for (i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "entry-%05d", i);
		assert_string_equal(l.names[i + 2], name);
	}
	free(l.names);
	assert_int_equal(vfs_readdir(o = mkfile(root, "notdir", 0644), 0,
				     collect, &l, &eof),
			 -ENOTDIR);
	vfs_obj_put(o);
	vfs_obj_put(d);
}

static void test_statfs_access(void **state)
{
	struct vfs_statfs st;
	uint32_t g;

	assert_int_equal(vfs_statfs(root, &st), 0);
	assert_true(st.tbytes > 0 && st.namemax == 255);
	assert_int_equal(vfs_access(root, 0x3f, false, &g), 0);
	assert_int_equal(g, VFS_ACCESS_READ | VFS_ACCESS_LOOKUP |
				    VFS_ACCESS_MODIFY | VFS_ACCESS_EXTEND |
				    VFS_ACCESS_DELETE);
	assert_int_equal(vfs_access(root, 0x3f, true, &g), 0);
	assert_int_equal(g, VFS_ACCESS_READ | VFS_ACCESS_LOOKUP);
	assert_true(vfs_write_verifier() == vfs_write_verifier());
}

/*
 * Our fds open on tmpdir/@name (deleted or not). Counting all fds would
 * also see the cache evicting other objects when it is full.
 */
static int fds_on(const char *name)
{
	char path[64], link[600], want[600];
	int n = 0, wl;
	ssize_t l;

	wl = snprintf(want, sizeof(want), "%s/%s", tmpdir, name);
	for (int fd = 0; fd < 65536; fd++) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		l = readlink(path, link, sizeof(link) - 1);
		if (l < 0)
			continue;
		link[l] = '\0';
		if (strncmp(link, want, (size_t)wl) == 0 &&
		    (link[wl] == '\0' || strcmp(link + wl, " (deleted)") == 0))
			n++;
	}
	return n;
}

/* A file removed through us is not kept open by the cache. */
static void test_no_fd_leak(void **state)
{
	struct vfs_obj *f, *g;
	struct stat st;
	char path[300];
	bool eof;
	char b[4];

	f = mkfile(root, "leak", 0644);
	assert_int_equal(vfs_write(f, 0, "abcd", 4, VFS_UNSTABLE), 4);
	assert_int_equal(vfs_lookup(root, "leak", 4, &g), 0);
	assert_int_equal(vfs_read(g, 0, b, 4, &eof), 4);
	/* Removed while still referenced: released at the last put. */
	assert_int_equal(vfs_remove(root, "leak", 4), 0);
	vfs_obj_put(g);
	assert_true(fds_on("leak") > 0);
	vfs_obj_put(f);
	assert_int_equal(fds_on("leak"), 0);

	/* Removed while unreferenced (cached on the LRU). */
	f = mkfile(root, "leak2", 0644);
	assert_int_equal(vfs_write(f, 0, "abcd", 4, VFS_UNSTABLE), 4);
	vfs_obj_put(f);
	assert_true(fds_on("leak2") > 0);
	assert_int_equal(vfs_remove(root, "leak2", 5), 0);
	assert_int_equal(fds_on("leak2"), 0);

	/* With another name left, the object stays usable. */
	f = mkfile(root, "two", 0644);
	assert_int_equal(vfs_link(f, root, "two-b", 5), 0);
	assert_int_equal(vfs_remove(root, "two", 3), 0);
	vfs_obj_put(f);
	assert_int_equal(vfs_lookup(root, "two-b", 5, &g), 0);
	assert_ptr_equal(g, f);
	vfs_obj_put(g);
	assert_int_equal(vfs_remove(root, "two-b", 5), 0);
	snprintf(path, sizeof(path), "%s/two-b", tmpdir);
	assert_int_equal(stat(path, &st), -1);
}

struct worker {
	uint8_t fh[VFS_FH_MAX];
	int len;
	uid_t uid;
	int errors;
};

static void *worker_run(void *arg)
{
	struct worker *w = arg;
	struct vfs_cred c = {.uid = w->uid, .gid = w->uid};
	struct vfs_obj *o;
	struct vfs_attr a;
	char buf[64];
	bool eof;

	for (int i = 0; i < 3000; i++) {
		if (vfs_cred_set(&c) < 0 ||
		    vfs_obj_from_fh(ex, w->fh, (size_t)w->len, &o) < 0) {
			w->errors++;
			continue;
		}
		if (vfs_getattr(o, &a) < 0 || a.size != 10)
			w->errors++;
		/* Owner reads its 0600 file, the other uid is refused. */
		if (vfs_read(o, 0, buf, sizeof(buf), &eof) !=
		    (w->uid == 1000 ? 10 : -EACCES))
			w->errors++;
		vfs_obj_put(o);
	}
	return NULL;
}

/* Per-thread credentials: threads with different fsuids interleave. */
static void test_threads(void **state)
{
	struct vfs_sattr sa = {.set_uid = true, .uid = 1000};
	struct vfs_obj *f = mkfile(root, "shared", 0600);
	struct worker w[4];
	pthread_t th[4];

	assert_int_equal(vfs_write(f, 0, "0123456789", 10, VFS_UNSTABLE), 10);
	assert_int_equal(vfs_setattr(f, &sa), 0);
	for (int i = 0; i < 4; i++) {
		w[i].len = vfs_obj_fh(f, w[i].fh, sizeof(w[i].fh));
		w[i].uid = i % 2 ? 1000 : 1001;
		w[i].errors = 0;
		assert_int_equal(
			pthread_create(&th[i], NULL, worker_run, &w[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(w[i].errors, 0);
	}
	vfs_obj_put(f);
}

static void test_mount_point(void **state)
{
	struct vfs_obj *d = mkdir_obj(root, "mnt"), *o;
	char path[300];

	vfs_obj_put(d);
	snprintf(path, sizeof(path), "%s/mnt", tmpdir);
	if (mount("nasd-test", path, "tmpfs", 0, "size=1m") < 0)
		skip();
	assert_int_equal(vfs_lookup(root, "mnt", 3, &o), -EXDEV);
	umount(path);
}

/* user.DOSATTRIB: Samba 4.17's own bytes (a file it made hidden and
 * system), the older layouts, what is refused, and a round trip. */
static void test_dosattr_codec(void **state)
{
	static const uint8_t samba[] = {
		0x00, 0x00, 0x05, 0x00, 0x05, 0x00, 0x00, 0x00,
		0x11, 0x00, 0x00, 0x00, 0x26, 0x00, 0x00, 0x00,
		0x81, 0x39, 0x9c, 0x18, 0x04, 0x82, 0xdd, 0x01,
	};
	static const uint8_t v3[] = {
		'0', 'x', '2', '0', 0, 0, 3, 0, 3, 0, 0, 0,
		0x01, 0, 0, 0, 0x21, 0, 0, 0, 0, 0, 0, 0, /* no create time */
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		9, 9, 9, 9, 9, 9, 9, 9,
	};
	static const uint8_t hex[] = { '0', 'x', '8', '0', '2', '0', 0 };
	static const uint8_t bad_hex[] = { '0', 'x', 'g', 0 };
	uint8_t enc[VFS_DOSATTR_MAX];
	struct vfs_dosattr d, e;

	(void)state;
	assert_int_equal(vfs_dosattr_decode(samba, sizeof(samba), &d), 0);
	assert_true(d.has_attrib && d.has_create_time);
	assert_int_equal(d.attrib, 0x26);
	assert_true(d.create_time == 0x01dd8204189c3981ull);
	/* nasd writes exactly what Samba wrote */
	assert_int_equal(vfs_dosattr_encode(&d, enc), sizeof(samba));
	assert_memory_equal(enc, samba, sizeof(samba));

	assert_int_equal(vfs_dosattr_decode(v3, sizeof(v3), &d), 0);
	assert_true(d.has_attrib && !d.has_create_time);
	assert_int_equal(d.attrib, 0x21);
	/* one byte short: only the hex string is left */
	assert_int_equal(vfs_dosattr_decode(v3, sizeof(v3) - 1, &d), 0);
	assert_int_equal(d.attrib, 0x20);
	assert_int_equal(vfs_dosattr_decode(hex, sizeof(hex), &d), 0);
	assert_int_equal(d.attrib, 0x8020);
	assert_false(d.has_create_time);

	/* no NUL, a bad hex string, a short arm without a string, an
	 * unknown version, version and level that disagree */
	assert_int_equal(vfs_dosattr_decode(samba + 2, 1, &d), -EINVAL);
	assert_int_equal(vfs_dosattr_decode(bad_hex, sizeof(bad_hex), &d),
			 -EINVAL);
	assert_false(d.has_attrib || d.has_create_time);
	assert_int_equal(vfs_dosattr_decode(samba, sizeof(samba) - 1, &d),
			 -EINVAL);
	memcpy(enc, samba, sizeof(samba));
	enc[2] = enc[4] = 7;
	assert_int_equal(vfs_dosattr_decode(enc, sizeof(samba), &d), -EINVAL);
	enc[2] = 5;
	enc[4] = 4;
	assert_int_equal(vfs_dosattr_decode(enc, sizeof(samba), &d), -EINVAL);

	memset(&e, 0, sizeof(e));
	e.has_create_time = true;
	e.create_time = 1;
	vfs_dosattr_encode(&e, enc);
	assert_int_equal(vfs_dosattr_decode(enc, sizeof(enc), &d), 0);
	assert_false(d.has_attrib);
	assert_true(d.has_create_time && d.create_time == 1);
}

/* Kept with the file, read and written whatever the mode allows the
 * caller (the protocol decides); nothing kept reads as empty. */
static void test_dosattr_io(void **state)
{
	struct vfs_obj *f = mkfile(root, "dosattr", 0444);
	struct vfs_cred u = { .uid = 1000, .gid = 1000 };
	struct vfs_dosattr d = { 0 }, got;
	struct vfs_attr a;
	char path[4200];
	uint8_t raw[64];

	(void)state;
	assert_int_equal(vfs_getattr(f, &a), 0);
	assert_int_equal(vfs_dosattr_get(f, &a, &got), 0);
	assert_false(got.has_attrib || got.has_create_time);
	assert_int_equal(vfs_cred_set(&u), 0);
	d.has_attrib = true;
	d.attrib = 0x27;
	assert_int_equal(vfs_dosattr_set(f, &d), 0);
	/* our own change is seen even under the old ctime */
	assert_int_equal(vfs_dosattr_get(f, &a, &got), 0);
	assert_true(got.has_attrib && !got.has_create_time);
	assert_int_equal(got.attrib, 0x27);
	assert_int_equal(vfs_cred_set(&cred_root), 0);
	/* Samba's name, in Samba's layout */
	snprintf(path, sizeof(path), "%s/dosattr", tmpdir);
	assert_int_equal(getxattr(path, "user.DOSATTRIB", raw, sizeof(raw)),
			 VFS_DOSATTR_MAX);
	assert_int_equal(raw[12], 0x27);
	/* a change from outside moves the ctime, and is seen; garbage
	 * someone else wrote is as if nothing were kept */
	assert_int_equal(vfs_getattr(f, &a), 0);
	assert_int_equal(vfs_dosattr_get(f, &a, &got), 0);
	assert_int_equal(setxattr(path, "user.DOSATTRIB", "junk", 4, 0), 0);
	assert_int_equal(vfs_getattr(f, &a), 0);
	assert_int_equal(vfs_dosattr_get(f, &a, &got), 0);
	assert_false(got.has_attrib || got.has_create_time);
	vfs_obj_put(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_siphash_vectors),
		cmocka_unit_test_setup(test_handle_mac, reset_cred),
		cmocka_unit_test_setup(test_handle_other_export, reset_cred),
		cmocka_unit_test_setup(test_handle_restart, reset_cred),
		cmocka_unit_test_setup(test_handle_stale, reset_cred),
		cmocka_unit_test_setup(test_handle_layout, reset_cred),
		cmocka_unit_test_setup(test_names, reset_cred),
		cmocka_unit_test_setup(test_dotdot, reset_cred),
		cmocka_unit_test_setup(test_symlink, reset_cred),
		cmocka_unit_test_setup(test_rename_link, reset_cred),
		cmocka_unit_test_setup(test_subtree, reset_cred),
		cmocka_unit_test_setup(test_mknod, reset_cred),
		cmocka_unit_test_setup(test_create_modes, reset_cred),
		cmocka_unit_test_setup(test_read_write, reset_cred),
		cmocka_unit_test_setup(test_setattr, reset_cred),
		cmocka_unit_test_setup(test_permissions, reset_cred),
		cmocka_unit_test_setup(test_readdir_large, reset_cred),
		cmocka_unit_test_setup(test_statfs_access, reset_cred),
		cmocka_unit_test_setup(test_no_fd_leak, reset_cred),
		cmocka_unit_test_setup(test_threads, reset_cred),
		cmocka_unit_test_setup(test_mount_point, reset_cred),
		cmocka_unit_test(test_dosattr_codec),
		cmocka_unit_test_setup(test_dosattr_io, reset_cred),
	};

	if (geteuid() != 0) {
		fprintf(stderr, "test_vfs: needs root (fsuid, handles)\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}
