#!/bin/sh
# SPDX-License-Identifier: ISC
# profiles.sh - which profile a run picks and why (-p NAME, -p FILE, one
# named after the command, sealed), the permission checks on named
# profiles, extends, the options that override profile values, the rule of
# two on profile keys, and the profile subcommands.  Almost everything here
# is --dry-run; the host workspace is unchanged after every case.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
. "$TESTS_SRCDIR/profile-lib.sh"
require_userns
plan 28

# ------------------------------------------------------- search order

t_by_name() {
	ws_new
	cfg_new
	f=$(prof mine <<-'EOF'
	[profile]
	quadrant = sealed
	[filesystem]
	hide = /srv/confine-test-hidden
	EOF
	)
	run_confine -p mine --dry-run -- true
	assert_status "$RC" 0
	assert_eq "$(first_line)" "profile: mine (-p mine, found in $PROFILES)" \
	    "the first line"
	assert_policy quadrant sealed "$f:2"
	assert_policy filesystem.hide /srv/confine-test-hidden "$f:4"
	assert_file_empty "$ERR"
	assert_ws_unchanged
}

t_by_file() {
	ws_new
	cfg_new
	mkdir "$TEST_TMP/elsewhere"
	f=$(prof_file "$WS/local.ini" <<-'EOF'
	[filesystem]
	hide = /srv/confine-test-local
	EOF
	)
	g=$(prof_file "$TEST_TMP/elsewhere/noext" <<-'EOF'
	[filesystem]
	hide = /srv/confine-test-noext
	EOF
	)
	# A user profile of the same name must not be what "local.ini" means.
	prof local <<-'EOF' >/dev/null
	[filesystem]
	hide = /srv/confine-test-wrong
	EOF
	WS_HASH=$(tree_hash "$WS")
	run_confine -p ./local.ini --dry-run -- true
	assert_status "$RC" 0
	assert_eq "$(first_line)" "profile: ./local.ini (-p ./local.ini)" "-p ./local.ini"
	assert_policy filesystem.hide /srv/confine-test-local "./local.ini:2"
	# A bare NAME.ini is a file in the current directory.
	run_confine -p local.ini --dry-run -- true
	assert_status "$RC" 0
	assert_eq "$(first_line)" "profile: local.ini (-p local.ini)" "-p local.ini"
	assert_no_policy filesystem.hide /srv/confine-test-wrong
	# Any value with a '/' is a path, with or without .ini.
	run_confine -p "$g" --dry-run -- true
	assert_status "$RC" 0
	assert_eq "$(first_line)" "profile: $g (-p $g)" "-p $g"
	assert_policy filesystem.hide /srv/confine-test-noext "$g:2"
	assert_ws_unchanged
}

t_not_found() {
	ws_new
	cfg_new
	run_confine -p confine-test-nosuch --dry-run -- true
	assert_status "$RC" 125
	assert_refusal "$ERR"
	assert_err_has "no profile named 'confine-test-nosuch'"
	assert_file_empty "$OUT"
	run_confine -p ./confine-test-nosuch.ini --dry-run -- true
	assert_status "$RC" 125
	assert_refusal "$ERR"
	assert_err_has "./confine-test-nosuch.ini: cannot read"
	run_confine -p '.hidden' --dry-run -- true
	assert_status "$RC" 125
	assert_refusal "$ERR"
	assert_err_has "not a profile name"
	assert_ws_unchanged
}

t_named_after_command() {
	ws_new
	cfg_new
	f=$(prof mytool <<-'EOF'
	[filesystem]
	hide = /srv/confine-test-mytool
	EOF
	)
	run_confine --dry-run -- mytool --flag
	assert_status "$RC" 0
	assert_eq "$(first_line)" \
	    "profile: mytool (named after the command, found in $PROFILES)" \
	    "the first line"
	assert_policy filesystem.hide /srv/confine-test-mytool "$f:2"
	# The base name of a path.
	run_confine --dry-run -- /opt/confine-test/bin/mytool
	assert_status "$RC" 0
	assert_eq "$(first_line)" \
	    "profile: mytool (named after the command, found in $PROFILES)" \
	    "with a path to the command"
	# Control: another command does not get it.
	run_confine --dry-run -- othertool
	assert_status "$RC" 0
	assert_not_file_has_content "$OUT" 'mytool'
	# -p wins over the command's name.
	prof other <<-'EOF' >/dev/null
	[profile]
	quadrant = sealed
	EOF
	run_confine -p other --dry-run -- mytool
	assert_status "$RC" 0
	assert_eq "$(first_line)" "profile: other (-p other, found in $PROFILES)" \
	    "-p with a command that has a profile"
	assert_ws_unchanged
}

t_default_user_sealed() {
	ws_new
	cfg_new
	f=$(prof sealed <<-'EOF'
	[profile]
	quadrant = sealed
	description = the user's own sealed
	[filesystem]
	hide = /srv/confine-test-usersealed
	EOF
	)
	run_confine --dry-run -- confine-test-cmd
	assert_status "$RC" 0
	assert_eq "$(first_line)" \
	    "profile: sealed (the default, found in $PROFILES)" "the first line"
	assert_policy quadrant sealed "$f:2"
	assert_policy filesystem.hide /srv/confine-test-usersealed "$f:5"
	# -p sealed finds the user's, too.
	run_confine -p sealed --dry-run -- true
	assert_status "$RC" 0
	assert_eq "$(first_line)" "profile: sealed (-p sealed, found in $PROFILES)" \
	    "-p sealed"
	assert_ws_unchanged
}

# profile list's line for sealed when the user has none: the built-in
# line, or the system's or shipped sealed.ini (not under our control).
sealed_elsewhere() {
	RUN_CWD=$WS run_confine profile list
	[ "$RC" -eq 0 ] || fail "profile list: status $RC"
	grep '^sealed ' "$OUT" | grep -v -F "$PROFILES/" | head -n 1
}

t_default_builtin() {
	ws_new
	cfg_new
	line=$(sealed_elsewhere)
	run_confine --dry-run -- confine-test-cmd
	assert_status "$RC" 0
	case $line in
	*'(built-in: no sealed.ini was found)')
		case $(first_line) in
		"profile: sealed (built-in) (the default; no sealed.ini in $PROFILES, "*) ;;
		*) fail "first line: '$(first_line)'" ;;
		esac
		assert_policy quadrant sealed "built-in default"
		assert_policy network.mode none "built-in default"
		assert_policy untrusted yes "built-in default"
		;;
	'')
		fail "profile list shows no sealed line at all" ;;
	*)
		# An installed sealed.ini: the default is that one.
		dir=$(printf '%s\n' "$line" | awk '{ print $2 }')
		dir=${dir%/sealed.ini}
		assert_eq "$(first_line)" \
		    "profile: sealed (the default, found in $dir)" "the first line"
		;;
	esac
	assert_ws_unchanged
}

t_list() {
	ws_new
	cfg_new
	for n in alpha sealed zeta; do
		printf '[profile]\nquadrant = sealed\n' | prof "$n" >/dev/null
	done
	printf 'not a profile\n' >"$PROFILES/README"
	printf '[profile]\n' >"$PROFILES/.hidden.ini"
	RUN_CWD=$WS run_confine profile list
	assert_status "$RC" 0
	for n in alpha sealed zeta; do
		grep -q -x -E "$n +$PROFILES/$n\\.ini" "$OUT" || {
			diag_file "$OUT" "stdout"
			fail "no unshadowed line for the user's $n"
		}
	done
	assert_not_file_has_content "$OUT" 'README|\.hidden'
	assert_not_file_has_content "$OUT" 'built-in'
	# The user's directory comes first: its entries, in order, at the top.
	assert_eq "$(head -n 3 "$OUT" | awk '{ print $1 }' | tr '\n' ' ')" \
	    "alpha sealed zeta " "the first three entries"
	# A same-named profile in another directory is marked shadowed.
	grep -v -F "$PROFILES/" "$OUT" | while read -r name path rest; do
		case $name in alpha|sealed|zeta) ;; *) continue ;; esac
		[ "$rest" = "(shadowed)" ] ||
		    fail "$path is not marked shadowed by the user's $name"
	done
	# Without the user's sealed.ini: the built-in line, unless another
	# directory has one.
	rm "$PROFILES/sealed.ini"
	RUN_CWD=$WS run_confine profile list
	assert_status "$RC" 0
	if grep -q -E '^sealed +/' "$OUT"; then
		assert_not_file_has_content "$OUT" 'built-in'
	else
		assert_file_has_content "$OUT" '^sealed +\(built-in: no sealed\.ini was found\)$'
	fi
	assert_ws_unchanged
}

# --------------------------------------------------------- permissions

t_perms_mode() {
	ws_new
	cfg_new
	f=$(prof loose <<-'EOF'
	[profile]
	quadrant = sealed
	EOF
	)
	# Control: 0644 is accepted.
	run_confine -p loose --dry-run -- true
	assert_status "$RC" 0
	for mode in 0666 0664 0646; do
		chmod "$mode" "$f"
		run_confine -p loose --dry-run -- true
		assert_status "$RC" 125
		assert_refusal "$ERR"
		assert_err_has "$f: refused: writable by group or others"
		assert_file_empty "$OUT"
	done
	# Found as the command's profile or as the default: the same check.
	cp -p "$f" "$PROFILES/mytool.ini"
	run_confine --dry-run -- mytool
	assert_status "$RC" 125
	assert_err_has "writable by group or others"
	cp -p "$f" "$PROFILES/sealed.ini"
	run_confine --dry-run -- true
	assert_status "$RC" 125
	assert_err_has "$PROFILES/sealed.ini: refused: writable by group or others"
	# A real run is refused the same way, and leaves no session.
	run_confine -p loose -- true
	assert_status "$RC" 125
	assert_no_session
	assert_ws_unchanged
}

t_perms_owner() {
	ws_new
	cfg_new
	[ "$(id -u)" -eq 0 ] ||
	    skip_case "as non-root a profile cannot be given to another user"
	f=$(prof theirs <<-'EOF'
	[profile]
	quadrant = sealed
	EOF
	)
	run_confine -p theirs --dry-run -- true
	assert_status "$RC" 0
	# Another user, named or not (65534 is nobody where it exists).
	chown 65534 "$f"
	run_confine -p theirs --dry-run -- true
	assert_status "$RC" 125
	assert_refusal "$ERR"
	assert_err_has "$f: refused: owned by another user"
	assert_ws_unchanged
}

t_perms_extends() {
	ws_new
	cfg_new
	p=$(prof base <<-'EOF'
	[profile]
	quadrant = sealed
	EOF
	)
	c=$(prof_file "$TEST_TMP/child.ini" <<-'EOF'
	[profile]
	extends = base
	EOF
	)
	run_confine -p "$c" --dry-run -- true
	assert_status "$RC" 0
	# A file named with -p is read as it is; what it extends is checked.
	chmod 0666 "$c"
	run_confine -p "$c" --dry-run -- true
	assert_status "$RC" 0
	chmod 0666 "$p"
	run_confine -p "$c" --dry-run -- true
	assert_status "$RC" 125
	assert_refusal "$ERR"
	assert_err_has "$p: refused: writable by group or others"
	assert_ws_unchanged
}

# ------------------------------------------------------------ extends

t_extends_inherit() {
	ws_new
	cfg_new
	g=$(prof grand <<-'EOF'
	[profile]
	quadrant = offline
	[environment]
	set = FROM_GRAND=1
	EOF
	)
	p=$(prof parent <<-'EOF'
	[profile]
	extends = grand
	[network]
	mode = proxy
	endpoint = api.example.com:443
	[filesystem]
	hide = /srv/confine-test-p1
	hide = /srv/confine-test-p2
	[sandbox]
	backend = native
	EOF
	)
	c=$(prof child <<-'EOF'
	[profile]
	extends = parent
	[network]
	mode = none
	endpoint =
	[filesystem]
	hide = /srv/confine-test-c1
	EOF
	)
	run_confine -p child --dry-run -- true
	assert_status "$RC" 0
	assert_eq "$(first_line)" "profile: child (-p child, found in $PROFILES)" \
	    "the first line"
	# Inherited scalars keep the origin of the file that set them.
	assert_policy quadrant offline "$g:2"
	assert_policy backend native "$p:10"
	assert_policy environment.set FROM_GRAND=1 "$g:4"
	# The child's scalar wins.
	assert_policy network.mode none "$c:4"
	assert_no_policy network.mode proxy
	# Lists append, the parent's first.
	assert_policy_order "$OUT" \
	    "  filesystem.hide = /srv/confine-test-p1  ($p:7)" \
	    "  filesystem.hide = /srv/confine-test-p2  ($p:8)" \
	    "  filesystem.hide = /srv/confine-test-c1  ($c:7)"
	# An empty list value clears: the endpoint is gone (with it, proxy
	# mode would be needed).
	assert_not_file_has_content "$OUT" 'network\.endpoint'
	assert_ws_unchanged
}

t_extends_clear() {
	ws_new
	cfg_new
	p=$(prof parent <<-'EOF'
	[filesystem]
	hide = /srv/confine-test-a
	hide = /srv/confine-test-b
	scratch = /srv/confine-test-s
	EOF
	)
	c=$(prof child <<-'EOF'
	[profile]
	extends = parent
	[filesystem]
	hide = /srv/confine-test-early
	hide =
	hide = /srv/confine-test-c
	scratch =
	EOF
	)
	# Control: the parent alone has them (landlock refuses its scratch
	# path outside the home, by the line that the child clears).
	run_confine -p parent --dry-run -- true
	if [ "$BACKEND" = landlock ]; then
		assert_landlock_scratch_refused /srv/confine-test-s "$p:4"
	else
		assert_status "$RC" 0
		assert_policy filesystem.hide /srv/confine-test-a "$p:2"
		assert_policy filesystem.scratch /srv/confine-test-s "$p:4"
	fi
	run_confine -p child --dry-run -- true
	assert_status "$RC" 0
	assert_eq "$(grep -c '^  filesystem\.hide = ' "$OUT")" 1 "hide lines"
	assert_policy filesystem.hide /srv/confine-test-c "$c:6"
	assert_not_file_has_content "$OUT" 'filesystem\.scratch|confine-test-(a|b|early)'
	assert_ws_unchanged
}

t_extends_missing() {
	ws_new
	cfg_new
	c=$(prof child <<-'EOF'
	; a comment
	[profile]
	extends = confine-test-nosuch
	EOF
	)
	run_confine -p child --dry-run -- true
	assert_status "$RC" 125
	assert_refusal "$ERR"
	assert_err_has "confine: $c:3: extends: no profile named 'confine-test-nosuch'"
	assert_file_empty "$OUT"
	assert_ws_unchanged
}

t_extends_cycle() {
	ws_new
	cfg_new
	printf '[profile]\nextends = cyc-b\n' | prof cyc-a >/dev/null
	printf '[profile]\nextends = cyc-a\n' | prof cyc-b >/dev/null
	printf '[profile]\nextends = self\n' | prof self >/dev/null
	for n in cyc-a self; do
		run_confine -p "$n" --dry-run -- true
		assert_status "$RC" 125
		assert_refusal "$ERR"
		assert_file_has_content "$ERR" "^confine: $PROFILES/(cyc-a|cyc-b|self)\\.ini:2: extends: .*cycle"
		assert_file_empty "$OUT"
	done
	# From a file named with -p as well.
	f=$(printf '[profile]\nextends = cyc-a\n' | prof_file "$TEST_TMP/p.ini")
	run_confine -p "$f" --dry-run -- true
	assert_status "$RC" 125
	assert_err_has "cycle"
	assert_ws_unchanged
}

# ------------------------------------------------ options that override

t_override_scalars() {
	ws_new
	cfg_new
	f=$(prof on <<-'EOF'
	[profile]
	quadrant = online
	[network]
	mode = proxy
	[sandbox]
	backend = bwrap
	EOF
	)
	run_confine -p on --dry-run -- true
	assert_status "$RC" 0
	assert_policy network.mode proxy "$f:4"
	assert_policy backend bwrap "$f:6"
	run_confine -p on -n none --backend native --dry-run -- true
	assert_status "$RC" 0
	assert_policy network.mode none "option --network"
	assert_policy backend native "option --backend"
	assert_no_policy network.mode proxy
	assert_no_policy backend bwrap
	run_confine -p on --network=host --dry-run -- true
	assert_status "$RC" 0
	assert_policy network.mode host "option --network"
	# --endpoint alone implies proxy over a profile's none (which the
	# landlock backend refuses: the implied proxy shows).  A raw endpoint
	# is leg C: the profile's quadrant allows it.
	printf '[profile]\nquadrant = online\n[workspace]\nprivate = no\n[network]\nmode = none\n' |
	    prof quiet >/dev/null
	run_confine -p quiet --endpoint api.example.com:443 --dry-run -- true
	if [ "$BACKEND" = landlock ]; then
		assert_landlock_proxy_refused
		run_confine -p quiet --dry-run -- true
		assert_status "$RC" 0
		assert_policy network.mode none "$PROFILES/quiet.ini:6"
	else
		assert_status "$RC" 0
		assert_policy network.mode proxy "option --endpoint (implies proxy)"
		assert_policy network.endpoint api.example.com:443 "option --endpoint"
	fi
	assert_ws_unchanged
}

t_override_lists() {
	ws_new
	cfg_new
	f=$(prof off <<-'EOF'
	[profile]
	quadrant = offline
	[filesystem]
	read-only = ~/confine-test-p
	hide = /srv/confine-test-ph
	scratch = ~/confine-test-ps
	[environment]
	set = FROM_PROFILE=1
	pass = FROM_PROFILE_PASS
	EOF
	)
	# confine expands ~, not the shell.
	# shellcheck disable=SC2088
	run_confine -p off --ro '~/confine-test-o' --ro /srv/confine-test-o2 \
	    --hide /srv/confine-test-oh --scratch '~/confine-test-os' \
	    --env FROM_OPTION=2 --env FROM_OPTION_PASS --dry-run -- true
	assert_status "$RC" 0
	assert_policy_order "$OUT" \
	    "  filesystem.read-only = $HOME/confine-test-p  ($f:4)" \
	    "  filesystem.read-only = $HOME/confine-test-o  (option --ro)" \
	    "  filesystem.read-only = /srv/confine-test-o2  (option --ro)" \
	    "  filesystem.hide = /srv/confine-test-ph  ($f:5)" \
	    "  filesystem.hide = /srv/confine-test-oh  (option --hide)" \
	    "  filesystem.scratch = $HOME/confine-test-ps  ($f:6)" \
	    "  filesystem.scratch = $HOME/confine-test-os  (option --scratch)" \
	    "  environment.pass = FROM_PROFILE_PASS  ($f:9)" \
	    "  environment.pass = FROM_OPTION_PASS  (option --env)" \
	    "  environment.set = FROM_PROFILE=1  ($f:8)" \
	    "  environment.set = FROM_OPTION=2  (option --env)"
	assert_ws_unchanged
}

t_override_network_lists() {
	ws_new
	cfg_new
	# A direct path must exist, as the run needs it.
	mkdir "$TEST_TMP/pd" "$TEST_TMP/od"
	f=$(prof on <<-EOF
	[profile]
	quadrant = online
	[workspace]
	private = no
	[network]
	mode = proxy
	allow = docs.example.org
	endpoint = api.example.com:443
	[filesystem]
	direct = $TEST_TMP/pd
	EOF
	)
	run_confine -p on --allow example.com --endpoint model.example.net:443 \
	    --direct "$TEST_TMP/od" --dry-run -- true
	if [ "$BACKEND" = landlock ]; then
		assert_landlock_proxy_refused
		assert_ws_unchanged
		return 0
	fi
	assert_status "$RC" 0
	assert_policy network.mode proxy "$f:6"
	assert_policy_order "$OUT" \
	    "  network.allow = docs.example.org  ($f:7)" \
	    "  network.allow = example.com  (option --allow)" \
	    "  network.endpoint = api.example.com:443  ($f:8)" \
	    "  network.endpoint = model.example.net:443  (option --endpoint)" \
	    "  filesystem.direct = $TEST_TMP/pd  ($f:10)" \
	    "  filesystem.direct = $TEST_TMP/od  (option --direct)"
	assert_out_has "  C: network.allow = example.com  (option --allow)"
	assert_out_has "  C: direct = $TEST_TMP/od  (option --direct)"
	assert_out_has "verdict: allowed (2 of 3 legs)"
	assert_ws_unchanged
}

t_offline_allow() {
	ws_new
	cfg_new
	f=$(printf '[profile]\nquadrant = offline\n' | prof offline)
	# Control: without --allow it is fine.
	run_confine -p offline --dry-run -- true
	assert_status "$RC" 0
	run_confine -p offline --allow example.com --dry-run -- true
	assert_status "$RC" 125
	assert_refusal "$ERR"
	assert_err_has "network.allow = example.com"
	assert_err_has "option --allow"
	assert_err_has "quadrant offline ($f:2)"
	assert_file_empty "$OUT"
	run_confine -p offline --allow example.com -- true
	assert_status "$RC" 125
	assert_err_has "network.allow = example.com  (option --allow)"
	assert_no_session
	assert_ws_unchanged
}

t_online_allow() {
	ws_new
	cfg_new
	printf '[profile]\nquadrant = online\n' | prof online >/dev/null
	run_confine -p online --allow example.com --dry-run -- true
	if [ "$BACKEND" = landlock ]; then
		assert_landlock_proxy_refused
		run_confine -p online --allow example.com -- sh -c 'echo ran'
		assert_landlock_proxy_refused
		assert_no_session
		assert_ws_unchanged
		return 0
	fi
	assert_status "$RC" 0
	assert_policy network.allow example.com "option --allow"
	assert_policy network.mode proxy "option --allow (implies proxy)"
	assert_out_has "verdict: allowed (2 of 3 legs)"
	assert_not_file_has_content "$OUT" "cannot run here"
	assert_file_empty "$ERR"
	# The run: through the proxy, with its variables set; a root caller
	# is refused in a quadrant with leg C.
	run_confine -p online --allow example.com -- sh -c 'echo "$HTTPS_PROXY"'
	if [ "$(id -u)" -eq 0 ]; then
		assert_status "$RC" 125
		assert_file_has_content "$ERR" 'caller is root'
		return 0
	fi
	assert_status "$RC" 0
	assert_eq "$(cat "$OUT")" "http://127.0.0.1:3128" "HTTPS_PROXY inside"
	assert_no_session
	assert_ws_unchanged
}

# ------------------------------------------ the rule of two, from keys

t_sealed_private_path() {
	ws_new
	cfg_new
	f=$(prof leaky <<-'EOF'
	[profile]
	quadrant = sealed
	[filesystem]
	read-only = ~/.ssh
	EOF
	)
	run_confine -p leaky --dry-run -- true
	assert_status "$RC" 125
	assert_refusal "$ERR"
	assert_err_has "quadrant sealed ($f:2)"
	assert_err_has "leg B is granted by read-only = $HOME/.ssh  ($f:4)"
	assert_file_empty "$OUT"
	# The same with the quadrant left to its default, and as an option.
	printf '[filesystem]\nhome = .ssh\n' | prof leaky2 >/dev/null
	run_confine -p leaky2 -- true
	assert_status "$RC" 125
	assert_err_has "leg B"
	assert_err_has "$PROFILES/leaky2.ini:2"
	# shellcheck disable=SC2088
	run_confine --ro '~/.ssh' -- true
	assert_status "$RC" 125
	assert_err_has "leg B is granted by read-only = $HOME/.ssh  (option --ro)"
	assert_no_session
	assert_ws_unchanged
}

t_three_legs() {
	ws_new
	cfg_new
	f=$(prof all3 <<-'EOF'
	[profile]
	quadrant = offline
	[filesystem]
	read-only = ~/.ssh
	[network]
	mode = host
	EOF
	)
	run_confine -p all3 --dry-run -- true
	assert_status "$RC" 125
	assert_refusal "$ERR"
	assert_err_has "all three legs"
	assert_err_has "read-only = $HOME/.ssh  ($f:4)"
	assert_err_has "network.mode = host  ($f:6)"
	# B from a private workspace, C from a direct path.
	g=$(prof all3t <<-'EOF'
	[profile]
	quadrant = online
	[workspace]
	private = yes
	[filesystem]
	direct = /srv/confine-test-d
	EOF
	)
	run_confine -p all3t --dry-run -- true
	assert_status "$RC" 125
	assert_err_has "all three legs"
	assert_err_has "workspace.private = yes  ($g:4)"
	assert_ws_unchanged
}

t_trusted_needs_no() {
	ws_new
	cfg_new
	f=$(printf '[profile]\nquadrant = trusted\n' | prof tr)
	run_confine -p tr --dry-run -- true
	assert_status "$RC" 125
	assert_refusal "$ERR"
	assert_err_has "the trusted quadrant needs untrusted = no"
	g=$(printf '[profile]\nquadrant = trusted\nuntrusted = yes\n' | prof tr2)
	run_confine -p tr2 -- true
	assert_status "$RC" 125
	assert_err_has "untrusted = no"
	assert_err_has "$g:3"
	assert_no_session
	assert_ws_unchanged
}

t_untrusted_no_elsewhere() {
	ws_new
	cfg_new
	for q in sealed offline online; do
		f=$(printf '[profile]\nquadrant = %s\nuntrusted = no\n' "$q" |
		    prof "u-$q")
		run_confine -p "u-$q" --dry-run -- true
		assert_status "$RC" 125
		assert_refusal "$ERR"
		assert_err_has "untrusted = no ($f:3) is only for the trusted quadrant, not $q"
	done
	# The default quadrant, too.
	printf '[profile]\nuntrusted = no\n' | prof u-default >/dev/null
	run_confine -p u-default -- true
	assert_status "$RC" 125
	assert_err_has "only for the trusted quadrant"
	assert_no_session
	assert_ws_unchanged
}

t_trusted_runs() {
	ws_new
	cfg_new
	f=$(prof tr <<-'EOF'
	[profile]
	quadrant = trusted
	untrusted = no
	[network]
	mode = none
	EOF
	)
	run_confine -p tr --dry-run -- true
	assert_status "$RC" 0
	assert_policy untrusted no "$f:3"
	assert_out_has "verdict: allowed (0 of 3 legs)"
	run_confine -p tr -- sh -c 'echo ran'
	if [ "$(id -u)" -eq 0 ]; then
		# Leg C: a root caller is refused before the command runs.
		assert_status "$RC" 125
		assert_file_has_content "$ERR" 'caller is root'
		assert_file_empty "$OUT"
		return 0
	fi
	assert_status "$RC" 0
	assert_eq "$(cat "$OUT")" ran "the output"
	assert_file_has_content "$ERR" '^confine: warning: .*trusted'
	assert_ws_unchanged
}

# -------------------------------------------------------- subcommands

t_check() {
	ws_new
	cfg_new
	good=$(printf '[profile]\nquadrant = offline\n' | prof_file "$TEST_TMP/good.ini")
	bad=$(prof_file "$TEST_TMP/bad.ini" <<-'EOF'
	[profile]
	quadrant = sealed
	[network]
	mode = sometimes
	EOF
	)
	leg=$(printf '[filesystem]\nread-only = ~/.ssh\n' | prof_file "$TEST_TMP/leg.ini")
	RUN_CWD=$WS run_confine profile check "$good"
	assert_status "$RC" 0
	assert_eq "$(cat "$OUT")" "$good: ok: quadrant offline, legs A" "check good"
	assert_file_empty "$ERR"
	RUN_CWD=$WS run_confine profile check "$good" "$bad"
	assert_status "$RC" 125
	assert_eq "$(cat "$OUT")" "$good: ok: quadrant offline, legs A" "check good bad"
	assert_err_has "confine: $bad:4: mode: "
	# Bad first: the good one is still checked.
	RUN_CWD=$WS run_confine profile check "$bad" "$good"
	assert_status "$RC" 125
	assert_eq "$(cat "$OUT")" "$good: ok: quadrant offline, legs A" "check bad good"
	# The rule of two is part of the check.
	RUN_CWD=$WS run_confine profile check "$leg"
	assert_status "$RC" 125
	assert_err_has "leg B"
	assert_err_has "$leg:2"
	assert_ws_unchanged
}

t_show() {
	ws_new
	cfg_new
	f=$(prof shown <<-'EOF'
	[profile]
	quadrant = offline
	[filesystem]
	hide = /srv/confine-test-shown
	EOF
	)
	RUN_CWD=$WS run_confine profile show shown
	assert_status "$RC" 0
	assert_eq "$(first_line)" "profile: shown (by name)" "the first line"
	assert_out_has "effective policy:"
	assert_policy quadrant offline "$f:2"
	assert_policy filesystem.hide /srv/confine-test-shown "$f:4"
	assert_out_has "verdict: allowed"
	# A file, by path.
	RUN_CWD=$WS run_confine profile show "$f"
	assert_status "$RC" 0
	assert_policy quadrant offline "$f:2"
	RUN_CWD=$WS run_confine profile show confine-test-nosuch
	assert_status "$RC" 125
	assert_refusal "$ERR"
	assert_err_has "no profile named 'confine-test-nosuch'"
	assert_ws_unchanged
}

t_show_sealed() {
	ws_new
	cfg_new
	# What a run picks when no profile applies, profile show shows.
	line=$(sealed_elsewhere)
	RUN_CWD=$WS run_confine profile show sealed
	assert_status "$RC" 0
	assert_out_has "effective policy:"
	case $line in
	*built-in*) assert_policy quadrant sealed "built-in default" ;;
	*) assert_file_has_content "$OUT" '^  quadrant = sealed  \(' ;;
	esac
	assert_ws_unchanged
}

t_usage() {
	ws_new
	cfg_new
	for args in "profile" "profile bogus" "profile show" "profile check" \
	    "profile list extra" "profile show a b"; do
		# shellcheck disable=SC2086
		RUN_CWD=$WS run_confine $args
		[ "$RC" -eq 125 ] || fail "confine $args: status $RC, expected 125"
		assert_refusal "$ERR"
		assert_file_empty "$OUT"
	done
	assert_ws_unchanged
}

tcase "-p NAME loads the user's profile" t_by_name
tcase "-p FILE: ./x.ini, x.ini and any path with a / are files" t_by_file
tcase "-p with a missing name or file, or a bad name: 125" t_not_found
tcase "no -p: the profile named after the command's base name" t_named_after_command
tcase "no -p: the user's sealed.ini is the default" t_default_user_sealed
tcase "no -p, no sealed.ini: the built-in sealed" t_default_builtin
tcase "profile list: the user's profiles first, shadowing, built-in sealed" t_list
tcase "a group- or other-writable named profile is refused: 125" t_perms_mode
tcase "a named profile owned by another user is refused: 125" t_perms_owner
tcase "-p FILE is read as is; what it extends is checked" t_perms_extends
tcase "extends: scalars and lists inherited with their origin, child wins" t_extends_inherit
tcase "extends: an empty list value clears what is inherited" t_extends_clear
tcase "extends of a missing profile: 125 with FILE:LINE" t_extends_missing
tcase "extends in a cycle: 125" t_extends_cycle
tcase "options override scalars: -n, --backend, --endpoint implies proxy" t_override_scalars
tcase "options append to lists: --ro, --hide, --scratch, --env" t_override_lists
tcase "options append to lists: --allow, --endpoint, --direct (landlock: proxy refused)" t_override_network_lists
tcase "-p offline --allow example.com is refused: 125" t_offline_allow
tcase "-p online --allow: allowed, and run through the proxy (landlock: refused)" t_online_allow
tcase "sealed with a home path (read-only, home, --ro): leg B refused" t_sealed_private_path
tcase "all three legs from profile keys: refused" t_three_legs
tcase "trusted without untrusted = no: refused" t_trusted_needs_no
tcase "untrusted = no outside the trusted quadrant: refused" t_untrusted_no_elsewhere
tcase "trusted with untrusted = no runs, with a warning" t_trusted_runs
tcase "profile check: ok for the good, FILE:LINE for the bad, 125" t_check
tcase "profile show NAME prints the effective policy" t_show
tcase "profile show sealed works when sealed is the built-in" t_show_sealed
tcase "profile with bad usage: 125" t_usage
tap_done
