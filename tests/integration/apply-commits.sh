#!/bin/sh
# SPDX-License-Identifier: ISC
# apply-commits.sh - "confine apply --commits": the session's commits are
# rebuilt from their trees (each commit's own patch, its author and its
# message as data), on the host's HEAD, with the host user as committer;
# a message that carries a diff is a message only, a commit made with
# plumbing keeps exactly its tree; the working tree ends as plain apply
# leaves it.  A session directory whose commits and reviewed changes
# disagree (tampered) is refused before anything is written, and so is a
# host whose HEAD moved.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
. "$TESTS_SRCDIR/apply-lib.sh"
require_userns
plan 6

# The agent: four commits (a message holding a diff, one made with
# plumbing, a binary file and a mode change) and a change left uncommitted.
AGENT='set -e
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME="Agent Smith" GIT_AUTHOR_EMAIL=agent@example.invalid
export GIT_AUTHOR_DATE="2001-02-03T04:05:06+0130"
export GIT_COMMITTER_NAME=agent GIT_COMMITTER_EMAIL=agent@example.invalid
export GIT_COMMITTER_DATE="2001-02-03T04:05:06+0130"
echo one >>README
git commit -q -a -m "first: README"
echo two >two.txt
git add two.txt
printf "second: a message with a diff\n\ndiff --git a/Makefile b/Makefile\nnew file mode 100644\n--- /dev/null\n+++ b/Makefile\n@@ -0,0 +1 @@\n+all:; touch pwned\n" >.t/msg
git commit -q -F .t/msg
blob=$(printf "plumbed\n" | git hash-object -w --stdin)
git update-index --add --cacheinfo 100644,$blob,plumbed.txt
git commit -q -m "third: plumbing"
printf "\000\001\002" >bin.dat
chmod 0644 bin/run.sh
git add bin.dat bin/run.sh
git commit -q -m "fourth: binary, mode"
echo rest >>src/main.c'

setup() {
	shared_state
	ws_new
	printf '%s\n' "$AGENT" >"$WS/.t/agent.sh"
	run_confine -- sh .t/agent.sh
	assert_status "$RC" 0
	SID=$(session_of "$ERR")
	[ -n "$SID" ] || fail "no session"
	# The same commands in a scratch clone give the same trees.
	git clone -q "$WS" "$TEST_TMP/scratch"
	mkdir "$TEST_TMP/scratch/.t"
	echo .t >>"$TEST_TMP/scratch/.git/info/exclude"
	(cd "$TEST_TMP/scratch" && sh "$WS/.t/agent.sh") ||
	    fail "the agent's commands fail outside"
	make_commits "$TEST_TMP/scratch" "$SESSIONS/$SID" \
	    "$(git -C "$WS" rev-parse HEAD)"
	printf '%s\n' "$SID" >"$TEST_TMP/sid"
	printf '%s\n' "$WS" >"$TEST_TMP/ws"
}

load() {
	shared_state
	SID=$(cat "$TEST_TMP/sid")
	WS=$(cat "$TEST_TMP/ws")
	BASE=$(git -C "$WS" rev-parse HEAD)
	ws_copy "$WS"
	git -C "$CWS" config user.name "Host User"
	git -C "$CWS" config user.email host@example.invalid
	session_for "$SID" "$CWS"
}

t_commits() {
	load
	P=$CWS
	ws_copy "$WS"
	PLAIN=$CWS
	session_for "$SID" "$PLAIN"
	PSID=$CSID
	session_for "$SID" "$P"
	RUN_CWD=$P run_confine apply --yes --commits "$CSID"
	assert_status "$RC" 0
	assert_file_has_content "$ERR" "^confine: applied to $P\$"
	# HEAD moved by exactly the series, each commit's tree the session's.
	git -C "$P" rev-list --reverse "$BASE..HEAD" >"$TEST_TMP/new"
	assert_eq "$(wc -l <"$TEST_TMP/new")" 4 "commits on the host"
	assert_eq "$(git -C "$P" rev-parse HEAD~4)" "$BASE" "the series' base"
	for c in 3 2 1 0; do
		assert_eq "$(git -C "$P" rev-parse "HEAD~$c^{tree}")" \
		    "$(git -C "$TEST_TMP/scratch" rev-parse "HEAD~$c^{tree}")" \
		    "the tree of HEAD~$c"
		assert_eq "$(git -C "$P" log -1 --format='%an <%ae> %ad' "HEAD~$c")" \
		    "$(git -C "$TEST_TMP/scratch" log -1 --format='%an <%ae> %ad' "HEAD~$c")" \
		    "the author of HEAD~$c"
		assert_eq "$(git -C "$P" cat-file commit "HEAD~$c" | sed '1,/^$/d')" \
		    "$(git -C "$TEST_TMP/scratch" cat-file commit "HEAD~$c" | sed '1,/^$/d')" \
		    "the message of HEAD~$c"
		assert_eq "$(git -C "$P" log -1 --format='%cn <%ce>' "HEAD~$c")" \
		    "Host User <host@example.invalid>" "the committer of HEAD~$c"
	done
	# The diff in the message is a message: no Makefile anywhere.
	assert_not_exists "$P/Makefile"
	git -C "$P" cat-file -e HEAD:plumbed.txt ||
	    fail "the plumbing commit's file is not in HEAD"
	assert_not_exists "$P/plumbed.txt"
	assert_eq "$(git -C "$P" reflog -1 --format=%gs)" \
	    "confine apply --commits: session $CSID" "the reflog"
	# Index and working tree: the rest is left uncommitted.
	assert_eq "$(GIT_CONFIG_GLOBAL=/dev/null git -C "$P" status --porcelain)" \
	    " D plumbed.txt
 M src/main.c" "git status after --commits"
	# The working tree is what plain apply makes.
	RUN_CWD=$PLAIN run_confine apply --yes "$PSID"
	assert_status "$RC" 0
	assert_eq "$(git -C "$PLAIN" rev-parse HEAD)" "$BASE" "plain apply's HEAD"
	(cd "$P" && find . -path ./.git -prune -o -printf '%p %y %m %l\n' | sort;
	    find . -path ./.git -prune -o -type f -print0 | sort -z | xargs -0r sha256sum) >"$TEST_TMP/p"
	(cd "$PLAIN" && find . -path ./.git -prune -o -printf '%p %y %m %l\n' | sort;
	    find . -path ./.git -prune -o -type f -print0 | sort -z | xargs -0r sha256sum) >"$TEST_TMP/plain"
	cmp -s "$TEST_TMP/p" "$TEST_TMP/plain" || {
		diff "$TEST_TMP/plain" "$TEST_TMP/p" | sed 's/^/# /' | head -n 20
		fail "--commits and plain apply leave different trees"
	}
	# Control: git am of the same commits takes the diff in the message.
	ws_copy "$WS"
	git -C "$TEST_TMP/scratch" format-patch -q -o "$TEST_TMP/mbox" "$BASE"
	(cd "$CWS" && git_fixed am -q "$TEST_TMP"/mbox/0002-*.patch "$TEST_TMP"/mbox/0001-*.patch) 2>/dev/null || :
	cd "$CWS" && git_fixed reset -q --hard "$BASE" && cd "$TEST_TMP"
	(cd "$CWS" && git_fixed am -q "$TEST_TMP"/mbox/*.patch) >/dev/null 2>&1 || :
	assert_exists "$CWS/Makefile"
}

# tamper FILE SED: the commits' proof fails, nothing is changed.
tamper() {
	load
	sed -i "$2" "$SESSIONS/$CSID/commits/$1"
	before=$(ws_state "$CWS")
	RUN_CWD=$CWS run_confine apply --yes --commits "$CSID"
	assert_status "$RC" 125
	assert_file_has_content "$ERR" \
	    "^confine: the session's commits and its reviewed changes disagree \\($3\\); nothing was changed\$"
	assert_eq "$(ws_state "$CWS")" "$before" "the workspace"
	assert_not_exists "$SESSIONS/$CSID/applied"
}

t_tamper_rest() {
	tamper rest.patch 's/^+rest$/+evil/' src/main.c
}

t_tamper_commit() {
	tamper 0002.patch 's/^+two$/+tw0/' two.txt
}

t_head_moved() {
	load
	echo host >"$CWS/host.txt"
	git_fixed -C "$CWS" add host.txt
	git_fixed -C "$CWS" commit -q -m host
	before=$(ws_state "$CWS")
	RUN_CWD=$CWS run_confine apply --yes --commits "$CSID"
	assert_status "$RC" 125
	assert_file_has_content "$ERR" \
	    "^confine: the workspace's HEAD is not the commit the session's commits were made on \\($BASE\\)\$"
	assert_eq "$(ws_state "$CWS")" "$before" "the workspace"
	# No commits/: --commits is refused, plain apply is the way.
	rm -rf "$SESSIONS/$CSID/commits"
	RUN_CWD=$CWS run_confine apply --yes --commits "$CSID"
	assert_status "$RC" 125
	assert_file_has_content "$ERR" "^confine: session made no commits\$"
	assert_eq "$(ws_state "$CWS")" "$before" "the workspace"
}

# git's advice for an operation it leaves half done (git am's "git am
# --continue", "--skip", "--abort", "When you have resolved this
# problem"), and the state it leaves.
ADVICE='git am|--continue|--skip|--abort|resolved this problem|rebase-apply|hint: (Use|After|Disable)'

# A refused --commits leaves nothing half done: no git operation was
# started, so none is to be continued or aborted, and no line says so.
# The control: git am of the same commits, in the same state, leaves one
# and says so, in the words the assertion looks for.
t_no_advice() {
	load
	echo host >>"$CWS/README"
	before=$(ws_state "$CWS")
	RUN_CWD=$CWS run_confine apply --yes --commits "$CSID"
	assert_status "$RC" 125
	# After the report: confine's refusal alone.
	sed -n '/^confine: /,$p' "$ERR" >"$TEST_TMP/last"
	assert_refusal "$TEST_TMP/last"
	assert_file_has_content "$TEST_TMP/last" 'nothing was changed$'
	assert_not_file_has_content "$ERR" "$ADVICE"
	assert_eq "$(ws_state "$CWS")" "$before" "the workspace"
	for d in rebase-apply rebase-merge MERGE_HEAD CHERRY_PICK_HEAD; do
		assert_not_exists "$CWS/.git/$d"
	done
	# Control: git am, on a copy in the same state.
	mbox=$TEST_TMP/advice-mbox
	rm -rf "$mbox"
	git -C "$TEST_TMP/scratch" format-patch -q -o "$mbox" "$BASE"
	cp "$CWS/README" "$TEST_TMP/readme"
	ws_copy "$WS"
	cp "$TEST_TMP/readme" "$CWS/README"
	(cd "$CWS" && git_fixed am -3 "$mbox"/*.patch) >"$TEST_TMP/am.out" 2>&1 &&
	    fail "control: git am applies over the changed README"
	assert_file_has_content "$TEST_TMP/am.out" "$ADVICE"
	assert_exists "$CWS/.git/rebase-apply"
}

tcase "a session that makes commits" setup
tcase "--commits: the series rebuilt from its trees, the rest as plain apply" t_commits
tcase "--commits: a tampered rest.patch is refused, nothing changed" t_tamper_rest
tcase "--commits: a tampered commit patch is refused, nothing changed" t_tamper_commit
tcase "--commits: HEAD moved, or no commits: refused, nothing changed" t_head_moved
tcase "--commits refused: no git advice, no operation left to continue or abort" t_no_advice
tap_done
