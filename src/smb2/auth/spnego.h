/* SPDX-License-Identifier: MIT */
#ifndef NASD_SMB2_AUTH_SPNEGO_H
#define NASD_SMB2_AUTH_SPNEGO_H

/*
 * SPNEGO (RFC 4178, with MS-SPNG's NegTokenInit2) as an SMB2 server needs
 * it: decode the client's NegTokenInit (inside the GSS-API
 * InitialContextToken, RFC 2743 §3.1) and NegTokenResp; encode the
 * server's NegTokenInit2 hint and NegTokenResp.
 *
 * DER only, read through the bounds-checked cursor: every length is
 * checked against what remains of its enclosing element before anything
 * is taken; indefinite lengths, lengths in more than 4 bytes, non-minimal
 * lengths, high tag numbers, unknown or repeated or out-of-order fields,
 * wrong tags and trailing bytes (after the token or inside any element)
 * are all errors, and constructed elements may nest at most
 * SPNEGO_MAX_DEPTH deep. Decoded tokens borrow the input buffer.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "smb2/smb2_buf.h"

#define SPNEGO_MAX_DEPTH 8  /* the grammar needs 6 */
#define SPNEGO_MAX_MECHS 32 /* mechTypes entries accepted */

/* negState (RFC 4178 §4.2.2). */
enum spnego_neg_state {
	SPNEGO_ACCEPT_COMPLETED = 0,
	SPNEGO_ACCEPT_INCOMPLETE = 1,
	SPNEGO_REJECT = 2,
	SPNEGO_REQUEST_MIC = 3,
	SPNEGO_NO_STATE = -1, /* the field is absent */
};

/* Bytes borrowed from the decoded token; @p is NULL when absent. */
struct spnego_blob {
	const uint8_t *p;
	size_t len;
};

/* A client's NegTokenInit (RFC 4178 §4.2.1). */
struct spnego_init {
	/* The MechTypeList element as received (tag, length, OIDs): DER, so
	 * it is exactly what the mechListMIC covers (RFC 4178 §5). */
	struct spnego_blob mech_types;
	unsigned int nmechs;
	int ntlmssp_index; /* position of NTLMSSP in the list, -1: absent */
	struct spnego_blob mech_token;
	struct spnego_blob mech_list_mic;
};

/* A NegTokenResp (RFC 4178 §4.2.2), either way. */
struct spnego_resp {
	int neg_state; /* enum spnego_neg_state */
	bool has_supported_mech;
	bool supported_mech_ntlmssp;
	struct spnego_blob response_token;
	struct spnego_blob mech_list_mic;
};

/* What a security buffer starts with. */
enum spnego_kind {
	SPNEGO_KIND_OTHER, /* neither: raw NTLMSSP, or garbage */
	SPNEGO_KIND_INIT,  /* 0x60: InitialContextToken */
	SPNEGO_KIND_RESP,  /* 0xa1: NegTokenResp */
};

/* spnego_kind_of() - classify @len bytes at @in by their first byte. */
enum spnego_kind spnego_kind_of(const uint8_t *in, size_t len);

/*
 * spnego_dec_NegTokenInit() - decode an InitialContextToken carrying the
 * SPNEGO OID and a NegTokenInit (or NegTokenInit2, whose negHints are
 * skipped). @out borrows @in. Returns false on any violation (above).
 */
bool spnego_dec_NegTokenInit(const uint8_t *in, size_t len,
			     struct spnego_init *out);

/*
 * spnego_dec_NegTokenResp() - decode a NegTokenResp ([1], no GSS-API
 * header, RFC 4178 §4.2). @out borrows @in. Returns false on any
 * violation, or a negState outside 0..3.
 */
bool spnego_dec_NegTokenResp(const uint8_t *in, size_t len,
			     struct spnego_resp *out);

/*
 * spnego_enc_NegTokenInit2() - the server's first token, for the SMB2
 * NEGOTIATE response (MS-SMB2 §3.3.5.4, MS-SPNG §2.2.1): mechTypes =
 * {NTLMSSP} and negHints.hintName "not_defined_in_RFC4178@please_ignore",
 * as Windows and Samba send. Written at @b's cursor; false when it does
 * not fit.
 */
bool spnego_enc_NegTokenInit2(struct smb2_buf *b);

/*
 * spnego_enc_NegTokenResp() - a server NegTokenResp at @b's cursor:
 * negState @state (SPNEGO_NO_STATE: none), supportedMech NTLMSSP when
 * @supported_mech, responseToken @token and mechListMIC @mic when their
 * pointers are not NULL. False when it does not fit.
 */
bool spnego_enc_NegTokenResp(struct smb2_buf *b, int state, bool supported_mech,
			     const uint8_t *token, size_t token_len,
			     const uint8_t *mic, size_t mic_len);

/* The DER contents of the NTLMSSP mechanism OID 1.3.6.1.4.1.311.2.2.10. */
extern const uint8_t spnego_oid_ntlmssp[10];

#endif
