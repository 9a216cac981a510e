#!/bin/sh
# SPDX-License-Identifier: ISC
# apply-journal.sh - a "confine apply --commits" of a large series (30
# commits of 20 files, and a rest) killed with SIGKILL at random points:
# after the next confine run in that workspace (a new session, which rolls
# a killed apply back first), the workspace is either exactly as before
# (HEAD, index, status, every file) or exactly as a whole apply leaves it.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
. "$TESTS_SRCDIR/apply-lib.sh"
require_userns
plan 2

ITERATIONS=8

# One git fast-import makes the series (cheap), then the working tree.
AGENT='set -e
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
ref=$(git symbolic-ref HEAD)
base=$(git rev-parse HEAD)
who="agent <agent@example.invalid> 978307200 +0000"
i=0
while [ $i -lt 30 ]; do
	msg="commit $i"
	printf "commit %s\nauthor %s\ncommitter %s\ndata %d\n%s\n" \
	    "$ref" "$who" "$who" ${#msg} "$msg"
	[ $i -gt 0 ] || printf "from %s\n" "$base"
	j=0
	while [ $j -lt 20 ]; do
		line="commit $i file $j"
		printf "M 100644 inline gen/f%d.txt\ndata %d\n%s\n" $j \
		    $((${#line} + 1)) "$line"
		printf "M 100644 inline gen/c%d-%d.txt\ndata %d\n%s\n" $i $j \
		    $((${#line} + 1)) "$line"
		j=$((j + 1))
	done
	i=$((i + 1))
done | git fast-import --quiet
git reset -q --hard
echo rest >>README
rm gen/c0-0.txt
mkdir -p src/new
echo new >src/new/file'

# What an apply changes, with HEAD as its tree and depth (the committer's
# time makes each apply's commit ids its own).
state() {
	(
		cd "$1" || exit 1
		export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
		git rev-parse 'HEAD^{tree}'
		git rev-list --count HEAD
		git ls-files -s
		git status --porcelain --untracked-files=all
		find . -path ./.git -prune -o -printf '%p %y %m %l\n' | sort
		find . -path ./.git -prune -o -type f -print0 | sort -z |
		    xargs -0r sha256sum
	)
}

setup() {
	shared_state
	ws_new
	printf '%s\n' "$AGENT" >"$WS/.t/agent.sh"
	run_confine -- sh .t/agent.sh
	assert_status "$RC" 0
	SID=$(session_of "$ERR")
	git clone -q "$WS" "$TEST_TMP/scratch"
	echo .t >>"$TEST_TMP/scratch/.git/info/exclude"
	(cd "$TEST_TMP/scratch" && sh "$WS/.t/agent.sh") || fail "the agent fails outside"
	make_commits "$TEST_TMP/scratch" "$SESSIONS/$SID" \
	    "$(git -C "$WS" rev-parse HEAD)"
	printf '%s %s\n' "$WS" "$SID" >"$TEST_TMP/setup"
}

# ms: a random number of milliseconds below $1.
rand_ms() {
	echo "$(od -An -N2 -tu2 /dev/urandom | tr -d ' ') $1" |
	    awk '{ printf "%d\n", $1 % ($2 + 1) }'
}

t_kill() {
	shared_state
	read -r WS SID <"$TEST_TMP/setup"
	state "$WS" >"$TEST_TMP/old"
	# The whole apply, once: the new state, and how long it takes.
	ws_copy "$WS"
	session_for "$SID" "$CWS"
	t0=$(date +%s%N)
	RUN_CWD=$CWS run_confine apply --yes --commits "$CSID"
	t1=$(date +%s%N)
	assert_status "$RC" 0
	state "$CWS" >"$TEST_TMP/new"
	assert_eq "$(sed -n 2p "$TEST_TMP/new")" \
	    "$(($(sed -n 2p "$TEST_TMP/old") + 30))" "commits after a whole apply"
	! cmp -s "$TEST_TMP/old" "$TEST_TMP/new" || fail "control: the apply changed nothing"
	ms=$(((t1 - t0) / 1000000))
	n=0 old=0 new=0 rolled=0
	while [ $n -lt $ITERATIONS ]; do
		n=$((n + 1))
		ws_copy "$WS"
		session_for "$SID" "$CWS"
		(cd "$CWS" && exec "$CONFINE" apply --yes --commits "$CSID" \
		    >/dev/null 2>&1) &
		pid=$!
		track_pid "$pid"
		# Most of the run is confine's checks: kill in its last two thirds.
		d=$((ms / 3 + $(rand_ms "$((ms * 3 / 4))")))
		sleep "$(awk "BEGIN { printf \"%.3f\", $d / 1000 }")"
		kill -9 "$pid" 2>/dev/null || :
		wait "$pid" 2>/dev/null || :
		# The next confine run in the workspace rolls back first.
		RUN_CWD=$CWS run_confine -w "$CWS" -- true
		assert_status "$RC" 0
		! grep -q '^confine: rolled back an apply' "$ERR" ||
		    rolled=$((rolled + 1))
		state "$CWS" >"$TEST_TMP/now"
		if cmp -s "$TEST_TMP/now" "$TEST_TMP/old"; then
			old=$((old + 1))
		elif cmp -s "$TEST_TMP/now" "$TEST_TMP/new"; then
			new=$((new + 1))
		else
			diff "$TEST_TMP/old" "$TEST_TMP/now" | head -n 20 | sed 's/^/# /'
			fail "killed after ${d} ms: neither the old state nor the new"
		fi
		assert_not_exists "$XDG_STATE_HOME/confine/journal/$(printf %s "$CWS" | sha256sum | cut -d' ' -f1)"
	done
	diag "$ITERATIONS kills in a ${ms} ms apply: $old old ($rolled rolled back), $new new"
}

t0=$(date +%s)
tcase "a session with 30 commits of 20 files and a rest" setup
diag "setup: $(($(date +%s) - t0)) s"
tcase "apply --commits killed at random points: old or new, never half" t_kill
tap_done
