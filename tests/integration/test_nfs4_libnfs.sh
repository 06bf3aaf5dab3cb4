#!/bin/bash
# NFSv4.0 through libnfs (nfs4_api.c: mount via the pseudo root, stat,
# create/write/read back, readdir, rename, mkdir/rmdir, remove, locks
# between two clients) and the libnfs tools nfs-ls / nfs-cp with
# ?version=4, against an rw,no_root_squash export.
# usage: test_nfs4_libnfs.sh NASD NFS4_API
NASD=${1:?usage: $0 NASD NFS4_API}
API=${2:?usage: $0 NASD NFS4_API}
. "$(dirname "$0")/lib.sh"
t_init nfs4libnfs

PORT=$(t_port "${NFS4_TEST_PORT:-17100}") || exit 1
EXP=$T_DIR/export
mkdir -p "$EXP" "$T_DIR/state"
chmod 755 "$EXP"

nasd_start "$PORT" --listen "127.0.0.1:$PORT" --mountd-port 0 \
	--state-dir "$T_DIR/state" --export "$EXP:rw,no_root_squash" ||
	t_finish
t_ok "nasd_started"

"$API" "$PORT" "$EXP" >"$T_DIR/api.out" 2>&1
rc=$?
cat "$T_DIR/api.out"
if [ $rc -eq 0 ]; then
	t_ok "nfs4_api"
else
	t_fail "nfs4_api" "exited $rc; failed checks:"
	grep -E '^not ok|^#' "$T_DIR/api.out"
fi

URL="nfs://127.0.0.1$EXP"
Q="version=4&nfsport=$PORT"
# Uploads stay under 3.9 KiB: libnfs 5.0.2's NFSv4 client cannot encode
# larger WRITEs (see nfs4_api.c). Downloads may be large.
head -c 3000 /dev/urandom >"$T_DIR/up.bin"
head -c 3000000 /dev/urandom >"$EXP/big.bin"
mkdir "$EXP/lsdir"
touch "$EXP/lsdir/one" "$EXP/lsdir/two"
t_check "nfs_cp_upload" timeout 60 nfs-cp "$T_DIR/up.bin" "$URL/up.bin?$Q"
t_check "nfs_cp_upload_on_disk" cmp "$T_DIR/up.bin" "$EXP/up.bin"
t_check "nfs_cp_download" timeout 60 nfs-cp "$URL/big.bin?$Q" "$T_DIR/down.bin"
t_check "nfs_cp_download_equal" cmp "$EXP/big.bin" "$T_DIR/down.bin"
out=$(timeout 60 nfs-ls "$URL/lsdir?$Q" 2>&1)
rc=$?
t_eq "nfs_ls_exit" 0 "$rc"
if echo "$out" | grep -q ' one$' && echo "$out" | grep -q ' two$'; then
	t_ok "nfs_ls_lists_entries"
else
	t_fail "nfs_ls_lists_entries" "$(echo "$out" | tr '\n' '|')"
fi

nasd_stop
t_finish
