#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run-main.sh - what `make run` starts: the main job on this machine's GPUs,
# or, when no NVIDIA driver/GPU is usable here, the simulated demo GPUs
# (clearly labelled as simulated on screen).
set -u
bin=${1:-build/gpuscope}
main_args=(query --loop 1)

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
