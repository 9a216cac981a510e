#!/bin/sh
# SPDX-License-Identifier: ISC
# host-sockets.sh - no unix socket of the host is reachable from inside, in
# any network mode (escape catalogue 4.7, I1 and I2): a network namespace
# does not isolate pathname sockets, and Landlock below ABI 9 does not
# cover them, so the mount layout must hide or mask every one.  Walks the
# host's /proc/net/unix (read outside, passed in) and the well-known
# daemon sockets, and three listeners of the test's own: under /tmp,
# under /var/tmp (visible inside, so it must be masked) and abstract.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
require_userns
command -v python3 >/dev/null 2>&1 || skip_all "no python3 for the servers and probes"
plan 7

. "$TESTS_SRCDIR/net-lib.sh"

ONLINE=$TEST_TMP/online.ini
printf '[profile]\nquadrant = online\n[workspace]\nprivate = no\n' >"$ONLINE"

# Our own targets: one a listener we know is live.
OWN=$TEST_TMP/own.list
: >"$OWN"
TMPD=$(host_scratch "$(mktemp -d /tmp/confine-hs.XXXXXX)") &&
chmod 0755 "$TMPD" &&
start_server tmp unix "$TMPD/sock" >/dev/null &&
echo "$TMPD/sock" >>"$OWN" || {
	echo "Bail out! cannot start a unix server under /tmp"
	exit 1
}
VARTMPD=
if [ -d /var/tmp ] && [ -w /var/tmp ]; then
	VARTMPD=$(host_scratch "$(mktemp -d /var/tmp/confine-hs.XXXXXX)") &&
	chmod 0755 "$VARTMPD" &&
	start_server vartmp unix "$VARTMPD/sock" >/dev/null &&
	echo "$VARTMPD/sock" >>"$OWN" || {
		echo "Bail out! cannot start a unix server under /var/tmp"
		exit 1
	}
fi
ABSTRACT=confine-hs-$(unique_num)
start_server abstract abstract "$ABSTRACT" >/dev/null &&
echo "@$ABSTRACT" >>"$OWN" || {
	echo "Bail out! cannot start an abstract unix server"
	exit 1
}

# Every socket of the host: /proc/net/unix (pathname and abstract, read
# here, outside) and the well-known ones, whether they exist or not.
ALL=$TEST_TMP/all.list
{
	cat "$OWN"
	awk 'NR > 1 && NF >= 8 { print $8 }' /proc/net/unix
	uid=$(id -u)
	echo /run/dbus/system_bus_socket
	echo /var/run/dbus/system_bus_socket
	echo /var/run/docker.sock
	echo /run/docker.sock
	echo /run/containerd/containerd.sock
	echo /run/podman/podman.sock
	echo /run/libvirt/libvirt-sock
	echo /run/systemd/private
	echo /run/systemd/journal/stdout
	echo "${XDG_RUNTIME_DIR:-/run/user/$uid}/bus"
	echo "${XDG_RUNTIME_DIR:-/run/user/$uid}/systemd/private"
	echo "${XDG_RUNTIME_DIR:-/run/user/$uid}/gnupg/S.gpg-agent"
	echo "${XDG_RUNTIME_DIR:-/run/user/$uid}/wayland-0"
	echo "${XDG_RUNTIME_DIR:-/run/user/$uid}/pulse/native"
	echo /tmp/.X11-unix/X0
	echo @/tmp/.X11-unix/X0
	echo "/tmp/tmux-$uid/default"
	[ -z "${SSH_AUTH_SOCK:-}" ] || echo "$SSH_AUTH_SOCK"
	for s in /tmp/ssh-*/agent.*; do
		[ -e "$s" ] && echo "$s"
	done
	true
} | awk '!seen[$0]++' >"$ALL"
diag "$(wc -l <"$ALL") socket paths to try, $(wc -l <"$OWN") of them live listeners of this test"

t_control() {
	st python3 "$NETPROBE" unix-list "$OWN" >"$TEST_TMP/control"
	n=$(grep -c ' connected$' "$TEST_TMP/control" || true)
	assert_eq "$n" "$(wc -l <"$OWN")" "listeners reachable outside"
}

# try_all LIST MODE-ARGS...: connect to every socket of LIST from inside;
# each must fail with ENOENT, ECONNREFUSED, EACCES or (abstract, Landlock
# scope) EPERM.
try_all() {
	_list=$1
	shift
	ws_new
	cp "$NETPROBE" "$WS/.t/netprobe.py"
	cp "$_list" "$WS/.t/targets"
	WS_HASH=$(tree_hash "$WS")
	run_confine "$@" -- sh -c '
	    [ -z "$1" ] || { test -e "$1" && echo "visible $1" || echo "hidden $1"; }
	    python3 .t/netprobe.py unix-list .t/targets' sh "${VARTMPD:+$VARTMPD/sock}"
	[ "$RC" -le 1 ] || fail "confine or the probe failed"
	sed -n '/^visible \|^hidden /p' "$OUT" | while read -r l; do diag "inside: $l"; done
	if [ -n "$UNIX_REFUSED" ]; then
		_errs=$UNIX_REFUSED
	else
		_errs='ENOENT\|ECONNREFUSED\|EACCES\|EPERM'
	fi
	if grep -v '^visible \|^hidden ' "$OUT" |
	    grep -v " \\($_errs\\)\$" >"$TEST_TMP/bad"; then
		diag_file "$TEST_TMP/bad" "reached or failed otherwise"
		fail "a host socket did not fail with $(echo "$_errs" | sed 's/\\|/, /g')"
	fi
	_want=$(wc -l <"$_list")
	_got=$(grep -vc '^visible \|^hidden ' "$OUT" || true)
	assert_eq "$_got" "$_want" "sockets tried"
	assert_status "$RC" 0
}

# Under landlock, below Landlock ABI 9, no AF_UNIX socket can be made at
# all (EACCES), in every network mode.
UNIX_REFUSED=
if [ "$BACKEND" = landlock ] && [ -x "$TRY_SYSCALL" ] &&
    [ "$(landlock_abi)" -lt 9 ]; then
	UNIX_REFUSED=EACCES
fi

require_host_mode() {
	[ -x "$TRY_SYSCALL" ] || skip_case "no try-syscall helper to read the Landlock ABI"
	abi=$(landlock_abi)
	[ "${abi:-0}" -ge 6 ] || skip_case "landlock ABI ${abi:-none} < 6: host mode is refused"
	require_leg_c_caller
}

t_own_none() { try_all "$OWN"; }
t_own_proxy() { try_all "$OWN" -n proxy; }
t_own_host() {
	require_host_mode
	try_all "$OWN" -p "$ONLINE" -n host
	# The host's network namespace: only the Landlock scope stops it.
	assert_file_has_content "$OUT" "^@$ABSTRACT ${UNIX_REFUSED:-EPERM}\$"
}
t_all_none() { try_all "$ALL"; }
t_all_proxy() { try_all "$ALL" -n proxy; }
t_all_host() { require_host_mode; try_all "$ALL" -p "$ONLINE" -n host; }

tcase "control: the test's listeners answer outside" t_control
tcase "none: the test's /tmp, /var/tmp and abstract listeners fail" t_own_none
proxy_tcase "proxy: the test's /tmp, /var/tmp and abstract listeners fail" t_own_proxy
tcase "host: the test's /tmp, /var/tmp and abstract listeners fail" t_own_host
tcase "none: every host socket and well-known path fails" t_all_none
proxy_tcase "proxy: every host socket and well-known path fails" t_all_proxy
tcase "host: every host socket and well-known path fails" t_all_host
tap_done
