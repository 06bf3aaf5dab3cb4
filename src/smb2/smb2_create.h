/* SPDX-License-Identifier: MIT */
#ifndef NASD_SMB2_SMB2_CREATE_H
#define NASD_SMB2_SMB2_CREATE_H

/*
 * CREATE contexts (MS-SMB2 §2.2.13.2, §2.2.14.2; smb2_create_ctx.c):
 * what a CREATE request asks beyond its fixed fields, decoded and checked
 * as a whole before the open is attempted, and the contexts answered.
 */

#include <stdbool.h>
#include <stdint.h>

#include "smb2/smb2_buf.h"

struct vfs_attr;

struct smb2_create_ctx {
	bool max_access;      /* MxAc: answer the maximal access */
	bool query_id;        /* QFid: answer the on-disk id */
	bool have_eas;        /* ExtA: EAs to set (checked) */
	struct smb2_buf eas;
	bool have_sd;         /* SecD: a security descriptor */
	struct smb2_buf sd;
	bool have_mode;       /* the SD named a mode for a new file */
	uint32_t mode;
	bool have_alloc;      /* AlSi */
	uint64_t alloc_size;
	bool timewarp;        /* TWrp: a snapshot (none here) */
	bool lease;           /* RqLs asked (not granted, tier 2) */
	/* Durable handles (smb2_durable.h): which of DHnQ, DH2Q, DHnC,
	 * DH2C came (SMB2_DURABLE_* bits) and what they carry. */
	uint8_t durable;
	uint64_t dfid_persistent;    /* DHnC, DH2C: the open to reconnect */
	uint64_t dfid_volatile;
	uint32_t dtimeout_ms;        /* DH2Q: asked, 0 for the default */
	uint32_t dflags;             /* DH2Q, DH2C: SMB2_DHANDLE_FLAG_* */
	uint8_t create_guid[16];     /* DH2Q, DH2C */
	/* what the CREATE answers (smb2_create_ctx_reply): DHnQ or DH2Q
	 * granted, with this timeout */
	uint8_t durable_granted;
	uint32_t granted_timeout_ms;
};

#define SMB2_DURABLE_DHNQ 1u
#define SMB2_DURABLE_DH2Q 2u
#define SMB2_DURABLE_DHNC 4u
#define SMB2_DURABLE_DH2C 8u

/*
 * smb2_create_ctx_parse() - walk the chain of create contexts in @b (the
 * request's CreateContexts bytes) into @c: every Next, name and data
 * range inside @b and aligned as §2.2.13.2 says, known contexts of the
 * right size, none twice. Unknown contexts are ignored (§3.3.5.9).
 * Returns STATUS_SUCCESS or STATUS_INVALID_PARAMETER (or the EA list's
 * own status for a malformed ExtA).
 */
uint32_t smb2_create_ctx_parse(struct smb2_buf *b, struct smb2_create_ctx *c);

/*
 * smb2_create_ctx_reply() - append the response contexts (MxAc with
 * @maximal, QFid from @a and export @export_id) at @b's cursor, 8-byte
 * aligned from the header; nothing when none was asked. False when they
 * do not fit.
 */
bool smb2_create_ctx_reply(struct smb2_buf *b, const struct smb2_create_ctx *c,
			   const struct vfs_attr *a, uint32_t maximal,
			   uint32_t export_id);

#endif
