#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""SMB extended attributes (EAs) against nasd, with impacket's SMB3 client.

usage: test_smb_eas.py NASD

EAs live as user. xattrs (as Samba keeps them): SET_INFO
FileFullEaInformation sets and removes them and the xattrs appear on disk;
QUERY_INFO FileFullEaInformation lists them (all, one at a time with
SL_RETURN_SINGLE_ENTRY, restarted, by a FILE_GET_EA_INFORMATION list
that names one missing), names compare ignoring case and keep their first
spelling, EaSize counts them, the ExtA create context sets them on a new
file, a file without EAs answers STATUS_NO_EAS_ON_FILE, bad names and
inconsistent lists are refused with nothing applied, and an open without
FILE_WRITE_EA / FILE_READ_EA is denied. The SecD create context sets the
owner, group and mode of a new file (an owner the user cannot give the
file to fails the CREATE). Also the volume claims EA support
and case-insensitive names. Exit 0, 1 on a failure, 77 without impacket.
"""

import os
import struct
import sys

try:
    from impacket import smb3structs as s3
    from impacket.smbconnection import SMBConnection
    # the low-level calls raise smb3's, the connection's its own
    from impacket.smb3 import SessionError
except ImportError:
    print("SKIP: test_smb_eas: no impacket (apt-get install python3-impacket)")
    sys.exit(77)

import smbtest
from smbtest import check, status_of

NASD = sys.argv[1] if len(sys.argv) > 1 else "build/nasd"






def ea_entry(name, value, last=False, flags=0):
    body = struct.pack("<BBH", flags, len(name), len(value)) + name + b"\0" + value
    size = 4 + len(body)
    pad = 0 if last else (4 - size % 4) % 4
    return struct.pack("<I", 0 if last else size + pad) + body + b"\0" * pad


def ea_list(pairs):
    return b"".join(ea_entry(n, v, i == len(pairs) - 1)
                    for i, (n, v) in enumerate(pairs))


def get_list(names):
    out = b""
    for i, n in enumerate(names):
        body = struct.pack("<B", len(n)) + n + b"\0"
        size = 4 + len(body)
        last = i == len(names) - 1
        pad = 0 if last else (4 - size % 4) % 4
        out += struct.pack("<I", 0 if last else size + pad) + body + b"\0" * pad
    return out


def parse_eas(buf):
    out, off = [], 0
    while True:
        nxt, flags, nlen, vlen = struct.unpack_from("<IBBH", buf, off)
        name = buf[off + 8:off + 8 + nlen]
        value = buf[off + 9 + nlen:off + 9 + nlen + vlen]
        out.append((name, value))
        if not nxt:
            return out
        off += nxt




def main():
    return smbtest.serve(NASD, "nasd-test-smbeas.", "eve", "Ea-pass1",
                         {"share": ("", "rw,root_squash")}, run)


def run(exp, sport):
    # 3.0: impacket 0.10.0 derives 3.1.1 keys from a preauth hash its
    # NTLM login never starts from the NEGOTIATE one (fixed upstream in
    # fortra/impacket#1373), so its 3.1.1 signatures are wrong anywhere.
    conn = SMBConnection("127.0.0.1", "127.0.0.1", sess_port=sport,
                         preferredDialect=s3.SMB2_DIALECT_30)
    conn.login("eve", "Ea-pass1")
    c = conn.getSMBServer()
    tid = conn.connectTree("share")
    rw = (s3.FILE_READ_DATA | s3.FILE_WRITE_DATA | s3.FILE_READ_EA |
          s3.FILE_WRITE_EA | s3.FILE_READ_ATTRIBUTES | s3.DELETE)

    def create(name, access=rw, disp=s3.FILE_OPEN_IF, ctx=None):
        return c.create(tid, name, access, s3.FILE_SHARE_READ |
                        s3.FILE_SHARE_WRITE | s3.FILE_SHARE_DELETE, 0, disp,
                        0, createContexts=ctx)

    fid = create("a.txt")
    path = os.path.join(exp, "a.txt")
    try:
        c.queryInfo(tid, fid, infoType=1, fileInfoClass=15)
        check("no_eas_on_file", False, "query answered")
    except SessionError as e:
        check("no_eas_on_file", status_of(e) == 0xc0000052,
              hex(status_of(e)))

    c.setInfo(tid, fid, ea_list([(b"Color", b"blue"), (b"Size", b"42")]),
              infoType=1, fileInfoClass=15)
    check("xattrs_on_disk",
          os.getxattr(path, "user.Color") == b"blue" and
          os.getxattr(path, "user.Size") == b"42",
          str(os.listxattr(path)))
    eas = parse_eas(c.queryInfo(tid, fid, infoType=1, fileInfoClass=15,
                                flags=1))
    check("query_all", sorted(eas) == [(b"Color", b"blue"), (b"Size", b"42")],
          str(eas))
    one = parse_eas(c.queryInfo(tid, fid, infoType=1, fileInfoClass=15,
                                flags=3))
    two = parse_eas(c.queryInfo(tid, fid, infoType=1, fileInfoClass=15,
                                flags=2))
    check("query_single_entries", len(one) == 1 and len(two) == 1 and
          sorted(one + two) == sorted(eas), "%s %s" % (one, two))
    try:
        c.queryInfo(tid, fid, infoType=1, fileInfoClass=15, flags=2)
        check("query_no_more_eas", False, "answered after the last")
    except SessionError as e:
        check("query_no_more_eas", status_of(e) == 0x80000012,
              hex(status_of(e)))
    got = parse_eas(c.queryInfo(tid, fid, get_list([b"SIZE", b"Missing"]),
                                infoType=1, fileInfoClass=15))
    check("query_by_names", got == [(b"Size", b"42"), (b"Missing", b"")],
          str(got))
    # same name in another case: the value changes, the spelling stays
    c.setInfo(tid, fid, ea_list([(b"COLOR", b"red")]), infoType=1,
              fileInfoClass=15)
    check("case_insensitive_name_kept",
          os.getxattr(path, "user.Color") == b"red" and
          "user.COLOR" not in os.listxattr(path), str(os.listxattr(path)))
    info = c.queryInfo(tid, fid, infoType=1, fileInfoClass=7)
    easize = struct.unpack("<I", info[:4])[0]
    want = (8 + 5 + 1 + 3 + 3) + (8 + 4 + 1 + 2)  # Color=red padded, Size=42
    check("ea_size", easize == want, "%d, want %d" % (easize, want))
    # delete by a value of 0 bytes
    c.setInfo(tid, fid, ea_list([(b"size", b"")]), infoType=1,
              fileInfoClass=15)
    check("delete_by_empty_value", "user.Size" not in os.listxattr(path),
          str(os.listxattr(path)))

    # EaSize follows every change, ours and another process's (the names
    # are remembered under the ctime)
    def ea_size():
        info = c.queryInfo(tid, fid, infoType=1, fileInfoClass=7)
        return struct.unpack("<I", info[:4])[0]
    color = 8 + 5 + 1 + 3
    check("ea_size_after_delete", ea_size() == color,
          "%d, want %d" % (ea_size(), color))
    os.setxattr(path, "user.Local", b"xyz")
    local = 8 + 5 + 1 + 3
    got = ea_size()
    check("ea_size_outside_set", got == color + 3 + local,
          "%d, want %d" % (got, color + 3 + local))
    os.removexattr(path, "user.Local")
    got = ea_size()
    check("ea_size_outside_remove", got == color,
          "%d, want %d" % (got, color))
    # refusals, nothing applied
    for name, blob, want in [
            ("bad_name", ea_list([(b"ok", b"1"), (b"a*b", b"2")]),
             0x80000013),
            ("inconsistent", struct.pack("<IBBH", 3, 0, 2, 1) + b"ab\0x",
             0x80000014)]:
        try:
            c.setInfo(tid, fid, blob, infoType=1, fileInfoClass=15)
            check(name + "_refused", False, "accepted")
        except SessionError as e:
            check(name + "_refused", status_of(e) == want, hex(status_of(e)))
    check("refusals_applied_nothing", "user.ok" not in os.listxattr(path),
          str(os.listxattr(path)))
    c.close(tid, fid)

    # access checks
    fid = create("a.txt", access=s3.FILE_READ_DATA)
    for name, fn in [("set_needs_write_ea",
                      lambda: c.setInfo(tid, fid, ea_list([(b"x", b"1")]),
                                        infoType=1, fileInfoClass=15)),
                     ("query_needs_read_ea",
                      lambda: c.queryInfo(tid, fid, infoType=1,
                                          fileInfoClass=15))]:
        try:
            fn()
            check(name, False, "allowed")
        except SessionError as e:
            check(name, status_of(e) == 0xc0000022, hex(status_of(e)))
    c.close(tid, fid)

    # ExtA on create
    ctx = s3.SMB2CreateContext()
    ctx["Buffer"] = b"ExtA" + b"\0" * 4 + ea_list([(b"Made", b"atcreate")])
    ctx["Next"] = 0
    ctx["NameOffset"] = 16
    ctx["NameLength"] = 4
    ctx["DataOffset"] = 24
    ctx["DataLength"] = len(ctx["Buffer"]) - 8
    fid = create("b.txt", disp=s3.FILE_CREATE, ctx=[ctx])
    c.close(tid, fid)
    check("exta_on_create",
          os.getxattr(os.path.join(exp, "b.txt"), "user.Made") ==
          b"atcreate", str(os.listxattr(os.path.join(exp, "b.txt"))))

    # SecD on create: owner, group and mode from a security descriptor
    def sid(auth, *subs):
        return bytes([1, len(subs)]) + b"\0" * 5 + bytes([auth]) + \
            b"".join(struct.pack("<I", x) for x in subs)

    def ace(mask, trustee):
        return bytes([0, 0]) + struct.pack("<HI", 8 + len(trustee), mask) + \
            trustee

    u, g = sid(22, 1, 1234), sid(22, 2, 1234)
    aces = [ace(0x1F01FF, u), ace(0x1200A9, g)]
    acl = bytes([2, 0]) + struct.pack("<HHH", 8 + sum(map(len, aces)),
                                      len(aces), 0) + b"".join(aces)
    sdbytes = bytes([1, 0]) + struct.pack("<HIIII", 0x8004, 20,
                                          20 + len(u), 0,
                                          20 + len(u) + len(g)) + u + g + acl
    ctx = s3.SMB2CreateContext()
    name = b"SecD"
    ctx["Next"] = 0
    ctx["NameOffset"] = 16
    ctx["NameLength"] = 4
    ctx["DataOffset"] = 24
    ctx["DataLength"] = len(sdbytes)
    ctx["Buffer"] = name + b"\0" * 4 + sdbytes
    fid = create("secd.txt", disp=s3.FILE_CREATE, ctx=[ctx])
    c.close(tid, fid)
    stt = os.stat(os.path.join(exp, "secd.txt"))
    check("secd_on_create_mode", stt.st_mode & 0o777 == 0o750,
          oct(stt.st_mode))
    check("secd_on_create_owner", (stt.st_uid, stt.st_gid) == (1234, 1234),
          "%d:%d" % (stt.st_uid, stt.st_gid))
    # an owner the user may not give away to: refused
    other = bytes([1, 0]) + struct.pack("<HIIII", 0x8004, 20, 0, 0, 0) + \
        sid(22, 1, 4321)
    ctx["DataLength"] = len(other)
    ctx["Buffer"] = name + b"\0" * 4 + other
    try:
        # no FILE_SHARE_DELETE: the failed CREATE still removes its file
        fid = c.create(tid, "secd2.txt", rw, s3.FILE_SHARE_READ, 0,
                       s3.FILE_CREATE, 0, createContexts=[ctx])
        c.close(tid, fid)
        check("secd_foreign_owner_refused", False, "created")
    except SessionError as e:
        check("secd_foreign_owner_refused", True, hex(status_of(e)))
    check("secd_refused_file_not_left",
          not os.path.exists(os.path.join(exp, "secd2.txt")),
          str(os.listdir(exp)))

    # the volume says so
    fid = create("", access=s3.FILE_READ_ATTRIBUTES, disp=s3.FILE_OPEN)
    attrs = c.queryInfo(tid, fid, infoType=2, fileInfoClass=5)
    fsattr = struct.unpack("<I", attrs[:4])[0]
    check("volume_supports_eas", fsattr & 0x00800000, hex(fsattr))
    check("volume_case_insensitive", not fsattr & 0x1, hex(fsattr))
    c.close(tid, fid)
    conn.logoff()


if __name__ == "__main__":
    sys.exit(main())
