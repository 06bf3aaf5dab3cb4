// SPDX-License-Identifier: MIT
/* ECHO (MS-SMB2 §3.3.5.17). */
#include "smb2/smb2_int.h"

/** smb2_cmd_echo() - §2.2.28/§2.2.29: StructureSize 4 both ways. */
uint32_t smb2_cmd_echo(struct smb2_work *w, struct smb2_buf *body)
{
	(void)body;
	return sb_put_u16(&w->rsp, 4) && sb_put_u16(&w->rsp, 0)
		       ? STATUS_SUCCESS
		       : STATUS_INSUFFICIENT_RESOURCES;
}
