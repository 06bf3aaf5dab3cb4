#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""SMB2 IOCTL (src/smb2/smb2_ioctl.c) against a live nasd, with impacket.

usage: test_smb_ioctl.py NASD

Starts nasd on random loopback ports with one share, logs on with
impacket's SMB3 client (dialect 3.0, signed) and sends each FSCTL the
server answers as raw IOCTL requests, checking the status, the output and
what happened on disk: COPYCHUNK copies the bytes, SET_ZERO_DATA punches
a hole (SEEK_HOLE on the file), QUERY_ALLOCATED_RANGES gives what
SEEK_DATA/SEEK_HOLE give, SET_SPARSE FALSE fills the holes,
VALIDATE_NEGOTIATE_INFO is answered when right and drops the connection
when wrong, QUERY_NETWORK_INTERFACE_INFO lists the listeners' addresses
(whole, aligned entries; BUFFER_TOO_SMALL or OVERFLOW when they do not
fit; NOT_SUPPORTED on 2.1), and malformed offsets, lengths and sizes get
STATUS_INVALID_PARAMETER with the server still serving.

Exit 0, 1 on a failure, 77 without impacket (python3-impacket).
"""

import os
import random
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time

import smbtest

try:
    from impacket import smb3, smb3structs as s3
    from impacket.smb3structs import SMB2_DIALECT_21, SMB2_DIALECT_30
except ImportError:
    print("test_smb_ioctl: skipped: no impacket (apt-get install "
          "python3-impacket)")
    sys.exit(77)

NASD = os.path.abspath(sys.argv[1])
USER, PASSWORD = "ioctluser", "Ioctl-pass1"

FSCTL_DFS_GET_REFERRALS = 0x00060194
FSCTL_CREATE_OR_GET_OBJECT_ID = 0x000900C0
FSCTL_GET_REPARSE_POINT = 0x000900A8
FSCTL_SET_SPARSE = 0x000900C4
FSCTL_SET_ZERO_DATA = 0x000980C8
FSCTL_QUERY_ALLOCATED_RANGES = 0x000940CF
FSCTL_DUPLICATE_EXTENTS_TO_FILE = 0x00098344
FSCTL_SRV_REQUEST_RESUME_KEY = 0x00140078
FSCTL_QUERY_NETWORK_INTERFACE_INFO = 0x001401FC
FSCTL_VALIDATE_NEGOTIATE_INFO = 0x00140204
FSCTL_SRV_ENUMERATE_SNAPSHOTS = 0x00144064
FSCTL_SRV_COPYCHUNK = 0x001440F2
FSCTL_SRV_COPYCHUNK_WRITE = 0x001480F2

STATUS_SUCCESS = 0
STATUS_BUFFER_OVERFLOW = 0x80000005
STATUS_INVALID_PARAMETER = 0xC000000D
STATUS_INVALID_DEVICE_REQUEST = 0xC0000010
STATUS_ACCESS_DENIED = 0xC0000022
STATUS_BUFFER_TOO_SMALL = 0xC0000023
STATUS_OBJECT_NAME_NOT_FOUND = 0xC0000034
STATUS_NOT_SUPPORTED = 0xC00000BB
STATUS_FILE_CLOSED = 0xC0000128
STATUS_NOT_FOUND = 0xC0000225
STATUS_NOT_A_REPARSE_POINT = 0xC0000275
STATUS_INVALID_VIEW_SIZE = 0xC000001F

NO_FID = b"\xff" * 16
MIB = 1 << 20

failures = []


def check(cond, what):
    if cond:
        print("ok - " + what)
    else:
        print("not ok - " + what)
        failures.append(what)


def free_port():
    for _ in range(50):
        p = random.randint(30000, 39990)
        ok = True
        for q in (p, p + 1):
            s = socket.socket()
            try:
                s.bind(("127.0.0.1", q))
            except OSError:
                ok = False
            finally:
                s.close()
        if ok:
            return p
    raise RuntimeError("no free port pair")


class Server:
    def __init__(self, extra_smb_listens=()):
        self.tmp = tempfile.mkdtemp(prefix="nasd-ioctl-")
        self.state = os.path.join(self.tmp, "state")
        self.share = os.path.join(self.tmp, "share")
        os.mkdir(self.state)
        os.mkdir(self.share)
        os.chmod(self.share, 0o777)
        os.chmod(self.tmp, 0o755)
        self.port = free_port()
        self.uid = 1000 if os.getuid() == 0 else os.getuid()
        subprocess.run([NASD, "user", "add", USER, "--uid", str(self.uid),
                        "--gid", str(self.uid), "--state-dir", self.state],
                       input=(PASSWORD + "\n").encode(), check=True,
                       stdout=subprocess.DEVNULL)
        self.log = open(os.path.join(self.tmp, "nasd.log"), "w")
        self.proc = subprocess.Popen(
            [NASD, "--foreground", "--state-dir", self.state,
             "--listen", "127.0.0.1:%d" % (self.port + 1),
             "--mountd-port", "0",
             "--smb-listen", "127.0.0.1:%d" % self.port] +
            [a for spec in extra_smb_listens for a in ("--smb-listen", spec)] +
            ["--export", self.share + ":rw,no_root_squash,smb=share"],
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 20
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), 1).close()
                return
            except OSError:
                if self.proc.poll() is not None:
                    break
                time.sleep(0.1)
        self.stop()
        raise RuntimeError("nasd did not start")

    def alive(self):
        return self.proc.poll() is None

    def path(self, name):
        return os.path.join(self.share, name)

    def put(self, name, data):
        """A file in the share, owned by the share's user, on disk."""
        with open(self.path(name), "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if os.getuid() == 0:
            os.chown(self.path(name), self.uid, self.uid)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        rc = self.proc.returncode
        with open(os.path.join(self.tmp, "nasd.log")) as f:
            text = f.read()
        check("ERROR: AddressSanitizer" not in text and
              "ERROR: LeakSanitizer" not in text and
              "runtime error:" not in text,
              "no sanitizer report in nasd's log")
        if failures or rc != 0:
            sys.stdout.write(text[-4000:])
        shutil.rmtree(self.tmp, ignore_errors=True)
        return rc


class Client:
    """One logged-on SMB 3.0 connection with the share connected."""

    def __init__(self, srv, dialect=SMB2_DIALECT_30):
        self.c = smb3.SMB3("127.0.0.1", "127.0.0.1", sess_port=srv.port,
                           preferredDialect=dialect, timeout=10)
        # unencrypted: the VNI answer must come signed (smbtest.plain)
        smbtest.plain(self.c)
        self.c.login(USER, PASSWORD)
        self.tid = self.c.connectTree("share")

    def open(self, name, access, disposition=s3.FILE_OPEN_IF):
        return self.c.create(self.tid, name, access,
                             s3.FILE_SHARE_READ | s3.FILE_SHARE_WRITE |
                             s3.FILE_SHARE_DELETE,
                             s3.FILE_NON_DIRECTORY_FILE, disposition, 0)

    def close(self, fid):
        self.c.close(self.tid, fid)

    def ioctl(self, fid, code, data=b"", max_out=4096, flags=1,
              in_off=None, in_count=None, max_in=0, charge=None, tid=None,
              out_count=0):
        """One IOCTL: (status, output bytes, response header flags)."""
        req = s3.SMB2Ioctl()
        req["FileID"] = fid
        req["CtlCode"] = code
        req["MaxInputResponse"] = max_in
        req["MaxOutputResponse"] = max_out
        req["Flags"] = flags
        req["InputCount"] = len(data) if in_count is None else in_count
        req["Buffer"] = data if data else b"\x00"
        if in_off is not None:
            req["InputOffset"] = in_off
        elif not data:
            req["InputOffset"] = 0
        req["OutputOffset"] = 0
        req["OutputCount"] = out_count
        pkt = self.c.SMB_PACKET()
        pkt["Command"] = s3.SMB2_IOCTL
        pkt["TreeID"] = self.tid if tid is None else tid
        pkt["Data"] = req
        if charge is not None:
            pkt["CreditCharge"] = charge
        mid = self.c.sendSMB(pkt)
        if charge and charge > 1:
            # impacket counts one MessageId per request
            self.c._Connection["SequenceWindow"] += charge - 1
        ans = self.c.recvSMB(mid)
        body = ans["Data"]
        out = b""
        if len(body) >= 48 and struct.unpack_from("<H", body)[0] == 49:
            off, cnt = struct.unpack_from("<II", body, 32)
            out = body[off - 64:off - 64 + cnt]
        return ans["Status"], out, ans["Flags"]

    def echo_ok(self):
        try:
            return self.c.echo()
        except Exception:
            return False


def fid_bytes(fid):
    return fid if isinstance(fid, bytes) else bytes(fid)


def disk_ranges(path, start, length):
    """Data extents of @path inside [start, start + length), by lseek."""
    out = []
    fd = os.open(path, os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        end = min(start + length, size)
        pos = start
        while pos < end:
            try:
                d = os.lseek(fd, pos, os.SEEK_DATA)
            except OSError:
                break
            if d >= end:
                break
            h = min(os.lseek(fd, d, os.SEEK_HOLE), end)
            out.append((d, h - d))
            pos = h
    finally:
        os.close(fd)
    return out


def parse_ranges(out):
    return [struct.unpack_from("<QQ", out, i) for i in range(0, len(out), 16)]


def resume_key(cl, fid):
    st, out, _ = cl.ioctl(fid, FSCTL_SRV_REQUEST_RESUME_KEY, max_out=32)
    return st, out[:24]


def copychunk_input(key, chunks):
    b = key + struct.pack("<II", len(chunks), 0)
    for so, to, ln in chunks:
        b += struct.pack("<QQII", so, to, ln, 0)
    return b


def test_connection_fsctls(srv):
    cl = Client(srv)
    c = cl.c
    # VALIDATE_NEGOTIATE_INFO, right: the server's side comes back, signed.
    guid = c.ClientGuid
    guid = guid.encode() if isinstance(guid, str) else guid
    good = struct.pack("<I16sHHH", c._Connection["Capabilities"], guid,
                       c._Connection["ClientSecurityMode"], 1,
                       SMB2_DIALECT_30)
    st, out, flags = cl.ioctl(NO_FID, FSCTL_VALIDATE_NEGOTIATE_INFO, good,
                              max_out=24)
    check(st == STATUS_SUCCESS and len(out) == 24,
          "VALIDATE_NEGOTIATE_INFO right: success, 24 bytes (%#x)" % st)
    if len(out) == 24:
        caps, guid, sec, dialect = struct.unpack("<I16sHH", out)
        check(dialect == SMB2_DIALECT_30, "VNI dialect 3.0")
        check(guid == c._Connection["ServerGuid"], "VNI ServerGuid")
        check(caps == c._Connection["ServerCapabilities"],
              "VNI server capabilities")
        check(sec == c._Connection["ServerSecurityMode"],
              "VNI server security mode %#x" % sec)
    check(flags & s3.SMB2_FLAGS_SIGNED, "VNI response signed")
    # ... with a FileId: INVALID_PARAMETER, the connection stays.
    fid = cl.open("vni.dat", s3.FILE_READ_DATA | s3.FILE_WRITE_DATA)
    st, _, _ = cl.ioctl(fid, FSCTL_VALIDATE_NEGOTIATE_INFO, good, max_out=24)
    check(st == STATUS_INVALID_PARAMETER, "VNI with a FileId: %#x" % st)
    # ... cut short: INVALID_PARAMETER.
    st, _, _ = cl.ioctl(NO_FID, FSCTL_VALIDATE_NEGOTIATE_INFO, good[:20],
                        max_out=24)
    check(st == STATUS_INVALID_PARAMETER, "VNI cut short: %#x" % st)
    # Other connection-wide FSCTLs (NETWORK_INTERFACE_INFO's answers in
    # test_network_interfaces).
    st, _, _ = cl.ioctl(fid, FSCTL_QUERY_NETWORK_INTERFACE_INFO,
                        max_out=65536)
    check(st == STATUS_INVALID_PARAMETER,
          "NETWORK_INTERFACE_INFO with a FileId: %#x" % st)
    ref = struct.pack("<H", 4) + "\\127.0.0.1\\share".encode("utf-16le") \
        + b"\0\0"
    st, _, _ = cl.ioctl(NO_FID, FSCTL_DFS_GET_REFERRALS, ref, max_out=4096)
    check(st == STATUS_NOT_FOUND, "DFS_GET_REFERRALS: %#x" % st)
    ipc = c.connectTree("IPC$")
    st, _, _ = cl.ioctl(NO_FID, FSCTL_DFS_GET_REFERRALS, ref, max_out=4096,
                        tid=ipc)
    check(st == STATUS_NOT_FOUND, "DFS_GET_REFERRALS on IPC$: %#x" % st)
    # Snapshots: none, in 16 bytes; less room than that is refused.
    st, out, _ = cl.ioctl(fid, FSCTL_SRV_ENUMERATE_SNAPSHOTS, max_out=16)
    check(st == STATUS_SUCCESS and len(out) == 16 and
          struct.unpack_from("<II", out) == (0, 0),
          "ENUMERATE_SNAPSHOTS: none (%#x, %d bytes)" % (st, len(out)))
    st, _, _ = cl.ioctl(fid, FSCTL_SRV_ENUMERATE_SNAPSHOTS, max_out=15)
    check(st == STATUS_INVALID_PARAMETER,
          "ENUMERATE_SNAPSHOTS MaxOutputResponse 15: %#x" % st)
    st, _, _ = cl.ioctl(fid, FSCTL_GET_REPARSE_POINT, max_out=4096)
    check(st == STATUS_NOT_A_REPARSE_POINT, "GET_REPARSE_POINT: %#x" % st)
    # an object id from the file's identity: 64 bytes, the same twice,
    # ObjectId repeated as BirthObjectId, and MaxOutputResponse checked
    st, out1, _ = cl.ioctl(fid, FSCTL_CREATE_OR_GET_OBJECT_ID, max_out=64)
    st2, out2, _ = cl.ioctl(fid, FSCTL_CREATE_OR_GET_OBJECT_ID, max_out=64)
    check(st == 0 and st2 == 0 and len(out1) == 64 and out1 == out2 and
          out1[:16] == out1[32:48] and out1[48:] == b"\0" * 16,
          "CREATE_OR_GET_OBJECT_ID: %#x %r" % (st, out1))
    st, _, _ = cl.ioctl(fid, FSCTL_CREATE_OR_GET_OBJECT_ID, max_out=63)
    check(st == STATUS_INVALID_PARAMETER,
          "CREATE_OR_GET_OBJECT_ID MaxOutputResponse 63: %#x" % st)
    st, _, _ = cl.ioctl(b"\x42" * 16, FSCTL_GET_REPARSE_POINT, max_out=64)
    check(st == STATUS_FILE_CLOSED, "unknown FileId: %#x" % st)
    cl.close(fid)

    # VALIDATE_NEGOTIATE_INFO, wrong (another GUID): the connection goes.
    bad = bytearray(good)
    bad[4] ^= 0xff
    try:
        st, _, _ = cl.ioctl(NO_FID, FSCTL_VALIDATE_NEGOTIATE_INFO,
                            bytes(bad), max_out=24)
        answered = st != STATUS_SUCCESS
    except Exception:
        answered = True
    check(answered, "VNI wrong GUID not answered with success")
    check(not cl.echo_ok(), "VNI wrong GUID: the connection is closed")
    # Wrong dialect list and wrong security mode, on fresh connections.
    for what, off, val in (("dialects", 24, struct.pack("<H", 0x0202)),
                           ("security mode", 20, struct.pack("<H", 0))):
        cl2 = Client(srv)
        b = bytearray(good)
        b[off:off + 2] = val
        try:
            cl2.ioctl(NO_FID, FSCTL_VALIDATE_NEGOTIATE_INFO, bytes(b),
                      max_out=24)
        except Exception:
            pass
        check(not cl2.echo_ok(), "VNI wrong %s: connection closed" % what)
    check(srv.alive() and Client(srv).echo_ok(),
          "server serves new connections after the drops")


NETIF_LEN = 152          # NETWORK_INTERFACE_INFO, MS-SMB2 2.2.32.5
RSS_CAPABLE, RDMA_CAPABLE = 0x1, 0x2
AF_INET_WIRE, AF_INET6_WIRE = 0x0002, 0x0017


def parse_netifs(out, what):
    """The NETWORK_INTERFACE_INFO chain in @out as (ifindex, caps, speed,
    address text), checking its framing: every entry 8-byte aligned and
    whole, Next 0 exactly on the last, Reserved and padding zero, port 0."""
    res = []
    off = 0
    while True:
        if off % 8 or off + NETIF_LEN > len(out):
            check(False, "%s: entry at %d: aligned, inside %d bytes"
                  % (what, off, len(out)))
            return res
        nxt, idx, caps, rsv, speed = struct.unpack_from("<IIIIQ", out, off)
        fam, port = struct.unpack_from("<HH", out, off + 24)
        sa = out[off + 28:off + NETIF_LEN]
        if fam == AF_INET_WIRE:
            addr = socket.inet_ntop(socket.AF_INET, sa[:4])
            rest = sa[4:]
        elif fam == AF_INET6_WIRE:
            flow, = struct.unpack_from("<I", sa)
            addr = socket.inet_ntop(socket.AF_INET6, sa[4:20])
            scope, = struct.unpack_from("<I", sa, 20)
            rest = sa[24:]
            check(flow == 0 and scope == 0,
                  "%s %s: FlowInfo and ScopeId 0" % (what, addr))
        else:
            check(False, "%s: family %#x" % (what, fam))
            return res
        check(rsv == 0 and port == 0 and rest == bytes(len(rest)),
              "%s %s: Reserved, port and padding zero" % (what, addr))
        res.append((idx, caps, speed, addr))
        if nxt == 0:
            check(off + NETIF_LEN == len(out),
                  "%s: Next 0 on the last entry, ending the output" % what)
            return res
        check(nxt % 8 == 0 and nxt >= NETIF_LEN,
              "%s: Next %d aligned, past the entry" % (what, nxt))
        if nxt % 8 or nxt < NETIF_LEN:
            return res
        off += nxt


def test_network_interfaces(srv):
    """QUERY_NETWORK_INTERFACE_INFO (MS-SMB2 3.3.5.15.11): the listener is
    on 127.0.0.1 only, so that is the one address answered, on lo."""
    cl = Client(srv)
    st, out, _ = cl.ioctl(NO_FID, FSCTL_QUERY_NETWORK_INTERFACE_INFO,
                          max_out=65536)
    check(st == STATUS_SUCCESS and len(out) >= NETIF_LEN,
          "NETWORK_INTERFACE_INFO: success with entries (%#x, %d bytes)"
          % (st, len(out)))
    ifs = parse_netifs(out, "NETWORK_INTERFACE_INFO")
    addrs = [a for _, _, _, a in ifs]
    check(addrs == ["127.0.0.1"],
          "only the listener's address, 127.0.0.1: %r" % addrs)
    lo = socket.if_nametoindex("lo")
    for idx, caps, speed, addr in ifs:
        check(idx == lo, "%s: IfIndex %d is lo's (%d)" % (addr, idx, lo))
        check(speed > 0 and speed % 1000000 == 0,
              "%s: LinkSpeed %d b/s" % (addr, speed))
        check(not caps & RDMA_CAPABLE and not caps & ~RSS_CAPABLE,
              "%s: Capability %#x (never RDMA)" % (addr, caps))
    # One entry needs 152 bytes: exactly that is enough, one less is
    # STATUS_BUFFER_TOO_SMALL with nothing (not a cut entry).
    st, out, _ = cl.ioctl(NO_FID, FSCTL_QUERY_NETWORK_INTERFACE_INFO,
                          max_out=NETIF_LEN * len(ifs))
    check(st == STATUS_SUCCESS and len(out) == NETIF_LEN * len(ifs),
          "MaxOutputResponse exactly the list: %#x, %d bytes"
          % (st, len(out)))
    for mo in (NETIF_LEN - 1, 1, 0):
        st, out, _ = cl.ioctl(NO_FID, FSCTL_QUERY_NETWORK_INTERFACE_INFO,
                              max_out=mo)
        check(st == STATUS_BUFFER_TOO_SMALL and not out,
              "MaxOutputResponse %d: BUFFER_TOO_SMALL, no output (%#x)"
              % (mo, st))
    check(cl.echo_ok(), "connection fine after NETWORK_INTERFACE_INFO")
    # 2.1 has no such FSCTL (the section is for 3.x only).
    cl21 = Client(srv, dialect=SMB2_DIALECT_21)
    st, out, _ = cl21.ioctl(NO_FID, FSCTL_QUERY_NETWORK_INTERFACE_INFO,
                            max_out=65536)
    check(st == STATUS_NOT_SUPPORTED,
          "NETWORK_INTERFACE_INFO on SMB 2.1: NOT_SUPPORTED (%#x)" % st)


def test_network_interfaces_v6():
    """A second listener on [::1] adds ::1 (family 0x17) to the list; a
    server of its own, so the other tests keep one listener."""
    try:
        s = socket.socket(socket.AF_INET6)
        s.bind(("::1", 0))
        port6 = s.getsockname()[1]
        s.close()
    except OSError:
        print("ok - NETWORK_INTERFACE_INFO on ::1 # skip: no IPv6 loopback")
        return
    srv = Server(extra_smb_listens=("[::1]:%d" % port6,))
    try:
        cl = Client(srv)
        st, out, _ = cl.ioctl(NO_FID, FSCTL_QUERY_NETWORK_INTERFACE_INFO,
                              max_out=65536)
        check(st == STATUS_SUCCESS,
              "NETWORK_INTERFACE_INFO, two listeners: %#x" % st)
        ifs = parse_netifs(out, "two listeners")
        addrs = sorted(a for _, _, _, a in ifs)
        check(addrs == ["127.0.0.1", "::1"],
              "both listeners' addresses, nothing else: %r" % addrs)
        idx = set(i for i, _, _, _ in ifs)
        check(idx == {socket.if_nametoindex("lo")},
              "both on lo, one IfIndex: %r" % idx)
        # Room for one of the two: that one, chained alone, with
        # STATUS_BUFFER_OVERFLOW.
        st, out, _ = cl.ioctl(NO_FID, FSCTL_QUERY_NETWORK_INTERFACE_INFO,
                              max_out=2 * NETIF_LEN - 1)
        check(st == STATUS_BUFFER_OVERFLOW and len(out) == NETIF_LEN,
              "room for one of two: BUFFER_OVERFLOW, one entry (%#x, %d)"
              % (st, len(out)))
        parse_netifs(out, "cut list")
    finally:
        rc = srv.stop()
    check(rc == 0, "IPv6 nasd exited 0 on SIGTERM (%r)" % rc)


def test_copychunk(srv):
    cl = Client(srv)
    data = os.urandom(3 * MIB + 1000)
    srv.put("cc_src.dat", data)
    rw = s3.FILE_READ_DATA | s3.FILE_WRITE_DATA
    src = cl.open("cc_src.dat", rw)
    dst = cl.open("cc_dst.dat", rw, s3.FILE_OVERWRITE_IF)
    st, key = resume_key(cl, src)
    check(st == STATUS_SUCCESS and len(key) == 24, "REQUEST_RESUME_KEY")
    st, _, _ = cl.ioctl(src, FSCTL_SRV_REQUEST_RESUME_KEY, max_out=31)
    check(st == STATUS_INVALID_PARAMETER,
          "REQUEST_RESUME_KEY MaxOutputResponse 31: %#x" % st)
    chunks = [(i * MIB, i * MIB, MIB) for i in range(3)]
    chunks.append((3 * MIB, 3 * MIB, 1000))
    st, out, _ = cl.ioctl(dst, FSCTL_SRV_COPYCHUNK,
                          copychunk_input(key, chunks), max_out=12)
    check(st == STATUS_SUCCESS and
          struct.unpack("<III", out) == (4, 0, len(data)),
          "COPYCHUNK 4 chunks: %#x %r" % (st, out))
    cl.close(dst)
    with open(srv.path("cc_dst.dat"), "rb") as f:
        check(f.read() == data, "COPYCHUNK: destination bytes identical")

    # Overlapping ranges of one file: the source is read first.
    st, out, _ = cl.ioctl(src, FSCTL_SRV_COPYCHUNK,
                          copychunk_input(key, [(0, 4096, 8192)]),
                          max_out=12)
    check(st == STATUS_SUCCESS, "COPYCHUNK overlapping in one file")
    with open(srv.path("cc_src.dat"), "rb") as f:
        now = f.read(4096 + 8192)
    check(now[4096:] == data[:8192], "overlapping copy is a memmove")

    # Limits: answered with INVALID_PARAMETER and the limits.
    for what, ch in (("257 chunks", [(0, 0, 1)] * 257),
                     ("chunk 1 MiB + 1", [(0, 0, MIB + 1)]),
                     ("17 MiB in all", [(0, 0, MIB)] * 17),
                     ("zero-length chunk", [(0, 0, 0)])):
        dst = cl.open("cc_dst.dat", rw)
        st, out, _ = cl.ioctl(dst, FSCTL_SRV_COPYCHUNK,
                              copychunk_input(key, ch), max_out=12)
        check(st == STATUS_INVALID_PARAMETER and
              struct.unpack("<III", out) == (256, MIB, 16 * MIB),
              "COPYCHUNK %s: limits (%#x %r)" % (what, st, out))
        cl.close(dst)
    dst = cl.open("cc_dst.dat", rw)
    st, _, _ = cl.ioctl(dst, FSCTL_SRV_COPYCHUNK,
                        copychunk_input(key, [(0, 0, 16)]), max_out=11)
    check(st == STATUS_INVALID_PARAMETER,
          "COPYCHUNK MaxOutputResponse 11: %#x" % st)
    # Claims 2 chunks, carries 1.
    inp = copychunk_input(key, [(0, 0, 16)])
    inp = inp[:24] + struct.pack("<I", 2) + inp[28:]
    st, _, _ = cl.ioctl(dst, FSCTL_SRV_COPYCHUNK, inp, max_out=12)
    check(st == STATUS_INVALID_PARAMETER, "COPYCHUNK count past input")
    # A source range past the end: INVALID_VIEW_SIZE after what was done.
    st, out, _ = cl.ioctl(dst, FSCTL_SRV_COPYCHUNK,
                          copychunk_input(key, [(0, 0, 100),
                                                (len(data) - 10, 0, 100)]),
                          max_out=12)
    check(st == STATUS_INVALID_VIEW_SIZE and
          struct.unpack("<III", out) == (1, 0, 100),
          "COPYCHUNK past source end: %#x %r" % (st, out))
    # A forged key, and one of another session: not found.
    forged = key[:16] + bytes(b ^ 0x5a for b in key[16:])
    st, _, _ = cl.ioctl(dst, FSCTL_SRV_COPYCHUNK,
                        copychunk_input(forged, [(0, 0, 16)]), max_out=12)
    check(st == STATUS_OBJECT_NAME_NOT_FOUND, "COPYCHUNK forged key: %#x" %
          st)
    other = Client(srv)
    osrc = other.open("cc_src.dat", rw)
    st, okey = resume_key(other, osrc)
    st, _, _ = cl.ioctl(dst, FSCTL_SRV_COPYCHUNK,
                        copychunk_input(okey, [(0, 0, 16)]), max_out=12)
    check(st == STATUS_OBJECT_NAME_NOT_FOUND,
          "COPYCHUNK with another session's key: %#x" % st)
    cl.close(dst)
    # Access: a write-only target may COPYCHUNK_WRITE, not COPYCHUNK.
    wo = cl.open("cc_dst.dat", s3.FILE_WRITE_DATA)
    st, _, _ = cl.ioctl(wo, FSCTL_SRV_COPYCHUNK,
                        copychunk_input(key, [(0, 0, 16)]), max_out=12)
    check(st == STATUS_ACCESS_DENIED, "COPYCHUNK to write-only: %#x" % st)
    st, out, _ = cl.ioctl(wo, FSCTL_SRV_COPYCHUNK_WRITE,
                          copychunk_input(key, [(0, 0, 16)]), max_out=12)
    check(st == STATUS_SUCCESS, "COPYCHUNK_WRITE to write-only: %#x" % st)
    cl.close(wo)
    ro = cl.open("cc_dst.dat", s3.FILE_READ_DATA)
    st, _, _ = cl.ioctl(ro, FSCTL_SRV_COPYCHUNK_WRITE,
                        copychunk_input(key, [(0, 0, 16)]), max_out=12)
    check(st == STATUS_ACCESS_DENIED, "COPYCHUNK_WRITE to read-only")
    cl.close(ro)
    # A source that may not be read.
    wsrc = cl.open("cc_src.dat", s3.FILE_WRITE_DATA)
    st, wkey = resume_key(cl, wsrc)
    dst = cl.open("cc_dst.dat", rw)
    st, _, _ = cl.ioctl(dst, FSCTL_SRV_COPYCHUNK,
                        copychunk_input(wkey, [(0, 0, 16)]), max_out=12)
    check(st == STATUS_ACCESS_DENIED, "COPYCHUNK from write-only source")
    # The key dies with its open.
    cl.close(src)
    st, _, _ = cl.ioctl(dst, FSCTL_SRV_COPYCHUNK,
                        copychunk_input(key, [(0, 0, 16)]), max_out=12)
    check(st == STATUS_OBJECT_NAME_NOT_FOUND,
          "COPYCHUNK after the source closed: %#x" % st)
    cl.close(dst)


def test_sparse(srv):
    cl = Client(srv)
    name = "sparse.dat"
    size = 4 * MIB
    srv.put(name, os.urandom(size))
    rw = s3.FILE_READ_DATA | s3.FILE_WRITE_DATA
    fid = cl.open(name, rw)
    st, _, _ = cl.ioctl(fid, FSCTL_SET_SPARSE, b"\x01", max_out=0)
    check(st == STATUS_SUCCESS, "SET_SPARSE: %#x" % st)
    st, _, _ = cl.ioctl(fid, FSCTL_SET_SPARSE, max_out=0)
    check(st == STATUS_SUCCESS, "SET_SPARSE without a buffer: %#x" % st)
    st, out, _ = cl.ioctl(fid, FSCTL_QUERY_ALLOCATED_RANGES,
                          struct.pack("<QQ", 0, size), max_out=4096)
    check(st == STATUS_SUCCESS and parse_ranges(out) ==
          disk_ranges(srv.path(name), 0, size),
          "QUERY_ALLOCATED_RANGES before: %r" % parse_ranges(out))
    # Punch [1 MiB, 2 MiB) and [3 MiB, 3.5 MiB).
    for a, b in ((MIB, 2 * MIB), (3 * MIB, 3 * MIB + MIB // 2)):
        st, _, _ = cl.ioctl(fid, FSCTL_SET_ZERO_DATA,
                            struct.pack("<QQ", a, b), max_out=0)
        check(st == STATUS_SUCCESS, "SET_ZERO_DATA %d-%d: %#x" % (a, b, st))
    fd = os.open(srv.path(name), os.O_RDONLY)
    check(os.lseek(fd, 0, os.SEEK_HOLE) == MIB,
          "SET_ZERO_DATA punched a hole at 1 MiB (SEEK_HOLE)")
    check(os.fstat(fd).st_size == size, "SET_ZERO_DATA kept the size")
    check(os.pread(fd, MIB, MIB) == b"\0" * MIB, "the range reads zeros")
    os.close(fd)
    want = disk_ranges(srv.path(name), 0, size)
    check(want == [(0, MIB), (2 * MIB, MIB),
                   (3 * MIB + MIB // 2, MIB // 2)],
          "on disk: three data ranges %r" % want)
    st, out, _ = cl.ioctl(fid, FSCTL_QUERY_ALLOCATED_RANGES,
                          struct.pack("<QQ", 0, size), max_out=4096)
    check(st == STATUS_SUCCESS and parse_ranges(out) == want,
          "QUERY_ALLOCATED_RANGES matches SEEK_DATA/SEEK_HOLE")
    st, out, _ = cl.ioctl(fid, FSCTL_QUERY_ALLOCATED_RANGES,
                          struct.pack("<QQ", MIB // 2, 2 * MIB),
                          max_out=4096)
    check(st == STATUS_SUCCESS and parse_ranges(out) ==
          [(MIB // 2, MIB // 2), (2 * MIB, MIB // 2)],
          "QUERY_ALLOCATED_RANGES cut to the asked range %r" %
          parse_ranges(out))
    st, out, _ = cl.ioctl(fid, FSCTL_QUERY_ALLOCATED_RANGES,
                          struct.pack("<QQ", 0, size), max_out=40)
    check(st == STATUS_BUFFER_OVERFLOW and parse_ranges(out) == want[:2],
          "QUERY_ALLOCATED_RANGES short room: BUFFER_OVERFLOW, 2 ranges")
    st, out, _ = cl.ioctl(fid, FSCTL_QUERY_ALLOCATED_RANGES,
                          struct.pack("<QQ", 0, size), max_out=0)
    check(st == STATUS_BUFFER_TOO_SMALL and not out,
          "QUERY_ALLOCATED_RANGES no room: %#x" % st)
    st, out, _ = cl.ioctl(fid, FSCTL_QUERY_ALLOCATED_RANGES,
                          struct.pack("<QQ", MIB, 4096), max_out=0)
    check(st == STATUS_SUCCESS and not out,
          "QUERY_ALLOCATED_RANGES of a hole needs no room")
    for what, inp in (("8 bytes", struct.pack("<Q", 0)),
                      ("negative offset", struct.pack("<QQ", 1 << 63, 1)),
                      ("end past 2^63", struct.pack("<QQ", 1 << 62,
                                                    1 << 62))):
        st, _, _ = cl.ioctl(fid, FSCTL_QUERY_ALLOCATED_RANGES, inp,
                            max_out=4096)
        check(st == STATUS_INVALID_PARAMETER, "QAR %s: %#x" % (what, st))
    for what, inp in (("offset past BeyondFinalZero",
                       struct.pack("<QQ", 2 * MIB, MIB)),
                      ("8 bytes", struct.pack("<Q", 0)),
                      ("negative", struct.pack("<QQ", 1 << 63,
                                               (1 << 63) + 5))):
        st, _, _ = cl.ioctl(fid, FSCTL_SET_ZERO_DATA, inp, max_out=0)
        check(st == STATUS_INVALID_PARAMETER,
              "SET_ZERO_DATA %s: %#x" % (what, st))
    cl.close(fid)
    # Without write access nothing is zeroed.
    ro = cl.open(name, s3.FILE_READ_DATA)
    st, _, _ = cl.ioctl(ro, FSCTL_SET_ZERO_DATA,
                        struct.pack("<QQ", 0, 4096), max_out=0)
    check(st == STATUS_ACCESS_DENIED, "SET_ZERO_DATA read-only: %#x" % st)
    st, _, _ = cl.ioctl(ro, FSCTL_SET_SPARSE, b"\x00", max_out=0)
    check(st == STATUS_ACCESS_DENIED, "SET_SPARSE read-only: %#x" % st)
    cl.close(ro)
    with open(srv.path(name), "rb") as f:
        check(f.read(4096) != b"\0" * 4096, "read-only open zeroed nothing")
    # Clearing the sparse flag fills the holes.
    fid = cl.open(name, rw)
    st, _, _ = cl.ioctl(fid, FSCTL_SET_SPARSE, b"\x00", max_out=0)
    check(st == STATUS_SUCCESS, "SET_SPARSE FALSE: %#x" % st)
    # (fallocate: the holes become unwritten extents, which ext4's
    # SEEK_DATA still skips; the blocks are there)
    fd = os.open(srv.path(name), os.O_RDONLY)
    st_ = os.fstat(fd)
    check(st_.st_blocks * 512 >= size and st_.st_size == size,
          "SET_SPARSE FALSE: the holes are allocated (%d of %d bytes)" %
          (st_.st_blocks * 512, size))
    check(os.pread(fd, MIB, MIB) == b"\0" * MIB,
          "SET_SPARSE FALSE: the filled range still reads zeros")
    os.close(fd)
    # DUPLICATE_EXTENTS: a clone where the file system can, else
    # NOT_SUPPORTED.
    dst = cl.open("dup.dat", rw, s3.FILE_OVERWRITE_IF)
    inp = fid_bytes(fid) + struct.pack("<QQQ", 0, 0, 65536)
    st, _, _ = cl.ioctl(dst, FSCTL_DUPLICATE_EXTENTS_TO_FILE, inp,
                        max_out=0)
    fstype = subprocess.run(["stat", "-f", "-c", "%T", srv.share],
                            capture_output=True, text=True).stdout.strip()
    if st == STATUS_NOT_SUPPORTED:
        check(fstype in ("ext2/ext3", "ext4", "tmpfs", "overlayfs"),
              "DUPLICATE_EXTENTS NOT_SUPPORTED on %s" % fstype)
    else:
        with open(srv.path(name), "rb") as a, \
                open(srv.path("dup.dat"), "rb") as b:
            check(st == STATUS_SUCCESS and a.read(65536) == b.read(65536),
                  "DUPLICATE_EXTENTS cloned on %s (%#x)" % (fstype, st))
    cl.close(dst)
    cl.close(fid)


def test_malformed(srv):
    cl = Client(srv)
    fid = cl.open("bad.dat", s3.FILE_READ_DATA | s3.FILE_WRITE_DATA)
    qar = struct.pack("<QQ", 0, 4096)
    st, _, _ = cl.ioctl(fid, FSCTL_QUERY_ALLOCATED_RANGES, qar, flags=0)
    check(st == STATUS_NOT_SUPPORTED, "Flags 0 (not an FSCTL): %#x" % st)
    cases = (
        ("InputOffset past the message", dict(in_off=4096)),
        ("InputOffset 0xFFFFFFF0", dict(in_off=0xFFFFFFF0)),
        ("InputOffset inside the fixed part", dict(in_off=64 + 40)),
        ("InputCount past the message", dict(in_count=17)),
        ("InputCount 0xFFFFFFFF", dict(in_count=0xFFFFFFFF)),
        ("MaxOutputResponse 0xFFFFFFFF", dict(max_out=0xFFFFFFFF)),
        ("MaxOutputResponse 8 MiB + 1", dict(max_out=8 * MIB + 1)),
        ("MaxInputResponse 0xFFFFFFFF", dict(max_in=0xFFFFFFFF)),
        ("OutputCount past the message", dict(out_count=0x10000)),
        ("MaxOutputResponse 1 MiB on one credit", dict(max_out=MIB,
                                                      charge=1)),
    )
    for what, kw in cases:
        args = dict(max_out=4096)
        args.update(kw)
        st, _, _ = cl.ioctl(fid, FSCTL_QUERY_ALLOCATED_RANGES, qar, **args)
        check(st == STATUS_INVALID_PARAMETER, "%s: %#x" % (what, st))
    st, _, _ = cl.ioctl(fid, FSCTL_QUERY_ALLOCATED_RANGES, qar, max_out=MIB,
                        charge=16)
    check(st == STATUS_SUCCESS, "MaxOutputResponse 1 MiB on 16 credits: %#x"
          % st)
    cl.close(fid)
    check(srv.alive() and cl.echo_ok(), "server alive after malformed")


def main():
    srv = Server()
    try:
        for t in (test_connection_fsctls, test_network_interfaces,
                  test_copychunk, test_sparse, test_malformed):
            try:
                t(srv)
            except Exception as e:
                import traceback
                traceback.print_exc()
                check(False, "%s raised %r" % (t.__name__, e))
            check(srv.alive(), "nasd alive after %s" % t.__name__)
    finally:
        rc = srv.stop()
    check(rc == 0, "nasd exited 0 on SIGTERM (%r)" % rc)
    try:
        test_network_interfaces_v6()
    except Exception as e:
        import traceback
        traceback.print_exc()
        check(False, "test_network_interfaces_v6 raised %r" % e)
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
