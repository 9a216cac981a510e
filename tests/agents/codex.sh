#!/bin/sh
# SPDX-License-Identifier: ISC
# codex.sh - the shipped codex profile with the real Codex CLI, pinned in
# agent-lib.sh, its API key injected: a test profile extends it to inject
# for a fake endpoint on the host's loopback (over TLS, its CA trusted),
# and the profile's own arguments give codex the keyholder's provider.
# Headless (codex exec) and full-screen in a tmux pane, the endpoint gets
# the user's key and never the placeholder; nothing inside the sandbox
# holds the key; a CONNECT to the endpoint through confine's proxy is
# refused; its own settings on the host stay unchanged whatever it
# writes, and its changes to the workspace's agent files are flagged in
# the report.
# In a tmux pane, codex resume --last resumes the conversation of the last
# confined session.  Through its shell tool (the fake endpoint's scripted
# call): git commit with the user's identity, a server on the sandbox's
# own loopback, confine ls, drop --empty and the defaults per workspace
# after its runs; an MCP server over stdio from the home's settings
# starts and answers, and npx, which needs the network, fails.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
require_userns
. "$TESTS_SRCDIR/agent-lib.sh"
require_node 16 "Codex CLI"
agent_require codex $CODEX_PIN
plan 11
fake_start
inject_profiles codex openai

# The user's key, in confine's environment, where the profile's first
# source reads it; another in auth.json (codex login --with-api-key),
# hidden inside.
KEY=sk-proj-confine-real-$(unique_num)
FILE_KEY=sk-proj-confine-real-file-$(unique_num)
OPENAI_API_KEY=$KEY
export OPENAI_API_KEY

# A home where Codex is set up: no update check, the workspace trusted
# (the model provider is the profile's); its key file.
codex_home() {
	home_new
	mkdir -p "$AHOME/.codex"
	cat >"$AHOME/.codex/config.toml" <<-EOF
	check_for_update_on_startup = false

	[projects."$WS"]
	trust_level = "trusted"
	EOF
	printf '{"auth_mode": "apikey", "OPENAI_API_KEY": "%s"}\n' "$FILE_KEY" \
	    >"$AHOME/.codex/auth.json"
	chmod 0600 "$AHOME/.codex/auth.json"
	HOME_HASH=$(tree_hash "$AHOME")
}

t_headless() {
	agent_ws
	codex_home
	m=$(prompt_marker)
	log_mark
	run_confine -v -p codex-test -- codex exec "say hello ($m)"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" "^$REPLY\$"
	assert_file_has_content "$FAKE_LOG" "^  prompt $m\$"
	the_key_only "authorization: Bearer " "$KEY"
	# No WebSocket tried (the keyholder would refuse it), nothing else
	# asked of the endpoint.
	assert_file_has_content "$ERR" \
	    "^confine: inference: [1-9][0-9]* requests? to $FAKE_HOST:$FAKE_PORT through the keyholder, 0 refused, 0 failed\$"
	assert_ws_unchanged
	assert_eq "$(tree_hash "$AHOME")" "$HOME_HASH" "the home directory's hash"
}

# Its environment, every process it can see, its files: no key, where
# outside the key and the key file are found.
t_nothing_inside() {
	agent_ws
	codex_home
	"$FIND_SECRET" self "$AHOME" "$WS" >"$TEST_TMP/outside"
	assert_file_has_content "$TEST_TMP/outside" "^OPENAI_API_KEY=$KEY\$"
	assert_file_has_content "$TEST_TMP/outside" "$FILE_KEY"
	run_confine -v -p codex-test -- sh -c '"$0" all ~ /tmp "$PWD"; env' "$FIND_SECRET"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^PROBE-DONE$'
	assert_not_file_has_content "$OUT" confine-real
	assert_file_has_content "$OUT" "^OPENAI_API_KEY=$PLACEHOLDER\$"
	assert_not_file_has_content "$OUT" '^CODEX_API_KEY='
	assert_eq "$(tree_hash "$AHOME")" "$HOME_HASH" "the home directory's hash"
}

t_connect() {
	agent_ws
	codex_home
	connect_refused codex
}

# What the agent writes to its own configuration: on the host, nothing;
# in the workspace, changes that come back flagged.
t_own_config() {
	agent_ws
	codex_home
	run_confine -p codex-test -- sh -c '
	    grep "^check_for_update" ~/.codex/config.toml
	    echo "notify = [\"sh\"]" >>~/.codex/config.toml &&
	    mkdir -p ~/.codex/rules && echo x >~/.codex/rules/x.rules &&
	    echo WROTE-HOME
	    echo x 2>/dev/null >~/.codex/auth.json || echo CRED-NOT-WRITTEN
	    mkdir -p .codex && echo "notify = [\"sh\"]" >.codex/config.toml &&
	    echo x >AGENTS.md'
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^check_for_update_on_startup = false$'
	assert_file_has_content "$OUT" '^WROTE-HOME$'
	assert_file_has_content "$OUT" '^CRED-NOT-WRITTEN$'
	assert_eq "$(tree_hash "$AHOME")" "$HOME_HASH" "the home directory's hash"
	assert_ws_unchanged
	s=$(the_session)
	assert_file_has_content "$s/report" '^  \.codex/config\.toml: agent instructions or configuration'
	assert_file_has_content "$s/report" '^  AGENTS\.md: agent instructions'
}

t_interactive() {
	agent_ws
	codex_home
	pane_start "OPENAI_API_KEY=$KEY"
	m=$(prompt_marker)
	log_mark
	send "'$CONFINE' -p codex-test -- codex"
	wait_pane 30 "OpenAI Codex \\(v$AGENT_VERSION\\)"
	# Its input line.
	wait_pane 30 '^›'
	send "say hello ($m)"
	wait_pane 30 "$REPLY"
	assert_file_has_content "$FAKE_LOG" "^  prompt $m\$"
	pane_resize_check
	# Ctrl-C clears the input; twice more, it quits.
	pane_quit C-c C-c
	pane | grep -q -E "^confine: inference: [1-9][0-9]* requests? to $FAKE_HOST:$FAKE_PORT through the keyholder, 0 refused, 0 failed" ||
	    fail "no inference line"
	the_key_only "authorization: Bearer " "$KEY"
	assert_eq "$(tree_hash "$AHOME")" "$HOME_HASH" "the home directory's hash"
	assert_ws_unchanged
}

# codex_tool PROMPT: codex exec, its shell tool running without asking.
codex_tool() {
	run_confine -v -p codex-test -- codex exec "$1"
}

# An MCP server of the user's, MCP_COMMAND with MCP_ARGS, in
# ~/.codex/config.toml.
codex_mcp() {
	cat >>"$AHOME/.codex/config.toml" <<-EOF

	[mcp_servers.probe]
	command = "$MCP_COMMAND"
	args = $MCP_ARGS
	EOF
}

t_resume_pane() {
	agent_ws
	codex_home
	resume_in_pane "OPENAI_API_KEY=$KEY" \
	    "'$CONFINE' -p codex-test -- codex" '^›' \
	    "'$CONFINE' -p codex-test -- codex resume --last"
}

t_git_commit() {
	tool_git_commit codex_home codex_tool
}

t_local_server() {
	tool_local_server codex_home codex_tool
}

t_workspaces() {
	tool_workspaces codex_home codex_tool codex
}

t_npx() {
	# codex exec says nothing of it; its terminal interface counts a
	# warning.
	mcp_npx codex_home codex_tool codex_mcp codex-test
}

t_mcp() {
	mcp_stdio codex_home codex_tool codex_mcp
}

tcase "codex exec: the reply comes back through the keyholder, which put the user's key on it" t_headless
tcase "codex: nothing inside holds the key (environment, processes, files)" t_nothing_inside
tcase "codex: a CONNECT to the injected endpoint through the proxy is refused" t_connect
tcase "codex: its settings on the host stay unchanged; workspace agent files are flagged" t_own_config
tcase "codex: the full-screen interface works in a terminal" t_interactive
tcase "codex: in a terminal, codex resume --last resumes the last confined session's conversation" t_resume_pane
tcase "codex: its git commit, through its shell tool, has the user's name and address" t_git_commit
tcase "codex: a server on the sandbox's loopback answers its shell tool; the host's does not" t_local_server
tcase "codex: confine ls, drop --empty, show and diff per workspace after its runs" t_workspaces
tcase "codex: an MCP server over stdio from its settings in the home starts inside and answers" t_mcp
tcase "codex: npx without the network fails naming the registry; an MCP server started with it too" t_npx
tap_done
