#!/bin/sh
# SPDX-License-Identifier: ISC
# proc.sh - escape catalogue 4.2: processes, /proc, file descriptors and
# keyrings.  The targets are the test's own: a process of the same user
# on the host, a secret in confine's environment, descriptors left open
# by the caller, the binaries on the host.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
. "$TESTS_SRCDIR/escape-lib.sh"
plan 11

# A process of the user's on the host, as an editor or a shell would be.
N=$(unique_num)
sleep "3600.$N" </dev/null >/dev/null 2>&1 &
HOST_PID=$!
track_pid "$HOST_PID"

host_alive() {
	kill -0 "$HOST_PID" 2>/dev/null &&
	    tr '\0' ' ' <"/proc/$HOST_PID/cmdline" 2>/dev/null |
	    grep -q "^sleep 3600\\.$N"
}

# The errno a call on HOST_PID gets inside: no such process in a pid
# namespace; with the landlock backend the pid is there and a Landlock
# scope or the ptrace rule refuses.
case $BACKEND in
landlock) NOPID=EPERM ;;
*) NOPID=ESRCH ;;
esac

# P1: ptrace into a same-user host process.
t_ptrace() {
	esc_ws
	control_try "ptrace_seize:$HOST_PID" OK
	run_confine -- "$TRY_IN" "ptrace_seize:$HOST_PID"
	assert_status "$RC" 0
	assert_try ptrace_seize "$NOPID|EPERM"
	assert_file_has_content "/proc/$HOST_PID/status" '^TracerPid:[[:space:]]+0$'
	host_alive || fail "the host process is gone"
	assert_host_unchanged
}

# P1: process_vm_readv/writev of a host process's memory.  An unmapped
# address: EFAULT means the call reached the process.
t_vm() {
	esc_ws
	control_try "process_vm_readv:$HOST_PID" EFAULT
	run_confine -- "$TRY_IN" "process_vm_readv:$HOST_PID"
	assert_status "$RC" 0
	assert_try process_vm_readv "$NOPID|EPERM"
	assert_host_unchanged
}

# P4 (memory): /proc/PID/mem of a host process.
t_mem() {
	esc_ws
	# Control: a process may read the memory map of another of its user's.
	head -c 1 "/proc/$HOST_PID/maps" >/dev/null ||
	    fail "control: cannot read /proc/$HOST_PID/maps outside"
	run_confine -- sh -c 'head -c 1 "/proc/$1/maps" && echo READ-MAPS; echo x >"/proc/$1/mem" && echo WROTE-MEM; true' sh "$HOST_PID"
	assert_status "$RC" 0
	assert_not_file_has_content "$OUT" 'READ-MAPS|WROTE-MEM'
	case $BACKEND in
	landlock) assert_file_has_content "$ERR" 'Permission denied|Operation not permitted' ;;
	*) assert_file_has_content "$ERR" 'No such file or directory' ;;
	esac
	host_alive || fail "the host process is gone"
	assert_host_unchanged
}

# P2: signals to a host process; it must still be alive after SIGKILL.
t_kill() {
	esc_ws
	kill -0 "$HOST_PID" || fail "control: kill -0 outside"
	run_confine -- sh -c 'kill -0 "$1" && echo SEEN; kill -9 "$1" && echo KILLED; ls /proc | grep -x "$1" && echo LISTED; true' sh "$HOST_PID"
	assert_status "$RC" 0
	assert_not_file_has_content "$OUT" 'SEEN|KILLED'
	case $BACKEND in
	landlock)
		# No pid namespace: the pid is listed; the scope refuses.
		assert_file_has_content "$ERR" 'Operation not permitted' ;;
	*)
		assert_not_file_has_content "$OUT" LISTED
		assert_file_has_content "$ERR" 'No such process' ;;
	esac
	host_alive || fail "the host process was killed from inside"
	assert_host_unchanged
}

# P7: a pidfd for a host process (pidfd_getfd, pidfd_send_signal).
t_pidfd() {
	esc_ws
	control_try "pidfd_open:$HOST_PID" OK
	run_confine -- "$TRY_IN" "pidfd_open:$HOST_PID"
	assert_status "$RC" 0
	case $BACKEND in
	landlock)
		# The pid is visible; what a pidfd could do (signal, getfd)
		# is refused by the Landlock scope and the ptrace rule.
		assert_try pidfd_open 'OK|EPERM' ;;
	*)
		assert_try pidfd_open ESRCH ;;
	esac
	assert_host_unchanged
}

# P3: confine's environment (a secret the allow-list drops) is nowhere
# inside: not in the command's, not in any /proc/*/environ or cmdline.
t_environ() {
	esc_ws
	secret=confine-env-secret-$(unique_num)
	# Control: a child sees its parent's environment outside.
	env CONFINE_TEST_TOKEN="$secret" sh -c 'cat /proc/self/environ' |
	    tr '\0' '\n' | grep -q "$secret" ||
	    fail "control: the secret is not in the environment outside"
	RC=0
	(cd "$WS" && exec env CONFINE_TEST_TOKEN="$secret" timeout -k 5 \
	    "$CONFINE_TIMEOUT" "$CONFINE" -- sh -c '
		env
		for f in /proc/[0-9]*/environ /proc/[0-9]*/cmdline; do
			cat "$f" 2>/dev/null | tr "\0" "\n"
		done
		echo DONE' </dev/null >"$OUT" 2>"$ERR") || RC=$?
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^DONE$'
	assert_not_file_has_content "$OUT" "$secret"
	assert_not_file_has_content "$OUT" CONFINE_TEST_TOKEN
	assert_host_unchanged
}

# P5: descriptors the caller left open do not reach the command, so no
# directory fd leads outside and no secret file is readable through one.
t_fds() {
	esc_ws
	out=$( (exec 3</ 4<"$HOME/.ssh/id_ed25519" 5<"$HOME"; "$TRY_SYSCALL" fds) )
	case $out in
	"fds 0 1 2 3 4 5"*) ;;
	*) fail "control: the descriptors outside are '$out'" ;;
	esac
	RC=0
	(cd "$WS" && exec 3</ 4<"$HOME/.ssh/id_ed25519" 5<"$HOME" \
	    timeout -k 5 "$CONFINE_TIMEOUT" "$CONFINE" -- sh -c '
		"$1" fds
		cat /proc/self/fd/4 <&- 2>/dev/null
		ls /proc/self/fd/5/.ssh 2>/dev/null
		cat <&4 2>/dev/null; true' sh "$TRY_IN" \
	    </dev/null >"$OUT" 2>"$ERR") || RC=$?
	assert_status "$RC" 0
	assert_eq "$(head -n 1 "$OUT")" "fds 0 1 2" "descriptors inside"
	assert_not_file_has_content "$OUT" "$HOME_SECRET"
	assert_not_file_has_content "$OUT" id_ed25519
	assert_host_unchanged
}

# P6: the user's kernel keyrings.
t_keyring() {
	esc_ws
	control_try keyring_session 'OK|ENOKEY'
	control_try keyctl 'EOPNOTSUPP|EINVAL'
	run_confine -- "$TRY_IN" keyring_session keyctl add_key request_key
	assert_status "$RC" 0
	for c in keyring_session keyctl add_key request_key; do
		assert_try "$c" EPERM
	done
	assert_host_unchanged
}

# P4 (runc CVE-2019-5736): the host's binaries cannot be overwritten,
# through /proc/*/exe or their paths: the user's own copy of a program
# (writable outside), the shell, confine itself.
t_exe() {
	esc_ws
	if [ -d /var/tmp ] && [ -w /var/tmp ]; then
		d=$(host_scratch "$(mktemp -d /var/tmp/confine-exe.XXXXXX)")
		chmod 0755 "$d"
	else
		d=$WS/.t
	fi
	cp /bin/sleep "$d/tool"
	host_snapshot
	# Control: the user's copy is writable outside.
	[ -w "$d/tool" ] || fail "control: $d/tool is not writable outside"
	sum=$(cat "$d/tool" "$CONFINE" /bin/sh | sha256sum)
	run_confine -- sh -c '
		"$1" 5 & p=$!
		for f in "/proc/$p/exe" /proc/1/exe /proc/self/exe /proc/$$/exe "$1" "$2" /bin/sh; do
			(true >>"$f") 2>/dev/null && echo "OPENED $f"
		done
		kill "$p"; true' sh "$d/tool" "$CONFINE"
	assert_status "$RC" 0
	assert_not_file_has_content "$OUT" OPENED
	assert_eq "$(cat "$d/tool" "$CONFINE" /bin/sh | sha256sum)" "$sum" "the binaries"
	assert_host_unchanged
}

# The kernel's knobs: core_pattern (a pipe there runs as root on the host
# at the next crash), sysrq-trigger, cgroup v1 release_agent (CVE-2022-0492).
t_knobs() {
	esc_ws
	core=$(cat /proc/sys/kernel/core_pattern)
	# Control: as root, the same value written back is accepted outside
	# (nothing changes); no other user may write it outside either.
	if [ "$(id -u)" -eq 0 ]; then
		sh -c 'cat /proc/sys/kernel/core_pattern >/proc/sys/kernel/core_pattern' ||
		    diag "control: core_pattern is not writable outside either"
	fi
	run_confine -- sh -c '
		echo "|/bin/sh -c true" >/proc/sys/kernel/core_pattern && echo WROTE core_pattern
		echo h >/proc/sysrq-trigger && echo WROTE sysrq
		for f in /sys/fs/cgroup/*/release_agent /sys/fs/cgroup/release_agent \
		    /sys/fs/cgroup/*/notify_on_release; do
			[ -e "$f" ] || continue
			echo /bin/true >"$f" && echo "WROTE $f"
		done
		echo $$ >/sys/fs/cgroup/cgroup.procs && echo WROTE cgroup.procs
		true'
	assert_status "$RC" 0
	assert_not_file_has_content "$OUT" WROTE
	assert_file_has_content "$ERR" 'Read-only file system|Permission denied'
	assert_eq "$(cat /proc/sys/kernel/core_pattern)" "$core" "core_pattern"
	assert_host_unchanged
}

# Host processes are not even listed (pid namespace); with the landlock
# backend they are (no pid namespace), and t_kill/t_ptrace cover them.
t_ps() {
	esc_ws
	grep -q "sleep" "/proc/$HOST_PID/cmdline" ||
	    fail "control: the host process is not in /proc outside"
	run_confine -- sh -c 'cat /proc/[0-9]*/cmdline 2>/dev/null | tr "\0" " "; echo; ls -d /proc/[0-9]* | wc -l'
	assert_status "$RC" 0
	case $BACKEND in
	landlock) ;;
	*)
		assert_not_file_has_content "$OUT" "60\\.$N"
		[ "$(tail -n 1 "$OUT")" -lt 10 ] ||
		    fail "$(tail -n 1 "$OUT") processes listed inside"
		;;
	esac
	assert_host_unchanged
}

tcase "P1 ptrace a host process of the same user: $NOPID" t_ptrace
tcase "P1 process_vm_readv of a host process: $NOPID" t_vm
tcase "P4 /proc/PID/maps and mem of a host process: unreachable" t_mem
tcase "P2 SIGKILL to a host process: refused, it lives" t_kill
tcase "P7 pidfd_open of a host process" t_pidfd
tcase "P3 confine's environment is not in any /proc/*/environ inside" t_environ
tcase "P5 descriptors the caller left open do not reach the command" t_fds
tcase "P6 the kernel keyrings: EPERM" t_keyring
tcase "P4 host binaries cannot be overwritten through /proc/*/exe" t_exe
tcase "core_pattern, sysrq-trigger, release_agent: read-only" t_knobs
tcase "host processes are not listed in /proc inside" t_ps
tap_done
