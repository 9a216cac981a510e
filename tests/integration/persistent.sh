#!/bin/sh
# SPDX-License-Identifier: ISC
# persistent.sh - [filesystem] persistent: what the command writes under a
# persistent path (a directory and a file) in one session is there in the
# next, kept in the profile's state ($XDG_STATE_HOME/confine/state/NAME),
# and never on the host, whose files are unchanged; a second session while
# the first runs gets plain scratch, with the line saying so, and keeps
# nothing; confine state ls, show and drop (drop resets: the next session
# sees the host's files); a hidden file inside a persistent path stays
# hidden, in every session, and no byte of it reaches the state; a path
# missing on the host keeps nothing, and says so.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
. "$TESTS_SRCDIR/profile-lib.sh"
require_userns
plan 8

# home_new: a home directory of our own (HOME) with the agent's state:
# a directory and a file.  H_HASH: its tree.
home_new() {
	H=$TEST_TMP/home
	mkdir -p "$H/.agent/sub"
	printf 'host settings\n' >"$H/.agent/settings"
	printf 'host sub\n' >"$H/.agent/sub/f"
	printf '{"host":1}\n' >"$H/.agent.json"
	H_HASH=$(tree_hash "$H")
}

# kp_new: the profile kp, keeping ~/.agent and ~/.agent.json.
kp_new() {
	prof kp <<-'EOF' >/dev/null
	[profile]
	quadrant = offline
	[filesystem]
	persistent = ~/.agent
	persistent = ~/.agent.json
	EOF
}

# The state directory of kp, on the host.
kp_state() {
	printf '%s\n' "$XDG_STATE_HOME/confine/state/kp"
}

assert_home_unchanged() {
	assert_eq "$(tree_hash "$H")" "$H_HASH" "the host's home is unchanged"
}

t_kept() {
	ws_new
	cfg_new
	home_new
	kp_new
	HOME=$H run_confine -p kp -- sh -c '
		cat "$HOME/.agent/settings" "$HOME/.agent.json"
		echo conversation >"$HOME/.agent/transcript"
		echo changed >"$HOME/.agent/settings"
		rm "$HOME/.agent/sub/f"
		echo "{\"confined\":1}" >"$HOME/.agent.json"'
	assert_status "$RC" 0
	printf 'host settings\n{"host":1}\n' >"$TEST_TMP/want"
	cmp -s "$OUT" "$TEST_TMP/want" || {
		diag_file "$OUT" stdout
		fail "the first session does not see the host's files"
	}
	assert_file_has_content "$ERR" \
	    "^confine: agent state: kept in $(kp_state) \\(confine state show kp\\)$"
	assert_home_unchanged
	HOME=$H run_confine -p kp -- sh -c '
		cat "$HOME/.agent/transcript" "$HOME/.agent/settings" \
		    "$HOME/.agent.json"
		ls "$HOME/.agent/sub"'
	assert_status "$RC" 0
	printf 'conversation\nchanged\n{"confined":1}\n' >"$TEST_TMP/want"
	cmp -s "$OUT" "$TEST_TMP/want" || {
		diag_file "$OUT" stdout
		diag_file "$ERR" stderr
		fail "the second session does not see the first one's changes"
	}
	assert_home_unchanged
	# What changed against the host, by name.
	HOME=$H run_confine state show kp
	assert_status "$RC" 0
	assert_file_has_content "$OUT" "^state of kp: $(kp_state) "
	assert_file_has_content "$OUT" '^~/\.agent '
	assert_file_has_content "$OUT" '^  added    transcript$'
	assert_file_has_content "$OUT" '^  changed  settings$'
	assert_file_has_content "$OUT" '^~/\.agent\.json '
	if [ "$BACKEND" = native ]; then
		assert_file_has_content "$OUT" '^  removed  sub/f$'
	fi
	HOME=$H run_confine state ls
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^kp  *[0-9.]* [KMG]iB  .*  -$'
}

t_concurrent() {
	ws_new
	cfg_new
	home_new
	kp_new
	mkfifo "$TEST_TMP/hold"
	# The first session holds the state until its stdin is closed.
	(
		cd "$WS" && HOME=$H exec timeout -k 5 "$CONFINE_TIMEOUT" \
		    "$CONFINE" -p kp -- sh -c '
			echo first >"$HOME/.agent/first"
			echo ready
			read x || :' <"$TEST_TMP/hold" >"$TEST_TMP/a.out" \
		    2>"$TEST_TMP/a.err"
	) &
	_pid=$!
	track_pid $_pid
	exec 9>"$TEST_TMP/hold"
	wait_for 30 grep -q '^ready$' "$TEST_TMP/a.out" || {
		exec 9>&-
		diag_file "$TEST_TMP/a.err" "first session"
		fail "the first session did not start"
	}
	HOME=$H run_confine state ls
	assert_file_has_content "$OUT" '^kp  .*  session [0-9a-f.-]*$'
	HOME=$H run_confine -p kp -- sh -c '
		ls "$HOME/.agent"
		echo second >"$HOME/.agent/second"'
	exec 9>&-
	wait $_pid || fail "the first session failed"
	assert_status "$RC" 0
	assert_file_has_content "$ERR" \
	    "^confine: state of kp in use by session [0-9a-f.-]*: this session's changes to ~/\.agent, ~/\.agent\.json are discarded$"
	assert_not_file_has_content "$ERR" "agent state: kept"
	# Plain scratch: the host's files, not the first session's.
	assert_not_file_has_content "$OUT" '^first$'
	assert_file_has_content "$OUT" '^settings$'
	HOME=$H run_confine -p kp -- sh -c 'ls "$HOME/.agent"'
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^first$'
	assert_not_file_has_content "$OUT" '^second$'
	assert_home_unchanged
}

t_drop() {
	ws_new
	cfg_new
	home_new
	kp_new
	HOME=$H run_confine -p kp -- sh -c '
		echo kept >"$HOME/.agent/settings"'
	assert_status "$RC" 0
	assert_exists "$(kp_state)"
	# No terminal to ask on: nothing dropped without --yes.
	HOME=$H run_confine state drop kp
	assert_status "$RC" 125
	assert_file_has_content "$ERR" "not dropping the state of kp without a terminal"
	assert_exists "$(kp_state)"
	HOME=$H run_confine state drop --yes kp
	assert_status "$RC" 0
	assert_file_has_content "$ERR" '^confine: dropped the agent state of kp'
	assert_not_exists "$(kp_state)"
	HOME=$H run_confine state ls
	assert_not_file_has_content "$OUT" '^kp '
	HOME=$H run_confine state show kp
	assert_status "$RC" 125
	assert_file_has_content "$ERR" "no state kept for profile 'kp'"
	# The next session starts from the host's files again.
	HOME=$H run_confine -p kp -- cat "$H/.agent/settings"
	if [ "$BACKEND" = landlock ]; then
		HOME=$H run_confine -p kp -- sh -c 'cat "$HOME/.agent/settings"'
	fi
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^host settings$'
	assert_home_unchanged
}

t_hidden() {
	ws_new
	cfg_new
	home_new
	printf 'secret-%s\n' "$(unique_num)" >"$H/.agent/.credentials.json"
	SECRET=$(cat "$H/.agent/.credentials.json")
	H_HASH=$(tree_hash "$H")
	prof kh <<-'EOF' >/dev/null
	[profile]
	quadrant = offline
	[filesystem]
	persistent = ~/.agent
	hide = ~/.agent/.credentials.json
	EOF
	# Control: the file is there, and readable, on the host.
	assert_file_has_content "$H/.agent/.credentials.json" "^$SECRET$"
	HOME=$H run_confine -p kh -- sh -c '
		cat "$HOME/.agent/settings"
		cat "$HOME/.agent/.credentials.json" 2>/dev/null
		echo mine >"$HOME/.agent/.credentials.json" 2>/dev/null
		echo note >"$HOME/.agent/note"
		exit 0'
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^host settings$'
	assert_not_file_has_content "$OUT" "$SECRET"
	HOME=$H run_confine -p kh -- sh -c '
		cat "$HOME/.agent/note"
		cat "$HOME/.agent/.credentials.json" 2>/dev/null
		exit 0'
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^note$'
	assert_not_file_has_content "$OUT" "$SECRET"
	if grep -r -q -F -e "$SECRET" "$XDG_STATE_HOME/confine/state"; then
		fail "the hidden file's bytes are in the state"
	fi
	assert_home_unchanged
}

t_missing() {
	ws_new
	cfg_new
	home_new
	kp_new
	rm "$H/.agent.json"
	H_HASH=$(tree_hash "$H")
	HOME=$H run_confine -p kp -- sh -c '
		echo "{}" >"$HOME/.agent.json" && cat "$HOME/.agent.json"'
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^{}$'
	assert_file_has_content "$ERR" \
	    "^confine: persistent $H/\.agent\.json: not on the host, so nothing of it is kept: create it there to keep it$"
	HOME=$H run_confine -p kp -- sh -c 'cat "$HOME/.agent.json"'
	assert_ne "$RC" 0
	assert_home_unchanged
}

# Two profiles keep two states: one's drop leaves the other's.
t_two_profiles() {
	ws_new
	cfg_new
	home_new
	kp_new
	prof kq <<-'EOF' >/dev/null
	[profile]
	quadrant = offline
	[filesystem]
	persistent = ~/.agent
	EOF
	HOME=$H run_confine -p kp -- sh -c 'echo p >"$HOME/.agent/who"'
	assert_status "$RC" 0
	HOME=$H run_confine -p kq -- sh -c 'echo q >"$HOME/.agent/who"'
	assert_status "$RC" 0
	HOME=$H run_confine state drop --yes kp
	assert_status "$RC" 0
	HOME=$H run_confine -p kq -- sh -c 'cat "$HOME/.agent/who"'
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^q$'
	HOME=$H run_confine -p kp -- sh -c 'cat "$HOME/.agent/who"'
	assert_ne "$RC" 0
	assert_home_unchanged
}

# A file replaced by a rename (as agents write their settings), where the
# backend lets it be (landlock; native and bwrap bind the file, so the
# rename fails and the write goes to the file): kept either way.
t_renamed() {
	ws_new
	cfg_new
	home_new
	kp_new
	HOME=$H run_confine -p kp -- sh -c '
		echo "{\"renamed\":1}" >"$HOME/.agent.json.tmp"
		mv -f "$HOME/.agent.json.tmp" "$HOME/.agent.json" 2>/dev/null ||
		    cat "$HOME/.agent.json.tmp" >"$HOME/.agent.json"'
	assert_status "$RC" 0
	HOME=$H run_confine -p kp -- cat "$H/.agent.json"
	if [ "$BACKEND" = landlock ]; then
		HOME=$H run_confine -p kp -- sh -c 'cat "$HOME/.agent.json"'
	fi
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^\{"renamed":1\}$'
	assert_home_unchanged
}

# A read-only path inside a persistent one (an agent's installation in
# its state directory): the host's, read-only, in every session, whatever
# the command did to it.
t_read_only_inside() {
	ws_new
	cfg_new
	home_new
	mkdir "$H/.agent/local"
	printf 'installed\n' >"$H/.agent/local/bin"
	H_HASH=$(tree_hash "$H")
	prof kr <<-'EOF' >/dev/null
	[profile]
	quadrant = offline
	[filesystem]
	persistent = ~/.agent
	read-only = ~/.agent/local
	EOF
	HOME=$H run_confine -p kr -- sh -c '
		cat "$HOME/.agent/local/bin"
		echo changed 2>/dev/null >"$HOME/.agent/local/bin" && echo WROTE
		rm -rf "$HOME/.agent/local" 2>/dev/null
		echo note >"$HOME/.agent/note"
		exit 0'
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^installed$'
	assert_not_file_has_content "$OUT" '^WROTE$'
	HOME=$H run_confine -p kr -- sh -c '
		cat "$HOME/.agent/local/bin" "$HOME/.agent/note"'
	assert_status "$RC" 0
	printf 'installed\nnote\n' >"$TEST_TMP/want"
	cmp -s "$OUT" "$TEST_TMP/want" || {
		diag_file "$OUT" stdout
		diag_file "$ERR" stderr
		fail "the read-only path or the kept note is not there"
	}
	assert_home_unchanged
}

tcase "a persistent path: kept between sessions, never on the host" t_kept
tcase "a second session at once: scratch, said, nothing kept" t_concurrent
tcase "state drop: asks, or --yes; the next session starts afresh" t_drop
tcase "a hidden file in a persistent path stays hidden" t_hidden
tcase "a persistent path missing on the host: nothing kept, said" t_missing
tcase "each profile its own state" t_two_profiles
tcase "a persistent file replaced by a rename is kept" t_renamed
tcase "a read-only path inside a persistent one stays the host's" t_read_only_inside
tap_done
