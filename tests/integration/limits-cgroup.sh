#!/bin/sh
# SPDX-License-Identifier: ISC
# limits-cgroup.sh - the limits' cgroup engine without systemd's bus: the
# engine --dry-run and -v name, the command in a child of confine's own
# cgroup (where confine may write one, no systemd running the host) and
# that cgroup gone after, nothing of the command left (cgroup.kill), an
# asked --cpus refused where no cpu controller is given, and what a limit
# reached looks like (where the cgroup has the controller: on a cgroup v2
# host with controllers; the hybrid hierarchy here has none, and they say
# so).
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
. "$TESTS_SRCDIR/limits-lib.sh"
require_userns
plan 16

ENGINE=$(engine_without_bus)

t_dry_run() {
	ws_new
	(cd "$WS" && no_bus "$CONFINE" --dry-run -- true) >"$OUT" 2>"$ERR" ||
	    fail "--dry-run failed"
	assert_file_has_content "$OUT" "^limits engine: $ENGINE "
	assert_file_has_content "$OUT" '^  end: '
}

t_verbose() {
	ws_new
	run_confine_no_bus -v -- true
	assert_status "$RC" 0
	assert_file_has_content "$ERR" "^confine: limits: $ENGINE "
}

# run_confine without the bus's variables.
run_confine_no_bus() {
	_save=$CONFINE
	CONFINE=$TEST_TMP/no-bus
	printf '#!/bin/sh\nexec env -u DBUS_SESSION_BUS_ADDRESS -u XDG_RUNTIME_DIR "%s" "$@"\n' \
	    "$_save" >"$CONFINE"
	chmod 0755 "$CONFINE"
	run_confine "$@"
	CONFINE=$_save
}

# A child of confine's own cgroup: the command in it, confine out of it,
# and the cgroup gone when the session ends.
t_direct() {
	[ "$ENGINE" = cgroup ] ||
	    skip_case "confine's own cgroup (${CG_SELF:-none}) cannot be written here, or systemd runs the host: the kernel engine"
	ws_new
	bg_confine_no_bus -- sh -c 'echo x >made; echo made; exec sleep 1000'
	bg_wait_cgroup
	bg_wait_made
	case $BG_CGROUP in
	"$CG_SELF"/confine-*) ;;
	*) fail "the command's cgroup $BG_CGROUP is not a child of $CG_SELF" ;;
	esac
	[ "$(limits_get engine)" = cgroup ] || fail "engine: $(limits_get engine)"
	! grep -qx "$BG_PID" "$BG_CGROUP/cgroup.procs" ||
	    fail "confine itself is in the command's cgroup"
	bg_stop
	assert_status "$RC" 143
	[ ! -e "$BG_CGROUP" ] || fail "$BG_CGROUP is left"
	assert_file_has_content "$SESSIONS"/*/report "^limits: cgroup confine-"
}

# Under a filter that refuses clone3 (ENOSYS, as container runtimes'
# filters do): the sandbox's first process (native's pid 1, the process
# that becomes bwrap, landlock's keeper) is made with clone(2) or fork(2)
# and enters the cgroup before anything else; native's and bwrap's cgroup
# namespace is rooted there (landlock makes none: the command sees the
# path).
t_no_clone3() {
	[ "$ENGINE" = cgroup ] ||
	    skip_case "no cgroup of confine's own here: the kernel engine"
	ws_new
	mark=1000.$(unique_num)
	(
		cd "$WS" || exit 1
		exec env -u DBUS_SESSION_BUS_ADDRESS -u XDG_RUNTIME_DIR \
		    "$TESTS_BUILDDIR/helpers/no-userns" --clone3-only \
		    "$CONFINE" -- sh -c 'cat /proc/self/cgroup; exec sleep "$1"' \
		    sh "$mark" </dev/null >"$OUT" 2>"$ERR"
	) &
	BG_PID=$!
	bg_wait_cgroup
	case $BG_CGROUP in
	"$CG_SELF"/confine-*) ;;
	*) fail "the command's cgroup $BG_CGROUP is not a child of $CG_SELF" ;;
	esac
	wait_for 30 grep -q '^0::' "$OUT" || fail "the command said nothing: $(cat "$ERR")"
	pid=$(pgrep -f "^sleep $mark\$")
	[ -n "$pid" ] || fail "no command running"
	grep -qx "$pid" "$BG_CGROUP/cgroup.procs" ||
	    fail "the command is not in $BG_CGROUP ($(cat /proc/$pid/cgroup))"
	if [ "$BACKEND" = landlock ]; then
		assert_file_has_content "$OUT" "^0::${BG_CGROUP#"$CG_MOUNT"}\$"
	else
		assert_file_has_content "$OUT" '^0::/$'
	fi
	bg_stop
	assert_status "$RC" 143
	# Untouched: confine returned before its detached tear-down removed
	# the cgroup (confine(1), the session directory).
	wait_for 30 [ ! -e "$BG_CGROUP" ] || fail "$BG_CGROUP is left"
}

bg_confine_no_bus() {
	(
		cd "$WS" || exit 1
		exec env -u DBUS_SESSION_BUS_ADDRESS -u XDG_RUNTIME_DIR \
		    "$CONFINE" "$@" </dev/null >"$OUT" 2>"$ERR"
	) &
	BG_PID=$!
	track_pid "$BG_PID"
}

# A daemonised child of the command (its own session, its parent gone)
# does not outlive confine.
t_nothing_left() {
	ws_new
	word=$((200000 + $$ % 100000))
	# The control: outside, it outlives its shell.
	sh -c "setsid sh -c 'exec sleep $word' </dev/null >/dev/null 2>&1 &"
	wait_for 10 sh -c "[ \$(sh -c '. \"$TESTS_SRCDIR/limits-lib.sh\"; count_procs $word') -ge 1 ]" ||
	    fail "control: the daemonised sleep did not start"
	for p in /proc/[0-9]*; do
		[ "$({ tr '\0' ' ' <"$p/cmdline"; } 2>/dev/null)" = "sleep $word " ] &&
		    kill "${p#/proc/}"
	done
	wait_for 10 sh -c "[ \$(sh -c '. \"$TESTS_SRCDIR/limits-lib.sh\"; count_procs $word') -eq 0 ]" ||
	    fail "control: the sleep of the control is still there"
	run_confine_no_bus -- sh -c "setsid sh -c 'exec sleep $word' </dev/null >/dev/null 2>&1 & echo started"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^started$'
	assert_eq "$(count_procs "$word")" 0 "processes left"
}

# An asked limit the engine cannot apply: 125 before anything is made.
t_cpus_refused() {
	ws_new
	if engine_applies cpus --cpus 1; then
		skip_case "this host gives confine a cpu controller"
	fi
	run_confine_no_bus --cpus 1 -- sh -c 'echo ran >ran'
	assert_status "$RC" 125
	assert_file_has_content "$ERR" '^confine: --cpus 1: no cpu controller in the cgroup confine was given \(.*\); see confine doctor$'
	[ "$(wc -l <"$ERR")" -eq 1 ] || fail "more than one line: $(cat "$ERR")"
	# Refused by the policy, before a session or a cgroup is made.
	assert_no_session
	assert_ws_unchanged
}

# A memory hog: the OOM killer, the command's own status (137), the line.
t_memory() {
	ws_new
	engine_applies memory --memory 64M ||
	    skip_case "no memory controller in the cgroup confine is given here (memory.max cannot be set: $(grep '^memory:' "$(dry_run_out --memory 64M)"))"
	run_confine --memory 64M -- sh -c 'echo x >made; tail /dev/zero'
	assert_status "$RC" 137
	assert_file_has_content "$ERR" '^confine: memory limit 64 MiB reached: the command was killed by the OOM killer$'
	assert_file_has_content "$SESSIONS"/*/report '^  memory limit 64 MiB reached'
	assert_eq "$(limits_get reached)" "memory limit 64 MiB reached: the command was killed by the OOM killer" "the session's record"
}

dry_run_out() {
	(cd "$WS" && "$CONFINE" "$@" --dry-run -- true) 2>&1 |
	    sed 's/^  //' >"$TEST_TMP/dry"
	echo "$TEST_TMP/dry"
}

# A fork bomb, bounded: forks refused, counted.
t_tasks() {
	ws_new
	engine_applies tasks --tasks 32 ||
	    skip_case "no pids controller in the cgroup confine is given here (pids.max cannot be set: $(grep '^tasks:' "$(dry_run_out --tasks 32)"))"
	run_confine --tasks 32 -- sh -c 'echo x >made
	    i=0; while [ $i -lt 100 ]; do (sleep 3) & i=$((i + 1)); done 2>/dev/null
	    wait; exit 0'
	assert_status "$RC" 0
	assert_file_has_content "$ERR" '^confine: task limit 32 reached: [0-9]+ forks? refused$'
	assert_file_has_content "$SESSIONS"/*/report '^  task limit 32 reached'
}

# A spinner under a tenth of a CPU: throttled.
t_cpus() {
	ws_new
	engine_applies cpus --cpus 0.1 ||
	    skip_case "no cpu controller in the cgroup confine is given here (cpu.max cannot be set: $(grep '^cpus:' "$(dry_run_out --cpus 0.1)"))"
	run_confine --cpus 0.1 -- sh -c 'echo x >made
	    i=0; while [ $i -lt 200000 ]; do i=$((i + 1)); done'
	assert_status "$RC" 0
	assert_file_has_content "$ERR" '^confine: cpu limit 0.1 CPUs: throttled [0-9.]+ s$'
	assert_file_has_content "$SESSIONS"/*/report '^  cpu limit 0.1 CPUs: throttled'
}

# A bus that is not there: the systemd engine cannot be had, the run falls
# to the next engine and says so at -v; the defaults need no more.
t_bus_gone() {
	"$CONFINE" doctor 2>/dev/null | grep -q '^limits: built with systemd (sd-bus): yes' ||
	    skip_case "confine was built without systemd"
	ws_new
	(cd "$WS" && DBUS_SESSION_BUS_ADDRESS=unix:path=$TEST_TMP/no-bus \
	    "$CONFINE" --dry-run -- true) >"$OUT" 2>"$ERR" ||
	    fail "--dry-run failed"
	assert_file_has_content "$OUT" '^limits engine: systemd user manager '
	assert_file_has_content "$OUT" "^  if the scope cannot be made: $ENGINE "
	DBUS_SESSION_BUS_ADDRESS=unix:path=$TEST_TMP/no-bus
	export DBUS_SESSION_BUS_ADDRESS
	run_confine -v -- true
	assert_status "$RC" 0
	assert_file_has_content "$ERR" "^confine: limits: systemd engine: cannot reach the user's bus: .*; falling back to $ENGINE\$"
	assert_file_has_content "$ERR" "^confine: limits: $ENGINE "
}

# A confine killed (SIGKILL) cannot remove its cgroup: the next run does,
# once it is empty and its maker gone.
t_killed() {
	[ "$ENGINE" = cgroup ] ||
	    skip_case "no cgroup of confine's own here: the kernel engine"
	ws_new
	bg_confine_no_bus -- sh -c 'echo x >made; echo made; exec sleep 1000'
	bg_wait_cgroup
	bg_wait_made
	kill -9 "$BG_PID"
	{ wait "$BG_PID"; } 2>/dev/null || :
	[ -d "$BG_CGROUP" ] || fail "control: the killed confine's cgroup is gone already"
	# The next run kills what is left in it (the sandbox dies with
	# confine on its own too: tests/escape/procs.sh), and once it is
	# empty a run removes it.
	run_confine_no_bus -- true
	assert_status "$RC" 0
	wait_for 60 sh -c "! grep -q '^populated 1' '$BG_CGROUP/cgroup.events' 2>/dev/null" ||
	    fail "the killed confine's sandbox is still running after the next run"
	run_confine_no_bus -- true
	assert_status "$RC" 0
	[ ! -e "$BG_CGROUP" ] || fail "$BG_CGROUP is left after the next run"
}

# A cgroup a killed confine left with a process still in it: the next
# run kills what is in it (no supervisor watches it any more), and a run
# after removes it.  Made by hand here, marked as made by a process that
# is gone, in a parent of this case's own (every confine run sweeps its
# own cgroup's children: the other tests' runs must not take it first,
# and the control must see it left alone); confine runs in that parent.
t_orphan() {
	[ "$ENGINE" = cgroup ] ||
	    skip_case "no cgroup of confine's own here: the kernel engine"
	ws_new
	mark=1000.$(unique_num)
	ORPHAN_PARENT=$CG_SELF/test-$mark
	mkdir "$ORPHAN_PARENT" || fail "control: cannot make $ORPHAN_PARENT"
	cg=$ORPHAN_PARENT/confine-orphan-$mark
	mkdir "$cg" || fail "control: cannot make $cg"
	sh -c 'exit 0' &
	gone=$!
	wait "$gone"
	python3 -c 'import os, sys; os.setxattr(sys.argv[1], "user.confine.maker", ("%s 1" % sys.argv[2]).encode())' "$cg" "$gone" ||
	    fail "control: cannot mark $cg"
	sh -c 'echo $$ >"$1/cgroup.procs" && exec sleep "$2"' sh "$cg" "$mark" &
	wait_for 30 grep -q '^populated 1' "$cg/cgroup.events" ||
	    fail "control: nothing runs in $cg"
	# The control: left alone, it keeps running.
	sleep 0.2
	grep -q '^populated 1' "$cg/cgroup.events" || fail "control: it ended by itself"
	run_confine_in "$ORPHAN_PARENT" -- true
	assert_status "$RC" 0
	wait_for 60 grep -q '^populated 0' "$cg/cgroup.events" ||
	    fail "what the killed confine left still runs after the next run"
	run_confine_in "$ORPHAN_PARENT" -- true
	assert_status "$RC" 0
	[ ! -e "$cg" ] || fail "$cg is left after a second run"
	# An untouched session's cgroup goes just after confine returns.
	wait_for 30 rmdir "$ORPHAN_PARENT" 2>/dev/null ||
	    fail "$ORPHAN_PARENT: not empty after the runs: $(ls "$ORPHAN_PARENT")"
	ORPHAN_PARENT=
}

# run_confine_in CGROUP CONFINE-ARG...: run_confine_no_bus, confine
# started in CGROUP (a child of this test's own).
run_confine_in() {
	_cg=$1
	shift
	RC=0
	(
		cd "$WS" || exit 1
		exec sh -c 'echo $$ >"$1/cgroup.procs" && shift &&
		    exec env -u DBUS_SESSION_BUS_ADDRESS -u XDG_RUNTIME_DIR "$@"' \
		    sh "$_cg" "$CONFINE" "$@" </dev/null >"$OUT" 2>"$ERR"
	) || RC=$?
}
ORPHAN_PARENT=
orphan_cleanup() {
	[ -n "$ORPHAN_PARENT" ] && [ -d "$ORPHAN_PARENT" ] || return 0
	{
		echo 1 >"$ORPHAN_PARENT/cgroup.kill"
		sleep 0.5
		for _d in "$ORPHAN_PARENT"/*/; do rmdir "$_d"; done
		rmdir "$ORPHAN_PARENT"
	} 2>/dev/null
}
LIB_CLEANUP_HOOK=orphan_cleanup

# The command cannot move itself out of its cgroup into confine's (and so
# out of cgroup.kill's reach).
t_stay_in() {
	[ "$ENGINE" = cgroup ] ||
	    skip_case "no cgroup of confine's own here: the kernel engine"
	ws_new
	# The control: outside, this user moves a process into that cgroup.
	sh -c "echo \$\$ >'$CG_SELF/cgroup.procs'" ||
	    fail "control: cannot write $CG_SELF/cgroup.procs"
	run_confine_no_bus -- sh -c "echo \$\$ >'$CG_SELF/cgroup.procs' && echo moved"
	assert_status "$RC" 2
	assert_file_has_content "$ERR" "cannot create $CG_SELF/cgroup.procs: (Permission denied|Read-only file system|Directory nonexistent)"
	assert_not_file_has_content "$OUT" moved
}

# confine doctor: the build, the facts, and the same engine.
t_doctor() {
	no_bus "$CONFINE" doctor >"$OUT" 2>"$ERR" || :
	assert_file_has_content "$OUT" '^limits: built with systemd \(sd-bus\): (yes|no)'
	assert_file_has_content "$OUT" '^  systemd: '
	assert_file_has_content "$OUT" "^limits engine: $ENGINE "
	# The defaults a run starts from: half the host's memory, 4096 tasks.
	half=$(awk '/^MemTotal:/ { printf "%d", $2 / 2 / 1024 }' /proc/meminfo)
	assert_file_has_content "$OUT" '^limits \(the defaults here, before any profile or option\): memory [0-9.]+ [KMGT]iB, tasks 4096, cpus none, disk [0-9.]+ [KMGT]iB \(the store keeps [0-9.]+ [KMGT]iB free\)$'
	mem=$(sed -n 's/^limits (the defaults.*: memory \([0-9.]*\) \([KMGT]\)iB,.*/\1 \2/p' "$OUT")
	mib=$(echo "$mem" | awk '{ m = $1; if ($2 == "G") m *= 1024; else if ($2 == "T") m *= 1048576; else if ($2 == "K") m /= 1024; printf "%d", m }')
	# Printed to a tenth of a GiB: within 1% of half of MemTotal.
	[ $((mib * 100 / half)) -ge 95 ] && [ $((mib * 100 / half)) -le 105 ] ||
	    fail "doctor's default memory $mem is not half of MemTotal ($half MiB)"
}

# libsystemd is loaded only when the systemd engine is tried: a run on
# the next engine (no bus) never loads it (the dynamic loader says which
# files it opens); the control, a program linked with it, shows the
# loader would say so.
t_no_libsystemd() {
	ws_new
	(cd "$WS" && LD_DEBUG=files "$CONFINE" --dry-run -- true) >/dev/null 2>"$TEST_TMP/ld" ||
	    fail "confine --dry-run failed: $(tail -n 3 "$TEST_TMP/ld")"
	grep -q 'file=libseccomp' "$TEST_TMP/ld" ||
	    fail "control: LD_DEBUG names no library confine is linked with"
	LD_DEBUG=files
	export LD_DEBUG
	run_confine_no_bus -- true
	unset LD_DEBUG
	assert_status "$RC" 0
	assert_file_has_content "$ERR" 'file=libseccomp'
	assert_not_file_has_content "$ERR" 'file=libsystemd'
}

# No limit reached: the report says so, and stderr says nothing of it.
t_none_reached() {
	ws_new
	run_confine -- sh -c 'echo x >made'
	assert_status "$RC" 0
	assert_not_file_has_content "$ERR" 'limit'
	assert_file_has_content "$SESSIONS"/*/report '^  no limit reached$'
}

tcase "--dry-run without systemd's bus names the engine ($ENGINE)" t_dry_run
tcase "-v without systemd's bus names the engine ($ENGINE)" t_verbose
tcase "a child of confine's own cgroup holds the command, and is removed" t_direct
tcase "no clone3 (a filter's ENOSYS): the command is in its cgroup all the same" t_no_clone3
tcase "nothing of the command outlives confine (a daemonised child)" t_nothing_left
tcase "--cpus where no cpu controller is given: 125, one line, nothing made" t_cpus_refused
tcase "a memory hog is killed by the OOM killer, and the line says so" t_memory
tcase "a fork bomb is bounded, and the line counts the forks refused" t_tasks
tcase "a spinner is throttled, and the line says by how much" t_cpus
tcase "systemd's bus gone: the next engine ($ENGINE), said at -v" t_bus_gone
tcase "a killed confine's cgroup is removed by the next run" t_killed
tcase "what a killed confine left running in its cgroup is killed by the next run" t_orphan
tcase "the command cannot move itself out of its cgroup" t_stay_in
tcase "confine doctor names the engine ($ENGINE) and why" t_doctor
tcase "no limit reached: the report says so" t_none_reached
tcase "libsystemd is not loaded unless the systemd engine is tried" t_no_libsystemd
tap_done
