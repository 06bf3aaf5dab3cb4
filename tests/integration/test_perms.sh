#!/bin/bash
# Permissions and credential mapping: AUTH_SYS uid/gid are enforced by the
# server's filesystem; root is squashed by default (to 65534 or anonuid);
# no_root_squash keeps root; all_squash maps everyone to anonuid/anongid.
# usage: test_perms.sh NASD PERM_TOOL
NASD=${1:?usage: $0 NASD PERM_TOOL}
PT=${2:?usage: $0 NASD PERM_TOOL}
. "$(dirname "$0")/lib.sh"
t_init perms
[ "$(id -u)" = 0 ] || t_skip "needs root to create files owned by other uids"

PORT=$(t_port 12079) || exit 1
E1=$T_DIR/squash        # rw (root_squash by default)
E2=$T_DIR/noroot        # rw,no_root_squash
E3=$T_DIR/allsquash     # rw,all_squash,anonuid=1234,anongid=4321
E4=$T_DIR/anon          # rw,anonuid=5555,anongid=5556 (root squashed to it)
mkdir -p "$E1" "$E2" "$E3" "$E4" "$T_DIR/state"
chmod 1777 "$E1" "$E2" "$E3" "$E4"
for e in "$E1" "$E2"; do
	printf 'secret\n' >"$e/secret"
	chown 1000:1000 "$e/secret"
	chmod 600 "$e/secret"
done
printf 'public\n' >"$E1/pub"
chown 1000:1000 "$E1/pub"
chmod 644 "$E1/pub"
printf 'group\n' >"$E1/grp"
chown 1000:2000 "$E1/grp"
chmod 640 "$E1/grp"

nasd_start "$PORT" --listen "127.0.0.1:$PORT" --mountd-port 0 \
	--state-dir "$T_DIR/state" \
	--export "$E1:rw" \
	--export "$E2:rw,no_root_squash" \
	--export "$E3:rw,all_squash,anonuid=1234,anongid=4321" \
	--export "$E4:rw,anonuid=5555,anongid=5556" || t_finish

pt() { "$PT" "$PORT" "$@" 2>&1 | tail -n 1; }
owner() { stat -c %u:%g "$1" 2>/dev/null || echo missing; }

# uid enforcement
t_eq "other_uid_read_0600_denied" NFS3ERR_ACCES "$(pt "$E1" 1001 1001 read secret)"
t_eq "owner_read_0600_allowed" NFS3_OK "$(pt "$E1" 1000 1000 read secret)"
t_eq "other_uid_write_0644_denied" NFS3ERR_ACCES "$(pt "$E1" 1001 1001 write pub)"
t_eq "owner_write_0644_allowed" NFS3_OK "$(pt "$E1" 1000 1000 write pub)"
t_eq "group_read_0640_allowed" NFS3_OK "$(pt "$E1" 1001 2000 read grp)"
t_eq "nongroup_read_0640_denied" NFS3ERR_ACCES "$(pt "$E1" 1001 1001 read grp)"
t_eq "owner_reads_back_own_write" "perm" "$(head -c 4 "$E1/pub")"

# files created carry the caller's identity
t_eq "create_as_1000" NFS3_OK "$(pt "$E1" 1000 1000 create by1000)"
t_eq "create_as_1000_owner" 1000:1000 "$(owner "$E1/by1000")"
t_eq "mkdir_as_1001" NFS3_OK "$(pt "$E1" 1001 1002 mkdir dir1001)"
t_eq "mkdir_as_1001_owner" 1001:1002 "$(owner "$E1/dir1001")"

# root_squash (default)
t_eq "root_squashed_read_0600_denied" NFS3ERR_ACCES "$(pt "$E1" 0 0 read secret)"
t_eq "root_squashed_create" NFS3_OK "$(pt "$E1" 0 0 create byroot)"
t_eq "root_squashed_owner_65534" 65534:65534 "$(owner "$E1/byroot")"

# no_root_squash
t_eq "no_root_squash_read_0600" NFS3_OK "$(pt "$E2" 0 0 read secret)"
t_eq "no_root_squash_create" NFS3_OK "$(pt "$E2" 0 0 create byroot)"
t_eq "no_root_squash_owner_root" 0:0 "$(owner "$E2/byroot")"
t_eq "no_root_squash_other_uid_still_denied" NFS3ERR_ACCES "$(pt "$E2" 1001 1001 read secret)"

# all_squash,anonuid=1234,anongid=4321
t_eq "all_squash_create_as_1000" NFS3_OK "$(pt "$E3" 1000 1000 create by1000)"
t_eq "all_squash_owner_anon" 1234:4321 "$(owner "$E3/by1000")"
t_eq "all_squash_create_as_root" NFS3_OK "$(pt "$E3" 0 0 create byroot)"
t_eq "all_squash_root_owner_anon" 1234:4321 "$(owner "$E3/byroot")"

# root_squash to a chosen anonuid
t_eq "anonuid_root_create" NFS3_OK "$(pt "$E4" 0 0 create byroot)"
t_eq "anonuid_root_owner" 5555:5556 "$(owner "$E4/byroot")"
t_eq "anonuid_nonroot_unchanged" NFS3_OK "$(pt "$E4" 1000 1000 create by1000)"
t_eq "anonuid_nonroot_owner" 1000:1000 "$(owner "$E4/by1000")"

nasd_stop
t_finish
