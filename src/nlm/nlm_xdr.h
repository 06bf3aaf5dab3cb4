/* SPDX-License-Identifier: MIT */
#ifndef NASD_NLM_NLM_XDR_H
#define NASD_NLM_NLM_XDR_H

/*
 * NLM wire types (The Open Group XNFS, Protocols for Interworking, ch. 10
 * and 14: NLM versions 1, 3 and 4) and NSM (ch. 11), decoded through the
 * xdr cursor. Versions 1 and 3 carry 32-bit offsets and lengths and the
 * nlm_stats enum; version 4 (XNFS ch. 14) 64-bit ones and nlm4_stats.
 * Both decode into one struct nlm_lock with 64-bit fields and the version
 * the call came in (@vers), so the handlers are one set.
 *
 * Every string and netobj is borrowed from the receive buffer and bounded
 * by the spec's maximum (LM_MAXSTRLEN, MAXNETOBJ_SZ) before anything
 * reads it.
 */

#include <stdbool.h>
#include <stdint.h>

#include "xdr/xdr.h"

#define NLM_PROG  100021
#define NSM_PROG  100024
#define NLM_VERS1 1
#define NLM_VERS3 3
#define NLM_VERS4 4

#define LM_MAXSTRLEN  1024
#define LM_MAXNAMELEN (LM_MAXSTRLEN + 1)
#define MAXNETOBJ_SZ  1024
#define SM_MAXSTRLEN  1024
#define SM_PRIV_SIZE  16

/* NLM procedures (XNFS §10.14, §14.2). */
enum {
	NLMPROC_NULL = 0,
	NLMPROC_TEST = 1,
	NLMPROC_LOCK = 2,
	NLMPROC_CANCEL = 3,
	NLMPROC_UNLOCK = 4,
	NLMPROC_GRANTED = 5,
	NLMPROC_TEST_MSG = 6,
	NLMPROC_LOCK_MSG = 7,
	NLMPROC_CANCEL_MSG = 8,
	NLMPROC_UNLOCK_MSG = 9,
	NLMPROC_GRANTED_MSG = 10,
	NLMPROC_TEST_RES = 11,
	NLMPROC_LOCK_RES = 12,
	NLMPROC_CANCEL_RES = 13,
	NLMPROC_UNLOCK_RES = 14,
	NLMPROC_GRANTED_RES = 15,
	NLMPROC_SHARE = 20,
	NLMPROC_UNSHARE = 21,
	NLMPROC_NM_LOCK = 22,
	NLMPROC_FREE_ALL = 23,
	NLMPROC_NPROCS = 24,
	NLMPROC1_NPROCS = 16, /* version 1 ends at GRANTED_RES */
};

/* nlm4_stats (XNFS §14.1); nlm_stats of v1/v3 are the first six. */
enum {
	NLM4_GRANTED = 0,
	NLM4_DENIED = 1,
	NLM4_DENIED_NOLOCKS = 2,
	NLM4_BLOCKED = 3,
	NLM4_DENIED_GRACE_PERIOD = 4,
	NLM4_DEADLCK = 5,
	NLM4_ROFS = 6,
	NLM4_STALE_FH = 7,
	NLM4_FBIG = 8,
	NLM4_FAILED = 9,
	NLM4_NSTATS,
};

/* fsh_mode / fsh_access (XNFS §10.14): DOS share reservations. */
enum { fsm_DN = 0, fsm_DR = 1, fsm_DW = 2, fsm_DRW = 3 };
enum { fsa_NONE = 0, fsa_R = 1, fsa_W = 2, fsa_RW = 3 };

/* NSM procedures (XNFS §11.5) and sm_res. */
enum {
	SM_NULL = 0,
	SM_STAT = 1,
	SM_MON = 2,
	SM_UNMON = 3,
	SM_UNMON_ALL = 4,
	SM_SIMU_CRASH = 5,
	SM_NOTIFY = 6,
	SM_NPROCS = 7,
};
enum { STAT_SUCC = 0, STAT_FAIL = 1 };

/* A borrowed string or netobj. */
struct nlm_obj {
	const uint8_t *p;
	uint32_t len;
};

/* nlm_lock / nlm4_lock, widened to 64 bits. */
struct nlm_lock {
	struct nlm_obj caller_name;
	struct nlm_obj fh;
	struct nlm_obj oh;
	int32_t svid; /* v1/v3: uppid */
	uint64_t l_offset;
	uint64_t l_len;
};

/* nlm_lockargs, nlm_testargs, nlm_cancargs, nlm_unlockargs in one. */
struct nlm_args {
	uint32_t vers;
	struct nlm_obj cookie;
	bool block;	/* LOCK, CANCEL */
	bool exclusive; /* LOCK, TEST, CANCEL */
	struct nlm_lock alock;
	bool reclaim;  /* LOCK */
	int32_t state; /* LOCK: the client's NSM state */
};

/* nlm_shareargs (v3/v4 alike: no offsets in them). */
struct nlm_shareargs {
	uint32_t vers;
	struct nlm_obj cookie;
	struct nlm_obj caller_name;
	struct nlm_obj fh;
	struct nlm_obj oh;
	uint32_t mode;	 /* fsm_* */
	uint32_t access; /* fsa_* */
	bool reclaim;
};

/* nlm_notify (FREE_ALL), and NSM's stat_chge (SM_NOTIFY) too. */
struct nlm_notify {
	struct nlm_obj name;
	int32_t state;
};

/* nlm4_holder, for a TEST that is denied. */
struct nlm_holder {
	bool exclusive;
	int32_t svid;
	struct nlm_obj oh;
	uint64_t l_offset;
	uint64_t l_len;
};

/* nlm_res, nlm_testres and nlm_shareres in one; @vers picks the form. */
struct nlm_res {
	uint32_t stat; /* nlm4_stats, cast per version */
	uint32_t vers;
	uint32_t proc; /* which result form */
	struct nlm_obj cookie;
	struct nlm_holder holder; /* TEST, stat DENIED */
	int32_t sequence;	  /* SHARE */
};

/* NSM: mon_id's my_id, mon (SM_MON), sm_stat_res. */
struct nsm_my_id {
	struct nlm_obj my_name;
	uint32_t my_prog, my_vers, my_proc;
};
struct nsm_args {
	struct nlm_obj mon_name; /* SM_STAT, SM_MON, SM_UNMON, SM_NOTIFY */
	struct nsm_my_id my_id;	 /* SM_MON, SM_UNMON, SM_UNMON_ALL */
	int32_t state;		 /* SM_NOTIFY */
};
struct nsm_res {
	uint32_t res_stat; /* SM_STAT, SM_MON; else unused */
	int32_t state;
};

/*
 * Decoders (args: a struct nlm_args etc., zeroed). The version is the
 * decoder's: nlm_dec_*_v3 read v1/v3 32-bit forms, nlm_dec_*_v4 v4's.
 * They return false, and the call is GARBAGE_ARGS, on a truncated body,
 * a length past its maximum, a boolean that is not 0 or 1, an fsh enum
 * out of range, or bytes left over.
 */
bool nlm_dec_void(struct xdr_buf *x, void *args);
bool nlm_dec_testargs_v3(struct xdr_buf *x, void *args);
bool nlm_dec_testargs_v4(struct xdr_buf *x, void *args);
bool nlm_dec_lockargs_v3(struct xdr_buf *x, void *args);
bool nlm_dec_lockargs_v4(struct xdr_buf *x, void *args);
bool nlm_dec_cancargs_v3(struct xdr_buf *x, void *args);
bool nlm_dec_cancargs_v4(struct xdr_buf *x, void *args);
bool nlm_dec_unlockargs_v3(struct xdr_buf *x, void *args);
bool nlm_dec_unlockargs_v4(struct xdr_buf *x, void *args);
bool nlm_dec_shareargs_v3(struct xdr_buf *x, void *args);
bool nlm_dec_shareargs_v4(struct xdr_buf *x, void *args);
bool nlm_dec_notify(struct xdr_buf *x, void *args);
/* nlm_res / nlm4_res (GRANTED_RES etc.: accepted, not acted on). */
bool nlm_dec_res(struct xdr_buf *x, void *args);
/* nlm_testres (TEST_RES from a client: accepted, not acted on). */
bool nlm_dec_testres_v3(struct xdr_buf *x, void *args);
bool nlm_dec_testres_v4(struct xdr_buf *x, void *args);

/* Encoders of struct nlm_res by its @proc and @vers; void. */
bool nlm_enc_void(struct xdr_buf *x, const void *res);
bool nlm_enc_res(struct xdr_buf *x, const void *res);

/*
 * nlm_enc_testargs() - the arguments of a GRANTED (or GRANTED_MSG) call
 * the server sends (nlm_testargs of @vers: the blocked lock as the client
 * sent it, with the server's @cookie). Returns false when it does not fit.
 */
bool nlm_enc_testargs(struct xdr_buf *x, uint32_t vers,
		      const struct nlm_obj *cookie, bool exclusive,
		      const struct nlm_lock *l);

/* NSM codecs (XNFS §11.5). */
bool nsm_dec_mon_name(struct xdr_buf *x, void *args);
bool nsm_dec_mon(struct xdr_buf *x, void *args);
bool nsm_dec_mon_id(struct xdr_buf *x, void *args);
bool nsm_dec_my_id(struct xdr_buf *x, void *args);
bool nsm_dec_stat_chge(struct xdr_buf *x, void *args);
bool nsm_enc_stat_res(struct xdr_buf *x, const void *res);
bool nsm_enc_stat(struct xdr_buf *x, const void *res);
/* nsm_enc_stat_chge() - SM_NOTIFY's arguments, for the server's notify. */
bool nsm_enc_stat_chge(struct xdr_buf *x, const char *mon_name, int32_t state);

/*
 * nlm_stat_cast() - @stat (nlm4_stats) as version @vers may answer it:
 * v4 all of them; v1 and v3 the five nlm_stats (XNFS §10.14), with
 * DEADLCK as DENIED and the rest (ROFS, STALE_FH, FBIG, FAILED) as
 * DENIED_NOLOCKS, as knfsd's cast_status() answers such clients.
 */
uint32_t nlm_stat_cast(uint32_t vers, uint32_t stat);

#endif
