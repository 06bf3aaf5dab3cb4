#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The NFSv4.1 back channel and SEQUENCE's status flags, with raw COMPOUNDs.

usage: test_nfs4_backchannel.py NASD

Starts its own nasd (port 20500 and up) and checks (RFC 8881 §2.10.3.1,
§18.33, §18.34, §18.36, §18.46):
  - CREATE_SESSION with CONN_BACK_CHAN: the server sends CB_NULL (program
    csa_cb_program, version 1, procedure 0, the AUTH_SYS of csa_sec_parms)
    on the same connection; SEQUENCE reports no CB_PATH_DOWN while the
    probe is out, and none once it is answered; `nasd stats` counts it;
  - an unanswered CB_NULL: CB_PATH_DOWN_SESSION | CB_PATH_DOWN after the
    timeout (5 s); BIND_CONN_TO_SESSION of a new connection for the back
    channel probes again there, and the answer clears the flags;
  - a session without a back channel: CB_PATH_DOWN at once; a session
    whose back-channel connection closed: CB_PATH_DOWN;
  - BACKCHANNEL_CTL with a new program number probes with it;
  - SEQ_FALSE_RETRY: the same slot and seqid with other arguments; the
    real retry still gets the cached reply, byte for byte;
  - a stray RPC REPLY is ignored, and the server exits 0 on SIGTERM
    without a sanitizer report.
Prints "ok - NAME" / "not ok - NAME: DETAIL" and exits 1 if any failed.
"""

import json
import os
import random
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_nfs4_raw as raw  # noqa: E402
from test_nfs4_raw import (Dec, check, expect, op, opaque, u32,  # noqa: E402
                           u64, record, recv_record, connect, sname,
                           free_port, start_nasd, SANITIZER_RE)

OP_BACKCHANNEL_CTL, OP_BIND_CONN_TO_SESSION = 40, 41
OP_EXCHANGE_ID, OP_CREATE_SESSION, OP_SEQUENCE = 42, 43, 53
OP_PUTROOTFH, OP_GETATTR = 24, 9
CB_PROG = 0x40000000
CB_PATH_DOWN, CB_PATH_DOWN_SESSION = 0x1, 0x200
SEQ_FALSE_RETRY = 10076
raw.ERR[SEQ_FALSE_RETRY] = "SEQ_FALSE_RETRY"
CONN_BACK_CHAN = 0x2
MACHINE = b"bc-test-host"


class Conn:
    """One TCP connection: calls of ours, and the server's calls kept."""

    def __init__(self, port):
        self.s = connect(port)
        self.calls = []                 # (xid, prog, vers, proc, cred)
        self.xid = random.randrange(1, 1 << 30)

    def close(self):
        self.s.close()

    def _take(self, data):
        d = Dec(data)
        xid, mtype = d.u32(), d.u32()
        if mtype != 0:
            return None
        rpcvers, prog, vers, proc = d.u32(), d.u32(), d.u32(), d.u32()
        flavor = d.u32()
        body = d.opaque()
        d.u32()
        d.opaque()
        self.calls.append((xid, prog, vers, proc, flavor, body, rpcvers))
        return xid

    def compound(self, ops, tag=b"bc", minor=1):
        args = opaque(tag) + u32(minor) + u32(len(ops)) + b"".join(ops)
        return self.rpc(args)

    def rpc(self, args):
        self.xid += 1
        xid = self.xid
        msg = u32(xid) + u32(0) + u32(2) + u32(100003) + u32(4) + u32(1)
        msg += raw.auth_sys() + u32(0) + u32(0) + args
        self.s.sendall(record(msg))
        while True:
            data = recv_record(self.s)
            if self._take(data) is not None:
                continue
            d = Dec(data)
            if d.u32() != xid:
                continue
            d.u32()
            if d.u32() != 0:
                return raw.Res(-1, b""), data
            d.u32()
            d.fixed(d.u32())
            return raw.Res(d.u32(), data[d.o:]), data[d.o:]

    def wait_call(self, timeout=5.0):
        """The next server call on this connection (or None)."""
        if self.calls:
            return self.calls.pop(0)
        self.s.settimeout(timeout)
        try:
            while True:
                data = recv_record(self.s)
                if self._take(data) is not None:
                    return self.calls.pop(0)
        except (socket.timeout, OSError, ConnectionError):
            return None
        finally:
            self.s.settimeout(20.0)

    def answer(self, xid, stat=0):
        msg = u32(xid) + u32(1) + u32(0) + u32(0) + u32(0) + u32(stat)
        self.s.sendall(record(msg))


def sec_sys():
    body = u32(1234) + opaque(MACHINE) + u32(0) + u32(0) + u32(0)
    return u32(1) + u32(1) + body          # one entry: AUTH_SYS


def new_client(c, name):
    owner = u64(random.getrandbits(64)) + opaque(name.encode())
    r, _ = c.compound([op(OP_EXCHANGE_ID, owner + u32(0) + u32(0) + u32(0))])
    if r.status != 0:
        raise RuntimeError(f"EXCHANGE_ID: {sname(r.status)}")
    r.next()
    return r.dec.u64(), r.dec.u32()


def create_session(c, clid, seq, flags, prog=CB_PROG):
    attrs = (u32(0) + u32(1 << 20) + u32(1 << 20) + u32(64 * 1024)
             + u32(64) + u32(8) + u32(0))
    back = (u32(0) + u32(4096) + u32(4096) + u32(0) + u32(2) + u32(1)
            + u32(0))
    r, _ = c.compound([op(OP_CREATE_SESSION, u64(clid) + u32(seq) +
                          u32(flags) + attrs + back + u32(prog) +
                          sec_sys())])
    if r.status != 0:
        raise RuntimeError(f"CREATE_SESSION: {sname(r.status)}")
    r.next()
    sid = r.dec.fixed(16)
    r.dec.u32()
    return sid, r.dec.u32()


def sequence(c, sid, seq, slot=0, extra=(), tag=b"bc"):
    """(status, sr_status_flags, reply body)."""
    sa = op(OP_SEQUENCE, sid + u32(seq) + u32(slot) + u32(0) + u32(1))
    r, body = c.compound([sa] + list(extra), tag=tag)
    if r.accept != 0 or r.n < 1:
        return r.status, None, body
    o, st = r.next()
    if st != 0:
        return st, None, body
    r.dec.fixed(16)
    for _ in range(4):
        r.dec.u32()
    return st, r.dec.u32(), body


def down(flags):
    return flags & (CB_PATH_DOWN | CB_PATH_DOWN_SESSION)


def t_backchannel(port, state):
    # --- a back channel at CREATE_SESSION, answered ---
    c1 = Conn(port)
    clid, eseq = new_client(c1, "bc-one")
    sid1, csflags = create_session(c1, clid, eseq, CONN_BACK_CHAN)
    check("create_session_back_chan_kept", csflags & CONN_BACK_CHAN,
          f"csr_flags {csflags:#x}")
    call = c1.wait_call()
    if not check("cb_null_sent", call is not None, "no call within 5 s"):
        return
    xid, prog, vers, proc, flavor, cred, rpcvers = call
    check("cb_null_header", (rpcvers, prog, vers, proc) == (2, CB_PROG, 1, 0),
          f"rpcvers {rpcvers} prog {prog:#x} vers {vers} proc {proc}")
    check("cb_null_auth_sys_from_sec_parms",
          flavor == 1 and MACHINE in cred, f"flavor {flavor} {cred!r}")
    st, fl, _ = sequence(c1, sid1, 1)
    expect("sequence_while_probing", st, 0)
    check("not_down_while_probing", fl is not None and down(fl) == 0,
          f"flags {fl}")
    # a stray reply (unknown xid) is ignored
    c1.answer(xid ^ 0x5a5a5a5a)
    c1.answer(xid)
    time.sleep(0.3)
    st, fl, _ = sequence(c1, sid1, 2)
    check("up_after_answer", st == 0 and down(fl) == 0, f"{st} {fl}")

    # --- SEQ_FALSE_RETRY ---
    getattr_op = op(OP_PUTROOTFH)
    st, _, body = sequence(c1, sid1, 3, extra=[getattr_op], tag=b"one")
    expect("sequence_3", st, 0)
    st, _, body2 = sequence(c1, sid1, 3, extra=[getattr_op], tag=b"one")
    check("true_retry_identical", st == 0 and body2 == body,
          f"{sname(st)}")
    st, _, _ = sequence(c1, sid1, 3, extra=[getattr_op], tag=b"two")
    expect("false_retry_other_tag", st, SEQ_FALSE_RETRY)
    st, _, _ = sequence(c1, sid1, 3, extra=[], tag=b"one")
    expect("false_retry_other_ops", st, SEQ_FALSE_RETRY)
    st, _, _ = sequence(c1, sid1, 4, extra=[], tag=b"two")
    expect("next_seqid_is_new", st, 0)

    # --- unanswered probe: down after the timeout; BIND_CONN_TO_SESSION
    # of a new connection probes again there ---
    c2 = Conn(port)
    clid2, eseq2 = new_client(c2, "bc-two")
    sid2, _ = create_session(c2, clid2, eseq2, CONN_BACK_CHAN)
    call = c2.wait_call()
    check("cb_null_sent_2", call is not None, "no call")
    time.sleep(5.5)
    st, fl, _ = sequence(c2, sid2, 1)
    check("down_after_timeout", st == 0 and
          down(fl) == (CB_PATH_DOWN | CB_PATH_DOWN_SESSION), f"{st} {fl}")
    c3 = Conn(port)
    r, _ = c3.compound([op(OP_BIND_CONN_TO_SESSION,
                           sid2 + u32(0x7) + u32(0))])
    expect("bind_conn_back_or_both", r.status, 0)
    call = c3.wait_call()
    check("cb_null_on_bound_conn", call is not None and call[1] == CB_PROG,
          f"{call}")
    if call:
        c3.answer(call[0])
        time.sleep(0.3)
    st, fl, _ = sequence(c2, sid2, 2)
    check("up_after_bind_and_answer", st == 0 and down(fl) == 0,
          f"{st} {fl}")

    # --- BACKCHANNEL_CTL: a new program, probed with it ---
    st, fl, _ = sequence(c2, sid2, 3, extra=[op(OP_BACKCHANNEL_CTL,
                                                u32(0x40000123) + sec_sys())])
    check("backchannel_ctl_ok", st == 0, sname(st))
    call = c3.wait_call()
    check("backchannel_ctl_probes_new_prog",
          call is not None and call[1] == 0x40000123, f"{call}")
    if call:
        c3.answer(call[0])

    # --- no back channel at all ---
    c4 = Conn(port)
    clid4, eseq4 = new_client(c4, "bc-none")
    sid4, _ = create_session(c4, clid4, eseq4, 0)
    st, fl, _ = sequence(c4, sid4, 1)
    check("no_back_chan_down", st == 0 and
          down(fl) == (CB_PATH_DOWN | CB_PATH_DOWN_SESSION), f"{st} {fl}")
    check("no_call_without_back_chan", c4.wait_call(1.0) is None,
          "a call came")

    # --- the back-channel connection closes ---
    c1.close()
    time.sleep(0.5)
    c5 = Conn(port)
    st, fl, _ = sequence(c5, sid1, 5)
    check("down_after_conn_closed", st == 0 and
          down(fl) == (CB_PATH_DOWN | CB_PATH_DOWN_SESSION), f"{st} {fl}")

    # --- nasd stats: CB_NULL counted ---
    nasd = sys.argv[1]
    out = subprocess.run([nasd, "stats", "--state-dir", state, "--json"],
                         capture_output=True, text=True, timeout=30)
    try:
        d = json.loads(out.stdout)
        p = [x for x in d["procedures"]
             if x["program"] == "nfs4_cb" and x["procedure"] == "CB_NULL"]
        cnt = p[0]["count"] if p else 0
        errs = p[0]["rpc_errors"] if p else 0
        check("stats_cb_null_counted", cnt >= 3 and errs >= 1,
              f"count {cnt} rpc_errors {errs}")
    except (ValueError, KeyError, IndexError) as e:
        check("stats_cb_null_counted", False, f"{e}: {out.stdout[:300]}")
    for c in (c2, c3, c4, c5):
        c.close()


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    nasd = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="nasd-nfs4bc-")
    os.chmod(tmp, 0o755)
    export = os.path.join(tmp, "export")
    state = os.path.join(tmp, "state")
    os.mkdir(export, 0o755)
    os.mkdir(state)
    port = free_port(int(os.environ.get("NFS4BC_PORT", "20500")))
    logpath = os.path.join(tmp, "nasd.log")
    log = open(logpath, "w")
    proc = start_nasd(nasd, port, export, state, log)
    try:
        if proc.poll() is not None:
            check("nasd_started", False, f"exited {proc.returncode}")
            return 1
        try:
            t_backchannel(port, state)
        except Exception as e:              # report, then clean up
            check("exception", False, f"{type(e).__name__}: {e}")
        check("nasd_still_running", proc.poll() is None,
              f"exit {proc.returncode}")
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                rc = proc.wait(20)
                check("sigterm_exit_0", rc == 0, f"exit status {rc}")
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
                check("sigterm_exit_0", False, "still running 20 s later")
        log.close()
        with open(logpath, "r", errors="replace") as f:
            text = f.read()
        check("log_callback_path_up", "callback path up" in text,
              "no 'callback path up' line")
        check("log_callback_path_down", "CB_NULL not answered" in text,
              "no 'CB_NULL not answered' line")
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
