#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# burn-device-check.sh - the check of `gpuscope burn` on a machine with a real
# NVIDIA GPU and driver (docs/BURN.md, "On a real GPU"): builds gpuscope, runs
# `gpuscope burn --duration 60s --json` on the real libnvidia-ml.so.1 and
# libcuda.so.1, and prints the verdict, the throughput per workload and GPU,
# and the peak temperature and power, next to the driver's own view
# (nvidia-smi -L). The JSON is kept in burn-device-check.json.
#   usage: scripts/burn-device-check.sh [DURATION]        (default 60s)
#   env:   BURN_ARGS="-i 0 --workload compute"  extra burn options
# Exit status: burn's (0 PASS, 6 WARN, 7 FAIL, 3 no NVML/CUDA, 4 no GPU).
set -u
cd "$(dirname "$0")/.." || exit 2
DURATION=${1:-60s}
OUT=${BURN_JSON:-burn-device-check.json}
unset GPUSCOPE_NVML_LIB GPUSCOPE_CUDA_LIB GPUSCOPE_SIM_SCENARIO GPUSCOPE_SIM_CLOCK # the real driver, not the simulators

echo "== build"
make -j"$(nproc)" WERROR=1 all > build-device-check.log 2>&1 || { tail -30 build-device-check.log; exit 1; }
echo "== the machine"
uname -srm
command -v nvidia-smi > /dev/null && nvidia-smi -L && \
    nvidia-smi --query-gpu=index,name,driver_version,power.limit,temperature.gpu,clocks.max.sm --format=csv
echo "== gpuscope burn --duration $DURATION --json ${BURN_ARGS:-}"
# shellcheck disable=SC2086
build/gpuscope burn --duration "$DURATION" --json --debug ${BURN_ARGS:-} > "$OUT" 2> burn-device-check.err
rc=$?
cat burn-device-check.err
[ -s "$OUT" ] || { echo "no JSON written (exit $rc)"; exit "$rc"; }
python3 - "$OUT" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(f"verdict: {d['verdict']}  ({d['elapsed_s']:.0f} s of {d['duration_s']:.0f} s, CUDA driver "
      f"{d['cuda_driver_version'] // 1000}.{d['cuda_driver_version'] % 1000 // 10}, simulated: {d['simulated']})")
for g in d["gpus"]:
    print(f"GPU {g['index']} {g['name']} {g['pci_bus_id']}: {g['verdict']}")
    for name, w in g["workloads"].items():
        if not w["run"]:
            print(f"  {name:7} not run: {w['skipped']}")
            continue
        rate = f"{w['gb_per_s']:.1f} GB/s" if "gb_per_s" in w and w["gb_per_s"] else \
               f"{w['tflop_per_s']:.2f} TFLOP/s" if w.get("tflop_per_s") else "-"
        print(f"  {name:7} {rate:>16}  {w['iterations']} iterations, {w['errors']} errors")
    print(f"  peak temperature {g['temp_max_c']} C (slowdown {g['temp_slowdown_c']} C), "
          f"peak power {g['power_max_w']} W (limit {g['power_limit_w']} W), "
          f"SM clock {g['sm_clock_min_mhz']}-{g['sm_clock_max_mhz']} MHz, throttled {g['throttled_s']}")
    for f in g["findings"]:
        print(f"  [{f['severity']}] {f['code']}: {f['title']} | {f['evidence']}")
PY
echo "exit $rc (the JSON is in $OUT)"
exit "$rc"
