#!/bin/bash
# Run the whole suite: every meson test (unit + integration) in the normal
# build, everything but suite 'slow' in the ASan+UBSan build, each
# libFuzzer target briefly (FUZZ_SECONDS, default 20; 0 = not run), and
# cppcheck and clang-tidy (tests/static/run.sh; STATIC_ANALYSIS=0: not run).
# The last line printed is "N passed, N failed, N skipped"; the exit status
# is non-zero if any test failed or timed out, or a build/test run broke.
#
# usage: tests/run-all.sh BUILD_DIR [ASAN_BUILD_DIR]
set -u

BUILD=${1:?usage: $0 BUILD_DIR [ASAN_BUILD_DIR]}
ASAN_BUILD=${2:-}
cd "$(dirname "$0")/.." || exit 1

PASSED=0
FAILED=0
SKIPPED=0
LOGDIR=$(mktemp -d /tmp/nasd-run-all.XXXXXX)
trap 'rm -rf "$LOGDIR"' EXIT

# summary_value LOG KEY: the number after "KEY:" in meson's summary.
summary_value() {
	local v
	v=$(grep -E "^$2:[[:space:]]+[0-9]+" "$1" | tail -n 1 | awk '{print $NF}')
	echo "${v:-0}"
}

# run_meson NAME DIR ARGS...: run one "meson test" and add up its summary.
run_meson() {
	local name=$1 dir=$2 log rc ok xfail fail xpass skip tmo
	shift 2
	log=$LOGDIR/$name.log
	echo "=== meson test -C $dir --print-errorlogs $*"
	meson test -C "$dir" --print-errorlogs "$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	if ! grep -q -E '^Ok:[[:space:]]+[0-9]+' "$log"; then
		echo "=== $name: meson test produced no summary (exit $rc): counted as 1 failure"
		FAILED=$((FAILED + 1))
		return
	fi
	ok=$(summary_value "$log" "Ok")
	xfail=$(summary_value "$log" "Expected Fail")
	fail=$(summary_value "$log" "Fail")
	xpass=$(summary_value "$log" "Unexpected Pass")
	skip=$(summary_value "$log" "Skipped")
	tmo=$(summary_value "$log" "Timeout")
	PASSED=$((PASSED + ok + xfail))
	FAILED=$((FAILED + fail + xpass + tmo))
	SKIPPED=$((SKIPPED + skip))
	if [ "$rc" -ne 0 ] && [ $((fail + xpass + tmo)) -eq 0 ]; then
		echo "=== $name: meson test exited $rc with no failed test: counted as 1 failure"
		FAILED=$((FAILED + 1))
	fi
	echo "=== $name: ok $ok, fail $fail, timeout $tmo, skipped $skip"
	digest_failures "$name" "$dir"
}

# digest_failures NAME DIR: keep the names and the last lines of every
# failed or timed-out test of this meson run, printed again at the very end
# so that a log cut to its tail (CI) still says what failed and why.
digest_failures() {
	python3 - "$1" "$2/meson-logs/testlog.json" >>"$LOGDIR/digest" <<'PY'
import json, sys
name, path = sys.argv[1], sys.argv[2]
try:
    lines = open(path).read().splitlines()
except OSError:
    sys.exit(0)
for line in lines:
    try:
        t = json.loads(line)
    except ValueError:
        continue
    if t.get("result") in ("OK", "SKIP", "EXPECTEDFAIL"):
        continue
    out = (t.get("stdout") or "").splitlines()
    err = (t.get("stderr") or "").splitlines()
    print(f"--- {name}: {t.get('name')} {t.get('result')} "
          f"(rc {t.get('returncode')}, {t.get('duration', 0):.0f} s)")
    for l in (out + err)[-40:]:
        print("    " + l[:300])
PY
}

if [ ! -f "$BUILD/build.ninja" ]; then
	echo "=== $BUILD is not a configured meson build dir"
	FAILED=$((FAILED + 1))
else
	run_meson normal "$BUILD"
fi
if [ -n "$ASAN_BUILD" ]; then
	if [ ! -f "$ASAN_BUILD/build.ninja" ]; then
		echo "=== $ASAN_BUILD is not a configured meson build dir"
		FAILED=$((FAILED + 1))
	else
		run_meson asan "$ASAN_BUILD" --no-suite slow
	fi
fi

# Fuzzers: one result per target ("fuzz T: N execs, 0 crashes").
FUZZ_SECONDS=${FUZZ_SECONDS:-20}
if [ "$FUZZ_SECONDS" != 0 ]; then
	echo "=== tests/fuzz/run.sh $FUZZ_SECONDS"
	tests/fuzz/run.sh "$FUZZ_SECONDS" 2>&1 | tee "$LOGDIR/fuzz.log"
	rc=${PIPESTATUS[0]}
	ok=$(grep -cE '^fuzz [a-z0-9_]+: [0-9]+ execs, 0 crashes' "$LOGDIR/fuzz.log")
	bad=$(grep -E '^fuzz [a-z0-9_]+: ' "$LOGDIR/fuzz.log" |
		grep -cvE ': [0-9]+ execs, 0 crashes')
	if [ "$rc" -eq 77 ]; then
		SKIPPED=$((SKIPPED + 1))
	elif [ "$rc" -ne 0 ] && [ "$bad" -eq 0 ]; then
		FAILED=$((FAILED + 1))
	fi
	PASSED=$((PASSED + ok))
	FAILED=$((FAILED + bad))
	grep -E '^fuzz [a-z0-9_]+: ' "$LOGDIR/fuzz.log" |
		grep -vE ': [0-9]+ execs, 0 crashes' | sed 's/^/--- /' >>"$LOGDIR/digest"
	echo "=== fuzz: ok $ok, fail $bad (exit $rc)"
fi

# Static analysis: one result per tool ("static T: 0 findings").
if [ "${STATIC_ANALYSIS:-1}" != 0 ]; then
	echo "=== tests/static/run.sh"
	tests/static/run.sh 2>&1 | tee "$LOGDIR/static.log"
	rc=${PIPESTATUS[0]}
	ok=$(grep -cE '^static [a-z-]+: 0 findings' "$LOGDIR/static.log")
	bad=$(grep -E '^static [a-z-]+: [0-9]+ findings' "$LOGDIR/static.log" |
		grep -cvE ': 0 findings')
	skip=$(grep -cE '^static( [a-z-]+)?: skipped' "$LOGDIR/static.log")
	if [ "$rc" -eq 77 ]; then
		SKIPPED=$((SKIPPED + (skip > 0 ? skip : 1)))
	elif [ "$rc" -ne 0 ] && [ "$bad" -eq 0 ]; then
		FAILED=$((FAILED + 1))
	fi
	PASSED=$((PASSED + ok))
	FAILED=$((FAILED + bad))
	grep -E '^static [a-z-]+: [0-9]+ findings' "$LOGDIR/static.log" |
		grep -vE ': 0 findings' | sed 's/^/--- /' >>"$LOGDIR/digest"
	echo "=== static: ok $ok, fail $bad (exit $rc)"
fi

if [ -s "$LOGDIR/digest" ]; then
	echo "=== failed tests (last lines of each)"
	cat "$LOGDIR/digest"
fi
echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"
[ "$FAILED" -eq 0 ]
