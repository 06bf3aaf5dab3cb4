// SPDX-License-Identifier: MIT
/*
 * NFSv4.2 extended attributes (RFC 8276 §8.4): GETXATTR, SETXATTR,
 * LISTXATTRS and REMOVEXATTR of the current filehandle's user.
 * attributes, through the vfs (the caller's credentials apply: reading
 * needs read permission, changing write permission). Names travel
 * without the "user." prefix, as the Linux client and knfsd have them.
 * An export with xattr=no, the pseudo-fs and a filesystem that keeps no
 * user. attributes answer NOTSUPP; xattr_support (attrs.c) and ACCESS's
 * XA bits (ops_attr.c) say the same beforehand.
 */
#include <errno.h>
#include <string.h>

#include "export/export.h"
#include "nfs4/compound.h"
#include "nfs4/nfs4_int.h"
#include "nfs4/nfs4_xdr.h"
#include "nfs4/state/state.h"
#include "state/file_state.h"
#include "vfs/vfs.h"

#define XATTR_PREFIX	 "user."
#define XATTR_PREFIX_LEN 5
/* the longest name on the wire: the vfs's less the prefix */
#define XATTR_KEY_MAX (VFS_XATTR_NAME_MAX - XATTR_PREFIX_LEN)

/* setxattr_option4 */
enum {
	SETXATTR4_EITHER = 0,
	SETXATTR4_CREATE = 1,
	SETXATTR4_REPLACE = 2,
};

struct GETXATTR4args {
	struct nfs4_opaque gxa_name;
};

struct GETXATTR4resok {
	const uint8_t *value;
	uint32_t len;
};

struct SETXATTR4args {
	uint32_t sxa_option;
	struct nfs4_opaque sxa_key;
	struct nfs4_opaque sxa_value;
};

struct LISTXATTRS4args {
	uint64_t lxa_cookie;
	uint32_t lxa_maxcount;
};

struct LISTXATTRS4resok {
	uint64_t cookie;
	const char *names; /* each "user.NAME\0", prefix left on */
	size_t names_len;  /* bytes of @names to encode */
	bool eof;
};

struct REMOVEXATTR4args {
	struct nfs4_opaque rxa_name;
};

/** nfs4_xattr_ok() - see nfs4_int.h. */
uint32_t nfs4_xattr_ok(const struct nfs4_fh *fh, bool probe)
{
	if (!fh->set)
		return NFS4ERR_NOFILEHANDLE;
	if (fh->pseudo || !fh->obj || !fh->export || fh->export->wide.no_xattr)
		return NFS4ERR_NOTSUPP;
	if (probe && vfs_xattr_probe(fh->obj) != 0)
		return NFS4ERR_NOTSUPP;
	return NFS4_OK;
}

/* "user." + @key, NUL-terminated, into @out; the status of a bad key. */
static uint32_t xattr_name(const struct nfs4_opaque *key,
			   char out[VFS_XATTR_NAME_MAX + 1])
{
	if (key->len == 0 || memchr(key->data, '\0', key->len))
		return NFS4ERR_INVAL;
	if (key->len > XATTR_KEY_MAX)
		return NFS4ERR_NAMETOOLONG;
	memcpy(out, XATTR_PREFIX, XATTR_PREFIX_LEN);
	memcpy(out + XATTR_PREFIX_LEN, key->data, key->len);
	out[XATTR_PREFIX_LEN + key->len] = '\0';
	return NFS4_OK;
}

/* The current object, when its xattrs may be served (a filesystem that
 * keeps none answers ENOTSUP: NOTSUPP too). */
static uint32_t xattr_obj(struct nfs4_compound *c, struct vfs_obj **o)
{
	uint32_t st = nfs4_xattr_ok(&c->cur, false);

	if (st == NFS4_OK)
		*o = c->cur.obj;
	return st;
}

/* ---- GETXATTR (§8.4.2) ---- */

static bool dec_GETXATTR4args(struct xdr_buf *x, void *p)
{
	struct GETXATTR4args *a = p;

	return nfs4_dec_component4(x, &a->gxa_name);
}

static bool enc_GETXATTR4resok(struct xdr_buf *x, uint32_t status,
			       const void *p)
{
	const struct GETXATTR4resok *r = p;

	(void)status;
	return xdr_enc_opaque(x, r->value, r->len);
}

static uint32_t nfs4_op_getxattr(struct nfs4_compound *c, void *args, void *res)
{
	struct GETXATTR4args *a = args;
	struct GETXATTR4resok *r = res;
	char name[VFS_XATTR_NAME_MAX + 1];
	struct vfs_obj *o;
	uint8_t *buf;
	ssize_t n;
	uint32_t st;

	st = xattr_obj(c, &o);
	if (st == NFS4_OK)
		st = xattr_name(&a->gxa_name, name);
	if (st != NFS4_OK)
		return st;
	buf = rpc_call_alloc(c->call, VFS_XATTR_VALUE_MAX);
	if (!buf)
		return NFS4ERR_DELAY;
	n = vfs_xattr_get(o, name, buf, VFS_XATTR_VALUE_MAX);
	if (n < 0)
		return n == -ERANGE ? NFS4ERR_XATTR2BIG
				    : nfs4_status(OP_GETXATTR, (int)n);
	/* a value the reply cannot hold */
	if (4 + (((uint64_t)n + 3) & ~(uint64_t)3) > c->reply_room)
		return NFS4ERR_XATTR2BIG;
	r->value = buf;
	r->len = (uint32_t)n;
	return NFS4_OK;
}

/* ---- SETXATTR (§8.4.3) ---- */

static bool dec_SETXATTR4args(struct xdr_buf *x, void *p)
{
	struct SETXATTR4args *a = p;

	/* the value's bound is checked by the op: XATTR2BIG, not BADXDR */
	return xdr_dec_u32(x, &a->sxa_option) &&
	       nfs4_dec_component4(x, &a->sxa_key) &&
	       nfs4_dec_opaque(x, &a->sxa_value, UINT32_MAX);
}

static bool enc_change_info(struct xdr_buf *x, uint32_t status, const void *p)
{
	(void)status;
	return nfs4_enc_change_info4(x, p);
}

/*
 * Set @name to @val (remove it with @val NULL) on @o, after recalling
 * other clients' delegations of it, with the change attribute before and
 * after in @r (not atomic: another change may fall between).
 */
static uint32_t xattr_change(struct nfs4_compound *c, uint32_t opnum,
			     struct vfs_obj *o, const char *name,
			     const struct nfs4_opaque *val,
			     enum vfs_xattr_how how, struct change_info4 *r)
{
	int err;

	if (state_grant_break_key(o, STATE_OP_SETATTR, nfs4_grant_key(c)))
		return NFS4ERR_DELAY;
	r->atomic = false;
	r->before = nfs4_dir_change(o);
	/* E2BIG and ENOSPC: the filesystem's own limits of one value and of
	 * all of them (ext4: a block) */
	err = val ? vfs_xattr_set(o, name, val->data, val->len, how)
		  : vfs_xattr_remove(o, name);
	if (err)
		return nfs4_status(opnum, err);
	r->after = nfs4_dir_change(o);
	return NFS4_OK;
}

static uint32_t nfs4_op_setxattr(struct nfs4_compound *c, void *args, void *res)
{
	static const enum vfs_xattr_how how[] = {
		[SETXATTR4_EITHER] = VFS_XATTR_ANY,
		[SETXATTR4_CREATE] = VFS_XATTR_CREATE,
		[SETXATTR4_REPLACE] = VFS_XATTR_REPLACE,
	};
	struct SETXATTR4args *a = args;
	char name[VFS_XATTR_NAME_MAX + 1];
	struct vfs_obj *o;
	uint32_t st;

	st = xattr_obj(c, &o);
	if (st != NFS4_OK)
		return st;
	if (a->sxa_option > SETXATTR4_REPLACE)
		return NFS4ERR_INVAL;
	st = xattr_name(&a->sxa_key, name);
	if (st != NFS4_OK)
		return st;
	if (a->sxa_value.len > VFS_XATTR_VALUE_MAX)
		return NFS4ERR_XATTR2BIG;
	return xattr_change(c, OP_SETXATTR, o, name, &a->sxa_value,
			    how[a->sxa_option], res);
}

/* ---- LISTXATTRS (§8.4.4) ---- */

static bool dec_LISTXATTRS4args(struct xdr_buf *x, void *p)
{
	struct LISTXATTRS4args *a = p;

	return xdr_dec_u64(x, &a->lxa_cookie) &&
	       xdr_dec_u32(x, &a->lxa_maxcount);
}

/* The wire size of one name of @len bytes (prefix off): length + pad. */
static size_t key_size(size_t len)
{
	return 4 + ((len + 3) & ~(size_t)3);
}

static bool is_user(const char *n)
{
	return strncmp(n, XATTR_PREFIX, XATTR_PREFIX_LEN) == 0 &&
	       n[XATTR_PREFIX_LEN] != '\0';
}

static bool enc_LISTXATTRS4resok(struct xdr_buf *x, uint32_t status,
				 const void *p)
{
	const struct LISTXATTRS4resok *r = p;
	const char *n = r->names, *end = r->names + r->names_len;
	uint32_t count = 0;
	const char *q;

	for (q = n; q < end; q += strlen(q) + 1)
		count += is_user(q);
	(void)status;
	if (!xdr_enc_u64(x, r->cookie) || !xdr_enc_u32(x, count))
		return false;
	for (q = n; q < end; q += strlen(q) + 1)
		if (is_user(q) && !xdr_enc_opaque(x, q + XATTR_PREFIX_LEN,
						  strlen(q) - XATTR_PREFIX_LEN))
			return false;
	return xdr_enc_bool(x, r->eof);
}

/*
 * The cookie is the index of the next user. name in the file's list; a
 * list that changed between calls may skip or repeat a name (as knfsd).
 * lxa_maxcount bounds the whole result (cookie, count, names, eof):
 * TOOSMALL when not even one name fits.
 */
static uint32_t nfs4_op_listxattrs(struct nfs4_compound *c, void *args,
				   void *res)
{
	struct LISTXATTRS4args *a = args;
	struct LISTXATTRS4resok *r = res;
	size_t room, used = 8 + 4 + 4, first = 0, last;
	uint64_t idx = 0, nret = 0;
	struct vfs_obj *o;
	const char *q, *end;
	char *buf;
	ssize_t n;
	uint32_t st;

	st = xattr_obj(c, &o);
	if (st != NFS4_OK)
		return st;
	room = a->lxa_maxcount < c->reply_room ? a->lxa_maxcount
					       : c->reply_room;
	buf = rpc_call_alloc(c->call, VFS_XATTR_LIST_MAX + 1);
	if (!buf)
		return NFS4ERR_DELAY;
	n = vfs_xattr_list(o, buf, VFS_XATTR_LIST_MAX);
	if (n < 0)
		/* more names than the kernel lists at once (knfsd) */
		return n == -ERANGE || n == -E2BIG
			       ? NFS4ERR_TOOSMALL
			       : nfs4_status(OP_LISTXATTRS, (int)n);
	buf[n] = '\0';
	end = buf + n;
	last = (size_t)n;
	r->eof = true;
	for (q = buf; q < end; q += strlen(q) + 1) {
		size_t sz;

		if (!is_user(q))
			continue;
		if (idx++ < a->lxa_cookie)
			continue;
		sz = key_size(strlen(q) - XATTR_PREFIX_LEN);
		if (used + sz > room) {
			r->eof = false;
			last = (size_t)(q - buf);
			break;
		}
		if (!nret++)
			first = (size_t)(q - buf);
		used += sz;
	}
	if (a->lxa_cookie > idx)
		return NFS4ERR_BAD_COOKIE;
	if (used > room || (!nret && !r->eof))
		return NFS4ERR_TOOSMALL;
	r->cookie = a->lxa_cookie + nret;
	r->names = buf + (nret ? first : last);
	r->names_len = nret ? last - first : 0;
	return NFS4_OK;
}

/* ---- REMOVEXATTR (§8.4.5) ---- */

static bool dec_REMOVEXATTR4args(struct xdr_buf *x, void *p)
{
	struct REMOVEXATTR4args *a = p;

	return nfs4_dec_component4(x, &a->rxa_name);
}

static uint32_t nfs4_op_removexattr(struct nfs4_compound *c, void *args,
				    void *res)
{
	struct REMOVEXATTR4args *a = args;
	char name[VFS_XATTR_NAME_MAX + 1];
	struct vfs_obj *o;
	uint32_t st;

	st = xattr_obj(c, &o);
	if (st == NFS4_OK)
		st = xattr_name(&a->rxa_name, name);
	if (st != NFS4_OK)
		return st;
	return xattr_change(c, OP_REMOVEXATTR, o, name, NULL, VFS_XATTR_ANY,
			    res);
}

const struct nfs4_op nfs4_op_desc_getxattr = {
	.name = "GETXATTR",
	.minor_min = 2,
	.minor_max = 255,
	.flags = NFS4_OP_NEEDS_FH,
	.args_size = sizeof(struct GETXATTR4args),
	.res_size = sizeof(struct GETXATTR4resok),
	.decode = dec_GETXATTR4args,
	.handle = nfs4_op_getxattr,
	.encode = enc_GETXATTR4resok,
};

const struct nfs4_op nfs4_op_desc_setxattr = {
	.name = "SETXATTR",
	.minor_min = 2,
	.minor_max = 255,
	.flags = NFS4_OP_NEEDS_FH | NFS4_OP_MODIFIES,
	.args_size = sizeof(struct SETXATTR4args),
	.res_size = sizeof(struct change_info4),
	.decode = dec_SETXATTR4args,
	.handle = nfs4_op_setxattr,
	.encode = enc_change_info,
};

const struct nfs4_op nfs4_op_desc_listxattrs = {
	.name = "LISTXATTRS",
	.minor_min = 2,
	.minor_max = 255,
	.flags = NFS4_OP_NEEDS_FH,
	.args_size = sizeof(struct LISTXATTRS4args),
	.res_size = sizeof(struct LISTXATTRS4resok),
	.decode = dec_LISTXATTRS4args,
	.handle = nfs4_op_listxattrs,
	.encode = enc_LISTXATTRS4resok,
};

const struct nfs4_op nfs4_op_desc_removexattr = {
	.name = "REMOVEXATTR",
	.minor_min = 2,
	.minor_max = 255,
	.flags = NFS4_OP_NEEDS_FH | NFS4_OP_MODIFIES,
	.args_size = sizeof(struct REMOVEXATTR4args),
	.res_size = sizeof(struct change_info4),
	.decode = dec_REMOVEXATTR4args,
	.handle = nfs4_op_removexattr,
	.encode = enc_change_info,
};
