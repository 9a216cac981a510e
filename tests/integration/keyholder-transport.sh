#!/bin/sh
# SPDX-License-Identifier: ISC
# keyholder-transport.sh - the keyholder's transport (src/keyholder/
# transport.c) against a loopback HTTPS server made here: a CA and
# certificates for "localhost" and "other.test" (openssl), and
# tests/helpers/tls-upstream.py, which records every request it gets.
# tests/helpers/kh-serve runs the transport with a test hook that puts
# "x-api-key: REAL-KEY" in place of the agent's credential and refuses
# "/refuse".  The agent's side is curl or a raw socket (python3).
# Host side only: no sandbox; run once, not per backend.  Time limits are
# bounds against hanging, never speed checks.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
. "$TESTS_SRCDIR/tls-lib.sh"

KH_SERVE=${KH_SERVE:-$TESTS_BUILDDIR/helpers/kh-serve}
[ -x "$KH_SERVE" ] || { echo "Bail out! no $KH_SERVE"; exit 1; }
for t in openssl python3 curl; do
	command -v $t >/dev/null 2>&1 || skip_all "$t is not installed"
done
TAP_PLANNED=29
echo "1..$TAP_PLANNED"
T=$TEST_TMP
MAX_TIME=$((30 * TEST_TIME_FACTOR))

# ---------------------------------------------------------- the servers

tls_certs localhost other.test

# port_of FILE: the port a server printed ("port N"), once it has.
port_of() {
	wait_for 10 grep -q '^port ' "$1" || return 1
	sed -n 's/^port //p' "$1"
}

tls_upstream good localhost
GOOD=$UP
tls_upstream other other.test
OTHER=$UP

# keyholder NAME PORT [CA]: kh-serve in front of localhost:PORT; it
# serves until its standard input (the fifo $T/NAME.in) ends.
keyholder() {
	_n=$1
	shift
	mkfifo "$T/$_n.in"
	"$KH_SERVE" 0 localhost "$@" <"$T/$_n.in" >"$T/$_n.out" \
	    2>"$T/$_n.err" &
	track_pid $!
}
KH_IDLE_SECONDS=$((20 * TEST_TIME_FACTOR)) \
    KH_HEAD_SECONDS=$((20 * TEST_TIME_FACTOR)) keyholder kh "$GOOD" "$T/ca.pem"
keyholder wrongname "$OTHER" "$T/ca.pem"
keyholder noca "$GOOD"
KH_IDLE_SECONDS=2 keyholder stall "$GOOD" "$T/ca.pem"
# The system's store named by the environment: SSL_CERT_FILE naming a
# bundle of one's own (the test CA in it), and SSL_CERT_FILE naming
# OpenSSL's default bundle itself beside SSL_CERT_DIR, a hashed directory
# of one's own holding the test CA (openssl rehash): both are read.
cp "$T/ca.pem" "$T/bundle.pem"
mkdir "$T/hashed" && cp "$T/ca.pem" "$T/hashed/test-ca.pem" &&
    openssl rehash "$T/hashed" 2>/dev/null ||
    { echo "Bail out! openssl rehash failed"; exit 1; }
SYSTEM_BUNDLE=$(openssl version -d | sed -n 's/^OPENSSLDIR: "\(.*\)"$/\1/p')/cert.pem
SSL_CERT_FILE=$T/bundle.pem keyholder envfile "$GOOD"
SSL_CERT_FILE=$SYSTEM_BUNDLE SSL_CERT_DIR=$T/hashed keyholder envdir "$GOOD"
# The fifos' writers: held open here, closed to stop each keyholder.
exec 5>"$T/kh.in" 6>"$T/wrongname.in" 7>"$T/noca.in" 8>"$T/stall.in" \
    3>"$T/envfile.in" 4>"$T/envdir.in"
KH=$(port_of "$T/kh.out") && WRONGNAME=$(port_of "$T/wrongname.out") &&
    NOCA=$(port_of "$T/noca.out") && STALL=$(port_of "$T/stall.out") &&
    ENVFILE=$(port_of "$T/envfile.out") && ENVDIR=$(port_of "$T/envdir.out") ||
    { echo "Bail out! kh-serve did not start"; exit 1; }

# ------------------------------------------------------------- helpers

# get PORT PATH [CURL-ARG...]: the agent's request; status in $T/code,
# body in $T/body, the time it took in $T/time.
get() {
	_p=$1 _path=$2
	shift 2
	curl -sS --max-time "$MAX_TIME" -o "$T/body" \
	    -w '%{http_code}\n%{time_total}\n' "$@" \
	    "http://127.0.0.1:$_p$_path" >"$T/code.time" 2>"$T/curl.err" ||
	    true
	sed -n 1p "$T/code.time" >"$T/code"
	sed -n 2p "$T/code.time" >"$T/time"
}

# raw PORT: send stdin's bytes on one connection, print what comes back
# (until the peer closes, or 10 s of silence).
raw() {
	python3 -c '
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.settimeout(10 * int(sys.argv[2]))
s.sendall(sys.stdin.buffer.read())
out = b""
try:
    while True:
        d = s.recv(65536)
        if not d:
            break
        out += d
except socket.timeout:
    pass
sys.stdout.buffer.write(out)
' "$1" "$TEST_TIME_FACTOR"
}

status_is() {
	assert_eq "$(cat "$T/code")" "$1" "the status"
}

# ---------------------------------------------------------------- cases

t_control() {
	curl -sS --max-time "$MAX_TIME" --cacert "$T/ca.pem" \
	    -H 'x-api-key: ATTACKER-CONTROL' -o /dev/null \
	    "https://localhost:$GOOD/v1/small?control"
	grep -q 'ATTACKER-CONTROL' "$T/good.rec" ||
	    fail "the server does not record the headers it gets"
}
tcase "positive control: the test server records a client's headers" \
    t_control

t_key() {
	get "$KH" /v1/small?key -H 'x-api-key: ATTACKER' \
	    -H 'Authorization: Bearer ATTACKER'
	status_is 200
	grep '/v1/small?key' "$T/good.rec" >"$T/line" ||
	    fail "the request did not reach the server"
	grep -q '\["x-api-key", "REAL-KEY"\]' "$T/line" ||
	    fail "the server did not see x-api-key: REAL-KEY"
	! grep -q ATTACKER "$T/line" || fail "the agent's key went upstream"
	grep -q "\"Host\", \"localhost:$GOOD\"" "$T/line" ||
	    fail "Host is not the upstream's: $(cat "$T/line")"
}
tcase "the agent's key is replaced; Host is the upstream's" t_key

t_ca() {
	get "$KH" /v1/small
	status_is 200
	assert_eq "$(cat "$T/body")" '{"ok":true}' "the body"
}
tcase "with CA_FILE, the test CA is trusted" t_ca

t_chunked_req() {
	head -c 300000 /dev/urandom >"$T/req"
	want=$(sha256sum <"$T/req" | cut -d' ' -f1)
	get "$KH" /v1/sink?chunked -H 'Transfer-Encoding: chunked' \
	    --data-binary @"$T/req"
	status_is 200
	grep -q "\"sha256\": \"$want\"" "$T/body" ||
	    fail "the body did not arrive whole: $(cat "$T/body")"
	grep '/v1/sink?chunked' "$T/good.rec" >"$T/line"
	grep -q '\["Content-Length", "300000"\]' "$T/line" ||
	    fail "no Content-Length of the whole body upstream"
	! grep -qi 'transfer-encoding' "$T/line" ||
	    fail "Transfer-Encoding went upstream"
}
tcase "a chunked request body arrives whole, with its Content-Length" \
    t_chunked_req

t_keepalive() {
	printf 'GET /v1/small?ka1 HTTP/1.1\r\nHost: x\r\n\r\nGET /v1/small?ka2 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' |
	    raw "$KH" >"$T/resp"
	assert_eq "$(grep -o 'HTTP/1.1 200' "$T/resp" | wc -l)" 2 "responses"
	p1=$(grep 'ka1' "$T/good.rec" | sed 's/.*"peer_port": \([0-9]*\).*/\1/')
	p2=$(grep 'ka2' "$T/good.rec" | sed 's/.*"peer_port": \([0-9]*\).*/\1/')
	[ -n "$p1" ] || fail "no first request upstream"
	assert_eq "$p2" "$p1" \
	    "the upstream connection of the second request"
}
tcase "keep-alive: two requests on one connection, one upstream" \
    t_keepalive

t_sse() {
	python3 -c '
import os, socket, sys, time
port, release, factor = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
s = socket.create_connection(("127.0.0.1", port))
s.settimeout(30 * factor)
s.sendall(b"GET /v1/stream HTTP/1.1\r\nHost: x\r\n\r\n")
got = b""
while b"data: first" not in got:
    d = s.recv(65536)
    if not d:
        sys.exit("the stream ended before its first event")
    got += d
if b"data: second" in got or os.path.exists(release):
    sys.exit("the first event came only with the end")
open(release, "w").close()
while not got.endswith(b"0\r\n\r\n"):
    d = s.recv(65536)
    if not d:
        sys.exit("the stream was cut")
    got += d
if b"data: second" not in got:
    sys.exit("no second event")
' "$KH" "$T/good.dir/release" "$TEST_TIME_FACTOR" ||
	    fail "the event stream was held back"
}
tcase "an event stream's first event arrives before the stream ends" t_sse

t_chunked_resp() {
	get "$KH" /v1/chunked
	status_is 200
	assert_eq "$(cat "$T/body")" alphabetagamma "the body"
}
tcase "a chunked response passes through" t_chunked_resp

t_close() {
	get "$KH" /v1/close
	status_is 200
	assert_eq "$(cat "$T/body")" "until-close body" "the body"
}
tcase "a response ended by closing passes through" t_close

t_interim() {
	printf 'GET /v1/interim HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' |
	    raw "$KH" >"$T/resp"
	grep -q '^HTTP/1.1 103 Early Hints' "$T/resp" || fail "no 103"
	grep -q '^HTTP/1.1 200' "$T/resp" || fail "no final response"
	grep -q '{"after":"interim"}' "$T/resp" || fail "no body"
}
tcase "an interim response (103) passes through before the final one" \
    t_interim

t_head() {
	printf 'HEAD /v1/small?head HTTP/1.1\r\nHost: x\r\n\r\nGET /v1/small?afterhead HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' |
	    raw "$KH" >"$T/resp"
	assert_eq "$(grep -o 'HTTP/1.1 200' "$T/resp" | wc -l)" 2 "responses"
	assert_eq "$(grep -o '{"ok":true}' "$T/resp" | wc -l)" 1 "bodies"
}
tcase "HEAD: the length without a body, and the connection goes on" t_head

t_upclose() {
	printf 'GET /v1/upclose HTTP/1.1\r\nHost: x\r\n\r\nGET /v1/small?afterupclose HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' |
	    raw "$KH" >"$T/resp"
	assert_eq "$(grep -o 'HTTP/1.1 200' "$T/resp" | wc -l)" 2 "responses"
	grep -q 'closingHTTP/1.1 200' "$T/resp" || fail "not both bodies"
}
tcase "the provider closing after a framed response keeps the agent's connection" \
    t_upclose

t_big_resp() {
	get "$KH" '/v1/big?mib=20'
	status_is 200
	assert_eq "$(wc -c <"$T/body")" 20971520 "the length"
}
tcase "a 20 MiB response passes through" t_big_resp

t_big_req() {
	head -c 62914560 /dev/zero >"$T/req"
	get "$KH" /v1/sink?big --data-binary @"$T/req" \
	    -H 'Content-Type: application/octet-stream'
	rm -f "$T/req"
	status_is 200
	grep -q '"len": 62914560' "$T/body" ||
	    fail "the body did not arrive whole: $(cat "$T/body")"
}
tcase "a 60 MiB request body passes" t_big_req

t_too_big() {
	printf 'POST /v1/sink?toobig HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n' \
	    $((64 * 1024 * 1024 + 1)) | raw "$KH" >"$T/resp"
	grep -q '^HTTP/1.1 413' "$T/resp" || fail "not 413: $(head -1 "$T/resp")"
	! grep -q toobig "$T/good.rec" || fail "the request went upstream"
}
tcase "a body of KH_BODY_MAX + 1 gets 413" t_too_big

t_too_big_chunked() {
	python3 -c '
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.settimeout(60)
s.sendall(b"POST /v1/sink?toobigc HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
block = b"100000\r\n" + b"z" * 0x100000 + b"\r\n"
try:
    for _ in range(64):
        s.sendall(block)
    s.sendall(b"1\r\nz\r\n0\r\n\r\n")
except OSError:
    pass
out = b""
try:
    while True:
        d = s.recv(65536)
        if not d:
            break
        out += d
except OSError:
    pass
sys.stdout.buffer.write(out)
' "$KH" >"$T/resp"
	grep -q '^HTTP/1.1 413' "$T/resp" || fail "not 413: $(head -1 "$T/resp")"
	! grep -q toobigc "$T/good.rec" || fail "the request went upstream"
}
tcase "a chunked body over KH_BODY_MAX gets 413" t_too_big_chunked

t_big_head() {
	python3 -c 'import sys; sys.stdout.write("GET /v1/small?bighead HTTP/1.1\r\nHost: x\r\nX-Pad: " + "a" * 70000 + "\r\n\r\n")' |
	    raw "$KH" >"$T/resp"
	grep -Eq '^HTTP/1.1 (431|400)' "$T/resp" ||
	    fail "not 431 or 400: $(head -1 "$T/resp")"
	! grep -q bighead "$T/good.rec" || fail "the request went upstream"
}
tcase "a head over KH_HEAD_MAX gets 431" t_big_head

t_cl_te() {
	printf 'POST /v1/sink?clte HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n' |
	    raw "$KH" >"$T/resp"
	grep -q '^HTTP/1.1 400' "$T/resp" || fail "not 400: $(head -1 "$T/resp")"
	! grep -q clte "$T/good.rec" || fail "the request went upstream"
}
tcase "Content-Length with Transfer-Encoding gets 400" t_cl_te

t_malformed() {
	for req in 'GET /v1/small?m1 HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\nx' \
	    'GET /v1/small?m2 HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n\r\n' \
	    'GET /v1/small?m3 HTTP/1.1\r\nHost: x\r\nX-A: a\rb\r\n\r\n' \
	    'GET /v1/small?m4 HTTP/1.1\r\nHost: x\r\nX-A: a\nX-B: b\r\n\r\n' \
	    'GET /v1/small?m5 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n' \
	    'GET http://x/v1/small?m6 HTTP/1.1\r\nHost: x\r\n\r\n' \
	    'GET /v1/small?m7 HTTP/1.1\r\nX-A: a\r\n\r\n'; do
		printf "$req" | raw "$KH" >"$T/resp"
		grep -Eq '^HTTP/1.1 (400|501)' "$T/resp" ||
		    fail "not refused: $req: $(head -1 "$T/resp")"
	done
	! grep -q 'small?m[0-9]' "$T/good.rec" || fail "one went upstream"
}
tcase "duplicate Content-Length, obs-fold, bare CR or LF, other codings, absolute targets, no Host: refused" \
    t_malformed

t_expect() {
	printf 'POST /v1/sink?expect HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello' |
	    raw "$KH" >"$T/resp"
	grep -q '^HTTP/1.1 100 Continue' "$T/resp" || fail "no 100 Continue"
	grep -q '"len": 5' "$T/resp" || fail "no final response"
}
tcase "Expect: 100-continue is answered" t_expect

t_wrong_name() {
	get "$WRONGNAME" /v1/small?wrongname
	status_is 502
	grep -q "certificate failed verification: hostname mismatch" \
	    "$T/body" || fail "no reason: $(cat "$T/body")"
	[ ! -s "$T/other.rec" ] || fail "a request reached the server"
}
tcase "a certificate for another name fails closed with 502" t_wrong_name

t_no_ca() {
	get "$NOCA" /v1/small?noca
	status_is 502
	grep -q "certificate failed verification" "$T/body" ||
	    fail "no reason: $(cat "$T/body")"
	! grep -q noca "$T/good.rec" || fail "the request reached the server"
}
tcase "a CA the keyholder was not given fails closed with 502" t_no_ca

# trusted PORT MARK: a request through the keyholder on PORT reaches the
# server, which the test CA signed.
trusted() {
	get "$1" "/v1/small?$2"
	status_is 200
	grep -q "$2" "$T/good.rec" || fail "the request did not reach the server"
}
tcase "SSL_CERT_FILE naming a bundle of one's own: its CA is trusted" \
    trusted "$ENVFILE" envfile

t_env_dir() {
	[ -e "$SYSTEM_BUNDLE" ] ||
	    skip_case "OpenSSL's default bundle $SYSTEM_BUNDLE is not here"
	trusted "$ENVDIR" envdir
}
tcase "SSL_CERT_FILE naming the default bundle, SSL_CERT_DIR one's own: its CA is trusted" \
    t_env_dir

t_stall() {
	rm -f "$T/good.dir/slow"
	get "$STALL" /v1/slow
	# The server answers only once the test lets it: a 504 before then is
	# the keyholder's idle bound (2 s), whatever the machine's load.
	status_is 504
	grep -q 'did not answer' "$T/body" || fail "no reason: $(cat "$T/body")"
	grep -q '"/v1/slow"' "$T/good.rec" || fail "the request did not reach the upstream"
	# The control: released, the same stall is answered in full.
	: >"$T/good.dir/slow"
	get "$KH" /v1/slow
	status_is 200
	grep -q '"late"' "$T/body" || fail "not the upstream's body: $(cat "$T/body")"
}
tcase "a stalled upstream gives 504 at the idle bound, before it answers" t_stall

t_cut() {
	python3 -c '
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.settimeout(30 * int(sys.argv[2]))
s.sendall(b"GET /v1/stream?release=never HTTP/1.1\r\nHost: x\r\n\r\n")
got = b""
while True:
    d = s.recv(65536)
    if not d:
        break
    got += d
if b"data: first" not in got:
    sys.exit("no first event")
if got.endswith(b"0\r\n\r\n"):
    sys.exit("the stream was not cut")
' "$STALL" "$TEST_TIME_FACTOR" ||
	    fail "a stream gone silent was not cut at the idle bound"
}
tcase "a response silent mid-way is cut at the idle bound" t_cut

t_refuse() {
	get "$KH" /refuse -H 'x-api-key: ATTACKER'
	status_is 403
	grep -q permission_error "$T/body" || fail "not the hook's body"
	! grep -q '"/refuse"' "$T/good.rec" || fail "the request went upstream"
}
tcase "a refused request never reaches the upstream" t_refuse

t_bound() {
	python3 -c '
import socket, sys, time
port, factor = int(sys.argv[1]), int(sys.argv[2])
idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(64)]
time.sleep(1)
s = socket.create_connection(("127.0.0.1", port))
s.sendall(b"GET /v1/small?over HTTP/1.1\r\nHost: x\r\n\r\n")
s.settimeout(2)
try:
    if s.recv(100):
        sys.exit("a 65th connection was served at once")
except socket.timeout:
    pass
idle[0].close()
s.settimeout(30 * factor)
d = s.recv(100)
if not d.startswith(b"HTTP/1.1 200"):
    sys.exit("not served once a slot was free: %r" % d)
' "$KH" "$TEST_TIME_FACTOR" || fail "the bound of 64 connections"
}
tcase "at most 64 connections at once; the next waits for a free one" \
    t_bound

# The end of the keyholders' input (here: tcase is a subshell).
exec 5>&- 6>&- 7>&- 8>&- 3>&- 4>&-
t_stop() {
	wait_for 20 grep -q '^forwarded' "$T/kh.out" ||
	    fail "kh-serve did not stop at its input's end"
	line=$(grep '^forwarded' "$T/kh.out")
	set -- $line
	[ "$2" -ge 10 ] && [ "$4" -ge 1 ] && [ "$8" -ge 5 ] ||
	    fail "counts: $line"
	wait_for 20 grep -q '^forwarded.*failed 2 ' "$T/stall.out" ||
	    fail "the stall not counted: $(cat "$T/stall.out")"
}
tcase "kh-serve stops at its input's end, with its counts" t_stop

t_log() {
	cat "$T"/kh.err "$T"/wrongname.err "$T"/noca.err "$T"/stall.err \
	    >"$T/log"
	grep -q 'keyholder: ' "$T/log" || fail "nothing logged"
	! grep -q 'REAL-KEY' "$T/log" || fail "the key is in the log"
	! grep -q 'ATTACKER' "$T/log" || fail "a header is in the log"
}
tcase "the log never holds the key nor a header" t_log

tap_done
