#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The host side of kclient-deleg.sh: once the guest's work directory holds
"ready", open its shared.txt for writing over NFSv4.1 (a client without a
back channel, so it never holds a delegation itself), retrying while the
server answers DELAY (it is recalling the guest's delegation), write
NEW-CONTENT over it and close.

usage: deleg_writer.py PORT EXPORT_PATH TIMEOUT_S
Prints "delays=N status=S" and exits 0 when the write was done.
"""

import glob
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nfs4_client  # noqa: E402
from test_nfs4_raw import walk_fh  # noqa: E402


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
    print(f"delays={delays} status=write-{w.status}")
    return 0 if w.status == 0 and w.count == 12 else 1


if __name__ == "__main__":
    sys.exit(main())
