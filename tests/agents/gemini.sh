#!/bin/sh
# SPDX-License-Identifier: ISC
# gemini.sh - the shipped gemini profile with the real Gemini CLI, pinned
# in agent-lib.sh: headless (gemini -p) and full-screen in a tmux pane,
# its requests through confine's proxy to its endpoint only (a fake one on
# the host's loopback, over TLS), any other host refused and counted, its
# own settings on the host unchanged whatever it writes, and its changes
# to the workspace's agent files flagged in the report.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
require_userns
. "$TESTS_SRCDIR/agent-lib.sh"
require_node 20 "Gemini CLI 0.61.0"
agent_require gemini $GEMINI_PIN
plan 4
fake_start

# A fake API key: the profile passes it as the agent's credential.
GEMINI_API_KEY=confine-test-key
export GEMINI_API_KEY

# A home where Gemini CLI is set up: API-key authentication, a model
# named (no routing call first), one attempt per request, the workspace
# trusted; a login file it may read but not change.
gemini_home() {
	home_new
	mkdir -p "$AHOME/.gemini"
	cat >"$AHOME/.gemini/settings.json" <<-EOF
	{"security": {"auth": {"selectedType": "gemini-api-key"}},
	 "model": {"name": "gemini-2.5-flash"},
	 "general": {"maxAttempts": 1}}
	EOF
	printf '{"%s": "TRUST_FOLDER"}\n' "$WS" >"$AHOME/.gemini/trustedFolders.json"
	printf '{}\n' >"$AHOME/.gemini/oauth_creds.json"
	chmod 0600 "$AHOME/.gemini/oauth_creds.json"
	HOME_HASH=$(tree_hash "$AHOME")
}

# gemini_run URL CONFINE-ARG...: confine -p gemini with the model at URL.
gemini_run() {
	_url=$1
	shift
	run_confine -v -p gemini --endpoint "$FAKE_HOST:$FAKE_PORT" \
	    --env GOOGLE_GEMINI_BASE_URL="$_url" --env NODE_EXTRA_CA_CERTS="$CA_IN" "$@"
}

t_headless() {
	agent_ws
	gemini_home
	m=$(prompt_marker)
	gemini_run "$FAKE_URL" -- gemini -p "say hello ($m)"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" "^$REPLY\$"
	assert_file_has_content "$FAKE_LOG" "^  prompt $m\$"
	assert_file_has_content "$ERR" "^confine: proxy: $FAKE_HOST:$FAKE_PORT\$"
	read_counts
	[ "$CONNS" -ge 1 ] || fail "no connection counted"
	# What else it asks for (usage statistics) is refused: never the
	# endpoint.
	assert_not_file_has_content "$ERR" "^confine: proxy: refused $FAKE_HOST"
	assert_ws_unchanged
	assert_eq "$(tree_hash "$AHOME")" "$HOME_HASH" "the home directory's hash"
}

t_refused() {
	agent_ws
	gemini_home
	before=$(model_calls)
	# Keep the session (a change in the workspace), to read its record.
	gemini_run "$OTHER_URL" -- sh -c 'gemini -p "say hello"; echo "$?" >agent-status'
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
	# gemini's own status, in the session's patch: an error.
	assert_file_has_content "$s/changes.patch" '^\+[1-9][0-9]*$'
	assert_ws_unchanged
}

# What the agent writes to its own configuration: on the host, nothing;
# in the workspace, changes that come back flagged.
t_own_config() {
	agent_ws
	gemini_home
	run_confine -p gemini -- sh -c '
	    grep -o "gemini-api-key" ~/.gemini/settings.json
	    echo "{\"mcpServers\": {}}" >~/.gemini/settings.json &&
	    mkdir -p ~/.gemini/extensions/x && echo x >~/.gemini/extensions/x/gemini-extension.json &&
	    echo WROTE-HOME
	    echo x 2>/dev/null >~/.gemini/oauth_creds.json || echo CRED-READ-ONLY
	    mkdir -p .gemini && echo "{\"mcpServers\": {}}" >.gemini/settings.json &&
	    echo x >GEMINI.md'
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^gemini-api-key$'
	assert_file_has_content "$OUT" '^WROTE-HOME$'
	assert_file_has_content "$OUT" '^CRED-READ-ONLY$'
	assert_eq "$(tree_hash "$AHOME")" "$HOME_HASH" "the home directory's hash"
	assert_ws_unchanged
	s=$(the_session)
	assert_file_has_content "$s/report" '^  \.gemini/settings\.json: agent instructions or configuration'
	assert_file_has_content "$s/report" '^  GEMINI\.md: agent instructions'
}

t_interactive() {
	agent_ws
	gemini_home
	pane_start "GEMINI_API_KEY=$GEMINI_API_KEY"
	m=$(prompt_marker)
	send "'$CONFINE' -p gemini --endpoint $FAKE_HOST:$FAKE_PORT --env GOOGLE_GEMINI_BASE_URL=$FAKE_URL --env NODE_EXTRA_CA_CERTS=$CA_IN -- gemini"
	wait_pane 30 'Type your message'
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

tcase "gemini -p: the reply comes back through the proxy" t_headless
tcase "gemini -p: another host is refused, counted and recorded" t_refused
tcase "gemini: its settings on the host stay unchanged; workspace agent files are flagged" t_own_config
tcase "gemini: the full-screen interface works in a terminal" t_interactive
tap_done
