#!/bin/sh
# SPDX-License-Identifier: ISC
# trust.sh - the workspace's own .confine.ini: refused until "confine
# trust" pins its sha256 in $XDG_CONFIG_HOME/confine/trust, used while
# the bytes match, refused again once they change; never a symbolic link;
# only a valid profile can be trusted; -p bypasses it; the pins file is
# replaced by a rename.  Nothing is written in the workspace.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
. "$TESTS_SRCDIR/profile-lib.sh"
require_userns
plan 10

# repo_profile: a workspace whose .confine.ini hides a host directory
# ($VT/secret, which holds "key"); WS_HASH counts the profile.
repo_profile() {
	ws_new
	cfg_new
	vartmp_dir
	mkdir "$VT/secret"
	printf 'key\n' >"$VT/secret/key"
	RP=$(prof_file "$WS/.confine.ini" <<-EOF
	[filesystem]
	hide = $VT/secret
	EOF
	)
	WS_HASH=$(tree_hash "$WS")
}

sha() {
	sha256sum "$1" | cut -d' ' -f1
}

# trust [ARG...]: run "confine trust" in the workspace (or RUN_CWD).
trust() {
	run_confine trust "$@"
}

t_untrusted() {
	repo_profile
	run_confine -- true
	assert_status "$RC" 125
	assert_refusal "$ERR"
	assert_err_has "confine: $RP is not trusted"
	assert_file_has_content "$ERR" "^hint: .*confine trust"
	assert_file_empty "$OUT"
	# --dry-run too; and neither a pin nor a session was made.
	run_confine --dry-run -- true
	assert_status "$RC" 125
	assert_err_has "is not trusted"
	assert_not_exists "$PINS"
	assert_no_session
	# From a subdirectory: the profile at the top still applies.
	RUN_CWD=$WS/src run_confine -- true
	assert_status "$RC" 125
	assert_err_has "confine: $RP is not trusted"
	assert_ws_unchanged
}

t_trust_pins() {
	repo_profile
	trust
	assert_status "$RC" 0
	assert_file_empty "$OUT"
	assert_exists "$PINS"
	assert_eq "$(cat "$PINS")" "$(sha "$RP")  $RP" "the pins file"
	assert_eq "$(cat "$PINS")" "$(cd "$WS" && sha256sum "$PWD/.confine.ini")" \
	    "the pins file, as sha256sum prints it"
	assert_lines "$PINS" 1
	# Now it is used.
	run_confine --dry-run -- true
	assert_status "$RC" 0
	d=$(sha "$RP" | cut -c1-16)
	assert_eq "$(first_line)" \
	    "profile: $RP (the workspace's profile, trusted (sha256 $d...))" \
	    "the first line"
	assert_policy filesystem.hide "$VT/secret" "$RP:2"
	run_confine -- sh -c "ls -A '$VT/secret'; echo done"
	assert_status "$RC" 0
	assert_eq "$(cat "$OUT")" "done" "the hidden directory inside"
	assert_ws_unchanged
}

t_changed() {
	repo_profile
	trust
	assert_status "$RC" 0
	run_confine -- true
	assert_status "$RC" 0
	# An agent (or anyone) edits it: refused until trusted again.
	printf '[network]\nmode = host\n' >>"$RP"
	WS_HASH=$(tree_hash "$WS")
	run_confine -- true
	assert_status "$RC" 125
	assert_refusal "$ERR"
	assert_err_has "confine: $RP changed since you trusted it"
	assert_file_has_content "$ERR" "^hint: .*confine trust"
	run_confine --dry-run -- true
	assert_status "$RC" 125
	# Even a change that keeps the size, or a byte of whitespace.
	trust
	assert_status "$RC" 0
	sed -i 's/mode = host/mode = none/' "$RP"
	WS_HASH=$(tree_hash "$WS")
	run_confine -- true
	assert_status "$RC" 125
	assert_err_has "changed since you trusted it"
	# Trusted again, it runs, with the new content.
	trust
	assert_status "$RC" 0
	run_confine --dry-run -- true
	assert_status "$RC" 0
	assert_policy network.mode none "$RP:4"
	run_confine -- true
	assert_status "$RC" 0
	assert_lines "$PINS" 1
	assert_ws_unchanged
}

t_p_bypasses() {
	repo_profile
	printf '[profile]\nquadrant = sealed\n' | prof mine >/dev/null
	run_confine -p sealed --dry-run -- true
	assert_status "$RC" 0
	case $(first_line) in
	"profile: sealed "*) ;;
	*) fail "first line '$(first_line)'" ;;
	esac
	assert_not_file_has_content "$OUT" 'confine\.ini'
	run_confine -p mine -- sh -c "cat '$VT/secret/key'"
	assert_status "$RC" 0
	assert_eq "$(cat "$OUT")" key "the directory the repository profile hides"
	assert_not_exists "$PINS"
	assert_ws_unchanged
}

t_before_command_name() {
	repo_profile
	printf '[profile]\nquadrant = sealed\n' | prof mytool >/dev/null
	# Untrusted: refused, not silently replaced by mytool.ini.
	run_confine --dry-run -- mytool
	assert_status "$RC" 125
	assert_err_has "is not trusted"
	trust
	assert_status "$RC" 0
	run_confine --dry-run -- mytool
	assert_status "$RC" 0
	case $(first_line) in
	"profile: $RP (the workspace's profile, trusted"*) ;;
	*) fail "first line '$(first_line)'" ;;
	esac
	assert_ws_unchanged
}

t_symlink() {
	ws_new
	cfg_new
	vartmp_dir
	target=$(printf '[filesystem]\nhide = %s\n' "$VT" | prof_file "$TEST_TMP/target.ini")
	ln -s "$target" "$WS/.confine.ini"
	WS_HASH=$(tree_hash "$WS")
	# Even with the target trusted by its path.
	trust "$target"
	assert_status "$RC" 0
	assert_file_has_content "$PINS" "  $target\$"
	run_confine -- true
	assert_status "$RC" 125
	assert_refusal "$ERR"
	assert_err_has "$WS/.confine.ini"
	assert_err_has "symbolic link"
	# And whatever "confine trust" in the workspace pins.
	trust
	run_confine -- true
	assert_status "$RC" 125
	assert_err_has "symbolic link"
	# A symlink to a file inside the workspace, too.
	rm "$WS/.confine.ini"
	cp "$target" "$WS/real.ini"
	ln -s real.ini "$WS/.confine.ini"
	WS_HASH=$(tree_hash "$WS")
	trust "$WS/real.ini"
	run_confine -- true
	assert_status "$RC" 125
	assert_err_has "symbolic link"
	assert_no_session
	assert_ws_unchanged
}

t_invalid() {
	ws_new
	cfg_new
	rp=$(prof_file "$WS/.confine.ini" <<-'EOF'
	[profile]
	quadrant = sealed
	[filesystem]
	hide = relative/path
	EOF
	)
	WS_HASH=$(tree_hash "$WS")
	trust
	assert_status "$RC" 125
	assert_refusal "$ERR"
	assert_err_has "confine: $rp:4: hide: "
	assert_not_exists "$PINS"
	# An extends of a missing profile cannot be trusted either.
	printf '[profile]\nextends = confine-test-nosuch\n' >"$rp"
	WS_HASH=$(tree_hash "$WS")
	trust
	assert_status "$RC" 125
	assert_err_has "$rp:2: extends: no profile named 'confine-test-nosuch'"
	assert_not_exists "$PINS"
	run_confine -- true
	assert_status "$RC" 125
	assert_err_has "is not trusted"
	assert_ws_unchanged
}

t_atomic() {
	repo_profile
	ws1=$WS rp1=$RP h1=$WS_HASH
	trust
	assert_status "$RC" 0
	ws_new
	rp2=$(printf '[profile]\nquadrant = sealed\n' | prof_file "$WS/.confine.ini")
	WS_HASH=$(tree_hash "$WS")
	trust
	assert_status "$RC" 0
	assert_lines "$PINS" 2
	assert_file_has_content "$PINS" "^$(sha "$rp1")  $rp1\$"
	assert_file_has_content "$PINS" "^$(sha "$rp2")  $rp2\$"
	# Re-trusting the first after a change: its line is replaced, the
	# other kept, and the file is a new one (renamed into place).
	ino=$(stat -c %i "$PINS")
	printf '; reviewed\n' >>"$rp1"
	h1=$(tree_hash "$ws1")
	RUN_CWD=$ws1 trust
	assert_status "$RC" 0
	assert_lines "$PINS" 2
	assert_file_has_content "$PINS" "^$(sha "$rp1")  $rp1\$"
	assert_file_has_content "$PINS" "^$(sha "$rp2")  $rp2\$"
	assert_ne "$(stat -c %i "$PINS")" "$ino" "the pins file's inode"
	assert_eq "$(ls -A "$(dirname "$PINS")" | grep -v -x -e trust -e profiles | tr '\n' ' ')" "" \
	    "other files beside the pins file"
	# Unrelated lines in the pins file are kept as they are.
	printf '# a note\n' >>"$PINS"
	RUN_CWD=$ws1 trust
	assert_status "$RC" 0
	assert_file_has_content "$PINS" '^# a note$'
	assert_lines "$PINS" 3
	RUN_CWD=$ws1 run_confine -- true
	assert_status "$RC" 0
	assert_ws_unchanged
	assert_ws_unchanged "$ws1" "$h1"
}

t_subdir_and_file() {
	repo_profile
	# From a subdirectory, "confine trust" pins the top's .confine.ini.
	RUN_CWD=$WS/src trust
	assert_status "$RC" 0
	assert_eq "$(cat "$PINS")" "$(sha "$RP")  $RP" "the pins file"
	rm "$PINS"
	# confine trust FILE, relative to the current directory.
	RUN_CWD=$WS/src trust ../.confine.ini
	assert_status "$RC" 0
	assert_eq "$(cat "$PINS")" "$(sha "$RP")  $RP" "the pins file"
	run_confine -- true
	assert_status "$RC" 0
	# Bad usage and a missing file: 125.
	trust a b
	assert_status "$RC" 125
	trust "$WS/confine-test-nosuch.ini"
	assert_status "$RC" 125
	assert_ws_unchanged
}

t_per_path() {
	repo_profile
	trust
	assert_status "$RC" 0
	# The same bytes in another workspace are not trusted there.
	ws1=$WS
	ws_new
	cp "$ws1/.confine.ini" "$WS/.confine.ini"
	WS_HASH=$(tree_hash "$WS")
	run_confine -- true
	assert_status "$RC" 125
	assert_err_has "confine: $WS/.confine.ini is not trusted"
	assert_ws_unchanged
}

tcase "an untrusted .confine.ini is refused with a hint: 125" t_untrusted
tcase "confine trust pins the sha256; the profile is then used" t_trust_pins
tcase "a changed .confine.ini is refused until trusted again" t_changed
tcase "-p ignores the repository profile" t_p_bypasses
tcase "the repository profile comes before the command's" t_before_command_name
tcase "a .confine.ini that is a symbolic link is refused" t_symlink
tcase "an invalid .confine.ini cannot be trusted: 125 with FILE:LINE" t_invalid
tcase "the pins file is replaced by a rename, other pins kept" t_atomic
tcase "confine trust from a subdirectory, and confine trust FILE" t_subdir_and_file
tcase "a pin is for one path: a copy elsewhere is not trusted" t_per_path
tap_done
