#!/bin/sh
# SPDX-License-Identifier: ISC
# fuzz/run.sh - build the fuzzers (clang, libFuzzer, ASan, UBSan) in
# build-fuzz/ at the top of the tree and run them one after the other, for
# FUZZ_SECONDS (default 60) in all, split evenly (at least 5 s each): every
# target fuzz/fuzz.mk lists (make fuzz-list).  Exits non-zero when the
# build fails or a fuzzer finds a crash, a leak (fuzz/lsan.supp holds the
# explained exceptions) or a timeout; the input that did it is left in
# build-fuzz/artifacts/.
#
#   fuzz/run.sh
#   FUZZ_SECONDS=600 FUZZ_ARGS='-jobs=4 -workers=4' fuzz/run.sh
#   FUZZ_ARGS=-detect_leaks=0 fuzz/run.sh      # look past a known leak
#   build-fuzz/fuzz/profile-fuzzer build-fuzz/artifacts/crash-...   # replay
#
# New inputs go to build-fuzz/corpus/NAME; fuzz/corpus/NAME (the seeds) is
# only read.  A source tree configured in place cannot also be built in a
# separate directory (automake refuses), so then the files git knows of
# are copied to build-fuzz/src and built there.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build-fuzz
seconds=${FUZZ_SECONDS:-60}

if ! grep -q '^include fuzz/fuzz.mk' "$top/Makefile.am"; then
	echo "run.sh: add 'include fuzz/fuzz.mk' to Makefile.am" >&2
	exit 2
fi
mkdir -p "$out"
if test -f "$top/config.status"; then
	if ! git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
		echo "run.sh: $top is configured in place and is no git" \
		    "tree: run 'make distclean' there first" >&2
		exit 2
	fi
	mkdir -p "$out/src"
	# shellcheck disable=SC2016 # $f is for the inner shell
	(cd "$top" && git ls-files -z --cached --others --exclude-standard |
	    xargs -0 sh -c 'for f; do
		case $f in build-fuzz/*) continue ;; esac
		if test -f "$f"; then printf "%s\0" "$f"; fi
	    done' sh | tar --null -T - -cf -) | (cd "$out/src" && tar xpf -)
	cd "$out/src"
	if ! test -x configure || ! test -f Makefile.in ||
	    test configure.ac -nt configure; then
		autoreconf -fi >"$out/autoreconf.log" 2>&1 || {
			rm -f configure
			tail -n 20 "$out/autoreconf.log" >&2
			exit 2
		}
	fi
	builddir=$out/src
	configure=./configure
else
	mkdir -p "$out/build"
	cd "$out/build"
	builddir=$out/build
	configure=$top/configure
fi
if ! test -f Makefile || ! grep -q -- '--enable-fuzzing' config.status; then
	"$configure" --enable-fuzzing CC=clang >"$out/configure.log" 2>&1 || {
		tail -n 20 "$out/configure.log" >&2
		exit 2
	}
fi
# The one list of targets: fuzz/fuzz.mk's (the Makefile brought up to date
# first, so that only the list is printed).
make Makefile >"$out/make.log" 2>&1 || {
	tail -n 30 "$out/make.log" >&2
	exit 2
}
fuzzers=$(make -s --no-print-directory fuzz-list)
programs=
for name in $fuzzers; do
	programs="$programs fuzz/$name-fuzzer"
done
count=$(echo $fuzzers | wc -w)
each=$((seconds / count))
[ "$each" -ge 5 ] || each=5
# shellcheck disable=SC2086 # a list of programs
make $programs >>"$out/make.log" 2>&1 || {
	tail -n 30 "$out/make.log" >&2
	exit 2
}

mkdir -p "$out/artifacts" "$out/profiles"
chmod 0755 "$out/profiles"
CONFINE_FUZZ_PROFILES=$out/profiles
export CONFINE_FUZZ_PROFILES
failed=0
for name in $fuzzers; do
	mkdir -p "$out/corpus/$name"
	set +e
	# shellcheck disable=SC2086 # FUZZ_ARGS is a list of options
	dict=
	if test -f "$top/fuzz/$name.dict"; then
		dict=-dict=$top/fuzz/$name.dict
	fi
	LSAN_OPTIONS="suppressions=$top/fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}" \
	"$builddir/fuzz/$name-fuzzer" \
		-max_total_time="$each" \
		${dict:+"$dict"} \
		-artifact_prefix="$out/artifacts/" \
		-print_final_stats=1 \
		${FUZZ_ARGS:-} \
		"$out/corpus/$name" "$top/fuzz/corpus/$name"
	status=$?
	set -e
	if test "$status" -ne 0; then
		echo "run.sh: the $name fuzzer failed (status $status); the" \
		    "input is in $out/artifacts/" >&2
		find "$out/artifacts" -type f \
		    -newer "$builddir/fuzz/$name-fuzzer" >&2
		failed=$status
	fi
done
exit "$failed"
