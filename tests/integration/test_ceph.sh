#!/bin/bash
# The CephFS backend against a real one-node Ceph (../shared/ceph, brought
# up here and down at the end): an export "ceph=cephfs:/" served to
#  - libnfs: a 256 MiB file written over NFSv3 and read back byte-exact
#    over NFSv3 and NFSv4.0;
#  - a second nasd (its own state dir) on the same filesystem: reads
#    what the first wrote; accepts the first's handles when it has the
#    same handle key, refuses them with another;
#  - byte-range locks through the two (libnfs's NLM client, nlm_api.c
#    "gateways"): each conflicts with the other's, both ways, with POSIX
#    splits, shared locks, and a blocked lock granted when the other
#    gateway's holder lets go;
#  - kill -9 during FILE_SYNC/COMMIT writes, restart: the file handles
#    work, acknowledged blocks are intact, and the restarted server's
#    session reclaim means no wait for the dead one's session to time out
#    (neither for its caps nor for the lock it held: the other gateway
#    takes it);
#  - a handle of an unlinked file: STALE;
#  - libnfs's API suites (nfs3_api.c: every NFSv3 and MOUNT procedure,
#    rw and ro exports; nfs4_api.c), which compare what they do with the
#    files they see locally: here through a ceph-fuse mount of the same
#    filesystem, a CephFS client of its own;
#  - smbclient: put, rename, get, delete over SMB3 on a share of it;
#  - the Linux kernel client (../shared/kclient): its default workload
#    over NFSv3 and NFSv4.2, and NFSv3 locking with NLM
#    (test_kclient_locks.sh on a CephFS export: conflicts, blocked locks
#    and the GRANTED callback, kill -9 and the lock reclaimed after
#    SM_NOTIFY, now into CephFS again).
# usage: test_ceph.sh NASD HANDLE_TOOL HAVE_CEPH(yes|no) NLM_API NFS3_API NFS4_API
U="usage: $0 NASD HANDLE_TOOL HAVE_CEPH NLM_API NFS3_API NFS4_API"
NASD=${1:?$U}
HT=${2:?$U}
HAVE_CEPH=${3:?$U}
NLM_API=${4:?$U}
NFS3_API=${5:?$U}
NFS4_API=${6:?$U}
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)

if [ "$HAVE_CEPH" != yes ]; then
	echo "SKIP: nasd was built without libcephfs (apt install libcephfs-dev; meson -Dceph=enabled)"
	exit 77
fi
TOP=$(git -C "$HERE" rev-parse --show-toplevel 2>/dev/null || (cd "$HERE/../.." && pwd))
CEPH_SH=${CEPH_SH:-$TOP/../shared/ceph/ceph-single-node.sh}
if [ ! -f "$CEPH_SH" ]; then
	echo "SKIP: no one-node Ceph script at $CEPH_SH (set CEPH_SH)"
	exit 77
fi
if ! command -v ceph-mon >/dev/null || ! command -v ceph-mds >/dev/null; then
	echo "SKIP: ceph and ceph-mds are not installed (make deps installs them)"
	exit 77
fi

t_init ceph
export CEPH_DIR=${CEPH_DIR:-/tmp/nasd-ceph}
ceph_down() { bash "$CEPH_SH" down >"$T_DIR/ceph-down.log" 2>&1; }
B_PID= C_PID= FUSE=
trap 'rc=$?; kill $B_PID $C_PID 2>/dev/null; [ -n "$FUSE" ] && umount -l "$FUSE"; ceph_down; (exit $rc); t_cleanup' EXIT
t_log "bringing up a one-node Ceph in $CEPH_DIR"
if ! bash "$CEPH_SH" up >"$T_DIR/ceph-up.log" 2>&1; then
	tail -n 30 "$T_DIR/ceph-up.log"
	t_fail "ceph_up" "the one-node cluster did not come up"
	t_finish
fi
t_ok "ceph_up"
CONF=$CEPH_DIR/ceph.conf

PORT=$(t_port 12249) || exit 1
PORT_B=$(t_port 12259) || exit 1
PORT_C=$(t_port 12269) || exit 1
# NLM's GRANTED callbacks go to a port nothing listens on (libnfs's
# client has no lockd): they must hold nothing up
DEAD=$(t_port 12279) || exit 1
EXP=/cephx
OPTS="rw,no_root_squash,ceph=cephfs:/,ceph_conf=$CONF"
STATE=$T_DIR/state
mkdir -p "$STATE" "$T_DIR/state-b" "$T_DIR/state-c"
args=(--listen "127.0.0.1:$PORT" --mountd-port 0 --state-dir "$STATE"
	--smb-listen 0 --callback-rpcbind-port "$DEAD" --export "$EXP:$OPTS")
url() { echo "nfs://127.0.0.1$EXP/$2?nfsport=$1&mountport=$1${3:+&$3}"; }

nasd_start "$PORT" "${args[@]}" || t_finish
grep -q "CephFS cephfs:/" "$NASD_LOG" && t_ok "export_is_cephfs" ||
	t_fail "export_is_cephfs" "no CephFS mount in the log"

# ---- 256 MiB over NFSv3, back over NFSv3 and NFSv4.0
head -c $((256 * 1048576)) /dev/urandom >"$T_DIR/big"
t_check "nfs3_write_256MiB" nfs-cp "$T_DIR/big" "$(url "$PORT" big)"
t_check "nfs3_read_256MiB" nfs-cp "$(url "$PORT" big)" "$T_DIR/big.3"
cmp -s "$T_DIR/big" "$T_DIR/big.3" && t_ok "nfs3_256MiB_byte_exact" ||
	t_fail "nfs3_256MiB_byte_exact" "the copy read back differs"
t_check "nfs4_read_256MiB" nfs-cp "$(url "$PORT" big version=4)" "$T_DIR/big.4"
cmp -s "$T_DIR/big" "$T_DIR/big.4" && t_ok "nfs4_256MiB_byte_exact" ||
	t_fail "nfs4_256MiB_byte_exact" "the copy read back over NFSv4 differs"
rm -f "$T_DIR/big.3" "$T_DIR/big.4"
out=$(nfs-ls "$(url "$PORT" "")" 2>&1)
echo "$out" | grep -q " big$" && t_ok "nfs3_readdir" ||
	t_fail "nfs3_readdir" "big not listed: $out"

# ---- handles, and a second gateway on the same filesystem
printf 'persist me\n' >"$T_DIR/keep.txt"
t_check "write_keep" nfs-cp "$T_DIR/keep.txt" "$(url "$PORT" keep.txt)"
t_check "save_file_handle" "$HT" save "$PORT" "$EXP" keep.txt "$T_DIR/h.file"
out=$("$HT" use "$PORT" "$T_DIR/h.file" 2>&1)
t_eq "handle_works" "NFS3_OK size 11" "$(echo "$out" | cut -d' ' -f1-3)"
fileid1=$(echo "$out" | awk '{print $5}')

# gateway B: same handle key (copied), its own state (instance id)
cp "$STATE/handle.key" "$T_DIR/state-b/handle.key"
"$NASD" --foreground --listen "127.0.0.1:$PORT_B" --mountd-port 0 \
	--state-dir "$T_DIR/state-b" --smb-listen 0 \
	--callback-rpcbind-port "$DEAD" --export "$EXP:$OPTS" \
	>"$T_DIR/nasd-b.log" 2>&1 &
B_PID=$!
for i in $(seq 1 200); do port_listening "$PORT_B" && break; sleep 0.1; done
t_check "gateway_b_reads_a_write" nfs-cp "$(url "$PORT_B" big)" "$T_DIR/big.b"
cmp -s "$T_DIR/big" "$T_DIR/big.b" && t_ok "gateway_b_byte_exact" ||
	t_fail "gateway_b_byte_exact" "B read something else"
rm -f "$T_DIR/big.b"
out=$("$HT" use "$PORT_B" "$T_DIR/h.file" 2>&1)
t_eq "gateway_b_takes_a_handle" "NFS3_OK size 11" "$(echo "$out" | cut -d' ' -f1-3)"
# byte-range locks across the two; leaves a lock held through A
"$NLM_API" "$PORT" "$EXP" gateways "$PORT_B" >"$T_DIR/nlm-gw.out" 2>&1
rc=$?
cat "$T_DIR/nlm-gw.out"
[ $rc -eq 0 ] && t_ok "locks_across_gateways" ||
	t_fail "locks_across_gateways" "nlm_api exited $rc"
# gateway C: a key of its own
"$NASD" --foreground --listen "127.0.0.1:$PORT_C" --mountd-port 0 \
	--state-dir "$T_DIR/state-c" --smb-listen 0 --export "$EXP:$OPTS" \
	>"$T_DIR/nasd-c.log" 2>&1 &
C_PID=$!
for i in $(seq 1 200); do port_listening "$PORT_C" && break; sleep 0.1; done
out=$("$HT" use "$PORT_C" "$T_DIR/h.file" 2>&1)
case "$out" in
NFS3ERR_STALE* | NFS3ERR_BADHANDLE*) t_ok "other_key_refuses_handle" ;;
*) t_fail "other_key_refuses_handle" "got '$out'" ;;
esac
kill $C_PID; wait $C_PID
t_eq "gateway_c_sigterm_exit_status" 0 "$?"
C_PID=

# ---- kill -9 during stable writes, restart
BLK=65536
"$HT" syncwrite "$PORT" "$EXP" wl.bin 4000 $BLK >"$T_DIR/wl.out" 2>"$T_DIR/wl.err" &
WL=$!
acked=0
for i in $(seq 1 600); do
	acked=$(tail -n 1 "$T_DIR/wl.out" 2>/dev/null | awk '/^acked/{print $2}')
	acked=${acked:-0}
	[ "$acked" -ge 40 ] && break
	kill -0 $WL 2>/dev/null || break
	sleep 0.05
done
[ "$acked" -ge 40 ] && t_ok "workload_progress" ||
	t_fail "workload_progress" "only $acked blocks acknowledged; $(tail -n 3 "$T_DIR/wl.err" | tr '\n' ' ')"
nasd_kill9
wait $WL
acked=$(awk '/^acked/{n=$2} END{print n+0}' "$T_DIR/wl.out")
t_log "killed nasd with SIGKILL after $acked acknowledged blocks"
t0=$(date +%s)
nasd_start "$PORT" "${args[@]}" || t_finish
grep -q "reclaimed the session of a previous run" "$NASD_LOG" &&
	t_ok "previous_session_reclaimed" ||
	t_fail "previous_session_reclaimed" "no reclaim in the log"
out=$("$HT" use "$PORT" "$T_DIR/h.file" 2>&1)
t_eq "file_handle_survives_kill9" "NFS3_OK size 11" "$(echo "$out" | cut -d' ' -f1-3)"
t_eq "fileid_unchanged" "$fileid1" "$(echo "$out" | awk '{print $5}')"
if [ "$acked" -gt 0 ]; then
	t_check "acked_data_intact" "$HT" readcheck "$PORT" "$EXP" wl.bin "$acked" $BLK
fi
# The dead session had the file open for writing: without the reclaim,
# its caps would hold these reads off for the session timeout (60 s).
dt=$(($(date +%s) - t0))
[ "$dt" -lt 30 ] && t_ok "no_session_timeout_wait" ||
	t_fail "no_session_timeout_wait" "restart to data took ${dt} s"
# The lock the dead server held (nlm_api's "K") went with its session:
# gateway B's client takes those bytes (nlm_api waits up to 20 s).
"$NLM_API" "$PORT_B" "$EXP" takeover >"$T_DIR/nlm-to.out" 2>&1
rc=$?
cat "$T_DIR/nlm-to.out"
[ $rc -eq 0 ] && t_ok "dead_gateway_lock_released" ||
	t_fail "dead_gateway_lock_released" "nlm_api exited $rc"
kill $B_PID; wait $B_PID
t_eq "gateway_b_sigterm_exit_status" 0 "$?"
B_PID=

# ---- a handle of an unlinked file is stale (after the unlink, and
# after the backend's caches forgot it: a new connection, 2 s later)
out=$(cd "$HERE" && /usr/bin/python3 -c '
import sys, time, nt_nfs3 as n
port, exp = int(sys.argv[1]), sys.argv[2]
c = n.Client(port)
st, root = c.mnt(exp)
st, fh, _ = c.create(root, "gone.txt")
st2, _ = c.write(fh, 0, b"soon gone")
st3 = c.remove(root, "gone.txt")
st4, _ = c.getattr(fh)
time.sleep(2)
st5, _ = n.Client(port).getattr(fh)
print(st, st2, st3, st4, st5)
' "$PORT" "$EXP" 2>&1)
t_eq "unlinked_handle_stale" "0 0 0 70 70" "$out"
nasd_stop

# ---- libnfs's API suites, checked against a ceph-fuse view of the
# filesystem: the exports' paths are where ceph-fuse shows their
# directories, so the suites' local checks look at CephFS
if command -v ceph-fuse >/dev/null && [ -c /dev/fuse ]; then
	FUSE=$T_DIR/cephfuse
	mkdir -p "$FUSE"
	if timeout 60 ceph-fuse -c "$CONF" --id admin "$FUSE" \
		>"$T_DIR/ceph-fuse.log" 2>&1; then
		mkdir -p "$FUSE/api3rw" "$FUSE/api3ro" "$FUSE/api4"
		chmod 755 "$FUSE/api3rw" "$FUSE/api3ro" "$FUSE/api4"
		MPORT=$(t_port 13249) || exit 1
		nasd_start "$PORT" --listen "127.0.0.1:$PORT" \
			--mountd-port "$MPORT" --state-dir "$STATE" \
			--smb-listen 0 --grace-time 0 \
			--export "$FUSE/api3rw:rw,no_root_squash,ceph=cephfs:/api3rw,ceph_conf=$CONF" \
			--export "$FUSE/api3ro:ro,ceph=cephfs:/api3ro,ceph_conf=$CONF" \
			--export "$FUSE/api4:rw,no_root_squash,ceph=cephfs:/api4,ceph_conf=$CONF" ||
			t_finish
		for v in 3 4; do
			if [ $v = 3 ]; then
				timeout 600 "$NFS3_API" "$PORT" "$MPORT" \
					"$FUSE/api3rw" "$FUSE/api3ro"
			else
				timeout 600 "$NFS4_API" "$PORT" "$FUSE/api4"
			fi >"$T_DIR/api$v.out" 2>&1
			rc=$?
			t_log "nfs${v}_api: $(grep -c '^ok' "$T_DIR/api$v.out") checks ok"
			[ $rc -eq 0 ] && t_ok "nfs${v}_api_suite" || {
				t_fail "nfs${v}_api_suite" "exited $rc; failed checks:"
				grep -E '^not ok|rpc error|timed out' "$T_DIR/api$v.out"
			}
		done
		nasd_stop
		umount "$FUSE" || umount -l "$FUSE"
		FUSE=
	else
		tail -n 5 "$T_DIR/ceph-fuse.log"
		t_fail "ceph_fuse_mount" "ceph-fuse did not mount the filesystem"
		FUSE=
	fi
else
	t_log "no ceph-fuse or /dev/fuse: the libnfs API suites are not run on CephFS"
fi

# ---- SMB: smbclient on the same filesystem, as a share
SPORT=$(t_port 12445) || exit 1
echo pw12345 | "$NASD" user add cuser --uid 0 --gid 0 --state-dir "$STATE" \
	>/dev/null 2>&1
nasd_start "$SPORT" --listen "127.0.0.1:$PORT" --mountd-port 0 \
	--smb-listen "127.0.0.1:$SPORT" --state-dir "$STATE" \
	--export "$EXP:$OPTS,smb=cshare" || t_finish
head -c $((8 * 1048576 + 4321)) /dev/urandom >"$T_DIR/s.bin"
out=$(cd "$T_DIR" && timeout 120 smbclient //127.0.0.1/cshare -p "$SPORT" \
	-U cuser%pw12345 -m SMB3 -c "put s.bin s.bin; mkdir sd; \
	rename s.bin sd/s2.bin; get sd/s2.bin s.back; del sd/s2.bin; rmdir sd; \
	get keep.txt keep.smb" 2>&1)
t_eq "smbclient_exit_status" 0 "$?"
cmp -s "$T_DIR/s.bin" "$T_DIR/s.back" && t_ok "smb_put_get_byte_exact" ||
	t_fail "smb_put_get_byte_exact" "$(echo "$out" | tail -n 5 | tr '\n' ' ')"
t_eq "smb_reads_nfs_file" "persist me" "$(cat "$T_DIR/keep.smb" 2>&1)"
nasd_stop

# ---- the kernel client, NFSv3 and NFSv4.2
if [ -f "${KCLIENT_DIR:-$TOP/../shared/kclient}/run.sh" ]; then
	KCLIENT_DIR=${KCLIENT_DIR:-$TOP/../shared/kclient}
	PORT=2049
	port_in_use $PORT && PORT=$(t_port 12349)
	MPORT=20048
	port_in_use $MPORT && MPORT=$(t_port 13349)
	nasd_start "$PORT" --listen "127.0.0.1:$PORT" --mountd-port "$MPORT" \
		--state-dir "$STATE" --smb-listen 0 --grace-time 0 \
		--export "$EXP:$OPTS" || t_finish
	for proto in nfs3 nfs42; do
		out=$T_DIR/kc-$proto
		t_log "running kclient: $proto default --export $EXP"
		bash "$KCLIENT_DIR/run.sh" "$proto" default --export "$EXP" \
			--nfs-port "$PORT" --mountd-port "$MPORT" --outdir "$out" \
			--timeout 900 >"$T_DIR/kc-$proto.out" 2>&1
		t_eq "kclient_${proto}_exit_status" 0 "$?"
		cat "$T_DIR/kc-$proto.out" | tail -n 20
		kclient_results "kclient_$proto" "$out"
	done
	nasd_stop
	t_log "running test_kclient_locks.sh on a CephFS export"
	NASD_LOCKS_EXPORT="/cephlocks:rw,no_root_squash,ceph=cephfs:/,ceph_conf=$CONF" \
		KCLIENT_DIR=$KCLIENT_DIR bash "$HERE/test_kclient_locks.sh" "$NASD" \
		>"$T_DIR/kc-locks.out" 2>&1
	rc=$?
	grep -E '^(ok|not ok)' "$T_DIR/kc-locks.out"
	t_eq "kclient_nlm_locks_exit_status" 0 "$rc"
else
	t_log "no kclient harness: the kernel client part is not run"
fi
t_finish
