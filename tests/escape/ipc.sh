#!/bin/sh
# SPDX-License-Identifier: ISC
# ipc.sh - escape catalogue 4.7: IPC and host sockets.  Unix sockets of
# the host, abstract and pathname (a network namespace isolates only the
# first kind), in /tmp, /var/tmp, the workspace, the home and
# $XDG_RUNTIME_DIR; every socket in the host's /proc/net/unix; shared
# memory and SysV IPC; device nodes.  The listeners are the test's own,
# started outside, and each answers a connect outside (the control).
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
. "$TESTS_SRCDIR/escape-lib.sh"
plan 9

# serve ADDR: a unix listener of try-syscall's on ADDR (PATH or @NAME).
serve() {
	_o=$TEST_TMP/serve.$(unique_num)
	"$TRY_SYSCALL" "unix_serve:$1" >"$_o" 2>&1 &
	track_pid $!
	wait_for 10 grep -qs '^ready$' "$_o" || fail "cannot listen on $1"
	# The socket is part of the host state from now on.
	host_snapshot
}

# With the landlock backend, socket(AF_UNIX) itself is refused by the
# filter (Landlock before ABI 9 does not cover pathname sockets).
case $BACKEND in
landlock) NOSOCK='EAFNOSUPPORT|EPERM|EACCES' ;;
*) NOSOCK='NONE' ;;
esac

# probe_unix WANT ADDR...: connect to each from inside: WANT (an ERE) or,
# with the landlock backend, a refused socket().
probe_unix() {
	_want=$1
	shift
	for _a; do
		assert_eq "$("$TRY_SYSCALL" "unix_connect:$_a")" "unix_connect OK" "control: $_a outside"
	done
	_args=
	for _a; do _args="$_args unix_connect:$_a"; done
	RC=0
	run_confine -- sh -c 'for a; do "$0" "$a"; done' "$TRY_IN" $_args
	assert_status "$RC" 0
	assert_lines "$OUT" "$#"
	if grep -v -x -E "unix_connect ($_want|$NOSOCK)" "$OUT" >"$TEST_TMP/bad"; then
		diag_file "$TEST_TMP/bad" "reached or failed otherwise"
		fail "a host socket did not fail with /$_want/"
	fi
}

# I1: an abstract socket (X11, older D-Bus): a new network namespace, or
# the Landlock scope.
t_abstract() {
	esc_ws
	name=@$HOST_MARK-abstract
	serve "$name"
	case $BACKEND in
	landlock) probe_unix EPERM "$name" ;;
	*) probe_unix ECONNREFUSED "$name" ;;
	esac
	assert_host_unchanged
}

# I2: a pathname socket in /tmp (tmux, X11, ssh-agent live there).
t_tmp() {
	esc_ws
	d=$(host_scratch "$(mktemp -d /tmp/confine-sock.XXXXXX)")
	chmod 0755 "$d"
	serve "$d/sock"
	probe_unix 'ENOENT|EACCES' "$d/sock"
	assert_host_unchanged
}

# I2: a pathname socket under /var/tmp, a tree the sandbox sees: masked
# (bwrap) or the overlay's inode, with no listener (native).
t_vartmp() {
	[ -d /var/tmp ] && [ -w /var/tmp ] || skip_case "no writable /var/tmp"
	esc_ws
	d=$(host_scratch "$(mktemp -d /var/tmp/confine-sock.XXXXXX)")
	chmod 0755 "$d"
	serve "$d/sock"
	probe_unix 'ECONNREFUSED|ENOENT|EACCES' "$d/sock"
	assert_host_unchanged
}

# I2: a socket in the workspace (a dev server's, an editor's).
t_workspace() {
	esc_ws
	serve "$WS/.t/editor.sock"
	probe_unix 'ECONNREFUSED|ENOENT|EACCES' "$WS/.t/editor.sock"
	assert_host_unchanged
}

# I2: the agent sockets: $SSH_AUTH_SOCK in the home, the session bus in
# $XDG_RUNTIME_DIR (systemd-run --user would run anything on the host).
t_agents() {
	[ -d /var/tmp ] && [ -w /var/tmp ] || skip_case "no writable /var/tmp"
	esc_ws
	run=$(host_scratch "$(mktemp -d /var/tmp/confine-run.XXXXXX)")
	# Searchable by others: a socket in a directory another user cannot
	# search makes a confine run by root refuse to start (it cannot mask
	# it), which would upset tests running at the same time.
	chmod 0755 "$run"
	serve "$HOME/.ssh/agent.sock"
	serve "$run/bus"
	XDG_RUNTIME_DIR=$run SSH_AUTH_SOCK=$HOME/.ssh/agent.sock \
	    DBUS_SESSION_BUS_ADDRESS=unix:path=$run/bus
	export XDG_RUNTIME_DIR SSH_AUTH_SOCK DBUS_SESSION_BUS_ADDRESS
	probe_unix 'ENOENT|EACCES|ECONNREFUSED' "$HOME/.ssh/agent.sock" "$run/bus"
	assert_not_file_has_content "$OUT" OK
	assert_host_unchanged
}

# I2: every unix socket the host has bound (/proc/net/unix, read here).
t_all() {
	esc_ws
	awk 'NR > 1 && NF >= 8 { print $8 }' /proc/net/unix | sort -u >"$TEST_TMP/all"
	[ -s "$TEST_TMP/all" ] || skip_case "the host has no bound unix socket"
	cp "$TEST_TMP/all" "$WS/.t/all"
	host_snapshot
	run_confine -- sh -c 'while read -r a; do "$0" "unix_connect:$a" | sed "s|^|$a |"; done <.t/all' "$TRY_IN"
	assert_status "$RC" 0
	assert_eq "$(wc -l <"$OUT")" "$(wc -l <"$TEST_TMP/all")" "sockets tried"
	if grep -E ' unix_connect OK$' "$OUT" >"$TEST_TMP/bad"; then
		diag_file "$TEST_TMP/bad" "reached"
		fail "a host socket was reached from inside"
	fi
	assert_host_unchanged
}

# I4: /dev/shm is private: the host's segment is not there, and what the
# command puts there does not reach the host.
t_shm() {
	esc_ws
	f=$(mark /dev/shm host)
	echo shm-secret >"$f"
	host_snapshot
	grep -q shm-secret "$f" || fail "control: cannot read $f outside"
	run_confine -- sh -c 'cat "$1"; ls /dev/shm; echo x >"$2" && echo MADE; true' sh "$f" "/dev/shm/$HOST_MARK-inside"
	assert_status "$RC" 0
	assert_not_file_has_content "$OUT" "shm-secret|$HOST_MARK-host"
	case $BACKEND in
	landlock)
		# The host's /dev/shm, closed by Landlock: not read, not
		# listed, nothing made.
		assert_not_file_has_content "$OUT" '^MADE$'
		[ "$(grep -c 'Permission denied' "$ERR")" -eq 3 ] ||
		    fail "not three refusals (EACCES) in the host's /dev/shm" ;;
	*) assert_file_has_content "$OUT" '^MADE$' ;;	# a private one
	esac
	assert_not_exists "/dev/shm/$HOST_MARK-inside"
	assert_host_unchanged
}

# I4: SysV shared memory of the host (an IPC namespace of its own).
t_sysv() {
	command -v ipcmk >/dev/null 2>&1 || skip_case "no ipcmk to make a segment"
	esc_ws
	id=$(ipcmk -M 4096 | sed -n 's/^Shared memory id: //p')
	[ -n "$id" ] || fail "control: ipcmk made no segment"
	seen='ipcs -m | awk -v id="$1" '\''$2 == id { print "SEEN" }'\'''
	[ "$(sh -c "$seen" sh "$id")" = SEEN ] ||
	    { ipcrm -m "$id"; fail "control: ipcs does not list $id outside"; }
	run_confine -- sh -c "$seen; ipcrm -m \"\$1\" && echo REMOVED; ipcmk -M 4096 >/dev/null && echo MADE; true" sh "$id"
	after=$(sh -c "$seen" sh "$id")
	ipcrm -m "$id" 2>/dev/null || true
	assert_eq "$after" SEEN "the segment after the run"
	assert_status "$RC" 0
	case $BACKEND in
	landlock)
		# No IPC namespace: /proc/sysvipc lists the host's segments,
		# and the filter refuses every SysV IPC call (EPERM), so none
		# is removed, attached or made on the host.
		assert_not_file_has_content "$OUT" '^MADE$'
		assert_file_has_content "$ERR" 'Operation not permitted' ;;
	*)
		assert_not_file_has_content "$OUT" 'SEEN'
		assert_file_has_content "$OUT" '^MADE$' ;;	# a private one
	esac
	assert_not_file_has_content "$OUT" REMOVED
	assert_host_unchanged
}

# I6: device nodes: a minimal /dev, and none can be made.
t_dev() {
	esc_ws
	# Control: the host's /dev has more than the sandbox's allow-list.
	[ -e /dev/kmsg ] || [ -e /dev/mem ] || [ -e /dev/console ] ||
	    [ -d /dev/input ] || [ -e /dev/fuse ] || [ -e /dev/kvm ] ||
	    skip_case "the host's /dev has none of the devices probed"
	run_confine -- sh -c '
		ls /dev
		for d in kmsg mem kvm fuse console input dri loop0 vda sda; do
			[ -e "/dev/$d" ] && echo "PRESENT $d"
		done
		mknod .t/null c 1 3 && echo MADE
		cat /dev/kmsg 2>/dev/null | head -n 1 | sed "s/^/KMSG /"
		head -c 16 /dev/core >/dev/null 2>&1 && echo KCORE
		head -c 16 /proc/kcore >/dev/null 2>&1 && echo KCORE
		true'
	assert_status "$RC" 0
	assert_not_file_has_content "$OUT" 'MADE|KMSG|KCORE'
	# bwrap's /dev has core too: its link to /proc/kcore, unreadable.
	allow='fd|full|null|ptmx|pts|random|shm|stderr|stdin|stdout|tty|urandom|zero'
	[ "$BACKEND" != bwrap ] || allow="$allow|core"
	case $BACKEND in
	landlock) ;;	# the host's /dev, which Landlock keeps closed
	*)
		assert_not_file_has_content "$OUT" PRESENT
		sed -n '1,/^$/p' "$OUT" | grep -v -x -E "$allow" >"$TEST_TMP/extra" || true
		[ ! -s "$TEST_TMP/extra" ] || { diag_file "$TEST_TMP/extra" "extra"; fail "/dev has more than the allow-list"; }
		;;
	esac
	assert_host_unchanged
}

tcase "I1 an abstract unix socket of the host: refused" t_abstract
tcase "I2 a pathname socket in /tmp: not there" t_tmp
tcase "I2 a pathname socket under /var/tmp: unreachable" t_vartmp
tcase "I2 a pathname socket in the workspace: unreachable" t_workspace
tcase "I2 ssh-agent in the home, the session bus in XDG_RUNTIME_DIR" t_agents
tcase "I2 every socket in the host's /proc/net/unix" t_all
tcase "I4 /dev/shm is private both ways" t_shm
tcase "I4 SysV shared memory of the host: not visible, not removable" t_sysv
tcase "I6 /dev holds the allow-list only; mknod fails" t_dev
tap_done
