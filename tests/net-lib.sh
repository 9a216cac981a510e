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
