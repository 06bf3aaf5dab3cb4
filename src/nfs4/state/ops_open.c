// SPDX-License-Identifier: MIT
/*
 * OPEN (RFC 8881 §18.16, RFC 7530 §16.16), OPEN_CONFIRM (RFC 7530
 * §16.18), OPEN_DOWNGRADE (RFC 8881 §18.18) and CLOSE (§18.2).
 *
 * OPEN runs in three steps: under the client's mutex the owner, its 4.0
 * seqid and the grace rules; without it the filesystem work (lookup or
 * create, type and permission checks); under the client's mutex again
 * the share reservation check across every open of the file, NFSv4's
 * and other protocols' (in the shared file state), and the open
 * stateid.
 */
#include <errno.h>
#include <string.h>

#include "core/log.h"
#include "nfs4/attrs.h"
#include "nfs4/nfs4_int.h"
#include "nfs4/state/ops.h"
#include "nfs4/state/state_int.h"

struct OPEN4args {
	uint32_t seqid;
	uint32_t share_access;
	uint32_t share_deny;
	clientid4 clientid;
	struct nfs4_opaque owner;
	uint32_t opentype;
	uint32_t createmode;
	struct fattr4 createattrs;
	struct verifier4 createverf;
	uint32_t claim;
	struct nfs4_opaque file;
	uint32_t delegate_type;
	struct stateid4 delegate_stateid;
};

struct OPEN4resok {
	struct nfs4_seqres seq;          /* first: see nfs4_seqres_cache */
	struct stateid4 stateid;
	struct change_info4 cinfo;
	uint32_t rflags;
	struct bitmap4 attrset;
	uint32_t delegation_type;
	uint32_t ond_why;
	struct stateid4 deleg_stateid;
	bool deleg_recall;
};

struct OPEN_CONFIRM4args {
	struct stateid4 open_stateid;
	uint32_t seqid;
};

struct OPEN_DOWNGRADE4args {
	struct stateid4 open_stateid;
	uint32_t seqid;
	uint32_t share_access;
	uint32_t share_deny;
};

struct CLOSE4args {
	uint32_t seqid;
	struct stateid4 open_stateid;
};

/* OPEN_CONFIRM, OPEN_DOWNGRADE and CLOSE answer one stateid. */
struct stateid_res {
	struct nfs4_seqres seq;
	struct stateid4 stateid;
};

static bool dec_OPEN4args(struct xdr_buf *x, void *p)
{
	struct OPEN4args *a = p;

	if (!xdr_dec_u32(x, &a->seqid) || !xdr_dec_u32(x, &a->share_access) ||
	    !xdr_dec_u32(x, &a->share_deny) ||
	    !nfs4_dec_owner4(x, &a->clientid, &a->owner) ||
	    !xdr_dec_u32(x, &a->opentype))
		return false;
	switch (a->opentype) {
	case OPEN4_NOCREATE:
		break;
	case OPEN4_CREATE:
		if (!xdr_dec_u32(x, &a->createmode))
			return false;
		switch (a->createmode) {
		case UNCHECKED4:
		case GUARDED4:
			if (!nfs4_dec_fattr4(x, &a->createattrs))
				return false;
			break;
		case EXCLUSIVE4:
			if (!nfs4_dec_verifier4(x, &a->createverf))
				return false;
			break;
		case EXCLUSIVE4_1:
			if (!nfs4_dec_verifier4(x, &a->createverf) ||
			    !nfs4_dec_fattr4(x, &a->createattrs))
				return false;
			break;
		default:
			return false;
		}
		break;
	default:
		return false;
	}
	if (!xdr_dec_u32(x, &a->claim))
		return false;
	switch (a->claim) {
	case CLAIM_NULL:
	case CLAIM_DELEGATE_PREV:
		return nfs4_dec_component4(x, &a->file);
	case CLAIM_PREVIOUS:
		return xdr_dec_u32(x, &a->delegate_type);
	case CLAIM_DELEGATE_CUR:
		return nfs4_dec_stateid4(x, &a->delegate_stateid) &&
		       nfs4_dec_component4(x, &a->file);
	case CLAIM_FH:
	case CLAIM_DELEG_PREV_FH:
		return true;
	case CLAIM_DELEG_CUR_FH:
		return nfs4_dec_stateid4(x, &a->delegate_stateid);
	default:
		return false;
	}
}

/* nfsace4 (RFC 8881 §6.2.1) of a delegation's permissions, but its
 * empty who: type ACE4_ACCESS_ALLOWED_ACE_TYPE (0), no flags, no access */
static const uint8_t no_ace[12];

/* open_delegation4 (RFC 8881 §18.16.2): OPEN's and WANT_DELEGATION's. */
static bool enc_delegation(struct xdr_buf *x, uint32_t type, uint32_t why,
			   const struct stateid4 *sid, bool recall)
{
	if (!xdr_enc_u32(x, type))
		return false;
	if (type == OPEN_DELEGATE_READ || type == OPEN_DELEGATE_WRITE) {
		/* open_read_delegation4 / open_write_delegation4: the
		 * stateid, recall, (write: no space limit,) and an nfsace4
		 * that grants nothing the client must not ask the server
		 * about (as knfsd: ACCESS is still sent) */
		if (!nfs4_enc_stateid4(x, sid) || !xdr_enc_bool(x, recall))
			return false;
		if (type == OPEN_DELEGATE_WRITE &&
		    !(xdr_enc_u32(x, NFS_LIMIT_SIZE) &&
		      xdr_enc_u64(x, UINT64_MAX)))
			return false;
		return xdr_enc_opaque_fixed(x, no_ace, sizeof(no_ace)) &&
		       xdr_enc_opaque(x, NULL, 0);            /* who */
	}
	if (type != OPEN_DELEGATE_NONE_EXT)
		return true;
	if (!xdr_enc_u32(x, why))
		return false;
	if (why == WND4_CONTENTION || why == WND4_RESOURCE)
		return xdr_enc_bool(x, false);
	return true;
}

static bool enc_OPEN4resok(struct xdr_buf *x, uint32_t status, const void *p)
{
	const struct OPEN4resok *r = p;

	(void)status;
	return nfs4_enc_stateid4(x, &r->stateid) &&
	       nfs4_enc_change_info4(x, &r->cinfo) &&
	       xdr_enc_u32(x, r->rflags) && nfs4_enc_bitmap4(x, &r->attrset) &&
	       enc_delegation(x, r->delegation_type, r->ond_why,
			      &r->deleg_stateid, r->deleg_recall);
}

static bool enc_stateid_res(struct xdr_buf *x, uint32_t status, const void *p)
{
	const struct stateid_res *r = p;

	(void)status;
	return nfs4_enc_stateid4(x, &r->stateid);
}

static uint32_t resource(const struct nfs4_compound *c)
{
	return c->minorversion ? NFS4ERR_DELAY : NFS4ERR_RESOURCE;
}

/* share_access/share_deny of OPEN (RFC 8881 §18.16.3): the access bits
 * must say READ, WRITE or both; 4.1 adds the delegation wants. */
static uint32_t check_share(const struct nfs4_compound *c, uint32_t access,
			    uint32_t deny)
{
	const uint32_t hints =
		OPEN4_SHARE_ACCESS_WANT_SIGNAL_DELEG_WHEN_RESRC_AVAIL |
		OPEN4_SHARE_ACCESS_WANT_PUSH_DELEG_WHEN_UNCONTENDED;
	const uint32_t known = OPEN4_SHARE_ACCESS_BOTH |
			       OPEN4_SHARE_ACCESS_WANT_DELEG_MASK;
	uint32_t want = access & OPEN4_SHARE_ACCESS_WANT_DELEG_MASK;
	uint32_t rest = access & ~known;

	if ((access & OPEN4_SHARE_ACCESS_BOTH) == 0 ||
	    deny & ~(uint32_t)OPEN4_SHARE_DENY_BOTH)
		return NFS4ERR_INVAL;
	if (c->minorversion == 0)
		return access & ~(uint32_t)OPEN4_SHARE_ACCESS_BOTH
			       ? NFS4ERR_INVAL
			       : NFS4_OK;
	if (want > OPEN4_SHARE_ACCESS_WANT_CANCEL || (rest & ~hints))
		return NFS4ERR_INVAL;
	return NFS4_OK;
}

/* The grace and delegation rules of the claim (RFC 8881 §9.11, §10.2.1):
 * a delegation held now may be claimed (the stateid is checked against
 * the file in open_state); one from before the client's own restart may
 * not: delegations are not kept across it (CLAIM_DELEGATE_PREV and
 * CLAIM_DELEG_PREV_FH, with DELEGPURGE, are NOTSUPP, as knfsd's). */
static uint32_t check_claim(const struct nfs4_compound *c,
			    const struct OPEN4args *a,
			    const struct nfs4_client *cl)
{
	uint32_t status;

	switch (a->claim) {
	case CLAIM_NULL:
		return nfs4_grace_check_new_cl(cl);
	case CLAIM_FH:
		if (c->minorversion == 0)
			return NFS4ERR_BADXDR;
		return nfs4_grace_check_new_cl(cl);
	case CLAIM_PREVIOUS:
		if (a->delegate_type > OPEN_DELEGATE_WRITE)
			return NFS4ERR_INVAL;
		return nfs4_grace_check_reclaim(cl);
	case CLAIM_DELEGATE_CUR:
		return NFS4_OK;
	case CLAIM_DELEG_CUR_FH:
		return c->minorversion ? NFS4_OK : NFS4ERR_BADXDR;
	case CLAIM_DELEG_PREV_FH:
		if (c->minorversion == 0)
			return NFS4ERR_BADXDR;
		return NFS4ERR_NOTSUPP;
	case CLAIM_DELEGATE_PREV:
		return NFS4ERR_NOTSUPP;
	default:
		status = nfs4_grace_check_reclaim(cl);
		return status == NFS4_OK ? NFS4ERR_RECLAIM_BAD : status;
	}
}

static enum vfs_createmode vfs_how(uint32_t createmode)
{
	switch (createmode) {
	case UNCHECKED4:
		return VFS_CREATE_UNCHECKED;
	case GUARDED4:
		return VFS_CREATE_GUARDED;
	default:
		return VFS_CREATE_EXCLUSIVE;
	}
}

struct open_fs {
	struct vfs_obj *obj;      /* owned reference to the file */
	bool created;
	bool truncate;            /* UNCHECKED on an existing file, size 0 */
	struct vfs_sattr sa;
};

/* CLAIM_NULL: look up or create @a->file in the current directory. */
static uint32_t open_by_name(struct nfs4_compound *c,
			     const struct OPEN4args *a, struct open_fs *fs,
			     struct OPEN4resok *r)
{
	bool create = a->opentype == OPEN4_CREATE;
	struct bitmap4 set;
	struct vfs_obj *dir;
	uint32_t status;
	int err;

	if (c->cur.pseudo)
		return create ? NFS4ERR_ROFS : NFS4ERR_NOENT;
	status = nfs4_cur_dir(c, create, &dir);
	if (status != NFS4_OK)
		return status;
	err = nfs4_name_check(&a->file);
	if (err)
		return nfs4_status(OP_OPEN, err);
	memset(&set, 0, sizeof(set));
	if (create && a->createmode != EXCLUSIVE4) {
		status = nfs4_fattr4_to_sattr(&a->createattrs, &fs->sa, &set);
		if (status != NFS4_OK)
			return status;
		/* the times hold the verifier (suppattr_exclcreat) */
		if (a->createmode == EXCLUSIVE4_1 &&
		    (fs->sa.atime_how != VFS_TIME_DONT ||
		     fs->sa.mtime_how != VFS_TIME_DONT))
			return NFS4ERR_INVAL;
	}
	r->cinfo.before = nfs4_dir_change(dir);
	err = vfs_lookup(dir, (const char *)a->file.data, a->file.len,
			 &fs->obj);
	if (!create) {
		r->cinfo.after = r->cinfo.before;
		return err ? nfs4_status(OP_OPEN, err) : NFS4_OK;
	}
	if (err == 0) {
		switch (a->createmode) {
		case GUARDED4:
			return NFS4ERR_EXIST;
		case UNCHECKED4:
			/* RFC 7530 §16.16.5, RFC 8881 §18.16.3: createattrs
			 * are not used on an existing file, except that a
			 * size of zero truncates it (O_CREAT|O_TRUNC) */
			fs->truncate = fs->sa.set_size && fs->sa.size == 0;
			if (fs->truncate)
				nfs4_bitmap_set(&r->attrset, FATTR4_SIZE);
			r->cinfo.after = r->cinfo.before;
			return NFS4_OK;
		default:
			/* a retried exclusive create: same verifier? */
			vfs_obj_put(fs->obj);
			fs->obj = NULL;
			break;
		}
	} else if (err != -ENOENT) {
		return nfs4_status(OP_OPEN, err);
	}
	err = vfs_create(dir, (const char *)a->file.data, a->file.len,
			 vfs_how(a->createmode),
			 vfs_how(a->createmode) == VFS_CREATE_EXCLUSIVE
				 ? NULL
				 : &fs->sa,
			 a->createverf.data, &fs->obj);
	if (err)
		return nfs4_status(OP_OPEN, err);
	fs->created = true;
	if (vfs_how(a->createmode) == VFS_CREATE_EXCLUSIVE) {
		nfs4_bitmap_set(&r->attrset, FATTR4_TIME_ACCESS);
		nfs4_bitmap_set(&r->attrset, FATTR4_TIME_MODIFY);
		if (a->createmode == EXCLUSIVE4_1 && set.len) {
			err = vfs_setattr(fs->obj, &fs->sa);
			if (err)
				return nfs4_status(OP_OPEN, err);
		}
	}
	if (a->createmode != EXCLUSIVE4) {
		uint32_t i;

		for (i = 0; i < NFS4_BITMAP_WORDS && i < set.len; i++)
			r->attrset.map[i] |= set.map[i];
		if (set.len > r->attrset.len)
			r->attrset.len = set.len;
	}
	r->cinfo.after = nfs4_dir_change(dir);
	return NFS4_OK;
}

/* The file must be a regular file the caller may open as asked. */
static uint32_t open_check_file(struct nfs4_compound *c, uint32_t access,
				const struct open_fs *fs)
{
	struct vfs_attr va;
	uint32_t want = 0, granted = 0;
	bool ro = nfs4_fh_ro(&c->cur);
	int err;

	err = vfs_getattr(fs->obj, &va);
	if (err)
		return nfs4_status(OP_OPEN, err);
	switch (va.type) {
	case VFS_REG:
		break;
	case VFS_DIR:
		return NFS4ERR_ISDIR;
	default:
		/* as knfsd: 4.0 has SYMLINK, 4.1 WRONG_TYPE */
		return c->minorversion ? NFS4ERR_WRONG_TYPE : NFS4ERR_SYMLINK;
	}
	if ((access & OPEN4_SHARE_ACCESS_WRITE) && ro)
		return NFS4ERR_ROFS;
	/* a file this OPEN created is the caller's, whatever its mode */
	if (fs->created)
		return NFS4_OK;
	if (access & OPEN4_SHARE_ACCESS_READ)
		want |= VFS_ACCESS_READ | VFS_ACCESS_EXECUTE;
	if (access & OPEN4_SHARE_ACCESS_WRITE)
		want |= VFS_ACCESS_MODIFY;
	err = vfs_access(fs->obj, want, ro, &granted);
	if (err)
		return nfs4_status(OP_OPEN, err);
	/* read-if-exec, as knfsd: executables are opened for read */
	if ((access & OPEN4_SHARE_ACCESS_READ) &&
	    !(granted & (VFS_ACCESS_READ | VFS_ACCESS_EXECUTE)))
		return NFS4ERR_ACCESS;
	if ((access & OPEN4_SHARE_ACCESS_WRITE) &&
	    !(granted & VFS_ACCESS_MODIFY))
		return NFS4ERR_ACCESS;
	return NFS4_OK;
}

/*
 * Under the client's mutex: the share check against every open of the
 * file, all protocols' (the shared file state), and the open stateid,
 * new or upgraded. A claim of a delegation held (CLAIM_DELEGATE_CUR,
 * CLAIM_DELEG_CUR_FH) must name one of this client on this file.
 */
static uint32_t open_state(struct nfs4_compound *c, struct nfs4_owner *o,
			   const struct OPEN4args *a, struct vfs_obj *obj,
			   uint32_t access, struct OPEN4resok *r,
			   bool *new_open)
{
	struct state_file *f;
	struct nfs4_open *op;
	int ret;

	if (o->dead || o->client->dead)
		return c->minorversion ? NFS4ERR_BADSESSION : NFS4ERR_EXPIRED;
	f = state_file_get(obj);
	if (!f)
		return resource(c);
	if (a->claim == CLAIM_DELEGATE_CUR || a->claim == CLAIM_DELEG_CUR_FH) {
		struct nfs4_stid *d;
		uint32_t st = nfs4_stid_lookup_in(c, o->client,
						  &a->delegate_stateid,
						  1u << NFS4_STID_DELEG, false,
						  &d);

		if (st == NFS4_OK && d->file != f)
			st = NFS4ERR_BAD_STATEID;
		if (st != NFS4_OK) {
			state_file_put(f);
			return st;
		}
	}
	op = nfs4_open_find(o, f);
	if (op) {
		ret = nfs4_open_upgrade(op, access, a->share_deny);
		if (ret == 0)
			nfs4_stid_bump(&op->sid);
	} else {
		ret = nfs4_open_new(o, f, access, a->share_deny, &op);
		if (ret == 0)
			*new_open = true;
	}
	state_file_put(f);
	if (ret == -EBUSY)
		return NFS4ERR_SHARE_DENIED;
	if (ret == -EINPROGRESS)
		return NFS4ERR_DELAY; /* a courtesy client's, expiring */
	if (ret < 0)
		return resource(c);
	nfs4_stid_to_wire(&op->sid, &r->stateid);
	r->rflags = OPEN4_RESULT_LOCKTYPE_POSIX;
	if (c->minorversion == 0 && !o->confirmed)
		r->rflags |= OPEN4_RESULT_CONFIRM;
	return NFS4_OK;
}

/*
 * The delegation of an OPEN done (deleg.c decides): none for a
 * claim of one held, the one reclaimed for CLAIM_PREVIOUS. Takes the
 * client's mutex; the open is looked up again (its client may have
 * expired meanwhile).
 */
static void open_deleg(struct nfs4_compound *c, struct nfs4_client *cl,
		       const struct OPEN4args *a, const struct open_fs *fs,
		       struct OPEN4resok *r)
{
	uint32_t want = a->share_access & OPEN4_SHARE_ACCESS_WANT_DELEG_MASK;
	struct nfs4_fh file = {
		.set = true,
		.export = c->cur.export,
		.opts = c->cur.opts,
		.obj = fs->obj,
	};
	struct nfs4_deleg_offer off = {.type = OPEN_DELEGATE_NONE};
	struct nfs_fh4 fh;
	struct nfs4_stid *s;

	r->delegation_type = OPEN_DELEGATE_NONE;
	if (a->claim == CLAIM_DELEGATE_CUR || a->claim == CLAIM_DELEG_CUR_FH)
		return;
	/* A file this OPEN created gets none unless asked for: it is mostly
	 * written once and removed (object files, temporaries), and the
	 * Linux client returns a delegation before each REMOVE, which cost
	 * the kernel client's create/stat/remove workload one DELEGRETURN
	 * per file (4580 COMPOUNDs without delegations, 5079 with). A later
	 * open for reading gets one. */
	if (fs->created && want == OPEN4_SHARE_ACCESS_WANT_NO_PREFERENCE)
		return;
	/* the handle only when a delegation may come of it */
	fh.len = 0;
	if (c->cur.export && !c->cur.export->wide.no_deleg &&
	    want != OPEN4_SHARE_ACCESS_WANT_NO_DELEG &&
	    want != OPEN4_SHARE_ACCESS_WANT_CANCEL &&
	    nfs4_fh_of(&file, &fh) != 0) {
		off.type = want ? OPEN_DELEGATE_NONE_EXT : OPEN_DELEGATE_NONE;
		off.why = WND4_RESOURCE;
	} else {
		struct vfs_attr va = {0};

		/* a write delegation's CB_GETATTR base, read before the
		 * client's mutex is taken (no syscall under it) */
		if (a->share_access & OPEN4_SHARE_ACCESS_WRITE)
			(void)vfs_getattr(file.obj, &va);
		nfs4_client_lock(cl);
		s = nfs4_stid_find_other(cl, r->stateid.other);
		if (s && s->type == NFS4_STID_OPEN) {
			struct state_holder h = nfs4_open_holder(
				nfs4_container_of(s, struct nfs4_open, sid));

			nfs4_deleg_offer(c, cl, s->file, &h,
					 a->share_access &
						 OPEN4_SHARE_ACCESS_BOTH,
					 a->share_access,
					 a->claim == CLAIM_PREVIOUS
						 ? a->delegate_type
						 : 0,
					 va.change, &fh, &off);
		}
		pthread_mutex_unlock(&cl->mu);
	}
	r->delegation_type = off.type;
	r->ond_why = off.why;
	r->deleg_stateid = off.stateid;
	r->deleg_recall = off.recall;
}

/* Undo a new open whose truncation failed (looked up again: the client
 * may have expired meanwhile). */
static void open_undo(struct nfs4_client *cl, const struct stateid4 *sid)
{
	struct nfs4_stid *s;

	nfs4_client_lock(cl);
	s = nfs4_stid_find_other(cl, sid->other);
	if (s && s->type == NFS4_STID_OPEN)
		nfs4_open_free(nfs4_container_of(s, struct nfs4_open, sid));
	pthread_mutex_unlock(&cl->mu);
}

/**
 * nfs4_op_open() - see the file comment. Status per RFC 8881 §18.16.3
 * and §15.2; 4.0 seqid replays answer from the owner's replay cache. The
 * client (pinned for the whole op) and the owner (pinned across the
 * filesystem work) are the only state locked.
 */
uint32_t nfs4_op_open(struct nfs4_compound *c, void *args, void *res)
{
	struct OPEN4args *a = args;
	struct OPEN4resok *r = res;
	uint32_t access = a->share_access & OPEN4_SHARE_ACCESS_BOTH;
	struct open_fs fs = {0};
	struct nfs4_client *cl;
	struct nfs4_owner *o;
	bool replay, new_open = false;
	clientid4 clid;
	uint32_t status;

	status = check_share(c, a->share_access, a->share_deny);
	if (status != NFS4_OK)
		return status;

	status = nfs4_owner_client(c, a->clientid, &cl);
	if (status != NFS4_OK)
		return status;
	o = nfs4_owner_find(cl, false, a->owner.data, a->owner.len);
	/* an unconfirmed 4.0 owner is replaced, without replay (knfsd) */
	if (o && c->minorversion == 0 && !o->confirmed) {
		nfs4_owner_release(o);
		o = NULL;
	}
	if (o) {
		status = nfs4_seqid_check(c, o, a->seqid, &replay);
		if (replay || status != NFS4_OK)
			goto out_unlock;
	} else {
		o = nfs4_owner_new(cl, false, a->owner.data, a->owner.len);
		if (!o) {
			status = resource(c);
			goto out_unlock;
		}
		o->seqid = a->seqid;
	}
	nfs4_owner_get(o);
	clid = cl->clientid;
	if (c->minorversion == 0 && c->grant_key != cl) {
		c->grant_key = cl;
		nfs4_conn40_note(c->call->conn, cl);
	}
	status = check_claim(c, a, cl);
	/* a reclaim needs no OPEN_CONFIRM (as knfsd): the client's reclaim
	 * compound has no GETFH to confirm with */
	if (status == NFS4_OK && a->claim == CLAIM_PREVIOUS)
		o->confirmed = true;
	pthread_mutex_unlock(&cl->mu);
	if (status != NFS4_OK)
		goto out_seqid;

	if (a->claim == CLAIM_NULL || a->claim == CLAIM_DELEGATE_CUR) {
		status = open_by_name(c, a, &fs, r);
	} else if (c->cur.pseudo || !c->cur.obj) {
		status = NFS4ERR_ISDIR;
	} else {
		fs.obj = c->cur.obj;
		vfs_obj_get(fs.obj);
	}
	if (status == NFS4_OK)
		status = open_check_file(c, access, &fs);
	if (status != NFS4_OK)
		goto out_seqid;
	/* SMB oplocks and other clients' delegations this open conflicts
	 * with break first; the client retries the OPEN meanwhile (no
	 * client lock is held here: the break goes out on this thread). */
	{
		struct state_grant_ask ask = {
			.op = STATE_OP_OPEN,
			.flags = STATE_ASK_DATA,
			.key = cl,
			.access = access & STATE_SHARE_MASK,
			.deny = a->share_deny & STATE_SHARE_MASK,
		};

		if (access & OPEN4_SHARE_ACCESS_WRITE)
			ask.flags |= STATE_ASK_WRITE;
		if (fs.truncate)
			ask.flags |= STATE_ASK_OVERWRITE;
		if (state_grant_break_obj(fs.obj, &ask, NULL)) {
			status = NFS4ERR_DELAY;
			goto out_seqid;
		}
	}

	nfs4_client_lock(cl);
	status = open_state(c, o, a, fs.obj, access, r, &new_open);
	pthread_mutex_unlock(&cl->mu);
	if (status == NFS4_OK && a->claim == CLAIM_PREVIOUS)
		atomic_fetch_add(&nfs4_st.reclaimed_opens, 1);
	if (status != NFS4_OK)
		goto out_seqid;
	if (fs.truncate) {
		struct vfs_sattr sz = {.set_size = true, .size = 0};
		int err = vfs_setattr(fs.obj, &sz);

		if (err) {
			if (new_open)
				open_undo(cl, &r->stateid);
			status = nfs4_status(OP_OPEN, err);
			goto out_seqid;
		}
	}
	if (a->claim == CLAIM_PREVIOUS)
		log_debug("nfs4: client %016llx reclaimed an open",
			  (unsigned long long)clid);
	open_deleg(c, cl, a, &fs, r);
	if (a->claim == CLAIM_NULL || a->claim == CLAIM_DELEGATE_CUR) {
		/* OPEN makes the opened file the current filehandle */
		nfs4_fh_set_obj(&c->cur, c->cur.export, c->cur.opts, fs.obj);
		fs.obj = NULL;
	}
	nfs4_set_current_stateid(c, &r->stateid);

out_seqid:
	if (fs.obj)
		vfs_obj_put(fs.obj);
	nfs4_client_lock(cl);
	nfs4_seqid_done(c, &r->seq, o, a->seqid, status);
	nfs4_owner_put(o);
out_unlock:
	nfs4_client_unlock_put(cl);
	return status;
}

const struct nfs4_op nfs4_op_desc_open = {
	.name = "OPEN",
	.minor_min = 0,
	.minor_max = 255,
	.flags = NFS4_OP_NEEDS_FH,
	.args_size = sizeof(struct OPEN4args),
	.res_size = sizeof(struct OPEN4resok),
	.decode = dec_OPEN4args,
	.handle = nfs4_op_open,
	.encode = enc_OPEN4resok,
	.release = nfs4_seqres_release,
	.cache = nfs4_seqres_cache,
};

/*
 * The open named by @sid for a 4.0/4.1 open-owner op: looked up (a CLOSEd
 * one too, for a replay), then the owner's seqid rules, then the stateid's
 * own seqid. *@op is NULL when the status ends the op. *@cl is the
 * stateid's client, pinned and locked (NULL when not found): the caller
 * releases it with nfs4_client_unlock_put().
 */
static uint32_t open_op_begin(struct nfs4_compound *c,
			      const struct stateid4 *sid, uint32_t seqid,
			      struct nfs4_open **op, bool *replay,
			      struct nfs4_client **cl)
{
	struct nfs4_stid *s;
	struct nfs4_open *o;
	uint32_t status;

	*op = NULL;
	*replay = false;
	*cl = NULL;
	status = nfs4_stid_lookup(c, sid,
				  1u << NFS4_STID_OPEN | 1u << NFS4_STID_CLOSED,
				  false, &s);
	if (status != NFS4_OK)
		return status;
	*cl = s->client;
	o = nfs4_container_of(s, struct nfs4_open, sid);
	if (s->type == NFS4_STID_CLOSED) {
		/* only a retransmitted CLOSE may still name it; a new
		 * seqid would drop it (and @o) */
		if (c->minorversion == 0 && seqid == o->owner->seqid) {
			status = nfs4_seqid_check(c, o->owner, seqid, replay);
			if (*replay || status != NFS4_OK)
				return status;
		}
		return NFS4ERR_BAD_STATEID;
	}
	status = nfs4_seqid_check(c, o->owner, seqid, replay);
	if (*replay || status != NFS4_OK)
		return status;
	*op = o;
	if (state_file_obj(s->file) != c->cur.obj)
		return NFS4ERR_BAD_STATEID;
	return nfs4_stid_check_seqid(s, sid, c->minorversion);
}

static bool dec_OPEN_CONFIRM4args(struct xdr_buf *x, void *p)
{
	struct OPEN_CONFIRM4args *a = p;

	return nfs4_dec_stateid4(x, &a->open_stateid) &&
	       xdr_dec_u32(x, &a->seqid);
}

/**
 * nfs4_op_open_confirm() - RFC 7530 §16.18: the first OPEN of a new
 * owner is confirmed with the owner's next seqid; the stateid advances.
 */
uint32_t nfs4_op_open_confirm(struct nfs4_compound *c, void *args, void *res)
{
	struct OPEN_CONFIRM4args *a = args;
	struct stateid_res *r = res;
	struct nfs4_open *op;
	struct nfs4_owner *o;
	struct nfs4_client *cl;
	uint32_t status;
	bool replay;

	status =
		open_op_begin(c, &a->open_stateid, a->seqid, &op, &replay, &cl);
	if (!op)
		goto out;
	o = op->owner;
	if (status == NFS4_OK && o->confirmed)
		status = NFS4ERR_BAD_STATEID;
	if (status == NFS4_OK) {
		o->confirmed = true;
		nfs4_stid_bump(&op->sid);
		nfs4_stid_to_wire(&op->sid, &r->stateid);
	}
	nfs4_seqid_done(c, &r->seq, o, a->seqid, status);
out:
	if (cl)
		nfs4_client_unlock_put(cl);
	return status;
}

const struct nfs4_op nfs4_op_desc_open_confirm = {
	.name = "OPEN_CONFIRM",
	.minor_min = 0,
	.minor_max = 0,
	.flags = NFS4_OP_NEEDS_FH,
	.args_size = sizeof(struct OPEN_CONFIRM4args),
	.res_size = sizeof(struct stateid_res),
	.decode = dec_OPEN_CONFIRM4args,
	.handle = nfs4_op_open_confirm,
	.encode = enc_stateid_res,
	.release = nfs4_seqres_release,
	.cache = nfs4_seqres_cache,
};

static bool dec_OPEN_DOWNGRADE4args(struct xdr_buf *x, void *p)
{
	struct OPEN_DOWNGRADE4args *a = p;

	return nfs4_dec_stateid4(x, &a->open_stateid) &&
	       xdr_dec_u32(x, &a->seqid) &&
	       xdr_dec_u32(x, &a->share_access) &&
	       xdr_dec_u32(x, &a->share_deny);
}

/* Forget the modes that the new (smaller) union no longer covers. */
static uint8_t bmap_reset(uint8_t bmap, uint32_t now)
{
	uint32_t i;

	for (i = 0; i < 4; i++)
		if ((i & now) != i)
			bmap &= (uint8_t)~(1u << i);
	return (uint8_t)(bmap | 1u << now);
}

/* 4.0 owners must be confirmed before their stateids are used. */
static uint32_t check_confirmed(const struct nfs4_compound *c,
				const struct nfs4_open *op)
{
	if (c->minorversion == 0 && !op->owner->confirmed)
		return NFS4ERR_BAD_STATEID;
	return NFS4_OK;
}

/**
 * nfs4_op_open_downgrade() - RFC 8881 §18.18.3: reduce the open's access
 * and deny to modes it was opened with (INVAL otherwise).
 */
uint32_t nfs4_op_open_downgrade(struct nfs4_compound *c, void *args,
				void *res)
{
	struct OPEN_DOWNGRADE4args *a = args;
	struct stateid_res *r = res;
	uint32_t access = a->share_access & OPEN4_SHARE_ACCESS_BOTH;
	uint32_t deny = a->share_deny;
	struct nfs4_open *op;
	struct nfs4_client *cl;
	uint32_t status;
	bool replay;

	status =
		open_op_begin(c, &a->open_stateid, a->seqid, &op, &replay, &cl);
	if (!op)
		goto out;
	if (status == NFS4_OK)
		status = check_confirmed(c, op);
	if (status == NFS4_OK &&
	    (access == 0 || deny > OPEN4_SHARE_DENY_BOTH ||
	     (c->minorversion == 0 &&
	      a->share_access & ~(uint32_t)OPEN4_SHARE_ACCESS_BOTH) ||
	     !(op->access_bmap & (1u << access)) ||
	     !(op->deny_bmap & (1u << deny))))
		status = NFS4ERR_INVAL;
	if (status == NFS4_OK) {
		nfs4_open_downgrade(op, access, deny);
		op->access_bmap = bmap_reset(op->access_bmap, access);
		op->deny_bmap = bmap_reset(op->deny_bmap, deny);
		nfs4_stid_bump(&op->sid);
		nfs4_stid_to_wire(&op->sid, &r->stateid);
		nfs4_set_current_stateid(c, &r->stateid);
	}
	nfs4_seqid_done(c, &r->seq, op->owner, a->seqid, status);
out:
	if (cl)
		nfs4_client_unlock_put(cl);
	return status;
}

const struct nfs4_op nfs4_op_desc_open_downgrade = {
	.name = "OPEN_DOWNGRADE",
	.minor_min = 0,
	.minor_max = 255,
	.flags = NFS4_OP_NEEDS_FH,
	.args_size = sizeof(struct OPEN_DOWNGRADE4args),
	.res_size = sizeof(struct stateid_res),
	.decode = dec_OPEN_DOWNGRADE4args,
	.handle = nfs4_op_open_downgrade,
	.encode = enc_stateid_res,
	.release = nfs4_seqres_release,
	.cache = nfs4_seqres_cache,
};

static bool dec_CLOSE4args(struct xdr_buf *x, void *p)
{
	struct CLOSE4args *a = p;

	return xdr_dec_u32(x, &a->seqid) &&
	       nfs4_dec_stateid4(x, &a->open_stateid);
}

/**
 * nfs4_op_close() - RFC 8881 §18.2.3: release the open (LOCKS_HELD while
 * any of its lock stateids holds a range). 4.0 answers the advanced
 * stateid, 4.1 the invalid special stateid (§18.2.4).
 */
uint32_t nfs4_op_close(struct nfs4_compound *c, void *args, void *res)
{
	struct CLOSE4args *a = args;
	struct stateid_res *r = res;
	struct nfs4_owner *o;
	struct nfs4_open *op;
	struct nfs4_list *n;
	struct nfs4_client *cl;
	uint32_t status;
	bool replay;

	status =
		open_op_begin(c, &a->open_stateid, a->seqid, &op, &replay, &cl);
	if (!op)
		goto out;
	o = op->owner;
	if (status == NFS4_OK)
		status = check_confirmed(c, op);
	for (n = op->lockstates.next;
	     status == NFS4_OK && n != &op->lockstates; n = n->next)
		if (nfs4_lockstate_has_locks(nfs4_container_of(
			    n, struct nfs4_lockstate, open_link)))
			status = NFS4ERR_LOCKS_HELD;
	if (status == NFS4_OK) {
		nfs4_open_close(op, c->minorversion);
		if (c->minorversion == 0) {
			nfs4_stid_to_wire(&op->sid, &r->stateid);
		} else {
			memset(&r->stateid, 0, sizeof(r->stateid));
			r->stateid.seqid = 0xffffffff;
			c->cur.stateid_set = false;
		}
	}
	nfs4_seqid_done(c, &r->seq, o, a->seqid, status);
out:
	if (cl)
		nfs4_client_unlock_put(cl);
	return status;
}

const struct nfs4_op nfs4_op_desc_close = {
	.name = "CLOSE",
	.minor_min = 0,
	.minor_max = 255,
	.flags = NFS4_OP_NEEDS_FH,
	.args_size = sizeof(struct CLOSE4args),
	.res_size = sizeof(struct stateid_res),
	.decode = dec_CLOSE4args,
	.handle = nfs4_op_close,
	.encode = enc_stateid_res,
	.release = nfs4_seqres_release,
	.cache = nfs4_seqres_cache,
};

/* WANT_DELEGATION4args (RFC 8881 §18.49.1) */
struct WANT_DELEGATION4args {
	uint32_t want;
	uint32_t claim;
	uint32_t delegate_type;        /* CLAIM_PREVIOUS */
};

struct WANT_DELEGATION4resok {
	struct nfs4_deleg_offer off;
};

static bool dec_WANT_DELEGATION4args(struct xdr_buf *x, void *p)
{
	struct WANT_DELEGATION4args *a = p;

	if (!xdr_dec_u32(x, &a->want) || !xdr_dec_u32(x, &a->claim))
		return false;
	switch (a->claim) {
	case CLAIM_FH:
	case CLAIM_DELEG_PREV_FH:
		return true;
	case CLAIM_PREVIOUS:
		return xdr_dec_u32(x, &a->delegate_type);
	default:
		return false;
	}
}

static bool enc_WANT_DELEGATION4resok(struct xdr_buf *x, uint32_t status,
				      const void *p)
{
	const struct WANT_DELEGATION4resok *r = p;

	(void)status;
	return enc_delegation(x, r->off.type, r->off.why, &r->off.stateid,
			      r->off.recall);
}

/**
 * nfs4_op_want_delegation() - RFC 8881 §18.49.3: a delegation of the
 * current file without an OPEN, under the same rules as OPEN's
 * (deleg.c): read unless a write delegation is wanted; CLAIM_PREVIOUS
 * reclaims one in the grace period (NO_GRACE after it), CLAIM_FH is a
 * new one (GRACE during it); CLAIM_DELEG_PREV_FH is not supported. No
 * delegation is queued for later (the *_WHEN_* hints are ignored, and the
 * answer says why none was given).
 */
static uint32_t nfs4_op_want_delegation(struct nfs4_compound *c, void *args,
					void *res)
{
	struct WANT_DELEGATION4args *a = args;
	struct WANT_DELEGATION4resok *r = res;
	uint32_t want = a->want & OPEN4_SHARE_ACCESS_WANT_DELEG_MASK;
	uint32_t access = OPEN4_SHARE_ACCESS_READ, status, reclaim = 0;
	struct nfs4_client *cl = c->client;
	struct nfs4_fh file = c->cur;
	struct state_holder h;
	struct state_file *f;
	struct vfs_attr va;
	struct nfs_fh4 fh;

	if (c->cur.pseudo || !c->cur.obj)
		return NFS4ERR_INVAL;
	if (want > OPEN4_SHARE_ACCESS_WANT_CANCEL || !cl)
		return NFS4ERR_INVAL;
	switch (a->claim) {
	case CLAIM_DELEG_PREV_FH:
		return NFS4ERR_NOTSUPP;
	case CLAIM_PREVIOUS:
		if (a->delegate_type != OPEN_DELEGATE_READ &&
		    a->delegate_type != OPEN_DELEGATE_WRITE)
			return NFS4ERR_INVAL;
		status = nfs4_grace_check_reclaim(cl);
		if (status != NFS4_OK)
			return status;
		reclaim = a->delegate_type;
		break;
	default:
		status = nfs4_grace_check_new();
		if (status != NFS4_OK)
			return status;
	}
	if (vfs_getattr(c->cur.obj, &va))
		return NFS4ERR_STALE;
	r->off.type = OPEN_DELEGATE_NONE_EXT;
	if (va.type != VFS_REG) {
		r->off.why = va.type == VFS_DIR ? WND4_IS_DIR
						: WND4_NOT_SUPP_FTYPE;
		return NFS4_OK;
	}
	if (want == OPEN4_SHARE_ACCESS_WANT_WRITE_DELEG ||
	    reclaim == OPEN_DELEGATE_WRITE)
		access |= OPEN4_SHARE_ACCESS_WRITE;
	if (want == OPEN4_SHARE_ACCESS_WANT_NO_PREFERENCE)
		want = OPEN4_SHARE_ACCESS_WANT_ANY_DELEG; /* asked: say why */
	r->off.why = WND4_RESOURCE;
	if (nfs4_fh_of(&file, &fh) != 0)
		return NFS4_OK;
	f = state_file_get(c->cur.obj);
	if (!f)
		return NFS4_OK;
	h.id = cl;
	h.tag = STATE_HOLDER_NFS4;
	nfs4_client_get(cl);
	nfs4_client_lock(cl);
	nfs4_deleg_offer(c, cl, f, &h, access, want, reclaim, va.change, &fh,
			 &r->off);
	nfs4_client_unlock_put(cl);
	state_file_put(f);
	if (r->off.type == OPEN_DELEGATE_NONE)
		r->off.type = OPEN_DELEGATE_NONE_EXT;
	return NFS4_OK;
}

const struct nfs4_op nfs4_op_desc_want_delegation = {
	.name = "WANT_DELEGATION",
	.minor_min = 1,
	.minor_max = 255,
	.flags = NFS4_OP_NEEDS_FH,
	.args_size = sizeof(struct WANT_DELEGATION4args),
	.res_size = sizeof(struct WANT_DELEGATION4resok),
	.decode = dec_WANT_DELEGATION4args,
	.handle = nfs4_op_want_delegation,
	.encode = enc_WANT_DELEGATION4resok,
};
