#!/bin/sh
# SPDX-License-Identifier: ISC
# limits-cgroup-systemd.sh - the limits' systemd engine against a real
# systemd user manager (tests/user-manager.sh; CI starts one for each user
# it tests as and sets CONFINE_TEST_USER_MANAGER): the scope made, with
# Delegate=yes, the command in its sandbox cgroup and confine in its
# supervisor cgroup, the scope gone when confine is, and nothing of the
# command left.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
. "$TESTS_SRCDIR/limits-lib.sh"

[ -n "${CONFINE_TEST_USER_MANAGER:-}" ] ||
    skip_all "no systemd user manager to ask (tests/user-manager.sh start USER sets CONFINE_TEST_USER_MANAGER)"
[ -S "$CONFINE_TEST_USER_MANAGER/bus" ] ||
    skip_all "no bus at $CONFINE_TEST_USER_MANAGER/bus (is the user manager running?)"
"$CONFINE" doctor 2>/dev/null | grep -q '^limits: built with systemd (sd-bus): yes' ||
    skip_all "confine was built without systemd (./configure --without-systemd, or no libsystemd)"
# A manager may move a process into its scopes only from a cgroup under its
# own (cgroup.procs' common-ancestor rule); root may move any.
if [ "$(id -u)" -ne 0 ]; then
	case $CG_SELF/ in
	"${CONFINE_TEST_USER_CGROUP:-/nonexistent}"/*) ;;
	*) skip_all "this test runs in $CG_SELF, not under the user manager's cgroup ${CONFINE_TEST_USER_CGROUP:-(unknown)} (tests/user-manager.sh exec USER ...)" ;;
	esac
fi
require_userns
plan 4

XDG_RUNTIME_DIR=$CONFINE_TEST_USER_MANAGER
export XDG_RUNTIME_DIR
unset DBUS_SESSION_BUS_ADDRESS

unit_prop() {
	systemctl --user show -p "$2" --value "$1" 2>/dev/null
}

unit_gone() {
	[ "$(unit_prop "$1" LoadState)" = not-found ] && [ ! -e "$2" ]
}

# While it runs: the scope, delegated; the command in X/sandbox; confine in
# X/supervisor.  After: the scope and its cgroup gone.
t_scope() {
	ws_new
	bg_confine -- sh -c 'echo x >made; echo made; exec sleep 1000'
	bg_wait_cgroup
	bg_wait_made
	[ "$(limits_get engine)" = systemd ] || fail "engine: $(limits_get engine)"
	scope=${BG_CGROUP%/sandbox}
	unit=${scope##*/}
	case $unit in
	confine-*.scope) ;;
	*) fail "the command's cgroup $BG_CGROUP is not a scope's sandbox" ;;
	esac
	assert_eq "$(unit_prop "$unit" Delegate)" yes "Delegate"
	assert_eq "$(unit_prop "$unit" ActiveState)" active "ActiveState"
	grep -qx "$BG_PID" "$scope/supervisor/cgroup.procs" ||
	    fail "confine is not in $scope/supervisor"
	! grep -qx "$BG_PID" "$BG_CGROUP/cgroup.procs" ||
	    fail "confine itself is in the command's cgroup"
	bg_stop
	assert_status "$RC" 143
	wait_for 30 unit_gone "$unit" "$scope" ||
	    fail "$unit is left: $(unit_prop "$unit" ActiveState), $scope"
	assert_file_has_content "$SESSIONS"/*/report "^limits: systemd user manager \\(scope $unit"
	assert_file_has_content "$SESSIONS"/*/report "^  cgroup: $BG_CGROUP\$"
}

# The command sees itself in the scope's sandbox cgroup (landlock: no
# cgroup namespace of its own).
t_self() {
	not_on "native bwrap" "the command sees its cgroup namespace's root"
	ws_new
	run_confine -- cat /proc/self/cgroup
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^0::/.*/confine-[^/]*\.scope/sandbox$'
}

# A daemonised child of the command is gone with confine, and so is the
# scope.
t_nothing_left() {
	ws_new
	word=$((300000 + $$ % 100000))
	run_confine -v -- sh -c "setsid sh -c 'exec sleep $word' </dev/null >/dev/null 2>&1 & echo started"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^started$'
	assert_eq "$(count_procs "$word")" 0 "processes left"
	unit=$(sed -n "s|^confine: limits: .* the command in '.*/\(confine-[^/]*\.scope\)/sandbox'\$|\1|p" "$ERR")
	[ -n "$unit" ] || fail "-v did not name the scope"
	wait_for 30 unit_gone "$unit" /nonexistent ||
	    fail "$unit is left: $(unit_prop "$unit" ActiveState)"
}

# -v says which engine and where the command runs.
t_verbose() {
	ws_new
	run_confine -v -- true
	assert_status "$RC" 0
	assert_file_has_content "$ERR" '^confine: limits: systemd user manager \(scope confine-.*\.scope, delegated: .*\), the command in '
}

tcase "the scope: delegated, the command in its sandbox, confine out of it, gone after" t_scope
tcase "the command sees its cgroup: the scope's sandbox" t_self
tcase "nothing of the command outlives confine, nor does the scope" t_nothing_left
tcase "-v names the systemd engine and the command's cgroup" t_verbose
tap_done
