#!/bin/sh
# SPDX-License-Identifier: ISC
# notify-files.sh - host sockets and host files on the bwrap and landlock
# backends, where seccomp user notification holds them (src/run/notify.c,
# src/run/notify-meta.c): a host unix socket bound after the session began, in a --ro
# directory and in a system tree the sandbox sees, is unreachable, also
# by a send whose fd another thread swaps meanwhile, while the sandbox's
# own sockets work; and a read-only host tree keeps its
# times, inode flags, extended attributes and locks whatever the command
# tries, while the same calls work on its own files.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
case ${CONFINE_BACKEND:-native} in
native | auto)
	# Before escape-lib.sh, whose preflight runs confine.
	echo "1..0 # SKIP native: read-only overlays, tests/escape/hostfiles.sh"
	exit 0 ;;
esac
. "$TESTS_SRCDIR/escape-lib.sh"
plan 2

PROBE=$TESTS_BUILDDIR/helpers/notify-probe
[ -x "$PROBE" ] || {
	echo "Bail out! no notify-probe helper at $PROBE (make check builds it)"
	exit 1
}
command -v python3 >/dev/null || skip_all "python3 is needed for the host's servers and the manifest"

# probe_ws: the probe in the workspace, as the command finds it.
probe_ws() {
	cp "$PROBE" "$WS/.t/notify-probe"
	PROBE_IN=$WS/.t/notify-probe
	[ "$BACKEND" != landlock ] || PROBE_IN=./.t/notify-probe
	host_snapshot
}

# The host's late servers: a stream and a datagram socket in each DIR,
# bound once READY... exists, "ready" in FILE; they live until killed,
# reading every datagram (a full queue would refuse one that got there).
late_servers() {
	_file=$1
	shift
	python3 -c '
import select, socket, sys
socks, dgrams = [], []
for d in sys.argv[1:]:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(d + "/s"); s.listen(8); socks.append(s)
    g = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    g.bind(d + "/d"); dgrams.append(g)
print("ready", flush=True)
while select.select(dgrams, [], [], 600)[0]:
    for g in dgrams:
        try: g.recv(65536, socket.MSG_DONTWAIT)
        except BlockingIOError: pass
' "$@" >"$_file" 2>&1 &
	track_pid $!
	wait_for 10 grep -qs '^ready$' "$_file" || fail "the host's servers did not start"
}

# assert_all ERE PREFIX...: every probe line of each PREFIX matches.
assert_all() {
	_want=$1
	shift
	for _p in "$@"; do
		grep -q "^${_p}_" "$OUT" || fail "no line for $_p"
		awk -v p="${_p}_" -v w="^($_want)\$" 'index($1, p) == 1 && $2 !~ w {
			print "# " $0; bad = 1 } END { exit bad }' "$OUT" ||
		    fail "$_p: not every call gave /$_want/"
	done
}

# Item 1: a host socket bound after the start is not reachable, in a
# --ro directory and in /var/tmp (a system tree the sandbox sees), not
# even by the send race (a sendmsg decided on a UDP socket and made on
# an unconnected unix one dup2'd over its fd); the sandbox's own
# sockets, in its tmp and in the workspace, work.
t_late_sockets() {
	esc_ws
	probe_ws
	ro=$TEST_TMP/ro-sock
	mkdir -p "$ro"
	sys=
	if [ -d /var/tmp ] && [ -w /var/tmp ]; then
		sys=$(host_scratch "$(mktemp -d /var/tmp/confine-late.XXXXXX)")
		chmod 0755 "$sys"
	fi
	sig=$TEST_TMP/sig
	mkdir -p "$sig"
	# The command starts, says so, and waits for the host's servers.
	(
		cd "$WS" && exec timeout -k 5 "$CONFINE_TIMEOUT" "$CONFINE" \
		    --ro "$ro" --ro "$sig" -- sh -c '
			p=$1 ro=$2 sys=$3 sig=$4
			echo started
			i=0
			while [ ! -e "$sig/go" ] && [ $i -lt 1200 ]; do
				sleep 0.1; i=$((i + 1))
			done
			"$p" connect:ro_stream:"$ro/s" sendto:ro_dgram:"$ro/d" \
			    race:race:"$ro/d"
			[ -z "$sys" ] || "$p" connect:sys_stream:"$sys/s" \
			    sendto:sys_dgram:"$sys/d"
			"$p" selftest:tmp:"${TMPDIR:-/tmp}" selftest:ws:.
			' sh "$PROBE_IN" "$ro" "$sys" "$sig"
	) </dev/null >"$OUT" 2>"$ERR" &
	pid=$!
	track_pid $pid
	wait_for 30 grep -qs '^started$' "$OUT" || {
		diag_file "$ERR" "confine's stderr"
		fail "the command did not start"
	}
	late_servers "$TEST_TMP/servers" "$ro" ${sys:+"$sys"}
	# Control: outside, the late sockets answer.
	"$PROBE" connect:ctl_stream:"$ro/s" sendto:ctl_dgram:"$ro/d" \
	    race:ctl_race:"$ro/d" >"$TEST_TMP/control"
	assert_file_has_content "$TEST_TMP/control" '^ctl_stream OK$'
	assert_file_has_content "$TEST_TMP/control" '^ctl_dgram OK$'
	# The race's swaps work: some of its datagrams go.
	assert_file_has_content "$TEST_TMP/control" '^ctl_race_sent [1-9][0-9]*$'
	: >"$sig/go"
	RC=0
	wait "$pid" || RC=$?
	drop_notice "$ERR"
	assert_status "$RC" 0
	case $BACKEND in
	# socket(AF_UNIX) itself is refused below landlock ABI 9.
	landlock) refused='EACCES|EPERM|EAFNOSUPPORT' ;;
	*) refused='EACCES' ;;
	esac
	assert_all "$refused" ro
	[ -z "$sys" ] || assert_all "$refused" sys
	# The swaps happened, and no datagram went.
	assert_file_has_content "$OUT" '^race_sent 0$'
	if [ "$BACKEND" != landlock ] || [ "$(landlock_abi)" -ge 9 ]; then
		assert_file_has_content "$OUT" '^race_swapped yes$'
	fi
	if [ "$BACKEND" = landlock ] && [ "$(landlock_abi)" -lt 9 ]; then
		assert_all "$refused" tmp ws
	else
		assert_all OK tmp ws
	fi
	assert_host_unchanged
}

# manifest DIR: names, mtimes, ctimes, modes, inode flags and extended
# attributes of every file under DIR.
manifest() {
	find "$1" -printf '%p %T@ %C@ %m\n' | sort
	lsattr -R "$1" 2>/dev/null | sort || :
	python3 -c '
import os, sys
for top, dirs, files in sorted(os.walk(sys.argv[1])):
    for n in sorted(dirs + files):
        p = os.path.join(top, n)
        for x in sorted(os.listxattr(p, follow_symlinks=False)):
            print(p, x, os.getxattr(p, x, follow_symlinks=False))
' "$1"
}

# setx FILE: a user xattr, for removexattr to try, where the fs has them.
setx() {
	python3 -c 'import os, sys; os.setxattr(sys.argv[1], "user.confine0", b"keep")' "$1" 2>/dev/null || :
}

# Item 4: every call that changes a file without writing it fails on a
# read-only host file with the backend's errno, changes nothing in the
# tree's manifest, and its lock attempt leaves a host flock free; on the
# command's own files (the workspace, its tmp) they work.
t_readonly_files() {
	esc_ws
	probe_ws
	tree=$TEST_TMP/ro-tree
	mkdir -p "$tree/sub" "$TEST_TMP/sig2"
	printf 'a\n' >"$tree/a"
	printf 'b\n' >"$tree/sub/b"
	setx "$tree/a"
	setx "$tree/sub/b"
	# Control: outside, the calls work on a file like the tree's, and a
	# lock held there blocks the host's flock -n.
	cp -p "$tree/a" "$TEST_TMP/ctl"
	setx "$TEST_TMP/ctl"
	"$PROBE" files:ctl:"$TEST_TMP/ctl" >"$TEST_TMP/control"
	for c in futimens utimensat flock_ex setlk_rd ofd_rd; do
		assert_file_has_content "$TEST_TMP/control" "^ctl_$c OK\$"
	done
	rm -f "$TEST_TMP/sig2/ready" "$TEST_TMP/sig2/go"
	"$PROBE" hold:"$TEST_TMP/ctl":"$TEST_TMP/sig2/ready":"$TEST_TMP/sig2/go" \
	    >"$TEST_TMP/hold.out" &
	track_pid $!
	wait_for 10 test -e "$TEST_TMP/sig2/ready" || fail "the control's hold did not start"
	if flock -n "$TEST_TMP/ctl" true; then
		fail "control: a lock of the probe's does not block the host's flock -n"
	fi
	: >"$TEST_TMP/sig2/go"
	rm -f "$TEST_TMP/sig2/ready" "$TEST_TMP/sig2/go"

	manifest "$tree" >"$TEST_TMP/manifest.before"
	sleep 0.01
	(
		cd "$WS" && exec timeout -k 5 "$CONFINE_TIMEOUT" "$CONFINE" \
		    --ro "$tree" --ro "$TEST_TMP/sig2" -- sh -c '
			p=$1 tree=$2 sig=$3
			printf "own\n" >own
			printf "tmp\n" >"${TMPDIR:-/tmp}/own"
			"$p" files:ro:"$tree/a" files:rosub:"$tree/sub/b" \
			    files:own:own files:tmp:"${TMPDIR:-/tmp}/own"
			"$p" hold:"$tree/a":"$sig/ready":"$sig/go"
			' sh "$PROBE_IN" "$tree" "$TEST_TMP/sig2"
	) </dev/null >"$OUT" 2>"$ERR" &
	pid=$!
	track_pid $pid
	wait_for 30 grep -qs '^hold ' "$OUT" || {
		diag_file "$ERR" "confine's stderr"
		fail "the command did not try its lock"
	}
	# While the command holds its attempt: the host's flock -n is free.
	flock -n "$tree/a" true || fail "the host cannot lock a read-only file the sandbox tried to lock"
	: >"$TEST_TMP/sig2/go"
	RC=0
	wait "$pid" || RC=$?
	drop_notice "$ERR"
	assert_status "$RC" 0
	manifest "$tree" >"$TEST_TMP/manifest.after"
	cmp -s "$TEST_TMP/manifest.before" "$TEST_TMP/manifest.after" || {
		diff "$TEST_TMP/manifest.before" "$TEST_TMP/manifest.after" |
		    sed 's/^/# manifest: /'
		fail "the read-only tree changed"
	}
	case $BACKEND in
	bwrap) refused='EROFS' ;;
	*) refused='EPERM|EROFS' ;;
	esac
	assert_all "$refused" ro rosub
	assert_file_has_content "$OUT" "^hold ($refused)\$"
	# The command's own files: times, locks and xattrs work (landlock:
	# done by the supervisor); a lease needs no other opener (EAGAIN is
	# the kernel's).
	for who in own tmp; do
		for c in futimens utimensat flock_sh flock_ex setlk_rd setlkw_rd ofd_rd; do
			assert_file_has_content "$OUT" "^${who}_$c OK\$"
		done
		assert_file_has_content "$OUT" "^${who}_lease_rd (OK|EAGAIN)\$"
		for c in setxattr fsetxattr; do
			assert_file_has_content "$OUT" "^${who}_$c (OK|EOPNOTSUPP)\$"
		done
	done
	assert_host_unchanged
}

tcase "late host sockets unreachable, the sandbox's own work" t_late_sockets
tcase "read-only host files unchanged, their locks free; own files work" t_readonly_files
tap_done
