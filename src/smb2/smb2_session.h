/* SPDX-License-Identifier: MIT */
#ifndef NASD_SMB2_SMB2_SESSION_H
#define NASD_SMB2_SMB2_SESSION_H

/*
 * SMB2 sessions (MS-SMB2 §3.3.1.8), trees (§3.3.1.9) and their tables.
 * See smb2_int.h for the lifetime rules: found by id with a reference,
 * torn down by marking dead and unlinking, freed at the last put.
 */

#include "smb2/smb2_int.h"

/*
 * smb2_session_new() - a new session on @c, in progress, with a fresh
 * SessionId, in the global table and on @c's list, with a reference for
 * the caller. NULL when @c is at SMB2_MAX_SESSIONS_PER_CONN, closing, or
 * out of memory.
 */
struct smb2_session *smb2_session_new(struct smb2_conn *c);

/*
 * smb2_session_find() - the live session @id of connection @c (set up on
 * it, or bound to it as a channel), with a reference, or NULL (unknown,
 * torn down, or another connection's).
 */
struct smb2_session *smb2_session_find(struct smb2_conn *c, uint64_t id);

/*
 * smb2_session_find_any() - the live session @id wherever it was set up,
 * with a reference, or NULL (PreviousSessionId, §3.3.5.5.3).
 */
struct smb2_session *smb2_session_find_any(uint64_t id);

/* smb2_session_get() / _put() - references; the last put frees. */
void smb2_session_get(struct smb2_session *s);
void smb2_session_put(struct smb2_session *s);

/*
 * smb2_session_teardown() - LOGOFF, a failed setup, or the connection
 * closing: mark @s dead, take it out of the table and its connection's
 * list, disconnect its trees and close its opens. Idempotent. The
 * caller's reference stays the caller's.
 */
void smb2_session_teardown(struct smb2_session *s);

/*
 * smb2_session_unbind_first() - take the first session off @c's list
 * (the connection closing), returning the list's reference, or NULL.
 */
struct smb2_session *smb2_session_unbind_first(struct smb2_conn *c);

/* smb2_session_count() - sessions in the table (stats, tests). */
uint32_t smb2_session_count(void);

/*
 * smb2_tree_find() - tree @id of @s with a reference, or NULL (unknown or
 * disconnected).
 */
struct smb2_tree *smb2_tree_find(struct smb2_session *s, uint32_t id);
void smb2_tree_get(struct smb2_tree *t);
void smb2_tree_put(struct smb2_tree *t);

/*
 * smb2_tree_add() - link @t (made by the caller, one reference for the
 * table taken here) into @s with a fresh TreeId. -ENOSPC at the limit,
 * -ENOENT when @s is dead.
 */
int smb2_tree_add(struct smb2_session *s, struct smb2_tree *t);

/* smb2_tree_disconnect() - unlink @t and mark it dead (idempotent). */
void smb2_tree_disconnect(struct smb2_tree *t);

#endif
