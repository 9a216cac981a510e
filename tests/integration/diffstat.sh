#!/bin/sh
# SPDX-License-Identifier: ISC
# diffstat.sh - the exit summary and the report give the changed files as
# "git diff --stat" gives them for the same change, at the width git uses
# for a pipe (80 columns): the same names (renames folded, odd bytes
# quoted), counts, alignment and +/- graph, and binary files' sizes.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
require_userns
plan 3

# git's own view: the same change made by sh in a copy of the workspace.
unset COLUMNS GIT_DIFF_OPTS

LONG=docs/a-directory-with-a-rather-long-name/and-below-it-a-file-named-past-eighty-columns.txt

# A workspace with more to change than ws_new's: a file to rename with a
# change, and a binary file.
ws_more() {
	ws_new
	(
		cd "$WS" &&
		seq 1 40 >notes.txt &&
		printf 'one\000two\000' >blob.bin &&
		git_fixed add -A && git_fixed commit -q -m more
	) || fail "cannot add to $WS"
}

# confine's lines: those after the "N files changed" header of stderr, to
# the totals.
confine_stat() {
	awk 'f { print } f && /^ [0-9]+ files? changed/ { exit }
	    /^confine: session .*: [0-9]+ files? changed$/ { f = 1 }' "$1"
}

# The report's: from the line after "changes:" to the totals.
report_stat() {
	awk 'f { print } f && /^ [0-9]+ files? changed/ { exit }
	    /^changes: / { f = 1 }' "$1"
}

# same_as_git SCRIPT: sh -c SCRIPT confined and in a copy; confine's
# summary and report are git's --stat of the copy, byte for byte.
same_as_git() {
	ref=$TEST_TMP/ref
	rm -rf "$ref"
	cp -a "$WS" "$ref"
	(cd "$ref" && sh -c "$1") || fail "the change does not run on the host"
	git_fixed -C "$ref" add -A
	git_fixed -C "$ref" diff --cached --stat >"$TEST_TMP/git-stat"
	[ -s "$TEST_TMP/git-stat" ] || fail "git sees no change"
	run_confine -- sh -c "$1"
	assert_status "$RC" 0
	confine_stat "$ERR" >"$TEST_TMP/confine-stat"
	sid=$(sed -n 's/^confine: session \([^:]*\): .*/\1/p' "$ERR")
	report_stat "$SESSIONS/$sid/report" >"$TEST_TMP/report-stat"
	for f in confine-stat report-stat; do
		cmp -s "$TEST_TMP/git-stat" "$TEST_TMP/$f" || {
			diag_file "$TEST_TMP/git-stat" "git diff --stat"
			diag_file "$TEST_TMP/$f" "$f"
			fail "$f is not git's"
		}
	done
}

t_mixed() {
	ws_more
	same_as_git "LONG=$LONG"'
		echo more >>README
		mkdir -p "${LONG%/*}" && seq 1 120 >"$LONG"
		mv notes.txt notes-renamed.txt && echo 41 >>notes-renamed.txt
		mv src/main.c src/entry.c
		rm bin/run.sh
		printf "one\000two\000three\000" >blob.bin
		printf "\001\002\000" >new.bin
		echo spaced >"with space.txt"
		echo accent >"caf$(printf "\303\251").txt"
		printf "a\nb\nc\n" >private.txt'
	# The graph is cut to the width, the long name to its end.
	assert_file_has_content "$TEST_TMP/confine-stat" '^ \.\.\.[^ ]*-columns\.txt \| 120 \+{10,}$'
	assert_file_has_content "$TEST_TMP/confine-stat" '^ src/\{main\.c => entry\.c\} +\| +0$'
	assert_file_has_content "$TEST_TMP/confine-stat" '^ blob\.bin +\| Bin 8 -> 14 bytes$'
	awk 'length > 80 { exit 1 }' "$TEST_TMP/confine-stat" ||
	    fail "a line is wider than 80 columns"
}

t_small() {
	ws_new
	same_as_git 'echo more >>README'
	assert_file_has_content "$TEST_TMP/confine-stat" '^ README \| 1 \+$'
	assert_file_has_content "$TEST_TMP/confine-stat" '^ 1 file changed, 1 insertion\(\+\)$'
}

# Many lines changed in few columns: scaled as git scales them.
t_scaled() {
	ws_new
	same_as_git '
		seq 1 1000 >big.txt
		seq 1 3 >small.txt
		printf "x\n" >README'
}

tcase "a mix of files: names, renames, binary, quoting, width as git's" t_mixed
tcase "one line: git's words" t_small
tcase "large counts: the graph scaled as git's" t_scaled
tap_done
