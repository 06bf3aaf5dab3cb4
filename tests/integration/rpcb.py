# SPDX-License-Identifier: MIT
"""A raw rpcbind v4 client (RFC 1833 section 2) for the integration tests:
SET, UNSET, GETADDR and DUMP over rpcbind's local socket
(/run/rpcbind.sock) or over TCP to 127.0.0.1:111 (from a reserved source
port when asked), plus starting and stopping Debian's rpcbind for a test.

The RPC framing comes from hostile.py. Command line, for experiments:
    rpcb.py [--tcp|--tcp-reserved] dump
    rpcb.py [...] set PROG VERS NETID UADDR [OWNER]
    rpcb.py [...] unset PROG VERS NETID [OWNER]
"""

import os
import shutil
import socket
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostile import (u32, opaque, call_msg, record, recv_record,  # noqa
                     parse_reply)

RPCB_PROG, RPCB_VERS = 100000, 4
RPCBPROC_SET, RPCBPROC_UNSET, RPCBPROC_GETADDR, RPCBPROC_DUMP = 1, 2, 3, 4
SOCK_PATH = "/run/rpcbind.sock"


def _str(s):
    return opaque(s.encode())


def rpcb_args(prog, vers, netid="", addr="", owner=""):
    """struct rpcb (RFC 1833 section 2.1)."""
    return (u32(prog) + u32(vers) + _str(netid) + _str(addr) +
            _str(owner))


class _Dec:
    def __init__(self, data):
        self.d = data
        self.o = 0

    def u32(self):
        (v,) = struct.unpack_from(">I", self.d, self.o)
        self.o += 4
        return v

    def string(self):
        n = self.u32()
        s = self.d[self.o:self.o + n]
        self.o += (n + 3) & ~3
        return s.decode()


class Rpcb:
    """One connection to rpcbind. transport: "local", "tcp" (unreserved
    source port) or "tcp-reserved" (a source port below 1024)."""

    def __init__(self, transport="local", timeout=10.0):
        if transport == "local":
            self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.s.settimeout(timeout)
            self.s.connect(SOCK_PATH)
            return
        self.s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.s.settimeout(timeout)
        if transport == "tcp-reserved":
            for port in range(1023, 600, -1):
                try:
                    self.s.bind(("127.0.0.1", port))
                    break
                except OSError:
                    continue
        self.s.connect(("127.0.0.1", 111))

    def close(self):
        self.s.close()

    def call(self, proc, args=b""):
        xid, msg = call_msg(RPCB_PROG, RPCB_VERS, proc, args)
        self.s.sendall(record(msg))
        r = parse_reply(recv_record(self.s))
        if r.get("xid") != xid or r.get("kind") != "SUCCESS":
            raise RuntimeError(f"rpcbind call {proc}: {r.get('kind')}")
        return _Dec(r["body"])

    def set(self, prog, vers, netid, addr, owner="0"):
        return self.call(RPCBPROC_SET,
                         rpcb_args(prog, vers, netid, addr, owner)).u32() != 0

    def unset(self, prog, vers, netid, owner="0"):
        return self.call(RPCBPROC_UNSET,
                         rpcb_args(prog, vers, netid, "", owner)).u32() != 0

    def getaddr(self, prog, vers, netid):
        return self.call(RPCBPROC_GETADDR,
                         rpcb_args(prog, vers, netid)).string()

    def dump(self):
        """[(prog, vers, netid, addr, owner)] (rpcblist_ptr)."""
        d = self.call(RPCBPROC_DUMP)
        out = []
        while d.u32():
            out.append((d.u32(), d.u32(), d.string(), d.string(),
                        d.string()))
        return out


class Client:
    """Rpcb's calls, each on a connection of its own (rpcbind may close
    an idle one between the steps of a test)."""

    def __init__(self, transport="local"):
        self.transport = transport

    def _do(self, name, *args):
        c = Rpcb(self.transport)
        try:
            return getattr(c, name)(*args)
        finally:
            c.close()

    def set(self, *args):
        return self._do("set", *args)

    def unset(self, *args):
        return self._do("unset", *args)

    def getaddr(self, *args):
        return self._do("getaddr", *args)

    def dump(self):
        return self._do("dump")


def dump(transport="local"):
    return Client(transport).dump()


def pmap_getport(prog, vers, prot=6):
    """Portmap v2 GETPORT (RFC 1833 section 3.2) over TCP to 111, as
    rpcinfo -p and libnfs ask: the port, 0 when not mapped."""
    s = socket.create_connection(("127.0.0.1", 111), timeout=10)
    try:
        xid, msg = call_msg(RPCB_PROG, 2, 3,
                            u32(prog) + u32(vers) + u32(prot) + u32(0))
        s.sendall(record(msg))
        r = parse_reply(recv_record(s))
        if r.get("xid") != xid or r.get("kind") != "SUCCESS":
            raise RuntimeError(f"GETPORT: {r.get('kind')}")
        return _Dec(r["body"]).u32()
    finally:
        s.close()


def uaddr(host, port):
    """RFC 5665 universal address of host:port."""
    return f"{host}.{port >> 8}.{port & 0xff}"


def running():
    try:
        dump()
        return True
    except OSError:
        return False


def start():
    """Start rpcbind in the foreground if none answers on its local
    socket. Returns the Popen of the one we started (stop it with
    stop()), or None if one was already running. Raises when rpcbind is
    missing or does not come up."""
    if running():
        return None
    exe = shutil.which("rpcbind") or "/usr/sbin/rpcbind"
    if not os.access(exe, os.X_OK):
        raise FileNotFoundError("rpcbind not installed")
    # -f: foreground; no -w, so no warm-start file from an earlier run
    # brings back registrations the test did not make.
    p = subprocess.Popen([exe, "-f"], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    deadline = time.time() + 10
    while time.time() < deadline:
        if p.poll() is not None:
            raise RuntimeError(f"rpcbind exited with {p.returncode}")
        if running():
            return p
        time.sleep(0.1)
    p.kill()
    p.wait()
    raise RuntimeError("rpcbind did not answer within 10 s")


def stop(p):
    if p is None:
        return
    p.terminate()
    try:
        p.wait(10)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


def main(argv):
    transport = "local"
    if argv and argv[0].startswith("--"):
        transport = argv.pop(0)[2:]
    c = Rpcb(transport)
    cmd = argv[0]
    if cmd == "dump":
        for e in c.dump():
            print(*e)
    elif cmd == "set":
        print(c.set(int(argv[1]), int(argv[2]), argv[3], argv[4],
                    *argv[5:6]))
    elif cmd == "unset":
        print(c.unset(int(argv[1]), int(argv[2]), argv[3], *argv[4:5]))
    c.close()


if __name__ == "__main__":
    main(sys.argv[1:])
