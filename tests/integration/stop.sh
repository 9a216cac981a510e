#!/bin/sh
# SPDX-License-Identifier: ISC
# stop.sh - a running session as "confine ls" shows it (running, with
# its memory and tasks) and as "confine stop" ends it: SIGTERM to the
# command, everything killed when it does not end within the grace, the
# export made and the session kept, the report and the exit lines saying
# so; refused for a session that is not running, not the caller's, or
# unknown.  "confine drop" never removes a running session.  A running
# record whose confine is gone, or whose pid is another process's now, is
# not trusted.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
require_userns
plan 10

ID_ERE='[0-9]{8}-[0-9]{6}\.[0-9]{3}-[0-9a-f]{8}'

# start_bg SCRIPT: confine running sh -c SCRIPT in the background, in a
# new workspace; SCRIPT writes "started" when it is running.  Its pid in
# BG, its session in SID once "started" is there (a condition, polled).
start_bg() {
	ws_new
	(
		cd "$WS" && exec "$CONFINE" -- sh -c "$1"
	) </dev/null >"$TEST_TMP/bg.out" 2>"$TEST_TMP/bg.err" &
	BG=$!
	track_pid "$BG"
	# Its running record comes once its sandbox started.
	wait_for 30 sh -c "ls '$SESSIONS'/*/upper/started '$SESSIONS'/*/running" \
	    >/dev/null 2>&1 || {
		diag_file "$TEST_TMP/bg.err" "confine's stderr"
		fail "the background session did not start"
	}
	SID=$(sessions)
}

# bg_wait: the background confine's exit status, once it is gone, in
# BG_RC (wait, in this shell: BG is its child, not a subshell's).
bg_wait() {
	BG_RC=0
	wait "$BG" || BG_RC=$?
	drop_notice "$TEST_TMP/bg.err"
}

# The processes whose command line starts with PATTERN (not confine's or
# the shell's, whose arguments hold it too).
marked() {
	pgrep -f "^$1" || true
}

t_ls_running() {
	mark=$(unique_num)
	start_bg "echo s >started; exec sleep 300.$mark"
	run_confine ls
	assert_status "$RC" 0
	assert_lines "$OUT" 1
	# ID AGE FILES SIZE STATE MEMORY TASKS COMMAND.
	assert_file_has_content "$OUT" "^$SID +[0-9]+s +- +[0-9.]+[BKMG] +running +[0-9.]+[BKMG] +[0-9]+ +sh -c echo s >started; exec sleep 300.$mark\$"
	mem=$(awk '{ print $6 }' "$OUT")
	tasks=$(awk '{ print $7 }' "$OUT")
	# The command (sleep) and the sandbox's first process at least, each
	# resident for more than a page.
	[ "$tasks" -ge 2 ] || fail "tasks: $tasks"
	case $mem in 0* | *B) fail "memory: $mem" ;; esac
	# The header, on a terminal, names the columns.
	command -v script >/dev/null || skip_case "script (util-linux) is not installed"
	(cd "$WS" && TERM=xterm script -qec "'$CONFINE' ls" /dev/null) </dev/null >"$TEST_TMP/tty" 2>&1
	head -n 1 "$TEST_TMP/tty" | tr -d '\r' |
	    grep -q '^ID  *AGE  FILES  SIZE  STATE  *MEMORY  TASKS  COMMAND$' ||
	    fail "the header: $(head -n 1 "$TEST_TMP/tty")"
	run_confine stop "$SID"
	assert_status "$RC" 0
	# Control: once it ended, no column of memory or tasks.
	run_confine ls
	assert_file_has_content "$OUT" "^$SID +[0-9]+s +1 +[0-9.]+[BKMG] +exported +sh -c"
	bg_wait
	assert_eq "$BG_RC" 143 "confine's status: the command's, SIGTERM"
}

# A command whose name (comm) holds ") " and numbers: /proc/PID/stat is
# read after its last ")", so its fields are not shifted.
t_ls_comm() {
	not_on bwrap "bwrap's own processes make the count vary"
	mark=$(unique_num)
	start_bg "cp /bin/sleep './x) 7 7 7' && echo s >started && exec './x) 7 7 7' 300.$mark"
	wait_for 30 sh -c "pgrep -f '^./x\\) 7 7 7 300.$mark' >/dev/null" ||
	    fail "the command did not exec"
	run_confine ls
	# Its first process (native's pid 1, landlock's keeper) and it.
	assert_file_has_content "$OUT" "^$SID +[0-9]+s +- +[0-9.]+[BKMG] +running +[0-9.]+[KMG] +2 +sh -c"
	run_confine stop "$SID"
	assert_status "$RC" 0
	bg_wait
}

t_stop_ends() {
	mark=$(unique_num)
	start_bg "echo s >started; exec sleep 300.$mark"
	[ -n "$(marked "sleep 300.$mark")" ] || fail "control: the command is not seen"
	run_confine stop "$SID"
	assert_status "$RC" 0
	assert_file_has_content "$ERR" "^confine: session $SID ended\$"
	assert_file_has_content "$ERR" "^  review: confine diff $SID    apply: confine apply $SID\$"
	# It waited: the session no longer runs when it returns.
	bg_wait
	assert_eq "$BG_RC" 143 "confine's status"
	assert_eq "$(marked "sleep 300.$mark")" "" "what is left of the command"
	assert_file_has_content "$TEST_TMP/bg.err" "^confine: session $SID: stopped by 'confine stop': ended within 5 s of SIGTERM\$"
	assert_file_has_content "$TEST_TMP/bg.err" "^confine: session $SID: 1 file changed\$"
	assert_file_has_content "$SESSIONS/$SID/report" "^stopped: by 'confine stop'; ended within 5 s of SIGTERM\$"
	assert_file_has_content "$SESSIONS/$SID/changes.patch" '^\+\+\+ b/started$'
	assert_not_exists "$SESSIONS/$SID/running"
	assert_file_has_content "$SESSIONS/$SID/stopped" '^killed=0$'
	assert_ws_unchanged
}

t_stop_kills() {
	mark=$(unique_num)
	# SIGTERM ignored, by the shell and what it starts; a child of its
	# own too, which must not outlive the session.
	start_bg "trap '' TERM; sleep 301.$mark & echo s >started; sleep 300.$mark; sleep 302.$mark"
	[ "$(marked "sleep 30[01].$mark" | wc -l)" -eq 2 ] ||
	    fail "control: the command's processes are not seen"
	run_confine stop "$SID"
	assert_status "$RC" 0
	assert_file_has_content "$ERR" "^confine: session $SID ended\$"
	# Under bwrap, SIGTERM ends bwrap, and its sandbox with it
	# (signals.sh): nothing is left to kill after the grace.
	status=137 how='still running 5 s after SIGTERM, killed'
	if [ "$BACKEND" = bwrap ]; then
		status=143 how='ended within 5 s of SIGTERM'
	fi
	bg_wait
	assert_eq "$BG_RC" "$status" "confine's status"
	assert_eq "$(marked "sleep 30[012].$mark")" "" "what is left of the command"
	assert_file_has_content "$TEST_TMP/bg.err" "^confine: session $SID: stopped by 'confine stop': $how\$"
	assert_file_has_content "$SESSIONS/$SID/report" "^stopped: by 'confine stop'; $how\$"
	assert_file_has_content "$SESSIONS/$SID/changes.patch" '^\+\+\+ b/started$'
}

t_refusals() {
	ws_new
	run_confine -- sh -c 'echo one >one'
	assert_status "$RC" 0
	done_id=$(sessions)
	run_confine stop "$done_id"
	assert_status "$RC" 1
	assert_eq "$(cat "$ERR")" "confine: session $done_id is not running" "stop of an ended session"
	run_confine stop 20250101-120000.000-00000000
	assert_status "$RC" 125
	assert_file_has_content "$ERR" "^confine: no session '20250101-120000.000-00000000'\$"
	run_confine stop ../x
	assert_status "$RC" 125
	assert_file_has_content "$ERR" "^confine: '../x' is not a session id\$"
	run_confine stop
	assert_status "$RC" 125
	assert_file_has_content "$ERR" '^confine: usage: confine stop SESSION$'
	assert_exists "$SESSIONS/$done_id/changes.patch"
}

t_drop_running() {
	mark=$(unique_num)
	start_bg "echo s >started; exec sleep 300.$mark"
	run_confine drop "$SID"
	assert_status "$RC" 125
	assert_file_has_content "$ERR" "^confine: session '$SID' is running\$"
	assert_file_has_content "$ERR" "^hint: 'confine stop $SID' ends it\$"
	assert_exists "$SESSIONS/$SID/meta"
	[ -n "$(marked "sleep 300.$mark")" ] || fail "the command is gone"
	run_confine stop "$SID"
	assert_status "$RC" 0
	bg_wait
	# Control: once it ended, the same drop removes it.
	run_confine drop "$SID"
	assert_status "$RC" 0
	assert_no_session
}

# fake_running ID: a session directory whose run lock a process holds (as
# confine holds it), that process's child sleeping: its pids in HOLDER
# and CHILD.
fake_running() {
	_d=$SESSIONS/$1
	mkdir -p "$_d"
	: >"$_d/run.lock"
	flock -x "$_d/run.lock" sleep "300.$(unique_num)" \
	    </dev/null >/dev/null 2>&1 &
	HOLDER=$!
	track_pid "$HOLDER"
	wait_for 30 sh -c "! flock -n '$_d/run.lock' true" ||
	    fail "the run lock was not taken"
	CHILD=$(pgrep -P "$HOLDER")
	[ -n "$CHILD" ] || fail "flock's child is not seen"
	track_pid "$CHILD"
}

# The start time of a process, as the record holds it (/proc/PID/stat's
# field 22; the fields after the command's name, which ends at the last
# ')').
start_time() {
	sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f20
}

t_stale_record() {
	command -v flock >/dev/null || skip_case "flock (util-linux) is not installed"
	id=20250101-120000.000-5f2ac9e1
	fake_running "$id"
	# Control: a record that names the lock's holder as it is, its child
	# as the sandbox's first process: memory and tasks are read.
	printf 'supervisor_pid=%s\nsupervisor_start=%s\nsandbox_pid=%s\n' \
	    "$HOLDER" "$(start_time "$HOLDER")" "$CHILD" >"$SESSIONS/$id/running"
	RUN_CWD=$TEST_TMP run_confine ls --all
	assert_file_has_content "$OUT" "^$id +[0-9]+[smhd] +- +[0-9.]+[BKMG] +running +[0-9.]+[KMG] +1 +\\? +\$"
	# The same pid with another start time: a reused pid, not trusted.
	printf 'supervisor_pid=%s\nsupervisor_start=1\nsandbox_pid=%s\n' \
	    "$HOLDER" "$CHILD" >"$SESSIONS/$id/running"
	RUN_CWD=$TEST_TMP run_confine ls --all
	assert_file_has_content "$OUT" "^$id +[0-9]+[smhd] +- +[0-9.]+[BKMG] +running +\\? +\\? +\\? +\$"
	# A sandbox pid that is not the supervisor's child: not counted.
	printf 'supervisor_pid=%s\nsupervisor_start=%s\nsandbox_pid=%s\n' \
	    "$HOLDER" "$(start_time "$HOLDER")" "$$" >"$SESSIONS/$id/running"
	RUN_CWD=$TEST_TMP run_confine ls --all
	assert_file_has_content "$OUT" "^$id +[0-9]+[smhd] +- +[0-9.]+[BKMG] +running +\\? +\\? +\\? +\$"
	# Its lock let go (its confine was killed): not running, whatever the
	# record says; stop refuses it.
	kill "$CHILD" "$HOLDER"
	wait "$HOLDER" 2>/dev/null || :
	wait_for 30 flock -n "$SESSIONS/$id/run.lock" true ||
	    fail "the run lock is still held"
	RUN_CWD=$TEST_TMP run_confine ls --all
	assert_file_has_content "$OUT" "^$id +[0-9]+[smhd] +- +[0-9.]+[BKMG] +no metadata +\\? +\$"
	RUN_CWD=$TEST_TMP run_confine stop "$id"
	assert_status "$RC" 1
	assert_file_has_content "$ERR" "^confine: session $id is not running\$"
}

# confine killed (SIGKILL): its record is left, stale; the session reads
# as a killed one does, and stop refuses it.
t_killed() {
	mark=$(unique_num)
	start_bg "echo s >started; exec sleep 300.$mark"
	kill -9 "$BG"
	bg_wait
	wait_for 30 sh -c "! pgrep -f '^sleep 300.$mark' >/dev/null" ||
	    fail "the command outlived confine's SIGKILL"
	assert_exists "$SESSIONS/$SID/running"
	run_confine ls
	assert_file_has_content "$OUT" "^$SID +[0-9]+s +- +[0-9.]+[BKMG] +not exported +sh -c"
	run_confine stop "$SID"
	assert_status "$RC" 1
	assert_eq "$(cat "$ERR")" "confine: session $SID is not running" "stop"
}

# Another user's confine: its kill(2) is refused, and stop says so.
t_other_user() {
	[ "$(id -u)" -ne 0 ] || skip_case "as root every process may be signalled"
	command -v flock >/dev/null || skip_case "flock (util-linux) is not installed"
	[ "$(stat -c %u /proc/1)" -ne "$(id -u)" ] ||
	    skip_case "pid 1 is this user's own"
	id=20250101-120000.000-0badc0de
	fake_running "$id"
	# pid 1 stands for root's confine: never signalled, EPERM.
	printf 'supervisor_pid=1\nsupervisor_start=%s\n' "$(start_time 1)" \
	    >"$SESSIONS/$id/running"
	RUN_CWD=$TEST_TMP run_confine stop "$id"
	assert_status "$RC" 125
	assert_file_has_content "$ERR" "^confine: session $id: not allowed to signal its confine \\(pid 1\\)\$"
	assert_file_has_content "$ERR" '^hint: only its own user \(or root\) can stop it$'
	kill "$CHILD" "$HOLDER"
}

# threads CGROUP: the threads of the cgroup's processes.
threads() {
	_n=0
	for _pid in $(cat "$1/cgroup.procs"); do
		_n=$((_n + $(awk '/^Threads:/ { print $2 }' "/proc/$_pid/status")))
	done
	echo "$_n"
}

# A session in a cgroup of its own (the limits' engine made one): its
# record names it, ls counts its processes, and stop, past the grace,
# leaves nothing in it.
t_cgroup() {
	not_on bwrap "SIGTERM ends bwrap and its sandbox at once: the grace never runs out"
	mark=$(unique_num)
	start_bg "trap '' TERM; echo s >started; sleep 300.$mark; sleep 301.$mark"
	cg=$(sed -n 's/^cgroup=//p' "$SESSIONS/$SID/running")
	[ -n "$cg" ] || skip_case "no cgroup for the sandbox here: $(sed -n 's/^engine_line=//p' "$SESSIONS/$SID/limits")"
	assert_eq "$cg" "$(sed -n 's/^cgroup=//p' "$SESSIONS/$SID/limits")" "the record's cgroup"
	before=$(threads "$cg")
	run_confine ls
	assert_file_has_content "$OUT" "^$SID +[0-9]+s +- +[0-9.]+[BKMG] +running +[0-9.]+[KMG] +$before +sh -c"
	# One more process in the cgroup (as the command's own fork would
	# be): counted, and gone after the stop.
	[ -w "$cg/cgroup.procs" ] || skip_case "the sandbox's cgroup is not ours to add to"
	sleep "303.$mark" </dev/null >/dev/null 2>&1 &
	decoy=$!
	track_pid "$decoy"
	echo "$decoy" >"$cg/cgroup.procs"
	run_confine ls
	assert_file_has_content "$OUT" "^$SID +[0-9]+s +- +[0-9.]+[BKMG] +running +[0-9.]+[KMG] +$((before + 1)) +sh -c"
	run_confine stop "$SID"
	assert_status "$RC" 0
	bg_wait
	assert_eq "$BG_RC" 137 "confine's status: killed"
	wait "$decoy" 2>/dev/null || :
	kill -0 "$decoy" 2>/dev/null && fail "a process of the cgroup outlived the stop"
	assert_eq "$(marked "sleep 30[013].$mark")" "" "what is left"
	assert_file_has_content "$SESSIONS/$SID/stopped" '^killed=1$'
}

tcase "ls: a running session with its memory and tasks" t_ls_running
tcase "ls: a command named ') 7 7 7' is counted right" t_ls_comm
tcase "stop: SIGTERM ends it; exported, kept, said" t_stop_ends
tcase "stop: a command that ignores SIGTERM is killed, all of it" t_stop_kills
tcase "stop: refused when not running, unknown, malformed" t_refusals
tcase "drop: a running session is refused; stop, then drop" t_drop_running
tcase "a record whose confine is gone or not its own is not trusted" t_stale_record
tcase "a killed confine's record is stale: not running, not stopped" t_killed
tcase "stop: another user's session is refused (EPERM), said" t_other_user
tcase "a recorded cgroup: ls counts it, stop kills all of it" t_cgroup
tap_done
