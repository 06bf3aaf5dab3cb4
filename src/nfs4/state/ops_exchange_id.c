// SPDX-License-Identifier: MIT
/*
 * EXCHANGE_ID (RFC 8881 §18.35): the client owner / verifier /
 * principal case table of §18.35.4, SP4_NONE state protection only, no
 * pNFS (EXCHGID4_FLAG_USE_NON_PNFS), a server owner and scope that stay
 * the same across restarts.
 */
#include <string.h>

#include "nfs4/state/ops.h"
#include "nfs4/state/state_int.h"

#define NASD_IMPL_DOMAIN "nasd.invalid"
#define NASD_IMPL_NAME "nasd 0.1"
#define SEC_OID_MAX 64
#define SEC_OID_COUNT_MAX 16
#define SERVER_OWNER_LEN ((uint32_t)sizeof(nfs4_st.server_owner))

struct EXCHANGE_ID4args {
	struct verifier4 co_verifier;
	struct nfs4_opaque co_ownerid;
	uint32_t eia_flags;
	uint32_t spa_how;
};

struct EXCHANGE_ID4resok {
	clientid4 eir_clientid;
	uint32_t eir_sequenceid;
	uint32_t eir_flags;
};

static bool dec_state_protect_ops4(struct xdr_buf *x)
{
	struct bitmap4 spo_must_enforce, spo_must_allow;

	return nfs4_dec_bitmap4(x, &spo_must_enforce) &&
	       nfs4_dec_bitmap4(x, &spo_must_allow);
}

static bool dec_sec_oids(struct xdr_buf *x)
{
	struct nfs4_opaque o;
	uint32_t n, i;

	if (!xdr_dec_u32(x, &n) || n > SEC_OID_COUNT_MAX ||
	    n > xdr_remaining(x) / 4)
		return false;
	for (i = 0; i < n; i++)
		if (!nfs4_dec_opaque(x, &o, SEC_OID_MAX))
			return false;
	return true;
}

static bool dec_EXCHANGE_ID4args(struct xdr_buf *x, void *p)
{
	struct EXCHANGE_ID4args *a = p;
	struct nfs4_opaque nii_domain, nii_name;
	struct nfstime4 t;
	uint32_t n, u;

	if (!nfs4_dec_verifier4(x, &a->co_verifier) ||
	    !nfs4_dec_opaque(x, &a->co_ownerid, NFS4_OPAQUE_LIMIT) ||
	    !xdr_dec_u32(x, &a->eia_flags) || !xdr_dec_u32(x, &a->spa_how))
		return false;
	switch (a->spa_how) {
	case SP4_NONE:
		break;
	case SP4_MACH_CRED:
		if (!dec_state_protect_ops4(x))
			return false;
		break;
	case SP4_SSV:
		if (!dec_state_protect_ops4(x) || !dec_sec_oids(x) ||
		    !dec_sec_oids(x) || !xdr_dec_u32(x, &u) ||
		    !xdr_dec_u32(x, &u))
			return false;
		break;
	default:
		return false;
	}
	/* eia_client_impl_id<1> */
	if (!xdr_dec_u32(x, &n) || n > 1)
		return false;
	if (n == 1 && (!nfs4_dec_opaque(x, &nii_domain, NFS4_OPAQUE_LIMIT) ||
		       !nfs4_dec_opaque(x, &nii_name, NFS4_OPAQUE_LIMIT) ||
		       !nfs4_dec_nfstime4(x, &t)))
		return false;
	return true;
}

static bool enc_EXCHANGE_ID4resok(struct xdr_buf *x, uint32_t status,
				  const void *p)
{
	const struct EXCHANGE_ID4resok *r = p;
	struct nfstime4 t = {0, 0};

	(void)status;
	return xdr_enc_u64(x, r->eir_clientid) &&
	       xdr_enc_u32(x, r->eir_sequenceid) &&
	       xdr_enc_u32(x, r->eir_flags) &&
	       xdr_enc_u32(x, SP4_NONE) &&
	       /* server_owner4: so_minor_id, so_major_id */
	       xdr_enc_u64(x, 0) &&
	       xdr_enc_opaque(x, nfs4_st.server_owner, SERVER_OWNER_LEN) &&
	       /* eir_server_scope */
	       xdr_enc_opaque(x, nfs4_st.server_owner, SERVER_OWNER_LEN) &&
	       /* eir_server_impl_id<1> */
	       xdr_enc_u32(x, 1) &&
	       xdr_enc_opaque(x, NASD_IMPL_DOMAIN,
			      (uint32_t)strlen(NASD_IMPL_DOMAIN)) &&
	       xdr_enc_opaque(x, NASD_IMPL_NAME,
			      (uint32_t)strlen(NASD_IMPL_NAME)) &&
	       nfs4_enc_nfstime4(x, &t);
}

static bool verf_eq(const struct verifier4 *a, const struct verifier4 *b)
{
	return memcmp(a->data, b->data, NFS4_VERIFIER_SIZE) == 0;
}

/* The confirmed record's holder still has something to lose. */
static bool client_in_use(struct nfs4_client *cl)
{
	return (nfs4_client_has_state(cl) || cl->nsessions > 0) &&
	       !nfs4_client_expired(cl);
}

/**
 * nfs4_op_exchange_id() - RFC 8881 §18.35.4, by case:
 * 1 new owner: new unconfirmed record; 2 same verifier and principal of a
 * confirmed record: that record, CONFIRMED_R; 3 another principal: CLID_
 * INUSE while the record is in use, else replaced; 4 new verifier (client
 * restart): new unconfirmed record, the old one goes at CREATE_SESSION;
 * 5 unconfirmed record: replaced; with UPD_CONFIRMED_REC_A: 6 update of
 * the confirmed record, 7 none: NOENT, 8 other verifier: NOT_SAME, 9
 * other principal: PERM.
 */
uint32_t nfs4_op_exchange_id(struct nfs4_compound *c, void *args, void *res)
{
	struct EXCHANGE_ID4args *a = args;
	struct EXCHANGE_ID4resok *r = res;
	struct nfs4_client *conf, *unconf, *cl;
	struct nfs4_princ p;
	bool update, creds, verf;
	uint32_t status = NFS4_OK;

	if (a->eia_flags & ~(uint32_t)EXCHGID4_FLAG_MASK_A)
		return NFS4ERR_INVAL;
	if (a->spa_how == SP4_MACH_CRED)
		return NFS4ERR_NOTSUPP;
	if (a->spa_how == SP4_SSV)
		return NFS4ERR_ENCR_ALG_UNSUPP;
	if (!c->session && c->numops > 1)
		return NFS4ERR_NOT_ONLY_OP;
	update = a->eia_flags & EXCHGID4_FLAG_UPD_CONFIRMED_REC_A;
	nfs4_princ_of(c->call, &p);

	pthread_mutex_lock(&nfs4_st.mu);
	conf = nfs4_client_find_owner(1, a->co_ownerid.data, a->co_ownerid.len,
				      true);
	if (conf) {
		creds = nfs4_princ_equal(&conf->princ, &p);
		verf = verf_eq(&conf->verifier, &a->co_verifier);
		if (update) {
			if (!creds) {
				status = NFS4ERR_PERM;          /* case 9 */
				goto out;
			}
			if (!verf) {
				status = NFS4ERR_NOT_SAME;      /* case 8 */
				goto out;
			}
			cl = conf;                              /* case 6 */
			goto found;
		}
		if (!creds) {
			if (client_in_use(conf)) {
				status = NFS4ERR_CLID_INUSE;    /* case 3 */
				goto out;
			}
			nfs4_client_destroy(conf, false, false);
			conf = NULL;
		} else if (verf) {
			cl = conf;                              /* case 2 */
			goto found;
		}
		/* case 4: conf stays until the new record is confirmed */
	} else if (update) {
		status = NFS4ERR_NOENT;                         /* case 7 */
		goto out;
	}
	unconf = nfs4_client_find_owner(1, a->co_ownerid.data,
					a->co_ownerid.len, false);
	if (unconf)
		nfs4_client_destroy(unconf, false, false);      /* case 5 */
	cl = nfs4_client_new(1, a->co_ownerid.data, a->co_ownerid.len,
			     &a->co_verifier, &p);              /* case 1 */
	if (!cl) {
		status = NFS4ERR_DELAY;
		goto out;
	}
found:
	nfs4_client_renew(cl);
	cl->eir_flags = EXCHGID4_FLAG_USE_NON_PNFS;
	r->eir_clientid = cl->clientid;
	r->eir_sequenceid = cl->cs_seq + 1;
	r->eir_flags = cl->eir_flags |
		       (cl->confirmed ? EXCHGID4_FLAG_CONFIRMED_R : 0);
out:
	pthread_mutex_unlock(&nfs4_st.mu);
	nfs4_grace_flush_forgets();
	return status;
}

const struct nfs4_op nfs4_op_desc_exchange_id = {
	.name = "EXCHANGE_ID",
	.minor_min = 1,
	.minor_max = 255,
	.flags = NFS4_OP_NO_SEQ,
	.args_size = sizeof(struct EXCHANGE_ID4args),
	.res_size = sizeof(struct EXCHANGE_ID4resok),
	.decode = dec_EXCHANGE_ID4args,
	.handle = nfs4_op_exchange_id,
	.encode = enc_EXCHANGE_ID4resok,
};
