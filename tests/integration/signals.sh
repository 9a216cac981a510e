#!/bin/sh
# SPDX-License-Identifier: ISC
# signals.sh - SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to confine reach
# the command; a command killed by one gives 128+N; when confine is
# SIGKILLed, the whole sandbox dies with it.  Under bwrap, the signal
# ends bwrap, and the sandbox with it (--die-with-parent): the command
# cannot catch it, and confine gives 128+N.  A forwarded signal reaches
# the command's whole process group: a shell's foreground child too.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
require_userns
plan 9

# bg_start COMMAND...: start COMMAND in the background, from $WS, with the
# default action for every forwarded signal (a shell starts background
# jobs with SIGINT and SIGQUIT ignored); its pid in BG.
bg_start() {
	# Empty the output first: a waiter must not see the last run's lines.
	: >"$OUT"
	: >"$ERR"
	(
		cd "$WS" || exit 1
		exec env --default-signal=INT,QUIT,TERM,HUP "$@" \
		    </dev/null >"$OUT" 2>"$ERR"
	) &
	BG=$!
	track_pid "$BG"
}

# bg_wait SECONDS: wait for BG to end, SIGKILLing it after SECONDS; its
# status in RC.
bg_wait() {
	(sleep "$1"; kill -9 "$BG") >/dev/null 2>&1 &
	_wd=$!
	RC=0
	{ wait "$BG"; } 2>/dev/null || RC=$?
	if kill "$_wd" 2>/dev/null; then
		{ wait "$_wd"; } 2>/dev/null || true
	else
		fail "still running after $1 s"
	fi
}

TRAP_SCRIPT='
	trap "echo got $1; exit 42" $1
	echo ready
	while :; do sleep 0.1; done'

t_forward() {
	ws_new
	# Control: the script reacts so to the signal outside.
	bg_start sh -c "$TRAP_SCRIPT" sh "$1"
	wait_for 5 grep -q ready "$OUT" || fail "control: not ready"
	kill -s "$1" "$BG"
	bg_wait 10
	assert_status "$RC" 42
	mark=confine-test-mark-$(unique_num)
	bg_start "$CONFINE" -- sh -c "$TRAP_SCRIPT" sh "$1" "$mark"
	wait_for 10 grep -q ready "$OUT" || fail "the command did not start"
	kill -s "$1" "$BG"
	bg_wait 10
	if [ "$BACKEND" = bwrap ]; then
		assert_status "$RC" $((128 + $(kill -l "$1")))
		assert_not_file_has_content "$OUT" "^got "
	else
		assert_status "$RC" 42
		assert_file_has_content "$OUT" "^got $1\$"
	fi
	# [c]: the pattern does not match the command line that holds it.
	wait_for 5 sh -c "! pgrep -f '[c]${mark#c}' >/dev/null" || {
		pkill -9 -f "$mark" || true
		fail "the command outlived the signal"
	}
	assert_ws_unchanged
}

# The whole process group: "sh -c 'sleep; :'" (sh waits for its child,
# which must get the signal as well).
t_group() {
	ws_new
	mark=$(unique_num)
	bg_start "$CONFINE" -- sh -c "echo ready; sleep 300.$mark; :"
	wait_for 10 grep -q ready "$OUT" || fail "the command did not start"
	wait_for 10 pgrep -f "^sleep 300\\.$mark\$" >/dev/null ||
	    fail "control: pgrep does not see the command's child"
	kill -s "$1" "$BG"
	bg_wait 10
	assert_status "$RC" $((128 + $(kill -l "$1")))
	wait_for 5 sh -c "! pgrep -f '^sleep 300\\.$mark\$' >/dev/null" || {
		pkill -9 -f "^sleep 300\\.$mark\$" || true
		fail "the command's child outlived the signal"
	}
	assert_ws_unchanged
}

t_killed() {
	ws_new
	bg_start "$CONFINE" -- sh -c 'echo ready; exec sleep 30'
	wait_for 10 grep -q ready "$OUT" || fail "the command did not start"
	sleep 0.2
	kill -s TERM "$BG"
	bg_wait 10
	assert_status "$RC" 143
	assert_ws_unchanged
}

t_sigkill() {
	not_on landlock "no pid namespace: a SIGKILLed confine cannot kill what it started"
	ws_new
	n=$(unique_num)
	pattern="^sleep 30\\.${n}[12]\$"
	bg_start "$CONFINE" -- sh -c "sleep 30.${n}1 & sleep 30.${n}2 & echo ready; wait"
	wait_for 10 grep -q ready "$OUT" || fail "the command did not start"
	# Control: both sleeps run and pgrep sees them.
	wait_for 5 sh -c "[ \$(pgrep -f '$pattern' | wc -l) -eq 2 ]" ||
	    fail "control: pgrep does not see the two sleeps"
	kill -9 "$BG"
	bg_wait 10
	assert_status "$RC" 137
	wait_for 5 sh -c "! pgrep -f '$pattern' >/dev/null" || {
		pgrep -a -f "$pattern" | sed 's/^/# survivor: /'
		pkill -9 -f "$pattern" || true
		fail "the sandbox outlived confine's SIGKILL"
	}
	assert_ws_unchanged
}

tcase "SIGTERM is forwarded to the command" t_forward TERM
tcase "SIGINT is forwarded to the command" t_forward INT
tcase "SIGHUP is forwarded to the command" t_forward HUP
tcase "SIGQUIT is forwarded to the command" t_forward QUIT
tcase "SIGINT reaches the command's whole process group" t_group INT
tcase "SIGTERM reaches the command's whole process group" t_group TERM
tcase "a command killed by the forwarded SIGTERM: 143" t_killed
tcase "SIGKILL of confine kills everything in the sandbox" t_sigkill
tcase "SIGTERM is forwarded (again, after a SIGKILL)" t_forward TERM
tap_done
