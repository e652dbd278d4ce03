#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run-main.sh - what `make run` starts: the main job on this machine's GPUs,
# or, when no NVIDIA driver/GPU is usable here, the simulated demo GPUs
# (clearly labelled as simulated on screen).
set -u
bin=${1:-build/gpuscope}
# The live view on a terminal; a streaming table when output is not one.
if [ -t 0 ] && [ -t 1 ]; then main_args=(top); else main_args=(query --loop 1); fi

"$bin" query --count 1 >/dev/null 2>/tmp/gpuscope-probe.$$
rc=$?
if [ "$rc" -eq 3 ] || [ "$rc" -eq 4 ]; then
    echo "gpuscope: no usable NVIDIA GPU here ($(head -n1 /tmp/gpuscope-probe.$$ | sed 's/^gpuscope: //'))"
    echo "gpuscope: showing SIMULATED demo GPUs instead (gpuscope --demo). Ctrl-C to stop."
    rm -f /tmp/gpuscope-probe.$$
    exec "$bin" --demo "${main_args[@]}"
fi
rm -f /tmp/gpuscope-probe.$$
exec "$bin" "${main_args[@]}"
