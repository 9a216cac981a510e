#!/bin/sh
# SPDX-License-Identifier: ISC
# The zsh completion (completions/_confine), in an interactive zsh driven
# through zpty: the list it shows for the backends and network modes, the
# options of "confine --help", the profile names and the session ids.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"

command -v zsh >/dev/null 2>&1 || skip_all "zsh is not installed"
zsh -f -c 'zmodload zsh/zpty' 2>/dev/null || skip_all "zsh has no zpty module"
top=$TESTS_SRCDIR/..

mkdir -p "$TEST_TMP/bin" "$TEST_TMP/zfunc"
ln -s "$CONFINE" "$TEST_TMP/bin/confine"
cp "$top/completions/_confine" "$TEST_TMP/zfunc/_confine"
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

# The driver: an interactive zsh with compinit, a key that lists the
# choices for the line typed, and a marker printed once it has listed them.
cat >"$TEST_TMP/drive.zsh" <<'EOF'
zmodload zsh/zpty
zpty z "zsh -f -i"
zpty -w z "PS1='> '; fpath=($1 \$fpath); autoload -Uz compinit; compinit -u -D; LISTMAX=100000; zstyle ':completion:*' list-separator '#'; bindkey '^T' list-choices; done-marker() { print; print END-OF-''LIST; zle send-break }; zle -N done-marker; bindkey '^Y' done-marker"
zpty -w -n z "$2"$'\x14\x19'
out=
integer idle=0
# Read while zsh writes (a long list comes a line a read); give up only
# after 30 s in which it wrote nothing.
while (( idle < 300 )); do
	if zpty -r -t z chunk; then
		out+=$chunk
		idle=0
	else
		(( idle++ ))
		sleep 0.1
	fi
	[[ $out == *END-OF-LIST* ]] && break
done
print -r -- "$out"
zpty -d z
EOF

# complete LINE: the words of the list zsh shows, one a line.
complete_line() {
	XDG_STATE_HOME=$STATE PATH=$TEST_TMP/bin:$PATH HOME=$TEST_TMP \
	    zsh -f "$TEST_TMP/drive.zsh" "$TEST_TMP/zfunc" "$1" \
	    >"$TEST_TMP/raw" 2>&1
	grep -q END-OF-LIST "$TEST_TMP/raw" || {
		diag_file "$TEST_TMP/raw" "zsh"
		fail "zsh did not list the choices"
	}
	if grep -q '_confine.*:[0-9]*:' "$TEST_TMP/raw"; then
		diag_file "$TEST_TMP/raw" "zsh"
		fail "the completion function reported an error"
	fi
	# After the set-up line's echo (its marker is quoted), up to the marker.
	tr -d '\r' <"$TEST_TMP/raw" | sed 's/\x1b\[[0-9;?]*[A-Za-z]/ /g' |
	    awk '/END-OF-\047\047LIST/ { on = 1; next } /END-OF-LIST/ { on = 0 } on' |
	    sed 's/#.*//' | tr -s ' \t' '\n\n' | grep . | sort -u \
	    >"$TEST_TMP/offered"
}

offers() {
	for _w in "$@"; do
		grep -q -x -F -e "$_w" "$TEST_TMP/offered" || {
			diag_file "$TEST_TMP/offered" offered
			fail "'$_w' is not offered"
		}
	done
}

"$CONFINE" --help >"$TEST_TMP/help"
LONG=$(awk '/^Options:/ { on = 1; next } /^[^ ]/ { on = 0 }
	on && $1 ~ /^-/ { for (i = 1; i <= NF; i++) { w = $i; sub(/,$/, "", w)
	if (w ~ /^--/) print w; else if (w !~ /^-/) break } }' "$TEST_TMP/help")
BACKENDS=$(sed -n 's/^ *--backend [A-Z]* *//p' "$TEST_TMP/help" |
    tr ',' ' ' | sed 's/ or / /g')

t_values() {
	complete_line 'confine --backend '
	offers $BACKENDS
	complete_line 'confine -q --network '
	offers none proxy host
}

t_options() {
	[ -n "$LONG" ] || fail "no options in --help"
	complete_line 'confine --'
	offers $LONG
}

t_profiles_sessions() {
	complete_line 'confine profile show '
	offers mine-for-tests sealed
	complete_line 'confine show '
	offers 20250101-120000-5f2ac9e1
	if grep -q -x not-a-session "$TEST_TMP/offered"; then
		fail "a directory that is not a session is offered"
	fi
	complete_line 'confine profile '
	offers list show check
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
	offers run ls show diff apply enter stop drop state profile trust doctor
	offers_not sh date
	complete_line 'confine d'
	offers diff doctor drop
	offers_not date dd
	for pre in '--' '-q'; do
		complete_line "confine $pre d"
		offers date dd
		offers_not doctor drop
	done
	complete_line 'confine diff --'
	offers --commits --color --no-color
}

plan 4
tcase "the first word: subcommands first" t_first_word
tcase "backends and network modes" t_values
tcase "the long options of --help" t_options
tcase "profile names and session ids" t_profiles_sessions
tap_done
