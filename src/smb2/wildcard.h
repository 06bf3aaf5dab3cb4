/* SPDX-License-Identifier: MIT */
#ifndef NASD_SMB2_WILDCARD_H
#define NASD_SMB2_WILDCARD_H

/*
 * QUERY_DIRECTORY search patterns: MS-FSA 2.1.4.4, "Algorithm for
 * Determining if a FileName Is in an Expression" (FsRtlIsNameInExpression):
 *   *  zero or more characters
 *   ?  exactly one character
 *   <  DOS_STAR: zero or more characters, up to and including the last '.'
 *      of the name at the most
 *   >  DOS_QM: one character; at a '.' or the end of the name, it and the
 *      DOS_QMs right after it match nothing
 *   "  DOS_DOT: a '.', or nothing at the end of the name
 * "*" and "*.*" match every name; an empty pattern matches no name (the
 * engine decides what an empty FileName means; MS-SMB2 §3.3.5.18).
 *
 * The pattern arrives as UTF-16LE and is compiled once per search into
 * code points (upper-cased for a case-insensitive share); names come from
 * the filesystem as UTF-8 and are decoded on the fly, so no name is
 * converted to UTF-16 only to be tested. Case-insensitive means Unicode
 * simple upper-case of BMP characters (what Windows' upcase table holds),
 * from the C.UTF-8 locale's towupper. Matching is a two-row dynamic
 * programme over (pattern position, name position): O(pattern x name)
 * time, no recursion, no allocation, whatever the pattern; "*", "*.*",
 * a literal name and "*" + literal suffix take fast paths, and a literal
 * one is reported so that the engine can look the name up instead of
 * listing the directory.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WILDCARD_MAX 512 /* code points of a pattern */
#define WILDCARD_NAME_MAX                                                      \
	1024 /* code points of a name (names are at most                       \
		255 bytes; longer never match) */

enum wildcard_kind {
	WILDCARD_ALL = 0, /* "*" or "*.*" */
	WILDCARD_LITERAL, /* no wildcard character */
	WILDCARD_SUFFIX,  /* '*' then no wildcard character */
	WILDCARD_GENERAL,
};

struct wildcard {
	uint32_t cp[WILDCARD_MAX]; /* the pattern, folded if icase */
	uint32_t len;
	enum wildcard_kind kind;
	bool icase;
};

/*
 * wildcard_compile() - compile the UTF-16LE pattern @p (@len bytes) into
 * @w. Returns 0, -EINVAL (odd length, unpaired surrogate, NUL) or
 * -ENAMETOOLONG (more than WILDCARD_MAX code points).
 */
int wildcard_compile(struct wildcard *w, const uint8_t *p, size_t len,
		     bool icase);

/*
 * wildcard_match() - whether the name @name (@len bytes of UTF-8) is in
 * @w. A name that is not well-formed UTF-8 (or holds NUL) never matches:
 * it could not be sent anyway.
 */
bool wildcard_match(const struct wildcard *w, const char *name, size_t len);

/*
 * wildcard_fold_utf8() - the UTF-8 name @in (@len bytes) with every code
 * point folded as a case-insensitive pattern folds it, into @out (@max
 * bytes, not NUL-terminated), its length in *@outlen: two names are equal
 * ignoring case when their folds are. 0, -EINVAL (not strict UTF-8, or a
 * NUL), -ENAMETOOLONG.
 */
int wildcard_fold_utf8(const char *in, size_t len, char *out, size_t max,
		       size_t *outlen);

/* wildcard_kind() - what @w is, for the engine's fast paths. */
enum wildcard_kind wildcard_kind(const struct wildcard *w);

#endif
