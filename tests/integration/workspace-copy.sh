#!/bin/sh
# SPDX-License-Identifier: ISC
# workspace-copy.sh - the workspace the command sees is an exact copy
# (contents, modes, links, empty directories, times) and a real one (a
# write to it, in place or appended, never reaches the host's file),
# whichever way its bytes were copied: copy_file_range(2) on this
# machine's filesystem, read and write from another filesystem, FICLONE
# on one with reflinks (xfs); on a terminal, a large copy shows a progress
# line, cleared when done, and with stderr not a terminal nothing but
# -v's one line at the end.  Native mounts an overlay and copies nothing,
# and so does bwrap where it is not setuid: the view is checked there
# too, the progress line is not.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
require_userns
command -v python3 >/dev/null || skip_all "python3 is not installed"
PTY_STDERR=$TESTS_SRCDIR/helpers/pty-stderr.py
plan 10

# The bwrap backend copies only where it cannot mount the workspace's
# overlay (a setuid bwrap): its plan says which.
ws_new
WS_OVERLAY=no
(cd "$WS" && "$CONFINE" --dry-run -- true 2>/dev/null) |
    grep -q '^  overlay ' && WS_OVERLAY=yes

# copy_only REASON: skip a case of the copy where the workspace is not one.
copy_only() {
	not_on native "$1"
	[ "$WS_OVERLAY" = no ] ||
	    skip_case "the $BACKEND backend here (not setuid): $1"
}

# What the tree at . is, in a form to compare: every entry's type, mode,
# size and modification time, each link's target, each file's SHA-256.
# Directory sizes are the filesystem's own business, and so is the time
# of the root (on native the overlay's root is the session's directory).
MANIFEST='
	stat -c "root %a" .
	find . -mindepth 1 \( -type d -printf "%y %m %T@ %p\n" \) -o \
	    \( -type l -printf "%y %T@ %p -> %l\n" \) -o \
	    \( -type f -printf "%y %m %s %T@ %p\n" \) -o -printf "%y %p\n" |
	    LC_ALL=C sort
	find . -type f -exec sha256sum {} + | LC_ALL=C sort'

# ws_varied [PARENT]: a workspace (ws_new) with a file of every kind the
# copy meets, committed.
ws_varied() {
	ws_new "${1:-}"
	(
		cd "$WS" || exit 1
		: >empty-file
		head -c 100000 /dev/urandom >random.bin
		# Past the copy's 16 MiB step.
		head -c $((17 * 1024 * 1024 + 5)) /dev/urandom >big.bin
		printf 'read only\n' >ro.txt && chmod 0444 ro.txt
		printf 'name with spaces\n' >'a name with spaces'
		mkdir -p deep/er/est empty-dir/empty-child locked shared
		printf 'deep\n' >deep/er/est/f
		printf 'locked\n' >locked/f
		chmod 0700 locked
		chmod 0750 shared
		chmod 0711 empty-dir/empty-child
		ln -s ../../README deep/er/up-link
		ln -s deep/er dir-link
		ln -s /nonexistent/target abs-dangling
		ln -s missing rel-dangling
		touch -d '2001-02-03 04:05:06.123456789' random.bin deep/er/est/f
		touch -h -d '2002-03-04 05:06:07' dir-link
		git_fixed add -A && git_fixed commit -q -m varied
		# Times last: the commit wrote in .git, not in these.
		touch -d '2003-04-05 06:07:08' deep/er/est empty-dir/empty-child
	) || fail "cannot make the varied workspace in $WS"
	WS_HASH=$(tree_hash "$WS")
}

# assert_exact: the manifest the command printed ($OUT) is the host's.
assert_exact() {
	assert_status "$RC" 0
	(cd "$WS" && sh -c "$MANIFEST") >"$TEST_TMP/host.manifest" ||
	    fail "cannot list the host workspace"
	grep -q '/big.bin$' "$TEST_TMP/host.manifest" ||
	    fail "control: the host's listing lacks big.bin"
	cmp -s "$TEST_TMP/host.manifest" "$OUT" || {
		diff "$TEST_TMP/host.manifest" "$OUT" | head -n 20 |
		    sed 's/^/# /'
		fail "the workspace inside is not the host's"
	}
}

# The manifest inside, then writes to the copy: in place in big.bin's
# middle and its last byte, appended to random.bin; the copy's SHA-256
# before and after (the control: the writes did land, inside).
WRITES="$MANIFEST"'
	printf XXXX | dd of=big.bin bs=1 seek=1000 conv=notrunc 2>/dev/null
	printf Y | dd of=big.bin bs=1 seek=$((17 * 1024 * 1024 + 4)) \
	    conv=notrunc 2>/dev/null
	echo appended >>random.bin
	echo "after $(sha256sum big.bin random.bin | tr "\n" " ")" >&2'

# check_writes: the copy changed, the host's files did not.
check_writes() {
	assert_ws_unchanged
	before=$(cd "$WS" && sha256sum big.bin random.bin | tr '\n' ' ')
	assert_file_has_content "$ERR" '^after '
	after=$(sed -n 's/^after //p' "$ERR")
	[ "$after" != "$before" ] ||
	    fail "control: the writes inside changed nothing in the copy"
	for f in big.bin random.bin; do
		h=$(cd "$WS" && sha256sum "$f" | cut -d ' ' -f 1)
		case $after in
		*"$h  $f"*) fail "$f inside is still the host's after the write" ;;
		esac
	done
	assert_file_has_content "$ERR" '^confine: session [^ ]*: 2 files changed$'
}

t_exact() {
	ws_varied
	run_confine -- sh -c "$MANIFEST"
	assert_exact
	assert_ws_unchanged
}

t_real_copy() {
	ws_varied
	run_confine -v -- sh -c "$WRITES"
	assert_exact
	check_writes
	grep '^confine: copy of the workspace: ' "$ERR" | sed 's/^/# /' || :
}

# Another filesystem than the session's: no reflink, no copy_file_range
# across (EXDEV); the copy reads and writes.
t_other_fs() {
	copy_only "an overlay: no copy"
	here=$(stat -c %d "$TEST_TMP")
	other=
	for d in /dev/shm /run/user/$(id -u) /var/tmp /tmp; do
		[ -d "$d" ] && [ -w "$d" ] && [ "$(stat -c %d "$d")" != "$here" ] &&
		    { other=$d; break; }
	done
	[ -n "$other" ] || skip_case "no writable directory on another filesystem than $TEST_TMP"
	parent=$(host_scratch "$(mktemp -d "$other/confine-copy.XXXXXX")")
	ws_varied "$parent"
	run_confine -v -- sh -c "$WRITES"
	assert_exact
	check_writes
	assert_file_has_content "$ERR" '^confine: copy of the workspace: [0-9]+ files, .* \(0 reflinked\)$'
}

# xfs made here, in a mount namespace of the test's own (root only): the
# copy's files share the host's extents, and a write still reaches only
# the copy (the filesystem unshares the extent it writes).
t_reflink() {
	copy_only "an overlay: no copy"
	[ "$(id -u)" -eq 0 ] || skip_case "mounting an xfs image needs root"
	command -v mkfs.xfs >/dev/null || skip_case "mkfs.xfs is not installed (xfsprogs)"
	grep -qw xfs /proc/filesystems || skip_case "this kernel has no xfs"
	img=$TEST_TMP/xfs.img
	mnt=$TEST_TMP/xfs
	mkdir "$mnt"
	truncate -s 300M "$img" && mkfs.xfs -q -m reflink=1 "$img" ||
	    skip_case "mkfs.xfs cannot make an image with reflinks"
	# One process holds the mount, in a mount namespace of its own (the
	# loop device goes with it): the workspace, the session, the run.
	rc=0
	unshare -m sh -ec '
		mount -o loop "$1" "$2" 2>/dev/null || exit 77
		export XDG_STATE_HOME="$2/state" TMPDIR="$2"
		cd "$2"
		mkdir ws && cd ws
		git init -q . 2>/dev/null
		head -c $((17 * 1024 * 1024 + 5)) /dev/urandom >big.bin
		head -c 100000 /dev/urandom >random.bin
		sha256sum big.bin random.bin >"$2/host.before"
		timeout -k 5 "$3" "$4" -v -- sh -c "$5" >"$2/out" 2>"$2/err" || echo "status $?" >>"$2/err"
		sha256sum big.bin random.bin >"$2/host.after"
		cp "$2/out" "$2/err" "$2/host.before" "$2/host.after" "$6/"
	' sh "$img" "$mnt" "$CONFINE_TIMEOUT" "$CONFINE" "$WRITES" "$TEST_TMP" ||
	    rc=$?
	[ "$rc" -ne 77 ] || skip_case "a loop device cannot be mounted here"
	[ "$rc" -eq 0 ] || fail "the run on xfs failed ($rc)"
	drop_notice "$TEST_TMP/err"
	ERR=$TEST_TMP/err
	assert_file_has_content "$ERR" '^confine: copy of the workspace: [0-9]+ files, .* \([1-9][0-9]* reflinked\)$'
	# The session on xfs too: its changes told by the copy's mark there.
	assert_file_has_content "$ERR" '^confine: session [^ ]*: 2 files changed$'
	cmp -s "$TEST_TMP/host.before" "$TEST_TMP/host.after" ||
	    fail "a write to the reflinked copy reached the host's file"
	after=$(sed -n 's/^after //p' "$ERR")
	[ -n "$after" ] || fail "the command did not run: $(cat "$ERR")"
	while read -r h f; do
		case $after in
		*"$h  $f"*) fail "$f inside is still the host's after the write" ;;
		esac
	done <"$TEST_TMP/host.before"
}

# ctime_ns FILE, tick_ns: a file's ctime and the coarse clock's tick, in ns.
ctime_ns() {
	python3 -c 'import os, sys; print(os.lstat(sys.argv[1]).st_ctime_ns)' "$1"
}
tick_ns() {
	# CLOCK_REALTIME_COARSE is 5 (linux/time.h); Python has no name for it.
	python3 -c 'import time; print(int(time.clock_getres(5) * 1e9))'
}
# min_ctime DIR: the oldest ctime of any entry at or below DIR, in ns.
min_ctime() {
	python3 -c 'import os, sys
m = os.lstat(sys.argv[1]).st_ctime_ns
for d, ds, fs in os.walk(sys.argv[1]):
    for n in ds + fs:
        m = min(m, os.lstat(os.path.join(d, n)).st_ctime_ns)
print(m)' "$1"
}

# The command starts with no wait on the coarse clock: its first write,
# in place and of the same size, may fall in the tick the copy ended in,
# with the copied file's ctime (without multigrain timestamps), size and
# mtime unchanged.  It is a change all the same.  The run writes at once
# (in the copy's last tick or not: said, it depends on the load); then
# the session's mark is made to say that every entry of the copy is of
# its last tick, with no note of their ctimes: the export still tells the
# command's file, and a second one rewritten the same way (the control),
# by their bytes, and the rest of the copy as no change.
t_first_tick() {
	copy_only "an overlay: no copy"
	ws_new
	run_confine -- sh -c "printf 'HELLO\n' 1<>README; cat README"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^HELLO$'
	assert_ws_unchanged
	assert_file_has_content "$ERR" '^confine: session [^ ]*: 1 file changed$'
	id=$(sessions)
	[ -n "$id" ] || fail "the changed session was not kept"
	sdir=$SESSIONS/$id
	assert_file_has_content "$sdir/changes.patch" '^\+HELLO$'
	assert_eq "$(grep -c '^diff --git' "$sdir/changes.patch")" 1 \
	    "files in the patch"
	since=$(sed -n 's/^copy_since_ns=//p' "$sdir/meta")
	[ -n "$since" ] || fail "the session has no copy_since_ns"
	c=$(ctime_ns "$sdir/upper/README")
	diag "the write came $(( (c - since) / 1000 )) us after the copy's" \
	    "since (a tick: $(( $(tick_ns) / 1000 )) us)"
	# Every entry of the copy in its last tick, no note of their ctimes.
	m=$(min_ctime "$sdir/upper")
	sed -i "s/^copy_since_ns=.*/copy_since_ns=$m/" "$sdir/meta"
	rm -f "$sdir/copy.recent" "$sdir/changes.patch" "$sdir/report"
	printf 'int main(void) { return 1; }\n' 1<>"$sdir/upper/src/main.c"
	"${CONFINE%/*}/confine-export" -q "$sdir" ||
	    fail "the export again, with the copy's last tick all of it, failed"
	assert_file_has_content "$sdir/changes.patch" '^\+HELLO$'
	assert_file_has_content "$sdir/changes.patch" 'return 1;'
	assert_eq "$(grep -c '^diff --git' "$sdir/changes.patch")" 2 \
	    "files in the patch, told by their bytes"
}

# A workspace of more than COPY_PROGRESS_FILES (5000) files: past that
# many, a line is due however fast the copy goes.
ws_large() {
	ws_new
	(
		cd "$WS" && mkdir many || exit 1
		for d in 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19; do
			mkdir "many/$d" || exit 1
			i=0
			while [ "$i" -lt 310 ]; do
				echo "$d $i" >"many/$d/$i" || exit 1
				i=$((i + 1))
			done
		done
	) || fail "cannot make a large workspace"
}

# run_pty [CONFINE-ARG...]: confine with stderr on a terminal of 80
# columns, its bytes in $TEST_TMP/raw.
run_pty() {
	RC=0
	(cd "$WS" && exec timeout -k 5 "$CONFINE_TIMEOUT" python3 "$PTY_STDERR" \
	    "$TEST_TMP/raw" 80 "$CONFINE" "$@" </dev/null >"$OUT") || RC=$?
	[ -f "$TEST_TMP/raw" ] || fail "no terminal output recorded"
}

t_progress_pty() {
	copy_only "an overlay: no copy, no progress line"
	ws_large
	run_pty -- true
	assert_status "$RC" 0
	# Each drawing starts with a carriage return and fits the terminal;
	# after the last, the line is blanked.
	python3 - "$TEST_TMP/raw" <<-'EOF' || fail "no progress line, or one not cleared"
	import re, sys
	raw = open(sys.argv[1], "rb").read()
	draws = [m for m in re.finditer(rb"\rconfine: copying the workspace: "
	    rb"([0-9]+)/([0-9]+) files, [0-9.]+[BKMG][^\r\n]*", raw)]
	if not draws:
	    sys.exit("# no progress line in %r" % raw[:300])
	for m in draws:
	    if len(m.group(0)) - 1 > 79:
	        sys.exit("# a line wider than the terminal: %r" % m.group(0))
	    if int(m.group(2)) < 6200:
	        sys.exit("# a total short of the files: %r" % m.group(0))
	last = draws[-1]
	clear = re.search(rb"\r {%d,}\r" % (len(last.group(0)) - 1),
	    raw[last.end():])
	if not clear or b"copying" in raw[last.end():]:
	    sys.exit("# the line is not cleared: %r" % raw[last.start():][:300])
	EOF
}

t_progress_not_tty() {
	copy_only "an overlay: no copy"
	ws_large
	run_confine -- true
	assert_status "$RC" 0
	assert_not_file_has_content "$ERR" 'copying|copy of'
	tr '\r' '\n' <"$ERR" | cmp -s - "$ERR" || fail "a carriage return on stderr"
	run_confine -v -- true
	assert_status "$RC" 0
	assert_not_file_has_content "$ERR" 'copying'
	assert_file_has_content "$ERR" '^confine: copy of the workspace: 62[0-9][0-9] files, [0-9.]+[BKMG] in [0-9]+\.[0-9]{2} s \([0-9]+ reflinked\)$'
	[ "$(grep -c '^confine: copy of the workspace: ' "$ERR")" -eq 1 ] ||
	    fail "not one line for the copy"
	tr '\r' '\n' <"$ERR" | cmp -s - "$ERR" || fail "a carriage return on stderr"
}

t_progress_quiet() {
	copy_only "an overlay: no copy"
	ws_large
	# Control: the same run without -q draws the line.
	run_pty -- true
	grep -q -a 'confine: copying the workspace' "$TEST_TMP/raw" ||
	    fail "control: no progress line without -q"
	run_pty -q -- true
	assert_status "$RC" 0
	if grep -q -a 'copying' "$TEST_TMP/raw"; then
		fail "a progress line with -q"
	fi
}

# An interrupt while a large workspace is copied: the copy stops at it,
# the half-made session is removed (nothing left for confine ls to show),
# and confine dies of the signal as it would have; the command never
# started.  SIGTERM: a background job's SIGINT is ignored (by the shell
# that starts it), and an ignored signal stops nothing.
t_interrupt() {
	copy_only "an overlay: no copy"
	ws_new
	python3 -c '
import os, sys
for d in range(60):
    os.makedirs("%s/many/%d" % (sys.argv[1], d))
    for i in range(500):
        with open("%s/many/%d/%d" % (sys.argv[1], d, i), "w") as f:
            f.write("%d %d\n" % (d, i))
' "$WS" || fail "cannot make a large workspace"
	WS_HASH=$(tree_hash "$WS")
	(cd "$WS" && exec "$CONFINE" -- sh -c 'echo STARTED; exec sleep 600') \
	    >"$OUT" 2>"$ERR" </dev/null &
	pid=$!
	track_pid "$pid"
	# The copy has begun: the session's copy holds a first file.
	wait_for 60 sh -c 'ls -d "$1"/*/upper/many/*/* >/dev/null 2>&1' sh \
	    "$SESSIONS" || fail "the copy did not begin: $(cat "$ERR")"
	kill -TERM "$pid"
	RC=0
	wait "$pid" || RC=$?
	assert_eq "$RC" 143 "confine's status (killed by SIGTERM)"
	assert_not_file_has_content "$OUT" STARTED
	assert_eq "$(ls -A "$SESSIONS" 2>/dev/null)" "" "the sessions left"
	assert_ws_unchanged
}

# A copy that fails (a path longer than PATH_MAX below the workspace):
# nothing of the command runs, the half-made session is removed, and
# the failure is said, with status 125.  On landlock the copy is made
# while the sandbox sets itself up: it is ended before its command looks.
t_copy_fails() {
	copy_only "an overlay: no copy"
	ws_new
	python3 -c '
import os, sys
os.chdir(sys.argv[1])
os.mkdir("deep")
os.chdir("deep")
for i in range(24):
    name = "d%02d" % i + "x" * 197
    os.mkdir(name)
    os.chdir(name)
open("f", "w").write("x\n")
' "$WS" || fail "cannot make a deep tree"
	WS_HASH=$(tree_hash "$WS")
	run_confine -- sh -c 'echo RAN'
	assert_status "$RC" 125
	assert_file_has_content "$ERR" "^confine: session: cannot create '.*': File name too long$"
	assert_not_file_has_content "$OUT" '^RAN$'
	assert_eq "$(ls -A "$SESSIONS" 2>/dev/null)" "" "the sessions left"
	assert_ws_unchanged
	# Control: without the deep tree the same run works.
	rm -rf "$WS/deep"
	run_confine -- sh -c 'echo RAN'
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^RAN$'
}

tcase "the copy is exact: contents, modes, links, empty directories, times" t_exact
tcase "a write to the copy, in place or appended, leaves the host's files alone" t_real_copy
tcase "a workspace on another filesystem than the session's is copied the same" t_other_fs
tcase "on a filesystem with reflinks (xfs), the copy shares extents and a write stays in it" t_reflink
tcase "a write of the same size in the copy's last tick is a change; the tick's other files are not" t_first_tick
tcase "on a terminal, a large copy shows a progress line, cleared when done" t_progress_pty
tcase "stderr not a terminal: no progress line; with -v one line at the end" t_progress_not_tty
tcase "-q on a terminal: no progress line" t_progress_quiet
tcase "an interrupt during the copy: it stops, the half-made session is removed" t_interrupt
tcase "a copy that fails: the command never runs, the half-made session is removed" t_copy_fails
tap_done
