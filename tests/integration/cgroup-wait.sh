#!/bin/sh
# SPDX-License-Identifier: ISC
# cgroup-wait.sh - the wait for a sandbox's cgroup to empty ends when
# another process removes the cgroup at once, before the kernel has sent
# the wait its wake-up: the kernel sends that wake-up later, from a work
# item, and none for a cgroup already removed.  A later confine removes an
# empty cgroup whose maker is gone, and the detached tear-down of an
# untouched session's run is such a wait.  tests/helpers/cgroup-wait runs
# the rounds on real cgroups below one of this test's: cgroup_wait_empty() must
# end in every round.  Control: a bare poll(2) on cgroup.events, with no
# timer, stays asleep in some rounds (said, not required: a kernel that
# does not lose the wake-up needs no defence).  Host side only: run once.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
. "$TESTS_SRCDIR/limits-lib.sh"

HELPER=$TESTS_BUILDDIR/helpers/cgroup-wait
[ -x "$HELPER" ] || { echo "Bail out! no $HELPER"; exit 1; }
[ -n "$CG_SELF" ] && [ -w "$CG_SELF" ] && [ -w "$CG_SELF/cgroup.procs" ] ||
    skip_all "this test's own cgroup (${CG_SELF:-none}) cannot be written here"
plan 2
ROUNDS=20

# This test's cgroups, in a cgroup of its own: nothing of a test beside it
# is touched.
CG=$CG_SELF/test-cgroup-wait.$(unique_num)
mkdir "$CG" || { echo "Bail out! cannot make $CG"; exit 1; }
cleanup_cgroups() {
	echo 1 >"$CG/cgroup.kill" 2>/dev/null
	for _c in "$CG"/*/; do
		[ -d "$_c" ] && wait_for 10 rmdir "$_c" 2>/dev/null
	done
	rmdir "$CG" 2>/dev/null || :
}
LIB_CLEANUP_HOOK=cleanup_cgroups

t_wait() {
	"$HELPER" wait "$CG" "$ROUNDS" $((10 * TEST_TIME_FACTOR)) \
	    >"$TEST_TMP/wait" 2>&1 || fail "the helper failed: $(cat "$TEST_TMP/wait")"
	assert_file_has_content "$TEST_TMP/wait" "^stuck 0 of $ROUNDS\$"
}
tcase "the wait for an empty cgroup ends when the cgroup is removed at once" \
    t_wait

t_control() {
	"$HELPER" bare "$CG" "$ROUNDS" 1 >"$TEST_TMP/bare" 2>&1 ||
	    fail "the helper failed: $(cat "$TEST_TMP/bare")"
	diag "control: a bare poll with no timer: $(cat "$TEST_TMP/bare") rounds"
}
tcase "control: how often a bare poll on cgroup.events loses its wake-up" \
    t_control
tap_done
