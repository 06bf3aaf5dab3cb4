// SPDX-License-Identifier: MIT
/*
 * nasd-bench SMB2 client: smb:// URLs and the request bodies the
 * workloads send (MS-SMB2 §2.2.13 CREATE, §2.2.15 CLOSE, §2.2.17 FLUSH,
 * §2.2.19 READ, §2.2.21 WRITE, §2.2.33 QUERY_DIRECTORY, §2.2.37
 * QUERY_INFO, §2.2.39 SET_INFO). Each builder writes the fixed part and
 * its buffer at @b and returns the body's length, never less than its
 * StructureSize (whose odd bit counts a buffer byte).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nb_smb2_int.h"
#include "smb2/utf16.h"

#define CREATE_FIXED	56
#define MXAC_LEN	24

static int hexval(int ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	ch = tolower(ch);
	return ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
}

/* Decode %XX in place. */
static int pct_decode(char *s)
{
	char *w = s;

	if (!*s)
		return 0;	/* may be a literal "" */
	for (; *s; s++) {
		if (*s == '%') {
			int h = hexval(s[1]), l = h < 0 ? -1 : hexval(s[2]);

			if (h < 0 || l < 0)
				return -EINVAL;
			*w++ = (char)(h << 4 | l);
			s += 2;
		} else {
			*w++ = *s;
		}
	}
	*w = '\0';
	return 0;
}

/**
 * nb_smb2_parse_url() - smb://[DOMAIN;]USER[:PASSWORD]@HOST[:PORT]/SHARE
 * into @o (port 445 by default, empty domain and password by default;
 * %XX escapes in the user information are decoded).
 * @url: the URL
 * @o:   filled; its strings point into *@buf
 * @buf: a copy of the URL the caller frees, NULL on failure
 *
 * Returns 0, or -EINVAL when the URL does not have that form.
 */
int nb_smb2_parse_url(const char *url, struct nb_smb2_opts *o, char **buf)
{
	char *copy, *s, *at, *host, *slash, *colon, *semi, *q;
	long port = 445;

	*buf = NULL;
	if (strncmp(url, "smb://", 6))
		return -EINVAL;
	copy = strdup(url + 6);
	if (!copy)
		return -ENOMEM;
	s = copy;
	q = strchr(s, '?');
	if (q)
		*q = '\0';
	at = strrchr(s, '@');
	if (!at)
		goto bad;
	*at = '\0';
	host = at + 1;
	slash = strchr(host, '/');
	if (!slash || !slash[1] || strchr(slash + 1, '/'))
		goto bad;
	*slash = '\0';
	colon = strrchr(host, ':');
	if (colon) {
		char *end;

		*colon = '\0';
		port = strtol(colon + 1, &end, 10);
		if (*end || port <= 0 || port > 65535)
			goto bad;
	}
	if (!*host)
		goto bad;
	o->domain = "";
	semi = strchr(s, ';');
	if (semi) {
		*semi = '\0';
		o->domain = s;
		s = semi + 1;
	}
	colon = strchr(s, ':');
	o->password = "";
	if (colon) {
		*colon = '\0';
		o->password = colon + 1;
	}
	o->user = s;
	if (!*o->user || pct_decode((char *)o->user) ||
	    pct_decode((char *)o->password) || pct_decode((char *)o->domain))
		goto bad;
	o->host = host;
	o->port = (int)port;
	o->share = slash + 1;
	*buf = copy;
	return 0;
bad:
	free(copy);
	return -EINVAL;
}

/**
 * nb_smb2_create_body() - a CREATE of @path (relative to the share, '/'
 * separated; "" is the share's root), no oplock, sharing everything.
 * @b:              NB_SMB2_CREATE_MAX bytes
 * @path:           the name
 * @access:         DesiredAccess
 * @disposition:    CreateDisposition
 * @options:        CreateOptions
 * @maximal_access: add an MxAc context (the access the user would have)
 *
 * Returns the body's length, 0 when @path is too long or not UTF-8.
 */
size_t nb_smb2_create_body(uint8_t *b, const char *path, uint32_t access,
			   uint32_t disposition, uint32_t options,
			   bool maximal_access)
{
	size_t n = 0, len, i;

	while (*path == '/')
		path++;
	memset(b, 0, CREATE_FIXED);
	if (utf8_to_utf16le(path, strlen(path), b + CREATE_FIXED, 512, &n))
		return 0;
	for (i = 0; i + 1 < n; i += 2)
		if (b[CREATE_FIXED + i] == '/' && !b[CREATE_FIXED + i + 1])
			b[CREATE_FIXED + i] = '\\';
	put_le16(b, 57);
	put_le32(b + 4, 2);			/* Impersonation */
	put_le32(b + 24, access);
	put_le32(b + 32, FILE_SHARE_READ | FILE_SHARE_WRITE |
		 FILE_SHARE_DELETE);
	put_le32(b + 36, disposition);
	put_le32(b + 40, options);
	put_le16(b + 44, NB_SMB2_HDR + CREATE_FIXED);
	put_le16(b + 46, (uint16_t)n);
	len = CREATE_FIXED + (n ? n : 1);
	if (n == 0)
		b[CREATE_FIXED] = 0;
	if (maximal_access) {
		uint8_t *x;

		len = (len + 7) / 8 * 8;
		x = b + len;
		memset(x, 0, MXAC_LEN);
		put_le16(x + 4, 16);		/* NameOffset */
		put_le16(x + 6, 4);		/* NameLength */
		memcpy(x + 16, "MxAc", 4);
		put_le32(b + 48, (uint32_t)(NB_SMB2_HDR + len));
		put_le32(b + 52, MXAC_LEN);
		len += MXAC_LEN;
	}
	return len;
}

/**
 * nb_smb2_fid_body() - CLOSE or FLUSH of @fid (the two share a layout:
 * StructureSize 24, 6 bytes of flags/reserved, the FileId).
 * @b:       24 bytes
 * @command: SMB2_CLOSE or SMB2_FLUSH
 * @fid:     the file
 */
size_t nb_smb2_fid_body(uint8_t *b, uint16_t command, const uint8_t *fid)
{
	(void)command;
	memset(b, 0, 24);
	put_le16(b, 24);
	memcpy(b + 8, fid, NB_SMB2_FID_SIZE);
	return 24;
}

/**
 * nb_smb2_rw_body() - READ (49 bytes) or WRITE (48 bytes; the data goes
 * right after, at header offset 112) of @len bytes at @off.
 * @b:             49 bytes
 * @write:         WRITE rather than READ
 * @fid:           the file
 * @off:           file offset
 * @len:           bytes
 * @write_through: WRITE with SMB2_WRITEFLAG_WRITE_THROUGH
 */
size_t nb_smb2_rw_body(uint8_t *b, bool write, const uint8_t *fid,
		       uint64_t off, uint32_t len, bool write_through)
{
	memset(b, 0, 49);
	put_le16(b, 49);
	put_le32(b + 4, len);
	put_le64(b + 8, off);
	memcpy(b + 16, fid, NB_SMB2_FID_SIZE);
	if (!write) {
		b[2] = NB_SMB2_HDR + 16;	/* Padding: where data goes */
		return 49;
	}
	put_le16(b + 2, NB_SMB2_HDR + 48);	/* DataOffset */
	if (write_through)
		put_le32(b + 44, SMB2_WRITEFLAG_WRITE_THROUGH);
	return 48;
}

/**
 * nb_smb2_query_info_body() - QUERY_INFO of a file information class.
 * @b:          41 bytes
 * @fid:        the file
 * @info_class: FileInfoClass (MS-FSCC §2.4)
 * @out_len:    OutputBufferLength
 */
size_t nb_smb2_query_info_body(uint8_t *b, const uint8_t *fid,
			       uint8_t info_class, uint32_t out_len)
{
	memset(b, 0, 41);
	put_le16(b, 41);
	b[2] = SMB2_0_INFO_FILE;
	b[3] = info_class;
	put_le32(b + 4, out_len);
	memcpy(b + 24, fid, NB_SMB2_FID_SIZE);
	return 41;
}

/**
 * nb_smb2_set_basic_body() - SET_INFO FileBasicInformation (MS-FSCC
 * §2.4.7) changing only FileAttributes (zero times mean "leave as is").
 * @b:          72 bytes
 * @fid:        the file
 * @attributes: the new FileAttributes
 */
size_t nb_smb2_set_basic_body(uint8_t *b, const uint8_t *fid,
			      uint32_t attributes)
{
	memset(b, 0, 72);
	put_le16(b, 33);
	b[2] = SMB2_0_INFO_FILE;
	b[3] = 4;				/* FileBasicInformation */
	put_le32(b + 4, 40);
	put_le16(b + 8, NB_SMB2_HDR + 32);
	memcpy(b + 16, fid, NB_SMB2_FID_SIZE);
	put_le32(b + 32 + 32, attributes);
	return 72;
}

/**
 * nb_smb2_query_dir_body() - QUERY_DIRECTORY of "*" from the start
 * (SMB2_RESTART_SCANS).
 * @b:          34 bytes
 * @fid:        the directory
 * @info_class: FileInformationClass
 * @out_len:    OutputBufferLength
 */
size_t nb_smb2_query_dir_body(uint8_t *b, const uint8_t *fid,
			      uint8_t info_class, uint32_t out_len)
{
	memset(b, 0, 34);
	put_le16(b, 33);
	b[2] = info_class;
	b[3] = 0x01;				/* SMB2_RESTART_SCANS */
	memcpy(b + 8, fid, NB_SMB2_FID_SIZE);
	put_le16(b + 24, NB_SMB2_HDR + 32);
	put_le16(b + 26, 2);
	put_le32(b + 28, out_len);
	b[32] = '*';
	return 34;
}
