# SPDX-License-Identifier: ISC
# net-lib.sh - sourced after lib.sh by the network tests: the probe
# helper and its servers.

NETPROBE=$TESTS_SRCDIR/helpers/netprobe.py
[ -r "$NETPROBE" ] || {
	echo "Bail out! no $NETPROBE"
	exit 1
}

# start_server NAME KIND ARG...: netprobe serve-KIND in the background;
# prints what it wrote to its ready file (a port, or "ready").
start_server() {
	_rf=$TEST_TMP/ready.$1
	_kind=$2
	shift 2
	python3 "$NETPROBE" "serve-$_kind" "$@" "$_rf" </dev/null \
	    >/dev/null 2>"$TEST_TMP/server.err" &
	track_pid $!
	wait_for 10 test -s "$_rf" || return 1
	cat "$_rf"
}

# The landlock backend refuses proxy mode before anything runs (no network
# namespace of its own).  proxy_tcase DESCRIPTION FUNCTION: on landlock,
# FUNCTION's first confine run must be that refusal, and the case ends
# there; elsewhere, tcase.
proxy_tcase() {
	if [ "$BACKEND" = landlock ]; then
		tcase "$1 (landlock: refused, 125)" proxy_refused "$2"
	else
		tcase "$1" "$2"
	fi
}

proxy_refused_hook() {
	assert_status "$RC" 125
	assert_refusal "$ERR"
	assert_file_has_content "$ERR" \
	    '^confine: backend landlock .*cannot offer network mode proxy: '
	assert_file_empty "$OUT"
	assert_no_session
	assert_ws_unchanged
	exit 0
}

proxy_refused() {
	RUN_CONFINE_HOOK=proxy_refused_hook
	"$1"
	fail "$1 ran no confine"
}
