#!/bin/sh
# SPDX-License-Identifier: ISC
# git-identity.sh - the user's user.name and user.email, read on the host
# from the global git configuration, reach the command as GIT_AUTHOR_* and
# GIT_COMMITTER_*, so a commit made inside carries them; nothing else of
# that configuration does (aliases, credential helpers, includes, hooks
# paths, url rewrites).  A hostile value injects nothing; the workspace's
# own .git/config is not read on the host; --env wins; without an
# identity, git inside fails as it says.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
require_userns
plan 11

# Only the files of the case's own home are the global configuration.
unset XDG_CONFIG_HOME GIT_CONFIG_GLOBAL GIT_CONFIG_SYSTEM GIT_DIR \
    GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL \
    EMAIL

# home_new: a home of the case's own in H, HOME pointing at it, with a
# .gitconfig read from stdin.
home_new() {
	H=$(mktemp -d "$TEST_TMP/home.XXXXXX") || fail "mktemp"
	cat >"$H/.gitconfig"
	HOME=$H
	export HOME
}

# What git says inside the workspace: the commit's identity, then the
# value of each key of the host's configuration that must stay out.
INSIDE='
	git commit -q --allow-empty -m inside || echo "commit failed"
	git log -1 --format="author=%an <%ae>%ncommitter=%cn <%ce>"
	for k in alias.x credential.helper core.hookspath include.path \
	    url.https://evil.example/.insteadof; do
		printf "%s=%s\n" "$k" "$(git config --get "$k")"
	done
	test ! -e "$HOME/.gitconfig" || echo "a .gitconfig shows"
	env | grep "^GIT_" | grep -v "^GIT_CONFIG_NOSYSTEM=1\$" | sort'

# The keys INSIDE asks for, all empty.
NOTHING_ELSE='alias.x=
credential.helper=
core.hookspath=
include.path=
url.https://evil.example/.insteadof='

t_commit() {
	ws_new
	home_new <<-'EOF'
	[user]
		name = Alice Liddell
		email = alice@example.org
	[alias]
		x = !echo aliased
	[credential]
		helper = store --file=/nonexistent/confine-test-credentials
	[include]
		path = more.cfg
	EOF
	printf '[core]\n\thooksPath = /nonexistent/hooks\n[url "https://evil.example/"]\n\tinsteadOf = https://github.com/\n' >"$H/more.cfg"
	# Control: outside, the host's configuration holds them all.
	assert_eq "$(git config --get alias.x)" "!echo aliased" "alias.x outside"
	assert_eq "$(git config --get credential.helper)" \
	    "store --file=/nonexistent/confine-test-credentials" \
	    "credential.helper outside"
	assert_eq "$(git config --get core.hookspath)" "/nonexistent/hooks" \
	    "core.hooksPath outside (included)"
	run_confine -- sh -c "$INSIDE"
	assert_status "$RC" 0
	printf '%s\n' 'author=Alice Liddell <alice@example.org>' \
	    'committer=Alice Liddell <alice@example.org>' "$NOTHING_ELSE" \
	    'GIT_AUTHOR_EMAIL=alice@example.org' \
	    'GIT_AUTHOR_NAME=Alice Liddell' \
	    'GIT_COMMITTER_EMAIL=alice@example.org' \
	    'GIT_COMMITTER_NAME=Alice Liddell' >"$TEST_TMP/want"
	cmp -s "$OUT" "$TEST_TMP/want" || {
		diff "$TEST_TMP/want" "$OUT" | sed 's/^/# /'
		fail "inside: not the identity alone"
	}
	assert_ws_unchanged
}

t_included() {
	ws_new
	home_new <<-'EOF'
	[include]
		path = identity.cfg
	EOF
	printf '[user]\n\tname = Bob Included\n\temail = bob@example.org\n' \
	    >"$H/identity.cfg"
	run_confine -- sh -c 'echo "$GIT_AUTHOR_NAME <$GIT_AUTHOR_EMAIL>"'
	assert_status "$RC" 0
	assert_eq "$(cat "$OUT")" "Bob Included <bob@example.org>" \
	    "an identity from an included file"
	assert_ws_unchanged
}

t_global_files() {
	ws_new
	home_new </dev/null
	mkdir -p "$H/.config/git"
	printf '[user]\n\tname = Xdg User\n\temail = xdg@example.org\n' \
	    >"$H/.config/git/config"
	run_confine -- sh -c 'echo "$GIT_AUTHOR_NAME <$GIT_AUTHOR_EMAIL>"'
	assert_status "$RC" 0
	assert_eq "$(cat "$OUT")" "Xdg User <xdg@example.org>" \
	    "the identity of \$XDG_CONFIG_HOME/git/config"
	printf '[user]\n\tname = Home User\n\temail = home@example.org\n' \
	    >"$H/.gitconfig"
	GIT_CONFIG_GLOBAL=/dev/null run_confine -- \
	    sh -c 'env | grep "^GIT_" | grep -v "^GIT_CONFIG_NOSYSTEM=1\$" || :'
	assert_status "$RC" 0
	assert_file_empty "$OUT"
	GIT_CONFIG_GLOBAL=$H/.config/git/config run_confine -- \
	    sh -c 'echo "$GIT_AUTHOR_NAME <$GIT_AUTHOR_EMAIL>"'
	assert_status "$RC" 0
	assert_eq "$(cat "$OUT")" "Xdg User <xdg@example.org>" \
	    "the identity of the file GIT_CONFIG_GLOBAL names"
	assert_ws_unchanged
}

t_newline() {
	ws_new
	home_new <<-'EOF'
	[user]
		name = "Eve\n[core]\n\thooksPath = /nonexistent/hooks"
		email = eve@example.org
	EOF
	# Control: git reads the name with its newlines.
	assert_eq "$(git config --get user.name | wc -l)" 3 \
	    "lines of user.name outside"
	run_confine -- sh -c "$INSIDE"
	assert_status "$RC" 0
	assert_file_has_content "$ERR" \
	    "^confine: warning: git identity: not given to the command: user.name: it holds a control character"
	assert_not_file_has_content "$OUT" 'Eve|^GIT_(AUTHOR|COMMITTER)_NAME='
	assert_file_has_content "$OUT" '^GIT_AUTHOR_EMAIL=eve@example.org$'
	assert_file_has_content "$OUT" '^core.hookspath=$'
	assert_ws_unchanged
}

t_config_syntax() {
	ws_new
	home_new <<-'EOF'
	[user]
		name = "Eve\"] [core] hooksPath = /nonexistent/hooks ; x"
		email = "eve@example.org\"] [alias] x = !id"
	EOF
	run_confine -- sh -c "$INSIDE"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" \
	    '^author=Eve"] \[core\] hooksPath = /nonexistent/hooks ; x <eve@example.org"] \[alias\] x = !id>$'
	assert_file_has_content "$OUT" '^core.hookspath=$'
	assert_file_has_content "$OUT" '^alias.x=$'
	assert_ws_unchanged
}

t_workspace_config() {
	ws_new
	home_new </dev/null
	git -C "$WS" config user.name "Repo Local"
	git -C "$WS" config user.email repo@example.org
	# Control: git in the workspace reads them there.
	assert_eq "$(git -C "$WS" config --get user.name)" "Repo Local" \
	    "user.name in the workspace, outside"
	WS_HASH=$(tree_hash "$WS")
	run_confine --dry-run -- true
	assert_status "$RC" 0
	assert_not_file_has_content "$OUT" '^git identity|GIT_AUTHOR'
	assert_ws_unchanged
}

t_override() {
	ws_new
	home_new <<-'EOF'
	[user]
		name = Alice Liddell
		email = alice@example.org
	EOF
	run_confine --dry-run --env GIT_AUTHOR_NAME=Bot \
	    --env GIT_AUTHOR_EMAIL=bot@example.org -- true
	assert_status "$RC" 0
	assert_file_has_content "$OUT" \
	    "^git identity: name 'Alice Liddell', email 'alice@example.org' .*; set: GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL; left as \[environment\] or --env give them: GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL$"
	run_confine --env GIT_AUTHOR_NAME=Bot \
	    --env GIT_AUTHOR_EMAIL=bot@example.org -- sh -c "$INSIDE"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^author=Bot <bot@example.org>$'
	assert_file_has_content "$OUT" \
	    '^committer=Alice Liddell <alice@example.org>$'
	assert_ws_unchanged
}

t_none() {
	ws_new
	home_new <<-'EOF'
	[alias]
		x = !echo aliased
	EOF
	# Control: outside, git finds no identity either.
	st git -C "$WS" commit -q --allow-empty -m outside \
	    >"$TEST_TMP/control" 2>&1
	assert_ne "$ST" 0 "a commit without an identity outside"
	assert_file_has_content "$TEST_TMP/control" 'Author identity unknown'
	WS_HASH=$(tree_hash "$WS")
	run_confine -- sh -c "$INSIDE"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^commit failed$'
	assert_file_has_content "$ERR" 'Author identity unknown'
	assert_not_file_has_content "$OUT" '^GIT_(AUTHOR|COMMITTER)'
	assert_not_file_has_content "$ERR" 'confine: git identity'
	assert_ws_unchanged
}

# The system's git configuration is the host's too (credential helpers,
# aliases, hooks paths there): git inside leaves it out, with or without
# an identity (GIT_CONFIG_NOSYSTEM=1).  A system file of the case's own,
# named by GIT_CONFIG_SYSTEM: the control, with GIT_CONFIG_NOSYSTEM=0,
# shows it is read; the host's own /etc/gitconfig too, where it says
# something outside.
SYSTEM_INSIDE='
	for k in credential.helper alias.y core.hookspath; do
		printf "%s=%s\n" "$k" "$(git config --get "$k")"
	done
	printf "system=%s\n" "$(git config --list --show-origin 2>/dev/null | grep -c "^file:/etc/gitconfig")"'
t_system() {
	ws_new
	home_new <<-'EOF'
	[user]
		name = Alice Liddell
		email = alice@example.org
	EOF
	printf '[credential]\n\thelper = store --file=/nonexistent/sys\n[alias]\n\ty = !echo sys\n[core]\n\thooksPath = /nonexistent/sys-hooks\n' \
	    >"$WS/.t/system.cfg"
	WS_HASH=$(tree_hash "$WS")
	run_confine --env GIT_CONFIG_SYSTEM=.t/system.cfg \
	    --env GIT_CONFIG_NOSYSTEM=0 -- sh -c "$SYSTEM_INSIDE"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^credential\.helper=store --file=/nonexistent/sys$'
	assert_file_has_content "$OUT" '^alias\.y=!echo sys$'
	assert_file_has_content "$OUT" '^core\.hookspath=/nonexistent/sys-hooks$'
	run_confine --env GIT_CONFIG_SYSTEM=.t/system.cfg -- \
	    sh -c "$SYSTEM_INSIDE; git commit -q --allow-empty -m inside && git log -1 --format=%an"
	assert_status "$RC" 0
	printf '%s\n' credential.helper= alias.y= core.hookspath= system=0 \
	    'Alice Liddell' >"$TEST_TMP/want"
	cmp -s "$OUT" "$TEST_TMP/want" || {
		diff "$TEST_TMP/want" "$OUT" | sed 's/^/# /'
		fail "inside: the system's configuration shows"
	}
	if git -C "$WS" config --list --show-origin 2>/dev/null |
	    grep -q "^file:/etc/gitconfig"; then
		diag "the host's /etc/gitconfig is read outside, left out inside"
	fi
	assert_ws_unchanged
}

t_dry_run() {
	ws_new
	home_new <<-'EOF'
	[user]
		name = Alice Liddell
		email = alice@example.org
	EOF
	run_confine --dry-run -- true
	assert_status "$RC" 0
	assert_file_has_content "$OUT" \
	    "^git identity: name 'Alice Liddell', email 'alice@example.org' \(your global git configuration, nothing else of it\); set: GIT_AUTHOR_NAME GIT_COMMITTER_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_EMAIL$"
	assert_file_has_content "$OUT" \
	    '^environment: .*GIT_AUTHOR_EMAIL GIT_AUTHOR_NAME GIT_COMMITTER_EMAIL GIT_COMMITTER_NAME'
	assert_ws_unchanged
}

# git's answer is kept for the next run while its files are unchanged
# (store/git-cache.h); a file changed in the last two seconds is not kept
# from (its times might not show the next change): hence the waits.
t_kept() {
	ws_new
	home_new <<-'EOF'
	[user]
		name = Alice Liddell
		email = alice@example.org
	EOF
	kept=$XDG_STATE_HOME/confine/git-identity
	ask='echo "$GIT_AUTHOR_NAME <$GIT_AUTHOR_EMAIL>"'
	sleep 3
	run_confine -- sh -c "$ask"
	assert_status "$RC" 0
	assert_eq "$(cat "$OUT")" "Alice Liddell <alice@example.org>" "first run"
	[ -s "$kept" ] || fail "git's answer is not kept in $kept"
	# Changed, the same size, at once: read again, not the kept answer.
	sed -i 's/Alice/Bobby/' "$H/.gitconfig"
	run_confine -- sh -c "$ask"
	assert_status "$RC" 0
	assert_eq "$(cat "$OUT")" "Bobby Liddell <alice@example.org>" \
	    "a changed file"
	sleep 3
	run_confine -- sh -c "$ask"
	assert_eq "$(cat "$OUT")" "Bobby Liddell <alice@example.org>" \
	    "the changed file, kept"
	assert_file_has_content "$kept" 'Bobby Liddell'
	# Control: the kept answer is what a run takes (edited, same key).
	sed -i 's/Bobby/Carol/' "$kept"
	run_confine -- sh -c "$ask"
	assert_eq "$(cat "$OUT")" "Carol Liddell <alice@example.org>" \
	    "the kept answer"
	# Checked as git's own: a control character is refused, one line.
	sed -i 's/Carol/Ca\x01ol/' "$kept"
	run_confine -- sh -c "$ask"
	assert_status "$RC" 0
	assert_eq "$(cat "$OUT")" " <alice@example.org>" "a kept bad name"
	assert_file_has_content "$ERR" \
	    "^confine: warning: git identity: not given to the command: user.name: it holds a control character"
	assert_ws_unchanged
}

tcase "a commit inside carries the user's identity, and nothing else of git's configuration shows" t_commit
tcase "an identity from a file the global configuration includes" t_included
tcase "\$XDG_CONFIG_HOME/git/config, and GIT_CONFIG_GLOBAL as git takes it" t_global_files
tcase "a name with newlines is refused, with one line, and injects nothing" t_newline
tcase "a name in the syntax of a config file is a name, nothing more" t_config_syntax
tcase "the workspace's .git/config is not read on the host" t_workspace_config
tcase "--env GIT_AUTHOR_NAME= and GIT_AUTHOR_EMAIL= win" t_override
tcase "no identity on the host: git inside fails as it says" t_none
tcase "the system's git configuration (credential helper, alias, hooks path) is left out" t_system
tcase "--dry-run shows the identity" t_dry_run
tcase "git's answer kept: used while the files are as they were, checked as git's" t_kept
tap_done
