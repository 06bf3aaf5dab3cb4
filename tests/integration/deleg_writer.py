#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The host side of kclient-deleg.sh: once the guest's work directory holds
"ready", open its shared.txt for writing over NFSv4.1 (a client without a
back channel, so it never holds a delegation itself), retrying while the
server answers DELAY (it is recalling the guest's delegation), write
NEW-CONTENT over it and close.

Then, once it holds "ready2" (the guest keeps held.txt open for appending
under a write delegation, its last 10 bytes possibly still cached), a
GETATTR of held.txt's size, retried while DELAY: "getattr_delays=N
size=S"; it then leaves "getattr-done" in the directory (on the host's
file system) so that the guest closes the file.

usage: deleg_writer.py PORT EXPORT_PATH TIMEOUT_S
Prints "delays=N status=S getattr_delays=N size=S" and exits 0 when the
write and the GETATTR were done.
"""

import glob
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nfs4_client  # noqa: E402
from test_nfs4_raw import (Dec, op, op_getattr, op_putfh,  # noqa: E402
                           opaque, walk_fh)

OP_LOOKUP, OP_SEQUENCE, FATTR4_SIZE = 15, 53, 4


def main():
    port, export, timeout = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
    end = time.time() + timeout
    ready = []
    while time.time() < end:
        ready = glob.glob(os.path.join(export, "kclient-kc-*", "ready"))
        if ready:
            break
        time.sleep(0.2)
    if not ready:
        print("delays=0 status=no-ready-file")
        return 1
    work = os.path.relpath(os.path.dirname(ready[0]), export)
    c = nfs4_client.Client(port, f"deleg-writer-{os.getpid()}")
    if c.error:
        print(f"delays=0 status={c.error}")
        return 1
    st, dirfh = walk_fh(c.ss, os.path.join(export, work))
    if st != 0:
        print(f"delays=0 status=walk-{st}")
        return 1
    delays = 0
    while True:
        r = c.open(dirfh, "shared.txt", nfs4_client.ACCESS_WRITE,
                   nfs4_client.DENY_NONE, owner=b"host-writer")
        if r.status != nfs4_client.DELAY or time.time() > end:
            break
        delays += 1
        time.sleep(0.2)
    if r.status != 0:
        print(f"delays={delays} status=open-{r.status}")
        return 1
    w = c.write(r.fh, r.stateid, 0, b"NEW-CONTENT\n")
    c.close(r.fh, r.stateid)
    line = f"delays={delays} status=write-{w.status}"
    if w.status != 0 or w.count != 12:
        print(line)
        return 1
    gdelays, size = held_getattr(c, dirfh, os.path.join(export, work), end)
    print(f"{line} getattr_delays={gdelays} size={size}")
    return 0 if size is not None else 1


def held_getattr(c, dirfh, wdir, end):
    """(DELAYs, size) of a GETATTR of held.txt once "ready2" is there
    (size None when it did not come)."""
    while time.time() < end and not os.path.exists(
            os.path.join(wdir, "ready2")):
        time.sleep(0.1)
    r = c.ss.call([op_putfh(dirfh), op(OP_LOOKUP, opaque(b"held.txt")),
                   op_getattr(FATTR4_SIZE)])
    delays = 0
    while r.status == nfs4_client.DELAY and time.time() < end:
        delays += 1
        time.sleep(0.2)
        r = c.ss.call([op_putfh(dirfh), op(OP_LOOKUP, opaque(b"held.txt")),
                       op_getattr(FATTR4_SIZE)])
    size = None
    if r.status == 0:
        for _ in range(3):               # SEQUENCE, PUTFH, LOOKUP
            o, _st = r.next()
            if o == OP_SEQUENCE:
                r.dec.fixed(16 + 20)
        r.next()
        r.dec.bitmap()
        size = Dec(r.dec.opaque()).u64()
    with open(os.path.join(wdir, "getattr-done"), "w") as f:
        f.write("done\n")
    return delays, size


if __name__ == "__main__":
    sys.exit(main())
