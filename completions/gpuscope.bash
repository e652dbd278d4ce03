# SPDX-License-Identifier: MIT
# bash completion for gpuscope (installed as /usr/share/bash-completion/completions/gpuscope).
# Everything comes from the binary itself, so it cannot drift from it:
# commands from `gpuscope --help`, options from `gpuscope COMMAND --help`, --query-gpu and
# --query-compute-apps fields from --help-query-gpu / --help-query-compute-apps, GPU ids from a
# quick query (at most 2 s).

# The option tokens of a --help text: the option column, the usage lines, 'test options:'.
_gpuscope_help_opts()
{
    "$@" --help 2>/dev/null | awk '
        /^$/ { usage = 0; next }
        NR == 1 { usage = 1 }
        usage || /^test options:/ { line = $0 }
        !usage && !/^test options:/ && /^[ \t]+-/ { line = $0; sub(/^[ \t]+/, "", line); sub(/  .*/, "", line) }
        !usage && !/^test options:/ && !/^[ \t]+-/ { next }
        { n = split(line, w, /[][ |,{}]+/)
          for (i = 1; i <= n; i++) if (w[i] ~ /^--?[A-Za-z]/) { sub(/=.*/, "=", w[i]); print w[i] } }' | sort -u
}

_gpuscope_commands()
{
    "$1" --help 2>/dev/null | awk '/^commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }'
}

_gpuscope_gpu_ids()
{
    timeout 2 "$@" query --query-gpu=index,uuid,pci.bus_id --format=csv,noheader 2>/dev/null | tr -d ' ' | tr ',' '\n'
}

# Complete the last element of a comma-separated list in $cur from the words in $1.
_gpuscope_list()
{
    local prefix=""
    [[ $cur == *,* ]] && prefix=${cur%,*},
    local IFS=$'\n'
    COMPREPLY=($(compgen -P "$prefix" -W "$1" -- "${cur##*,}"))
    compopt -o nospace 2>/dev/null
}

_gpuscope()
{
    local cur prev words cword split
    _init_completion -s || return
    local bin=${words[0]} cmd="" i
    for ((i = 1; i < cword; i++)); do
        [[ ${words[i]} == -* ]] && continue
        cmd=${words[i]}
        break
    done
    local demo=() # the GPUs of --demo are the simulator's
    [[ " ${words[*]:1:cword-1} " == *" --demo "* ]] && demo=(--demo)
    [[ $cmd == run && " ${words[*]:1:cword-1} " == *" -- "* ]] && { _command_offset "$((cword))"; return; }

    case $prev in
        --query-gpu)
            _gpuscope_list "$("$bin" query --help-query-gpu 2>/dev/null | awk '{ print $1 }')"
            return ;;
        --query-compute-apps)
            _gpuscope_list "$("$bin" query --help-query-compute-apps 2>/dev/null | awk '{ print $1 }')"
            return ;;
        -i | --id)
            [[ $cmd == gpustat ]] && return # gpustat's -i is the interval
            _gpuscope_list "$(_gpuscope_gpu_ids "$bin" "${demo[@]}")"
            return ;;
        --format | -f)
            case $cmd in
                query) _gpuscope_list "csv noheader nounits json table" ;;
                report) COMPREPLY=($(compgen -W "html term csv json" -- "$cur")) ;;
                *) COMPREPLY=($(compgen -W "text json" -- "$cur")) ;;
            esac
            return ;;
        --layout) COMPREPLY=($(compgen -W "auto full compact line" -- "$cur")); return ;;
        --color) COMPREPLY=($(compgen -W "auto always never" -- "$cur")); return ;;
        --routine) _gpuscope_list "daily weekly monthly all"; return ;;
        --hostname-label) COMPREPLY=($(compgen -W "Hostname hostname none" -- "$cur")); return ;;
        --db | --output | -o | --rules | --kernel-log | --web.config.file | --web-config-file | \
            --annotate-fifo | --from-fifo | --clock-file | --exec | --pod-resources-kubelet-socket | \
            --remote-write-config)
            _filedir
            return ;;
        --host-root | --framework-path) _filedir -d; return ;;
    esac
    $split && return

    if [[ -z $cmd ]]; then
        if [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W "--demo --version --help" -- "$cur"))
        else
            COMPREPLY=($(compgen -W "$(_gpuscope_commands "$bin")" -- "$cur"))
        fi
        return
    fi
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_gpuscope_help_opts "$bin" "$cmd")" -- "$cur"))
        [[ ${COMPREPLY-} == *= ]] && compopt -o nospace 2>/dev/null
        return
    fi
    case $cmd in
        baseline) ((cword == 2)) && COMPREPLY=($(compgen -W "save diff" -- "$cur")) ;;
        doctor) [[ $prev == --explain ]] && COMPREPLY=($(compgen -W "xid" -- "$cur")) ;;
    esac
} && complete -F _gpuscope gpuscope
