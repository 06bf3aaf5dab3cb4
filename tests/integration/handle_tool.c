// SPDX-License-Identifier: MIT
/*
 * handle_tool: small NFSv3 client steps for the restart and config tests.
 *
 *   handle_tool save PORT EXPORT PATH FILE   MNT + LOOKUP PATH, hex handle -> FILE
 *   handle_tool use PORT FILE                GETATTR the saved handle
 *   handle_tool verf PORT EXPORT PATH        print the COMMIT write verifier
 *   handle_tool syncwrite PORT EXPORT PATH NBLOCKS BLKSIZE
 *        write NBLOCKS pattern blocks: even blocks FILE_SYNC, odd blocks
 *        UNSTABLE + COMMIT; prints "acked N" once blocks 0..N-1 are stable
 *   handle_tool readcheck PORT EXPORT PATH NBLOCKS BLKSIZE
 *        READ blocks 0..NBLOCKS-1 and compare with the pattern
 *   handle_tool mnt PORT EXPORT              print the MNT status name
 *
 * Exit status 0 on success, 1 on a protocol failure, 2 on usage errors.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nt_raw.h"

#define HOST "127.0.0.1"

static void block_pattern(unsigned char *buf, size_t len, unsigned int blk)
{
	uint32_t x = blk * 2246822519u + 374761393u;
	size_t i;

	for (i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		buf[i] = (unsigned char)x;
	}
}

static int mount_root(int port, const char *export, struct nt_fh *root)
{
	struct rpc_context *m = nt_rpc_new(HOST, port, MOUNT_PROGRAM,
					   MOUNT_V3, -1, -1);
	struct nt_res r;
	int rc = -1;

	memset(&r, 0, sizeof(r));
	if (!m) {
		fprintf(stderr, "cannot connect to MOUNT on port %d\n", port);
		return -1;
	}
	if (nt_mnt(m, export, &r) != 0)
		fprintf(stderr, "MNT %s: %s\n", export, r.error);
	else if (r.status != MNT3_OK)
		fprintf(stderr, "MNT %s: %s\n", export,
			nt_mntstat_name(r.status));
	else {
		*root = r.fh;
		rc = 0;
	}
	nt_res_clear(&r);
	rpc_destroy_context(m);
	return rc;
}

static struct rpc_context *nfs_connect_lookup(int port, const char *export,
					      const char *path,
					      struct nt_fh *fh)
{
	struct rpc_context *rpc;
	struct nt_fh root;
	struct nt_res r;

	if (mount_root(port, export, &root) != 0)
		return NULL;
	rpc = nt_rpc_new(HOST, port, NFS_PROGRAM, NFS_V3, -1, -1);
	if (!rpc) {
		fprintf(stderr, "cannot connect to NFS on port %d\n", port);
		return NULL;
	}
	memset(&r, 0, sizeof(r));
	if (nt_lookup_path(rpc, &root, path, &r) != 0 ||
	    r.status != NFS3_OK) {
		fprintf(stderr, "LOOKUP %s: %s%s\n", path, r.error,
			r.status >= 0 ? nt_nfsstat_name(r.status) : "");
		nt_res_clear(&r);
		rpc_destroy_context(rpc);
		return NULL;
	}
	*fh = r.fh;
	nt_res_clear(&r);
	return rpc;
}

static int cmd_save(int port, const char *export, const char *path,
		    const char *file)
{
	struct rpc_context *rpc;
	struct nt_fh fh;
	FILE *f;
	uint32_t i;

	rpc = nfs_connect_lookup(port, export, path, &fh);
	if (!rpc)
		return 1;
	rpc_destroy_context(rpc);
	f = fopen(file, "w");
	if (!f) {
		fprintf(stderr, "%s: %s\n", file, strerror(errno));
		return 1;
	}
	for (i = 0; i < fh.len; i++)
		fprintf(f, "%02x", fh.data[i]);
	fprintf(f, "\n");
	return fclose(f) == 0 ? 0 : 1;
}

static int cmd_use(int port, const char *file)
{
	struct rpc_context *rpc;
	struct nt_fh fh = { 0 };
	struct nt_res r;
	char hex[2 * NT_FH_MAX + 2];
	FILE *f = fopen(file, "r");
	unsigned int b;
	size_t n;
	int rc = 1;

	if (!f || !fgets(hex, sizeof(hex), f)) {
		fprintf(stderr, "%s: cannot read handle\n", file);
		if (f)
			fclose(f);
		return 1;
	}
	fclose(f);
	n = strcspn(hex, "\n") / 2;
	for (fh.len = 0; fh.len < n; fh.len++) {
		if (sscanf(hex + 2 * fh.len, "%2x", &b) != 1)
			return 1;
		fh.data[fh.len] = (unsigned char)b;
	}
	rpc = nt_rpc_new(HOST, port, NFS_PROGRAM, NFS_V3, -1, -1);
	if (!rpc) {
		fprintf(stderr, "cannot connect to NFS on port %d\n", port);
		return 1;
	}
	memset(&r, 0, sizeof(r));
	if (nt_getattr(rpc, &fh, &r) != 0) {
		fprintf(stderr, "GETATTR: %s\n", r.error);
	} else if (r.status != NFS3_OK) {
		printf("%s\n", nt_nfsstat_name(r.status));
	} else {
		printf("NFS3_OK size %llu fileid %llu\n",
		       (unsigned long long)r.attr.size,
		       (unsigned long long)r.attr.fileid);
		rc = 0;
	}
	nt_res_clear(&r);
	rpc_destroy_context(rpc);
	return rc;
}

static int cmd_verf(int port, const char *export, const char *path)
{
	struct rpc_context *rpc;
	struct nt_fh fh;
	struct nt_res r;
	int rc = 1, i;

	rpc = nfs_connect_lookup(port, export, path, &fh);
	if (!rpc)
		return 1;
	memset(&r, 0, sizeof(r));
	if (nt_commit(rpc, &fh, 0, 0, &r) != 0) {
		fprintf(stderr, "COMMIT: %s\n", r.error);
	} else if (r.status != NFS3_OK) {
		fprintf(stderr, "COMMIT: %s\n", nt_nfsstat_name(r.status));
	} else {
		for (i = 0; i < 8; i++)
			printf("%02x", r.verf[i]);
		printf("\n");
		rc = 0;
	}
	nt_res_clear(&r);
	rpc_destroy_context(rpc);
	return rc;
}

static int cmd_syncwrite(int port, const char *export, const char *path,
			 unsigned int nblocks, unsigned int blksize)
{
	struct rpc_context *rpc;
	struct nt_fh root, fh;
	struct nt_res r;
	unsigned char *buf = malloc(blksize);
	unsigned char verf[8];
	unsigned int i;
	int rc = 1;

	if (!buf || mount_root(port, export, &root) != 0)
		goto out_free;
	rpc = nt_rpc_new(HOST, port, NFS_PROGRAM, NFS_V3, -1, -1);
	if (!rpc)
		goto out_free;
	memset(&r, 0, sizeof(r));
	if (nt_create(rpc, &root, path, UNCHECKED, NULL, NULL, &r) != 0 ||
	    r.status != NFS3_OK || !r.has_fh) {
		fprintf(stderr, "CREATE %s: %s %s\n", path, r.error,
			nt_nfsstat_name(r.status));
		goto out;
	}
	fh = r.fh;
	for (i = 0; i < nblocks; i++) {
		int stable = (i % 2 == 0) ? FILE_SYNC : UNSTABLE;

		block_pattern(buf, blksize, i);
		if (nt_write(rpc, &fh, (uint64_t)i * blksize, buf, blksize,
			     stable, &r) != 0 || r.status != NFS3_OK) {
			fprintf(stderr, "WRITE block %u: %s %s\n", i, r.error,
				nt_nfsstat_name(r.status));
			goto out;
		}
		if (r.count != blksize) {
			fprintf(stderr, "WRITE block %u: short count %u\n", i,
				r.count);
			goto out;
		}
		if (stable == FILE_SYNC) {
			if (r.committed != FILE_SYNC) {
				fprintf(stderr,
					"WRITE block %u: FILE_SYNC answered"
					" committed=%d\n", i, r.committed);
				goto out;
			}
			printf("acked %u\n", i + 1);
			fflush(stdout);
			continue;
		}
		memcpy(verf, r.verf, 8);
		if (nt_commit(rpc, &fh, (uint64_t)i * blksize, blksize, &r) !=
			    0 || r.status != NFS3_OK) {
			fprintf(stderr, "COMMIT block %u: %s %s\n", i, r.error,
				nt_nfsstat_name(r.status));
			goto out;
		}
		if (memcmp(verf, r.verf, 8) != 0) {
			/* the server restarted between WRITE and COMMIT:
			 * the client must resend, as RFC 1813 §3.3.21 says */
			fprintf(stderr, "verifier changed at block %u\n", i);
			goto out;
		}
		printf("acked %u\n", i + 1);
		fflush(stdout);
	}
	rc = 0;
out:
	nt_res_clear(&r);
	rpc_destroy_context(rpc);
out_free:
	free(buf);
	return rc;
}

static int cmd_readcheck(int port, const char *export, const char *path,
			 unsigned int nblocks, unsigned int blksize)
{
	struct rpc_context *rpc;
	struct nt_fh fh;
	struct nt_res r;
	unsigned char *buf = malloc(blksize);
	unsigned int i;
	int rc = 1;

	if (!buf)
		return 1;
	rpc = nfs_connect_lookup(port, export, path, &fh);
	if (!rpc)
		goto out_free;
	memset(&r, 0, sizeof(r));
	for (i = 0; i < nblocks; i++) {
		block_pattern(buf, blksize, i);
		if (nt_read(rpc, &fh, (uint64_t)i * blksize, blksize, &r) != 0
		    || r.status != NFS3_OK) {
			fprintf(stderr, "READ block %u: %s %s\n", i, r.error,
				nt_nfsstat_name(r.status));
			goto out;
		}
		if (r.data_len != blksize || memcmp(r.data, buf, blksize)) {
			fprintf(stderr, "block %u differs (got %u bytes)\n", i,
				r.data_len);
			goto out;
		}
	}
	printf("verified %u blocks\n", nblocks);
	rc = 0;
out:
	nt_res_clear(&r);
	rpc_destroy_context(rpc);
out_free:
	free(buf);
	return rc;
}

static int cmd_mnt(int port, const char *export)
{
	struct rpc_context *m = nt_rpc_new(HOST, port, MOUNT_PROGRAM,
					   MOUNT_V3, -1, -1);
	struct nt_res r;
	int rc = 1;

	if (!m) {
		fprintf(stderr, "cannot connect to MOUNT on port %d\n", port);
		return 1;
	}
	memset(&r, 0, sizeof(r));
	if (nt_mnt(m, export, &r) != 0) {
		fprintf(stderr, "MNT: %s\n", r.error);
	} else {
		printf("%s\n", nt_mntstat_name(r.status));
		rc = 0;
	}
	nt_res_clear(&r);
	rpc_destroy_context(m);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc == 6 && !strcmp(argv[1], "save"))
		return cmd_save(atoi(argv[2]), argv[3], argv[4], argv[5]);
	if (argc == 4 && !strcmp(argv[1], "use"))
		return cmd_use(atoi(argv[2]), argv[3]);
	if (argc == 5 && !strcmp(argv[1], "verf"))
		return cmd_verf(atoi(argv[2]), argv[3], argv[4]);
	if (argc == 7 && !strcmp(argv[1], "syncwrite"))
		return cmd_syncwrite(atoi(argv[2]), argv[3], argv[4],
				     (unsigned int)atoi(argv[5]),
				     (unsigned int)atoi(argv[6]));
	if (argc == 7 && !strcmp(argv[1], "readcheck"))
		return cmd_readcheck(atoi(argv[2]), argv[3], argv[4],
				     (unsigned int)atoi(argv[5]),
				     (unsigned int)atoi(argv[6]));
	if (argc == 4 && !strcmp(argv[1], "mnt"))
		return cmd_mnt(atoi(argv[2]), argv[3]);
	fprintf(stderr, "usage: see the comment at the top of handle_tool.c\n");
	return 2;
}
