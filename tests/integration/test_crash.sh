#!/bin/bash
# kill -9 during a concurrent mixed write workload, then restart with the
# same state dir. test_restart.sh covers one sequential writer; this runs
# six writers at once on 4 worker threads: per file, one writer sends its
# (even) blocks as FILE_SYNC or DATA_SYNC WRITEs, another pipelines its
# (odd) blocks as pipelined UNSTABLE WRITEs and COMMITs every 32 blocks, so
# stable and unstable writes interleave within one file. Every block whose
# stability was acknowledged before the kill (a FILE_SYNC/DATA_SYNC reply
# saying so, or a COMMIT with the WRITEs' verifier) must be byte-exact on
# disk and over NFS after the restart. Unstable writes with no COMMIT reply
# may be lost, but the write verifier must differ from every pre-crash one,
# and resending them (as a client does) with a COMMIT makes them stable.
# usage: test_crash.sh NASD
NASD=${1:?usage: $0 NASD}
. "$(dirname "$0")/lib.sh"
t_init crash
HERE=$(cd "$(dirname "$0")" && pwd)

PORT=$(t_port 18400) || exit 1
EXP=$T_DIR/export
STATE=$T_DIR/state
ACKS=$T_DIR/acks.log
mkdir -p "$EXP" "$STATE"
chmod 755 "$EXP"
NFILES=3
BLK=32768
NBLOCKS=6000          # per file: far more than gets written before the kill
KILL_AFTER=240        # acknowledged blocks before the kill
args=(--listen "127.0.0.1:$PORT" --mountd-port 0 --threads 4
	--state-dir "$STATE" --export "$EXP:rw,no_root_squash")

nasd_start "$PORT" "${args[@]}" || t_finish

# ---- the writers (one process, one connection and thread per writer)
PYTHONPATH=$HERE python3 - "$PORT" "$EXP" "$ACKS" $NFILES $BLK $NBLOCKS \
	>"$T_DIR/writers.out" 2>&1 <<'EOF' &
import os
import random
import sys
import threading
from nt_nfs3 import (Client, Closed, Dec, WRITE, FILE_SYNC, DATA_SYNC,
                     UNSTABLE)

port, exp, acks = int(sys.argv[1]), sys.argv[2], sys.argv[3]
nfiles, blk, nblocks = (int(a) for a in sys.argv[4:7])
logfd = os.open(acks, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)


def log(line):
    os.write(logfd, (line + "\n").encode())    # one O_APPEND write a line


def pattern(f, b):
    return random.Random(f * 1000003 + b).randbytes(blk)


def sync_writer(f, fh, done):
    with Client(port) as c:
        for b in range(0, nblocks, 2):
            how = DATA_SYNC if b % 8 == 0 else FILE_SYNC
            st, res = c.write(fh, b * blk, pattern(f, b), how)
            if st != 0 or res["count"] != blk or res["committed"] < how:
                print(f"sync writer {f}: block {b}: {st} {res}", flush=True)
                return
            log(f"ack {f} {b}")
    done.append(f)


def unstable_writer(f, fh, done):
    """Batches of 8 pipelined UNSTABLE WRITEs; a COMMIT of everything
    since the last one after every 4th batch."""
    with Client(port) as c:
        pending, verfs = [], set()
        for first in range(1, nblocks, 16):
            blocks = list(range(first, min(first + 16, nblocks), 2))
            calls = [(WRITE, Client.write_args(fh, b * blk, pattern(f, b),
                                               UNSTABLE)) for b in blocks]
            for b, r in zip(blocks, c.pipeline(calls)):
                d = Dec(r["body"])
                st, res = Client.write_res(d.u32(), d)
                if st != 0 or res["count"] != blk:
                    print(f"unstable writer {f}: block {b}: {st}",
                          flush=True)
                    return
                verfs.add(res["verf"])
                log(f"unst {f} {b} {res['verf'].hex()}")
                pending.append(b)
            if len(pending) < 32 and first + 16 < nblocks:
                continue
            lo, hi = pending[0] * blk, (pending[-1] + 1) * blk
            st, verf = c.commit(fh, lo, hi - lo)
            if st != 0:
                print(f"unstable writer {f}: COMMIT {st}", flush=True)
                return
            if verfs != {verf}:
                print(f"unstable writer {f}: verifier changed", flush=True)
                return
            for b in pending:
                log(f"ack {f} {b}")
            pending, verfs = [], set()
    done.append(f)


def run(target, f, fh, done):
    try:
        target(f, fh, done)
    except (Closed, OSError) as e:
        print(f"{target.__name__} {f}: connection lost: {e}", flush=True)


with Client(port) as c:
    st, root = c.mnt(exp)
    fhs = []
    for f in range(nfiles):
        st, fh, _ = c.create(root, f"f{f}.bin")
        assert st == 0, st
        fhs.append(fh)
threads, done = [], []
for f in range(nfiles):
    for w in (sync_writer, unstable_writer):
        threads.append(threading.Thread(target=run,
                                        args=(w, f, fhs[f], done)))
for t in threads:
    t.start()
for t in threads:
    t.join()
print(f"{len(done)} of {len(threads)} writers finished", flush=True)
EOF
WL=$!

acked=0
for _ in $(seq 1 600); do
	acked=$(grep -c '^ack ' "$ACKS" 2>/dev/null)
	acked=${acked:-0}
	[ "$acked" -ge $KILL_AFTER ] && break
	kill -0 $WL 2>/dev/null || break
	sleep 0.05
done
nasd_kill9
wait $WL
acked=$(grep -c '^ack ' "$ACKS")
unst=$(grep -c '^unst ' "$ACKS")
t_log "SIGKILL after $acked acknowledged stable blocks ($unst UNSTABLE WRITE replies)"
if [ "$acked" -ge $KILL_AFTER ] && [ "$acked" -lt $((NFILES * NBLOCKS)) ] &&
	grep -q '^0 of 6 writers finished' "$T_DIR/writers.out"; then
	t_ok "workload_killed_mid_way"
else
	t_fail "workload_killed_mid_way" "$acked blocks acknowledged; $(tail -n 3 "$T_DIR/writers.out" | tr '\n' ' ')"
fi
# a writer stops at the first wrong answer before the kill (an error, a
# short count, a weaker stability, a verifier that changed): a failure,
# not just a writer that did not finish
if grep -qE '^(sync|unstable) writer [0-9]+: ' "$T_DIR/writers.out"; then
	t_fail "no_wrong_answer_before_the_kill" "$(grep -E '^(sync|unstable) writer [0-9]+: ' "$T_DIR/writers.out" | head -n 3 | tr '\n' ' ')"
else
	t_ok "no_wrong_answer_before_the_kill"
fi
for f in $(seq 0 $((NFILES - 1))); do
	a=$(grep -c "^ack $f [0-9]*[02468]\$" "$ACKS")
	b=$(grep -c "^ack $f [0-9]*[13579]\$" "$ACKS")
	if [ "$a" -gt 0 ] && [ "$b" -gt 0 ]; then
		t_ok "file${f}_both_writers_acked"
	else
		t_fail "file${f}_both_writers_acked" "stable-write blocks $a, committed blocks $b"
	fi
done

# ---- restart with the same state dir and check
nasd_start "$PORT" "${args[@]}" || t_finish
PYTHONPATH=$HERE python3 - "$PORT" "$EXP" "$ACKS" $BLK \
	>"$T_DIR/check.out" 2>&1 <<'EOF'
import os
import random
import sys
from nt_nfs3 import Client, nfs3_name, UNSTABLE

port, exp, acks, blk = (int(sys.argv[1]), sys.argv[2], sys.argv[3],
                        int(sys.argv[4]))


def check(name, cond, detail=""):
    print(f"ok - {name}" if cond else f"not ok - {name}: {detail}",
          flush=True)


def pattern(f, b):
    return random.Random(f * 1000003 + b).randbytes(blk)


acked, unst, old_verfs = set(), set(), set()
with open(acks) as fp:
    for line in fp:
        w = line.split()
        if len(w) == 3 and w[0] == "ack":
            acked.add((int(w[1]), int(w[2])))
        elif len(w) == 4 and w[0] == "unst":
            unst.add((int(w[1]), int(w[2])))
            old_verfs.add(w[3])
check("pre_crash_verifier_known", len(old_verfs) == 1, str(old_verfs))

# on disk, straight from the file
bad = []
for f, b in sorted(acked):
    with open(os.path.join(exp, f"f{f}.bin"), "rb") as fp:
        data = os.pread(fp.fileno(), blk, b * blk)
    if data != pattern(f, b):
        bad.append((f, b, len(data)))
check("acked_blocks_byte_exact_on_disk", not bad,
      f"{len(bad)} of {len(acked)} differ: {bad[:5]}")

with Client(port) as c:
    st, root = c.mnt(exp)
    fhs = {}
    for f in sorted({f for f, _ in acked | unst}):
        st, fhs[f], _ = c.lookup(root, f"f{f}.bin")
    bad = []
    for f, b in sorted(acked):
        st, data = c.read(fhs[f], b * blk, blk)
        if st != 0 or data != pattern(f, b):
            bad.append((f, b, nfs3_name(st)))
    check("acked_blocks_byte_exact_over_nfs", not bad,
          f"{len(bad)} of {len(acked)}: {bad[:5]}")
    new_verfs = set()
    for f, fh in fhs.items():
        st, verf = c.commit(fh)
        check(f"commit_f{f}_after_restart", st == 0, nfs3_name(st))
        if verf:
            new_verfs.add(verf.hex())
    check("verifier_changed_after_crash",
          len(new_verfs) == 1 and not (new_verfs & old_verfs),
          f"before {old_verfs} after {new_verfs}")
    # the client's recovery: resend the uncommitted unstable writes
    pending = sorted(unst - acked)
    print(f"# {len(pending)} unstable blocks had no COMMIT reply: resent")
    bad = []
    for f, b in pending:
        st, res = c.write(fhs[f], b * blk, pattern(f, b), UNSTABLE)
        if st != 0 or res["verf"].hex() not in new_verfs:
            bad.append((f, b, nfs3_name(st)))
    for f, fh in fhs.items():
        st, verf = c.commit(fh)
        if st != 0 or verf.hex() not in new_verfs:
            bad.append((f, "commit", nfs3_name(st)))
    for f, b in pending:
        st, data = c.read(fhs[f], b * blk, blk)
        if st != 0 or data != pattern(f, b):
            bad.append((f, b, "readback"))
    check("resent_unstable_blocks_stable", not bad, str(bad[:5]))
print("check done")
EOF
pyrc=$?
cat "$T_DIR/check.out"
n_ok=$(grep -c '^ok - ' "$T_DIR/check.out")
n_bad=$(grep -c '^not ok - ' "$T_DIR/check.out")
T_PASSES=$((T_PASSES + n_ok))
T_FAILS=$((T_FAILS + n_bad))
if [ $pyrc -ne 0 ] || ! grep -q '^check done' "$T_DIR/check.out"; then
	t_fail "checker_ran_to_the_end" "exit $pyrc"
fi
nasd_stop
t_finish
