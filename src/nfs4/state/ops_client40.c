// SPDX-License-Identifier: MIT
/*
 * NFSv4.0 client identity: SETCLIENTID (RFC 7530 §16.33),
 * SETCLIENTID_CONFIRM (§16.34) and RENEW (§16.29).
 *
 * A callback update of a confirmed client (same id and verifier) is kept
 * as a pending update on the confirmed record, under the same clientid,
 * until confirmed; any other SETCLIENTID makes a new unconfirmed record
 * with a new clientid that replaces the confirmed one (and its state) at
 * confirmation.
 */
#include <string.h>

#include "nfs4/state/ops.h"
#include "nfs4/state/state_int.h"

struct SETCLIENTID4args {
	struct verifier4 verifier;
	struct nfs4_opaque id;
	uint32_t cb_program;
	struct nfs4_opaque r_netid;
	struct nfs4_opaque r_addr;
	uint32_t callback_ident;
};

struct SETCLIENTID4res {
	clientid4 clientid;
	struct verifier4 setclientid_confirm;
	struct nfs4_cb40 client_using;    /* CLID_INUSE */
};

struct SETCLIENTID_CONFIRM4args {
	clientid4 clientid;
	struct verifier4 setclientid_confirm;
};

struct RENEW4args {
	clientid4 clientid;
};

static bool dec_SETCLIENTID4args(struct xdr_buf *x, void *p)
{
	struct SETCLIENTID4args *a = p;

	return nfs4_dec_verifier4(x, &a->verifier) &&
	       nfs4_dec_opaque(x, &a->id, NFS4_OPAQUE_LIMIT) &&
	       xdr_dec_u32(x, &a->cb_program) &&
	       nfs4_dec_opaque(x, &a->r_netid, NFS4_OPAQUE_LIMIT) &&
	       nfs4_dec_opaque(x, &a->r_addr, NFS4_OPAQUE_LIMIT) &&
	       xdr_dec_u32(x, &a->callback_ident);
}

static bool enc_SETCLIENTID4res(struct xdr_buf *x, uint32_t status,
				const void *p)
{
	const struct SETCLIENTID4res *r = p;
	const struct nfs4_cb40 *u = &r->client_using;

	if (status == NFS4ERR_CLID_INUSE)
		return xdr_enc_opaque(x, u->netid,
				      (uint32_t)strlen(u->netid)) &&
		       xdr_enc_opaque(x, u->addr, (uint32_t)strlen(u->addr));
	if (status != NFS4_OK)
		return true;
	return xdr_enc_u64(x, r->clientid) &&
	       nfs4_enc_verifier4(x, &r->setclientid_confirm);
}

/* Callback info from the wire; an unusable one (too long) stays empty,
 * which the probe reports as a down path. */
static void cb_from_args(const struct SETCLIENTID4args *a,
			 struct nfs4_cb40 *cb)
{
	memset(cb, 0, sizeof(*cb));
	cb->program = a->cb_program;
	cb->ident = a->callback_ident;
	if (a->r_netid.len < sizeof(cb->netid) &&
	    a->r_addr.len < sizeof(cb->addr)) {
		memcpy(cb->netid, a->r_netid.data, a->r_netid.len);
		memcpy(cb->addr, a->r_addr.data, a->r_addr.len);
	}
}

static void new_confirm(struct verifier4 *v)
{
	uint64_t n = nfs4_next_id();

	memcpy(v->data, &n, 4);
	memcpy(v->data + 4, &nfs4_st.boot_id, 4);
}

/**
 * nfs4_op_setclientid() - RFC 7530 §16.33.5: CLID_INUSE when another
 * principal's confirmed record with live state holds the id; a callback
 * update for the same verifier; otherwise a new unconfirmed record.
 */
uint32_t nfs4_op_setclientid(struct nfs4_compound *c, void *args, void *res)
{
	struct SETCLIENTID4args *a = args;
	struct SETCLIENTID4res *r = res;
	struct nfs4_client *conf, *unconf, *cl;
	struct nfs4_princ p;
	struct nfs4_cb40 cb;
	uint32_t status = NFS4_OK;

	nfs4_princ_of(c->call, &p);
	cb_from_args(a, &cb);
	pthread_mutex_lock(&nfs4_st.mu);
	conf = nfs4_client_find_owner(0, a->id.data, a->id.len, true);
	if (conf && !nfs4_princ_equal(&conf->princ, &p) &&
	    nfs4_client_has_state(conf) && !nfs4_client_expired(conf)) {
		r->client_using = conf->cb;
		status = NFS4ERR_CLID_INUSE;
		goto out;
	}
	unconf = nfs4_client_find_owner(0, a->id.data, a->id.len, false);
	if (unconf)
		nfs4_client_destroy(unconf, false, false);
	if (conf && memcmp(&conf->verifier, &a->verifier,
			   sizeof(a->verifier)) == 0) {
		/* callback update (case 3 of §16.33.5) */
		conf->pending = true;
		conf->pending_cb = cb;
		conf->pending_princ = p;
		new_confirm(&conf->pending_confirm);
		r->clientid = conf->clientid;
		r->setclientid_confirm = conf->pending_confirm;
		goto out;
	}
	cl = nfs4_client_new(0, a->id.data, a->id.len, &a->verifier, &p);
	if (!cl) {
		status = NFS4ERR_RESOURCE;
		goto out;
	}
	cl->cb = cb;
	new_confirm(&cl->confirm);
	r->clientid = cl->clientid;
	r->setclientid_confirm = cl->confirm;
out:
	pthread_mutex_unlock(&nfs4_st.mu);
	return status;
}

const struct nfs4_op nfs4_op_desc_setclientid = {
	.name = "SETCLIENTID",
	.minor_min = 0,
	.minor_max = 0,
	.args_size = sizeof(struct SETCLIENTID4args),
	.res_size = sizeof(struct SETCLIENTID4res),
	.decode = dec_SETCLIENTID4args,
	.handle = nfs4_op_setclientid,
	.encode = enc_SETCLIENTID4res,
	.encode_err = true,
};

static bool dec_SETCLIENTID_CONFIRM4args(struct xdr_buf *x, void *p)
{
	struct SETCLIENTID_CONFIRM4args *a = p;

	return xdr_dec_u64(x, &a->clientid) &&
	       nfs4_dec_verifier4(x, &a->setclientid_confirm);
}

static bool verf_eq(const struct verifier4 *a, const struct verifier4 *b)
{
	return memcmp(a->data, b->data, NFS4_VERIFIER_SIZE) == 0;
}

/**
 * nfs4_op_setclientid_confirm() - RFC 7530 §16.34.4: confirm a pending
 * callback update or an unconfirmed record (replacing the confirmed
 * record of the same id and its state), accept a replay of the last
 * confirm, else STALE_CLIENTID; CLID_INUSE for another principal. The
 * record goes to stable storage and the callback path is probed.
 */
uint32_t nfs4_op_setclientid_confirm(struct nfs4_compound *c, void *args,
				     void *res)
{
	struct SETCLIENTID_CONFIRM4args *a = args;
	struct nfs4_client *cl, *old;
	struct nfs4_cb40 cb;
	struct nfs4_princ p;
	uint32_t status = NFS4_OK;
	bool probe = false;

	(void)res;
	nfs4_princ_of(c->call, &p);
	pthread_mutex_lock(&nfs4_st.mu);
	cl = nfs4_client_find(a->clientid);
	if (!cl || cl->minor != 0) {
		status = NFS4ERR_STALE_CLIENTID;
		goto out;
	}
	if (cl->confirmed) {
		if (cl->pending &&
		    verf_eq(&cl->pending_confirm, &a->setclientid_confirm)) {
			if (!nfs4_princ_equal(&cl->pending_princ, &p)) {
				status = NFS4ERR_CLID_INUSE;
				goto out;
			}
			cl->cb = cl->pending_cb;
			cl->confirm = cl->pending_confirm;
			cl->princ = cl->pending_princ;
			cl->pending = false;
			nfs4_client_lock(cl);
			cl->cb_state = NFS4_CB_UNKNOWN;
			pthread_mutex_unlock(&cl->mu);
			probe = true;
		} else if (!verf_eq(&cl->confirm, &a->setclientid_confirm)) {
			status = NFS4ERR_STALE_CLIENTID;
			goto out;
		} else if (!nfs4_princ_equal(&cl->princ, &p)) {
			status = NFS4ERR_CLID_INUSE;
			goto out;
		}
		nfs4_client_renew(cl);
		goto out;
	}
	if (!verf_eq(&cl->confirm, &a->setclientid_confirm)) {
		status = NFS4ERR_STALE_CLIENTID;
		goto out;
	}
	if (!nfs4_princ_equal(&cl->princ, &p)) {
		status = NFS4ERR_CLID_INUSE;
		goto out;
	}
	/* a client reboot: the old incarnation's state goes */
	old = nfs4_client_find_owner(0, cl->ownerid, cl->ownerid_len, true);
	if (old)
		nfs4_client_destroy(old, false, false);
	nfs4_client_lock(cl);
	cl->confirmed = true;
	pthread_mutex_unlock(&cl->mu);
	nfs4_client_renew(cl);
	probe = true;
out:
	if (probe) {
		cb = cl->cb;
		nfs4_client_get(cl);
	}
	pthread_mutex_unlock(&nfs4_st.mu);
	if (probe) {
		nfs4_grace_record_client(cl);
		nfs4_cb_probe(cl->clientid, &cb);
		nfs4_client_put(cl);
	}
	return status;
}

const struct nfs4_op nfs4_op_desc_setclientid_confirm = {
	.name = "SETCLIENTID_CONFIRM",
	.minor_min = 0,
	.minor_max = 0,
	.args_size = sizeof(struct SETCLIENTID_CONFIRM4args),
	.res_size = 0,
	.decode = dec_SETCLIENTID_CONFIRM4args,
	.handle = nfs4_op_setclientid_confirm,
};

static bool dec_RENEW4args(struct xdr_buf *x, void *p)
{
	struct RENEW4args *a = p;

	return xdr_dec_u64(x, &a->clientid);
}

/**
 * nfs4_op_renew() - RFC 7530 §16.29: renew the lease of a confirmed
 * client (its shard lock and mutex, no global lock); CB_PATH_DOWN (the
 * lease renewed all the same) while it holds delegations its callback
 * path cannot recall, so that it sets the path up again.
 */
uint32_t nfs4_op_renew(struct nfs4_compound *c, void *args, void *res)
{
	struct RENEW4args *a = args;
	struct nfs4_client *cl;
	uint32_t status;

	(void)c;
	(void)res;
	status = nfs4_client_check40(a->clientid, &cl);
	if (status != NFS4_OK)
		return status;
	if (cl->ndelegs > cl->nrevoked && cl->cb_state != NFS4_CB_UP)
		status = NFS4ERR_CB_PATH_DOWN;
	nfs4_client_unlock_put(cl);
	return status;
}

const struct nfs4_op nfs4_op_desc_renew = {
	.name = "RENEW",
	.minor_min = 0,
	.minor_max = 0,
	.args_size = sizeof(struct RENEW4args),
	.res_size = 0,
	.decode = dec_RENEW4args,
	.handle = nfs4_op_renew,
};
