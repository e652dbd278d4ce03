#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prometheus-violation.sh - community alert rules on dcgm-exporter's violation counters return
# data from `gpuscope serve`: a private Prometheus (Debian's, loopback, 1 s scrape and
# evaluation) loads two rules as Amazon SageMaker HyperPod's observability add-on ships them
# for dcgm-exporter ("Preconfigured alerts", docs.aws.amazon.com, sagemaker_hyperpod_alerts:
# GPUThermalViolation `increase(DCGM_FI_DEV_THERMAL_VIOLATION[5m]) > 0`, GPUPowerViolation
# `DCGM_FI_DEV_POWER_VIOLATION > 100`) and scrapes serve on thermal.scn with GPU 1 held at its
# power cap from 20 s. The simulator's clock (file:) runs from 20 s at 5x. Then:
#   - GPUThermalViolation is pending or firing for GPU 0, never for GPU 1;
#   - GPUPowerViolation is pending or firing for GPU 1, never for GPU 0;
#   - rate(DCGM_FI_DEV_THERMAL_VIOLATION[30s]) / 1e9 (the share of time held; simulated seconds
#     per real second here) is above 0 on GPU 0 and 0 on GPU 1.
# Exit 77 (skipped) without prometheus, curl or python3.
set -u
. "$(dirname "$0")/serve-test.lib"
serve_test_init prometheus curl python3
CLOCK_PID=
fail() { echo "FAIL: $*"; echo "--- gpuscope stderr"; cat "$TMP/gs.err"; echo "--- prometheus log (tail)";
         tail -n 20 "$TMP/prom.log" 2>/dev/null; echo "--- alerts"; cat "$TMP/alerts.json" 2>/dev/null; exit 1; }
trap '[ -n "$CLOCK_PID" ] && kill "$CLOCK_PID" 2>/dev/null; serve_test_cleanup' EXIT

# 1. thermal.scn plus a power cap on GPU 1; the clock advances 1 simulated second per 0.2 s
{ cat "$ROOT/sim/scenarios/thermal.scn"; echo "at 20 gpu=1 throttle on sw_power_cap"; } >"$TMP/t.scn"
echo 20 >"$TMP/clock"
( t=20; while [ "$t" -lt 95 ]; do sleep 0.2; t=$((t + 1)); echo "$t" >"$TMP/clock.new"; mv "$TMP/clock.new" "$TMP/clock"; done ) &
CLOCK_PID=$!
serve_start "GPUSCOPE_SIM_SCENARIO=$TMP/t.scn" "GPUSCOPE_SIM_CLOCK=file:$TMP/clock" -- --interval 200ms

# 2. Prometheus with the community rules
cat >"$TMP/hyperpod-alerts.yml" <<'YML'
groups:
- name: sagemaker_hyperpod_alerts
  rules:
  - alert: GPUPowerViolation
    expr: DCGM_FI_DEV_POWER_VIOLATION > 100
    for: 5m
    labels: {severity: warning}
  - alert: GPUThermalViolation
    expr: increase(DCGM_FI_DEV_THERMAL_VIOLATION[5m]) > 0
    for: 1m
    labels: {severity: critical}
YML
cat >"$TMP/prometheus.yml" <<YML
global: {scrape_interval: 1s, scrape_timeout: 800ms, evaluation_interval: 1s}
rule_files: [hyperpod-alerts.yml]
scrape_configs:
  - job_name: gpuscope
    static_configs: [{targets: ['127.0.0.1:$GS_PORT']}]
YML
prom_start "$TMP/prometheus.yml"

# 3. the alerts, through the HTTP API, within 40 s
gpus() { # gpus ALERTNAME: the gpu labels of its pending/firing alerts
    python3 -c 'import json,sys
print(" ".join(sorted(a["labels"].get("gpu","?") for a in json.load(open(sys.argv[1]))["data"]["alerts"]
      if a["labels"]["alertname"] == sys.argv[2])))' "$TMP/alerts.json" "$1"
}
therm= power=
for _ in $(seq 1 80); do
    curl -sf "$API/api/v1/alerts" >"$TMP/alerts.json" || fail "GET /api/v1/alerts"
    therm=$(gpus GPUThermalViolation) power=$(gpus GPUPowerViolation)
    [ "$therm" = 0 ] && [ "$power" = 1 ] && break
    sleep 0.5
done
[ "$therm" = 0 ] || fail "GPUThermalViolation on GPUs '${therm}', want '0'"
[ "$power" = 1 ] || fail "GPUPowerViolation on GPUs '${power}', want '1'"
share=$(query 'rate(DCGM_FI_DEV_THERMAL_VIOLATION{gpu="0"}[30s]) / 1e9')
share1=$(query 'rate(DCGM_FI_DEV_THERMAL_VIOLATION{gpu="1"}[30s]) / 1e9')
python3 -c 'import sys; s = float(sys.argv[1] or "nan"); sys.exit(0 if s > 0 else 1)' "$share" ||
    fail "thermal throttle share on GPU 0 is '$share', want > 0"
[ "$share1" = 0 ] || fail "thermal throttle share on GPU 1 is '$share1', want 0"
echo "ok: GPUThermalViolation on GPU 0, GPUPowerViolation on GPU 1 (HyperPod's rules); thermal share $share"
