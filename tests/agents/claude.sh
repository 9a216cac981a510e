#!/bin/sh
# SPDX-License-Identifier: ISC
# claude.sh - the shipped claude profile with the real Claude Code, pinned
# in agent-lib.sh: headless (claude -p) and full-screen in a tmux pane,
# its requests through confine's proxy to its endpoint only (a fake one on
# the host's loopback, over TLS), any other host refused and counted, its
# own settings on the host unchanged whatever it writes, and its changes
# to the workspace's agent files flagged in the report.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
require_userns
. "$TESTS_SRCDIR/agent-lib.sh"
agent_require claude $CLAUDE_PIN
plan 5
fake_start

# A fake API key: the profile passes it as the agent's credential.
KEY=sk-ant-confine-test-0000000000000000
export KEY

# A home where Claude Code has been set up: onboarding done, this key
# approved (by its last 20 characters), the workspace trusted; settings of
# its own, and a login file it may read but not change.
claude_home() {
	home_new
	mkdir -p "$AHOME/.claude"
	cat >"$AHOME/.claude.json" <<-EOF
	{"hasCompletedOnboarding": true, "theme": "dark",
	 "customApiKeyResponses": {"approved": ["$(printf '%s' "$KEY" | tail -c 20)"], "rejected": []},
	 "projects": {"$WS": {"hasTrustDialogAccepted": true,
	   "hasCompletedProjectOnboarding": true}}}
	EOF
	printf '{"env": {"CONFINE_HOST_SETTING": "host"}}\n' >"$AHOME/.claude/settings.json"
	printf '{"claudeAiOauth": {}}\n' >"$AHOME/.claude/.credentials.json"
	chmod 0600 "$AHOME/.claude/.credentials.json"
	HOME_HASH=$(tree_hash "$AHOME")
}

# claude_run URL CONFINE-ARG...: confine -p claude with the model at URL.
claude_run() {
	_url=$1
	shift
	ANTHROPIC_API_KEY=$KEY
	export ANTHROPIC_API_KEY
	run_confine -v -p claude --endpoint "$FAKE_HOST:$FAKE_PORT" \
	    --env ANTHROPIC_BASE_URL="$_url" --env NODE_EXTRA_CA_CERTS="$CA_IN" \
	    --env CLAUDE_CODE_MAX_RETRIES=0 "$@"
}

t_headless() {
	agent_ws
	claude_home
	m=$(prompt_marker)
	claude_run "$FAKE_URL" -- claude -p "say hello ($m)"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" "$REPLY"
	assert_file_has_content "$FAKE_LOG" "^  prompt $m\$"
	assert_file_has_content "$ERR" "^confine: proxy: $FAKE_HOST:$FAKE_PORT\$"
	read_counts
	[ "$CONNS" -ge 1 ] || fail "no connection counted"
	# Nothing else is asked for: no telemetry, no update check.
	assert_eq "$REFUSED" 0 "refusals"
	assert_ws_unchanged
	assert_eq "$(tree_hash "$AHOME")" "$HOME_HASH" "the home directory's hash"
}

t_refused() {
	agent_ws
	claude_home
	before=$(model_calls)
	# Keep the session (a change in the workspace), to read its record.
	claude_run "$OTHER_URL" -- sh -c 'claude -p "say hello"; echo "$?" >agent-status'
	assert_status "$RC" 0
	assert_not_file_has_content "$OUT" "$REPLY"
	assert_eq "$(model_calls)" "$before" "the endpoint's model calls"
	assert_file_has_content "$ERR" \
	    "^confine: proxy: refused 127\\.0\\.0\\.3:$FAKE_PORT: not in the allow-list\$"
	read_counts
	assert_eq "$CONNS" 0 "connections through the proxy"
	[ "$REFUSED" -ge 1 ] || fail "no refusal counted"
	s=$(the_session)
	assert_file_has_content "$s/network" "^  refused 127\\.0\\.0\\.3:$FAKE_PORT: not in the allow-list\$"
	assert_file_has_content "$s/report" "refused"
	# claude's own status, in the session's patch: an error.
	assert_file_has_content "$s/changes.patch" '^\+[1-9][0-9]*$'
	assert_ws_unchanged
}

# What the agent writes to its own configuration: on the host, nothing;
# in the workspace, changes that come back flagged.
t_own_config() {
	agent_ws
	claude_home
	run_confine -p claude -- sh -c '
	    cat ~/.claude/settings.json
	    echo "{\"hooks\": {}}" >~/.claude/settings.json &&
	    echo "{}" >~/.claude.json &&
	    mkdir -p ~/.claude/commands && echo x >~/.claude/commands/x.md &&
	    echo WROTE-HOME
	    echo x 2>/dev/null >~/.claude/.credentials.json || echo CRED-READ-ONLY
	    mkdir -p .claude && echo "{\"hooks\": {}}" >.claude/settings.json &&
	    echo "{\"mcpServers\": {}}" >.mcp.json && echo x >CLAUDE.md'
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^\{"env": \{"CONFINE_HOST_SETTING": "host"\}\}$'
	assert_file_has_content "$OUT" '^WROTE-HOME$'
	assert_file_has_content "$OUT" '^CRED-READ-ONLY$'
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
	send "'$CONFINE' -p claude --endpoint $FAKE_HOST:$FAKE_PORT --env ANTHROPIC_BASE_URL=$FAKE_URL --env NODE_EXTRA_CA_CERTS=$CA_IN -- claude"
	wait_pane 30 "Claude Code v$AGENT_VERSION"
	# Its input line.
	wait_pane 30 '^❯'
	send "say hello ($m)"
	wait_pane 30 "$REPLY"
	assert_file_has_content "$FAKE_LOG" "^  prompt $m\$"
	pane_resize_check
	# Ctrl-C clears the input; twice more, it quits.
	pane_quit C-c C-c
	pane | grep -q -E '^confine: network: [1-9][0-9]* connections? through the proxy' ||
	    fail "no connection through the proxy counted"
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
	run_confine -p claude -- sh -c 'ls -A ~ ~/.local; ~/.local/bin/claude --version'
	assert_status "$RC" 0
	assert_file_has_content "$OUT" "^$AGENT_VERSION \\(Claude Code\\)\$"
	assert_not_file_has_content "$OUT" '^\.(nvm|npm-global)$'
	assert_not_file_has_content "$OUT" '^(lib|share)$'
	assert_eq "$(tree_hash "$AHOME")" "$h" "the home directory's hash"
}

tcase "claude -p: the reply comes back through the proxy, nothing else goes out" t_headless
tcase "claude -p: another host is refused, counted and recorded" t_refused
tcase "claude: its settings on the host stay unchanged; workspace agent files are flagged" t_own_config
tcase "claude: the full-screen interface works in a terminal" t_interactive
tcase "claude: installed in one of the profile's places, it runs; the missing ones are skipped" t_one_install_place
tap_done
