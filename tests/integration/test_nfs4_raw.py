#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Raw NFSv4 COMPOUNDs over TCP against nasd, for what real clients never send.

usage: test_nfs4_raw.py NASD

Starts its own nasd (port 17000 and up) with a temporary rw export and checks
(RFC 7530, RFC 8881, RFC 7862):
  - COMPOUND framing: minorversion 3 -> MINOR_VERS_MISMATCH, unknown ops
    (9999, 200) -> OP_ILLEGAL, truncated op arguments -> BADXDR, 1000 ops ->
    RESOURCE (4.0) / TOO_MANY_OPS (4.1), the tag echoed;
  - filehandles: a forged 128-byte PUTFH -> BADHANDLE, ops without a current
    filehandle -> NOFILEHANDLE;
  - sessions: 4.1 without SEQUENCE -> OP_NOT_IN_SESSION, SEQUENCE in 4.0 ->
    OP_ILLEGAL, SEQUENCE not first -> SEQUENCE_POS, EXCHANGE_ID +
    CREATE_SESSION + SEQUENCE, a retried SEQUENCE (same slot and seqid) gets
    the identical reply bytes, a skipped seqid -> SEQ_MISORDERED, bad slot ->
    BADSLOT, unknown session -> BADSESSION;
  - NFSv4.2 ops on files the test lays out itself in the export: SEEK,
    READ_PLUS (holes as holes), ALLOCATE, DEALLOCATE, COPY (synchronous
    even when asked for async), CLONE, IO_ADVISE, OFFLOAD_STATUS/CANCEL,
    COPY_NOTIFY, WRITE_SAME, checked against the local file;
  - the server keeps serving and exits 0 on SIGTERM without a sanitizer
    report.
Prints "ok - NAME" / "not ok - NAME: DETAIL" and exits 1 if any failed.
"""

import os
import random
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

NFS_PROG, NFS4_VERS = 100003, 4
SANITIZER_RE = re.compile(
    r"ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|"
    r"SUMMARY: (AddressSanitizer|UndefinedBehaviorSanitizer|LeakSanitizer)")

# nfs_opnum4
OP_ACCESS, OP_CLOSE, OP_GETATTR, OP_GETFH = 3, 4, 9, 10
OP_LOOKUP, OP_LOOKUPP, OP_PUTFH, OP_PUTROOTFH = 15, 16, 22, 24
OP_READ, OP_READDIR, OP_READLINK, OP_SAVEFH = 25, 26, 27, 32
OP_RESTOREFH = 31
OP_EXCHANGE_ID, OP_CREATE_SESSION, OP_SEQUENCE = 42, 43, 53
OP_DESTROY_SESSION, OP_DESTROY_CLIENTID = 44, 57
OP_RECLAIM_COMPLETE = 58
OP_ALLOCATE, OP_COPY, OP_COPY_NOTIFY, OP_DEALLOCATE = 59, 60, 61, 62
OP_IO_ADVISE, OP_OFFLOAD_CANCEL, OP_OFFLOAD_STATUS = 63, 66, 67
OP_READ_PLUS, OP_SEEK, OP_WRITE_SAME, OP_CLONE = 68, 69, 70, 71
OP_ILLEGAL = 10044

# nfsstat4
NFS4_OK = 0
ERR = {
    6: "NXIO", 13: "ACCESS", 21: "ISDIR", 22: "INVAL",
    10001: "BADHANDLE", 10004: "NOTSUPP", 10018: "RESOURCE",
    10020: "NOFILEHANDLE", 10021: "MINOR_VERS_MISMATCH",
    10025: "BAD_STATEID", 10036: "BADXDR", 10044: "OP_ILLEGAL",
    10052: "BADSESSION", 10053: "BADSLOT", 10063: "SEQ_MISORDERED",
    10064: "SEQUENCE_POS", 10070: "TOO_MANY_OPS",
    10071: "OP_NOT_IN_SESSION", 10090: "UNION_NOTSUPP",
    10091: "OFFLOAD_DENIED",
}
NXIO, ISDIR, INVAL = 6, 21, 22
BADHANDLE, NOTSUPP, RESOURCE, NOFILEHANDLE = 10001, 10004, 10018, 10020
MINOR_VERS_MISMATCH, BAD_STATEID, BADXDR, OP_ILLEGAL_ERR = \
    10021, 10025, 10036, 10044
BADSESSION, BADSLOT, SEQ_MISORDERED, SEQUENCE_POS = 10052, 10053, 10063, 10064
TOO_MANY_OPS, OP_NOT_IN_SESSION, UNION_NOTSUPP = 10070, 10071, 10090
NAMETOOLONG, BADOWNER, TOOSMALL, GRACE = 63, 10039, 10005, 10013
ERR[NAMETOOLONG] = "NAMETOOLONG"
ERR[BADOWNER] = "BADOWNER"
ERR[TOOSMALL] = "TOOSMALL"
ERR[GRACE] = "GRACE"
REQ_TOO_BIG, REP_TOO_BIG, REP_TOO_BIG_TO_CACHE = 10065, 10066, 10067
ERR[REQ_TOO_BIG] = "REQ_TOO_BIG"
ERR[REP_TOO_BIG] = "REP_TOO_BIG"
ERR[REP_TOO_BIG_TO_CACHE] = "REP_TOO_BIG_TO_CACHE"
OP_REMOVE = 28


def sname(s):
    return "OK" if s == 0 else ERR.get(s, str(s))


passes = 0
fails = 0


def check(name, cond, detail=""):
    global passes, fails
    if cond:
        print(f"ok - {name}", flush=True)
        passes += 1
    else:
        print(f"not ok - {name}: {detail}", flush=True)
        fails += 1
    return cond


def expect(name, got, want):
    """Check a status: @want is one value or a tuple of accepted values."""
    ok = got in want if isinstance(want, tuple) else got == want
    wants = "/".join(sname(w) for w in want) if isinstance(want, tuple) \
        else sname(want)
    return check(name, ok, f"expected {wants}, got {sname(got)}")


# ---------------------------------------------------------------- XDR

def u32(v):
    return struct.pack(">I", v & 0xFFFFFFFF)


def u64(v):
    return struct.pack(">Q", v & 0xFFFFFFFFFFFFFFFF)


def opaque(b):
    pad = (4 - len(b) % 4) % 4
    return u32(len(b)) + b + b"\0" * pad


def bitmap(*bits):
    words = [0] * (max(bits) // 32 + 1 if bits else 0)
    for b in bits:
        words[b // 32] |= 1 << (b % 32)
    return u32(len(words)) + b"".join(u32(w) for w in words)


class Dec:
    def __init__(self, data, off=0):
        self.d = data
        self.o = off

    def u32(self):
        (v,) = struct.unpack_from(">I", self.d, self.o)
        self.o += 4
        return v

    def u64(self):
        (v,) = struct.unpack_from(">Q", self.d, self.o)
        self.o += 8
        return v

    def fixed(self, n):
        b = self.d[self.o:self.o + n]
        if len(b) != n:
            raise struct.error("short fixed opaque")
        self.o += n + (4 - n % 4) % 4
        return b

    def opaque(self):
        return self.fixed(self.u32())

    def bitmap(self):
        return [self.u32() for _ in range(self.u32())]


ANON = u32(0) + b"\0" * 12           # the anonymous stateid


def auth_sys(uid=0, gid=0):
    body = u32(int(time.time())) + opaque(b"nfs4raw") + u32(uid) + u32(gid)
    body += u32(0)
    return u32(1) + opaque(body)


_xid = random.randrange(1, 1 << 30)


def record(payload):
    return u32(0x80000000 | len(payload)) + payload


def recv_exact(sock, n):
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("connection closed")
        buf += chunk
    return buf


def recv_record(sock):
    data = b""
    while True:
        (hdr,) = struct.unpack(">I", recv_exact(sock, 4))
        data += recv_exact(sock, hdr & 0x7FFFFFFF)
        if hdr & 0x80000000:
            return data


def rpc(sock, proc, args, xid=None):
    """One NFSv4 call (a fresh xid unless given); returns (accept_stat,
    body bytes after it)."""
    global _xid
    if xid is None:
        _xid += 1
        xid = _xid
    msg = u32(xid) + u32(0) + u32(2) + u32(NFS_PROG) + u32(NFS4_VERS)
    msg += u32(proc) + auth_sys() + u32(0) + u32(0) + args
    sock.sendall(record(msg))
    while True:
        data = recv_record(sock)
        d = Dec(data)
        if d.u32() != xid:
            continue
        d.u32()                               # REPLY
        if d.u32() != 0:                      # MSG_DENIED
            return -1, b""
        d.u32()                               # verifier
        d.fixed(d.u32())
        return d.u32(), data[d.o:]


class Res:
    """A COMPOUND4res: status, tag, and the (op, status) of each result
    plus the decoder positioned after the last result parsed."""

    def __init__(self, accept, body):
        self.accept = accept
        self.body = body
        self.status = None
        self.tag = None
        self.n = 0
        self.ops = []
        self.dec = None
        if accept != 0:
            return
        d = Dec(body)
        self.status = d.u32()
        self.tag = d.opaque()
        self.n = d.u32()
        self.dec = d

    def next(self):
        """Op number and status of the next result (body left to parse)."""
        op, st = self.dec.u32(), self.dec.u32()
        self.ops.append((op, st))
        return op, st

    def last_status(self):
        return self.status


def compound(sock, minor, ops, tag=b"nfs4raw", xid=None):
    """ops: list of bytes (opnum + args, already encoded)."""
    args = opaque(tag) + u32(minor) + u32(len(ops)) + b"".join(ops)
    return Res(*rpc(sock, 1, args, xid))


def op(num, args=b""):
    return u32(num) + args


def op_putfh(fh):
    return op(OP_PUTFH, opaque(fh))


def op_lookup(name):
    return op(OP_LOOKUP, opaque(name.encode()))


def op_getattr(*bits):
    return op(OP_GETATTR, bitmap(*bits))


def op_sequence(sid, seq, slot=0, highest=0, cache=True):
    return op(OP_SEQUENCE, sid + u32(seq) + u32(slot) + u32(highest)
              + u32(1 if cache else 0))


# skip a result body the test does not look at, for ops with simple ones
def skip_body(r, opnum, st):
    d = r.dec
    if st != 0:
        return
    if opnum in (OP_PUTFH, OP_PUTROOTFH, OP_LOOKUP, OP_SAVEFH, OP_RESTOREFH,
                 OP_ALLOCATE, OP_DEALLOCATE, OP_CLONE, OP_OFFLOAD_CANCEL):
        return
    if opnum == OP_GETFH:
        d.opaque()
    elif opnum == OP_SEQUENCE:
        d.fixed(16)
        for _ in range(5):
            d.u32()
    elif opnum == OP_GETATTR:
        d.bitmap()
        d.opaque()
    else:
        raise ValueError(f"cannot skip result of op {opnum}")


def connect(port, timeout=20.0):
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def null_ok(port):
    try:
        with connect(port, 5) as s:
            return rpc(s, 0, b"")[0] == 0
    except (OSError, ConnectionError, struct.error):
        return False


class Session:
    """A 4.1/4.2 client with one session; slot 0 used unless told."""

    # channel_attrs4 as (headerpad, maxrequestsize, maxresponsesize,
    # maxresponsesize_cached, maxoperations, maxrequests)
    ATTRS = (0, 1 << 20, 1 << 20, 64 * 1024, 64, 8)

    def __init__(self, sock, minor, name, reclaim_complete=True,
                 fore=ATTRS, back=ATTRS, flags=0):
        self.sock = sock
        self.cs_status = None
        self.minor = minor
        self.sid = None
        self.seq = {}
        self.maxops = None
        self.clientid = None
        self.error = None
        owner = u64(random.getrandbits(64)) + opaque(name.encode())
        ex = op(OP_EXCHANGE_ID, owner + u32(0) + u32(0) + u32(0))
        r = compound(sock, minor, [ex])
        if r.status != 0:
            self.error = f"EXCHANGE_ID: {sname(r.status)}"
            return
        o, st = r.next()
        d = r.dec
        self.clientid = d.u64()
        eseq = d.u32()
        def attrs(a):
            return b"".join(u32(v) for v in a) + u32(0)   # no rdma_ird
        cs = op(OP_CREATE_SESSION, u64(self.clientid) + u32(eseq)
                + u32(flags) + attrs(fore) + attrs(back) + u32(0x40000000)
                + u32(1) + u32(0))
        r = compound(sock, minor, [cs])
        self.cs_status = r.status
        if r.status != 0:
            self.error = f"CREATE_SESSION: {sname(r.status)}"
            return
        r.next()
        d = r.dec
        self.sid = d.fixed(16)
        d.u32()
        d.u32()
        self.fore = [d.u32() for _ in range(6)]
        self.maxops = self.fore[4]
        self.nslots = self.fore[5]
        # a new client says it has nothing to reclaim before its first
        # open or lock (RFC 8881 §18.51): on the last slot, so that tests
        # of slot 0's sequence ids start from 1
        if reclaim_complete:
            last = self.nslots - 1
            r = self.call([op(OP_RECLAIM_COMPLETE, u32(0))], slot=last)
            if r.status != 0:
                self.error = f"RECLAIM_COMPLETE: {sname(r.status)}"

    def call(self, ops, slot=0, seq=None, advance=True, cache=True):
        if seq is None:
            seq = self.seq.get(slot, 0) + 1
        r = compound(self.sock, self.minor,
                     [op_sequence(self.sid, seq, slot, 0, cache)] + ops)
        if advance and r.accept == 0 and r.n >= 1:
            # the slot's seqid moves on whenever SEQUENCE itself succeeded
            d = Dec(r.body, r.dec.o)
            if d.u32() == OP_SEQUENCE and d.u32() == 0:
                self.seq[slot] = seq
        return r

    def results(self, r):
        """Walk past SEQUENCE; returns the list of (op, status)."""
        out = []
        for _ in range(r.n):
            o, st = r.next()
            out.append((o, st))
            if st != 0:
                break
            if o == OP_SEQUENCE:
                skip_body(r, o, st)
            else:
                break
        return out


# ---------------------------------------------------------------- server

def free_port(base):
    for p in range(base, base + 500):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", p))
                return p
            except OSError:
                continue
    raise RuntimeError("no free port")


def start_nasd(nasd, port, export, state, log, args=()):
    """nasd on 127.0.0.1:@port exporting @export (and @args more), once it
    listens (or has exited)."""
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = os.environ.get(
        "NASD_ASAN_OPTIONS",
        "halt_on_error=1:abort_on_error=0:detect_leaks=1:exitcode=66")
    env["UBSAN_OPTIONS"] = os.environ.get(
        "NASD_UBSAN_OPTIONS", "halt_on_error=1:print_stacktrace=1")
    # no grace period where the option exists: a fresh state dir has no
    # clients to wait for, and anonymous I/O would get GRACE during it
    helptext = subprocess.run([nasd, "--help"], capture_output=True,
                              text=True)
    extra = ["--grace-time", "0"] if "--grace-time" in (
        helptext.stdout + helptext.stderr) else []
    p = subprocess.Popen(
        [nasd, "--foreground", "--listen", f"127.0.0.1:{port}",
         "--mountd-port", "0", "--state-dir", state] + extra +
        ["--export", f"{export}:rw,no_root_squash"] + list(args),
        stdout=log, stderr=subprocess.STDOUT, env=env)
    deadline = time.time() + 20
    while time.time() < deadline:
        if p.poll() is not None:
            return p
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return p
        except OSError:
            time.sleep(0.1)
    return p


def stop_nasd(proc):
    """SIGTERM: the server must exit 0 within 20 s."""
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        rc = proc.wait(20)
        check("sigterm_exit_0", rc == 0, f"exit status {rc}")
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        check("sigterm_exit_0", False, "still running 20 s later")


def log_verdict(logpath):
    """No sanitizer report in the server's log (its last lines printed
    when a check failed); returns the log's text."""
    with open(logpath, "r", errors="replace") as f:
        text = f.read()
    m = SANITIZER_RE.search(text)
    check("no_sanitizer_report", m is None,
          text[max(0, m.start() - 200):m.start() + 2000] if m else "")
    if fails:
        print("----- last lines of nasd log")
        print("\n".join(text.splitlines()[-40:]))
    return text


# ---------------------------------------------------------------- tests

def t_framing(port):
    with connect(port) as s:
        r = compound(s, 3, [op(OP_PUTROOTFH)], tag=b"mv3")
        expect("minorversion_3", r.status, MINOR_VERS_MISMATCH)
        check("minorversion_3_tag_echoed", r.tag == b"mv3", repr(r.tag))
        check("minorversion_3_no_results", r.n == 0, f"{r.n} results")

        for bad in (9999, 200, 0, 2):
            r = compound(s, 0, [op(OP_PUTROOTFH), op(bad)])
            expect(f"unknown_op_{bad}", r.status, OP_ILLEGAL_ERR)
            ok = r.n == 2
            if ok:
                r.next()
                o, st = r.next()
                ok = o == OP_ILLEGAL and st == OP_ILLEGAL_ERR
            check(f"unknown_op_{bad}_result_is_OP_ILLEGAL", ok,
                  f"results {r.ops} of {r.n}")

        # truncated arguments: PUTFH claims 128 bytes and has 10
        r = compound(s, 0, [op(OP_PUTROOTFH),
                            op(OP_PUTFH, u32(128) + b"x" * 10)])
        expect("truncated_putfh_args", r.status, BADXDR)
        # GETATTR bitmap count 5 with no words at the end of the request
        r = compound(s, 0, [op(OP_PUTROOTFH), op(OP_GETATTR, u32(5))])
        expect("truncated_getattr_bitmap", r.status, BADXDR)
        # a handle longer than NFS4_FHSIZE
        r = compound(s, 0, [op_putfh(b"h" * 129)])
        expect("putfh_129_bytes", r.status, (BADXDR, BADHANDLE))
        # numops says 3, one present
        args = opaque(b"t") + u32(0) + u32(3) + op(OP_PUTROOTFH)
        r = Res(*rpc(s, 1, args))
        expect("numops_beyond_request", r.status, BADXDR)

        ops = [op(OP_PUTROOTFH)] * 1000
        r = compound(s, 0, ops)
        expect("v40_1000_ops", r.status, RESOURCE)

        forged = bytes(random.getrandbits(8) for _ in range(128))
        r = compound(s, 0, [op_putfh(forged), op_getattr(1)])
        expect("putfh_forged_128", r.status, BADHANDLE)
        r = compound(s, 0, [op_putfh(b"")])
        expect("putfh_empty", r.status, (BADHANDLE, BADXDR))

        for name, o in (("GETATTR", op_getattr(1, 20)),
                        ("GETFH", op(OP_GETFH)),
                        ("LOOKUP", op_lookup("x")),
                        ("LOOKUPP", op(OP_LOOKUPP)),
                        ("ACCESS", op(OP_ACCESS, u32(1))),
                        ("READLINK", op(OP_READLINK)),
                        ("SAVEFH", op(OP_SAVEFH)),
                        ("READ", op(OP_READ, ANON + u64(0) + u32(10)))):
            r = compound(s, 0, [o])
            expect(f"nofilehandle_{name}", r.status, NOFILEHANDLE)

        r = compound(s, 0, [op_sequence(b"\0" * 16, 1)])
        expect("v40_sequence_illegal", r.status, OP_ILLEGAL_ERR)
        r = compound(s, 1, [op(OP_PUTROOTFH)])
        expect("v41_without_sequence", r.status, OP_NOT_IN_SESSION)
        r = compound(s, 1, [op_sequence(b"\x55" * 16, 1)])
        expect("v41_unknown_session", r.status, BADSESSION)


def t_sessions(port):
    with connect(port) as s:
        ss = Session(s, 1, f"nfs4raw-{os.getpid()}-41")
        if not check("v41_exchange_id_create_session", ss.sid is not None,
                     ss.error or ""):
            return
        check("v41_maxops_sane", ss.maxops and 8 <= ss.maxops <= 1000,
              f"ca_maxoperations {ss.maxops}")
        ops = [op(OP_PUTROOTFH), op(OP_GETFH)]
        r1 = ss.call(ops, seq=1)
        expect("v41_sequence_first", r1.status, NFS4_OK)
        r2 = ss.call(ops, seq=1)
        check("v41_replay_identical_bytes", r1.body == r2.body,
              f"{len(r1.body)} vs {len(r2.body)} bytes; "
              f"first differs at {first_diff(r1.body, r2.body)}")
        r = ss.call(ops, seq=5, advance=False)
        expect("v41_seq_misordered", r.status, SEQ_MISORDERED)
        r = ss.call(ops, seq=2)
        expect("v41_next_seq_after_misorder", r.status, NFS4_OK)
        r = ss.call(ops, slot=4000, seq=1, advance=False)
        expect("v41_badslot", r.status, BADSLOT)
        r = ss.call([op_sequence(ss.sid, 9, 1)], slot=0, advance=True)
        expect("v41_sequence_pos", r.status, SEQUENCE_POS)
        r = ss.call([op(OP_PUTROOTFH)] * 999)
        expect("v41_1000_ops", r.status, TOO_MANY_OPS)
        # and the session still works (the slot did not move on a
        # failed SEQUENCE; if SEQUENCE passed, the call advanced it)
        r = ss.call(ops)
        expect("v41_session_usable_after", r.status, NFS4_OK)


def first_diff(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return min(len(a), len(b))


def walk_fh(ss, path):
    """PUTROOTFH + LOOKUP each component + GETFH -> (status, fh)."""
    ops = [op(OP_PUTROOTFH)]
    for comp in [c for c in path.split("/") if c]:
        ops.append(op_lookup(comp))
    ops.append(op(OP_GETFH))
    r = ss.call(ops)
    if r.status != 0:
        return r.status, None
    fh = None
    for _ in range(r.n):
        o, st = r.next()
        if o == OP_GETFH:
            fh = r.dec.opaque()
        else:
            skip_body(r, o, st)
    return 0, fh


def last_result(ss, r):
    """Skip to the last result; returns (op, status) with the decoder
    positioned at its body."""
    o = st = None
    for i in range(r.n):
        o, st = r.next()
        if i < r.n - 1:
            skip_body(r, o, st)
    return o, st


def t_v42(port, export):
    with connect(port) as s:
        ss = Session(s, 2, f"nfs4raw-{os.getpid()}-42")
        if not check("v42_session", ss.sid is not None, ss.error or ""):
            return
        KiB = 1024
        # sparse: data [0,64K) hole [64K,1M) data [1M,1M+64K) hole to 2M
        sp = os.path.join(export, "sparse")
        d1 = os.urandom(64 * KiB)
        d2 = os.urandom(64 * KiB)
        with open(sp, "wb") as f:
            f.write(d1)
            f.seek(1 << 20)
            f.write(d2)
            f.truncate(2 << 20)
        for n in ("dst", "alloc"):
            open(os.path.join(export, n), "wb").close()
        os.mkdir(os.path.join(export, "dir"))
        fhs = {}
        for n in ("sparse", "dst", "alloc", "dir"):
            st, fh = walk_fh(ss, export + "/" + n)
            if not expect(f"v42_lookup_{n}", st, NFS4_OK):
                return
            fhs[n] = fh
        st, fhs["pseudo"] = walk_fh(ss, "/")

        def seek(off, what):
            r = ss.call([op_putfh(fhs["sparse"]),
                         op(OP_SEEK, ANON + u64(off) + u32(what))])
            o, st = last_result(ss, r)
            if st != 0:
                return st, None, None
            return 0, r.dec.u32(), r.dec.u64()

        M = 1 << 20
        for name, off, what, want in (
                ("data_at_0", 0, 0, (0, 0, 0)),
                ("hole_from_0", 0, 1, (0, 0, 64 * KiB)),
                ("data_from_hole", 64 * KiB, 0, (0, 0, M)),
                ("hole_from_2nd_data", M, 1, (0, 0, M + 64 * KiB)),
                ("no_data_after", M + 64 * KiB, 0, (0, 1, 2 * M))):
            got = seek(off, what)
            check(f"v42_seek_{name}", got == want, f"expected {want}, "
                  f"got ({sname(got[0])}, {got[1]}, {got[2]})")
        expect("v42_seek_at_eof_nxio", seek(2 * M, 0)[0], NXIO)
        expect("v42_seek_bad_what", seek(0, 7)[0], (UNION_NOTSUPP, BADXDR))

        def read_plus(off, count):
            # a read is not asked to be cached (as Linux): a reply the
            # slot must keep is held to ca_maxresponsesize_cached
            r = ss.call([op_putfh(fhs["sparse"]),
                         op(OP_READ_PLUS, ANON + u64(off) + u32(count))],
                        cache=False)
            o, st = last_result(ss, r)
            if st != 0:
                return st, None, None
            d = r.dec
            eof = d.u32()
            segs = []
            for _ in range(d.u32()):
                kind = d.u32()
                soff = d.u64()
                if kind == 0:
                    segs.append(("data", soff, d.opaque()))
                elif kind == 1:
                    segs.append(("hole", soff, d.u64()))
                else:
                    segs.append(("?", soff, None))
                    break
            return 0, eof, segs

        st, eof, segs = read_plus(0, M)
        ok = (st == 0 and eof == 0 and len(segs) == 2
              and segs[0] == ("data", 0, d1)
              and segs[1] == ("hole", 64 * KiB, M - 64 * KiB))
        check("v42_read_plus_data_then_hole", ok,
              f"{sname(st)} eof={eof} "
              f"{[(k, o, len(v) if isinstance(v, bytes) else v) for k, o, v in segs or []]}")
        st, eof, segs = read_plus(M - 4 * KiB, 128 * KiB)
        ok = (st == 0 and eof == 0 and len(segs) == 3
              and segs[0] == ("hole", M - 4 * KiB, 4 * KiB)
              and segs[1] == ("data", M, d2)
              and segs[2] == ("hole", M + 64 * KiB, 60 * KiB))
        check("v42_read_plus_hole_data_hole", ok,
              f"{sname(st)} eof={eof} "
              f"{[(k, o, len(v) if isinstance(v, bytes) else v) for k, o, v in segs or []]}")
        st, eof, segs = read_plus(M + 32 * KiB, 2 * M)
        ok = (st == 0 and eof == 1 and len(segs) == 2
              and segs[0] == ("data", M + 32 * KiB, d2[32 * KiB:])
              and segs[1] == ("hole", M + 64 * KiB, M - 64 * KiB))
        check("v42_read_plus_data_hole_to_eof", ok,
              f"{sname(st)} eof={eof} "
              f"{[(k, o, len(v) if isinstance(v, bytes) else v) for k, o, v in segs or []]}")
        st, eof, segs = read_plus(3 * M, 100)
        check("v42_read_plus_past_eof", st == 0 and eof == 1 and segs == [],
              f"{sname(st)} eof={eof} {segs}")

        def one(name, fh_ops, want):
            r = ss.call(fh_ops)
            o, st = last_result(ss, r)
            expect(name, r.status, want)
            return r

        al = os.path.join(export, "alloc")
        one("v42_allocate", [op_putfh(fhs["alloc"]),
                             op(OP_ALLOCATE, ANON + u64(0) + u64(M))], 0)
        stt = os.stat(al)
        check("v42_allocate_size_blocks",
              stt.st_size == M and stt.st_blocks * 512 >= M,
              f"size {stt.st_size} blocks {stt.st_blocks}")
        one("v42_allocate_zero_len", [op_putfh(fhs["alloc"]),
            op(OP_ALLOCATE, ANON + u64(0) + u64(0))], INVAL)
        one("v42_allocate_dir", [op_putfh(fhs["dir"]),
            op(OP_ALLOCATE, ANON + u64(0) + u64(4096))], ISDIR)
        one("v42_allocate_pseudo_root", [op_putfh(fhs["pseudo"]),
            op(OP_ALLOCATE, ANON + u64(0) + u64(4096))], (ISDIR, 30))
        one("v42_allocate_no_fh", [op(OP_ALLOCATE, ANON + u64(0) + u64(1))],
            NOFILEHANDLE)

        # COPY sparse -> dst, asked asynchronous: done synchronously
        cp = op(OP_COPY, ANON + ANON + u64(0) + u64(0) + u64(0) + u32(1)
                + u32(0) + u32(0))
        r = ss.call([op_putfh(fhs["sparse"]), op(OP_SAVEFH),
                     op_putfh(fhs["dst"]), cp])
        o, st = last_result(ss, r)
        if expect("v42_copy_async_request", r.status, NFS4_OK):
            d = r.dec
            ncb = d.u32()
            for _ in range(ncb):
                d.fixed(16)
            count, committed = d.u64(), d.u32()
            d.fixed(8)
            cons, sync = d.u32(), d.u32()
            check("v42_copy_done_synchronously",
                  ncb == 0 and sync == 1 and count == 2 * M,
                  f"callback ids {ncb}, cr_synchronous {sync}, "
                  f"count {count}")
        with open(sp, "rb") as f1, open(os.path.join(export, "dst"),
                                        "rb") as f2:
            check("v42_copy_bytes_equal", f1.read() == f2.read(),
                  "dst differs from sparse")
        bad = op(OP_COPY, ANON + ANON + u64(3 * M) + u64(0) + u64(10)
                 + u32(1) + u32(1) + u32(0))
        one("v42_copy_src_past_eof", [op_putfh(fhs["sparse"]),
            op(OP_SAVEFH), op_putfh(fhs["dst"]), bad], INVAL)
        one("v42_copy_without_saved_fh", [op_putfh(fhs["dst"]), cp],
            NOFILEHANDLE)
        inter = op(OP_COPY, ANON + ANON + u64(0) + u64(0) + u64(0) + u32(1)
                   + u32(1) + u32(1) + u32(1) + opaque(b"otherserver"))
        one("v42_copy_inter_server", [op_putfh(fhs["sparse"]),
            op(OP_SAVEFH), op_putfh(fhs["dst"]), inter], NOTSUPP)

        # DEALLOCATE the first 64K of dst: zeros, size kept
        one("v42_deallocate", [op_putfh(fhs["dst"]),
            op(OP_DEALLOCATE, ANON + u64(0) + u64(64 * KiB))], 0)
        with open(os.path.join(export, "dst"), "rb") as f:
            head = f.read(64 * KiB)
        check("v42_deallocate_zeros",
              head == b"\0" * (64 * KiB) and
              os.path.getsize(os.path.join(export, "dst")) == 2 * M,
              "range not zero or size changed")

        cl = op(OP_CLONE, ANON + ANON + u64(0) + u64(0) + u64(0))
        one("v42_clone_ext4_notsupp", [op_putfh(fhs["sparse"]),
            op(OP_SAVEFH), op_putfh(fhs["alloc"]), cl], (NOTSUPP, 0))

        r = ss.call([op_putfh(fhs["sparse"]),
                     op(OP_IO_ADVISE, ANON + u64(0) + u64(0)
                        + bitmap(1, 4, 8))])
        o, st = last_result(ss, r)
        if expect("v42_io_advise", r.status, NFS4_OK):
            hints = r.dec.bitmap()
            w = hints[0] if hints else 0
            check("v42_io_advise_hints", w == (1 << 1) | (1 << 4),
                  f"returned hints {hints} (want SEQUENTIAL|WILLNEED)")
        one("v42_offload_status_unknown", [op_putfh(fhs["dst"]),
            op(OP_OFFLOAD_STATUS, u32(1) + b"\x11" * 12)], BAD_STATEID)
        one("v42_offload_cancel_unknown", [op_putfh(fhs["dst"]),
            op(OP_OFFLOAD_CANCEL, u32(1) + b"\x11" * 12)], BAD_STATEID)
        one("v42_copy_notify_notsupp", [op_putfh(fhs["sparse"]),
            op(OP_COPY_NOTIFY, ANON + u32(1) + opaque(b"peer"))], NOTSUPP)
        ws = op(OP_WRITE_SAME, ANON + u32(0) + u64(0) + u64(512) + u64(1)
                + u64(0) + u32(0) + u64(0) + opaque(b"ab") + opaque(b"x"))
        one("v42_write_same_notsupp", [op_putfh(fhs["dst"]), ws], NOTSUPP)
        one("v42_seek_truncated_args", [op_putfh(fhs["sparse"]),
            op(OP_SEEK, ANON + u32(0))], BADXDR)

    # 4.2 ops in a 4.1 compound
    with connect(port) as s:
        ss = Session(s, 1, f"nfs4raw-{os.getpid()}-41b")
        if ss.sid is not None:
            r = ss.call([op(OP_PUTROOTFH),
                         op(OP_SEEK, ANON + u64(0) + u32(0))])
            expect("v41_seek_not_in_minor1", r.status,
                   (OP_ILLEGAL_ERR, NOTSUPP))
        r = compound(s, 0, [op(OP_PUTROOTFH),
                            op(OP_ALLOCATE, ANON + u64(0) + u64(1))])
        expect("v40_allocate_not_in_minor0", r.status,
               (OP_ILLEGAL_ERR, NOTSUPP))


def t_conformance(port, export):
    """RFC 8881 answers for write-only attributes (§5.6) and names of any
    length (component4 is unbounded: §3.2; NAMETOOLONG, not BADXDR); RFC
    8276's operations are NOTSUPP at minor version 2."""
    s = connect(port)
    ss = Session(s, 1, f"nfs4raw-conf-{os.getpid()}")
    if not check("conf_session", ss.error is None, f"{ss.error}"):
        return
    with open(os.path.join(export, "conf-file"), "w") as f:
        f.write("x")
    st, dfh = walk_fh(ss, export)
    st2, ffh = walk_fh(ss, export + "/conf-file")
    if not check("conf_walk", st == 0 and st2 == 0, f"{st} {st2}"):
        return
    for bit, name in ((48, "time_access_set"), (54, "time_modify_set")):
        r = ss.call([op_putfh(ffh), op_getattr(1, bit)])
        expect(f"conf_getattr_{name}_inval", last_result(ss, r)[1], INVAL)
        r = ss.call([op_putfh(dfh), op(OP_READDIR, u64(0) + b"\0" * 8 +
                                       u32(4096) + u32(8192) +
                                       bitmap(1, bit))])
        expect(f"conf_readdir_{name}_inval", last_result(ss, r)[1],
               INVAL)
    r = ss.call([op_putfh(ffh), op_getattr(1, 4)])
    expect("conf_getattr_readable_ok", last_result(ss, r)[1], 0)
    for n in (256, 1025, 4000):
        name = "n" * n
        r = ss.call([op_putfh(dfh), op_lookup(name)])
        expect(f"conf_lookup_{n}_nametoolong", last_result(ss, r)[1],
               NAMETOOLONG)
        r = ss.call([op_putfh(dfh), op(OP_REMOVE, opaque(name.encode()))])
        expect(f"conf_remove_{n}_nametoolong", last_result(ss, r)[1],
               NAMETOOLONG)
    r = ss.call([op(OP_PUTROOTFH), op_lookup("p" * 4000)])
    expect("conf_pseudo_lookup_4000_nametoolong", last_result(ss, r)[1],
           NAMETOOLONG)
    # SETATTR owner / owner_group: an empty string is INVAL, a well-formed
    # name that maps to nothing BADOWNER (RFC 8881 §5.9)
    for bit, what in ((36, "owner"), (37, "owner_group")):
        for val, want, tag in ((b"", INVAL, "empty_inval"),
                               (b"no-such-name-x@no.such.domain",
                                BADOWNER, "unknown_badowner")):
            args = ANON + bitmap(bit) + opaque(opaque(val))
            r = ss.call([op_putfh(ffh), op(34, args)])
            expect(f"conf_setattr_{what}_{tag}", last_result(ss, r)[1],
                   want)
    # READDIR with little room (RFC 7530 §16.24.4): an empty directory
    # answers OK and eof, a directory with entries TOOSMALL when not even
    # one fits
    os.mkdir(os.path.join(export, "conf-empty"))
    st, efh = walk_fh(ss, export + "/conf-empty")
    for room in (16, 24, 40):
        rd = op(OP_READDIR, u64(0) + b"\0" * 8 + u32(room) + u32(room) +
                bitmap(1))
        r = ss.call([op_putfh(efh), rd])
        o, st = last_result(ss, r)
        eof = None
        if st == 0:
            r.dec.fixed(8)
            eof = (r.dec.u32(), r.dec.u32())   # value_follows, eof
        check(f"conf_readdir_empty_{room}_ok_eof", st == 0 and eof == (0, 1),
              f"{sname(st)} {eof}")
        r = ss.call([op_putfh(dfh), rd])
        expect(f"conf_readdir_full_{room}_toosmall", last_result(ss, r)[1],
               TOOSMALL)
    r = ss.call([op_putfh(efh), op(OP_READDIR, u64(0) + b"\0" * 8 + u32(8) +
                                   u32(8) + bitmap(1))])
    expect("conf_readdir_no_room_toosmall", last_result(ss, r)[1], TOOSMALL)
    # a 4.1 client's new opens wait for its RECLAIM_COMPLETE, with no
    # grace period on the server (RFC 8881 §18.51.3)
    s3 = connect(port)
    ss3 = Session(s3, 1, f"nfs4raw-norc-{os.getpid()}", reclaim_complete=False)
    oargs = (u32(0) + u32(1) + u32(0) + u64(ss3.clientid) + opaque(b"o")
             + u32(0) + u32(0) + opaque(b"conf-file"))
    r = ss3.call([op_putfh(dfh), op(18, oargs)])
    expect("conf_open_before_reclaim_complete_grace", last_result(ss3, r)[1],
           GRACE)
    r = ss3.call([op(OP_RECLAIM_COMPLETE, u32(0))])
    expect("conf_reclaim_complete", r.status, 0)
    r = ss3.call([op_putfh(dfh), op(18, oargs)])
    expect("conf_open_after_reclaim_complete", last_result(ss3, r)[1], 0)
    s3.close()
    # share reservations within one open-owner (RFC 7530 §9.9): its
    # earlier open's deny counts against its later OPEN of the file
    import nfs4_client as nc
    cl = nc.Client(port, f"nfs4raw-share-{os.getpid()}")
    r = cl.open(dfh, "conf-share", nc.ACCESS_BOTH, nc.DENY_READ, create=True,
                owner=b"one-owner")
    expect("conf_share_first_open", r.status, 0)
    r2 = cl.open(dfh, "conf-share", nc.ACCESS_READ, nc.DENY_NONE,
                 owner=b"one-owner")
    expect("conf_share_same_owner_denied_read", r2.status, nc.SHARE_DENIED)
    r3 = cl.open(dfh, "conf-share", nc.ACCESS_WRITE, nc.DENY_NONE,
                 owner=b"one-owner")
    expect("conf_share_same_owner_write_ok", r3.status, 0)
    r4 = cl.open(dfh, "conf-share", nc.ACCESS_WRITE, nc.DENY_WRITE,
                 owner=b"one-owner")
    expect("conf_share_same_owner_deny_held_denied", r4.status,
           nc.SHARE_DENIED)
    if r.status == 0:
        cl.close(r.fh, r3.stateid if r3.status == 0 else r.stateid)
    cl.close_conn()
    # ACCESS: supported holds only what means something for the object
    # (RFC 8881 §18.1.3): no LOOKUP/DELETE for a file, no EXECUTE for a
    # directory
    for what, fh, want in (("file", ffh, 0x2d), ("dir", dfh, 0x1f),
                           ("pseudo_root", None, 0x1f)):
        putfh = op(OP_PUTROOTFH) if fh is None else op_putfh(fh)
        r = ss.call([putfh, op(3, u32(0x3f))])
        o, st = last_result(ss, r)
        sup = r.dec.u32() if st == 0 else None
        check(f"conf_access_supported_{what}", st == 0 and sup == want,
              f"{sname(st)} supported {sup}")
    # OPEN UNCHECKED4 of an existing file (RFC 7530 §16.16.5, RFC 8881
    # §18.16.3): createattrs are not used, except that a size of zero
    # truncates; a new file gets them
    path = os.path.join(export, "conf-unchecked")
    with open(path, "wb") as f:
        f.write(b"0123456789")
    os.chmod(path, 0o644)

    def open_unchecked(name, size, mode, owner):
        how = (u32(1) + u32(0) + bitmap(4, 33) +
               opaque(u64(size) + u32(mode)))
        oargs = (u32(0) + u32(3) + u32(0) + u64(ss.clientid) +
                 opaque(owner) + how + u32(0) + opaque(name))
        return last_result(ss, ss.call([op_putfh(dfh), op(18, oargs)]))[1]

    st = open_unchecked(b"conf-unchecked", 4, 0o600, b"unchecked-1")
    sb = os.stat(path)
    check("conf_open_unchecked_existing_attrs_ignored",
          st == 0 and sb.st_size == 10 and (sb.st_mode & 0o777) == 0o644,
          f"{sname(st)} size {sb.st_size} mode {sb.st_mode & 0o777:o}")
    st = open_unchecked(b"conf-unchecked", 0, 0o600, b"unchecked-2")
    sb = os.stat(path)
    check("conf_open_unchecked_existing_size0_truncates",
          st == 0 and sb.st_size == 0 and (sb.st_mode & 0o777) == 0o644,
          f"{sname(st)} size {sb.st_size} mode {sb.st_mode & 0o777:o}")
    st = open_unchecked(b"conf-unchecked-new", 0, 0o600, b"unchecked-3")
    npath = os.path.join(export, "conf-unchecked-new")
    mode = os.stat(npath).st_mode & 0o777 if os.path.exists(npath) else None
    check("conf_open_unchecked_new_gets_attrs", st == 0 and mode == 0o600,
          f"{sname(st)} mode {mode}")
    # RFC 8276's operations are not in minor version 1 (OP_ILLEGAL)
    r = ss.call([op_putfh(ffh), op(72, opaque(b"x"))])
    expect("conf_getxattr_minor1_illegal", last_result(ss, r)[1],
           OP_ILLEGAL_ERR)
    s.close()


XATTR_SUPPORT = 82
NOXATTR, XATTR2BIG, BAD_COOKIE, EXIST, PERM, ROFS = \
    10095, 10096, 10003, 17, 1, 30
ERR.update({NOXATTR: "NOXATTR", XATTR2BIG: "XATTR2BIG",
            BAD_COOKIE: "BAD_COOKIE", EXIST: "EXIST", PERM: "PERM"})


def t_xattr(port, xexport, noxexport):
    """RFC 8276 at minor version 2: GETXATTR/SETXATTR/LISTXATTRS/
    REMOVEXATTR of user. attributes (names without the prefix, as Linux
    sends them), their errors and sizes (a 64 KiB value, 250-byte names),
    LISTXATTRS paging by cookie and maxcount, xattr_support, ACCESS's XA
    bits, change_info, a symlink never followed, and xattr=no."""
    s = connect(port)
    ss = Session(s, 2, f"nfs4raw-xattr-{os.getpid()}")
    if not check("xattr_session", ss.error is None, f"{ss.error}"):
        return
    fpath = os.path.join(xexport, "xf")
    dpath = os.path.join(xexport, "xd")
    outside = os.path.join(os.path.dirname(xexport), "outside-file")
    open(fpath, "w").close()
    os.mkdir(dpath)
    open(outside, "w").close()
    os.setxattr(outside, "user.secret", b"outside-value")
    os.symlink(outside, os.path.join(xexport, "xl"))
    open(os.path.join(noxexport, "nf"), "w").close()
    fhs = {}
    for key, path in (("f", fpath), ("d", dpath),
                      ("l", os.path.join(xexport, "xl")),
                      ("n", os.path.join(noxexport, "nf"))):
        st, fhs[key] = walk_fh(ss, path)
        if not check(f"xattr_walk_{key}", st == 0, sname(st)):
            return

    def res(r):
        return last_result(ss, r)

    def getx(fh, name):
        r = ss.call([op_putfh(fh), op(72, opaque(name))], cache=False)
        o, st = res(r)
        return st, (r.dec.opaque() if st == 0 else None)

    def setx(fh, name, val, opt=0):
        r = ss.call([op_putfh(fh), op(73, u32(opt) + opaque(name) +
                                      opaque(val))])
        o, st = res(r)
        ci = None
        if st == 0:
            ci = (r.dec.u32(), r.dec.u64(), r.dec.u64())
        return st, ci

    def rmx(fh, name):
        return res(ss.call([op_putfh(fh), op(75, opaque(name))]))[1]

    def listx(fh, cookie, maxcount):
        r = ss.call([op_putfh(fh), op(74, u64(cookie) + u32(maxcount))],
                    cache=False)
        o, st = res(r)
        if st != 0:
            return st, None, None, None
        ck = r.dec.u64()
        names = [r.dec.opaque() for _ in range(r.dec.u32())]
        return st, ck, names, r.dec.u32()

    def xsupport(putfh):
        r = ss.call([putfh, op_getattr(XATTR_SUPPORT)])
        o, st = res(r)
        if st != 0:
            return sname(st)
        r.dec.bitmap()
        return Dec(r.dec.opaque()).u32()

    expect("xattr_support_file", xsupport(op_putfh(fhs["f"])), 1)
    expect("xattr_support_pseudo_root", xsupport(op(OP_PUTROOTFH)), 0)
    expect("xattr_support_export_xattr_no", xsupport(op_putfh(fhs["n"])), 0)
    for key, want in (("f", 0x1c0), ("n", 0)):
        r = ss.call([op_putfh(fhs[key]), op(3, u32(0x1c1))])
        o, st = res(r)
        sup, acc = (r.dec.u32(), r.dec.u32()) if st == 0 else (None, None)
        check(f"xattr_access_xa_bits_{key}", st == 0 and
              sup & 0x1c0 == want and acc & 0x1c0 == want,
              f"{sname(st)} supported {sup} access {acc}")

    st, ci = setx(fhs["f"], b"a", b"hello")
    check("xattr_set_either", st == 0 and ci[1] != ci[2] and
          os.getxattr(fpath, "user.a") == b"hello", f"{sname(st)} {ci}")
    check("xattr_get", getx(fhs["f"], b"a") == (0, b"hello"))
    expect("xattr_set_create_existing_exist",
           setx(fhs["f"], b"a", b"x", 1)[0], EXIST)
    expect("xattr_set_replace_missing_noxattr",
           setx(fhs["f"], b"nope", b"x", 2)[0], NOXATTR)
    expect("xattr_set_replace", setx(fhs["f"], b"a", b"world", 2)[0], 0)
    check("xattr_get_replaced", getx(fhs["f"], b"a") == (0, b"world"))
    expect("xattr_set_bad_option_inval", setx(fhs["f"], b"a", b"x", 3)[0],
           INVAL)
    expect("xattr_get_missing_noxattr", getx(fhs["f"], b"nope")[0], NOXATTR)
    expect("xattr_remove_missing_noxattr", rmx(fhs["f"], b"nope"), NOXATTR)
    expect("xattr_empty_name_inval", getx(fhs["f"], b"")[0], INVAL)
    expect("xattr_name_250_ok", setx(fhs["f"], b"k" * 250, b"v")[0], 0)
    for n in (251, 4000):
        expect(f"xattr_name_{n}_nametoolong",
               setx(fhs["f"], b"k" * n, b"v")[0], NAMETOOLONG)
        expect(f"xattr_get_name_{n}_nametoolong",
               getx(fhs["f"], b"k" * n)[0], NAMETOOLONG)
    big = bytes(random.getrandbits(8) for _ in range(65536))
    expect("xattr_set_64k", setx(fhs["f"], b"big", big)[0], 0)
    st, v = getx(fhs["f"], b"big")
    check("xattr_get_64k", st == 0 and v == big,
          f"{sname(st)} {len(v) if v else None} bytes")
    expect("xattr_set_64k_plus_1_xattr2big",
           setx(fhs["f"], b"big2", big + b"x")[0], XATTR2BIG)
    expect("xattr_set_dir", setx(fhs["d"], b"d", b"dv")[0], 0)
    check("xattr_get_dir", getx(fhs["d"], b"d") == (0, b"dv"))

    # listing: only user. names, prefix off; paged by maxcount
    names = {b"a", b"k" * 250, b"big"}
    for i in range(20):
        setx(fhs["f"], b"b%02d" % i, b"x")
        names.add(b"b%02d" % i)
    try:
        os.setxattr(fpath, "trusted.nasd", b"t")
    except OSError:
        pass
    st, ck, got, eof = listx(fhs["f"], 0, 8192)
    check("xattr_list_all", st == 0 and eof == 1 and set(got) == names and
          len(got) == len(names), f"{sname(st)} eof {eof} {got}")
    # a name larger than the room left is not skipped: TOOSMALL
    long_at = got.index(b"k" * 250) if got and b"k" * 250 in got else 0
    expect("xattr_list_name_over_maxcount_toosmall",
           listx(fhs["f"], long_at, 64)[0], TOOSMALL)
    seen, cookie, pages = [], 0, 0
    while pages < 100:
        st, cookie, got, eof = listx(fhs["f"], cookie, 300)
        if st != 0:
            break
        seen += got
        pages += 1
        if eof:
            break
    check("xattr_list_paged", st == 0 and sorted(seen) == sorted(names) and
          pages >= 2, f"{sname(st)} {pages} pages {len(seen)} names")
    expect("xattr_list_maxcount_tiny_toosmall", listx(fhs["f"], 0, 20)[0],
           TOOSMALL)
    expect("xattr_list_cookie_past_end_bad_cookie",
           listx(fhs["f"], 1000, 8192)[0], BAD_COOKIE)
    st, ck, got, eof = listx(fhs["d"], 0, 8192)
    check("xattr_list_dir", st == 0 and got == [b"d"] and eof == 1,
          f"{sname(st)} {got}")
    expect("xattr_remove", rmx(fhs["f"], b"a"), 0)
    expect("xattr_get_removed_noxattr", getx(fhs["f"], b"a")[0], NOXATTR)
    check("xattr_removed_on_disk", "user.a" not in os.listxattr(fpath),
          str(os.listxattr(fpath)))
    # a symlink keeps none and is never followed out of the export
    expect("xattr_symlink_get_not_followed",
           getx(fhs["l"], b"secret")[0], NOXATTR)
    expect("xattr_symlink_set_perm", setx(fhs["l"], b"x", b"y")[0], PERM)
    st, ck, got, eof = listx(fhs["l"], 0, 8192)
    check("xattr_symlink_list_empty", st == 0 and got == [] and eof == 1,
          f"{sname(st)} {got}")
    check("xattr_outside_untouched", os.listxattr(outside) ==
          ["user.secret"], str(os.listxattr(outside)))
    # xattr=no: NOTSUPP for all four
    expect("xattr_export_off_get_notsupp", getx(fhs["n"], b"a")[0], NOTSUPP)
    expect("xattr_export_off_set_notsupp",
           setx(fhs["n"], b"a", b"x")[0], NOTSUPP)
    expect("xattr_export_off_list_notsupp", listx(fhs["n"], 0, 4096)[0],
           NOTSUPP)
    expect("xattr_export_off_remove_notsupp", rmx(fhs["n"], b"a"), NOTSUPP)
    expect("xattr_pseudo_notsupp",
           res(ss.call([op(OP_PUTROOTFH), op(72, opaque(b"a"))]))[1],
           NOTSUPP)
    s.close()


def t_session_limits(port):
    """CREATE_SESSION's channel rules (RFC 8881 §18.36.3): small fore
    channels are accepted and enforced (REQ_TOO_BIG, REP_TOO_BIG), a reply
    to be cached must fit ca_maxresponsesize_cached (REP_TOO_BIG_TO_CACHE,
    §2.10.6.4), channels too small for any COMPOUND or for the server's
    callbacks are TOOSMALL, unknown csa_flags INVAL."""
    s = connect(port)
    name = f"nfs4raw-lim-{os.getpid()}"
    small = (0, 400, 400, 400, 16, 4)
    ss = Session(s, 1, name + "-small", fore=small)
    if check("lim_small_fore_accepted", ss.error is None, f"{ss.error}"):
        check("lim_small_fore_negotiated", ss.fore[1:3] == [400, 400],
              f"{ss.fore}")
        r = ss.call([op(OP_PUTROOTFH), op_getattr(1)])
        expect("lim_small_fore_compound_ok", r.status, 0)
        r = ss.call([op(OP_PUTROOTFH)] + [op_getattr(0, 1, 4)] * 14)
        expect("lim_reply_over_maxresponsesize_rep_too_big", r.status,
               REP_TOO_BIG)
        r = ss.call([op(OP_PUTROOTFH), op_lookup("x" * 400)])
        seq = r.next()[1] if r.n else None
        check("lim_request_over_maxrequestsize_req_too_big",
              r.status == REQ_TOO_BIG and seq == REQ_TOO_BIG,
              f"{sname(r.status)} SEQUENCE {seq}")
        r = ss.call([op(OP_PUTROOTFH), op_getattr(1)])
        expect("lim_small_fore_usable_after", r.status, 0)
    ss = Session(s, 1, name + "-cached",
                 fore=(0, 1 << 20, 1 << 20, 200, 64, 4))
    if check("lim_cached_session", ss.error is None, f"{ss.error}"):
        many = [op(OP_PUTROOTFH)] + [op_getattr(0, 1, 4)] * 12
        r = ss.call(many, cache=True)
        expect("lim_cachethis_over_cached_size_too_big_to_cache",
               r.status, REP_TOO_BIG_TO_CACHE)
        r = ss.call(many, cache=False)
        expect("lim_not_cached_same_reply_ok", r.status, 0)
    for what, fore, back, want in (
            ("fore_request_87", (0, 87, 4096, 0, 8, 1), None, TOOSMALL),
            ("fore_response_79", (0, 4096, 79, 0, 8, 1), None, TOOSMALL),
            ("fore_minimal_88_80", (0, 88, 80, 0, 8, 1), None, 0),
            ("back_request_200", None, (0, 200, 4096, 0, 2, 1), TOOSMALL),
            ("back_response_83", None, (0, 4096, 83, 0, 2, 1), TOOSMALL),
            ("back_4096", None, (0, 4096, 4096, 0, 2, 1), 0)):
        ss = Session(s, 1, f"{name}-{what}", reclaim_complete=False,
                     fore=fore or Session.ATTRS, back=back or Session.ATTRS)
        expect(f"lim_create_session_{what}", ss.cs_status, want)
    # BACKCHANNEL_CTL (§18.33): a credential that makes the callbacks
    # larger than the back channel takes is INVAL
    ss = Session(s, 1, name + "-bcctl", back=(0, 300, 4096, 0, 2, 1))
    if check("lim_bcctl_session", ss.error is None, f"{ss.error}"):
        authsys = (u32(1) + u32(1) + u32(0) + opaque(b"m" * 200) + u32(0)
                   + u32(0) + u32(0))
        r = ss.call([op(40, u32(0x40000000) + authsys)])
        expect("lim_backchannel_ctl_cred_too_big_inval", r.status, INVAL)
        r = ss.call([op(40, u32(0x40000000) + u32(1) + u32(0))])
        expect("lim_backchannel_ctl_auth_none_ok", r.status, 0)
    for flags, want in ((0x8, INVAL), (0x80000000, INVAL), (0x1, 0),
                        (0x4, 0)):
        ss = Session(s, 1, f"{name}-flags-{flags:x}", reclaim_complete=False,
                     flags=flags)
        expect(f"lim_create_session_flags_{flags:#x}", ss.cs_status, want)
    s.close()


def t_drc40(port, export):
    """RFC 7530 §3.1.1 / §16.2: a 4.0 COMPOUND that changes state, resent
    with the same xid, gets its first reply (the duplicate request cache);
    one with other arguments under that xid runs; one that only reads runs
    again."""
    s = connect(port)
    xid = random.getrandbits(31) | 1 << 30
    comps = [c for c in export.split("/") if c]
    walk = [op(OP_PUTROOTFH)] + [op_lookup(c) for c in comps]
    mk = op(6, u32(2) + opaque(b"drc-dir") + bitmap() + opaque(b""))
    a = compound(s, 0, walk + [mk], xid=xid)
    b = compound(s, 0, walk + [mk], xid=xid)
    expect("drc40_create", a.status, 0)
    check("drc40_create_resent_same_reply", b.status == 0 and
          b.body == a.body, f"{sname(b.status)}")
    c = compound(s, 0, walk + [mk])
    expect("drc40_create_new_xid_exist", c.status, 17)
    mk2 = op(6, u32(2) + opaque(b"drc-dir2") + bitmap() + opaque(b""))
    d = compound(s, 0, walk + [mk2], xid=xid)
    check("drc40_same_xid_other_args_runs", d.status == 0 and
          os.path.isdir(os.path.join(export, "drc-dir2")), sname(d.status))
    ren = op(29, opaque(b"drc-dir2") + opaque(b"drc-dir3"))
    ops = walk + [op(OP_SAVEFH), ren]
    a = compound(s, 0, ops, xid=xid + 1)
    b = compound(s, 0, ops, xid=xid + 1)
    check("drc40_rename_resent_same_reply", a.status == 0 and
          b.status == 0 and a.body == b.body,
          f"{sname(a.status)} {sname(b.status)}")
    rm = op(OP_REMOVE, opaque(b"drc-dir"))
    a = compound(s, 0, walk + [rm], xid=xid + 2)
    b = compound(s, 0, walk + [rm], xid=xid + 2)
    check("drc40_remove_resent_same_reply", a.status == 0 and
          b.status == 0 and a.body == b.body,
          f"{sname(a.status)} {sname(b.status)}")
    c = compound(s, 0, walk + [rm])
    expect("drc40_remove_new_xid_noent", c.status, 2)
    rd = op(OP_READDIR, u64(0) + b"\0" * 8 + u32(8192) + u32(32768) +
            bitmap(0))
    a = compound(s, 0, walk + [rd], xid=xid + 3)
    with open(os.path.join(export, "drc-new-file"), "w"):
        pass
    b = compound(s, 0, walk + [rd], xid=xid + 3)
    check("drc40_readdir_not_cached", a.status == 0 and b.status == 0 and
          b"drc-new-file" in b.body and b"drc-new-file" not in a.body,
          f"{sname(a.status)} {sname(b.status)}")
    # an OPEN (seqid-mutating) resent: the first reply, and the owner's
    # seqid moved once, so OPEN_CONFIRM with the next seqid is no replay
    st, clid = setclientid40(s, f"nfs4raw-drc40-{os.getpid()}")
    oargs = (u32(0) + u32(1) + u32(0) + u64(clid or 0) + opaque(b"drc-owner")
             + u32(1) + u32(0) + bitmap() + opaque(b"") + u32(0)
             + opaque(b"drc-open-file"))
    ops = walk + [op(18, oargs), op(OP_GETFH)]
    a = compound(s, 0, ops, xid=xid + 5)
    b = compound(s, 0, ops, xid=xid + 5)
    check("drc40_open_resent_same_reply", st == 0 and a.status == 0 and
          b.status == 0 and a.body == b.body,
          f"{sname(st)} {sname(a.status)} {sname(b.status)}")
    if a.status == 0:
        for _ in range(len(walk)):
            a.next()
        a.next()
        sid = a.dec.fixed(16)
        for _ in range(5):                 # change_info, rflags
            a.dec.u32()
        rflags = a.dec.u32()
        a.dec.bitmap()
        dtype = a.dec.u32()                # no delegation over 4.0 here
        a.next()
        fh = a.dec.opaque() if dtype == 0 else None
        if rflags & 2 and fh:              # OPEN4_RESULT_CONFIRM
            r = compound(s, 0, [op_putfh(fh), op(20, sid + u32(1))])
            expect("drc40_open_confirm_next_seqid", r.status, 0)
    # 4.1 is left to its slots: the same xid runs again
    ss = Session(s, 1, f"nfs4raw-drc41-{os.getpid()}")
    if check("drc41_session", ss.error is None, f"{ss.error}"):
        mk4 = op(6, u32(2) + opaque(b"drc-dir41") + bitmap() + opaque(b""))
        seq = ss.seq.get(0, 0) + 1
        sq = op_sequence(ss.sid, seq, 0, 0, True)
        a = compound(s, 1, [sq] + walk + [mk4], xid=xid + 4)
        sq2 = op_sequence(ss.sid, seq + 1, 0, 0, True)
        b = compound(s, 1, [sq2] + walk + [mk4], xid=xid + 4)
        check("drc41_same_xid_new_seq_runs", a.status == 0 and
              b.status == 17, f"{sname(a.status)} {sname(b.status)}")
    s.close()


def setclientid40(s, name, confirm=True):
    """SETCLIENTID (+ SETCLIENTID_CONFIRM) with no callback; returns
    (status, clientid)."""
    args = (u64(random.getrandbits(64)) + opaque(name.encode()) + u32(0)
            + opaque(b"") + opaque(b"") + u32(0))
    r = compound(s, 0, [op(35, args)])
    if r.status != 0:
        return r.status, None
    r.next()
    clid, verf = r.dec.u64(), r.dec.fixed(8)
    if confirm:
        r = compound(s, 0, [op(36, u64(clid) + verf)])
        if r.status != 0:
            return r.status, clid
    return 0, clid


def t_clients(port):
    """Client records are bounded by memory, not by a count (RFC 7530
    §9.1.1 leaves it to the server): 1500 confirmed 4.0 clients with the
    default budget."""
    s = connect(port)
    bad = None
    for i in range(1500):
        st, _ = setclientid40(s, f"nfs4raw-many-{os.getpid()}-{i}")
        if st != 0:
            bad = (i, sname(st))
            break
    check("clients_1500_confirmed", bad is None, f"client {bad}")
    s.close()


def t_client_memory(nasd, tmp):
    """A small --nfs4-client-memory: unconfirmed records give way to new
    clients, confirmed live ones fill it (then RESOURCE), and once their
    lease lapses new clients get in and the old ones' RENEW is EXPIRED."""
    port = free_port(int(os.environ.get("NFS4RAW_PORT", "17000")) + 600)
    export = os.path.join(tmp, "export-mem")
    state = os.path.join(tmp, "state-mem")
    os.mkdir(export)
    os.mkdir(state)
    logpath = os.path.join(tmp, "nasd-mem.log")
    log = open(logpath, "w")
    proc = start_nasd(nasd, port, export, state, log,
                      ["--nfs4-client-memory", "256K", "--lease-time", "10"])
    try:
        if not check("mem_nasd_started", null_ok(port),
                     f"exit {proc.poll()}"):
            return
        s = connect(port)
        pid = os.getpid()
        bad = None
        for i in range(2000):
            st, _ = setclientid40(s, f"mem-unconf-{pid}-{i}", confirm=False)
            if st != 0:
                bad = (i, sname(st))
                break
        check("mem_unconfirmed_flood_gives_way", bad is None, f"{bad}")
        live, st = [], 0
        for i in range(2000):
            st, clid = setclientid40(s, f"mem-conf-{pid}-{i}")
            if st != 0:
                break
            live.append(clid)
        check("mem_confirmed_fill_then_resource",
              st == RESOURCE and 20 < len(live) < 2000,
              f"{len(live)} clients, then {sname(st)}")
        if not live:
            return
        r = compound(s, 0, [op(30, u64(live[0]))])
        expect("mem_renew_live_ok", r.status, 0)
        time.sleep(13)                 # the lease (10 s) lapses
        r = compound(s, 0, [op(30, u64(live[0]))])
        expect("mem_renew_lapsed_expired", r.status, 10011)
        st, _ = setclientid40(s, f"mem-after-{pid}")
        expect("mem_new_client_after_lapse", st, 0)
        s.close()
    finally:
        stop_nasd(proc)
        log.close()
        log_verdict(logpath)


def t_courtesy(nasd, tmp):
    """Courtesy clients (RFC 8881 §8.4.2.1): a 4.1 client whose lease
    lapsed keeps its opens and locks until someone needs them; coming back
    it finds them intact; another client's conflicting LOCK or OPEN gets
    DELAY while the lapsed client is expired, then succeeds, and the lapsed
    client's session is gone."""
    import nfs4_client as nc
    port = free_port(int(os.environ.get("NFS4RAW_PORT", "17000")) + 700)
    export = os.path.join(tmp, "export-courtesy")
    state = os.path.join(tmp, "state-courtesy")
    os.mkdir(export)
    os.mkdir(state)
    for n in ("c1", "c2", "c3"):
        with open(os.path.join(export, n), "w") as f:
            f.write("courtesy\n")
    logpath = os.path.join(tmp, "nasd-courtesy.log")
    log = open(logpath, "w")
    proc = start_nasd(nasd, port, export, state, log,
                      ["--lease-time", "10"])
    try:
        if not check("courtesy_nasd_started", null_ok(port),
                     f"exit {proc.poll()}"):
            return
        pid = os.getpid()
        cl = {k: nc.Client(port, f"courtesy-{k}-{pid}")
              for k in ("back", "lock", "share", "other")}
        st, dfh = walk_fh(cl["back"].ss, export)
        if not check("courtesy_clients", st == 0 and all(
                c.error is None for c in cl.values()), sname(st)):
            return
        # back: an open it will use again; lock: a lock on c2; share: an
        # open of c3 denying writes
        rb = cl["back"].open(dfh, "c1", nc.ACCESS_READ, nc.DENY_NONE)
        ro = cl["lock"].open(dfh, "c2", nc.ACCESS_BOTH, nc.DENY_NONE)
        rl = cl["lock"].lock(ro.fh, ro.stateid, nc.WRITE_LT, 0, 100) \
            if ro.status == 0 else ro
        rs = cl["share"].open(dfh, "c3", nc.ACCESS_READ, nc.DENY_WRITE)
        check("courtesy_state_taken", rb.status == 0 and rl.status == 0 and
              rs.status == 0,
              f"{sname(rb.status)} {sname(rl.status)} {sname(rs.status)}")
        # the other client renews; the three say nothing for 15 s (a
        # 10 s lease, and the reaper's 1 s tick with room to spare)
        for _ in range(15):
            time.sleep(1)
            cl["other"].ss.call([])
        r = cl["back"].read(rb.fh, rb.stateid, 0, 9)
        check("courtesy_client_back_state_intact",
              r.status == 0 and r.data == b"courtesy\n", sname(r.status))
        def until_not_delay(call):
            """The statuses of @call() retried while DELAY (6 s)."""
            sts = []
            for _ in range(30):
                sts.append(call().status)
                if sts[-1] != nc.DELAY:
                    break
                time.sleep(0.2)
            return sts

        ro2 = cl["other"].open(dfh, "c2", nc.ACCESS_BOTH, nc.DENY_NONE,
                               owner=b"other-open")
        sts = until_not_delay(lambda: cl["other"].lock(
            ro2.fh, ro2.stateid, nc.WRITE_LT, 0, 10,
            owner=b"other-lock")) if ro2.status == 0 else []
        check("courtesy_lock_conflict_delay_then_granted",
              len(sts) >= 2 and sts[0] == nc.DELAY and sts[-1] == 0,
              f"open {sname(ro2.status)}, LOCK {[sname(x) for x in sts]}")
        sts = until_not_delay(lambda: cl["other"].open(
            dfh, "c3", nc.ACCESS_WRITE, nc.DENY_NONE, owner=b"other-open3"))
        check("courtesy_share_conflict_delay_then_opened",
              len(sts) >= 2 and sts[0] == nc.DELAY and sts[-1] == 0,
              f"OPEN {[sname(x) for x in sts]}")
        for k in ("lock", "share"):
            r = cl[k].ss.call([])
            expect(f"courtesy_{k}_client_expired_badsession", r.status,
                   BADSESSION)
        r = cl["back"].ss.call([])
        expect("courtesy_back_client_still_there", r.status, 0)
        for c in cl.values():
            c.close_conn()
    finally:
        stop_nasd(proc)
        log.close()
        log_verdict(logpath)


def t_still_serving(port):
    check("null_after_tests", null_ok(port), "NULL not answered")
    with connect(port) as s:
        r = compound(s, 0, [op(OP_PUTROOTFH), op_getattr(1, 20)])
        expect("v40_compound_after_tests", r.status, NFS4_OK)


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    nasd = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="nasd-nfs4raw-")
    os.chmod(tmp, 0o755)
    export = os.path.join(tmp, "export")
    state = os.path.join(tmp, "state")
    os.mkdir(export, 0o755)
    os.mkdir(state)
    port = free_port(int(os.environ.get("NFS4RAW_PORT", "17000")))
    logpath = os.path.join(tmp, "nasd.log")
    log = open(logpath, "w")
    # xattrs on tmpfs, which takes 64 KiB values (ext4 one block), and
    # an export with them off
    xtmp = tempfile.mkdtemp(prefix="nasd-nfs4raw-x-", dir="/dev/shm")
    xexport = os.path.join(xtmp, "xattr")
    noxexport = os.path.join(tmp, "noxattr")
    os.mkdir(xexport, 0o755)
    os.mkdir(noxexport, 0o755)
    proc = start_nasd(nasd, port, export, state, log,
                      ["--export", f"{xexport}:rw,no_root_squash",
                       "--export", f"{noxexport}:rw,no_root_squash,"
                       "xattr=no"])
    try:
        if proc.poll() is not None:
            check("nasd_started", False, f"exited {proc.returncode}")
            log.close()
            print(open(logpath, errors="replace").read()[-3000:])
            return 1
        check("nasd_started", null_ok(port), "no NULL reply")
        for t in (lambda: t_framing(port), lambda: t_sessions(port),
                  lambda: t_v42(port, export),
                  lambda: t_conformance(port, export),
                  lambda: t_session_limits(port),
                  lambda: t_drc40(port, export),
                  lambda: t_clients(port),
                  lambda: t_xattr(port, xexport, noxexport),
                  lambda: t_still_serving(port)):
            try:
                t()
            except Exception as e:          # one broken group, not all
                check("exception", False, f"{type(e).__name__}: {e}")
            if proc.poll() is not None:
                check("nasd_still_running", False,
                      f"nasd exited with {proc.returncode}")
                break
        stop_nasd(proc)
        log.close()
        log_verdict(logpath)
        for t in (t_client_memory, t_courtesy):
            try:
                t(nasd, tmp)
            except Exception as e:
                check("exception", False, f"{type(e).__name__}: {e}")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if not os.environ.get("KEEP_TMP"):
            shutil.rmtree(tmp, ignore_errors=True)
            shutil.rmtree(xtmp, ignore_errors=True)
    print(f"# {passes} passed, {fails} failed")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
