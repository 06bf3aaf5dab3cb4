/* SPDX-License-Identifier: MIT */
#ifndef NASD_NFS4_OPS_H
#define NASD_NFS4_OPS_H

/*
 * Arguments and results of the namespace, attribute and I/O operations
 * (RFC 8881 §18, XDR of RFC 5662), with the specs' type names, and their
 * codecs (nfs4_xdr.c). Results hold only the resok arm: the status
 * travels separately (struct nfs4_op).
 */

#include <stdbool.h>
#include <stdint.h>

#include "nfs4/attrs.h"
#include "nfs4/compound.h"
#include "nfs4/nfs4_xdr.h"

/* ACCESS4 bits (RFC 8881 §18.1) */
#define ACCESS4_READ 0x01
#define ACCESS4_LOOKUP 0x02
#define ACCESS4_MODIFY 0x04
#define ACCESS4_EXTEND 0x08
#define ACCESS4_DELETE 0x10
#define ACCESS4_EXECUTE 0x20
/* RFC 8276 §8.4.1 */
#define ACCESS4_XAREAD 0x40
#define ACCESS4_XAWRITE 0x80
#define ACCESS4_XALIST 0x100

struct ACCESS4args {
	uint32_t access;
};
struct ACCESS4resok {
	uint32_t supported;
	uint32_t access;
};

struct COMMIT4args {
	uint64_t offset;
	uint32_t count;
};
struct COMMIT4resok {
	struct verifier4 writeverf;
};

/* nfs_ftype4 (RFC 8881 §3.3.4) */
enum nfs_ftype4 {
	NF4REG = 1,
	NF4DIR = 2,
	NF4BLK = 3,
	NF4CHR = 4,
	NF4LNK = 5,
	NF4SOCK = 6,
	NF4FIFO = 7,
	NF4ATTRDIR = 8,
	NF4NAMEDATTR = 9,
};

struct createtype4 {
	uint32_t type;
	struct nfs4_opaque linkdata;      /* NF4LNK */
	uint32_t specdata1, specdata2;    /* NF4BLK, NF4CHR */
};
struct CREATE4args {
	struct createtype4 objtype;
	struct nfs4_opaque objname;
	struct fattr4 createattrs;
};
struct CREATE4resok {
	struct change_info4 cinfo;
	struct bitmap4 attrset;
};

struct GETATTR4args {
	struct bitmap4 attr_request;
};
struct GETATTR4resok {
	struct bitmap4 attr_request;
	struct nfs4_attr_src src;
};

struct GETFH4resok {
	struct nfs_fh4 object;
};

struct LINK4args {
	struct nfs4_opaque newname;
};
struct LINK4resok {
	struct change_info4 cinfo;
};

struct LOOKUP4args {
	struct nfs4_opaque objname;
};

/* NVERIFY4args and VERIFY4args */
struct VERIFY4args {
	struct fattr4 obj_attributes;
};

struct PUTFH4args {
	struct nfs_fh4 object;
};

struct READ4args {
	struct stateid4 stateid;
	uint64_t offset;
	uint32_t count;
};
struct READ4resok {
	bool eof;
	uint32_t len;
	/*
	 * The data, owned by the result until the op's release: copied into
	 * the body by the encoder, unless @in_payload (the last op of a
	 * reply no slot caches): then the request owns it as the reply's
	 * payload and the encoder writes only its length.
	 */
	struct payload data;
	bool in_payload;
};

struct READDIR4args {
	uint64_t cookie;
	struct verifier4 cookieverf;
	uint32_t dircount;
	uint32_t maxcount;
	struct bitmap4 attr_request;
};
struct READDIR4resok {
	struct verifier4 cookieverf;
	const uint8_t *entries;  /* encoded entry4 list, value_follows each */
	uint32_t len;
	bool eof;
};

struct READLINK4resok {
	uint32_t len;
	const char *link;
};

struct REMOVE4args {
	struct nfs4_opaque target;
};
struct REMOVE4resok {
	struct change_info4 cinfo;
};

struct RENAME4args {
	struct nfs4_opaque oldname;
	struct nfs4_opaque newname;
};
struct RENAME4resok {
	struct change_info4 source_cinfo;
	struct change_info4 target_cinfo;
};

struct SECINFO4args {
	struct nfs4_opaque name;
};
/* secinfo_style4 (RFC 8881 §18.45) */
#define SECINFO_STYLE4_CURRENT_FH 0
#define SECINFO_STYLE4_PARENT 1
struct SECINFO_NO_NAME4args {
	uint32_t style;
};
struct SECINFO4resok {
	uint32_t count;
	uint32_t flavors[2];     /* AUTH_SYS, AUTH_NONE: no GSS triples */
};

struct SETATTR4args {
	struct stateid4 stateid;
	struct fattr4 obj_attributes;
};
struct SETATTR4res {
	struct bitmap4 attrsset;     /* encoded in both arms */
};

struct WRITE4args {
	struct stateid4 stateid;
	uint64_t offset;
	uint32_t stable;
	uint32_t len;
	const uint8_t *data;     /* borrowed from the request */
};
struct WRITE4resok {
	uint32_t count;
	uint32_t committed;
	struct verifier4 writeverf;
};

/* Codecs (nfs4_xdr.c), one per RFC type. */
bool nfs4_dec_ACCESS4args(struct xdr_buf *x, void *args);
bool nfs4_enc_ACCESS4resok(struct xdr_buf *x, uint32_t st, const void *res);
bool nfs4_dec_COMMIT4args(struct xdr_buf *x, void *args);
bool nfs4_enc_COMMIT4resok(struct xdr_buf *x, uint32_t st, const void *res);
bool nfs4_dec_CREATE4args(struct xdr_buf *x, void *args);
bool nfs4_enc_CREATE4resok(struct xdr_buf *x, uint32_t st, const void *res);
bool nfs4_dec_GETATTR4args(struct xdr_buf *x, void *args);
bool nfs4_enc_GETATTR4resok(struct xdr_buf *x, uint32_t st,
			    const void *res);
bool nfs4_enc_GETFH4resok(struct xdr_buf *x, uint32_t st, const void *res);
bool nfs4_dec_LINK4args(struct xdr_buf *x, void *args);
bool nfs4_enc_LINK4resok(struct xdr_buf *x, uint32_t st, const void *res);
bool nfs4_dec_LOOKUP4args(struct xdr_buf *x, void *args);
bool nfs4_dec_VERIFY4args(struct xdr_buf *x, void *args);
bool nfs4_dec_PUTFH4args(struct xdr_buf *x, void *args);
bool nfs4_dec_READ4args(struct xdr_buf *x, void *args);
bool nfs4_enc_READ4resok(struct xdr_buf *x, uint32_t st, const void *res);
bool nfs4_dec_READDIR4args(struct xdr_buf *x, void *args);
bool nfs4_enc_READDIR4resok(struct xdr_buf *x, uint32_t st,
			    const void *res);
bool nfs4_enc_READLINK4resok(struct xdr_buf *x, uint32_t st,
			     const void *res);
bool nfs4_dec_REMOVE4args(struct xdr_buf *x, void *args);
bool nfs4_enc_REMOVE4resok(struct xdr_buf *x, uint32_t st, const void *res);
bool nfs4_dec_RENAME4args(struct xdr_buf *x, void *args);
bool nfs4_enc_RENAME4resok(struct xdr_buf *x, uint32_t st, const void *res);
bool nfs4_dec_SECINFO4args(struct xdr_buf *x, void *args);
bool nfs4_dec_SECINFO_NO_NAME4args(struct xdr_buf *x, void *args);
bool nfs4_enc_SECINFO4resok(struct xdr_buf *x, uint32_t st,
			    const void *res);
bool nfs4_dec_SETATTR4args(struct xdr_buf *x, void *args);
bool nfs4_enc_SETATTR4res(struct xdr_buf *x, uint32_t st, const void *res);
bool nfs4_dec_WRITE4args(struct xdr_buf *x, void *args);
bool nfs4_enc_WRITE4resok(struct xdr_buf *x, uint32_t st, const void *res);

#endif
