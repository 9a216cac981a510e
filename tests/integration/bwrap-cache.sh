#!/bin/sh
# SPDX-License-Identifier: ISC
# bwrap-cache.sh - what the bwrap backend keeps between runs.  bwrap's
# version is asked once per binary and kept in
# $XDG_STATE_HOME/confine/bwrap-version, keyed on the binary's identity:
# a note that matches is used (its word shows in bwrap's arguments), one
# of another binary, a forged or unsafe one is ignored and asked again.
# (The compiled seccomp filter, kept on every backend: filter-cache.sh.)
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
unset CONFINE_BACKEND
BACKEND=bwrap

ws_new
run_confine --backend bwrap -- true
if [ "$RC" -ne 0 ]; then
	skip_all "the bwrap backend cannot run here: $(head -n 1 "$ERR")"
fi
# The note's word shows as --disable-userns, which bwrap 0.8 takes where
# it makes a user namespace: not where it is setuid, nor before 0.8.
USERNS_WORD=yes
if ! grep -q '^[0-9]* [0-9]* [0-9-]* [0-9-]* [0-9]* [0-9-]* [0-9]* 0 [89]$' \
    "$XDG_STATE_HOME/confine/bwrap-version" 2>/dev/null ||
    (cd "$WS" && "$CONFINE" --backend bwrap --dry-run -- true) |
    grep -q '^bwrap: .*(setuid)$'; then
	USERNS_WORD=no
fi
plan 5

# need_word: skip a case that tells the note by --disable-userns.
need_word() {
	[ "$USERNS_WORD" = yes ] ||
	    skip_case "bwrap before 0.8 or setuid here: no --disable-userns to tell the note by"
}

NOTE=
key() {
	NOTE=$XDG_STATE_HOME/confine/bwrap-version
	mkdir -p "$XDG_STATE_HOME/confine"
}

# The note as this binary's, claiming version 0.7 (no --disable-userns).
forge() {
	_id=$(stat -L -c '%d %i %s' "$BWRAP_BIN")
	_m=$(stat -L -c '%.9Y' "$BWRAP_BIN" | tr . ' ' | sed 's/ 0*\([0-9]\)/ \1/')
	_c=$(stat -L -c '%.9Z' "$BWRAP_BIN" | tr . ' ' | sed 's/ 0*\([0-9]\)/ \1/')
	printf '%s %s %s 0 7\n' "$_id" "$_m" "$_c" >"$NOTE"
	chmod 0600 "$NOTE"
}

BWRAP_BIN=$(cd "$WS" && "$CONFINE" --backend bwrap --dry-run -- true |
    sed -n 's/^bwrap: \([^ ]*\).*/\1/p')
[ -x "$BWRAP_BIN" ] || BWRAP_BIN=/usr/bin/bwrap

t_written() {
	ws_new
	key
	rm -f "$NOTE"
	run_confine --backend bwrap -- true
	assert_status "$RC" 0
	assert_exists "$NOTE"
	assert_file_has_content "$NOTE" " [0-9][0-9]* [0-9][0-9]*$"
	[ "$(stat -c %a "$NOTE")" = 600 ] || fail "the note is not 0600"
}

t_used() {
	need_word
	ws_new
	key
	forge
	run_confine --backend bwrap -vv -- true
	assert_status "$RC" 0
	# Positive control: the note is believed when it is this binary's.
	assert_not_file_has_content "$ERR" 'bwrap argv\[[0-9]*\]: --disable-userns$'
	assert_file_has_content "$NOTE" ' 0 7$'
}

t_other_binary() {
	need_word
	ws_new
	key
	forge
	sed -i 's/^\([0-9]*\) \([0-9]*\)/\1 1\2/' "$NOTE"
	run_confine --backend bwrap -vv -- true
	assert_status "$RC" 0
	assert_file_has_content "$ERR" 'bwrap argv\[[0-9]*\]: --disable-userns$'
	assert_file_has_content "$NOTE" " 0 [89]$"
}

t_unsafe() {
	need_word
	ws_new
	key
	forge
	chmod 0620 "$NOTE"
	run_confine --backend bwrap -vv -- true
	assert_status "$RC" 0
	assert_file_has_content "$ERR" 'bwrap argv\[[0-9]*\]: --disable-userns$'
	ln -sf /nonexistent "$NOTE"
	run_confine --backend bwrap -vv -- true
	assert_status "$RC" 0
	assert_file_has_content "$ERR" 'bwrap argv\[[0-9]*\]: --disable-userns$'
}

t_broken() {
	need_word
	ws_new
	key
	printf 'garbage\n\377\000' >"$NOTE"
	chmod 0600 "$NOTE"
	run_confine --backend bwrap -vv -- true
	assert_status "$RC" 0
	assert_file_has_content "$ERR" 'bwrap argv\[[0-9]*\]: --disable-userns$'
	forge
	printf '1 2\n' >>"$NOTE"
	run_confine --backend bwrap -vv -- true
	assert_status "$RC" 0
	assert_file_has_content "$ERR" 'bwrap argv\[[0-9]*\]: --disable-userns$'
}

tcase "the version is noted, the user's own file" t_written
tcase "a note of this binary is used, bwrap is not asked" t_used
tcase "a note of another binary is ignored and replaced" t_other_binary
tcase "a note others may write, or a symlink, is ignored" t_unsafe
tcase "a broken note is ignored" t_broken
tap_done
