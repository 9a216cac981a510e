#!/bin/sh
# SPDX-License-Identifier: ISC
# exit-status.sh - confine exits with the command's status, 128+N for a
# signal, 126 and 127 when the command cannot run, 125 when confine fails.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
require_userns
plan 12

t_true() {
	ws_new
	run_confine -- true
	assert_status "$RC" 0
	assert_file_empty "$ERR"
	assert_no_session
	assert_ws_unchanged
}

# t_code N: the command's own status passes through.
# The landlock backend's one-line notice (run_confine keeps it apart).
t_notice() {
	ws_new
	run_confine -- true
	assert_status "$RC" 0
	if [ "$BACKEND" = landlock ]; then
		[ "$(grep -c '^confine: backend landlock: weaker than native: no pid namespace' "$ERR.full")" = 1 ] ||
		    fail "no single notice line on stderr"
		# -q: not a word that is not an error.
		run_confine -q -- true
		assert_status "$RC" 0
		[ ! -s "$ERR.full" ] || fail "-q, and still: $(cat "$ERR.full")"
	else
		assert_not_file_has_content "$ERR" 'weaker than native'
	fi
}

t_code() {
	ws_new
	st sh -c "exit $1"
	assert_status "$ST" "$1"
	run_confine -- sh -c "echo out; echo err >&2; exit $1"
	assert_status "$RC" "$1"
	assert_eq "$(cat "$OUT")" out "stdout"
	assert_file_has_content "$ERR" '^err$'
	assert_ws_unchanged
}

# t_signal SIG N: killed by signal N gives 128+N, as a shell reports it.
t_signal() {
	ws_new
	st sh -c "kill -$1 \$\$" 2>/dev/null
	assert_status "$ST" $((128 + $2))
	run_confine -- sh -c "kill -$1 \$\$"
	assert_status "$RC" $((128 + $2))
	assert_ws_unchanged
}

t_notfound() {
	ws_new
	! command -v confine-no-such-program >/dev/null ||
	    fail "control: confine-no-such-program exists outside"
	run_confine -- confine-no-such-program
	assert_status "$RC" 127
	assert_file_has_content "$ERR" \
	    "^confine: cannot run 'confine-no-such-program': No such file or directory$"
	assert_no_session
	assert_ws_unchanged
}

t_notfound_path() {
	ws_new
	run_confine -- "$WS/no/such/file"
	assert_status "$RC" 127
	assert_file_has_content "$ERR" "^confine: cannot run '.*': No such file or directory$"
	assert_ws_unchanged
}

t_noexec() {
	ws_new
	# Control: the file is there, and not executable outside either.
	if [ ! -f "$WS/README" ] || [ -x "$WS/README" ]; then
		fail "control: README is not a non-executable file"
	fi
	st sh -c 'cd "$1" && ./README' sh "$WS" 2>/dev/null
	assert_status "$ST" 126
	run_confine -- ./README
	assert_status "$RC" 126
	assert_file_has_content "$ERR" "^confine: cannot run './README': Permission denied$"
	assert_ws_unchanged
}

t_confine_fails() {
	ws_new
	run_confine -w "$WS/no-such-dir" -- true
	assert_status "$RC" 125
	assert_refusal "$ERR"
	assert_no_session
	assert_ws_unchanged
}

t_words() {
	ws_new
	# After --, a subcommand's name is a program's.
	run_confine -- doctor
	assert_status "$RC" 127
	assert_file_has_content "$ERR" "^confine: cannot run 'doctor'"
	run_confine run -- sh -c 'exit 4'
	assert_status "$RC" 4
	assert_ws_unchanged
}

tcase "a command that succeeds: 0, nothing on stderr, no session kept" t_true
tcase "the landlock backend says what it lacks, once a run" t_notice
tcase "the command's status 3 passes through" t_code 3
tcase "the command's status 255 passes through" t_code 255
tcase "killed by SIGTERM: 143" t_signal TERM 15
tcase "killed by SIGKILL: 137" t_signal KILL 9
tcase "a program not on PATH: 127 with a message" t_notfound
tcase "a path that does not exist: 127" t_notfound_path
tcase "a file that is not executable: 126" t_noexec
tcase "confine's own failure (no such workspace): 125, one confine: line" t_confine_fails
tcase "the command's status 1 passes through" t_code 1
tcase "confine -- doctor runs a program; confine run CMD runs CMD" t_words
tap_done
