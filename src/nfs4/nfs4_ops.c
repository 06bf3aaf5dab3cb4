// SPDX-License-Identifier: MIT
/*
 * The NFSv4 operation table (RFC 8881 §16.2.3, RFC 7862 §14), indexed by
 * nfs_opnum4: a row for every operation of minor versions 0 to 2
 * (OP_ACCESS to OP_REMOVEXATTR). Each descriptor `nfs4_op_desc_<op>` is defined
 * once, in the file that implements the op; the operations nasd does not
 * offer have theirs in ops_notsupp.c and ops42_notsupp.c. The references
 * are strong, so a descriptor that is missing fails the link instead of
 * leaving a hole that COMPOUND would answer with NFS4ERR_NOTSUPP.
 */

#include "nfs4/compound.h"

#define NFS4_OP_DECL(name) extern const struct nfs4_op nfs4_op_desc_##name

NFS4_OP_DECL(access);
NFS4_OP_DECL(close);
NFS4_OP_DECL(commit);
NFS4_OP_DECL(create);
NFS4_OP_DECL(delegpurge);
NFS4_OP_DECL(delegreturn);
NFS4_OP_DECL(getattr);
NFS4_OP_DECL(getfh);
NFS4_OP_DECL(link);
NFS4_OP_DECL(lock);
NFS4_OP_DECL(lockt);
NFS4_OP_DECL(locku);
NFS4_OP_DECL(lookup);
NFS4_OP_DECL(lookupp);
NFS4_OP_DECL(nverify);
NFS4_OP_DECL(open);
NFS4_OP_DECL(openattr);
NFS4_OP_DECL(open_confirm);
NFS4_OP_DECL(open_downgrade);
NFS4_OP_DECL(putfh);
NFS4_OP_DECL(putpubfh);
NFS4_OP_DECL(putrootfh);
NFS4_OP_DECL(read);
NFS4_OP_DECL(readdir);
NFS4_OP_DECL(readlink);
NFS4_OP_DECL(remove);
NFS4_OP_DECL(rename);
NFS4_OP_DECL(renew);
NFS4_OP_DECL(restorefh);
NFS4_OP_DECL(savefh);
NFS4_OP_DECL(secinfo);
NFS4_OP_DECL(setattr);
NFS4_OP_DECL(setclientid);
NFS4_OP_DECL(setclientid_confirm);
NFS4_OP_DECL(verify);
NFS4_OP_DECL(write);
NFS4_OP_DECL(release_lockowner);
NFS4_OP_DECL(backchannel_ctl);
NFS4_OP_DECL(bind_conn_to_session);
NFS4_OP_DECL(exchange_id);
NFS4_OP_DECL(create_session);
NFS4_OP_DECL(destroy_session);
NFS4_OP_DECL(free_stateid);
NFS4_OP_DECL(get_dir_delegation);
NFS4_OP_DECL(getdeviceinfo);
NFS4_OP_DECL(getdevicelist);
NFS4_OP_DECL(layoutcommit);
NFS4_OP_DECL(layoutget);
NFS4_OP_DECL(layoutreturn);
NFS4_OP_DECL(secinfo_no_name);
NFS4_OP_DECL(sequence);
NFS4_OP_DECL(set_ssv);
NFS4_OP_DECL(test_stateid);
NFS4_OP_DECL(want_delegation);
NFS4_OP_DECL(destroy_clientid);
NFS4_OP_DECL(reclaim_complete);
NFS4_OP_DECL(allocate);
NFS4_OP_DECL(copy);
NFS4_OP_DECL(copy_notify);
NFS4_OP_DECL(deallocate);
NFS4_OP_DECL(io_advise);
NFS4_OP_DECL(layouterror);
NFS4_OP_DECL(layoutstats);
NFS4_OP_DECL(offload_cancel);
NFS4_OP_DECL(offload_status);
NFS4_OP_DECL(read_plus);
NFS4_OP_DECL(seek);
NFS4_OP_DECL(write_same);
NFS4_OP_DECL(clone);
NFS4_OP_DECL(getxattr);
NFS4_OP_DECL(setxattr);
NFS4_OP_DECL(listxattrs);
NFS4_OP_DECL(removexattr);

/* A designated initializer cannot be parenthesized. */
/* NOLINTNEXTLINE(bugprone-macro-parentheses) */
#define NFS4_OP_ROW(NAME, name) [OP_##NAME] = &nfs4_op_desc_##name

const struct nfs4_op *const nfs4_ops[NFS4_OP_MAX + 1] = {
	NFS4_OP_ROW(ACCESS, access),
	NFS4_OP_ROW(CLOSE, close),
	NFS4_OP_ROW(COMMIT, commit),
	NFS4_OP_ROW(CREATE, create),
	NFS4_OP_ROW(DELEGPURGE, delegpurge),
	NFS4_OP_ROW(DELEGRETURN, delegreturn),
	NFS4_OP_ROW(GETATTR, getattr),
	NFS4_OP_ROW(GETFH, getfh),
	NFS4_OP_ROW(LINK, link),
	NFS4_OP_ROW(LOCK, lock),
	NFS4_OP_ROW(LOCKT, lockt),
	NFS4_OP_ROW(LOCKU, locku),
	NFS4_OP_ROW(LOOKUP, lookup),
	NFS4_OP_ROW(LOOKUPP, lookupp),
	NFS4_OP_ROW(NVERIFY, nverify),
	NFS4_OP_ROW(OPEN, open),
	NFS4_OP_ROW(OPENATTR, openattr),
	NFS4_OP_ROW(OPEN_CONFIRM, open_confirm),
	NFS4_OP_ROW(OPEN_DOWNGRADE, open_downgrade),
	NFS4_OP_ROW(PUTFH, putfh),
	NFS4_OP_ROW(PUTPUBFH, putpubfh),
	NFS4_OP_ROW(PUTROOTFH, putrootfh),
	NFS4_OP_ROW(READ, read),
	NFS4_OP_ROW(READDIR, readdir),
	NFS4_OP_ROW(READLINK, readlink),
	NFS4_OP_ROW(REMOVE, remove),
	NFS4_OP_ROW(RENAME, rename),
	NFS4_OP_ROW(RENEW, renew),
	NFS4_OP_ROW(RESTOREFH, restorefh),
	NFS4_OP_ROW(SAVEFH, savefh),
	NFS4_OP_ROW(SECINFO, secinfo),
	NFS4_OP_ROW(SETATTR, setattr),
	NFS4_OP_ROW(SETCLIENTID, setclientid),
	NFS4_OP_ROW(SETCLIENTID_CONFIRM, setclientid_confirm),
	NFS4_OP_ROW(VERIFY, verify),
	NFS4_OP_ROW(WRITE, write),
	NFS4_OP_ROW(RELEASE_LOCKOWNER, release_lockowner),
	NFS4_OP_ROW(BACKCHANNEL_CTL, backchannel_ctl),
	NFS4_OP_ROW(BIND_CONN_TO_SESSION, bind_conn_to_session),
	NFS4_OP_ROW(EXCHANGE_ID, exchange_id),
	NFS4_OP_ROW(CREATE_SESSION, create_session),
	NFS4_OP_ROW(DESTROY_SESSION, destroy_session),
	NFS4_OP_ROW(FREE_STATEID, free_stateid),
	NFS4_OP_ROW(GET_DIR_DELEGATION, get_dir_delegation),
	NFS4_OP_ROW(GETDEVICEINFO, getdeviceinfo),
	NFS4_OP_ROW(GETDEVICELIST, getdevicelist),
	NFS4_OP_ROW(LAYOUTCOMMIT, layoutcommit),
	NFS4_OP_ROW(LAYOUTGET, layoutget),
	NFS4_OP_ROW(LAYOUTRETURN, layoutreturn),
	NFS4_OP_ROW(SECINFO_NO_NAME, secinfo_no_name),
	NFS4_OP_ROW(SEQUENCE, sequence),
	NFS4_OP_ROW(SET_SSV, set_ssv),
	NFS4_OP_ROW(TEST_STATEID, test_stateid),
	NFS4_OP_ROW(WANT_DELEGATION, want_delegation),
	NFS4_OP_ROW(DESTROY_CLIENTID, destroy_clientid),
	NFS4_OP_ROW(RECLAIM_COMPLETE, reclaim_complete),
	NFS4_OP_ROW(ALLOCATE, allocate),
	NFS4_OP_ROW(COPY, copy),
	NFS4_OP_ROW(COPY_NOTIFY, copy_notify),
	NFS4_OP_ROW(DEALLOCATE, deallocate),
	NFS4_OP_ROW(IO_ADVISE, io_advise),
	NFS4_OP_ROW(LAYOUTERROR, layouterror),
	NFS4_OP_ROW(LAYOUTSTATS, layoutstats),
	NFS4_OP_ROW(OFFLOAD_CANCEL, offload_cancel),
	NFS4_OP_ROW(OFFLOAD_STATUS, offload_status),
	NFS4_OP_ROW(READ_PLUS, read_plus),
	NFS4_OP_ROW(SEEK, seek),
	NFS4_OP_ROW(WRITE_SAME, write_same),
	NFS4_OP_ROW(CLONE, clone),
	NFS4_OP_ROW(GETXATTR, getxattr),
	NFS4_OP_ROW(SETXATTR, setxattr),
	NFS4_OP_ROW(LISTXATTRS, listxattrs),
	NFS4_OP_ROW(REMOVEXATTR, removexattr),
};

const uint32_t nfs4_ops_count = NFS4_OP_MAX + 1;
