#!/bin/sh
# SPDX-License-Identifier: ISC
# keyholder.sh - confine-keyholder, the whole program, as confine's
# supervisor starts it (tests/helpers/kh-run.py: the control socket, or
# the older listener, stop and stats pipes), in front of a loopback HTTPS
# server made here
# (tests/helpers/tls-upstream.py, which records every request): the
# user's credential from a variable, a JSON file's field or a command
# replaces the agent's; what is not inference never leaves; the
# credential is in no byte the keyholder prints; the sources are tried in
# order, and none found is one line naming each.  Host side only: no
# sandbox; run once, not per backend.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
. "$TESTS_SRCDIR/tls-lib.sh"

KEYHOLDER=${KEYHOLDER:-$TESTS_BUILDDIR/../src/confine-keyholder}
KH_RUN=$TESTS_SRCDIR/helpers/kh-run.py
[ -x "$KEYHOLDER" ] || { echo "Bail out! no $KEYHOLDER"; exit 1; }
for t in openssl python3 curl; do
	command -v $t >/dev/null 2>&1 || skip_all "$t is not installed"
done
plan 16
T=$TEST_TMP
MAX_TIME=$((30 * TEST_TIME_FACTOR))
SECRET=sk-ant-REAL-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')

tls_certs localhost
tls_upstream up localhost

# keyholder NAME ARG...: confine-keyholder for the upstream, until the
# fifo $T/NAME.in is closed (stop NAME); its port in $PORT.
keyholder() {
	_n=$1
	shift
	mkfifo "$T/$_n.in"
	python3 "$KH_RUN" "$KEYHOLDER" --upstream "localhost:$UP" \
	    --ca "$T/ca.pem" "$@" <"$T/$_n.in" >"$T/$_n.out" 2>"$T/$_n.err" &
	track_pid $!
	exec 9>"$T/$_n.in"
	wait_for 10 grep -q '^port ' "$T/$_n.out" || fail "no keyholder: $(cat "$T/$_n.err")"
	PORT=$(sed -n 's/^port //p' "$T/$_n.out")
}
stop() {
	exec 9>&-
	wait_for 30 grep -q '^status ' "$T/$1.out" ||
	    fail "the keyholder did not stop: $(cat "$T/$1.err")"
}

# kh_ctl NAME MODE ARG...: confine-keyholder on a control socket
# (kh-run.py MODE), until the fifo $T/NAME.in is closed (stop NAME); the
# port of the listener it took in $PORT, if it took one.
kh_ctl() {
	_n=$1 _m=$2
	shift 2
	mkfifo "$T/$_n.in"
	python3 "$KH_RUN" "$_m" "$KEYHOLDER" --upstream "localhost:$UP" \
	    --ca "$T/ca.pem" "$@" <"$T/$_n.in" >"$T/$_n.out" 2>"$T/$_n.err" &
	track_pid $!
	exec 9>"$T/$_n.in"
	wait_for 10 grep -q '^\(port\|status\) ' "$T/$_n.out" ||
	    fail "no keyholder: $(cat "$T/$_n.err")"
	PORT=$(sed -n 's/^port //p' "$T/$_n.out")
}

# post PATH BODY [CURL-ARG...]: the agent's request, status in $T/code.
post() {
	_path=$1 _body=$2
	shift 2
	curl -sS --max-time "$MAX_TIME" -o "$T/body" -w '%{http_code}' \
	    -H 'content-type: application/json' --data-binary "$_body" "$@" \
	    "http://127.0.0.1:$PORT$_path" >"$T/code" 2>"$T/curl.err" || :
}

MSG='{"model":"claude-test","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}'

t_control() {
	curl -sS --max-time "$MAX_TIME" --cacert "$T/ca.pem" \
	    -H 'x-api-key: ATTACKER-CONTROL' -o /dev/null \
	    --data-binary "$MSG" "https://localhost:$UP/v1/messages?control" ||
	    fail "curl to the test server"
	grep -q 'ATTACKER-CONTROL' "$T/up.rec" ||
	    fail "the test server does not record the headers it gets"
}

t_variable() {
	CONFINE_TEST_KEY=$SECRET keyholder var --provider anthropic \
	    --kind api-key --variable CONFINE_TEST_KEY
	post /v1/messages "$MSG" -H 'x-case: var' -H 'x-api-key: ATTACKER' \
	    -H 'Authorization: Bearer ATTACKER'
	assert_eq "$(cat "$T/code")" 200 "the status"
	grep '"x-case", "var"' "$T/up.rec" >"$T/line" ||
	    fail "the request did not reach the provider"
	grep -q "\\[\"x-api-key\", \"$SECRET\"\\]" "$T/line" ||
	    fail "the provider did not get the user's key: $(cat "$T/line")"
	! grep -q ATTACKER "$T/line" || fail "the agent's key went upstream"
	stop var
	grep -q '^forwarded=1$' "$T/var.out" || fail "counts: $(cat "$T/var.out")"
	grep -q '^status 0$' "$T/var.out" || fail "status: $(cat "$T/var.out")"
	! grep -q "$SECRET" "$T/var.out" "$T/var.err" ||
	    fail "the key is in the keyholder's output"
}

t_file_field() {
	printf '{"claudeAiOauth":{"accessToken":"%s","refreshToken":"r"}}\n' \
	    "$SECRET" >"$T/cred.json"
	keyholder file --provider anthropic --kind bearer \
	    --file "$T/cred.json" --field claudeAiOauth.accessToken
	post /v1/messages "$MSG" -H 'x-case: file' -H 'x-api-key: ATTACKER'
	assert_eq "$(cat "$T/code")" 200 "the status"
	grep '"x-case", "file"' "$T/up.rec" >"$T/line" ||
	    fail "the request did not reach the provider"
	grep -q "\\[\"Authorization\", \"Bearer $SECRET\"\\]" "$T/line" ||
	    fail "no bearer token upstream: $(cat "$T/line")"
	grep -q 'oauth-2025-04-20' "$T/line" || fail "no oauth beta flag"
	! grep -q ATTACKER "$T/line" || fail "the agent's key went upstream"
	stop file
}

t_command() {
	keyholder cmd --provider anthropic --kind api-key \
	    --command "printf '%s\\n' $SECRET"
	post /v1/messages "$MSG" -H 'x-case: cmd'
	assert_eq "$(cat "$T/code")" 200 "the status"
	grep '"x-case", "cmd"' "$T/up.rec" | grep -q "$SECRET" ||
	    fail "the command's credential did not go upstream"
	stop cmd
}

t_refused() {
	CONFINE_TEST_KEY=$SECRET keyholder ref --provider anthropic \
	    --kind api-key --variable CONFINE_TEST_KEY
	post /v1/files '{}' -H 'x-case: upload'
	assert_eq "$(cat "$T/code")" 403 "a file upload"
	grep -q '"type": *"error"' "$T/body" || fail "not Anthropic's error: $(cat "$T/body")"
	post /v1/messages '{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"x"}],"tools":[{"type":"web_fetch_20250910","name":"web_fetch"}]}' -H 'x-case: fetch'
	assert_eq "$(cat "$T/code")" 403 "a server-side fetch tool"
	grep -q 'web_fetch' "$T/body" || fail "the refusal does not say why: $(cat "$T/body")"
	! grep -q '"x-case", "\(upload\|fetch\)"' "$T/up.rec" ||
	    fail "a refused request reached the provider"
	stop ref
	grep -q '^refused=2$' "$T/ref.out" || fail "counts: $(cat "$T/ref.out")"
}

t_missing() {
	keyholder miss --provider anthropic --kind api-key \
	    --variable CONFINE_TEST_UNSET_KEY
	stop miss
	grep -q '^status 125$' "$T/miss.out" || fail "status: $(cat "$T/miss.out")"
	grep -q 'credential: none found (variable CONFINE_TEST_UNSET_KEY: not set)' \
	    "$T/miss.err" || fail "no reason: $(cat "$T/miss.err")"
}

t_bad_file() {
	printf '{"claudeAiOauth":{"accessToken":42}}\n' >"$T/bad.json"
	keyholder bad --provider anthropic --kind bearer --file "$T/bad.json" \
	    --field claudeAiOauth.accessToken
	stop bad
	grep -q '^status 125$' "$T/bad.out" || fail "status: $(cat "$T/bad.out")"
	grep -q "field 'claudeAiOauth.accessToken' is not a string" \
	    "$T/bad.err" || fail "no reason: $(cat "$T/bad.err")"
}

t_not_dumpable() {
	CONFINE_TEST_KEY=$SECRET keyholder dump --provider anthropic \
	    --kind api-key --variable CONFINE_TEST_KEY
	pid=$(pgrep -f -n -- "--variable CONFINE_TEST_KEY") ||
	    fail "no keyholder process"
	assert_eq "$(awk '/^Name:/ { print $2 }' "/proc/$pid/status")" \
	    confine-keyhold "the process"
	# No core: a core limit of 0.
	grep -q '^Max core file size *0 *0' "/proc/$pid/limits" ||
	    fail "core dumps allowed: $(grep core "/proc/$pid/limits")"
	# The credential's page locked, where the limit allows a page: the
	# kernel counts it (VmLck); a process of ours that locks nothing is
	# the control.
	sleep 3600 &
	ctl=$!
	track_pid $ctl
	assert_eq "$(awk '/^VmLck:/ { print $2 }' "/proc/$ctl/status")" 0 \
	    "the control's locked memory (kB)"
	lim=$(awk '/^Max locked memory/ { print $4 }' "/proc/$pid/limits")
	if [ "$lim" = unlimited ] || [ "$lim" -ge 4096 ]; then
		[ "$(awk '/^VmLck:/ { print $2 }' "/proc/$pid/status")" -gt 0 ] ||
		    fail "nothing locked: $(grep VmLck "/proc/$pid/status")"
	else
		diag "the memlock limit ($lim) holds no page: VmLck not checked"
	fi
	# Not dumpable: its /proc files belong to root, not to the user
	# who started it, as the control's do.  Root owns both anyway: seen
	# by a caller that is not root.
	if [ "$(id -u)" -ne 0 ]; then
		assert_eq "$(stat -c %u "/proc/$ctl/environ")" "$(id -u)" \
		    "the owner of the control's /proc files"
		assert_eq "$(stat -c %u "/proc/$pid/environ")" 0 \
		    "the owner of the keyholder's /proc files"
	else
		diag "as root, the dumpable flag is checked by an unprivileged run"
	fi
	kill "$ctl"
	stop dump
}

t_ctl_serve() {
	CONFINE_TEST_KEY=$SECRET kh_ctl ctl --control --provider anthropic \
	    --kind api-key --variable CONFINE_TEST_KEY -v
	assert_eq "$(head -n 1 "$T/ctl.out")" ready "the first line"
	[ -n "$PORT" ] || fail "no listener: $(cat "$T/ctl.out" "$T/ctl.err")"
	post /v1/messages "$MSG" -H 'x-case: ctl' -H 'x-api-key: ATTACKER'
	assert_eq "$(cat "$T/code")" 200 "the status"
	grep '"x-case", "ctl"' "$T/up.rec" | grep -q "\"x-api-key\", \"$SECRET\"" ||
	    fail "the user's key did not go upstream"
	post /v1/files '{}' -H 'x-case: ctl-upload'
	assert_eq "$(cat "$T/code")" 403 "an upload"
	stop ctl
	for l in forwarded=1 refused=1 failed=0 bad=0 refreshed=0 'status 0'; do
		grep -qx "$l" "$T/ctl.out" || fail "no $l: $(cat "$T/ctl.out")"
	done
	! grep -q "$SECRET" "$T/ctl.out" "$T/ctl.err" ||
	    fail "the key is in the keyholder's output"
}

t_ctl_none() {
	printf '{"OPENAI_API_KEY":null,"tokens":{"id_token":"x"}}\n' \
	    >"$T/codex-auth.json"
	kh_ctl none --control --provider openai --variable CONFINE_TEST_UNSET_KEY \
	    --file "$T/absent.json" --field OPENAI_API_KEY \
	    --file "$T/codex-auth.json" --field OPENAI_API_KEY
	stop none
	assert_eq "$(cat "$T/none.out")" "$(printf 'no ready\nstatus 1')" \
	    "what the keyholder told confine"
	assert_eq "$(cat "$T/none.err")" "confine-keyholder: credential: none found (variable CONFINE_TEST_UNSET_KEY: not set; $T/absent.json: not found; $T/codex-auth.json: field 'OPENAI_API_KEY' is null (a ChatGPT login: not injected, use an API key))" \
	    "its one line"
}

t_ctl_eof() {
	CONFINE_TEST_KEY=$SECRET kh_ctl eof --control-eof --provider anthropic \
	    --variable CONFINE_TEST_KEY
	stop eof
	assert_eq "$(cat "$T/eof.out")" "$(printf 'ready\nstatus 0')" \
	    "ready, then a quiet exit"
	assert_file_empty "$T/eof.err"
}

t_ctl_unlistening() {
	CONFINE_TEST_KEY=$SECRET kh_ctl unl --control-unlistening \
	    --provider anthropic --variable CONFINE_TEST_KEY
	stop unl
	grep -q '^status 125$' "$T/unl.out" || fail "status: $(cat "$T/unl.out")"
	grep -q 'not a listening stream socket' "$T/unl.err" ||
	    fail "no reason: $(cat "$T/unl.err")"
}

t_order() {
	printf '{"k":"%s"}\n' "$SECRET" >"$T/order.json"
	kh_ctl order --control --provider anthropic --kind api-key \
	    --variable CONFINE_TEST_UNSET_KEY --kind bearer \
	    --file "$T/order.json" --field k --command 'exit 3'
	post /v1/messages "$MSG" -H 'x-case: order'
	assert_eq "$(cat "$T/code")" 200 "the status"
	grep '"x-case", "order"' "$T/up.rec" >"$T/line" ||
	    fail "the request did not reach the provider"
	grep -q "\[\"Authorization\", \"Bearer $SECRET\"\]" "$T/line" ||
	    fail "not the file's token as a bearer: $(cat "$T/line")"
	stop order
	grep -q '^status 0$' "$T/order.out" || fail "status: $(cat "$T/order.out")"
}

t_bad_first() {
	printf '{"k": "two words"}\n' >"$T/blank.json"
	CONFINE_TEST_KEY=$SECRET kh_ctl badf --control --provider anthropic \
	    --file "$T/blank.json" --field k --variable CONFINE_TEST_KEY
	stop badf
	grep -q '^no ready$' "$T/badf.out" || fail "it served: $(cat "$T/badf.out")"
	grep -q '^status 1$' "$T/badf.out" || fail "status: $(cat "$T/badf.out")"
	assert_eq "$(cat "$T/badf.err")" "confine-keyholder: credential: $T/blank.json: holds a character a header cannot carry (byte 4)" "its one line"
}

t_not_json() {
	printf '{"k": \n' >"$T/broken.json"
	kh_ctl nj --control --provider anthropic --file "$T/broken.json" \
	    --field k
	stop nj
	grep -q '^status 1$' "$T/nj.out" || fail "status: $(cat "$T/nj.out")"
	grep -q "credential: $T/broken.json: not JSON" "$T/nj.err" ||
	    fail "no reason: $(cat "$T/nj.err")"
}

t_upstream_401() {
	echo "$SECRET" >"$T/up.dir/revoked"
	CONFINE_TEST_KEY=$SECRET kh_ctl u401 --control --provider anthropic \
	    --kind bearer --variable CONFINE_TEST_KEY -v
	post /v1/messages "$MSG" -H 'x-case: u401'
	rm "$T/up.dir/revoked"
	assert_eq "$(cat "$T/code")" 401 "the provider's status"
	grep -q authentication_error "$T/body" ||
	    fail "not the provider's answer: $(cat "$T/body")"
	assert_eq "$(grep -c '"x-case", "u401"' "$T/up.rec")" 1 \
	    "requests upstream (a bearer token is not renewed)"
	stop u401
	grep -q "localhost answered 401 to POST /v1/messages" "$T/u401.err" ||
	    fail "-v does not log it: $(cat "$T/u401.err")"
	! grep -q "$SECRET" "$T/u401.out" "$T/u401.err" ||
	    fail "the key is in the keyholder's output"
}

tcase "positive control: the test server records a client's headers" t_control
tcase "a variable's key replaces the agent's; counted; never printed" t_variable
tcase "a JSON file's field as a bearer token, with the oauth flag" t_file_field
tcase "a command's output as the key" t_command
tcase "an upload and a server-side fetch are refused, never sent" t_refused
tcase "a credential variable not set: 125, saying which" t_missing
tcase "a file's field that is not a string: 125, saying which" t_bad_file
tcase "the keyholder dumps no core, is not dumpable, keeps its key locked" t_not_dumpable
tcase "control socket: ready, the listener, requests, counts at EOF" t_ctl_serve
tcase "control socket: no credential: one line naming each source, exit 1" t_ctl_none
tcase "control socket: EOF before the listener: a quiet exit 0" t_ctl_eof
tcase "control socket: a socket that is not listening is refused" t_ctl_unlistening
tcase "sources in order: an unset one passed over, its kind the file's" t_order
tcase "a bad source ends the search, a good one after it unread" t_bad_first
tcase "a file that is not JSON: one line, exit 1" t_not_json
tcase "a provider's 401 goes to the agent, logged with -v" t_upstream_401
tap_done
