/* SPDX-License-Identifier: MIT */
#ifndef NASD_NLM_NLM_H
#define NASD_NLM_NLM_H

/*
 * NFSv3 locking: the Network Lock Manager (program 100021, versions 1, 3
 * and 4; The Open Group XNFS ch. 10 and 14) and nasd's own Network
 * Status Monitor (program 100024 version 1, XNFS ch. 11). NLM locks are
 * POSIX locks in the shared file state (state/), so they conflict with
 * NFSv4 and SMB locks both ways; NLM shares are share reservations of the
 * same table.
 *
 * nasd is its own statd for its NLM clients: it records each client that
 * holds locks in the state directory, and after a restart it sends each
 * of them SM_NOTIFY and grants only reclaims during the grace period.
 */

#include <stdbool.h>
#include <stdint.h>

#include "rpc/rpc.h"

extern const struct rpc_program nlm_program;
extern const struct rpc_program nsm_program;

struct nlm_cfg {
	const char *state_dir;
	uint32_t grace_time; /* seconds; 0: no grace after a restart */
	/*
	 * The port of the port mapper nasd asks at a client's address for
	 * the client's lockd (GRANTED, *_RES) and statd (SM_NOTIFY); 111
	 * normally (0 means 111). Tests with a guest behind NAT give the
	 * forwarded port of the guest's rpcbind.
	 */
	uint16_t client_rpcbind_port;
	/* Another protocol's grace period that NLM shares (NFSv4's), or NULL.
	 */
	bool (*other_grace)(void);
};

/*
 * nlm_init() - load the NSM state number and the recorded clients from
 * @cfg->state_dir, bump the state, open the grace period when clients
 * were recorded, and start the callback thread, which sends them
 * SM_NOTIFY. Call after the process's threads may start (after
 * daemonize). @cfg is copied. Returns 0 or -errno.
 */
int nlm_init(const struct nlm_cfg *cfg);

/* nlm_in_grace() - are only reclaims granted now? (XNFS §10.6.2): NLM's
 * own grace period or the other protocol's. */
bool nlm_in_grace(void);

/* nlm_own_grace() - NLM's own grace period alone (what NFSv4 shares). */
bool nlm_own_grace(void);

/* nlm_shutdown() - stop the callback thread; locks go with the process. */
void nlm_shutdown(void);

#endif
