# SPDX-License-Identifier: ISC
#
# bench/lib.sh - what the benchmarks of bench/ share; sourced, never run.
#
# The sourcing script sets "here" (its own directory) and "name" (for
# messages) first.  bench_setup makes the temporary directory ($tmp, under
# TMPDIR: the filesystem measured) and removes it, and stops the servers
# it started, on exit; bench_confine resolves the confine binary;
# bench_build compiles one of the C tools of bench/; bench_serve starts
# netbench's server; bench_load is the load average, said with every
# figure because other work on the machine shows in all of them.

die() {
	echo "$name: $*" >&2
	exit 1
}

# shellcheck disable=SC2317  # called by the trap
bench_cleanup() {
	# bench_serve runs in a command substitution: its servers' pids are
	# in $tmp/.pids, where this shell can read them.
	if [ -n "${tmp:-}" ] && [ -f "$tmp/.pids" ]; then
		for _p in $(cat "$tmp/.pids"); do
			kill "$_p" 2>/dev/null
		done
	fi
	if [ -n "${tmp:-}" ]; then
		# overlayfs can leave mode-000 directories in a kept session.
		chmod -R u+rwx "$tmp" 2>/dev/null
		rm -rf "$tmp"
	fi
}

bench_setup() {
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/confine-$name.XXXXXX") ||
	    die "cannot make a temporary directory"
	trap bench_cleanup EXIT
	trap 'exit 129' HUP
	trap 'exit 130' INT
	trap 'exit 143' TERM
}

# bench_confine PATH: the confine binary, absolute, in $confine.
bench_confine() {
	confine=$1
	[ -f "$confine" ] && [ -x "$confine" ] ||
	    die "no confine binary at '$confine' (build it, or use --confine PATH)"
	confine=$(cd "$(dirname "$confine")" && pwd)/$(basename "$confine") ||
	    die "cannot resolve '$confine'"
}

# bench_build TOOL: compile bench/TOOL.c once (again when the source is
# newer) into bench/ of the build tree (next to src/confine, or of the
# source tree without a confine) when writable, else into $tmp; prints
# the binary's path.
bench_build() {
	_src=$here/$1.c
	if [ -n "${confine:-}" ]; then
		_bin=$(dirname "$(dirname "$confine")")/bench/$1
	else
		_bin=$here/$1
	fi
	[ -r "$_src" ] || die "cannot read $_src"
	if [ -x "$_bin" ] && [ -z "$(find "$_src" -newer "$_bin")" ]; then
		echo "$_bin"
		return 0
	fi
	if ! [ -d "${_bin%/*}" ] || ! [ -w "${_bin%/*}" ]; then
		_bin=$tmp/$1
	fi
	# CFLAGS is a list of words.
	# shellcheck disable=SC2086
	${CC:-cc} -O2 ${CFLAGS:-} -o "$_bin" "$_src" >&2 ||
	    die "cannot build $1 with '${CC:-cc}'"
	echo "$_bin"
}

# bench_workspace DIR: a git repository of one commit, confine's workspace.
bench_workspace() {
	mkdir -p "$1" && (cd "$1" && git init -q . &&
	    echo "confine benchmark" >README && git add README &&
	    git -c user.name=bench -c user.email=bench@invalid \
	    commit -q -m init) || die "cannot make a git repository in $1"
}

# bench_serve PROG [VERB [ARG...]]: start PROG VERB READYFILE ARG...
# (VERB: serve by default), which writes the port it listens on to
# READYFILE; prints the port.
bench_serve() {
	_rf=$tmp/ready.$$.$(date +%s%N)
	_prog=$1
	_verb=${2:-serve}
	shift
	[ $# -eq 0 ] || shift
	"$_prog" "$_verb" "$_rf" "$@" </dev/null >/dev/null 2>"$_rf.err" &
	echo "$!" >>"$tmp/.pids"
	_i=0
	while [ ! -s "$_rf" ]; do
		_i=$((_i + 1))
		if [ "$_i" -gt 300 ] || ! kill -0 "$!" 2>/dev/null; then
			cat "$_rf.err" >&2
			return 1
		fi
		sleep 0.1
	done
	cat "$_rf"
}

bench_load() {
	cut -d ' ' -f 1-3 /proc/loadavg 2>/dev/null || echo '?'
}

# median: of the numbers on stdin, one a line.
median() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "?"; exit }
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		print m
	}'
}

# bench_proxy_setup: for the proxy's benchmarks: netbench built and its
# server started ($netbench, $port), a workspace holding a copy of netbench
# where the sandbox can run it ($ws, its .t/ excluded from git, so the
# export has nothing to do) and a profile of the "online" quadrant
# ($online; --allow counts as leg C).  XDG_STATE_HOME goes into $tmp.
bench_proxy_setup() {
	HOME=$tmp/home
	mkdir -p "$HOME" || die "cannot make $HOME"
	export HOME
	netbench=$(bench_build netbench) || exit 1
	port=$(bench_serve "$netbench") || die "cannot start netbench's server"
	ws=$tmp/ws
	bench_workspace "$ws"
	mkdir -p "$ws/.t" && echo .t >"$ws/.git/info/exclude" &&
	    cp "$netbench" "$ws/.t/netbench" || die "cannot fill $ws"
	online=$tmp/online.ini
	printf '[profile]\nquadrant = online\n[workspace]\nprivate = no\n' \
	    >"$online" || die "cannot write $online"
	XDG_STATE_HOME=$tmp/state
	export XDG_STATE_HOME
}

# bench_drop_root SCRIPT ARG...: a proxy benchmark's allow-list is leg C,
# which confine refuses to root (it would run the command as the host's
# root); as root, run SCRIPT again as BENCH_USER (default nobody), which
# must be able to write in TMPDIR and read confine.
bench_drop_root() {
	[ "$(id -u)" -eq 0 ] || return 0
	_u=${BENCH_USER:-nobody}
	_g=$(id -g "$_u" 2>/dev/null) || die "no user '$_u' (set BENCH_USER)"
	command -v setpriv >/dev/null 2>&1 ||
	    die "as root, needs setpriv to run as '$_u' (confine refuses leg C to root)"
	setpriv --reuid="$_u" --regid="$_g" --clear-groups -- \
	    test -w "${TMPDIR:-/tmp}" ||
	    die "user '$_u' cannot write in '${TMPDIR:-/tmp}' (set TMPDIR or BENCH_USER)"
	echo "note: confine refuses leg C (the allow-list) to root: running as $_u"
	exec setpriv --reuid="$_u" --regid="$_g" --clear-groups -- sh "$@"
}

# The proxy as the sandbox sees it (src/policy/plan.h, PLAN_PROXY_PORT).
bench_proxy=127.0.0.1:3128

# bench_in_proxy CMD: sh -c CMD inside confine in the proxy network mode
# ($backend, if set), allowed to reach netbench's server.
bench_in_proxy() {
	(cd "$ws" && "$confine" -q ${backend:+--backend "$backend"} \
	    -p "$online" --allow "127.0.0.1:$port" -- sh -c "$1")
}
