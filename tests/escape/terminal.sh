#!/bin/sh
# SPDX-License-Identifier: ISC
# terminal.sh - escape catalogue 4.1: nothing the command does types into
# the user's shell or signals the user's terminal session.  Each probe runs
# in a pseudo-terminal of its own (script(1)), as a user's shell does: the
# control types into it from outside confine, the attempt from inside, and
# the shell then reads what was typed.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
. "$TESTS_SRCDIR/escape-lib.sh"
command -v script >/dev/null 2>&1 || skip_all "no script(1) to make a terminal"
command -v bash >/dev/null 2>&1 || skip_all "no bash for read -t"
plan 8

# What the user's shell reads within 3 s after the command: GOT[...].
READ_BACK='bash -c '\''read -t 3 -r l; echo "GOT[$l]"'\'''

# The control: TIOCSTI typed into the terminal from outside (REDIR is
# the probe's stdin redirection, PATH its target).
control_inject() {
	on_pty <<EOF || true
cd '$WS'
'$TRY_SYSCALL' '$1:$2' $3
$READ_BACK
EOF
	if grep -q "^$1 EIO\$\|^$1 EPERM\$" "$PTY_OUT" &&
	    [ "$(cat /proc/sys/dev/tty/legacy_tiocsti 2>/dev/null)" = 0 ]; then
		skip_case "the kernel refuses TIOCSTI (dev.tty.legacy_tiocsti = 0)"
	fi
	grep -q '^GOT\[confine-injected\]$' "$PTY_OUT" || {
		diag_file "$PTY_OUT" "the terminal"
		fail "control: $1 did not type into the terminal outside"
	}
}

# inject_inside PROBE PATH [REDIR] WANT: the same from inside confine.
inject_inside() {
	on_pty <<EOF || true
cd '$WS'
'$CONFINE' -- '$TRY_IN' '$1:$2' $3
echo "RC[\$?]"
$READ_BACK
EOF
	# try-syscall exits 1 when it cannot open PATH.
	assert_file_has_content "$PTY_OUT" '^RC\[[01]\]$'
	assert_try "$1" "$4" "$PTY_OUT"
	assert_file_has_content "$PTY_OUT" '^GOT\[\]$'
	assert_not_file_has_content "$PTY_OUT" 'GOT\[confine-injected'
}

# T1, T2: the command on a terminal gets a pty of its own; TIOCSTI on it
# is refused, and nothing reaches the user's terminal.
t_relay() {
	esc_ws
	control_inject "$1" /dev/tty
	inject_inside "$1" /dev/tty '' EPERM
	assert_host_unchanged
}

# T4: stdin redirected, stdout the terminal.
t_noctty() {
	esc_ws
	control_inject ioctl_tiocsti_inject /dev/tty '</dev/null'
	# stdout is a terminal: the command's is a pty of the sandbox's, its
	# controlling terminal, where TIOCSTI is refused.
	inject_inside ioctl_tiocsti_inject /dev/tty '</dev/null' EPERM
	assert_host_unchanged
}

# The user's terminal as the command's stdout: not its controlling
# terminal inside (the kernel refuses), and the ioctl is filtered.
t_stdout() {
	esc_ws
	control_inject ioctl_tiocsti_inject fd:1 '</dev/null'
	inject_inside ioctl_tiocsti_inject fd:1 '</dev/null' EPERM
	assert_host_unchanged
}

# T3: TIOCLINUX.  No virtual console here, so the control shows only
# that the call reaches the kernel (its paste cannot be shown outside a
# VT); inside, the filter refuses it, and no console device is there.
# The landlock backend has no /dev of its own: the host's console
# devices can be named (stat), but Landlock opens none of them.
VT_DEVS='/dev/console /dev/tty0 /dev/tty1 /dev/tty63 /dev/vcs /dev/vcs1 /dev/vcsa /dev/vcsa1'
t_tioclinux() {
	esc_ws
	on_pty <<EOF || true
'$TRY_SYSCALL' ioctl_tioclinux:/dev/tty ioctl_tioclinux_high:/dev/tty
EOF
	assert_try ioctl_tioclinux 'ENOTTY|EINVAL|OK' "$PTY_OUT"
	assert_try ioctl_tioclinux_high 'ENOTTY|EINVAL|OK' "$PTY_OUT"
	on_pty <<EOF || true
cd '$WS'
'$CONFINE' -- sh -c '"\$0" ioctl_tioclinux:/dev/tty ioctl_tioclinux_high:/dev/tty; ls -d /dev/tty[0-9]* /dev/vcs* 2>/dev/null | sed "s/^/DEV /"; for d in $VT_DEVS; do [ -e "\$d" ] || continue; echo "NAMED \$d"; { true <"\$d"; } 2>/dev/null && echo "OPENED \$d"; { true >>"\$d"; } 2>/dev/null && echo "OPENED \$d"; done; echo DONE' '$TRY_IN'
EOF
	assert_try ioctl_tioclinux EPERM "$PTY_OUT"
	assert_try ioctl_tioclinux_high EPERM "$PTY_OUT"
	assert_file_has_content "$PTY_OUT" '^DONE$'
	assert_not_file_has_content "$PTY_OUT" '^OPENED '
	case $BACKEND in
	landlock) ;;	# the host's /dev: named, but not listed or opened
	*) assert_not_file_has_content "$PTY_OUT" '^NAMED ' ;;
	esac
	assert_not_file_has_content "$PTY_OUT" '^DEV '
	assert_host_unchanged
}

# The user's terminal session (its process group) cannot be signalled.
t_session() {
	esc_ws
	on_pty <<EOF || true
cd '$WS'
sid=\$(cut -d' ' -f6 /proc/self/stat)
kill -0 "-\$sid" && echo "OUTSIDE-OK"
'$CONFINE' -- sh -c 'kill -HUP "-\$1" 2>&1 && echo INSIDE-SENT; kill -0 "-\$1" 2>&1 || echo INSIDE-REFUSED' sh "\$sid"
echo "ALIVE[\$?]"
EOF
	assert_file_has_content "$PTY_OUT" '^OUTSIDE-OK$'
	assert_not_file_has_content "$PTY_OUT" 'INSIDE-SENT'
	assert_file_has_content "$PTY_OUT" '^INSIDE-REFUSED$'
	case $BACKEND in
	landlock)
		# No pid namespace: the group exists, a Landlock scope refuses.
		assert_file_has_content "$PTY_OUT" 'Operation not permitted' ;;
	*)
		assert_file_has_content "$PTY_OUT" 'No such process' ;;
	esac
	assert_file_has_content "$PTY_OUT" '^ALIVE\[0\]$'
	assert_host_unchanged
}

# T5: a process the command leaves behind (in a session of its own) does
# not outlive confine, so it cannot type or write later.
t_background() {
	esc_ws
	n=$(unique_num)
	pattern="sleep 4\\.$n"
	# Control: outside, such a process outlives its parent.
	sh -c "setsid sleep 4.$n </dev/null >/dev/null 2>&1 &"
	wait_for 5 pgrep -f "$pattern" >/dev/null ||
	    fail "control: the background process did not outlive its parent"
	pkill -f "$pattern" || true
	wait_for 5 sh -c "! pgrep -f '$pattern' >/dev/null" || true
	run_confine -- sh -c 'setsid sh -c "sleep 4.$1; \"\$0\" ioctl_tiocsti_inject:/dev/tty; echo late >late" "$2" </dev/null >/dev/null 2>&1 & echo started' sh "$n" "$TRY_IN"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^started$'
	if pgrep -f "$pattern" >/dev/null; then
		pkill -9 -f "$pattern" || true
		fail "a process of the sandbox outlived confine"
	fi
	sleep 5
	assert_no_session
	assert_host_unchanged
}

# T6: names the command makes, with escape sequences in them (OSC 52
# sets the clipboard), never reach the user's terminal raw in confine's
# summary.
t_osc52() {
	esc_ws
	name=$(printf 'x\033]52;c;cHduZWQ=\007y')
	# Control: the name is made and listed raw outside.
	mkdir "$TEST_TMP/osc" && : >"$TEST_TMP/osc/$name"
	ls "$TEST_TMP/osc" | grep -q "$(printf '\033')" ||
	    fail "control: no escape byte in the name outside"
	run_confine -- sh -c ': >"$1"; printf "%s\n" "$1" >"$1.list"' sh "$name"
	assert_status "$RC" 0
	if grep -a -q "$(printf '\033\|\007')" "$ERR"; then
		fail "an escape sequence reached confine's stderr raw"
	fi
	assert_file_has_content "$ERR" 'files? changed'
	assert_host_unchanged
}

tcase "T1 TIOCSTI from a command on a terminal: EPERM, the user's shell reads nothing" t_relay ioctl_tiocsti_inject
tcase "T2 TIOCSTI with high bits in cmd: EPERM, the user's shell reads nothing" t_relay ioctl_tiocsti_high_inject
tcase "T4 TIOCSTI with stdin redirected, stdout a terminal: the sandbox's pty, EPERM" t_noctty
tcase "TIOCSTI on the user's terminal as stdout: EPERM, nothing typed" t_stdout
tcase "T3 TIOCLINUX: EPERM, and no virtual console inside" t_tioclinux
tcase "the user's terminal session cannot be signalled; its shell lives" t_session
tcase "T5 a background process does not outlive confine" t_background
tcase "T6 escape sequences in names do not reach the terminal raw" t_osc52
tap_done
