// SPDX-License-Identifier: MIT
/*
 * NLM and NSM codecs (nlm_xdr.h): one decoder or encoder per XNFS type,
 * through the bounds-checked cursor. Every decoder insists that the body
 * ends where the type ends: trailing bytes are garbage too.
 */
#include "nlm/nlm_xdr.h"

static bool dec_obj(struct xdr_buf *x, struct nlm_obj *o, uint32_t max)
{
	return xdr_dec_opaque_ref(x, &o->p, &o->len, max);
}

static bool dec_end(const struct xdr_buf *x)
{
	return xdr_ok(x) && xdr_remaining(x) == 0;
}

/* nlm_lock (v1/v3: uppid, unsigned l_offset, l_len) or nlm4_lock. */
static bool dec_lock(struct xdr_buf *x, struct nlm_lock *l, bool v4)
{
	uint32_t off32, len32;

	if (!dec_obj(x, &l->caller_name, LM_MAXSTRLEN) ||
	    !dec_obj(x, &l->fh, MAXNETOBJ_SZ) ||
	    !dec_obj(x, &l->oh, MAXNETOBJ_SZ) || !xdr_dec_i32(x, &l->svid))
		return false;
	if (v4)
		return xdr_dec_u64(x, &l->l_offset) &&
		       xdr_dec_u64(x, &l->l_len);
	if (!xdr_dec_u32(x, &off32) || !xdr_dec_u32(x, &len32))
		return false;
	l->l_offset = off32;
	l->l_len = len32;
	return true;
}

/** nlm_dec_void() - void arguments. */
bool nlm_dec_void(struct xdr_buf *x, void *args)
{
	(void)args;
	return dec_end(x);
}

static bool dec_testargs(struct xdr_buf *x, struct nlm_args *a, bool v4)
{
	a->vers = v4 ? NLM_VERS4 : NLM_VERS3;
	return dec_obj(x, &a->cookie, MAXNETOBJ_SZ) &&
	       xdr_dec_bool(x, &a->exclusive) && dec_lock(x, &a->alock, v4) &&
	       dec_end(x);
}

/** nlm_dec_testargs_v3() - nlm_testargs (XNFS §10.14). */
bool nlm_dec_testargs_v3(struct xdr_buf *x, void *args)
{
	return dec_testargs(x, args, false);
}

/** nlm_dec_testargs_v4() - nlm4_testargs (XNFS §14.1). */
bool nlm_dec_testargs_v4(struct xdr_buf *x, void *args)
{
	return dec_testargs(x, args, true);
}

static bool dec_lockargs(struct xdr_buf *x, struct nlm_args *a, bool v4)
{
	a->vers = v4 ? NLM_VERS4 : NLM_VERS3;
	return dec_obj(x, &a->cookie, MAXNETOBJ_SZ) &&
	       xdr_dec_bool(x, &a->block) && xdr_dec_bool(x, &a->exclusive) &&
	       dec_lock(x, &a->alock, v4) && xdr_dec_bool(x, &a->reclaim) &&
	       xdr_dec_i32(x, &a->state) && dec_end(x);
}

/** nlm_dec_lockargs_v3() - nlm_lockargs (XNFS §10.14). */
bool nlm_dec_lockargs_v3(struct xdr_buf *x, void *args)
{
	return dec_lockargs(x, args, false);
}

/** nlm_dec_lockargs_v4() - nlm4_lockargs (XNFS §14.1). */
bool nlm_dec_lockargs_v4(struct xdr_buf *x, void *args)
{
	return dec_lockargs(x, args, true);
}

static bool dec_cancargs(struct xdr_buf *x, struct nlm_args *a, bool v4)
{
	a->vers = v4 ? NLM_VERS4 : NLM_VERS3;
	return dec_obj(x, &a->cookie, MAXNETOBJ_SZ) &&
	       xdr_dec_bool(x, &a->block) && xdr_dec_bool(x, &a->exclusive) &&
	       dec_lock(x, &a->alock, v4) && dec_end(x);
}

/** nlm_dec_cancargs_v3() - nlm_cancargs (XNFS §10.14). */
bool nlm_dec_cancargs_v3(struct xdr_buf *x, void *args)
{
	return dec_cancargs(x, args, false);
}

/** nlm_dec_cancargs_v4() - nlm4_cancargs (XNFS §14.1). */
bool nlm_dec_cancargs_v4(struct xdr_buf *x, void *args)
{
	return dec_cancargs(x, args, true);
}

static bool dec_unlockargs(struct xdr_buf *x, struct nlm_args *a, bool v4)
{
	a->vers = v4 ? NLM_VERS4 : NLM_VERS3;
	return dec_obj(x, &a->cookie, MAXNETOBJ_SZ) &&
	       dec_lock(x, &a->alock, v4) && dec_end(x);
}

/** nlm_dec_unlockargs_v3() - nlm_unlockargs (XNFS §10.14). */
bool nlm_dec_unlockargs_v3(struct xdr_buf *x, void *args)
{
	return dec_unlockargs(x, args, false);
}

/** nlm_dec_unlockargs_v4() - nlm4_unlockargs (XNFS §14.1). */
bool nlm_dec_unlockargs_v4(struct xdr_buf *x, void *args)
{
	return dec_unlockargs(x, args, true);
}

/* nlm_shareargs and nlm4_shareargs have the same layout. */
static bool dec_shareargs(struct xdr_buf *x, struct nlm_shareargs *a,
			  uint32_t vers)
{
	a->vers = vers;
	if (!dec_obj(x, &a->cookie, MAXNETOBJ_SZ) ||
	    !dec_obj(x, &a->caller_name, LM_MAXSTRLEN) ||
	    !dec_obj(x, &a->fh, MAXNETOBJ_SZ) ||
	    !dec_obj(x, &a->oh, MAXNETOBJ_SZ) || !xdr_dec_u32(x, &a->mode) ||
	    !xdr_dec_u32(x, &a->access) || !xdr_dec_bool(x, &a->reclaim))
		return false;
	return a->mode <= fsm_DRW && a->access <= fsa_RW && dec_end(x);
}

/** nlm_dec_shareargs_v3() - nlm_shareargs (XNFS §10.14). */
bool nlm_dec_shareargs_v3(struct xdr_buf *x, void *args)
{
	return dec_shareargs(x, args, NLM_VERS3);
}

/** nlm_dec_shareargs_v4() - nlm4_shareargs (XNFS §14.1). */
bool nlm_dec_shareargs_v4(struct xdr_buf *x, void *args)
{
	return dec_shareargs(x, args, NLM_VERS4);
}

/** nlm_dec_notify() - nlm_notify (FREE_ALL, XNFS §10.14). */
bool nlm_dec_notify(struct xdr_buf *x, void *args)
{
	struct nlm_notify *n = args;

	return dec_obj(x, &n->name, LM_MAXNAMELEN) &&
	       xdr_dec_i32(x, &n->state) && dec_end(x);
}

/** nlm_dec_res() - nlm_res / nlm4_res (a client's *_RES message). */
bool nlm_dec_res(struct xdr_buf *x, void *args)
{
	struct nlm_res *r = args;

	return dec_obj(x, &r->cookie, MAXNETOBJ_SZ) &&
	       xdr_dec_u32(x, &r->stat) && dec_end(x);
}

static bool dec_testres(struct xdr_buf *x, struct nlm_res *r, bool v4)
{
	struct nlm_holder *h = &r->holder;
	uint32_t off32, len32;

	if (!dec_obj(x, &r->cookie, MAXNETOBJ_SZ) || !xdr_dec_u32(x, &r->stat))
		return false;
	if (r->stat != NLM4_DENIED)
		return dec_end(x);
	if (!xdr_dec_bool(x, &h->exclusive) || !xdr_dec_i32(x, &h->svid) ||
	    !dec_obj(x, &h->oh, MAXNETOBJ_SZ))
		return false;
	if (v4)
		return xdr_dec_u64(x, &h->l_offset) &&
		       xdr_dec_u64(x, &h->l_len) && dec_end(x);
	return xdr_dec_u32(x, &off32) && xdr_dec_u32(x, &len32) && dec_end(x);
}

/** nlm_dec_testres_v3() - nlm_testres (TEST_RES, XNFS §10.14). */
bool nlm_dec_testres_v3(struct xdr_buf *x, void *args)
{
	return dec_testres(x, args, false);
}

/** nlm_dec_testres_v4() - nlm4_testres (TEST_RES, XNFS §14.1). */
bool nlm_dec_testres_v4(struct xdr_buf *x, void *args)
{
	return dec_testres(x, args, true);
}

/** nlm_enc_void() - void result. */
bool nlm_enc_void(struct xdr_buf *x, const void *res)
{
	(void)res;
	return xdr_ok(x);
}

/** nlm_stat_cast() - see nlm_xdr.h. */
uint32_t nlm_stat_cast(uint32_t vers, uint32_t stat)
{
	if (vers == NLM_VERS4)
		return stat < NLM4_NSTATS ? stat : NLM4_FAILED;
	if (stat <= NLM4_DENIED_GRACE_PERIOD)
		return stat;
	return stat == NLM4_DEADLCK ? NLM4_DENIED : NLM4_DENIED_NOLOCKS;
}

/* A 64-bit range as v1/v3 can say it: clamped, to EOF past 32 bits. */
static void holder_32(const struct nlm_holder *h, uint32_t *off, uint32_t *len)
{
	if (h->l_offset > UINT32_MAX) {
		*off = UINT32_MAX;
		*len = 0;
		return;
	}
	*off = (uint32_t)h->l_offset;
	*len = h->l_len > UINT32_MAX - h->l_offset ? 0 : (uint32_t)h->l_len;
}

static bool enc_holder(struct xdr_buf *x, const struct nlm_holder *h,
		       uint32_t vers)
{
	uint32_t off, len;

	if (!xdr_enc_bool(x, h->exclusive) ||
	    !xdr_enc_u32(x, (uint32_t)h->svid) ||
	    !xdr_enc_opaque(x, h->oh.p, h->oh.len))
		return false;
	if (vers == NLM_VERS4)
		return xdr_enc_u64(x, h->l_offset) && xdr_enc_u64(x, h->l_len);
	holder_32(h, &off, &len);
	return xdr_enc_u32(x, off) && xdr_enc_u32(x, len);
}

/** nlm_enc_res() - nlm_res, nlm_testres or nlm_shareres, by r->proc. */
bool nlm_enc_res(struct xdr_buf *x, const void *res)
{
	const struct nlm_res *r = res;
	uint32_t stat = nlm_stat_cast(r->vers, r->stat);

	if (!xdr_enc_opaque(x, r->cookie.p, r->cookie.len) ||
	    !xdr_enc_u32(x, stat))
		return false;
	if (r->proc == NLMPROC_TEST && stat == NLM4_DENIED)
		return enc_holder(x, &r->holder, r->vers);
	if (r->proc == NLMPROC_SHARE)
		return xdr_enc_u32(x, (uint32_t)r->sequence);
	return xdr_ok(x);
}

/** nlm_enc_testargs() - see nlm_xdr.h. */
bool nlm_enc_testargs(struct xdr_buf *x, uint32_t vers,
		      const struct nlm_obj *cookie, bool exclusive,
		      const struct nlm_lock *l)
{
	if (!xdr_enc_opaque(x, cookie->p, cookie->len) ||
	    !xdr_enc_bool(x, exclusive) ||
	    !xdr_enc_opaque(x, l->caller_name.p, l->caller_name.len) ||
	    !xdr_enc_opaque(x, l->fh.p, l->fh.len) ||
	    !xdr_enc_opaque(x, l->oh.p, l->oh.len) ||
	    !xdr_enc_u32(x, (uint32_t)l->svid))
		return false;
	if (vers == NLM_VERS4)
		return xdr_enc_u64(x, l->l_offset) && xdr_enc_u64(x, l->l_len);
	return xdr_enc_u32(x, (uint32_t)l->l_offset) &&
	       xdr_enc_u32(x, (uint32_t)l->l_len);
}

/* ---- NSM ------------------------------------------------------------ */

/** nsm_dec_mon_name() - sm_name (SM_STAT, XNFS §11.5). */
bool nsm_dec_mon_name(struct xdr_buf *x, void *args)
{
	struct nsm_args *a = args;

	return dec_obj(x, &a->mon_name, SM_MAXSTRLEN) && dec_end(x);
}

static bool dec_my_id(struct xdr_buf *x, struct nsm_my_id *m)
{
	return dec_obj(x, &m->my_name, SM_MAXSTRLEN) &&
	       xdr_dec_u32(x, &m->my_prog) && xdr_dec_u32(x, &m->my_vers) &&
	       xdr_dec_u32(x, &m->my_proc);
}

/** nsm_dec_mon() - mon (SM_MON): mon_id and priv[16]. */
bool nsm_dec_mon(struct xdr_buf *x, void *args)
{
	struct nsm_args *a = args;

	return dec_obj(x, &a->mon_name, SM_MAXSTRLEN) &&
	       dec_my_id(x, &a->my_id) && xdr_inline(x, SM_PRIV_SIZE) &&
	       dec_end(x);
}

/** nsm_dec_mon_id() - mon_id (SM_UNMON). */
bool nsm_dec_mon_id(struct xdr_buf *x, void *args)
{
	struct nsm_args *a = args;

	return dec_obj(x, &a->mon_name, SM_MAXSTRLEN) &&
	       dec_my_id(x, &a->my_id) && dec_end(x);
}

/** nsm_dec_my_id() - my_id (SM_UNMON_ALL). */
bool nsm_dec_my_id(struct xdr_buf *x, void *args)
{
	struct nsm_args *a = args;

	return dec_my_id(x, &a->my_id) && dec_end(x);
}

/** nsm_dec_stat_chge() - stat_chge (SM_NOTIFY). */
bool nsm_dec_stat_chge(struct xdr_buf *x, void *args)
{
	struct nsm_args *a = args;

	return dec_obj(x, &a->mon_name, SM_MAXSTRLEN) &&
	       xdr_dec_i32(x, &a->state) && dec_end(x);
}

/** nsm_enc_stat_res() - sm_stat_res (SM_STAT, SM_MON). */
bool nsm_enc_stat_res(struct xdr_buf *x, const void *res)
{
	const struct nsm_res *r = res;

	return xdr_enc_u32(x, r->res_stat) &&
	       xdr_enc_u32(x, (uint32_t)r->state);
}

/** nsm_enc_stat() - sm_stat (SM_UNMON, SM_UNMON_ALL). */
bool nsm_enc_stat(struct xdr_buf *x, const void *res)
{
	const struct nsm_res *r = res;

	return xdr_enc_u32(x, (uint32_t)r->state);
}

/** nsm_enc_stat_chge() - see nlm_xdr.h. */
bool nsm_enc_stat_chge(struct xdr_buf *x, const char *mon_name, int32_t state)
{
	return xdr_enc_opaque(x, mon_name, (uint32_t)strlen(mon_name)) &&
	       xdr_enc_u32(x, (uint32_t)state);
}
