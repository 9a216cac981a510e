#!/bin/sh
# SPDX-License-Identifier: ISC
# privilege.sh - escape catalogue 4.3: namespaces, mounts and privilege.
# A nested user namespace (the door to most kernel attack surface), the
# mount calls old and new, file handles, setuid binaries, capabilities and
# no_new_privs.  Controls run outside, in a user namespace of the test's
# own where the kernel refuses this user first.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
. "$TESTS_SRCDIR/escape-lib.sh"
plan 11

# N1: unshare(CLONE_NEWUSER), by the call and by unshare(1); raising
# max_user_namespaces from inside.
t_unshare() {
	esc_ws
	control_try unshare_user OK
	unshare -U true || fail "control: unshare -U outside"
	max=$(cat /proc/sys/user/max_user_namespaces)
	run_confine -- sh -c '
		"$1" unshare_user
		unshare -U true && echo UNSHARED
		unshare -Ur true && echo UNSHARED
		echo 100000 >/proc/sys/user/max_user_namespaces && echo RAISED
		true' sh "$TRY_IN"
	assert_status "$RC" 0
	assert_try unshare_user EPERM
	assert_not_file_has_content "$OUT" 'UNSHARED|RAISED'
	assert_eq "$(cat /proc/sys/user/max_user_namespaces)" "$max" "max_user_namespaces"
	assert_host_unchanged
}

# N1: clone(2) with CLONE_NEWUSER (bad companions: EINVAL in the kernel).
t_clone() {
	esc_ws
	control_try clone_newuser EINVAL
	calls='clone_newuser clone_newns clone_newnet clone_newpid clone_newipc clone_newuts clone_newcgroup'
	run_confine -- "$TRY_IN" $calls
	assert_status "$RC" 0
	for c in $calls; do
		assert_try "$c" EPERM
	done
	assert_host_unchanged
}

# N2: clone3 carries its flags behind a pointer, so it is refused as a
# whole with ENOSYS (libc falls back to clone, which the filter reads).
t_clone3() {
	esc_ws
	control_try clone3_newuser OK
	run_confine -- "$TRY_IN" clone3_newuser
	assert_status "$RC" 0
	assert_try clone3_newuser ENOSYS
	assert_host_unchanged
}

# N3: the new mount API, with real arguments.
t_mount_api() {
	esc_ws
	control_try fsopen_tmpfs OK
	control_try open_tree_clone:/ OK
	run_confine -- "$TRY_IN" fsopen_tmpfs open_tree_clone:/ fspick move_mount mount_setattr fsmount fsconfig
	assert_status "$RC" 0
	for c in fsopen_tmpfs open_tree_clone fspick move_mount mount_setattr fsmount fsconfig; do
		assert_try "$c" ENOSYS
	done
	assert_host_unchanged
}

# N3, N4: mount(2) over the workspace and a remount of the read-only
# root; the root stays read-only, the workspace's content the host's.
t_mount() {
	esc_ws
	unshare -Urm sh -c "mount -t tmpfs none '$WS/empty' && touch '$WS/empty/x'" ||
	    fail "control: mount in a user namespace outside"
	run_confine -- sh -c '
		mount -t tmpfs none empty && echo MOUNTED
		mount -o remount,rw / && echo REMOUNTED
		mount -o remount,bind,rw / && echo REMOUNTED
		umount -l "$PWD" && echo UNMOUNTED
		umount -l /tmp && echo UNMOUNTED
		touch /usr/confine-escape && echo ROOT-WRITTEN
		true'
	assert_status "$RC" 0
	assert_not_file_has_content "$OUT" 'MOUNTED|REMOUNTED|UNMOUNTED|ROOT-WRITTEN'
	assert_not_exists /usr/confine-escape
	assert_host_unchanged
}

# chroot and pivot_root (bad pointers: EFAULT where the kernel runs them).
t_chroot() {
	esc_ws
	control_try chroot EFAULT
	control_try pivot_root 'EFAULT|EINVAL'
	control_try umount2 'EFAULT|EINVAL'
	run_confine -- sh -c '"$1" chroot pivot_root setns umount2 mount; chroot / true && echo CHROOTED; true' sh "$TRY_IN"
	assert_status "$RC" 0
	assert_try umount2 EPERM
	assert_try mount EPERM
	assert_try chroot EPERM
	assert_try pivot_root EPERM
	assert_try setns EPERM
	assert_not_file_has_content "$OUT" CHROOTED
	assert_host_unchanged
}

# N5: file handles ("Shocker") reach files outside the mount view.
t_handles() {
	esc_ws
	control_try name_to_handle:/etc/passwd OK
	control_try open_by_handle_at 'EBADF|EPERM|EINVAL|EFAULT'
	run_confine -- "$TRY_IN" name_to_handle:/etc/passwd open_by_handle_at
	assert_status "$RC" 0
	assert_try name_to_handle EPERM
	assert_try open_by_handle_at EPERM
	assert_host_unchanged
}

# The effective uid of a setuid program while it runs: $1 the program,
# started with a fifo on stdin that is never written, so that it waits.
SUID_PROBE='f=$(mktemp -u "${TMPDIR:-/tmp}/confine-suid.XXXXXX"); mkfifo "$f"
"$@" <"$f" >/dev/null 2>&1 & p=$!
exec 9>"$f"; sleep 1
awk "/^Uid:/ { print \"euid\", \$3 }" "/proc/$p/status"
kill "$p" 2>/dev/null; rm -f "$f"'

# N6: setuid binaries gain nothing inside (no_new_privs, nosuid).  As
# root: a copy of sleep(1) setuid to nobody; otherwise the system's
# setuid-root passwd(1), waiting for a password.
t_setuid() {
	esc_ws
	if [ "$(id -u)" -eq 0 ]; then
		# Under /var/tmp, which every backend shows (the landlock
		# backend closes the host's /tmp, where the workspace is).
		d=$WS/.t
		if [ -d /var/tmp ] && [ -w /var/tmp ]; then
			d=$(host_scratch "$(mktemp -d /var/tmp/confine-suid.XXXXXX)")
			chmod 0755 "$d"
		fi
		cp /bin/sleep "$d/suid"
		chown 65534 "$d/suid"
		chmod 4755 "$d/suid"
		host_snapshot
		set -- "$d/suid" 5
		want=65534
	else
		p=$(command -v passwd) && [ -u "$p" ] ||
		    skip_case "no setuid-root passwd(1) to run as a user other than root"
		set -- "$p"
		want=0
	fi
	sh -c "$SUID_PROBE" sh "$@" >"$TEST_TMP/control"
	assert_eq "$(cat "$TEST_TMP/control")" "euid $want" "control: the setuid program's euid outside"
	run_confine -- sh -c "grep '^NoNewPrivs:' /proc/self/status; $SUID_PROBE" sh "$@"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^NoNewPrivs:[[:space:]]+1$'
	assert_file_has_content "$OUT" "^euid $(id -u)\$"
	assert_host_unchanged
}

# Every capability set is empty, and no_new_privs cannot be cleared.
t_caps() {
	esc_ws
	# Control: root of a user namespace has every capability in it.
	unshare -Ur grep '^CapEff:' /proc/self/status >"$TEST_TMP/control"
	assert_not_file_has_content "$TEST_TMP/control" '^CapEff:[[:space:]]+0+$'
	run_confine -- sh -c 'grep -E "^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs):" /proc/self/status
		python3 -c "import ctypes; l = ctypes.CDLL(None, use_errno=True); print(\"clear-nnp\", l.prctl(38, 0, 0, 0, 0), ctypes.get_errno())" 2>/dev/null || true'
	assert_status "$RC" 0
	sets='CapInh CapPrm CapEff CapBnd CapAmb'
	# Under landlock a caller other than root has no CAP_SETPCAP to
	# drop the bounding set with (no user namespace): it stays, and
	# no_new_privs keeps every exec from gaining any of it.
	if [ "$BACKEND" = landlock ] && [ "$(id -u)" -ne 0 ]; then
		sets='CapInh CapPrm CapEff CapAmb'
	fi
	for s in $sets; do
		assert_file_has_content "$OUT" "^$s:[[:space:]]+0+\$"
	done
	assert_file_has_content "$OUT" '^NoNewPrivs:[[:space:]]+1$'
	assert_not_file_has_content "$OUT" '^clear-nnp 0 '
	assert_host_unchanged
}

# N7: confine itself is no privilege boundary to attack: not setuid or
# setgid, no file capabilities.
t_not_setuid() {
	esc_ws
	# Control: the check sees a setuid bit where there is one.
	cp "$CONFINE" "$TEST_TMP/confine-copy"
	chmod u+s "$TEST_TMP/confine-copy"
	[ -u "$TEST_TMP/confine-copy" ] || fail "control: no setuid bit seen"
	for f in "$CONFINE" "$(dirname "$CONFINE")/confine-export"; do
		[ -e "$f" ] || continue
		if [ -u "$f" ] || [ -g "$f" ]; then
			fail "$f is setuid or setgid"
		fi
		if command -v getcap >/dev/null 2>&1; then
			assert_eq "$(getcap "$f")" "" "file capabilities of $f"
		fi
	done
	assert_host_unchanged
}

# /sys: uevent_helper (run as root by the kernel on a device event) and
# the cgroup tree are read-only inside.
t_sysfs() {
	esc_ws
	# Control: sysfs is mounted outside, where these files live.
	[ -e /sys/kernel/uevent_helper ] || [ -d /sys/fs/cgroup ] ||
	    skip_case "the kernel has no /sys/kernel/uevent_helper and no cgroup tree"
	run_confine -- sh -c '
		echo /bin/true >/sys/kernel/uevent_helper && echo WROTE uevent_helper
		mkdir /sys/fs/cgroup/confine-escape && echo MADE cgroup
		true'
	assert_status "$RC" 0
	assert_not_file_has_content "$OUT" 'WROTE|MADE'
	assert_file_has_content "$ERR" 'Read-only file system|Permission denied'
	assert_not_exists /sys/fs/cgroup/confine-escape
	assert_host_unchanged
}

tcase "N1 unshare(CLONE_NEWUSER) and unshare -U: EPERM" t_unshare
tcase "N1 clone with a namespace flag: EPERM" t_clone
tcase "N2 clone3 with CLONE_NEWUSER: ENOSYS" t_clone3
tcase "N3 the new mount API (fsopen, open_tree, ...): ENOSYS" t_mount_api
tcase "N4 mount, remount rw, umount: refused, the root stays read-only" t_mount
tcase "chroot, pivot_root, setns, mount, umount2: EPERM" t_chroot
tcase "N5 name_to_handle_at and open_by_handle_at: EPERM" t_handles
tcase "N6 a setuid program keeps the caller's euid (no_new_privs)" t_setuid
tcase "every capability set empty, no_new_privs set for good" t_caps
tcase "N7 confine is not setuid, setgid or file-capable" t_not_setuid
tcase "/sys: uevent_helper and the cgroup tree are read-only" t_sysfs
tap_done
