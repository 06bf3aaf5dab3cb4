#!/bin/bash
# Samba's smbclient against nasd's SMB2/3 server, and the same files seen
# over NFSv3 (libnfs): every dialect nasd offers, a 256 MiB put/get with
# sha256, ls/allinfo/mkdir/rename/rm/rmdir, files created as the user's
# mapped uid/gid, wrong passwords and unknown users refused, unknown
# shares, a read-only export, an export whose client rules leave
# 127.0.0.1 out; encryption (smbclient sealing every message in each 3.x
# dialect, a share with smb_encrypt=required, a server with --smb-encrypt
# required). (Unsigned and malformed encrypted requests:
# test_smb_hostile.py.)
# usage: test_smb_clients.sh NASD
NASD=${1:?usage: $0 NASD}
. "$(dirname "$0")/lib.sh"

command -v smbclient >/dev/null ||
	t_skip "smbclient not installed (apt-get install smbclient)"
BIG_MB=${SMB_BIG_MB:-256}
t_init smb_clients

PORT=$(t_port 14450)
SPORT=$(t_port $((PORT + 1)))
EXP=$T_DIR/export
RO=$T_DIR/ro
NOPE=$T_DIR/nope
CS=$T_DIR/cs
PUB=$T_DIR/pub
SEALED=$T_DIR/sealed
S=$T_DIR/state
mkdir -p "$EXP" "$RO" "$NOPE" "$CS" "$PUB" "$SEALED" "$S"
chown 1234:1234 "$SEALED"
echo public >"$PUB/p.txt"
echo cs >"$CS/r.txt"
chown 1234:1234 "$EXP"
chmod 777 "$EXP"  # NFS writes as root, squashed to nobody
echo "read only" >"$RO/r.txt"
echo "s3cret-Pw" | "$NASD" user add alice --uid 1234 --gid 1234 \
	--state-dir "$S" >/dev/null || t_die "user_add"

# the third export's only client is 10.9.9.9
cat >"$T_DIR/exports" <<EOF2
$EXP 127.0.0.1(rw,root_squash,smb=share)
$RO *(ro,smb=ro)
$CS *(ro,smb=cs,smb_case=sensitive)
$PUB *(ro,smb=pub,smb_guest=yes)
$NOPE 10.9.9.9(rw,smb=nope)
$SEALED *(rw,smb=sealed,smb_encrypt=required)
EOF2
nasd_start "$SPORT" --listen "127.0.0.1:$PORT" --mountd-port 0 \
	--state-dir "$S" --smb-listen "127.0.0.1:$SPORT" \
	--config "$T_DIR/exports" || t_finish

# smb NAME SHARE CMDS [smbclient options...]: run smbclient's commands,
# output in $out, exit status in $rc.
smb() {
	local share=$1 cmds=$2
	shift 2
	out=$(timeout 300 smbclient "//127.0.0.1/$share" -p "$SPORT" \
		-U 'alice%s3cret-Pw' "$@" -c "$cmds" 2>&1)
	rc=$?
}

# smb_ok NAME SHARE CMDS [opts]: the commands ran and no NT_STATUS error.
smb_ok() {
	local name=$1
	shift
	smb "$@"
	if [ $rc -eq 0 ] && ! echo "$out" | grep -q NT_STATUS_; then
		t_ok "$name"
	else
		t_fail "$name" "rc $rc: $(echo "$out" | tail -n 5 | tr '\n' '|')"
	fi
}

# smb_status NAME STATUS SHARE CMDS [opts]: the output names STATUS.
smb_status() {
	local name=$1 want=$2
	shift 2
	smb "$@"
	if echo "$out" | grep -q "$want"; then
		t_ok "$name"
	else
		t_fail "$name" "no $want: rc $rc: $(echo "$out" | tail -n 5 | tr '\n' '|')"
	fi
}

echo "hello smb" >"$T_DIR/small.txt"
for d in SMB2_10 SMB3_00 SMB3_02 SMB3_11; do
	smb_ok "dialect_${d}_put_ls" share \
		"put $T_DIR/small.txt s-$d.txt; ls s-$d.txt" \
		--option="client min protocol=$d" --option="client max protocol=$d"
	echo "$out" | grep -q "s-$d.txt *A *10 " &&
		t_ok "dialect_${d}_listed_size" ||
		t_fail "dialect_${d}_listed_size" "$(echo "$out" | tr '\n' '|')"
	t_eq "dialect_${d}_on_disk" "hello smb" "$(cat "$EXP/s-$d.txt" 2>&1)"
done
t_eq "created_as_mapped_ids" "1234:1234" "$(stat -c %u:%g "$EXP/s-SMB3_11.txt")"

# big file both ways, checked byte for byte
dd if=/dev/urandom of="$T_DIR/big.bin" bs=1M count="$BIG_MB" status=none
want=$(sha256sum <"$T_DIR/big.bin" | cut -d' ' -f1)
smb_ok "put_${BIG_MB}MiB" share "put $T_DIR/big.bin big.bin" -m SMB3
t_log "$(echo "$out" | grep -o 'putting.*')"
t_eq "put_${BIG_MB}MiB_sha256" "$want" "$(sha256sum <"$EXP/big.bin" | cut -d' ' -f1)"
rm -f "$T_DIR/back.bin"
smb_ok "get_${BIG_MB}MiB" share "get big.bin $T_DIR/back.bin" -m SMB3
t_log "$(echo "$out" | grep -o 'getting.*')"
t_eq "get_${BIG_MB}MiB_sha256" "$want" "$(sha256sum <"$T_DIR/back.bin" | cut -d' ' -f1)"
rm -f "$T_DIR/big.bin" "$T_DIR/back.bin"

# allinfo: size and the stream
smb_ok "allinfo" share "allinfo big.bin"
echo "$out" | grep -q "stream: \[::\$DATA\], $((BIG_MB * 1048576)) bytes" &&
	t_ok "allinfo_stream_size" ||
	t_fail "allinfo_stream_size" "$(echo "$out" | tr '\n' '|')"

# a named stream (Zone.Identifier, as a browser's download gets one):
# put and got back byte for byte, listed by allinfo, kept as Samba keeps
# it (user.DosStream.NAME:$DATA with a NUL after the bytes)
printf '[ZoneTransfer]\r\nZoneId=3\r\n' >"$T_DIR/zone.txt"
smb_ok "stream_put" share \
	"put $T_DIR/small.txt dl.exe; put $T_DIR/zone.txt dl.exe:Zone.Identifier"
rm -f "$T_DIR/zone.back"
smb_ok "stream_get" share "get dl.exe:Zone.Identifier $T_DIR/zone.back"
cmp -s "$T_DIR/zone.txt" "$T_DIR/zone.back" && t_ok "stream_same_bytes" ||
	t_fail "stream_same_bytes" "$(od -c "$T_DIR/zone.back" 2>&1 | head -3)"
smb_ok "stream_allinfo" share "allinfo dl.exe"
echo "$out" | grep -q 'stream: \[:Zone.Identifier:\$DATA\], 26 bytes' &&
	echo "$out" | grep -q 'stream: \[::\$DATA\], 10 bytes' &&
	t_ok "stream_listed" || t_fail "stream_listed" "$(echo "$out" | tr '\n' '|')"
if command -v getfattr >/dev/null 2>&1; then
	t_eq "stream_xattr_layout" \
		"$(od -An -tx1 "$T_DIR/zone.txt" | tr -d ' \n')00" \
		"$(getfattr --only-values -n 'user.DosStream.Zone.Identifier:$DATA' \
			"$EXP/dl.exe" 2>/dev/null | od -An -tx1 | tr -d ' \n')"
fi
t_eq "stream_file_data_untouched" "hello smb" "$(cat "$EXP/dl.exe")"

# the namespace
smb_ok "mkdir" share "mkdir dir1; mkdir dir1\\sub"
[ -d "$EXP/dir1/sub" ] && t_ok "mkdir_on_disk" || t_fail "mkdir_on_disk" "no dir1/sub"
smb_ok "rename_into_dir" share "rename s-SMB3_11.txt dir1\\moved.txt"
[ -f "$EXP/dir1/moved.txt" ] && [ ! -e "$EXP/s-SMB3_11.txt" ] &&
	t_ok "rename_on_disk" || t_fail "rename_on_disk" "$(ls -R "$EXP")"
smb_ok "ls_wildcard" share "ls dir1\\*.txt"
echo "$out" | grep -q "moved.txt" && t_ok "ls_wildcard_lists" ||
	t_fail "ls_wildcard_lists" "$(echo "$out" | tr '\n' '|')"
smb_status "rmdir_not_empty" NT_STATUS_DIRECTORY_NOT_EMPTY share "rmdir dir1"
smb_ok "rm_and_rmdir" share "rm dir1\\moved.txt; rmdir dir1\\sub; rmdir dir1"
[ ! -e "$EXP/dir1" ] && t_ok "rmdir_on_disk" || t_fail "rmdir_on_disk" "dir1 still there"
smb_status "get_missing" NT_STATUS_OBJECT_NAME_NOT_FOUND share "get nothere $T_DIR/x"

# names ignore case (smb_case=insensitive, the default) and keep the
# case they were made with; a name made on disk after a miss is found
smb_ok "case_put" share "put $T_DIR/small.txt MixedCase.TXT; mkdir CaseDir"
smb_ok "case_get_other_case" share "get mixedcase.txt $T_DIR/case.back"
t_eq "case_get_bytes" "hello smb" "$(cat "$T_DIR/case.back" 2>&1)"
smb_ok "case_ls_pattern" share "ls MIXEDCASE.*"
echo "$out" | grep -q " MixedCase.TXT " && t_ok "case_listed_as_made" ||
	t_fail "case_listed_as_made" "$(echo "$out" | tr '\n' '|')"
smb_ok "case_put_in_dir_other_case" share "put $T_DIR/small.txt casedir\\in.txt"
[ -f "$EXP/CaseDir/in.txt" ] && t_ok "case_dir_resolved" ||
	t_fail "case_dir_resolved" "$(ls -R "$EXP" | tr '\n' ' ')"
smb_ok "case_rename_case_only" share "rename mixedcase.txt MIXEDCASE.txt"
[ -f "$EXP/MIXEDCASE.txt" ] && [ ! -e "$EXP/MixedCase.TXT" ] &&
	t_ok "case_rename_on_disk" || t_fail "case_rename_on_disk" "$(ls "$EXP" | tr '\n' ' ')"
smb_status "case_create_collides" NT_STATUS_OBJECT_NAME_COLLISION share "mkdir CASEDIR"
smb_status "case_miss" NT_STATUS_OBJECT_NAME_NOT_FOUND share "get LateFile $T_DIR/late.back"
echo late >"$EXP/LATEFILE"
smb_ok "case_found_after_miss" share "get latefile $T_DIR/late.back"
t_eq "case_found_after_miss_bytes" "late" "$(cat "$T_DIR/late.back" 2>&1)"
smb_ok "case_rm_other_case" share "rm mixedcase.TXT; rm latefile; rm CASEDIR\\IN.TXT; rmdir casedir"
[ ! -e "$EXP/MIXEDCASE.txt" ] && [ ! -e "$EXP/CaseDir" ] && [ ! -e "$EXP/LATEFILE" ] &&
	t_ok "case_rm_on_disk" || t_fail "case_rm_on_disk" "$(ls "$EXP" | tr '\n' ' ')"
smb_status "case_sensitive_share" NT_STATUS_OBJECT_NAME_NOT_FOUND cs "get R.TXT $T_DIR/x"
smb_ok "case_sensitive_share_exact" cs "get r.txt $T_DIR/r2.back"

# the same files over NFSv3
if command -v nfs-cat >/dev/null; then
	Q="?nfsport=$PORT&mountport=$PORT"
	out=$(timeout 60 nfs-cat "nfs://127.0.0.1$EXP/s-SMB3_00.txt$Q" 2>&1)
	t_eq "nfs_reads_smb_file" "hello smb" "$out"
	echo "from nfs" >"$T_DIR/n.txt"
	timeout 60 nfs-cp "$T_DIR/n.txt" "nfs://127.0.0.1$EXP/n.txt$Q" >/dev/null 2>&1
	t_log "n.txt over NFS: $(stat -c "%a %U" "$EXP/n.txt" 2>&1)"
	chmod 644 "$EXP/n.txt"
	smb_ok "smb_reads_nfs_file" share "get n.txt $T_DIR/n.back"
	t_eq "smb_reads_nfs_file_bytes" "from nfs" "$(cat "$T_DIR/n.back" 2>&1)"
else
	t_log "no nfs-cat: cross-protocol reads not checked"
fi

# encryption: every message sealed (AES-128-CCM for 3.0.x, AES-128-GCM
# for 3.1.1), byte-exact both ways; what nasd encrypted is counted
enc_before=$("$NASD" stats --state-dir "$S" --json | grep -o '"smb2_encrypted_bytes_total":[0-9]*' | cut -d: -f2)
dd if=/dev/urandom of="$T_DIR/enc.bin" bs=1M count=8 status=none
want=$(sha256sum <"$T_DIR/enc.bin" | cut -d' ' -f1)
for d in SMB3_00 SMB3_02 SMB3_11; do
	rm -f "$T_DIR/enc.back"
	smb_ok "sealed_${d}_put_get" share \
		"put $T_DIR/enc.bin enc-$d.bin; get enc-$d.bin $T_DIR/enc.back" \
		--client-protection=encrypt \
		--option="client min protocol=$d" --option="client max protocol=$d"
	t_eq "sealed_${d}_sha256" "$want" \
		"$(sha256sum <"$T_DIR/enc.back" | cut -d' ' -f1)"
done
for c in aes-256-gcm aes-256-ccm aes-128-ccm; do
	smb_ok "sealed_cipher_$c" share "get enc-SMB3_11.bin $T_DIR/enc.back" \
		--client-protection=encrypt \
		--option="client smb3 encryption algorithms=$c"
	t_eq "sealed_cipher_${c}_sha256" "$want" \
		"$(sha256sum <"$T_DIR/enc.back" | cut -d' ' -f1)"
done
enc_after=$("$NASD" stats --state-dir "$S" --json | grep -o '"smb2_encrypted_bytes_total":[0-9]*' | cut -d: -f2)
[ -n "$enc_after" ] && [ "$((enc_after - ${enc_before:-0}))" -gt $((6 * 8 * 1048576)) ] &&
	t_ok "stats_encrypted_bytes" ||
	t_fail "stats_encrypted_bytes" "$enc_before -> $enc_after"
# a share that requires encryption: smbclient encrypts on its own there;
# a 2.1 client, which cannot, is refused
smb_ok "sealed_share_put_get" sealed \
	"put $T_DIR/small.txt e.txt; get e.txt $T_DIR/e.back"
t_eq "sealed_share_bytes" "hello smb" "$(cat "$T_DIR/e.back" 2>&1)"
smb_status "sealed_share_refuses_smb2_10" NT_STATUS_ACCESS_DENIED sealed ls \
	-m SMB2_10
rm -f "$T_DIR/enc.bin" "$T_DIR/enc.back"

# refusals
smb_status "wrong_password" NT_STATUS_LOGON_FAILURE share ls -U 'alice%wrong'
smb_status "unknown_user" NT_STATUS_LOGON_FAILURE share ls -U 'mallory%s3cret-Pw'
smb_status "no_anonymous" NT_STATUS_ACCESS_DENIED share ls -N -U ''
smb_status "unknown_share" NT_STATUS_BAD_NETWORK_NAME nosuch ls
smb_ok "guest_share_anonymous" pub "get p.txt $T_DIR/p.back" -N -U ''
t_eq "guest_share_bytes" "public" "$(cat "$T_DIR/p.back" 2>&1)"
smb_status "client_rules_leave_us_out" NT_STATUS_ACCESS_DENIED nope ls
smb_ok "ro_share_read" ro "get r.txt $T_DIR/r.back"
t_eq "ro_share_read_bytes" "read only" "$(cat "$T_DIR/r.back" 2>&1)"
smb_status "ro_share_write" NT_STATUS_ACCESS_DENIED ro "put $T_DIR/small.txt w.txt"
[ ! -e "$RO/w.txt" ] && t_ok "ro_share_nothing_written" ||
	t_fail "ro_share_nothing_written" "w.txt exists"

# what nasd stats says of it all
js=$("$NASD" stats --state-dir "$S" --json 2>&1)
echo "$js" | grep -q '"smb2_sessions":0' && t_ok "stats_no_session_left" ||
	t_fail "stats_no_session_left" "$(echo "$js" | grep -o '"values":{[^}]*}')"
echo "$js" | grep -Eq '"smb2_signed_bytes_total":[1-9]' &&
	t_ok "stats_signed_bytes" || t_fail "stats_signed_bytes" "$(echo "$js" | grep -o '"values":{[^}]*}')"
echo "$js" | tr '\n' ' ' | grep -Eq '"program":"smb2","version":2,"procedure":"CREATE","proc":5,"count":[1-9]' &&
	t_ok "stats_smb2_create_counted" || t_fail "stats_smb2_create_counted" "no CREATE count"

nasd_stop

# --smb-encrypt required: every session encrypts (SESSION_FLAG_ENCRYPT_DATA:
# smbclient follows it), a client that cannot is refused at logon
nasd_start "$SPORT" --listen "127.0.0.1:$PORT" --mountd-port 0 \
	--state-dir "$S" --smb-listen "127.0.0.1:$SPORT" \
	--config "$T_DIR/exports" --smb-encrypt required || t_finish
smb_ok "encrypt_required_311" share \
	"put $T_DIR/small.txt r311.txt; get r311.txt $T_DIR/r311.back"
t_eq "encrypt_required_311_bytes" "hello smb" "$(cat "$T_DIR/r311.back" 2>&1)"
smb_ok "encrypt_required_302" share "ls" -m SMB3_02
smb_status "encrypt_required_refuses_smb2_10" NT_STATUS_ACCESS_DENIED share \
	ls -m SMB2_10
js=$("$NASD" stats --state-dir "$S" --json 2>&1)
echo "$js" | grep -Eq '"smb2_encrypted_bytes_total":[1-9]' &&
	t_ok "encrypt_required_sealed" ||
	t_fail "encrypt_required_sealed" "nothing encrypted"
nasd_stop
t_finish
