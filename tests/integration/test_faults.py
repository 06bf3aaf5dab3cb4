#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Fault injection (vfs/fault.h): nasd runs with NASD_FAULTS set and real
clients check that every injected fault becomes the right protocol error,
that the data path absorbs what it must, and that nothing leaks or dies.

usage: test_faults.py NASD

Runs (each its own nasd, ports 20000 and up, or $FAULTS_PORT):
  1. NFSv3 statuses: once-rules on the Nth call of each operation; a raw
     client checks call by call that exactly the Nth call fails, with the
     status RFC 1813 wants (ENOSPC -> NOSPC, EDQUOT -> DQUOT, EIO -> IO,
     EINTR outside the data path -> JUKEBOX), and the calls around it work.
     The file on disk holds exactly the acknowledged writes.
     A second run covers SETATTR and GETATTR, which other operations also
     call inside the vfs (so their rules do not count exact calls).
  2. NFSv4: WRITE ENOSPC/EDQUOT/EIO -> NFS4ERR_NOSPC/DQUOT/IO, READ and
     COMMIT EIO -> NFS4ERR_IO, 4.2 ALLOCATE ENOSPC -> NOSPC, DEALLOCATE
     EIO -> IO.
  3. Round trips under short and interrupted syscalls, io=buffered and
     io=direct: nfs-cp in and out byte-exact, raw WRITEs acknowledged
     whole, READs whole.
  4. Chaos: every-Nth rules on every operation, the same workload repeated;
     no SERVERFAULT or RPC failure, the fd count of nasd does not grow.
FAULTS_RUNS=v3,v3attr,v4,roundtrip,chaos picks runs (default all).
After each run: nasd still answers, exits 0 on SIGTERM, no sanitizer
report in its log. Prints "ok - NAME" / "not ok - NAME: DETAIL".
"""

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nt_nfs3 import (Client, Harness, free_port, nfs3_name,       # noqa
                     sattr3, FILE_SYNC, UNSTABLE, NULL, SYMLINK, MKNOD,
                     RMDIR, FSSTAT, NFS_PROG)
from hostile import opaque, u32                                  # noqa
import test_nfs4_raw as v4                                       # noqa

NFS3_OK, NFS3ERR_NOENT, NFS3ERR_IO = 0, 2, 5
NFS3ERR_EXIST, NFS3ERR_NOSPC, NFS3ERR_DQUOT = 17, 28, 69
NFS3ERR_NOTEMPTY, NFS3ERR_STALE = 66, 70
NFS3ERR_JUKEBOX = 10008
NFS4ERR_IO, NFS4ERR_NOSPC, NFS4ERR_DQUOT = 5, 28, 69
OP4_COMMIT, OP4_WRITE = 5, 38
NF3FIFO = 7

FAULT_LINE = re.compile(
    r"vfs: fault: (\w+) call \d+ (fails with (\w+)|is short)")


def fault_lines(h):
    """[(op, errno name or 'short')] of the faults the log reports."""
    return [(m.group(1), m.group(3) or "short")
            for m in FAULT_LINE.finditer(h.log_text())]


def start(h, port, args, spec):
    os.environ["NASD_FAULTS"] = spec
    try:
        ok = h.start(port, args)
    finally:
        del os.environ["NASD_FAULTS"]
    if ok:
        h.check("faults_enabled", "fault injection on" in h.log_text(),
                h.log_tail(5))
    return ok


def base_args(port, state, exports):
    args = ["--listen", f"127.0.0.1:{port}", "--mountd-port", "0",
            "--state-dir", state, "--threads", "4"]
    helptext = subprocess.run([H.nasd, "--help"], capture_output=True,
                              text=True)
    if "--grace-time" in helptext.stdout + helptext.stderr:
        args += ["--grace-time", "0"]
    for e in exports:
        args += ["--export", e]
    return args


def fd_count(h):
    try:
        return len(os.listdir(f"/proc/{h.proc.pid}/fd"))
    except OSError:
        return -1


def still_serving(h, port):
    try:
        with Client(port, timeout=10) as c:
            r = c.call(NFS_PROG, NULL)
            return r["kind"] == "SUCCESS"
    except (OSError, RuntimeError):
        return False


def finish_run(h, port):
    h.check("nasd_answers_after_faults", still_serving(h, port),
            "NULL not answered")
    h.stop()


def stat_of(c, proc, args):
    return c.nfs(proc, args)[0]


def expect(h, name, got, want):
    h.check(name, got == want,
            f"expected {nfs3_name(want)}, got {nfs3_name(got)}")


# ------------------------------------------------------------ run 1: NFSv3

SPEC_V3 = ",".join([
    "write:ENOSPC:2", "write:EDQUOT:4", "write:EIO:6",
    "read:EIO:2",
    "lookup:EIO:3", "lookup:EINTR:5",
    "create:ENOSPC:2", "create:EDQUOT:3",
    "mkdir:EDQUOT:1", "mkdir:ENOSPC:2",
    "symlink:ENOSPC:1", "readlink:EIO:1", "mknod:ENOSPC:1",
    "rename:ENOSPC:1", "link:EDQUOT:1",
    "remove:EIO:1", "rmdir:EIO:1", "commit:EIO:1", "readdir:EIO:1",
    "statfs:EIO:1", "access:EIO:1",
])


def run_v3(tmp):
    exp = os.path.join(tmp, "v3")
    os.mkdir(exp, 0o755)
    port = free_port(PORT_BASE)
    if not start(H, port, base_args(port, STATE, [f"{exp}:rw,no_root_squash"]),
                 SPEC_V3):
        return
    with Client(port) as c:
        st, root = c.mnt(exp)
        if not H.eq("v3_mnt", 0, st):
            return
        # CREATE: 1 ok, 2 NOSPC, 3 DQUOT, 4 ok; nothing left behind
        st, fa, _ = c.create(root, "a")
        expect(H, "v3_create_1_ok", st, NFS3_OK)
        st, _, _ = c.create(root, "b")
        expect(H, "v3_create_2_nospc", st, NFS3ERR_NOSPC)
        H.check("v3_create_nospc_no_file",
                not os.path.exists(os.path.join(exp, "b")))
        st, _, _ = c.create(root, "b")
        expect(H, "v3_create_3_dquot", st, NFS3ERR_DQUOT)
        st, fb, _ = c.create(root, "b")
        expect(H, "v3_create_4_ok", st, NFS3_OK)

        # WRITE: 1 ok, 2 NOSPC, 3 ok, 4 DQUOT, 5 ok, 6 IO, 7 ok
        want = {2: NFS3ERR_NOSPC, 4: NFS3ERR_DQUOT, 6: NFS3ERR_IO}
        data = bytearray()
        for i in range(1, 8):
            chunk = bytes([0x40 + i]) * 1000
            st, res = c.write(fa, len(data), chunk,
                              FILE_SYNC if i % 2 else UNSTABLE)
            expect(H, f"v3_write_{i}", st, want.get(i, NFS3_OK))
            if st == NFS3_OK:
                H.eq(f"v3_write_{i}_count", 1000, res["count"])
                data += chunk
        with open(os.path.join(exp, "a"), "rb") as f:
            H.check("v3_file_holds_acknowledged_writes",
                    f.read() == bytes(data), "content differs")

        # READ: 1 ok, 2 IO, 3 ok
        st, got = c.read(fa, 0, 4000)
        expect(H, "v3_read_1_ok", st, NFS3_OK)
        H.check("v3_read_1_data", got == bytes(data[:4000]))
        st, _ = c.read(fa, 0, 4000)
        expect(H, "v3_read_2_io", st, NFS3ERR_IO)
        st, got = c.read(fa, 1000, 100)
        expect(H, "v3_read_3_ok", st, NFS3_OK)
        H.check("v3_read_3_data", got == bytes(data[1000:1100]))

        # LOOKUP: 1, 2 ok, 3 IO, 4 ok, 5 EINTR -> JUKEBOX, 6 ok
        for i, w in enumerate([NFS3_OK, NFS3_OK, NFS3ERR_IO, NFS3_OK,
                               NFS3ERR_JUKEBOX, NFS3_OK], 1):
            st, fh, _ = c.lookup(root, "a" if i % 2 else "b")
            expect(H, f"v3_lookup_{i}", st, w)

        # MKDIR: DQUOT, NOSPC, ok
        for i, w in enumerate([NFS3ERR_DQUOT, NFS3ERR_NOSPC, NFS3_OK], 1):
            st, fd_, _ = c.mkdir(root, "d")
            expect(H, f"v3_mkdir_{i}", st, w)

        # SYMLINK: NOSPC then ok; READLINK: IO then ok
        sym = (opaque(root) + opaque(b"s") + sattr3(mode=0o777) +
               opaque(b"a"))
        expect(H, "v3_symlink_1_nospc", stat_of(c, SYMLINK, sym),
               NFS3ERR_NOSPC)
        st, d = c.nfs(SYMLINK, sym)
        expect(H, "v3_symlink_2_ok", st, NFS3_OK)
        st, fs, _ = c.lookup(root, "s")
        expect(H, "v3_lookup_symlink", st, NFS3_OK)
        if fs:
            st, _ = c.readlink(fs)
            expect(H, "v3_readlink_1_io", st, NFS3ERR_IO)
            st, target = c.readlink(fs)
            expect(H, "v3_readlink_2_ok", st, NFS3_OK)
            H.eq("v3_readlink_target", b"a", target)

        # MKNOD (fifo): NOSPC then ok
        mk = opaque(root) + opaque(b"p") + u32(NF3FIFO) + sattr3(mode=0o644)
        expect(H, "v3_mknod_1_nospc", stat_of(c, MKNOD, mk), NFS3ERR_NOSPC)
        expect(H, "v3_mknod_2_ok", stat_of(c, MKNOD, mk), NFS3_OK)

        # RENAME a -> c: NOSPC then ok
        expect(H, "v3_rename_1_nospc", c.rename(root, "a", root, "c"),
               NFS3ERR_NOSPC)
        H.check("v3_rename_failed_no_change",
                os.path.exists(os.path.join(exp, "a")))
        expect(H, "v3_rename_2_ok", c.rename(root, "a", root, "c"),
               NFS3_OK)

        # LINK c -> l: DQUOT then ok; REMOVE l: IO then ok
        expect(H, "v3_link_1_dquot", c.link(fa, root, "l"), NFS3ERR_DQUOT)
        expect(H, "v3_link_2_ok", c.link(fa, root, "l"), NFS3_OK)
        expect(H, "v3_remove_1_io", c.remove(root, "l"), NFS3ERR_IO)
        H.check("v3_remove_failed_no_change",
                os.path.exists(os.path.join(exp, "l")))
        expect(H, "v3_remove_2_ok", c.remove(root, "l"), NFS3_OK)

        # RMDIR d: IO then ok
        rm = opaque(root) + opaque(b"d")
        expect(H, "v3_rmdir_1_io", stat_of(c, RMDIR, rm), NFS3ERR_IO)
        expect(H, "v3_rmdir_2_ok", stat_of(c, RMDIR, rm), NFS3_OK)

        # COMMIT, READDIR, FSSTAT, ACCESS: IO then ok
        st, _ = c.commit(fa)
        expect(H, "v3_commit_1_io", st, NFS3ERR_IO)
        st, _ = c.commit(fa)
        expect(H, "v3_commit_2_ok", st, NFS3_OK)
        st, _ = c.readdir_names(root)
        expect(H, "v3_readdir_1_io", st, NFS3ERR_IO)
        st, names = c.readdir_names(root)
        expect(H, "v3_readdir_2_ok", st, NFS3_OK)
        H.check("v3_readdir_names", {"b", "c", "s", "p"} <= set(names),
                repr(names))
        expect(H, "v3_fsstat_1_io", stat_of(c, FSSTAT, opaque(root)),
               NFS3ERR_IO)
        expect(H, "v3_fsstat_2_ok", stat_of(c, FSSTAT, opaque(root)),
               NFS3_OK)
        st, _ = c.access(fa, 0x3f)
        expect(H, "v3_access_1_io", st, NFS3ERR_IO)
        st, _ = c.access(fa, 0x3f)
        expect(H, "v3_access_2_ok", st, NFS3_OK)

    # Exactly the faults of the spec fired, each once.
    got = sorted(fault_lines(H))
    want = sorted((r.split(":")[0], r.split(":")[1])
                  for r in SPEC_V3.split(","))
    H.check("v3_each_fault_fired_once", got == want,
            f"log: {got}, spec: {want}")
    finish_run(H, port)


# Attributes: vfs_create and friends apply attributes through vfs_setattr
# and vfs_getattr, so these ops get a run of their own with rules that do
# not depend on exact counts.
SPEC_V3_ATTR = "setattr:EDQUOT:1+,getattr:EIO:3/every"


def run_v3_attr(tmp):
    exp = os.path.join(tmp, "v3attr")
    os.mkdir(exp, 0o755)
    path = os.path.join(exp, "a")
    with open(path, "wb") as f:
        f.write(b"attr")
    os.chmod(path, 0o644)
    port = free_port(PORT_BASE)
    if not start(H, port, base_args(port, STATE, [f"{exp}:rw,no_root_squash"]),
                 SPEC_V3_ATTR):
        return
    with Client(port) as c:
        st, root = c.mnt(exp)
        if st != 0:                       # MNT's GETATTR hit a fault
            st, root = c.mnt(exp)
        if not H.eq("v3attr_mnt", 0, st):
            return
        fa = None
        for _ in range(3):
            st, fa, _ = c.lookup(root, "a")
            if st == 0:
                break
        if not H.eq("v3attr_lookup", 0, st):
            return
        # SETATTR reads the attributes first (its guard and wcc data), so
        # the getattr rule may answer IO before the setattr rule fires.
        sts = [c.setattr(fa, mode=0o600) for _ in range(6)]
        H.check("v3attr_setattr_dquot",
                set(sts) <= {NFS3ERR_DQUOT, NFS3ERR_IO} and
                sts.count(NFS3ERR_DQUOT) >= 2, repr(sts))
        H.eq("v3attr_setattr_failed_no_change", 0o644,
             os.stat(path).st_mode & 0o777)
        sts = [c.getattr(fa)[0] for _ in range(12)]
        H.check("v3attr_getattr_io_or_ok",
                set(sts) <= {NFS3_OK, NFS3ERR_IO} and
                sts.count(NFS3ERR_IO) >= 3 and sts.count(NFS3_OK) >= 6,
                repr(sts))
    finish_run(H, port)


# ------------------------------------------------------------ run 2: NFSv4

SPEC_V4 = ("write:ENOSPC:1,write:EDQUOT:2,write:EIO:3,read:EIO:1,"
           "commit:EIO:1,allocate:ENOSPC:1,deallocate:EIO:1")


def v4_write(s, fhops, off, data, stable=2):
    args = v4.ANON + v4.u64(off) + v4.u32(stable) + v4.opaque(data)
    return v4.compound(s, 0, fhops + [v4.op(OP4_WRITE, args)])


def v4_status(h, name, r, want):
    h.check(name, r.accept == 0 and r.status == want,
            f"accept {r.accept}, status {r.status}, want {want}")


def run_v4(tmp):
    exp = os.path.join(tmp, "v4")
    os.mkdir(exp, 0o755)
    path = os.path.join(exp, "f")
    with open(path, "wb"):
        pass
    os.chmod(path, 0o666)
    port = free_port(PORT_BASE)
    if not start(H, port, base_args(port, STATE, [f"{exp}:rw,no_root_squash"]),
                 SPEC_V4):
        return
    fhops = [v4.op(v4.OP_PUTROOTFH)] + [v4.op_lookup(p) for p in
                                        path.split("/") if p]
    with v4.connect(port) as s:
        data = bytearray()
        for i, want in enumerate([NFS4ERR_NOSPC, NFS4ERR_DQUOT, NFS4ERR_IO,
                                  0, 0], 1):
            chunk = bytes([0x60 + i]) * 3000
            r = v4_write(s, fhops, len(data), chunk)
            v4_status(H, f"v4_write_{i}", r, want)
            if r.status == 0:
                data += chunk
        with open(path, "rb") as f:
            H.check("v4_file_holds_acknowledged_writes",
                    f.read() == bytes(data))
        rd = v4.op(v4.OP_READ, v4.ANON + v4.u64(0) + v4.u32(6000))
        r = v4.compound(s, 0, fhops + [rd])
        v4_status(H, "v4_read_1_io", r, NFS4ERR_IO)
        r = v4.compound(s, 0, fhops + [rd])
        v4_status(H, "v4_read_2_ok", r, 0)
        if r.status == 0:
            v4.last_result(None, r)
            r.dec.u32()                                 # eof
            H.check("v4_read_2_data", r.dec.opaque() == bytes(data))
        cm = v4.op(OP4_COMMIT, v4.u64(0) + v4.u32(0))
        v4_status(H, "v4_commit_1_io", v4.compound(s, 0, fhops + [cm]),
                  NFS4ERR_IO)
        v4_status(H, "v4_commit_2_ok", v4.compound(s, 0, fhops + [cm]), 0)
    with v4.connect(port) as s:
        ss = v4.Session(s, 2, f"faults-{os.getpid()}")
        if H.check("v42_session", ss.sid is not None, ss.error or ""):
            al = v4.op(v4.OP_ALLOCATE, v4.ANON + v4.u64(0) + v4.u64(8192))
            dl = v4.op(v4.OP_DEALLOCATE, v4.ANON + v4.u64(0) +
                       v4.u64(4096))
            v4_status(H, "v42_allocate_1_nospc", ss.call(fhops + [al]),
                      NFS4ERR_NOSPC)
            v4_status(H, "v42_allocate_2_ok", ss.call(fhops + [al]), 0)
            v4_status(H, "v42_deallocate_1_io", ss.call(fhops + [dl]),
                      NFS4ERR_IO)
            v4_status(H, "v42_deallocate_2_ok", ss.call(fhops + [dl]), 0)
    H.eq("v4_faults_fired", 7, len(fault_lines(H)))
    finish_run(H, port)


# ------------------------------------------------------------ run 3: I/O

# The EINTR rules first: the first rule that fires on a call decides.
SPEC_RT = ("pwrite:EINTR:3/every,pread:EINTR:3/every,"
           "write:short:1/every,read:short:1/every")


def nfs_cp(src, dst):
    try:
        p = subprocess.run(["nfs-cp", src, dst], capture_output=True,
                           text=True, timeout=300)
        return p.returncode, (p.stdout + p.stderr)[-300:]
    except subprocess.TimeoutExpired:
        return -1, "timed out"


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def run_roundtrip(tmp):
    exps = {m: os.path.join(tmp, f"rt-{m}") for m in ("buffered", "direct")}
    for e in exps.values():
        os.mkdir(e, 0o755)
    port = free_port(PORT_BASE)
    args = base_args(port, STATE, [f"{e}:rw,no_root_squash,io={m}"
                                   for m, e in exps.items()])
    if not start(H, port, args, SPEC_RT):
        return
    src = os.path.join(tmp, "src.bin")
    with open(src, "wb") as f:
        f.write(os.urandom(4 * 1024 * 1024 + 12345))
    q = f"?nfsport={port}&mountport={port}"
    have_cp = shutil.which("nfs-cp") is not None
    for m, e in exps.items():
        if have_cp:
            rc, out = nfs_cp(src, f"nfs://127.0.0.1{e}/copy.bin{q}")
            H.check(f"rt_{m}_nfs_cp_in", rc == 0, out)
            H.check(f"rt_{m}_on_disk_exact",
                    os.path.exists(os.path.join(e, "copy.bin")) and
                    sha(os.path.join(e, "copy.bin")) == sha(src))
            back = os.path.join(tmp, f"back-{m}.bin")
            rc, out = nfs_cp(f"nfs://127.0.0.1{e}/copy.bin{q}", back)
            H.check(f"rt_{m}_nfs_cp_out", rc == 0, out)
            H.check(f"rt_{m}_back_exact",
                    os.path.exists(back) and sha(back) == sha(src))
        # Raw: unaligned WRITEs acknowledged whole, READs whole.
        with Client(port) as c:
            st, root = c.mnt(e)
            st, fh, _ = c.create(root, "raw")
            if not H.eq(f"rt_{m}_create", 0, st):
                continue
            blob = os.urandom(300001)
            off, ok = 0, True
            for n in (1, 4095, 65536, 100000, 130369):
                st, res = c.write(fh, 7 + off, blob[off:off + n],
                                  FILE_SYNC if n % 2 else UNSTABLE)
                ok = ok and st == 0 and res["count"] == n
                off += n
            H.check(f"rt_{m}_raw_writes_whole", ok)
            st, got = c.read(fh, 7, 300001)
            H.check(f"rt_{m}_raw_read_whole",
                    st == 0 and got == blob, f"status {st}")
    kinds = {k for _, k in fault_lines(H)}
    H.check("rt_short_and_eintr_injected", {"short", "EINTR"} <= kinds,
            repr(kinds))
    finish_run(H, port)


# ------------------------------------------------------------ run 4: chaos

SPEC_CHAOS = ",".join([
    "write:ENOSPC:3/every", "write:EDQUOT:7/every", "read:EIO:3/every",
    "lookup:EIO:4/every", "lookup:EINTR:9/every", "create:ENOSPC:3/every",
    "mkdir:EDQUOT:2/every", "remove:EIO:3/every", "rmdir:EIO:2/every",
    "readdir:EIO:2/every", "commit:EIO:2/every", "getattr:EIO:11/every",
    "fh:ESTALE:13/every", "access:EIO:3/every", "setattr:EIO:3/every",
    "rename:ENOSPC:2/every", "link:EDQUOT:2/every", "symlink:EIO:2/every",
    "readlink:EIO:2/every", "statfs:EIO:2/every",
    "pwrite:EINTR:5/every", "pwrite:short:2/every", "pread:short:2/every",
])
# What the chaos workload may see: success, the injected errors, and the
# natural consequences of an earlier call having failed.
CHAOS_OK = {NFS3_OK, NFS3ERR_IO, NFS3ERR_NOSPC, NFS3ERR_DQUOT,
            NFS3ERR_NOENT, NFS3ERR_EXIST, NFS3ERR_STALE, NFS3ERR_NOTEMPTY,
            NFS3ERR_JUKEBOX}


def chaos_round(c, root, bad):
    def note(what, st):
        if st not in CHAOS_OK:
            bad.append(f"{what}: {nfs3_name(st)}")

    for k in range(6):
        name = f"f{k}"
        st, fh, _ = c.create(root, name)
        note("create", st)
        if st != 0:
            st, fh, _ = c.lookup(root, name)
            note("lookup", st)
            if st != 0:
                continue
        for j in range(3):
            st, _ = c.write(fh, j * 5000, os.urandom(5000),
                            UNSTABLE if j else FILE_SYNC)
            note("write", st)
        st, _ = c.read(fh, 0, 15000)
        note("read", st)
        note("getattr", c.getattr(fh)[0])
        note("access", c.access(fh, 0x3f)[0])
        note("setattr", c.setattr(fh, mode=0o640))
        note("commit", c.commit(fh)[0])
        note("link", c.link(fh, root, f"l{k}"))
        note("rename", c.rename(root, name, root, f"g{k}"))
    st, fd, _ = c.mkdir(root, "dir")
    note("mkdir", st)
    sym = opaque(root) + opaque(b"sym") + sattr3() + opaque(b"g0")
    note("symlink", stat_of(c, SYMLINK, sym))
    st, fs, _ = c.lookup(root, "sym")
    note("lookup", st)
    if fs:
        note("readlink", c.readlink(fs)[0])
    note("readdir", c.readdir_names(root)[0])
    note("fsstat", stat_of(c, FSSTAT, opaque(root)))
    for n in [f"g{k}" for k in range(6)] + [f"l{k}" for k in range(6)] + \
            [f"f{k}" for k in range(6)] + ["sym"]:
        note("remove", c.remove(root, n))
    note("rmdir", stat_of(c, RMDIR, opaque(root) + opaque(b"dir")))


def run_chaos(tmp):
    exp = os.path.join(tmp, "chaos")
    os.mkdir(exp, 0o755)
    port = free_port(PORT_BASE)
    if not start(H, port, base_args(port, STATE,
                                    [f"{exp}:rw,no_root_squash"]),
                 SPEC_CHAOS):
        return
    bad, fds = [], []
    rounds = int(os.environ.get("FAULTS_CHAOS_ROUNDS", "8"))
    for i in range(rounds):
        try:
            with Client(port) as c:
                st, root = c.mnt(exp)
                if st == 5:                   # MNT's GETATTR hit a fault
                    st, root = c.mnt(exp)
                if st != 0:
                    bad.append(f"mnt: {st}")
                    continue
                chaos_round(c, root, bad)
        except (OSError, RuntimeError) as e:
            bad.append(f"round {i}: {type(e).__name__}: {e}")
            if not H.alive():
                break
        # the server closes its end once it sees ours go
        time.sleep(0.3)
        fds.append(fd_count(H))
    H.check("chaos_statuses_expected", not bad, "; ".join(bad[:10]))
    nfaults = len(fault_lines(H))
    print(f"# chaos: {rounds} rounds, {nfaults} faults, nasd fds after "
          f"each round: {fds}", flush=True)
    H.check("chaos_faults_injected", nfaults > 50 * rounds // 8,
            f"{nfaults} faults")
    # Files of this workload: each round leaves at most a handful behind
    # (removes that failed), so the object cache may hold a few more fds;
    # a leak per fault would be hundreds.
    H.check("chaos_fd_count_stable",
            len(fds) == rounds and fds[0] > 0 and
            max(fds) - fds[1 if rounds > 1 else 0] <= 24,
            f"fd counts per round: {fds}")
    H.check("chaos_fd_no_growth_trend",
            len(fds) < 4 or fds[-1] <= fds[len(fds) // 2] + 12,
            f"fd counts per round: {fds}")
    finish_run(H, port)


# ------------------------------------------------------------ main

def main():
    global H, STATE, PORT_BASE
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    if os.geteuid() != 0:
        print("SKIP: needs root (nasd opens files by handle)")
        return 77
    tmp = tempfile.mkdtemp(prefix="nasd-faults-")
    os.chmod(tmp, 0o755)
    STATE = os.path.join(tmp, "state")
    os.mkdir(STATE)
    PORT_BASE = int(os.environ.get("FAULTS_PORT", "20000"))
    H = Harness(sys.argv[1], tmp)
    only = os.environ.get("FAULTS_RUNS",
                          "v3,v3attr,v4,roundtrip,chaos").split(",")
    runs = {"v3": run_v3, "v3attr": run_v3_attr, "v4": run_v4,
            "roundtrip": run_roundtrip, "chaos": run_chaos}
    try:
        for name in only:
            try:
                runs[name](tmp)
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


H = STATE = PORT_BASE = None

if __name__ == "__main__":
    sys.exit(main())
