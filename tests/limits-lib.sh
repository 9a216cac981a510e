# SPDX-License-Identifier: ISC
# limits-lib.sh - sourced by the tests of the limits' cgroup engine
# (tests/integration/limits-cgroup*.sh), after lib.sh.
#
# Gives: the cgroup2 mount and this test's own cgroup (CG_MOUNT, CG_SELF),
# the engine a run without systemd's bus takes here (engine_without_bus),
# a run left running in the background until the case ends it
# (bg_confine, bg_wait_cgroup, bg_stop), the session's "limits" file
# (limits_get), counting processes by a unique command line (count_procs),
# and whether the engine here applies a limit with its cgroup
# (engine_applies).

# The cgroup2 hierarchy: the mount whose root is the hierarchy's own.
CG_MOUNT=$(awk '{ for (i = 7; i <= NF; i++) if ($i == "-") {
	if ($(i + 1) == "cgroup2" && $4 == "/") { print $5; exit }
	break } }' /proc/self/mountinfo)
_cg=$(sed -n 's/^0:://p' /proc/self/cgroup)
CG_SELF=
if [ -n "$CG_MOUNT" ] && [ -n "$_cg" ]; then
	[ "$_cg" = / ] && CG_SELF=$CG_MOUNT || CG_SELF=$CG_MOUNT$_cg
fi

# The engine a run takes here without a bus to systemd: "cgroup" (a child
# of confine's own cgroup: no systemd runs the host, and the cgroup may be
# written) or "kernel".
engine_without_bus() {
	if [ -n "$CG_SELF" ] && [ ! -d /run/systemd/system ] &&
	    [ -w "$CG_SELF" ] && [ -w "$CG_SELF/cgroup.procs" ]; then
		echo cgroup
	else
		echo kernel
	fi
}

# confine without systemd's bus.
no_bus() {
	env -u DBUS_SESSION_BUS_ADDRESS -u XDG_RUNTIME_DIR "$@"
}

# limits_get KEY: its first value in the only session's "limits" file.
limits_get() {
	_f=$(ls "$SESSIONS"/*/limits 2>/dev/null | head -n 1)
	[ -n "$_f" ] || return 1
	sed -n "s/^$1=//p" "$_f" | head -n 1
}

# count_procs WORD: processes whose command line is exactly "sleep WORD".
count_procs() {
	_n=0
	for _p in /proc/[0-9]*; do
		[ "$({ tr '\0' ' ' <"$_p/cmdline"; } 2>/dev/null)" = "sleep $1 " ] &&
		    _n=$((_n + 1))
	done
	echo "$_n"
}

# bg_confine [CONFINE-ARG...]: run confine from $WS in the background
# (BG_PID), output in $OUT and $ERR; bg_stop ends it.
bg_confine() {
	(
		cd "$WS" || exit 1
		exec "$CONFINE" "$@" </dev/null >"$OUT" 2>"$ERR"
	) &
	BG_PID=$!
	track_pid "$BG_PID"
}

# The command's cgroup, once it holds a process: BG_CGROUP.
cgroup_populated() {
	BG_CGROUP=$(limits_get cgroup) && [ -n "$BG_CGROUP" ] &&
	    grep -q . "$BG_CGROUP/cgroup.procs" 2>/dev/null
}
bg_wait_cgroup() {
	wait_for 30 cgroup_populated ||
	    fail "the command's cgroup never held a process ($(cat "$ERR"))"
}

# bg_wait_made: the command said "made" (its write is done: a session
# stopped before it would be untouched, and not kept).
bg_made() {
	grep -qx made "$OUT" 2>/dev/null
}
bg_wait_made() {
	wait_for 30 bg_made ||
	    fail "the command never said it made its file ($(cat "$ERR"))"
}

# SIGTERM to confine, which passes it on; its status in RC.
bg_stop() {
	kill -TERM "$BG_PID"
	RC=0
	wait "$BG_PID" || RC=$?
}

# engine_applies LIMIT (memory, tasks, cpus) [CONFINE-ARG...]: does the
# engine here enforce it with its cgroup (--dry-run's "memory: memory.max")?
engine_applies() {
	_l=$1
	shift
	(cd "$WS" && "$CONFINE" "$@" --dry-run -- true 2>/dev/null) |
	    grep -q "^  $_l: \(memory\|pids\|cpu\)\.max"
}

