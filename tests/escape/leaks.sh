#!/bin/sh
# SPDX-License-Identifier: ISC
# leaks.sh - what the sandbox tells about the host without being asked:
# its name (a uts namespace names it "confine"), its network interfaces in
# sysfs (a network namespace: a sysfs of its own, or the host's net
# directories covered), the names of the user's keys (/proc/keys and
# /proc/key-users covered) and tokens carried in LC_* variables (the
# locale variables pass only with a locale name's shape).  Each is first
# seen outside (the control); one confine run looks for all of them.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
. "$TESTS_SRCDIR/escape-lib.sh"
plan 5

# The host's facts, outside.
HOST_NAME=$(uname -n)
# The host's interfaces but lo, and each one's sysfs directory.
: >"$TEST_TMP/ifdirs"
for _i in /sys/class/net/*; do
	[ -e "$_i" ] && [ "${_i##*/}" != lo ] || continue
	readlink -f "$_i" >>"$TEST_TMP/ifdirs"
done
# A key in the user's keyring, named after this run; it expires by
# itself in 10 minutes (add_key(2) and keyctl(2) through python: keyutils
# may be missing).
KEY_NAME=$HOST_MARK-key
cat >"$TEST_TMP/add-key.py" <<'EOF'
import ctypes, os, platform, sys
nr = {"x86_64": (248, 250), "aarch64": (217, 219)}.get(platform.machine())
if nr is None:
    sys.exit("no add_key number for " + platform.machine())
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
k = libc.syscall(ctypes.c_long(nr[0]), ctypes.c_char_p(b"user"),
                 ctypes.c_char_p(sys.argv[1].encode()), ctypes.c_char_p(b"x"),
                 ctypes.c_size_t(1), ctypes.c_int(-4))  # the user keyring
if k < 0:
    sys.exit("add_key: " + os.strerror(ctypes.get_errno()))
libc.syscall(ctypes.c_long(nr[1]), ctypes.c_int(15), ctypes.c_long(k),
             ctypes.c_uint(600))  # KEYCTL_SET_TIMEOUT
EOF
KEY_WHY=
python3 "$TEST_TMP/add-key.py" "$KEY_NAME" 2>"$TEST_TMP/add-key.err" ||
    KEY_WHY="cannot add a key: $(cat "$TEST_TMP/add-key.err")"
[ -n "$KEY_WHY" ] || grep -qs -e "$KEY_NAME" /proc/keys ||
    KEY_WHY="the key added is not in this host's /proc/keys"
TOKEN=ghp_$(unique_num)confineleak

# One run: the name, sysfs, the keys, the environment.
# The variables reach confine through a wrapper: set in this shell, a
# locale it does not have would make it complain.
cat >"$TEST_TMP/confine-env" <<EOF
#!/bin/sh
exec env LC_GITHUB_TOKEN=$TOKEN LC_ALL=en_US.UTF-8 LC_MESSAGES=$TOKEN \\
    "$CONFINE" "\$@"
EOF
chmod +x "$TEST_TMP/confine-env"
esc_ws
RC=0
CONFINE_REAL=$CONFINE
CONFINE=$TEST_TMP/confine-env
run_confine -- sh -c '
	echo "uname=$(uname -n)"
	echo "kernel.hostname=$(cat /proc/sys/kernel/hostname)"
	echo "class/net=$(ls /sys/class/net 2>&1 | tr "\n" " ")"
	echo "virtual/net=$(ls /sys/devices/virtual/net 2>&1 | tr "\n" " ")"
	for d; do [ -e "$d" ] && echo "present=$d"; done
	cat /proc/keys /proc/key-users 2>&1 | sed "s/^/keys: /"
	env | sed "s/^/env: /"
	tr "\0" "\n" </proc/self/environ | sed "s/^/environ: /"
	echo done' sh $(cat "$TEST_TMP/ifdirs")
RUN_RC=$RC
CONFINE=$CONFINE_REAL
cp "$OUT" "$TEST_TMP/leaks.out"
cp "$ERR" "$TEST_TMP/leaks.err"

ran() {
	OUT=$TEST_TMP/leaks.out ERR=$TEST_TMP/leaks.err
	assert_status "$RUN_RC" 0
	assert_file_has_content "$OUT" '^done$'
}

# L1: the host's name (the control: it is not "confine" already).
t_hostname() {
	not_on landlock "no uts namespace: the host's name shows"
	[ "$HOST_NAME" != confine ] || skip_case "this host is named confine"
	ran
	assert_file_has_content "$OUT" '^uname=confine$'
	assert_file_has_content "$OUT" '^kernel.hostname=confine$'
	assert_not_file_has_content "$OUT" "=$HOST_NAME\$"
}

# L2: the host's interfaces in sysfs, where a network namespace exists
# (the default network mode, none): neither /sys/class/net nor any
# interface's directory (a device's net/ or devices/virtual/net) shows.
t_sysfs() {
	not_on landlock "no network namespace: the host's interfaces show"
	[ -s "$TEST_TMP/ifdirs" ] || skip_case "no interface but lo on this host"
	ran
	while read -r d; do
		[ -e "$d" ] || fail "control: $d is gone outside"
		n=${d##*/}
		assert_not_file_has_content "$OUT" "^present=$d\$"
		assert_not_file_has_content "$OUT" "^class/net=.*\\<$n\\>"
		assert_not_file_has_content "$OUT" "^virtual/net=.*\\<$n\\>"
	done <"$TEST_TMP/ifdirs"
	# A sysfs of the sandbox's own shows its lo; the covered one, nothing.
	assert_file_has_content "$OUT" '^class/net=(lo )?$'
}

# L2, where the kernel refuses the sandbox a sysfs of its own (a
# container: the host's /sys is partly covered): the host's net
# directories are covered instead.  Root covers /sys/kernel in a mount
# namespace of the case's own; the control: a new sysfs is refused there.
t_sysfs_refused() {
	not_on "landlock bwrap" "no sysfs of its own to be refused"
	[ "$(id -u)" -eq 0 ] || skip_case "covering part of /sys needs root"
	[ -s "$TEST_TMP/ifdirs" ] || skip_case "no interface but lo on this host"
	[ -d /sys/kernel ] || skip_case "no /sys/kernel to cover"
	cat >"$TEST_TMP/confine-covered" <<EOF
#!/bin/sh
exec unshare -m sh -c 'mount -t tmpfs none /sys/kernel &&
    if unshare -Urnm mount -t sysfs none /mnt 2>/dev/null; then
	echo "a new sysfs is allowed"; exit 99
    fi; exec "\$@"' sh "$CONFINE" "\$@"
EOF
	chmod +x "$TEST_TMP/confine-covered"
	CONFINE=$TEST_TMP/confine-covered
	esc_ws
	run_confine -- sh -c '
		echo "class/net=$(ls /sys/class/net 2>&1 | tr "\n" " ")"
		for d; do [ -e "$d" ] && echo "present=$d"; done
		echo done' sh $(cat "$TEST_TMP/ifdirs")
	[ "$RC" -ne 99 ] || skip_case "the kernel allows a new sysfs even so"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^done$'
	assert_file_has_content "$OUT" '^class/net=$'
	assert_not_file_has_content "$OUT" '^present='
	assert_host_unchanged
}

# L3: the names of the user's keys.  The landlock backend shows the
# host's /proc: Landlock cannot leave /proc/keys out and still let the
# command read /proc/self (confine(1)); keyctl(2) is refused everywhere.
t_keys() {
	not_on landlock "the host's /proc: /proc/keys shows the user's key names"
	[ -z "$KEY_WHY" ] || skip_case "$KEY_WHY"
	ran
	assert_not_file_has_content "$OUT" "$KEY_NAME"
	assert_not_file_has_content "$OUT" '^keys: .*keyring'
}

# L4: a token in an LC_ variable (ssh's "SendEnv LC_*" trick) never
# passes; a locale name does.  The control: the token is in confine's own
# environment, which it read.
t_locale() {
	ran
	assert_file_has_content "$OUT" '^env: LC_ALL=en_US.UTF-8$'
	assert_not_file_has_content "$OUT" "$TOKEN"
	assert_not_file_has_content "$OUT" '^env: LC_GITHUB_TOKEN='
	assert_not_file_has_content "$OUT" '^env: LC_MESSAGES='
	assert_host_unchanged
}

tcase "L1: the host's name is not the sandbox's (confine)" t_hostname
tcase "L2: sysfs shows no host network interface" t_sysfs
tcase "L3: /proc/keys and /proc/key-users show no key of the user" t_keys
tcase "L4: LC_* passes a locale name, not a token" t_locale
# Last: its run takes a host snapshot of its own.
tcase "L2: a new sysfs refused, the host's net directories are covered" t_sysfs_refused
tap_done
