#!/bin/bash
# NLM v4 through libnfs's own NLM client (nlm_api.c): every procedure it
# has (NULL, TEST, LOCK, CANCEL, UNLOCK) and their errors (denied with the
# holder reported, blocked, cancel of a lock that is not waiting, stale
# handle), then nasd restarted on the same state directory: a new lock is
# DENIED_GRACE_PERIOD and the lock held before the restart is reclaimed.
# usage: test_nlm_libnfs.sh NASD NLM_API
NASD=${1:?usage: $0 NASD NLM_API}
API=${2:?usage: $0 NASD NLM_API}
. "$(dirname "$0")/lib.sh"
t_init nlm_libnfs

PORT=$(t_port 12250) || exit 1
DEAD=$(t_port $((PORT + 1))) || exit 1
mkdir -p "$T_DIR/exp" "$T_DIR/state"
chmod 755 "$T_DIR/exp"
# GRANTED callbacks and SM_NOTIFY go to a port nothing listens on: this
# client has no lockd or statd, and they must not hold anything up
ARGS=(--listen "127.0.0.1:$PORT" --mountd-port 0 --smb-listen 0
	--state-dir "$T_DIR/state" --grace-time 20
	--callback-rpcbind-port "$DEAD"
	--export "$T_DIR/exp:rw,no_root_squash")

run_api() {
	"$API" "$PORT" "$T_DIR/exp" "$1" >"$T_DIR/api.$1.out" 2>&1
	rc=$?
	cat "$T_DIR/api.$1.out"
	if [ $rc -eq 0 ]; then
		t_ok "nlm_api_$1"
	else
		t_fail "nlm_api_$1" "exited $rc"
	fi
}

nasd_start "$PORT" "${ARGS[@]}" || t_finish
run_api locks
nasd_stop
nasd_start "$PORT" "${ARGS[@]}" || t_finish
run_api grace
nasd_stop
t_finish
