/* SPDX-License-Identifier: MIT */
#ifndef NASD_SMB2_FSCC_INT_H
#define NASD_SMB2_FSCC_INT_H

/* Helpers shared by the fscc*.c files (not for the engine). */

#include "smb2/fscc.h"

/* fscc_utf16_len() - UTF-16LE bytes of @len bytes of UTF-8, or -1 when not
 * well formed (or holding NUL). */
long fscc_utf16_len(const char *s, size_t len);

/*
 * fscc_put_utf16() - write @s (@len bytes of UTF-8, known well formed and
 * @n16 UTF-16 bytes long) at @b's position, '/' as '\' when @backslash.
 * False (poisoned) when it does not fit.
 */
bool fscc_put_utf16(struct smb2_buf *b, const char *s, size_t len, size_t n16,
		    bool backslash);

/*
 * fscc_put_utf16_trunc() - write the first @room bytes (or fewer, if it is
 * shorter) of the UTF-16 form of @s, as fscc_put_utf16() would write it
 * whole; the bytes written. @room must fit in @b. A prefix is what MS-FSA
 * copies of a name that does not fit: it may end inside a surrogate pair,
 * or (for the raw-byte classes) inside a code unit.
 */
size_t fscc_put_utf16_trunc(struct smb2_buf *b, const char *s, size_t len,
			    size_t room, bool backslash);

/*
 * fscc_list_reserve() - make room for the next entry of @l, @size bytes:
 * FSCC_NO_SPACE if that entry (with the padding before it) does not fit,
 * leaving @l and its cursor untouched; else pad, link the previous entry
 * to the new one, and leave the cursor at the new entry's start, its
 * offset in *@at. The caller then writes exactly @size bytes and calls
 * fscc_list_commit().
 */
enum fscc_status fscc_list_reserve(struct fscc_list *l, size_t size,
				   size_t *at);

/* fscc_list_commit() - count the entry written at @at as @l's last. */
void fscc_list_commit(struct fscc_list *l, size_t at);

#endif
