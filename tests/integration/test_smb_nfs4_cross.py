#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""SMB2/3 and NFSv4.1 against one nasd: share modes and byte-range locks
live in one file state (src/state/), so each protocol sees the other's.

usage: test_smb_nfs4_cross.py NASD

Starts one nasd (random ports in 30000-40000, --grace-time 0) with an
export that is also SMB share 'share', an SMB user of uid 0; the SMB side
is impacket (Debian's, hence /usr/bin/python3), the NFSv4.1 side the raw
client of nfs4_client.py. Checks:
  1. an SMB open without FILE_SHARE_DELETE makes NFSv4 REMOVE (and
     RENAME) of the file FILE_OPEN (RFC 8881 §18.25.4), the file stays;
     with FILE_SHARE_DELETE the REMOVE succeeds, and the SMB open keeps
     reading and writing the unlinked file; an open with no data or
     delete access (attributes only) imposes no share mode;
  2. NFSv4 share_deny WRITE: SMB CREATE for FILE_WRITE_DATA is
     STATUS_SHARING_VIOLATION, for FILE_READ_DATA it succeeds (not when
     it denies READ); an SMB open sharing READ only: NFSv4 OPEN for WRITE,
     or denying READ, is SHARE_DENIED, OPEN for READ succeeds;
  3. an SMB exclusive lock [0,100): overlapping NFSv4 LOCK (READ or
     WRITE) is DENIED with the range (no owner: another protocol's),
     LOCKT agrees, adjacent ranges are granted; an SMB shared lock admits
     NFSv4 read locks only; SMB locks are mandatory for NFSv4 READ and
     WRITE, with an open or anonymous (LOCKED), as for another SMB open
     (STATUS_FILE_LOCK_CONFLICT). An NFSv4 write lock [200,300): SMB LOCK over it is
     STATUS_LOCK_NOT_GRANTED (fail immediately, shared or exclusive), next
     to it granted; a blocking SMB LOCK waits (STATUS_PENDING) and is
     granted after NFSv4 LOCKU; NFSv4 (POSIX) locks are advisory, so SMB
     READ and WRITE of the locked range succeed (src/state/file_state.h,
     as Samba, whose strict locking checks only its own brlock table);
  4. SMB CLOSE, LOGOFF and a dropped TCP connection each release the
     open's share and locks: NFSv4 then opens, locks and removes; NFSv4
     LOCKU and CLOSE release theirs: SMB then opens denying all and locks;
  5. delete pending (FileDispositionInformation or FILE_DELETE_ON_CLOSE):
     new SMB opens get STATUS_DELETE_PENDING while NFSv4 OPEN of the name
     is admitted (nasd's choice: NFSv4 has no such error); the last SMB
     close deletes the file even though the NFSv4 open remains, and
     that open still reads the data; a file made again under the name
     over NFSv4 survives the close of the old delete-pending open;
  6. oplocks (one caching-grant engine, src/state/grant.c): a lone SMB
     open gets the batch oplock it asks for; a second SMB connection's
     open is answered only after the holder acknowledged the
     OPLOCK_BREAK to level II (unsigned, MessageId all ones, its FileId)
     and gets level II itself; an acknowledgement with no break out is
     STATUS_INVALID_OPLOCK_PROTOCOL; an NFSv4 WRITE breaks both level II
     oplocks to none at once (no answer awaited); an NFSv4 OPEN of a file
     under a batch oplock is NFS4ERR_DELAY, breaks it, and succeeds once
     the holder answered; an NFSv4 READ of a file under an exclusive
     oplock is NFS4ERR_DELAY until the holder flushed (answered); the
     holder's close also ends a break;
  7. NFSv4 delegations in the same engine: a read delegation lives with
     an SMB open for reading; an SMB CREATE for writing sends CB_RECALL
     and waits until the holder's DELEGRETURN, then succeeds;
  8. a stop while an SMB open waits for a recall nobody answers: SIGTERM
     ends nasd within 10 s (the parked open is let go, not waited for);
  and the server exits 0 on SIGTERM without a sanitizer report.

Prints "ok - NAME" / "not ok - NAME: DETAIL"; exit 1 on a failure, 77
when impacket is missing.
"""

import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

try:
    from impacket import nt_errors
    from impacket import smb3structs as s3
    from impacket.smbconnection import SMBConnection, SessionError
except ImportError:
    print("test_smb_nfs4_cross: skipped: no impacket (apt-get install "
          "python3-impacket; it needs /usr/bin/python3)")
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nfs4_client as nc  # noqa: E402
import smbtest  # noqa: E402
import test_nfs4_raw as raw  # noqa: E402
from test_nfs4_raw import check, expect, sname, walk_fh  # noqa: E402

SANITIZER_RE = re.compile(
    r"ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|"
    r"SUMMARY: (AddressSanitizer|UndefinedBehaviorSanitizer|LeakSanitizer)")
USER, PASSWORD, SHARE = "crosstester", "Cross-Pw-1", "share"

OK = nt_errors.STATUS_SUCCESS
SHARING_VIOLATION = nt_errors.STATUS_SHARING_VIOLATION
LOCK_NOT_GRANTED = nt_errors.STATUS_LOCK_NOT_GRANTED
FILE_LOCK_CONFLICT = nt_errors.STATUS_FILE_LOCK_CONFLICT
DELETE_PENDING = nt_errors.STATUS_DELETE_PENDING
NOT_FOUND = nt_errors.STATUS_OBJECT_NAME_NOT_FOUND
PENDING = nt_errors.STATUS_PENDING

R, W, D = s3.FILE_SHARE_READ, s3.FILE_SHARE_WRITE, s3.FILE_SHARE_DELETE
RD, WD = s3.FILE_READ_DATA, s3.FILE_WRITE_DATA
RA, DEL = s3.FILE_READ_ATTRIBUTES, s3.DELETE
LOCK_SHARED, LOCK_EXCL, LOCK_UNLOCK, LOCK_FAIL_NOW = 1, 2, 4, 0x10


def nt(st):
    if st is None:
        return "no answer"
    name = nt_errors.ERROR_MESSAGES.get(st, (None,))[0]
    return name or f"0x{st:08x}"


def expect_nt(name, got, want):
    """Check an NTSTATUS: @want one value or a tuple of them."""
    ok = got in want if isinstance(want, tuple) else got == want
    wants = "/".join(nt(w) for w in want) if isinstance(want, tuple) \
        else nt(want)
    return check(name, ok, f"expected {wants}, got {nt(got)}")


class Smb:
    """One SMB connection, session and tree connect (impacket)."""

    def __init__(self, port):
        self.c = SMBConnection("127.0.0.1", "127.0.0.1", sess_port=port,
                               timeout=20)
        # its raw oplock-break reader takes breaks in the clear
        smbtest.plain(self.c)
        self.c.login(USER, PASSWORD)
        self.tid = self.c.connectTree(SHARE)
        self.srv = self.c.getSMBServer()
        self.interims = set()

    def create(self, name, access, share, disp=s3.FILE_OPEN, options=0):
        """-> (NTSTATUS, file id or None)"""
        try:
            fid = self.c.createFile(
                self.tid, name, desiredAccess=access, shareMode=share,
                creationOption=s3.FILE_NON_DIRECTORY_FILE | options,
                creationDisposition=disp, fileAttributes=0)
            return OK, fid
        except SessionError as e:
            return e.getErrorCode(), None

    def close(self, fid):
        try:
            self.c.closeFile(self.tid, fid)
            return OK
        except SessionError as e:
            return e.getErrorCode()

    def read(self, fid, off, n):
        try:
            return OK, self.c.readFile(self.tid, fid, off, n)
        except SessionError as e:
            return e.getErrorCode(), None

    def write(self, fid, off, data):
        try:
            self.c.writeFile(self.tid, fid, data, off)
            return OK
        except SessionError as e:
            return e.getErrorCode()

    def send_lock(self, fid, elems):
        """Send a LOCK of (offset, length, flags) elements (impacket's own
        lock() does not encode them in Python 3); returns the message id."""
        pkt = self.srv.SMB_PACKET()
        pkt["Command"] = s3.SMB2_LOCK
        pkt["TreeID"] = self.tid
        req = s3.SMB2Lock()
        req["FileID"] = fid
        req["LockCount"] = len(elems)
        req["LockSequence"] = 0
        data = b""
        for off, length, flags in elems:
            el = s3.SMB2_LOCK_ELEMENT()
            el["Offset"] = off
            el["Length"] = length
            el["Flags"] = flags
            data += el.getData()
        req["Locks"] = data
        pkt["Data"] = req
        return self.srv.sendSMB(pkt)

    def recv(self, mid):
        """The final status of request @mid (impacket waits past
        STATUS_PENDING)."""
        return self.srv.recvSMB(mid)["Status"]

    def pending_seen(self, mid, timeout=2.0):
        """Is the interim STATUS_PENDING of @mid the next message?"""
        sess = self.srv._NetBIOSSession
        pkt = s3.SMB2Packet(sess.recv_packet(timeout).get_trailer())
        return pkt["MessageID"] == mid and pkt["Status"] == PENDING

    def lock(self, fid, off, length, flags):
        return self.recv(self.send_lock(fid, [(off, length, flags)]))

    def set_delete_pending(self, fid, on=True):
        try:
            self.c.getSMBServer().setInfo(
                self.tid, fid, inputBlob=b"\x01" if on else b"\x00",
                infoType=s3.SMB2_0_INFO_FILE,
                fileInfoClass=s3.SMB2_FILE_DISPOSITION_INFO)
            return OK
        except Exception as e:            # impacket raises its smb3 error
            return getattr(e, "get_error_code", lambda: -1)()

    def send_raw(self, cmd, req):
        """Send command @cmd with body @req on the tree; -> message id."""
        pkt = self.srv.SMB_PACKET()
        pkt["Command"] = cmd
        pkt["TreeID"] = self.tid
        pkt["Data"] = req
        return self.srv.sendSMB(pkt)

    def create_oplock(self, name, access, share, level,
                      disp=s3.FILE_OPEN_IF):
        """Send a CREATE asking for oplock @level; -> message id."""
        req = s3.SMB2Create()
        req["RequestedOplockLevel"] = level
        req["ImpersonationLevel"] = s3.SMB2_IL_IMPERSONATION
        req["DesiredAccess"] = access
        req["ShareAccess"] = share
        req["CreateDisposition"] = disp
        req["CreateOptions"] = s3.FILE_NON_DIRECTORY_FILE
        req["NameLength"] = len(name) * 2
        req["Buffer"] = name.encode("utf-16le")
        req["CreateContextsOffset"] = 0
        req["CreateContextsLength"] = 0
        return self.send_raw(s3.SMB2_CREATE, req)

    def create_result(self, mid):
        """-> (NTSTATUS, oplock level, file id) of CREATE @mid."""
        ans = self.srv.recvSMB(mid)
        if ans["Status"] != OK:
            return ans["Status"], None, None
        r = s3.SMB2Create_Response(ans["Data"])
        fid = r["FileID"]
        return (OK, r["OplockLevel"],
                fid.getData() if hasattr(fid, "getData") else bytes(fid))

    def open_oplock(self, name, access, share, level):
        return self.create_result(
            self.create_oplock(name, access, share, level))

    def next_break(self, timeout=3.0):
        """The next OPLOCK_BREAK notification: (level, file id, header
        flags, session id) or None; other messages are kept for recvSMB."""
        held = self.srv._Connection["OutstandingResponses"]
        pkt = held.pop(0xFFFFFFFFFFFFFFFF, None)
        sess = self.srv._NetBIOSSession
        deadline = time.time() + timeout
        while pkt is None and time.time() < deadline:
            try:
                data = sess.recv_packet(max(0.1, deadline - time.time()))
            except Exception:
                break
            p = s3.SMB2Packet(data.get_trailer())
            if p["MessageID"] == 0xFFFFFFFFFFFFFFFF:
                pkt = p
            else:
                held[p["MessageID"]] = p
        if pkt is None:
            return None
        n = s3.SMB2OplockBreakNotification(pkt["Data"])
        return n["OplockLevel"], n["FileID"], pkt["Flags"], pkt["SessionID"]

    def answered(self, mid, timeout=0.5):
        """Has request @mid been answered within @timeout (without
        consuming the answer)? An interim STATUS_PENDING is no answer;
        it is noted in self.interims."""
        held = self.srv._Connection["OutstandingResponses"]
        if mid in held:
            return True
        sess = self.srv._NetBIOSSession
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                data = sess.recv_packet(max(0.05, deadline - time.time()))
            except Exception:
                return False
            p = s3.SMB2Packet(data.get_trailer())
            if p["Status"] == PENDING:
                self.interims.add(p["MessageID"])
                continue
            held[p["MessageID"]] = p
            if p["MessageID"] == mid:
                return True
        return False

    def close_raw(self, fid):
        """CLOSE of a FileId from create_result (impacket's own close
        knows only the opens it made) -> NTSTATUS."""
        req = s3.SMB2Close()
        req["FileID"] = fid
        return self.srv.recvSMB(self.send_raw(s3.SMB2_CLOSE, req))["Status"]

    def ack(self, fid, level):
        """OPLOCK_BREAK acknowledgement -> (NTSTATUS, level answered)."""
        req = s3.SMB2OplockBreakAcknowledgment()
        req["OplockLevel"] = level
        req["FileID"] = fid
        ans = self.srv.recvSMB(self.send_raw(s3.SMB2_OPLOCK_BREAK, req))
        if ans["Status"] != OK:
            return ans["Status"], None
        return OK, s3.SMB2OplockBreakResponse(ans["Data"])["OplockLevel"]

    def logoff(self):
        self.c.logoff()

    def drop(self):
        """Close the TCP connection without LOGOFF or CLOSE."""
        self.srv.close_session()

    def quit(self):
        try:
            self.c.close()
        except Exception:       # already logged off or dropped
            pass


def wait_for(pred, timeout=5.0):
    """Poll @pred until it is true or @timeout passes; its last value."""
    deadline = time.time() + timeout
    while True:
        v = pred()
        if v or time.time() > deadline:
            return v
        time.sleep(0.05)


class World:
    def __init__(self, nfs_port, smb_port, export):
        self.nfs_port = nfs_port
        self.smb_port = smb_port
        self.export = export
        self.nfs = nc.Client(nfs_port)
        if self.nfs.error:
            raise RuntimeError(f"NFSv4 session: {self.nfs.error}")
        st, self.dirfh = walk_fh(self.nfs.ss, export)
        if st != 0:
            raise RuntimeError(f"LOOKUP of the export: {sname(st)}")
        self.smb = Smb(smb_port)

    def mkfile(self, name, size=4096):
        p = os.path.join(self.export, name)
        with open(p, "wb") as f:
            f.write(bytes(random.getrandbits(8) for _ in range(64))
                    * (size // 64))
        os.chmod(p, 0o666)
        return p

    def nopen(self, name, access, deny, owner=b"cross-open-owner"):
        return self.nfs.open(self.dirfh, name, access, deny, owner=owner)


# ------------------------------------------------------------ case 1

def t_remove(w):
    p = w.mkfile("rm1")
    st, fid = w.smb.create("rm1", RD | WD, R | W)
    if not expect_nt("c1_smb_open_no_share_delete", st, OK):
        return
    r = w.nfs.remove(w.dirfh, "rm1")
    expect("c1_nfs_remove_while_smb_denies_delete", r.status, nc.FILE_OPEN)
    check("c1_file_stays", os.path.exists(p), "file gone")
    r = w.nfs.rename(w.dirfh, "rm1", w.dirfh, "rm1-moved")
    expect("c1_nfs_rename_while_smb_denies_delete", r.status, nc.FILE_OPEN)
    check("c1_file_not_renamed", os.path.exists(p), "file gone")
    w.smb.close(fid)
    r = w.nfs.remove(w.dirfh, "rm1")
    expect("c1_nfs_remove_after_smb_close", r.status, 0)

    # an attributes-only open takes no part in share modes (MS-FSA
    # 2.1.5.1.2: no READ/WRITE/EXECUTE/DELETE access, no sharing check)
    p = w.mkfile("rm2")
    st, fid = w.smb.create("rm2", RA, 0)
    if expect_nt("c1_smb_attr_only_open_share_none", st, OK):
        r = w.nfs.remove(w.dirfh, "rm2")
        expect("c1_nfs_remove_past_attr_only_open", r.status, 0)
        w.smb.close(fid)

    p = w.mkfile("rm3")
    data = open(p, "rb").read()
    st, fid = w.smb.create("rm3", RD | WD, R | W | D)
    if not expect_nt("c1_smb_open_share_delete", st, OK):
        return
    r = w.nfs.remove(w.dirfh, "rm3")
    expect("c1_nfs_remove_with_share_delete", r.status, 0)
    check("c1_file_gone", not os.path.exists(p), "still there")
    st, got = w.smb.read(fid, 0, 64)
    check("c1_smb_open_reads_unlinked_file", st == OK and got == data[:64],
          f"{nt(st)}, {len(got or b'')} bytes")
    expect_nt("c1_smb_open_writes_unlinked_file",
              w.smb.write(fid, 0, b"x" * 10), OK)
    st, _ = w.smb.create("rm3", RD, R | W | D)
    expect_nt("c1_smb_new_open_of_removed_name", st, NOT_FOUND)
    expect_nt("c1_smb_close_after_remove", w.smb.close(fid), OK)


# ------------------------------------------------------------ case 2

def t_share_modes(w):
    w.mkfile("sh1")
    r = w.nopen("sh1", nc.ACCESS_READ, nc.DENY_WRITE)
    if not expect("c2_nfs_open_deny_write", r.status, 0):
        return
    nsid, nfh = r.stateid, r.fh
    st, fid = w.smb.create("sh1", WD, R | W | D)
    expect_nt("c2_smb_write_open_vs_nfs_deny_write", st, SHARING_VIOLATION)
    if fid:
        w.smb.close(fid)
    st, fid = w.smb.create("sh1", RD | WD, R | W | D)
    expect_nt("c2_smb_rw_open_vs_nfs_deny_write", st, SHARING_VIOLATION)
    if fid:
        w.smb.close(fid)
    st, fid = w.smb.create("sh1", RD, R | W | D)
    expect_nt("c2_smb_read_open_vs_nfs_deny_write", st, OK)
    if fid:
        w.smb.close(fid)
    st, fid = w.smb.create("sh1", RD, W | D)     # denies READ
    expect_nt("c2_smb_open_denying_read_vs_nfs_reader", st,
              SHARING_VIOLATION)
    if fid:
        w.smb.close(fid)
    expect("c2_nfs_close", w.nfs.close(nfh, nsid).status, 0)
    st, fid = w.smb.create("sh1", WD, R | W | D)
    expect_nt("c2_smb_write_open_after_nfs_close", st, OK)
    if fid:
        w.smb.close(fid)

    # reverse: SMB shares READ only
    st, fid = w.smb.create("sh1", RD, R)
    if not expect_nt("c2_smb_open_share_read_only", st, OK):
        return
    r = w.nopen("sh1", nc.ACCESS_WRITE, nc.DENY_NONE, owner=b"o-w")
    expect("c2_nfs_open_write_vs_smb_no_write_share", r.status,
           nc.SHARE_DENIED)
    r = w.nopen("sh1", nc.ACCESS_BOTH, nc.DENY_NONE, owner=b"o-rw")
    expect("c2_nfs_open_rw_vs_smb_no_write_share", r.status,
           nc.SHARE_DENIED)
    r = w.nopen("sh1", nc.ACCESS_READ, nc.DENY_READ, owner=b"o-dr")
    expect("c2_nfs_open_deny_read_vs_smb_reader", r.status, nc.SHARE_DENIED)
    r = w.nopen("sh1", nc.ACCESS_READ, nc.DENY_NONE, owner=b"o-r")
    if expect("c2_nfs_open_read_vs_smb_share_read", r.status, 0):
        w.nfs.close(r.fh, r.stateid)
    w.smb.close(fid)
    r = w.nopen("sh1", nc.ACCESS_WRITE, nc.DENY_NONE, owner=b"o-w")
    if expect("c2_nfs_open_write_after_smb_close", r.status, 0):
        w.nfs.close(r.fh, r.stateid)


# ------------------------------------------------------------ case 3

def t_locks_smb_first(w):
    w.mkfile("lk1")
    st, fid = w.smb.create("lk1", RD | WD, R | W | D)
    if not expect_nt("c3_smb_open", st, OK):
        return
    expect_nt("c3_smb_excl_lock_0_100",
              w.smb.lock(fid, 0, 100, LOCK_EXCL | LOCK_FAIL_NOW), OK)
    r = w.nopen("lk1", nc.ACCESS_BOTH, nc.DENY_NONE)
    if not expect("c3_nfs_open_rw", r.status, 0):
        return
    osid, fh = r.stateid, r.fh
    r = w.nfs.lock(fh, osid, nc.WRITE_LT, 50, 10)
    expect("c3_nfs_write_lock_overlapping_smb", r.status, nc.DENIED)
    check("c3_denied_names_smb_range",
          r.denied is not None and r.denied[:3] == (0, 100, nc.WRITE_LT)
          and r.denied[3] == b"",
          f"LOCK4denied {r.denied}")
    r = w.nfs.lock(fh, osid, nc.READ_LT, 99, 1)
    expect("c3_nfs_read_lock_overlapping_smb_excl", r.status, nc.DENIED)
    r = w.nfs.lock(fh, osid, nc.WRITE_LT, 100, 50)
    if expect("c3_nfs_write_lock_adjacent", r.status, 0):
        lsid = r.stateid
        r = w.nfs.locku(fh, lsid, nc.WRITE_LT, 100, 50)
        expect("c3_nfs_locku_adjacent", r.status, 0)
    r = w.nfs.lockt(fh, nc.WRITE_LT, 0, 1)
    expect("c3_nfs_lockt_in_smb_range", r.status, nc.DENIED)
    check("c3_lockt_denied_range", r.denied is not None and
          r.denied[:2] == (0, 100), f"LOCK4denied {r.denied}")
    r = w.nfs.lockt(fh, nc.READ_LT, 0, nc.ALL)
    expect("c3_nfs_lockt_whole_file", r.status, nc.DENIED)
    r = w.nfs.lockt(fh, nc.WRITE_LT, 100, nc.ALL)
    expect("c3_nfs_lockt_past_smb_range", r.status, 0)
    # Windows locks are mandatory: NFSv4 I/O of the range with the open
    r = w.nfs.read(fh, osid, 10, 10)
    expect("c3_nfs_read_in_smb_excl_range", r.status, nc.LOCKED)
    r = w.nfs.write(fh, osid, 90, b"y" * 20)
    expect("c3_nfs_write_across_smb_excl_range", r.status, nc.LOCKED)
    r = w.nfs.read(fh, osid, 100, 10)
    expect("c3_nfs_read_past_smb_range", r.status, 0)
    r = w.nfs.read(fh, raw.ANON, 10, 10)
    expect("c3_nfs_anonymous_read_in_smb_excl_range", r.status, nc.LOCKED)
    # the same as another SMB open sees it
    s2 = Smb(w.smb_port)
    st, fid2 = s2.create("lk1", RD, R | W | D)
    if expect_nt("c3_second_smb_open", st, OK):
        expect_nt("c3_second_smb_read_in_excl_range",
                  s2.read(fid2, 10, 10)[0], FILE_LOCK_CONFLICT)
        s2.close(fid2)
    s2.quit()

    # a shared SMB lock admits NFSv4 read locks only
    expect_nt("c3_smb_shared_lock_1000_100",
              w.smb.lock(fid, 1000, 100, LOCK_SHARED | LOCK_FAIL_NOW), OK)
    r = w.nfs.lock(fh, osid, nc.READ_LT, 1050, 10, owner=b"lo-r")
    if expect("c3_nfs_read_lock_vs_smb_shared", r.status, 0):
        w.nfs.locku(fh, r.stateid, nc.READ_LT, 1050, 10)
    r = w.nfs.lock(fh, osid, nc.WRITE_LT, 1050, 10, owner=b"lo-w")
    expect("c3_nfs_write_lock_vs_smb_shared", r.status, nc.DENIED)
    r = w.nfs.read(fh, osid, 1000, 10)
    expect("c3_nfs_read_in_smb_shared_range", r.status, 0)
    r = w.nfs.write(fh, osid, 1000, b"z")
    expect("c3_nfs_write_in_smb_shared_range", r.status, nc.LOCKED)

    expect_nt("c3_smb_unlock_0_100", w.smb.lock(fid, 0, 100, LOCK_UNLOCK),
              OK)
    r = w.nfs.lock(fh, osid, nc.WRITE_LT, 50, 10, owner=b"lo-after")
    if expect("c3_nfs_lock_after_smb_unlock", r.status, 0):
        w.nfs.locku(fh, r.stateid, nc.WRITE_LT, 50, 10)
    w.smb.close(fid)
    r = w.nfs.lock(fh, osid, nc.WRITE_LT, 1000, 100, owner=b"lo-after2")
    if expect("c3_nfs_lock_after_smb_close", r.status, 0):
        w.nfs.locku(fh, r.stateid, nc.WRITE_LT, 1000, 100)
    expect("c3_nfs_close", w.nfs.close(fh, osid).status, 0)


def t_locks_nfs_first(w):
    w.mkfile("lk2")
    r = w.nopen("lk2", nc.ACCESS_BOTH, nc.DENY_NONE)
    if not expect("c3r_nfs_open", r.status, 0):
        return
    osid, fh = r.stateid, r.fh
    r = w.nfs.lock(fh, osid, nc.WRITE_LT, 200, 100)
    if not expect("c3r_nfs_write_lock_200_300", r.status, 0):
        return
    lsid = r.stateid
    r = w.nfs.lock(fh, osid, nc.READ_LT, 400, 100, owner=b"lo-read")
    if not expect("c3r_nfs_read_lock_400_500", r.status, 0):
        return
    rsid = r.stateid
    st, fid = w.smb.create("lk2", RD | WD, R | W | D)
    if not expect_nt("c3r_smb_open", st, OK):
        return
    expect_nt("c3r_smb_excl_lock_in_nfs_range",
              w.smb.lock(fid, 250, 10, LOCK_EXCL | LOCK_FAIL_NOW),
              LOCK_NOT_GRANTED)
    expect_nt("c3r_smb_shared_lock_in_nfs_write_range",
              w.smb.lock(fid, 290, 20, LOCK_SHARED | LOCK_FAIL_NOW),
              LOCK_NOT_GRANTED)
    expect_nt("c3r_smb_lock_before_nfs_range",
              w.smb.lock(fid, 100, 100, LOCK_EXCL | LOCK_FAIL_NOW), OK)
    expect_nt("c3r_smb_lock_after_nfs_range",
              w.smb.lock(fid, 300, 10, LOCK_EXCL | LOCK_FAIL_NOW), OK)
    expect_nt("c3r_smb_shared_lock_in_nfs_read_range",
              w.smb.lock(fid, 450, 10, LOCK_SHARED | LOCK_FAIL_NOW), OK)
    expect_nt("c3r_smb_excl_lock_in_nfs_read_range",
              w.smb.lock(fid, 460, 10, LOCK_EXCL | LOCK_FAIL_NOW),
              LOCK_NOT_GRANTED)
    # NFSv4 locks are POSIX, advisory for I/O (file_state.h, as Samba)
    st, got = w.smb.read(fid, 200, 100)
    check("c3r_smb_read_nfs_locked_range", st == OK and len(got) == 100,
          f"{nt(st)}")
    expect_nt("c3r_smb_write_nfs_locked_range",
              w.smb.write(fid, 250, b"w" * 10), OK)

    # a blocking SMB lock waits for the NFSv4 LOCKU
    mid = w.smb.send_lock(fid, [(200, 50, LOCK_EXCL)])
    check("c3r_smb_blocking_lock_pending", w.smb.pending_seen(mid),
          "no interim STATUS_PENDING")
    r = w.nfs.locku(fh, lsid, nc.WRITE_LT, 200, 100)
    expect("c3r_nfs_locku", r.status, 0)
    expect_nt("c3r_smb_blocking_lock_granted_after_locku",
              w.smb.recv(mid), OK)
    r = w.nfs.lockt(fh, nc.READ_LT, 220, 1)
    expect("c3r_nfs_lockt_sees_granted_smb_lock", r.status, nc.DENIED)

    w.smb.close(fid)
    r = w.nfs.locku(fh, rsid, nc.READ_LT, 400, 100)
    expect("c3r_nfs_locku_read", r.status, 0)
    expect("c3r_nfs_close", w.nfs.close(fh, osid).status, 0)


# ------------------------------------------------------------ case 4

def smb_holds(w, name, how):
    """An SMB open of @name denying everything, with an exclusive lock
    over the whole file; then released by @how."""
    s = Smb(w.smb_port)
    st, fid = s.create(name, RD | WD | DEL, 0)
    if not expect_nt(f"c4_{how}_smb_open_share_none", st, OK):
        return False
    expect_nt(f"c4_{how}_smb_lock", s.lock(fid, 0, 1 << 40,
                                           LOCK_EXCL | LOCK_FAIL_NOW), OK)
    r = w.nopen(name, nc.ACCESS_READ, nc.DENY_NONE, owner=b"o4")
    expect(f"c4_{how}_nfs_open_while_held", r.status, nc.SHARE_DENIED)
    expect(f"c4_{how}_nfs_remove_while_held",
           w.nfs.remove(w.dirfh, name).status, nc.FILE_OPEN)
    if how == "close":
        s.close(fid)
        s.quit()
    elif how == "logoff":
        s.logoff()
        s.drop()
    else:
        s.drop()
    return True


def t_release(w):
    for how in ("close", "logoff", "tcp_drop"):
        name = f"rel-{how}"
        w.mkfile(name)
        if not smb_holds(w, name, how):
            continue
        r = wait_for(lambda: (lambda x: x if x.status == 0 else None)(
            w.nopen(name, nc.ACCESS_BOTH, nc.DENY_BOTH, owner=b"o4")))
        if not check(f"c4_{how}_nfs_open_after", r is not None,
                     "still SHARE_DENIED"):
            continue
        lk = w.nfs.lock(r.fh, r.stateid, nc.WRITE_LT, 0, nc.ALL,
                        owner=b"lo4")
        if expect(f"c4_{how}_nfs_lock_after", lk.status, 0):
            w.nfs.locku(r.fh, lk.stateid, nc.WRITE_LT, 0, nc.ALL)
        w.nfs.close(r.fh, r.stateid)
        expect(f"c4_{how}_nfs_remove_after",
               w.nfs.remove(w.dirfh, name).status, 0)

    # and the other way: NFSv4 LOCKU, then CLOSE, lets SMB in
    w.mkfile("rel-nfs")
    r = w.nopen("rel-nfs", nc.ACCESS_BOTH, nc.DENY_BOTH, owner=b"o4n")
    if not expect("c4_nfs_open_deny_both", r.status, 0):
        return
    osid, fh = r.stateid, r.fh
    lk = w.nfs.lock(fh, osid, nc.WRITE_LT, 0, nc.ALL, owner=b"lo4n")
    if not expect("c4_nfs_lock_whole_file", lk.status, 0):
        return
    st, fid = w.smb.create("rel-nfs", RD, R | W | D)
    expect_nt("c4_smb_open_vs_nfs_deny_both", st, SHARING_VIOLATION)
    st, fid = w.smb.create("rel-nfs", RA, 0)
    if expect_nt("c4_smb_attr_only_open_vs_nfs_deny_both", st, OK):
        expect_nt("c4_smb_lock_vs_nfs_lock",
                  w.smb.lock(fid, 0, 10, LOCK_SHARED | LOCK_FAIL_NOW),
                  LOCK_NOT_GRANTED)
        w.smb.close(fid)
    expect("c4_nfs_locku", w.nfs.locku(fh, lk.stateid, nc.WRITE_LT, 0,
                                       nc.ALL).status, 0)
    expect("c4_nfs_close", w.nfs.close(fh, osid).status, 0)
    st, fid = w.smb.create("rel-nfs", RD | WD | DEL, 0)
    if expect_nt("c4_smb_open_share_none_after_nfs_close", st, OK):
        expect_nt("c4_smb_lock_after_nfs_locku",
                  w.smb.lock(fid, 0, 1 << 40, LOCK_EXCL | LOCK_FAIL_NOW),
                  OK)
        w.smb.close(fid)


# ------------------------------------------------------------ case 5

def t_delete_pending(w):
    for how in ("disposition", "delete_on_close"):
        name = f"dp-{how}"
        p = w.mkfile(name)
        data = open(p, "rb").read()
        if how == "disposition":
            st, fid = w.smb.create(name, RD | DEL, R | W | D)
            if not expect_nt(f"c5_{how}_smb_open", st, OK):
                continue
            expect_nt(f"c5_{how}_set", w.smb.set_delete_pending(fid), OK)
        else:
            st, fid = w.smb.create(name, RD | DEL, R | W | D,
                                   options=s3.FILE_DELETE_ON_CLOSE)
            if not expect_nt(f"c5_{how}_smb_open", st, OK):
                continue
            # a second open (impacket keeps one per name and connection)
            # marks the file delete pending as it closes
            s1 = Smb(w.smb_port)
            st, fid2 = s1.create(name, DEL, R | W | D,
                                 options=s3.FILE_DELETE_ON_CLOSE)
            if expect_nt(f"c5_{how}_second_open", st, OK):
                s1.close(fid2)
            s1.quit()
        s2 = Smb(w.smb_port)
        st, f2 = s2.create(name, RD, R | W | D)
        expect_nt(f"c5_{how}_new_smb_open_delete_pending", st,
                  DELETE_PENDING)
        s2.quit()
        r = w.nopen(name, nc.ACCESS_READ, nc.DENY_NONE, owner=b"o5")
        expect(f"c5_{how}_nfs_open_admitted", r.status, 0)
        check(f"c5_{how}_name_still_there", os.path.exists(p), "gone early")
        w.smb.close(fid)
        check(f"c5_{how}_last_smb_close_deletes", not os.path.exists(p),
              "still there")
        if r.status == 0:
            rd = w.nfs.read(r.fh, r.stateid, 0, 64)
            check(f"c5_{how}_nfs_open_reads_deleted_file",
                  rd.status == 0 and rd.data == data[:64],
                  f"{sname(rd.status)}")
            expect(f"c5_{how}_nfs_close", w.nfs.close(r.fh,
                                                     r.stateid).status, 0)
        r = w.nopen(name, nc.ACCESS_READ, nc.DENY_NONE, owner=b"o5")
        expect(f"c5_{how}_nfs_open_after_delete", r.status, nc.NOENT)

    # the name removed over NFSv4 and made again while the SMB open is
    # delete pending: its close leaves the new file alone
    p = w.mkfile("dp-replaced")
    st, fid = w.smb.create("dp-replaced", RD | DEL, R | W | D)
    if not expect_nt("c5_replaced_smb_open", st, OK):
        return
    expect_nt("c5_replaced_set", w.smb.set_delete_pending(fid), OK)
    expect("c5_replaced_nfs_remove_while_pending",
           w.nfs.remove(w.dirfh, "dp-replaced").status, 0)
    r = w.nfs.open(w.dirfh, "dp-replaced", nc.ACCESS_BOTH, nc.DENY_NONE,
                   create=True, owner=b"o5c")
    if expect("c5_replaced_nfs_create_same_name", r.status, 0):
        w.nfs.close(r.fh, r.stateid)
    expect_nt("c5_replaced_smb_close", w.smb.close(fid), OK)
    check("c5_replaced_new_file_kept", os.path.exists(p),
          "the new file was deleted by the old open's close")


# ------------------------------------------------------------ server

def port_pair():
    for _ in range(200):
        p = random.randrange(30000, 40000)
        ok = True
        for q in (p, p + 1):
            with socket.socket() as s:
                try:
                    s.bind(("127.0.0.1", q))
                except OSError:
                    ok = False
        if ok:
            return p, p + 1
    raise RuntimeError("no free ports")


def start_nasd(nasd, nfs_port, smb_port, export, state, log):
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = os.environ.get(
        "NASD_ASAN_OPTIONS",
        "halt_on_error=1:abort_on_error=0:detect_leaks=1:exitcode=66")
    env["UBSAN_OPTIONS"] = os.environ.get(
        "NASD_UBSAN_OPTIONS", "halt_on_error=1:print_stacktrace=1")
    subprocess.run([nasd, "user", "add", USER, "--uid", "0", "--gid", "0",
                    "--state-dir", state], input=PASSWORD + "\n",
                   text=True, check=True, stdout=subprocess.DEVNULL)
    p = subprocess.Popen(
        [nasd, "--foreground", "--listen", f"127.0.0.1:{nfs_port}",
         "--mountd-port", "0", "--state-dir", state, "--grace-time", "0",
         "--smb-listen", f"127.0.0.1:{smb_port}", "--log-level", "debug",
         "--export", f"{export}:rw,no_root_squash,smb={SHARE}"],
        stdout=log, stderr=subprocess.STDOUT, env=env)
    deadline = time.time() + 20
    while time.time() < deadline and p.poll() is None:
        try:
            for port in (nfs_port, smb_port):
                socket.create_connection(("127.0.0.1", port),
                                         timeout=1).close()
            return p
        except OSError:
            time.sleep(0.1)
    return p


# ------------------------------------------------------------ case 6

BATCH, EXCL, LEVEL2 = (s3.SMB2_OPLOCK_LEVEL_BATCH,
                       s3.SMB2_OPLOCK_LEVEL_EXCLUSIVE,
                       s3.SMB2_OPLOCK_LEVEL_II)


NASD = ["", ""]   # the binary and its state directory (main)


def stats_grants(w):
    """nasd stats' "grants" value (-1 when it cannot be read)."""
    import json
    out = subprocess.run([NASD[0], "stats", "--state-dir", NASD[1],
                          "--json"], capture_output=True, timeout=20)
    try:
        return json.loads(out.stdout)["values"]["grants"]
    except (ValueError, KeyError):
        return -1


def fid_bytes(f):
    return f.getData() if hasattr(f, "getData") else bytes(f)


def t_oplocks(w):
    w.mkfile("op1")
    st, lvl, fid = w.smb.open_oplock("op1", RD | WD, R | W | D, BATCH)
    if not (expect_nt("c6_smb_open_asks_batch", st, OK) and
            check("c6_lone_open_gets_batch", lvl == BATCH, f"level {lvl}")):
        return
    st, _ = w.smb.ack(fid, LEVEL2)
    expect_nt("c6_ack_without_break", st,
              nt_errors.STATUS_INVALID_OPLOCK_PROTOCOL)
    # a second client's open waits for the holder's answer
    other = Smb(w.smb_port)
    mid = other.create_oplock("op1", RD, R | W | D, BATCH)
    b = w.smb.next_break()
    if not check("c6_break_sent_to_holder", b is not None, "no break"):
        other.quit()
        return
    check("c6_break_to_level2", b[0] == LEVEL2, f"level {b[0]}")
    check("c6_break_names_the_open", fid_bytes(b[1]) == fid_bytes(fid),
          f"{fid_bytes(b[1]).hex()} for {fid_bytes(fid).hex()}")
    check("c6_break_unsigned_no_session",
          not (b[2] & s3.SMB2_FLAGS_SIGNED) and b[3] == 0,
          f"flags {b[2]:#x}, session {b[3]:#x}")
    check("c6_second_open_waits_for_answer", not other.answered(mid),
          "answered before the break was acknowledged")
    check("c6_waiting_open_got_interim_pending", mid in other.interims,
          "no STATUS_PENDING interim response")
    st, lvl = w.smb.ack(fid, LEVEL2)
    check("c6_ack_answered_level2", st == OK and lvl == LEVEL2,
          f"{nt(st)} level {lvl}")
    st, lvl2, fid2 = other.create_result(mid)
    check("c6_second_open_gets_level2", st == OK and lvl2 == LEVEL2,
          f"{nt(st)} level {lvl2}")
    # an NFSv4 write breaks both level II oplocks to none, unanswered
    r = w.nopen("op1", nc.ACCESS_BOTH, nc.DENY_NONE)
    if expect("c6_nfs_open_past_level2", r.status, 0):
        wr = w.nfs.write(r.fh, r.stateid, 0, b"nfs")
        expect("c6_nfs_write_not_delayed_by_level2", wr.status, 0)
        b1, b2 = w.smb.next_break(), other.next_break()
        check("c6_write_breaks_level2_to_none",
              b1 is not None and b2 is not None and b1[0] == 0 and
              b2[0] == 0, f"{b1} {b2}")
        w.nfs.close(r.fh, r.stateid)
    st, _ = w.smb.ack(fid, 0)
    expect_nt("c6_level2_break_needs_no_answer", st,
              nt_errors.STATUS_INVALID_OPLOCK_PROTOCOL)
    other.close_raw(fid2)
    other.quit()
    w.smb.close_raw(fid)

    # an NFSv4 OPEN of a file under a batch oplock: DELAY until answered
    w.mkfile("op2")
    st, lvl, fid = w.smb.open_oplock("op2", RD | WD, R | W | D, BATCH)
    if not check("c6_batch_again", st == OK and lvl == BATCH,
                 f"{nt(st)} level {lvl}"):
        return
    r = w.nopen("op2", nc.ACCESS_READ, nc.DENY_NONE)
    expect("c6_nfs_open_under_batch_delayed", r.status, nc.DELAY)
    b = w.smb.next_break()
    check("c6_nfs_open_breaks_batch", b is not None and b[0] == LEVEL2,
          f"{b}")
    r = w.nopen("op2", nc.ACCESS_READ, nc.DENY_NONE)
    expect("c6_nfs_open_delayed_until_answer", r.status, nc.DELAY)
    expect_nt("c6_ack_nfs_break", w.smb.ack(fid, LEVEL2)[0], OK)
    r = w.nopen("op2", nc.ACCESS_READ, nc.DENY_NONE)
    if expect("c6_nfs_open_after_answer", r.status, 0):
        w.nfs.close(r.fh, r.stateid)
    w.smb.close_raw(fid)

    # an NFSv4 READ of a file under an exclusive oplock: the holder
    # flushes first; its close ends the break too
    w.mkfile("op3")
    r = w.nopen("op3", nc.ACCESS_READ, nc.DENY_NONE)
    if not expect("c6_nfs_open_op3", r.status, 0):
        return
    w.nfs.close(r.fh, r.stateid)
    st, lvl, fid = w.smb.open_oplock("op3", RD | WD, R | W | D, EXCL)
    check("c6_exclusive", st == OK and lvl == EXCL, f"{nt(st)} level {lvl}")
    rd = w.nfs.read(r.fh, nc.ANON_STATEID, 0, 16)
    expect("c6_nfs_read_under_exclusive_delayed", rd.status, nc.DELAY)
    b = w.smb.next_break()
    check("c6_nfs_read_breaks_exclusive", b is not None and b[0] == LEVEL2,
          f"{b}")
    w.smb.close_raw(fid)
    rd = w.nfs.read(r.fh, nc.ANON_STATEID, 0, 16)
    expect("c6_nfs_read_after_holder_closed", rd.status, 0)
    check("c6_grants_all_gone", stats_grants(w) == 0,
          f"nasd stats: {stats_grants(w)} grants")


# ------------------------------------------------------------ case 7

def read_delegation(w, name, case):
    """An NFSv4.1 client holding a read delegation of the new file @name:
    (holder, delegation, its fh), or None (the check @case_nfs_read_
    delegation failed)."""
    import test_nfs4_deleg as td
    w.mkfile(name)
    h = td.Holder(w.nfs_port, f"cross-{name}-{random.getrandbits(32)}")
    st, _, d, fh = h.open(w.dirfh, name, nc.ACCESS_READ,
                          owner=name.encode())
    if not check(f"{case}_nfs_read_delegation",
                 st == 0 and d and d[0] == td.DELEG_READ,
                 f"{sname(st)} {d}"):
        h.c.close()
        return None
    return h, d, fh


def t_delegations(w):
    import test_nfs4_deleg as td
    got = read_delegation(w, "dg1", "c7")
    if not got:
        return
    h, d, fh = got
    # an SMB open for reading lives with it; one for writing waits
    st, _, fid = w.smb.open_oplock("dg1", RD, R | W | D, 0)
    expect_nt("c7_smb_read_open_keeps_delegation", st, OK)
    if st == OK:
        w.smb.close_raw(fid)
    other = Smb(w.smb_port)
    mid = other.create_oplock("dg1", WD, R | W | D, 0)
    xid, rec = td.wait_recall(h)
    check("c7_smb_write_open_recalls", rec is not None and
          rec.get("stateid") == d[1], f"{rec}")
    check("c7_smb_open_waits_for_return", not other.answered(mid),
          "answered before DELEGRETURN")
    if rec:
        td.answer_recall(h.c, xid, rec)
    r, _ = h.call([raw.op_putfh(fh), td.op(td.OP_DELEGRETURN, d[1])])
    expect("c7_delegreturn", r.status, 0)
    st, _, fid = other.create_result(mid)
    if expect_nt("c7_smb_open_after_return", st, OK):
        other.close_raw(fid)
    other.quit()
    h.c.close()


def t_stop_with_recall(w):
    """Case 8: an SMB open for writing waits for an NFSv4 read
    delegation's return, which its holder never sends (it keeps its
    connection and ignores the CB_RECALL): the stop that follows must not
    wait for the recall to time out (main() times it)."""
    import test_nfs4_deleg as td
    got = read_delegation(w, "dg8", "c8")
    if not got:
        return
    h = got[0]
    other = Smb(w.smb_port)
    mid = other.create_oplock("dg8", WD, R | W | D, 0)
    xid, rec = td.wait_recall(h)
    check("c8_smb_open_waits_for_return",
          rec is not None and not other.answered(mid), f"{rec}")
    KEEP.extend([h, other])  # open until nasd stops


KEEP = []


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    nasd = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="nasd-cross-")
    os.chmod(tmp, 0o755)
    export = os.path.join(tmp, "export")
    state = os.path.join(tmp, "state")
    os.mkdir(export)
    os.chmod(export, 0o777)
    os.mkdir(state)
    nfs_port, smb_port = port_pair()
    NASD[:] = [nasd, state]
    logpath = os.path.join(tmp, "nasd.log")
    log = open(logpath, "w")
    proc = start_nasd(nasd, nfs_port, smb_port, export, state, log)
    try:
        if not check("nasd_started", proc.poll() is None,
                     f"exited {proc.returncode}"):
            log.close()
            print(open(logpath, errors="replace").read()[-3000:])
            return 1
        for t in (t_remove, t_share_modes, t_locks_smb_first,
                  t_locks_nfs_first, t_release, t_delete_pending,
                  t_oplocks, t_delegations, t_stop_with_recall):
            try:
                w = World(nfs_port, smb_port, export)
                t(w)
                w.smb.quit()
                w.nfs.close_conn()
            except Exception as e:          # one broken group, not all
                if os.environ.get("CROSS_TRACE"):
                    import traceback
                    traceback.print_exc()
                check(f"{t.__name__}_exception", False,
                      f"{type(e).__name__}: {e}")
            if proc.poll() is not None:
                check("nasd_still_running", False,
                      f"nasd exited with {proc.returncode}")
                break
        if proc.poll() is None:
            t0 = time.time()
            proc.send_signal(signal.SIGTERM)
            try:
                rc = proc.wait(20)
                check("sigterm_exit_0", rc == 0, f"exit status {rc}")
                check("stops_within_10s", time.time() - t0 < 10,
                      f"{time.time() - t0:.1f} s")
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
                check("sigterm_exit_0", False, "still running 20 s later")
        log.close()
        with open(logpath, "r", errors="replace") as f:
            text = f.read()
        m = SANITIZER_RE.search(text)
        check("no_sanitizer_report", m is None,
              text[max(0, m.start() - 200):m.start() + 2000] if m else "")
        if raw.fails:
            print("----- last lines of nasd log")
            print("\n".join(text.splitlines()[-40:]))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if not os.environ.get("KEEP_TMP"):
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"# {raw.passes} passed, {raw.fails} failed")
    return 1 if raw.fails else 0


if __name__ == "__main__":
    sys.exit(main())
