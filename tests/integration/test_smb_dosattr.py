#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Windows attributes and creation time kept by nasd, with impacket's SMB3
client.

usage: test_smb_dosattr.py NASD

HIDDEN, SYSTEM, ARCHIVE, SPARSE_FILE, a directory's READONLY and the
creation time are kept in the xattr user.DOSATTRIB in Samba's layout:
set by CREATE and SET_INFO FileBasicInformation, reported by QUERY_INFO,
CLOSE and QUERY_DIRECTORY, read from what Samba 4.17 writes, written only
when they differ from what nasd derives; a file's READONLY stays its
mode's; overwriting a hidden or system file must name those attributes;
the xattr is no EA; garbage in it is ignored. Exit 0, 1 on a failure, 77
without impacket.
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
    print("SKIP: test_smb_dosattr: no impacket (apt-get install python3-impacket)")
    sys.exit(77)

import smbtest
from smbtest import check, status_of

NASD = sys.argv[1] if len(sys.argv) > 1 else "build/nasd"






HIDDEN, SYSTEM, ARCHIVE, DIRECTORY, NORMAL = 0x2, 0x4, 0x20, 0x10, 0x80
READONLY, SPARSE = 0x1, 0x200
XNAME = "user.DOSATTRIB"
# 2001-01-01T00:00:00Z as a FILETIME
T2001 = (978307200 + 11644473600) * 10000000
# what Samba 4.17 wrote for a file it made hidden and system
SAMBA = bytes.fromhex("0000050005000000110000002600000081399c180482dd01")




def basic(c, tid, fid):
    """(creation time, attributes) from FileBasicInformation."""
    b = c.queryInfo(tid, fid, infoType=1, fileInfoClass=4)
    ctime = struct.unpack_from("<Q", b, 0)[0]
    attrs = struct.unpack_from("<I", b, 32)[0]
    return ctime, attrs


def set_basic(c, tid, fid, ctime=0, attrs=0):
    c.setInfo(tid, fid, struct.pack("<QQQQII", ctime, 0, 0, 0, attrs, 0),
              infoType=1, fileInfoClass=4)


def main():
    return smbtest.serve(NASD, "nasd-test-smbdos.", "dora", "Dos-pass1",
                         {"share": ("", "rw,root_squash")}, run)


def xattr(path):
    try:
        return os.getxattr(path, XNAME)
    except OSError:
        return None


def run(exp, sport):
    # 3.0: impacket 0.10.0's 3.1.1 signatures are wrong (test_smb_eas.py)
    conn = SMBConnection("127.0.0.1", "127.0.0.1", sess_port=sport,
                         preferredDialect=s3.SMB2_DIALECT_30)
    conn.login("dora", "Dos-pass1")
    c = conn.getSMBServer()
    tid = conn.connectTree("share")
    rw = (s3.FILE_READ_DATA | s3.FILE_WRITE_DATA | s3.FILE_READ_EA |
          s3.FILE_READ_ATTRIBUTES | s3.FILE_WRITE_ATTRIBUTES | s3.DELETE)
    share = s3.FILE_SHARE_READ | s3.FILE_SHARE_WRITE | s3.FILE_SHARE_DELETE

    def create(name, attrs=0, disp=s3.FILE_OPEN_IF, opts=0, access=rw):
        return c.create(tid, name, access, share, opts, disp, attrs)

    # a plain new file: derived attributes, nothing written
    fid = create("plain.txt")
    ctime, attrs = basic(c, tid, fid)
    check("plain_archive", attrs == ARCHIVE, hex(attrs))
    check("plain_no_xattr", xattr(os.path.join(exp, "plain.txt")) is None,
          repr(xattr(os.path.join(exp, "plain.txt"))))
    # the attributes and the creation time set: kept, reported, on disk
    set_basic(c, tid, fid, ctime=T2001, attrs=HIDDEN)
    ctime, attrs = basic(c, tid, fid)
    check("set_creation_time", ctime == T2001, str(ctime))
    check("set_hidden_clears_archive", attrs == HIDDEN, hex(attrs))
    raw = xattr(os.path.join(exp, "plain.txt"))
    check("xattr_samba_layout", raw is not None and len(raw) == 24 and
          raw[:8] == bytes.fromhex("0000050005000000") and
          struct.unpack_from("<IIQ", raw, 8) == (0x11, HIDDEN, T2001),
          repr(raw))
    # NORMAL alone clears them all
    set_basic(c, tid, fid, attrs=NORMAL)
    ctime, attrs = basic(c, tid, fid)
    check("set_normal", attrs == NORMAL and ctime == T2001,
          "%s %s" % (hex(attrs), ctime))
    set_basic(c, tid, fid, attrs=HIDDEN | ARCHIVE)
    c.close(tid, fid)
    fid = create("plain.txt", disp=s3.FILE_OPEN)
    ctime, attrs = basic(c, tid, fid)
    check("kept_after_reopen", attrs == HIDDEN | ARCHIVE and
          ctime == T2001, "%s %s" % (hex(attrs), ctime))
    # a file's READONLY is the mode's: set, the mode loses its write bits
    set_basic(c, tid, fid, attrs=READONLY | HIDDEN)
    mode = os.stat(os.path.join(exp, "plain.txt")).st_mode & 0o777
    _, attrs = basic(c, tid, fid)
    check("readonly_is_mode", attrs == READONLY | HIDDEN and
          not mode & 0o222, "%s %o" % (hex(attrs), mode))
    set_basic(c, tid, fid, attrs=HIDDEN)
    c.close(tid, fid)

    # CREATE with attributes: HIDDEN | SYSTEM kept, with ARCHIVE
    fid = create("hs.txt", attrs=HIDDEN | SYSTEM, disp=s3.FILE_CREATE)
    _, attrs = basic(c, tid, fid)
    check("create_hidden_system", attrs == HIDDEN | SYSTEM | ARCHIVE,
          hex(attrs))
    # the xattr is no EA
    try:
        c.queryInfo(tid, fid, infoType=1, fileInfoClass=15)
        check("xattr_not_an_ea", False, "EAs listed")
    except SessionError as e:
        check("xattr_not_an_ea", status_of(e) == 0xc0000052,
              hex(status_of(e)))
    c.close(tid, fid)
    # overwriting a hidden/system file must say so (MS-FSA 2.1.5.1.2.1)
    try:
        fid = create("hs.txt", attrs=HIDDEN, disp=s3.FILE_OVERWRITE_IF)
        c.close(tid, fid)
        check("overwrite_needs_system", False, "overwritten")
    except SessionError as e:
        check("overwrite_needs_system", status_of(e) == 0xc0000022,
              hex(status_of(e)))
    fid = create("hs.txt", attrs=HIDDEN | SYSTEM, disp=s3.FILE_OVERWRITE_IF)
    _, attrs = basic(c, tid, fid)
    check("overwrite_with_attrs", attrs == HIDDEN | SYSTEM | ARCHIVE,
          hex(attrs))
    c.close(tid, fid)

    # a directory: READONLY kept, its mode untouched
    fid = create("dir", opts=s3.FILE_DIRECTORY_FILE, disp=s3.FILE_CREATE,
                 access=s3.FILE_READ_ATTRIBUTES | s3.FILE_WRITE_ATTRIBUTES)
    before = os.stat(os.path.join(exp, "dir")).st_mode
    set_basic(c, tid, fid, attrs=READONLY | SYSTEM)
    _, attrs = basic(c, tid, fid)
    check("dir_readonly_kept", attrs == DIRECTORY | READONLY | SYSTEM and
          os.stat(os.path.join(exp, "dir")).st_mode == before,
          "%s %o" % (hex(attrs), before))
    c.close(tid, fid)

    # the listing reports them (QUERY_DIRECTORY)
    seen = {f.get_longname(): f.get_attributes()
            for f in conn.listPath("share", "*")}
    check("listing_attributes", seen.get("hs.txt") == HIDDEN | SYSTEM |
          ARCHIVE and seen.get("dir") == DIRECTORY | READONLY | SYSTEM and
          seen.get("plain.txt") == HIDDEN, str(seen))

    # what Samba wrote is read as Samba meant it
    path = os.path.join(exp, "from-samba.txt")
    open(path, "w").close()
    os.chmod(path, 0o666)
    os.setxattr(path, XNAME, SAMBA)
    fid = create("from-samba.txt", disp=s3.FILE_OPEN)
    ctime, attrs = basic(c, tid, fid)
    check("samba_xattr_read", attrs == HIDDEN | SYSTEM | ARCHIVE and
          ctime == 0x01dd8204189c3981, "%s %s" % (hex(attrs), ctime))
    c.close(tid, fid)
    # and garbage as nothing at all
    os.setxattr(path, XNAME, b"\xff" * 40)
    fid = create("from-samba.txt", disp=s3.FILE_OPEN)
    _, attrs = basic(c, tid, fid)
    check("garbage_xattr_ignored", attrs == ARCHIVE, hex(attrs))
    c.close(tid, fid)

    # SET_SPARSE: kept on an empty file, and cleared again
    fid = create("sparse.bin", disp=s3.FILE_CREATE)
    c.ioctl(tid, fid, 0x000900C4, flags=s3.SMB2_0_IOCTL_IS_FSCTL,
            inputBlob=b"\x01", maxOutputResponse=0)
    _, attrs = basic(c, tid, fid)
    check("set_sparse_kept", attrs & SPARSE, hex(attrs))
    c.ioctl(tid, fid, 0x000900C4, flags=s3.SMB2_0_IOCTL_IS_FSCTL,
            inputBlob=b"\x00", maxOutputResponse=0)
    _, attrs = basic(c, tid, fid)
    check("clear_sparse_kept", not attrs & SPARSE, hex(attrs))
    c.close(tid, fid)
    conn.logoff()


if __name__ == "__main__":
    sys.exit(main())
