#!/bin/sh
# SPDX-License-Identifier: ISC
# review-large.sh - the export is bounded: a file over
# 32 MiB (a sparse 1 TiB one too, told by its size before any read) or
# over 200000 lines is not exported, listed as "too large, not exported"
# under skipped and flagged; the session is kept, the host unchanged, and
# the rest of the change is exported as usual.  A large file that
# replaces a directory takes the directory's deletions with it: nothing
# of the host is deleted for a change not shown.  A tree deeper than the
# export's 256 levels is listed as such under skipped, the rest exported,
# and "confine show" exports the session again.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
require_userns
plan 2

t_large() {
	ws_new
	# Control: the files are what they claim (made the same way here).
	C=$TEST_TMP/control
	mkdir "$C"
	truncate -s 1T "$C/sparse" && truncate -s 40M "$C/big" &&
	    seq 1 250000 >"$C/many" || fail "cannot make the control files"
	assert_eq "$(stat -c %s "$C/sparse") $(stat -c %s "$C/big") $(wc -l <"$C/many")" \
	    "1099511627776 41943040 250000" "the control files' sizes"
	rm -rf "$C"
	run_confine -- sh -c 'truncate -s 1T sparse && truncate -s 40M big &&
		seq 1 250000 >many && seq 1 199999 >lines-ok &&
		head -c 1048576 /dev/zero >one-mib && echo changed >README &&
		rm -rf src && truncate -s 40M src'
	assert_status "$RC" 0
	assert_ws_unchanged
	SID=$(sed -n 's/^confine: session \([^:]*\): .*/\1/p' "$ERR")
	SDIR=$SESSIONS/$SID
	assert_exists "$SDIR/upper/sparse"
	# The rest is exported; the large ones are not.
	assert_eq "$(grep '^diff --git' "$SDIR/changes.patch")" \
	    "diff --git a/README b/README
diff --git a/lines-ok b/lines-ok
diff --git a/one-mib b/one-mib" "the patch's files"
	for f in "$SDIR/report" "$ERR"; do
		p=; [ "$f" = "$ERR" ] && p='flagged: '
		assert_file_has_content "$f" "^  ${p}sparse: too large, not exported: over 32 MiB\$"
		assert_file_has_content "$f" "^  ${p}big: too large, not exported: over 32 MiB\$"
		assert_file_has_content "$f" "^  ${p}many: too large, not exported: over 200000 lines\$"
	done
	sed -n '/^skipped:$/,$p' "$SDIR/report" >"$TEST_TMP/skipped"
	assert_eq "$(cat "$TEST_TMP/skipped")" "skipped:
  big (too large, not exported: over 32 MiB)
  many (too large, not exported: over 200000 lines)
  sparse (too large, not exported: over 32 MiB)
  src (too large, not exported: over 32 MiB)
  src/main.c (beneath src, which is not exported)" "the report's skipped"
	run_confine show "$SID"
	assert_status "$RC" 0
	cmp -s "$OUT" "$SDIR/report" || fail "show is not the report"
	run_confine ls
	assert_file_has_content "$OUT" "^$SID .* exported "
}

t_deep() {
	ws_new
	# Control: the tree is as deep as that, made the same way here.
	(cd "$TEST_TMP" && d=deep && i=0 && while [ $i -lt 300 ]; do
		d=$d/d; i=$((i + 1)); done && mkdir -p "$d" && echo x >"$d/f") ||
	    fail "cannot make a tree of 300 levels"
	assert_eq "$(cd "$TEST_TMP" && find deep -name f | tr -cd / | wc -c)" \
	    301 "the control's depth (deep/ and 300 d/ above f)"
	rm -rf "$TEST_TMP/deep"
	run_confine -- sh -c 'd=deep; i=0; while [ $i -lt 300 ]; do
		d=$d/d; i=$((i + 1)); done; mkdir -p "$d" && echo x >"$d/f" &&
		echo changed >README'
	assert_status "$RC" 0
	assert_ws_unchanged
	SID=$(sed -n 's/^confine: session \([^:]*\): .*/\1/p' "$ERR")
	[ -n "$SID" ] || fail "no session named on stderr"
	SDIR=$SESSIONS/$SID
	assert_file_has_content "$SDIR/report" '^  deep/d/.*/d \(deeper than 256 directories: not exported\)$'
	assert_not_file_has_content "$ERR" 'Too many levels'
	assert_eq "$(grep '^diff --git' "$SDIR/changes.patch")" \
	    "diff --git a/README b/README" "the rest of the change"
	# Exported again, the same.
	cp "$SDIR/changes.patch" "$TEST_TMP/first.patch"
	rm "$SDIR/changes.patch" "$SDIR/report"
	run_confine show "$SID"
	assert_status "$RC" 0
	cmp -s "$SDIR/changes.patch" "$TEST_TMP/first.patch" ||
	    fail "show exported another patch"
}

tcase "a sparse 1 TiB, a 40 MiB and a 250000-line file: skipped, flagged" t_large
tcase "a tree 300 levels deep: skipped with the limit reached, the rest exported, show works" t_deep
tap_done
