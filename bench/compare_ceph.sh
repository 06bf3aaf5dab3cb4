#!/bin/bash
# compare_ceph.sh - nasd's CephFS backend against NFS-Ganesha's FSAL_CEPH,
# both serving the same one-node Ceph (../shared/ceph, brought up here and
# down at the end) over NFSv3: seq-write and seq-read 1 MiB (4 jobs x 16),
# rand-read 4 KiB, the SWBUILD-like mix (16 x 2), alternating which server
# goes first, medians of --reps runs, printed by summarize.py (ratios nasd
# / Ganesha; the issue sets no target before this first measurement). Each
# server has its own directory of the filesystem. Server CPU is the NFS
# server process's (libcephfs included), not the Ceph daemons'.
#
# usage: bench/compare_ceph.sh [--build DIR] [--reps N] [--results DIR]
#                              [--quick] [--no-ganesha]
set -u
cd "$(dirname "$0")/.." || exit 2
TOP=$PWD
BUILD=build
REPS=3
QUICK=0
GANESHA=1
RESULTS=
while [ $# -gt 0 ]; do
	case $1 in
	--build) BUILD=$2; shift ;;
	--reps) REPS=$2; shift ;;
	--results) RESULTS=$2; shift ;;
	--quick) QUICK=1 ;;
	--no-ganesha) GANESHA=0 ;;
	*) echo "usage: $0 [--build DIR] [--reps N] [--results DIR] [--quick] [--no-ganesha]" >&2; exit 2 ;;
	esac
	shift
done
NASD=$TOP/$BUILD/nasd
BENCH=$TOP/$BUILD/nasd-bench
CEPH_SH=${CEPH_SH:-$TOP/../shared/ceph/ceph-single-node.sh}
[ -x "$NASD" ] && [ -x "$BENCH" ] || { echo "compare_ceph.sh: build $BUILD first" >&2; exit 2; }
[ -f "$TOP/$BUILD/nasd-ceph.so" ] || { echo "compare_ceph.sh: $BUILD has no CephFS backend (libcephfs-dev)" >&2; exit 2; }
[ -f "$CEPH_SH" ] || { echo "compare_ceph.sh: no $CEPH_SH" >&2; exit 2; }
RESULTS=${RESULTS:-$TOP/$BUILD/bench-results-ceph}
if [ $QUICK = 1 ]; then T=3; SIZE=256m; SWB_T=3; else T=10; SIZE=1g; SWB_T=10; fi
NASD_PORT=22149
GAN_PORT=22249
GAN_MNT=22250
log() { echo "== $*" >&2; }

W=$(mktemp -d /tmp/nasd-bench-ceph.XXXXXX) || exit 1
NASD_PID=
GAN_PID=
RPCB_PID=
stop_pid() {
	local pid=$1
	[ -n "$pid" ] || return 0
	kill -TERM "$pid" 2>/dev/null || return 0
	for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
	kill -KILL "$pid" 2>/dev/null
}
cleanup() {
	stop_pid "$NASD_PID"
	stop_pid "$GAN_PID"
	stop_pid "$RPCB_PID"
	bash "$CEPH_SH" down >"$W/ceph-down.log" 2>&1
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
port_listening() { ss -Hltn "sport = :$1" 2>/dev/null | grep -q .; }
wait_listen() {	# wait_listen PORT PID NAME LOG
	for _ in $(seq 1 300); do
		port_listening "$1" && return 0
		kill -0 "$2" 2>/dev/null || break
		sleep 0.1
	done
	echo "compare_ceph.sh: $3 does not listen on $1:" >&2
	tail -n 20 "$4" >&2
	return 1
}

if [ $GANESHA = 1 ] && ! ls /usr/lib/*/ganesha/libfsalceph.so >/dev/null 2>&1; then
	log "installing nfs-ganesha-ceph"
	rc=/usr/sbin/policy-rc.d; ours=
	[ -e $rc ] || { printf '#!/bin/sh\nexit 101\n' >$rc; chmod 755 $rc; ours=1; }
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nfs-ganesha-ceph \
		>"$W/apt.log" 2>&1 || { apt-get update -qq >/dev/null 2>&1 &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nfs-ganesha-ceph \
		>"$W/apt.log" 2>&1; } || { [ -z "$ours" ] || rm -f $rc; echo "compare_ceph.sh: cannot install nfs-ganesha-ceph" >&2; exit 1; }
	[ -z "$ours" ] || rm -f $rc
fi

export CEPH_DIR=${CEPH_DIR:-/tmp/nasd-ceph}
log "bringing up the one-node Ceph ($CEPH_DIR)"
bash "$CEPH_SH" up >"$W/ceph-up.log" 2>&1 || { tail -n 20 "$W/ceph-up.log" >&2; exit 1; }
CONF=$CEPH_DIR/ceph.conf
mkdir -p "$RESULTS"
rm -f "$RESULTS"/*.json
{
	echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "nasd=$(git -C "$TOP" rev-parse --short HEAD 2>/dev/null)"
	echo "ceph=$(dpkg-query -W -f='${Version}' libcephfs2 2>/dev/null)"
	echo "ganesha=$(dpkg-query -W -f='${Version}' nfs-ganesha-ceph 2>/dev/null)"
	echo "cpus=$(nproc) backend=CephFS one-node (bluestore on a sparse file, loopback)"
} >"$RESULTS/machine.txt"

# The two directories, made through nasd itself (no CephFS mount here).
nasd_start() {	# nasd_start CEPH_DIR
	mkdir -p "$W/nasd-state"
	"$NASD" --foreground --listen "127.0.0.1:$NASD_PORT" --mountd-port 0 \
		--smb-listen 0 --state-dir "$W/nasd-state" --log-level warn \
		--export "/nasd:rw,no_root_squash,ceph=cephfs:$1,ceph_conf=$CONF" \
		>>"$W/nasd.log" 2>&1 &
	NASD_PID=$!
	wait_listen $NASD_PORT $NASD_PID nasd "$W/nasd.log" || exit 1
}
nasd_start /
(cd "$TOP/tests/integration" && python3 -c '
import sys, nt_nfs3 as n
c = n.Client(int(sys.argv[1]))
st, root = c.mnt("/nasd")
for d in ("nasd", "gan"):
    c.mkdir(root, d, 0o777)
' $NASD_PORT) || { echo "compare_ceph.sh: cannot make the directories" >&2; exit 1; }
stop_pid "$NASD_PID"
nasd_start /nasd

SERVERS=(nasd)
GAN_CEPH_ARGS=
for s in client ms objecter objectcacher monc mgrc auth finisher context \
	perfcounter rados asok crypto timer throttle buffer striper filer \
	journaler none lockdep tp optracker heartbeatmap; do
	v=$(ceph-conf -c "$CONF" --name client.admin --show-config-value "debug_$s" 2>/dev/null)
	case $v in */*) [ "${v#*/}" -gt "${v%%/*}" ] 2>/dev/null &&
		GAN_CEPH_ARGS+=" --debug_$s=${v%%/*}/${v%%/*}" ;; esac
done
if [ $GANESHA = 1 ]; then
	cat >"$W/ganesha.conf" <<-EOF
	NFS_CORE_PARAM {
		NFS_Port = $GAN_PORT;
		MNT_Port = $GAN_MNT;
		Bind_addr = 127.0.0.1;
		Protocols = 3, 4;
		Enable_NLM = false;
		Enable_RQUOTA = false;
		Enable_UDP = false;
	}
	NFSV4 { Graceless = true; }
	CEPH { Ceph_Conf = "$CONF"; }
	EXPORT {
		Export_Id = 78;
		Path = "/gan";
		Pseudo = "/gan";
		Protocols = 3, 4;
		Transports = TCP;
		Access_Type = RW;
		Squash = No_Root_Squash;
		SecType = sys;
		MaxRead = 1048576;
		MaxWrite = 1048576;
		FSAL { Name = CEPH; Filesystem = "cephfs"; User_Id = "admin"; }
	}
	LOG { Default_Log_Level = EVENT; }
	EOF
	if ! port_listening 111; then
		rpcbind -f >"$W/rpcbind.log" 2>&1 &
		RPCB_PID=$!
		for _ in $(seq 1 50); do port_listening 111 && break; sleep 0.1; done
	fi
	# libcephfs's in-memory debug gathering as nasd sets it for itself
	# (src/vfs/ceph/mount.c: no more than is logged), so that the two
	# servers are compared, not a libcephfs default
	CEPH_ARGS="$GAN_CEPH_ARGS" ganesha.nfsd -F -f "$W/ganesha.conf" \
		-L "$W/ganesha.log" -p "$W/ganesha.pid" >>"$W/ganesha.out" 2>&1 &
	GAN_PID=$!
	wait_listen $GAN_PORT $GAN_PID ganesha.nfsd "$W/ganesha.log" || exit 1
	wait_listen $GAN_MNT $GAN_PID ganesha.nfsd "$W/ganesha.log" || exit 1
	stop_pid "$RPCB_PID"
	RPCB_PID=
	SERVERS+=(ganesha)
fi

bench() {	# bench SERVER OUT ARGS...
	local srv=$1 out=$2 pid url
	shift 2
	if [ "$srv" = nasd ]; then
		pid=$NASD_PID; url="nfs://127.0.0.1/nasd?nfsport=$NASD_PORT&mountport=$NASD_PORT"
	else
		pid=$GAN_PID; url="nfs://127.0.0.1/gan?nfsport=$GAN_PORT&mountport=$GAN_MNT"
	fi
	log "$(basename "$out" .json): nasd-bench $*"
	if "$BENCH" --json --server-pid "$pid" "$@" "$url" >"$out.tmp" 2>"$out.err"; then
		mv "$out.tmp" "$out"
		tail -n 1 "$out.err" | sed 's/^/   /' >&2
	else
		echo "compare_ceph.sh: run failed: $(tail -n 3 "$out.err" | tr '\n' ' ')" >&2
		rm -f "$out.tmp"
	fi
}
SEQ="-j 4 -d 16 --bs 1m --size $SIZE -t $T"
for rep in $(seq 1 "$REPS"); do
	order="${SERVERS[*]}"
	[ $((rep % 2)) = 0 ] && order=$(printf '%s\n' "${SERVERS[@]}" | tac | tr '\n' ' ')
	for wl in seq-write seq-read rand-read swbuild; do
		for srv in $order; do
			case $wl in
			seq-write) args="$SEQ seq-write" ;;
			seq-read) args="$SEQ seq-read" ;;
			rand-read) args="-j 4 -d 16 --bs 4k --size $SIZE -t $T rand-read" ;;
			swbuild) args="-j 16 -d 2 -t $SWB_T swbuild" ;;
			esac
			# shellcheck disable=SC2086
			bench "$srv" "$RESULTS/$wl.$srv.$rep.json" -q $args
		done
	done
done
# the table (summarize.py's targets are those of the local exports)
python3 "$TOP/bench/summarize.py" "$RESULTS" | sed '/^Targets/,$d'
