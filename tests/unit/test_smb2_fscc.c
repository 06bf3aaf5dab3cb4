/* SPDX-License-Identifier: MIT */
/*
 * Unit tests: the MS-FSCC / MS-DTYP codecs of src/smb2 (fscc.h, sd.h,
 * wildcard.h). Expected bytes are either laid out here by hand, field by
 * field at the offsets MS-FSCC gives (helpers w16/w32/w64), or generated
 * by impacket's own structures (smb2_fscc_vectors.h, from
 * gen_smb2_fscc_vectors.py), never by the code under test. Every "too
 * small" case also checks that not one byte past the cursor was written.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "smb2/fscc.h"
#include "smb2/sd.h"
#include "smb2/wildcard.h"
#include "smb2_fscc_vectors.h"

#define SENTINEL 0xAA

/* ---- helpers ---- */

static void w16(uint8_t *p, size_t off, uint16_t v)
{
	p[off] = (uint8_t)v;
	p[off + 1] = (uint8_t)(v >> 8);
}

static void w32(uint8_t *p, size_t off, uint32_t v)
{
	w16(p, off, (uint16_t)v);
	w16(p, off + 2, (uint16_t)(v >> 16));
}

static void w64(uint8_t *p, size_t off, uint64_t v)
{
	w32(p, off, (uint32_t)v);
	w32(p, off + 4, (uint32_t)(v >> 32));
}

/* ASCII @s as UTF-16LE at @p + @off; the bytes written. */
static size_t wstr(uint8_t *p, size_t off, const char *s)
{
	size_t i;

	for (i = 0; s[i]; i++)
		w16(p, off + 2 * i, (uint8_t)s[i]);
	return 2 * i;
}

static bool all_sentinel(const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (p[i] != SENTINEL)
			return false;
	}
	return true;
}

/* The fixture the impacket vectors were made with. */
static struct fscc_file_info make_fi(void)
{
	struct fscc_file_info fi = {
		.creation_time = 0x01D9000000000001ull,
		.last_access_time = 0x01D9000000000002ull,
		.last_write_time = 0x01D9000000000003ull,
		.change_time = 0x01D9000000000004ull,
		.allocation_size = 8192,
		.end_of_file = 5000,
		.file_id = 0x0000000100000123ull,
		.attributes = FILE_ATTRIBUTE_ARCHIVE,
		.reparse_tag = 0,
		.nlink = 2,
		.ea_size = 0,
		.directory = false,
		.delete_pending = true,
	};
	return fi;
}

static struct fscc_query make_q(const struct fscc_file_info *fi)
{
	struct fscc_query q = {
		.fi = fi,
		.access = 0x001F01FF,
		.position = 0,
		.mode = FILE_SYNCHRONOUS_IO_NONALERT,
		.path = "dir/f.txt",
		.path_len = 9,
		.volume_serial = 0x12345678,
	};
	return q;
}

/* ---- conversions ---- */

static void test_time_conversion(void **state)
{
	struct timespec ts;
	uint64_t maxsec;

	(void)state;
	ts = (struct timespec){0, 0};
	assert_int_equal(fscc_filetime_from_timespec(&ts),
			 FSCC_FILETIME_UNIX_EPOCH);
	/* 100 ns resolution, rounded down */
	ts = (struct timespec){1, 999999999};
	assert_int_equal(fscc_filetime_from_timespec(&ts),
			 FSCC_FILETIME_UNIX_EPOCH + 10000000 + 9999999);
	ts = (struct timespec){0, 99};
	assert_int_equal(fscc_filetime_from_timespec(&ts),
			 FSCC_FILETIME_UNIX_EPOCH);
	/* 1601-01-01 exactly is 0; before it clamps to 0 */
	ts = (struct timespec){-11644473600ll, 0};
	assert_int_equal(fscc_filetime_from_timespec(&ts), 0);
	ts = (struct timespec){-11644473600ll, 100};
	assert_int_equal(fscc_filetime_from_timespec(&ts), 1);
	ts = (struct timespec){-11644473601ll, 999999999};
	assert_int_equal(fscc_filetime_from_timespec(&ts), 0);
	ts = (struct timespec){INT64_MIN, 0};
	assert_int_equal(fscc_filetime_from_timespec(&ts), 0);
	/* the top: the last second that fits, and the one after */
	maxsec = FSCC_FILETIME_MAX / 10000000 - 11644473600ull;
	ts = (struct timespec){(time_t)maxsec, 0};
	assert_int_equal(fscc_filetime_from_timespec(&ts),
			 (maxsec + 11644473600ull) * 10000000);
	ts = (struct timespec){(time_t)maxsec, 999999999};
	assert_int_equal(fscc_filetime_from_timespec(&ts), FSCC_FILETIME_MAX);
	ts = (struct timespec){(time_t)maxsec + 1, 0};
	assert_int_equal(fscc_filetime_from_timespec(&ts), FSCC_FILETIME_MAX);
	ts = (struct timespec){INT64_MAX, 0};
	assert_int_equal(fscc_filetime_from_timespec(&ts), FSCC_FILETIME_MAX);
	/* tv_nsec out of range is carried, also at the extremes */
	ts = (struct timespec){0, -1};
	assert_int_equal(fscc_filetime_from_timespec(&ts),
			 FSCC_FILETIME_UNIX_EPOCH - 1);
	ts = (struct timespec){0, 2500000000l};
	assert_int_equal(fscc_filetime_from_timespec(&ts),
			 FSCC_FILETIME_UNIX_EPOCH + 25000000);
	ts = (struct timespec){INT64_MAX, 2000000000l};
	assert_int_equal(fscc_filetime_from_timespec(&ts), FSCC_FILETIME_MAX);
	ts = (struct timespec){INT64_MIN, -2000000000l};
	assert_int_equal(fscc_filetime_from_timespec(&ts), 0);

	ts = fscc_timespec_from_filetime(0);
	assert_int_equal(ts.tv_sec, -11644473600ll);
	assert_int_equal(ts.tv_nsec, 0);
	ts = fscc_timespec_from_filetime(FSCC_FILETIME_UNIX_EPOCH + 12345678);
	assert_int_equal(ts.tv_sec, 1);
	assert_int_equal(ts.tv_nsec, 234567800);
	ts = fscc_timespec_from_filetime(FSCC_FILETIME_MAX);
	assert_int_equal(ts.tv_sec, (time_t)maxsec);
	assert_int_equal(ts.tv_nsec, 477580700);
	ts = fscc_timespec_from_filetime(UINT64_MAX);
	assert_int_equal(ts.tv_sec, (time_t)maxsec);
	/* round trip at 100 ns granularity */
	ts = (struct timespec){1700000000, 123456700};
	ts = fscc_timespec_from_filetime(fscc_filetime_from_timespec(&ts));
	assert_int_equal(ts.tv_sec, 1700000000);
	assert_int_equal(ts.tv_nsec, 123456700);
}

static void test_time_set_ops(void **state)
{
	struct fscc_time_set t;

	(void)state;
	assert_int_equal(fscc_dec_time(0, &t), FSCC_OK);
	assert_int_equal(t.op, FSCC_TIME_KEEP);
	assert_int_equal(fscc_dec_time(UINT64_MAX, &t), FSCC_OK);
	assert_int_equal(t.op, FSCC_TIME_FREEZE);
	assert_int_equal(fscc_dec_time(UINT64_MAX - 1, &t), FSCC_OK);
	assert_int_equal(t.op, FSCC_TIME_THAW);
	assert_int_equal(fscc_dec_time(UINT64_MAX - 2, &t),
			 FSCC_INVALID_PARAMETER);
	assert_int_equal(fscc_dec_time(1ull << 63, &t), FSCC_INVALID_PARAMETER);
	assert_int_equal(fscc_dec_time(1, &t), FSCC_OK);
	assert_int_equal(t.op, FSCC_TIME_SET);
	assert_int_equal(t.ts.tv_sec, -11644473600ll);
	assert_int_equal(t.ts.tv_nsec, 100);
	assert_int_equal(fscc_dec_time(FSCC_FILETIME_UNIX_EPOCH, &t), FSCC_OK);
	assert_int_equal(t.op, FSCC_TIME_SET);
	assert_int_equal(t.ts.tv_sec, 0);
	assert_int_equal(t.filetime, FSCC_FILETIME_UNIX_EPOCH);
	assert_int_equal(fscc_dec_time(FSCC_FILETIME_MAX, &t), FSCC_OK);
	assert_int_equal(t.op, FSCC_TIME_SET);
}

static void test_ntstatus(void **state)
{
	(void)state;
	assert_int_equal(fscc_ntstatus(FSCC_OK), 0);
	assert_int_equal(fscc_ntstatus(FSCC_BUFFER_OVERFLOW), 0x80000005);
	assert_int_equal(fscc_ntstatus(FSCC_INFO_LENGTH_MISMATCH), 0xC0000004);
	assert_int_equal(fscc_ntstatus(FSCC_BUFFER_TOO_SMALL), 0xC0000023);
	assert_int_equal(fscc_ntstatus(FSCC_INVALID_PARAMETER), 0xC000000D);
	assert_int_equal(fscc_ntstatus(FSCC_OBJECT_NAME_INVALID), 0xC0000033);
	assert_int_equal(fscc_ntstatus(FSCC_NAME_TOO_LONG), 0xC0000106);
	assert_int_equal(fscc_ntstatus(FSCC_EA_LIST_INCONSISTENT), 0x80000014);
	assert_int_equal(fscc_ntstatus(FSCC_INVALID_EA_NAME), 0x80000013);
	assert_int_equal(fscc_ntstatus(FSCC_INVALID_SECURITY_DESCR),
			 0xC0000079);
	assert_int_equal(fscc_ntstatus(FSCC_INVALID_INFO_CLASS), 0xC0000003);
	assert_int_equal(fscc_ntstatus(FSCC_NO_SPACE), 0x80000005);
	assert_int_equal(fscc_ntstatus((enum fscc_status)99), 0xC0000001);
}

static struct vfs_attr make_attr(enum vfs_ftype type, uint32_t mode)
{
	struct vfs_attr a;

	memset(&a, 0, sizeof(a));
	a.type = type;
	a.mode = mode;
	a.nlink = 3;
	a.uid = 1000;
	a.gid = 100;
	a.size = 10000;
	a.used = 12288;
	a.fileid = 4242;
	a.atime = (struct timespec){1700000300, 0};
	a.mtime = (struct timespec){1700000200, 0};
	a.ctime = (struct timespec){1700000100, 500};
	return a;
}

static void test_attributes(void **state)
{
	struct vfs_attr a;
	uint32_t seen[64], s;
	size_t i, j;

	(void)state;
	a = make_attr(VFS_REG, 0644);
	assert_int_equal(fscc_attributes(&a, 0), FILE_ATTRIBUTE_ARCHIVE);
	/* read-only only when nobody may write */
	a.mode = 0444;
	assert_int_equal(fscc_attributes(&a, 0),
			 FILE_ATTRIBUTE_ARCHIVE | FILE_ATTRIBUTE_READONLY);
	a.mode = 0464;
	assert_int_equal(fscc_attributes(&a, 0), FILE_ATTRIBUTE_ARCHIVE);
	a.mode = 0400;
	assert_int_equal(fscc_attributes(&a, 0),
			 FILE_ATTRIBUTE_ARCHIVE | FILE_ATTRIBUTE_READONLY);
	/* sparse: fewer bytes allocated than the size */
	a.mode = 0644;
	a.used = 4096;
	assert_int_equal(fscc_attributes(&a, 0),
			 FILE_ATTRIBUTE_ARCHIVE | FILE_ATTRIBUTE_SPARSE_FILE);
	a.size = 0;
	a.used = 0;
	assert_int_equal(fscc_attributes(&a, 0), FILE_ATTRIBUTE_ARCHIVE);
	/* a directory is DIRECTORY only, whatever its mode or blocks */
	a = make_attr(VFS_DIR, 0555);
	a.used = 0;
	assert_int_equal(fscc_attributes(&a, 0), FILE_ATTRIBUTE_DIRECTORY);
	assert_int_equal(fscc_reparse_tag(&a, FSCC_ATTR_SYMLINK_REPARSE), 0);
	/* symlinks: a plain file unless the engine serves reparse points */
	a = make_attr(VFS_LNK, 0777);
	a.used = 0;
	assert_int_equal(fscc_attributes(&a, 0), FILE_ATTRIBUTE_ARCHIVE);
	assert_int_equal(fscc_reparse_tag(&a, 0), 0);
	assert_int_equal(fscc_attributes(&a, FSCC_ATTR_SYMLINK_REPARSE),
			 FILE_ATTRIBUTE_ARCHIVE | FILE_ATTRIBUTE_REPARSE_POINT);
	assert_int_equal(fscc_reparse_tag(&a, FSCC_ATTR_SYMLINK_REPARSE),
			 IO_REPARSE_TAG_SYMLINK);
	/* NORMAL only alone */
	assert_int_equal(fscc_attributes_normalize(0), FILE_ATTRIBUTE_NORMAL);
	assert_int_equal(fscc_attributes_normalize(FILE_ATTRIBUTE_NORMAL),
			 FILE_ATTRIBUTE_NORMAL);
	assert_int_equal(fscc_attributes_normalize(FILE_ATTRIBUTE_NORMAL |
						   FILE_ATTRIBUTE_HIDDEN),
			 FILE_ATTRIBUTE_HIDDEN);
	/* dot files */
	assert_true(fscc_name_hidden(".profile", 8));
	assert_true(fscc_name_hidden("...", 3));
	assert_false(fscc_name_hidden(".", 1));
	assert_false(fscc_name_hidden("..", 2));
	assert_false(fscc_name_hidden("a.b", 3));
	assert_false(fscc_name_hidden("", 0));
	/* allocation size */
	a = make_attr(VFS_REG, 0644);
	assert_int_equal(fscc_allocation_size(&a), 12288);
	a.type = VFS_DIR;
	assert_int_equal(fscc_allocation_size(&a), 0);
	/* serials: never 0, distinct for neighbours */
	for (i = 0; i < 64; i++) {
		s = fscc_volume_serial((uint32_t)i);
		assert_int_not_equal(s, 0);
		assert_int_equal(s, fscc_volume_serial((uint32_t)i));
		for (j = 0; j < i; j++)
			assert_int_not_equal(s, seen[j]);
		seen[i] = s;
	}
}

static void test_file_info_from_attr(void **state)
{
	struct timespec t;
	struct fscc_file_info fi;
	struct vfs_attr a;

	(void)state;
	a = make_attr(VFS_REG, 0644);
	fscc_file_info_from_attr(&fi, &a, 0);
	/* creation: the earliest of the three (here ctime) */
	assert_int_equal(fi.creation_time,
			 fscc_filetime_from_timespec(&a.ctime));
	assert_int_equal(fi.last_access_time,
			 fscc_filetime_from_timespec(&a.atime));
	assert_int_equal(fi.last_write_time,
			 fscc_filetime_from_timespec(&a.mtime));
	assert_int_equal(fi.change_time, fscc_filetime_from_timespec(&a.ctime));
	assert_int_equal(fi.allocation_size, 12288);
	assert_int_equal(fi.end_of_file, 10000);
	assert_int_equal(fi.file_id, 4242);
	assert_int_equal(fi.attributes, FILE_ATTRIBUTE_ARCHIVE);
	assert_int_equal(fi.nlink, 3);
	assert_false(fi.directory);
	assert_false(fi.delete_pending);
	assert_int_equal(fi.ea_size, 0);
	/* an older atime (cp -p) wins; an atime of 0 does not */
	a.atime = (struct timespec){1600000000, 0};
	fscc_file_info_from_attr(&fi, &a, 0);
	assert_int_equal(fi.creation_time,
			 fscc_filetime_from_timespec(&a.atime));
	a.atime = (struct timespec){0, 0};
	a.mtime = (struct timespec){1700000000, 0};
	fscc_file_info_from_attr(&fi, &a, 0);
	t = a.mtime;
	assert_int_equal(fi.creation_time, fscc_filetime_from_timespec(&t));
	/* a directory: no sizes, one link */
	a = make_attr(VFS_DIR, 0755);
	fscc_file_info_from_attr(&fi, &a, 0);
	assert_int_equal(fi.allocation_size, 0);
	assert_int_equal(fi.end_of_file, 0);
	assert_int_equal(fi.nlink, 1);
	assert_true(fi.directory);
	assert_int_equal(fi.attributes, FILE_ATTRIBUTE_DIRECTORY);
}

/* What a file keeps over what is derived: the creation time, and the
 * attributes but for a file's READONLY (the mode's) and the type's. */
static void test_file_info_apply_dos(void **state)
{
	struct vfs_dosattr d = { 0 };
	struct fscc_file_info fi;
	struct vfs_attr a;
	uint64_t derived;

	(void)state;
	a = make_attr(VFS_REG, 0644);
	fscc_file_info_from_attr(&fi, &a, 0);
	derived = fi.creation_time;
	fscc_file_info_apply_dos(&fi, &d); /* nothing kept: unchanged */
	assert_int_equal(fi.attributes, FILE_ATTRIBUTE_ARCHIVE);
	assert_true(fi.creation_time == derived);
	d.has_create_time = true;
	d.create_time = 123456789;
	d.has_attrib = true;
	d.attrib = FILE_ATTRIBUTE_HIDDEN | FILE_ATTRIBUTE_SYSTEM |
		   FILE_ATTRIBUTE_READONLY | FILE_ATTRIBUTE_SPARSE_FILE |
		   FILE_ATTRIBUTE_DIRECTORY | FILE_ATTRIBUTE_ENCRYPTED;
	fscc_file_info_apply_dos(&fi, &d);
	assert_true(fi.creation_time == 123456789);
	/* ARCHIVE cleared, READONLY not taken (mode 0644), DIRECTORY and
	 * what nasd does not keep ignored */
	assert_int_equal(fi.attributes, FILE_ATTRIBUTE_HIDDEN |
						FILE_ATTRIBUTE_SYSTEM |
						FILE_ATTRIBUTE_SPARSE_FILE);
	/* the mode says read-only: it stays so, whatever was kept */
	a = make_attr(VFS_REG, 0444);
	fscc_file_info_from_attr(&fi, &a, 0);
	d.attrib = FILE_ATTRIBUTE_ARCHIVE;
	fscc_file_info_apply_dos(&fi, &d);
	assert_int_equal(fi.attributes,
			 FILE_ATTRIBUTE_ARCHIVE | FILE_ATTRIBUTE_READONLY);
	/* a directory keeps READONLY, never SPARSE or TEMPORARY */
	a = make_attr(VFS_DIR, 0755);
	fscc_file_info_from_attr(&fi, &a, 0);
	d.attrib = FILE_ATTRIBUTE_READONLY | FILE_ATTRIBUTE_HIDDEN |
		   FILE_ATTRIBUTE_SPARSE_FILE | FILE_ATTRIBUTE_TEMPORARY;
	fscc_file_info_apply_dos(&fi, &d);
	assert_int_equal(fi.attributes, FILE_ATTRIBUTE_DIRECTORY |
						FILE_ATTRIBUTE_READONLY |
						FILE_ATTRIBUTE_HIDDEN);
}

/* ---- QUERY_INFO, file classes ---- */

/* Encode @cls into a sentinel-filled buffer of @room bytes; the status,
 * the bytes written in *@n. */
static enum fscc_status query(uint8_t cls, const struct fscc_query *q,
			      uint8_t *buf, size_t room, size_t *n)
{
	struct smb2_buf b;
	enum fscc_status st;

	memset(buf, SENTINEL, room + 16);
	sb_init(&b, buf, room);
	st = fscc_query_file(cls, &b, q);
	*n = b.pos;
	/* nothing past what the cursor says was written */
	assert_true(all_sentinel(buf + b.pos, room + 16 - b.pos));
	return st;
}

static void test_query_fixed_golden(void **state)
{
	struct fscc_file_info fi = make_fi();
	struct fscc_query q = make_q(&fi);
	uint8_t buf[256], exp[128];
	size_t n;

	(void)state;
	/* FileBasicInformation: 4 times, FileAttributes at 32, Reserved */
	memset(exp, 0, sizeof(exp));
	w64(exp, 0, fi.creation_time);
	w64(exp, 8, fi.last_access_time);
	w64(exp, 16, fi.last_write_time);
	w64(exp, 24, fi.change_time);
	w32(exp, 32, FILE_ATTRIBUTE_ARCHIVE);
	assert_int_equal(query(FileBasicInformation, &q, buf, 200, &n),
			 FSCC_OK);
	assert_int_equal(n, 40);
	assert_memory_equal(buf, exp, 40);
	/* FileStandardInformation */
	memset(exp, 0, sizeof(exp));
	w64(exp, 0, 8192);
	w64(exp, 8, 5000);
	w32(exp, 16, 2);
	exp[20] = 1; /* DeletePending */
	exp[21] = 0; /* Directory */
	assert_int_equal(query(FileStandardInformation, &q, buf, 200, &n),
			 FSCC_OK);
	assert_int_equal(n, 24);
	assert_memory_equal(buf, exp, 24);
	/* FileInternalInformation */
	memset(exp, 0, sizeof(exp));
	w64(exp, 0, fi.file_id);
	assert_int_equal(query(FileInternalInformation, &q, buf, 200, &n),
			 FSCC_OK);
	assert_int_equal(n, 8);
	assert_memory_equal(buf, exp, 8);
	/* FileEaInformation */
	fi.ea_size = 0x1234;
	w32(exp, 0, 0x1234);
	assert_int_equal(query(FileEaInformation, &q, buf, 200, &n), FSCC_OK);
	assert_int_equal(n, 4);
	assert_memory_equal(buf, exp, 4);
	fi.ea_size = 0;
	/* FileAccessInformation */
	w32(exp, 0, 0x001F01FF);
	assert_int_equal(query(FileAccessInformation, &q, buf, 200, &n),
			 FSCC_OK);
	assert_int_equal(n, 4);
	assert_memory_equal(buf, exp, 4);
	/* FilePositionInformation */
	q.position = 0x1122334455667788ull;
	w64(exp, 0, 0x1122334455667788ull);
	assert_int_equal(query(FilePositionInformation, &q, buf, 200, &n),
			 FSCC_OK);
	assert_int_equal(n, 8);
	assert_memory_equal(buf, exp, 8);
	q.position = 0;
	/* FileModeInformation */
	w32(exp, 0, FILE_SYNCHRONOUS_IO_NONALERT);
	assert_int_equal(query(FileModeInformation, &q, buf, 200, &n), FSCC_OK);
	assert_int_equal(n, 4);
	assert_memory_equal(buf, exp, 4);
	/* FileAlignmentInformation */
	w32(exp, 0, 0);
	assert_int_equal(query(FileAlignmentInformation, &q, buf, 200, &n),
			 FSCC_OK);
	assert_int_equal(n, 4);
	assert_memory_equal(buf, exp, 4);
	/* FileCompressionInformation */
	memset(exp, 0, sizeof(exp));
	w64(exp, 0, 5000);
	assert_int_equal(query(FileCompressionInformation, &q, buf, 200, &n),
			 FSCC_OK);
	assert_int_equal(n, 16);
	assert_memory_equal(buf, exp, 16);
	/* FileNetworkOpenInformation */
	memset(exp, 0, sizeof(exp));
	w64(exp, 0, fi.creation_time);
	w64(exp, 8, fi.last_access_time);
	w64(exp, 16, fi.last_write_time);
	w64(exp, 24, fi.change_time);
	w64(exp, 32, 8192);
	w64(exp, 40, 5000);
	w32(exp, 48, FILE_ATTRIBUTE_ARCHIVE);
	assert_int_equal(query(FileNetworkOpenInformation, &q, buf, 200, &n),
			 FSCC_OK);
	assert_int_equal(n, 56);
	assert_memory_equal(buf, exp, 56);
	/* FileAttributeTagInformation: the tag only with the attribute */
	memset(exp, 0, sizeof(exp));
	fi.reparse_tag = IO_REPARSE_TAG_SYMLINK;
	w32(exp, 0, FILE_ATTRIBUTE_ARCHIVE);
	assert_int_equal(query(FileAttributeTagInformation, &q, buf, 200, &n),
			 FSCC_OK);
	assert_int_equal(n, 8);
	assert_memory_equal(buf, exp, 8);
	fi.attributes |= FILE_ATTRIBUTE_REPARSE_POINT;
	w32(exp, 0, FILE_ATTRIBUTE_ARCHIVE | FILE_ATTRIBUTE_REPARSE_POINT);
	w32(exp, 4, IO_REPARSE_TAG_SYMLINK);
	assert_int_equal(query(FileAttributeTagInformation, &q, buf, 200, &n),
			 FSCC_OK);
	assert_memory_equal(buf, exp, 8);
	fi = make_fi();
	/* FileIdInformation: 64-bit serial, 128-bit id */
	memset(exp, 0, sizeof(exp));
	w64(exp, 0, 0x12345678);
	w64(exp, 8, fi.file_id);
	assert_int_equal(query(FileIdInformation, &q, buf, 200, &n), FSCC_OK);
	assert_int_equal(n, 24);
	assert_memory_equal(buf, exp, 24);
}

static void test_query_all_info(void **state)
{
	struct fscc_file_info fi = make_fi();
	struct fscc_query q = make_q(&fi);
	uint8_t buf[256];
	size_t n;

	(void)state;
	/* against impacket's FILE_ALL_INFORMATION */
	assert_int_equal(query(FileAllInformation, &q, buf, 200, &n), FSCC_OK);
	assert_int_equal(n, sizeof(vec_all_info));
	assert_memory_equal(buf, vec_all_info, sizeof(vec_all_info));
	assert_int_equal(query(FileAllInformation, &q, buf, 120, &n), FSCC_OK);
	assert_int_equal(n, 120);
	/* below the fixed part (104): nothing */
	assert_int_equal(query(FileAllInformation, &q, buf, 103, &n),
			 FSCC_INFO_LENGTH_MISMATCH);
	assert_int_equal(n, 0);
	assert_int_equal(query(FileAllInformation, &q, buf, 0, &n),
			 FSCC_INFO_LENGTH_MISMATCH);
	/* 104: "\d" of "\dir\f.txt", FileNameLength still 20 */
	assert_int_equal(query(FileAllInformation, &q, buf, 104, &n),
			 FSCC_BUFFER_OVERFLOW);
	assert_int_equal(n, 104);
	assert_memory_equal(buf, vec_all_info, 104);
	/* odd room: whole UTF-16 units only */
	assert_int_equal(query(FileAllInformation, &q, buf, 105, &n),
			 FSCC_BUFFER_OVERFLOW);
	assert_int_equal(n, 104);
	assert_int_equal(query(FileAllInformation, &q, buf, 119, &n),
			 FSCC_BUFFER_OVERFLOW);
	assert_int_equal(n, 118);
	assert_memory_equal(buf, vec_all_info, 118);
	/* the root is "\" */
	q.path = "";
	q.path_len = 0;
	assert_int_equal(query(FileAllInformation, &q, buf, 200, &n), FSCC_OK);
	assert_int_equal(n, 102);
	assert_int_equal(buf[96], 2);
	assert_int_equal(buf[100], '\\');
	assert_int_equal(buf[101], 0);
	/* a path that is not UTF-8: nothing */
	q.path = "a\xff";
	q.path_len = 2;
	assert_int_equal(query(FileAllInformation, &q, buf, 200, &n),
			 FSCC_OBJECT_NAME_INVALID);
	assert_int_equal(n, 0);
}

static void test_query_normalized_name(void **state)
{
	struct fscc_file_info fi = make_fi();
	struct fscc_query q = make_q(&fi);
	uint8_t buf[256], exp[64];
	size_t n;

	(void)state;
	memset(exp, 0, sizeof(exp));
	w32(exp, 0, 18);
	wstr(exp, 4, "dir\\f.txt");
	assert_int_equal(query(FileNormalizedNameInformation, &q, buf, 200, &n),
			 FSCC_OK);
	assert_int_equal(n, 22);
	assert_memory_equal(buf, exp, 22);
	assert_int_equal(query(FileNormalizedNameInformation, &q, buf, 7, &n),
			 FSCC_INFO_LENGTH_MISMATCH);
	assert_int_equal(n, 0);
	assert_int_equal(query(FileNormalizedNameInformation, &q, buf, 8, &n),
			 FSCC_BUFFER_OVERFLOW);
	assert_int_equal(n, 8);
	assert_memory_equal(buf, exp, 8);
	assert_int_equal(query(FileNormalizedNameInformation, &q, buf, 21, &n),
			 FSCC_BUFFER_OVERFLOW);
	assert_int_equal(n, 20);
	assert_memory_equal(buf, exp, 20);
	/* the root: an empty name */
	q.path = "";
	q.path_len = 0;
	assert_int_equal(query(FileNormalizedNameInformation, &q, buf, 8, &n),
			 FSCC_OK);
	assert_int_equal(n, 4);
	assert_int_equal(buf[0], 0);
	/* a name past the BMP: a surrogate pair, and truncation inside it */
	q.path = "\xf0\x9f\x98\x80"; /* U+1F600 */
	q.path_len = 4;
	assert_int_equal(query(FileNormalizedNameInformation, &q, buf, 8, &n),
			 FSCC_OK);
	assert_int_equal(n, 8);
	assert_memory_equal(buf, "\x04\0\0\0\x3d\xd8\x00\xde", 8);
}

static const struct fscc_stream two_streams[2] = {
	{ "::$DATA", 7, 5000, 8192 },
	{ ":zone:$DATA", 11, 3, 4096 },
};

static void test_query_stream(void **state)
{
	struct fscc_file_info fi = make_fi();
	struct fscc_query q = make_q(&fi);
	uint8_t buf[256], exp[64];
	size_t n, room;

	(void)state;
	q.streams = two_streams;
	q.nstreams = 1;
	memset(exp, 0, sizeof(exp));
	w32(exp, 0, 0);	 /* NextEntryOffset */
	w32(exp, 4, 14); /* StreamNameLength */
	w64(exp, 8, 5000);
	w64(exp, 16, 8192);
	wstr(exp, 24, "::$DATA");
	assert_int_equal(query(FileStreamInformation, &q, buf, 200, &n),
			 FSCC_OK);
	assert_int_equal(n, 38);
	assert_memory_equal(buf, exp, 38);
	assert_int_equal(query(FileStreamInformation, &q, buf, 38, &n),
			 FSCC_OK);
	assert_int_equal(n, 38);
	for (room = 0; room < 32; room++) {
		assert_int_equal(
			query(FileStreamInformation, &q, buf, room, &n),
			FSCC_INFO_LENGTH_MISMATCH);
		assert_int_equal(n, 0);
	}
	/* the entry does not fit: overflow, no partial entry */
	for (room = 32; room < 38; room++) {
		assert_int_equal(
			query(FileStreamInformation, &q, buf, room, &n),
			FSCC_BUFFER_OVERFLOW);
		assert_int_equal(n, 0);
	}
	/* two: the second entry 8-byte aligned after the first */
	q.nstreams = 2;
	assert_int_equal(query(FileStreamInformation, &q, buf, 200, &n),
			 FSCC_OK);
	assert_int_equal(n, 40 + 24 + 22);
	assert_int_equal(buf[0], 40); /* NextEntryOffset */
	assert_int_equal(buf[40 + 4], 22);
	assert_int_equal(buf[40 + 8], 3);
	assert_memory_equal(buf + 40 + 24, ":\0z\0o\0n\0e\0", 10);
	for (room = 40; room < 86; room++) {
		assert_int_equal(
			query(FileStreamInformation, &q, buf, room, &n),
			FSCC_BUFFER_OVERFLOW);
		assert_int_equal(n, 38);
		assert_int_equal(buf[0], 0); /* the last one sent */
	}
	/* a directory's data is no stream: the engine lists none */
	q.nstreams = 0;
	assert_int_equal(query(FileStreamInformation, &q, buf, 200, &n),
			 FSCC_OK);
	assert_int_equal(n, 0);
	assert_int_equal(query(FileStreamInformation, &q, buf, 31, &n),
			 FSCC_INFO_LENGTH_MISMATCH);
}

/* Every class: below its fixed part nothing is written; at it, it fits. */
static void test_query_too_small(void **state)
{
	static const struct {
		uint8_t cls;
		size_t min;
		enum fscc_status at_min;
	} t[] = {
		{FileBasicInformation, 40, FSCC_OK},
		{FileStandardInformation, 24, FSCC_OK},
		{FileInternalInformation, 8, FSCC_OK},
		{FileEaInformation, 4, FSCC_OK},
		{FileAccessInformation, 4, FSCC_OK},
		{FilePositionInformation, 8, FSCC_OK},
		{FileModeInformation, 4, FSCC_OK},
		{FileAlignmentInformation, 4, FSCC_OK},
		{FileAllInformation, 104, FSCC_BUFFER_OVERFLOW},
		{FileStreamInformation, 32, FSCC_BUFFER_OVERFLOW},
		{FileCompressionInformation, 16, FSCC_OK},
		{FileNetworkOpenInformation, 56, FSCC_OK},
		{FileAttributeTagInformation, 8, FSCC_OK},
		{FileNormalizedNameInformation, 8, FSCC_BUFFER_OVERFLOW},
		{FileIdInformation, 24, FSCC_OK},
	};
	struct fscc_file_info fi = make_fi();
	struct fscc_query q = make_q(&fi);
	uint8_t buf[256];
	size_t i, room, n;

	(void)state;
	q.streams = two_streams;
	q.nstreams = 1;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		assert_int_equal(fscc_query_file_min(t[i].cls), t[i].min);
		for (room = 0; room < t[i].min; room++) {
			assert_int_equal(query(t[i].cls, &q, buf, room, &n),
					 FSCC_INFO_LENGTH_MISMATCH);
			assert_int_equal(n, 0);
		}
		assert_int_equal(query(t[i].cls, &q, buf, t[i].min, &n),
				 t[i].at_min);
	}
	/* classes without an encoder here */
	assert_int_equal(query(FileAlternateNameInformation, &q, buf, 200, &n),
			 FSCC_INVALID_INFO_CLASS);
	assert_int_equal(query(FileFullEaInformation, &q, buf, 200, &n),
			 FSCC_INVALID_INFO_CLASS);
	assert_int_equal(query(0, &q, buf, 200, &n), FSCC_INVALID_INFO_CLASS);
	assert_int_equal(query(255, &q, buf, 200, &n), FSCC_INVALID_INFO_CLASS);
	assert_int_equal(fscc_query_file_min(255), 0);
	/* a cursor not at 0, and one already poisoned */
	{
		struct smb2_buf b;

		memset(buf, SENTINEL, sizeof(buf));
		sb_init(&b, buf, 49);
		sb_skip(&b, 10);
		assert_int_equal(fscc_query_file(FileBasicInformation, &b, &q),
				 FSCC_INFO_LENGTH_MISMATCH);
		assert_int_equal(b.pos, 10);
		sb_init(&b, buf, 60);
		sb_skip(&b, 10);
		assert_int_equal(fscc_query_file(FileBasicInformation, &b, &q),
				 FSCC_OK);
		assert_int_equal(b.pos, 50);
		sb_poison(&b);
		assert_int_equal(fscc_query_file(FileBasicInformation, &b, &q),
				 FSCC_INFO_LENGTH_MISMATCH);
	}
}

/* ---- QUERY_INFO, volume classes ---- */

static struct vfs_statfs make_statfs(void)
{
	struct vfs_statfs st = {
		.tbytes = 1000ull * 4096,
		.fbytes = 300ull * 4096 + 17,
		.abytes = 250ull * 4096,
		.bsize = 4096,
		.namemax = 255,
	};
	return st;
}

static enum fscc_status query_fs(uint8_t cls, const struct fscc_fs_query *q,
				 uint8_t *buf, size_t room, size_t *n)
{
	struct smb2_buf b;
	enum fscc_status st;

	memset(buf, SENTINEL, room + 16);
	sb_init(&b, buf, room);
	st = fscc_query_fs(cls, &b, q);
	*n = b.pos;
	assert_true(all_sentinel(buf + b.pos, room + 16 - b.pos));
	return st;
}

static void test_query_fs(void **state)
{
	struct vfs_statfs st = make_statfs();
	struct fscc_fs_caps caps = {0};
	struct fscc_fs_query q = {
		.st = &st,
		.volume_creation_time = 0x01D8000000000000ull,
		.volume_serial = 0xCAFEF00D,
		.label = "share",
		.label_len = 5,
		.fs_attributes = 0x00C700CF,
		.object_id = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
			      16},
	};
	uint8_t buf[256], exp[128];
	size_t n, room;

	(void)state;
	/* FileFsVolumeInformation: time, serial, label length, objects,
	 * reserved, label at 18 */
	memset(exp, 0, sizeof(exp));
	w64(exp, 0, 0x01D8000000000000ull);
	w32(exp, 8, 0xCAFEF00D);
	w32(exp, 12, 10);
	wstr(exp, 18, "share");
	assert_int_equal(query_fs(FileFsVolumeInformation, &q, buf, 200, &n),
			 FSCC_OK);
	assert_int_equal(n, 28);
	assert_memory_equal(buf, exp, 28);
	for (room = 0; room < 24; room++)
		assert_int_equal(
			query_fs(FileFsVolumeInformation, &q, buf, room, &n),
			FSCC_INFO_LENGTH_MISMATCH);
	/* MS-FSA copies raw bytes of the label: 6 of 10, even an odd 7 */
	assert_int_equal(query_fs(FileFsVolumeInformation, &q, buf, 24, &n),
			 FSCC_BUFFER_OVERFLOW);
	assert_int_equal(n, 24);
	assert_memory_equal(buf, exp, 24);
	assert_int_equal(query_fs(FileFsVolumeInformation, &q, buf, 25, &n),
			 FSCC_BUFFER_OVERFLOW);
	assert_int_equal(n, 25);
	assert_memory_equal(buf, exp, 25);
	assert_int_equal(query_fs(FileFsVolumeInformation, &q, buf, 28, &n),
			 FSCC_OK);
	/* an empty label: 18 bytes, though 24 must be offered */
	q.label_len = 0;
	assert_int_equal(query_fs(FileFsVolumeInformation, &q, buf, 24, &n),
			 FSCC_OK);
	assert_int_equal(n, 18);
	q.label_len = 5;

	/* FileFsSizeInformation */
	memset(exp, 0, sizeof(exp));
	w64(exp, 0, 1000);
	w64(exp, 8, 250);
	w32(exp, 16, 8);
	w32(exp, 20, 512);
	assert_int_equal(query_fs(FileFsSizeInformation, &q, buf, 200, &n),
			 FSCC_OK);
	assert_int_equal(n, 24);
	assert_memory_equal(buf, exp, 24);
	assert_int_equal(query_fs(FileFsSizeInformation, &q, buf, 23, &n),
			 FSCC_INFO_LENGTH_MISMATCH);
	/* FileFsFullSizeInformation: caller and actual available */
	memset(exp, 0, sizeof(exp));
	w64(exp, 0, 1000);
	w64(exp, 8, 250);
	w64(exp, 16, 300);
	w32(exp, 24, 8);
	w32(exp, 28, 512);
	assert_int_equal(query_fs(FileFsFullSizeInformation, &q, buf, 200, &n),
			 FSCC_OK);
	assert_int_equal(n, 32);
	assert_memory_equal(buf, exp, 32);
	assert_int_equal(query_fs(FileFsFullSizeInformation, &q, buf, 31, &n),
			 FSCC_INFO_LENGTH_MISMATCH);
	/* a block size that is not whole sectors: 4096-byte units */
	st.bsize = 0;
	assert_int_equal(query_fs(FileFsSizeInformation, &q, buf, 200, &n),
			 FSCC_OK);
	assert_memory_equal(buf, exp, 8);
	assert_int_equal(buf[16], 8);
	st.bsize = 1024;
	assert_int_equal(query_fs(FileFsSizeInformation, &q, buf, 200, &n),
			 FSCC_OK);
	assert_int_equal(buf[0] | buf[1] << 8, 4000);
	assert_int_equal(buf[16], 2);
	st = make_statfs();

	/* FileFsDeviceInformation */
	memset(exp, 0, sizeof(exp));
	w32(exp, 0, 7);
	w32(exp, 4, 0x20);
	assert_int_equal(query_fs(FileFsDeviceInformation, &q, buf, 8, &n),
			 FSCC_OK);
	assert_int_equal(n, 8);
	assert_memory_equal(buf, exp, 8);
	q.read_only = true;
	w32(exp, 4, 0x22);
	assert_int_equal(query_fs(FileFsDeviceInformation, &q, buf, 8, &n),
			 FSCC_OK);
	assert_memory_equal(buf, exp, 8);
	q.read_only = false;
	assert_int_equal(query_fs(FileFsDeviceInformation, &q, buf, 7, &n),
			 FSCC_INFO_LENGTH_MISMATCH);

	/* FileFsAttributeInformation: "NTFS" by default */
	memset(exp, 0, sizeof(exp));
	w32(exp, 0, 0x00C700CF);
	w32(exp, 4, 255);
	w32(exp, 8, 8);
	wstr(exp, 12, "NTFS");
	assert_int_equal(query_fs(FileFsAttributeInformation, &q, buf, 200, &n),
			 FSCC_OK);
	assert_int_equal(n, 20);
	assert_memory_equal(buf, exp, 20);
	for (room = 0; room < 12; room++)
		assert_int_equal(
			query_fs(FileFsAttributeInformation, &q, buf, room, &n),
			FSCC_INFO_LENGTH_MISMATCH);
	assert_int_equal(query_fs(FileFsAttributeInformation, &q, buf, 12, &n),
			 FSCC_BUFFER_OVERFLOW);
	assert_int_equal(n, 12);
	assert_memory_equal(buf, exp, 12);
	assert_int_equal(query_fs(FileFsAttributeInformation, &q, buf, 15, &n),
			 FSCC_BUFFER_OVERFLOW);
	assert_int_equal(n, 15);
	assert_memory_equal(buf, exp, 15);
	q.fs_name = "ext4";
	q.fs_name_len = 4;
	st.namemax = 0;
	assert_int_equal(query_fs(FileFsAttributeInformation, &q, buf, 200, &n),
			 FSCC_OK);
	w32(exp, 4, 255);
	wstr(exp, 12, "ext4");
	assert_memory_equal(buf, exp, 20);
	q.fs_name = NULL;
	st = make_statfs();

	/* FileFsObjectIdInformation */
	memset(exp, 0, sizeof(exp));
	memcpy(exp, q.object_id, 16);
	assert_int_equal(query_fs(FileFsObjectIdInformation, &q, buf, 64, &n),
			 FSCC_OK);
	assert_int_equal(n, 64);
	assert_memory_equal(buf, exp, 64);
	assert_int_equal(query_fs(FileFsObjectIdInformation, &q, buf, 63, &n),
			 FSCC_INFO_LENGTH_MISMATCH);

	/* FileFsSectorSizeInformation */
	memset(exp, 0, sizeof(exp));
	w32(exp, 0, 512);
	w32(exp, 4, 512);
	w32(exp, 8, 4096);
	w32(exp, 12, 512);
	w32(exp, 16, 3);
	assert_int_equal(query_fs(FileFsSectorSizeInformation, &q, buf, 28, &n),
			 FSCC_OK);
	assert_int_equal(n, 28);
	assert_memory_equal(buf, exp, 28);
	assert_int_equal(query_fs(FileFsSectorSizeInformation, &q, buf, 27, &n),
			 FSCC_INFO_LENGTH_MISMATCH);

	/* unknown classes; a bad label */
	assert_int_equal(query_fs(2, &q, buf, 200, &n),
			 FSCC_INVALID_INFO_CLASS);
	assert_int_equal(query_fs(6, &q, buf, 200, &n),
			 FSCC_INVALID_INFO_CLASS);
	assert_int_equal(query_fs(200, &q, buf, 200, &n),
			 FSCC_INVALID_INFO_CLASS);
	assert_int_equal(fscc_query_fs_min(FileFsVolumeInformation), 24);
	assert_int_equal(fscc_query_fs_min(200), 0);
	q.label = "\xc0\x80";
	q.label_len = 2;
	assert_int_equal(query_fs(FileFsVolumeInformation, &q, buf, 200, &n),
			 FSCC_OBJECT_NAME_INVALID);
	assert_int_equal(n, 0);

	/* FileSystemAttributes */
	assert_int_equal(
		fscc_fs_attributes(&caps),
		FILE_CASE_SENSITIVE_SEARCH | FILE_CASE_PRESERVED_NAMES |
			FILE_UNICODE_ON_DISK | FILE_PERSISTENT_ACLS |
			FILE_SUPPORTS_SPARSE_FILES | FILE_SUPPORTS_HARD_LINKS);
	caps.case_insensitive = true;
	caps.eas = true;
	caps.read_only = true;
	assert_int_equal(fscc_fs_attributes(&caps),
			 FILE_CASE_PRESERVED_NAMES | FILE_UNICODE_ON_DISK |
				 FILE_PERSISTENT_ACLS |
				 FILE_SUPPORTS_SPARSE_FILES |
				 FILE_SUPPORTS_HARD_LINKS |
				 FILE_SUPPORTS_EXTENDED_ATTRIBUTES |
				 FILE_READ_ONLY_VOLUME);
	caps = (struct fscc_fs_caps){.streams = true,
				     .reparse = true,
				     .posix_unlink = true,
				     .clone = true};
	assert_int_equal(fscc_fs_attributes(&caps) &
				 (FILE_NAMED_STREAMS |
				  FILE_SUPPORTS_REPARSE_POINTS |
				  FILE_SUPPORTS_POSIX_UNLINK_RENAME |
				  FILE_SUPPORTS_BLOCK_REFCOUNTING),
			 FILE_NAMED_STREAMS | FILE_SUPPORTS_REPARSE_POINTS |
				 FILE_SUPPORTS_POSIX_UNLINK_RENAME |
				 FILE_SUPPORTS_BLOCK_REFCOUNTING);
}

/* ---- QUERY_DIRECTORY ---- */

static void test_dir_golden(void **state)
{
	static const struct {
		uint8_t cls;
		const uint8_t *vec;
		size_t len;
		size_t fixed;
	} t[] = {
		{FileDirectoryInformation, vec_dir_directory,
		 sizeof(vec_dir_directory), 64},
		{FileFullDirectoryInformation, vec_dir_full,
		 sizeof(vec_dir_full), 68},
		{FileBothDirectoryInformation, vec_dir_both,
		 sizeof(vec_dir_both), 94},
		{FileNamesInformation, vec_dir_names, sizeof(vec_dir_names),
		 12},
		{FileIdBothDirectoryInformation, vec_dir_id_both,
		 sizeof(vec_dir_id_both), 104},
		{FileIdFullDirectoryInformation, vec_dir_id_full,
		 sizeof(vec_dir_id_full), 80},
	};
	struct fscc_file_info fi = make_fi();
	uint8_t buf[512], exp[128];
	struct fscc_list l;
	struct smb2_buf b;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		assert_int_equal(fscc_dir_entry_min(t[i].cls), t[i].fixed);
		assert_int_equal(t[i].len, t[i].fixed + 18);
		memset(buf, SENTINEL, sizeof(buf));
		sb_init(&b, buf, sizeof(buf));
		fscc_list_init(&l, &b, 8);
		assert_int_equal(
			fscc_dir_append(&l, t[i].cls, "hello.txt", 9, &fi),
			FSCC_OK);
		assert_int_equal(b.pos, t[i].len);
		assert_memory_equal(buf, t[i].vec, t[i].len);
		assert_true(all_sentinel(buf + b.pos, sizeof(buf) - b.pos));
	}
	/* FileIdExtdDirectoryInformation, by hand (impacket has none):
	 * head to 64, EaSize 64, ReparsePointTag 68, FileId[16] 72, name 88 */
	memset(exp, 0, sizeof(exp));
	memcpy(exp, vec_dir_directory, 64);
	fi.ea_size = 0x44;
	w32(exp, 64, 0x44);
	w32(exp, 68, 0);
	w64(exp, 72, fi.file_id);
	wstr(exp, 88, "hello.txt");
	memset(buf, SENTINEL, sizeof(buf));
	sb_init(&b, buf, sizeof(buf));
	fscc_list_init(&l, &b, 8);
	assert_int_equal(fscc_dir_append(&l, FileIdExtdDirectoryInformation,
					 "hello.txt", 9, &fi),
			 FSCC_OK);
	assert_int_equal(b.pos, 106);
	assert_memory_equal(buf, exp, 106);
	assert_int_equal(fscc_dir_entry_min(FileIdExtdDirectoryInformation),
			 88);
	/* a reparse point: the tag in EaSize of the classes that have no
	 * ReparsePointTag, in ReparsePointTag of FileIdExtd */
	fi.attributes |= FILE_ATTRIBUTE_REPARSE_POINT;
	fi.reparse_tag = IO_REPARSE_TAG_SYMLINK;
	sb_init(&b, buf, sizeof(buf));
	fscc_list_init(&l, &b, 8);
	assert_int_equal(fscc_dir_append(&l, FileIdFullDirectoryInformation,
					 "hello.txt", 9, &fi),
			 FSCC_OK);
	assert_memory_equal(buf + 64, "\x0c\x00\x00\xa0", 4);
	sb_init(&b, buf, sizeof(buf));
	fscc_list_init(&l, &b, 8);
	assert_int_equal(fscc_dir_append(&l, FileIdExtdDirectoryInformation,
					 "hello.txt", 9, &fi),
			 FSCC_OK);
	assert_memory_equal(buf + 64, "\x44\x00\x00\x00\x0c\x00\x00\xa0", 8);
	/* unknown class */
	assert_int_equal(fscc_dir_append(&l, FileBasicInformation, "a", 1, &fi),
			 FSCC_INVALID_INFO_CLASS);
	assert_int_equal(fscc_dir_append(&l, 250, "a", 1, &fi),
			 FSCC_INVALID_INFO_CLASS);
	assert_int_equal(fscc_dir_entry_min(250), 0);
}

static void test_dir_chain(void **state)
{
	struct fscc_file_info fi = make_fi();
	uint8_t buf[512];
	struct fscc_list l;
	struct smb2_buf b;
	size_t room, pos;

	(void)state;
	/* three FileIdFull entries: 80 + 2, 80 + 10, 80 + 6 bytes; the
	 * second and third start at multiples of 8 */
	memset(buf, SENTINEL, sizeof(buf));
	sb_init(&b, buf, sizeof(buf));
	fscc_list_init(&l, &b, 8);
	assert_int_equal(fscc_dir_append(&l, FileIdFullDirectoryInformation,
					 ".", 1, &fi),
			 FSCC_OK);
	assert_int_equal(b.pos, 82);
	assert_int_equal(fscc_dir_append(&l, FileIdFullDirectoryInformation,
					 "hello", 5, &fi),
			 FSCC_OK);
	assert_int_equal(b.pos, 88 + 90);
	assert_int_equal(fscc_dir_append(&l, FileIdFullDirectoryInformation,
					 "abc", 3, &fi),
			 FSCC_OK);
	assert_int_equal(b.pos, 184 + 86);
	assert_int_equal(l.count, 3);
	assert_memory_equal(buf, "\x58\0\0\0", 4);	  /* 88 */
	assert_memory_equal(buf + 82, "\0\0\0\0\0\0", 6); /* zero padding */
	assert_memory_equal(buf + 88, "\x60\0\0\0", 4);	  /* 96 */
	assert_memory_equal(buf + 178, "\0\0\0\0\0\0", 6);
	assert_memory_equal(buf + 184, "\0\0\0\0", 4); /* the last: 0 */
	assert_memory_equal(buf + 184 + 80, "a\0b\0c\0", 6);
	assert_true(all_sentinel(buf + b.pos, sizeof(buf) - b.pos));

	/* the next entry does not fit at every room below its need:
	 * nothing written, the list as it was */
	for (room = 0; room < 88 + 90; room++) {
		memset(buf, SENTINEL, sizeof(buf));
		sb_init(&b, buf, room);
		fscc_list_init(&l, &b, 8);
		if (room < 82) {
			assert_int_equal(
				fscc_dir_append(&l,
						FileIdFullDirectoryInformation,
						".", 1, &fi),
				FSCC_NO_SPACE);
			assert_int_equal(b.pos, 0);
			assert_int_equal(l.count, 0);
			assert_true(all_sentinel(buf, sizeof(buf)));
			continue;
		}
		assert_int_equal(fscc_dir_append(&l,
						 FileIdFullDirectoryInformation,
						 ".", 1, &fi),
				 FSCC_OK);
		assert_int_equal(fscc_dir_append(&l,
						 FileIdFullDirectoryInformation,
						 "hello", 5, &fi),
				 FSCC_NO_SPACE);
		assert_int_equal(b.pos, 82);
		assert_int_equal(l.count, 1);
		assert_memory_equal(buf, "\0\0\0\0", 4); /* not linked */
		assert_true(all_sentinel(buf + 82, sizeof(buf) - 82));
	}
	/* exactly enough */
	memset(buf, SENTINEL, sizeof(buf));
	sb_init(&b, buf, 88 + 90);
	fscc_list_init(&l, &b, 8);
	assert_int_equal(fscc_dir_append(&l, FileIdFullDirectoryInformation,
					 ".", 1, &fi),
			 FSCC_OK);
	assert_int_equal(fscc_dir_append(&l, FileIdFullDirectoryInformation,
					 "hello", 5, &fi),
			 FSCC_OK);
	assert_int_equal(b.pos, 178);
	/* a list that starts mid-buffer aligns relative to its start */
	memset(buf, SENTINEL, sizeof(buf));
	sb_init(&b, buf, sizeof(buf));
	sb_skip(&b, 3);
	fscc_list_init(&l, &b, 8);
	assert_int_equal(fscc_dir_append(&l, FileNamesInformation, "a", 1, &fi),
			 FSCC_OK);
	pos = b.pos;
	assert_int_equal(pos, 3 + 14);
	assert_int_equal(fscc_dir_append(&l, FileNamesInformation, "b", 1, &fi),
			 FSCC_OK);
	assert_int_equal(buf[3], 16);
	assert_int_equal(b.pos, 3 + 16 + 14);
}

static void test_dir_bad_name(void **state)
{
	struct fscc_file_info fi = make_fi();
	uint8_t buf[256];
	struct fscc_list l;
	struct smb2_buf b;

	(void)state;
	memset(buf, SENTINEL, sizeof(buf));
	sb_init(&b, buf, sizeof(buf));
	fscc_list_init(&l, &b, 8);
	assert_int_equal(fscc_dir_append(&l, FileDirectoryInformation,
					 "a\xff"
					 "b",
					 3, &fi),
			 FSCC_OBJECT_NAME_INVALID);
	assert_int_equal(
		fscc_dir_append(&l, FileDirectoryInformation, "a\0b", 3, &fi),
		FSCC_OBJECT_NAME_INVALID);
	assert_int_equal(
		fscc_dir_append(&l, FileDirectoryInformation, "", 0, &fi),
		FSCC_OBJECT_NAME_INVALID);
	assert_int_equal(fscc_dir_append(&l, FileDirectoryInformation,
					 "\xed\xa0\x80", 3, &fi),
			 FSCC_OBJECT_NAME_INVALID); /* a surrogate in UTF-8 */
	assert_int_equal(b.pos, 0);
	assert_true(all_sentinel(buf, sizeof(buf)));
	/* a non-ASCII name is converted */
	assert_int_equal(fscc_dir_append(&l, FileNamesInformation,
					 "\xc3\xa9\xf0\x9f\x98\x80", 6, &fi),
			 FSCC_OK);
	assert_int_equal(b.pos, 12 + 6);
	assert_memory_equal(buf + 8, "\x06\0\0\0\xe9\x00\x3d\xd8\x00\xde", 10);
}

/* ---- SET_INFO ---- */

static void test_set_basic(void **state)
{
	struct fscc_set_basic sb;
	uint8_t in[48];
	struct smb2_buf b;

	(void)state;
	memset(in, 0, sizeof(in));
	w64(in, 0, 0);		     /* keep */
	w64(in, 8, UINT64_MAX);	     /* -1 */
	w64(in, 16, UINT64_MAX - 1); /* -2 */
	w64(in, 24, FSCC_FILETIME_UNIX_EPOCH + 10000000);
	w32(in, 32, FILE_ATTRIBUTE_READONLY | FILE_ATTRIBUTE_HIDDEN);
	w32(in, 36, 0xdeadbeef); /* Reserved: ignored */
	sb_init(&b, in, 40);
	assert_int_equal(fscc_dec_FILE_BASIC_INFORMATION(&b, false, &sb),
			 FSCC_OK);
	assert_int_equal(b.pos, 0); /* the caller's cursor is not moved */
	assert_int_equal(sb.creation.op, FSCC_TIME_KEEP);
	assert_int_equal(sb.last_access.op, FSCC_TIME_FREEZE);
	assert_int_equal(sb.last_write.op, FSCC_TIME_THAW);
	assert_int_equal(sb.change.op, FSCC_TIME_SET);
	assert_int_equal(sb.change.ts.tv_sec, 1);
	assert_int_equal(sb.attributes,
			 FILE_ATTRIBUTE_READONLY | FILE_ATTRIBUTE_HIDDEN);
	/* longer is fine; 36 (no Reserved) and shorter are not */
	sb_init(&b, in, 48);
	assert_int_equal(fscc_dec_FILE_BASIC_INFORMATION(&b, false, &sb),
			 FSCC_OK);
	for (size_t n = 0; n < 40; n++) {
		sb_init(&b, in, n);
		assert_int_equal(
			fscc_dec_FILE_BASIC_INFORMATION(&b, false, &sb),
			FSCC_INFO_LENGTH_MISMATCH);
	}
	/* times below -2 */
	w64(in, 16, UINT64_MAX - 2);
	sb_init(&b, in, 40);
	assert_int_equal(fscc_dec_FILE_BASIC_INFORMATION(&b, false, &sb),
			 FSCC_INVALID_PARAMETER);
	w64(in, 16, 1ull << 63);
	assert_int_equal(fscc_dec_FILE_BASIC_INFORMATION(&b, false, &sb),
			 FSCC_INVALID_PARAMETER);
	w64(in, 16, 0);
	/* DIRECTORY on a file, TEMPORARY on a directory */
	w32(in, 32, FILE_ATTRIBUTE_DIRECTORY);
	assert_int_equal(fscc_dec_FILE_BASIC_INFORMATION(&b, false, &sb),
			 FSCC_INVALID_PARAMETER);
	assert_int_equal(fscc_dec_FILE_BASIC_INFORMATION(&b, true, &sb),
			 FSCC_OK);
	w32(in, 32, FILE_ATTRIBUTE_TEMPORARY);
	assert_int_equal(fscc_dec_FILE_BASIC_INFORMATION(&b, true, &sb),
			 FSCC_INVALID_PARAMETER);
	assert_int_equal(fscc_dec_FILE_BASIC_INFORMATION(&b, false, &sb),
			 FSCC_OK);
	/* the cursor's position is where the buffer starts */
	{
		uint8_t in2[44];

		memset(in2, 0xee, 4);
		memcpy(in2 + 4, in, 40);
		sb_init(&b, in2, 44);
		sb_skip(&b, 4);
		assert_int_equal(
			fscc_dec_FILE_BASIC_INFORMATION(&b, false, &sb),
			FSCC_OK);
		assert_int_equal(sb.attributes, FILE_ATTRIBUTE_TEMPORARY);
	}
}

static void test_set_rename(void **state)
{
	struct fscc_set_link sl;
	uint8_t in[128];
	char name[64];
	struct smb2_buf b;
	size_t n;

	(void)state;
	/* impacket's FILE_RENAME_INFORMATION_TYPE_2 */
	memcpy(in, vec_rename, sizeof(vec_rename));
	sb_init(&b, in, sizeof(vec_rename));
	assert_int_equal(fscc_dec_FILE_RENAME_INFORMATION_TYPE_2(
				 &b, name, sizeof(name), &sl),
			 FSCC_OK);
	assert_true(sl.replace_if_exists);
	assert_ptr_equal(sl.name, name);
	assert_int_equal(sl.name_len, 11);
	assert_memory_equal(name, "dir\\new.txt", 11);
	assert_int_equal(fscc_dec_FILE_LINK_INFORMATION_TYPE_2(
				 &b, name, sizeof(name), &sl),
			 FSCC_OK);
	assert_int_equal(sl.name_len, 11);
	/* trailing padding is ignored */
	memset(in + sizeof(vec_rename), 0, 6);
	sb_init(&b, in, sizeof(vec_rename) + 6);
	assert_int_equal(fscc_dec_FILE_RENAME_INFORMATION_TYPE_2(
				 &b, name, sizeof(name), &sl),
			 FSCC_OK);
	assert_int_equal(sl.name_len, 11);
	/* any ReplaceIfExists byte other than 0 is TRUE; 0 is FALSE */
	in[0] = 0;
	assert_int_equal(fscc_dec_FILE_RENAME_INFORMATION_TYPE_2(
				 &b, name, sizeof(name), &sl),
			 FSCC_OK);
	assert_false(sl.replace_if_exists);
	in[0] = 0x80;
	assert_int_equal(fscc_dec_FILE_RENAME_INFORMATION_TYPE_2(
				 &b, name, sizeof(name), &sl),
			 FSCC_OK);
	assert_true(sl.replace_if_exists);
	/* short of the fixed fields */
	for (n = 0; n < 20; n++) {
		sb_init(&b, in, n);
		assert_int_equal(fscc_dec_FILE_RENAME_INFORMATION_TYPE_2(
					 &b, name, sizeof(name), &sl),
				 FSCC_INFO_LENGTH_MISMATCH);
	}
	/* FileNameLength: 0, odd, one past, far past, 0xffffffff */
	sb_init(&b, in, sizeof(vec_rename));
	w32(in, 16, 0);
	assert_int_equal(fscc_dec_FILE_RENAME_INFORMATION_TYPE_2(
				 &b, name, sizeof(name), &sl),
			 FSCC_INVALID_PARAMETER);
	w32(in, 16, 21);
	assert_int_equal(fscc_dec_FILE_RENAME_INFORMATION_TYPE_2(
				 &b, name, sizeof(name), &sl),
			 FSCC_INVALID_PARAMETER);
	w32(in, 16, 24);
	assert_int_equal(fscc_dec_FILE_RENAME_INFORMATION_TYPE_2(
				 &b, name, sizeof(name), &sl),
			 FSCC_INVALID_PARAMETER);
	w32(in, 16, 0x7ffffffe);
	assert_int_equal(fscc_dec_FILE_RENAME_INFORMATION_TYPE_2(
				 &b, name, sizeof(name), &sl),
			 FSCC_INVALID_PARAMETER);
	w32(in, 16, 0xffffffff);
	assert_int_equal(fscc_dec_FILE_RENAME_INFORMATION_TYPE_2(
				 &b, name, sizeof(name), &sl),
			 FSCC_INVALID_PARAMETER);
	/* a shorter length than sent is a shorter name */
	w32(in, 16, 6);
	assert_int_equal(fscc_dec_FILE_RENAME_INFORMATION_TYPE_2(
				 &b, name, sizeof(name), &sl),
			 FSCC_OK);
	assert_int_equal(sl.name_len, 3);
	w32(in, 16, 22);
	/* RootDirectory must be 0 */
	w64(in, 8, 1);
	assert_int_equal(fscc_dec_FILE_RENAME_INFORMATION_TYPE_2(
				 &b, name, sizeof(name), &sl),
			 FSCC_INVALID_PARAMETER);
	w64(in, 8, 0);
	/* ill-formed UTF-16: a lone low surrogate, a NUL */
	w16(in, 20, 0xdc00);
	assert_int_equal(fscc_dec_FILE_RENAME_INFORMATION_TYPE_2(
				 &b, name, sizeof(name), &sl),
			 FSCC_OBJECT_NAME_INVALID);
	w16(in, 20, 0);
	assert_int_equal(fscc_dec_FILE_LINK_INFORMATION_TYPE_2(
				 &b, name, sizeof(name), &sl),
			 FSCC_OBJECT_NAME_INVALID);
	w16(in, 20, 'd');
	/* the caller's buffer too small */
	assert_int_equal(
		fscc_dec_FILE_RENAME_INFORMATION_TYPE_2(&b, name, 10, &sl),
		FSCC_NAME_TOO_LONG);
	assert_int_equal(
		fscc_dec_FILE_RENAME_INFORMATION_TYPE_2(&b, name, 11, &sl),
		FSCC_OK);
}

static void test_set_small_classes(void **state)
{
	uint8_t in[16];
	struct smb2_buf b;
	uint64_t v64;
	uint32_t v32;
	bool del;
	size_t n;

	(void)state;
	memset(in, 0, sizeof(in));
	/* FileDispositionInformation */
	sb_init(&b, in, 0);
	assert_int_equal(fscc_dec_FILE_DISPOSITION_INFORMATION(&b, &del),
			 FSCC_INFO_LENGTH_MISMATCH);
	in[0] = 1;
	sb_init(&b, in, 1);
	assert_int_equal(fscc_dec_FILE_DISPOSITION_INFORMATION(&b, &del),
			 FSCC_OK);
	assert_true(del);
	in[0] = 0;
	assert_int_equal(fscc_dec_FILE_DISPOSITION_INFORMATION(&b, &del),
			 FSCC_OK);
	assert_false(del);
	in[0] = 0xff;
	assert_int_equal(fscc_dec_FILE_DISPOSITION_INFORMATION(&b, &del),
			 FSCC_OK);
	assert_true(del);

	/* FileDispositionInformationEx */
	for (n = 0; n < 4; n++) {
		sb_init(&b, in, n);
		assert_int_equal(
			fscc_dec_FILE_DISPOSITION_INFORMATION_EX(&b, &v32),
			FSCC_INFO_LENGTH_MISMATCH);
	}
	sb_init(&b, in, 4);
	w32(in, 0,
	    FILE_DISPOSITION_DELETE | FILE_DISPOSITION_POSIX_SEMANTICS |
		    FILE_DISPOSITION_IGNORE_READONLY_ATTRIBUTE);
	assert_int_equal(fscc_dec_FILE_DISPOSITION_INFORMATION_EX(&b, &v32),
			 FSCC_OK);
	assert_int_equal(v32, 0x13);
	w32(in, 0, 0);
	assert_int_equal(fscc_dec_FILE_DISPOSITION_INFORMATION_EX(&b, &v32),
			 FSCC_OK);
	w32(in, 0, 0x20);
	assert_int_equal(fscc_dec_FILE_DISPOSITION_INFORMATION_EX(&b, &v32),
			 FSCC_INVALID_PARAMETER);
	w32(in, 0, 0xffffffff);
	assert_int_equal(fscc_dec_FILE_DISPOSITION_INFORMATION_EX(&b, &v32),
			 FSCC_INVALID_PARAMETER);

	/* FilePosition, FileAllocation, FileEndOfFile: 8 bytes, >= 0 */
	for (n = 0; n < 8; n++) {
		sb_init(&b, in, n);
		assert_int_equal(fscc_dec_FILE_POSITION_INFORMATION(&b, &v64),
				 FSCC_INFO_LENGTH_MISMATCH);
		assert_int_equal(fscc_dec_FILE_ALLOCATION_INFORMATION(&b, &v64),
				 FSCC_INFO_LENGTH_MISMATCH);
		assert_int_equal(
			fscc_dec_FILE_END_OF_FILE_INFORMATION(&b, &v64),
			FSCC_INFO_LENGTH_MISMATCH);
	}
	sb_init(&b, in, 8);
	w64(in, 0, INT64_MAX);
	assert_int_equal(fscc_dec_FILE_POSITION_INFORMATION(&b, &v64), FSCC_OK);
	assert_int_equal(v64, INT64_MAX);
	assert_int_equal(fscc_dec_FILE_ALLOCATION_INFORMATION(&b, &v64),
			 FSCC_OK);
	assert_int_equal(fscc_dec_FILE_END_OF_FILE_INFORMATION(&b, &v64),
			 FSCC_OK);
	w64(in, 0, (uint64_t)INT64_MAX + 1);
	assert_int_equal(fscc_dec_FILE_POSITION_INFORMATION(&b, &v64),
			 FSCC_INVALID_PARAMETER);
	assert_int_equal(fscc_dec_FILE_ALLOCATION_INFORMATION(&b, &v64),
			 FSCC_INVALID_PARAMETER);
	assert_int_equal(fscc_dec_FILE_END_OF_FILE_INFORMATION(&b, &v64),
			 FSCC_INVALID_PARAMETER);
	w64(in, 0, 12345);
	assert_int_equal(fscc_dec_FILE_END_OF_FILE_INFORMATION(&b, &v64),
			 FSCC_OK);
	assert_int_equal(v64, 12345);

	/* FileModeInformation (MS-FSA 2.1.5.15.7) */
	sb_init(&b, in, 3);
	assert_int_equal(fscc_dec_FILE_MODE_INFORMATION(&b, &v32),
			 FSCC_INFO_LENGTH_MISMATCH);
	sb_init(&b, in, 4);
	w32(in, 0,
	    FILE_WRITE_THROUGH | FILE_SEQUENTIAL_ONLY |
		    FILE_SYNCHRONOUS_IO_NONALERT);
	assert_int_equal(fscc_dec_FILE_MODE_INFORMATION(&b, &v32), FSCC_OK);
	assert_int_equal(v32, 0x26);
	w32(in, 0, 0);
	assert_int_equal(fscc_dec_FILE_MODE_INFORMATION(&b, &v32), FSCC_OK);
	w32(in, 0, FILE_SYNCHRONOUS_IO_ALERT | FILE_SYNCHRONOUS_IO_NONALERT);
	assert_int_equal(fscc_dec_FILE_MODE_INFORMATION(&b, &v32),
			 FSCC_INVALID_PARAMETER);
	w32(in, 0, FILE_NO_INTERMEDIATE_BUFFERING);
	assert_int_equal(fscc_dec_FILE_MODE_INFORMATION(&b, &v32),
			 FSCC_INVALID_PARAMETER);
	w32(in, 0, FILE_DELETE_ON_CLOSE);
	assert_int_equal(fscc_dec_FILE_MODE_INFORMATION(&b, &v32),
			 FSCC_INVALID_PARAMETER);
	w32(in, 0, 0x1);
	assert_int_equal(fscc_dec_FILE_MODE_INFORMATION(&b, &v32),
			 FSCC_INVALID_PARAMETER);
}

/* ---- EA lists ---- */

/* Walk the whole list in @p (@n bytes): the status, entries in *@count. */
static enum fscc_status ea_walk(const uint8_t *p, size_t n, size_t *count)
{
	uint8_t copy[512];
	struct smb2_buf b;

	assert_true(n <= sizeof(copy));
	memcpy(copy, p, n);
	sb_init(&b, copy, n);
	return fscc_dec_FILE_FULL_EA_INFORMATION(&b, count);
}

static void test_ea_list(void **state)
{
	struct fscc_ea_iter it;
	struct fscc_ea ea[2];
	uint8_t buf[128];
	struct fscc_list l;
	struct smb2_buf b, in;
	size_t count, n;
	bool end;

	(void)state;
	/* impacket's two-entry list */
	assert_int_equal(ea_walk(vec_ea_list, sizeof(vec_ea_list), &count),
			 FSCC_OK);
	assert_int_equal(count, 2);
	memcpy(buf, vec_ea_list, sizeof(vec_ea_list));
	sb_init(&in, buf, sizeof(vec_ea_list));
	fscc_ea_iter_init(&it, &in);
	assert_int_equal(fscc_ea_next(&it, &ea[0], &end), FSCC_OK);
	assert_false(end);
	assert_int_equal(ea[0].flags, 0);
	assert_int_equal(ea[0].name_len, 8);
	assert_memory_equal(ea[0].name, "user.one", 8);
	assert_int_equal(ea[0].value_len, 3);
	assert_memory_equal(ea[0].value, "abc", 3);
	assert_int_equal(fscc_ea_next(&it, &ea[1], &end), FSCC_OK);
	assert_false(end);
	assert_int_equal(ea[1].flags, FILE_NEED_EA);
	assert_int_equal(ea[1].name_len, 1);
	assert_int_equal(ea[1].value_len, 0); /* delete */
	assert_int_equal(fscc_ea_next(&it, &ea[1], &end), FSCC_OK);
	assert_true(end);
	assert_int_equal(fscc_ea_next(&it, &ea[1], &end), FSCC_OK);
	assert_true(end);
	/* re-encoded, byte for byte */
	{
		uint8_t out[64];

		memset(out, SENTINEL, sizeof(out));
		sb_init(&b, out, sizeof(out));
		fscc_list_init(&l, &b, 4);
		assert_int_equal(fscc_ea_append(&l, &ea[0]), FSCC_OK);
		assert_int_equal(fscc_ea_append(&l, &ea[1]), FSCC_OK);
		assert_int_equal(b.pos, sizeof(vec_ea_list));
		assert_memory_equal(out, vec_ea_list, sizeof(vec_ea_list));
		/* no room: nothing written */
		for (n = 0; n < 20; n++) {
			memset(out, SENTINEL, sizeof(out));
			sb_init(&b, out, n);
			fscc_list_init(&l, &b, 4);
			assert_int_equal(fscc_ea_append(&l, &ea[0]),
					 FSCC_NO_SPACE);
			assert_true(all_sentinel(out, sizeof(out)));
		}
	}
	/* bytes after the last entry are ignored */
	memcpy(buf, vec_ea_list, sizeof(vec_ea_list));
	memset(buf + sizeof(vec_ea_list), 0x55, 10);
	assert_int_equal(ea_walk(buf, sizeof(vec_ea_list) + 10, &count),
			 FSCC_OK);
	assert_int_equal(count, 2);
	/* a NextEntryOffset larger than needed (aligned) is allowed */
	memcpy(buf, vec_ea_list, 20);
	w32(buf, 0, 24);
	memset(buf + 20, 0, 4);
	memcpy(buf + 24, vec_ea_list + 20, 10);
	assert_int_equal(ea_walk(buf, 34, &count), FSCC_OK);
	assert_int_equal(count, 2);
	/* one entry alone, unpadded */
	assert_int_equal(ea_walk(vec_ea_list + 20, 10, &count), FSCC_OK);
	assert_int_equal(count, 1);
}

static void test_ea_list_malformed(void **state)
{
	uint8_t buf[128] = {0};
	size_t count, n;

	(void)state;
	/* empty */
	assert_int_equal(ea_walk(buf, 0, &count), FSCC_INFO_LENGTH_MISMATCH);
	/* cut at every byte: never accepted */
	for (n = 1; n < sizeof(vec_ea_list); n++)
		assert_int_equal(ea_walk(vec_ea_list, n, &count),
				 FSCC_EA_LIST_INCONSISTENT);
#define EA_BAD(off, width, val, want)                                          \
	do {                                                                   \
		memcpy(buf, vec_ea_list, sizeof(vec_ea_list));                 \
		if ((width) == 1)                                              \
			buf[off] = (uint8_t)(val);                             \
		else if ((width) == 2)                                         \
			w16(buf, off, (uint16_t)(val));                        \
		else                                                           \
			w32(buf, off, (uint32_t)(val));                        \
		assert_int_equal(ea_walk(buf, sizeof(vec_ea_list), &count),    \
				 want);                                        \
	} while (0)
	/* NextEntryOffset: below the entry (incl. a loop back to itself is
	 * impossible: 0 ends), unaligned, at/past the end, 0xffffffff */
	EA_BAD(0, 4, 16, FSCC_EA_LIST_INCONSISTENT);
	EA_BAD(0, 4, 4, FSCC_EA_LIST_INCONSISTENT);
	EA_BAD(0, 4, 21, FSCC_EA_LIST_INCONSISTENT);
	EA_BAD(0, 4, 22, FSCC_EA_LIST_INCONSISTENT);
	EA_BAD(0, 4, 28, FSCC_EA_LIST_INCONSISTENT);
	EA_BAD(0, 4, 30, FSCC_EA_LIST_INCONSISTENT);
	EA_BAD(0, 4, 32, FSCC_EA_LIST_INCONSISTENT);
	EA_BAD(0, 4, 0xfffffffc, FSCC_EA_LIST_INCONSISTENT);
	EA_BAD(0, 4, 0xffffffff, FSCC_EA_LIST_INCONSISTENT);
	/* the second entry pointing anywhere: it is the last one */
	EA_BAD(20, 4, 4, FSCC_EA_LIST_INCONSISTENT);
	EA_BAD(20, 4, 12, FSCC_EA_LIST_INCONSISTENT);
	/* EaNameLength / EaValueLength past the entry or the buffer */
	EA_BAD(5, 1, 9, FSCC_EA_LIST_INCONSISTENT); /* NUL not where due */
	EA_BAD(5, 1, 255, FSCC_EA_LIST_INCONSISTENT);
	EA_BAD(6, 2, 4, FSCC_EA_LIST_INCONSISTENT); /* value into padding:
						       next < size */
	EA_BAD(6, 2, 0xffff, FSCC_EA_LIST_INCONSISTENT);
	EA_BAD(26, 2, 1, FSCC_EA_LIST_INCONSISTENT); /* second value past */
	EA_BAD(25, 1, 2, FSCC_EA_LIST_INCONSISTENT);
	/* the NUL after the name */
	EA_BAD(16, 1, 'x', FSCC_EA_LIST_INCONSISTENT);
	/* names: forbidden characters, empty */
	EA_BAD(9, 1, '*', FSCC_INVALID_EA_NAME);
	EA_BAD(9, 1, '\\', FSCC_INVALID_EA_NAME);
	EA_BAD(9, 1, 0x1f, FSCC_INVALID_EA_NAME);
	EA_BAD(28, 1, '|', FSCC_INVALID_EA_NAME);
	EA_BAD(28, 1, '"', FSCC_INVALID_EA_NAME);
	/* flags */
	EA_BAD(4, 1, 0x01, FSCC_INVALID_PARAMETER);
	EA_BAD(24, 1, 0x81, FSCC_INVALID_PARAMETER);
#undef EA_BAD
	/* an empty name: an entry of 8 + 0 + 1 */
	memset(buf, 0, 12);
	assert_int_equal(ea_walk(buf, 9, &count), FSCC_INVALID_EA_NAME);
	/* a 255-byte name is too long (MS-FSCC: under 255) */
	memset(buf, 0, sizeof(buf));
	{
		uint8_t big[8 + 255 + 1];

		memset(big, 'a', sizeof(big));
		w32(big, 0, 0);
		big[4] = 0;
		big[5] = 255;
		w16(big, 6, 0);
		big[8 + 255] = 0;
		{
			struct smb2_buf b;

			sb_init(&b, big, sizeof(big));
			assert_int_equal(
				fscc_dec_FILE_FULL_EA_INFORMATION(&b, &count),
				FSCC_INVALID_EA_NAME);
			big[5] = 254;
			big[8 + 254] = 0;
			sb_init(&b, big, 8 + 254 + 1);
			assert_int_equal(
				fscc_dec_FILE_FULL_EA_INFORMATION(&b, &count),
				FSCC_OK);
		}
	}
	/* a poisoned cursor */
	{
		struct smb2_buf b;

		sb_init(&b, buf, 10);
		sb_poison(&b);
		assert_int_equal(fscc_dec_FILE_FULL_EA_INFORMATION(&b, &count),
				 FSCC_EA_LIST_INCONSISTENT);
	}
}

static void test_ea_get_list(void **state)
{
	/* FILE_GET_EA_INFORMATION: "ab" (5 + 2 + 1 = 8), "c" */
	static const uint8_t get[] = {
		0x08, 0, 0, 0, 2, 'a', 'b', 0, 0x00, 0, 0, 0, 1, 'c', 0,
	};
	struct fscc_ea_iter it;
	struct fscc_ea ea;
	uint8_t buf[32];
	struct smb2_buf in;
	size_t n;
	bool end;

	(void)state;
	memcpy(buf, get, sizeof(get));
	sb_init(&in, buf, sizeof(get));
	fscc_ea_iter_init_get(&it, &in);
	assert_int_equal(fscc_ea_next(&it, &ea, &end), FSCC_OK);
	assert_int_equal(ea.name_len, 2);
	assert_memory_equal(ea.name, "ab", 2);
	assert_int_equal(ea.value_len, 0);
	assert_int_equal(fscc_ea_next(&it, &ea, &end), FSCC_OK);
	assert_memory_equal(ea.name, "c", 1);
	assert_int_equal(fscc_ea_next(&it, &ea, &end), FSCC_OK);
	assert_true(end);
	/* cut anywhere: an error, which then stays */
	for (n = 1; n < sizeof(get); n++) {
		sb_init(&in, buf, n);
		fscc_ea_iter_init_get(&it, &in);
		end = false;
		while (fscc_ea_next(&it, &ea, &end) == FSCC_OK && !end)
			;
		assert_false(end);
		assert_int_equal(fscc_ea_next(&it, &ea, &end),
				 FSCC_EA_LIST_INCONSISTENT);
	}
	/* unaligned next */
	buf[0] = 9;
	sb_init(&in, buf, sizeof(get));
	fscc_ea_iter_init_get(&it, &in);
	assert_int_equal(fscc_ea_next(&it, &ea, &end),
			 FSCC_EA_LIST_INCONSISTENT);
}

/* ---- security descriptors ---- */

static enum fscc_status sd_parse(const uint8_t *p, size_t n,
				 struct sd_parsed *out)
{
	uint8_t copy[512];
	struct smb2_buf b;

	assert_true(n <= sizeof(copy));
	memcpy(copy, p, n);
	sb_init(&b, copy, n);
	return sd_dec_SECURITY_DESCRIPTOR(&b, 1000, 100, out);
}

static void test_sd_encode(void **state)
{
	struct sd_unix u = {.uid = 1000, .gid = 100, .mode = 0754};
	uint8_t buf[256], exp[64];
	struct smb2_buf b;
	size_t need, n;
	const uint32_t all = OWNER_SECURITY_INFORMATION |
			     GROUP_SECURITY_INFORMATION |
			     DACL_SECURITY_INFORMATION;

	(void)state;
	/* against impacket's pieces, in nasd's order */
	memset(buf, SENTINEL, sizeof(buf));
	sb_init(&b, buf, sizeof(buf));
	assert_int_equal(sd_enc_SECURITY_DESCRIPTOR(&b, &u, all, &need),
			 FSCC_OK);
	assert_int_equal(need, sizeof(vec_sd_0754));
	assert_int_equal(b.pos, need);
	assert_int_equal(sd_size(&u, all), need);
	assert_memory_equal(buf, vec_sd_0754, sizeof(vec_sd_0754));
	assert_true(all_sentinel(buf + need, sizeof(buf) - need));
	u.mode = 0604;
	sb_init(&b, buf, sizeof(buf));
	assert_int_equal(sd_enc_SECURITY_DESCRIPTOR(&b, &u, all, &need),
			 FSCC_OK);
	assert_int_equal(need, sizeof(vec_sd_0604));
	assert_memory_equal(buf, vec_sd_0604, sizeof(vec_sd_0604));
	/* too small, at every size: nothing written, the size told */
	u.mode = 0754;
	for (n = 0; n < sizeof(vec_sd_0754); n++) {
		memset(buf, SENTINEL, sizeof(buf));
		sb_init(&b, buf, n);
		need = 0;
		assert_int_equal(sd_enc_SECURITY_DESCRIPTOR(&b, &u, all, &need),
				 FSCC_BUFFER_TOO_SMALL);
		assert_int_equal(need, 128);
		assert_int_equal(b.pos, 0);
		assert_true(all_sentinel(buf, sizeof(buf)));
	}
	/* owner only: header and SID at 20 */
	memset(exp, 0, sizeof(exp));
	exp[0] = 1;
	w16(exp, 2, SE_SELF_RELATIVE);
	w32(exp, 4, 20);
	memcpy(exp + 20, vec_sd_0754 + 20, 16);
	sb_init(&b, buf, sizeof(buf));
	assert_int_equal(sd_enc_SECURITY_DESCRIPTOR(
				 &b, &u, OWNER_SECURITY_INFORMATION, &need),
			 FSCC_OK);
	assert_int_equal(need, 36);
	assert_memory_equal(buf, exp, 36);
	/* group only */
	memset(exp, 0, sizeof(exp));
	exp[0] = 1;
	w16(exp, 2, SE_SELF_RELATIVE);
	w32(exp, 8, 20);
	memcpy(exp + 20, vec_sd_0754 + 36, 16);
	sb_init(&b, buf, sizeof(buf));
	assert_int_equal(sd_enc_SECURITY_DESCRIPTOR(
				 &b, &u, GROUP_SECURITY_INFORMATION, &need),
			 FSCC_OK);
	assert_int_equal(need, 36);
	assert_memory_equal(buf, exp, 36);
	/* DACL only */
	sb_init(&b, buf, sizeof(buf));
	assert_int_equal(sd_enc_SECURITY_DESCRIPTOR(
				 &b, &u, DACL_SECURITY_INFORMATION, &need),
			 FSCC_OK);
	assert_int_equal(need, 20 + 76);
	assert_memory_equal(buf,
			    "\x01\x00\x04\x80\0\0\0\0\0\0\0\0\0\0\0\0"
			    "\x14\0\0\0",
			    20);
	assert_memory_equal(buf + 20, vec_sd_0754 + 52, 76);
	/* nothing nasd has (SACL, label): the header alone */
	sb_init(&b, buf, sizeof(buf));
	assert_int_equal(
		sd_enc_SECURITY_DESCRIPTOR(&b, &u,
					   SACL_SECURITY_INFORMATION |
						   LABEL_SECURITY_INFORMATION,
					   &need),
		FSCC_OK);
	assert_int_equal(need, 20);
	assert_memory_equal(buf,
			    "\x01\x00\x00\x80\0\0\0\0\0\0\0\0\0\0\0\0"
			    "\0\0\0\0",
			    20);
	/* a directory: w carries FILE_DELETE_CHILD */
	u.mode = 0700;
	u.is_dir = true;
	sb_init(&b, buf, sizeof(buf));
	assert_int_equal(sd_enc_SECURITY_DESCRIPTOR(&b, &u, all, &need),
			 FSCC_OK);
	/* owner rwx: FILE_ALL_ACCESS | owner extras */
	assert_memory_equal(buf + 52 + 8 + 4, "\xff\x01\x1f\x00", 4);
	u.mode = 0720;
	sb_init(&b, buf, sizeof(buf));
	assert_int_equal(sd_enc_SECURITY_DESCRIPTOR(&b, &u, all, &need),
			 FSCC_OK);
	/* group -w-: FILE_GENERIC_WRITE | FILE_DELETE_CHILD = 0x120156 */
	assert_memory_equal(buf + 52 + 8 + 24 + 4, "\x56\x01\x12\x00", 4);
}

/* Every mode, file and directory, parses back to itself. */
static void test_sd_roundtrip(void **state)
{
	const uint32_t all = OWNER_SECURITY_INFORMATION |
			     GROUP_SECURITY_INFORMATION |
			     DACL_SECURITY_INFORMATION;
	struct sd_unix u = {.uid = 4000000000u, .gid = 7};
	struct sd_parsed p;
	uint8_t buf[256];
	struct smb2_buf b;
	size_t need;
	uint32_t mode;

	(void)state;
	for (mode = 0; mode < 01000; mode++) {
		for (int dir = 0; dir < 2; dir++) {
			u.mode = mode | 07000; /* special bits are not sent */
			u.is_dir = dir;
			sb_init(&b, buf, sizeof(buf));
			assert_int_equal(
				sd_enc_SECURITY_DESCRIPTOR(&b, &u, all, &need),
				FSCC_OK);
			sb_init(&b, buf, need);
			assert_int_equal(
				sd_dec_SECURITY_DESCRIPTOR(&b, 1, 2, &p),
				FSCC_OK);
			assert_true(p.has_owner && p.owner_unix);
			assert_int_equal(p.uid, 4000000000u);
			assert_true(p.has_group && p.group_unix);
			assert_int_equal(p.gid, 7);
			assert_true(p.has_dacl);
			assert_false(p.null_dacl);
			assert_false(p.has_sacl);
			assert_int_equal(p.lossy, 0);
			assert_int_equal(p.mode, mode);
			assert_int_equal(p.control,
					 SE_SELF_RELATIVE | SE_DACL_PRESENT);
		}
	}
	/* without an owner or group in the descriptor, the DACL is read
	 * against the file's current ones */
	u.mode = 0750;
	u.is_dir = false;
	u.uid = 1000;
	u.gid = 100;
	sb_init(&b, buf, sizeof(buf));
	assert_int_equal(sd_enc_SECURITY_DESCRIPTOR(
				 &b, &u, DACL_SECURITY_INFORMATION, &need),
			 FSCC_OK);
	assert_int_equal(sd_parse(buf, need, &p), FSCC_OK);
	assert_false(p.has_owner);
	assert_false(p.has_group);
	assert_int_equal(p.mode, 0750);
	assert_int_equal(p.lossy, 0);
	sb_init(&b, buf, need);
	assert_int_equal(sd_dec_SECURITY_DESCRIPTOR(&b, 1001, 100, &p),
			 FSCC_OK);
	assert_int_equal(p.mode, 0050); /* the owner ACE is someone else's */
	assert_int_equal(p.lossy, SD_LOSSY_SID);
}

/* A small descriptor builder for the parser's cases. */
struct sdb {
	uint8_t b[512];
	size_t n;
};

static size_t sdb_sid(struct sdb *s, const char *canon)
{
	/* "S-1-A-s1-s2..." with a one-byte authority */
	size_t at = s->n, cnt = 0;
	unsigned long v[16];
	unsigned int auth;
	const char *p = canon + 4;
	char *e;

	auth = (unsigned int)strtoul(p, &e, 10);
	while (*e == '-' && cnt < 16) {
		v[cnt++] = strtoul(e + 1, &e, 10);
	}
	s->b[s->n++] = 1;
	s->b[s->n++] = (uint8_t)cnt;
	memset(s->b + s->n, 0, 6);
	s->b[s->n + 5] = (uint8_t)auth;
	s->n += 6;
	for (size_t i = 0; i < cnt; i++) {
		w32(s->b, s->n, (uint32_t)v[i]);
		s->n += 4;
	}
	return at;
}

/* Header with a DACL of @naces ACEs (type, flags, mask, SID) at 20. */
static void sdb_dacl(struct sdb *s, uint16_t control, size_t naces,
		     const uint8_t *types, const uint8_t *flags,
		     const uint32_t *masks, const char *const *sids)
{
	size_t acl, ace, i;

	memset(s, 0, sizeof(*s));
	s->b[0] = 1;
	w16(s->b, 2, control);
	w32(s->b, 16, 20);
	s->n = 20;
	acl = s->n;
	s->b[acl] = 2;
	w16(s->b, acl + 4, (uint16_t)naces);
	s->n += 8;
	for (i = 0; i < naces; i++) {
		ace = s->n;
		s->b[ace] = types[i];
		s->b[ace + 1] = flags[i];
		w32(s->b, ace + 4, masks[i]);
		s->n += 8;
		sdb_sid(s, sids[i]);
		w16(s->b, ace + 2, (uint16_t)(s->n - ace));
	}
	w16(s->b, acl + 2, (uint16_t)(s->n - acl));
}

static void test_sd_parse_windows(void **state)
{
	struct sd_parsed p;

	(void)state;
	/* impacket's layout (DACL, owner, group), an inherit-only
	 * CREATOR OWNER ACE for children */
	assert_int_equal(sd_parse(vec_sd_win_0750, sizeof(vec_sd_win_0750), &p),
			 FSCC_OK);
	assert_true(p.owner_unix);
	assert_int_equal(p.uid, 2000);
	assert_true(p.group_unix);
	assert_int_equal(p.gid, 300);
	assert_int_equal(p.mode, 0750);
	assert_int_equal(p.lossy, SD_LOSSY_INHERIT);
}

static void test_sd_parse_semantics(void **state)
{
	static const char *const own_grp_all[] = {"S-1-22-1-1000",
						  "S-1-22-2-100", "S-1-1-0"};
	uint8_t types[4] = {0}, flags[4] = {0};
	uint32_t masks[4];
	struct sd_parsed p;
	struct sdb s;

	(void)state;
	/* generic rights */
	masks[0] = 0x10000000;		    /* GENERIC_ALL */
	masks[1] = 0x80000000 | 0x20000000; /* GENERIC_READ | EXECUTE */
	masks[2] = 0x40000000;		    /* GENERIC_WRITE */
	sdb_dacl(&s, 0x8004, 3, types, flags, masks, own_grp_all);
	assert_int_equal(sd_parse(s.b, s.n, &p), FSCC_OK);
	assert_int_equal(p.mode, 0777 & (0700 | 0070 | 0020 | 0002));
	assert_int_equal(p.mode, 0772);
	/* specific bits: r, w by APPEND only, x */
	masks[0] = 0x1 | 0x4 | 0x20;
	masks[1] = 0x2;
	masks[2] = 0x100; /* FILE_WRITE_ATTRIBUTES: no rwx */
	sdb_dacl(&s, 0x8004, 3, types, flags, masks, own_grp_all);
	assert_int_equal(sd_parse(s.b, s.n, &p), FSCC_OK);
	assert_int_equal(p.mode, 0720);
	/* first match wins: allow Everyone rwx, then deny the owner w */
	types[0] = 0;
	types[1] = 1;
	masks[0] = 0x001F01FF;
	masks[1] = 0x2;
	{
		static const char *const sids[] = {"S-1-1-0", "S-1-22-1-1000"};

		sdb_dacl(&s, 0x8004, 2, types, flags, masks, sids);
		assert_int_equal(sd_parse(s.b, s.n, &p), FSCC_OK);
		assert_int_equal(p.mode, 0777);
		/* and deny first, allow after */
		types[0] = 1;
		types[1] = 0;
		masks[0] = 0x2;
		masks[1] = 0x001F01FF;
		sdb_dacl(&s, 0x8004, 2, types, flags, masks,
			 (const char *const[]){"S-1-22-1-1000", "S-1-1-0"});
		assert_int_equal(sd_parse(s.b, s.n, &p), FSCC_OK);
		assert_int_equal(p.mode, 0577);
	}
	/* an unknown SID (Administrators), an object ACE, inherit-only */
	memset(types, 0, sizeof(types));
	masks[0] = 0x001F01FF;
	masks[1] = 0x001F01FF;
	sdb_dacl(&s, 0x8004, 2, types, flags, masks,
		 (const char *const[]){"S-1-5-32-544", "S-1-22-2-100"});
	assert_int_equal(sd_parse(s.b, s.n, &p), FSCC_OK);
	assert_int_equal(p.mode, 0070);
	assert_int_equal(p.lossy, SD_LOSSY_SID);
	flags[0] = 0x0B; /* OI | CI | INHERIT_ONLY */
	sdb_dacl(&s, 0x8004, 2, types, flags, masks,
		 (const char *const[]){"S-1-22-1-1000", "S-1-22-2-100"});
	assert_int_equal(sd_parse(s.b, s.n, &p), FSCC_OK);
	assert_int_equal(p.mode, 0070);
	assert_int_equal(p.lossy, SD_LOSSY_INHERIT);
	flags[0] = 0x10; /* INHERITED_ACE: still effective */
	sdb_dacl(&s, 0x8004, 2, types, flags, masks,
		 (const char *const[]){"S-1-22-1-1000", "S-1-22-2-100"});
	assert_int_equal(sd_parse(s.b, s.n, &p), FSCC_OK);
	assert_int_equal(p.mode, 0770);
	assert_int_equal(p.lossy, 0);
	flags[0] = 0;
	types[0] = 0x11; /* SYSTEM_MANDATORY_LABEL: not allow/deny */
	sdb_dacl(&s, 0x8004, 2, types, flags, masks,
		 (const char *const[]){"S-1-16-4096", "S-1-22-2-100"});
	assert_int_equal(sd_parse(s.b, s.n, &p), FSCC_OK);
	assert_int_equal(p.lossy, SD_LOSSY_ACE);
	types[0] = 0x42; /* undefined type: opaque */
	sdb_dacl(&s, 0x8004, 2, types, flags, masks,
		 (const char *const[]){"S-1-1-0", "S-1-22-2-100"});
	assert_int_equal(sd_parse(s.b, s.n, &p), FSCC_OK);
	assert_int_equal(p.mode, 0070);
	assert_int_equal(p.lossy, SD_LOSSY_ACE);
	/* an object ACE: Mask, Flags(1: ObjectType), GUID, SID */
	sdb_dacl(&s, 0x8004, 0, types, flags, masks, NULL);
	{
		size_t ace = s.n;

		s.b[ace] = 0x05;
		w32(s.b, ace + 4, 0x001F01FF);
		w32(s.b, ace + 8, 1);
		memset(s.b + ace + 12, 0x77, 16);
		s.n = ace + 28;
		sdb_sid(&s, "S-1-1-0");
		w16(s.b, ace + 2, (uint16_t)(s.n - ace));
		w16(s.b, 20 + 2, (uint16_t)(s.n - 20));
		w16(s.b, 20 + 4, 1);
		assert_int_equal(sd_parse(s.b, s.n, &p), FSCC_OK);
		assert_int_equal(p.mode, 0);
		assert_int_equal(p.lossy, SD_LOSSY_ACE);
		/* its SID cut off by AceSize */
		w16(s.b, ace + 2, 36);
		assert_int_equal(sd_parse(s.b, s.n, &p),
				 FSCC_INVALID_SECURITY_DESCR);
	}
	/* empty DACL: nothing for anyone; NULL DACL: everything */
	sdb_dacl(&s, 0x8004, 0, types, flags, masks, NULL);
	assert_int_equal(sd_parse(s.b, s.n, &p), FSCC_OK);
	assert_true(p.has_dacl);
	assert_false(p.null_dacl);
	assert_int_equal(p.mode, 0);
	w32(s.b, 16, 0);
	assert_int_equal(sd_parse(s.b, 20, &p), FSCC_OK);
	assert_true(p.null_dacl);
	assert_int_equal(p.mode, 0777);
	/* no DACL_PRESENT: no DACL, even with an offset (still checked) */
	sdb_dacl(&s, 0x8000, 0, types, flags, masks, NULL);
	assert_int_equal(sd_parse(s.b, s.n, &p), FSCC_OK);
	assert_false(p.has_dacl);
	assert_int_equal(sd_parse(s.b, 24, &p), FSCC_INVALID_SECURITY_DESCR);
	/* a non-Unix owner: reported, and its ACEs are the owner's */
	memset(&s, 0, sizeof(s));
	s.b[0] = 1;
	w16(s.b, 2, 0x8004);
	s.n = 20;
	w32(s.b, 4, (uint32_t)sdb_sid(&s, "S-1-5-21-1-2-3-1000"));
	w32(s.b, 8, (uint32_t)sdb_sid(&s, "S-1-22-2-5"));
	w32(s.b, 16, (uint32_t)s.n);
	{
		size_t acl = s.n, ace;

		s.b[acl] = 4; /* ACL_REVISION_DS */
		w16(s.b, acl + 4, 1);
		s.n += 8;
		ace = s.n;
		w32(s.b, ace + 4, 0x001200A9);
		s.n += 8;
		sdb_sid(&s, "S-1-5-21-1-2-3-1000");
		w16(s.b, ace + 2, (uint16_t)(s.n - ace));
		w16(s.b, acl + 2, (uint16_t)(s.n - acl));
	}
	assert_int_equal(sd_parse(s.b, s.n, &p), FSCC_OK);
	assert_true(p.has_owner);
	assert_false(p.owner_unix);
	assert_true(p.group_unix);
	assert_int_equal(p.gid, 5);
	assert_int_equal(p.mode, 0500);
	assert_int_equal(p.lossy, 0);
	/* a SACL present and valid; Sbz1 and RM control are not checked */
	memset(&s, 0, sizeof(s));
	s.b[0] = 1;
	s.b[1] = 0x5a;
	w16(s.b, 2, 0x8010 | SE_RM_CONTROL_VALID);
	w32(s.b, 12, 20);
	s.b[20] = 2;
	w16(s.b, 22, 8);
	assert_int_equal(sd_parse(s.b, 28, &p), FSCC_OK);
	assert_true(p.has_sacl);
	assert_false(p.has_dacl);
}

static void test_sd_parse_malformed(void **state)
{
	struct sd_parsed p;
	uint8_t b[256];
	size_t n, len = sizeof(vec_sd_0754);

	(void)state;
	/* cut at every byte */
	for (n = 0; n < len; n++)
		assert_int_equal(sd_parse(vec_sd_0754, n, &p),
				 FSCC_INVALID_SECURITY_DESCR);
	assert_int_equal(sd_parse(vec_sd_0754, len, &p), FSCC_OK);
	/* trailing bytes are allowed */
	memcpy(b, vec_sd_0754, len);
	memset(b + len, 0, 8);
	assert_int_equal(sd_parse(b, len + 8, &p), FSCC_OK);
#define SD_BAD(off, width, val)                                                \
	do {                                                                   \
		memcpy(b, vec_sd_0754, len);                                   \
		if ((width) == 1)                                              \
			b[off] = (uint8_t)(val);                               \
		else if ((width) == 2)                                         \
			w16(b, off, (uint16_t)(val));                          \
		else                                                           \
			w32(b, off, (uint32_t)(val));                          \
		assert_int_equal(sd_parse(b, len, &p),                         \
				 FSCC_INVALID_SECURITY_DESCR);                 \
	} while (0)
	/* header: revision, self-relative */
	SD_BAD(0, 1, 2);
	SD_BAD(0, 1, 0);
	SD_BAD(2, 2, 0x0004);
	/* each offset: inside the header, at the end, past it, huge */
	for (size_t f = 4; f <= 16; f += 4) {
		if (f == 12)
			continue; /* the SACL offset below */
		SD_BAD(f, 4, 1);
		SD_BAD(f, 4, 19);
		SD_BAD(f, 4, len);
		SD_BAD(f, 4, len - 1);
		SD_BAD(f, 4, len + 1);
		SD_BAD(f, 4, 0x7fffffff);
		SD_BAD(f, 4, 0xfffffff0);
		SD_BAD(f, 4, 0xffffffff);
	}
	SD_BAD(12, 4, 19);
	SD_BAD(12, 4, len);
	SD_BAD(12, 4, 0xffffffff);
	SD_BAD(12, 4, 20); /* points at a SID, not an ACL: revision 1 */
	/* owner SID: revision, sub-authority count 16, count past the end */
	SD_BAD(20, 1, 2);
	SD_BAD(21, 1, 16);
	SD_BAD(21, 1, 255);
	memcpy(b, vec_sd_0754, len);
	w32(b, 4, (uint32_t)(len - 12)); /* a SID whose count runs off */
	b[len - 12] = 1;
	b[len - 11] = 2;
	assert_int_equal(sd_parse(b, len, &p), FSCC_INVALID_SECURITY_DESCR);
	/* DACL at 52: revision, AclSize 0 / 7 / past the end / 0xffff,
	 * AceCount past the ACEs */
	SD_BAD(52, 1, 3);
	SD_BAD(52, 1, 0);
	SD_BAD(54, 2, 0);
	SD_BAD(54, 2, 7);
	SD_BAD(54, 2, 77);
	SD_BAD(54, 2, 0xffff);
	SD_BAD(56, 2, 4);
	SD_BAD(56, 2, 0xffff);
	/* AceSize: 0, 2, not a multiple of 4, too small for its SID, past
	 * the ACL */
	SD_BAD(60 + 2, 2, 0);
	SD_BAD(60 + 2, 2, 2);
	SD_BAD(60 + 2, 2, 25);
	SD_BAD(60 + 2, 2, 20);
	SD_BAD(60 + 2, 2, 8);
	SD_BAD(60 + 2, 2, 80);
	SD_BAD(60 + 2, 2, 0xfffc);
	/* an AceSize that only fails for not being a multiple of 4 */
	memcpy(b, vec_sd_0754, len);
	memset(b + len, 0, 4);
	w16(b, 54, 76 + 4);
	w16(b, 108 + 2, 22);
	assert_int_equal(sd_parse(b, len + 4, &p), FSCC_INVALID_SECURITY_DESCR);
	w16(b, 108 + 2, 24);
	assert_int_equal(sd_parse(b, len + 4, &p), FSCC_OK);
	/* an ACE SID with revision 0 */
	SD_BAD(60 + 8, 1, 0);
	/* the last ACE's SID count past its AceSize */
	SD_BAD(108 + 8 + 1, 1, 2);
#undef SD_BAD
	/* fewer ACEs than the ACL has room for is fine */
	memcpy(b, vec_sd_0754, len);
	w16(b, 56, 2);
	assert_int_equal(sd_parse(b, len, &p), FSCC_OK);
	assert_int_equal(p.mode, 0750);
	/* AclSize larger than the ACEs (slack) is fine */
	memcpy(b, vec_sd_0754, len);
	memset(b + len, 0, 8);
	w16(b, 54, 76 + 8);
	assert_int_equal(sd_parse(b, len + 8, &p), FSCC_OK);
	/* a poisoned cursor; one past its position */
	{
		struct smb2_buf c;

		memcpy(b, vec_sd_0754, len);
		sb_init(&c, b, len);
		sb_poison(&c);
		assert_int_equal(sd_dec_SECURITY_DESCRIPTOR(&c, 0, 0, &p),
				 FSCC_INVALID_SECURITY_DESCR);
		memmove(b + 4, b, len);
		sb_init(&c, b, len + 4);
		sb_skip(&c, 4);
		assert_int_equal(sd_dec_SECURITY_DESCRIPTOR(&c, 0, 0, &p),
				 FSCC_OK);
		assert_int_equal(p.mode, 0754);
	}
}

/* ---- wildcards ---- */

static bool wc(const char *pat, const char *name, bool icase)
{
	uint8_t u[2 * 256];
	struct wildcard w;
	size_t i, n = strlen(pat);

	assert_true(n < 256);
	for (i = 0; i < n; i++)
		w16(u, 2 * i, (uint8_t)pat[i]);
	assert_int_equal(wildcard_compile(&w, u, 2 * n, icase), 0);
	return wildcard_match(&w, name, strlen(name));
}

static void test_wildcard(void **state)
{
	(void)state;
	/* MS-FSA part 1 */
	assert_true(wc("*", "anything", false));
	assert_true(wc("*", ".", false));
	assert_true(wc("*.*", "noext", false));
	assert_true(wc("*.*", "a.b", false));
	assert_false(wc("", "a", false));
	assert_false(wc("*", "", false));
	assert_true(wc("", "", false));
	/* literal names and suffixes */
	assert_true(wc("hello.txt", "hello.txt", false));
	assert_false(wc("hello.txt", "Hello.txt", false));
	assert_true(wc("hello.txt", "HELLO.TXT", true));
	assert_false(wc("hello.txt", "hello.txt2", false));
	assert_false(wc("hello", "hello.", false));
	assert_true(wc("*.txt", "a.txt", false));
	assert_true(wc("*.txt", ".txt", false));
	assert_false(wc("*.txt", "a.txt.bak", false));
	assert_false(wc("*.txt", "txt", false));
	assert_true(wc("*.TXT", "a.txt", true));
	/* ? and * */
	assert_true(wc("a?c", "abc", false));
	assert_true(wc("a?c", "a.c", false));
	assert_false(wc("a?c", "ac", false));
	assert_false(wc("a?c", "abbc", false));
	assert_true(wc("a*b*c", "aXbYc", false));
	assert_true(wc("a*b*c", "abc", false));
	assert_false(wc("a*b*c", "acb", false));
	assert_true(
		wc("*a*a*a*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaab", false));
	assert_false(
		wc("*a*a*a*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaa", false));
	assert_true(wc("??", "ab", false));
	assert_false(wc("??", "abc", false));
	/* DOS_STAR '<': up to the last dot at the most ("*.txt" -> "<.txt") */
	assert_true(wc("<.txt", "a.txt", false));
	assert_true(wc("<.txt", "a.b.txt", false));
	assert_false(wc("<.txt", "a.txt.bak", false));
	assert_true(wc("<.b", "a.b.b", false));
	assert_false(wc("<.b", "a.b.c", false));
	assert_true(wc("<", "noext", false));
	assert_false(wc("a<", "a.b.c", false));
	assert_true(wc("a<", "a.b.", false)); /* consumes the last '.' */
	assert_true(wc("<c", "a.b.c", false));
	/* DOS_QM '>': "a??.txt" -> "a>>.txt" */
	assert_true(wc("a>>", "a", false));
	assert_true(wc("a>>", "ab", false));
	assert_true(wc("a>>", "abc", false));
	assert_false(wc("a>>", "abcd", false));
	assert_true(wc("a>>.txt", "a.txt", false));
	assert_true(wc("a>>.txt", "ab.txt", false));
	assert_true(wc("a>>.txt", "abc.txt", false));
	assert_false(wc("a>>.txt", "abcd.txt", false));
	assert_false(wc(">", ".", false));
	/* DOS_DOT '"': "*." -> `<"`, names without an extension */
	assert_true(wc("<\"", "foo", false));
	assert_false(wc("<\"", "foo.txt", false));
	assert_true(wc("foo\"", "foo", false));
	assert_true(wc("foo\"", "foo.", false));
	assert_false(wc("foo\"", "foo.x", false));
	assert_false(wc("foo\"", "foox", false));
	assert_true(wc("a\"b", "a.b", false));
	assert_false(wc("a\"b", "ab", false));
	/* trailing dots: Linux names may end with one */
	assert_true(wc("foo.", "foo.", false));
	assert_false(wc("foo.", "foo", false));
	assert_true(wc("*.", "foo.", false));
	assert_false(wc("*.", "foo", false));
	assert_true(wc("*..", "a..", false));
	/* names with characters that are wildcards in a pattern */
	assert_true(wc("a?", "a*", false));
	assert_false(wc("a*", "b*", false));
	/* case folding beyond ASCII (U+00E9 / U+00C9), not by default */
	{
		static const uint8_t pat[] = {0xc9, 0x00, '*', 0};
		struct wildcard w;

		assert_int_equal(wildcard_compile(&w, pat, 4, true), 0);
		assert_int_equal(wildcard_kind(&w), WILDCARD_GENERAL);
		assert_true(wildcard_match(&w, "\xc3\xa9t\xc3\xa9", 5));
		assert_int_equal(wildcard_compile(&w, pat, 4, false), 0);
		assert_false(wildcard_match(&w, "\xc3\xa9t\xc3\xa9", 5));
		assert_true(wildcard_match(&w, "\xc3\x89t\xc3\xa9", 5));
		/* a name that is not UTF-8 never matches */
		assert_int_equal(
			wildcard_compile(&w, (const uint8_t *)"*\0", 2, false),
			0);
		assert_false(wildcard_match(&w, "a\xff", 2));
		assert_false(wildcard_match(&w, "a\0b", 3));
		/* astral characters are one '?' */
		assert_int_equal(
			wildcard_compile(&w, (const uint8_t *)"?\0", 2, false),
			0);
		assert_true(wildcard_match(&w, "\xf0\x9f\x98\x80", 4));
	}
}

static void test_wildcard_compile(void **state)
{
	uint8_t p[2 * (WILDCARD_MAX + 2)];
	struct wildcard w;
	size_t i;

	(void)state;
	/* kinds */
	assert_int_equal(wildcard_compile(&w, (const uint8_t *)"*\0", 2, false),
			 0);
	assert_int_equal(wildcard_kind(&w), WILDCARD_ALL);
	assert_int_equal(
		wildcard_compile(&w, (const uint8_t *)"*\0.\0*\0", 6, false),
		0);
	assert_int_equal(wildcard_kind(&w), WILDCARD_ALL);
	assert_int_equal(
		wildcard_compile(&w, (const uint8_t *)"a\0b\0", 4, false), 0);
	assert_int_equal(wildcard_kind(&w), WILDCARD_LITERAL);
	assert_int_equal(
		wildcard_compile(&w, (const uint8_t *)"*\0b\0", 4, false), 0);
	assert_int_equal(wildcard_kind(&w), WILDCARD_SUFFIX);
	assert_int_equal(
		wildcard_compile(&w, (const uint8_t *)"<\0b\0", 4, false), 0);
	assert_int_equal(wildcard_kind(&w), WILDCARD_GENERAL);
	assert_int_equal(
		wildcard_compile(&w, (const uint8_t *)"b\0>\0", 4, false), 0);
	assert_int_equal(wildcard_kind(&w), WILDCARD_GENERAL);
	/* ill-formed */
	assert_int_equal(
		wildcard_compile(&w, (const uint8_t *)"a\0b", 3, false),
		-EINVAL);
	assert_int_equal(
		wildcard_compile(&w, (const uint8_t *)"\0\0", 2, false),
		-EINVAL);
	assert_int_equal(
		wildcard_compile(&w, (const uint8_t *)"\x00\xdc", 2, false),
		-EINVAL);
	assert_int_equal(
		wildcard_compile(&w, (const uint8_t *)"\x00\xd8", 2, false),
		-EINVAL);
	assert_int_equal(wildcard_compile(&w,
					  (const uint8_t *)"\x00\xd8"
							   "a\0",
					  4, false),
			 -EINVAL);
	/* length: WILDCARD_MAX code points fit, one more does not */
	for (i = 0; i < WILDCARD_MAX + 1; i++)
		w16(p, 2 * i, 'a');
	assert_int_equal(wildcard_compile(&w, p, 2 * WILDCARD_MAX, false), 0);
	assert_int_equal(wildcard_compile(&w, p, 2 * (WILDCARD_MAX + 1), false),
			 -ENAMETOOLONG);
}

/* wildcard_fold_utf8: the fold case-insensitive shares compare names by. */
static void test_wildcard_fold_utf8(void **state)
{
	static const struct {
		const char *in, *out;
	} ok[] = {
		{ "abc.TXT", "ABC.TXT" },
		{ "\xc3\xa9t\xc3\xa9", "\xc3\x89T\xc3\x89" },    /* été */
		{ "\xc3\x9f", "\xc3\x9f" },                  /* ß: no simple upper */
		{ "\xd0\xb4\xd0\xb0", "\xd0\x94\xd0\x90" },      /* да */
		{ "\xe1\xba\xa1", "\xe1\xba\xa0" },           /* U+1EA1 */
		{ "\xf0\x9f\x98\x80x", "\xf0\x9f\x98\x80X" },   /* outside BMP */
		{ "", "" },
	};
	static const char *bad[] = { "\xc3", "\xc0\xaf", "\xed\xa0\x80",
				     "\xff", "a\x80" };
	char out[64];
	size_t n, i;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_int_equal(wildcard_fold_utf8(ok[i].in, strlen(ok[i].in),
						    out, sizeof(out), &n),
				 0);
		assert_int_equal(n, strlen(ok[i].out));
		assert_memory_equal(out, ok[i].out, n);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(wildcard_fold_utf8(bad[i], strlen(bad[i]), out,
						    sizeof(out), &n),
				 -EINVAL);
	assert_int_equal(wildcard_fold_utf8("a\0b", 3, out, sizeof(out), &n),
			 -EINVAL);
	/* the output room is respected */
	assert_int_equal(wildcard_fold_utf8("\xc3\xa9", 2, out, 1, &n),
			 -ENAMETOOLONG);
	assert_int_equal(wildcard_fold_utf8("abcd", 4, out, 3, &n),
			 -ENAMETOOLONG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_time_conversion),
		cmocka_unit_test(test_time_set_ops),
		cmocka_unit_test(test_ntstatus),
		cmocka_unit_test(test_attributes),
		cmocka_unit_test(test_file_info_from_attr),
		cmocka_unit_test(test_file_info_apply_dos),
		cmocka_unit_test(test_query_fixed_golden),
		cmocka_unit_test(test_query_all_info),
		cmocka_unit_test(test_query_normalized_name),
		cmocka_unit_test(test_query_stream),
		cmocka_unit_test(test_query_too_small),
		cmocka_unit_test(test_query_fs),
		cmocka_unit_test(test_dir_golden),
		cmocka_unit_test(test_dir_chain),
		cmocka_unit_test(test_dir_bad_name),
		cmocka_unit_test(test_set_basic),
		cmocka_unit_test(test_set_rename),
		cmocka_unit_test(test_set_small_classes),
		cmocka_unit_test(test_ea_list),
		cmocka_unit_test(test_ea_list_malformed),
		cmocka_unit_test(test_ea_get_list),
		cmocka_unit_test(test_sd_encode),
		cmocka_unit_test(test_sd_roundtrip),
		cmocka_unit_test(test_sd_parse_windows),
		cmocka_unit_test(test_sd_parse_semantics),
		cmocka_unit_test(test_sd_parse_malformed),
		cmocka_unit_test(test_wildcard),
		cmocka_unit_test(test_wildcard_compile),
		cmocka_unit_test(test_wildcard_fold_utf8),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
