#!/bin/sh
# SPDX-License-Identifier: ISC
# paths.sh - escape catalogue 4.5 and 4.6 (W4, W5): path and exec tricks.
# Aliases of hidden paths (/proc/self/root, /proc/1/root, ..), the
# dynamic loader and memfd_create + fexecve (exec without execve of a
# file), and symbolic and hard links planted in the host workspace or
# made inside, pointing at files outside.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
. "$TESTS_SRCDIR/escape-lib.sh"
plan 13

LDSO=
for f in /lib64/ld-linux-x86-64.so.2 /lib/ld-linux-aarch64.so.1 \
    /lib/ld-linux-armhf.so.3 /lib/ld-linux.so.2 /lib/ld-musl-x86_64.so.1; do
	[ -x "$f" ] && { LDSO=$f; break; }
done

# A directory outside the workspace the user can write, on the same
# filesystem as /var/tmp, when there is one: visible inside, read-only.
VARTMP=
if [ -d /var/tmp ] && [ -w /var/tmp ]; then
	VARTMP=$(host_scratch "$(mktemp -d /var/tmp/confine-var.XXXXXX)")
fi

# E1: the home's secret through aliases of its path.
t_aliases() {
	esc_ws
	k=$HOME/.ssh/id_ed25519
	# Control: every alias reads it outside.
	for p in "/proc/self/root$k" "$HOME/./.ssh/../.ssh/id_ed25519" "/$k"; do
		grep -q "$HOME_SECRET" "$p" || fail "control: cannot read $p outside"
	done
	run_confine -- sh -c '
		for p in "/proc/self/root$1" "/proc/1/root$1" "/proc/$$/root$1" \
		    "$HOME/./.ssh/../.ssh/id_ed25519" "/$1" "$PWD/../home/.ssh/id_ed25519" \
		    "/proc/self/cwd/../home/.ssh/id_ed25519"; do
			cat "$p" 2>/dev/null
		done; echo DONE' sh "$k"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^DONE$'
	assert_not_file_has_content "$OUT" "$HOME_SECRET"
	assert_host_unchanged
}

# E3: the dynamic loader maps a program without execve: one in a hidden
# directory is not there to map.
t_ldso_hidden() {
	[ -n "$LDSO" ] || skip_case "no dynamic loader found (a static system)"
	esc_ws
	cp /bin/echo "$HOME/.local/bin/tool"
	host_snapshot
	out=$("$LDSO" "$HOME/.local/bin/tool" loaded) ||
	    fail "control: $LDSO cannot run the tool outside"
	assert_eq "$out" loaded "control: the tool through the loader"
	run_confine -- sh -c '"$1" "$2" loaded; "$2" loaded; true' sh "$LDSO" "$HOME/.local/bin/tool"
	assert_status "$RC" 0
	assert_not_file_has_content "$OUT" loaded
	assert_file_has_content "$ERR" 'No such file|cannot open|not found|Permission denied'
	assert_host_unchanged
}

# E3: the noexec mounts inside (/dev/shm, /run) refuse both an exec and
# the loader's executable mapping.
t_ldso_noexec() {
	[ -n "$LDSO" ] || skip_case "no dynamic loader found (a static system)"
	esc_ws
	# Control: a copy in a directory of the test runs either way.
	cp /bin/echo "$TEST_TMP/echo-copy"
	assert_eq "$("$TEST_TMP/echo-copy" x; "$LDSO" "$TEST_TMP/echo-copy" y)" "x
y" "control: a copied program runs outside"
	run_confine -- sh -c '
		for d in /dev/shm /run; do
			cp /bin/echo "$d/e" && echo "COPIED $d" || continue
			"$d/e" EXECUTED
			"$1" "$d/e" LOADED
		done; echo DONE' sh "$LDSO"
	assert_status "$RC" 0
	case $BACKEND in
	landlock) ;;	# the host's /dev/shm, closed by Landlock
	*)
		# The sealed policy makes /dev/shm writable, and noexec.
		assert_file_has_content "$OUT" '^COPIED /dev/shm$' ;;
	esac
	assert_not_file_has_content "$OUT" 'EXECUTED'
	case $BACKEND in
	bwrap)
		# bwrap mounts /dev/shm without noexec: Landlock refuses the
		# exec, but not the loader's mapping (Landlock's EXECUTE is for
		# execve).  Nothing is gained: the command runs its own
		# programs from /tmp and the workspace all the same.
		;;
	*)	assert_not_file_has_content "$OUT" 'LOADED' ;;
	esac
	assert_file_has_content "$ERR" 'Permission denied|failed to map|cannot'
	assert_host_unchanged
}

# E4: memfd_create + fexecve runs what the command wrote without a file,
# inside the same confinement: the program it runs still cannot read the
# hidden home, and still has the filter and no_new_privs.
t_memfd() {
	esc_ws
	out=$("$TRY_SYSCALL" memfd_exec:/bin/cat "$HOME/.ssh/id_ed25519")
	assert_eq "$out" "$HOME_SECRET" "control: memfd exec of cat outside"
	run_confine -- sh -c '
		"$1" memfd_exec:/bin/cat "$HOME/.ssh/id_ed25519"
		"$1" memfd_exec:/bin/grep -E "^(Seccomp|NoNewPrivs):" /proc/self/status
		"$1" memfd_exec:/bin/sh -c "echo pwned >\"\$0\" && echo WROTE" "$2"
		true' sh "$TRY_IN" "$(mark "${VARTMP:-/usr}")"
	assert_status "$RC" 0
	assert_not_file_has_content "$OUT" "$HOME_SECRET|WROTE"
	assert_file_has_content "$OUT" '^Seccomp:[[:space:]]+2$'
	assert_file_has_content "$OUT" '^NoNewPrivs:[[:space:]]+1$'
	assert_host_unchanged
}

# W4: a symbolic link in the host workspace (committed, as in a cloned
# repository) to the home's secret.
t_symlink_secret() {
	esc_ws
	ln -s "$HOME/.ssh/id_ed25519" "$WS/leak"
	ln -s "$HOME/.ssh" "$WS/leakdir"
	host_snapshot
	grep -q "$HOME_SECRET" "$WS/leak" || fail "control: the link reads the secret outside"
	run_confine -- sh -c 'cat leak leakdir/id_ed25519 2>&1; ls leakdir/ 2>&1; echo DONE'
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^DONE$'
	assert_not_file_has_content "$OUT" "$HOME_SECRET|id_ed25519\$"
	assert_host_unchanged
}

# W4: a symbolic link in the host workspace to a writable directory
# outside (/tmp's canary, /var/tmp): no write goes through it.
t_symlink_write() {
	esc_ws
	ln -s "$HOST_CANARY" "$WS/canary"
	[ -z "$VARTMP" ] || { echo original >"$VARTMP/file" && ln -s "$VARTMP" "$WS/vartmp"; }
	host_snapshot
	# Control: writable through the links outside.
	[ -w "$WS/canary/file" ] || fail "control: the canary is not writable through the link outside"
	[ -z "$VARTMP" ] || [ -w "$WS/vartmp/file" ] || fail "control: /var/tmp is not writable through the link outside"
	run_confine -- sh -c '
		for d in canary vartmp; do
			[ -L "$d" ] || continue
			echo pwned >>"$d/file" && echo "WROTE $d"
			echo pwned >"$d/$1" && echo "MADE $d"
			ln -sf /bin/sh "$d/run.sh" && echo "REPLACED $d"
		done; true' sh "$HOST_MARK"
	assert_status "$RC" 0
	assert_not_file_has_content "$OUT" 'WROTE|MADE|REPLACED'
	[ -z "$VARTMP" ] || assert_eq "$(cat "$VARTMP/file")" original "the file in /var/tmp"
	assert_host_unchanged
}

# W5: a hard link in the host workspace to a file outside it: a write
# inside lands on a copy in the session, never on the shared inode.
t_hardlink_planted() {
	esc_ws
	mkdir "$TEST_TMP/outside"
	echo original >"$TEST_TMP/outside/target"
	ln "$TEST_TMP/outside/target" "$WS/hl" || skip_case "control: no hard links on this filesystem"
	host_snapshot
	# Control: outside, the two names are one file.
	assert_eq "$(stat -c %i "$WS/hl")" "$(stat -c %i "$TEST_TMP/outside/target")" "control: the inode"
	run_confine -- sh -c 'echo pwned >>hl && cat hl'
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^pwned$'
	assert_eq "$(cat "$TEST_TMP/outside/target")" original "the file outside"
	assert_host_unchanged
}

# W5: a hard link made inside to a file outside the workspace.
t_hardlink_made() {
	[ -n "$VARTMP" ] || skip_case "no writable /var/tmp for a file outside the workspace"
	esc_ws
	echo original >"$VARTMP/target"
	chmod 0666 "$VARTMP/target"
	# Control: outside, a hard link to it can be made (same filesystem).
	ln "$VARTMP/target" "$VARTMP/control-link" ||
	    skip_case "control: /var/tmp refuses hard links here"
	rm -f "$VARTMP/control-link"
	host_snapshot
	run_confine -- sh -c '
		ln "$1" h1 && echo LINKED && echo pwned >>h1
		ln /etc/passwd h2 && echo LINKED
		ln "$HOME/.bashrc" h3 2>/dev/null && echo pwned >>h3; true' sh "$VARTMP/target"
	assert_status "$RC" 0
	assert_not_file_has_content "$OUT" LINKED
	assert_file_has_content "$ERR" 'Invalid cross-device link|Operation not permitted|Permission denied|Read-only'
	assert_eq "$(cat "$VARTMP/target")" original "the file outside"
	assert_host_unchanged
}

# Moving a file out of the workspace (rename, or mv's copy fallback).
t_move_out() {
	esc_ws
	dests="$(mark "${VARTMP:-/var/tmp}") $(mark /dev/shm) $(mark "$REAL_HOME")"
	# Control: mv to such a place works outside.
	cp "$WS/README" "$TEST_TMP/README.copy"
	mv "$TEST_TMP/README.copy" "$(mark /dev/shm control)" ||
	    fail "control: mv to /dev/shm outside"
	rm -f "$(mark /dev/shm control)"
	run_confine -- sh -c 'for d; do cp README x && mv x "$d" && echo "MOVED $d"; done; true' sh $dests
	assert_status "$RC" 0
	for d in $dests; do
		case $d in
		/dev/shm/*) ;;	# a private /dev/shm inside: the move is
				# allowed there and lost
		*) assert_not_file_has_content "$OUT" "MOVED $d" ;;
		esac
		assert_not_exists "$d"
	done
	assert_host_unchanged
}

# The session directory (the upper layer, other sessions' patches and
# reports, which confine later reads) and the old root that mountinfo
# names are out of reach, so the command cannot edit what the user will
# review.  The running session's own directory too: under the landlock
# backend, the parent of the command's working directory (the copy).
t_state() {
	esc_ws
	mkdir -p "$SESSIONS/20000101-000000-00000000"
	echo 'old patch' >"$SESSIONS/20000101-000000-00000000/changes.patch"
	host_snapshot
	run_confine -- sh -c '
		grep -o "upperdir=[^,]*" /proc/self/mountinfo | sed "s/upperdir=//" >.t/upper
		own=
		[ "$2" != landlock ] || own="$PWD/.."
		for d in "$1" "$1/20000101-000000-00000000" "$1/$CONFINE_SESSION" \
		    /oldroot $(cat .t/upper) $own; do
			ls "$d" >/dev/null 2>&1 && echo "LISTED $d"
			echo pwned >"$d/x" 2>/dev/null && echo "WROTE $d"
		done
		echo pwned >>"$1/20000101-000000-00000000/changes.patch" && echo WROTE-PATCH
		true' sh "$SESSIONS" "$BACKEND"
	assert_status "$RC" 0
	assert_not_file_has_content "$OUT" 'LISTED|WROTE'
	assert_eq "$(cat "$SESSIONS/20000101-000000-00000000/changes.patch")" 'old patch' "the other session's patch"
	assert_host_unchanged
}

# W4: a path the options name (--ro, --scratch, --hide, --direct) that
# goes through a symbolic link planted in the workspace, to the home: the
# mount would land on the link's target.  Refused before the command runs.
t_option_symlink() {
	esc_ws
	ln -s "$HOME/.ssh" "$WS/leak"
	printf '[profile]\nquadrant = online\n[workspace]\nprivate = no\n' >"$TEST_TMP/online.ini"
	host_snapshot
	# Control: outside, the link leads to the secret.
	grep -q "$HOME_SECRET" "$WS/leak/id_ed25519" || fail "control: the link does not lead to the secret"
	for o in "--ro $WS/leak" "--ro $WS/leak/id_ed25519" "--scratch $WS/leak" \
	    "--hide $WS/leak" "-p $TEST_TMP/online.ini --direct $WS/leak" \
	    "-p $TEST_TMP/online.ini --direct $WS/leak/id_ed25519"; do
		run_confine $o -- sh -c 'cat leak/id_ed25519; echo pwned >leak/x && echo WROTE'
		[ "$RC" -ne 0 ] || fail "$o: the command ran and exited 0"
		assert_not_file_has_content "$OUT" "$HOME_SECRET|WROTE"
		case $BACKEND in
		landlock) ;;
		*)
			assert_status "$RC" 125
			assert_refusal "$ERR" ;;
		esac
	done
	assert_host_unchanged
}

# A workspace named through a symbolic link to the home: resolved, and
# refused as a workspace that contains the home.
t_ws_symlink() {
	esc_ws
	ln -s "$HOME" "$TEST_TMP/wslink"
	host_snapshot
	# Control: the link leads to the home outside.
	[ -f "$TEST_TMP/wslink/.ssh/id_ed25519" ] || fail "control: the link does not lead to the home"
	RUN_CWD=$TEST_TMP run_confine -w "$TEST_TMP/wslink" -- sh -c 'cat .ssh/id_ed25519; echo pwned >>.bashrc && echo WROTE'
	assert_status "$RC" 125
	assert_refusal "$ERR"
	assert_file_has_content "$ERR" "^confine: workspace '$HOME' contains the home directory"
	assert_not_file_has_content "$OUT" "$HOME_SECRET|WROTE"
	assert_host_unchanged
}

# A hidden path inside another (the runtime directory under /run, a home
# under /tmp, as here) hides the outer one whole: its other files stay
# out of reach too.
t_nested_hidden() {
	esc_ws
	[ -d /run/lock ] && [ -w /run/lock ] || skip_case "no /run/lock this user can write"
	rt=$(mark /run/lock rt)
	mkdir -m 0700 "$rt"
	rf=$(mark /run/lock file)
	echo "$HOME_SECRET-run" >"$rf"
	tf=$TEST_TMP/beside-home
	echo "$HOME_SECRET-tmp" >"$tf"
	chmod 0644 "$rf" "$tf"
	host_snapshot
	# Control: both are there to read outside.
	grep -q -e "$HOME_SECRET-run" "$rf" || fail "control: cannot read $rf"
	grep -q -e "$HOME_SECRET-tmp" "$tf" || fail "control: cannot read $tf"
	case $HOME in
	/tmp/*) ;;
	*) diag "the home is not under /tmp here: the /run case alone is nested" ;;
	esac
	XDG_RUNTIME_DIR=$rt
	export XDG_RUNTIME_DIR
	run_confine -- sh -c '
		for f; do
			cat "$f"
			ls "${f%/*}" 2>/dev/null | grep -q -x -e "${f##*/}" && echo "LISTED $f"
		done
		echo DONE' sh "$rf" "$tf"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^DONE$'
	assert_not_file_has_content "$OUT" "$HOME_SECRET|LISTED"
	assert_host_unchanged
}

tcase "E1 the home's secret through /proc/self/root, /proc/1/root, // and .." t_aliases
tcase "E3 the dynamic loader cannot map a program from a hidden home" t_ldso_hidden
tcase "E3 the noexec mounts refuse exec and the loader's mapping" t_ldso_noexec
tcase "E4 memfd_create + fexecve: the program stays confined" t_memfd
tcase "W4 a planted symlink to the home's secret reads nothing" t_symlink_secret
tcase "W4 a planted symlink to a writable host dir writes nothing there" t_symlink_write
tcase "W5 a planted hard link: writes land on a copy, not the shared inode" t_hardlink_planted
tcase "W5 a hard link made inside to a host file: refused" t_hardlink_made
tcase "files moved out of the workspace reach no host directory" t_move_out
tcase "the session directory and the old root are out of reach" t_state
tcase "W4 option paths through a planted symlink to the home: refused" t_option_symlink
tcase "a workspace given as a symlink to the home: refused" t_ws_symlink
tcase "a hidden path inside another leaves the outer one hidden (/run, /tmp)" t_nested_hidden
tap_done
