#!/bin/sh
# SPDX-License-Identifier: ISC
#
# check-checks.sh - the checks of the tree catch what they say they catch.
#
# tests/check-layering.sh and tests/check-bounded-reads.sh pass on
# confine's own tree; that alone would not tell a check that is broken
# from a tree that is right.  Here each runs on a small tree of its own,
# made in a temporary directory: first as it should be (the check passes:
# the positive control), then with one fault of each kind it names (the
# check fails, saying so).  The layering check's object tests compile the
# small tree with the C compiler ($CC, else cc).

here=${TESTS_SRCDIR:-$(dirname "$0")}
cc=${CC:-cc}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/confine-checks.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

if ! command -v "$cc" >/dev/null || ! command -v nm >/dev/null; then
	echo "1..0 # SKIP no C compiler ($cc) or no nm"
	exit 0
fi

n=0
failed=0
ok() {
	n=$((n + 1))
	echo "ok $n - $1"
}
not_ok() {
	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n - $1"
}

# put FILE TEXT: a source file of the small tree.
put() {
	mkdir -p "$(dirname "$t/src/$1")"
	printf '%s\n' "$2" >"$t/src/$1"
}

# The small tree, as the layering rules want it: a tree of each folder's
# files, every include with its folder, calls only downwards.
layer_tree() {
	t=$tmp/$1
	rm -rf "$t"
	mkdir -p "$t/tests"
	: >"$t/config.h"
	put lib/README 'May include: lib/ only.  Plumbing.'
	put input/README 'May include: lib/, input/.'
	put policy/README 'Pure (no system call).  May include: lib/, input/,
policy/.'
	put enforce/README 'May include: lib/ and policy/plan.h; never one another.'
	put store/README 'May include: lib/, store/.'
	put run/README 'May include: lib/, input/, policy/, enforce/, store/, run/.'
	put export/README 'May include: lib/, input/, store/, export/.'
	put keyholder/README 'May include: lib/, keyholder/.'
	put cmd/README 'May include: lib/, input/, policy/, enforce/, store/,
run/, cmd/.'
	put lib/util.h 'int lib_util(int);'
	put lib/util.c '#include "config.h"
#include "lib/util.h"
static const char *const names[] = { "one", "two" };
int lib_util(int x) { return x + 1 + (names[x & 1][0] == 0); }'
	put lib/fdio.h 'long lib_fdio(int, char *);'
	put lib/fdio.c '#include "config.h"
#include <unistd.h>
#include "lib/fdio.h"
long lib_fdio(int fd, char *b) { return read(fd, b, 1); }'
	put policy/plan.h 'int policy_plan(int);'
	put policy/plan.c '#include "config.h"
#include "lib/util.h"
#include "policy/plan.h"
int policy_plan(int x) { return lib_util(x) * 2; }'
	put enforce/mounts.h 'int enforce_mounts(int);'
	put enforce/mounts.c '#include "config.h"
#include "lib/util.h"
#include "policy/plan.h"
#include "enforce/mounts.h"
int enforce_mounts(int x) { return x < 0 ? -1 : lib_util(x); }'
	put enforce/network.h 'int enforce_network(int);'
	put enforce/network.c '#include "config.h"
#include "enforce/network.h"
int enforce_network(int x) { return x; }'
	put run/a.h 'int run_a(int);'
	put run/a.c '#include "config.h"
#include "enforce/mounts.h"
#include "run/a.h"
#include "run/b.h"
int run_a(int x) { return enforce_mounts(x) + run_b(x); }'
	put run/b.h 'int run_b(int);'
	put run/b.c '#include "config.h"
#include "policy/plan.h"
#include "run/b.h"
int run_b(int x) { return policy_plan(x); }'
}

# layer_check NAME WANT WHAT: compile the tree, run the layering check; it
# must pass (WANT "pass") or fail with a line matching WANT.
layer_check() {
	for c in "$t"/src/*/*.c; do
		o=${c%.c}.o
		if ! "$cc" -c -I"$t" -I"$t/src" -o "$o" "$c" 2>"$tmp/cc.err"; then
			not_ok "layering: $3: the small tree does not compile: $(cat "$tmp/cc.err")"
			return
		fi
	done
	TESTS_SRCDIR=$t/tests TESTS_BUILDDIR=$t/tests sh "$here/check-layering.sh" \
	    >"$tmp/out" 2>&1
	rc=$?
	if [ "$2" = pass ]; then
		if [ "$rc" -eq 0 ] && ! grep -q '^not ok' "$tmp/out" &&
		    ! grep -q '# SKIP' "$tmp/out"; then
			ok "layering: $3: passes"
		else
			not_ok "layering: $3: should pass: $(grep -v '^ok' "$tmp/out")"
		fi
	elif [ "$rc" -ne 0 ] && grep '^not ok' "$tmp/out" | grep -q "$2"; then
		ok "layering: $3: fails ($2)"
	else
		not_ok "layering: $3: should fail with '$2' (status $rc): $(grep -v '^ok' "$tmp/out")"
	fi
}

layer_tree clean
layer_check clean pass "a tree as the rules want it"

layer_tree enforce-enforce
put enforce/network.c '#include "config.h"
#include "enforce/mounts.h"
#include "enforce/network.h"
int enforce_network(int x) { return x; }'
layer_check enforce-enforce "enforcement module includes enforcement module" \
    "an enforcement module includes another"

layer_tree upward
put lib/util.c '#include "config.h"
#include "lib/util.h"
#include "policy/plan.h"
int lib_util(int x) { return x + 1; }'
layer_check upward "lib/ may not include policy/" "lib includes policy (upwards)"

layer_tree enforce-run
put enforce/network.c '#include "config.h"
#include "enforce/network.h"
#include "run/a.h"
int enforce_network(int x) { return x; }'
layer_check enforce-run "may not include run/" "an enforcement module includes run"

layer_tree no-folder
put run/b.c '#include "config.h"
#include "plan.h"
#include "run/b.h"
int run_b(int x) { return x; }'
mkdir -p "$t/src/run" && cp "$t/src/policy/plan.h" "$t/src/run/plan.h"
layer_check no-folder "without its folder" "an include without its folder"

layer_tree readme
put run/README 'May include: lib/, run/.'
layer_check readme "run/README says it may include 'lib run '" \
    "a README that names other folders than the rule"

layer_tree no-readme
rm "$t/src/store/README"
layer_check no-readme "store/ has no README" "a folder without a README"

layer_tree stray
put stray.c 'int stray(void) { return 0; }'
layer_check stray "outside the folders" "a file outside the folders"

layer_tree cycle
put run/b.c '#include "config.h"
#include "run/a.h"
#include "run/b.h"
int run_b(int x) { return x > 0 ? run_a(x - 1) : 0; }'
layer_check cycle "files in a cycle" "two files that call each other"

layer_tree cycle3
put run/c.h 'int run_c(int);'
put run/c.c '#include "config.h"
#include "run/a.h"
#include "run/c.h"
int run_c(int x) { return x > 0 ? run_a(x - 1) : 0; }'
put run/b.c '#include "config.h"
#include "run/b.h"
#include "run/c.h"
int run_b(int x) { return run_c(x); }'
layer_check cycle3 "files in a cycle" "a cycle through a third file"

layer_tree policy-open
put policy/plan.c '#include "config.h"
#include <fcntl.h>
#include "lib/util.h"
#include "policy/plan.h"
int policy_plan(int x) { return open("/etc/hostname", O_RDONLY) + x; }'
layer_check policy-open "policy calls outside itself" "policy opens a file"

layer_tree policy-fdio
put policy/plan.c '#include "config.h"
#include "lib/fdio.h"
#include "policy/plan.h"
int policy_plan(int x) { char b[1]; return (int)lib_fdio(x, b); }'
layer_check policy-fdio "policy calls outside itself" \
    "policy reads through lib/fdio"

layer_tree enforce-exit
put enforce/mounts.c '#include "config.h"
#include <stdlib.h>
#include "lib/util.h"
#include "policy/plan.h"
#include "enforce/mounts.h"
int enforce_mounts(int x) { if (x < 0) exit(1); return lib_util(x); }'
layer_check enforce-exit "enforcement modules exit" "an enforcement module exits"

layer_tree state
put run/b.c '#include "config.h"
#include "policy/plan.h"
#include "run/b.h"
static int calls;
int run_b(int x) { calls++; return policy_plan(x) + calls; }'
layer_check state "variables kept by a file" "a file keeps a variable"

layer_tree static-local
put run/b.c '#include "config.h"
#include "policy/plan.h"
#include "run/b.h"
const char *run_name(int x);
const char *run_name(int x) { static char buf[2][16]; buf[x & 1][0] = 0;
	return buf[x & 1]; }
int run_b(int x) { return policy_plan(x); }'
layer_check static-local "run/b:buf" "a rotating static buffer in a function"

# The bounded reads' small tree: every file the check reads, each with a
# read whose bound is in sight.
reads_tree() {
	t=$tmp/$1
	rm -rf "$t"
	mkdir -p "$t/tests"
	for g in export/x.c run/proxy.c run/notify.c keyholder/x.c \
	    run/agent-state.c cmd/state.c cmd/sessions.c enforce/pty.c; do
		put "$g" '#include <unistd.h>
#define LINE_MAX 64
long f(int fd, int n)
{
	char buf[64], line[LINE_MAX];

	(void)n;
	if (read(fd, buf, sizeof(buf)) < 0)
		return -1;
	/* Bounded: n is at most 64, checked by the caller. */
	if (read(fd, buf, n) < 0)
		return -1;
	return read(fd, line,
	    LINE_MAX);
}'
	done
}

reads_check() {
	TESTS_SRCDIR=$t/tests sh "$here/check-bounded-reads.sh" >"$tmp/out" 2>&1
	rc=$?
	if [ "$2" = pass ]; then
		if [ "$rc" -eq 0 ] && grep -q '^ok' "$tmp/out" &&
		    ! grep -q '^not ok' "$tmp/out"; then
			ok "bounded reads: $3: passes"
		else
			not_ok "bounded reads: $3: should pass: $(grep -v '^ok' "$tmp/out")"
		fi
	elif [ "$rc" -ne 0 ] && grep '^not ok' "$tmp/out" | grep -q "$2"; then
		ok "bounded reads: $3: fails"
	else
		not_ok "bounded reads: $3: should fail at $2 (status $rc): $(cat "$tmp/out")"
	fi
}

reads_tree clean
reads_check clean pass "sizeof, a named maximum, a Bounded: comment"

for f in export/x.c run/proxy.c keyholder/x.c run/agent-state.c cmd/state.c \
    enforce/pty.c; do
	reads_tree unbounded
	put "$f" '#include <unistd.h>
long f(int fd, char *buf, int n)
{
	return read(fd, buf, n);
}'
	reads_check unbounded "src/$f:4: no bound in sight" \
	    "a read with no bound in sight in $f"
done

reads_tree recv
put run/notify.c '#include <sys/socket.h>
long f(int fd, char *buf, int n)
{
	return recv(fd,
	    buf, n, 0);
}'
reads_check recv "src/run/notify.c:4: no bound in sight" \
    "a recv over two lines with no bound"

reads_tree comment-far
put export/x.c '#include <unistd.h>
long f(int fd, char *buf, int n)
{
	/* Bounded: a comment two lines above says nothing of this read. */

	return read(fd, buf, n);
}'
reads_check comment-far "src/export/x.c:6: no bound in sight" \
    "a Bounded: comment not on the line above"

echo "1..$n"
[ "$failed" -eq 0 ]
