#!/bin/sh
# SPDX-License-Identifier: ISC
# review-flags.sh - the review flags what can run code or hides text
# (src/flag.c, confine(1) FLAGGED PATHS): one session touches paths of
# the newly flagged kinds, in another case than the usual one where the
# tool ignores case; a text file with a NUL byte; files with a zero-width
# character, a bidi override and tag characters; and a nested bare
# repository's config (and a deletion beside it).  "confine show" lists
# each with its reason, and nothing else; an ordinary source file and a
# near-miss name are not flagged.  Positive controls: git's own view of
# the patch shows the NUL file as binary (its text hidden), and git run
# in the nested repository once the patch is applied runs the command
# the agent wrote into its config.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
require_userns
plan 3

GIT_HOME=$TEST_TMP/git-home
mkdir -p "$GIT_HOME"
git_clean() {
	GIT_CONFIG_NOSYSTEM=1 HOME=$GIT_HOME git "$@"
}

NESTED="a nested git repository's internals: git run there obeys its config and hooks"

# The flagged section of the report as "confine show" prints it.
EXPECTED="  .cursorrules: agent instructions or configuration: the next agent obeys it
  .forgejo/workflows/ci.yml: CI configuration: runs with the repository's secrets
  Containerfile: a container or environment definition: building or entering it runs commands
  JUSTFILE: a task runner's file: its tasks run commands
  bidi.c: a bidirectional control: the text shows in another order than tools read it (line 2)
  eslint.config.js: tool configuration in code: the tool runs it
  hidden.py: invisible Unicode: a zero-width character (line 1)
  mise.toml: a task runner's file: its tasks run commands
  notes.txt: text with NUL bytes in it: the review shows it as binary, hiding the text
  sub/makefile: a build script; invisible Unicode: a soft hyphen (U+00AD) (line 1)
  tag.md: invisible Unicode: tag characters (U+E0000-E007F) hide text (line 3)
  vendor/lib.git/config: $NESTED
  vendor/lib.git/description: $NESTED"

# A workspace with a bare repository kept as data in it, committed.
ws_with_bare() {
	ws_new
	git_clean init -q --bare "$WS/vendor/lib.git"
	git_fixed -C "$WS" add -A
	git_fixed -C "$WS" commit -q -m "vendor a bare repository"
	WS_HASH=$(tree_hash "$WS")
}

t_flags() {
	ws_with_bare
	PWNED=$TEST_TMP/pwned
	run_confine -- sh -c '
		set -e
		echo "build:; echo" >JUSTFILE
		mkdir -p sub .forgejo/workflows docs
		printf "al\302\255l:; echo\n" >sub/makefile
		echo "FROM scratch" >Containerfile
		echo "on: push" >.forgejo/workflows/ci.yml
		echo "[tasks.x]" >mise.toml
		echo "export default []" >eslint.config.js
		echo "be careful" >.cursorrules
		printf "hello\000world\nrm -rf ~\n" >notes.txt
		printf "a\342\200\213b = 1\n" >hidden.py
		printf "int x;\n/* \342\200\256 } */ int y;\n" >bidi.c
		printf "# t\n\nok\363\240\201\201\363\240\201\242\n" >tag.md
		printf "[core]\n\tbare = false\n\tfsmonitor = touch %s #\n" \
		    "$1" >>vendor/lib.git/config
		rm vendor/lib.git/description
		echo "int main(void) { return 1; }" >src/main.c
		echo "see the justfile" >docs/justfile.md' sh "$PWNED"
	assert_status "$RC" 0
	assert_ws_unchanged
	assert_file_has_content "$ERR" '^  flagged: notes.txt: text with NUL bytes'
	assert_file_has_content "$ERR" '^  flagged: vendor/lib.git/config: a nested git'
	run_confine show
	assert_status "$RC" 0
	sed -n '/^flagged/,/^ignored/p' "$OUT" | sed '1d;$d' | LC_ALL=C sort \
	    >"$TEST_TMP/flagged"
	printf '%s\n' "$EXPECTED" | LC_ALL=C sort >"$TEST_TMP/expected"
	diff -u "$TEST_TMP/expected" "$TEST_TMP/flagged" >"$TEST_TMP/d" || {
		diag_file "$TEST_TMP/d" "expected and shown flags"
		fail "confine show does not flag exactly what it should"
	}
	assert_not_file_has_content "$OUT" '^  (src/main\.c|docs/justfile\.md):'
	assert_file_has_content "$OUT" 'src/main\.c'
	assert_file_has_content "$OUT" 'docs/justfile\.md'
	SDIR=$SESSIONS/$(ls "$SESSIONS")
	PATCH=$SDIR/changes.patch

	# Positive controls, on a copy of the workspace with plain git.
	git_clean apply --numstat "$PATCH" >"$TEST_TMP/numstat"
	assert_file_has_content "$TEST_TMP/numstat" '^-	-	notes\.txt$'
	COPY=$TEST_TMP/copy
	cp -a "$WS" "$COPY"
	(cd "$COPY/vendor" && git_clean --git-dir=lib.git --work-tree=. \
	    status >/dev/null 2>&1) || :
	assert_not_exists "$PWNED"
	git_clean -C "$COPY" apply --binary "$PATCH"
	(cd "$COPY/vendor" && git_clean --git-dir=lib.git --work-tree=. \
	    status >/dev/null 2>&1) || :
	assert_exists "$PWNED"
}

# The host side alone makes a nested repository: a change that only
# deletes its config is flagged too; a directory that merely looks like
# one by name (a HEAD, but no objects/, refs/, commondir or config) is not.
t_delete_only() {
	ws_with_bare
	mkdir -p "$WS/notrepo.git"
	echo "ref: refs/heads/main" >"$WS/notrepo.git/HEAD"
	echo x >"$WS/notrepo.git/description"
	git_fixed -C "$WS" add -A
	git_fixed -C "$WS" commit -q -m "a look-alike"
	WS_HASH=$(tree_hash "$WS")
	run_confine -- sh -c 'rm vendor/lib.git/config notrepo.git/description'
	assert_status "$RC" 0
	assert_ws_unchanged
	run_confine show
	assert_status "$RC" 0
	sed -n '/^flagged/,/^ignored/p' "$OUT" | sed '1d;$d' >"$TEST_TMP/flagged"
	assert_eq "$(cat "$TEST_TMP/flagged")" "  vendor/lib.git/config: $NESTED" \
	    "the flagged paths"
	assert_file_has_content "$OUT" 'notrepo\.git/description'
}

# Names that show otherwise than they are, in the file's name or a
# directory's, that the change brings (added, or a rename's new name):
# flagged, escaped in the review; a name in plain UTF-8 is not, nor the
# host's own name of a file the change modifies.  Positive control:
# applied, the names reach the host as they are.
t_names() {
	ws_new
	printf 'x\n' >"$WS/$(printf 'host\ttab.txt')"
	printf 'y\n' >"$WS/moved.txt"
	git_fixed -C "$WS" add -A
	git_fixed -C "$WS" commit -q -m "a host name with a tab"
	WS_HASH=$(tree_hash "$WS")
	run_confine -- sh -c '
		set -e
		for n in "report\342\200\256txt.sh" "a\033[2Jb" "new\nline" \
		    "tab\tname" "bad\377" "caf\303\251 na\303\257ve.txt"; do
			echo x >"$(printf "$n")"
		done
		mkdir "$(printf "d\342\200\213ir")"
		echo x >"$(printf "d\342\200\213ir")/ok.txt"
		echo more >>"$(printf "host\ttab.txt")"
		mv moved.txt "$(printf "mo\342\200\256ved")"'
	assert_status "$RC" 0
	assert_ws_unchanged
	run_confine show
	assert_status "$RC" 0
	sed -n '/^flagged/,/^ignored/p' "$OUT" | sed '1d;$d' | LC_ALL=C sort \
	    >"$TEST_TMP/flagged"
	LC_ALL=C sort >"$TEST_TMP/expected" <<'EOF'
  a\x1b[2Jb: in its path, control characters: they can hide text on a terminal
  bad\xff: in its path, not valid UTF-8: a terminal, an editor and a compiler may each read it differently
  d\u{200b}ir/ok.txt: in its path, invisible Unicode: a zero-width character
  mo\u{202e}ved: in its path, a bidirectional control: the text shows in another order than tools read it
  new\x0aline: in its path, control characters: they can hide text on a terminal
  report\u{202e}txt.sh: in its path, a bidirectional control: the text shows in another order than tools read it
  tab\x09name: in its path, control characters: they can hide text on a terminal
EOF
	diff -u "$TEST_TMP/expected" "$TEST_TMP/flagged" >"$TEST_TMP/d" || {
		diag_file "$TEST_TMP/d" "expected and shown flags"
		fail "confine show does not flag exactly the deceptive names"
	}
	# The review itself prints no byte of a name raw.
	assert_not_file_has_content "$OUT" "$(printf '\033')"
	assert_not_file_has_content "$OUT" "$(printf '\342\200\256')"
	assert_file_has_content "$OUT" 'host\\ttab\.txt'
	run_confine apply --yes
	assert_status "$RC" 0
	assert_exists "$WS/$(printf 'report\342\200\256txt.sh')"
	assert_exists "$WS/$(printf 'new\nline')"
	assert_exists "$WS/$(printf 'caf\303\251 na\303\257ve.txt')"
}

tcase "newly flagged paths, hidden text and a nested repository's config are flagged with why; plain files are not" t_flags
tcase "deleting a nested repository's config alone is flagged; a look-alike is not" t_delete_only
tcase "new names with controls or deceptive Unicode are flagged, escaped in the review; the host's own are not" t_names
tap_done
