#!/bin/sh
# SPDX-License-Identifier: ISC
#
# check-layering.sh - the architecture of src/ (HACKING.md), checked.
#
# Every file under src/ is classified by its folder, and a folder may
# include the headers of the folders below it only:
#
#   lib      lib
#   input    lib input
#   policy   lib input policy
#   enforce  lib and policy/plan.h: one mechanism each, never each other
#   store    lib store
#   run      lib input policy enforce store run
#   export   lib input store export
#   keyholder lib keyholder: confine-keyholder, apart as export is
#   cmd      lib input policy enforce store run cmd
#
# Each folder's README says what the folder may include, in a sentence
# "May include: lib/, input/." that names the same folders as this table.
#
# Then, on the built objects (TESTS_BUILDDIR/../src), two facts a reader of
# the includes cannot see:
#   - no cycle between files: file A uses a function defined in file B
#     (nm), and no chain of such uses leads from B back to A;
#   - policy is pure: its objects call nothing but policy's own functions,
#     those of the pure files of lib and input ($pure_files below: memory,
#     strings, environment arrays, SHA-256, escaping, the values' syntax
#     and the profile's lists) and the C library's memory, string and
#     formatting functions (no system call, no file opened, not through
#     lib/fdio or lib/sys either), and enforcement modules never exit;
#   - no hidden state: no file keeps a variable that can change (.data or
#     .bss, static locals too) but the few the process keeps as a whole
#     ($state_allowed below: the log level and the fatal path's fd and
#     hook, the terminal state the exit path restores, libsystemd's
#     handle and symbols once loaded).  Tables that never change are
#     const (.rodata, .data.rel.ro) and pass.
# config.h (generated, included first everywhere) is always allowed.

top=${TESTS_SRCDIR:-$(dirname "$0")}/..
src=$top/src
obj=${TESTS_BUILDDIR:-$top/tests}/../src

if ! ls "$src"/lib/*.c >/dev/null 2>&1; then
	echo "Bail out! no sources in $src/lib (set TESTS_SRCDIR to tests/)"
	exit 1
fi

allowed_lib="lib"
allowed_input="lib input"
allowed_policy="lib input policy"
allowed_enforce="lib"
allowed_store="lib store"
allowed_run="lib input policy enforce store run"
allowed_export="lib input store export"
allowed_keyholder="lib keyholder"
allowed_cmd="lib input policy enforce store run cmd"
folders="lib input policy enforce store run export keyholder cmd"

in_list() {
	case " $2 " in
	*" $1 "*) return 0 ;;
	esac
	return 1
}

# The headers a file includes with quotes, one a line, as written.
includes() {
	grep '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$1" |
	    sed 's/^[^"]*"\([^"]*\)".*/\1/'
}

# Print why FILE (folder/name.c) may not include HEADER; nothing if it may.
violation() {
	file=$1 header=$2
	folder=${file%%/*}
	[ "$header" = config.h ] && return
	case $header in
	*/*) ;;
	*)
		echo "includes \"$header\" without its folder"
		return
		;;
	esac
	if [ ! -f "$src/$header" ]; then
		echo "includes \"$header\", which is not a header in src/"
		return
	fi
	hfolder=${header%%/*}
	eval "allowed=\$allowed_$folder"
	[ "${file%.*}" = "${header%.h}" ] && return
	if [ "$folder" = enforce ]; then
		[ "$header" = policy/plan.h ] && return
		[ "$hfolder" = enforce ] &&
		    echo "enforcement module includes enforcement module" \
		    "\"$header\"" && return
	fi
	in_list "$hfolder" "$allowed" ||
	    echo "$folder/ may not include $hfolder/ (\"$header\")"
}

files=
for d in $folders; do
	for f in "$src/$d"/*.c "$src/$d"/*.h; do
		[ -f "$f" ] && files="$files ${f#"$src"/}"
	done
done
stray=$(cd "$src" && for p in *.[ch] */*.[ch]; do
	[ -f "$p" ] || continue
	in_list "${p%%/*}" "$folders" || echo "$p"
done)

n=0
for f in $files; do
	n=$((n + 1))
done
echo "1..$((n + 6))"

i=0 failed=0
for f in $files; do
	i=$((i + 1))
	why=
	for h in $(includes "$src/$f"); do
		w=$(violation "$f" "$h")
		[ -n "$w" ] && why="${why:+$why; }$w"
	done
	if [ -z "$why" ]; then
		echo "ok $i - $f"
	else
		echo "not ok $i - $f: $why"
		failed=$((failed + 1))
	fi
done

i=$((i + 1))
if [ -z "$stray" ]; then
	echo "ok $i - every file of src/ is in one of: $folders"
else
	echo "not ok $i - outside the folders: $(echo $stray)"
	failed=$((failed + 1))
fi

# The folders a README's "May include:" sentence names, sorted, one line.
readme_allows() {
	tr '\n' ' ' <"$1" | sed -n 's/.*May include:\(.*\)/\1/p' |
	    sed 's/\.\( \|$\).*//' | grep -o '[a-z]*/\([^a-z]\|$\)' |
	    tr -d '/,.; ' | sort -u | tr '\n' ' '
}
i=$((i + 1))
why=
for d in $folders; do
	eval "want=\$allowed_$d"
	want=$(printf '%s\n' $want | sort -u | tr '\n' ' ')
	if [ ! -f "$src/$d/README" ]; then
		why="$why $d/ has no README;"
		continue
	fi
	got=$(readme_allows "$src/$d/README")
	[ "$got" = "$want" ] ||
	    why="$why $d/README says it may include '$got', the rule is '$want';"
done
if [ -z "$why" ]; then
	echo "ok $i - every folder's README says what it may include"
else
	echo "not ok $i - the READMEs and the rules differ:$why"
	failed=$((failed + 1))
fi

# The objects: "FILE DEF SYMBOL" and "FILE USE SYMBOL" lines.
objs=$(ls "$obj"/*/*.o 2>/dev/null)
if [ -z "$objs" ] || ! command -v nm >/dev/null ||
    ! command -v objdump >/dev/null; then
	for w in "no cycle" "policy is pure" "enforcement never exits" \
	    "no hidden state"; do
		i=$((i + 1))
		echo "ok $i # SKIP $w: no objects in $obj (build first) or no nm, objdump"
	done
	[ "$failed" -eq 0 ]
	exit
fi
syms=$(for o in $objs; do
	f=${o#"$obj"/}
	d=${f%%/*}
	b=${f##*/}
	b=${b%.o}
	b=${b#libconfine_a-}	# automake's per-target prefixes
	b=${b#confine_export-}
	b=${b#libkeyholder_a-}
	# An object left from a source file since removed: not the tree's.
	[ -f "$src/$d/$b.c" ] || continue
	case $d/$b in
	export/main | cmd/main | keyholder/main) ;;
	*)
		nm "$o" | awk -v f="$d/$b" '
		    $1 == "U" { print f, "USE", $2; next }
		    $2 ~ /^[TDBR]$/ { print f, "DEF", $3 }'
		;;
	esac
done)

i=$((i + 1))
cycle=$(echo "$syms" | awk '
	$2 == "DEF" { def[$3] = $1 }
	$2 == "USE" { use[++n] = $1 SUBSEP $3 }
	END {
		for (k = 1; k <= n; k++) {
			split(use[k], p, SUBSEP)
			if (p[2] in def && def[p[2]] != p[1])
				edge[p[1], def[p[2]]] = 1
		}
		for (e in edge) {
			split(e, p, SUBSEP)
			node[p[1]] = 1; node[p[2]] = 1
		}
		# Floyd-Warshall reachability: the graph is a few dozen files.
		for (e in edge)
			reach[e] = 1
		for (k in node) for (a in node) if ((a, k) in reach)
			for (b in node) if ((k, b) in reach)
				reach[a, b] = 1
		for (a in node) if ((a, a) in reach) {
			out = out " " a
		}
		print out
	}')
if [ -z "$(echo $cycle)" ]; then
	echo "ok $i - no cycle between files (by the functions they use)"
else
	echo "not ok $i - files in a cycle of calls:$cycle"
	failed=$((failed + 1))
fi

# The files of lib and input whose functions policy may call: they open
# nothing and ask the kernel nothing (input/profile's loaders are called
# by cmd, before policy).
pure_files='lib/util lib/env lib/sha256 lib/term-escape input/values
input/profile'

# The C library functions policy may call: memory, strings, formatting to
# a caller's stream, sorting, time conversion.  Nothing that opens, reads
# or asks the kernel.
pure='abort calloc free malloc realloc memcmp memcpy memmove memset memchr
strlen strnlen strcmp strncmp strcasecmp strncasecmp strchr strrchr strstr strspn strcspn strdup
strndup strtol strtoul strtoull strtoll snprintf vsnprintf sprintf fprintf
vfprintf fputc fputs fwrite putc qsort gmtime_r __stack_chk_fail
__snprintf_chk __sprintf_chk __vsnprintf_chk __fprintf_chk __vfprintf_chk
__memcpy_chk __memmove_chk __memset_chk __strcpy_chk __stpcpy_chk
__strcat_chk __strncpy_chk __ctype_b_loc __ctype_tolower_loc
__ctype_toupper_loc __assert_fail isatty strcpy stpcpy strcat strncpy
strsep strtok_r strftime __popcountdi2 ferror'
i=$((i + 1))
impure=$(echo "$syms" | awk -v pure="$pure" -v files="$pure_files" '
	BEGIN {
		n = split(pure, p); for (k = 1; k <= n; k++) ok[p[k]] = 1
		n = split(files, p); for (k = 1; k <= n; k++) okf[p[k]] = 1
	}
	$2 == "DEF" { def[$3] = $1 }
	$2 == "USE" && $1 ~ /^policy\// { use[$1 " " $3] = 1 }
	END {
		for (u in use) {
			split(u, p, " ")
			s = p[2]; d = def[s]
			if (s in ok || d ~ /^policy\// || d in okf)
				continue
			print p[1] ": " s
		}
	}' | sort)
if [ -z "$impure" ]; then
	echo "ok $i - policy is pure: no system call, no file opened"
else
	echo "not ok $i - policy calls outside itself: $(echo $impure)"
	failed=$((failed + 1))
fi

i=$((i + 1))
exits=$(echo "$syms" | awk '$2 == "USE" && $1 ~ /^enforce\// &&
    ($3 == "exit" || $3 == "die" || $3 == "_exit") { print $1 ": " $3 }' |
    sort -u)
if [ -z "$exits" ]; then
	echo "ok $i - enforcement modules never exit (they return an error)"
else
	echo "not ok $i - enforcement modules exit: $(echo $exits)"
	failed=$((failed + 1))
fi

# The variables a file may keep, as FILE:NAME (a static local's compiler
# suffix, ".N", dropped).
state_allowed='lib/log:level lib/log:child_fd lib/log:exit_hook
enforce/pty:saved enforce/pty:saved_fd enforce/pty:active
run/limits:sd run/limits:lib'
i=$((i + 1))
state=$(for o in $objs; do
	f=${o#"$obj"/}
	d=${f%%/*}
	b=${f##*/}
	b=${b%.o}
	b=${b#libconfine_a-}
	b=${b#confine_export-}
	b=${b#libkeyholder_a-}
	b=${b#confine_keyholder-}
	[ -f "$src/$d/$b.c" ] || continue
	objdump -t "$o" | awk -v f="$d/$b" '/ O / {
		for (k = 1; k <= NF; k++)
			if ($k ~ /^\.(bss|data)/ && $k !~ /rel\.ro/) {
				v = $NF; sub(/\.[0-9]+$/, "", v)
				print f ":" v
			}
	}'
done | sort -u)
hidden=
for v in $state; do
	in_list "$v" "$(echo $state_allowed)" || hidden="$hidden $v"
done
if [ -z "$hidden" ]; then
	echo "ok $i - no hidden state: no variable kept by a file but the" \
	    "process's own"
else
	echo "not ok $i - variables kept by a file (pass them as arguments or" \
	    "a context struct):$hidden"
	failed=$((failed + 1))
fi
[ "$failed" -eq 0 ]
