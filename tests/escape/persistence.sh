#!/bin/sh
# SPDX-License-Identifier: ISC
# persistence.sh - escape catalogue 4.6: write-down and persistence.
# Every file the host later reads or runs (git hooks and config keys,
# .envrc, editor and agent settings, build files, shell rc files,
# autostart and systemd user units, ~/.local/bin, confine's own profiles
# and trust pins) is written from inside: none may reach the host without
# "confine apply", the workspace ones must be flagged by the report, and
# git internals never leave the session, not even with "confine apply".
# The controls plant the same on a copy outside and show that the host
# then runs it.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
. "$TESTS_SRCDIR/escape-lib.sh"
command -v git >/dev/null 2>&1 || skip_all "no git"
plan 14

PWNED=$TEST_TMP/pwned

# plant_git DIR: git hooks and config keys in DIR that touch $PWNED.*
# when the host's git runs there.  Used inside (the attempt, in the
# command's working directory: the workspace, or on landlock its copy)
# and outside on a copy (the control).
PLANT_GIT='cd "$1"; p=$2
mkdir -p .git/hooks .husky
for h in pre-commit post-commit post-checkout pre-push reference-transaction; do
	printf "#!/bin/sh\ntouch %s.hook-%s\n" "$p" "$h" >.git/hooks/$h
	chmod +x .git/hooks/$h
done
printf "#!/bin/sh\ntouch %s.husky\n" "$p" >.husky/pre-commit
chmod +x .husky/pre-commit
git config core.fsmonitor "touch $p.fsmonitor; false"
git config alias.st "!touch $p.alias; git status"
git config diff.external "sh -c '\''touch $p.diffext'\''"
git config filter.evil.clean "sh -c '\''touch $p.clean; cat'\''"
git config filter.evil.required true
echo "* filter=evil" >>.git/info/attributes
printf "[core]\n\tsshCommand = touch %s.ssh\n" "$p" >.git/evil.cfg
git config include.path evil.cfg
echo changed >>README'

# host_git DIR: what the host's git does next in DIR: status, diff, an
# alias, a commit, a checkout.
host_git() {
	(
		cd "$1" || exit 1
		touch README
		git_fixed status >/dev/null 2>&1
		git_fixed diff >/dev/null 2>&1
		git_fixed st >/dev/null 2>&1
		git_fixed commit -q --allow-empty -m host >/dev/null 2>&1
		git_fixed checkout -q -b host-branch >/dev/null 2>&1
		git_fixed add README >/dev/null 2>&1
	) || true
}

pwned() {
	ls "$TEST_TMP" | grep '^pwned' || true
}

# W6: hooks and config keys in .git.
t_git() {
	esc_ws
	# Control: on a copy outside, the host's git runs them.
	cp -a "$WS" "$TEST_TMP/control"
	sh -c "$PLANT_GIT" sh "$TEST_TMP/control" "$PWNED.control"
	host_git "$TEST_TMP/control"
	[ -n "$(pwned)" ] || fail "control: the host's git ran nothing planted outside"
	diag "control ran: $(pwned | tr '\n' ' ')"
	rm -rf "$TEST_TMP/control" "$PWNED".*
	run_confine -- sh -c "$PLANT_GIT" sh . "$PWNED"
	assert_status "$RC" 0
	assert_host_unchanged
	kept_session
	if patch_paths "$PATCH" | grep -a -q -i -E '(^|/)\.git(/|$)'; then
		fail "a .git path in the patch"
	fi
	assert_file_has_content "$REPORT" '^  \.git \(git internals are never exported\)$'
	assert_flagged .husky/pre-commit
	host_git "$WS"
	assert_eq "$(pwned)" "" "what the host's git ran"
}

# W6 with "confine apply": the change lands, git internals do not.
t_git_apply() {
	esc_ws
	run_confine -- sh -c "$PLANT_GIT" sh . "$PWNED"
	assert_status "$RC" 0
	kept_session
	githash=$(tree_hash "$WS/.git")
	RC=0
	(cd "$WS" && timeout -k 5 "$CONFINE_TIMEOUT" "$CONFINE" apply --yes "$SESSION_ID") \
	    </dev/null >"$OUT" 2>"$ERR" || RC=$?
	assert_status "$RC" 0
	assert_file_has_content "$ERR" '^  \.husky/pre-commit: git hooks'
	assert_eq "$(tree_hash "$WS/.git")" "$githash" "the host's .git after apply"
	assert_file_has_content "$WS/README" '^changed$'
	host_git "$WS"
	# .husky/pre-commit runs only where core.hooksPath names it, which
	# only the host's own config could.
	assert_eq "$(pwned)" "" "what the host's git ran after apply"
}

# W7: git reached from the tree: attributes, submodules, a nested repo,
# a bare repository; flagged, or never exported.
t_git_tree() {
	esc_ws
	run_confine -- sh -c '
		printf "* filter=evil diff=evil\n" >.gitattributes
		printf "[submodule \"s\"]\n\tpath = s\n\turl = ext::sh -c touch% %s\n" "$1" >.gitmodules
		git init -q nested && git -C nested config core.fsmonitor "touch $1.nested"
		mkdir -p bare && echo "ref: refs/heads/main" >bare/HEAD &&
		    printf "[core]\n\tbare = true\n\tfsmonitor = touch %s.bare\n" "$1" >bare/config
		echo "gitdir: /tmp" >dotgit-file && mkdir -p sub && mv dotgit-file sub/.git' sh "$PWNED"
	assert_status "$RC" 0
	assert_host_unchanged
	kept_session
	if patch_paths "$PATCH" | grep -a -q -i -E '(^|/)\.git(/|$)'; then
		fail "a .git path in the patch"
	fi
	for p in .gitattributes .gitmodules bare/config bare/HEAD; do
		assert_flagged "$p"
	done
	host_git "$WS"
	assert_eq "$(pwned)" "" "what the host's git ran"
}

# ws_write FILES...: the command writes each (relative to the workspace);
# the host workspace and home stay as they were, and the report flags
# each.
ws_write() {
	esc_ws
	# Control: outside, the same writes land in a copy of the tree.
	cp -a "$WS" "$TEST_TMP/control"
	(cd "$TEST_TMP/control" && for f; do
		mkdir -p "$(dirname "$f")" && echo "touch $PWNED" >"$f"; done)
	[ -n "$(git -C "$TEST_TMP/control" status --porcelain --ignored)" ] ||
	    fail "control: the writes did not land outside"
	rm -rf "$TEST_TMP/control"
	run_confine -- sh -c 'p=$1; shift; for f; do mkdir -p "$(dirname "$f")" && echo "touch $p" >"$f" || echo "NOT WRITTEN $f"; done' sh "$PWNED" "$@"
	assert_status "$RC" 0
	assert_not_file_has_content "$OUT" 'NOT WRITTEN'
	assert_host_unchanged
	kept_session
	for f; do
		[ ! -e "$WS/$f" ] || fail "$f reached the host workspace"
		assert_flagged "$f"
		assert_file_has_content "$ERR" "^  flagged: $f: "
	done
}

t_envrc() { ws_write .envrc sub/.envrc .tool-versions .mise.toml; }
t_editor() {
	ws_write .vscode/settings.json .vscode/tasks.json .idea/workspace.xml \
	    .devcontainer/devcontainer.json
}
t_agent() {
	ws_write .claude/settings.json .mcp.json .cursor/mcp.json \
	    .codex/config.toml .gemini/settings.json CLAUDE.md AGENTS.md
}
t_build() {
	ws_write Makefile package.json .npmrc conftest.py \
	    .cargo/config.toml .pre-commit-config.yaml \
	    .github/workflows/ci.yml .confine.ini \
	    .venv/lib/python3/site-packages/x.pth
}
# Dotfiles and home-like trees inside a workspace (a dotfiles repository,
# a stow tree): applied, the host's shell, session or PATH runs them.
t_dotfiles() {
	ws_write .bashrc .profile .zshrc .config/autostart/x.desktop \
	    .config/systemd/user/x.service .local/bin/git .ssh/authorized_keys \
	    .gitconfig
}

# home_write FILES...: the command writes each in its home (a scratch
# tmpfs): the host home is unchanged, nothing is in the patch, and a
# second session starts without them.
home_write() {
	esc_ws
	# Control: outside, the same writes land in a copy of the home.
	cp -a "$HOME" "$TEST_TMP/home-copy"
	(cd "$TEST_TMP/home-copy" && for f; do
		mkdir -p "$(dirname "$f")" && echo "touch $PWNED" >>"$f"; done)
	for f; do
		grep -q "touch $PWNED" "$TEST_TMP/home-copy/$f" ||
		    fail "control: $f not written outside"
	done
	rm -rf "$TEST_TMP/home-copy"
	run_confine -- sh -c 'p=$1; shift; cd; for f; do mkdir -p "$(dirname "$f")" && echo "touch $p" >>"$f" || echo "NOT WRITTEN $f"; done; ls -A' sh "$PWNED" "$@"
	assert_status "$RC" 0
	assert_host_unchanged
	# No workspace change: no session kept.
	assert_no_session
	run_confine -- sh -c 'cd; for f; do [ -e "$f" ] && echo "SURVIVED $f"; done; true' sh "$@"
	assert_status "$RC" 0
	assert_not_file_has_content "$OUT" SURVIVED
	assert_host_unchanged
}

t_home_rc() { home_write .bashrc .profile .bash_profile .zshrc .zshenv; }
t_home_autostart() {
	home_write .config/autostart/x.desktop .config/systemd/user/x.service \
	    .config/systemd/user/default.target.wants/x.service \
	    .local/share/applications/x.desktop
}
t_home_path() { home_write .local/bin/git .local/bin/sudo .cargo/bin/cargo; }
t_home_keys() {
	home_write .ssh/authorized_keys .ssh/config .ssh/rc .gitconfig .npmrc
}

# W11: confine's own policy: a profile that shadows sealed, a trust pin.
t_confine_config() {
	esc_ws
	home_write .config/confine/profiles/sealed.ini .config/confine/trust
	# And the next run from the host still gets the built-in sealed policy.
	run_confine --dry-run -- true
	assert_status "$RC" 0
	assert_file_has_content "$OUT" '^profile: sealed \(built-in\)'
}

# W13: a writer the command leaves behind cannot change the session
# after confine has exported it (what the user reviews is what applies).
t_late_writer() {
	esc_ws
	writer='trap "" HUP INT TERM QUIT; i=0; while [ $i -lt 100 ]; do echo "line $i" >>"$1"; i=$((i + 1)); sleep 0.05; done'
	# Control: outside, such a writer outlives its parent and writes on.
	setsid sh -c "$writer" sh "$TEST_TMP/grow" </dev/null >/dev/null 2>&1 &
	w=$!
	track_pid "$w"
	sleep 0.5
	a=$(wc -l <"$TEST_TMP/grow")
	sleep 0.5
	b=$(wc -l <"$TEST_TMP/grow")
	kill -9 "$w" 2>/dev/null || true
	[ "$b" -gt "$a" ] || fail "control: the writer did not write on outside"
	run_confine -- sh -c "setsid sh -c '$writer' sh \"\$PWD/grow\" </dev/null >/dev/null 2>&1 & sleep 0.5"
	assert_status "$RC" 0
	kept_session
	h1=$(tree_hash "$SESSIONS/$SESSION_ID/upper")
	p1=$(sha256sum <"$PATCH")
	sleep 1
	assert_eq "$(tree_hash "$SESSIONS/$SESSION_ID/upper")" "$h1" "the session's upper layer a second later"
	assert_eq "$(sha256sum <"$PATCH")" "$p1" "the patch a second later"
	n=$(grep -c '^+line ' "$PATCH")
	assert_eq "$n" "$(wc -l <"$SESSIONS/$SESSION_ID/upper/grow")" "lines in the patch and in the upper layer"
	assert_host_unchanged
}

tcase "W6 .git hooks and config keys: never exported; the host's git runs nothing" t_git
tcase "W6 confine apply: the change lands, .git does not; git runs nothing" t_git_apply
tcase "W7 .gitattributes, .gitmodules, nested and bare repositories" t_git_tree
tcase "W9 .envrc, .tool-versions, .mise.toml: flagged, not on the host" t_envrc
tcase "W8 editor settings (.vscode, .idea, .devcontainer): flagged" t_editor
tcase "W8 agent settings and instructions: flagged" t_agent
tcase "W9 build files, manifests, CI, .pth, .confine.ini: flagged" t_build
tcase "W10 dotfiles in a workspace (.bashrc, autostart, systemd, .local/bin): flagged" t_dotfiles
tcase "W10 shell rc files in the home: scratch, gone after the session" t_home_rc
tcase "W10 autostart and systemd user units: scratch, gone" t_home_autostart
tcase "W10 ~/.local/bin and ~/.cargo/bin (PATH hijack): scratch, gone" t_home_path
tcase "W10 ~/.ssh and ~/.gitconfig: scratch, gone" t_home_keys
tcase "W11 confine's own profiles and trust pins: scratch, gone" t_confine_config
tcase "W13 a writer left behind cannot change the exported session" t_late_writer
tap_done
