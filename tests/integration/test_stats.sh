#!/bin/bash
# Server statistics end to end: libnfs tools move a file in and out, then
# `nasd stats --json` must count the calls and the exact payload bytes,
# GET /metrics must serve the same counts in Prometheus text, hostile or
# wrong HTTP requests get 4xx and leave the endpoint serving, and the
# control socket is private and gone after SIGTERM. With two event loops,
# long-lived connections opened each after a short one (as libnfs opens a
# MOUNT connection before its NFS one) end up one per loop, not all on one.
# usage: test_stats.sh NASD
NASD=${1:?usage: $0 NASD}
. "$(dirname "$0")/lib.sh"
t_init stats

for tool in nfs-ls nfs-cp python3; do
	command -v $tool >/dev/null || t_skip "$tool not installed (libnfs-utils/python3)"
done

PORT=$(t_port 15100) || exit 1
MPORT=$(t_port $((PORT + 50))) || exit 1
EXP=$T_DIR/export
STATE=$T_DIR/state
mkdir -p "$EXP" "$STATE"
chmod 755 "$EXP"
printf 'hello\n' >"$EXP/hello.txt"

nasd_start "$PORT" --listen "127.0.0.1:$PORT" --mountd-port 0 \
	--state-dir "$STATE" --export "$EXP:rw,no_root_squash" \
	--metrics "127.0.0.1:$MPORT" --loops 2 || t_finish
t_ok "nasd_started"
for i in $(seq 1 50); do
	port_listening "$MPORT" && break
	sleep 0.1
done

mode=$(stat -c '%a %F' "$STATE/control.sock" 2>&1)
t_eq "control_socket_mode" "600 socket" "$mode"

# Before any client: every procedure at zero, valid JSON.
out=$("$NASD" stats --state-dir "$STATE" --json 2>&1)
t_check "stats_json_at_start" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["bytes_read"] == 0 and d["bytes_written"] == 0, d
assert all(p["count"] == 0 for p in d["procedures"]), d["procedures"]
names = {(p["program"], p["version"], p["procedure"]) for p in d["procedures"]}
assert ("nfs", 3, "READ") in names and ("mountd", 3, "MNT") in names, names
' "$out"

Q="?nfsport=$PORT&mountport=$PORT"
URL="nfs://127.0.0.1$EXP"
SIZE=$((3 * 1048576 + 12345)) # not a multiple of the client's block size
head -c "$SIZE" /dev/urandom >"$T_DIR/src.bin"
t_check "nfs_cp_in" timeout 120 nfs-cp "$T_DIR/src.bin" "$URL/copy.bin$Q"
t_check "nfs_cp_out" timeout 120 nfs-cp "$URL/copy.bin$Q" "$T_DIR/back.bin"
t_check "copy_byte_exact" cmp "$T_DIR/src.bin" "$T_DIR/back.bin"
t_check "nfs_ls" timeout 60 nfs-ls "$URL/$Q"
# A lookup of a missing file: an NFS3ERR_NOENT, a status error.
timeout 60 nfs-cp "$URL/no-such-file$Q" "$T_DIR/none.bin" >/dev/null 2>&1

JSON=$("$NASD" stats --state-dir "$STATE" --json 2>"$T_DIR/stats.err")
rc=$?
t_eq "nasd_stats_json_exit" 0 "$rc"
printf '%s' "$JSON" >"$T_DIR/stats.json"
t_check "stats_json_counts" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
size = int(sys.argv[2])
p = {(x["program"], x["version"], x["procedure"]): x for x in d["procedures"]}
nfs = lambda n: p[("nfs", 3, n)]
assert nfs("WRITE")["count"] > 0, nfs("WRITE")
assert nfs("READ")["count"] > 0, nfs("READ")
assert d["bytes_written"] == size, (d["bytes_written"], size)
assert d["bytes_read"] == size, (d["bytes_read"], size)
for n in ("NULL", "GETATTR", "LOOKUP", "READDIRPLUS"):
    assert nfs(n)["count"] > 0, n
assert p[("mountd", 3, "MNT")]["count"] > 0
assert nfs("LOOKUP")["status_errors"] >= 1, nfs("LOOKUP")
assert nfs("READ")["status_errors"] == 0 and nfs("READ")["rpc_errors"] == 0
for x in d["procedures"]:
    l = x["latency_us"]
    if x["count"]:
        assert 0 <= l["p50"] <= l["p99"] <= l["max"], x
        assert l["avg"] <= l["max"] and l["max"] > 0, x
    else:
        assert l["max"] == 0, x
assert d["connections"]["total"] >= 4, d["connections"]
assert d["connections"]["current"] == 0, d["connections"]
assert d["process"]["cpu_seconds"] > 0 and d["process"]["resident_bytes"] > 0
assert d["uptime_seconds"] > 0
' "$T_DIR/stats.json" "$SIZE"

# Connection placement: short, long, short, long... Each short one is
# closed and seen closed (stats) before the next connection opens.
t_check "loops_share_long_connections" timeout 60 python3 -c '
import json, socket, struct, subprocess, sys, time
nasd, state, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
def stats():
    out = subprocess.run([nasd, "stats", "--state-dir", state, "--json"],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)["connections"]
def null_call(s, xid):
    # RPC CALL NFS v3 NULL, AUTH_NONE; read the whole reply.
    body = struct.pack(">10I", xid, 0, 2, 100003, 3, 0, 0, 0, 0, 0)
    s.sendall(struct.pack(">I", 0x80000000 | len(body)) + body)
    hdr = s.recv(4, socket.MSG_WAITALL)
    n = struct.unpack(">I", hdr)[0] & 0x7fffffff
    assert len(s.recv(n, socket.MSG_WAITALL)) == n
def wait_current(n):
    for _ in range(100):
        c = stats()
        if c["current"] == n:
            return c
        time.sleep(0.05)
    raise AssertionError("connections never reached %d: %s" % (n, c))
base = wait_current(0)
assert len(base["per_loop"]) == 2, base
keep = []
for i in range(6):
    s = socket.create_connection(("127.0.0.1", port))
    null_call(s, 1000 + i)
    s.close()
    wait_current(len(keep))
    s = socket.create_connection(("127.0.0.1", port))
    null_call(s, 2000 + i)
    keep.append(s)
c = wait_current(len(keep))
assert sorted(c["per_loop"]) == [3, 3], c
for s in keep:
    s.close()
c = wait_current(0)
assert c["per_loop"] == [0, 0], c
' "$NASD" "$STATE" "$PORT"

out=$("$NASD" stats --state-dir "$STATE" 2>&1)
if echo "$out" | grep -q '^PROCEDURE ' && echo "$out" | grep -E -q '^nfs/3/READ +[1-9]'; then
	t_ok "stats_text_table"
else
	t_fail "stats_text_table" "$(echo "$out" | head -n 8 | tr '\n' '|')"
fi

# /metrics, fetched with python's urllib (no curl needed).
t_check "metrics_match_json" python3 -c '
import json, sys, urllib.request, re
d = json.load(open(sys.argv[1]))
r = urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[2], timeout=10)
assert r.status == 200
assert r.headers["Content-Type"].startswith("text/plain; version=0.0.4")
body = r.read().decode()
for name in ("nasd_rpc_requests_total", "nasd_rpc_latency_seconds_bucket",
             "nasd_rpc_latency_seconds_sum", "nasd_rpc_latency_seconds_count",
             "nasd_bytes_read_total", "nasd_bytes_written_total",
             "nasd_connections", "nasd_loop_connections",
             "process_cpu_seconds_total",
             "process_resident_memory_bytes"):
    assert re.search("^" + name + "[ {]", body, re.M), name
def val(pat):
    m = re.search("^" + re.escape(pat) + r" (\S+)$", body, re.M)
    assert m, pat
    return float(m.group(1))
read = [x for x in d["procedures"] if x["program"] == "nfs" and x["procedure"] == "READ"][0]
lab = "{program=\"nfs\",version=\"3\",proc=\"READ\"}"
assert val("nasd_rpc_requests_total" + lab) == read["count"]
assert val("nasd_rpc_latency_seconds_count" + lab) == read["count"]
inf = "{program=\"nfs\",version=\"3\",proc=\"READ\",le=\"+Inf\"}"
assert val("nasd_rpc_latency_seconds_bucket" + inf) == read["count"]
assert val("nasd_bytes_read_total") == d["bytes_read"]
assert val("nasd_bytes_written_total") == d["bytes_written"]
assert val("process_cpu_seconds_total") > 0
' "$T_DIR/stats.json" "$MPORT"

# Hostile and wrong HTTP: each gets its 4xx; the endpoint keeps serving.
t_check "metrics_bad_requests" timeout 60 python3 -c '
import socket, sys, time, urllib.request
port = int(sys.argv[1])
def raw(data, shut=True):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    if data:
        s.sendall(data)
    if shut:
        s.shutdown(socket.SHUT_WR)
    out = b""
    while True:
        try:
            d = s.recv(65536)
        except ConnectionResetError:
            break
        if not d:
            break
        out += d
    s.close()
    return out.split(b"\r\n", 1)[0]
cases = [
    (b"GET /nope HTTP/1.1\r\nHost: x\r\n\r\n", b"HTTP/1.1 404"),
    (b"POST /metrics HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc", b"HTTP/1.1 405"),
    (b"\x00\xff\x16\x03\x01 garbage\r\n\r\n", b"HTTP/1.1 400"),
    (b"GET /metrics HTTP/9.9\r\n\r\n", b"HTTP/1.1 400"),
    (b"GET /metrics HTTP/1.1\r\nX: " + b"a" * 100000 + b"\r\n\r\n", b"HTTP/1.1 431"),
    (b"B" * 50000, b"HTTP/1.1 431"),
    (b"GET /metrics HTTP/1.1\r\nHost:", b"HTTP/1.1 400"),
]
for req, want in cases:
    got = raw(req)
    assert got.startswith(want), (req[:40], got)
# Idle connections that never send: the endpoint still answers others,
# and drops the idle ones after its timeout.
idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(4)]
t = time.time()
body = urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=10).read()
assert b"nasd_rpc_requests_total" in body
assert time.time() - t < 3, time.time() - t
idle[0].settimeout(15)
assert idle[0].recv(10) == b"", "idle client not dropped"
for s in idle:
    s.close()
body = urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=10).read()
assert b"process_cpu_seconds_total" in body
' "$MPORT"

# The control socket refuses what it does not know, and still serves.
t_check "control_bad_request" python3 -c '
import socket, sys
def ask(data):
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(10)
    s.connect(sys.argv[1])
    s.sendall(data)
    out = b""
    while True:
        d = s.recv(65536)
        if not d:
            break
        out += d
    s.close()
    return out
assert ask(b"reboot\n").startswith(b"error: ")
assert ask(b"stats xml\n").startswith(b"error: ")
assert ask(b"x" * 1000).startswith(b"error: ")
assert ask(b"stats prometheus\n").startswith(b"# HELP ")
assert ask(b"stats json\r\n").startswith(b"{")
' "$STATE/control.sock"
"$NASD" stats --state-dir "$T_DIR/nowhere" >/dev/null 2>&1
t_eq "stats_without_server_exit" 1 "$?"
"$NASD" stats --bogus >/dev/null 2>&1
t_eq "stats_usage_exit" 2 "$?"

# Still serving NFS after all that.
t_check "nfs_ls_after" timeout 60 nfs-ls "$URL/$Q"

nasd_stop
if [ -e "$STATE/control.sock" ]; then
	t_fail "control_socket_removed" "$STATE/control.sock still exists"
else
	t_ok "control_socket_removed"
fi
t_finish
