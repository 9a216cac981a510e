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
# A key named after this run, in a session keyring of its own that only
# the processes under keywrap.py possess (no other test of this user sees
# it): keywrap.py joins a new session keyring, adds the key readable by
# its possessors alone, checks that /proc/keys shows it there (the
# control, in KEY_CONTROL), then runs the rest of its command line
# (add_key(2) and keyctl(2) through python: keyutils may be missing).
KEY_NAME=$HOST_MARK-key
KEY_CONTROL=$TEST_TMP/key-control
cat >"$TEST_TMP/keywrap.py" <<'EOF'
import ctypes, os, platform, sys
nr = {"x86_64": (248, 250), "aarch64": (217, 219)}.get(platform.machine())
if nr is None:
    sys.exit("no add_key number for " + platform.machine())
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def keyctl(*args):
    return libc.syscall(ctypes.c_long(nr[1]), *[ctypes.c_long(a) for a in args])
name, control, argv = sys.argv[1], sys.argv[2], sys.argv[3:]
if keyctl(1, 0) < 0:  # KEYCTL_JOIN_SESSION_KEYRING, anonymous
    sys.exit("join a session keyring: " + os.strerror(ctypes.get_errno()))
k = libc.syscall(ctypes.c_long(nr[0]), ctypes.c_char_p(b"user"),
                 ctypes.c_char_p(name.encode()), ctypes.c_char_p(b"x"),
                 ctypes.c_size_t(1), ctypes.c_int(-3))  # the session keyring
if k < 0:
    sys.exit("add_key: " + os.strerror(ctypes.get_errno()))
keyctl(5, k, 0x3f000000)  # KEYCTL_SETPERM: its possessors only
keyctl(15, k, 600)        # KEYCTL_SET_TIMEOUT
with open("/proc/keys") as f, open(control, "w") as c:
    if name in f.read():
        c.write("shown\n")
os.execvp(argv[0], argv)
EOF
TOKEN=ghp_$(unique_num)confineleak

# One run: the name, sysfs, the environment.
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

# L3: the names of the user's keys.  Its own run, under keywrap.py, which
# holds the key.  The landlock backend shows the host's /proc (Landlock
# cannot leave /proc/keys out and still let the command read /proc/self):
# it refuses to run while keys would show.  keyctl(2) is refused
# everywhere.
t_keys() {
	command -v python3 >/dev/null || skip_case "python3 makes the key"
	cat >"$TEST_TMP/confine-key" <<-EOF
	#!/bin/sh
	exec python3 "$TEST_TMP/keywrap.py" "$KEY_NAME" "$KEY_CONTROL" \\
	    "$CONFINE" "\$@"
	EOF
	chmod +x "$TEST_TMP/confine-key"
	CONFINE_REAL=$CONFINE
	CONFINE=$TEST_TMP/confine-key
	run_confine -- sh -c '
		cat /proc/keys /proc/key-users 2>&1 | sed "s/^/keys: /"
		echo done'
	CONFINE=$CONFINE_REAL
	[ -s "$KEY_CONTROL" ] ||
	    skip_case "no key to look for: $(cat "$ERR")"
	assert_not_file_has_content "$OUT" "$KEY_NAME"
	if [ "$BACKEND" = landlock ]; then
		assert_status "$RC" 125
		assert_file_has_content "$ERR" 'would show the command the names of 1 of your kernel keys in /proc/keys'
		assert_not_file_has_content "$OUT" '^done$'
	else
		assert_status "$RC" 0
		assert_file_has_content "$OUT" '^done$'
		assert_not_file_has_content "$OUT" '^keys: .*keyring'
	fi
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
