# SPDX-License-Identifier: MIT
"""What the impacket SMB tests share (test_smb_eas.py, test_smb_dosattr.py,
test_smb_rename_open.py): "ok - NAME" / "not ok - NAME: DETAIL" checks, a
free port, the NTSTATUS of impacket's SessionError, and serve(): a nasd with
one SMB user and its shares, run until the test is done, then stopped with
SIGTERM, which must end it with 0 and no sanitizer report.
"""

import os
import random
import shutil
import socket
import subprocess
import tempfile
import time

PASSES = 0
FAILS = 0


def check(name, cond, detail=""):
    global FAILS, PASSES
    if cond:
        PASSES += 1
        print("ok - " + name)
    else:
        FAILS += 1
        print("not ok - %s: %s" % (name, detail))
    return cond


def free_port():
    while True:
        p = random.randint(30000, 40000)
        with socket.socket() as so:
            try:
                so.bind(("127.0.0.1", p))
                return p
            except OSError:
                continue


def plain(conn):
    """Keep an impacket connection (SMBConnection or SMB3, negotiated, not
    yet logged on) from encrypting: impacket 0.10 encrypts every session
    whose server offers encryption, but its raw readers (oplock breaks,
    interim answers) do not decrypt. Encryption has its own tests
    (test_smb_hostile.py, test_smb_clients.sh); these test other
    things, as clients that do not ask for encryption see them."""
    smb = getattr(conn, "_SMBConnection", conn)
    smb._Connection["SupportsEncryption"] = False
    return conn


def status_of(e):
    """The NTSTATUS of an impacket SessionError."""
    return e.get_error_code() & 0xffffffff


def serve(nasd, prefix, user, password, shares, run, prepare=None):
    """Run run(export_dir, smb_port) against a nasd that serves SHARES
    (NAME -> (path relative to the export directory, "" for itself,
    options)) to USER
    (uid and gid 1234) with PASSWORD; PREPARE(export_dir) first, before
    the server starts. Returns the exit status (0, or 1 on a failure)."""
    tmp = tempfile.mkdtemp(prefix=prefix)
    os.chmod(tmp, 0o755)
    exp = os.path.join(tmp, "export")
    st = os.path.join(tmp, "state")
    os.makedirs(exp)
    os.chmod(exp, 0o777)
    port, sport = free_port(), free_port()
    subprocess.run([nasd, "user", "add", user, "--uid", "1234", "--gid",
                    "1234", "--state-dir", st],
                   input=(password + "\n").encode(), check=True,
                   stdout=subprocess.DEVNULL)
    if prepare:
        prepare(exp)
    args = [nasd, "--foreground", "--state-dir", st, "--listen",
            "127.0.0.1:%d" % port, "--mountd-port", "0", "--log-level",
            "debug", "--smb-listen", "127.0.0.1:%d" % sport]
    for name, (path, opts) in shares.items():
        root = os.path.join(exp, path) if path else exp
        args += ["--share", "%s=%s:%s" % (name, root, opts)]
    logpath = os.path.join(tmp, "nasd.log")
    log = open(logpath, "w")
    srv = None
    try:
        srv = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", sport), 0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        run(exp, sport)
    finally:
        rc = None
        if srv:
            srv.terminate()
            rc = srv.wait(20)
        log.close()
        check("nasd_sigterm_exit_status", rc == 0, "exit %s" % rc)
        text = open(logpath).read()
        check("nasd_no_sanitizer_report",
              "ERROR: AddressSanitizer" not in text and
              "runtime error:" not in text, text[-2000:])
        if FAILS:
            print(text[-3000:])
        if not os.environ.get("KEEP_TMP"):
            shutil.rmtree(tmp, ignore_errors=True)
    print("# %d passed, %d failed" % (PASSES, FAILS))
    return 1 if FAILS else 0
