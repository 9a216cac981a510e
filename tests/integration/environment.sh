#!/bin/sh
# SPDX-License-Identifier: ISC
# environment.sh - the command's environment is built from an allow-list,
# plus HOME USER LOGNAME TMPDIR CONFINE_SESSION, the user's git identity
# (GIT_AUTHOR_* and GIT_COMMITTER_*) and --env; nothing else
# (no agent sockets, no bus, no display, no tokens) gets in, and confine's
# own pid 1 (bwrap's, under bwrap) does not show its environment or command
# line, nor does any host process (under landlock, which has no pid
# namespace).
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
require_userns
plan 9

ME=$(id -un)

# What the caller's environment holds: allowed, identity, and secrets.
ALLOWED='TERM=xterm-256color
COLORTERM=truecolor
NO_COLOR=1
FORCE_COLOR=1
CLICOLOR=1
CLICOLOR_FORCE=1
LANG=C.UTF-8
LANGUAGE=en
LC_ALL=C
LC_CTYPE=C.UTF-8
LC_MESSAGES=C
TZ=UTC
PATH=/usr/bin:/bin
SHELL=/bin/sh
EDITOR=vi
VISUAL=vim
PAGER=less'
SECRETS='SSH_AUTH_SOCK=/tmp/ssh-agent.sock
SSH_AGENT_PID=4242
GPG_AGENT_INFO=/tmp/gpg:1:1
DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus
DBUS_SYSTEM_BUS_ADDRESS=unix:path=/run/dbus/system_bus_socket
DISPLAY=:0
WAYLAND_DISPLAY=wayland-0
XAUTHORITY=/tmp/xauth
XDG_RUNTIME_DIR=/run/user/1000
GITHUB_TOKEN=ghp_confinetestsecret
GH_TOKEN=ghp_confinetestsecret
AWS_SECRET_ACCESS_KEY=confinetestsecret
AWS_ACCESS_KEY_ID=AKIACONFINETEST
OPENAI_API_KEY=sk-confinetestsecret
ANTHROPIC_API_KEY=sk-ant-confinetestsecret
NPM_TOKEN=confinetestsecret
KRB5CCNAME=/tmp/krb5cc
LD_LIBRARY_PATH=/confine-test-nonexistent
PYTHONPATH=/confine-test-nonexistent
GIT_DIR=/confine-test-nonexistent
BASH_ENV=/confine-test-nonexistent
ENV=/confine-test-nonexistent
CONFINE_TEST_SECRET=confinetestsecret'

# run_env [CONFINE-ARG...]: confine in exactly ALLOWED + SECRETS + identity.
run_env() {
	# shellcheck disable=SC2046
	(
		IFS='
'
		exec env -i HOME="$HOME" USER="$ME" LOGNAME="$ME" \
		    XDG_STATE_HOME="$XDG_STATE_HOME" $ALLOWED $SECRETS \
		    CONFINE_BACKEND="$BACKEND" \
		    CONFINE="$CONFINE" OUT="$OUT" ERR="$ERR" \
		    sh -c 'exec "$CONFINE" "$@" </dev/null >"$OUT" 2>"$ERR"' sh "$@"
	) || true
}

t_exact() {
	ws_new
	cd "$WS"
	# Control: the secrets are in the caller's environment.
	( IFS='
'; env -i $SECRETS env ) | grep -q '^GITHUB_TOKEN=ghp_' ||
	    fail "control: the secrets are not set outside"
	run_env -- env
	grep -v '^CONFINE_SESSION=' "$OUT" | sort >"$TEST_TMP/got"
	# Under landlock, which cannot hide the host's, HOME and TMPDIR are
	# the session's.
	home=$HOME
	tmpdir=/tmp
	if [ "$BACKEND" = landlock ]; then
		id=$(sed -n 's/^CONFINE_SESSION=//p' "$OUT")
		home=$SESSIONS/$id/home
		tmpdir=$SESSIONS/$id/tmp
	fi
	# The user's git identity, when the global configuration has one
	# (git-identity.sh tests it).
	name=$(env -i HOME="$HOME" GIT_CONFIG_NOSYSTEM=1 GIT_DIR=/dev/null \
	    git -C / config --includes --get user.name) || :
	email=$(env -i HOME="$HOME" GIT_CONFIG_NOSYSTEM=1 GIT_DIR=/dev/null \
	    git -C / config --includes --get user.email) || :
	{
		printf '%s\n' "$ALLOWED"
		printf 'HOME=%s\nUSER=%s\nLOGNAME=%s\nTMPDIR=%s\n' "$home" "$ME" "$ME" "$tmpdir"
		# The system's git configuration left out (git-identity.sh).
		echo GIT_CONFIG_NOSYSTEM=1
		[ -z "$name" ] ||
		    printf 'GIT_AUTHOR_NAME=%s\nGIT_COMMITTER_NAME=%s\n' "$name" "$name"
		[ -z "$email" ] ||
		    printf 'GIT_AUTHOR_EMAIL=%s\nGIT_COMMITTER_EMAIL=%s\n' "$email" "$email"
	} | sort >"$TEST_TMP/want"
	cmp -s "$TEST_TMP/got" "$TEST_TMP/want" || {
		diff "$TEST_TMP/want" "$TEST_TMP/got" | sed 's/^/# /'
		fail "the environment inside is not the allowed set"
	}
	assert_eq "$(grep -c '^CONFINE_SESSION=[0-9]\{8\}-[0-9]\{6\}\(\.[0-9]\{3\}\)\{0,1\}-[0-9a-f]\{8\}$' "$OUT")" 1 \
	    "CONFINE_SESSION"
	assert_not_file_has_content "$OUT" 'confinetestsecret|ghp_|SSH_AUTH|DBUS|DISPLAY|XDG_RUNTIME_DIR'
	assert_ws_unchanged
}

t_default_path() {
	ws_new
	cd "$WS"
	(exec env -i HOME="$HOME" USER="$ME" XDG_STATE_HOME="$XDG_STATE_HOME" \
	    CONFINE_BACKEND="$BACKEND" \
	    "$CONFINE" -- /usr/bin/env >"$OUT" 2>"$ERR") || fail "confine failed"
	assert_file_has_content "$OUT" '^PATH=/usr/local/bin:/usr/bin:/bin$'
	assert_ws_unchanged
}

t_env_option() {
	ws_new
	# Passing a variable outside the allow-list is leg B: offline allows it.
	printf '[profile]\nquadrant = offline\n' >"$TEST_TMP/offline.ini"
	CONFINE_TEST_PASS=passed CONFINE_TEST_SECRET=hidden run_confine \
	    -p "$TEST_TMP/offline.ini" \
	    --env CONFINE_TEST_PASS --env CONFINE_TEST_SET=set-value \
	    --env TERM=dumb --env CONFINE_TEST_UNSET_VAR -- env
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^CONFINE_TEST_PASS=passed$'
	assert_file_has_content "$OUT" '^CONFINE_TEST_SET=set-value$'
	assert_file_has_content "$OUT" '^TERM=dumb$'
	assert_eq "$(grep -c '^TERM=' "$OUT")" 1 "TERM lines"
	assert_not_file_has_content "$OUT" '^CONFINE_TEST_UNSET_VAR='
	assert_not_file_has_content "$OUT" '^CONFINE_TEST_SECRET='
	assert_ws_unchanged
}

t_env_pass_is_leg_b() {
	ws_new
	CONFINE_TEST_PASS=passed run_confine --env CONFINE_TEST_PASS -- env
	assert_status "$RC" 125
	assert_file_has_content "$ERR" 'leg B is granted by environment.pass = CONFINE_TEST_PASS'
	assert_not_file_has_content "$OUT" 'CONFINE_TEST_PASS'
	assert_ws_unchanged
}

t_tmpdir() {
	ws_new
	TMPDIR=$TEST_TMP run_confine -- sh -c 'echo "$TMPDIR"; f=$(mktemp) && echo "$f"; echo "$CONFINE_SESSION"'
	assert_status "$RC" 0
	# Under landlock, the host's /tmp is out of reach: the session's tmp/.
	tmpdir=/tmp
	[ "$BACKEND" != landlock ] ||
	    tmpdir=$SESSIONS/$(sed -n 3p "$OUT")/tmp
	assert_eq "$(sed -n 1p "$OUT")" "$tmpdir" "TMPDIR"
	assert_file_has_content "$OUT" "^$tmpdir/tmp\\."
	assert_eq "$(find "$TEST_TMP" -maxdepth 1 -name 'tmp.*' | wc -l)" 0 \
	    "files made in the caller's TMPDIR"
	assert_ws_unchanged
}

t_pid1_environ() {
	not_on landlock "no pid namespace (pid 1 is the host's init)"
	ws_new
	# Control: outside, a process's environment is readable in /proc.
	CONFINE_TEST_SECRET=confinetestsecret sh -c 'cat /proc/$$/environ' |
	    tr '\0' '\n' | grep -q '^CONFINE_TEST_SECRET=' ||
	    fail "control: /proc/PID/environ outside"
	# Inside, the command's own is readable, confine's pid 1's is not.
	CONFINE_TEST_SECRET=confinetestsecret run_confine -- sh -c '
		cat /proc/1/comm
		tr "\0" "\n" </proc/$$/environ | grep -c "^TMPDIR=/tmp\$"
		cat /proc/1/environ; echo "status $?"'
	assert_status "$RC" 0
	# bwrap's pid 1 is bwrap, its environment empty and unreadable.
	pid1=$(pid1_name)
	printf '%s\n1\nstatus 1\n' "$pid1" >"$TEST_TMP/want"
	cmp -s "$OUT" "$TEST_TMP/want" || {
		diag_file "$OUT" "inside"
		fail "pid 1 is not confine's, or its environment is readable"
	}
	assert_file_has_content "$ERR" '/proc/1/environ: Permission denied'
	assert_ws_unchanged
}

t_pid1_cmdline() {
	not_on landlock "no pid namespace (pid 1 is the host's init)"
	ws_new
	CONFINE_TEST_SECRET=confinetestsecret run_confine \
	    --env CONFINE_TEST_SET=confinetestsecret -- sh -c '
		tr -d "\\0" </proc/1/cmdline | wc -c
		tr "\\0" "\\n" </proc/1/cmdline | grep . || :' confine-test-argument
	assert_status "$RC" 0
	case $BACKEND in
	bwrap)
		# bwrap's own options (mounts, fd numbers): never a value of the
		# environment, nor the command's arguments.
		grep -q -x -F "$(bwrap_path)" "$OUT" ||
		    fail "bwrap's path is not in /proc/1/cmdline"
		assert_not_file_has_content "$OUT" 'confinetestsecret|confine-test-argument' ;;
	*)
		assert_eq "$(cat "$OUT")" 0 "printable bytes in /proc/1/cmdline" ;;
	esac
	assert_ws_unchanged
}

# A process of the host's, with a secret in its environment: out of the
# sandbox's pid namespace, or (landlock) refused by landlock's ptrace rule.
t_host_environ() {
	ws_new
	CONFINE_TEST_SECRET=confinetestsecret sleep 60 &
	pid=$!
	track_pid "$pid"
	# Control: readable outside (once the child has become sleep).
	wait_for 5 sh -c "tr '\\0' '\\n' </proc/$pid/environ |
	    grep -q '^CONFINE_TEST_SECRET='" ||
	    fail "control: /proc/$pid/environ outside"
	run_confine -- sh -c "cat /proc/$pid/environ; echo \"status \$?\""
	kill "$pid" 2>/dev/null || :
	assert_status "$RC" 0
	assert_not_file_has_content "$OUT" confinetestsecret
	assert_eq "$(tail -n 1 "$OUT")" "status 1" "reading /proc/$pid/environ"
	case $BACKEND in
	landlock) assert_file_has_content "$ERR" "/proc/$pid/environ: Permission denied" ;;
	*) assert_file_has_content "$ERR" "/proc/$pid/environ: No such file or directory" ;;
	esac
	assert_ws_unchanged
}

t_no_secret_anywhere() {
	ws_new
	# Two halves, so that only a leak can hold it whole.
	CONFINE_TEST_SECRET=confinetest-leak-marker run_confine \
	    --env H1=confinetest-leak --env H2=-marker -- sh -c '
		printf "%s%s\n" "$H1" "$H2" >"$TMPDIR/pattern"
		cat /proc/[0-9]*/environ /proc/[0-9]*/cmdline 2>/dev/null |
		    tr "\0" "\n" | grep -c -F -f "$TMPDIR/pattern"; true' 
	assert_status "$RC" 0
	assert_eq "$(cat "$OUT")" 0 "processes inside holding the secret"
	assert_ws_unchanged
}

tcase "the environment is exactly the allow-list plus identity" t_exact
tcase "without a PATH, the default one" t_default_path
tcase "--env NAME passes, --env NAME=VALUE sets" t_env_option
tcase "--env NAME outside the allow-list is leg B: refused under sealed" t_env_pass_is_leg_b
tcase "TMPDIR is /tmp whatever the caller's" t_tmpdir
tcase "/proc/1/environ is unreadable" t_pid1_environ
tcase "/proc/1/cmdline is zeroed (bwrap's: its options only)" t_pid1_cmdline
tcase "a host process's environment is unreadable" t_host_environ
tcase "no process inside holds a secret of the caller's environment" t_no_secret_anywhere
tap_done
