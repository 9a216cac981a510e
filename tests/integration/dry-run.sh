#!/bin/sh
# SPDX-License-Identifier: ISC
# dry-run.sh - --dry-run prints the plan, runs nothing and creates no
# session.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
plan 9

# The steps --dry-run prints (those confine takes: not bwrap's alone), and
# the steps a run logs with -vv as it takes them: the same, in one order.
t_sequence() {
	ws_new
	run_confine --dry-run -- true
	assert_status "$RC" 0
	sed -n '/^enforcement sequence/,$p' "$OUT" |
	    awk 'NR > 1 && $1 ~ /^[0-9]+$/ && !($2 == "bwrap" && !/confine checks/) { print $1 ": " $(3 + ($2 == "pid")) }' \
	    >"$TEST_TMP/planned"
	# The security order, on this backend's printed sequence.
	for pair in "mounts capabilities" "capabilities no-new-privs" \
	    "no-new-privs landlock" "landlock exec"; do
		set -- $pair
		a=$(grep -n " $1\$" "$TEST_TMP/planned" | cut -d: -f1)
		b=$(grep -n " $2\$" "$TEST_TMP/planned" | cut -d: -f1)
		[ -z "$a" ] && [ "$1" = mounts ] && [ "$BACKEND" != native ] &&
		    continue
		[ -n "$a" ] && [ -n "$b" ] && [ "$a" -lt "$b" ] ||
		    fail "$1 is not before $2: $(cat "$TEST_TMP/planned")"
	done
	run_confine -vv -- sh -c 'echo ran'
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^ran$'
	sed -n 's/^confine: debug: step \([0-9]*\): \([a-z-]*\).*/\1: \2/p' \
	    "$ERR" >"$TEST_TMP/taken"
	[ -s "$TEST_TMP/taken" ] || fail "no step logged with -vv: $(cat "$ERR")"
	cmp -s "$TEST_TMP/planned" "$TEST_TMP/taken" ||
	    fail "planned and taken differ: $(diff "$TEST_TMP/planned" "$TEST_TMP/taken")"
	assert_ws_unchanged
}

t_plan() {
	ws_new
	run_confine --dry-run -- true
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^profile: sealed'
	assert_file_has_content "$OUT" '^  quadrant = sealed  \('
	assert_file_has_content "$OUT" '^rule of two: quadrant sealed allows A; the rules grant A$'
	assert_file_has_content "$OUT" '^verdict: allowed \(1 of 3 legs\)$' 
	assert_file_has_content "$OUT" "^backend: $BACKEND "
	case $BACKEND in
	native)
		assert_file_has_content "$OUT" '^namespaces: user mount pid net ipc uts cgroup$' ;;
	bwrap)
		assert_file_has_content "$OUT" '^namespaces: none of confine.s own: bwrap makes them \((user(-try)?, )?mount, pid, net, ipc, uts(, cgroup(-try)?)?\)$' ;;
	landlock)
		assert_file_has_content "$OUT" '^namespaces: none$' ;;
	esac
	assert_file_has_content "$OUT" '^network: none'
	assert_file_has_content "$OUT" "^workspace: $WS "
	assert_file_has_content "$OUT" "^session: $SESSIONS/[0-9]{8}-[0-9]{6}\.[0-9]{3}-[0-9a-f]{8}\$"
	assert_file_has_content "$OUT" '^capabilities: all sets empty'
	assert_file_empty "$ERR"
	assert_ws_unchanged
}

t_no_session() {
	ws_new
	run_confine --dry-run -- sh -c 'echo x >new-file'
	assert_status "$RC" 0
	assert_not_exists "$SESSIONS"
	assert_not_exists "$XDG_STATE_HOME/confine"
	assert_ws_unchanged
}

t_runs_nothing() {
	ws_new
	run_confine --dry-run -- sh -c 'echo ran; exit 3'
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^command: sh -c echo ran; exit 3$'
	assert_not_file_has_content "$OUT" '^ran$'
	run_confine --dry-run -- confine-no-such-program
	assert_status "$RC" 0
	assert_file_empty "$ERR"
	assert_ws_unchanged
}

t_workspace_option() {
	ws_new
	ws=$WS
	sub=$WS/src
	# Under landlock, the command works in the session's copy.
	in=$ws
	[ "$BACKEND" != landlock ] ||
	    in="$SESSIONS/[0-9]{8}-[0-9]{6}\.[0-9]{3}-[0-9a-f]{8}/upper"
	RUN_CWD=$sub run_confine --dry-run -- true
	assert_file_has_content "$OUT" "^workspace: $ws "
	assert_file_has_content "$OUT" "^cwd: $in/src\$"
	RUN_CWD=$TEST_TMP run_confine --dry-run -w "$ws" -- true
	assert_status "$RC" 0
	assert_file_has_content "$OUT" "^workspace: $ws "
	assert_file_has_content "$OUT" "^cwd: $in\$"
	assert_ws_unchanged
}

t_env() {
	ws_new
	run_confine --dry-run --env CONFINE_TEST_SET=1 -- true
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^environment: .*CONFINE_TEST_SET'
	assert_ws_unchanged
}

t_refusal() {
	ws_new
	run_confine --dry-run -w "$HOME" -- true
	assert_status "$RC" 125
	assert_file_empty "$OUT"
	assert_refusal "$ERR"
	assert_ws_unchanged
}

# A path the host does not have is said to be skipped, once, and not
# listed as a mount or a rule; the one it has, beside it, is (the
# control).
t_absent() {
	ws_new
	mkdir "$TEST_TMP/there"
	run_confine --dry-run --ro "$TEST_TMP/not-there" --ro "$TEST_TMP/there" \
	    --hide "$WS/not-there" -- true
	assert_status "$RC" 0
	if [ "$BACKEND" = landlock ]; then
		assert_file_has_content "$OUT" "^  r-x  $TEST_TMP/there\$"
		assert_file_has_content "$OUT" "^  skip $TEST_TMP/not-there \\(r-x: does not exist\\)\$"
	else
		assert_file_has_content "$OUT" "^  ro       $TEST_TMP/there \\(host's, read-only"
		assert_file_has_content "$OUT" "^  skipped  $TEST_TMP/not-there \\(ro: does not exist\\)\$"
		assert_file_has_content "$OUT" "^  skipped  $WS/not-there \\(hide: does not exist\\)\$"
		assert_not_file_has_content "$OUT" "^  hide .*/not-there"
	fi
	assert_not_file_has_content "$OUT" "^  (ro|r-x) .*/not-there"
	[ "$(grep -c "$TEST_TMP/not-there (" "$OUT")" -eq 1 ] ||
	    fail "the missing path is said more than once"
}

# What covers a hidden path follows what the host has there, looked at
# once for the plan: a directory gets an empty directory, a file an
# empty file; --dry-run says which.
t_hide_kind() {
	not_on landlock "no mounts: a hidden path is left out of its rules"
	ws_new
	mkdir "$WS/keys"
	echo secret >"$WS/token"
	run_confine --dry-run --hide "$WS/keys" --hide "$WS/token" -- true
	assert_status "$RC" 0
	assert_file_has_content "$OUT" "^  hide     $WS/keys \\(made invisible: an empty directory over it\\)\$"
	assert_file_has_content "$OUT" "^  hide     $WS/token \\(made invisible: an empty file over it\\)\$"
}

tcase "the plan: sealed, namespaces, network, workspace, session" t_plan
tcase "a hidden path: an empty directory over a directory, an empty file over a file" t_hide_kind
tcase "a path the host does not have: skipped, not a mount or a rule" t_absent
tcase "a run takes the printed enforcement sequence's steps, in its order" t_sequence
tcase "no session directory is created" t_no_session
tcase "the command is not run" t_runs_nothing
tcase "the workspace and working directory it would use" t_workspace_option
tcase "--env shows in the environment line" t_env
tcase "a refused plan is refused under --dry-run too: 125" t_refusal
tap_done
