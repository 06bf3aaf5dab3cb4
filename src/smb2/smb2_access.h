/* SPDX-License-Identifier: MIT */
#ifndef NASD_SMB2_SMB2_ACCESS_H
#define NASD_SMB2_SMB2_ACCESS_H

/* Access masks of SMB opens (smb2_access.c). */

#include <stdbool.h>
#include <stdint.h>

#include "smb2/smb2_wire.h"
#include "state/file_state.h"

struct vfs_obj;
struct vfs_attr;
struct vfs_cred;

/*
 * smb2_access_map_generic() - @mask with GENERIC_READ/WRITE/EXECUTE/ALL
 * replaced by the file rights they stand for (MS-DTYP 2.4.3).
 */
uint32_t smb2_access_map_generic(uint32_t mask);

/*
 * smb2_access_maximal() - the rights the calling thread's credentials
 * (@cred, already applied) have on @o (attributes @a): read, write,
 * append and execute as the kernel would allow them; WRITE_DAC,
 * WRITE_OWNER and attribute writes for the owner and root; DELETE when
 * @parent (the directory holding the name; NULL for the share root)
 * lets entries be removed; nothing that writes when @ro. Attribute
 * reads, READ_CONTROL and SYNCHRONIZE are always granted. 0 or -errno.
 */
int smb2_access_maximal(struct vfs_obj *o, const struct vfs_attr *a,
			struct vfs_obj *parent, const struct vfs_cred *cred,
			bool ro, uint32_t *out);

/*
 * smb2_access_share_bits() / smb2_access_deny_bits() - the shared file
 * state's access and deny bits (state/file_state.h) of an open with
 * granted access @access and ShareAccess @share_access (MS-FSA
 * 2.1.5.1.2: only data and delete access take part in sharing).
 */
uint32_t smb2_access_share_bits(uint32_t access);
uint32_t smb2_access_deny_bits(uint32_t share_access);

#endif
