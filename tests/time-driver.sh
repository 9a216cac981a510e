#!/bin/sh
# SPDX-License-Identifier: ISC
# time-driver.sh - wraps automake's test driver and appends the test's
# wall time and CPU time (user + system, the test and all it ran) to its
# .log, as "# wall-time: SECONDS cpu: SECONDS", so that CI can say where
# the suite's time goes ("make check-times" lists the slowest).  A test
# whose wall time is far above its CPU time mostly waits.
# Usage: time-driver.sh DRIVER [DRIVER-ARGUMENTS...]

log=
prev=
for a in "$@"; do
	[ "$prev" = --log-file ] && log=$a
	prev=$a
done
t0=$(date +%s%N)
"$@"
rc=$?
t1=$(date +%s%N)
# times: the shell's own, then its children's, as "NmS.SSSs NmS.SSSs";
# into a file, since in a pipe or $(...) it would be a subshell's.
cpu=
if [ -n "$log" ] && times >"$log.times"; then
	cpu=$(awk 'NR == 2 {
		c = 0
		for (i = 1; i <= 2; i++) {
			split($i, a, "m"); sub(/s$/, "", a[2]); c += a[1] * 60 + a[2]
		}
		printf "%.1f", c
	}' "$log.times")
	rm -f "$log.times"
fi
[ -n "$log" ] && [ -f "$log" ] &&
    awk -v ns=$((t1 - t0)) -v cpu="$cpu" \
	'BEGIN { printf "# wall-time: %.1f cpu: %s\n", ns / 1e9, cpu }' >>"$log"
exit $rc
