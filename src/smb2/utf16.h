/* SPDX-License-Identifier: MIT */
#ifndef NASD_SMB2_UTF16_H
#define NASD_SMB2_UTF16_H

/*
 * UTF-16LE (what SMB2 and NTLMSSP carry: names, paths, user and domain
 * names) to and from UTF-8 (what the filesystem and the rest of nasd use).
 * Both directions refuse what is not well formed rather than guessing: an
 * odd byte count, an unpaired surrogate, an overlong or truncated UTF-8
 * sequence, a code point above U+10FFFF. NUL is refused too (@allow_nul
 * aside): no name may smuggle one past the vfs.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * utf16le_to_utf8() - convert @len bytes at @in into @out (@max bytes, not
 * NUL-terminated), the length in *@outlen. Returns 0, -EINVAL (not well
 * formed, or a NUL without @allow_nul), -ENAMETOOLONG (@out too small).
 */
int utf16le_to_utf8(const uint8_t *in, size_t len, char *out, size_t max,
		    size_t *outlen, bool allow_nul);

/*
 * utf8_to_utf16le() - convert @len bytes of UTF-8 at @in into @out (@max
 * bytes), the byte length in *@outlen. Returns 0, -EINVAL, -ENAMETOOLONG.
 */
int utf8_to_utf16le(const char *in, size_t len, uint8_t *out, size_t max,
		    size_t *outlen);

/*
 * utf16le_len_of_utf8() - the bytes utf8_to_utf16le() needs for @in, or
 * -EINVAL when it is not well formed.
 */
long utf16le_len_of_utf8(const char *in, size_t len);

/*
 * utf16le_upper() - the UTF-16LE string @in (@len bytes) upper-cased into
 * @out (same length) as NTLM's UNICODE(Uppercase()) does (MS-NLMP §3.3.2):
 * ASCII and Latin-1 letters, the BMP's simple case mappings that libc
 * knows; code units outside the BMP and surrogates are copied as they are.
 */
void utf16le_upper(const uint8_t *in, size_t len, uint8_t *out);

#endif
