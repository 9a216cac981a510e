#!/bin/sh
# SPDX-License-Identifier: ISC
# review-terminal.sh - the review tools show everything: on a
# terminal, "confine show", "diff", "diff --commits" and "ls"
# print every invisible code point of the agent's names, contents and
# commit messages escaped (zero-width, tag characters, soft hyphen,
# fillers, line separators; control characters), through the user's
# $PAGER; into a pipe, "diff" gives the exact bytes.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
require_userns
plan 1

ZWSP=$(printf '\342\200\213')		# U+200B ZERO WIDTH SPACE
TAGA=$(printf '\363\240\201\241')	# U+E0061 TAG LATIN SMALL LETTER A
SHY=$(printf '\302\255')		# U+00AD SOFT HYPHEN
HF=$(printf '\343\205\244')		# U+3164 HANGUL FILLER
LS=$(printf '\342\200\250')		# U+2028 LINE SEPARATOR
ESC=$(printf '\033')

# on_tty COMMAND-LINE: on a new terminal (script(1)); output in $OUT.
on_tty() {
	command -v script >/dev/null ||
	    skip_case "script (util-linux) is not installed"
	RC=0
	(
		cd "$WS" || exit 1
		TERM=xterm timeout -k 5 "$CONFINE_TIMEOUT" \
		    script -qec "$1" /dev/null </dev/null >"$OUT" 2>"$ERR"
	) || RC=$?
}

# assert_no_bytes FILE WHAT BYTES
assert_no_bytes() {
	! grep -a -q -F -e "$3" "$1" || {
		diag_file "$1" "$1"
		fail "$1 holds $2 raw"
	}
}

assert_escaped() {
	for b in ZWSP:"$ZWSP" TAGA:"$TAGA" SHY:"$SHY" HF:"$HF" LS:"$LS" \
	    "ESC [":"$ESC["; do
		assert_no_bytes "$1" "${b%%:*}" "${b#*:}"
	done
}

t_terminal() {
	mkdir "$TEST_TMP/w${ZWSP}s"
	ws_new "$TEST_TMP/w${ZWSP}s"
	# The agent's bytes, passed as arguments: a name, a content, a subject.
	run_confine -- sh -c '
		printf "%s\n" "$2" >"$1" &&
		git add -A && git -c user.name="E${3}ve" -c user.email=e@x.invalid \
		    commit -q -m "$3" && echo after >>"$1"' sh \
	    "a${ZWSP}b${HF}.txt" "x${TAGA}${SHY}y${LS}z" "fix${ZWSP}${ESC}[2J${TAGA}"
	assert_status "$RC" 0
	assert_ws_unchanged
	SID=$(sed -n 's/^confine: session \([^:]*\): .*/\1/p' "$ERR")
	SDIR=$SESSIONS/$SID
	assert_escaped "$ERR"
	# Control: the raw bytes are the agent's, exact into a pipe.
	run_confine diff "$SID"
	cmp -s "$OUT" "$SDIR/changes.patch" || fail "diff | is not the patch"
	grep -a -q -F "x${TAGA}${SHY}y${LS}z" "$OUT" || fail "the raw content is not in the patch"
	run_confine diff --commits "$SID"
	grep -a -q -F "fix${ZWSP}${ESC}[2J${TAGA}" "$OUT" || fail "the raw subject is not in diff --commits"
	# On a terminal: escaped, through the user's pager.
	on_tty "PAGER='tee $TEST_TMP/paged' '$CONFINE' diff $SID"
	assert_status "$RC" 0
	assert_escaped "$OUT"
	assert_escaped "$TEST_TMP/paged"
	# (git's patch quotes such a name in octal itself.)
	assert_file_has_content "$TEST_TMP/paged" '"b/a\\342\\200\\213b'
	assert_file_has_content "$TEST_TMP/paged" 'x\\u\{e0061\}\\u\{00ad\}y\\u\{2028\}z'
	on_tty "PAGER=cat '$CONFINE' diff --commits $SID"
	assert_status "$RC" 0
	assert_escaped "$OUT"
	assert_file_has_content "$OUT" 'fix\\u\{200b\}\\x1b\[2J\\u\{e0061\}'
	on_tty "'$CONFINE' show $SID"
	assert_status "$RC" 0
	assert_escaped "$OUT"
	assert_file_has_content "$OUT" '^  0001 fix\\u\{200b\}\\x1b\[2J\\u\{e0061\}'
	assert_file_has_content "$OUT" 'author E.*\\u\{200b\}'
	assert_file_has_content "$OUT" 'a\\u\{200b\}b\\u\{3164\}\.txt'
	on_tty "'$CONFINE' ls --all"
	assert_status "$RC" 0
	assert_escaped "$OUT"
	assert_file_has_content "$OUT" "^$SID .* exported .*/w\\\\u\\{200b\\}s/"
}

tcase "show, diff, diff --commits, ls: every invisible escaped" t_terminal
tap_done
