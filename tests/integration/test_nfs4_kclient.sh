#!/bin/bash
# The Linux kernel NFSv4 client (a Debian kernel under QEMU, see
# ../shared/kclient/README.md) mounts nasd through its pseudo root with
# vers=4.0, 4.1 and 4.2 and runs the default workload (64 MiB write+fsync,
# cold read, md5, 500 small files, mkdir/rmdir, rename, symlink, hardlink,
# chmod, truncate, df), then the NFSv4 workload kclient-nfs4.sh (fallocate
# through ALLOCATE, sparse files, an fcntl lock across processes) with 4.2
# and 4.0. Every STEP must have rc=0 and every CHECK pass.
# usage: test_nfs4_kclient.sh NASD
#   KCLIENT_DIR overrides the kclient path; NFS4_KCLIENT_RUNS limits the
#   runs, e.g. "nfs42:default nfs42:nfs4" (default: all five).
NASD=${1:?usage: $0 NASD}
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)

kclient_require
command -v qemu-system-x86_64 >/dev/null ||
	t_log "qemu not installed yet: kclient's run.sh installs it"

RUNS=${NFS4_KCLIENT_RUNS:-"nfs40:default nfs41:default nfs42:default nfs42:nfs4 nfs40:nfs4"}

t_init nfs4kclient
PORT=$(t_port "${NFS4_TEST_PORT:-17200}") || exit 1
EXP=$T_DIR/export
mkdir -p "$EXP" "$T_DIR/state"
# A file written here, so the server's page cache holds it: the guest's
# READs of it leave by sendfile (kclient-nfs4.sh compares its md5).
head -c $((4 * 1048576 + 12345)) /dev/urandom >"$EXP/served.bin"
md5sum "$EXP/served.bin" | cut -d' ' -f1 >"$EXP/served.md5"
chmod 755 "$EXP"

# A fresh state directory has no clients to wait for; skip grace anyway
# where the server has the option, so OPENs are not refused with GRACE.
extra=()
"$NASD" --help 2>&1 | grep -q -- '--grace-time' && extra+=(--grace-time 0)
nasd_start "$PORT" --listen "127.0.0.1:$PORT" --mountd-port 0 \
	--state-dir "$T_DIR/state" "${extra[@]}" \
	--export "$EXP:rw,no_root_squash" || t_finish

# run_kclient PROTO WORKLOAD NAME
run_kclient() {
	local proto=$1 wl=$2 name=$3 out=$T_DIR/$3 rc
	t_log "running kclient: $proto $wl --export $EXP --nfs-port $PORT"
	bash "$KCLIENT_DIR/run.sh" "$proto" "$wl" --export "$EXP" \
		--nfs-port "$PORT" --outdir "$out" --timeout 900 --mountstats \
		>"$T_DIR/$name.out" 2>&1
	rc=$?
	cat "$T_DIR/$name.out"
	t_eq "${name}_exit_status" 0 "$rc"
	kclient_results "$name" "$out" || return
	# which NFSv4 operations the client used (for the log)
	if [ -f "$out/mountstats.txt" ]; then
		t_log "$name ops used: $(grep -E '^[[:space:]]*[A-Z_]+: [1-9]' \
			"$out/mountstats.txt" | awk '{printf "%s%s ", $1, $2}')"
	fi
}

for run in $RUNS; do
	proto=${run%%:*}
	wl=${run#*:}
	case $wl in
	default) run_kclient "$proto" default "${proto}_default" ;;
	nfs4) run_kclient "$proto" "$HERE/kclient-nfs4.sh" "${proto}_nfs4" ;;
	*) t_fail "runs" "unknown workload $wl" ;;
	esac
	kill -0 "$NASD_PID" 2>/dev/null || {
		t_fail "nasd_alive_after_$run" "nasd died"
		break
	}
done

nasd_stop
t_finish
