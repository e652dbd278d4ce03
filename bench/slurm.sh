#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/slurm.sh - what Slurm jobs cost gpuscope (issue 23): the mapping directory that
# `serve --hpc-job-mapping-dir` looks at every tick (8 GPU files of 2 jobs each: a stat of
# the directory and of each file when nothing changed; the files read again when one did),
# and the Slurm part of the cgroup parser (run once per new process, not per tick). CPU time
# of bench/bench_jobmap in microseconds. No peer figure: dcgm-exporter reads the files at
# every scrape, in Go; it is not run here.
# Environment: O (build dir, default build), SLURM_BENCH_TICKS (20000).
set -uo pipefail
. "$(dirname "$0")/bench.lib"
N=${SLURM_BENCH_TICKS:-20000}
bench_init slurm
B=$ROOT/$O/bench/bench_jobmap
[ -x "$B" ] || { echo "slurm bench: make bench-bin first ($B)"; exit 2; }
mkdir -p "$TMP/map"
for g in 0 1 2 3 4 5 6 7; do printf '%d\n%d\n' $((100 + g)) $((200 + g)) >"$TMP/map/$g"; done
echo "slurm bench: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $N ticks"
"$B" "$TMP/map" "$N"
"$B" - $((N * 50))
