#!/bin/bash
# NFSv3 locking with the Linux kernel client (a Debian kernel under QEMU,
# see ../shared/kclient/README.md, "NFSv3 locking"): the guest mounts
# without nolock and runs workload-locks.sh: try-locks, blocking locks,
# ranges, read/write locks, and on a second nosharecache mount the
# conflicts nasd itself decides (NLM4_DENIED, NLM4_BLOCKED, then the
# NLM_GRANTED callback, which must arrive within HOLD+8 s). Then nasd is
# killed with -9 and restarted: it must send SM_NOTIFY to the guest's
# statd, whose lockd reclaims its lock in the grace period.
#
# How the callbacks reach the guest: nasd asks the guest's rpcbind (a
# loopback hostfwd, --guest-rpcbind-port R) for the guest's lockd and
# statd: --callback-rpcbind-port R. The guest finds nasd's NLM port from
# the port mapper on this host's 127.0.0.1:111 (nasd's own, --portmap,
# when no rpcbind runs).
# usage: test_kclient_locks.sh NASD      (KCLIENT_DIR overrides the path;
#        NASD_LOCKS_EXPORT="PATH:OPTIONS" serves that export instead of a
#        scratch directory: test_ceph.sh runs this on a CephFS export)
NASD=${1:?usage: $0 NASD}
. "$(dirname "$0")/lib.sh"

kclient_require
[ -f "$KCLIENT_DIR/workload-locks.sh" ] ||
	t_skip "kclient at $KCLIENT_DIR has no workload-locks.sh"

t_init kclient_locks
PORT=$(t_port 12249)
MPORT=$(t_port 13249)
GRPCB=$(t_port 63100)
if [ -n "${NASD_LOCKS_EXPORT:-}" ]; then
	EXP=${NASD_LOCKS_EXPORT%%:*}
	SPEC=$NASD_LOCKS_EXPORT
	mkdir -p "$T_DIR/state"
else
	EXP=$T_DIR/export
	SPEC="$EXP:rw,no_root_squash"
	mkdir -p "$EXP" "$T_DIR/state"
	chmod 755 "$EXP"
fi
ARGS=(--listen "127.0.0.1:$PORT" --mountd-port "$MPORT" --portmap
	--state-dir "$T_DIR/state" --export "$SPEC"
	--grace-time 20 --callback-rpcbind-port "$GRPCB" --smb-listen 0)

nasd_start "$PORT" "${ARGS[@]}" || t_finish
for i in $(seq 1 50); do port_listening "$MPORT" && break; sleep 0.1; done
# what the guest will be told for NLM (nasd's, or a rpcbind's mapping)
NLMP=$(rpcinfo -p 127.0.0.1 2>/dev/null | awk '$1==100021 && $2==4 && $3=="tcp"{print $4; exit}')
[ -n "$NLMP" ] || t_fail "nlockmgr_registered" "rpcinfo -p 127.0.0.1: no 100021 v4 tcp"
NLMOPT=$NLMP
[ "$NLMP" != "$PORT" ] && NLMOPT=$NLMP:$PORT

OUT=$T_DIR/kclient
bash "$KCLIENT_DIR/run.sh" nfs3 "$KCLIENT_DIR/workload-locks.sh" --lock --export "$EXP" \
	--nfs-port "$PORT" --mountd-port "$MPORT" --nlm-port "$NLMOPT" \
	--guest-rpcbind-port "$GRPCB" --outdir "$OUT" --timeout 900 \
	--env LOCK_EXPECT_GRANTED=1 --env LOCK_NOTIFY_WAIT_S=40 \
	>"$T_DIR/run.out" 2>&1 &
RUN=$!
# At KCLIENT-LOCK-NOTIFY-READY the guest holds a lock: nasd restarts.
restarted=0
while kill -0 "$RUN" 2>/dev/null; do
	if [ $restarted = 0 ] && [ -f "$OUT/console.log" ] &&
		grep -aq KCLIENT-LOCK-NOTIFY-READY "$OUT/console.log"; then
		nasd_expect_exit
		kill -9 "$NASD_PID"
		wait "$NASD_PID" 2>/dev/null
		NASD_PID=
		nasd_start "$PORT" "${ARGS[@]}"
		restarted=1
	fi
	sleep 0.5
done
wait "$RUN"
rc=$?
cat "$T_DIR/run.out"
t_eq "kclient_exit_status" 0 "$rc"
t_eq "nasd_restarted_at_notify_ready" 1 "$restarted"
if [ -f "$OUT/results.txt" ]; then
	bad=$(grep '^STEP ' "$OUT/results.txt" | grep -v ' rc=0 ')
	badchk=$(grep '^CHECK .*FAILED' "$OUT/results.txt")
	grep -q '^STEP server_blocked_lock_granted rc=0' "$OUT/results.txt" &&
		t_ok "server_blocked_lock_granted" ||
		t_fail "server_blocked_lock_granted" "not in results.txt"
	[ -z "$bad" ] && t_ok "kclient_every_step_rc0" ||
		t_fail "kclient_every_step_rc0" "$(echo "$bad" | tr '\n' '|')"
	[ -z "$badchk" ] && t_ok "kclient_every_check_ok" ||
		t_fail "kclient_every_check_ok" "$(echo "$badchk" | tr '\n' '|')"
else
	t_fail "kclient_results" "no $OUT/results.txt"
	[ -f "$OUT/console.log" ] && tail -n 40 "$OUT/console.log"
fi
grep -q "SM_NOTIFY sent to" "$NASD_LOG" && t_ok "nasd_sent_sm_notify" ||
	t_fail "nasd_sent_sm_notify" "$(grep nlm "$NASD_LOG" | tail -n 5 | tr '\n' '|')"
nasd_stop
t_finish
