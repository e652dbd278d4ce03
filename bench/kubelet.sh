#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/kubelet.sh - what pods from the kubelet cost `gpuscope serve` (issue 10, section 2), on
# bench-8x64 (8 GPUs x 64 processes) with a gRPC kubelet (tests/fixtures/kubelet/server.py,
# python3-grpcio) answering for a busy node: 8 pods time-slicing each GPU (64) and 40 pods
# without GPUs. All in one run, loopback only:
#   CPU per refresh     the refresher thread's own CPU counter over many calls (--kubelet-interval
#                       100ms), and the whole process's CPU with those calls minus without
#   RSS added           at rest with the lookup on (default 5 s) minus off (`none`), same binary
#   scrape latency      bench/serve.sh without the kubelet, with it, and with --kubernetes-virtual-gpus
#                       (one series per sharing pod: 8x the DCGM series); BEFORE=DIR adds a run of
#                       another build (e.g. main's) for a before/after in the same run; then the
#                       servers side by side, taking turns under one client (medians, ratios)
# Environment: O (build dir, default build), KUBELET_BENCH_SECONDS (CPU window, 20), BEFORE.
set -uo pipefail
. "$(dirname "$0")/bench.lib"
SECS=${KUBELET_BENCH_SECONDS:-20}
KPID= SPID=
bench_init kubelet SPID KPID
[ -x "$GS" ] || { echo "kubelet bench: build $GS first"; exit 2; }
PY=
for p in python3 /usr/bin/python3; do
    command -v "$p" >/dev/null && "$p" -c 'import grpc, google.protobuf' 2>/dev/null && { PY=$p; break; }
done
[ -n "$PY" ] && command -v protoc >/dev/null || { echo "kubelet bench: needs python3-grpcio, python3-protobuf, protoc"; exit 2; }
export GPUSCOPE_NVML_LIB=$ROOT/$O/sim/current/libnvidia-ml.so.1 GPUSCOPE_SIM_SCENARIO=bench-8x64 \
       GPUSCOPE_SIM_SCENARIO_DIR=$ROOT/sim/scenarios

# the node's pods: 8 per GPU on its replicas ::0..::7, 40 with CPUs only
"$GS" query --format csv,noheader --query-gpu uuid >"$TMP/uuids" || exit 2
"$PY" - "$TMP/uuids" >"$TMP/kubelet.json" <<'PY'
import json, sys
uuids = open(sys.argv[1]).read().split()
pods = []
for g, u in enumerate(uuids):
    for r in range(8):
        pods.append({"name": f"train-{g}-{r}", "namespace": "ml", "cpu_ids": [g * 8 + r],
                     "containers": [{"name": "worker", "cpu_ids": [g * 8 + r],
                                     "devices": [{"resource_name": "nvidia.com/gpu", "device_ids": [f"{u}::{r}"],
                                                  "topology": {"nodes": [{"ID": g // 4}]}}]},
                                    {"name": "sidecar"}]})
pods += [{"name": f"web-{i}", "namespace": "default", "containers": [{"name": "nginx", "cpu_ids": [i]}]}
         for i in range(40)]
print(json.dumps({"pods": pods}))
PY
"$PY" tests/fixtures/kubelet/server.py "$TMP/kubelet.sock" "$TMP/kubelet.json" >"$TMP/kubelet.out" 2>&1 &
KPID=$!
for _ in $(seq 1 100); do grep -q '^ready' "$TMP/kubelet.out" && break; sleep 0.1; done
grep -q '^ready' "$TMP/kubelet.out" || { echo "kubelet bench: fixture server did not start"; cat "$TMP/kubelet.out"; exit 2; }

start() { # start SERVE-ARGS...: serve in the background; sets SPID, URL
    "$GS" serve --listen 127.0.0.1:0 --interval 1s "$@" 2>"$TMP/err" &
    SPID=$!
    local port=
    for _ in $(seq 1 100); do
        port=$(sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$TMP/err"); [ -n "$port" ] && break; sleep 0.1
    done
    [ -n "$port" ] || { echo "kubelet bench: serve did not start"; cat "$TMP/err"; exit 2; }
    URL="http://127.0.0.1:$port/metrics"
}
stop() { kill "$SPID"; wait "$SPID" 2>/dev/null; SPID=; }
metric() { curl -s "$URL" | awk -v m="$1" '$1 == m { print $2 }'; }
ticks() { awk '{ print $14 + $15 }' "/proc/$SPID/stat"; }
kib() { awk -v k="$1" '$1 == k":" { print $2 }' "/proc/$SPID/status"; }
hz=$(getconf CLK_TCK)

# 1. CPU: the same window with the kubelet asked every 100 ms, and not at all
cpu_window() { # the process's CPU seconds over SECS, after a 2 s warm-up; sets CPU, N (calls), TCPU (thread)
    sleep 2
    local t0 n0 c0
    t0=$(ticks) n0=$(metric gpuscope_kubelet_refreshes_total) c0=$(metric gpuscope_kubelet_refresh_cpu_seconds_total)
    sleep "$SECS"
    CPU=$(echo "$(ticks) $t0" | awk -v hz="$hz" '{ printf "%.3f", ($1 - $2) / hz }')
    N=$(awk -v a="$(metric gpuscope_kubelet_refreshes_total)" -v b="${n0:-0}" 'BEGIN { print a - b }')
    TCPU=$(awk -v a="$(metric gpuscope_kubelet_refresh_cpu_seconds_total)" -v b="${c0:-0}" 'BEGIN { print a - b }')
}
start --pod-resources-kubelet-socket "$TMP/kubelet.sock" --kubelet-interval 100ms
cpu_window
cpu_fast=$CPU refreshes=$N thread_cpu=$TCPU
duration=$(metric gpuscope_kubelet_refresh_duration_seconds)
pods=$(metric gpuscope_kubelet_pods)
stop
start --pod-resources-kubelet-socket none
cpu_window
cpu_none=$CPU
stop

# 2. RSS at rest: lookup on (every 5 s, labels on every DCGM series) and off
rss_at_rest() { sleep 3; curl -s -o /dev/null "$URL"; sleep 6; curl -s -o /dev/null "$URL"; kib VmRSS; }
start --pod-resources-kubelet-socket "$TMP/kubelet.sock"
rss_on=$(rss_at_rest)
series_on=$(curl -s "$URL" | grep -vc '^#')
stop
start --pod-resources-kubelet-socket none
rss_off=$(rss_at_rest)
stop
start --pod-resources-kubelet-socket "$TMP/kubelet.sock" --kubernetes-virtual-gpus
rss_vgpu=$(rss_at_rest)
series_vgpu=$(curl -s "$URL" | grep -vc '^#')
stop

printf '\n== pods from the kubelet: bench-8x64, a gRPC kubelet with %s GPU pods (8 per GPU, time-sliced) and 40 others\n' "$pods"
printf '  %-52s %s (%s CPUs)\n' "load average" "$(cut -d' ' -f1-3 /proc/loadavg)" "$(nproc)"
awk -v n="$refreshes" -v c="$thread_cpu" -v d="$duration" 'BEGIN {
    printf "  %-52s %.3f ms CPU each (%d calls), latest call %.1f ms wall\n", "refresher thread, per List call + decode", c / n * 1000, n, d * 1000 }'
awk -v a="$cpu_fast" -v b="$cpu_none" -v n="$refreshes" -v s="$SECS" 'BEGIN {
    printf "  %-52s %.3f ms per call (%.2f s vs %.2f s of CPU over %d s)\n", "whole process, calls every 100 ms minus none", (a - b) / n * 1000, a, b, s;
    printf "  %-52s %.4f %% of a core\n", "so at the default 5 s interval", (a - b) / n / 5 * 100 }'
printf '  %-52s %s KiB on, %s KiB off: %+d KiB   (%s series)\n' "RSS at rest, lookup on vs off" "$rss_on" "$rss_off" $((rss_on - rss_off)) "$series_on"
printf '  %-52s %s KiB: %+d KiB vs off   (%s series)\n' "RSS at rest, --kubernetes-virtual-gpus" "$rss_vgpu" $((rss_vgpu - rss_off)) "$series_vgpu"

# 3. scrape latency and throughput, bench/serve.sh back to back
export SERVE_BENCH_IDLE=${SERVE_BENCH_IDLE:-15}
if [ -n "${BEFORE:-}" ]; then
    echo; echo "-- bench/serve.sh, the build in $BEFORE (before)"
    O=$(realpath --relative-to="$ROOT" "$BEFORE") SERVE_BENCH_ARGS= bash bench/serve.sh | grep -E 'latency|per second|RSS|load'
fi
echo; echo "-- bench/serve.sh, no kubelet"
SERVE_BENCH_ARGS="--pod-resources-kubelet-socket none" bash bench/serve.sh | grep -E 'latency|per second|RSS|load'
echo; echo "-- bench/serve.sh, pods from the kubelet"
SERVE_BENCH_ARGS="--pod-resources-kubelet-socket $TMP/kubelet.sock" bash bench/serve.sh | grep -E 'latency|per second|RSS|load|exposition'
echo; echo "-- bench/serve.sh, pods from the kubelet, --kubernetes-virtual-gpus"
SERVE_BENCH_ARGS="--pod-resources-kubelet-socket $TMP/kubelet.sock --kubernetes-virtual-gpus" bash bench/serve.sh |
    grep -E 'latency|per second|RSS|load|exposition'

# 4. the same, interleaved: the servers run side by side and take turns under one client, so
#    the machine's load falls on all alike; the medians of each one's rounds, and their ratio
command -v wrk >/dev/null || exit 0
declare -A SURL
servers=("kubelet:$GS:--pod-resources-kubelet-socket $TMP/kubelet.sock" "none:$GS:--pod-resources-kubelet-socket none")
[ -n "${BEFORE:-}" ] && servers+=("before:$BEFORE/gpuscope:")
SPIDS=()
for s in "${servers[@]}"; do
    IFS=: read -r name bin args <<<"$s"
    "$bin" serve --listen 127.0.0.1:0 --interval 1s $args 2>"$TMP/err.$name" &
    SPIDS+=($!)
    for _ in $(seq 1 100); do
        port=$(sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$TMP/err.$name"); [ -n "$port" ] && break; sleep 0.1
    done
    SURL[$name]="http://127.0.0.1:$port/metrics"
done
trap 'kill "${SPIDS[@]}" 2>/dev/null; cleanup' EXIT
sleep 3
ROUNDS=${KUBELET_BENCH_ROUNDS:-6}
for ((r = 0; r < ROUNDS; r++)); do
    for name in "${!SURL[@]}"; do
        wrk -t1 -c1 -d3s --latency "${SURL[$name]}" 2>/dev/null |
            awk -v n="$name" '$1 == "50%" { p50 = $2 } $1 == "99%" { p99 = $2 } END { print n, p50, p99 }' >>"$TMP/rounds"
    done
done
kill "${SPIDS[@]}" 2>/dev/null; wait "${SPIDS[@]}" 2>/dev/null; SPIDS=()
printf '\n-- interleaved, %d rounds of 3 s each, one client (load average %s)\n' "$ROUNDS" "$(cut -d' ' -f1-3 /proc/loadavg)"
"${PY}" - "$TMP/rounds" <<'PY'
import statistics, sys
def us(v):  # wrk prints 312.00us, 1.20ms, 1.01s
    for suf, k in (("us", 1), ("ms", 1e3), ("s", 1e6)):
        if v.endswith(suf):
            return float(v[: -len(suf)]) * k
    return float(v)
rows = {}
for line in open(sys.argv[1]):
    n, a, b = line.split()
    rows.setdefault(n, []).append((us(a), us(b)))
med = {n: (statistics.median(a for a, _ in v), statistics.median(b for _, b in v)) for n, v in rows.items()}
for n, (a, b) in sorted(med.items()):
    print(f"  {n:<10} p50 {a:8.0f} us   p99 {b:8.0f} us   (median of {len(rows[n])} rounds)")
if "kubelet" in med and "none" in med:
    print(f"  kubelet / none: p50 x{med['kubelet'][0] / med['none'][0]:.2f}, p99 x{med['kubelet'][1] / med['none'][1]:.2f}")
if "kubelet" in med and "before" in med:
    print(f"  kubelet / before: p50 x{med['kubelet'][0] / med['before'][0]:.2f}, p99 x{med['kubelet'][1] / med['before'][1]:.2f}")
PY
