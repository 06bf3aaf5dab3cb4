// SPDX-License-Identifier: MIT
/*
 * CHANGE_NOTIFY (MS-SMB2 §2.2.35, §2.2.36, §3.3.5.19): accepted and left
 * pending until CANCEL, the close of the directory, TREE_DISCONNECT or
 * LOGOFF (SMB3.md tier 1: a client must never see it refused; macOS
 * hangs on unmount otherwise). No change is reported yet: watching the
 * directory (inotify) comes with leases in tier 2.
 */
#include "smb2/smb2_int.h"

#include "smb2/smb2_async.h"
#include "smb2/smb2_open.h"

#define SMB2_WATCH_TREE 0x0001
/* CompletionFilter bits (§2.2.35): FILE_NOTIFY_CHANGE_FILE_NAME .. _STREAM_WRITE */
#define FILE_NOTIFY_VALID_MASK 0x00000fffu

uint32_t smb2_cmd_change_notify(struct smb2_work *w, struct smb2_buf *body)
{
	struct smb2_open *o;
	uint16_t ssize, flags;
	uint32_t out_len, filter, st;
	uint64_t p, v;

	if (!sb_get_u16(body, &ssize) || !sb_get_u16(body, &flags) ||
	    !sb_get_u32(body, &out_len) || !sb_get_u64(body, &p) ||
	    !sb_get_u64(body, &v) || !sb_get_u32(body, &filter))
		return STATUS_INVALID_PARAMETER;
	st = smb2_open_lookup(w, p, v, &o);
	if (st != STATUS_SUCCESS)
		return st;
	if (!o->is_dir || out_len > SMB2_MAX_IO ||
	    (flags & ~SMB2_WATCH_TREE) || !filter ||
	    (filter & ~FILE_NOTIFY_VALID_MASK)) {
		st = STATUS_INVALID_PARAMETER;
		goto out_put;
	}
	if (!(o->access & FILE_LIST_DIRECTORY)) {
		st = STATUS_ACCESS_DENIED;
		goto out_put;
	}
	st = smb2_async_start(w, o, NULL, NULL) ? STATUS_PENDING
						: STATUS_INSUFFICIENT_RESOURCES;
out_put:
	smb2_open_put(o);
	return st;
}
