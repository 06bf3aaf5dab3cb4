# kclient workload for NFSv4 (sourced inside the guest by ../shared/kclient;
# cwd = $WORK on the mount; step/check/drop_caches/kc_summary from
# guest-lib.sh; busybox tools only). With PROTO=nfs42: fallocate through
# ALLOCATE, a sparse file written with holes and read back (READ/READ_PLUS
# over holes, SEEK), space accounting of the holes. Every PROTO: data
# written and copied with dd/cp and compared, a file the server wrote itself
# (served.bin, so its READs leave the server by sendfile) compared with its
# md5, and an fcntl lock held by one process that a second one cannot take
# until it is released.

# --- data: write, copy, compare ---
dd if=/dev/urandom of=/tmp/ref bs=64k count=40 2>/dev/null
step write_2560KiB_fsync dd if=/tmp/ref of=data bs=64k conv=fsync
step cp_on_mount cp data data.copy
drop_caches
check data_equal cmp /tmp/ref data
check copy_equal cmp /tmp/ref data.copy

# --- a file the server wrote itself (in its page cache: READ by sendfile) ---
drop_caches
check served_present [ -f "$MNT/served.bin" ]
step read_server_cached sh -c "md5sum '$MNT/served.bin' > /tmp/served.md5"
check served_md5 [ "$(cut -d' ' -f1 /tmp/served.md5)" = "$(cat "$MNT/served.md5")" ]

# --- sparse file: 64 KiB data, hole to 1 MiB, 64 KiB data, hole to 3 MiB ---
dd if=/dev/urandom of=/tmp/d1 bs=64k count=1 2>/dev/null
dd if=/dev/urandom of=/tmp/d2 bs=64k count=1 2>/dev/null
mk_sparse() {
	dd if=/tmp/d1 of="$1" bs=64k conv=notrunc 2>/dev/null &&
	dd if=/tmp/d2 of="$1" bs=64k seek=16 conv=notrunc 2>/dev/null &&
	truncate -s 3M "$1"
}
mk_sparse /tmp/sparse.ref
dd if=/dev/zero of=/tmp/zero1m bs=1M count=1 2>/dev/null
head -c 983040 /tmp/zero1m >/tmp/zhole
step sparse_write mk_sparse sparse
step sync sync
drop_caches
step sparse_read_cold sh -c 'md5sum sparse > /tmp/sparse.md5'
check sparse_md5 [ "$(cut -d' ' -f1 /tmp/sparse.md5)" = "$(md5sum /tmp/sparse.ref | cut -d' ' -f1)" ]
check sparse_size [ "$(stat -c %s sparse)" = 3145728 ]
# 128 KiB of data: the holes must not be allocated on the server
check sparse_holes_kept [ "$(du -k sparse | cut -f1)" -lt 1024 ]
check sparse_hole_zeros sh -c 'dd if=sparse bs=64k skip=1 count=15 2>/dev/null | cmp - /tmp/zhole'

if [ "$PROTO" = nfs42 ]; then
	# --- ALLOCATE ---
	step fallocate_4MiB fallocate -l 4194304 falloc
	drop_caches
	check fallocate_size [ "$(stat -c %s falloc)" = 4194304 ]
	check fallocate_blocks [ "$(du -k falloc | cut -f1)" -ge 4096 ]
	check fallocate_reads_zero sh -c 'head -c 1048576 falloc | cmp - /tmp/zero1m'
	step fallocate_inside fallocate -o 1048576 -l 1048576 data
	drop_caches
	check fallocate_inside_size [ "$(stat -c %s data)" = 2621440 ]
	check fallocate_inside_data_kept cmp /tmp/ref data
	step fallocate_extend fallocate -o 2621440 -l 1048576 data
	drop_caches
	check fallocate_extend_size [ "$(stat -c %s data)" = 3670016 ]
	check fallocate_extend_prefix sh -c 'head -c 2621440 data | cmp - /tmp/ref'
	# the client sent ALLOCATE itself (no emulation by writing zeros)
	check allocate_op_sent sh -c "grep -Eq '^[[:space:]]*ALLOCATE: [1-9]' /proc/self/mountstats"
	rm -f falloc
else
	# 4.0/4.1 have no ALLOCATE: the client must refuse, not corrupt
	if fallocate -l 65536 falloc 2>/dev/null; then
		echo "NOTE fallocate succeeded on $PROTO (client emulation)"
	fi
	rm -f falloc
fi

# --- byte-range lock: held by one process, refused to another ---
echo lock > lockfile
khelper lock lockfile 6 &
LPID=$!
sleep 2
# exit 1 = the lock is held (2 would be a failed open)
check lock_conflict_refused sh -c 'khelper lock lockfile 0 try; [ $? = 1 ]'
wait $LPID
check lock_holder_exit_0 [ $? = 0 ]
step lock_after_release khelper lock lockfile 0 try

rm -f data data.copy sparse lockfile /tmp/ref /tmp/sparse.ref /tmp/d1 /tmp/d2 /tmp/zero1m /tmp/zhole
kc_summary
