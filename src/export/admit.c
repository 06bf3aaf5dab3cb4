// SPDX-License-Identifier: MIT
/*
 * Admission (DESIGN.md §5): the one place where a client and an identity
 * meet an export's options, for every protocol. MOUNT, NFSv3, NFSv4 and
 * SMB tree connect all come here; none of them matches clients, checks
 * the secure port or squashes identities on its own.
 */
#include "export/export_int.h"

int export_admit(const struct export *e, const struct sockaddr *peer,
		 bool privileged, const struct export_identity *id,
		 struct export_access *out)
{
	const struct export_opts *o;

	out->opts = NULL;
	o = export_match_client(e, peer);
	if (!o)
		return -EACCES;
	/* exports(5) "secure": a request from a port >= 1024 is refused. */
	if (o->secure && !privileged)
		return -EPERM;
	export_map_cred(o, id->anonymous, id->uid, id->gid, id->ngroups,
			id->groups, &out->cred);
	out->opts = o;
	return export_cred_apply(&out->cred);
}

int export_cred_apply(const struct vfs_cred *cred)
{
	/*
	 * Fail closed: whatever identity the thread had last must not run
	 * this request, so any failure ends it (the protocols answer
	 * SERVERFAULT or their equivalent, and run nothing).
	 */
	return vfs_cred_set(cred) < 0 ? -ESERVERFAULT : 0;
}
