#!/bin/sh
# SPDX-License-Identifier: ISC
# The manual pages against the program: every option of "confine --help"
# is in confine(1)'s OPTIONS and every option there is in --help; the same
# for the subcommands (COMMANDS) and the exit statuses (EXIT STATUS); every
# profile key the loader knows (src/input/profile.c) is in confine-profile(5);
# the shipped roff is what scdoc makes of the .scd source (when scdoc is
# installed), and man(1) reads it without a warning (when man is).
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"

top=$TESTS_SRCDIR/..
scd1=$top/man/confine.1.scd
scd5=$top/man/confine-profile.5.scd
plan 12

# section FILE NAME: the lines of the top-level section "# NAME".
section() {
	awk -v want="# $2" '
		/^# / { on = ($0 == want); next }
		on' "$1"
}

# The terms of an scdoc definition list: a line followed by a tab-indented
# line; prints the bold words of the term, one a line.
terms() {
	awk '
		prev != "" && /^\t/ { print prev }
		{ prev = ($0 ~ /^\*/) ? $0 : "" }' |
	    grep -o '\*[^*]*\*' | tr -d '*'
}

help_text() {
	"$CONFINE" --help >"$TEST_TMP/help" || fail "confine --help failed"
}

# The options of --help: the leading words of the lines of "Options:".
help_options() {
	help_text
	awk '
		/^Options:/ { on = 1; next }
		/^[^ ]/ { on = 0 }
		on && $1 ~ /^-/ {
			for (i = 1; i <= NF; i++) {
				w = $i; sub(/,$/, "", w)
				if (w !~ /^-/) break
				print w
			}
		}' "$TEST_TMP/help" | sort -u
}

man_options() {
	section "$scd1" OPTIONS | terms | grep '^-' | sort -u
}

# Compare two sorted lists; name what is missing on each side.
same_lists() {
	printf '%s\n' "$1" >"$TEST_TMP/a"
	printf '%s\n' "$2" >"$TEST_TMP/b"
	_only_a=$(comm -23 "$TEST_TMP/a" "$TEST_TMP/b" | tr '\n' ' ')
	_only_b=$(comm -13 "$TEST_TMP/a" "$TEST_TMP/b" | tr '\n' ' ')
	[ -z "$_only_a" ] || fail "in $3 only: $_only_a"
	[ -z "$_only_b" ] || fail "in $4 only: $_only_b"
}

t_options() {
	h=$(help_options)
	m=$(man_options)
	[ "$(printf '%s\n' "$h" | wc -l)" -ge 10 ] ||
	    fail "too few options read from --help: $h"
	same_lists "$h" "$m" "confine --help" "confine(1) OPTIONS"
}

# The subcommands of --help ("Subcommands:"), with profile's own words.
t_commands() {
	help_text
	h=$(awk '
		/^Subcommands:/ { on = 1; next }
		/^[^ ]/ { on = 0 }
		on && /^  [a-z]/ {
			if ($1 == "profile") print $1 " " $2; else print $1
		}' "$TEST_TMP/help" | sort -u)
	m=$(section "$scd1" COMMANDS | awk '
		prev != "" && /^\t/ { print prev }
		{ prev = ($0 ~ /^\*[a-z]/) ? $0 : "" }' |
	    tr -d '*' |
	    awk '{ if ($1 == "profile") print $1 " " $2; else print $1 }' |
	    sort -u)
	[ "$(printf '%s\n' "$h" | wc -l)" -ge 10 ] ||
	    fail "too few subcommands read from --help: $h"
	same_lists "$h" "$m" "confine --help" "confine(1) COMMANDS"
}

t_synopsis() {
	# Every subcommand has a line in the SYNOPSIS.
	s=$(section "$scd1" SYNOPSIS)
	for c in run ls show diff apply enter drop profile trust doctor; do
		printf '%s\n' "$s" | grep -q "^\*confine $c\*\|^\*confine\* \*$c\*" ||
		    fail "no SYNOPSIS line for '$c'"
	done
}

t_exit_status() {
	help_text
	codes=$(sed -n '/^Exit status:/,/^$/p' "$TEST_TMP/help" |
	    grep -o '12[0-9]\(+N\)\{0,1\}' | sort -u)
	[ -n "$codes" ] || fail "no exit status in --help"
	s=$(section "$scd1" "EXIT STATUS")
	for c in $codes; do
		printf '%s\n' "$s" | grep -q -F "$c" ||
		    fail "exit status $c of --help is not in EXIT STATUS"
	done
}

t_sections() {
	for f in "$scd1" "$scd5"; do
		for s in NAME SYNOPSIS DESCRIPTION FILES EXAMPLES "SEE ALSO"; do
			grep -q "^# $s\$" "$f" || fail "$f: no $s section"
		done
	done
	for s in COMMANDS OPTIONS "EXIT STATUS" ENVIRONMENT; do
		grep -q "^# $s\$" "$scd1" || fail "confine(1): no $s section"
	done
}

t_profile_keys() {
	src=$top/src/input/profile.c
	[ -r "$src" ] || skip_case "no $src"
	keys=$(sed -n 's/^[[:space:]]*K("\([a-z]*\)", "\([a-z-]*\)",.*/\1 \2/p' "$src")
	[ "$(printf '%s\n' "$keys" | wc -l)" -ge 10 ] ||
	    fail "too few keys read from $src"
	printf '%s\n' "$keys" | while read -r sect key; do
		awk -v s="## [$sect]" '
			/^## / { on = ($0 == s); next }
			/^# / { on = 0 }
			on' "$scd5" | grep -q "^\*$key =\*" ||
		    fail "confine-profile(5) has no '$key =' under [$sect]"
	done
}

# The shipped roff is scdoc's output for the shipped source.
t_roff_current() {
	command -v scdoc >/dev/null 2>&1 || skip_case "scdoc is not installed"
	for p in confine.1 confine-profile.5; do
		scdoc <"$top/man/$p.scd" >"$TEST_TMP/$p" ||
		    fail "scdoc fails on man/$p.scd"
		# Only the date in the title (the day scdoc ran) may differ.
		sed '/^\.TH /s/"[0-9]\{4\}-[0-9][0-9]-[0-9][0-9]"//' "$TEST_TMP/$p" >"$TEST_TMP/$p.new"
		sed '/^\.TH /s/"[0-9]\{4\}-[0-9][0-9]-[0-9][0-9]"//' "$top/man/$p" >"$TEST_TMP/$p.old"
		cmp -s "$TEST_TMP/$p.new" "$TEST_TMP/$p.old" ||
		    fail "man/$p is older than man/$p.scd (run make to regenerate)"
	done
}

# The date in a page's title is its source's last change, not the day it
# was built: in a git checkout, with the source as committed, the day of
# the source's last commit (UTC, as scdoc prints SOURCE_DATE_EPOCH).
t_roff_date() {
	git -C "$top" rev-parse --git-dir >/dev/null 2>&1 ||
	    skip_case "not a git checkout"
	for p in confine.1 confine-profile.5; do
		# (A tarball unpacked inside a checkout: not its files.)
		git -C "$top" ls-files --error-unmatch "man/$p.scd" \
		    >/dev/null 2>&1 || skip_case "man/$p.scd is not in git"
		git -C "$top" diff --quiet HEAD -- "man/$p.scd" ||
		    skip_case "man/$p.scd has changes not committed"
		want=$(TZ=UTC git -C "$top" log -1 --date=format-local:%Y-%m-%d \
		    --format=%cd -- "man/$p.scd")
		# Control: the source has a commit, and the page a date.
		[ -n "$want" ] || fail "man/$p.scd has no commit"
		got=$(sed -n '/^\.TH /s/.*"\([0-9]\{4\}-[0-9][0-9]-[0-9][0-9]\)".*/\1/p' \
		    "$top/man/$p")
		[ -n "$got" ] || fail "man/$p has no date in its title"
		assert_eq "$got" "$want" "man/$p's date"
	done
}

t_man_warnings() {
	command -v man >/dev/null 2>&1 || skip_case "man is not installed"
	for p in confine.1 confine-profile.5; do
		MANWIDTH=80 man --warnings -l "$top/man/$p" \
		    >"$TEST_TMP/out" 2>"$TEST_TMP/warn" ||
		    fail "man -l man/$p fails"
		assert_file_empty "$TEST_TMP/warn"
		grep -q . "$TEST_TMP/out" || fail "man -l man/$p printed nothing"
	done
}

# The version in the pages' titles is the program's.
t_version() {
	v=$("$CONFINE" --version | awk '{ print $NF }')
	[ -n "$v" ] || fail "no version from confine --version"
	for f in "$scd1" "$scd5"; do
		head -n 1 "$f" | grep -q -F "\"confine $v\"" ||
		    fail "$f: title does not say confine $v"
	done
}

# The values of --backend: --help, confine(1) and confine-profile(5) agree.
t_backends() {
	help_text
	h=$(sed -n 's/^ *--backend [A-Z]* *//p' "$TEST_TMP/help" |
	    tr ',' ' ' | sed 's/ or / /g' | tr -s ' ' '\n' | grep . | sort)
	m=$(section "$scd1" OPTIONS | sed -n '/^\*--backend\*/,/^$/p' |
	    grep -o '\*[a-z]*\*' | tr -d '*' | sort -u)
	p=$(grep '^\*backend =\*' "$scd5" | grep -o '\*[a-z]*\*' | tr -d '*' |
	    sort -u)
	[ -n "$h" ] || fail "no backends in --help"
	same_lists "$h" "$m" "confine --help" "confine(1) --backend"
	same_lists "$h" "$p" "confine --help" "confine-profile(5) backend"
}

# The network modes: confine(1) NETWORK and confine-profile(5) mode agree.
t_network() {
	n=$(section "$scd1" NETWORK | awk '
		prev != "" && /^\t/ { print prev }
		{ prev = ($0 ~ /^\*/) ? $0 : "" }' |
	    sed 's/^\*\([a-z]*\)\*.*/\1/' | sort -u)
	p=$(grep '^\*mode =\*' "$scd5" | grep -o '\*[a-z]*\*' | tr -d '*' |
	    sort -u)
	[ "$(printf '%s\n' "$n" | wc -l)" -ge 3 ] ||
	    fail "too few modes in NETWORK: $n"
	same_lists "$n" "$p" "confine(1) NETWORK" "confine-profile(5) mode"
}

tcase "every --help option is in confine(1) OPTIONS, and back" t_options
tcase "every --help subcommand is in confine(1) COMMANDS, and back" t_commands
tcase "every subcommand has a SYNOPSIS line" t_synopsis
tcase "every exit status of --help is in EXIT STATUS" t_exit_status
tcase "the pages have the usual sections" t_sections
tcase "every profile key of the loader is in confine-profile(5)" t_profile_keys
tcase "the shipped roff is current with the scdoc source" t_roff_current
tcase "the pages are dated by their source's last commit" t_roff_date
tcase "man --warnings finds nothing in either page" t_man_warnings
tcase "the pages carry the program's version" t_version
tcase "the help and the pages name the same backends" t_backends
tcase "both pages name the same network modes" t_network
tap_done
