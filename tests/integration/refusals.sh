#!/bin/sh
# SPDX-License-Identifier: ISC
# refusals.sh - what confine refuses: status 125, one "confine: " line and
# maybe a "hint: " line, the command not run and no session left.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
require_userns
plan 11

# t_refused PATTERN [CONFINE-ARG...]: refused, saying PATTERN.
t_refused() {
	ws_new
	pattern=$1
	shift
	run_confine "$@"
	assert_status "$RC" 125
	assert_refusal "$ERR"
	assert_file_has_content "$ERR" "$pattern"
	assert_file_empty "$OUT"
	assert_no_session
	assert_ws_unchanged
}

t_env_backend() {
	CONFINE_BACKEND=chroot
	t_refused "^confine: CONFINE_BACKEND: " -- echo ran
}

t_home() {
	t_refused "^confine: workspace '$HOME' contains the home directory" \
	    --workspace "$HOME" -- echo ran
	assert_file_has_content "$ERR" '^hint: '
}

t_unknown() {
	t_refused "^confine: unknown option '--confine-test-bogus'" \
	    --confine-test-bogus -- echo ran
	assert_file_has_content "$ERR" "^hint: see 'confine --help'\$"
}

t_network() {
	ws_new
	# Control: the network mode this build has is accepted.
	run_confine --network none -- true
	assert_status "$RC" 0
	# The host's network is leg C, which sealed does not allow.
	t_refused "^confine: rule of two: quadrant sealed .* leg C is granted by network.mode = host  \\(option --network\\)" \
	    --network host -- echo ran
}

t_state_dir() {
	ws_new
	# A state directory that cannot be made: /proc takes no new entries.
	XDG_STATE_HOME=/proc/confine-test-state run_confine -- echo ran
	assert_status "$RC" 125
	assert_refusal "$ERR"
	assert_file_has_content "$ERR" "^confine: session: cannot create '/proc/confine-test-state[/']"
	assert_file_empty "$OUT"
	assert_ws_unchanged
}

tcase "--workspace \$HOME (contains the home directory)" t_home
tcase "--workspace / (contains the home directory)" t_refused \
    "^confine: workspace '/' contains the home directory" -w / -- echo ran
tcase "an unknown option, with a hint" t_unknown
tcase "--network host" t_network
tcase "--backend landlock with the proxy: no network namespace to hold it" \
    t_refused "^confine: backend landlock \\(option --backend\\) cannot offer network mode proxy" \
    --backend landlock -n proxy -- echo ran
tcase "CONFINE_BACKEND with a bad value" t_env_backend
tcase "a workspace overlapping the state directory" t_refused \
    "^confine: workspace .* overlaps confine's state directory" \
    -w "$TEST_TMP" -- echo ran
tcase "no command" t_refused "^confine: no command given"
tcase "--env with a bad name" t_refused "^confine: --env '1BAD'" \
    --env 1BAD -- echo ran
tcase "--workspace that does not exist" t_refused \
    "^confine: workspace '/confine-test-nonexistent' is not a directory" \
    -w /confine-test-nonexistent -- echo ran
tcase "a state directory that cannot be made, named in the message" t_state_dir
tap_done
