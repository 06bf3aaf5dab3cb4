# kclient workload for SMB3 (sourced inside the guest by ../shared/kclient;
# cwd = $WORK on the cifs mount; step/check/drop_caches/kc_summary from
# guest-lib.sh; busybox tools only): 1000 files listed with ls -l, data
# copied and compared, a file the server wrote itself, rename over an
# existing file, truncate up and down, a file removed while another
# process still reads it, an fcntl lock one process holds that a second
# one cannot take until it is released (SMB2 LOCK on two opens), a
# sparse file read back with its holes as zeros, and, with kc_fileops,
# copy_file_range, cp --reflink=auto, a punched hole found by SEEK_HOLE
# and SEEK_DATA, and fallocate.

# --- 1000 files ---
mkdir many
mk_many() { i=1; while [ $i -le 1000 ]; do echo "n$i" > many/f$i || return 1; i=$((i+1)); done; }
step create_1000 mk_many
drop_caches
step ls_l_1000 sh -c 'ls -l many > /tmp/ls.out'
check ls_l_1000_count [ "$(grep -c ' f[0-9]*$' /tmp/ls.out)" = 1000 ]
check file_777_content [ "$(cat many/f777)" = n777 ]
step rm_1000 sh -c 'rm -f many/f*'
check many_empty [ -z "$(ls -A many)" ]
step rmdir_many rmdir many

# --- data: write, copy, compare ---
dd if=/dev/urandom of=/tmp/ref bs=64k count=40 2>/dev/null
step write_2560KiB_fsync dd if=/tmp/ref of=data bs=64k conv=fsync
step cp_on_mount cp data data.copy
drop_caches
check data_equal cmp /tmp/ref data
check copy_equal cmp /tmp/ref data.copy

# --- a file the server wrote itself ---
check served_present [ -f "$MNT/served.bin" ]
step read_server_file sh -c "md5sum '$MNT/served.bin' > /tmp/served.md5"
check served_md5 [ "$(cut -d' ' -f1 /tmp/served.md5)" = "$(cat "$MNT/served.md5")" ]

# --- rename over, truncate ---
echo one > a1
echo two > a2
step rename_over mv a1 a2
check rename_over_result [ "$(cat a2)" = one -a ! -e a1 ]
step truncate_up truncate -s 1000000 a2
check truncate_up_size [ "$(stat -c %s a2)" = 1000000 ]
step truncate_down truncate -s 2 a2
drop_caches
check truncate_down_content [ "$(cat a2)" = on ]

# --- remove a file another process still has open ---
dd if=/tmp/ref of=held bs=64k count=4 2>/dev/null
( exec 3<held; sleep 3; dd bs=64k count=4 <&3 2>/dev/null | md5sum > /tmp/held.md5 ) &
holder=$!
sleep 1
step rm_open_file rm held
wait $holder
check rm_open_file_reader_kept [ "$(cut -d' ' -f1 /tmp/held.md5)" = "$(head -c 262144 /tmp/ref | md5sum | cut -d' ' -f1)" ]
check rm_open_file_gone [ ! -e held ]

# --- fcntl lock across two processes ---
echo lockme > lk
khelper lock lk 4 try >/tmp/lock1.out 2>&1 &
locker=$!
sleep 2
check lock_conflicts sh -c '! khelper lock lk 0 try >/tmp/lock2.out 2>&1 && grep -qE "errno (11|13)" /tmp/lock2.out'
wait $locker
check lock_first_ok [ $? = 0 ]
step lock_after_release khelper lock lk 0 try

# --- sparse: data, a hole to 1 MiB, data, a hole to 3 MiB ---
dd if=/dev/urandom of=/tmp/d1 bs=64k count=1 2>/dev/null
mk_sparse() {
	dd if=/tmp/d1 of="$1" bs=64k conv=notrunc 2>/dev/null &&
	dd if=/tmp/d1 of="$1" bs=64k seek=16 conv=notrunc 2>/dev/null &&
	truncate -s 3M "$1"
}
mk_sparse /tmp/sparse.ref
step sparse_write mk_sparse sparse
drop_caches
check sparse_md5 [ "$(md5sum < sparse)" = "$(md5sum < /tmp/sparse.ref)" ]
check sparse_size [ "$(stat -c %s sparse)" = 3145728 ]

# --- server-side copy, clone, punch, SEEK_HOLE, fallocate: SMB2 IOCTLs
# and SET_INFO (kc_fileops, carried in by test_smb_kclient.sh) ---
if [ -x /tmp/kc_fileops ]; then
	dd if=/dev/urandom of=/tmp/cf bs=64k count=32 2>/dev/null
	head -c 524288 /tmp/cf >/tmp/cf.head
	tail -c 524288 /tmp/cf >/tmp/cf.tail
	dd if=/dev/zero of=/tmp/z1m bs=64k count=16 2>/dev/null
	cp /tmp/cf cfsrc
	step copy_file_range /tmp/kc_fileops copy cfsrc cfdst
	step reflink_auto /tmp/kc_fileops reflink cfsrc cfref
	drop_caches
	check copy_file_range_bytes cmp /tmp/cf cfdst
	check reflink_auto_bytes cmp /tmp/cf cfref
	step punch_hole /tmp/kc_fileops punch cfsrc 524288 1048576
	drop_caches
	check punch_keeps_size [ "$(stat -c %s cfsrc)" = 2097152 ]
	check punch_reads_zero sh -c 'dd if=cfsrc bs=64k skip=8 count=16 2>/dev/null | cmp - /tmp/z1m'
	check punch_keeps_head sh -c 'head -c 524288 cfsrc | cmp - /tmp/cf.head'
	check punch_keeps_tail sh -c 'tail -c 524288 cfsrc | cmp - /tmp/cf.tail'
	check seek_hole_finds_punch [ "$(/tmp/kc_fileops seek cfsrc 0 hole)" = 524288 ]
	check seek_data_after_punch [ "$(/tmp/kc_fileops seek cfsrc 524288 data)" = 1572864 ]
	step fallocate_4MiB fallocate -l 4194304 falloc
	check fallocate_size [ "$(stat -c %s falloc)" = 4194304 ]
	rm -f cfsrc cfdst cfref falloc
else
	check kc_fileops_carried_in false
fi

rm -f data data.copy a2 lk sparse
kc_summary
