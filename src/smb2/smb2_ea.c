// SPDX-License-Identifier: MIT
/*
 * Extended attributes (MS-FSCC 2.4.15, MS-FSA 2.1.5.12.x / 2.1.5.15.x)
 * kept as user. xattrs, as Samba keeps them ("ea support"), so a share
 * moved between the two keeps its EAs: EA "NAME" is xattr "user.NAME".
 * EA names compare ignoring case (ASCII, MS-FSCC 2.4.15); a name is kept
 * as it was first set. xattrs that are Samba's own (DOS attributes,
 * streams, ACL caches) are not EAs and are neither listed nor settable.
 *
 * Entry points: the ExtA create context and SET_INFO FileFullEaInformation
 * (smb2_ea_apply), QUERY_INFO FileFullEaInformation (smb2_ea_query) and
 * EaSize (smb2_ea_size).
 */
#include "smb2/smb2_ea.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "smb2/fscc.h"
#include "smb2/smb2_int.h"
#include "vfs/vfs.h"

#define EA_PREFIX     "user."
#define EA_PREFIX_LEN 5
#define EA_NAME_MAX   254 /* a u8 length, 255 refused (MS-FSCC 2.4.15) */

/* Samba's xattrs under user. that are not EAs. */
static bool ea_hidden(const char *ea)
{
	static const char *const own[] = {
		"DOSATTRIB", "DosStream.", "SAMBA_PAI", "SAMBA_",
	};
	size_t i;

	for (i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (!strncasecmp(ea, own[i], strlen(own[i])))
			return true;
	return false;
}

/* "user." + @name (@len bytes) into @x; false when it is not an EA name. */
static bool xname_of(const uint8_t *name, size_t len, char *x, size_t size)
{
	if (!len || len > EA_NAME_MAX || EA_PREFIX_LEN + len + 1 > size ||
	    memchr(name, 0, len))
		return false;
	memcpy(x, EA_PREFIX, EA_PREFIX_LEN);
	memcpy(x + EA_PREFIX_LEN, name, len);
	x[EA_PREFIX_LEN + len] = '\0';
	return !ea_hidden(x + EA_PREFIX_LEN);
}

/* Next EA name of @list (from *@at), or NULL at the end. */
static const char *next_ea(const char *list, size_t len, size_t *at)
{
	while (*at < len) {
		const char *x = list + *at;

		*at += strlen(x) + 1;
		if (!strncmp(x, EA_PREFIX, EA_PREFIX_LEN) &&
		    x[EA_PREFIX_LEN] && strlen(x) - EA_PREFIX_LEN <= EA_NAME_MAX &&
		    !ea_hidden(x + EA_PREFIX_LEN))
			return x;
	}
	return NULL;
}

/* The xattr name in @list that is @x ignoring case, or NULL. */
static const char *find_ci(const char *list, size_t len, const char *x)
{
	size_t at = 0;
	const char *n;

	while ((n = next_ea(list, len, &at)) != NULL)
		if (!strcasecmp(n, x))
			return n;
	return NULL;
}

static uint32_t ea_status(int err)
{
	switch (err) {
	case -ENOTSUP:
	case -EPERM:
		return STATUS_EAS_NOT_SUPPORTED;
	case -E2BIG:
	case -ENOSPC:
	case -EDQUOT:
		return STATUS_EA_TOO_LARGE;
	case -EACCES:
		return STATUS_ACCESS_DENIED;
	case -EROFS:
		return STATUS_MEDIA_WRITE_PROTECTED;
	case -ENOMEM:
		return STATUS_INSUFFICIENT_RESOURCES;
	default:
		return STATUS_INTERNAL_ERROR;
	}
}

uint32_t smb2_ea_apply(struct vfs_obj *o, const struct smb2_buf *list)
{
	char x[EA_PREFIX_LEN + EA_NAME_MAX + 1];
	struct fscc_ea_iter it;
	struct fscc_ea ea;
	const char *old;
	char *names;
	ssize_t nlen;
	uint32_t st;
	bool end;
	int err;

	/* Checked whole before anything is applied. */
	fscc_ea_iter_init(&it, list);
	for (;;) {
		enum fscc_status fs = fscc_ea_next(&it, &ea, &end);

		if (fs != FSCC_OK)
			return fscc_ntstatus(fs);
		if (end)
			break;
		if (!xname_of(ea.name, ea.name_len, x, sizeof(x)))
			return STATUS_INVALID_EA_NAME;
	}
	nlen = vfs_xattr_names(o, NULL, &names);
	if (nlen < 0)
		return ea_status((int)nlen);
	st = STATUS_SUCCESS;
	fscc_ea_iter_init(&it, list);
	for (;;) {
		if (fscc_ea_next(&it, &ea, &end) != FSCC_OK || end)
			break;
		(void)xname_of(ea.name, ea.name_len, x, sizeof(x));
		old = names ? find_ci(names, (size_t)nlen, x) : NULL;
		/* The name keeps its first spelling; a value of 0 bytes
		 * deletes (deleting what is not there is no error). */
		if (ea.value_len)
			err = vfs_xattr_set(o, old ? old : x, ea.value,
					    ea.value_len, VFS_XATTR_ANY);
		else
			err = old ? vfs_xattr_remove(o, old) : 0;
		if (err == -ENODATA)
			err = 0;
		if (err) {
			st = ea_status(err);
			break;
		}
	}
	free(names);
	return st;
}

/* Append EA @x (an xattr name) with its value to @l; @missing: write it
 * with no value when it does not exist (a GET list names it). */
static enum fscc_status append_one(struct vfs_obj *o, struct fscc_list *l,
				   const char *x, uint8_t *val, bool missing,
				   int *err)
{
	struct fscc_ea ea = { 0 };
	ssize_t n;

	n = vfs_xattr_get(o, x, val, VFS_XATTR_VALUE_MAX);
	if (n == -ENODATA && missing)
		n = 0;
	if (n < 0) {
		*err = (int)n;
		return FSCC_OK;
	}
	ea.name = (const uint8_t *)x + EA_PREFIX_LEN;
	ea.name_len = (uint8_t)(strlen(x) - EA_PREFIX_LEN);
	ea.value = val;
	ea.value_len = n > 0xffff ? 0xffff : (uint16_t)n;
	return fscc_ea_append(l, &ea);
}

/* MS-FSA 2.1.5.12.5: the EAs a GET list names, in its order, each with
 * no value when the file lacks it. */
static uint32_t query_named(struct vfs_obj *o, const struct smb2_buf *get,
			    uint32_t flags, const char *names, size_t nlen,
			    uint8_t *val, struct fscc_list *l)
{
	char x[EA_PREFIX_LEN + EA_NAME_MAX + 1];
	struct fscc_ea_iter it;
	enum fscc_status fs;
	struct fscc_ea ea;
	const char *n;
	bool end;
	int err = 0;

	fscc_ea_iter_init_get(&it, get);
	for (;;) {
		fs = fscc_ea_next(&it, &ea, &end);
		if (fs != FSCC_OK)
			return fscc_ntstatus(fs);
		if (end)
			return STATUS_SUCCESS;
		if (!xname_of(ea.name, ea.name_len, x, sizeof(x)))
			return STATUS_INVALID_EA_NAME;
		n = names ? find_ci(names, nlen, x) : NULL;
		fs = append_one(o, l, n ? n : x, val, true, &err);
		if (err)
			return ea_status(err);
		if (fs == FSCC_NO_SPACE)
			return l->count ? STATUS_BUFFER_OVERFLOW
					: STATUS_BUFFER_TOO_SMALL;
		if (flags & SL_RETURN_SINGLE_ENTRY)
			return STATUS_SUCCESS;
	}
}

/* The open's enumeration: from where it stands, the start, or an index
 * (1-based, MS-FSA 2.1.5.12.5). */
static uint32_t query_enum(struct smb2_open *o, uint32_t flags,
			   uint32_t ea_index, const char *names, size_t nlen,
			   uint8_t *val, struct fscc_list *l)
{
	uint32_t index, i, st = STATUS_SUCCESS;
	enum fscc_status fs;
	const char *n;
	size_t at = 0;
	bool any = false;
	int err;

	pthread_mutex_lock(&o->mu);
	if (flags & SL_RESTART_SCAN)
		o->ea_index = 0;
	index = o->ea_index;
	pthread_mutex_unlock(&o->mu);
	if (flags & SL_INDEX_SPECIFIED)
		index = ea_index ? ea_index - 1 : 0;
	for (i = 0; names && (n = next_ea(names, nlen, &at)); i++) {
		any = true;
		if (i < index)
			continue;
		err = 0;
		fs = append_one(o->obj, l, n, val, false, &err);
		if (err == -ENODATA) /* removed meanwhile */
			continue;
		if (err)
			return ea_status(err);
		if (fs == FSCC_NO_SPACE) {
			st = l->count ? STATUS_BUFFER_OVERFLOW
				      : STATUS_BUFFER_TOO_SMALL;
			break;
		}
		index = i + 1;
		if (flags & SL_RETURN_SINGLE_ENTRY)
			break;
	}
	if (!any)
		return STATUS_NO_EAS_ON_FILE;
	if (!l->count && st == STATUS_SUCCESS)
		return STATUS_NO_MORE_EAS;
	pthread_mutex_lock(&o->mu);
	o->ea_index = index;
	pthread_mutex_unlock(&o->mu);
	return st;
}

uint32_t smb2_ea_query(struct smb2_open *o, const struct smb2_buf *get,
		       uint32_t flags, uint32_t ea_index, struct smb2_buf *out)
{
	struct fscc_list l;
	char *names = NULL;
	uint8_t *val;
	ssize_t nlen;
	uint32_t st;

	val = malloc(VFS_XATTR_VALUE_MAX);
	if (!val)
		return STATUS_INSUFFICIENT_RESOURCES;
	nlen = vfs_xattr_names(o->obj, NULL, &names);
	if (nlen < 0) {
		free(val);
		return ea_status((int)nlen);
	}
	fscc_list_init(&l, out, 4);
	if (get && get->len)
		st = query_named(o->obj, get, flags, names, (size_t)nlen, val,
				 &l);
	else
		st = query_enum(o, flags, ea_index, names, (size_t)nlen, val,
				&l);
	free(names);
	free(val);
	return st;
}

uint32_t smb2_ea_size(struct vfs_obj *o, const struct vfs_attr *a)
{
	char *names;
	const char *n;
	ssize_t nlen, v;
	size_t at = 0;
	uint64_t size = 0;

	nlen = vfs_xattr_names(o, a, &names);
	if (nlen <= 0)
		return 0;
	/* MS-FSA 2.1.5.12.10: what FILE_FULL_EA_INFORMATION takes, each
	 * entry padded to 4 bytes but for the last. */
	while ((n = next_ea(names, (size_t)nlen, &at)) != NULL) {
		v = vfs_xattr_get(o, n, NULL, 0);
		if (v < 0)
			continue;
		size = (size + 3) & ~3ull;
		size += 8 + strlen(n) - EA_PREFIX_LEN + 1 + (uint64_t)v;
	}
	free(names);
	return size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
}
