// SPDX-License-Identifier: MIT
/*
 * The NFSv3 program table (RFC 1813 §3.2): program 100003 version 3, the
 * 22 procedures indexed by number.
 */

#include "nfs3/nfs3.h"
#include "nfs3/nfs3_internal.h"

/* Reply body budgets (bytes), from the encoded sizes of each result. */
#define WCC NFS3_WCC_DATA_SIZE
#define POA NFS3_POST_OP_ATTR_SIZE
#define FH  (4 + NFS3_FHSIZE)

/* @inl: inline_ok (may it run on the event loop?), @align: payload_align. */
#define NFS3_PROC_EX(NAME, proc, argt, rest, dec, enc, fl, max, inl, align)   \
	[NFSPROC3_##NAME] = {                                                  \
		.name = #NAME,                                                 \
		.args_size = sizeof(struct argt),                              \
		.res_size = sizeof(struct rest),                               \
		.decode = (dec),                                               \
		.handle = (proc),                                              \
		.encode = (enc),                                               \
		.release = NULL,                                               \
		.flags = (fl) | RPC_PROC_RES_STATUS,                           \
		.max_reply = (max),                                            \
		.inline_ok = (inl),                                            \
		.payload_align = (align),                                      \
	}
#define NFS3_PROC(NAME, proc, argt, rest, dec, enc, fl, max)                   \
	NFS3_PROC_EX(NAME, proc, argt, rest, dec, enc, fl, max, NULL, NULL)

#define NI RPC_PROC_NONIDEMPOTENT
/* Runs on the event loop that read it (cached metadata, small reads). */
#define IN RPC_PROC_INLINE

static const struct rpc_proc nfs3_procs[NFSPROC3_NPROCS] = {
	[NFSPROC3_NULL] =
		{
			.name = "NULL",
			.args_size = 0,
			.res_size = 0,
			.decode = nfs3_dec_void,
			.handle = NULL,
			.encode = nfs3_enc_void,
			.release = NULL,
			.flags = IN,
			.max_reply = 4,
		},
	NFS3_PROC(GETATTR, nfs3_proc_getattr, GETATTR3args, GETATTR3res,
		  nfs3_dec_GETATTR3args, nfs3_enc_GETATTR3res, IN,
		  4 + NFS3_FATTR3_SIZE),
	/* Inline unless it changes the size (nfs3_inline_SETATTR3args). */
	NFS3_PROC_EX(SETATTR, nfs3_proc_setattr, SETATTR3args, SETATTR3res,
		     nfs3_dec_SETATTR3args, nfs3_enc_SETATTR3res, NI | IN,
		     4 + WCC, nfs3_inline_SETATTR3args, NULL),
	NFS3_PROC(LOOKUP, nfs3_proc_lookup, LOOKUP3args, LOOKUP3res,
		  nfs3_dec_LOOKUP3args, nfs3_enc_LOOKUP3res, IN,
		  4 + FH + 2 * POA),
	NFS3_PROC(ACCESS, nfs3_proc_access, ACCESS3args, ACCESS3res,
		  nfs3_dec_ACCESS3args, nfs3_enc_ACCESS3res, IN, 4 + POA + 4),
	NFS3_PROC(READLINK, nfs3_proc_readlink, READLINK3args, READLINK3res,
		  nfs3_dec_READLINK3args, nfs3_enc_READLINK3res, IN,
		  4 + POA + 4 + NFS3_PATH_MAX),
	/*
	 * The data itself travels as the reply tail, outside this budget.
	 * Small reads run inline from the page cache (RWF_NOWAIT) and go to
	 * a worker when they miss it.
	 */
	NFS3_PROC_EX(READ, nfs3_proc_read, READ3args, READ3res,
		     nfs3_dec_READ3args, nfs3_enc_READ3res, IN,
		     4 + POA + 4 + 4 + 4, nfs3_inline_READ3args, NULL),
	/* Its payload is placed aligned on receipt (nfs3_align_WRITE3args). */
	NFS3_PROC_EX(WRITE, nfs3_proc_write, WRITE3args, WRITE3res,
		     nfs3_dec_WRITE3args, nfs3_enc_WRITE3res, NI,
		     4 + WCC + 4 + 4 + 8, NULL, nfs3_align_WRITE3args),
	NFS3_PROC(CREATE, nfs3_proc_create, CREATE3args, CREATE3res,
		  nfs3_dec_CREATE3args, nfs3_enc_CREATE3res, NI,
		  4 + NFS3_POST_OP_FH3_SIZE + POA + WCC),
	NFS3_PROC(MKDIR, nfs3_proc_mkdir, MKDIR3args, CREATE3res,
		  nfs3_dec_MKDIR3args, nfs3_enc_CREATE3res, NI,
		  4 + NFS3_POST_OP_FH3_SIZE + POA + WCC),
	NFS3_PROC(SYMLINK, nfs3_proc_symlink, SYMLINK3args, CREATE3res,
		  nfs3_dec_SYMLINK3args, nfs3_enc_CREATE3res, NI,
		  4 + NFS3_POST_OP_FH3_SIZE + POA + WCC),
	NFS3_PROC(MKNOD, nfs3_proc_mknod, MKNOD3args, CREATE3res,
		  nfs3_dec_MKNOD3args, nfs3_enc_CREATE3res, NI,
		  4 + NFS3_POST_OP_FH3_SIZE + POA + WCC),
	NFS3_PROC(REMOVE, nfs3_proc_remove, REMOVE3args, REMOVE3res,
		  nfs3_dec_REMOVE3args, nfs3_enc_REMOVE3res, NI, 4 + WCC),
	NFS3_PROC(RMDIR, nfs3_proc_rmdir, RMDIR3args, REMOVE3res,
		  nfs3_dec_RMDIR3args, nfs3_enc_REMOVE3res, NI, 4 + WCC),
	NFS3_PROC(RENAME, nfs3_proc_rename, RENAME3args, RENAME3res,
		  nfs3_dec_RENAME3args, nfs3_enc_RENAME3res, NI, 4 + 2 * WCC),
	NFS3_PROC(LINK, nfs3_proc_link, LINK3args, LINK3res, nfs3_dec_LINK3args,
		  nfs3_enc_LINK3res, NI, 4 + POA + WCC),
	/* The handlers clamp count/maxcount to NFS3_DIR_MAX. */
	NFS3_PROC(READDIR, nfs3_proc_readdir, READDIR3args, READDIR3res,
		  nfs3_dec_READDIR3args, nfs3_enc_READDIR3res, 0, NFS3_DIR_MAX),
	NFS3_PROC(READDIRPLUS, nfs3_proc_readdirplus, READDIRPLUS3args,
		  READDIR3res, nfs3_dec_READDIRPLUS3args, nfs3_enc_READDIR3res,
		  0, NFS3_DIR_MAX),
	NFS3_PROC(FSSTAT, nfs3_proc_fsstat, FSSTAT3args, FSSTAT3res,
		  nfs3_dec_FSSTAT3args, nfs3_enc_FSSTAT3res, IN,
		  4 + POA + 6 * 8 + 4),
	NFS3_PROC(FSINFO, nfs3_proc_fsinfo, FSSTAT3args, FSINFO3res,
		  nfs3_dec_FSSTAT3args, nfs3_enc_FSINFO3res, IN,
		  4 + POA + 7 * 4 + 8 + 8 + 4),
	NFS3_PROC(PATHCONF, nfs3_proc_pathconf, FSSTAT3args, PATHCONF3res,
		  nfs3_dec_FSSTAT3args, nfs3_enc_PATHCONF3res, IN,
		  4 + POA + 6 * 4),
	NFS3_PROC(COMMIT, nfs3_proc_commit, COMMIT3args, COMMIT3res,
		  nfs3_dec_COMMIT3args, nfs3_enc_COMMIT3res, 0, 4 + WCC + 8),
};

/* Version 3 alone, for a program that combines it with others (v4). */
const struct rpc_version nfs3_version = {
	.vers = NFS_V3,
	.nprocs = NFSPROC3_NPROCS,
	.procs = nfs3_procs,
	.status_retry = NFS3ERR_JUKEBOX,
};

static const struct rpc_version nfs3_versions[] = {
	{
		.vers = NFS_V3,
		.nprocs = NFSPROC3_NPROCS,
		.procs = nfs3_procs,
	},
};

const struct rpc_program nfs3_program = {
	.prog = NFS_PROGRAM,
	.name = "nfs",
	.nversions = sizeof(nfs3_versions) / sizeof(nfs3_versions[0]),
	.versions = nfs3_versions,
};
