#!/bin/sh
# SPDX-License-Identifier: ISC
#
# check-layering.sh - dependencies point down only (STYLE.md section 2).
# Reads the '#include "..."' lines of src/*.c and src/*.h and prints one TAP
# line per file; a file fails on any include its layer may not make:
#   - enforcement modules include only plan.h log.h util.h sys.h copy.h
#     termfilter.h (pure) and their own header, so never each other;
#   - policy includes no enforcement header;
#   - the read stage and the leaves (cli env util log sys plan probe
#     profile) include no enforcement header, nor policy.h nor sandbox.h;
#   - every module: only headers that exist in src/, and sandbox.h or
#     doctor.h only from main.c or their own module.
# config.h (generated, included first everywhere) is always allowed.

src=${TESTS_SRCDIR:-$(dirname "$0")}/../src
enforcement="ns mount net landlock syscall-filter caps pty workspace"
enforcement_allowed="plan log util sys copy termfilter"
leaves="cli env util log sys plan probe profile copy stage"

if ! ls "$src"/*.c >/dev/null 2>&1; then
	echo "Bail out! no sources in $src (set TESTS_SRCDIR to tests/)"
	exit 1
fi

in_list() {
	# in_list WORD LIST: is WORD one of the words of LIST?
	case " $2 " in
	*" $1 "*) return 0 ;;
	esac
	return 1
}

# The headers a file includes with quotes, without ".h", one a line.
includes() {
	grep '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$1" |
	    sed 's/^[^"]*"\([^"]*\)".*/\1/; s/\.h$//'
}

# Print why MODULE may not include HEADER; nothing if it may.
violation() {
	module=$1 header=$2
	[ "$header" = config ] && return
	if [ ! -f "$src/$header.h" ]; then
		echo "includes \"$header.h\", which is not a header in src/"
		return
	fi
	[ "$header" = "$module" ] && return
	if in_list "$module" "$enforcement"; then
		if in_list "$header" "$enforcement"; then
			echo "enforcement module includes enforcement" \
			    "module \"$header.h\""
		elif ! in_list "$header" "$enforcement_allowed"; then
			echo "enforcement module includes \"$header.h\"" \
			    "(only plan.h log.h util.h sys.h copy.h)"
		fi
		return
	fi
	if [ "$module" = policy ] && in_list "$header" "$enforcement"; then
		echo "policy includes enforcement header \"$header.h\""
		return
	fi
	if in_list "$module" "$leaves"; then
		if in_list "$header" "$enforcement policy sandbox"; then
			echo "$module sits below \"$header.h\""
			return
		fi
	fi
	case $header in
	sandbox | doctor)
		[ "$module" = main ] ||
		    echo "only main.c wires in \"$header.h\""
		;;
	esac
}

n=0
for f in "$src"/*.c "$src"/*.h; do
	n=$((n + 1))
done
echo "1..$n"

i=0 failed=0
for f in "$src"/*.c "$src"/*.h; do
	i=$((i + 1))
	name=$(basename "$f")
	module=${name%.*}
	why=
	for h in $(includes "$f"); do
		w=$(violation "$module" "$h")
		[ -n "$w" ] && why="${why:+$why; }$w"
	done
	if [ -z "$why" ]; then
		echo "ok $i - $name"
	else
		echo "not ok $i - $name: $why"
		failed=$((failed + 1))
	fi
done
[ "$failed" -eq 0 ]
