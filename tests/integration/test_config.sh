#!/bin/bash
# exports(5) config file: client matching by address/CIDR/wildcard, comments,
# and reload on SIGHUP (new export appears, removed export disappears, a
# broken file or one with two io= values for one export keeps the old
# table) without restarting the process.
# usage: test_config.sh NASD HANDLE_TOOL
NASD=${1:?usage: $0 NASD HANDLE_TOOL}
HT=${2:?usage: $0 NASD HANDLE_TOOL}
. "$(dirname "$0")/lib.sh"
t_init config

PORT=$(t_port 12099) || exit 1
A=$T_DIR/a
B=$T_DIR/b
C=$T_DIR/c
D=$T_DIR/d
mkdir -p "$A" "$B" "$C" "$D" "$T_DIR/state"
chmod 755 "$A" "$B" "$C" "$D"
CONF=$T_DIR/exports
cat >"$CONF" <<EOC
# nasd test exports
$A	127.0.0.1(rw,no_root_squash)

$C	10.0.0.0/8(rw)
$D	*(ro)   # wildcard
EOC

nasd_start "$PORT" --listen "127.0.0.1:$PORT" --mountd-port 0 \
	--state-dir "$T_DIR/state" --config "$CONF" || t_finish
pid=$NASD_PID
mnt() { "$HT" mnt "$PORT" "$1" 2>&1 | tail -n 1; }
not_ok() { case "$2" in MNT3ERR_ACCES | MNT3ERR_NOENT | MNT3ERR_PERM) t_ok "$1" ;; *) t_fail "$1" "got '$2'" ;; esac; }

t_eq "config_export_a" MNT3_OK "$(mnt "$A")"
not_ok "config_b_not_exported" "$(mnt "$B")"
not_ok "config_cidr_mismatch_refused" "$(mnt "$C")"
t_eq "config_wildcard_host" MNT3_OK "$(mnt "$D")"

# reload: add B, drop A
cat >"$CONF" <<EOC
$B 127.0.0.0/8(rw)
$D *(ro)
EOC
kill -HUP "$NASD_PID"
got=
for i in $(seq 1 50); do
	got=$(mnt "$B")
	[ "$got" = MNT3_OK ] && break
	sleep 0.1
done
t_eq "sighup_adds_export" MNT3_OK "$got"
not_ok "sighup_removes_export" "$(mnt "$A")"
kill -0 "$pid" 2>/dev/null && t_ok "sighup_same_process" ||
	t_fail "sighup_same_process" "nasd died on SIGHUP"

# a broken file on reload keeps the previous table
printf '%s\n' "$A 127.0.0.1(rw,this_option_does_not_exist" >"$CONF"
kill -HUP "$NASD_PID"
sleep 1
kill -0 "$pid" 2>/dev/null && t_ok "bad_config_reload_survives" ||
	t_fail "bad_config_reload_survives" "nasd died on a bad config"
t_eq "bad_config_keeps_old_table" MNT3_OK "$(mnt "$B")"

# io= is export-wide: a reload whose client specs of one export give it two
# values is refused with FILE:LINE, and the previous table stays
cat >"$CONF" <<EOC
$B 127.0.0.0/8(rw)
$A 127.0.0.1(rw,io=direct) *(ro,io=buffered)
EOC
kill -HUP "$NASD_PID"
want="$(realpath "$CONF"):2: $A: conflicting io values: io=buffered here but io=direct for 127.0.0.1 (io= applies to the whole export)"
got=
for i in $(seq 1 50); do
	got=$(grep -F -o "keeping the current exports: $want" "$NASD_LOG")
	[ -n "$got" ] && break
	sleep 0.1
done
t_eq "conflicting_io_reload_refused" "keeping the current exports: $want" "$got"
t_eq "conflicting_io_keeps_old_table" MNT3_OK "$(mnt "$B")"
not_ok "conflicting_io_adds_nothing" "$(mnt "$A")"
kill -0 "$pid" 2>/dev/null && t_ok "conflicting_io_reload_survives" ||
	t_fail "conflicting_io_reload_survives" "nasd died on the reload"

nasd_stop
t_finish
