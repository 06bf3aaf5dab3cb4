// SPDX-License-Identifier: MIT
/*
 * The NFSv4 operation table (RFC 8881 §16.2.3, RFC 7862 §14), indexed by
 * nfs_opnum4. Each descriptor lives in the file that implements the op;
 * the references are weak so that the table links while some op files do
 * not exist yet: a missing descriptor is a NULL hole, which COMPOUND
 * answers with NFS4ERR_NOTSUPP. The server links libnasd whole, so every
 * op file that exists is in the binary.
 */

#include "nfs4/compound.h"

#define NFS4_OP_WEAK(name)                                                     \
	extern const struct nfs4_op nfs4_op_desc_##name __attribute__((weak))

NFS4_OP_WEAK(access);
NFS4_OP_WEAK(close);
NFS4_OP_WEAK(commit);
NFS4_OP_WEAK(create);
NFS4_OP_WEAK(delegpurge);
NFS4_OP_WEAK(delegreturn);
NFS4_OP_WEAK(getattr);
NFS4_OP_WEAK(getfh);
NFS4_OP_WEAK(link);
NFS4_OP_WEAK(lock);
NFS4_OP_WEAK(lockt);
NFS4_OP_WEAK(locku);
NFS4_OP_WEAK(lookup);
NFS4_OP_WEAK(lookupp);
NFS4_OP_WEAK(nverify);
NFS4_OP_WEAK(open);
NFS4_OP_WEAK(openattr);
NFS4_OP_WEAK(open_confirm);
NFS4_OP_WEAK(open_downgrade);
NFS4_OP_WEAK(putfh);
NFS4_OP_WEAK(putpubfh);
NFS4_OP_WEAK(putrootfh);
NFS4_OP_WEAK(read);
NFS4_OP_WEAK(readdir);
NFS4_OP_WEAK(readlink);
NFS4_OP_WEAK(remove);
NFS4_OP_WEAK(rename);
NFS4_OP_WEAK(renew);
NFS4_OP_WEAK(restorefh);
NFS4_OP_WEAK(savefh);
NFS4_OP_WEAK(secinfo);
NFS4_OP_WEAK(setattr);
NFS4_OP_WEAK(setclientid);
NFS4_OP_WEAK(setclientid_confirm);
NFS4_OP_WEAK(verify);
NFS4_OP_WEAK(write);
NFS4_OP_WEAK(release_lockowner);
NFS4_OP_WEAK(backchannel_ctl);
NFS4_OP_WEAK(bind_conn_to_session);
NFS4_OP_WEAK(exchange_id);
NFS4_OP_WEAK(create_session);
NFS4_OP_WEAK(destroy_session);
NFS4_OP_WEAK(free_stateid);
NFS4_OP_WEAK(get_dir_delegation);
NFS4_OP_WEAK(getdeviceinfo);
NFS4_OP_WEAK(getdevicelist);
NFS4_OP_WEAK(layoutcommit);
NFS4_OP_WEAK(layoutget);
NFS4_OP_WEAK(layoutreturn);
NFS4_OP_WEAK(secinfo_no_name);
NFS4_OP_WEAK(sequence);
NFS4_OP_WEAK(set_ssv);
NFS4_OP_WEAK(test_stateid);
NFS4_OP_WEAK(want_delegation);
NFS4_OP_WEAK(destroy_clientid);
NFS4_OP_WEAK(reclaim_complete);
NFS4_OP_WEAK(allocate);
NFS4_OP_WEAK(copy);
NFS4_OP_WEAK(copy_notify);
NFS4_OP_WEAK(deallocate);
NFS4_OP_WEAK(io_advise);
NFS4_OP_WEAK(layouterror);
NFS4_OP_WEAK(layoutstats);
NFS4_OP_WEAK(offload_cancel);
NFS4_OP_WEAK(offload_status);
NFS4_OP_WEAK(read_plus);
NFS4_OP_WEAK(seek);
NFS4_OP_WEAK(write_same);
NFS4_OP_WEAK(clone);

/*
 * &weak_undefined is NULL; taken through a macro so each row is one line.
 * A designated initializer cannot be parenthesized.
 */
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
};

const uint32_t nfs4_ops_count = NFS4_OP_MAX + 1;
