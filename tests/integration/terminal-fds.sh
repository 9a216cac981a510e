#!/bin/sh
# SPDX-License-Identifier: ISC
# terminal-fds.sh - a terminal is never handed over: whichever of fds 0, 1
# and 2 are terminals (all 8 combinations), the command gets a pty of the
# sandbox's own on exactly those fds, never the user's terminal, and the
# others stay what they were (/dev/null, a file); a command with a
# terminal on fd 1 only cannot change the user's terminal modes.  The
# user's terminal is a pty that script(1) makes.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
require_userns
command -v script >/dev/null || skip_all "script(1) is not installed"
script -qec true /dev/null </dev/null >/dev/null 2>&1 ||
    skip_all "script(1) cannot make a pty here"
plan 10

# What the command reports for each fd: "fdN tty DEV:MAJ:MIN" or "fdN
# notty"; then it turns echo and canonical mode off on its terminals.
PROBE='for i in 0 1 2; do
	if [ -t $i ]; then
		echo "fd$i tty $(stat -L -c %d:%t:%T /proc/$$/fd/$i)"
	else
		echo "fd$i notty"
	fi
done
for i in 0 1 2; do [ -t $i ] && eval "stty -echo -icanon <&$i"; done
echo probe-done'

# in_pty SHELL-COMMAND: run it in sh on a new pty (script(1)), in $WS.
in_pty() {
	(cd "$WS" && timeout -k 5 "$CONFINE_TIMEOUT" script -qec "$1" \
	    "$TEST_TMP/typescript" </dev/null >/dev/null 2>&1) || :
}

t_control() {
	ws_new
	# Without confine, a command given the terminal on fd 1 only
	# changes the user's terminal modes.
	in_pty "stty -g >'$TEST_TMP/before'; sh -c 'stty -echo -icanon <&1' </dev/null 2>/dev/null; stty -g >'$TEST_TMP/after'"
	[ -s "$TEST_TMP/before" ] || fail "no modes recorded"
	if cmp -s "$TEST_TMP/before" "$TEST_TMP/after"; then
		fail "control: stty on fd 1 did not change the terminal"
	fi
}

# case MASK: MASK says which of fds 0, 1, 2 are the terminal (e.g. 010).
t_mask() {
	mask=$1
	ws_new
	redir=
	[ "${mask%??}" = 1 ] || redir="$redir </dev/null"
	m=${mask#?}
	[ "${m%?}" = 1 ] || redir="$redir >'$TEST_TMP/out1'"
	[ "${mask#??}" = 1 ] || redir="$redir 2>'$TEST_TMP/err2'"
	printf '%s\n' "$PROBE" >"$TEST_TMP/probe"
	: >"$TEST_TMP/out1"
	in_pty "stat -L -c %d:%t:%T /dev/stdin >'$TEST_TMP/outer'; \
stty -g >'$TEST_TMP/before'; \
'$CONFINE' -- sh -c \"\$(cat '$TEST_TMP/probe')\" $redir; \
echo \$? >'$TEST_TMP/rc'; stty -g >'$TEST_TMP/after'"
	assert_eq "$(cat "$TEST_TMP/rc" 2>/dev/null)" 0 "confine's exit status"
	outer=$(cat "$TEST_TMP/outer")
	# The report is on fd 1: in the typescript (the terminal) or the file;
	# on the terminal after the echo of what script(1) types at its end.
	cat "$TEST_TMP/typescript" "$TEST_TMP/out1" | tr -d '\r' | grep -a -o \
	    -E '(fd[012] (tty [0-9a-f:]+|notty)|probe-done)$' >"$TEST_TMP/report" || :
	assert_file_has_content "$TEST_TMP/report" '^probe-done$'
	for i in 0 1 2; do
		bit=$(printf '%s' "$mask" | cut -c$((i + 1)))
		line=$(grep -a "^fd$i " "$TEST_TMP/report" | head -n 1)
		if [ "$bit" = 1 ]; then
			case $line in
			"fd$i tty "*) ;;
			*) fail "fd $i: not a terminal inside: '$line'" ;;
			esac
			[ "$line" != "fd$i tty $outer" ] ||
			    fail "fd $i is the user's own terminal ($outer)"
		else
			assert_eq "$line" "fd$i notty" "fd $i inside"
		fi
	done
	cmp -s "$TEST_TMP/before" "$TEST_TMP/after" || {
		diag "before: $(cat "$TEST_TMP/before")"
		diag "after:  $(cat "$TEST_TMP/after")"
		fail "the user's terminal modes changed"
	}
	assert_ws_unchanged
}

tcase "control: a command with the terminal on fd 1 changes its modes" t_control
for mask in 000 100 010 001 110 101 011 111; do
	tcase "terminal on fds $mask: a pty of the sandbox's on exactly those, modes kept" t_mask $mask
done
# stdout a pipe, stderr the terminal: the relay goes to fd 2.
t_pipe() {
	ws_new
	in_pty "'$CONFINE' -- sh -c 'echo to-out; echo to-err >&2' </dev/null | cat >'$TEST_TMP/piped'; echo \$? >'$TEST_TMP/rc'"
	assert_eq "$(cat "$TEST_TMP/piped")" to-out "what went through the pipe"
	# A carriage return ends a line here too: a progress line on the
	# terminal (a copy backend's, under load) is cleared with one.
	tr '\r' '\n' <"$TEST_TMP/typescript" >"$TEST_TMP/ts"
	assert_file_has_content "$TEST_TMP/ts" '^to-err$'
	assert_not_file_has_content "$TEST_TMP/ts" '^to-out$'
}
tcase "stdout a pipe, stderr the terminal: each reaches its own" t_pipe
tap_done
