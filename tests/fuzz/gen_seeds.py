#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the hand-made seed corpora of the libFuzzer targets.

usage: tests/fuzz/gen_seeds.py [CORPUS_DIR]    (default: tests/fuzz/corpus)

Each target gets a handful of valid inputs in CORPUS_DIR/<target>/, named
gen-<what>. Inputs for fuzz_rpc name handles and paths with the tokens
that fuzz_rpc.c replaces at run time (handles depend on the inodes of the
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
    write_corpus(root, "fuzz_record", record_seeds())
    write_corpus(root, "fuzz_exports", exports_seeds())


if __name__ == "__main__":
    main()
