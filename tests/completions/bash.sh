#!/bin/sh
# SPDX-License-Identifier: ISC
# The bash completion (completions/confine.bash), loaded into bash with
# COMP_WORDS and COMP_CWORD set as bash sets them: what it offers for the
# subcommands, the options (those of "confine --help"), the backends (those
# of --help), the network modes (those of confine(1)), the profile names
# (those of "confine profile list": the shipped profiles of the source
# tree, copied into a private XDG_CONFIG_HOME, and one of the user's), and
# the session ids (those of a private XDG_STATE_HOME).  Each case runs
# with bash-completion's library loaded when it is installed, and again
# without it.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"

command -v bash >/dev/null 2>&1 || skip_all "bash is not installed"
top=$TESTS_SRCDIR/..
comp=$top/completions/confine.bash
[ -r "$comp" ] || { echo "Bail out! no $comp"; exit 1; }
bclib=
for f in /usr/share/bash-completion/bash_completion \
    /etc/bash_completion; do
	[ -r "$f" ] && { bclib=$f; break; }
done

# The profiles: the source tree's, and one of the user's own.
XDG_CONFIG_HOME=$TEST_TMP/config
export XDG_CONFIG_HOME
mkdir -p "$XDG_CONFIG_HOME/confine/profiles"
for p in "$top"/profiles/*.ini; do
	cp "$p" "$XDG_CONFIG_HOME/confine/profiles/"
done
printf '[profile]\nextends = sealed\n' \
    >"$XDG_CONFIG_HOME/confine/profiles/mine-for-tests.ini"
chmod -R go-w "$XDG_CONFIG_HOME"

# Sessions: two ids, and a directory that is not one.
STATE=$TEST_TMP/fake-state
mkdir -p "$STATE/confine/sessions/20250101-120000-5f2ac9e1" \
    "$STATE/confine/sessions/20250102-093000-0badc0de" \
    "$STATE/confine/sessions/not-a-session"
chmod -R go-rwx "$STATE"

# A directory in PATH with "confine" in it: the completion runs the
# confine being completed, found there.
mkdir -p "$TEST_TMP/bin"
ln -s "$CONFINE" "$TEST_TMP/bin/confine"

# complete WORD...: what the completion offers for the last WORD (the one
# under the cursor), one a line, in $TEST_TMP/offered; BCLIB chooses
# whether bash-completion's library is loaded first.
complete_words() {
	XDG_STATE_HOME=$STATE PATH=$TEST_TMP/bin:$PATH \
	bash --norc --noprofile -c '
		lib=$1 comp=$2
		shift 2
		if [ -n "$lib" ]; then
			. "$lib" || exit 1
		fi
		. "$comp" || exit 1
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"
		COMP_POINT=${#COMP_LINE}
		_confine confine "${COMP_WORDS[COMP_CWORD]}" \
		    "${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}"' bash "${BCLIB-}" "$comp" "$@" \
	    >"$TEST_TMP/offered" 2>"$TEST_TMP/complete.err" ||
	    { diag_file "$TEST_TMP/complete.err" stderr; fail "bash failed"; }
	assert_file_empty "$TEST_TMP/complete.err"
}

offers() {
	grep -q -x -F -e "$1" "$TEST_TMP/offered" || {
		diag_file "$TEST_TMP/offered" "offered"
		fail "'$1' is not offered"
	}
}

offers_not() {
	if grep -q -x -F -e "$1" "$TEST_TMP/offered"; then
		fail "'$1' is offered"
	fi
}

# offers_exactly LIST: the offer is LIST (words), in any order.
offers_exactly() {
	printf '%s\n' $1 | sort -u >"$TEST_TMP/want"
	sort -u "$TEST_TMP/offered" >"$TEST_TMP/got"
	cmp -s "$TEST_TMP/want" "$TEST_TMP/got" || {
		diag "wanted: $(tr '\n' ' ' <"$TEST_TMP/want")"
		diag "got:    $(tr '\n' ' ' <"$TEST_TMP/got" | cut -c 1-300)"
		fail "not the expected offer"
	}
}

"$CONFINE" --help >"$TEST_TMP/help" || { echo "Bail out! confine --help"; exit 1; }
HELP_OPTIONS=$(awk '
	/^Options:/ { on = 1; next }
	/^[^ ]/ { on = 0 }
	on && $1 ~ /^-/ {
		for (i = 1; i <= NF; i++) {
			w = $i; sub(/,$/, "", w)
			if (w !~ /^-/) break
			print w
		}
	}' "$TEST_TMP/help")
HELP_SUBCOMMANDS=$(awk '
	/^Subcommands:/ { on = 1; next }
	/^[^ ]/ { on = 0 }
	on && /^  [a-z]/ { print $1 }' "$TEST_TMP/help" | sort -u)
HELP_BACKENDS=$(sed -n 's/^ *--backend [A-Z]* *//p' "$TEST_TMP/help" |
    tr ',' ' ' | sed 's/ or / /g')
MAN_NETWORK=$(awk '/^# / { on = ($0 == "# NETWORK"); next } on' \
    "$top/man/confine.1.scd" | awk '
	prev != "" && /^\t/ { print prev }
	{ prev = ($0 ~ /^\*/) ? $0 : "" }' | sed 's/^\*\([a-z]*\)\*.*/\1/')
PROFILES=$(XDG_STATE_HOME=$STATE "$CONFINE" profile list | awk '{ print $1 }' |
    sort -u)
FAKE_IDS='20250101-120000-5f2ac9e1 20250102-093000-0badc0de'

t_subcommands() {
	[ -n "$HELP_SUBCOMMANDS" ] || fail "no subcommands in --help"
	complete_words confine ''
	for s in $HELP_SUBCOMMANDS; do
		offers "$s"
	done
	complete_words confine pro
	offers profile
	offers_not ls
}

t_options() {
	[ -n "$HELP_OPTIONS" ] || fail "no options in --help"
	complete_words confine -
	offers_exactly "$HELP_OPTIONS"
	complete_words confine -q --dr
	offers_exactly --dry-run
}

t_backends() {
	[ -n "$HELP_BACKENDS" ] || fail "no backends in --help"
	complete_words confine --backend ''
	offers_exactly "$HELP_BACKENDS"
	complete_words confine -q --backend=
	offers_exactly "$(printf -- '--backend=%s ' $HELP_BACKENDS)"
	# Each value offered is one confine takes (--dry-run shows it).
	mkdir -p "$TEST_TMP/dry-ws"
	for b in $HELP_BACKENDS; do
		(cd "$TEST_TMP/dry-ws" &&
		    "$CONFINE" --dry-run --backend "$b" -- true) \
		    >"$TEST_TMP/dry" 2>&1 || true
		grep -q "^ *backend = $b " "$TEST_TMP/dry" || {
			diag_file "$TEST_TMP/dry" "confine --dry-run --backend $b"
			fail "confine does not take --backend $b"
		}
	done
}

t_network() {
	[ -n "$MAN_NETWORK" ] || fail "no network modes in confine(1)"
	complete_words confine -n ''
	offers_exactly "$MAN_NETWORK"
	complete_words confine --network p
	offers_exactly proxy
	# A cluster ending in n takes the mode.
	complete_words confine -qn ''
	offers_exactly "$MAN_NETWORK"
}

t_profiles() {
	printf '%s\n' "$PROFILES" | grep -q -x mine-for-tests ||
	    fail "confine profile list does not list the user's profile"
	for p in "$top"/profiles/*.ini; do
		n=$(basename "$p" .ini)
		printf '%s\n' "$PROFILES" | grep -q -x -F "$n" ||
		    fail "confine profile list does not list $n"
	done
	complete_words confine -p ''
	for n in $PROFILES; do
		offers "$n"
	done
	complete_words confine profile show mi
	offers_exactly mine-for-tests
	complete_words confine -v --profile se
	offers sealed
}

t_sessions() {
	for c in show diff drop apply enter; do
		complete_words confine "$c" ''
		for s in $FAKE_IDS; do
			offers "$s"
		done
		offers_not not-a-session
	done
	complete_words confine show 20250102
	offers_exactly 20250102-093000-0badc0de
	complete_words confine apply --
	offers_exactly '--yes --commits --workspace'
	# One session for show; any number for drop.
	complete_words confine show 20250101-120000-5f2ac9e1 ''
	offers_exactly ''
	complete_words confine drop 20250101-120000-5f2ac9e1 2
	offers 20250102-093000-0badc0de
	# stop: the running sessions only (their run lock held, as confine
	# holds it); none of the others.
	complete_words confine stop ''
	offers_exactly ''
	run_id=20250103-080000-00c0ffee
	mkdir "$STATE/confine/sessions/$run_id"
	: >"$STATE/confine/sessions/$run_id/run.lock"
	flock -x "$STATE/confine/sessions/$run_id/run.lock" sleep 300 \
	    </dev/null >/dev/null 2>&1 &
	holder=$!
	track_pid "$holder"
	wait_for 30 sh -c "! flock -n '$STATE/confine/sessions/$run_id/run.lock' true" ||
	    fail "the run lock was not taken"
	child=$(pgrep -P "$holder")
	track_pid "$child"
	complete_words confine stop ''
	offers_exactly "$run_id"
	kill "$child" "$holder"
	wait "$holder" 2>/dev/null || :
	rm -r "${STATE:?}/confine/sessions/$run_id"
}

t_subcommand_words() {
	complete_words confine profile ''
	offers_exactly 'list show check'
	complete_words confine doctor ''
	offers_exactly ''
	complete_words confine ls ''
	offers_exactly ''
}

# The first word: the subcommands and the options, not every command of
# PATH; a word no subcommand starts with, and the command's place after
# "--" or after the options, complete the commands as before.
t_first_word() {
	complete_words confine ''
	offers_exactly "$HELP_SUBCOMMANDS $HELP_OPTIONS"
	complete_words confine d
	offers_exactly 'diff doctor drop'
	complete_words confine confi
	offers confine
	# (With bash-completion, its _command_offset completes there; it
	# runs compopt, which only a real completion can.)
	[ -n "$BCLIB" ] ||
	for pre in '--' '-q' '-p sealed --'; do
		# shellcheck disable=SC2086 # the words of pre
		complete_words confine $pre ''
		offers sh
		offers_not doctor
		complete_words confine $pre d
		offers_not doctor
	done
	complete_words confine diff --
	offers_exactly '--commits --color --no-color'
	complete_words confine diff --no-color ''
	for s in $FAKE_IDS; do
		offers "$s"
	done
}

# After the command, the words are the command's, not confine's options.
t_command_line() {
	complete_words confine -p sealed -- sh --pro
	offers_not --profile
	complete_words confine -w /tmp sh -
	offers_not --dry-run
	# An option's value that cannot be completed: nothing.
	complete_words confine --allow ''
	offers_exactly ''
}

cases() {
	tcase "$1: subcommands" t_subcommands
	tcase "$1: the options of --help" t_options
	tcase "$1: the backends of --help" t_backends
	tcase "$1: the network modes of confine(1)" t_network
	tcase "$1: profile names from confine profile list" t_profiles
	tcase "$1: session ids from confine ls" t_sessions
	tcase "$1: the words of profile, doctor and ls" t_subcommand_words
	tcase "$1: the command's own words are left alone" t_command_line
	tcase "$1: the first word: subcommands and options first" t_first_word
}

plan 18
BCLIB=
cases "without bash-completion"
if [ -n "$bclib" ]; then
	BCLIB=$bclib
	cases "with bash-completion"
else
	for i in 1 2 3 4 5 6 7 8 9; do
		skip "with bash-completion" "bash-completion is not installed"
	done
fi
tap_done
