#!/bin/sh
# SPDX-License-Identifier: ISC
# parallel.sh - many sessions at once: 20 (5 on the other backends) in one
# repository, and as many in as many repositories, all running together
# (each command waits on a FIFO the test holds open), each changing a file
# of its own; "confine ls" lists them all, distinct and running, and once
# the FIFO is closed each exports exactly its own change and the host's
# workspaces are unchanged.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
require_userns
plan 2

# Native is the backend a host runs many agents on; the others once, on a
# smaller scale.
N=20
[ "$BACKEND" = native ] || N=5

ID_ERE='[0-9]{8}-[0-9]{6}\.[0-9]{3}-[0-9a-f]{8}'

# start_all WS...: a confine in each workspace given (a workspace given
# twice runs twice), in the background, its stdin the FIFO gate: the
# command writes its file, says "ready", and reads the gate until the
# test closes it.  The pids in PIDS; session i's output in out.i/err.i.
start_all() {
	D=$(mktemp -d "$TEST_TMP/case.XXXXXX") || fail "mktemp"
	mkfifo "$D/gate"
	PIDS=
	i=0
	for ws in "$@"; do
		i=$((i + 1))
		(
			cd "$ws" && exec "$CONFINE" -- sh -c \
			    'echo "$1" >"file-$1"; echo ready; read -r _ || :' sh "$i"
		) <"$D/gate" >"$D/out.$i" 2>"$D/err.$i" &
		PIDS="$PIDS $!"
		track_pid "$!"
	done
	# Open for writing: every reader's open completes; held until
	# release_all.
	exec 9>"$D/gate"
}

# How many said "ready".
n_ready() {
	cat "$D"/out.* 2>/dev/null | grep -c '^ready$' || :
}

all_ready() {
	[ "$(n_ready)" -eq "$N" ]
}

# release_all: close the gate (each command reads its end) and wait for
# every confine, each of which must exit 0.
release_all() {
	exec 9>&-
	i=0
	for pid in $PIDS; do
		i=$((i + 1))
		rc=0
		wait "$pid" || rc=$?
		drop_notice "$D/err.$i"
		[ "$rc" -eq 0 ] || {
			diag_file "$D/err.$i" "session $i's stderr"
			fail "session $i: status $rc"
		}
	done
}

# check_exports WS...: each session's patch is its own file, alone.
check_exports() {
	i=0
	for ws in "$@"; do
		i=$((i + 1))
		grep -Eq "^confine: session $ID_ERE: 1 file changed\$" "$D/err.$i" ||
		    fail "session $i: no export line: $(head -n 3 "$D/err.$i")"
		sid=$(sed -n 's/^confine: session \([^:]*\): 1 file changed$/\1/p' "$D/err.$i")
		patch=$SESSIONS/$sid/changes.patch
		[ -f "$patch" ] || fail "session $i ($sid): no patch"
		[ "$(grep -c '^diff --git ' "$patch")" -eq 1 ] ||
		    fail "session $i ($sid): not one file in its patch"
		grep -q "^+++ b/file-$i\$" "$patch" ||
		    fail "session $i ($sid): not its file in its patch"
		grep -qx "+$i" "$patch" ||
		    fail "session $i ($sid): not its content in its patch"
		[ "$(sed -n 's/^workspace=//p' "$SESSIONS/$sid/meta")" = "$ws" ] ||
		    fail "session $i ($sid): not its workspace"
		echo "$sid" >>"$D/ids"
	done
	[ "$(sort -u "$D/ids" | wc -l)" -eq "$N" ] ||
	    fail "not $N distinct sessions"
}

# every_running LS-OUTPUT: N lines, N distinct ids, each running.
every_running() {
	assert_lines "$1" "$N"
	[ "$(awk '{ print $1 }' "$1" | sort -u | wc -l)" -eq "$N" ] ||
	    fail "not $N distinct ids"
	[ "$(grep -Ec "^$ID_ERE +[0-9]+s +- +[0-9.]+[BKMG] +running +[0-9.]+[BKMG] +[0-9]+ " "$1")" -eq "$N" ] || {
		diag_file "$1" "confine ls"
		fail "not $N running sessions with their memory and tasks"
	}
}

t_one_repo() {
	ws_new
	set --
	i=0
	while [ "$i" -lt "$N" ]; do
		set -- "$@" "$WS"
		i=$((i + 1))
	done
	start_all "$@"
	wait_for 120 all_ready || fail "$(n_ready) of $N sessions started"
	run_confine ls
	assert_status "$RC" 0
	every_running "$OUT"
	release_all
	check_exports "$@"
	run_confine ls
	assert_lines "$OUT" "$N"
	[ "$(grep -Ec "^$ID_ERE +[0-9]+s +1 +[0-9.]+[BKMG] +exported " "$OUT")" -eq "$N" ] ||
	    fail "not $N exported sessions"
	assert_ws_unchanged
}

t_many_repos() {
	set --
	i=0
	while [ "$i" -lt "$N" ]; do
		ws_new
		set -- "$@" "$WS"
		echo "$WS $WS_HASH" >>"$TEST_TMP/hashes.$N"
		i=$((i + 1))
	done
	start_all "$@"
	wait_for 120 all_ready || fail "$(n_ready) of $N sessions started"
	RUN_CWD=$TEST_TMP run_confine ls --all
	assert_status "$RC" 0
	every_running "$OUT"
	[ "$(awk '{ print $8 }' "$OUT" | sort -u | wc -l)" -eq "$N" ] ||
	    fail "not $N workspaces"
	release_all
	check_exports "$@"
	while read -r ws hash; do
		assert_ws_unchanged "$ws" "$hash"
	done <"$TEST_TMP/hashes.$N"
}

tcase "$N sessions at once in one repository" t_one_repo
tcase "$N sessions at once in $N repositories" t_many_repos
tap_done
