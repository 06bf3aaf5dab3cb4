# kclient workload for test_nfs4_reclaim.sh (sourced inside the guest by
# ../shared/kclient; cwd = $WORK on the mount; step/check/drop_caches/
# kc_summary from guest-lib.sh; busybox tools only).
#
# One process opens "held" and takes a write lock on all of it; the guest
# then writes "ready" and waits while the host kills nasd with SIGKILL and
# restarts it. Polling the directory makes the client notice the restart
# at once, so it reclaims the open and the lock during the grace period.
# When the host has checked the server side it writes "restarted": the
# holder must still be alive with its lock (another process cannot take
# it), the file intact; once the holder exits, the lock is free, and the
# guest writes "released" and waits for the host's "verified".

# wait_for NAME SECONDS: poll the directory (from the server, not the
# cache) until NAME shows up. Reading "held" each time sends a READ with
# the open's stateid: that is what makes a 4.0 client (no SEQUENCE) see
# the restart (STALE_STATEID) before its next RENEW, up to a minute away.
wait_for() {
	_i=0
	while [ $_i -lt "$2" ]; do
		drop_caches
		cat held >/dev/null 2>&1
		ls -a 2>/dev/null | grep -qx "$1" && return 0
		sleep 1
		_i=$((_i + 1))
	done
	return 1
}

echo "reclaim data" > held
step sync_held sync
khelper lock held 600 &
LPID=$!
sleep 3
check holder_running kill -0 $LPID
# exit 1 = the lock is held (2 would be a failed open)
check lock_held_before sh -c 'khelper lock held 0 try; [ $? = 1 ]'
step write_ready sh -c 'echo $$ > ready && sync'

# the host restarts nasd now; keep asking the server meanwhile
step wait_restarted wait_for restarted 400
check holder_alive_after_restart kill -0 $LPID
check lock_held_after_restart sh -c 'khelper lock held 0 try; [ $? = 1 ]'
drop_caches
check data_intact [ "$(cat held)" = "reclaim data" ]
# writing through a new open of the same file works after the restart
step append_after_restart sh -c 'echo more >> held && sync'

kill $LPID
wait $LPID
sleep 1
# the reclaimed lock can be released: another process takes it now
step lock_after_release khelper lock held 0 try
step write_released sh -c 'echo done > released && sync'
step wait_verified wait_for verified 120
grep -i "reclaim" /proc/self/mountstats 2>/dev/null | head -n 3
kc_summary
