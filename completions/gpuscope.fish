# SPDX-License-Identifier: MIT
# fish completion for gpuscope (installed as /usr/share/fish/vendor_completions.d/gpuscope.fish).
# As the bash one, it asks the binary: commands from `gpuscope --help`, options from
# `gpuscope COMMAND --help`, query fields from --help-query-gpu, GPU ids from a quick query.

function __gpuscope_bin
    commandline -opc | head -n 1
end

function __gpuscope_cmd
    set -l words (commandline -opc)
    for w in $words[2..-1]
        string match -q -- '-*' $w; and continue
        echo $w
        return 0
    end
    return 1
end

function __gpuscope_commands
    set -l bin (__gpuscope_bin)
    $bin --help 2>/dev/null | awk '/^commands:/ { on = 1; next } on && /^$/ { exit } on { n = $1; $1 = ""; sub(/^ +/, ""); print n "\t" $0 }'
end

function __gpuscope_options
    set -l bin (__gpuscope_bin)
    $bin (__gpuscope_cmd) --help 2>/dev/null | awk '
        /^$/ { usage = 0; next }
        NR == 1 { usage = 1 }
        usage || /^test options:/ { line = $0 }
        !usage && !/^test options:/ && /^[ \t]+-/ { line = $0; sub(/^[ \t]+/, "", line); sub(/  .*/, "", line) }
        !usage && !/^test options:/ && !/^[ \t]+-/ { next }
        { n = split(line, w, /[][ |,{}]+/)
          for (i = 1; i <= n; i++) if (w[i] ~ /^--?[A-Za-z]/) { sub(/=.*/, "", w[i]); print w[i] } }' | sort -u
end

# Complete the last element of a comma-separated list from the lines of stdin.
function __gpuscope_list
    set -l tok (commandline -ct | string replace -r -- '^--[^=]*=' '')
    set -l prefix (string replace -r -- '[^,]*$' '' $tok)
    while read -l w
        echo $prefix$w
    end
end

function __gpuscope_fields
    set -l bin (__gpuscope_bin)
    $bin query $argv[1] 2>/dev/null | awk '{ print $1 }' | __gpuscope_list
end

function __gpuscope_gpus
    set -l demo
    contains -- --demo (commandline -opc); and set demo --demo
    timeout 2 (__gpuscope_bin) $demo query --query-gpu=index,uuid,pci.bus_id --format=csv,noheader 2>/dev/null | string replace -a ' ' '' | string split , | __gpuscope_list
end

complete -c gpuscope -f
complete -c gpuscope -n 'not __gpuscope_cmd' -a '(__gpuscope_commands)'
complete -c gpuscope -n 'not __gpuscope_cmd' -l demo -d 'run on the bundled NVML simulator'
complete -c gpuscope -n 'not __gpuscope_cmd' -l version -d 'print the version'
complete -c gpuscope -n 'not __gpuscope_cmd' -l help -d 'list the commands'
complete -c gpuscope -n '__gpuscope_cmd; and string match -q -- "-*" (commandline -ct)' -a '(__gpuscope_options)'
complete -c gpuscope -n '__gpuscope_cmd' -l query-gpu -x -a '(__gpuscope_fields --help-query-gpu)'
complete -c gpuscope -n '__gpuscope_cmd' -l query-compute-apps -x -a '(__gpuscope_fields --help-query-compute-apps)'
complete -c gpuscope -n 'not contains -- gpustat (commandline -opc); and __gpuscope_cmd' -s i -l id -x -a '(__gpuscope_gpus)'
complete -c gpuscope -n '__gpuscope_cmd' -l layout -x -a 'auto full compact line'
complete -c gpuscope -n '__gpuscope_cmd' -l color -x -a 'auto always never'
complete -c gpuscope -n '__gpuscope_cmd' -l db -l output -l rules -l kernel-log -l web.config.file -r -F
complete -c gpuscope -n 'contains -- baseline (commandline -opc)' -a 'save diff'
