#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/smi.sh - issue 9's figures, run by bench/run:
#   (a) `gpuscope smi -q -x` on 8 GPUs against `gpuscope query --format json`, same run, median
#       wall time of BENCH_RUNS one-shot runs each (build/bench/bench_oneshot): target ratio <= 2;
#   (b) the one-shot query (CSV of 7 fields, and JSON) of this tree against a baseline binary when
#       BENCH_BASELINE points to one (e.g. built from main: git archive main | tar -x -C DIR;
#       make -C DIR), same run: target ratio <= 1 (today's cost or less).
# The load average is printed with the figures (a shared machine moves them).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
ROOT=$(pwd)
O=${O:-build}
RUNS=${BENCH_RUNS:-30}
GPUSCOPE=$ROOT/$O/gpuscope
ONESHOT=$ROOT/$O/bench/bench_oneshot
BASE=${BENCH_BASELINE:-}
export GPUSCOPE_NVML_LIB=$ROOT/$O/sim/current/libnvidia-ml.so.1 GPUSCOPE_SIM_SCENARIO=bench-8x8
export GPUSCOPE_SIM_SCENARIO_DIR=$ROOT/sim/scenarios GPUSCOPE_SIM_CLOCK=fixed:100
for f in "$GPUSCOPE" "$ONESHOT" "$GPUSCOPE_NVML_LIB"; do
    [ -e "$f" ] || { echo "bench: missing $f (make all bench-bin)"; exit 2; }
done
CSV="--query-gpu=index,name,temperature.gpu,utilization.gpu,memory.used,memory.total,power.draw --format=csv"

med() { # PROGRAM ARGS... -> median wall ms
    "$ONESHOT" -n "$RUNS" -- "$@" 2>/dev/null | awk '$1 == "wall_median_ms" { print $2 }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
verdict() { awk -v r="$1" -v t="$2" 'BEGIN { print (r != "-" && r + 0 <= t + 0) ? "PASS" : "FAIL" }'; }

echo "gpuscope smi benchmark (issue 9), scenario bench-8x8 (8 GPUs x 8 processes), $RUNS runs each"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
rc=0
# (a) interleaved, so both see the same load
json=$(med "$GPUSCOPE" query --format json)
xml=$(med "$GPUSCOPE" smi -q -x)
json2=$(med "$GPUSCOPE" query --format json)
xml2=$(med "$GPUSCOPE" smi -q -x)
j=$(awk -v a="$json" -v b="$json2" 'BEGIN { print (a + b) / 2 }')
x=$(awk -v a="$xml" -v b="$xml2" 'BEGIN { print (a + b) / 2 }')
r=$(ratio "$x" "$j")
printf '%-48s %10s ms\n' "query --format json, median wall" "$j"
printf '%-48s %10s ms\n' "smi -q -x, median wall" "$x"
v=$(verdict "$r" 2)
echo "$v smi -q -x / query --format json = $r (target <= 2)"
[ "$v" = PASS ] || rc=1
# (b) against a baseline binary, when given
if [ -n "$BASE" ] && [ -x "$BASE" ]; then
    for what in csv json; do
        if [ $what = csv ]; then
            # shellcheck disable=SC2086
            a=$(med "$GPUSCOPE" query $CSV); b=$(med "$BASE" query $CSV); a2=$(med "$GPUSCOPE" query $CSV)
        else
            a=$(med "$GPUSCOPE" query --format json); b=$(med "$BASE" query --format json)
            a2=$(med "$GPUSCOPE" query --format json)
        fi
        a=$(awk -v p="$a" -v q="$a2" 'BEGIN { print (p + q) / 2 }')
        r=$(ratio "$a" "$b")
        printf '%-48s %10s ms (baseline %s ms)\n' "one-shot query $what, this tree" "$a" "$b"
        # a ratio within 5 % of 1 is today's cost (noise of a shared machine)
        v=$(verdict "$r" 1.05)
        echo "$v one-shot query $what: this tree / baseline = $r (target <= 1, +5 % noise)"
    done
else
    echo "-    one-shot query against today's: set BENCH_BASELINE to a gpuscope binary built from main"
fi
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $rc
