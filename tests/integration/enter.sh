#!/bin/sh
# SPDX-License-Identifier: ISC
# enter.sh - "confine enter" tests what apply would write: by default a
# new session on the host tree plus the session's patch (the change, the
# deletion and the new file; not the ignored scratch file the agent left),
# and --as-left the agent's own tree, ignored files included.  Neither
# changes the host; a patch that no longer applies to the host is refused
# (125) with apply's own message, and no session is left for it; an
# applied session is refused either way.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
require_userns
plan 3

ID_ERE='[0-9]{8}-[0-9]{6}\.[0-9]{3}-[0-9a-f]{8}'
STATE=$TEST_TMP/enter-state

# What each run prints: every path the session touched, and its content;
# whether src/ (its one file deleted: apply removes it) is there; the mode
# of bin/ (a file added in it).
PROBE='for f in README src/main.c new-file bin/extra scratch.log; do
	if [ -e "$f" ]; then printf "%s %s\n" "$f" "$(cat "$f")";
	else printf "%s absent\n" "$f"; fi
done; [ -e src ] && echo src present || echo src absent
stat -c "bin %a" bin'

# One agent session, shared by the cases: it changes a tracked file,
# deletes another, adds one and leaves an ignored scratch file.
agent_session() {
	ws_new
	printf 'scratch.log\n' >"$WS/.gitignore"
	chmod 0750 "$WS/bin"
	git_fixed -C "$WS" add .gitignore
	git_fixed -C "$WS" commit -q -m ignore
	WS_HASH=$(tree_hash "$WS")
	run_confine -- sh -c 'echo patched >README; rm src/main.c;
	    echo new >new-file; echo extra >bin/extra;
	    echo scratch >scratch.log'
	assert_status "$RC" 0
	SID=$(sed -n 's/^confine: session \([^:]*\): .*/\1/p' "$ERR")
	printf '%s' "$SID" | grep -Eq "^$ID_ERE\$" || fail "no session kept"
	# The agent's tree has the ignored file; the patch does not.
	assert_not_file_has_content "$SESSIONS/$SID/changes.patch" scratch
	printf 'WS=%s\nSID=%s\nWS_HASH=%s\nXDG_STATE_HOME=%s\n' "$WS" \
	    "$SID" "$WS_HASH" "$XDG_STATE_HOME" >"$STATE"
}

# The later cases enter the first case's session (its state directory too:
# one agent run for the script keeps it cheap).
load() {
	[ -f "$STATE" ] || fail "the first case made no session"
	. "$STATE"
	export XDG_STATE_HOME
	SESSIONS=$XDG_STATE_HOME/confine/sessions
}

t_default() {
	agent_session
	PATCH_HASH=$(sha256sum <"$SESSIONS/$SID/changes.patch")
	run_confine enter "$SID" -- sh -c "$PROBE; echo mine >>new-file"
	assert_status "$RC" 0
	printf '%s\n' 'README patched' 'src/main.c absent' 'new-file new' \
	    'bin/extra extra' 'scratch.log absent' 'src absent' 'bin 750' \
	    >"$TEST_TMP/want"
	diff -u "$TEST_TMP/want" "$OUT" >&2 || fail "not the patched tree"
	assert_ws_unchanged
	# A new session; its export is the patch plus the command's edit.
	assert_file_has_content "$ERR" "^confine: session $ID_ERE: $WS plus the patch of session $SID \\(what apply would write\\)\$"
	NEW=$(sed -n 's/^confine: session \([^:]*\): [0-9]* files\{0,1\} changed.*/\1/p' "$ERR")
	[ -n "$NEW" ] && [ "$NEW" != "$SID" ] || fail "no new session"
	assert_file_has_content "$SESSIONS/$NEW/changes.patch" '^\+patched$'
	assert_file_has_content "$SESSIONS/$NEW/changes.patch" '^\+mine$'
	assert_file_has_content "$SESSIONS/$NEW/changes.patch" '^deleted file mode'
	# The session entered is as it was.
	assert_eq "$(sha256sum <"$SESSIONS/$SID/changes.patch")" "$PATCH_HASH"
}

t_as_left() {
	load
	run_confine enter --as-left "$SID" -- sh -c "$PROBE"
	assert_status "$RC" 0
	printf '%s\n' 'README patched' 'src/main.c absent' 'new-file new' \
	    'bin/extra extra' 'scratch.log scratch' 'src present' 'bin 750' \
	    >"$TEST_TMP/want"
	diff -u "$TEST_TMP/want" "$OUT" >&2 || fail "not the agent's tree"
	assert_file_has_content "$ERR" "^confine: session $SID: entering its tree"
	assert_ws_unchanged
}

t_refused() {
	load
	echo host-edit >"$WS/README"
	HASH=$(tree_hash "$WS")
	# The control: apply itself refuses this patch now.
	run_confine apply --yes "$SID"
	assert_status "$RC" 125
	tail -n 1 "$ERR" >"$TEST_TMP/apply-err"
	assert_file_has_content "$TEST_TMP/apply-err" "^confine: .README. changed on the host"
	before=$(sessions | wc -l)
	run_confine enter "$SID" -- sh -c 'echo ran >ran'
	assert_status "$RC" 125
	assert_refusal "$ERR"
	head -n 1 "$ERR" | diff -u "$TEST_TMP/apply-err" - >&2 ||
	    fail "not apply's message"
	assert_eq "$(sessions | wc -l)" "$before"
	assert_ws_unchanged "$WS" "$HASH"
	# Applied: its changes are on the host; neither enter runs.
	git_fixed -C "$WS" checkout -q README
	run_confine apply --yes "$SID"
	assert_status "$RC" 0
	HASH=$(tree_hash "$WS")
	for opt in "" --as-left; do
		run_confine enter $opt "$SID" -- sh -c 'echo ran >ran'
		assert_status "$RC" 125
		assert_refusal "$ERR"
		assert_file_has_content "$ERR" "^confine: session '$SID' was applied"
	done
	assert_ws_unchanged "$WS" "$HASH"
}

tcase "enter: the host tree plus the patch, not the ignored file; a new session" t_default
tcase "enter --as-left: the agent's tree, ignored file included" t_as_left
tcase "enter: a patch that no longer applies is refused as apply refuses it; an applied session too" t_refused
tap_done
