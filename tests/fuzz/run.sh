#!/bin/bash
# Run every libFuzzer target for a bounded time (CI and `make fuzz`).
#
# usage: tests/fuzz/run.sh [SECONDS] [TARGET...]
#   SECONDS  per target (default 20); TARGETs default to all of them
#   env BUILD_FUZZ  build directory (default build-fuzz), configured here
#                   with clang, ASan+UBSan and -Dfuzz=true if needed
#
# Each target first replays its regression inputs (tests/fuzz/regressions/
# TARGET/), then fuzzes a scratch copy of its seed corpus (tests/fuzz/
# corpus/TARGET/; the tree's corpus never grows). One line per target:
#   fuzz TARGET: N execs, 0 crashes
# A crash, leak, UBSan report, timeout or failed check is a failure: its
# input is kept in BUILD_FUZZ/fuzz-artifacts/TARGET/ and the exit status is
# 1. Exit 77: cannot run here (no clang/libFuzzer, not root), with why.
set -u

SECONDS_EACH=${1:-20}
[ $# -gt 0 ] && shift
ALL_TARGETS="fuzz_record fuzz_rpc fuzz_rpc_rw fuzz_nfs3_args fuzz_mount_args fuzz_nlm_args fuzz_exports fuzz_nfs4 fuzz_spnego fuzz_ntlmssp fuzz_smb2_fscc fuzz_smb2 fuzz_cb_reply"
TARGETS=${*:-$ALL_TARGETS}

cd "$(dirname "$0")/../.." || exit 1
ROOT=$PWD
BUILD=${BUILD_FUZZ:-build-fuzz}
FUZZDIR=$ROOT/tests/fuzz

case $SECONDS_EACH in
'' | *[!0-9]*)
	echo "usage: $0 [SECONDS] [TARGET...]" >&2
	exit 2
	;;
esac

# input size limit per target, bytes
max_len() {
	case $1 in
	fuzz_record) echo 65536 ;;
	fuzz_rpc | fuzz_rpc_rw | fuzz_nfs4 | fuzz_smb2) echo 16384 ;;
	fuzz_nfs3_args | fuzz_nlm_args) echo 8192 ;;
	fuzz_mount_args) echo 2048 ;;
	fuzz_spnego) echo 4096 ;;
	fuzz_ntlmssp) echo 8192 ;;
	*) echo 4096 ;;
	esac
}

# seed corpus directory per target (the rw RPC target shares fuzz_rpc's)
corpus_of() {
	case $1 in
	fuzz_rpc_rw) echo "$FUZZDIR/corpus/fuzz_rpc" ;;
	*) echo "$FUZZDIR/corpus/$1" ;;
	esac
}

if ! command -v clang >/dev/null; then
	echo "fuzz: skipped: clang not installed"
	exit 77
fi
if ! echo 'int LLVMFuzzerTestOneInput(const char *d, long s){return 0;}' |
	clang -x c -fsanitize=fuzzer -o /dev/null - 2>/dev/null; then
	echo "fuzz: skipped: clang cannot link libFuzzer (libclang-rt-*-dev)"
	exit 77
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "fuzz: skipped: fuzz_rpc needs root (open_by_handle_at)"
	exit 77
fi

if [ ! -f "$BUILD/build.ninja" ]; then
	CC=clang meson setup "$BUILD" -Dfuzz=true -Dceph=disabled \
		-Db_sanitize=address,undefined -Db_lundef=false >/dev/null ||
		{ echo "fuzz: meson setup $BUILD failed"; exit 1; }
fi
ninja_targets=""
for t in $TARGETS; do
	ninja_targets="$ninja_targets tests/fuzz/$t"
done
# shellcheck disable=SC2086
if ! ninja -C "$BUILD" $ninja_targets >"$BUILD/fuzz-build.log" 2>&1; then
	tail -n 30 "$BUILD/fuzz-build.log"
	echo "fuzz: build failed (is $BUILD configured with -Dfuzz=true?)"
	exit 1
fi

SCRATCH=$(mktemp -d /tmp/nasd-fuzz.XXXXXX)
trap 'rm -rf "$SCRATCH"' EXIT
export TMPDIR=$SCRATCH/tmp
mkdir -p "$TMPDIR"
# UB is a finding, as a crash is.
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}

failed=0
for t in $TARGETS; do
	bin=$BUILD/tests/fuzz/$t
	work=$SCRATCH/$t
	art=$ROOT/$BUILD/fuzz-artifacts/$t
	mkdir -p "$work/corpus" "$work/art"
	# A crash inside a handler leaves the thread with the caller's
	# fsuid, and libFuzzer writes the input from that thread.
	chmod 1777 "$work/art"

	# Regressions first: each must now run clean.
	bad=""
	for r in "$FUZZDIR/regressions/$t"/*; do
		[ -f "$r" ] || continue
		if ! "$bin" "$r" >"$work/regress.log" 2>&1; then
			grep -E -m 5 'ERROR|runtime error|check failed|SUMMARY' \
				"$work/regress.log"
			bad="$bad ${r#"$ROOT"/}"
		fi
	done
	if [ -n "$bad" ]; then
		echo "fuzz $t: 0 execs, 1 crashes (regression fails again:$bad)"
		failed=1
		continue
	fi

	corpus=$(corpus_of "$t")
	[ -d "$corpus" ] && cp -r "$corpus/." "$work/corpus/"
	"$bin" -max_total_time="$SECONDS_EACH" -max_len="$(max_len "$t")" \
		-timeout=10 -rss_limit_mb=2048 -error_exitcode=99 \
		-timeout_exitcode=98 -print_final_stats=1 \
		-artifact_prefix="$work/art/" "$work/corpus" \
		>"$work/log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" |
		tail -n 1)
	[ -z "$execs" ] && execs=$(grep -o '^#[0-9]*' "$work/log" |
		tail -n 1 | tr -d '#')
	crashes=$(find "$work/art" -type f | wc -l)
	if [ "$rc" -ne 0 ] && [ "$crashes" -eq 0 ]; then
		crashes=1 # died without an artifact (e.g. in set-up)
	fi
	if [ "$rc" -ne 0 ]; then
		failed=1
		mkdir -p "$art"
		cp "$work/art/"* "$art/" 2>/dev/null
		cp "$work/log" "$art/log"
		grep -E -m 5 'ERROR|runtime error|check failed|SUMMARY' \
			"$work/log"
		echo "fuzz $t: ${execs:-0} execs, $crashes crashes" \
			"(exit $rc; inputs and log in $art)"
	else
		echo "fuzz $t: ${execs:-0} execs, 0 crashes"
	fi
done
exit $failed
