#!/bin/sh
# SPDX-License-Identifier: ISC
# workspace.sh - the workspace is writable inside through an overlay whose
# upper directory is the session's; the host copy stays byte-identical;
# the session is kept (and reported) only when something was written.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
require_userns
plan 16

VARTMP=
vartmp_cleanup() {
	[ -z "$VARTMP" ] || { chmod -R u+rwX "$VARTMP"; rm -rf "$VARTMP"; }
}
LIB_CLEANUP_HOOK=vartmp_cleanup
if [ -d /var/tmp ] && [ -w /var/tmp ]; then
	VARTMP=$(mktemp -d /var/tmp/confine-test.XXXXXX)
fi

# The session that the message on stderr names; checks the message.
kept_session() {
	assert_file_has_content "$ERR" \
	    '^confine: session [0-9]{8}-[0-9]{6}\.[0-9]{3}-[0-9a-f]{8}: [0-9]+ files? changed$'
	id=$(sed -n 's/^confine: session \([^:]*\): .*/\1/p' "$ERR")
	dir=$SESSIONS/$id
	assert_exists "$dir/changes.patch"
	assert_exists "$dir/report"
	assert_eq "$(sessions)" "$id" "the sessions kept"
	SESSION_ID=$id
	UPPER=$dir/upper
}

# inside PATH: where the command sees PATH, a path in $WS, after
# kept_session: the landlock backend runs it in the session's copy.
inside() {
	if [ "$BACKEND" = landlock ]; then
		printf '%s%s\n' "$UPPER" "${1#"$WS"}"
	else
		printf '%s\n' "$1"
	fi
}

EDITS='
	echo changed >README
	echo new >new-file
	rm src/main.c
	chmod 0644 bin/run.sh
	mkdir -p newdir/sub && echo deep >newdir/sub/f
	ln -s new-file new-link
	mv private.txt renamed.txt
	echo through >>link
	cat README new-file newdir/sub/f renamed.txt
	test -e src/main.c || echo gone'

# A rename or link into another directory works in the workspace, in tmp
# and in the home (on landlock every Landlock layer must grant it: a layer
# that does not refuses it with EXDEV).
t_move() {
	ws_new
	run_confine -- sh -c 'for d in . "$TMPDIR" "$HOME"; do
		mkdir -p "$d/a" "$d/b" && echo x >"$d/a/f" &&
		mv "$d/a/f" "$d/b/f" && mv "$d/b" "$d/a/" &&
		ln "$d/a/b/f" "$d/hard" && cat "$d/hard" || echo "failed in $d"
	done'
	assert_status "$RC" 0
	printf 'x\nx\nx\n' >"$TEST_TMP/want"
	cmp -s "$OUT" "$TEST_TMP/want" || {
		diag_file "$OUT" "inside"
		fail "a rename or link into another directory failed"
	}
}

# t_writes [PARENT]: edits of every kind inside; the host copy unchanged.
t_writes() {
	if [ -n "${1:-}" ]; then
		[ -n "$VARTMP" ] || skip_case "no writable /var/tmp for a workspace outside /tmp"
		ws_new "$VARTMP"
	else
		ws_new
	fi
	run_confine -- sh -c "$EDITS"
	assert_status "$RC" 0
	printf 'changed\nthrough\nnew\ndeep\nprivate\ngone\n' >"$TEST_TMP/want"
	cmp -s "$OUT" "$TEST_TMP/want" || {
		diag_file "$OUT" "inside"
		fail "the edits are not what the command saw"
	}
	assert_ws_unchanged
	assert_eq "$(cat "$WS/README")" hello "README on the host"
	kept_session
	assert_eq "$(cat "$UPPER/new-file")" new "new-file in the upper directory"
	assert_eq "$(cat "$UPPER/newdir/sub/f")" deep "newdir/sub/f in the upper directory"
	assert_eq "$(cat "$UPPER/README")" "changed
through" "README in the upper directory"
	assert_not_exists "$WS/new-file"
}

t_reads() {
	ws_new
	# Control: git reads the history outside.
	assert_eq "$(git -C "$WS" log --format=%s)" initial "control: git log outside"
	run_confine -- sh -c 'cat README; git log --format=%s; ls -l bin/run.sh | cut -c1-10; readlink link'
	assert_status "$RC" 0
	printf 'hello\ninitial\n-rwxr-xr-x\nREADME\n' >"$TEST_TMP/want"
	cmp -s "$OUT" "$TEST_TMP/want" || {
		diag_file "$OUT" "inside"
		fail "the workspace inside does not show the host's files"
	}
	assert_ws_unchanged
}

t_no_writes() {
	ws_new
	run_confine -- sh -c 'cat README >/dev/null'
	assert_status "$RC" 0
	assert_file_empty "$ERR"
	assert_no_session
	assert_ws_unchanged
}

t_quiet() {
	ws_new
	run_confine -q -- sh -c 'echo x >new-file'
	assert_status "$RC" 0
	assert_file_empty "$ERR"
	[ -n "$(sessions)" ] || fail "-q dropped the session"
	assert_eq "$(cat "$SESSIONS"/*/upper/new-file)" x "new-file in the session"
	assert_ws_unchanged
}

t_session_env() {
	ws_new
	run_confine -- sh -c 'echo "$CONFINE_SESSION"; echo x >new-file'
	assert_status "$RC" 0
	kept_session
	assert_eq "$(cat "$OUT")" "$SESSION_ID" "CONFINE_SESSION"
	assert_ws_unchanged
}

t_git_top() {
	ws_new
	RUN_CWD=$WS/src run_confine -- sh -c 'pwd; echo top >../top-file && echo wrote'
	assert_status "$RC" 0
	kept_session
	printf '%s\nwrote\n' "$(inside "$WS/src")" >"$TEST_TMP/want"
	cmp -s "$OUT" "$TEST_TMP/want" || {
		diag_file "$OUT" "inside"
		fail "not in $(inside "$WS/src") with the git top level writable"
	}
	assert_eq "$(cat "$UPPER/top-file")" top "top-file in the session"
	assert_ws_unchanged
}

t_plain_dir() {
	[ -n "$VARTMP" ] || skip_case "no writable /var/tmp for a directory outside /tmp"
	WS=$(mktemp -d "$VARTMP/plain.XXXXXX")
	echo data >"$WS/file"
	WS_HASH=$(tree_hash "$WS")
	parent=$(tree_hash "$VARTMP")
	# By its host path: under landlock, ../ is the session's directory.
	run_confine -- sh -c "echo more >>file && echo wrote; touch '$VARTMP/outside'"
	assert_status "$RC" 1
	assert_eq "$(cat "$OUT")" wrote "the output"
	case $BACKEND in
	landlock) why="Permission denied" ;;
	*) why="Read-only file system" ;;
	esac
	assert_file_has_content "$ERR" "cannot touch '$VARTMP/outside': $why"
	kept_session
	assert_eq "$(cat "$UPPER/file")" "data
more" "file in the session"
	assert_ws_unchanged
	assert_eq "$(tree_hash "$VARTMP")" "$parent" "the workspace's parent"
}

t_dash_w() {
	ws_new
	ws=$WS
	RUN_CWD=$TEST_TMP run_confine -w "$ws" -- sh -c 'pwd; echo x >new-file'
	assert_status "$RC" 0
	kept_session
	assert_eq "$(cat "$OUT")" "$(inside "$ws")" "the working directory inside"
	assert_eq "$(cat "$UPPER/new-file")" x "new-file in the session"
	assert_ws_unchanged
}

t_dash_w_relative() {
	ws_new
	ws=$WS
	name=$(basename "$ws")
	# Control: the relative name resolves to the workspace outside.
	assert_eq "$(cd "$TEST_TMP" && cd "$name" && pwd -P)" "$ws" "control: cd $name"
	RUN_CWD=$TEST_TMP run_confine -w "$name" -- sh -c 'pwd; echo x >new-file'
	assert_status "$RC" 0
	kept_session
	assert_eq "$(cat "$OUT")" "$(inside "$ws")" "the working directory inside"
	assert_eq "$(cat "$UPPER/new-file")" x "new-file in the session"
	assert_ws_unchanged
}

t_odd_path() {
	# overlayfs splits its options on , and : and takes \ as an escape.
	parent=$TEST_TMP/'odd,dir:with\ and space'
	mkdir -p "$parent"
	ws_new "$parent"
	XDG_STATE_HOME=$TEST_TMP/'state,odd:with\ space'
	SESSIONS=$XDG_STATE_HOME/confine/sessions
	run_confine -- sh -c 'pwd; cat README; echo x >new-file'
	assert_status "$RC" 0
	kept_session
	assert_eq "$(cat "$OUT")" "$(inside "$WS")
hello" "the output"
	assert_eq "$(cat "$UPPER/new-file")" x "new-file in the session"
	assert_ws_unchanged
}

t_in_home() {
	[ -n "$VARTMP" ] || skip_case "no writable /var/tmp for a home directory outside /tmp"
	home=$VARTMP/home.$$
	mkdir -p "$home"
	echo mine >"$home/dotfile"
	ws_new "$home"
	homehash=$(tree_hash "$home")
	HOME=$home run_confine -- sh -c 'pwd; cat README; ls -A "$HOME"; echo x >new-file; echo y >"$HOME/scratch"'
	assert_status "$RC" 0
	kept_session
	# Under landlock HOME is the session's home, empty at the start.
	listing=$(basename "$WS")
	[ "$BACKEND" != landlock ] || listing=
	assert_eq "$(cat "$OUT")" "$(inside "$WS")
hello${listing:+
$listing}" "the output"
	assert_eq "$(cat "$UPPER/new-file")" x "new-file in the session"
	assert_not_exists "$home/scratch"
	assert_eq "$(tree_hash "$home")" "$homehash" "the home directory"
	assert_ws_unchanged
}

t_git_commit() {
	ws_new
	run_confine -- sh -c '
		echo more >>README
		git -c user.name=agent -c user.email=agent@confine.invalid \
		    commit -q -am "inside" && git log --format=%s | head -n 1'
	assert_status "$RC" 0
	assert_eq "$(cat "$OUT")" inside "the last commit inside"
	assert_ws_unchanged
	kept_session
	# (git status may refresh the index: after the hash, without locks.)
	assert_eq "$(git -C "$WS" log --format=%s)" initial "the host's history"
	assert_eq "$(git -C "$WS" --no-optional-locks status --porcelain)" "" \
	    "the host's status"
}

t_two_runs() {
	ws_new
	run_confine -- sh -c 'echo one >f'
	first=$(sessions)
	run_confine -- sh -c 'cat f 2>/dev/null || echo fresh'
	assert_status "$RC" 0
	assert_eq "$(cat "$OUT")" fresh "a second run sees the host tree"
	assert_eq "$(sessions)" "$first" "the sessions kept"
	assert_ws_unchanged
}

tcase "edits of every kind stay in the session; the host is unchanged" t_writes
tcase "the same for a workspace outside /tmp" t_writes vartmp
tcase "the workspace's files and git history are readable inside" t_reads
tcase "nothing written: no session kept, nothing on stderr" t_no_writes
tcase "-q keeps the session and says nothing" t_quiet
tcase "CONFINE_SESSION names the session" t_session_env
tcase "from a subdirectory, the git top level is the workspace" t_git_top
tcase "outside git, the current directory is the workspace" t_plain_dir
tcase "-w names the workspace" t_dash_w
tcase "each run starts from the host tree" t_two_runs
tcase "a workspace inside the home directory" t_in_home
tcase "git commit inside: the host repository is unchanged" t_git_commit
tcase "-w takes a relative path" t_dash_w_relative
tcase "paths with , : \\ and spaces in the workspace and state directory" t_odd_path
tcase "the host copy is byte-identical after edits (again, outside /tmp)" t_writes vartmp
tcase "renames and links into another directory work (workspace, tmp, home)" t_move
tap_done
