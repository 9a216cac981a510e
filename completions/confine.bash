# bash completion for confine(1)                           -*- shell-script -*-
# SPDX-License-Identifier: ISC
#
# confine [OPTIONS] [--] COMMAND [ARG...]
# confine run [OPTIONS] [--] COMMAND [ARG...]
# confine ls [--all] | show [SESSION]
# confine diff [--commits] [--color | --no-color] [SESSION]
# confine stop SESSION
# confine drop SESSION... | drop [--yes] --empty | --applied |
#     --older-than DURATION | --all
# confine state ls | show PROFILE | drop [--yes] PROFILE
# confine apply [--yes] [--commits] [--workspace DIR] [SESSION]
# confine enter [--as-left] [SESSION] [COMMAND [ARG...]]
# confine profile list | show NAME | check FILE...
# confine trust [FILE]
# confine doctor
#
# Options end at "--" or at the first word that is not an option; from there
# on, the words are a command line of their own, completed as such.
#
# The options, which of them take a value, and the backends are read from
# the "Options:" part of "confine --help" of the confine being completed,
# so a new option is completed as soon as confine has it; the lists below
# are used only when that fails.  Profile names come from "confine profile
# list", session ids from "confine ls".

# _confine_help CONFINE: set _confine_opts, _confine_argopts and
# _confine_backends from CONFINE's --help (cached per binary).
_confine_help()
{
	[[ ${_confine_help_of-} == "$1" ]] && return 0
	local help
	help=$("$1" --help 2>/dev/null)
	_confine_opts=$(awk '
		/^Options:/ { o = 1; next }
		/^[^ ]/ { o = 0 }
		o && $1 ~ /^-/ {
			for (i = 1; i <= NF; i++) {
				w = $i; sub(/,$/, "", w)
				if (w !~ /^--?[A-Za-z]/) break
				print w
			}
		}' <<<"$help")
	_confine_argopts=$(awk '
		/^Options:/ { o = 1; next }
		/^[^ ]/ { o = 0 }
		o && $1 ~ /^-/ {
			n = 0
			for (i = 1; i <= NF; i++) {
				w = $i; sub(/,$/, "", w)
				if (w ~ /^--?[A-Za-z]/) { opt[++n] = w; continue }
				if (w ~ /^[A-Z]/) for (j = 1; j <= n; j++) print opt[j]
				break
			}
		}' <<<"$help")
	_confine_backends=$(sed -n \
	    's/^ *--backend [A-Z]* *//; T; s/,/ /g; s/ or / /g; p' <<<"$help")
	if [[ -z $_confine_opts ]]; then
		_confine_opts='-p --profile -w --workspace --ro-workspace -n --network --allow
		    --endpoint --ro --hide --scratch --direct --env --backend
		    --memory --tasks --cpus --disk --clipboard
		    --dry-run -q --quiet -v --verbose -h --help -V --version'
		_confine_argopts='-p --profile -w --workspace --ro-workspace -n --network
		    --allow --endpoint --ro --hide --scratch --direct --env
		    --backend --memory --tasks --cpus --disk'
	fi
	[[ -n $_confine_backends ]] ||
	    _confine_backends='auto native bwrap landlock'
	_confine_help_of=$1
}

# Words: the profile names, and the session ids, of this user.
_confine_profiles()
{
	"$1" profile list 2>/dev/null | awk '{ print $1 }' | sort -u
}

_confine_sessions()
{
	"$1" ls --all 2>/dev/null | awk '{ print $1 }'
}

# The running ones: their state (the fifth column) says so.
_confine_running()
{
	"$1" ls --all 2>/dev/null | awk '$5 == "running" { print $1 }'
}

# shellcheck disable=SC2207 # the usual idiom: completions have no spaces
_confine()
{
	local cur prev words cword
	if declare -F _init_completion >/dev/null 2>&1; then
		_init_completion -n = || return
	else
		cur=${COMP_WORDS[COMP_CWORD]}
		prev=${COMP_WORDS[COMP_CWORD - 1]}
		words=("${COMP_WORDS[@]}")
		cword=$COMP_CWORD
	fi

	# The confine being completed (./src/confine, say), else the one in PATH.
	local confine=${words[0]}
	if ! type -P -- "$confine" >/dev/null 2>&1 && ! [[ -x $confine ]]; then
		confine=confine
	fi
	_confine_help "$confine"

	local subcommands='run ls show diff apply enter stop drop state profile trust doctor'
	local i=1 w c

	case ${words[1]-} in
	doctor)
		return 0
		;;
	ls)
		[[ $cur == -* && $cword -eq 2 ]] &&
		    COMPREPLY=($(compgen -W '--all' -- "$cur"))
		return 0
		;;
	profile)
		if ((cword == 2)); then
			COMPREPLY=($(compgen -W 'list show check' -- "$cur"))
		elif [[ ${words[2]-} == show && $cword -eq 3 ]]; then
			COMPREPLY=($(compgen -W "$(_confine_profiles "$confine")" \
			    -- "$cur") $(compgen -f -X '!*.ini' -- "$cur"))
		elif [[ ${words[2]-} == check ]]; then
			COMPREPLY=($(compgen -f -- "$cur"))
		fi
		return 0
		;;
	trust)
		((cword == 2)) && COMPREPLY=($(compgen -f -- "$cur"))
		return 0
		;;
	state)
		if ((cword == 2)); then
			COMPREPLY=($(compgen -W 'ls show drop' -- "$cur"))
		elif [[ ${words[2]-} == drop && $cword -eq 3 && $cur == -* ]]; then
			COMPREPLY=($(compgen -W '--yes -y' -- "$cur"))
		elif [[ ${words[2]-} == show && $cword -eq 3 ]] ||
		    [[ ${words[2]-} == drop && $cword -eq 3 ]] ||
		    [[ ${words[2]-} == drop && $cword -eq 4 &&
		    (${words[3]-} == --yes || ${words[3]-} == -y) ]]; then
			COMPREPLY=($(compgen -W "$(_confine_profiles "$confine")" \
			    -- "$cur"))
		fi
		return 0
		;;
	show)
		((cword == 2)) &&
		    COMPREPLY=($(compgen -W "$(_confine_sessions "$confine")" -- "$cur"))
		return 0
		;;
	diff)
		# diff [--commits] [--color | --no-color] [SESSION]
		i=2
		while ((i < cword)) && [[ ${words[i]} == --* ]]; do
			((i++))
		done
		if ((i < cword)); then
			return 0
		elif [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W '--commits --color --no-color' -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$(_confine_sessions "$confine")" -- "$cur"))
		fi
		return 0
		;;
	stop)
		((cword == 2)) &&
		    COMPREPLY=($(compgen -W "$(_confine_running "$confine")" -- "$cur"))
		return 0
		;;
	drop)
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W '--empty --applied --older-than --all --yes' -- "$cur"))
		elif [[ $prev != --older-than && ${words[2]-} != -* ]]; then
			COMPREPLY=($(compgen -W "$(_confine_sessions "$confine")" -- "$cur"))
		fi
		return 0
		;;
	apply)
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W '--yes -y --commits --workspace' -- "$cur"))
		elif [[ $prev == --workspace ]]; then
			COMPREPLY=($(compgen -d -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$(_confine_sessions "$confine")" -- "$cur"))
		fi
		return 0
		;;
	enter)
		# enter [--as-left] [SESSION] [COMMAND [ARG...]]: the option, a
		# session id, or the command.
		i=2
		[[ ${words[2]-} == --as-left && $cword -gt 2 ]] && i=3
		local first=$i
		[[ ${words[i]-} == [0-9]*-* && $cword -gt $i ]] && ((i++))
		[[ ${words[i]-} == -- && $cword -gt $i ]] && ((i++))
		if ((cword == first)); then
			COMPREPLY=($(compgen -W "$(_confine_sessions "$confine")" -- "$cur"))
			if [[ $cur == -* ]] && ((first == 2)); then
				COMPREPLY+=($(compgen -W '--as-left' -- "$cur"))
			elif [[ $cur != [0-9]* ]]; then
				COMPREPLY+=($(compgen -c -- "$cur"))
			fi
		elif declare -F _command_offset >/dev/null 2>&1; then
			_command_offset "$i"
		elif ((cword == i)); then
			COMPREPLY=($(compgen -c -- "$cur"))
		else
			COMPREPLY=($(compgen -f -- "$cur"))
		fi
		return 0
		;;
	run)
		((cword > 1)) && i=2
		;;
	esac

	# Walk the options before the cursor; find where the command starts.
	while ((i < cword)); do
		w=${words[i]}
		case $w in
		--)
			((i++))
			break
			;;
		--*=*) ;;
		--*)
			[[ " "$_confine_argopts" " == *[[:space:]]"$w"[[:space:]]* ]] &&
			    ((i++))
			;;
		-?*)
			# A cluster such as -qw DIR: an option taking a value ends it,
			# and takes the next word when nothing follows it in the cluster.
			c=${w#-}
			while [[ -n $c ]]; do
				if [[ " "$_confine_argopts" " == *[[:space:]]"-${c:0:1}"[[:space:]]* ]]; then
					[[ ${#c} -eq 1 ]] && ((i++))
					break
				fi
				c=${c:1}
			done
			;;
		*)
			break
			;;
		esac
		((i++))
	done

	if ((i < cword)) || { ((i == cword)) && [[ ${words[i - 1]} == -- && $i -gt 1 ]]; }; then
		# The command, then its arguments.
		if declare -F _command_offset >/dev/null 2>&1; then
			_command_offset "$i"
		elif ((i == cword)); then
			COMPREPLY=($(compgen -c -- "$cur"))
		else
			COMPREPLY=($(compgen -f -- "$cur"))
		fi
		return 0
	fi

	# The word under the cursor is an option, an option's value, or the
	# command's name.  A cluster such as -qw ends like the option it ends in.
	if [[ $prev == -[!-]?* ]]; then
		prev=-${prev: -1}
	fi
	case $prev in
	-w | --workspace | --ro-workspace)
		if declare -F _filedir >/dev/null 2>&1; then
			_filedir -d
		else
			COMPREPLY=($(compgen -d -- "$cur"))
		fi
		return 0
		;;
	-p | --profile)
		COMPREPLY=($(compgen -W "$(_confine_profiles "$confine")" -- "$cur") \
		    $(compgen -f -X '!*.ini' -- "$cur"))
		return 0
		;;
	--ro | --hide | --scratch | --direct)
		COMPREPLY=($(compgen -f -- "$cur"))
		return 0
		;;
	-n | --network)
		COMPREPLY=($(compgen -W 'none proxy host' -- "$cur"))
		return 0
		;;
	--backend)
		COMPREPLY=($(compgen -W "$_confine_backends" -- "$cur"))
		return 0
		;;
	--env)
		COMPREPLY=($(compgen -e -- "$cur"))
		return 0
		;;
	esac
	# Any other option that takes a value (--allow HOST, say): nothing to offer.
	if [[ $prev == -* && " "$_confine_argopts" " == *[[:space:]]"$prev"[[:space:]]* ]]; then
		return 0
	fi

	case $cur in
	--*=*)
		local opt=${cur%%=*} val=${cur#*=}
		case $opt in
		--workspace | --ro-workspace) COMPREPLY=($(compgen -d -- "$val")) ;;
		--profile) COMPREPLY=($(compgen -W "$(_confine_profiles "$confine")" -- "$val")) ;;
		--network) COMPREPLY=($(compgen -W 'none proxy host' -- "$val")) ;;
		--backend) COMPREPLY=($(compgen -W "$_confine_backends" -- "$val")) ;;
		--env) COMPREPLY=($(compgen -e -- "$val")) ;;
		--ro | --hide | --scratch | --direct) COMPREPLY=($(compgen -f -- "$val")) ;;
		esac
		COMPREPLY=("${COMPREPLY[@]/#/$opt=}")
		return 0
		;;
	-*)
		COMPREPLY=($(compgen -W "$_confine_opts" -- "$cur"))
		return 0
		;;
	esac

	if ((cword == 1)); then
		# The first word: the subcommands first (and the options, on an
		# empty word); the commands only for a word no subcommand starts
		# with ("confine -- d" completes commands from "d").
		COMPREPLY=($(compgen -W "$subcommands" -- "$cur"))
		if [[ -z $cur ]]; then
			COMPREPLY+=($(compgen -W "$_confine_opts" -- "$cur"))
		elif ((${#COMPREPLY[@]} == 0)); then
			COMPREPLY=($(compgen -c -- "$cur"))
		fi
	else
		COMPREPLY=($(compgen -c -- "$cur"))
	fi
	return 0
} &&
	complete -F _confine confine

# ex: filetype=sh
