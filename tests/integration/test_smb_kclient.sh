#!/bin/bash
# The Linux kernel SMB3 client (cifs, vers=3.1.1, a Debian kernel under
# QEMU: ../shared/kclient/README.md) mounts a nasd share as an SMB user
# and runs the default workload (64 MiB write+fsync, cold read, md5, 500
# small files, mkdir/rmdir, rename, symlink, hardlink, truncate, df), then
# kclient-smb.sh (1000 files with ls -l, copies, rename over, truncate, a
# file removed while open, an fcntl lock across processes, a sparse file,
# copy_file_range, reflink=auto, hole punching with SEEK_HOLE/SEEK_DATA,
# fallocate).
# Every STEP must have rc=0 and every CHECK pass; the files the guest
# leaves belong to the user's uid on disk.
# usage: test_smb_kclient.sh NASD      (KCLIENT_DIR overrides the kclient path)
NASD=${1:?usage: $0 NASD}
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)

kclient_require

t_init smbkclient
PORT=$(t_port 17400) || exit 1
SPORT=$(t_port $((PORT + 1))) || exit 1
EXP=$T_DIR/export
S=$T_DIR/state
mkdir -p "$EXP" "$S"
head -c $((4 * 1048576 + 12345)) /dev/urandom >"$EXP/served.bin"
md5sum "$EXP/served.bin" | cut -d' ' -f1 >"$EXP/served.md5"
chown -R 1234:1234 "$EXP"
echo "kc-Passw0rd" | "$NASD" user add kcuser --uid 1234 --gid 1234 \
	--state-dir "$S" >/dev/null || t_die "user_add"

nasd_start "$SPORT" --listen "127.0.0.1:$PORT" --mountd-port 0 \
	--state-dir "$S" --smb-listen "127.0.0.1:$SPORT" \
	--export "$EXP:rw,root_squash,smb=share" || t_finish

# run_kclient WORKLOAD NAME [run.sh options]
run_kclient() {
	local wl=$1 name=$2 out=$T_DIR/$2 rc
	shift 2
	t_log "running kclient: smb3 $wl --smb-port $SPORT --export share $*"
	bash "$KCLIENT_DIR/run.sh" smb3 "$wl" --smb-port "$SPORT" \
		--export share --user kcuser --pass kc-Passw0rd \
		--outdir "$out" --timeout 900 "$@" >"$T_DIR/$name.out" 2>&1
	rc=$?
	cat "$T_DIR/$name.out"
	t_eq "${name}_exit_status" 0 "$rc"
	kclient_results "$name" "$out" || return
}

# kc_fileops (copy_file_range, FICLONE, punch, SEEK_HOLE: busybox has
# none) built static here and carried into the guest inside the workload.
WL=$T_DIR/workload-smb.sh
kclient_with_fileops "$HERE/kclient-smb.sh" "$WL"

run_kclient default smb3_default
kill -0 "$NASD_PID" 2>/dev/null || t_die "nasd_alive" "nasd died"
run_kclient "$WL" smb3_workload
kill -0 "$NASD_PID" 2>/dev/null || t_die "nasd_alive" "nasd died"
# The default workload again over an encrypted mount (seal: every
# message in AES-128-GCM, MS-SMB2 §3.1.4.3): the byte count of what was
# encrypted and decrypted must grow by more than the workload's data.
sealed() {
	"$NASD" stats --state-dir "$S" --json | python3 -c \
		'import json,sys; print(json.load(sys.stdin)["values"]["smb2_encrypted_bytes_total"])'
}
before=$(sealed)
run_kclient default smb3_seal --opts seal
after=$(sealed)
if [ -n "$before" ] && [ -n "$after" ] &&
	[ "$((after - before))" -gt $((128 * 1048576)) ]; then
	t_ok "seal_bytes_encrypted"
else
	t_fail "seal_bytes_encrypted" "only '$before' -> '$after' bytes"
fi
others=$(find "$EXP" -mindepth 1 ! -uid 1234 | head -n 5)
[ -z "$others" ] && t_ok "files_owned_by_user" ||
	t_fail "files_owned_by_user" "$others"

nasd_stop
t_finish
