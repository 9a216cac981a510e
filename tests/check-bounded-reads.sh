#!/bin/sh
# SPDX-License-Identifier: ISC
#
# check-bounded-reads.sh - every read of agent data has a bound, visibly
# (lib/untrusted.h, STYLE.md section 6).
#
# In the code that reads what the agent wrote or sends (the export, the
# proxy, the notify supervisor, the keyholder, the profiles' kept state
# and "confine state" that compares it, the session commands that show a
# session's files, the terminal relay of the command's output), every
# raw read call (read,
# pread, readv, recv*, getline, getdelim, fread, readlink*,
# process_vm_readv, and splice, which moves them without reading them in)
# must show its bound in the call itself: a fixed
# buffer (sizeof), a named maximum (SOMETHING_MAX, or a variable called
# max), or a comment saying "Bounded:" on the line above.  Anything else
# goes through a bounded helper (fd_read_all() in lib/fdio.h, or the
# file's own read_mem() and read_path(), whose callers pass a sizeof or a
# checked length).  A read
# whose bound is out of sight fails here, even when it is correct: the
# reader of the code must not have to prove it.

top=${TESTS_SRCDIR:-$(dirname "$0")}/..
src=$top/src
files="$src/export/*.c $src/run/proxy.c $src/run/notify*.c $src/keyholder/*.c
$src/run/agent-state.c $src/cmd/state.c $src/cmd/sessions.c $src/enforce/pty.c"

if ! ls $files >/dev/null 2>&1; then
	echo "Bail out! no sources in $src (set TESTS_SRCDIR to tests/)"
	exit 1
fi

# One line per raw read call: "file:line: the call's text" (the call and
# its continuation lines, until its parentheses close), then ":ok" or
# ":unbounded".
calls() {
	awk '
	function opened(s,    t) {
		t = s
		return gsub(/\(/, "", t) - gsub(/\)/, "", s)
	}
	FNR == 1 { prev = ""; pending = 0 }
	pending {
		text = text " " $0
		depth += opened($0)
		if (depth <= 0 || ++n > 4) {
			report()
			pending = 0
		}
		prev = $0
		next
	}
	# A comment or a preprocessor line is no call.
	/^[ \t]*(\/\*|\*|#)/ { prev = $0; next }
	/(^|[^A-Za-z0-9_>.])(read|pread|pread64|readv|preadv|recv|recvfrom|recvmsg|getline|getdelim|fread|readlink|readlinkat|process_vm_readv|splice)\(/ {
		file = FILENAME; line = FNR; text = $0; above = prev
		sub(/.*(^|[^A-Za-z0-9_>.])(read|pread|pread64|readv|preadv|recv|recvfrom|recvmsg|getline|getdelim|fread|readlink|readlinkat|process_vm_readv|splice)\(/, "&", text)
		depth = opened($0); n = 0
		if (depth <= 0)
			report()
		else
			pending = 1
		prev = $0
		next
	}
	{ prev = $0 }
	function report(    ok) {
		ok = text ~ /sizeof\(/ || text ~ /[A-Z][A-Z0-9_]*_MAX([^A-Za-z0-9_]|$)/ ||
		    text ~ /(^|[^A-Za-z0-9_])max([^A-Za-z0-9_]|$)/ ||
		    above ~ /Bounded:/ || text ~ /Bounded:/
		gsub(/[ \t]+/, " ", text)
		printf "%s:%d:%s:%s\n", file, line, ok ? "ok" : "unbounded", text
	}
	' $files
}

out=$(calls)
n=0
fail=0
IFS='
'
for c in $out; do
	n=$((n + 1))
	c=${c#"$src/"}
	case $c in
	*:ok:*)
		printf 'ok %d - src/%s: bounded\n' "$n" "${c%%:ok:*}" ;;
	*)
		fail=1
		printf 'not ok %d - src/%s: no bound in sight: %s\n' "$n" \
		    "${c%%:unbounded:*}" "${c#*:unbounded:}" ;;
	esac
done
if [ "$n" -eq 0 ]; then
	echo "Bail out! no read call found: the pattern is broken"
	exit 1
fi
echo "1..$n"
exit $fail
