// SPDX-License-Identifier: MIT
/*
 * NFSv4.1 session and client-lifetime operations: CREATE_SESSION (RFC 8881
 * §18.36), DESTROY_SESSION (§18.37), BIND_CONN_TO_SESSION (§18.34),
 * BACKCHANNEL_CTL (§18.33), DESTROY_CLIENTID (§18.50) and
 * RECLAIM_COMPLETE (§18.51).
 */
#include <string.h>

#include "nfs4/nfs4_int.h"
#include "nfs4/state/ops.h"
#include "nfs4/state/state_int.h"

#define CB_SEC_PARMS_MAX 16

struct CREATE_SESSION4args {
	clientid4 csa_clientid;
	uint32_t csa_sequence;
	uint32_t csa_flags;
	struct channel_attrs4 csa_fore_chan_attrs;
	struct channel_attrs4 csa_back_chan_attrs;
	uint32_t csa_cb_program;
	struct nfs4_cb_sec csa_sec;    /* the first usable csa_sec_parms */
};

struct sessionid_args {
	uint8_t sessionid[NFS4_SESSIONID_SIZE];
};

struct BIND_CONN_TO_SESSION4args {
	uint8_t bctsa_sessid[NFS4_SESSIONID_SIZE];
	uint32_t bctsa_dir;
	bool bctsa_use_conn_in_rdma_mode;
};

struct BIND_CONN_TO_SESSION4resok {
	uint8_t bctsr_sessid[NFS4_SESSIONID_SIZE];
	uint32_t bctsr_dir;
};

struct BACKCHANNEL_CTL4args {
	uint32_t bca_cb_program;
	struct nfs4_cb_sec bca_sec;
};

struct DESTROY_CLIENTID4args {
	clientid4 dca_clientid;
};

struct RECLAIM_COMPLETE4args {
	bool rca_one_fs;
};

static bool dec_channel_attrs4(struct xdr_buf *x, struct channel_attrs4 *a)
{
	if (!xdr_dec_u32(x, &a->ca_headerpadsize) ||
	    !xdr_dec_u32(x, &a->ca_maxrequestsize) ||
	    !xdr_dec_u32(x, &a->ca_maxresponsesize) ||
	    !xdr_dec_u32(x, &a->ca_maxresponsesize_cached) ||
	    !xdr_dec_u32(x, &a->ca_maxoperations) ||
	    !xdr_dec_u32(x, &a->ca_maxrequests) ||
	    !xdr_dec_u32(x, &a->ca_rdma_ird_len) || a->ca_rdma_ird_len > 1)
		return false;
	return a->ca_rdma_ird_len == 0 || xdr_dec_u32(x, &a->ca_rdma_ird);
}

static bool enc_channel_attrs4(struct xdr_buf *x,
			       const struct channel_attrs4 *a)
{
	return xdr_enc_u32(x, a->ca_headerpadsize) &&
	       xdr_enc_u32(x, a->ca_maxrequestsize) &&
	       xdr_enc_u32(x, a->ca_maxresponsesize) &&
	       xdr_enc_u32(x, a->ca_maxresponsesize_cached) &&
	       xdr_enc_u32(x, a->ca_maxoperations) &&
	       xdr_enc_u32(x, a->ca_maxrequests) &&
	       xdr_enc_u32(x, 0); /* ca_rdma_ird<1>: none */
}

/* authsys_parms (RFC 5531 §A.1), kept in @sec when @keep. */
static bool dec_authsys(struct xdr_buf *x, struct nfs4_cb_sec *sec,
			bool keep)
{
	struct nfs4_cb_sec t;
	struct nfs4_opaque o;
	uint32_t i;

	if (!xdr_dec_u32(x, &t.stamp) ||
	    !nfs4_dec_opaque(x, &o, RPC_AUTH_SYS_MACHINE_MAX) ||
	    !xdr_dec_u32(x, &t.uid) || !xdr_dec_u32(x, &t.gid) ||
	    !xdr_dec_u32(x, &t.ngids) || t.ngids > RPC_AUTH_SYS_NGIDS_MAX)
		return false;
	for (i = 0; i < t.ngids; i++)
		if (!xdr_dec_u32(x, &t.gids[i]))
			return false;
	if (keep) {
		t.flavor = AUTH_SYS;
		t.machine_len = o.len;
		memcpy(t.machine, o.data, o.len);
		*sec = t;
	}
	return true;
}

/*
 * callback_sec_parms4 csa_sec_parms<>: the first AUTH_NONE or AUTH_SYS
 * entry goes to @sec (the back channel's calls use it); with none of
 * them @sec->flavor is NFS4_CB_FLAVOR_NONE_USABLE (RPCSEC_GSS callbacks
 * are not supported).
 */
static bool dec_cb_sec_parms(struct xdr_buf *x, struct nfs4_cb_sec *sec)
{
	struct nfs4_opaque o;
	uint32_t n, i, flavor, u;
	bool found = false;

	memset(sec, 0, sizeof(*sec));
	sec->flavor = NFS4_CB_FLAVOR_NONE_USABLE;
	if (!xdr_dec_u32(x, &n) || n > CB_SEC_PARMS_MAX ||
	    n > xdr_remaining(x) / 4)
		return false;
	for (i = 0; i < n; i++) {
		if (!xdr_dec_u32(x, &flavor))
			return false;
		switch (flavor) {
		case AUTH_NONE:
			if (!found)
				sec->flavor = AUTH_NONE;
			found = true;
			break;
		case AUTH_SYS:
			if (!dec_authsys(x, sec, !found))
				return false;
			found = true;
			break;
		case RPCSEC_GSS:
			if (!xdr_dec_u32(x, &u) ||
			    !nfs4_dec_opaque(x, &o, NFS4_OPAQUE_LIMIT) ||
			    !nfs4_dec_opaque(x, &o, NFS4_OPAQUE_LIMIT))
				return false;
			break;
		default:
			return false;
		}
	}
	return true;
}

static bool dec_CREATE_SESSION4args(struct xdr_buf *x, void *p)
{
	struct CREATE_SESSION4args *a = p;

	return xdr_dec_u64(x, &a->csa_clientid) &&
	       xdr_dec_u32(x, &a->csa_sequence) &&
	       xdr_dec_u32(x, &a->csa_flags) &&
	       dec_channel_attrs4(x, &a->csa_fore_chan_attrs) &&
	       dec_channel_attrs4(x, &a->csa_back_chan_attrs) &&
	       xdr_dec_u32(x, &a->csa_cb_program) &&
	       dec_cb_sec_parms(x, &a->csa_sec);
}

static bool enc_CREATE_SESSION4resok(struct xdr_buf *x, uint32_t status,
				     const void *p)
{
	const struct CREATE_SESSION4resok *r = p;

	(void)status;
	return xdr_enc_opaque_fixed(x, r->csr_sessionid,
				    NFS4_SESSIONID_SIZE) &&
	       xdr_enc_u32(x, r->csr_sequence) &&
	       xdr_enc_u32(x, r->csr_flags) &&
	       enc_channel_attrs4(x, &r->csr_fore_chan_attrs) &&
	       enc_channel_attrs4(x, &r->csr_back_chan_attrs);
}

static uint32_t min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/* ca_maxoperations: the COMPOUND limit (--max-ops), at most 64 */
static uint32_t max_ops(void)
{
	uint32_t n = nfs4_compound_max_ops();

	return n && n < NFS4_CA_MAXOPS ? n : NFS4_CA_MAXOPS;
}

/*
 * Negotiate the channels down to nasd's limits (RFC 8881 §18.36.3):
 * unknown csa_flags are INVAL, channels too small for a COMPOUND, or for
 * nasd's callbacks, TOOSMALL.
 */
static uint32_t negotiate(const struct CREATE_SESSION4args *a,
			  struct channel_attrs4 *fore,
			  struct channel_attrs4 *back)
{
	const struct channel_attrs4 *f = &a->csa_fore_chan_attrs;
	const struct channel_attrs4 *b = &a->csa_back_chan_attrs;

	if (a->csa_flags & ~(uint32_t)(CREATE_SESSION4_FLAG_PERSIST |
				       CREATE_SESSION4_FLAG_CONN_BACK_CHAN |
				       CREATE_SESSION4_FLAG_CONN_RDMA))
		return NFS4ERR_INVAL;
	if (f->ca_maxrequestsize < NFS4_CA_MIN_REQUEST ||
	    f->ca_maxresponsesize < NFS4_CA_MIN_RESPONSE)
		return NFS4ERR_TOOSMALL;
	/* as knfsd, whether or not this connection is the back channel:
	 * one may be bound to it later */
	if (b->ca_maxrequestsize < nfs4_bc_call_max(&a->csa_sec) ||
	    b->ca_maxresponsesize < NFS4_CB_MIN_RESPONSE)
		return NFS4ERR_TOOSMALL;
	if (f->ca_maxrequests == 0 || f->ca_maxoperations == 0)
		return NFS4ERR_INVAL;
	memset(fore, 0, sizeof(*fore));
	fore->ca_maxrequestsize = min_u32(f->ca_maxrequestsize,
					  NFS4_CA_MAXREQUEST);
	fore->ca_maxresponsesize = min_u32(f->ca_maxresponsesize,
					   NFS4_CA_MAXRESPONSE);
	fore->ca_maxresponsesize_cached =
		min_u32(min_u32(f->ca_maxresponsesize_cached,
				NFS4_CA_MAXRESPONSE_CACHED),
			fore->ca_maxresponsesize);
	fore->ca_maxoperations = min_u32(f->ca_maxoperations, max_ops());
	fore->ca_maxrequests = min_u32(f->ca_maxrequests,
				       NFS4_CA_MAXREQUESTS);
	memset(back, 0, sizeof(*back));
	back->ca_maxrequestsize = min_u32(b->ca_maxrequestsize,
					  NFS4_CB_MAXREQUEST);
	back->ca_maxresponsesize = min_u32(b->ca_maxresponsesize,
					   NFS4_CB_MAXREQUEST);
	back->ca_maxresponsesize_cached = 0;
	back->ca_maxoperations = min_u32(b->ca_maxoperations,
					 NFS4_CB_MAXOPS);
	back->ca_maxrequests = b->ca_maxrequests ? 1 : 0;
	if (a->csa_flags & CREATE_SESSION4_FLAG_CONN_BACK_CHAN &&
	    (back->ca_maxrequests == 0 || back->ca_maxoperations == 0))
		return NFS4ERR_INVAL;
	return NFS4_OK;
}

/**
 * nfs4_op_create_session() - RFC 8881 §18.36.4: csa_sequence is the
 * client's CREATE_SESSION slot (the replay of the last one returns the
 * cached reply; anything but the next is SEQ_MISORDERED), the first
 * session confirms the record (replacing a confirmed record of the same
 * owner), channels are negotiated down, PERSIST and RDMA are refused
 * silently (cleared in csr_flags), CONN_BACK_CHAN binds this connection
 * for callbacks too.
 */
uint32_t nfs4_op_create_session(struct nfs4_compound *c, void *args,
				void *res)
{
	struct CREATE_SESSION4args *a = args;
	struct CREATE_SESSION4resok *r = res;
	struct channel_attrs4 fore, back;
	struct nfs4_client *cl, *old;
	struct nfs4_session *s;
	struct nfs4_princ p;
	uint32_t status;
	bool record = false;
	uint8_t dir;

	status = negotiate(a, &fore, &back);
	if (status != NFS4_OK)
		return status;
	nfs4_princ_of(c->call, &p);
	pthread_mutex_lock(&nfs4_st.mu);
	cl = nfs4_client_find(a->csa_clientid);
	if (!cl || cl->minor == 0) {
		status = NFS4ERR_STALE_CLIENTID;
		goto out;
	}
	if (cl->confirmed && a->csa_sequence == cl->cs_seq && cl->cs_cached) {
		*r = cl->cs_res;                     /* replay */
		status = cl->cs_status;
		goto out;
	}
	if (a->csa_sequence != cl->cs_seq + 1) {
		status = NFS4ERR_SEQ_MISORDERED;
		goto out;
	}
	if (!nfs4_princ_equal(&cl->princ, &p)) {
		status = NFS4ERR_CLID_INUSE;
		goto out;
	}
	s = nfs4_session_new(cl, &fore, &back,
			     a->csa_flags & CREATE_SESSION4_FLAG_CONN_BACK_CHAN,
			     a->csa_cb_program);
	if (!s) {
		status = NFS4ERR_DELAY;
		goto out;
	}
	dir = s->flags & CREATE_SESSION4_FLAG_CONN_BACK_CHAN ? CDFS4_BOTH
							     : CDFS4_FORE;
	pthread_mutex_lock(&s->mu);
	s->cb_sec = a->csa_sec;
	s->minor = c->minorversion;
	if (nfs4_session_bind_conn(s, c->call->conn, dir))
		nfs4_bc_probe(s);
	pthread_mutex_unlock(&s->mu);
	if (!cl->confirmed) {
		old = nfs4_client_find_owner(1, cl->ownerid, cl->ownerid_len,
					     true);
		if (old)
			nfs4_client_destroy(old, false, false);
		nfs4_client_lock(cl);
		cl->confirmed = true;
		pthread_mutex_unlock(&cl->mu);
		record = true;
		nfs4_client_get(cl);
	}
	nfs4_client_renew(cl);
	memcpy(r->csr_sessionid, s->id, NFS4_SESSIONID_SIZE);
	r->csr_sequence = a->csa_sequence;
	r->csr_flags = s->flags;
	r->csr_fore_chan_attrs = fore;
	r->csr_back_chan_attrs = back;
	cl->cs_seq = a->csa_sequence;
	cl->cs_res = *r;
	cl->cs_status = NFS4_OK;
	cl->cs_cached = true;
out:
	pthread_mutex_unlock(&nfs4_st.mu);
	if (record) {
		nfs4_grace_record_client(cl);
		nfs4_client_put(cl);
	}
	return status;
}

const struct nfs4_op nfs4_op_desc_create_session = {
	.name = "CREATE_SESSION",
	.minor_min = 1,
	.minor_max = 255,
	.flags = NFS4_OP_NO_SEQ,
	.args_size = sizeof(struct CREATE_SESSION4args),
	.res_size = sizeof(struct CREATE_SESSION4resok),
	.decode = dec_CREATE_SESSION4args,
	.handle = nfs4_op_create_session,
	.encode = enc_CREATE_SESSION4resok,
};

static bool dec_sessionid_args(struct xdr_buf *x, void *p)
{
	struct sessionid_args *a = p;

	return xdr_dec_opaque_fixed(x, a->sessionid, NFS4_SESSIONID_SIZE);
}

/**
 * nfs4_op_destroy_session() - RFC 8881 §18.37.3: the connection must be
 * bound to the session (CONN_NOT_BOUND_TO_SESSION), unless the compound's
 * SEQUENCE names the same session. Requests in flight on it finish.
 */
uint32_t nfs4_op_destroy_session(struct nfs4_compound *c, void *args,
				 void *res)
{
	struct sessionid_args *a = args;
	struct nfs4_session *s;
	struct nfs4_client *cl;
	uint32_t status = NFS4_OK;

	(void)res;
	pthread_mutex_lock(&nfs4_st.mu);
	s = nfs4_session_find(a->sessionid);
	if (!s) {
		status = NFS4ERR_BADSESSION;
		goto out;
	}
	if (s != c->session) {
		bool bound;

		pthread_mutex_lock(&s->mu);
		bound = nfs4_session_conn_bound(s, c->call->conn);
		pthread_mutex_unlock(&s->mu);
		if (!bound) {
			status = NFS4ERR_CONN_NOT_BOUND_TO_SESSION;
			goto out;
		}
	}
	nfs4_client_renew(s->client);
	cl = s->client;
	nfs4_client_lock(cl); /* its session holds it */
	nfs4_session_destroy(s);
	pthread_mutex_unlock(&cl->mu);
out:
	pthread_mutex_unlock(&nfs4_st.mu);
	return status;
}

const struct nfs4_op nfs4_op_desc_destroy_session = {
	.name = "DESTROY_SESSION",
	.minor_min = 1,
	.minor_max = 255,
	.flags = NFS4_OP_NO_SEQ,
	.args_size = sizeof(struct sessionid_args),
	.res_size = 0,
	.decode = dec_sessionid_args,
	.handle = nfs4_op_destroy_session,
};

static bool dec_BIND_CONN_TO_SESSION4args(struct xdr_buf *x, void *p)
{
	struct BIND_CONN_TO_SESSION4args *a = p;

	return xdr_dec_opaque_fixed(x, a->bctsa_sessid,
				    NFS4_SESSIONID_SIZE) &&
	       xdr_dec_u32(x, &a->bctsa_dir) &&
	       xdr_dec_bool(x, &a->bctsa_use_conn_in_rdma_mode);
}

static bool enc_BIND_CONN_TO_SESSION4resok(struct xdr_buf *x,
					   uint32_t status, const void *p)
{
	const struct BIND_CONN_TO_SESSION4resok *r = p;

	(void)status;
	return xdr_enc_opaque_fixed(x, r->bctsr_sessid,
				    NFS4_SESSIONID_SIZE) &&
	       xdr_enc_u32(x, r->bctsr_dir) && xdr_enc_bool(x, false);
}

/**
 * nfs4_op_bind_conn_to_session() - RFC 8881 §18.34: bind this connection
 * to a session for the fore channel, the back channel or both; it must be
 * the only operation of its COMPOUND. RDMA mode is never used.
 */
uint32_t nfs4_op_bind_conn_to_session(struct nfs4_compound *c, void *args,
				      void *res)
{
	struct BIND_CONN_TO_SESSION4args *a = args;
	struct BIND_CONN_TO_SESSION4resok *r = res;
	struct nfs4_session *s;
	uint32_t status = NFS4_OK;
	uint8_t dir;

	if (c->numops != 1)
		return NFS4ERR_NOT_ONLY_OP;
	switch (a->bctsa_dir) {
	case CDFC4_FORE:
		dir = CDFS4_FORE;
		break;
	case CDFC4_BACK:
		dir = CDFS4_BACK;
		break;
	case CDFC4_FORE_OR_BOTH:
	case CDFC4_BACK_OR_BOTH:
		dir = CDFS4_BOTH;
		break;
	default:
		return NFS4ERR_INVAL;
	}
	s = nfs4_session_lookup(a->bctsa_sessid);
	if (!s)
		return NFS4ERR_BADSESSION;
	pthread_mutex_lock(&s->mu);
	if (s->dead) {
		status = NFS4ERR_BADSESSION;
		goto out;
	}
	/* a new back channel, or one reported down, is probed (again) */
	if (nfs4_session_bind_conn(s, c->call->conn, dir) ||
	    (dir & CDFS4_BACK && s->cb_state == NFS4_CB_DOWN))
		nfs4_bc_probe(s);
	nfs4_client_renew(s->client);
	memcpy(r->bctsr_sessid, s->id, NFS4_SESSIONID_SIZE);
	r->bctsr_dir = dir;
out:
	pthread_mutex_unlock(&s->mu);
	nfs4_session_put(s);
	return status;
}

const struct nfs4_op nfs4_op_desc_bind_conn_to_session = {
	.name = "BIND_CONN_TO_SESSION",
	.minor_min = 1,
	.minor_max = 255,
	.flags = NFS4_OP_NO_SEQ,
	.args_size = sizeof(struct BIND_CONN_TO_SESSION4args),
	.res_size = sizeof(struct BIND_CONN_TO_SESSION4resok),
	.decode = dec_BIND_CONN_TO_SESSION4args,
	.handle = nfs4_op_bind_conn_to_session,
	.encode = enc_BIND_CONN_TO_SESSION4resok,
};

static bool dec_BACKCHANNEL_CTL4args(struct xdr_buf *x, void *p)
{
	struct BACKCHANNEL_CTL4args *a = p;

	return xdr_dec_u32(x, &a->bca_cb_program) &&
	       dec_cb_sec_parms(x, &a->bca_sec);
}

/**
 * nfs4_op_backchannel_ctl() - RFC 8881 §18.33: new callback program and
 * security parameters for the session's back channel, probed with them;
 * INVAL (nothing changed) for a credential that would make nasd's calls
 * larger than the channel's ca_maxrequestsize.
 */
uint32_t nfs4_op_backchannel_ctl(struct nfs4_compound *c, void *args,
				 void *res)
{
	struct BACKCHANNEL_CTL4args *a = args;

	(void)res;
	if (!c->session)
		return NFS4ERR_OP_NOT_IN_SESSION;
	if (nfs4_bc_call_max(&a->bca_sec) >
	    c->session->back.ca_maxrequestsize)
		return NFS4ERR_INVAL;
	pthread_mutex_lock(&c->session->mu);
	c->session->cb_program = a->bca_cb_program;
	c->session->cb_sec = a->bca_sec;
	if (!c->session->dead)
		nfs4_bc_probe(c->session);
	pthread_mutex_unlock(&c->session->mu);
	return NFS4_OK;
}

const struct nfs4_op nfs4_op_desc_backchannel_ctl = {
	.name = "BACKCHANNEL_CTL",
	.minor_min = 1,
	.minor_max = 255,
	.args_size = sizeof(struct BACKCHANNEL_CTL4args),
	.res_size = 0,
	.decode = dec_BACKCHANNEL_CTL4args,
	.handle = nfs4_op_backchannel_ctl,
};

static bool dec_DESTROY_CLIENTID4args(struct xdr_buf *x, void *p)
{
	struct DESTROY_CLIENTID4args *a = p;

	return xdr_dec_u64(x, &a->dca_clientid);
}

/**
 * nfs4_op_destroy_clientid() - RFC 8881 §18.50.3: CLIENTID_BUSY while the
 * client has sessions or state; else the record goes, also from stable
 * storage.
 */
uint32_t nfs4_op_destroy_clientid(struct nfs4_compound *c, void *args,
				  void *res)
{
	struct DESTROY_CLIENTID4args *a = args;
	struct nfs4_client *cl;
	uint32_t status = NFS4_OK;

	(void)c;
	(void)res;
	pthread_mutex_lock(&nfs4_st.mu);
	cl = nfs4_client_find(a->dca_clientid);
	if (!cl || cl->minor == 0) {
		status = NFS4ERR_STALE_CLIENTID;
		goto out;
	}
	if (cl->nsessions > 0 || nfs4_client_has_state(cl)) {
		status = NFS4ERR_CLIENTID_BUSY;
		goto out;
	}
	nfs4_client_destroy(cl, true, false);
out:
	pthread_mutex_unlock(&nfs4_st.mu);
	nfs4_grace_flush_forgets();
	return status;
}

const struct nfs4_op nfs4_op_desc_destroy_clientid = {
	.name = "DESTROY_CLIENTID",
	.minor_min = 1,
	.minor_max = 255,
	.flags = NFS4_OP_NO_SEQ,
	.args_size = sizeof(struct DESTROY_CLIENTID4args),
	.res_size = 0,
	.decode = dec_DESTROY_CLIENTID4args,
	.handle = nfs4_op_destroy_clientid,
};

static bool dec_RECLAIM_COMPLETE4args(struct xdr_buf *x, void *p)
{
	struct RECLAIM_COMPLETE4args *a = p;

	return xdr_dec_bool(x, &a->rca_one_fs);
}

/**
 * nfs4_op_reclaim_complete() - RFC 8881 §18.51.3: the client is done
 * reclaiming (COMPLETE_ALREADY the second time); grace ends early once
 * every client known from before the restart has said so. rca_one_fs
 * (per-file-system reclaim after migration) needs a current filehandle
 * and changes nothing: nasd does not migrate file systems.
 */
uint32_t nfs4_op_reclaim_complete(struct nfs4_compound *c, void *args,
				  void *res)
{
	struct RECLAIM_COMPLETE4args *a = args;
	uint32_t status = NFS4_OK;

	(void)res;
	if (a->rca_one_fs)
		return c->cur.set ? NFS4_OK : NFS4ERR_NOFILEHANDLE;
	if (!c->client)
		return NFS4ERR_OP_NOT_IN_SESSION;
	pthread_mutex_lock(&nfs4_st.mu);
	if (c->client->reclaim_complete)
		status = NFS4ERR_COMPLETE_ALREADY;
	else
		nfs4_grace_reclaim_complete(c->client);
	pthread_mutex_unlock(&nfs4_st.mu);
	nfs4_grace_flush_forgets();
	return status;
}

const struct nfs4_op nfs4_op_desc_reclaim_complete = {
	.name = "RECLAIM_COMPLETE",
	.minor_min = 1,
	.minor_max = 255,
	.args_size = sizeof(struct RECLAIM_COMPLETE4args),
	.res_size = 0,
	.decode = dec_RECLAIM_COMPLETE4args,
	.handle = nfs4_op_reclaim_complete,
};
