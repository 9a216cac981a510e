#!/bin/sh
# SPDX-License-Identifier: ISC
# namespaces.sh - the command runs in new user, mount, pid, net, ipc, uts
# and cgroup namespaces, keeps the caller's uid and gid, sees only its own
# processes, and loses every process it started when it exits.  Under
# landlock, which makes no namespaces, the uid and gid are still the
# caller's, a host process can be neither signalled nor traced, and what the
# command started still dies with it.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
require_userns
plan 15

# A segment a failed case left behind goes at exit.
ipc_cleanup() {
	[ ! -s "$TEST_TMP/ipc-id" ] || ipcrm -m "$(cat "$TEST_TMP/ipc-id")" 2>/dev/null
}
LIB_CLEANUP_HOOK=ipc_cleanup

# t_ns NAME: /proc/self/ns/NAME inside is not the caller's.
t_ns() {
	not_on landlock "no $1 namespace"
	ws_new
	outside=$(readlink "/proc/self/ns/$1")
	[ -n "$outside" ] || skip_case "no /proc/self/ns/$1: the kernel lacks $1 namespaces"
	run_confine -- readlink "/proc/self/ns/$1"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" "^$1:\[[0-9]+\]$"
	# A setuid bwrap makes no user namespace: the command keeps the
	# caller's credentials, so that confine can take its fds (bwrap.c).
	if [ "$1" = user ] && bwrap_setuid; then
		assert_eq "$(cat "$OUT")" "$outside" "user namespace inside (setuid bwrap)"
	else
		assert_ne "$(cat "$OUT")" "$outside" "$1 namespace inside"
	fi
	assert_ws_unchanged
}

t_ids() {
	ws_new
	uid=$(id -u)
	gid=$(id -g)
	maps='cat /proc/self/uid_map /proc/self/gid_map'
	# No user namespace under landlock: the host's maps, nothing to check.
	[ "$BACKEND" != landlock ] || maps=:
	! bwrap_setuid || maps=:
	run_confine -- sh -c "id -u; id -g; $maps; echo x >owned"
	assert_status "$RC" 0
	owner=$(stat -c '%u %g' "$SESSIONS"/*/upper/owned)
	assert_eq "$owner" "$uid $gid" "the owner of a file made inside, on the host"
	printf '%s\n%s\n' "$uid" "$gid" >"$TEST_TMP/want"
	[ "$BACKEND" = landlock ] || bwrap_setuid ||
	    printf '%s %s 1\n%s %s 1\n' "$uid" "$uid" "$gid" "$gid" >>"$TEST_TMP/want"
	# bwrap making /dev as an unprivileged user nests the sandbox's user
	# namespace in one of its own, where the caller is 0: the maps' middle
	# field is that namespace's id; the file's owner on the host below
	# is the caller's.
	tr -s ' ' <"$OUT" | sed 's/^ //' >"$TEST_TMP/got"
	if [ "$BACKEND" = bwrap ] && [ "$uid" -ne 0 ]; then
		sed -i "s/^\($uid\|$gid\) 0 1\$/\1 \1 1/" "$TEST_TMP/got"
		# A setuid bwrap maps 0 to the overflow id (nobody) too.
		sed -i '/^0 65534 1$/d' "$TEST_TMP/got"
	fi
	cmp -s "$TEST_TMP/got" "$TEST_TMP/want" || {
		diag_file "$TEST_TMP/got" "inside"
		fail "ids or maps differ from: uid $uid gid $gid, one line each"
	}
	assert_ws_unchanged
}

t_pid_numbers() {
	not_on landlock "no pid namespace"
	ws_new
	run_confine -- sh -c 'echo $$; cat /proc/1/comm'
	assert_status "$RC" 0
	# Under bwrap, pid 1 is bwrap's own.
	pid1=$(pid1_name)
	# A setuid bwrap keeps a process of its own between: pid 3.
	case $BACKEND:$(sed -n 1p "$OUT") in
	*:2 | bwrap:3) ;;
	*) fail "the command's pid: $(sed -n 1p "$OUT"), expected 2" ;;
	esac
	assert_eq "$(sed -n 2p "$OUT")" "$pid1" "the name of pid 1"
	assert_ws_unchanged
}

t_pid_only_own() {
	not_on landlock "no pid namespace"
	ws_new
	n=$(unique_num)
	sleep "30.${n}7" >/dev/null 2>&1 &
	outer=$!
	track_pid "$outer"
	# Control: the process is there, and /proc shows it, outside.
	wait_for 5 grep -qa "30\.${n}7" "/proc/$outer/cmdline" ||
	    fail "control: the marker process is not visible outside"
	# The marker reaches the script in two halves, so that no command
	# line holds it whole but the marker process's.
	pat=$(host_scratch "/tmp/confine-test-pattern.$$")
	script='
		for p in /proc/[0-9]*; do echo ${p#/proc/}; done
		printf "%s%s\n" "$M1" "$M2" >"$PAT"
		cat /proc/[0-9]*/cmdline 2>/dev/null | tr "\0" " " |
		    grep -c -F -f "$PAT"
		true'
	M1=30.$n M2=7 PAT=$TEST_TMP/pattern sh -c "$script" >"$TEST_TMP/outside"
	[ "$(tail -n 1 "$TEST_TMP/outside")" -ge 1 ] ||
	    fail "control: the script does not find the marker outside"
	run_confine --env "M1=30.${n}" --env M2=7 --env "PAT=$pat" -- sh -c "$script"
	kill "$outer" 2>/dev/null || true
	assert_status "$RC" 0
	# pids 1 and 2 and the shell's few children, nothing of the host's.
	n=$(grep -c '^[0-9][0-9]*$' "$OUT")
	[ "$n" -le 6 ] || fail "$n processes visible inside"
	assert_file_has_content "$OUT" '^1$'
	# The command: pid 2, or 3 under a setuid bwrap.
	assert_file_has_content "$OUT" '^(2|3)$'
	assert_eq "$(tail -n 1 "$OUT")" 0 "host processes with the marker seen inside"
	assert_ws_unchanged
}

t_pid_reaped() {
	ws_new
	n=$(unique_num)
	# Control: without confine, a background child outlives its shell.
	sh -c "sleep 30.${n}1 >/dev/null 2>&1 & exit 0"
	wait_for 5 pgrep -f "^sleep 30\\.${n}1\$" >/dev/null ||
	    fail "control: the background sleep did not start outside"
	pkill -f "^sleep 30\\.${n}1\$" || true
	run_confine -- sh -c "sleep 30.${n}2 & sleep 30.${n}3 & sleep 0.2; exit 0"
	assert_status "$RC" 0
	pattern="^sleep 30\\.${n}[23]\$"
	wait_for 3 sh -c "! pgrep -f '$pattern' >/dev/null" || {
		pkill -f "$pattern" || true
		fail "processes the command started survived it"
	}
	assert_ws_unchanged
}

# A process of the host's: out of the pid namespace (ESRCH), or, under
# landlock, in sight but out of reach (landlock's signal and ptrace scopes).
t_host_process() {
	ws_new
	n=$(unique_num)
	sleep "30.${n}5" >/dev/null 2>&1 &
	pid=$!
	track_pid "$pid"
	run_confine -- sh -c "
		kill -TERM $pid 2>&1; echo kill \$?
		cat /proc/$pid/environ >/dev/null 2>&1; echo environ \$?
		ls -l /proc/$pid/fd/ >/dev/null 2>&1; echo fd \$?"
	alive=no
	kill -0 "$pid" 2>/dev/null && alive=yes
	kill "$pid" 2>/dev/null || :
	assert_status "$RC" 0
	assert_eq "$alive" yes "the host process, after the run"
	assert_file_has_content "$OUT" '^kill [1-9][0-9]*$'
	assert_file_has_content "$OUT" '^environ [1-9][0-9]*$'
	assert_file_has_content "$OUT" '^fd [1-9][0-9]*$'
	case $BACKEND in
	landlock) assert_file_has_content "$OUT" 'Operation not permitted' ;;
	*) assert_file_has_content "$OUT" 'No such process' ;;
	esac
	assert_ws_unchanged
}

t_net() {
	not_on landlock "no net namespace (network.sh: no socket family but AF_UNIX)"
	ws_new
	run_confine -- sh -c 'sed -n "s/^ *\([^:]*\):.*/\1/p" /proc/net/dev; ip -o link; ip -o -4 addr show dev lo'
	assert_status "$RC" 0
	assert_eq "$(sed -n 1p "$OUT")" lo "the interfaces in /proc/net/dev"
	assert_eq "$(grep -c -v -e '^lo$' -e '^[0-9]*: lo' "$OUT")" 0 "other interfaces"
	assert_file_has_content "$OUT" '^1: lo: <[^>]*[<,]UP[,>]'
	assert_file_has_content "$OUT" 'inet 127\.0\.0\.1/8'
	assert_ws_unchanged
}

t_ipc() {
	not_on landlock "no ipc namespace"
	ws_new
	command -v ipcmk >/dev/null || skip_case "ipcmk (util-linux) is not installed"
	IPC_ID=$(ipcmk -M 4096 | sed -n 's/^Shared memory id: //p')
	[ -n "$IPC_ID" ] || fail "control: ipcmk made no segment"
	echo "$IPC_ID" >"$TEST_TMP/ipc-id"
	awk -v id="$IPC_ID" '$2 == id' /proc/sysvipc/shm | grep -q . ||
	    fail "control: segment $IPC_ID is not in /proc/sysvipc/shm outside"
	run_confine -- sh -c 'tail -n +2 /proc/sysvipc/shm | wc -l'
	ipcrm -m "$IPC_ID"
	rm "$TEST_TMP/ipc-id"
	assert_status "$RC" 0
	assert_eq "$(cat "$OUT")" 0 "SysV segments visible inside"
	assert_ws_unchanged
}

t_cgroup() {
	not_on landlock "no cgroup namespace"
	ws_new
	# Control: the caller is below the root of some cgroup hierarchy.
	grep -q -v ':/$' /proc/self/cgroup ||
	    skip_case "the caller is at the root of every cgroup hierarchy: nothing to compare"
	run_confine -- cat /proc/self/cgroup
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^0::/$'
	assert_not_file_has_content "$OUT" ':/.'
	assert_ws_unchanged
}

for ns in user mnt pid net ipc uts cgroup; do
	tcase "a new $ns namespace" t_ns "$ns"
done
tcase "uid and gid are the caller's, mapped one to one" t_ids
tcase "the command is pid 2 under confine's pid 1" t_pid_numbers
tcase "only the sandbox's processes are visible" t_pid_only_own
tcase "what the command started dies with it" t_pid_reaped
tcase "a host process can be neither signalled nor traced" t_host_process
tcase "the network is lo only, up, with 127.0.0.1" t_net
tcase "the cgroup namespace's root is the caller's cgroup" t_cgroup
tcase "SysV IPC objects of the host are not visible" t_ipc
tap_done
