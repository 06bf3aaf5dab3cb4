/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the exports(5) parser, export_parse_file(). The input
 * is the file's content, written to a memfd that the parser opens by its
 * /proc path, as any file.
 *
 * Checked: a parse either fails with -EINVAL and a "FILE:LINE: reason"
 * message, or gives a table whose every export has an absolute path and
 * at least one client, every client a NUL-terminated spec, a known
 * address family and a prefix within it, and options within their
 * ranges (the export-wide ones too: io=, a canonical pseudo=, the id
 * that fsid= gave); export_match_client() runs over it for a v4 and a v6
 * peer. Then the table is freed (LeakSanitizer checks the parser's unwinding).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/log.h"
#include "export/export.h"
#include "fuzz.h"

static int memfd = -1;
static char memfd_path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (!getenv("NASD_FUZZ_LOG"))
		log_level_max = -1;
	memfd = memfd_create("exports", MFD_CLOEXEC);
	if (memfd < 0) {
		perror("fuzz_exports: memfd_create");
		exit(1);
	}
	snprintf(memfd_path, sizeof(memfd_path), "/proc/self/fd/%d", memfd);
	return 0;
}

static void check_table(const struct export_table *t)
{
	struct sockaddr_in sin = {.sin_family = AF_INET};
	struct sockaddr_in6 sin6 = {.sin6_family = AF_INET6};
	const struct export_opts *o;
	uint32_t i, j;

	sin.sin_addr.s_addr = htonl(0x0a000001); /* 10.0.0.1 */
	sin6.sin6_addr.s6_addr[15] = 1;		 /* ::1 */
	for (i = 0; i < t->nexports; i++) {
		const struct export *e = &t->exports[i];

		FUZZ_CHECK(e->path && e->path[0] == '/');
		FUZZ_CHECK(e->nclients > 0 && e->clients);
		FUZZ_CHECK(e->vex == NULL);
		for (j = 0; j < e->nclients; j++) {
			const struct export_client *c = &e->clients[j];

			FUZZ_CHECK(memchr(c->spec, 0, sizeof(c->spec)));
			FUZZ_CHECK(c->family == AF_UNSPEC ||
				   c->family == AF_INET ||
				   c->family == AF_INET6);
			FUZZ_CHECK(c->prefix <=
				   (c->family == AF_INET6 ? 128u : 32u));
			FUZZ_CHECK(c->opts.squash <= EXPORT_ALL_SQUASH);
		}
		FUZZ_CHECK(e->wide.io == VFS_IO_AUTO ||
			   e->wide.io == VFS_IO_BUFFERED ||
			   e->wide.io == VFS_IO_DIRECT);
		FUZZ_CHECK(memchr(e->wide.pseudo, 0, sizeof(e->wide.pseudo)));
		FUZZ_CHECK(!e->wide.pseudo[0] || e->wide.pseudo[0] == '/');
		FUZZ_CHECK(e->wide.fsid < 0 || e->id == (uint32_t)e->wide.fsid);
		o = export_match_client(e, (const struct sockaddr *)&sin);
		FUZZ_CHECK(!o || o->squash <= EXPORT_ALL_SQUASH);
		o = export_match_client(e, (const struct sockaddr *)&sin6);
		FUZZ_CHECK(!o || o->squash <= EXPORT_ALL_SQUASH);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct export_table *t = NULL;
	char err[256];
	int ret;

	if (ftruncate(memfd, 0) < 0 ||
	    pwrite(memfd, data, size, 0) != (ssize_t)size) {
		perror("fuzz_exports: memfd");
		exit(1);
	}
	err[0] = 0;
	ret = export_parse_file(memfd_path, &t, err, sizeof(err));
	if (ret < 0) {
		FUZZ_CHECK(ret == -EINVAL);
		FUZZ_CHECK(t == NULL);
		FUZZ_CHECK(memchr(err, 0, sizeof(err)));
		FUZZ_CHECK(strncmp(err, memfd_path, strlen(memfd_path)) == 0);
		return 0;
	}
	FUZZ_CHECK(ret == 0 && t != NULL);
	check_table(t);
	export_table_free(t);
	return 0;
}
