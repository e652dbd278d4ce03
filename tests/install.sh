#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# install.sh - `make install` into a temporary DESTDIR (PREFIX=/usr/local, then /usr): the
# files land where the FHS and the shells look, the staged binary runs the demo with the staged
# simulator, scenarios and modules, and `make uninstall` leaves no file or link behind.
set -euo pipefail
cd "$(dirname "$0")/.."
T=$(mktemp -d /tmp/gs-install.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

for prefix in /usr/local /usr; do
    D=$T/stage$prefix
    make --no-print-directory install DESTDIR="$D" PREFIX="$prefix" >"$T/install.log" 2>&1 ||
        { cat "$T/install.log"; fail "make install PREFIX=$prefix"; }
    R=$D$prefix
    py=$(ls -d "$R"/lib/python3.*/dist-packages/gpuscope 2>/dev/null | head -n 1)
    zsh=$([ "$prefix" = /usr ] && echo vendor-completions || echo site-functions)
    for f in bin/gpuscope lib/gpuscope/modules/record.so lib/gpuscope/modules/serve.so \
        lib/gpuscope/modules/top.so lib/gpuscope/modules/watch.so \
        lib/gpuscope/sim/current/libnvidia-ml.so.1 share/gpuscope/scenarios/demo.scn \
        share/man/man1/gpuscope.1 share/man/man1/gpuscope-query.1 \
        share/bash-completion/completions/gpuscope share/zsh/$zsh/_gpuscope \
        share/fish/vendor_completions.d/gpuscope.fish lib/systemd/system/gpuscope-serve.service \
        lib/systemd/system/gpuscope-record.service share/doc/gpuscope/LICENSE; do
        [ -e "$R/$f" ] || fail "PREFIX=$prefix: $f not installed"
    done
    [ -n "$py" ] && [ -f "$py/__init__.py" ] || fail "PREFIX=$prefix: the Python module is not installed"
    grep -q "GPUSCOPE_BIN = \"$prefix/bin/gpuscope\"" "$py/_config.py" || fail "PREFIX=$prefix: _config.py"
    grep -q "^ExecStart=$prefix/bin/gpuscope serve" "$R/lib/systemd/system/gpuscope-serve.service" ||
        fail "PREFIX=$prefix: the serve unit does not run $prefix/bin/gpuscope"
    # anything outside PREFIX?
    outside=$(cd "$D" && find . \( -type f -o -type l \) ! -path ".$prefix/*")
    [ -z "$outside" ] || fail "PREFIX=$prefix: installed outside it: $outside"
    n=$(cd "$D" && find . -type f -o -type l | wc -l)
    # the staged binary finds its simulator, scenarios and modules beside it
    out=$("$R/bin/gpuscope" --demo query --query-gpu=count,name --format=csv,noheader | sort -u) ||
        fail "PREFIX=$prefix: the staged binary cannot run the demo"
    [ "$out" = "8, NVIDIA H100 80GB HBM3" ] || fail "PREFIX=$prefix: demo query printed '$out'"
    # --demo=mixed: the staged DRM simulator lays out the AMD and Intel cards' tree
    out=$("$R/bin/gpuscope" --demo=mixed query --query-gpu=name --format=csv,noheader | sort | tr '\n' ';') ||
        fail "PREFIX=$prefix: the staged binary cannot run --demo=mixed"
    case $out in *AMD*Intel*NVIDIA*) ;; *) fail "PREFIX=$prefix: --demo=mixed query printed '$out'" ;; esac
    "$R/bin/gpuscope" report --help >/dev/null 2>"$T/err" || { cat "$T/err"; fail "PREFIX=$prefix: record.so refused"; }
    LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$R/share/man/man1/gpuscope-doctor.1" 2>&1 >/dev/null |
        grep . && fail "PREFIX=$prefix: man warns"
    echo "PREFIX=$prefix: $n files and links installed, the staged demo runs"
    make --no-print-directory uninstall DESTDIR="$D" PREFIX="$prefix" >"$T/uninstall.log" 2>&1 ||
        { cat "$T/uninstall.log"; fail "make uninstall PREFIX=$prefix"; }
    left=$(cd "$D" && find . -type f -o -type l)
    [ -z "$left" ] || fail "PREFIX=$prefix: make uninstall left: $left"
    echo "PREFIX=$prefix: make uninstall left no file or link"
done
