#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""AUTH_SYS identity: per-request credentials on a shared worker pool,
squashing and the `secure` option.

usage: test_identity.py NASD [OPS_PER_CONNECTION]

Runs nasd with --threads 4 and hammers one export from uid 1000 and uid
1001 (8 connections each) and from root (squashed, 4 connections), every
connection pipelining batches of 16 calls, so that calls of different
users interleave on the same worker threads. Every reply is checked: a
user reads and writes only its own 0600 files, is refused the other's
(ACCES, and ACCESS grants nothing), cannot create in the other's 0700
directory, and every file it creates is owned by it (in the reply and on
disk); root is squashed to 65534 throughout. Then: all_squash with
anonuid/anongid, AUTH_NONE, and `secure` (unprivileged source port
refused with MNT3ERR_ACCES and NFS3ERR_PERM, a port below 1024 served).
"""

import os
import shutil
import struct
import sys
import tempfile
import threading

from nt_nfs3 import (Client, Dec, Harness, free_port, nfs3_name, mnt3_name,
                     privileged_client, READ, WRITE, CREATE, ACCESS,
                     UNSTABLE, FILE_SYNC, Closed)
from hostile import opaque, u32
from nt_nfs3 import u64

USERS = (1000, 1001)
NFILES = 8
BATCH = 16
ACC_READ, ACC_MODIFY = 0x01, 0x04


def content(uid, k):
    return f"user {uid} private file {k}\n".encode()


class Worker(threading.Thread):
    """One connection as one identity, running `ops` checked calls."""

    def __init__(self, port, uid, conn, ops, fhs, privdirs, rootfh):
        super().__init__()
        self.port, self.uid, self.conn, self.ops = port, uid, conn, ops
        self.fhs, self.privdirs, self.rootfh = fhs, privdirs, rootfh
        self.errors = []
        self.counts = {}
        self.created = []

    def expect_owner(self):
        return 65534 if self.uid == 0 else self.uid

    def plan(self, i):
        """(description, proc, args, checker) for operation i."""
        uid = self.uid
        other = USERS[1] if uid == USERS[0] else USERS[0]
        if uid == 0:
            other = USERS[i % 2]
        k = i % NFILES
        kind = i % 8
        own = self.fhs.get((uid, k))
        if own is None:
            # root (squashed) owns nothing: the other-user checks instead
            kind = {0: 1, 4: 5, 7: 3}.get(kind, kind)
        if kind == 0 and own:
            want = content(uid, k)

            def chk(st, d):
                if st != 0:
                    return f"READ own: {nfs3_name(st)}"
                d.post_op_attr()
                d.u32()
                d.u32()
                data = d.opaque()
                return None if data == want else f"READ own got {data!r}"
            return "read_own", READ, opaque(own) + u64(0) + u32(4096), chk
        if kind == 1:
            def chk(st, d):
                return (None if nfs3_name(st) == "NFS3ERR_ACCES" else
                        f"READ of uid {other}'s 0600 file: {nfs3_name(st)}")
            return ("read_other", READ,
                    opaque(self.fhs[(other, k)]) + u64(0) + u32(4096), chk)
        if kind == 2:
            def chk(st, d):
                return (None if nfs3_name(st) == "NFS3ERR_ACCES" else
                        f"WRITE to uid {other}'s file: {nfs3_name(st)}")
            return ("write_other", WRITE,
                    Client.write_args(self.fhs[(other, k)], 0, b"LEAK",
                                      FILE_SYNC), chk)
        if kind == 3:
            name = f"c_{uid}_{self.conn}_{i}"
            owner = self.expect_owner()

            def chk(st, d):
                st, fh, attr = Client.create_res(st, d)
                if st != 0:
                    return f"CREATE {name}: {nfs3_name(st)}"
                if not attr or attr["uid"] != owner or attr["gid"] != owner:
                    return (f"CREATE {name} by {uid}: owner "
                            f"{attr and attr['uid']}:{attr and attr['gid']}")
                self.created.append(name)
                return None
            return ("create", CREATE,
                    Client.create_args(self.rootfh, name, 0o600), chk)
        if kind == 4 and own:
            def chk(st, d):
                d.post_op_attr()
                g = d.u32() if st == 0 else None
                return (None if g == ACC_READ | ACC_MODIFY else
                        f"ACCESS own: {nfs3_name(st)} granted {g}")
            return ("access_own", ACCESS,
                    opaque(own) + u32(ACC_READ | ACC_MODIFY), chk)
        if kind == 5:
            def chk(st, d):
                d.post_op_attr()
                g = d.u32() if st == 0 else None
                return (None if g == 0 else
                        f"ACCESS other's file: {nfs3_name(st)} granted {g}")
            return ("access_other", ACCESS,
                    opaque(self.fhs[(other, k)]) +
                    u32(ACC_READ | ACC_MODIFY), chk)
        if kind == 6:
            name = f"p_{uid}_{self.conn}_{i}"

            def chk(st, d):
                return (None if nfs3_name(st) == "NFS3ERR_ACCES" else
                        f"CREATE in uid {other}'s 0700 dir: {nfs3_name(st)}")
            return ("create_in_other_dir", CREATE,
                    Client.create_args(self.privdirs[other], name), chk)
        # kind 7: rewrite own file with its own content (UNSTABLE)
        def chk(st, d):
            st, res = Client.write_res(st, d)
            return (None if st == 0 and res["count"] == len(
                content(uid, k)) else f"WRITE own: {nfs3_name(st)}")
        return ("write_own", WRITE,
                Client.write_args(own, 0, content(uid, k), UNSTABLE), chk)

    def run(self):
        try:
            c = Client(self.port, uid=self.uid, gid=self.uid,
                       timeout=120.0)
        except OSError as e:
            self.errors.append(f"connect: {e}")
            return
        with c:
            i = 0
            while i < self.ops:
                plans = [self.plan(j) for j in range(i, min(i + BATCH,
                                                            self.ops))]
                i += len(plans)
                try:
                    replies = c.pipeline([(p[1], p[2]) for p in plans])
                except (Closed, OSError, struct.error) as e:
                    self.errors.append(f"connection lost: {e}")
                    return
                for (desc, _, _, chk), r in zip(plans, replies):
                    self.counts[desc] = self.counts.get(desc, 0) + 1
                    if r["kind"] != "SUCCESS":
                        self.errors.append(f"{desc}: RPC {r['kind']}")
                        continue
                    d = Dec(r["body"])
                    try:
                        err = chk(d.u32(), d)
                    except struct.error as e:
                        err = f"{desc}: short reply ({e})"
                    if err:
                        self.errors.append(f"uid {self.uid}: {err}")


def t_hammer(h, port, E, ops):
    with Client(port) as c:
        st, rootfh = c.mnt(E)
        if not h.eq("mnt_e", "MNT3_OK", mnt3_name(st)):
            return
        fhs, privdirs = {}, {}
        for uid in USERS:
            for k in range(NFILES):
                st, fh, _ = c.lookup(rootfh, f"f_{uid}_{k}")
                fhs[(uid, k)] = fh
            st, privdirs[uid], _ = c.lookup(rootfh, f"priv_{uid}")
    h.check("lookup_fixture_handles",
            all(fhs.values()) and all(privdirs.values()), "missing handle")
    workers = []
    for uid, nconn in ((1000, 8), (1001, 8), (0, 4)):
        for conn in range(nconn):
            workers.append(Worker(port, uid, conn, ops, fhs, privdirs,
                                  rootfh))
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    total = sum(sum(w.counts.values()) for w in workers)
    errs = [e for w in workers for e in w.errors]
    kinds = {}
    for w in workers:
        for k, v in w.counts.items():
            kinds[k] = kinds.get(k, 0) + v
    print(f"# {len(workers)} connections, {total} checked calls: {kinds}")
    h.check("concurrent_users_every_result_correct",
            not errs and total == len(workers) * ops,
            f"{len(errs)} wrong of {total}: {errs[:5]}")

    # on disk: owners of everything created, nothing in the private dirs
    bad = []
    ncreated = 0
    for w in workers:
        want = w.expect_owner()
        for name in w.created:
            ncreated += 1
            st = os.stat(os.path.join(E, name))
            if (st.st_uid, st.st_gid) != (want, want):
                bad.append(f"{name} {st.st_uid}:{st.st_gid}")
    h.check("created_files_owned_by_creator_on_disk",
            not bad and ncreated > 0, f"{bad[:5]} ({ncreated} files)")
    leaked = [n for uid in USERS
              for n in os.listdir(os.path.join(E, f"priv_{uid}"))]
    h.check("nothing_created_in_other_users_dirs", not leaked,
            str(leaked[:5]))
    bad = [(u, k) for u in USERS for k in range(NFILES)
           if open(os.path.join(E, f"f_{u}_{k}"), "rb").read() !=
           content(u, k)]
    h.check("private_files_unchanged", not bad, str(bad))


def t_squash(h, port, E, Q):
    # root_squash (default): root is 65534, even with gids of a user
    with Client(port, uid=0, gid=0, gids=(1000,)) as c:
        st, root = c.mnt(E)
        st, fh, attr = c.create(root, "root_made", 0o644)
        h.check("root_squash_create_owner",
                st == 0 and (attr["uid"], attr["gid"]) == (65534, 65534),
                f"{nfs3_name(st)} {attr}")
        st, fhs, _ = c.lookup(root, "f_1000_0")
        st, _ = c.read(fhs, 0, 10)
        h.eq("root_squash_read_0600_refused", "NFS3ERR_ACCES",
             nfs3_name(st))
    with Client(port, uid=None) as c:
        st, root = c.mnt(E)
        st, fh, attr = c.create(root, "none_made", 0o644)
        h.check("auth_none_create_owner_anonymous",
                st == 0 and (attr["uid"], attr["gid"]) == (65534, 65534),
                f"{nfs3_name(st)} {attr}")
    h.eq("root_squash_on_disk", (65534, 65534),
         (os.stat(os.path.join(E, "root_made")).st_uid,
          os.stat(os.path.join(E, "root_made")).st_gid))
    # all_squash,anonuid=1234,anongid=4321
    for uid in (1000, 0):
        with Client(port, uid=uid, gid=uid) as c:
            st, root = c.mnt(Q)
            if not h.eq(f"mnt_q_as_{uid}", "MNT3_OK", mnt3_name(st)):
                continue
            st, fh, attr = c.create(root, f"q_by_{uid}", 0o644)
            h.check(f"all_squash_create_as_{uid}",
                    st == 0 and (attr["uid"], attr["gid"]) == (1234, 4321),
                    f"{nfs3_name(st)} {attr}")
            st2 = os.stat(os.path.join(Q, f"q_by_{uid}"))
            h.eq(f"all_squash_on_disk_as_{uid}", (1234, 4321),
                 (st2.st_uid, st2.st_gid))
            # the file 1000 owns is not 1000's any more under all_squash
            st, fh1, _ = c.lookup(root, "q_1000_only")
            st, data = c.read(fh1, 0, 10)
            h.eq(f"all_squash_perm_check_as_{uid}", "NFS3ERR_ACCES",
                 nfs3_name(st))


def t_secure(h, port, SEC):
    with Client(port) as c:
        st, _ = c.mnt(SEC)
        h.check("secure_mnt_unprivileged_port_refused",
                mnt3_name(st) in ("MNT3ERR_ACCES", "MNT3ERR_PERM"),
                mnt3_name(st))
    with privileged_client(port) as c:
        lport = c.s.getsockname()[1]
        st, root = c.mnt(SEC)
        h.eq(f"secure_mnt_privileged_port_ok (port {lport})", "MNT3_OK",
             mnt3_name(st))
        if st != 0:
            return
        st, _ = c.getattr(root)
        h.eq("secure_getattr_privileged_port_ok", "NFS3_OK", nfs3_name(st))
        st, _, attr = c.create(root, "sec_made")
        h.check("secure_create_privileged_port_ok",
                st == 0 and attr["uid"] == 0, f"{nfs3_name(st)} {attr}")
    with Client(port) as c:
        st, _ = c.getattr(root)
        h.eq("secure_getattr_unprivileged_port_perm", "NFS3ERR_PERM",
             nfs3_name(st))
        st, _, _ = c.create(root, "sec_unpriv")
        h.eq("secure_create_unprivileged_port_perm", "NFS3ERR_PERM",
             nfs3_name(st))
    h.check("secure_nothing_created_unprivileged",
            not os.path.exists(os.path.join(SEC, "sec_unpriv")), "exists")


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__)
        return 2
    if os.geteuid() != 0:
        print("SKIP: needs root (files of other uids, privileged ports)")
        return 77
    ops = int(sys.argv[2]) if len(sys.argv) == 3 else 2000
    tmp = tempfile.mkdtemp(prefix="nasd-test-identity.")
    os.chmod(tmp, 0o755)
    h = Harness(sys.argv[1], tmp)
    try:
        E, Q, SEC = (os.path.join(tmp, n) for n in ("E", "Q", "SEC"))
        for d in (E, Q, SEC, os.path.join(tmp, "state")):
            os.makedirs(d)
            os.chmod(d, 0o1777)
        for uid in USERS:
            for k in range(NFILES):
                p = os.path.join(E, f"f_{uid}_{k}")
                with open(p, "wb") as f:
                    f.write(content(uid, k))
                os.chown(p, uid, uid)
                os.chmod(p, 0o600)
            p = os.path.join(E, f"priv_{uid}")
            os.mkdir(p)
            os.chown(p, uid, uid)
            os.chmod(p, 0o700)
        p = os.path.join(Q, "q_1000_only")
        with open(p, "wb") as f:
            f.write(b"q\n")
        os.chown(p, 1000, 1000)
        os.chmod(p, 0o600)
        conf = os.path.join(tmp, "exports")
        with open(conf, "w") as f:
            f.write(f"{E} 127.0.0.1(rw)\n"
                    f"{Q} 127.0.0.1(rw,all_squash,anonuid=1234,"
                    f"anongid=4321)\n"
                    f"{SEC} 127.0.0.1(rw,secure,no_root_squash)\n")
        port = free_port(int(os.environ.get("NT_PORT_BASE", "18200")))
        if not h.start(port, ["--listen", f"127.0.0.1:{port}",
                              "--mountd-port", "0", "--threads", "4",
                              "--state-dir", os.path.join(tmp, "state"),
                              "--config", conf]):
            return h.finish()
        for t in (lambda: t_hammer(h, port, E, ops),
                  lambda: t_squash(h, port, E, Q),
                  lambda: t_secure(h, port, SEC)):
            try:
                t()
            except (Closed, OSError, struct.error, RuntimeError,
                    TypeError, KeyError) as e:
                h.check("exception", False, f"{type(e).__name__}: {e}")
            if not h.alive():
                h.check("nasd_still_running", False,
                        f"exited with {h.proc.returncode}")
                break
        h.stop()
        return h.finish()
    finally:
        h.kill()
        if not os.environ.get("KEEP_TMP"):
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
