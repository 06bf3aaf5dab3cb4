/* SPDX-License-Identifier: MIT */
/*
 * The SESSION_SETUP exchange (auth.h): SPNEGO around NTLMSSP, or NTLMSSP
 * alone.
 *
 * SPNEGO server states (RFC 4178 §5, as Samba and Windows behave):
 *   START           NegTokenInit in. NTLMSSP first with a mechToken: the
 *                   CHALLENGE goes back at once (-> AUTHENTICATE). NTLMSSP
 *                   later in the list or no token: accept-incomplete
 *                   (request-mic when NTLMSSP was not the client's first
 *                   choice) with no token (-> NEGOTIATE). An empty input
 *                   gets the NegTokenInit2 hint again.
 *   NEGOTIATE       NegTokenResp with the NTLMSSP NEGOTIATE in; CHALLENGE
 *                   out (-> AUTHENTICATE).
 *   AUTHENTICATE    NegTokenResp with the AUTHENTICATE in. Once the user
 *                   is proven, the mechList is protected when both sides
 *                   can sign and either side asked for it (the NTLM MIC
 *                   present, or a client mechListMIC):
 *                   the client's mechListMIC is checked, and ours sent
 *                   with accept-completed (-> DONE); a client that sent
 *                   none gets ours with accept-incomplete and must answer
 *                   with its own (-> MIC).
 *   MIC             NegTokenResp with only a mechListMIC in (-> DONE).
 * Raw NTLMSSP: NEGOTIATE in, CHALLENGE out; AUTHENTICATE in (-> DONE).
 *
 * The mechListMIC is the NTLMSSP signature, sequence number 0, of the DER
 * MechTypeList the client sent; the client's is made with the
 * client-to-server keys, ours with the server-to-client keys.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "smb2/auth/auth.h"
#include "smb2/auth/ntlmssp.h"
#include "smb2/auth/spnego.h"
#include "smb2/utf16.h"

#define AUTH_MAX_STEPS	8
#define MECHLISTMIC_LEN 16

enum auth_state {
	AUTH_START,
	AUTH_NEGOTIATE,
	AUTH_AUTHENTICATE,
	AUTH_MIC,
	AUTH_RAW_AUTHENTICATE,
	AUTH_DONE,
	AUTH_FAILED,
};

struct smb2_auth {
	const struct smb2_auth_cfg *cfg;
	enum auth_state state;
	bool spnego;
	unsigned int steps;
	uint8_t *mech_types; /* the client's MechTypeList (DER), owned */
	size_t mech_types_len;
	struct ntlmssp_server ntlm;
};

static bool name_ok(const char *s, size_t max)
{
	size_t n = strnlen(s, max);

	return n < max && (n == 0 || utf16le_len_of_utf8(s, n) > 0);
}

void smb2_auth_cfg_init(struct smb2_auth_cfg *cfg, struct smb2_users *users)
{
	char host[256] = "";
	const char *dot;
	size_t i, n;

	memset(cfg, 0, sizeof(*cfg));
	cfg->users = users;
	if (gethostname(host, sizeof(host) - 1) != 0)
		host[0] = '\0';
	host[sizeof(host) - 1] = '\0';
	dot = strchr(host, '.');
	n = dot ? (size_t)(dot - host) : strlen(host);
	for (i = 0; i < n && i < sizeof(cfg->nb_computer) - 1; i++) {
		unsigned char c = (unsigned char)host[i];

		if (c >= 0x80 || !(isalnum(c) || c == '-' || c == '_'))
			break;
		cfg->nb_computer[i] = (char)toupper(c);
	}
	if (i == 0 || (i < n && i < sizeof(cfg->nb_computer) - 1))
		(void)snprintf(cfg->nb_computer, sizeof(cfg->nb_computer),
			       "NASD");
	else
		cfg->nb_computer[i] = '\0';
	memcpy(cfg->nb_domain, cfg->nb_computer, sizeof(cfg->nb_domain));
	if (name_ok(host, sizeof(cfg->dns_computer)))
		(void)snprintf(cfg->dns_computer, sizeof(cfg->dns_computer),
			       "%s", host);
	if (dot && name_ok(dot + 1, sizeof(cfg->dns_domain)))
		(void)snprintf(cfg->dns_domain, sizeof(cfg->dns_domain), "%s",
			       dot + 1);
}

struct smb2_auth *smb2_auth_new(const struct smb2_auth_cfg *cfg)
{
	struct smb2_auth *a;

	if (!cfg->users ||
	    !name_ok(cfg->nb_computer, sizeof(cfg->nb_computer)) ||
	    !name_ok(cfg->nb_domain, sizeof(cfg->nb_domain)) ||
	    !name_ok(cfg->dns_computer, sizeof(cfg->dns_computer)) ||
	    !name_ok(cfg->dns_domain, sizeof(cfg->dns_domain))) {
		errno = EINVAL;
		return NULL;
	}
	a = calloc(1, sizeof(*a));
	if (!a)
		return NULL;
	a->cfg = cfg;
	a->state = AUTH_START;
	ntlmssp_server_init(&a->ntlm);
	return a;
}

void smb2_auth_free(struct smb2_auth *a)
{
	if (!a)
		return;
	ntlmssp_server_clear(&a->ntlm);
	free(a->mech_types);
	ntlm_wipe(a, sizeof(*a));
	free(a);
}

void smb2_auth_fix_challenge(struct smb2_auth *a, const uint8_t challenge[8],
			     uint64_t filetime)
{
	ntlmssp_server_fix_challenge(&a->ntlm, challenge, filetime);
}

int smb2_auth_negotiate_token(uint8_t *out, size_t max, size_t *len)
{
	struct smb2_buf b;

	sb_init(&b, out, max);
	if (!spnego_enc_NegTokenInit2(&b))
		return -ENOBUFS;
	*len = b.pos;
	return 0;
}

static int ntlm_negotiate(struct smb2_auth *a, const uint8_t *in, size_t len)
{
	const struct smb2_auth_cfg *c = a->cfg;
	struct ntlmssp_names names = {
		.nb_computer = c->nb_computer,
		.nb_domain = c->nb_domain,
		.dns_computer = c->dns_computer,
		.dns_domain = c->dns_domain,
	};

	return ntlmssp_server_negotiate(&a->ntlm, &names, in, len);
}

static int resp(struct smb2_buf *out, int state, bool mech,
		const uint8_t *token, size_t token_len, const uint8_t *mic,
		size_t mic_len)
{
	return spnego_enc_NegTokenResp(out, state, mech, token, token_len, mic,
				       mic_len)
		       ? 0
		       : -ENOBUFS;
}

/* START: the first token of the exchange */
static int step_start(struct smb2_auth *a, const uint8_t *in, size_t len,
		      struct smb2_buf *out)
{
	struct spnego_init init;
	int ret, st;

	if (len == 0)
		return spnego_enc_NegTokenInit2(out) ? SMB2_AUTH_MORE
						     : -ENOBUFS;
	if (spnego_kind_of(in, len) != SPNEGO_KIND_INIT) {
		/* raw NTLMSSP: whatever is not SPNEGO must be NTLMSSP */
		ret = ntlm_negotiate(a, in, len);
		if (ret)
			return ret;
		if (!sb_put_bytes(out, a->ntlm.challenge,
				  a->ntlm.challenge_len))
			return -ENOBUFS;
		a->state = AUTH_RAW_AUTHENTICATE;
		return SMB2_AUTH_MORE;
	}
	a->spnego = true;
	if (!spnego_dec_NegTokenInit(in, len, &init))
		return -EINVAL;
	if (init.ntlmssp_index < 0)
		return -EOPNOTSUPP;
	a->mech_types = malloc(init.mech_types.len);
	if (!a->mech_types)
		return -ENOMEM;
	memcpy(a->mech_types, init.mech_types.p, init.mech_types.len);
	a->mech_types_len = init.mech_types.len;
	if (init.ntlmssp_index == 0 && init.mech_token.p &&
	    init.mech_token.len) {
		/* the optimistic token is NTLMSSP's NEGOTIATE */
		ret = ntlm_negotiate(a, init.mech_token.p, init.mech_token.len);
		if (ret)
			return ret;
		ret = resp(out, SPNEGO_ACCEPT_INCOMPLETE, true,
			   a->ntlm.challenge, a->ntlm.challenge_len, NULL, 0);
		a->state = AUTH_AUTHENTICATE;
		return ret ? ret : SMB2_AUTH_MORE;
	}
	/* another mechanism's optimistic token (ignored), or none: ask for
	 * NTLMSSP's first token; a downgrade asks for a mechListMIC too */
	st = init.ntlmssp_index > 0 ? SPNEGO_REQUEST_MIC
				    : SPNEGO_ACCEPT_INCOMPLETE;
	ret = resp(out, st, true, NULL, 0, NULL, 0);
	a->state = AUTH_NEGOTIATE;
	return ret ? ret : SMB2_AUTH_MORE;
}

static int dec_resp(const uint8_t *in, size_t len, struct spnego_resp *r)
{
	if (!spnego_dec_NegTokenResp(in, len, r))
		return -EINVAL;
	/* a client rejecting, or naming another mechanism, ends it */
	if (r->neg_state == SPNEGO_REJECT ||
	    (r->has_supported_mech && !r->supported_mech_ntlmssp))
		return -EINVAL;
	return 0;
}

/* NEGOTIATE: NTLMSSP's first token, after a NegTokenInit without it */
static int step_negotiate(struct smb2_auth *a, const uint8_t *in, size_t len,
			  struct smb2_buf *out)
{
	struct spnego_resp r;
	int ret = dec_resp(in, len, &r);

	if (ret)
		return ret;
	if (!r.response_token.p || !r.response_token.len)
		return -EINVAL;
	ret = ntlm_negotiate(a, r.response_token.p, r.response_token.len);
	if (ret)
		return ret;
	ret = resp(out, SPNEGO_ACCEPT_INCOMPLETE, true, a->ntlm.challenge,
		   a->ntlm.challenge_len, NULL, 0);
	a->state = AUTH_AUTHENTICATE;
	return ret ? ret : SMB2_AUTH_MORE;
}

/* The client's mechListMIC over its MechTypeList, checked. */
static int check_client_mic(struct smb2_auth *a, const struct spnego_blob *m)
{
	uint8_t want[MECHLISTMIC_LEN];
	int ret;

	if (m->len != MECHLISTMIC_LEN)
		return -EACCES;
	ret = ntlmssp_mac(&a->ntlm, false, 0, a->mech_types, a->mech_types_len,
			  want);
	if (!ret && !ntlm_equal(want, m->p, MECHLISTMIC_LEN))
		ret = -EACCES;
	ntlm_wipe(want, sizeof(want));
	return ret;
}

/* AUTHENTICATE: NTLMSSP's last token, and the mechListMIC */
static int step_authenticate(struct smb2_auth *a, const uint8_t *in, size_t len,
			     struct smb2_buf *out)
{
	uint8_t mic[MECHLISTMIC_LEN];
	bool sign, protect;
	struct spnego_resp r;
	int ret = dec_resp(in, len, &r);

	if (ret)
		return ret;
	if (!r.response_token.p || !r.response_token.len)
		return -EINVAL;
	ret = ntlmssp_server_authenticate(&a->ntlm, a->cfg->users,
					  r.response_token.p,
					  r.response_token.len);
	if (ret)
		return ret;
	sign = !a->ntlm.anonymous &&
	       (a->ntlm.auth_flags & NTLMSSP_NEGOTIATE_SIGN);
	protect = a->ntlm.mic_present || r.mech_list_mic.p;
	if (!sign || !protect) {
		a->state = AUTH_DONE;
		return resp(out, SPNEGO_ACCEPT_COMPLETED, false, NULL, 0, NULL,
			    0);
	}
	if (r.mech_list_mic.p) {
		ret = check_client_mic(a, &r.mech_list_mic);
		if (ret)
			return ret;
	}
	ret = ntlmssp_mac(&a->ntlm, true, 0, a->mech_types, a->mech_types_len,
			  mic);
	if (ret)
		return ret;
	if (r.mech_list_mic.p) {
		a->state = AUTH_DONE;
		ret = resp(out, SPNEGO_ACCEPT_COMPLETED, false, NULL, 0, mic,
			   sizeof(mic));
	} else {
		a->state = AUTH_MIC;
		ret = resp(out, SPNEGO_ACCEPT_INCOMPLETE, true, NULL, 0, mic,
			   sizeof(mic));
		if (!ret)
			ret = SMB2_AUTH_MORE;
	}
	return ret;
}

/* MIC: the client's mechListMIC, after it sent none with AUTHENTICATE */
static int step_mic(struct smb2_auth *a, const uint8_t *in, size_t len,
		    struct smb2_buf *out)
{
	struct spnego_resp r;
	int ret = dec_resp(in, len, &r);

	if (ret)
		return ret;
	if (r.response_token.p && r.response_token.len)
		return -EINVAL;
	if (!r.mech_list_mic.p)
		return -EACCES;
	ret = check_client_mic(a, &r.mech_list_mic);
	if (ret)
		return ret;
	a->state = AUTH_DONE;
	return resp(out, SPNEGO_ACCEPT_COMPLETED, false, NULL, 0, NULL, 0);
}

/* raw NTLMSSP: the AUTHENTICATE_MESSAGE itself */
static int step_raw_authenticate(struct smb2_auth *a, const uint8_t *in,
				 size_t len, struct smb2_buf *out)
{
	int ret = ntlmssp_server_authenticate(&a->ntlm, a->cfg->users, in, len);

	(void)out;
	if (!ret)
		a->state = AUTH_DONE;
	return ret;
}

static int (*const steps[])(struct smb2_auth *, const uint8_t *, size_t,
			    struct smb2_buf *) = {
	[AUTH_START] = step_start,
	[AUTH_NEGOTIATE] = step_negotiate,
	[AUTH_AUTHENTICATE] = step_authenticate,
	[AUTH_MIC] = step_mic,
	[AUTH_RAW_AUTHENTICATE] = step_raw_authenticate,
};

int smb2_auth_step(struct smb2_auth *a, const uint8_t *in, size_t inlen,
		   uint8_t *out, size_t outmax, size_t *outlen)
{
	struct smb2_buf b;
	int ret;

	*outlen = 0;
	if (a->state >= sizeof(steps) / sizeof(steps[0]) || !steps[a->state] ||
	    ++a->steps > AUTH_MAX_STEPS) {
		a->state = AUTH_FAILED;
		return -EPROTO;
	}
	sb_init(&b, out, outmax);
	ret = steps[a->state](a, in, inlen, &b);
	if (ret >= 0) {
		*outlen = b.pos;
		return ret;
	}
	a->state = AUTH_FAILED;
	ntlm_wipe(a->ntlm.session_key, sizeof(a->ntlm.session_key));
	if (a->spnego && ret != -ENOBUFS) {
		/* negState reject (RFC 4178 §4.2.2), for transports that
		 * can carry it */
		sb_init(&b, out, outmax);
		if (spnego_enc_NegTokenResp(&b, SPNEGO_REJECT, false, NULL, 0,
					    NULL, 0))
			*outlen = b.pos;
	}
	return ret;
}

static bool done(const struct smb2_auth *a)
{
	return a->state == AUTH_DONE;
}

bool smb2_auth_anonymous(const struct smb2_auth *a)
{
	return done(a) && a->ntlm.anonymous;
}

const char *smb2_auth_user(const struct smb2_auth *a)
{
	return done(a) && !a->ntlm.anonymous ? a->ntlm.user.name : "";
}

uint32_t smb2_auth_uid(const struct smb2_auth *a)
{
	return done(a) && !a->ntlm.anonymous ? a->ntlm.user.uid : UINT32_MAX;
}

uint32_t smb2_auth_gid(const struct smb2_auth *a)
{
	return done(a) && !a->ntlm.anonymous ? a->ntlm.user.gid : UINT32_MAX;
}

int smb2_auth_session_key(const struct smb2_auth *a,
			  uint8_t key[SMB2_AUTH_KEY_LEN])
{
	if (!done(a) || a->ntlm.anonymous)
		return -ENOKEY;
	memcpy(key, a->ntlm.session_key, SMB2_AUTH_KEY_LEN);
	return 0;
}

void smb2_auth_client_names(const struct smb2_auth *a, const char **user,
			    const char **domain, const char **workstation)
{
	*user = a->ntlm.client_user;
	*domain = a->ntlm.client_domain;
	*workstation = a->ntlm.client_workstation;
}
