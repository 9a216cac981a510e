#!/bin/sh
# SPDX-License-Identifier: ISC
# claude.sh - the shipped claude profile with the real Claude Code, pinned
# in agent-lib.sh, its credential injected: a test profile extends it to
# inject for a fake endpoint on the host's loopback (over TLS, its CA
# trusted).  Headless (claude -p) and full-screen in a tmux pane, the
# endpoint gets the user's key and never the placeholder; nothing inside
# the sandbox holds the credential; a CONNECT to the endpoint through
# confine's proxy is refused; its own settings on the host stay
# unchanged whatever it writes, its changes to the workspace's agent
# files are flagged in the report, and a conversation is resumed in the
# next session, headless and in a tmux pane.  Through its Bash tool
# (the fake endpoint's scripted call): git commit with the user's
# identity, a server on the sandbox's own loopback, confine ls, drop
# --empty and the defaults per workspace after its runs; an MCP server
# over stdio from the home's settings starts and answers, and npx, which
# needs the network, fails.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
require_userns
. "$TESTS_SRCDIR/agent-lib.sh"
agent_require claude $CLAUDE_PIN
plan 13
fake_start
inject_profiles claude anthropic

# The user's key, in confine's environment, where the profile's first
# source reads it; and a claude.ai login in its file, hidden inside.
KEY=sk-ant-api03-confine-real-$(unique_num)
LOGIN=sk-ant-oat01-confine-real-login-$(unique_num)
ANTHROPIC_API_KEY=$KEY
export ANTHROPIC_API_KEY

# A home where Claude Code has been set up: onboarding done, the
# workspace trusted (no key approved: the placeholder comes as a token,
# which Claude Code does not ask about); settings of its own, and a login
# file.
claude_home() {
	home_new
	mkdir -p "$AHOME/.claude"
	cat >"$AHOME/.claude.json" <<-EOF
	{"hasCompletedOnboarding": true, "theme": "dark",
	 "projects": {"$WS": {"hasTrustDialogAccepted": true,
	   "hasCompletedProjectOnboarding": true}}}
	EOF
	printf '{"env": {"CONFINE_HOST_SETTING": "host"}}\n' >"$AHOME/.claude/settings.json"
	printf '{"claudeAiOauth": {"accessToken": "%s", "refreshToken": "r-%s", "expiresAt": 4102444800000}}\n' \
	    "$LOGIN" "$LOGIN" >"$AHOME/.claude/.credentials.json"
	chmod 0600 "$AHOME/.claude/.credentials.json"
	HOME_HASH=$(tree_hash "$AHOME")
}

claude_run() {
	run_confine -v -p claude-test --env CLAUDE_CODE_MAX_RETRIES=0 "$@"
}

# claude_tool PROMPT: claude -p, its Bash tool allowed.
claude_tool() {
	claude_run -- claude -p --allowedTools Bash -- "$1"
}

# An MCP server of the user's, MCP_COMMAND with MCP_ARGS, in ~/.claude.json.
claude_mcp() {
	json_set "$AHOME/.claude.json" mcpServers \
	    "{\"probe\": {\"type\": \"stdio\", \"command\": \"$MCP_COMMAND\", \"args\": $MCP_ARGS}}"
}

t_headless() {
	agent_ws
	claude_home
	m=$(prompt_marker)
	log_mark
	claude_run -- claude -p "say hello ($m)"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" "$REPLY"
	assert_file_has_content "$FAKE_LOG" "^  prompt $m\$"
	the_key_only "x-api-key: " "$KEY"
	# Nothing else is asked for, nothing refused: no telemetry, no
	# update check.
	assert_file_has_content "$ERR" \
	    "^confine: inference: [1-9][0-9]* requests? to $FAKE_HOST:$FAKE_PORT through the keyholder, 0 refused, 0 failed\$"
	assert_ws_unchanged
	assert_eq "$(tree_hash "$AHOME")" "$HOME_HASH" "the home directory's hash"
}

# Its environment, every process it can see, its files: no credential,
# where outside the key and the login are found.
t_nothing_inside() {
	agent_ws
	claude_home
	# Positive control: outside, the probe finds both.
	"$FIND_SECRET" self "$AHOME" "$WS" >"$TEST_TMP/outside"
	assert_file_has_content "$TEST_TMP/outside" "^ANTHROPIC_API_KEY=$KEY\$"
	assert_file_has_content "$TEST_TMP/outside" "$LOGIN"
	claude_run -- sh -c '"$0" all ~ /tmp "$PWD"; env' "$FIND_SECRET"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^PROBE-DONE$'
	assert_not_file_has_content "$OUT" confine-real
	assert_file_has_content "$OUT" "^ANTHROPIC_AUTH_TOKEN=$PLACEHOLDER\$"
	assert_file_has_content "$OUT" '^ANTHROPIC_BASE_URL=http://127\.0\.0\.1:3129$'
	assert_not_file_has_content "$OUT" '^(ANTHROPIC_API_KEY|CLAUDE_CODE_OAUTH_TOKEN)='
	assert_eq "$(tree_hash "$AHOME")" "$HOME_HASH" "the home directory's hash"
}

t_connect() {
	agent_ws
	claude_home
	connect_refused claude
}

# What the agent writes to its own configuration: on the host, nothing;
# in the workspace, changes that come back flagged.
t_own_config() {
	agent_ws
	claude_home
	claude_run -- sh -c '
	    cat ~/.claude/settings.json
	    echo "{\"hooks\": {}}" >~/.claude/settings.json &&
	    echo "{}" >~/.claude.json &&
	    mkdir -p ~/.claude/commands && echo x >~/.claude/commands/x.md &&
	    echo WROTE-HOME
	    echo x 2>/dev/null >~/.claude/.credentials.json || echo CRED-NOT-WRITTEN
	    mkdir -p .claude && echo "{\"hooks\": {}}" >.claude/settings.json &&
	    echo "{\"mcpServers\": {}}" >.mcp.json && echo x >CLAUDE.md'
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^\{"env": \{"CONFINE_HOST_SETTING": "host"\}\}$'
	assert_file_has_content "$OUT" '^WROTE-HOME$'
	assert_file_has_content "$OUT" '^CRED-NOT-WRITTEN$'
	assert_eq "$(tree_hash "$AHOME")" "$HOME_HASH" "the home directory's hash"
	assert_ws_unchanged
	s=$(the_session)
	assert_file_has_content "$s/report" '^  \.claude/settings\.json: agent configuration'
	assert_file_has_content "$s/report" '^  \.mcp\.json: MCP servers'
	assert_file_has_content "$s/report" '^  CLAUDE\.md: instructions'
}

t_interactive() {
	agent_ws
	claude_home
	pane_start "ANTHROPIC_API_KEY=$KEY"
	m=$(prompt_marker)
	log_mark
	send "'$CONFINE' -p claude-test -- claude"
	wait_pane 30 "Claude Code v$AGENT_VERSION"
	# Its input line: no question about a key first.
	wait_pane 30 '^❯'
	send "say hello ($m)"
	wait_pane 30 "$REPLY"
	assert_file_has_content "$FAKE_LOG" "^  prompt $m\$"
	pane_resize_check
	# Ctrl-C clears the input; twice more, it quits.
	pane_quit C-c C-c
	pane | grep -q -E "^confine: inference: [1-9][0-9]* requests? to $FAKE_HOST:$FAKE_PORT through the keyholder, 0 refused, 0 failed" ||
	    fail "no inference line"
	the_key_only "x-api-key: " "$KEY"
	assert_eq "$(tree_hash "$AHOME")" "$HOME_HASH" "the home directory's hash"
	assert_ws_unchanged
}

# An agent installed in one of the profile's places only (~/.local/bin, as
# Claude Code's own installer does), in a home without ~/.nvm,
# ~/.npm-global, ~/.claude ...: it runs from there, the missing paths are
# skipped, and none is made on the host.
t_one_install_place() {
	agent_ws
	home_new
	mkdir -p "$AHOME/.local/bin"
	ln -s "$AGENT_DIR/bin/claude" "$AHOME/.local/bin/claude"
	h=$(tree_hash "$AHOME")
	run_confine -p claude-test -- sh -c 'ls -A ~ ~/.local; ~/.local/bin/claude --version'
	assert_status "$RC" 0
	assert_file_has_content "$OUT" "^$AGENT_VERSION \\(Claude Code\\)\$"
	assert_not_file_has_content "$OUT" '^\.(nvm|npm-global)$'
	assert_not_file_has_content "$OUT" '^(lib|share)$'
	assert_eq "$(tree_hash "$AHOME")" "$h" "the home directory's hash"
}

# A conversation started in one confined session is resumed in the next
# (the profile keeps ~/.claude, persistent): the resumed request carries
# the first prompt; the host's home is never written.
t_resume() {
	agent_ws
	claude_home
	m1=$(prompt_marker)
	claude_run -- claude -p --output-format json "remember ($m1)"
	assert_status "$RC" 0
	assert_file_has_content "$ERR" '^confine: agent state: kept in '
	id=$(grep -o '"session_id": *"[0-9a-f-]*"' "$OUT" | head -n 1 |
	    sed 's/.*"\([0-9a-f-]*\)"$/\1/')
	[ -n "$id" ] || fail "no session id in claude's output"
	m2=$(prompt_marker)
	log_mark
	claude_run -- claude -p --resume "$id" "again ($m2)"
	assert_status "$RC" 0
	assert_not_file_has_content "$OUT" 'No conversation found'
	assert_file_has_content "$OUT" "$REPLY"
	the_key_only "x-api-key: " "$KEY"
	assert_file_has_content "$SINCE" "^  prompt $m2\$"
	assert_file_has_content "$SINCE" "^  prompt $m1\$"
	assert_eq "$(tree_hash "$AHOME")" "$HOME_HASH" "the home directory's hash"
}

tcase "claude -p: the reply comes back through the keyholder, which put the user's key on it" t_headless
tcase "claude: nothing inside holds the credential (environment, processes, files)" t_nothing_inside
tcase "claude: a CONNECT to the injected endpoint through the proxy is refused" t_connect
tcase "claude: its settings on the host stay unchanged; workspace agent files are flagged" t_own_config
tcase "claude: the full-screen interface works in a terminal" t_interactive
tcase "claude: installed in one of the profile's places, it runs; the missing ones are skipped" t_one_install_place
t_resume_pane() {
	agent_ws
	claude_home
	resume_in_pane "ANTHROPIC_API_KEY=$KEY" \
	    "'$CONFINE' -p claude-test -- claude" '^❯' \
	    "'$CONFINE' -p claude-test -- claude --continue"
}

t_git_commit() {
	tool_git_commit claude_home claude_tool
}

t_local_server() {
	tool_local_server claude_home claude_tool
}

t_workspaces() {
	tool_workspaces claude_home claude_tool claude
}

t_npx() {
	mcp_npx claude_home claude_tool claude_mcp claude-test
	# What claude says of it: claude mcp list (or /mcp in a session).
	claude_run --env npm_config_fetch_retries=0 -- claude mcp list
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^probe: npx -y confine-test-no-such-package-[0-9]* - .*Failed to connect'
}

t_mcp() {
	mcp_stdio claude_home claude_tool claude_mcp
}

tcase "claude: a conversation started in one confined session is resumed in the next" t_resume
tcase "claude: in a terminal, claude --continue resumes the last confined session's conversation" t_resume_pane
tcase "claude: its git commit, through its Bash tool, has the user's name and address" t_git_commit
tcase "claude: a server on the sandbox's loopback answers its Bash tool; the host's does not" t_local_server
tcase "claude: confine ls, drop --empty, show and diff per workspace after its runs" t_workspaces
tcase "claude: an MCP server over stdio from its settings in the home starts inside and answers" t_mcp
tcase "claude: npx without the network fails naming the registry; an MCP server started with it too" t_npx
tap_done
