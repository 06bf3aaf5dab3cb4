/* SPDX-License-Identifier: MIT */
#ifndef NASD_SMB2_SMB2_SEAL_H
#define NASD_SMB2_SMB2_SEAL_H

/*
 * Encryption in the engine (MS-SMB2 §3.3.5.2.1.1, §3.3.4.1.4): which
 * received messages are opened with which session's key, and which
 * messages leave sealed (smb2/crypto.h computes).
 *
 * A message goes out encrypted when it answers an encrypted request, when
 * its session or share requires encryption (Session.EncryptData,
 * Share.EncryptData), and, for the server's own messages (oplock breaks),
 * when the client has encrypted on that session. An encrypted message is
 * not signed as well: the cipher's tag authenticates it.
 */

#include "smb2/smb2_int.h"

/* Largest encrypted message opened, or answer sealed, on an event loop;
 * larger ones go to a worker. */
#define SMB2_SEAL_INLINE_MAX (64u << 10)

/*
 * smb2_request_decrypt() - open the encrypted message of @len bytes at
 * @msg (its TRANSFORM_HEADER first) received on @c, in place: the SMB2
 * message follows at @msg + SMB2_TRANSFORM_LEN. Returns the session whose
 * key opened it, referenced (the caller puts it), or NULL when the
 * connection must be closed (§3.3.5.2.1.1): no cipher negotiated, a
 * malformed header, no such session of @c with a cipher key (or an
 * anonymous one), or a tag that does not match.
 */
struct smb2_session *smb2_request_decrypt(struct smb2_conn *c, uint8_t *msg,
					  size_t len);

/*
 * smb2_session_seals() - may @s seal messages: set up, with cipher keys?
 */
bool smb2_session_seals(struct smb2_session *s);

/*
 * smb2_reply_seal() - encrypt the whole reply of @r (its body segments
 * and payload: a file-range payload is read into a buffer first) under
 * @s's encryption key, in place, and put the TRANSFORM_HEADER in front.
 * Call once the reply is complete and before the transport frames it.
 * Returns 0, or -errno: then the reply must not be sent (close the
 * connection; its bytes may be garbled).
 */
int smb2_reply_seal(struct req *r, struct smb2_session *s);

#endif
