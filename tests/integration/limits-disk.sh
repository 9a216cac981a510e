#!/bin/sh
# SPDX-License-Identifier: ISC
# limits-disk.sh - the disk budget (--disk).  Without a project quota the
# supervisor watches: a writer past the budget is stopped (137), the line
# says so on stderr and in the report, the session is kept and exported,
# and its space comes back with "confine drop".  The reserve: on a small
# filesystem the writer is stopped before the filesystem fills, whatever
# the budget.  With a project quota (root, XFS mounted with prjquota) the
# writer gets ENOSPC at the budget and keeps running, confine says the
# budget was reached, the export works, and drop gives the space back.
#
# The writers write past the limit, then hold (a sleep with a marker):
# the watch is sampled, so a writer that ended first would race it; one
# that holds is stopped whenever the watch looks, and the test waits for
# that, not for a time.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
require_userns
plan 6

MOUNTS=$TEST_TMP/.mounts
: >"$MOUNTS"
unmount_all() {
	while read -r _m; do
		umount "$_m" 2>/dev/null || umount -l "$_m" 2>/dev/null
	done <"$MOUNTS"
}
LIB_CLEANUP_HOOK=unmount_all

MiB=1048576

# The writer: $1 MiB into big in the workspace, 1 MiB at a time, then
# "written", then, when $2 is a marker, a sleep named after it.  A write
# refused prints the error and ends the writing, not the command.
WRITER='
	i=0
	while [ "$i" -lt "$1" ]; do
		head -c 1048576 /dev/zero >>big || { echo "write refused"; break; }
		i=$((i + 1))
	done
	echo "written $i"
	[ -z "$2" ] || exec sleep "$2"'

# free_bytes DIR: the free space of DIR's filesystem, in bytes.
free_bytes() {
	df -B1 --output=avail "$1" | tail -n 1 | tr -d ' '
}

# The session store and the workspace on a new filesystem at $1 (made
# by the caller): XDG_STATE_HOME, SESSIONS and WS there.
store_on() {
	XDG_STATE_HOME=$1/state
	SESSIONS=$XDG_STATE_HOME/confine/sessions
	mkdir -p "$XDG_STATE_HOME"
	ws_new "$1"
}

assert_nothing_left() {
	! pgrep -f "^sleep $1\$" >/dev/null ||
	    fail "a process of the session outlived it (sleep $1)"
}

t_watch() {
	ws_new
	mark=1000.$(unique_num)
	# Control: with no budget the writer writes all of it.
	run_confine --disk none -- sh -c "$WRITER" sh 96 ""
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^written 96$'
	for s in $(sessions); do run_confine drop "$s"; done
	run_confine --disk 64M -- sh -c "$WRITER" sh 96 "$mark"
	if grep -q 'writes refused with ENOSPC' "$ERR"; then
		skip_case "the test directory's filesystem has project quotas: the quota, not the watch, took the budget"
	fi
	assert_status "$RC" 137
	assert_file_has_content "$ERR" '^confine: disk budget 64 MiB reached \(watched, no project quota here\): the command was stopped$'
	assert_nothing_left "$mark"
	sid=$(sessions)
	[ -n "$sid" ] || fail "the session was not kept"
	assert_file_has_content "$SESSIONS/$sid/report" '^  disk budget 64 MiB reached \(watched, no project quota here\): the command was stopped$'
	assert_file_has_content "$SESSIONS/$sid/report" 'big'
	size=$(stat -c %s "$SESSIONS/$sid/upper/big")
	[ "$size" -ge $((64 * MiB)) ] ||
	    fail "stopped at $size bytes, before the budget"
	assert_ws_unchanged
	run_confine drop "$sid"
	assert_status "$RC" 0
	# What the session took is given back: nothing of it is left in the
	# store (the filesystem's free space is not a measure here: other
	# programs write on it at the same time).
	[ ! -e "$SESSIONS/$sid" ] || fail "the session is still there after drop"
	used=$(du -sk "$XDG_STATE_HOME/confine" | cut -f 1)
	[ "$used" -lt $((4 * 1024)) ] ||
	    fail "the store still holds $used KiB after drop"
}

# The last run's burst past a 64 MiB budget was said: "reached" when the
# watch looked during it (the command killed, or just ended as the watch
# stopped it: a race the watch cannot tell from outside), else "passed";
# in the kept session's report too.
assert_burst_said() {
	if grep -q 'writes refused with ENOSPC' "$ERR"; then
		skip_case "the test directory's filesystem has project quotas: the quota, not the watch, took the budget"
	fi
	if grep -q 'reached (watched' "$ERR"; then
		[ "$RC" -eq 137 ] || [ "$RC" -eq 0 ] ||
		    fail "exit status $RC, expected 137 (or 0)"
		assert_file_has_content "$ERR" '^confine: disk budget 64 MiB reached \(watched, no project quota here\): the command was stopped$'
	else
		assert_status "$RC" 0
		assert_file_has_content "$ERR" '^confine: disk budget 64 MiB passed \(watched, no project quota here\): the command ended before the watch could stop it$'
	fi
	sid=$(sessions)
	[ -n "$sid" ] || fail "no session kept"
	assert_file_has_content "$SESSIONS/$sid/report" '^  disk budget 64 MiB (passed|reached)'
}

# A burst that ends before the watch looks: said all the same.
t_burst() {
	ws_new
	run_confine --disk 64M -- sh -c 'head -c 100663296 /dev/zero >big'
	assert_burst_said
}

# A burst beside a workspace left as it was (landlock: into the session's
# home, on the disk; the copy is not walked again at the end, being
# unchanged): said all the same.
t_burst_home() {
	[ "$BACKEND" = landlock ] ||
	    skip_case "the $BACKEND backend's home is a tmpfs, bounded by memory, not the disk budget"
	ws_new
	run_confine --disk 64M -- sh -c 'head -c 100663296 /dev/zero >"$HOME/big"'
	assert_burst_said
	assert_ws_unchanged
}

# The same burst while another program frees more space than the burst
# takes on the same filesystem: the free space never falls, the burst is
# said all the same.
t_burst_hidden() {
	ws_new
	head -c $((160 * MiB)) /dev/zero >"$TEST_TMP/freed" || fail "cannot write 160 MiB"
	sync
	mkfifo "$TEST_TMP/go"
	exec 7<>"$TEST_TMP/go"
	(
		cd "$WS" || exit 1
		exec timeout -k 5 "$CONFINE_TIMEOUT" "$CONFINE" --disk 64M -- \
		    sh -c 'echo started; read x; head -c 100663296 /dev/zero >big' \
		    <&7 >"$OUT" 2>"$ERR"
	) &
	pid=$!
	track_pid "$pid"
	wait_for 30 grep -q '^started$' "$OUT" || {
		exec 7>&-
		fail "the command did not start"
	}
	before=$(free_bytes "$TEST_TMP")
	rm -f "$TEST_TMP/freed"
	echo go >&7
	RC=0
	wait "$pid" || RC=$?
	exec 7>&-
	drop_notice "$ERR"
	# Control: the free space did not fall by the burst (another
	# program wrote beside this one, else it says so).
	after=$(free_bytes "$TEST_TMP")
	[ "$after" -gt $((before - 64 * MiB)) ] ||
	    diag "the filesystem's free space fell by $(((before - after) / MiB)) MiB: other writers beside this test"
	assert_burst_said
}

t_reserve() {
	[ "$(id -u)" -eq 0 ] ||
	    skip_case "a small filesystem for the sessions needs root to mount (running as $(id -un))"
	d=$TEST_TMP/small
	mkdir -p "$d"
	mount -t tmpfs -o size=256M,mode=0755 tmpfs "$d" ||
	    skip_case "cannot mount a tmpfs here"
	echo "$d" >>"$MOUNTS"
	store_on "$d"
	mark=1000.$(unique_num)
	# What the writer writes: all but 6 MiB of what is free, past the
	# reserve (5% of 256 MiB: 12.8 MiB), short of a full filesystem.
	n=$(( ($(free_bytes "$d") - 6 * MiB) / MiB ))
	# Control: with no budget the filesystem takes it all.
	run_confine --disk none -- sh -c "$WRITER" sh "$n" ""
	if [ "$RC" -eq 125 ]; then
		skip_case "overlayfs cannot keep its upper layer on tmpfs here (user xattrs on tmpfs: Linux 6.6)"
	fi
	assert_status "$RC" 0
	assert_file_has_content "$OUT" "^written $n\$"
	for s in $(sessions); do run_confine drop "$s"; done
	run_confine --disk 1G -- sh -c "$WRITER" sh "$n" "$mark"
	assert_status "$RC" 137
	assert_file_has_content "$ERR" '^confine: disk reserve reached: 12.8 MiB stays free on the session store.s filesystem \(watched\): the command was stopped$'
	assert_nothing_left "$mark"
	sid=$(sessions)
	[ -n "$sid" ] || fail "the session was not kept"
	assert_file_has_content "$SESSIONS/$sid/report" '^  disk reserve reached'
}

t_quota() {
	[ "$(id -u)" -eq 0 ] ||
	    skip_case "a project quota needs root (running as $(id -un))"
	command -v mkfs.xfs >/dev/null ||
	    skip_case "mkfs.xfs is not installed (xfsprogs)"
	img=$TEST_TMP/xfs.img
	d=$TEST_TMP/xfs
	mkdir -p "$d"
	truncate -s 512M "$img" && mkfs.xfs -q "$img" ||
	    fail "mkfs.xfs failed"
	mount -o loop,prjquota "$img" "$d" 2>"$TEST_TMP/mount.err" ||
	    skip_case "XFS with project quotas cannot be mounted here (the kernel's CONFIG_XFS_QUOTA?): $(head -n 1 "$TEST_TMP/mount.err")"
	echo "$d" >>"$MOUNTS"
	store_on "$d"
	before=$(free_bytes "$d")
	run_confine --disk 64M -- sh -c "$WRITER" sh 96 ""
	assert_status "$RC" 0
	# It kept running after the refusal: it said so and ended itself.
	assert_file_has_content "$OUT" '^write refused$'
	assert_file_has_content "$ERR" 'No space left on device'
	assert_file_has_content "$ERR" '^confine: disk budget 64 MiB reached: writes refused with ENOSPC$'
	sid=$(sessions)
	assert_file_has_content "$SESSIONS/$sid/report" '^  disk budget 64 MiB reached: writes refused with ENOSPC$'
	assert_file_has_content "$SESSIONS/$sid/report" 'big'
	size=$(stat -c %s "$SESSIONS/$sid/upper/big")
	[ "$size" -le $((64 * MiB)) ] && [ "$size" -ge $((60 * MiB)) ] ||
	    fail "big holds $size bytes: not truncated at the budget"
	# The limit is lifted: the session's directory takes writes again.
	head -c $((8 * MiB)) /dev/zero >"$SESSIONS/$sid/upper/more" ||
	    fail "the quota was not lifted"
	assert_ws_unchanged
	run_confine drop "$sid"
	assert_status "$RC" 0
	after=$(free_bytes "$d")
	[ "$after" -ge $((before - MiB)) ] ||
	    fail "free space not back after drop: $before before, $after after"
}

tcase "the watch stops a writer at the disk budget" t_watch
tcase "a burst past the disk budget is said" t_burst
tcase "a burst beside an untouched workspace copy is said" t_burst_home
tcase "a burst hidden by space freed beside it is said" t_burst_hidden
tcase "the reserve stops a writer before the filesystem fills" t_reserve
tcase "a project quota refuses writes at the budget; the command runs on" t_quota
tap_done
