/* SPDX-License-Identifier: MIT */
#ifndef NASD_CORE_STATEFILE_H
#define NASD_CORE_STATEFILE_H

/*
 * Small files of the server's own in its state directory (keys, GUIDs):
 * written once, atomically and durably, mode 0600, and read back on every
 * start. Not exported data: the protocol layers keep theirs here instead
 * of making file syscalls themselves (tests/static/layering.py).
 */

#include <stddef.h>

/*
 * statefile_random() - fill @buf with the @len bytes of @dir/@name; when
 * the file is missing or not exactly @len bytes long, make it: @len
 * random bytes (getrandom), written to a temporary file, fsync'd and
 * renamed over @name, 0600. Returns 0, or -errno.
 */
int statefile_random(const char *dir, const char *name, void *buf,
		     size_t len);

/*
 * statefile_write() - replace @dir/@name by the @len bytes of @buf,
 * atomically and durably (a temporary file, fsync, rename; 0600).
 * Returns 0 or -errno.
 */
int statefile_write(const char *dir, const char *name, const void *buf,
		    size_t len);

/*
 * statefile_read() - read @dir/@name into @buf (at most @max bytes).
 * Returns the length read, -ENOENT when there is no such file, -EFBIG
 * when it is longer than @max, or another -errno.
 */
long statefile_read(const char *dir, const char *name, void *buf,
		    size_t max);

#endif
