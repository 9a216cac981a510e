#!/bin/sh
# SPDX-License-Identifier: ISC
# landlock.sh - the second layer: writes only in the granted trees; TCP,
# UDP and unix sockets on the sandbox's own loopback working (Landlock's
# TCP rules name ports, not addresses: they are left unhandled where the
# network namespace is the sandbox's own), refused on the landlock backend.
# Each denial is one that the mounts alone would have allowed.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
require_userns
require_try_syscall
ABI=$(landlock_abi)
[ "${ABI:-0}" -ge 1 ] || skip_all "landlock is not available on this kernel"
plan 9

t_run_tmpfs() {
	[ "$BACKEND" != landlock ] || { t_run_host; return; }
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

# landlock: no mount namespace, /run and /tmp are the host's; the caller may
# write to /tmp outside, and Landlock refuses it, and /run, inside.
t_run_host() {
	ws_new
	tmpf=$(host_scratch "/tmp/confine-test-f.$$")
	runf=$(host_scratch "/run/confine-test-f.$$")
	# Control: the caller may write to the host's /tmp.
	echo x >"$tmpf" && rm "$tmpf" || fail "control: writing $tmpf outside"
	run_confine -- sh -c '
		echo x >"$1" && echo tmp-written
		echo x >"$2" && echo run-written' sh "$tmpf" "$runf"
	assert_status "$RC" 2
	assert_file_empty "$OUT"
	assert_file_has_content "$ERR" "cannot create $tmpf: Permission denied"
	assert_file_has_content "$ERR" "cannot create $runf: Permission denied"
	assert_not_exists "$tmpf"
	assert_not_exists "$runf"
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
	[ "$BACKEND" != landlock ] || { t_granted_session; return; }
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

# landlock: the grants are the session's copy, tmp and home (PWD, TMPDIR
# and HOME); the host's /tmp and /dev/shm are refused (EACCES).
t_granted_session() {
	ws_new
	f=confine-test-granted.$$
	for d in /tmp /dev/shm; do
		host_scratch "$d/$f" >/dev/null
	done
	run_confine -- sh -c '
		for d in "$PWD" "$TMPDIR" "$HOME" /tmp /dev/shm; do
			echo x >"$d/$1" && rm "$d/$1" && echo "$d ok"
		done
		echo x >/dev/null && echo null ok' sh "$f"
	assert_status "$RC" 0
	sed "s|^$SESSIONS/[0-9a-f.-]*/|S/|" "$OUT" >"$TEST_TMP/got"
	printf 'S/upper ok\nS/tmp ok\nS/home ok\nnull ok\n' >"$TEST_TMP/want"
	cmp -s "$TEST_TMP/got" "$TEST_TMP/want" || {
		diag_file "$OUT" "inside"
		fail "a granted tree is not writable, or a host one is"
	}
	assert_file_has_content "$ERR" "cannot create /tmp/$f: Permission denied"
	assert_file_has_content "$ERR" "cannot create /dev/shm/$f: Permission denied"
	assert_not_exists "/tmp/$f"
	assert_not_exists "/dev/shm/$f"
	assert_ws_unchanged
}

# The landlock backend's network none: seccomp refuses every socket family
# but AF_UNIX before Landlock's TCP rules are reached.  Elsewhere the
# loopback is the sandbox's own: a bind works, a connect to a port where
# nothing listens there is refused by the stack.
if [ "$BACKEND" = landlock ]; then
	BIND_GOT=EAFNOSUPPORT CONNECT_GOT=EAFNOSUPPORT
else
	BIND_GOT=OK CONNECT_GOT=ECONNREFUSED
fi

need_tcp() {
	[ "$ABI" -ge 4 ] ||
	    skip_case "landlock ABI $ABI < 4: the kernel has no TCP rules"
}

t_tcp_bind() {
	ws_new
	assert_eq "$("$TRY_SYSCALL" tcp_bind)" "tcp_bind OK" "control: bind outside"
	run_confine -- "$TRY_IN" tcp_bind
	assert_status "$RC" 0
	assert_eq "$(cat "$OUT")" "tcp_bind $BIND_GOT" "bind inside"
	assert_ws_unchanged
}

t_tcp_connect() {
	ws_new
	# Control: outside, the connection reaches the stack and is refused.
	assert_eq "$("$TRY_SYSCALL" tcp_connect:1)" "tcp_connect ECONNREFUSED" \
	    "control: connect outside"
	run_confine -- "$TRY_IN" tcp_connect:1 tcp_connect:80
	assert_status "$RC" 0
	printf 'tcp_connect %s\ntcp_connect %s\n' "$CONNECT_GOT" "$CONNECT_GOT" >"$TEST_TMP/want"
	cmp -s "$OUT" "$TEST_TMP/want" || {
		diag_file "$OUT" "inside"
		fail "TCP connect does not fail with $CONNECT_GOT"
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
	if [ "$BACKEND" = landlock ]; then
		# No network namespace: the loopback would be the host's.
		assert_eq "$(cat "$OUT")" "udp_loop EAFNOSUPPORT" "UDP inside"
	else
		assert_eq "$(cat "$OUT")" "udp_loop OK" "UDP on loopback inside"
	fi
	assert_ws_unchanged
}

t_unix() {
	[ "$BACKEND" != landlock ] || { t_unix_pair; return; }
	ws_new
	s=$(host_scratch "/tmp/confine-test-sock.$$")
	o=$(host_scratch "/tmp/confine-test-out.$$")
	run_confine -- sh -c "
		'$TRY_IN' unix_serve:$s >$o &
		i=0
		while ! grep -q ready $o && [ \$i -lt $((50 * TEST_TIME_FACTOR)) ]; do sleep 0.1; i=\$((i + 1)); done
		'$TRY_IN' unix_connect:$s
		kill \$!"
	assert_status "$RC" 0
	assert_eq "$(cat "$OUT")" "unix_connect OK" "a unix socket in /tmp inside"
	assert_ws_unchanged
}

# landlock: a pathname unix socket cannot be made (socket(AF_UNIX) is
# refused, EACCES); a socketpair works.
t_unix_pair() {
	ws_new
	command -v python3 >/dev/null || skip_case "python3 is not installed"
	run_confine -- sh -c "
		'$TRY_IN' unix_serve:\$TMPDIR/sock
		python3 -c 'import socket; a, b = socket.socketpair(); a.sendall(b\"pair\"); print(b.recv(4).decode())'"
	assert_status "$RC" 0
	assert_eq "$(cat "$OUT")" "unix_serve EACCES
pair" "a socket in TMPDIR, a socketpair"
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
tcase "the workspace, /tmp, /dev/shm, home and /dev/null are writable (landlock: the session's)" t_granted
tcase "TCP bind on the sandbox's loopback works (landlock: EAFNOSUPPORT)" t_tcp_bind
tcase "TCP connect on the sandbox's loopback: ECONNREFUSED, no listener (landlock: EAFNOSUPPORT)" t_tcp_connect
tcase "an MPTCP socket: EPROTONOSUPPORT" t_tcp_mptcp
tcase "UDP on loopback works (landlock: EAFNOSUPPORT)" t_udp
tcase "unix sockets inside the sandbox work (landlock: a socketpair only)" t_unix
tcase "landlock stays usable inside" t_nested
tap_done
