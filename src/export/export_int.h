/* SPDX-License-Identifier: MIT */
#ifndef NASD_EXPORT_EXPORT_INT_H
#define NASD_EXPORT_EXPORT_INT_H

#include "export/export.h"

/* Where a parse error is reported: "FILE:LINE: reason". */
struct export_ctx {
	const char *file;
	unsigned int line; /* 0: no line (command line) */
	char *err;
	size_t errlen;
};

int export_err(const struct export_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * export_add() - append an export to @t with the export-wide options
 * @wide (copied), checking for a duplicate path and an export id
 * collision. Takes ownership of @path and @clients (freed on error).
 * @wide->fsid < 0: none given, the id is the path hash.
 */
int export_add(struct export_table *t, char *path,
	       struct export_client *clients, uint32_t nclients,
	       const struct export_wide *wide, const struct export_ctx *c);

/* export_path_hash() - the stable 32-bit id of a canonical path. */
uint32_t export_path_hash(const char *path);

/*
 * export_path_normalize() - canonical form of @len bytes at @in into
 * @out (VFS_PATH_MAX): absolute, no "//", no trailing '/', no "."; ".."
 * is refused. Returns 0 or -EINVAL.
 */
int export_path_normalize(const char *in, size_t len, char *out);

#endif
