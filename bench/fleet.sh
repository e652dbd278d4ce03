#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/fleet.sh - the fleet views on a 500 nodes x 8 GPUs fleet (issue 21):
# bench/fleet_gen.py writes it as OpenMetrics with dcgm-exporter's names and
# labels, `promtool tsdb create-blocks-from openmetrics` backfills a real
# Prometheus TSDB, a private prometheus serves it on loopback. Then:
#   - PromQL requests per refresh of `top --prometheus`, for the 50-node
#     cluster (--match '{cluster="small"}') and the whole 500: the same count
#   - gpuscope's CPU per refresh and its peak RSS (targets 50 ms, 20 MiB),
#     from `top --prometheus --batch` (which also formats every row, where the
#     screen shows only what fits): (CPU of 11 refreshes - CPU of 1) / 10
#   - `report --prometheus --since 24h` end to end (target 10 s), with the
#     Prometheus query time it reports apart
# Data kept modest so the backfill takes minutes, not hours: 24 h at a
# 10-minute step, plus the half hour around now at 60 s (instant queries at
# "now" find samples for 15 minutes after the data is written).
# FLEET_NODES=50 for a quick run.
. "$(dirname "$0")/bench.lib"
bench_init fleet PROM_PID
PROM_PID=
NODES=${FLEET_NODES:-500}
for t in prometheus promtool python3 curl; do
    command -v "$t" >/dev/null || { echo "SKIP: $t not installed (scripts/deps.sh)"; exit 0; }
done
[ -x "$GS" ] && [ -f "$ROOT/$O/modules/fleet.so" ] || { echo "SKIP: build first (make)"; exit 0; }

now=$(date +%s)
t0=$(date +%s.%N)
python3 bench/fleet_gen.py "$now" "$NODES" 8 50 24 600 60 >"$TMP/fleet.om" || exit 1
t1=$(date +%s.%N)
promtool tsdb create-blocks-from openmetrics "$TMP/fleet.om" "$TMP/tsdb" >"$TMP/promtool.log" 2>&1 ||
    { tail -5 "$TMP/promtool.log"; exit 1; }
t2=$(date +%s.%N)
rm -f "$TMP/fleet.om"
printf "bench fleet: %d nodes x 8 GPUs, 6 families (%s series): generated in %.0f s, backfilled in %.0f s\n" \
    "$NODES" "$((NODES * 8 * 6))" "$(echo "$t1 - $t0" | bc)" "$(echo "$t2 - $t1" | bc)"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
printf 'global: {scrape_interval: 300s}\nscrape_configs: []\n' >"$TMP/prom.yml"
prometheus --config.file="$TMP/prom.yml" --storage.tsdb.path="$TMP/tsdb" --storage.tsdb.retention.time=30d \
    --web.listen-address="127.0.0.1:$port" >"$TMP/prom.log" 2>&1 &
PROM_PID=$!
URL=http://127.0.0.1:$port
for _ in $(seq 1 120); do curl -sf "$URL/-/ready" >/dev/null && break; sleep 0.5; done
curl -sf "$URL/-/ready" >/dev/null || { echo "prometheus did not start"; tail -5 "$TMP/prom.log"; exit 1; }

# requests per refresh: the status line of the second refresh
reqs() {
    "$GS" top --prometheus "$URL" "$@" --batch 2 -d 0.1 | grep ' requests' | tail -1 |
        sed 's/.*GPUs; \([0-9]*\) requests, Prometheus \([0-9]*\) ms.*/\1 \2/'
}
read -r r50 q50 < <(reqs --match '{cluster="small"}')
read -r r500 q500 < <(reqs)
echo "top --prometheus requests per refresh: $r50 for 50 nodes, $r500 for $NODES nodes" \
     "$([ "$r50" = "$r500" ] && echo '(constant)' || echo '(NOT constant)')"
echo "  Prometheus time per refresh: $q50 ms (50 nodes), $q500 ms ($NODES nodes)"

# CPU per refresh and peak RSS (GNU time: user, system, max RSS KiB)
cpu() {
    /usr/bin/time -f '%U %S %M' "$GS" top --prometheus "$URL" --batch "$1" -d 0.1 2>&1 >/dev/null | tail -1
}
read -r u1 s1 _ < <(cpu 1)
read -r u11 s11 rss < <(cpu 11)
per=$(echo "($u11 + $s11 - $u1 - $s1) * 100" | bc -l)
printf "top --prometheus: gpuscope CPU %.1f ms per refresh (target <= 50), peak RSS %.1f MiB (target <= 20), %s nodes\n" \
    "$per" "$(echo "$rss / 1024" | bc -l)" "$NODES"

# report over 24 h: twice, as Prometheus starts on the backfilled blocks cold (their index
# and chunks not yet read) and a running one is warm
for run in cold warm; do
    rm -f "$TMP/fleet.html"
    out=$( { /usr/bin/time -f 'WALL %e' "$GS" report --prometheus "$URL" --since 24h -o "$TMP/fleet.html"; } 2>&1)
    [ -s "$TMP/fleet.html" ] || { echo "report --prometheus failed: $out"; exit 1; }
    wall=$(echo "$out" | sed -n 's/^WALL //p')
    pq=$(echo "$out" | sed -n 's/.*Prometheus \([0-9]*\) ms.*/\1/p')
    nreq=$(echo "$out" | sed -n 's/.*, \([0-9]*\) requests.*/\1/p')
    printf "report --prometheus --since 24h (%s): %.2f s end to end (target <= 10), of which Prometheus %.2f s; %s requests, %s KiB of HTML\n" \
        "$run" "$wall" "$(echo "$pq / 1000" | bc -l)" "$nreq" "$(( $(stat -c %s "$TMP/fleet.html") / 1024 ))"
done
[ "$(grep -c '<tr><td>node-' "$TMP/fleet.html")" = "$NODES" ] || { echo "the report lacks nodes"; exit 1; }
exit 0
