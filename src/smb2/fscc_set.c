// SPDX-License-Identifier: MIT
/*
 * SET_INFO input (fscc.h): the MS-FSCC 2.4 classes a client sets, decoded
 * into plain values with every length checked before it is used, and the
 * FILE_FULL_EA_INFORMATION / FILE_GET_EA_INFORMATION list codec. Each
 * decoder works on a copy of the caller's cursor.
 */
#include "smb2/fscc.h"

#include <errno.h>

#include "smb2/fscc_int.h"
#include "smb2/utf16.h"

/* A copy of @in, and whether it holds at least @n bytes. */
static bool take_copy(const struct smb2_buf *in, size_t n, struct smb2_buf *c)
{
	*c = *in;
	return sb_ok(c) && sb_remaining(c) >= n;
}

enum fscc_status fscc_dec_FILE_BASIC_INFORMATION(struct smb2_buf *in,
						 bool is_dir,
						 struct fscc_set_basic *out)
{
	struct fscc_time_set *t[4] = {
		&out->creation,
		&out->last_access,
		&out->last_write,
		&out->change,
	};
	struct smb2_buf c;
	uint64_t raw = 0;
	size_t i;

	/* 40 bytes, Reserved included: MS-FSA 2.1.5.15.2 compares with
	 * sizeof(FILE_BASIC_INFORMATION), and 36 is refused by Windows. */
	if (!take_copy(in, 40, &c))
		return FSCC_INFO_LENGTH_MISMATCH;
	for (i = 0; i < 4; i++) {
		sb_get_u64(&c, &raw);
		if (fscc_dec_time(raw, t[i]))
			return FSCC_INVALID_PARAMETER;
	}
	sb_get_u32(&c, &out->attributes);
	if (!is_dir && (out->attributes & FILE_ATTRIBUTE_DIRECTORY))
		return FSCC_INVALID_PARAMETER;
	if (is_dir && (out->attributes & FILE_ATTRIBUTE_TEMPORARY))
		return FSCC_INVALID_PARAMETER;
	return FSCC_OK;
}

/* FILE_RENAME_INFORMATION_TYPE_2 and FILE_LINK_INFORMATION_TYPE_2. */
static enum fscc_status dec_link(struct smb2_buf *in, char *name, size_t max,
				 struct fscc_set_link *out)
{
	struct smb2_buf c;
	const uint8_t *p;
	uint64_t root = 0;
	uint32_t nlen = 0;
	uint8_t replace = 0;
	size_t olen;
	int rc;

	if (!take_copy(in, 20, &c))
		return FSCC_INFO_LENGTH_MISMATCH;
	sb_get_u8(&c, &replace);
	sb_skip(&c, 7); /* Reserved: any value */
	sb_get_u64(&c, &root);
	sb_get_u32(&c, &nlen);
	if (root)
		return FSCC_INVALID_PARAMETER;
	if (nlen == 0 || (nlen & 1) || nlen > sb_remaining(&c))
		return FSCC_INVALID_PARAMETER;
	p = sb_take(&c, nlen);
	rc = utf16le_to_utf8(p, nlen, name, max, &olen, false);
	if (rc == -ENAMETOOLONG)
		return FSCC_NAME_TOO_LONG;
	if (rc)
		return FSCC_OBJECT_NAME_INVALID;
	out->replace_if_exists = replace != 0;
	out->name = name;
	out->name_len = olen;
	return FSCC_OK;
}

enum fscc_status
fscc_dec_FILE_RENAME_INFORMATION_TYPE_2(struct smb2_buf *in, char *name,
					size_t max, struct fscc_set_link *out)
{
	return dec_link(in, name, max, out);
}

enum fscc_status
fscc_dec_FILE_LINK_INFORMATION_TYPE_2(struct smb2_buf *in, char *name,
				      size_t max, struct fscc_set_link *out)
{
	return dec_link(in, name, max, out);
}

enum fscc_status fscc_dec_FILE_DISPOSITION_INFORMATION(struct smb2_buf *in,
						       bool *delete_pending)
{
	struct smb2_buf c;
	uint8_t v = 0;

	if (!take_copy(in, 1, &c))
		return FSCC_INFO_LENGTH_MISMATCH;
	sb_get_u8(&c, &v);
	*delete_pending = v != 0;
	return FSCC_OK;
}

#define DISPOSITION_EX_VALID                                                   \
	(FILE_DISPOSITION_DELETE | FILE_DISPOSITION_POSIX_SEMANTICS |          \
	 FILE_DISPOSITION_FORCE_IMAGE_SECTION_CHECK |                          \
	 FILE_DISPOSITION_ON_CLOSE |                                           \
	 FILE_DISPOSITION_IGNORE_READONLY_ATTRIBUTE)

enum fscc_status fscc_dec_FILE_DISPOSITION_INFORMATION_EX(struct smb2_buf *in,
							  uint32_t *flags)
{
	struct smb2_buf c;

	*flags = 0;
	if (!take_copy(in, 4, &c))
		return FSCC_INFO_LENGTH_MISMATCH;
	sb_get_u32(&c, flags);
	if (*flags & ~DISPOSITION_EX_VALID)
		return FSCC_INVALID_PARAMETER;
	return FSCC_OK;
}

/* One LARGE_INTEGER that must not be negative. */
static enum fscc_status dec_offset(struct smb2_buf *in, uint64_t *v)
{
	struct smb2_buf c;

	*v = 0;
	if (!take_copy(in, 8, &c))
		return FSCC_INFO_LENGTH_MISMATCH;
	sb_get_u64(&c, v);
	return *v > (uint64_t)INT64_MAX ? FSCC_INVALID_PARAMETER : FSCC_OK;
}

enum fscc_status fscc_dec_FILE_POSITION_INFORMATION(struct smb2_buf *in,
						    uint64_t *offset)
{
	return dec_offset(in, offset);
}

enum fscc_status fscc_dec_FILE_ALLOCATION_INFORMATION(struct smb2_buf *in,
						      uint64_t *size)
{
	return dec_offset(in, size);
}

enum fscc_status fscc_dec_FILE_END_OF_FILE_INFORMATION(struct smb2_buf *in,
						       uint64_t *eof)
{
	return dec_offset(in, eof);
}

#define MODE_SETTABLE                                                          \
	(FILE_WRITE_THROUGH | FILE_SEQUENTIAL_ONLY |                           \
	 FILE_SYNCHRONOUS_IO_ALERT | FILE_SYNCHRONOUS_IO_NONALERT)

/* MS-FSA 2.1.5.15.7. */
enum fscc_status fscc_dec_FILE_MODE_INFORMATION(struct smb2_buf *in,
						uint32_t *mode)
{
	const uint32_t both =
		FILE_SYNCHRONOUS_IO_ALERT | FILE_SYNCHRONOUS_IO_NONALERT;
	struct smb2_buf c;

	*mode = 0;
	if (!take_copy(in, 4, &c))
		return FSCC_INFO_LENGTH_MISMATCH;
	sb_get_u32(&c, mode);
	if ((*mode & ~MODE_SETTABLE) || (*mode & both) == both)
		return FSCC_INVALID_PARAMETER;
	return FSCC_OK;
}

/* ---- EA lists (MS-FSCC 2.4.15, 2.4.15.1) ---- */

#define EA_FULL_HDR 8 /* NextEntryOffset, Flags, EaNameLength, EaValueLength   \
		       */
#define EA_GET_HDR 5  /* NextEntryOffset, EaNameLength */

/* MS-FSCC 2.4.15: EaName is 8-bit, under 255 characters, and excludes
 * control characters and these. */
static bool ea_name_ok(const uint8_t *name, size_t len)
{
	static const char bad[] = "\"*+,/:;<=>?[\\]|";
	size_t i;

	if (len == 0 || len >= 255)
		return false;
	for (i = 0; i < len; i++) {
		if (name[i] < 0x20 || memchr(bad, name[i], sizeof(bad) - 1))
			return false;
	}
	return true;
}

static void ea_iter_init(struct fscc_ea_iter *it, const struct smb2_buf *in,
			 bool get)
{
	it->b = *in;
	it->next = in->pos;
	it->err = FSCC_OK;
	it->done = false;
	it->get = get;
	if (!sb_ok(in))
		it->err = FSCC_EA_LIST_INCONSISTENT;
	else if (in->pos == in->len)
		it->err = FSCC_INFO_LENGTH_MISMATCH;
}

void fscc_ea_iter_init(struct fscc_ea_iter *it, const struct smb2_buf *in)
{
	ea_iter_init(it, in, false);
}

void fscc_ea_iter_init_get(struct fscc_ea_iter *it, const struct smb2_buf *in)
{
	ea_iter_init(it, in, true);
}

/* Decode the entry at it->next into *@ea and find where the next begins:
 * every structural error is FSCC_EA_LIST_INCONSISTENT. */
static enum fscc_status ea_entry(struct fscc_ea_iter *it, struct fscc_ea *ea,
				 uint32_t *next)
{
	size_t hdr = it->get ? EA_GET_HDR : EA_FULL_HDR, rem, size;
	struct smb2_buf c;
	const uint8_t *nul;

	*next = 0;
	ea->name_len = 0;
	rem = it->b.len - it->next;
	if (!sb_range(&it->b, it->next, rem, &c) || rem < hdr)
		return FSCC_EA_LIST_INCONSISTENT;
	sb_get_u32(&c, next);
	ea->flags = 0;
	ea->value_len = 0;
	if (!it->get)
		sb_get_u8(&c, &ea->flags);
	sb_get_u8(&c, &ea->name_len);
	if (!it->get)
		sb_get_u16(&c, &ea->value_len);
	/* At most 5 + 255 + 1 + 65535: no wrap in size_t. */
	size = hdr + ea->name_len + 1u + ea->value_len;
	if (size > rem)
		return FSCC_EA_LIST_INCONSISTENT;
	ea->name = sb_take(&c, ea->name_len);
	nul = sb_take(&c, 1);
	ea->value = sb_take(&c, ea->value_len);
	if (!nul || *nul != 0)
		return FSCC_EA_LIST_INCONSISTENT;
	/* Forward only, aligned, and inside: no loop, no overrun. */
	if (*next && ((*next & 3) || *next < size || *next >= rem))
		return FSCC_EA_LIST_INCONSISTENT;
	return FSCC_OK;
}

enum fscc_status fscc_ea_next(struct fscc_ea_iter *it, struct fscc_ea *ea,
			      bool *end)
{
	enum fscc_status st;
	uint32_t next = 0;

	*end = false;
	if (it->err)
		return it->err;
	if (it->done) {
		*end = true;
		return FSCC_OK;
	}
	st = ea_entry(it, ea, &next);
	if (!st && !ea_name_ok(ea->name, ea->name_len))
		st = FSCC_INVALID_EA_NAME;
	if (!st && (ea->flags & ~FILE_NEED_EA))
		st = FSCC_INVALID_PARAMETER;
	if (st) {
		it->err = st;
		return st;
	}
	if (next)
		it->next += next;
	else
		it->done = true;
	return FSCC_OK;
}

enum fscc_status fscc_dec_FILE_FULL_EA_INFORMATION(const struct smb2_buf *in,
						   size_t *count)
{
	struct fscc_ea_iter it;
	enum fscc_status st;
	struct fscc_ea ea;
	bool end = false;
	size_t n = 0;

	fscc_ea_iter_init(&it, in);
	/* Each step moves at least 12 bytes forward, so this ends. */
	for (;;) {
		st = fscc_ea_next(&it, &ea, &end);
		if (st)
			return st;
		if (end)
			break;
		n++;
	}
	*count = n;
	return FSCC_OK;
}

enum fscc_status fscc_ea_append(struct fscc_list *l, const struct fscc_ea *ea)
{
	size_t size = EA_FULL_HDR + ea->name_len + 1u + ea->value_len, at;
	enum fscc_status st;

	st = fscc_list_reserve(l, size, &at);
	if (st)
		return st;
	sb_put_u32(l->b, 0); /* NextEntryOffset */
	sb_put_u8(l->b, ea->flags);
	sb_put_u8(l->b, ea->name_len);
	sb_put_u16(l->b, ea->value_len);
	sb_put_bytes(l->b, ea->name, ea->name_len);
	sb_put_u8(l->b, 0);
	sb_put_bytes(l->b, ea->value, ea->value_len);
	fscc_list_commit(l, at);
	return FSCC_OK;
}
