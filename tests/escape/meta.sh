#!/bin/sh
# SPDX-License-Identifier: ISC
# meta.sh - escape catalogue 4.9 and N8: the meta-failures.  Without user
# namespaces confine refuses (it never runs the command unconfined),
# confine run inside confine cannot loosen anything, and nothing of a
# session survives it: no process (even one that ignores signals, even
# when confine is killed), no scratch file, no mount, no empty session.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
. "$TESTS_SRCDIR/escape-lib.sh"
plan 7

VARTMP=
if [ -d /var/tmp ] && [ -w /var/tmp ]; then
	VARTMP=$(host_scratch "$(mktemp -d /var/tmp/confine-var.XXXXXX)")
	chmod 0777 "$VARTMP"
fi

# N8: no user namespaces (max_user_namespaces 0 in a user namespace of
# the test's own, which bounds every namespace below it): confine refuses
# with 125, or (the landlock backend, built for such hosts) runs the
# command confined; either way the command never runs unconfined.
t_no_userns() {
	unshare -U -r true 2>/dev/null || skip_case "no user namespace to simulate in"
	esc_ws
	ran=$(mark /tmp ran)
	# Control: the simulation works: no nested namespace, and a command
	# run there unconfined makes its file.
	unshare -U -r sh -c '
		echo 0 >/proc/sys/user/max_user_namespaces || exit 1
		unshare -U true 2>/dev/null && echo NESTED
		touch "$1" && echo TOUCHED' sh "$ran.control" >"$TEST_TMP/control" 2>&1 ||
	    skip_case "max_user_namespaces cannot be lowered in a user namespace here"
	rm -f "$ran.control"
	assert_not_file_has_content "$TEST_TMP/control" NESTED
	assert_file_has_content "$TEST_TMP/control" '^TOUCHED$'
	RC=0
	(cd "$WS" && exec unshare -U -r sh -c '
		echo 0 >/proc/sys/user/max_user_namespaces || exit 99
		exec timeout -k 5 "$1" "$2" -- sh -c "touch \"\$1\" && echo TOUCHED; echo RAN" sh "$3"' \
	    sh "$CONFINE_TIMEOUT" "$CONFINE" "$ran") </dev/null >"$OUT" 2>"$ERR" || RC=$?
	assert_not_exists "$ran"
	case $BACKEND:$RC in
	landlock:* | auto:0)
		# It ran, confined: the host's /tmp is closed to it.
		assert_status "$RC" 0
		assert_file_has_content "$OUT" '^RAN$'
		assert_not_file_has_content "$OUT" '^TOUCHED$'
		assert_file_has_content "$ERR" '^confine: backend landlock: ' ;;
	*)
		assert_status "$RC" 125
		assert_refusal "$ERR"
		assert_file_empty "$OUT" ;;
	esac
	assert_host_unchanged
}

# M1: confine inside confine: the inner one cannot loosen anything (a
# direct path, the host's network, the home's secret).  It cannot make
# namespaces inside, so its auto picks landlock, which runs under the
# outer sandbox's own Landlock domain and filter, or is refused (125:
# as uid 0 without CAP_SETPCAP it cannot set the securebits; under the
# landlock backend it cannot make its session).
t_nested() {
	esc_ws
	direct=${VARTMP:-$TEST_TMP}
	# The build tree may be hidden inside (under the home): a copy.
	cp "$CONFINE" "$WS/.t/confine"
	printf '[profile]\nquadrant = online\n[workspace]\nprivate = no\n' >"$WS/.t/online.ini"
	printf '[profile]\nquadrant = trusted\nuntrusted = no\n[workspace]\nprivate = no\n' >"$WS/.t/trusted.ini"
	host_snapshot
	# Each inner run's output and status, its lines tagged with its number.
	run_confine -- sh -c '
		inner() {
			n=$1
			shift
			{ "$@" 2>&1; echo "inner $?"; } | sed "s/^/$n: /"
		}
		inner 1 "$1" -p .t/online.ini --direct "$2" -- sh -c "echo pwned >\"\$1\"/x && echo WROTE" sh "$2"
		inner 2 "$1" -p .t/online.ini -n host -- "$4" tcp_connect:1
		inner 3 "$1" -p .t/trusted.ini --ro "$3" -- sh -c "cat \"\$1\" && echo READ" sh "$3"
		' sh ./.t/confine "$direct" "$HOME/.ssh/id_ed25519" "$TRY_IN"
	assert_status "$RC" 0
	assert_not_file_has_content "$OUT" "WROTE|READ|$HOME_SECRET"
	for n in 1 2 3; do
		s=$(sed -n "s/^$n: inner \([0-9]*\)$/\1/p" "$OUT")
		[ -n "$s" ] || fail "inner run $n: no status"
		if [ "$s" -eq 125 ]; then
			# Refused, in confine's format, before anything ran.
			assert_file_has_content "$OUT" "^$n: confine: "
		else
			# It ran, so on landlock: namespaces cannot be made inside.
			assert_file_has_content "$OUT" "^$n: confine: backend landlock: "
		fi
	done
	# The host's loopback: not reached (ECONNREFUSED would be its port
	# 1), nor the outer's (its Landlock refuses TCP); or not tried.
	sed -n 's/^2: //p' "$OUT" >"$TEST_TMP/inner2"
	case $(try_result tcp_connect "$TEST_TMP/inner2") in
	'' | EACCES | ENETUNREACH | EAFNOSUPPORT) ;;
	*) fail "the inner -n host run connected: $(try_result tcp_connect "$TEST_TMP/inner2")" ;;
	esac
	assert_not_exists "$direct/x"
	assert_host_unchanged
}

# Nothing survives: a process that ignores every catchable signal and
# leaves the command's session.
t_processes() {
	esc_ws
	n=$(unique_num)
	pattern="sleep 30\\.$n"
	run_confine -- sh -c 'trap "" HUP INT TERM QUIT; setsid nohup sh -c "trap \"\" HUP INT TERM QUIT; exec sleep 30.$1" </dev/null >/dev/null 2>&1 & sleep 0.3; echo started' sh "$n"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^started$'
	if pgrep -f "$pattern" >/dev/null; then
		pkill -9 -f "$pattern" || true
		fail "a process of the sandbox outlived confine"
	fi
	assert_host_unchanged
}

# Nothing survives confine's own death (SIGKILL): the sandbox dies with it.
t_supervisor_killed() {
	# landlock: no pid namespace; the keeper ends the session
	# (confine(1), BACKENDS; tests/escape/procs.sh tries harder).
	esc_ws
	n=$(unique_num)
	pattern="sleep 30\\.$n"
	# Control: outside, a child outlives its parent's SIGKILL.
	sh -c "sleep 30.$n & wait" &
	p=$!
	wait_for 5 pgrep -f "$pattern" >/dev/null || fail "control: no child"
	kill -9 "$p"
	sleep 0.3
	pgrep -f "$pattern" >/dev/null || fail "control: the child died with its parent"
	pkill -9 -f "$pattern" || true
	wait_for 5 sh -c "! pgrep -f '$pattern' >/dev/null" || true
	(cd "$WS" && exec "$CONFINE" -- sh -c "sleep 30.$n; echo late >late") \
	    </dev/null >/dev/null 2>&1 &
	c=$!
	track_pid "$c"
	wait_for 10 pgrep -f "$pattern" >/dev/null || fail "the command did not start"
	kill -9 "$c"
	wait_for 5 sh -c "! pgrep -f '$pattern' >/dev/null" || {
		pkill -9 -f "$pattern" || true
		fail "the sandbox outlived confine's SIGKILL"
	}
	assert_host_unchanged
}

# Nothing survives: the scratch trees (/tmp, /dev/shm, the home)
# start empty in the next session.
t_scratch() {
	esc_ws
	run_confine -- sh -c 'for d in /tmp /dev/shm "$HOME"; do echo x >"$d/$1" || echo "NOT MADE $d"; done' sh "$HOST_MARK"
	assert_status "$RC" 0
	case $BACKEND in
	landlock) ;;	# /dev/shm is the host's, closed by Landlock
	*) assert_file_empty "$OUT" ;;
	esac
	assert_no_session
	run_confine -- sh -c 'for d in /tmp /dev/shm "$HOME"; do [ -e "$d/$1" ] && echo "SURVIVED $d"; done; true' sh "$HOST_MARK"
	assert_status "$RC" 0
	assert_file_empty "$OUT"
	assert_host_unchanged
}

# Nothing survives: the host's mount table, and a session with no change
# is removed.
t_mounts() {
	esc_ws
	before=$(wc -l </proc/self/mountinfo)
	run_confine -- sh -c 'cat /proc/self/mountinfo >/dev/null; touch README; rm -f nonexistent'
	assert_status "$RC" 0
	assert_eq "$(wc -l </proc/self/mountinfo)" "$before" "the host's mounts"
	if grep -q "$WS" /proc/self/mountinfo; then
		fail "a mount of the workspace is left on the host"
	fi
	assert_host_unchanged
}

# The session the agent made cannot act on the host later: "confine
# enter --as-left" runs the session's tree confined again, so a hook or rc file it
# left does not run unconfined there.
t_enter() {
	esc_ws
	ran=$(mark /tmp enter)
	# The hook is made executable by copying an executable file, the way
	# that needs no chmod on any backend.
	run_confine -- sh -c 'echo change >>README; cp bin/run.sh .git/hooks/post-checkout && printf "#!/bin/sh\ntouch %s\n" "$1" >.git/hooks/post-checkout && test -x .git/hooks/post-checkout' sh "$ran"
	assert_status "$RC" 0
	kept_session
	RC=0
	(cd "$WS" && exec timeout -k 5 "$CONFINE_TIMEOUT" "$CONFINE" enter --as-left "$SESSION_ID" \
	    sh -c 'git checkout -q -b x 2>&1; sh .git/hooks/post-checkout 2>&1; grep -c "^change$" README') \
	    </dev/null >"$OUT" 2>"$ERR" || RC=$?
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^1$'
	assert_not_exists "$ran"
	assert_host_unchanged
}

tcase "N8 no user namespaces: refused (125) or run confined, never unconfined" t_no_userns
tcase "M1 confine inside confine: --direct, -n host, -p trusted loosen nothing" t_nested
tcase "a process ignoring every signal does not outlive the session" t_processes
tcase "confine killed (SIGKILL): the sandbox dies with it" t_supervisor_killed
tcase "/tmp, /dev/shm and the home start empty again" t_scratch
tcase "no mount left on the host; an unchanged session is removed" t_mounts
tcase "confine enter: the session's hooks run confined again" t_enter
tap_done
