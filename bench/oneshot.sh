#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/oneshot.sh - one-shot queries against the floor (issue 11): on bench-8x64 (8 GPUs x 64
# processes, 64 live `sleep` PIDs passed in, each listed on every GPU), run alternately, round
# after round (BENCH_ROUNDS, default 25):
#   bare     build/bench/bare_client: the same NVML readings as the JSON query, printed as text,
#            no /proc, no JSON library (the floor)
#   json     gpuscope query --format json
#   csv      gpuscope query --query-gpu=index,name,utilization.gpu,memory.used,memory.total,
#            temperature.gpu,power.draw --format=csv
#   table    gpuscope query
#   json-noproc  the JSON query with /proc out of reach (GPUSCOPE_PROC_ROOT=/nonexistent): what
#            the host facts of the 64 PIDs cost is the difference to json (not a target)
# Each run is timed by build/bench/bench_oneshot (fork, exec with stdout to /dev/null, wait4):
# wall time, CPU time (user + system: what the run cost the machine, steadier than wall time
# on a loaded machine) and peak RSS; medians, and each one's ratio to the bare client's median.
# Three times: with the simulator's calls free (the tools' own code, issue 11's figures), with
# its cost model on (GPUSCOPE_SIM_CALL_COST_US=GS_BENCH_COST_US, default 20, other classes'
# defaults: what a user pays, docs/SIMULATOR.md "Cost model"; nvmlInit's estimated 20 ms
# dominates a one-shot), and with the cost model on but nvmlInit free (the calls after init).
# Targets (on wall time): free: json <= 1.5x bare, <= 5 ms, <= 4 MiB; csv <= 1.0x bare
# (issue 11); cost model on: json <= 1.2x bare (issue 24). Last, each command's NVML calls per GPU.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
ROOT=$(pwd)
O=${O:-build}
ROUNDS=${BENCH_ROUNDS:-25}
for f in "$O/gpuscope" "$O/bench/bench_oneshot" "$O/bench/bare_client" "$O/sim/current/libnvidia-ml.so.1"; do
    [ -e "$f" ] || { echo "bench/oneshot.sh: missing $f (run 'make all bench-bin')" >&2; exit 2; }
done
CHILDREN=()
cleanup() { [ "${#CHILDREN[@]}" -gt 0 ] && kill "${CHILDREN[@]}" 2>/dev/null; wait 2>/dev/null; }
trap cleanup EXIT
for ((i = 0; i < ${BENCH_PIDS:-64}; i++)); do
    sleep 100000 &
    CHILDREN+=("$!")
done
export GPUSCOPE_NVML_LIB=$ROOT/$O/sim/current/libnvidia-ml.so.1 GPUSCOPE_SIM_SCENARIO=bench-8x64 \
       GPUSCOPE_SIM_SCENARIO_DIR=$ROOT/sim/scenarios
GPUSCOPE_SIM_PIDS=$(IFS=,; echo "${CHILDREN[*]}")
export GPUSCOPE_SIM_PIDS
unset GPUSCOPE_SIM_FAULTS GPUSCOPE_SIM_CLOCK GPUSCOPE_PROC_ROOT GPUSCOPE_SIM_SPAWN
for v in $(env | sed -n 's/^\(GPUSCOPE_SIM_CALL_COST[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
python3 - "$ROOT/$O" "$ROUNDS" "${GS_BENCH_COST_US:-20}" <<'PY'  # not exec: the EXIT trap must reap the sleeps
import os, statistics, subprocess, sys

O, ROUNDS, COST = sys.argv[1], int(sys.argv[2]), sys.argv[3]
MODES = [("calls free", {}), (f"cost model on ({COST} us a getter)", {"GPUSCOPE_SIM_CALL_COST_US": COST}),
         ("cost model on, nvmlInit free", {"GPUSCOPE_SIM_CALL_COST_US": COST, "GPUSCOPE_SIM_CALL_COST_INIT_US": "0"})]
GS = f"{O}/gpuscope"
CMDS = [("bare", [f"{O}/bench/bare_client"]),
        ("json", [GS, "query", "--format", "json"]),
        ("csv", [GS, "query", "--query-gpu=index,name,utilization.gpu,memory.used,memory.total,"
                 "temperature.gpu,power.draw", "--format=csv"]),
        ("table", [GS, "query"]),
        ("json-noproc", [GS, "query", "--format", "json"])]
NOPROC = dict(os.environ, GPUSCOPE_PROC_ROOT="/nonexistent")


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def once(name, argv, extra):
    env = dict(NOPROC if name == "json-noproc" else os.environ, **extra)
    out = subprocess.run([f"{O}/bench/bench_oneshot", "-n", "1", "--", *argv], stdout=subprocess.PIPE,
                         text=True, env=env).stdout
    kv = dict(line.split(None, 1) for line in out.splitlines() if " " in line)
    if kv.get("failed_runs", "1") != "0":
        raise SystemExit(f"bench/oneshot.sh: {' '.join(argv)} failed (exit {kv.get('last_exit')})")
    return float(kv["wall_median_ms"]), float(kv["cpu_median_ms"]), float(kv["rss_median_kib"]) / 1024.0


def run_mode(label, extra):
    la0 = loadavg()
    wall = {k: [] for k, _ in CMDS}
    cpu = {k: [] for k, _ in CMDS}
    rss = {k: [] for k, _ in CMDS}
    for _ in range(ROUNDS):
        for k, argv in CMDS:  # alternately: the machine's moods fall on every command alike
            w, c, r = once(k, argv, extra)
            wall[k].append(w)
            cpu[k].append(c)
            rss[k].append(r)
    la1 = loadavg()
    base = statistics.median(wall["bare"])
    cbase = statistics.median(cpu["bare"])
    free = not extra
    print(f"one-shot queries, {label}: bench-8x64 (8 GPUs x 64 processes, "
          f"{os.environ['GPUSCOPE_SIM_PIDS'].count(',') + 1} live PIDs), {ROUNDS} runs each, alternately; "
          f"load average {la0} -> {la1}")
    print(f"{'command':<12}{'wall median (ms)':>18}{'vs bare':>9}{'CPU median (ms)':>17}{'vs bare':>9}"
          f"{'peak RSS (MiB)':>16}  target")
    targets = {"json": "<= 1.5x, <= 5 ms, <= 4 MiB" if free else "<= 1.2x", "csv": "<= 1.0x" if free else "",
               "bare": "(the floor)", "table": "", "json-noproc": "(json without /proc)"}
    ok = True
    for k, _ in CMDS:
        m, c, r = statistics.median(wall[k]), statistics.median(cpu[k]), statistics.median(rss[k])
        print(f"{k:<12}{m:>18.2f}{m / base:>9.2f}{c:>17.2f}{c / cbase:>9.2f}{r:>16.2f}  {targets[k]}")
        if free and k == "json" and (m / base > 1.5 or m > 5 or r > 4):
            ok = False
        if free and k == "csv" and m / base > 1.0:
            ok = False
        if not free and k == "json" and m / base > 1.2:
            ok = False
    print()
    return ok


def calls_per_gpu(argv):
    """NVML calls of one run (the simulator's GPUSCOPE_SIM_STATS), per GPU of bench-8x64."""
    path = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"gs-oneshot-stats-{os.getpid()}")
    try:
        subprocess.run(argv, stdout=subprocess.DEVNULL, env=dict(os.environ, GPUSCOPE_SIM_STATS=path), check=True)
        with open(path) as f:
            return sum(int(line.split()[1]) for line in f if len(line.split()) == 2) / 8
    finally:
        if os.path.exists(path):
            os.unlink(path)


ok = True
for label, extra in MODES:
    ok = run_mode(label, extra) and ok
print("NVML calls per GPU, one run each (simulator counters): " +
      ", ".join(f"{k} {calls_per_gpu(argv):.1f}" for k, argv in CMDS if k != "json-noproc"))
print("one-shot targets:", "all met" if ok else "NOT all met")
PY
