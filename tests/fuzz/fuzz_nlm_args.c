/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the argument decoders of NLM (100021 v1, v3, v4) and
 * NSM (100024 v1), called through their program tables as the
 * dispatcher does. Input: one selector byte (high nibble: 0 = NLM v1,
 * 1 = v3, 2 = v4, 3 = NSM; then the next byte % the version's procedure
 * count), then the arguments.
 *
 * The arguments are copied into a buffer of exactly their size and the
 * decoded struct is a heap block of exactly the table's args_size, so
 * ASan reports any read past the record or write past the struct.
 * Properties, for every input that decodes: every borrowed string or
 * netobj lies inside the input and within its protocol maximum; the lock
 * of a TEST/LOCK/CANCEL/UNLOCK/GRANTED argument, encoded again as the
 * GRANTED arguments nasd sends (nlm_enc_testargs) and decoded as
 * nlm_testargs of the same version, gives back the same fields.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "nlm/nlm.h"
#include "nlm/nlm_xdr.h"

static const uint8_t *in_lo, *in_hi;

static void check_obj(const struct nlm_obj *o, uint32_t max)
{
	FUZZ_CHECK(o->len <= max);
	if (o->len)
		FUZZ_CHECK(o->p >= in_lo && o->p + o->len <= in_hi);
}

static void check_lock(const struct nlm_lock *l)
{
	check_obj(&l->caller_name, LM_MAXSTRLEN);
	check_obj(&l->fh, MAXNETOBJ_SZ);
	check_obj(&l->oh, MAXNETOBJ_SZ);
}

static bool obj_eq(const struct nlm_obj *a, const struct nlm_obj *b)
{
	return a->len == b->len && (!a->len || !memcmp(a->p, b->p, a->len));
}

static void roundtrip(const struct nlm_args *a, uint32_t vers)
{
	static uint8_t buf[4 * (4 + MAXNETOBJ_SZ) + 64];
	struct nlm_args b;
	struct xdr_buf x;
	bool ok;

	xdr_init(&x, buf, sizeof(buf));
	FUZZ_CHECK(nlm_enc_testargs(&x, vers, &a->cookie, a->exclusive,
				    &a->alock));
	memset(&b, 0, sizeof(b));
	x.len = x.pos;
	x.pos = 0;
	ok = vers == NLM_VERS4 ? nlm_dec_testargs_v4(&x, &b)
			       : nlm_dec_testargs_v3(&x, &b);
	FUZZ_CHECK(ok);
	FUZZ_CHECK(obj_eq(&a->cookie, &b.cookie));
	FUZZ_CHECK(a->exclusive == b.exclusive);
	FUZZ_CHECK(obj_eq(&a->alock.caller_name, &b.alock.caller_name));
	FUZZ_CHECK(obj_eq(&a->alock.fh, &b.alock.fh));
	FUZZ_CHECK(obj_eq(&a->alock.oh, &b.alock.oh));
	FUZZ_CHECK(a->alock.svid == b.alock.svid);
	FUZZ_CHECK(a->alock.l_offset == b.alock.l_offset);
	FUZZ_CHECK(a->alock.l_len == b.alock.l_len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct rpc_program *prog;
	const struct rpc_version *v;
	const struct rpc_proc *p;
	struct xdr_buf x;
	uint8_t *copy;
	void *args;
	uint32_t proc, vi;
	bool ok;

	if (size < 2)
		return 0;
	vi = (uint32_t)(data[0] >> 4) % 4;
	prog = vi == 3 ? &nsm_program : &nlm_program;
	v = &prog->versions[vi == 3 ? 0 : vi];
	proc = data[1] % v->nprocs;
	p = &v->procs[proc];
	if (!p->decode)
		return 0;
	copy = malloc(size - 2 ? size - 2 : 1);
	args = calloc(1, p->args_size ? p->args_size : 1);
	FUZZ_CHECK(copy && args);
	memcpy(copy, data + 2, size - 2);
	in_lo = copy;
	in_hi = copy + (size - 2);
	xdr_init(&x, copy, size - 2);
	ok = p->decode(&x, args);
	if (ok && vi < 3) {
		switch (proc) {
		case NLMPROC_TEST:
		case NLMPROC_LOCK:
		case NLMPROC_CANCEL:
		case NLMPROC_UNLOCK:
		case NLMPROC_GRANTED:
		case NLMPROC_NM_LOCK: {
			const struct nlm_args *a = args;

			check_obj(&a->cookie, MAXNETOBJ_SZ);
			check_lock(&a->alock);
			FUZZ_CHECK(vi == 2 ||
				   (a->alock.l_offset <= UINT32_MAX &&
				    a->alock.l_len <= UINT32_MAX));
			roundtrip(a, v->vers);
			break;
		}
		case NLMPROC_SHARE:
		case NLMPROC_UNSHARE: {
			const struct nlm_shareargs *s = args;

			check_obj(&s->cookie, MAXNETOBJ_SZ);
			check_obj(&s->caller_name, LM_MAXSTRLEN);
			check_obj(&s->fh, MAXNETOBJ_SZ);
			check_obj(&s->oh, MAXNETOBJ_SZ);
			FUZZ_CHECK(s->mode <= fsm_DRW && s->access <= fsa_RW);
			break;
		}
		default:
			break;
		}
	} else if (ok && p->args_size == sizeof(struct nsm_args)) {
		/* (NSM's NULL decodes nothing into no struct) */
		const struct nsm_args *a = args;

		check_obj(&a->mon_name, SM_MAXSTRLEN);
		check_obj(&a->my_id.my_name, SM_MAXSTRLEN);
	}
	free(args);
	free(copy);
	return 0;
}
