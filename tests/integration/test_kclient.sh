#!/bin/bash
# The Linux kernel NFSv3 client (a Debian kernel under QEMU, see
# ../shared/kclient/README.md) mounts nasd and runs the default workload:
# 64 MiB write+fsync / cold read / md5, 500 small files, mkdir/rmdir, rename,
# symlink, hardlink, chmod, truncate, df. Every STEP must have rc=0.
# usage: test_kclient.sh NASD      (KCLIENT_DIR overrides the kclient path)
NASD=${1:?usage: $0 NASD}
. "$(dirname "$0")/lib.sh"

kclient_require
command -v qemu-system-x86_64 >/dev/null ||
	t_log "qemu not installed yet: kclient's run.sh installs it"

t_init kclient
# the guest sees 2049/20048; use those host ports when free
PORT=2049
port_in_use $PORT && PORT=$(t_port 12149)
MPORT=20048
port_in_use $MPORT && MPORT=$(t_port 13149)
EXP=$T_DIR/export
mkdir -p "$EXP" "$T_DIR/state"
chmod 755 "$EXP"

nasd_start "$PORT" --listen "127.0.0.1:$PORT" --mountd-port "$MPORT" \
	--state-dir "$T_DIR/state" --export "$EXP:rw,no_root_squash" || t_finish
for i in $(seq 1 50); do port_listening "$MPORT" && break; sleep 0.1; done
port_listening "$MPORT" || t_fail "mountd_port_listens" "nothing on $MPORT"

OUT=$T_DIR/kclient
t_log "running kclient: nfs3 default --export $EXP --nfs-port $PORT --mountd-port $MPORT"
bash "$KCLIENT_DIR/run.sh" nfs3 default --export "$EXP" --nfs-port "$PORT" \
	--mountd-port "$MPORT" --outdir "$OUT" --timeout 900 >"$T_DIR/run.out" 2>&1
rc=$?
cat "$T_DIR/run.out"
t_eq "kclient_exit_status" 0 "$rc"
if [ -f "$OUT/results.txt" ]; then
	nsteps=$(grep -c '^STEP ' "$OUT/results.txt")
	bad=$(grep '^STEP ' "$OUT/results.txt" | grep -v ' rc=0 ')
	badchk=$(grep '^CHECK .*FAILED' "$OUT/results.txt")
	[ "$nsteps" -ge 10 ] && t_ok "kclient_ran_steps" ||
		t_fail "kclient_ran_steps" "only $nsteps STEP lines"
	[ -z "$bad" ] && t_ok "kclient_every_step_rc0" ||
		t_fail "kclient_every_step_rc0" "$(echo "$bad" | tr '\n' '|')"
	[ -z "$badchk" ] && t_ok "kclient_every_check_ok" ||
		t_fail "kclient_every_check_ok" "$(echo "$badchk" | tr '\n' '|')"
else
	t_fail "kclient_results" "no $OUT/results.txt"
	[ -f "$OUT/console.log" ] && tail -n 40 "$OUT/console.log"
fi

nasd_stop
t_finish
