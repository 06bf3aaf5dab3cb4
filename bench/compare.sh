#!/bin/bash
# nasd and NFS-Ganesha side by side, in one run (`make bench`).
#
# Starts both servers on loopback with a temporary export each (Ganesha:
# FSAL VFS, NFSv3 only; nasd: rw,no_root_squash), runs the same nasd-bench
# workloads against each, alternating which goes first, --reps times, and
# prints the median of every figure with the ratio nasd / Ganesha. Then,
# unless --quick, the memory-pressure scenario: each server inside a 512 MiB
# memory cgroup while 4 jobs write and read 4 GiB (nasd io=buffered, nasd
# io=direct, nasd io=auto, Ganesha), and in the same cgroup raised to 6 GiB
# a working set that grows past io=auto's cache budget mid-run (grow_part:
# 12 GiB written, budget 3 GiB, throughput second by second next to
# io=direct and io=buffered). It stops everything it started.
#
# Page cache: both servers' files are put in the same state before each
# read workload, so that what is measured is the server and not what its
# own writes left behind (nasd io=auto writes 1 MiB blocks with O_DIRECT,
# Ganesha through the page cache). seq-read and rand-read start warm (the
# files read once locally: data served from memory); seq-read-cold starts
# with them dropped (as fio's default invalidate=1) and reads every file
# once, front to back (size-based, not time-based: a second pass would read
# what a buffered server kept from the first, i.e. memory again). Data that
# does not fit in memory is the memory-pressure scenario. seq-read-back is
# what a user does: read the files back right after seq-write, with the
# page cache as each server's own writes left it (issue 12 §1).
#
# Deep queues (issue 12 §3): deep-write and deep-read are 64 connections x
# 32 requests of 1 MiB in flight (two client threads; files of their own,
# "deep.*", in the page cache as seq-read's), deep256-read the same reads 256
# deep; what counts is the server's RSS and the p99 next to Ganesha's. (A
# 256-deep write is not run: libnfs holds a copy of every WRITE in flight,
# 16 GiB at 64 x 256.)
#
# Comparable runs: as root, every export, state directory and log lives
# on a scratch filesystem made for this run (a sparse image on a loop
# device with direct I/O, so its data is not cached twice; ext4 with its
# journal and inode tables written at mkfs, so no lazy init runs during
# the workloads), the same for every server; what earlier runs created and
# removed on the machine's own filesystem cannot change the figures.
# --no-scratch runs in /tmp instead. machine.txt records the filesystem
# and the machine's load and available memory at the start.
#
# A/B of two nasd builds: --baseline DIR adds DIR/nasd (another build,
# e.g. of the commit before a change) as a third server, "base", run the
# same way as nasd in every workload, the find-max searches and (io=direct)
# the memory scenario, in the same rotation; the summary adds nasd / base
# ratios. --no-ganesha leaves Ganesha out (for a quicker A/B).
#
# SMB: nasd and Samba side by side over SMB 3.1.1 (nasd-bench's own SMB
# client): a private loopback smbd (its own smb.conf and state under the
# temporary directory; Samba installed first if missing, with a
# policy-rc.d that keeps the package from starting the system's smbd) and
# nasd with an SMB listener, the same user on both. seq-write, seq-read
# (warm), rand-read and swbuild, alternating which server goes first,
# --reps times, once with signing as each server does it by default when
# the client requires it, once with signing off (nasd --smb-signing
# optional). Samba forks a process per connection: its CPU and RSS are
# summed over the smbd parent and all its children (--server-tree). Part
# of the default run when Samba is installed or installable; --smb runs
# only it, --no-smb leaves it out.
#
# usage: bench/compare.sh [--build DIR] [--reps N] [--quick] [--memory |
#                         --no-memory] [--no-find-max] [--results DIR]
#                         [--workloads LIST] [--baseline DIR] [--no-ganesha]
#                         [--smb | --no-smb] [--no-scratch]
# --workloads: a comma-separated subset of seq-write, seq-read-back, seq-read,
# seq-read-cold, rand-read, swbuild and their NFSv4.1 forms v41-seq-write,
# v41-seq-read, v41-rand-read, v41-swbuild, deep-write, deep-read and
# deep256-read (default all; the read workloads need the files a seq-write
# (deep-*: a deep-write) leaves, so keep one in the list). The swbuild
# find-max searches and the memory scenario have their own switches.
# Raw JSON of every run and the summary (summary.md) go to --results
# (default BUILD/bench-results).
set -u

BUILD=build
REPS=3
QUICK=0
MEMORY=auto
FIND_MAX=1
RESULTS=
ONLY=
BASE_BUILD=
GANESHA=1
SMB=auto
SCRATCH=auto
SCRATCH_GB=64

usage() {
	sed -n '2,/^$/p' "$0" | sed 's/^# \{0,1\}//'
	exit "${1:-2}"
}

while [ $# -gt 0 ]; do
	case $1 in
	--build) BUILD=${2:?--build needs a directory}; shift ;;
	--reps) REPS=${2:?--reps needs a number}; shift ;;
	--quick) QUICK=1 ;;
	--memory) MEMORY=1 ;;
	--no-memory) MEMORY=0 ;;
	--no-find-max) FIND_MAX=0 ;;
	--results) RESULTS=${2:?--results needs a directory}; shift ;;
	--workloads) ONLY=${2:?--workloads needs a list}; shift ;;
	--baseline) BASE_BUILD=${2:?--baseline needs a build directory}; shift ;;
	--no-ganesha) GANESHA=0 ;;
	--smb) SMB=only ;;
	--no-smb) SMB=0 ;;
	--no-scratch) SCRATCH=0 ;;
	-h|--help) usage 0 ;;
	*) echo "compare.sh: unknown argument '$1'" >&2; usage 2 ;;
	esac
	shift
done
case $REPS in
''|*[!0-9]*|0) echo "compare.sh: --reps must be a positive number" >&2; exit 2 ;;
esac
# v41-*: the same over NFSv4.1 (nasd-bench's own client, one client and
# session per job), each server's NFSv4.1 of the same export
WORKLOADS=(seq-write seq-read-back seq-read seq-read-cold rand-read swbuild
	v41-seq-write v41-seq-read v41-rand-read v41-swbuild
	deep-write deep-read deep256-read)
if [ -n "$ONLY" ]; then
	IFS=, read -r -a WORKLOADS <<<"$ONLY"
	for wl in "${WORKLOADS[@]}"; do
		case $wl in
		seq-write|seq-read-back|seq-read|seq-read-cold|rand-read|swbuild) ;;
		v41-seq-write|v41-seq-read|v41-rand-read|v41-swbuild) ;;
		deep-write|deep-read|deep256-read) ;;
		*) echo "compare.sh: unknown workload '$wl'" >&2; exit 2 ;;
		esac
	done
fi
[ "$MEMORY" = auto ] && { [ $QUICK = 1 ] && MEMORY=0 || MEMORY=1; }
[ $QUICK = 1 ] && FIND_MAX=0

HERE=$(cd "$(dirname "$0")" && pwd)
NASD=$(cd "$BUILD" 2>/dev/null && pwd)/nasd
BENCH=$(cd "$BUILD" 2>/dev/null && pwd)/nasd-bench
for b in "$NASD" "$BENCH"; do
	[ -x "$b" ] || { echo "compare.sh: $b missing: run 'make build' first" >&2; exit 2; }
done
BASE_NASD=
if [ -n "$BASE_BUILD" ]; then
	BASE_NASD=$(cd "$BASE_BUILD" 2>/dev/null && pwd)/nasd
	[ -x "$BASE_NASD" ] || { echo "compare.sh: $BASE_BUILD/nasd missing" >&2; exit 2; }
fi
# The servers of the side-by-side runs, rotated by repetition.
SERVERS=(nasd)
[ $GANESHA = 1 ] && SERVERS+=(ganesha)
[ -n "$BASE_NASD" ] && SERVERS+=(base)
order_of() {	# order_of REP: the servers, rotated by REP - 1
	local n=${#SERVERS[@]} k i out=""
	k=$((($1 - 1) % n))
	for i in $(seq 0 $((n - 1))); do
		out="$out ${SERVERS[$(((i + k) % n))]}"
	done
	echo "$out"
}
# alternate REP CFG...: the configurations, reversed on even repetitions
alternate() {
	local rep=$1
	shift
	if [ $((rep % 2)) = 0 ]; then
		printf '%s\n' "$@" | tac | tr '\n' ' '
	else
		echo "$*"
	fi
}
# fresh_dir DIR: an empty directory anyone may write
fresh_dir() { rm -rf "$1"; mkdir -p "$1"; chmod 777 "$1"; }
RESULTS=${RESULTS:-$(cd "$BUILD" && pwd)/bench-results}
command -v python3 >/dev/null || { echo "compare.sh: needs python3" >&2; exit 2; }
[ "$(id -u)" = 0 ] || echo "compare.sh: not root: Ganesha install and cgroups will likely fail" >&2

if [ $QUICK = 1 ]; then
	T=3; SIZE=256m; SWB_T=3; DSIZE=8m
else
	T=10; SIZE=1g; SWB_T=10; DSIZE=32m
fi

log() { echo "== $*" >&2; }

# ---- everything started here is stopped by the trap ----
W0=$(mktemp -d /tmp/nasd-bench-cmp.XXXXXX) || exit 1
W=$W0
SCRATCH_DEV=
NASD_PID=
BASE_PID=
GAN_PID=
RPCB_PID=
CG=
NASD_EXTRA=()
SMB_NASD_PID=
SAMBA_PID=

stop_pid() {	# stop_pid PID: SIGTERM, then SIGKILL after 10 s
	local pid=$1 i
	[ -n "$pid" ] || return 0
	kill -TERM "$pid" 2>/dev/null || return 0
	for i in $(seq 1 100); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	return 0
}

cleanup() {
	stop_pid "$SMB_NASD_PID"; SMB_NASD_PID=
	stop_pid "$SAMBA_PID"; SAMBA_PID=
	stop_pid "$NASD_PID"; NASD_PID=
	stop_pid "$BASE_PID"; BASE_PID=
	stop_pid "$GAN_PID"; GAN_PID=
	stop_pid "$RPCB_PID"; RPCB_PID=
	cg_remove
	svc_cg_remove
	if [ -n "$SCRATCH_DEV" ]; then
		cd / || true
		umount "$W" 2>/dev/null || umount -l "$W" 2>/dev/null
		losetup -d "$SCRATCH_DEV" 2>/dev/null
	fi
	rm -rf "$W0"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- the scratch filesystem (see the header) ----
scratch_make() {
	local img=$W0/scratch.img dev
	command -v losetup >/dev/null && command -v mkfs.ext4 >/dev/null || {
		echo "compare.sh: no losetup/mkfs.ext4: running in $W0" >&2
		return 1
	}
	truncate -s "${SCRATCH_GB}G" "$img" &&
		dev=$(losetup --direct-io=on -f --show "$img" 2>/dev/null) || {
		echo "compare.sh: no loop device: running in $W0" >&2
		rm -f "$img"
		return 1
	}
	SCRATCH_DEV=$dev
	# one inode per 256 KiB: enough for the SWBUILD trees, and tables
	# small enough to write now
	if ! mkfs.ext4 -q -F -i 262144 -E lazy_itable_init=0,lazy_journal_init=0 \
		"$dev" >/dev/null 2>&1 || ! mkdir -p "$W0/fs" ||
		! mount -t ext4 "$dev" "$W0/fs"; then
		echo "compare.sh: cannot make the scratch filesystem: running in $W0" >&2
		losetup -d "$dev" 2>/dev/null
		SCRATCH_DEV=
		rm -f "$img"
		return 1
	fi
	W=$W0/fs
}
if [ "$SCRATCH" = auto ] && [ "$(id -u)" = 0 ]; then
	scratch_make || true
fi
chmod 755 "$W0" "$W"

# ---- ports (13000-13999 belong to the bench) ----
port_in_use() { [ -n "$(ss -Htan "sport = :$1" 2>/dev/null | head -n 1)" ]; }
port_listening() { [ -n "$(ss -Htln "sport = :$1" 2>/dev/null | head -n 1)" ]; }
free_port() {
	local p=$1
	while [ "$p" -lt 14000 ]; do
		if ! port_in_use "$p" && ! echo " $USED_PORTS " | grep -q " $p "; then
			USED_PORTS="$USED_PORTS $p"
			echo "$p"
			return 0
		fi
		p=$((p + 1))
	done
	echo "compare.sh: no free port in 13000-13999" >&2
	exit 1
}
USED_PORTS=
NASD_PORT=$(free_port 13200)
USED_PORTS="$USED_PORTS $NASD_PORT"
GAN_PORT=$(free_port 13249)
USED_PORTS="$USED_PORTS $GAN_PORT"
GAN_MNT=$(free_port $((GAN_PORT + 1)))
USED_PORTS="$USED_PORTS $GAN_MNT"
GAN_NLM=$(free_port $((GAN_MNT + 1)))
USED_PORTS="$USED_PORTS $GAN_NLM"
GAN_RQ=$(free_port $((GAN_NLM + 1)))
USED_PORTS="$USED_PORTS $GAN_RQ"
BASE_PORT=$(free_port 13300)
USED_PORTS="$USED_PORTS $BASE_PORT"
SMB_NASD_PORT=$(free_port 13400)
USED_PORTS="$USED_PORTS $SMB_NASD_PORT"
SMB_NASD_NFS=$(free_port $((SMB_NASD_PORT + 1)))
USED_PORTS="$USED_PORTS $SMB_NASD_NFS"
SAMBA_PORT=$(free_port 13450)

wait_listen() {	# wait_listen PORT PID NAME LOG
	local i
	for i in $(seq 1 300); do
		port_listening "$1" && return 0
		if ! kill -0 "$2" 2>/dev/null; then
			echo "compare.sh: $3 exited before listening on $1; its log:" >&2
			tail -n 30 "$4" >&2
			return 1
		fi
		sleep 0.1
	done
	echo "compare.sh: $3 does not listen on $1 after 30 s" >&2
	return 1
}

# ---- NFS-Ganesha from Debian ----
ganesha_install() {
	local before after p
	if command -v ganesha.nfsd >/dev/null &&
		ls /usr/lib/*/ganesha/libfsalvfs.so >/dev/null 2>&1; then
		return 0
	fi
	log "installing nfs-ganesha and nfs-ganesha-vfs"
	before=$(pgrep -x ganesha.nfsd | tr '\n' ' ')
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -qq nfs-ganesha nfs-ganesha-vfs >"$W/apt.log" 2>&1 ||
		{ apt-get update -qq >/dev/null 2>&1 &&
		  apt-get install -y -qq nfs-ganesha nfs-ganesha-vfs >"$W/apt.log" 2>&1; } ||
		{ echo "compare.sh: cannot install NFS-Ganesha:" >&2; tail -n 20 "$W/apt.log" >&2; exit 1; }
	# A package script must not leave a daemon holding ports: stop only a
	# ganesha.nfsd that the installation itself started.
	after=$(pgrep -x ganesha.nfsd | tr '\n' ' ')
	for p in $after; do
		echo " $before " | grep -q " $p " || { log "stopping ganesha.nfsd $p started by the install"; kill "$p"; }
	done
}

ganesha_conf() {	# ganesha_conf EXPORT_DIR FILE
	cat >"$2" <<-EOF
	NFS_CORE_PARAM {
		NFS_Port = $GAN_PORT;
		MNT_Port = $GAN_MNT;
		NLM_Port = $GAN_NLM;
		Rquota_Port = $GAN_RQ;
		Bind_addr = 127.0.0.1;
		Protocols = 3, 4;
		Enable_NLM = false;
		Enable_RQUOTA = false;
		Enable_UDP = false;
	}
	NFSV4 {
		Graceless = true;
		Minor_Versions = 1, 2;
	}
	EXPORT_DEFAULTS {
		Access_Type = RW;
		Squash = No_Root_Squash;
	}
	EXPORT {
		Export_Id = 77;
		Path = $1;
		Pseudo = $1;
		Protocols = 3, 4;
		Transports = TCP;
		Access_Type = RW;
		Squash = No_Root_Squash;
		SecType = sys;
		MaxRead = 1048576;
		MaxWrite = 1048576;
		PrefRead = 1048576;
		PrefWrite = 1048576;
		FSAL {
			Name = VFS;
		}
	}
	LOG {
		Default_Log_Level = EVENT;
	}
	EOF
}

# Ganesha registers with rpcbind at start and exits if none answers: run one
# only for the start when port 111 is free, and stop it once Ganesha listens
# (NFS and MOUNT use the fixed ports in the URL, never the port mapper).
ganesha_start() {	# ganesha_start EXPORT_DIR [CGROUP_PROCS_FILE]
	local exp=$1 procs=${2:-} conf=$W/ganesha.conf
	ganesha_conf "$exp" "$conf"
	: >"$W/ganesha.log"
	if ! port_in_use 111; then
		rpcbind -f >"$W/rpcbind.log" 2>&1 &
		RPCB_PID=$!
		for _ in $(seq 1 50); do port_listening 111 && break; sleep 0.1; done
	fi
	if [ -n "$procs" ]; then
		sh -c 'echo $$ > "$1"; shift; exec "$@"' sh "$procs" \
			ganesha.nfsd -F -f "$conf" -L "$W/ganesha.log" -p "$W/ganesha.pid" \
			>>"$W/ganesha.out" 2>&1 &
	else
		ganesha.nfsd -F -f "$conf" -L "$W/ganesha.log" -p "$W/ganesha.pid" \
			>>"$W/ganesha.out" 2>&1 &
	fi
	GAN_PID=$!
	wait_listen "$GAN_PORT" "$GAN_PID" ganesha.nfsd "$W/ganesha.log" || exit 1
	wait_listen "$GAN_MNT" "$GAN_PID" ganesha.nfsd "$W/ganesha.log" || exit 1
	stop_pid "$RPCB_PID"
	RPCB_PID=
}

# nasd_start EXPORT_DIR EXTRA_OPTS [CGROUP_PROCS_FILE]: this build's nasd;
# with NASD_AS=base, the baseline build's on its own port and state dir.
nasd_start() {
	local exp=$1 opts=$2 procs=${3:-} bin=$NASD port=$NASD_PORT st=$W/nasd-state
	if [ "${NASD_AS:-nasd}" = base ]; then
		bin=$BASE_NASD; port=$BASE_PORT; st=$W/base-state
	fi
	mkdir -p "$st"
	local args=(--foreground --listen "127.0.0.1:$port" --mountd-port 0
		--state-dir "$st" --export "$exp:rw,no_root_squash$opts"
		--log-level warn ${NASD_EXTRA[@]+"${NASD_EXTRA[@]}"})
	if [ -n "$procs" ]; then
		sh -c 'echo $$ > "$1"; shift; exec "$@"' sh "$procs" "$bin" "${args[@]}" \
			>>"$W/${NASD_AS:-nasd}.log" 2>&1 &
	else
		"$bin" "${args[@]}" >>"$W/${NASD_AS:-nasd}.log" 2>&1 &
	fi
	if [ "${NASD_AS:-nasd}" = base ]; then BASE_PID=$!; else NASD_PID=$!; fi
	wait_listen "$port" "$!" "${NASD_AS:-nasd}" "$W/${NASD_AS:-nasd}.log" || exit 1
}

url_of() {	# url_of nasd|base|ganesha EXPORT_DIR [v41]
	if [ "${3:-}" = v41 ]; then
		case $1 in
		nasd) echo "nfs://127.0.0.1:$NASD_PORT$2?version=4.1" ;;
		base) echo "nfs://127.0.0.1:$BASE_PORT$2?version=4.1" ;;
		*) echo "nfs://127.0.0.1:$GAN_PORT$2?version=4.1" ;;
		esac
	elif [ "$1" = nasd ]; then
		echo "nfs://127.0.0.1$2?nfsport=$NASD_PORT&mountport=$NASD_PORT"
	elif [ "$1" = base ]; then
		echo "nfs://127.0.0.1$2?nfsport=$BASE_PORT&mountport=$BASE_PORT"
	else
		echo "nfs://127.0.0.1$2?nfsport=$GAN_PORT&mountport=$GAN_MNT"
	fi
}

# bench SERVER OUTFILE ARGS...: one nasd-bench run with --json; a failed
# run is reported and leaves no file (the summary marks it missing).
bench() {
	local srv=$1 out=$2 pid url
	shift 2
	case $srv in
	nasd) pid=$NASD_PID; url=$(url_of nasd "$W/nasd-exp" "${BENCH_PROTO:-}") ;;
	base) pid=$BASE_PID; url=$(url_of base "$W/base-exp" "${BENCH_PROTO:-}") ;;
	*) pid=$GAN_PID; url=$(url_of ganesha "$W/gan-exp" "${BENCH_PROTO:-}") ;;
	esac
	[ -n "${BENCH_URL:-}" ] && url=$BENCH_URL
	log "$(basename "$out" .json): nasd-bench $*"
	if ! "$BENCH" --json --server-pid "$pid" "$@" "$url" >"$out.tmp" 2>"$out.err"; then
		echo "compare.sh: run failed: $(tail -n 3 "$out.err" | tr '\n' ' ')" >&2
		rm -f "$out.tmp"
		return 1
	fi
	mv "$out.tmp" "$out"
	tail -n 1 "$out.err" | sed 's/^/   /' >&2
}

# ---- memory cgroup (v2 memory.max or v1 memory.limit_in_bytes) ----
CG_VER=
CG_WHY=
# cg_make SUFFIX: a memory cgroup nasd-bench-PID-SUFFIX (v2 with memory.max,
# else v1 with memory.limit_in_bytes); CG_MADE and CG_MADE_VER, or CG_WHY.
cg_make() {
	local root=/sys/fs/cgroup d
	CG_MADE=; CG_MADE_VER=
	if [ -f $root/cgroup.controllers ] && grep -qw memory $root/cgroup.controllers; then
		d=$root/nasd-bench-$$$1
		grep -qw memory $root/cgroup.subtree_control 2>/dev/null ||
			echo +memory >$root/cgroup.subtree_control 2>/dev/null
		if mkdir "$d" 2>/dev/null && [ -f "$d/memory.max" ]; then
			CG_MADE=$d; CG_MADE_VER=2; return 0
		fi
		rmdir "$d" 2>/dev/null
		CG_WHY="cgroup v2 at $root is not writable or has no memory controller"
	fi
	for root in /sys/fs/cgroup/memory /sys/fs/cgroup/memory,cpu; do
		[ -f "$root/memory.limit_in_bytes" ] || continue
		d=$root/nasd-bench-$$$1
		if mkdir "$d" 2>/dev/null && [ -f "$d/memory.limit_in_bytes" ]; then
			CG_MADE=$d; CG_MADE_VER=1; return 0
		fi
		CG_WHY="cgroup v1 memory hierarchy $root is not writable"
	done
	[ -n "$CG_WHY" ] || CG_WHY="no memory cgroup (neither v2 memory.max nor v1 memory.limit_in_bytes)"
	return 1
}
# cg_detect: the memory scenario's cgroup, CG (version CG_VER)
cg_detect() {
	cg_make "" || return 1
	CG=$CG_MADE; CG_VER=$CG_MADE_VER
}
cg_limit() {	# cg_limit BYTES
	if [ "$CG_VER" = 2 ]; then echo "$1" >"$CG/memory.max" && echo 0 >"$CG/memory.swap.max" 2>/dev/null; return 0
	else echo "$1" >"$CG/memory.limit_in_bytes"; fi
}
cg_procs() { echo "$CG/cgroup.procs"; }
cg_reset_peak() {
	if [ "$CG_VER" = 2 ]; then echo 0 >"$CG/memory.peak" 2>/dev/null || true
	else echo 0 >"$CG/memory.max_usage_in_bytes"; fi
}
cg_peak() {
	if [ "$CG_VER" = 2 ]; then cat "$CG/memory.peak" 2>/dev/null || echo 0
	else cat "$CG/memory.max_usage_in_bytes"; fi
}
cg_remove() {
	[ -n "$CG" ] && [ -d "$CG" ] || return 0
	rmdir "$CG" 2>/dev/null || { sleep 1; rmdir "$CG" 2>/dev/null; }
	CG=
}

# svc_cg NAME: a memory cgroup of its own without a limit, for one server
# of the side-by-side workloads, as a service manager gives every service
# one (systemd). nasd's io=auto charges its cache budget with the page
# cache of its cgroup: in the cgroup this script runs in, Ganesha's files
# and the bench's own would count as nasd's. Sets SVC_PROCS to its
# cgroup.procs file, or to nothing when no memory cgroup can be made (the
# server then shares this script's, said in machine.txt).
SVC_CGS=()
SVC_PROCS=
svc_cg() {
	SVC_PROCS=
	cg_make "-$1" || return 1
	SVC_CGS+=("$CG_MADE")
	SVC_PROCS=$CG_MADE/cgroup.procs
}
svc_cg_remove() {
	local d
	for d in ${SVC_CGS[@]+"${SVC_CGS[@]}"}; do
		rmdir "$d" 2>/dev/null || { sleep 1; rmdir "$d" 2>/dev/null; }
	done
	SVC_CGS=()
}

# cache_state warm|cold SERVER [PREFIX]: the bench's data files (PREFIX.*,
# default nasd-bench.*) of SERVER's export read once into the page cache,
# or written back and dropped from it.
cache_state() {
	local dir
	case $2 in
	nasd) dir=$W/nasd-exp ;;
	base) dir=$W/base-exp ;;
	smb-nasd) dir=$W/smb-nasd-exp ;;
	samba) dir=$W/samba/share ;;
	*) dir=$W/gan-exp ;;
	esac
	sync
	python3 - "$1" "$dir" "${3:-nasd-bench}." <<-'EOF'
	import os, sys
	mode, d, pre = sys.argv[1], sys.argv[2], sys.argv[3]
	for n in os.listdir(d):
	    p = os.path.join(d, n)
	    if not n.startswith(pre) or not os.path.isfile(p):
	        continue
	    fd = os.open(p, os.O_RDONLY)
	    if mode == "cold":
	        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
	    else:
	        while os.read(fd, 1 << 20):
	            pass
	    os.close(fd)
	EOF
	log "page cache $1 for $2: $(cd "$dir" && fincore -b -n -o RES "${3:-nasd-bench}".* 2>/dev/null |
		awk '{s += $1} END {printf "%d MiB of its files resident", s / 1048576}')"
}
# ---- SMB: nasd and Samba over SMB 3.1.1 ----
SMB_USER=nbench
SMB_PASS=nasd-bench-pw

# samba_install: Debian's samba when smbd is missing. No daemon may start
# from the package: a policy-rc.d that answers 101 (action forbidden) for
# the time of the install, if the machine has none; and an smbd/nmbd the
# install started all the same is stopped (only those, not others').
samba_install() {
	local before after p made=0
	command -v smbd >/dev/null && command -v smbpasswd >/dev/null && return 0
	log "installing samba"
	before=$(pgrep -x 'smbd|nmbd|samba' | tr '\n' ' ')
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d &&
			chmod 755 /usr/sbin/policy-rc.d && made=1
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -qq samba >"$W/apt-samba.log" 2>&1 ||
		{ apt-get update -qq >/dev/null 2>&1 &&
		  apt-get install -y -qq samba >"$W/apt-samba.log" 2>&1; }
	local rc=$?
	[ $made = 1 ] && rm -f /usr/sbin/policy-rc.d
	after=$(pgrep -x 'smbd|nmbd|samba' | tr '\n' ' ')
	for p in $after; do
		echo " $before " | grep -q " $p " || { log "stopping $p started by the install"; kill "$p"; }
	done
	[ $rc = 0 ] && command -v smbd >/dev/null && return 0
	echo "compare.sh: cannot install samba:" >&2
	tail -n 20 "$W/apt-samba.log" >&2
	return 1
}

# samba_start: a private smbd on 127.0.0.1:$SAMBA_PORT, share "share" at
# $W/samba/share, user $SMB_USER mapped to root (as nasd's user is uid 0),
# server signing as Samba ships it (signs when the client requires).
samba_start() {
	local d=$W/samba
	mkdir -p "$d"/{share,private,lock,state,cache,pid,log,ncalrpc}
	chmod 777 "$d/share"
	echo "root = $SMB_USER" >"$d/usermap"
	cat >"$d/smb.conf" <<-EOF
	[global]
		server role = standalone server
		workgroup = NASDBENCH
		netbios name = NASDBENCHSMB
		security = user
		map to guest = never
		passdb backend = tdbsam:$d/private/passdb.tdb
		private dir = $d/private
		lock directory = $d/lock
		state directory = $d/state
		cache directory = $d/cache
		pid directory = $d/pid
		ncalrpc dir = $d/ncalrpc
		log file = $d/log/smbd.%m.log
		log level = 0
		username map = $d/usermap
		interfaces = lo
		bind interfaces only = yes
		smb ports = $SAMBA_PORT
		disable netbios = yes
		server min protocol = SMB2_10
		load printers = no
		printing = bsd
		printcap name = /dev/null
		disable spoolss = yes
	[share]
		path = $d/share
		read only = no
		valid users = root
	EOF
	printf '%s\n%s\n' "$SMB_PASS" "$SMB_PASS" |
		smbpasswd -c "$d/smb.conf" -s -a root >"$d/smbpasswd.log" 2>&1 ||
		{ echo "compare.sh: smbpasswd failed:" >&2; cat "$d/smbpasswd.log" >&2; exit 1; }
	smbd -F --no-process-group -s "$d/smb.conf" </dev/null >"$d/smbd.out" 2>&1 &
	SAMBA_PID=$!
	wait_listen "$SAMBA_PORT" "$SAMBA_PID" smbd "$d/smbd.out" || exit 1
}

# smb_nasd_start SIGNING: nasd with an SMB listener and user $SMB_USER
# (uid 0), --smb-signing SIGNING (required or optional).
smb_nasd_start() {
	local st=$W/smb-nasd-state
	mkdir -p "$st" "$W/smb-nasd-exp"
	chmod 777 "$W/smb-nasd-exp"
	if [ ! -f "$st/.user" ]; then
		echo "$SMB_PASS" | "$NASD" user add "$SMB_USER" --uid 0 --gid 0 \
			--state-dir "$st" >/dev/null || { echo "compare.sh: nasd user add failed" >&2; exit 1; }
		touch "$st/.user"
	fi
	"$NASD" --foreground --listen "127.0.0.1:$SMB_NASD_NFS" --mountd-port 0 \
		--state-dir "$st" --smb-listen "127.0.0.1:$SMB_NASD_PORT" \
		--smb-signing "$1" --log-level warn \
		--export "$W/smb-nasd-exp:rw,no_root_squash,smb=share" \
		>>"$W/smb-nasd.log" 2>&1 &
	SMB_NASD_PID=$!
	wait_listen "$SMB_NASD_PORT" "$SMB_NASD_PID" nasd "$W/smb-nasd.log" || exit 1
}

# smb_bench SERVER OUTFILE SIGN ARGS...: one SMB nasd-bench run (--json).
smb_bench() {
	local srv=$1 out=$2 sign=$3 url pidargs
	shift 3
	if [ "$srv" = nasd ]; then
		url="smb://$SMB_USER:$SMB_PASS@127.0.0.1:$SMB_NASD_PORT/share"
		pidargs=(--server-pid "$SMB_NASD_PID")
	else
		url="smb://$SMB_USER:$SMB_PASS@127.0.0.1:$SAMBA_PORT/share"
		pidargs=(--server-pid "$SAMBA_PID" --server-tree)
	fi
	log "$(basename "$out" .json): nasd-bench --smb-sign $sign $*"
	if ! "$BENCH" --json "${pidargs[@]}" --smb-sign "$sign" "$@" "$url" \
		>"$out.tmp" 2>"$out.err"; then
		echo "compare.sh: run failed: $(tail -n 3 "$out.err" | tr '\n' ' ')" >&2
		rm -f "$out.tmp"
		return 1
	fi
	mv "$out.tmp" "$out"
	tail -n 1 "$out.err" | sed 's/^/   /' >&2
}

smb_wl_args() {
	case $1 in
	seq-write) echo "-j 4 -d 16 --bs 1m --size $SIZE -t $T seq-write" ;;
	seq-read) echo "-j 4 -d 16 --bs 1m --size $SIZE -t $T seq-read" ;;
	rand-read) echo "-j 4 -d 16 --bs 4k --size $SIZE -t $T rand-read" ;;
	swbuild) echo "-j 16 -d 2 -t $SWB_T swbuild" ;;
	esac
}

# smb_part: both servers, signing on then off, --reps times each.
smb_part() {
	local sign rep wl srv order
	echo "samba=$(dpkg-query -W -f='${Version}' samba 2>/dev/null)" >>"$RESULTS/machine.txt"
	samba_start
	log "smbd pid $SAMBA_PID on $SAMBA_PORT"
	for sign in on off; do
		if [ $sign = on ]; then smb_nasd_start required; else smb_nasd_start optional; fi
		log "nasd (SMB, signing $([ $sign = on ] && echo required || echo optional)) pid $SMB_NASD_PID on $SMB_NASD_PORT"
		for rep in $(seq 1 "$REPS"); do
			if [ $((rep % 2)) = 1 ]; then order="nasd samba"; else order="samba nasd"; fi
			for wl in seq-write seq-read rand-read swbuild; do
				for srv in $order; do
					case $wl in
					seq-read|rand-read)
						[ $srv = nasd ] && cache_state warm smb-nasd || cache_state warm samba ;;
					esac
					# shellcheck disable=SC2046
					smb_bench "$srv" "$RESULTS/smb-$sign-$wl.$srv.$rep.json" $sign -q \
						$(smb_wl_args "$wl")
				done
			done
		done
		stop_pid "$SMB_NASD_PID"; SMB_NASD_PID=
	done
	stop_pid "$SAMBA_PID"; SAMBA_PID=
	rm -rf "$W/smb-nasd-exp" "$W/samba/share"
}

# ---- machine ----
mkdir -p "$RESULTS"
rm -f "$RESULTS"/*.json "$RESULTS"/*.err "$RESULTS"/summary.md
{
	echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "nproc=$(nproc)"
	echo "cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
	echo "mem=$(free -h | awk '/^Mem:/ {print $2}')"
	echo "kernel=$(uname -r)"
	echo "fs=$(df -T "$W" | awk 'NR == 2 {print $2 " on " $1}')${SCRATCH_DEV:+ (scratch, made for this run)}"
	echo "memavail_start=$(awk '/^MemAvailable:/ {printf "%.1fGi", $2 / 1048576}' /proc/meminfo)"
	echo "disk=$(lsblk -dno NAME,ROTA,SIZE,MODEL 2>/dev/null | tr '\n' ';')"
	echo "loadavg_start=$(cut -d' ' -f1-3 /proc/loadavg)"
	echo "nasd=$(cd "$HERE/.." && git rev-parse --short HEAD 2>/dev/null)$(cd "$HERE/.." && git diff --quiet 2>/dev/null || echo +dirty)"
	echo "libnfs=$(pkg-config --modversion libnfs 2>/dev/null)"
	echo "reps=$REPS quick=$QUICK"
	[ -n "$BASE_NASD" ] && echo "baseline=$BASE_BUILD ($(git -C "$(dirname "$BASE_NASD")" rev-parse --short HEAD 2>/dev/null || echo ?))"
	echo "servers=${SERVERS[*]}"
} >"$RESULTS/machine.txt" 2>/dev/null

if [ "$SMB" = auto ]; then
	if samba_install; then SMB=1; else SMB=0; log "SMB part skipped: no samba"; fi
elif [ "$SMB" = only ]; then
	samba_install || exit 1
	smb_part
	echo "loadavg_end=$(cut -d' ' -f1-3 /proc/loadavg)" >>"$RESULTS/machine.txt"
	python3 "$HERE/summarize_smb.py" "$RESULTS" | tee "$RESULTS/summary.md"
	exit 0
fi

if [ $GANESHA = 1 ]; then
	ganesha_install
	echo "ganesha=$(dpkg-query -W -f='${Version}' nfs-ganesha 2>/dev/null)" >>"$RESULTS/machine.txt"
fi

# ---- the side-by-side workloads ----
mkdir -p "$W/nasd-exp" "$W/gan-exp" "$W/base-exp"
chmod 777 "$W/nasd-exp" "$W/gan-exp" "$W/base-exp"
# each server in a memory cgroup of its own (svc_cg)
if svc_cg nasd; then
	echo "server_cgroups=own (one memory cgroup per server, no limit)" >>"$RESULTS/machine.txt"
else
	echo "server_cgroups=shared (no memory cgroup could be made)" >>"$RESULTS/machine.txt"
fi
nasd_start "$W/nasd-exp" "" "$SVC_PROCS"
log "nasd pid $NASD_PID on $NASD_PORT"
if [ $GANESHA = 1 ]; then
	svc_cg ganesha
	ganesha_start "$W/gan-exp" "$SVC_PROCS"
	log "ganesha.nfsd pid $GAN_PID on $GAN_PORT (mount $GAN_MNT)"
fi
if [ -n "$BASE_NASD" ]; then
	svc_cg base
	NASD_AS=base nasd_start "$W/base-exp" "" "$SVC_PROCS"
	log "baseline nasd ($BASE_NASD) pid $BASE_PID on $BASE_PORT"
fi

SEQ="-j 4 -d 16 --bs 1m --size $SIZE -t $T"
DEEP="-j 64 --threads 2 --bs 1m --size $DSIZE -t $T --prefix deep"
wl_args() {
	case $1 in
	seq-write) echo "$SEQ seq-write" ;;
	seq-read) echo "$SEQ seq-read" ;;
	seq-read-cold|seq-read-back) echo "-j 4 -d 16 --bs 1m --size $SIZE seq-read" ;;
	rand-read) echo "-j 4 -d 16 --bs 4k --size $SIZE -t $T rand-read" ;;
	swbuild) echo "-j 16 -d 2 -t $SWB_T swbuild" ;;
	v41-*) wl_args "${1#v41-}" ;;
	deep-write) echo "$DEEP -d 32 seq-write" ;;
	deep-read) echo "$DEEP -d 32 seq-read" ;;
	deep256-read) echo "$DEEP -d 256 seq-read" ;;
	esac
}
for rep in $(seq 1 "$REPS"); do
	order=$(order_of "$rep")
	for wl in "${WORKLOADS[@]}"; do
		for srv in $order; do
			case $wl in
			seq-read|rand-read|v41-seq-read|v41-rand-read)
				cache_state warm "$srv" ;;
			deep-read|deep256-read) cache_state warm "$srv" deep ;;
			seq-read-cold) cache_state cold "$srv" ;;
			esac
			proto=
			case $wl in v41-*) proto=v41 ;; esac
			# shellcheck disable=SC2046
			BENCH_PROTO=$proto bench "$srv" "$RESULTS/$wl.$srv.$rep.json" -q \
				$(wl_args "$wl")
		done
	done
done

if [ $FIND_MAX = 1 ]; then
	# Every repetition: find-max on each server (alternating which goes
	# first), then nasd at the highest load Ganesha sustained in it (p99
	# at equal load). The summary takes the medians.
	for rep in $(seq 1 "$REPS"); do
		order=$(order_of "$rep")
		for srv in $order; do
			bench "$srv" "$RESULTS/swbuild-max.$srv.$rep.json" -q -j 16 -d 4 \
				--find-max --step-time 5 swbuild
		done
		[ $GANESHA = 1 ] || continue
		gmax=$(python3 -c 'import json,sys; print("%.3f" % (json.load(open(sys.argv[1]))["find_max"]["max_ops_s"] / 16))' \
			"$RESULTS/swbuild-max.ganesha.$rep.json" 2>/dev/null)
		if [ -n "$gmax" ] && python3 -c "import sys; sys.exit(0 if float('$gmax') > 0 else 1)"; then
			bench nasd "$RESULTS/swbuild-at-ganesha-max.nasd.$rep.json" -q -j 16 -d 4 \
				-t 10 --rate "$gmax" swbuild
		fi
	done
fi
stop_pid "$NASD_PID"; NASD_PID=
stop_pid "$BASE_PID"; BASE_PID=
stop_pid "$GAN_PID"; GAN_PID=
rm -rf "$W/nasd-exp" "$W/gan-exp" "$W/base-exp"

# ---- a working set that grows past io=auto's budget mid-run ----
# (issue 12 §1) nasd in a cgroup of GROW_LIMIT, io=auto with a cache
# budget of GROW_BUDGET, writes GROW_FILES fresh files of GROW_SIZE each
# (size-based): buffered until the budget is reached, O_DIRECT after.
# The same with io=direct and io=buffered; nasd-bench's per-second
# figures (timeline_mib_s) show whether the switch costs throughput.
grow_part() {
	local cfg exp out rep cfgs="nasd-auto nasd-direct nasd-buffered"
	local gsize=3g glimit=$((6 << 30)) gbudget=3G
	[ $QUICK = 1 ] && { gsize=1g; glimit=$((2 << 30)); gbudget=1G; }
	cg_limit $glimit || { log "grow: cannot set the cgroup limit"; return; }
	echo "grow=cgroup $((glimit >> 30)) GiB, auto budget $gbudget, 4 x $gsize written" \
		>>"$RESULTS/machine.txt"
	for rep in $(seq 1 "$REPS"); do
		# shellcheck disable=SC2086
		for cfg in $(alternate "$rep" $cfgs); do
			exp=$W/grow-exp
			fresh_dir "$exp"
			NASD_EXTRA=()
			case $cfg in
			nasd-auto) NASD_EXTRA=(--cache-budget "$gbudget")
				nasd_start "$exp" "" "$(cg_procs)" ;;
			nasd-direct) nasd_start "$exp" ",io=direct" "$(cg_procs)" ;;
			nasd-buffered) nasd_start "$exp" ",io=buffered" "$(cg_procs)" ;;
			esac
			out=$RESULTS/grow-write.$cfg.$rep.json
			BENCH_URL=$(url_of nasd "$exp") bench nasd "$out" -q -j 4 -d 16 \
				--bs 1m --size "$gsize" --prefix grow seq-write
			[ -f "$out" ] && python3 - "$out" "$("$NASD" stats --state-dir "$W/nasd-state" --json 2>/dev/null)" <<-'EOF'
			import json, sys
			r = json.load(open(sys.argv[1]))
			try:
			    v = json.loads(sys.argv[2])["values"]
			    r["io_auto_switches"] = v.get("io_auto_switches_total")
			except ValueError:
			    pass
			json.dump(r, open(sys.argv[1], "w"))
			EOF
			stop_pid "$NASD_PID"; NASD_PID=
			NASD_EXTRA=()
			rm -rf "$exp"
		done
	done
}

# ---- memory pressure: 512 MiB cgroup, 4 GiB working set ----
# nasd's payload-buffer ceiling is set to POOL_MIB there (when this nasd
# has --max-memory), so its target is a cgroup peak <= 128 MiB + POOL_MIB.
MEM_NOTE=
POOL_MIB=128
NASD_EXTRA=()
if "$NASD" --help 2>&1 | grep -q -- --max-memory; then
	echo "nasd_pool_mib=$POOL_MIB" >>"$RESULTS/machine.txt"
fi
if [ "$MEMORY" = 1 ]; then
	if ! cg_detect; then
		MEM_NOTE="memory-pressure scenario skipped: $CG_WHY"
		log "$MEM_NOTE"
	else
		log "memory cgroup v$CG_VER at $CG, limit 512 MiB"
		cg_limit $((512 * 1048576)) || { MEM_NOTE="cannot set the cgroup limit"; }
	fi
	if [ -z "$MEM_NOTE" ]; then
		if [ $QUICK = 1 ]; then MSIZE=256m; else MSIZE=1g; fi
		cfgs="nasd-buffered nasd-direct nasd-auto"
		[ $GANESHA = 1 ] && cfgs="$cfgs ganesha"
		[ -n "$BASE_NASD" ] && cfgs="$cfgs base-direct"
		for rep in $(seq 1 "$REPS"); do
			# shellcheck disable=SC2086
			for cfg in $(alternate "$rep" $cfgs); do
				exp=$W/mem-exp
				fresh_dir "$exp"
				NASD_EXTRA=()
				grep -q '^nasd_pool_mib=' "$RESULTS/machine.txt" &&
					NASD_EXTRA=(--max-memory "${POOL_MIB}M")
				case $cfg in
				nasd-buffered) nasd_start "$exp" ",io=buffered" "$(cg_procs)"; srv=nasd ;;
				nasd-direct) nasd_start "$exp" ",io=direct" "$(cg_procs)"; srv=nasd ;;
				nasd-auto) nasd_start "$exp" "" "$(cg_procs)"; srv=nasd ;;
				base-direct) NASD_AS=base nasd_start "$exp" ",io=direct" "$(cg_procs)"; srv=base ;;
				ganesha) ganesha_start "$exp" "$(cg_procs)"; srv=ganesha ;;
				esac
				url=$(url_of $srv "$exp")
				for phase in write read; do
					cg_reset_peak
					out=$RESULTS/mem-$phase.$cfg.$rep.json
					BENCH_URL=$url bench "$srv" "$out" -q -j 4 -d 16 --bs 1m \
						--size "$MSIZE" --prefix mem "seq-$phase"
					[ -f "$out" ] && python3 - "$out" "$(cg_peak)" <<-'EOF'
					import json, sys
					r = json.load(open(sys.argv[1]))
					r["cgroup_peak_bytes"] = int(sys.argv[2])
					json.dump(r, open(sys.argv[1], "w"))
					EOF
				done
				case $srv in
				nasd) stop_pid "$NASD_PID"; NASD_PID= ;;
				base) stop_pid "$BASE_PID"; BASE_PID= ;;
				*) stop_pid "$GAN_PID"; GAN_PID= ;;
				esac
				rm -rf "$exp"
			done
		done
		grow_part
		cg_remove
	fi
else
	MEM_NOTE="memory-pressure scenario not run (--quick or --no-memory)"
fi
[ "$SMB" = 1 ] && smb_part
echo "loadavg_end=$(cut -d' ' -f1-3 /proc/loadavg)" >>"$RESULTS/machine.txt"
[ -n "$MEM_NOTE" ] && echo "memory_note=$MEM_NOTE" >>"$RESULTS/machine.txt"

python3 "$HERE/summarize.py" "$RESULTS" | tee "$RESULTS/summary.md"
if [ "$SMB" = 1 ]; then
	echo
	python3 "$HERE/summarize_smb.py" "$RESULTS"
fi | tee -a "$RESULTS/summary.md"
