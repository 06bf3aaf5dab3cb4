/* SPDX-License-Identifier: MIT */
#ifndef NASD_SMB2_SMB2_OPEN_H
#define NASD_SMB2_SMB2_OPEN_H

/* SMB2 opens and their per-session table (smb2_int.h for the rules). */

#include "smb2/smb2_int.h"

/*
 * smb2_open_add() - give @o (made by the caller, refs 1 = the caller's)
 * a FileId in @s and link it (the table takes its own reference). Returns
 * 0, -ENOSPC at SMB2_MAX_OPENS_PER_SESSION, -ENOENT when @s is dead,
 * -ENOMEM.
 */
int smb2_open_add(struct smb2_session *s, struct smb2_open *o);

/*
 * smb2_open_find() - the live open {@persistent, @volatile_id} of @s with
 * a reference, or NULL.
 */
struct smb2_open *smb2_open_find(struct smb2_session *s, uint64_t persistent,
				 uint64_t volatile_id);

/*
 * smb2_open_path() - a copy of @o's path (a rename changes it under
 * o->mu) in request @r's memory, or with @r NULL malloc'd (the caller
 * frees). NULL without memory.
 */
char *smb2_open_path(struct smb2_open *o, struct req *r);

/*
 * smb2_open_any_below() - is a live SMB open, of any session, share or
 * connection, of a file or directory strictly below directory @dir (a
 * rename of @dir is then refused, as Windows and Samba do)? Opens of @dir
 * itself do not count (share modes decide those). Below means below now,
 * by the kernel's names (vfs_subtree): right after NFS clients renamed
 * directories around. False also without memory or when @dir's name
 * cannot be read. Costs one readlink per open on @dir's filesystem;
 * nothing at all while no other open exists.
 */
bool smb2_open_any_below(struct vfs_obj *dir);

void smb2_open_get(struct smb2_open *o);
void smb2_open_put(struct smb2_open *o);

/*
 * smb2_open_close() - CLOSE: unlink @o from @s and mark it dead; its
 * share and locks go, and a delete-on-close is carried out when this was
 * the last open of the file asking for it. Idempotent; returns 0, or the
 * -errno of that delete.
 */
int smb2_open_close(struct smb2_session *s, struct smb2_open *o);

/* smb2_open_close_all() - every open of @s (LOGOFF, connection gone). */
void smb2_open_close_all(struct smb2_session *s);

/*
 * smb2_open_disconnect_all() - @s's connection is gone: its durable opens
 * that hold their batch oplock are kept for a reconnect (smb2_durable.h),
 * the others closed.
 */
void smb2_open_disconnect_all(struct smb2_session *s);

/* smb2_open_close_tree() - every open of @s on tree @t (TREE_DISCONNECT). */
void smb2_open_close_tree(struct smb2_session *s, struct smb2_tree *t);

#endif
