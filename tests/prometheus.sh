#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prometheus.sh - integration test of `gpuscope serve` with a real Prometheus
# (Debian's 2.42 package): a private Prometheus on loopback scrapes the exporter
# (it asks for OpenMetrics, so this also checks our OpenMetrics), PromQL through
# its HTTP API returns the scenario's values, and `promtool check metrics` on the
# text output reports only the lints that DCGM's own names force (docs/SERVE.md),
# none on gpuscope_* metrics. Exit 77 (skipped) without prometheus/promtool.
set -u
. "$(dirname "$0")/serve-test.lib"
serve_test_init prometheus promtool curl python3
fail() { echo "FAIL: $*"; echo "--- gpuscope stderr"; cat "$TMP/gs.err"; echo "--- prometheus log (tail)";
         tail -n 20 "$TMP/prom.log" 2>/dev/null; exit 1; }

# 1. the exporter, on a kernel-chosen loopback port, deterministic values
serve_start GPUSCOPE_SIM_SCENARIO=demo GPUSCOPE_SIM_CLOCK=fixed:100 -- --hostname=itest-node
curl -sf "http://127.0.0.1:$GS_PORT/metrics" >"$TMP/metrics.txt" || fail "scrape with curl"

# 2. promtool: only DCGM-forced lints, none on gpuscope_ metrics
promtool check metrics <"$TMP/metrics.txt" >"$TMP/lint.txt" 2>&1
if grep -q '^gpuscope_' "$TMP/lint.txt"; then fail "promtool warns on gpuscope_ metrics: $(grep '^gpuscope_' "$TMP/lint.txt" | sort -u)"; fi
unexpected=$(grep -v -e "label names should be written in 'snake_case' not 'camelCase'" \
                     -e 'counter metrics should have "_total" suffix' \
                     -e "metric name should not include type 'counter'" "$TMP/lint.txt" | grep -v '^$')
[ -z "$unexpected" ] || fail "unexpected promtool output: $unexpected"
grep -v '^DCGM_' "$TMP/metrics.txt" >"$TMP/own.txt"
promtool check metrics <"$TMP/own.txt" || fail "promtool check metrics on gpuscope_ metrics alone"

# 3. a private Prometheus on loopback
cat >"$TMP/prometheus.yml" <<YML
global: {scrape_interval: 1s, scrape_timeout: 800ms, evaluation_interval: 1s}
scrape_configs:
  - job_name: gpuscope
    static_configs: [{targets: ['127.0.0.1:$GS_PORT']}]
YML
prom_start "$TMP/prometheus.yml"

got=
for _ in $(seq 1 60); do
    got=$(query 'DCGM_FI_DEV_GPU_TEMP{gpu="3"}')
    [ -n "$got" ] && break
    sleep 0.5
done
want=$(grep '^DCGM_FI_DEV_GPU_TEMP{gpu="3"' "$TMP/metrics.txt" | sed 's/.* //')
[ "$got" = "$want" ] || fail "DCGM_FI_DEV_GPU_TEMP{gpu=3}: prometheus '$got', exporter '$want'"
[ "$(query 'up{job="gpuscope"}')" = 1 ] || fail "target not up"
[ "$(query 'sum(gpuscope_gpu_up)')" = 8 ] || fail "sum(gpuscope_gpu_up) != 8"
[ "$(query 'count(DCGM_FI_DEV_POWER_USAGE{Hostname="itest-node",modelName="NVIDIA H100 80GB HBM3"})')" = 8 ] ||
    fail "DCGM labels"
[ "$(query 'gpuscope_exporter_samples_total > 0')" != "" ] || fail "OpenMetrics counter gpuscope_exporter_samples_total"
energy=$(query 'DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu="0"}')
[ -n "$energy" ] || fail "DCGM counter stored under its dcgm-exporter name"
health=$(curl -sf "$API/api/v1/targets" | python3 -c 'import json,sys; t=json.load(sys.stdin)["data"]["activeTargets"][0]; print(t["health"], t["lastError"] or "-")')
[ "$health" = "up -" ] || fail "target health: $health"
echo "ok: prometheus scraped gpuscope serve (GPU_TEMP{gpu=3} = $got, 8 GPUs up), promtool clean on gpuscope_*"
