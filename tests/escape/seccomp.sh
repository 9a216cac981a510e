#!/bin/sh
# SPDX-License-Identifier: ISC
# seccomp.sh - escape catalogue 4.4 and 4.7 (I5): the filter's blind
# spots.  Foreign system call entry points (x32, i386 int $0x80), ioctl
# commands with high bits, io_uring (which runs calls where seccomp never
# looks), socket families and MPTCP, the kernel's bigger attack surfaces,
# and the filter's reach over every process of the sandbox.  try-syscall
# calls each with arguments the kernel rejects, so that "reached the
# kernel" (EFAULT, EBADF, EINVAL...) is told apart from "blocked" (EPERM,
# ENOSYS, EAFNOSUPPORT, EPROTONOSUPPORT, or SIGSYS).
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
. "$TESTS_SRCDIR/escape-lib.sh"
plan 11

# S2: a call through a foreign ABI kills the process (SIGSYS: 159).
t_abi() {
	esc_ws
	st "$TRY_SYSCALL" "$1" >"$TEST_TMP/control" 2>&1
	if [ "$ST" -eq 139 ]; then
		skip_case "the kernel has no IA32 emulation (int \$0x80 faults outside)"
	fi
	assert_status "$ST" 0
	# x32: ENOSYS where the kernel lacks x32 (the filter must still
	# kill, as the call is of a foreign ABI); i386: the kernel's EINVAL.
	assert_try "$1" "$2" "$TEST_TMP/control"
	run_confine -- "$TRY_IN" "$1"
	assert_status "$RC" 159
	assert_file_empty "$OUT"
	assert_host_unchanged
}

# T2, S3: the kernel reads the low 32 bits of an ioctl command; so must
# the filter, whatever the high bits hold.
t_ioctl_mask() {
	esc_ws
	control_try ioctl_tiocsti_mask ENOTTY
	control_try ioctl_tiocsti_high ENOTTY
	run_confine -- "$TRY_IN" ioctl_tiocsti ioctl_tiocsti_high ioctl_tiocsti_mask ioctl_tioclinux_high
	assert_status "$RC" 0
	for c in ioctl_tiocsti ioctl_tiocsti_high ioctl_tiocsti_mask ioctl_tioclinux_high; do
		assert_try "$c" EPERM
	done
	assert_host_unchanged
}

# S1: io_uring, with a real ring, and its other two calls.
t_io_uring() {
	esc_ws
	out=$(try_out io_uring_ring)
	case $out in
	OK) ;;
	ENOSYS) skip_case "the kernel has no io_uring" ;;
	EPERM)
		[ "$(cat /proc/sys/kernel/io_uring_disabled 2>/dev/null)" != 0 ] &&
		    skip_case "the kernel has io_uring disabled (kernel.io_uring_disabled)"
		fail "control: io_uring_setup gives EPERM outside" ;;
	*) fail "control: io_uring_setup gives '$out' outside" ;;
	esac
	control_try io_uring_enter EBADF
	run_confine -- "$TRY_IN" io_uring_ring io_uring_setup io_uring_enter io_uring_register
	assert_status "$RC" 0
	for c in io_uring_ring io_uring_setup io_uring_enter io_uring_register; do
		assert_try "$c" EPERM
	done
	assert_host_unchanged
}

# I5: socket families other than unix, inet, inet6 and netlink.
t_families() {
	esc_ws
	for c in socket_vsock socket_packet socket_alg; do
		control_try "$c" 'EINVAL|ESOCKTNOSUPPORT|EPROTOTYPE|EPERM|EAFNOSUPPORT'
	done
	# The control must tell the filter apart for at least one family.
	[ "$(try_out socket_packet)" != EAFNOSUPPORT ] ||
	    skip_case "the kernel has no AF_PACKET (EAFNOSUPPORT outside too)"
	run_confine -- "$TRY_IN" socket_vsock socket_packet socket_alg
	assert_status "$RC" 0
	for c in socket_vsock socket_packet socket_alg; do
		assert_try "$c" EAFNOSUPPORT
	done
	assert_host_unchanged
}

# MPTCP: Landlock's TCP rules do not cover it, so the filter refuses the
# protocol, as a kernel without MPTCP would.
t_mptcp() {
	esc_ws
	out=$(try_out mptcp_connect:1)
	case $out in
	ECONNREFUSED) ;;
	EPROTONOSUPPORT | ENOPROTOOPT) skip_case "the kernel has no MPTCP ($out outside)" ;;
	*) fail "control: MPTCP connect outside gives '$out'" ;;
	esac
	run_confine -- "$TRY_IN" socket_mptcp mptcp_connect:1
	assert_status "$RC" 0
	assert_try socket_mptcp EPROTONOSUPPORT
	assert_try mptcp_connect EPROTONOSUPPORT
	assert_host_unchanged
}

# The kernel's larger attack surfaces: bpf, perf, userfaultfd.
t_surfaces() {
	esc_ws
	control_try bpf 'EINVAL|EFAULT|E2BIG'
	control_try userfaultfd 'EINVAL|OK'
	run_confine -- "$TRY_IN" bpf perf_event_open userfaultfd
	assert_status "$RC" 0
	for c in bpf perf_event_open userfaultfd; do
		assert_try "$c" EPERM
	done
	assert_host_unchanged
}

# The kernel itself: modules, kexec, reboot, swap, accounting, the log.
t_kernel() {
	esc_ws
	calls='init_module finit_module delete_module kexec_load reboot swapon swapoff acct syslog quotactl'
	# Control: the kernel reads the arguments (bad magic numbers) of
	# reboot, in a user and pid namespace of our own if need be.
	control_try reboot EINVAL
	run_confine -- "$TRY_IN" $calls
	assert_status "$RC" 0
	for c in $calls; do
		assert_try "$c" EPERM
	done
	assert_host_unchanged
}

# personality(2): READ_IMPLIES_EXEC and the rest; only 0 is allowed.
t_personality() {
	esc_ws
	control_try personality OK
	run_confine -- "$TRY_IN" personality personality_zero
	assert_status "$RC" 0
	assert_try personality EPERM
	assert_try personality_zero OK
	assert_host_unchanged
}

# S4: the filter holds for every process of the sandbox: a grandchild,
# after exec of other programs, and through a new session.
t_inherited() {
	esc_ws
	grep -q '^Seccomp:[[:space:]]*0$' /proc/self/status ||
	    skip_case "this test itself runs under a seccomp filter already"
	run_confine -- sh -c 'setsid sh -c "env sh -c \"grep -E \\\"^(Seccomp|NoNewPrivs):\\\" /proc/self/status; \\\"\$0\\\" unshare\"" "$1"' sh "$TRY_IN"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^Seccomp:[[:space:]]+2$'
	assert_file_has_content "$OUT" '^NoNewPrivs:[[:space:]]+1$'
	assert_try unshare EPERM
	assert_host_unchanged
}

tcase "S2 x32 unshare kills the process (SIGSYS)" t_abi x32_unshare 'ENOSYS|EINVAL'
tcase "S2 i386 int \$0x80 unshare kills the process (SIGSYS)" t_abi i386_unshare EINVAL
tcase "S2 i386 int \$0x80 socket (socketcall's way round) kills the process" t_abi i386_socket EINVAL
tcase "T2/S3 TIOCSTI and TIOCLINUX with high bits in cmd: EPERM" t_ioctl_mask
tcase "S1 io_uring (a real ring, enter, register): EPERM" t_io_uring
tcase "I5 AF_VSOCK, AF_PACKET, AF_ALG: EAFNOSUPPORT" t_families
tcase "MPTCP socket and connect: EPROTONOSUPPORT" t_mptcp
tcase "bpf, perf_event_open, userfaultfd: EPERM" t_surfaces
tcase "modules, kexec, reboot, swap, acct, syslog, quotactl: EPERM" t_kernel
tcase "personality other than 0: EPERM" t_personality
tcase "S4 the filter holds in a grandchild in a new session" t_inherited
tap_done
