#!/bin/bash
# Restart and reclaim with the Linux kernel client (a Debian kernel under
# QEMU, see ../shared/kclient/README.md), for vers=4.1 and vers=4.0:
#  - in the guest (kclient-reclaim.sh) one process opens a file and holds
#    a write lock on all of it; it writes "ready" on the export;
#  - the host checks with a raw NFSv4.1 client of its own
#    (nfs4_reclaim_probe.py) that the server holds the lock (LOCKT:
#    DENIED), kills nasd with SIGKILL and restarts it on the same state
#    directory with --grace-time 20;
#  - during grace a new client's OPEN gets NFS4ERR_GRACE;
#  - the guest reclaims: the server logs "reclaimed an open" and
#    "reclaimed a lock" and, when grace ends, the counts;
#  - after grace the raw client's LOCKT is still DENIED (the server holds
#    the reclaimed lock), and a new OPEN works;
#  - in the guest the holder is still alive, another process still cannot
#    take the lock, the data are intact; after the holder exits the lock
#    is free (LOCKU with the reclaimed state worked), and LOCKT from the
#    host is OK again.
# usage: test_nfs4_reclaim.sh NASD
#   KCLIENT_DIR overrides the kclient path; NFS4_RECLAIM_RUNS the
#   protocols (default "nfs41 nfs40").
NASD=${1:?usage: $0 NASD}
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
PROBE=$HERE/nfs4_reclaim_probe.py

kclient_require
"$NASD" --help 2>&1 | grep -q -- '--grace-time' ||
	t_skip "nasd has no --grace-time"

RUNS=${NFS4_RECLAIM_RUNS:-"nfs41 nfs40"}
GRACE=20

t_init nfs4reclaim
KC_PID=
# the guest runs in its own process group: stop all of it on the way out
reclaim_cleanup() {
	local rc=$?
	if [ -n "$KC_PID" ] && kill -0 "$KC_PID" 2>/dev/null; then
		kill -- -"$KC_PID" 2>/dev/null
		wait "$KC_PID" 2>/dev/null
	fi
	(exit $rc)
	t_cleanup
}
trap reclaim_cleanup EXIT
PORT=$(t_port "${NFS4_TEST_PORT:-20600}") || exit 1
EXP=$T_DIR/export
mkdir -p "$EXP"
chmod 755 "$EXP"

# wait_file GLOB SECONDS: the path of the first match, once there is one
wait_file() {
	local i f
	for i in $(seq 1 "$2"); do
		for f in $1; do
			[ -e "$f" ] && { echo "$f"; return 0; }
		done
		kill -0 "$KC_PID" 2>/dev/null || return 1
		sleep 1
	done
	return 1
}

# wait_log PATTERN SECONDS: until the current nasd log has PATTERN
wait_log() {
	local i
	for i in $(seq 1 "$2"); do
		grep -q -- "$1" "$NASD_LOG" && return 0
		sleep 1
	done
	return 1
}

start_server() {
	nasd_start "$PORT" --listen "127.0.0.1:$PORT" --mountd-port 0 \
		--state-dir "$STATE" --grace-time "$GRACE" --log-level debug \
		--export "$EXP:rw,no_root_squash"
}

# run_reclaim PROTO
run_reclaim() {
	local proto=$1 out=$T_DIR/$1 ready work held rel st t0 rc i bad badchk
	STATE=$T_DIR/state-$proto
	mkdir -p "$STATE"
	start_server || return
	t_log "running kclient: $proto $HERE/kclient-reclaim.sh"
	setsid bash "$KCLIENT_DIR/run.sh" "$proto" "$HERE/kclient-reclaim.sh" \
		--export "$EXP" --nfs-port "$PORT" --outdir "$out" \
		--timeout 900 --opts actimeo=1 >"$T_DIR/$proto.out" 2>&1 &
	KC_PID=$!

	ready=$(wait_file "$EXP/kclient-*/ready" 600)
	if [ -z "$ready" ]; then
		t_fail "${proto}_guest_ready" "no ready marker"
		wait "$KC_PID"
		KC_PID=
		cat "$T_DIR/$proto.out"
		nasd_stop
		return
	fi
	t_ok "${proto}_guest_ready"
	work=$(dirname "$ready")
	held=$work/held
	st=$(python3 "$PROBE" lockt "$PORT" "$held")
	t_log "LOCKT before the restart: $st"
	case $st in
	DENIED*) t_ok "${proto}_lockt_denied_before" ;;
	*) t_fail "${proto}_lockt_denied_before" "$st" ;;
	esac

	# the crash: no chance to write anything more
	nasd_expect_exit
	kill -9 "$NASD_PID"
	wait "$NASD_PID" 2>/dev/null
	NASD_PID=
	t0=$(date +%s)
	start_server || {
		kill -- -"$KC_PID"
		wait "$KC_PID"
		KC_PID=
		return
	}
	# (logged just after the port opens: wait for it, do not race it)
	t_check "${proto}_grace_started" wait_log "grace period of $GRACE s" 10
	# the callback path of the crashed instance was up (CB_NULL answered:
	# on the 4.1 back channel, or to the 4.0 callback address)
	t_check "${proto}_callback_path_was_up" grep -q "callback path up" \
		"$T_DIR/nasd.$((NASD_RUNS - 1)).log"
	# a new client may not get new state during grace
	st=$(python3 "$PROBE" open "$PORT" "$work" newfile)
	t_eq "${proto}_new_open_during_grace" GRACE "$st"

	if wait_log "reclaimed an open" 120; then
		t_ok "${proto}_open_reclaimed"
	else
		t_fail "${proto}_open_reclaimed" "no 'reclaimed an open' line"
	fi
	if wait_log "reclaimed a lock" 60; then
		t_ok "${proto}_lock_reclaimed"
	else
		t_fail "${proto}_lock_reclaimed" "no 'reclaimed a lock' line"
	fi
	t_log "reclaimed $(($(date +%s) - t0)) s after the restart"
	if wait_log "grace period over" $((GRACE + 30)); then
		t_ok "${proto}_grace_ended"
		t_check "${proto}_grace_counts" grep -Eq \
			'grace period over \([1-9][0-9]* opens, [1-9][0-9]* locks' \
			"$NASD_LOG"
	else
		t_fail "${proto}_grace_ended" "no 'grace period over' line"
	fi
	# the server holds the reclaimed lock against other clients
	st=$(python3 "$PROBE" lockt "$PORT" "$held")
	t_log "LOCKT after grace: $st"
	case $st in
	DENIED*) t_ok "${proto}_lockt_denied_after_reclaim" ;;
	*) t_fail "${proto}_lockt_denied_after_reclaim" "$st" ;;
	esac
	st=$(python3 "$PROBE" open "$PORT" "$work" newfile)
	t_eq "${proto}_new_open_after_grace" OK "$st"
	touch "$work/restarted"

	rel=$(wait_file "$work/released" 300)
	if [ -n "$rel" ]; then
		st=$(python3 "$PROBE" lockt "$PORT" "$held")
		t_eq "${proto}_lockt_ok_after_release" OK "$st"
	else
		t_fail "${proto}_guest_released" "no released marker"
	fi
	touch "$work/verified"

	wait "$KC_PID"
	rc=$?
	KC_PID=
	cat "$T_DIR/$proto.out"
	t_eq "${proto}_exit_status" 0 "$rc"
	if [ -f "$out/results.txt" ]; then
		bad=$(grep '^STEP ' "$out/results.txt" | grep -v ' rc=0 ')
		badchk=$(grep '^CHECK .*FAILED' "$out/results.txt")
		[ -z "$bad" ] && t_ok "${proto}_every_step_rc0" ||
			t_fail "${proto}_every_step_rc0" "$(echo "$bad" | tr '\n' '|')"
		[ -z "$badchk" ] && t_ok "${proto}_every_check_ok" ||
			t_fail "${proto}_every_check_ok" "$(echo "$badchk" | tr '\n' '|')"
		t_check "${proto}_ran_checks" grep -q \
			'^CHECK lock_held_after_restart' "$out/results.txt"
	else
		t_fail "${proto}_results" "no $out/results.txt"
	fi
	if [ -f "$out/dmesg.txt" ]; then
		if grep -Eiq 'reclaim failed|lock reclaim|state recovery failed' \
			"$out/dmesg.txt"; then
			t_fail "${proto}_no_client_reclaim_errors" \
				"$(grep -Ei 'reclaim|recovery' "$out/dmesg.txt" |
					head -n 5 | tr '\n' '|')"
		else
			t_ok "${proto}_no_client_reclaim_errors"
		fi
	fi
	case $proto in
	nfs40) ;;
	*) t_check "${proto}_back_channel_up_after_restart" grep -q \
		"callback path up (CB_NULL answered" "$NASD_LOG" ;;
	esac
	grep -E "nfs4: .*(reclaim|grace|callback path)" "$NASD_LOG" | head -n 20
	nasd_stop
}

for proto in $RUNS; do
	case $proto in
	nfs40 | nfs41 | nfs42) run_reclaim "$proto" ;;
	*) t_fail "runs" "unknown protocol $proto" ;;
	esac
done

t_finish
