#!/bin/sh
# SPDX-License-Identifier: ISC
# hostfiles.sh - the host's files the sandbox sees read-only stay the
# host's: a unix socket a host service binds
# after the session started, in a --ro directory, in the workspace or in a
# system tree, is not reachable; the command's own sockets work; times,
# inode flags, xattrs, locks and leases on read-only host files either
# fail or do not touch the host inode (a manifest taken before and after,
# and a host program's lock while the session holds its own); on the
# command's own files (workspace, home, tmp) they all work.
#
# native shows the host's trees through read-only overlays (src/enforce/mounts.c);
# bwrap and landlock have the supervisor answer the calls (seccomp user
# notification, src/run/notify.c; tests/escape/notify-files.sh goes further).
# The landlock backend refuses AF_UNIX sockets altogether: the command's
# own server there is a TODO.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
. "$TESTS_SRCDIR/escape-lib.sh"
plan 36

TODO_WHY="landlock: socket(2) of AF_UNIX refused below Landlock ABI 9"
PROBE=$TESTS_BUILDDIR/helpers/hostfile-probe
[ -x "$PROBE" ] || {
	echo "Bail out! $PROBE is not built"
	exit 1
}

# check BACKENDS DESCRIPTION FUNCTION [ARG...]: a case that is a known
# hole on the backends listed (TODO there), a plain case elsewhere.
check() {
	case " $1 " in
	*" $BACKEND "*) shift; tcase_todo "$TODO_WHY" "$@" ;;
	*) shift; tcase "$@" ;;
	esac
}

# res FILE CALL PATH: the result the probe printed.
res() {
	awk -v c="$2" -v p="$3" '$1 == c && $2 == p { print $3; exit }' "$1"
}

# want FILE ERE CALL PATH...: each result matches ERE.
want() {
	_f=$1 _e=$2 _c=$3
	shift 3
	for _p; do
		_r=$(res "$_f" "$_c" "$_p")
		printf '%s\n' "$_r" | grep -q -x -E -e "$_e" || {
			diag_file "$_f" "the probe's output"
			fail "$_c $_p: got '${_r:-nothing}', expected /$_e/"
		}
	done
}

# ------------------------------------------------------------ the stage

esc_ws
cp "$PROBE" "$WS/.t/hostfile-probe"
PROBE_IN=$WS/.t/hostfile-probe
[ "$BACKEND" != landlock ] || PROBE_IN=./.t/hostfile-probe
RO=$TEST_TMP/ro
mkdir -p "$RO"
chmod 0755 "$TEST_TMP" "$RO"
# A system tree the sandbox shows from the host: /var/tmp (the test's
# own directory in it, removed at exit).
SYS=
if [ -d /var/tmp ] && [ -w /var/tmp ]; then
	SYS=$(host_scratch "$(mktemp -d /var/tmp/confine-hostfiles.XXXXXX)")
	chmod 0755 "$SYS"
fi
SYSF=${SYS:+$SYS/file}
printf 'read-only\n' >"$RO/file"
[ -z "$SYS" ] || printf 'system\n' >"$SYSF"
"$PROBE" setup "$RO/file" $SYSF >/dev/null 2>&1
"$PROBE" manifest "$RO/file" $SYSF >"$TEST_TMP/manifest.before"
host_snapshot

# serve PATH: a host listener on PATH, started now.
serve() {
	_o=$TEST_TMP/serve.$(unique_num)
	"$TRY_SYSCALL" "unix_serve:$1" >"$_o" 2>&1 &
	track_pid $!
	wait_for 10 grep -qs '^ready$' "$_o"
}

# ------------------------------------------ 1: host sockets bound late

# One session: it says "started", waits for a line on its standard input
# (a FIFO the host writes to; a file the host makes in a read-only tree
# could stay unseen: overlayfs keeps a negative lookup), then connects to
# the sockets the host bound in the meantime.  The FIFO is opened for
# reading and writing: the open does not wait for the host's end.
LATE_OUT=$TEST_TMP/late.out
LATE_ERR=$TEST_TMP/late.err
late_socks="$RO/late.sock $WS/late.sock${SYS:+ $SYS/late.sock}"
GO=$TEST_TMP/go
mkfifo "$GO"
(
	cd "$WS" && exec timeout -k 5 "$CONFINE_TIMEOUT" "$CONFINE" \
	    --ro "$RO" -- sh -c '
	t=$1; shift
	echo started
	read -r go
	for s; do "$t" "unix_connect:$s" | sed "s|^unix_connect|unix_connect $s|"; done
	' sh "$TRY_IN" $late_socks <>"$GO" >"$LATE_OUT" 2>"$LATE_ERR"
) &
late_pid=$!
track_pid "$late_pid"
LATE_OK=yes
wait_for 30 grep -qs '^started$' "$LATE_OUT" || LATE_OK="the session did not start"
for s in $late_socks; do
	serve "$s" || LATE_OK="cannot listen on $s"
done
: >"$TEST_TMP/late.control"
for s in $late_socks; do
	printf '%s %s\n' "$s" "$("$TRY_SYSCALL" "unix_connect:$s")" >>"$TEST_TMP/late.control"
done
echo go >"$GO"
wait "$late_pid" || LATE_OK="confine failed: $(head -n 1 "$LATE_ERR")"
rm -f $late_socks

case $BACKEND in
landlock) NOSOCK='|EAFNOSUPPORT|EPERM|EACCES' ;;
*) NOSOCK= ;;
esac

t_late() {
	[ "$LATE_OK" = yes ] || fail "$LATE_OK"
	_s=$1
	[ -n "$_s" ] || skip_case "no writable /var/tmp"
	grep -q -x -F "$_s unix_connect OK" "$TEST_TMP/late.control" ||
	    fail "control: $_s does not answer outside"
	_r=$(awk -v s="$_s" '$2 == s { print $3; exit }' "$LATE_OUT")
	printf '%s\n' "$_r" | grep -q -x -E "ECONNREFUSED|EACCES|ENOENT$NOSOCK" || {
		diag_file "$LATE_OUT" "inside"
		fail "$_s, bound after the start: got '${_r:-nothing}' inside"
	}
}
check "" "a host socket bound late in a --ro directory is unreachable" \
    t_late "$RO/late.sock"
check "" "a host socket bound late in the workspace is unreachable" \
    t_late "$WS/late.sock"
check "" "a host socket bound late in a system tree (/var/tmp) is unreachable" \
    t_late "${SYS:+$SYS/late.sock}"

# ------------------------------- 2: the command's own sockets still work

OWN_OUT=$TEST_TMP/own-sock.out
RC=0
(
	cd "$WS" && exec timeout -k 5 "$CONFINE_TIMEOUT" "$CONFINE" -- sh -c '
	t=$1
	for d in "${TMPDIR:-/tmp}" "$PWD"; do
		"$t" "unix_serve:$d/own.sock" >"$d/own.serve" 2>&1 &
		n=0
		until grep -qs "^ready$" "$d/own.serve" || [ $n -gt 300 ]; do
			sleep 0.1; n=$((n + 1))
		done
		echo "$d $("$t" "unix_connect:$d/own.sock")"
		kill $! 2>/dev/null
		rm -f "$d/own.serve" "$d/own.sock"
	done' sh "$TRY_IN" </dev/null >"$OWN_OUT" 2>"$TEST_TMP/own-sock.err"
) || RC=$?

t_own_sock() {
	assert_status "$RC" 0
	_n=0
	while read -r _d _c _r; do
		_n=$((_n + 1))
		[ "$_n" -ne "$1" ] || {
			[ "$_r" = OK ] || { diag_file "$OWN_OUT" "inside"; fail "$_d: $_r"; }
			return 0
		}
	done <"$OWN_OUT"
	diag_file "$OWN_OUT" "inside"
	fail "no result"
}
check "landlock" "a unix socket server and client inside work, in tmp" t_own_sock 1
check "landlock" "a unix socket server and client inside work, in the workspace" t_own_sock 2

# ----------------------------- 3: read-only host files stay unchanged

# Outside (the control): the same calls change a file and block a host
# program's lock.
CTL=$TEST_TMP/control
mkdir -p "$CTL"
printf 'control\n' >"$CTL/file"
"$PROBE" setup "$CTL/file" >/dev/null 2>&1
"$PROBE" manifest "$CTL/file" >"$CTL/before"
"$PROBE" try --hold "$CTL/file" <>"$GO" >"$CTL/try" 2>&1 &
ctl_pid=$!
track_pid "$ctl_pid"
wait_for 10 grep -qs '^held$' "$CTL/try"
"$PROBE" check "$CTL/file" >"$CTL/check" 2>&1
echo go >"$GO"
wait "$ctl_pid" || :
"$PROBE" manifest "$CTL/file" >"$CTL/after"

t_control() {
	want "$CTL/try" OK futimens "$CTL/file"
	want "$CTL/try" OK flock "$CTL/file"
	want "$CTL/try" OK setxattr "$CTL/file"
	want "$CTL/try" OK removexattr "$CTL/file"
	! cmp -s "$CTL/before" "$CTL/after" ||
	    fail "the calls changed nothing outside"
	want "$CTL/check" 'EAGAIN|EWOULDBLOCK' check_flock "$CTL/file"
	want "$CTL/check" 'EAGAIN|EWOULDBLOCK' check_open_write "$CTL/file"
}
tcase "control: outside, the calls change a file and its locks block the host" t_control

# Inside: the calls on the read-only host files, the locks held while the
# host checks its own; then the same calls on the command's own files.
FILES="$RO/file${SYSF:+ $SYSF}"
RW_OUT=$TEST_TMP/rw.out
host_snapshot
(
	cd "$WS" && exec timeout -k 5 "$CONFINE_TIMEOUT" "$CONFINE" \
	    --ro "$RO" -- sh -c '
	p=$1; shift
	"$p" try --hold "$@"
	t=${TMPDIR:-/tmp}
	echo own >"$PWD/own"; echo own >"$HOME/own"; echo own >"$t/own"
	"$p" try "$PWD/own" "$HOME/own" "$t/own" | sed "s|$PWD/own|WS|; s|$HOME/own|HOME|; s|$t/own|TMP|"
	' sh "$PROBE_IN" $FILES <>"$GO" >"$RW_OUT" 2>"$TEST_TMP/rw.err"
) &
rw_pid=$!
track_pid "$rw_pid"
RW_OK=yes
wait_for 30 grep -qs '^held$' "$RW_OUT" || RW_OK="the session did not hold its locks"
"$PROBE" check $FILES >"$TEST_TMP/check.out" 2>&1
echo go >"$GO"
wait "$rw_pid" || RW_OK="confine failed: $(head -n 1 "$TEST_TMP/rw.err")"
"$PROBE" manifest $FILES >"$TEST_TMP/manifest.after"

# ro CALL ERE: the call on each read-only host file.
t_ro() {
	[ "$RW_OK" = yes ] || fail "$RW_OK"
	want "$RW_OUT" "$2" "$1" $FILES
}
# A change refused: EROFS (a read-only mount) or EPERM.
check "" "utimensat on a read-only host file: EROFS or EPERM" t_ro utimensat 'EROFS|EPERM'
check "" "futimens by a read-only fd: EROFS or EPERM" t_ro futimens 'EROFS|EPERM'
check "" "FS_IOC_SETFLAGS: EROFS or EPERM" t_ro setflags 'EROFS|EPERM'
check "" "FS_IOC_FSSETXATTR: EROFS or EPERM" t_ro fssetxattr 'EROFS|EPERM'
check "" "setxattr user.*: EROFS or EPERM" t_ro setxattr 'EROFS|EPERM'
check "" "fsetxattr user.*: EROFS or EPERM" t_ro fsetxattr 'EROFS|EPERM'
check "" "removexattr user.*: EROFS or EPERM" t_ro removexattr 'EROFS|EPERM'
check "" "fremovexattr user.*: EROFS or EPERM" t_ro fremovexattr 'EROFS|EPERM'
# A lock or a lease: refused, or taken on the overlay's inode (the host's
# checks below say which).
check "" "flock LOCK_EX: refused or not the host's" t_ro flock 'OK|EROFS|EPERM|EACCES|EBADF'
check "" "F_SETLK read lock: refused or not the host's" t_ro setlk 'OK|EROFS|EPERM|EACCES|EBADF'
check "" "F_OFD_SETLK read lock: refused or not the host's" t_ro ofd_setlk 'OK|EROFS|EPERM|EACCES|EBADF'
check "" "F_SETLEASE read lease: refused or not the host's" t_ro setlease 'OK|EROFS|EPERM|EACCES|EAGAIN|EINVAL'

# host CHECK: a host program is not blocked while the session holds.
t_host() {
	[ "$RW_OK" = yes ] || fail "$RW_OK"
	want "$TEST_TMP/check.out" OK "$1" $FILES
}
check "" "the host's flock -n succeeds while the session holds its flock" t_host check_flock
check "" "the host's F_SETLK write lock is not refused" t_host check_setlk
check "" "the host's F_OFD_SETLK write lock is not refused" t_host check_ofd
check "" "the host's open for writing is not held by a lease" t_host check_open_write

t_manifest() {
	[ "$RW_OK" = yes ] || fail "$RW_OK"
	cmp -s "$TEST_TMP/manifest.before" "$TEST_TMP/manifest.after" || {
		diff "$TEST_TMP/manifest.before" "$TEST_TMP/manifest.after" |
		    sed 's/^/# /'
		fail "a read-only host file changed: times, flags or xattrs"
	}
	assert_host_unchanged
}
check "" "the manifest (times, flags, xflags, xattrs) is unchanged" t_manifest

# own CALL: the call works on the command's own files.
t_own() {
	[ "$RW_OK" = yes ] || fail "$RW_OK"
	want "$RW_OUT" OK "$1" WS HOME TMP
}
# landlock: the supervisor does them on the command's own files (src/run/notify-meta.c).
for c in utimensat futimens setflags fssetxattr setxattr fsetxattr \
    removexattr fremovexattr flock setlk ofd_setlk setlease; do
	tcase "$c works on the command's own files (workspace, home, tmp)" t_own "$c"
done

# ------------------------------ 4: a tree no overlay can show: refused

# Overlays stacked two deep on a --ro directory (in a mount namespace of
# the test's own): a third, confine's, is refused by the kernel, and
# confine must not fall back to a bind.
t_too_deep() {
	not_on "bwrap landlock" "binds, no overlays of the host's trees"
	command -v unshare >/dev/null || skip_case "no unshare(1)"
	d=$TEST_TMP/deep
	mkdir -p "$d/tree" "$d/e1" "$d/e2" "$d/ws"
	RC=0
	unshare -Urm sh -c '
	d=$1; shift
	mount -t overlay overlay -o "lowerdir=$d/tree:$d/e1" "$d/tree" &&
	mount -t overlay overlay -o "lowerdir=$d/tree:$d/e2" "$d/tree" ||
	    exit 77
	cd "$d/ws" && exec "$@" -w "$d/ws" --ro "$d/tree" -- true
	' sh "$d" timeout -k 5 "$CONFINE_TIMEOUT" "$CONFINE" >"$OUT" 2>"$ERR" ||
	    RC=$?
	[ "$RC" -ne 77 ] || skip_case "cannot stack overlays in a user namespace here"
	assert_status "$RC" 125
	assert_file_has_content "$ERR" "'$d/tree' cannot be a read-only overlayfs lower layer"
}
tcase "a --ro tree that cannot be a read-only overlay: refused (125), no bind" t_too_deep

tap_done
