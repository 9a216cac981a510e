#!/bin/sh
# SPDX-License-Identifier: ISC
# network.sh - escape catalogue 4.8 (and I3): network egress.  TCP to a
# host loopback service, UDP, DNS, raw sockets, MPTCP and TCP Fast Open
# (which Landlock's TCP rules do not cover), and, through the proxy mode,
# requests the allow-list must refuse however they are written, and the
# proxy bypassed.  Each target is a listener of the test's own on the
# host's loopback that logs every connection or datagram: the control
# reaches it from outside, and after the attempt its log must be empty.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
. "$TESTS_SRCDIR/escape-lib.sh"
command -v python3 >/dev/null 2>&1 || skip_all "no python3 for the servers and probes"
. "$TESTS_SRCDIR/net-lib.sh"
plan 11

TCP_LOG=$TEST_TMP/tcp.log
UDP_LOG=$TEST_TMP/udp.log
TCP_PORT=$(start_server tcp log "$TCP_LOG") &&
ANY_LOG=$TEST_TMP/any.log
ANY_PORT=$(start_server any log-any "$ANY_LOG") &&
UDP_PORT=$(start_server udp udp "$UDP_LOG") || {
	echo "Bail out! cannot start the loopback listeners"
	exit 1
}

ONLINE=$TEST_TMP/online.ini
printf '[profile]\nquadrant = online\n[workspace]\nprivate = no\n' >"$ONLINE"

# Empty the logs, for a case's control, then its attempt: once the TCP
# listener has logged every connection it took (a late line of one case's
# would be counted as the next case's).
logs_clear() {
	wait_for 10 grep -qx 0 "$TCP_LOG.busy" ||
	    fail "the TCP listener still reads a connection"
	wait_for 10 grep -qx 0 "$ANY_LOG.busy" ||
	    fail "the any-address listener still reads a connection"
	: >"$TCP_LOG"
	: >"$UDP_LOG"
	: >"$ANY_LOG"
}

# assert_log_empty LOG: after a moment (a slow datagram), nothing came.
assert_log_empty() {
	sleep 0.5
	[ ! -s "$1" ] || {
		diag_file "$1" "what the host's listener got"
		fail "the host's listener on the loopback was reached from inside"
	}
}

# control_tcp PROBE...: from outside, each try-syscall PROBE reaches the
# listener (logged).
control_tcp() {
	logs_clear
	for _p; do
		assert_eq "$("$TRY_SYSCALL" "$_p")" "${_p%%:*} OK" "control: $_p outside"
	done
	wait_for 5 sh -c '[ "$(wc -l <"$1")" -ge "$2" ]' sh "$TCP_LOG" "$#" ||
	    fail "control: the listener logged $(wc -l <"$TCP_LOG") of $# connections"
	logs_clear
}

# Natively (and with bwrap), the loopback inside is the sandbox's own,
# where nothing listens on the host listener's port: the stack refuses
# (ECONNREFUSED; Landlock handles no TCP there, its rules naming ports, not
# addresses).  With the landlock backend there is no network namespace:
# the filter allows no socket family but AF_UNIX, so socket() fails
# (EAFNOSUPPORT) before Landlock's TCP rules are reached.
case $BACKEND in
landlock) TCP_NO=EAFNOSUPPORT ;;
*) TCP_NO=ECONNREFUSED ;;
esac

# proxy_refused CONFINE-ARG...: the landlock backend refuses proxy mode
# before anything runs (without a network namespace of its own, a
# connection to the proxy's port could go anywhere): status 125, the
# reason, and a connection the command would make never arrives.  Then
# the case skips there: the proxy it probes does not exist.
proxy_refused() {
	[ "$BACKEND" = landlock ] || return 0
	logs_clear
	run_confine "$@" -- "$TRY_IN" "tcp_connect:$TCP_PORT"
	assert_status "$RC" 125
	assert_refusal "$ERR"
	assert_file_has_content "$ERR" 'cannot offer network mode proxy'
	assert_file_empty "$OUT"
	assert_log_empty "$TCP_LOG"
	assert_host_unchanged
	not_on landlock "proxy mode is refused (checked: 125, nothing ran)"
}

# I3: TCP to a service on the host's loopback (a dev server, a debugger
# port, a local model server).
t_tcp() {
	esc_ws
	control_tcp "tcp_connect:$TCP_PORT"
	run_confine -- "$TRY_IN" "tcp_connect:$TCP_PORT"
	assert_status "$RC" 0
	assert_try tcp_connect "$TCP_NO"
	assert_log_empty "$TCP_LOG"
	assert_host_unchanged
}

# I3, written otherwise: every other way to the host's loopback, to a
# service listening on all its addresses (IPv4 and IPv6): another address
# of 127/8, 0.0.0.0 (the local host), ::1 and the IPv4-mapped
# ::ffff:127.0.0.1.  Outside, each reaches it; inside, each is the
# sandbox's own loopback, where nothing listens on that port.
LOOPBACK_ALIASES="127.0.0.1 127.0.0.2 0.0.0.0 ::1 ::ffff:127.0.0.1"
t_tcp_aliases() {
	esc_ws
	logs_clear
	for a in $LOOPBACK_ALIASES; do
		assert_eq "$(python3 "$NETPROBE" tcp "$a" "$ANY_PORT")" \
		    connected "control: $a outside"
	done
	wait_for 5 sh -c '[ "$(wc -l <"$1")" -ge 5 ]' sh "$ANY_LOG" ||
	    fail "control: the listener logged $(wc -l <"$ANY_LOG") of 5 connections"
	logs_clear
	cp "$NETPROBE" "$WS/.t/netprobe.py"
	host_snapshot
	run_confine -- sh -c 'p=$1; shift; for a; do
		printf "%s " "$a"; python3 .t/netprobe.py tcp "$a" "$p"; done
		true' sh "$ANY_PORT" $LOOPBACK_ALIASES
	assert_status "$RC" 0
	for a in $LOOPBACK_ALIASES; do
		grep -qxF "$a refused $TCP_NO" "$OUT" || {
			diag_file "$OUT" "inside"
			fail "$a: not refused with $TCP_NO"
		}
	done
	assert_log_empty "$ANY_LOG"
	assert_host_unchanged
}

# -n host (leg C: not for a root caller) shares the host's network
# namespace, and with it the host's abstract unix names.  The host's
# abstract sockets (stream and datagram) and a pathname one in a --ro
# directory stay out of reach, nothing arrives; the command's own, a
# server and a client inside, work by abstract name and by path.
t_host_unix() {
	require_leg_c_caller
	[ "$(landlock_abi)" -ge 6 ] || skip_case "landlock ABI < 6: host mode is refused"
	probe=$TESTS_BUILDDIR/helpers/notify-probe
	[ -x "$probe" ] || fail "no notify-probe helper at $probe"
	ws_new
	cp "$probe" "$WS/.t/notify-probe"
	p_in=$WS/.t/notify-probe
	[ "$BACKEND" != landlock ] || p_in=./.t/notify-probe
	host_snapshot
	name=confine-esc-$(unique_num)
	d=$TEST_TMP/host-sock
	mkdir -p "$d"
	log=$TEST_TMP/unix.log
	python3 -c '
import select, socket, sys
name, d = sys.argv[1], sys.argv[2]
a = socket.socket(socket.AF_UNIX); a.bind("\0" + name); a.listen(8)
g = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); g.bind("\0" + name + ".d")
p = socket.socket(socket.AF_UNIX); p.bind(d + "/s"); p.listen(8)
print("ready", flush=True)
while True:
    for s in select.select([a, g, p], [], [], 600)[0] or sys.exit(0):
        if s is g: s.recv(65536)
        else: s.accept()[0].close()
        print("got", {a: "abs", g: "absd", p: "path"}[s], flush=True)
' "$name" "$d" >>"$log" 2>&1 &
	track_pid $!
	wait_for 10 grep -qs '^ready$' "$log" || fail "the host's unix servers did not start"
	# Control: outside, each answers, and says so.
	"$probe" connect:ctl_abs:"@$name" sendto:ctl_absd:"@$name.d" \
	    connect:ctl_path:"$d/s" >"$TEST_TMP/control"
	for c in abs absd path; do
		assert_file_has_content "$TEST_TMP/control" "^ctl_$c OK\$"
	done
	wait_for 10 sh -c '[ "$(grep -c "^got " "$1")" -ge 3 ]' sh "$log" ||
	    fail "control: the host's servers did not log the connections"
	: >"$log"
	run_confine -p "$ONLINE" -n host --ro "$d" -- "$p_in" \
	    connect:host_abs:"@$name" sendto:host_absd:"@$name.d" \
	    connect:host_path:"$d/s" selftest:own_abs:"@$name-own" \
	    selftest:own_ws:.
	assert_status "$RC" 0
	case $BACKEND in
	landlock) refused='EACCES|EPERM|EAFNOSUPPORT' path=$refused ;;
	# Landlock's scope, or confine answering as it would.
	*) refused=EPERM path='EACCES|ECONNREFUSED' ;;
	esac
	for c in host_abs host_absd; do
		assert_file_has_content "$OUT" "^$c ($refused)\$"
	done
	assert_file_has_content "$OUT" "^host_path ($path)\$"
	if [ "$BACKEND" = landlock ] && [ "$(landlock_abi)" -lt 9 ]; then
		want="$refused"
	else
		want=OK
	fi
	for c in own_abs_stream own_abs_dgram own_abs_sendmsg own_abs_fdpass \
	    own_ws_stream own_ws_dgram own_ws_sendmsg own_ws_fdpass; do
		assert_file_has_content "$OUT" "^$c ($want)\$"
	done
	sleep 0.5
	[ ! -s "$log" ] || {
		diag_file "$log" "what the host's servers got"
		fail "a host unix socket was reached from inside"
	}
	assert_host_unchanged
}

# TCP Fast Open: data in the SYN, through sendto, not connect.
t_tfo() {
	esc_ws
	[ "$(($(cat /proc/sys/net/ipv4/tcp_fastopen 2>/dev/null || echo 0) & 1))" -eq 1 ] ||
	    skip_case "the kernel has TCP Fast Open off for clients (net.ipv4.tcp_fastopen)"
	control_tcp "tfo_connect:$TCP_PORT"
	run_confine -- "$TRY_IN" "tfo_connect:$TCP_PORT"
	assert_status "$RC" 0
	assert_try tfo_connect "$TCP_NO"
	assert_log_empty "$TCP_LOG"
	assert_host_unchanged
}

# MPTCP: a TCP listener accepts it, Landlock's rules do not see it.
t_mptcp() {
	esc_ws
	case $("$TRY_SYSCALL" "mptcp_connect:$TCP_PORT") in
	*EPROTONOSUPPORT* | *ENOPROTOOPT*) skip_case "the kernel has no MPTCP" ;;
	esac
	# The control after the attempt: an MPTCP connection may leave the
	# listener a late line (another subflow), which would be counted as
	# the sandbox's had it come first.  So may the probe above: its line
	# is waited for before the log is cleared.
	wait_for 5 [ -s "$TCP_LOG" ] || :
	logs_clear
	run_confine -- "$TRY_IN" "mptcp_connect:$TCP_PORT"
	assert_status "$RC" 0
	assert_try mptcp_connect EPROTONOSUPPORT
	assert_log_empty "$TCP_LOG"
	assert_host_unchanged
	control_tcp "mptcp_connect:$TCP_PORT"
}

# X1: UDP to the host's loopback: sent into the sandbox's own loopback,
# never received on the host's.
t_udp() {
	esc_ws
	logs_clear
	python3 "$NETPROBE" udp 127.0.0.1 "$UDP_PORT" control >/dev/null ||
	    fail "control: sendto outside"
	wait_for 5 grep -q '^control$' "$UDP_LOG" || fail "control: no datagram logged"
	logs_clear
	cp "$NETPROBE" "$WS/.t/netprobe.py"
	host_snapshot
	run_confine -- sh -c 'for i in 1 2 3; do python3 .t/netprobe.py udp 127.0.0.1 "$1" "inside-$i"; done; true' sh "$UDP_PORT"
	assert_status "$RC" 0
	assert_log_empty "$UDP_LOG"
	assert_host_unchanged
}

# X1, X2: UDP and DNS to the outside: the resolvers of /etc/resolv.conf
# and a documentation address; names do not resolve.
t_dns() {
	esc_ws
	servers=$(awk '$1 == "nameserver" { print $2 }' /etc/resolv.conf 2>/dev/null | grep -v ':' | head -n 3)
	cp "$NETPROBE" "$WS/.t/netprobe.py"
	host_snapshot
	# Control: outside, a datagram to each can be sent where the host
	# has a route; the attempt inside is checked either way.
	for s in $servers 192.0.2.1; do
		python3 "$NETPROBE" udp "$s" 53 x >/dev/null ||
		    diag "control: the host itself has no route to $s"
	done
	run_confine -- sh -c '
		for s; do python3 .t/netprobe.py udp "$s" 53 "exfil.$s"; done
		getent hosts "$1.example.com" && echo RESOLVED
		python3 -c "import socket; socket.getaddrinfo(\"example.com\", 443)" 2>/dev/null && echo RESOLVED
		true' sh $servers 192.0.2.1
	assert_status "$RC" 0
	assert_not_file_has_content "$OUT" '^sent$|RESOLVED'
	case $BACKEND in
	landlock) ;;	# the filter refuses the socket or the send
	*) assert_file_has_content "$OUT" '^refused ENETUNREACH$' ;;
	esac
	assert_host_unchanged
}

# Raw and ICMP sockets (ping tunnels, spoofing).
t_raw() {
	esc_ws
	raw='import socket
for t, p in ((socket.SOCK_RAW, socket.IPPROTO_ICMP), (socket.SOCK_RAW, socket.IPPROTO_RAW), (socket.SOCK_DGRAM, socket.IPPROTO_ICMP)):
    try:
        s = socket.socket(socket.AF_INET, t, p)
        s.sendto(b"\x08\x00\xf7\xff\x00\x00\x00\x00", ("192.0.2.1", 0))
        print("SENT", t, p)
    except OSError as e:
        print("refused", e.errno)'
	# Control: root of a network namespace of our own may send raw.
	unshare -Urn sh -c 'ip link set lo up 2>/dev/null; python3 -c "$1"' sh \
	    "$(echo "$raw" | sed 's/192.0.2.1/127.0.0.1/')" >"$TEST_TMP/control" 2>&1 || true
	assert_file_has_content "$TEST_TMP/control" '^SENT 3 1$'
	run_confine -- python3 -c "$raw"
	assert_status "$RC" 0
	assert_not_file_has_content "$OUT" SENT
	assert_host_unchanged
}

# proxy_ask CONFINE-ARG...: each request of REQS (hex) sent to the proxy,
# 127.0.0.1:3128, from inside; its first answer line in OUT.
proxy_ask() {
	run_confine "$@" -- sh -c 'for r; do python3 .t/netprobe.py raw 127.0.0.1 3128 "$r" 2>&1 | head -n 1; done' sh $REQS
}

hex() {
	printf '%b' "$1" | od -An -tx1 | tr -d ' \n'
}

# X4: the proxy with no destination: nothing goes through; the loopback
# listener is not reached.
t_proxy_empty() {
	esc_ws
	cp "$NETPROBE" "$WS/.t/netprobe.py"
	host_snapshot
	control_tcp "tcp_connect:$TCP_PORT"
	proxy_refused -n proxy
	REQS="$(hex "CONNECT 127.0.0.1:$TCP_PORT HTTP/1.1\r\n\r\n") $(hex "GET http://127.0.0.1:$TCP_PORT/ HTTP/1.1\r\n\r\n")"
	proxy_ask -n proxy
	assert_status "$RC" 0
	assert_lines "$OUT" 2
	if grep -v '^HTTP/1.1 403 ' "$OUT"; then
		fail "the proxy did not refuse with 403"
	fi
	assert_log_empty "$TCP_LOG"
	assert_host_unchanged
}

# X3: the proxy's parser: names and ports written to slip past the
# allow-list (NUL, userinfo, a trailing dot, percent-encoding, a name
# for loopback, a port over 65535, a second request line).
t_proxy_parser() {
	esc_ws
	cp "$NETPROBE" "$WS/.t/netprobe.py"
	host_snapshot
	control_tcp "tcp_connect:$TCP_PORT"
	a=allowed.invalid
	# The allow-list names the decoy: a quadrant with leg C, which a root
	# caller is refused.
	proxy_refused -p "$ONLINE" --allow "$a:443" --allow "$a:$TCP_PORT"
	require_leg_c_caller
	REQS=
	for target in "$a\\0.127.0.0.1:$TCP_PORT" "$a:443@127.0.0.1:$TCP_PORT" \
	    "127.0.0.1:$TCP_PORT#$a:443" "localhost:$TCP_PORT" "$a.:$TCP_PORT" \
	    "127.0.0.1%2e:$TCP_PORT" "127.0.0.1:$((TCP_PORT + 65536))" \
	    "$a:443 HTTP/1.1\\r\\nCONNECT 127.0.0.1:$TCP_PORT" "[::ffff:127.0.0.1]:$TCP_PORT" \
	    "2130706433:$TCP_PORT" "0x7f.1:$TCP_PORT"; do
		REQS="$REQS $(hex "CONNECT $target HTTP/1.1\r\nHost: $a\r\n\r\n")"
	done
	proxy_ask -p "$ONLINE" --allow "$a:443" --allow "$a:$TCP_PORT"
	assert_status "$RC" 0
	assert_lines "$OUT" 11
	if grep -v -E '^HTTP/1.1 (403|502) ' "$OUT" >"$TEST_TMP/bad"; then
		diag_file "$TEST_TMP/bad" "answers"
		fail "the proxy answered other than 403 or 502"
	fi
	assert_log_empty "$TCP_LOG"
	assert_host_unchanged
}

# X5: the proxy bypassed: direct TCP in proxy mode, to the host's
# loopback and to a documentation address.
t_proxy_bypass() {
	esc_ws
	control_tcp "tcp_connect:$TCP_PORT"
	proxy_refused -n proxy
	run_confine -n proxy -- sh -c 'unset HTTPS_PROXY https_proxy HTTP_PROXY http_proxy ALL_PROXY all_proxy; "$0" "tcp_connect:$1" tcp_connect:80' "$TRY_IN" "$TCP_PORT"
	assert_status "$RC" 0
	assert_try tcp_connect "$TCP_NO"
	assert_not_file_has_content "$OUT" 'tcp_connect OK'
	assert_log_empty "$TCP_LOG"
	assert_host_unchanged
}

tcase "I3 TCP to a host loopback service: refused, nothing arrives" t_tcp
tcase "I3 the host's loopback by 127.0.0.2, 0.0.0.0, ::1, ::ffff:127.0.0.1: refused, nothing arrives" t_tcp_aliases
tcase "-n host: the host's abstract and pathname unix sockets refused, the command's own work" t_host_unix
tcase "TCP Fast Open (sendto MSG_FASTOPEN): refused, nothing arrives" t_tfo
tcase "MPTCP connect: EPROTONOSUPPORT, nothing arrives" t_mptcp
tcase "X1 UDP to a host loopback service: nothing arrives" t_udp
tcase "X1/X2 UDP to the resolvers, DNS lookups: ENETUNREACH, nothing resolves" t_dns
tcase "raw and ICMP sockets: nothing sent" t_raw
tcase "X4 the proxy with no destination: 403, nothing arrives" t_proxy_empty
tcase "X3 the proxy's parser: NUL, userinfo, dots, encodings, loopback names" t_proxy_parser
tcase "X5 the proxy bypassed in proxy mode: refused, nothing arrives" t_proxy_bypass
tap_done
