// SPDX-License-Identifier: MIT
/*
 * nasd-bench SMB2 client: the logon tokens of SESSION_SETUP. NTLMSSP
 * (MS-NLMP §2.2.1.1 NEGOTIATE, §2.2.1.3 AUTHENTICATE with an NTLMv2
 * response, §3.3.2) wrapped in SPNEGO (RFC 4178: NegTokenInit offering
 * only NTLMSSP, then NegTokenResp). No key exchange and no MIC: the
 * ExportedSessionKey is the NTLMv2 SessionBaseKey (§3.4.5.1, KXKEY), and
 * without a MIC neither side needs a mechListMIC.
 *
 * The primitives are nasd's own (src/smb2/auth/ntlm_crypto.c, utf16.c).
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "nb_smb2_int.h"
#include "smb2/auth/ntlm_crypto.h"
#include "smb2/utf16.h"

#define NTLM_FLAGS                                                            \
	(NTLMSSP_NEGOTIATE_UNICODE | NTLMSSP_REQUEST_TARGET |                 \
	 NTLMSSP_NEGOTIATE_SIGN | NTLMSSP_NEGOTIATE_NTLM |                    \
	 NTLMSSP_NEGOTIATE_ALWAYS_SIGN |                                      \
	 NTLMSSP_NEGOTIATE_EXTENDED_SESSIONSECURITY | NTLMSSP_NEGOTIATE_128 | \
	 NTLMSSP_NEGOTIATE_56)

#define AUTH_HDR	64	/* AUTHENTICATE through NegotiateFlags */
#define CHALLENGE_MIN	48	/* through TargetInfoFields */
#define MSV_AV_EOL	0
#define MSV_AV_TIMESTAMP 7
#define FILETIME_UNIX_EPOCH 116444736000000000ull

static const uint8_t ntlmssp_sig[8] = { 'N', 'T', 'L', 'M', 'S', 'S', 'P', 0 };
/* 1.3.6.1.5.5.2 and 1.3.6.1.4.1.311.2.2.10, DER */
static const uint8_t oid_spnego[] = { 0x06, 0x06, 0x2b, 0x06, 0x01, 0x05,
				      0x05, 0x02 };
static const uint8_t oid_ntlmssp[] = { 0x06, 0x0a, 0x2b, 0x06, 0x01, 0x04,
				       0x01, 0x82, 0x37, 0x02, 0x02, 0x0a };

/* ---- DER, built from the back of a buffer ---- */

/*
 * Prepend a tag and the DER length of buf[*start, end) in front of it.
 * Returns false when the buffer has no room left in front.
 */
static bool der_wrap(uint8_t *buf, size_t *start, size_t end, uint8_t tag)
{
	size_t len = end - *start, n = 0, i;
	uint8_t l[5];

	if (len < 0x80) {
		l[n++] = (uint8_t)len;
	} else {
		size_t v = len, k = 0;

		while (v) {
			k++;
			v >>= 8;
		}
		l[n++] = (uint8_t)(0x80 | k);
		for (i = k; i > 0; i--)
			l[n++] = (uint8_t)(len >> (8 * (i - 1)));
	}
	if (*start < n + 1)
		return false;
	*start -= n + 1;
	buf[*start] = tag;
	memcpy(buf + *start + 1, l, n);
	return true;
}

static bool der_prepend(uint8_t *buf, size_t *start, const void *p, size_t n)
{
	if (*start < n)
		return false;
	*start -= n;
	memcpy(buf + *start, p, n);
	return true;
}

/*
 * Read one DER element at p[0, len): its tag, and its contents in
 * [*val, *val + *vlen). Returns bytes taken, 0 if malformed.
 */
static size_t der_read(const uint8_t *p, size_t len, uint8_t *tag,
		       const uint8_t **val, size_t *vlen)
{
	size_t n, i, l = 0;

	if (len < 2)
		return 0;
	*tag = p[0];
	if (p[1] < 0x80) {
		l = p[1];
		n = 2;
	} else {
		unsigned int k = p[1] & 0x7f;

		if (!k || k > 3 || len < 2 + k)
			return 0;
		for (i = 0; i < k; i++)
			l = l << 8 | p[2 + i];
		n = 2 + k;
	}
	if (l > len - n)
		return 0;
	*val = p + n;
	*vlen = l;
	return n + l;
}

/**
 * nb_ntlm_negotiate() - the first SESSION_SETUP token: SPNEGO NegTokenInit
 * offering NTLMSSP, its mechToken an NTLMSSP NEGOTIATE_MESSAGE.
 * @out:  the token, written at its start
 * @max:  room at @out
 * @len:  bytes written
 *
 * Returns 0 or -ENOSPC.
 */
int nb_ntlm_negotiate(uint8_t *out, size_t max, size_t *len)
{
	uint8_t buf[256], neg[32] = { 0 }, mechs[32];
	size_t s = sizeof(buf), e, ms = sizeof(mechs);
	bool ok;

	memcpy(neg, ntlmssp_sig, 8);
	put_le32(neg + 8, 1);
	put_le32(neg + 12, NTLM_FLAGS);
	/* domain and workstation fields empty, at offset 32 */
	put_le32(neg + 20, 32);
	put_le32(neg + 28, 32);

	ok = der_prepend(mechs, &ms, oid_ntlmssp, sizeof(oid_ntlmssp)) &&
	     der_wrap(mechs, &ms, sizeof(mechs), 0x30) &&
	     der_wrap(mechs, &ms, sizeof(mechs), 0xa0);
	e = s;
	ok = ok && der_prepend(buf, &s, neg, sizeof(neg)) &&
	     der_wrap(buf, &s, e, 0x04) && der_wrap(buf, &s, e, 0xa2) &&
	     der_prepend(buf, &s, mechs + ms, sizeof(mechs) - ms) &&
	     der_wrap(buf, &s, e, 0x30) && der_wrap(buf, &s, e, 0xa0) &&
	     der_prepend(buf, &s, oid_spnego, sizeof(oid_spnego)) &&
	     der_wrap(buf, &s, e, 0x60);
	if (!ok || e - s > max)
		return -ENOSPC;
	memcpy(out, buf + s, e - s);
	*len = e - s;
	return 0;
}

/* The NTLMSSP token of a server's NegTokenResp; -EPROTO if it has none. */
static int spnego_token(const uint8_t *in, size_t len, const uint8_t **tok,
			size_t *tok_len)
{
	const uint8_t *v, *seq, *inner;
	size_t vlen, seq_len, n, ilen;
	uint8_t tag;

	if (!der_read(in, len, &tag, &v, &vlen) || tag != 0xa1)
		return -EPROTO;
	if (!der_read(v, vlen, &tag, &seq, &seq_len) || tag != 0x30)
		return -EPROTO;
	while (seq_len) {
		n = der_read(seq, seq_len, &tag, &v, &vlen);
		if (!n)
			return -EPROTO;
		if (tag == 0xa0 && vlen == 3 && v[0] == 0x0a && v[2] == 2)
			return -EACCES;	/* negState reject */
		if (tag == 0xa2) {
			if (!der_read(v, vlen, &tag, &inner, &ilen) ||
			    tag != 0x04)
				return -EPROTO;
			*tok = inner;
			*tok_len = ilen;
			return 0;
		}
		seq += n;
		seq_len -= n;
	}
	return -EPROTO;
}

/* UTF-16LE of @s into @out (@max bytes); its byte length, -errno. */
static long to_utf16(const char *s, uint8_t *out, size_t max)
{
	size_t n = 0;
	int r = utf8_to_utf16le(s, strlen(s), out, max, &n);

	return r < 0 ? r : (long)n;
}

/* FILETIME of the server's MsvAvTimestamp, 0 when its AvPairs have none. */
static uint64_t av_timestamp(const uint8_t *av, size_t len)
{
	while (len >= 4) {
		uint16_t id = get_le16(av), l = get_le16(av + 2);

		if (id == MSV_AV_EOL || (size_t)l + 4 > len)
			break;
		if (id == MSV_AV_TIMESTAMP && l == 8)
			return get_le64(av + 4);
		av += 4 + l;
		len -= 4 + (size_t)l;
	}
	return 0;
}

static void put_field(uint8_t *msg, size_t field, size_t *off,
		      const void *p, size_t len)
{
	put_le16(msg + field, (uint16_t)len);
	put_le16(msg + field + 2, (uint16_t)len);
	put_le32(msg + field + 4, (uint32_t)*off);
	if (len)
		memcpy(msg + *off, p, len);
	*off += len;
}

/**
 * nb_ntlm_authenticate() - the second SESSION_SETUP token: SPNEGO
 * NegTokenResp carrying an NTLMSSP AUTHENTICATE_MESSAGE with an NTLMv2
 * response to the CHALLENGE_MESSAGE in the server's token @in.
 * @o:       user, password, domain
 * @in:      the server's SESSION_SETUP security buffer
 * @in_len:  its length
 * @out:     the token, @max bytes of room
 * @max:     room at @out
 * @len:     bytes written
 * @key:     the session key (ExportedSessionKey = SessionBaseKey)
 *
 * NTOWFv2 = HMAC_MD5(MD4(UTF16(password)), UTF16(UPPER(user) || domain));
 * NTProofStr = HMAC_MD5(NTOWFv2, ServerChallenge || temp) with temp =
 * 1, 1, Z(6), time, client challenge, Z(4), the server's AvPairs, Z(4);
 * SessionBaseKey = HMAC_MD5(NTOWFv2, NTProofStr) (MS-NLMP §3.3.2).
 * Returns 0, -EPROTO (no challenge in @in), -EACCES (rejected),
 * -ENOSPC, -EINVAL (names not UTF-8), -EIO.
 */
int nb_ntlm_authenticate(const struct nb_smb2_opts *o, const uint8_t *in,
			 size_t in_len, uint8_t *out, size_t max, size_t *len,
			 uint8_t key[16])
{
	uint8_t nt_hash[16], ntowf[16], proof[16], lm[24], cc[8];
	uint8_t user16[512], upper16[512], dom16[512], ws16[64];
	uint8_t *msg = NULL, *temp = NULL;
	const uint8_t *chal, *av, *sc;
	size_t chal_len, av_len, temp_len, off, s, e, cap;
	long ul, dl, wl;
	uint32_t flags;
	uint64_t ts;
	struct timespec now;
	int r;

	r = spnego_token(in, in_len, &chal, &chal_len);
	if (r < 0)
		return r;
	if (chal_len < CHALLENGE_MIN || memcmp(chal, ntlmssp_sig, 8) ||
	    get_le32(chal + 8) != 2)
		return -EPROTO;
	flags = get_le32(chal + 20) & NTLM_FLAGS;
	sc = chal + 24;
	av_len = get_le16(chal + 40);
	if (get_le32(chal + 44) > chal_len ||
	    av_len > chal_len - get_le32(chal + 44))
		return -EPROTO;
	av = chal + get_le32(chal + 44);

	ul = to_utf16(o->user, user16, sizeof(user16));
	dl = to_utf16(o->domain, dom16, sizeof(dom16));
	wl = to_utf16("NASDBENCH", ws16, sizeof(ws16));
	if (ul < 0 || dl < 0 || wl < 0)
		return -EINVAL;
	r = ntlm_nt_hash(o->password, strlen(o->password), nt_hash);
	if (r < 0)
		return r;
	utf16le_upper(user16, (size_t)ul, upper16);
	{
		struct ntlm_part p[] = { { upper16, (size_t)ul },
					 { dom16, (size_t)dl } };

		r = ntlm_hmac_md5(nt_hash, 16, p, 2, ntowf);
	}
	if (r < 0)
		goto out;

	ts = av_timestamp(av, av_len);
	if (!ts) {
		clock_gettime(CLOCK_REALTIME, &now);
		ts = FILETIME_UNIX_EPOCH + (uint64_t)now.tv_sec * 10000000ull +
		     (uint64_t)now.tv_nsec / 100;
	}
	r = ntlm_random(cc, sizeof(cc));
	if (r < 0)
		goto out;
	temp_len = 28 + av_len + 4;
	temp = calloc(1, temp_len);
	if (!temp) {
		r = -ENOMEM;
		goto out;
	}
	temp[0] = 1;
	temp[1] = 1;
	put_le64(temp + 8, ts);
	memcpy(temp + 16, cc, 8);
	memcpy(temp + 28, av, av_len);
	{
		struct ntlm_part p[] = { { sc, 8 }, { temp, temp_len } };

		r = ntlm_hmac_md5(ntowf, 16, p, 2, proof);
	}
	if (r < 0)
		goto out;
	{
		struct ntlm_part p[] = { { proof, 16 } };

		r = ntlm_hmac_md5(ntowf, 16, p, 1, key);
	}
	if (r < 0)
		goto out;
	/* LMv2 (§3.3.2); Z(24) when the server sent a timestamp, as
	 * §3.1.5.1.2 asks */
	memset(lm, 0, sizeof(lm));
	if (!av_timestamp(av, av_len)) {
		struct ntlm_part p[] = { { sc, 8 }, { cc, 8 } };

		r = ntlm_hmac_md5(ntowf, 16, p, 2, lm);
		if (r < 0)
			goto out;
		memcpy(lm + 16, cc, 8);
	}

	/* AUTHENTICATE_MESSAGE, then the SPNEGO wrapping in front of it */
	cap = 64 + AUTH_HDR + 24 + 16 + temp_len + (size_t)ul + (size_t)dl +
	      (size_t)wl;
	msg = calloc(1, cap);
	if (!msg) {
		r = -ENOMEM;
		goto out;
	}
	s = 64;
	off = AUTH_HDR;
	memcpy(msg + s, ntlmssp_sig, 8);
	put_le32(msg + s + 8, 3);
	put_field(msg + s, 28, &off, dom16, (size_t)dl);
	put_field(msg + s, 36, &off, user16, (size_t)ul);
	put_field(msg + s, 44, &off, ws16, (size_t)wl);
	put_field(msg + s, 12, &off, lm, sizeof(lm));
	put_field(msg + s, 20, &off, proof, 16);
	memcpy(msg + s + off, temp, temp_len);	/* NTProofStr || temp */
	off += temp_len;
	put_le16(msg + s + 20, (uint16_t)(16 + temp_len));
	put_le16(msg + s + 22, (uint16_t)(16 + temp_len));
	put_field(msg + s, 52, &off, NULL, 0);
	put_le32(msg + s + 60, flags);
	e = s + off;
	if (!der_wrap(msg, &s, e, 0x04) || !der_wrap(msg, &s, e, 0xa2) ||
	    !der_wrap(msg, &s, e, 0x30) || !der_wrap(msg, &s, e, 0xa1) ||
	    e - s > max) {
		r = -ENOSPC;
		goto out;
	}
	memcpy(out, msg + s, e - s);
	*len = e - s;
	r = 0;
out:
	ntlm_wipe(nt_hash, sizeof(nt_hash));
	ntlm_wipe(ntowf, sizeof(ntowf));
	if (msg) {
		ntlm_wipe(msg, cap);
		free(msg);
	}
	free(temp);
	return r;
}
