#!/bin/sh
# SPDX-License-Identifier: ISC
# user-manager.sh - a real systemd user manager for a user, on a host that
# systemd does not run (a CI machine, a container), so that the tests of
# the limits' systemd engine ask a real manager for a real scope.
#
#   sh tests/user-manager.sh start USER     start it (idempotent); print
#                                           the variables the tests read
#   sh tests/user-manager.sh env USER       print them again
#   sh tests/user-manager.sh exec USER CMD...
#                                           run CMD in the manager's
#                                           cgroup (NAME/ci), so that its
#                                           processes may be moved into the
#                                           manager's scopes
#   sh tests/user-manager.sh stop USER      stop it, remove what start made
#
# Root only.  The manager runs in a mount namespace of its own, in which a
# tmpfs on /run/systemd holds /run/systemd/system (systemd's sign that it
# runs the host: a user manager needs it); the host's /run/systemd is left
# as it is.  Its cgroup is NAME (confine-test-USER) at the top of the
# cgroup2 hierarchy, given to the user (a delegation by hand); it starts
# dbus.socket, the user's bus at /run/user/UID/bus.  The kernel lets a
# manager move a process into its scopes only when the process is in a
# cgroup under NAME already (the common-ancestor rule of cgroup.procs):
# hence "exec", for the user's test run.
#
# The variables (for tests/integration/limits-cgroup*.sh):
#   CONFINE_TEST_USER_MANAGER=/run/user/UID   its runtime directory: the
#                                             tests set XDG_RUNTIME_DIR to it
#   CONFINE_TEST_USER_CGROUP=/sys/fs/cgroup/unified/NAME
#                                             its cgroup
set -eu

die() {
	echo "user-manager.sh: $*" >&2
	exit 1
}

[ $# -ge 2 ] || die "usage: user-manager.sh start|env|exec|stop USER [CMD...]"
cmd=$1
user=$2
shift 2
[ "$(id -u)" -eq 0 ] || die "root only"
uid=$(id -u "$user") || die "no such user: $user"
name=confine-test-$user
state=/run/confine-test-user-manager
runtime=/run/user/$uid
systemd_bin=/lib/systemd/systemd

# The cgroup2 hierarchy's mount point: the unified one of a hybrid host,
# or /sys/fs/cgroup itself.
cgroot=$(awk '{ for (i = 7; i <= NF; i++) if ($i == "-") {
	if ($(i + 1) == "cgroup2" && $4 == "/") { print $5; exit }
	break } }' /proc/self/mountinfo)
[ -n "$cgroot" ] || die "no cgroup2 hierarchy mounted"
cg=$cgroot/$name

print_env() {
	echo "CONFINE_TEST_USER_MANAGER=$runtime"
	echo "CONFINE_TEST_USER_CGROUP=$cg"
}

running() {
	[ -f "$state/$user.pid" ] && kill -0 "$(cat "$state/$user.pid")" 2>/dev/null
}

# Wait for a condition, each try a tenth of a second, at most $1 tries.
wait_for() {
	_n=$1
	shift
	while ! "$@"; do
		_n=$((_n - 1))
		[ "$_n" -gt 0 ] || return 1
		sleep 0.1
	done
}

bus_up() {
	[ -S "$runtime/bus" ] && [ -S "$runtime/systemd/private" ]
}

start() {
	if running; then
		print_env
		return 0
	fi
	[ ! -d /run/systemd/system ] ||
	    die "systemd runs this host: use its own user manager"
	[ -x "$systemd_bin" ] || die "$systemd_bin: not installed"
	mkdir -p "$state" "$cg/ci"
	chown -R "$user:" "$cg"
	if [ ! -d "$runtime" ]; then
		mkdir -p "$runtime"
		: >"$state/$user.made-runtime"
	fi
	chown "$user:" "$runtime"
	chmod 0700 "$runtime"
	# The manager's own mount namespace, its own /run/systemd; in its
	# cgroup before it starts.
	setsid unshare -m --propagation private sh -c '
		mount -t tmpfs -o mode=0755 tmpfs /run/systemd &&
		mkdir /run/systemd/system &&
		echo $$ >"$1/cgroup.procs" &&
		exec su "$2" -s /bin/sh -c "XDG_RUNTIME_DIR=$3 exec $4 --user"
	    ' sh "$cg" "$user" "$runtime" "$systemd_bin" \
	    </dev/null >"$state/$user.log" 2>&1 &
	echo $! >"$state/$user.pid"
	if ! wait_for 600 bus_up; then
		cat "$state/$user.log" >&2
		die "the manager of $user did not start (no $runtime/bus)"
	fi
	print_env
}

# Remove a cgroup tree, deepest first; kill what is in it first.
remove_cgroups() {
	[ -d "$1" ] || return 0
	[ ! -e "$1/cgroup.kill" ] || echo 1 >"$1/cgroup.kill" 2>/dev/null || :
	find "$1" -depth -type d | while read -r d; do
		wait_for 100 sh -c "! grep -q . '$d/cgroup.procs' 2>/dev/null"
		rmdir "$d" 2>/dev/null || :
	done
}

stop() {
	if running; then
		pid=$(cat "$state/$user.pid")
		# su waits for the manager: end the manager, then su ends.
		pkill -TERM -P "$pid" 2>/dev/null || :
		for p in $(cat "$cg/init.scope/cgroup.procs" 2>/dev/null); do
			kill -TERM "$p" 2>/dev/null || :
		done
		wait_for 300 sh -c "! kill -0 $pid 2>/dev/null" ||
		    kill -KILL "$pid" 2>/dev/null || :
	fi
	remove_cgroups "$cg"
	if [ -f "$state/$user.made-runtime" ]; then
		rm -rf "$runtime"
		rm -f "$state/$user.made-runtime"
	fi
	rm -f "$state/$user.pid" "$state/$user.log"
	rmdir "$state" 2>/dev/null || :
}

case $cmd in
start) start ;;
env) running || die "no manager of $user runs"; print_env ;;
exec)
	[ $# -ge 1 ] || die "exec: no command"
	[ -d "$cg/ci" ] || die "exec: no manager of $user (start it first)"
	echo $$ >"$cg/ci/cgroup.procs"
	exec "$@"
	;;
stop) stop ;;
*) die "no such command: $cmd" ;;
esac
