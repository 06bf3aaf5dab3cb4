// SPDX-License-Identifier: MIT
/* CREATE contexts (smb2_create.h). */
#include "smb2/smb2_create.h"

#include <string.h>

#include "smb2/fscc.h"
#include "smb2/smb2_wire.h"
#include "vfs/vfs.h"

#define CTX_HDR 16

enum ctx_kind {
	CTX_EXTA,
	CTX_SECD,
	CTX_DHNQ,
	CTX_DHNC,
	CTX_ALSI,
	CTX_MXAC,
	CTX_TWRP,
	CTX_QFID,
	CTX_RQLS,
	CTX_DH2Q,
	CTX_DH2C,
	CTX_NKINDS,
};

/* The known contexts: their 4-byte names and data sizes (-1: any, -2:
 * either of two). */
static const struct {
	char name[5];
	int32_t size;
	int32_t size2;
} ctx_known[CTX_NKINDS] = {
	[CTX_EXTA] = { "ExtA", -1, -1 },
	[CTX_SECD] = { "SecD", -1, -1 },
	[CTX_DHNQ] = { "DHnQ", 16, 16 },
	[CTX_DHNC] = { "DHnC", 16, 16 },
	[CTX_ALSI] = { "AlSi", 8, 8 },
	[CTX_MXAC] = { "MxAc", 0, 8 },
	[CTX_TWRP] = { "TWrp", 8, 8 },
	[CTX_QFID] = { "QFid", 0, 0 },
	[CTX_RQLS] = { "RqLs", 32, 52 },
	[CTX_DH2Q] = { "DH2Q", 32, 32 },
	[CTX_DH2C] = { "DH2C", 36, 36 },
};

static int ctx_kind_of(const uint8_t *name, uint16_t len)
{
	int k;

	if (len != 4)
		return -1;
	for (k = 0; k < CTX_NKINDS; k++)
		if (!memcmp(name, ctx_known[k].name, 4))
			return k;
	return -1;
}

uint32_t smb2_create_ctx_parse(struct smb2_buf *b, struct smb2_create_ctx *c)
{
	uint32_t seen = 0;
	size_t at = 0;

	for (;;) {
		struct smb2_buf e, name, data;
		uint32_t next, dlen;
		uint16_t noff, nlen, doff;
		size_t elen;
		int k;

		if (b->len - at < CTX_HDR || !sb_range(b, at, b->len - at, &e))
			return STATUS_INVALID_PARAMETER;
		if (!sb_get_u32(&e, &next) || !sb_get_u16(&e, &noff) ||
		    !sb_get_u16(&e, &nlen) || !sb_skip(&e, 2) ||
		    !sb_get_u16(&e, &doff) || !sb_get_u32(&e, &dlen))
			return STATUS_INVALID_PARAMETER;
		if (next) {
			if (next & 7 || next < CTX_HDR || next > e.len)
				return STATUS_INVALID_PARAMETER;
			elen = next;
		} else {
			elen = e.len;
		}
		/* The name and the data lie inside this context. */
		if (noff < CTX_HDR || !nlen || (size_t)noff + nlen > elen ||
		    !sb_range(&e, noff, nlen, &name))
			return STATUS_INVALID_PARAMETER;
		if (dlen) {
			if (doff & 7 || doff < noff + nlen ||
			    (size_t)doff + dlen > elen ||
			    !sb_range(&e, doff, dlen, &data))
				return STATUS_INVALID_PARAMETER;
		} else {
			sb_init(&data, NULL, 0);
		}
		k = ctx_kind_of(name.base, nlen);
		if (k >= 0) {
			if (seen & (1u << k))
				return STATUS_INVALID_PARAMETER;
			seen |= 1u << k;
			if (ctx_known[k].size >= 0 &&
			    dlen != (uint32_t)ctx_known[k].size &&
			    dlen != (uint32_t)ctx_known[k].size2)
				return STATUS_INVALID_PARAMETER;
		}
		switch (k) {
		case CTX_EXTA: {
			size_t n;
			enum fscc_status fs =
				fscc_dec_FILE_FULL_EA_INFORMATION(&data, &n);

			if (fs != FSCC_OK)
				return fscc_ntstatus(fs);
			c->have_eas = true;
			c->eas = data;
			break;
		}
		case CTX_SECD:
			if (!dlen)
				return STATUS_INVALID_PARAMETER;
			c->have_sd = true;
			c->sd = data;
			break;
		case CTX_DHNQ:
			c->durable |= SMB2_DURABLE_DHNQ; /* 16 reserved bytes */
			break;
		case CTX_DH2Q:
			/* Timeout, Flags, 8 reserved, CreateGuid */
			if (!sb_get_u32(&data, &c->dtimeout_ms) ||
			    !sb_get_u32(&data, &c->dflags) ||
			    !sb_skip(&data, 8) ||
			    !sb_get_bytes(&data, c->create_guid, 16))
				return STATUS_INVALID_PARAMETER;
			c->durable |= SMB2_DURABLE_DH2Q;
			break;
		case CTX_DHNC:
			if (!sb_get_u64(&data, &c->dfid_persistent) ||
			    !sb_get_u64(&data, &c->dfid_volatile))
				return STATUS_INVALID_PARAMETER;
			c->durable |= SMB2_DURABLE_DHNC;
			break;
		case CTX_DH2C:
			/* FileId, CreateGuid, Flags */
			if (!sb_get_u64(&data, &c->dfid_persistent) ||
			    !sb_get_u64(&data, &c->dfid_volatile) ||
			    !sb_get_bytes(&data, c->create_guid, 16) ||
			    !sb_get_u32(&data, &c->dflags))
				return STATUS_INVALID_PARAMETER;
			c->durable |= SMB2_DURABLE_DH2C;
			break;
		case CTX_ALSI:
			if (!sb_get_u64(&data, &c->alloc_size))
				return STATUS_INVALID_PARAMETER;
			c->have_alloc = true;
			break;
		case CTX_MXAC:
			c->max_access = true;
			break;
		case CTX_TWRP:
			c->timewarp = true;
			break;
		case CTX_QFID:
			c->query_id = true;
			break;
		case CTX_RQLS:
			c->lease = true;
			break;
		default:
			break; /* unknown: ignored */
		}
		if (!next)
			return STATUS_SUCCESS;
		at += next;
	}
}

/* One response context: header, 4-byte name, padding, @len data bytes. */
static bool ctx_put(struct smb2_buf *b, size_t *prev, const char *name,
		    const uint8_t *data, uint32_t len)
{
	size_t start;

	if (*prev != SIZE_MAX) {
		if (!sb_pad_to(b, 8, true))
			return false;
		put_le32(b->base + *prev, (uint32_t)(b->pos - *prev));
	}
	start = b->pos;
	if (!sb_put_u32(b, 0) || !sb_put_u16(b, CTX_HDR) ||
	    !sb_put_u16(b, 4) || !sb_put_u16(b, 0) ||
	    !sb_put_u16(b, 24) || !sb_put_u32(b, len) ||
	    !sb_put_bytes(b, name, 4) || !sb_put_zero(b, 4) ||
	    !sb_put_bytes(b, data, len))
		return false;
	*prev = start;
	return true;
}

bool smb2_create_ctx_reply(struct smb2_buf *b, const struct smb2_create_ctx *c,
			   const struct vfs_attr *a, uint32_t maximal,
			   uint32_t export_id)
{
	size_t prev = SIZE_MAX;
	uint8_t mx[8], qf[32], dh[8];

	if (!c->max_access && !c->query_id && !c->durable_granted)
		return true;
	if (!sb_pad_to(b, 8, true))
		return false;
	if (c->max_access) {
		put_le32(mx, STATUS_SUCCESS);
		put_le32(mx + 4, maximal);
		if (!ctx_put(b, &prev, "MxAc", mx, sizeof(mx)))
			return false;
	}
	if (c->query_id) {
		/* DiskFileId: the inode; VolumeId: the export's serial. */
		memset(qf, 0, sizeof(qf));
		put_le64(qf, a->fileid);
		put_le64(qf + 8, fscc_volume_serial(export_id));
		if (!ctx_put(b, &prev, "QFid", qf, sizeof(qf)))
			return false;
	}
	/* DHnQ: 8 reserved bytes; DH2Q: the timeout kept, no flags (no
	 * handle here is persistent) (§2.2.14.2.3, §2.2.14.2.12) */
	memset(dh, 0, sizeof(dh));
	if (c->durable_granted == SMB2_DURABLE_DH2Q)
		put_le32(dh, c->granted_timeout_ms);
	if (c->durable_granted &&
	    !ctx_put(b, &prev, c->durable_granted == SMB2_DURABLE_DH2Q ?
			      "DH2Q" : "DHnQ", dh, sizeof(dh)))
		return false;
	return true;
}
