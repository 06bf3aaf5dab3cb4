#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Write tests/unit/smb2_fscc_vectors.h: golden bytes for test_smb2_fscc.c.

usage: /usr/bin/python3 tests/unit/gen_smb2_fscc_vectors.py > \
           tests/unit/smb2_fscc_vectors.h

The bytes come from impacket's own MS-FSCC / MS-DTYP structures (Debian's
python3-impacket 0.10, hence /usr/bin/python3), not from nasd's encoders,
so the unit test compares nasd against an independent implementation. The
values match the test's fixtures (test_smb2_fscc.c, struct fscc_file_info
fi_file and friends): change both together.
"""

import struct
import sys

from impacket import smb, smb3structs
from impacket.ldap import ldaptypes

# Must equal the test's fixture (make_fi()).
CREATE, ACCESS, WRITE, CHANGE = (0x01D9000000000001, 0x01D9000000000002,
                                 0x01D9000000000003, 0x01D9000000000004)
ALLOC, EOF, FILE_ID, ATTRS = 8192, 5000, 0x0000000100000123, 0x20
NAME = "hello.txt"


def u16(s):
    return s.encode("utf-16-le")


def dir_common(e):
    e["NextEntryOffset"] = 0
    e["FileIndex"] = 0
    e["CreationTime"] = CREATE
    e["LastAccessTime"] = ACCESS
    e["LastWriteTime"] = WRITE
    e["LastChangeTime"] = CHANGE
    e["EndOfFile"] = EOF
    e["AllocationSize"] = ALLOC
    e["ExtFileAttributes"] = ATTRS
    e["FileName"] = u16(NAME)
    return e


def dir_vectors():
    flags = smb.SMB.FLAGS2_UNICODE
    v = {}
    e = dir_common(smb.SMBFindFileDirectoryInfo(flags))
    v["dir_directory"] = e.getData()
    e = dir_common(smb.SMBFindFileFullDirectoryInfo(flags))
    e["EaSize"] = 0
    v["dir_full"] = e.getData()
    e = dir_common(smb.SMBFindFileBothDirectoryInfo(flags))
    e["ShortName"] = b"\0" * 24
    v["dir_both"] = e.getData()
    e = dir_common(smb.SMBFindFileIdBothDirectoryInfo(flags))
    e["ShortName"] = b"\0" * 24
    e["FileID"] = FILE_ID
    v["dir_id_both"] = e.getData()
    e = dir_common(smb.SMBFindFileIdFullDirectoryInfo(flags))
    e["FileID"] = FILE_ID
    v["dir_id_full"] = e.getData()
    e = smb.SMBFindFileNamesInfo(flags)
    e["NextEntryOffset"] = 0
    e["FileIndex"] = 0
    e["FileName"] = u16(NAME)
    v["dir_names"] = e.getData()
    return v


def all_info():
    a = smb3structs.FILE_ALL_INFORMATION()
    b = smb3structs.FILE_BASIC_INFORMATION()
    b["CreationTime"], b["LastAccessTime"] = CREATE, ACCESS
    b["LastWriteTime"], b["ChangeTime"] = WRITE, CHANGE
    b["FileAttributes"] = ATTRS
    s = smb3structs.FILE_STANDARD_INFORMATION()
    s["AllocationSize"], s["EndOfFile"] = ALLOC, EOF
    s["NumberOfLinks"], s["DeletePending"], s["Directory"] = 2, 1, 0
    i = smb3structs.FILE_INTERNAL_INFORMATION()
    i["IndexNumber"] = FILE_ID
    ea = smb3structs.FILE_EA_INFORMATION()
    ea["EaSize"] = 0
    ac = smb3structs.FILE_ACCESS_INFORMATION()
    ac["AccessFlags"] = 0x001F01FF
    p = smb3structs.FILE_POSITION_INFORMATION()
    p["CurrentByteOffset"] = 0
    m = smb3structs.FILE_MODE_INFORMATION()
    m["Mode"] = 0x20
    al = smb3structs.FILE_ALIGNMENT_INFORMATION()
    al["AlignmentRequirement"] = 0
    n = smb3structs.FILE_NAME_INFORMATION()
    n["FileName"] = u16("\\dir\\f.txt")
    n["FileNameLength"] = len(n["FileName"])
    a["BasicInformation"], a["StandardInformation"] = b, s
    a["InternalInformation"], a["EaInformation"] = i, ea
    a["AccessInformation"], a["PositionInformation"] = ac, p
    a["ModeInformation"], a["AlignmentInformation"] = m, al
    a["NameInformation"] = n
    return a.getData()


def rename():
    r = smb3structs.FILE_RENAME_INFORMATION_TYPE_2()
    r["ReplaceIfExists"] = 1
    r["Reserved"] = b"\x11" * 7  # any value: must be ignored
    r["RootDirectory"] = 0
    r["FileName"] = u16("dir\\new.txt")
    r["FileNameLength"] = len(r["FileName"])
    return r.getData()


def ea_list():
    out = b""
    items = [(0x00, b"user.one", b"abc"), (0x80, b"B", b"")]
    for k, (flags, name, value) in enumerate(items):
        e = smb3structs.FILE_FULL_EA_INFORMATION()
        e["Flags"] = flags
        e["EaNameLength"] = len(name)
        e["EaValueLength"] = len(value)
        e["EaName"] = name + b"\0"  # the NUL MS-FSCC 2.4.15 requires
        e["EaValue"] = value
        raw = e.getData()
        if k + 1 < len(items):
            pad = (4 - len(raw) % 4) % 4
            raw = struct.pack("<L", len(raw) + pad) + raw[4:] + b"\0" * pad
        out += raw
    return out


def sid(s):
    x = ldaptypes.LDAP_SID()
    x.fromCanonical(s)
    return x


def ace(kind, mask, trustee, flags=0):
    a = ldaptypes.ACE()
    a["AceType"] = kind
    a["AceFlags"] = flags
    body = (ldaptypes.ACCESS_ALLOWED_ACE() if kind == 0 else
            ldaptypes.ACCESS_DENIED_ACE())
    body["Mask"] = ldaptypes.ACCESS_MASK()
    body["Mask"]["Mask"] = mask
    body["Sid"] = sid(trustee)
    a["Ace"] = body
    return a


def acl(aces):
    a = ldaptypes.ACL()
    a["AclRevision"] = 2
    a["Sbz1"] = 0
    a["Sbz2"] = 0
    a.aces = aces
    return a.getData()


OWNER_EXTRA = 0x00020000 | 0x00040000 | 0x80 | 0x100
R, W, X, ALL = 0x00120089, 0x00120116, 0x001200A0, 0x001F01FF


def sd_nasd_order(owner, group, dacl):
    """Header, owner, group, DACL: the layout nasd writes."""
    o, g = sid(owner).getData(), sid(group).getData()
    hdr = struct.pack("<BBHLLLL", 1, 0, 0x8004, 20, 20 + len(o), 0,
                      20 + len(o) + len(g))
    return hdr + o + g + dacl


def sd_vectors():
    v = {}
    # uid 1000, gid 100, mode 0754 on a file: owner rwx, group r-x, other r
    v["sd_0754"] = sd_nasd_order(
        "S-1-22-1-1000", "S-1-22-2-100",
        acl([ace(0, ALL | OWNER_EXTRA, "S-1-22-1-1000"),
             ace(0, R | X, "S-1-22-2-100"),
             ace(0, R, "S-1-1-0")]))
    # mode 0604: Everyone's read must be denied to the group first
    v["sd_0604"] = sd_nasd_order(
        "S-1-22-1-1000", "S-1-22-2-100",
        acl([ace(1, 0x1, "S-1-22-2-100"),
             ace(0, R | W | OWNER_EXTRA, "S-1-22-1-1000"),
             ace(0, 0, "S-1-22-2-100"),
             ace(0, R, "S-1-1-0")]))
    # What a Windows-style writer produces (impacket's layout: SACL, DACL,
    # owner, group), with an inherit-only CREATOR OWNER ACE, for the parser
    sd = ldaptypes.SR_SECURITY_DESCRIPTOR()
    sd["Revision"] = b"\x01"
    sd["Sbz1"] = b"\x00"
    sd["Control"] = 0x8004
    sd["OwnerSid"] = sid("S-1-22-1-2000")
    sd["GroupSid"] = sid("S-1-22-2-300")
    sd["Sacl"] = b""
    d = ldaptypes.ACL()
    d["AclRevision"], d["Sbz1"], d["Sbz2"] = 2, 0, 0
    d.aces = [ace(0, ALL, "S-1-22-1-2000"),
              ace(0, R | X, "S-1-22-2-300"),
              ace(0, ALL, "S-1-3-0", flags=0x0B)]
    sd["Dacl"] = d
    v["sd_win_0750"] = sd.getData()
    return v


def carray(name, data):
    lines = ["static const uint8_t vec_%s[%d] = {" % (name, len(data))]
    for i in range(0, len(data), 12):
        lines.append("\t" + " ".join("0x%02x," % b for b in data[i:i + 12]))
    lines.append("};")
    return "\n".join(lines)


def main():
    vecs = {}
    vecs.update(dir_vectors())
    vecs["all_info"] = all_info()
    vecs["rename"] = rename()
    vecs["ea_list"] = ea_list()
    vecs.update(sd_vectors())
    out = ["/* SPDX-License-Identifier: MIT */",
           "/* Generated by tests/unit/gen_smb2_fscc_vectors.py from "
           "impacket's structures;",
           " * do not edit. */",
           "#ifndef NASD_TESTS_UNIT_SMB2_FSCC_VECTORS_H",
           "#define NASD_TESTS_UNIT_SMB2_FSCC_VECTORS_H",
           "", "#include <stdint.h>", ""]
    for k, v in vecs.items():
        out.append(carray(k, v))
        out.append("")
    out.append("#endif")
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
