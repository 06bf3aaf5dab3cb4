#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the hand-made seed corpora of the libFuzzer targets.

usage: tests/fuzz/gen_seeds.py [CORPUS_DIR]    (default: tests/fuzz/corpus)

Each target gets a handful of valid inputs in CORPUS_DIR/<target>/, named
gen-<what>. Inputs for fuzz_rpc (and fuzz_nfs4) name handles and paths with the tokens
that fuzz_rpc.c (fuzz_nfs4.c) replaces at run time (handles depend on the inodes of the
fuzzer's temporary export): a 4-byte length word, then FE 'N' 'S' 'D',
a kind and an index, then two free bytes. Files this script did not write
(e.g. real-client captures, cap-*) are left alone.
"""

import os
import struct
import sys

NFS_PROGRAM, MOUNT_PROGRAM = 100003, 100005


def u32(v):
    return struct.pack(">I", v & 0xFFFFFFFF)


def u64(v):
    return struct.pack(">Q", v)


def opaque(b):
    if isinstance(b, str):
        b = b.encode()
    return u32(len(b)) + b + b"\0" * ((4 - len(b) % 4) % 4)


def token(kind, idx=0):
    """A placeholder fuzz_rpc.c replaces by a length-prefixed opaque."""
    return u32(8) + bytes([0xFE]) + b"NSD" + kind.encode() + bytes([idx, 0, 0])


# export A's objects, as obj_paths[] in fuzz_rpc.c
ROOT, HELLO, SUB, INNER, SCRATCH, LINK, EMPTY, FIFO = range(8)


def fh(idx):
    return token("F", idx)


def path(idx):
    return token("P", idx)


def auth_sys(uid=1000, gid=1000, gids=(1000, 100)):
    body = u32(0x5EED) + opaque("fuzzhost") + u32(uid) + u32(gid)
    body += u32(len(gids)) + b"".join(u32(g) for g in gids)
    return u32(1) + opaque(body)


def auth_none():
    return u32(0) + opaque(b"")


def call(xid, prog, vers, proc, args=b"", cred=None, rpcvers=2):
    if cred is None:
        cred = auth_sys()
    return (u32(xid) + u32(0) + u32(rpcvers) + u32(prog) + u32(vers) +
            u32(proc) + cred + auth_none() + args)


def sattr(mode=None, size=None, atime_how=0, mtime_how=0):
    b = (u32(1) + u32(mode)) if mode is not None else u32(0)
    b += u32(0) + u32(0)  # uid, gid not set
    b += (u32(1) + u64(size)) if size is not None else u32(0)
    b += u32(atime_how)
    if atime_how == 2:
        b += u32(1700000000) + u32(5)
    b += u32(mtime_how)
    if mtime_how == 2:
        b += u32(1700000000) + u32(7)
    return b


def nfs3_args(h):
    """NFSv3 arguments by procedure; h(idx) encodes a handle."""
    data = b"fuzz data " * 10
    return {
        "getattr": (1, h(ROOT)),
        "setattr": (2, h(HELLO) + sattr(mode=0o644, size=5, mtime_how=2) +
                    u32(0)),
        "lookup": (3, h(ROOT) + opaque("hello.txt")),
        "lookup-dotdot": (3, h(ROOT) + opaque("..")),
        "access": (4, h(HELLO) + u32(0x3F)),
        "readlink": (5, h(LINK)),
        "read": (6, h(HELLO) + u64(0) + u32(4096)),
        "write": (7, h(HELLO) + u64(3) + u32(len(data)) + u32(2) +
                  opaque(data)),
        "create": (8, h(SCRATCH) + opaque("new") + u32(0) +
                   sattr(mode=0o600)),
        "create-excl": (8, h(SCRATCH) + opaque("excl") + u32(2) +
                        b"verf1234"),
        "mkdir": (9, h(SCRATCH) + opaque("dir") + sattr(mode=0o755)),
        "symlink": (10, h(SCRATCH) + opaque("sl") + sattr() +
                    opaque("../hello.txt")),
        "mknod": (11, h(SCRATCH) + opaque("fifo2") + u32(7) +
                  sattr(mode=0o644)),
        "remove": (12, h(ROOT) + opaque("empty")),
        "rmdir": (13, h(SCRATCH) + opaque("dir")),
        "rename": (14, h(ROOT) + opaque("empty") + h(SCRATCH) +
                   opaque("moved")),
        "link": (15, h(HELLO) + h(SCRATCH) + opaque("hl")),
        "readdir": (16, h(ROOT) + u64(0) + u64(0) + u32(4096)),
        "readdirplus": (17, h(ROOT) + u64(0) + u64(0) + u32(4096) +
                        u32(32768)),
        "fsstat": (18, h(ROOT)),
        "fsinfo": (19, h(ROOT)),
        "pathconf": (20, h(ROOT)),
        "commit": (21, h(HELLO) + u64(0) + u32(0)),
    }


def rpc_seeds():
    s = {}
    xid = 0x1000
    for name, (proc, args) in nfs3_args(fh).items():
        xid += 1
        s["nfs3-" + name] = call(xid, NFS_PROGRAM, 3, proc, args)
    s["nfs3-null-authnone"] = call(1, NFS_PROGRAM, 3, 0, cred=auth_none())
    s["nfs3-getattr-root-uid0"] = call(2, NFS_PROGRAM, 3, 1, fh(ROOT),
                                       cred=auth_sys(0, 0, ()))
    s["nfs3-getattr-otherexport"] = call(3, NFS_PROGRAM, 3, 1, token("G"))
    s["nfs3-getattr-stale"] = call(4, NFS_PROGRAM, 3, 1, token("S"))
    s["nfs3-getattr-forged"] = call(5, NFS_PROGRAM, 3, 1, token("X", 77))
    s["mnt"] = call(6, MOUNT_PROGRAM, 3, 1, path(0))
    s["mnt-otherexport"] = call(7, MOUNT_PROGRAM, 3, 1, path(2))
    s["umnt-v1"] = call(8, MOUNT_PROGRAM, 1, 3, path(1))
    s["mount-export"] = call(9, MOUNT_PROGRAM, 3, 5)
    s["rpcvers3"] = call(10, NFS_PROGRAM, 3, 0, rpcvers=3)
    s["nfs4-progmismatch"] = call(11, NFS_PROGRAM, 4, 0)
    s["auth-dh"] = call(12, NFS_PROGRAM, 3, 0, cred=u32(3) + opaque(b"x"))
    # keep the corpus within 30 files with the real-client captures
    for drop in ("nfs3-rmdir", "nfs3-pathconf", "nfs3-fsstat",
                 "nfs3-create-excl", "nfs3-lookup-dotdot", "nfs3-access",
                 "nfs3-commit", "nfs3-fsinfo", "nfs3-readdir",
                 "nfs3-link", "umnt-v1", "nfs3-mknod"):
        del s[drop]
    return s


def args_seeds():
    def h(idx):
        # a plausible 26-byte handle (version 1, ext4 handle of 8 bytes)
        return opaque(bytes([1, 8]) + u32(1) + u32(1) +
                      struct.pack(">Q", 0x1234 + idx) + b"\xAA" * 8)

    s = {}
    for name, (proc, args) in nfs3_args(h).items():
        s[name] = bytes([proc]) + args
    s["null"] = bytes([0])
    return s


def nlm_seeds():
    # selector: version index (0: v1, 1: v3, 2: v4, 3: NSM) << 4, proc
    fh = bytes([1, 8]) + u32(1) + u32(1) + struct.pack(">Q", 0x1234) + \
        b"\xAA" * 8

    def lock(v4, off=0, ln=100):
        rng = (struct.pack(">QQ", off, ln) if v4 else u32(off) + u32(ln))
        return (opaque(b"client") + opaque(fh) + opaque(b"owner") +
                u32(42) + rng)

    s = {}
    for vi, v4 in ((0, False), (1, False), (2, True)):
        t = opaque(b"ck") + u32(1) + lock(v4)
        s[f"v{vi}-test"] = bytes([vi << 4, 1]) + t
        s[f"v{vi}-lock"] = (bytes([vi << 4, 2]) + opaque(b"ck") + u32(1) +
                            u32(1) + lock(v4) + u32(0) + u32(3))
        s[f"v{vi}-cancel"] = (bytes([vi << 4, 3]) + opaque(b"ck") + u32(1)
                              + u32(0) + lock(v4, 5, 0))
        s[f"v{vi}-unlock"] = bytes([vi << 4, 4]) + opaque(b"") + lock(v4)
        s[f"v{vi}-granted"] = bytes([vi << 4, 5]) + t
        s[f"v{vi}-lock-res"] = bytes([vi << 4, 12]) + opaque(b"ck") + u32(0)
    for vi in (1, 2):
        s[f"v{vi}-share"] = (bytes([vi << 4, 20]) + opaque(b"ck") +
                             opaque(b"client") + opaque(fh) +
                             opaque(b"oh") + u32(2) + u32(3) + u32(0))
        s[f"v{vi}-free-all"] = (bytes([vi << 4, 23]) + opaque(b"client") +
                                u32(7))
    s["nsm-stat"] = bytes([0x30, 1]) + opaque(b"host")
    s["nsm-mon"] = (bytes([0x30, 2]) + opaque(b"host") + opaque(b"me") +
                    u32(100021) + u32(4) + u32(16) + b"p" * 16)
    s["nsm-notify"] = bytes([0x30, 6]) + opaque(b"host") + u32(5)
    return s


def mount_seeds():
    # selector byte: version index (0: v1, 1: v2, 2: v3) << 4 | procedure
    return {
        "mnt-v3": bytes([0x21]) + opaque("/srv/export"),
        "umnt-v3": bytes([0x23]) + opaque("/srv/export/sub/dir"),
        "umnt-v1": bytes([0x03]) + opaque("/"),
        "mnt-empty": bytes([0x21]) + opaque(""),
        "mnt-max": bytes([0x21]) + opaque("/" + "a" * 1023),
    }


def rm_stream(records, frag=None):
    """Record-marked stream; frag splits each record in pieces of frag."""
    out = b""
    for r in records:
        pieces = [r[i:i + frag] for i in range(0, len(r), frag)] \
            if frag else [r]
        if not pieces:
            pieces = [b""]
        for i, p in enumerate(pieces):
            last = 0x80000000 if i == len(pieces) - 1 else 0
            out += u32(last | len(p)) + p
    return out


def record_seeds():
    # control: [0] limit, [1..8] chunk sizes - 1, [9] path bits, [10] hint
    big = b"\0" * 4
    null = call(1, NFS_PROGRAM, 3, 0)
    get = call(2, NFS_PROGRAM, 3, 1, opaque(b"\1" * 26))
    ctl_default = bytes([0x80, 255, 255, 255, 255, 255, 255, 255, 255, 0, 0])
    ctl_small = bytes([0x80, 0, 1, 2, 3, 4, 5, 6, 7, 0x55, 0])
    ctl_limit = bytes([0x01, 15, 31, 63, 127, 3, 7, 1, 0, 0x80, 0])
    ctl_space = bytes([0x80, 63, 63, 63, 63, 63, 63, 63, 63, 0xFF, 16])
    return {
        "one-record": ctl_default + rm_stream([null]),
        "two-records-bytewise": ctl_small + rm_stream([null, get]),
        "fragments": ctl_space + rm_stream([get, null], frag=8),
        "empty-fragments": ctl_default + u32(0) + u32(0) +
        rm_stream([null]) + u32(0x80000000),
        "over-limit": ctl_limit + rm_stream([get * 3, null]),
        "large-aligned": ctl_space + rm_stream([big * 4500]),
    }


def exports_seeds():
    return {
        "simple": "/srv/data 127.0.0.1(rw)\n",
        "many": ("# comment\n"
                 "/srv/data   10.0.0.0/8(rw,no_root_squash) "
                 "192.168.1.7(ro) *(ro)\n"
                 "\"/srv/my data\" ::1(rw)  "
                 "2001:db8::/32(ro,all_squash,anonuid=1000,anongid=100)\n"),
        "defaults": "/srv/pub(ro)\n/srv/pub2\n",
        "continuation": "/srv/long  10.0.0.1(rw) \\\n   10.0.0.2(rw)\n",
        "options": ("/srv/x 10.1.0.0/255.255.0.0(rw,secure,sync,"
                    "no_subtree_check,fsid=7,io=direct)\n"
                    "/srv/y *(insecure,async,wdelay,fsid=root,io=buffered,"
                    "no_all_squash,root_squash)\n"),
        "bad": "/srv/z host.example.com(rw)\n",
        # export-wide options in the path's list and in client specs, the
        # same value twice, and (last line) two values: a conflict
        "export-wide": ("/srv/w(io=direct,pseudo=/pub/w) 10.0.0.0/8(rw) "
                        "*(ro,io=direct,fsid=3)\n"
                        "/srv/v(fsid=4)\n"
                        "/srv/c 1.1.1.1(io=auto) *(io=buffered)\n"),
    }


# ---- NFSv4 COMPOUND (fuzz_nfs4) ----
# Tokens fuzz_nfs4.c replaces at run time: handles (12 bytes, replaced by a
# length-prefixed opaque) and ids/stateids (8 or 16 bytes, in place).
A_ROOT, A_HELLO, A_SUB, A_INNER, A_SCRATCH, A_LINK, A_EMPTY, A_FIFO, \
    A_SPARSE = range(9)
SEQ_NEXT = b"\xFE\x5E\x51\xD0"  # next seqid of the slot that follows


def v4fh(kind, idx=0):
    return token(kind, idx)


def tok8(kind, idx):
    return bytes([0xFE]) + b"NSD" + kind.encode() + bytes([idx, 0, 0])


def tok16(kind, idx):
    return tok8(kind, idx) + b"\0" * 8


def clid(idx):
    return tok8("c", idx)


def stid(idx):
    return tok16("t", idx)


ANON = b"\0" * 16                      # anonymous stateid
CURRENT = u32(1) + b"\0" * 12          # 4.1 current stateid


def bitmap(*words):
    return u32(len(words)) + b"".join(u32(w) for w in words)


def fattr(words, vals=b""):
    return bitmap(*words) + opaque(vals)


# GETATTR: type change size fsid fileid | mode numlinks owner group
# space_used time_access time_metadata time_modify mounted_on | 4.2 word
ATTRS = (1 << 1 | 1 << 3 | 1 << 4 | 1 << 8 | 1 << 20,
         1 << 1 | 1 << 3 | 1 << 4 | 1 << 5 | 1 << 13 | 1 << 15 | 1 << 20 |
         1 << 21 | 1 << 23)
ATTRS_ALL = (0xFFFFFFFF, 0xFFFFFFFF, 0x3FF)


def op(num, args=b""):
    return (num, args)


def sequence(sess=0, slot=0, cachethis=0):
    return op(53, tok16("s", sess)[:16] + SEQ_NEXT + u32(slot) + u32(slot) +
              u32(cachethis))


def open4(seqid, clientid, owner, name, access=3, deny=0, create=None):
    how = u32(0)
    if create is not None:  # UNCHECKED4 with these attributes
        how = u32(1) + u32(0) + create
    return op(18, u32(seqid) + u32(access) + u32(deny) + clientid +
              opaque(owner) + how + u32(0) + opaque(name))


def channel(maxresp=1 << 20, slots=4):
    return (u32(0) + u32(1 << 20) + u32(maxresp) + u32(65536) + u32(16) +
            u32(slots) + u32(0))


def compound(xid, minor, ops, tag="fuzz", cred=None):
    args = opaque(tag) + u32(minor) + u32(len(ops))
    args += b"".join(u32(n) + a for n, a in ops)
    return call(xid, NFS_PROGRAM, 4, 1, args, cred)


def nfs4_seeds():
    data = b"nfsv4 fuzz data " * 8
    mode644 = fattr((0, 1 << 1), u32(0o644))
    size3_mode600 = fattr((1 << 4, 1 << 1), u64(3) + u32(0o600))
    PUTROOT, GETFH, SAVE, RESTORE = op(24), op(10), op(32), op(31)
    GETATTR = op(9, bitmap(*ATTRS))

    def putfh(idx, kind="F"):
        return op(22, v4fh(kind, idx))

    def lookup(name):
        return op(15, opaque(name))

    s = {}
    s["v40-root-getattr"] = compound(1, 0, [
        PUTROOT, op(9, bitmap(*ATTRS_ALL)), GETFH])
    s["v40-lookup-chain"] = compound(2, 0, [
        PUTROOT, lookup("a"), GETATTR, lookup("sub"), GETFH, op(16),
        op(16), GETATTR, lookup("a"), lookup("sub"), lookup("inner.txt"),
        GETATTR])
    s["v40-pseudo-readdir"] = compound(3, 0, [
        PUTROOT, lookup("r"), op(26, u64(0) + b"\0" * 8 + u32(1024) +
                                 u32(4096) + bitmap(*ATTRS)),
        lookup("o"), lookup("ro.txt"), op(25, ANON + u64(0) + u32(100))])
    s["v40-setclientid"] = compound(4, 0, [
        op(35, b"seedverf" + opaque("seed-client-40") + u32(0x40000000) +
           opaque("tcp") + opaque("127.0.0.1.3.255") + u32(7))])
    s["v40-confirm-renew"] = compound(5, 0, [
        op(36, clid(3) + tok8("v", 3)), op(30, clid(2))])
    s["v40-open-create"] = compound(6, 0, [
        putfh(A_SCRATCH), open4(0, clid(2), "seed-owner-40", "new40",
                               create=mode644), GETFH, GETATTR])
    s["v40-io-close"] = compound(7, 0, [
        putfh(A_INNER), op(25, stid(2) + u64(0) + u32(64)),
        op(38, stid(2) + u64(2) + u32(2) + opaque(data)),
        op(5, u64(0) + u32(0)), op(4, u32(3) + stid(2))])
    s["v40-lock"] = compound(8, 0, [
        putfh(A_INNER),
        op(12, u32(2) + u32(0) + u64(0) + u64(10) + u32(1) + u32(3) +
           stid(2) + u32(0) + clid(2) + opaque("seed-lock-40")),
        op(13, u32(2) + u64(5) + u64(1) + clid(2) + opaque("other")),
        op(14, u32(2) + u32(1) + stid(1) + u64(0) + u64(10))])
    s["v40-bad-handles"] = compound(9, 0, [
        op(22, token("G")), op(22, token("S")), op(22, token("X", 77)),
        putfh(0, "R"), op(38, ANON + u64(0) + u32(2) + opaque("x"))])
    s["v40-illegal-op"] = compound(10, 0, [PUTROOT, op(99, u32(1))])
    s["v41-exchange-id"] = compound(11, 1, [
        op(42, b"seedverf" + opaque("seed-client-41") + u32(0) + u32(0) +
           u32(1) + opaque("example.org") + opaque("seed impl") +
           u64(0) + u32(0))])
    s["v41-create-session"] = compound(12, 1, [
        op(43, clid(1) + u32(1) + u32(2) + channel() + channel(4096, 1) +
           u32(0x40000000) + u32(2) + u32(0) + u32(1) + u32(7) +
           opaque("cbhost") + u32(0) + u32(0) + u32(0))])
    s["v41-seq-lookup"] = compound(13, 1, [
        sequence(0, 0), PUTROOT, GETATTR, lookup("a"), GETFH, GETATTR,
        lookup("hello.txt"), op(3, u32(0x3F)), op(25, ANON + u64(0) +
                                                  u32(4096))])
    s["v41-open-write-read-close"] = compound(14, 1, [
        sequence(0, 1), putfh(A_SCRATCH),
        open4(0, clid(0), "seed-owner-41", "f41", create=mode644),
        op(38, CURRENT + u64(0) + u32(2) + opaque(data)),
        op(25, CURRENT + u64(0) + u32(100)),
        op(34, CURRENT + size3_mode600), GETATTR,
        op(4, u32(0) + CURRENT)])
    s["v41-lock"] = compound(15, 1, [
        sequence(0, 2), putfh(A_HELLO),
        op(12, u32(2) + u32(0) + u64(100) + u64(10) + u32(0) + stid(1) +
           u32(0)),
        op(14, u32(2) + u32(0) + CURRENT + u64(100) + u64(5)),
        op(13, u32(2) + u64(1000) + u64(200) + clid(0) + opaque("other")),
        op(39, clid(0) + opaque("no-such-owner"))])
    s["v41-readdir"] = compound(16, 1, [
        sequence(0, 3), putfh(A_ROOT),
        op(26, u64(0) + b"\0" * 8 + u32(4096) + u32(8192) +
           bitmap(*ATTRS)), PUTROOT,
        op(26, u64(0) + b"\0" * 8 + u32(4096) + u32(8192) +
           bitmap(ATTRS[0] | 1 << 11, ATTRS[1]))])
    s["v41-rename-remove"] = compound(17, 1, [
        sequence(0, 4), putfh(A_ROOT), SAVE, putfh(A_SCRATCH),
        op(29, opaque("empty") + opaque("moved")),
        op(28, opaque("moved")), RESTORE, GETATTR])
    s["v41-create-link"] = compound(18, 1, [
        sequence(0, 5), putfh(A_SCRATCH),
        op(6, u32(2) + opaque("dir") + fattr((0, 1 << 1), u32(0o755))),
        op(16),
        op(6, u32(5) + opaque("../hello.txt") + opaque("sl") +
           fattr(())), op(27), putfh(A_HELLO), SAVE, putfh(A_SCRATCH),
        op(11, opaque("hl"))])
    s["v41-secinfo-verify"] = compound(19, 1, [
        sequence(0, 6), PUTROOT, lookup("a"),
        op(33, opaque("hello.txt")), putfh(A_HELLO),
        op(37, fattr((1 << 1,), u32(1))),
        op(17, fattr((1 << 4,), u64(0))), PUTROOT, op(52, u32(0))])
    s["v41-session-ops"] = compound(20, 1, [
        sequence(1, 0), op(55, u32(3) + stid(0) + stid(1) + ANON),
        op(40, u32(0x40000001) + u32(1) + u32(0)), op(58, u32(0)),
        op(45, stid(1))])
    s["v41-bind-conn"] = compound(21, 1, [
        op(41, tok16("s", 1) + u32(7) + u32(0))])
    s["v41-destroy-clientid"] = compound(22, 1, [op(57, clid(1))])
    s["v41-small-reply"] = compound(23, 1, [
        sequence(1, 1, 1), putfh(A_SPARSE),
        op(25, ANON + u64(0) + u32(4096))])
    s["v42-seek-read-plus"] = compound(24, 2, [
        sequence(0, 7), putfh(A_SPARSE), op(69, ANON + u64(0) + u32(0)),
        op(69, ANON + u64(0) + u32(1)),
        op(68, ANON + u64(0) + u32(131072))])
    s["v42-space-advise"] = compound(25, 2, [
        sequence(0, 0), putfh(A_HELLO), op(59, stid(0) + u64(0) + u64(8192)),
        op(62, stid(0) + u64(0) + u64(4096)),
        op(63, ANON + u64(0) + u64(4096) + bitmap(0x3E))])
    s["v42-copy"] = compound(26, 2, [
        sequence(0, 1), putfh(A_HELLO), SAVE, putfh(A_INNER),
        op(60, ANON + ANON + u64(0) + u64(0) + u64(0) + u32(1) + u32(1) +
           u32(0)),
        op(67, ANON), op(71, ANON + ANON + u64(0) + u64(0) + u64(0))])
    s["cb-reply"] = (u32(0x12345678) + u32(1) + u32(0) + u32(0) + u32(0) +
                     u32(0))
    return s


def auth_vectors():
    """The recorded exchanges of tests/vectors/smb2_auth: a list of (name,
    [client token, ...])."""
    d = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                     "vectors", "smb2_auth")
    out = []
    for name in sorted(os.listdir(d)):
        if not name.endswith(".txt"):
            continue
        tokens = []
        with open(os.path.join(d, name)) as f:
            for line in f:
                if line.startswith("C "):
                    h = line.split()[1]
                    tokens.append(b"" if h == "-" else bytes.fromhex(h))
        out.append((name[:-4], tokens))
    return out


def spnego_seeds():
    """Each client token of the vectors alone (NegTokenInit, NegTokenResp,
    raw NTLMSSP), and the server's NegTokenInit2."""
    s = {}
    for name, tokens in auth_vectors():
        for i, t in enumerate(tokens):
            if t:
                s["%s-%d" % (name, i)] = t
    s["negtokeninit2"] = bytes.fromhex(
        "604806062b0601050502a03e303ca00e300c060a2b06010401823702020aa32a"
        "3028a0261b246e6f745f646566696e65645f696e5f5246433431373840706c65"
        "6173655f69676e6f7265")
    return s


def ntlmssp_seeds():
    """Whole exchanges: each client token with a 2-byte LE length before
    it (fuzz_ntlmssp.c's input)."""
    return {name: b"".join(struct.pack("<H", len(t)) + t for t in tokens)
            for name, tokens in auth_vectors()}


def le16(v):
    return struct.pack("<H", v & 0xFFFF)


def le32(v):
    return struct.pack("<I", v & 0xFFFFFFFF)


def le64(v):
    return struct.pack("<Q", v & 0xFFFFFFFFFFFFFFFF)


def utf16(s):
    return s.encode("utf-16-le")


def ea_entry(name, value, flags=0, last=False):
    body = bytes([flags, len(name)]) + le16(len(value)) + name + b"\0" + value
    size = 4 + len(body)
    pad = 0 if last else (4 - size % 4) % 4
    return le32(0 if last else size + pad) + body + b"\0" * pad


def sid(auth, *subs):
    return bytes([1, len(subs)]) + b"\0" * 5 + bytes([auth]) + b"".join(
        le32(x) for x in subs)


def ace(kind, mask, trustee, flags=0):
    return bytes([kind, flags]) + le16(8 + len(trustee)) + le32(mask) + trustee


def sd(owner, group, aces, control=0x8004):
    acl = bytes([2, 0]) + le16(8 + sum(len(a) for a in aces)) + le16(
        len(aces)) + le16(0) + b"".join(aces)
    hdr = bytes([1, 0]) + le16(control) + le32(20) + le32(
        20 + len(owner)) + le32(0) + le32(20 + len(owner) + len(group))
    return hdr + owner + group + acl


def fscc_seeds():
    """fuzz_smb2_fscc: the first byte picks the decoder (see its top)."""
    s = {}
    s["ea-full"] = b"\0" + ea_entry(b"user.one", b"abc") + ea_entry(
        b"B", b"", 0x80, last=True)
    s["ea-get"] = b"\1" + le32(8) + b"\2ab\0" + le32(0) + b"\1c\0"
    u, g, w = sid(22, 1, 1000), sid(22, 2, 100), sid(1, 0)
    s["sd-0754"] = b"\2" + sd(u, g, [ace(0, 0x1F01FF, u),
                                     ace(0, 0x1200A9, g),
                                     ace(0, 0x120089, w)])
    s["sd-deny"] = b"\2" + sd(u, g, [ace(1, 0x1, g), ace(0, 0x12019F, u),
                                     ace(0, 0, g), ace(0, 0x120089, w),
                                     ace(0, 0x1F01FF, sid(3, 0), 0x0B)])
    s["set-basic"] = b"\3\0" + le64(0) + le64(-1) + le64(-2) + le64(
        116444736000000000) + le32(0x21) + le32(0)
    name = utf16("dir\\new.txt")
    s["set-rename"] = b"\3\x31" + b"\1" + b"\0" * 7 + le64(0) + le32(
        len(name)) + name
    s["set-link"] = b"\3\x32" + b"\0" * 8 + le64(0) + le32(2) + utf16("a")
    s["set-mode"] = b"\3\6" + le32(0x26)
    # user.DOSATTRIB as Samba 4.17 writes it (version 5; read back from a
    # file it made hidden and system), and the older layouts
    s["dosattr-v5"] = b"\7" + bytes.fromhex(
        "0000050005000000110000002600000081399c180482dd01")
    s["dosattr-v4"] = b"\7" + b"\0\0" + le16(4) + le16(4) + b"\0\0" + \
        le32(0x11) + le32(0x22) + le64(0) + le64(132000000000000000)
    s["dosattr-v3"] = b"\7" + b"0x20\0\0" + le16(3) + le16(3) + \
        b"\0\0" + le32(0x11) + le32(0x20) + le32(0) + le64(0) + le64(0) + \
        le64(132000000000000000)
    s["dosattr-hex"] = b"\7" + b"0x8020\0"
    s["set-dispex"] = b"\3\4" + le32(0x13)
    s["set-eof"] = b"\3\x08" + le64(1 << 40)
    for i, (pat, name) in enumerate([("*.*", "a"), ("<.txt", "a.b.txt"),
                                     ("a>>.txt", "ab.txt"), ('foo"', "foo."),
                                     ("*a*b?c", "xxaybzc")]):
        p = utf16(pat)
        s["wild-%d" % i] = b"\4" + bytes([i & 1, len(p)]) + p + name.encode()
    s["dir-idfull"] = b"\5\5\x20\x00" + b"./../hello.txt/\xc3\xa9"
    s["dir-idboth"] = b"\5\4\x04\x01" + b"a/b/c"
    s["query-all"] = b"\6\0" + bytes([18, 60]) + b"dir/f.txt"
    s["query-stream"] = b"\6\0" + bytes([22, 19]) + b""
    s["query-fsattr"] = b"\6\1" + bytes([5, 8]) + b"share"
    s["query-fsvol"] = b"\6\1" + bytes([1, 12]) + b"share"
    return s


def smb2_hdr(cmd, mid, flags=0, tid=1, sid=1, credits=64, charge=1):
    return b"\xfeSMB" + le16(64) + le16(charge) + le32(0) + le16(cmd) + \
        le16(credits) + le32(flags) + le32(0) + le64(mid) + le32(0xFEFF) + \
        le32(tid) + le64(sid) + b"\0" * 16


def smb2_frame(*cmds):
    """One message: (header, body) pairs chained by NextCommand."""
    parts = []
    for i, (h, body) in enumerate(cmds):
        m = h + body
        if i < len(cmds) - 1:
            m += b"\0" * (-len(m) % 8)
            m = m[:20] + le32(len(m)) + m[24:]
        parts.append(m)
    m = b"".join(parts)
    return struct.pack(">I", len(m)) + m


def smb2_negotiate(dialects=(0x311, 0x302, 0x300, 0x210)):
    fixed = 36 + 2 * len(dialects)
    off = 64 + fixed + (-(64 + fixed) % 8)
    ctxs = [(1, le16(1) + le16(32) + le16(1) + b"s" * 32),
            (2, le16(2) + le16(2) + le16(1)),
            (8, le16(2) + le16(1) + le16(2)),
            (3, le16(1) + le16(0) + le32(0) + le16(1)),
            (0x100, b"\x93\xAD\x25\x50\x9C\xB4\x11\xE7"
             b"\xB4\x23\x83\xDE\x96\x8B\xCD\x7C")]
    blob = b""
    for i, (t, d) in enumerate(ctxs):
        if i:
            blob += b"\0" * (-len(blob) % 8)
        blob += le16(t) + le16(len(d)) + le32(0) + d
    body = le16(36) + le16(len(dialects)) + le16(1) + le16(0) + le32(0x7F) \
        + b"g" * 16 + le32(off if 0x311 in dialects else 0) + \
        le16(len(ctxs) if 0x311 in dialects else 0) + le16(0) + \
        b"".join(le16(d) for d in dialects)
    if 0x311 in dialects:
        body += b"\0" * (off - 64 - fixed) + blob
    return body


def smb2_create(name, disposition=1, access=0x12019F, options=0,
                ctx=b"", oplock=0):
    n = utf16(name)
    buf = n if n else b"\0"
    coff = 0
    if ctx:
        buf += b"\0" * (-len(buf) % 8)
        coff = 120 + len(buf)
        buf += ctx
    return le16(57) + b"\0" + bytes([oplock]) + le32(2) + le64(0) + \
        le64(0) + \
        le32(access) + le32(0x80) + le32(7) + le32(disposition) + \
        le32(options) + le16(120) + le16(len(n)) + le32(coff) + \
        le32(len(ctx)) + buf


def smb2_ctx(items):
    out = b""
    for i, (name, data) in enumerate(items):
        doff = 24 if data else 0
        e = le32(0) + le16(16) + le16(4) + le16(0) + le16(doff) + \
            le32(len(data)) + name + b"\0" * 4 + data
        if i < len(items) - 1:
            e += b"\0" * (-len(e) % 8)
            e = le32(len(e)) + e[4:]
        out += e
    return out


def smb2_seeds():
    """fuzz_smb2: a control byte, then direct-TCP frames (see its top)."""
    ff = b"\xff" * 16
    echo = le16(4) + le16(0)
    close = le16(24) + le16(1) + le32(0) + ff
    ntlm_neg = b"NTLMSSP\0" + le32(1) + le32(0xE2088297) + b"\0" * 16 + \
        b"\x0a\x00\x63\x45\x00\x00\x00\x0f"
    share = utf16("\\\\127.0.0.1\\share")
    tcon = le16(9) + le16(0) + le16(72) + le16(len(share)) + share
    ipc = utf16("\\\\127.0.0.1\\IPC$")
    tcon_ipc = le16(9) + le16(0) + le16(72) + le16(len(ipc)) + ipc
    rel = 4  # SMB2_FLAGS_RELATED_OPERATIONS

    def read(n, off=0):
        return le16(49) + b"\0\0" + le32(n) + le64(off) + ff + le32(0) + \
            le32(0) + le32(0) + le16(0) + le16(0) + b"\0"

    def write(data, off=0):
        return le16(49) + le16(112) + le32(len(data)) + le64(off) + ff + \
            le32(0) + le32(0) + le16(0) + le16(0) + le32(0) + data

    def qinfo(itype, cls, outlen=4096, extra=0):
        return le16(41) + bytes([itype, cls]) + le32(outlen) + le16(0) + \
            le16(0) + le32(0) + le32(extra) + le32(0) + ff + b"\0"

    def sinfo(cls, data, itype=1):
        return le16(33) + bytes([itype, cls]) + le32(len(data)) + \
            le16(96) + le16(0) + le32(0) + ff + data

    def qdir(pattern, flags=1, cls=37):
        p = utf16(pattern)
        return le16(33) + bytes([cls, flags]) + le32(0) + ff + le16(96) + \
            le16(len(p)) + le32(65536) + p

    def lock(off, n, flags):
        return le16(48) + le16(1) + le32(0) + ff + le64(off) + le64(n) + \
            le32(flags) + le32(0)

    s = {}
    neg = smb2_negotiate()
    ss = le16(25) + b"\0\1" + le32(1) + le32(0) + le16(88) + \
        le16(len(ntlm_neg)) + le64(0) + ntlm_neg
    s["neg311-setup"] = b"\0" + smb2_frame((smb2_hdr(0, 0, sid=0), neg)) + \
        smb2_frame((smb2_hdr(1, 1, sid=0), ss))
    smb1 = b"\xffSMB\x72" + b"\0" * 4 + b"\x18\x53\xc8" + b"\0" * 12 + \
        le16(0) + le16(0xFEFF) + le16(0) + le16(0)
    strings = b"\x02NT LM 0.12\0\x02SMB 2.002\0\x02SMB 2.???\0"
    smb1 += b"\0" + le16(len(strings)) + strings
    s["smb1-upgrade"] = b"\0" + struct.pack(">I", len(smb1)) + smb1 + \
        smb2_frame((smb2_hdr(0, 1, sid=0), neg))
    s["neg30-nosession"] = b"\0" + smb2_frame(
        (smb2_hdr(0, 0, sid=0), smb2_negotiate((0x300, 0x210)))) + \
        smb2_frame((smb2_hdr(13, 1, sid=0), echo)) + \
        smb2_frame((smb2_hdr(3, 2, sid=0), tcon)) + \
        smb2_frame((smb2_hdr(5, 3, sid=77), smb2_create("hello.txt")))
    s["neg-echo-compound"] = b"\0" + smb2_frame(
        (smb2_hdr(0, 0, sid=0), neg)) + smb2_frame(
        *[(smb2_hdr(13, 1 + i, sid=0), echo) for i in range(8)])
    t = smb2_frame((smb2_hdr(3, 0), tcon))
    s["read-query"] = b"\1" + t + smb2_frame(
        (smb2_hdr(5, 1), smb2_create("hello.txt"))
        , (smb2_hdr(8, 2, rel), read(100))
        , (smb2_hdr(16, 3, rel), qinfo(1, 4))
        , (smb2_hdr(16, 4, rel), qinfo(1, 18))
        , (smb2_hdr(16, 5, rel), qinfo(3, 0, extra=7))
        , (smb2_hdr(16, 6, rel), qinfo(2, 5))
        , (smb2_hdr(6, 7, rel), close))
    s["write-lock"] = b"\3" + t + smb2_frame(
        (smb2_hdr(5, 1), smb2_create("new.txt", 3, 0x12019F, 0x40,
                                     smb2_ctx([(b"MxAc", b""),
                                               (b"QFid", b"")])))
        , (smb2_hdr(9, 2, rel), write(b"fuzz data\n" * 4))
        , (smb2_hdr(7, 3, rel), le16(24) + le16(0) + le32(0) + ff)
        , (smb2_hdr(17, 4, rel), sinfo(20, le64(7)))
        , (smb2_hdr(10, 5, rel), lock(0, 10, 0x12))
        , (smb2_hdr(10, 6, rel), lock(0, 10, 0x4))
        , (smb2_hdr(6, 7, rel), close))
    # durable handles: granted with a batch oplock (v1, then v2 twice with
    # one CreateGuid), a reconnect of an unknown FileId; the end of the
    # input keeps them for a reconnect
    dh2q = smb2_ctx([(b"DH2Q", le32(1000) + le32(0) + b"\0" * 8 +
                      b"G" * 16)])
    s["durable"] = b"\3" + t + smb2_frame(
        (smb2_hdr(5, 1), smb2_create("dur.txt", 5, 0x12019F, 0x40,
                                     smb2_ctx([(b"DHnQ", b"\0" * 16)]),
                                     oplock=9))
        , (smb2_hdr(9, 2, rel), write(b"durable!"))) + smb2_frame(
        (smb2_hdr(5, 3), smb2_create("dur.txt", 1, 0, 0,
                                     smb2_ctx([(b"DHnC", b"\1" * 16)])))) + \
        smb2_frame((smb2_hdr(5, 4), smb2_create("dur2.txt", 5, 0x12019F,
                                                0x40, dh2q, oplock=9))) + \
        smb2_frame((smb2_hdr(5, 5), smb2_create("dur3.txt", 5, 0x12019F,
                                                0x40, dh2q, oplock=9)))
    s["dir-list"] = b"\5" + t + smb2_frame(
        (smb2_hdr(5, 1), smb2_create("sub", 1, 0x100081, 1))
        , (smb2_hdr(14, 2, rel), qdir("*"))
        , (smb2_hdr(14, 3, rel), qdir("*.txt", 0, 3))
        , (smb2_hdr(14, 4, rel), qdir("<", 1, 2))
        , (smb2_hdr(6, 5, rel), close))
    newname = utf16("sub\\renamed.txt")
    s["rename-delete"] = b"\7" + t + smb2_frame(
        (smb2_hdr(5, 1), smb2_create("sub\\inner.txt", 1, 0x13019F))
        , (smb2_hdr(17, 2, rel), sinfo(10, b"\0" * 8 + le64(0) +
                                       le32(len(newname)) + newname))
        , (smb2_hdr(17, 3, rel), sinfo(13, b"\1"))
        , (smb2_hdr(6, 4, rel), close))
    s["notify-cancel"] = b"\1" + t + smb2_frame(
        (smb2_hdr(5, 1), smb2_create("", 1, 0x100081, 1))
        , (smb2_hdr(15, 2, rel), le16(32) + le16(1) + le32(4096) + ff +
           le32(0x17) + le32(0))) + smb2_frame(
        (smb2_hdr(12, 2), echo)) + smb2_frame((smb2_hdr(13, 3), echo))
    s["ipc-logoff"] = b"\1" + smb2_frame((smb2_hdr(3, 0), tcon_ipc)) + \
        smb2_frame((smb2_hdr(5, 1), smb2_create("srvsvc"))) + \
        smb2_frame((smb2_hdr(4, 2), echo)) + t.replace(
        le64(0) + le32(0xFEFF), le64(3) + le32(0xFEFF), 1) + \
        smb2_frame((smb2_hdr(2, 4), echo))
    # an oplock broken by a second open, which parks until the answer;
    # then a write breaks level II, and an answer with none out
    def brk_ack(level, fid):
        return le16(24) + bytes([level]) + b"\0" + le32(0) + le64(fid) + \
            le64(fid)
    s["oplock-break"] = b"\1" + t + smb2_frame(
        (smb2_hdr(5, 1), smb2_create("hello.txt", oplock=9))) + \
        smb2_frame((smb2_hdr(5, 2), smb2_create("hello.txt", oplock=9))) + \
        smb2_frame((smb2_hdr(18, 3), brk_ack(1, 1))) + \
        smb2_frame((smb2_hdr(9, 4), write(b"x").replace(ff, le64(2) +
                                                        le64(2)))) + \
        smb2_frame((smb2_hdr(18, 5), brk_ack(0, 1))) + \
        smb2_frame((smb2_hdr(5, 6), smb2_create("hello.txt", 5,
                                                oplock=8)))
    # the same streams sealed by the harness (control bit 3: 3.1.1 with
    # AES-128-GCM, 3.0.2 and 3.0 with AES-128-CCM), and one altered after
    # sealing (bit 4)
    for name in ("read-query", "write-lock", "dir-list", "oplock-break"):
        s[f"sealed-{name}"] = bytes([s[name][0] | 8]) + s[name][1:]
    s["sealed-altered"] = bytes([s["read-query"][0] | 0x18]) + \
        s["read-query"][1:]
    return s


def cb_reply_seeds():
    """Replies to CB_COMPOUND(CB_SEQUENCE, CB_RECALL or CB_GETATTR), and
    to a 4.0 CB_COMPOUND(CB_GETATTR)."""
    def reply(status, ops, verf=b""):
        return (u32(0x1234) + u32(1) + u32(0) + u32(0) + opaque(verf)
                + u32(0) + u32(status) + opaque(b"") + u32(len(ops))
                + b"".join(ops))
    seq = u32(11) + u32(0) + b"S" * 16 + u32(1) + u32(0) + u32(0) + u32(0)
    # fattr4 of change (bit 3) and size (bit 4)
    attrs = u32(1) + u32(0x18) + opaque(struct.pack(">QQ", 7, 4096))
    return {
        "ok": reply(0, [seq, u32(4) + u32(0)]),
        "recall-bad-stateid": reply(10025, [seq, u32(4) + u32(10025)]),
        "seq-misordered": reply(10063, [u32(11) + u32(10063)]),
        "verifier": reply(0, [seq, u32(4) + u32(0)], verf=b"v" * 8),
        "denied": u32(0x1234) + u32(1) + u32(1) + u32(0) + u32(2) + u32(2),
        "getattr41": reply(0, [seq, u32(3) + u32(0) + attrs]),
        "getattr40": reply(0, [u32(3) + u32(0) + attrs]),
    }


def write_corpus(root, target, seeds):
    d = os.path.join(root, target)
    os.makedirs(d, exist_ok=True)
    for name in os.listdir(d):
        if name.startswith("gen-"):
            os.unlink(os.path.join(d, name))
    for name, data in seeds.items():
        if isinstance(data, str):
            data = data.encode()
        with open(os.path.join(d, "gen-" + name), "wb") as f:
            f.write(data)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "corpus")
    write_corpus(root, "fuzz_rpc", rpc_seeds())
    write_corpus(root, "fuzz_nfs3_args", args_seeds())
    write_corpus(root, "fuzz_mount_args", mount_seeds())
    write_corpus(root, "fuzz_nlm_args", nlm_seeds())
    write_corpus(root, "fuzz_record", record_seeds())
    write_corpus(root, "fuzz_exports", exports_seeds())
    write_corpus(root, "fuzz_nfs4", nfs4_seeds())
    write_corpus(root, "fuzz_spnego", spnego_seeds())
    write_corpus(root, "fuzz_ntlmssp", ntlmssp_seeds())
    write_corpus(root, "fuzz_smb2_fscc", fscc_seeds())
    write_corpus(root, "fuzz_smb2", smb2_seeds())
    write_corpus(root, "fuzz_cb_reply", cb_reply_seeds())


if __name__ == "__main__":
    main()
