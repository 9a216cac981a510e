#!/bin/sh
# SPDX-License-Identifier: ISC
# export-security.sh - the export treats what the command wrote as hostile
# (DESIGN.md section 3; research/namespace-tools-and-escapes.md 4.6): links
# stay links, special files and git internals are never exported, paths
# cannot leave the workspace, agent-written names never reach a terminal
# raw, files that run code on the host are flagged with why, and the host
# repository's own hooks and filters never run during the export.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
require_userns
plan 14

VARTMP=
vartmp_cleanup() {
	[ -z "$VARTMP" ] || { chmod -R u+rwX "$VARTMP"; rm -rf "$VARTMP"; }
}
LIB_CLEANUP_HOOK=vartmp_cleanup
if [ -d /var/tmp ] && [ -w /var/tmp ]; then
	VARTMP=$(mktemp -d /var/tmp/confine-test.XXXXXX)
fi

GIT_HOME=$TEST_TMP/git-home
mkdir -p "$GIT_HOME"
# The host's git, with no system or user configuration.
git_clean() {
	GIT_CONFIG_NOSYSTEM=1 HOME=$GIT_HOME git "$@"
}

ESC=$(printf '\033')
BEL=$(printf '\007')
RLO=$(printf '\342\200\256')	# U+202E RIGHT-TO-LEFT OVERRIDE

# The session that the message on stderr names: SESSION_ID, PATCH, REPORT.
kept_session() {
	assert_file_has_content "$ERR" \
	    '^confine: session [0-9]{8}-[0-9]{6}\.[0-9]{3}-[0-9a-f]{8}: [0-9]+ files? changed$'
	SESSION_ID=$(sed -n 's/^confine: session \([^:]*\): [0-9]* files\{0,1\} changed$/\1/p' "$ERR")
	PATCH=$SESSIONS/$SESSION_ID/changes.patch
	REPORT=$SESSIONS/$SESSION_ID/report
	assert_exists "$PATCH"
	assert_exists "$REPORT"
}

# The paths the patch touches, as git apply reads them, one a line.
patch_paths() {
	git_clean apply --numstat -z "$1" | tr '\0' '\n' | awk -F '\t' '
		r > 0 { print; r--; next }
		NF == 3 && $3 != "" { print $3; next }
		NF == 3 { r = 2 }'
}

# assert_has_line FILE LINE: FILE has exactly LINE as one of its lines.
assert_has_line() {
	grep -a -q -F -x -e "$2" "$1" || {
		diag_file "$1" "$1"
		fail "$1 has no line '$2'"
	}
}

# assert_no_bytes FILE WHAT BYTES: FILE does not contain BYTES.
assert_no_bytes() {
	if grep -a -q -F -e "$3" "$1"; then
		diag_file "$1" "$1"
		fail "$1 contains $2 raw"
	fi
}

# apply_copy: the session's patch applied to a copy of WS, in COPY (alone
# in $TEST_TMP/apply-root, so that a path leaving it would show).
apply_copy() {
	rm -rf "$TEST_TMP/apply-root"
	mkdir "$TEST_TMP/apply-root"
	COPY=$TEST_TMP/apply-root/copy
	cp -a "$WS" "$COPY"
	st git_clean -C "$COPY" apply --whitespace=nowarn --binary "$PATCH" \
	    2>"$TEST_TMP/apply.err"
	[ "$ST" -eq 0 ] || {
		diag_file "$TEST_TMP/apply.err" "git apply"
		fail "git apply --binary does not take the session's patch"
	}
	assert_eq "$(ls -A "$TEST_TMP/apply-root")" copy "what git apply made next to the copy"
}

# ------------------------------------------------------------------ cases

t_links_out() {
	ws_new
	home=$TEST_TMP/home
	mkdir -p "$home/.ssh"
	echo 'SECRET-KEY-MARKER' >"$home/.ssh/id_rsa"
	run_confine -- sh -c '
		ln -s ~/.ssh/id_rsa x
		ln -s /etc/passwd y
		ln -s "$1" k
		rm README && ln -s /etc/passwd README' sh "$home/.ssh/id_rsa"
	assert_status "$RC" 0
	assert_ws_unchanged
	kept_session
	for p in x y k; do
		assert_file_has_content "$PATCH" "^diff --git a/$p b/$p\$"
	done
	[ "$(grep -a -c '^new file mode 120000$' "$PATCH")" -eq 4 ] || {
		diag_file "$PATCH" "the patch"
		fail "not four new links (mode 120000) in the patch"
	}
	assert_file_has_content "$PATCH" '^\+/etc/passwd$'
	assert_file_has_content "$PATCH" "^\\+$home/.ssh/id_rsa\$"
	assert_file_has_content "$PATCH" '^\+.*/\.ssh/id_rsa$'
	assert_not_file_has_content "$PATCH" 'SECRET-KEY-MARKER'
	assert_not_file_has_content "$PATCH" '^\+root:'
	assert_file_has_content "$PATCH" '^deleted file mode 100644$'
	for p in x y k README; do
		assert_has_line "$REPORT" "  $p: a symbolic link: applying creates it on the host"
	done
	apply_copy
	assert_eq "$(readlink "$COPY/y")" /etc/passwd "y in the patched copy"
	assert_eq "$(readlink "$COPY/k")" "$home/.ssh/id_rsa" "k in the patched copy"
	assert_eq "$(readlink "$COPY/README")" /etc/passwd "README in the patched copy"
}

t_write_through() {
	[ -n "$VARTMP" ] || skip_case "no writable /var/tmp for a directory outside the workspace"
	ws_new
	out=$VARTMP/outside
	mkdir -p "$out"
	echo original >"$out/target"
	outhash=$(tree_hash "$VARTMP")
	passwd=$(sha256sum /etc/passwd)
	run_confine -- sh -c '
		ln -s "$1/target" t && { echo pwned >>t && echo WROTE-t; }
		ln -s "$1/new" n && { echo pwned >n && echo WROTE-n; }
		ln -s "$1" d && { echo pwned >d/other && echo WROTE-d; }
		ln -s /etc/passwd p && { echo pwned >>p && echo WROTE-p; }
		cat t' sh "$out"
	assert_status "$RC" 0
	assert_not_file_has_content "$OUT" WROTE
	assert_file_has_content "$OUT" '^original$'
	assert_file_has_content "$ERR" 'Read-only file system|Permission denied'
	assert_eq "$(tree_hash "$VARTMP")" "$outhash" "the directory outside"
	assert_eq "$(sha256sum /etc/passwd)" "$passwd" "/etc/passwd"
	assert_ws_unchanged
	kept_session
	assert_not_file_has_content "$PATCH" pwned
	assert_eq "$(patch_paths "$PATCH" | sort | tr '\n' ' ')" "d n p t " "the paths in the patch"
}

t_special_files() {
	ws_new
	run_confine -- sh -c '
		mkfifo fifo || echo NO-FIFO
		python3 -c "import socket; socket.socket(socket.AF_UNIX).bind(\"sock\")" || echo NO-SOCKET
		mknod dev c 1 3 2>/dev/null && echo MKNOD-OK
		mknod whiteout c 0 0 2>/dev/null && echo MKNOD-WHITEOUT-OK
		mkdir -p sub && mkfifo sub/fifo2
		echo kept >keep'
	assert_status "$RC" 0
	assert_not_file_has_content "$OUT" 'NO-FIFO'
	# landlock refuses socket(AF_UNIX) (before Landlock ABI 9).
	case $BACKEND in
	landlock)	assert_file_has_content "$OUT" 'NO-SOCKET' ;;
	*)		assert_not_file_has_content "$OUT" 'NO-SOCKET' ;;
	esac
	assert_ws_unchanged
	kept_session
	assert_eq "$(patch_paths "$PATCH" | tr '\n' ' ')" "keep " "the paths in the patch"
	sed -n '/^skipped:$/,$p' "$REPORT" >"$TEST_TMP/skipped"
	assert_has_line "$TEST_TMP/skipped" "  fifo (a fifo)"
	assert_has_line "$TEST_TMP/skipped" "  sub/fifo2 (a fifo)"
	[ "$BACKEND" = landlock ] ||
	    assert_has_line "$TEST_TMP/skipped" "  sock (a socket)"
	if grep -q MKNOD-OK "$OUT"; then
		assert_has_line "$TEST_TMP/skipped" "  dev (a device node)"
		fail "the command could make a device node"
	fi
	assert_not_file_has_content "$OUT" MKNOD-WHITEOUT-OK
}

t_git_internals() {
	ws_new
	run_confine -- sh -c '
		set -e
		mkdir -p .git/hooks
		printf "#!/bin/sh\ntouch /tmp/pwned\n" >.git/hooks/post-checkout
		chmod +x .git/hooks/post-checkout
		git config core.fsmonitor "touch /tmp/pwned"
		git config core.hooksPath .husky
		git init -q sub
		printf "#!/bin/sh\ntouch /tmp/pwned\n" >sub/.git/hooks/pre-commit
		git -C sub config core.fsmonitor "touch /tmp/pwned"
		echo inner >sub/file
		mkdir -p sub3 deep/er
		echo "gitdir: /tmp/evil" >sub3/.git
		mkdir -p deep/er/.git/hooks && echo x >deep/er/.git/hooks/post-merge
		echo changed >>README'
	assert_status "$RC" 0
	# The host's .git is part of the hash.
	assert_ws_unchanged
	kept_session
	patch_paths "$PATCH" >"$TEST_TMP/paths"
	if grep -a -q -i -E '(^|/)\.git(/|$)' "$TEST_TMP/paths"; then
		diag_file "$TEST_TMP/paths" "the paths in the patch"
		fail "a .git path in the patch"
	fi
	assert_not_file_has_content "$PATCH" 'fsmonitor|pwned|gitdir:'
	assert_eq "$(sort "$TEST_TMP/paths" | tr '\n' ' ')" "README sub/file " "the paths in the patch"
	sed -n '/^skipped:$/,$p' "$REPORT" >"$TEST_TMP/skipped"
	for p in .git sub/.git sub3/.git deep/er/.git; do
		assert_has_line "$TEST_TMP/skipped" "  $p (git internals are never exported)"
	done
}

# Git takes any case of ".git" for its own (git apply refuses such paths):
# the export leaves them out as it does .git, and still exports the rest.
t_git_case() {
	ws_new
	run_confine -- sh -c '
		mkdir -p .GIT/hooks sub/.Git
		echo "[core] fsmonitor = touch /tmp/pwned" >.GIT/config
		echo x >.GIT/hooks/post-checkout
		echo y >sub/.Git/config
		echo changed >>README'
	assert_status "$RC" 0
	assert_ws_unchanged
	assert_not_file_has_content "$ERR" 'export failed'
	kept_session
	assert_eq "$(patch_paths "$PATCH" | tr '\n' ' ')" "README " "the paths in the patch"
	apply_copy
}

# A bare repository in the tree (research 4.6 W7): git run in sub/ takes
# sub/config (core.fsmonitor) as its own.  It is exported, as the files it
# is, but the review must see it: flagged.
t_bare_repo() {
	ws_new
	run_confine -- sh -c '
		mkdir -p sub/refs/heads sub/objects
		echo "ref: refs/heads/main" >sub/HEAD
		printf "[core]\n\tbare = true\n\tfsmonitor = touch /tmp/pwned\n" >sub/config'
	assert_status "$RC" 0
	assert_ws_unchanged
	kept_session
	assert_eq "$(patch_paths "$PATCH" | sort | tr '\n' ' ')" "sub/HEAD sub/config " "the paths in the patch"
	sed -n '/^flagged/,/^ignored/p' "$REPORT" >"$TEST_TMP/flagged"
	assert_file_has_content "$TEST_TMP/flagged" '^  sub/config: .'
	assert_file_has_content "$TEST_TMP/flagged" '^  sub/HEAD: .'
	assert_file_has_content "$ERR" '^  flagged: sub/config: .'
}

# Every kind of path that src/flag.c flags, with its reason, on stderr
# and in the report.
FLAGGED='.gitattributes	git filters and diff drivers run commands
.envrc	direnv runs it when entering the directory
sub/dir/.envrc	direnv runs it when entering the directory
.vscode/settings.json	editor settings and tasks can run commands
.github/workflows/x.yml	CI workflows and actions run with the repository'"'"'s secrets
Makefile	a build script
package.json	a package manifest: scripts run on install
build.rs	runs at build time
.confine.ini	a confine profile for later sessions
.claude/settings.json	agent configuration: hooks and commands
.mcp.json	MCP servers started by agents
.husky/pre-commit	git hooks run by tools
x.pth	Python runs .pth files at start-up
.venv/lib/python3/site-packages/evil.pth	Python runs .pth files at start-up
.gitmodules	submodule URLs are fetched by git
CLAUDE.md	instructions read by an agent
.cargo/config.toml	cargo configuration: wrappers and runners
rules.mk	a build script
tool.sh	made executable
bin/run.sh	a symbolic link: applying creates it on the host
src/main.c	made executable
newlink	a symbolic link: applying creates it on the host'

t_flagged() {
	ws_new
	run_confine -- sh -c '
		set -e
		printf "%s\n" "$1" | cut -f1 | while read -r p; do
			mkdir -p "$(dirname "$p")"
			echo "echo pwned" >"$p"
		done
		chmod +x tool.sh src/main.c .husky/pre-commit
		rm bin/run.sh && ln -s ../README bin/run.sh
		rm newlink && ln -s README newlink
		echo plain >plain.txt' sh "$FLAGGED"
	assert_status "$RC" 0
	assert_ws_unchanged
	kept_session
	printf '%s\n' "$FLAGGED" | while IFS='	' read -r p why; do
		assert_has_line "$ERR" "  flagged: $p: $why"
		assert_has_line "$REPORT" "  $p: $why"
	done
	assert_not_file_has_content "$ERR" 'flagged: plain.txt'
	assert_not_file_has_content "$REPORT" '^  plain.txt:'
}

t_terminal_names() {
	ws_new
	run_confine -- python3 -c '
import os
n1 = "a\x1b]52;c;aGk=\x07"
os.umask(0o022)
with os.fdopen(os.open(n1, os.O_WRONLY | os.O_CREAT, 0o755), "w") as f:
    f.write("x\x1b]0;title\x07\n")
open("evil\u202etxt.sh", "w").write("bidi \u202e here\n")
os.symlink("\x1b[31mred\u202e", "l\x1b[2J")'
	assert_status "$RC" 0
	assert_ws_unchanged
	kept_session
	# The agent's bytes are in the patch (contents and link targets)...
	assert_file_has_content "$PATCH" "$ESC]0;title$BEL"
	# ...and on stderr, in the report and from "confine show" only escaped.
	assert_no_bytes "$ERR" ESC "$ESC"
	assert_no_bytes "$ERR" U+202E "$RLO"
	assert_file_has_content "$ERR" 'a\\x1b]52;c;aGk=\\x07'
	assert_file_has_content "$ERR" 'evil\\u\{202e\}txt\.sh'
	assert_file_has_content "$ERR" 'flagged: a\\x1b]52;c;aGk=\\x07: made executable'
	assert_no_bytes "$REPORT" ESC "$ESC"
	assert_no_bytes "$REPORT" U+202E "$RLO"
	st "$CONFINE" show "$SESSION_ID" >"$TEST_TMP/show" 2>"$TEST_TMP/show.err"
	assert_status "$ST" 0
	assert_file_has_content "$TEST_TMP/show" 'evil\\u\{202e\}txt\.sh'
	for f in "$TEST_TMP/show" "$TEST_TMP/show.err"; do
		assert_no_bytes "$f" ESC "$ESC"
		assert_no_bytes "$f" U+202E "$RLO"
	done
	# Piped, "confine diff" gives the patch's exact bytes (for git apply)...
	st "$CONFINE" diff "$SESSION_ID" >"$TEST_TMP/diff" 2>"$TEST_TMP/diff.err"
	assert_status "$ST" 0
	cmp -s "$TEST_TMP/diff" "$PATCH" || fail "'confine diff | ...' is not the patch, byte for byte"
	# ...and on a terminal, escaped (a pager may add its own sequences,
	# but no OSC, no clearing, no colour from the agent, no bidi override).
	command -v script >/dev/null || fail "script(1) (util-linux) is needed for a terminal"
	st env TERM=xterm timeout "$CONFINE_TIMEOUT" script -qec "'$CONFINE' diff $SESSION_ID" /dev/null \
	    </dev/null >"$TEST_TMP/tty" 2>&1
	assert_status "$ST" 0
	assert_file_has_content "$TEST_TMP/tty" 'x\\x1b]0;title\\x07'
	assert_file_has_content "$TEST_TMP/tty" 'bidi \\u\{202e\} here'
	assert_file_has_content "$TEST_TMP/tty" '\\x1b\[31mred\\u\{202e\}'
	assert_no_bytes "$TEST_TMP/tty" "ESC ]" "$ESC]"
	assert_no_bytes "$TEST_TMP/tty" "ESC [31m" "$ESC[31m"
	assert_no_bytes "$TEST_TMP/tty" "ESC [2J" "$ESC[2J"
	assert_no_bytes "$TEST_TMP/tty" U+202E "$RLO"
}

# A newline in a name must not start a line of its own in the summary or
# the report (it could forge "confine: ..." or "flagged: none").
t_newline_names() {
	ws_new
	run_confine -- python3 -c '
open("nl\nconfine: forged line", "w").write("y\n")
open("x\n  flagged: none", "w").write("y\n")'
	assert_status "$RC" 0
	assert_ws_unchanged
	kept_session
	st "$CONFINE" show "$SESSION_ID" >"$TEST_TMP/show" 2>&1
	for f in "$ERR" "$REPORT" "$TEST_TMP/show"; do
		assert_not_file_has_content "$f" '^confine: forged'
		assert_not_file_has_content "$f" '^  flagged: none'
	done
}

t_dotdot() {
	ws_new
	run_confine -- sh -c '
		set -e
		echo a >..x; echo b >...; echo c >x..; echo d >.x.
		mkdir ..y && echo e >..y/z
		mkdir -p deep/er && echo f >deep/er/...
		ln -s .. up; ln -s ../.. up2; ln -s ../../../../../etc/passwd up3
		ln -s .. deep/er/up; ln -s ..x lx'
	assert_status "$RC" 0
	assert_ws_unchanged
	kept_session
	patch_paths "$PATCH" >"$TEST_TMP/paths"
	[ "$(wc -l <"$TEST_TMP/paths")" -eq 11 ] || {
		diag_file "$TEST_TMP/paths" "the paths in the patch"
		fail "not 11 paths in the patch"
	}
	if grep -a -E '^/|(^|/)\.\.(/|$)' "$TEST_TMP/paths"; then
		diag_file "$TEST_TMP/paths" "the paths in the patch"
		fail "a path in the patch leaves the workspace"
	fi
	if grep -a -E '^(diff --git|rename (from|to)|--- |\+\+\+ )' "$PATCH" |
	    grep -a -E '(^| |"|/)\.\.(/|$| |")'; then
		fail "a header of the patch names a path that leaves the workspace"
	fi
	apply_copy
	assert_eq "$(cat "$COPY/..x")" a "..x in the patched copy"
	assert_eq "$(cat "$COPY/..y/z")" e "..y/z in the patched copy"
	assert_eq "$(cat "$COPY/deep/er/...")" f "deep/er/... in the patched copy"
	assert_eq "$(readlink "$COPY/up")" .. "the link up"
	assert_eq "$(readlink "$COPY/deep/er/up")" .. "the link deep/er/up"
	assert_eq "$(readlink "$COPY/up3")" ../../../../../etc/passwd "the link up3"
}

# A directory replaced by a link out of the workspace: the patch deletes
# what was in it and makes the link, and git apply takes it whole (a patch
# that "git apply --check" accepts but that fails half-way would leave the
# host half-applied).
t_dir_to_link() {
	ws_new
	run_confine -- sh -c 'rm -r src && ln -s /etc src; echo changed >>README'
	assert_status "$RC" 0
	assert_ws_unchanged
	kept_session
	assert_eq "$(patch_paths "$PATCH" | sort | tr '\n' ' ')" "README src src/main.c " "the paths in the patch"
	apply_copy
	assert_eq "$(readlink "$COPY/src")" /etc "src in the patched copy"
}

# upper_wrote NAME: a session's upper layer holds NAME with the command's
# "agent" line in it (on a backend that copies the workspace, upper/
# holds every file from the start, so existing is not enough).
upper_wrote() {
	for _u in "$SESSIONS"/*/upper; do
		grep -q '^agent$' "$_u/$1" 2>/dev/null && return 0
	done
	return 1
}

t_host_changed() {
	ws_new
	(
		cd "$WS" &&
		exec timeout -k 5 "$CONFINE_TIMEOUT" "$CONFINE" -- sh -c '
			echo agent >>README; echo agent >>src/main.c
			sleep 2' </dev/null >"$OUT" 2>"$ERR"
	) &
	pid=$!
	track_pid "$pid"
	wait_for 15 upper_wrote README || fail "the command did not write README"
	touch "$WS/README"
	st wait "$pid"
	assert_status "$ST" 0
	kept_session
	assert_has_line "$ERR" "  flagged: README: changed on the host during the session"
	assert_has_line "$REPORT" "  README: changed on the host during the session; the patch would undo that change"
	assert_not_file_has_content "$ERR" 'main\.c: changed on the host'
	assert_not_file_has_content "$REPORT" 'main\.c: changed on the host'
}

# A file the host wrote just before the launch, which the command changes
# too, is not a change of the host during the session (t_host_changed is
# the positive control): written, then confine started at once, again and
# again, its ctime queried first so that a filesystem with multigrain
# timestamps gives the write a fine one.
t_written_before() {
	ws_new
	i=0
	while [ "$i" -lt 40 ]; do
		i=$((i + 1))
		rc=0
		(
			cd "$WS" && stat README >/dev/null &&
			echo "host $i" >README &&
			exec timeout -k 5 "$CONFINE_TIMEOUT" "$CONFINE" -- \
			    sh -c 'echo agent >>README'
		) </dev/null >"$OUT" 2>"$ERR" || rc=$?
		assert_status "$rc" 0
		assert_file_has_content "$ERR" '^confine: session .*: 1 file changed$'
		! grep -q 'changed on the host' "$ERR" || {
			diag_file "$ERR" "run $i"
			fail "run $i: README written before the launch is flagged"
		}
	done
}

t_host_hooks() {
	ws_new
	m=/tmp/PWNED-$$-$(unique_num)
	for s in fsmonitor clean smudge process textconv external merge pager \
	    post-checkout pre-commit post-index-change reference-transaction \
	    pre-auto-gc; do
		host_scratch "$m.$s" >/dev/null
	done
	(
		cd "$WS"
		printf '* filter=x diff=x merge=x\n' >.gitattributes
		git_fixed add .gitattributes
		git_fixed commit -q -m attributes
		git_fixed config core.fsmonitor "touch $m.fsmonitor; false"
		git_fixed config filter.x.clean "touch $m.clean; cat"
		git_fixed config filter.x.smudge "touch $m.smudge; cat"
		git_fixed config filter.x.process "touch $m.process"
		git_fixed config filter.x.required true
		git_fixed config diff.x.textconv "touch $m.textconv; cat"
		git_fixed config diff.external "touch $m.external"
		git_fixed config merge.x.driver "touch $m.merge"
		git_fixed config core.pager "touch $m.pager; cat"
		git_fixed config core.hooksPath "$WS/.git/hooks"
		for h in post-checkout pre-commit post-index-change \
		    reference-transaction pre-auto-gc; do
			printf '#!/bin/sh\ntouch %s.%s\n' "$m" "$h" >".git/hooks/$h"
			chmod +x ".git/hooks/$h"
		done
	) || fail "cannot set up the host repository"
	WS_HASH=$(tree_hash "$WS")
	run_confine -- sh -c '
		echo changed >>README
		printf "bin\0ary" >src/main.c
		echo new >new.txt
		rm bin/run.sh
		ln -s README l
		mv private.txt moved.txt'
	assert_status "$RC" 0
	assert_ws_unchanged
	kept_session
	st "$CONFINE" show "$SESSION_ID" >/dev/null 2>&1
	st "$CONFINE" diff "$SESSION_ID" >/dev/null 2>&1
	for f in /tmp/PWNED-$$-*; do
		[ -e "$f" ] || continue
		fail "a host hook or filter ran: $f"
	done
	assert_ws_unchanged
	# Control: the host's own git does run them.
	(cd "$WS" && git_clean status) >/dev/null 2>&1 || true
	assert_exists "$m.fsmonitor"
}

tcase "planted links out of the workspace are exported as links (mode 120000, the target as text), never the target's content" t_links_out
tcase "writing through a planted link to a path outside the workspace fails inside" t_write_through
tcase "a fifo and a socket are skipped and listed; no device node can be made" t_special_files
tcase "nothing under .git or a nested sub/.git is exported; the host .git is byte-identical" t_git_internals
tcase "a .GIT or sub/.Git directory is not exported and does not break the export" t_git_case
tcase "a nested bare repository (sub/HEAD, sub/config) is flagged" t_bare_repo
tcase "every kind of flagged path is on stderr and in the report with its reason" t_flagged
tcase "escape sequences and bidi overrides in names never reach stderr, the report or a terminal raw" t_terminal_names
tcase "a newline in a name does not forge a line of the summary or the report" t_newline_names
tcase "no path of the patch leaves the workspace (..x, links to ..)" t_dotdot
tcase "a directory replaced by a link out of the workspace: its files are deleted, the patch applies" t_dir_to_link
tcase "a host file changed during the session is flagged" t_host_changed
tcase "a host file written just before the launch is not flagged, 40 times" t_written_before
tcase "the host repository's hooks, filters and fsmonitor never run for the export" t_host_hooks
tap_done
