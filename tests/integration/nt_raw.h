/* SPDX-License-Identifier: MIT */
/*
 * nt_raw: synchronous wrappers over libnfs's raw (async) RPC API, shared by
 * the integration test programs (nfs3_api, handle_tool, perm_tool).
 *
 * libnfs frees a reply's decoded structures as soon as the callback returns,
 * so every wrapper copies what a test needs into a struct nt_res owned by the
 * caller. A wrapper returns 0 when a reply arrived (res->status then holds the
 * nfsstat3 or mountstat3) and -1 on an RPC-level failure (timeout, rejected
 * call, broken connection), with a message in res->error.
 */
#ifndef NASD_TESTS_NT_RAW_H
#define NASD_TESTS_NT_RAW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <nfsc/libnfs.h>
#include <nfsc/libnfs-raw.h>
#include <nfsc/libnfs-raw-mount.h>
#include <nfsc/libnfs-raw-nfs.h>

#define NT_FH_MAX 128
#define NT_NAMES_MAX 16

/* A file handle copied out of a reply (opaque bytes, RFC 1813 §2.3.3). */
struct nt_fh {
	uint32_t len;
	unsigned char data[NT_FH_MAX];
};

/* Called for every READDIR/READDIRPLUS entry while the reply is decoded. */
typedef void (*nt_entry_fn)(void *arg, const char *name, uint64_t fileid,
			    uint64_t cookie, bool has_attr,
			    const struct fattr3 *attr, bool has_fh,
			    const struct nt_fh *fh);

struct nt_res {
	bool done;
	int rpc_status;
	char error[256];
	int status;

	bool has_fh;
	struct nt_fh fh;
	bool has_attr;
	struct fattr3 attr;
	bool has_wcc_before;
	struct wcc_attr wcc_before;
	bool has_wcc_after;
	struct fattr3 wcc_after;

	/* WRITE / COMMIT */
	uint32_t count;
	int committed;
	unsigned char verf[8];

	/* READ / READLINK: malloc'd copy, freed by nt_res_clear() */
	char *data;
	uint32_t data_len;
	bool eof;

	/* ACCESS */
	uint32_t access;

	FSINFO3resok fsinfo;
	FSSTAT3resok fsstat;
	PATHCONF3resok pathconf;

	/* READDIR / READDIRPLUS */
	unsigned char cookieverf[8];
	unsigned int nentries;
	uint64_t last_cookie;
	nt_entry_fn on_entry;
	void *entry_arg;

	/* MOUNT DUMP (directories) / EXPORT (paths); malloc'd strings */
	unsigned int nnames;
	char *names[NT_NAMES_MAX];
	unsigned int nnames_total;

	/* MOUNT MNT auth flavors */
	unsigned int nflavors;
	int flavors[8];
};

int nt_connect(struct rpc_context *rpc, const char *host, int port,
	       int program, int version);
struct rpc_context *nt_rpc_new(const char *host, int port, int program,
			       int version, int uid, int gid);
void nt_res_clear(struct nt_res *res);
void nt_fh3_set(struct nfs_fh3 *out, const struct nt_fh *fh);
const char *nt_nfsstat_name(int status);
const char *nt_mntstat_name(int status);
int nt_wait(struct rpc_context *rpc, struct nt_res *res);

int nt_mnt_null(struct rpc_context *rpc, struct nt_res *res);
int nt_mnt(struct rpc_context *rpc, const char *path, struct nt_res *res);
int nt_mnt_dump(struct rpc_context *rpc, struct nt_res *res);
int nt_mnt_umnt(struct rpc_context *rpc, const char *path,
		struct nt_res *res);
int nt_mnt_umntall(struct rpc_context *rpc, struct nt_res *res);
int nt_mnt_export(struct rpc_context *rpc, struct nt_res *res);

int nt_null(struct rpc_context *rpc, struct nt_res *res);
int nt_getattr(struct rpc_context *rpc, const struct nt_fh *fh,
	       struct nt_res *res);
int nt_setattr(struct rpc_context *rpc, const struct nt_fh *fh,
	       const struct sattr3 *sattr, const struct nfstime3 *guard,
	       struct nt_res *res);
int nt_lookup(struct rpc_context *rpc, const struct nt_fh *dir,
	      const char *name, struct nt_res *res);
int nt_lookup_path(struct rpc_context *rpc, const struct nt_fh *root,
		   const char *path, struct nt_res *res);
int nt_access(struct rpc_context *rpc, const struct nt_fh *fh, uint32_t bits,
	      struct nt_res *res);
int nt_readlink(struct rpc_context *rpc, const struct nt_fh *fh,
		struct nt_res *res);
int nt_read(struct rpc_context *rpc, const struct nt_fh *fh, uint64_t off,
	    uint32_t count, struct nt_res *res);
int nt_write(struct rpc_context *rpc, const struct nt_fh *fh, uint64_t off,
	     const void *buf, uint32_t len, int stable, struct nt_res *res);
int nt_create(struct rpc_context *rpc, const struct nt_fh *dir,
	      const char *name, int mode, const struct sattr3 *sattr,
	      const unsigned char *verf, struct nt_res *res);
int nt_mkdir(struct rpc_context *rpc, const struct nt_fh *dir,
	     const char *name, uint32_t mode, struct nt_res *res);
int nt_symlink(struct rpc_context *rpc, const struct nt_fh *dir,
	       const char *name, const char *target, struct nt_res *res);
int nt_mknod(struct rpc_context *rpc, const struct nt_fh *dir,
	     const char *name, int type, uint32_t mode, struct nt_res *res);
int nt_remove(struct rpc_context *rpc, const struct nt_fh *dir,
	      const char *name, struct nt_res *res);
int nt_rmdir(struct rpc_context *rpc, const struct nt_fh *dir,
	     const char *name, struct nt_res *res);
int nt_rename(struct rpc_context *rpc, const struct nt_fh *fromdir,
	      const char *fromname, const struct nt_fh *todir,
	      const char *toname, struct nt_res *res);
int nt_link(struct rpc_context *rpc, const struct nt_fh *file,
	    const struct nt_fh *dir, const char *name, struct nt_res *res);
int nt_readdir(struct rpc_context *rpc, const struct nt_fh *dir,
	       uint64_t cookie, const unsigned char *cookieverf,
	       uint32_t count, struct nt_res *res);
int nt_readdirplus(struct rpc_context *rpc, const struct nt_fh *dir,
		   uint64_t cookie, const unsigned char *cookieverf,
		   uint32_t dircount, uint32_t maxcount, struct nt_res *res);
int nt_fsstat(struct rpc_context *rpc, const struct nt_fh *fh,
	      struct nt_res *res);
int nt_fsinfo(struct rpc_context *rpc, const struct nt_fh *fh,
	      struct nt_res *res);
int nt_pathconf(struct rpc_context *rpc, const struct nt_fh *fh,
		struct nt_res *res);
int nt_commit(struct rpc_context *rpc, const struct nt_fh *fh, uint64_t off,
	      uint32_t count, struct nt_res *res);

#endif
