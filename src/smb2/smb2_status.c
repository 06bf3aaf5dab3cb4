// SPDX-License-Identifier: MIT
/*
 * errno -> NTSTATUS, one table, aware of the command (STYLE.md: one
 * mapping per protocol): handlers never write status chains inline.
 * Samba's map (NT_STATUS_* for each errno) was the model for the
 * defaults; the commands override where MS-SMB2 and MS-FSA name another
 * answer for the same cause.
 */
#include "smb2/smb2_int.h"

#include <errno.h>

#include "core/err.h"

static const uint32_t by_errno[] = {
	[EPERM] = STATUS_ACCESS_DENIED,
	[ENOENT] = STATUS_OBJECT_NAME_NOT_FOUND,
	[EIO] = STATUS_UNEXPECTED_IO_ERROR,
	[ENXIO] = STATUS_NO_SUCH_DEVICE,
	[EBADF] = STATUS_INVALID_HANDLE,
	[EAGAIN] = STATUS_FILE_LOCK_CONFLICT,
	[ENOMEM] = STATUS_NO_MEMORY,
	[EACCES] = STATUS_ACCESS_DENIED,
	[EBUSY] = STATUS_SHARING_VIOLATION,
	[EEXIST] = STATUS_OBJECT_NAME_COLLISION,
	[EXDEV] = STATUS_NOT_SAME_DEVICE,
	[ENOTDIR] = STATUS_NOT_A_DIRECTORY,
	[EISDIR] = STATUS_FILE_IS_A_DIRECTORY,
	[EINVAL] = STATUS_INVALID_PARAMETER,
	[ENFILE] = STATUS_TOO_MANY_OPENED_FILES,
	[EMFILE] = STATUS_TOO_MANY_OPENED_FILES,
	[ETXTBSY] = STATUS_SHARING_VIOLATION,
	[EFBIG] = STATUS_DISK_FULL,
	[ENOSPC] = STATUS_DISK_FULL,
	[EROFS] = STATUS_MEDIA_WRITE_PROTECTED,
	[EMLINK] = STATUS_TOO_MANY_LINKS,
	[ERANGE] = STATUS_BUFFER_TOO_SMALL,
	[ENAMETOOLONG] = STATUS_NAME_TOO_LONG,
	[ENOTEMPTY] = STATUS_DIRECTORY_NOT_EMPTY,
	[ELOOP] = STATUS_OBJECT_PATH_NOT_FOUND,
	[ENODATA] = STATUS_NO_EAS_ON_FILE,
	[EOPNOTSUPP] = STATUS_NOT_SUPPORTED,
	[EDQUOT] = STATUS_DISK_FULL,
	[ESTALE] = STATUS_FILE_DELETED,
	[EBADHANDLE] = STATUS_INVALID_HANDLE,
	[ENOTSUPP] = STATUS_NOT_SUPPORTED,
	[ESERVERFAULT] = STATUS_INTERNAL_ERROR,
	[EJUKEBOX] = STATUS_INSUFFICIENT_RESOURCES,
	[EIDRM] = STATUS_DELETE_PENDING,
};

uint32_t smb2_status(uint16_t command, int err)
{
	unsigned int e = err < 0 ? -(unsigned int)err : (unsigned int)err;

	if (!e)
		return STATUS_SUCCESS;
	switch (command) {
	case SMB2_CREATE:
		/* a middle component that is missing or no directory */
		if (e == ENOTDIR)
			return STATUS_OBJECT_PATH_NOT_FOUND;
		break;
	case SMB2_LOCK:
		/* MS-FSA 2.1.5.8: a conflicting range, not an I/O one */
		if (e == EAGAIN)
			return STATUS_LOCK_NOT_GRANTED;
		if (e == ENOENT)
			return STATUS_RANGE_NOT_LOCKED;
		if (e == ENOSPC)
			return STATUS_INSUFFICIENT_RESOURCES;
		break;
	default:
		break;
	}
	if (e < sizeof(by_errno) / sizeof(by_errno[0]) && by_errno[e])
		return by_errno[e];
	return STATUS_INTERNAL_ERROR;
}
