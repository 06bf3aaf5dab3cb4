#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""NFSv4.1 delegations with raw COMPOUNDs (RFC 8881 §10.2, §10.4, §18.6,
§20.2).

usage: test_nfs4_deleg.py NASD

Starts its own nasd (port 20600 and up, lease 10 s, no grace) with two
exports, the second with deleg=no. A holder client (a session with a back
channel whose CB_NULL it answers) and a conflicting client (no back
channel, so never granted one) check:
  - OPEN for reading gets a read delegation; READ with its stateid works;
    a client without a back channel gets none; WANT_NO_DELEG answers
    NONE_EXT/WND4_NOT_WANTED; an export with deleg=no grants none
    (NONE_EXT/WND4_RESOURCE when one was asked for);
  - another client's OPEN for writing gets DELAY while the holder is sent
    CB_COMPOUND(CB_SEQUENCE on its session, slot 0, seqid 1; CB_RECALL of
    the delegation's stateid and the file's handle); it succeeds once the
    holder answered and sent DELEGRETURN; the file recalled gets no new
    delegation at once;
  - an OPEN that creates the file gets none (no want said); OPEN for
    writing of the file then gets a write delegation; WRITE under it works;
    another client's GETATTR of the file sends the holder CB_GETATTR
    (CB_SEQUENCE + CB_GETATTR of change and size) and is answered at once:
    with the holder's size and the mtime set to now when the holder's
    change attribute moved, with the server's own when it did not; the
    delegation stays. A holder that does not answer in time is recalled
    (DELAY meanwhile); it answers the recall but never returns: after the
    lease the
    delegation is revoked, the GETATTR goes on, the holder's SEQUENCE
    shows RECALLABLE_STATE_REVOKED, its stateid answers DELEG_REVOKED
    (READ, TEST_STATEID, DELEGRETURN) until FREE_STATEID, then
    BAD_STATEID and the flag is gone;
  - a 4.2 client's CB_COMPOUND says minor version 2 (the Linux client
    looks its session up among its 4.2 clients only);
  - a CB_RECALL never answered takes the back channel down
    (CB_PATH_DOWN_SESSION); after BIND_CONN_TO_SESSION of a new connection
    and its CB_NULL the recall is sent again there (slot 0 seqid 1 again:
    no answer moved it on);
  - OPEN CLAIM_DELEG_CUR_FH with the delegation held succeeds (no new
    delegation), with a stateid of no delegation BAD_STATEID;
    CLAIM_DELEGATE_CUR by name likewise; FREE_STATEID of a delegation held
    is LOCKS_HELD;
  - WANT_DELEGATION (CLAIM_FH) gets a read delegation; of a directory
    NONE_EXT/WND4_IS_DIR; CLAIM_DELEG_PREV_FH NOTSUPP (so are OPEN's
    CLAIM_DELEGATE_PREV, CLAIM_DELEG_PREV_FH and DELEGPURGE), CLAIM_PREVIOUS
    outside a grace period NO_GRACE, an unknown claim BADXDR;
  - another client's LOCKT and REMOVE recall (DELAY until DELEGRETURN);
  - a byte-range lock of another client keeps a delegation from being
    granted;
  - NFSv4.0: a client whose callback (a listener of the test's on
    127.0.0.1) answered CB_NULL gets a read delegation; a conflicting open
    sends it CB_COMPOUND(minor 0, its callback_ident, CB_RECALL) over a
    connection of the server's; DELEGRETURN lets the open through; an
    OPEN for writing gets a write delegation; its own bare GETATTR (on its
    connection) calls nothing back, another client's GETATTR sends it
    CB_COMPOUND(CB_GETATTR) and answers its size;
  - an NFSv3 GETATTR asks a write delegation's holder the same way;
  - `nasd stats`: nfs4_delegations_total, recalls, returns, revoked, the
    CB_RECALL procedure; SIGTERM exits 0 without a sanitizer report.
Prints "ok - NAME" / "not ok - NAME: DETAIL" and exits 1 if any failed.
"""

import json
import os
import random
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_nfs4_raw as raw  # noqa: E402
from test_nfs4_raw import (Dec, check, expect, op, opaque, u32, u64,  # noqa
                           record, sname, free_port, walk_fh)
import test_nfs4_backchannel as bc  # noqa: E402
import nfs4_client  # noqa: E402
from nt_nfs3 import Client as Client3  # noqa: E402

OP_CLOSE, OP_DELEGRETURN, OP_GETATTR, OP_GETFH = 4, 8, 9, 10
OP_LOCK, OP_OPEN, OP_PUTFH, OP_READ = 12, 18, 22, 25
OP_WRITE, OP_FREE_STATEID, OP_TEST_STATEID = 38, 45, 55
OP_WANT_DELEGATION = 56
OP_OPEN_CONFIRM, OP_RENEW = 20, 30
OP_SETCLIENTID, OP_SETCLIENTID_CONFIRM = 35, 36
OP_SEQUENCE = 53
CB_COMPOUND, CB_GETATTR, CB_RECALL, CB_SEQUENCE = 1, 3, 4, 11
DELEG_NONE, DELEG_READ, DELEG_WRITE, DELEG_NONE_EXT = 0, 1, 2, 3
WND4_NOT_WANTED, WND4_RESOURCE, WND4_IS_DIR = 0, 2, 8
WANT_READ_DELEG, WANT_NO_DELEG = 0x100, 0x400
RECALLABLE_STATE_REVOKED = 0x40
DELAY, BAD_STATEID, LOCKS_HELD, DELEG_REVOKED = 10008, 10025, 10037, 10087
NOTSUPP, NO_GRACE, BADXDR = 10004, 10033, 10036
raw.ERR.update({DELAY: "DELAY", BAD_STATEID: "BAD_STATEID",
                LOCKS_HELD: "LOCKS_HELD", DELEG_REVOKED: "DELEG_REVOKED",
                NOTSUPP: "NOTSUPP", NO_GRACE: "NO_GRACE",
                BADXDR: "BADXDR"})
LEASE = 10
FATTR4_CHANGE, FATTR4_SIZE = 3, 4


class CallConn(bc.Conn):
    """A Conn that keeps the arguments of the server's calls too."""

    def _take(self, data):
        d = Dec(data)
        xid, mtype = d.u32(), d.u32()
        if mtype != 0:
            return None
        d.u32()
        prog, vers, proc = d.u32(), d.u32(), d.u32()
        d.u32()
        d.opaque()
        d.u32()
        d.opaque()
        self.calls.append((xid, prog, vers, proc, data[d.o:]))
        return xid


class MinorConn(CallConn):
    """A CallConn whose COMPOUNDs say minor version @minor."""

    def __init__(self, port, minor):
        super().__init__(port)
        self.minor = minor

    def compound(self, ops, tag=b"bc", minor=None):
        return super().compound(ops, tag, self.minor)


class Holder:
    """A 4.1 (4.2) client whose session has a back channel it answers."""

    def __init__(self, port, name, minor=1):
        self.c = MinorConn(port, minor)
        self.clid, eseq = bc.new_client(self.c, name)
        self.sid, _ = bc.create_session(self.c, self.clid, eseq,
                                        bc.CONN_BACK_CHAN)
        self.seq = 0
        call = self.c.wait_call()
        if call and call[3] == 0:
            self.c.answer(call[0])
        self.probe_answered = call is not None and call[3] == 0
        time.sleep(0.2)
        # nothing to reclaim (RFC 8881 §18.51): before its first open
        self.call([op(58, u32(0))])

    def call(self, ops):
        """SEQUENCE + @ops: (Res positioned after SEQUENCE, seq flags)."""
        self.seq += 1
        sa = op(OP_SEQUENCE, self.sid + u32(self.seq) + u32(0) + u32(0) +
                u32(0))
        r, _ = self.c.compound([sa] + ops)
        flags = None
        if r.accept == 0 and r.n >= 1:
            o, st = r.next()
            if st == 0:
                r.dec.fixed(16)
                for _ in range(4):
                    r.dec.u32()
                flags = r.dec.u32()
            else:
                self.seq -= 1
        return r, flags

    def open(self, dirfh, name, access, create=False, owner=b"holder",
             claim=None):
        """OPEN + GETFH: (status, open stateid, deleg tuple, fh)."""
        how = u32(1) + u32(0) + u32(0) + u32(0) if create else u32(0)
        if claim is None:
            claim = u32(0) + opaque(name.encode())
        args = (u32(0) + u32(access) + u32(0) + u64(self.clid)
                + opaque(owner) + how + claim)
        r, _ = self.call([raw.op_putfh(dirfh), op(OP_OPEN, args),
                          op(OP_GETFH)])
        return parse_open(r)

    def seq_flags(self):
        _, fl = self.call([])
        return fl


def parse_open(r):
    """(status, stateid, deleg, fh) of PUTFH, OPEN, GETFH results."""
    if r.accept != 0:
        return -1, None, None, None
    sid = deleg = fh = None
    status = r.status
    for _ in range(r.n - 1):
        o, st = r.next()
        if st != 0:
            break
        if o == OP_OPEN:
            sid = r.dec.fixed(16)
            r.dec.u32()
            r.dec.u64()
            r.dec.u64()
            r.dec.u32()
            r.dec.bitmap()
            deleg = nfs4_client.parse_delegation(r.dec)
        elif o == OP_GETFH:
            fh = r.dec.opaque()
    return status, sid, deleg, fh


def parse_recall(args):
    """CB_COMPOUND4args of (CB_SEQUENCE, CB_RECALL): a dict, or None."""
    d = Dec(args)
    try:
        out = {"tag": d.opaque(), "minor": d.u32(), "ident": d.u32()}
        n = d.u32()
        out["nops"] = n
        for _ in range(n):
            o = d.u32()
            if o == CB_SEQUENCE:
                out["sessionid"] = d.fixed(16)
                out["seq"], out["slot"], out["highest"] = (d.u32(), d.u32(),
                                                           d.u32())
                d.u32()
                for _ in range(d.u32()):
                    d.fixed(16)
                    for _ in range(d.u32()):
                        d.u32()
                        d.u32()
            elif o == CB_RECALL:
                out["stateid"] = d.fixed(16)
                out["truncate"] = d.u32()
                out["fh"] = d.opaque()
            elif o == CB_GETATTR:
                out["getattr_fh"] = d.opaque()
                out["mask"] = [d.u32() for _ in range(d.u32())]
            else:
                out.setdefault("other_ops", []).append(o)
                break
        return out
    except Exception:                    # noqa: BLE001 (reported)
        return None


def answer_recall(conn, xid, rec, status=0):
    """CB_COMPOUND4res: CB_SEQUENCE OK (echoing the slot), CB_RECALL."""
    seq = (u32(CB_SEQUENCE) + u32(0) + rec["sessionid"] + u32(rec["seq"])
           + u32(0) + u32(0) + u32(0))
    res = u32(status) + opaque(b"") + u32(2) + seq + u32(CB_RECALL) + \
        u32(status)
    msg = u32(xid) + u32(1) + u32(0) + u32(0) + u32(0) + u32(0) + res
    conn.s.sendall(record(msg))


def answer_getattr(conn, xid, rec, change, size):
    """CB_COMPOUND4res: CB_SEQUENCE OK, CB_GETATTR of change and size."""
    seq = (u32(CB_SEQUENCE) + u32(0) + rec["sessionid"] + u32(rec["seq"])
           + u32(0) + u32(0) + u32(0))
    attrs = u32(1) + u32(1 << FATTR4_CHANGE | 1 << FATTR4_SIZE) + \
        opaque(u64(change) + u64(size))
    res = u32(0) + opaque(b"") + u32(2) + seq + u32(CB_GETATTR) + u32(0) + \
        attrs
    msg = u32(xid) + u32(1) + u32(0) + u32(0) + u32(0) + u32(0) + res
    conn.s.sendall(record(msg))


def wait_recall(h, timeout=5.0):
    """The next CB_COMPOUND on the holder's connection: (xid, dict)."""
    end = time.time() + timeout
    while time.time() < end:
        call = h.c.wait_call(max(0.1, end - time.time()))
        if call is None:
            return None, None
        xid, prog, vers, proc, args = call
        if proc == 0:                    # a probe: answer, keep waiting
            h.c.answer(xid)
            continue
        if proc == CB_COMPOUND:
            return xid, parse_recall(args)
    return None, None


def getattr_change_size(r, seq=False):
    """(status, change, size) of [SEQUENCE,] PUTFH, GETATTR(change,
    size)."""
    if r.status != 0:
        return r.status, None, None
    if seq:
        r.next()
        r.dec.fixed(16 + 20)             # SEQUENCE4resok
    r.next()
    r.next()
    r.dec.bitmap()
    d = Dec(r.dec.opaque())
    return 0, d.u64(), d.u64()


def retry(fn, want, timeout=10.0):
    """Call fn() until its status is not DELAY (or @timeout)."""
    end = time.time() + timeout
    st = fn()
    while st == DELAY and time.time() < end:
        time.sleep(0.3)
        st = fn()
    return st


def other_file(o, root, name):
    """A file the other client creates and closes: its handle."""
    r = o.open(root, name, nfs4_client.ACCESS_BOTH, nfs4_client.DENY_NONE,
               create=True, owner=b"creator-" + name.encode())
    expect(f"other_create_{name}", r.status, 0)
    if r.status == 0:
        o.close(r.fh, r.stateid)
    return r.fh


def recall_cycle(h, root, name, label, conflict, rec_ok=None):
    """@h opens @name for reading and gets a read delegation; another
    client's @conflict() is DELAY while it is recalled (CB_RECALL of its
    stateid and handle, answered); after DELEGRETURN it goes through."""
    st, _, deleg, fh = h.open(root, name, nfs4_client.ACCESS_READ,
                              owner=b"reader-" + name.encode())
    if not check(f"{label}_read_deleg", st == 0 and deleg[0] == DELEG_READ,
                 f"{sname(st)} {deleg}"):
        return
    expect(f"{label}_delay", conflict(), DELAY)
    xid, rec = wait_recall(h)
    check(f"{label}_cb_recall", rec is not None and
          rec.get("stateid") == deleg[1] and rec.get("fh") == fh and
          (rec_ok is None or rec_ok(rec)), f"{rec}")
    if rec:
        answer_recall(h.c, xid, rec)
    r, _ = h.call([raw.op_putfh(fh), op(OP_DELEGRETURN, deleg[1])])
    expect(f"{label}_delegreturn", r.status, 0)
    expect(f"{label}_after_return", retry(conflict, 0), 0)


def test_stateid(h, sid):
    """TEST_STATEID of @sid by @h: its status, or None."""
    r, _ = h.call([op(OP_TEST_STATEID, u32(1) + sid)])
    if r.status != 0:
        return None
    r.next()
    return r.dec.u32() if r.dec.u32() == 1 else None


def stats(nasd, state):
    out = subprocess.run([nasd, "stats", "--state-dir", state, "--json"],
                         capture_output=True, text=True, timeout=30)
    try:
        return json.loads(out.stdout)
    except ValueError:
        return {}


def stat_value(d, name):
    """A named value of `nasd stats --json` ("values": {name: n})."""
    return d.get("values", {}).get(name)


class CbListener(threading.Thread):
    """The 4.0 client's callback service on 127.0.0.1: answers CB_NULL,
    CB_COMPOUND(CB_RECALL) OK and CB_COMPOUND(CB_GETATTR) with
    @getattr_answer (change, size); records (proc, args)."""

    def __init__(self):
        super().__init__(daemon=True)
        self.ls = socket.socket()
        self.ls.bind(("127.0.0.1", 0))
        self.ls.listen(8)
        self.port = self.ls.getsockname()[1]
        self.calls = []
        self.cv = threading.Condition()
        self.getattr_answer = (1, 0)

    def run(self):
        while True:
            try:
                s, _ = self.ls.accept()
            except OSError:
                return
            try:
                s.settimeout(10)
                data = raw.recv_record(s)
                d = Dec(data)
                xid, _ = d.u32(), d.u32()
                d.u32()
                d.u32()
                d.u32()
                proc = d.u32()
                d.u32()
                d.opaque()
                d.u32()
                d.opaque()
                args = data[d.o:]
                res = b""
                if proc == CB_COMPOUND:
                    a = Dec(args)
                    a.opaque()
                    a.u32()
                    a.u32()
                    a.u32()
                    if a.u32() == CB_GETATTR:
                        ch, sz = self.getattr_answer
                        res = (u32(0) + opaque(b"") + u32(1) +
                               u32(CB_GETATTR) + u32(0) + u32(1) +
                               u32(1 << FATTR4_CHANGE | 1 << FATTR4_SIZE) +
                               opaque(u64(ch) + u64(sz)))
                    else:
                        res = (u32(0) + opaque(b"") + u32(1) +
                               u32(CB_RECALL) + u32(0))
                s.sendall(record(u32(xid) + u32(1) + u32(0) + u32(0) +
                                 u32(0) + u32(0) + res))
                with self.cv:
                    self.calls.append((proc, args))
                    self.cv.notify_all()
            except (OSError, struct.error):
                pass
            finally:
                s.close()

    def wait(self, proc, timeout=8.0):
        end = time.time() + timeout
        with self.cv:
            while True:
                for i, (p, a) in enumerate(self.calls):
                    if p == proc:
                        del self.calls[i]
                        return a
                left = end - time.time()
                if left <= 0:
                    return None
                self.cv.wait(left)


def open40(s, clid, root, fh, name, access, owner, label):
    """A 4.0 OPEN of @name (handle @fh) by a new @owner, confirmed:
    its delegation (type, stateid, recall), or None when it failed."""
    oargs = (u32(0) + u32(access) + u32(0) + u64(clid) + opaque(owner)
             + u32(0) + u32(0) + opaque(name.encode()))
    r = raw.compound(s, 0, [raw.op_putfh(root), op(OP_OPEN, oargs)])
    expect(label, r.status, 0)
    if r.status != 0:
        return None
    r.next()
    r.next()
    osid = r.dec.fixed(16)
    r.dec.u32()
    r.dec.u64()
    r.dec.u64()
    rflags = r.dec.u32()
    r.dec.bitmap()
    deleg = nfs4_client.parse_delegation(r.dec)
    if rflags & 2:                       # OPEN_CONFIRM
        r = raw.compound(s, 0, [raw.op_putfh(fh),
                                op(OP_OPEN_CONFIRM, osid + u32(1))])
        expect(label + "_confirm", r.status, 0)
    return deleg


def t_deleg40(port, exp_path, o, root):
    """NFSv4.0: SETCLIENTID with a loopback callback, a read delegation,
    CB_RECALL (minor 0, the callback_ident) on a conflict, DELEGRETURN."""
    lis = CbListener()
    lis.start()
    s = raw.connect(port)
    verf = bytes(random.getrandbits(8) for _ in range(8))
    p = lis.port
    uaddr = f"127.0.0.1.{p >> 8}.{p & 255}".encode()
    args = (verf + opaque(f"deleg40-{random.getrandbits(32)}".encode())
            + u32(0x40000000) + opaque(b"tcp") + opaque(uaddr) + u32(7))
    r = raw.compound(s, 0, [op(OP_SETCLIENTID, args)])
    expect("v40_setclientid", r.status, 0)
    if r.status != 0:
        return
    r.next()
    clid, confirm = r.dec.u64(), r.dec.fixed(8)
    r = raw.compound(s, 0, [op(OP_SETCLIENTID_CONFIRM, u64(clid) + confirm)])
    expect("v40_setclientid_confirm", r.status, 0)
    check("v40_cb_null_probe", lis.wait(0) is not None, "no CB_NULL")
    time.sleep(0.3)
    r = o.open(root, "g40", nfs4_client.ACCESS_BOTH, nfs4_client.DENY_NONE,
               create=True, owner=b"c40")
    fh = r.fh
    if r.status == 0:
        o.close(r.fh, r.stateid)
    deleg = open40(s, clid, root, fh, "g40", nfs4_client.ACCESS_READ,
                   b"owner40", "v40_open")
    check("v40_read_deleg", deleg and deleg[0] == DELEG_READ, f"{deleg}")
    if not deleg or deleg[0] != DELEG_READ:
        return
    st = o.open(root, "g40", nfs4_client.ACCESS_WRITE, nfs4_client.DENY_NONE,
                owner=b"w40").status
    expect("v40_conflict_delay", st, DELAY)
    args = lis.wait(CB_COMPOUND)
    rec = None
    if args is not None:
        d = Dec(args)
        try:
            rec = {"tag": d.opaque(), "minor": d.u32(), "ident": d.u32(),
                   "n": d.u32(), "op": d.u32(), "stateid": d.fixed(16),
                   "truncate": d.u32(), "fh": d.opaque()}
        except struct.error:
            rec = None
    check("v40_cb_recall", rec is not None and rec["minor"] == 0 and
          rec["ident"] == 7 and rec["n"] == 1 and rec["op"] == CB_RECALL and
          rec["stateid"] == deleg[1] and rec["fh"] == fh, f"{rec}")
    r = raw.compound(s, 0, [op(OP_RENEW, u64(clid))])
    expect("v40_renew", r.status, 0)
    r = raw.compound(s, 0, [raw.op_putfh(fh),
                            op(OP_DELEGRETURN, deleg[1])])
    expect("v40_delegreturn", r.status, 0)
    st = retry(lambda: o.open(root, "g40", nfs4_client.ACCESS_WRITE,
                              nfs4_client.DENY_NONE, owner=b"w40b").status, 0)
    expect("v40_conflict_after_return", st, 0)

    # a write delegation for 4.0 too: another client's GETATTR asks it
    # with CB_GETATTR (minor 0, its callback_ident) and gets its size
    wfh = other_file(o, root, "w40")
    wdeleg = open40(s, clid, root, wfh, "w40", nfs4_client.ACCESS_BOTH,
                    b"owner40w", "v40_open_write")
    if wdeleg:
        check("v40_write_deleg", wdeleg[0] == DELEG_WRITE, f"{wdeleg}")
        if wdeleg[0] == DELEG_WRITE:
            # its own bare GETATTR (no stateid: known by its connection)
            # neither asks nor recalls it
            r = raw.compound(s, 0, [raw.op_putfh(wfh),
                                    raw.op_getattr(FATTR4_SIZE)])
            expect("v40_own_getattr_ok", r.status, 0)
            check("v40_own_getattr_no_callback",
                  lis.wait(CB_COMPOUND, 0.5) is None, "a CB_COMPOUND came")
            lis.getattr_answer = (1, 777)
            st, _, sz = getattr_change_size(o.ss.call([
                raw.op_putfh(wfh), raw.op_getattr(FATTR4_CHANGE,
                                                  FATTR4_SIZE)]), seq=True)
            expect("v40_getattr_asks_holder", st, 0)
            expect("v40_getattr_holders_size", sz, 777)
            args = lis.wait(CB_COMPOUND, 2.0)
            rec = None
            if args is not None:
                d = Dec(args)
                d.opaque()                      # tag
                rec = {"minor": d.u32(), "ident": d.u32(), "n": d.u32(),
                       "op": d.u32(), "fh": d.opaque()}
            check("v40_cb_getattr", rec is not None and rec["minor"] == 0
                  and rec["ident"] == 7 and rec["n"] == 1 and
                  rec["op"] == CB_GETATTR and rec["fh"] == wfh, f"{rec}")
            r = raw.compound(s, 0, [raw.op_putfh(wfh),
                                    op(OP_DELEGRETURN, wdeleg[1])])
            expect("v40_write_delegreturn", r.status, 0)
    s.close()
    lis.ls.close()


def t_deleg(port, exp_path, nodeleg_path, nasd, state):
    h = Holder(port, f"deleg-holder-{random.getrandbits(32)}")
    check("holder_probe_answered", h.probe_answered, "no CB_NULL")
    o = nfs4_client.Client(port, f"deleg-other-{random.getrandbits(32)}")
    check("other_session", o.error is None, f"{o.error}")
    st, root = walk_fh(o.ss, exp_path)
    expect("other_walk_export", st, 0)
    st, ndroot = walk_fh(o.ss, nodeleg_path)
    expect("other_walk_nodeleg_export", st, 0)

    # --- a read delegation, READ under it, none for the other ---
    r = o.open(root, "f1", nfs4_client.ACCESS_BOTH, nfs4_client.DENY_NONE,
               create=True, owner=b"creator")
    expect("other_create_f1", r.status, 0)
    check("no_deleg_without_back_channel",
          r.deleg is not None and r.deleg[0] == DELEG_NONE, f"{r.deleg}")
    fh1 = r.fh
    if r.status == 0:
        o.close(r.fh, r.stateid)
    st, osid1, deleg, _ = h.open(root, "f1", nfs4_client.ACCESS_READ)
    got = st == 0 and deleg is not None and deleg[0] == DELEG_READ
    check("read_deleg_granted", got, f"{sname(st)} {deleg}")
    if not got:
        return
    dsid1 = deleg[1]
    r, _ = h.call([raw.op_putfh(fh1),
                   op(OP_READ, dsid1 + u64(0) + u32(16))])
    expect("read_with_deleg_stateid", r.status, 0)
    r, _ = h.call([raw.op_putfh(fh1),
                   op(OP_WRITE, dsid1 + u64(0) + u32(2) + opaque(b"x"))])
    expect("write_with_read_deleg_openmode", r.status, 10038)
    r, _ = h.call([raw.op_putfh(fh1), op(OP_FREE_STATEID, dsid1)])
    expect("free_stateid_of_held_deleg", r.status, LOCKS_HELD)

    # --- CLAIM_DELEG_CUR_FH / CLAIM_DELEGATE_CUR ---
    st, csid, cdeleg, _ = h.open(fh1, "", nfs4_client.ACCESS_READ,
                                 owner=b"claimer",
                                 claim=u32(5) + dsid1)
    check("claim_deleg_cur_fh_ok", st == 0 and cdeleg[0] == DELEG_NONE,
          f"{sname(st)} {cdeleg}")
    bogus = u32(1) + bytes(random.getrandbits(8) for _ in range(12))
    st, _, _, _ = h.open(fh1, "", nfs4_client.ACCESS_READ, owner=b"claimer2",
                         claim=u32(5) + bogus)
    expect("claim_deleg_cur_fh_bogus", st, BAD_STATEID)
    st, _, cdeleg, _ = h.open(root, "f1", nfs4_client.ACCESS_READ,
                              owner=b"claimer3",
                              claim=u32(2) + dsid1 + opaque(b"f1"))
    check("claim_delegate_cur_ok", st == 0 and cdeleg[0] == DELEG_NONE,
          f"{sname(st)} {cdeleg}")

    # --- a conflicting OPEN recalls it ---
    def other_open_write():
        r = o.open(root, "f1", nfs4_client.ACCESS_WRITE,
                   nfs4_client.DENY_NONE, owner=b"writer")
        other_open_write.r = r
        return r.status
    expect("conflicting_open_delay", other_open_write(), DELAY)
    xid, rec = wait_recall(h)
    ok = rec is not None
    check("cb_recall_sent", ok, "no CB_COMPOUND within 5 s")
    if ok:
        check("cb_compound_minor_1", rec["minor"] == 1 and rec["nops"] == 2,
              f"{rec}")
        check("cb_sequence_session_slot0_seq1",
              rec.get("sessionid") == h.sid and rec.get("slot") == 0 and
              rec.get("seq") == 1, f"{rec}")
        check("cb_recall_stateid_and_fh",
              rec.get("stateid") == dsid1 and rec.get("fh") == fh1,
              f"{rec.get('stateid')!r} {rec.get('fh')!r}")
        answer_recall(h.c, xid, rec)
    time.sleep(0.3)
    expect("still_delay_before_return", other_open_write(), DELAY)
    r, _ = h.call([raw.op_putfh(fh1), op(OP_DELEGRETURN, dsid1)])
    expect("delegreturn", r.status, 0)
    st = retry(other_open_write, 0)
    expect("conflicting_open_after_return", st, 0)
    if st == 0:
        r = other_open_write.r
        o.close(r.fh, r.stateid)
    r, _ = h.call([raw.op_putfh(fh1), op(OP_DELEGRETURN, dsid1)])
    expect("delegreturn_again_bad_stateid", r.status, BAD_STATEID)
    st, s2, deleg, _ = h.open(root, "f1", nfs4_client.ACCESS_READ,
                              owner=b"again")
    check("no_deleg_right_after_recall",
          st == 0 and deleg[0] == DELEG_NONE, f"{sname(st)} {deleg}")

    # --- wants and the export knob ---
    st, _, deleg, _ = h.open(root, "f1",
                             nfs4_client.ACCESS_READ | WANT_NO_DELEG,
                             owner=b"nowant")
    check("want_no_deleg_not_wanted",
          st == 0 and deleg == (DELEG_NONE_EXT, None, WND4_NOT_WANTED),
          f"{sname(st)} {deleg}")
    st, _, _, ndfh = h.open(ndroot, "nd", nfs4_client.ACCESS_BOTH,
                            create=True, owner=b"nd")
    st, _, deleg, _ = h.open(ndroot, "nd",
                             nfs4_client.ACCESS_READ | WANT_READ_DELEG,
                             owner=b"nd2")
    check("deleg_no_export_resource",
          st == 0 and deleg == (DELEG_NONE_EXT, None, WND4_RESOURCE),
          f"{sname(st)} {deleg}")
    st, _, deleg, _ = h.open(ndroot, "nd", nfs4_client.ACCESS_READ,
                             owner=b"nd3")
    check("deleg_no_export_none", st == 0 and deleg[0] == DELEG_NONE,
          f"{sname(st)} {deleg}")

    # --- another client's byte-range lock: no delegation ---
    r = o.open(root, "locked", nfs4_client.ACCESS_BOTH,
               nfs4_client.DENY_NONE, create=True, owner=b"locker")
    if r.status == 0:
        lk = o.lock(r.fh, r.stateid, nfs4_client.WRITE_LT, 0, 10)
        expect("other_lock", lk.status, 0)
        o.close(r.fh, r.stateid) if lk.status != 0 else None
    st, _, deleg, _ = h.open(root, "locked", nfs4_client.ACCESS_READ,
                             owner=b"lk")
    check("no_deleg_with_others_lock", st == 0 and deleg[0] == DELEG_NONE,
          f"{sname(st)} {deleg}")

    # --- WANT_DELEGATION ---
    r = o.open(root, "f4", nfs4_client.ACCESS_BOTH, nfs4_client.DENY_NONE,
               create=True, owner=b"c4")
    fh4 = r.fh
    if r.status == 0:
        o.close(r.fh, r.stateid)

    def want(fh, wbits, claim):
        r, _ = h.call([raw.op_putfh(fh), op(OP_WANT_DELEGATION,
                                            u32(wbits) + claim)])
        d = None
        if r.status == 0:
            r.next()
            r.next()
            d = nfs4_client.parse_delegation(r.dec)
        return r.status, d
    st, d = want(fh4, WANT_READ_DELEG, u32(4))
    check("want_delegation_read", st == 0 and d and d[0] == DELEG_READ,
          f"{sname(st)} {d}")
    if st == 0 and d and d[1]:
        r, _ = h.call([raw.op_putfh(fh4), op(OP_DELEGRETURN, d[1])])
        expect("want_delegation_return", r.status, 0)
    st, d = want(root, WANT_READ_DELEG, u32(4))
    check("want_delegation_dir_is_dir",
          st == 0 and d == (DELEG_NONE_EXT, None, WND4_IS_DIR),
          f"{sname(st)} {d}")
    st, _ = want(fh4, WANT_READ_DELEG, u32(6))
    expect("want_delegation_deleg_prev_fh_notsupp", st, NOTSUPP)
    st, _ = want(fh4, WANT_READ_DELEG, u32(1) + u32(DELEG_READ))
    expect("want_delegation_previous_no_grace", st, NO_GRACE)
    st, _ = want(fh4, WANT_READ_DELEG, u32(9))
    expect("want_delegation_bad_claim_badxdr", st, BADXDR)
    # delegations are not kept across a client's restart (as knfsd):
    # OPEN CLAIM_DELEGATE_PREV / CLAIM_DELEG_PREV_FH and DELEGPURGE
    for label, claim in (("delegate_prev", u32(3) + opaque(b"f4")),
                         ("deleg_prev_fh", u32(6))):
        st, _, _, _ = h.open(root if claim[3] == 3 else fh4, "f4",
                             nfs4_client.ACCESS_READ, owner=b"prev",
                             claim=claim)
        expect(f"open_claim_{label}_notsupp", st, NOTSUPP)
    r, _ = h.call([op(7, u64(h.clid))])           # DELEGPURGE
    expect("delegpurge_notsupp", r.status, NOTSUPP)

    # --- another client's LOCKT and REMOVE recall; a 4.2 client's
    # CB_COMPOUND says minor version 2 ---
    def lockt6():
        return o.lockt(fh6, nfs4_client.WRITE_LT, 0, 10).status
    fh6 = other_file(o, root, "f6")
    recall_cycle(h, root, "f6", "lockt", lockt6)
    other_file(o, root, "f3")
    recall_cycle(h, root, "f3", "remove",
                 lambda: o.remove(root, "f3").status,
                 lambda rec: rec.get("seq") == 3)
    h2 = Holder(port, f"deleg-holder42-{random.getrandbits(32)}", minor=2)
    other_file(o, root, "f5")
    recall_cycle(h2, root, "f5", "v42",
                 lambda: o.open(root, "f5", nfs4_client.ACCESS_WRITE,
                                nfs4_client.DENY_NONE,
                                owner=b"w5").status,
                 lambda rec: rec["minor"] == 2 and
                 rec.get("sessionid") == h2.sid)
    h2.c.close()

    # --- a CB_RECALL never answered: the path goes down; once the client
    # binds a new connection (and answers its CB_NULL) the recall is sent
    # again there ---
    h3 = Holder(port, f"deleg-lost-{random.getrandbits(32)}")
    other_file(o, root, "f7")
    st, _, deleg, fh7 = h3.open(root, "f7", nfs4_client.ACCESS_READ,
                                owner=b"r7")
    if check("lost_read_deleg", st == 0 and deleg[0] == DELEG_READ,
             f"{sname(st)} {deleg}"):
        def conflict7():
            return o.open(root, "f7", nfs4_client.ACCESS_WRITE,
                          nfs4_client.DENY_NONE, owner=b"w7").status
        expect("lost_conflict_delay", conflict7(), DELAY)
        xid, rec = wait_recall(h3)
        check("lost_first_recall", rec is not None, "no CB_COMPOUND")
        time.sleep(5.5)                  # not answered
        fl = h3.seq_flags()
        check("lost_recall_path_down",
              fl is not None and fl & bc.CB_PATH_DOWN_SESSION, f"{fl}")
        c2 = CallConn(port)
        r, _ = c2.compound([op(bc.OP_BIND_CONN_TO_SESSION,
                               h3.sid + u32(0x7) + u32(0))])
        expect("lost_bind_conn", r.status, 0)
        h3.c, old = c2, h3.c
        xid, rec = wait_recall(h3, 8.0)  # CB_NULL answered on the way
        check("lost_recall_sent_again", rec is not None and
              rec.get("stateid") == deleg[1] and rec.get("seq") == 1,
              f"{rec}")
        if rec:
            answer_recall(h3.c, xid, rec)
        r, _ = h3.call([raw.op_putfh(fh7), op(OP_DELEGRETURN, deleg[1])])
        expect("lost_delegreturn", r.status, 0)
        expect("lost_conflict_after_return", retry(conflict7, 0), 0)
        old.close()
    h3.c.close()

    # --- a write delegation: another client's GETATTR asks its holder
    # (CB_GETATTR) rather than recalling it; unanswered, it is recalled,
    # and never returned ---
    # (a file its OPEN creates gets none: see created_no_deleg)
    st, csid, deleg, cfh = h.open(root, "f2", nfs4_client.ACCESS_BOTH,
                                  create=True, owner=b"w2c")
    check("created_no_deleg", st == 0 and deleg[0] == DELEG_NONE,
          f"{sname(st)} {deleg}")
    if st == 0:
        h.call([raw.op_putfh(cfh), op(OP_CLOSE, u32(0) + csid)])
    st, s2, deleg, fh2 = h.open(root, "f2", nfs4_client.ACCESS_BOTH,
                                owner=b"w2")
    got = st == 0 and deleg is not None and deleg[0] == DELEG_WRITE
    check("write_deleg_granted", got, f"{sname(st)} {deleg}")
    if not got:
        return
    dsid2 = deleg[1]
    base = getattr_change_size(h.call([raw.op_putfh(fh2), raw.op_getattr(
        FATTR4_CHANGE, FATTR4_SIZE)])[0])[1]
    r, _ = h.call([raw.op_putfh(fh2),
                   op(OP_WRITE, dsid2 + u64(0) + u32(2) + opaque(b"hello"))])
    expect("write_with_write_deleg", r.status, 0)
    path2 = os.path.join(exp_path, "f2")
    os.utime(path2, ns=(10**18, 10**18))       # a known mtime, long ago

    def other_getattr():
        rr = o.ss.call([raw.op_putfh(fh2), raw.op_getattr(FATTR4_SIZE)])
        return rr.status

    def asked(change, size):
        """Another client's GETATTR while the holder, on its back
        channel, answers CB_GETATTR with @change and @size: (status,
        size, the CB_COMPOUND's args)."""
        got = {}

        def holder():
            xid, rec = wait_recall(h)
            got["rec"] = rec
            if rec and "getattr_fh" in rec:
                answer_getattr(h.c, xid, rec, change, size)
        t = threading.Thread(target=holder)
        t.start()
        st, _, sz = getattr_change_size(o.ss.call([
            raw.op_putfh(fh2), raw.op_getattr(FATTR4_CHANGE, FATTR4_SIZE)]),
            seq=True)
        t.join()
        return st, sz, got.get("rec")

    # the holder changed the file (its change attribute moved): its size,
    # and the file's mtime set to now
    st, sz, rec = asked(base + 1, 4096)
    expect("getattr_asks_holder", st, 0)
    check("cb_getattr_sent", rec is not None and
          rec.get("getattr_fh") == fh2 and
          rec.get("mask") == [1 << FATTR4_CHANGE | 1 << FATTR4_SIZE] and
          rec.get("nops") == 2, f"{rec}")
    expect("getattr_holders_size", sz, 4096)
    check("getattr_modified_mtime_now",
          abs(os.stat(path2).st_mtime - time.time()) < 30,
          f"{os.stat(path2).st_mtime}")
    # unchanged by the holder: the server's own size and mtime
    os.utime(path2, ns=(10**18, 10**18))
    st, sz, rec = asked(base, 4096)
    expect("getattr_unmodified_ok", st, 0)
    expect("getattr_unmodified_servers_size", sz, 5)
    expect("getattr_unmodified_mtime_kept", os.stat(path2).st_mtime_ns,
           10**18)
    # NFSv3's GETATTR asks the same way (on a worker, no JUKEBOX)
    got3 = {}

    def holder3():
        xid, rec = wait_recall(h)
        got3["rec"] = rec
        if rec and "getattr_fh" in rec:
            answer_getattr(h.c, xid, rec, base + 2, 6000)
    t = threading.Thread(target=holder3)
    t.start()
    with Client3(port) as c3:
        st3, a3 = c3.getattr(fh2)
    t.join()
    check("nfs3_getattr_asks_holder", st3 == 0 and a3 is not None and
          a3["size"] == 6000 and got3.get("rec") is not None and
          "getattr_fh" in got3["rec"], f"{st3} {a3} {got3}")
    r, _ = h.call([raw.op_putfh(fh2),
                   op(OP_WRITE, dsid2 + u64(7) + u32(2) + opaque(b"!"))])
    expect("write_deleg_kept_after_cb_getattr", r.status, 0)
    # a holder that does not answer in time: recalled instead
    expect("getattr_unanswered_delay", other_getattr(), DELAY)
    xid, rec = wait_recall(h)
    check("cb_getattr_unanswered", rec is not None and
          "getattr_fh" in rec, f"{rec}")
    if rec:
        answer_getattr(h.c, xid, rec, base, 8)
    xid, rec = wait_recall(h)
    check("cb_recall_write_deleg", rec is not None and
          rec.get("stateid") == dsid2, f"{rec}")
    if rec:
        answer_recall(h.c, xid, rec)
    # the holder keeps its lease (SEQUENCE) but never returns
    end = time.time() + LEASE + 6
    revoked_flag = False
    while time.time() < end:
        fl = h.seq_flags()
        if fl is not None and fl & RECALLABLE_STATE_REVOKED:
            revoked_flag = True
            break
        o.ss.call([])
        time.sleep(1.0)
    check("seq_recallable_state_revoked", revoked_flag,
          f"no flag after {LEASE + 6} s")
    expect("getattr_after_revoke", other_getattr(), 0)
    r, _ = h.call([raw.op_putfh(fh2),
                   op(OP_READ, dsid2 + u64(0) + u32(5))])
    expect("read_revoked_deleg", r.status, DELEG_REVOKED)
    tst = test_stateid(h, dsid2)
    expect("test_stateid_revoked", tst, DELEG_REVOKED)
    r, _ = h.call([raw.op_putfh(fh2), op(OP_DELEGRETURN, dsid2)])
    expect("delegreturn_revoked", r.status, DELEG_REVOKED)
    r, _ = h.call([op(OP_FREE_STATEID, dsid2)])
    expect("free_stateid_revoked", r.status, 0)
    fl = h.seq_flags()
    check("revoked_flag_cleared",
          fl is not None and not fl & RECALLABLE_STATE_REVOKED, f"{fl}")
    tst = test_stateid(h, dsid2)
    expect("test_stateid_freed", tst, BAD_STATEID)

    # --- NFSv4.0 ---
    t_deleg40(port, exp_path, o, root)

    # --- nasd stats ---
    d = stats(nasd, state)
    vals = {k: stat_value(d, k) for k in (
        "nfs4_delegations_total", "nfs4_deleg_recalls_total",
        "nfs4_deleg_returns_total", "nfs4_deleg_revoked_total")}
    check("stats_delegations",
          (vals["nfs4_delegations_total"] or 0) >= 3 and
          (vals["nfs4_deleg_recalls_total"] or 0) >= 3 and
          (vals["nfs4_deleg_returns_total"] or 0) >= 2 and
          vals["nfs4_deleg_revoked_total"] == 1, f"{vals}")
    procs = [x for x in d.get("procedures", [])
             if x.get("program") == "nfs4_cb" and
             x.get("procedure") == "CB_RECALL"]
    check("stats_cb_recall_counted", procs and procs[0]["count"] >= 3,
          f"{procs}")
    h.c.close()
    o.close_conn()


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    nasd = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="nasd-nfs4deleg-")
    os.chmod(tmp, 0o755)
    export = os.path.join(tmp, "export")
    nodeleg = os.path.join(tmp, "nodeleg")
    state = os.path.join(tmp, "state")
    for p in (export, nodeleg):
        os.mkdir(p, 0o755)
    os.mkdir(state)
    port = free_port(int(os.environ.get("NFS4DELEG_PORT", "20600")))
    logpath = os.path.join(tmp, "nasd.log")
    log = open(logpath, "w")
    proc = raw.start_nasd(nasd, port, export, state, log, args=[
        "--lease-time", str(LEASE), "--smb-listen", "0",
        "--export", f"{nodeleg}:rw,no_root_squash,deleg=no"])
    try:
        if proc.poll() is not None:
            check("nasd_started", False, f"exited {proc.returncode}")
        else:
            try:
                t_deleg(port, export, nodeleg, nasd, state)
            except Exception as e:          # report, then clean up
                check("exception", False, f"{type(e).__name__}: {e}")
            check("nasd_still_running", proc.poll() is None,
                  f"exit {proc.returncode}")
            raw.stop_nasd(proc)
        log.close()
        text = raw.log_verdict(logpath)
        check("log_delegation_revoked", "delegation revoked" in text,
              "no 'delegation revoked' line")
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
