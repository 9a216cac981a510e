# SPDX-License-Identifier: ISC
# profile-lib.sh - sourced after lib.sh by the profile tests
# (tests/integration/profiles.sh, trust.sh, profile-mounts.sh).
#
# Gives: a private user configuration directory per case (cfg_new, with
# PROFILES, the user's profile directory, and PINS, the trust pins file),
# profile files written with safe permissions (prof, prof_file), checks of
# --dry-run's "effective policy" lines (assert_policy, first_line), and a
# host directory under /var/tmp, outside the sandbox's fresh trees
# (vartmp_dir), removed at exit.

# Profiles must not be group-writable because of the caller's umask:
# confine refuses those (the tests that want one chmod it).
umask 022

# Never the caller's own configuration, even outside a case.
XDG_CONFIG_HOME=$TEST_TMP/config
export XDG_CONFIG_HOME

# cfg_new: a fresh, empty user configuration directory for this case.
cfg_new() {
	XDG_CONFIG_HOME=$(mktemp -d "$TEST_TMP/cfg.XXXXXX") || fail "mktemp"
	export XDG_CONFIG_HOME
	PROFILES=$XDG_CONFIG_HOME/confine/profiles
	PINS=$XDG_CONFIG_HOME/confine/trust
	mkdir -p "$PROFILES"
}

# prof_file PATH: write stdin to PATH, mode 0644; print PATH.
prof_file() {
	cat >"$1" || fail "cannot write $1"
	chmod 0644 "$1"
	printf '%s\n' "$1"
}

# prof NAME: write stdin to the user's profile NAME; print its path.
prof() {
	prof_file "$PROFILES/$1.ini"
}

# The first line of the last run's stdout.
first_line() {
	head -n 1 "$OUT"
}

# assert_policy KEY VALUE ORIGIN: --dry-run's effective policy has the
# line "  KEY = VALUE  (ORIGIN)".
assert_policy() {
	grep -q -F -x -e "  $1 = $2  ($3)" "$OUT" || {
		diag_file "$OUT" "stdout"
		fail "no effective policy line '$1 = $2  ($3)'"
	}
}

# assert_no_policy KEY VALUE: no effective policy line for that value.
assert_no_policy() {
	if grep -q -F -e "  $1 = $2  (" "$OUT"; then
		diag_file "$OUT" "stdout"
		fail "an effective policy line '$1 = $2' is there"
	fi
}

# assert_policy_order FILE LINE...: the lines appear in FILE in this order.
assert_policy_order() {
	_f=$1
	shift
	_prev=0
	for _l in "$@"; do
		_n=$(grep -n -F -x -e "$_l" "$_f" | head -n 1 | cut -d: -f1)
		[ -n "$_n" ] || fail "no line '$_l'"
		[ "$_n" -gt "$_prev" ] || fail "'$_l' is out of order"
		_prev=$_n
	done
}

# assert_err_has TEXT: stderr holds TEXT (a fixed string).
assert_err_has() {
	grep -q -F -e "$1" "$ERR" || {
		diag_file "$ERR" "stderr"
		fail "stderr does not contain '$1'"
	}
}

assert_out_has() {
	grep -q -F -e "$1" "$OUT" || {
		diag_file "$OUT" "stdout"
		fail "stdout does not contain '$1'"
	}
}

# A directory of the host outside the sandbox's fresh trees (/tmp, /run,
# the home directory): /var/tmp, visible read-only inside by default.
PLIB_VARTMP=
plib_cleanup() {
	if [ -n "$PLIB_VARTMP" ]; then
		chmod -R u+rwX "$PLIB_VARTMP" 2>/dev/null
		rm -rf "$PLIB_VARTMP"
	fi
}
LIB_CLEANUP_HOOK=plib_cleanup
if [ -d /var/tmp ] && [ -w /var/tmp ]; then
	PLIB_VARTMP=$(mktemp -d /var/tmp/confine-test.XXXXXX)
fi

# vartmp_dir: a new empty directory under /var/tmp for this case, in VT.
vartmp_dir() {
	[ -n "$PLIB_VARTMP" ] ||
	    skip_case "no writable /var/tmp for a host directory outside the sandbox's fresh trees"
	VT=$(mktemp -d "$PLIB_VARTMP/case.XXXXXX") || fail "mktemp in $PLIB_VARTMP"
}

# assert_landlock_proxy_refused: the last run was the landlock backend's
# refusal of proxy mode (no network namespace of its own), before anything
# ran.
assert_landlock_proxy_refused() {
	assert_status "$RC" 125
	assert_refusal "$ERR"
	assert_file_has_content "$ERR" \
	    '^confine: backend landlock .*cannot offer network mode proxy: '
	assert_file_empty "$OUT"
}

# assert_landlock_scratch_refused PATH ORIGIN: the last run was the landlock
# backend's refusal of a scratch path outside the home.
assert_landlock_scratch_refused() {
	assert_status "$RC" 125
	assert_refusal "$ERR"
	assert_err_has "confine: scratch = $1 ($2): the landlock backend has no mount namespace"
	assert_file_empty "$OUT"
}
