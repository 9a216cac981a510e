#!/bin/sh
# SPDX-License-Identifier: ISC
# sessions.sh - the session subcommands: ls lists the workspace's
# sessions oldest first with their command, changed files, age, size and
# state (--all: every workspace's); show prints a report (the latest of
# the workspace by default); diff gives the patch's exact bytes to a pipe and a
# sanitised view to a terminal; apply changes the host workspace only
# when told to, all or nothing, once; drop removes a session without
# following what the command left in it.  A session with no change
# leaves no directory.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
require_userns
plan 18

ID_ERE='[0-9]{8}-[0-9]{6}\.[0-9]{3}-[0-9a-f]{8}'

# new_session SCRIPT: run sh -c SCRIPT confined in $WS; the session it
# kept in SID and SDIR.
new_session() {
	run_confine -- sh -c "$1"
	assert_status "$RC" 0
	assert_file_has_content "$ERR" "^confine: session $ID_ERE: [0-9]+ files? changed\$"
	SID=$(sed -n 's/^confine: session \([^:]*\): .*/\1/p' "$ERR")
	SDIR=$SESSIONS/$SID
	assert_exists "$SDIR/changes.patch"
	assert_exists "$SDIR/report"
}

# on_tty COMMAND-LINE: run it on a new terminal (script(1)), stdin from
# $TTY_IN (default: nothing); the terminal's output in $OUT, status in RC.
on_tty() {
	command -v script >/dev/null ||
	    skip_case "script (util-linux) is not installed"
	RC=0
	(
		cd "${RUN_CWD:-$WS}" || exit 1
		TERM=xterm timeout -k 5 "$CONFINE_TIMEOUT" \
		    script -qec "$1" /dev/null <"${TTY_IN:-/dev/null}" >"$OUT" 2>"$ERR"
	) || RC=$?
}

# The non-directory entries of the tree under ., but .git and .t: type,
# the execute bit, the link target, the content's hash.  What a git patch
# can express; run inside the sandbox and on the host.
MANIFEST='find . \( -path ./.git -o -path ./.t \) -prune -o ! -type d -print |
	sort | while IFS= read -r p; do
		if [ -L "$p" ]; then
			printf "%s link %s\n" "$p" "$(readlink "$p")"
		else
			[ -x "$p" ] && t=exec || t=file
			printf "%s %s %s\n" "$p" "$t" "$(sha256sum <"$p" | cut -c1-64)"
		fi
	done'

# Edits of every kind a patch carries; the agent's bytes include escape
# sequences and binary data.
EDITS='
	echo changed >README
	echo new >new-file
	rm src/main.c
	cp bin/run.sh new.sh && printf "#!/bin/sh\n" >new.sh
	chmod 0644 bin/run.sh
	mkdir -p newdir/sub && echo deep >newdir/sub/f
	ln -s new-file new-link
	mv private.txt renamed.txt
	rm link && echo now-a-file >link
	printf "\000\001\002\377binary" >blob.bin
	printf "a\033]0;pwned\007b\033[31mred\n" >esc.txt
	echo build >Makefile
	echo ignored >.t/junk'

t_ls() {
	ws_new
	ws1=$WS
	run_confine ls
	assert_status "$RC" 0
	assert_file_empty "$OUT"
	new_session 'echo one >one'
	s1=$SID
	ws_new
	ws2=$WS
	new_session 'echo two >two'
	s2=$SID
	WS=$ws1
	new_session 'echo three >three; echo four >four'
	s3=$SID
	# An export that did not happen (confine killed: export-faults.sh).
	rm "$SESSIONS/$s3/changes.patch" "$SESSIONS/$s3/report"
	WS=$ws1 run_confine apply --yes "$s1"
	assert_status "$RC" 0
	# The current workspace's, oldest first; a pipe gets no header.
	WS=$ws1 run_confine ls
	assert_status "$RC" 0
	assert_file_empty "$ERR"
	assert_lines "$OUT" 2
	assert_file_has_content "$OUT" "^$s1 +[0-9]+s +1 +[0-9.]+[KMG] +applied +sh -c echo one >one\$"
	assert_file_has_content "$OUT" "^$s3 +[0-9]+s +- +[0-9.]+[KMG] +not exported +sh -c echo three >three; echo four >four\$"
	assert_eq "$(cut -d' ' -f1 "$OUT")" "$s1
$s3" "the sessions of $ws1"
	# --all: every workspace's, with the workspace.
	RUN_CWD=$TEST_TMP run_confine ls --all
	assert_status "$RC" 0
	assert_lines "$OUT" 3
	assert_eq "$(cut -d' ' -f1 "$OUT")" "$s1
$s2
$s3" "every session"
	assert_file_has_content "$OUT" "^$s2 +[0-9]+s +1 +[0-9.]+[KMG] +exported +$ws2 +sh -c echo two >two\$"
	# Aligned: every column starts where the header's does.
	on_tty "'$CONFINE' ls --all"
	assert_status "$RC" 0
	tr -d '\r' <"$OUT" >"$TEST_TMP/tty"
	head -n 1 "$TEST_TMP/tty" | grep -q '^ID  *AGE  FILES  SIZE  STATE  *WORKSPACE  *COMMAND$' ||
	    fail "the header: $(head -n 1 "$TEST_TMP/tty")"
	for col in STATE WORKSPACE COMMAND; do
		at=$(head -n 1 "$TEST_TMP/tty" | awk -v c=$col '{ print index($0, c) }')
		awk -v at="$at" 'NR > 1 && substr($0, at - 2, 3) !~ /^  [^ ]$/ { exit 1 }' \
		    "$TEST_TMP/tty" || fail "column $col is not aligned"
	done
	# No session here: a note of the others, on stderr only.
	ws_new
	run_confine ls
	assert_status "$RC" 0
	assert_file_empty "$OUT"
	assert_file_has_content "$ERR" "^confine: no sessions of $WS; 'confine ls --all' lists 3 of other workspaces\$"
}

t_show() {
	ws_new
	new_session "$EDITS"
	s1=$SID
	# Started within the same second, most likely: still the latest.
	new_session 'echo second >second'
	s2=$SID
	run_confine show
	assert_status "$RC" 0
	assert_eq "$(head -n 2 "$OUT")" "session $s2
workspace $WS" "the latest session's report"
	cmp -s "$OUT" "$SESSIONS/$s2/report" || fail "show is not the report"
	run_confine show "$s1"
	assert_status "$RC" 0
	modified=2
	assert_eq "$(head -n 3 "$OUT")" "session $s1
workspace $WS
changes: 8 added, $modified modified, 2 deleted, 1 renamed" "the report's head"
	assert_file_has_content "$OUT" '^ bin/run\.sh +\| +0$'
	assert_file_has_content "$OUT" '^ [0-9]+ files changed, '
	# Flagged, with the reason.
	assert_file_has_content "$OUT" '^  Makefile: a build script$'
	assert_file_has_content "$OUT" '^  new-link: a symbolic link'
	assert_file_has_content "$OUT" '^  new\.sh: made executable$'
	assert_file_has_content "$OUT" '^ignored by \.gitignore, not exported: 1$'
	assert_not_file_has_content "$OUT" 'junk'
	assert_not_file_has_content "$OUT" "$(printf '\033')"
	assert_ws_unchanged
}

# t_bad_id SUBCOMMAND
t_bad_id() {
	ws_new
	new_session 'echo x >x'
	# What "../x" would name, were it followed.
	mkdir -p "$XDG_STATE_HOME/confine/x/upper"
	cp "$SDIR/meta" "$SDIR/changes.patch" "$XDG_STATE_HOME/confine/x/"
	echo planted >"$XDG_STATE_HOME/confine/x/report"
	for id in ../x nonexistent 20000101-000000-00000000; do
		run_confine "$1" "$id"
		assert_status "$RC" 125
		assert_refusal "$ERR"
		assert_file_has_content "$ERR" "^confine: .*'$id'"
		assert_file_empty "$OUT"
	done
	assert_exists "$XDG_STATE_HOME/confine/x/report"
	assert_eq "$(sessions)" "$SID" "the sessions"
	assert_not_exists "$SDIR/applied"
	assert_ws_unchanged
}

t_diff_pipe() {
	ws_new
	new_session "$EDITS"
	run_confine diff "$SID"
	assert_status "$RC" 0
	cmp "$OUT" "$SDIR/changes.patch" || fail "not the patch's bytes"
	# The agent's bytes as they are, for git apply.
	assert_file_has_content "$OUT" "$(printf '\033')\\]0;pwned"
	run_confine diff
	assert_status "$RC" 0
	cmp "$OUT" "$SDIR/changes.patch" || fail "the latest: not the patch's bytes"
	# What a pipe gets applies to the host tree.
	git -C "$WS" apply --check --binary "$OUT" ||
	    fail "git apply --check refuses the piped patch"
	assert_ws_unchanged
}

t_diff_tty() {
	ws_new
	# Short: the pager quits by itself when it all fits on one screen.
	new_session 'printf "a\033]0;pwned\007b\033[31mred\n" >esc.txt'
	printf q >"$TEST_TMP/q"
	TTY_IN=$TEST_TMP/q on_tty "'$CONFINE' diff $SID"
	assert_status "$RC" 0
	# Coloured as git colours it (review-terminal.sh has the colours).
	assert_file_has_content "$OUT" "^$(printf '\033')\\[32m"'\+a\\x1b\]0;pwned\\x07b\\x1b\[31mred'
	assert_file_has_content "$OUT" 'diff --git a/esc\.txt b/esc\.txt'
	# Only the pager's and confine's colours may remain: none of the
	# agent's (an added file: no line in red).
	assert_not_file_has_content "$OUT" "$(printf '\033')\\]"
	assert_not_file_has_content "$OUT" "$(printf '\033')\\[31m"
	assert_not_file_has_content "$OUT" "$(printf '\007')"
	assert_ws_unchanged
}

t_apply_no_tty() {
	ws_new
	new_session "$EDITS"
	run_confine apply "$SID"
	assert_status "$RC" 125
	tail -n 2 "$ERR" >"$TEST_TMP/last"
	assert_refusal "$TEST_TMP/last"
	assert_file_has_content "$TEST_TMP/last" \
	    '^confine: not applying without a terminal'
	assert_file_has_content "$TEST_TMP/last" '^hint: .*apply --yes'
	assert_not_exists "$SDIR/applied"
	assert_ws_unchanged
}

t_apply_yes() {
	ws_new
	run_confine -- sh -c "$EDITS
		$MANIFEST"
	assert_status "$RC" 0
	cp "$OUT" "$TEST_TMP/inside"
	SID=$(sed -n 's/^confine: session \([^:]*\): .*/\1/p' "$ERR")
	SDIR=$SESSIONS/$SID
	assert_exists "$SDIR/changes.patch"
	assert_ws_unchanged
	# Control: the host's tree is not the command's yet.
	(cd "$WS" && sh -c "$MANIFEST") >"$TEST_TMP/before"
	! cmp -s "$TEST_TMP/before" "$TEST_TMP/inside" ||
	    fail "control: the command changed nothing a manifest shows"
	run_confine apply --yes "$SID"
	assert_status "$RC" 0
	assert_file_has_content "$ERR" "^confine: applied to $WS\$"
	(cd "$WS" && sh -c "$MANIFEST") >"$TEST_TMP/after"
	cmp -s "$TEST_TMP/after" "$TEST_TMP/inside" || {
		diff "$TEST_TMP/inside" "$TEST_TMP/after" | sed 's/^/# /' | head -n 20
		fail "the workspace is not the command's final tree"
	}
	assert_not_exists "$WS/.t/junk"
	assert_exists "$SDIR/applied"
	run_confine ls
	assert_file_has_content "$OUT" "^$SID .* applied "
	# Once only.
	applied_hash=$(tree_hash "$WS")
	run_confine apply --yes "$SID"
	assert_status "$RC" 125
	assert_refusal "$ERR"
	assert_file_has_content "$ERR" "^confine: session .*$SID' was applied"
	assert_ws_unchanged "$WS" "$applied_hash"
}

t_apply_conflict() {
	ws_new
	(
		cd "$WS" || exit 1
		printf 'a1\na2\na3\n' >a.txt
		printf 'b1\nb2\nb3\n' >b.txt
		git_fixed add a.txt b.txt && git_fixed commit -q -m ab
	)
	new_session 'sed -i s/a2/A2/ a.txt; sed -i s/b2/B2/ b.txt'
	# Control: a two-file patch, b.txt second.
	assert_eq "$(grep '^diff --git' "$SDIR/changes.patch")" \
	    "diff --git a/a.txt b/a.txt
diff --git a/b.txt b/b.txt" "the patch's files"
	# The host changes the line the second hunk changes.
	printf 'b1\nhost\nb3\n' >"$WS/b.txt"
	WS_HASH=$(tree_hash "$WS")
	run_confine apply --yes "$SID"
	assert_status "$RC" 125
	assert_file_has_content "$ERR" \
	    "^confine: 'b.txt' changed on the host since the session; nothing was changed\$"
	assert_ws_unchanged
	assert_eq "$(cat "$WS/a.txt")" "a1
a2
a3" "a.txt, the first file of the patch"
	assert_not_exists "$SDIR/applied"
	assert_not_exists "$WS/a.txt.rej"
	assert_not_exists "$WS/b.txt.rej"
}

# -w names a directory inside a git repository: the patch's paths are
# relative to it, and so must be what apply changes.
t_apply_subdir() {
	ws_new
	sub=$WS/src
	RUN_CWD=$sub run_confine -w "$sub" -- sh -c 'echo changed >main.c; echo new >new.c'
	assert_status "$RC" 0
	SID=$(sed -n 's/^confine: session \([^:]*\): .*/\1/p' "$ERR")
	assert_file_has_content "$SESSIONS/$SID/changes.patch" '^\+\+\+ b/new\.c$'
	RUN_CWD=$sub run_confine apply --yes "$SID"
	assert_status "$RC" 0
	assert_eq "$(cat "$sub/new.c" 2>/dev/null)" new "src/new.c after apply"
	assert_eq "$(cat "$sub/main.c")" changed "src/main.c after apply"
	assert_not_exists "$WS/new.c"
}

t_apply_tty() {
	ws_new
	new_session 'echo changed >README'
	printf 'n\n' >"$TEST_TMP/no"
	TTY_IN=$TEST_TMP/no on_tty "'$CONFINE' apply $SID"
	assert_status "$RC" 1
	assert_file_has_content "$OUT" "apply these changes to $WS\\? \\[y/N\\]"
	assert_file_has_content "$OUT" 'not applied'
	assert_not_exists "$SDIR/applied"
	assert_ws_unchanged
	# Control: the answer reaches confine.
	printf 'y\n' >"$TEST_TMP/yes"
	TTY_IN=$TEST_TMP/yes on_tty "'$CONFINE' apply $SID"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" "confine: applied to $WS"
	assert_exists "$SDIR/applied"
	assert_eq "$(cat "$WS/README")" changed "README after yes"
}

t_drop() {
	ws_new
	new_session 'echo one >one'
	s1=$SID
	new_session 'echo two >two'
	s2=$SID
	run_confine drop "$s1"
	assert_status "$RC" 0
	assert_file_empty "$ERR"
	assert_not_exists "$SESSIONS/$s1"
	assert_eq "$(sessions)" "$s2" "the sessions left"
	run_confine ls
	assert_eq "$(cut -d' ' -f1 "$OUT")" "$s2" "confine ls"
	assert_ws_unchanged
}

t_drop_hostile() {
	ws_new
	outside=$TEST_TMP/outside
	mkdir -p "$outside/dir"
	echo keep >"$outside/keep"
	echo keep >"$outside/dir/keep"
	chmod 0700 "$outside/dir"
	outside_hash=$(tree_hash "$outside")
	# (Whether the export copes with these is export-faults.sh's.)
	run_confine -- sh -c "
		mkdir locked && echo x >locked/f && chmod 000 locked
		mkdir ro && echo y >ro/g && chmod 0500 ro
		echo z >nomode && chmod 000 nomode
		ln -s '$outside' outlink
		ln -s '$outside/keep' outfile
		ln -s '$outside/dir' src/outdir
		rm README"
	assert_status "$RC" 0
	SID=$(sessions)
	SDIR=$SESSIONS/$SID
	assert_exists "$SDIR/upper"
	# The export gives the owner read access back to what it exports;
	# lock them again, as a command that outlived it could have.
	chmod 000 "$SDIR/upper/locked" "$SDIR/upper/nomode"
	# Control: upper holds them locked, and the links lead outside.
	[ "$(stat -c %a "$SDIR/upper/locked")" = 0 ] || fail "control: locked"
	[ "$(stat -c %a "$SDIR/upper/nomode")" = 0 ] || fail "control: nomode"
	[ "$(cat "$SDIR/upper/outfile")" = keep ] || fail "control: outfile"
	run_confine drop "$SID"
	assert_status "$RC" 0
	assert_file_empty "$ERR"
	assert_not_exists "$SDIR"
	assert_eq "$(tree_hash "$outside")" "$outside_hash" "the links' targets"
	assert_ws_unchanged
}

t_drop_bad() {
	ws_new
	new_session 'echo x >x'
	mkdir -p "$XDG_STATE_HOME/confine/x"
	for id in 20000101-000000-00000000 nonexistent ../x; do
		run_confine drop "$id"
		assert_status "$RC" 125
		assert_refusal "$ERR"
		assert_file_has_content "$ERR" "^confine: no session '$id'\$"
	done
	assert_exists "$XDG_STATE_HOME/confine/x"
	# The good ones go, the bad one is reported.
	run_confine drop nonexistent "$SID"
	assert_status "$RC" 125
	assert_file_has_content "$ERR" "^confine: no session 'nonexistent'\$"
	assert_no_session
	assert_ws_unchanged
}

# confine's own facts of the export, as KEY=VALUE lines next to the report
# for people (store/session-meta.h); cmd/ reads them, not the report.
t_summary() {
	ws_new
	new_session "$EDITS"
	for kv in version=1 files=13 added=8 modified=2 deleted=2 renamed=1 \
	    commits=0 ignored=1 skipped=0 review=1; do
		assert_file_has_content "$SDIR/summary" "^$kv\$"
	done
	assert_file_has_content "$SDIR/summary" '^flagged=[1-9][0-9]*$'
	assert_not_exists "$SDIR/summary.tmp"
	# apply asks the summary whether the patch changes anything.
	sed 's/^files=.*/files=0/' "$SDIR/summary" >"$TEST_TMP/summary"
	cp "$TEST_TMP/summary" "$SDIR/summary"
	run_confine apply --yes "$SID"
	assert_status "$RC" 0
	assert_file_has_content "$ERR" '^confine: nothing to apply$'
	assert_not_exists "$SDIR/applied"
	assert_ws_unchanged
}

t_no_change() {
	ws_new
	run_confine -- sh -c 'cat README >/dev/null; echo t >t; mkdir d; echo u >d/u; rm -r t d'
	assert_status "$RC" 0
	assert_file_empty "$ERR"
	assert_no_session
	run_confine ls
	assert_status "$RC" 0
	assert_file_empty "$OUT"
	run_confine show
	assert_status "$RC" 125
	assert_refusal "$ERR"
	assert_file_has_content "$ERR" '^confine: no sessions'
	assert_ws_unchanged
}

# Untouched: the command's status comes back, the session is out of the
# store at once, and nothing of it is left once its removal (a process of
# its own, after the status) is done; a session with a change stays.
t_untouched() {
	ws_new
	# The control: a change is kept, with the command's status.
	run_confine -- sh -c 'echo c >c; exit 3'
	assert_status "$RC" 3
	kept=$(sessions)
	[ -n "$kept" ] || fail "control: the changed session is not kept"
	run_confine -- sh -c 'cat README >/dev/null; exit 7'
	assert_status "$RC" 7
	assert_file_empty "$ERR"
	[ "$(sessions)" = "$kept" ] || fail "sessions now: $(sessions)"
	wait_for 30 sh -c "[ -z \"\$(ls -A '$XDG_STATE_HOME/confine/trash' 2>/dev/null)\" ]" ||
	    fail "left in the trash: $(ls -A "$XDG_STATE_HOME/confine/trash")"
	assert_ws_unchanged
}

tcase "ls: the workspace's sessions oldest first, their command, files, age, size and state; --all" t_ls
tcase "show: the latest by default, or the one named" t_show
tcase "show: a bad or unknown id is refused" t_bad_id show
tcase "diff: a bad or unknown id is refused" t_bad_id diff
tcase "apply: a bad or unknown id is refused" t_bad_id apply
tcase "diff to a pipe: the patch's exact bytes" t_diff_pipe
tcase "diff on a terminal: sanitised" t_diff_tty
tcase "apply without a terminal or --yes: refused, nothing changed" t_apply_no_tty
tcase "apply --yes: the workspace becomes the command's tree, once" t_apply_yes
tcase "apply --yes of a patch that no longer applies: nothing changed" t_apply_conflict
tcase "apply --yes to a workspace inside a repository (-w DIR)" t_apply_subdir
tcase "apply on a terminal: 'n' applies nothing, 'y' applies" t_apply_tty
tcase "drop removes the session named, and only it" t_drop
tcase "drop: mode 000 entries and links in upper; targets survive" t_drop_hostile
tcase "drop: a bad or unknown id is refused; the others still go" t_drop_bad
tcase "summary: the export's facts as KEY=VALUE; apply reads them" t_summary
tcase "a session with no change leaves no directory" t_no_change
tcase "an untouched session: the status, out of the store, then nothing left" t_untouched
tap_done
