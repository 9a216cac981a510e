# SPDX-License-Identifier: ISC
# agent-lib.sh - sourced after lib.sh by tests/agents/*.sh, the tests of
# the shipped agent profiles against the real agents.
#
# Gives:
# - the agents' pins, CLAUDE_PIN, CODEX_PIN, GEMINI_PIN: "PACKAGE VERSION
#   [SCRIPT]", the words agent_require and agent_cached take after NAME;
# - agent_require NAME PACKAGE VERSION: the agent from npm, pinned, in a
#   cache outside every home directory (AGENTS_CACHE, reused between runs
#   and readable by every user), its bin/ first in PATH; the whole script
#   skips when the cache lacks it and npm cannot reach the registry;
# - agent_cached NAME PACKAGE VERSION: the agent as agent_require left it
#   in the cache, in AGENT_DIR, without installing it; false when it is
#   not there;
# - a fake model endpoint (tests/helpers/fake-model.py) on the host's
#   loopback at 127.0.0.2, over TLS with a certificate of a throwaway CA:
#   FAKE_HOST, FAKE_PORT, FAKE_LOG, REPLY (FAKE_HOLD, when set, the
#   directory of its --hold release files); an address that is not in the
#   sandbox's NO_PROXY (127.0.0.1 is);
# - inject_profiles NAME PROVIDER: NAME-test, the shipped profile with its
#   credential injected for the fake endpoint, and NAME-proxy, the same
#   with confine's proxy; PLACEHOLDER, what the agent gets in its place;
# - log_mark, log_since, the_key_only: what reached the fake endpoint
#   since a mark, and that it came with the user's key only;
# - agent_ws: a workspace (lib.sh's ws_new) with the CA at $CA_IN, where
#   the sandbox sees it (its /tmp is its own), and FIND_SECRET, a probe of
#   every place inside where a credential could be read;
# - home_new: an empty fake home directory in AHOME, exported as HOME;
# - the shipped profiles found by name, from a private XDG_CONFIG_HOME;
# - a tmux pane for the interactive cases (pane_start, send, wait_pane,
#   pane_quit);
# - tool_prompt COMMAND: a prompt the fake endpoint answers with a call of
#   the agent's shell tool running COMMAND; the output comes back to it as
#   the tool's result ("  tool-result LINE" in its log);
# - the cases every agent runs, through its tool call or its settings:
#   tool_git_commit, tool_local_server, tool_workspaces, mcp_stdio,
#   mcp_npx; each takes the names of functions of the script that make
#   the agent's home and run it headless with a prompt (below);
# - resume_in_pane: a conversation started in one confined session, in a
#   tmux pane, resumed in the next.

AGENTS_CACHE=${CONFINE_AGENTS_CACHE:-/var/tmp/confine-agents}
# An agent is slower to start than a shell; still bounded.
CONFINE_TIMEOUT=${AGENT_TIMEOUT:-90}

command -v python3 >/dev/null 2>&1 || skip_all "no python3 for the fake model endpoint"
command -v openssl >/dev/null 2>&1 || skip_all "no openssl to make the fake endpoint's certificate"

# The shipped profiles, found by name (-p claude) as after installation,
# with the permissions confine requires of them.
umask 022
XDG_CONFIG_HOME=$TEST_TMP/config
export XDG_CONFIG_HOME
mkdir -p "$XDG_CONFIG_HOME/confine/profiles" &&
    cp "$TESTS_SRCDIR"/../profiles/*.ini "$XDG_CONFIG_HOME/confine/profiles/" &&
    chmod 0644 "$XDG_CONFIG_HOME"/confine/profiles/*.ini || {
	echo "Bail out! cannot copy the shipped profiles"
	exit 1
}

# ------------------------------------------------------------- the agent

# The versions the tests run, and the file of the package that puts its
# native binary in place (Claude Code's install script).
CLAUDE_PIN="@anthropic-ai/claude-code 2.1.332 install.cjs"
CODEX_PIN="@openai/codex 0.171.0"
GEMINI_PIN="@google/gemini-cli 0.61.0"

# owned_ok PATH: PATH belongs to this user or to root (a cache another
# user could write to is not run).
owned_ok() {
	_o=$(stat -c %u "$1" 2>/dev/null) || return 1
	[ "$_o" = 0 ] || [ "$_o" = "$(id -u)" ]
}

# agent_require NAME PACKAGE VERSION [SCRIPT]: AGENT_DIR, AGENT_VERSION;
# PATH.  npm runs no install script; SCRIPT, a file of the package, is run
# with node after the install when the package needs its own.
agent_require() {
	AGENT_VERSION=$3
	if [ -e "$AGENTS_CACHE" ] && { ! owned_ok "$AGENTS_CACHE" ||
	    ! [ -w "$AGENTS_CACHE" ]; } && ! [ -x "$AGENTS_CACHE/$1-$3/bin/$1" ]; then
		AGENTS_CACHE=$AGENTS_CACHE-$(id -u)
	fi
	AGENT_DIR=$AGENTS_CACHE/$1-$3
	if [ -x "$AGENT_DIR/bin/$1" ] && ! owned_ok "$AGENT_DIR"; then
		AGENTS_CACHE=$AGENTS_CACHE-$(id -u)
		AGENT_DIR=$AGENTS_CACHE/$1-$3
	fi
	if ! [ -x "$AGENT_DIR/bin/$1" ]; then
		command -v npm >/dev/null 2>&1 ||
		    skip_all "$2@$3 is not in $AGENTS_CACHE and npm is not installed"
		_st=0
		timeout 60 npm view --cache "$TEST_TMP/npm-cache" \
		    --fetch-retries=1 --fetch-timeout=20000 "$2@$3" version \
		    >/dev/null 2>"$TEST_TMP/npm.err" || _st=$?
		if [ "$_st" -ne 0 ]; then
			_why=$(grep -m 1 -i 'error' "$TEST_TMP/npm.err" || true)
			[ "$_st" -ne 124 ] || _why="no answer in 60 seconds"
			skip_all "$2@$3 is not in $AGENTS_CACHE and npm cannot reach the registry (${_why:-npm view failed})"
		fi
		if ! [ -d "$AGENTS_CACHE" ]; then
			# Like /var/tmp: each user adds, nobody replaces.
			mkdir -p "$AGENTS_CACHE" && chmod 1777 "$AGENTS_CACHE" || {
				echo "Bail out! cannot make $AGENTS_CACHE"
				exit 1
			}
		fi
		_tmp=$(mktemp -d "$AGENTS_CACHE/.$1-$3.XXXXXX") || {
			echo "Bail out! cannot write in $AGENTS_CACHE"
			exit 1
		}
		# No install scripts: the packages ship what runs.
		if ! timeout 900 npm install -g --prefix "$_tmp" --ignore-scripts \
		    --no-audit --no-fund --cache "$TEST_TMP/npm-cache" "$2@$3" \
		    >"$TEST_TMP/npm.log" 2>&1; then
			rm -rf "$_tmp"
			echo "Bail out! npm install $2@$3 failed"
			sed 's/^/# /' "$TEST_TMP/npm.log" | tail -n 20
			exit 1
		fi
		if [ -n "${4:-}" ] && ! (cd "$_tmp/lib/node_modules/$2" &&
		    node "$4") >>"$TEST_TMP/npm.log" 2>&1; then
			rm -rf "$_tmp"
			echo "Bail out! $2@$3: node $4 failed"
			sed 's/^/# /' "$TEST_TMP/npm.log" | tail -n 20
			exit 1
		fi
		chmod -R a+rX,go-w "$_tmp"
		# Another run may have finished first: keep its copy.
		mv -T "$_tmp" "$AGENT_DIR" 2>/dev/null || rm -rf "$_tmp"
	fi
	[ -x "$AGENT_DIR/bin/$1" ] || {
		echo "Bail out! no $AGENT_DIR/bin/$1"
		exit 1
	}
	PATH=$AGENT_DIR/bin:$PATH
	export PATH
}

# agent_cached NAME PACKAGE VERSION [SCRIPT]: AGENT_DIR, AGENT_VERSION,
# when the cache has the agent as agent_require installs it, from a cache
# this user may trust; false otherwise.  Installs nothing.
agent_cached() {
	AGENT_VERSION=$3
	for _c in "$AGENTS_CACHE" "$AGENTS_CACHE-$(id -u)"; do
		AGENT_DIR=$_c/$1-$3
		if [ -x "$AGENT_DIR/bin/$1" ] && owned_ok "$_c" &&
		    owned_ok "$AGENT_DIR"; then
			return 0
		fi
	done
	return 1
}

# require_node MAJOR WHAT: skip the script when node is older than MAJOR.
require_node() {
	command -v node >/dev/null 2>&1 || skip_all "$2 needs Node.js, which is not installed"
	_v=$(node -p 'process.versions.node' 2>/dev/null) || _v=0
	[ "${_v%%.*}" -ge "$1" ] ||
	    skip_all "$2 needs Node.js $1 or later; this is $_v"
}

# ------------------------------------------------------ the fake endpoint

FAKE_HOST=127.0.0.2
REPLY=confine-reply-$(unique_num)
FAKE_LOG=$TEST_TMP/fake.log
: >"$FAKE_LOG"

# A CA and a certificate for FAKE_HOST signed by it (the agents check the
# chain, not a lone self-signed certificate).
tls_new() {
	TLS=$TEST_TMP/tls
	mkdir -p "$TLS"
	printf '%s\n' "subjectAltName=IP:$FAKE_HOST" "basicConstraints=CA:FALSE" \
	    "keyUsage=digitalSignature,keyEncipherment" \
	    "extendedKeyUsage=serverAuth" >"$TLS/ext.cnf"
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 \
	    -subj /CN=confine-test-ca -keyout "$TLS/ca.key" -out "$TLS/ca.pem" \
	    -addext basicConstraints=critical,CA:TRUE \
	    -addext keyUsage=critical,keyCertSign,cRLSign &&
	openssl req -newkey rsa:2048 -nodes -subj "/CN=$FAKE_HOST" \
	    -keyout "$TLS/key.pem" -out "$TLS/leaf.csr" &&
	openssl x509 -req -in "$TLS/leaf.csr" -CA "$TLS/ca.pem" \
	    -CAkey "$TLS/ca.key" -CAcreateserial -days 2 \
	    -extfile "$TLS/ext.cnf" -out "$TLS/cert.pem"
}

# fake_start: the endpoint, answering REPLY; FAKE_PORT.
fake_start() {
	tls_new >"$TEST_TMP/openssl.log" 2>&1 || {
		echo "Bail out! openssl cannot make the test certificates"
		sed 's/^/# /' "$TEST_TMP/openssl.log"
		exit 1
	}
	python3 "$TESTS_SRCDIR/helpers/fake-model.py" --cert "$TLS/cert.pem" \
	    --key "$TLS/key.pem" ${FAKE_HOLD:+--hold "$FAKE_HOLD"} \
	    "$FAKE_HOST" "$REPLY" "$FAKE_LOG" \
	    "$TEST_TMP/ready.fake" </dev/null >/dev/null 2>"$TEST_TMP/fake.err" &
	track_pid $!
	wait_for 10 test -s "$TEST_TMP/ready.fake" || {
		echo "Bail out! the fake model endpoint did not start on $FAKE_HOST"
		sed 's/^/# /' "$TEST_TMP/fake.err"
		exit 1
	}
	FAKE_PORT=$(cat "$TEST_TMP/ready.fake")
	FAKE_URL=https://$FAKE_HOST:$FAKE_PORT
	# Not an endpoint: the proxy must refuse it.  Nothing listens there.
	OTHER_URL=https://127.0.0.3:$FAKE_PORT
}

# ------------------------------------------------------------- injection

# What confine gives the agent in place of the credential.
PLACEHOLDER=confine-injects-the-real-credential

# inject_profiles NAME PROVIDER: NAME-test, the shipped profile NAME with
# its credential injected for the fake endpoint (the test CA trusted),
# and NAME-proxy, that with confine's proxy and no destination.
inject_profiles() {
	_d=$XDG_CONFIG_HOME/confine/profiles
	cat >"$_d/$1-test.ini" <<-EOF
	[profile]
	extends = $1
	description = the shipped $1 profile, for the fake model endpoint

	[credential]
	inject = $2 $FAKE_HOST:$FAKE_PORT
	ca = $TLS/ca.pem
	EOF
	cat >"$_d/$1-proxy.ini" <<-EOF
	[profile]
	extends = $1-test
	description = $1-test with confine's proxy, no destination

	[network]
	mode = proxy
	EOF
	chmod 0644 "$_d/$1-test.ini" "$_d/$1-proxy.ini"
}

# log_mark: where the fake endpoint's log stands; log_since: its lines
# since the mark, in the file SINCE.
log_mark() {
	MARK_LOG=$(wc -l <"$FAKE_LOG")
}
log_since() {
	SINCE=$TEST_TMP/since.log
	tail -n +"$((MARK_LOG + 1))" "$FAKE_LOG" >"$SINCE"
}

# every_request_has LINE: each request in SINCE came with the header
# line LINE, and there was one at least.
every_request_has() {
	_req=$(grep -c -E '^[A-Z]+ /' "$SINCE" || :)
	_has=$(grep -c -x -F -e "$1" "$SINCE" || :)
	[ "$_req" -ge 1 ] || fail "no request reached the endpoint"
	[ "$_req" -eq "$_has" ] || {
		diag_file "$SINCE" "the endpoint's log"
		fail "$_has of $_req requests came with '$1'"
	}
}

# the_key_only HEADER SECRET: every request since the mark came with the
# user's key SECRET in HEADER ("x-api-key: "), none with the placeholder.
the_key_only() {
	log_since
	every_request_has "  header $1$2"
	assert_not_file_has_content "$SINCE" "$PLACEHOLDER"
}

# connect_refused NAME: through confine's proxy (the NAME-proxy profile),
# the injected endpoint is the keyholder's only: a CONNECT to it is
# refused for that reason, and it gets nothing; the positive control, a
# client on the host that trusts the CA, gets its answer.
connect_refused() {
	log_mark
	curl -sS --max-time "$CONFINE_TIMEOUT" --cacert "$TLS/ca.pem" \
	    -o /dev/null "$FAKE_URL/v1/models" || fail "curl to the endpoint"
	log_since
	assert_file_has_content "$SINCE" '^GET /v1/models$'
	log_mark
	run_confine -v -p "$1-proxy" -- sh -c \
	    'curl -sS --cacert "$1" -o /dev/null "$2/v1/models"; echo "curl $?"' \
	    sh "$CA_IN" "$FAKE_URL"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^curl [1-9][0-9]*$'
	assert_file_has_content "$ERR" \
	    "^confine: proxy: refused $FAKE_HOST:$FAKE_PORT: the injected endpoint: through confine's keyholder only\$"
	read_counts
	assert_eq "$CONNS" 0 "connections through the proxy"
	assert_eq "$REFUSED" 1 "refusals"
	log_since
	assert_not_file_has_content "$SINCE" '^[A-Z]+ /'
}

# The model calls the endpoint answered so far.
model_calls() {
	grep -c '^  model-call$' "$FAKE_LOG" || true
}

# A marker for one prompt: the endpoint logs "  prompt MARKER" when a
# request carries it.
prompt_marker() {
	printf 'confine-prompt-%s\n' "$(unique_num)"
}

# ------------------------------------------------------------- tool calls

# tool_prompt COMMAND: a prompt that makes the fake endpoint call the
# agent's shell tool with COMMAND (one line), once.
tool_prompt() {
	printf 'run this (confine-tool-%s)\n' \
	    "$(printf '%s' "$1" | base64 -w 0 | tr '+/' '-_' | tr -d '=')"
}

# assert_tool_result LINE: the fake endpoint got LINE, a whole line (or
# the end of one after ": ", as Gemini CLI puts "Output: " before the
# first), as the result of a tool call, since the mark.
assert_tool_result() {
	log_since
	awk -v l="$1" '
	    index($0, "  tool-result ") == 1 {
		t = substr($0, 15)
		if (t == l || substr(t, length(t) - length(l) - 1) == ": " l)
			found = 1
	    }
	    END { exit !found }' "$SINCE" || {
		diag_file "$SINCE" "the endpoint's log"
		fail "no tool result '$1' reached the endpoint"
	}
}

# ---------------------------------------------------------------- a case

# agent_ws: a workspace with the CA and the probe in it.
agent_ws() {
	ws_new
	cp "$TLS/ca.pem" "$WS/.t/ca.pem" || fail "cannot copy the CA"
	CA_IN=$WS/.t/ca.pem
	FIND_SECRET=$WS/.t/find-secret.sh
	# Every test credential holds "confine-real"; the probe's own
	# command lines do not ("confine-rea[l]").
	cat >"$FIND_SECRET" <<-'EOF'
	#!/bin/sh
	# find-secret.sh all|self PATH...: where a process could read a
	# credential: its environment, every process's it can see (all) or
	# its own (self), and the files under each PATH.  Prints each line
	# that holds the test credentials' mark, then PROBE-DONE.
	procs=/proc/self
	[ "$1" = all ] && procs='/proc/[0-9]*'
	shift
	env | grep -a 'confine-rea[l]'
	for d in /proc/self $procs; do
		for f in "$d/environ" "$d/cmdline"; do
			{ tr '\0' '\n' <"$f"; } 2>/dev/null | grep -a 'confine-rea[l]'
		done
	done
	grep -r -a 'confine-rea[l]' "$@" 2>/dev/null
	echo PROBE-DONE
	EOF
	chmod 0755 "$FIND_SECRET"
	WS_HASH=$(tree_hash "$WS")
}

# home_new: a fake home directory, HOME.
home_new() {
	AHOME=$(mktemp -d "$TEST_TMP/home.XXXXXX") || fail "mktemp"
	AHOME=$(cd "$AHOME" && pwd -P)
	HOME=$AHOME
	export HOME
}

# The exit line, "confine: network: N connection(s) through the proxy, M
# refused"; CONNS and REFUSED.
read_counts() {
	_l=$(grep -E '^confine: network: [0-9]+ connections? through the proxy, [0-9]+ refused' "$ERR") ||
	    fail "no 'confine: network:' line"
	CONNS=$(printf '%s\n' "$_l" | sed -E 's/^confine: network: ([0-9]+) .*/\1/')
	REFUSED=$(printf '%s\n' "$_l" | sed -E 's/.*, ([0-9]+) refused.*/\1/')
}

# The one session the case left.
the_session() {
	_s=$(sessions)
	[ -n "$_s" ] && [ "$(printf '%s\n' "$_s" | wc -l)" -eq 1 ] ||
	    fail "not one session: '$_s'"
	printf '%s\n' "$SESSIONS/$_s"
}

# -------------------------------------------------------------- terminal

SOCK=$TEST_TMP/tmux.sock
T() {
	tmux -S "$SOCK" -f /dev/null "$@"
}
tmux_cleanup() {
	T kill-server 2>/dev/null || true
}
LIB_CLEANUP_HOOK=tmux_cleanup

# pane_first: tmux's first session, unless there is one.
pane_first() {
	T has-session -t first 2>/dev/null ||
	    T new-session -d -s first "sleep $((CONFINE_TIMEOUT * 2))"
}

# pane_start VAR=VALUE...: a shell in a new 80x24 tmux pane, in WS, with
# only these variables and those of a login; PANE_TTY.
pane_start() {
	command -v tmux >/dev/null 2>&1 || skip_case "tmux is not installed"
	T kill-server 2>/dev/null || true
	wait_for 5 sh -c '! tmux -S "$1" -f /dev/null has-session 2>/dev/null' \
	    sh "$SOCK" || true
	# A first session takes the lowest free pty.  A server of an earlier
	# case may still be exiting, and fails the first try.
	wait_for 5 pane_first 2>/dev/null ||
	    skip_case "tmux cannot start a session here"
	_env=
	for _v in "$@"; do
		_env="$_env '$_v'"
	done
	T new-session -d -s t -x 80 -y 24 -c "$WS" \
	    "exec env -i PATH='$PATH' HOME='$HOME' TERM=xterm-256color \
	    LANG=C.UTF-8 XDG_STATE_HOME='$XDG_STATE_HOME' \
	    XDG_CONFIG_HOME='$XDG_CONFIG_HOME' PS1='$ ' $_env sh" ||
	    skip_case "tmux cannot start a session here"
	PANE_TTY=$(T display-message -p -t t '#{pane_tty}')
	wait_pane 10 '^[$]'
	stty -g <"$PANE_TTY" >"$TEST_TMP/stty-before"
}

pane() {
	T capture-pane -p -t t -S -200
}

# send TEXT: type TEXT in the pane, then Enter once the pane shows the
# text's end (the program has read it), and a moment later: an Enter that
# arrives with the text is taken as part of a paste by some agents, and
# on a busy machine the two could reach it in one read.
send() {
	T send-keys -t t -l "$1"
	_tail=$(printf '%s' "$1" | tail -c 12)
	wait_for 10 sh -c 'tmux -S "$1" -f /dev/null capture-pane -J -p -t t -S -200 | grep -q -F -e "$2"' \
	    sh "$SOCK" "$_tail" || true
	sleep 0.5
	T send-keys -t t Enter
}

# wait_pane SECONDS ERE: until a line of the pane matches.
wait_pane() {
	wait_for "$1" sh -c 'tmux -S "$1" -f /dev/null capture-pane -p -t t -S -200 | grep -q -E -e "$2"' \
	    sh "$SOCK" "$2" || {
		pane | grep -v '^$' | tail -n 30 | sed 's/^/# pane: /'
		fail "the pane does not show /$2/"
	}
}

pane_command() {
	T display-message -p -t t '#{pane_current_command}'
}

# pane_resize_check: the pane grows to 120x30, and the agent's input line
# takes 100 characters without wrapping them, which it can only do if the
# new width reached it.  Erases them after.
pane_resize_check() {
	T resize-window -t t -x 120 -y 30
	sleep 1
	_xs=$(printf '%100s' '' | tr ' ' x)
	T send-keys -t t -l "$_xs"
	wait_pane 10 "$_xs"
}

# pane_quit KEY...: press the keys, together, until confine is no longer
# the pane's foreground command (at most 6 times, 2 seconds apart); then
# the user's shell must answer and the terminal's modes be those of before.
pane_quit() {
	_n=0
	while [ "$(pane_command)" = confine ] && [ "$_n" -lt 6 ]; do
		T send-keys -t t "$@"
		wait_for 2 sh -c '[ "$(tmux -S "$1" -f /dev/null display-message -p -t t "#{pane_current_command}")" != confine ]' \
		    sh "$SOCK" || true
		_n=$((_n + 1))
	done
	[ "$(pane_command)" != confine ] || fail "the agent does not quit"
	T send-keys -t t C-u
	send 'echo "BACK-$((6 * 7))-BACK"'
	wait_pane 10 '^([$] )?BACK-42-BACK$'
	stty -g <"$PANE_TTY" >"$TEST_TMP/stty-after"
	cmp -s "$TEST_TMP/stty-before" "$TEST_TMP/stty-after" ||
	    fail "the terminal's modes are not restored"
}

# ------------------------------------------------- cases through the tool

# The cases below take two functions of the script: HOME-FN, which makes
# the agent's home (home_new and its settings, for the workspace WS), and
# RUN-FN PROMPT, which runs the agent headless through run_confine in WS
# (or RUN_CWD), its shell tool allowed without asking.  None uses $(...)
# in the tool's command: Gemini CLI refuses a command with a substitution.

# session_of: the id of the session the last run kept, from its exit
# summary; SID.
session_of() {
	SID=$(sed -n 's/^confine: session \([^:]*\): [0-9]* files\{0,1\} changed$/\1/p' "$ERR")
	[ -n "$SID" ] && [ -d "$SESSIONS/$SID" ] || fail "the run kept no session"
}

# tool_git_commit HOME-FN RUN-FN: the agent's git commit, through its
# shell tool, works with the identity of the user's ~/.gitconfig (which
# stays hidden inside): the tool's result, the commit confine exported and
# confine diff --commits carry that name and address.
tool_git_commit() {
	agent_ws
	$1
	_n=$(unique_num)
	git config --file "$AHOME/.gitconfig" user.name "Agent Tester $_n"
	git config --file "$AHOME/.gitconfig" user.email "tester-$_n@example.org"
	_who="Agent Tester $_n <tester-$_n@example.org>"
	log_mark
	$2 "$(tool_prompt 'echo agent >agent.txt && git add agent.txt && git commit -q -m agent-commit && git log -1 --format="COMMIT-BY %an <%ae> / %cn <%ce>"; test -e ~/.gitconfig || echo GITCONFIG-HIDDEN')"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" "$REPLY"
	assert_tool_result "COMMIT-BY $_who / $_who"
	assert_tool_result GITCONFIG-HIDDEN
	session_of
	assert_file_has_content "$SESSIONS/$SID/commits/0001.meta" \
	    "^author $_who [0-9]+ [-+][0-9]{4}\$"
	run_confine diff --commits
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^commit 0001$'
	assert_file_has_content "$OUT" "$_who"
	assert_file_has_content "$OUT" '^agent-commit$'
	assert_ws_unchanged
}

# tool_local_server HOME-FN RUN-FN: through the agent's shell tool, a
# server on the sandbox's loopback (python3 -m http.server) answers a
# client inside, while a server on the host's loopback on the same port
# does not (the control: a client on the host gets its answer); the
# answer reaches the model as the tool's result.
tool_local_server() {
	command -v curl >/dev/null 2>&1 || skip_case "curl is not installed"
	agent_ws
	$1
	_n=$(unique_num)
	mkdir -p "$TEST_TMP/host-srv"
	echo "HOST-SERVED-$_n" >"$TEST_TMP/host-srv/probe"
	(cd "$TEST_TMP/host-srv" && exec python3 -c '
import functools, http.server, os, sys
h = functools.partial(http.server.SimpleHTTPRequestHandler, directory=".")
s = http.server.HTTPServer(("127.0.0.1", 0), h)
open("port.tmp", "w").write("%d\n" % s.server_address[1])
os.rename("port.tmp", "port")
s.serve_forever()' </dev/null >/dev/null 2>&1) &
	track_pid $!
	wait_for 10 test -s "$TEST_TMP/host-srv/port" || fail "the host's server did not start"
	_p=$(cat "$TEST_TMP/host-srv/port")
	# Control: on the host's loopback, it answers.
	curl -sS --noproxy '*' "http://127.0.0.1:$_p/probe" >"$TEST_TMP/control" ||
	    fail "curl to the host's server"
	assert_file_has_content "$TEST_TMP/control" "^HOST-SERVED-$_n\$"
	_c="curl -sS --noproxy '*' --retry 100 --retry-connrefused --retry-delay 1 http://127.0.0.1:$_p/probe"
	log_mark
	$2 "$(tool_prompt "mkdir -p /tmp/srv && echo INSIDE-SERVED-$_n >/tmp/srv/probe && { curl -s --noproxy '*' -o /dev/null http://127.0.0.1:$_p/probe && echo HOST-ANSWERED || echo HOST-UNREACHABLE; } && { cd /tmp/srv && python3 -m http.server --bind 127.0.0.1 $_p >/dev/null 2>&1 & } && $_c; kill \$!")"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" "$REPLY"
	assert_tool_result HOST-UNREACHABLE
	assert_tool_result "INSIDE-SERVED-$_n"
	assert_not_file_has_content "$SINCE" "HOST-SERVED-$_n"
	assert_ws_unchanged
}

# tool_workspaces HOME-FN RUN-FN NAME (the profile): after the agent
# changed a file in each of two workspaces, and in the first changed
# nothing once more (no session kept), confine ls in each lists its own
# session only; show and diff without an id take the current workspace's
# latest; drop --empty finds nothing to drop.
tool_workspaces() {
	agent_ws
	_b=$WS
	_hb=$WS_HASH
	agent_ws
	_a=$WS
	_ha=$WS_HASH
	# HOME-FN may trust OTHER_WS too.
	OTHER_WS=$_b
	$1
	$2 "$(tool_prompt 'echo a >from-a.txt')"
	assert_status "$RC" 0
	session_of
	_sa=$SID
	WS=$_b
	$2 "$(tool_prompt 'echo b >from-b.txt')"
	assert_status "$RC" 0
	session_of
	_sb=$SID
	# No change: nothing kept, nothing to review.
	WS=$_a
	$2 "say hello ($(prompt_marker))"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" "$REPLY"
	assert_not_file_has_content "$ERR" 'review:'
	assert_eq "$(sessions | sort | tr '\n' ' ')" "$(printf '%s\n' "$_sa" "$_sb" | sort | tr '\n' ' ')" "the sessions kept"
	run_confine ls
	assert_status "$RC" 0
	assert_file_has_content "$OUT" "^$_sa .* 1 .* exported .*$3"
	assert_not_file_has_content "$OUT" "$_sb"
	RUN_CWD=$_b run_confine ls
	assert_file_has_content "$OUT" "^$_sb .* 1 .* exported .*$3"
	assert_not_file_has_content "$OUT" "$_sa"
	run_confine ls --all
	assert_file_has_content "$OUT" "^$_sa "
	assert_file_has_content "$OUT" "^$_sb "
	# The latest session is the second workspace's: from the first,
	# show and diff take the first's.
	run_confine show
	assert_status "$RC" 0
	assert_file_has_content "$OUT" 'from-a\.txt'
	assert_not_file_has_content "$OUT" 'from-b\.txt'
	RUN_CWD=$_b run_confine diff
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^\+\+\+ b/from-b\.txt$'
	run_confine drop --empty
	assert_status "$RC" 0
	assert_file_has_content "$ERR" '^confine: no session to drop$'
	assert_exists "$SESSIONS/$_sa"
	assert_exists "$SESSIONS/$_sb"
	assert_ws_unchanged "$_a" "$_ha"
	assert_ws_unchanged "$_b" "$_hb"
}

# ------------------------------------------------------------ MCP servers

# mcp_probe_write MARKER: MCP_PROBE, a tiny MCP server over stdio in
# python3, installed where the agent profiles show programs of the home
# (~/.local/bin, read-only); the instructions it gives and its one tool's
# description carry MARKER, which the endpoint logs when a request of the
# agent carries it: the agent started it inside and it answered.
mcp_probe_write() {
	mkdir -p "$AHOME/.local/bin"
	MCP_PROBE=$AHOME/.local/bin/confine-mcp-probe
	cat >"$MCP_PROBE" <<-EOF
	#!/usr/bin/env python3
	# An MCP server over stdio (one JSON-RPC message a line) with one tool.
	import json, sys
	MARK = "$1"
	for line in sys.stdin:
	    try:
	        msg = json.loads(line)
	    except ValueError:
	        continue
	    if not isinstance(msg, dict) or "id" not in msg:
	        continue
	    method = msg.get("method")
	    params = msg.get("params") or {}
	    if method == "initialize":
	        res = {"protocolVersion": params.get("protocolVersion", "2025-06-18"),
	               "capabilities": {"tools": {}},
	               "serverInfo": {"name": "confine-probe", "version": "1"},
	               "instructions": "The probe server (" + MARK + ")."}
	    elif method == "tools/list":
	        res = {"tools": [{"name": "confine_probe",
	                          "description": "Answers " + MARK + ".",
	                          "inputSchema": {"type": "object",
	                                          "properties": {}}}]}
	    elif method == "tools/call":
	        res = {"content": [{"type": "text", "text": "PROBE-ANSWERED"}]}
	    elif method == "ping":
	        res = {}
	    else:
	        out = {"jsonrpc": "2.0", "id": msg["id"],
	               "error": {"code": -32601, "message": "no such method"}}
	        print(json.dumps(out), flush=True)
	        continue
	    print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": res}),
	          flush=True)
	EOF
	chmod 0755 "$MCP_PROBE"
	# Control: on the host, it answers an initialize.
	printf '%s\n' '{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}' |
	    "$MCP_PROBE" >"$TEST_TMP/probe.out" || fail "the MCP probe does not run"
	assert_file_has_content "$TEST_TMP/probe.out" "$1"
}

# mcp_npx HOME-FN RUN-FN CONFIG-FN PROFILE: in PROFILE, npx, which
# fetches its package from the registry, fails without the network, with
# npm's own error naming the registry (npm_config_fetch_retries=0 only
# shortens npm's retries, which take a minute otherwise); an MCP server
# the agent's settings start with npx (CONFIG-FN, given MCP_COMMAND and
# MCP_ARGS, a JSON array) fails too, and the agent answers without it.
# MCP_ERR: the agent's stderr then.
mcp_npx() {
	command -v npx >/dev/null 2>&1 || skip_case "npx is not installed"
	agent_ws
	$1
	_pkg=confine-test-no-such-package-$(unique_num)
	# Before the first confined session, which copies ~/.claude.json.
	MCP_COMMAND=npx
	MCP_ARGS="[\"-y\", \"$_pkg\"]"
	$3
	run_confine -p "$4" --env npm_config_fetch_retries=0 -- sh -c \
	    'npx -y "$1"; echo "npx $?"' sh "$_pkg"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^npx [1-9][0-9]*$'
	assert_file_has_content "$ERR" \
	    "^npm error request to https://registry\\.npmjs\\.org/$_pkg failed, reason: getaddrinfo [A-Z_]+ registry\\.npmjs\\.org\$"
	$2 "say hello ($(prompt_marker))"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" "$REPLY"
	cp "$ERR" "$TEST_TMP/mcp.err"
	MCP_ERR=$TEST_TMP/mcp.err
	assert_ws_unchanged
}

# json_set FILE KEY JSON: FILE, a JSON object, with KEY set to JSON.
json_set() {
	python3 -c '
import json, sys
path, key, value = sys.argv[1:]
with open(path, encoding="utf-8") as f:
    obj = json.load(f)
obj[key] = json.loads(value)
with open(path, "w", encoding="utf-8") as f:
    json.dump(obj, f)
' "$@" || fail "cannot set $2 in $1"
}

# mcp_stdio HOME-FN RUN-FN CONFIG-FN: an MCP server over stdio,
# configured in the agent's own settings in the home (CONFIG-FN, given
# MCP_COMMAND, the probe, and MCP_ARGS, []), is started by the agent
# inside and answers: what it says reaches the model.
mcp_stdio() {
	agent_ws
	$1
	_m=$(prompt_marker)
	mcp_probe_write "$_m"
	MCP_COMMAND=$MCP_PROBE
	MCP_ARGS='[]'
	$3
	log_mark
	$2 "say hello ($(prompt_marker))"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" "$REPLY"
	log_since
	assert_file_has_content "$SINCE" "^  prompt $_m\$"
	assert_ws_unchanged
}

# ------------------------------------------------------------- resuming

# resume_in_pane KEYVAR=VALUE START READY RESUME: in a tmux pane (KEYVAR
# the user's key), the command line START (confine and the agent) shows
# the ERE READY, its input line; a prompt gets the reply; the agent quits;
# then the command line RESUME, in a new confined session, shows the
# first prompt again and sends a second: the request that carries the
# second carries the first.  The host's home is never written.
resume_in_pane() {
	pane_start "$1"
	_m1=$(prompt_marker)
	send "$2"
	wait_pane 30 "$3"
	send "remember ($_m1)"
	wait_pane 30 "$REPLY"
	wait_for 10 grep -q -x -e "  prompt $_m1" "$FAKE_LOG" ||
	    fail "the first prompt did not reach the endpoint"
	pane_quit C-c C-c
	pane | grep -q -E '^confine: agent state: kept in ' ||
	    fail "the exit summary does not say where the conversation is kept"
	send clear
	wait_for 10 sh -c '[ -z "$(tmux -S "$1" -f /dev/null capture-pane -p -t t | tr -d " \n$")" ]' \
	    sh "$SOCK" || true
	T clear-history -t t
	_m2=$(prompt_marker)
	log_mark
	send "$4"
	wait_pane 30 "remember \\($_m1\\)"
	wait_pane 30 "$3"
	send "again ($_m2)"
	wait_for 30 grep -q -x -e "  prompt $_m2" "$FAKE_LOG" || {
		pane | grep -v '^$' | tail -n 30 | sed 's/^/# pane: /'
		fail "the second prompt did not reach the endpoint"
	}
	wait_pane 30 "$REPLY"
	pane_quit C-c C-c
	log_since
	# One request carries both: the resumed conversation went to the
	# model.
	awk -v m1="  prompt $_m1" -v m2="  prompt $_m2" '
	    /^[A-Z]+ \// { a = b = 0 }
	    $0 == m1 { a = 1 }
	    $0 == m2 { b = 1 }
	    a && b { found = 1 }
	    END { exit !found }' "$SINCE" || {
		diag_file "$SINCE" "the endpoint's log"
		fail "no request of the resumed session carries the first prompt"
	}
	assert_eq "$(tree_hash "$AHOME")" "$HOME_HASH" "the home directory's hash"
}
