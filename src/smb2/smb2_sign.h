/* SPDX-License-Identifier: MIT */
#ifndef NASD_SMB2_SMB2_SIGN_H
#define NASD_SMB2_SMB2_SIGN_H

/*
 * Signing in the engine (MS-SMB2 §3.3.5.2.4, §3.3.4.1.1): which requests
 * must be signed and are verified, which responses are signed, with the
 * session's key (smb2/crypto.h computes).
 */

#include "smb2/smb2_int.h"

/*
 * smb2_sign_check_request() - the current command of @w, with its session
 * found: a signed request is verified (constant time) against the
 * session's key; an unsigned one on a session that requires signing is
 * refused. STATUS_SUCCESS, or STATUS_ACCESS_DENIED. A session still being
 * set up has no key yet: its requests pass.
 */
uint32_t smb2_sign_check_request(struct smb2_work *w);

/* smb2_sign_wanted() - does the current response get signed? */
bool smb2_sign_wanted(const struct smb2_work *w);

/*
 * smb2_sign_response() - set SMB2_FLAGS_SIGNED in the current response
 * (w->rsp, padding included; a payload too when it ends the reply) and
 * store its signature. A file-range payload is read into a buffer first.
 */
void smb2_sign_response(struct smb2_work *w);

#endif
