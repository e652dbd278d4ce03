#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prometheus-dcgm-dashboard.sh - NVIDIA's dcgm-exporter Grafana dashboard on gpuscope: a real Prometheus
# (Debian's) scrapes `gpuscope serve` on the mig-h100 scenario (one MIG-partitioned H100, one whole), and
# every panel's PromQL, with the dashboard's variables resolved as Grafana would ("All"), must return
# data: temperature, power, SM clocks, utilization, framebuffer and the tensor panel (GPM profiling).
#
# The panels and variables are those of grafana/dcgm-exporter-dashboard.json in NVIDIA/dcgm-exporter
# (commit d5e5f51, 2026-05-12; the same as grafana.com dashboard 12239), restated below. Point
# DCGM_DASHBOARD at a copy of that file to take the queries from it instead (a local check; the file is
# not in this repository). Exit 77 (skipped) without prometheus.
set -u
. "$(dirname "$0")/serve-test.lib"
serve_test_init prometheus curl python3
fail() { echo "FAIL: $*"; echo "--- gpuscope stderr"; cat "$TMP/gs.err"; echo "--- prometheus log (tail)";
         tail -n 20 "$TMP/prom.log" 2>/dev/null; exit 1; }

# panel title <TAB> expression, as in the dashboard
cat >"$TMP/panels.tsv" <<'EOF'
GPU Temperature	DCGM_FI_DEV_GPU_TEMP{instance=~"$instance", gpu=~"$gpu"}
GPU Avg. Temp	avg(DCGM_FI_DEV_GPU_TEMP{instance=~"$instance", gpu=~"$gpu"})
GPU Power Usage	DCGM_FI_DEV_POWER_USAGE{instance=~"$instance", gpu=~"$gpu"}
GPU Power Total	sum(DCGM_FI_DEV_POWER_USAGE{instance=~"$instance", gpu=~"$gpu"})
GPU SM Clocks	DCGM_FI_DEV_SM_CLOCK{instance=~"$instance", gpu=~"$gpu"} * 1000000
GPU Utilization	DCGM_FI_DEV_GPU_UTIL{instance=~"$instance", gpu=~"$gpu"}
GPU Framebuffer Mem Used	DCGM_FI_DEV_FB_USED{instance=~"$instance", gpu=~"$gpu"}
Tensor Core Utilization	DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{instance=~"$instance", gpu=~"$gpu"}
EOF
if [ -n "${DCGM_DASHBOARD:-}" ]; then
    python3 - "$DCGM_DASHBOARD" >"$TMP/panels.tsv" <<'PY' || fail "reading $DCGM_DASHBOARD"
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["panels"]:
    for t in p.get("targets", []):
        print(p["title"] + "\t" + t["expr"])
PY
fi

serve_start GPUSCOPE_SIM_SCENARIO=mig-h100 -- --interval=500ms --hostname=dash-node
cat >"$TMP/prometheus.yml" <<YML
global: {scrape_interval: 1s, scrape_timeout: 800ms, evaluation_interval: 1s}
scrape_configs:
  - job_name: dcgm-exporter
    static_configs: [{targets: ['127.0.0.1:$GS_PORT']}]
YML
prom_start "$TMP/prometheus.yml"

# the dashboard's variables: label_values(DCGM_FI_DEV_GPU_TEMP, instance) and (..., gpu); "All" selected
# is the regex alternation of every value, as Grafana builds it for a multi-value variable (regex-escaped,
# with the backslashes doubled inside the PromQL string)
values() { curl -sf "$API/api/v1/label/$1/values?match%5B%5D=DCGM_FI_DEV_GPU_TEMP" |
           python3 -c 'import json,sys,re; v=json.load(sys.stdin)["data"]; print("(" + "|".join(re.escape(x).replace("\\", "\\\\") for x in v) + ")" if v else "")'; }
inst= gpus=
for _ in $(seq 1 60); do
    inst=$(values instance); gpus=$(values gpu)
    [ -n "$inst" ] && [ "$gpus" = "(0|1)" ] && break
    sleep 0.5
done
[ "$gpus" = "(0|1)" ] || fail "variable gpu: label_values(DCGM_FI_DEV_GPU_TEMP, gpu) gave '$gpus'"

# every panel returns data (the tensor panel needs two GPM samples: poll for it)
python3 - "$TMP/panels.tsv" "$API" "$inst" "$gpus" <<'PY' || fail "dashboard panels"
import json, sys, time, urllib.parse, urllib.request
panels, api, inst, gpus = sys.argv[1:5]
def query(expr):
    url = api + "/api/v1/query?" + urllib.parse.urlencode({"query": expr})
    return json.load(urllib.request.urlopen(url, timeout=5))["data"]["result"]
empty = []
for line in open(panels):
    title, expr = line.rstrip("\n").split("\t", 1)
    expr = expr.replace("$instance", inst).replace("$gpu", gpus)
    res = []
    for _ in range(40):
        res = query(expr)
        if res:
            break
        time.sleep(0.5)
    print("%-26s %2d series  %s" % (title, len(res), expr))
    if not res:
        empty.append(title)
mig = query('DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{gpu="0",GPU_I_PROFILE="3g.40gb",GPU_I_ID="2"}')
if not mig or not 0 < float(mig[0]["value"][1]) <= 1:
    empty.append("tensor activity of MIG GPU instance 2 (a 0-1 ratio)")
if empty:
    sys.exit("no data: " + ", ".join(empty))
PY

# NVIDIA's dashboard has no per-pod panel; the per-pod panels of a dashboard written for
# dcgm-exporter, on a GPU shared by pods, run against a real kubelet in tests/prometheus-kubelet.sh
# (and pods on MIG GPU instances in tests/cli/3252-serve-mig-kubelet.test)
echo "ok: every panel of NVIDIA's dcgm-exporter dashboard has data on gpuscope (mig-h100), the tensor panel included"
