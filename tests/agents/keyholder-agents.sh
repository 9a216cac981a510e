#!/bin/sh
# SPDX-License-Identifier: ISC
# keyholder-agents.sh - the real agent CLIs (pinned in agent-lib.sh)
# through confine-keyholder, on the host, with no sandbox: each CLI's
# base URL is the keyholder's plain HTTP listener on 127.0.0.1 and its
# credential a placeholder, set as confine is to set them (Claude Code:
# ANTHROPIC_AUTH_TOKEN; Codex: a model provider of its own, without
# WebSocket; Gemini CLI: the gemini-api-key authentication); the
# keyholder forwards over TLS to the fake model endpoint
# (tests/helpers/fake-model.py, with a CA made here), which records every
# request.  The endpoint sees the user's key, never the placeholder nor
# an attacker's; the keyholder refuses nothing a plain prompt needs, and
# refuses an upload and a server-side tool in the provider's own error
# format; a streamed reply shows its first event before the response
# ends; an endpoint whose certificate names another host gets nothing.
# An agent that is not in the cache (tests/agents/NAME.sh installs it)
# is skipped, saying so.  Host side only: no sandbox; run once.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
. "$TESTS_SRCDIR/agent-lib.sh"

KEYHOLDER=${KEYHOLDER:-$TESTS_BUILDDIR/../src/confine-keyholder}
KH_RUN=$TESTS_SRCDIR/helpers/kh-run.py
[ -x "$KEYHOLDER" ] || { echo "Bail out! no $KEYHOLDER"; exit 1; }
command -v curl >/dev/null 2>&1 || skip_all "curl is not installed"
plan 10
FAKE_HOLD=$TEST_TMP/hold
mkdir -p "$FAKE_HOLD"
fake_start

rand() {
	od -An -N8 -tx8 /dev/urandom | tr -d ' '
}
# The user's keys, one a provider, and the placeholder the agents get.
SECRET_ANTHROPIC=sk-ant-REAL-$(rand)
SECRET_OPENAI=sk-proj-REAL-$(rand)
SECRET_GEMINI=AIzaREAL$(rand)
PH=$PLACEHOLDER

# kh_start NAME PROVIDER SECRET UPSTREAM: confine-keyholder as confine's
# supervisor starts it (kh-run.py), the key from a variable, its messages
# (-v: every refusal) in $TEST_TMP/kh.NAME.err, until the script ends;
# its port in $TEST_TMP/kh.NAME.out.
kh_start() {
	_f=$TEST_TMP/kh.$1
	mkfifo "$_f.in"
	# The keyholder stops when kh-run.py's input ends: never, here.
	tail -f /dev/null >"$_f.in" &
	track_pid $!
	CONFINE_TEST_KEY=$3 python3 "$KH_RUN" "$KEYHOLDER" --provider "$2" \
	    --kind api-key --variable CONFINE_TEST_KEY --upstream "$4" \
	    --ca "$TLS/ca.pem" -v <"$_f.in" >"$_f.out" 2>"$_f.err" &
	track_pid $!
	wait_for 10 grep -q "^port " "$_f.out" 2>/dev/null || {
		echo "Bail out! confine-keyholder for $2 did not start"
		sed 's/^/# /' "$_f.err"
		exit 1
	}
}
kh_port() {
	sed -n 's/^port //p' "$TEST_TMP/kh.$1.out"
}

for p in anthropic openai gemini; do
	case $p in
	anthropic) s=$SECRET_ANTHROPIC ;;
	openai) s=$SECRET_OPENAI ;;
	gemini) s=$SECRET_GEMINI ;;
	esac
	kh_start "$p" "$p" "$s" "$FAKE_HOST:$FAKE_PORT"
done
KH_ANTHROPIC=http://127.0.0.1:$(kh_port anthropic)
KH_OPENAI=http://127.0.0.1:$(kh_port openai)
KH_GEMINI=http://127.0.0.1:$(kh_port gemini)

# -------------------------------------------------------------- helpers

# mark: where the endpoint's log (agent-lib.sh's log_mark) and the
# keyholders' messages stand.
mark() {
	log_mark
	MARK_REFUSED=$(cat "$TEST_TMP"/kh.*.err | grep -c 'refused a request' || :)
}

# no_refusals: no keyholder refused anything since the mark.
no_refusals() {
	_n=$(cat "$TEST_TMP"/kh.*.err | grep -c 'refused a request' || :)
	[ "$_n" -eq "$MARK_REFUSED" ] || {
		cat "$TEST_TMP"/kh.*.err | grep 'refused a request' |
		    tail -n "$((_n - MARK_REFUSED))" | sed 's/^/# /'
		fail "the keyholder refused what the agent asked for"
	}
}

# A directory of the case's own.
case_dir() {
	CASE=$(mktemp -d "$TEST_TMP/case.XXXXXX") || fail "mktemp"
}

# need_agent NAME PIN: the agent from the cache, AGENT_BIN; else the case
# is skipped, saying so.
need_agent() {
	_name=$1
	shift
	# shellcheck disable=SC2086 # the pin is words
	agent_cached "$_name" $* ||
	    skip_case "$_name $AGENT_VERSION is not in $AGENTS_CACHE (tests/agents/$_name.sh installs it)"
	AGENT_BIN=$AGENT_DIR/bin/$_name
}

# need_node MAJOR: Node.js MAJOR or later, else the case is skipped.
need_node() {
	_v=$(node -p 'process.versions.node' 2>/dev/null) || _v=0
	[ "${_v%%.*}" -ge "$1" ] ||
	    skip_case "the agent needs Node.js $1 or later; this is $_v"
}

# agent_run VAR=VALUE... -- COMMAND...: COMMAND in WS with only these
# variables (and PATH, HOME, LANG): nothing of the caller's environment,
# such as a real API key, reaches the agent.  Output in OUT and ERR,
# status in RC; bounded against a hang.
agent_run() {
	_first=1
	for _a in "$@"; do
		[ -z "$_first" ] || set --
		_first=
		if [ "$_a" = -- ]; then
			set -- "$@" timeout -k 5 "$CONFINE_TIMEOUT"
		else
			set -- "$@" "$_a"
		fi
	done
	RC=0
	(cd "$WS" && exec env -i "PATH=$AGENT_DIR/bin:$PATH" "HOME=$HOME" \
	    LANG=C.UTF-8 "$@" </dev/null) >"$OUT" 2>"$ERR" || RC=$?
}

# release MARKER: let the endpoint finish the streams held on MARKER.
release() {
	: >"$FAKE_HOLD/$1"
}

# wait_held MARKER: the endpoint holds a stream on MARKER.
wait_held() {
	wait_for 60 grep -q -x -F -e "  held $1" "$FAKE_LOG" || {
		release "$1"
		fail "no stream was held on $1"
	}
}

# ------------------------------------------------------- the homes

# Claude Code set up: onboarding done, the workspace trusted.
claude_home() {
	home_new
	cat >"$AHOME/.claude.json" <<-EOF
	{"hasCompletedOnboarding": true, "theme": "dark",
	 "projects": {"$WS": {"hasTrustDialogAccepted": true,
	   "hasCompletedProjectOnboarding": true}}}
	EOF
}

# Codex: a model provider at the keyholder, its key from OPENAI_API_KEY,
# no WebSocket (the keyholder refuses one), no retries; the workspace
# trusted: what the shipped codex profile gives it on its command line.
codex_home() {
	home_new
	mkdir -p "$AHOME/.codex"
	cat >"$AHOME/.codex/config.toml" <<-EOF
	model_provider = "confine"
	check_for_update_on_startup = false

	[model_providers.confine]
	name = "confine"
	base_url = "$KH_OPENAI/v1"
	env_key = "OPENAI_API_KEY"
	wire_api = "responses"
	supports_websockets = false
	request_max_retries = 0
	stream_max_retries = 0

	[projects."$WS"]
	trust_level = "trusted"
	EOF
}

# Gemini CLI: API-key authentication, the workspace trusted.  No model
# named: its router's call comes first, as for a user.
gemini_home() {
	home_new
	mkdir -p "$AHOME/.gemini"
	printf '{"security": {"auth": {"selectedType": "gemini-api-key"}}}\n' \
	    >"$AHOME/.gemini/settings.json"
	printf '{"%s": "TRUST_FOLDER"}\n' "$WS" >"$AHOME/.gemini/trustedFolders.json"
}

CLAUDE_ENV="ANTHROPIC_AUTH_TOKEN=$PH CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 CLAUDE_CODE_MAX_RETRIES=0"
GEMINI_ENV="GEMINI_API_KEY=$PH GOOGLE_GEMINI_BASE_URL=$KH_GEMINI"

# ------------------------------------------------------------ the agents

t_claude() {
	need_agent claude "$CLAUDE_PIN"
	case_dir
	agent_ws
	claude_home
	mark
	m=$(prompt_marker)
	# shellcheck disable=SC2086
	agent_run ANTHROPIC_BASE_URL="$KH_ANTHROPIC" $CLAUDE_ENV -- \
	    claude -p "say hello ($m)"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" "$REPLY"
	log_since
	assert_file_has_content "$SINCE" "^  prompt $m\$"
	the_key_only "x-api-key: " "$SECRET_ANTHROPIC"
	assert_not_file_has_content "$SINCE" '^  header authorization:'
	no_refusals
	assert_ws_unchanged
}

# stream_check MARKER: the agent, started in the background by the
# caller with its output in OUT and its status to $CASE/status, shows
# the first part of the held reply, and the rest once the endpoint is
# let go; its status in RC.
stream_check() {
	wait_held "$1"
	wait_for 60 grep -q -F -e "$REPLY" "$OUT" || {
		release "$1"
		fail "the agent did not show the first event of the held stream"
	}
	# The response has not ended: the endpoint is still holding it.
	assert_not_file_has_content "$FAKE_LOG" "^  released $1\$"
	assert_not_file_has_content "$OUT" confine-stream-end
	release "$1"
	wait_for 60 test -s "$CASE/status" || fail "the agent did not finish"
	RC=$(cat "$CASE/status")
	assert_file_has_content "$OUT" confine-stream-end
}

t_claude_stream() {
	need_agent claude "$CLAUDE_PIN"
	case_dir
	agent_ws
	claude_home
	mark
	h=confine-hold-$(unique_num)
	# shellcheck disable=SC2086
	{ agent_run ANTHROPIC_BASE_URL="$KH_ANTHROPIC" $CLAUDE_ENV -- \
	    claude -p --output-format stream-json --include-partial-messages \
	    --verbose "say hello ($h)"; echo "$RC" >"$CASE/status"; } &
	stream_check "$h"
	assert_status "$RC" 0
	log_since
	the_key_only "x-api-key: " "$SECRET_ANTHROPIC"
	no_refusals
}

t_codex() {
	need_node 16
	need_agent codex "$CODEX_PIN"
	case_dir
	agent_ws
	codex_home
	mark
	m=$(prompt_marker)
	agent_run OPENAI_API_KEY="$PH" -- codex exec "say hello ($m)"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" "^$REPLY\$"
	log_since
	assert_file_has_content "$SINCE" "^  prompt $m\$"
	the_key_only "authorization: Bearer " "$SECRET_OPENAI"
	no_refusals
	assert_ws_unchanged
}

# Codex prints a streamed reply as it comes only in its full-screen
# interface (exec prints the message once done).
t_codex_stream() {
	need_node 16
	need_agent codex "$CODEX_PIN"
	case_dir
	agent_ws
	codex_home
	mark
	h=confine-hold-$(unique_num)
	PATH=$AGENT_DIR/bin:$PATH
	pane_start "OPENAI_API_KEY=$PH"
	# No app-server daemon: it would outlive the case.
	send "codex --no-daemon"
	wait_pane 30 "OpenAI Codex \\(v$AGENT_VERSION\\)"
	wait_pane 30 '^›'
	send "say hello ($h)"
	wait_held "$h"
	wait_for 60 sh -c 'tmux -S "$1" -f /dev/null capture-pane -p -t t | grep -q -F -e "$2"' \
	    sh "$SOCK" "$REPLY" || {
		release "$h"
		fail "codex did not show the first event of the held stream"
	}
	assert_not_file_has_content "$FAKE_LOG" "^  released $h\$"
	pane >"$CASE/pane"
	assert_not_file_has_content "$CASE/pane" confine-stream-end
	release "$h"
	wait_pane 60 confine-stream-end
	T kill-server
	log_since
	the_key_only "authorization: Bearer " "$SECRET_OPENAI"
	no_refusals
}

t_gemini() {
	need_node 20
	need_agent gemini "$GEMINI_PIN"
	case_dir
	agent_ws
	gemini_home
	mark
	m=$(prompt_marker)
	# shellcheck disable=SC2086
	agent_run $GEMINI_ENV -- gemini -p "say hello ($m)"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" "^$REPLY\$"
	log_since
	assert_file_has_content "$SINCE" "^  prompt $m\$"
	the_key_only "x-goog-api-key: " "$SECRET_GEMINI"
	no_refusals
	assert_ws_unchanged
}

t_gemini_stream() {
	need_node 20
	need_agent gemini "$GEMINI_PIN"
	case_dir
	agent_ws
	gemini_home
	mark
	h=confine-hold-$(unique_num)
	# shellcheck disable=SC2086
	{ agent_run $GEMINI_ENV -- gemini -p "say hello ($h)"
	    echo "$RC" >"$CASE/status"; } &
	stream_check "$h"
	assert_status "$RC" 0
	log_since
	the_key_only "x-goog-api-key: " "$SECRET_GEMINI"
	no_refusals
}

# ---------------------------------------------------- what is not theirs

# post URL BODY [CURL-ARG...]: an agent's request to a keyholder; the
# status in $CASE/code, the body in $CASE/body.
post() {
	_url=$1 _body=$2
	shift 2
	curl -sS --max-time "$CONFINE_TIMEOUT" -o "$CASE/body" -w '%{http_code}' \
	    -H 'content-type: application/json' --data-binary "$_body" "$@" \
	    "$_url" >"$CASE/code" 2>"$CASE/curl.err" || :
}

ANTHROPIC_MSG='{"model":"claude-fake","max_tokens":16,"messages":[{"role":"user","content":"hi"}]'
OPENAI_MSG='{"model":"gpt-fake","input":"hi"'
GEMINI_MSG='{"contents":[{"role":"user","parts":[{"text":"hi"}]}]'

t_attacker() {
	case_dir
	a=attacker-$(unique_num)
	# Positive control: the endpoint records the headers and target it
	# gets, an attacker's key among them.
	mark
	curl -sS --max-time "$CONFINE_TIMEOUT" --cacert "$TLS/ca.pem" \
	    -o /dev/null -H "x-api-key: $a" -H 'content-type: application/json' \
	    --data-binary "$ANTHROPIC_MSG}" "$FAKE_URL/v1/messages?key=$a" ||
	    fail "curl to the fake endpoint"
	log_since
	assert_file_has_content "$SINCE" "^  header x-api-key: $a\$"
	assert_file_has_content "$SINCE" "^POST /v1/messages\\?key=$a\$"
	for p in anthropic openai gemini; do
		case $p in
		anthropic) url=$KH_ANTHROPIC/v1/messages body=$ANTHROPIC_MSG
		    key="x-api-key: $SECRET_ANTHROPIC" ;;
		openai) url=$KH_OPENAI/v1/responses body=$OPENAI_MSG
		    key="authorization: Bearer $SECRET_OPENAI" ;;
		gemini) url=$KH_GEMINI/v1beta/models/gemini-fake:generateContent
		    body=$GEMINI_MSG key="x-goog-api-key: $SECRET_GEMINI" ;;
		esac
		mark
		post "$url?key=$a" "$body}" -H "x-api-key: $a" \
		    -H "Authorization: Bearer $a" -H "x-goog-api-key: $a" \
		    -H "Cookie: session=$a"
		assert_eq "$(cat "$CASE/code")" 200 "$p: the status"
		log_since
		every_request_has "  header $key"
		assert_not_file_has_content "$SINCE" "$a"
		assert_not_file_has_content "$SINCE" 'key='
	done
}

# refused PROVIDER FILE: FILE is the provider's own error format for a
# refusal (403), and the endpoint got nothing since the mark.
refused() {
	assert_eq "$(cat "$CASE/code")" 403 "$1: the status"
	python3 - "$1" "$CASE/body" <<-'EOF' || fail "$1: not its error format: $(cat "$CASE/body")"
	import json, sys
	p, e = sys.argv[1], json.load(open(sys.argv[2]))
	if p == "anthropic":
	    ok = e["type"] == "error" and e["error"]["type"] == "permission_error"
	elif p == "openai":
	    ok = e["error"]["code"] == "confine_refused" and e["error"]["message"]
	else:
	    ok = e["error"]["code"] == 403 and e["error"]["status"] == "PERMISSION_DENIED"
	sys.exit(0 if ok else 1)
	EOF
	log_since
	assert_not_file_has_content "$SINCE" '^[A-Z]+ /'
}

t_upload() {
	case_dir
	printf 'the user%s data\n' "'s" >"$CASE/file.txt"
	for p in anthropic openai gemini; do
		case $p in
		anthropic) url=$KH_ANTHROPIC/v1/files ;;
		openai) url=$KH_OPENAI/v1/files ;;
		gemini) url=$KH_GEMINI/upload/v1beta/files ;;
		esac
		mark
		curl -sS --max-time "$CONFINE_TIMEOUT" -o "$CASE/body" \
		    -w '%{http_code}' -F purpose=assistants \
		    -F "file=@$CASE/file.txt" "$url" >"$CASE/code" \
		    2>"$CASE/curl.err" || :
		refused "$p"
		assert_file_has_content "$CASE/body" 'refused'
	done
}

t_server_tools() {
	case_dir
	for p in anthropic anthropic-mcp openai gemini; do
		case $p in
		anthropic) url=$KH_ANTHROPIC/v1/messages body=$ANTHROPIC_MSG
		    extra=',"tools":[{"type":"web_fetch_20250910","name":"web_fetch"}]'
		    what=web_fetch ;;
		anthropic-mcp) url=$KH_ANTHROPIC/v1/messages body=$ANTHROPIC_MSG
		    extra=',"mcp_servers":[{"type":"url","url":"https://mcp.example/sse","name":"x"}]'
		    what=mcp_servers ;;
		openai) url=$KH_OPENAI/v1/responses body=$OPENAI_MSG
		    extra=',"tools":[{"type":"mcp","server_label":"x","server_url":"https://mcp.example/sse"}]'
		    what="'mcp'" ;;
		gemini) url=$KH_GEMINI/v1beta/models/gemini-fake:generateContent
		    body=$GEMINI_MSG extra=',"tools":[{"urlContext":{}}]'
		    what=urlContext ;;
		esac
		# Positive control: the same request without the tool goes.
		mark
		post "$url" "$body}"
		assert_eq "$(cat "$CASE/code")" 200 "$p: the status without the tool"
		log_since
		assert_file_has_content "$SINCE" '^POST /'
		mark
		post "$url" "$body$extra}"
		refused "${p%-mcp}"
		assert_file_has_content "$CASE/body" "$what"
	done
}

# An endpoint on the same address whose certificate, from the same CA,
# names another host: the keyholder, verifying the name it dials, gets
# no answer from it, and neither does the agent.
t_other_name() {
	case_dir
	printf '%s\n' "subjectAltName=DNS:other.invalid" "basicConstraints=CA:FALSE" \
	    "extendedKeyUsage=serverAuth" >"$CASE/ext.cnf"
	{
		openssl req -newkey rsa:2048 -nodes -subj /CN=other.invalid \
		    -keyout "$CASE/key.pem" -out "$CASE/leaf.csr" &&
		openssl x509 -req -in "$CASE/leaf.csr" -CA "$TLS/ca.pem" \
		    -CAkey "$TLS/ca.key" -CAcreateserial -days 2 \
		    -extfile "$CASE/ext.cnf" -out "$CASE/cert.pem"
	} >"$CASE/openssl.log" 2>&1 || fail "openssl: $(cat "$CASE/openssl.log")"
	: >"$CASE/other.log"
	python3 "$TESTS_SRCDIR/helpers/fake-model.py" --cert "$CASE/cert.pem" \
	    --key "$CASE/key.pem" "$FAKE_HOST" "other-$REPLY" "$CASE/other.log" \
	    "$CASE/ready" </dev/null >/dev/null 2>"$CASE/other.err" &
	track_pid $!
	wait_for 10 test -s "$CASE/ready" || fail "the other endpoint did not start"
	port=$(cat "$CASE/ready")
	# Positive control: it answers under its own name, its chain good.
	curl -sS --max-time "$CONFINE_TIMEOUT" --cacert "$TLS/ca.pem" \
	    --resolve "other.invalid:$port:$FAKE_HOST" -o /dev/null \
	    "https://other.invalid:$port/v1/models" ||
	    fail "the other endpoint does not answer under its own name"
	assert_file_has_content "$CASE/other.log" '^GET /v1/models$'
	: >"$CASE/other.log"
	kh_start other anthropic "$SECRET_ANTHROPIC" "$FAKE_HOST:$port"
	kh=http://127.0.0.1:$(kh_port other)
	post "$kh/v1/messages" "$ANTHROPIC_MSG}"
	assert_eq "$(cat "$CASE/code")" 502 "the status"
	assert_file_has_content "$CASE/body" 'certificate'
	if agent_cached claude $CLAUDE_PIN; then
		agent_ws
		claude_home
		# shellcheck disable=SC2086
		agent_run ANTHROPIC_BASE_URL="$kh" $CLAUDE_ENV -- claude -p "say hello"
		assert_ne "$RC" 0 "claude's status"
		assert_not_file_has_content "$OUT" "$REPLY"
	else
		diag "claude is not in $AGENTS_CACHE: the keyholder checked with curl only"
	fi
	assert_not_file_has_content "$CASE/other.log" '^[A-Z]+ /'
	assert_not_file_has_content "$CASE/other.log" "$SECRET_ANTHROPIC"
}

tcase "claude -p through the keyholder: the endpoint gets the user's key, never the placeholder" t_claude
tcase "claude -p: its streamed reply shows the first event before the response ends" t_claude_stream
tcase "codex exec through the keyholder: the endpoint gets the user's key, never the placeholder" t_codex
tcase "codex: its streamed reply shows the first event before the response ends" t_codex_stream
tcase "gemini -p through the keyholder: the endpoint gets the user's key, never the placeholder" t_gemini
tcase "gemini -p: its streamed reply shows the first event before the response ends" t_gemini_stream
tcase "an attacker's key, header or query, arrives as the user's key" t_attacker
tcase "a file upload is refused, in the provider's error format, never sent" t_upload
tcase "server-side fetch and MCP tools are refused, in the provider's error format" t_server_tools
tcase "an endpoint whose certificate names another host gets nothing" t_other_name
tap_done
