#!/bin/sh
# SPDX-License-Identifier: ISC
# fds.sh - only file descriptors 0, 1 and 2 reach the command, whatever
# the caller leaves open; the three standard ones work.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
require_userns
require_try_syscall
plan 4

t_only_three() {
	ws_new
	# Control: without confine, the inherited fds are there.
	out=$( (exec 3</etc/hostname 5>"$TEST_TMP/five" 9<"$WS/README"; "$TRY_SYSCALL" fds) )
	for fd in 3 5 9; do
		case " ${out#fds} " in
		*" $fd "*) ;;
		*) fail "control: fd $fd is not open outside: $out" ;;
		esac
	done
	(
		exec 3</etc/hostname 5>"$TEST_TMP/five" 9<"$WS/README" 8>&1
		run_confine -- "$TRY_IN" fds
		echo "$RC" >"$TEST_TMP/rc"
	)
	assert_status "$(cat "$TEST_TMP/rc")" 0
	assert_eq "$(cat "$OUT")" "fds 0 1 2" "the open fds inside"
	assert_ws_unchanged
}

t_leaked_write() {
	ws_new
	: >"$TEST_TMP/target"
	# Control: outside, writing through the inherited fd works.
	(exec 7>>"$TEST_TMP/target"; sh -c 'echo control >&7')
	assert_eq "$(cat "$TEST_TMP/target")" control "control: the write outside"
	(
		exec 7>>"$TEST_TMP/target"
		run_confine -- sh -c 'echo leaked >&7'
		echo "$RC" >"$TEST_TMP/rc"
	)
	assert_status "$(cat "$TEST_TMP/rc")" 2
	assert_file_has_content "$ERR" '7: Bad file descriptor'
	assert_eq "$(cat "$TEST_TMP/target")" control "the target after the run"
	assert_ws_unchanged
}

t_stdio() {
	ws_new
	printf 'line one\nline two\n' >"$TEST_TMP/in"
	RUN_STDIN=$TEST_TMP/in run_confine -- sh -c 'cat; echo to-stderr >&2'
	assert_status "$RC" 0
	assert_eq "$(cat "$OUT")" "line one
line two" "stdout"
	assert_eq "$(cat "$ERR")" to-stderr "stderr"
	assert_ws_unchanged
}

t_pipe() {
	ws_new
	got=$(cd "$WS" && printf 'a\nb\nc\n' |
	    timeout -k 5 "$CONFINE_TIMEOUT" "$CONFINE" -- wc -l 2>"$ERR")
	assert_eq "$got" 3 "the line count through a pipe"
	drop_notice "$ERR"
	assert_file_empty "$ERR"
	assert_ws_unchanged
}

tcase "only fds 0, 1, 2 reach the command" t_only_three
tcase "an inherited writable fd cannot be written through" t_leaked_write
tcase "stdin, stdout and stderr pass through" t_stdio
tcase "pipes in and out work" t_pipe
tap_done
