#!/bin/bash
# The Linux kernel NFSv4 client (a Debian kernel under QEMU, see
# ../shared/kclient/README.md) mounts nasd through its pseudo root with
# vers=4.0, 4.1 and 4.2 and runs the default workload (64 MiB write+fsync,
# cold read, md5, 500 small files, mkdir/rmdir, rename, symlink, hardlink,
# chmod, truncate, df), then the NFSv4 workload kclient-nfs4.sh (fallocate
# through ALLOCATE, sparse files, an fcntl lock across processes) with 4.2
# and 4.0, and the xattr workload kclient-xattr.sh (RFC 8276: set, get,
# list, remove, a 64 KiB value, values set on either side) with 4.2 on a
# second export on tmpfs. Every STEP must have rc=0 and every CHECK pass.
# usage: test_nfs4_kclient.sh NASD
#   KCLIENT_DIR overrides the kclient path; NFS4_KCLIENT_RUNS limits the
#   runs, e.g. "nfs42:default nfs42:nfs4" (default: all six).
NASD=${1:?usage: $0 NASD}
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)

kclient_require
command -v qemu-system-x86_64 >/dev/null ||
	t_log "qemu not installed yet: kclient's run.sh installs it"

RUNS=${NFS4_KCLIENT_RUNS:-"nfs40:default nfs41:default nfs42:default nfs42:nfs4 nfs40:nfs4 nfs42:xattr"}

t_init nfs4kclient
# xattrs on tmpfs: ext4 keeps one block of them, too little for 64 KiB
XTMP=$(mktemp -d /dev/shm/nasd-test-nfs4kclient.XXXXXX) || exit 1
trap 't_cleanup; rm -rf "$XTMP"' EXIT
XEXP=$XTMP/xattr
mkdir -m 755 "$XEXP"
# kc_fileops' value of NAME, SIZE bytes (the check on this side)
xpattern() {
	/usr/bin/python3 -c '
import sys
n, k = sys.argv[1].encode(), int(sys.argv[2])
sys.stdout.buffer.write(bytes((i * 31 + len(n) * 7 + n[i % len(n)]) & 255
                              for i in range(k)))' "$1" "$2"
}
echo srv >"$XEXP/xattr-srv"
/usr/bin/python3 -c 'import os, sys
os.setxattr(sys.argv[1], "user.fromsrv", sys.stdin.buffer.read())' \
	"$XEXP/xattr-srv" < <(xpattern user.fromsrv 1000)
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
	--export "$EXP:rw,no_root_squash" \
	--export "$XEXP:rw,no_root_squash" || t_finish

# kc_fileops (busybox has no getfattr) built static here and carried into
# the guest inside the xattr workload
XWL=$T_DIR/workload-xattr.sh
kclient_with_fileops "$HERE/kclient-xattr.sh" "$XWL"

# run_kclient PROTO WORKLOAD NAME [EXPORT]
run_kclient() {
	local proto=$1 wl=$2 name=$3 out=$T_DIR/$3 exp=${4:-$EXP} rc
	t_log "running kclient: $proto $wl --export $exp --nfs-port $PORT"
	bash "$KCLIENT_DIR/run.sh" "$proto" "$wl" --export "$exp" \
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
	xattr)
		run_kclient "$proto" "$XWL" "${proto}_xattr" "$XEXP"
		# the value the guest set, as the file system has it
		if cmp -s <(xpattern user.fromguest 4096) <(/usr/bin/python3 -c \
			'import os, sys; sys.stdout.buffer.write(os.getxattr(
			sys.argv[1], "user.fromguest"))' "$XEXP/xattr-guest" 2>&1)
		then
			t_ok "${proto}_xattr_guest_value_on_server"
		else
			t_fail "${proto}_xattr_guest_value_on_server" \
				"user.fromguest of $XEXP/xattr-guest differs"
		fi
		;;
	*) t_fail "runs" "unknown workload $wl" ;;
	esac
	kill -0 "$NASD_PID" 2>/dev/null || {
		t_fail "nasd_alive_after_$run" "nasd died"
		break
	}
done

nasd_stop
t_finish
