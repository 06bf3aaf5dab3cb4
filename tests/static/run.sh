#!/bin/bash
# Static analysis (CI and `make test`): cppcheck over src/ and tests/, and
# clang-tidy with the checks chosen in .clang-tidy over src/. Both read the
# compile commands of a meson build dir, configured here with clang if
# needed (nothing is compiled). clang-tidy skips tests/: cmocka's assert_*
# return to the caller as far as the analyzer knows, so every path past a
# failed assertion would be reported; cppcheck has no such problem.
#
# usage: tests/static/run.sh [cppcheck|clang-tidy]...   (default: both)
#   env BUILD_STATIC  build directory (default build-static)
#   env STATIC_JOBS   parallel clang-tidy processes (default: nproc)
#   env CPPCHECK, CLANG_TIDY  the tools (default cppcheck; clang-tidy-14,
#                     the version .clang-tidy was tuned for, else clang-tidy)
#
# One line per tool:
#   static TOOL: N findings
# Each finding is printed above it as file:line:col: message [check]. A
# finding is fixed in the code or suppressed inline with its reason:
#   /* NOLINT(check): why */           (clang-tidy)
#   // cppcheck-suppress id ; why      (cppcheck, on the line above)
# Exit 1 if any tool reports a finding (or breaks), 77 if a tool is not
# installed (the line says which), else 0.
set -u

cd "$(dirname "$0")/../.." || exit 1
ROOT=$PWD
BUILD=${BUILD_STATIC:-build-static}
JOBS=${STATIC_JOBS:-$(nproc 2>/dev/null || echo 2)}
TOOLS=${*:-cppcheck clang-tidy}
CPPCHECK=${CPPCHECK:-cppcheck}
CLANG_TIDY=${CLANG_TIDY:-$(command -v clang-tidy-14 || echo clang-tidy)}

FAILED=0
MISSING=0
LOGDIR=$(mktemp -d /tmp/nasd-static.XXXXXX)
trap 'rm -rf "$LOGDIR"' EXIT

if [ ! -f "$BUILD/compile_commands.json" ]; then
	if ! command -v meson >/dev/null || ! command -v clang >/dev/null; then
		echo "static: skipped: meson and clang are needed for $BUILD"
		exit 77
	fi
	if ! CC=clang meson setup "$BUILD" >"$LOGDIR/setup.log" 2>&1; then
		cat "$LOGDIR/setup.log"
		echo "static: meson setup $BUILD failed"
		exit 1
	fi
else
	# A directory kept from an earlier run: its compile database must list
	# today's sources (files added or removed since), so let meson
	# regenerate it when the build files changed.
	if ! ninja -C "$BUILD" build.ninja >"$LOGDIR/regen.log" 2>&1; then
		cat "$LOGDIR/regen.log"
		echo "static: cannot refresh $BUILD"
		exit 1
	fi
fi
DB=$BUILD/compile_commands.json

# db_files DIR: the sources under DIR/ that the compile database builds,
# relative to the tree, one per line.
db_files() {
	python3 - "$DB" "$ROOT" "$1" <<'EOF'
import json, os, sys
db, root, top = sys.argv[1], sys.argv[2], sys.argv[3]
seen = set()
for e in json.load(open(db)):
    f = os.path.normpath(os.path.join(e["directory"], e["file"]))
    rel = os.path.relpath(f, root)
    if rel.startswith(top + "/") and rel not in seen:
        seen.add(rel)
        print(rel)
EOF
}

# report TOOL N SECONDS: the summary line; any finding fails the run.
report() {
	echo "static $1: $2 findings (${3}s)"
	[ "$2" -eq 0 ] || FAILED=1
}

run_cppcheck() {
	local out=$LOGDIR/cppcheck.txt start n rc
	local tpl='{file}:{line}:{column}: {severity}: {message} [{id}]'

	if ! command -v "$CPPCHECK" >/dev/null; then
		echo "static cppcheck: skipped: $CPPCHECK not installed"
		MISSING=1
		return
	fi
	mkdir -p "$BUILD/cppcheck"
	start=$(date +%s)
	# warning: real bugs (UB, leaks, bad format strings...); performance
	# and portability: cheap and quiet. Style is clang-format's job.
	"$CPPCHECK" --enable=warning,performance,portability --inline-suppr \
		--error-exitcode=1 --project="$DB" \
		--file-filter='src/*' --file-filter='tests/*' \
		--file-filter="$ROOT/src/*" --file-filter="$ROOT/tests/*" \
		--cppcheck-build-dir="$BUILD/cppcheck" -j "$JOBS" --quiet \
		--template="$tpl" 2>"$out"
	rc=$?
	sed "s|^$ROOT/||" "$out"
	n=$(grep -cE '^[^ ]+:[0-9]+:[0-9]+: ' "$out")
	if [ "$rc" -ne 0 ] && [ "$n" -eq 0 ]; then
		echo "cppcheck exited $rc without a finding"
		n=1
	fi
	report cppcheck "$n" $(($(date +%s) - start))
}

run_clang_tidy() {
	local tidy out=$LOGDIR/tidy start n bad f

	tidy=$(command -v "$CLANG_TIDY")
	if [ -z "$tidy" ]; then
		echo "static clang-tidy: skipped: $CLANG_TIDY not installed"
		MISSING=1
		return
	fi
	mkdir -p "$out"
	start=$(date +%s)
	# One process per file, JOBS at a time; each file's diagnostics and
	# exit status land in its own log.
	export TIDY=$tidy BUILD OUT=$out
	db_files src | xargs -P "$JOBS" -I{} sh -c '
		log=$OUT/$(echo "$1" | tr / _)
		"$TIDY" -p "$BUILD" --quiet "$1" >"$log.out" 2>"$log.err"
		echo $? >"$log.rc"' sh {}
	# A header's finding shows up once per file including it: count once.
	cat "$out"/*.out 2>/dev/null |
		grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error): .*\]$' |
		sed -E "s|^$ROOT/||; s|^$BUILD/\.\./||; s|^\.\./||" |
		sort -u >"$LOGDIR/tidy.txt"
	cat "$LOGDIR/tidy.txt"
	n=$(wc -l <"$LOGDIR/tidy.txt")
	# A file that fails without a diagnostic (crash, missing file) is a
	# finding too.
	bad=0
	for f in "$out"/*.rc; do
		[ -e "$f" ] || continue
		if [ "$(cat "$f")" != 0 ] &&
			! grep -qE ': (warning|error): ' "${f%.rc}.out"; then
			echo "clang-tidy failed on $(basename "${f%.rc}"):"
			cat "${f%.rc}.err"
			bad=$((bad + 1))
		fi
	done
	report clang-tidy $((n + bad)) $(($(date +%s) - start))
}

for t in $TOOLS; do
	case $t in
	cppcheck) run_cppcheck ;;
	clang-tidy) run_clang_tidy ;;
	*)
		echo "usage: $0 [cppcheck|clang-tidy]..." >&2
		exit 2
		;;
	esac
done

[ "$FAILED" -eq 0 ] || exit 1
[ "$MISSING" -eq 0 ] || exit 77
exit 0
