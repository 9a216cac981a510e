#!/bin/sh
# SPDX-License-Identifier: ISC
# export-faults.sh - the export at exit survives what can go wrong: the
# command killed, confine itself killed (the next "confine show" exports),
# a full disk (no half-written output, the layers kept, the command's
# status unchanged), files the command made unreadable, many sessions at
# once on one repository, and a change of many files (EXPORT_FAULTS_FILES,
# default 20000: the mechanism is the same at any count; bench/workspace
# measures the time at 100000).
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
require_userns
plan 9

ID_ERE='[0-9]{8}-[0-9]{6}\.[0-9]{3}-[0-9a-f]{8}'
NFILES=${EXPORT_FAULTS_FILES:-20000}
NDIRS=$(( (NFILES + 999) / 1000 ))
NFILES=$((NDIRS * 1000))

# The tmpfs mounts this script made, unmounted at exit.
MOUNTS=$TEST_TMP/.mounts
: >"$MOUNTS"
unmount_all() {
	while read -r _m; do
		umount "$_m" 2>/dev/null || umount -l "$_m" 2>/dev/null
	done <"$MOUNTS"
}
LIB_CLEANUP_HOOK=unmount_all

# The session named by confine's summary on stderr, in SID and SDIR.
summary_session() {
	assert_file_has_content "$ERR" "^confine: session $ID_ERE: [0-9]+ files? changed\$"
	SID=$(sed -n 's/^confine: session \([^:]*\): .*/\1/p' "$ERR")
	SDIR=$SESSIONS/$SID
}

assert_no_tmp() {
	_t=$(find "$1" -maxdepth 1 -name '*.tmp')
	[ -z "$_t" ] || fail "temporary files left: $_t"
}

t_command_killed() {
	ws_new
	run_confine -- sh -c 'echo x >f; kill -9 $$'
	assert_status "$RC" 137
	summary_session
	assert_file_has_content "$SDIR/changes.patch" '^\+\+\+ b/f$'
	assert_file_has_content "$SDIR/changes.patch" '^\+x$'
	assert_no_tmp "$SDIR"
	assert_ws_unchanged
}

# start_writer: in a new workspace, confine running a command that wrote
# f and sleeps ("sleep 30.$n"); confine's pid in pid.
start_writer() {
	ws_new
	n=$(unique_num)
	(
		cd "$WS" || exit 1
		exec "$CONFINE" -- sh -c "echo x >f; exec sleep 30.$n" \
		    </dev/null >"$OUT" 2>"$ERR"
	) &
	pid=$!
	track_pid "$pid"
	wait_for 10 sh -c "ls '$SESSIONS'/*/upper/f" >/dev/null 2>&1 ||
	    fail "the command did not write f"
	wait_for 5 pgrep -f "^sleep 30\\.$n\$" >/dev/null ||
	    fail "control: pgrep does not see the command"
}

t_confine_killed() {
	start_writer
	kill -9 "$pid"
	(sleep 10; kill -9 "$pid") >/dev/null 2>&1 &
	wd=$!
	RC=0
	{ wait "$pid"; } 2>/dev/null || RC=$?
	kill "$wd" 2>/dev/null || fail "confine still running 10 s after SIGKILL"
	assert_status "$RC" 137
	wait_for 5 sh -c "! pgrep -f '^sleep 30\\.$n\$'" >/dev/null ||
	    fail "the command outlived confine"
	SID=$(sessions)
	SDIR=$SESSIONS/$SID
	assert_eq "$(cat "$SDIR/upper/f")" x "upper/f"
	assert_not_exists "$SDIR/changes.patch"
	assert_not_exists "$SDIR/report"
	run_confine ls
	assert_lines "$OUT" 1
	assert_file_has_content "$OUT" "^$SID .* not exported "
	run_confine show "$SID"
	assert_status "$RC" 0
	assert_exists "$SDIR/changes.patch"
	assert_exists "$SDIR/report"
	assert_no_tmp "$SDIR"
	cmp -s "$OUT" "$SDIR/report" || fail "show did not print the report"
	assert_file_has_content "$OUT" "^session $SID\$"
	assert_file_has_content "$OUT" '^changes: 1 added, 0 modified, 0 deleted, 0 renamed$'
	assert_file_has_content "$SDIR/changes.patch" '^\+\+\+ b/f$'
	run_confine ls
	assert_file_has_content "$OUT" "^$SID .* exported "
	# What the crash left (overlayfs's work directory) does not stop drop.
	run_confine drop "$SID"
	assert_status "$RC" 0
	assert_no_session
	assert_ws_unchanged
}

# small_state SIZE: the sessions on a new tmpfs of SIZE (root only).
small_state() {
	[ "$(id -u)" -eq 0 ] ||
	    skip_case "a size-limited tmpfs for the sessions needs root to mount (running as $(id -un))"
	XDG_STATE_HOME=$TEST_TMP/small.$((TAP_N + 1))
	SESSIONS=$XDG_STATE_HOME/confine/sessions
	mkdir -p "$XDG_STATE_HOME"
	mount -t tmpfs -o "size=$1,mode=0700" tmpfs "$XDG_STATE_HOME" ||
	    skip_case "cannot mount a tmpfs here"
	echo "$XDG_STATE_HOME" >>"$MOUNTS"
	# Control: a session on it works (overlayfs on tmpfs: Linux 6.6).
	run_confine -q -- sh -c 'echo x >small'
	if [ "$RC" -eq 125 ]; then
		skip_case "overlayfs cannot keep its upper layer on tmpfs here (user xattrs on tmpfs: Linux 6.6)"
	fi
	assert_status "$RC" 0
	for _s in $(sessions); do
		rm -rf "${SESSIONS:?}/$_s"
	done
}

# The session directory removed while the command runs: the warning says
# the changes are lost, not that "confine show" exports them.
t_session_removed() {
	start_writer
	SID=$(sessions)
	chmod -R u+rwx "${SESSIONS:?}/$SID" 2>/dev/null
	rm -rf "${SESSIONS:?}/$SID" || fail "cannot remove the session"
	pkill -f "^sleep 30\\.$n\$"
	RC=0
	wait "$pid" || RC=$?
	drop_notice "$ERR"
	assert_status "$RC" 143
	assert_file_has_content "$ERR" "^confine: warning: session $SID: the export failed, and .* is gone \\(removed during the run\\?\\): the command's changes are lost"
	assert_not_file_has_content "$ERR" 'exports them again'
	assert_ws_unchanged
}

# One export of a session at a time: with the session's export lock held
# (as by its own export still running), "confine show" waits, and exports
# once the lock is free.
t_export_lock() {
	command -v flock >/dev/null || skip_case "no flock(1) to hold the lock"
	ws_new
	run_confine -- sh -c 'echo x >f'
	assert_status "$RC" 0
	summary_session
	rm "$SDIR/changes.patch" "$SDIR/report"
	exec 9>"$SDIR/export.lock"
	flock -x 9 || fail "control: cannot take the export lock"
	(cd "$WS" && exec "$CONFINE" show "$SID") </dev/null \
	    >"$TEST_TMP/show.out" 2>"$TEST_TMP/show.err" &
	pid=$!
	track_pid "$pid"
	wait_for 10 grep -q "^confine: session $SID: another export of it is running; waiting for it$" \
	    "$TEST_TMP/show.err" || { exec 9>&-; fail "show did not wait: $(cat "$TEST_TMP/show.err")"; }
	[ ! -e "$SDIR/changes.patch" ] && [ ! -e "$SDIR/changes.patch.tmp" ] ||
	    { exec 9>&-; fail "show exported while the lock was held"; }
	exec 9>&-
	RC=0
	wait "$pid" || RC=$?
	assert_status "$RC" 0
	assert_file_has_content "$SDIR/changes.patch" '^\+\+\+ b/f$'
	assert_no_tmp "$SDIR"
	assert_ws_unchanged
}

# About 3 MB of random base64 in a 4 MB tmpfs: upper fits, the patch not.
# --disk none: the default budget (a quarter of the free space, 1 MiB
# here) would have the watch stop the command at a moment that depends on
# the machine's load; these cases are about the export at a full disk.
BIG='head -c 2300000 /dev/urandom | base64 >big && sha256sum <big && exit 3'
# The export's own disk-full path, not the disk budget: the default budget
# on a 4 MiB store is under the file, and the supervisor's watch would stop
# the command first whenever it looks before the command ends.

t_disk_full() {
	ws_new
	small_state 4m
	run_confine --disk none -- sh -c "$BIG"
	assert_status "$RC" 3
	SID=$(sessions)
	SDIR=$SESSIONS/$SID
	assert_file_has_content "$ERR" "^confine: warning: session $SID: the export failed; the changes are kept in $SDIR/upper"
	assert_not_exists "$SDIR/changes.patch"
	assert_not_exists "$SDIR/report"
	assert_no_tmp "$SDIR"
	assert_eq "$(sha256sum <"$SDIR/upper/big")" "$(cat "$OUT")" "upper/big"
	run_confine ls
	assert_file_has_content "$OUT" "^$SID .* not exported "
	# Once there is room, show exports it.
	mount -o remount,size=32m "$XDG_STATE_HOME" || fail "remount"
	run_confine show "$SID"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^changes: 1 added, 0 modified, 0 deleted, 0 renamed$'
	assert_file_has_content "$SDIR/changes.patch" '^\+\+\+ b/big$'
	assert_no_tmp "$SDIR"
	assert_ws_unchanged
}

t_disk_full_says_why() {
	ws_new
	small_state 4m
	run_confine --disk none -- sh -c "$BIG"
	assert_status "$RC" 3
	assert_file_has_content "$ERR" '^confine: warning: export: .*No space left on device'
	assert_not_file_has_content "$ERR" 'unknown libgit2 error'
	assert_not_file_has_content "$ERR" ': Success$'
}

# The command may leave files and directories it cannot read itself.
t_unreadable() {
	ws_new
	# wx and nomode are made without a mode's change, by the umask;
	# locked and README by chmod.
	run_confine -- sh -c '
		mkdir locked && echo x >locked/f && chmod 000 locked; echo locked $?
		(umask 0477 && mkdir wx) && echo y >wx/g
		(umask 0777 && echo z >nomode)
		chmod 000 README; echo README $?
		stat -c "%a %n" wx nomode'
	assert_status "$RC" 0
	assert_eq "$(cat "$OUT")" "locked 0
README 0
300 wx
0 nomode" "the chmods' statuses, the modes"
	summary_session
	for f in locked/f wx/g nomode; do
		assert_file_has_content "$SDIR/changes.patch" "^\\+\\+\\+ b/$f\$"
	done
	assert_ws_unchanged
}

t_parallel() {
	ws_new
	i=1
	while [ "$i" -le 20 ]; do
		(
			cd "$WS" || exit 1
			rc=0
			timeout -k 5 "$CONFINE_TIMEOUT" "$CONFINE" -- \
			    sh -c "echo $i >file-$i" </dev/null \
			    >"$TEST_TMP/par.$i.out" 2>"$TEST_TMP/par.$i.err" || rc=$?
			echo "$rc" >"$TEST_TMP/par.$i.rc"
		) &
		i=$((i + 1))
	done
	wait
	i=1
	while [ "$i" -le 20 ]; do
		ERR=$TEST_TMP/par.$i.err
		assert_eq "$(cat "$TEST_TMP/par.$i.rc")" 0 "session $i's status"
		summary_session
		assert_eq "$(grep '^diff --git' "$SDIR/changes.patch")" \
		    "diff --git a/file-$i b/file-$i" "session $i's patch"
		assert_file_has_content "$SDIR/changes.patch" "^\\+$i\$"
		assert_no_tmp "$SDIR"
		echo "$SID" >>"$TEST_TMP/ids"
		i=$((i + 1))
	done
	assert_eq "$(sort -u "$TEST_TMP/ids" | wc -l)" 20 "distinct sessions"
	assert_eq "$(sessions | wc -l)" 20 "session directories"
	run_confine ls
	assert_eq "$(wc -l <"$OUT")" 20 "confine ls"
	assert_ws_unchanged
}

MANY="
	ndirs=$NDIRS"'
	date +%s.%N
	if command -v python3 >/dev/null; then
		ndirs=$ndirs python3 -c "
import os
for d in range(int(os.environ[\"ndirs\"])):
    os.mkdir(\"m%02d\" % d)
    for i in range(1000):
        with open(\"m%02d/f%03d\" % (d, i), \"w\") as f:
            f.write(\"%d %d\\n\" % (d, i))
"
	else
		d=0
		while [ $d -lt $ndirs ]; do
			mkdir m$d
			i=0
			while [ $i -lt 1000 ]; do
				echo "$d $i" >m$d/f$i
				i=$((i + 1))
			done
			d=$((d + 1))
		done
	fi
	date +%s.%N'

# timed_confine ARG...: run_confine through /usr/bin/time when there is
# one; seconds in SECS, peak RSS (kB) in RSS.
timed_confine() {
	rm -f "$TEST_TMP/time"
	_start=$(date +%s.%N)
	RC=0
	(
		cd "$WS" || exit 1
		if [ -x /usr/bin/time ]; then
			set -- /usr/bin/time -o "$TEST_TMP/time" -f %M \
			    timeout -k 5 "$((CONFINE_TIMEOUT * 4))" "$CONFINE" "$@"
		else
			set -- timeout -k 5 "$((CONFINE_TIMEOUT * 4))" "$CONFINE" "$@"
		fi
		exec "$@" </dev/null >"$OUT" 2>"$ERR"
	) || RC=$?
	_end=$(date +%s.%N)
	SECS=$(awk "BEGIN { printf \"%.1f\", $_end - $_start }")
	RSS=$(tail -n 1 "$TEST_TMP/time" 2>/dev/null || true)
	[ "$RC" -ne 124 ] || diag "confine timed out after $((CONFINE_TIMEOUT * 4)) s"
}

t_many() {
	ws_new
	timed_confine -- sh -c "$MANY"
	assert_status "$RC" 0
	summary_session
	cmd=$(awk 'NR == 1 { s = $1 } NR == 2 { printf "%.1f", $1 - s }' "$OUT")
	diag "$NFILES new files, as $(id -un): the run took $SECS s (the command writing them: $cmd s)${RSS:+, peak RSS $RSS kB}; $(wc -l <"$ERR") lines on stderr"
	assert_eq "$(grep -c '^diff --git' "$SDIR/changes.patch")" "$NFILES" "files in the patch"
	assert_file_has_content "$SDIR/report" "^changes: $NFILES added, 0 modified, 0 deleted, 0 renamed\$"
	assert_no_tmp "$SDIR"
	# The export alone, again.
	rm "$SDIR/changes.patch" "$SDIR/report"
	timed_confine show "$SID"
	assert_status "$RC" 0
	diag "$NFILES new files, as $(id -un): the export alone (confine show) took $SECS s${RSS:+, peak RSS $RSS kB}"
	assert_eq "$(grep -c '^diff --git' "$SDIR/changes.patch")" "$NFILES" "files in the patch, again"
	assert_ws_unchanged
}

tcase "the command SIGKILLed: 137, and its changes are exported" t_command_killed
tcase "confine SIGKILLed: upper kept, no patch; show exports it" t_confine_killed
tcase "the session directory removed during the run: the warning says the changes are lost" t_session_removed
tcase "one export of a session at a time: show waits for the lock" t_export_lock
tcase "disk full during the export: no patch, no .tmp, upper kept, the command's status" t_disk_full
tcase "disk full during the export: the warning says why" t_disk_full_says_why
tcase "files and directories the command made unreadable are exported" t_unreadable
tcase "20 sessions at once on one repository: each patch holds its own file" t_parallel
tcase "$NFILES new files: all exported" t_many
tap_done
