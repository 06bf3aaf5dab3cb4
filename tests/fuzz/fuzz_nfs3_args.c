/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the argument decoder of every NFSv3 procedure
 * (RFC 1813 §3.3), called through nfs3_program's table as the dispatcher
 * does. Input: one byte selecting the procedure (b % 22), then the
 * arguments.
 *
 * The arguments are copied into a buffer of exactly their size and the
 * decoded struct is a heap block of exactly the table's args_size, so
 * ASan reports any read past the record or write past the struct.
 *
 * The library has no encoders for argument types (a server only decodes
 * them), so this file writes them, from the type encoders the library
 * does have (nfs_fh3, sattr3, nfstime3, specdata3) and XDR primitives.
 * Round-trip property, for every input that decodes:
 *   A --dec--> v1 --enc--> B --dec--> v2 --enc--> C
 * B decodes completely (no bytes left), B == C byte for byte, and B is
 * exactly as long as the part of A that was consumed (A may differ from B
 * only in XDR padding bytes, which decoders do not check). Borrowed
 * strings and WRITE data must point inside A, and decoded values must be
 * within their protocol limits.
 */
#include <string.h>

#include "fuzz.h"
#include "nfs3/nfs3.h"
#include "nfs3/nfs3_xdr.h"

/* Largest encoding of any argument struct (WRITE data + names + paths). */
#define ENC_MAX (NFS3_IO_MAX + 4 * NFS3_NAME_DECODE_MAX + 1024)

static bool enc_str(struct xdr_buf *x, const struct nfs3_str *s)
{
	return xdr_enc_opaque(x, s->s, s->len);
}

static bool enc_diropargs3(struct xdr_buf *x, const struct diropargs3 *d)
{
	return nfs3_enc_nfs_fh3(x, &d->dir) && enc_str(x, &d->name);
}

static bool enc_sattrguard3(struct xdr_buf *x, const struct sattrguard3 *g)
{
	return xdr_enc_bool(x, g->check) &&
	       (!g->check || nfs3_enc_nfstime3(x, &g->obj_ctime));
}

static bool enc_args(struct xdr_buf *x, uint32_t proc, const void *args)
{
	switch (proc) {
	case NFSPROC3_NULL:
		return true;
	case NFSPROC3_GETATTR:
		return nfs3_enc_nfs_fh3(
			x, &((const struct GETATTR3args *)args)->object);
	case NFSPROC3_READLINK:
		return nfs3_enc_nfs_fh3(
			x, &((const struct READLINK3args *)args)->symlink);
	case NFSPROC3_FSSTAT:
	case NFSPROC3_FSINFO:
	case NFSPROC3_PATHCONF:
		/* FSINFO3args and PATHCONF3args are FSSTAT3args (nfs3_xdr.h).
		 */
		return nfs3_enc_nfs_fh3(
			x, &((const struct FSSTAT3args *)args)->fsroot);
	case NFSPROC3_SETATTR: {
		const struct SETATTR3args *a = args;

		return nfs3_enc_nfs_fh3(x, &a->object) &&
		       nfs3_enc_sattr3(x, &a->new_attributes) &&
		       enc_sattrguard3(x, &a->guard);
	}
	case NFSPROC3_LOOKUP:
		return enc_diropargs3(
			x, &((const struct LOOKUP3args *)args)->what);
	case NFSPROC3_REMOVE:
		return enc_diropargs3(
			x, &((const struct REMOVE3args *)args)->object);
	case NFSPROC3_RMDIR:
		return enc_diropargs3(
			x, &((const struct RMDIR3args *)args)->object);
	case NFSPROC3_ACCESS: {
		const struct ACCESS3args *a = args;

		return nfs3_enc_nfs_fh3(x, &a->object) &&
		       xdr_enc_u32(x, a->access);
	}
	case NFSPROC3_READ: {
		const struct READ3args *a = args;

		return nfs3_enc_nfs_fh3(x, &a->file) &&
		       xdr_enc_u64(x, a->offset) && xdr_enc_u32(x, a->count);
	}
	case NFSPROC3_COMMIT: {
		const struct COMMIT3args *a = args;

		return nfs3_enc_nfs_fh3(x, &a->file) &&
		       xdr_enc_u64(x, a->offset) && xdr_enc_u32(x, a->count);
	}
	case NFSPROC3_WRITE: {
		const struct WRITE3args *a = args;

		return nfs3_enc_nfs_fh3(x, &a->file) &&
		       xdr_enc_u64(x, a->offset) && xdr_enc_u32(x, a->count) &&
		       xdr_enc_u32(x, a->stable) &&
		       xdr_enc_opaque(x, a->data, a->count);
	}
	case NFSPROC3_CREATE: {
		const struct CREATE3args *a = args;

		if (!enc_diropargs3(x, &a->where) || !xdr_enc_u32(x, a->mode))
			return false;
		if (a->mode == EXCLUSIVE)
			return xdr_enc_opaque_fixed(x, a->verf,
						    NFS3_CREATEVERFSIZE);
		return nfs3_enc_sattr3(x, &a->obj_attributes);
	}
	case NFSPROC3_MKDIR: {
		const struct MKDIR3args *a = args;

		return enc_diropargs3(x, &a->where) &&
		       nfs3_enc_sattr3(x, &a->attributes);
	}
	case NFSPROC3_SYMLINK: {
		const struct SYMLINK3args *a = args;

		return enc_diropargs3(x, &a->where) &&
		       nfs3_enc_sattr3(x, &a->symlink_attributes) &&
		       enc_str(x, &a->symlink_data);
	}
	case NFSPROC3_MKNOD: {
		const struct MKNOD3args *a = args;

		if (!enc_diropargs3(x, &a->where) || !xdr_enc_u32(x, a->type))
			return false;
		switch (a->type) {
		case NF3CHR:
		case NF3BLK:
			return nfs3_enc_sattr3(x, &a->attributes) &&
			       nfs3_enc_specdata3(x, &a->spec);
		case NF3SOCK:
		case NF3FIFO:
			return nfs3_enc_sattr3(x, &a->attributes);
		default:
			return true;
		}
	}
	case NFSPROC3_RENAME: {
		const struct RENAME3args *a = args;

		return enc_diropargs3(x, &a->from) && enc_diropargs3(x, &a->to);
	}
	case NFSPROC3_LINK: {
		const struct LINK3args *a = args;

		return nfs3_enc_nfs_fh3(x, &a->file) &&
		       enc_diropargs3(x, &a->link);
	}
	case NFSPROC3_READDIR: {
		const struct READDIR3args *a = args;

		return nfs3_enc_nfs_fh3(x, &a->dir) &&
		       xdr_enc_u64(x, a->cookie) &&
		       xdr_enc_u64(x, a->cookieverf) &&
		       xdr_enc_u32(x, a->count);
	}
	case NFSPROC3_READDIRPLUS: {
		const struct READDIRPLUS3args *a = args;

		return nfs3_enc_nfs_fh3(x, &a->dir) &&
		       xdr_enc_u64(x, a->cookie) &&
		       xdr_enc_u64(x, a->cookieverf) &&
		       xdr_enc_u32(x, a->dircount) &&
		       xdr_enc_u32(x, a->maxcount);
	}
	}
	FUZZ_CHECK(!"procedure without an encoder");
	return false;
}

struct span {
	const uint8_t *lo, *hi;
};

/* A borrowed string of at most @max bytes lies inside @in. */
static void check_str(const struct span *in, const struct nfs3_str *s,
		      uint32_t max)
{
	FUZZ_CHECK(s->len <= max);
	if (!s->len)
		return;
	FUZZ_CHECK((const uint8_t *)s->s >= in->lo);
	FUZZ_CHECK((const uint8_t *)s->s + s->len <= in->hi);
}

static void check_sattr3(const struct sattr3 *s)
{
	FUZZ_CHECK(s->set_atime <= SET_TO_CLIENT_TIME);
	FUZZ_CHECK(s->set_mtime <= SET_TO_CLIENT_TIME);
	FUZZ_CHECK(s->atime.nseconds < 1000000000u);
	FUZZ_CHECK(s->mtime.nseconds < 1000000000u);
}

/* Limits every decoded value must respect (the handlers rely on them). */
static void check_limits(uint32_t proc, const void *args, const struct span *in)
{
	const struct nfs_fh3 *fh = args; /* every args struct starts with one */

	if (proc != NFSPROC3_NULL)
		FUZZ_CHECK(fh->len <= NFS3_FHSIZE);
	switch (proc) {
	case NFSPROC3_SETATTR:
		check_sattr3(
			&((const struct SETATTR3args *)args)->new_attributes);
		break;
	case NFSPROC3_LOOKUP:
		check_str(in, &((const struct LOOKUP3args *)args)->what.name,
			  NFS3_NAME_DECODE_MAX);
		break;
	case NFSPROC3_REMOVE:
		check_str(in, &((const struct REMOVE3args *)args)->object.name,
			  NFS3_NAME_DECODE_MAX);
		break;
	case NFSPROC3_RMDIR:
		check_str(in, &((const struct RMDIR3args *)args)->object.name,
			  NFS3_NAME_DECODE_MAX);
		break;
	case NFSPROC3_WRITE: {
		const struct WRITE3args *a = args;

		FUZZ_CHECK(a->count <= NFS3_IO_MAX);
		FUZZ_CHECK(a->stable <= FILE_SYNC);
		if (a->count) {
			FUZZ_CHECK(a->data >= in->lo);
			FUZZ_CHECK(a->data + a->count <= in->hi);
		}
		break;
	}
	case NFSPROC3_CREATE: {
		const struct CREATE3args *a = args;

		check_str(in, &a->where.name, NFS3_NAME_DECODE_MAX);
		FUZZ_CHECK(a->mode <= EXCLUSIVE);
		if (a->mode != EXCLUSIVE)
			check_sattr3(&a->obj_attributes);
		break;
	}
	case NFSPROC3_MKDIR:
		check_str(in, &((const struct MKDIR3args *)args)->where.name,
			  NFS3_NAME_DECODE_MAX);
		check_sattr3(&((const struct MKDIR3args *)args)->attributes);
		break;
	case NFSPROC3_SYMLINK: {
		const struct SYMLINK3args *a = args;

		check_str(in, &a->where.name, NFS3_NAME_DECODE_MAX);
		check_str(in, &a->symlink_data, NFS3_PATH_MAX);
		check_sattr3(&a->symlink_attributes);
		break;
	}
	case NFSPROC3_MKNOD: {
		const struct MKNOD3args *a = args;

		check_str(in, &a->where.name, NFS3_NAME_DECODE_MAX);
		FUZZ_CHECK(a->type >= NF3REG && a->type <= NF3FIFO);
		break;
	}
	case NFSPROC3_RENAME: {
		const struct RENAME3args *a = args;

		FUZZ_CHECK(a->to.dir.len <= NFS3_FHSIZE);
		check_str(in, &a->from.name, NFS3_NAME_DECODE_MAX);
		check_str(in, &a->to.name, NFS3_NAME_DECODE_MAX);
		break;
	}
	case NFSPROC3_LINK: {
		const struct LINK3args *a = args;

		FUZZ_CHECK(a->link.dir.len <= NFS3_FHSIZE);
		check_str(in, &a->link.name, NFS3_NAME_DECODE_MAX);
		break;
	}
	default:
		break;
	}
}

static uint8_t enc_b[ENC_MAX], enc_c[ENC_MAX];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct rpc_version *v = &nfs3_program.versions[0];
	const struct rpc_proc *p;
	struct xdr_buf x, eb, ec;
	struct span in;
	void *a1, *a2;
	uint8_t *buf;
	size_t len, used;
	uint32_t proc;
	bool ok;

	FUZZ_CHECK(nfs3_program.nversions == 1 && v->vers == NFS_V3);
	if (size < 1)
		return 0;
	proc = data[0] % v->nprocs;
	p = &v->procs[proc];
	len = size - 1;
	buf = malloc(len ? len : 1);
	a1 = malloc(p->args_size ? p->args_size : 1);
	a2 = malloc(p->args_size ? p->args_size : 1);
	FUZZ_CHECK(buf && a1 && a2);
	memcpy(buf, data + 1, len);
	/* The dispatcher hands decoders a zeroed struct. */
	memset(a1, 0, p->args_size ? p->args_size : 1);
	memset(a2, 0, p->args_size ? p->args_size : 1);
	in.lo = buf;
	in.hi = buf + len;

	xdr_init(&x, buf, len);
	ok = p->decode(&x, a1);
	if (!ok)
		goto out;
	FUZZ_CHECK(xdr_ok(&x));
	used = x.pos;
	check_limits(proc, a1, &in);

	xdr_init(&eb, enc_b, sizeof(enc_b));
	FUZZ_CHECK(enc_args(&eb, proc, a1));
	FUZZ_CHECK(eb.pos == used);

	xdr_init(&x, enc_b, eb.pos);
	in.lo = enc_b;
	in.hi = enc_b + eb.pos;
	FUZZ_CHECK(p->decode(&x, a2));
	FUZZ_CHECK(xdr_ok(&x) && xdr_remaining(&x) == 0);
	check_limits(proc, a2, &in);
	xdr_init(&ec, enc_c, sizeof(enc_c));
	FUZZ_CHECK(enc_args(&ec, proc, a2));
	FUZZ_CHECK(ec.pos == eb.pos);
	FUZZ_CHECK(memcmp(enc_b, enc_c, eb.pos) == 0);
out:
	free(a2);
	free(a1);
	free(buf);
	return 0;
}
