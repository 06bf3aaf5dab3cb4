/* SPDX-License-Identifier: MIT */
#ifndef NASD_SMB2_SD_H
#define NASD_SMB2_SD_H

/*
 * Security descriptors (MS-DTYP 2.4.6, self-relative form) for QUERY_INFO
 * and SET_INFO SMB2_0_INFO_SECURITY and the SecD create context, mapped to
 * and from what the filesystem keeps: an owner uid, a group gid and the
 * permission bits (MS-SMB2 §3.3.5.20.3, §3.3.5.21.3). What a client sets is
 * also kept whole where it can be (smb2_acl.h); this is the descriptor of
 * a file that keeps none, or whose kept one went stale.
 *
 * Identities are Samba's Unix SIDs: S-1-22-1-<uid> for a user and
 * S-1-22-2-<gid> for a group; "other" is Everyone, S-1-1-0.
 *
 * The DACL built from a mode, in this order:
 * - an ACCESS_DENIED ACE for the owner of the data bits Everyone has and
 *   the owner lacks, and one for the group likewise (only when the mode
 *   has such bits, e.g. 0604: Windows grants Everyone's ACE to the owner
 *   and the group too, so without them it would give more than the mode);
 * - ACCESS_ALLOWED ACEs for the owner, the group and Everyone, each with
 *   Samba's mapping of its rwx bits ("acl map full control = yes", the
 *   default): rwx is FILE_ALL_ACCESS; otherwise r FILE_GENERIC_READ, w
 *   FILE_GENERIC_WRITE (and FILE_DELETE_CHILD on a directory), x
 *   FILE_GENERIC_EXECUTE; nothing is an empty mask.
 * The owner's ACE also holds READ_CONTROL, WRITE_DAC, FILE_READ_ATTRIBUTES
 * and FILE_WRITE_ATTRIBUTES, which the kernel grants the owner whatever
 * the mode (chmod, utimes). Samba adds WRITE_DAC | WRITE_OWNER | DELETE
 * only under "dos filemode = yes"; WRITE_OWNER is not true on Linux
 * (chown needs CAP_CHOWN), and DELETE depends on the parent directory.
 * No ACE is inheritable: a file created where no kept descriptor says
 * otherwise gets its mode, not ACEs (smb2_acl_inherit()).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "smb2/fscc.h"
#include "smb2/smb2_buf.h"

/* MS-SMB2 2.2.37: AdditionalInformation for SMB2_0_INFO_SECURITY. */
#define OWNER_SECURITY_INFORMATION     0x00000001u
#define GROUP_SECURITY_INFORMATION     0x00000002u
#define DACL_SECURITY_INFORMATION      0x00000004u
#define SACL_SECURITY_INFORMATION      0x00000008u
#define LABEL_SECURITY_INFORMATION     0x00000010u
#define ATTRIBUTE_SECURITY_INFORMATION 0x00000020u
#define SCOPE_SECURITY_INFORMATION     0x00000040u
#define BACKUP_SECURITY_INFORMATION    0x00010000u

/* MS-DTYP 2.4.6 SECURITY_DESCRIPTOR Control. */
#define SE_OWNER_DEFAULTED	 0x0001u
#define SE_GROUP_DEFAULTED	 0x0002u
#define SE_DACL_PRESENT		 0x0004u
#define SE_DACL_DEFAULTED	 0x0008u
#define SE_SACL_PRESENT		 0x0010u
#define SE_SACL_DEFAULTED	 0x0020u
#define SE_DACL_TRUSTED		 0x0040u
#define SE_SERVER_SECURITY	 0x0080u
#define SE_DACL_AUTO_INHERIT_REQ 0x0100u
#define SE_SACL_AUTO_INHERIT_REQ 0x0200u
#define SE_DACL_AUTO_INHERITED	 0x0400u
#define SE_SACL_AUTO_INHERITED	 0x0800u
#define SE_DACL_PROTECTED	 0x1000u
#define SE_SACL_PROTECTED	 0x2000u
#define SE_RM_CONTROL_VALID	 0x4000u
#define SE_SELF_RELATIVE	 0x8000u

/* What a descriptor is synthesized from. */
struct sd_unix {
	uint32_t uid;
	uint32_t gid;
	uint32_t mode; /* only the 0777 bits are used */
	bool is_dir;
};

/*
 * sd_size() - the bytes sd_enc_SECURITY_DESCRIPTOR() writes for @u and the
 * AdditionalInformation @secinfo.
 */
size_t sd_size(const struct sd_unix *u, uint32_t secinfo);

/*
 * sd_enc_SECURITY_DESCRIPTOR() - write the self-relative descriptor of @u
 * at @out's position, with the owner, group and DACL that @secinfo asks
 * (OWNER/GROUP/DACL_SECURITY_INFORMATION; other bits are ignored, so a
 * SACL request gets a descriptor without one: nasd keeps none). Control
 * is SE_SELF_RELATIVE, plus SE_DACL_PRESENT with a DACL. Layout: header,
 * owner, group, DACL. *@needed gets the size either way. When it does not
 * fit in sb_remaining(out): FSCC_BUFFER_TOO_SMALL and nothing written
 * (MS-SMB2 §3.3.5.20.3: the engine returns *@needed in the error data).
 */
enum fscc_status sd_enc_SECURITY_DESCRIPTOR(struct smb2_buf *out,
					    const struct sd_unix *u,
					    uint32_t secinfo, size_t *needed);

/* Why a DACL did not map to a mode exactly (struct sd_parsed.lossy). */
#define SD_LOSSY_SID                                                           \
	0x1 /* an ACE for a SID other than the owner,                          \
	       the group or Everyone: ignored */
#define SD_LOSSY_ACE                                                           \
	0x2 /* an ACE type other than plain allow/deny                         \
	       (object, callback, audit...): ignored */
#define SD_LOSSY_INHERIT                                                       \
	0x4 /* inherit-only ACEs: ignored (they would                          \
	       govern new children) */

/* A client's descriptor as nasd understands it. */
struct sd_parsed {
	uint16_t control;
	bool has_owner;	 /* an owner SID is present */
	bool owner_unix; /* ... and it is S-1-22-1-<uid> */
	uint32_t uid;
	bool has_group;
	bool group_unix; /* S-1-22-2-<gid> */
	uint32_t gid;
	bool has_sacl;	/* SE_SACL_PRESENT with a SACL */
	bool has_dacl;	/* SE_DACL_PRESENT */
	bool null_dacl; /* ... with no ACL: everyone, everything */
	uint32_t mode;	/* with has_dacl: the 0777 bits it grants */
	uint32_t lossy; /* SD_LOSSY_*: 0 when mode says it all */
};

/*
 * sd_dec_SECURITY_DESCRIPTOR() - parse the self-relative descriptor in @in
 * (from in->pos to in->len; borrowed) into *@out. Everything is checked:
 * at least the 20-byte header, Revision 1, SE_SELF_RELATIVE set, each
 * nonzero offset past the header with its SID or ACL wholly inside the
 * buffer, SID revision 1 with at most 15 sub-authorities, ACL revision 2
 * or 4 with an AclSize of at least 8 that fits, AceCount ACEs inside the
 * AclSize, each AceSize a multiple of 4 of at least the ACE's own fields
 * (with its SID). Anything else is FSCC_INVALID_SECURITY_DESCR.
 *
 * The DACL's mode is what Windows' evaluation would grant each class, ACE
 * by ACE in order (a bit is decided by the first ACE that names it): the
 * owner class is the descriptor's owner SID (or S-1-22-1-@cur_uid when it
 * has none) and Everyone, the group class its group SID (or
 * S-1-22-2-@cur_gid) and Everyone, the other class Everyone. An ACE's
 * mask gives r for FILE_READ_DATA or GENERIC_READ, w for
 * FILE_WRITE_DATA, FILE_APPEND_DATA or GENERIC_WRITE, x for FILE_EXECUTE
 * or GENERIC_EXECUTE, rwx for GENERIC_ALL. A NULL DACL is 0777. What
 * cannot be said in a mode is left out and flagged in ->lossy; whether
 * that fails the request (SecD is strict in tier 1) is the engine's call.
 */
enum fscc_status sd_dec_SECURITY_DESCRIPTOR(const struct smb2_buf *in,
					    uint32_t cur_uid, uint32_t cur_gid,
					    struct sd_parsed *out);

#endif
