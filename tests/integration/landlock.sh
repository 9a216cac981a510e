#!/bin/sh
# SPDX-License-Identifier: ISC
# landlock.sh - the second layer: writes only in the granted trees, TCP
# bind and connect denied even on loopback, UDP and unix sockets working.
# Each denial is one that the mounts alone would have allowed.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
require_userns
require_try_syscall
ABI=$(landlock_abi)
[ "${ABI:-0}" -ge 1 ] || skip_all "landlock is not available on this kernel"
plan 9

t_run_tmpfs() {
	ws_new
	# Control, inside: /run is a read-write tmpfs owned by the caller,
	# mode 0755, so only landlock stands between the command and it;
	# /tmp, also a tmpfs, takes the same write.
	tmpf=$(host_scratch "/tmp/confine-test-f.$$")
	runf=$(host_scratch "/run/confine-test-f.$$")
	run_confine -- sh -c '
		stat -c "%u %a" /run
		awk "\$2 == \"/run\" { split(\$4, o, \",\"); print \$3, o[1] }" /proc/self/mounts
		echo x >"$1" && echo tmp-ok
		echo x >"$2" && echo run-written' sh "$tmpf" "$runf"
	assert_status "$RC" 2
	printf '%s 755\ntmpfs rw\ntmp-ok\n' "$(id -u)" >"$TEST_TMP/want"
	cmp -s "$OUT" "$TEST_TMP/want" || {
		diag_file "$OUT" "inside"
		fail "/run is not a writable tmpfs only landlock denies"
	}
	assert_file_has_content "$ERR" "cannot create $runf: Permission denied"
	assert_ws_unchanged
}

t_proc_write() {
	ws_new
	# Control: a process may rename itself through /proc outside.
	sh -c 'echo renamed >/proc/self/comm' || fail "control: /proc/self/comm outside"
	run_confine -- sh -c 'echo renamed >/proc/self/comm && echo written'
	assert_status "$RC" 2
	assert_file_empty "$OUT"
	assert_file_has_content "$ERR" 'cannot create /proc/self/comm: Permission denied'
	assert_ws_unchanged
}

t_granted() {
	ws_new
	f=confine-test-granted.$$
	for d in /tmp /dev/shm "$HOME"; do
		host_scratch "$d/$f" >/dev/null
	done
	run_confine -- sh -c '
		for d in "$PWD" /tmp /dev/shm "$HOME"; do
			echo x >"$d/$1" && rm "$d/$1" && echo "$d ok"
		done
		echo x >/dev/null && echo null ok' sh "$f"
	assert_status "$RC" 0
	printf '%s ok\n/tmp ok\n/dev/shm ok\n%s ok\nnull ok\n' "$WS" "$HOME" >"$TEST_TMP/want"
	cmp -s "$OUT" "$TEST_TMP/want" || {
		diag_file "$OUT" "inside"
		fail "a granted tree is not writable"
	}
	assert_ws_unchanged
}

need_tcp() {
	[ "$ABI" -ge 4 ] ||
	    skip_case "landlock ABI $ABI < 4: the kernel has no TCP rules"
}

t_tcp_bind() {
	ws_new
	need_tcp
	assert_eq "$("$TRY_SYSCALL" tcp_bind)" "tcp_bind OK" "control: bind outside"
	run_confine -- "$TRY_IN" tcp_bind
	assert_status "$RC" 0
	assert_eq "$(cat "$OUT")" "tcp_bind EACCES" "bind inside"
	assert_ws_unchanged
}

t_tcp_connect() {
	ws_new
	need_tcp
	# Control: outside, the connection reaches the stack and is refused.
	assert_eq "$("$TRY_SYSCALL" tcp_connect:1)" "tcp_connect ECONNREFUSED" \
	    "control: connect outside"
	run_confine -- "$TRY_IN" tcp_connect:1 tcp_connect:80
	assert_status "$RC" 0
	printf 'tcp_connect EACCES\ntcp_connect EACCES\n' >"$TEST_TMP/want"
	cmp -s "$OUT" "$TEST_TMP/want" || {
		diag_file "$OUT" "inside"
		fail "TCP connect is not denied with EACCES"
	}
	assert_ws_unchanged
}

t_tcp_mptcp() {
	ws_new
	need_tcp
	# MPTCP would slip past landlock's TCP rules; seccomp refuses it.
	run_confine -- "$TRY_IN" socket_mptcp
	assert_status "$RC" 0
	assert_eq "$(cat "$OUT")" "socket_mptcp EPROTONOSUPPORT" "an MPTCP socket inside"
	assert_ws_unchanged
}

t_udp() {
	ws_new
	assert_eq "$("$TRY_SYSCALL" udp_loop)" "udp_loop OK" "control: UDP outside"
	run_confine -- "$TRY_IN" udp_loop
	assert_status "$RC" 0
	assert_eq "$(cat "$OUT")" "udp_loop OK" "UDP on loopback inside"
	assert_ws_unchanged
}

t_unix() {
	ws_new
	s=$(host_scratch "/tmp/confine-test-sock.$$")
	o=$(host_scratch "/tmp/confine-test-out.$$")
	run_confine -- sh -c "
		'$TRY_IN' unix_serve:$s >$o &
		i=0
		while ! grep -q ready $o && [ \$i -lt 50 ]; do sleep 0.1; i=\$((i + 1)); done
		'$TRY_IN' unix_connect:$s
		kill \$!"
	assert_status "$RC" 0
	assert_eq "$(cat "$OUT")" "unix_connect OK" "a unix socket in /tmp inside"
	assert_ws_unchanged
}

t_nested() {
	ws_new
	# The command is already in a domain: it may only narrow it.
	run_confine -- "$TRY_IN" landlock_abi
	assert_status "$RC" 0
	assert_eq "$(cat "$OUT")" "landlock_abi $ABI" "the ABI inside"
	assert_ws_unchanged
}

tcase "/run, a writable tmpfs, is denied by landlock (EACCES)" t_run_tmpfs
tcase "writing /proc/self/comm is denied by landlock (EACCES)" t_proc_write
tcase "the workspace, /tmp, /dev/shm, home and /dev/null are writable" t_granted
tcase "TCP bind on loopback: EACCES" t_tcp_bind
tcase "TCP connect on loopback: EACCES" t_tcp_connect
tcase "an MPTCP socket: EPROTONOSUPPORT" t_tcp_mptcp
tcase "UDP on loopback works" t_udp
tcase "unix sockets inside the sandbox work" t_unix
tcase "landlock stays usable inside" t_nested
tap_done
