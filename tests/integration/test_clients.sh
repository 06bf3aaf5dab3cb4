#!/bin/bash
# Real libnfs command-line clients against nasd: nfs-ls, nfs-cat, nfs-cp
# (a random file copied in and back, byte-exact by sha256), and, when port
# 111 is free, rpcinfo against nasd's own portmapper (--portmap).
# usage: test_clients.sh NASD [BIG_MB]     (BIG_MB default 4)
NASD=${1:?usage: $0 NASD [BIG_MB]}
BIG_MB=${2:-4}
. "$(dirname "$0")/lib.sh"
t_init clients

for tool in nfs-ls nfs-cat nfs-cp sha256sum; do
	command -v $tool >/dev/null || t_skip "$tool not installed (package libnfs-utils/coreutils)"
done

PORT=$(t_port 12059) || exit 1
EXP=$T_DIR/export
mkdir -p "$EXP/sub" "$T_DIR/state"
chmod 755 "$EXP"
printf 'hello nasd\n' >"$EXP/small.txt"
for f in a b c; do echo "$f" >"$EXP/sub/$f"; done

# Port 111 free: nasd serves its own portmapper (--portmap). A portmapper
# already there (rpcbind): nasd must register with it.
PORTMAP=0
if command -v rpcinfo >/dev/null; then
	if port_listening 111; then
		PORTMAP=2
	elif ! port_in_use 111; then
		PORTMAP=1
	fi
fi
args=(--listen "127.0.0.1:$PORT" --mountd-port 0 --state-dir "$T_DIR/state"
	--export "$EXP:rw,no_root_squash")
[ $PORTMAP = 1 ] && args+=(--portmap)
nasd_start "$PORT" "${args[@]}" || t_finish
t_ok "nasd_started"

Q="?nfsport=$PORT&mountport=$PORT"
URL="nfs://127.0.0.1$EXP"

# nfs-ls
out=$(timeout 60 nfs-ls "$URL/$Q" 2>&1)
rc=$?
if [ $rc -eq 0 ] && echo "$out" | grep -q ' small.txt$' && echo "$out" | grep -q ' sub$'; then
	t_ok "nfs_ls_root"
else
	t_fail "nfs_ls_root" "rc $rc, output: $(echo "$out" | head -n 10 | tr '\n' '|')"
fi
out=$(timeout 60 nfs-ls "$URL/sub$Q" 2>&1)
n=$(echo "$out" | grep -c -E ' (a|b|c)$')
t_eq "nfs_ls_subdir_entries" 3 "$n"
timeout 60 nfs-ls "$URL/does-not-exist$Q" >/dev/null 2>&1
rc=$?
[ $rc -ne 0 ] && t_ok "nfs_ls_missing_fails" || t_fail "nfs_ls_missing_fails" "nfs-ls of a missing dir exited 0"

# nfs-cat
out=$(timeout 60 nfs-cat "$URL/small.txt$Q" 2>&1)
t_eq "nfs_cat_small" "hello nasd" "$out"

# nfs-cp in and out
dd if=/dev/urandom of="$T_DIR/src.bin" bs=1M count="$BIG_MB" status=none
want=$(sha256sum <"$T_DIR/src.bin" | cut -d' ' -f1)
t0=$(date +%s.%N)
if timeout 600 nfs-cp "$T_DIR/src.bin" "$URL/copy.bin$Q" >"$T_DIR/cp1.out" 2>&1; then
	t1=$(date +%s.%N)
	t_log "nfs-cp ${BIG_MB} MiB in: $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
	got=$(sha256sum <"$EXP/copy.bin" | cut -d' ' -f1)
	t_eq "nfs_cp_in_${BIG_MB}MiB_sha256" "$want" "$got"
else
	t_fail "nfs_cp_in_${BIG_MB}MiB" "$(tail -n 5 "$T_DIR/cp1.out" | tr '\n' ' ')"
fi
rm -f "$T_DIR/back.bin"
t0=$(date +%s.%N)
if timeout 600 nfs-cp "$URL/copy.bin$Q" "$T_DIR/back.bin" >"$T_DIR/cp2.out" 2>&1; then
	t1=$(date +%s.%N)
	t_log "nfs-cp ${BIG_MB} MiB out: $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
	got=$(sha256sum <"$T_DIR/back.bin" | cut -d' ' -f1)
	t_eq "nfs_cp_out_${BIG_MB}MiB_sha256" "$want" "$got"
else
	t_fail "nfs_cp_out_${BIG_MB}MiB" "$(tail -n 5 "$T_DIR/cp2.out" | tr '\n' ' ')"
fi
rm -f "$T_DIR/src.bin" "$T_DIR/back.bin" "$EXP/copy.bin"

# rpcinfo against nasd's portmapper
if [ $PORTMAP = 1 ]; then
	if port_listening 111; then
		t_ok "portmap_listens_on_111"
		out=$(timeout 30 rpcinfo -p 127.0.0.1 2>&1)
		rc=$?
		if [ $rc -eq 0 ] &&
			echo "$out" | grep -q -E "^ *100003 +3 +tcp +$PORT " &&
			echo "$out" | grep -q -E "^ *100005 +3 +tcp +[0-9]+ "; then
			t_ok "rpcinfo_p_lists_nfs3_mount3"
		else
			t_fail "rpcinfo_p_lists_nfs3_mount3" "rc $rc: $(echo "$out" | tr '\n' '|')"
		fi
		out=$(timeout 30 rpcinfo -t 127.0.0.1 100003 3 2>&1)
		rc=$?
		if [ $rc -eq 0 ] && echo "$out" | grep -q 'version 3 ready'; then
			t_ok "rpcinfo_t_nfs3_ready"
		else
			t_fail "rpcinfo_t_nfs3_ready" "rc $rc: $(echo "$out" | tr '\n' '|')"
		fi
		out=$(timeout 30 rpcinfo -t 127.0.0.1 100005 3 2>&1)
		rc=$?
		if [ $rc -eq 0 ] && echo "$out" | grep -q 'version 3 ready'; then
			t_ok "rpcinfo_t_mount3_ready"
		else
			t_fail "rpcinfo_t_mount3_ready" "rc $rc: $(echo "$out" | tr '\n' '|')"
		fi
		# libnfs without explicit ports asks the portmapper
		out=$(timeout 60 nfs-cat "$URL/small.txt" 2>&1)
		t_eq "nfs_cat_via_portmapper" "hello nasd" "$out"
	else
		t_fail "portmap_listens_on_111" "--portmap given, 111 was free, nothing listens"
	fi
elif [ $PORTMAP = 2 ]; then
	out=$(timeout 30 rpcinfo -p 127.0.0.1 2>&1)
	if echo "$out" | grep -q -E "^ *100003 +3 +tcp +$PORT "; then
		t_ok "registered_with_running_rpcbind"
	else
		t_fail "registered_with_running_rpcbind" "rpcinfo -p: $(echo "$out" | tr '\n' '|')"
	fi
else
	t_log "rpcinfo missing or port 111 not usable: portmapper checks not run"
fi

nasd_stop
if [ $PORTMAP = 2 ]; then
	out=$(timeout 30 rpcinfo -p 127.0.0.1 2>&1)
	if echo "$out" | grep -q -E "^ *1000(03|05) +[0-9]+ +tcp +$PORT "; then
		t_fail "unregistered_from_rpcbind_on_exit" "still listed: $(echo "$out" | tr '\n' '|')"
	else
		t_ok "unregistered_from_rpcbind_on_exit"
	fi
fi
t_finish
