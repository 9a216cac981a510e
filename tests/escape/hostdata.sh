#!/bin/sh
# SPDX-License-Identifier: ISC
# hostdata.sh - the rule of two for the host's own data:
# a quadrant with leg C (online here, with no network so every backend can
# run it) shows the host from an allow-list: no other user's home, no /srv,
# /mnt, /media, /var (its logs above all), no /etc entry the world cannot
# read, the session's own /etc/machine-id.  A root caller is refused there
# (it would read root-only files as their owner).  A quadrant without leg
# C (sealed) still sees the host read-only, as before.
#
# The host data is planted by root (other users' homes, /srv, /mnt, /media
# and /var/log take root to write in); the command then runs as the
# unprivileged confine-ci, the files world-readable so the positive control
# (the same user, outside) reads them.  Run unprivileged, the test plants
# what such a user can: a file in /var/tmp, which is under /var.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
. "$TESTS_SRCDIR/escape-lib.sh"
plan 4

N=$(unique_num)

# The unprivileged user the command runs as, and how to become it.
if [ "$(id -u)" -eq 0 ]; then
	AS=confine-ci
	id "$AS" >/dev/null 2>&1 || AS=
else
	AS=$(id -un)
fi
as_user() {
	if [ "$(id -u)" -eq 0 ]; then
		setpriv --reuid="$AS" --regid="$AS" --init-groups \
		    env HOME="$U_HOME" XDG_STATE_HOME="$U_HOME/state" "$@"
	else
		env HOME="$U_HOME" XDG_STATE_HOME="$U_HOME/state" "$@"
	fi
}

# A directory of the user's own, outside TEST_TMP (root's, mode 0700):
# its home, state and workspace.
U_DIR=$(host_scratch "$(mktemp -d /tmp/confine-hostdata.XXXXXX)")
U_HOME=$U_DIR/home
U_WS=$U_DIR/ws
mkdir -p "$U_HOME" "$U_WS"
[ -z "$AS" ] || [ "$(id -u)" -ne 0 ] || chown -R "$AS:" "$U_DIR"
chmod 0755 "$U_DIR"
ONLINE=$U_DIR/online.ini
printf '[profile]\nquadrant = online\n[workspace]\nprivate = no\n[network]\nmode = none\n' >"$ONLINE"
chmod 0644 "$ONLINE"

# plant PATH: a world-readable file holding the secret, removed at exit.
SECRET=confine-hostdata-secret-$N
PLANTED=
plant() {
	mkdir -p "$(dirname "$1")" && printf '%s\n' "$SECRET" >"$1" &&
	    chmod 0644 "$1" || return 1
	PLANTED="$PLANTED $1"
}
if [ "$(id -u)" -eq 0 ]; then
	OTHER=$(host_scratch "/home/confine-other-$N")
	mkdir -m 0755 "$OTHER"
	plant "$OTHER/notes"
	for d in /srv /mnt /media /var/log; do
		[ -d "$d" ] || continue
		plant "$(host_scratch "$d/confine-hostdata-$N")"
	done
fi
[ -d /var/tmp ] && [ -w /var/tmp ] &&
    plant "$(host_scratch "/var/tmp/confine-hostdata-$N")"

# The probe run inside: each planted file (read, and its directory
# listed), the machine id, /etc/shadow, and a control that the view runs
# programs and reads world-readable /etc.
PROBE='
for f; do
	cat "$f" 2>/dev/null | grep -q . && echo "READ $f"
	ls "${f%/*}" 2>/dev/null | grep -q "${f##*/}" && echo "LISTED $f"
done
echo "MID $(cat /etc/machine-id 2>/dev/null)"
cat /etc/shadow >/dev/null 2>&1 && echo "READ /etc/shadow"
grep -q "^root:" /etc/passwd && echo PASSWD
ls /usr/bin >/dev/null && echo USR
echo DONE'

# Leg C: none of it is readable or listable; the command runs.
t_hidden() {
	[ -n "$AS" ] || skip_case "no user confine-ci to run the command as"
	[ -n "$PLANTED" ] || skip_case "nowhere to plant host data here"
	# Control: the same user, outside, reads every planted file.
	for f in $PLANTED; do
		as_user cat "$f" | grep -q "$SECRET" ||
		    fail "control: $AS cannot read $f outside"
	done
	RC=0
	# shellcheck disable=SC2086
	(cd "$U_WS" && as_user timeout -k 5 "$CONFINE_TIMEOUT" "$CONFINE" -q \
	    -p "$ONLINE" -- sh -c "$PROBE" sh $PLANTED) \
	    </dev/null >"$OUT" 2>"$ERR" || RC=$?
	drop_notice "$ERR"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^DONE$'
	assert_file_has_content "$OUT" '^PASSWD$'
	assert_file_has_content "$OUT" '^USR$'
	assert_not_file_has_content "$OUT" '^READ '
	assert_not_file_has_content "$OUT" '^LISTED '
	host_mid=$(cat /etc/machine-id 2>/dev/null || :)
	in_mid=$(sed -n 's/^MID //p' "$OUT")
	if [ -n "$host_mid" ]; then
		assert_ne "$in_mid" "$host_mid"
	fi
}

# Leg C: an entry made in /etc after the session started, which the scan
# at the start cannot have seen, is not readable either (Landlock's rules
# on /etc are made entry by entry at the start).  Group-readable by the
# user, so the control outside reads it.
t_etc_late() {
	[ "$(id -u)" -eq 0 ] || skip_case "only root can make an entry in /etc"
	[ -n "$AS" ] || skip_case "no user confine-ci to run the command as"
	late=$(host_scratch "/etc/confine-hostdata-late-$N")
	tmp=$(host_scratch "/etc/.confine-hostdata-late-$N.tmp")
	(cd "$U_WS" && exec setpriv --reuid="$AS" --regid="$AS" --init-groups \
	    env HOME="$U_HOME" XDG_STATE_HOME="$U_HOME/state" \
	    timeout -k 5 "$CONFINE_TIMEOUT" "$CONFINE" -q -p "$ONLINE" -- sh -c '
		echo >started
		i=0
		while [ ! -e "$1" ] && [ "$i" -lt "$2" ]; do
			sleep 0.1
			i=$((i + 1))
		done
		[ -e "$1" ] && echo SEEN
		cat "$1" 2>/dev/null | grep -q . && echo READ
		echo DONE' sh "$late" "$((100 * TEST_TIME_FACTOR))") \
	    </dev/null >"$OUT" 2>"$ERR" &
	pid=$!
	# The command is running once its first write reaches the session.
	wait_for 10 sh -c 'ls "$1"/state/confine/sessions/*/upper/started' \
	    sh "$U_HOME" >/dev/null 2>&1 || {
		kill "$pid" 2>/dev/null
		fail "the command did not start"
	}
	(umask 077 && printf '%s\n' "$SECRET" >"$tmp")
	chown "root:$AS" "$tmp"
	chmod 0640 "$tmp"
	mv "$tmp" "$late"
	# Control: the user reads it outside, through its group.
	as_user cat "$late" | grep -q "$SECRET" ||
	    fail "control: $AS cannot read $late outside"
	RC=0
	wait "$pid" || RC=$?
	drop_notice "$ERR"
	assert_status "$RC" 0
	# native shows /etc through a read-only overlay, which keeps the
	# command's failed lookups: the late entry may not even be seen there.
	case $BACKEND in
	bwrap | landlock) assert_file_has_content "$OUT" '^SEEN$' ;;
	esac
	assert_file_has_content "$OUT" '^DONE$'
	assert_not_file_has_content "$OUT" '^READ$'
}

# Root: refused in a quadrant with leg C, before the command runs.
t_root_refused() {
	[ "$(id -u)" -eq 0 ] || skip_case "the caller is not root"
	esc_ws
	ran=$(mark /tmp ran)
	run_confine -p "$ONLINE" -- sh -c "touch '$ran'; cat /etc/shadow"
	assert_status "$RC" 125
	assert_refusal "$ERR"
	assert_file_has_content "$ERR" 'caller is root'
	assert_not_exists "$ran"
	assert_file_empty "$OUT"
	assert_host_unchanged
}

# No leg C (sealed): the host read-only as before, the planted files too.
t_sealed_sees() {
	[ -n "$AS" ] || skip_case "no user confine-ci to run the command as"
	[ -n "$PLANTED" ] || skip_case "nowhere to plant host data here"
	RC=0
	# shellcheck disable=SC2086
	(cd "$U_WS" && as_user timeout -k 5 "$CONFINE_TIMEOUT" "$CONFINE" -q \
	    -- sh -c "$PROBE"'
for f; do echo x >>"$f" 2>/dev/null && echo "WROTE $f"; done
:' sh $PLANTED) </dev/null >"$OUT" 2>"$ERR" || RC=$?
	drop_notice "$ERR"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^DONE$'
	assert_not_file_has_content "$OUT" '^WROTE '
	for f in $PLANTED; do
		assert_file_has_content "$OUT" "^READ $f\$"
		assert_eq "$(cat "$f")" "$SECRET"
	done
}

tcase "leg C: other homes, /srv, /mnt, /media, /var not readable or listable; machine id the session's" t_hidden
tcase "leg C: an /etc entry made after the start is not readable" t_etc_late
tcase "leg C, a root caller: refused (125) before the command runs" t_root_refused
tcase "no leg C (sealed): the host read-only as before" t_sealed_sees
