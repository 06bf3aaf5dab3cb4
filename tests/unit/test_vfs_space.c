// SPDX-License-Identifier: MIT
/*
 * Unit tests of the vfs space operations (src/vfs/local/space.c): fallocate,
 * hole punching, SEEK_DATA/SEEK_HOLE, copy_file_range with its limits and
 * its bounce-buffer fallback across filesystems, FICLONERANGE (NOTSUPP on
 * ext4), posix_fadvise, and the permission checks under per-thread creds.
 * Needs root (open_by_handle_at, fsuid switching); exits 77 otherwise.
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
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/err.h"
#include "vfs/vfs.h"

#define MiB (1024 * 1024)

static char tmpdir[256];
static struct vfs_export *ex;
static struct vfs_obj *root;
static const struct vfs_cred cred_root = {.uid = 0, .gid = 0};

static int setup(void **state)
{
	const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/var/tmp";
	uint8_t key[16] = {9, 8, 7, 6, 5, 4, 3, 2, 1};

	snprintf(tmpdir, sizeof(tmpdir), "%s/nasd-space-XXXXXX", base);
	if (mkdtemp(tmpdir) == NULL)
		return -1;
	chmod(tmpdir, 0755);
	vfs_secret_set(key);
	if (vfs_export_open(tmpdir, 7, &ex) < 0)
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

static void fill(struct vfs_obj *f, uint64_t off, size_t len, uint8_t seed)
{
	uint8_t *buf = malloc(len);

	assert_non_null(buf);
	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)(seed + i * 13);
	assert_int_equal(vfs_write(f, off, buf, len, VFS_UNSTABLE),
			 (ssize_t)len);
	free(buf);
}

/* Read [off, off+len) of @f and compare with @g at @goff. */
static void assert_same(struct vfs_obj *f, uint64_t off, struct vfs_obj *g,
			uint64_t goff, size_t len)
{
	uint8_t *a = malloc(len), *b = malloc(len);
	bool eof;

	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(vfs_read(f, off, a, len, &eof), (ssize_t)len);
	assert_int_equal(vfs_read(g, goff, b, len, &eof), (ssize_t)len);
	assert_memory_equal(a, b, len);
	free(a);
	free(b);
}

static bool all_zero(struct vfs_obj *f, uint64_t off, size_t len)
{
	uint8_t *a = malloc(len);
	bool eof, z = true;

	assert_non_null(a);
	assert_int_equal(vfs_read(f, off, a, len, &eof), (ssize_t)len);
	for (size_t i = 0; i < len; i++)
		z = z && a[i] == 0;
	free(a);
	return z;
}

static void test_allocate(void **state)
{
	struct vfs_obj *f = mkfile(root, "alloc", 0644);
	struct vfs_attr a;

	assert_int_equal(vfs_allocate(f, 0, 2 * MiB), 0);
	assert_int_equal(vfs_getattr(f, &a), 0);
	assert_int_equal(a.size, 2 * MiB);
	assert_true(a.used >= 2 * MiB);
	assert_true(all_zero(f, 0, 2 * MiB));
	/* Inside the file: size unchanged. */
	assert_int_equal(vfs_allocate(f, 4096, 4096), 0);
	assert_int_equal(vfs_getattr(f, &a), 0);
	assert_int_equal(a.size, 2 * MiB);
	assert_int_equal(vfs_allocate(f, 0, 0), -EINVAL);
	assert_int_equal(vfs_allocate(f, UINT64_MAX - 10, 100), -EFBIG);
	assert_int_equal(vfs_allocate(f, (uint64_t)INT64_MAX, 1), -EFBIG);
	assert_int_equal(vfs_allocate(root, 0, 4096), -EISDIR);
	vfs_obj_put(f);
}

static void test_deallocate(void **state)
{
	struct vfs_obj *f = mkfile(root, "punch", 0644);
	struct vfs_attr before, after;

	fill(f, 0, 3 * MiB, 1);
	assert_int_equal(vfs_commit(f, 0, 0), 0);
	assert_int_equal(vfs_getattr(f, &before), 0);
	assert_int_equal(vfs_deallocate(f, MiB, MiB), 0);
	assert_int_equal(vfs_getattr(f, &after), 0);
	assert_int_equal(after.size, 3 * MiB);
	assert_true(after.used + MiB <= before.used);
	assert_true(all_zero(f, MiB, MiB));
	assert_false(all_zero(f, 0, 4096));
	assert_false(all_zero(f, 2 * MiB, 4096));
	/* Past the end: no error, size kept. */
	assert_int_equal(vfs_deallocate(f, 10 * MiB, MiB), 0);
	assert_int_equal(vfs_getattr(f, &after), 0);
	assert_int_equal(after.size, 3 * MiB);
	assert_int_equal(vfs_deallocate(f, 0, 0), -EINVAL);
	vfs_obj_put(f);
}

static void test_seek(void **state)
{
	struct vfs_obj *f = mkfile(root, "sparse", 0644);
	struct vfs_sattr sa = {.set_size = true, .size = 5 * MiB};
	uint64_t pos, size;

	/* data [0,1M) hole [1M,2M) data [2M,3M) hole [3M,5M) */
	fill(f, 0, MiB, 3);
	fill(f, 2 * MiB, MiB, 4);
	assert_int_equal(vfs_setattr(f, &sa), 0);

	assert_int_equal(vfs_seek(f, 0, VFS_SEEK_DATA, &pos, &size), 0);
	assert_int_equal(pos, 0);
	assert_int_equal(size, 5 * MiB);
	assert_int_equal(vfs_seek(f, 0, VFS_SEEK_HOLE, &pos, &size), 0);
	assert_int_equal(pos, MiB);
	assert_int_equal(vfs_seek(f, MiB + 10, VFS_SEEK_DATA, &pos, &size), 0);
	assert_int_equal(pos, 2 * MiB);
	assert_int_equal(vfs_seek(f, 2 * MiB, VFS_SEEK_HOLE, &pos, &size), 0);
	assert_int_equal(pos, 3 * MiB);
	/* no data after 3M: the end of the file */
	assert_int_equal(vfs_seek(f, 3 * MiB, VFS_SEEK_DATA, &pos, &size), 0);
	assert_int_equal(pos, 5 * MiB);
	assert_int_equal(vfs_seek(f, 4 * MiB, VFS_SEEK_HOLE, &pos, &size), 0);
	assert_int_equal(pos, 4 * MiB);
	assert_int_equal(vfs_seek(f, 5 * MiB, VFS_SEEK_DATA, &pos, &size),
			 -ENXIO);
	assert_int_equal(vfs_seek(f, UINT64_MAX, VFS_SEEK_HOLE, &pos, &size),
			 -ENXIO);
	assert_int_equal(vfs_seek(root, 0, VFS_SEEK_DATA, &pos, &size),
			 -EISDIR);
	vfs_obj_put(f);
}

static void test_copy_range(void **state)
{
	struct vfs_obj *s = mkfile(root, "csrc", 0644);
	struct vfs_obj *d = mkfile(root, "cdst", 0644);
	struct vfs_attr a;

	fill(s, 0, 3 * MiB + 123, 5);
	/* count 0 = to the end of the source */
	assert_int_equal(
		vfs_copy_range(s, 0, d, 0, 0, UINT64_MAX, VFS_FILE_SYNC),
		3 * MiB + 123);
	assert_int_equal(vfs_getattr(d, &a), 0);
	assert_int_equal(a.size, 3 * MiB + 123);
	assert_same(s, 0, d, 0, 3 * MiB + 123);
	/* bounded by @max, at offsets */
	assert_int_equal(
		vfs_copy_range(s, 100, d, 5 * MiB, 2 * MiB, MiB, VFS_UNSTABLE),
		MiB);
	assert_same(s, 100, d, 5 * MiB, MiB);
	assert_int_equal(vfs_getattr(d, &a), 0);
	assert_int_equal(a.size, 6 * MiB);
	/* source range past the end */
	assert_int_equal(
		vfs_copy_range(s, 3 * MiB, d, 0, MiB, UINT64_MAX, VFS_UNSTABLE),
		-EINVAL);
	assert_int_equal(
		vfs_copy_range(s, 4 * MiB, d, 0, 0, UINT64_MAX, VFS_UNSTABLE),
		-EINVAL);
	/* at the exact end: nothing to copy */
	assert_int_equal(vfs_copy_range(s, 3 * MiB + 123, d, 0, 0, UINT64_MAX,
					VFS_UNSTABLE),
			 0);
	/* one file: overlapping ranges refused, disjoint ones copied */
	assert_int_equal(
		vfs_copy_range(s, 0, s, MiB, 2 * MiB, UINT64_MAX, VFS_UNSTABLE),
		-EINVAL);
	assert_int_equal(
		vfs_copy_range(s, 0, s, 4 * MiB, MiB, UINT64_MAX, VFS_UNSTABLE),
		MiB);
	assert_same(s, 0, s, 4 * MiB, MiB);
	assert_int_equal(
		vfs_copy_range(s, 0, root, 0, 1, UINT64_MAX, VFS_UNSTABLE),
		-EISDIR);
	assert_int_equal(vfs_copy_range(s, 0, d, UINT64_MAX - 5, 100,
					UINT64_MAX, VFS_UNSTABLE),
			 -EFBIG);
	vfs_obj_put(s);
	vfs_obj_put(d);
}

/* Across filesystems (ext4 -> tmpfs) copy_file_range says EXDEV on some
 * kernels: the bounce-buffer path must give the same bytes either way. */
static void test_copy_cross_fs(void **state)
{
	struct vfs_export *ex2;
	struct vfs_obj *r2, *s, *d;
	char path[300];

	snprintf(path, sizeof(path), "%s/tmpfs", tmpdir);
	assert_int_equal(mkdir(path, 0755), 0);
	if (mount("nasd-space", path, "tmpfs", 0, "size=16m") < 0)
		skip();
	assert_int_equal(vfs_export_open(path, 8, &ex2), 0);
	assert_int_equal(vfs_obj_root(ex2, &r2), 0);
	s = mkfile(root, "xsrc", 0644);
	d = mkfile(r2, "xdst", 0644);
	fill(s, 0, 700 * 1024 + 7, 9);
	assert_int_equal(
		vfs_copy_range(s, 5, d, 11, 0, UINT64_MAX, VFS_DATA_SYNC),
		700 * 1024 + 2);
	assert_same(s, 5, d, 11, 700 * 1024 + 2);
	vfs_obj_put(s);
	vfs_obj_put(d);
	vfs_obj_put(r2);
	vfs_export_close(ex2);
	assert_int_equal(umount(path), 0);
}

static void test_clone(void **state)
{
	struct vfs_obj *s = mkfile(root, "clsrc", 0644);
	struct vfs_obj *d = mkfile(root, "cldst", 0644);
	uint32_t bs;
	int ret;

	fill(s, 0, MiB, 11);
	assert_int_equal(vfs_clone_blksize(s, &bs), 0);
	assert_true(bs >= 512 && (bs & (bs - 1)) == 0);
	ret = vfs_clone_range(s, 0, d, 0, 0);
	/* ext4 cannot clone; filesystems that can must share the bytes. */
	if (ret == 0)
		assert_same(s, 0, d, 0, MiB);
	else
		assert_int_equal(ret, -ENOTSUPP);
	/* checked before the filesystem is asked */
	assert_int_equal(vfs_clone_range(s, 2 * MiB, d, 0, 4096), -EINVAL);
	assert_int_equal(vfs_clone_range(s, 0, s, 4096, 8192), -EINVAL);
	assert_int_equal(vfs_clone_range(root, 0, d, 0, 0), -EISDIR);
	vfs_obj_put(s);
	vfs_obj_put(d);
}

static void test_advise(void **state)
{
	struct vfs_obj *f = mkfile(root, "advise", 0644);

	fill(f, 0, 64 * 1024, 2);
	for (int a = VFS_ADV_NORMAL; a <= VFS_ADV_NOREUSE; a++)
		assert_int_equal(vfs_advise(f, 0, 4096, (enum vfs_advice)a), 0);
	assert_int_equal(vfs_advise(f, 0, UINT64_MAX, VFS_ADV_WILLNEED), 0);
	assert_int_equal(vfs_advise(f, 0, 0, (enum vfs_advice)99), -EINVAL);
	assert_int_equal(vfs_advise(f, UINT64_MAX, 1, VFS_ADV_NORMAL), -EINVAL);
	assert_int_equal(vfs_advise(root, 0, 0, VFS_ADV_NORMAL), -EISDIR);
	vfs_obj_put(f);
}

/* Another user may seek and copy from a readable file, not change it. */
static void test_permissions(void **state)
{
	struct vfs_cred u1000 = {.uid = 1000, .gid = 1000};
	struct vfs_obj *f = mkfile(root, "rootonly", 0644);
	struct vfs_obj *mine;
	uint64_t pos, size;

	fill(f, 0, 8192, 1);
	assert_int_equal(vfs_cred_set(&u1000), 0);
	assert_int_equal(vfs_allocate(f, 0, 4096), -EACCES);
	assert_int_equal(vfs_deallocate(f, 0, 4096), -EACCES);
	assert_int_equal(vfs_seek(f, 0, VFS_SEEK_HOLE, &pos, &size), 0);
	assert_int_equal(pos, 8192);
	assert_int_equal(vfs_cred_set(&cred_root), 0);
	mine = mkfile(root, "u1000file", 0644);
	{
		struct vfs_sattr sa = {.set_uid = true, .uid = 1000};

		assert_int_equal(vfs_setattr(mine, &sa), 0);
	}
	assert_int_equal(vfs_cred_set(&u1000), 0);
	assert_int_equal(
		vfs_copy_range(f, 0, mine, 0, 0, UINT64_MAX, VFS_UNSTABLE),
		8192);
	assert_int_equal(
		vfs_copy_range(mine, 0, f, 0, 0, UINT64_MAX, VFS_UNSTABLE),
		-EACCES);
	assert_int_equal(vfs_clone_range(mine, 0, f, 0, 0), -EACCES);
	assert_int_equal(vfs_cred_set(&cred_root), 0);
	vfs_obj_put(f);
	vfs_obj_put(mine);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_allocate, reset_cred),
		cmocka_unit_test_setup(test_deallocate, reset_cred),
		cmocka_unit_test_setup(test_seek, reset_cred),
		cmocka_unit_test_setup(test_copy_range, reset_cred),
		cmocka_unit_test_setup(test_copy_cross_fs, reset_cred),
		cmocka_unit_test_setup(test_clone, reset_cred),
		cmocka_unit_test_setup(test_advise, reset_cred),
		cmocka_unit_test_setup(test_permissions, reset_cred),
	};

	if (geteuid() != 0) {
		printf("SKIP: needs root (open_by_handle_at, setfsuid)\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}
