# SPDX-License-Identifier: MIT
"""Raw NFSv3/MOUNT client and a small test harness for the Python
integration tests (test_boundaries.py, test_identity.py).

The RPC framing helpers come from hostile.py; this module adds the NFSv3
procedure encoders/decoders those tests need (RFC 1813), a client that can
bind its source address and port (to appear as another host, or as a
privileged port), pipelining, and a harness that starts nasd with a given
command line, stops it with SIGTERM and checks exit 0 and a clean log.
"""

import os
import random
import signal
import socket
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostile import (u32, opaque, auth_none, auth_sys, call_msg,  # noqa
                     record, recv_record, parse_reply, Closed,
                     SANITIZER_RE)

NFS_PROG, NFS_VERS = 100003, 3
MOUNT_PROG, MOUNT_VERS = 100005, 3

(NULL, GETATTR, SETATTR, LOOKUP, ACCESS, READLINK, READ, WRITE, CREATE,
 MKDIR, SYMLINK, MKNOD, REMOVE, RMDIR, RENAME, LINK, READDIR, READDIRPLUS,
 FSSTAT, FSINFO, PATHCONF, COMMIT) = range(22)
MNTPROC_MNT = 1

UNSTABLE, DATA_SYNC, FILE_SYNC = 0, 1, 2
NF3REG, NF3DIR, NF3BLK, NF3CHR, NF3LNK = 1, 2, 3, 4, 5

NFS3 = {0: "NFS3_OK", 1: "NFS3ERR_PERM", 2: "NFS3ERR_NOENT",
        5: "NFS3ERR_IO", 6: "NFS3ERR_NXIO", 13: "NFS3ERR_ACCES",
        17: "NFS3ERR_EXIST", 18: "NFS3ERR_XDEV", 19: "NFS3ERR_NODEV",
        20: "NFS3ERR_NOTDIR", 21: "NFS3ERR_ISDIR", 22: "NFS3ERR_INVAL",
        27: "NFS3ERR_FBIG", 28: "NFS3ERR_NOSPC", 30: "NFS3ERR_ROFS",
        31: "NFS3ERR_MLINK", 63: "NFS3ERR_NAMETOOLONG",
        66: "NFS3ERR_NOTEMPTY", 69: "NFS3ERR_DQUOT", 70: "NFS3ERR_STALE",
        71: "NFS3ERR_REMOTE", 10001: "NFS3ERR_BADHANDLE",
        10002: "NFS3ERR_NOT_SYNC", 10003: "NFS3ERR_BAD_COOKIE",
        10004: "NFS3ERR_NOTSUPP", 10005: "NFS3ERR_TOOSMALL",
        10006: "NFS3ERR_SERVERFAULT", 10007: "NFS3ERR_BADTYPE",
        10008: "NFS3ERR_JUKEBOX"}
MNT3 = {0: "MNT3_OK", 1: "MNT3ERR_PERM", 2: "MNT3ERR_NOENT",
        5: "MNT3ERR_IO", 13: "MNT3ERR_ACCES", 20: "MNT3ERR_NOTDIR",
        22: "MNT3ERR_INVAL", 63: "MNT3ERR_NAMETOOLONG",
        10004: "MNT3ERR_NOTSUPP", 10006: "MNT3ERR_SERVERFAULT"}


def nfs3_name(st):
    return NFS3.get(st, f"status_{st}")


def mnt3_name(st):
    return MNT3.get(st, f"status_{st}")


# ---------------------------------------------------------------- XDR

class Dec:
    """Bounds-checked XDR reader over a reply body."""

    def __init__(self, data):
        self.d = data
        self.o = 0

    def u32(self):
        (v,) = struct.unpack_from(">I", self.d, self.o)
        self.o += 4
        return v

    def u64(self):
        (v,) = struct.unpack_from(">Q", self.d, self.o)
        self.o += 8
        return v

    def fixed(self, n):
        if self.o + n > len(self.d):
            raise struct.error("short reply")
        b = self.d[self.o:self.o + n]
        self.o += (n + 3) & ~3
        return b

    def opaque(self):
        return self.fixed(self.u32())

    def fattr3(self):
        a = {}
        a["type"], a["mode"], a["nlink"], a["uid"], a["gid"] = (
            self.u32(), self.u32(), self.u32(), self.u32(), self.u32())
        a["size"], a["used"] = self.u64(), self.u64()
        self.u64()                                  # rdev
        a["fsid"], a["fileid"] = self.u64(), self.u64()
        a["atime"], a["mtime"], a["ctime"] = (self.u64(), self.u64(),
                                              self.u64())
        return a

    def post_op_attr(self):
        return self.fattr3() if self.u32() else None

    def wcc_data(self):
        if self.u32():
            self.fixed(24)
        return self.post_op_attr()

    def post_op_fh3(self):
        return self.opaque() if self.u32() else None


def u64(v):
    return struct.pack(">Q", v)


def sattr3(mode=None, uid=None, gid=None, size=None):
    b = b""
    for v in (mode, uid, gid):
        b += u32(0) if v is None else u32(1) + u32(v)
    b += u32(0) if size is None else u32(1) + u64(size)
    return b + u32(0) + u32(0)          # atime, mtime: DONT_CHANGE


# ---------------------------------------------------------------- client

class Client:
    """One TCP connection speaking MOUNT and NFSv3 with one AUTH_SYS
    identity (uid None = AUTH_NONE). src/src_port bind the local end."""

    def __init__(self, port, host="127.0.0.1", src=None, src_port=0,
                 uid=0, gid=0, gids=(), timeout=30.0):
        self.s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.s.settimeout(timeout)
        if src is not None or src_port:
            self.s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            self.s.bind((src or "0.0.0.0", src_port))
        self.s.connect((host, port))
        self.s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.xid = random.randrange(1, 1 << 30)   # per connection
        self.set_cred(uid, gid, gids)

    def next_xid(self):
        self.xid = (self.xid + 1) & 0xFFFFFFFF
        return self.xid

    def set_cred(self, uid, gid=0, gids=()):
        self.cred = (auth_none() if uid is None else
                     auth_sys(machine=b"nasd-test", uid=uid, gid=gid,
                              gids=gids))

    def close(self):
        self.s.close()

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.close()

    def call(self, prog, proc, args=b"", vers=None):
        vers = vers or (NFS_VERS if prog == NFS_PROG else MOUNT_VERS)
        xid, msg = call_msg(prog, vers, proc, args, cred=self.cred,
                            xid=self.next_xid())
        self.s.sendall(record(msg))
        while True:
            r = parse_reply(recv_record(self.s))
            if r["xid"] == xid:
                return r

    def pipeline(self, calls):
        """Send every (proc, args) NFS call, then collect the replies;
        returns them in call order (matched by XID)."""
        xids = []
        data = b""
        for proc, args in calls:
            xid, msg = call_msg(NFS_PROG, NFS_VERS, proc, args,
                                cred=self.cred, xid=self.next_xid())
            xids.append(xid)
            data += record(msg)
        self.s.sendall(data)
        got = {}
        while len(got) < len(xids):
            r = parse_reply(recv_record(self.s))
            got[r["xid"]] = r
        return [got[x] for x in xids]

    def nfs(self, proc, args):
        r = self.call(NFS_PROG, proc, args)
        if r["kind"] != "SUCCESS":
            raise RuntimeError(f"RPC {r['kind']} for NFS proc {proc}")
        d = Dec(r["body"])
        return d.u32(), d

    # ---- MOUNT

    def mnt(self, path):
        """(mountstat3, handle or None)"""
        r = self.call(MOUNT_PROG, MNTPROC_MNT, opaque(path.encode()))
        if r["kind"] != "SUCCESS":
            raise RuntimeError(f"RPC {r['kind']} for MNT")
        d = Dec(r["body"])
        st = d.u32()
        return st, (d.opaque() if st == 0 else None)

    # ---- NFSv3 (each returns the status and a dict of decoded fields)

    def getattr(self, fh):
        st, d = self.nfs(GETATTR, opaque(fh))
        return st, (d.fattr3() if st == 0 else None)

    def lookup(self, dirfh, name):
        st, d = self.nfs(LOOKUP, opaque(dirfh) + opaque(name.encode()))
        if st != 0:
            return st, None, None
        fh = d.opaque()
        return st, fh, d.post_op_attr()

    def lookup_path(self, root, path):
        fh, attr = root, None
        for comp in [c for c in path.split("/") if c]:
            st, fh, attr = self.lookup(fh, comp)
            if st != 0:
                return st, None, None
        return 0, fh, attr

    def readlink(self, fh):
        st, d = self.nfs(READLINK, opaque(fh))
        d.post_op_attr()
        return st, (d.opaque() if st == 0 else None)

    def read(self, fh, off, count):
        st, d = self.nfs(READ, opaque(fh) + u64(off) + u32(count))
        d.post_op_attr()
        if st != 0:
            return st, None
        d.u32()                                     # count
        d.u32()                                     # eof
        return st, d.opaque()

    @staticmethod
    def write_args(fh, off, data, stable):
        return (opaque(fh) + u64(off) + u32(len(data)) + u32(stable) +
                opaque(data))

    @staticmethod
    def write_res(st, d):
        d.wcc_data()
        if st != 0:
            return st, None
        count, committed = d.u32(), d.u32()
        return st, {"count": count, "committed": committed,
                    "verf": d.fixed(8)}

    def write(self, fh, off, data, stable=FILE_SYNC):
        st, d = self.nfs(WRITE, self.write_args(fh, off, data, stable))
        return self.write_res(st, d)

    def commit(self, fh, off=0, count=0):
        st, d = self.nfs(COMMIT, opaque(fh) + u64(off) + u32(count))
        d.wcc_data()
        return st, (d.fixed(8) if st == 0 else None)

    @staticmethod
    def create_args(dirfh, name, mode=0o644):
        return (opaque(dirfh) + opaque(name.encode()) + u32(0) +
                sattr3(mode=mode))

    @staticmethod
    def create_res(st, d):
        """(status, handle or None, attributes or None)"""
        if st != 0:
            return st, None, None
        fh = d.post_op_fh3()
        return st, fh, d.post_op_attr()

    def create(self, dirfh, name, mode=0o644):
        st, d = self.nfs(CREATE, self.create_args(dirfh, name, mode))
        return self.create_res(st, d)

    def mkdir(self, dirfh, name, mode=0o755):
        st, d = self.nfs(MKDIR, opaque(dirfh) + opaque(name.encode()) +
                         sattr3(mode=mode))
        return self.create_res(st, d)

    def setattr(self, fh, **kw):
        st, _ = self.nfs(SETATTR, opaque(fh) + sattr3(**kw) + u32(0))
        return st

    def remove(self, dirfh, name):
        return self.nfs(REMOVE, opaque(dirfh) + opaque(name.encode()))[0]

    def rename(self, fdir, fname, tdir, tname):
        return self.nfs(RENAME, opaque(fdir) + opaque(fname.encode()) +
                        opaque(tdir) + opaque(tname.encode()))[0]

    def link(self, fh, dirfh, name):
        return self.nfs(LINK, opaque(fh) + opaque(dirfh) +
                        opaque(name.encode()))[0]

    def readdir_names(self, dirfh):
        """(status, [names]) of a whole directory."""
        names, cookie, verf = [], 0, b"\0" * 8
        while True:
            st, d = self.nfs(READDIR, opaque(dirfh) + u64(cookie) + verf +
                             u32(8192))
            d.post_op_attr()
            if st != 0:
                return st, names
            verf = d.fixed(8)
            while d.u32():
                d.u64()
                names.append(d.opaque().decode(errors="replace"))
                cookie = d.u64()
            if d.u32():
                return 0, names

    def access(self, fh, bits):
        st, d = self.nfs(ACCESS, opaque(fh) + u32(bits))
        d.post_op_attr()
        return st, (d.u32() if st == 0 else None)


def privileged_client(port, **kw):
    """A Client bound to a free source port below 1024 (needs root)."""
    ports = list(range(600, 1024))
    random.shuffle(ports)
    last = None
    for p in ports[:60]:
        try:
            return Client(port, src_port=p, **kw)
        except OSError as e:
            last = e
    raise OSError(f"no privileged source port: {last}")


# ---------------------------------------------------------------- harness

class Harness:
    """Checks ("ok - NAME" / "not ok - NAME: DETAIL") and the nasd under
    test: start with ARGS, stop with SIGTERM, exit 0, clean log."""

    def __init__(self, nasd, tmp):
        self.nasd = nasd
        self.tmp = tmp
        self.passes = 0
        self.fails = 0
        self.proc = None
        self.runs = 0
        self.logpath = None

    def check(self, name, cond, detail=""):
        if cond:
            print(f"ok - {name}", flush=True)
            self.passes += 1
        else:
            print(f"not ok - {name}: {detail}", flush=True)
            self.fails += 1
        return cond

    def eq(self, name, expected, got):
        return self.check(name, expected == got,
                          f"expected {expected!r}, got {got!r}")

    def start(self, port, args):
        self.runs += 1
        self.logpath = os.path.join(self.tmp, f"nasd.{self.runs}.log")
        env = dict(os.environ)
        env["ASAN_OPTIONS"] = os.environ.get(
            "NASD_ASAN_OPTIONS",
            "halt_on_error=1:abort_on_error=0:detect_leaks=1:exitcode=66")
        env["UBSAN_OPTIONS"] = os.environ.get(
            "NASD_UBSAN_OPTIONS", "halt_on_error=1:print_stacktrace=1")
        log = open(self.logpath, "wb")
        log.write(("# starting: " + " ".join([self.nasd, "--foreground"] +
                                              args) + "\n").encode())
        log.flush()
        self.proc = subprocess.Popen([self.nasd, "--foreground"] + args,
                                     stdout=log, stderr=subprocess.STDOUT,
                                     env=env)
        log.close()
        deadline = time.time() + 20
        while time.time() < deadline:
            if self.proc.poll() is not None:
                break
            try:
                socket.create_connection(("127.0.0.1", port),
                                         timeout=1).close()
                return self.check("nasd_start", True)
            except OSError:
                time.sleep(0.1)
        self.check("nasd_start", False,
                   f"exit {self.proc.poll()}; log: {self.log_tail()}")
        return False

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def log_text(self):
        try:
            with open(self.logpath, "r", errors="replace") as f:
                return f.read()
        except (OSError, TypeError):
            return ""

    def log_tail(self, n=30):
        return "\n".join(self.log_text().splitlines()[-n:])

    def sanitizer_clean(self):
        text = self.log_text()
        m = SANITIZER_RE.search(text)
        self.check("nasd_no_sanitizer_report", m is None,
                   text[max(0, m.start() - 200):m.start() + 3000]
                   if m else "")

    def stop(self):
        if self.proc is None:
            return self.check("nasd_stop", False, "no server running")
        if self.proc.poll() is not None:
            self.check("nasd_alive_at_end", False,
                       f"nasd had exited with {self.proc.returncode}")
        else:
            self.proc.send_signal(signal.SIGTERM)
            try:
                rc = self.proc.wait(20)
                self.eq("nasd_sigterm_exit_status", 0, rc)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                self.check("nasd_sigterm_exit", False,
                           "still running 20 s after SIGTERM")
        self.proc = None
        self.sanitizer_clean()

    def kill(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    def finish(self):
        if self.fails and self.logpath:
            print("----- last lines of nasd log")
            print(self.log_tail(40))
        print(f"# {self.passes} passed, {self.fails} failed")
        return 1 if self.fails else 0


def free_port(base):
    for p in range(base, base + 500):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", p))
            except OSError:
                continue
        busy = False
        with socket.socket() as s:
            s.settimeout(0.2)
            try:
                s.connect(("127.0.0.1", p))
                busy = True
            except OSError:
                pass
        if not busy:
            return p
    raise RuntimeError("no free port")
