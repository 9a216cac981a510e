# SPDX-License-Identifier: ISC
# escape-lib.sh - sourced after lib.sh by the escape suite (tests/escape/).
#
# Each probe does three things (STYLE.md section 9): a positive control
# that shows the attempt works outside confine, the attempt inside, and an
# assertion on the reason (the errno, or the absence of the effect), then
# assert_host_unchanged: the host workspace, home and /tmp are as they were.
#
# Gives:
#   BACKEND       the backend under test: $CONFINE_BACKEND, else native.
#                 Probes never pass --backend; confine reads the variable.
#                 Where the landlock backend stops a probe for another
#                 reason, the probe says so in a "case $BACKEND" branch;
#                 the effect must be absent on every backend.
#   HOME          a host home of the test's own (REAL_HOME is the caller's),
#                 holding what an agent goes for: a key in .ssh, shell rc
#                 files, .config, .local/bin.  HOME_SECRET is in the key.
#   HOST_MARK     a marker unique to this run; "mark DIR" names a path
#                 after it on the host, removed at exit whatever happens.
#   esc_ws        ws_new, then host_snapshot.
#   try_out NAME  try-syscall outside: directly, or where this user is
#                 refused first (EPERM), in a user namespace of its own.
#   try_result NAME FILE   the result try-syscall printed for NAME.
#   on_pty        run the script on stdin on a new pseudo-terminal, as a
#                 user's shell in a terminal; its output in PTY_OUT.

BACKEND=${CONFINE_BACKEND:-native}
case $BACKEND in
native | bwrap | landlock | auto) ;;
*)
	echo "Bail out! CONFINE_BACKEND='$BACKEND': not native, bwrap, landlock or auto"
	exit 1
	;;
esac

case $BACKEND in
landlock) ;;
*) require_userns ;;
esac
require_try_syscall

REAL_HOME=$HOME
HOME=$TEST_TMP/home
export HOME
mkdir -p "$HOME/.ssh" "$HOME/.config/autostart" "$HOME/.config/systemd/user" \
    "$HOME/.local/bin" || {
	echo "Bail out! cannot make a home in $HOME"
	exit 1
}
HOME_SECRET=confine-home-secret-$(unique_num)
printf '%s\n' "$HOME_SECRET" >"$HOME/.ssh/id_ed25519"
chmod 0600 "$HOME/.ssh/id_ed25519"
printf '# the host user'\''s bashrc\n' >"$HOME/.bashrc"
printf '# the host user'\''s profile\n' >"$HOME/.profile"
printf '[user]\n\tname = host\n' >"$HOME/.gitconfig"

HOST_MARK=confine-escape-$(unique_num)
host_canary

# mark DIR [SUFFIX]: DIR/HOST_MARK[-SUFFIX], removed at exit.
mark() {
	host_scratch "$1/$HOST_MARK${2:+-$2}"
}

esc_ws() {
	ws_new "$@"
	host_snapshot
}

# try_out NAME: the result of try-syscall NAME outside.  EPERM may be the
# kernel refusing this user before it reads the arguments (an unprivileged
# caller, or root of a container whose namespaces another user namespace
# owns): then the result in a user namespace of our own counts.
try_out() {
	_r=$("$TRY_SYSCALL" "$1" 2>/dev/null | awk 'NR == 1 { print $2 }')
	if [ "$_r" = EPERM ]; then
		_u=$(unshare -Urm -p --fork "$TRY_SYSCALL" "$1" 2>/dev/null |
		    awk 'NR == 1 { print $2 }')
		[ -z "$_u" ] || _r=$_u
	fi
	printf '%s\n' "$_r"
}

# try_result NAME FILE
try_result() {
	# A terminal may echo a stray NUL as ^@ before a line.
	awk -v n="$1" '{ sub(/^\^@/, "") } $1 == n { print $2; exit }' "$2"
}

# assert_try NAME ERE [FILE]: try-syscall's result for NAME in FILE
# (default $OUT) matches ERE.
assert_try() {
	_got=$(try_result "$1" "${3:-$OUT}")
	printf '%s\n' "$_got" | grep -q -x -E -e "$2" || {
		[ -n "$_got" ] || diag_file "${3:-$OUT}" "try-syscall's output"
		fail "$1: got '${_got:-nothing}', expected /$2/"
	}
}

# control_try NAME ERE: outside, NAME reaches the kernel (ERE).
control_try() {
	_got=$(try_out "$1")
	printf '%s\n' "$_got" | grep -q -x -E -e "$2" ||
	    fail "control: $1 gives '${_got:-nothing}' outside, expected /$2/"
}

# on_pty: run the script on standard input (sh) as the session leader of
# a new pseudo-terminal, its controlling terminal, as a user's shell in a
# terminal emulator is.  Output, CR and NUL removed, in PTY_OUT.
PTY_OUT=$TEST_TMP/pty.out
on_pty() {
	cat >"$TEST_TMP/pty.sh"
	_rc=0
	# script(1) sends the terminal an end-of-file when its stdin ends: a
	# fifo open for reading and writing never does.
	[ -p "$TEST_TMP/pty.in" ] || mkfifo "$TEST_TMP/pty.in"
	timeout -k 5 "$((CONFINE_TIMEOUT + 10))" \
	    script -qec "sh '$TEST_TMP/pty.sh'" /dev/null <>"$TEST_TMP/pty.in" \
	    >"$PTY_OUT.raw" 2>&1 || _rc=$?
	# Out of the lines compared: confine's reset of the terminal at its
	# exit (confine(1), TERMINAL), exactly as confine writes it.
	_reset=$(printf '\033[?2026l\0337\033[r\0338\033[0m\033[?25h\033[?2004l\033[?9;1000;1001;1002;1003;1004;1005;1006;1015;1016l\033[?1l\033>\033(B\017')
	tr -d '\r\000' <"$PTY_OUT.raw" | awk -v r="$_reset" '{
		while ((i = index($0, r)) > 0)
			$0 = substr($0, 1, i - 1) substr($0, i + length(r))
		print
	}' >"$PTY_OUT"
	return "$_rc"
}

# Confine must run here with this backend before anything is probed:
# a refusal is a failure of the suite, never a pass of its probes.
escape_preflight() {
	mkdir -p "$TEST_TMP/preflight"
	RC=0
	(cd "$TEST_TMP/preflight" && exec timeout -k 5 "$CONFINE_TIMEOUT" \
	    "$CONFINE" -w "$TEST_TMP/preflight" -- true) \
	    </dev/null >"$TEST_TMP/preflight.out" 2>"$TEST_TMP/preflight.err" ||
	    RC=$?
	[ "$RC" -eq 0 ] || {
		echo "Bail out! confine does not run with the $BACKEND backend here (status $RC): $(head -n 1 "$TEST_TMP/preflight.err")"
		exit 1
	}
	rm -rf "$TEST_TMP/preflight" "$XDG_STATE_HOME"
}
escape_preflight

# The session the last run kept, from the summary on stderr: SESSION_ID,
# PATCH, REPORT.
kept_session() {
	SESSION_ID=$(sed -n 's/^confine: session \([0-9]\{8\}-[0-9]\{6\}\(\.[0-9]\{3\}\)\{0,1\}-[0-9a-f]\{8\}\): [0-9]* files\{0,1\} changed$/\1/p' "$ERR")
	[ -n "$SESSION_ID" ] || fail "no session named on stderr"
	PATCH=$SESSIONS/$SESSION_ID/changes.patch
	REPORT=$SESSIONS/$SESSION_ID/report
	assert_exists "$PATCH"
	assert_exists "$REPORT"
}

# The paths a patch touches, as git apply reads them, one a line.
patch_paths() {
	GIT_CONFIG_NOSYSTEM=1 HOME=/nonexistent git apply --numstat -z "$1" |
	    tr '\0' '\n' | awk -F '\t' '
		r > 0 { print; r--; next }
		NF == 3 && $3 != "" { print $3; next }
		NF == 3 { r = 2 }'
}

# assert_flagged PATH: the report flags PATH, with a reason.
assert_flagged() {
	sed -n '/^flagged/,/^ignored/p' "$REPORT" >"$TEST_TMP/flagged"
	grep -q -F -e "  $1: " "$TEST_TMP/flagged" || {
		diag_file "$TEST_TMP/flagged" "flagged in the report"
		fail "the report does not flag $1"
	}
}
