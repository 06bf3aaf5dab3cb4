#!/bin/bash
# Data path under concurrency (DESIGN.md §4): many libnfs connections write
# one file with unaligned, disjoint and overlapping ranges, UNSTABLE writes
# and COMMIT, to an io=direct and an io=buffered export; each file is
# verified byte for byte through NFS and on disk (datapath_tool). Then the
# page cache: the io=direct file must have (almost) no resident pages
# (fincore), while the io=buffered one does, which shows that the check
# can see them. A small --max-memory keeps the buffer pool near its
# ceiling meanwhile.
# usage: test_datapath.sh NASD DATAPATH_TOOL
NASD=${1:?usage: $0 NASD DATAPATH_TOOL}
TOOL=${2:?usage: $0 NASD DATAPATH_TOOL}
. "$(dirname "$0")/lib.sh"
t_init datapath

command -v fincore >/dev/null || t_skip "fincore not installed (util-linux)"
[ "$(id -u)" = 0 ] || t_skip "needs root (nasd serves files as their owners)"

PORT=$(t_port 14049) || exit 1
mkdir -p "$T_DIR/direct" "$T_DIR/buffered" "$T_DIR/state"
chmod 755 "$T_DIR/direct" "$T_DIR/buffered"
probe=$T_DIR/direct/.probe
if ! dd if=/dev/zero of="$probe" bs=4096 count=1 oflag=direct 2>/dev/null; then
	t_skip "$T_DIR: no O_DIRECT on this filesystem"
fi
rm -f "$probe"

nasd_start "$PORT" --listen "127.0.0.1:$PORT" --mountd-port 0 \
	--state-dir "$T_DIR/state" --max-memory 24M \
	--export "$T_DIR/direct:rw,no_root_squash,io=direct" \
	--export "$T_DIR/buffered:rw,no_root_squash,io=buffered" || t_finish
t_ok "nasd_started"

SIZE=$((48 * 1024 * 1024 + 12345))
for mode in direct buffered; do
	out=$(timeout 300 "$TOOL" "$PORT" "$T_DIR/$mode" "$T_DIR/$mode" \
		/dp.bin "$SIZE" 8 2>&1)
	rc=$?
	echo "$out" | sed "s/^/# $mode: /"
	if [ $rc -eq 0 ]; then
		t_ok "datapath_$mode"
	else
		t_fail "datapath_$mode" "$(echo "$out" | grep 'not ok' | head -n 5 | tr '\n' ' ')"
	fi
done

# fincore RES is in bytes with --bytes; pages of the file in the cache.
res() { fincore --bytes --noheadings --output RES "$1" | tr -d ' '; }
rd=$(res "$T_DIR/direct/dp.bin")
rb=$(res "$T_DIR/buffered/dp.bin")
t_log "resident: direct $rd bytes, buffered $rb bytes of $SIZE"
if [ -n "$rd" ] && [ "$rd" -lt $((SIZE / 50)) ]; then
	t_ok "direct_no_page_cache"
else
	t_fail "direct_no_page_cache" "$rd of $SIZE bytes resident"
fi
if [ -n "$rb" ] && [ "$rb" -gt $((SIZE / 2)) ]; then
	t_ok "buffered_uses_page_cache"
else
	t_fail "buffered_uses_page_cache" "only $rb of $SIZE bytes resident: the check cannot see the cache"
fi

nasd_stop
t_finish
