# kclient workload for NFSv4.2 extended attributes (RFC 8276), sourced in
# the guest by ../shared/kclient with /tmp/kc_fileops carried in by
# test_nfs4_kclient.sh (busybox has no getfattr). cwd = $WORK on a vers=4.2
# mount of an export on tmpfs (which keeps 64 KiB values). The kernel's
# setxattr/getxattr/listxattr/removexattr of user. names become SETXATTR,
# GETXATTR, LISTXATTRS and REMOVEXATTR; a value the server set is read,
# and one the guest sets is left in $MNT/xattr-guest for the host to read.
KC=/tmp/kc_fileops

check kc_fileops_present [ -x $KC ]
# the host set user.fromsrv (1000 bytes of kc_fileops' pattern)
step read_server_set $KC xget "$MNT/xattr-srv" user.fromsrv 1000

echo data >xf
step set_small $KC xset xf user.small 10
step get_small $KC xget xf user.small 10
step set_64KiB $KC xset xf user.big 65536
drop_caches
step get_64KiB_cold $KC xget xf user.big 65536
step list sh -c "$KC xlist xf >/tmp/xlist"
check list_has_small grep -qx user.small /tmp/xlist
check list_has_big grep -qx user.big /tmp/xlist
check list_only_user sh -c '! grep -qv "^user\." /tmp/xlist'
# errno 17 EEXIST, 61 ENODATA
check create_existing_eexist sh -c "$KC xset xf user.small 5 create | grep -q 'errno 17'"
check replace_missing_enodata sh -c "$KC xset xf user.none 5 replace | grep -q 'errno 61'"
step replace_small $KC xset xf user.small 20 replace
step get_replaced $KC xget xf user.small 20
step remove_small $KC xrm xf user.small
check get_removed_enodata sh -c "$KC xget xf user.small 20 | grep -q 'errno 61'"
check remove_missing_enodata sh -c "$KC xrm xf user.small | grep -q 'errno 61'"
mkdir xd
step set_on_dir $KC xset xd user.dir 100
step get_on_dir $KC xget xd user.dir 100
# for the host: a value the guest set, read there from the file system
echo guest >"$MNT/xattr-guest"
step set_for_host $KC xset "$MNT/xattr-guest" user.fromguest 4096
# the client sent RFC 8276's operations, not a local emulation
for o in SETXATTR GETXATTR LISTXATTRS REMOVEXATTR; do
	check "${o}_sent" sh -c "grep -Eq '^[[:space:]]*$o: [1-9]' /proc/self/mountstats"
done

rm -rf xf xd /tmp/xlist
kc_summary
