#!/bin/sh
# SPDX-License-Identifier: ISC
# doctor.sh - confine doctor reports what this kernel supports, and the
# backend auto picks, in agreement with what the tests find themselves.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
require_userns
require_try_syscall
plan 7

probes() {
	ls -d /tmp/confine-probe-* 2>/dev/null || true
}

# Run doctor from a workspace: it must change nothing there either.
run_doctor() {
	ws_new
	before=$(probes)
	run_confine doctor
	assert_eq "$(probes)" "$before" "probe directories left in /tmp"
	assert_no_session
	assert_ws_unchanged
}

# The helper programs beside the built confine (a build tree) are the ones
# it runs; each line names the path, which is executable.
t_helpers() {
	run_doctor
	assert_file_has_content "$OUT" '^helpers:$'
	for h in confine-export confine-keyholder; do
		p=$(sed -n "s|^  $h: \([^ ]*\) (.*|\1|p" "$OUT")
		[ -n "$p" ] && [ "$p" != missing ] || fail "no path for $h"
		[ -x "$p" ] || fail "$h: $p is not executable"
	done
}

t_landlock() {
	run_doctor
	abi=$(landlock_abi)
	if [ "${abi:-0}" -ge 1 ]; then
		assert_file_has_content "$OUT" "^landlock: ABI $abi[ ;]"
	else
		assert_file_has_content "$OUT" '^landlock: not available'
	fi
}

t_userns_overlay() {
	# Control: overlayfs mounts in a user namespace of our own.
	d=$TEST_TMP/ovl
	mkdir -p "$d/l" "$d/u" "$d/w" "$d/m"
	unshare -Urm sh -c 'mount -t overlay overlay -o "lowerdir=$1/l,upperdir=$1/u,workdir=$1/w,userxattr" "$1/m"' \
	    sh "$d" 2>"$TEST_TMP/ovl.err" ||
	    skip_case "overlayfs cannot be mounted in a user namespace here: $(cat "$TEST_TMP/ovl.err")"
	run_doctor
	assert_file_has_content "$OUT" '^user namespaces with overlayfs: yes$'
}

t_seccomp() {
	run_doctor
	if grep -q '^Seccomp:[[:space:]]*0$' /proc/self/status; then
		assert_file_has_content "$OUT" '^seccomp: yes'
	else
		assert_file_has_content "$OUT" '^seccomp: already filtered'
	fi
}

# Each backend's line; the ones it says yes to do run.
t_backends() {
	ws_new
	run_doctor
	assert_file_has_content "$OUT" '^backends:$'
	assert_file_has_content "$OUT" '^  native: yes$'
	assert_file_has_content "$OUT" '^  landlock: yes \(weaker: '
	assert_file_has_content "$OUT" '^  bwrap: '
	cp "$OUT" "$TEST_TMP/doctor.out"
	for b in native bwrap landlock; do
		if grep -q "^  $b: yes" "$TEST_TMP/doctor.out"; then
			run_confine --backend "$b" -- true
			assert_status "$RC" 0
		fi
	done
	if [ -x /usr/bin/bwrap ]; then
		assert_file_has_content "$TEST_TMP/doctor.out" '^  bwrap: yes \(/'
		# Which mechanism keeps host sockets out, bound whenever.
		assert_file_has_content "$TEST_TMP/doctor.out" \
		    '^    host unix sockets: unreachable: .*\(seccomp user notification\)$'
	else
		assert_file_has_content "$TEST_TMP/doctor.out" \
		    '^  bwrap: no: .* is not installed$'
	fi
}

t_auto() {
	run_doctor
	assert_file_has_content "$OUT" '^auto: native$'
	assert_status "$RC" 0
}

# The backend doctor names is the one that runs.
t_auto_runs() {
	ws_new
	run_confine -- true
	assert_status "$RC" 0
	run_doctor
	assert_file_has_content "$OUT" '^auto: native$'
}

tcase "landlock: the kernel's ABI" t_landlock
tcase "user namespaces with overlayfs: yes" t_userns_overlay
tcase "seccomp: available" t_seccomp
tcase "backends: each named, and each it says yes to runs" t_backends
tcase "auto: native, exit 0" t_auto
tcase "confine runs here, and doctor agrees" t_auto_runs
tcase "helpers: the export and the keyholder, found where confine runs them" t_helpers
tap_done
