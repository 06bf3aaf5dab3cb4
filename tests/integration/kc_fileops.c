// SPDX-License-Identifier: MIT
/*
 * kc_fileops: the file operations busybox lacks, for kclient workloads
 * (built static by the test on the host and carried into the guest inside
 * the workload script). Over a cifs mount each becomes an SMB2 IOCTL:
 *   copy SRC DST          copy_file_range(2) whole  (SRV_COPYCHUNK_WRITE)
 *   clone SRC DST         ioctl FICLONE             (DUPLICATE_EXTENTS)
 *   reflink SRC DST       clone, else copy: cp --reflink=auto
 *   punch FILE OFF LEN    fallocate PUNCH_HOLE|KEEP_SIZE (SET_ZERO_DATA)
 *   seek FILE OFF data|hole  lseek SEEK_DATA/SEEK_HOLE (ALLOCATED_RANGES)
 * and, over NFSv4.2, RFC 8276's operations (busybox has no getfattr):
 *   xset FILE NAME SIZE [create|replace]  setxattr, SIZE bytes of a
 *                                         pattern of NAME (SETXATTR)
 *   xget FILE NAME SIZE   getxattr, and the value must be that pattern
 *   xlist FILE            listxattr, one name a line (LISTXATTRS)
 *   xrm FILE NAME         removexattr (REMOVEXATTR)
 * Prints what happened; exits 0 on success, 1 with "... (errno N)".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

static int fail(const char *what)
{
	printf("%s failed: %s (errno %d)\n", what, strerror(errno), errno);
	return 1;
}

static int open2(const char *src, const char *dst, int *in, int *out)
{
	*in = open(src, O_RDONLY);
	if (*in < 0)
		return fail("open source");
	*out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (*out < 0)
		return fail("open target");
	return 0;
}

static int do_copy(int in, int out)
{
	struct stat st;
	off_t done = 0;
	ssize_t n;

	if (fstat(in, &st) < 0)
		return fail("fstat");
	while (done < st.st_size) {
		n = copy_file_range(in, NULL, out, NULL,
				    (size_t)(st.st_size - done), 0);
		if (n < 0)
			return fail("copy_file_range");
		if (n == 0)
			break;
		done += n;
	}
	printf("copied %lld\n", (long long)done);
	return done == st.st_size ? 0 : 1;
}

/* The value of @name, @n bytes: the same on both ends of a check. */
static char *pattern(const char *name, size_t n)
{
	char *v = malloc(n ? n : 1);
	size_t i, h = strlen(name);

	for (i = 0; v && i < n; i++)
		v[i] = (char)((i * 31 + h * 7 + (unsigned char)name[i % h]) &
			      0xff);
	return v;
}

static int do_xattr(int argc, char **argv)
{
	size_t n = argc >= 5 ? (size_t)atoll(argv[4]) : 0;
	char *v, *got, list[65536];
	ssize_t r;
	int flags = 0;

	if (!strcmp(argv[1], "xset") && (argc == 5 || argc == 6)) {
		if (argc == 6)
			flags = !strcmp(argv[5], "create") ? XATTR_CREATE
							   : XATTR_REPLACE;
		v = pattern(argv[3], n);
		if (!v || setxattr(argv[2], argv[3], v, n, flags) < 0)
			return fail("setxattr");
		printf("set %zu\n", n);
		return 0;
	}
	if (!strcmp(argv[1], "xget") && argc == 5) {
		v = pattern(argv[3], n);
		got = malloc(n + 1);
		if (!v || !got)
			return fail("malloc");
		r = getxattr(argv[2], argv[3], got, n + 1);
		if (r < 0)
			return fail("getxattr");
		if ((size_t)r != n || memcmp(v, got, n)) {
			printf("getxattr: %zd bytes, not the %zu set\n", r, n);
			return 1;
		}
		printf("got %zd\n", r);
		return 0;
	}
	if (!strcmp(argv[1], "xlist") && argc == 3) {
		r = listxattr(argv[2], list, sizeof(list));
		if (r < 0)
			return fail("listxattr");
		for (ssize_t i = 0; i < r; i += (ssize_t)strlen(list + i) + 1)
			printf("%s\n", list + i);
		return 0;
	}
	if (!strcmp(argv[1], "xrm") && argc == 4) {
		if (removexattr(argv[2], argv[3]) < 0)
			return fail("removexattr");
		printf("removed\n");
		return 0;
	}
	return 2;
}

int main(int argc, char **argv)
{
	int in, out, fd;
	off_t r;

	if (argc < 3)
		goto usage;
	if (argv[1][0] == 'x') {
		int rc = do_xattr(argc, argv);

		if (rc != 2)
			return rc;
	}
	if (!strcmp(argv[1], "copy") && argc == 4) {
		if (open2(argv[2], argv[3], &in, &out))
			return 1;
		return do_copy(in, out);
	}
	if ((!strcmp(argv[1], "clone") || !strcmp(argv[1], "reflink")) &&
	    argc == 4) {
		if (open2(argv[2], argv[3], &in, &out))
			return 1;
		if (ioctl(out, FICLONE, in) == 0) {
			printf("cloned\n");
			return 0;
		}
		if (!strcmp(argv[1], "clone"))
			return fail("FICLONE");
		printf("no clone (errno %d): copying\n", errno);
		return do_copy(in, out);
	}
	if (!strcmp(argv[1], "punch") && argc == 5) {
		fd = open(argv[2], O_RDWR);
		if (fd < 0)
			return fail("open");
		if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			      atoll(argv[3]), atoll(argv[4])) < 0)
			return fail("fallocate punch");
		printf("punched\n");
		return 0;
	}
	if (!strcmp(argv[1], "seek") && argc == 5) {
		fd = open(argv[2], O_RDONLY);
		if (fd < 0)
			return fail("open");
		r = lseek(fd, atoll(argv[3]),
			  !strcmp(argv[4], "hole") ? SEEK_HOLE : SEEK_DATA);
		if (r < 0)
			return fail("lseek");
		printf("%lld\n", (long long)r);
		return 0;
	}
usage:
	fprintf(stderr, "usage: kc_fileops copy|clone|reflink SRC DST | "
			"punch FILE OFF LEN | seek FILE OFF data|hole | "
			"xset FILE NAME SIZE [create|replace] | "
			"xget FILE NAME SIZE | xlist FILE | xrm FILE NAME\n");
	return 2;
}
