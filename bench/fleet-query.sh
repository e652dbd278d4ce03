#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/fleet-query.sh - `gpuscope query --prometheus` and `doctor --prometheus` (issue 21):
# a real Prometheus on loopback scraping N `gpuscope serve` (default 6) on the bench-8x8
# scenario with --hostname=node-K, every second. Prints, for one node (--match) and for all N:
#   PromQL requests per refresh (from query --debug: the count must not grow with the nodes)
#   one-shot query wall time and RSS (median of 9 runs), CSV and JSON
#   doctor --prometheus wall time and RSS
# The time spent waiting for Prometheus' answers (query --debug: HTTP requests, the server's query
# and the transfer) is printed apart from gpuscope's own CPU.
# The 500-node figures (top, report) are another bench's (a backfilled TSDB).
# Environment: O (build dir, default build), FLEET_BENCH_NODES (6).
set -uo pipefail
. "$(dirname "$0")/bench.lib"
N=${FLEET_BENCH_NODES:-6}
PROM_PID=
bench_init fleet-query PROM_PID
[ -x "$GS" ] && [ -f "$ROOT/$O/modules/fleet.so" ] || { echo "fleet bench: build $GS first"; exit 2; }
command -v prometheus >/dev/null || { echo "fleet bench: prometheus not installed (scripts/deps.sh)"; exit 2; }

targets=
for k in $(seq 1 "$N"); do
    : >"$TMP/serve-$k.err"
    GPUSCOPE_NVML_LIB=$ROOT/$O/sim/current/libnvidia-ml.so.1 GPUSCOPE_SIM_SCENARIO=bench-8x8 \
    GPUSCOPE_SIM_SCENARIO_DIR=$ROOT/sim/scenarios \
        "$GS" serve --listen 127.0.0.1:0 --hostname="node-$k" 2>"$TMP/serve-$k.err" &
    PIDS+=($!)
    for _ in $(seq 1 100); do
        p=$(sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$TMP/serve-$k.err")
        [ -n "$p" ] && break
        sleep 0.1
    done
    [ -n "$p" ] || { echo "fleet bench: serve $k did not start"; exit 2; }
    targets="$targets'127.0.0.1:$p',"
done
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
API="http://127.0.0.1:$PORT"
printf 'global: {scrape_interval: 1s}\nscrape_configs:\n  - {job_name: gpuscope, static_configs: [{targets: [%s]}]}\n' \
    "${targets%,}" >"$TMP/prom.yml"
prometheus --config.file="$TMP/prom.yml" --storage.tsdb.path="$TMP/data" --web.listen-address="127.0.0.1:$PORT" \
    >"$TMP/prom.log" 2>&1 &
PROM_PID=$!
want=$((N * 8))
for _ in $(seq 1 120); do
    got=$("$GS" query --prometheus "$API" --query-gpu=host --format=csv,noheader 2>/dev/null | grep -c .)
    [ "$got" = "$want" ] && break
    sleep 0.5
done
[ "$got" = "$want" ] || { echo "fleet bench: the fleet did not show $want GPUs ($got)"; exit 2; }

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
measure() { # LABEL ARGS...: median wall ms and RSS KiB of 9 runs
    local label=$1 i
    shift
    for i in $(seq 1 9); do
        /usr/bin/time -f '%e %M' -o "$TMP/t" "$GS" "$@" >/dev/null 2>&1
        cat "$TMP/t"
    done >"$TMP/runs"
    printf '  %-34s %6.0f ms  %6.1f MiB RSS\n' "$label" "$(awk '{ print $1 * 1000 }' "$TMP/runs" | median)" \
        "$(awk '{ print $2 / 1024 }' "$TMP/runs" | median)"
}
requests() { "$GS" query --prometheus "$API" "$@" --debug --query-gpu=host --format=csv 2>&1 >/dev/null |
             sed -n 's/.* \([0-9]*\) requests.*/\1/p'; }

echo "fleet: Prometheus $(prometheus --version 2>&1 | head -n1 | awk '{ print $3 }') on loopback, $N nodes x 8 GPUs (bench-8x8), 1 s scrapes"
one=$(requests --match '{Hostname="node-1"}')
all=$(requests)
echo "  requests per one-shot query: $one for 1 node, $all for $N nodes (1 status/config + 2 per refresh)"
[ "$one" = "$all" ] || { echo "  FAIL: the request count grows with the nodes"; exit 1; }
measure "query CSV, 1 node (8 GPUs)" query --prometheus "$API" --match '{Hostname="node-1"}' --query-gpu=host,index,utilization.gpu,memory.used --format=csv
measure "query CSV, $N nodes ($want GPUs)" query --prometheus "$API" --query-gpu=host,index,utilization.gpu,memory.used --format=csv
measure "query JSON, $N nodes" query --prometheus "$API" --format=json
measure "doctor --prometheus, $N nodes" doctor --prometheus "$API"
"$GS" query --prometheus "$API" --debug --query-gpu=host --format=csv 2>&1 >/dev/null | grep 'prometheus ->' >"$TMP/dbg"
printf '  of the %s-node query: %s ms waiting for the 3 answers (Prometheus querying + transfer), the rest gpuscope\n' \
    "$N" "$(sed -n 's/.* requests in \([0-9.]*\) ms.*/\1/p' "$TMP/dbg")"
/usr/bin/time -f '%U %S' -o "$TMP/cpu" "$GS" query --prometheus "$API" --format=json >/dev/null 2>&1
printf '  gpuscope CPU for the %s-node JSON query: %.0f ms (user + system)\n' "$N" "$(awk '{ print ($1 + $2) * 1000 }' "$TMP/cpu")"
