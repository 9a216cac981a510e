#!/bin/sh
# SPDX-License-Identifier: ISC
# inject.sh - an injected credential ([credential] inject) end to end
# through confine: confine-keyholder started by the supervisor in front of
# a loopback HTTPS provider made here (tests/helpers/tls-upstream.py, which
# records every request), the command in the sandbox holding only the
# keyholder's address and a placeholder.  The agent's own keys never
# reach the provider, the user's does; nothing in the sandbox and no byte
# the session wrote holds it; a CONNECT to the injected endpoint, an
# upload, a server-side tool and a certificate for another name are
# refused and counted; no credential is exit 125 before anything is made;
# the landlock backend refuses injection; the shipped agent profiles
# inject theirs.  Each defence has its positive control: the same attack
# without it works.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
. "$TESTS_SRCDIR/tls-lib.sh"
for t in openssl python3 curl; do
	command -v $t >/dev/null 2>&1 || skip_all "$t is not installed"
done
[ "$BACKEND" = landlock ] || require_userns
plan 21

T=$TEST_TMP
MAX_TIME=$((30 * TEST_TIME_FACTOR))
SECRET=sk-inj-REAL-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')
# What confine puts in the sandbox in place of the credential.
PLACEHOLDER=confine-injects-the-real-credential

tls_certs localhost
tls_upstream up localhost

# The shipped profiles, found by name as after installation.
umask 022
CONFIG=$T/config
mkdir -p "$CONFIG/confine/profiles" &&
    cp "$TESTS_SRCDIR"/../profiles/*.ini "$CONFIG/confine/profiles/" &&
    chmod 0644 "$CONFIG"/confine/profiles/*.ini || {
	echo "Bail out! cannot copy the shipped profiles"
	exit 1
}

# profile FILE [LINE...]: a profile made of LINEs.
profile() {
	_f=$1
	shift
	printf '%s\n' "$@" >"$_f"
	chmod 0644 "$_f"
}

# inject_profile FILE INJECT SOURCE [LINE...]: a profile injecting the
# credential of SOURCE for INJECT (PROVIDER HOST:PORT), with the test CA.
inject_profile() {
	_f=$1 _i=$2 _s=$3
	shift 3
	profile "$_f" '[credential]' "inject = $_i" "ca = $T/ca.pem" \
	    "source = $_s" "$@"
}

# A workspace with the agent's side in it: .t/agent.sh, whose req makes
# one request to the keyholder and prints "CASE STATUS BODY", and the
# request bodies (.t is ignored by git: not a change to review).
MSG='{"model":"claude-test","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}'
inj_ws() {
	ws_new
	printf '%s\n' "$MSG" >"$WS/.t/msg.json"
	printf '%s\n' '{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"x"}],"tools":[{"type":"web_fetch_20250910","name":"web_fetch"}]}' \
	    >"$WS/.t/fetch.json"
	printf '%s\n' '{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"x"}],"mcp_servers":[{"type":"url","url":"https://mcp.example.com/sse","name":"x"}]}' \
	    >"$WS/.t/mcp.json"
	printf '{"file":"x"}\n' >"$WS/.t/upload.json"
	cat >"$WS/.t/agent.sh" <<-'EOF'
	# req CASE PATH BODY [CURL-ARG...]: POST .t/BODY to the keyholder.
	req() {
		_c=$1 _p=$2 _b=$3
		shift 3
		_s=$(curl -s -o /tmp/body.$_c -w '%{http_code}' \
		    -H "x-case: $_c" -H 'content-type: application/json' \
		    --data-binary "@.t/$_b" "$@" "http://127.0.0.1:3129$_p") || :
		printf '%s %s %s\n' "$_c" "$_s" "$(cat /tmp/body.$_c 2>/dev/null)"
	}
	EOF
	WS_HASH=$(tree_hash "$WS")
}

# The provider's record of the case CASE (its x-case header).
up_lines() {
	grep -F "[\"x-case\", \"$1\"]" "$T/up.rec" || :
}

# The exit line: "confine: inference: N request(s) to HOST through the
# keyholder, N refused, N failed".
inference_line() {
	if [ "$2" -eq 1 ]; then _r=request; else _r=requests; fi
	printf 'inference: %s %s to %s through the keyholder, %s refused, %s failed' \
	    "$2" "$_r" "$1" "$3" "$4"
}
assert_inference() {
	_l=$(inference_line "$@" | sed 's/[.]/\\./g')
	assert_file_has_content "$ERR" "^confine: $_l( \\(-v names them\\))?\$"
}

# The report of the session the last run left (one session a case).
report() {
	_s=$(sessions)
	[ -n "$_s" ] || fail "no session left to report on"
	[ "$(printf '%s\n' "$_s" | wc -l)" -eq 1 ] || fail "sessions: $_s"
	"$CONFINE" show "$_s" >"$T/report" 2>"$T/report.err" ||
	    fail "confine show: $(cat "$T/report.err")"
}

# -------------------------------------------------------------- landlock

t_landlock_refused() {
	inj_ws
	inject_profile "$T/p.ini" "anthropic localhost:$UP" \
	    'api-key variable CONFINE_TEST_KEY'
	before=$(wc -l <"$T/up.rec")
	CONFINE_TEST_KEY=$SECRET run_confine -p "$T/p.ini" -- sh -c 'touch ran'
	assert_status "$RC" 125
	assert_refusal "$ERR"
	assert_file_has_content "$ERR" \
	    '^confine: backend landlock .*cannot offer an injected credential \(credential\.inject\)'
	assert_file_has_content "$ERR" '^hint: inject with another backend'
	assert_file_empty "$OUT"
	assert_no_session
	assert_ws_unchanged
	assert_eq "$(wc -l <"$T/up.rec")" "$before" "requests the provider saw"
}

# icase DESCRIPTION FUNCTION [ARG...]: a case of the credential injected
# into a sandbox, which needs the keyholder's listener in a network of the
# sandbox's own: the landlock backend makes none and refuses injection
# (t_landlock_refused checks that).
icase() {
	if [ "$BACKEND" = landlock ]; then
		skip "$1" "the landlock backend refuses an injected credential (no network namespace of its own)"
	else
		tcase "$@"
	fi
}

# ---------------------------------------------------------------- the key

# Positive control: a client's key goes to the provider as it was sent,
# and a name the certificate does not hold is reachable without the check.
t_control() {
	for h in 'x-api-key: ATTACKER-CONTROL' \
	    'Authorization: Bearer ATTACKER-CONTROL'; do
		curl -sS --max-time "$MAX_TIME" --cacert "$T/ca.pem" -H "$h" \
		    -H 'x-case: control' -o /dev/null --data-binary "$MSG" \
		    "https://localhost:$UP/v1/messages?key=ATTACKER-CONTROL" ||
		    fail "curl to the test provider"
	done
	up_lines control >"$T/line"
	assert_eq "$(grep -c 'ATTACKER-CONTROL' "$T/line")" 2 \
	    "requests recorded with the client's key"
	grep -q '"x-api-key", "ATTACKER-CONTROL"' "$T/line" ||
	    fail "no x-api-key recorded: $(cat "$T/line")"
	grep -q '?key=ATTACKER-CONTROL' "$T/line" ||
	    fail "no query recorded: $(cat "$T/line")"
	curl -sS --max-time "$MAX_TIME" -k -H 'x-case: control-name' \
	    -o /dev/null --data-binary "$MSG" \
	    "https://127.0.0.1:$UP/v1/messages" || fail "curl -k to 127.0.0.1"
	[ -n "$(up_lines control-name)" ] ||
	    fail "a request to 127.0.0.1 without the name check was not recorded"
}

t_attacker_keys() {
	inj_ws
	inject_profile "$T/p.ini" "anthropic localhost:$UP" \
	    'api-key variable CONFINE_TEST_KEY'
	CONFINE_TEST_KEY=$SECRET run_confine -p "$T/p.ini" -- sh -c '
	    . .t/agent.sh
	    req k-xapi /v1/messages msg.json -H "x-api-key: ATTACKER-X"
	    req k-bearer /v1/messages msg.json -H "Authorization: Bearer ATTACKER-B"
	    req k-query "/v1/messages?key=ATTACKER-Q&beta=true" msg.json
	    req k-placeholder /v1/messages msg.json \
		-H "x-api-key: $ANTHROPIC_AUTH_TOKEN" \
		-H "Authorization: Bearer $ANTHROPIC_AUTH_TOKEN"'
	assert_status "$RC" 0
	for c in k-xapi k-bearer k-query k-placeholder; do
		assert_file_has_content "$OUT" "^$c 200 "
		up_lines "$c" >"$T/line"
		assert_lines "$T/line" 1
		grep -q "\\[\"x-api-key\", \"$SECRET\"\\]" "$T/line" ||
		    fail "$c: not the user's key upstream: $(cat "$T/line")"
		# One credential, the user's: no other header carries one.
		assert_eq "$(grep -o -i -e '"x-api-key"' -e '"authorization"' \
		    "$T/line" | wc -l)" 1 "$c: credential headers upstream"
		assert_not_file_has_content "$T/line" "ATTACKER|$PLACEHOLDER"
	done
	# The query's key is dropped, the rest of the query kept.
	up_lines k-query | grep -q '"target": "/v1/messages?beta=true"' ||
	    fail "the query upstream: $(up_lines k-query)"
	assert_not_file_has_content "$T/up.rec" "ATTACKER-[XBQ]|$PLACEHOLDER"
	assert_inference "localhost:$UP" 4 0 0
	# The keyholder went with confine.
	! pgrep -f -- "--upstream localhost:$UP" >/dev/null ||
	    fail "a keyholder outlived confine: $(pgrep -a -f -- "--upstream localhost:$UP")"
	assert_not_file_has_content "$OUT" "$SECRET"
	assert_not_file_has_content "$ERR" "$SECRET"
}

# The other providers: their agents' variables, their key's header.
t_providers() {
	inj_ws
	printf '{"model":"gpt-test","messages":[{"role":"user","content":"hi"}]}\n' \
	    >"$WS/.t/chat.json"
	printf '{"contents":[{"parts":[{"text":"hi"}]}]}\n' >"$WS/.t/gen.json"
	inject_profile "$T/o.ini" "openai localhost:$UP" \
	    'api-key variable CONFINE_TEST_KEY'
	CONFINE_TEST_KEY=$SECRET run_confine -p "$T/o.ini" -- sh -c '
	    . .t/agent.sh
	    env | grep "^OPENAI_"
	    req o-chat /v1/chat/completions chat.json \
		-H "Authorization: Bearer $OPENAI_API_KEY" -H "x-api-key: ATTACKER-O"'
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^OPENAI_BASE_URL=http://127\.0\.0\.1:3129/v1$'
	assert_file_has_content "$OUT" "^OPENAI_API_KEY=$PLACEHOLDER\$"
	assert_file_has_content "$OUT" '^o-chat 200 '
	up_lines o-chat >"$T/line"
	assert_lines "$T/line" 1
	grep -q "\\[\"Authorization\", \"Bearer $SECRET\"\\]" "$T/line" ||
	    fail "openai: not the user's key upstream: $(cat "$T/line")"
	assert_not_file_has_content "$T/line" "ATTACKER|$PLACEHOLDER"
	inject_profile "$T/g.ini" "gemini localhost:$UP" \
	    'api-key variable CONFINE_TEST_KEY'
	CONFINE_TEST_KEY=$SECRET run_confine -p "$T/g.ini" -- sh -c '
	    . .t/agent.sh
	    env | grep "^G[EO]"
	    req g-gen "/v1beta/models/gemini-test:generateContent?key=$GEMINI_API_KEY" \
		gen.json -H "x-goog-api-key: ATTACKER-G"'
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^GOOGLE_GEMINI_BASE_URL=http://127\.0\.0\.1:3129$'
	assert_file_has_content "$OUT" "^GEMINI_API_KEY=$PLACEHOLDER\$"
	assert_file_has_content "$OUT" '^g-gen 200 '
	up_lines g-gen >"$T/line"
	assert_lines "$T/line" 1
	grep -q "\\[\"x-goog-api-key\", \"$SECRET\"\\]" "$T/line" ||
	    fail "gemini: not the user's key upstream: $(cat "$T/line")"
	assert_not_file_has_content "$T/line" "ATTACKER|$PLACEHOLDER|key="
}

# ---------------------------------------------------- nothing holds it

# The sandbox's view, dumped for the host to search: the credential file
# named ($1) first, then the environment, every process's environ and
# cmdline, the files of the home, /tmp and the credential file's
# directory (not the whole of /var/tmp, whose size other programs
# decide; its lines could also look like these section marks).  The
# secret is never passed in: a search inside would find its own command
# line.
PROBE='echo "== source"; cat "$1" 2>&1; ls -ln "$1" 2>&1
echo "== source end"
echo "== env"; env
echo "== self"; tr "\0" "\n" </proc/self/environ
for f in /proc/[0-9]*/environ /proc/[0-9]*/cmdline; do
	echo "== $f"; tr "\0" "\n" <"$f" 2>/dev/null
done
echo "== files"
find "$HOME" /tmp -type f -readable -exec cat {} + 2>/dev/null
case $1 in /*/*) find "${1%/*}" -maxdepth 1 -type f -readable \
    -exec cat {} + 2>/dev/null ;; esac
echo "== done"'

# probe PROFILE FILE: run PROBE under PROFILE, with the secret in
# CONFINE_TEST_KEY; its output in $OUT.
probe() {
	CONFINE_TEST_KEY=$SECRET
	export CONFINE_TEST_KEY
	run_confine -p "$1" -- sh -c "$PROBE" probe "$2"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^== done$'
	n=$(grep -c '^== /proc/[0-9]*/environ$' "$OUT")
	[ "$n" -ge 2 ] || fail "the probe read $n processes' environ"
}

# cred_file WHERE: a credential file on the host, for the user alone, in
# CRED: "var", in a directory the sandbox shows read-only (/var/tmp, as
# the rest of /); "ws", untracked in the workspace, which it shows
# writable.
cred_file() {
	case $1 in
	var)	d=$(host_scratch "$(mktemp -d /var/tmp/confine-inject.XXXXXX)") ||
		    fail "mktemp in /var/tmp" ;;
	ws)	d=$WS/keys
		mkdir "$d" ;;
	esac
	# A secret of its own: a file a failed case leaves is not another's.
	FSECRET=sk-inj-FILE-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')
	printf '{"apiKey":"%s"}\n' "$FSECRET" >"$d/cred.json"
	chmod 0600 "$d/cred.json"
	CRED=$d/cred.json
}

t_nothing_inside_var() {
	inj_ws
	inject_profile "$T/p.ini" "anthropic localhost:$UP" \
	    'api-key variable CONFINE_TEST_KEY'
	probe "$T/p.ini" /nonexistent
	assert_file_has_content "$OUT" "^ANTHROPIC_AUTH_TOKEN=$PLACEHOLDER\$"
	assert_file_has_content "$OUT" '^ANTHROPIC_BASE_URL=http://127\.0\.0\.1:3129$'
	assert_not_file_has_content "$OUT" '^CONFINE_TEST_KEY='
	assert_not_file_has_content "$OUT" "$SECRET"
	assert_not_file_has_content "$ERR" "$SECRET"
}

t_raw_var_control() {
	inj_ws
	profile "$T/raw.ini" '[credential]' 'variable = CONFINE_TEST_KEY'
	probe "$T/raw.ini" /nonexistent
	# env, /proc/self/environ and the processes' environ.
	n=$(grep -c "^CONFINE_TEST_KEY=$SECRET\$" "$OUT")
	[ "$n" -ge 3 ] || fail "the raw credential was found $n times"
}

t_nothing_inside_file() {
	inj_ws
	cred_file "$1"
	inject_profile "$T/p.ini" "anthropic localhost:$UP" \
	    "api-key file $CRED apiKey"
	probe "$T/p.ini" "$CRED"
	assert_not_file_has_content "$OUT" "$FSECRET"
	assert_not_file_has_content "$ERR" "$FSECRET"
	# Still there on the host, and what the keyholder read.
	assert_file_has_content "$CRED" "$FSECRET"
	run_confine -p "$T/p.ini" -- sh -c \
	    ". .t/agent.sh; req file-$1 /v1/messages msg.json"
	assert_file_has_content "$OUT" "^file-$1 200 "
	up_lines "file-$1" | grep -q "\"x-api-key\", \"$FSECRET\"" ||
	    fail "the file's key did not go upstream"
	rm -rf "$(dirname "$CRED")"
}

t_raw_file_control() {
	inj_ws
	cred_file "$1"
	if [ "$1" = ws ]; then
		profile "$T/raw.ini" '[profile]' 'description = nothing more'
	else
		profile "$T/raw.ini" '[credential]' "file = $CRED"
	fi
	probe "$T/raw.ini" "$CRED"
	sed -n '1,/^== source end$/p' "$OUT" >"$T/source"
	assert_file_has_content "$T/source" "$FSECRET"
	rm -rf "$(dirname "$CRED")"
}

# ------------------------------------------------------------ the bytes

t_bytes() {
	inj_ws
	mark=confine-inject-mark-$(unique_num)
	# A bearer token the provider refuses for messages: -v logs its 401.
	inject_profile "$T/p.ini" "anthropic localhost:$UP" \
	    'bearer variable CONFINE_TEST_KEY' '[network]' 'mode = proxy'
	echo "$SECRET" >"$T/up.dir/revoked"
	CONFINE_TEST_KEY=$SECRET run_confine -v -p "$T/p.ini" -- sh -c '
	    . .t/agent.sh
	    curl -s -o /dev/null -w "b-ok %{http_code}\n" -H "x-case: b-ok" \
		-H "x-api-key: ATTACKER" http://127.0.0.1:3129/v1/models
	    req b-401 /v1/messages msg.json
	    req b-upload /v1/files upload.json
	    req b-fetch /v1/messages fetch.json
	    curl -s --noproxy "" -x http://127.0.0.1:3128 -p \
		-o /dev/null "https://localhost:'"$UP"'/v1/messages"
	    env >seen-env
	    echo '"$mark"' >marked'
	rm -f "$T/up.dir/revoked"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^b-ok 200$'
	assert_file_has_content "$OUT" '^b-401 401 '
	assert_file_has_content "$ERR" "localhost answered 401 to POST /v1/messages"
	assert_inference "localhost:$UP" 2 2 0
	# The session is kept (a change to review): what it wrote is there.
	[ -n "$(sessions)" ] || fail "no session kept"
	(cd "$WS" && "$CONFINE" show) >"$T/show" 2>&1 || fail "confine show: $(cat "$T/show")"
	(cd "$WS" && "$CONFINE" diff) >"$T/diff" 2>&1 || fail "confine diff: $(cat "$T/diff")"
	# Positive controls: the key was used, and a grep of these bytes
	# finds what the command wrote.
	up_lines b-ok | grep -q "\\[\"Authorization\", \"Bearer $SECRET\"\\]" ||
	    fail "the key was not used: $(up_lines b-ok)"
	grep -r -a -l -F "$mark" "$SESSIONS" >/dev/null ||
	    fail "the grep does not reach the session's files"
	grep -q -F "$mark" "$T/diff" || fail "the diff lacks the change"
	for f in "$OUT" "$ERR" "$T/show" "$T/diff" "$SESSIONS" "$WS"; do
		if grep -r -a -l -F -e "$SECRET" "$f" >"$T/found"; then
			diag_file "$T/found" "holding the credential"
			fail "the credential is in $f"
		fi
	done
}

# ---------------------------------------------------- CONNECT, refusals

t_connect() {
	inj_ws
	inject_profile "$T/p.ini" "anthropic localhost:$UP" \
	    'api-key variable CONFINE_TEST_KEY' '[network]' 'mode = proxy'
	before=$(wc -l <"$T/up.rec")
	CONFINE_TEST_KEY=$SECRET run_confine -v -p "$T/p.ini" -- sh -c '
	    for h in localhost LOCALHOST; do
		curl -s --noproxy "" -x http://127.0.0.1:3128 -p \
		    -H "x-case: connect" -H "x-api-key: ATTACKER" \
		    -o /dev/null -w "connect %{http_connect}\n" \
		    "https://$h:'"$UP"'/v1/messages"
		echo "curl $?"
	    done
	    echo x >changed'
	assert_status "$RC" 0
	assert_eq "$(grep -c '^connect 403$' "$OUT")" 2 "CONNECTs refused with 403"
	assert_not_file_has_content "$OUT" '^curl 0$'
	assert_eq "$(grep -c "^confine: proxy: refused [Ll][Oo][Cc][Aa][Ll][Hh][Oo][Ss][Tt]:$UP: the injected endpoint: through confine's keyholder only\$" "$ERR")" \
	    2 "the refusals -v names"
	assert_file_has_content "$ERR" \
	    '^confine: network: 0 connections through the proxy, 2 refused$'
	assert_eq "$(wc -l <"$T/up.rec")" "$before" "requests the provider saw"
	report
	assert_file_has_content "$T/report" \
	    '^network: 0 connections through the proxy, 2 refused$'
	assert_file_has_content "$T/report" \
	    "^  refused localhost:$UP: the injected endpoint"
}

# Positive control: a CONNECT to the provider, given raw (leg C) and
# nothing injected, reaches it with the agent's own key.  (The proxy takes
# a loopback destination by its address only; the certificate names
# localhost: -k.)
t_connect_control() {
	require_leg_c_caller
	inj_ws
	profile "$T/raw.ini" '[profile]' 'quadrant = online' \
	    '[workspace]' 'private = no' '[network]' 'mode = proxy' \
	    "endpoint = 127.0.0.1:$UP"
	run_confine -p "$T/raw.ini" -- sh -c '
	    curl -s --noproxy "" -x http://127.0.0.1:3128 -p -k \
		-H "x-case: connect-control" -H "x-api-key: ATTACKER-CC" \
		-o /dev/null -w "%{http_code}\n" --data-binary @.t/msg.json \
		"https://127.0.0.1:'"$UP"'/v1/messages"'
	assert_status "$RC" 0
	assert_eq "$(cat "$OUT")" 200 "the status through the tunnel"
	up_lines connect-control | grep -q '"x-api-key", "ATTACKER-CC"' ||
	    fail "the tunnel's request was not recorded with the agent's key"
}

t_refusals() {
	inj_ws
	inject_profile "$T/p.ini" "anthropic localhost:$UP" \
	    'api-key variable CONFINE_TEST_KEY'
	CONFINE_TEST_KEY=$SECRET run_confine -p "$T/p.ini" -- sh -c '
	    . .t/agent.sh
	    req r-ok /v1/messages msg.json
	    req r-upload /v1/files upload.json
	    req r-fetch /v1/messages fetch.json
	    req r-mcp /v1/messages mcp.json
	    echo x >changed'
	assert_status "$RC" 0
	# Positive control: the same keyholder forwards inference.
	assert_file_has_content "$OUT" '^r-ok 200 '
	[ -n "$(up_lines r-ok)" ] || fail "r-ok did not reach the provider"
	for c in r-upload r-fetch r-mcp; do
		grep "^$c " "$OUT" >"$T/line" || fail "no answer to $c"
		assert_file_has_content "$T/line" \
		    "^$c 403 \\{\"type\":\"error\",\"error\":\\{\"type\":\"permission_error\",\"message\":\"confine: [^\"]+\"\\}\\}\$"
		[ -z "$(up_lines "$c")" ] || fail "$c reached the provider"
	done
	assert_file_has_content "$OUT" '^r-upload 403 .*POST /v1/files refused'
	assert_file_has_content "$OUT" '^r-fetch 403 .*web_fetch'
	assert_file_has_content "$OUT" '^r-mcp 403 .*mcp'
	assert_inference "localhost:$UP" 1 3 0
	report
	_l=$(inference_line "localhost:$UP" 1 3 0)
	grep -q -x -F "$_l" "$T/report" || {
		diag_file "$T/report" report
		fail "the report lacks '$_l'"
	}
}

# An agent's run that changed nothing leaves no session, whatever the
# keyholder refused on its way (telemetry, an upload): the exit line
# counts it, no "review:" line.  The control: the request that went
# through did reach the provider.
t_refused_not_kept() {
	inj_ws
	inject_profile "$T/p.ini" "anthropic localhost:$UP" \
	    'api-key variable CONFINE_TEST_KEY'
	CONFINE_TEST_KEY=$SECRET run_confine -p "$T/p.ini" -- sh -c '
	    . .t/agent.sh
	    req n-ok /v1/messages msg.json
	    req n-upload /v1/files upload.json'
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^n-ok 200 '
	[ -n "$(up_lines n-ok)" ] || fail "n-ok did not reach the provider"
	assert_file_has_content "$OUT" '^n-upload 403 '
	assert_inference "localhost:$UP" 1 1 0
	assert_not_file_has_content "$ERR" 'review:'
	assert_no_session
}

# ------------------------------------------------------ another name

t_wrong_name() {
	inj_ws
	inject_profile "$T/p.ini" "anthropic 127.0.0.1:$UP" \
	    'api-key variable CONFINE_TEST_KEY'
	before=$(wc -l <"$T/up.rec")
	CONFINE_TEST_KEY=$SECRET run_confine -p "$T/p.ini" -- sh -c '
	    . .t/agent.sh; req name /v1/messages msg.json'
	assert_status "$RC" 0
	grep '^name ' "$OUT" >"$T/line" || fail "no answer"
	case $(cut -d' ' -f2 "$T/line") in
	2??|000) fail "not an error status: $(cat "$T/line")" ;;
	esac
	assert_eq "$(wc -l <"$T/up.rec")" "$before" "requests the provider saw"
	assert_inference "127.0.0.1:$UP" 0 0 1
	assert_not_file_has_content "$ERR" "$SECRET"
}

# A dead endpoint (nothing listens on its port: the control, a connect
# from the host, is refused too) is no success: the agent gets 502 with
# what failed (the endpoint and the errno), -v names it as it happens and
# the exit line counts it as failed, not as a request through.
t_dead_upstream() {
	inj_ws
	dead=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	st curl -s -o /dev/null "https://127.0.0.1:$dead/"
	[ "$ST" -eq 7 ] || fail "the control: curl to port $dead exits $ST, not 7 (refused)"
	inject_profile "$T/p.ini" "anthropic 127.0.0.1:$dead" \
	    'api-key variable CONFINE_TEST_KEY'
	CONFINE_TEST_KEY=$SECRET run_confine -v -p "$T/p.ini" -- sh -c '
	    . .t/agent.sh; req dead /v1/messages msg.json'
	assert_status "$RC" 0
	grep -qxF "dead 502 confine: cannot connect to the endpoint 127.0.0.1:$dead: Connection refused" "$OUT" ||
	    fail "not 502 with what failed: $(cat "$OUT")"
	grep -qF "keyholder: POST /v1/messages to 127.0.0.1: answered 502: cannot connect to the endpoint 127.0.0.1:$dead: Connection refused" "$ERR" ||
	    fail "-v does not name the failure"
	assert_inference "127.0.0.1:$dead" 0 0 1
	assert_not_file_has_content "$ERR" "$SECRET"
	# Nothing changed: no session kept for a failure either.
	assert_no_session
}

# ---------------------------------------------------- no credential

# The keyholder's one line, and at most confine's hint after it.
assert_no_more_than_a_hint() {
	_n=$(wc -l <"$ERR")
	if [ "$_n" -lt 1 ] || [ "$_n" -gt 2 ] ||
	    ! head -n 1 "$ERR" | grep -q '^confine-keyholder: ' ||
	    { [ "$_n" -eq 2 ] && ! tail -n 1 "$ERR" | grep -q '^hint: '; }; then
		fail "not the keyholder's line and an optional 'hint: ' line"
	fi
}

t_no_source() {
	inj_ws
	inject_profile "$T/p.ini" "anthropic localhost:$UP" \
	    'api-key variable CONFINE_TEST_UNSET_KEY'
	run_confine -p "$T/p.ini" -- sh -c 'echo ran; touch ran'
	assert_status "$RC" 125
	assert_eq "$(head -n 1 "$ERR")" "confine-keyholder: credential: none found (variable CONFINE_TEST_UNSET_KEY: not set)" \
	    "its one line"
	assert_no_more_than_a_hint
	assert_file_empty "$OUT"
	assert_no_session
	assert_ws_unchanged
	# A file that is not there, and an empty variable, named in order.
	inject_profile "$T/p2.ini" "anthropic localhost:$UP" \
	    'api-key variable CONFINE_TEST_EMPTY_KEY' \
	    "source = api-key file $T/absent.json apiKey"
	CONFINE_TEST_EMPTY_KEY= run_confine -p "$T/p2.ini" -- sh -c 'echo ran'
	assert_status "$RC" 125
	assert_no_more_than_a_hint
	assert_file_has_content "$ERR" \
	    "^confine-keyholder: credential: none found \\(variable CONFINE_TEST_EMPTY_KEY: [^;]+; $T/absent\\.json: not found\\)\$"
	assert_file_empty "$OUT"
	assert_no_session
}

# ------------------------------------------------------ the profiles

# shipped NAME PROVIDER HOST: the shipped profile injects its credential.
shipped() {
	ws_new
	XDG_CONFIG_HOME=$CONFIG run_confine -p "$1" --dry-run -- true
	if [ "$BACKEND" = landlock ]; then
		assert_status "$RC" 125
		assert_refusal "$ERR"
		assert_file_has_content "$ERR" \
		    '^confine: backend landlock .*cannot offer an injected credential'
		return 0
	fi
	assert_status "$RC" 0
	assert_file_has_content "$OUT" \
	    "^profile: $1 \\(-p $1, found in $CONFIG/confine/profiles\\)\$"
	assert_file_has_content "$OUT" \
	    "^injected credential: $2 at $(printf '%s' "$3" | sed 's/[.]/\\./g'):443[, ]"
	assert_file_has_content "$OUT" '^rule of two: .*; the rules grant A\+B$'
	assert_file_has_content "$OUT" '^verdict: allowed \(2 of 3 legs\)$'
	assert_not_file_has_content "$OUT" '^ *C: '
}

# On every backend: --backend landlock (or CONFINE_BACKEND) is refused.
t_landlock_explicit() {
	CONFINE_BACKEND=landlock
	t_landlock_refused
}

icase "positive control: the provider records a client's key and query" t_control
icase "the agent's x-api-key, bearer, ?key= and the placeholder: the user's key only upstream" t_attacker_keys
icase "openai and gemini: their agents' variables, the user's key in their header" t_providers
icase "a variable source: not in env, environ, cmdline, home or /tmp inside" t_nothing_inside_var
icase "positive control: the variable passed raw is found by the same probe" t_raw_var_control
icase "a file source: hidden inside, read by the keyholder on the host" \
    t_nothing_inside_file var
icase "positive control: the file shown raw is found by the same probe" \
    t_raw_file_control var
icase "a file source in the workspace: hidden there too" \
    t_nothing_inside_file ws
icase "positive control: the workspace's file is found without injection" \
    t_raw_file_control ws
icase "no byte the session wrote holds the credential (-v, proxy, refusals)" t_bytes
icase "a CONNECT to the injected endpoint is refused, counted, reported" t_connect
icase "positive control: a CONNECT to the provider as a raw endpoint reaches it" t_connect_control
icase "an upload, a server-side fetch and an MCP server: refused, counted, reported" t_refusals
icase "no change but a refusal: no session kept, the refusal counted at exit" t_refused_not_kept
icase "a certificate for another name: an error, nothing sent, one failed" t_wrong_name
icase "a dead endpoint: 502 naming it and the errno, -v logs it, counted as failed" t_dead_upstream
icase "no source holds a credential: 125, one line naming them, nothing made" t_no_source
LL=
[ "$BACKEND" != landlock ] || LL=" (landlock: refused, 125)"
tcase "the shipped claude profile injects anthropic's, A+B only$LL" \
    shipped claude anthropic api.anthropic.com
tcase "the shipped codex profile injects openai's, A+B only$LL" \
    shipped codex openai api.openai.com
tcase "the shipped gemini profile injects gemini's, A+B only$LL" \
    shipped gemini gemini generativelanguage.googleapis.com
tcase "landlock: an injected credential is refused, 125, nothing made" \
    t_landlock_explicit
tap_done
