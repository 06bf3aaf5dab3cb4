/* SPDX-License-Identifier: MIT */
#ifndef NASD_SMB2_AUTH_AUTH_H
#define NASD_SMB2_AUTH_AUTH_H

/*
 * SESSION_SETUP's authentication exchange (MS-SMB2 §3.3.5.5): what the
 * SMB2 engine calls. One struct smb2_auth per exchange (per new session or
 * re-authentication); it holds only this exchange's state, takes no lock
 * but the user database's brief one at AUTHENTICATE, and logs nothing.
 *
 * Tokens: SPNEGO (RFC 4178) carrying NTLMSSP, as Windows, smbclient and
 * impacket send, or raw NTLMSSP without SPNEGO, as the Linux cifs client
 * sends in SMB2 (the first token decides, for the whole exchange). NTLMv2
 * only; anonymous (NULL session) logons are reported as such.
 *
 * How the engine drives it:
 *
 *   NEGOTIATE response: SecurityBuffer = smb2_auth_negotiate_token().
 *
 *   First SESSION_SETUP of a session (SessionId 0, or a re-authentication
 *   of a live session): a = smb2_auth_new(&cfg). Each SESSION_SETUP
 *   request's SecurityBuffer goes to smb2_auth_step(a, ...):
 *     SMB2_AUTH_MORE  reply STATUS_MORE_PROCESSING_REQUIRED with the
 *                     output as SecurityBuffer; keep @a for the next
 *                     request of the same session.
 *     0 (done)        the user is known: smb2_auth_user/uid/gid(); for a
 *                     non-anonymous logon, smb2_auth_session_key() is the
 *                     MS-SMB2 Session.SessionKey (§3.3.5.5.3) from which
 *                     the signing/encryption keys are derived. Reply
 *                     STATUS_SUCCESS with the output (an SPNEGO
 *                     accept-completed, possibly with a mechListMIC; empty
 *                     in raw NTLMSSP). Then smb2_auth_free(a).
 *     < 0             logon failed: reply with the error status (an SMB2
 *                     ERROR response, which has no SecurityBuffer: the
 *                     SPNEGO reject left in @out may be dropped), free @a
 *                     and, per MS-SMB2 §3.3.5.5.3, the session (or keep
 *                     the old identity on a failed re-authentication).
 *   The engine should cap the number of steps and the time an exchange
 *   may take, and delay failed logons.
 *
 * Anonymous: smb2_auth_anonymous() true means no user, no password and no
 * session key: SMB2_SESSION_FLAG_IS_NULL, no signing; the engine admits
 * such a session to IPC$ only (SMB3.md tier 1).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "smb2/auth/users.h"

#define SMB2_AUTH_MORE	    1
#define SMB2_AUTH_TOKEN_MAX 2048 /* largest output of a step, bytes */
#define SMB2_AUTH_KEY_LEN   16

/* The server's names in CHALLENGE_MESSAGE's TargetInfo (MS-NLMP §2.2.2.1). */
struct smb2_auth_cfg {
	char nb_computer[16]; /* NetBIOS names: at most 15 bytes */
	char nb_domain[16];
	char dns_computer[256];
	char dns_domain[256];
	struct smb2_users *users; /* borrowed; outlives every exchange */
};

/*
 * smb2_auth_cfg_init() - defaults from gethostname(): nb_computer is the
 * host name's first label upper-cased (ASCII, 15 bytes at most; "NASD"
 * if it cannot be), nb_domain the same (a stand-alone server is its own
 * domain), dns_computer the host name, dns_domain what follows its first
 * dot. The caller may overwrite any of them afterwards.
 */
void smb2_auth_cfg_init(struct smb2_auth_cfg *cfg, struct smb2_users *users);

/*
 * smb2_auth_new() - a new exchange with @cfg (borrowed: it must outlive
 * the exchange). NULL with errno EINVAL (a name that is not UTF-8, no
 * users database) or ENOMEM.
 */
struct smb2_auth *smb2_auth_new(const struct smb2_auth_cfg *cfg);

/*
 * smb2_auth_step() - one SESSION_SETUP SecurityBuffer (@inlen bytes at
 * @in, read only during the call) in; the reply's SecurityBuffer written
 * to @out (@outmax bytes; SMB2_AUTH_TOKEN_MAX is always enough), its
 * length in *@outlen. Returns SMB2_AUTH_MORE, 0 (done) or:
 *   -EACCES      logon failure: unknown user, wrong password, MIC or
 *                mechListMIC mismatch (STATUS_LOGON_FAILURE)
 *   -EINVAL      malformed token (STATUS_INVALID_PARAMETER)
 *   -EOPNOTSUPP  nothing we can do: no NTLMSSP among the client's
 *                mechanisms, NTLMv1, a client without NTLMv2's flags
 *                (STATUS_LOGON_FAILURE is the safe answer; Windows gives
 *                STATUS_NOT_SUPPORTED for an unknown mechanism)
 *   -ENOBUFS     @outmax too small
 *   -EPROTO      a step after the exchange ended, or too many steps
 *   -ENOMEM, -EIO
 * After an error the exchange is over; every later step is -EPROTO.
 */
int smb2_auth_step(struct smb2_auth *a, const uint8_t *in, size_t inlen,
		   uint8_t *out, size_t outmax, size_t *outlen);

/*
 * smb2_auth_negotiate_token() - the SPNEGO NegTokenInit2 for the SMB2
 * NEGOTIATE response's SecurityBuffer (MS-SMB2 §3.3.5.4): NTLMSSP offered,
 * with the negHints Windows and Samba send. Returns 0 or -ENOBUFS.
 */
int smb2_auth_negotiate_token(uint8_t *out, size_t max, size_t *len);

/* After a 0 (done) return: */

/* smb2_auth_anonymous() - whether the logon was anonymous (NULL session). */
bool smb2_auth_anonymous(const struct smb2_auth *a);

/* smb2_auth_user() - the user's name as the database spells it ("" when
 * anonymous); borrowed from @a. */
const char *smb2_auth_user(const struct smb2_auth *a);

/* smb2_auth_uid(), smb2_auth_gid() - the user's ids (from the database). */
uint32_t smb2_auth_uid(const struct smb2_auth *a);
uint32_t smb2_auth_gid(const struct smb2_auth *a);

/*
 * smb2_auth_session_key() - copy the 16-byte session key (NTLM's
 * ExportedSessionKey, MS-NLMP §3.2.5.1.2) to @key. Returns 0, or -ENOKEY
 * when there is none (anonymous, or not done). The caller wipes its copy.
 */
int smb2_auth_session_key(const struct smb2_auth *a,
			  uint8_t key[SMB2_AUTH_KEY_LEN]);

/*
 * smb2_auth_client_names() - what the AUTHENTICATE_MESSAGE claimed (UTF-8,
 * "" until then), for log lines on success and on failure alike: user,
 * domain, workstation. Borrowed from @a. Never log anything else of an
 * exchange.
 */
void smb2_auth_client_names(const struct smb2_auth *a, const char **user,
			    const char **domain, const char **workstation);

/* smb2_auth_free() - end the exchange, wiping its keys. NULL is fine. */
void smb2_auth_free(struct smb2_auth *a);

/*
 * smb2_auth_fix_challenge() - tests and test vectors only: the server
 * challenge and the MsvAvTimestamp to send instead of random ones. Call
 * before the first step.
 */
void smb2_auth_fix_challenge(struct smb2_auth *a, const uint8_t challenge[8],
			     uint64_t filetime);

#endif
