// SPDX-License-Identifier: MIT
/*
 * perm_tool: one NFSv3 operation under a chosen AUTH_SYS identity, for the
 * permission and squash tests.
 *
 *   perm_tool PORT EXPORT UID GID read PATH     LOOKUP PATH, READ 64 bytes
 *   perm_tool PORT EXPORT UID GID write PATH    LOOKUP PATH, WRITE 4 bytes
 *   perm_tool PORT EXPORT UID GID create NAME   CREATE NAME (in the root)
 *   perm_tool PORT EXPORT UID GID mkdir NAME    MKDIR NAME (in the root)
 *   perm_tool PORT EXPORT UID GID getattr PATH  prints "uid:gid mode"
 *
 * Prints the nfsstat3 name of the final call (e.g. NFS3_OK, NFS3ERR_ACCES)
 * on stdout and exits 0 when the server answered, 1 when it did not.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nt_raw.h"

#define HOST "127.0.0.1"

int main(int argc, char **argv)
{
	struct rpc_context *m, *rpc;
	struct nt_res r;
	struct nt_fh root;
	int port, uid, gid, rc = 1;
	const char *export, *op, *path;

	if (argc != 7) {
		fprintf(stderr, "usage: %s PORT EXPORT UID GID OP PATH\n",
			argv[0]);
		return 2;
	}
	port = atoi(argv[1]);
	export = argv[2];
	uid = atoi(argv[3]);
	gid = atoi(argv[4]);
	op = argv[5];
	path = argv[6];
	memset(&r, 0, sizeof(r));

	m = nt_rpc_new(HOST, port, MOUNT_PROGRAM, MOUNT_V3, uid, gid);
	if (!m)
		return 1;
	if (nt_mnt(m, export, &r) != 0 || r.status != MNT3_OK) {
		printf("MNT %s\n", r.error[0] ? r.error :
						nt_mntstat_name(r.status));
		rpc_destroy_context(m);
		return 1;
	}
	root = r.fh;
	rpc_destroy_context(m);

	rpc = nt_rpc_new(HOST, port, NFS_PROGRAM, NFS_V3, uid, gid);
	if (!rpc)
		return 1;
	if (!strcmp(op, "create")) {
		struct sattr3 sa;

		memset(&sa, 0, sizeof(sa));
		sa.mode.set_it = 1;
		sa.mode.set_mode3_u.mode = 0644;
		if (nt_create(rpc, &root, path, UNCHECKED, &sa, NULL, &r) != 0)
			goto fail;
	} else if (!strcmp(op, "mkdir")) {
		if (nt_mkdir(rpc, &root, path, 0755, &r) != 0)
			goto fail;
	} else {
		struct nt_fh fh;

		if (nt_lookup_path(rpc, &root, path, &r) != 0)
			goto fail;
		if (r.status != NFS3_OK)
			goto done;
		fh = r.fh;
		if (!strcmp(op, "read")) {
			if (nt_read(rpc, &fh, 0, 64, &r) != 0)
				goto fail;
		} else if (!strcmp(op, "write")) {
			if (nt_write(rpc, &fh, 0, "perm", 4, FILE_SYNC, &r) != 0)
				goto fail;
		} else if (!strcmp(op, "getattr")) {
			if (nt_getattr(rpc, &fh, &r) != 0)
				goto fail;
			if (r.status == NFS3_OK) {
				printf("%u:%u %o\n", r.attr.uid, r.attr.gid,
				       r.attr.mode);
				rc = 0;
				goto out;
			}
		} else {
			fprintf(stderr, "unknown op %s\n", op);
			rc = 2;
			goto out;
		}
	}
done:
	printf("%s\n", nt_nfsstat_name(r.status));
	rc = 0;
	goto out;
fail:
	printf("RPC %s\n", r.error);
out:
	nt_res_clear(&r);
	rpc_destroy_context(rpc);
	return rc;
}
