#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check the layering rules of DESIGN.md section 1 over src/.

Every folder under src/ is one layer (a folder not in LAYERS is a finding
until it gets a row). A layer may include headers of the layers in its
LAYERS row only; a protocol includes no server/ header and no other
protocol's, and reaches the filesystem through vfs/ alone (no file syscall
of its own but the few in ALLOWED_CALLS); a private header (*_int.h,
*_internal.h, xprt.h) stays in its layer. One include may break two rules
(vfs/ including transport/xprt.h): both are reported.

usage: tests/static/layering.py [SRC_DIR]      (default: src/ of this tree)

Each finding is one line, FILE:LINE: rule: what, and the last line is
"layering: N findings". Exit 0 when there is none, 1 when there are, 2 on
a usage error. stdlib only; C is parsed just enough: comments, string and
character literals and `#if 0` blocks are blanked first, an include is a
`#include` line, a call is an identifier followed by `(` that is not a
member (`->read(`, `.read(`) and not part of a longer name (vfs_read()).
"""

import bisect
import os
import re
import sys

PROTOCOLS = ("nfs3", "nfs4", "nlm", "smb2")

# layer -> (the layers it may include, why). None: no such row (the
# protocols have PROTOCOL_INCLUDE_WHY's rule; server/ sits on top).
LAYERS = {
    "core": (("core",), "core/ is the bottom layer"),
    "xdr": (("core", "xdr"), "xdr/ is a cursor and primitives only"),
    "transport": (("core", "transport"),
                  "transport/ moves bytes; protocols plug into it "
                  "through the listener's table"),
    "rpc": (("core", "xdr", "rpc"),
            "rpc/ knows neither the transport nor the programs it serves"),
    "vfs": (("core", "vfs"), "vfs/ knows nothing of protocols"),
    "export": (("core", "vfs", "export"),
               "export/ is protocol-neutral admission"),
    "state": (("core", "vfs", "state"),
              "state/ is shared by every protocol"),
    "nfs3": (None, None),
    "nfs4": (None, None),
    "nlm": (None, None),
    "smb2": (None, None),
    "server": (None, None),
}

# A protocol includes neither server/ (above it) nor another protocol
# (what protocols share lives in state/, export/ or vfs/).
PROTOCOL_INCLUDE_WHY = ("a protocol includes no server/ header and no "
                        "other protocol's")

PRIVATE_HEADER = re.compile(r"(_int|_internal)\.h$|^xprt\.h$")

# File and directory syscalls (and their libc wrappers) that a protocol
# leaves to vfs/. Also matched as syscall(SYS_name, ...).
FILE_CALLS = frozenset("""
    open open64 openat openat64 openat2 open_by_handle_at name_to_handle_at
    creat creat64 fopen fopen64 freopen fdopen
    read pread pread64 preadv preadv2 write pwrite pwrite64 pwritev pwritev2
    readv writev sendfile sendfile64 splice tee copy_file_range
    fstat fstat64 fstatat fstatat64 newfstatat stat stat64 lstat lstat64
    statx statfs fstatfs statvfs fstatvfs
    truncate truncate64 ftruncate ftruncate64 fallocate fallocate64
    unlink unlinkat remove rename renameat renameat2
    mkdir mkdirat rmdir mknod mknodat mkfifo mkfifoat
    link linkat symlink symlinkat readlink readlinkat
    chmod fchmod fchmodat chown fchown fchownat lchown
    utime utimes futimes lutimes futimesat utimensat futimens
    access faccessat faccessat2 euidaccess eaccess chdir fchdir chroot
    opendir fdopendir readdir readdir64 readdir_r scandir scandirat
    getdents getdents64 nftw ftw
    fsync fdatasync syncfs sync_file_range posix_fadvise fadvise64
    posix_fallocate lseek lseek64
    getxattr lgetxattr fgetxattr setxattr lsetxattr fsetxattr
    listxattr llistxattr flistxattr removexattr lremovexattr fremovexattr
    ioctl flock fcntl lockf
""".split())


class Allow:
    """One allowlisted use of file calls in a protocol file: @calls made
    by function @func of @path (relative to the tree), and why they are
    not on exported data. @line: where the entry is written (for a stale
    entry's finding)."""

    def __init__(self, path, func, calls, why):
        self.path = path
        self.func = func
        self.calls = frozenset(calls)
        self.why = why
        self.line = sys._getframe(1).f_lineno


# Keep this short: every entry is a file syscall in a protocol that does
# not touch exported data. An entry that matches no call any more is a
# finding (allowlist-stale), so the list cannot outlive the code.
ALLOWED_CALLS = (
    Allow("src/nfs4/state/state.c", "boot_id_load",
          ("open", "pread", "ftruncate", "pwrite", "fsync"),
          "the boot counter nfs4_boot in the server's own state directory "
          "(--state-dir), never under an export"),
    Allow("src/nfs4/state/state.c", "server_owner_load",
          ("open", "read", "write", "fsync", "rename"),
          "nfs4_server_owner in the server's state directory"),
    Allow("src/nfs4/state/grace.c", "fsync_dir",
          ("open", "fsync"),
          "makes the client-record directory (state directory) durable"),
    Allow("src/nfs4/state/grace.c", "nfs4_grace_load",
          ("mkdir", "opendir", "readdir", "unlink", "open", "read"),
          "reads the previous instance's client records (RFC 8881 "
          "section 8.4.3) from the state directory"),
    Allow("src/nfs4/state/grace.c", "grace_record",
          ("open", "write", "fsync", "unlink", "rename"),
          "writes one client record in the state directory"),
    Allow("src/nfs4/state/grace.c", "grace_forget",
          ("unlink",),
          "removes one client record from the state directory"),
    Allow("src/smb2/auth/users.c", "smb2_users_table_load",
          ("open", "fstat", "read"),
          "reads the SMB user database STATE_DIR/smbpasswd (checked to be "
          "a private regular file first), never under an export"),
    Allow("src/nfs4/state/callback.c", "read_full",
          ("read",),
          "reads the CB_NULL reply from the callback TCP socket, not a "
          "file"),
)

# Words that may precede a function's name with parentheses of their own.
NOT_A_NAME = frozenset(("__attribute__", "__declspec", "_Alignas",
                        "alignas", "__typeof__", "typeof", "_Static_assert"))


def strip_c(text):
    """(text without comments, same with string and character literals
    blanked too). Both keep every newline, so offsets map to the same
    lines; `#if 0` blocks are blanked in both."""
    keep = []
    code = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            blank = re.sub(r"[^\n]", " ", text[i:j])
            keep.append(blank)
            code.append(blank)
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            keep.append(" " * (j - i))
            code.append(" " * (j - i))
            i = j
        elif c in "\"'":
            # To the closing quote, or to the end of the line when
            # there is none (the newline is left to the next round).
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j, n)
            inner = re.sub(r"[^\n]", " ", text[i + 1:j])
            end = j + 1 if j < n and text[j] == c else j
            keep.append(text[i:end])
            code.append(c + inner + text[j:end])
            i = end
        else:
            j = i
            while j < n and text[j] not in "/\"'":
                j += 1
            if j == i:
                j = i + 1
            keep.append(text[i:j])
            code.append(text[i:j])
            i = j
    return drop_if0("".join(keep)), drop_if0("".join(code))


IF_RE = re.compile(r"\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)")


def drop_if0(text):
    """@text with the lines of every `#if 0` branch blanked."""
    out = []
    depth = 0  # > 0: inside an #if 0 branch, counting nested #ifs
    for line in text.split("\n"):
        m = IF_RE.match(line)
        d = m.group(1) if m else None
        if depth:
            if d in ("if", "ifdef", "ifndef"):
                depth += 1
            elif d == "endif" or (depth == 1 and d in ("else", "elif")):
                depth -= 1
            out.append("")
            continue
        if d == "if" and m.group(2).strip() == "0":
            depth = 1
            out.append("")
            continue
        out.append(line)
    return "\n".join(out)


class Source:
    """One parsed file: @rel (path from the tree's top, e.g. src/vfs/io.c),
    @layer, both stripped texts and a line index."""

    def __init__(self, root, path):
        self.path = path
        self.rel = os.path.relpath(path, os.path.dirname(root))
        parts = os.path.relpath(path, root).split(os.sep)
        self.layer = parts[0] if len(parts) > 1 else None
        with open(path, encoding="utf-8", errors="replace") as f:
            self.keep, self.code = strip_c(f.read())
        self.nl = [m.start() for m in re.finditer("\n", self.keep)]

    def line(self, pos):
        return bisect.bisect_right(self.nl, pos - 1) + 1


INCLUDE_RE = re.compile(
    r'^[ \t]*#[ \t]*include(?:_next)?[ \t]*([<"])([^>"\n]+)[>"]', re.M)


def resolve(root, src, kind, name):
    """(layer, header path under src/ or None) of include @name from
    @src, searched as the compiler would with -I src and -I . (meson's
    include_directories). A quoted header nowhere in the tree (generated,
    say) belongs to the layer its first component names, or without one to
    @src's own; (None, None) for a system header."""
    top = os.path.dirname(root)
    dirs = [root, top]
    if kind == '"':
        dirs.insert(0, os.path.dirname(src.path))
    for d in dirs:
        p = os.path.normpath(os.path.join(d, name))
        if os.path.isfile(p):
            rel = os.path.relpath(p, root)
            if rel.startswith(".." + os.sep):
                return None, None
            parts = rel.split(os.sep)
            return (parts[0] if len(parts) > 1 else None), rel
    if kind == "<":
        return None, None
    parts = os.path.normpath(name).split(os.sep)
    if parts[0] == "src" and len(parts) > 2:
        parts = parts[1:]
    if len(parts) > 1 and parts[0] in LAYERS:
        return parts[0], None
    return (src.layer if len(parts) == 1 else None), None


def check_includes(root, src, out):
    for m in INCLUDE_RE.finditer(src.keep):
        kind, name = m.group(1), m.group(2).strip()
        layer, _ = resolve(root, src, kind, name)
        if layer is None or src.layer not in LAYERS:
            continue
        where = f"{src.rel}:{src.line(m.start())}"
        shown = f'{kind}{name}{">" if kind == "<" else kind}'
        may, why = LAYERS[src.layer]
        if may is not None and layer not in may:
            allowed = ", ".join(f"{x}/" for x in may)
            out.append(f"{where}: {src.layer}-include: {shown} is in "
                       f"{layer}/; {src.layer}/ includes only {allowed} "
                       f"({why})")
        elif (src.layer in PROTOCOLS and layer != src.layer and
              (layer == "server" or layer in PROTOCOLS)):
            out.append(f"{where}: protocol-include: {shown} is in "
                       f"{layer}/; {PROTOCOL_INCLUDE_WHY}")
        if PRIVATE_HEADER.search(os.path.basename(name)) and \
           layer != src.layer:
            out.append(f"{where}: private-header: {shown} is private to "
                       f"{layer}/; use its public header")


FN_WORD_RE = re.compile(r"([A-Za-z_]\w*)\s*\(")


def functions(src):
    """[(start, end, name)] of every function body in @src (offsets in
    src.code), preprocessor lines left out."""
    text = re.sub(r"(?m)^[ \t]*#(?:.*\\\n)*.*$",
                  lambda m: re.sub(r"[^\n]", " ", m.group(0)), src.code)
    spans = []
    depth = 0
    head = 0  # where the text before a top-level brace starts
    start = name = None
    for i, c in enumerate(text):
        if c == "{":
            if depth == 0:
                start, name = i, None
                prefix = text[head:i]
                if prefix.rstrip().endswith(")"):
                    for m in FN_WORD_RE.finditer(prefix):
                        pre = prefix[:m.start()]
                        if pre.count("(") == pre.count(")") and \
                           m.group(1) not in NOT_A_NAME:
                            name = m.group(1)
                            break
            depth += 1
        elif c == "}":
            depth = max(depth - 1, 0)
            if depth == 0:
                if name:
                    spans.append((start, i, name))
                head = i + 1
        elif c == ";" and depth == 0:
            head = i + 1
    return spans


CALL_RE = re.compile(r"(?<![\w$])([A-Za-z_]\w*)\s*\(")
SYSCALL_RE = re.compile(r"\s*(?:SYS|__NR)_(\w+)")


def check_calls(src, allow, used, out):
    spans = functions(src)
    starts = [s[0] for s in spans]
    for m in CALL_RE.finditer(src.code):
        name = m.group(1)
        shown = f"{name}()"
        if name == "syscall":
            s = SYSCALL_RE.match(src.code, m.end())
            if not s:
                continue
            name = s.group(1)
            shown = f"syscall(SYS_{name})"
        if name not in FILE_CALLS:
            continue
        before = src.code[:m.start()].rstrip()
        if before.endswith("->") or before.endswith("."):
            continue
        k = bisect.bisect_right(starts, m.start()) - 1
        func = spans[k][2] if k >= 0 and m.start() < spans[k][1] else None
        hit = [a for a in allow
               if a.path == src.rel and a.func == func and name in a.calls]
        if hit:
            used.update((id(a), name) for a in hit)
            continue
        inside = f" in {func}()" if func else ""
        out.append(f"{src.rel}:{src.line(m.start())}: protocol-syscall: "
                   f"{shown}{inside}; a protocol reaches the filesystem "
                   f"only through vfs/")


def sources(root):
    for d, dirs, files in os.walk(root):
        dirs.sort()
        for f in sorted(files):
            if f.endswith((".c", ".h")):
                yield os.path.join(d, f)


def check(root, allow=ALLOWED_CALLS, script=None):
    """The findings over the tree under @root (a src/ directory), each a
    "FILE:LINE: rule: what" string, in file order."""
    out = []
    used = set()
    unknown = set()
    for path in sources(root):
        src = Source(root, path)
        if src.layer not in LAYERS:
            key = src.layer or ""
            if key not in unknown:
                unknown.add(key)
                what = (f"src/{key}/ is not a layer this script knows; "
                        f"add it to LAYERS ({script or 'layering.py'}) "
                        f"with the rule of DESIGN.md section 1"
                        if key else "a source file outside any layer "
                        "folder")
                out.append(f"{src.rel}:1: unknown-layer: {what}")
            continue
        check_includes(root, src, out)
        if src.layer in PROTOCOLS:
            check_calls(src, allow, used, out)
    where = script or "layering.py"
    for a in allow:
        for c in sorted(a.calls):
            if (id(a), c) not in used:
                out.append(f"{where}:{a.line}: allowlist-stale: {a.path} "
                           f"{a.func}() makes no {c}() call any more; "
                           f"drop it from ALLOWED_CALLS")
    return out


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    top = os.path.normpath(os.path.join(here, "..", ".."))
    if len(argv) > 2 or (len(argv) == 2 and argv[1].startswith("-")):
        print(f"usage: {argv[0]} [SRC_DIR]", file=sys.stderr)
        return 2
    root = os.path.abspath(argv[1] if len(argv) == 2 else
                           os.path.join(top, "src"))
    if not os.path.isdir(root):
        print(f"layering: {root}: not a directory", file=sys.stderr)
        return 2
    script = os.path.relpath(os.path.abspath(__file__),
                             os.path.dirname(root))
    found = check(root, script=script)
    for f in found:
        print(f)
    print(f"layering: {len(found)} findings")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
