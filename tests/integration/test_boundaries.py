#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Export boundaries: every way a client might leave its export is refused.

usage: test_boundaries.py NASD

Starts nasd (needs root: it binds a client socket to 127.0.0.2 and reads
/etc inodes) with four exports from a config file:
    A  127.0.0.1/32(rw,no_root_squash)   the client's export
    B  127.0.0.2/32(rw,no_root_squash)   another host's export
    C  127.0.0.1/32(rw,no_root_squash)   a second export of the client
    S  127.0.0.1/32(ro)                  replaced by a symlink to /etc later
and checks: forged and bit-flipped handles, B's handles used from
127.0.0.1, '..' at the root, symlinks pointing outside (never followed),
RENAME/LINK across exports (XDEV), mount points inside the export (a
tmpfs and a bind mount of an outside directory), a directory renamed out of the export
while a client holds its handle, and an export path replaced by a symlink
(before and after a SIGHUP reload).
"""

import os
import shutil
import signal
import struct
import sys
import tempfile
import time

from nt_nfs3 import (Client, Harness, free_port, nfs3_name, mnt3_name,
                     NF3LNK, FILE_SYNC, GETATTR, Closed)
from hostile import opaque

REFUSED_FH = ("NFS3ERR_BADHANDLE", "NFS3ERR_STALE")
REFUSED_CLIENT = ("NFS3ERR_ACCES", "NFS3ERR_STALE", "NFS3ERR_PERM")


def write_file(path, data, mode=0o644):
    with open(path, "wb") as f:
        f.write(data)
    os.chmod(path, mode)


def read_file(path):
    with open(path, "rb") as f:
        return f.read()


def t_forged(h, c, file_fh):
    # random 64-byte handles and random shorter ones: pipelined GETATTRs
    forged = [os.urandom(64) for _ in range(256)]
    forged += [os.urandom(n) for n in range(1, 64)]
    bad = []
    for fh, r in zip(forged, c.pipeline([(GETATTR, opaque(fh))
                                         for fh in forged])):
        st = (struct.unpack_from(">I", r["body"])[0]
              if r["kind"] == "SUCCESS" else None)
        if r["kind"] == "GARBAGE_ARGS":
            continue
        if st is None or nfs3_name(st) not in REFUSED_FH:
            bad.append((fh.hex(), r["kind"], st))
    h.check("forged_random_handles_refused", not bad,
            f"{len(bad)} of {len(forged)} not BADHANDLE/STALE: {bad[:3]}")

    # every bit of a real handle flipped, one at a time
    flipped = []
    for i in range(len(file_fh)):
        for b in range(8):
            fh = bytearray(file_fh)
            fh[i] ^= 1 << b
            flipped.append((i, b, bytes(fh)))
    bad = []
    replies = c.pipeline([(GETATTR, opaque(fh)) for _, _, fh in flipped])
    for (i, b, fh), r in zip(flipped, replies):
        st = (struct.unpack_from(">I", r["body"])[0]
              if r["kind"] == "SUCCESS" else None)
        if st is None or nfs3_name(st) not in REFUSED_FH:
            bad.append(f"byte {i} bit {b}: {r['kind']} {st}")
    h.check("bitflipped_handles_refused",
            not bad and len(flipped) == 8 * len(file_fh),
            f"{len(bad)} of {len(flipped)}: {bad[:4]}")
    # byte-wise: every byte replaced by every other value is too many
    # calls; each byte set to its complement and to 0 is enough on top
    bad = []
    for i in range(len(file_fh)):
        for v in (file_fh[i] ^ 0xFF, 0 if file_fh[i] else 1):
            fh = bytearray(file_fh)
            fh[i] = v
            st, _ = c.getattr(bytes(fh))
            if nfs3_name(st) not in REFUSED_FH:
                bad.append(f"byte {i}={v}: {nfs3_name(st)}")
    h.check("byte_replaced_handles_refused", not bad, str(bad[:4]))
    # truncated and extended
    bad = []
    for fh in (file_fh[:-1], file_fh[:-8], file_fh + b"\0",
               file_fh + os.urandom(8), file_fh[:10]):
        st, _ = c.getattr(fh)
        if nfs3_name(st) not in REFUSED_FH:
            bad.append(f"len {len(fh)}: {nfs3_name(st)}")
    h.check("truncated_extended_handles_refused", not bad, str(bad))
    # a flipped handle must not write either
    fh = bytearray(file_fh)
    fh[len(fh) // 2] ^= 0x10
    st, _ = c.write(bytes(fh), 0, b"FORGED", FILE_SYNC)
    h.check("bitflipped_handle_write_refused",
            nfs3_name(st) in REFUSED_FH, nfs3_name(st))
    st, _ = c.getattr(file_fh)
    h.eq("real_handle_still_works", "NFS3_OK", nfs3_name(st))


def t_other_export(h, port, c, tmp):
    B = os.path.join(tmp, "B")
    with Client(port, src="127.0.0.2") as c2:
        st, hb = c2.mnt(B)
        if not h.eq("mnt_b_from_127.0.0.2", "MNT3_OK", mnt3_name(st)):
            return
        st, hbf, _ = c2.lookup(hb, "bfile.txt")
        h.eq("lookup_b_file_from_127.0.0.2", "NFS3_OK", nfs3_name(st))
        st, _ = c2.getattr(hb)
        h.eq("getattr_b_from_127.0.0.2", "NFS3_OK", nfs3_name(st))
        st, ha = c2.mnt(os.path.join(tmp, "A"))
        h.check("mnt_a_from_127.0.0.2_refused",
                mnt3_name(st) in ("MNT3ERR_ACCES", "MNT3ERR_PERM"),
                mnt3_name(st))
    st, _ = c.mnt(B)
    h.check("mnt_b_from_127.0.0.1_refused",
            mnt3_name(st) in ("MNT3ERR_ACCES", "MNT3ERR_PERM"),
            mnt3_name(st))
    st, _ = c.getattr(hb)
    h.check("b_root_handle_getattr_from_127.0.0.1_refused",
            nfs3_name(st) in REFUSED_CLIENT, nfs3_name(st))
    st, _, _ = c.lookup(hb, "bfile.txt")
    h.check("b_root_handle_lookup_from_127.0.0.1_refused",
            nfs3_name(st) in REFUSED_CLIENT, nfs3_name(st))
    if hbf:
        st, data = c.read(hbf, 0, 100)
        h.check("b_file_handle_read_from_127.0.0.1_refused",
                nfs3_name(st) in REFUSED_CLIENT and data is None,
                f"{nfs3_name(st)} {data!r}")
        st, _ = c.write(hbf, 0, b"XX", FILE_SYNC)
        h.check("b_file_handle_write_from_127.0.0.1_refused",
                nfs3_name(st) in REFUSED_CLIENT, nfs3_name(st))
    st, _, _ = c.create(hb, "planted")
    h.check("b_root_handle_create_from_127.0.0.1_refused",
            nfs3_name(st) in REFUSED_CLIENT, nfs3_name(st))
    h.eq("b_file_unchanged", b"B's data\n",
         read_file(os.path.join(B, "bfile.txt")))
    h.check("b_nothing_planted", not os.path.lexists(
        os.path.join(B, "planted")), "B/planted exists")


def t_dotdot(h, port, c, rootA, tmp):
    A = os.path.join(tmp, "A")
    st, ra = c.getattr(rootA)
    root_id = ra["fileid"]
    h.eq("root_fileid_is_export_inode", os.stat(A).st_ino, root_id)
    st, fh, attr = c.lookup(rootA, "..")
    h.check("lookup_dotdot_at_root_stays",
            nfs3_name(st) == "NFS3_OK" and attr and
            attr["fileid"] == root_id,
            f"{nfs3_name(st)} fileid {attr and attr['fileid']} "
            f"(root {root_id}, parent {os.stat(tmp).st_ino})")
    if fh:
        st, a2 = c.getattr(fh)
        h.check("dotdot_handle_is_root",
                st == 0 and a2["fileid"] == root_id, str(a2))
        st, fh2, attr2 = c.lookup(fh, "..")
        h.check("dotdot_twice_stays",
                st == 0 and attr2["fileid"] == root_id,
                f"{nfs3_name(st)} {attr2}")
        st, names = c.readdir_names(fh)
        h.check("dotdot_readdir_is_export",
                st == 0 and "file.txt" in names and
                "outside" not in names, f"{nfs3_name(st)} {names}")
    st, sub, _ = c.lookup(rootA, "sub")
    st, deep, _ = c.lookup(sub, "deep")
    st, up, attr = c.lookup(deep, "..")
    h.check("dotdot_from_deep_is_sub", st == 0 and attr["fileid"] ==
            os.stat(os.path.join(A, "sub")).st_ino, str(attr))
    st, up, attr = c.lookup(up, "..")
    st, up, attr = c.lookup(up, "..")
    h.check("dotdot_walk_up_stops_at_root",
            st == 0 and attr["fileid"] == root_id, str(attr))
    # MNT paths that try to leave by '..' or through a symlink
    for name, path in (("mnt_dotdot_above_export", A + "/.."),
                       ("mnt_sub_dotdot_dotdot", A + "/sub/../.."),
                       ("mnt_dotdot_to_sibling", A + "/../outside")):
        st, fh = c.mnt(path)
        ok = st != 0
        if st == 0:
            s2, a2 = c.getattr(fh)
            ok = s2 == 0 and a2["fileid"] == root_id
        h.check(name, ok, f"{mnt3_name(st)} for {path}")
    for link in ("out_etc", "out_dir"):
        st, fh = c.mnt(os.path.join(A, link))
        h.check(f"mnt_through_symlink_{link}_refused", st != 0,
                f"{mnt3_name(st)}: MNT followed A/{link}")
        st, fh = c.mnt(os.path.join(A, link, "x"))
        h.check(f"mnt_below_symlink_{link}_refused", st != 0,
                mnt3_name(st))


def t_symlinks(h, c, rootA, tmp):
    A = os.path.join(tmp, "A")
    outside = os.path.join(tmp, "outside")
    secret = os.path.join(outside, "secret.txt")
    secret_st = os.stat(secret)

    st, hetc, attr = c.lookup(rootA, "out_etc")
    h.check("lookup_symlink_gives_link",
            st == 0 and attr and attr["type"] == NF3LNK and
            attr["fileid"] == os.lstat(os.path.join(A, "out_etc")).st_ino,
            f"{nfs3_name(st)} {attr}")
    if not hetc:
        return
    st, text = c.readlink(hetc)
    h.check("readlink_returns_text", st == 0 and text == b"/etc",
            f"{nfs3_name(st)} {text!r}")
    st, a = c.getattr(hetc)
    h.check("getattr_symlink_not_target",
            st == 0 and a["type"] == NF3LNK and
            a["fileid"] != os.stat("/etc").st_ino, str(a))
    st, data = c.read(hetc, 0, 4096)
    h.check("read_symlink_to_dir_refused", st != 0 and data is None,
            f"{nfs3_name(st)} {data!r}")
    st, _, _ = c.lookup(hetc, "passwd")
    h.eq("lookup_through_symlink_notdir", "NFS3ERR_NOTDIR", nfs3_name(st))
    st, names = c.readdir_names(hetc)
    h.check("readdir_symlink_notdir", nfs3_name(st) == "NFS3ERR_NOTDIR",
            f"{nfs3_name(st)} {names[:5]}")

    st, hpw, attr = c.lookup(rootA, "out_passwd")
    h.check("lookup_file_symlink_gives_link",
            st == 0 and attr["type"] == NF3LNK, str(attr))
    st, data = c.read(hpw, 0, 4096)
    h.check("read_symlink_to_etc_passwd_refused",
            st != 0 and data is None,
            f"{nfs3_name(st)} {data[:40] if data else data!r}")

    st, hdir, _ = c.lookup(rootA, "out_dir")
    st, _, _ = c.create(hdir, "pwned")
    h.eq("create_via_symlink_to_dir_notdir", "NFS3ERR_NOTDIR",
         nfs3_name(st))
    st, _, _ = c.mkdir(hdir, "pwned_dir")
    h.eq("mkdir_via_symlink_to_dir_notdir", "NFS3ERR_NOTDIR",
         nfs3_name(st))
    st = c.remove(hdir, "secret.txt")
    h.eq("remove_via_symlink_to_dir_notdir", "NFS3ERR_NOTDIR",
         nfs3_name(st))
    st, _, _ = c.lookup(hdir, "secret.txt")
    h.eq("lookup_via_symlink_to_dir_notdir", "NFS3ERR_NOTDIR",
         nfs3_name(st))
    h.check("nothing_created_outside",
            sorted(os.listdir(outside)) == ["marker", "secret.txt"],
            str(os.listdir(outside)))

    st, hfile, _ = c.lookup(rootA, "out_file")
    st, data = c.read(hfile, 0, 100)
    h.check("read_symlink_to_outside_file_refused",
            st != 0 and data is None, f"{nfs3_name(st)} {data!r}")
    st, _ = c.write(hfile, 0, b"PWNED", FILE_SYNC)
    h.check("write_symlink_to_outside_file_refused", st != 0,
            nfs3_name(st))
    st = c.setattr(hfile, size=0)
    h.check("truncate_symlink_refused", st != 0, nfs3_name(st))
    st = c.setattr(hfile, mode=0o777)
    st2 = os.stat(secret)
    h.check("outside_file_untouched",
            read_file(secret) == b"outside secret\n" and
            st2.st_mode == secret_st.st_mode and
            st2.st_mtime_ns == secret_st.st_mtime_ns,
            f"content {read_file(secret)!r} mode {oct(st2.st_mode)}")
    # LINK of the symlink's handle links the symlink, not its target
    st = c.link(hfile, rootA, "hardlink")
    hl = os.path.join(A, "hardlink")
    if st == 0:
        h.check("link_of_symlink_links_symlink",
                os.path.islink(hl) and
                os.lstat(hl).st_ino != secret_st.st_ino,
                "LINK made a hard link to the file outside the export")
    else:
        h.check("link_of_symlink_links_symlink",
                not os.path.lexists(hl), f"{nfs3_name(st)} but {hl} exists")
    st = c.remove(rootA, "out_file")
    h.check("remove_symlink_keeps_target",
            st == 0 and not os.path.lexists(os.path.join(A, "out_file")) and
            os.path.exists(secret), nfs3_name(st))


def t_xdev(h, c, rootA, tmp):
    A = os.path.join(tmp, "A")
    C = os.path.join(tmp, "C")
    st, rootC = c.mnt(C)
    if not h.eq("mnt_c", "MNT3_OK", mnt3_name(st)):
        return
    st, hf, _ = c.lookup(rootA, "file.txt")
    st = c.rename(rootA, "file.txt", rootC, "moved.txt")
    h.eq("rename_across_exports_xdev", "NFS3ERR_XDEV", nfs3_name(st))
    st = c.rename(rootC, "cfile.txt", rootA, "moved.txt")
    h.eq("rename_across_exports_reverse_xdev", "NFS3ERR_XDEV",
         nfs3_name(st))
    st = c.link(hf, rootC, "linked.txt")
    h.eq("link_across_exports_xdev", "NFS3ERR_XDEV", nfs3_name(st))
    h.check("xdev_nothing_moved",
            os.path.exists(os.path.join(A, "file.txt")) and
            os.path.exists(os.path.join(C, "cfile.txt")) and
            not os.path.exists(os.path.join(C, "moved.txt")) and
            not os.path.exists(os.path.join(A, "moved.txt")) and
            not os.path.exists(os.path.join(C, "linked.txt")),
            f"A {os.listdir(A)} C {os.listdir(C)}")
    st = c.rename(rootA, "file.txt", rootA, "file2.txt")
    st2 = c.rename(rootA, "file2.txt", rootA, "file.txt")
    h.check("rename_within_export_ok", st == 0 and st2 == 0,
            f"{nfs3_name(st)} {nfs3_name(st2)}")


def t_renamed_out(h, c, rootA, tmp):
    """A directory renamed (on the server) out of the export while a
    client holds its handle. knfsd with no_subtree_check keeps serving
    the directory itself; what must not happen is a walk from it to
    objects above the export root."""
    A = os.path.join(tmp, "A")
    st, hd, _ = c.lookup(rootA, "mv_me")
    st, hin, _ = c.lookup(hd, "inner.txt")
    moved = os.path.join(tmp, "moved_out")
    os.rename(os.path.join(A, "mv_me"), moved)
    st, a = c.getattr(hd)
    print(f"# moved-out directory: GETATTR -> {nfs3_name(st)}")
    st, data = c.read(hin, 0, 100)
    print(f"# moved-out directory's file: READ -> {nfs3_name(st)} "
          f"{data!r}")
    st, up, attr = c.lookup(hd, "..")
    if st != 0:
        h.check("dotdot_from_moved_out_dir_stays_inside", True)
        print(f"# LOOKUP '..' from it -> {nfs3_name(st)}")
    else:
        detail = (f"LOOKUP(moved dir, '..') -> NFS3_OK fileid "
                  f"{attr['fileid']} = inode of {tmp} (above the export "
                  f"root {A})")
        s1, hout, _ = c.lookup(up, "outside")
        s2, hsec, _ = (c.lookup(hout, "secret.txt") if s1 == 0
                       else (s1, None, None))
        s3, data = c.read(hsec, 0, 100) if s2 == 0 else (s2, None)
        if s3 == 0:
            detail += f"; then LOOKUP outside/secret.txt + READ -> {data!r}"
        h.check("dotdot_from_moved_out_dir_stays_inside",
                attr["fileid"] in (os.stat(A).st_ino,), detail)
    os.rename(moved, os.path.join(A, "mv_me"))


def t_mounts(h, c, rootA, tmp, mounted):
    """Mount points inside the export are not crossed: a tmpfs (another
    device) and a bind mount of a directory outside the export (the same
    device). LOOKUP may answer the covered directory or an error, never
    the mounted content."""
    A = os.path.join(tmp, "A")
    for name, src in (("mnt_tmpfs", None),
                      ("mnt_bind", os.path.join(tmp, "outside"))):
        mp = os.path.join(A, name)
        covered = os.stat(mp).st_ino
        cmd = (f"mount -t tmpfs -o size=1m tmpfs {mp}" if src is None else
               f"mount --bind {src} {mp}")
        if os.system(cmd + " 2>/dev/null") != 0:
            print(f"# {cmd} not permitted here: check skipped")
            continue
        mounted.append(mp)
        if src is None:
            write_file(os.path.join(mp, "marker"), b"m\n")
        st, fh, attr = c.lookup(rootA, name)
        inner = os.stat(mp).st_ino
        if st == 0:
            s2, names = c.readdir_names(fh)
            h.check(f"lookup_{name}_not_crossed",
                    attr["fileid"] == covered and "marker" not in names,
                    f"LOOKUP A/{name} -> NFS3_OK fileid {attr['fileid']} "
                    f"(covered dir {covered}, mounted root {inner}); "
                    f"READDIR -> {names}")
        else:
            h.check(f"lookup_{name}_not_crossed", True)
            print(f"# LOOKUP of the {name} mount point: {nfs3_name(st)}")
        st, fh = c.mnt(mp)
        ok = st != 0
        if st == 0:
            s2, a2 = c.getattr(fh)
            ok = s2 == 0 and a2["fileid"] == covered
        h.check(f"mnt_{name}_not_crossed", ok,
                f"MNT {mp} -> {mnt3_name(st)}")


def t_export_symlinked(h, c, tmp):
    S = os.path.join(tmp, "S")
    st, hs = c.mnt(S)
    if not h.eq("mnt_s", "MNT3_OK", mnt3_name(st)):
        return
    st, a = c.getattr(hs)
    s_ino = a["fileid"]
    os.rename(S, S + ".orig")
    os.symlink("/etc", S)
    etc_ino = os.stat("/etc").st_ino

    def probe(tag):
        st, fh = c.mnt(S)
        if st != 0:
            h.check(f"mnt_symlinked_export_{tag}", True)
            print(f"# MNT of the symlinked export path ({tag}): "
                  f"{mnt3_name(st)}")
            return
        s2, a2 = c.getattr(fh)
        s3, _, _ = c.lookup(fh, "passwd")
        s4, _, _ = c.lookup(fh, "s_marker")
        h.check(f"mnt_symlinked_export_{tag}",
                s2 == 0 and a2["fileid"] == s_ino and s3 != 0 and s4 == 0,
                f"MNT {S} -> NFS3_OK with root fileid {a2 and a2['fileid']}"
                f" (original {s_ino}, /etc {etc_ino}); LOOKUP passwd -> "
                f"{nfs3_name(s3)}, LOOKUP s_marker -> {nfs3_name(s4)}")

    probe("before_reload")
    st, _, _ = c.lookup(hs, "s_marker")
    h.eq("old_s_handle_still_original_dir", "NFS3_OK", nfs3_name(st))
    before = h.log_text().count("SIGHUP: exports reloaded")
    h.proc.send_signal(signal.SIGHUP)
    deadline = time.time() + 10
    while (time.time() < deadline and
           h.log_text().count("SIGHUP: exports reloaded") == before):
        time.sleep(0.1)
    probe("after_sighup")
    # the rest of the table still works after the reload
    st, _ = c.mnt(os.path.join(tmp, "A"))
    h.eq("mnt_a_after_reload", "MNT3_OK", mnt3_name(st))


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    if os.geteuid() != 0:
        print("SKIP: needs root (binds 127.0.0.2, reads other uids' "
              "files)")
        return 77
    tmp = tempfile.mkdtemp(prefix="nasd-test-boundaries.")
    os.chmod(tmp, 0o755)
    h = Harness(sys.argv[1], tmp)
    mounted = []
    try:
        A, B, C, S = (os.path.join(tmp, n) for n in "ABCS")
        outside = os.path.join(tmp, "outside")
        for d in (A, B, C, S, outside, os.path.join(A, "sub", "deep"),
                  os.path.join(A, "mnt_tmpfs"), os.path.join(A, "mnt_bind"),
                  os.path.join(A, "mv_me"), os.path.join(tmp, "state")):
            os.makedirs(d, exist_ok=True)
        write_file(os.path.join(A, "file.txt"), b"inside A\n")
        write_file(os.path.join(A, "mv_me", "inner.txt"), b"inner\n")
        write_file(os.path.join(B, "bfile.txt"), b"B's data\n")
        write_file(os.path.join(C, "cfile.txt"), b"C's data\n")
        write_file(os.path.join(S, "s_marker"), b"S\n")
        write_file(os.path.join(outside, "secret.txt"),
                   b"outside secret\n", 0o600)
        write_file(os.path.join(outside, "marker"), b"m\n")
        os.symlink("/etc", os.path.join(A, "out_etc"))
        os.symlink("/etc/passwd", os.path.join(A, "out_passwd"))
        os.symlink(outside, os.path.join(A, "out_dir"))
        os.symlink(os.path.join(outside, "secret.txt"),
                   os.path.join(A, "out_file"))
        conf = os.path.join(tmp, "exports")
        with open(conf, "w") as f:
            f.write(f"{A} 127.0.0.1/32(rw,no_root_squash)\n"
                    f"{B} 127.0.0.2/32(rw,no_root_squash)\n"
                    f"{C} 127.0.0.1/32(rw,no_root_squash)\n"
                    f"{S} 127.0.0.1/32(ro)\n")
        port = free_port(int(os.environ.get("NT_PORT_BASE", "18100")))
        if not h.start(port, ["--listen", f"127.0.0.1:{port}",
                              "--mountd-port", "0", "--state-dir",
                              os.path.join(tmp, "state"),
                              "--config", conf]):
            return h.finish()
        with Client(port) as c:
            st, rootA = c.mnt(A)
            if not h.eq("mnt_a", "MNT3_OK", mnt3_name(st)):
                h.stop()
                return h.finish()
            st, file_fh, _ = c.lookup(rootA, "file.txt")
            h.eq("lookup_file", "NFS3_OK", nfs3_name(st))
            tests = [
                lambda: t_forged(h, c, file_fh),
                lambda: t_other_export(h, port, c, tmp),
                lambda: t_dotdot(h, port, c, rootA, tmp),
                lambda: t_symlinks(h, c, rootA, tmp),
                lambda: t_xdev(h, c, rootA, tmp),
                lambda: t_mounts(h, c, rootA, tmp, mounted),
                lambda: t_renamed_out(h, c, rootA, tmp),
                lambda: t_export_symlinked(h, c, tmp),
            ]
            for t in tests:
                try:
                    t()
                except (Closed, OSError, struct.error, RuntimeError,
                        TypeError, KeyError) as e:
                    h.check("exception", False,
                            f"{type(e).__name__}: {e}")
                if not h.alive():
                    h.check("nasd_still_running", False,
                            f"exited with {h.proc.returncode}")
                    break
        h.stop()
        return h.finish()
    finally:
        h.kill()
        for mp in reversed(mounted):
            os.system(f"umount {mp}")
        if not os.environ.get("KEEP_TMP"):
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
