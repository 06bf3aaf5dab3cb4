// SPDX-License-Identifier: MIT
/*
 * Stateid housekeeping: FREE_STATEID (RFC 8881 §18.38), TEST_STATEID
 * (§18.48), DELEGRETURN (§18.6) and DELEGPURGE (§18.5, refused: nasd
 * does not support CLAIM_DELEGATE_PREV).
 */
#include <string.h>

#include "nfs4/state/ops.h"
#include "nfs4/state/state_int.h"

#define TEST_STATEID_MAX 1024

struct stateid_args {
	struct stateid4 stateid;
};

struct TEST_STATEID4args {
	uint32_t count;
	const uint8_t *raw;        /* count stateid4s, borrowed */
};

struct TEST_STATEID4resok {
	uint32_t count;
	uint32_t *status;          /* call memory */
};

struct DELEGPURGE4args {
	clientid4 clientid;
};

static bool dec_stateid_args(struct xdr_buf *x, void *p)
{
	struct stateid_args *a = p;

	return nfs4_dec_stateid4(x, &a->stateid);
}

/**
 * nfs4_op_free_stateid() - RFC 8881 §18.38.3: forget a lock stateid that
 * holds no locks, or a revoked delegation; LOCKS_HELD for a lock stateid
 * that holds locks, open stateids (they go with CLOSE) and delegations
 * still held (DELEGRETURN). The seqid is not checked.
 */
uint32_t nfs4_op_free_stateid(struct nfs4_compound *c, void *args, void *res)
{
	struct stateid_args *a = args;
	struct nfs4_lockstate *ls;
	struct nfs4_client *cl;
	struct nfs4_stid *s;
	uint32_t status;

	(void)res;
	status = nfs4_stid_lookup(c, &a->stateid,
				  1u << NFS4_STID_OPEN | 1u << NFS4_STID_LOCK |
					  1u << NFS4_STID_DELEG |
					  1u << NFS4_STID_DELEG_REVOKED,
				  false, &s);
	if (status != NFS4_OK)
		return status;
	cl = s->client;
	if (s->type == NFS4_STID_DELEG_REVOKED) {
		nfs4_deleg_free(nfs4_container_of(s, struct nfs4_deleg, sid));
		goto out;
	}
	if (s->type == NFS4_STID_OPEN || s->type == NFS4_STID_DELEG) {
		status = NFS4ERR_LOCKS_HELD;
		goto out;
	}
	ls = nfs4_container_of(s, struct nfs4_lockstate, sid);
	if (nfs4_lockstate_has_locks(ls)) {
		status = NFS4ERR_LOCKS_HELD;
		goto out;
	}
	nfs4_lockstate_free(ls);
out:
	nfs4_client_unlock_put(cl);
	return status;
}

const struct nfs4_op nfs4_op_desc_free_stateid = {
	.name = "FREE_STATEID",
	.minor_min = 1,
	.minor_max = 255,
	.args_size = sizeof(struct stateid_args),
	.res_size = 0,
	.decode = dec_stateid_args,
	.handle = nfs4_op_free_stateid,
};

static bool dec_TEST_STATEID4args(struct xdr_buf *x, void *p)
{
	struct TEST_STATEID4args *a = p;

	if (!xdr_dec_u32(x, &a->count) || a->count > TEST_STATEID_MAX ||
	    a->count > xdr_remaining(x) / 16)
		return false;
	a->raw = xdr_inline(x, (size_t)a->count * 16);
	return a->raw != NULL;
}

static bool enc_TEST_STATEID4resok(struct xdr_buf *x, uint32_t status,
				   const void *p)
{
	const struct TEST_STATEID4resok *r = p;
	uint32_t i;

	(void)status;
	if (!xdr_enc_u32(x, r->count))
		return false;
	for (i = 0; i < r->count; i++)
		if (!xdr_enc_u32(x, r->status[i]))
			return false;
	return true;
}

/**
 * nfs4_op_test_stateid() - RFC 8881 §18.48.3: the status each stateid
 * would get (OK, BAD_STATEID, OLD_STATEID...); only the session client's
 * stateids are valid, special ones never are.
 */
uint32_t nfs4_op_test_stateid(struct nfs4_compound *c, void *args, void *res)
{
	struct TEST_STATEID4args *a = args;
	struct TEST_STATEID4resok *r = res;
	struct nfs4_client *cl;
	struct xdr_buf x;
	uint32_t i;

	r->status = rpc_call_alloc(c->call, (size_t)a->count * 4 + 4);
	if (!r->status)
		return NFS4ERR_DELAY;
	r->count = a->count;
	xdr_init(&x, (void *)a->raw, (size_t)a->count * 16);
	/* only the session client's stateids are valid: lock it once */
	cl = c->client;
	if (cl) {
		nfs4_client_get(cl);
		nfs4_client_lock(cl);
	}
	for (i = 0; i < a->count; i++) {
		struct stateid4 sid;
		struct nfs4_stid *s;

		nfs4_dec_stateid4(&x, &sid);
		if (nfs4_stateid_is_special(&sid) || !cl) {
			r->status[i] = NFS4ERR_BAD_STATEID;
			continue;
		}
		r->status[i] = nfs4_stid_lookup_in(
			c, cl, &sid,
			1u << NFS4_STID_OPEN | 1u << NFS4_STID_LOCK |
				1u << NFS4_STID_DELEG,
			true, &s);
	}
	if (cl)
		nfs4_client_unlock_put(cl);
	return NFS4_OK;
}

const struct nfs4_op nfs4_op_desc_test_stateid = {
	.name = "TEST_STATEID",
	.minor_min = 1,
	.minor_max = 255,
	.args_size = sizeof(struct TEST_STATEID4args),
	.res_size = sizeof(struct TEST_STATEID4resok),
	.decode = dec_TEST_STATEID4args,
	.handle = nfs4_op_test_stateid,
	.encode = enc_TEST_STATEID4resok,
};

static bool dec_DELEGPURGE4args(struct xdr_buf *x, void *p)
{
	struct DELEGPURGE4args *a = p;

	return xdr_dec_u64(x, &a->clientid);
}

/**
 * nfs4_op_delegpurge() - RFC 8881 §18.5.3: only servers that support
 * CLAIM_DELEGATE_PREV need it; nasd keeps no delegations across a
 * client's restart: NOTSUPP (as knfsd).
 */
uint32_t nfs4_op_delegpurge(struct nfs4_compound *c, void *args, void *res)
{
	(void)c;
	(void)args;
	(void)res;
	return NFS4ERR_NOTSUPP;
}

const struct nfs4_op nfs4_op_desc_delegpurge = {
	.name = "DELEGPURGE",
	.minor_min = 0,
	.minor_max = 255,
	.args_size = sizeof(struct DELEGPURGE4args),
	.res_size = 0,
	.decode = dec_DELEGPURGE4args,
	.handle = nfs4_op_delegpurge,
};

/**
 * nfs4_op_delegreturn() - RFC 8881 §18.6.3: give a delegation of the
 * current file back (a recall of it ends, whoever waited goes on). A
 * revoked one answers DELEG_REVOKED (4.1: FREE_STATEID forgets it); a
 * stateid of another kind or file BAD_STATEID.
 */
uint32_t nfs4_op_delegreturn(struct nfs4_compound *c, void *args, void *res)
{
	struct stateid_args *a = args;
	struct nfs4_client *cl;
	struct nfs4_stid *s;
	uint32_t status;

	(void)res;
	status = nfs4_stid_lookup(c, &a->stateid, 1u << NFS4_STID_DELEG, true,
				  &s);
	if (status != NFS4_OK)
		return status;
	cl = s->client; /* pinned by the lookup; @s may go below */
	if (c->cur.pseudo || state_file_obj(s->file) != c->cur.obj)
		status = NFS4ERR_BAD_STATEID;
	else
		nfs4_deleg_free(nfs4_container_of(s, struct nfs4_deleg, sid));
	nfs4_client_unlock_put(cl);
	return status;
}

const struct nfs4_op nfs4_op_desc_delegreturn = {
	.name = "DELEGRETURN",
	.minor_min = 0,
	.minor_max = 255,
	.flags = NFS4_OP_NEEDS_FH,
	.args_size = sizeof(struct stateid_args),
	.res_size = 0,
	.decode = dec_stateid_args,
	.handle = nfs4_op_delegreturn,
};
