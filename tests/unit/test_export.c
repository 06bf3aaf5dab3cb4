// SPDX-License-Identifier: MIT
/*
 * Unit tests of the export module: the exports(5) parser (good lines,
 * every option, every error with its file:line), the command-line spec,
 * client matching, squash mapping and the live table.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "export/export.h"

static char file[256];

static void write_file(const char *text)
{
	FILE *f;

	snprintf(file, sizeof(file), "/tmp/nasd-exports-%d", (int)getpid());
	f = fopen(file, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static struct export_table *parse_ok(const char *text)
{
	struct export_table *t = NULL;
	char err[512] = "";
	int ret;

	write_file(text);
	ret = export_parse_file(file, &t, err, sizeof(err));
	if (ret != 0)
		fail_msg("unexpected parse error: %s", err);
	unlink(file);
	return t;
}

/* The parse fails with "FILE:LINE: <contains @what>". */
static void parse_err(const char *text, unsigned int line, const char *what)
{
	struct export_table *t = NULL;
	char err[512] = "", prefix[300];
	int ret;

	write_file(text);
	ret = export_parse_file(file, &t, err, sizeof(err));
	unlink(file);
	if (ret != -EINVAL)
		fail_msg("expected an error about '%s'", what);
	assert_null(t);
	snprintf(prefix, sizeof(prefix), "%s:%u: ", file, line);
	if (strncmp(err, prefix, strlen(prefix)) != 0 ||
	    strstr(err, what) == NULL)
		fail_msg("error '%s' is not '%s...%s'", err, prefix, what);
}

static struct sockaddr_in v4(const char *a)
{
	struct sockaddr_in s = {.sin_family = AF_INET};

	assert_int_equal(inet_pton(AF_INET, a, &s.sin_addr), 1);
	return s;
}

static struct sockaddr_in6 v6(const char *a)
{
	struct sockaddr_in6 s = {.sin6_family = AF_INET6};

	assert_int_equal(inet_pton(AF_INET6, a, &s.sin6_addr), 1);
	return s;
}

static const struct export_opts *match4(const struct export *e, const char *a)
{
	struct sockaddr_in s = v4(a);

	return export_match_client(e, (const struct sockaddr *)&s);
}

static const struct export_opts *match6(const struct export *e, const char *a)
{
	struct sockaddr_in6 s = v6(a);

	return export_match_client(e, (const struct sockaddr *)&s);
}

static void test_parse_good(void **state)
{
	struct export_table *t = parse_ok(
		"# comment line\n"
		"\n"
		"   \t\n"
		"/srv/data 10.0.0.0/8(rw,no_root_squash,sync) "
		"192.168.1.7(ro) *(ro,all_squash,anonuid=1000,anongid=100)"
		" # trailing comment\n"
		"\"/srv/my data\" ::1(rw,insecure,io=direct)  "
		"2001:db8::/32(secure,io=direct,fsid=7)\n"
		"/srv/pub(ro,async,no_subtree_check,subtree_check,wdelay,"
		"no_wdelay)\n"
		"/srv/alone\n"
		"/srv/cont 10.0.0.1(rw) \\\n"
		"          10.0.0.2(ro)\r\n"
		"/srv//norm/./x/ 172.16.0.0/255.240.0.0(rw,fsid=0)\n"
		"/srv/sq "
		"(root_squash,no_all_squash,all_squash,no_all_squash)\n");
	const struct export *e;
	const struct export_opts *o;

	assert_int_equal(t->nexports, 7);
	e = &t->exports[0];
	assert_string_equal(e->path, "/srv/data");
	assert_int_equal(e->nclients, 3);
	assert_string_equal(e->clients[0].spec, "10.0.0.0/8");
	assert_int_equal(e->clients[0].prefix, 8);
	assert_true(e->clients[0].opts.rw);
	assert_int_equal(e->clients[0].opts.squash, EXPORT_NO_ROOT_SQUASH);
	assert_false(e->clients[0].opts.secure);
	assert_int_equal(e->wide.io, VFS_IO_AUTO);
	assert_int_equal(e->wide.fsid, -1);
	assert_string_equal(e->wide.pseudo, "");
	assert_false(e->clients[1].opts.rw);
	assert_int_equal(e->clients[1].opts.squash, EXPORT_ROOT_SQUASH);
	assert_int_equal(e->clients[1].opts.anonuid, 65534);
	assert_int_equal(e->clients[2].family, AF_UNSPEC);
	assert_int_equal(e->clients[2].opts.squash, EXPORT_ALL_SQUASH);
	assert_int_equal(e->clients[2].opts.anonuid, 1000);
	assert_int_equal(e->clients[2].opts.anongid, 100);

	/* First match wins. */
	o = match4(e, "10.1.2.3");
	assert_ptr_equal(o, &e->clients[0].opts);
	o = match4(e, "192.168.1.7");
	assert_ptr_equal(o, &e->clients[1].opts);
	o = match4(e, "11.0.0.1");
	assert_ptr_equal(o, &e->clients[2].opts);
	/* IPv4-mapped IPv6 peers match IPv4 specs. */
	o = match6(e, "::ffff:10.9.9.9");
	assert_ptr_equal(o, &e->clients[0].opts);

	e = &t->exports[1];
	assert_string_equal(e->path, "/srv/my data");
	assert_int_equal(e->id, 7);
	assert_int_equal(e->clients[0].family, AF_INET6);
	assert_int_equal(e->clients[0].prefix, 128);
	/* io= is the export's: given by both client specs, the same. */
	assert_int_equal(e->wide.io, VFS_IO_DIRECT);
	assert_int_equal(e->wide.fsid, 7);
	assert_false(e->clients[0].opts.secure);
	assert_true(e->clients[1].opts.secure);
	assert_ptr_equal(match6(e, "::1"), &e->clients[0].opts);
	assert_ptr_equal(match6(e, "2001:db8:ffff::1"), &e->clients[1].opts);
	assert_null(match6(e, "2001:db9::1"));
	assert_null(match4(e, "127.0.0.1"));
	assert_null(export_match_client(e, NULL));

	e = &t->exports[2];
	assert_string_equal(e->path, "/srv/pub");
	assert_int_equal(e->nclients, 1);
	assert_int_equal(e->clients[0].family, AF_UNSPEC);
	assert_false(e->clients[0].opts.rw);
	assert_non_null(match4(e, "1.2.3.4"));

	e = &t->exports[3];
	assert_string_equal(e->path, "/srv/alone");
	assert_int_equal(e->nclients, 1);
	assert_string_equal(e->clients[0].spec, "*");
	assert_false(e->clients[0].opts.rw);
	assert_int_equal(e->clients[0].opts.squash, EXPORT_ROOT_SQUASH);

	e = &t->exports[4];
	assert_string_equal(e->path, "/srv/cont");
	assert_int_equal(e->nclients, 2);
	assert_string_equal(e->clients[1].spec, "10.0.0.2");
	assert_null(match4(e, "10.0.0.3"));
	assert_true(match4(e, "10.0.0.1")->rw);

	e = &t->exports[5];
	assert_string_equal(e->path, "/srv/norm/x");
	assert_int_equal(e->id, 0);
	assert_int_equal(e->clients[0].prefix, 12);
	assert_non_null(match4(e, "172.31.255.255"));
	assert_null(match4(e, "172.32.0.0"));

	e = &t->exports[6];
	assert_int_equal(e->clients[0].opts.squash, EXPORT_ROOT_SQUASH);

	/* Ids without fsid= are the stable path hash. */
	assert_int_equal(t->exports[0].id,
			 export_find_by_path(t, "/srv/data/", 10)->id);
	assert_ptr_equal(export_find_by_id(t, 7), &t->exports[1]);
	assert_ptr_equal(export_find_by_path(t, "/srv//pub", 9),
			 &t->exports[2]);
	assert_null(export_find_by_path(t, "/srv", 4));
	assert_null(export_find_by_id(t, 12345));
	export_table_free(t);

	/* Same path in another file: same id (handles survive restarts). */
	t = parse_ok("/srv/data *(rw)\n");
	struct export_table *t2 = parse_ok("/srv/data 10.0.0.1(ro)\n");
	assert_int_equal(t->exports[0].id, t2->exports[0].id);
	export_table_free(t);
	export_table_free(t2);
}

static void test_parse_errors(void **state)
{
	parse_err("/a *(rw)\n\n/b *(rw,bogus)\n", 3,
		  "unknown export option 'bogus'");
	parse_err("/a *(rw,crossmnt)\n", 1, "unknown export option 'crossmnt'");
	parse_err("# c\nrelative *(rw)\n", 2, "must be absolute");
	parse_err("/a host.example.com(rw)\n", 1, "host names");
	parse_err("/a *.example.com(rw)\n", 1, "host names");
	parse_err("/a @netgroup(rw)\n", 1, "host names");
	parse_err("/a 10.0.0.0/33(rw)\n", 1, "bad prefix");
	parse_err("/a ::/129(rw)\n", 1, "bad prefix");
	parse_err("/a 10.0.0.0/255.0.255.0(rw)\n", 1, "bad netmask");
	parse_err("/a 10.0.0.1(rw\n", 1, "missing ')'");
	parse_err("/a 10.0.0.1(rw)(ro)\n", 1, "unbalanced");
	parse_err("\"/a *(rw)\n", 1, "unterminated quote");
	parse_err("/a *(rw)\n/b *(ro)\n/a 10.0.0.1(rw)\n", 3, "duplicate");
	parse_err("/a *(fsid=5)\n/b *(fsid=5)\n", 2, "collides");
	parse_err("/a 1.1.1.1(fsid=5) *(fsid=6)\n", 1, "conflicting fsid");
	parse_err("/a *(fsid=abc)\n", 1, "bad fsid");
	parse_err("/a *(anonuid=-1)\n", 1, "bad anonuid");
	parse_err("/a *(anongid=99999999999)\n", 1, "bad anongid");
	parse_err("/a *(io=mmap)\n", 1, "bad io");
	parse_err("/a *(rw,,ro)\n", 1, "empty export option");
	parse_err("/a/../b *(rw)\n", 1, "bad export path");
	parse_err("/x 1.2.3.4(rw) \\\n  bad.host(ro)\n/y\n", 1, "host names");
	parse_err("/x(rw) \\\n\\\n   /y(rw)\n", 1, "host names");
}

static void test_parse_missing_file(void **state)
{
	struct export_table *t = NULL;
	char err[256];

	assert_int_equal(
		export_parse_file("/nonexistent/exports", &t, err, sizeof(err)),
		-EINVAL);
	assert_non_null(strstr(err, "/nonexistent/exports: cannot open"));
}

static void test_parse_spec(void **state)
{
	struct export_table *t = export_table_new();
	char err[256];

	assert_non_null(t);
	assert_int_equal(export_parse_spec(t, "/srv/a", err, sizeof(err)), 0);
	assert_int_equal(export_parse_spec(t,
					   "/srv/b:rw,no_root_squash,"
					   "io=direct",
					   err, sizeof(err)),
			 0);
	assert_int_equal(export_parse_spec(t, "/srv/c:d", err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "--export: unknown export option 'd'"));
	assert_int_equal(export_parse_spec(t, "/srv/x:y/z", err, sizeof(err)),
			 0);
	assert_int_equal(export_parse_spec(t, "/srv/a/:ro", err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "duplicate"));
	assert_int_equal(export_parse_spec(t, "rel:rw", err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(t->nexports, 3);
	assert_false(t->exports[0].clients[0].opts.rw);
	assert_true(t->exports[1].clients[0].opts.rw);
	assert_int_equal(t->exports[1].clients[0].opts.squash,
			 EXPORT_NO_ROOT_SQUASH);
	assert_int_equal(t->exports[1].wide.io, VFS_IO_DIRECT);
	assert_int_equal(t->exports[0].wide.io, VFS_IO_AUTO);
	assert_string_equal(t->exports[2].path, "/srv/x:y/z");
	assert_non_null(match4(&t->exports[0], "8.8.8.8"));
	export_table_free(t);
}

/*
 * Export-wide options (io=, fsid=, pseudo=): one value per export, from
 * the path's list or any client spec's; two different values fail with
 * FILE:LINE and both places named.
 */
static void test_parse_export_wide(void **state)
{
	struct export_table *t;
	const struct export *e;

	parse_err("/a *(rw)\n\n/srv/data 10.0.0.0/8(rw,io=buffered) "
		  "*(ro,io=direct)\n",
		  3,
		  "/srv/data: conflicting io values: io=direct here but "
		  "io=buffered for 10.0.0.0/8 (io= applies to the whole "
		  "export)");
	parse_err("/a 1.1.1.1(fsid=5) *(fsid=6)\n", 1,
		  "/a: conflicting fsid values: fsid=6 here but fsid=5 for "
		  "1.1.1.1 (fsid= applies");
	parse_err("/a *(rw)\n/b 1.1.1.1(ro,pseudo=/x) ::1(pseudo=/y)\n", 2,
		  "/b: conflicting pseudo values: pseudo=/y here but "
		  "pseudo=/x for 1.1.1.1 (pseudo= applies");
	/* The path's list against a client spec, both orders of lines. */
	parse_err("/a(io=direct) 10.0.0.1(rw,io=auto)\n", 1,
		  "/a: conflicting io values: io=auto here but io=direct in "
		  "the path's options");
	parse_err("/a(fsid=3) \\\n  10.0.0.1(rw) *(fsid=4)\n", 1,
		  "fsid=4 here but fsid=3 in the path's options");
	parse_err("/a(pseudo=/p) *(pseudo=/q)\n", 1,
		  "pseudo=/q here but pseudo=/p in the path's options");
	/* One list: one value too. */
	parse_err("/a *(io=direct,rw,io=buffered)\n", 1,
		  "/a: conflicting io values: io=buffered here but io=direct "
		  "earlier in the same options");
	/* A conflict with the third spec, not only the first two. */
	parse_err("/a 1.1.1.1(io=direct) 2.2.2.2(rw) 3.3.3.3(io=buffered)\n", 1,
		  "io=buffered here but io=direct for 1.1.1.1");
	/* A bad value in the path's list is reported as in a client's. */
	parse_err("/a(io=mmap) *(rw)\n", 1, "bad io value 'mmap'");
	parse_err("/a(pseudo=rel)\n", 1, "bad pseudo path 'rel'");

	/* The same value twice (as written or canonically) is fine; client
	 * options stay with their spec. */
	t = parse_ok("/srv/same 1.1.1.1(rw,io=direct,pseudo=/p/,fsid=root) "
		     "*(ro,all_squash,io=direct,pseudo=/p,fsid=0)\n");
	e = &t->exports[0];
	assert_int_equal(e->nclients, 2);
	assert_int_equal(e->wide.io, VFS_IO_DIRECT);
	assert_string_equal(e->wide.pseudo, "/p");
	assert_int_equal(e->wide.fsid, 0);
	assert_int_equal(e->id, 0);
	assert_true(e->clients[0].opts.rw);
	assert_int_equal(e->clients[0].opts.squash, EXPORT_ROOT_SQUASH);
	assert_false(e->clients[1].opts.rw);
	assert_int_equal(e->clients[1].opts.squash, EXPORT_ALL_SQUASH);
	export_table_free(t);

	t = parse_ok(
		/* The path's list: for every client, and no "*" client of
		 * its own when it holds export-wide options only. */
		"/srv/x(io=direct,fsid=9) 10.0.0.0/8(rw) 192.168.0.1(ro)\n"
		/* Alone: everyone, default client options, its io=. */
		"/srv/y(io=buffered)\n"
		/* Client options in the path's list are "*"'s, as before. */
		"/srv/z(rw,io=direct) 10.0.0.1(ro)\n"
		/* One client spec's io= is the whole export's. */
		"/srv/w 10.0.0.1(rw) 10.0.0.2(ro,io=buffered) *(ro)\n"
		"/srv/v(pseudo=/pub/v)\n");
	assert_int_equal(t->nexports, 5);
	e = &t->exports[0];
	assert_int_equal(e->nclients, 2);
	assert_string_equal(e->clients[0].spec, "10.0.0.0/8");
	assert_string_equal(e->clients[1].spec, "192.168.0.1");
	assert_int_equal(e->wide.io, VFS_IO_DIRECT);
	assert_int_equal(e->id, 9);
	assert_true(match4(e, "10.1.2.3")->rw);
	assert_null(match4(e, "11.0.0.1"));
	e = &t->exports[1];
	assert_int_equal(e->nclients, 1);
	assert_string_equal(e->clients[0].spec, "*");
	assert_false(e->clients[0].opts.rw);
	assert_int_equal(e->clients[0].opts.squash, EXPORT_ROOT_SQUASH);
	assert_int_equal(e->wide.io, VFS_IO_BUFFERED);
	assert_int_equal(e->wide.fsid, -1);
	e = &t->exports[2];
	assert_int_equal(e->nclients, 2);
	assert_string_equal(e->clients[0].spec, "*");
	assert_true(e->clients[0].opts.rw);
	assert_false(e->clients[1].opts.rw);
	assert_int_equal(e->wide.io, VFS_IO_DIRECT);
	e = &t->exports[3];
	assert_int_equal(e->nclients, 3);
	assert_int_equal(e->wide.io, VFS_IO_BUFFERED);
	assert_string_equal(t->exports[4].wide.pseudo, "/pub/v");
	export_table_free(t);
}

/* The vfs export gets the export's io=, whichever client spec gave it. */
static void test_export_wide_vfs_io(void **state)
{
	char dir[] = "/tmp/nasd-expio-XXXXXX", text[256], err[256];
	struct export_table *t;

	assert_non_null(mkdtemp(dir));
	snprintf(text, sizeof(text),
		 "%s 127.0.0.1(rw) 10.0.0.0/8(ro,io=direct) *(ro)\n", dir);
	t = parse_ok(text);
	assert_int_equal(t->exports[0].wide.io, VFS_IO_DIRECT);
	assert_int_equal(export_table_open(t, err, sizeof(err)), 0);
	assert_int_equal(vfs_export_io(t->exports[0].vex), VFS_IO_DIRECT);
	export_table_free(t);

	snprintf(text, sizeof(text), "%s(io=buffered) 127.0.0.1(rw)\n", dir);
	t = parse_ok(text);
	assert_int_equal(export_table_open(t, err, sizeof(err)), 0);
	assert_int_equal(vfs_export_io(t->exports[0].vex), VFS_IO_BUFFERED);
	export_table_free(t);

	/* The command line: PATH:OPTS is the path's own list. */
	t = export_table_new();
	assert_non_null(t);
	snprintf(text, sizeof(text), "%s:rw,io=direct", dir);
	assert_int_equal(export_parse_spec(t, text, err, sizeof(err)), 0);
	assert_int_equal(export_table_open(t, err, sizeof(err)), 0);
	assert_int_equal(vfs_export_io(t->exports[0].vex), VFS_IO_DIRECT);
	export_table_free(t);
	rmdir(dir);
}

static void test_parse_spec_export_wide(void **state)
{
	struct export_table *t = export_table_new();
	char err[512];

	assert_non_null(t);
	assert_int_equal(export_parse_spec(t,
					   "/srv/io:io=buffered,rw,"
					   "pseudo=/n/io/,fsid=12",
					   err, sizeof(err)),
			 0);
	assert_int_equal(export_parse_spec(t, "/srv/twice:io=direct,io=direct",
					   err, sizeof(err)),
			 0);
	assert_int_equal(export_parse_spec(t, "/srv/bad:io=direct,io=auto", err,
					   sizeof(err)),
			 -EINVAL);
	assert_string_equal(err,
			    "--export: /srv/bad: conflicting io values: "
			    "io=auto here but io=direct earlier in the same "
			    "options (io= applies to the whole export)");
	assert_int_equal(export_parse_spec(t, "/srv/bad:fsid=1,fsid=2", err,
					   sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "--export: /srv/bad: conflicting fsid "
				    "values: fsid=2 here but fsid=1"));
	assert_int_equal(
		export_parse_spec(t, "/srv/bad:io=fast", err, sizeof(err)),
		-EINVAL);
	assert_non_null(strstr(err, "--export: bad io value 'fast'"));
	assert_int_equal(t->nexports, 2);
	assert_int_equal(t->exports[0].wide.io, VFS_IO_BUFFERED);
	assert_string_equal(t->exports[0].wide.pseudo, "/n/io");
	assert_int_equal(t->exports[0].id, 12);
	assert_int_equal(t->exports[0].nclients, 1);
	assert_string_equal(t->exports[0].clients[0].spec, "*");
	assert_true(t->exports[0].clients[0].opts.rw);
	assert_int_equal(t->exports[1].wide.io, VFS_IO_DIRECT);
	assert_false(t->exports[1].clients[0].opts.rw);
	export_table_free(t);
}

/*
 * ceph=FSNAME[:/DIR], ceph_conf=, ceph_id=: export-wide, in a spec whose
 * values hold ':' and '/' (the path still ends at the right ':'), and in
 * a file; bad values refused.
 */
static void test_parse_ceph(void **state)
{
	struct export_table *t = export_table_new();
	const struct export *e;
	char err[512];

	assert_non_null(t);
	assert_int_equal(export_parse_spec(t,
					   "/cephx:rw,ceph=cephfs:/a/b/,"
					   "ceph_conf=/etc/ceph/c.conf,"
					   "ceph_id=nasd",
					   err, sizeof(err)),
			 0);
	assert_int_equal(export_parse_spec(t, "/x:y:ceph=fs2", err,
					   sizeof(err)),
			 0);
	assert_int_equal(export_parse_spec(t, "/c1:ceph=a/b:/d", err,
					   sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "bad ceph filesystem name"));
	assert_int_equal(export_parse_spec(t, "/c2:ceph=fs:rel/x", err,
					   sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "bad ceph directory"));
	assert_int_equal(export_parse_spec(t, "/c3:ceph=fs:/../x", err,
					   sizeof(err)),
			 -EINVAL);
	assert_int_equal(export_parse_spec(t, "/c4:ceph_conf=rel.conf", err,
					   sizeof(err)),
			 -EINVAL);
	assert_int_equal(export_parse_spec(t, "/c5:ceph=fs,ceph=gs", err,
					   sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "conflicting ceph values"));
	assert_int_equal(t->nexports, 2);
	e = &t->exports[0];
	assert_string_equal(e->path, "/cephx");
	assert_true(e->wide.ceph_where.ceph);
	assert_string_equal(e->wide.ceph_where.ceph_fs, "cephfs");
	assert_string_equal(e->wide.ceph_where.ceph_dir, "/a/b");
	assert_string_equal(e->wide.ceph_conf, "/etc/ceph/c.conf");
	assert_string_equal(e->wide.ceph_id, "nasd");
	assert_true(e->clients[0].opts.rw);
	e = &t->exports[1];
	assert_string_equal(e->path, "/x:y");
	assert_string_equal(e->wide.ceph_where.ceph_fs, "fs2");
	assert_string_equal(e->wide.ceph_where.ceph_dir, "/");
	assert_string_equal(e->wide.ceph_conf, "");
	export_table_free(t);

	t = parse_ok("/cf 10.0.0.0/8(rw,ceph=:/sub) *(ro)\n/local *(rw)\n");
	assert_true(t->exports[0].wide.ceph_where.ceph);
	assert_string_equal(t->exports[0].wide.ceph_where.ceph_fs, "");
	assert_string_equal(t->exports[0].wide.ceph_where.ceph_dir, "/sub");
	assert_false(t->exports[1].wide.ceph_where.ceph);
	export_table_free(t);
}

/* smb=NAME: an export-wide option, validated, unique ignoring case. */
static void test_parse_smb_share(void **state)
{
	struct export_table *t;
	const struct export *e;

	t = parse_ok("/a *(rw,smb=Data)\n/b 10.0.0.0/8(ro) *(smb=pub)\n"
		     "/c *(rw)\n");
	assert_int_equal(t->nexports, 3);
	assert_string_equal(t->exports[0].wide.smb, "Data");
	assert_string_equal(t->exports[1].wide.smb, "pub");
	assert_string_equal(t->exports[2].wide.smb, "");
	e = export_find_by_share(t, "DATA", 4);
	assert_non_null(e);
	assert_string_equal(e->path, "/a");
	assert_ptr_equal(export_find_by_share(t, "pub", 3), &t->exports[1]);
	assert_null(export_find_by_share(t, "pu", 2));
	assert_null(export_find_by_share(t, "", 0));
	assert_null(export_find_by_share(t, "c", 1));
	export_table_free(t);
	/* the same name twice, in another case */
	parse_err("/a *(smb=x)\n/b *(smb=X)\n", 2,
		  "smb share 'X' of '/b' is already '/a'");
	/* two values for one export */
	parse_err("/a 1.1.1.1(smb=x) *(smb=y)\n", 1,
		  "conflicting smb values");
	/* names a share may not have */
	parse_err("/a *(smb=a/b)\n", 1, "character '/' not allowed");
	parse_err("/a *(smb=a\\b)\n", 1, "not allowed");
	parse_err("/a *(smb=a*)\n", 1, "character '*' not allowed");
	parse_err("/a *(smb=ipc$)\n", 1, "IPC$ is reserved");
	parse_err("/a *(smb=)\n", 1, "bad smb share name");
	parse_err("/a *(smb=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa)\n",
		  1, "1 to 80 characters");
}

static void test_map_cred(void **state)
{
	struct export_opts o = {
		.squash = EXPORT_ROOT_SQUASH,
		.anonuid = 65534,
		.anongid = 65533,
	};
	uint32_t gids[20] = {5, 0, 7};
	struct vfs_cred c;

	export_map_cred(&o, false, 0, 0, 3, gids, &c);
	assert_int_equal(c.uid, 65534);
	assert_int_equal(c.gid, 65533);
	assert_int_equal(c.ngroups, 3);
	assert_int_equal(c.groups[0], 5);
	assert_int_equal(c.groups[1], 65533);
	assert_int_equal(c.groups[2], 7);

	export_map_cred(&o, false, 1000, 100, 3, gids, &c);
	assert_int_equal(c.uid, 1000);
	assert_int_equal(c.gid, 100);
	assert_int_equal(c.groups[1], 65533);

	export_map_cred(&o, true, 1000, 100, 3, gids, &c);
	assert_int_equal(c.uid, 65534);
	assert_int_equal(c.gid, 65533);
	assert_int_equal(c.ngroups, 0);

	o.squash = EXPORT_NO_ROOT_SQUASH;
	export_map_cred(&o, false, 0, 0, 20, gids, &c);
	assert_int_equal(c.uid, 0);
	assert_int_equal(c.gid, 0);
	assert_int_equal(c.ngroups, VFS_NGROUPS_MAX);
	assert_int_equal(c.groups[1], 0);

	o.squash = EXPORT_ALL_SQUASH;
	export_map_cred(&o, false, 1000, 100, 3, gids, &c);
	assert_int_equal(c.uid, 65534);
	assert_int_equal(c.gid, 65533);
	assert_int_equal(c.ngroups, 0);
}

static void test_live_table(void **state)
{
	struct export_table *t1 = export_table_new(), *t2, *cur, *held;
	char err[256], dir[] = "/tmp/nasd-exp-XXXXXX", spec[64];

	assert_non_null(mkdtemp(dir));
	snprintf(spec, sizeof(spec), "%s:rw", dir);
	assert_int_equal(export_parse_spec(t1, spec, err, sizeof(err)), 0);
	assert_int_equal(export_table_open(t1, err, sizeof(err)), 0);
	assert_non_null(t1->exports[0].vex);
	assert_int_equal(vfs_export_id(t1->exports[0].vex), t1->exports[0].id);

	assert_null(export_table_current());
	export_table_install(t1);
	held = export_table_current();
	assert_ptr_equal(held, t1);

	/* Reload: the old table lives until its last holder puts it. */
	t2 = export_table_new();
	assert_int_equal(
		export_parse_spec(t2, "/nonexistent-nasd:ro", err, sizeof(err)),
		0);
	assert_true(export_table_open(t2, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "/nonexistent-nasd"));
	export_table_install(t2);
	cur = export_table_current();
	assert_ptr_equal(cur, t2);
	assert_int_equal(held->refs, 1);
	assert_non_null(held->exports[0].vex);
	export_table_put(held);
	export_table_put(cur);
	export_table_install(NULL);
	assert_null(export_table_current());
	rmdir(dir);
}

/*
 * A reload reuses the live vfs export of a path; if another export of
 * the new table cannot be opened, the live one keeps its io=.
 */
static void test_reload_fail_keeps_io(void **state)
{
	char dir[] = "/tmp/nasd-exp-XXXXXX", spec[64], err[256];
	struct export_table *t1 = export_table_new(), *t2;
	struct vfs_export *vex;

	assert_non_null(mkdtemp(dir));
	snprintf(spec, sizeof(spec), "%s:rw,io=buffered", dir);
	assert_int_equal(export_parse_spec(t1, spec, err, sizeof(err)), 0);
	assert_int_equal(export_table_open(t1, err, sizeof(err)), 0);
	vex = t1->exports[0].vex;
	assert_int_equal(vfs_export_io(vex), VFS_IO_BUFFERED);
	export_table_install(t1);

	t2 = export_table_new();
	snprintf(spec, sizeof(spec), "%s:rw,io=direct", dir);
	assert_int_equal(export_parse_spec(t2, spec, err, sizeof(err)), 0);
	assert_int_equal(
		export_parse_spec(t2, "/nonexistent-nasd:ro", err, sizeof(err)),
		0);
	assert_true(export_table_open(t2, err, sizeof(err)) < 0);
	assert_int_equal(vfs_export_io(vex), VFS_IO_BUFFERED);
	export_table_free(t2);

	/* The same reload without the missing export changes it. */
	t2 = export_table_new();
	assert_int_equal(export_parse_spec(t2, spec, err, sizeof(err)), 0);
	assert_int_equal(export_table_open(t2, err, sizeof(err)), 0);
	assert_ptr_equal(t2->exports[0].vex, vex);
	assert_int_equal(vfs_export_io(vex), VFS_IO_DIRECT);
	export_table_install(t2);
	export_table_install(NULL);
	assert_null(export_table_current());
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_good),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_parse_missing_file),
		cmocka_unit_test(test_parse_spec),
		cmocka_unit_test(test_parse_export_wide),
		cmocka_unit_test(test_export_wide_vfs_io),
		cmocka_unit_test(test_parse_spec_export_wide),
		cmocka_unit_test(test_parse_smb_share),
		cmocka_unit_test(test_parse_ceph),
		cmocka_unit_test(test_map_cred),
		cmocka_unit_test(test_live_table),
		cmocka_unit_test(test_reload_fail_keeps_io),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
