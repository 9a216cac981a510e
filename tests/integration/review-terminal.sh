#!/bin/sh
# SPDX-License-Identifier: ISC
# review-terminal.sh - the review tools show everything: on a
# terminal, "confine show", "diff", "diff --commits" and "ls"
# print every invisible code point of the agent's names, contents and
# commit messages escaped (zero-width, tag characters, soft hyphen,
# fillers, line separators; control characters), through the user's
# $PAGER; into a pipe, "diff" gives the exact bytes.  "diff" colours the
# patch as git does on a terminal (not for NO_COLOR or --no-color; --color
# forces it, into a pipe too), never letting the agent's own escape
# sequences through, and pages it with $PAGER, else sensible-pager, else
# less -FRX.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
require_userns
plan 4

ZWSP=$(printf '\342\200\213')		# U+200B ZERO WIDTH SPACE
TAGA=$(printf '\363\240\201\241')	# U+E0061 TAG LATIN SMALL LETTER A
SHY=$(printf '\302\255')		# U+00AD SOFT HYPHEN
HF=$(printf '\343\205\244')		# U+3164 HANGUL FILLER
LS=$(printf '\342\200\250')		# U+2028 LINE SEPARATOR
ESC=$(printf '\033')
# confine's colours (diff on a terminal).
SGR_ERE="$ESC\\[(1|36|31|32|33)?m"

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

# assert_escaped FILE: none of the agent's invisibles or escapes in FILE,
# confine's own colours aside.
assert_escaped() {
	sed -E "s/$SGR_ERE//g" "$1" >"$1.plain"
	for b in ZWSP:"$ZWSP" TAGA:"$TAGA" SHY:"$SHY" HF:"$HF" LS:"$LS" \
	    "ESC [":"$ESC["; do
		assert_no_bytes "$1.plain" "${b%%:*}" "${b#*:}"
	done
}

t_terminal() {
	mkdir "$TEST_TMP/w${ZWSP}s"
	ws_new "$TEST_TMP/w${ZWSP}s"
	# The agent's bytes, passed as arguments: a name, a content, a subject.
	run_confine -- sh -c '
		printf "%s\n" "$2" >"$1" &&
		git add -A && GIT_AUTHOR_NAME="E${3}ve" \
		    GIT_AUTHOR_EMAIL=e@x.invalid GIT_COMMITTER_NAME=c \
		    GIT_COMMITTER_EMAIL=c@x.invalid git commit -q -m "$3" &&
		echo after >>"$1"' sh \
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


# assert_only_sgr FILE: FILE has colours and no other escape sequence.
assert_only_sgr() {
	grep -a -q -E "$SGR_ERE" "$1" || {
		diag_file "$1" "$1"
		fail "$1 is not coloured"
	}
	! sed -E "s/$SGR_ERE//g" "$1" | grep -a -q -F "$ESC" || {
		diag_file "$1" "$1"
		fail "$1 holds an escape sequence not of confine's colours"
	}
}

# A session whose patch holds escape sequences of the agent's: SID.
color_session() {
	ws_new
	run_confine -- sh -c '
		printf "one\033[2Jtwo\n\033]52;c;Zm9v\007\n" >README
		printf "@@ -1 +1 @@ not a hunk\n-x\n" >>README
		printf "diff --git a/x b/x\n" >new.txt
		git add -A && GIT_AUTHOR_NAME=Eve GIT_AUTHOR_EMAIL=e@x.invalid \
		    GIT_COMMITTER_NAME=c GIT_COMMITTER_EMAIL=c@x.invalid \
		    git commit -q -m "fix$(printf "\033[31m")red"'
	assert_status "$RC" 0
	SID=$(sed -n 's/^confine: session \([^:]*\): .*/\1/p' "$ERR")
	# Control: the agent's raw bytes are in the patch.
	run_confine diff "$SID"
	grep -a -q -F "one${ESC}[2Jtwo" "$OUT" || fail "the raw bytes are not in the patch"
}

t_color_pipe() {
	color_session
	run_confine diff --color "$SID"
	assert_status "$RC" 0
	assert_only_sgr "$OUT"
	# git's colours: meta bold, hunk header cyan, - red, + green.
	assert_file_has_content "$OUT" "^${ESC}\\[1mdiff --git a/README b/README${ESC}\\[m\$"
	assert_file_has_content "$OUT" "^${ESC}\\[1m\\+\\+\\+ b/README${ESC}\\[m\$"
	assert_file_has_content "$OUT" "^${ESC}\\[36m@@ -1 \\+1,4 @@${ESC}\\[m\$"
	assert_file_has_content "$OUT" "^${ESC}\\[31m-hello${ESC}\\[m\$"
	assert_file_has_content "$OUT" "^${ESC}\\[32m\\+one\\\\x1b\\[2Jtwo${ESC}\\[m\$"
	assert_file_has_content "$OUT" "^${ESC}\\[32m\\+\\\\x1b\\]52;c;Zm9v\\\\x07${ESC}\\[m\$"
	# The agent's lines that look like a patch's own are added lines.
	assert_file_has_content "$OUT" "^${ESC}\\[32m\\+@@ -1 \\+1 @@ not a hunk${ESC}\\[m\$"
	assert_file_has_content "$OUT" "^${ESC}\\[32m\\+diff --git a/x b/x${ESC}\\[m\$"
	assert_file_has_content "$OUT" "^${ESC}\\[32m\\+-x${ESC}\\[m\$"
	run_confine diff --color --commits "$SID"
	assert_status "$RC" 0
	assert_only_sgr "$OUT"
	assert_file_has_content "$OUT" "^${ESC}\\[33mcommit 0001${ESC}\\[m\$"
	assert_file_has_content "$OUT" 'fix\\x1b\[31mred'
	# --no-color, and no option, into a pipe: the exact bytes.
	for opt in --no-color ""; do
		run_confine diff $opt "$SID"
		cmp -s "$OUT" "$SESSIONS/$SID/changes.patch" ||
		    fail "diff $opt into a pipe is not the patch"
	done
}

t_color_tty() {
	color_session
	on_tty "PAGER=cat '$CONFINE' diff $SID"
	assert_status "$RC" 0
	assert_only_sgr "$OUT"
	assert_file_has_content "$OUT" "${ESC}\\[32m\\+one\\\\x1b\\[2Jtwo${ESC}\\[m"
	for how in "NO_COLOR=1 PAGER=cat '$CONFINE' diff" \
	    "PAGER=cat '$CONFINE' diff --no-color" \
	    "TERM=dumb PAGER=cat '$CONFINE' diff"; do
		on_tty "$how $SID"
		assert_status "$RC" 0
		assert_file_has_content "$OUT" 'one\\x1b\[2Jtwo'
		! grep -a -q -F "$ESC" "$OUT" || {
			diag_file "$OUT" "$how"
			fail "$how: coloured"
		}
	done
	on_tty "NO_COLOR=1 PAGER=cat '$CONFINE' diff --color $SID"
	assert_only_sgr "$OUT"
}

t_pager() {
	color_session
	mkdir "$TEST_TMP/bin" "$TEST_TMP/lessbin" "$TEST_TMP/nobin"
	# Each fake pager says how it was called, then shows what it read.
	for p in bin/sensible-pager bin/less lessbin/less; do
		printf '#!/bin/sh\necho "$0 $* LESS=$LESS" >"%s"\nexec /bin/cat\n' \
		    "$TEST_TMP/paged-by" >"$TEST_TMP/$p"
		chmod 0755 "$TEST_TMP/$p"
	done
	# No $PAGER: the system's sensible-pager from PATH, before less.
	on_tty "unset PAGER LESS; PATH='$TEST_TMP/bin:$PATH' '$CONFINE' diff $SID"
	assert_status "$RC" 0
	assert_eq "$(cat "$TEST_TMP/paged-by")" "$TEST_TMP/bin/sensible-pager  LESS=FRX" "the pager"
	assert_only_sgr "$OUT"
	# No sensible-pager: less -FRX from PATH, LESS=FRX as git sets it.
	rm -f "$TEST_TMP/paged-by"
	on_tty "unset PAGER LESS; PATH='$TEST_TMP/lessbin' '$CONFINE' diff $SID"
	assert_status "$RC" 0
	assert_eq "$(cat "$TEST_TMP/paged-by")" "$TEST_TMP/lessbin/less -FRX LESS=FRX" "less"
	assert_only_sgr "$OUT"
	# $PAGER first; the user's LESS kept.
	rm -f "$TEST_TMP/paged-by"
	on_tty "LESS=S PAGER='$TEST_TMP/bin/less -x' PATH='$TEST_TMP/nobin:$PATH' '$CONFINE' diff $SID"
	assert_eq "$(cat "$TEST_TMP/paged-by")" "$TEST_TMP/bin/less -x LESS=S" "\$PAGER"
	# No pager at all: the patch on the terminal all the same.
	on_tty "unset PAGER; PATH='$TEST_TMP/nobin' '$CONFINE' diff $SID"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" 'one\\x1b\[2Jtwo'
	# Into a pipe: no pager.
	rm -f "$TEST_TMP/paged-by"
	(cd "$WS" && PATH="$TEST_TMP/bin:$PATH" "$CONFINE" diff "$SID") >"$OUT"
	assert_not_exists "$TEST_TMP/paged-by"
}

tcase "show, diff, diff --commits, ls: every invisible escaped" t_terminal
tcase "diff --color into a pipe: git's colours, the agent's escapes made visible" t_color_pipe
tcase "diff on a terminal: coloured, not for NO_COLOR, --no-color or TERM=dumb" t_color_tty
tcase "diff on a terminal: \$PAGER, else sensible-pager, else less -FRX, else none; none into a pipe" t_pager
tap_done
