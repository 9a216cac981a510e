# fish completion for confine(1)
# SPDX-License-Identifier: ISC
#
# The run options, their descriptions and the backends are read from the
# "Options:" part of "confine --help" when fish loads this file, so a new
# option is completed as soon as confine has it.  Profile names come from
# "confine profile list", session ids from "confine ls --all".

set -l __confine_subcommands run ls show diff apply enter stop drop state profile trust doctor

# __confine_state: where the cursor is, from the words before it.
#   options     only run options so far: an option, a subcommand or the command
#   command     right after "--": the command's name
#   past N      word N (1-based) is the subcommand or the command
function __confine_state
    set -l words (commandline -opc)
    set -l takes_value -p --profile -w --workspace --ro-workspace -n --network --allow \
        --endpoint --ro --hide --scratch --direct --env --backend \
        --memory --tasks --cpus --disk
    set -l skip 0
    set -l dashdash 0
    set -l i 1
    for w in $words[2..-1]
        set i (math $i + 1)
        if test $skip -eq 1
            set skip 0
        else if test $dashdash -eq 1
            echo past $i
            return
        else
            switch $w
                case '--*=*'
                case '--'
                    set dashdash 1
                case '-*'
                    if contains -- $w $takes_value
                        set skip 1
                    else if string match -qr -- '^-[^-]*[pwn]$' $w
                        set skip 1
                    end
                case '*'
                    echo past $i
                    return
            end
        end
    end
    test $dashdash -eq 1; and echo command; or echo options
end

function __confine_at_start
    test (__confine_state) = options
end

function __confine_at_command
    set -l s (__confine_state)
    test "$s" = options; or test "$s" = command
end

# The first word: the subcommands are offered there.
function __confine_first_word
    test (count (commandline -opc)) -eq 1
end

# The command's name: after "--" or the options, or as the first word
# when no subcommand starts with it (the subcommands come first).
function __confine_at_command_name
    __confine_at_command; or return 1
    __confine_first_word; or return 0
    set -l cur (commandline -ct)
    test -n "$cur"; or return 1
    for s in run ls show diff apply enter stop drop state profile trust doctor
        string match -q -- "$cur*" $s; and return 1
    end
    return 0
end

# True when the word at N is not a subcommand: a command line of its own.
function __confine_in_command
    set -l s (__confine_state)
    string match -q 'past *' -- "$s"; or return 1
    set -l words (commandline -opc)
    set -l i (string split ' ' -- $s)[2]
    test $i -eq 2; and contains -- $words[2] ls show diff apply enter stop drop state profile trust doctor; and return 1
    return 0
end

# Complete the command line that starts at the command, as if typed alone.
function __confine_complete_command
    set -l s (string split ' ' -- (__confine_state))
    set -l words (commandline -opc)
    set -l i $s[2]
    test "$words[$i]" = run; and set i (math $i + 1)
    test $i -le (count $words); or begin
        __fish_complete_command
        return
    end
    complete -C (string join ' ' -- (string escape -- $words[$i..-1]) (commandline -ct))
end

function __confine_running
    confine ls --all 2>/dev/null | string match -r '^\S+ +\S+ +\S+ +\S+ +running .*' | string replace -ra ' +' ' ' | string replace -r '^(\S+) ' '$1\t'
end

function __confine_profiles
    confine profile list 2>/dev/null | string replace -r ' .*' '' | sort -u
end

function __confine_sessions
    confine ls --all 2>/dev/null | string replace -ra ' +' ' ' | string replace -r '^(\S+) ' '$1\t'
end

complete -c confine -f

# The run options, from --help.
set -l __confine_in_options 0
set -l __confine_backends
for line in (confine --help 2>/dev/null)
    if string match -q 'Options:*' -- $line
        set __confine_in_options 1
        continue
    end
    string match -qr '^\S' -- $line; and set __confine_in_options 0
    test $__confine_in_options -eq 1; or continue
    string match -qr '^ +(?:-(?<short>[A-Za-z]), )?--(?<long>[a-z-]+)(?: (?<meta>[A-Z]\S*))? *(?<desc>.*)$' -- $line
    or continue
    set -l args -c confine -n __confine_at_start -l $long -d "$desc"
    test -n "$short"; and set -a args -s $short
    set -l files 0
    switch $long
        case backend
            set __confine_backends (string replace -r '^.*BACKEND\s+' '' -- $line | string replace -a -r ', | or ' ' ' | string split -n ' ')
        case profile
            set -a args -a '(__confine_profiles)'
            set files 1
        case workspace ro-workspace
            set -a args -a '(__fish_complete_directories)'
        case network
            set -a args -a 'none proxy host'
        case env
            set -a args -a '(set -xn)'
        case ro hide scratch direct
            set files 1
        case memory tasks cpus disk
            set -a args -a none
    end
    # An option with a value: that value, and no file unless it is one.
    if test -n "$meta"
        test $files -eq 1; and set -a args -r -F; or set -a args -x
    end
    complete $args
end
test -n "$__confine_backends"; or set __confine_backends auto native bwrap landlock
complete -c confine -n __confine_at_start -l backend -x -a "$__confine_backends"

# Subcommands, or the command to run.
complete -c confine -n __confine_first_word -a run -d 'Run COMMAND confined (the default)'
complete -c confine -n __confine_first_word -a ls -d 'List the sessions'
complete -c confine -n __confine_first_word -a show -d 'Print the report of a session'
complete -c confine -n __confine_first_word -a diff -d 'Print the patch of a session'
complete -c confine -n __confine_first_word -a apply -d 'Apply the patch of a session'
complete -c confine -n __confine_first_word -a enter -d 'Run a command in the host tree plus the patch of a session'
complete -c confine -n __confine_first_word -a stop -d 'End a running session'
complete -c confine -n __confine_first_word -a drop -d 'Delete sessions'
complete -c confine -n __confine_first_word -a state -d 'List, show or drop the agent state kept for a profile'
complete -c confine -n __confine_first_word -a profile -d 'List, show or check profiles'
complete -c confine -n __confine_first_word -a trust -d 'Trust a repository profile'
complete -c confine -n __confine_first_word -a doctor -d 'Show what this kernel supports'
complete -c confine -n __confine_at_command_name -a '(__fish_complete_command)'

# Past the options and the command's name: the command's own completion.
complete -c confine -n __confine_in_command -a '(__confine_complete_command)'

# The subcommands' arguments: a subcommand is always the first word.
function __confine_sub
    set -l words (commandline -opc)
    contains -- "$words[2]" $argv
end

function __confine_nargs
    set -l words (commandline -opc)
    test (count $words) -eq $argv[1]
end

complete -c confine -n '__confine_sub show diff; and __confine_nargs 2' -a '(__confine_sessions)'
complete -c confine -n '__confine_sub drop apply' -a '(__confine_sessions)'
complete -c confine -n '__confine_sub stop; and __confine_nargs 2' -a '(__confine_running)'
complete -c confine -n '__confine_sub ls; and __confine_nargs 2' -l all -d "Every workspace's sessions"
complete -c confine -n '__confine_sub drop' -l empty -d 'Drop the empty sessions'
complete -c confine -n '__confine_sub drop' -l applied -d 'Drop the applied sessions'
complete -c confine -n '__confine_sub drop' -l older-than -x -d 'Drop the sessions older than DURATION (30m, 12h, 7d)'
complete -c confine -n '__confine_sub drop' -l all -d 'Drop every session'
complete -c confine -n '__confine_sub drop' -s y -l yes -d 'Drop without asking'
complete -c confine -n '__confine_sub enter; and __confine_nargs 2' -a '(__confine_sessions)'
complete -c confine -n '__confine_sub enter; and __confine_nargs 2' -l as-left -d "Run in the agent's tree as it left it"
complete -c confine -n '__confine_sub enter; and __confine_nargs 3; and contains -- --as-left (commandline -opc)[3]' -a '(__confine_sessions)'
complete -c confine -n '__confine_sub apply' -s y -l yes -d 'Apply without asking'
complete -c confine -n '__confine_sub diff' -l commits -d 'Print the commits of the session'
complete -c confine -n '__confine_sub diff' -l color -d 'Colour the patch, into a pipe too'
complete -c confine -n '__confine_sub diff' -l no-color -d 'Never colour the patch'
complete -c confine -n '__confine_sub apply' -l commits -d 'Create the commits of the session (git am)'
complete -c confine -n '__confine_sub apply' -l workspace -r -a '(__fish_complete_directories)' -d 'Apply that workspace of the session alone'
complete -c confine -n '__confine_sub profile; and __confine_nargs 2' -a list -d 'List the profiles'
complete -c confine -n '__confine_sub profile; and __confine_nargs 2' -a show -d 'Print the effective policy of a profile'
complete -c confine -n '__confine_sub profile; and __confine_nargs 2' -a check -d 'Check profile files'
complete -c confine -n '__confine_sub profile; and __confine_nargs 3; and __fish_seen_subcommand_from show' -a '(__confine_profiles)' -F
complete -c confine -n '__confine_sub profile; and __fish_seen_subcommand_from check' -F
complete -c confine -n '__confine_sub trust; and __confine_nargs 2' -F
complete -c confine -n '__confine_sub state; and __confine_nargs 2' -a ls -d 'List the kept states'
complete -c confine -n '__confine_sub state; and __confine_nargs 2' -a show -d 'The files a state holds that differ from the host'
complete -c confine -n '__confine_sub state; and __confine_nargs 2' -a drop -d 'Delete the state of a profile'
complete -c confine -n '__confine_sub state; and __confine_nargs 3; and __fish_seen_subcommand_from drop' -s y -l yes -d 'Drop without asking'
complete -c confine -n '__confine_sub state; and __confine_nargs 3; and __fish_seen_subcommand_from show drop' -a '(__confine_profiles)'
complete -c confine -n '__confine_sub state; and __confine_nargs 4; and __fish_seen_subcommand_from drop' -a '(__confine_profiles)'
