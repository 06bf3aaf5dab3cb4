// SPDX-License-Identifier: MIT
/*
 * The NLM program table (XNFS §10.14, §14.2): program 100021, versions 1
 * and 3 (32-bit ranges; version 1 without SHARE..FREE_ALL) and 4 (64-bit
 * ranges), indexed by procedure number. The handlers are one set; the
 * decoders give them the version's arguments widened to one form.
 * Procedures 16-19 are holes (PROC_UNAVAIL).
 */
#include "nlm/nlm_int.h"

/* Reply budget: a cookie, the status, a holder with its oh. */
#define RES_MAX (2 * (4 + MAXNETOBJ_SZ) + 64)
#define NI	RPC_PROC_NONIDEMPOTENT
#define ST	RPC_PROC_RES_STATUS

#define P(NAME, fn, argt, dec, enc, fl, max)                                   \
	[NLMPROC_##NAME] = {                                                   \
		.name = #NAME,                                                 \
		.args_size = sizeof(struct argt),                              \
		.res_size = sizeof(struct nlm_res),                            \
		.decode = (dec),                                               \
		.handle = (fn),                                                \
		.encode = (enc),                                               \
		.flags = (fl),                                                 \
		.max_reply = (max),                                            \
	}
/* A message whose answer goes back as a call: the reply is void. */
#define M(NAME, fn, argt, dec)                                                 \
	[NLMPROC_##NAME] = {                                                   \
		.name = #NAME,                                                 \
		.args_size = sizeof(struct argt),                              \
		.res_size = 0,                                                 \
		.decode = (dec),                                               \
		.handle = (fn),                                                \
		.encode = nlm_enc_void,                                        \
		.flags = NI,                                                   \
		.max_reply = 4,                                                \
	}
#define NULLP                                                                  \
	[NLMPROC_NULL] = {                                                     \
		.name = "NULL",                                                \
		.decode = nlm_dec_void,                                        \
		.encode = nlm_enc_void,                                        \
		.max_reply = 4,                                                \
	}

/* The procedures of every version, with version @V's decoders. */
#define NLM_COMMON(V)                                                          \
	NULLP,                                                                 \
		P(TEST, nlm_proc_test, nlm_args, nlm_dec_testargs_##V,         \
		  nlm_enc_res, ST, RES_MAX),                                   \
		P(LOCK, nlm_proc_lock, nlm_args, nlm_dec_lockargs_##V,         \
		  nlm_enc_res, ST | NI, RES_MAX),                              \
		P(CANCEL, nlm_proc_cancel, nlm_args, nlm_dec_cancargs_##V,     \
		  nlm_enc_res, ST | NI, RES_MAX),                              \
		P(UNLOCK, nlm_proc_unlock, nlm_args, nlm_dec_unlockargs_##V,   \
		  nlm_enc_res, ST | NI, RES_MAX),                              \
		P(GRANTED, nlm_proc_granted, nlm_args, nlm_dec_testargs_##V,   \
		  nlm_enc_res, ST, RES_MAX),                                   \
		M(TEST_MSG, nlm_proc_test_msg, nlm_args,                       \
		  nlm_dec_testargs_##V),                                       \
		M(LOCK_MSG, nlm_proc_lock_msg, nlm_args,                       \
		  nlm_dec_lockargs_##V),                                       \
		M(CANCEL_MSG, nlm_proc_cancel_msg, nlm_args,                   \
		  nlm_dec_cancargs_##V),                                       \
		M(UNLOCK_MSG, nlm_proc_unlock_msg, nlm_args,                   \
		  nlm_dec_unlockargs_##V),                                     \
		M(GRANTED_MSG, nlm_proc_granted_msg, nlm_args,                 \
		  nlm_dec_testargs_##V), /* Answers to calls nasd never makes  \
					    but GRANTED: taken, ignored. */    \
		M(TEST_RES, NULL, nlm_res, nlm_dec_testres_##V),               \
		M(LOCK_RES, NULL, nlm_res, nlm_dec_res),                       \
		M(CANCEL_RES, NULL, nlm_res, nlm_dec_res),                     \
		M(UNLOCK_RES, NULL, nlm_res, nlm_dec_res),                     \
		M(GRANTED_RES, NULL, nlm_res, nlm_dec_res)

#define NLM_SHARES(V)                                                          \
	P(SHARE, nlm_proc_share, nlm_shareargs, nlm_dec_shareargs_##V,         \
	  nlm_enc_res, ST | NI, RES_MAX),                                      \
		P(UNSHARE, nlm_proc_unshare, nlm_shareargs,                    \
		  nlm_dec_shareargs_##V, nlm_enc_res, ST | NI, RES_MAX),       \
		P(NM_LOCK, nlm_proc_nm_lock, nlm_args, nlm_dec_lockargs_##V,   \
		  nlm_enc_res, ST | NI, RES_MAX),                              \
		M(FREE_ALL, nlm_proc_free_all, nlm_notify, nlm_dec_notify)

static const struct rpc_proc nlm1_procs[NLMPROC1_NPROCS] = {
	NLM_COMMON(v3),
};
static const struct rpc_proc nlm3_procs[NLMPROC_NPROCS] = {
	NLM_COMMON(v3),
	NLM_SHARES(v3),
};
static const struct rpc_proc nlm4_procs[NLMPROC_NPROCS] = {
	NLM_COMMON(v4),
	NLM_SHARES(v4),
};

static const struct rpc_version nlm_versions[] = {
	{.vers = NLM_VERS1, .nprocs = NLMPROC1_NPROCS, .procs = nlm1_procs},
	{.vers = NLM_VERS3, .nprocs = NLMPROC_NPROCS, .procs = nlm3_procs},
	{.vers = NLM_VERS4, .nprocs = NLMPROC_NPROCS, .procs = nlm4_procs},
};

const struct rpc_program nlm_program = {
	.prog = NLM_PROG,
	.name = "nlockmgr",
	.nversions = 3,
	.versions = nlm_versions,
};
