#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""NLM (100021 v4, v3) and NSM (100024) against nasd, in raw RPC over TCP
and UDP.

A listener of the test's own plays the client's side: one TCP port that
answers the port mapper's GETPORT (for 100021 and 100024: itself), NLM
GRANTED (recorded, answered GRANTED) and SM_NOTIFY (recorded). nasd is
told to ask it with --callback-rpcbind-port.

Checks: TEST granted / denied with the holder; LOCK non-blocking DENIED;
a blocking LOCK is BLOCKED and the listener gets GRANTED after the
holder's UNLOCK; CANCEL of a waiting lock GRANTED, of none DENIED;
UNLOCK; stale and forged handles STALE_FH (v4) / DENIED_NOLOCKS (v3);
v3 32-bit ranges; 64-bit range overflow FBIG; LOCK_MSG answered by a
LOCK_RES call; SHARE vs SHARE deny; FREE_ALL and SM_NOTIFY from the
client release its locks; NLM and NFSv4 locks and shares on one file, and
no NFSv4 delegation while an NLM lock of another client is held; hostile
arguments are GARBAGE_ARGS; after a
restart: SM_NOTIFY reaches the listener, a new LOCK is DENIED_GRACE_PERIOD
and a reclaim is GRANTED; after grace a reclaim is refused. Over UDP:
the same lock table, a retransmission answered from the DRC, SM_NOTIFY,
no NFS, hostile datagrams dropped.

usage: test_nlm.py NASD
"""

import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nt_nfs3 import Client, Dec, Harness, free_port  # noqa: E402
from hostile import (opaque, u32, recv_record, record,  # noqa: E402
                     auth_sys, call_msg, parse_reply)
from nt_nfs3 import u64  # noqa: E402

NLM, NSM = 100021, 100024
(TEST, LOCK, CANCEL, UNLOCK, GRANTED, TEST_MSG, LOCK_MSG) = range(1, 8)
LOCK_RES, SHARE, UNSHARE, NM_LOCK, FREE_ALL = 12, 20, 21, 22, 23
SM_STAT, SM_MON, SM_NOTIFY = 1, 2, 6
GRANTED_ST, DENIED, NOLOCKS, BLOCKED, GRACE = 0, 1, 2, 3, 4
STALE_FH, FBIG = 7, 8
CALLER = b"nlm-test-client"


def nlm_lock(fh, oh, svid, off, length, v4=True, caller=CALLER):
    rng = u64(off) + u64(length) if v4 else u32(off) + u32(length)
    return (opaque(caller) + opaque(fh) + opaque(oh) + u32(svid & 0xFFFFFFFF)
            + rng)


def lockargs(fh, oh, svid, off, length, excl=True, block=False,
             reclaim=False, cookie=b"ck", v4=True, caller=CALLER):
    return (opaque(cookie) + u32(block) + u32(excl) +
            nlm_lock(fh, oh, svid, off, length, v4, caller) + u32(reclaim) +
            u32(1))


def testargs(fh, oh, svid, off, length, excl=True, v4=True):
    return (opaque(b"tk") + u32(excl) +
            nlm_lock(fh, oh, svid, off, length, v4))


def cancargs(fh, oh, svid, off, length, excl=True, block=True):
    return (opaque(b"cc") + u32(block) + u32(excl) +
            nlm_lock(fh, oh, svid, off, length))


def unlockargs(fh, oh, svid, off, length, v4=True, caller=CALLER):
    return opaque(b"uk") + nlm_lock(fh, oh, svid, off, length, v4, caller)


def shareargs(fh, oh, mode, access, caller=CALLER):
    return (opaque(b"sk") + opaque(caller) + opaque(fh) + opaque(oh) +
            u32(mode) + u32(access) + u32(0))


class Listener(threading.Thread):
    """The client side: port mapper + lockd + statd on one TCP port."""

    def __init__(self):
        super().__init__(daemon=True)
        self.s = socket.socket()
        self.s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.s.bind(("127.0.0.1", 0))
        self.s.listen(16)
        self.port = self.s.getsockname()[1]
        self.calls = []            # (prog, vers, proc, args)
        self.lock = threading.Lock()

    def got(self, prog, proc):
        with self.lock:
            return [c for c in self.calls if c[0] == prog and c[2] == proc]

    def wait(self, prog, proc, n=1, timeout=10.0):
        end = time.time() + timeout
        while time.time() < end:
            if len(self.got(prog, proc)) >= n:
                return True
            time.sleep(0.05)
        return False

    def run(self):
        while True:
            try:
                c, _ = self.s.accept()
            except OSError:
                return
            threading.Thread(target=self.serve, args=(c,),
                             daemon=True).start()

    def serve(self, c):
        c.settimeout(10)
        try:
            while True:
                msg = recv_record(c)
                xid, _mt, _rv, prog, vers, proc = struct.unpack_from(
                    ">6I", msg)
                off = 24
                for _ in range(2):      # cred, verf
                    _fl, ln = struct.unpack_from(">2I", msg, off)
                    off += 8 + ((ln + 3) & ~3)
                args = msg[off:]
                body = b""
                if prog == 100000:
                    body = u32(self.port)
                else:
                    with self.lock:
                        self.calls.append((prog, vers, proc, args))
                    if prog == NLM and proc == GRANTED:
                        ck = Dec(args).opaque()
                        body = opaque(ck) + u32(GRANTED_ST)
                rep = (u32(xid) + u32(1) + u32(0) + u32(0) + u32(0) +
                       u32(0) + body)
                c.sendall(record(rep))
        except Exception:
            c.close()


class Nlm(Client):
    def nlm(self, proc, args, vers=4, prog=NLM):
        r = self.call(prog, proc, args, vers=vers)
        return r

    def st(self, proc, args, vers=4):
        r = self.nlm(proc, args, vers)
        if r["kind"] != "SUCCESS":
            return r["kind"]
        d = Dec(r["body"])
        d.opaque()
        return d.u32()


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    tmp = tempfile.mkdtemp(prefix="nasd-test-nlm.")
    h = Harness(sys.argv[1], tmp)
    exp = os.path.join(tmp, "export")
    state = os.path.join(tmp, "state")
    os.makedirs(exp)
    os.makedirs(state)
    lis = Listener()
    lis.start()
    port = free_port(22049)
    args = ["--listen", f"127.0.0.1:{port}", "--mountd-port", "0",
            "--smb-listen", "0", "--state-dir", state,
            "--export", exp + ":rw,no_root_squash", "--grace-time", "4",
            "--callback-rpcbind-port", str(lis.port)]
    if not h.start(port, args):
        return h.finish()
    try:
        run(h, port, lis, exp)
        # what nasd stats says of it
        out = subprocess.run([sys.argv[1], "stats", "--state-dir", state,
                              "--json"], capture_output=True, timeout=20)
        try:
            vals = json.loads(out.stdout)["values"]
        except (ValueError, KeyError):
            vals = {}
        h.check("stats_nlm_callbacks",
                vals.get("nlm_callbacks_total", 0) >= 2, str(vals))
        h.check("stats_nlm_hosts", vals.get("nlm_hosts", 0) >= 1, str(vals))
        h.eq("stats_nlm_nothing_blocked", 0, vals.get("nlm_blocked"))
        # ---- restart: SM_NOTIFY to the recorded client, grace
        h.stop()
        if not h.start(port, args):
            return h.finish()
        h.check("sm_notify_sent_after_restart",
                lis.wait(NSM, SM_NOTIFY, 1, 15), f"calls {lis.calls!r}")
        notes = lis.got(NSM, SM_NOTIFY)
        if notes:
            d = Dec(notes[0][3])
            name = d.opaque()
            st = d.u32()
            h.eq("sm_notify_mon_name_is_hostname",
                 socket.gethostname().encode(), name)
            h.check("sm_notify_state_odd", st % 2 == 1, str(st))
        with Nlm(port) as c:
            _, root = c.mnt(exp)
            _, fh, _ = c.lookup(root, "f")
            h.eq("grace_new_lock_refused", GRACE,
                 c.st(LOCK, lockargs(fh, b"o1", 1, 0, 10)))
            h.eq("grace_reclaim_granted", GRANTED_ST,
                 c.st(LOCK, lockargs(fh, b"o1", 1, 0, 10, reclaim=True)))
            # one grace for locks: a new NFSv4 client waits as well
            import nfs4_client as nc
            from test_nfs4_raw import walk_fh
            v4 = nc.Client(port)
            st, dirfh = walk_fh(v4.ss, exp)
            r = v4.open(dirfh, "f", nc.ACCESS_READ, nc.DENY_NONE,
                        owner=b"grace-open")
            h.eq("grace_v4_open_refused", 10013, r.status)
            v4.close_conn()
            time.sleep(4.5)
            h.eq("after_grace_reclaim_refused", GRACE,
                 c.st(LOCK, lockargs(fh, b"o1", 1, 20, 10, reclaim=True)))
            h.eq("after_grace_new_lock_granted", GRANTED_ST,
                 c.st(LOCK, lockargs(fh, b"o1", 1, 20, 10)))
        h.stop()
    finally:
        h.kill()
        shutil.rmtree(tmp, ignore_errors=True)
    return h.finish()


def cross_nfs4(h, port, a, b, root, exp):
    """NLM and NFSv4 state on one file, both ways: byte-range locks (one
    lock table) and share reservations (one share table)."""
    import nfs4_client as nc
    from test_nfs4_raw import walk_fh

    st, fh, _ = a.create(root, "x4")
    h.eq("cross_create", 0, st)
    v4 = nc.Client(port)
    st, dirfh = walk_fh(v4.ss, exp)
    h.eq("cross_v4_dir", 0, st)
    o = v4.open(dirfh, "x4", nc.ACCESS_BOTH, nc.DENY_NONE,
                owner=b"cross-nlm-open")
    h.eq("cross_v4_open", 0, o.status)
    if o.status != 0:
        return
    # an NLM lock stops an NFSv4 LOCK over the same bytes, not beside them
    h.eq("cross_nlm_lock", GRANTED_ST,
         a.st(LOCK, lockargs(fh, b"X", 41, 0, 100)))
    r = v4.lock(o.fh, o.stateid, nc.WRITE_LT, 50, 10)
    h.eq("cross_v4_lock_denied_by_nlm", nc.DENIED, r.status)
    r = v4.lockt(o.fh, nc.READ_LT, 99, 1)
    h.eq("cross_v4_lockt_denied_by_nlm", nc.DENIED, r.status)
    r = v4.lock(o.fh, o.stateid, nc.WRITE_LT, 100, 10)
    h.eq("cross_v4_lock_beside_ok", 0, r.status)
    lk = r.stateid if r.status == 0 else None
    h.eq("cross_nlm_unlock", GRANTED_ST,
         a.st(UNLOCK, unlockargs(fh, b"X", 41, 0, 100)))
    # an NFSv4 lock stops an NLM LOCK and shows in TEST
    h.eq("cross_nlm_test_denied_by_v4", DENIED,
         b.st(TEST, testargs(fh, b"Y", 42, 105, 1)))
    h.eq("cross_nlm_lock_denied_by_v4", DENIED,
         b.st(LOCK, lockargs(fh, b"Y", 42, 0, 200)))
    if lk is not None:
        r = v4.locku(o.fh, lk, nc.WRITE_LT, 100, 10)
        h.eq("cross_v4_locku", 0, r.status)
    h.eq("cross_nlm_lock_after_locku", GRANTED_ST,
         b.st(LOCK, lockargs(fh, b"Y", 42, 0, 200)))
    h.eq("cross_nlm_unlock_b", GRANTED_ST,
         b.st(UNLOCK, unlockargs(fh, b"Y", 42, 0, 200)))
    v4.close(o.fh, o.stateid)
    # share reservations: NLM SHARE deny write vs NFSv4 OPEN for write
    h.eq("cross_nlm_share_deny_w", GRANTED_ST,
         a.st(SHARE, shareargs(fh, b"XS", 2, 1)))
    r = v4.open(dirfh, "x4", nc.ACCESS_WRITE, nc.DENY_NONE,
                owner=b"cross-nlm-open2")
    h.eq("cross_v4_open_w_share_denied", nc.SHARE_DENIED, r.status)
    h.eq("cross_nlm_unshare", GRANTED_ST,
         a.st(UNSHARE, shareargs(fh, b"XS", 2, 1)))
    # and NFSv4 OPEN deny write vs NLM SHARE for write
    o = v4.open(dirfh, "x4", nc.ACCESS_READ, nc.DENY_WRITE,
                owner=b"cross-nlm-open3")
    h.eq("cross_v4_open_deny_w", 0, o.status)
    h.eq("cross_nlm_share_w_denied", DENIED,
         b.st(SHARE, shareargs(fh, b"YS", 0, 2)))
    if o.status == 0:
        v4.close(o.fh, o.stateid)
    h.eq("cross_nlm_share_w_after_close", GRANTED_ST,
         b.st(SHARE, shareargs(fh, b"YS", 0, 2)))
    h.eq("cross_nlm_unshare_b", GRANTED_ST,
         b.st(UNSHARE, shareargs(fh, b"YS", 0, 2)))
    # delegations: none while another client holds an NLM lock of the
    # file (RFC 8881 §10.4: it could not see that client's writes)
    import test_nfs4_deleg as td
    hd = td.Holder(port, f"cross-nlm-deleg-{os.getpid()}")
    h.eq("cross_deleg_holder_back_channel", True, hd.probe_answered)
    h.eq("cross_nlm_lock_2", GRANTED_ST,
         a.st(LOCK, lockargs(fh, b"X", 41, 0, 100)))
    st, _, d, _ = hd.open(dirfh, "x4", nc.ACCESS_READ, owner=b"dh1")
    h.eq("cross_no_deleg_with_nlm_lock", (0, td.DELEG_NONE),
         (st, d[0] if d else None))
    h.eq("cross_nlm_unlock_2", GRANTED_ST,
         a.st(UNLOCK, unlockargs(fh, b"X", 41, 0, 100)))
    st, _, d, _ = hd.open(dirfh, "x4", nc.ACCESS_READ, owner=b"dh2")
    h.eq("cross_deleg_after_nlm_unlock", (0, td.DELEG_READ),
         (st, d[0] if d else None))
    # an NLM TEST recalls it (its holder may lock locally): "ask again"
    # (DENIED_GRACE_PERIOD) until it is returned
    if d and d[0] == td.DELEG_READ:
        h.eq("cross_nlm_test_while_recalling", GRACE,
             b.st(TEST, testargs(fh, b"Y", 42, 0, 10)))
        xid, rec = td.wait_recall(hd)
        h.check("cross_nlm_test_recalls", rec is not None, "no CB_RECALL")
        if rec:
            td.answer_recall(hd.c, xid, rec)
        fh4 = td.walk_fh(v4.ss, exp + "/x4")[1]
        r, _ = hd.call([td.raw.op_putfh(fh4),
                        td.op(td.OP_DELEGRETURN, d[1])])
        h.eq("cross_delegreturn", 0, r.status)
        h.eq("cross_nlm_test_after_return", GRANTED_ST,
             b.st(TEST, testargs(fh, b"Y", 42, 0, 10)))
    hd.c.close()
    v4.close_conn()


class Udp:
    """RPC calls in datagrams (RFC 5531 section 10), as sm-notify and a
    UDP lockd send them."""

    def __init__(self, port):
        self.port = port
        self.s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.s.settimeout(2.0)
        self.cred = auth_sys(machine=b"nasd-udp", uid=0, gid=0)

    def send(self, msg):
        self.s.sendto(msg, ("127.0.0.1", self.port))

    def recv(self, xid):
        """The reply to @xid, or None when none came within 2 s."""
        while True:
            try:
                data = self.s.recv(65536)
            except socket.timeout:
                return None
            r = parse_reply(data)
            if r["xid"] == xid:
                r["raw"] = data
                return r

    def call(self, prog, proc, args=b"", vers=4, xid=None):
        xid, msg = call_msg(prog, vers, proc, args, cred=self.cred, xid=xid)
        self.send(msg)
        return self.recv(xid)

    def st(self, proc, args, vers=4):
        r = self.call(NLM, proc, args, vers)
        if r is None or r["kind"] != "SUCCESS":
            return r and r["kind"]
        d = Dec(r["body"])
        d.opaque()
        return d.u32()

    def close(self):
        self.s.close()


def udp(h, port, a, fh):
    """NLM and NSM over UDP, on the NFS port (as registered): the same
    lock table as over TCP, a retransmitted LOCK answered from the
    duplicate request cache, SM_NOTIFY (which sm-notify sends over UDP
    only) releasing the rebooted host's locks; NFS is not served over
    UDP; hostile datagrams are dropped and the server lives on."""
    u = Udp(port)
    try:
        r = u.call(NLM, 0)
        h.eq("udp_nlm_null", "SUCCESS", r and r["kind"])
        r = u.call(NSM, 0, vers=1)
        h.eq("udp_nsm_null", "SUCCESS", r and r["kind"])
        host = b"udp-host"
        h.eq("udp_lock_granted", GRANTED_ST,
             u.st(LOCK, lockargs(fh, b"U", 41, 4000, 10, caller=host)))
        h.eq("udp_lock_seen_over_tcp", DENIED,
             a.st(TEST, testargs(fh, b"A", 11, 4005, 1)))
        # a LOCK datagram sent again (same xid) after its lock went and
        # another owner took the range: the first reply (GRANTED), byte
        # for byte, from the duplicate request cache, not a new DENIED
        xid, msg = call_msg(NLM, 4, LOCK, lockargs(fh, b"U2", 42, 4100, 10,
                                                   caller=host),
                            cred=u.cred, xid=0x5eed0001)
        u.send(msg)
        r1 = u.recv(xid)
        h.eq("udp_unlock_first", GRANTED_ST,
             u.st(UNLOCK, unlockargs(fh, b"U2", 42, 4100, 10, caller=host)))
        h.eq("tcp_takes_range", GRANTED_ST,
             a.st(LOCK, lockargs(fh, b"A", 11, 4100, 10)))
        u.send(msg)
        r2 = u.recv(xid)
        h.check("udp_retransmit_same_reply", r1 is not None and
                r2 is not None and r1["raw"] == r2["raw"],
                f"{r1!r} {r2!r}")
        h.eq("tcp_gives_range_back", GRANTED_ST,
             a.st(UNLOCK, unlockargs(fh, b"A", 11, 4100, 10)))
        h.eq("udp_lock_again", GRANTED_ST,
             u.st(LOCK, lockargs(fh, b"U2", 42, 4100, 10, caller=host)))
        h.eq("udp_v3_test_denied", DENIED,
             u.st(TEST, testargs(fh, b"V", 43, 4000, 1, v4=False,), vers=3))
        h.eq("udp_unlock", GRANTED_ST,
             u.st(UNLOCK, unlockargs(fh, b"U", 41, 4000, 10, caller=host)))
        h.eq("udp_unlocked_seen_over_tcp", GRANTED_ST,
             a.st(TEST, testargs(fh, b"A", 11, 4000, 10)))
        # sm-notify: the host rebooted, its other lock goes
        r = u.call(NSM, SM_NOTIFY, opaque(host) + u32(7), vers=1)
        h.eq("udp_sm_notify_void", ("SUCCESS", b""),
             (r and r["kind"], r and r["body"]))
        h.eq("udp_sm_notify_released", GRANTED_ST,
             a.st(TEST, testargs(fh, b"A", 11, 4100, 10)))
        # NFS is TCP only: no answer over UDP; nor to hostile datagrams
        r = u.call(100003, 0, vers=3)
        h.eq("udp_nfs_not_served", None, r)
        for name, dgram in (
                ("empty", b""), ("short", b"\x00" * 7),
                ("reply_type", u32(0x77) + u32(1) + u32(0) * 6),
                ("huge_opaque", call_msg(NLM, 4, LOCK, u32(0xFFFFFFF0),
                                         cred=u.cred, xid=0x5eed0002)[1]),
                ("truncated_lock", call_msg(NLM, 4, LOCK, lockargs(
                    fh, b"X", 1, 0, 1)[:-5], cred=u.cred,
                    xid=0x5eed0003)[1])):
            u.send(dgram)
        r = u.recv(0x5eed0003)
        h.eq("udp_truncated_garbage_args", "GARBAGE_ARGS", r and r["kind"])
        r = u.call(NLM, 0)
        h.eq("udp_alive_after_hostile", "SUCCESS", r and r["kind"])
    finally:
        u.close()


def run(h, port, lis, exp):
    a = Nlm(port)
    b = Nlm(port)
    st, root = a.mnt(exp)
    h.eq("mnt", 0, st)
    st, fh, _ = a.create(root, "f")
    h.eq("create", 0, st)
    h.eq("null_v4", "SUCCESS", a.nlm(0, b"")["kind"])
    h.eq("null_v1", "SUCCESS", a.nlm(0, b"", vers=1)["kind"])
    h.eq("nsm_null", "SUCCESS", a.call(NSM, 0, b"", vers=1)["kind"])

    # ---- TEST, LOCK, denied with the holder
    h.eq("test_free_granted", GRANTED_ST, a.st(TEST, testargs(fh, b"A", 11,
                                                             0, 100)))
    h.eq("lock_granted", GRANTED_ST,
         a.st(LOCK, lockargs(fh, b"A", 11, 0, 100)))
    r = b.nlm(TEST, testargs(fh, b"B", 22, 50, 10))
    d = Dec(r["body"])
    d.opaque()
    st = d.u32()
    h.eq("test_conflict_denied", DENIED, st)
    if st == DENIED:
        excl, svid, oh, off, ln = d.u32(), d.u32(), d.opaque(), d.u64(), \
            d.u64()
        h.eq("test_holder_reported", (1, 11, b"A", 0, 100),
             (excl, svid, oh, off, ln))
    h.eq("test_shared_vs_excl_denied", DENIED,
         b.st(TEST, testargs(fh, b"B", 22, 0, 1, excl=False)))
    h.eq("test_other_range_granted", GRANTED_ST,
         b.st(TEST, testargs(fh, b"B", 22, 100, 10)))
    h.eq("lock_nonblocking_denied", DENIED,
         b.st(LOCK, lockargs(fh, b"B", 22, 10, 10)))
    h.eq("own_owner_relock_granted", GRANTED_ST,
         a.st(LOCK, lockargs(fh, b"A", 11, 0, 50, excl=False)))
    # v3: 32-bit ranges, same table
    h.eq("v3_test_denied", DENIED,
         b.st(TEST, testargs(fh, b"B", 22, 60, 10, v4=False), vers=3))
    h.eq("v3_lock_past_32bit_range_granted", GRANTED_ST,
         b.st(LOCK, lockargs(fh, b"B", 22, 200, 0, v4=False), vers=3))
    h.eq("v4_test_sees_v3_to_eof", DENIED,
         a.st(TEST, testargs(fh, b"C", 33, 1 << 40, 1)))
    h.eq("v3_unlock", GRANTED_ST,
         b.st(UNLOCK, unlockargs(fh, b"B", 22, 200, 0, v4=False), vers=3))
    h.eq("v4_range_overflow_fbig", FBIG,
         b.st(LOCK, lockargs(fh, b"B", 22, (1 << 64) - 10, 100)))

    # ---- blocking LOCK, GRANTED callback after UNLOCK
    h.eq("blocking_lock_blocked", BLOCKED,
         b.st(LOCK, lockargs(fh, b"B", 22, 10, 10, block=True,
                             cookie=b"blk1")))
    h.eq("blocking_lock_resend_blocked", BLOCKED,
         b.st(LOCK, lockargs(fh, b"B", 22, 10, 10, block=True,
                             cookie=b"blk1")))
    time.sleep(0.3)
    h.eq("no_granted_while_held", [], lis.got(NLM, GRANTED))
    h.eq("unlock_holder", GRANTED_ST,
         a.st(UNLOCK, unlockargs(fh, b"A", 11, 0, 100)))
    ok = lis.wait(NLM, GRANTED, 1, 5)
    h.check("granted_callback_received", ok, f"calls {lis.calls!r}")
    if ok:
        d = Dec(lis.got(NLM, GRANTED)[0][3])
        ck, excl = d.opaque(), d.u32()
        caller, gfh, oh, svid = d.opaque(), d.opaque(), d.opaque(), d.u32()
        off, ln = d.u64(), d.u64()
        h.eq("granted_args_are_the_lock",
             (b"blk1", 1, CALLER, fh, b"B", 22, 10, 10),
             (ck, excl, caller, gfh, oh, svid, off, ln))
    h.eq("granted_lock_is_held", DENIED,
         a.st(TEST, testargs(fh, b"A", 11, 12, 1)))
    h.eq("cancel_not_waiting_denied", DENIED,
         b.st(CANCEL, cancargs(fh, b"B", 22, 10, 10)))
    # a second blocked lock, cancelled: no GRANTED
    h.eq("blocked_again", BLOCKED,
         a.st(LOCK, lockargs(fh, b"A", 11, 0, 30, block=True)))
    h.eq("cancel_waiting_granted", GRANTED_ST,
         a.st(CANCEL, cancargs(fh, b"A", 11, 0, 30)))
    h.eq("unlock_b", GRANTED_ST,
         b.st(UNLOCK, unlockargs(fh, b"B", 22, 0, 0)))
    time.sleep(0.5)
    h.eq("cancelled_lock_not_granted", 1, len(lis.got(NLM, GRANTED)))
    h.eq("cancelled_lock_not_taken", GRANTED_ST,
         b.st(TEST, testargs(fh, b"B", 22, 0, 30)))
    h.eq("unlock_not_held_granted", GRANTED_ST,
         b.st(UNLOCK, unlockargs(fh, b"Z", 99, 0, 0)))

    # ---- handles
    bad = bytearray(fh)
    bad[-1] ^= 1
    h.eq("forged_handle_stale_fh", STALE_FH,
         a.st(LOCK, lockargs(bytes(bad), b"A", 11, 0, 1)))
    h.eq("short_handle_stale_fh", STALE_FH,
         a.st(TEST, testargs(b"xx", b"A", 11, 0, 1)))
    h.eq("v3_forged_handle_denied_nolocks", NOLOCKS,
         a.st(LOCK, lockargs(bytes(bad), b"A", 11, 0, 1, v4=False), vers=3))
    st, fh2, _ = a.create(root, "gone")
    a.remove(root, "gone")
    h.eq("removed_file_stale_fh", STALE_FH,
         a.st(LOCK, lockargs(fh2, b"A", 11, 0, 1)))

    # ---- LOCK_MSG: the answer comes back as LOCK_RES
    r = a.nlm(LOCK_MSG, lockargs(fh, b"M", 5, 500, 1, cookie=b"msg1"))
    h.eq("lock_msg_void_reply", ("SUCCESS", b""), (r["kind"], r["body"]))
    ok = lis.wait(NLM, LOCK_RES, 1, 5)
    h.check("lock_res_callback", ok, f"calls {lis.calls!r}")
    if ok:
        d = Dec(lis.got(NLM, LOCK_RES)[0][3])
        h.eq("lock_res_args", (b"msg1", GRANTED_ST), (d.opaque(), d.u32()))

    # ---- SHARE / UNSHARE
    h.eq("share_rw_deny_w", GRANTED_ST,
         a.st(SHARE, shareargs(fh, b"S1", 2, 3)))
    h.eq("share_w_conflicts", DENIED,
         b.st(SHARE, shareargs(fh, b"S2", 0, 2, caller=b"other")))
    h.eq("share_r_ok", GRANTED_ST,
         b.st(SHARE, shareargs(fh, b"S2", 0, 1, caller=b"other")))
    h.eq("unshare", GRANTED_ST, a.st(UNSHARE, shareargs(fh, b"S1", 2, 3)))
    h.eq("share_w_after_unshare", GRANTED_ST,
         a.st(SHARE, shareargs(fh, b"S3", 0, 2)))
    h.eq("unshare_b", GRANTED_ST,
         b.st(UNSHARE, shareargs(fh, b"S2", 0, 1, caller=b"other")))
    h.eq("unshare_a", GRANTED_ST, a.st(UNSHARE, shareargs(fh, b"S3", 0, 2)))

    cross_nfs4(h, port, a, b, root, exp)

    # ---- whoever may not read a file may not lock it (knfsd)
    st, pfh, _ = a.create(root, "private")
    h.eq("perm_create", 0, st)
    os.chown(os.path.join(exp, "private"), 0, 0)
    os.chmod(os.path.join(exp, "private"), 0o600)
    a.set_cred(4321, 4321)
    h.eq("perm_other_user_lock_denied", DENIED,
         a.st(LOCK, lockargs(pfh, b"P", 5, 0, 10)))
    h.eq("perm_other_user_test_denied", DENIED,
         a.st(TEST, testargs(pfh, b"P", 5, 0, 10)))
    os.chown(os.path.join(exp, "private"), 4321, 4321)
    os.chmod(os.path.join(exp, "private"), 0o200)
    h.eq("perm_owner_lock_granted", GRANTED_ST,
         a.st(LOCK, lockargs(pfh, b"P", 5, 0, 10)))
    h.eq("perm_owner_unlock", GRANTED_ST,
         a.st(UNLOCK, unlockargs(pfh, b"P", 5, 0, 10)))
    a.set_cred(0, 0)

    # ---- FREE_ALL and SM_NOTIFY from the client release its locks
    h.eq("other_host_lock", GRANTED_ST,
         b.st(LOCK, lockargs(fh, b"O", 7, 1000, 10, caller=b"otherhost")))
    r = b.nlm(FREE_ALL, opaque(b"otherhost") + u32(3))
    h.eq("free_all_void", "SUCCESS", r["kind"])
    h.eq("free_all_released", GRANTED_ST,
         a.st(TEST, testargs(fh, b"A", 11, 1000, 10)))
    h.eq("notify_host_lock", GRANTED_ST,
         b.st(LOCK, lockargs(fh, b"O", 7, 1000, 10, caller=b"rebooter")))
    r = b.call(NSM, SM_NOTIFY, opaque(b"rebooter") + u32(5), vers=1)
    h.eq("sm_notify_void", "SUCCESS", r["kind"])
    h.eq("sm_notify_released", GRANTED_ST,
         a.st(TEST, testargs(fh, b"A", 11, 1000, 10)))
    r = a.call(NSM, SM_STAT, opaque(b"x"), vers=1)
    d = Dec(r["body"])
    res, stt = d.u32(), d.u32()
    h.check("sm_stat_state_odd", res == 0 and stt % 2 == 1, f"{res} {stt}")

    # ---- hostile arguments
    big = u32(2000) + b"x" * 2000
    for name, args in (
            ("truncated", lockargs(fh, b"A", 1, 0, 1)[:-6]),
            ("cookie_too_long", big + lockargs(fh, b"A", 1, 0, 1)[8:]),
            ("caller_too_long", opaque(b"c") + u32(0) + u32(1) + big),
            ("bool_not_0_1", opaque(b"c") + u32(2) +
             lockargs(fh, b"A", 1, 0, 1)[8:]),
            ("trailing", lockargs(fh, b"A", 1, 0, 1) + u32(0))):
        h.eq(f"hostile_{name}_garbage", "GARBAGE_ARGS",
             a.nlm(LOCK, args)["kind"])
    h.eq("hostile_share_mode_garbage", "GARBAGE_ARGS",
         a.nlm(SHARE, shareargs(fh, b"S", 9, 1))["kind"])
    h.eq("v1_has_no_share", "PROC_UNAVAIL",
         a.nlm(SHARE, shareargs(fh, b"S", 0, 1), vers=1)["kind"])
    h.eq("proc_hole_unavail", "PROC_UNAVAIL", a.nlm(17, b"")["kind"])
    h.eq("nlm_v2_mismatch", "PROG_MISMATCH", a.nlm(0, b"", vers=2)["kind"])

    udp(h, port, a, fh)

    # leave one lock held by the monitored client for the restart
    h.eq("lock_for_restart", GRANTED_ST,
         a.st(LOCK, lockargs(fh, b"o1", 1, 0, 10)))
    a.close()
    b.close()


if __name__ == "__main__":
    sys.exit(main())
