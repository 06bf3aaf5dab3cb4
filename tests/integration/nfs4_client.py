# SPDX-License-Identifier: MIT
"""A small raw NFSv4.1 client for tests that need open and lock state:
OPEN (share_access / share_deny, optionally creating), CLOSE, LOCK,
LOCKT, LOCKU, READ, WRITE, REMOVE and RENAME, one COMPOUND each, over
test_nfs4_raw's XDR helpers and Session (EXCHANGE_ID + CREATE_SESSION +
SEQUENCE). Stdlib only; importable from any python3.

Each call returns a Reply: .status (the COMPOUND's), and whatever the
last op's result carried (.stateid, .fh, .denied, .data, .count).
"""

import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_nfs4_raw import (ERR, Session, connect, op, op_putfh,  # noqa: E402
                           opaque, skip_body, u32, u64)

OP_CLOSE, OP_GETFH, OP_LOCK, OP_LOCKT, OP_LOCKU = 4, 10, 12, 13, 14
OP_OPEN, OP_PUTFH, OP_READ, OP_REMOVE, OP_WRITE = 18, 22, 25, 28, 38
OP_RENAME, OP_SAVEFH = 29, 32
OP_SEQUENCE = 53

# share_access / share_deny (RFC 8881 §18.16.3), nfs_lock_type4
ACCESS_READ, ACCESS_WRITE, ACCESS_BOTH = 1, 2, 3
DENY_NONE, DENY_READ, DENY_WRITE, DENY_BOTH = 0, 1, 2, 3
READ_LT, WRITE_LT = 1, 2
ALL = 0xFFFFFFFFFFFFFFFF

NOENT, DENIED, LOCKED, SHARE_DENIED = 2, 10010, 10012, 10015
FILE_OPEN, BAD_STATEID, DELAY = 10046, 10025, 10008
ERR.update({2: "NOENT", 10010: "DENIED", 10012: "LOCKED",
            10015: "SHARE_DENIED", 10046: "FILE_OPEN", 10013: "GRACE",
            10008: "DELAY"})
ANON_STATEID = bytes(16)    # all zeros (RFC 8881 §8.2.3)


class Reply:
    def __init__(self, status):
        self.status = status
        self.stateid = None
        self.fh = None
        self.denied = None      # (offset, length, locktype, owner)
        self.data = None
        self.count = None
        self.deleg = None       # (type, stateid, recall or why)


def _stateid(d):
    return d.fixed(16)


def _open_res(d, rep):
    rep.stateid = _stateid(d)
    d.u32()                     # change_info4: atomic, before, after
    d.u64()
    d.u64()
    d.u32()                     # rflags
    d.bitmap()                  # attrset
    rep.deleg = parse_delegation(d)


def parse_delegation(d):
    """open_delegation4 (RFC 8881 §18.16.2): (type, stateid or None,
    recall or why)."""
    dtype = d.u32()
    if dtype == 3:              # OPEN_DELEGATE_NONE_EXT
        why = d.u32()
        if why in (1, 2):       # WND4_CONTENTION / RESOURCE
            d.u32()
        return (dtype, None, why)
    if dtype in (1, 2):         # READ / WRITE
        sid = _stateid(d)
        recall = d.u32()
        if dtype == 2:          # nfs_space_limit4
            if d.u32() == 1:
                d.u64()
            else:
                d.u32()
                d.u32()
        d.u32()                 # nfsace4: type, flag, mask, who
        d.u32()
        d.u32()
        d.opaque()
        return (dtype, sid, recall)
    if dtype != 0:
        raise ValueError(f"delegation type {dtype} not parsed")
    return (0, None, None)


def _lock_res(d, rep, opnum, st):
    if st == 0 and opnum == OP_LOCK:        # LOCKT4res: void when OK
        rep.stateid = _stateid(d)
    elif st == DENIED:
        off, length, lt = d.u64(), d.u64(), d.u32()
        d.u64()
        rep.denied = (off, length, lt, d.opaque())


def _read_res(d, rep):
    d.u32()                     # eof
    rep.data = d.opaque()


def _write_res(d, rep):
    rep.count = d.u32()
    d.u32()
    d.fixed(8)


class Client:
    """One NFSv4.1 client (its own client id and session)."""

    def __init__(self, port, name=None):
        self.sock = connect(port)
        self.ss = Session(self.sock, 1, name or
                          f"cross-{os.getpid()}-{random.getrandbits(32)}")
        self.error = self.ss.error
        self.clientid = self.ss.clientid

    def close_conn(self):
        self.sock.close()

    def _call(self, ops):
        """Run PUTFH... ops after SEQUENCE; parse the results this module
        knows. Returns a Reply of the COMPOUND's status."""
        r = self.ss.call(ops)
        rep = Reply(r.status)
        if r.accept != 0:
            rep.status = -1
            return rep
        for _ in range(r.n):
            o, st = r.next()
            d = r.dec
            if o in (OP_LOCK, OP_LOCKT):
                _lock_res(d, rep, o, st)
            elif st != 0:
                break
            elif o == OP_OPEN:
                _open_res(d, rep)
            elif o in (OP_CLOSE, OP_LOCKU):
                rep.stateid = _stateid(d)
            elif o == OP_GETFH:
                rep.fh = d.opaque()
            elif o == OP_READ:
                _read_res(d, rep)
            elif o == OP_WRITE:
                _write_res(d, rep)
            elif o in (OP_REMOVE, OP_RENAME):
                for _ in range(1 if o == OP_REMOVE else 2):
                    d.u32()             # change_info4
                    d.u64()
                    d.u64()
            elif o == OP_SAVEFH:
                pass
            else:
                skip_body(r, o, st)
            if st != 0:
                break
        return rep

    def open(self, dirfh, name, access, deny, create=False,
             owner=b"cross-open-owner"):
        """OPEN (CLAIM_NULL) of @name in @dirfh, then GETFH."""
        how = u32(1) + u32(0) + u32(0) + u32(0) if create else u32(0)
        args = (u32(0) + u32(access) + u32(deny) + u64(self.clientid)
                + opaque(owner) + how + u32(0) + opaque(name.encode()))
        return self._call([op_putfh(dirfh), op(OP_OPEN, args),
                           op(OP_GETFH)])

    def close(self, fh, stateid):
        return self._call([op_putfh(fh),
                           op(OP_CLOSE, u32(0) + stateid)])

    def lock(self, fh, open_stateid, locktype, off, length,
             owner=b"cross-lock-owner", lock_stateid=None):
        """LOCK: a new lock owner from @open_stateid, or the lock owner
        of @lock_stateid."""
        args = u32(locktype) + u32(0) + u64(off) + u64(length)
        if lock_stateid is None:
            args += (u32(1) + u32(0) + open_stateid + u32(0)
                     + u64(self.clientid) + opaque(owner))
        else:
            args += u32(0) + lock_stateid + u32(0)
        return self._call([op_putfh(fh), op(OP_LOCK, args)])

    def lockt(self, fh, locktype, off, length, owner=b"cross-test-owner"):
        args = (u32(locktype) + u64(off) + u64(length) + u64(self.clientid)
                + opaque(owner))
        return self._call([op_putfh(fh), op(OP_LOCKT, args)])

    def locku(self, fh, lock_stateid, locktype, off, length):
        args = (u32(locktype) + u32(0) + lock_stateid + u64(off)
                + u64(length))
        return self._call([op_putfh(fh), op(OP_LOCKU, args)])

    def read(self, fh, stateid, off, count):
        return self._call([op_putfh(fh),
                           op(OP_READ, stateid + u64(off) + u32(count))])

    def write(self, fh, stateid, off, data):
        return self._call([op_putfh(fh),
                           op(OP_WRITE, stateid + u64(off) + u32(2)
                              + opaque(data))])

    def rename(self, sdirfh, oldname, tdirfh, newname):
        return self._call([op_putfh(sdirfh), op(OP_SAVEFH), op_putfh(tdirfh),
                           op(OP_RENAME, opaque(oldname.encode())
                              + opaque(newname.encode()))])

    def remove(self, dirfh, name):
        return self._call([op_putfh(dirfh),
                           op(OP_REMOVE, opaque(name.encode()))])
