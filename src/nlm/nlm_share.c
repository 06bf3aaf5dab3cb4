// SPDX-License-Identifier: MIT
/*
 * NLM_SHARE and NLM_UNSHARE (XNFS §10.14): DOS share reservations of
 * NFSv3 clients, kept as share reservations of the shared file state, so
 * that they deny NFSv4 OPENs and SMB CREATEs and are denied by them
 * (state_share_acquire's one conflict rule). The owner is (host, oh).
 */
#include <errno.h>

#include "nlm/nlm_int.h"
#include "vfs/vfs.h"

/* fsh_access and fsh_mode as state access and deny bits. */
static const uint32_t share_access[] = {
	[fsa_NONE] = 0,
	[fsa_R] = STATE_ACCESS_READ,
	[fsa_W] = STATE_ACCESS_WRITE,
	[fsa_RW] = STATE_ACCESS_READ | STATE_ACCESS_WRITE,
};
static const uint32_t share_deny[] = {
	[fsm_DN] = 0,
	[fsm_DR] = STATE_DENY_READ,
	[fsm_DW] = STATE_DENY_WRITE,
	[fsm_DRW] = STATE_DENY_READ | STATE_DENY_WRITE,
};

static uint32_t share_do(struct rpc_call *call, const struct nlm_shareargs *a,
			 bool set)
{
	struct vfs_obj *obj;
	struct state_file *f;
	struct nlm_host *h;
	struct nlm_owner *o = NULL;
	struct state_holder sh;
	uint32_t st;
	bool ro, save = false;
	int err;

	if (set && nlm_in_grace() != a->reclaim)
		return NLM4_DENIED_GRACE_PERIOD;
	st = nlm_resolve(call, &a->fh, &obj, &ro);
	if (st)
		return st;
	f = state_file_get(obj);
	if (!f) {
		st = NLM4_DENIED_NOLOCKS;
		goto out_put;
	}
	pthread_mutex_lock(&nlm_mu);
	h = nlm_host_find(&a->caller_name, rpc_call_peer(call), set);
	if (h)
		o = nlm_owner_find(h, 0, &a->oh, true, set);
	if (!o) {
		st = set ? NLM4_DENIED_NOLOCKS : NLM4_GRANTED;
		goto out_unlock;
	}
	sh = nlm_holder(o);
	if (!set) {
		state_share_release(f, &sh);
		/* The record held the owner: dropping it may free it. */
		nlm_rec_drop(o, f, true);
		o = NULL;
		goto out_unlock;
	}
	err = state_share_acquire(f, &sh, share_access[a->access],
				  share_deny[a->mode]);
	if (err == -EEXIST) /* a second SHARE of the owner replaces it */
		err = state_share_change(f, &sh, share_access[a->access],
					 share_deny[a->mode]);
	if (err == 0 && nlm_rec_add(o, f, true) < 0) {
		state_share_release(f, &sh);
		err = -ENOSPC;
	}
	if (err == -EBUSY)
		st = NLM4_DENIED;
	else if (err == -EINPROGRESS) /* a courtesy NFSv4 client's */
		st = NLM4_DENIED_GRACE_PERIOD;
	else if (err)
		st = NLM4_DENIED_NOLOCKS;
	else
		save = nlm_host_monitor(h);
out_unlock:
	if (o && !o->refs)
		nlm_owner_put(o);
	pthread_mutex_unlock(&nlm_mu);
	if (save)
		nlm_hosts_save();
	state_file_put(f);
out_put:
	vfs_obj_put(obj);
	return st;
}

static void share_res(struct nlm_res *r, const struct nlm_shareargs *a,
		      uint32_t st)
{
	r->vers = a->vers;
	r->proc = NLMPROC_SHARE;
	r->cookie = a->cookie;
	r->stat = st;
	r->sequence = 0;
}

/** nlm_proc_share() - NLM_SHARE (XNFS §10.14). */
void nlm_proc_share(struct rpc_call *call, const void *args, void *res)
{
	share_res(res, args, share_do(call, args, true));
}

/** nlm_proc_unshare() - NLM_UNSHARE (XNFS §10.14). */
void nlm_proc_unshare(struct rpc_call *call, const void *args, void *res)
{
	share_res(res, args, share_do(call, args, false));
}
