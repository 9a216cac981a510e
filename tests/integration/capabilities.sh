#!/bin/sh
# SPDX-License-Identifier: ISC
# capabilities.sh - every capability set is empty in the sandbox, even for
# root; no_new_privs is set and a seccomp filter is loaded.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
require_userns
plan 7

ZERO=0000000000000000

caps_of() {
	awk '/^Cap(Inh|Prm|Eff|Bnd|Amb):/ { print $1, $2 }' "$1"
}

t_sets() {
	ws_new
	# Control: outside, the bounding set is not empty.
	bnd=$(awk '/^CapBnd:/ { print $2 }' /proc/self/status)
	assert_ne "$bnd" "$ZERO" "control: CapBnd outside"
	run_confine -- cat /proc/self/status
	assert_status "$RC" 0
	caps_of "$OUT" >"$TEST_TMP/got"
	for s in Inh Prm Eff Bnd Amb; do
		want=$ZERO
		# Without a user namespace, only CAP_SETPCAP can shrink the
		# bounding set: under landlock a non-root caller's stays as it
		# is (no_new_privs keeps an exec from gaining any of it).
		if [ "$s" = Bnd ] && [ "$BACKEND" = landlock ] && [ "$(id -u)" -ne 0 ]; then
			want=$bnd
		fi
		echo "Cap$s: $want"
	done >"$TEST_TMP/want"
	cmp -s "$TEST_TMP/got" "$TEST_TMP/want" || {
		diag_file "$TEST_TMP/got" "inside"
		fail "a capability set is not empty"
	}
	assert_ws_unchanged
}

t_pid1() {
	not_on landlock "no pid namespace: pid 1 is the host's init"
	ws_new
	run_confine -- cat /proc/1/status
	assert_status "$RC" 0
	caps_of "$OUT" | awk '{ print $2 }' | sort -u >"$TEST_TMP/got"
	assert_eq "$(cat "$TEST_TMP/got")" "$ZERO" "the sets of confine's pid 1"
	assert_ws_unchanged
}

# landlock: confine stays on the host, the command's parent, with the
# caller's capabilities; the command can neither signal it nor trace it.
t_parent() {
	[ "$BACKEND" = landlock ] ||
	    skip_case "the $BACKEND backend: confine is not the command's parent on the host"
	ws_new
	run_confine -- sh -c '
		grep "^CapEff:" /proc/$PPID/status
		kill -0 $PPID 2>&1; echo kill $?
		cat /proc/$PPID/environ >/dev/null 2>&1; echo environ $?
		ls -l /proc/$PPID/fd/ >/dev/null 2>&1; echo fd $?'
	assert_status "$RC" 0
	if [ "$(id -u)" -eq 0 ]; then
		assert_not_file_has_content "$OUT" "^CapEff:[[:space:]]+$ZERO\$"
	fi
	assert_file_has_content "$OUT" '^kill [1-9][0-9]*$'
	assert_file_has_content "$OUT" 'Operation not permitted'
	assert_file_has_content "$OUT" '^environ [1-9][0-9]*$'
	assert_file_has_content "$OUT" '^fd [1-9][0-9]*$'
	assert_ws_unchanged
}

t_nnp_seccomp() {
	ws_new
	run_confine -- cat /proc/self/status
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^NoNewPrivs:[[:space:]]+1$'
	assert_file_has_content "$OUT" '^Seccomp:[[:space:]]+2$'
	assert_ws_unchanged
}

t_root_dac() {
	[ "$(id -u)" -eq 0 ] ||
	    skip_case "as non-root there is no CAP_DAC_OVERRIDE outside to compare with"
	ws_new
	echo secret >"$WS/others.txt"
	chown 65534:65534 "$WS/others.txt"
	chmod 0600 "$WS/others.txt"
	WS_HASH=$(tree_hash "$WS")
	# Control: root reads it outside, through its capabilities.
	assert_eq "$(cat "$WS/others.txt")" secret "control: reading it as root outside"
	run_confine -- sh -c 'id -u; cat others.txt'
	assert_status "$RC" 1
	assert_eq "$(cat "$OUT")" 0 "the uid inside"
	assert_file_has_content "$ERR" 'others.txt: Permission denied'
	assert_ws_unchanged
}

t_netadmin() {
	not_on landlock "no network namespace of its own (t_netlink)"
	ws_new
	# Setting lo's MTU to what it is changes nothing, but still needs
	# CAP_NET_ADMIN over the network namespace.
	mtu=$(cat /sys/class/net/lo/mtu)
	# Control: a process with CAP_NET_ADMIN over its own network
	# namespace may do it.
	unshare -Urn ip link set lo mtu "$mtu" ||
	    fail "control: unshare -Urn ip link set lo mtu $mtu"
	run_confine -- ip link set lo mtu "$mtu"
	assert_status "$RC" 2
	assert_file_has_content "$ERR" 'Operation not permitted'
	assert_ws_unchanged
}

# landlock: no network namespace, and no netlink socket to change the
# host's: the host's lo keeps its MTU.
t_netlink() {
	[ "$BACKEND" = landlock ] ||
	    skip_case "the $BACKEND backend: t_netadmin, in the sandbox's own network namespace"
	ws_new
	mtu=$(cat /sys/class/net/lo/mtu)
	new=$((mtu - 1))
	run_confine -- ip link set lo mtu "$new"
	got=$(cat /sys/class/net/lo/mtu)
	[ "$got" = "$mtu" ] || ip link set lo mtu "$mtu" || :
	assert_eq "$got" "$mtu" "the host's lo MTU"
	assert_status "$RC" 1
	assert_file_has_content "$ERR" 'Address family not supported'
	assert_ws_unchanged
}

tcase "CapInh, CapPrm, CapEff, CapBnd and CapAmb are empty" t_sets
tcase "confine's pid 1 in the sandbox holds no capabilities either" t_pid1
tcase "landlock: confine, the parent, can be neither signalled nor traced" t_parent
tcase "NoNewPrivs 1 and Seccomp 2" t_nnp_seccomp
tcase "root in the sandbox cannot read another user's 0600 file" t_root_dac
tcase "no CAP_NET_ADMIN over the sandbox's own network namespace" t_netadmin
tcase "landlock: no netlink socket; the host's lo keeps its MTU" t_netlink
tap_done
