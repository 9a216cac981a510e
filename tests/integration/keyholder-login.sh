#!/bin/sh
# SPDX-License-Identifier: ISC
# keyholder-login.sh - confine-keyholder with Claude's claude.ai login
# (--kind login): a login that has come due is renewed at the token
# endpoint before it is used, and once after a 401, and its new tokens go
# back to the file (every other key kept, mode 0600); one that is valid is
# left alone; a renewal that fails with the token expired is one line and
# no "ready"; no token is in any byte the keyholder prints.  The provider
# and the token endpoint are one loopback HTTPS server made here
# (tests/helpers/tls-upstream.py), the keyholder is started on its control
# socket (tests/helpers/kh-run.py --control).  Host side only: no sandbox.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
. "$TESTS_SRCDIR/tls-lib.sh"

KEYHOLDER=${KEYHOLDER:-$TESTS_BUILDDIR/../src/confine-keyholder}
KH_RUN=$TESTS_SRCDIR/helpers/kh-run.py
[ -x "$KEYHOLDER" ] || { echo "Bail out! no $KEYHOLDER"; exit 1; }
for t in openssl python3 curl; do
	command -v $t >/dev/null 2>&1 || skip_all "$t is not installed"
done
plan 11
T=$TEST_TMP
MAX_TIME=$((30 * TEST_TIME_FACTOR))
RAND=$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')

tls_certs localhost
tls_upstream up localhost

now_ms() {
	echo $(($(date +%s) * 1000))
}

# login NAME EXPIRES_MS: a login file $T/NAME/.credentials.json (mode
# 0600) with this case's tokens, AT-NAME-... and RT-NAME-..., and keys
# of its own beside them.
login() {
	mkdir -p "$T/$1"
	AT=AT-$1-$RAND RT=RT-$1-$RAND
	printf '{"claudeAiOauth":{"accessToken":"%s","refreshToken":"%s","expiresAt":%s,"scopes":["user:inference","user:profile"],"subscriptionType":"max"},"mcpOAuth":{"keep":"me"}}\n' \
	    "$AT" "$RT" "$2" >"$T/$1/.credentials.json"
	chmod 600 "$T/$1/.credentials.json"
}

# kh NAME [MODE]: the keyholder on NAME's login, on its control socket
# (kh-run.py MODE, --control at first), until the fifo $T/NAME.in is
# closed (stop NAME); its listener's port in $PORT, if it took one.
kh() {
	_n=$1
	mkfifo "$T/$_n.in"
	python3 "$KH_RUN" "${2:---control}" "$KEYHOLDER" --provider anthropic \
	    --upstream "localhost:$UP" --ca "$T/ca.pem" -v \
	    --variable CONFINE_TEST_UNSET_KEY --kind login \
	    --file "$T/$_n/.credentials.json" --field claudeAiOauth \
	    --refresh "localhost:$UP" <"$T/$_n.in" >"$T/$_n.out" \
	    2>"$T/$_n.err" &
	track_pid $!
	exec 9>"$T/$_n.in"
	wait_for 10 grep -q '^\(port\|status\) ' "$T/$_n.out" ||
	    fail "no keyholder: $(cat "$T/$_n.err")"
	PORT=$(sed -n 's/^port //p' "$T/$_n.out")
}
stop() {
	exec 9>&-
	wait_for 30 grep -q '^status ' "$T/$1.out" ||
	    fail "the keyholder did not stop: $(cat "$T/$1.err")"
}

MSG='{"model":"claude-test","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}'

# post CASE: the agent's request, with a key of its own; status in
# $T/code.
post() {
	curl -sS --max-time "$MAX_TIME" -o "$T/body" -w '%{http_code}' \
	    -H 'content-type: application/json' -H "x-case: $1" \
	    -H 'x-api-key: ATTACKER' --data-binary "$MSG" \
	    "http://127.0.0.1:$PORT/v1/messages" >"$T/code" 2>"$T/curl.err" || :
}

# no_token NAME TOKEN...: none of the tokens in what NAME's keyholder
# printed.
no_token() {
	_n=$1
	shift
	for _t in "$@"; do
		! grep -q -- "$_t" "$T/$_n.out" "$T/$_n.err" ||
		    fail "a token is in the keyholder's output: $_t"
	done
}

# The refresh requests that spent refresh token $1.
refreshes() {
	grep '"target": "/v1/oauth/token"' "$T/up.rec" | grep -c -- "$1" || :
}

# The Authorization headers of the requests of case $1, in order.
bearers() {
	grep "\"x-case\", \"$1\"" "$T/up.rec" |
	    sed 's/.*"Authorization", "Bearer \([^"]*\)".*/\1/'
}

t_control() {
	curl -sS --max-time "$MAX_TIME" --cacert "$T/ca.pem" -o "$T/ctl.json" \
	    --data-binary '{"grant_type":"refresh_token","refresh_token":"RT-CONTROL"}' \
	    "https://localhost:$UP/v1/oauth/token" || fail "curl to the token endpoint"
	grep -q '"access_token": "AT-NEW-' "$T/ctl.json" ||
	    fail "no new token: $(cat "$T/ctl.json")"
	assert_eq "$(refreshes RT-CONTROL)" 1 "the refresh token recorded"
	echo AT-REVOKED >"$T/up.dir/revoked"
	code=$(curl -sS --max-time "$MAX_TIME" --cacert "$T/ca.pem" -o /dev/null \
	    -w '%{http_code}' -H 'Authorization: Bearer AT-REVOKED' \
	    --data-binary "$MSG" "https://localhost:$UP/v1/messages")
	rm "$T/up.dir/revoked"
	assert_eq "$code" 401 "a revoked token's status"
}

t_expired() {
	login exp $(($(now_ms) - 60000))
	old_at=$AT old_rt=$RT
	kh exp
	grep -q '^ready$' "$T/exp.out" || fail "not ready: $(cat "$T/exp.err")"
	assert_eq "$(refreshes "$old_rt")" 1 "refreshes with the old refresh token"
	grep '"/v1/oauth/token"' "$T/up.rec" | grep "$old_rt" |
	    grep -q '"body": "{\\"grant_type\\": *\\"refresh_token\\", *\\"refresh_token\\": *\\"'"$old_rt"'\\", *\\"client_id\\": *\\"9d1c250a-e61b-44d9-88ed-5944d1962f5e\\"}"' ||
	    fail "not a refresh request: $(grep "$old_rt" "$T/up.rec")"
	post exp
	assert_eq "$(cat "$T/code")" 200 "the status"
	new_at=$(bearers exp)
	case $new_at in
	AT-NEW-*) ;;
	*) fail "the provider got $new_at, not the new token" ;;
	esac
	new_rt=RT-NEW-${new_at#AT-NEW-}
	python3 - "$T/exp/.credentials.json" "$new_at" "$new_rt" <<'PY' ||
import json, sys, time
d = json.load(open(sys.argv[1]))
o = d["claudeAiOauth"]
assert o["accessToken"] == sys.argv[2], o["accessToken"]
assert o["refreshToken"] == sys.argv[3], o["refreshToken"]
assert o["expiresAt"] > time.time() * 1000 + 3000 * 1000, o["expiresAt"]
assert o["scopes"] == ["user:inference", "user:profile"], o
assert o["subscriptionType"] == "max", o
assert d["mcpOAuth"] == {"keep": "me"}, d
PY
	    fail "the file: $(cat "$T/exp/.credentials.json")"
	assert_eq "$(stat -c %a "$T/exp/.credentials.json")" 600 "its mode"
	[ "$(ls -A "$T/exp")" = .credentials.json ] ||
	    fail "files left beside it: $(ls -A "$T/exp")"
	stop exp
	grep -qx refreshed=1 "$T/exp.out" || fail "counts: $(cat "$T/exp.out")"
	grep -qx 'status 0' "$T/exp.out" || fail "status: $(cat "$T/exp.out")"
	no_token exp "$old_at" "$old_rt" "$new_at" "$new_rt"
}

t_valid() {
	login val $(($(now_ms) + 7200000))
	cp "$T/val/.credentials.json" "$T/val.before"
	kh val
	post val
	assert_eq "$(cat "$T/code")" 200 "the status"
	assert_eq "$(bearers val)" "$AT" "the token the provider got"
	assert_eq "$(refreshes "$RT")" 0 "refreshes"
	stop val
	grep -qx refreshed=0 "$T/val.out" || fail "counts: $(cat "$T/val.out")"
	cmp -s "$T/val.before" "$T/val/.credentials.json" ||
	    fail "the file changed"
	no_token val "$AT" "$RT"
}

t_unauthorized() {
	login un $(($(now_ms) + 7200000))
	echo "$AT" >"$T/up.dir/revoked"
	kh un
	post un
	rm "$T/up.dir/revoked"
	assert_eq "$(cat "$T/code")" 200 "the status (the request sent again)"
	bearers un >"$T/un.bearers"
	assert_eq "$(sed -n 1p "$T/un.bearers")" "$AT" "the first token"
	case $(sed -n 2p "$T/un.bearers") in
	AT-NEW-*) ;;
	*) fail "the second request: $(cat "$T/un.bearers")" ;;
	esac
	assert_eq "$(wc -l <"$T/un.bearers")" 2 "requests upstream"
	assert_eq "$(refreshes "$RT")" 1 "refreshes"
	stop un
	grep -qx refreshed=1 "$T/un.out" || fail "counts: $(cat "$T/un.out")"
	grep -qx forwarded=1 "$T/un.out" || fail "counts: $(cat "$T/un.out")"
	no_token un "$AT" "$RT" "$(sed -n 2p "$T/un.bearers")"
}

t_refresh_fails() {
	login fail $(($(now_ms) - 60000))
	: >"$T/up.dir/token-fail"
	kh fail
	stop fail
	rm "$T/up.dir/token-fail"
	assert_eq "$(cat "$T/fail.out")" "$(printf 'no ready\nstatus 1')" \
	    "what the keyholder told confine"
	assert_eq "$(cat "$T/fail.err")" "confine-keyholder: credential: $T/fail/.credentials.json: the login has expired and cannot be renewed: the token endpoint answered 400 (invalid_grant)" \
	    "its one line"
	no_token fail "$AT" "$RT"
}

t_malformed() {
	login mal $(($(now_ms) - 60000))
	: >"$T/up.dir/token-malformed"
	kh mal
	stop mal
	rm "$T/up.dir/token-malformed"
	grep -qx 'status 1' "$T/mal.out" || fail "status: $(cat "$T/mal.out")"
	grep -q "renewed: the token endpoint's answer is not a JSON object$" \
	    "$T/mal.err" || fail "no reason: $(cat "$T/mal.err")"
	assert_eq "$(wc -l <"$T/mal.err")" 1 "lines on stderr"
	no_token mal "$AT" "$RT"
}

t_no_access() {
	mkdir -p "$T/noat"
	printf '{"claudeAiOauth":{"refreshToken":"RT-noat"}}\n' \
	    >"$T/noat/.credentials.json"
	kh noat
	stop noat
	grep -qx 'status 1' "$T/noat.out" || fail "status: $(cat "$T/noat.out")"
	assert_eq "$(cat "$T/noat.err")" "confine-keyholder: credential: none found (variable CONFINE_TEST_UNSET_KEY: not set; $T/noat/.credentials.json: field 'claudeAiOauth' holds no accessToken (not logged in))" \
	    "its one line"
}

t_symlink() {
	login real $(($(now_ms) + 7200000))
	mkdir -p "$T/link"
	ln -s "$T/real/.credentials.json" "$T/link/.credentials.json"
	kh link
	stop link
	grep -qx 'status 1' "$T/link.out" || fail "status: $(cat "$T/link.out")"
	grep -q "link/.credentials.json: a symbolic link" "$T/link.err" ||
	    fail "no reason: $(cat "$T/link.err")"
}

t_due_failing() {
	login due $(($(now_ms) + 120000))
	: >"$T/up.dir/token-fail"
	kh due
	grep -q '^ready$' "$T/due.out" || fail "not ready: $(cat "$T/due.err")"
	grep -q 'cannot renew the login yet: the token endpoint answered 400 (invalid_grant)' \
	    "$T/due.err" || fail "not logged: $(cat "$T/due.err")"
	post due
	rm "$T/up.dir/token-fail"
	assert_eq "$(cat "$T/code")" 200 "the status"
	assert_eq "$(bearers due)" "$AT" "the token still valid, used"
	stop due
	grep -qx refreshed=0 "$T/due.out" || fail "counts: $(cat "$T/due.out")"
	no_token due "$AT" "$RT"
}

t_host_renewed() {
	login host $(($(now_ms) + 7200000))
	old_at=$AT old_rt=$RT
	echo "$AT" >"$T/up.dir/revoked"
	kh host
	# The host's Claude Code renews the login meanwhile.
	sed "s/$AT/AT-host2-$RAND/; s/$RT/RT-host2-$RAND/" \
	    "$T/host/.credentials.json" >"$T/host.new"
	mv "$T/host.new" "$T/host/.credentials.json"
	post host
	rm "$T/up.dir/revoked"
	assert_eq "$(cat "$T/code")" 200 "the status"
	assert_eq "$(bearers host | tr '\n' ' ')" "$old_at AT-host2-$RAND " \
	    "the tokens the provider got"
	assert_eq "$(refreshes "RT-host")" 0 "refreshes"
	stop host
	no_token host "$old_at" "$old_rt" "AT-host2-$RAND" "RT-host2-$RAND"
}

t_store_fails() {
	login sf $(($(now_ms) + 7200000))
	echo "$AT" >"$T/up.dir/revoked"
	kh sf
	mv "$T/sf/.credentials.json" "$T/sf.real"
	ln -s "$T/sf.real" "$T/sf/.credentials.json"
	cp "$T/sf.real" "$T/sf.before"
	post sf
	rm "$T/up.dir/revoked"
	assert_eq "$(cat "$T/code")" 200 "the status"
	case $(bearers sf | sed -n 2p) in
	AT-NEW-*) ;;
	*) fail "not the new token: $(bearers sf)" ;;
	esac
	assert_eq "$(refreshes "$RT")" 1 "refreshes"
	cmp -s "$T/sf.before" "$T/sf.real" || fail "written through the link"
	[ -L "$T/sf/.credentials.json" ] || fail "the link was replaced"
	stop sf
	grep -q "the renewed login is not saved: $T/sf/.credentials.json: a symbolic link" \
	    "$T/sf.err" || fail "not logged: $(cat "$T/sf.err")"
	grep -qx refreshed=1 "$T/sf.out" || fail "counts: $(cat "$T/sf.out")"
	no_token sf "$AT" "$RT" "$(bearers sf | sed -n 2p)"
}

tcase "positive control: the token endpoint and a revoked token" t_control
tcase "an expired login renewed at start; the file rewritten, keys kept" t_expired
tcase "a valid login left alone" t_valid
tcase "a 401: one renewal, the request sent again with the new token" t_unauthorized
tcase "a renewal refused, the login expired: one line, no ready" t_refresh_fails
tcase "a token endpoint's answer that is not JSON: one line" t_malformed
tcase "a login object without accessToken: said so, not injected" t_no_access
tcase "a login file that is a symbolic link is not followed" t_symlink
tcase "a login due, its renewal refused: served while still valid" t_due_failing
tcase "a login the host renewed meanwhile: its tokens taken" t_host_renewed
tcase "a write-back that fails: logged, the new token used" t_store_fails
tap_done
