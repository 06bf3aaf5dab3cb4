#!/bin/bash
# ENOSPC: an export on a small filesystem (an 8 MiB tmpfs, or a loop-mounted
# 16 MiB ext4 image where tmpfs cannot be mounted) is written until the
# server answers NFS3ERR_NOSPC (the status checked exactly, for FILE_SYNC
# and UNSTABLE writes); nasd stays up and keeps serving; after the file is
# removed (over NFS) writes succeed again and read back intact.
# usage: test_enospc.sh NASD
NASD=${1:?usage: $0 NASD}
. "$(dirname "$0")/lib.sh"
t_init enospc
[ "$(id -u)" = 0 ] || t_skip "needs root to mount a small filesystem"

FS=$T_DIR/fs
FSKIND=
# shellcheck disable=SC2317 # called by the EXIT trap
enospc_cleanup() {
	local rc=$?
	if [ -n "$NASD_PID" ] && kill -0 "$NASD_PID" 2>/dev/null; then
		nasd_expect_exit
		kill -9 "$NASD_PID" 2>/dev/null
		wait "$NASD_PID" 2>/dev/null
	fi
	[ -n "$FSKIND" ] && umount "$FS" 2>/dev/null
	(exit "$rc")
	t_cleanup
}
trap enospc_cleanup EXIT

mkdir -p "$FS" "$T_DIR/state"
# NT_ENOSPC_FS=ext4 forces the loop-mounted ext4 image.
: >"$T_DIR/mount.err"
if [ "${NT_ENOSPC_FS:-}" != ext4 ] &&
	mount -t tmpfs -o size=8m,mode=0755 tmpfs "$FS" 2>"$T_DIR/mount.err"; then
	FSKIND=tmpfs
elif command -v mkfs.ext4 >/dev/null &&
	truncate -s 16M "$T_DIR/fs.img" &&
	mkfs.ext4 -q -F -m 0 "$T_DIR/fs.img" 2>>"$T_DIR/mount.err" &&
	mount -o loop "$T_DIR/fs.img" "$FS" 2>>"$T_DIR/mount.err"; then
	FSKIND=ext4-loop
else
	t_skip "cannot mount a small filesystem: $(tr '\n' ' ' <"$T_DIR/mount.err")"
fi
chmod 755 "$FS"
t_log "export on a $FSKIND of $(df -k --output=size "$FS" | tail -n 1 | tr -d ' ') KiB"

PORT=$(t_port 18300) || exit 1
nasd_start "$PORT" --listen "127.0.0.1:$PORT" --mountd-port 0 \
	--state-dir "$T_DIR/state" --export "$FS:rw,no_root_squash" ||
	t_finish

# The client: prints "ok - NAME" / "not ok - NAME: DETAIL" lines, which are
# counted into this test's result below.
PYTHONPATH=$(dirname "$0") python3 - "$PORT" "$FS" >"$T_DIR/client.out" 2>&1 <<'EOF'
import os
import sys
from nt_nfs3 import Client, nfs3_name, FILE_SYNC, UNSTABLE

port, fs = int(sys.argv[1]), sys.argv[2]
CHUNK = 65536


def check(name, cond, detail=""):
    print(f"ok - {name}" if cond else f"not ok - {name}: {detail}",
          flush=True)


def fill(c, root, name, stable):
    """WRITE CHUNKs until an error; (status, bytes acknowledged)."""
    st, fh, _ = c.create(root, name)
    if st != 0:
        return st, 0, None
    off = 0
    while off < 1 << 30:
        st, res = c.write(fh, off, bytes([off // CHUNK % 251]) * CHUNK,
                          stable)
        if st != 0:
            return st, off, fh
        if res["count"] == 0:
            return -1, off, fh
        off += res["count"]           # a short count: continue after it
    return -2, off, fh


c = Client(port)
st, root = c.mnt(fs)
check("mnt", st == 0, str(st))
st, acked, fh = fill(c, root, "big.bin", FILE_SYNC)
print(f"# FILE_SYNC writes: {acked} bytes acknowledged, then "
      f"{nfs3_name(st)}")
check("file_sync_write_until_nospc", nfs3_name(st) == "NFS3ERR_NOSPC",
      f"got {nfs3_name(st)} after {acked} bytes")
size = os.stat(os.path.join(fs, "big.bin")).st_size
check("acked_bytes_on_disk", size >= acked, f"{size} < {acked}")
check("filled_most_of_the_fs", acked >= 4 << 20, f"only {acked} bytes")
st, res = c.write(fh, acked, b"x" * CHUNK, UNSTABLE)
check("unstable_write_when_full_nospc", nfs3_name(st) == "NFS3ERR_NOSPC",
      nfs3_name(st))
st, res = c.write(fh, 0, b"y" * 4096, FILE_SYNC)
check("overwrite_in_place_when_full_ok",
      st == 0 and res["count"] == 4096, nfs3_name(st))
st, fh2, _ = c.create(root, "second.bin")
if st == 0:
    st, res = c.write(fh2, 0, b"z" * CHUNK, FILE_SYNC)
    check("second_file_write_when_full_nospc",
          nfs3_name(st) == "NFS3ERR_NOSPC", nfs3_name(st))
else:
    check("second_file_create_when_full_nospc",
          nfs3_name(st) == "NFS3ERR_NOSPC", nfs3_name(st))
st, attr = c.getattr(root)
check("getattr_when_full", st == 0, nfs3_name(st))
c.close()

with Client(port) as c2:                   # a fresh connection works
    st, root2 = c2.mnt(fs)
    check("new_connection_when_full", st == 0, str(st))
    for n in ("big.bin", "second.bin"):
        st = c2.remove(root2, n)
        check(f"remove_{n}", st == 0 or (n == "second.bin" and st == 2),
              nfs3_name(st))
    st, acked2, fh3 = fill(c2, root2, "after.bin", UNSTABLE)
    print(f"# after freeing: {acked2} bytes in UNSTABLE writes, then "
          f"{nfs3_name(st)}")
    check("unstable_writes_after_freeing", acked2 >= 4 << 20,
          f"{acked2} bytes then {nfs3_name(st)}")
    check("unstable_write_until_nospc_again",
          nfs3_name(st) == "NFS3ERR_NOSPC", nfs3_name(st))
    st, verf = c2.commit(fh3)
    check("commit_after_nospc", st == 0, nfs3_name(st))
    st = c2.remove(root2, "after.bin")
    check("remove_after_bin", st == 0, nfs3_name(st))
    st, fh4, _ = c2.create(root2, "small.bin")
    data = os.urandom(3 * CHUNK)
    ok = st == 0
    for i in range(3):
        st, res = c2.write(fh4, i * CHUNK, data[i * CHUNK:(i + 1) * CHUNK],
                           FILE_SYNC)
        ok = ok and st == 0 and res["count"] == CHUNK
    check("writes_succeed_after_freeing", ok, nfs3_name(st))
    st, back = c2.read(fh4, 0, 3 * CHUNK)
    check("read_back_after_freeing", st == 0 and back == data,
          f"{nfs3_name(st)} {len(back or b'')} bytes")
EOF
pyrc=$?
cat "$T_DIR/client.out"
n_ok=$(grep -c '^ok - ' "$T_DIR/client.out")
n_bad=$(grep -c '^not ok - ' "$T_DIR/client.out")
T_PASSES=$((T_PASSES + n_ok))
T_FAILS=$((T_FAILS + n_bad))
if [ $pyrc -ne 0 ] || [ "$n_ok" -lt 15 ]; then
	t_fail "client_ran_to_the_end" "exit $pyrc, $n_ok checks passed"
fi
nasd_stop
t_finish
