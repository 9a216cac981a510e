#!/bin/sh
# SPDX-License-Identifier: ISC
# export-property.sh - the exported patch is the change: for random change
# sets on random small repositories (helpers/changeset.py), the session's
# changes.patch applied with "confine apply" (its libgit2 engine) to a copy of the host
# workspace gives the tree that the same change set gives when applied to
# another copy directly; ignored untracked files are not exported; the host
# workspace and its .git stay byte-identical.
#
# Each case names its seeds.  Reproduce one by hand:
#   python3 tests/helpers/changeset.py init REPO_SEED /tmp/ws && cd /tmp/ws
#   confine -- python3 $PWD/tests/helpers/changeset.py apply SEED
# EXPORT_PROPERTY_SEED (default 1; 2 on bwrap, 3 on landlock) picks another
# family of seeds; EXPORT_PROPERTY_REPOS (default 6; 4 on bwrap and
# landlock) and EXPORT_PROPERTY_SETS (4) the counts (repositories, and
# change sets on each).  Each case applies with confine apply, about 1.5 s;
# a longer search: EXPORT_PROPERTY_REPOS=500.  One fixed case first, a
# failure the seeds found reduced: odd names in header-only patches
# (EXPORT_PROPERTY_REPOS=0 runs it alone); it costs about two random ones,
# so the copy backends run one repository fewer.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
require_userns

GEN=$TESTS_SRCDIR/helpers/changeset.py
# The copy backends export by another road (a copy told apart by ctime):
# fewer rounds each, on seed families of their own.
case $BACKEND in
bwrap)		BASE=${EXPORT_PROPERTY_SEED:-2}; REPOS=${EXPORT_PROPERTY_REPOS:-4} ;;
landlock)	BASE=${EXPORT_PROPERTY_SEED:-3}; REPOS=${EXPORT_PROPERTY_REPOS:-4} ;;
*)		BASE=${EXPORT_PROPERTY_SEED:-1}; REPOS=${EXPORT_PROPERTY_REPOS:-6} ;;
esac
SETS=${EXPORT_PROPERTY_SETS:-4}
# changeset.py apply --no-modes leaves chmod out, for a sandbox that
# refuses it; confine's backends all let the command chmod its own files.
NO_MODES=

command -v python3 >/dev/null || {
	echo "Bail out! python3 is needed for $GEN"
	exit 1
}
[ -r "$GEN" ] || {
	echo "Bail out! no generator at $GEN (set TESTS_SRCDIR)"
	exit 1
}
# The generator runs inside too.  The source tree may be where the sandbox
# shows nothing (under /tmp or the home directory, as in a CI checkout):
# a copy under /var/tmp, which the sandbox shows read-only, runs there.
GEN_DIR=
gen_cleanup() { [ -z "$GEN_DIR" ] || rm -rf "$GEN_DIR"; }
LIB_CLEANUP_HOOK=gen_cleanup
if [ -d /var/tmp ] && [ -w /var/tmp ]; then
	GEN_DIR=$(mktemp -d /var/tmp/confine-gen.XXXXXX) &&
	    cp "$GEN" "$GEN_DIR/changeset.py" && chmod -R a+rX "$GEN_DIR" &&
	    GEN_IN=$GEN_DIR/changeset.py
fi
GEN_IN=${GEN_IN:-$GEN}
ws_new
run_confine -- python3 -c 'import sys; open(sys.argv[1]).close()' "$GEN_IN"
[ "$RC" -eq 0 ] || {
	echo "Bail out! $GEN_IN is not readable inside the sandbox: $(head -n 1 "$ERR")"
	exit 1
}

# git, for applying and comparing: no system or user configuration.
GIT_HOME=$TEST_TMP/git-home
mkdir -p "$GIT_HOME"
CHANGESET_GIT_HOME=$GIT_HOME
export CHANGESET_GIT_HOME
git_clean() {
	GIT_CONFIG_NOSYSTEM=1 HOME=$GIT_HOME git "$@"
}

# apply_copy ID DIR: confine apply --yes of a copy of session ID (its
# meta, report and patch) whose workspace is DIR, as session ID-1; RC and
# ERR as run_confine leaves them.
apply_copy() {
	_s=$SESSIONS/$1
	mkdir "$_s-1" &&
	    cp "$_s/meta" "$_s/report" "$_s/changes.patch" "$_s-1/" ||
	    fail "cannot copy session $1"
	sed -i -e "s|^workspace=.*|workspace=$2|" -e "s|^id=.*|id=$1-1|" \
	    "$_s-1/meta"
	RUN_CWD=$2 run_confine apply --yes "$1-1"
}

plan $((REPOS * SETS + 1))
diag "seeds: EXPORT_PROPERTY_SEED=$BASE, $REPOS repositories x $SETS change sets"

# t_set REPO_SEED SEED: one change set on the repository $HOST.
t_set() {
	[ -n "$HOST" ] || fail "no repository for seed $1 (changeset.py init failed)"
	WS=$HOST
	WS_HASH=$HOST_HASH
	A=$TEST_TMP/a
	B=$TEST_TMP/b
	rm -rf "$A" "$B"
	cp -a "$HOST" "$A"
	cp -a "$HOST" "$B"
	# The expected tree: the change set applied directly.
	st sh -c 'cd "$1" && exec python3 "$2" apply "$3" $4' sh "$B" "$GEN" "$2" \
	    "$NO_MODES" >"$TEST_TMP/ops" 2>"$TEST_TMP/ops.err"
	[ "$ST" -eq 0 ] || {
		diag_file "$TEST_TMP/ops.err" "changeset.py apply, outside"
		fail "the change set does not apply outside (status $ST)"
	}
	run_confine -- python3 "$GEN_IN" apply "$2" $NO_MODES
	[ "$RC" -eq 0 ] || {
		diag_file "$TEST_TMP/ops" "the change set, applied outside"
		fail "the change set fails inside (status $RC)"
	}
	assert_ws_unchanged
	cmp -s "$OUT" "$TEST_TMP/ops" || {
		diag_file "$TEST_TMP/ops" "the change set, outside"
		fail "the change set inside is not the one outside: the tree inside differs"
	}
	patch=$TEST_TMP/empty.patch
	: >"$patch"
	n=0
	if [ -n "$(sessions)" ]; then
		id=$(sed -n 's/^confine: session \([^:]*\): \([0-9]*\) files\{0,1\} changed$/\1/p' "$ERR")
		n=$(sed -n 's/^confine: session [^:]*: \([0-9]*\) files\{0,1\} changed$/\1/p' "$ERR")
		[ -n "$id" ] || fail "a session was kept, but stderr does not name it"
		patch=$SESSIONS/$id/changes.patch
		assert_exists "$patch"
		assert_exists "$SESSIONS/$id/report"
	fi
	if [ -s "$patch" ]; then
		# confine apply itself, on the copy A: a copy of the session's
		# export whose workspace is A.
		apply_copy "$id" "$A"
		[ "$RC" -eq 0 ] || {
			diag_file "$TEST_TMP/ops" "the change set"
			diag_file "$ERR" "confine apply"
			grep -a '^diff --git' "$patch" | head -n 40 | sed 's/^/#   /'
			fail "confine apply does not take the session's patch"
		}
	fi
	st python3 "$GEN" compare "$RULES" "$A" "$B" "$patch" >"$TEST_TMP/cmp"
	[ "$ST" -eq 0 ] || {
		diag_file "$TEST_TMP/ops" "the change set"
		sed 1d "$TEST_TMP/cmp" >"$TEST_TMP/cmp.diff"
		diag_file "$TEST_TMP/cmp.diff" "differences"
		fail "the patched copy is not the expected tree"
	}
	assert_eq "$(sed -n 's/^patch-entries //p' "$TEST_TMP/cmp")" "$n" \
	    "files in the patch against the count on stderr"
	rm -rf "$A" "$B" "$XDG_STATE_HOME"
}

# The names a patch has to quote, on directories, in patches that name a
# file only in their "diff --git" line (a new binary or empty file, a mode
# change, a deleted binary), beside a directory replaced by a file and
# back, a rename of untracked host data and a rename over it.  git apply
# reads a bare "a/D /F b/D /F" nowhere (the seeds 400005, 40000500 of
# EXPORT_PROPERTY_SEED=4 found it: a file under "trailing-space /").
NAMES_HOST='mkdir -- "x " "del " "dd " "mv " "-dash " &&
printf "#!/bin/sh\n" >"x /run.sh" && printf "old\0bin" >"del /old.bin" &&
printf "a\n" >"dd /a" && printf "file\n" >"ff " &&
printf "tracked\n" >"mv /tracked.txt" && : >"-dash /--empty"'
NAMES_UNTRACKED='mkdir "u " && printf "untracked\0data" >"u /data" &&
printf "keep\n" >"u /keep" && printf "untracked text\n" >"over "'
NAMES_CMD='set -e
nl="
"
tab=$(printf "\t")
hi=$(printf "\351")
for d in "sp " " lead" "t${tab}ab " "n${nl}l " "q\"d " "b\\s " "-dash " \
    "${hi} " "sp /in ner "; do
	mkdir -p -- "$d"
	printf "bin\0ary" >"$d/bin"
	: >"$d/empty"
done
chmod +x "x /run.sh"
chmod +x -- "-dash /--empty"
rm "del /old.bin"
rm -r "dd " && printf "now a file\0" >"dd "
rm "ff " && mkdir "ff " && printf "bin\0" >"ff /data.bin"
mkdir "r " && mv "u /data" "r /moved.bin"
mv "mv /tracked.txt" "over "'

t_names() {
	ws_new
	(cd "$WS" && sh -c "$NAMES_HOST" && git_fixed add -A &&
	    git_fixed commit -q -m names && sh -c "$NAMES_UNTRACKED") ||
	    fail "cannot make the workspace"
	WS_HASH=$(tree_hash "$WS")
	rules=$TEST_TMP/names.rules
	A=$TEST_TMP/names.a
	B=$TEST_TMP/names.b
	C=$TEST_TMP/names.c
	for d in "$rules" "$A" "$B" "$C"; do
		cp -a "$WS" "$d"
	done
	(cd "$B" && sh -c "$NAMES_CMD") || fail "the change fails outside"
	# Positive control: git's own patch of the change, which git apply
	# cannot read.
	(cd "$C" && sh -c "$NAMES_CMD" && git_clean add -A &&
	    git_clean diff --cached --binary >"$TEST_TMP/git.patch") ||
	    fail "git diff fails"
	st git_clean apply --numstat "$TEST_TMP/git.patch" >/dev/null 2>&1
	assert_ne "$ST" 0 "git apply of git's own patch"
	rm -rf "$C" && cp -a "$WS" "$C"
	run_confine -- sh -c "$NAMES_CMD"
	assert_status "$RC" 0
	assert_ws_unchanged
	id=$(sed -n 's/^confine: session \([^:]*\): [0-9]* files\{0,1\} changed$/\1/p' "$ERR")
	[ -n "$id" ] || fail "stderr names no session"
	patch=$SESSIONS/$id/changes.patch
	# What applying does to untracked host data, said in the review.
	assert_file_has_content "$SESSIONS/$id/report" \
	    '^  u /data: untracked host data \(git has no copy\): applying deletes it$'
	assert_file_has_content "$SESSIONS/$id/report" \
	    '^  over : untracked host data \(git has no copy\): applying replaces it$'
	# git apply reads it, and gives the command's tree.
	(cd "$C" && git_clean apply "$patch") 2>"$TEST_TMP/git-apply.err" || {
		diag_file "$TEST_TMP/git-apply.err" "git apply"
		fail "git apply refuses the session's patch"
	}
	st python3 "$GEN" compare "$rules" "$C" "$B" "$patch" >"$TEST_TMP/cmp"
	[ "$ST" -eq 0 ] || {
		diag_file "$TEST_TMP/cmp" "differences"
		fail "git apply of the patch is not the command's tree"
	}
	# So does confine apply, on a copy of the session whose workspace is A.
	apply_copy "$id" "$A"
	[ "$RC" -eq 0 ] || {
		diag_file "$ERR" "confine apply"
		fail "confine apply refuses the session's patch"
	}
	st python3 "$GEN" compare "$rules" "$A" "$B" >"$TEST_TMP/cmp"
	[ "$ST" -eq 0 ] || {
		diag_file "$TEST_TMP/cmp" "differences"
		fail "confine apply of the patch is not the command's tree"
	}
	rm -rf "$rules" "$A" "$B" "$C"
}
tcase "odd names in header-only patches, type changes, renames of untracked data: git apply and confine apply give the command's tree" t_names

r=0
while [ "$r" -lt "$REPOS" ]; do
	repo_seed=$((BASE * 100000 + r))
	HOST=$TEST_TMP/repo.$r/ws
	RULES=$TEST_TMP/repo.$r/rules
	if python3 "$GEN" init "$repo_seed" "$HOST" >/dev/null 2>"$TEST_TMP/init.err"; then
		cp -a "$HOST" "$RULES"
		HOST_HASH=$(tree_hash "$HOST")
	else
		diag_file "$TEST_TMP/init.err" "changeset.py init $repo_seed"
		HOST=
	fi
	s=0
	while [ "$s" -lt "$SETS" ]; do
		seed=$((repo_seed * 100 + s))
		tcase "repo seed $repo_seed, change seed $seed" t_set "$repo_seed" "$seed"
		s=$((s + 1))
	done
	rm -rf "$TEST_TMP/repo.$r"
	r=$((r + 1))
done
tap_done
