#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Admission fails closed (export_admit, export_cred_apply): when a
client's credentials cannot be applied to the thread, every protocol
answers SERVERFAULT and runs nothing of the request.

usage: test_cred_faults.py NASD

The fault point "cred" (vfs/fault.h) makes vfs_cred_set() fail for every
identity but uid 0, so the server's own work (NFSv4 pseudo-fs, client
records) and root on the no_root_squash export go on. uid 1000 owns the
export's directory and files, so without the fault every request below
succeeds (run 3 shows it). Runs, each its own nasd on one export and one
state directory:
  1. NASD_FAULTS=cred:EPERM:1+. Root mounts and looks up (not counted).
     As uid 1000: MNT -> MNT3ERR_SERVERFAULT; NFSv3 CREATE, MKDIR, WRITE,
     SETATTR, REMOVE, RMDIR, RENAME, LINK, SYMLINK -> NFS3ERR_SERVERFAULT;
     NFSv4 (a 4.1 session, set up with the server's identity) PUTFH of the
     export root or a file -> SERVERFAULT at PUTFH, the compound ending
     there; 4.0 PUTROOTFH and LOOKUPs -> SERVERFAULT at the LOOKUP that
     enters the export. One fault logged per request. On disk nothing
     changed (names, modes, sizes, times, owners, contents). Root can
     still create (owned by 0).
  2. NASD_FAULTS=cred:EPERM:2/every, aimed at the operation itself: each
     uid 1000 COMPOUND is SEQUENCE, PUTFH (admitted: application 1),
     SAVEFH, PUTROOTFH (server identity), RESTOREFH, OP (the credentials
     are applied again for the export: application 2, which fails), and a
     GETATTR that must not run. OP is OPEN with create, CREATE, REMOVE,
     RENAME, WRITE, SETATTR: each answers NFS4ERR_SERVERFAULT in its own
     result, the compound ends there, nothing changes on disk. A root
     COMPOUND in between does not shift the count.
  3. No faults, same export and state: uid 1000 mounts, and the same
     NFSv3 requests and NFSv4 COMPOUNDs succeed and show on disk, owned
     by uid 1000.
After each run nasd still answers, exits 0 on SIGTERM, and its log has no
sanitizer report. Prints "ok - NAME" / "not ok - NAME: DETAIL".
"""

import hashlib
import os
import random
import re
import shutil
import stat
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nt_nfs3 import (Client, Harness, free_port, nfs3_name, mnt3_name,  # noqa
                     sattr3, FILE_SYNC, NULL, RMDIR, SYMLINK, NFS_PROG)
from hostile import opaque                                           # noqa
import test_nfs4_raw as v4                                           # noqa

USER = 1000
NFS4ERR_SERVERFAULT = 10006

# nfs_opnum4 (the rest come from test_nfs4_raw)
OP_CREATE, OP_OPEN, OP_REMOVE, OP_RENAME = 6, 18, 28, 29
OP_SETATTR, OP_WRITE = 34, 38
FATTR4_TYPE, FATTR4_SIZE, FATTR4_MODE = 1, 4, 33
NF4DIR, OPEN4_CREATE, UNCHECKED4, CLAIM_NULL = 2, 1, 0, 0
OPEN4_SHARE_ACCESS_BOTH, FILE_SYNC4 = 3, 2

FAULT_LINE = re.compile(r"vfs: fault: cred call \d+ fails with EPERM")


def cred_faults(h):
    return len(FAULT_LINE.findall(h.log_text()))


# ------------------------------------------------------------ the export

def make_export(e):
    """uid 1000's directory with what the requests aim at."""
    os.mkdir(e)
    files = {"f3": b"nfsv3 file\n", "f4": b"nfsv4 file\n",
             "victim3": b"3\n", "victim4": b"4\n",
             "old3": b"old 3\n", "old4": b"old 4\n"}
    for name, data in files.items():
        p = os.path.join(e, name)
        with open(p, "wb") as f:
            f.write(data)
        os.chmod(p, 0o644)
        os.chown(p, USER, USER)
    p = os.path.join(e, "sub3")
    os.mkdir(p)
    os.chown(p, USER, USER)
    os.chmod(e, 0o755)
    os.chown(e, USER, USER)
    # mtimes in the past, so that a change within the same tick shows
    for name in list(files) + ["sub3", "."]:
        os.utime(os.path.join(e, name), ns=(10**18, 10**18))


def snapshot(e):
    """Everything a request could change, for the directory and each
    entry: mode, owner, size, link count, mtime, ctime, content."""
    def one(p):
        st = os.lstat(p)
        data = None
        if stat.S_ISREG(st.st_mode):
            with open(p, "rb") as f:
                data = hashlib.sha256(f.read()).hexdigest()
        return (st.st_mode, st.st_uid, st.st_gid, st.st_size, st.st_nlink,
                st.st_mtime_ns, st.st_ctime_ns, data)

    snap = {".": one(e)}
    for name in sorted(os.listdir(e)):
        snap[name] = one(os.path.join(e, name))
    return snap


def snap_diff(a, b):
    names = sorted(set(a) | set(b))
    return [f"{n}: {a.get(n)} -> {b.get(n)}" for n in names
            if a.get(n) != b.get(n)]


def owner(e, name):
    try:
        st = os.lstat(os.path.join(e, name))
    except OSError:
        return None
    return (st.st_uid, st.st_gid)


# ------------------------------------------------------------ NFSv4

def fattr(size=None, mode=None):
    bits, vals = [], b""
    if size is not None:
        bits.append(FATTR4_SIZE)
        vals += v4.u64(size)
    if mode is not None:
        bits.append(FATTR4_MODE)
        vals += v4.u32(mode)
    return v4.bitmap(*bits) + v4.opaque(vals)


class V4:
    """NFSv4 COMPOUNDs with one AUTH_SYS identity (nt_nfs3.Client's
    connection and credential); a 4.1 session once session() ran."""

    def __init__(self, port, uid):
        self.c = Client(port, uid=uid, gid=uid)
        self.sid = None
        self.seq = 0
        self.clientid = 0
        self.error = None

    def close(self):
        self.c.close()

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.close()

    def compound(self, minor, ops):
        args = (v4.opaque(b"credfaults") + v4.u32(minor) +
                v4.u32(len(ops)) + b"".join(ops))
        r = self.c.call(NFS_PROG, 1, args, vers=4)
        return v4.Res(0 if r["kind"] == "SUCCESS" else -1,
                      r.get("body", b""))

    def session(self):
        owner_ = (v4.u64(random.getrandbits(64)) +
                  v4.opaque(f"credfaults-{os.getpid()}".encode()))
        ex = v4.op(v4.OP_EXCHANGE_ID, owner_ + v4.u32(0) + v4.u32(0) +
                   v4.u32(0))
        r = self.compound(1, [ex])
        if r.status != 0:
            self.error = f"EXCHANGE_ID: {v4.sname(r.status)}"
            return False
        r.next()
        self.clientid = r.dec.u64()
        eseq = r.dec.u32()
        attrs = (v4.u32(0) + v4.u32(1 << 20) + v4.u32(1 << 20) +
                 v4.u32(64 * 1024) + v4.u32(16) + v4.u32(4) + v4.u32(0))
        cs = v4.op(v4.OP_CREATE_SESSION,
                   v4.u64(self.clientid) + v4.u32(eseq) + v4.u32(0) +
                   attrs + attrs + v4.u32(0x40000000) + v4.u32(1) +
                   v4.u32(0))
        r = self.compound(1, [cs])
        if r.status != 0:
            self.error = f"CREATE_SESSION: {v4.sname(r.status)}"
            return False
        r.next()
        self.sid = r.dec.fixed(16)
        # nothing to reclaim, before the first open (RFC 8881 §18.51)
        r = self.call([v4.op(v4.OP_RECLAIM_COMPLETE, v4.u32(0))])
        if r.status != 0:
            self.error = f"RECLAIM_COMPLETE: {v4.sname(r.status)}"
            return False
        return True

    def call(self, ops):
        """A 4.1 COMPOUND: SEQUENCE, then @ops."""
        seq = self.seq + 1
        r = self.compound(1, [v4.op_sequence(self.sid, seq)] + ops)
        if r.accept == 0 and r.n >= 1:
            d = v4.Dec(r.body, r.dec.o)
            if d.u32() == v4.OP_SEQUENCE and d.u32() == 0:
                self.seq = seq
        return r


def results(r):
    """(op, status) of each result up to the first failure, or up to the
    first op whose result body this walker does not skip (GETFH's is left
    for the caller)."""
    out = []
    if r.accept != 0:
        return out
    for _ in range(r.n):
        o, st = r.next()
        out.append((o, st))
        if st != 0 or o == v4.OP_GETFH:
            break
        try:
            v4.skip_body(r, o, st)
        except ValueError:
            break
    return out


def root_fh_ops(e):
    return [v4.op(v4.OP_PUTROOTFH)] + [v4.op_lookup(p) for p in
                                       e.split("/") if p]


def v4_getfh(s, minor, ops):
    """The filehandle after @ops (+ GETFH), or None."""
    r = s.compound(minor, ops + [v4.op(v4.OP_GETFH)])
    res = results(r)
    if r.status != 0 or not res or res[-1][0] != v4.OP_GETFH:
        return None
    return r.dec.opaque()


def v4_open_args(clientid, name, mode=0o644):
    return (v4.u32(0) + v4.u32(OPEN4_SHARE_ACCESS_BOTH) + v4.u32(0) +
            v4.u64(clientid) + v4.opaque(b"credfaults-owner") +
            v4.u32(OPEN4_CREATE) + v4.u32(UNCHECKED4) + fattr(mode=mode) +
            v4.u32(CLAIM_NULL) + v4.opaque(name.encode()))


def v4_targets(clientid, efh, ffh):
    """(name, fh the op works on, opnum, encoded op) of each modifying
    operation (run 3 checks what each does on disk)."""
    return [
        ("open_create", efh, OP_OPEN,
         v4.op(OP_OPEN, v4_open_args(clientid, "v4open"))),
        ("create_dir", efh, OP_CREATE,
         v4.op(OP_CREATE, v4.u32(NF4DIR) + v4.opaque(b"v4dir") +
               fattr(mode=0o755))),
        ("remove", efh, OP_REMOVE, v4.op(OP_REMOVE, v4.opaque(b"victim4"))),
        ("rename", efh, OP_RENAME,
         v4.op(OP_RENAME, v4.opaque(b"old4") + v4.opaque(b"v4renamed"))),
        ("write", ffh, OP_WRITE,
         v4.op(OP_WRITE, v4.ANON + v4.u64(0) + v4.u32(FILE_SYNC4) +
               v4.opaque(b"XXXX"))),
        ("setattr", ffh, OP_SETATTR,
         v4.op(OP_SETATTR, v4.ANON + fattr(size=2, mode=0o600))),
    ]


def aimed(fh, opbytes):
    """The COMPOUND (after SEQUENCE) that applies the credentials twice:
    at PUTFH, and again before the op (RESTOREFH brings back the export's
    filehandle while the server's identity is in force)."""
    return [v4.op_putfh(fh), v4.op(v4.OP_SAVEFH), v4.op(v4.OP_PUTROOTFH),
            v4.op(v4.OP_RESTOREFH), opbytes, v4.op_getattr(FATTR4_TYPE)]


# ------------------------------------------------------------ nasd

def start(h, port, spec):
    if spec:
        os.environ["NASD_FAULTS"] = spec
    try:
        ok = h.start(port, ARGS(port))
    finally:
        os.environ.pop("NASD_FAULTS", None)
    if ok and spec:
        h.check("faults_enabled", "fault injection on" in h.log_text(),
                h.log_tail(5))
    return ok


def still_serving(port):
    try:
        with Client(port, timeout=10) as c:
            return c.call(NFS_PROG, NULL)["kind"] == "SUCCESS"
    except (OSError, RuntimeError):
        return False


def finish_run(h, port, name):
    h.check(f"{name}_nasd_answers_after", still_serving(port),
            "NULL not answered")
    h.stop()


# ------------------------------------------------------------ run 1

def v3_requests(c, root, fh):
    """Every modifying NFSv3 request as (name, status)."""
    sym = (opaque(root) + opaque(b"sym3") + sattr3(mode=0o777) +
           opaque(b"f3"))
    return [
        ("create", c.create(root, "new3")[0]),
        ("mkdir", c.mkdir(root, "newdir3")[0]),
        ("write", c.write(fh["f3"], 0, b"XXXX", FILE_SYNC)[0]),
        ("setattr", c.setattr(fh["f3"], mode=0o600, size=2)),
        ("remove", c.remove(root, "victim3")),
        ("rmdir", c.nfs(RMDIR, opaque(root) + opaque(b"sub3"))[0]),
        ("rename", c.rename(root, "old3", root, "renamed3")),
        ("link", c.link(fh["f3"], root, "link3")),
        ("symlink", c.nfs(SYMLINK, sym)[0]),
    ]


def run_all_fail(E):
    port = free_port(PORT_BASE)
    if not start(H, port, "cred:EPERM:1+"):
        return
    fh = {}
    with Client(port) as c:                     # root: not counted
        st, root = c.mnt(E)
        if not H.eq("r1_root_mnt_not_affected", "MNT3_OK", mnt3_name(st)):
            return
        for n in ("f3", "f4"):
            st, fh[n], _ = c.lookup(root, n)
            H.eq(f"r1_root_lookup_{n}", "NFS3_OK", nfs3_name(st))
    with V4(port, 0) as r0:
        efh = v4_getfh(r0, 0, root_fh_ops(E))
        ffh = v4_getfh(r0, 0, root_fh_ops(E) + [v4.op_lookup("f4")])
    if not H.check("r1_root_getfh_not_affected", efh and ffh):
        return
    H.eq("r1_no_fault_for_root", 0, cred_faults(H))
    before = snapshot(E)
    sent = 0

    with Client(port, uid=USER, gid=USER) as c:
        st, _ = c.mnt(E)
        sent += 1
        H.eq("r1_v3_mnt_as_user_serverfault", "MNT3ERR_SERVERFAULT",
             mnt3_name(st))
        for name, st in v3_requests(c, root, fh):
            sent += 1
            H.eq(f"r1_v3_{name}_serverfault", "NFS3ERR_SERVERFAULT",
                 nfs3_name(st))
        st, _, _ = c.lookup(root, "f3")
        sent += 1
        H.eq("r1_v3_lookup_serverfault", "NFS3ERR_SERVERFAULT",
             nfs3_name(st))

    with V4(port, USER) as s:
        # The session is the server's own work: not affected.
        if H.check("r1_v4_session_as_user", s.session(), s.error or ""):
            for name, target, opnum, opb in v4_targets(s.clientid, efh,
                                                       ffh):
                r = s.call([v4.op_putfh(target), opb,
                            v4.op_getattr(FATTR4_TYPE)])
                sent += 1
                res = results(r)
                H.check(f"r1_v4_{name}_putfh_serverfault",
                        r.status == NFS4ERR_SERVERFAULT and r.n == 2 and
                        res == [(v4.OP_SEQUENCE, 0),
                                (v4.OP_PUTFH, NFS4ERR_SERVERFAULT)],
                        f"status {r.status}, {r.n} results: {res}")
        # 4.0 through the pseudo-fs: the LOOKUP entering the export.
        ops = root_fh_ops(E)
        r = s.compound(0, ops + [v4.op(OP_CREATE, v4.u32(NF4DIR) +
                                       v4.opaque(b"v4x") +
                                       fattr(mode=0o755))])
        sent += 1
        res = results(r)
        want = ([(v4.OP_PUTROOTFH, 0)] +
                [(v4.OP_LOOKUP, 0)] * (len(ops) - 2) +
                [(v4.OP_LOOKUP, NFS4ERR_SERVERFAULT)])
        H.check("r1_v40_junction_lookup_serverfault",
                r.status == NFS4ERR_SERVERFAULT and r.n == len(ops) and
                res == want, f"status {r.status}, {r.n} results: {res}")

    H.eq("r1_one_fault_per_user_request", sent, cred_faults(H))
    diff = snap_diff(before, snapshot(E))
    H.check("r1_nothing_changed_on_disk", not diff, "; ".join(diff[:6]))

    # root on the no_root_squash export is still served, with faults on
    with Client(port) as c:
        st, _, attr = c.create(root, "rootmade3")
        H.check("r1_root_create_not_affected",
                st == 0 and attr and attr["uid"] == 0,
                f"{nfs3_name(st)} {attr}")
    H.eq("r1_root_create_owner_on_disk", (0, 0), owner(E, "rootmade3"))
    H.eq("r1_root_create_no_fault", sent, cred_faults(H))
    finish_run(H, port, "r1")


# ------------------------------------------------------------ run 2

def run_aimed(E):
    port = free_port(PORT_BASE)
    if not start(H, port, "cred:EPERM:2/every"):
        return
    with V4(port, 0) as r0:                     # root: not counted
        efh = v4_getfh(r0, 0, root_fh_ops(E))
        ffh = v4_getfh(r0, 0, root_fh_ops(E) + [v4.op_lookup("f4")])
    if not H.check("r2_root_getfh_not_affected", efh and ffh):
        return
    before = snapshot(E)
    with V4(port, USER) as s, V4(port, 0) as r0:
        if not H.check("r2_v4_session_as_user", s.session(), s.error or ""):
            return
        for i, (name, fh, opnum, opb) in enumerate(
                v4_targets(s.clientid, efh, ffh)):
            r = s.call(aimed(fh, opb))
            res = results(r)
            want = [(v4.OP_SEQUENCE, 0), (v4.OP_PUTFH, 0),
                    (v4.OP_SAVEFH, 0), (v4.OP_PUTROOTFH, 0),
                    (v4.OP_RESTOREFH, 0), (opnum, NFS4ERR_SERVERFAULT)]
            H.check(f"r2_v4_{name}_serverfault_in_its_result",
                    r.status == NFS4ERR_SERVERFAULT and r.n == 6 and
                    res == want, f"status {r.status}, {r.n} results: {res}")
            if i == 2:
                # One application of root's identity between them: if it
                # counted, the next ops would fail at PUTFH instead.
                r = r0.compound(0, [v4.op_putfh(efh),
                                    v4.op_getattr(FATTR4_TYPE)])
                H.eq("r2_root_compound_not_affected", 0, r.status)
    H.eq("r2_one_fault_per_aimed_op", 6, cred_faults(H))
    diff = snap_diff(before, snapshot(E))
    H.check("r2_nothing_changed_on_disk", not diff, "; ".join(diff[:6]))
    with V4(port, 0) as r0:
        r = r0.compound(0, aimed(efh, v4.op(OP_CREATE, v4.u32(NF4DIR) +
                                            v4.opaque(b"rootmade4") +
                                            fattr(mode=0o755))))
        res = results(r)
        H.check("r2_root_create_not_affected", r.status == 0 and r.n == 6,
                f"status {r.status}, {r.n} results: {res}")
    H.eq("r2_root_create_owner_on_disk", (0, 0), owner(E, "rootmade4"))
    finish_run(H, port, "r2")


# ------------------------------------------------------------ run 3

def run_no_faults(E):
    port = free_port(PORT_BASE)
    if not start(H, port, None):
        return
    with Client(port, uid=USER, gid=USER) as c:
        st, root = c.mnt(E)
        if not H.eq("r3_v3_mnt_as_user", "MNT3_OK", mnt3_name(st)):
            return
        fh = {}
        for n in ("f3", "f4"):
            st, fh[n], _ = c.lookup(root, n)
            H.eq(f"r3_v3_lookup_{n}", "NFS3_OK", nfs3_name(st))
        for name, st in v3_requests(c, root, fh):
            H.eq(f"r3_v3_{name}_ok", "NFS3_OK", nfs3_name(st))
    with open(os.path.join(E, "f3"), "rb") as f:
        H.eq("r3_v3_write_setattr_on_disk", b"XX", f.read())
    H.eq("r3_v3_mode_on_disk", 0o600,
         os.stat(os.path.join(E, "f3")).st_mode & 0o777)
    for gone in ("victim3", "sub3", "old3"):
        H.check(f"r3_v3_{gone}_gone", owner(E, gone) is None)
    for made in ("new3", "newdir3", "renamed3", "sym3"):
        H.eq(f"r3_v3_{made}_owned_by_user", (USER, USER), owner(E, made))
    H.eq("r3_v3_link_count", 2, os.stat(os.path.join(E, "f3")).st_nlink)

    with V4(port, USER) as s:
        efh = v4_getfh(s, 0, root_fh_ops(E))
        ffh = v4_getfh(s, 0, root_fh_ops(E) + [v4.op_lookup("f4")])
        if not H.check("r3_v4_getfh_as_user", efh and ffh):
            return
        if not H.check("r3_v4_session_as_user", s.session(), s.error or ""):
            return
        for name, fh, opnum, opb in v4_targets(s.clientid, efh, ffh):
            r = s.call(aimed(fh, opb))
            res = results(r)
            H.check(f"r3_v4_{name}_ok",
                    len(res) == 6 and res[-1] == (opnum, 0),
                    f"status {r.status}, {r.n} results: {res}")
    with open(os.path.join(E, "f4"), "rb") as f:
        H.eq("r3_v4_write_setattr_on_disk", b"XX", f.read())
    H.eq("r3_v4_mode_on_disk", 0o600,
         os.stat(os.path.join(E, "f4")).st_mode & 0o777)
    for gone in ("victim4", "old4"):
        H.check(f"r3_v4_{gone}_gone", owner(E, gone) is None)
    for made in ("v4open", "v4dir", "v4renamed"):
        H.eq(f"r3_v4_{made}_owned_by_user", (USER, USER), owner(E, made))
    finish_run(H, port, "r3")


# ------------------------------------------------------------ main

def main():
    global H, ARGS, PORT_BASE
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    if os.geteuid() != 0:
        print("SKIP: needs root (files of uid 1000, open by handle)")
        return 77
    tmp = tempfile.mkdtemp(prefix="nasd-credfaults-")
    os.chmod(tmp, 0o755)
    state = os.path.join(tmp, "state")
    os.mkdir(state)
    E = os.path.join(tmp, "E")
    make_export(E)
    PORT_BASE = int(os.environ.get("CRED_FAULTS_PORT", "21000"))
    H = Harness(sys.argv[1], tmp)
    helptext = subprocess.run([H.nasd, "--help"], capture_output=True,
                              text=True)
    grace = (["--grace-time", "0"] if "--grace-time" in
             helptext.stdout + helptext.stderr else [])

    def args(port):
        return (["--listen", f"127.0.0.1:{port}", "--mountd-port", "0",
                 "--state-dir", state, "--threads", "4"] + grace +
                ["--export", f"{E}:rw,no_root_squash"])
    ARGS = args
    try:
        for name, run in (("all_fail", run_all_fail),
                          ("aimed", run_aimed),
                          ("no_faults", run_no_faults)):
            try:
                run(E)
            except Exception as e:          # one broken run, not all
                H.check(f"{name}_exception", False,
                        f"{type(e).__name__}: {e}")
            if H.proc is not None:
                H.stop()
        return H.finish()
    finally:
        H.kill()
        if not os.environ.get("KEEP_TMP"):
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print(f"# kept {tmp}")


H = ARGS = PORT_BASE = None

if __name__ == "__main__":
    sys.exit(main())
