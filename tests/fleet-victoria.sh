#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# fleet-victoria.sh - `gpuscope query --prometheus` against a second server of the Prometheus
# query API: VictoriaMetrics (Debian's victoria-metrics), scraping two `gpuscope serve` on their
# own scenarios (frozen clocks) and the dcgm-exporter-only fixture from a static file server, with
# its own scraper (-promscrape.config, Prometheus' format). VictoriaMetrics shows data 30 s late
# by default (-search.latencyOffset): the readings must still be shown (carrying their age), not
# taken for stale. Then a node that stops under a query loop is shown lost.
# Exit 77 only when victoria-metrics, curl or python3 are not installed or the tree is not built.
set -u
. "$(dirname "$0")/fleet.lib"
fail() {
    echo "FAIL: $*"
    for f in "$TMP"/out.* "$TMP"/err.*; do [ -f "$f" ] && { echo "--- $f"; head -c 3000 "$f"; echo; }; done
    echo "--- victoria-metrics log (tail)"; tail -n 15 "$TMP/vm.log" 2>/dev/null
    exit 1
}
fleet_init victoria-metrics curl python3

fleet_serve node-a ecc
fleet_serve node-c demo
mkdir -p "$TMP/www"
cp "$ROOT/tests/fixtures/fleet/dcgm-exporter.prom" "$TMP/www/dcgm.prom"
fleet_www "$TMP/www"

VPORT=$(free_port)
API="http://127.0.0.1:$VPORT"
cat >"$TMP/scrape.yml" <<YML
global: {scrape_interval: 1s}
scrape_configs:
  - job_name: gpuscope
    static_configs: [{targets: ['127.0.0.1:${SERVE_PORT[node-a]}', '127.0.0.1:${SERVE_PORT[node-c]}']}]
  - {job_name: dcgm, metrics_path: /dcgm.prom, static_configs: [{targets: ['127.0.0.1:$WPORT']}]}
YML
fleet_bg victoria-metrics -httpListenAddr="127.0.0.1:$VPORT" -storageDataPath="$TMP/vm" \
    -promscrape.config="$TMP/scrape.yml" -loggerLevel=WARN >"$TMP/vm.log" 2>&1
VM_PID=$BG_PID
for _ in $(seq 1 120); do curl -sf "$API/health" >/dev/null && break; sleep 0.5; done
curl -sf "$API/health" >/dev/null || { kill -0 "$VM_PID" 2>/dev/null || { echo "SKIP: victoria-metrics cannot start: $(tail -n 3 "$TMP/vm.log")"; exit 77; }; fail "victoria-metrics not ready"; }

Q=(query --prometheus "$API" --format=csv,noheader --query-gpu=host,index,utilization.gpu,memory.used)
# the first points show after -search.latencyOffset (30 s)
for _ in $(seq 1 240); do
    "$GS" "${Q[@]}" >"$TMP/out.csv" 2>"$TMP/err.csv"
    rc=$?
    [ "$(grep -c . "$TMP/out.csv")" = 14 ] && break
    sleep 0.5
done
[ "$(grep -c . "$TMP/out.csv")" = 14 ] || fail "VictoriaMetrics: the fleet did not show 14 GPUs (rc $rc)"
[ "$rc" = 0 ] || fail "query exited $rc: $(cat "$TMP/err.csv")"
want=$( (echo "dcgm-node, 0, 0 %, 0 MiB"; echo "dcgm-node, 1, 77 %, 12192 MiB";
         expected_rows node-a 4; expected_rows node-c 8) )
[ "$(cat "$TMP/out.csv")" = "$want" ] || fail "CSV differs from the exporters'
--- got
$(cat "$TMP/out.csv")
--- want
$want"
"$GS" query --prometheus "$API" --format=json >"$TMP/out.json" 2>"$TMP/err.json" || fail "JSON query: $(cat "$TMP/err.json")"
python3 - "$TMP/out.json" <<'PY' || fail "JSON from VictoriaMetrics"
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["gpus"]) == 14 and all(g["state"] == "ok" for g in d["gpus"]), [g["state"] for g in d["gpus"]]
g = [g for g in d["gpus"] if g["host"] == "dcgm-node" and g["index"] == 1][0]
assert g["memory"]["total_bytes"] == (12192 + 2718 + 450) << 20 and g["temperature"]["memory_c"] is None, g
# VictoriaMetrics' readings are late: they carry their age
assert g["age_ms"].get("utilization.gpu_pct", 0) > 1000, g["age_ms"]
PY
echo "ok: VictoriaMetrics: 14 GPUs on 3 nodes as the exporters say; late readings carry their age, none taken for stale"

fleet_bg "$GS" "${Q[@]}" --match '{job="gpuscope"}' -l 1 -c 200 >"$TMP/loop.csv" 2>"$TMP/loop.err"
LOOP=$BG_PID
for _ in $(seq 1 60); do [ "$(grep -c . "$TMP/loop.csv")" -ge 12 ] && break; sleep 0.5; done
kill "${SERVE_PID[node-a]}"
for _ in $(seq 1 240); do grep -q "node-a, 3, \[GPU is lost\]" "$TMP/loop.csv" && break; sleep 0.5; done
sleep 1.5
kill -TERM "$LOOP"
wait "$LOOP" 2>/dev/null
last=$(tail -n 12 "$TMP/loop.csv")
[ "$(grep -c '^node-a, .*GPU is lost' <<<"$last")" = 4 ] || fail "VictoriaMetrics: node-a not shown lost: $last"
[ "$(grep -c '^node-c, [0-9]*, [0-9]* %, [0-9]* MiB$' <<<"$last")" = 8 ] || fail "VictoriaMetrics: the rest not shown: $last"
echo "ok: VictoriaMetrics: a node that stops is shown lost, the other 8 GPUs still read"
