#!/bin/sh
# SPDX-License-Identifier: ISC
# seccomp.sh - the deny-list: each call is tried with bad arguments by
# try-syscall, outside (the control: it reaches the kernel, which rejects
# the arguments) and inside (the filter answers first: EPERM, ENOSYS,
# EAFNOSUPPORT or EPROTONOSUPPORT).  Foreign ABIs kill the process.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
require_userns
require_try_syscall

EPERM_CALLS='keyctl add_key request_key bpf perf_event_open userfaultfd
io_uring_setup io_uring_enter io_uring_register kexec_load init_module
finit_module delete_module reboot swapon swapoff acct quotactl syslog mount
umount2 pivot_root chroot setns unshare name_to_handle_at open_by_handle_at
clone_newuser clone_newns clone_newnet clone_newpid clone_newipc
clone_newuts clone_newcgroup personality ioctl_tiocsti ioctl_tiocsti_high
ioctl_tioclinux ioctl_tioclinux_high'
ENOSYS_CALLS='clone3 open_tree move_mount fsopen fsconfig fsmount fspick
mount_setattr'
EAFNOSUPPORT_CALLS='socket_packet socket_vsock socket_alg'
EPROTONOSUPPORT_CALLS='socket_mptcp'
ALLOWED_CALLS='socket_unix socket_inet socket_inet6 socket_netlink
personality_zero'
EACCES_CALLS=
# Under landlock (network none, no net namespace): no socket family but
# AF_UNIX, and socket(AF_UNIX) itself refused, since landlock cannot keep
# the host's pathname sockets out.
if [ "$BACKEND" = landlock ]; then
	EAFNOSUPPORT_CALLS="$EAFNOSUPPORT_CALLS socket_inet socket_inet6 socket_netlink"
	EACCES_CALLS='socket_unix'
	ALLOWED_CALLS='personality_zero'
fi
ALL=$(echo $EPERM_CALLS $ENOSYS_CALLS $EAFNOSUPPORT_CALLS \
    $EPROTONOSUPPORT_CALLS $EACCES_CALLS $ALLOWED_CALLS)

n=0
for c in $ALL; do n=$((n + 1)); done
plan $((n + 4))

# One run of every probe outside, in a user namespace of our own (for a
# non-root caller, whom the kernel refuses some calls before it looks at
# the arguments), and inside.
ws_new
"$TRY_SYSCALL" $ALL >"$TEST_TMP/outside" 2>&1 || true
unshare -Urm -p --fork "$TRY_SYSCALL" $ALL >"$TEST_TMP/userns" 2>&1 || true
run_confine -- "$TRY_IN" $ALL
cp "$OUT" "$TEST_TMP/inside"
INSIDE_RC=$RC

result() {
	awk -v n="$1" '$1 == n { print $2 }' "$TEST_TMP/$2"
}

# t_sys NAME WANT: WANT inside; outside the kernel saw the call.
t_sys() {
	inside=$(result "$1" inside)
	outside=$(result "$1" outside)
	userns=$(result "$1" userns)
	assert_eq "$inside" "$2" "$1 inside"
	[ -n "$outside" ] || fail "control: no result outside"
	[ "$outside" != "$2" ] && return 0
	# The control cannot tell the filter from the kernel outside.
	[ -n "$userns" ] && [ "$userns" != "$2" ] && return 0
	case $2 in
	ENOSYS)
		skip_case "the kernel has no $1 (ENOSYS outside too)" ;;
	EPERM)
		[ "$(id -u)" -ne 0 ] &&
		    skip_case "control: as non-root the kernel refuses $1 with EPERM before it reads the arguments; run as root"
		;;
	esac
	fail "control: $1 gives $outside outside too: the filter cannot be told from the kernel"
}

# t_allowed NAME: works outside and inside.
t_allowed() {
	assert_eq "$(result "$1" outside)" OK "control: $1 outside"
	assert_eq "$(result "$1" inside)" OK "$1 inside"
}

# t_abi MODE: the x32 or i386 entry point kills the process (SIGSYS).
t_abi() {
	ws_new
	st "$TRY_SYSCALL" "$1" >"$TEST_TMP/abi-outside" 2>&1
	if [ "$ST" -ne 0 ]; then
		[ "$1" = i386 ] && [ "$ST" -eq 139 ] &&
		    skip_case "the kernel has no IA32 emulation (int \$0x80 faults outside)"
		fail "control: try-syscall $1 died with status $ST outside"
	fi
	assert_file_has_content "$TEST_TMP/abi-outside" "^$1 (OK|ENOSYS)\$"
	run_confine -- "$TRY_IN" "$1"
	assert_status "$RC" 159
	assert_file_empty "$OUT"
	assert_ws_unchanged
}

t_ran() {
	assert_status "$INSIDE_RC" 0
	assert_eq "$(wc -l <"$TEST_TMP/inside")" "$n" "result lines inside"
	assert_ws_unchanged
}

tcase "try-syscall ran every probe inside; the workspace is unchanged" t_ran
for c in $EPERM_CALLS; do
	tcase "$c: EPERM" t_sys "$c" EPERM
done
for c in $ENOSYS_CALLS; do
	tcase "$c: ENOSYS" t_sys "$c" ENOSYS
done
for c in $EAFNOSUPPORT_CALLS; do
	tcase "$c: EAFNOSUPPORT" t_sys "$c" EAFNOSUPPORT
done
for c in $EPROTONOSUPPORT_CALLS; do
	tcase "$c: EPROTONOSUPPORT" t_sys "$c" EPROTONOSUPPORT
done
for c in $EACCES_CALLS; do
	tcase "$c: EACCES" t_sys "$c" EACCES
done
for c in $ALLOWED_CALLS; do
	tcase "$c: allowed" t_allowed "$c"
done
tcase "an x32 system call kills the process: 159" t_abi x32
tcase "an i386 int \$0x80 system call kills the process: 159" t_abi i386
tcase "try-syscall ran every probe inside (again, after the ABI cases)" t_ran
tap_done
