#!/bin/bash
# Crash and restart: file handles survive a kill -9 and a restart with the
# same --state-dir; data acknowledged as stable (FILE_SYNC WRITE, or UNSTABLE
# WRITE + COMMIT) is intact; the write verifier changes on every start; and a
# new state dir (new handle key) makes the old handles invalid.
# usage: test_restart.sh NASD HANDLE_TOOL
NASD=${1:?usage: $0 NASD HANDLE_TOOL}
HT=${2:?usage: $0 NASD HANDLE_TOOL}
. "$(dirname "$0")/lib.sh"
t_init restart

PORT=$(t_port 12069) || exit 1
EXP=$T_DIR/export
STATE=$T_DIR/state
mkdir -p "$EXP/dir" "$STATE"
chmod 755 "$EXP"
printf 'persist me\n' >"$EXP/keep.txt"
BLK=65536
args=(--listen "127.0.0.1:$PORT" --mountd-port 0 --state-dir "$STATE"
	--export "$EXP:rw,no_root_squash")

# ---- run 1
nasd_start "$PORT" "${args[@]}" || t_finish
t_check "save_file_handle" "$HT" save "$PORT" "$EXP" keep.txt "$T_DIR/h.file"
t_check "save_dir_handle" "$HT" save "$PORT" "$EXP" dir "$T_DIR/h.dir"
out=$("$HT" use "$PORT" "$T_DIR/h.file" 2>&1)
t_eq "handle_works_run1" "NFS3_OK size 11" "$(echo "$out" | cut -d' ' -f1-3)"
fileid1=$(echo "$out" | awk '{print $5}')
verf1=$("$HT" verf "$PORT" "$EXP" keep.txt 2>&1)
verf1b=$("$HT" verf "$PORT" "$EXP" keep.txt 2>&1)
t_eq "verifier_stable_within_run" "$verf1" "$verf1b"

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
if [ "$acked" -lt 40 ]; then
	t_fail "workload_progress" "only $acked blocks acknowledged; $(tail -n 3 "$T_DIR/wl.err" | tr '\n' ' ')"
fi
nasd_kill9
wait $WL
wlrc=$?
acked=$(awk '/^acked/{n=$2} END{print n+0}' "$T_DIR/wl.out")
t_log "killed nasd with SIGKILL after $acked acknowledged blocks (workload exit $wlrc)"
if [ $wlrc -ne 0 ] && [ "$acked" -lt 4000 ]; then
	t_ok "workload_interrupted_mid_way"
else
	t_fail "workload_interrupted_mid_way" "workload finished ($acked blocks) before the kill"
fi

# ---- run 2: same state dir
nasd_start "$PORT" "${args[@]}" || t_finish
out=$("$HT" use "$PORT" "$T_DIR/h.file" 2>&1)
t_eq "file_handle_survives_kill9" "NFS3_OK size 11" "$(echo "$out" | cut -d' ' -f1-3)"
t_eq "fileid_unchanged" "$fileid1" "$(echo "$out" | awk '{print $5}')"
out=$("$HT" use "$PORT" "$T_DIR/h.dir" 2>&1)
t_eq "dir_handle_survives_kill9" "NFS3_OK" "$(echo "$out" | cut -d' ' -f1)"
verf2=$("$HT" verf "$PORT" "$EXP" keep.txt 2>&1)
if [ -n "$verf1" ] && [ -n "$verf2" ] && [ "$verf1" != "$verf2" ]; then
	t_ok "verifier_changes_after_restart"
else
	t_fail "verifier_changes_after_restart" "run1 '$verf1' run2 '$verf2'"
fi
if [ "$acked" -gt 0 ]; then
	t_check "acked_data_intact_via_nfs" "$HT" readcheck "$PORT" "$EXP" wl.bin "$acked" $BLK
fi
size=$(stat -c %s "$EXP/wl.bin" 2>/dev/null || echo 0)
[ "$size" -ge $((acked * BLK)) ] && t_ok "acked_data_size" ||
	t_fail "acked_data_size" "file has $size bytes, $acked blocks of $BLK were acknowledged"
t_eq "keep_txt_intact" "persist me" "$(cat "$EXP/keep.txt")"
nasd_stop

# ---- run 3: graceful restart, same state dir
nasd_start "$PORT" "${args[@]}" || t_finish
out=$("$HT" use "$PORT" "$T_DIR/h.file" 2>&1)
t_eq "file_handle_survives_sigterm_restart" "NFS3_OK size 11" "$(echo "$out" | cut -d' ' -f1-3)"
verf3=$("$HT" verf "$PORT" "$EXP" keep.txt 2>&1)
if [ -n "$verf3" ] && [ "$verf3" != "$verf2" ]; then
	t_ok "verifier_changes_after_second_restart"
else
	t_fail "verifier_changes_after_second_restart" "run2 '$verf2' run3 '$verf3'"
fi
nasd_stop

# ---- run 4: a fresh state dir means a new handle key: old handles die
mkdir -p "$T_DIR/state2"
args2=(--listen "127.0.0.1:$PORT" --mountd-port 0 --state-dir "$T_DIR/state2"
	--export "$EXP:rw,no_root_squash")
nasd_start "$PORT" "${args2[@]}" || t_finish
out=$("$HT" use "$PORT" "$T_DIR/h.file" 2>&1)
case "$out" in
NFS3ERR_STALE | NFS3ERR_BADHANDLE) t_ok "old_handle_rejected_with_new_key" ;;
*) t_fail "old_handle_rejected_with_new_key" "got '$out'" ;;
esac
t_check "new_handle_with_new_key" "$HT" save "$PORT" "$EXP" keep.txt "$T_DIR/h.file2"
nasd_stop
t_finish
