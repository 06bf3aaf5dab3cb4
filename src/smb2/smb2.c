// SPDX-License-Identifier: MIT
/*
 * SMB2 start-up: the configuration and the ServerGuid, kept in the state
 * directory so that clients see the same server across restarts (MS-SMB2
 * §3.3.1.5: ServerGuid; §3.3.5.4 answers it in every NEGOTIATE).
 */
#include "smb2/smb2_int.h"

#include <errno.h>
#include <stdio.h>

#include "core/statefile.h"
#include "smb2/auth/auth.h"
#include "smb2/smb2_durable.h"

static struct smb2_config config = {
	.signing_required = true,
};
static uint8_t server_guid[16];
static struct smb2_auth_cfg auth_cfg;

const struct smb2_config *smb2_cfg(void)
{
	return &config;
}

const uint8_t *smb2_server_guid(void)
{
	return server_guid;
}

const struct smb2_auth_cfg *smb2_auth_config(void)
{
	return &auth_cfg;
}

int smb2_init(const struct smb2_config *cfg)
{
	config = *cfg;
	smb2_stats_init();
	if (!config.max_credits || config.max_credits > SMB2_MAX_CREDITS)
		config.max_credits = SMB2_MAX_CREDITS;
	if (!config.state_dir || !config.users)
		return -EINVAL;
	smb2_auth_cfg_init(&auth_cfg, config.users);
	if (config.netbios_name)
		(void)snprintf(auth_cfg.nb_computer, sizeof(auth_cfg.nb_computer),
			 "%s", config.netbios_name);
	if (config.domain)
		(void)snprintf(auth_cfg.nb_domain, sizeof(auth_cfg.nb_domain), "%s",
			 config.domain);
	return statefile_random(config.state_dir, "smb2_guid", server_guid,
				sizeof(server_guid));
}

void smb2_shutdown(void)
{
	smb2_durable_shutdown();
}
