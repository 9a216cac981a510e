#!/bin/sh
# SPDX-License-Identifier: ISC
# terminal.sh - on a terminal, the command gets a new pty inside the
# sandbox (/dev/pts/0), relayed in raw mode with window-size changes
# forwarded, TIOCSTI refused, and the user's terminal modes restored on
# exit; without one, it runs in a new session with stdio passed through.
# The terminal is a tmux pane.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
require_userns
require_try_syscall
command -v tmux >/dev/null || skip_all "tmux is not installed"

SOCK=$TEST_TMP/tmux.sock
T() {
	tmux -S "$SOCK" -f /dev/null "$@"
}
tmux_cleanup() {
	T kill-server 2>/dev/null || true
}
LIB_CLEANUP_HOOK=tmux_cleanup

# One pane for the whole script: the cases follow one terminal session.
# A first session takes the lowest free pty, so that the pane's is not
# /dev/pts/0, the name the command's must have.
ws_new
PANE_STATE=$TEST_TMP/pane-state
T new-session -d -s first "sleep $((CONFINE_TIMEOUT * 4))" ||
    skip_all "tmux cannot start a session here"
# The pane's session, and its tty once it is there: made again (three
# times at most) when tmux loses it at once, as it has on a loaded host
# running several suites at the same time; never a skip.
for _try in 1 2 3; do
	T new-session -d -s t -x 100 -y 30 -c "$WS" \
	    "exec env -i PATH=/usr/bin:/bin HOME='$HOME' TERM=xterm-256color \
	    LANG=C XDG_STATE_HOME='$PANE_STATE' CONFINE_BACKEND='$BACKEND' PS1='$ ' sh" ||
	    skip_all "tmux cannot start a session here"
	PANE_TTY=$(T display-message -p -t t '#{pane_tty}' 2>/dev/null) || :
	[ -c "$PANE_TTY" ] && break
	T kill-session -t t 2>/dev/null || :
	sleep 1
done
[ -c "${PANE_TTY:-}" ] ||
    { echo "Bail out! tmux lost the pane's session three times"; exit 1; }
plan 17

pane() {
	T capture-pane -p -J -t t -S -500
}

# send TEXT: type a line in the pane.
send() {
	T send-keys -t t -l "$1"
	T send-keys -t t Enter
}

# wait_pane SECONDS LINE: until the pane shows LINE (an ERE without anchors)
# as a line of its own, or after a shell prompt (input typed ahead of the
# prompt is echoed before it); blanks after it are the terminal's (tmux's
# -J keeps the cells a program wrote as blanks).
wait_pane() {
	_secs=$1
	shift
	wait_for "$_secs" sh -c 'tmux -S "$1" capture-pane -p -J -t t -S -500 | grep -q -E -e "$2"' \
	    sh "$SOCK" "^([\$#] )?$1 *\$" || {
		pane | grep -v '^$' | tail -n 15 | sed 's/^/# pane: /'
		fail "the pane does not show /$1/"
	}
}

t_outside() {
	wait_pane 10 '\$ '
	# Control: the pane's shell is on the host pty, which it controls.
	send 'echo "OUT-$(tty)-OUT"'
	wait_pane 10 "OUT-$PANE_TTY-OUT"
	send "'$TRY_IN' ioctl_tiocsti:/dev/tty"
	wait_pane 10 'ioctl_tiocsti E[A-Z]+'
	pane | grep -q '^ioctl_tiocsti EPERM *$' &&
	    fail "control: TIOCSTI gives EPERM outside already"
	stty -g <"$PANE_TTY" >"$TEST_TMP/stty-before"
	true
}

t_start() {
	[ "$PANE_TTY" != /dev/pts/0 ] || fail "the pane itself is on /dev/pts/0"
	send "'$CONFINE' -- sh -c 'echo READY-\$((6 * 7)); exec sh'"
	wait_pane 10 'READY-42'
	if [ "$BACKEND" = landlock ]; then
		# No mount namespace: a new pty of the host's devpts, not the
		# pane's.
		send 'echo "IN-$(tty)-IN"'
		wait_pane 10 'IN-/dev/pts/[0-9]+-IN'
		pane | grep -q -x -F "IN-$PANE_TTY-IN" &&
		    fail "the command runs on the pane's own terminal"
		return 0
	fi
	send 'echo "IN-$(tty)-IN"'
	wait_pane 10 'IN-/dev/pts/0-IN'
	# The sandbox's own devpts instance: one pty, its own.
	send 'echo "PTS-$(ls /dev/pts | tr "\n" " ")-PTS"'
	wait_pane 10 'PTS-0 ptmx -PTS'
}

t_raw() {
	stty -a <"$PANE_TTY" >"$TEST_TMP/stty-raw"
	assert_file_has_content "$TEST_TMP/stty-raw" '(^| )-icanon( |$)'
	assert_file_has_content "$TEST_TMP/stty-raw" '(^| )-echo( |$)'
	assert_file_has_content "$TEST_TMP/stty-raw" '(^| )-isig( |$)'
}

t_tiocsti() {
	send "'$TRY_IN' ioctl_tiocsti:/dev/tty ioctl_tiocsti_high:/dev/tty; echo TIOCSTI-DONE"
	wait_pane 10 'TIOCSTI-DONE'
	pane | grep -E '^ioctl_tiocsti(_high)? ' | sed 's/ *$//' | tail -n 2 >"$TEST_TMP/tiocsti"
	printf 'ioctl_tiocsti EPERM\nioctl_tiocsti_high EPERM\n' >"$TEST_TMP/want"
	cmp -s "$TEST_TMP/tiocsti" "$TEST_TMP/want" || {
		diag_file "$TEST_TMP/tiocsti" "inside"
		fail "TIOCSTI on the sandbox's terminal is not refused with EPERM"
	}
}

t_size() {
	send 'echo "SZ-$(stty size)-SZ"'
	wait_pane 10 'SZ-30 100-SZ'
}

t_resize() {
	T resize-window -t t -x 120 -y 40
	sleep 0.3
	send 'echo "RSZ-$(stty size)-RSZ"'
	wait_pane 10 'RSZ-40 120-RSZ'
}

t_ctrl_c() {
	send 'sleep 30'
	sleep 0.5
	T send-keys -t t C-c
	send 'echo "INT-$?-INT"'
	wait_pane 10 'INT-130-INT'
}

t_exit() {
	send 'exit 7'
	# Typed while confine still relays, the next line would go to the
	# pty of the sandbox that is ending: wait for the user's shell.
	wait_for 10 sh -c '[ "$(tmux -S "$1" display -p -t t "#{pane_current_command}")" != confine ]' \
	    sh "$SOCK" || fail "confine is still in the foreground"
	send 'echo "RC-$?-RC"'
	wait_pane 10 'RC-7-RC'
}

t_redirect() {
	send "'$CONFINE' -- sh -c 'echo TO-FILE; tty; echo TO-ERR >&2' >'$TEST_TMP/redirected'; echo \"RD-\$?-RD\""
	wait_pane 10 'RD-0-RD'
	pty=/dev/pts/0
	if [ "$BACKEND" = landlock ]; then
		# A new pty of the host's devpts, not the pane's.
		pty=$(sed -n 2p "$TEST_TMP/redirected")
		case $pty in
		/dev/pts/[0-9]*) ;;
		*) fail "not on a pty: $pty" ;;
		esac
		assert_ne "$pty" "$PANE_TTY" "the command's terminal"
	fi
	printf 'TO-FILE\n%s\n' "$pty" >"$TEST_TMP/want"
	cmp -s "$TEST_TMP/redirected" "$TEST_TMP/want" || {
		diag_file "$TEST_TMP/redirected" "the file"
		fail "stdout did not go to the file"
	}
	# The line ends with it (the typed command, which names it too, is
	# left out): where on the line it starts is the terminal's.
	pane | grep -v 'echo TO-ERR' | grep -q 'TO-ERR *$' || {
		pane | grep -v '^$' | tail -n 15 | sed 's/^/# pane: /'
		fail "stderr did not reach the terminal"
	}
}

t_term_while_relaying() {
	n=$(unique_num)
	send "'$CONFINE' -- sleep 30.$n; echo \"TM-\$?-TM\""
	pattern="^$CONFINE -- sleep 30\\.$n\$"
	wait_for 10 pgrep -f "$pattern" >/dev/null ||
	    fail "confine did not start in the pane"
	sleep 0.3
	pkill -TERM -f "$pattern"
	wait_pane 10 'TM-143-TM'
}

t_notfound_tty() {
	send "'$CONFINE' -- confine-no-such-program; echo \"NF-\$?-NF\""
	wait_pane 10 'NF-127-NF'
	pane | grep -q "^confine: cannot run 'confine-no-such-program'" ||
	    fail "no message on the terminal"
}

t_restored() {
	[ -s "$TEST_TMP/stty-before" ] || fail "no terminal modes saved before"
	stty -g <"$PANE_TTY" >"$TEST_TMP/stty-after"
	cmp -s "$TEST_TMP/stty-before" "$TEST_TMP/stty-after" || {
		diag "before: $(cat "$TEST_TMP/stty-before")"
		diag "after:  $(cat "$TEST_TMP/stty-after")"
		fail "the terminal modes differ after confine"
	}
	assert_ws_unchanged
}

t_hangup() {
	n=$(unique_num)
	pattern="^sleep 30\\.$n\$"
	T new-window -d -t t -n hup -c "$WS" \
	    "exec env XDG_STATE_HOME='$PANE_STATE' '$CONFINE' -- sleep 30.$n"
	# Control: the command runs, and pgrep sees it.
	wait_for 10 pgrep -f "$pattern" >/dev/null ||
	    fail "the command did not start in the new window"
	T kill-window -t t:hup
	wait_for 5 sh -c "! pgrep -f '$pattern' >/dev/null" || {
		pkill -9 -f "$pattern" || true
		fail "the command outlived its terminal"
	}
	assert_ws_unchanged
}

t_no_tty() {
	XDG_STATE_HOME=$TEST_TMP/state.notty
	script='tty; read pid comm state ppid pgrp sid rest </proc/self/stat; [ "$pid" = "$sid" ] && echo session-leader'
	# Control: the same script outside is not a session leader.
	sh -c "$script" </dev/null >"$TEST_TMP/control" || true
	assert_not_file_has_content "$TEST_TMP/control" '^session-leader$'
	run_confine -- sh -c "$script; '$TRY_IN' ioctl_tiocsti:/dev/tty"
	printf 'not a tty\nsession-leader\nioctl_tiocsti open-ENXIO\n' >"$TEST_TMP/want"
	cmp -s "$OUT" "$TEST_TMP/want" || {
		diag_file "$OUT" "inside"
		fail "not a session leader without a controlling terminal"
	}
	assert_ws_unchanged
}

t_no_session() {
	[ -z "$(ls -A "$PANE_STATE/confine/sessions" 2>/dev/null)" ] ||
	    fail "the interactive run kept a session"
	assert_ws_unchanged
}

tcase "control: the pane's shell, its tty and TIOCSTI outside" t_outside
tcase "the command runs on /dev/pts/0, a pty of the sandbox (landlock: a new host pty)" t_start
tcase "the user's terminal is raw while confine relays" t_raw
tcase "TIOCSTI on the sandbox's terminal: EPERM" t_tiocsti
tcase "the command starts with the user's window size" t_size
tcase "a window-size change is forwarded" t_resize
tcase "Ctrl-C interrupts the command's foreground job" t_ctrl_c
tcase "the exit status comes back to the user's shell" t_exit
tcase "the user's terminal modes are restored, workspace unchanged" t_restored
tcase "stdout redirected to a file while stdin is a terminal" t_redirect
tcase "SIGTERM to confine while it relays: 143" t_term_while_relaying
tcase "the terminal modes are restored after that, too" t_restored
tcase "a command not found on a terminal: 127 and a message" t_notfound_tty
tcase "the terminal modes are restored after a failed start" t_restored
tcase "the interactive run wrote nothing and kept no session" t_no_session
tcase "without a terminal: a new session, no controlling tty" t_no_tty
tcase "closing the terminal (SIGHUP) ends the command" t_hangup
tap_done
