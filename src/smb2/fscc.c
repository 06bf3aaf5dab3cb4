// SPDX-License-Identifier: MIT
/*
 * MS-FSCC basics (fscc.h): NTSTATUS of each outcome, FILETIME and
 * attribute conversions, what a vfs_attr becomes on the wire, and the
 * NextEntryOffset chaining that directory, stream and EA lists share.
 */
#include "smb2/fscc.h"

#include <errno.h>

#include "smb2/fscc_int.h"
#include "smb2/utf16.h"

static const uint32_t fscc_status_nt[] = {
	[FSCC_OK] = 0x00000000,			  /* STATUS_SUCCESS */
	[FSCC_BUFFER_OVERFLOW] = 0x80000005,	  /* STATUS_BUFFER_OVERFLOW */
	[FSCC_INFO_LENGTH_MISMATCH] = 0xC0000004, /* ..._INFO_LENGTH_MISMATCH */
	[FSCC_BUFFER_TOO_SMALL] = 0xC0000023,	  /* STATUS_BUFFER_TOO_SMALL */
	[FSCC_INVALID_PARAMETER] = 0xC000000D,	  /* ..._INVALID_PARAMETER */
	[FSCC_OBJECT_NAME_INVALID] = 0xC0000033,  /* ..._OBJECT_NAME_INVALID */
	[FSCC_NAME_TOO_LONG] = 0xC0000106,	  /* STATUS_NAME_TOO_LONG */
	[FSCC_EA_LIST_INCONSISTENT] = 0x80000014, /* ..._EA_LIST_INCONSISTENT */
	[FSCC_INVALID_EA_NAME] = 0x80000013,	  /* STATUS_INVALID_EA_NAME */
	[FSCC_INVALID_SECURITY_DESCR] =
		0xC0000079,			/* ..._INVALID_SECURITY_DESCR */
	[FSCC_INVALID_INFO_CLASS] = 0xC0000003, /* ..._INVALID_INFO_CLASS */
	[FSCC_NO_SPACE] = 0x80000005,		/* STATUS_BUFFER_OVERFLOW */
};

uint32_t fscc_ntstatus(enum fscc_status s)
{
	if ((size_t)s >= sizeof(fscc_status_nt) / sizeof(fscc_status_nt[0]))
		return 0xC0000001; /* STATUS_UNSUCCESSFUL: not a status */
	return fscc_status_nt[s];
}

/* ---- Time ---- */

#define NSEC_PER_SEC 1000000000ll
#define FT_PER_SEC   10000000ll
/* Seconds from 1601-01-01 to 1970-01-01. */
#define FT_EPOCH_SECS 11644473600ll

uint64_t fscc_filetime_from_timespec(const struct timespec *ts)
{
	int64_t sec = ts->tv_sec, nsec = ts->tv_nsec, carry;
	uint64_t u, t100;

	if (nsec < 0 || nsec >= NSEC_PER_SEC) {
		carry = nsec / NSEC_PER_SEC;
		nsec %= NSEC_PER_SEC;
		if (nsec < 0) {
			nsec += NSEC_PER_SEC;
			carry--;
		}
		if (__builtin_add_overflow(sec, carry, &sec))
			return carry < 0 ? 0 : FSCC_FILETIME_MAX;
	}
	if (sec < -FT_EPOCH_SECS)
		return 0;
	/* Non-negative and below 2^63 + 2^34: exact in 64 unsigned bits. */
	u = (uint64_t)sec + (uint64_t)FT_EPOCH_SECS;
	t100 = (uint64_t)nsec / 100;
	if (u > (FSCC_FILETIME_MAX - t100) / FT_PER_SEC)
		return FSCC_FILETIME_MAX;
	return u * FT_PER_SEC + t100;
}

struct timespec fscc_timespec_from_filetime(uint64_t ft)
{
	struct timespec ts;

	if (ft > FSCC_FILETIME_MAX)
		ft = FSCC_FILETIME_MAX;
	ts.tv_sec = (time_t)((int64_t)(ft / FT_PER_SEC) - FT_EPOCH_SECS);
	ts.tv_nsec = (long)(ft % FT_PER_SEC) * 100;
	return ts;
}

enum fscc_status fscc_dec_time(uint64_t raw, struct fscc_time_set *out)
{
	/* LARGE_INTEGER: the wire value is signed (two's complement). */
	out->filetime = raw;
	out->ts.tv_sec = 0;
	out->ts.tv_nsec = 0;
	if (raw == 0) {
		out->op = FSCC_TIME_KEEP;
	} else if (raw == UINT64_MAX) {
		out->op = FSCC_TIME_FREEZE;
	} else if (raw == UINT64_MAX - 1) {
		out->op = FSCC_TIME_THAW;
	} else if (raw > FSCC_FILETIME_MAX) {
		return FSCC_INVALID_PARAMETER; /* below -2 */
	} else {
		out->op = FSCC_TIME_SET;
		out->ts = fscc_timespec_from_filetime(raw);
	}
	return FSCC_OK;
}

/* ---- Attributes ---- */

uint32_t fscc_attributes(const struct vfs_attr *a, unsigned int flags)
{
	uint32_t r = 0;

	if (a->type == VFS_DIR)
		return FILE_ATTRIBUTE_DIRECTORY;
	r |= FILE_ATTRIBUTE_ARCHIVE;
	if (!(a->mode & 0222))
		r |= FILE_ATTRIBUTE_READONLY;
	if (a->type == VFS_REG && a->used < a->size)
		r |= FILE_ATTRIBUTE_SPARSE_FILE;
	if (a->type == VFS_LNK && (flags & FSCC_ATTR_SYMLINK_REPARSE))
		r |= FILE_ATTRIBUTE_REPARSE_POINT;
	return fscc_attributes_normalize(r);
}

void fscc_file_info_apply_dos(struct fscc_file_info *fi,
			      const struct vfs_dosattr *d)
{
	uint32_t type_bits = FILE_ATTRIBUTE_DIRECTORY |
			     FILE_ATTRIBUTE_REPARSE_POINT;

	if (d->has_create_time)
		fi->creation_time = d->create_time;
	if (!d->has_attrib)
		return;
	if (!fi->directory)
		type_bits |= FILE_ATTRIBUTE_READONLY;
	fi->attributes = (fi->attributes & type_bits) |
			 (d->attrib & FSCC_ATTR_KEPT & ~type_bits);
	if (fi->directory)
		fi->attributes &= ~(uint32_t)(FILE_ATTRIBUTE_SPARSE_FILE |
					      FILE_ATTRIBUTE_TEMPORARY);
}

uint32_t fscc_reparse_tag(const struct vfs_attr *a, unsigned int flags)
{
	if (a->type == VFS_LNK && (flags & FSCC_ATTR_SYMLINK_REPARSE))
		return IO_REPARSE_TAG_SYMLINK;
	return 0;
}

bool fscc_name_hidden(const char *name, size_t len)
{
	if (len == 0 || name[0] != '.')
		return false;
	return !(len == 1 || (len == 2 && name[1] == '.'));
}

uint32_t fscc_attributes_normalize(uint32_t attrs)
{
	attrs &= ~FILE_ATTRIBUTE_NORMAL;
	return attrs ? attrs : FILE_ATTRIBUTE_NORMAL;
}

uint64_t fscc_allocation_size(const struct vfs_attr *a)
{
	return a->type == VFS_DIR ? 0 : a->used;
}

uint32_t fscc_volume_serial(uint32_t export_id)
{
	/* MurmurHash3's finalizer: every input bit moves every output bit. */
	uint32_t h = export_id ^ 0x6e617364u; /* "nasd" */

	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h ? h : 1;
}

static int timespec_cmp(const struct timespec *x, const struct timespec *y)
{
	if (x->tv_sec != y->tv_sec)
		return x->tv_sec < y->tv_sec ? -1 : 1;
	if (x->tv_nsec != y->tv_nsec)
		return x->tv_nsec < y->tv_nsec ? -1 : 1;
	return 0;
}

void fscc_file_info_from_attr(struct fscc_file_info *fi,
			      const struct vfs_attr *a, unsigned int flags)
{
	const struct timespec *birth;
	bool dir = a->type == VFS_DIR;

	/* Samba's calc_create_time_stat(): the earliest of the three, but
	 * an atime of 0 (never kept) does not count. */
	birth = timespec_cmp(&a->ctime, &a->mtime) < 0 ? &a->ctime : &a->mtime;
	if ((a->atime.tv_sec || a->atime.tv_nsec) &&
	    timespec_cmp(&a->atime, birth) < 0)
		birth = &a->atime;
	fi->creation_time = fscc_filetime_from_timespec(birth);
	fi->last_access_time = fscc_filetime_from_timespec(&a->atime);
	fi->last_write_time = fscc_filetime_from_timespec(&a->mtime);
	fi->change_time = fscc_filetime_from_timespec(&a->ctime);
	fi->allocation_size = fscc_allocation_size(a);
	fi->end_of_file = dir ? 0 : a->size;
	fi->file_id = a->fileid;
	fi->attributes = fscc_attributes(a, flags);
	fi->reparse_tag = fscc_reparse_tag(a, flags);
	fi->nlink = dir ? 1 : a->nlink;
	fi->ea_size = 0;
	fi->directory = dir;
	fi->delete_pending = false;
}

/* ---- UTF-16 output ---- */

long fscc_utf16_len(const char *s, size_t len)
{
	long n = utf16le_len_of_utf8(s, len);

	return n < 0 ? -1 : n;
}

/* The length of the UTF-8 sequence led by @c, 0 for a non-lead byte. */
static size_t utf8_seq_len(uint8_t c)
{
	if (c < 0x80)
		return 1;
	if (c < 0xc0)
		return 0;
	if (c < 0xe0)
		return 2;
	if (c < 0xf0)
		return 3;
	return c < 0xf8 ? 4 : 0;
}

size_t fscc_put_utf16_trunc(struct smb2_buf *b, const char *s, size_t len,
			    size_t room, bool backslash)
{
	size_t i = 0, w = 0, k, n, c;
	uint8_t u[4];

	/* One code point at a time, so that a truncated name costs no
	 * buffer of its whole UTF-16 form. */
	while (i < len && w < room) {
		k = utf8_seq_len((uint8_t)s[i]);
		if (!k || k > len - i)
			break;
		if (backslash && s[i] == '/') {
			put_le16(u, '\\');
			n = 2;
		} else if (utf8_to_utf16le(s + i, k, u, sizeof(u), &n)) {
			break;
		}
		c = n < room - w ? n : room - w;
		if (!sb_put_bytes(b, u, c))
			break;
		w += c;
		i += k;
	}
	return w;
}

bool fscc_put_utf16(struct smb2_buf *b, const char *s, size_t len, size_t n16,
		    bool backslash)
{
	if (sb_remaining(b) < n16) {
		sb_poison(b);
		return false;
	}
	return fscc_put_utf16_trunc(b, s, len, n16, backslash) == n16;
}

/* ---- Chained lists ---- */

void fscc_list_init(struct fscc_list *l, struct smb2_buf *b, uint32_t align)
{
	l->b = b;
	l->start = b->pos;
	l->last = b->pos;
	l->count = 0;
	l->align = align;
}

enum fscc_status fscc_list_reserve(struct fscc_list *l, size_t size, size_t *at)
{
	struct smb2_buf *b = l->b;
	size_t pad = 0, rel;

	if (!sb_ok(b))
		return FSCC_NO_SPACE;
	if (l->count) {
		rel = b->pos - l->start;
		pad = (l->align - (rel & (l->align - 1))) & (l->align - 1);
	}
	if (sb_remaining(b) < pad || sb_remaining(b) - pad < size)
		return FSCC_NO_SPACE;
	/* NextEntryOffset is 32 bits: a list cannot span 4 GiB, but check
	 * rather than trust the caller's buffer size. */
	if (l->count && b->pos + pad - l->last > UINT32_MAX)
		return FSCC_NO_SPACE;
	if (!sb_put_zero(b, pad))
		return FSCC_NO_SPACE;
	if (l->count)
		put_le32(b->base + l->last, (uint32_t)(b->pos - l->last));
	*at = b->pos;
	return FSCC_OK;
}

void fscc_list_commit(struct fscc_list *l, size_t at)
{
	l->last = at;
	l->count++;
}
