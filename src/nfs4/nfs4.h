/* SPDX-License-Identifier: MIT */
#ifndef NASD_NFS4_NFS4_H
#define NASD_NFS4_NFS4_H

/*
 * NFSv4.0/4.1/4.2 (RFC 7530, RFC 8881, RFC 7862): the version-4 table of
 * the NFS program. The server combines it with NFSv3's into one program
 * 100003 (versions 3 and 4).
 */

#include <stdbool.h>
#include <stdint.h>

#include "rpc/rpc.h"

#define NFS_V4 4

/* NFSv4 procedures: NULL and COMPOUND (RFC 7530 §16). */
extern const struct rpc_version nfs4_version;

struct nfs4_config {
	uint32_t lease_time;     /* seconds, default 90 */
	uint32_t grace_time;     /* seconds, default 90; 0 disables grace */
	const char *state_dir;   /* client records for reclaim after restart */
	const char *domain;      /* owner@domain; NULL = numeric ids */
	uint32_t max_ops;        /* ops per COMPOUND, default 64 */
	/* bytes of client records and sessions (--nfs4-client-memory);
	 * 0: a share of the machine's memory (nfs4_state_set_client_memory) */
	uint64_t client_memory;
	/* Another protocol's own grace period (NLM's) during which new
	 * NFSv4 state waits too (NFS4ERR_GRACE), so that its clients'
	 * reclaims find their locks free; NULL: none. */
	bool (*other_grace)(void);
};

/*
 * nfs4_init() - set up NFSv4 state (load client records from
 * @cfg->state_dir, start the grace period and the lease reaper thread).
 * Returns 0 or -errno. nfs4_shutdown() stops the reaper.
 */
int nfs4_init(const struct nfs4_config *cfg);
void nfs4_shutdown(void);

/*
 * nfs4_in_grace() - true while NFSv4 reclaims are accepted (RFC 8881
 * §8.4.2); the server wires it into NLM, which shares the grace period.
 */
bool nfs4_in_grace(void);

#endif
