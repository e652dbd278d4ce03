#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/sim-cost.sh - the NVML simulator's cost model (GPUSCOPE_SIM_CALL_COST_US, sim/sim_cost.c):
# with it off a getter costs next to nothing; with it on each call spends its class's figure as
# CPU time of the calling thread (not a sleep), a field-values call its base plus one figure per
# entry, and nvmlDeviceGetPcieThroughput waits its window out in wall time without the CPU; a
# stub (a function the simulator does not model) pays the getter's cost too; the call counters
# (GPUSCOPE_SIM_STATS) count every call either way; a bad figure is refused with a message.
set -u
cd "$(dirname "$0")/.." || exit 1
O=${O:-build}
LIB=$PWD/$O/sim/current/libnvidia-ml.so.1
[ -e "$LIB" ] || { echo "FAIL: $LIB missing (run make)"; exit 1; }
command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }
tmp=$(mktemp -d /tmp/gs-simcost.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export GPUSCOPE_SIM_SCENARIO=demo GPUSCOPE_SIM_SCENARIO_DIR=$PWD/sim/scenarios GPUSCOPE_SIM_CLOCK=fixed:10
unset GPUSCOPE_SIM_FAULTS GPUSCOPE_SIM_COUNTERS
for v in $(env | sed -n 's/^\(GPUSCOPE_SIM_CALL_COST[A-Z_]*\)=.*/\1/p'); do unset "$v"; done

# probe KIND N: N calls of one kind; prints "cpu_us_per_call wall_us_per_call"
cat >"$tmp/probe.py" <<'PY'
import ctypes, sys, time
lib = ctypes.CDLL(sys.argv[1])
kind, n = sys.argv[2], int(sys.argv[3])
assert lib.nvmlInit_v2() == 0
dev = ctypes.c_void_p()
assert lib.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(dev)) == 0
v = ctypes.c_uint()
fv = (ctypes.c_ubyte * (40 * 10))()  # ten 40-byte nvmlFieldValue_t, fieldId 0: NOT_SUPPORTED entries
def call():
    if kind == "get":
        return lib.nvmlDeviceGetTemperature(dev, 0, ctypes.byref(v))
    if kind == "fields":
        return lib.nvmlDeviceGetFieldValues(dev, 10, fv)
    if kind == "pcie":
        return lib.nvmlDeviceGetPcieThroughput(dev, 0, ctypes.byref(v))
    if kind == "stub":
        return lib.nvmlDeviceGetMultiGpuBoard(dev, ctypes.byref(v))
c0, w0 = time.thread_time(), time.monotonic()
for _ in range(n):
    r = call()
c1, w1 = time.thread_time(), time.monotonic()
lib.nvmlShutdown()
print(f"{(c1 - c0) * 1e6 / n:.1f} {(w1 - w0) * 1e6 / n:.1f} {r}")
PY
probe() { python3 "$tmp/probe.py" "$LIB" "$@"; }
fail=0
check() { # check LABEL EXPR VALUES...
    if python3 -c "import sys; a = [float(x) for x in sys.argv[3:]]; sys.exit(0 if ($1) else 1)" "$@"; then
        echo "ok: $2"
    else
        echo "FAIL: $2"
        fail=1
    fi
}
expect() { # expect 'python condition on a[0] (cpu), a[1] (wall)' 'what' KIND N
    local cond=$1 what=$2 out
    shift 2
    out=$(probe "$@") || { echo "FAIL: $what: the probe failed"; fail=1; return; }
    # shellcheck disable=SC2086
    check "$cond" "$what (cpu, wall, rc per call: $out)" $out
}

expect 'a[0] < 100' "cost model off: a getter costs under 100 us of CPU" get 200
export GPUSCOPE_SIM_CALL_COST_US=400
expect 'a[0] >= 400 and a[0] < 4000 and a[2] == 0' "getter at 400 us: at least 400 us of thread CPU per call" get 50
expect 'a[0] >= 400 and a[0] < 4000' "a stub pays the getter's cost" stub 20
GPUSCOPE_SIM_CALL_COST_FIELDS_US=100 GPUSCOPE_SIM_CALL_COST_FIELD_US=300 \
    expect 'a[0] >= 3100 and a[0] < 20000' "field values: base 100 + 10 entries x 300 us" fields 10
GPUSCOPE_SIM_CALL_COST_SAMPLE_US=30000 \
    expect 'a[1] >= 30000 and a[0] < 20000' "PCIe throughput: a 30 ms window in wall time, not CPU" pcie 5

# counters count with the cost on
GPUSCOPE_SIM_STATS=$tmp/stats probe get 7 >/dev/null
n=$(awk '$1 == "nvmlDeviceGetTemperature" { print $2 }' "$tmp/stats")
check 'a[0] == 7' "GPUSCOPE_SIM_STATS counts the 7 getter calls under the cost model (got ${n:-none})" "${n:-0}"

# a bad figure: a message naming the variable, and the default used
err=$(GPUSCOPE_SIM_CALL_COST_LIST_US=lots probe get 1 2>&1 >/dev/null)
case $err in
*GPUSCOPE_SIM_CALL_COST_LIST_US=lots*microseconds*) echo "ok: a bad figure is named on stderr" ;;
*) echo "FAIL: a bad figure: stderr was: $err"; fail=1 ;;
esac
exit "$fail"
