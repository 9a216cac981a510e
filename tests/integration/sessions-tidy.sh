#!/bin/sh
# SPDX-License-Identifier: ISC
# sessions-tidy.sh - sessions that tidy themselves: a session with no
# changed file is not kept, even when the proxy refused a connection (the
# refusal is said at exit, and with -v as it happens); "drop --empty |
# --applied | --older-than DURATION | --all" asks on a terminal before
# dropping more than one session and never drops a running one; show,
# diff, apply and enter default to the latest session of the current
# workspace; ids sort by start time to the millisecond, and an id of an
# older confine still works; CONFINE_SESSION_CAP drops the oldest applied
# sessions first, and says so when that is not enough.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
require_userns
plan 14

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

# A session as an older confine left it: kept with nothing changed (a
# refused connection kept it then).  Made from a real one: its patch and
# summary emptied.  The copy's id in EMPTY_ID.
make_empty() {
	new_session 'echo e >e'
	EMPTY_ID=$SID
	: >"$SDIR/changes.patch"
	sed -e 's/^files=.*/files=0/' -e 's/^added=.*/added=0/' \
	    "$SDIR/summary" >"$TEST_TMP/summary"
	cp "$TEST_TMP/summary" "$SDIR/summary"
}

# age SID SECONDS: make the session SECONDS old (its meta's start).
age() {
	_ns=$(( ($(date +%s) - $2) * 1000000000 ))
	sed "s/^started_ns=.*/started_ns=$_ns/" "$SESSIONS/$1/meta" >"$TEST_TMP/meta"
	cp "$TEST_TMP/meta" "$SESSIONS/$1/meta"
}

# A command through the proxy that it refuses: nothing is allowed.
REFUSED="curl -sS --max-time 10 --noproxy '' -x http://127.0.0.1:3128 -p -o /dev/null http://192.0.2.1:80/ 2>/dev/null"

t_refused_not_kept() {
	[ "$BACKEND" != landlock ] || skip_case "the landlock backend has no proxy mode"
	command -v curl >/dev/null || skip_case "curl is not installed"
	ws_new
	# Control: with a change, the refusal is in the session's report.
	run_confine -n proxy -- sh -c "$REFUSED; echo x >x; true"
	assert_status "$RC" 0
	assert_file_has_content "$ERR" '^confine: network: 0 connections through the proxy, 1 refused \(-v names them\)$'
	SID=$(sed -n 's/^confine: session \([^:]*\): .*/\1/p' "$ERR")
	assert_file_has_content "$SESSIONS/$SID/report" '^  refused 192\.0\.2\.1:80: not in the allow-list$'
	rm -rf "$SESSIONS"
	# No change: nothing kept, no review line; the refusal at exit.
	run_confine -n proxy -- sh -c "$REFUSED; true"
	assert_status "$RC" 0
	assert_file_has_content "$ERR" '^confine: network: 0 connections through the proxy, 1 refused \(-v names them\)$'
	assert_not_file_has_content "$ERR" 'review:'
	assert_not_file_has_content "$ERR" '^confine: session '
	assert_no_session
	# -v: named as it happens, and still nothing kept.
	run_confine -v -n proxy -- sh -c "$REFUSED; true"
	assert_status "$RC" 0
	assert_file_has_content "$ERR" '^confine: proxy: refused 192\.0\.2\.1:80: not in the allow-list$'
	assert_not_file_has_content "$ERR" 'review:'
	assert_no_session
	# A file written and removed again is no change either.
	run_confine -n proxy -- sh -c "$REFUSED; echo t >t; rm t; true"
	assert_status "$RC" 0
	assert_not_file_has_content "$ERR" 'review:'
	assert_no_session
	assert_ws_unchanged
}

t_drop_empty_applied() {
	ws_new
	make_empty
	e1=$EMPTY_ID
	new_session 'echo a >a'
	applied=$SID
	run_confine apply --yes "$applied"
	assert_status "$RC" 0
	new_session 'echo k >k'
	kept=$SID
	run_confine ls
	assert_file_has_content "$OUT" "^$e1 .* 0 .* empty "
	assert_file_has_content "$OUT" "^$applied .* applied "
	# One session selected: no question.
	run_confine drop --empty
	assert_status "$RC" 0
	assert_file_has_content "$ERR" '^confine: dropped 1 session$'
	assert_not_exists "$SESSIONS/$e1"
	run_confine drop --applied
	assert_status "$RC" 0
	assert_not_exists "$SESSIONS/$applied"
	assert_exists "$SESSIONS/$kept"
	# Nothing left to select.
	run_confine drop --empty --applied
	assert_status "$RC" 0
	assert_file_has_content "$ERR" '^confine: no session to drop$'
	assert_eq "$(sessions)" "$kept" "the sessions left"
}

t_drop_ask() {
	ws_new
	make_empty
	e1=$EMPTY_ID
	make_empty
	e2=$EMPTY_ID
	new_session 'echo k >k'
	kept=$SID
	# Two: no terminal and no --yes is refused, nothing dropped.
	run_confine drop --empty
	assert_status "$RC" 125
	assert_refusal "$ERR"
	assert_file_has_content "$ERR" '^confine: not dropping 2 sessions without a terminal to ask on$'
	assert_file_has_content "$ERR" '^hint: .*--yes'
	assert_exists "$SESSIONS/$e1"
	assert_exists "$SESSIONS/$e2"
	# On a terminal: listed and asked; "n" drops nothing.
	printf 'n\n' >"$TEST_TMP/no"
	TTY_IN=$TEST_TMP/no on_tty "'$CONFINE' drop --empty"
	assert_status "$RC" 1
	assert_file_has_content "$OUT" "^  $e1  empty "
	assert_file_has_content "$OUT" "^  $e2  empty "
	assert_file_has_content "$OUT" 'drop these 2 sessions\? \[y/N\]'
	assert_file_has_content "$OUT" 'nothing dropped'
	assert_exists "$SESSIONS/$e1"
	# Control: "y" drops them.
	printf 'y\n' >"$TEST_TMP/yes"
	TTY_IN=$TEST_TMP/yes on_tty "'$CONFINE' drop --empty"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" 'confine: dropped 2 sessions'
	assert_eq "$(sessions)" "$kept" "the sessions left"
	# --yes: no question; --all takes every state.
	make_empty
	run_confine drop --all --yes
	assert_status "$RC" 0
	assert_file_has_content "$ERR" '^confine: dropped 2 sessions$'
	assert_no_session
	assert_ws_unchanged
}

t_drop_older() {
	ws_new
	new_session 'echo old >old'
	old=$SID
	age "$old" $((3 * 86400))
	new_session 'echo mid >mid'
	mid=$SID
	age "$mid" $((3 * 3600))
	new_session 'echo new >new'
	new=$SID
	run_confine ls
	assert_file_has_content "$OUT" "^$old +3d "
	assert_file_has_content "$OUT" "^$mid +3h "
	run_confine drop --older-than 2d
	assert_status "$RC" 0
	assert_eq "$(sessions)" "$mid
$new" "after --older-than 2d"
	run_confine drop --older-than=90m
	assert_status "$RC" 0
	assert_eq "$(sessions)" "$new" "after --older-than=90m"
	# With a state: both must hold.
	run_confine drop --applied --older-than 0s
	assert_file_has_content "$ERR" '^confine: no session to drop$'
	assert_eq "$(sessions)" "$new" "after --applied --older-than 0s"
}

# t_drop_usage ARG...: refused, one line and the help's hint, nothing dropped.
t_drop_usage() {
	ws_new
	new_session 'echo x >x'
	run_confine drop "$@"
	assert_status "$RC" 125
	assert_refusal "$ERR"
	assert_exists "$SDIR"
}

t_drop_running() {
	ws_new
	mark=$(unique_num)
	(
		cd "$WS" && exec "$CONFINE" -- sh -c "echo s >started; exec sleep 300.$mark"
	) </dev/null >/dev/null 2>"$TEST_TMP/bg.err" &
	bg=$!
	track_pid "$bg"
	wait_for 30 sh -c "ls '$SESSIONS'/*/upper/started" >/dev/null 2>&1 ||
	    fail "the background session did not start"
	running=$(sessions)
	run_confine ls
	assert_file_has_content "$OUT" "^$running .* running "
	# The default skips it: there is no other.
	run_confine show
	assert_status "$RC" 125
	assert_file_has_content "$ERR" '^confine: no session of .* but running ones$'
	run_confine drop --all --yes
	assert_status "$RC" 0
	assert_file_has_content "$ERR" '^confine: no session to drop$'
	assert_exists "$SESSIONS/$running/meta"
	# Control: once it is gone, the same drop takes it.
	kill "$bg"
	wait "$bg" 2>/dev/null || :
	run_confine ls
	assert_not_file_has_content "$OUT" ' running '
	run_confine drop --all --yes
	assert_status "$RC" 0
	assert_no_session
}

t_default_workspace() {
	ws_new
	ws1=$WS
	new_session 'echo one >one'
	s1=$SID
	ws_new
	ws2=$WS
	new_session 'echo two >two'
	s2=$SID
	# The latest of every workspace is ws2's: ws1 still gets its own.
	WS=$ws1
	run_confine show
	assert_status "$RC" 0
	assert_eq "$(head -n 1 "$OUT")" "session $s1" "show in $ws1"
	run_confine diff
	assert_status "$RC" 0
	cmp -s "$OUT" "$SESSIONS/$s1/changes.patch" || fail "diff in $ws1"
	# From a directory below it too (the git top level is the workspace).
	RUN_CWD=$ws1/src run_confine show
	assert_eq "$(head -n 1 "$OUT")" "session $s1" "show in $ws1/src"
	run_confine enter -- cat one
	assert_status "$RC" 0
	assert_eq "$(cat "$OUT")" one "enter in $ws1"
	run_confine apply --yes
	assert_status "$RC" 0
	assert_eq "$(cat "$ws1/one")" one "apply in $ws1"
	assert_not_exists "$ws1/two"
	assert_not_exists "$ws2/one"
	assert_not_exists "$SESSIONS/$s2/applied"
	# A workspace without sessions: refused, with where to look.
	ws_new
	run_confine apply --yes
	assert_status "$RC" 125
	assert_refusal "$ERR"
	assert_file_has_content "$ERR" "^confine: no sessions of $WS\$"
	assert_file_has_content "$ERR" "^hint: 'confine ls --all'"
	assert_not_exists "$SESSIONS/$s2/applied"
	assert_ws_unchanged
}

t_ids_order() {
	ws_new
	new_session 'echo a >a'
	a=$SID
	new_session 'echo b >b'
	b=$SID
	new_session 'echo c >c'
	c=$SID
	echo "$a" | grep -Eq "^$ID_ERE\$" || fail "id $a"
	# Start order, whatever the random part says.
	assert_eq "$(printf '%s\n' "$c" "$a" "$b" | sort)" "$a
$b
$c" "ids sorted as strings"
	run_confine ls
	assert_eq "$(cut -d' ' -f1 "$OUT")" "$a
$b
$c" "ls"
	run_confine show
	assert_eq "$(head -n 1 "$OUT")" "session $c" "the latest"
	# Ids of an older confine: whole seconds only.  Listed in their
	# place, named, shown, dropped.
	old=$(echo "$a" | sed 's/\.[0-9]*-/-/')
	cp -R "$SESSIONS/$a" "$SESSIONS/$old"
	run_confine ls
	assert_eq "$(cut -d' ' -f1 "$OUT")" "$old
$a
$b
$c" "ls with an old id"
	run_confine show "$old"
	assert_status "$RC" 0
	run_confine diff "$old"
	assert_status "$RC" 0
	run_confine drop "$old"
	assert_status "$RC" 0
	assert_not_exists "$SESSIONS/$old"
}

t_cap() {
	ws_new
	new_session 'echo a >a'
	applied1=$SID
	new_session 'echo b >b'
	applied2=$SID
	new_session 'echo u >u'
	unapplied=$SID
	for s in "$applied1" "$applied2"; do
		run_confine apply --yes "$s"
		assert_status "$RC" 0
	done
	# Control: under the default cap, nothing goes.
	new_session 'echo c >c'
	assert_not_file_has_content "$ERR" 'CONFINE_SESSION_CAP'
	assert_exists "$SESSIONS/$applied1"
	# Every applied session goes, the oldest first; the rest stays,
	# and the run says that it is still over.
	CONFINE_SESSION_CAP=1 run_confine -- sh -c 'echo d >d'
	assert_status "$RC" 0
	assert_file_has_content "$ERR" "^confine: session $applied1 dropped \\(applied, [0-9.]+[KMG]\\): the sessions took more than 1B \\(CONFINE_SESSION_CAP\\)\$"
	assert_file_has_content "$ERR" "^confine: session $applied2 dropped "
	[ "$(grep -n "$applied1 dropped" "$ERR" | cut -d: -f1)" -lt \
	    "$(grep -n "$applied2 dropped" "$ERR" | cut -d: -f1)" ] ||
	    fail "not the oldest first"
	assert_file_has_content "$ERR" '^confine: warning: sessions: [0-9.]+[KMG] on disk, more than the cap of 1B \(CONFINE_SESSION_CAP\), and no applied session is left to drop$'
	assert_file_has_content "$ERR" "^hint: 'confine ls --all' lists them"
	assert_not_exists "$SESSIONS/$applied1"
	assert_not_exists "$SESSIONS/$applied2"
	assert_exists "$SESSIONS/$unapplied"
	[ "$(sessions | wc -l)" -eq 3 ] || fail "sessions left: $(sessions)"
	# A cap large enough: the applied session stays.
	run_confine apply --yes "$unapplied"
	CONFINE_SESSION_CAP=1T run_confine -- sh -c 'echo e >e'
	assert_status "$RC" 0
	assert_not_file_has_content "$ERR" 'CONFINE_SESSION_CAP'
	assert_exists "$SESSIONS/$unapplied"
	# 0: no cap.
	CONFINE_SESSION_CAP=0 run_confine -- sh -c 'echo f >f'
	assert_not_file_has_content "$ERR" 'CONFINE_SESSION_CAP'
	assert_exists "$SESSIONS/$unapplied"
}

t_cap_bad() {
	ws_new
	for v in 10X -1 ten 1GG '1 ' 1.5G; do
		CONFINE_SESSION_CAP=$v run_confine -- sh -c 'echo x >x'
		assert_status "$RC" 125
		assert_refusal "$ERR"
		assert_file_has_content "$ERR" "^confine: CONFINE_SESSION_CAP '$v': not a size"
		assert_no_session
	done
	assert_ws_unchanged
}

tcase "a session with no change is not kept, even with a refused connection" t_refused_not_kept
tcase "drop --empty, --applied: those only, no question for one" t_drop_empty_applied
tcase "drop of more than one: asked on a terminal, refused without one, --yes" t_drop_ask
tcase "drop --older-than DURATION: by the session's start" t_drop_older
tcase "drop: a bad duration is refused" t_drop_usage --older-than 7x
tcase "drop: a duration without its value is refused" t_drop_usage --older-than
tcase "drop: ids and a selector together are refused" t_drop_usage --all "$(date +%Y%m%d)-000000.000-00000000"
tcase "drop: an unknown option is refused" t_drop_usage --everything
tcase "drop: --yes alone is refused" t_drop_usage --yes
tcase "drop never takes a running session" t_drop_running
tcase "show, diff, enter, apply: the latest of the current workspace" t_default_workspace
tcase "ids sort by start time to the millisecond; an older id still works" t_ids_order
tcase "CONFINE_SESSION_CAP: the oldest applied go first; over it still, a warning" t_cap
tcase "CONFINE_SESSION_CAP that is not a size: refused before anything is made" t_cap_bad
tap_done
