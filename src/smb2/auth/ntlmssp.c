/* SPDX-License-Identifier: MIT */
/*
 * NTLMSSP server (ntlmssp.h): MS-NLMP §2.2.1 messages, §3.2.5.1 server
 * behaviour, §3.3.2 NTLMv2, §3.4.4 signatures.
 *
 * Message layouts (offsets in bytes; every variable part is a field
 * (Len u16, MaxLen u16, Offset u32) naming bytes of the message):
 *   NEGOTIATE     0 "NTLMSSP\0", 8 type 1, 12 flags, [16 domain,
 *                 24 workstation, [32 version]]
 *   CHALLENGE     0 sig, 8 type 2, 12 target name, 20 flags, 24 server
 *                 challenge, 32 reserved, 40 target info, 48 version,
 *                 56 payload
 *   AUTHENTICATE  0 sig, 8 type 3, 12 LM response, 20 NT response,
 *                 28 domain, 36 user, 44 workstation, 52 encrypted random
 *                 session key, 60 flags, 64 version, 72 MIC, 88 payload
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "smb2/auth/ntlmssp.h"
#include "smb2/utf16.h"

#define NTLMSSP_NEGOTIATE_MESSAGE    1
#define NTLMSSP_CHALLENGE_MESSAGE    2
#define NTLMSSP_AUTHENTICATE_MESSAGE 3

#define CHALLENGE_HDR	 56
#define AUTH_HDR	 64 /* through NegotiateFlags */
#define AUTH_MIC_OFF	 72
#define AUTH_MIC_END	 88
#define NTLMV2_PROOF_LEN 16
#define NTLMV2_TEMP_HDR	 28 /* RespType .. Reserved3, before AvPairs */
#define NTLMV1_RESP_LEN	 24

/* 100 ns ticks between 1601-01-01 and 1970-01-01 (MS-DTYP §2.3.3) */
#define FILETIME_UNIX_EPOCH 116444736000000000ull

static const uint8_t ntlmssp_sig[8] = {'N', 'T', 'L', 'M', 'S', 'S', 'P', 0};

/* What the server answers when the client asks (MS-NLMP §3.2.5.1.1). */
static const uint32_t echoed_flags =
	NTLMSSP_REQUEST_TARGET | NTLMSSP_NEGOTIATE_SIGN |
	NTLMSSP_NEGOTIATE_SEAL | NTLMSSP_NEGOTIATE_ALWAYS_SIGN |
	NTLMSSP_NEGOTIATE_EXTENDED_SESSIONSECURITY | NTLMSSP_NEGOTIATE_128 |
	NTLMSSP_NEGOTIATE_56 | NTLMSSP_NEGOTIATE_KEY_EXCH |
	NTLMSSP_NEGOTIATE_VERSION;
/* What the server insists on: Unicode names, NTLMv2's extended session
 * security (which the mechListMIC's signature is defined for) and 128-bit
 * keys. */
static const uint32_t required_flags =
	NTLMSSP_NEGOTIATE_UNICODE | NTLMSSP_NEGOTIATE_EXTENDED_SESSIONSECURITY |
	NTLMSSP_NEGOTIATE_128;

void ntlmssp_server_init(struct ntlmssp_server *s)
{
	memset(s, 0, sizeof(*s));
	s->state = NTLMSSP_WANT_NEGOTIATE;
}

void ntlmssp_server_fix_challenge(struct ntlmssp_server *s,
				  const uint8_t challenge[8], uint64_t filetime)
{
	memcpy(s->server_challenge, challenge, 8);
	s->timestamp = filetime;
	s->fixed = true;
}

void ntlmssp_server_clear(struct ntlmssp_server *s)
{
	free(s->negotiate);
	free(s->challenge);
	ntlm_wipe(s, sizeof(*s));
	s->state = NTLMSSP_FAILED;
}

static uint64_t filetime_now(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_REALTIME, &ts);
	return FILETIME_UNIX_EPOCH + (uint64_t)ts.tv_sec * 10000000ull +
	       (uint64_t)ts.tv_nsec / 100;
}

/*
 * One (Len, MaxLen, Offset) field read at @hdr's cursor: @out is a cursor
 * over the bytes it names in @msg. An empty field names nothing (its
 * offset is not looked at); a non-empty one must lie within @msg and start
 * at or after @min_off. *@lowest is lowered to its offset.
 */
static bool get_field(struct smb2_buf *hdr, const struct smb2_buf *msg,
		      uint32_t min_off, uint32_t *lowest, struct smb2_buf *out)
{
	uint16_t len, maxlen;
	uint32_t off;

	if (!sb_get_u16(hdr, &len) || !sb_get_u16(hdr, &maxlen) ||
	    !sb_get_u32(hdr, &off))
		return false;
	if (len == 0)
		return sb_range(msg, 0, 0, out);
	if (off < min_off || !sb_range(msg, off, len, out))
		return false;
	if (off < *lowest)
		*lowest = off;
	return true;
}

static int utf16_name(const char *s, uint8_t *out, size_t *len)
{
	return utf8_to_utf16le(s ? s : "", s ? strlen(s) : 0, out,
			       NTLMSSP_STRING_MAX, len);
}

static bool put_av(struct smb2_buf *b, uint16_t id, const void *v, size_t n)
{
	return sb_put_u16(b, id) && sb_put_u16(b, (uint16_t)n) &&
	       sb_put_bytes(b, v, n);
}

/* Build the CHALLENGE_MESSAGE into s->challenge (MS-NLMP §2.2.1.2). */
static int build_challenge(struct ntlmssp_server *s,
			   const struct ntlmssp_names *names)
{
	uint8_t nbc[NTLMSSP_STRING_MAX], nbd[NTLMSSP_STRING_MAX];
	uint8_t dnsc[NTLMSSP_STRING_MAX], dnsd[NTLMSSP_STRING_MAX];
	size_t nbc_len, nbd_len, dnsc_len, dnsd_len, tlen, ti_len, total;
	uint8_t ts[8];
	struct smb2_buf b;
	bool ok;

	if (utf16_name(names->nb_computer, nbc, &nbc_len) ||
	    utf16_name(names->nb_domain, nbd, &nbd_len) ||
	    utf16_name(names->dns_computer, dnsc, &dnsc_len) ||
	    utf16_name(names->dns_domain, dnsd, &dnsd_len))
		return -EINVAL;
	/* a stand-alone server names itself (TARGET_TYPE_SERVER) */
	tlen = (s->flags & NTLMSSP_REQUEST_TARGET) ? nbc_len : 0;
	ti_len = 4 * 4 + nbd_len + nbc_len + dnsd_len + dnsc_len + 4 + 8 + 4;
	total = CHALLENGE_HDR + tlen + ti_len;
	s->challenge = malloc(total);
	if (!s->challenge)
		return -ENOMEM;
	put_le64(ts, s->timestamp);
	sb_init(&b, s->challenge, total);
	ok = sb_put_bytes(&b, ntlmssp_sig, sizeof(ntlmssp_sig)) &&
	     sb_put_u32(&b, NTLMSSP_CHALLENGE_MESSAGE) &&
	     sb_put_u16(&b, (uint16_t)tlen) && sb_put_u16(&b, (uint16_t)tlen) &&
	     sb_put_u32(&b, CHALLENGE_HDR) && sb_put_u32(&b, s->flags) &&
	     sb_put_bytes(&b, s->server_challenge, 8) && sb_put_zero(&b, 8) &&
	     sb_put_u16(&b, (uint16_t)ti_len) &&
	     sb_put_u16(&b, (uint16_t)ti_len) &&
	     sb_put_u32(&b, (uint32_t)(CHALLENGE_HDR + tlen));
	/* Version (MS-NLMP §2.2.2.10): 6.1.7601, NTLMSSP_REVISION_W2K3 */
	if (s->flags & NTLMSSP_NEGOTIATE_VERSION)
		ok = ok && sb_put_u8(&b, 6) && sb_put_u8(&b, 1) &&
		     sb_put_u16(&b, 7601) && sb_put_zero(&b, 3) &&
		     sb_put_u8(&b, 0x0f);
	else
		ok = ok && sb_put_zero(&b, 8);
	ok = ok && sb_put_bytes(&b, nbc, tlen) &&
	     put_av(&b, MsvAvNbDomainName, nbd, nbd_len) &&
	     put_av(&b, MsvAvNbComputerName, nbc, nbc_len) &&
	     put_av(&b, MsvAvDnsDomainName, dnsd, dnsd_len) &&
	     put_av(&b, MsvAvDnsComputerName, dnsc, dnsc_len) &&
	     put_av(&b, MsvAvTimestamp, ts, sizeof(ts)) &&
	     put_av(&b, MsvAvEOL, NULL, 0);
	if (!ok || b.pos != total)
		return -EINVAL;
	s->challenge_len = total;
	return 0;
}

int ntlmssp_server_negotiate(struct ntlmssp_server *s,
			     const struct ntlmssp_names *names,
			     const uint8_t *in, size_t len)
{
	struct smb2_buf msg, domain, workstation;
	uint32_t type, cflags, lowest = UINT32_MAX;
	const uint8_t *sig;
	int ret;

	if (s->state != NTLMSSP_WANT_NEGOTIATE)
		return -EPROTO;
	s->state = NTLMSSP_FAILED;
	if (len > NTLMSSP_NEGOTIATE_MAX)
		return -EINVAL;
	sb_init(&msg, (void *)in, len); /* NOLINT: read only */
	sig = sb_take(&msg, sizeof(ntlmssp_sig));
	if (!sig || memcmp(sig, ntlmssp_sig, sizeof(ntlmssp_sig)) != 0 ||
	    !sb_get_u32(&msg, &type) || type != NTLMSSP_NEGOTIATE_MESSAGE ||
	    !sb_get_u32(&msg, &cflags))
		return -EINVAL;
	/* DomainNameFields and WorkstationFields (OEM, unused) are
	 * optional in old clients' 16-byte messages, but checked if there */
	if (sb_remaining(&msg) >= 16 &&
	    (!get_field(&msg, &msg, 32, &lowest, &domain) ||
	     !get_field(&msg, &msg, 32, &lowest, &workstation)))
		return -EINVAL;
	if ((cflags & required_flags) != required_flags ||
	    (cflags & NTLMSSP_NEGOTIATE_DATAGRAM))
		return -EOPNOTSUPP;
	s->flags = (cflags & echoed_flags) | NTLMSSP_NEGOTIATE_UNICODE |
		   NTLMSSP_NEGOTIATE_NTLM | NTLMSSP_NEGOTIATE_TARGET_INFO;
	if (cflags & NTLMSSP_REQUEST_TARGET)
		s->flags |= NTLMSSP_TARGET_TYPE_SERVER;
	if (!s->fixed) {
		ret = ntlm_random(s->server_challenge,
				  sizeof(s->server_challenge));
		if (ret)
			return ret;
		s->timestamp = filetime_now();
	}
	s->negotiate = malloc(len);
	if (!s->negotiate)
		return -ENOMEM;
	memcpy(s->negotiate, in, len);
	s->negotiate_len = len;
	ret = build_challenge(s, names);
	if (ret)
		return ret;
	s->state = NTLMSSP_WANT_AUTHENTICATE;
	return 0;
}

int ntlmv2_ntowf(const uint8_t nt_hash[NTLM_HASH_LEN], const uint8_t *user,
		 size_t user_len, const uint8_t *domain, size_t domain_len,
		 uint8_t out[NTLM_HASH_LEN])
{
	uint8_t upper[NTLMSSP_STRING_MAX];
	struct ntlm_part parts[2] = {
		{upper, user_len},
		{domain, domain_len},
	};

	if (user_len > sizeof(upper))
		return -EINVAL;
	utf16le_upper(user, user_len, upper);
	return ntlm_hmac_md5(nt_hash, NTLM_HASH_LEN, parts, 2, out);
}

int ntlmv2_proof(const uint8_t ntowf[NTLM_HASH_LEN],
		 const uint8_t server_challenge[8], const uint8_t *temp,
		 size_t temp_len, uint8_t out[NTLM_HASH_LEN])
{
	struct ntlm_part parts[2] = {
		{server_challenge, 8},
		{temp, temp_len},
	};

	return ntlm_hmac_md5(ntowf, NTLM_HASH_LEN, parts, 2, out);
}

int ntlmv2_session_base_key(const uint8_t ntowf[NTLM_HASH_LEN],
			    const uint8_t proof[NTLM_HASH_LEN],
			    uint8_t out[NTLM_HASH_LEN])
{
	struct ntlm_part part = {proof, NTLM_HASH_LEN};

	return ntlm_hmac_md5(ntowf, NTLM_HASH_LEN, &part, 1, out);
}

/*
 * The NTLMv2_CLIENT_CHALLENGE's AV pairs (MS-NLMP §2.2.2.7): well formed
 * up to MsvAvEOL; MsvAvFlags into *@av_flags (0 when absent).
 */
static bool parse_blob(const struct smb2_buf *nt, uint32_t *av_flags)
{
	struct smb2_buf av;
	const uint8_t *v;
	uint16_t id, n;

	*av_flags = 0;
	if (nt->base[NTLMV2_PROOF_LEN] != 1 ||
	    nt->base[NTLMV2_PROOF_LEN + 1] != 1) /* RespType, HiRespType */
		return false;
	if (!sb_range(nt, NTLMV2_PROOF_LEN + NTLMV2_TEMP_HDR,
		      nt->len - NTLMV2_PROOF_LEN - NTLMV2_TEMP_HDR, &av))
		return false;
	for (;;) {
		if (!sb_get_u16(&av, &id) || !sb_get_u16(&av, &n))
			return false;
		v = sb_take(&av, n);
		if (!v)
			return false;
		if (id == MsvAvEOL)
			return true;
		if (id == MsvAvFlags) {
			if (n != 4)
				return false;
			*av_flags = get_le32(v);
		}
	}
}

/* NTOWFv2 of @u for @domain, and whether it proves @nt (constant time). */
static int try_domain(const uint8_t hash[NTLM_HASH_LEN],
		      const struct smb2_buf *user, const uint8_t *domain,
		      size_t domain_len, const uint8_t chal[8],
		      const struct smb2_buf *nt, uint8_t ntowf[NTLM_HASH_LEN],
		      bool *match)
{
	uint8_t proof[NTLM_HASH_LEN];
	int ret;

	ret = ntlmv2_ntowf(hash, user->base, user->len, domain, domain_len,
			   ntowf);
	if (!ret)
		ret = ntlmv2_proof(ntowf, chal, nt->base + NTLMV2_PROOF_LEN,
				   nt->len - NTLMV2_PROOF_LEN, proof);
	if (!ret)
		*match = ntlm_equal(proof, nt->base, NTLMV2_PROOF_LEN);
	ntlm_wipe(proof, sizeof(proof));
	return ret;
}

/*
 * Prove the NT response with @hash (MS-NLMP §3.3.2). The domain is the
 * one the client hashed with; as Samba does, its upper-cased form and the
 * empty domain are tried too, for clients that hash another spelling than
 * they send. *@ntowf keeps the key that matched.
 */
static int check_proof(const uint8_t hash[NTLM_HASH_LEN],
		       const struct smb2_buf *user,
		       const struct smb2_buf *domain, const uint8_t chal[8],
		       const struct smb2_buf *nt, uint8_t ntowf[NTLM_HASH_LEN],
		       bool *match)
{
	uint8_t upper[NTLMSSP_STRING_MAX];
	int ret;

	*match = false;
	ret = try_domain(hash, user, domain->base, domain->len, chal, nt, ntowf,
			 match);
	if (ret || *match || domain->len == 0)
		return ret;
	utf16le_upper(domain->base, domain->len, upper);
	if (memcmp(upper, domain->base, domain->len) != 0) {
		ret = try_domain(hash, user, upper, domain->len, chal, nt,
				 ntowf, match);
		if (ret || *match)
			return ret;
	}
	return try_domain(hash, user, upper, 0, chal, nt, ntowf, match);
}

/* MIC = HMAC_MD5(ExportedSessionKey, NEGOTIATE || CHALLENGE ||
 * AUTHENTICATE with the MIC zeroed) (MS-NLMP §3.1.5.1.2) */
static int check_mic(struct ntlmssp_server *s, const struct smb2_buf *msg,
		     bool *match)
{
	static const uint8_t zero[16];
	uint8_t mic[NTLM_HASH_LEN];
	struct ntlm_part parts[] = {
		{s->negotiate, s->negotiate_len},
		{s->challenge, s->challenge_len},
		{msg->base, AUTH_MIC_OFF},
		{zero, sizeof(zero)},
		{msg->base + AUTH_MIC_END, msg->len - AUTH_MIC_END},
	};
	int ret;

	ret = ntlm_hmac_md5(s->session_key, sizeof(s->session_key), parts,
			    sizeof(parts) / sizeof(parts[0]), mic);
	*match = !ret && ntlm_equal(mic, msg->base + AUTH_MIC_OFF, 16);
	ntlm_wipe(mic, sizeof(mic));
	return ret;
}

static void to_utf8(const struct smb2_buf *u16, char *out, size_t max)
{
	size_t n = 0;

	if (utf16le_to_utf8(u16->base, u16->len, out, max - 1, &n, false))
		n = 0;
	out[n] = '\0';
}

static int authenticate(struct ntlmssp_server *s, struct smb2_users *db,
			const uint8_t *in, size_t len)
{
	struct smb2_buf msg, lm, nt, dom, usr, ws, ersk;
	uint8_t hash[NTLM_HASH_LEN] = {0}, ntowf[NTLM_HASH_LEN];
	uint8_t base_key[NTLM_HASH_LEN];
	uint32_t type, aflags, av_flags, lowest = UINT32_MAX;
	struct smb2_user u = {0};
	const uint8_t *sig;
	bool found, match = false;
	size_t n = 0;
	int ret;

	if (len > NTLMSSP_AUTHENTICATE_MAX)
		return -EINVAL;
	sb_init(&msg, (void *)in, len); /* NOLINT: read only */
	sig = sb_take(&msg, sizeof(ntlmssp_sig));
	if (!sig || memcmp(sig, ntlmssp_sig, sizeof(ntlmssp_sig)) != 0 ||
	    !sb_get_u32(&msg, &type) || type != NTLMSSP_AUTHENTICATE_MESSAGE)
		return -EINVAL;
	if (!get_field(&msg, &msg, AUTH_HDR, &lowest, &lm) ||
	    !get_field(&msg, &msg, AUTH_HDR, &lowest, &nt) ||
	    !get_field(&msg, &msg, AUTH_HDR, &lowest, &dom) ||
	    !get_field(&msg, &msg, AUTH_HDR, &lowest, &usr) ||
	    !get_field(&msg, &msg, AUTH_HDR, &lowest, &ws) ||
	    !get_field(&msg, &msg, AUTH_HDR, &lowest, &ersk) ||
	    !sb_get_u32(&msg, &aflags))
		return -EINVAL;
	/* names are UTF-16LE: Unicode was required at NEGOTIATE */
	if ((dom.len | usr.len | ws.len) & 1 || dom.len > NTLMSSP_STRING_MAX ||
	    usr.len > NTLMSSP_STRING_MAX || ws.len > NTLMSSP_STRING_MAX)
		return -EINVAL;
	if (utf16le_to_utf8(usr.base, usr.len, s->client_user,
			    sizeof(s->client_user) - 1, &n, false))
		return -EINVAL;
	s->client_user[n] = '\0';
	if (utf16le_to_utf8(dom.base, dom.len, s->client_domain,
			    sizeof(s->client_domain) - 1, &n, false))
		return -EINVAL;
	s->client_domain[n] = '\0';
	to_utf8(&ws, s->client_workstation, sizeof(s->client_workstation));
	s->auth_flags = s->flags & aflags;

	/* anonymous (MS-NLMP §3.2.5.1.2): no user, no NT response, an LM
	 * response that is empty or one zero byte */
	if (nt.len == 0) {
		if (usr.len || lm.len > 1 || (lm.len == 1 && lm.base[0]))
			return -EACCES;
		s->anonymous = true;
		return 0;
	}
	if (nt.len == NTLMV1_RESP_LEN)
		return -EOPNOTSUPP;
	if (nt.len < NTLMV2_PROOF_LEN + NTLMV2_TEMP_HDR + 4 ||
	    !parse_blob(&nt, &av_flags))
		return -EINVAL;
	/* the MIC sits between the header and the payload */
	if ((av_flags & MSV_AV_FLAG_MIC) &&
	    (len < AUTH_MIC_END || lowest < AUTH_MIC_END))
		return -EINVAL;
	if ((s->auth_flags & NTLMSSP_NEGOTIATE_KEY_EXCH) &&
	    ersk.len != NTLM_HASH_LEN)
		return -EINVAL;
	if (usr.len == 0)
		return -EACCES;

	/* an unknown user costs the same HMACs as a wrong password */
	found = smb2_users_lookup(db, s->client_user, strlen(s->client_user),
				  &u) == 0;
	if (found)
		memcpy(hash, u.nt_hash, sizeof(hash));
	ret = check_proof(hash, &usr, &dom, s->server_challenge, &nt, ntowf,
			  &match);
	if (ret)
		goto out_wipe;
	ret = -EACCES;
	if (!found || !match)
		goto out_wipe;
	/* NTLMv2: KeyExchangeKey = SessionBaseKey (MS-NLMP §3.4.5.1) */
	ret = ntlmv2_session_base_key(ntowf, nt.base, base_key);
	if (ret)
		goto out_wipe;
	if (s->auth_flags & NTLMSSP_NEGOTIATE_KEY_EXCH)
		ntlm_rc4(base_key, ersk.base, NTLM_HASH_LEN, s->session_key);
	else
		memcpy(s->session_key, base_key, NTLM_HASH_LEN);
	if (av_flags & MSV_AV_FLAG_MIC) {
		ret = check_mic(s, &(struct smb2_buf){msg.base, 0, len},
				&match);
		if (ret)
			goto out_wipe;
		ret = -EACCES;
		if (!match)
			goto out_wipe;
		s->mic_present = true;
	}
	s->user = u;
	ntlm_wipe(s->user.nt_hash, sizeof(s->user.nt_hash));
	ret = 0;
out_wipe:
	if (ret)
		ntlm_wipe(s->session_key, sizeof(s->session_key));
	ntlm_wipe(&u, sizeof(u));
	ntlm_wipe(hash, sizeof(hash));
	ntlm_wipe(ntowf, sizeof(ntowf));
	ntlm_wipe(base_key, sizeof(base_key));
	return ret;
}

int ntlmssp_server_authenticate(struct ntlmssp_server *s, struct smb2_users *db,
				const uint8_t *in, size_t len)
{
	int ret;

	if (s->state != NTLMSSP_WANT_AUTHENTICATE)
		return -EPROTO;
	s->state = NTLMSSP_FAILED; /* one AUTHENTICATE per challenge */
	ret = authenticate(s, db, in, len);
	if (ret == 0)
		s->state = NTLMSSP_DONE;
	return ret;
}

int ntlmssp_mac(const struct ntlmssp_server *s, bool to_client, uint32_t seq,
		const uint8_t *msg, size_t len, uint8_t mac[16])
{
	static const char c2s_sign[] =
		"session key to client-to-server signing key magic constant";
	static const char s2c_sign[] =
		"session key to server-to-client signing key magic constant";
	static const char c2s_seal[] =
		"session key to client-to-server sealing key magic constant";
	static const char s2c_seal[] =
		"session key to server-to-client sealing key magic constant";
	/* SIGNKEY and SEALKEY (MS-NLMP §3.4.5.2, §3.4.5.3): the magic
	 * constants are hashed with their terminating NUL */
	struct ntlm_part sign[2] = {
		{s->session_key, NTLM_HASH_LEN},
		{to_client ? s2c_sign : c2s_sign, sizeof(c2s_sign)},
	};
	struct ntlm_part seal[2] = {
		{s->session_key, NTLM_HASH_LEN},
		{to_client ? s2c_seal : c2s_seal, sizeof(c2s_seal)},
	};
	uint8_t sign_key[NTLM_HASH_LEN], seal_key[NTLM_HASH_LEN];
	uint8_t seqb[4], hm[NTLM_HASH_LEN];
	struct ntlm_part body[2] = {
		{seqb, sizeof(seqb)},
		{msg, len},
	};
	int ret;

	if (s->state != NTLMSSP_DONE || s->anonymous)
		return -EPROTO;
	put_le32(seqb, seq);
	ret = ntlm_md5(sign, 2, sign_key);
	if (!ret)
		ret = ntlm_md5(seal, 2, seal_key);
	if (!ret)
		ret = ntlm_hmac_md5(sign_key, sizeof(sign_key), body, 2, hm);
	if (!ret) {
		/* Version 1, Checksum (8 bytes), SeqNum */
		put_le32(mac, 1);
		if (s->auth_flags & NTLMSSP_NEGOTIATE_KEY_EXCH)
			ntlm_rc4(seal_key, hm, 8, mac + 4);
		else
			memcpy(mac + 4, hm, 8);
		put_le32(mac + 12, seq);
	}
	ntlm_wipe(sign_key, sizeof(sign_key));
	ntlm_wipe(seal_key, sizeof(seal_key));
	ntlm_wipe(hm, sizeof(hm));
	return ret;
}
