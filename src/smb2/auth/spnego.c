/* SPDX-License-Identifier: MIT */
/*
 * SPNEGO DER codecs (RFC 4178 §4.2, MS-SPNG §2.2; DER as X.690 §10).
 *
 * A DER element is tag, length, contents. The reader below takes one
 * element at a time from a cursor over its parent's contents (struct der),
 * so a length is always measured against what remains of the parent, and
 * the cursor refuses to go past it. Field decoders are indexed by their
 * context tag number ([0], [1], ...), each appearing at most once and in
 * increasing order, as DER's SEQUENCE encoding has them.
 */
#include <string.h>

#include "smb2/auth/spnego.h"

#define DER_BIT_STRING	   0x03
#define DER_OCTET_STRING   0x04
#define DER_OID		   0x06
#define DER_ENUMERATED	   0x0a
#define DER_GENERAL_STRING 0x1b
#define DER_SEQUENCE	   0x30
#define DER_APPLICATION_0  0x60
#define DER_CONSTRUCTED	   0x20
#define DER_CONTEXT(n)	   (0xa0 | (n))
#define DER_CONTEXT_MASK   0xe0
#define DER_TAG_NUMBER	   0x1f /* a tag number of 31: the long form */

/* 1.3.6.1.5.5.2 (RFC 4178 §3) */
static const uint8_t oid_spnego[] = {0x2b, 0x06, 0x01, 0x05, 0x05, 0x02};
/* 1.3.6.1.4.1.311.2.2.10, NTLMSSP's mechanism OID */
const uint8_t spnego_oid_ntlmssp[10] = {0x2b, 0x06, 0x01, 0x04, 0x01,
					0x82, 0x37, 0x02, 0x02, 0x0a};
/* what Windows and Samba servers put in negHints.hintName (MS-SPNG
 * §2.2.1's NegTokenInit2); clients ignore it */
static const char hint_name[] = "not_defined_in_RFC4178@please_ignore";

/* A cursor over one element's contents and how deep that element is. */
struct der {
	struct smb2_buf b;
	unsigned int depth;
};

static void der_init(struct der *d, const uint8_t *p, size_t len)
{
	/* The decoders only read: the cursor's base is not const because
	 * the same cursor type also encodes. */
	sb_init(&d->b, (void *)p, len); /* NOLINT: read-only use */
	d->depth = 0;
}

static bool der_end(const struct der *d)
{
	return sb_ok(&d->b) && sb_remaining(&d->b) == 0;
}

/*
 * The element at @d's cursor: its @tag, a cursor @in over its contents,
 * and (if @whole is not NULL) a blob over the whole element. False on a
 * long-form tag, an indefinite, over-long (more than 4 bytes) or
 * non-minimal length, a length past the parent's end, or nesting deeper
 * than SPNEGO_MAX_DEPTH.
 */
static bool der_next(struct der *d, uint8_t *tag, struct der *in,
		     struct spnego_blob *whole)
{
	size_t start = d->b.pos, i, n;
	uint32_t len = 0;
	uint8_t t, l, x;
	const uint8_t *p;

	if (!sb_get_u8(&d->b, &t) || (t & DER_TAG_NUMBER) == DER_TAG_NUMBER)
		return false;
	if (!sb_get_u8(&d->b, &l))
		return false;
	if (l < 0x80) {
		len = l;
	} else {
		n = l & 0x7f;
		if (n == 0 || n > 4) /* indefinite (BER only); too long */
			return false;
		for (i = 0; i < n; i++) {
			if (!sb_get_u8(&d->b, &x))
				return false;
			if (i == 0 && x == 0) /* a leading zero: not minimal */
				return false;
			len = len << 8 | x;
		}
		if (len < 0x80) /* the short form was required */
			return false;
	}
	if ((t & DER_CONSTRUCTED) && d->depth + 1 > SPNEGO_MAX_DEPTH)
		return false;
	p = sb_take(&d->b, len);
	if (!p)
		return false;
	der_init(in, p, len);
	in->depth = d->depth + 1;
	if (whole) {
		struct smb2_buf w;

		if (!sb_range(&d->b, start, d->b.pos - start, &w))
			return false;
		whole->p = w.base;
		whole->len = w.len;
	}
	*tag = t;
	return true;
}

static bool der_expect(struct der *d, uint8_t tag, struct der *in)
{
	uint8_t t;

	return der_next(d, &t, in, NULL) && t == tag;
}

/* One primitive element of type @tag filling the rest of @d: @out. */
static bool der_only(struct der *d, uint8_t tag, struct spnego_blob *out)
{
	struct der in;

	if (!der_expect(d, tag, &in) || !der_end(d))
		return false;
	out->p = in.b.base;
	out->len = in.b.len;
	return true;
}

static bool blob_is(const struct spnego_blob *b, const uint8_t *v, size_t n)
{
	return b->len == n && memcmp(b->p, v, n) == 0;
}

/* NegTokenInit fields */

/* [0] MechTypeList ::= SEQUENCE OF MechType (OBJECT IDENTIFIER) */
static bool dec_init_mech_types(struct der *f, struct spnego_init *out)
{
	struct spnego_blob oid;
	struct der list, m;
	uint8_t t;

	if (!der_next(f, &t, &list, &out->mech_types) || t != DER_SEQUENCE ||
	    !der_end(f))
		return false;
	while (!der_end(&list)) {
		if (out->nmechs == SPNEGO_MAX_MECHS ||
		    !der_expect(&list, DER_OID, &m) || m.b.len == 0)
			return false;
		oid.p = m.b.base;
		oid.len = m.b.len;
		if (out->ntlmssp_index < 0 &&
		    blob_is(&oid, spnego_oid_ntlmssp,
			    sizeof(spnego_oid_ntlmssp)))
			out->ntlmssp_index = (int)out->nmechs;
		out->nmechs++;
	}
	return sb_ok(&list.b) && out->nmechs > 0;
}

/* [1] ContextFlags ::= BIT STRING (ignored: SMB2 has no use for it) */
static bool dec_init_req_flags(struct der *f, struct spnego_init *out)
{
	struct spnego_blob bits;

	(void)out;
	return der_only(f, DER_BIT_STRING, &bits) && bits.len >= 1 &&
	       bits.p[0] <= 7;
}

/* [2] mechToken OCTET STRING */
static bool dec_init_mech_token(struct der *f, struct spnego_init *out)
{
	return der_only(f, DER_OCTET_STRING, &out->mech_token);
}

/* NegHints ::= SEQUENCE { hintName [0] GeneralString OPTIONAL,
 *                         hintAddress [1] OCTET STRING OPTIONAL } */
static bool dec_neg_hints(struct der *f)
{
	struct spnego_blob skip;
	struct der seq, h;
	int last = -1;
	uint8_t t;

	if (!der_expect(f, DER_SEQUENCE, &seq) || !der_end(f))
		return false;
	while (!der_end(&seq)) {
		if (!der_next(&seq, &t, &h, NULL))
			return false;
		if (t == DER_CONTEXT(0) && last < 0) {
			if (!der_only(&h, DER_GENERAL_STRING, &skip))
				return false;
			last = 0;
		} else if (t == DER_CONTEXT(1) && last < 1) {
			if (!der_only(&h, DER_OCTET_STRING, &skip))
				return false;
			last = 1;
		} else {
			return false;
		}
	}
	return sb_ok(&seq.b);
}

/* [3] mechListMIC OCTET STRING in NegTokenInit; negHints in
 * NegTokenInit2 (MS-SPNG §2.2.1), which some clients echo */
static bool dec_init_field3(struct der *f, struct spnego_init *out)
{
	if (sb_remaining(&f->b) && f->b.base[f->b.pos] == DER_SEQUENCE)
		return dec_neg_hints(f);
	return der_only(f, DER_OCTET_STRING, &out->mech_list_mic);
}

/* [4] mechListMIC of NegTokenInit2 */
static bool dec_init_mic(struct der *f, struct spnego_init *out)
{
	return der_only(f, DER_OCTET_STRING, &out->mech_list_mic);
}

static bool (*const init_fields[])(struct der *, struct spnego_init *) = {
	[0] = dec_init_mech_types, [1] = dec_init_req_flags,
	[2] = dec_init_mech_token, [3] = dec_init_field3,
	[4] = dec_init_mic,
};

bool spnego_dec_NegTokenInit(const uint8_t *in, size_t len,
			     struct spnego_init *out)
{
	struct der top, app, ctx, seq, f, oid;
	unsigned int n;
	int last = -1;
	uint8_t t;

	memset(out, 0, sizeof(*out));
	out->ntlmssp_index = -1;
	der_init(&top, in, len);
	/* InitialContextToken ::= [APPLICATION 0] IMPLICIT SEQUENCE {
	 *     thisMech MechType, innerContextToken ANY } (RFC 2743 §3.1) */
	if (!der_expect(&top, DER_APPLICATION_0, &app) || !der_end(&top))
		return false;
	if (!der_expect(&app, DER_OID, &oid) ||
	    oid.b.len != sizeof(oid_spnego) ||
	    memcmp(oid.b.base, oid_spnego, sizeof(oid_spnego)) != 0)
		return false;
	/* NegotiationToken ::= CHOICE { negTokenInit [0], ... } */
	if (!der_expect(&app, DER_CONTEXT(0), &ctx) || !der_end(&app))
		return false;
	if (!der_expect(&ctx, DER_SEQUENCE, &seq) || !der_end(&ctx))
		return false;
	while (!der_end(&seq)) {
		if (!der_next(&seq, &t, &f, NULL) ||
		    (t & DER_CONTEXT_MASK) != DER_CONTEXT(0))
			return false;
		n = t & DER_TAG_NUMBER;
		if ((int)n <= last ||
		    n >= sizeof(init_fields) / sizeof(init_fields[0]) ||
		    !init_fields[n](&f, out))
			return false;
		last = (int)n;
	}
	/* mechTypes is the one field RFC 4178 requires */
	return sb_ok(&seq.b) && out->mech_types.p;
}

/* NegTokenResp fields */

/* [0] negState ENUMERATED { 0..3 } */
static bool dec_resp_neg_state(struct der *f, struct spnego_resp *out)
{
	struct spnego_blob e;

	if (!der_only(f, DER_ENUMERATED, &e) || e.len != 1 || e.p[0] > 3)
		return false;
	out->neg_state = e.p[0];
	return true;
}

/* [1] supportedMech MechType */
static bool dec_resp_supported_mech(struct der *f, struct spnego_resp *out)
{
	struct spnego_blob oid;

	if (!der_only(f, DER_OID, &oid) || oid.len == 0)
		return false;
	out->has_supported_mech = true;
	out->supported_mech_ntlmssp =
		blob_is(&oid, spnego_oid_ntlmssp, sizeof(spnego_oid_ntlmssp));
	return true;
}

/* [2] responseToken OCTET STRING */
static bool dec_resp_token(struct der *f, struct spnego_resp *out)
{
	return der_only(f, DER_OCTET_STRING, &out->response_token);
}

/* [3] mechListMIC OCTET STRING */
static bool dec_resp_mic(struct der *f, struct spnego_resp *out)
{
	return der_only(f, DER_OCTET_STRING, &out->mech_list_mic);
}

static bool (*const resp_fields[])(struct der *, struct spnego_resp *) = {
	[0] = dec_resp_neg_state,
	[1] = dec_resp_supported_mech,
	[2] = dec_resp_token,
	[3] = dec_resp_mic,
};

bool spnego_dec_NegTokenResp(const uint8_t *in, size_t len,
			     struct spnego_resp *out)
{
	struct der top, ctx, seq, f;
	unsigned int n;
	int last = -1;
	uint8_t t;

	memset(out, 0, sizeof(*out));
	out->neg_state = SPNEGO_NO_STATE;
	der_init(&top, in, len);
	/* NegotiationToken ::= CHOICE { ..., negTokenResp [1] } */
	if (!der_expect(&top, DER_CONTEXT(1), &ctx) || !der_end(&top))
		return false;
	if (!der_expect(&ctx, DER_SEQUENCE, &seq) || !der_end(&ctx))
		return false;
	while (!der_end(&seq)) {
		if (!der_next(&seq, &t, &f, NULL) ||
		    (t & DER_CONTEXT_MASK) != DER_CONTEXT(0))
			return false;
		n = t & DER_TAG_NUMBER;
		if ((int)n <= last ||
		    n >= sizeof(resp_fields) / sizeof(resp_fields[0]) ||
		    !resp_fields[n](&f, out))
			return false;
		last = (int)n;
	}
	return sb_ok(&seq.b);
}

enum spnego_kind spnego_kind_of(const uint8_t *in, size_t len)
{
	if (len == 0)
		return SPNEGO_KIND_OTHER;
	if (in[0] == DER_APPLICATION_0)
		return SPNEGO_KIND_INIT;
	if (in[0] == DER_CONTEXT(1))
		return SPNEGO_KIND_RESP;
	return SPNEGO_KIND_OTHER;
}

/* Encoding: sizes first (der_size), then the elements front to back. */

static size_t der_len_len(size_t n)
{
	if (n < 0x80)
		return 1;
	if (n <= 0xff)
		return 2;
	if (n <= 0xffff)
		return 3;
	return n <= 0xffffff ? 4 : 5;
}

/* the size of an element with @n bytes of contents */
static size_t der_size(size_t n)
{
	return 1 + der_len_len(n) + n;
}

static bool der_put_hdr(struct smb2_buf *b, uint8_t tag, size_t n)
{
	size_t k = der_len_len(n) - 1;

	if (n > UINT32_MAX || !sb_put_u8(b, tag))
		return false;
	if (!k)
		return sb_put_u8(b, (uint8_t)n);
	if (!sb_put_u8(b, (uint8_t)(0x80 | k)))
		return false;
	while (k--)
		if (!sb_put_u8(b, (uint8_t)(n >> (8 * k))))
			return false;
	return true;
}

static bool der_put(struct smb2_buf *b, uint8_t tag, const void *p, size_t n)
{
	return der_put_hdr(b, tag, n) && sb_put_bytes(b, p, n);
}

bool spnego_enc_NegTokenInit2(struct smb2_buf *b)
{
	size_t hint = sizeof(hint_name) - 1;
	size_t oid = der_size(sizeof(spnego_oid_ntlmssp));
	size_t mechs = der_size(der_size(oid));
	size_t hints = der_size(der_size(der_size(der_size(hint))));
	size_t seq = der_size(mechs + hints);
	size_t app = der_size(sizeof(oid_spnego)) + der_size(seq);

	return der_put_hdr(b, DER_APPLICATION_0, app) &&
	       der_put(b, DER_OID, oid_spnego, sizeof(oid_spnego)) &&
	       der_put_hdr(b, DER_CONTEXT(0), seq) &&
	       der_put_hdr(b, DER_SEQUENCE, mechs + hints) &&
	       /* [0] mechTypes */
	       der_put_hdr(b, DER_CONTEXT(0), der_size(oid)) &&
	       der_put_hdr(b, DER_SEQUENCE, oid) &&
	       der_put(b, DER_OID, spnego_oid_ntlmssp,
		       sizeof(spnego_oid_ntlmssp)) &&
	       /* [3] negHints */
	       der_put_hdr(b, DER_CONTEXT(3),
			   der_size(der_size(der_size(hint)))) &&
	       der_put_hdr(b, DER_SEQUENCE, der_size(der_size(hint))) &&
	       der_put_hdr(b, DER_CONTEXT(0), der_size(hint)) &&
	       der_put(b, DER_GENERAL_STRING, hint_name, hint);
}

bool spnego_enc_NegTokenResp(struct smb2_buf *b, int state, bool supported_mech,
			     const uint8_t *token, size_t token_len,
			     const uint8_t *mic, size_t mic_len)
{
	uint8_t st = (uint8_t)state;
	size_t seq = 0;

	if (state >= 0)
		seq += der_size(der_size(1));
	if (supported_mech)
		seq += der_size(der_size(sizeof(spnego_oid_ntlmssp)));
	if (token)
		seq += der_size(der_size(token_len));
	if (mic)
		seq += der_size(der_size(mic_len));
	if (!der_put_hdr(b, DER_CONTEXT(1), der_size(seq)) ||
	    !der_put_hdr(b, DER_SEQUENCE, seq))
		return false;
	if (state >= 0 && (!der_put_hdr(b, DER_CONTEXT(0), der_size(1)) ||
			   !der_put(b, DER_ENUMERATED, &st, 1)))
		return false;
	if (supported_mech &&
	    (!der_put_hdr(b, DER_CONTEXT(1),
			  der_size(sizeof(spnego_oid_ntlmssp))) ||
	     !der_put(b, DER_OID, spnego_oid_ntlmssp,
		      sizeof(spnego_oid_ntlmssp))))
		return false;
	if (token && (!der_put_hdr(b, DER_CONTEXT(2), der_size(token_len)) ||
		      !der_put(b, DER_OCTET_STRING, token, token_len)))
		return false;
	if (mic && (!der_put_hdr(b, DER_CONTEXT(3), der_size(mic_len)) ||
		    !der_put(b, DER_OCTET_STRING, mic, mic_len)))
		return false;
	return true;
}
