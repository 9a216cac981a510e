#!/bin/sh
# SPDX-License-Identifier: ISC
# apply-safety.sh - "confine apply" runs nothing and destroys nothing the
# review did not show: no hook (in the tree through core.hooksPath, the
# repository's own, the user's global ones), no filter and no fsmonitor
# runs, with or without --commits, where git am of the same commits runs
# them all; a git operation in progress, another apply holding the
# workspace's lock, a host file changed since the session, or a file in
# the way that the patch does not name: refused, the workspace untouched.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
. "$TESTS_SRCDIR/apply-lib.sh"
require_userns
plan 9

HOOKS='applypatch-msg pre-applypatch post-applypatch pre-commit
commit-msg post-commit post-checkout post-merge post-rewrite
reference-transaction post-index-change'

# hooks DIR PREFIX: every hook in DIR, each leaving PREFIX-NAME in marks/.
hooks() {
	mkdir -p "$1"
	for h in $HOOKS; do
		printf '#!/bin/sh\ntouch "%s/%s-%s"\n' "$TEST_TMP/marks" "$2" "$h" \
		    >"$1/$h"
		chmod 0755 "$1/$h"
	done
}

setup() {
	shared_state
	mkdir -p "$TEST_TMP/marks" "$TEST_TMP/home"
	ws_new
	printf '*.csv\n' >"$WS/.gitignore"
	git_fixed -C "$WS" add .gitignore
	git_fixed -C "$WS" commit -q -m ignore
	# A: commits adding husky's hooks (made here, run by the agent).
	hooks "$TEST_TMP/husky" husky
	cp -a "$TEST_TMP/husky" "$WS/.t/husky"
	cat >"$WS/.t/agent.sh" <<'AGENT'
set -e
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=agent GIT_AUTHOR_EMAIL=agent@example.invalid
export GIT_COMMITTER_NAME=agent GIT_COMMITTER_EMAIL=agent@example.invalid
export GIT_AUTHOR_DATE=2001-01-01T00:00:00Z GIT_COMMITTER_DATE=2001-01-01T00:00:00Z
mkdir -p .husky
cp -r .t/husky .husky/_
echo '* filter=x' >.gitattributes
git add .husky .gitattributes
git commit -q -m hooks
echo more >>README
git commit -q -a -m readme
echo rest >>src/main.c
AGENT
	run_confine -- sh .t/agent.sh
	assert_status "$RC" 0
	SID=$(session_of "$ERR")
	git clone -q "$WS" "$TEST_TMP/scratch"
	echo .t >>"$TEST_TMP/scratch/.git/info/exclude"
	cp -a "$WS/.t" "$TEST_TMP/scratch/.t"
	(cd "$TEST_TMP/scratch" && sh .t/agent.sh) || fail "the agent fails outside"
	make_commits "$TEST_TMP/scratch" "$SESSIONS/$SID" \
	    "$(git -C "$WS" rev-parse HEAD)"
	git -C "$TEST_TMP/scratch" format-patch -q -o "$TEST_TMP/mbox" \
	    "$(git -C "$WS" rev-parse HEAD)"
	# B: an ignored directory replaced by a file, a file changed.
	mkdir "$WS/data"
	echo 1 >"$WS/data/1.csv"
	run_confine -- sh -c 'rm -rf data && echo x >data && echo changed >README'
	assert_status "$RC" 0
	SIDB=$(session_of "$ERR")
	printf '%s %s %s\n' "$WS" "$SID" "$SIDB" >"$TEST_TMP/setup"
	assert_file_has_content "$SESSIONS/$SIDB/changes.patch" '^deleted file mode'
}

load() {
	shared_state
	read -r WS SID SIDB <"$TEST_TMP/setup"
	rm -rf "$TEST_TMP/marks"
	mkdir "$TEST_TMP/marks"
}

assert_no_marks() {
	_m=$(ls -A "$TEST_TMP/marks")
	[ -z "$_m" ] || fail "ran during confine apply: $_m"
}

# configure DIR KIND: the host repository set to run its code (husky: in
# the tree; own: .git/hooks; global: the user's ~/.gitconfig), with a
# filter and an fsmonitor for husky.
configure() {
	case $2 in
	husky)
		git -C "$1" config core.hooksPath .husky/_
		git -C "$1" config filter.x.clean "touch '$TEST_TMP/marks/clean'; cat"
		git -C "$1" config filter.x.smudge "touch '$TEST_TMP/marks/smudge'; cat"
		printf '#!/bin/sh\ntouch "%s/fsmonitor"\nexit 1\n' "$TEST_TMP/marks" \
		    >"$TEST_TMP/fsmonitor"
		chmod 0755 "$TEST_TMP/fsmonitor"
		git -C "$1" config core.fsmonitor "$TEST_TMP/fsmonitor"
		;;
	own) hooks "$1/.git/hooks" own ;;
	global)
		hooks "$TEST_TMP/ghooks" global
		printf '[core]\n\thooksPath = %s\n' "$TEST_TMP/ghooks" \
		    >"$TEST_TMP/home/.gitconfig"
		;;
	esac
	git -C "$1" config user.name host
	git -C "$1" config user.email host@example.invalid
}

# runs_nothing KIND MARK...: apply --commits and plain apply to copies so
# configured run nothing; git am and checkout in a third run MARK...
runs_nothing() {
	load
	kind=$1
	shift
	ws_copy "$WS"
	configure "$CWS" "$kind"
	session_for "$SID" "$CWS"
	HOME=$TEST_TMP/home RUN_CWD=$CWS run_confine apply --yes --commits "$CSID"
	assert_status "$RC" 0
	assert_eq "$(git -C "$CWS" rev-list --count HEAD~2..HEAD)" 2 "the commits"
	assert_no_marks
	ws_copy "$WS"
	configure "$CWS" "$kind"
	session_for "$SID" "$CWS"
	HOME=$TEST_TMP/home RUN_CWD=$CWS run_confine apply --yes "$CSID"
	assert_status "$RC" 0
	assert_exists "$CWS/.husky/_/post-commit"
	assert_no_marks
	# Control: git does run them.
	ws_copy "$WS"
	configure "$CWS" "$kind"
	(
		cd "$CWS" && export HOME="$TEST_TMP/home" GIT_CONFIG_NOSYSTEM=1
		git am -q "$TEST_TMP"/mbox/*.patch && git status >/dev/null &&
		    git checkout -q -b control
	) >/dev/null 2>&1 || :
	for m in "$@"; do
		assert_exists "$TEST_TMP/marks/$m"
	done
}

t_husky() {
	runs_nothing husky husky-post-applypatch husky-post-checkout fsmonitor smudge
}

t_own() {
	runs_nothing own own-applypatch-msg own-pre-applypatch \
	    own-post-applypatch own-post-checkout own-reference-transaction
}

t_global() {
	runs_nothing global global-post-applypatch global-post-checkout
}

# refused STATUS-LINE: apply of session B to CWS is refused with that
# first line, CWS untouched.
refused() {
	session_for "$SIDB" "$CWS"
	_h=$(tree_hash "$CWS")
	RUN_CWD=$CWS run_confine apply --yes "$CSID"
	assert_status "$RC" 125
	assert_file_has_content "$ERR" "^confine: $1\$"
	assert_ws_unchanged "$CWS" "$_h"
	assert_not_exists "$SESSIONS/$CSID/applied"
}

t_in_progress() {
	load
	for op in am rebase-apply rebase-merge interactive merge cherry-pick \
	    revert bisect; do
		ws_copy "$WS"
		g=$CWS/.git
		head=$(git -C "$CWS" rev-parse HEAD)
		what=rebase
		case $op in
		am) mkdir "$g/rebase-apply"; : >"$g/rebase-apply/applying"; what="git am" ;;
		rebase-apply) mkdir "$g/rebase-apply"; : >"$g/rebase-apply/rebasing" ;;
		rebase-merge) mkdir "$g/rebase-merge" ;;
		interactive) mkdir "$g/rebase-merge"; : >"$g/rebase-merge/interactive" ;;
		merge) echo "$head" >"$g/MERGE_HEAD"; what=merge ;;
		cherry-pick) echo "$head" >"$g/CHERRY_PICK_HEAD"; what=cherry-pick ;;
		revert) echo "$head" >"$g/REVERT_HEAD"; what=revert ;;
		bisect) git -C "$CWS" bisect start >/dev/null 2>&1; what=bisect ;;
		esac
		[ "$what" = "git am" ] || what="git $what"
		refused "a $what is in progress in $CWS; nothing was changed"
		assert_file_has_content "$ERR" '^hint: finish or abort it first$'
	done
	# Control: the same session applies to a copy with none.
	ws_copy "$WS"
	session_for "$SIDB" "$CWS"
	RUN_CWD=$CWS run_confine apply --yes "$CSID"
	assert_status "$RC" 0
}

t_lock() {
	load
	command -v flock >/dev/null || skip_case "flock (util-linux) is not installed"
	ws_copy "$WS"
	lock=$XDG_STATE_HOME/confine/locks/$(printf %s "$CWS" | sha256sum | cut -d' ' -f1).lock
	mkdir -p "${lock%/*}"
	(exec 9>"$lock" && flock 9 && exec sleep 60) &
	holder=$!
	track_pid "$holder"
	wait_for 30 sh -c '! flock -n "$1" true' sh "$lock" ||
	    fail "the test's lock is not held"
	refused "another confine apply is running on $CWS"
	kill "$holder" 2>/dev/null || :
	wait_for 30 flock -n "$lock" true || fail "the lock is still held"
	# Control: once free, the apply goes through.
	RUN_CWD=$CWS run_confine apply --yes "$CSID"
	assert_status "$RC" 0
}

t_host_changed() {
	load
	ws_copy "$WS"
	echo host >>"$CWS/README"
	refused "'README' changed on the host since the session; nothing was changed"
	assert_eq "$(tail -n 1 "$CWS/README")" host "README on the host"
}

# A session directory is agent data to apply: a patch naming git's own
# files (written there by hand: the export never does) is refused whole.
t_git_path() {
	load
	ws_copy "$WS"
	session_for "$SIDB" "$CWS"
	printf '%s\n' 'diff --git a/.git/hooks/post-commit b/.git/hooks/post-commit' \
	    'new file mode 100755' 'index 0000000..de15ff4' '--- /dev/null' \
	    '+++ b/.git/hooks/post-commit' '@@ -0,0 +1 @@' '+touch pwned' \
	    >>"$SESSIONS/$CSID/changes.patch"
	_h=$(tree_hash "$CWS")
	RUN_CWD=$CWS run_confine apply --yes "$CSID"
	assert_status "$RC" 125
	assert_file_has_content "$ERR" "^confine: the session's patches name '.git/hooks/post-commit', a path confine never writes; nothing was changed\$"
	assert_ws_unchanged "$CWS" "$_h"
	assert_not_exists "$CWS/.git/hooks/post-commit"
}

t_in_the_way() {
	load
	ws_copy "$WS"
	echo new >"$CWS/data/new.csv"
	refused "'data/new.csv' is in the way of the change and not in the reviewed patch \\(made on the host since the session\\?\\); nothing was changed"
	assert_eq "$(cat "$CWS/data/new.csv")" new "the ignored host file"
	# Control: without it, the directory the review showed goes.
	ws_copy "$WS"
	session_for "$SIDB" "$CWS"
	RUN_CWD=$CWS run_confine apply --yes "$CSID"
	assert_status "$RC" 0
	assert_eq "$(cat "$CWS/data")" x "data, a file now"
	assert_eq "$(cat "$CWS/README")" changed "README"
}

tcase "two sessions: commits adding hooks; an ignored directory replaced" setup
tcase "hooks, filter, fsmonitor configured in the tree: nothing runs (git am runs them)" t_husky
tcase "the repository's own hooks: nothing runs (git am runs them)" t_own
tcase "the user's global hooksPath: nothing runs (git am runs them)" t_global
tcase "a git operation in progress: refused, named, nothing touched" t_in_progress
tcase "another apply holds the workspace's lock: refused at once" t_lock
tcase "a host file changed since the session: refused, host intact" t_host_changed
tcase "a patch naming .git/: refused whole" t_git_path
tcase "an ignored host file in a directory the patch replaces: refused, intact" t_in_the_way
tap_done
