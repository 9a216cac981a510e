#!/bin/sh
# SPDX-License-Identifier: ISC
# gemini.sh - the shipped gemini profile with the real Gemini CLI, pinned
# in agent-lib.sh, its API key injected: a test profile extends it to
# inject for a fake endpoint on the host's loopback (over TLS, its CA
# trusted).  Headless (gemini -p) and full-screen in a tmux pane, the
# endpoint gets the user's key and never the placeholder; nothing inside
# the sandbox holds the key; a CONNECT to the endpoint through confine's
# proxy is refused; its own settings on the host stay unchanged whatever
# it writes, and its changes to the workspace's agent files are flagged
# in the report.
# In a tmux pane, gemini --resume latest resumes the conversation of the last
# confined session.  Through its shell tool (the fake endpoint's scripted
# call): git commit with the user's identity, a server on the sandbox's
# own loopback, confine ls, drop --empty and the defaults per workspace
# after its runs; an MCP server over stdio from the home's settings
# starts and answers, and npx, which needs the network, fails.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
require_userns
. "$TESTS_SRCDIR/agent-lib.sh"
require_node 20 "Gemini CLI"
agent_require gemini $GEMINI_PIN
plan 12
fake_start
inject_profiles gemini gemini

# The user's key, in confine's environment, where the profile's first
# source reads it; a Google login in its file, hidden inside.
KEY=AIza-confine-real-$(unique_num)
LOGIN=ya29.confine-real-login-$(unique_num)
GEMINI_API_KEY=$KEY
export GEMINI_API_KEY

# gemini_home [AUTH]: a home where Gemini CLI is set up: API-key
# authentication (AUTH, when given, is the settings' auth object), one
# attempt per request, no model named (its router's call comes first),
# the workspace trusted (and OTHER_WS, when set); a login file.
gemini_home() {
	_auth='{"selectedType": "gemini-api-key"}'
	[ -z "${1:-}" ] || _auth=$1
	home_new
	mkdir -p "$AHOME/.gemini"
	cat >"$AHOME/.gemini/settings.json" <<-EOF
	{"security": {"auth": $_auth},
	 "general": {"maxAttempts": 1}}
	EOF
	if [ -n "${OTHER_WS:-}" ]; then
		printf '{"%s": "TRUST_FOLDER", "%s": "TRUST_FOLDER"}\n' "$WS" \
		    "$OTHER_WS" >"$AHOME/.gemini/trustedFolders.json"
	else
		printf '{"%s": "TRUST_FOLDER"}\n' "$WS" >"$AHOME/.gemini/trustedFolders.json"
	fi
	printf '{"access_token": "%s", "refresh_token": "r-%s"}\n' "$LOGIN" \
	    "$LOGIN" >"$AHOME/.gemini/oauth_creds.json"
	chmod 0600 "$AHOME/.gemini/oauth_creds.json"
	HOME_HASH=$(tree_hash "$AHOME")
}

t_headless() {
	agent_ws
	gemini_home
	m=$(prompt_marker)
	log_mark
	run_confine -v -p gemini-test -- gemini -p "say hello ($m)"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" "^$REPLY\$"
	assert_file_has_content "$FAKE_LOG" "^  prompt $m\$"
	the_key_only "x-goog-api-key: " "$KEY"
	# The router's call and the reply's, nothing refused.
	assert_file_has_content "$SINCE" '^POST /v1beta/models/[^/]*:generateContent$'
	assert_file_has_content "$SINCE" '^POST /v1beta/models/[^/]*:streamGenerateContent\?alt=sse$'
	assert_file_has_content "$ERR" \
	    "^confine: inference: [1-9][0-9]* requests? to $FAKE_HOST:$FAKE_PORT through the keyholder, 0 refused, 0 failed\$"
	assert_ws_unchanged
	assert_eq "$(tree_hash "$AHOME")" "$HOME_HASH" "the home directory's hash"
}

# Gemini CLI takes its authentication from the settings; without one,
# from the environment, where the base URL confine sets makes it
# "gateway", which Gemini CLI 0.61 refuses ("Invalid auth method
# selected.").  A user whose settings name none (or a Google login) needs
# the profile to select the API key.  No variable of Gemini CLI 0.61 does
# for gemini -p (GEMINI_DEFAULT_AUTH_TYPE only preselects its dialog, in a
# terminal), and it skips a system settings or system defaults file
# (GEMINI_CLI_SYSTEM_SETTINGS_PATH, GEMINI_CLI_SYSTEM_DEFAULTS_PATH) unless
# the file and every directory above it are root's as it sees them: in
# the user namespace of a caller who is not root, no file is.
t_no_auth_type() {
	agent_ws
	gemini_home '{}'
	run_confine -v -p gemini-test -- gemini -p "say hello"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" "^$REPLY\$"
}

# Its environment, every process it can see, its files: no key, where
# outside the key and the login file are found.
t_nothing_inside() {
	agent_ws
	gemini_home
	"$FIND_SECRET" self "$AHOME" "$WS" >"$TEST_TMP/outside"
	assert_file_has_content "$TEST_TMP/outside" "^GEMINI_API_KEY=$KEY\$"
	assert_file_has_content "$TEST_TMP/outside" "$LOGIN"
	run_confine -v -p gemini-test -- sh -c '"$0" all ~ /tmp "$PWD"; env' "$FIND_SECRET"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^PROBE-DONE$'
	assert_not_file_has_content "$OUT" confine-real
	assert_file_has_content "$OUT" "^GEMINI_API_KEY=$PLACEHOLDER\$"
	assert_file_has_content "$OUT" '^GOOGLE_GEMINI_BASE_URL=http://127\.0\.0\.1:3129$'
	assert_not_file_has_content "$OUT" '^GOOGLE_API_KEY='
	assert_eq "$(tree_hash "$AHOME")" "$HOME_HASH" "the home directory's hash"
}

t_connect() {
	agent_ws
	gemini_home
	connect_refused gemini
}

# What the agent writes to its own configuration: on the host, nothing;
# in the workspace, changes that come back flagged.
t_own_config() {
	agent_ws
	gemini_home
	run_confine -p gemini-test -- sh -c '
	    grep -o "gemini-api-key" ~/.gemini/settings.json
	    echo "{\"mcpServers\": {}}" >~/.gemini/settings.json &&
	    mkdir -p ~/.gemini/extensions/x && echo x >~/.gemini/extensions/x/gemini-extension.json &&
	    echo WROTE-HOME
	    echo x 2>/dev/null >~/.gemini/oauth_creds.json || echo CRED-NOT-WRITTEN
	    mkdir -p .gemini && echo "{\"mcpServers\": {}}" >.gemini/settings.json &&
	    echo x >GEMINI.md'
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^gemini-api-key$'
	assert_file_has_content "$OUT" '^WROTE-HOME$'
	assert_file_has_content "$OUT" '^CRED-NOT-WRITTEN$'
	assert_eq "$(tree_hash "$AHOME")" "$HOME_HASH" "the home directory's hash"
	assert_ws_unchanged
	s=$(the_session)
	assert_file_has_content "$s/report" '^  \.gemini/settings\.json: agent instructions or configuration'
	assert_file_has_content "$s/report" '^  GEMINI\.md: agent instructions'
}

t_interactive() {
	agent_ws
	gemini_home
	pane_start "GEMINI_API_KEY=$KEY"
	m=$(prompt_marker)
	log_mark
	send "'$CONFINE' -p gemini-test -- gemini"
	wait_pane 30 'Type your message'
	send "say hello ($m)"
	wait_pane 30 "$REPLY"
	assert_file_has_content "$FAKE_LOG" "^  prompt $m\$"
	pane_resize_check
	# Ctrl-C clears the input; twice more, it quits.
	pane_quit C-c C-c
	pane | grep -q -E "^confine: inference: [1-9][0-9]* requests? to $FAKE_HOST:$FAKE_PORT through the keyholder, 0 refused, 0 failed" ||
	    fail "no inference line"
	the_key_only "x-goog-api-key: " "$KEY"
	assert_eq "$(tree_hash "$AHOME")" "$HOME_HASH" "the home directory's hash"
	assert_ws_unchanged
}

# gemini_tool PROMPT: gemini -p, its shell tool running without asking.
gemini_tool() {
	run_confine -v -p gemini-test -- gemini --yolo -p "$1"
}

# An MCP server of the user's, MCP_COMMAND with MCP_ARGS, in
# ~/.gemini/settings.json.
gemini_mcp() {
	json_set "$AHOME/.gemini/settings.json" mcpServers \
	    "{\"probe\": {\"command\": \"$MCP_COMMAND\", \"args\": $MCP_ARGS}}"
}

t_resume_pane() {
	agent_ws
	gemini_home
	resume_in_pane "GEMINI_API_KEY=$KEY" \
	    "'$CONFINE' -p gemini-test -- gemini" 'Type your message' \
	    "'$CONFINE' -p gemini-test -- gemini --resume latest"
}

t_git_commit() {
	tool_git_commit gemini_home gemini_tool
}

t_local_server() {
	tool_local_server gemini_home gemini_tool
}

t_workspaces() {
	tool_workspaces gemini_home gemini_tool gemini
}

t_npx() {
	mcp_npx gemini_home gemini_tool gemini_mcp gemini-test
	# What gemini -p says of it.
	assert_file_has_content "$MCP_ERR" '^MCP issues detected\. Run /mcp list for status\.$'
}

t_mcp() {
	mcp_stdio gemini_home gemini_tool gemini_mcp
}

tcase "gemini -p: the reply comes back through the keyholder, which put the user's key on it" t_headless
tcase_todo "the gemini profile selects no authentication: Gemini CLI takes the base URL for a gateway, and skips a settings file confine gives it in a user namespace" \
    "gemini -p: works with settings that name no authentication" t_no_auth_type
tcase "gemini: nothing inside holds the key (environment, processes, files)" t_nothing_inside
tcase "gemini: a CONNECT to the injected endpoint through the proxy is refused" t_connect
tcase "gemini: its settings on the host stay unchanged; workspace agent files are flagged" t_own_config
tcase "gemini: the full-screen interface works in a terminal" t_interactive
tcase "gemini: in a terminal, gemini --resume latest resumes the last confined session's conversation" t_resume_pane
tcase "gemini: its git commit, through its shell tool, has the user's name and address" t_git_commit
tcase "gemini: a server on the sandbox's loopback answers its shell tool; the host's does not" t_local_server
tcase "gemini: confine ls, drop --empty, show and diff per workspace after its runs" t_workspaces
tcase "gemini: an MCP server over stdio from its settings in the home starts inside and answers" t_mcp
tcase "gemini: npx without the network fails naming the registry; an MCP server started with it too" t_npx
tap_done
