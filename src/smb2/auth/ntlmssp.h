/* SPDX-License-Identifier: MIT */
#ifndef NASD_SMB2_AUTH_NTLMSSP_H
#define NASD_SMB2_AUTH_NTLMSSP_H

/*
 * NTLMSSP, the server side (MS-NLMP): NEGOTIATE_MESSAGE in,
 * CHALLENGE_MESSAGE out, AUTHENTICATE_MESSAGE in and checked. NTLMv2 only
 * (MS-NLMP §3.3.2): an NTLMv1 response (24 bytes) is refused, and so is a
 * client that does not offer Unicode, extended session security and
 * 128-bit keys (every client of the last twenty years does).
 *
 * Every (offset, length) field is taken through sb_range(), so none can
 * point outside the message or wrap; a non-empty field may not overlap
 * the fixed header (nor the MIC, when there is one).
 *
 * The blob's timestamp is not checked against the clock: the 8-byte
 * server challenge is random and used for one AUTHENTICATE only, which
 * already makes a proof unusable for a replay.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "smb2/auth/ntlm_crypto.h"
#include "smb2/auth/users.h"
#include "smb2/smb2_buf.h"

/* NegotiateFlags (MS-NLMP §2.2.2.5) */
#define NTLMSSP_NEGOTIATE_UNICODE		   0x00000001u
#define NTLM_NEGOTIATE_OEM			   0x00000002u
#define NTLMSSP_REQUEST_TARGET			   0x00000004u
#define NTLMSSP_NEGOTIATE_SIGN			   0x00000010u
#define NTLMSSP_NEGOTIATE_SEAL			   0x00000020u
#define NTLMSSP_NEGOTIATE_DATAGRAM		   0x00000040u
#define NTLMSSP_NEGOTIATE_LM_KEY		   0x00000080u
#define NTLMSSP_NEGOTIATE_NTLM			   0x00000200u
#define NTLMSSP_ANONYMOUS			   0x00000800u
#define NTLMSSP_NEGOTIATE_ALWAYS_SIGN		   0x00008000u
#define NTLMSSP_TARGET_TYPE_DOMAIN		   0x00010000u
#define NTLMSSP_TARGET_TYPE_SERVER		   0x00020000u
#define NTLMSSP_NEGOTIATE_EXTENDED_SESSIONSECURITY 0x00080000u
#define NTLMSSP_NEGOTIATE_IDENTIFY		   0x00100000u
#define NTLMSSP_NEGOTIATE_TARGET_INFO		   0x00800000u
#define NTLMSSP_NEGOTIATE_VERSION		   0x02000000u
#define NTLMSSP_NEGOTIATE_128			   0x20000000u
#define NTLMSSP_NEGOTIATE_KEY_EXCH		   0x40000000u
#define NTLMSSP_NEGOTIATE_56			   0x80000000u

/* AV_PAIR AvId (MS-NLMP §2.2.2.1) */
#define MsvAvEOL	     0
#define MsvAvNbComputerName  1
#define MsvAvNbDomainName    2
#define MsvAvDnsComputerName 3
#define MsvAvDnsDomainName   4
#define MsvAvFlags	     6
#define MsvAvTimestamp	     7
#define MSV_AV_FLAG_MIC	     0x00000002u /* MsvAvFlags: a MIC is present */

#define NTLMSSP_NEGOTIATE_MAX	 4096  /* bytes of NEGOTIATE_MESSAGE */
#define NTLMSSP_AUTHENTICATE_MAX 65535 /* bytes of AUTHENTICATE_MESSAGE */
#define NTLMSSP_STRING_MAX	 512   /* bytes of a UTF-16LE name field */
#define NTLMSSP_NAME_UTF8_MAX	 (NTLMSSP_STRING_MAX / 2 * 3)

/* The names a CHALLENGE_MESSAGE carries (UTF-8, borrowed). */
struct ntlmssp_names {
	const char *nb_computer;
	const char *nb_domain;
	const char *dns_computer;
	const char *dns_domain;
};

enum ntlmssp_state {
	NTLMSSP_WANT_NEGOTIATE,
	NTLMSSP_WANT_AUTHENTICATE,
	NTLMSSP_DONE,
	NTLMSSP_FAILED,
};

/* One exchange. Zero it (or ntlmssp_server_init()) before use. */
struct ntlmssp_server {
	enum ntlmssp_state state;
	uint32_t flags; /* as answered in the CHALLENGE_MESSAGE */
	uint8_t server_challenge[8];
	uint64_t timestamp; /* FILETIME sent in MsvAvTimestamp */
	bool fixed;	    /* tests: challenge and time were given */

	/* the first two messages as sent, for the MIC (heap, owned) */
	uint8_t *negotiate;
	size_t negotiate_len;
	uint8_t *challenge;
	size_t challenge_len;

	/* set by the AUTHENTICATE_MESSAGE */
	uint32_t auth_flags; /* ours & the client's final flags */
	bool anonymous;
	bool mic_present; /* MsvAvFlags said so, and it matched */
	uint8_t session_key[NTLM_HASH_LEN]; /* ExportedSessionKey */
	struct smb2_user user; /* the database's entry (hash wiped) */
	char client_user[NTLMSSP_NAME_UTF8_MAX + 1];
	char client_domain[NTLMSSP_NAME_UTF8_MAX + 1];
	char client_workstation[NTLMSSP_NAME_UTF8_MAX + 1];
};

/* ntlmssp_server_init() - a fresh exchange. */
void ntlmssp_server_init(struct ntlmssp_server *s);

/*
 * ntlmssp_server_fix_challenge() - tests and test vectors only: use
 * @challenge and @filetime instead of RAND_bytes() and the clock. Call
 * before ntlmssp_server_negotiate().
 */
void ntlmssp_server_fix_challenge(struct ntlmssp_server *s,
				  const uint8_t challenge[8],
				  uint64_t filetime);

/*
 * ntlmssp_server_negotiate() - take the client's NEGOTIATE_MESSAGE (@len
 * bytes at @in, copied) and build the CHALLENGE_MESSAGE to send in
 * s->challenge, s->challenge_len (MS-NLMP §3.2.5.1.1; owned by @s).
 * Returns 0, -EINVAL (malformed, or a name in @names that is not UTF-8),
 * -EOPNOTSUPP (no Unicode, no extended session security, no 128-bit keys,
 * datagram), -ENOMEM, -EIO, -EPROTO (wrong state).
 */
int ntlmssp_server_negotiate(struct ntlmssp_server *s,
			     const struct ntlmssp_names *names,
			     const uint8_t *in, size_t len);

/*
 * ntlmssp_server_authenticate() - check the AUTHENTICATE_MESSAGE (@len
 * bytes at @in) against @db (MS-NLMP §3.2.5.1.2, §3.3.2): on success, the
 * user, anonymous flag and session key are in @s. Returns 0, -EACCES
 * (unknown user, wrong password, MIC mismatch, a user name without a
 * response), -EINVAL (malformed), -EOPNOTSUPP (NTLMv1), -ENOMEM, -EIO,
 * -EPROTO (wrong state). The exchange is over either way.
 */
int ntlmssp_server_authenticate(struct ntlmssp_server *s, struct smb2_users *db,
				const uint8_t *in, size_t len);

/*
 * ntlmssp_mac() - the 16-byte NTLMSSP_MESSAGE_SIGNATURE of @len bytes at
 * @msg with sequence number @seq (MS-NLMP §3.4.4.2, extended session
 * security, 128-bit keys), made with the server-to-client keys if
 * @to_client, else the client-to-server ones, after a successful
 * AUTHENTICATE. The RC4 sealing of the checksum (KEY_EXCH) starts a fresh
 * key stream: this is for the one signature each way that SPNEGO's
 * mechListMIC needs. Returns 0 or -errno.
 */
int ntlmssp_mac(const struct ntlmssp_server *s, bool to_client, uint32_t seq,
		const uint8_t *msg, size_t len, uint8_t mac[16]);

/* ntlmssp_server_clear() - wipe keys and free the saved messages. */
void ntlmssp_server_clear(struct ntlmssp_server *s);

/*
 * NTLMv2 (MS-NLMP §3.3.2), exposed for the specification's test vectors.
 * Names are UTF-16LE as on the wire; @user is upper-cased here.
 */
int ntlmv2_ntowf(const uint8_t nt_hash[NTLM_HASH_LEN], const uint8_t *user,
		 size_t user_len, const uint8_t *domain, size_t domain_len,
		 uint8_t out[NTLM_HASH_LEN]);
/* NTProofStr = HMAC_MD5(NTOWFv2, ServerChallenge || temp) */
int ntlmv2_proof(const uint8_t ntowf[NTLM_HASH_LEN],
		 const uint8_t server_challenge[8], const uint8_t *temp,
		 size_t temp_len, uint8_t out[NTLM_HASH_LEN]);
/* SessionBaseKey = HMAC_MD5(NTOWFv2, NTProofStr) */
int ntlmv2_session_base_key(const uint8_t ntowf[NTLM_HASH_LEN],
			    const uint8_t proof[NTLM_HASH_LEN],
			    uint8_t out[NTLM_HASH_LEN]);

#endif
