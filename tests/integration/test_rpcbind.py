#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""nasd and a real rpcbind (Debian's, 1.2.6): what nasd registers, what it
leaves to other servers, and that it removes exactly its own entries.

usage: test_rpcbind.py NASD

Uses port 111 and /run/rpcbind.sock, so it assumes it owns them (run it
under the integration lock). When no rpcbind runs it starts one (rpcbind
-f) and stops it at the end; a running one is used as it is, unless it
already maps NFS or MOUNT (a real server's, which this test must not
disturb): then it skips. Entries are made and read with a raw rpcbind
v4 client (rpcb.py) over rpcbind's local socket.

Cases, nasd always on a non-default port P:
  only     nasd alone: NFS, MOUNT, NLM and NSM registered at P, owner
           "superuser",
           every one removed on exit;
  other    another live server holds NFS v3 tcp: it keeps it, nasd says
           so in one log line and registers the rest; after nasd's exit
           the other entry is still there and nothing points at P;
  stale    a dead server's NFS v3 tcp entry (nothing bound there) is
           replaced, and removed on exit;
  kill9    nasd killed with -9 leaves its entries; the next nasd on the
           same address takes them over and removes them on exit;
  taken    an entry nasd registered and someone else re-pointed while
           nasd ran is left alone on exit.
"""

import os
import re
import signal
import socket
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpcb  # noqa: E402
from nt_nfs3 import Harness, free_port  # noqa: E402

NFS, MOUNT, NLM, NSM = 100003, 100005, 100021, 100024
OURS = (NFS, MOUNT, NLM, NSM)


def ours_in(entries):
    return [e for e in entries if e[0] in OURS]


def at(entries, port):
    """Entries whose universal address is 127.0.0.1:port."""
    ua = rpcb.uaddr("127.0.0.1", port)
    return [e for e in entries if e[3] == ua]


def lookup(entries, prog, vers, netid="tcp"):
    for e in entries:
        if e[0] == prog and e[1] == vers and e[2] == netid:
            return e
    return None


def wait_registered(h, timeout=15):
    """nasd logs one summary line once it has talked to rpcbind."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        m = re.search(r"registered with rpcbind \(([^)]*)\): (\d+) of "
                      r"(\d+) entries", h.log_text())
        if m:
            return m
        if not h.alive():
            return None
        time.sleep(0.1)
    return None


def cleanup(c, keep=()):
    """UNSET every NFS/MOUNT entry but @keep (what an earlier failed run
    of this test may have left)."""
    for e in ours_in(c.dump()):
        if e not in keep:
            c.unset(e[0], e[1], e[2])


class Listener:
    """A live "other server": a TCP socket listening on 127.0.0.1."""

    def __init__(self, port):
        self.s = socket.socket()
        self.s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.s.bind(("127.0.0.1", port))
        self.s.listen(4)
        self.port = port

    def close(self):
        self.s.close()


def start_nasd(h, tmp, port):
    exp = os.path.join(tmp, "export")
    return h.start(port, ["--listen", f"127.0.0.1:{port}",
                          "--mountd-port", "0",
                          "--state-dir", os.path.join(tmp, "state"),
                          "--export", f"{exp}:rw"])


def case_only(h, c, tmp, port):
    if not start_nasd(h, tmp, port):
        return
    m = wait_registered(h)
    h.check("only_summary_line", m is not None, h.log_tail())
    if m:
        h.eq("only_via_local_socket", rpcb.SOCK_PATH, m.group(1))
        h.check("only_all_registered", m.group(2) == m.group(3) and
                int(m.group(2)) >= 2, m.group(0))
    d = c.dump()
    mine = at(d, port)
    h.check("only_nfs3_mount3_registered",
            lookup(mine, NFS, 3) is not None and
            lookup(mine, MOUNT, 3) is not None, f"{ours_in(d)}")
    h.check("only_nlm4_status1_registered",
            lookup(mine, NLM, 4) is not None and
            lookup(mine, NSM, 1) is not None, f"{ours_in(d)}")
    # sm-notify sends SM_NOTIFY over UDP only: NSM and NLM on UDP too,
    # NFS and MOUNT not (nasd serves them over TCP only)
    h.check("only_nlm4_status1_udp_registered",
            lookup(mine, NLM, 4, "udp") is not None and
            lookup(mine, NSM, 1, "udp") is not None, f"{ours_in(d)}")
    h.check("only_no_nfs_mount_udp",
            lookup(mine, NFS, 3, "udp") is None and
            lookup(mine, MOUNT, 3, "udp") is None, f"{ours_in(d)}")
    h.eq("only_every_entry_at_nasd", sorted(ours_in(d)), sorted(mine))
    if m:
        h.eq("only_count_matches_dump", int(m.group(2)), len(mine))
    # Over the local socket rpcbind takes the owner from our uid (root).
    h.check("only_owner_superuser",
            mine and all(e[4] == "superuser" for e in mine), f"{mine}")
    # portmap v2 clients (rpcinfo -p, libnfs) see the same entries.
    h.eq("only_pmap_v2_getport_nfs3", port, rpcb.pmap_getport(NFS, 3))
    h.eq("only_pmap_v2_getport_mount3", port, rpcb.pmap_getport(MOUNT, 3))
    h.eq("only_pmap_v2_getport_status1_udp", port,
         rpcb.pmap_getport(NSM, 1, prot=17))
    h.stop()
    d = c.dump()
    h.eq("only_all_removed_on_exit", [], ours_in(d))


def case_other(h, c, tmp, port):
    other = Listener(free_port(port + 1))
    ua = rpcb.uaddr("127.0.0.1", other.port)
    try:
        h.check("other_fake_set", c.set(NFS, 3, "tcp", ua))
        if not start_nasd(h, tmp, port):
            return
        m = wait_registered(h)
        h.check("other_summary_line", m is not None, h.log_tail())
        d = c.dump()
        e = lookup(d, NFS, 3)
        h.check("other_entry_kept", e is not None and e[3] == ua, f"{e}")
        log = h.log_text()
        lines = [ln for ln in log.splitlines()
                 if "by another server" in ln]
        h.check("other_one_log_line", len(lines) == 1 and
                f"100003 v3 tcp is registered at {ua}" in lines[0],
                f"{lines}")
        mine = at(d, port)
        h.check("other_free_ones_registered",
                lookup(mine, NFS, 4) is not None and
                lookup(mine, MOUNT, 3) is not None and
                lookup(mine, MOUNT, 1) is not None, f"{ours_in(d)}")
        h.check("other_nfs3_not_ours", lookup(mine, NFS, 3) is None,
                f"{mine}")
        if m:
            h.eq("other_count", int(m.group(3)) - 1, int(m.group(2)))
        h.stop()
        d = c.dump()
        e = lookup(d, NFS, 3)
        h.check("other_entry_survives_exit", e is not None and e[3] == ua,
                f"{ours_in(d)}")
        h.eq("other_ours_removed_on_exit", [], at(d, port))
        h.eq("other_only_it_left", [e], ours_in(d))
    finally:
        c.unset(NFS, 3, "tcp")
        other.close()


def case_stale(h, c, tmp, port):
    dead = free_port(port + 20)
    ua = rpcb.uaddr("127.0.0.1", dead)
    h.check("stale_fake_set", c.set(NFS, 3, "tcp", ua))
    if not start_nasd(h, tmp, port):
        return
    wait_registered(h)
    d = c.dump()
    e = lookup(d, NFS, 3)
    h.check("stale_replaced", e is not None and
            e[3] == rpcb.uaddr("127.0.0.1", port), f"{e}")
    h.check("stale_logged", f"replacing the stale entry {ua}" in
            h.log_text(), h.log_tail())
    h.stop()
    h.eq("stale_all_removed_on_exit", [], ours_in(c.dump()))


def case_kill9(h, c, tmp, port):
    if not start_nasd(h, tmp, port):
        return
    wait_registered(h)
    before = at(c.dump(), port)
    h.kill()
    d = c.dump()
    h.check("kill9_entries_left", before and sorted(at(d, port)) ==
            sorted(before), f"{ours_in(d)}")
    if not start_nasd(h, tmp, port):
        return
    m = wait_registered(h)
    h.check("kill9_taken_over", m is not None and m.group(2) == m.group(3),
            m.group(0) if m else h.log_tail())
    h.eq("kill9_same_entries", sorted(before), sorted(at(c.dump(), port)))
    h.stop()
    h.eq("kill9_all_removed_on_exit", [], ours_in(c.dump()))


def case_taken(h, c, tmp, port):
    other = Listener(free_port(port + 40))
    ua = rpcb.uaddr("127.0.0.1", other.port)
    try:
        if not start_nasd(h, tmp, port):
            return
        wait_registered(h)
        h.check("taken_registered", lookup(at(c.dump(), port), NFS, 4))
        # Someone re-points nasd's NFS v4 entry while nasd runs.
        h.check("taken_unset", c.unset(NFS, 4, "tcp"))
        h.check("taken_set", c.set(NFS, 4, "tcp", ua))
        h.stop()
        d = c.dump()
        e = lookup(d, NFS, 4)
        h.check("taken_left_alone", e is not None and e[3] == ua, f"{e}")
        h.eq("taken_ours_removed", [], at(d, port))
        h.check("taken_logged", "now points at " + ua in h.log_text(),
                h.log_tail())
    finally:
        c.unset(NFS, 4, "tcp")
        other.close()


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    if os.geteuid() != 0:
        print("SKIP: needs root (rpcbind, reserved ports)")
        return 77
    try:
        started = rpcb.start()
    except FileNotFoundError:
        print("SKIP: rpcbind not installed (make deps installs it)")
        return 77
    except RuntimeError as e:
        print(f"not ok - rpcbind_start: {e}")
        return 1
    tmp = tempfile.mkdtemp(prefix="nasd-test-rpcbind.")
    os.chmod(tmp, 0o755)
    for d in ("export", "state"):
        os.makedirs(os.path.join(tmp, d))
    h = Harness(sys.argv[1], tmp)
    c = rpcb.Client()
    try:
        if started is None and ours_in(c.dump()):
            print("SKIP: the running rpcbind maps NFS/MOUNT already: "
                  f"{ours_in(c.dump())}")
            return 77
        print(f"# rpcbind: {'started' if started else 'already running'}")
        port = free_port(int(os.environ.get("NT_PORT_BASE", "18500")))
        for case in (case_only, case_other, case_stale, case_kill9,
                     case_taken):
            print(f"# case {case.__name__[5:]}", flush=True)
            cleanup(c)
            case(h, c, tmp, port)
            h.kill()
    finally:
        h.kill()
        try:
            cleanup(c)
        finally:
            rpcb.stop(started)
    return h.finish()


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(1))
    sys.exit(main())
