#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# consumer-nvidia-htop.sh - local check (not part of `make test`: nvidia-htop is not a Debian
# package): run nvidia-htop, which parses nvidia-smi's summary table, on a real capture and on
# gpuscope's table for the same readings, and compare what it prints.
#   NVIDIA_HTOP_SRC=/path/to/nvidia-htop scripts/consumer-nvidia-htop.sh
# NVIDIA_HTOP_SRC is a checkout of github.com/peci1/nvidia-htop (it needs python3-termcolor).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SRC=${NVIDIA_HTOP_SRC:?set NVIDIA_HTOP_SRC to an nvidia-htop source directory}
PY=${PYTHON:-/usr/bin/python3}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
F="$ROOT/tests/fixtures/nvidia-smi"
status=0
for c in h100-80gb-hbm3__590.48.01:load:2026-07-14T08:12:53Z rtx-2080-super__610.57.04:load:2026-08-12T21:54:00Z \
         h100-80gb-hbm3__590.48.01:idle:2026-07-14T08:12:38Z rtx-2080-super__610.57.04:idle:2026-08-12T21:53:45Z; do
    dir=${c%%:*}; rest=${c#*:}; st=${rest%%:*}; wall=${rest#*:}
    GPUSCOPE_NVML_LIB="$ROOT/build/sim/current/libnvidia-ml.so.1" GPUSCOPE_SIM_SCENARIO="$F/$dir/$st.scn" \
        GPUSCOPE_SIM_CLOCK=fixed:1 GPUSCOPE_SIM_WALLCLOCK="$wall" GPUSCOPE_PROC_ROOT="$F/$dir/proc" TZ=UTC \
        "$ROOT/build/gpuscope" smi >"$TMP/gpuscope.txt"
    FAKE_STDIN_PATH="$F/$dir/$st-table.txt" "$PY" "$SRC/nvidia-htop.py" >"$TMP/real.out"
    FAKE_STDIN_PATH="$TMP/gpuscope.txt" "$PY" "$SRC/nvidia-htop.py" >"$TMP/gpuscope.out"
    if cmp -s "$TMP/real.out" "$TMP/gpuscope.out"; then
        echo "$dir $st: nvidia-htop prints the same for the real table and gpuscope's"
    else
        echo "$dir $st: nvidia-htop differs:"; diff "$TMP/real.out" "$TMP/gpuscope.out" || true; status=1
    fi
done
exit $status
