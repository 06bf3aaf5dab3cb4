#!/bin/bash
# Every NFSv3 and MOUNTv3 procedure through libnfs (nfs3_api.c), against an
# rw,no_root_squash export and an ro export, MOUNT on its own port too.
# usage: test_api.sh NASD NFS3_API
NASD=${1:?usage: $0 NASD NFS3_API}
API=${2:?usage: $0 NASD NFS3_API}
. "$(dirname "$0")/lib.sh"
t_init api

PORT=$(t_port 12049) || exit 1
MPORT=$(t_port 13049) || exit 1
mkdir -p "$T_DIR/rw" "$T_DIR/ro" "$T_DIR/state"
chmod 755 "$T_DIR/rw" "$T_DIR/ro"

nasd_start "$PORT" --listen "127.0.0.1:$PORT" --mountd-port "$MPORT" \
	--state-dir "$T_DIR/state" \
	--export "$T_DIR/rw:rw,no_root_squash" \
	--export "$T_DIR/ro:ro" || t_finish
t_ok "nasd_started"

"$API" "$PORT" "$MPORT" "$T_DIR/rw" "$T_DIR/ro" >"$T_DIR/api.out" 2>&1
rc=$?
cat "$T_DIR/api.out"
if [ $rc -eq 0 ]; then
	t_ok "nfs3_api"
else
	# repeated here because meson prints only the tail of a failed log
	t_fail "nfs3_api" "exited $rc; failed checks:"
	grep -E '^not ok|rpc error|timed out|AddressSanitizer|runtime error' "$T_DIR/api.out"
fi

nasd_stop
t_finish
