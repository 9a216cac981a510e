#!/bin/sh
# SPDX-License-Identifier: ISC
# limits.sh - the resource limits (confine(1), LIMITS): their options and
# [limits] keys, bad values refused, the --dry-run block, and the kernel's
# own bounds in the sandbox: every tmpfs sized by the memory limit, its
# inodes bounded, RLIMIT_NPROC on a fork bomb, nice.  Each bound with a
# positive control: the same without it.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
plan 9

PROCS=$TESTS_BUILDDIR/helpers/procs
[ -x "$PROCS" ] || {
	echo "Bail out! no procs helper at $PROCS (make check builds it)"
	exit 1
}

# A profile file of the caller's, mode 0644, from stdin.
prof_file() {
	cat >"$1"
	chmod 0644 "$1"
	printf '%s\n' "$1"
}

# --dry-run's limits: block alone (the engine's block follows it).
limits_block() {
	awk '/^limits:$/ { on = 1; print; next } on && /^[a-z]/ { exit } on' "$OUT"
}

# The --dry-run block: each limit with its origin, and this backend's
# kernel bounds.
t_dry_run() {
	ws_new
	prof=$(printf '[profile]\ndescription = limits\n[limits]\nmemory = 48M\ntasks = 100\ncpus = none\n' |
	    prof_file "$TEST_TMP/lim.ini")
	run_confine --dry-run -p "$prof" --tasks 200 -- true
	if bwrap_setuid && ! grep -q '^  memory: memory\.max' "$OUT"; then
		# Its tmpfs cannot be bounded, and no memory controller here:
		# the asked memory is refused, the plan still printed.
		# --dry-run prints the plan and its refusal; a run exits 125.
		assert_status "$RC" 0
		assert_file_has_content "$OUT" '^  refused: --memory 48M: a setuid bwrap cannot bound its tmpfs'
	else
		assert_status "$RC" 0
	fi
	limits_block >"$TEST_TMP/block"
	assert_file_has_content "$TEST_TMP/block" "^  memory 48 MiB \\($prof:4\\)\$"
	assert_file_has_content "$TEST_TMP/block" '^  tasks 200 \(option --tasks\)$'
	assert_file_has_content "$TEST_TMP/block" "^  cpus none \\($prof:6\\)\$"
	assert_file_has_content "$TEST_TMP/block" '^  disk .* \(built-in default: the smaller of 10 GiB and a quarter of the .* free on the session store.s filesystem\)$'
	assert_file_has_content "$OUT" '^  limits\.memory = 48 MiB  \('"$prof"':4\)$'
	assert_file_has_content "$OUT" '^  limits\.tasks = 200  \(option --tasks\)$'
	case $BACKEND in
	native)
		assert_file_has_content "$TEST_TMP/block" '^    every tmpfs: size=48 MiB, nr_inodes=65536$'
		if [ "$(id -u)" -eq 0 ]; then
			assert_file_has_content "$TEST_TMP/block" '^    RLIMIT_NPROC: not set \(the kernel exempts'
		else
			assert_file_has_content "$TEST_TMP/block" '^    RLIMIT_NPROC 200 '
		fi ;;
	bwrap)
		if bwrap_setuid; then
			assert_file_has_content "$TEST_TMP/block" '^    every tmpfs: the kernel.s default size and inodes \(a setuid bwrap refuses --size\)$'
		else
			assert_file_has_content "$TEST_TMP/block" '^    every tmpfs: size=48 MiB \(bwrap.s --size'
		fi ;;
	landlock)
		assert_file_has_content "$TEST_TMP/block" '^    tmpfs: none of the sandbox.s own'
		assert_file_has_content "$TEST_TMP/block" '^    RLIMIT_NPROC: not set' ;;
	esac
	# cpus none asked: nothing to apply, no nice.
	assert_not_file_has_content "$TEST_TMP/block" 'nice'
	# The defaults: memory half the host's, nice for the CPU weight.
	run_confine --dry-run -- true
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^  memory .* \(built-in default: half of the host.s .*\)$'
	assert_file_has_content "$OUT" '^  tasks 4096 \(built-in default\)$'
	assert_file_has_content "$OUT" '^    nice \+5 '
	assert_no_session
	assert_ws_unchanged
}

# Bad values: one line, status 125, nothing run or made.
t_bad_values() {
	ws_new
	for args in "--memory 4GB" "--memory 512" "--tasks 0" "--tasks 1e3" \
	    "--cpus 1.2345" "--cpus 0" "--disk -1" "--disk 99999999999999999999"; do
		set -- $args
		run_confine "$@" -- sh -c 'echo ran'
		assert_status "$RC" 125
		assert_refusal "$ERR"
		assert_file_has_content "$ERR" "^confine: $1: "
		assert_file_empty "$OUT"
	done
	assert_no_session
	assert_ws_unchanged
}

# profile check: a bad [limits] value at FILE:LINE, an unknown key too.
t_profile_check() {
	ws_new
	good=$(printf '[limits]\nmemory = 2G\ntasks = none\ncpus = 0.5\ndisk = 1T\n' |
	    prof_file "$TEST_TMP/good.ini")
	bad=$(printf '[limits]\ntasks = 64\ncpus = two\n' |
	    prof_file "$TEST_TMP/bad.ini")
	unknown=$(printf '[limits]\nswap = 1G\n' | prof_file "$TEST_TMP/unknown.ini")
	RUN_CWD=$WS run_confine profile check "$good"
	assert_status "$RC" 0
	assert_file_empty "$ERR"
	RUN_CWD=$WS run_confine profile check "$bad"
	assert_status "$RC" 125
	assert_file_has_content "$ERR" "^confine: $bad:3: cpus: 'two' is not a number of CPUs"
	RUN_CWD=$WS run_confine profile check "$unknown"
	assert_status "$RC" 125
	assert_file_has_content "$ERR" "^confine: $unknown:2: unknown key 'swap' in section \\[limits\\]"
	# A run with the bad profile is refused the same way.
	run_confine -p "$bad" -- sh -c 'echo ran'
	assert_status "$RC" 125
	assert_file_has_content "$ERR" "$bad:3: cpus: "
	assert_file_empty "$OUT"
	assert_ws_unchanged
}

# Write 40 MiB to DIR inside: "written N" in KiB, and dd's complaint.
fill() {
	printf 'dd if=/dev/zero of=%s/fill bs=1M count=40 2>&1 | grep -o "No space left on device" || :; du -k %s/fill | cut -f1 | sed "s/^/written /"' "$1" "$1"
}

# Every tmpfs of the sandbox holds at most the memory limit: ENOSPC past
# it, in the sandbox only; without the limit (the control) the same
# writes go through.
t_tmpfs_size() {
	not_on landlock "no tmpfs of its own (no mount namespace)"
	! bwrap_setuid || skip_case "a setuid bwrap refuses --size (an asked --memory needs a memory controller there: the --dry-run case)"
	ws_new
	for d in /tmp /dev/shm '$HOME'; do
		run_confine --memory none -- sh -c "$(fill "$d")"
		assert_status "$RC" 0
		assert_file_has_content "$OUT" '^written 409[0-9][0-9]$'
		assert_not_file_has_content "$OUT" 'No space'
		run_confine --memory 16M -- sh -c "$(fill "$d")"
		assert_status "$RC" 0
		assert_file_has_content "$OUT" '^No space left on device$'
		kib=$(sed -n 's/^written //p' "$OUT")
		[ "$kib" -le 16384 ] || fail "$d holds $kib KiB past a 16 MiB limit"
	done
	# The host's /tmp and TEST_TMP are the host's, unbounded by it.
	assert_not_exists /tmp/fill
	head -c 20000000 /dev/zero >"$TEST_TMP/host-fill" ||
	    fail "control: the host cannot write 20 MB"
	rm -f "$TEST_TMP/host-fill"
	assert_ws_unchanged
}

# ... and at most one inode per 16 KiB of it (65536 at least): a tmpfs
# full of empty files refuses the next.  bwrap has no nr_inodes option.
t_tmpfs_inodes() {
	not_on landlock "no tmpfs of its own (no mount namespace)"
	not_on bwrap "bubblewrap has no option for a tmpfs's inodes"
	ws_new
	many='cd /tmp && seq 1 70000 | xargs touch 2>&1 | grep -o "No space left on device" | sort -u; ls | grep -c "^[0-9]*\$"'
	run_confine --memory none -- sh -c "$many"
	assert_status "$RC" 0
	assert_eq "$(cat "$OUT")" 70000 "files made without the limit"
	# 64 MiB: room for the processes that make the files (ls sorting
	# 65,536 names, xargs), which the memory limit counts too; the
	# inodes' bound is the floor, 65,536, all the same.
	run_confine --memory 64M -- sh -c "grep -o ' /tmp .*nr_inodes=[0-9]*' /proc/self/mountinfo | sed 's/.*nr_inodes=/inodes /'; $many"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^inodes 65536$'
	assert_file_has_content "$OUT" '^No space left on device$'
	n=$(tail -n 1 "$OUT")
	[ "$n" -lt 65536 ] || fail "/tmp holds $n files past 65536 inodes"
	assert_ws_unchanged
}

# The sandbox's own user namespace counts its tasks alone: RLIMIT_NPROC
# is the task limit there.  Where bwrap makes no user namespace (setuid),
# and for root (the kernel exempts uid 0), the plan leaves it out, and
# says so.
nproc_set() {
	run_confine --dry-run --tasks 50 -- true
	grep -q '^    RLIMIT_NPROC 50 ' "$OUT"
}

# A bounded fork bomb: 200 children alive at once.
t_fork_bomb() {
	not_on landlock "no user namespace: the supervisor's watch holds tasks"
	ws_new
	nproc_set || skip_case "$(grep '^    RLIMIT_NPROC' "$OUT" | sed 's/^ *//')"
	cp "$PROCS" "$WS/.t/procs"
	WS_HASH=$(tree_hash "$WS")
	run_confine --tasks none -- "$WS/.t/procs" forks 200
	assert_status "$RC" 0
	assert_eq "$(cat "$OUT")" "forks made 200 refused 0" "control: without the limit"
	run_confine --tasks 50 -- sh -c "grep '^Max processes' /proc/self/limits; '$WS/.t/procs' forks 200"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^Max processes +50 +50 '
	line=$(tail -n 1 "$OUT")
	made=$(echo "$line" | sed -n 's/^forks made \([0-9]*\) refused \([0-9]*\) EAGAIN$/\1/p')
	refused=$(echo "$line" | sed -n 's/^forks made \([0-9]*\) refused \([0-9]*\) EAGAIN$/\2/p')
	[ -n "$made" ] || fail "not a count of forks refused with EAGAIN: $line"
	# The sandbox's first process, the shell and the helper count.
	[ "$made" -lt 50 ] && [ "$refused" -gt 150 ] ||
	    fail "50 tasks let $made forks through ($refused refused)"
	# The host's own limit for the user is untouched.
	assert_ne "$(sh -c 'grep "^Max processes" /proc/self/limits' | awk '{ print $3 }')" 50 \
	    "the host's process limit"
	assert_ws_unchanged
}

# The default cpus lowers the sandbox's share: nice +5; cpus none given
# explicitly applies nothing.
t_nice() {
	ws_new
	host=$(nice)
	run_confine -- nice
	assert_status "$RC" 0
	want=$((host + 5))
	[ "$want" -le 19 ] || want=19
	assert_eq "$(cat "$OUT")" "$want" "the sandbox's nice value"
	run_confine --cpus none -- nice
	assert_status "$RC" 0
	assert_eq "$(cat "$OUT")" "$host" "the nice value with cpus none asked"
	assert_ws_unchanged
}

# The limits step is taken, on every backend (the default nice), and
# logged with -vv.
t_step() {
	ws_new
	run_confine -vv -- true
	assert_status "$RC" 0
	assert_file_has_content "$ERR" '^confine: debug: step [0-9]+: limits$'
	assert_ws_unchanged
}

# none given explicitly: nothing to apply, said as asked.
t_none() {
	ws_new
	run_confine --dry-run --memory none --tasks none -- true
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^  memory none \(option --memory\)$'
	assert_file_has_content "$OUT" '^  tasks none \(option --tasks\)$'
	limits_block >"$TEST_TMP/block"
	assert_not_file_has_content "$TEST_TMP/block" 'RLIMIT_NPROC'
	[ "$BACKEND" = landlock ] ||
	    assert_file_has_content "$OUT" '^    every tmpfs: the kernel.s default size'
	[ "$BACKEND" = landlock ] && return 0
	run_confine --memory none -- sh -c "grep ' /tmp ' /proc/self/mountinfo"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" ' - tmpfs '
	assert_not_file_has_content "$OUT" 'size='
	assert_ws_unchanged
}

tcase "--dry-run: each limit, its origin, the kernel's bounds" t_dry_run
tcase "bad values are refused, one line, 125" t_bad_values
tcase "profile check: [limits] values at FILE:LINE" t_profile_check
tcase "every tmpfs holds at most the memory limit" t_tmpfs_size
tcase "a tmpfs's inodes are bounded" t_tmpfs_inodes
tcase "RLIMIT_NPROC bounds a fork bomb" t_fork_bomb
tcase "the default cpus lowers the nice value" t_nice
tcase "the limits step is taken and logged" t_step
tcase "a limit none given explicitly is kept none" t_none

tap_done
