/* SPDX-License-Identifier: MIT */
#ifndef NASD_SMB2_SMB2_DURABLE_H
#define NASD_SMB2_SMB2_DURABLE_H

/*
 * Durable handles (MS-SMB2 §3.3.5.9.6, .7, .10, .12, §3.3.7.1): an open
 * with a batch oplock that the client asked to be durable outlives the
 * loss of its connection for a while, holding its share, byte-range
 * locks and oplock, and the client takes it back with DHnC or DH2C on a
 * new connection. No handle is persistent (no SMB2_DHANDLE_FLAG_
 * PERSISTENT, no CA shares): a restart of nasd ends them all.
 */

#include "smb2/smb2_create.h"
#include "smb2/smb2_int.h"

/* How long a disconnected durable open waits, by default and at most
 * (Samba's figures; DH2Q may ask for less or more). */
#define SMB2_DURABLE_TIMEOUT_MS 60000u
#define SMB2_DURABLE_TIMEOUT_MAX_MS 300000u
/* Disconnected opens kept at most, over all clients: past it a lost
 * connection's opens close (each holds a file, its share and locks). */
#define SMB2_DURABLE_IDLE_MAX 16384u

/*
 * smb2_durable_sort() - check the CREATE's durable contexts in @c
 * (§3.3.5.9.6, .7, .10, .12): STATUS_INVALID_PARAMETER for mixes of the
 * two versions; DH2Q and DH2C below SMB 3.0 are dropped, DHnQ next to
 * DHnC too. A DH2Q whose CreateGuid an open of this client already has
 * is STATUS_DUPLICATE_OBJECTID unless the request is a replay (then
 * @replay gets that open, referenced, for the CREATE to answer again).
 */
uint32_t smb2_durable_sort(struct smb2_work *w, struct smb2_create_ctx *c,
			   struct smb2_open **replay);

/*
 * smb2_durable_grant() - after a CREATE made @o with @oplock: make it
 * durable when @c asked and the oplock is batch (and it is a file), and
 * say so in @c for the response.
 */
void smb2_durable_grant(struct smb2_work *w, struct smb2_open *o,
			struct smb2_create_ctx *c, uint8_t oplock);

/*
 * smb2_durable_reconnect() - DHnC or DH2C in @c: find the disconnected
 * open, check that it is this user's, on this share (and has this
 * CreateGuid), and give it to @w's session and tree with a new volatile
 * id; the CREATE's other fields and name are not looked at. STATUS_SUCCESS with *@out referenced;
 * STATUS_OBJECT_NAME_NOT_FOUND or STATUS_ACCESS_DENIED otherwise.
 */
uint32_t smb2_durable_reconnect(struct smb2_work *w,
				const struct smb2_create_ctx *c,
				struct smb2_open **out);

/*
 * smb2_durable_keep() - @s's connection is gone (§3.3.7.1): @o, out of
 * @s's table with the table's reference, is kept for a reconnect when it
 * is durable and still holds its batch oplock; false when it is not (the
 * caller closes it).
 */
bool smb2_durable_keep(struct smb2_open *o);

/*
 * smb2_durable_forget() - @o is closing: out of the durable table (the
 * table's reference is the caller's to drop: true when it held one).
 */
bool smb2_durable_forget(struct smb2_open *o);

/*
 * smb2_durable_break_to() - where an oplock break of @o goes: its
 * connection, referenced, and its tree, referenced; NULL for a
 * disconnected open, whose close this schedules instead (§3.3.4.6: the
 * conflicting open goes ahead once it is closed).
 */
struct conn *smb2_durable_break_to(struct smb2_open *o,
				   struct smb2_tree **tree);

/* smb2_durable_idle() - disconnected opens waiting for their client. */
uint64_t smb2_durable_idle(void);

/* smb2_durable_shutdown() - close every disconnected open (nasd stops). */
void smb2_durable_shutdown(void);

#endif
