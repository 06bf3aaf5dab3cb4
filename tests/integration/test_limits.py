#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Resource bounds of nasd's transport (issue 5), over raw TCP.

usage: test_limits.py NASD

Starts two servers. Server A (tight connection, in-flight, reply-queue and
memory limits): 2000 connections from four loopback addresses with
--max-conns-per-client 500 (the 501st from one address is closed at once,
and the --max-conns total holds too), pipelined NULL/GETATTR floods without
reading while a well-behaved client measures its round trips, 32 READs of
1 MiB at once whose replies are taken slowly (8 x --max-sendq: served,
not cut), a client that sends 1 MiB READs and never reads the replies
(cut off once its queue over --max-sendq stood untaken for
--record-timeout 3), and an oversized record; nasd's VmRSS is sampled
throughout and must stay under --max-memory plus a margin. Server B
(--idle-timeout 2 --record-timeout 2 --max-inflight 8 --max-memory 8M): a
record sent one byte a second, an idle and a silent connection are closed;
a slow but steady client and a pipelining one are served; 12 WRITE
records of 1 MiB begun at once pause reading at the memory ceiling and are
all answered (OK or JUKEBOX) once complete. Every bound hit must show
in `nasd stats --json` ("limits"). Both servers must still answer at the
end and exit 0 on SIGTERM with no sanitizer report.
Prints "ok - NAME" / "not ok - NAME: DETAIL" and exits 1 if any failed.
"""

import json
import os
import resource
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import shutil
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hostile as H  # noqa: E402  (RPC helpers and check())

from hostile import (NFS_PROG, NFS_VERS, Closed, call_msg, check,  # noqa
                     connect, null_ok, opaque, parse_reply, record,
                     recv_record, rpc, u32, wait_closed)

MIB = 1 << 20
MAX_MEMORY = 64 * MIB
MAX_SENDQ = 4 * MIB
# server A: how long a reply queue over MAX_SENDQ may stand untaken
RECORD_TIMEOUT_A = 3
PER_CLIENT = 500
SOURCES = ["127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"]
MAX_CONNS = PER_CLIENT * len(SOURCES) + 10


def start(nasd, port, export, state, log, extra):
    env = dict(os.environ)
    # A small quarantine, so that freed buffers do not inflate the RSS.
    asan = os.environ.get(
        "NASD_ASAN_OPTIONS",
        "halt_on_error=1:abort_on_error=0:detect_leaks=1:exitcode=66")
    if "quarantine_size_mb" not in asan:
        asan += ":quarantine_size_mb=8"
    env["ASAN_OPTIONS"] = asan.lstrip(":")
    env["UBSAN_OPTIONS"] = os.environ.get(
        "NASD_UBSAN_OPTIONS", "halt_on_error=1:print_stacktrace=1")
    p = subprocess.Popen(
        [nasd, "--foreground", "--listen", f"127.0.0.1:{port}",
         "--mountd-port", "0", "--state-dir", state,
         "--export", f"{export}:rw,no_root_squash"] + extra,
        stdout=log, stderr=subprocess.STDOUT, env=env)
    deadline = time.time() + 20
    while time.time() < deadline and p.poll() is None:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.1)
    return p


def stats(nasd, state):
    out = subprocess.run([nasd, "stats", "--state-dir", state, "--json"],
                         capture_output=True, timeout=20)
    if out.returncode != 0:
        return None
    return json.loads(out.stdout)


def limit_hits(nasd, state):
    s = stats(nasd, state)
    return s["limits"] if s else {}


def wait_for(pred, timeout, step=0.1):
    deadline = time.time() + timeout
    while time.time() < deadline:
        v = pred()
        if v:
            return v
        time.sleep(step)
    return pred()


def connect_from(src, port, timeout=10.0):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.bind((src, 0))
    s.connect(("127.0.0.1", port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


class RssWatch(threading.Thread):
    """Samples VmRSS of a pid every 20 ms; peak in kB."""

    def __init__(self, pid):
        super().__init__(daemon=True)
        self.pid, self.peak, self.stop = pid, 0, False

    def run(self):
        while not self.stop:
            v = H.proc_status(self.pid, "VmRSS")
            if v < 0:
                break
            self.peak = max(self.peak, v)
            time.sleep(0.02)


def lookup(sock, dir_fh, name):
    r = rpc(sock, NFS_PROG, NFS_VERS, 3, opaque(dir_fh) + opaque(name),
            cred=H.auth_sys())
    if r["kind"] != "SUCCESS" or H.nfsstat(r) != 0:
        return None
    (n,) = struct.unpack_from(">I", r["body"], 4)
    return r["body"][8:8 + n]


# ------------------------------------------------------------ server A

def t_conns(port, nasd, state):
    held = []
    refused_fast = 0
    t0 = time.time()
    try:
        for src in SOURCES:
            for _ in range(PER_CLIENT):
                held.append(connect_from(src, port))
            extra = connect_from(src, port)
            t1 = time.time()
            if wait_closed(extra, 3.0) and time.time() - t1 < 2.0:
                refused_fast += 1
            extra.close()
    except OSError as e:
        check("open_2000_connections", False, f"after {len(held)}: {e}")
        for s in held:
            s.close()
        return
    dt = time.time() - t0
    print(f"# opened {len(held)} connections in {dt:.2f} s")
    check("open_2000_connections", len(held) == PER_CLIENT * len(SOURCES))
    check("conn_501_from_one_address_closed_at_once",
          refused_fast == len(SOURCES),
          f"{refused_fast} of {len(SOURCES)} extra connections closed")
    # every accepted connection is served: one NULL on each, pipelined
    t0 = time.time()
    xids = {}
    bad = 0
    for s in held:
        xid, msg = call_msg(NFS_PROG, NFS_VERS, 0)
        xids[s] = xid
        try:
            s.sendall(record(msg))
        except OSError:
            bad += 1
    for s in held:
        try:
            r = parse_reply(recv_record(s))
            if r["xid"] != xids[s] or r["kind"] != "SUCCESS":
                bad += 1
        except (OSError, Closed):
            bad += 1
    print(f"# NULL on {len(held)} connections in {time.time() - t0:.2f} s")
    check("all_2000_connections_served", bad == 0, f"{bad} failed")
    # the total: 10 more from another address fit, the next does not
    more = [connect_from("127.0.0.6", port) for _ in range(10)]
    alive = sum(1 for s in more if rpc(s, NFS_PROG, NFS_VERS, 0)["kind"]
                == "SUCCESS")
    over = connect_from("127.0.0.6", port)
    check("max_conns_total_fits_10_more", alive == 10, f"{alive} of 10")
    check("max_conns_total_next_closed", wait_closed(over, 3.0))
    over.close()
    hits = limit_hits(nasd, state)
    print(f"# limits after connections: {hits}")
    check("stats_conns_per_client_counted",
          hits.get("conns_per_client") == len(SOURCES),
          f"{hits.get('conns_per_client')}")
    check("stats_conns_total_counted", hits.get("conns", 0) >= 1,
          f"{hits.get('conns')}")
    for s in more + held:
        s.close()
    st = wait_for(lambda: (lambda s: s and s["connections"]["current"] == 0
                           and s)(stats(nasd, state)), 15, 0.3)
    check("connections_released", bool(st),
          f"{st and st['connections']}")
    check("served_after_connection_flood", null_ok(port))


def latency_probe(port, root_fh, stop, lat):
    """NULL and GETATTR round trips on one connection until @stop."""
    try:
        with connect(port, timeout=10) as s:
            i = 0
            while not stop.is_set():
                t0 = time.perf_counter()
                if i % 2:
                    r = rpc(s, NFS_PROG, NFS_VERS, 1, opaque(root_fh),
                            cred=H.auth_sys())
                else:
                    r = rpc(s, NFS_PROG, NFS_VERS, 0)
                if r["kind"] != "SUCCESS":
                    lat.append(float("inf"))
                    return
                lat.append(time.perf_counter() - t0)
                i += 1
                time.sleep(0.005)
    except (OSError, Closed) as e:
        print(f"# latency probe: {e}")
        lat.append(float("inf"))


def pipeliner(port, root_fh, n, result):
    """Send n NULL + n GETATTR calls without reading, then read all."""
    try:
        s = connect(port, timeout=60)
        xids = set()
        data = []
        for i in range(2 * n):
            if i % 2:
                xid, msg = call_msg(NFS_PROG, NFS_VERS, 1, opaque(root_fh),
                                    cred=H.auth_sys())
            else:
                xid, msg = call_msg(NFS_PROG, NFS_VERS, 0)
            xids.add(xid)
            data.append(record(msg))
        blob = b"".join(data)
        sender = threading.Thread(target=s.sendall, args=(blob,),
                                  daemon=True)
        sender.start()
        time.sleep(1.0)                 # the replies pile up unread
        got = bad = 0
        while got + bad < 2 * n:
            r = parse_reply(recv_record(s))
            if r["xid"] in xids and r["kind"] == "SUCCESS":
                got += 1
                xids.discard(r["xid"])
            else:
                bad += 1
        sender.join(10)
        s.close()
        result.append((got, bad))
    except (OSError, Closed) as e:
        result.append((0, f"{type(e).__name__}: {e}"))


def t_pipelining(port, nasd, state, root_fh):
    n = 5000
    stop = threading.Event()
    lat = []
    probe = threading.Thread(target=latency_probe,
                             args=(port, root_fh, stop, lat))
    probe.start()
    time.sleep(0.3)
    results = []
    t0 = time.time()
    workers = [threading.Thread(target=pipeliner,
                                args=(port, root_fh, n, results))
               for _ in range(3)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(120)
    dt = time.time() - t0
    stop.set()
    probe.join(30)
    print(f"# 3 x {2 * n} pipelined calls in {dt:.2f} s: {results}")
    check("pipelined_all_answered",
          len(results) == 3 and all(r == (2 * n, 0) for r in results),
          f"{results}")
    lat.sort()
    if lat:
        p50 = lat[len(lat) // 2]
        p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))]
        print(f"# well-behaved client: {len(lat)} round trips, "
              f"p50 {p50 * 1e3:.2f} ms, p99 {p99 * 1e3:.2f} ms, "
              f"max {lat[-1] * 1e3:.2f} ms")
        check("well_behaved_p99_under_200ms", len(lat) >= 20 and
              p99 < 0.2, f"{len(lat)} samples, p99 {p99 * 1e3:.1f} ms")
    else:
        check("well_behaved_p99_under_200ms", False, "no samples")
    hits = limit_hits(nasd, state)
    print(f"# limits after pipelining: {hits}")
    check("stats_inflight_total_counted", hits.get("inflight_total", 0) > 0,
          f"{hits}")


def take_read_replies(s, xids, pause=0.0):
    """Read one reply per xid of @xids from @s (@pause seconds after
    each): how many were whole successful 1 MiB READs of them, and the
    error that ended the reading early ("" if none)."""
    ok = 0
    try:
        for _ in xids:
            r = parse_reply(recv_record(s))
            if r["xid"] in xids and r["kind"] == "SUCCESS" and \
                    H.nfsstat(r) == 0 and len(r["body"]) > MIB:
                ok += 1
            if pause:
                time.sleep(pause)
    except (OSError, Closed) as e:
        return ok, f"{type(e).__name__}: {e}"
    return ok, ""


def t_sendq_pause(port, nasd, state, file_fh):
    """1 MiB READs sent one by one, replies unread: reading pauses above
    a quarter of --max-sendq, before the cap; all are served once read."""
    before = limit_hits(nasd, state)
    s = connect(port, timeout=20)
    xids = []
    paused = False
    for i in range(12):
        args = opaque(file_fh) + struct.pack(">QI", (i % 8) * MIB, MIB)
        xid, msg = call_msg(NFS_PROG, NFS_VERS, 6, args, cred=H.auth_sys())
        xids.append(xid)
        s.sendall(record(msg))
        time.sleep(0.3)
        hits = limit_hits(nasd, state)
        if hits.get("sendq_pause", 0) > before.get("sendq_pause", 0):
            paused = True
            break
    print(f"# reply queue paused after {len(xids)} unread 1 MiB READs")
    check("sendq_pause_before_cap", paused and
          hits.get("sendq", 0) == before.get("sendq", 0), f"{hits}")
    # reading the replies resumes the connection: every READ answered
    ok, err = take_read_replies(s, xids)
    if err:
        print(f"# sendq pause: {err}")
    s.close()
    check("sendq_pause_resumed_all_served", ok == len(xids),
          f"{ok} of {len(xids)}")


def t_sendq_slow_taker(port, nasd, state, file_fh):
    """32 READs of 1 MiB sent at once (8 x --max-sendq of replies), then
    taken slowly: the client keeps its connection and gets every reply
    whole (only a queue over the cap that is not taken is cut)."""
    before = limit_hits(nasd, state)
    s = connect(port, timeout=20)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 * 1024)
    xids, data = [], b""
    for i in range(32):
        args = opaque(file_fh) + struct.pack(">QI", (i % 8) * MIB, MIB)
        xid, msg = call_msg(NFS_PROG, NFS_VERS, 6, args, cred=H.auth_sys())
        xids.append(xid)
        data += record(msg)
    s.sendall(data)
    time.sleep(1.0)
    ok, err = take_read_replies(s, xids, pause=0.03)
    s.close()
    hits = limit_hits(nasd, state)
    check("sendq_slow_taker_all_served", ok == len(xids),
          f"{ok} of {len(xids)} {err}")
    check("sendq_slow_taker_not_cut",
          hits.get("sendq", 0) == before.get("sendq", 0), f"{hits}")


def t_unread_reads(port, nasd, state, file_fh):
    before = limit_hits(nasd, state)
    s = connect(port, timeout=10)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 * 1024)
    nreq = 64
    data = b""
    for i in range(nreq):
        args = opaque(file_fh) + struct.pack(">QI", (i % 8) * MIB, MIB)
        data += record(call_msg(NFS_PROG, NFS_VERS, 6, args,
                                cred=H.auth_sys())[1])
    try:
        s.sendall(data)
    except OSError as e:
        print(f"# unread READs: send: {e}")
    cut = wait_for(lambda: limit_hits(nasd, state).get("sendq", 0) >
                   before.get("sendq", 0), 20, 0.2)
    check("unread_reads_cut_off_counted", bool(cut),
          f"{limit_hits(nasd, state)}")
    # what is in our receive buffer comes first, then EOF or a reset
    got = 0
    closed = False
    s.settimeout(10)
    try:
        while True:
            b = s.recv(1 << 20)
            if not b:
                closed = True
                break
            got += len(b)
    except (ConnectionResetError, BrokenPipeError):
        closed = True
    except socket.timeout:
        pass
    s.close()
    print(f"# unread READs: {got} reply bytes reached the client before "
          f"the cut ({nreq} MiB asked)")
    check("unread_reads_socket_closed_by_server", closed)
    check("unread_reads_not_all_sent", got < nreq * MIB, f"{got} bytes")
    check("served_after_unread_reads", null_ok(port))


def t_big_record(port, nasd, state):
    with connect(port) as s:
        s.sendall(u32(0x80000000 | (64 * MIB)) + b"\0" * 1024)
        check("oversized_record_closed", wait_closed(s, 5.0))
    hits = wait_for(lambda: limit_hits(nasd, state).get("record_size"), 5)
    check("stats_record_size_counted", bool(hits), f"{hits}")


# ------------------------------------------------------------ server B

def slow_record(port, out):
    """One byte a second of a NULL call; seconds until closed."""
    s = connect(port)
    rec = record(call_msg(NFS_PROG, NFS_VERS, 0)[1])
    t0 = time.time()
    try:
        for b in rec:
            s.send(bytes([b]))
            s.settimeout(1.0)
            try:
                if not s.recv(100):
                    break
            except socket.timeout:
                pass
            if time.time() - t0 > 12:
                break
    except (ConnectionResetError, BrokenPipeError):
        pass
    out["slow_record"] = time.time() - t0
    s.close()


def idle_after_call(port, out):
    s = connect(port)
    rpc(s, NFS_PROG, NFS_VERS, 0)
    t0 = time.time()
    out["idle_closed"] = wait_closed(s, 10.0)
    out["idle"] = time.time() - t0
    s.close()


def silent(port, out):
    s = connect(port)
    t0 = time.time()
    out["silent_closed"] = wait_closed(s, 10.0)
    out["silent"] = time.time() - t0
    s.close()


def steady(port, out):
    """A NULL every 0.5 s for 6 s, and a record in two halves 1 s apart."""
    ok = 0
    try:
        with connect(port) as s:
            t0 = time.time()
            while time.time() - t0 < 6:
                if rpc(s, NFS_PROG, NFS_VERS, 0)["kind"] == "SUCCESS":
                    ok += 1
                time.sleep(0.5)
            xid, msg = call_msg(NFS_PROG, NFS_VERS, 0)
            rec = record(msg)
            s.sendall(rec[:10])
            time.sleep(1.0)
            s.sendall(rec[10:])
            r = parse_reply(recv_record(s))
            out["halves"] = r["xid"] == xid and r["kind"] == "SUCCESS"
    except (OSError, Closed) as e:
        print(f"# steady client: {e}")
    out["steady"] = ok


def t_timeouts(port, nasd, state):
    out = {}
    ts = [threading.Thread(target=f, args=(port, out))
          for f in (slow_record, idle_after_call, silent, steady)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(30)
    print(f"# timeouts: {out}")
    sr = out.get("slow_record", 0)
    check("slow_record_closed_after_record_timeout", 1.9 < sr < 6.5,
          f"closed after {sr:.1f} s")
    # the clock has 1 s steps: a 2 s timeout fires after 2 to 3 s
    check("idle_connection_closed", out.get("idle_closed") and
          1.9 < out.get("idle", 0) < 5, f"{out}")
    check("silent_connection_closed", out.get("silent_closed") and
          1.9 < out.get("silent", 0) < 5, f"{out}")
    check("steady_client_kept", out.get("steady", 0) >= 10, f"{out}")
    check("record_in_halves_within_timeout_served", out.get("halves"),
          f"{out}")
    hits = limit_hits(nasd, state)
    print(f"# limits after timeouts: {hits}")
    check("stats_record_timeout_counted", hits.get("record_timeout") == 1,
          f"{hits}")
    check("stats_idle_counted", hits.get("idle_timeout", 0) >= 2,
          f"{hits}")
    # --max-inflight 8: a pipelined burst pauses reading and is served
    with connect(port, timeout=30) as s:
        xids = set()
        data = b""
        for _ in range(500):
            xid, msg = call_msg(NFS_PROG, NFS_VERS, 0)
            xids.add(xid)
            data += record(msg)
        s.sendall(data)
        for _ in range(500):
            xids.discard(parse_reply(recv_record(s))["xid"])
    check("inflight_8_pipelined_500_served", not xids, f"{len(xids)} left")
    hits = limit_hits(nasd, state)
    check("stats_inflight_counted", hits.get("inflight", 0) > 0, f"{hits}")


def write_record(fh, i):
    args = opaque(fh) + struct.pack(">QII", i * MIB, MIB, 0)
    args += opaque(b"w" * MIB)
    xid, msg = call_msg(NFS_PROG, NFS_VERS, 7, args, cred=H.auth_sys())
    return xid, record(msg)


def t_memory(port, nasd, state, fh, pid, max_memory):
    """12 clients each start a 1 MiB WRITE record (its storage is taken
    when the header arrives) and stall half-way: 12 MiB asked of an 8 MiB
    ceiling, so reading pauses for memory; then all complete and every
    WRITE is answered (OK, or JUKEBOX)."""
    rss0 = H.proc_status(pid, "VmRSS")
    watch = RssWatch(pid)
    watch.start()
    before = limit_hits(nasd, state).get("memory", 0)
    socks = []
    for i in range(12):
        s = connect(port, timeout=30)
        xid, rec = write_record(fh, i)
        s.sendall(rec[:len(rec) // 2])
        socks.append((s, xid, rec))
    hits = wait_for(lambda: limit_hits(nasd, state).get("memory", 0) >
                    before, 1.0)
    check("stats_memory_counted", bool(hits),
          f"{limit_hits(nasd, state)}")
    senders = [threading.Thread(target=s.sendall,
                                args=(rec[len(rec) // 2:],), daemon=True)
               for s, _, rec in socks]
    for t in senders:
        t.start()
    out = []
    for s, xid, _ in socks:
        try:
            r = parse_reply(recv_record(s))
            out.append(H.nfsstat(r) if r["xid"] == xid and
                       r["kind"] == "SUCCESS" else r["kind"])
        except (OSError, Closed) as e:
            out.append(f"{type(e).__name__}: {e}")
        s.close()
    watch.stop = True
    watch.join()
    ok = sum(1 for v in out if v == 0)
    jukebox = sum(1 for v in out if v == 10008)
    print(f"# 12 WRITEs of 1 MiB at once, --max-memory {max_memory >> 20}M: "
          f"{ok} OK, {jukebox} JUKEBOX, other {len(out) - ok - jukebox}; "
          f"VmRSS {rss0} -> peak {watch.peak} kB")
    check("memory_writes_all_answered", ok + jukebox == 12, f"{out}")
    check("memory_rss_under_ceiling_plus_margin",
          0 < watch.peak < rss0 + (max_memory >> 10) + 64 * 1024,
          f"peak {watch.peak} kB, start {rss0} kB")


# ------------------------------------------------------------ main

def stop_server(name, proc, logpath):
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            rc = proc.wait(30)
            check(f"{name}_sigterm_exit_0", rc == 0, f"exit status {rc}")
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            check(f"{name}_sigterm_exit_0", False, "still running 30 s later")
    else:
        check(f"{name}_still_running", False, f"exited {proc.returncode}")
    with open(logpath, "r", errors="replace") as f:
        text = f.read()
    m = H.SANITIZER_RE.search(text)
    check(f"{name}_no_sanitizer_report", m is None,
          text[max(0, m.start() - 200):m.start() + 2000] if m else "")
    lines = [ln for ln in text.splitlines() if "transport:" in ln]
    print(f"# {name}: {len(lines)} transport log lines")
    for ln in lines[:12]:
        print(f"#   {ln}")
    return text


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    nasd = sys.argv[1]
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 4500:
        print(f"SKIP: RLIMIT_NOFILE hard limit {hard} < 4500")
        return 77
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    tmp = tempfile.mkdtemp(prefix="nasd-test-limits.")
    os.chmod(tmp, 0o755)
    export = os.path.join(tmp, "export")
    os.mkdir(export)
    with open(os.path.join(export, "big"), "wb") as f:
        f.write(os.urandom(MIB) * 8)
    os.chmod(os.path.join(export, "big"), 0o644)
    with open(os.path.join(export, "wfile"), "wb"):
        pass
    os.chmod(os.path.join(export, "wfile"), 0o666)
    procs = []
    try:
        # ---- server A
        state_a = os.path.join(tmp, "state-a")
        os.mkdir(state_a)
        log_a = os.path.join(tmp, "nasd-a.log")
        port_a = H.free_port(19500)
        pa = start(nasd, port_a, export, state_a, open(log_a, "wb"),
                   ["--max-conns", str(MAX_CONNS),
                    "--max-conns-per-client", str(PER_CLIENT),
                    "--max-inflight", "48", "--max-inflight-total", "40",
                    "--max-sendq", str(MAX_SENDQ),
                    "--record-timeout", str(RECORD_TIMEOUT_A),
                    "--max-memory", str(MAX_MEMORY)])
        procs.append(pa)
        if not check("server_a_started", pa.poll() is None and
                     null_ok(port_a), "no NULL reply"):
            return 1
        root_fh = H.mount_root(port_a, export)
        check("mnt_root_handle", root_fh is not None)
        with connect(port_a) as s:
            file_fh = lookup(s, root_fh, b"big")
        check("lookup_big_file", file_fh is not None)
        time.sleep(0.3)
        rss0 = H.proc_status(pa.pid, "VmRSS")
        watch = RssWatch(pa.pid)
        watch.start()
        t_start = time.time()
        for name, t in (("conns", lambda: t_conns(port_a, nasd, state_a)),
                        ("pipelining", lambda: t_pipelining(
                            port_a, nasd, state_a, root_fh)),
                        ("sendq_pause", lambda: t_sendq_pause(
                            port_a, nasd, state_a, file_fh)),
                        ("sendq_slow_taker", lambda: t_sendq_slow_taker(
                            port_a, nasd, state_a, file_fh)),
                        ("unread_reads", lambda: t_unread_reads(
                            port_a, nasd, state_a, file_fh)),
                        ("big_record", lambda: t_big_record(
                            port_a, nasd, state_a))):
            t0 = time.time()
            try:
                t()
            except Exception as e:          # one broken test, not all
                check(f"{name}_exception", False,
                      f"{type(e).__name__}: {e}")
            print(f"# phase {name}: {time.time() - t0:.1f} s")
            if pa.poll() is not None:
                break
        watch.stop = True
        watch.join()
        margin_kb = 64 * 1024
        print(f"# server A VmRSS: {rss0} kB at start, peak {watch.peak} kB "
              f"(--max-memory {MAX_MEMORY >> 10} kB), "
              f"{time.time() - t_start:.1f} s")
        check("rss_under_max_memory_plus_margin",
              0 < watch.peak < rss0 + (MAX_MEMORY >> 10) + margin_kb,
              f"peak {watch.peak} kB, start {rss0} kB")
        check("server_a_answers_at_end", null_ok(port_a))
        hits = limit_hits(nasd, state_a)
        dt = time.time() - t_start
        text = stop_server("server_a", pa, log_a)
        # one line per 5 s per kind of bound, however often it is hit
        n = text.count("(--max-inflight-total)")
        check("log_rate_limited", hits.get("inflight_total", 0) > 50 and
              1 <= n <= dt / 5 + 1,
              f"{n} lines for {hits.get('inflight_total')} hits in "
              f"{dt:.1f} s")

        # ---- server B
        state_b = os.path.join(tmp, "state-b")
        os.mkdir(state_b)
        log_b = os.path.join(tmp, "nasd-b.log")
        port_b = H.free_port(port_a + 1)
        pb = start(nasd, port_b, export, state_b, open(log_b, "wb"),
                   ["--idle-timeout", "2", "--record-timeout", "2",
                    "--max-inflight", "8", "--max-memory", "8M"])
        procs.append(pb)
        if not check("server_b_started", pb.poll() is None and
                     null_ok(port_b), "no NULL reply"):
            return 1
        try:
            t_timeouts(port_b, nasd, state_b)
        except Exception as e:
            check("timeouts_exception", False, f"{type(e).__name__}: {e}")
        try:
            root_b = H.mount_root(port_b, export)
            with connect(port_b) as s:
                wfh = lookup(s, root_b, b"wfile")
            check("lookup_wfile", wfh is not None)
            t_memory(port_b, nasd, state_b, wfh, pb.pid, 8 * MIB)
        except Exception as e:
            check("memory_exception", False, f"{type(e).__name__}: {e}")
        check("server_b_answers_at_end", null_ok(port_b))
        text = stop_server("server_b", pb, log_b)
        check("rate_limited_log_lines",
              "record not complete" in text and "closing idle" in text,
              "missing log lines")
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        if not os.environ.get("KEEP_TMP"):
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"# {H.passes} passed, {H.fails} failed")
    return 1 if H.fails else 0


if __name__ == "__main__":
    sys.exit(main())
