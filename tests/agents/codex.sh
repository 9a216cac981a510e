#!/bin/sh
# SPDX-License-Identifier: ISC
# codex.sh - the shipped codex profile with the real Codex CLI, pinned in
# agent-lib.sh: headless (codex exec) and full-screen in a tmux pane, its
# requests through confine's proxy to its endpoint only (a fake one on the
# host's loopback, over TLS), any other host refused and counted, its own
# settings on the host unchanged whatever it writes, and its changes to
# the workspace's agent files flagged in the report.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
require_userns
. "$TESTS_SRCDIR/agent-lib.sh"
require_node 16 "Codex CLI 0.171.0"
agent_require codex $CODEX_PIN
plan 4
fake_start

# A fake API key: the profile passes it as the agent's credential.
CODEX_API_KEY=sk-confine-test-0000
export CODEX_API_KEY

# A home where Codex is set up: a model provider at the fake endpoint
# (HTTPS, no WebSocket, no retries), the workspace trusted; a login file
# it may read but not change.
codex_home() {
	home_new
	mkdir -p "$AHOME/.codex"
	cat >"$AHOME/.codex/config.toml" <<-EOF
	model_provider = "fake"
	model = "gpt-fake"
	check_for_update_on_startup = false

	[model_providers.fake]
	name = "fake"
	base_url = "$FAKE_URL/v1"
	env_key = "CODEX_API_KEY"
	wire_api = "responses"
	supports_websockets = false
	request_max_retries = 0
	stream_max_retries = 0

	[projects."$WS"]
	trust_level = "trusted"
	EOF
	printf '{"OPENAI_API_KEY": null}\n' >"$AHOME/.codex/auth.json"
	chmod 0600 "$AHOME/.codex/auth.json"
	HOME_HASH=$(tree_hash "$AHOME")
}

codex_run() {
	run_confine -v -p codex --endpoint "$FAKE_HOST:$FAKE_PORT" \
	    --env CODEX_CA_CERTIFICATE="$CA_IN" "$@"
}

t_headless() {
	agent_ws
	codex_home
	m=$(prompt_marker)
	codex_run -- codex exec "say hello ($m)"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" "^$REPLY\$"
	assert_file_has_content "$FAKE_LOG" "^  prompt $m\$"
	assert_file_has_content "$ERR" "^confine: proxy: $FAKE_HOST:$FAKE_PORT\$"
	read_counts
	[ "$CONNS" -ge 1 ] || fail "no connection counted"
	# What else it asks for (update and plugin checks, analytics) is
	# refused: never the endpoint.
	assert_not_file_has_content "$ERR" "^confine: proxy: refused $FAKE_HOST"
	assert_ws_unchanged
	assert_eq "$(tree_hash "$AHOME")" "$HOME_HASH" "the home directory's hash"
}

t_refused() {
	agent_ws
	codex_home
	before=$(model_calls)
	# Keep the session (a change in the workspace), to read its record.
	# Refused, codex waits for the network to come back, and retries
	# until it is stopped: stop it.
	codex_run -- sh -c 'timeout 10 codex exec \
	    -c model_providers.fake.base_url="\"$0/v1\"" "say hello";
	    echo "$?" >agent-status' "$OTHER_URL"
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
	# codex's own status, in the session's patch: an error.
	assert_file_has_content "$s/changes.patch" '^\+[1-9][0-9]*$'
	assert_ws_unchanged
}

# What the agent writes to its own configuration: on the host, nothing;
# in the workspace, changes that come back flagged.
t_own_config() {
	agent_ws
	codex_home
	run_confine -p codex -- sh -c '
	    grep "^model_provider" ~/.codex/config.toml
	    echo "notify = [\"sh\"]" >>~/.codex/config.toml &&
	    mkdir -p ~/.codex/rules && echo x >~/.codex/rules/x.rules &&
	    echo WROTE-HOME
	    echo x 2>/dev/null >~/.codex/auth.json || echo CRED-READ-ONLY
	    mkdir -p .codex && echo "notify = [\"sh\"]" >.codex/config.toml &&
	    echo x >AGENTS.md'
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^model_provider = "fake"$'
	assert_file_has_content "$OUT" '^WROTE-HOME$'
	assert_file_has_content "$OUT" '^CRED-READ-ONLY$'
	assert_eq "$(tree_hash "$AHOME")" "$HOME_HASH" "the home directory's hash"
	assert_ws_unchanged
	s=$(the_session)
	assert_file_has_content "$s/report" '^  \.codex/config\.toml: agent instructions or configuration'
	assert_file_has_content "$s/report" '^  AGENTS\.md: agent instructions'
}

t_interactive() {
	agent_ws
	codex_home
	pane_start "CODEX_API_KEY=$CODEX_API_KEY"
	m=$(prompt_marker)
	send "'$CONFINE' -p codex --endpoint $FAKE_HOST:$FAKE_PORT --env CODEX_CA_CERTIFICATE=$CA_IN -- codex"
	wait_pane 30 "OpenAI Codex \\(v$AGENT_VERSION\\)"
	# Its input line.
	wait_pane 30 '^›'
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

tcase "codex exec: the reply comes back through the proxy" t_headless
tcase "codex exec: another host is refused, counted and recorded" t_refused
tcase "codex: its settings on the host stay unchanged; workspace agent files are flagged" t_own_config
tcase "codex: the full-screen interface works in a terminal" t_interactive
tap_done
