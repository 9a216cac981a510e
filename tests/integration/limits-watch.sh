#!/bin/sh
# SPDX-License-Identifier: ISC
# limits-watch.sh - the supervisor's watch of memory and tasks, where no
# cgroup enforces them (the kernel engine: no systemd, no delegated
# cgroup with controllers, as on this machine's unprivileged user).  A
# memory hog past --memory and a fork bomb past --tasks are stopped
# (137), the line says so on stderr and in the session's report, and
# nothing of the sandbox is left.  Each has a positive control: without
# the limit the same command takes what it asked for.
#
# The hog and the bomb go past the limit, then hold (the watch is
# sampled: one that ended first would race it); the test waits for
# confine to end, not for a time.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
require_userns
plan 2

PYTHON=/usr/bin/python3

# The hog: $1 MiB, 1 MiB at a time, each page touched; then "allocated
# N", then, when $2 is a marker, a sleep named after it, waited for
# (the memory held meanwhile).
HOG='
import subprocess, sys
held = []
for i in range(int(sys.argv[1])):
    held.append(bytearray(1 << 20))
print("allocated", len(held), flush=True)
if sys.argv[2]:
    subprocess.call(["sleep", sys.argv[2]])
'

# The bomb, with a bound of its own: $1 processes (sleeps named after $2),
# then "spawned N"; with $3, it waits for them.
BOMB='
	i=0
	while [ "$i" -lt "$1" ]; do
		sleep "$2" &
		i=$((i + 1))
	done
	echo "spawned $i"
	[ -z "$3" ] || wait'

assert_nothing_left() {
	! pgrep -f "sleep $1" >/dev/null ||
	    fail "a process of the session outlived it (sleep $1)"
}

mem_available() {
	awk '/^MemAvailable:/ { printf "%d MiB\n", $2 / 1024 }' /proc/meminfo
}

t_memory() {
	[ -x "$PYTHON" ] || skip_case "no $PYTHON for the memory hog"
	ws_new
	if bwrap_setuid; then
		# Its tmpfs cannot be bounded: an asked --memory needs a memory
		# controller, and the watch alone is refused.
		run_confine --memory 64M -- true
		if [ "$RC" -eq 125 ]; then
			assert_file_has_content "$ERR" '^confine: --memory 64M: a setuid bwrap cannot bound its tmpfs'
			skip_case "a setuid bwrap with no memory controller: --memory is refused (checked)"
		fi
	fi
	mark=1000.$(unique_num)
	# Control: with no limit the hog takes its 256 MiB.
	run_confine --memory none -- "$PYTHON" -c "$HOG" 256 ""
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^allocated 256$'
	before=$(mem_available)
	run_confine --memory 64M -- "$PYTHON" -c "$HOG" 256 "$mark"
	assert_status "$RC" 137
	assert_file_has_content "$ERR" '^confine: memory limit 64 MiB reached \(watched by the supervisor\): the command was stopped$'
	assert_nothing_left "$mark"
	sid=$(sessions)
	[ -n "$sid" ] || fail "the session was not kept"
	assert_file_has_content "$SESSIONS/$sid/report" '^  memory limit 64 MiB reached \(watched by the supervisor\)'
	after=$(mem_available)
	diag "the host's available memory: $before before the hog, $after after"
	assert_ws_unchanged
}

t_tasks() {
	ws_new
	mark=1000.$(unique_num)
	# Control: with no limit the bomb makes its 100 processes.
	run_confine --tasks none -- sh -c "$BOMB" sh 100 "$mark" ""
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^spawned 100$'
	assert_nothing_left "$mark"
	run_confine --tasks 64 -- sh -c "$BOMB" sh 100 "$mark" wait
	if [ "$BACKEND" != landlock ] && [ "$RC" -ne 137 ]; then
		# Bounded before the watch: RLIMIT_NPROC counts the tasks of
		# the sandbox's own user namespace (native, bwrap).
		assert_not_file_has_content "$OUT" '^spawned 100$'
	else
		assert_status "$RC" 137
		assert_file_has_content "$ERR" '^confine: task limit 64 reached \(watched\): the command was stopped$'
		sid=$(sessions)
		[ -n "$sid" ] || fail "the session was not kept"
		assert_file_has_content "$SESSIONS/$sid/report" '^  task limit 64 reached \(watched\)'
	fi
	assert_nothing_left "$mark"
	assert_ws_unchanged
}

tcase "the watch stops a memory hog at --memory" t_memory
tcase "the watch stops a fork bomb at --tasks" t_tasks
tap_done
