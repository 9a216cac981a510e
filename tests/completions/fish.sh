#!/bin/sh
# SPDX-License-Identifier: ISC
# The fish completion (completions/confine.fish), through fish's own
# "complete -C": the subcommands, the options and backends of "confine
# --help", the network modes, the profile names of "confine profile list"
# and the session ids of a private XDG_STATE_HOME.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"

command -v fish >/dev/null 2>&1 || skip_all "fish is not installed"
top=$TESTS_SRCDIR/..
[ -r "$top/completions/confine.fish" ] || { echo "Bail out! no confine.fish"; exit 1; }

mkdir -p "$TEST_TMP/bin" "$TEST_TMP/fish"
ln -s "$CONFINE" "$TEST_TMP/bin/confine"
cp "$top/completions/confine.fish" "$TEST_TMP/fish/confine.fish"
XDG_CONFIG_HOME=$TEST_TMP/config
export XDG_CONFIG_HOME
mkdir -p "$XDG_CONFIG_HOME/confine/profiles"
printf '[profile]\nextends = sealed\n' \
    >"$XDG_CONFIG_HOME/confine/profiles/mine-for-tests.ini"
chmod -R go-w "$XDG_CONFIG_HOME"
STATE=$TEST_TMP/fake-state
mkdir -p "$STATE/confine/sessions/20250101-120000-5f2ac9e1" \
    "$STATE/confine/sessions/not-a-session"
chmod -R go-rwx "$STATE"

# complete LINE: the candidates fish offers (without descriptions).
complete_line() {
	XDG_STATE_HOME=$STATE PATH=$TEST_TMP/bin:$PATH HOME=$TEST_TMP \
	    fish --no-config -c "set fish_complete_path '$TEST_TMP/fish' \$fish_complete_path; complete -C '$1'" \
	    2>"$TEST_TMP/fish.err" | cut -f 1 | sort -u >"$TEST_TMP/offered"
	assert_file_empty "$TEST_TMP/fish.err"
}

offers() {
	for _w in "$@"; do
		grep -q -x -F -e "$_w" "$TEST_TMP/offered" || {
			diag_file "$TEST_TMP/offered" offered
			fail "'$_w' is not offered"
		}
	done
}

offers_exactly() {
	printf '%s\n' $1 | sort -u >"$TEST_TMP/want"
	cmp -s "$TEST_TMP/want" "$TEST_TMP/offered" || {
		diag "wanted: $(tr '\n' ' ' <"$TEST_TMP/want")"
		diag "got:    $(tr '\n' ' ' <"$TEST_TMP/offered" | cut -c 1-300)"
		fail "not the expected offer"
	}
}

"$CONFINE" --help >"$TEST_TMP/help"
LONG=$(awk '/^Options:/ { on = 1; next } /^[^ ]/ { on = 0 }
	on && $1 ~ /^-/ { for (i = 1; i <= NF; i++) { w = $i; sub(/,$/, "", w)
	if (w ~ /^--/) print w; else if (w !~ /^-/) break } }' "$TEST_TMP/help")
BACKENDS=$(sed -n 's/^ *--backend [A-Z]* *//p' "$TEST_TMP/help" |
    tr ',' ' ' | sed 's/ or / /g')

t_subcommands() {
	complete_line 'confine '
	offers run ls show diff apply enter stop drop state profile trust doctor
	complete_line 'confine profile '
	offers_exactly 'list show check'
}

t_options() {
	[ -n "$LONG" ] || fail "no options in --help"
	complete_line 'confine --'
	offers_exactly "$LONG"
}

t_values() {
	complete_line 'confine --backend '
	offers_exactly "$BACKENDS"
	complete_line 'confine -q --network '
	offers_exactly 'none proxy host'
	complete_line 'confine -p mine'
	offers mine-for-tests
	complete_line 'confine profile show mine'
	offers mine-for-tests
}

t_sessions() {
	complete_line 'confine show '
	offers_exactly 20250101-120000-5f2ac9e1
	complete_line 'confine apply -'
	offers --yes --commits --workspace
}

offers_not() {
	for _w in "$@"; do
		! grep -q -x -F -e "$_w" "$TEST_TMP/offered" || {
			diag_file "$TEST_TMP/offered" offered
			fail "'$_w' is offered"
		}
	done
}

# The first word: the subcommands, not every command of PATH; a word no
# subcommand starts with, and the command's place after "--" or the
# options, complete the commands as before.
t_first_word() {
	complete_line 'confine '
	offers_exactly 'run ls show diff apply enter stop drop state profile trust doctor'
	complete_line 'confine d'
	offers_exactly 'diff doctor drop'
	complete_line 'confine confi'
	offers confine
	for pre in '--' '-q'; do
		complete_line "confine $pre d"
		offers date dd
		offers_not doctor drop
	done
	complete_line 'confine diff --'
	offers --commits --color --no-color
}

t_command() {
	# After the command, its own words: not confine's options.
	complete_line 'confine -p sealed -- sh --'
	if grep -q -x -e --profile "$TEST_TMP/offered"; then
		fail "confine's options offered to the command"
	fi
}

plan 6
tcase "subcommands" t_subcommands
tcase "the long options of --help" t_options
tcase "backends, network modes and profile names" t_values
tcase "session ids from confine ls" t_sessions
tcase "the command's own words are left alone" t_command
tcase "the first word: subcommands first" t_first_word
tap_done
