#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# promtool-rules.sh - checks the files in deploy/ that ship with `gpuscope serve`:
#   1. the alert rules: `promtool check rules` and the unit tests `promtool test rules
#      deploy/prometheus/tests/*.yml`
#   2. Grafana dashboards: valid JSON, a datasource variable every query uses, unique ids
#   3. every metric name the dashboards and rules query is one gpuscope exports
#      (a DCGM_FI_* / gpuscope_* name rendered by src/serve/ or in its tables, src/format/prom_tables.c)
#   4. Kubernetes manifests: valid YAML with the fields the deployment depends on
#      (hostPID, read-only host mounts, NVIDIA runtime class, tolerations, limits, securityContext)
#   5. the systemd unit: `systemd-analyze verify` (on a copy whose ExecStart exists here)
# Parts whose tool is missing are skipped (PyYAML for 4, systemd-analyze for 5); without
# promtool the script exits 77 (skipped) after running the other parts.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }

# 2 + 3 + 4: dashboards, metric names, Kubernetes manifests
python3 - "$ROOT" <<'PY' || fail=1
import glob, json, os, re, sys
root = sys.argv[1]
ok = True
def bad(msg):
    global ok
    ok = False
    print("FAIL:", msg)

# metric names the exporter renders
src = ""
for f in glob.glob(os.path.join(root, "src/serve/*.c")) + [os.path.join(root, "src/format/prom_tables.c")]:
    src += open(f).read()
exported = set(re.findall(r'"((?:DCGM_FI_|gpuscope_)[A-Za-z0-9_]+)', src))
# also from rules' own recordings
recorded = set()
NAME = re.compile(r'(?<![A-Za-z0-9_:])((?:DCGM_FI_[A-Z0-9_]+|gpuscope_[a-z0-9_]+))(?![A-Za-z0-9_:])')

def check_names(where, expr):
    for n in NAME.findall(expr):
        if n not in exported:
            bad(f"{where}: queries {n}, which gpuscope serve does not export")

# dashboards
uids = set()
boards = sorted(glob.glob(os.path.join(root, "deploy/grafana/*.json")))
if len(boards) < 4:
    bad(f"expected 4 dashboards in deploy/grafana, found {len(boards)}")
for path in boards:
    name = os.path.basename(path)
    try:
        d = json.load(open(path))
    except ValueError as e:
        bad(f"{name}: not valid JSON: {e}")
        continue
    for k in ("uid", "title", "panels", "templating", "schemaVersion"):
        if k not in d:
            bad(f"{name}: no '{k}'")
    if d.get("uid") in uids:
        bad(f"{name}: uid {d.get('uid')} used twice")
    uids.add(d.get("uid"))
    tv = {v.get("name"): v for v in d.get("templating", {}).get("list", [])}
    if tv.get("datasource", {}).get("type") != "datasource" or tv["datasource"].get("query") != "prometheus":
        bad(f"{name}: no Prometheus datasource variable")
    ids = set()
    for p in d.get("panels", []):
        if p.get("id") in ids:
            bad(f"{name}: panel id {p.get('id')} used twice")
        ids.add(p.get("id"))
        gp = p.get("gridPos", {})
        if not all(k in gp for k in ("x", "y", "w", "h")) or gp.get("x", 0) + gp.get("w", 0) > 24:
            bad(f"{name}: panel '{p.get('title')}' has a bad gridPos {gp}")
        if p.get("type") == "row":
            continue
        if p.get("datasource", {}).get("uid") != "${datasource}":
            bad(f"{name}: panel '{p.get('title')}' does not use the datasource variable")
        if not p.get("targets"):
            bad(f"{name}: panel '{p.get('title')}' has no query")
        for t in p.get("targets", []):
            e = t.get("expr", "")
            if not e.strip():
                bad(f"{name}: panel '{p.get('title')}' has an empty query")
            if e.count("(") != e.count(")") or e.count("{") != e.count("}"):
                bad(f"{name}: panel '{p.get('title')}': unbalanced query {e}")
            check_names(f"{name} '{p.get('title')}'", e)
    for v in tv.values():
        q = v.get("query")
        if isinstance(q, dict):
            check_names(f"{name} variable {v.get('name')}", q.get("query", ""))

# alert rules (names only; promtool checks the rest)
rules = open(os.path.join(root, "deploy/prometheus/gpuscope-alerts.yml")).read()
for line in rules.splitlines():
    if line.lstrip().startswith("#") or "summary:" in line or "description:" in line:
        continue
    check_names("gpuscope-alerts.yml", line)

# Kubernetes manifests
try:
    import yaml
except ImportError:
    yaml = None
    print("note: PyYAML not installed, Kubernetes manifests not checked")
if yaml:
    docs = []
    for path in sorted(glob.glob(os.path.join(root, "deploy/kubernetes/*.yaml"))):
        try:
            docs += [(os.path.basename(path), d) for d in yaml.safe_load_all(open(path)) if d]
        except yaml.YAMLError as e:
            bad(f"{path}: not valid YAML: {e}")
    kinds = {d["kind"]: (f, d) for f, d in docs if isinstance(d, dict) and "kind" in d}
    for f, d in docs:
        for k in ("apiVersion", "kind", "metadata"):
            if k not in d:
                bad(f"{f}: no {k}")
    for k in ("DaemonSet", "Service", "ServiceMonitor"):
        if k not in kinds:
            bad(f"deploy/kubernetes: no {k}")
    if "DaemonSet" in kinds:
        f, ds = kinds["DaemonSet"]
        spec = ds["spec"]["template"]["spec"]
        if spec.get("hostPID") is not True:
            bad(f"{f}: hostPID is not true")
        if not spec.get("runtimeClassName"):
            bad(f"{f}: no runtimeClassName")
        if not any(t.get("key") == "nvidia.com/gpu" for t in spec.get("tolerations", [])):
            bad(f"{f}: no toleration for nvidia.com/gpu")
        c = spec["containers"][0]
        if not c.get("resources", {}).get("limits", {}).get("memory"):
            bad(f"{f}: no memory limit")
        sc = c.get("securityContext", {})
        if sc.get("allowPrivilegeEscalation") is not False or sc.get("privileged"):
            bad(f"{f}: container securityContext allows privilege")
        mounts = {m["mountPath"]: m for m in c.get("volumeMounts", [])}
        for want in ("/var/lib/kubelet/pod-resources", "/host/var/log/pods"):
            if want not in mounts:
                bad(f"{f}: {want} not mounted")
            elif mounts[want].get("readOnly") is not True:
                bad(f"{f}: {want} not read-only")
        sel = ds["spec"]["selector"]["matchLabels"]
        tl = ds["spec"]["template"]["metadata"]["labels"]
        if any(tl.get(k) != v for k, v in sel.items()):
            bad(f"{f}: selector does not match the pod template's labels")
        if "Service" in kinds:
            ssel = kinds["Service"][1]["spec"]["selector"]
            if any(tl.get(k) != v for k, v in ssel.items()):
                bad("Service selector does not match the DaemonSet's pods")
        if "--listen=:9400" not in c.get("args", []):
            bad(f"{f}: not listening on :9400")
        for a in c.get("args", []):  # the kubelet's socket it names is in a mounted directory
            if a.startswith("--pod-resources-kubelet-socket=") and \
                    os.path.dirname(a.split("=", 1)[1]) not in mounts:
                bad(f"{f}: {a}: its directory is not mounted")
sys.exit(0 if ok else 1)
PY

# 5: systemd unit
if command -v systemd-analyze >/dev/null; then
    sed 's#^ExecStart=[^ ]*#ExecStart=/bin/true#' deploy/systemd/gpuscope-serve.service >"$TMP/gpuscope-serve.service"
    out=$(systemd-analyze verify "$TMP/gpuscope-serve.service" 2>&1) || bad "systemd-analyze verify: $out"
    [ -z "$out" ] || bad "systemd-analyze verify: $out"
    for k in 'ProtectSystem=strict' 'ProtectHome=yes' 'NoNewPrivileges=yes' 'PrivateTmp=yes' 'CapabilityBoundingSet=$' \
             'DeviceAllow=' 'MemoryMax=' 'Restart=on-failure' 'DynamicUser=yes'; do
        grep -q "^$k" deploy/systemd/gpuscope-serve.service || bad "gpuscope-serve.service: no $k"
    done
else
    echo "note: systemd-analyze not installed, systemd unit not verified"
fi

# 1: rules
if ! command -v promtool >/dev/null; then
    [ "$fail" = 0 ] || exit 1
    echo "SKIP: promtool not installed (dashboards and manifests passed)"
    exit 77
fi
promtool check rules deploy/prometheus/gpuscope-alerts.yml >"$TMP/check.txt" 2>&1 || bad "promtool check rules: $(cat "$TMP/check.txt")"
for t in deploy/prometheus/tests/*.yml; do
    promtool test rules "$t" >"$TMP/test.txt" 2>&1 || bad "promtool test rules $t: $(cat "$TMP/test.txt")"
done
[ "$fail" = 0 ] || exit 1
echo "ok: alert rules (check + unit tests), $(ls deploy/grafana/*.json | wc -l) dashboards, Kubernetes manifests, systemd unit"
