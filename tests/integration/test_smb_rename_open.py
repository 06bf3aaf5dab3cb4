#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""SMB rename of a directory with something open below it, with impacket.

usage: test_smb_rename_open.py NASD

Windows and Samba refuse to rename a directory while a file or directory
below it is open (STATUS_ACCESS_DENIED), whoever holds that open; nasd
asks its registry of SMB opens, by the kernel's current names. Checks,
with two connections (the opener and the renamer are different sessions):
  - a file open in A/ (from connection 1): renaming A (connection 2) is
    denied; after the file is closed the rename succeeds;
  - a file deeper (A/s/t/f) blocks A too, and so does an open of a
    directory below (A/sub), not only of files;
  - a file open in a sibling directory (S/) does not block A; renaming a
    file (not a directory) next to an open one is unaffected, and an open
    file renames itself;
  - another open of A itself (sharing all) does not block its rename;
  - an open through a second share whose root is inside A blocks A;
  - names as they are now, not as the open was made: a directory moved
    under the server by a local rename (the kernel sees an NFS client's
    rename the same way) takes its open files along: the old parent
    renames, the new one does not;
  and the server exits 0 on SIGTERM without a sanitizer report. Exit 0,
1 on a failure, 77 without impacket.
"""

import os
import struct
import sys

try:
    from impacket import smb3structs as s3
    from impacket.smbconnection import SMBConnection
    from impacket.smb3 import SessionError
except ImportError:
    print("SKIP: test_smb_rename_open: no impacket "
          "(apt-get install python3-impacket)")
    sys.exit(77)

import smbtest
from smbtest import check, status_of

NASD = sys.argv[1] if len(sys.argv) > 1 else "build/nasd"
ACCESS_DENIED = 0xc0000022
SHARE_ALL = s3.FILE_SHARE_READ | s3.FILE_SHARE_WRITE | s3.FILE_SHARE_DELETE








class Client:
    """One SMB connection and session, on one or more trees."""

    def __init__(self, sport, share="share"):
        # 3.0: impacket 0.10.0's 3.1.1 signatures are wrong (its preauth
        # hash misses the NEGOTIATE; fortra/impacket#1373).
        self.conn = SMBConnection("127.0.0.1", "127.0.0.1", sess_port=sport,
                                  preferredDialect=s3.SMB2_DIALECT_30)
        self.conn.login("ren", "Ren-pass1")
        self.c = self.conn.getSMBServer()
        self.tid = self.conn.connectTree(share)

    def open(self, name, is_dir=False, disp=s3.FILE_OPEN):
        opts = s3.FILE_DIRECTORY_FILE if is_dir else s3.FILE_NON_DIRECTORY_FILE
        access = (s3.FILE_READ_DATA | s3.FILE_READ_ATTRIBUTES |
                  s3.DELETE)
        if not is_dir:
            access |= s3.FILE_WRITE_DATA
        return self.c.create(self.tid, name, access, SHARE_ALL, opts, disp,
                             0)

    def close(self, fid):
        self.c.close(self.tid, fid)

    def rename(self, fid, new):
        """SET_INFO FileRenameInformation; the NTSTATUS (0: success)."""
        name = new.encode("utf-16-le")
        blob = struct.pack("<B7xQI", 0, 0, len(name)) + name
        try:
            self.c.setInfo(self.tid, fid, blob, infoType=1,
                           fileInfoClass=10)
            return 0
        except SessionError as e:
            return status_of(e)

    def rename_path(self, old, new, is_dir=True):
        """Open @old, rename it to @new, close it: the rename's status."""
        fid = self.open(old, is_dir)
        try:
            return self.rename(fid, new)
        finally:
            self.close(fid)

    def logoff(self):
        self.conn.logoff()


def expect(name, got, want):
    check(name, got == want, "status 0x%08x, want 0x%08x" % (got, want))


def make_tree(exp):
    for d in ("A/s/t", "A/sub", "S"):
        os.makedirs(os.path.join(exp, d))
    for f in ("A/f.txt", "A/s/t/deep.txt", "A/g.txt", "S/f.txt"):
        open(os.path.join(exp, f), "w").close()
    os.chmod(exp, 0o777)
    for root, dirs, files in os.walk(exp):
        for n in dirs:
            os.chmod(os.path.join(root, n), 0o777)
        for n in files:
            os.chmod(os.path.join(root, n), 0o666)


def run(exp, sport):
    one, two = Client(sport), Client(sport)

    # a file open below, from the other connection
    f = one.open("A\\f.txt")
    expect("file_open_below_denies", two.rename_path("A", "A2"),
           ACCESS_DENIED)
    check("denied_rename_left_dir", os.path.isdir(os.path.join(exp, "A")))
    one.close(f)
    expect("after_close_rename_succeeds", two.rename_path("A", "A2"), 0)
    check("renamed_on_disk", os.path.isdir(os.path.join(exp, "A2")) and
          not os.path.exists(os.path.join(exp, "A")))
    expect("rename_back", two.rename_path("A2", "A"), 0)

    # deeper, and a directory open below
    f = one.open("A\\s\\t\\deep.txt")
    expect("deep_file_open_denies", two.rename_path("A", "A2"),
           ACCESS_DENIED)
    expect("its_own_dir_denied_too", two.rename_path("A\\s", "A\\s2"),
           ACCESS_DENIED)
    one.close(f)
    d = one.open("A\\sub", is_dir=True)
    expect("dir_open_below_denies", two.rename_path("A", "A2"),
           ACCESS_DENIED)
    one.close(d)
    expect("after_dir_close_succeeds", two.rename_path("A", "A2"), 0)
    expect("rename_back_2", two.rename_path("A2", "A"), 0)

    # a sibling's open does not count; files rename as before
    f = one.open("S\\f.txt")
    expect("sibling_open_does_not_block", two.rename_path("A", "A2"), 0)
    expect("rename_back_3", two.rename_path("A2", "A"), 0)
    one.close(f)
    f = one.open("A\\f.txt")
    expect("file_next_to_open_file_renames",
           two.rename_path("A\\g.txt", "A\\h.txt", is_dir=False), 0)
    expect("open_file_renames_itself", one.rename(f, "A\\f2.txt"), 0)
    check("file_renames_on_disk",
          os.path.exists(os.path.join(exp, "A", "h.txt")) and
          os.path.exists(os.path.join(exp, "A", "f2.txt")))
    expect("still_denied_after_file_renamed", two.rename_path("A", "A2"),
           ACCESS_DENIED)
    one.close(f)

    # another open of the directory itself: not below it
    d = one.open("A", is_dir=True)
    expect("other_open_of_dir_itself_does_not_block",
           two.rename_path("A", "A2"), 0)
    one.close(d)
    expect("rename_back_4", two.rename_path("A2", "A"), 0)

    # an open through another share rooted inside A
    inner = Client(sport, "inner")
    f = inner.open("deep.txt")
    expect("open_through_other_share_denies", two.rename_path("A", "A2"),
           ACCESS_DENIED)
    inner.close(f)
    inner.logoff()
    expect("after_other_share_close_succeeds", two.rename_path("A", "A2"),
           0)
    expect("rename_back_5", two.rename_path("A2", "A"), 0)

    # moved under the server: the open goes with its directory
    f = one.open("A\\s\\t\\deep.txt")
    os.rename(os.path.join(exp, "A", "s"), os.path.join(exp, "S", "s"))
    expect("old_parent_renames_after_local_move",
           two.rename_path("A", "A2"), 0)
    expect("rename_back_6", two.rename_path("A2", "A"), 0)
    expect("new_parent_denied_after_local_move",
           two.rename_path("S", "S2"), ACCESS_DENIED)
    one.close(f)
    expect("new_parent_renames_after_close", two.rename_path("S", "S2"), 0)

    # a session that goes away takes its opens out of the count
    f = one.open("A\\f2.txt")
    expect("open_before_logoff_denies", two.rename_path("A", "A2"),
           ACCESS_DENIED)
    one.logoff()
    expect("after_logoff_rename_succeeds", two.rename_path("A", "A2"), 0)
    two.logoff()


def main():
    # the tree, and with it the second share's root, before the server
    return smbtest.serve(NASD, "nasd-test-smbrenopen.", "ren", "Ren-pass1",
                         {"share": ("", "rw,root_squash"),
                          "inner": (os.path.join("A", "s", "t"),
                                    "rw,root_squash")},
                         run,
                         prepare=make_tree)


if __name__ == "__main__":
    sys.exit(main())
