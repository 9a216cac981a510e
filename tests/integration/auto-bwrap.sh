#!/bin/sh
# SPDX-License-Identifier: ISC
# auto-bwrap.sh - auto on a host without user namespaces that has a setuid
# bwrap, as hosts that restrict user namespaces ship it: auto picks bwrap,
# says why, and the command runs confined.  It needs such a host: CI makes
# one (user.max_user_namespaces=0 and confine built --with-bwrap= a setuid
# copy) where the sysctl can be set; elsewhere it skips, saying what is
# missing.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
unset CONFINE_BACKEND
BACKEND=auto

if unshare -U true 2>/dev/null; then
	skip_all "user namespaces work here (this test needs a host where they do not)"
fi
ws_dir=$(mktemp -d /tmp/confine-auto.XXXXXX) || exit 1
if ! (cd "$ws_dir" && "$CONFINE" doctor 2>/dev/null) |
    grep -q '^  bwrap: yes (.*, setuid'; then
	rm -rf "$ws_dir"
	skip_all "no setuid bwrap that can confine here (see confine doctor)"
fi
rm -rf "$ws_dir"
plan 3

t_dry_run() {
	ws_new
	run_confine --dry-run -- true
	assert_status "$RC" 0
	assert_file_has_content "$OUT" \
	    '^backend: bwrap \(auto: no user namespaces for confine: .*, setuid, can build the sandbox\)'
	assert_file_has_content "$OUT" '^bwrap: .* \(setuid\)$'
}

t_runs_confined() {
	ws_new
	run_confine -- sh -c '
		echo changed >>README
		cat /proc/1/comm
		grep -E "^(CapEff|CapBnd|NoNewPrivs|Seccomp):" /proc/self/status
		ls "'"$HOME"'" | wc -l'
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^CapEff:[[:space:]]+0+$'
	assert_file_has_content "$OUT" '^CapBnd:[[:space:]]+0+$'
	assert_file_has_content "$OUT" '^NoNewPrivs:[[:space:]]+1$'
	assert_file_has_content "$OUT" '^Seccomp:[[:space:]]+2$'
	assert_file_has_content "$OUT" '^0$'
	assert_ws_unchanged
	id=$(sessions)
	grep -q '^+changed$' "$SESSIONS/$id/changes.patch" ||
	    fail "the patch does not hold the change"
}

t_native_refused() {
	ws_new
	run_confine --backend native -- echo RAN
	assert_status "$RC" 125
	assert_not_file_has_content "$OUT" RAN
	assert_file_has_content "$ERR" 'user namespaces cannot be used here'
}

tcase "auto without user namespaces, setuid bwrap: bwrap, and why" t_dry_run
tcase "auto with a setuid bwrap: the command runs confined" t_runs_confined
tcase "--backend native without user namespaces: refused" t_native_refused
tap_done
