#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prometheus-alerts.sh - an alert fires end to end: a private Prometheus (Debian's 2.42, on
# loopback, 1 s scrape and evaluation intervals) loads deploy/prometheus/gpuscope-alerts.yml
# and scrapes `gpuscope serve` on the xid79 scenario. The test steps the simulator's clock
# (GPUSCOPE_SIM_CLOCK=file:) past t=5 s once Prometheus has seen four GPUs, so GPU 2 reports
# Xid 79 and falls off the bus; then, through the HTTP API:
#   - GpuXidCritical{gpu="2",xid="79"} is firing, within 30 s;
#   - GpuMissing and GpuDown (which wait 2 m / 1 m before firing) are pending or firing;
#   - no GPU alert names another GPU.
# It also runs every query of the Grafana dashboards against this Prometheus, so a PromQL
# syntax error in deploy/grafana fails here. Exit 77 (skipped) without prometheus or promtool.
set -u
. "$(dirname "$0")/serve-test.lib"
serve_test_init prometheus curl python3
fail() { echo "FAIL: $*"; echo "--- gpuscope stderr"; cat "$TMP/gs.err"; echo "--- prometheus log (tail)";
         tail -n 20 "$TMP/prom.log" 2>/dev/null; echo "--- alerts"; cat "$TMP/alerts.json" 2>/dev/null; exit 1; }

# 1. the exporter on xid79, its clock held at t=1 s (four working GPUs)
echo 1 >"$TMP/clock"
serve_start GPUSCOPE_SIM_SCENARIO=xid79 "GPUSCOPE_SIM_CLOCK=file:$TMP/clock" -- --interval 200ms \
    --hostname=alert-node

# 2. Prometheus with our rules (job "gpuscope", as the rules expect)
cp "$ROOT/deploy/prometheus/gpuscope-alerts.yml" "$TMP/"
cat >"$TMP/prometheus.yml" <<YML
global: {scrape_interval: 1s, scrape_timeout: 800ms, evaluation_interval: 1s}
rule_files: [gpuscope-alerts.yml]
scrape_configs:
  - job_name: gpuscope
    static_configs: [{targets: ['127.0.0.1:$GS_PORT']}]
YML
prom_start "$TMP/prometheus.yml"

rules_loaded=$(curl -sf "$API/api/v1/rules" | python3 -c 'import json,sys; print(sum(len(g["rules"]) for g in json.load(sys.stdin)["data"]["groups"]))')
[ "${rules_loaded:-0}" -ge 15 ] || fail "prometheus loaded ${rules_loaded:-no} rules"

# 3. wait until the recording rule has seen four GPUs, then lose GPU 2
seen=
for _ in $(seq 1 60); do
    seen=$(query 'max_over_time(instance:gpuscope_gpus_up:sum[1m])')
    [ "$seen" = 4 ] && break
    sleep 0.5
done
[ "$seen" = 4 ] || fail "prometheus never saw 4 GPUs up (got '$seen')"
echo 6 >"$TMP/clock"
t0=$(date +%s)

# 4. the alerts, through the HTTP API
state() { # state ALERTNAME [label=value...]: firing / pending / ""
    python3 -c '
import json, sys
name, want = sys.argv[2], dict(a.split("=", 1) for a in sys.argv[3:])
st = ""
for a in json.load(open(sys.argv[1]))["data"]["alerts"]:
    l = a["labels"]
    if l.get("alertname") == name and all(l.get(k) == v for k, v in want.items()):
        st = a["state"] if st != "firing" else st
print(st)' "$TMP/alerts.json" "$@"
}
xid= missing= down=
while [ $(($(date +%s) - t0)) -le 30 ]; do
    curl -sf "$API/api/v1/alerts" >"$TMP/alerts.json" || fail "GET /api/v1/alerts"
    xid=$(state GpuXidCritical gpu=2 xid=79 severity=critical instance="127.0.0.1:$GS_PORT")
    missing=$(state GpuMissing)
    down=$(state GpuDown gpu=2)
    [ "$xid" = firing ] && [ -n "$missing" ] && [ -n "$down" ] && break
    sleep 0.5
done
[ "$xid" = firing ] || fail "GpuXidCritical{gpu=2,xid=79} is '${xid:-absent}' after 30 s"
[ -n "$missing" ] || fail "GpuMissing neither pending nor firing after 30 s"
[ -n "$down" ] || fail "GpuDown{gpu=2} neither pending nor firing after 30 s"
others=$(python3 -c 'import json,sys
print(" ".join(sorted({a["labels"]["alertname"]+"/gpu"+a["labels"]["gpu"] for a in json.load(sys.stdin)["data"]["alerts"]
      if a["labels"].get("gpu") not in (None, "2")})))' <"$TMP/alerts.json")
[ -z "$others" ] || fail "alerts for GPUs that are fine: $others"
took=$(($(date +%s) - t0))

# 5. every dashboard query parses and runs here
python3 - "$ROOT" "$API" <<'PY' || fail "dashboard queries"
import glob, json, os, sys, urllib.parse, urllib.request
root, api = sys.argv[1], sys.argv[2]
subst = {"$instance": ".*", "$gpu": ".*", "$namespace": ".*", "$__rate_interval": "1m", "$__range": "5m"}
bad = 0
for path in sorted(glob.glob(os.path.join(root, "deploy/grafana/*.json"))):
    d = json.load(open(path))
    exprs = [t["expr"] for p in d["panels"] for t in p.get("targets", [])]
    exprs += [v["query"]["query"] for v in d["templating"]["list"] if isinstance(v.get("query"), dict)]
    exprs += [a["expr"] for a in d.get("annotations", {}).get("list", []) if a.get("expr")]
    for e in exprs:
        q = e
        for k, v in subst.items():
            q = q.replace(k, v)
        if q.startswith("label_values("):  # a Grafana function: check its selector
            q = q[len("label_values("):q.rindex(",")]
        url = api + "/api/v1/query?" + urllib.parse.urlencode({"query": q})
        try:
            json.load(urllib.request.urlopen(url, timeout=5))
        except Exception as ex:
            bad += 1
            print(f"{os.path.basename(path)}: {e!r}: {ex}")
sys.exit(1 if bad else 0)
PY
echo "ok: GpuXidCritical{gpu=2,xid=79} firing ${took} s after the Xid (GpuMissing $missing, GpuDown $down); dashboard queries run"
