#!/bin/sh
# SPDX-License-Identifier: ISC
# network.sh - the three network modes (escape catalogue 4.7 and 4.8):
# "none" lets nothing leave (TCP, UDP, DNS; only lo), while servers and
# clients inside work on the sandbox's own loopback (TCP and UDP, 127.0.0.1
# and ::1; not on the landlock backend, which has no network namespace);
# "proxy" lets out only the CONNECT tunnels its allow-list names, refuses
# what a client can forge (names that resolve to the host, malformed
# requests) and counts what it did; "host" shares the host's network but
# still no host unix socket, pathname or abstract.  Servers are the test's
# own, on the host's loopback: no internet is needed.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
require_userns
command -v python3 >/dev/null 2>&1 || skip_all "no python3 for the servers and probes"
command -v curl >/dev/null 2>&1 || skip_all "no curl"
plan 38

. "$TESTS_SRCDIR/net-lib.sh"

BODY=confine-proxy-body-$(unique_num)
mkdir "$TEST_TMP/www"
printf '%s\n' "$BODY" >"$TEST_TMP/www/index.html"
HTTP_PORT=$(start_server http http "$TEST_TMP/www") &&
HTTP2_PORT=$(start_server http2 http "$TEST_TMP/www") &&
UDP_LOG=$TEST_TMP/udp.log &&
UDP_PORT=$(start_server udp udp "$UDP_LOG") &&
RELAY_TOTAL=268435456 &&
RELAY_PORT=$(start_server relay relay "$RELAY_TOTAL") || {
	echo "Bail out! cannot start the loopback servers"
	cat "$TEST_TMP/server.err" 2>/dev/null | sed 's/^/# /'
	exit 1
}

ONLINE=$TEST_TMP/online.ini
printf '[profile]\nquadrant = online\n[workspace]\nprivate = no\n' >"$ONLINE"

# curl through the sandbox's proxy (curl honours NO_PROXY for 127.0.0.1:
# --noproxy '' undoes it; -p forces a CONNECT tunnel even for http://).
PCURL="curl -sS --max-time 10 --noproxy '' -x http://127.0.0.1:3128 -p"

# A workspace with the probe in it (the landlock backend runs the command
# in the session's copy of it).
net_ws() {
	ws_new
	cp "$NETPROBE" "$WS/.t/netprobe.py"
	P_IN=$WS/.t/netprobe.py
	[ "$BACKEND" != landlock ] || P_IN=./.t/netprobe.py
	WS_HASH=$(tree_hash "$WS")
}

# Under landlock, network none has no socket family but AF_UNIX (seccomp:
# EAFNOSUPPORT), and below Landlock ABI 9 no AF_UNIX socket either
# (EACCES), in every network mode.
UNIX_REFUSED=
if [ "$BACKEND" = landlock ] && [ -x "$TRY_SYSCALL" ] &&
    [ "$(landlock_abi)" -lt 9 ]; then
	UNIX_REFUSED=EACCES
fi

# The exit line: "confine: network: N connection(s) through the proxy, M refused".
assert_counts() {
	if [ "$1" -eq 1 ]; then _c=connection; else _c=connections; fi
	assert_file_has_content "$ERR" \
	    "^confine: network: $1 $_c through the proxy, $2 refused( \\(-v names them\\))?\$"
}

# ---------------------------------------------------------------- none

# The host's listener, reached from the host (the control), is not there
# inside: natively and with bwrap 127.0.0.1 is the sandbox's own loopback,
# where nothing listens on that port (ECONNREFUSED); the landlock backend
# has no network namespace, and no socket family but AF_UNIX.
t_none_tcp() {
	net_ws
	st python3 "$NETPROBE" tcp 127.0.0.1 "$HTTP_PORT" >/dev/null
	assert_status "$ST" 0
	run_confine -- python3 "$P_IN" tcp 127.0.0.1 "$HTTP_PORT"
	assert_status "$RC" 1
	if [ "$BACKEND" = landlock ]; then
		assert_eq "$(cat "$OUT")" "refused EAFNOSUPPORT" "the probe"
	else
		assert_eq "$(cat "$OUT")" "refused ECONNREFUSED" "the probe"
	fi
}

# A local HTTP server inside (python3 -m http.server, as a test suite or
# an MCP server over HTTP would start one) answers curl inside, on the
# very port the host's server listens on: what answers is the sandbox's,
# never the host's (the control: the host's answers on the host).  The
# script waits for the server's "Serving HTTP" line or its exit, never
# for a time.  On landlock the server cannot make its socket.
t_none_local_http() {
	net_ws
	n=$(unique_num)
	mkdir "$WS/.t/www"
	printf 'inside-%s\n' "$n" >"$WS/.t/www/index.html"
	st curl -sS --noproxy '*' "http://127.0.0.1:$HTTP_PORT/index.html" \
	    >"$TEST_TMP/control"
	assert_status "$ST" 0
	assert_eq "$(cat "$TEST_TMP/control")" "$BODY" "control: the host's server"
	run_confine -- sh -c '
	    t=${TMPDIR:-/tmp}
	    (python3 -u -m http.server --bind 127.0.0.1 --directory .t/www "$1" \
		>"$t/server.out" 2>"$t/server.err"; echo "exited $?" >>"$t/server.out") &
	    until grep -q "^Serving HTTP\|^exited" "$t/server.out" 2>/dev/null; do
		sleep 0.1
	    done
	    if grep -q "^exited" "$t/server.out"; then
		echo "the server did not start:"; cat "$t/server.err"; exit 1
	    fi
	    curl -sS --noproxy "*" "http://127.0.0.1:$1/index.html"' sh "$HTTP_PORT"
	if [ "$BACKEND" = landlock ]; then
		assert_status "$RC" 1
		assert_file_has_content "$OUT" '^the server did not start:$'
		assert_file_has_content "$OUT" 'Address family not supported by protocol'
	else
		assert_status "$RC" 0
		assert_eq "$(cat "$OUT")" "inside-$n" "what curl got inside"
	fi
	assert_not_file_has_content "$OUT" "$BODY"
}

# echo_case KIND MODE-ARG...: a server and a client of the probe's own,
# inside, over KIND (tcp, udp) on 127.0.0.1 and on ::1 where the
# sandbox's lo has it.
echo_case() {
	_kind=$1
	shift
	net_ws
	run_confine "$@" -- sh -c '
	    printf "v4 "; python3 "$1" "echo-$2" 127.0.0.1
	    if grep -q "^0\{31\}1 .* lo$" /proc/net/if_inet6 2>/dev/null ||
		[ "$3" = landlock ]; then
		printf "v6 "; python3 "$1" "echo-$2" ::1
	    else
		echo "v6 absent"
	    fi
	    true' sh "$P_IN" "$_kind" "$BACKEND"
	assert_status "$RC" 0
	if [ "$BACKEND" = landlock ]; then
		printf 'v4 refused EAFNOSUPPORT (socket)\nv6 refused EAFNOSUPPORT (socket)\n' \
		    >"$TEST_TMP/want"
	elif grep -q '^v6 absent$' "$OUT"; then
		diag "the sandbox's lo has no ::1 (IPv6 off): 127.0.0.1 only"
		printf 'v4 echoed\nv6 absent\n' >"$TEST_TMP/want"
	else
		printf 'v4 echoed\nv6 echoed\n' >"$TEST_TMP/want"
	fi
	cmp -s "$OUT" "$TEST_TMP/want" || {
		diag_file "$OUT" "inside"
		fail "not what a $_kind server and client inside should get"
	}
}

t_none_echo_tcp() {
	echo_case tcp
}

t_none_echo_udp() {
	echo_case udp
}

t_none_udp() {
	net_ws
	n=$(unique_num)
	python3 "$NETPROBE" udp 127.0.0.1 "$UDP_PORT" "control-$n" >/dev/null
	wait_for 5 grep -q "^control-$n\$" "$UDP_LOG" ||
	    fail "control: the host's UDP listener got nothing from outside"
	run_confine -- python3 "$P_IN" udp 127.0.0.1 "$UDP_PORT" "inside-$n"
	if [ "$BACKEND" = landlock ]; then
		assert_status "$RC" 1
		assert_eq "$(cat "$OUT")" "refused EAFNOSUPPORT" "the probe"
	fi
	sleep 0.5
	assert_not_file_has_content "$UDP_LOG" "^inside-$n\$"
}

t_none_dns() {
	net_ws
	# No name is resolved, and no packet reaches the host's resolver
	# address (no route: ENETUNREACH, escape catalogue X1/X2).
	ns=$(sed -n 's/^nameserver[[:space:]]*\([0-9.]*\)$/\1/p' /etc/resolv.conf |
	    head -n 1)
	[ -n "$ns" ] || ns=192.0.2.1
	run_confine -- sh -c "getent hosts example.com && echo RESOLVED;
	    python3 '$P_IN' udp '$ns' 53 confine-dns-probe"
	assert_not_file_has_content "$OUT" RESOLVED
	if [ "$BACKEND" = landlock ]; then
		assert_file_has_content "$OUT" '^refused EAFNOSUPPORT$'
	else
		assert_file_has_content "$OUT" '^refused (ENETUNREACH|EACCES|EPERM)$'
	fi
}

t_none_links() {
	net_ws
	run_confine -- sh -c 'ip -o link show | sed "s/^[0-9]*: \([^:@]*\).*/\1/"'
	assert_status "$RC" 0
	if [ "$BACKEND" = landlock ]; then
		# No network namespace, and no netlink socket to list the host's.
		assert_file_empty "$OUT"
		assert_file_has_content "$ERR" '^Cannot open netlink socket: Address family not supported'
	else
		assert_eq "$(cat "$OUT")" lo "the interfaces inside"
	fi
}

# --------------------------------------------------------------- proxy

t_proxy_allowed() {
	require_leg_c_caller
	net_ws
	run_confine -v -p "$ONLINE" --allow "127.0.0.1:$HTTP_PORT" -- sh -c \
	    "$PCURL -w '%{http_code}\n' http://127.0.0.1:$HTTP_PORT/index.html"
	assert_status "$RC" 0
	printf '%s\n200\n' "$BODY" >"$TEST_TMP/want"
	cmp -s "$OUT" "$TEST_TMP/want" || fail "not the body and 200"
	assert_file_has_content "$ERR" "^confine: proxy: 127\\.0\\.0\\.1:$HTTP_PORT\$"
	assert_counts 1 0
}

# The variables alone route curl: --noproxy '' only lifts NO_PROXY's
# loopback exception (the test's server is on the host's loopback).
t_proxy_env_route() {
	require_leg_c_caller
	net_ws
	run_confine -v -p "$ONLINE" --allow "127.0.0.1:$HTTP_PORT" -- sh -c \
	    "curl -sS --max-time 10 --noproxy '' -p -w '%{http_code}\n' http://127.0.0.1:$HTTP_PORT/index.html"
	assert_status "$RC" 0
	printf '%s\n200\n' "$BODY" >"$TEST_TMP/want"
	cmp -s "$OUT" "$TEST_TMP/want" || fail "not the body and 200"
	assert_file_has_content "$ERR" "^confine: proxy: 127\\.0\\.0\\.1:$HTTP_PORT\$"
}

t_proxy_env() {
	require_leg_c_caller
	net_ws
	run_confine -p "$ONLINE" --allow "127.0.0.1:$HTTP_PORT" -- sh -c \
	    'for v in HTTPS_PROXY https_proxy HTTP_PROXY http_proxy ALL_PROXY all_proxy NO_PROXY no_proxy; do
		eval "echo $v=\${$v-unset}"; done'
	assert_status "$RC" 0
	cat >"$TEST_TMP/want" <<-'EOF'
	HTTPS_PROXY=http://127.0.0.1:3128
	https_proxy=http://127.0.0.1:3128
	HTTP_PROXY=http://127.0.0.1:3128
	http_proxy=http://127.0.0.1:3128
	ALL_PROXY=http://127.0.0.1:3128
	all_proxy=http://127.0.0.1:3128
	NO_PROXY=localhost,127.0.0.1,::1
	no_proxy=localhost,127.0.0.1,::1
	EOF
	cmp -s "$OUT" "$TEST_TMP/want" || fail "the proxy variables"
}

t_proxy_other_port() {
	require_leg_c_caller
	net_ws
	# Control: the second server answers on the host.
	st curl -sS -o /dev/null --noproxy '*' "http://127.0.0.1:$HTTP2_PORT/"
	assert_status "$ST" 0
	run_confine -v -p "$ONLINE" --allow "127.0.0.1:$HTTP_PORT" -- sh -c \
	    "$PCURL -w '%{http_code}\n' http://127.0.0.1:$HTTP2_PORT/ 2>&1"
	assert_ne "$RC" 0 "curl's status"
	assert_file_has_content "$OUT" '^000$'
	assert_file_has_content "$OUT" 'CONNECT.*403'
	assert_not_file_has_content "$OUT" "$BODY"
	assert_file_has_content "$ERR" \
	    "^confine: proxy: refused 127\\.0\\.0\\.1:$HTTP2_PORT: not in the allow-list\$"
	assert_counts 0 1
}

# localhost is not 127.0.0.1 to the allow-list ...
t_proxy_localhost_unlisted() {
	require_leg_c_caller
	net_ws
	run_confine -v -p "$ONLINE" --allow "127.0.0.1:$HTTP_PORT" -- sh -c \
	    "$PCURL -w '%{http_code}\n' http://localhost:$HTTP_PORT/ 2>&1"
	assert_ne "$RC" 0 "curl's status"
	assert_file_has_content "$OUT" 'CONNECT.*403'
	assert_not_file_has_content "$OUT" "$BODY"
	assert_file_has_content "$ERR" "^confine: proxy: refused localhost:$HTTP_PORT: "
}

# ... and a name that resolves to the host is refused even when listed.
t_proxy_localhost_listed() {
	require_leg_c_caller
	net_ws
	run_confine -v -p "$ONLINE" --allow "localhost:$HTTP_PORT" -- sh -c \
	    "$PCURL -w '%{http_code}\n' http://localhost:$HTTP_PORT/ 2>&1"
	assert_ne "$RC" 0 "curl's status"
	assert_file_has_content "$OUT" 'CONNECT.*403'
	assert_not_file_has_content "$OUT" "$BODY"
	assert_file_has_content "$ERR" \
	    "^confine: proxy: refused localhost:$HTTP_PORT: it resolves to an address of this host"
	assert_counts 0 1
}

# ... and so is a listed name that resolves to another address of the
# host (its LAN or bridge address, where host services listen), while the
# address itself, listed, is reached: the control, one run for both.  The
# name: root gives the supervisor an /etc/hosts of the case's own in a
# mount namespace.
t_proxy_host_address() {
	# The allow-list is leg C, which a root caller is refused: the names
	# go in from a user namespace of the caller's own.
	require_leg_c_caller
	command -v unshare >/dev/null 2>&1 || skip_case "no unshare(1)"
	command -v ip >/dev/null 2>&1 || skip_case "no ip(8)"
	unshare -Urm true 2>/dev/null ||
	    skip_case "unshare -Urm (a user namespace of the caller's own) does not work here"
	! bwrap_setuid ||
	    skip_case "a setuid bwrap is not setuid in a user namespace of the caller's"
	LAN=$(ip -4 -o addr show scope global |
	    awk '{ sub("/.*", "", $4); print $4; exit }')
	[ -n "$LAN" ] || skip_case "no global IPv4 address on this host"
	LAN_PORT=$(start_server lan http-on "$LAN" "$TEST_TMP/www") ||
	    fail "cannot start a server on $LAN"
	{ cat /etc/hosts; printf '%s hostaddr.test\n' "$LAN"; } \
	    >"$TEST_TMP/hosts"
	# As root of a user namespace of the caller's own, bind the names
	# over /etc/hosts (mount(8) wants a real root: the system call), then
	# be the caller again in a user namespace below it, and run confine.
	cat >"$TEST_TMP/hosts.py" <<'EOF'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
def check(r, what):
    if r != 0:
        sys.exit(what + ": " + os.strerror(ctypes.get_errno()))
hosts, uid, gid = sys.argv[1:4]
check(libc.mount(hosts.encode(), b"/etc/hosts", None, 4096, None), "mount")
check(libc.unshare(0x10000000), "unshare")
for f, v in (("setgroups", "deny"), ("uid_map", uid + " 0 1"),
             ("gid_map", gid + " 0 1")):
    with open("/proc/self/" + f, "w") as o:
        o.write(v)
os.execv(sys.argv[4], sys.argv[4:])
EOF
	cat >"$TEST_TMP/confine-hosts" <<EOF
#!/bin/sh
exec unshare -Urm python3 "$TEST_TMP/hosts.py" "$TEST_TMP/hosts" \
    "$(id -u)" "$(id -g)" "$CONFINE" "\$@"
EOF
	chmod +x "$TEST_TMP/confine-hosts"
	CONFINE=$TEST_TMP/confine-hosts
	net_ws
	run_confine -v -p "$ONLINE" --allow "$LAN:$LAN_PORT" \
	    --allow "hostaddr.test:$LAN_PORT" -- sh -c \
	    "$PCURL http://$LAN:$LAN_PORT/; echo literal=\$?;
	     $PCURL http://hostaddr.test:$LAN_PORT/ 2>&1; echo name=\$?"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" "^$BODY\$"
	assert_file_has_content "$OUT" '^literal=0$'
	assert_file_has_content "$OUT" 'CONNECT.*403'
	assert_not_file_has_content "$OUT" '^name=0$'
	assert_file_has_content "$ERR" \
	    "^confine: proxy: refused hostaddr.test:$LAN_PORT: it resolves to an address of this host"
	assert_counts 1 1
}

t_proxy_noproxy_direct() {
	require_leg_c_caller
	net_ws
	run_confine -p "$ONLINE" --allow "127.0.0.1:$HTTP_PORT" -- sh -c \
	    "curl -sS --max-time 10 --noproxy '*' -w '%{http_code}\n' http://127.0.0.1:$HTTP_PORT/ 2>&1"
	assert_ne "$RC" 0 "curl's status"
	assert_file_has_content "$OUT" '^000$'
	assert_not_file_has_content "$OUT" "$BODY"
}

# The loopback in proxy mode is the sandbox's own too: the proxy's port
# connects, the host's server's port and the others are refused by the
# namespace (nothing listens there: ECONNREFUSED), and a server and a
# client inside work beside the proxy.  The proxy's port stays the
# proxy's: its listener is made before the command runs, so the command
# cannot bind it (EADDRINUSE), while another port binds (the control).
t_proxy_loopback() {
	net_ws
	run_confine -n proxy -- sh -c "
	    for p in $HTTP_PORT 80 443 3129 22; do
		printf '%s ' \$p; python3 '$P_IN' tcp 127.0.0.1 \$p
	    done
	    printf 'proxy '; python3 '$P_IN' tcp 127.0.0.1 3128
	    printf 'echo '; python3 '$P_IN' echo-tcp 127.0.0.1
	    printf 'echo '; python3 '$P_IN' echo-udp 127.0.0.1
	    printf 'bind 3128 '; python3 '$P_IN' bind 127.0.0.1 3128
	    printf 'bind any 3128 '; python3 '$P_IN' bind 0.0.0.0 3128
	    printf 'bind 3127 '; python3 '$P_IN' bind 127.0.0.1 3127"
	assert_status "$RC" 0
	for p in "$HTTP_PORT" 80 443 3129 22; do
		assert_file_has_content "$OUT" "^$p refused ECONNREFUSED\$"
	done
	assert_file_has_content "$OUT" '^proxy connected$'
	assert_eq "$(grep -c '^echo echoed$' "$OUT")" 2 "TCP and UDP inside"
	assert_file_has_content "$OUT" '^bind 3128 refused EADDRINUSE$'
	assert_file_has_content "$OUT" '^bind any 3128 refused EADDRINUSE$'
	assert_file_has_content "$OUT" '^bind 3127 bound$'
}

# raw_case WHY HEX [RULE]: one raw request to the proxy gets 403 and is
# named on stderr with WHY.
raw_case() {
	require_leg_c_caller
	net_ws
	_rule=${3:-127.0.0.1:$HTTP_PORT}
	run_confine -v -p "$ONLINE" --allow "127.0.0.1:$HTTP_PORT" \
	    --allow "$_rule" -- python3 "$P_IN" raw 127.0.0.1 3128 "$2"
	assert_status "$RC" 0
	assert_eq "$(cat "$OUT")" "HTTP/1.1 403 Forbidden" "the proxy's answer"
	assert_file_has_content "$ERR" "^confine: proxy: refused $1"
	assert_counts 0 1
}

hex() {
	printf '%s' "$1" | od -An -v -tx1 | tr -d ' \n'
}

t_raw_get() {
	raw_case '\(unparsed request\): not a CONNECT request' \
	    "$(hex "GET http://127.0.0.1:$HTTP_PORT/ HTTP/1.1
Host: 127.0.0.1:$HTTP_PORT

")"
}

t_raw_nul() {
	raw_case '\(unparsed request\): a NUL byte' \
	    "$(hex "CONNECT 127.0.0.1")00$(hex ".evil.example:$HTTP_PORT HTTP/1.1

")"
}

t_raw_trailing_dot() {
	raw_case '\(unparsed request\): a trailing dot' \
	    "$(hex "CONNECT example.com.:80 HTTP/1.1

")" example.com:80
}

t_raw_two_ports() {
	raw_case '\(unparsed request\): the destination is not host:port' \
	    "$(hex "CONNECT a.com:80:81 HTTP/1.1

")" a.com
}

t_raw_plus_port() {
	raw_case '\(unparsed request\): the port is not 1 to 65535' \
	    "$(hex "CONNECT a.com:+80 HTTP/1.1

")" a.com
}

t_raw_big_head() {
	pad=$(head -c 9216 /dev/zero | tr '\0' a)
	raw_case '\(request\): a request head over 8 KiB' \
	    "$(hex "CONNECT 127.0.0.1:$HTTP_PORT HTTP/1.1
X-Pad: $pad

")"
}

# The name is lower-cased before the allow-list sees it: the rule for
# example.com matches EXAMPLE.COM, which is then tunnelled where the host
# resolves it, or fails upstream (502) where it does not: never refused.
t_raw_upper_case() {
	require_leg_c_caller
	net_ws
	run_confine -v -p "$ONLINE" --allow example.com:80 -- \
	    python3 "$P_IN" raw 127.0.0.1 3128 "$(hex "CONNECT EXAMPLE.COM:80 HTTP/1.1

")"
	assert_status "$RC" 0
	case $(cat "$OUT") in
	"HTTP/1.1 200 Connection established"|"HTTP/1.1 502 Bad Gateway") ;;
	*) fail "the proxy's answer: $(cat "$OUT")" ;;
	esac
	assert_file_has_content "$ERR" '^confine: proxy: (failed )?example\.com:80'
	assert_not_file_has_content "$ERR" 'proxy: refused'
	assert_not_file_has_content "$ERR" EXAMPLE
}

# A raw endpoint is leg C (a tunnel carries any key and any request): the
# sealed default refuses it, and the hint names injection.  The control:
# the same destination with --allow in the online quadrant is reached.
t_endpoint_leg_c() {
	net_ws
	run_confine -v -n proxy --endpoint "127.0.0.1:$HTTP_PORT" -- sh -c \
	    "$PCURL -w '%{http_code}\n' http://127.0.0.1:$HTTP_PORT/index.html"
	assert_status "$RC" 125
	assert_file_empty "$OUT"
	assert_file_has_content "$ERR" "leg C is granted by network\.endpoint = 127\.0\.0\.1:$HTTP_PORT  \\(option --endpoint\\)"
	assert_file_has_content "$ERR" '^hint: a raw endpoint carries whatever the agent sends: inject the credential instead'
	assert_no_session
	[ "$(id -u)" -ne 0 ] || return 0
	[ "$BACKEND" != landlock ] || return 0
	run_confine -p "$ONLINE" --allow "127.0.0.1:$HTTP_PORT" -- sh -c \
	    "$PCURL -w '%{http_code}\n' http://127.0.0.1:$HTTP_PORT/index.html"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^200$'
}

# An allowed destination where nothing listens: 502 with what failed
# (the name, the address, the error) for the agent, a -v line, and its
# own count at exit, apart from the refusals.  The control: the port is
# dead from the host too.
t_proxy_upstream_failure() {
	require_leg_c_caller
	net_ws
	dead=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	st python3 "$NETPROBE" tcp 127.0.0.1 "$dead" >/dev/null
	[ "$ST" -ne 0 ] || fail "the control: something listens on $dead"
	req=$(printf 'CONNECT 127.0.0.1:%s HTTP/1.1\r\n\r\n' "$dead" |
	    od -An -tx1 | tr -d ' \n')
	run_confine -v -p "$ONLINE" --allow "127.0.0.1:$dead" -- \
	    python3 "$P_IN" raw-all 127.0.0.1 3128 "$req"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^HTTP/1\.1 502 Bad Gateway$'
	assert_file_has_content "$OUT" \
	    "^confine: proxy: 127\\.0\\.0\\.1:$dead: connect to 127\\.0\\.0\\.1:$dead: Connection refused\$"
	assert_file_has_content "$ERR" \
	    "^confine: proxy: failed 127\\.0\\.0\\.1:$dead: connect to 127\\.0\\.0\\.1:$dead: Connection refused\$"
	assert_file_has_content "$ERR" \
	    '^confine: network: 0 connections through the proxy, 0 refused, 1 upstream failure$'
	assert_not_file_has_content "$ERR" "^confine: proxy: 127\\.0\\.0\\.1:$dead\$"
}

# An allowed name with two addresses, the first where nothing listens:
# the proxy tries the second, and the tunnel works through it (-vv logs
# the first attempt's refusal, which shows the order); a name whose two
# addresses both refuse gets 502 naming the last one tried and its error.
# The addresses: a network namespace of the case's own (a user namespace
# of the caller's own above it), where 10.31.0.0/24 is local by a route
# (no interface has them: they are not this host's to the proxy), an
# /etc/hosts of its own, and a server on 10.31.0.2 only.  The control:
# the first address refuses there too, before confine runs.
t_proxy_next_address() {
	require_leg_c_caller
	command -v unshare >/dev/null 2>&1 || skip_case "no unshare(1)"
	command -v ip >/dev/null 2>&1 || skip_case "no ip(8)"
	unshare -Urnm true 2>/dev/null ||
	    skip_case "unshare -Urnm (a user namespace of the caller's own) does not work here"
	! bwrap_setuid ||
	    skip_case "a setuid bwrap is not setuid in a user namespace of the caller's"
	port=8080
	{ cat /etc/hosts
	  printf '10.31.0.1 two.test\n10.31.0.2 two.test\n'
	  printf '10.31.0.1 dead.test\n10.31.0.3 dead.test\n'
	} >"$TEST_TMP/hosts"
	cat >"$TEST_TMP/netns.py" <<'EOF'
import ctypes, os, socket, subprocess, sys
libc = ctypes.CDLL(None, use_errno=True)
def check(r, what):
    if r != 0:
        sys.exit(what + ": " + os.strerror(ctypes.get_errno()))
hosts, uid, gid, port, control = sys.argv[1:6]
port = int(port)
check(libc.mount(hosts.encode(), b"/etc/hosts", None, 4096, None), "mount")
subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
subprocess.run(["ip", "route", "add", "local", "10.31.0.0/24", "dev", "lo"],
               check=True)
# The control, before anything listens: 10.31.0.1 refuses.
c = socket.socket()
try:
    c.connect(("10.31.0.1", port))
    sys.exit("the control: 10.31.0.1 answers")
except ConnectionRefusedError:
    with open(control, "w") as o:
        o.write("10.31.0.1 refused\n")
c.close()
srv = socket.socket()
srv.bind(("10.31.0.2", port))
srv.listen(8)
parent = os.getpid()
if os.fork() == 0:
    # Gone with the process that becomes confine (no server left behind).
    check(libc.prctl(1, 9, 0, 0, 0), "prctl")
    if os.getppid() != parent:
        os._exit(0)
    while True:
        s, _ = srv.accept()
        s.recv(4096)
        s.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: 11\r\n\r\nsecond-one\n")
        s.close()
srv.close()
check(libc.unshare(0x10000000), "unshare")
for f, v in (("setgroups", "deny"), ("uid_map", uid + " 0 1"),
             ("gid_map", gid + " 0 1")):
    with open("/proc/self/" + f, "w") as o:
        o.write(v)
os.execv(sys.argv[6], sys.argv[6:])
EOF
	cat >"$TEST_TMP/confine-netns" <<EOF
#!/bin/sh
exec unshare -Urnm --kill-child python3 "$TEST_TMP/netns.py" "$TEST_TMP/hosts" \
    "$(id -u)" "$(id -g)" "$port" "$TEST_TMP/control" "$CONFINE" "\$@"
EOF
	chmod +x "$TEST_TMP/confine-netns"
	CONFINE=$TEST_TMP/confine-netns
	net_ws
	req=$(printf 'CONNECT dead.test:%s HTTP/1.1\r\n\r\n' "$port" |
	    od -An -tx1 | tr -d ' \n')
	run_confine -vv -p "$ONLINE" --allow "two.test:$port" \
	    --allow "dead.test:$port" -- sh -c \
	    "$PCURL http://two.test:$port/; echo two=\$?;
	     python3 '$P_IN' raw-all 127.0.0.1 3128 $req"
	assert_status "$RC" 0
	assert_file_has_content "$TEST_TMP/control" '^10\.31\.0\.1 refused$'
	assert_file_has_content "$OUT" '^second-one$'
	assert_file_has_content "$OUT" '^two=0$'
	assert_file_has_content "$ERR" \
	    "^confine: debug: proxy: two\\.test:$port: connect to 10\\.31\\.0\\.1:$port: Connection refused\$"
	assert_file_has_content "$ERR" "^confine: proxy: two\\.test:$port\$"
	assert_file_has_content "$OUT" '^HTTP/1\.1 502 Bad Gateway$'
	assert_file_has_content "$OUT" \
	    "^confine: proxy: dead\\.test:$port: connect to 10\\.31\\.0\\.3:$port \\(the last of 2 addresses\\): Connection refused\$"
	assert_file_has_content "$ERR" \
	    '^confine: network: 1 connection through the proxy, 0 refused, 1 upstream failure$'
}

# An allowed name that no resolver finds (.invalid never resolves) is a
# dead upstream too, not a refusal: 502 with the name and the resolver's
# answer, counted as a failure.  The control: the host's resolver finds
# nothing for it either.
t_proxy_upstream_unresolved() {
	require_leg_c_caller
	net_ws
	st getent hosts no-such-host.invalid >/dev/null
	[ "$ST" -ne 0 ] || fail "the control: no-such-host.invalid resolves"
	req=$(printf 'CONNECT no-such-host.invalid:443 HTTP/1.1\r\n\r\n' |
	    od -An -tx1 | tr -d ' \n')
	run_confine -v -p "$ONLINE" --allow no-such-host.invalid:443 -- \
	    python3 "$P_IN" raw-all 127.0.0.1 3128 "$req"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^HTTP/1\.1 502 Bad Gateway$'
	assert_file_has_content "$OUT" \
	    '^confine: proxy: no-such-host\.invalid:443: resolve no-such-host\.invalid: .'
	assert_file_has_content "$ERR" \
	    '^confine: proxy: failed no-such-host\.invalid:443: resolve no-such-host\.invalid: .'
	assert_file_has_content "$ERR" \
	    '^confine: network: 0 connections through the proxy, 0 refused, 1 upstream failure$'
	assert_not_file_has_content "$ERR" 'refused no-such-host'
	assert_no_session
}

# A connect from a thread that is not its process's first: bwrap's
# supervisor answers it as it answers the main thread's (it took the
# command's socket by the thread's id, which pidfd_open refuses: ESRCH).
# TCP to the sandbox's own loopback where nothing listens, and a unix
# socket of the sandbox's own: the same answer from either thread.
t_thread_connect() {
	net_ws
	cat >"$WS/.t/threads.py" <<'EOF'
import os, socket, sys, threading

def probe(name, out):
    try:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.connect(("127.0.0.1", int(sys.argv[1])))
        out.append("%s tcp connected" % name)
    except OSError as e:
        out.append("%s tcp %s" % (name, os.strerror(e.errno)))
    try:
        u = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        u.connect(sys.argv[2])
        out.append("%s unix connected" % name)
    except OSError as e:
        out.append("%s unix %s" % (name, os.strerror(e.errno)))

try:
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(sys.argv[2])
    srv.listen(4)
except OSError as e:
    print("no unix server: %s" % os.strerror(e.errno))
out = []
probe("main", out)
t = threading.Thread(target=probe, args=("thread", out))
t.start()
t.join()
print("\n".join(out))
EOF
	run_confine -- python3 .t/threads.py "$HTTP_PORT" t.sock
	assert_status "$RC" 0
	assert_eq "$(sed -n 's/^main //p' "$OUT")" \
	    "$(sed -n 's/^thread //p' "$OUT")" "the thread's answers against the main thread's"
	assert_file_has_content "$OUT" '^thread tcp '
	# landlock: socket(AF_UNIX) is refused there (ABI < 9).
	[ "$BACKEND" = landlock ] ||
	    assert_file_has_content "$OUT" '^thread unix connected$'
	assert_not_file_has_content "$OUT" 'No such process'
}

# An empty allow-list allows nothing (escape catalogue X4).
t_proxy_empty() {
	net_ws
	run_confine -v -n proxy -- sh -c "
	    $PCURL -o /dev/null -w 'proxied %{http_code}\n' http://127.0.0.1:$HTTP_PORT/
	    curl -sS --max-time 10 --noproxy '*' -o /dev/null -w 'direct %{http_code}\n' http://127.0.0.1:$HTTP_PORT/
	    python3 '$P_IN' udp 127.0.0.1 $UDP_PORT empty-$$
	    true"
	assert_file_has_content "$OUT" '^proxied 000$'
	assert_file_has_content "$OUT" '^direct 000$'
	sleep 0.3
	assert_not_file_has_content "$UDP_LOG" "^empty-$$\$"
	assert_file_has_content "$ERR" \
	    "^confine: proxy: refused 127\\.0\\.0\\.1:$HTTP_PORT: not in the allow-list\$"
	assert_counts 0 1
}

t_proxy_counts() {
	require_leg_c_caller
	net_ws
	run_confine -p "$ONLINE" --allow "127.0.0.1:$HTTP_PORT" -- sh -c "
	    for i in 1 2; do $PCURL -o /dev/null http://127.0.0.1:$HTTP_PORT/; done
	    for p in $HTTP2_PORT 1 2; do $PCURL -o /dev/null http://127.0.0.1:\$p/ 2>/dev/null; done
	    true"
	assert_status "$RC" 0
	# Without -v: no per-connection line, the count still.
	assert_not_file_has_content "$ERR" '^confine: proxy:'
	assert_counts 2 3
	assert_file_has_content "$ERR" 'refused \(-v names them\)$'
}

# A tunnel's two ways end apart (half-close).  The client's end passed on
# while the way back stays open: the server reads 1 MiB to its end, then
# answers.  The server's end passed on while the way there stays open:
# the client reads "hello" to its end, then sends 1 MiB, which the server
# gets whole.  The control: the same, directly on the host.
t_proxy_half_close() {
	require_leg_c_caller
	net_ws
	for c in client-eof server-eof; do
		st python3 "$NETPROBE" relay 0 "127.0.0.1:$RELAY_PORT" "$c" \
		    1048576 >"$TEST_TMP/control.$c"
		assert_status "$ST" 0
	done
	printf '%s\n' "got 1048576" \
	    "read 'hello\\n' then EOF; the server got 1048576 after its own end" \
	    >"$TEST_TMP/want"
	cat "$TEST_TMP/control.client-eof" "$TEST_TMP/control.server-eof" \
	    >"$TEST_TMP/control"
	cmp -s "$TEST_TMP/control" "$TEST_TMP/want" || {
		diag_file "$TEST_TMP/control" "directly"
		fail "control: not what the two half-closes give directly"
	}
	run_confine -p "$ONLINE" --allow "127.0.0.1:$RELAY_PORT" -- sh -c '
	    for c in client-eof server-eof; do
		python3 "$1" relay 3128 "$2" $c 1048576 || echo "$c failed"
	    done' sh "$P_IN" "127.0.0.1:$RELAY_PORT"
	assert_status "$RC" 0
	cmp -s "$OUT" "$TEST_TMP/want" || {
		diag_file "$OUT" "inside"
		fail "not what the two half-closes should give"
	}
}

# A client that does not read holds its sender back (backpressure): the
# server's 256 MiB, far more than the sockets and the pipe between them
# hold, stop going out until the client reads; then every byte comes, in
# order.  The control: a client on the host that does not read holds the
# server back too (the amount is enough to fill what is between).
t_proxy_slow_reader() {
	require_leg_c_caller
	net_ws
	st python3 "$NETPROBE" relay 0 "127.0.0.1:$RELAY_PORT" slow-reader \
	    >"$TEST_TMP/control"
	assert_status "$ST" 0
	want="sender held; then read $RELAY_TOTAL bytes, intact; sender done yes"
	assert_eq "$(cat "$TEST_TMP/control")" "$want" "control: directly"
	run_confine -p "$ONLINE" --allow "127.0.0.1:$RELAY_PORT" -- \
	    python3 "$P_IN" relay 3128 "127.0.0.1:$RELAY_PORT" slow-reader
	assert_status "$RC" 0
	assert_eq "$(cat "$OUT")" "$want" "through the proxy"
}

# The CPU time a process has used, in clock ticks (utime + stime).
cpu_ticks() {
	awk '{ print $14 + $15 }' "/proc/$1/stat"
}

# After a tunnel passed bytes, the supervisor polls a moment without
# sleeping (a reply that follows at once goes on without a wake-up); a
# tunnel left open and idle must cost it nothing.  The supervisor's CPU
# time over three seconds of an idle tunnel stays under one second's.
# The control: a process that spins, counted the same way over one
# second, shows a good part of it (else the machine is too busy to tell).
t_proxy_idle_cpu() {
	[ "$BACKEND" != landlock ] ||
	    skip_case "the landlock backend refuses proxy mode"
	require_leg_c_caller
	net_ws
	sh -c 'while :; do :; done' &
	spin=$!
	track_pid "$spin"
	t0=$(cpu_ticks "$spin")
	sleep 1
	t1=$(cpu_ticks "$spin")
	kill "$spin"
	[ $((t1 - t0)) -ge 20 ] || skip_case "too busy to tell: a spinning" \
	    "process got $((t1 - t0)) ticks of a second"
	mkfifo "$TEST_TMP/go"
	(
		cd "$WS" || exit 1
		exec timeout -k 5 "$CONFINE_TIMEOUT" "$CONFINE" -p "$ONLINE" \
		    --allow "127.0.0.1:$RELAY_PORT" -- python3 "$P_IN" relay \
		    3128 "127.0.0.1:$RELAY_PORT" idle 1048576
	) <"$TEST_TMP/go" >"$TEST_TMP/idle.out" 2>"$TEST_TMP/idle.err" &
	bg=$!
	track_pid "$bg"
	exec 9>"$TEST_TMP/go"
	wait_for 60 grep -qx idle "$TEST_TMP/idle.out" || {
		exec 9>&-
		diag_file "$TEST_TMP/idle.err" "stderr"
		fail "the tunnel never went idle"
	}
	# The supervisor: confine, timeout(1)'s child.
	sup=$(pgrep -P "$bg" | head -n 1)
	[ -n "$sup" ] || fail "no confine under timeout"
	t0=$(cpu_ticks "$sup")
	sleep 3
	t1=$(cpu_ticks "$sup")
	echo go >&9
	exec 9>&-
	rc=0
	wait "$bg" || rc=$?
	assert_status "$rc" 0
	assert_eq "$(tail -n 1 "$TEST_TMP/idle.out")" "got 1048576" \
	    "the server's count"
	[ $((t1 - t0)) -lt 100 ] || fail "the supervisor used $((t1 - t0))" \
	    "ticks of CPU in 3 s of an idle tunnel"
}

# ---------------------------------------------------------------- host

require_host_mode() {
	require_leg_c_caller
	[ -x "$TRY_SYSCALL" ] || skip_case "no try-syscall helper to read the Landlock ABI"
	abi=$(landlock_abi)
	[ "${abi:-0}" -ge 6 ] || skip_case "landlock ABI ${abi:-none} < 6: host mode is refused"
}

t_host_loopback() {
	require_host_mode
	net_ws
	run_confine -p "$ONLINE" -n host -- sh -c \
	    "curl -sS --max-time 10 --noproxy '*' -w '%{http_code}\n' http://127.0.0.1:$HTTP_PORT/index.html"
	assert_status "$RC" 0
	printf '%s\n200\n' "$BODY" >"$TEST_TMP/want"
	cmp -s "$OUT" "$TEST_TMP/want" || fail "not the body and 200"
}

t_host_links() {
	require_host_mode
	net_ws
	ip -o link show | sed 's/^[0-9]*: \([^:@]*\).*/\1/' >"$TEST_TMP/want"
	run_confine -p "$ONLINE" -n host -- sh -c \
	    'ip -o link show | sed "s/^[0-9]*: \([^:@]*\).*/\1/"'
	assert_status "$RC" 0
	cmp -s "$OUT" "$TEST_TMP/want" || {
		diag_file "$TEST_TMP/want" "the host's interfaces"
		fail "not the host's interfaces"
	}
}

# host_unix_case DIR: a pathname socket of the host in DIR.
host_unix_case() {
	require_host_mode
	[ -d "$1" ] && [ -w "$1" ] || skip_case "no writable $1"
	net_ws
	d=$(host_scratch "$(mktemp -d "$1/confine-net.XXXXXX")")
	chmod 0755 "$d"
	start_server "unix.$(basename "$d")" unix "$d/sock" >/dev/null ||
	    fail "cannot start a unix server in $d"
	st python3 "$NETPROBE" unix "$d/sock" >"$TEST_TMP/control"
	assert_status "$ST" 0
	run_confine -p "$ONLINE" -n host -- python3 "$P_IN" unix "$d/sock"
	assert_status "$RC" 1
	if [ -n "$UNIX_REFUSED" ]; then
		assert_eq "$(cat "$OUT")" "$UNIX_REFUSED" "connect to $d/sock"
	else
		assert_file_has_content "$OUT" '^(ENOENT|ECONNREFUSED|EACCES|EPERM)$'
	fi
}

t_host_unix_tmp() {
	host_unix_case /tmp
}

t_host_unix_vartmp() {
	host_unix_case /var/tmp
}

t_host_abstract() {
	require_host_mode
	net_ws
	name=confine-net-$(unique_num)
	start_server "abstract" abstract "$name" >/dev/null ||
	    fail "cannot start an abstract unix server"
	st python3 "$NETPROBE" abstract "$name" >"$TEST_TMP/control"
	assert_status "$ST" 0
	run_confine -p "$ONLINE" -n host -- python3 "$P_IN" abstract "$name"
	assert_status "$RC" 1
	assert_eq "$(cat "$OUT")" "${UNIX_REFUSED:-EPERM}" "connect to @$name"
}

tcase "none: TCP to a host loopback listener fails (ECONNREFUSED; landlock: EAFNOSUPPORT)" t_none_tcp
tcase "none: python3 -m http.server inside answers curl inside, on the host server's port (landlock: refused)" t_none_local_http
tcase "none: a TCP server and client inside, 127.0.0.1 and ::1 (landlock: EAFNOSUPPORT)" t_none_echo_tcp
tcase "none: a UDP server and client inside, 127.0.0.1 and ::1 (landlock: EAFNOSUPPORT)" t_none_echo_udp
tcase "none: UDP to a host loopback socket gets nothing through" t_none_udp
tcase "none: no DNS, no route to the resolver" t_none_dns
tcase "none: only lo inside" t_none_links
proxy_tcase "proxy: an allowed destination works (200 and the body)" t_proxy_allowed
proxy_tcase "proxy: the proxy variables alone route curl through the proxy" t_proxy_env_route
proxy_tcase "proxy: the proxy variables point at 127.0.0.1:3128" t_proxy_env
proxy_tcase "proxy: another port of the same host is refused (403)" t_proxy_other_port
proxy_tcase "proxy: localhost is not the listed 127.0.0.1" t_proxy_localhost_unlisted
proxy_tcase "proxy: a listed name that resolves to loopback is refused" t_proxy_localhost_listed
proxy_tcase "proxy: a listed name for the host's LAN address is refused" t_proxy_host_address
proxy_tcase "proxy: curl --noproxy '*' to the host's loopback fails" t_proxy_noproxy_direct
proxy_tcase "proxy: the loopback is the sandbox's own: 3128 connects and stays the proxy's, the host's ports refused, a server inside works" t_proxy_loopback
proxy_tcase "proxy: a plain GET is refused" t_raw_get
proxy_tcase "proxy: a NUL byte in CONNECT is refused" t_raw_nul
proxy_tcase "proxy: a trailing dot is refused" t_raw_trailing_dot
proxy_tcase "proxy: host:port:port is refused" t_raw_two_ports
proxy_tcase "proxy: a port with + is refused" t_raw_plus_port
proxy_tcase "proxy: a 9 KiB request head is refused" t_raw_big_head
proxy_tcase "proxy: an upper-case name is lower-cased before the rules" t_raw_upper_case
tcase "proxy: a raw --endpoint is leg C, refused in the sealed profile" t_endpoint_leg_c
proxy_tcase "proxy: no allow-list, nothing leaves" t_proxy_empty
proxy_tcase "proxy: an unreachable destination: 502 with the reason, counted as a failure" t_proxy_upstream_failure
proxy_tcase "proxy: a name's addresses tried in turn: the second answers when the first refuses; 502 naming the last when all do" t_proxy_next_address
proxy_tcase "proxy: an allowed name that does not resolve: 502 with the resolver's answer, counted as a failure" t_proxy_upstream_unresolved
proxy_tcase "proxy: the exit line counts allowed and refused" t_proxy_counts
proxy_tcase "proxy: a tunnel's two ways end apart (half-close)" t_proxy_half_close
proxy_tcase "proxy: a client that does not read holds its sender back, then gets every byte" t_proxy_slow_reader
tcase "proxy: a tunnel idle after its traffic costs the supervisor no CPU" t_proxy_idle_cpu
tcase "host: the host's loopback server is reachable" t_host_loopback
tcase "host: the host's interfaces" t_host_links
tcase "host: a host unix socket under /tmp is unreachable" t_host_unix_tmp
tcase "host: a host unix socket under /var/tmp is unreachable" t_host_unix_vartmp
tcase "host: a host abstract socket is unreachable (EPERM)" t_host_abstract
tcase "a connect from a thread that is not the first: as the main thread's" t_thread_connect
tap_done
