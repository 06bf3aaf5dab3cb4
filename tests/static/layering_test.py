#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Tests of tests/static/layering.py: a synthetic src/ tree with one
violation of each rule (and look-alikes that are none) must give exactly
those findings; the real tree must give none.

usage: tests/static/layering_test.py [-v]
"""

import os
import re
import subprocess
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "layering.py")
sys.path.insert(0, HERE)
import layering  # noqa: E402

FINDING = re.compile(r"^(src/[^:]+|[^:]+\.py):(\d+): ([a-z0-9-]+): (.+)$")

# path -> contents. A line that must be reported ends with a comment
# "/* expect: RULE */"; the test reads the expected findings from there,
# so each case and its expectation sit on one line.
TREE = {
    # Headers the cases include (all clean).
    "core/log.h": '#include <stdarg.h>\n#include "core/err.h"\n',
    "core/err.h": "#define E 1\n",
    "xdr/xdr.h": '#include "core/err.h"\n#include <stdint.h>\n',
    "vfs/vfs.h": '#include "core/log.h"\n',
    "vfs/vfs_int.h": '#include "vfs/vfs.h"\n',
    "rpc/rpc.h": '#include "xdr/xdr.h"\n#include "core/log.h"\n',
    "transport/transport.h": '#include "core/log.h"\n',
    "transport/xprt.h": '#include "transport/transport.h"\n',
    "export/export.h": '#include "vfs/vfs.h"\n',
    "state/state.h": '#include "vfs/vfs.h"\n',
    "nfs3/nfs3.h": '#include "rpc/rpc.h"\n',
    "nfs4/nfs4.h": '#include "rpc/rpc.h"\n',
    "nfs4/nfs4_int.h": '#include "nfs4/nfs4.h"\n',
    "smb2/smb2.h": '#include "state/state.h"\n',
    "server/control.h": '#include "core/log.h"\n',
    # Rule 4: core/ includes only core/.
    "core/log.c": """\
        #include "log.h"
        #include "core/err.h"
        #include <stdio.h>
        #include "vfs/vfs.h" /* expect: core-include */
        """,
    # Rule 3: xdr/ includes only core/ and xdr/.
    "xdr/xdr_util.h": """\
        #include "xdr/xdr.h"
        #include "core/log.h"
        #include "rpc/rpc.h" /* expect: xdr-include */
        """,
    # Rule 2: transport/ includes core/ and transport/ only.
    "transport/conn.c": """\
        #include "xprt.h"
        #include "transport/xprt.h"
        #include "core/log.h"
        #include <sys/socket.h>
        # include "rpc/rpc.h" /* expect: transport-include */
        static int conn_read(int fd, char *b)
        {
        	return (int)read(fd, b, 1); /* not a protocol: no rule */
        }
        """,
    # Rule 5: rpc/ includes core/, xdr/, rpc/ only.
    "rpc/rpc.c": """\
        #include "rpc/rpc.h"
        #include "xdr/xdr.h"
        #include "core/log.h"
        #include "transport/transport.h" /* expect: rpc-include */
        """,
    # Rule 1: vfs/ includes no protocol header; comments and #if 0 are
    # not includes.
    "vfs/io.c": """\
        #include "vfs/vfs_int.h"
        #include "core/log.h"
        /* #include "nfs4/nfs4.h" */
        // #include "export/export.h"
        #if 0
        #include "smb2/smb2.h"
        #if 1
        #include "state/state.h"
        #endif
        #else
        #include "core/err.h"
        #endif
        #include "nfs3/nfs3.h" /* expect: vfs-include */
        """,
    # Rule 6: export/ includes core/, vfs/, export/ only; <rpc/rpc.h>
    # is src/rpc/rpc.h under -I src.
    "export/table.c": """\
        #include "export/export.h"
        #include "vfs/vfs.h"
        #include <stdlib.h>
        #include <rpc/rpc.h> /* expect: export-include */
        """,
    # Rule 6: state/ includes core/, vfs/, state/ only; a relative path
    # is resolved from the file's folder.
    "state/lock.c": """\
        #include "state/state.h"
        #include "../vfs/vfs.h"
        #include "../nfs4/nfs4.h" /* expect: state-include */
        """,
    # Protocols may include every layer below them, but not server/.
    "nfs3/nfs3.c": """\
        #include "nfs3/nfs3.h"
        #include "vfs/vfs.h"
        #include "export/export.h"
        #include "state/state.h"
        #include "transport/transport.h"
        #include "rpc/rpc.h"
        #include "server/control.h" /* expect: protocol-include */
        """,
    # ... nor another protocol.
    "smb2/smb2.c": """\
        #include "smb2/smb2.h"
        #include "state/state.h"
        #include "nfs3/nfs3.h" /* expect: protocol-include */
        """,
    # Rule 8: a private header from another layer (server/ has no include
    # rule of its own, so this is the only finding).
    "server/main.c": """\
        #include "server/control.h"
        #include "nfs4/nfs4.h"
        #include "transport/transport.h"
        #include "transport/xprt.h" /* expect: private-header */
        """,
    # Rule 7: file calls in a protocol, and what is not one.
    "nfs4/ops_io.c": """\
        #include "nfs4/nfs4_int.h"
        #include <sys/stat.h>
        #include <unistd.h>
        struct ops { int (*read)(int); int (*write)(int); };
        static int myopen(int x) { return x; }
        static int vfs_read(int x) { return x; }
        int nfs4_op_read(struct ops *o, struct ops p, int fd)
        {
        	struct stat st;
        	int read = 0, stat_ok = sizeof(struct stat);
        	const char *s = "open(\\"x\\", fsync(fd))";
        	char c = '(';

        	/* fsync(fd); unlink("x"); */
        	// ftruncate(fd, 0);
        	read += o->read(fd) + p.write(fd) + o -> write (fd);
        	read += vfs_read(fd) + myopen(fd) + (int)c + stat_ok;
        	read += (int)syscall(SYS_gettid) + (int)s[0] + (int)st.st_size;
        	if (read)
        		return read;
        	return (int)pread (fd, &c, 1, 0); /* expect: protocol-syscall */
        }
        static long nfs4_sneak(int fd)
        {
        	return syscall(SYS_fsync, fd); /* expect: protocol-syscall */
        }
        """,
    # Rule 7 in a protocol header too.
    "nfs3/nfs3_internal.h": """\
        #include "nfs3/nfs3.h"
        static inline int nfs3_sync(int fd)
        {
        	return fsync(fd); /* expect: protocol-syscall */
        }
        """,
    # The allowlist: only the entry's function and calls pass; an entry
    # call that is no longer made is reported (ALLOW below).
    "nfs4/state/grace.c": """\
        #include "nfs4/nfs4_int.h"
        #include <fcntl.h>
        static int __attribute__((unused))
        rec_load(const char *path,
        	 int (*cb)(int))
        {
        	int fd = open(path, O_RDONLY);

        	return cb(fd);
        }
        static int rec_other(const char *path)
        {
        	return open(path, O_RDONLY); /* expect: protocol-syscall */
        }
        """,
    # A folder the script does not know, and a file outside any folder.
    "rquota/rquota.c": '#include "core/log.h" /* expect: unknown-layer */\n',
    "loose.c": "int x; /* expect: unknown-layer */\n",
}

EXPECT = re.compile(r"/\* expect: ([a-z0-9-]+) \*/")


def write_tree(top):
    """Write TREE under @top/src; the expected [(file:line, rule)]."""
    want = []
    for rel, text in TREE.items():
        text = textwrap.dedent(text)
        path = os.path.join(top, "src", rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        for n, line in enumerate(text.split("\n"), 1):
            for m in EXPECT.finditer(line):
                want.append((f"src/{rel}:{n}", m.group(1)))
    return want


class Synthetic(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.top = self.tmp.name
        self.want = write_tree(self.top)
        self.allow = (layering.Allow("src/nfs4/state/grace.c", "rec_load",
                                     ("open", "unlink"), "test"),)
        self.stale_line = self.allow[0].line

    def tearDown(self):
        self.tmp.cleanup()

    def test_every_rule_once(self):
        found = layering.check(os.path.join(self.top, "src"),
                               allow=self.allow, script="t.py")
        got = []
        for f in found:
            m = FINDING.match(f)
            self.assertIsNotNone(m, f"not FILE:LINE: rule: what: {f}")
            got.append((f"{m.group(1)}:{m.group(2)}", m.group(3)))
        want = self.want + [(f"t.py:{self.stale_line}", "allowlist-stale")]
        self.assertEqual(sorted(got), sorted(want), "\n".join(found))
        # Every rule is exercised.
        self.assertEqual(
            {r for _, r in want},
            {"core-include", "xdr-include", "transport-include",
             "rpc-include", "vfs-include", "export-include",
             "state-include", "protocol-include", "protocol-syscall",
             "private-header", "unknown-layer", "allowlist-stale"})

    def test_stale_entry_names_the_call(self):
        found = layering.check(os.path.join(self.top, "src"),
                               allow=self.allow, script="t.py")
        stale = [f for f in found if ": allowlist-stale: " in f]
        self.assertEqual(len(stale), 1, "\n".join(found))
        self.assertIn("rec_load() makes no unlink() call", stale[0])

    def test_syscall_names_function(self):
        found = layering.check(os.path.join(self.top, "src"),
                               allow=self.allow, script="t.py")
        text = "\n".join(found)
        self.assertRegex(text, r"src/nfs4/ops_io\.c:\d+: protocol-syscall: "
                         r"syscall\(SYS_fsync\) in nfs4_sneak\(\);")
        self.assertRegex(text, r"src/nfs4/ops_io\.c:\d+: protocol-syscall: "
                         r"pread\(\) in nfs4_op_read\(\);")
        self.assertRegex(text, r"src/nfs4/state/grace\.c:\d+: "
                         r"protocol-syscall: open\(\) in rec_other\(\);")

    def test_cli_fails_on_findings(self):
        r = subprocess.run([sys.executable, SCRIPT,
                            os.path.join(self.top, "src")],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual(lines[-1], f"layering: {len(lines) - 1} findings")
        for f in lines[:-1]:
            self.assertRegex(f, FINDING)


class RealTree(unittest.TestCase):
    def test_clean(self):
        r = subprocess.run([sys.executable, SCRIPT], capture_output=True,
                           text=True)
        self.assertEqual(r.stdout.splitlines()[-1:], ["layering: 0 findings"],
                         r.stdout + r.stderr)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_catches_a_new_violation(self):
        # A copy of the real tree with one bad include in vfs/ has that
        # finding more than the tree (test_clean says the tree has none).
        root = os.path.join(HERE, "..", "..", "src")
        before = set(layering.check(root))
        with tempfile.TemporaryDirectory() as top:
            for d, _, files in os.walk(root):
                for f in files:
                    if not f.endswith((".c", ".h")):
                        continue
                    src = os.path.join(d, f)
                    dst = os.path.join(top, "src", os.path.relpath(src, root))
                    os.makedirs(os.path.dirname(dst), exist_ok=True)
                    with open(src, "rb") as i, open(dst, "wb") as o:
                        o.write(i.read())
            with open(os.path.join(top, "src", "vfs", "io.c"), "a") as f:
                f.write('#include "nfs4/nfs4.h"\n')
            found = [f for f in layering.check(os.path.join(top, "src"))
                     if f not in before]
        self.assertEqual(len(found), 1, "\n".join(found))
        self.assertRegex(found[0], r"^src/vfs/io\.c:\d+: vfs-include: ")


if __name__ == "__main__":
    unittest.main()
