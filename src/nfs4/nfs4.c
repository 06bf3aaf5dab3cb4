// SPDX-License-Identifier: MIT
/*
 * NFSv4 start-up and configuration: nfs4_init() keeps the configuration
 * and starts the state module (leases, grace, client records).
 */

#include <stdlib.h>
#include <string.h>

#include "nfs4/nfs4_int.h"
#include "nfs4/pseudo.h"
#include "nfs4/state/state.h"

#define NFS4_MAX_OPS_DEFAULT 64
#define NFS4_MAX_OPS_LIMIT 1024

static struct nfs4_config config = {
	.lease_time = 90,
	.grace_time = 90,
	.state_dir = NULL,
	.domain = NULL,
	.max_ops = NFS4_MAX_OPS_DEFAULT,
};

/** nfs4_config_get() - the configuration in force. */
const struct nfs4_config *nfs4_config_get(void)
{
	return &config;
}

/** nfs4_compound_max_ops() - ops per COMPOUND accepted (--max-ops). */
uint32_t nfs4_compound_max_ops(void)
{
	return config.max_ops;
}

/**
 * nfs4_init() - keep @cfg (its strings must outlive the server) and start
 * the state module. Returns 0 or -errno.
 */
int nfs4_init(const struct nfs4_config *cfg)
{
	int ret;

	config = *cfg;
	if (!config.lease_time)
		config.lease_time = 90;
	if (!config.max_ops)
		config.max_ops = NFS4_MAX_OPS_DEFAULT;
	if (config.max_ops > NFS4_MAX_OPS_LIMIT)
		config.max_ops = NFS4_MAX_OPS_LIMIT;
	if (config.domain && !config.domain[0])
		config.domain = NULL;
	nfs4_state_set_client_memory(config.client_memory);
	ret = nfs4_state_init(config.state_dir, config.lease_time,
			      config.grace_time);
	if (ret == 0) {
		nfs4_bc_attach();
		nfs4_op_stats_init();
	}
	return ret;
}

/** nfs4_shutdown() - stop the state module, drop the cached pseudo-fs. */
void nfs4_shutdown(void)
{
	nfs4_state_shutdown();
	nfs4_pseudo_flush();
}
