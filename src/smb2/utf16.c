// SPDX-License-Identifier: MIT
/*
 * UTF-16LE <-> UTF-8 (utf16.h). Decoding is strict both ways, so that a
 * name has exactly one spelling on each side.
 */
#include "smb2/utf16.h"

#include <errno.h>
#include <locale.h>
#include <pthread.h>
#include <wctype.h>

#include "core/le.h"

/* One code point from UTF-8 at @p (@n bytes left); its length, or 0. */
static size_t utf8_decode(const uint8_t *p, size_t n, uint32_t *cp)
{
	uint32_t c = p[0];
	size_t len, i;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c < 0xc2)
		return 0; /* continuation byte, or an overlong 2-byte lead */
	if (c < 0xe0) {
		len = 2;
		c &= 0x1f;
	} else if (c < 0xf0) {
		len = 3;
		c &= 0x0f;
	} else if (c < 0xf5) {
		len = 4;
		c &= 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	/* Overlong forms, surrogates and what lies past U+10FFFF. */
	if ((len == 3 && c < 0x800) || (len == 4 && c < 0x10000) ||
	    c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

int utf16le_to_utf8(const uint8_t *in, size_t len, char *out, size_t max,
		    size_t *outlen, bool allow_nul)
{
	size_t i = 0, o = 0, k;
	uint32_t c, lo;
	uint8_t enc[4];

	if (len & 1)
		return -EINVAL;
	while (i < len) {
		c = get_le16(in + i);
		i += 2;
		if (c >= 0xdc00 && c <= 0xdfff)
			return -EINVAL; /* a low surrogate first */
		if (c >= 0xd800 && c <= 0xdbff) {
			if (i + 2 > len)
				return -EINVAL;
			lo = get_le16(in + i);
			if (lo < 0xdc00 || lo > 0xdfff)
				return -EINVAL;
			i += 2;
			c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
		}
		if (!c && !allow_nul)
			return -EINVAL;
		if (c < 0x80) {
			enc[0] = (uint8_t)c;
			k = 1;
		} else if (c < 0x800) {
			enc[0] = (uint8_t)(0xc0 | c >> 6);
			enc[1] = (uint8_t)(0x80 | (c & 0x3f));
			k = 2;
		} else if (c < 0x10000) {
			enc[0] = (uint8_t)(0xe0 | c >> 12);
			enc[1] = (uint8_t)(0x80 | ((c >> 6) & 0x3f));
			enc[2] = (uint8_t)(0x80 | (c & 0x3f));
			k = 3;
		} else {
			enc[0] = (uint8_t)(0xf0 | c >> 18);
			enc[1] = (uint8_t)(0x80 | ((c >> 12) & 0x3f));
			enc[2] = (uint8_t)(0x80 | ((c >> 6) & 0x3f));
			enc[3] = (uint8_t)(0x80 | (c & 0x3f));
			k = 4;
		}
		if (max - o < k)
			return -ENAMETOOLONG;
		for (size_t j = 0; j < k; j++)
			out[o++] = (char)enc[j];
	}
	*outlen = o;
	return 0;
}

int utf8_to_utf16le(const char *in, size_t len, uint8_t *out, size_t max,
		    size_t *outlen)
{
	const uint8_t *p = (const uint8_t *)in;
	size_t i = 0, o = 0, k;
	uint32_t c;

	while (i < len) {
		k = utf8_decode(p + i, len - i, &c);
		if (!k || !c)
			return -EINVAL;
		i += k;
		if (c < 0x10000) {
			if (max - o < 2)
				return -ENAMETOOLONG;
			put_le16(out + o, (uint16_t)c);
			o += 2;
		} else {
			if (max - o < 4)
				return -ENAMETOOLONG;
			c -= 0x10000;
			put_le16(out + o, (uint16_t)(0xd800 + (c >> 10)));
			put_le16(out + o + 2, (uint16_t)(0xdc00 + (c & 0x3ff)));
			o += 4;
		}
	}
	*outlen = o;
	return 0;
}

long utf16le_len_of_utf8(const char *in, size_t len)
{
	const uint8_t *p = (const uint8_t *)in;
	size_t i = 0, k;
	long n = 0;
	uint32_t c;

	while (i < len) {
		k = utf8_decode(p + i, len - i, &c);
		if (!k || !c)
			return -EINVAL;
		i += k;
		n += c < 0x10000 ? 2 : 4;
	}
	return n;
}

/* Unicode case mappings come from the C.UTF-8 locale (the process's own
 * locale stays "C", whose towupper knows ASCII only). */
static pthread_once_t upper_once = PTHREAD_ONCE_INIT;
static locale_t upper_loc;

static void upper_init(void)
{
	upper_loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
}

void utf16le_upper(const uint8_t *in, size_t len, uint8_t *out)
{
	wint_t u;
	size_t i;
	uint32_t c;

	pthread_once(&upper_once, upper_init);
	for (i = 0; i + 1 < len; i += 2) {
		c = get_le16(in + i);
		if (c >= 'a' && c <= 'z') {
			c -= 'a' - 'A';
		} else if (c >= 0x80 && (c < 0xd800 || c > 0xdfff)) {
			if (upper_loc)
				u = towupper_l((wint_t)c, upper_loc);
			else if (c >= 0xe0 && c <= 0xfe && c != 0xf7)
				u = (wint_t)(c - 0x20); /* Latin-1 */
			else
				u = (wint_t)c;
			if (u <= 0xffff && (u < 0xd800 || u > 0xdfff))
				c = (uint32_t)u;
		}
		put_le16(out + i, (uint16_t)c);
	}
	if (len & 1)
		out[len - 1] = in[len - 1];
}
