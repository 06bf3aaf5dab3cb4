#!/bin/bash
# NFSv4 delegations with the Linux kernel client (../shared/kclient):
# kclient-deleg.sh opens, reads and closes ten files eight times each, then
# holds a file a raw host client (deleg_writer.py) opens for writing.
#   - nfs41 against an export with deleg=no, then nfs41 and nfs42 with
#     delegations: the OPENs nasd counts (`nasd stats`, nfs4_op OPEN) fall
#     by at least half with them;
#   - with delegations the host's open is answered DELAY while the guest's
#     delegation is recalled (CB_RECALL over the back channel, DELEGRETURN),
#     then succeeds; the guest sees the host's data;
#   - with delegations, the host's GETATTR of a file the guest holds open
#     for appending (a write delegation, 10 bytes appended and maybe still
#     cached) is answered at once (no DELAY, no recall: CB_GETATTR to the
#     guest, grant_attr_queries_total) with the guest's size, 21;
#   - nasd stats count the delegations, recalls and returns; no sanitizer
#     report.
# usage: test_nfs4_deleg_kclient.sh NASD
NASD=${1:?usage: $0 NASD}
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
PY=/usr/bin/python3

kclient_require

t_init nfs4deleg_kclient
PORT=$(t_port "${NFS4_DELEG_TEST_PORT:-17300}") || exit 1
EXP=$T_DIR/export
mkdir -p "$EXP" "$T_DIR/state"
chmod 755 "$EXP"

# stat_json KEY: a named value or the count of an nfs4_op procedure
stat_json() {
	"$NASD" stats --state-dir "$T_DIR/state" --json 2>/dev/null |
		$PY -c '
import json, sys
d = json.load(sys.stdin)
k = sys.argv[1]
if k.startswith("op:"):
    p = [x["count"] for x in d["procedures"]
         if x["program"] == "nfs4_op" and x["procedure"] == k[3:]]
    print(p[0] if p else 0)
else:
    print(d["values"].get(k, 0))' "$1"
}

# run_deleg PROTO NAME: the workload and the host writer; sets OPENS
run_deleg() {
	local proto=$1 name=$2 out=$T_DIR/$2 rc before wpid wrc
	before=$(stat_json op:OPEN)
	$PY "$HERE/deleg_writer.py" "$PORT" "$EXP" 400 >"$T_DIR/$name.writer" 2>&1 &
	wpid=$!
	t_log "running kclient: $proto kclient-deleg.sh --export $EXP"
	bash "$KCLIENT_DIR/run.sh" "$proto" "$HERE/kclient-deleg.sh" \
		--export "$EXP" --nfs-port "$PORT" --outdir "$out" \
		--timeout 900 --mountstats >"$T_DIR/$name.out" 2>&1
	rc=$?
	cat "$T_DIR/$name.out"
	t_eq "${name}_exit_status" 0 "$rc"
	kclient_results "$name" "$out"
	wait "$wpid"
	wrc=$?
	t_log "$name host writer: $(cat "$T_DIR/$name.writer")"
	t_eq "${name}_host_writer_status" 0 "$wrc"
	WRITER=$(cat "$T_DIR/$name.writer")
	ASKED=$(stat_json grant_attr_queries_total)
	OPENS=$(($(stat_json op:OPEN) - before))
	t_log "$name: the server counted $OPENS OPENs"
	rm -rf "$EXP"/kclient-kc-*
}

# 1. without delegations
nasd_start "$PORT" --listen "127.0.0.1:$PORT" --mountd-port 0 \
	--state-dir "$T_DIR/state" --grace-time 0 --smb-listen 0 \
	--export "$EXP:rw,no_root_squash,deleg=no" || t_finish
run_deleg nfs41 nfs41_nodeleg
off=$OPENS
t_eq nodeleg_granted_none 0 "$(stat_json nfs4_delegations_total)"
nasd_stop

# 2. with delegations (a fresh server: its counters start at 0)
rm -rf "$T_DIR/state"
mkdir -p "$T_DIR/state"
nasd_start "$PORT" --listen "127.0.0.1:$PORT" --mountd-port 0 \
	--state-dir "$T_DIR/state" --grace-time 0 --smb-listen 0 \
	--export "$EXP:rw,no_root_squash" || t_finish
run_deleg nfs41 nfs41_deleg
on=$OPENS
case $WRITER in
delays=[1-9]*) t_ok nfs41_host_open_waited_for_recall ;;
*) t_fail nfs41_host_open_waited_for_recall "$WRITER" ;;
esac
# t_if NAME DETAIL CONDITION...: ok when the condition holds
t_if() {
	local name=$1 detail=$2
	shift 2
	if "$@"; then t_ok "$name"; else t_fail "$name" "$detail"; fi
}
# getattr_asked NAME: the host's GETATTR asked the guest (CB_GETATTR)
getattr_asked() {
	case $WRITER in
	*" getattr_delays=0 size=21") t_ok "${1}_getattr_holders_size" ;;
	*) t_fail "${1}_getattr_holders_size" "$WRITER" ;;
	esac
	t_if "${1}_getattr_cb_getattr" "grant_attr_queries_total $ASKED" \
		[ "$ASKED" -ge 1 ]
}
getattr_asked nfs41
halved() { [ "$1" -gt 0 ] && [ $(($2 * 2)) -le "$1" ]; }
t_if opens_halved_with_delegations "$off OPENs without, $on with" \
	halved "$off" "$on"
asked41=$ASKED
run_deleg nfs42 nfs42_deleg
t_if nfs42_opens_halved "$off OPENs without, $OPENS with (4.2)" \
	halved "$off" "$OPENS"
ASKED=$((ASKED - asked41))
getattr_asked nfs42
granted=$(stat_json nfs4_delegations_total)
recalls=$(stat_json nfs4_deleg_recalls_total)
returns=$(stat_json nfs4_deleg_returns_total)
t_log "delegations granted $granted, recalled $recalls, returned $returns"
t_if stats_delegations_granted "granted $granted" [ "$granted" -ge 10 ]
t_if stats_recalls_returned "recalls $recalls returns $returns" \
	[ "$recalls" -ge 2 -a "$returns" -ge 2 ]
kill -0 "$NASD_PID" 2>/dev/null || t_fail nasd_alive "nasd died"
nasd_stop
t_finish
