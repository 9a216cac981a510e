#!/bin/sh
# SPDX-License-Identifier: ISC
# dead-drop.sh - the worked example of docs/dead-drop.md: a workflow
# repository with an instruction file; a worker session that reads it,
# edits the code and appends a note to the workflow repository; a
# gatekeeper session (profiles/gatekeeper.ini) that reads the code
# read-only and the note, and writes its answer into the workflow
# repository alone.  Each step is reviewed with confine show and applied
# with confine apply; every tree is checked after each step, and nothing
# crosses from a session to a tree but through its applied patch.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"
require_backend
plan 1

GATEKEEPER=$TESTS_SRCDIR/../profiles/gatekeeper.ini

# The worker: its instructions come from the workflow repository.
WORKER='set -e
flow=$1
code=$2
grep -q "^append: fixed$" "$flow/instructions.md"
echo fixed >>"$code/README"
echo "worker: appended fixed to README" >>"$flow/notes.md"'

# The gatekeeper: reads the code and the note, may not touch the code.
GATE='set -e
grep -q "^fixed$" README
grep -q "^worker: " ../workflow/notes.md
if echo gate >>README 2>/dev/null; then echo wrote-code; fi
echo "gatekeeper: read the note; next: none" >>../workflow/notes.md'

# What a tree holds: its files and their modes, and its HEAD (apply
# touches the index alone in .git).
tree() {
	(cd "$1" && find . -path ./.git -prune -o -printf '%p %y %m\n' | sort &&
	    find . -path ./.git -prune -o -type f -print0 | sort -z |
	    xargs -0r sha256sum && git_fixed rev-parse HEAD)
}

session_of() {
	sed -n 's/^confine: session \([^:]*\):.*/\1/p' "$ERR" | head -n 1
}

case_dead_drop() {
	not_on landlock "a copy at another path: one writable workspace"
	mkdir "$TEST_TMP/dd"
	ws_new "$TEST_TMP/dd"
	mv "$WS" "$TEST_TMP/dd/code"
	code=$TEST_TMP/dd/code
	ws_new "$TEST_TMP/dd"
	mv "$WS" "$TEST_TMP/dd/workflow"
	flow=$TEST_TMP/dd/workflow
	printf 'append: fixed\n' >"$flow/instructions.md"
	(cd "$flow" && git_fixed add instructions.md &&
	    git_fixed commit -q -m instructions)
	printf '[profile]\nquadrant = offline\n[workspace]\nprivate = yes\n' \
	    >"$TEST_TMP/worker.ini"
	WS=$code

	# What the worker's change makes of the code, outside confine.
	cp -a "$code" "$TEST_TMP/code.want"
	echo fixed >>"$TEST_TMP/code.want/README"

	# 1. The worker: both trees untouched until apply.
	code0=$(tree "$code")
	flow0=$(tree "$flow")
	run_confine -p "$TEST_TMP/worker.ini" -w "$code" -w "$flow" -- \
	    sh -c "$WORKER" worker "$flow" "$code"
	assert_status "$RC" 0
	assert_eq "$(tree "$code")" "$code0" "the code after the worker"
	assert_eq "$(tree "$flow")" "$flow0" "the workflow after the worker"
	worker=$(session_of)
	[ -n "$worker" ] || fail "no worker session"
	run_confine show "$worker"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" "^workspace $code\$"
	assert_file_has_content "$OUT" "^workspace $flow\$"
	assert_file_has_content "$OUT" '^untrusted: '
	run_confine apply --yes "$worker"
	assert_status "$RC" 0
	# Exactly the worker's change in each tree.
	assert_eq "$(tree "$code")" "$(tree "$TEST_TMP/code.want")" \
	    "the code after apply"
	assert_eq "$(cat "$flow/notes.md")" \
	    "worker: appended fixed to README" "the notes after apply"

	# 2. The gatekeeper, from the code repository: the code read-only.
	code1=$(tree "$code")
	flow1=$(tree "$flow")
	RUN_CWD=$code run_confine -p "$GATEKEEPER" -- sh -c "$GATE"
	assert_status "$RC" 0
	assert_not_file_has_content "$OUT" 'wrote-code'
	assert_eq "$(tree "$code")" "$code1" "the code after the gatekeeper"
	assert_eq "$(tree "$flow")" "$flow1" "the workflow after the gatekeeper"
	gate=$(session_of)
	[ -n "$gate" ] || fail "no gatekeeper session"
	RUN_CWD=$code run_confine show "$gate"
	assert_status "$RC" 0
	assert_file_has_content "$OUT" "^workspace $flow\$"
	assert_not_file_has_content "$OUT" "^workspace $code\$"
	RUN_CWD=$code run_confine diff "$gate"
	assert_not_file_has_content "$OUT" '^diff --git a/README'
	RUN_CWD=$code run_confine apply --yes "$gate"
	assert_status "$RC" 0
	assert_eq "$(tree "$code")" "$code1" "the code after the gatekeeper's apply"
	assert_eq "$(sed -n 2p "$flow/notes.md")" \
	    "gatekeeper: read the note; next: none" "the gatekeeper's note"
	assert_lines "$flow/notes.md" 2
	assert_eq "$(cat "$flow/instructions.md")" "append: fixed" \
	    "the instructions"
}

tcase "dead drop: worker and gatekeeper, each step reviewed and applied" case_dead_drop
tap_done
