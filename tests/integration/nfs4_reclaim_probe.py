#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Host-side NFSv4.1 probes for test_nfs4_reclaim.sh, as a client of its own
(a new client id, so nothing it asks for is the kernel client's state).

usage: nfs4_reclaim_probe.py open  PORT DIRPATH NAME   -> OPEN (create)
       nfs4_reclaim_probe.py lockt PORT FILEPATH       -> LOCKT, whole file

PATH is the server-side path (an export appears at its own path in the
pseudo-fs). A LOCKT answered DELAY (a delegation being recalled) is asked
again for up to 20 s. Prints the status name of the OPEN / LOCKT (OK, GRACE, DENIED,
...) and, for a DENIED LOCKT, the conflicting range and owner length.
Exit status 0 when the probe ran, 1 on a setup failure.
"""

import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_nfs4_raw import (Session, connect, op, opaque, u32,  # noqa: E402
                           u64, walk_fh, op_putfh, sname, ERR)

OP_OPEN, OP_LOCKT = 18, 13
ERR.update({10013: "GRACE", 10010: "DENIED", 10033: "NO_GRACE",
            10034: "RECLAIM_BAD", 10035: "RECLAIM_CONFLICT",
            10012: "LOCKED", 10015: "SHARE_DENIED", 10022: "STALE_CLIENTID"})


def session(port):
    s = connect(port)
    ss = Session(s, 1, f"reclaim-probe-{os.getpid()}-{random.random()}")
    if ss.error:
        print(f"SETUP {ss.error}")
        sys.exit(1)
    return ss


def fh_of(ss, path):
    st, fh = walk_fh(ss, path)
    if st != 0 or fh is None:
        print(f"SETUP lookup {path}: {sname(st)}")
        sys.exit(1)
    return fh


def do_open(port, dirpath, name):
    ss = session(port)
    fh = fh_of(ss, dirpath)
    owner = opaque(b"probe-open-owner")
    args = (u32(0) + u32(2) + u32(0) + u64(ss.clientid) + owner
            + u32(1) + u32(0) + u32(0) + u32(0)    # CREATE UNCHECKED4 {}
            + u32(0) + opaque(name.encode()))      # CLAIM_NULL name
    r = ss.call([op_putfh(fh), op(OP_OPEN, args)])
    print(sname(r.status))


def do_lockt(port, path):
    ss = session(port)
    fh = fh_of(ss, path)
    args = (u32(2) + u64(0) + u64(0xFFFFFFFFFFFFFFFF) + u64(ss.clientid)
            + opaque(b"probe-lock-owner"))          # WRITE_LT, whole file
    # DELAY while the kernel client's delegation is recalled (it locks
    # locally under one): asked again, as a client does
    for _ in range(100):
        r = ss.call([op_putfh(fh), op(OP_LOCKT, args)])
        if r.status != 10008:
            break
        time.sleep(0.2)
    line = sname(r.status)
    if r.status == 10010:
        for _ in range(r.n):
            o, st = r.next()
            if o == OP_LOCKT:
                d = r.dec
                off, length, lt = d.u64(), d.u64(), d.u32()
                d.u64()
                own = d.opaque()
                line += f" offset={off} length={length:#x} type={lt}"
                line += f" owner_len={len(own)}"
                break
            if o == 53:
                d = r.dec
                d.fixed(16)
                for _ in range(5):
                    d.u32()
    print(line)


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "open":
        do_open(int(sys.argv[2]), sys.argv[3], sys.argv[4])
    elif len(sys.argv) == 4 and sys.argv[1] == "lockt":
        do_lockt(int(sys.argv[2]), sys.argv[3])
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
