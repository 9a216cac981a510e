#!/bin/sh
# SPDX-License-Identifier: ISC
# export-cost.sh - what confine-export spends beyond the change itself.
# It decodes no CA bundle: libgit2 built with mbedTLS loads its compiled-in
# one at init (the control, tests/helpers/git2-init, shows it here), and
# the export, which speaks no TLS, never opens it, with the same patch.
# Its memory does not grow with a file's size: a 256 MiB file (the export's
# per-file limit is 32 MiB) is named too large, and files of 30 and 20 MiB
# (over 4 MiB: hashed and written in pieces, as binary) are exported, git
# apply making them again; and so are 20 files of 3.5 MiB (70 MiB in all:
# past 16 MiB the export holds none of them, reading each again when it
# looks at it).  The peak RSS of the whole run and of the export alone
# stays under 64 MiB.  The control shows that the measure sees a
# process of 128 MiB.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
require_userns
plan 5

EXPORT=$(dirname "$CONFINE")/confine-export
GIT2_INIT=$TESTS_BUILDDIR/helpers/git2-init
RSS_MAX_KB=65536

# peak_rss FILE COMMAND...: run COMMAND; the largest resident set of it
# and of every descendant it waited for, in KiB, into FILE.
peak_rss() {
	_f=$1
	shift
	python3 -c 'import resource, subprocess, sys
r = subprocess.call(sys.argv[2:])
with open(sys.argv[1], "w") as f:
	print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=f)
sys.exit(r)' "$_f" "$@"
}

# The files a traced command opened, one path a line: shared libraries,
# the loader's cache and failed opens left out.
opened() {
	sed -n 's/^[0-9 ]*open[a-z0-9]*(\(AT_FDCWD, \)\{0,1\}"\([^"]*\)".*= [0-9].*/\2/p' "$1" |
	    grep -v -e '\.so[.0-9]*$' -e '^/etc/ld\.so\.cache$' || :
}

# The session named by confine's summary on stderr, in SID and SDIR.
summary_session() {
	SID=$(sed -n 's/^confine: session \([^:]*\): .*/\1/p' "$ERR")
	[ -n "$SID" ] || fail "no session named on stderr"
	SDIR=$SESSIONS/$SID
}

t_no_ca_bundle() {
	command -v strace >/dev/null || skip_case "no strace here"
	[ -x "$GIT2_INIT" ] || fail "no git2-init helper (make check builds it)"
	# Control: libgit2's own init opens a file of certificates.
	strace -f -qq -e trace=open,openat -o "$TEST_TMP/control.trace" \
	    "$GIT2_INIT" 2>"$TEST_TMP/strace.err" ||
	    skip_case "strace cannot trace here: $(head -n 1 "$TEST_TMP/strace.err")"
	opened "$TEST_TMP/control.trace" >"$TEST_TMP/control.files"
	[ -s "$TEST_TMP/control.files" ] ||
	    skip_case "this libgit2 opens no file at init: no CA bundle to avoid"
	diag "libgit2's init opens: $(tr '\n' ' ' <"$TEST_TMP/control.files")"
	ws_new
	run_confine -- sh -c 'i=0; while [ $i -lt 10 ]; do
		echo "file $i" >"f$i"; i=$((i + 1)); done; echo changed >>README'
	assert_status "$RC" 0
	summary_session
	cp "$SDIR/changes.patch" "$TEST_TMP/first.patch"
	strace -f -qq -e trace=open,openat -o "$TEST_TMP/export.trace" \
	    "$EXPORT" -q "$SDIR" || fail "the export failed under strace"
	opened "$TEST_TMP/export.trace" >"$TEST_TMP/export.files"
	# The trace sees the export's own opens: its session's metadata.
	grep -qx "$SDIR/meta" "$TEST_TMP/export.files" ||
	    fail "the trace shows no open of $SDIR/meta"
	while read -r f; do
		grep -qxF "$f" "$TEST_TMP/export.files" &&
		    fail "the export opened $f, as libgit2's init does"
	done <"$TEST_TMP/control.files"
	cmp -s "$SDIR/changes.patch" "$TEST_TMP/first.patch" ||
	    fail "the export made another patch"
	assert_eq "$(grep -c '^diff --git' "$SDIR/changes.patch")" 11 \
	    "the patch's files"
	assert_ws_unchanged
}

t_rss_control() {
	peak_rss "$TEST_TMP/rss" python3 -c 'b = b"x" * (128 << 20)' ||
	    fail "the control failed"
	rss=$(cat "$TEST_TMP/rss")
	[ "$rss" -gt "$RSS_MAX_KB" ] ||
	    fail "a process of 128 MiB measured $rss KiB"
}

t_large_file() {
	ws_new
	peak_rss "$TEST_TMP/rss.run" sh -c 'cd "$1" && exec "$2" -- sh -c \
	    "yes 0123456789abcdef0123456789abcdef0123456789abcdef0123456789 |
	    head -c 268435456 >big && echo changed >README" \
	    </dev/null >"$3" 2>"$4"' sh "$WS" "$CONFINE" "$OUT" "$ERR" ||
	    fail "confine failed: $(cat "$ERR")"
	assert_ws_unchanged
	summary_session
	assert_eq "$(stat -c %s "$SDIR/upper/big")" 268435456 "the file's size"
	assert_file_has_content "$SDIR/report" \
	    '^  big: too large, not exported: over 32 MiB$'
	assert_eq "$(grep '^diff --git' "$SDIR/changes.patch")" \
	    "diff --git a/README b/README" "the patch's files"
	peak_rss "$TEST_TMP/rss.export" "$EXPORT" -q "$SDIR" ||
	    fail "the export failed"
	for m in run export; do
		rss=$(cat "$TEST_TMP/rss.$m")
		diag "peak RSS, $m: $rss KiB"
		[ "$rss" -lt "$RSS_MAX_KB" ] ||
		    fail "peak RSS of the $m: $rss KiB, over $RSS_MAX_KB"
	done
}

t_large_exported() {
	ws_new
	peak_rss "$TEST_TMP/rss.run" sh -c 'cd "$1" && exec "$2" -- sh -c \
	    "head -c 31457280 /dev/urandom >big.bin &&
	    yes \$(printf %0199d 7) | head -c 20971520 >long.txt &&
	    head -c 5000000 /dev/urandom >>README" \
	    </dev/null >"$3" 2>"$4"' sh "$WS" "$CONFINE" "$OUT" "$ERR" ||
	    fail "confine failed: $(cat "$ERR")"
	assert_ws_unchanged
	summary_session
	assert_eq "$(grep '^diff --git' "$SDIR/changes.patch")" \
	    "diff --git a/README b/README
diff --git a/big.bin b/big.bin
diff --git a/long.txt b/long.txt" "the patch's files"
	for p in README big.bin long.txt; do
		assert_file_has_content "$SDIR/report" \
		    "^  $p: over 4 MiB: exported as binary, the review shows no diff of it\$"
	done
	assert_file_has_content "$SDIR/report" '^ big.bin  *| Bin 0 -> 31457280 bytes$'
	peak_rss "$TEST_TMP/rss.export" "$EXPORT" -q "$SDIR" ||
	    fail "the export failed"
	for m in run export; do
		rss=$(cat "$TEST_TMP/rss.$m")
		diag "peak RSS, $m: $rss KiB"
		[ "$rss" -lt "$RSS_MAX_KB" ] ||
		    fail "peak RSS of the $m: $rss KiB, over $RSS_MAX_KB"
	done
	# git takes the patch, and makes the same files.
	git clone -q "$WS" "$TEST_TMP/clone.large" || fail "cannot clone"
	(cd "$TEST_TMP/clone.large" &&
	    git apply --binary "$SDIR/changes.patch") ||
	    fail "git apply refuses the patch"
	for p in README big.bin long.txt; do
		cmp -s "$TEST_TMP/clone.large/$p" "$SDIR/upper/$p" ||
		    fail "$p applied is not the session's"
	done
}

t_many_files() {
	ws_new
	peak_rss "$TEST_TMP/rss.run" sh -c 'cd "$1" && exec "$2" -- sh -c \
	    "i=10; while [ \$i -lt 30 ]; do
	    yes \$(printf %0199d \$i) | head -c 3670016 >m\$i.txt &&
	    i=\$((i + 1)); done" \
	    </dev/null >"$3" 2>"$4"' sh "$WS" "$CONFINE" "$OUT" "$ERR" ||
	    fail "confine failed: $(cat "$ERR")"
	assert_ws_unchanged
	summary_session
	assert_eq "$(grep -c '^diff --git' "$SDIR/changes.patch")" 20 \
	    "the patch's files"
	assert_file_has_content "$SDIR/report" \
	    '^ 20 files changed, 367020 insertions\(\+\)$'
	peak_rss "$TEST_TMP/rss.export" "$EXPORT" -q "$SDIR" ||
	    fail "the export failed"
	for m in run export; do
		rss=$(cat "$TEST_TMP/rss.$m")
		diag "peak RSS, $m: $rss KiB"
		[ "$rss" -lt "$RSS_MAX_KB" ] ||
		    fail "peak RSS of the $m: $rss KiB, over $RSS_MAX_KB"
	done
	git clone -q "$WS" "$TEST_TMP/clone.many" || fail "cannot clone"
	(cd "$TEST_TMP/clone.many" && git apply "$SDIR/changes.patch") ||
	    fail "git apply refuses the patch"
	for f in "$SDIR"/upper/m*.txt; do
		cmp -s "$TEST_TMP/clone.many/${f##*/}" "$f" ||
		    fail "${f##*/} applied is not the session's"
	done
}

tcase "the export opens no CA bundle, and makes the same patch" t_no_ca_bundle
tcase "control: the peak RSS measure sees 128 MiB" t_rss_control
tcase "a 256 MiB file: named too large, the peak RSS under 64 MiB" t_large_file
tcase "files of 30, 20 and 5 MiB: exported as binary, the peak RSS under 64 MiB" t_large_exported
tcase "20 files of 3.5 MiB: exported as text, the peak RSS under 64 MiB" t_many_files
tap_done
