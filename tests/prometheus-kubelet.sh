#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prometheus-kubelet.sh - the per-pod queries users run on dcgm-exporter, answered by a real
# Prometheus (Debian's 2.42) scraping `gpuscope serve` on the simulator, with pods from a real gRPC
# kubelet (tests/fixtures/kubelet/server.py): two pods time-slicing GPU 1, one pod idle on GPU 0.
# Three scrape jobs of the same node:
#   gpuscope     --kubernetes-virtual-gpus, honor_labels (our ServiceMonitor): pod, namespace, container
#   dcgm-style   the same exporter scraped as dcgm-exporter's Helm chart does (honor_labels false, the
#                exporter pod's own target labels): the pods' labels become exported_pod etc.
#   default      a second exporter without virtual GPUs: one pod per GPU, as dcgm-exporter's default
# The dcgm-style queries are the per-pod panels of a public dashboard written for dcgm-exporter
# (github.com/heumsi/grafana-dashboards, kube-gpu-resources-namespace: "GPU Cores Usage / Util By
# Pod", "... By Container"); NVIDIA's own dashboard (grafana.com 12239) has no per-pod panel.
# Exit 77 (skipped) without prometheus, python3-grpcio or protoc.
set -u
. "$(dirname "$0")/serve-test.lib"
serve_test_init prometheus curl python3 protoc jq
fail() { echo "FAIL: $*"; for f in gs.err gs1.err kubelet.out; do echo "--- $f"; cat "$TMP/$f" 2>/dev/null; done
         echo "--- prometheus log (tail)"; tail -n 20 "$TMP/prom.log" 2>/dev/null; exit 1; }
PY=
for p in /usr/bin/python3 python3; do # Debian's first: scripts/deps.sh installs the modules for it
    command -v "$p" >/dev/null && "$p" -c 'import grpc, google.protobuf' 2>/dev/null && { PY=$p; break; }
done
[ -n "$PY" ] || { echo "SKIP: python3-grpcio and python3-protobuf are not installed"; exit 77; }
KPID= GS1=
trap 'kill $KPID $GS1 2>/dev/null; wait $KPID $GS1 2>/dev/null; serve_test_cleanup' EXIT

# 1. the node: a /proc with one process in each sharing pod, the kubelet's log directories, the kubelet
uid1=1a2b3c4d-5e6f-7a8b-9c0d-000000000001
uid2=1a2b3c4d-5e6f-7a8b-9c0d-000000000002
cp -r "$ROOT/tests/fixtures/proc" "$TMP/proc"
for n in 1 2; do
    pid=200$n uid=$(eval echo "\$uid$n")
    cp -r "$TMP/proc/1002" "$TMP/proc/$pid"
    sed -i "s/1002/$pid/g" "$TMP/proc/$pid/stat" "$TMP/proc/$pid/status"
    echo "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${uid//-/_}.slice/cri-containerd-$(printf "%064d" $n).scope" >"$TMP/proc/$pid/cgroup"
    mkdir -p "$TMP/host/var/log/pods/team-b_nb-${n}_$uid"
done
mkdir -p "$TMP/host/var/log/containers"
sed -e '/^proc /d' "$ROOT/tests/fixtures/kubelet/node.scn" >"$TMP/node.scn"
cat >>"$TMP/node.scn" <<'SCN'
gpu 1 memory_used=30000MiB
proc 1 type=compute pid=2001 name=python mem=4000MiB sm=30
proc 1 type=compute pid=2002 name=python mem=6000MiB sm=45
SCN
cp "$ROOT/tests/fixtures/kubelet/node.json" "$TMP/kubelet.json"
"$PY" "$ROOT/tests/fixtures/kubelet/server.py" "$TMP/kubelet.sock" "$TMP/kubelet.json" >"$TMP/kubelet.out" 2>&1 &
KPID=$!
for _ in $(seq 1 100); do grep -q '^ready' "$TMP/kubelet.out" && break; sleep 0.1; done
grep -q '^ready' "$TMP/kubelet.out" || fail "the kubelet fixture server did not start"

# 2. two exporters of that node (virtual GPUs, and dcgm-exporter's default)
envs=(GPUSCOPE_SIM_SCENARIO="$TMP/node.scn" GPUSCOPE_SIM_CLOCK=fixed:100 GPUSCOPE_PROC_ROOT="$TMP/proc")
kargs=(--hostname=k8s-node-1 --host-root "$TMP/host" --pod-resources-kubelet-socket "$TMP/kubelet.sock")
serve_start "${envs[@]}" -- "${kargs[@]}"
GS1=$GS_PID PORT1=$GS_PORT
mv "$TMP/gs.err" "$TMP/gs1.err"
serve_start "${envs[@]}" -- "${kargs[@]}" --kubernetes-virtual-gpus
curl -sf "http://127.0.0.1:$GS_PORT/metrics" | grep -q 'pod="nb-1",vgpu="0"' || fail "no per-pod series from the kubelet"

# 3. a private Prometheus on loopback
cat >"$TMP/prometheus.yml" <<YML
global: {scrape_interval: 1s, scrape_timeout: 800ms, evaluation_interval: 1s}
scrape_configs:
  - job_name: gpuscope
    honor_labels: true
    static_configs: [{targets: ['127.0.0.1:$GS_PORT']}]
  - job_name: dcgm-style
    honor_labels: false
    static_configs: [{targets: ['127.0.0.1:$GS_PORT'],
                      labels: {namespace: gpu-monitoring, pod: dcgm-exporter-x7k2p, container: exporter}}]
  - job_name: default
    honor_labels: true
    static_configs: [{targets: ['127.0.0.1:$PORT1']}]
YML
prom_start "$TMP/prometheus.yml"

# "label=value ... value" per series, sorted: what a panel would draw
query() { curl -sf --get --data-urlencode "query=$1" "$API/api/v1/query" |
          jq -r '.data.result[] | ([.metric | to_entries[] | "\(.key)=\(.value)"] | join(",")) + " " + .value[1]' |
          sort; }
expect() { # expect QUERY WANT: poll until Prometheus answers WANT (scrapes take a few seconds to arrive)
    local got=
    for _ in $(seq 1 40); do
        got=$(query "$1")
        [ "$got" = "$2" ] && return 0
        sleep 0.5
    done
    fail "$1
--- want
$2
--- got
$got"
}
NL=$'\n'

# 4. the per-pod panels of the dcgm-exporter dashboard, on the shared GPU
expect 'count(DCGM_FI_DEV_GPU_UTIL{job="dcgm-style",exported_namespace="team-b"} > 0) by (exported_pod)' \
       "exported_pod=nb-1 1${NL}exported_pod=nb-2 1"
expect 'sum(DCGM_FI_DEV_GPU_UTIL{job="dcgm-style",exported_namespace="team-b"} > 0) by (exported_pod) / 100' \
       "exported_pod=nb-1 0.3${NL}exported_pod=nb-2 0.45"
expect 'sum(DCGM_FI_DEV_GPU_UTIL{job="dcgm-style",exported_namespace="team-b"} > 0) by (exported_container) / 100' \
       "exported_container=jupyter 0.75"
# the target's own labels are kept apart from the pods' (the Helm chart's renaming)
expect 'count(DCGM_FI_DEV_GPU_UTIL{job="dcgm-style",pod="dcgm-exporter-x7k2p",exported_pod="nb-2"})' " 1"

# 5. what users ask of pod labels: memory per pod, GPUs allocated but idle, pods per GPU, kubelet health
expect 'sum by (namespace, pod) (DCGM_FI_DEV_FB_USED{job="gpuscope", pod!=""})' \
       "namespace=team-a,pod=trainer-0 0${NL}namespace=team-b,pod=nb-1 4000${NL}namespace=team-b,pod=nb-2 6000${NL}namespace=team-c,pod=warmup 0"
expect 'count by (namespace, pod) (avg_over_time(DCGM_FI_DEV_GPU_UTIL{job="gpuscope", pod!=""}[1m]) < 5)' \
       "namespace=team-a,pod=trainer-0 1${NL}namespace=team-c,pod=warmup 1"
expect 'count by (gpu) (gpuscope_gpu_pod_info{job="gpuscope"})' "gpu=0 1${NL}gpu=1 2${NL}gpu=2 1"
expect 'gpuscope_kubelet_up{job="gpuscope"} == 1 and gpuscope_kubelet_pod_map_age_seconds{job="gpuscope"} < 30' \
       "__name__=gpuscope_kubelet_up,instance=127.0.0.1:$GS_PORT,job=gpuscope 1"

# 6. dcgm-exporter's default: one pod per GPU (on the shared one, the last the kubelet lists)
expect 'count by (gpu, pod) (DCGM_FI_DEV_POWER_USAGE{job="default", pod!=""})' \
       "gpu=0,pod=trainer-0 1${NL}gpu=1,pod=nb-2 1${NL}gpu=2,pod=warmup 1"
echo "ok: a real Prometheus answers the per-pod queries on a shared GPU (pods from a gRPC kubelet)"
