#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/burn.sh - `gpuscope burn` figures that can be measured without a GPU
# (issue 15), all on gpuscope's simulators and labelled so:
#   - the CPU cost of burn's monitoring tick (snapshot with every counter, plus
#     the monitor's bookkeeping) on 4 and 8 simulated GPUs, next to a snapshot
#     on the default read schedule in the same run (bench/bench_burn.c);
#   - the CPU reference kernels' throughput (what the CUDA simulator computes
#     for its GPUs, and what burn recomputes for a sample of threads);
#   - wall and CPU time of a 60 s and a 600 s burn of 4 simulated H100s on the
#     virtual clock (what the test suite pays per burn).
# The throughput of real GPUs is measured by scripts/burn-device-check.sh.
# usage: bench/burn.sh [BUILD_DIR]
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
load() { cut -d' ' -f1 /proc/loadavg; }
export GPUSCOPE_NVML_LIB=$BUILD/sim/current/libnvidia-ml.so.1 GPUSCOPE_SIM_SCENARIO_DIR=$ROOT/sim/scenarios
export GPUSCOPE_SIM_CLOCK=fixed:0
for scn in burn demo; do
    out=$(GPUSCOPE_SIM_SCENARIO=$scn "$BUILD/bench/bench_burn" -n 500)
    g=$(echo "$out" | awk '$1 == "gpus" { print $2 }')
    b=$(echo "$out" | awk '$1 == "tick_us_burn" { print $2 }')
    d=$(echo "$out" | awk '$1 == "tick_us_default_schedule" { print $2 }')
    echo "burn monitoring tick, $g simulated GPUs: $b us CPU (every counter + monitor) vs $d us for a default-schedule snapshot, same run (load $(load))"
done
echo "$out" | awk '$1 ~ /^ref_/ { printf "simulator reference kernels on this CPU: %s %s\n", $1, $2 }'
export GPUSCOPE_CUDA_LIB=$BUILD/sim/cuda/libcuda.so.1 GPUSCOPE_SIM_SCENARIO=burn
for d in 60s 600s; do
    /usr/bin/time -f "%e %U %S" -o "$BUILD/bench-burn.time" "$BUILD/gpuscope" burn --duration "$d" --status off > /dev/null || true
    read -r wall user sys < "$BUILD/bench-burn.time"
    echo "simulated burn of 4 GPUs, $d on the virtual clock: $wall s wall, $(awk -v u="$user" -v s="$sys" "BEGIN { print u + s }") s CPU (load $(load))"
done
rm -f "$BUILD/bench-burn.time"
