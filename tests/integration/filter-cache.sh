#!/bin/sh
# SPDX-License-Identifier: ISC
# filter-cache.sh - the compiled seccomp filter, kept between runs in
# $XDG_STATE_HOME/confine/filters, on every backend: a kept one is loaded
# (a forged one that kills shows it), an unsafe or broken one is ignored
# and compiled again, and where the profile lets the sandbox write the
# cache's directory (a direct path above it), the cache is neither read
# nor written.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
. "$TESTS_SRCDIR/profile-lib.sh"
plan 4

# The kept filter: one file.
kept_filter() {
	FILTER=$(ls "$XDG_STATE_HOME"/confine/filters/*.bpf 2>/dev/null)
	[ -n "$FILTER" ] && [ "$(echo "$FILTER" | wc -l)" -eq 1 ] ||
	    fail "no one kept filter: $FILTER"
}

# One BPF instruction: return SECCOMP_RET_KILL_PROCESS.
kill_filter() {
	printf '\006\000\000\000\000\000\000\200' >"$1"
}

t_filter_kept() {
	ws_new
	run_confine -- sh -c 'grep ^Seccomp: /proc/self/status'
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^Seccomp:[[:space:]]+2$'
	kept_filter
	[ "$(stat -c %a "$FILTER")" = 600 ] || fail "the filter is not 0600"
	[ $(($(stat -c %s "$FILTER") % 8)) -eq 0 ] ||
	    fail "the kept filter is not whole instructions"
	cp "$FILTER" "$TEST_TMP/first.bpf"
	run_confine -- sh -c 'grep ^Seccomp: /proc/self/status'
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^Seccomp:[[:space:]]+2$'
	cmp -s "$FILTER" "$TEST_TMP/first.bpf" ||
	    fail "the kept filter changed between two runs"
}

# A run keeps its filter; one that kills, put in its place as the user's
# own, is the one the next run loads: that run dies.
kill_kept_filter() {
	run_confine -- true
	assert_status "$RC" 0
	kept_filter
	kill_filter "$FILTER"
	chmod 0600 "$FILTER"
	run_confine -- echo RAN
	assert_ne "$RC" 0
	assert_not_file_has_content "$OUT" '^RAN$'
}

t_filter_used() {
	ws_new
	# Positive control: a kept filter of the user's is the one loaded.
	kill_kept_filter
	# Writable by others: ignored, compiled again, replaced.
	kill_filter "$FILTER"
	chmod 0620 "$FILTER"
	run_confine -- echo RAN
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^RAN$'
	[ "$(stat -c %a "$FILTER")" = 600 ] || fail "not replaced"
	[ "$(stat -c %s "$FILTER")" -ne 8 ] || fail "kept the forged filter"
}

t_filter_broken() {
	ws_new
	run_confine -- true
	assert_status "$RC" 0
	kept_filter
	printf 'abc' >"$FILTER"
	run_confine -- echo RAN
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^RAN$'
	[ $(($(stat -c %s "$FILTER") % 8)) -eq 0 ] || fail "not replaced"
	kill_filter "$TEST_TMP/killer"
	rm -f "$FILTER"
	ln -s "$TEST_TMP/killer" "$FILTER"
	run_confine -- echo RAN
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^RAN$'
	chmod 0777 "$XDG_STATE_HOME/confine/filters"
	rm -f "$FILTER"
	kill_filter "$FILTER"
	chmod 0600 "$FILTER"
	run_confine -- echo RAN
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^RAN$'
}

# A filter the sandbox could write would be the next run's: where the
# profile makes the cache's directory writable inside, the cache is not
# used.  The state directory under /var/tmp, a host directory the
# sandbox shows.
t_filter_direct() {
	require_leg_c_caller
	vartmp_dir
	ws_new
	cfg_new
	XDG_STATE_HOME=$VT/state
	export XDG_STATE_HOME
	mkdir -p "$XDG_STATE_HOME/confine/filters"
	prof direct >/dev/null <<-EOF
	[profile]
	quadrant = online
	[workspace]
	private = no
	[filesystem]
	direct = $XDG_STATE_HOME/confine/filters
	EOF
	# Control: the sandbox does write there, and without the profile a
	# kept filter is loaded.
	run_confine -p direct -- sh -c "echo x >'$XDG_STATE_HOME/confine/filters/w' && echo wrote"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^wrote$'
	rm -f "$XDG_STATE_HOME/confine/filters/w"
	kill_kept_filter
	# With it: compiled, the kept one neither loaded nor replaced.
	run_confine -p direct -- sh -c 'echo RAN; grep ^Seccomp: /proc/self/status'
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^RAN$'
	assert_file_has_content "$OUT" '^Seccomp:[[:space:]]+2$'
	[ "$(stat -c %s "$FILTER")" -eq 8 ] || fail "the cache was written"
	[ "$(ls "$XDG_STATE_HOME/confine/filters" | wc -l)" -eq 1 ] ||
	    fail "the cache was written: $(ls "$XDG_STATE_HOME/confine/filters")"
}

tcase "the compiled filter is kept, the same each run" t_filter_kept
tcase "a kept filter is loaded; one others may write is not" t_filter_used
tcase "a broken kept filter, a symlink, or one in a directory others may write: ignored" t_filter_broken
tcase "a profile that makes the cache writable inside: the cache is not used" t_filter_direct
tap_done
