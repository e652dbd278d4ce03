#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/gpustat.sh - gpustat's face and the Python module (issue 9 section 3), run by bench/run.
#
# On the simulator scenario bench-8x8 (8 GPUs x 8 processes whose PIDs are live `sleep` children of
# this script, so psutil and /proc see them):
#   (a) one-shot `gpuscope gpustat` and `gpuscope gpustat --json`: wall and CPU time, medians of
#       BENCH_RUNS (build/bench/bench_oneshot);
#   (b) `gpuscope.new_query()` from Debian's python3: wall time per call, median of BENCH_CALLS
#       calls in one process (each call is one run of the binary);
#   (c) when a real gpustat is available locally, the same two figures for it in the same run, and
#       the ratios: GPUSTAT_SRC (a wookayin/gpustat checkout, with gpustat/_version.py) and
#       PYNVML_SRC (a directory with nvidia-ml-py's pynvml.py), with python3-psutil and
#       python3-blessed installed. Nothing is fetched: without them (c) says so and is skipped.
# Prints the load average next to the figures (the machine is shared).
# Environment: O (build dir, default build), BENCH_RUNS (20), BENCH_CALLS (50), BENCH_SCENARIO.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
ROOT=$(pwd)
O=${O:-build}
RUNS=${BENCH_RUNS:-20}
CALLS=${BENCH_CALLS:-50}
SCN=${BENCH_SCENARIO:-bench-8x8}
GPUSCOPE=$ROOT/$O/gpuscope
ONESHOT=$ROOT/$O/bench/bench_oneshot
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
TMP=$(mktemp -d /tmp/gpuscope-bench-gpustat.XXXXXX)
CHILDREN=()
cleanup() {
    [ "${#CHILDREN[@]}" -gt 0 ] && kill "${CHILDREN[@]}" 2>/dev/null && wait "${CHILDREN[@]}" 2>/dev/null
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
die() { echo "bench: $*" >&2; exit 2; }
for f in "$GPUSCOPE" "$ONESHOT" "$ROOT/$O/sim/current/libnvidia-ml.so.1"; do
    [ -e "$f" ] || die "missing $f (run 'make all bench-bin' first)"
done

for ((i = 0; i < 64; i++)); do
    sleep 100000 &
    CHILDREN+=("$!")
done
pids=$(IFS=,; echo "${CHILDREN[*]}")
export GPUSCOPE_NVML_LIB="$ROOT/$O/sim/current/libnvidia-ml.so.1" GPUSCOPE_SIM_SCENARIO="$SCN" \
    GPUSCOPE_SIM_SCENARIO_DIR="$ROOT/sim/scenarios" GPUSCOPE_SIM_PIDS="$pids" GPUSCOPE_SIM_CLOCK=fixed:100 \
    GPUSCOPE_BIN="$GPUSCOPE" PYTHONPATH="$ROOT/python" LD_LIBRARY_PATH="$ROOT/$O/sim/current"

median_ms() { awk '$1 == "wall_median_ms" { print $2 }' "$1"; }
cpu_ms() { awk '$1 == "cpu_median_ms" { print $2 }' "$1"; }
load() { cut -d' ' -f1-3 /proc/loadavg; }

# The Python call: median wall time of N calls of EXPR after one warm-up, in ms.
py_calls() { # py_calls SETUP EXPR
    "$PY" - "$CALLS" "$1" "$2" <<'EOF'
import statistics, sys, time
n, setup, expr = int(sys.argv[1]), sys.argv[2], sys.argv[3]
exec(setup)
eval(expr)
t = []
for _ in range(n):
    t0 = time.perf_counter()
    eval(expr)
    t.append((time.perf_counter() - t0) * 1e3)
print("%.2f" % statistics.median(t))
EOF
}

echo "scenario $SCN (8 GPUs, 64 live processes), load average $(load)"
"$ONESHOT" -n "$RUNS" -- "$GPUSCOPE" gpustat >"$TMP/ours.txt" || die "gpuscope gpustat failed"
"$ONESHOT" -n "$RUNS" -- "$GPUSCOPE" gpustat --json >"$TMP/ours.json" || die "gpuscope gpustat --json failed"
ours_cli=$(median_ms "$TMP/ours.txt")
ours_json=$(median_ms "$TMP/ours.json")
ours_py=$(py_calls "import gpuscope" "gpuscope.new_query()") || die "gpuscope.new_query() failed"
printf '%-44s %10s ms   CPU %s ms (medians of %s runs)\n' "gpuscope gpustat, one shot" "$ours_cli" \
    "$(cpu_ms "$TMP/ours.txt")" "$RUNS"
printf '%-44s %10s ms   CPU %s ms\n' "gpuscope gpustat --json, one shot" "$ours_json" "$(cpu_ms "$TMP/ours.json")"
printf '%-44s %10s ms   (median of %s calls, %s)\n' "gpuscope.new_query()" "$ours_py" "$CALLS" "$("$PY" -V 2>&1)"

gs=${GPUSTAT_SRC:-}
pn=${PYNVML_SRC:-}
if [ -z "$gs" ] || [ -z "$pn" ]; then
    echo "real gpustat: skipped (set GPUSTAT_SRC and PYNVML_SRC to local checkouts to compare, docs/GPUSTAT.md)"
    exit 0
fi
[ -f "$gs/gpustat/core.py" ] && [ -f "$pn/pynvml.py" ] || die "GPUSTAT_SRC/gpustat/core.py or PYNVML_SRC/pynvml.py missing"
"$PY" -c 'import psutil, blessed' 2>/dev/null || die "real gpustat needs python3-psutil and python3-blessed"
export PYTHONPATH="$gs:$pn"
cat >"$TMP/gpustat" <<EOF
#!/bin/sh
exec "$PY" -m gpustat "\$@"
EOF
chmod +x "$TMP/gpustat"
"$ONESHOT" -n "$RUNS" -- "$TMP/gpustat" >"$TMP/theirs.txt" || die "the real gpustat failed"
"$ONESHOT" -n "$RUNS" -- "$TMP/gpustat" --json >"$TMP/theirs.json" || die "the real gpustat --json failed"
their_cli=$(median_ms "$TMP/theirs.txt")
their_json=$(median_ms "$TMP/theirs.json")
their_py=$(py_calls "import gpustat" "gpustat.new_query()") || die "gpustat.new_query() failed"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1fx", a / b }'; }
printf '%-44s %10s ms   CPU %s ms; gpuscope: %s less wall, %s less CPU\n' "real gpustat, one shot" "$their_cli" \
    "$(cpu_ms "$TMP/theirs.txt")" "$(ratio "$their_cli" "$ours_cli")" \
    "$(ratio "$(cpu_ms "$TMP/theirs.txt")" "$(cpu_ms "$TMP/ours.txt")")"
printf '%-44s %10s ms   CPU %s ms; gpuscope: %s less wall, %s less CPU\n' "real gpustat --json, one shot" \
    "$their_json" "$(cpu_ms "$TMP/theirs.json")" "$(ratio "$their_json" "$ours_json")" \
    "$(ratio "$(cpu_ms "$TMP/theirs.json")" "$(cpu_ms "$TMP/ours.json")")"
printf '%-44s %10s ms   gpuscope: %s less wall\n' "gpustat.new_query() (real)" "$their_py" "$(ratio "$their_py" "$ours_py")"
echo "(same run, same simulator library and scenario; load average now $(load))"
