#!/bin/sh
# SPDX-License-Identifier: ISC
# workspaces.sh - several workspaces in one session (confine(1),
# WORKSPACES): each writable one shown at its own path with its own
# patch, reviewed and applied with the session, all or none; a read-only
# one shown at its path, never written, nothing of it exported; the trees
# that nest or repeat refused.  Every host tree is unchanged until apply.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
require_backend
plan 12

# The session's id, from the exit summary.
session_id() {
	sed -n 's/^confine: session \([^:]*\):.*/\1/p' "$ERR" | head -n 1
}

# Two writable workspaces: each its own patch, labelled; both applied.
case_two_writable() {
	ws_new
	code=$WS
	code_hash=$WS_HASH
	ws_new
	flow=$WS
	flow_hash=$WS_HASH
	WS=$code
	run_confine -w "$code" -w "$flow" -- sh -c "echo edit >>'$code/README'
	    echo note >'$flow/notes.md'"
	if [ "$BACKEND" = landlock ]; then
		# Its workspace is a copy elsewhere: one writable only.
		assert_status "$RC" 125
		assert_refusal "$ERR"
		assert_file_has_content "$ERR" "workspace '$flow' \(option --workspace\): the landlock backend"
		assert_no_session
		return 0
	fi
	assert_status "$RC" 0
	assert_ws_unchanged "$code" "$code_hash"
	assert_ws_unchanged "$flow" "$flow_hash"
	assert_file_has_content "$ERR" "1 file changed in $code\$"
	assert_file_has_content "$ERR" "1 file changed in $flow\$"
	sid=$(session_id)
	run_confine show "$sid"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" "^workspace $code\$"
	assert_file_has_content "$OUT" "^workspace $flow\$"
	assert_file_has_content "$OUT" '^untrusted: what the agent wrote here'
	run_confine diff "$sid"
	assert_file_has_content "$OUT" "^# confine: workspace $flow\$"
	assert_file_has_content "$OUT" '^\+note$'
	assert_file_has_content "$OUT" '^\+edit$'
	# The latest session of either workspace is this one.
	RUN_CWD=$flow run_confine show
	assert_status "$RC" 0
	assert_file_has_content "$OUT" "^session $sid\$"
	RUN_CWD=$flow run_confine ls
	assert_file_has_content "$OUT" "^$sid "
	# ls --all: the first workspace on the session's line, the further
	# one on a line of its own below it.
	run_confine ls --all
	assert_file_has_content "$OUT" "^$sid .* $code +sh -c "
	assert_file_has_content "$OUT" "^ +$flow\$"
	assert_eq "$(wc -l <"$OUT")" 2 "ls --all: one line a workspace"
	run_confine apply --yes "$sid"
	assert_status "$RC" 0
	assert_file_has_content "$code/README" '^edit$'
	assert_file_has_content "$flow/notes.md" '^note$'
	assert_file_has_content "$ERR" "applied to $code\$"
	assert_file_has_content "$ERR" "applied to $flow\$"
}

# A read-only workspace: read at its path, never written, not exported.
case_read_only() {
	ws_new
	code=$WS
	code_hash=$WS_HASH
	ws_new
	flow=$WS
	flow_hash=$WS_HASH
	WS=$code
	# Positive control: the same write outside confine works.
	cp -a "$flow" "$TEST_TMP/control"
	echo x >>"$TEST_TMP/control/README"
	run_confine --ro-workspace "$flow" -- sh -c "cat '$flow/README'
	    if echo x >>'$flow/README'; then echo wrote; fi
	    if echo y >'$flow/new'; then echo made; fi
	    echo edit >>README"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^hello$'
	assert_not_file_has_content "$OUT" '^(wrote|made)$'
	assert_ws_unchanged "$flow" "$flow_hash"
	assert_ws_unchanged "$code" "$code_hash"
	sid=$(session_id)
	[ -n "$sid" ] || fail "no session for the writable workspace"
	assert_not_exists "$SESSIONS/$sid/ws"
	run_confine diff "$sid"
	assert_not_file_has_content "$OUT" 'new|# confine: workspace'
	assert_file_has_content "$OUT" '^\+edit$'
}

# Check first, all or none: a further workspace that cannot take its
# patch leaves the first unchanged too; --workspace DIR applies one.
case_all_or_none() {
	not_on landlock "a copy at another path: one writable workspace"
	ws_new
	code=$WS
	ws_new
	flow=$WS
	WS=$code
	run_confine -w "$code" -w "$flow" -- sh -c "echo edit >>'$code/README'
	    echo agent >>'$flow/README'"
	assert_status "$RC" 0
	sid=$(session_id)
	# The host changes the second tree where the patch goes.
	echo host >"$flow/README"
	code_hash=$(tree_hash "$code")
	run_confine apply --yes "$sid"
	assert_ne "$RC" 0 "apply with a tree that moved"
	assert_ws_unchanged "$code" "$code_hash"
	assert_eq "$(cat "$flow/README")" host "the moved file"
	# One alone: the first, by its path.
	run_confine apply --yes --workspace "$code" "$sid"
	assert_status "$RC" 0
	assert_file_has_content "$code/README" '^edit$'
	assert_eq "$(cat "$flow/README")" host "the other workspace"
}

# A tree's files, modes and contents (a rollback writes the old bytes
# back: new inodes, new times).
content() {
	(cd "$1" && find . -path ./.git -prune -o -printf '%p %y %m %l\n' |
	    sort && find . -path ./.git -prune -o -type f -print0 | sort -z |
	    xargs -0r sha256sum)
}

# A later workspace that fails while written: the earlier one, written
# already, is rolled back by its journal; once the tree can be written,
# the same apply takes both.
case_rollback() {
	not_on landlock "a copy at another path: one writable workspace"
	[ "$(id -u)" -ne 0 ] ||
	    skip_case "root writes into a read-only directory: no failed write"
	ws_new
	code=$WS
	code_before=$(content "$code")
	ws_new
	flow=$WS
	WS=$code
	run_confine -w "$code" -w "$flow" -- sh -c "echo edit >>'$code/README'
	    echo agent >>'$flow/README'"
	assert_status "$RC" 0
	sid=$(session_id)
	# Positive control: a write there fails for this user.
	chmod 0555 "$flow"
	if (echo x >"$flow/probe") 2>/dev/null; then
		chmod 0755 "$flow"
		fail "a read-only directory took a write"
	fi
	run_confine apply --yes "$sid"
	chmod 0755 "$flow"
	assert_ne "$RC" 0 "apply with a tree that cannot be written"
	assert_file_has_content "$ERR" "rolled back the apply to $code: a later workspace"
	assert_eq "$(content "$code")" "$code_before" "the first tree, rolled back"
	run_confine apply --yes "$sid"
	assert_status "$RC" 0
	assert_file_has_content "$code/README" '^edit$'
	assert_file_has_content "$flow/README" '^agent$'
}

# The same tree twice, one inside another, none writable: refused, one
# line naming them, nothing made.
case_refused() {
	ws_new
	mkdir "$WS/sub"
	run_confine -w "$WS" -w "$WS" -- true
	assert_status "$RC" 125
	assert_refusal "$ERR"
	assert_file_has_content "$ERR" "named twice"
	run_confine -w "$WS" --ro-workspace "$WS/sub" -- true
	assert_status "$RC" 125
	assert_refusal "$ERR"
	assert_file_has_content "$ERR" "overlap"
	printf '[workspace]\nmode = read-only\n' >"$TEST_TMP/ro.ini"
	run_confine -p "$TEST_TMP/ro.ini" -- true
	assert_status "$RC" 125
	assert_refusal "$ERR"
	assert_file_has_content "$ERR" "no writable workspace.*ro.ini:2"
	assert_no_session
}

# A profile's [workspace NAME]: a path relative to the first, shown
# by --dry-run with where it came from.
case_profile() {
	ws_new
	code=$WS
	ws_new
	flow=$WS
	WS=$code
	printf '[workspace]\nmode = read-only\n[workspace flow]\npath = ../%s\n' \
	    "$(basename "$flow")" >"$TEST_TMP/two.ini"
	run_confine -p "$TEST_TMP/two.ini" --dry-run -- true
	assert_status "$RC" 0
	assert_file_has_content "$OUT" "^workspace: $flow \\(writes kept"
	assert_file_has_content "$OUT" "^workspace: $code \\(read-only"
	assert_file_has_content "$OUT" "workspace.path = $flow  \\(.*two.ini:4\\)"
	printf '[workspace flow]\nmode = read-only\n' >"$TEST_TMP/nopath.ini"
	run_confine -p "$TEST_TMP/nopath.ini" -- true
	assert_status "$RC" 125
	assert_refusal "$ERR"
	assert_file_has_content "$ERR" 'nopath.ini:2: \[workspace flow\] has no path'
}

# A private workspace is leg B wherever it is shown: the sealed quadrant
# refuses it, naming the workspace.
case_private() {
	ws_new
	code=$WS
	ws_new
	flow=$WS
	WS=$flow
	printf '[workspace code]\npath = %s\nmode = read-only\nprivate = yes\n' \
	    "$code" >"$TEST_TMP/priv.ini"
	run_confine -p "$TEST_TMP/priv.ini" -- true
	assert_status "$RC" 125
	assert_refusal "$ERR"
	assert_file_has_content "$ERR" "leg B is granted by workspace $code: private = yes"
	printf '[profile]\nquadrant = offline\n' >>"$TEST_TMP/priv.ini"
	run_confine -p "$TEST_TMP/priv.ini" --dry-run -- true
	assert_status "$RC" 0
	assert_file_has_content "$OUT" "B: workspace $code: private = yes"
}

# enter: a new session holding every workspace plus its patch, taken as
# the latest from any of them.
case_enter() {
	not_on landlock "a copy at another path: one writable workspace"
	ws_new
	code=$WS
	ws_new
	flow=$WS
	flow_hash=$WS_HASH
	WS=$code
	run_confine -w "$code" -w "$flow" -- sh -c "echo edit >>'$code/README'
	    echo note >'$flow/notes.md'"
	assert_status "$RC" 0
	RUN_CWD=$flow run_confine enter -- sh -c "cat '$code/README' \
	    '$flow/notes.md'; echo more >>'$flow/notes.md'"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^edit$'
	assert_file_has_content "$OUT" '^note$'
	assert_ws_unchanged "$flow" "$flow_hash"
	assert_file_has_content "$ERR" "notes.md \| 2 \+\+$"
}

# Only a further workspace changed: the session is kept and listed with
# its files, drop --empty leaves it; applied, it is listed applied.
case_only_further() {
	not_on landlock "a copy at another path: one writable workspace"
	ws_new
	code=$WS
	ws_new
	flow=$WS
	WS=$code
	run_confine -w "$code" -w "$flow" -- sh -c "echo a >'$flow/a'
	    echo b >'$flow/b'"
	assert_status "$RC" 0
	sid=$(session_id)
	[ -n "$sid" ] || fail "no session: the further workspace's change lost"
	run_confine ls
	assert_file_has_content "$OUT" "^$sid +[^ ]+ +2 +[^ ]+ +exported "
	run_confine drop --yes --empty
	assert_exists "$SESSIONS/$sid"
	run_confine apply --yes "$sid"
	assert_status "$RC" 0
	assert_eq "$(cat "$flow/a" "$flow/b")" "a
b" "the further workspace after apply"
	run_confine ls
	assert_file_has_content "$OUT" "^$sid +[^ ]+ +2 +[^ ]+ +applied "
}

# A session of one workspace is as before: no ws/, no label, one line
# in ls --all.
case_one() {
	ws_new
	run_confine -- sh -c 'echo edit >>README'
	assert_status "$RC" 0
	sid=$(session_id)
	assert_not_exists "$SESSIONS/$sid/ws"
	assert_not_file_has_content "$SESSIONS/$sid/meta" '^(workspaces|also)='
	run_confine diff "$sid"
	assert_not_file_has_content "$OUT" '# confine: workspace'
	run_confine ls --all
	assert_file_has_content "$OUT" "^$sid .* $WS +sh -c "
	assert_eq "$(wc -l <"$OUT")" 1 "ls --all: the session's one line"
}

# apply --commits: each workspace gets its own agent's commits, on its
# HEAD, and its tree is the session's.
case_commits() {
	not_on landlock "a copy at another path: one writable workspace"
	ws_new
	code=$WS
	code_hash=$WS_HASH
	code_base=$(git -C "$code" rev-parse HEAD)
	ws_new
	flow=$WS
	flow_hash=$WS_HASH
	flow_base=$(git -C "$flow" rev-parse HEAD)
	WS=$code
	# The user's git identity is the command's; a fixed one where none.
	id='-c user.name=Agent -c user.email=agent@example.invalid'
	run_confine -w "$code" -w "$flow" -- sh -c "set -e
	    cd '$code'; echo edit >>README
	    git $id commit -q -a -m 'code: edit'
	    cd '$flow'; echo note >notes.md; git add notes.md
	    git $id commit -q -m 'flow: a note'
	    echo more >>notes.md; git $id commit -q -a -m 'flow: more'"
	assert_status "$RC" 0
	assert_ws_unchanged "$code" "$code_hash"
	assert_ws_unchanged "$flow" "$flow_hash"
	sid=$(session_id)
	[ -n "$sid" ] || fail "no session"
	assert_exists "$SESSIONS/$sid/commits"
	assert_exists "$SESSIONS/$sid/ws/1/commits"
	run_confine apply --yes --commits "$sid"
	assert_status "$RC" 0
	assert_file_has_content "$ERR" "applied to $code\$"
	assert_file_has_content "$ERR" "applied to $flow\$"
	assert_eq "$(git -C "$code" log --format=%s "$code_base..HEAD")" \
	    "code: edit" "the first workspace's commit"
	assert_eq "$(git -C "$flow" log --format=%s "$flow_base..HEAD")" \
	    "flow: more
flow: a note" "the further workspace's commits, in order"
	assert_eq "$(git -C "$flow" show HEAD:notes.md)" "note
more" "the further workspace's tree at HEAD"
	assert_eq "$(git -C "$code" show HEAD:README)" "hello
edit" "the first workspace's tree at HEAD"
	assert_eq "$(GIT_CONFIG_GLOBAL=/dev/null git -C "$code" status \
	    --porcelain)" "" "the first workspace: nothing left uncommitted"
	assert_eq "$(GIT_CONFIG_GLOBAL=/dev/null git -C "$flow" status \
	    --porcelain)" "" "the further workspace: nothing left uncommitted"
}

# Nothing changed in any workspace: no session is kept.
case_untouched() {
	not_on landlock "a copy at another path: one writable workspace"
	ws_new
	code=$WS
	ws_new
	flow=$WS
	WS=$code
	# Positive control: a write in the further workspace alone keeps one.
	run_confine -w "$code" -w "$flow" -- sh -c "cat '$flow/README'"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^hello$'
	assert_no_session
	run_confine -w "$code" -w "$flow" -- sh -c "echo x >>'$flow/README'"
	assert_status "$RC" 0
	[ -n "$(sessions)" ] || fail "no session for the further workspace's change"
}

tcase "two writable workspaces: each its own patch, labelled, applied" case_two_writable
tcase "a read-only workspace: read at its path, never written, not exported" case_read_only
tcase "apply: every workspace checked first, all or none; --workspace one" case_all_or_none
tcase "apply: a later workspace that fails rolls the earlier back" case_rollback
tcase "the same tree twice, nested, or none writable: refused" case_refused
tcase "a profile's [workspace NAME]: relative to the first, in --dry-run" case_profile
tcase "a private workspace is leg B wherever it is shown, named" case_private
tcase "enter: every workspace plus its patch, from any of them" case_enter
tcase "only a further workspace changed: kept, listed, applied" case_only_further
tcase "one workspace: the session as before" case_one
tcase "apply --commits: each workspace its own agent's commits" case_commits
tcase "nothing changed in any workspace: no session kept" case_untouched
tap_done
