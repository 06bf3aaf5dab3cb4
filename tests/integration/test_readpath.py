#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The READ data paths: large reads of data the page cache holds are sent
from it (sendfile, no copy in nasd), the rest through a pooled buffer
(page cache or O_DIRECT). Checks that every path returns the file's bytes
with the right count and eof, also when the client reads its replies
slowly (replies queued, sent in pieces as the socket drains), and when the
file shrinks while replies are waiting (the connection closes rather than
sending a reply shorter than its record mark); NFSv4 READ through libnfs.

usage: test_readpath.py NASD
"""

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

from nt_nfs3 import Client, Dec, Harness, free_port, nfs3_name, READ
from hostile import (opaque, u32, call_msg, record, recv_record,
                     parse_reply, Closed)
from nt_nfs3 import u64, NFS_PROG, NFS_VERS

MIB = 1 << 20
SIZE = 16 * MIB + 4099          # not a multiple of anything


def read_args(fh, off, count):
    return opaque(fh) + u64(off) + u32(count)


def read_res(r):
    """(status, count, eof, data) of a READ reply."""
    d = Dec(r["body"])
    st = d.u32()
    d.post_op_attr()
    if st != 0:
        return st, 0, False, b""
    count = d.u32()
    eof = d.u32() == 1
    return st, count, eof, d.opaque()


def check_reads(h, name, c, fh, data, bs):
    """Pipelined READs of @bs bytes covering the file, byte-exact."""
    calls = [(READ, read_args(fh, off, bs)) for off in range(0, SIZE, bs)]
    bad = []
    for i, r in enumerate(c.pipeline(calls)):
        off = i * bs
        st, count, eof, got = read_res(r)
        want = data[off:off + bs]
        if st != 0 or count != len(want) or got != want or \
                eof != (off + bs >= SIZE):
            bad.append(f"off {off}: {nfs3_name(st)} count {count} "
                       f"eof {eof} same {got == want}")
    h.check(f"{name}_bs{bs}_byte_exact", not bad, "; ".join(bad[:3]))


def slow_reader(h, name, port, fh, data, n=40):
    """@n READs of 1 MiB sent at once, replies read late and slowly: more
    than the default --max-sendq of 16 MiB, which cuts a connection off
    only when its client takes none of them (test_limits.py)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=60)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 << 10)
    xids, out = [], b""
    for i in range(n):
        off = (i * MIB) % (16 * MIB)
        xid, msg = call_msg(NFS_PROG, NFS_VERS, READ,
                            read_args(fh, off, MIB), xid=0x5100 + i)
        xids.append((xid, off))
        out += record(msg)
    s.sendall(out)
    time.sleep(1.0)               # let the server's socket fill up
    got, bad = {}, []
    try:
        while len(got) < n:
            r = parse_reply(recv_record(s))
            got[r["xid"]] = r
            time.sleep(0.005)     # a slow reader: small bites
    except (Closed, OSError) as e:
        bad.append(f"connection lost after {len(got)} replies: {e}")
    s.close()
    for xid, off in xids:
        r = got.get(xid)
        if r is None:
            continue
        st, count, _, payload = read_res(r)
        if st != 0 or payload != data[off:off + MIB]:
            bad.append(f"xid {xid:#x}: {nfs3_name(st)} count {count}")
    h.check(f"{name}_slow_reader_byte_exact",
            not bad and len(got) == n, "; ".join(bad[:3]))


def shrink_while_queued(h, port, fh, path):
    """Replies of a 16 MiB file waiting in the send queue when the file
    is cut to 1 MiB: each reply that arrives is whole and consistent (its
    count is its payload's length), then the connection may close; the
    server keeps serving."""
    s = socket.create_connection(("127.0.0.1", port), timeout=60)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 << 10)
    out = b""
    for i in range(16):
        _, msg = call_msg(NFS_PROG, NFS_VERS, READ,
                          read_args(fh, i * MIB, MIB), xid=0x6100 + i)
        out += record(msg)
    s.sendall(out)
    time.sleep(1.0)
    os.truncate(path, MIB)
    bad, n, closed = [], 0, False
    try:
        while n < 16:
            st, count, _, payload = read_res(parse_reply(recv_record(s)))
            if st == 0 and count != len(payload):
                bad.append(f"reply {n}: count {count}, {len(payload)} "
                           "bytes")
            n += 1
    except (Closed, OSError, ValueError):
        closed = True
    s.close()
    print(f"# shrink: {n} whole replies, connection "
          f"{'closed' if closed else 'kept'}")
    h.check("shrink_replies_consistent", not bad, "; ".join(bad))
    h.check("shrink_server_alive", h.alive())


def not_a_file(h, io, c, root, d):
    """READ of a directory or a symlink: NFS3ERR_INVAL (RFC 1813 lists no
    ISDIR for READ), for every count, 0 included, on every path."""
    link = os.path.join(d, "lnk")
    if not os.path.lexists(link):
        os.symlink("f", link)
    st, lfh, _ = c.lookup(root, "lnk")
    if not h.check(f"{io}_lookup_symlink", st == 0, nfs3_name(st)):
        return
    for what, fh, want in (("dir", root, 22), ("symlink", lfh, 22)):
        got = [read_res(c.call(NFS_PROG, READ, read_args(fh, 0, n)))[0]
               for n in (0, 4096, MIB)]
        h.check(f"{io}_read_{what}", got == [want] * 3,
                " ".join(nfs3_name(x) for x in got))


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    nasd = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="nasd-test-readpath.",
                           dir=os.environ.get("TMPDIR", "/var/tmp"))
    h = Harness(nasd, tmp)
    port = free_port(21400)
    exports = {}
    args = ["--listen", f"127.0.0.1:{port}", "--mountd-port", "0",
            "--state-dir", os.path.join(tmp, "state")]
    data = os.urandom(SIZE)
    for io in ("buffered", "auto", "direct"):
        d = os.path.join(tmp, io)
        os.makedirs(d)
        with open(os.path.join(d, "f"), "wb") as f:
            f.write(data)           # written here: in the page cache
        exports[io] = d
        args += ["--export", f"{d}:rw,no_root_squash,io={io}"]
    try:
        if not h.start(port, args):
            return h.finish()
        with Client(port) as c:
            for io, d in exports.items():
                st, root = c.mnt(d)
                st2, fh, _ = c.lookup(root, "f") if st == 0 else (st, 0, 0)
                if not h.check(f"{io}_lookup", st == 0 and st2 == 0,
                               f"{st} {st2}"):
                    continue
                for bs in (MIB, 256 << 10, 64 << 10, 4096):
                    check_reads(h, io, c, fh, data, bs)
                slow_reader(h, io, port, fh, data)
                not_a_file(h, io, c, root, d)
        # NFSv3 and NFSv4 READ from a real client (libnfs), whole file.
        want = subprocess.run(["sha256sum"], input=data,
                              capture_output=True).stdout.split()[0]
        for v in ("3", "4"):
            url = (f"nfs://127.0.0.1{exports['buffered']}/f?version={v}"
                   f"&nfsport={port}&mountport={port}")
            p = subprocess.run(f"timeout 120 nfs-cat '{url}' | sha256sum",
                               shell=True, capture_output=True)
            h.check(f"libnfs_v{v}_read_sha256",
                    p.stdout.split()[:1] == [want],
                    p.stderr.decode(errors="replace")[-300:])
        with Client(port) as c:
            st, root = c.mnt(exports["buffered"])
            _, fh, _ = c.lookup(root, "f")
            shrink_while_queued(h, port, fh,
                                os.path.join(exports["buffered"], "f"))
            st, count, eof, got = read_res(
                c.call(NFS_PROG, READ, read_args(fh, 0, 2 * MIB)))
            h.check("after_shrink_read", st == 0 and count == MIB and eof
                    and got == data[:MIB], f"{nfs3_name(st)} {count} {eof}")
        h.stop()
    finally:
        h.kill()
        rc = h.finish()
        shutil.rmtree(tmp, ignore_errors=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())
