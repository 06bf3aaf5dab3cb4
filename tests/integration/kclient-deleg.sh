# kclient workload for NFSv4.1/4.2 delegations (sourced inside the guest by
# ../shared/kclient; cwd = $WORK on the mount; step/check from
# guest-lib.sh; busybox tools only).
# 1. Ten files written, then opened, read and closed eight times each: with
#    delegations the client opens them locally (the server counts far fewer
#    OPENs; test_nfs4_deleg_kclient.sh compares).
# 2. A file written and read here, then "ready": a raw client on the host
#    (deleg_writer.py) opens it for writing, which recalls the delegation
#    this client holds, and writes NEW-CONTENT; this client must see it.
# 3. A file of 11 bytes opened again for appending (a write delegation),
#    10 bytes appended and kept open, then "ready2": the host's GETATTR of
#    it asks this client (CB_GETATTR) and must see 21 bytes at once.
write_files() {
	i=0
	while [ $i -lt 10 ]; do
		echo "file $i" >f$i || return 1
		i=$((i + 1))
	done
}
step write_10_files write_files
reopen() {
	r=0
	while [ $r -lt 8 ]; do
		for f in f0 f1 f2 f3 f4 f5 f6 f7 f8 f9; do
			cat $f >/dev/null || return 1
		done
		r=$((r + 1))
	done
}
step reopen_80 reopen
check f7_content [ "$(cat f7)" = "file 7" ]

step write_shared sh -c 'echo OLD-CONTENT >shared.txt'
step read_shared cat shared.txt
check shared_old [ "$(cat shared.txt)" = "OLD-CONTENT" ]
step mark_ready sh -c 'echo ready >ready'
wait_new() {
	n=0
	while [ $n -lt 240 ]; do
		grep -q NEW-CONTENT shared.txt && return 0
		sleep 0.5
		n=$((n + 1))
	done
	return 1
}
step wait_host_write wait_new
check shared_new [ "$(cat shared.txt)" = "NEW-CONTENT" ]

step write_held sh -c 'echo 0123456789 >held.txt'
hold_write() {
	exec 3>>held.txt || return 1
	printf ABCDEFGHIJ >&3 || return 1
	echo ready >ready2 || return 1
	# the host's GETATTR comes while this is open and its data cached
	n=0
	while [ $n -lt 40 ] && [ ! -e getattr-done ]; do
		sleep 0.25
		n=$((n + 1))
	done
	exec 3>&-
}
step hold_write hold_write
check held_size [ "$(wc -c <held.txt)" -eq 21 ]
