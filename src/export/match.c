// SPDX-License-Identifier: MIT
/*
 * Client matching and credential mapping (squash), as knfsd applies
 * exports(5) options.
 */
#include <netinet/in.h>
#include <string.h>

#include "export/export_int.h"

static bool prefix_match(const uint8_t *a, const uint8_t *b, uint32_t bits)
{
	uint32_t bytes = bits / 8, rem = bits % 8;

	if (memcmp(a, b, bytes) != 0)
		return false;
	if (rem == 0)
		return true;
	return ((a[bytes] ^ b[bytes]) & (uint8_t)(0xff << (8 - rem))) == 0;
}

static bool client_match(const struct export_client *c,
			 const struct sockaddr *addr)
{
	const struct sockaddr_in *sin;
	const struct sockaddr_in6 *sin6;

	if (c->family == AF_UNSPEC)
		return true;
	if (addr == NULL)
		return false;
	if (addr->sa_family == AF_INET) {
		sin = (const struct sockaddr_in *)addr;
		return c->family == AF_INET &&
		       prefix_match(c->addr,
				    (const uint8_t *)&sin->sin_addr.s_addr,
				    c->prefix);
	}
	if (addr->sa_family != AF_INET6)
		return false;
	sin6 = (const struct sockaddr_in6 *)addr;
	if (c->family == AF_INET6)
		return prefix_match(c->addr, sin6->sin6_addr.s6_addr,
				    c->prefix);
	/* An IPv4 peer on a dual-stack socket: ::ffff:a.b.c.d. */
	if (c->family == AF_INET && IN6_IS_ADDR_V4MAPPED(&sin6->sin6_addr))
		return prefix_match(c->addr, sin6->sin6_addr.s6_addr + 12,
				    c->prefix);
	return false;
}

const struct export_opts *export_match_client(const struct export *e,
					      const struct sockaddr *addr)
{
	for (uint32_t i = 0; i < e->nclients; i++)
		if (client_match(&e->clients[i], addr))
			return &e->clients[i].opts;
	return NULL;
}

void export_map_cred(const struct export_opts *o, bool is_none, uint32_t uid,
		     uint32_t gid, uint32_t ngids, const uint32_t *gids,
		     struct vfs_cred *out)
{
	bool root_squash = o->squash == EXPORT_ROOT_SQUASH;

	if (is_none || o->squash == EXPORT_ALL_SQUASH) {
		out->uid = o->anonuid;
		out->gid = o->anongid;
		out->ngroups = 0;
		return;
	}
	out->uid = root_squash && uid == 0 ? o->anonuid : uid;
	out->gid = root_squash && gid == 0 ? o->anongid : gid;
	if (ngids > VFS_NGROUPS_MAX)
		ngids = VFS_NGROUPS_MAX;
	if (gids == NULL)
		ngids = 0;
	out->ngroups = ngids;
	/* knfsd squashes group 0 in the supplementary list too. */
	for (uint32_t i = 0; i < ngids; i++)
		out->groups[i] =
			root_squash && gids[i] == 0 ? o->anongid : gids[i];
}
