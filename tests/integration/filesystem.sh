#!/bin/sh
# SPDX-License-Identifier: ISC
# filesystem.sh - the sandbox's view: the host root read-only, a fresh
# /proc, a minimal /dev, private empty /tmp, /dev/shm and /run, an empty
# scratch home, no XDG_RUNTIME_DIR, no reachable host unix sockets.
# Under landlock, which mounts nothing, the host root is read-only by
# landlock (EACCES), the host's /tmp, /run, /dev (but for a few devices)
# and home are unreadable, and HOME and TMPDIR are the session's.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
require_userns
require_try_syscall
plan 13

# A directory of the host that is writable outside and covered by nothing
# in the sandbox: /var/tmp, when there is one.
VARTMP=
vartmp_cleanup() {
	[ -z "$VARTMP" ] || rm -rf "$VARTMP"
}
LIB_CLEANUP_HOOK=vartmp_cleanup
if [ -d /var/tmp ] && [ -w /var/tmp ]; then
	VARTMP=$(mktemp -d /var/tmp/confine-test.XXXXXX)
fi

# What writing a read-only path of the host says.
EROFS="Read-only file system"
[ "$BACKEND" != landlock ] || EROFS="Permission denied"

need_vartmp() {
	[ -n "$VARTMP" ] ||
	    skip_case "no writable /var/tmp for a host directory outside the sandbox's fresh trees"
}

t_root_ro_create() {
	ws_new
	need_vartmp
	# Control: the caller can create files there outside.
	touch "$VARTMP/control" && rm "$VARTMP/control" ||
	    fail "control: cannot create a file in $VARTMP outside"
	h=$(tree_hash "$VARTMP")
	usr=$(host_scratch "/usr/confine-test-new.$$")
	run_confine -- sh -c "touch '$VARTMP/new'; mkdir '$VARTMP/dir'; touch '$usr'"
	assert_file_has_content "$ERR" "cannot touch '$VARTMP/new': $EROFS"
	assert_file_has_content "$ERR" "cannot create directory .$VARTMP/dir.: $EROFS"
	assert_file_has_content "$ERR" "cannot touch '$usr': $EROFS"
	assert_not_exists "$VARTMP/new"
	assert_not_exists "$usr"
	assert_eq "$(tree_hash "$VARTMP")" "$h" "$VARTMP after the run"
	assert_ws_unchanged
}

t_root_ro_modify() {
	ws_new
	need_vartmp
	printf 'original\n' >"$VARTMP/file"
	# Control: the caller can write, rename and delete it outside.
	printf 'original\n' >>"$VARTMP/file" && printf 'original\n' >"$VARTMP/file" ||
	    fail "control: cannot write $VARTMP/file outside"
	h=$(tree_hash "$VARTMP")
	run_confine -- sh -c "echo changed >>'$VARTMP/file'; mv '$VARTMP/file' '$VARTMP/moved'; rm '$VARTMP/file'; chmod 0777 '$VARTMP/file'"
	assert_file_has_content "$ERR" "cannot create $VARTMP/file: $EROFS"
	assert_file_has_content "$ERR" "cannot move .*: $EROFS"
	assert_file_has_content "$ERR" "cannot remove '$VARTMP/file': $EROFS"
	# Landlock has no right for a mode: chmod is refused by seccomp (EPERM).
	chmod_err=$EROFS
	[ "$BACKEND" != landlock ] || chmod_err="Operation not permitted"
	assert_file_has_content "$ERR" "changing permissions of '$VARTMP/file': $chmod_err"
	assert_eq "$(cat "$VARTMP/file")" original "$VARTMP/file"
	assert_eq "$(tree_hash "$VARTMP")" "$h" "$VARTMP after the run"
	assert_ws_unchanged
}

t_dev() {
	ws_new
	# Control: the host's /dev has more than the sandbox's.
	[ "$(ls -A /dev | wc -l)" -gt 13 ] || fail "control: the host /dev is minimal"
	new=$(host_scratch "/dev/confine-test-new.$$")
	run_confine -- sh -c "ls -A /dev; echo --; head -c 4 /dev/zero | od -An -tx1; echo x >/dev/null && echo null-ok; touch '$new'"
	assert_status "$RC" 1
	case $BACKEND in
	native)
		printf '%s\n' fd full null ptmx pts random shm stderr stdin \
		    stdout tty urandom zero ;;
	bwrap)
		# bwrap's own /dev, a tmpfs made read-only, as native's.
		printf '%s\n' core fd full null ptmx pts random shm stderr \
		    stdin stdout tty urandom zero ;;
	landlock)
		# The host's /dev, unreadable but for a few devices.
		assert_file_has_content "$ERR" "cannot open directory '/dev': Permission denied" ;;
	esac >"$TEST_TMP/want"
	printf '%s\n' -- ' 00 00 00 00' null-ok >>"$TEST_TMP/want"
	cmp -s "$OUT" "$TEST_TMP/want" || {
		diag_file "$OUT" "inside"
		fail "/dev inside is not exactly the minimal set"
	}
	case $BACKEND in
	native|bwrap)
		assert_file_has_content "$ERR" "cannot touch '$new': $EROFS" ;;
	*) assert_file_has_content "$ERR" "cannot touch '$new': Permission denied" ;;
	esac
	assert_not_exists "$new"
	assert_ws_unchanged
}

t_proc() {
	not_on landlock "no pid namespace, no procfs of its own"
	ws_new
	run_confine -- sh -c 'awk "\$2 == \"/proc\" { t = \$3 } END { print t }" /proc/self/mounts; cat /proc/1/comm; read pid rest </proc/self/stat; echo $pid'
	assert_status "$RC" 0
	# Under bwrap, pid 1 is bwrap's own.
	pid1=$(pid1_name)
	printf 'proc\n%s\n2\n' "$pid1" >"$TEST_TMP/want"
	# A setuid bwrap keeps a process of its own between: pid 3.
	[ "$BACKEND" != bwrap ] || sed -i '3s/^3$/2/' "$OUT"
	cmp -s "$OUT" "$TEST_TMP/want" || {
		diag_file "$OUT" "inside"
		fail "/proc is not a procfs of the sandbox's pid namespace"
	}
	assert_ws_unchanged
}

t_tmp() {
	ws_new
	m=$(mktemp /tmp/confine-test-marker.XXXXXX)
	name=confine-test-inside.$$
	host_scratch "$m" >/dev/null
	host_scratch "/tmp/$name" >/dev/null
	# The workspace's path shows through when it is under /tmp, and so
	# does the home directory's, an empty tmpfs at its own path (a
	# package build's HOME is a directory of the build tree).
	first=
	case $WS in /tmp/*) first=${WS#/tmp/}; first=${first%%/*} ;; esac
	home_first=
	case ${HOME:-} in /tmp/?*) home_first=${HOME#/tmp/}; home_first=${home_first%%/*} ;; esac
	run_confine -- sh -c "ls -A /tmp; echo hi >/tmp/$name && echo wrote; stat -f -c %T /tmp"
	rc=$RC
	rm -f "$m"
	if [ "$BACKEND" = landlock ]; then
		# The host's /tmp, out of reach: neither listed nor written.
		assert_status "$rc" 0
		assert_file_has_content "$ERR" "cannot open directory '/tmp': Permission denied"
		assert_file_has_content "$ERR" "/tmp/$name: Permission denied"
		assert_not_file_has_content "$OUT" '^wrote$'
		assert_not_file_has_content "$OUT" "^${m#/tmp/}\$"
		assert_not_exists "/tmp/$name"
		assert_ws_unchanged
		return 0
	fi
	assert_status "$rc" 0
	assert_not_file_has_content "$OUT" "^${m#/tmp/}\$"
	assert_eq "$(grep -v -x -e "$first" -e "${home_first:-$first}" -e wrote -e tmpfs "$OUT" | wc -l)" 0 \
	    "entries of /tmp inside besides the workspace's path"
	assert_file_has_content "$OUT" '^wrote$'
	assert_file_has_content "$OUT" '^tmpfs$'
	assert_not_exists "/tmp/$name"
	assert_ws_unchanged
}

t_shm() {
	ws_new
	[ -d /dev/shm ] && [ -w /dev/shm ] || skip_case "no writable /dev/shm on the host"
	m=$(mktemp /dev/shm/confine-test-marker.XXXXXX)
	name=confine-test-inside.$$
	host_scratch "$m" >/dev/null
	host_scratch "/dev/shm/$name" >/dev/null
	run_confine -- sh -c "ls -A /dev/shm; echo hi >/dev/shm/$name && echo wrote"
	rc=$RC
	rm -f "$m"
	if [ "$BACKEND" = landlock ]; then
		# The host's /dev/shm, out of reach.
		assert_status "$rc" 2
		assert_file_empty "$OUT"
		assert_file_has_content "$ERR" "cannot open directory '/dev/shm': Permission denied"
		assert_file_has_content "$ERR" "/dev/shm/$name: Permission denied"
	else
		assert_status "$rc" 0
		assert_eq "$(cat "$OUT")" wrote "the output"
	fi
	assert_not_exists "/dev/shm/$name"
	assert_ws_unchanged
}

t_run() {
	ws_new
	[ -n "$(ls -A /run 2>/dev/null)" ] || skip_case "the host /run is empty: nothing to hide"
	run_confine -- sh -c 'ls -A /run; stat -f -c %T /run'
	assert_status "$RC" 0
	if [ "$BACKEND" = landlock ]; then
		# The host's /run, unreadable.
		assert_file_has_content "$ERR" "cannot open directory '/run': Permission denied"
		assert_lines "$OUT" 1
	else
		assert_eq "$(cat "$OUT")" tmpfs "/run inside"
	fi
	assert_ws_unchanged
}

t_home() {
	ws_new
	[ -n "$(ls -A "$HOME" 2>/dev/null)" ] ||
	    skip_case "the home directory $HOME is empty: nothing to hide"
	name=confine-test-scratch.$$
	host_scratch "$HOME/$name" >/dev/null
	if [ "$BACKEND" = landlock ]; then
		# HOME is the session's home/; the host's is unreadable.
		run_confine -- sh -c "ls -A '$HOME' || echo no-list; ls -A \"\$HOME\"; echo hi >\"\$HOME/$name\" && cat \"\$HOME/$name\"; echo x >'$HOME/$name' || echo no-write"
		assert_status "$RC" 0
		assert_file_has_content "$ERR" "cannot open directory '$HOME': Permission denied"
		printf 'no-list\nhi\nno-write\n' >"$TEST_TMP/want"
	else
		run_confine -- sh -c "ls -A \"\$HOME\"; stat -f -c %T \"\$HOME\"; echo hi >\"\$HOME/$name\" && cat \"\$HOME/$name\""
		assert_status "$RC" 0
		printf 'tmpfs\nhi\n' >"$TEST_TMP/want"
	fi
	cmp -s "$OUT" "$TEST_TMP/want" || {
		diag_file "$OUT" "inside"
		fail "the home directory inside is not an empty writable tmpfs"
	}
	assert_not_exists "$HOME/$name"
	assert_ws_unchanged
}

t_passwd_home() {
	ws_new
	need_vartmp
	me=$(id -un)
	pwhome=$(getent passwd "$me" | cut -d: -f6)
	[ -n "$pwhome" ] && [ -d "$pwhome" ] ||
	    skip_case "$me has no home directory in passwd"
	[ -n "$(ls -A "$pwhome" 2>/dev/null)" ] ||
	    skip_case "the passwd home $pwhome is empty: nothing to hide"
	mkdir "$VARTMP/home"
	echo marker >"$VARTMP/home/marker"
	HOME=$VARTMP/home run_confine -- sh -c "ls -A '$pwhome'; ls -A \"\$HOME\"; echo \"\$HOME\""
	assert_status "$RC" 0
	if [ "$BACKEND" = landlock ]; then
		# HOME is the session's home/, and the caller's HOME (here,
		# under /var/tmp) is the host's, read-only.
		assert_file_has_content "$ERR" "cannot open directory '$pwhome': Permission denied"
		assert_lines "$OUT" 1
		assert_file_has_content "$OUT" "^$SESSIONS/[0-9]{8}-[0-9]{6}\.[0-9]{3}-[0-9a-f]{8}/home\$"
	else
		assert_eq "$(cat "$OUT")" "$VARTMP/home" "the two homes' entries and HOME"
	fi
	assert_ws_unchanged
}

t_runtime_dir() {
	ws_new
	need_vartmp
	rt=$VARTMP/runtime
	mkdir -m 0700 "$rt"
	echo secret >"$rt/marker"
	XDG_RUNTIME_DIR=$rt run_confine -- sh -c "ls -A '$rt'; echo \"[\${XDG_RUNTIME_DIR:-unset}]\""
	assert_status "$RC" 0
	assert_eq "$(cat "$OUT")" "[unset]" "the runtime directory's entries and variable"
	assert_ws_unchanged
}

# t_socket WHERE: a listening pathname socket of the host, in WHERE.
t_socket() {
	ws_new
	case $1 in
	workspace) dir=$WS ;;
	vartmp) need_vartmp; dir=$VARTMP ;;
	esac
	sock=$dir/host.sock
	# A file of this case's own: the case before it left its server's
	# "ready" in one of the same name, which the wait could take.
	serve=$(mktemp "$TEST_TMP/serve.XXXXXX")
	"$TRY_SYSCALL" "unix_serve:$sock" >"$serve" &
	track_pid $!
	wait_for 5 grep -q ready "$serve" || fail "the host server did not start"
	# Control: it answers outside.
	assert_eq "$("$TRY_SYSCALL" "unix_connect:$sock")" "unix_connect OK" \
	    "control: connecting outside"
	WS_HASH=$(tree_hash "$WS")
	run_confine -- sh -c "'$TRY_IN' 'unix_connect:$sock'; test -S '$sock' || echo not-a-socket"
	assert_status "$RC" 0
	# Refused, whatever the errno says.
	assert_file_has_content "$OUT" '^unix_connect (EACCES|ECONNREFUSED|ENOENT)$'
	# native shows it through an overlay: a socket still, the overlay's
	# inode, with no listener.  On bwrap the supervisor makes the connect
	# and refuses a socket that is not the sandbox's own (EACCES).  Under
	# landlock socket(AF_UNIX) is refused.  (bwrap's copy of the
	# workspace holds no socket: ENOENT there.)
	[ "$BACKEND" != bwrap ] || [ "$1" != vartmp ] ||
	    assert_file_has_content "$OUT" '^unix_connect EACCES$'
	assert_ws_unchanged
}

tcase "the host root is read-only: creating gives EROFS" t_root_ro_create
tcase "the host root is read-only: writing, renaming, removing give EROFS" t_root_ro_modify
tcase "/dev holds exactly the minimal set and is read-only" t_dev
tcase "/proc is a fresh procfs of the pid namespace" t_proc
tcase "/tmp is private and empty" t_tmp
tcase "/dev/shm is private and empty" t_shm
tcase "/run is empty" t_run
tcase "the home directory is an empty writable tmpfs, discarded" t_home
tcase "XDG_RUNTIME_DIR is invisible" t_runtime_dir
tcase "with HOME elsewhere, both it and the passwd home are empty" t_passwd_home
tcase "a host unix socket in the workspace is unreachable" t_socket workspace
tcase "a host unix socket elsewhere on the host is unreachable" t_socket vartmp
tcase "the home directory of the host stays untouched" t_home
tap_done
