// SPDX-License-Identifier: MIT
/*
 * MS-FSA 2.1.4.4 name matching (wildcard.h). M(i, j) = "pattern[i..]
 * matches name[j..]" is computed for j from the end of the name down to
 * 0, keeping only the rows j and j + 1:
 *   M(m, j)       = j == n
 *   '*'           = M(i+1, j) || (j < n && M(i, j+1))
 *   '?'           = j < n && M(i+1, j+1)
 *   literal c     = j < n && name[j] == c && M(i+1, j+1)
 *   '"' DOS_DOT   = j == n ? M(i+1, n) : name[j] == '.' && M(i+1, j+1)
 *   '>' DOS_QM    = j < n && name[j] != '.' ? M(i+1, j+1) : M(i+1, j)
 *                   (at '.' or the end, the run of DOS_QMs matches nothing)
 *   '<' DOS_STAR  = M(i+1, j) || (j < n && (j == lastdot ? M(i+1, j+1)
 *                                                        : M(i, j+1)))
 *                   (it may consume the last '.', and then must stop)
 */
#include "smb2/wildcard.h"

#include <errno.h>
#include <locale.h>
#include <pthread.h>
#include <wctype.h>

#include "core/le.h"

#define DOS_STAR '<'
#define DOS_QM	 '>'
#define DOS_DOT	 '"'

static pthread_once_t fold_once = PTHREAD_ONCE_INIT;
static locale_t fold_loc;

static void fold_init(void)
{
	fold_loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
}

/* Simple upper case, BMP only, as an NTFS upcase table. */
static uint32_t fold(uint32_t c)
{
	wint_t u;

	if (c < 0x80)
		return c >= 'a' && c <= 'z' ? c - ('a' - 'A') : c;
	if (c > 0xffff || !fold_loc)
		return c;
	u = towupper_l((wint_t)c, fold_loc);
	return u <= 0xffff && (u < 0xd800 || u > 0xdfff) ? (uint32_t)u : c;
}

static bool is_wild(uint32_t c)
{
	return c == '*' || c == '?' || c == DOS_STAR || c == DOS_QM ||
	       c == DOS_DOT;
}

int wildcard_compile(struct wildcard *w, const uint8_t *p, size_t len,
		     bool icase)
{
	size_t i = 0, n = 0, k;
	uint32_t c, lo;
	bool wild = false;

	if (len & 1)
		return -EINVAL;
	if (icase)
		pthread_once(&fold_once, fold_init);
	while (i < len) {
		c = get_le16(p + i);
		i += 2;
		if (c >= 0xdc00 && c <= 0xdfff)
			return -EINVAL;
		if (c >= 0xd800 && c <= 0xdbff) {
			if (len - i < 2)
				return -EINVAL;
			lo = get_le16(p + i);
			if (lo < 0xdc00 || lo > 0xdfff)
				return -EINVAL;
			i += 2;
			c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
		}
		if (!c)
			return -EINVAL;
		if (n == WILDCARD_MAX)
			return -ENAMETOOLONG;
		w->cp[n++] = icase ? fold(c) : c;
	}
	w->len = (uint32_t)n;
	w->icase = icase;
	for (k = 1; k < n; k++)
		wild |= is_wild(w->cp[k]);
	if ((n == 1 && w->cp[0] == '*') ||
	    (n == 3 && w->cp[0] == '*' && w->cp[1] == '.' && w->cp[2] == '*'))
		w->kind = WILDCARD_ALL;
	else if (n && w->cp[0] == '*' && !wild)
		w->kind = WILDCARD_SUFFIX;
	else if (!wild && !(n && is_wild(w->cp[0])))
		w->kind = WILDCARD_LITERAL;
	else
		w->kind = WILDCARD_GENERAL;
	return 0;
}

enum wildcard_kind wildcard_kind(const struct wildcard *w)
{
	return w->kind;
}

/* Decode @len bytes of strict UTF-8 into @out (at most @max code points),
 * folded if @icase; the count, or -1. */
static long decode_name(const char *s, size_t len, uint32_t *out, size_t max,
			bool icase)
{
	const uint8_t *p = (const uint8_t *)s;
	size_t i = 0, n = 0, k, j;
	uint32_t c;

	while (i < len) {
		c = p[i];
		if (c < 0x80) {
			k = 1;
		} else if (c >= 0xc2 && c < 0xe0) {
			k = 2;
			c &= 0x1f;
		} else if (c >= 0xe0 && c < 0xf0) {
			k = 3;
			c &= 0x0f;
		} else if (c >= 0xf0 && c < 0xf5) {
			k = 4;
			c &= 0x07;
		} else {
			return -1;
		}
		if (len - i < k)
			return -1;
		for (j = 1; j < k; j++) {
			if ((p[i + j] & 0xc0) != 0x80)
				return -1;
			c = c << 6 | (p[i + j] & 0x3f);
		}
		if ((k == 3 && c < 0x800) || (k == 4 && c < 0x10000) ||
		    c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff) || !c)
			return -1;
		if (n == max)
			return -1;
		out[n++] = icase ? fold(c) : c;
		i += k;
	}
	return (long)n;
}

int wildcard_fold_utf8(const char *in, size_t len, char *out, size_t max,
		       size_t *outlen)
{
	uint32_t cp[WILDCARD_NAME_MAX];
	size_t i, n = 0;
	long k;

	pthread_once(&fold_once, fold_init);
	k = decode_name(in, len, cp, WILDCARD_NAME_MAX, true);
	if (k < 0)
		return -EINVAL;
	for (i = 0; i < (size_t)k; i++) {
		uint32_t c = cp[i];
		size_t need = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;

		if (max - n < need)
			return -ENAMETOOLONG;
		if (need == 1) {
			out[n++] = (char)c;
			continue;
		}
		out[n + need - 1] = (char)(0x80 | (c & 0x3f));
		if (need > 2)
			out[n + need - 2] = (char)(0x80 | ((c >> 6) & 0x3f));
		if (need > 3)
			out[n + 1] = (char)(0x80 | ((c >> 12) & 0x3f));
		out[n] = (char)(need == 2 ? 0xc0 | (c >> 6)
			      : need == 3 ? 0xe0 | (c >> 12)
					  : 0xf0 | (c >> 18));
		n += need;
	}
	*outlen = n;
	return 0;
}

static bool match_general(const struct wildcard *w, const uint32_t *s, size_t n)
{
	bool row_a[WILDCARD_MAX + 1], row_b[WILDCARD_MAX + 1];
	bool *cur = row_a, *nxt = row_b, *t;
	const uint32_t *p = w->cp;
	size_t m = w->len, i, j;
	long lastdot = -1;
	uint32_t c;

	for (j = 0; j < n; j++) {
		if (s[j] == '.')
			lastdot = (long)j;
	}
	/* Row j = n: only what can match nothing survives. */
	nxt[m] = true;
	for (i = m; i-- > 0;) {
		c = p[i];
		nxt[i] = (c == '*' || c == DOS_STAR || c == DOS_DOT ||
			  c == DOS_QM) &&
			 nxt[i + 1];
	}
	for (j = n; j-- > 0;) {
		c = s[j];
		cur[m] = false;
		for (i = m; i-- > 0;) {
			switch (p[i]) {
			case '*':
				cur[i] = cur[i + 1] || nxt[i];
				break;
			case '?':
				cur[i] = nxt[i + 1];
				break;
			case DOS_DOT:
				cur[i] = c == '.' && nxt[i + 1];
				break;
			case DOS_QM:
				cur[i] = c != '.' ? nxt[i + 1] : cur[i + 1];
				break;
			case DOS_STAR:
				cur[i] = cur[i + 1] ||
					 ((long)j == lastdot ? nxt[i + 1]
							     : nxt[i]);
				break;
			default:
				cur[i] = p[i] == c && nxt[i + 1];
				break;
			}
		}
		t = cur;
		cur = nxt;
		nxt = t;
	}
	return nxt[0];
}

bool wildcard_match(const struct wildcard *w, const char *name, size_t len)
{
	uint32_t s[WILDCARD_NAME_MAX];
	size_t i, m = w->len, n;
	long r;

	/* MS-FSA part 1: the special cases. */
	if (len == 0)
		return m == 0;
	if (m == 0)
		return false;
	r = decode_name(name, len, s, WILDCARD_NAME_MAX, w->icase);
	if (r < 0)
		return false;
	n = (size_t)r;
	switch (w->kind) {
	case WILDCARD_ALL:
		return true;
	case WILDCARD_LITERAL:
		if (n != m)
			return false;
		for (i = 0; i < m; i++) {
			if (s[i] != w->cp[i])
				return false;
		}
		return true;
	case WILDCARD_SUFFIX:
		if (n < m - 1)
			return false;
		for (i = 1; i < m; i++) {
			if (s[n - m + i] != w->cp[i])
				return false;
		}
		return true;
	case WILDCARD_GENERAL:
		break;
	}
	return match_general(w, s, n);
}
