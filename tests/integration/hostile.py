#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Hostile and malformed ONC RPC traffic against nasd over raw TCP.

usage: hostile.py NASD

Starts its own nasd, throws malformed records, bad headers, bad credentials
and bad arguments at it, checks each answer against RFC 5531 / RFC 1813, and
checks that the server keeps serving, keeps its memory small, and exits 0 on
SIGTERM without a sanitizer report. Prints "ok - NAME" / "not ok - NAME:
DETAIL" per check and exits 1 if any failed.
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

NFS_PROG, NFS_VERS = 100003, 3
MOUNT_PROG, MOUNT_VERS = 100005, 3
CALL, REPLY = 0, 1
MSG_ACCEPTED, MSG_DENIED = 0, 1
ACCEPT = {0: "SUCCESS", 1: "PROG_UNAVAIL", 2: "PROG_MISMATCH",
          3: "PROC_UNAVAIL", 4: "GARBAGE_ARGS", 5: "SYSTEM_ERR"}
RPC_MISMATCH, AUTH_ERROR = 0, 1
AUTH_BADCRED = 1
NFS3ERR_NAMETOOLONG, NFS3ERR_STALE, NFS3ERR_BADHANDLE = 63, 70, 10001
SANITIZER_RE = re.compile(
    r"ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|"
    r"SUMMARY: (AddressSanitizer|UndefinedBehaviorSanitizer|LeakSanitizer)")

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


# ---------------------------------------------------------------- XDR / RPC

def u32(v):
    return struct.pack(">I", v & 0xFFFFFFFF)


def opaque(b):
    pad = (4 - len(b) % 4) % 4
    return u32(len(b)) + b + b"\0" * pad


def auth_none():
    return u32(0) + u32(0)


def auth_sys(machine=b"hostile", uid=0, gid=0, gids=(), stamp=1):
    body = u32(stamp) + opaque(machine) + u32(uid) + u32(gid)
    body += u32(len(gids)) + b"".join(u32(g) for g in gids)
    return u32(1) + opaque(body)


_xid = random.randrange(1, 1 << 30)


def next_xid():
    global _xid
    _xid += 1
    return _xid


def call_msg(prog, vers, proc, args=b"", cred=None, verf=None, xid=None,
             rpcvers=2):
    xid = next_xid() if xid is None else xid
    msg = u32(xid) + u32(CALL) + u32(rpcvers) + u32(prog) + u32(vers)
    msg += u32(proc) + (cred if cred is not None else auth_none())
    msg += verf if verf is not None else auth_none()
    return xid, msg + args


def record(payload, last=True):
    return u32((0x80000000 if last else 0) | len(payload)) + payload


class Closed(Exception):
    pass


def recv_exact(sock, n):
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise Closed("connection closed")
        buf += chunk
    return buf


def recv_record(sock):
    data = b""
    while True:
        (hdr,) = struct.unpack(">I", recv_exact(sock, 4))
        data += recv_exact(sock, hdr & 0x7FFFFFFF)
        if hdr & 0x80000000:
            return data


def parse_reply(data):
    """Return a dict describing an RPC reply (RFC 5531 section 9)."""
    r = {"raw": data}
    off = 0

    def get():
        nonlocal off
        (v,) = struct.unpack_from(">I", data, off)
        off += 4
        return v

    r["xid"] = get()
    r["mtype"] = get()
    if r["mtype"] != REPLY:
        r["kind"] = "NOT_A_REPLY"
        return r
    stat = get()
    if stat == MSG_DENIED:
        rs = get()
        if rs == RPC_MISMATCH:
            r["kind"] = "RPC_MISMATCH"
            r["low"], r["high"] = get(), get()
        elif rs == AUTH_ERROR:
            r["kind"] = "AUTH_ERROR"
            r["auth_stat"] = get()
        else:
            r["kind"] = f"DENIED_{rs}"
        return r
    get()                               # verifier flavor
    vlen = get()
    off += (vlen + 3) & ~3
    acc = get()
    r["kind"] = ACCEPT.get(acc, f"ACCEPT_{acc}")
    if acc == 2:
        r["low"], r["high"] = get(), get()
    r["body"] = data[off:]
    return r


def connect(port, timeout=10.0):
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def rpc(sock, prog, vers, proc, args=b"", cred=None, verf=None,
        rpcvers=2):
    xid, msg = call_msg(prog, vers, proc, args, cred, verf, rpcvers=rpcvers)
    sock.sendall(record(msg))
    while True:
        r = parse_reply(recv_record(sock))
        if r["xid"] == xid:
            return r


def null_ok(port, timeout=5.0):
    """True if a fresh connection gets NFS NULL answered within timeout."""
    try:
        with connect(port, timeout) as s:
            return rpc(s, NFS_PROG, NFS_VERS, 0)["kind"] == "SUCCESS"
    except (OSError, Closed, struct.error):
        return False


def nfsstat(r):
    return struct.unpack_from(">I", r["body"], 0)[0] if r.get("body") else None


def wait_closed(sock, timeout=5.0):
    """True if the peer closes (EOF or reset) within timeout."""
    sock.settimeout(timeout)
    deadline = time.time() + timeout
    try:
        while time.time() < deadline:
            if not sock.recv(65536):
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except socket.timeout:
        return False
    return False


def proc_status(pid, key):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])          # kB
    except OSError:
        pass
    return -1


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


def start_nasd(nasd, port, export, state, log):
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = os.environ.get(
        "NASD_ASAN_OPTIONS",
        "halt_on_error=1:abort_on_error=0:detect_leaks=1:exitcode=66")
    env["UBSAN_OPTIONS"] = os.environ.get(
        "NASD_UBSAN_OPTIONS", "halt_on_error=1:print_stacktrace=1")
    p = subprocess.Popen(
        [nasd, "--foreground", "--listen", f"127.0.0.1:{port}",
         "--mountd-port", "0", "--state-dir", state,
         "--export", f"{export}:rw,no_root_squash"],
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


# ---------------------------------------------------------------- tests

def t_truncated(port):
    cases = [
        b"\x80\x00",                                  # half a header
        u32(0x80000000 | 100) + b"x" * 10,            # short payload
        u32(0x80000000 | 40),                         # header only
        u32(0x80000000 | 0),                          # empty record
        record(call_msg(NFS_PROG, NFS_VERS, 0)[1][:20]),  # cut-off header
        u32(100) + b"y" * 100 + u32(0x80000000 | 8),  # fragment then stub
    ]
    for i, data in enumerate(cases):
        try:
            with connect(port) as s:
                s.sendall(data)
        except OSError:
            pass
    time.sleep(0.2)
    check("truncated_records_then_close", null_ok(port),
          "server stopped answering after truncated records")
    # a record whose RPC header is cut short must not get a success
    with connect(port) as s:
        s.sendall(record(call_msg(NFS_PROG, NFS_VERS, 0)[1][:20]))
        s.settimeout(3)
        try:
            r = parse_reply(recv_record(s))
            check("short_rpc_header_rejected", r["kind"] != "SUCCESS",
                  f"got {r['kind']}")
        except (Closed, socket.timeout, ConnectionResetError,
                struct.error):
            check("short_rpc_header_rejected", True)


def t_one_byte_fragments(port):
    xid, msg = call_msg(NFS_PROG, NFS_VERS, 0)
    data = b""
    for i, b in enumerate(msg):
        data += record(bytes([b]), last=(i == len(msg) - 1))
    with connect(port) as s:
        s.sendall(data)
        try:
            r = parse_reply(recv_record(s))
            check("one_byte_fragments_null",
                  r["xid"] == xid and r["kind"] == "SUCCESS",
                  f"xid {r['xid']} vs {xid}, {r['kind']}")
        except (Closed, socket.timeout, OSError) as e:
            check("one_byte_fragments_null", False, str(e))
    # the same record dribbled one byte per write
    xid, msg = call_msg(NFS_PROG, NFS_VERS, 0)
    with connect(port) as s:
        for b in record(msg):
            s.send(bytes([b]))
            time.sleep(0.002)
        try:
            r = parse_reply(recv_record(s))
            check("one_byte_writes_null",
                  r["xid"] == xid and r["kind"] == "SUCCESS", r["kind"])
        except (Closed, socket.timeout, OSError) as e:
            check("one_byte_writes_null", False, str(e))


def t_huge_fragment(port, pid, asan):
    rss0 = proc_status(pid, "VmRSS")
    vm0 = proc_status(pid, "VmSize")
    for hdr, name in ((0x7FFFFFFF, "huge_fragment_2GiB_closes"),
                      (0xFFFFFFFF, "huge_last_fragment_2GiB_closes")):
        with connect(port) as s:
            s.sendall(u32(hdr) + b"\0" * 4096)
            check(name, wait_closed(s, 5.0),
                  "connection still open 5 s after a 2 GiB fragment header")
    # many fragments adding up to far more than any record limit
    with connect(port) as s:
        closed = False
        try:
            chunk = u32(256 * 1024) + b"\0" * (256 * 1024)
            for _ in range(64):                     # 16 MiB
                s.sendall(chunk)
        except (BrokenPipeError, ConnectionResetError):
            closed = True
        except socket.timeout:
            pass
        if not closed:
            closed = wait_closed(s, 5.0)
        check("oversized_record_from_fragments_closes", closed,
              "connection still open after 16 MiB of fragments")
    time.sleep(0.3)
    rss1 = proc_status(pid, "VmRSS")
    vm1 = proc_status(pid, "VmSize")
    print(f"# nasd VmRSS {rss0} -> {rss1} kB, VmSize {vm0} -> {vm1} kB")
    check("huge_fragment_rss_small", rss1 >= 0 and rss1 - rss0 < 64 * 1024,
          f"VmRSS grew from {rss0} to {rss1} kB")
    if not asan:
        check("huge_fragment_no_big_reservation",
              vm1 >= 0 and vm1 - vm0 < 512 * 1024,
              f"VmSize grew from {vm0} to {vm1} kB")
    check("alive_after_huge_fragments", null_ok(port), "no NULL reply")


def t_headers(port, root_fh):
    with connect(port) as s:
        r = rpc(s, NFS_PROG, NFS_VERS, 0, rpcvers=3)
        check("rpcvers_3_rpc_mismatch",
              r["kind"] == "RPC_MISMATCH" and r.get("low") == 2 and
              r.get("high") == 2,
              f"{r['kind']} {r.get('low')}..{r.get('high')}")
        r = rpc(s, 123456, 1, 0)
        check("unknown_program_prog_unavail", r["kind"] == "PROG_UNAVAIL",
              r["kind"])
        r = rpc(s, NFS_PROG, 2, 0)
        check("nfs_v2_prog_mismatch",
              r["kind"] == "PROG_MISMATCH" and r.get("low") == 3 and
              r.get("high", 0) >= 3,
              f"{r['kind']} {r.get('low')}..{r.get('high')}")
        r = rpc(s, NFS_PROG, 4, 0)
        check("nfs_v4_prog_mismatch_or_served",
              (r["kind"] == "PROG_MISMATCH" and r.get("low") == 3 and
               r.get("high") == 3) or r["kind"] == "SUCCESS",
              f"{r['kind']} {r.get('low')}..{r.get('high')}")
        r = rpc(s, MOUNT_PROG, 4, 0)
        check("mount_v4_prog_mismatch",
              r["kind"] == "PROG_MISMATCH" and r.get("high") == 3,
              f"{r['kind']} {r.get('low')}..{r.get('high')}")
        r = rpc(s, NFS_PROG, NFS_VERS, 99)
        check("nfs_proc_99_proc_unavail", r["kind"] == "PROC_UNAVAIL",
              r["kind"])
        r = rpc(s, NFS_PROG, NFS_VERS, 22)
        check("nfs_proc_22_proc_unavail", r["kind"] == "PROC_UNAVAIL",
              r["kind"])
        r = rpc(s, MOUNT_PROG, MOUNT_VERS, 99)
        check("mount_proc_99_proc_unavail", r["kind"] == "PROC_UNAVAIL",
              r["kind"])
        check("alive_on_same_connection_after_errors",
              rpc(s, NFS_PROG, NFS_VERS, 0)["kind"] == "SUCCESS")


def t_auth(port, root_fh):
    getattr_args = opaque(root_fh)
    cases = [
        ("auth_sys_300_byte_machinename",
         auth_sys(machine=b"m" * 300)),
        ("auth_sys_17_gids", auth_sys(gids=list(range(1, 18)))),
        ("auth_sys_body_over_400_bytes",
         u32(1) + opaque(b"\0" * 404)),
        ("auth_sys_truncated_body",
         u32(1) + opaque(u32(1) + u32(200) + b"short")),
    ]
    with connect(port) as s:
        r = rpc(s, NFS_PROG, NFS_VERS, 1, getattr_args,
                cred=auth_sys(uid=0, gid=0, gids=list(range(1, 17))))
        check("auth_sys_16_gids_accepted", r["kind"] == "SUCCESS" and
              nfsstat(r) == 0, f"{r['kind']} status {nfsstat(r)}")
        for name, cred in cases:
            try:
                r = rpc(s, NFS_PROG, NFS_VERS, 1, getattr_args, cred=cred)
            except (Closed, OSError) as e:
                check(name, False, f"connection dropped: {e}")
                s = connect(port)
                continue
            check(name, r["kind"] == "AUTH_ERROR" and
                  r.get("auth_stat") == AUTH_BADCRED,
                  f"{r['kind']} auth_stat {r.get('auth_stat')}")
        r = rpc(s, NFS_PROG, NFS_VERS, 1, getattr_args,
                cred=u32(6) + opaque(b"\0" * 40))
        check("rpcsec_gss_auth_error", r["kind"] == "AUTH_ERROR",
              f"{r['kind']} auth_stat {r.get('auth_stat')}")
        r = rpc(s, NFS_PROG, NFS_VERS, 1, getattr_args,
                cred=u32(99) + opaque(b""))
        check("unknown_flavor_auth_error", r["kind"] == "AUTH_ERROR",
              f"{r['kind']} auth_stat {r.get('auth_stat')}")
        check("alive_after_bad_creds",
              rpc(s, NFS_PROG, NFS_VERS, 0)["kind"] == "SUCCESS")
        s.close()


def t_args(port, root_fh):
    with connect(port) as s:
        r = rpc(s, NFS_PROG, NFS_VERS, 1, b"\x00\x00\x00")
        check("getattr_3_byte_args_garbage", r["kind"] == "GARBAGE_ARGS",
              r["kind"])
        r = rpc(s, NFS_PROG, NFS_VERS, 1, u32(0xFFFFFFFF))
        check("getattr_huge_length_garbage", r["kind"] == "GARBAGE_ARGS",
              r["kind"])
        r = rpc(s, NFS_PROG, NFS_VERS, 1, u32(40) + b"\0" * 8)
        check("getattr_length_past_end_garbage",
              r["kind"] == "GARBAGE_ARGS", r["kind"])
        r = rpc(s, NFS_PROG, NFS_VERS, 1, opaque(os.urandom(65)))
        check("handle_65_bytes_garbage", r["kind"] == "GARBAGE_ARGS",
              r["kind"])
        r = rpc(s, NFS_PROG, NFS_VERS, 1, opaque(os.urandom(64)))
        check("handle_64_random_badhandle",
              r["kind"] == "SUCCESS" and
              nfsstat(r) in (NFS3ERR_BADHANDLE, NFS3ERR_STALE),
              f"{r['kind']} status {nfsstat(r)}")
        r = rpc(s, NFS_PROG, NFS_VERS, 1, opaque(b""))
        check("handle_empty_badhandle",
              r["kind"] == "GARBAGE_ARGS" or (
                  r["kind"] == "SUCCESS" and
                  nfsstat(r) in (NFS3ERR_BADHANDLE, NFS3ERR_STALE)),
              f"{r['kind']} status {nfsstat(r)}")
        r = rpc(s, NFS_PROG, NFS_VERS, 3, opaque(root_fh) +
                opaque(b"n" * 10000))
        check("lookup_10000_byte_name",
              r["kind"] == "GARBAGE_ARGS" or (
                  r["kind"] == "SUCCESS" and
                  nfsstat(r) == NFS3ERR_NAMETOOLONG),
              f"{r['kind']} status {nfsstat(r)}")
        # a GETATTR with trailing bytes after the arguments
        r = rpc(s, NFS_PROG, NFS_VERS, 1, opaque(root_fh) + b"\0" * 8)
        check("getattr_trailing_bytes_answered",
              r["kind"] in ("SUCCESS", "GARBAGE_ARGS"), r["kind"])
        # WRITE whose count disagrees with the data length
        args = opaque(root_fh) + struct.pack(">Q", 0) + u32(1000) + u32(2)
        args += opaque(b"x" * 10)
        r = rpc(s, NFS_PROG, NFS_VERS, 7, args)
        check("write_count_mismatch_not_ok",
              r["kind"] != "SUCCESS" or nfsstat(r) != 0,
              f"{r['kind']} status {nfsstat(r)}")
        # MNT with a 2000-byte path (dirpath<1024>)
        r = rpc(s, MOUNT_PROG, MOUNT_VERS, 1, opaque(b"/" * 2000))
        check("mnt_path_over_1024_rejected",
              r["kind"] == "GARBAGE_ARGS" or (
                  r["kind"] == "SUCCESS" and nfsstat(r) != 0),
              f"{r['kind']} status {nfsstat(r)}")
        check("alive_after_garbage_args",
              rpc(s, NFS_PROG, NFS_VERS, 0)["kind"] == "SUCCESS")


def t_reply_to_server(port):
    s = connect(port)
    s.sendall(record(u32(next_xid()) + u32(REPLY) + u32(MSG_ACCEPTED) +
                     auth_none() + u32(0)))
    try:
        r = rpc(s, NFS_PROG, NFS_VERS, 0)
        check("reply_message_dropped", r["kind"] == "SUCCESS", r["kind"])
    except (Closed, OSError):
        check("reply_message_dropped", True)   # closing is allowed too
    s.close()
    check("alive_after_reply_message", null_ok(port))
    # a message type that is neither CALL nor REPLY
    s = connect(port)
    s.sendall(record(u32(next_xid()) + u32(7) + b"\0" * 32))
    try:
        r = rpc(s, NFS_PROG, NFS_VERS, 0)
        check("bad_msg_type_ignored", r["kind"] == "SUCCESS", r["kind"])
    except (Closed, OSError):
        check("bad_msg_type_ignored", True)
    s.close()
    check("alive_after_bad_msg_type", null_ok(port))


def t_idle_connections(port):
    idle = []
    try:
        for _ in range(300):
            idle.append(connect(port))
    except OSError as e:
        check("hold_300_idle_connections", False, f"after {len(idle)}: {e}")
    else:
        check("hold_300_idle_connections", True)
    t0 = time.time()
    ok = null_ok(port, timeout=5.0)
    dt = time.time() - t0
    check("fresh_client_served_with_300_idle", ok and dt < 2.0,
          f"ok={ok} in {dt:.2f} s")
    # the idle ones still work
    bad = 0
    for s in idle[:20]:
        try:
            if rpc(s, NFS_PROG, NFS_VERS, 0)["kind"] != "SUCCESS":
                bad += 1
        except (Closed, OSError):
            bad += 1
    check("idle_connections_still_served", bad == 0, f"{bad} of 20 failed")
    for s in idle:
        s.close()


def t_half_record(port):
    xid, msg = call_msg(NFS_PROG, NFS_VERS, 0)
    rec = record(msg)
    a = connect(port)
    a.sendall(rec[:len(rec) // 2])
    time.sleep(0.2)
    check("second_connection_during_half_record", null_ok(port))
    a.sendall(rec[len(rec) // 2:])
    try:
        r = parse_reply(recv_record(a))
        check("half_record_completed_later",
              r["xid"] == xid and r["kind"] == "SUCCESS", r["kind"])
    except (Closed, OSError) as e:
        check("half_record_completed_later", False, str(e))
    a.close()


def t_pipelined(port, n=1000):
    with connect(port, timeout=30) as s:
        xids = set()
        data = b""
        for _ in range(n):
            xid, msg = call_msg(NFS_PROG, NFS_VERS, 0)
            xids.add(xid)
            data += record(msg)
        s.sendall(data)
        got = set()
        bad = 0
        try:
            while len(got) + bad < n:
                r = parse_reply(recv_record(s))
                if r["xid"] in xids and r["kind"] == "SUCCESS":
                    got.add(r["xid"])
                else:
                    bad += 1
        except (Closed, OSError) as e:
            print(f"# pipelined: {e}")
        check("pipelined_1000_nulls_all_answered",
              got == xids and bad == 0,
              f"{len(got)} of {n} matched, {bad} bad")
    # pipelined calls mixed across programs on one connection
    with connect(port, timeout=30) as s:
        calls = {}
        data = b""
        for i in range(200):
            prog, vers = ((NFS_PROG, NFS_VERS), (MOUNT_PROG, MOUNT_VERS),
                          (NFS_PROG, 2))[i % 3]
            xid, msg = call_msg(prog, vers, 0)
            calls[xid] = "PROG_MISMATCH" if vers == 2 else "SUCCESS"
            data += record(msg)
        s.sendall(data)
        wrong = 0
        seen = 0
        try:
            while seen < len(calls):
                r = parse_reply(recv_record(s))
                seen += 1
                if calls.get(r["xid"]) != r["kind"]:
                    wrong += 1
        except (Closed, OSError) as e:
            print(f"# mixed pipelined: {e}")
        check("pipelined_mixed_programs", seen == len(calls) and
              wrong == 0, f"{seen} replies, {wrong} wrong")


def t_abrupt_close(port):
    """Close connections with many requests in flight."""
    for _ in range(20):
        s = connect(port)
        data = b"".join(record(call_msg(NFS_PROG, NFS_VERS, 0)[1])
                        for _ in range(200))
        try:
            s.sendall(data)
        except OSError:
            pass
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                     struct.pack("ii", 1, 0))      # RST on close
        s.close()
    time.sleep(0.3)
    check("alive_after_abrupt_closes", null_ok(port))


def mount_root(port, path):
    with connect(port) as s:
        r = rpc(s, MOUNT_PROG, MOUNT_VERS, 1, opaque(path.encode()))
    if r["kind"] != "SUCCESS" or nfsstat(r) != 0:
        return None
    (n,) = struct.unpack_from(">I", r["body"], 4)
    return r["body"][8:8 + n]


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    nasd = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="nasd-test-hostile.")
    os.chmod(tmp, 0o755)
    export = os.path.join(tmp, "export")
    state = os.path.join(tmp, "state")
    os.mkdir(export)
    os.mkdir(state)
    logpath = os.path.join(tmp, "nasd.log")
    with open(nasd, "rb") as f:
        asan = b"__asan_init" in f.read()
    port = free_port(12089)
    log = open(logpath, "wb")
    proc = start_nasd(nasd, port, export, state, log)
    try:
        if proc.poll() is not None:
            check("nasd_started", False, f"exited {proc.returncode}")
            return 1
        check("nasd_started", null_ok(port), "no NULL reply")
        root_fh = mount_root(port, export)
        check("mnt_root_handle", root_fh is not None, "MNT failed")
        if root_fh is None:
            root_fh = b"\0" * 32
        tests = [
            lambda: t_truncated(port),
            lambda: t_one_byte_fragments(port),
            lambda: t_huge_fragment(port, proc.pid, asan),
            lambda: t_headers(port, root_fh),
            lambda: t_auth(port, root_fh),
            lambda: t_args(port, root_fh),
            lambda: t_reply_to_server(port),
            lambda: t_idle_connections(port),
            lambda: t_half_record(port),
            lambda: t_pipelined(port),
            lambda: t_abrupt_close(port),
        ]
        for t in tests:
            try:
                t()
            except Exception as e:          # one broken test, not all
                check("exception", False, f"{type(e).__name__}: {e}")
            if proc.poll() is not None:
                check("nasd_still_running", False,
                      f"nasd exited with {proc.returncode}")
                break
        check("final_null", null_ok(port), "server no longer answers")
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
        m = SANITIZER_RE.search(text)
        check("no_sanitizer_report", m is None,
              text[max(0, m.start() - 200):m.start() + 2000] if m else "")
        if fails:
            print("----- last lines of nasd log")
            print("\n".join(text.splitlines()[-40:]))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if not os.environ.get("KEEP_TMP"):
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"# {passes} passed, {fails} failed")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
