# SPDX-License-Identifier: ISC
# lib.sh - sourced by every tests/integration/*.sh (POSIX sh).
#
# Gives: TAP output (plan, ok, not_ok, skip, skip_all, tcase, tap_done),
# assertions that end the current case (fail, assert_*), a private
# TEST_TMP removed at exit, XDG_STATE_HOME inside it, throwaway git
# workspaces (ws_new) with a tree hash to prove the host copy unchanged,
# and run_confine, which runs the binary with a bounded time.
#
# Environment (exported by the Makefile; defaults for running by hand):
#   CONFINE         the confine binary
#   TESTS_SRCDIR    the tests/ directory of the source tree
#   TESTS_BUILDDIR  the tests/ directory of the build tree (helpers/ in it)
#
# A test case is a shell function run by tcase in a subshell under set -e
# (a command that may fail runs through "st" or in a condition): "fail",
# a failed assertion or any failed command ends that case only, and
# "skip_case REASON" skips it.  A missing kernel feature skips, with the
# feature named; nothing skips to hide a failure.

LC_ALL=C
export LC_ALL
# Only the system's directories: the caller's PATH may name directories
# that the sandbox hides or that this user cannot search.
PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin
export PATH
unset CDPATH

TESTS_SRCDIR=${TESTS_SRCDIR:-$(dirname "$0")/..}
TESTS_BUILDDIR=${TESTS_BUILDDIR:-$TESTS_SRCDIR}
CONFINE=${CONFINE:-$TESTS_BUILDDIR/../src/confine}

# Absolute, since every case changes directory.
abspath() {
	case $1 in
	/*) printf '%s\n' "$1" ;;
	*) printf '%s/%s\n' "$(cd "$(dirname "$1")" && pwd)" "$(basename "$1")" ;;
	esac
}
TESTS_SRCDIR=$(abspath "$TESTS_SRCDIR")
TESTS_BUILDDIR=$(abspath "$TESTS_BUILDDIR")
CONFINE=$(abspath "$CONFINE")
TRY_SYSCALL=$TESTS_BUILDDIR/helpers/try-syscall
export CONFINE TESTS_SRCDIR TESTS_BUILDDIR

# Every time limit a test sets is a bound against hanging, never a speed
# check: on a busy machine (CI runs many tests at once on few cores) each
# is TEST_TIME_FACTOR times longer.
TEST_TIME_FACTOR=${TEST_TIME_FACTOR:-10}

# Seconds before a confine run is stopped; no test may hang.
CONFINE_TIMEOUT=${CONFINE_TIMEOUT:-$((30 * TEST_TIME_FACTOR))}

# The backend under test: confine reads CONFINE_BACKEND when no --backend
# is given.  Unset, confine's auto picks native on a machine that can.
BACKEND=${CONFINE_BACKEND:-native}

# A case whose subject one backend does not have: skip it there, saying
# what that backend lacks (it is in confine(1) and 'confine doctor').
# Usage: not_on landlock "no pid namespace".
not_on() {
	case " $1 " in
	*" $BACKEND "*) skip_case "the $BACKEND backend: $2" ;;
	esac
}

# ---------------------------------------------------------------- TAP

TAP_N=0
TAP_FAILED=0
TAP_PLANNED=

plan() {
	require_backend
	TAP_PLANNED=$1
	echo "1..$1"
}

# The whole script skips: before plan, with the reason.
skip_all() {
	echo "1..0 # SKIP $*"
	TAP_PLANNED=0
	exit 0
}

ok() {
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N - $*"
}

not_ok() {
	TAP_N=$((TAP_N + 1))
	TAP_FAILED=$((TAP_FAILED + 1))
	echo "not ok $TAP_N - $*"
}

# skip DESCRIPTION REASON
skip() {
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N - $1 # SKIP $2"
}

diag() {
	printf '%s\n' "$*" | sed 's/^/# /'
}

# Show a file, for a failing assertion.
diag_file() {
	if [ -s "$1" ]; then
		echo "# --- $2:"
		head -n 40 "$1" | sed 's/^/#   /'
	fi
}

# Inside a case: report and end the case as failed.
fail() {
	diag "FAIL: $*"
	[ -n "${OUT:-}" ] && diag_file "$OUT" "stdout of the last confine run"
	[ -n "${ERR:-}" ] && diag_file "$ERR" "stderr of the last confine run"
	exit 1
}

# Inside a case: end it as skipped.
skip_case() {
	printf '%s\n' "$*" >"$TEST_TMP/.skip"
	exit 77
}

# tcase DESCRIPTION FUNCTION [ARG...]: run one case in a subshell.
tcase() {
	_desc=$1
	shift
	rm -f "$TEST_TMP/.skip"
	(
		set -e
		cd "$TEST_TMP"
		# Each case sees only the sessions it made.
		XDG_STATE_HOME=$TEST_TMP/state.$((TAP_N + 1))
		SESSIONS=$XDG_STATE_HOME/confine/sessions
		"$@"
	)
	_rc=$?
	case $_rc in
	0) ok "$_desc" ;;
	77) skip "$_desc" "$(cat "$TEST_TMP/.skip" 2>/dev/null)" ;;
	*) not_ok "$_desc" ;;
	esac
}

# tcase_todo REASON DESCRIPTION FUNCTION [ARG...]: a case for a known gap
# in confine, REASON naming it.  A failure is reported as TODO (an
# expected failure); a pass too ("ok ... # TODO"), which the TAP driver
# counts as an unexpected pass, failing the run until the TODO goes.
tcase_todo() {
	_todo=$1
	_desc=$2
	shift 2
	rm -f "$TEST_TMP/.skip"
	(
		set -e
		cd "$TEST_TMP"
		XDG_STATE_HOME=$TEST_TMP/state.$((TAP_N + 1))
		SESSIONS=$XDG_STATE_HOME/confine/sessions
		"$@"
	)
	_rc=$?
	case $_rc in
	77) skip "$_desc" "$(cat "$TEST_TMP/.skip" 2>/dev/null)"; return ;;
	esac
	TAP_N=$((TAP_N + 1))
	case $_rc in
	0) echo "ok $TAP_N - $_desc # TODO $_todo" ;;
	*) echo "not ok $TAP_N - $_desc # TODO $_todo" ;;
	esac
}

# The last line of every script.
tap_done() {
	if [ -n "$TAP_PLANNED" ] && [ "$TAP_N" -ne "$TAP_PLANNED" ]; then
		diag "planned $TAP_PLANNED tests but ran $TAP_N"
		exit 1
	fi
	[ "$TAP_FAILED" -eq 0 ] || exit 1
	exit 0
}

# ---------------------------------------------------------- assertions

assert_eq() {
	[ "$1" = "$2" ] ||
	    fail "${3:-value}: got '$1', expected '$2'"
}

assert_ne() {
	[ "$1" != "$2" ] ||
	    fail "${3:-value}: got '$1', expected anything else"
}

# assert_status GOT WANT: an exit status.
assert_status() {
	[ "$1" = "$2" ] || fail "exit status $1, expected $2"
}

# assert_file_has_content FILE ERE
assert_file_has_content() {
	grep -a -q -E -e "$2" "$1" 2>/dev/null || {
		diag_file "$1" "$1"
		fail "$1 does not match /$2/"
	}
}

assert_not_file_has_content() {
	if grep -a -q -E -e "$2" "$1" 2>/dev/null; then
		diag_file "$1" "$1"
		fail "$1 matches /$2/"
	fi
}

assert_file_empty() {
	[ ! -s "$1" ] || {
		diag_file "$1" "$1"
		fail "$1 is not empty"
	}
}

assert_exists() {
	[ -e "$1" ] || [ -L "$1" ] || fail "$1 does not exist"
}

assert_not_exists() {
	if [ -e "$1" ] || [ -L "$1" ]; then
		fail "$1 exists"
	fi
}

# assert_lines FILE N: exactly N lines.
assert_lines() {
	_n=$(wc -l <"$1")
	[ "$_n" -eq "$2" ] || {
		diag_file "$1" "$1"
		fail "$1 has $_n lines, expected $2"
	}
}

# assert_refusal FILE: confine's refusal format, one "confine: " line and
# at most one "hint: " line after it.
assert_refusal() {
	_n=$(wc -l <"$1")
	if [ "$_n" -lt 1 ] || [ "$_n" -gt 2 ] ||
	    ! head -n 1 "$1" | grep -q '^confine: ' ||
	    { [ "$_n" -eq 2 ] && ! tail -n 1 "$1" | grep -q '^hint: '; }; then
		diag_file "$1" "$1"
		fail "$1: not one 'confine: ' line and an optional 'hint: ' line"
	fi
}

# st COMMAND...: run COMMAND, its status in ST (cases run under set -e).
st() {
	ST=0
	"$@" || ST=$?
}

# ---------------------------------------------------- temporary state

TEST_TMP=$(mktemp -d "${TMPDIR:-/tmp}/confine-test.XXXXXX") || {
	echo "Bail out! cannot make a temporary directory"
	exit 1
}
TEST_TMP=$(cd "$TEST_TMP" && pwd -P)
: >"$TEST_TMP/.pids"

# Sessions go here, never under the real home.
XDG_STATE_HOME=$TEST_TMP/state
export XDG_STATE_HOME
SESSIONS=$XDG_STATE_HOME/confine/sessions

# Remember a background process to stop at exit.
track_pid() {
	echo "$1" >>"$TEST_TMP/.pids"
}

# host_scratch PATH: print PATH, a uniquely named path outside TEST_TMP
# that a case makes on the host, or that a broken confine would let the
# command make there; it is removed at exit, whatever happens.
host_scratch() {
	printf '%s\n' "$1" >>"$TEST_TMP/.scratch"
	printf '%s\n' "$1"
}

lib_cleanup() {
	_rc=$?
	if [ -s "$TEST_TMP/.scratch" ]; then
		while read -r _p; do
			rm -rf -- "$_p"
		done <"$TEST_TMP/.scratch"
	fi
	if [ -s "$TEST_TMP/.pids" ]; then
		while read -r _pid; do
			kill -9 "$_pid" 2>/dev/null
		done <"$TEST_TMP/.pids"
	fi
	[ -z "$TRY_DIR" ] || rm -rf "$TRY_DIR"
	[ -n "${LIB_CLEANUP_HOOK:-}" ] && $LIB_CLEANUP_HOOK
	chmod -R u+rwX "$TEST_TMP" 2>/dev/null
	rm -rf "$TEST_TMP"
	exit "$_rc"
}
trap lib_cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

# ------------------------------------------------------- preconditions

[ -x "$CONFINE" ] || {
	echo "Bail out! no confine binary at $CONFINE (set CONFINE)"
	exit 1
}

# Unprivileged-style user namespaces are what confine is built on.  Where
# they cannot be made (a build chroot, a container, user.max_user_namespaces
# = 0, AppArmor's restriction), confine exits 125 with "namespaces: cannot
# create them"; the tests that need them then skip, with that reason.  Any
# other failure of the probe is left for the tests to report.
require_userns() {
	unshare -Ur true 2>/dev/null ||
	    skip_all "user namespaces cannot be created here (unshare -Ur true fails)"
	_probe=$TEST_TMP/userns-probe
	mkdir -p "$_probe/ws" "$_probe/state"
	_rc=0
	(cd "$_probe/ws" && XDG_STATE_HOME=$_probe/state \
	    timeout -k 5 "$CONFINE_TIMEOUT" "$CONFINE" -q -- true) \
	    </dev/null >"$_probe/out" 2>"$_probe/err" || _rc=$?
	if [ "$_rc" -eq 125 ] && grep -q 'namespaces' "$_probe/err"; then
		skip_all "confine cannot create its namespaces here: $(head -n 1 "$_probe/err")"
	fi
	rm -rf "$_probe"
}

# require_leg_c_caller: in a quadrant with leg C (online, trusted) a root
# caller is refused (confine(1), The host view of a quadrant with leg C);
# hostdata.sh checks the refusal.
require_leg_c_caller() {
	[ "$(id -u)" -ne 0 ] ||
	    skip_case "a root caller is refused in a quadrant with leg C"
}

require_try_syscall() {
	[ -x "$TRY_SYSCALL" ] || {
		echo "Bail out! no try-syscall helper at $TRY_SYSCALL (make check builds it)"
		exit 1
	}
}

landlock_abi() {
	"$TRY_SYSCALL" landlock_abi | sed -n 's/^landlock_abi //p'
}

# Under landlock, the host's /tmp (TEST_TMP's usual home) is out of reach
# and the command works in a copy of the workspace made for the run, so the
# workspace's .t/try-syscall is not where its host path says: TRY_IN is a
# copy under /var/tmp, which the sandbox can read, or else the one of the
# workspace's copy, relative to the command's working directory.
TRY_DIR=
if [ "$BACKEND" = landlock ] && [ -x "$TRY_SYSCALL" ] &&
    [ -d /var/tmp ] && [ -w /var/tmp ]; then
	TRY_DIR=$(mktemp -d /var/tmp/confine-try.XXXXXX) &&
	    cp "$TRY_SYSCALL" "$TRY_DIR/try-syscall" ||
	    TRY_DIR=
fi

# ---------------------------------------------------------- workspaces

# A hash of a tree: names, types, modes, owners, sizes, mtimes, inodes,
# link counts, symlink targets, and every regular file's content, by
# tests/helpers/tree-hash, in one process (the escape suite hashes trees
# several times a case, and a process costs milliseconds on a VM).
TREE_HASH=$TESTS_BUILDDIR/helpers/tree-hash
[ -x "$TREE_HASH" ] || {
	echo "Bail out! no tree-hash helper at $TREE_HASH (make check builds it)"
	exit 1
}
tree_hash() {
	"$TREE_HASH" "$1"
}

git_fixed() {
	GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null \
	GIT_AUTHOR_NAME=confine-test GIT_AUTHOR_EMAIL=test@confine.invalid \
	GIT_COMMITTER_NAME=confine-test \
	GIT_COMMITTER_EMAIL=test@confine.invalid \
	GIT_AUTHOR_DATE='2000-01-01T00:00:00Z' \
	GIT_COMMITTER_DATE='2000-01-01T00:00:00Z' \
	    git "$@"
}

# ws_new [PARENT]: a throwaway git repository, committed, in WS.  Copies
# try-syscall into WS/.t/ (the build tree may be hidden inside, e.g. under
# the home directory) as TRY_IN.  Records WS_HASH.
ws_new() {
	WS=$(mktemp -d "${1:-$TEST_TMP}/ws.XXXXXX") || fail "mktemp"
	WS=$(cd "$WS" && pwd -P)
	(
		cd "$WS" || exit 1
		git_fixed init -q || exit 1
		printf 'hello\n' >README
		mkdir -p src bin empty
		printf 'int main(void) { return 0; }\n' >src/main.c
		printf '#!/bin/sh\necho run "$@"\n' >bin/run.sh
		chmod 0755 bin/run.sh
		printf 'private\n' >private.txt
		chmod 0600 private.txt
		ln -s README link
		git_fixed add -A && git_fixed commit -q -m initial || exit 1
		mkdir .t
		echo .t >>.git/info/exclude
		if [ -x "$TRY_SYSCALL" ]; then
			cp "$TRY_SYSCALL" .t/try-syscall || exit 1
		fi
	) || fail "cannot make a git workspace in $WS"
	TRY_IN=$WS/.t/try-syscall
	if [ "$BACKEND" = landlock ]; then
		TRY_IN=./.t/try-syscall
		[ -z "$TRY_DIR" ] || TRY_IN=$TRY_DIR/try-syscall
	fi
	WS_HASH=$(tree_hash "$WS")
}

assert_ws_unchanged() {
	_h=$(tree_hash "${1:-$WS}")
	[ "$_h" = "${2:-$WS_HASH}" ] ||
	    fail "the host workspace ${1:-$WS} changed"
}

# The session directories confine left behind.
sessions() {
	ls -A "$SESSIONS" 2>/dev/null || true
}

assert_no_session() {
	_s=$(sessions)
	[ -z "$_s" ] || fail "sessions left behind: $_s"
}

# --------------------------------------------------------- running it

OUT=$TEST_TMP/out
ERR=$TEST_TMP/err

# run_confine [CONFINE-ARG...]: from $WS (or RUN_CWD), stdin from
# RUN_STDIN (default /dev/null), output in $OUT and $ERR, status in RC.
# RUN_CONFINE_HOOK, when set, names a command run after each run (a case
# that checks a backend's refusal in place of what follows it).
run_confine() {
	RC=0
	(
		cd "${RUN_CWD:-$WS}" || exit 1
		exec timeout -k 5 "$CONFINE_TIMEOUT" "$CONFINE" "$@" \
		    <"${RUN_STDIN:-/dev/null}" >"$OUT" 2>"$ERR"
	) || RC=$?
	[ "$RC" -ne 124 ] || diag "confine timed out after ${CONFINE_TIMEOUT}s"
	drop_notice "$ERR"
	[ -z "${RUN_CONFINE_HOOK:-}" ] || $RUN_CONFINE_HOOK
	return 0
}

# drop_notice FILE: the landlock backend says what it lacks on every run:
# keep that line in FILE.full, and out of what the cases compare.
drop_notice() {
	if [ "$BACKEND" = landlock ] && [ -f "$1" ]; then
		cp "$1" "$1.full"
		grep -v '^confine: backend landlock: weaker than native: ' \
		    "$1.full" >"$1" || :
	fi
}

# wait_for SECONDS COMMAND...: poll every 0.1 s until COMMAND succeeds.
wait_for() {
	_tries=$(($1 * 10 * TEST_TIME_FACTOR))
	shift
	while [ "$_tries" -gt 0 ]; do
		"$@" && return 0
		sleep 0.1
		_tries=$((_tries - 1))
	done
	return 1
}

# Digits no other process on the machine has in its command line, for
# markers such as "sleep 30.$(unique_num)".  Fixed width (the pid, then
# a random number), so that no marker is a prefix of another's: a search
# for one never finds a longer one of a test running beside it.
unique_num() {
	printf '%07d%05d' "$$" "$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')"
}

# The backend under test must be able to run on this machine; a build
# chroot without user namespaces, or a host without bwrap, skips the
# script with confine's own reason.  Each script runs it before plan.
require_backend() {
	_d=$(mktemp -d /tmp/confine-probe.XXXXXX) || exit 1
	mkdir "$_d/ws"
	_why=$(cd "$_d/ws" && XDG_STATE_HOME=$_d/state \
	    "$CONFINE" -w "$_d/ws" --dry-run -- true 2>&1 >/dev/null)
	_rc=$?
	rm -rf "$_d"
	if [ "$_rc" -eq 125 ]; then
		case $_why in
		*"confine: backend"* | *"no backend can"*) skip_all "the $BACKEND backend cannot run here:" \
		    "$(printf '%s' "$_why" | head -n 1 | sed 's/^confine: //')" ;;
		esac
	fi
}
CONFINE_BACKEND=$BACKEND
export CONFINE_BACKEND

# ------------------------------------------------------- the host state

# What an escape would change on the host: the workspace, the home
# directories ($HOME and the passwd entry's, when they differ) and /tmp.
# host_snapshot records it before a run; assert_host_unchanged compares
# after.  Compared: the workspace WS (tree_hash, when set); a home the
# test made under TEST_TMP, whole; in any other home, every file under
# the paths the host later reads or runs (HOST_PERSIST); a canary tree in
# /tmp (HOST_CANARY: files a probe may try to change); and any path
# named after HOST_MARK (a case's unique marker) under the homes, /tmp,
# /var/tmp and /dev/shm, so a probe that tries to make a file on the host
# names it so.  The rest of /tmp and of a real home is not compared:
# other programs of the user write there while a test runs.
HOST_PERSIST='.bashrc .bash_profile .bash_login .bash_logout .profile
.zshrc .zshenv .zprofile .config/fish .inputrc .config/autostart
.config/systemd .local/bin .local/share/applications .config/mimeapps.list
.ssh .gitconfig .config/git .config/confine .local/state/confine/trust
.vimrc .config/nvim .emacs .emacs.d .npmrc .pam_environment .xprofile
.xsessionrc .cargo/bin .cargo/config.toml .claude/settings.json
.claude/commands .codex/config.toml .config/Code/User'

# The passwd entry's home, looked up once: the uid does not change.
HOST_PW_HOME=$(getent passwd "$(id -u)" | cut -d: -f6)
host_homes() {
	printf '%s\n' "$HOME"
	[ -z "$HOST_PW_HOME" ] || [ "$HOST_PW_HOME" = "$HOME" ] ||
	    printf '%s\n' "$HOST_PW_HOME"
}

HOST_CANARY=
host_canary() {
	[ -z "$HOST_CANARY" ] || return 0
	HOST_CANARY=$(mktemp -d /tmp/confine-canary.XXXXXX) ||
	    fail "cannot make a canary in /tmp"
	host_scratch "$HOST_CANARY" >/dev/null
	printf 'canary\n' >"$HOST_CANARY/file"
	printf '#!/bin/sh\necho canary\n' >"$HOST_CANARY/run.sh"
	chmod 0755 "$HOST_CANARY" "$HOST_CANARY/run.sh"
	chmod 0666 "$HOST_CANARY/file"
}

# One find per home over all the HOST_PERSIST paths it has, and one over
# every directory searched for the marker: the snapshot is taken twice
# per probe, and the processes it starts are most of a probe's cost.
host_state() {
	[ -z "${WS:-}" ] || echo "workspace $WS $(tree_hash "$WS")"
	echo "canary $HOST_CANARY $(tree_hash "$HOST_CANARY")"
	host_homes | while read -r _h; do
		[ -d "$_h" ] || continue
		echo "home $_h"
		case $_h in
		"$TEST_TMP"/*) echo "  $(tree_hash "$_h")"; continue ;;
		esac
		set --
		for _p in $HOST_PERSIST; do
			[ -e "$_h/$_p" ] || [ -L "$_h/$_p" ] || continue
			set -- "$@" "$_h/$_p"
		done
		[ "$#" -gt 0 ] || continue
		find "$@" -printf '  %p\t%y\t%m\t%s\t%l\n' \
		    \( -type f -readable -exec sha256sum {} + \) 2>/dev/null |
		    sort
	done
	if [ -n "${HOST_MARK:-}" ]; then
		echo "marked"
		set --
		_ifs=$IFS
		IFS='
'
		for _d in $(host_homes) /tmp /var/tmp /dev/shm; do
			[ -d "$_d" ] && set -- "$@" "$_d"
		done
		IFS=$_ifs
		find "$@" -maxdepth 4 -name "*$HOST_MARK*" \
		    ! -path "$TEST_TMP/*" 2>/dev/null | sort -u | sed 's/^/  /'
	fi
}

host_snapshot() {
	host_canary
	host_state >"$TEST_TMP/host.before"
}

assert_host_unchanged() {
	[ -s "$TEST_TMP/host.before" ] || fail "no host_snapshot to compare with"
	host_state >"$TEST_TMP/host.after"
	# A walk of /tmp or /var/tmp can miss an entry while other programs
	# add and remove theirs: a difference is looked at twice.
	cmp -s "$TEST_TMP/host.before" "$TEST_TMP/host.after" || {
		sleep 0.5
		host_state >"$TEST_TMP/host.after"
	}
	cmp -s "$TEST_TMP/host.before" "$TEST_TMP/host.after" || {
		diff "$TEST_TMP/host.before" "$TEST_TMP/host.after" |
		    head -n 20 | sed 's/^/# host: /'
		fail "the host changed (workspace, home, /tmp canary or a marked path)"
	}
}

# The bwrap that confine runs (its path is fixed when confine is built),
# as its plan names it; and the name its pid 1 shows in /proc/1/comm.
bwrap_path() {
	mkdir -p "$TEST_TMP/bwrap-info"
	_b=$(cd "$TEST_TMP/bwrap-info" && "$CONFINE" --backend bwrap -w . \
	    --dry-run -- true 2>/dev/null | sed -n 's/^bwrap: \([^ ,]*\).*/\1/p')
	printf '%s\n' "${_b:-/usr/bin/bwrap}"
}

# Is this the bwrap backend with a setuid bwrap?  It makes no user
# namespace then (src/policy/bwrap-argv.c: confine must take the command's fds).
bwrap_setuid() {
	[ "$BACKEND" = bwrap ] && [ -u "$(bwrap_path)" ]
}

# The name of the sandbox's pid 1: confine's own, or bwrap's.
pid1_name() {
	case $BACKEND in
	bwrap)	basename "$(bwrap_path)" | cut -c1-15 ;;
	*)	echo confine ;;
	esac
}
