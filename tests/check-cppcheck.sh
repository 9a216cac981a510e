#!/bin/sh
# SPDX-License-Identifier: ISC
#
# check-cppcheck.sh - what cppcheck finds in src/ that a reader could take
# for a bug: a va_list left open, an expression whose precedence is not
# the one written, a variable read before it is set, and any finding
# cppcheck ranks an error.
#
# Run by CI (.ci/run), not by make check: cppcheck takes a while and is
# no build dependency.  Without cppcheck it says so and skips.  Findings
# cppcheck makes without knowing that die() does not return (a pointer
# "maybe NULL" after it) are not listed, nor style it merely prefers.
#
# Usage: sh tests/check-cppcheck.sh [TOP]  (TOP: the source tree, default
# the one this script is in).

top=${1:-$(dirname "$0")/..}
if ! command -v cppcheck >/dev/null; then
	echo "1..0 # SKIP cppcheck is not installed"
	exit 0
fi
out=$(cppcheck -q -j2 --enable=warning,style,portability --std=c11 \
    --inline-suppr -I"$top" -I"$top/src" \
    --template='{file}:{line}: {severity} {id}: {message}' \
    "$top/src" 2>&1)
bad=$(printf '%s\n' "$out" | grep -E '^[^ ]+:[0-9]+: (error [A-Za-z]+|[a-z]+ (va_[A-Za-z_]+|clarifyCalculation|clarifyCondition|uninitvar|uninitStructMember|shiftTooManyBits|integerOverflow|bufferAccessOutOfBounds|arrayIndexOutOfBounds|memleak|resourceLeak|doubleFree|useAfterFree|invalidPrintfArgType_[a-z]+|wrongPrintfScanfArgNum)):')
echo "1..1"
if [ -z "$bad" ]; then
	echo "ok 1 - cppcheck: no open va_list, unclear precedence or error"
else
	echo "not ok 1 - cppcheck:"
	printf '%s\n' "$bad" | sed 's/^/# /'
	exit 1
fi
