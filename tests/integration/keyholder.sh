#!/bin/sh
# SPDX-License-Identifier: ISC
# keyholder.sh - confine-keyholder, the whole program, as confine's
# supervisor starts it (tests/helpers/kh-run.py: the listener, the stop
# and stats pipes), in front of a loopback HTTPS server made here
# (tests/helpers/tls-upstream.py, which records every request): the
# user's credential from a variable, a JSON file's field or a command
# replaces the agent's; what is not inference never leaves; the
# credential is in no byte the keyholder prints.  Host side only: no
# sandbox; run once, not per backend.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"

KEYHOLDER=${KEYHOLDER:-$TESTS_BUILDDIR/../src/confine-keyholder}
UPSTREAM=$TESTS_SRCDIR/helpers/tls-upstream.py
KH_RUN=$TESTS_SRCDIR/helpers/kh-run.py
[ -x "$KEYHOLDER" ] || { echo "Bail out! no $KEYHOLDER"; exit 1; }
for t in openssl python3 curl; do
	command -v $t >/dev/null 2>&1 || skip_all "$t is not installed"
done
plan 8
T=$TEST_TMP
MAX_TIME=$((30 * TEST_TIME_FACTOR))
SECRET=sk-ant-REAL-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout "$T/ca.key" -out "$T/ca.pem" -subj /CN=confine-test-ca -days 2 \
    -addext basicConstraints=critical,CA:TRUE \
    -addext keyUsage=critical,keyCertSign 2>/dev/null &&
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout "$T/localhost.key" -out "$T/localhost.csr" -subj /CN=localhost \
    2>/dev/null &&
printf 'subjectAltName=DNS:localhost\n' >"$T/localhost.ext" &&
openssl x509 -req -in "$T/localhost.csr" -CA "$T/ca.pem" -CAkey "$T/ca.key" \
    -CAcreateserial -out "$T/localhost.pem" -days 2 \
    -extfile "$T/localhost.ext" 2>/dev/null ||
    { echo "Bail out! openssl cannot make the test certificates"; exit 1; }

mkdir -p "$T/up.dir"
: >"$T/up.rec"
python3 "$UPSTREAM" "$T/localhost.pem" "$T/localhost.key" "$T/up.rec" \
    "$T/up.dir" >"$T/up.out" 2>"$T/up.err" </dev/null &
track_pid $!
wait_for 10 grep -q '^port ' "$T/up.out" ||
    { echo "Bail out! the TLS server did not start"; exit 1; }
UP=$(sed -n 's/^port //p' "$T/up.out")

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
	# Not dumpable: its /proc files belong to root, and a core limit of 0.
	grep -q '^Max core file size *0 *0' "/proc/$pid/limits" ||
	    fail "core dumps allowed: $(grep core "/proc/$pid/limits")"
	stop dump
}

tcase "positive control: the test server records a client's headers" t_control
tcase "a variable's key replaces the agent's; counted; never printed" t_variable
tcase "a JSON file's field as a bearer token, with the oauth flag" t_file_field
tcase "a command's output as the key" t_command
tcase "an upload and a server-side fetch are refused, never sent" t_refused
tcase "a credential variable not set: 125, saying which" t_missing
tcase "a file's field that is not a string: 125, saying which" t_bad_file
tcase "the keyholder dumps no core" t_not_dumpable
tap_done
