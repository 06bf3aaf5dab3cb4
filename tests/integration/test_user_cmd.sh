#!/bin/bash
# `nasd user add|del|list` and the STATE_DIR/smbpasswd they keep: modes,
# the NT hash (MS-NLMP §4.2.2.1.2's vector), default ids from the local
# account, case-insensitive names, refusals (bad names, empty passwords,
# a file others can read), a password typed on a terminal (not echoed,
# asked twice), parallel adds serialized by the lock. No server needed.
# usage: test_user_cmd.sh NASD
NASD=${1:?usage: $0 NASD}
. "$(dirname "$0")/lib.sh"
t_init user_cmd

S=$T_DIR/state
F=$S/smbpasswd
user() { "$NASD" user "$@" --state-dir "$S"; }

# add from stdin, with ids; the state directory is created private
out=$(echo Password | user add alice --uid 1000 --gid 100 2>&1)
t_eq "add_rc" "0" "$?"
t_eq "add_message" "nasd user: added alice (uid 1000, gid 100)" "$out"
t_eq "file_mode" "600 regular file" "$(stat -c '%a %F' "$F")"
t_eq "dir_mode" "700" "$(stat -c '%a' "$S")"
t_eq "file_text" "# nasd smbpasswd 1
alice:1000:100:a4f49c406510bdcab6824ee7c30fd852" "$(cat "$F")"
t_eq "list" "alice 1000 100" "$(user list)"
t_eq "list_no_hash" "0" "$(user list | grep -c a4f49c40)"

# default ids: the local account of that name
out=$(echo pw | user add root 2>&1)
t_eq "add_local_account" "nasd user: added root (uid 0, gid 0)" "$out"
# a name in another case is the same user: updated, not added
out=$(echo other | user add ALICE --uid 1001 --gid 101 2>&1)
t_eq "add_other_case" "nasd user: updated ALICE (uid 1001, gid 101)" "$out"
t_eq "list_after_update" "ALICE 1001 101
root 0 0" "$(user list)"

# refusals leave the file as it was
before=$(cat "$F")
echo pw | user add 'a:b' --uid 1 --gid 1 >/dev/null 2>&1
t_eq "bad_name_rc" "2" "$?"
echo pw | user add nosuchaccount-xyz >/dev/null 2>&1
t_eq "no_account_rc" "1" "$?"
printf '\n' | user add carol --uid 5 --gid 5 >/dev/null 2>&1
t_eq "empty_password_rc" "1" "$?"
user add carol --uid 5 --gid 5 </dev/null >/dev/null 2>&1
t_eq "no_password_rc" "1" "$?"
head -c 600 /dev/zero | tr '\0' x | user add carol --uid 5 --gid 5 \
	>/dev/null 2>&1
t_eq "long_password_rc" "1" "$?"
user del nobody >/dev/null 2>&1
t_eq "del_missing_rc" "1" "$?"
user list extra >/dev/null 2>&1
t_eq "list_operand_rc" "2" "$?"
user del root --uid 3 >/dev/null 2>&1
t_eq "del_with_uid_rc" "2" "$?"
t_eq "file_unchanged" "$before" "$(cat "$F")"

# a file others can read is refused, for reading and for editing
chmod 640 "$F"
out=$(user list 2>&1)
t_eq "list_mode_rc" "1" "$?"
case $out in
*"chmod 600"*) t_ok "list_mode_message" ;;
*) t_fail "list_mode_message" "$out" ;;
esac
echo pw | user add dave --uid 7 --gid 7 >/dev/null 2>&1
t_eq "add_mode_rc" "1" "$?"
chmod 600 "$F"

# del, in any case
t_eq "del" "nasd user: deleted Root" "$(user del Root)"
t_eq "list_after_del" "ALICE 1001 101" "$(user list)"

# a terminal: no echo, asked twice; different answers are refused
if command -v python3 >/dev/null; then
	tty_add() { # NAME FIRST SECOND: prints the exit status, then output
		python3 - "$NASD" "$S" "$@" <<'PY'
import os, pty, select, sys, time
nasd, state, name, first, second = sys.argv[1:]
pid, fd = pty.fork()
if pid == 0:
    os.execv(nasd, [nasd, "user", "add", name, "--uid", "42", "--gid",
                    "43", "--state-dir", state])
seen = b""
def until(s):
    global seen
    end = time.time() + 10
    while s not in seen and time.time() < end:
        if not select.select([fd], [], [], 0.2)[0]:
            continue
        try:
            seen += os.read(fd, 1024)
        except OSError:
            break
until(b"New SMB password: ")
os.write(fd, first.encode() + b"\n")
until(b"Retype it: ")
os.write(fd, second.encode() + b"\n")
until(b"\n(never)")
_, st = os.waitpid(pid, 0)
print(os.waitstatus_to_exitcode(st))
print(seen.decode(errors="replace").replace("\r", ""))
PY
	}
	out=$(tty_add erin 'Typed-Secret' 'Typed-Secret')
	t_eq "tty_add_rc" "0" "$(echo "$out" | head -n 1)"
	case $out in
	*Typed-Secret*) t_fail "tty_no_echo" "$out" ;;
	*) t_ok "tty_no_echo" ;;
	esac
	out=$(tty_add frank 'one' 'two')
	t_eq "tty_mismatch_rc" "1" "$(echo "$out" | head -n 1)"
	t_eq "tty_users" "ALICE 1001 101
erin 42 43" "$(user list)"
else
	t_log "python3 missing: terminal cases skipped"
fi

# parallel adds: the lock serializes them, none is lost
for i in $(seq 1 10); do
	(echo "pw$i" | user add "p$i" --uid "$((2000 + i))" --gid 1 \
		>/dev/null 2>&1) &
done
wait
t_eq "parallel_adds" "10" "$(user list | grep -c '^p[0-9]* ')"
t_eq "no_temp_files" "" "$(find "$S" -name 'smbpasswd.*' ! -name '*.lock')"

t_finish
