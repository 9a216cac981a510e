#!/bin/sh
# SPDX-License-Identifier: ISC
# review-ignored.sh - nothing of the host is destroyed that the review did
# not show (the export): a file replacing an ignored
# directory, and a directory replacing an ignored file, are exported
# whole and flagged as ignored host data; a change to an untracked host
# file is flagged; a pure addition of an ignored file stays out, counted.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
require_userns
plan 2

ws_ignored() {
	ws_new
	(
		cd "$WS" || exit 1
		printf 'data/\ncache\n*.log\n' >.gitignore
		git_fixed add .gitignore && git_fixed commit -q -m ignore &&
		mkdir data && echo 1,2 >data/a.csv && echo 3,4 >data/b.csv &&
		echo cached >cache && echo mine >notes.txt
	) || fail "cannot make the workspace"
	WS_HASH=$(tree_hash "$WS")
}

# Control: git ignores the host data, and has no copy of it.
t_control() {
	ws_ignored
	assert_eq "$(git -C "$WS" check-ignore data/a.csv data/b.csv cache new.log)" \
	    "data/a.csv
data/b.csv
cache
new.log" "what git ignores"
	assert_eq "$(git -C "$WS" ls-files data cache notes.txt)" "" "what git tracks"
}

t_replaced() {
	ws_ignored
	run_confine -- sh -c 'rm -rf data && echo x >data &&
		rm cache && mkdir cache && echo y >cache/f &&
		echo theirs >notes.txt && echo log >new.log'
	assert_status "$RC" 0
	assert_ws_unchanged
	SID=$(sed -n 's/^confine: session \([^:]*\): .*/\1/p' "$ERR")
	SDIR=$SESSIONS/$SID
	# Exported whole: the new file, the deletions it implies, and back.
	assert_eq "$(grep '^diff --git' "$SDIR/changes.patch")" \
	    "diff --git a/cache b/cache
diff --git a/cache/f b/cache/f
diff --git a/data b/data
diff --git a/data/a.csv b/data/a.csv
diff --git a/data/b.csv b/data/b.csv
diff --git a/notes.txt b/notes.txt" "the patch's files"
	assert_not_file_has_content "$SDIR/changes.patch" 'new\.log'
	for f in "$SDIR/report" "$ERR"; do
		p=; [ "$f" = "$ERR" ] && p='flagged: '
		assert_file_has_content "$f" "^  ${p}data: replaces an ignored host directory \\(untracked, git has no copy\\): applying deletes what it holds\$"
		assert_file_has_content "$f" "^  ${p}data/a\\.csv: ignored host data \\(untracked, git has no copy\\): applying deletes it\$"
		assert_file_has_content "$f" "^  ${p}data/b\\.csv: ignored host data \\(untracked, git has no copy\\): applying deletes it\$"
		assert_file_has_content "$f" "^  ${p}cache: ignored host data \\(untracked, git has no copy\\): applying deletes it\$"
		assert_file_has_content "$f" "^  ${p}notes\\.txt: untracked host data \\(git has no copy\\): applying replaces it\$"
	done
	assert_file_has_content "$SDIR/report" '^ignored by \.gitignore, not exported: 1$'
	run_confine show "$SID"
	assert_status "$RC" 0
	cmp -s "$OUT" "$SDIR/report" || fail "show is not the report"
	# The patch gives the agent's tree on a copy of the host's.
	C=$TEST_TMP/copy
	cp -a "$WS" "$C"
	(cd "$C" && git_fixed apply --binary "$SDIR/changes.patch") ||
	    fail "the patch does not apply to a copy of the host's tree"
	assert_eq "$(cat "$C/data") $(cat "$C/cache/f") $(cat "$C/notes.txt")" \
	    "x y theirs" "the copy after the patch"
}

tcase "control: the host data is ignored or untracked by git" t_control
tcase "a file for an ignored directory and back: exported, flagged" t_replaced
tap_done
