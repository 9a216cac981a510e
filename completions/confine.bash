# bash completion for confine(1)                           -*- shell-script -*-
# SPDX-License-Identifier: ISC
#
# confine [OPTIONS] [--] COMMAND [ARG...]
# confine run [OPTIONS] [--] COMMAND [ARG...]
# confine doctor
#
# Options end at "--" or at the first word that is not an option; from there
# on, the words are a command line of their own, completed as such.

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

	local opts='-p --profile -w --workspace --env -n --network --allow
	    --endpoint --ro --hide --scratch --direct --backend --dry-run
	    -q --quiet -v --verbose -h --help -V --version'
	local i=1 w c

	if [[ ${words[1]-} == doctor && $cword -gt 1 ]]; then
		return 0
	fi
	if [[ ${words[1]-} == profile ]]; then
		if ((cword == 2)); then
			COMPREPLY=($(compgen -W 'list show check' -- "$cur"))
		elif [[ ${words[2]-} == show && $cword -eq 3 ]]; then
			COMPREPLY=($(compgen -W "$(confine profile list 2>/dev/null |
			    awk '{print $1}')" -- "$cur"))
		elif [[ ${words[2]-} == check ]]; then
			COMPREPLY=($(compgen -f -- "$cur"))
		fi
		return 0
	fi
	case ${words[1]-} in
	ls)
		return 0
		;;
	show | diff | drop | enter | apply)
		local ids
		ids=$(confine ls 2>/dev/null | awk '{print $1}')
		if [[ ${words[1]} == apply && $cur == -* ]]; then
			COMPREPLY=($(compgen -W '--yes --commits' -- "$cur"))
		elif [[ ${words[1]} == enter && $cword -gt 2 ]]; then
			COMPREPLY=($(compgen -c -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$ids" -- "$cur"))
		fi
		return 0
		;;
	esac
	if [[ ${words[1]-} == trust ]]; then
		((cword == 2)) && COMPREPLY=($(compgen -f -- "$cur"))
		return 0
	fi
	[[ ${words[1]-} == run && $cword -gt 1 ]] && i=2

	# Walk the options before the cursor; find where the command starts.
	while ((i < cword)); do
		w=${words[i]}
		case $w in
		--)
			((i++))
			break
			;;
		--profile | --workspace | --env | --network | --backend | \
		    --allow | --endpoint | --ro | --hide | --scratch | --direct)
			((i += 2))
			continue
			;;
		--*)
			;;
		-?*)
			# A cluster such as -qw DIR: a final w or n takes the next word.
			c=${w#-}
			while [[ -n $c ]]; do
				if [[ ${c:0:1} == [pwn] ]]; then
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
	if [[ $prev =~ ^-[qvhV]*p$ ]]; then
		prev=-p
	elif [[ $prev =~ ^-[qvhV]*w$ ]]; then
		prev=-w
	elif [[ $prev =~ ^-[qvhV]*n$ ]]; then
		prev=-n
	fi
	case $prev in
	-w | --workspace)
		if declare -F _filedir >/dev/null 2>&1; then
			_filedir -d
		else
			COMPREPLY=($(compgen -d -- "$cur"))
		fi
		return 0
		;;
	-p | --profile)
		COMPREPLY=($(compgen -W "$(confine profile list 2>/dev/null |
		    awk '{print $1}')" -- "$cur") $(compgen -f -X '!*.ini' -- "$cur"))
		return 0
		;;
	--ro | --hide | --scratch | --direct)
		COMPREPLY=($(compgen -f -- "$cur"))
		return 0
		;;
	--allow | --endpoint)
		return 0
		;;
	-n | --network)
		COMPREPLY=($(compgen -W 'none proxy host' -- "$cur"))
		return 0
		;;
	--backend)
		COMPREPLY=($(compgen -W 'auto native bwrap landlock' -- "$cur"))
		return 0
		;;
	--env)
		COMPREPLY=($(compgen -e -- "$cur"))
		return 0
		;;
	esac

	case $cur in
	--workspace=* | --network=* | --backend=* | --env=*)
		local opt=${cur%%=*} val=${cur#*=}
		case $opt in
		--workspace) COMPREPLY=($(compgen -d -- "$val")) ;;
		--network) COMPREPLY=($(compgen -W 'none proxy host' -- "$val")) ;;
		--backend) COMPREPLY=($(compgen -W 'auto native bwrap landlock' -- "$val")) ;;
		--env) COMPREPLY=($(compgen -e -- "$val")) ;;
		esac
		COMPREPLY=("${COMPREPLY[@]/#/$opt=}")
		return 0
		;;
	-*)
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		return 0
		;;
	esac

	if ((cword == 1)); then
		COMPREPLY=($(compgen -W 'run doctor profile trust ls show diff apply drop enter' -- "$cur") $(compgen -c -- "$cur"))
	else
		COMPREPLY=($(compgen -c -- "$cur"))
	fi
	return 0
} &&
	complete -F _confine confine

# ex: filetype=sh
