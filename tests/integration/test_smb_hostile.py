#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Hostile and malformed SMB2/3 traffic against nasd over raw TCP.

usage: test_smb_hostile.py NASD

Starts its own nasd (random ports in 30000-40000, a fresh state directory,
one user, one share) and, with a small struct-based SMB2 encoder of its own:

  unauthenticated: direct-TCP lengths over the limit (the connection closes
  and nasd's RSS stays flat), zero-length and keepalive frames, other NetBIOS
  types, truncated headers, bad ProtocolIds, SMB1 NEGOTIATE with and without
  "SMB 2.???", NEGOTIATE with DialectCount 0 / huge / past the end and with
  missing, duplicate or malformed negotiate contexts, a second NEGOTIATE,
  commands before NEGOTIATE and before SESSION_SETUP, unknown commands, bad
  StructureSizes, NextCommand outside / backwards / unaligned, compounds of
  64 and 1000 commands, credit requests 0 and 65535, MessageIds outside the
  window or reused, CreditCharge beyond the credits held (MS-SMB2 3.3.5.2.3);

  authenticated (NTLMv2 through impacket's ntlm module, SMB 3.1.1 with the
  preauth integrity hash, AES-CMAC signing): unsigned and wrongly signed
  requests, CREATE names with bad offsets and lengths, odd UTF-16, "..",
  paths escaping the share (and a symlink out of it), embedded NULs and
  streams, malformed create contexts, READ/WRITE offsets and lengths past
  the message, past the maximum or near 2^64, CreditCharge below the
  payload, QUERY_INFO / QUERY_DIRECTORY / SET_INFO buffers out of bounds, a
  FileId of another session or tree, LOCK with LockCount 0 or huge, related
  compounds after a teardown;

  encrypted (AES-128-GCM, MS-SMB2 3.3.5.2.1.1): TRANSFORM messages before
  NEGOTIATE or without a cipher, with a bad tag or ciphertext, Flags 0 or
  2, OriginalMessageSize off by one or 2^32-1, an unknown SessionId, cut
  short, wrapping another session's, an SMB1 or another TRANSFORM, or sent
  after LOGOFF: each closes the connection; sealed requests get sealed,
  unsigned answers (a READ's data too); a share with smb_encrypt=required
  refuses unencrypted requests and sessions without a cipher;

  multichannel (MS-SMB2 3.3.5.5.2): bindings unsigned, wrongly signed, to
  an unknown session, with a wrong password, twice; the bound channel's
  own key, requests signed with the session's key refused there, the
  session outliving its first connection and ending with its last.

After every case a good NEGOTIATE on a new connection must be answered; at
the end, with a CREATE left parked on an oplock break nobody answers,
SIGTERM must end nasd within 10 s with exit status 0 and no sanitizer
report. Nothing
outside the share may change. Prints "ok - NAME" / "not ok - NAME: DETAIL"
and exits 1 if any failed, 77 when impacket or cryptography is missing.
"""

import hashlib
import hmac
import os
import random
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

try:
    from impacket import ntlm
    from cryptography.hazmat.primitives import cmac
    from cryptography.hazmat.primitives.ciphers import algorithms
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM
except ImportError as e:  # pragma: no cover
    print(f"skipped: {e} (run with /usr/bin/python3)")
    sys.exit(77)

SANITIZER_RE = re.compile(
    r"ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|"
    r"SUMMARY: (AddressSanitizer|UndefinedBehaviorSanitizer|LeakSanitizer)")

USER, PASSWORD = "hostile", "Hostile-pw-1"

# commands
NEGOTIATE, SESSION_SETUP, LOGOFF, TREE_CONNECT, TREE_DISCONNECT = 0, 1, 2, 3, 4
CREATE, CLOSE, FLUSH, READ, WRITE, LOCK, IOCTL, CANCEL, ECHO = \
    5, 6, 7, 8, 9, 10, 11, 12, 13
QUERY_DIRECTORY, CHANGE_NOTIFY, QUERY_INFO, SET_INFO = 14, 15, 16, 17

FLAG_RESPONSE, FLAG_ASYNC, FLAG_RELATED, FLAG_SIGNED = 1, 2, 4, 8

ST = {
    "SUCCESS": 0, "PENDING": 0x103, "BUFFER_OVERFLOW": 0x80000005,
    "NO_MORE_FILES": 0x80000006, "INVALID_INFO_CLASS": 0xC0000003,
    "INFO_LENGTH_MISMATCH": 0xC0000004, "INVALID_HANDLE": 0xC0000008,
    "INVALID_PARAMETER": 0xC000000D, "INVALID_DEVICE_REQUEST": 0xC0000010,
    "END_OF_FILE": 0xC0000011, "MORE_PROCESSING_REQUIRED": 0xC0000016,
    "ACCESS_DENIED": 0xC0000022, "BUFFER_TOO_SMALL": 0xC0000023,
    "OBJECT_NAME_INVALID": 0xC0000033, "OBJECT_NAME_NOT_FOUND": 0xC0000034,
    "OBJECT_NAME_COLLISION": 0xC0000035, "OBJECT_PATH_INVALID": 0xC0000039,
    "OBJECT_PATH_NOT_FOUND": 0xC000003A, "OBJECT_PATH_SYNTAX_BAD": 0xC000003B,
    "NOT_SUPPORTED": 0xC00000BB, "NETWORK_NAME_DELETED": 0xC00000C9,
    "FILE_CLOSED": 0xC0000128, "USER_SESSION_DELETED": 0xC0000203,
    "INSUFFICIENT_RESOURCES": 0xC000009A, "NAME_TOO_LONG": 0xC0000106,
    "NOT_A_DIRECTORY": 0xC0000103, "NOT_SAME_DEVICE": 0xC00000D4,
    "INVALID_LOCK_RANGE": 0xC00001A1, "RANGE_NOT_LOCKED": 0xC000007E,
    "NO_PREAUTH_OVERLAP": 0xC05D0000, "LOGON_FAILURE": 0xC000006D,
    "STOPPED_ON_SYMLINK": 0x8000002D, "FILE_IS_A_DIRECTORY": 0xC00000BA,
    "FILE_TOO_LARGE": 0xC0000904, "EA_LIST_INCONSISTENT": 0x80000014,
    "INVALID_SECURITY_DESCR": 0xC0000079, "DISK_FULL": 0xC000007F,
    "SHARING_VIOLATION": 0xC0000043, "DUPLICATE_OBJECTID": 0xC000022A,
}
ST_NAME = {v: k for k, v in ST.items()}


def sname(s):
    return ST_NAME.get(s, f"{s:#010x}") if s is not None else "closed"


passes = 0
fails = 0


def check(name, cond, detail=""):
    global passes, fails
    if cond:
        print(f"ok - {name}", flush=True)
        passes += 1
    else:
        print(f"not ok - {name}: {detail}", flush=True)
        fails += 1
    return cond


def expect(name, got, *want):
    """@got a status (None: the connection closed), @want status names."""
    codes = [ST[w] if w != "closed" else None for w in want]
    return check(name, got in codes,
                 f"expected {'/'.join(want)}, got {sname(got)}")


# ---------------------------------------------------------------- wire

HDR = struct.Struct("<4sHHIHHIIQIIQ16s")
PROTO = b"\xfeSMB"


def utf16(s):
    return s.encode("utf-16-le")


def header(cmd, mid, credits=64, charge=1, flags=0, nxt=0, tid=0, sid=0,
           proto=PROTO, ssize=64):
    return HDR.pack(proto, ssize, charge, 0, cmd, credits, flags, nxt, mid,
                    0xFEFF, tid, sid, b"\0" * 16)


def frame(msg):
    return struct.pack(">I", len(msg)) + msg


def pad8(b):
    return b + b"\0" * (-len(b) % 8)


def kdf(key, label, context):
    """SP800-108 counter mode, HMAC-SHA256, L = 128 (MS-SMB2 3.1.4.2)."""
    data = struct.pack(">I", 1) + label + b"\0" + context + \
        struct.pack(">I", 128)
    return hmac.new(key, data, hashlib.sha256).digest()[:16]


def aes_cmac(key, data):
    c = cmac.CMAC(algorithms.AES(key))
    c.update(data)
    return c.finalize()


def sign_msg(key, msg):
    """Sign one command (its bytes to NextCommand) with AES-CMAC."""
    m = bytearray(msg)
    flags = struct.unpack_from("<I", m, 16)[0] | FLAG_SIGNED
    struct.pack_into("<I", m, 16, flags)
    m[48:64] = b"\0" * 16
    m[48:64] = aes_cmac(key, bytes(m))
    return bytes(m)


class Rsp:
    def __init__(self, m):
        (self.proto, _, self.charge, self.status, self.cmd, self.credits,
         self.flags, self.next, self.mid, self.pid, self.tid, self.sid,
         self.sig) = HDR.unpack_from(m, 0)
        self.raw = m
        self.body = m[64:]

    def __repr__(self):
        return f"<rsp cmd {self.cmd} {sname(self.status)} mid {self.mid}>"


def split_rsp(msg):
    out = []
    off = 0
    while True:
        r = Rsp(msg[off:])
        if r.next:
            r.raw = msg[off:off + r.next]
            r.body = r.raw[64:]
        out.append(r)
        if not r.next:
            return out
        off += r.next


class Closed(Exception):
    pass


def recv_exact(s, n):
    buf = b""
    while len(buf) < n:
        try:
            chunk = s.recv(n - len(buf))
        except (ConnectionResetError, socket.timeout, BrokenPipeError):
            raise Closed()
        if not chunk:
            raise Closed()
        buf += chunk
    return buf


def recv_frame(s):
    while True:
        h = recv_exact(s, 4)
        n = struct.unpack(">I", h)[0] & 0xFFFFFF
        m = recv_exact(s, n)
        if h[0] == 0x85 or not n:
            continue
        return m


def neg_body(dialects=(0x311, 0x302, 0x300, 0x210), ctxs=None, count=None,
             ctx_off=None, ctx_count=None, sec=1):
    """A NEGOTIATE body; @ctxs a list of (type, data), None: preauth."""
    ndial = len(dialects) if count is None else count
    fixed_len = 36 + 2 * len(dialects)
    if ctxs is None:
        ctxs = [(1, struct.pack("<HHH", 1, 32, 1) + os.urandom(32))]
    ctx_blob = b""
    for i, (t, d) in enumerate(ctxs):
        if i:
            ctx_blob = pad8(ctx_blob)
        ctx_blob += struct.pack("<HHI", t, len(d), 0) + d
    off = 64 + fixed_len
    off += -off % 8
    body = struct.pack("<HHHHI16sIHH", 36, ndial, sec, 0, 0x7F,
                       os.urandom(16),
                       off if ctx_off is None else ctx_off,
                       len(ctxs) if ctx_count is None else ctx_count, 0)
    body += b"".join(struct.pack("<H", d) for d in dialects)
    if 0x311 in dialects and ctxs:
        body += b"\0" * (off - 64 - fixed_len) + ctx_blob
    return body


class Conn:
    """One SMB2 connection: MessageIds, the session, signing."""

    def __init__(self, port, timeout=10):
        self.s = socket.create_connection(("127.0.0.1", port),
                                          timeout=timeout)
        self.mid = 0
        self.sid = 0
        self.tid = 0
        self.key = None
        self.dialect = None
        self.preauth = b"\0" * 64
        self.closed = False

    def close(self):
        try:
            self.s.close()
        except OSError:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.close()

    def send_raw(self, data):
        try:
            self.s.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            self.closed = True

    def recv(self):
        """The next message's responses, None when the connection ends.
        Interim (STATUS_PENDING) responses are skipped."""
        got = self.recv_sealed()
        return None if got is None else got[0]

    def req(self, cmd, body, charge=1, credits=64, flags=0, sign=None,
            tid=None, sid=None, mid=None, raw_hdr=None):
        """One request; the header built with the connection's ids."""
        if mid is None:
            mid = self.mid
            self.mid += max(charge, 1)
        h = header(cmd, mid, credits, charge, flags, 0,
                   self.tid if tid is None else tid,
                   self.sid if sid is None else sid)
        if raw_hdr is not None:
            h = raw_hdr
        msg = h + body
        if sign is None:
            sign = self.key is not None
        if sign:
            msg = sign_msg(self.key, msg)
        return msg

    def call(self, cmd, body, **kw):
        """Send one request, return its response (or None: closed)."""
        msg = self.req(cmd, body, **kw)
        self.send_raw(frame(msg))
        rs = self.recv()
        return rs[0] if rs else None

    def status(self, cmd, body, **kw):
        r = self.call(cmd, body, **kw)
        return None if r is None else r.status

    def compound(self, cmds, sign=None):
        """@cmds: (cmd, body, flags) related or not; all signed alike."""
        parts = []
        for i, (cmd, body, flags) in enumerate(cmds):
            m = self.req(cmd, body, flags=flags, sign=False)
            if i < len(cmds) - 1:
                m = pad8(m)
                m = m[:20] + struct.pack("<I", len(m)) + m[24:]
            if (self.key is not None if sign is None else sign):
                m = sign_msg(self.key, m)
            parts.append(m)
        self.send_raw(frame(b"".join(parts)))
        return self.recv()

    # ---- encryption (AES-128-GCM, MS-SMB2 3.1.4.3)

    def seal(self, msg, sid=None, flags=1, size=None, nonce=None):
        """@msg in a TRANSFORM_HEADER, encrypted with the c2s key."""
        nonce = os.urandom(12) if nonce is None else nonce
        aad = nonce + b"\0" * 4 + struct.pack(
            "<IHHQ", len(msg) if size is None else size, 0, flags,
            self.sid if sid is None else sid)
        ct = AESGCM(self.c2s).encrypt(nonce, msg, aad)
        return b"\xfdSMB" + ct[-16:] + aad + ct[:-16]

    def recv_sealed(self):
        """The next message, decrypted when it came encrypted: (responses,
        was it encrypted), None when the connection ends. Interim
        (STATUS_PENDING) responses are skipped."""
        while True:
            try:
                m = recv_frame(self.s)
            except Closed:
                self.closed = True
                return None
            enc = m[:4] == b"\xfdSMB"
            if enc:
                m = AESGCM(self.s2c).decrypt(m[20:32], m[52:] + m[4:20],
                                             m[20:52])
            rs = split_rsp(m)
            if len(rs) == 1 and rs[0].status == ST["PENDING"] and \
                    rs[0].flags & FLAG_ASYNC:
                continue
            self.last_raw = m
            return rs, enc

    def call_sealed(self, cmd, body, **kw):
        """One encrypted request (unsigned); (response, encrypted?)."""
        self.send_raw(frame(self.seal(self.req(cmd, body, sign=False,
                                                   **kw))))
        got = self.recv_sealed()
        return (None, False) if got is None else (got[0][0], got[1])

    # ---- set-up

    def negotiate(self, dialects=(0x311, 0x302, 0x300, 0x210)):
        msg = self.req(NEGOTIATE, neg_body(dialects), sign=False)
        self.send_raw(frame(msg))
        rs = self.recv()
        if not rs:
            return None
        r = rs[0]
        if r.status == 0:
            self.dialect = struct.unpack_from("<H", r.body, 4)[0]
            if self.dialect == 0x311:
                self.preauth = hashlib.sha512(self.preauth + msg).digest()
                self.preauth = hashlib.sha512(self.preauth +
                                              self.last_raw).digest()
        return r

    def session_setup(self, user=USER, password=PASSWORD):
        """NTLMv2 logon; the session's signing key. The final status."""
        h = self.preauth
        t1 = ntlm.getNTLMSSPType1("", "", signingRequired=True)
        tok = t1.getData()
        body = struct.pack("<HBBIIHHQ", 25, 0, 1, 1, 0, 88, len(tok), 0)
        msg = self.req(SESSION_SETUP, body + tok, sign=False)
        self.send_raw(frame(msg))
        rs = self.recv()
        if not rs or rs[0].status != ST["MORE_PROCESSING_REQUIRED"]:
            return None if not rs else rs[0].status
        r = rs[0]
        h = hashlib.sha512(h + msg).digest()
        h = hashlib.sha512(h + self.last_raw).digest()
        self.sid = r.sid
        off, ln = struct.unpack_from("<HH", r.body, 4)
        t2 = r.raw[off:off + ln]
        t3, key = ntlm.getNTLMSSPType3(t1, t2, user, password, "")
        tok = t3.getData()
        body = struct.pack("<HBBIIHHQ", 25, 0, 1, 1, 0, 88, len(tok), 0)
        msg = self.req(SESSION_SETUP, body + tok, sign=False)
        h = hashlib.sha512(h + msg).digest()
        self.send_raw(frame(msg))
        rs = self.recv()
        if not rs:
            return None
        r = rs[0]
        if r.status == 0:
            if self.dialect == 0x311:
                self.key = kdf(key[:16], b"SMBSigningKey\0", h)
                # AES-128-GCM keys (MS-SMB2 3.3.5.5.3), when negotiated
                self.c2s = kdf(key[:16], b"SMBC2SCipherKey\0", h)
                self.s2c = kdf(key[:16], b"SMBS2CCipherKey\0", h)
            else:
                self.key = kdf(key[:16], b"SMB2AESCMAC\0", b"SmbSign\0")
            self.sess_rsp = r
        return r.status

    def bind(self, sid, skey, password=PASSWORD, req_key=None):
        """Bind this negotiated 3.1.1 connection to session @sid, whose
        Session.SigningKey is @skey, as a channel (MS-SMB2 3.3.5.5.2):
        each step signed with @req_key (default @skey), the binding's own
        preauth hash. (final status, Channel.SigningKey or None, the
        responses)."""
        h = self.preauth
        rsps = []
        t1 = ntlm.getNTLMSSPType1("", "", signingRequired=True)
        tok = t1.getData()
        body = struct.pack("<HBBIIHHQ", 25, 1, 1, 1, 0, 88, len(tok), 0)
        msg = sign_msg(req_key or skey,
                       self.req(SESSION_SETUP, body + tok, sign=False,
                                sid=sid))
        self.send_raw(frame(msg))
        rs = self.recv()
        if not rs or rs[0].status != ST["MORE_PROCESSING_REQUIRED"]:
            return (None if not rs else rs[0].status), None, rs
        rsps.append(rs[0])
        h = hashlib.sha512(h + msg).digest()
        h = hashlib.sha512(h + self.last_raw).digest()
        off, ln = struct.unpack_from("<HH", rs[0].body, 4)
        t3, key = ntlm.getNTLMSSPType3(t1, rs[0].raw[off:off + ln], USER,
                                       password, "")
        tok = t3.getData()
        body = struct.pack("<HBBIIHHQ", 25, 1, 1, 1, 0, 88, len(tok), 0)
        msg = sign_msg(req_key or skey,
                       self.req(SESSION_SETUP, body + tok, sign=False,
                                sid=sid))
        h = hashlib.sha512(h + msg).digest()
        self.send_raw(frame(msg))
        rs = self.recv()
        if not rs:
            return None, None, rsps
        rsps.append(rs[0])
        chan = kdf(key[:16], b"SMBSigningKey\0", h) \
            if rs[0].status == 0 else None
        return rs[0].status, chan, rsps

    def tree_connect(self, share="share"):
        path = utf16(f"\\\\127.0.0.1\\{share}")
        r = self.call(TREE_CONNECT, struct.pack("<HHHH", 9, 0, 72,
                                                len(path)) + path)
        if r is not None and r.status == 0:
            self.tid = r.tid
        return None if r is None else r.status


def signature_ok(key, raw):
    m = bytearray(raw)
    sig = bytes(m[48:64])
    m[48:64] = b"\0" * 16
    return aes_cmac(key, bytes(m)) == sig


# ---- request bodies

def create_body(name, disposition=1, access=0x12019F, options=0x40,
                share=7, attrs=0x80, ctx=b"", name_off=None, name_len=None,
                ctx_off=None, ctx_len=None):
    n = utf16(name) if isinstance(name, str) else name
    buf = n
    coff = 0
    if ctx:
        buf = pad8(buf if buf else b"\0")
        coff = 120 + len(buf)
        buf += ctx
    if not buf:
        buf = b"\0"
    body = struct.pack("<HBBIQQIIIIIHHII", 57, 0, 0, 2, 0, 0, access, attrs,
                       share, disposition, options,
                       120 if name_off is None else name_off,
                       len(n) if name_len is None else name_len,
                       coff if ctx_off is None else ctx_off,
                       len(ctx) if ctx_len is None else ctx_len)
    return body + buf


def create_ctx(items):
    """Create contexts: [(name bytes, data bytes)], chained and aligned."""
    out = b""
    for i, (name, data) in enumerate(items):
        doff = 16 + len(name)
        doff += -doff % 8
        e = struct.pack("<IHHHHI", 0, 16, len(name), 0,
                        doff if data else 0, len(data)) + name
        e += b"\0" * (doff - len(e)) + data if data else b""
        if i < len(items) - 1:
            e = pad8(e)
            e = struct.pack("<I", len(e)) + e[4:]
        out += e
    return out


def fid_of(r):
    return r.body[64:80]


def close_body(fid):
    return struct.pack("<HHI", 24, 0, 0) + fid


def read_body(fid, length, offset=0, minimum=0):
    return struct.pack("<HBBIQ16sIIIHH", 49, 0, 0, length, offset, fid,
                       minimum, 0, 0, 0, 0) + b"\0"


def write_body(fid, data, offset=0, doff=112, length=None):
    return struct.pack("<HHIQ16sIIHHI", 49, doff,
                       len(data) if length is None else length, offset, fid,
                       0, 0, 0, 0, 0) + data


def qinfo_body(fid, itype=1, cls=4, outlen=4096, in_off=0, in_len=0,
               extra=b""):
    return struct.pack("<HBBIHHIII16s", 41, itype, cls, outlen, in_off, 0,
                       in_len, 0, 0, fid) + (extra or b"\0")


def setinfo_body(fid, data, itype=1, cls=4, off=96, length=None):
    return struct.pack("<HBBIHHI16s", 33, itype, cls,
                       len(data) if length is None else length, off, 0, 0,
                       fid) + (data or b"\0")


def qdir_body(fid, pattern="*", outlen=65536, cls=37, flags=0,
              name_off=96, name_len=None):
    p = utf16(pattern)
    return struct.pack("<HBBI16sHHI", 33, cls, flags, 0, fid, name_off,
                       len(p) if name_len is None else name_len,
                       outlen) + (p or b"\0")


def lock_body(fid, locks, count=None):
    b = struct.pack("<HHI16s", 48, len(locks) if count is None else count,
                    0, fid)
    for off, ln, fl in locks:
        b += struct.pack("<QQII", off, ln, fl, 0)
    return b


# ---------------------------------------------------------------- server

def free_port():
    for _ in range(200):
        p = random.randrange(30000, 40000)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", p))
                return p
            except OSError:
                continue
    raise RuntimeError("no free port")


def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return -1


class Server:
    def __init__(self, nasd, tmp):
        self.nasd = nasd
        self.tmp = tmp
        self.state = os.path.join(tmp, "state")
        self.share = os.path.join(tmp, "share")
        self.outside = os.path.join(tmp, "outside")
        self.sealed = os.path.join(tmp, "sealed")
        for d in (self.state, self.share, self.outside, self.sealed):
            os.makedirs(d)
        os.chmod(self.share, 0o777)
        os.chmod(self.sealed, 0o777)
        with open(os.path.join(self.outside, "canary"), "w") as f:
            f.write("outside the share\n")
        os.symlink(self.outside, os.path.join(self.share, "link"))
        os.symlink("../outside/canary", os.path.join(self.share, "flink"))
        with open(os.path.join(self.share, "data"), "wb") as f:
            f.write(b"D" * 8192)
        os.chmod(os.path.join(self.share, "data"), 0o666)
        os.mkdir(os.path.join(self.share, "dir"))
        os.chmod(os.path.join(self.share, "dir"), 0o777)
        self.log_path = os.path.join(tmp, "nasd.log")
        self.log = open(self.log_path, "w")
        env = dict(os.environ)
        env["ASAN_OPTIONS"] = os.environ.get(
            "NASD_ASAN_OPTIONS",
            "halt_on_error=1:abort_on_error=0:detect_leaks=1:exitcode=66")
        env["UBSAN_OPTIONS"] = os.environ.get(
            "NASD_UBSAN_OPTIONS", "halt_on_error=1:print_stacktrace=1")
        self.env = env
        uid = os.getuid() if os.getuid() else 1000
        r = subprocess.run(
            [nasd, "user", "add", USER, "--uid", str(uid), "--gid",
             str(uid), "--state-dir", self.state],
            input=PASSWORD + "\n", capture_output=True, text=True, env=env)
        if r.returncode:
            raise RuntimeError(f"nasd user add: {r.stderr}")
        self.proc = None
        for _ in range(5):
            self.nfs_port, self.port = free_port(), free_port()
            if self.nfs_port == self.port:
                continue
            self.proc = subprocess.Popen(
                [nasd, "--foreground", "--listen",
                 f"127.0.0.1:{self.nfs_port}", "--mountd-port", "0",
                 "--state-dir", self.state, "--smb-listen",
                 f"127.0.0.1:{self.port}", "--log-level", "debug",
                 "--export", f"{self.share}:rw,no_root_squash,smb=share",
                 "--export", f"{self.sealed}:rw,no_root_squash,smb=sealed,"
                 "smb_encrypt=required"],
                stdout=self.log, stderr=subprocess.STDOUT, env=env)
            if self.wait_up():
                return
            self.proc.kill()
            self.proc.wait()
        raise RuntimeError("nasd did not start")

    def wait_up(self):
        deadline = time.time() + 30
        while time.time() < deadline:
            if self.proc.poll() is not None:
                return False
            try:
                socket.create_connection(("127.0.0.1", self.port),
                                         timeout=1).close()
                return True
            except OSError:
                time.sleep(0.1)
        return False

    def log_text(self):
        self.log.flush()
        with open(self.log_path, errors="replace") as f:
            return f.read()


def snapshot(path):
    """Names, sizes, mtimes and contents of everything under @path."""
    out = {}
    for root, dirs, files in os.walk(path):
        for n in dirs + files:
            p = os.path.join(root, n)
            st = os.lstat(p)
            data = None
            if os.path.isfile(p) and not os.path.islink(p):
                with open(p, "rb") as f:
                    data = f.read()
            out[os.path.relpath(p, path)] = (st.st_size, st.st_mtime_ns,
                                             st.st_mode, data)
    return out


# ---------------------------------------------------------------- cases

class T:
    srv = None
    keep = None


def alive(name):
    """The server still answers a good NEGOTIATE on a new connection."""
    ok = False
    detail = ""
    try:
        with Conn(T.srv.port, timeout=10) as c:
            r = c.negotiate()
            ok = r is not None and r.status == 0
            detail = "closed" if r is None else sname(r.status)
    except OSError as e:
        detail = str(e)
    if not ok:
        check(f"{name}: server alive", False, detail)
        if T.srv.proc.poll() is not None:
            print("# nasd died; its log ends:\n" +
                  T.srv.log_text()[-3000:], flush=True)
            sys.exit(1)
    return ok


def case_closed(name, data, neg_first=False, expect_reply=False):
    """Send @data raw on a fresh connection: the connection must end."""
    with Conn(T.srv.port, timeout=10) as c:
        if neg_first:
            c.negotiate()
        c.send_raw(data)
        rs = c.recv()
        while rs is not None and not expect_reply:
            rs = c.recv()
        check(name, c.closed, f"answered {rs}")
    alive(name)


def t_framing():
    srv = T.srv
    # lengths over the limit: 64 KiB + 1 before NEGOTIATE, 16 MiB after
    case_closed("frame_64KiB+1_before_negotiate",
                struct.pack(">I", (64 << 10) + 1) + b"\xfeSMB" + b"\0" * 60)
    case_closed("frame_16MiB_after_negotiate",
                struct.pack(">I", 0xFFFFFF) + b"\xfeSMB" + b"\0" * 60,
                neg_first=True)
    # RSS stays flat while many connections claim 16 MiB and send 2 MiB
    before = rss_kib(srv.proc.pid)
    socks = []
    chunk = b"\0" * (256 << 10)
    for _ in range(8):
        s = socket.create_connection(("127.0.0.1", srv.port), timeout=5)
        socks.append(s)
        try:
            s.sendall(struct.pack(">I", 0xFFFFFF))
            for _ in range(8):
                s.sendall(chunk)
        except OSError:
            pass
    time.sleep(0.3)
    after = rss_kib(srv.proc.pid)
    closed = 0
    for s in socks:
        try:
            s.settimeout(5)
            closed += s.recv(1) == b""
        except OSError:
            closed += 1
        s.close()
    check("frame_16MiB_x8_closed", closed == 8, f"{closed} of 8 closed")
    print(f"# RSS {before} -> {after} KiB")
    check("frame_16MiB_x8_rss_flat", before > 0 and after - before < 16384,
          f"RSS {before} -> {after} KiB")
    alive("frame_16MiB_x8")

    # zero-length frames and keepalives are skipped; the stream goes on
    with Conn(srv.port) as c:
        c.send_raw(b"\0\0\0\0" + b"\x85\0\0\0" + b"\0\0\0\0")
        r = c.negotiate()
        check("zero_length_and_keepalive_frames_skipped",
              r is not None and r.status == 0, repr(r))
    alive("zero_length_frames")
    # NetBIOS session request (0x81), retarget (0x84), bad type
    for t in (0x81, 0x84, 0x42):
        case_closed(f"netbios_type_{t:#x}", bytes([t, 0, 0, 4]) + b"abcd")
    # truncated headers
    for n in (1, 3, 4, 10, 63):
        case_closed(f"truncated_header_{n}",
                    frame(header(NEGOTIATE, 0)[:n]))
    # a header with the right magic and a body cut short is answered
    with Conn(srv.port) as c:
        st = c.status(NEGOTIATE, neg_body()[:10])
        expect("negotiate_body_truncated", st, "INVALID_PARAMETER")
    alive("negotiate_body_truncated")
    # bad ProtocolIds: TRANSFORM and COMPRESSION (not negotiated), junk
    for magic in (b"\xfdSMB", b"\xfcSMB", b"XSMB", b"\xfeSMC"):
        case_closed(f"protocol_id_{magic.hex()}",
                    frame(header(NEGOTIATE, 0, proto=magic) + neg_body()))
    # header StructureSize not 64
    for ss in (0, 63, 65, 0xFFFF):
        case_closed(f"header_structure_size_{ss}",
                    frame(header(NEGOTIATE, 0, ssize=ss) + neg_body()))
    # a response sent to the server
    case_closed("response_flag_set",
                frame(header(NEGOTIATE, 0, flags=FLAG_RESPONSE) +
                      neg_body()))


def smb1_negotiate(dialects):
    strings = b"".join(b"\x02" + d + b"\0" for d in dialects)
    hdr = b"\xffSMB" + bytes([0x72]) + b"\0" * 4 + bytes([0x18]) + \
        struct.pack("<H", 0xC853) + b"\0" * 12 + struct.pack("<HHHH", 0,
                                                             0xFEFF, 0, 0)
    assert len(hdr) == 32
    return hdr + b"\0" + struct.pack("<H", len(strings)) + strings


def t_smb1():
    srv = T.srv
    with Conn(srv.port) as c:
        c.send_raw(frame(smb1_negotiate([b"NT LM 0.12", b"SMB 2.002",
                                         b"SMB 2.???"])))
        rs = c.recv()
        ok = rs is not None and rs[0].status == 0 and \
            rs[0].cmd == NEGOTIATE and \
            struct.unpack_from("<H", rs[0].body, 4)[0] == 0x2FF
        check("smb1_negotiate_wildcard_gets_02FF", ok, repr(rs))
        # the SMB2 NEGOTIATE that follows uses MessageId 1
        c.mid = 1
        r = c.negotiate()
        check("smb1_then_smb2_negotiate", r is not None and r.status == 0
              and c.dialect == 0x311, repr(r))
        # a second SMB1 NEGOTIATE on it ends the connection
        c.send_raw(frame(smb1_negotiate([b"SMB 2.???"])))
        check("smb1_negotiate_again_closes", c.recv() is None, "answered")
    alive("smb1_wildcard")
    case_closed("smb1_negotiate_without_smb2",
                frame(smb1_negotiate([b"NT LM 0.12", b"LANMAN2.1"])))
    case_closed("smb1_negotiate_2002_only_not_offered",
                frame(smb1_negotiate([b"NT LM 0.12", b"SMB 2.002"])))
    bad = smb1_negotiate([b"SMB 2.???"])
    case_closed("smb1_negotiate_bytecount_past_end",
                frame(bad[:33] + struct.pack("<H", 500) + bad[35:]))
    case_closed("smb1_negotiate_unterminated",
                frame(bad[:-1]))
    case_closed("smb1_other_command",
                frame(bad[:4] + b"\x73" + bad[5:]))
    case_closed("smb1_truncated", frame(bad[:20]))


def t_negotiate():
    srv = T.srv
    pre = struct.pack("<HHH", 1, 32, 1) + os.urandom(32)
    cases = [
        ("dialect_count_0", neg_body(count=0), "INVALID_PARAMETER"),
        ("dialect_count_65535", neg_body(count=65535), "INVALID_PARAMETER"),
        ("dialect_count_past_end", neg_body(dialects=(0x311,), count=30,
                                            ctxs=[]), "INVALID_PARAMETER"),
        ("no_common_dialect", neg_body(dialects=(0x222, 0x2FF, 0x400)),
         "NOT_SUPPORTED"),
        ("smb202_not_offered", neg_body(dialects=(0x202,)),
         "NOT_SUPPORTED"),
        ("311_no_contexts", neg_body(ctxs=[]), "INVALID_PARAMETER"),
        ("311_context_count_0", neg_body(ctx_count=0), "INVALID_PARAMETER"),
        ("311_context_count_huge", neg_body(ctx_count=0xFFFF),
         "INVALID_PARAMETER"),
        ("311_context_offset_past_end", neg_body(ctx_off=4000),
         "INVALID_PARAMETER"),
        ("311_context_offset_0xffffffff", neg_body(ctx_off=0xFFFFFFFF),
         "INVALID_PARAMETER"),
        ("311_context_offset_unaligned", neg_body(ctx_off=113),
         "INVALID_PARAMETER"),
        ("311_context_offset_in_header", neg_body(ctx_off=8),
         "INVALID_PARAMETER"),
        ("311_duplicate_preauth", neg_body(ctxs=[(1, pre), (1, pre)]),
         "INVALID_PARAMETER"),
        ("311_duplicate_encryption",
         neg_body(ctxs=[(1, pre), (2, struct.pack("<HH", 1, 1)),
                        (2, struct.pack("<HH", 1, 2))]),
         "INVALID_PARAMETER"),
        ("311_duplicate_signing",
         neg_body(ctxs=[(1, pre), (8, struct.pack("<HH", 1, 1)),
                        (8, struct.pack("<HH", 1, 1))]),
         "INVALID_PARAMETER"),
        ("311_preauth_hash_count_0",
         neg_body(ctxs=[(1, struct.pack("<HH", 0, 0))]),
         "INVALID_PARAMETER"),
        ("311_preauth_hash_count_past_data",
         neg_body(ctxs=[(1, struct.pack("<HHH", 9, 0, 1))]),
         "INVALID_PARAMETER"),
        ("311_preauth_salt_past_data",
         neg_body(ctxs=[(1, struct.pack("<HHH", 1, 200, 1))]),
         "INVALID_PARAMETER"),
        ("311_preauth_unknown_hash",
         neg_body(ctxs=[(1, struct.pack("<HHH", 1, 0, 7))]),
         "NO_PREAUTH_OVERLAP"),
        ("311_encryption_count_0",
         neg_body(ctxs=[(1, pre), (2, struct.pack("<H", 0))]),
         "INVALID_PARAMETER"),
        ("311_signing_count_past_data",
         neg_body(ctxs=[(1, pre), (8, struct.pack("<HH", 40, 1))]),
         "INVALID_PARAMETER"),
        ("311_compression_truncated",
         neg_body(ctxs=[(1, pre), (3, struct.pack("<HH", 5, 0))]),
         "INVALID_PARAMETER"),
    ]
    for name, body, want in cases:
        with Conn(srv.port) as c:
            expect(f"negotiate_{name}", c.status(NEGOTIATE, body), want)
        alive(name)
    # a context whose DataLength runs past the message
    body = bytearray(neg_body())
    off = struct.unpack_from("<I", body, 28)[0] - 64
    struct.pack_into("<H", body, off + 2, 0xFFFF)
    with Conn(srv.port) as c:
        expect("negotiate_311_context_length_past_end",
               c.status(NEGOTIATE, bytes(body)), "INVALID_PARAMETER")
    alive("context_length_past_end")
    # a signed NEGOTIATE
    with Conn(srv.port) as c:
        expect("negotiate_signed_flag",
               c.status(NEGOTIATE, neg_body(), flags=FLAG_SIGNED,
                        sign=False), "INVALID_PARAMETER",
               "USER_SESSION_DELETED")
    alive("negotiate_signed")
    # credits: a request for 0 still gets one, 65535 is capped
    with Conn(srv.port) as c:
        r = c.call(NEGOTIATE, neg_body(), credits=0)
        check("negotiate_credit_request_0_grants_1",
              r is not None and r.credits >= 1, repr(r and r.credits))
    with Conn(srv.port) as c:
        r = c.call(NEGOTIATE, neg_body(), credits=65535)
        check("negotiate_credit_request_65535_capped",
              r is not None and 1 <= r.credits <= 8192,
              repr(r and r.credits))
    # a failed NEGOTIATE leaves the connection able to negotiate
    with Conn(srv.port) as c:
        st = c.status(NEGOTIATE, neg_body(count=0))
        r = c.negotiate()
        check("negotiate_after_failed_negotiate",
              st == ST["INVALID_PARAMETER"] and r is not None and
              r.status == 0, f"{sname(st)} then {r}")
    # a second NEGOTIATE closes the connection
    with Conn(srv.port) as c:
        c.negotiate()
        st = c.status(NEGOTIATE, neg_body())
        if st is not None:
            st = c.status(ECHO, struct.pack("<HH", 4, 0))
        expect("second_negotiate_closes", st, "closed")
    alive("second_negotiate")


def t_before_session():
    srv = T.srv
    # before NEGOTIATE: any other command is refused
    for cmd, body in ((SESSION_SETUP, struct.pack("<HBBIIHHQ", 25, 0, 1, 0,
                                                   0, 0, 0, 0)),
                      (ECHO, struct.pack("<HH", 4, 0)),
                      (TREE_CONNECT, struct.pack("<HHHH", 9, 0, 0, 0)),
                      (CREATE, create_body("x"))):
        with Conn(srv.port) as c:
            expect(f"before_negotiate_cmd_{cmd}", c.status(cmd, body),
                   "INVALID_PARAMETER")
        alive(f"before_negotiate_{cmd}")
    with Conn(srv.port) as c:
        c.negotiate()
        expect("echo_without_session", c.status(ECHO,
                                                struct.pack("<HH", 4, 0)),
               "SUCCESS")
        path = utf16("\\\\127.0.0.1\\share")
        tc = struct.pack("<HHHH", 9, 0, 72, len(path)) + path
        expect("tree_connect_without_session", c.status(TREE_CONNECT, tc),
               "USER_SESSION_DELETED")
        expect("tree_connect_unknown_session",
               c.status(TREE_CONNECT, tc, sid=0x123456789), 
               "USER_SESSION_DELETED")
        for cmd, body in ((CREATE, create_body("data")),
                          (READ, read_body(b"\0" * 16, 10)),
                          (WRITE, write_body(b"\0" * 16, b"x")),
                          (CLOSE, close_body(b"\0" * 16)),
                          (QUERY_INFO, qinfo_body(b"\0" * 16)),
                          (LOCK, lock_body(b"\0" * 16, [(0, 1, 2)])),
                          (LOGOFF, struct.pack("<HH", 4, 0)),
                          (TREE_DISCONNECT, struct.pack("<HH", 4, 0))):
            expect(f"no_session_cmd_{cmd}",
                   c.status(cmd, body, sid=0x4242), "USER_SESSION_DELETED")
        # SESSION_SETUP naming a session that does not exist
        expect("session_setup_unknown_session",
               c.status(SESSION_SETUP, struct.pack("<HBBIIHHQ", 25, 0, 1, 0,
                                                    0, 0, 0, 0), sid=77),
               "USER_SESSION_DELETED")
        # a garbage token
        tok = b"\x60\x82\xff\xff" + os.urandom(40)
        expect("session_setup_garbage_token",
               c.status(SESSION_SETUP, struct.pack(
                   "<HBBIIHHQ", 25, 0, 1, 0, 0, 88, len(tok), 0) + tok),
               "INVALID_PARAMETER", "LOGON_FAILURE")
        # the token's offset and length outside the command
        for off, ln in ((88, 4000), (0, 8), (0xFFFF, 0xFFFF), (60, 10)):
            st = c.status(SESSION_SETUP, struct.pack(
                "<HBBIIHHQ", 25, 0, 1, 0, 0, off, ln, 0) + b"\0" * 8)
            expect(f"session_setup_token_{off}_{ln}", st,
                   "INVALID_PARAMETER")
        # unknown commands and bad StructureSizes
        for cmd in (0x13, 0x14, 0xFF, 0xFFFF):
            expect(f"unknown_command_{cmd:#x}",
                   c.status(cmd, struct.pack("<HH", 4, 0)),
                   "INVALID_PARAMETER")
        for ss in (0, 3, 5, 0xFFFF):
            expect(f"echo_structure_size_{ss}",
                   c.status(ECHO, struct.pack("<HH", ss, 0)),
                   "INVALID_PARAMETER")
        expect("echo_body_empty", c.status(ECHO, b""), "INVALID_PARAMETER")
        expect("echo_body_1_byte", c.status(ECHO, b"\x04"),
               "INVALID_PARAMETER")
        expect("echo_still_works", c.status(ECHO, struct.pack("<HH", 4, 0)),
               "SUCCESS")
    alive("before_session")
    # a wrong password: LOGON_FAILURE
    with Conn(srv.port) as c:
        c.negotiate()
        expect("logon_wrong_password",
               c.session_setup(password="not-it"), "LOGON_FAILURE")
    alive("logon_wrong_password")


def t_compound_framing():
    srv = T.srv
    echo = struct.pack("<HH", 4, 0)

    def chain(n, first_next=None, start_mid=1):
        parts = []
        for i in range(n):
            m = pad8(header(ECHO, start_mid + i) + echo)
            nxt = len(m) if i < n - 1 else 0
            if i == 0 and first_next is not None:
                nxt = first_next
            parts.append(m[:20] + struct.pack("<I", nxt) + m[24:])
        return b"".join(parts)

    for name, nxt in (("outside", 4096), ("backwards_8", 8),
                      ("into_header_56", 56), ("unaligned_73", 73),
                      ("huge", 0xFFFFFFF8), ("unaligned_huge", 0xFFFFFFFF)):
        with Conn(srv.port) as c:
            c.negotiate()
            c.send_raw(frame(chain(2, nxt)))
            rs = c.recv()
            check(f"next_command_{name}_closes", rs is None, repr(rs))
        alive(f"next_command_{name}")
    # a chain ending with NextCommand pointing exactly at the end
    with Conn(srv.port) as c:
        c.negotiate()
        m = pad8(header(ECHO, 1) + echo)
        c.send_raw(frame(m[:20] + struct.pack("<I", len(m)) + m[24:]))
        check("next_command_at_end_closes", c.recv() is None, "answered")
    alive("next_command_at_end")

    def credits_for(c, n):
        """Ask for credits until @n are held (one ECHO at a time)."""
        held = 1
        while held < n:
            r = c.call(ECHO, echo, credits=min(n - held + 1, 8000))
            if r is None:
                return False
            held += r.credits - 1
        return True

    # 64 ECHOs in one message: all answered
    with Conn(srv.port) as c:
        r = c.negotiate()
        ok = credits_for(c, 70)
        c.send_raw(frame(chain(64, start_mid=c.mid)))
        rs = c.recv()
        check("compound_64_echo_answered",
              ok and rs is not None and len(rs) == 64 and
              all(x.status == 0 for x in rs),
              f"{len(rs) if rs else 'closed'}")
    alive("compound_64")
    # 1000 ECHOs in one message: refused (more than a compound may hold)
    with Conn(srv.port) as c:
        c.negotiate()
        ok = credits_for(c, 1001)
        c.send_raw(frame(chain(1000, start_mid=c.mid)))
        rs = c.recv()
        check("compound_1000_echo_refused", ok and rs is None,
              f"{len(rs) if rs else 'closed'} responses")
    alive("compound_1000")

    # the credit window
    with Conn(srv.port) as c:
        c.negotiate()
        st = c.status(ECHO, echo, mid=1000)
        expect("message_id_beyond_window_closes", st, "closed")
    alive("mid_beyond_window")
    with Conn(srv.port) as c:
        c.negotiate()
        c.status(ECHO, echo, mid=1, credits=10)
        st = c.status(ECHO, echo, mid=1)
        expect("message_id_reused_closes", st, "closed")
    alive("mid_reused")
    with Conn(srv.port) as c:
        c.negotiate()
        c.status(ECHO, echo, credits=10)
        st = c.status(ECHO, echo, mid=0)
        expect("message_id_below_window_closes", st, "closed")
    alive("mid_below")
    with Conn(srv.port) as c:
        c.negotiate()
        st = c.status(ECHO, echo, mid=0xFFFFFFFFFFFFFFFF)
        expect("message_id_all_ones_closes", st, "closed")
    alive("mid_all_ones")
    with Conn(srv.port) as c:
        c.negotiate()  # holds 64 credits after this
        st = c.status(ECHO, echo, charge=200)
        expect("credit_charge_beyond_held_closes", st, "closed")
    alive("charge_beyond_held")
    with Conn(srv.port) as c:
        c.negotiate()
        r = c.call(ECHO, echo, credits=0)
        ok = r is not None and r.status == 0
        r2 = c.call(ECHO, echo, credits=65535)
        check("credit_requests_0_and_65535", ok and r2 is not None and
              r2.status == 0 and r2.credits <= 8192,
              f"{r} {r2 and r2.credits}")
        # granted credits never let the window pass its maximum
        held = 64 + r2.credits if r2 else 0
        for _ in range(5):
            r = c.call(ECHO, echo, credits=65535)
            if r is None:
                break
            held += r.credits - 1
        check("credits_held_capped", r is not None and held <= 8192 + 64,
              f"held {held}")
    alive("credits")


def logon(port, share=True):
    c = Conn(port)
    r = c.negotiate()
    if r is None or r.status:
        raise RuntimeError(f"negotiate failed: {r}")
    st = c.session_setup()
    if st != 0:
        raise RuntimeError(f"session setup failed: {sname(st)}")
    if share:
        st = c.tree_connect()
        if st != 0:
            raise RuntimeError(f"tree connect failed: {sname(st)}")
    return c


def t_signing():
    srv = T.srv
    c = logon(srv.port, share=False)
    check("session_setup_response_signed_with_derived_key",
          c.sess_rsp.flags & FLAG_SIGNED and
          signature_ok(c.key, c.sess_rsp.raw), "bad signature")
    path = utf16("\\\\127.0.0.1\\share")
    tc = struct.pack("<HHHH", 9, 0, 72, len(path)) + path
    expect("unsigned_tree_connect_refused",
           c.status(TREE_CONNECT, tc, sign=False), "ACCESS_DENIED")
    msg = bytearray(c.req(TREE_CONNECT, tc))
    msg[50] ^= 1
    c.send_raw(frame(bytes(msg)))
    rs = c.recv()
    expect("bad_signature_refused", rs[0].status if rs else None,
           "ACCESS_DENIED")
    msg = bytearray(c.req(TREE_CONNECT, tc))
    msg[-1] ^= 0x20
    c.send_raw(frame(bytes(msg)))
    rs = c.recv()
    expect("body_changed_after_signing_refused",
           rs[0].status if rs else None, "ACCESS_DENIED")
    # signed with SIGNED cleared
    msg = bytearray(c.req(TREE_CONNECT, tc))
    struct.pack_into("<I", msg, 16, 0)
    c.send_raw(frame(bytes(msg)))
    rs = c.recv()
    expect("signature_without_flag_refused", rs[0].status if rs else None,
           "ACCESS_DENIED")
    expect("signed_tree_connect_works", c.tree_connect(), "SUCCESS")
    # an ECHO in the session, unsigned: also refused (signing required)
    expect("unsigned_echo_in_session_refused",
           c.status(ECHO, struct.pack("<HH", 4, 0), sign=False),
           "ACCESS_DENIED")
    r = c.call(ECHO, struct.pack("<HH", 4, 0))
    check("signed_echo_response_signed",
          r is not None and r.status == 0 and r.flags & FLAG_SIGNED and
          signature_ok(c.key, r.raw), repr(r))
    c.close()
    alive("signing")


def enc_ctx():
    """An SMB2_ENCRYPTION_CAPABILITIES context offering AES-128-GCM."""
    return (2, struct.pack("<HH", 1, 2))


def logon_sealed(port, share=None):
    """3.1.1 with AES-128-GCM negotiated, a session (and a tree)."""
    c = Conn(port)
    ctxs = [(1, struct.pack("<HHH", 1, 32, 1) + os.urandom(32)), enc_ctx()]
    msg = c.req(NEGOTIATE, neg_body(ctxs=ctxs), sign=False)
    c.send_raw(frame(msg))
    rs = c.recv()
    r = rs[0]
    c.dialect = 0x311
    c.preauth = hashlib.sha512(hashlib.sha512(c.preauth + msg).digest() +
                               c.last_raw).digest()
    c.neg_rsp = r
    st = c.session_setup()
    if st != 0:
        raise RuntimeError(f"session setup failed: {sname(st)}")
    if share:
        path = utf16(f"\\\\127.0.0.1\\{share}")
        r, _ = c.call_sealed(TREE_CONNECT, struct.pack("<HHHH", 9, 0, 72,
                                                       len(path)) + path)
        if r is None or r.status:
            raise RuntimeError(f"tree connect failed: {r}")
        c.tid = r.tid
    return c


def neg_cipher(r):
    """The cipher a 3.1.1 NEGOTIATE response chose, None without one."""
    off, n = struct.unpack_from("<IH", r.body, 60)[0], \
        struct.unpack_from("<H", r.body, 6)[0]
    off -= 64
    for _ in range(n):
        t, ln = struct.unpack_from("<HH", r.body, off)
        if t == 2:
            return struct.unpack_from("<HH", r.body, off + 8)[1]
        off += 8 + ln
        off += -off % 8
    return None


def t_encryption():
    """MS-SMB2 3.3.5.2.1.1: what is not a well-formed message under a
    session's key closes the connection; sealed requests get sealed,
    unsigned answers; a share that requires encryption refuses the
    rest."""
    srv = T.srv
    echo = struct.pack("<HH", 4, 0)
    # a TRANSFORM before NEGOTIATE, and on a connection without a cipher
    fake = b"\xfdSMB" + b"\0" * 16 + os.urandom(16) + struct.pack(
        "<IHHQ", 68, 0, 1, 1) + header(ECHO, 0) + echo
    case_closed("transform_before_negotiate", frame(fake))
    case_closed("transform_without_cipher", frame(fake), neg_first=True)
    c = logon_sealed(srv.port)
    check("cipher_aes128_gcm_chosen", neg_cipher(c.neg_rsp) == 2,
          repr(neg_cipher(c.neg_rsp)))
    r, enc = c.call_sealed(ECHO, echo)
    check("sealed_echo_answered_sealed", r is not None and enc and
          r.status == 0 and not r.flags & FLAG_SIGNED, repr(r))
    # the server's nonces differ (two answers to the same request)
    c.send_raw(frame(c.seal(c.req(ECHO, echo, sign=False))))
    m1 = recv_frame(c.s)
    c.send_raw(frame(c.seal(c.req(ECHO, echo, sign=False))))
    m2 = recv_frame(c.s)
    check("server_nonces_differ", m1[20:36] != m2[20:36], m1[20:36].hex())
    c.close()
    # each of these closes the connection (and nothing else)
    for name, mk in (
            ("bad_tag", lambda c, m: bytearray(c.seal(m))),
            ("bad_ciphertext", lambda c, m: bytearray(c.seal(m))),
            ("flags_0", lambda c, m: c.seal(m, flags=0)),
            ("flags_2", lambda c, m: c.seal(m, flags=2)),
            ("size_plus_1", lambda c, m: c.seal(m, size=len(m) + 1)),
            ("size_minus_1", lambda c, m: c.seal(m, size=len(m) - 1)),
            ("size_2^32-1", lambda c, m: c.seal(m, size=0xFFFFFFFF)),
            ("unknown_session", lambda c, m: c.seal(m, sid=c.sid ^ 0x55)),
            ("header_only", lambda c, m: c.seal(m)[:52]),
            ("header_cut", lambda c, m: c.seal(m)[:30]),
            ("inner_names_other_session",
             lambda c, m: c.seal(c.req(ECHO, echo, sign=False,
                                       sid=c.sid + 1))),
            ("inner_not_smb2",
             lambda c, m: c.seal(b"\xffSMB" + m[4:])),
            ("inner_transform",
             lambda c, m: c.seal(c.seal(m))),
            ("old_key_after_logoff", None)):
        c = logon_sealed(srv.port)
        m = c.req(ECHO, echo, sign=False)
        if mk is None:
            r, _ = c.call_sealed(LOGOFF, struct.pack("<HH", 4, 0))
            data = c.seal(c.req(ECHO, echo, sign=False))
        else:
            data = mk(c, m)
            if name == "bad_tag":
                data[10] ^= 1
            elif name == "bad_ciphertext":
                data[-1] ^= 0x80
        c.send_raw(frame(bytes(data)))
        got = c.recv_sealed()
        check(f"encrypted_{name}_closes", got is None, repr(got))
        c.close()
        alive(f"encrypted_{name}")
    # a READ's data leaves sealed too (a file payload filled, then
    # encrypted), whole
    c = logon_sealed(srv.port, share="share")
    r, enc = c.call_sealed(CREATE, create_body("data", disposition=1))
    fid = fid_of(r)
    r, enc = c.call_sealed(READ, read_body(fid, 8192))
    off, ln = (struct.unpack_from("<BxI", r.body, 2) if r else (0, 0))
    check("sealed_read_8k", r is not None and enc and r.status == 0 and
          r.raw[off:off + ln] == b"D" * 8192, repr(r))
    c.call_sealed(CLOSE, close_body(fid))
    c.close()
    # Share.EncryptData: the tree connect says so; unencrypted requests on
    # it are refused (answered encrypted), encrypted ones served
    c = logon_sealed(srv.port)
    path = utf16("\\\\127.0.0.1\\sealed")
    r = c.call(TREE_CONNECT, struct.pack("<HHHH", 9, 0, 72, len(path)) +
               path)
    check("sealed_share_flag", r is not None and r.status == 0 and
          struct.unpack_from("<I", r.body, 4)[0] & 0x8000, repr(r))
    c.tid = r.tid if r else 0
    c.send_raw(frame(c.req(CREATE, create_body("x", disposition=3))))
    got = c.recv_sealed()
    check("sealed_share_unencrypted_create_refused",
          got is not None and got[1] and
          got[0][0].status == ST["ACCESS_DENIED"], repr(got))
    r, enc = c.call_sealed(CREATE, create_body("x", disposition=3))
    check("sealed_share_encrypted_create", r is not None and enc and
          r.status == 0, repr(r))
    c.close()
    # ... and a session that cannot encrypt is not let in
    c = logon(srv.port, share=False)
    expect("sealed_share_without_cipher_refused", c.tree_connect("sealed"),
           "ACCESS_DENIED")
    c.close()
    alive("encryption")


def t_multichannel():
    """MS-SMB2 3.3.5.5.2: a second connection bound to a session: signed
    with the session's key, refused when it is not, its own key after;
    the session outlives its first connection and ends with its last."""
    srv = T.srv
    a = logon(srv.port)
    fid = open_file(a, "mc.dat", disp=5)
    expect("multichannel_write_on_first",
           a.status(WRITE, write_body(fid, b"bound" * 10)), "SUCCESS")
    b = Conn(srv.port)
    b.negotiate()
    # unsigned, wrongly signed, an unknown session
    body = struct.pack("<HBBIIHHQ", 25, 1, 1, 1, 0, 88, 1, 0) + b"\0"
    expect("bind_unsigned",
           b.status(SESSION_SETUP, body, sign=False, sid=a.sid),
           "INVALID_PARAMETER")
    st, _, _ = b.bind(a.sid, a.key, req_key=b"\x55" * 16)
    expect("bind_bad_signature", st, "ACCESS_DENIED")
    st, _, _ = b.bind(a.sid ^ 0x77, a.key)
    expect("bind_unknown_session", st, "USER_SESSION_DELETED")
    st, _, _ = b.bind(a.sid, a.key, password="wrong-Pw-1")
    expect("bind_wrong_password", st, "LOGON_FAILURE")
    st, chan, rsps = b.bind(a.sid, a.key)
    expect("bind_ok", st, "SUCCESS")
    check("bind_steps_signed_with_session_key",
          len(rsps) == 2 and signature_ok(a.key, rsps[0].raw), repr(rsps))
    check("bind_last_answer_signed_with_channel_key",
          chan is not None and signature_ok(chan, rsps[-1].raw) and
          not signature_ok(a.key, rsps[-1].raw), repr(rsps))
    b.sid, b.key, b.tid = a.sid, chan, a.tid
    r = b.call(READ, read_body(fid, 50))
    off, ln = (struct.unpack_from("<BxI", r.body, 2) if r else (0, 0))
    check("bound_channel_reads_the_open", r is not None and r.status == 0
          and r.raw[off:off + ln] == b"bound" * 10 and
          signature_ok(chan, r.raw), repr(r))
    expect("bound_channel_refuses_session_key",
           b.status(ECHO, struct.pack("<HH", 4, 0), sign=False) and
           b.status(READ, sign_msg(a.key, b.req(READ, read_body(fid, 5),
                                                 sign=False))[64:],
                    sign=False),
           "ACCESS_DENIED")
    st, _, _ = b.bind(a.sid, a.key)
    expect("bind_again_refused", st, "ACCESS_DENIED")
    # the first connection goes; the session lives on the bound one
    a.close()
    time.sleep(0.3)
    r = b.call(READ, read_body(fid, 5))
    check("session_outlives_first_connection", r is not None and
          r.status == 0, repr(r))
    b.close()
    time.sleep(0.3)
    c = Conn(srv.port)
    c.negotiate()
    st, _, _ = c.bind(a.sid, a.key)
    expect("session_ends_with_last_channel", st, "USER_SESSION_DELETED",
           "ACCESS_DENIED")
    c.close()
    alive("multichannel")


def dh_open(c, name, ctx, oplock=9, share=0, disposition=5):
    body = bytearray(create_body(name, disposition, share=share, ctx=ctx))
    body[3] = oplock
    return c.call(CREATE, bytes(body))


def dh2q(guid, timeout=0):
    return (b"DH2Q", struct.pack("<II8s16s", timeout, 0, b"\0" * 8, guid))


def ctx_data(r, tag):
    """The data of response context @tag (its name is followed by 4 pad
    bytes, then the data), or None."""
    i = r.body.find(tag) if r is not None else -1
    return None if i < 0 else r.body[i + 8:]


def t_durable():
    """Durable handles (MS-SMB2 3.3.5.9.6-.12, 3.3.7.1): granted only
    with a batch oplock; a kept open is taken back by its FileId from a
    new connection with its data, refused while still open, by a forged
    FileId or a wrong CreateGuid; a conflicting open closes it; its
    scavenger closes it; malformed and mixed contexts are refused."""
    port = T.srv.port
    dhnq = (b"DHnQ", b"\0" * 16)
    a = logon(port)
    r = dh_open(a, "dur1.dat", create_ctx([dhnq]))
    check("durable_v1_granted", r is not None and r.status == 0 and
          r.body[2] == 9 and ctx_data(r, b"DHnQ") is not None, repr(r))
    fid = fid_of(r)
    r2 = dh_open(a, "dur_none.dat", create_ctx([dhnq]), oplock=0)
    check("durable_needs_batch", r2 is not None and r2.status == 0 and
          ctx_data(r2, b"DHnQ") is None, repr(r2))
    g = os.urandom(16)
    expect("durable_mixed_versions",
           a.status(CREATE, create_body("dur2.dat", 5,
                                        ctx=create_ctx([dhnq, dh2q(g)]))),
           "INVALID_PARAMETER")
    expect("durable_dh2q_short",
           a.status(CREATE, create_body("dur2.dat", 5, ctx=create_ctx(
               [(b"DH2Q", b"\0" * 31)]))), "INVALID_PARAMETER")
    expect("durable_dhnc_short",
           a.status(CREATE, create_body("dur2.dat", 1, ctx=create_ctx(
               [(b"DHnC", b"\0" * 8)]))), "INVALID_PARAMETER")
    expect("durable_reconnect_while_open",
           a.status(CREATE, create_body("dur1.dat", 1, ctx=create_ctx(
               [(b"DHnC", fid)]))), "OBJECT_NAME_NOT_FOUND")
    r = a.call(WRITE, write_body(fid, b"kept bytes"))
    check("durable_write", r is not None and r.status == 0, repr(r))
    # the connection goes: the open is kept for its client
    a.close()
    time.sleep(0.3)
    b = logon(port)
    expect("durable_reconnect_forged_fid",
           b.status(CREATE, create_body("dur1.dat", 1, ctx=create_ctx(
               [(b"DHnC", os.urandom(16))]))), "OBJECT_NAME_NOT_FOUND")
    expect("durable_reconnect_v2_of_v1",
           b.status(CREATE, create_body("dur1.dat", 1, ctx=create_ctx(
               [(b"DH2C", fid + g + b"\0" * 4)]))),
           "OBJECT_NAME_NOT_FOUND")
    # every other field is junk: only the context counts (as Samba)
    junk = bytearray(create_body("elsewhere.dat", 0x1234, access=0x5678,
                                 options=0xFFFFFFFF, share=0xFF,
                                 ctx=create_ctx([(b"DHnC", fid)])))
    struct.pack_into("<I", junk, 4, 0x12345678)  # impersonation
    r = b.call(CREATE, bytes(junk))
    check("durable_reconnect", r is not None and r.status == 0 and
          r.body[2] == 9 and fid_of(r)[:8] == fid[:8], repr(r))
    if r is not None and r.status == 0:
        fid2 = fid_of(r)
        r = b.call(READ, read_body(fid2, 64))
        check("durable_reconnect_keeps_data", r is not None and
              r.status == 0 and r.body[16:26] == b"kept bytes", repr(r))
        # kept again, then another open breaks it: it closes, the other
        # open goes ahead, and the reconnect finds nothing
        b.close()
        time.sleep(0.3)
        c = logon(port)
        t0 = time.time()
        r = c.call(CREATE, create_body("dur1.dat", 1, share=0))
        check("durable_kept_open_yields", r is not None and
              r.status == 0 and time.time() - t0 < 5, repr(r))
        if r is not None and r.status == 0:
            c.status(CLOSE, close_body(fid_of(r)))
        expect("durable_reconnect_after_break",
               c.status(CREATE, create_body("dur1.dat", 1, ctx=create_ctx(
                   [(b"DHnC", fid2)]))), "OBJECT_NAME_NOT_FOUND")
        c.close()
    else:
        b.close()
    # version 2: timeout capped, CreateGuid unique, the scavenger
    d = logon(port)
    g = os.urandom(16)
    r = dh_open(d, "dur3.dat", create_ctx([dh2q(g, 0xFFFFFFFF)]))
    data = ctx_data(r, b"DH2Q")
    check("durable_v2_granted_capped", data is not None and
          struct.unpack_from("<I", data)[0] == 300000, repr(r))
    fid3 = fid_of(r) if r is not None else None
    r = dh_open(d, "dur4.dat", create_ctx([dh2q(g)]))
    expect("durable_v2_duplicate_guid", r and r.status,
           "DUPLICATE_OBJECTID")
    # the same CREATE replayed (SMB2_FLAGS_REPLAY_OPERATION): its open
    body = bytearray(create_body("dur3.dat", 5, share=0,
                                 ctx=create_ctx([dh2q(g, 0xFFFFFFFF)])))
    body[3] = 9
    r = d.call(CREATE, bytes(body), flags=0x20000000)
    check("durable_v2_replay_same_open", r is not None and r.status == 0 and
          fid_of(r) == fid3 and ctx_data(r, b"DH2Q") is not None, repr(r))
    g2 = os.urandom(16)
    r = dh_open(d, "dur5.dat", create_ctx([dh2q(g2, 1000)]))
    check("durable_v2_short_timeout", r is not None and r.status == 0 and
          ctx_data(r, b"DH2Q") is not None, repr(r))
    fid5 = fid_of(r) if r is not None else b"\0" * 16
    d.close()
    time.sleep(2.5)
    e = logon(port)
    expect("durable_v2_scavenged",
           e.status(CREATE, create_body("dur5.dat", 1, ctx=create_ctx(
               [(b"DH2C", fid5 + g2 + b"\0" * 4)]))),
           "OBJECT_NAME_NOT_FOUND")
    t0 = time.time()
    r = e.call(CREATE, create_body("dur5.dat", 1, share=0))
    check("durable_v2_scavenged_share_gone", r is not None and
          r.status == 0 and time.time() - t0 < 1, repr(r))
    e.close()
    alive("durable")


def t_parked_at_stop():
    """Leave a CREATE parked on an oplock break that its holder never
    answers (its client stops reading): SIGTERM must not wait for the
    break's 35 s timeout (main() times the stop)."""
    a = logon(T.srv.port)
    body = bytearray(create_body("parked.dat", disposition=5))
    body[3] = 9  # RequestedOplockLevel: batch
    r = a.call(CREATE, bytes(body))
    check("parked_holder_gets_batch", r is not None and r.status == 0 and
          r.body[2] == 9, repr(r))
    b = logon(T.srv.port)
    b.send_raw(frame(b.req(CREATE, create_body("parked.dat",
                                                disposition=1))))
    time.sleep(0.5)
    T.keep = (a, b)  # both stay open; a never reads its break


def t_create(c):
    srv = T.srv
    outside_before = snapshot(srv.outside)
    share_root = set(os.listdir(srv.share))
    name = utf16("newfile")
    cases = [
        ("name_offset_in_fixed_part", create_body(name, 2, name_off=100)),
        ("name_offset_past_end", create_body(name, 2, name_off=4000)),
        ("name_length_past_end", create_body(name, 2, name_len=200)),
        ("name_offset_0xffff", create_body(name, 2, name_off=0xFFFF,
                                           name_len=0xFFFF)),
        ("name_leading_backslash", create_body("\\etc\\passwd", 2)),
        ("name_leading_slash", create_body("/etc/passwd", 2)),
    ]
    for n, body in cases:
        expect(f"create_{n}", c.status(CREATE, body), "INVALID_PARAMETER")
    expect("create_odd_length_name",
           c.status(CREATE, create_body(name + b"x", 2)),
           "OBJECT_NAME_INVALID")
    expect("create_odd_length_name_by_length",
           c.status(CREATE, create_body(name, 2, name_len=7)),
           "OBJECT_NAME_INVALID")
    expect("create_unpaired_surrogate",
           c.status(CREATE, create_body(b"a\0\x00\xd8b\0", 2)),
           "OBJECT_NAME_INVALID")
    bad = [
        ("dotdot", "..", "OBJECT_PATH_SYNTAX_BAD"),
        ("dotdot_etc_passwd", "..\\..\\etc\\passwd",
         "OBJECT_PATH_SYNTAX_BAD"),
        ("dotdot_outside_canary", "..\\outside\\canary",
         "OBJECT_PATH_SYNTAX_BAD"),
        ("dir_dotdot_dotdot", "dir\\..\\..\\outside\\new",
         "OBJECT_PATH_SYNTAX_BAD"),
        ("dot", "dir\\.\\x", "OBJECT_PATH_SYNTAX_BAD"),
        ("forward_dotdot", "dir/../../outside/new",
         "OBJECT_PATH_SYNTAX_BAD", "OBJECT_NAME_INVALID"),
        ("drive_letter", "C:\\etc\\passwd", "OBJECT_NAME_INVALID"),
        ("unc", "\\\\host\\share\\x", "INVALID_PARAMETER"),
        ("embedded_nul", "new\0file", "OBJECT_NAME_INVALID"),
        ("nul_then_dotdot", "x\0\\..\\..\\etc", "OBJECT_NAME_INVALID"),
        ("stream_type", "data:evil:$BAD", "OBJECT_NAME_INVALID"),
        ("stream_slash", "data:../../etc/passwd", "OBJECT_NAME_INVALID"),
        ("stream_through_symlink", "link\\canary:evil",
         "OBJECT_PATH_NOT_FOUND", "STOPPED_ON_SYMLINK", "ACCESS_DENIED",
         "NOT_A_DIRECTORY"),
        ("stream_of_symlink", "flink:evil", "ACCESS_DENIED"),
        ("empty_component", "dir\\\\x", "OBJECT_NAME_INVALID"),
        ("wildcard", "x*", "OBJECT_NAME_INVALID"),
        ("control_char", "x\x01", "OBJECT_NAME_INVALID"),
        ("component_256", "a" * 256, "OBJECT_NAME_INVALID",
         "NAME_TOO_LONG"),
        ("through_symlink", "link\\canary", "OBJECT_PATH_NOT_FOUND",
         "STOPPED_ON_SYMLINK", "ACCESS_DENIED", "NOT_A_DIRECTORY"),
        ("through_symlink_new", "link\\new", "OBJECT_PATH_NOT_FOUND",
         "STOPPED_ON_SYMLINK", "ACCESS_DENIED", "NOT_A_DIRECTORY"),
        ("file_symlink_open", "flink", "ACCESS_DENIED",
         "STOPPED_ON_SYMLINK", "OBJECT_NAME_COLLISION"),
    ]
    for n, path, *want in bad:
        for disp in (1, 2, 5):
            st = c.status(CREATE, create_body(path, disp, access=0x12019F))
            expect(f"create_{n}_disp{disp}", st, *want)
    # a symlink opened for overwrite must not truncate its target
    st = c.status(CREATE, create_body("flink", 4))
    expect("create_overwrite_file_symlink", st, "ACCESS_DENIED",
           "STOPPED_ON_SYMLINK")
    st = c.status(CREATE, create_body("link", 1, options=1))
    expect("create_dir_symlink_as_dir", st, "ACCESS_DENIED",
           "STOPPED_ON_SYMLINK", "NOT_A_DIRECTORY", "OBJECT_PATH_NOT_FOUND")
    # the longest name a CREATE can carry: 32767 characters
    long = b"a\0" * 32767
    st = c.status(CREATE, create_body(long, 2))
    expect("create_name_32767_chars", st, "OBJECT_NAME_INVALID",
           "NAME_TOO_LONG")

    # malformed create contexts: the CREATE fails, nothing is made
    mx = (b"MxAc", b"")
    good_ctx = create_ctx([mx])
    r = c.call(CREATE, create_body("ctx_ok", 2, ctx=good_ctx))
    ok = r is not None and r.status == 0
    check("create_context_mxac_answered", ok and
          struct.unpack_from("<I", r.body, 84)[0] > 0, repr(r))
    if ok:
        c.status(CLOSE, close_body(fid_of(r)))

    def patched(fmt, off, val, base=good_ctx):
        b = bytearray(base)
        struct.pack_into(fmt, b, off, val)
        return bytes(b)

    two = create_ctx([mx, (b"QFid", b"")])
    rqls = create_ctx([(b"RqLs", b"\0" * 20)])
    cctx = [
        ("ctx_offset_unaligned", dict(ctx=good_ctx, ctx_off=133)),
        ("ctx_offset_in_fixed_part", dict(ctx=good_ctx, ctx_off=64)),
        ("ctx_offset_past_end", dict(ctx=good_ctx, ctx_off=8192)),
        ("ctx_length_past_end", dict(ctx=good_ctx, ctx_len=4096)),
        ("ctx_length_short", dict(ctx=good_ctx, ctx_len=12)),
        ("ctx_length_0xffffffff", dict(ctx=good_ctx, ctx_len=0xFFFFFFFF)),
        ("ctx_name_offset_past", dict(ctx=patched("<H", 4, 200))),
        ("ctx_name_offset_in_header", dict(ctx=patched("<H", 4, 2))),
        ("ctx_name_length_0", dict(ctx=patched("<H", 6, 0))),
        ("ctx_name_length_past", dict(ctx=patched("<H", 6, 300))),
        ("ctx_data_length_past", dict(ctx=patched("<I", 12, 4096))),
        ("ctx_data_overlaps_name", dict(
            ctx=create_ctx([(b"AlSi", b"\0" * 8)])[:10] + b"\x10\x00" +
            create_ctx([(b"AlSi", b"\0" * 8)])[12:])),
        ("ctx_data_offset_unaligned", dict(
            ctx=create_ctx([(b"AlSi", b"\0" * 8)])[:10] + b"\x19\x00" +
            create_ctx([(b"AlSi", b"\0" * 8)])[12:] + b"\0")),
        ("ctx_next_unaligned", dict(ctx=patched("<I", 0, 17, two))),
        ("ctx_next_inside_header", dict(ctx=patched("<I", 0, 8, two))),
        ("ctx_next_past_end", dict(ctx=patched("<I", 0, 4096, two))),
        ("ctx_next_0xfffffff8", dict(ctx=patched("<I", 0, 0xFFFFFFF8,
                                                 two))),
        ("ctx_duplicate", dict(ctx=create_ctx([mx, mx]))),
        ("ctx_rqls_wrong_size", dict(ctx=rqls)),
        ("ctx_alsi_wrong_size", dict(ctx=create_ctx([(b"AlSi", b"\0" * 4)]))),
        ("ctx_dhnq_wrong_size", dict(ctx=create_ctx([(b"DHnQ", b"\0" * 8)]))),
        ("ctx_dh2q_wrong_size", dict(ctx=create_ctx([(b"DH2Q", b"\0" * 8)]))),
        ("ctx_mxac_wrong_size", dict(ctx=create_ctx([(b"MxAc", b"\0" * 4)]))),
        ("ctx_qfid_with_data", dict(ctx=create_ctx([(b"QFid", b"\0" * 8)]))),
        ("ctx_secd_empty", dict(ctx=patched("<4s", 16, b"SecD"))),
        ("ctx_exta_malformed", dict(ctx=create_ctx(
            [(b"ExtA", struct.pack("<IBBH", 0, 0, 200, 0) + b"ab")]))),
        ("ctx_truncated_header", dict(ctx=good_ctx[:12])),
    ]
    for i, (n, kw) in enumerate(cctx):
        fname = f"ctx_bad_{i}"
        st = c.status(CREATE, create_body(fname, 2, **kw))
        expect(f"create_{n}", st, "INVALID_PARAMETER",
               *(("EA_LIST_INCONSISTENT",) if "exta" in n else ()))
        check(f"create_{n}_made_nothing",
              not os.path.exists(os.path.join(srv.share, fname)),
              "file created")
    check("create_cases_touched_nothing_outside",
          snapshot(srv.outside) == outside_before, "outside changed")
    new = set(os.listdir(srv.share)) - share_root - {"ctx_ok"}
    check("create_cases_made_nothing_in_share", not new, repr(new))


def open_file(c, name, disp=3, access=0x12019F):
    r = c.call(CREATE, create_body(name, disp, access=access))
    if r is None or r.status:
        raise RuntimeError(f"open {name}: {r}")
    return fid_of(r)


def t_rw(c):
    srv = T.srv
    fid = open_file(c, "data")
    data_before = open(os.path.join(srv.share, "data"), "rb").read()
    # WRITE DataOffset / Length outside the message
    for n, kw in (("data_offset_in_header", dict(doff=40)),
                  ("data_offset_in_fixed", dict(doff=100)),
                  ("data_offset_past_end", dict(doff=200)),
                  ("data_offset_0xffff", dict(doff=0xFFFF)),
                  ("length_past_end", dict(length=1000)),
                  ("length_0xffffffff", dict(length=0xFFFFFFFF)),
                  ("length_8MiB+1", dict(length=(8 << 20) + 1))):
        st = c.status(WRITE, write_body(fid, b"evil" * 4, **kw))
        expect(f"write_{n}", st, "INVALID_PARAMETER")
    # Windows over SMB2 (smbtorture smb2.rw.invalid): all ones is no
    # "write at the end" here, and nothing lands past MAXFILESIZE
    for n, off in (("offset_2^64-1", (1 << 64) - 1),
                   ("offset_2^64-2", (1 << 64) - 2),
                   ("offset_2^63", 1 << 63),
                   ("offset_2^63-1", (1 << 63) - 1),
                   ("offset_maxfilesize", 0xFFFFFFF0000),
                   ("offset_maxfilesize-1", 0xFFFFFFF0000 - 1)):
        st = c.status(WRITE, write_body(fid, b"evil", offset=off))
        expect(f"write_{n}", st, "INVALID_PARAMETER")
    for n, off in (("offset_2^63-1", (1 << 63) - 1),
                   ("offset_maxfilesize", 0xFFFFFFF0000)):
        st = c.status(WRITE, write_body(fid, b"", offset=off))
        expect(f"write_empty_{n}", st, "SUCCESS")
    st = c.status(WRITE, write_body(fid, b"", offset=1 << 63))
    expect("write_empty_offset_2^63", st, "INVALID_PARAMETER")
    check("write_cases_left_data", open(os.path.join(srv.share, "data"),
                                        "rb").read() == data_before,
          "data changed")
    # CreditCharge below the payload (§3.3.5.2.5)
    big = b"W" * (64 << 10) + b"!"
    st = c.status(WRITE, write_body(fid, big), charge=1, credits=64)
    expect("write_65537_charge_1", st, "INVALID_PARAMETER")
    st = c.status(WRITE, write_body(fid, big), charge=2, credits=64)
    expect("write_65537_charge_2", st, "SUCCESS")
    st = c.status(READ, read_body(fid, (64 << 10) + 1), charge=1)
    expect("read_65537_charge_1", st, "INVALID_PARAMETER")
    r = c.call(READ, read_body(fid, (64 << 10) + 1), charge=2)
    check("read_65537_charge_2", r is not None and r.status == 0 and
          struct.unpack_from("<I", r.body, 4)[0] == (64 << 10) + 1, repr(r))
    st = c.status(READ, read_body(fid, 100), charge=0)
    expect("read_100_charge_0", st, "SUCCESS")
    # READ lengths and offsets
    st = c.status(READ, read_body(fid, (8 << 20) + 1), charge=129)
    expect("read_length_8MiB+1", st, "INVALID_PARAMETER")
    st = c.status(READ, read_body(fid, 0xFFFFFFFF), charge=1)
    expect("read_length_0xffffffff", st, "INVALID_PARAMETER")
    for n, off in (("2^64-1", (1 << 64) - 1), ("2^63", 1 << 63),
                   ("2^63-1", (1 << 63) - 1)):
        st = c.status(READ, read_body(fid, 16, offset=off))
        expect(f"read_offset_{n}", st, "INVALID_PARAMETER", "END_OF_FILE")
    st = c.status(READ, read_body(fid, 16, offset=1 << 62))
    expect("read_offset_2^62", st, "END_OF_FILE")
    st = c.status(READ, read_body(fid, 16, minimum=1 << 20))
    expect("read_minimum_beyond_length", st, "END_OF_FILE",
           "INVALID_PARAMETER")
    # a READ whose fixed part is cut
    st = c.status(READ, read_body(fid, 16)[:30])
    expect("read_body_truncated", st, "INVALID_PARAMETER")
    c.status(CLOSE, close_body(fid))


def t_info(c):
    srv = T.srv
    # DELETE access too: a rename needs it (MS-FSA 2.1.5.14.11)
    fid = open_file(c, "data", access=0x13019F)
    st = c.status(QUERY_INFO, qinfo_body(fid, outlen=0xFFFFFFFF), charge=1)
    expect("query_info_output_0xffffffff", st, "INVALID_PARAMETER")
    st = c.status(QUERY_INFO, qinfo_body(fid, outlen=0))
    expect("query_info_output_0", st, "INFO_LENGTH_MISMATCH")
    st = c.status(QUERY_INFO, qinfo_body(fid, cls=18, outlen=10))
    expect("query_info_all_information_10", st, "INFO_LENGTH_MISMATCH",
           "BUFFER_OVERFLOW")
    st = c.status(QUERY_INFO, qinfo_body(fid, outlen=1 << 20), charge=1)
    expect("query_info_1MiB_charge_1", st, "INVALID_PARAMETER")
    st = c.status(QUERY_INFO, qinfo_body(fid, outlen=1 << 20), charge=16)
    expect("query_info_1MiB_charge_16", st, "SUCCESS")
    st = c.status(QUERY_INFO, qinfo_body(fid, in_off=0xFFFF, in_len=100))
    expect("query_info_input_past_end", st, "INVALID_PARAMETER")
    st = c.status(QUERY_INFO, qinfo_body(fid, in_off=104,
                                         in_len=0xFFFFFFFF))
    expect("query_info_input_0xffffffff", st, "INVALID_PARAMETER")
    st = c.status(QUERY_INFO, qinfo_body(fid, itype=9))
    expect("query_info_bad_type", st, "INVALID_PARAMETER",
           "INVALID_INFO_CLASS")
    st = c.status(QUERY_INFO, qinfo_body(fid, cls=0xFF))
    expect("query_info_bad_class", st, "INVALID_INFO_CLASS",
           "INVALID_PARAMETER", "NOT_SUPPORTED")
    st = c.status(QUERY_INFO, qinfo_body(fid, itype=3, outlen=4))
    expect("query_security_4_bytes", st, "BUFFER_TOO_SMALL")

    # SET_INFO rename (FileRenameInformation, class 10)
    def rename(target, name_len=None, buf_len=None, off=96):
        n = utf16(target) if isinstance(target, str) else target
        info = struct.pack("<B7xQI", 0, 0,
                           len(n) if name_len is None else name_len) + n
        return setinfo_body(fid, info, cls=10, off=off, length=buf_len)

    outside_before = snapshot(srv.outside)
    for n, kw, want in (
            ("name_length_past_buffer", dict(target="x", name_len=400),
             ("INVALID_PARAMETER", "INFO_LENGTH_MISMATCH")),
            ("name_length_0xffffffff", dict(target="x",
                                            name_len=0xFFFFFFFF),
             ("INVALID_PARAMETER", "INFO_LENGTH_MISMATCH")),
            ("name_length_odd", dict(target="xy", name_len=3),
             ("INVALID_PARAMETER", "OBJECT_NAME_INVALID")),
            ("name_length_0", dict(target="", name_len=0),
             ("INVALID_PARAMETER", "OBJECT_NAME_INVALID",
              "INFO_LENGTH_MISMATCH")),
            ("buffer_length_past_end", dict(target="x", buf_len=4000),
             ("INVALID_PARAMETER",)),
            ("buffer_offset_in_fixed", dict(target="x", off=64),
             ("INVALID_PARAMETER",)),
            ("buffer_short", dict(target="x", buf_len=10),
             ("INVALID_PARAMETER", "INFO_LENGTH_MISMATCH")),
            ("target_dotdot", dict(target="..\\outside\\stolen"),
             ("OBJECT_PATH_SYNTAX_BAD", "OBJECT_NAME_INVALID")),
            ("target_absolute", dict(target="\\..\\..\\tmp\\stolen"),
             ("OBJECT_PATH_SYNTAX_BAD", "OBJECT_NAME_INVALID",
              "INVALID_PARAMETER")),
            ("target_through_symlink", dict(target="link\\stolen"),
             ("OBJECT_PATH_NOT_FOUND", "ACCESS_DENIED", "NOT_A_DIRECTORY",
              "STOPPED_ON_SYMLINK", "NOT_SAME_DEVICE")),
            ("target_nul", dict(target="a\0b"),
             ("OBJECT_NAME_INVALID",)),
            ("target_stream", dict(target="x:y"),
             ("OBJECT_NAME_INVALID", "NOT_SUPPORTED",
              "INVALID_PARAMETER"))):
        st = c.status(SET_INFO, rename(**kw))
        expect(f"set_info_rename_{n}", st, *want)
    check("rename_cases_left_data", os.path.exists(
        os.path.join(srv.share, "data")), "data renamed away")
    check("rename_cases_touched_nothing_outside",
          snapshot(srv.outside) == outside_before, "outside changed")
    # other SET_INFO classes with short buffers
    for cls, ln in ((4, 10), (20, 4), (19, 7), (13, 0), (14, 3)):
        st = c.status(SET_INFO, setinfo_body(fid, b"\0" * ln, cls=cls))
        expect(f"set_info_class_{cls}_length_{ln}", st,
               "INFO_LENGTH_MISMATCH", "INVALID_PARAMETER")
    st = c.status(SET_INFO, setinfo_body(fid, b"\0" * 16, itype=3,
                                         cls=0))
    expect("set_info_security_garbage", st, "INVALID_PARAMETER",
           "INVALID_SECURITY_DESCR")
    st = c.status(SET_INFO, setinfo_body(fid, b"\0" * 8, itype=9))
    expect("set_info_bad_type", st, "INVALID_PARAMETER",
           "INVALID_INFO_CLASS")
    c.status(CLOSE, close_body(fid))

    # QUERY_DIRECTORY
    r = c.call(CREATE, create_body("dir", 1, options=1, access=0x100081))
    dfid = fid_of(r)
    for n, kw in (("pattern_past_end", dict(name_len=400)),
                  ("pattern_offset_in_fixed", dict(name_off=80)),
                  ("pattern_offset_past", dict(name_off=4000)),
                  ("output_0", dict(outlen=0)),
                  ("output_0xffffffff", dict(outlen=0xFFFFFFFF))):
        st = c.status(QUERY_DIRECTORY, qdir_body(dfid, **kw))
        expect(f"query_directory_{n}", st, "INVALID_PARAMETER")
    st = c.status(QUERY_DIRECTORY, qdir_body(dfid, outlen=1 << 20),
                  charge=1)
    expect("query_directory_1MiB_charge_1", st, "INVALID_PARAMETER")
    st = c.status(QUERY_DIRECTORY, qdir_body(dfid, outlen=1 << 20),
                  charge=16)
    expect("query_directory_1MiB_charge_16", st, "SUCCESS",
           "NO_MORE_FILES")
    st = c.status(QUERY_DIRECTORY, qdir_body(dfid, "*", cls=0xEE))
    expect("query_directory_bad_class", st, "INVALID_INFO_CLASS")
    st = c.status(QUERY_DIRECTORY, qdir_body(dfid, "x", name_len=1,
                                             flags=1))
    expect("query_directory_odd_pattern", st, "OBJECT_NAME_INVALID",
           "INVALID_PARAMETER")
    st = c.status(QUERY_DIRECTORY, qdir_body(dfid, "*", outlen=8, flags=1))
    expect("query_directory_output_8", st, "INFO_LENGTH_MISMATCH")
    st = c.status(QUERY_DIRECTORY, qdir_body(dfid, "<" * 3000, flags=1))
    expect("query_directory_long_pattern", st, "SUCCESS",
           "NO_MORE_FILES", "OBJECT_NAME_INVALID")
    c.status(CLOSE, close_body(dfid))
    # LOCK
    fid = open_file(c, "data")
    st = c.status(LOCK, lock_body(fid, [], count=0))
    expect("lock_count_0", st, "INVALID_PARAMETER")
    st = c.status(LOCK, lock_body(fid, [(0, 1, 2 | 0x10)], count=65535))
    expect("lock_count_65535_one_element", st, "INVALID_PARAMETER")
    st = c.status(LOCK, lock_body(fid, [(0, 1, 2 | 0x10)] * 3, count=4))
    expect("lock_count_past_elements", st, "INVALID_PARAMETER")
    st = c.status(LOCK, lock_body(fid, [((1 << 63) + 1, 1 << 63,
                                         2 | 0x10)]))
    expect("lock_range_wraps", st, "INVALID_LOCK_RANGE")
    # ending exactly at 2^64 does not wrap (MS-FSA 2.1.5.7)
    st = c.status(LOCK, lock_body(fid, [(1 << 63, 1 << 63, 2 | 0x10)]))
    expect("lock_range_to_2^64", st, "SUCCESS")
    st = c.status(LOCK, lock_body(fid, [(1 << 63, 1 << 63, 4)]))
    expect("unlock_range_to_2^64", st, "SUCCESS")
    st = c.status(LOCK, lock_body(fid, [(0, 1, 0)]))
    expect("lock_flags_0", st, "INVALID_PARAMETER")
    st = c.status(LOCK, lock_body(fid, [(0, 1, 3 | 0x10)]))
    expect("lock_shared_and_exclusive", st, "INVALID_PARAMETER")
    st = c.status(LOCK, lock_body(fid, [(0, 1, 4)]))
    expect("unlock_not_locked", st, "RANGE_NOT_LOCKED")
    # 1000 locks in one request (most a message holds): taken, released
    locks = [(i * 2, 1, 2 | 0x10) for i in range(1000)]
    st = c.status(LOCK, lock_body(fid, locks))
    expect("lock_1000_elements", st, "SUCCESS", "INVALID_PARAMETER")
    if st == 0:
        st = c.status(LOCK, lock_body(fid, [(o, ln, 4)
                                            for o, ln, _ in locks]))
        expect("unlock_1000_elements", st, "SUCCESS")
    c.status(CLOSE, close_body(fid))


def stream_list(raw):
    """FileStreamInformation entries: [(name, size)]."""
    out, off = [], 0
    while raw:
        nxt, nlen, size, _alloc = struct.unpack_from("<IIqq", raw, off)
        out.append((raw[off + 24:off + 24 + nlen].decode("utf-16-le"), size))
        if not nxt:
            return out
        off += nxt


def t_streams(c):
    """Named streams (user.DosStream.NAME:$DATA xattrs, Samba's layout):
    made with their file, read and written at offsets, listed, sized,
    deleted on close, names checked, share modes per stream, a compound
    READ of one padded; and what a stream cannot be."""
    srv = T.srv
    path = os.path.join(srv.share, "sfile")
    r = c.call(CREATE, create_body("sfile:zone", 2, access=0x13019F))
    expect("stream_create_makes_file", r and r.status, "SUCCESS")
    if not r or r.status:
        return
    fid = fid_of(r)
    check("stream_base_file_made", os.path.isfile(path))
    expect("stream_write_at_10",
           c.status(WRITE, write_body(fid, b"abc", offset=10)), "SUCCESS")
    r = c.call(READ, read_body(fid, 100))
    got = r.body[16:16 + struct.unpack_from("<I", r.body, 4)[0]] if r else b""
    check("stream_read_back", got == b"\0" * 10 + b"abc", repr(got))
    check("stream_kept_as_samba_keeps_it",
          os.getxattr(path, "user.DosStream.zone:$DATA") ==
          b"\0" * 10 + b"abc\0")
    check("stream_leaves_file_data", os.path.getsize(path) == 0)
    r = c.call(QUERY_INFO, qinfo_body(fid, cls=5))  # FileStandardInformation
    check("stream_end_of_file_13", r is not None and r.status == 0 and
          struct.unpack_from("<q", r.body, 16)[0] == 13, repr(r))
    # past the largest xattr value: DISK_FULL, nothing changed
    expect("stream_write_past_64k",
           c.status(WRITE, write_body(fid, b"x", offset=65535)),
           "DISK_FULL")
    expect("stream_write_at_2^40",
           c.status(WRITE, write_body(fid, b"x", offset=1 << 40)),
           "DISK_FULL")
    expect("stream_write_at_2^62_past_maxfilesize",
           c.status(WRITE, write_body(fid, b"x", offset=1 << 62)),
           "INVALID_PARAMETER")
    r = c.call(READ, read_body(fid, 4, offset=13))
    expect("stream_read_at_end", r and r.status, "END_OF_FILE")
    # the same stream by another spelling, and its share modes
    r = c.call(CREATE, create_body("SFILE:ZONE:$DaTa", 1, share=0))
    expect("stream_open_ignores_case", r and r.status, "SHARING_VIOLATION")
    r = c.call(CREATE, create_body("sfile:other", 2, share=0))
    expect("stream_other_stream_shares_nothing", r and r.status, "SUCCESS")
    fid2 = fid_of(r) if r and not r.status else None
    r = c.call(CREATE, create_body("sfile", 1))
    expect("stream_file_open_beside_streams", r and r.status, "SUCCESS")
    if r and not r.status:
        bfid = fid_of(r)
        r = c.call(QUERY_INFO, qinfo_body(bfid, cls=22))
        names = stream_list(r.body[8:8 + struct.unpack_from("<I", r.body, 4)[0]]) \
            if r and not r.status else []
        check("stream_list", sorted(names) ==
              [("::$DATA", 0), (":other:$DATA", 0), (":zone:$DATA", 13)],
              repr(names))
        c.status(CLOSE, close_body(bfid))
    # size by EndOfFile, then delete on close: the xattr goes, the
    # file stays
    expect("stream_set_eof_5", c.status(SET_INFO, setinfo_body(
        fid, struct.pack("<q", 5), cls=20)), "SUCCESS")
    check("stream_cut_to_5", os.getxattr(
        path, "user.DosStream.zone:$DATA") == b"\0" * 5 + b"\0")
    expect("stream_delete_on_close", c.status(SET_INFO, setinfo_body(
        fid, b"\1", cls=13)), "SUCCESS")
    c.status(CLOSE, close_body(fid))
    check("stream_deleted", "user.DosStream.zone:$DATA" not in
          os.listxattr(path) and os.path.isfile(path))
    if fid2:
        c.status(CLOSE, close_body(fid2))
    # names and what a stream is not
    for n, name, want in (
            ("empty_name", "sfile:", "OBJECT_NAME_INVALID"),
            ("bad_type", "sfile:s:$FOO", "OBJECT_NAME_INVALID"),
            ("type_only_colon", "sfile:s:", "OBJECT_NAME_INVALID"),
            ("slash", "sfile:a/b", "OBJECT_NAME_INVALID"),
            ("backslash_after", "sfile:a\\b", "OBJECT_NAME_INVALID"),
            ("colon_in_dir", "dir:x\\f", "OBJECT_NAME_INVALID"),
            ("too_long", "sfile:" + "n" * 235, "OBJECT_NAME_INVALID"),
            ("missing_stream", "sfile:nothere", "OBJECT_NAME_NOT_FOUND"),
            ("missing_file", "nofile:s", "OBJECT_NAME_NOT_FOUND"),
            ("symlink", "flink:s", "ACCESS_DENIED")):
        r = c.call(CREATE, create_body(name, 1))
        expect(f"stream_{n}", r and r.status, want)
    r = c.call(CREATE, create_body("sfile:d", 2, options=0x1))
    expect("stream_directory_file", r and r.status, "NOT_A_DIRECTORY")
    r = c.call(CREATE, create_body("sfile::$DATA", 1))
    expect("stream_unnamed_is_the_file", r and r.status, "SUCCESS")
    if r and not r.status:
        c.status(CLOSE, close_body(fid_of(r)))
    check("stream_nothing_outside", not any(
        x.startswith("user.DosStream") for x in
        os.listxattr(os.path.join(srv.outside, "canary"))))
    # renaming a stream: to a new name, onto an empty one with replace,
    # not onto a non-empty one, never to a file name
    def srename(fid, target, replace=False):
        n = utf16(target)
        return c.status(SET_INFO, setinfo_body(fid, struct.pack(
            "<B7xQI", int(replace), 0, len(n)) + n, cls=10))
    r = c.call(CREATE, create_body("sfile:old", 2, access=0x13019F))
    if r and not r.status:
        rfid = fid_of(r)
        c.status(WRITE, write_body(rfid, b"keep"))
        expect("stream_rename", srename(rfid, ":new:$DATA"), "SUCCESS")
        names = [x for x in os.listxattr(path) if "DosStream" in x]
        check("stream_renamed_on_disk", "user.DosStream.new:$DATA" in names
              and "user.DosStream.old:$DATA" not in names, repr(names))
        r2 = c.call(READ, read_body(rfid, 10))
        check("stream_renamed_open_reads", r2 is not None and r2.status == 0
              and r2.body[16:20] == b"keep", repr(r2))
        r3 = c.call(CREATE, create_body("sfile:full", 2))
        if r3 and not r3.status:
            c.status(WRITE, write_body(fid_of(r3), b"x"))
            c.status(CLOSE, close_body(fid_of(r3)))
        expect("stream_rename_onto_existing_no_replace",
               srename(rfid, ":full"), "OBJECT_NAME_COLLISION")
        expect("stream_rename_onto_nonempty",
               srename(rfid, ":full", True), "INVALID_PARAMETER")
        expect("stream_rename_to_file_name", srename(rfid, "other"),
               "INVALID_PARAMETER")
        expect("stream_rename_bad_name", srename(rfid, ":a/b"),
               "OBJECT_NAME_INVALID")
        c.status(CLOSE, close_body(rfid))
        check("stream_rename_kept_full", os.getxattr(
            path, "user.DosStream.full:$DATA") == b"x\0")
    # a directory's stream
    r = c.call(CREATE, create_body("dir:ds", 2))
    expect("stream_of_directory", r and r.status, "SUCCESS")
    if r and not r.status:
        expect("stream_of_directory_write", c.status(
            WRITE, write_body(fid_of(r), b"xyz")), "SUCCESS")
        c.status(CLOSE, close_body(fid_of(r)))
    # a compounded READ of a stream is padded to 8 bytes (as Windows
    # and Samba: smbtorture compound.compound-padding)
    ff = b"\xff" * 16
    rs = c.compound([(CREATE, create_body("dir:ds", 1), 0),
                     (READ, read_body(ff, 3), FLAG_RELATED),
                     (CLOSE, close_body(ff), FLAG_RELATED)]) or []
    check("stream_compound_read_padded", len(rs) == 3 and
          len(rs[1].raw) == 64 + 24 and rs[2].status == 0, repr(rs))
    alive("streams")


def sid_b(text):
    """S-1-a-b-... as bytes (MS-DTYP 2.4.2.2)."""
    f = text.split("-")
    subs = [int(x) for x in f[3:]]
    return (struct.pack("<BB", int(f[1]), len(subs)) +
            int(f[2]).to_bytes(6, "big") +
            b"".join(struct.pack("<I", x) for x in subs))


def ace_b(kind, flags, mask, sid):
    s = sid_b(sid)
    return struct.pack("<BBHI", kind, flags, 8 + len(s), mask) + s


def acl_b(aces):
    body = b"".join(aces)
    return struct.pack("<BBHHH", 2, 0, 8 + len(body), len(aces), 0) + body


def sd_b(owner=None, group=None, dacl=None, control=0x8004):
    """A self-relative descriptor: header, owner, group, DACL."""
    parts, offs, at = b"", [0, 0, 0], 20
    for i, x in enumerate((owner and sid_b(owner), group and sid_b(group),
                           dacl)):
        if x:
            offs[i] = at
            parts += x
            at += len(x)
    return struct.pack("<BBHIIII", 1, 0, control, offs[0], offs[1], 0,
                       offs[2]) + parts


def sd_parts(raw):
    """(control, owner bytes, group bytes, DACL bytes) of a descriptor."""
    _, _, ctl, oo, go, _, do = struct.unpack_from("<BBHIIII", raw)

    def sid_at(o):
        return raw[o:o + 8 + 4 * raw[o + 1]] if o else None
    dacl = raw[do:do + struct.unpack_from("<H", raw, do + 2)[0]] \
        if do else None
    return ctl, sid_at(oo), sid_at(go), dacl


def sec_set(c, fid, secinfo, sd):
    body = struct.pack("<HBBIHHI16s", 33, 3, 0, len(sd), 96, 0, secinfo,
                       fid) + sd
    return c.status(SET_INFO, body)


def sec_get(c, fid, secinfo=7):
    body = struct.pack("<HBBIHHIII16s", 41, 3, 0, 4096, 0, 0, 0, secinfo,
                       0, fid) + b"\0"
    r = c.call(QUERY_INFO, body)
    if r is None or r.status:
        return None
    n = struct.unpack_from("<I", r.body, 4)[0]
    return r.body[8:8 + n]


def t_acls(c):
    """Stored NT descriptors (trusted.nasd.ntacl): a DACL with ACEs for
    SIDs a mode cannot say comes back as set, takes rights away, goes
    stale when the mode changes underneath, is inherited by new files and
    directories; a forged or broken kept value is ignored."""
    srv = T.srv
    uid = os.getuid() if os.getuid() else 1000
    me = f"S-1-22-1-{uid}"
    path = os.path.join(srv.share, "aclf")
    r = c.call(CREATE, create_body("aclf", 2, access=0x1F01FF))
    if not r or r.status:
        check("acl_file_made", False, repr(r))
        return
    fid = fid_of(r)
    dacl = acl_b([ace_b(0, 0, 0x1F01FF, me),
                  ace_b(0, 0, 0x1F01FF, "S-1-5-32-544"),
                  ace_b(0, 0, 0x120089, "S-1-5-11")])
    expect("acl_set_dacl", sec_set(c, fid, 4, sd_b(dacl=dacl)), "SUCCESS")
    got = sec_get(c, fid)
    parts = sd_parts(got) if got else (0, None, None, None)
    check("acl_dacl_back_as_set", parts[3] == dacl, repr(got))
    # "Authenticated Users: read" is the owner's and the group's r, not
    # other's (anonymous NFS callers and guests are not authenticated)
    check("acl_authenticated_users_read_is_mode_r",
          os.stat(path).st_mode & 0o777 == 0o740,
          oct(os.stat(path).st_mode))
    check("acl_owner_is_the_user", parts[1] == sid_b(me), repr(parts))
    check("acl_control_dacl_present", parts[0] & 0x8004 == 0x8004,
          hex(parts[0]))
    if os.getuid() == 0:
        check("acl_kept_privileged", os.getxattr(
            path, "trusted.nasd.ntacl")[:8] == b"NASDSD1\0")
    c.status(CLOSE, close_body(fid))
    # a DACL that grants only reading: writing is refused over SMB
    fid = open_file(c, "aclf", disp=1, access=0x1F01FF)
    expect("acl_set_read_only_dacl", sec_set(c, fid, 4, sd_b(dacl=acl_b(
        [ace_b(0, 0, 0x120089, me)]))), "SUCCESS")
    c.status(CLOSE, close_body(fid))
    r = c.call(CREATE, create_body("aclf", 1, access=0x2))
    expect("acl_dacl_refuses_write", r and r.status, "ACCESS_DENIED")
    r = c.call(CREATE, create_body("aclf", 1, access=0x20089))
    expect("acl_dacl_allows_read", r and r.status, "SUCCESS")
    if r and not r.status:
        fid = fid_of(r)
        # the owner keeps READ_CONTROL and WRITE_DAC whatever the DACL
        expect("acl_set_dacl_needs_write_dac", sec_set(
            c, fid, 4, sd_b(dacl=dacl)), "ACCESS_DENIED")
        c.status(CLOSE, close_body(fid))
    r = c.call(CREATE, create_body("aclf", 1, access=0x60000))
    expect("acl_owner_implicit_rights", r and r.status, "SUCCESS")
    if r and not r.status:
        fid = fid_of(r)
        expect("acl_owner_rewrites_dacl", sec_set(
            c, fid, 4, sd_b(dacl=dacl)), "SUCCESS")
        c.status(CLOSE, close_body(fid))
    # a DACL without FILE_READ_ATTRIBUTES: who may list the directory
    # reads the attributes all the same (MS-FSA 2.1.5.1.2.1)
    fid = open_file(c, "aclra", disp=2, access=0x1F01FF)
    expect("acl_set_write_only_dacl", sec_set(c, fid, 4, sd_b(dacl=acl_b(
        [ace_b(0, 0, 0x2, me)]))), "SUCCESS")
    c.status(CLOSE, close_body(fid))
    r = c.call(CREATE, create_body("aclra", 1, access=0x80))
    expect("acl_read_attributes_from_the_directory", r and r.status,
           "SUCCESS")
    if r and not r.status:
        c.status(CLOSE, close_body(fid_of(r)))
    r = c.call(CREATE, create_body("aclra", 1, access=0x1))
    expect("acl_read_data_still_refused", r and r.status, "ACCESS_DENIED")
    # the mode changed underneath (an NFS chmod): the mode is the truth
    os.chmod(path, 0o640)
    fid = open_file(c, "aclf", disp=1, access=0x20080)
    got = sec_get(c, fid)
    parts = sd_parts(got) if got else (0, None, None, None)
    check("acl_stale_after_chmod", parts[3] is not None and
          sid_b("S-1-5-32-544") not in parts[3], repr(got))
    # a foreign owner SID is kept (the file's uid stays)
    c.status(CLOSE, close_body(fid))
    fid = open_file(c, "aclf", disp=1, access=0xE0080)
    expect("acl_set_dacl_again", sec_set(c, fid, 4, sd_b(dacl=dacl)),
           "SUCCESS")
    expect("acl_foreign_owner", sec_set(c, fid, 1, sd_b(
        owner="S-1-1-0")), "SUCCESS")
    got = sec_get(c, fid)
    parts = sd_parts(got) if got else (0, None, None, None)
    check("acl_foreign_owner_kept", parts[1] == sid_b("S-1-1-0") and
          os.stat(path).st_uid == uid, repr(parts))
    c.status(CLOSE, close_body(fid))
    # inheritance: a directory's OI/CI ACEs
    r = c.call(CREATE, create_body("acld", 2, options=1, access=0x1F01FF))
    if r and not r.status:
        dfid = fid_of(r)
        expect("acl_dir_dacl", sec_set(c, dfid, 4, sd_b(dacl=acl_b([
            ace_b(0, 3, 0x1F01FF, me),
            ace_b(0, 1, 0x120089, "S-1-5-32-545"),
            ace_b(0, 2, 0x1200A9, "S-1-3-0")]))), "SUCCESS")
        c.status(CLOSE, close_body(dfid))
        fid = open_file(c, "acld\\f", disp=2, access=0x1F01FF)
        got = sec_get(c, fid)
        check("acl_file_inherits", got and sd_parts(got)[3] == acl_b([
            ace_b(0, 0x10, 0x1F01FF, me),
            ace_b(0, 0x10, 0x120089, "S-1-5-32-545")]), repr(got))
        c.status(CLOSE, close_body(fid))
        r = c.call(CREATE, create_body("acld\\d", 2, options=1,
                                       access=0x1F01FF))
        got = sec_get(c, fid_of(r)) if r and not r.status else None
        check("acl_dir_inherits", got and sd_parts(got)[3] == acl_b([
            ace_b(0, 0x13, 0x1F01FF, me),
            ace_b(0, 0x19, 0x120089, "S-1-5-32-545"),
            ace_b(0, 0x10, 0x1200A9, me),
            ace_b(0, 0x1A, 0x1200A9, "S-1-3-0")]), repr(got))
        if r and not r.status:
            c.status(CLOSE, close_body(fid_of(r)))
    # a broken kept value is ignored: the mode's descriptor answers
    if os.getuid() == 0:
        st = os.stat(path)
        for n, val in (
                ("cut_header", b"NASDSD1\0\1"),
                ("bad_owner_offset", b"NASDSD1\0" + struct.pack(
                    "<III", st.st_uid, st.st_gid, st.st_mode & 0o7777) +
                 struct.pack("<BBHIIII", 1, 0, 0x8004, 0xFFFF0000, 0, 0,
                             0)),
                ("dacl_size_past_end", b"NASDSD1\0" + struct.pack(
                    "<III", st.st_uid, st.st_gid, st.st_mode & 0o7777) +
                 struct.pack("<BBHIIII", 1, 0, 0x8004, 0, 0, 0, 20) +
                 struct.pack("<BBHHH", 2, 0, 0xFFF0, 50, 0))):
            os.setxattr(path, "trusted.nasd.ntacl", val)
            fid = open_file(c, "aclf", disp=1, access=0x20080)
            got = sec_get(c, fid)
            check(f"acl_broken_{n}_ignored", got is not None and
                  sd_parts(got)[3] is not None, repr(got))
            c.status(CLOSE, close_body(fid))
    alive("acls")


def t_foreign_fid():
    srv = T.srv
    a = logon(srv.port)
    b = logon(srv.port)
    fid = open_file(a, "data")
    before = open(os.path.join(srv.share, "data"), "rb").read()
    for n, cmd, body in (
            ("read", READ, read_body(fid, 10)),
            ("write", WRITE, write_body(fid, b"stolen")),
            ("query_info", QUERY_INFO, qinfo_body(fid)),
            ("set_info_eof", SET_INFO, setinfo_body(
                fid, struct.pack("<Q", 0), cls=20)),
            ("lock", LOCK, lock_body(fid, [(0, 1, 2 | 0x10)])),
            ("flush", FLUSH, struct.pack("<HHI", 24, 0, 0) + fid),
            ("close", CLOSE, close_body(fid))):
        expect(f"other_session_fid_{n}", b.status(cmd, body), "FILE_CLOSED")
    # the same session, another tree of the same share
    tid1 = a.tid
    expect("second_tree_connect", a.tree_connect(), "SUCCESS")
    tid2 = a.tid
    check("second_tree_has_own_id", tid1 != tid2, f"{tid1} {tid2}")
    for n, cmd, body in (("read", READ, read_body(fid, 10)),
                         ("write", WRITE, write_body(fid, b"stolen")),
                         ("close", CLOSE, close_body(fid))):
        expect(f"other_tree_fid_{n}", a.status(cmd, body, tid=tid2),
               "FILE_CLOSED")
    # the session id of A with B's signature key: refused
    msg = b.req(READ, read_body(fid, 10), sid=a.sid, tid=tid1)
    b.send_raw(frame(msg))
    rs = b.recv()
    expect("other_connection_session_id", rs[0].status if rs else None,
           "USER_SESSION_DELETED", "ACCESS_DENIED")
    a.tid = tid1
    check("foreign_fid_left_data", open(os.path.join(srv.share, "data"),
                                        "rb").read() == before,
          "data changed")
    r = a.call(READ, read_body(fid, 10))
    check("owner_still_reads", r is not None and r.status == 0, repr(r))
    # a forged FileId
    for n, f in (("zero", b"\0" * 16), ("ones", b"\xff" * 16),
                 ("flipped", bytes([fid[0] ^ 1]) + fid[1:])):
        expect(f"forged_fid_{n}", a.status(READ, read_body(f, 10)),
               "FILE_CLOSED", "INVALID_HANDLE")
    # related compounds after a teardown (class B)
    qi = qinfo_body(b"\xff" * 16)
    rs = a.compound([(CLOSE, close_body(fid), 0),
                     (QUERY_INFO, qi, FLAG_RELATED)])
    check("compound_close_then_related_query",
          rs is not None and len(rs) == 2 and rs[0].status == 0 and
          rs[1].status == ST["FILE_CLOSED"], repr(rs))
    rs = a.compound([(CREATE, create_body("..\\x", 2), 0),
                     (QUERY_INFO, qi, FLAG_RELATED),
                     (CLOSE, close_body(b"\xff" * 16), FLAG_RELATED)])
    check("compound_failed_create_then_related",
          rs is not None and len(rs) == 3 and
          all(x.status == ST["OBJECT_PATH_SYNTAX_BAD"] for x in rs),
          repr(rs))
    rs = a.compound([(QUERY_INFO, qi, FLAG_RELATED)])
    check("compound_related_first_without_fid",
          rs is not None and rs[0].status in (ST["INVALID_PARAMETER"],
                                              ST["FILE_CLOSED"],
                                              ST["INVALID_HANDLE"]),
          repr(rs))
    fid = open_file(a, "data")
    rs = a.compound([(TREE_DISCONNECT, struct.pack("<HH", 4, 0), 0),
                     (CREATE, create_body("data", 1), FLAG_RELATED),
                     (READ, read_body(fid, 10), FLAG_RELATED)])
    check("compound_tree_disconnect_then_related",
          rs is not None and len(rs) == 3 and rs[0].status == 0 and
          rs[1].status == ST["NETWORK_NAME_DELETED"] and
          rs[2].status == ST["NETWORK_NAME_DELETED"], repr(rs))
    expect("fid_after_tree_disconnect", a.status(READ, read_body(fid, 10),
                                                 tid=tid1),
           "NETWORK_NAME_DELETED", "FILE_CLOSED")
    a.tid = tid2
    fid = open_file(a, "data")
    rs = a.compound([(LOGOFF, struct.pack("<HH", 4, 0), 0),
                     (READ, read_body(fid, 10), FLAG_RELATED),
                     (CREATE, create_body("data", 1), FLAG_RELATED)])
    check("compound_logoff_then_related",
          rs is not None and len(rs) == 3 and rs[0].status == 0 and
          all(x.status in (ST["USER_SESSION_DELETED"],
                           ST["NETWORK_NAME_DELETED"]) for x in rs[1:]),
          repr(rs))
    a.close()
    b.close()
    alive("foreign_fid")


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    nasd = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="nasd-smb-hostile-")
    os.chmod(tmp, 0o755)
    srv = None
    try:
        srv = Server(nasd, tmp)
        T.srv = srv
        t_framing()
        t_smb1()
        t_negotiate()
        t_before_session()
        t_compound_framing()
        t_signing()
        t_encryption()
        t_multichannel()
        c = logon(srv.port)
        t_create(c)
        alive("create")
        t_rw(c)
        alive("read_write")
        t_info(c)
        alive("info")
        t_streams(c)
        t_acls(c)
        c.close()
        t_foreign_fid()
        t_durable()
        check("passwd_untouched", os.stat("/etc/passwd").st_mtime <
              time.time() - 1, "changed just now")
        t_parked_at_stop()
    finally:
        if srv is not None and srv.proc is not None:
            if srv.proc.poll() is None:
                t0 = time.time()
                srv.proc.send_signal(signal.SIGTERM)
                try:
                    rc = srv.proc.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    srv.proc.kill()
                    rc = srv.proc.wait()
                    rc = f"hung ({rc})"
                check("stops_within_10s", time.time() - t0 < 10,
                      f"{time.time() - t0:.1f} s")
            else:
                rc = f"died before SIGTERM ({srv.proc.returncode})"
            log = srv.log_text()
            check("clean_exit_on_sigterm", rc == 0, f"exit {rc}")
            m = SANITIZER_RE.search(log)
            check("no_sanitizer_report", m is None,
                  log[max(0, m.start() - 200):m.start() + 3000] if m else "")
            if fails:
                print("# nasd log tail:\n" + "\n".join(
                    "# " + x for x in log.splitlines()[-40:]))
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"# {passes} passed, {fails} failed")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
