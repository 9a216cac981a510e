#!/bin/sh
# SPDX-License-Identifier: ISC
# profile-mounts.sh - the [filesystem] keys of a profile, enforced for
# real: read-only (paths in the hidden home directory, in the offline
# quadrant), hide, scratch (a directory, a file, a missing path) and
# direct (the online quadrant, network none).  The host is unchanged after
# every case but the direct one, where the write reaching the host is the
# point.  The landlock backend has no mount namespace: the home's paths
# appear in the session's home (HOME), scratch ones as copies, read-only
# ones as links that Landlock keeps read-only (EACCES); scratch outside the
# home is refused.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
. "$TESTS_SRCDIR/profile-lib.sh"
require_userns
plan 10

# What a write to a read-only path gives.
if [ "$BACKEND" = landlock ]; then
	RO_ERR="Permission denied"
else
	RO_ERR="Read-only file system"
fi

# home_inside: an ERE for the home directory as the command names it: the
# session's under landlock.
home_inside() {
	if [ "$BACKEND" = landlock ]; then
		printf '%s\n' "$SESSIONS/[0-9a-f.-]+/home"
	else
		printf '%s\n' "$H"
	fi
}

# landlock_refuses_scratch: under landlock, the last run was refused for a
# scratch path outside the home, before the command ran.
landlock_refuses_scratch() {
	assert_status "$RC" 125
	assert_refusal "$ERR"
	assert_file_has_content "$ERR" \
	    "^confine: scratch = .*: the landlock backend has no mount namespace, so only paths in the home directory can be given a private copy"
	assert_file_empty "$OUT"
	assert_no_session
}

# home_new: a home directory of our own for the run (HOME), with a file
# and a directory in it.
home_new() {
	H=$TEST_TMP/home
	mkdir -p "$H/xd/sub"
	printf 'home file\n' >"$H/x"
	printf 'in dir\n' >"$H/xd/f"
	printf 'private\n' >"$H/other"
	H_HASH=$(tree_hash "$H")
}

t_read_only() {
	ws_new
	cfg_new
	home_new
	prof ro <<-'EOF' >/dev/null
	[profile]
	quadrant = offline
	[filesystem]
	read-only = ~/x
	read-only = ~/xd
	EOF
	# Control: without the profile, the home directory is empty inside.
	HOME=$H run_confine -- sh -c 'ls -A "$HOME"'
	assert_status "$RC" 0
	assert_file_empty "$OUT"
	HOME=$H run_confine -p ro -- sh -c '
		cat "$HOME/x" "$HOME/xd/f"
		ls -A "$HOME"
		echo more >>"$HOME/x" && echo wrote-x
		echo new >"$HOME/xd/new" && echo wrote-xd
		rm "$HOME/xd/f" && echo removed
		exit 0'
	assert_status "$RC" 0
	printf 'home file\nin dir\nx\nxd\n' >"$TEST_TMP/want"
	cmp -s "$OUT" "$TEST_TMP/want" || {
		diag_file "$OUT" "inside"
		fail "the read-only paths are not exactly what is visible"
	}
	hi=$(home_inside)
	assert_file_has_content "$ERR" "$hi/x: $RO_ERR"
	assert_file_has_content "$ERR" "$hi/xd/new: $RO_ERR"
	assert_file_has_content "$ERR" "cannot remove '$hi/xd/f': $RO_ERR"
	assert_eq "$(tree_hash "$H")" "$H_HASH" "the home directory after the run"
	assert_ws_unchanged
}

t_hide_dir() {
	ws_new
	cfg_new
	vartmp_dir
	mkdir "$VT/secret"
	printf 'key\n' >"$VT/secret/key"
	printf 'visible\n' >"$VT/sibling"
	h=$(tree_hash "$VT")
	f=$(printf '[filesystem]\nhide = %s\n' "$VT/secret" | prof hider)
	# Control: visible by default.
	run_confine -- sh -c "cat '$VT/secret/key'"
	assert_status "$RC" 0
	assert_eq "$(cat "$OUT")" key "the file without hide"
	run_confine -p hider -- sh -c "
		ls -A '$VT/secret'; echo --
		cat '$VT/secret/key' || echo no-key
		cat '$VT/sibling'
		touch '$VT/secret/new' || echo no-write"
	assert_status "$RC" 0
	printf -- '--\nno-key\nvisible\nno-write\n' >"$TEST_TMP/want"
	cmp -s "$OUT" "$TEST_TMP/want" || {
		diag_file "$OUT" "inside"
		fail "the hidden directory is not empty and read-only inside"
	}
	assert_eq "$(tree_hash "$VT")" "$h" "$VT after the run"
	assert_ws_unchanged
}

t_hide_file() {
	ws_new
	cfg_new
	vartmp_dir
	printf 'token\n' >"$VT/token"
	h=$(tree_hash "$VT")
	printf '[filesystem]\nhide = %s\n' "$VT/token" | prof hider >/dev/null
	run_confine -- cat "$VT/token"
	assert_status "$RC" 0
	assert_eq "$(cat "$OUT")" token "control: the file without hide"
	run_confine -p hider -- sh -c "cat '$VT/token' 2>/dev/null; echo status \$?"
	assert_status "$RC" 0
	assert_not_file_has_content "$OUT" token
	assert_eq "$(tail -n 1 "$OUT")" "status 1" "reading the hidden file"
	assert_eq "$(tree_hash "$VT")" "$h" "$VT after the run"
	assert_ws_unchanged
}

# t_scratch_dir [home]: a scratch directory under /var/tmp, or in the home
# (named by HOME inside: the session's under landlock).
t_scratch_dir() {
	ws_new
	cfg_new
	if [ "${1:-}" = home ]; then
		home_new
		VT=$H
		mkdir "$VT/cache"
		printf '[profile]\nquadrant = offline\n[filesystem]\nscratch = ~/cache\n' |
		    prof scr >/dev/null
		in='$HOME/cache'
	else
		vartmp_dir
		mkdir "$VT/cache"
		printf '[filesystem]\nscratch = %s\n' "$VT/cache" | prof scr >/dev/null
		in=$VT/cache
	fi
	printf 'original\n' >"$VT/cache/f"
	printf 'gone\n' >"$VT/cache/del"
	h=$(tree_hash "$VT")
	HOME=${H:-$HOME} run_confine -p scr -- sh -c "
		cd \"$in\" || exit 9
		cat f
		echo changed >f && echo new >g && rm del && mkdir d || exit 8
		cat f g; ls -A"
	if [ "$BACKEND" = landlock ] && [ "${1:-}" != home ]; then
		landlock_refuses_scratch
		assert_eq "$(tree_hash "$VT")" "$h" "$VT after the run"
		assert_ws_unchanged
		return 0
	fi
	assert_status "$RC" 0
	printf 'original\nchanged\nnew\nd\nf\ng\n' >"$TEST_TMP/want"
	cmp -s "$OUT" "$TEST_TMP/want" || {
		diag_file "$OUT" "inside"
		fail "the scratch directory is not writable with the host's content"
	}
	assert_eq "$(tree_hash "$VT")" "$h" "$VT after the run"
	# A second run starts from the host's content again.
	HOME=${H:-$HOME} run_confine -p scr -- sh -c "cd \"$in\" && ls -A && cat f"
	assert_status "$RC" 0
	printf 'del\nf\noriginal\n' >"$TEST_TMP/want"
	cmp -s "$OUT" "$TEST_TMP/want" || {
		diag_file "$OUT" "inside"
		fail "the second run does not see the host's original content"
	}
	assert_eq "$(tree_hash "$VT")" "$h" "$VT after the second run"
	assert_ws_unchanged
}

# t_scratch_missing WHERE: a scratch path that does not exist on the host,
# under /var/tmp (a read-only directory inside) or the home directory.
t_scratch_missing() {
	ws_new
	cfg_new
	case $1 in
	vartmp)
		vartmp_dir
		parent=$VT
		printf '[filesystem]\nscratch = %s/missing\n' "$VT" |
		    prof scr >/dev/null ;;
	home)
		home_new
		parent=$H
		printf '[profile]\nquadrant = offline\n[filesystem]\nscratch = ~/missing\n' |
		    prof scr >/dev/null ;;
	esac
	h=$(tree_hash "$parent")
	# Absent inside too: the command makes it, a file here (an agent's
	# ~/.claude.json), in the home's scratch.  In the home, named by
	# HOME inside (the session's under landlock).
	in=$parent
	[ "$1" != home ] || in='$HOME'
	HOME=${H:-$HOME} run_confine -p scr -- sh -c "
		test ! -e \"$in/missing\" || exit 9
		echo x >\"$in/missing\" && cat \"$in/missing\""
	assert_status "$RC" 0
	assert_eq "$(cat "$OUT")" x "inside"
	assert_not_exists "$parent/missing"
	assert_eq "$(tree_hash "$parent")" "$h" "$parent after the run"
	assert_ws_unchanged
}

# A missing scratch path whose parent is part of the read-only host: no
# mount point can be made there, and confine refuses rather than guess.
t_scratch_missing_ro() {
	ws_new
	cfg_new
	vartmp_dir
	h=$(tree_hash "$VT")
	printf '[filesystem]\nscratch = %s/missing\n' "$VT" | prof scr >/dev/null
	run_confine -p scr -- echo ran
	if [ "$BACKEND" = landlock ]; then
		landlock_refuses_scratch
	else
		assert_status "$RC" 125
		assert_file_has_content "$ERR" "^confine: mount: cannot set up '$VT/missing': Read-only file system"
		assert_file_empty "$OUT"
	fi
	assert_not_exists "$VT/missing"
	assert_eq "$(tree_hash "$VT")" "$h" "$VT after the run"
	assert_ws_unchanged
}

# t_scratch_file [home]: a scratch file under /var/tmp, or in the home.
t_scratch_file() {
	ws_new
	cfg_new
	if [ "${1:-}" = home ]; then
		home_new
		VT=$H
		printf '[profile]\nquadrant = offline\n[filesystem]\nscratch = ~/conf\n' |
		    prof scr >/dev/null
		in='$HOME'
	else
		vartmp_dir
		printf '[filesystem]\nscratch = %s\n' "$VT/conf" | prof scr >/dev/null
		in=$VT
	fi
	printf 'original\n' >"$VT/conf"
	chmod 0644 "$VT/conf"
	h=$(tree_hash "$VT")
	# The sibling: a host path beside it, read-only (in the home, the
	# home inside is not the host's: the tree's hash below tells).
	sib="touch '$VT/sibling' 2>/dev/null || echo sibling-ro"
	[ "${1:-}" != home ] || sib=
	HOME=${H:-$HOME} run_confine -p scr -- sh -c "
		cat \"$in/conf\"
		echo changed >\"$in/conf\" && cat \"$in/conf\"
		echo appended >>\"$in/conf\" && cat \"$in/conf\"
		$sib"
	if [ "$BACKEND" = landlock ] && [ "${1:-}" != home ]; then
		landlock_refuses_scratch
		assert_eq "$(tree_hash "$VT")" "$h" "$VT after the run"
		assert_ws_unchanged
		return 0
	fi
	assert_status "$RC" 0
	printf 'original\nchanged\nchanged\nappended\n%s' "${sib:+sibling-ro
}" >"$TEST_TMP/want"
	cmp -s "$OUT" "$TEST_TMP/want" || {
		diag_file "$OUT" "inside"
		fail "the scratch file is not a writable private copy"
	}
	assert_eq "$(cat "$VT/conf")" original "the host file"
	assert_eq "$(tree_hash "$VT")" "$h" "$VT after the run"
	assert_ws_unchanged
}

t_direct() {
	require_leg_c_caller
	ws_new
	cfg_new
	vartmp_dir
	mkdir "$VT/d"
	printf 'host\n' >"$VT/d/f"
	f=$(prof direct <<-EOF
	[profile]
	quadrant = online
	[workspace]
	private = no
	[filesystem]
	direct = $VT/d
	EOF
	)
	# Control: without it, the host directory is read-only inside.
	run_confine -p direct --dry-run -- true
	assert_status "$RC" 0
	assert_policy filesystem.direct "$VT/d" "$f:6"
	assert_policy network.mode none "built-in default"
	run_confine -- sh -c "echo x >'$VT/d/new'"
	assert_file_has_content "$ERR" "$RO_ERR"
	assert_not_exists "$VT/d/new"
	run_confine -p direct -- sh -c "
		cat '$VT/d/f'
		echo written >'$VT/d/new' && echo more >>'$VT/d/f' && echo ok
		touch '$VT/outside' 2>/dev/null || :"
	assert_status "$RC" 0
	# Beside it, /var/tmp is the allow-list's empty private tmpfs (leg
	# C): the touch may work there, it never reaches the host.
	printf 'host\nok\n' >"$TEST_TMP/want"
	cmp -s "$OUT" "$TEST_TMP/want" || {
		diag_file "$OUT" "inside"
		fail "the direct path is not writable inside"
	}
	# By design, the writes reached the host; nothing else did.
	assert_eq "$(cat "$VT/d/new")" written "the new host file"
	assert_eq "$(cat "$VT/d/f")" "$(printf 'host\nmore')" "the changed host file"
	assert_not_exists "$VT/outside"
	rm -rf "$VT/d"
	assert_ws_unchanged
}

tcase "read-only = ~/x, ~/xd: visible inside, writes give EROFS" t_read_only
tcase "hide = a directory: empty and read-only inside" t_hide_dir
tcase "hide = a file: unreadable inside" t_hide_file
tcase "scratch = a host directory: writable, discarded, fresh each run (landlock: refused)" t_scratch_dir
tcase "scratch = a directory in the home: writable, discarded, fresh each run" t_scratch_dir home
tcase "scratch = a missing path under /var/tmp: refused, the parent is read-only (landlock: refused, outside the home)" t_scratch_missing_ro
tcase "scratch = a missing path under the home: absent, the command makes it, discarded" t_scratch_missing home
tcase "scratch = a host file: a writable private copy (landlock: refused)" t_scratch_file
tcase "scratch = a file in the home: a writable private copy" t_scratch_file home
tcase "direct = a host directory (online, network none): writes reach the host" t_direct
tap_done
