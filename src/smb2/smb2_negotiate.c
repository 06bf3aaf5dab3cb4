// SPDX-License-Identifier: MIT
/*
 * NEGOTIATE (MS-SMB2 §2.2.3, §2.2.4, §3.3.5.4) and the SMB1 upgrade
 * (§3.3.5.3.1): the dialect (2.1, 3.0, 3.0.2, 3.1.1; 2.0.2 only when
 * configured), the 3.1.1 negotiate contexts (preauth integrity with
 * SHA-512, signing algorithm, encryption answered honestly: none yet),
 * the server's limits and the SPNEGO token that starts authentication.
 */
#include "smb2/smb2_int.h"

#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "smb2/auth/auth.h"
#include "smb2/crypto.h"
#include "smb2/fscc.h"
#include "transport/transport.h"

#define NEG_RSP_FIXED 64 /* StructureSize 65: the fixed part, then Buffer */
#define CTX_HDR 8        /* ContextType, DataLength, Reserved */
#define MAX_DIALECTS 64
#define MAX_CONTEXTS 16

/* What the client's negotiate contexts asked for (3.1.1). */
struct neg_ctx {
	bool preauth;
	bool encryption;
	bool signing;
	bool compression;
	bool posix;
	uint16_t sign_alg;
	bool sign_alg_set;
	enum smb2_cipher cipher;     /* the one chosen, or NONE */
};

/* The ciphers offered, best first (AES-128-GCM is the fastest here; the
 * 256-bit ones for the clients that insist). */
static const enum smb2_cipher ciphers[] = {
	SMB2_CIPHER_AES128_GCM,
	SMB2_CIPHER_AES128_CCM,
	SMB2_CIPHER_AES256_GCM,
	SMB2_CIPHER_AES256_CCM,
};

/* The dialects this server speaks, best first. */
static const uint16_t dialects[] = {
	SMB2_DIALECT_0311, SMB2_DIALECT_0302, SMB2_DIALECT_0300,
	SMB2_DIALECT_0210, SMB2_DIALECT_0202,
};

static uint16_t pick_dialect(const uint16_t *offered, uint16_t n)
{
	size_t i;
	uint16_t j;

	for (i = 0; i < sizeof(dialects) / sizeof(dialects[0]); i++) {
		if (dialects[i] == SMB2_DIALECT_0202 &&
		    !smb2_cfg()->allow_smb202)
			continue;
		for (j = 0; j < n; j++)
			if (offered[j] == dialects[i])
				return dialects[i];
	}
	return 0;
}

/*
 * SMB2_ENCRYPTION_CAPABILITIES (§2.2.3.1.2): the best cipher of ours the
 * client lists, none with --smb-encrypt off (§3.3.5.4: the answer then
 * names cipher 0).
 */
static uint32_t ctx_parse_ciphers(struct smb2_buf *d, struct neg_ctx *nc)
{
	uint16_t count, id, i;
	uint32_t offered = 0;
	size_t j;

	if (nc->encryption || !sb_get_u16(d, &count) || !count)
		return STATUS_INVALID_PARAMETER;
	for (i = 0; i < count; i++) {
		if (!sb_get_u16(d, &id))
			return STATUS_INVALID_PARAMETER;
		if (id < 32)
			offered |= 1u << id;
	}
	nc->encryption = true;
	nc->cipher = SMB2_CIPHER_NONE;
	if (smb2_cfg()->encrypt == SMB2_ENCRYPT_OFF)
		return STATUS_SUCCESS;
	for (j = 0; j < sizeof(ciphers) / sizeof(ciphers[0]); j++) {
		if (offered & (1u << ciphers[j])) {
			nc->cipher = ciphers[j];
			break;
		}
	}
	return STATUS_SUCCESS;
}

/*
 * One negotiate context of type @type, its data in @d (§2.2.3.1): what
 * it asks for goes into @nc. STATUS_INVALID_PARAMETER for a malformed or
 * duplicate one of the types the spec says may appear once.
 */
static uint32_t ctx_parse(uint16_t type, struct smb2_buf *d,
			  struct neg_ctx *nc)
{
	uint16_t count, salt, alg, i;
	bool sha512 = false, have[3] = { false };

	switch (type) {
	case SMB2_PREAUTH_INTEGRITY_CAPABILITIES:
		if (nc->preauth || !sb_get_u16(d, &count) ||
		    !sb_get_u16(d, &salt) || !count)
			return STATUS_INVALID_PARAMETER;
		for (i = 0; i < count; i++) {
			if (!sb_get_u16(d, &alg))
				return STATUS_INVALID_PARAMETER;
			sha512 |= alg == SMB2_PREAUTH_INTEGRITY_SHA512;
		}
		if (!sb_skip(d, salt))
			return STATUS_INVALID_PARAMETER;
		/* §3.3.5.4: no hash we know: SMB2_PREAUTH... not supported */
		if (!sha512)
			return STATUS_SMB_NO_PREAUTH_INTEGRITY_HASH_OVERLAP;
		nc->preauth = true;
		return STATUS_SUCCESS;
	case SMB2_ENCRYPTION_CAPABILITIES:
		return ctx_parse_ciphers(d, nc);
	case SMB2_COMPRESSION_CAPABILITIES:
		if (nc->compression || !sb_get_u16(d, &count) || !count ||
		    !sb_skip(d, 6) || !sb_skip(d, (size_t)count * 2))
			return STATUS_INVALID_PARAMETER;
		nc->compression = true;
		return STATUS_SUCCESS;
	case SMB2_SIGNING_CAPABILITIES:
		if (nc->signing || !sb_get_u16(d, &count) || !count)
			return STATUS_INVALID_PARAMETER;
		for (i = 0; i < count; i++) {
			if (!sb_get_u16(d, &alg))
				return STATUS_INVALID_PARAMETER;
			if (alg <= SMB2_SIGNING_AES_GMAC)
				have[alg] = true;
		}
		nc->signing = true;
		/* GMAC first (~16 x CMAC's speed), then CMAC, then HMAC. */
		if (have[SMB2_SIGNING_AES_GMAC])
			nc->sign_alg = SMB2_SIGNING_AES_GMAC;
		else if (have[SMB2_SIGNING_AES_CMAC])
			nc->sign_alg = SMB2_SIGNING_AES_CMAC;
		else if (have[SMB2_SIGNING_HMAC_SHA256])
			nc->sign_alg = SMB2_SIGNING_HMAC_SHA256;
		else
			return STATUS_SUCCESS; /* none we know: CMAC */
		nc->sign_alg_set = true;
		return STATUS_SUCCESS;
	case SMB2_CONTEXTTYPE_RESERVED:
		nc->posix = true;
		return STATUS_SUCCESS;
	default:
		/* NETNAME, TRANSPORT, RDMA_TRANSFORM, unknown: ignored. */
		return STATUS_SUCCESS;
	}
}

/*
 * The request's contexts (3.1.1): @count of them at header offset @off,
 * each 8-byte aligned (§2.2.3.1).
 */
static uint32_t ctx_walk(struct smb2_work *w, uint32_t off, uint16_t count,
			 struct neg_ctx *nc)
{
	struct smb2_buf all, c, d;
	uint16_t type, dlen, i;
	uint32_t st;

	/* Offsets are from the header; the first context is 8-aligned. */
	if (!count || count > MAX_CONTEXTS || off < SMB2_HDR_LEN ||
	    off > w->cmd_len || off & 7 ||
	    !sb_range(&w->msg, w->off, w->cmd_len, &all) ||
	    !sb_range(&all, off, all.len - off, &c))
		return STATUS_INVALID_PARAMETER;
	for (i = 0; i < count; i++) {
		if (i && !sb_pad_to(&c, 8, false))
			return STATUS_INVALID_PARAMETER;
		if (!sb_get_u16(&c, &type) || !sb_get_u16(&c, &dlen) ||
		    !sb_skip(&c, 4) ||
		    !sb_range(&c, c.pos, dlen, &d) || !sb_skip(&c, dlen))
			return STATUS_INVALID_PARAMETER;
		st = ctx_parse(type, &d, nc);
		if (st != STATUS_SUCCESS)
			return st;
	}
	/* §3.3.5.4: 3.1.1 requires the preauth integrity context. */
	return nc->preauth ? STATUS_SUCCESS : STATUS_INVALID_PARAMETER;
}

/* Append one response context of @type with @len data bytes from @data. */
static bool ctx_put(struct smb2_buf *b, uint16_t type, const void *data,
		    uint16_t len)
{
	return sb_pad_to(b, 8, true) && sb_put_u16(b, type) &&
	       sb_put_u16(b, len) && sb_put_u32(b, 0) &&
	       sb_put_bytes(b, data, len);
}

/* The 3.1.1 response contexts (§2.2.4.1); their count, or -1. */
static int ctx_reply(struct smb2_buf *b, const struct neg_ctx *nc,
		     uint16_t sign_alg)
{
	uint8_t pre[4 + 2 + 32], enc[4], sig[4];
	int n = 0;

	/* Preauth: SHA-512 with 32 bytes of salt. */
	put_le16(pre, 1);
	put_le16(pre + 2, 32);
	put_le16(pre + 4, SMB2_PREAUTH_INTEGRITY_SHA512);
	if (getrandom(pre + 6, 32, 0) != 32)
		return -1;
	if (!ctx_put(b, SMB2_PREAUTH_INTEGRITY_CAPABILITIES, pre, 38))
		return -1;
	n++;
	/* One cipher, 0 = no common cipher. */
	if (nc->encryption) {
		put_le16(enc, 1);
		put_le16(enc + 2, (uint16_t)nc->cipher);
		if (!ctx_put(b, SMB2_ENCRYPTION_CAPABILITIES, enc, 4))
			return -1;
		n++;
	}
	if (nc->signing) {
		put_le16(sig, 1);
		put_le16(sig + 2, sign_alg);
		if (!ctx_put(b, SMB2_SIGNING_CAPABILITIES, sig, 4))
			return -1;
		n++;
	}
	return n;
}

/* The NEGOTIATE response body for @dialect into w->rsp (§2.2.4). */
static uint32_t neg_reply(struct smb2_work *w, uint16_t dialect,
			  const struct neg_ctx *nc, uint16_t sign_alg,
			  uint32_t caps)
{
	const struct smb2_config *cfg = smb2_cfg();
	uint32_t max_io = dialect >= SMB2_DIALECT_0210 ? SMB2_MAX_IO : 65536;
	uint8_t tok[512];
	size_t toklen = 0, ctx_off;
	struct smb2_buf *b = &w->rsp;
	uint16_t sec = SMB2_NEGOTIATE_SIGNING_ENABLED;
	struct timespec now;
	uint8_t *fix;
	int nctx = 0;

	if (cfg->signing_required)
		sec |= SMB2_NEGOTIATE_SIGNING_REQUIRED;
	if (smb2_auth_negotiate_token(tok, sizeof(tok), &toklen) < 0)
		return STATUS_INTERNAL_ERROR;
	clock_gettime(CLOCK_REALTIME, &now);
	fix = b->base + b->pos;
	if (!sb_put_u16(b, 65) || !sb_put_u16(b, sec) ||
	    !sb_put_u16(b, dialect) || !sb_put_u16(b, 0) ||
	    !sb_put_bytes(b, smb2_server_guid(), 16) ||
	    !sb_put_u32(b, caps) || !sb_put_u32(b, max_io) ||
	    !sb_put_u32(b, max_io) || !sb_put_u32(b, max_io) ||
	    !sb_put_u64(b, fscc_filetime_from_timespec(&now)) || !sb_put_u64(b, 0) ||
	    !sb_put_u16(b, SMB2_HDR_LEN + NEG_RSP_FIXED) ||
	    !sb_put_u16(b, (uint16_t)toklen) || !sb_put_u32(b, 0) ||
	    !sb_put_bytes(b, tok, toklen))
		return STATUS_INSUFFICIENT_RESOURCES;
	if (dialect == SMB2_DIALECT_0311) {
		if (!sb_pad_to(b, 8, true))
			return STATUS_INSUFFICIENT_RESOURCES;
		ctx_off = b->pos; /* from the header: rsp starts with it */
		nctx = ctx_reply(b, nc, sign_alg);
		if (nctx < 0)
			return STATUS_INSUFFICIENT_RESOURCES;
		put_le16(fix + 6, (uint16_t)nctx);
		put_le32(fix + 60, (uint32_t)ctx_off);
	}
	return STATUS_SUCCESS;
}

uint32_t smb2_cmd_negotiate(struct smb2_work *w, struct smb2_buf *body)
{
	struct smb2_conn *c = w->conn;
	uint16_t ssize, ndialects, sec, offered[MAX_DIALECTS], i, nctx = 0;
	uint16_t dialect, sign_alg;
	uint32_t caps, ctx_off = 0, st, srv_caps = 0;
	struct neg_ctx nc = { 0 };
	uint8_t guid[16];
	bool again;

	/* §3.3.5.4: a second NEGOTIATE on a connection closes it. */
	pthread_mutex_lock(&c->mu);
	again = c->negotiated;
	pthread_mutex_unlock(&c->mu);
	if (again) {
		transport_conn_shutdown(c->tconn);
		return STATUS_INVALID_PARAMETER;
	}
	if (w->flags & SMB2_FLAGS_SIGNED)
		return STATUS_INVALID_PARAMETER;
	if (!sb_get_u16(body, &ssize) || !sb_get_u16(body, &ndialects) ||
	    !sb_get_u16(body, &sec) || !sb_skip(body, 2) ||
	    !sb_get_u32(body, &caps) || !sb_get_bytes(body, guid, 16) ||
	    !sb_get_u32(body, &ctx_off) || !sb_get_u16(body, &nctx) ||
	    !sb_skip(body, 2))
		return STATUS_INVALID_PARAMETER;
	if (!ndialects || ndialects > MAX_DIALECTS)
		return STATUS_INVALID_PARAMETER;
	for (i = 0; i < ndialects; i++)
		if (!sb_get_u16(body, &offered[i]))
			return STATUS_INVALID_PARAMETER;
	dialect = pick_dialect(offered, ndialects);
	if (!dialect)
		return STATUS_NOT_SUPPORTED;
	sign_alg = dialect >= SMB2_DIALECT_0300 ? SMB2_SIGNING_AES_CMAC
						: SMB2_SIGNING_HMAC_SHA256;
	if (dialect == SMB2_DIALECT_0311) {
		st = ctx_walk(w, ctx_off, nctx, &nc);
		if (st != STATUS_SUCCESS)
			return st;
		if (nc.sign_alg_set)
			sign_alg = nc.sign_alg;
	}
	if (dialect >= SMB2_DIALECT_0210)
		srv_caps |= SMB2_GLOBAL_CAP_LARGE_MTU;
	/* §3.3.5.4: multichannel for a 3.x client that asks (binding:
	 * smb2_chan.c) */
	if (dialect >= SMB2_DIALECT_0300 &&
	    (caps & SMB2_GLOBAL_CAP_MULTI_CHANNEL))
		srv_caps |= SMB2_GLOBAL_CAP_MULTI_CHANNEL;
	/* §3.3.5.4: 3.0.x encrypt with AES-128-CCM when the client can,
	 * which the capability answers; 3.1.1 with the cipher its context
	 * chose, and the capability, meant for 3.0.x, is left clear (as
	 * Windows answers). */
	if (dialect == SMB2_DIALECT_0300 || dialect == SMB2_DIALECT_0302) {
		if ((caps & SMB2_GLOBAL_CAP_ENCRYPTION) &&
		    smb2_cfg()->encrypt != SMB2_ENCRYPT_OFF) {
			nc.cipher = SMB2_CIPHER_AES128_CCM;
			srv_caps |= SMB2_GLOBAL_CAP_ENCRYPTION;
		}
	} else if (dialect != SMB2_DIALECT_0311) {
		nc.cipher = SMB2_CIPHER_NONE;
	}
	st = neg_reply(w, dialect, &nc, sign_alg, srv_caps);
	if (st != STATUS_SUCCESS)
		return st;
	pthread_mutex_lock(&c->mu);
	c->negotiated = true;
	c->dialect = dialect;
	c->client_sec_mode = sec;
	c->client_caps = caps;
	c->server_caps = srv_caps;
	memcpy(c->client_guid, guid, 16);
	c->sign_alg = sign_alg;
	c->cipher = nc.cipher;
	c->posix = nc.posix;
	if (dialect == SMB2_DIALECT_0311) {
		/* H = SHA-512(0 || request); the response follows at commit. */
		struct iovec iov = { .iov_base = w->msg.base + w->off,
				     .iov_len = w->cmd_len };

		smb2_preauth_init(c->preauth);
		(void)smb2_preauth_update(c->preauth, &iov, 1);
	}
	pthread_mutex_unlock(&c->mu);
	transport_conn_set_max_msg(c->tconn, SMB2_MAX_MSG);
	return STATUS_SUCCESS;
}

/*
 * The SMB1 NEGOTIATE (MS-SMB §2.2.4.52.1): a 32-byte SMB1 header with
 * command 0x72, WordCount 0, then ByteCount bytes of dialect strings,
 * each 0x02 and a NUL-terminated name.
 */
bool smb2_smb1_negotiate(struct smb2_conn *c, struct req *r,
			 const uint8_t *msg, size_t len)
{
	struct smb2_buf b, s;
	uint16_t bytes, dialect = 0;
	uint8_t cmd, wc, fmt, *body;
	struct smb2_work w = { 0 };
	size_t i, start;
	bool done;

	sb_init(&b, (uint8_t *)msg, len);
	if (!sb_skip(&b, 4) || !sb_get_u8(&b, &cmd) || cmd != 0x72 ||
	    !sb_skip(&b, 27) || !sb_get_u8(&b, &wc) || wc != 0 ||
	    !sb_get_u16(&b, &bytes) || !sb_range(&b, b.pos, bytes, &s))
		return false;
	pthread_mutex_lock(&c->mu);
	done = c->negotiated || c->smb1_upgraded;
	pthread_mutex_unlock(&c->mu);
	if (done)
		return false;
	while (sb_remaining(&s)) {
		if (!sb_get_u8(&s, &fmt) || fmt != 0x02)
			return false;
		start = s.pos;
		for (i = start; i < s.len && s.base[i]; i++)
			;
		if (i == s.len)
			return false;
		if (i - start == 9 && !memcmp(s.base + start, "SMB 2.???", 9))
			dialect = SMB2_DIALECT_WILDCARD;
		else if (i - start == 9 &&
			 !memcmp(s.base + start, "SMB 2.002", 9) && !dialect &&
			 smb2_cfg()->allow_smb202)
			dialect = SMB2_DIALECT_0202;
		s.pos = i + 1;
	}
	if (!dialect)
		return false;
	/* MessageId 0 is this message's; the SMB2 NEGOTIATE that follows
	 * uses 1 (§3.3.5.3.1). */
	if (!smb2_credit_take(c, 0, 1))
		return false;
	w.req = r;
	w.conn = c;
	w.command = SMB2_NEGOTIATE;
	w.credit_request = 1;
	body = req_reply_start(r, 1024);
	if (!body)
		return false;
	sb_init(&w.rsp, body, 1024);
	if (!sb_put_zero(&w.rsp, SMB2_HDR_LEN) ||
	    neg_reply(&w, dialect, &(struct neg_ctx){ 0 },
		      SMB2_SIGNING_HMAC_SHA256, dialect == SMB2_DIALECT_WILDCARD
				? SMB2_GLOBAL_CAP_LARGE_MTU
				: 0) != STATUS_SUCCESS)
		return false;
	smb2_rsp_header(&w, STATUS_SUCCESS);
	req_reply_used(r, w.rsp.pos);
	pthread_mutex_lock(&c->mu);
	c->smb1_upgraded = true;
	if (dialect == SMB2_DIALECT_0202) {
		c->negotiated = true;
		c->dialect = dialect;
		c->sign_alg = SMB2_SIGNING_HMAC_SHA256;
	}
	pthread_mutex_unlock(&c->mu);
	return true;
}
