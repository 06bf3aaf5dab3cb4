#!/bin/bash
# Adaptive io=auto (README, "The data path"): large NFSv3 WRITEs go
# through the page cache while the cache is under --cache-budget, and
# O_DIRECT once it is reached; nasd stats says which. Checked with what
# the kernel holds (fincore) after nasd-bench wrote 1 MiB requests:
#   - --cache-budget 90%: buffered; the file written is in the page cache;
#   - --cache-budget 0: direct; the file written is not;
#   - a budget 48 MiB above the cache nasd sees at start: 128 MiB written
#     cross it, io=auto switches to direct during the run and stays there;
#   - nasd moved into a memory cgroup of 512 MiB (as root, v2 or v1): its
#     default budget becomes 20% of that limit, and 256 MiB written take
#     it to direct, with the cgroup's memory under its limit.
# Skips (77) without fincore or nasd-bench.
NASD=${1:?usage: $0 NASD}
. "$(dirname "$0")/lib.sh"

BENCH=$(dirname "$NASD")/nasd-bench
command -v fincore >/dev/null 2>&1 || t_skip "fincore (util-linux) not installed"
[ -x "$BENCH" ] || t_skip "no nasd-bench next to $NASD"
t_init autoio

PORT=$(t_port $((31000 + RANDOM % 8000))) || exit 1
EXP=$T_DIR/exp
mkdir -p "$EXP"
chmod 777 "$EXP"
URL="nfs://127.0.0.1$EXP?version=3&nfsport=$PORT&mountport=$PORT"

# nstat NAME: a value of `nasd stats`
nstat() {
	"$NASD" stats --state-dir "$T_DIR/state" 2>/dev/null |
		tr ',' '\n' | sed -n "s/^ *$1 \([0-9]*\)$/\1/p"
}

# cached_pct FILE: the share of FILE's bytes in the page cache
cached_pct() {
	local res size
	res=$(fincore -b -n -o RES "$1" 2>/dev/null | tr -d ' ')
	size=$(stat -c %s "$1")
	[ -n "$res" ] && [ "$size" -gt 0 ] && echo $((res * 100 / size)) || echo -1
}

run() {	# run BUDGET PREFIX SIZE: nasd with that budget writes PREFIX files
	local budget=$1 prefix=$2 size=$3
	nasd_start "$PORT" --listen "127.0.0.1:$PORT" --mountd-port "$PORT" \
		--smb-listen 0 --state-dir "$T_DIR/state" \
		--export "$EXP:rw,no_root_squash" --cache-budget "$budget" ||
		t_finish
	# run_in_cgroup: nasd joins it (io=auto looks again at every sample)
	[ -n "${CG:-}" ] && echo "$NASD_PID" >"$CG/cgroup.procs"
	sleep 0.5
	AT_START_BUFFERED=$(nstat io_auto_buffered)
	AT_START_CACHE=$(nstat io_auto_cache_bytes)
	"$BENCH" -q -j 1 -d 8 --bs 1m -s "$size" --prefix "$prefix" \
		seq-write "$URL" >"$T_DIR/bench.$prefix.out" 2>&1 ||
		t_fail "bench_$prefix" "$(tail -n 3 "$T_DIR/bench.$prefix.out")"
	AT_END_BUFFERED=$(nstat io_auto_buffered)
	SWITCHES=$(nstat io_auto_switches_total)
	nasd_stop
}

run 90% big 32m
t_eq "budget_90pct_starts_buffered" 1 "$AT_START_BUFFERED"
f=$(ls "$EXP"/big* 2>/dev/null | head -n 1)
pct=$(cached_pct "$f")
t_log "budget 90%: $pct% of the file cached"
t_check "budget_90pct_file_in_page_cache" [ "$pct" -ge 90 ]

run 0 none 32m
t_eq "budget_0_direct" 0 "$AT_START_BUFFERED"
f=$(ls "$EXP"/none* 2>/dev/null | head -n 1)
pct=$(cached_pct "$f")
t_log "budget 0: $pct% of the file cached"
t_check "budget_0_file_not_cached" [ "$pct" -ge 0 -a "$pct" -le 10 ]

# A budget 48 MiB above what is cached now: the run crosses it.
run 90% probe 1m
budget=$((AT_START_CACHE + (48 << 20)))
run "$budget" cross 128m
t_eq "budget_near_starts_buffered" 1 "$AT_START_BUFFERED"
t_eq "budget_crossed_goes_direct" 0 "$AT_END_BUFFERED"
t_check "budget_crossed_switch_counted" [ "${SWITCHES:-0}" -ge 1 ]
f=$(ls "$EXP"/cross* 2>/dev/null | head -n 1)
pct=$(cached_pct "$f")
t_log "budget crossed: $pct% of the file cached, $SWITCHES switches"
t_check "budget_crossed_file_partly_cached" [ "$pct" -ge 10 -a "$pct" -le 80 ]

# In a memory cgroup of 512 MiB, with the default budget (20%).
CG=
CG_LIMIT=$((512 << 20))
if [ "$(id -u)" != 0 ]; then
	t_log "not root: the cgroup case is left out"
elif [ -f /sys/fs/cgroup/cgroup.controllers ] &&
	grep -qw memory /sys/fs/cgroup/cgroup.controllers; then
	grep -qw memory /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null ||
		echo +memory >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
	CG=/sys/fs/cgroup/nasd-autoio-$$
	mkdir "$CG" 2>/dev/null && echo "$CG_LIMIT" >"$CG/memory.max" || CG=
elif [ -d /sys/fs/cgroup/memory ]; then
	CG=/sys/fs/cgroup/memory/nasd-autoio-$$
	mkdir "$CG" 2>/dev/null && echo "$CG_LIMIT" >"$CG/memory.limit_in_bytes" || CG=
fi
if [ -n "$CG" ]; then
	CG_CLEAN=$CG
	# lib.sh's cleanup (which stops nasd) first, then the cgroup
	trap 'rc=$?; (exit $rc); t_cleanup; [ -z "${CG_CLEAN:-}" ] || rmdir "$CG_CLEAN" 2>/dev/null' EXIT
	nasd_start "$PORT" --listen "127.0.0.1:$PORT" --mountd-port "$PORT" \
		--smb-listen 0 --state-dir "$T_DIR/state" \
		--export "$EXP:rw,no_root_squash" || t_finish
	echo "$NASD_PID" >"$CG/cgroup.procs"
	sleep 0.6
	t_eq "cgroup_budget_is_20pct_of_limit" $((CG_LIMIT / 100 * 20)) \
		"$(nstat io_auto_cache_budget_bytes)"
	"$BENCH" -q -j 1 -d 8 --bs 1m -s 256m --prefix cg \
		seq-write "$URL" >"$T_DIR/bench.cg.out" 2>&1 ||
		t_fail "bench_cg" "$(tail -n 3 "$T_DIR/bench.cg.out")"
	sleep 0.3
	t_eq "cgroup_goes_direct" 0 "$(nstat io_auto_buffered)"
	cache=$(nstat io_auto_cache_bytes)
	t_log "cgroup: cache charged $((cache >> 20)) MiB, budget $((CG_LIMIT / 5 >> 20)) MiB, $(nstat io_auto_switches_total) switches"
	t_check "cgroup_switch_counted" [ "$(nstat io_auto_switches_total)" -ge 1 ]
	t_check "cgroup_cache_near_budget" [ "${cache:-0}" -le $((CG_LIMIT / 5 + (64 << 20))) ]
	nasd_stop
	# nasd gone: the cgroup can go (a leftover page-cache charge moves)
	rmdir "$CG" 2>/dev/null && CG_CLEAN=
else
	t_log "no memory cgroup could be made: the cgroup case is left out"
fi
t_finish
