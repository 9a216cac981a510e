#!/bin/sh
# SPDX-License-Identifier: ISC
# backends.sh - auto's choice on a host without user namespaces, for real:
# each case runs confine inside a user namespace whose
# user.max_user_namespaces is 0, so confine can create none (as on a host
# with the sysctl at 0, or a container).  auto must fall back to a backend
# that confines (here: landlock, as bwrap cannot drop the bounding set as
# uid 0 without a user namespace of its own), say which and why, and never
# run the command unconfined.  The last cases run confine under a seccomp
# filter that refuses user namespaces while the sysctls allow them (as a
# container's does; tests/helpers/no-userns.c): the probe finds it before
# the plan, and nothing is retried.  Run once, not per backend: it is
# about auto.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
unset CONFINE_BACKEND
BACKEND=auto
require_userns
plan 9

# no_userns CMD...: run CMD where no user namespace can be created.
no_userns() {
	unshare -U -r sh -c 'echo 0 >/proc/sys/user/max_user_namespaces &&
	    exec "$@"' sh "$@"
}

# run_no_userns CONFINE-ARG...: run_confine, without user namespaces.
run_no_userns() {
	RC=0
	(
		cd "${RUN_CWD:-$WS}" || exit 1
		exec timeout -k 5 "$CONFINE_TIMEOUT" unshare -U -r sh -c \
		    'echo 0 >/proc/sys/user/max_user_namespaces &&
		    exec "$@"' sh "$CONFINE" "$@" \
		    </dev/null >"$OUT" 2>"$ERR"
	) || RC=$?
}

t_simulated() {
	no_userns unshare -U true 2>/dev/null &&
	    fail "a user namespace could still be created"
	:
}

t_dry_run() {
	ws_new
	run_no_userns --dry-run -- true
	assert_status "$RC" 0
	assert_file_has_content "$OUT" \
	    '^backend: landlock \(auto: no user namespaces: user.max_user_namespaces is 0; bwrap: '
	assert_file_has_content "$OUT" '^  weaker here: no pid namespace'
	assert_file_has_content "$OUT" '^namespaces: none$'
}

# The command runs confined: the host workspace, home and /tmp are out of
# its reach; its writes go to the session's copy and come back as a patch.
t_runs_confined() {
	ws_new
	marker=$TEST_TMP/host-tmp-marker.$$
	run_no_userns -v -- sh -c '
		echo changed >>README
		echo new >"'"$WS"'/host-write" 2>/dev/null && echo HOST-WRITTEN
		ls "'"$HOME"'" >/dev/null 2>&1 && echo HOME-READ
		echo x >"'"$marker"'" 2>/dev/null && echo TMP-WRITTEN
		pwd'
	assert_status "$RC" 0
	assert_not_file_has_content "$OUT" 'HOST-WRITTEN|HOME-READ|TMP-WRITTEN'
	assert_file_has_content "$OUT" "/confine/sessions/[^/]*/upper\$"
	assert_file_has_content "$ERR" '^confine: backend: landlock \(auto: '
	assert_file_has_content "$ERR" '^confine: backend landlock: weaker than native: '
	[ ! -e "$marker" ] || fail "the command wrote the host's /tmp"
	assert_ws_unchanged
	id=$(sessions)
	[ -n "$id" ] || fail "no session kept"
	grep -q '^+changed$' "$SESSIONS/$id/changes.patch" ||
	    fail "the patch does not hold the change"
}

# Proxy mode cannot be confined without a network namespace: refused.
t_proxy_refused() {
	ws_new
	run_no_userns -n proxy -- sh -c 'echo RAN'
	assert_status "$RC" 125
	assert_not_file_has_content "$OUT" RAN
	assert_file_has_content "$ERR" 'cannot offer network mode proxy'
	assert_no_session
	assert_ws_unchanged
}

# Asking for native where it cannot run: refused, with the reason.
t_native_refused() {
	ws_new
	run_no_userns --backend native -- sh -c 'echo RAN'
	assert_status "$RC" 125
	assert_not_file_has_content "$OUT" RAN
	assert_file_has_content "$ERR" \
	    '^confine: backend native \(option --backend\): user namespaces cannot be used here: user.max_user_namespaces is 0'
	assert_no_session
}

# A container's filter refuses user namespaces while the sysctls say yes:
# the probe tries one up front, and auto chooses once, from that.
NO_USERNS_FILTER=$TESTS_BUILDDIR/helpers/no-userns

# run_filtered CONFINE-ARG...: run_confine under the no-userns filter.
run_filtered() {
	[ -x "$NO_USERNS_FILTER" ] || {
		echo "Bail out! no helper at $NO_USERNS_FILTER (make check builds it)"
		exit 1
	}
	RC=0
	(
		cd "${RUN_CWD:-$WS}" || exit 1
		exec timeout -k 5 "$CONFINE_TIMEOUT" "$NO_USERNS_FILTER" \
		    "$CONFINE" "$@" </dev/null >"$OUT" 2>"$ERR"
	) || RC=$?
}

t_filter_dry_run() {
	ws_new
	run_filtered --dry-run -- true
	assert_status "$RC" 0
	assert_file_has_content "$OUT" \
	    '^backend: (landlock|bwrap) \(auto: no user namespaces( for confine)?: creating them fails \(a container'"'"'s seccomp filter, or a sysctl\)'
}

t_filter_runs() {
	ws_new
	run_filtered -v -- sh -c 'echo RAN'
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^RAN$'
	assert_file_has_content "$ERR" \
	    '^confine: backend: (landlock|bwrap) \(auto: no user namespaces( for confine)?: creating them fails'
	assert_not_file_has_content "$ERR" 'backend: native|cannot start, trying'
	assert_ws_unchanged
}

t_filter_native_refused() {
	ws_new
	run_filtered --backend native -- sh -c 'echo RAN'
	assert_status "$RC" 125
	assert_not_file_has_content "$OUT" RAN
	assert_file_has_content "$ERR" \
	    '^confine: namespaces: cannot create them: Operation not permitted'
	assert_no_session
}

# The network stays closed on the fallback: no socket but AF_UNIX.
t_network_closed() {
	ws_new
	require_try_syscall
	run_no_userns -- .t/try-syscall socket_inet
	assert_file_has_content "$OUT" 'socket_inet .*(EAFNOSUPPORT|EACCES|EPERM)'
	assert_ws_unchanged
}

tcase "the simulation: no user namespace can be created" t_simulated
tcase "auto without user namespaces: landlock, and --dry-run says why" t_dry_run
tcase "auto without user namespaces: the command runs confined" t_runs_confined
tcase "auto without user namespaces: proxy mode refused, nothing runs" t_proxy_refused
tcase "--backend native without user namespaces: refused with the reason" t_native_refused
tcase "auto without user namespaces: no socket family but AF_UNIX" t_network_closed
tcase "auto under a filter refusing user namespaces: chosen up front" t_filter_dry_run
tcase "auto under a filter refusing user namespaces: runs, native never tried" t_filter_runs
tcase "--backend native under such a filter: refused with the reason" t_filter_native_refused
tap_done
