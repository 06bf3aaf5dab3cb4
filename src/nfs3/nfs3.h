/* SPDX-License-Identifier: MIT */
#ifndef NASD_NFS3_NFS3_H
#define NASD_NFS3_NFS3_H

/* NFSv3 (RFC 1813) and MOUNT v3 (RFC 1813 appendix I) programs. */

#include "rpc/rpc.h"

#define NFS_PROGRAM   100003
#define MOUNT_PROGRAM 100005
#define NFS_V3	      3
#define MOUNT_V3      3

extern const struct rpc_program nfs3_program;
/* NFSv3's version table, for the combined NFS program (v3 + v4). */
extern const struct rpc_version nfs3_version;
extern const struct rpc_program mount3_program;

#endif
