# shellcheck shell=bash
# Shared helpers for the integration tests (sourced, never run).
#
# A test does:
#     . "$(dirname "$0")/lib.sh"
#     t_init NAME                   # temp dir $T_DIR, cleanup trap
#     nasd_start PORT ARGS...       # start $NASD in the foreground, wait
#     t_check NAME CMD...           # one assertion
#     nasd_stop                     # SIGTERM, require exit 0, no sanitizer
#     t_finish                      # exit 1 if anything failed
#
# Each check prints "ok - NAME" or "not ok - NAME: DETAIL". Exit 77 = skip.

set -u

T_FAILS=0
T_PASSES=0
T_DIR=
NASD_PID=
NASD_LOG=
NASD_RUNS=0

# Our client helpers link uninstrumented libnfs: leak checks there would
# report libnfs's own allocations, so they are off for everything but nasd.
export ASAN_OPTIONS=${ASAN_OPTIONS_CLIENT:-detect_leaks=0:halt_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS_CLIENT:-halt_on_error=1:print_stacktrace=1}
NASD_ASAN_OPTIONS=${NASD_ASAN_OPTIONS:-halt_on_error=1:abort_on_error=0:detect_leaks=1:exitcode=66}
NASD_UBSAN_OPTIONS=${NASD_UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
SANITIZER_RE='ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|SUMMARY: (AddressSanitizer|UndefinedBehaviorSanitizer|LeakSanitizer)'

t_log() { echo "# $*"; }

t_ok() {
	echo "ok - $1"
	T_PASSES=$((T_PASSES + 1))
}

t_fail() {
	echo "not ok - $1: ${2:-}"
	T_FAILS=$((T_FAILS + 1))
}

# t_check NAME CMD...: run CMD; pass if it exits 0.
t_check() {
	local name=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	if [ $rc -eq 0 ]; then
		t_ok "$name"
	else
		t_fail "$name" "'$*' exited $rc: $(echo "$out" | tail -n 5 | tr '\n' ' ')"
	fi
	return $rc
}

# t_eq NAME EXPECTED GOT
t_eq() {
	if [ "$2" = "$3" ]; then
		t_ok "$1"
	else
		t_fail "$1" "expected '$2', got '$3'"
	fi
}

t_skip() {
	echo "SKIP: $*"
	exit 77
}

t_die() {
	t_fail "$1" "${2:-}"
	t_finish
}

t_cleanup() {
	local rc=$?
	if [ -n "$NASD_PID" ] && kill -0 "$NASD_PID" 2>/dev/null; then
		kill -9 "$NASD_PID" 2>/dev/null
		wait "$NASD_PID" 2>/dev/null
	fi
	if [ -n "$T_DIR" ] && [ -d "$T_DIR" ]; then
		if [ $rc -ne 0 ] && [ $rc -ne 77 ]; then
			for f in "$T_DIR"/nasd.*.log; do
				[ -f "$f" ] || continue
				echo "----- last lines of $f"
				tail -n 40 "$f"
			done
		fi
		if [ -z "${KEEP_TMP:-}" ]; then
			rm -rf "$T_DIR"
		else
			echo "# kept $T_DIR"
		fi
	fi
}

# t_init NAME: make $T_DIR (traversable by every uid) and set the trap.
t_init() {
	T_DIR=$(mktemp -d "/tmp/nasd-test-$1.XXXXXX") || exit 1
	chmod 755 "$T_DIR"
	trap t_cleanup EXIT
	trap 'exit 1' INT TERM
	[ -x "$NASD" ] || t_die "nasd_binary" "'$NASD' is not executable"
}

t_finish() {
	echo "# $T_PASSES passed, $T_FAILS failed"
	[ "$T_FAILS" -eq 0 ] || exit 1
	exit 0
}

port_in_use() {
	if command -v ss >/dev/null 2>&1; then
		[ -n "$(ss -Htan "sport = :$1" 2>/dev/null | head -n 1)" ]
	else
		(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
	fi
}

port_listening() {
	if command -v ss >/dev/null 2>&1; then
		[ -n "$(ss -Htln "sport = :$1" 2>/dev/null | head -n 1)" ]
	else
		(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
	fi
}

# t_port BASE: the first port >= BASE with no TCP socket on it.
t_port() {
	local p=$1
	while [ "$p" -lt $(($1 + 500)) ]; do
		if ! port_in_use "$p"; then
			echo "$p"
			return 0
		fi
		p=$((p + 1))
	done
	echo "no free port near $1" >&2
	return 1
}

# nasd_start PORT ARGS...: run "$NASD --foreground ARGS..." with its output
# in $T_DIR/nasd.N.log and wait until PORT listens. Fails the test if the
# server dies or does not listen within 20 s.
nasd_start() {
	local port=$1 i
	shift
	NASD_RUNS=$((NASD_RUNS + 1))
	NASD_LOG=$T_DIR/nasd.$NASD_RUNS.log
	echo "# starting: $NASD --foreground $*" >"$NASD_LOG"
	ASAN_OPTIONS=$NASD_ASAN_OPTIONS UBSAN_OPTIONS=$NASD_UBSAN_OPTIONS \
		"$NASD" --foreground "$@" >>"$NASD_LOG" 2>&1 &
	NASD_PID=$!
	for i in $(seq 1 200); do
		if ! kill -0 "$NASD_PID" 2>/dev/null; then
			wait "$NASD_PID"
			t_fail "nasd_start" "nasd exited with $? before listening on $port; log:"
			tail -n 30 "$NASD_LOG"
			NASD_PID=
			return 1
		fi
		if port_listening "$port"; then
			nasd_watch "$NASD_PID"
			return 0
		fi
		sleep 0.1
	done
	t_fail "nasd_start" "nothing listens on port $port after 20 s"
	return 1
}

# nasd_watch PID: if that nasd dies without the test asking for it (see
# nasd_expect_exit), stop the test's other children (its clients) at once:
# a client of a dead server can wait minutes before it gives up, and the
# test should fail now, with the server's log (nasd_stop reports it).
nasd_watch() {
	local pid=$1 self=$$
	(
		exec >/dev/null
		while kill -0 "$pid" 2>/dev/null; do
			sleep 0.2
		done
		# stopped on purpose, or the test is over (its directory gone)
		[ -e "$T_DIR/.nasd-exit.$pid" ] || [ ! -d "$T_DIR" ] && exit 0
		echo "# watchdog: nasd (pid $pid) died on its own: stopping this test's clients" >&2
		for c in $(pgrep -P "$self"); do
			[ "$c" = "$BASHPID" ] || kill -TERM "$c" 2>/dev/null
		done
	) &
}

# nasd_expect_exit: the current nasd is about to be stopped or killed on
# purpose (the watchdog stands down).
nasd_expect_exit() {
	[ -n "$NASD_PID" ] && : >"$T_DIR/.nasd-exit.$NASD_PID"
	return 0
}

# nasd_sanitizer_clean: no sanitizer report in the current log.
nasd_sanitizer_clean() {
	if grep -E -q "$SANITIZER_RE" "$NASD_LOG"; then
		t_fail "nasd_no_sanitizer_report" "$(grep -E -m 3 "$SANITIZER_RE" "$NASD_LOG" | tr '\n' ' ')"
		grep -E -A 25 -m 1 "$SANITIZER_RE" "$NASD_LOG"
		return 1
	fi
	t_ok "nasd_no_sanitizer_report"
}

# nasd_stop: SIGTERM; require exit status 0 within 20 s and a clean log.
nasd_stop() {
	local i rc
	if [ -z "$NASD_PID" ]; then
		t_fail "nasd_stop" "no server running"
		return 1
	fi
	if ! kill -0 "$NASD_PID" 2>/dev/null; then
		wait "$NASD_PID"
		rc=$?
		t_fail "nasd_alive_at_end" "nasd had already exited with $rc"
		NASD_PID=
		nasd_sanitizer_clean
		return 1
	fi
	nasd_expect_exit
	kill -TERM "$NASD_PID"
	for i in $(seq 1 200); do
		kill -0 "$NASD_PID" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$NASD_PID" 2>/dev/null; then
		kill -9 "$NASD_PID"
		wait "$NASD_PID" 2>/dev/null
		NASD_PID=
		t_fail "nasd_sigterm_exit" "still running 20 s after SIGTERM"
		return 1
	fi
	wait "$NASD_PID"
	rc=$?
	NASD_PID=
	t_eq "nasd_sigterm_exit_status" 0 "$rc"
	nasd_sanitizer_clean
}

# nasd_kill9: crash the server (for restart tests).
nasd_kill9() {
	[ -n "$NASD_PID" ] || return 0
	nasd_expect_exit
	kill -9 "$NASD_PID" 2>/dev/null
	wait "$NASD_PID" 2>/dev/null
	NASD_PID=
	nasd_sanitizer_clean
}

# kclient_require: KCLIENT_DIR names ../shared/kclient (next to the
# checkout) unless set; the test is skipped, saying so, without it.
kclient_require() {
	local here top
	if [ -z "${KCLIENT_DIR:-}" ]; then
		here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
		top=$(git -C "$here" rev-parse --show-toplevel 2>/dev/null ||
			(cd "$here/../.." && pwd))
		KCLIENT_DIR=$top/../shared/kclient
	fi
	[ -f "$KCLIENT_DIR/run.sh" ] ||
		t_skip "no kclient harness at $KCLIENT_DIR (set KCLIENT_DIR)"
}

# kclient_with_fileops WORKLOAD OUT: write to OUT a guest workload that
# first unpacks kc_fileops (the file operations busybox lacks, built
# static here) into /tmp/kc_fileops, then runs WORKLOAD; without a
# compiler OUT is WORKLOAD alone (its own check then fails).
kclient_with_fileops() {
	local wl=$1 out=$2 bin=$T_DIR/kc_fileops
	if cc -static -Os -o "$bin" "$(dirname "${BASH_SOURCE[0]}")/kc_fileops.c" \
		2>"$T_DIR/cc.err"; then
		{
			echo "base64 -d >/tmp/kc_fileops <<'KC_B64'"
			base64 "$bin"
			echo "KC_B64"
			echo "chmod 755 /tmp/kc_fileops"
			cat "$wl"
		} >"$out"
		t_ok "kc_fileops_built"
	else
		t_fail "kc_fileops_built" "$(head -n 5 "$T_DIR/cc.err" | tr '\n' ' ')"
		cp "$wl" "$out"
	fi
}

# kclient_results NAME OUTDIR: judge a ../shared/kclient run by its
# results.txt: at least 5 STEP lines, every STEP rc=0, every CHECK ok.
kclient_results() {
	local name=$1 out=$2 nsteps bad badchk
	if [ ! -f "$out/results.txt" ]; then
		t_fail "${name}_results" "no $out/results.txt"
		[ -f "$out/console.log" ] && tail -n 40 "$out/console.log"
		return 1
	fi
	nsteps=$(grep -c '^STEP ' "$out/results.txt")
	bad=$(grep '^STEP ' "$out/results.txt" | grep -v ' rc=0 ')
	badchk=$(grep '^CHECK .*FAILED' "$out/results.txt")
	[ "$nsteps" -ge 5 ] && t_ok "${name}_ran_steps" ||
		t_fail "${name}_ran_steps" "only $nsteps STEP lines"
	[ -z "$bad" ] && t_ok "${name}_every_step_rc0" ||
		t_fail "${name}_every_step_rc0" "$(echo "$bad" | tr '\n' '|')"
	[ -z "$badchk" ] && t_ok "${name}_every_check_ok" ||
		t_fail "${name}_every_check_ok" "$(echo "$badchk" | tr '\n' '|')"
}
