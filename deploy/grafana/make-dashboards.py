#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""make-dashboards.py - writes the Grafana dashboards for `gpuscope serve` (deploy/grafana/*.json).

The JSON files are committed; edit this script and rerun it (python3 make-dashboards.py) rather
than editing the JSON by hand, so the four dashboards keep the same variables and style.
Every dashboard has a `datasource` variable (any Prometheus) and `instance` / `gpu` variables
read from gpuscope_gpu_up, so they import on any Grafana >= 9 without editing.
"""
import json
import os

DS = {"type": "prometheus", "uid": "${datasource}"}
SEL = 'instance=~"$instance", gpu=~"$gpu"'
OUT = os.path.dirname(os.path.abspath(__file__))


def variables(gpu_multi=True, with_namespace=False):
    v = [
        {"name": "datasource", "label": "Data source", "type": "datasource", "query": "prometheus",
         "current": {}, "hide": 0, "refresh": 1, "options": []},
        {"name": "instance", "label": "Node", "type": "query", "datasource": DS,
         "query": {"query": "label_values(gpuscope_gpu_up, instance)", "refId": "instance"},
         "definition": "label_values(gpuscope_gpu_up, instance)", "refresh": 2, "sort": 1,
         "multi": gpu_multi, "includeAll": gpu_multi, "current": {}, "options": [], "hide": 0},
        {"name": "gpu", "label": "GPU", "type": "query", "datasource": DS,
         "query": {"query": 'label_values(gpuscope_gpu_up{instance=~"$instance"}, gpu)', "refId": "gpu"},
         "definition": 'label_values(gpuscope_gpu_up{instance=~"$instance"}, gpu)', "refresh": 2, "sort": 3,
         "multi": gpu_multi, "includeAll": gpu_multi, "current": {}, "options": [], "hide": 0},
    ]
    if with_namespace:
        v.append({"name": "namespace", "label": "Namespace", "type": "query", "datasource": DS,
                  "query": {"query": 'label_values(gpuscope_process_memory_bytes{instance=~"$instance"}, namespace)',
                            "refId": "namespace"},
                  "definition": 'label_values(gpuscope_process_memory_bytes{instance=~"$instance"}, namespace)',
                  "refresh": 2, "sort": 1, "multi": True, "includeAll": True, "allValue": ".*",
                  "current": {}, "options": [], "hide": 0})
    return v


class Board:
    def __init__(self, uid, title, description, tags, **var_kw):
        self.d = {
            "uid": uid, "title": title, "description": description, "tags": ["gpuscope", "gpu"] + tags,
            "editable": True, "graphTooltip": 1, "schemaVersion": 39, "version": 1,
            "time": {"from": "now-1h", "to": "now"}, "refresh": "30s", "timezone": "",
            "templating": {"list": variables(**var_kw)},
            "annotations": {"list": [{
                "name": "Critical Xids", "enable": True, "iconColor": "red", "datasource": DS,
                "expr": 'changes(gpuscope_xid_errors_total{instance=~"$instance"}[2m]) > 0',
                "titleFormat": "Xid {{xid}} on GPU {{gpu}}", "textFormat": "{{instance}}", "step": "1m"}]},
            "links": [{"title": "gpuscope dashboards", "type": "dashboards", "tags": ["gpuscope"],
                       "asDropdown": True, "includeVars": True, "keepTime": True}],
            "panels": [],
        }
        self.x = self.y = 0
        self.row_h = 0
        self.next_id = 1

    def _place(self, w, h):
        if self.x + w > 24:
            self.x, self.y = 0, self.y + self.row_h
            self.row_h = 0
        pos = {"x": self.x, "y": self.y, "w": w, "h": h}
        self.x += w
        self.row_h = max(self.row_h, h)
        return pos

    def row(self, title):
        if self.x:
            self.x, self.y, self.row_h = 0, self.y + self.row_h, 0
        self.d["panels"].append({"id": self.next_id, "type": "row", "title": title, "collapsed": False,
                                 "gridPos": {"x": 0, "y": self.y, "w": 24, "h": 1}, "panels": []})
        self.next_id += 1
        self.y += 1

    def panel(self, ptype, title, targets, w=12, h=8, unit="short", desc="", **extra):
        tg = []
        for i, t in enumerate(targets):
            expr, legend = t if isinstance(t, tuple) else (t, "")
            q = {"refId": chr(ord("A") + i), "datasource": DS, "expr": expr, "legendFormat": legend or "__auto"}
            if ptype in ("table",):
                q.update({"instant": True, "format": "table", "range": False})
            tg.append(q)
        p = {"id": self.next_id, "type": ptype, "title": title, "description": desc, "datasource": DS,
             "gridPos": self._place(w, h), "targets": tg,
             "fieldConfig": {"defaults": {"unit": unit}, "overrides": []}, "options": {}}
        self.next_id += 1
        fd = p["fieldConfig"]["defaults"]
        for k in ("min", "max", "decimals"):
            if k in extra:
                fd[k] = extra.pop(k)
        if "thresholds" in extra:
            fd["thresholds"] = {"mode": "absolute", "steps": extra.pop("thresholds")}
            fd["color"] = {"mode": "thresholds"}
        if "mappings" in extra:
            fd["mappings"] = extra.pop("mappings")
        if ptype == "timeseries":
            fd["custom"] = {"drawStyle": "line", "lineWidth": 1, "fillOpacity": 10, "showPoints": "never",
                            "spanNulls": False}
            p["options"] = {"legend": {"displayMode": "table", "placement": "right", "calcs": ["mean", "max", "lastNotNull"]},
                            "tooltip": {"mode": "multi", "sort": "desc"}}
        elif ptype == "stat":
            p["options"] = {"reduceOptions": {"calcs": ["lastNotNull"], "fields": "", "values": False},
                            "colorMode": "background", "graphMode": "none", "textMode": "auto"}
        elif ptype == "state-timeline":
            p["options"] = {"showValue": "never", "mergeValues": True, "rowHeight": 0.8,
                            "legend": {"displayMode": "list", "placement": "bottom"}}
        elif ptype == "table":
            p["options"] = {"showHeader": True, "footer": {"show": False}}
            if "organize" in extra:
                p["transformations"] = [{"id": "merge", "options": {}},
                                        {"id": "organize", "options": extra.pop("organize")}]
        p.update(extra)
        self.d["panels"].append(p)

    def write(self, name):
        with open(os.path.join(OUT, name), "w") as f:
            json.dump(self.d, f, indent=2)
            f.write("\n")


OK_RED = [{"color": "red", "value": None}, {"color": "green", "value": 1}]
GREEN_RED = [{"color": "green", "value": None}, {"color": "red", "value": 1}]


def fleet():
    b = Board("gpuscope-fleet", "GPU fleet overview (gpuscope)",
              "Every node running gpuscope serve: GPUs up, utilization, memory, power, temperature, faults.", ["fleet"])
    b.panel("stat", "Nodes", ['count(count by (instance) (gpuscope_gpu_up{instance=~"$instance"}))'], w=4, h=4)
    b.panel("stat", "GPUs up", [f'sum(gpuscope_gpu_up{{{SEL}}})'], w=4, h=4)
    b.panel("stat", "GPUs down", [f'count(gpuscope_gpu_up{{{SEL}}} == 0) or vector(0)'], w=4, h=4, thresholds=GREEN_RED)
    b.panel("stat", "Mean GPU utilization", [f'avg(DCGM_FI_DEV_GPU_UTIL{{{SEL}}})'], w=4, h=4, unit="percent", min=0, max=100)
    b.panel("stat", "Power draw", [f'sum(DCGM_FI_DEV_POWER_USAGE{{{SEL}}})'], w=4, h=4, unit="watt")
    b.panel("stat", "Critical alerts", ['count(ALERTS{alertstate="firing", severity="critical", instance=~"$instance"}) or vector(0)'],
            w=4, h=4, thresholds=GREEN_RED, desc="Firing gpuscope alerts of severity critical (needs the rules in deploy/prometheus).")
    b.row("Load")
    b.panel("timeseries", "GPU utilization by node (mean)", [(f'avg by (instance) (DCGM_FI_DEV_GPU_UTIL{{{SEL}}})', "{{instance}}")],
            unit="percent", min=0, max=100)
    b.panel("timeseries", "Memory used by node", [(f'sum by (instance) (DCGM_FI_DEV_FB_USED{{{SEL}}}) / sum by (instance) '
                                                   f'(DCGM_FI_DEV_FB_USED{{{SEL}}} + DCGM_FI_DEV_FB_FREE{{{SEL}}} + DCGM_FI_DEV_FB_RESERVED{{{SEL}}})',
                                                   "{{instance}}")], unit="percentunit", min=0, max=1)
    b.panel("timeseries", "Power by node", [(f'sum by (instance) (DCGM_FI_DEV_POWER_USAGE{{{SEL}}})', "{{instance}}")], unit="watt")
    b.panel("timeseries", "Hottest GPU by node", [(f'max by (instance) (DCGM_FI_DEV_GPU_TEMP{{{SEL}}})', "{{instance}}")], unit="celsius")
    b.row("Every GPU")
    b.panel("table", "GPUs", [
        (f'gpuscope_gpu_info{{{SEL}}}', ""),
        (f'gpuscope_gpu_up{{{SEL}}}', ""),
        (f'DCGM_FI_DEV_GPU_UTIL{{{SEL}}}', ""),
        (f'DCGM_FI_DEV_GPU_TEMP{{{SEL}}}', ""),
        (f'DCGM_FI_DEV_POWER_USAGE{{{SEL}}}', ""),
        (f'gpuscope_gpu_processes{{{SEL}}}', ""),
    ], w=24, h=10, organize={"excludeByName": {"Time": True, "Value #A": True, "__name__": True, "job": True, "UUID": True,
                                                  "device": True, "modelName": True, "Hostname": True, "hostname": True,
                                                  "DCGM_FI_DRIVER_VERSION": True, "pci_bus_id": True, "serial": True, "vbios": True},
                             "renameByName": {"Value #B": "up", "Value #C": "util %", "Value #D": "temp C",
                                              "Value #E": "power W", "Value #F": "processes"}})
    b.row("Faults")
    b.panel("timeseries", "Xid events (per code)", [(f'sum by (instance, gpu, xid) (increase(gpuscope_xid_errors_total{{{SEL}}}[$__rate_interval]))',
                                                     "{{instance}} GPU {{gpu}} Xid {{xid}}")], unit="short",
            desc="Xid events per code (gpuscope_xid_errors_total); any code in 46|48|62|64|74|79|95|119|120|140 pages.")
    b.panel("timeseries", "GPUs throttled for heat or by hardware", [
        (f'sum by (instance, reason) (gpuscope_throttle_reason_active{{{SEL}, reason=~"hw_thermal|sw_thermal|hw_slowdown|hw_power_brake"}})',
         "{{instance}} {{reason}}")], unit="short")
    b.write("gpuscope-fleet.json")


def one_gpu():
    b = Board("gpuscope-gpu", "One GPU (gpuscope)",
              "A single GPU in detail: load, clocks against their maximum, memory, temperature against its slowdown "
              "threshold, power against its limit, throttle reasons, PCIe, ECC and its processes.", ["gpu"],
              gpu_multi=False)
    s = 'instance="$instance", gpu="$gpu"'
    b.panel("stat", "Model", [(f'gpuscope_gpu_info{{{s}}}', "{{name}}")], w=6, h=4, unit="none")
    b.d["panels"][-1]["options"]["textMode"] = "name"
    b.panel("stat", "Up", [f'gpuscope_gpu_up{{{s}}}'], w=3, h=4, thresholds=OK_RED,
            mappings=[{"type": "value", "options": {"0": {"text": "LOST"}, "1": {"text": "UP"}}}])
    b.panel("stat", "Utilization", [f'DCGM_FI_DEV_GPU_UTIL{{{s}}}'], w=3, h=4, unit="percent")
    b.panel("stat", "Temperature", [f'DCGM_FI_DEV_GPU_TEMP{{{s}}}'], w=3, h=4, unit="celsius")
    b.panel("stat", "Power", [f'DCGM_FI_DEV_POWER_USAGE{{{s}}}'], w=3, h=4, unit="watt")
    b.panel("stat", "Memory used", [f'DCGM_FI_DEV_FB_USED{{{s}}} * 1048576'], w=3, h=4, unit="bytes")
    b.panel("stat", "Processes", [f'gpuscope_gpu_processes{{{s}}}'], w=3, h=4)
    b.panel("timeseries", "Utilization", [(f'DCGM_FI_DEV_GPU_UTIL{{{s}}}', "GPU"), (f'DCGM_FI_DEV_MEM_COPY_UTIL{{{s}}}', "memory"),
                                          (f'DCGM_FI_DEV_ENC_UTIL{{{s}}}', "encoder"), (f'DCGM_FI_DEV_DEC_UTIL{{{s}}}', "decoder")],
            unit="percent", min=0, max=100)
    b.panel("timeseries", "Memory", [(f'DCGM_FI_DEV_FB_USED{{{s}}} * 1048576', "used"),
                                     (f'DCGM_FI_DEV_FB_RESERVED{{{s}}} * 1048576', "reserved"),
                                     (f'gpuscope_memory_total_bytes{{{s}}}', "total")], unit="bytes", min=0)
    b.panel("timeseries", "Temperature", [(f'DCGM_FI_DEV_GPU_TEMP{{{s}}}', "GPU"), (f'DCGM_FI_DEV_MEMORY_TEMP{{{s}}}', "memory"),
                                          (f'DCGM_FI_DEV_SLOWDOWN_TEMP{{{s}}}', "slowdown threshold"),
                                          (f'gpuscope_temperature_shutdown_celsius{{{s}}}', "shutdown threshold")], unit="celsius")
    b.panel("timeseries", "Power", [(f'DCGM_FI_DEV_POWER_USAGE{{{s}}}', "draw"),
                                    (f'gpuscope_power_enforced_limit_watts{{{s}}}', "enforced limit")], unit="watt", min=0)
    b.panel("timeseries", "Clocks", [(f'DCGM_FI_DEV_SM_CLOCK{{{s}}} * 1e6', "SM"), (f'DCGM_FI_DEV_MEM_CLOCK{{{s}}} * 1e6', "memory"),
                                     (f'gpuscope_clock_max_sm_hertz{{{s}}}', "SM max")], unit="hertz")
    b.panel("state-timeline", "Throttle reasons", [(f'gpuscope_throttle_reason_active{{{s}}}', "{{reason}}")], unit="none",
            thresholds=[{"color": "transparent", "value": None}, {"color": "orange", "value": 1}],
            mappings=[{"type": "value", "options": {"0": {"text": "-"}, "1": {"text": "active"}}}])
    b.panel("timeseries", "PCIe throughput", [(f'gpuscope_pcie_tx_bytes_per_second{{{s}}}', "tx"),
                                              (f'gpuscope_pcie_rx_bytes_per_second{{{s}}}', "rx")], unit="Bps")
    b.panel("timeseries", "Errors", [(f'increase(DCGM_FI_DEV_ECC_SBE_VOL_TOTAL{{{s}}}[$__rate_interval])', "ECC corrected"),
                                     (f'increase(DCGM_FI_DEV_ECC_DBE_VOL_TOTAL{{{s}}}[$__rate_interval])', "ECC uncorrected"),
                                     (f'increase(DCGM_FI_DEV_PCIE_REPLAY_COUNTER{{{s}}}[$__rate_interval])', "PCIe replays"),
                                     (f'increase(gpuscope_xid_errors_total{{{s}}}[$__rate_interval])', "Xid {{xid}}")], unit="short")
    b.panel("table", "Processes", [(f'gpuscope_process_memory_bytes{{{s}}}', ""), (f'gpuscope_process_sm_utilization_ratio{{{s}}}', "")],
            w=24, h=8, organize={"excludeByName": {"Time": True, "__name__": True, "job": True, "instance": True, "gpu": True, "uuid": True},
                                 "renameByName": {"Value #A": "GPU memory", "Value #B": "SM utilization"}})
    b.write("gpuscope-gpu.json")


def processes():
    b = Board("gpuscope-processes", "GPU processes and pods (gpuscope)",
              "Who uses the GPUs: per-process memory and utilization from gpuscope_process_*, summed by Kubernetes "
              "namespace and pod, and the pods the kubelet gave each GPU (DCGM labels and gpuscope_gpu_pod_info come "
              "from its pod-resources socket; per-process pod labels need hostPID and /var/log/pods, see "
              "docs/SERVE.md).", ["processes", "kubernetes"],
              with_namespace=True)
    s = f'{SEL}, namespace=~"$namespace"'
    b.panel("stat", "Processes", [f'count(gpuscope_process_memory_bytes{{{s}}})'], w=6, h=4)
    b.panel("stat", "Pods on GPUs", [f'count(count by (namespace, pod) (gpuscope_process_memory_bytes{{{s}, pod!=""}}))'], w=6, h=4)
    b.panel("stat", "GPU memory held by processes", [f'sum(gpuscope_process_memory_bytes{{{s}}})'], w=6, h=4, unit="bytes")
    b.panel("stat", "Idle GPUs with processes", [
        f'count((avg_over_time(DCGM_FI_DEV_GPU_UTIL{{{SEL}}}[30m]) < 5) and on(instance, gpu) (gpuscope_gpu_processes{{{SEL}}} > 0)) or vector(0)'],
        w=6, h=4, desc="GPUs held by a process but under 5 % utilized for 30 minutes.",
        thresholds=[{"color": "green", "value": None}, {"color": "orange", "value": 1}])
    b.panel("timeseries", "GPU memory by pod", [(f'sum by (namespace, pod) (gpuscope_process_memory_bytes{{{s}, pod!=""}})',
                                                 "{{namespace}}/{{pod}}")], unit="bytes", min=0)
    b.panel("timeseries", "SM utilization by pod (sum over its GPUs)", [
        (f'sum by (namespace, pod) (gpuscope_process_sm_utilization_ratio{{{s}, pod!=""}})', "{{namespace}}/{{pod}}")],
        unit="percentunit", min=0)
    b.panel("timeseries", "GPU memory by namespace", [(f'sum by (namespace) (gpuscope_process_memory_bytes{{{s}}})', "{{namespace}}")],
            unit="bytes", min=0)
    b.panel("timeseries", "GPU memory by user", [(f'sum by (user) (gpuscope_process_memory_bytes{{{s}}})', "{{user}}")],
            unit="bytes", min=0)
    b.panel("table", "Processes", [(f'gpuscope_process_memory_bytes{{{s}}}', ""),
                                   (f'gpuscope_process_sm_utilization_ratio{{{s}}}', ""),
                                   (f'gpuscope_process_memory_utilization_ratio{{{s}}}', "")],
            w=24, h=12, organize={"excludeByName": {"Time": True, "__name__": True, "job": True, "uuid": True},
                                  "renameByName": {"Value #A": "GPU memory", "Value #B": "SM util", "Value #C": "mem util"}},
            desc="One row per (GPU, process); pod and namespace are empty outside Kubernetes.")
    b.panel("table", "Pods on each GPU (DCGM labels)", [(f'DCGM_FI_DEV_FB_USED{{{SEL}, pod!=""}}', "")], w=24, h=8,
            organize={"excludeByName": {"Time": True, "__name__": True, "job": True, "UUID": True, "pci_bus_id": True,
                                        "DCGM_FI_DRIVER_VERSION": True, "device": True},
                      "renameByName": {"Value": "FB used MiB"}},
            desc="The pod/namespace/container labels gpuscope puts on DCGM series, as dcgm-exporter does (exported_pod "
                 "etc. when the scrape does not honor labels).")
    # pods from the kubelet (issue 10b): every pod holding each GPU, shared GPUs included
    b.panel("timeseries", "GPU utilization by pod (DCGM labels)", [
        (f'sum by (namespace, pod) (DCGM_FI_DEV_GPU_UTIL{{{s}, pod!=""}})', "{{namespace}}/{{pod}}")], unit="percent", min=0,
        desc="On a GPU shared by several pods (time-slicing, MPS), each pod's own share needs --kubernetes-virtual-gpus; "
             "otherwise the GPU's value is labelled with one of its pods, as dcgm-exporter does.")
    b.panel("stat", "Kubelet pod-resources up", [f'min(gpuscope_kubelet_up{{instance=~"$instance"}})'], w=6, h=4,
            mappings=[{"type": "value", "options": {"0": {"text": "down"}, "1": {"text": "up"}}}],
            thresholds=[{"color": "red", "value": None}, {"color": "green", "value": 1}],
            desc="Whether the latest List call to the kubelet's pod-resources socket succeeded (no data: not read).")
    b.panel("stat", "Pod map age", [f'max(gpuscope_kubelet_pod_map_age_seconds{{instance=~"$instance"}})'], w=6, h=4,
            unit="s", thresholds=[{"color": "green", "value": None}, {"color": "orange", "value": 60}],
            desc="Age of the kubelet answer the labels come from; it grows while the kubelet does not answer.")
    b.panel("table", "Pods holding each GPU (kubelet)", [(f'gpuscope_gpu_pod_info{{{SEL}, namespace=~"$namespace"}}', "")],
            w=12, h=8, organize={"excludeByName": {"Time": True, "__name__": True, "job": True, "uuid": True, "Value": True}},
            desc="Every container the kubelet allocated each GPU to (vgpu: its replica of a shared GPU); from the GPU's "
                 "processes when the kubelet's socket is not there (source).")
    b.write("gpuscope-processes.json")


def health():
    b = Board("gpuscope-health", "GPU health (gpuscope)",
              "Faults and wear: Xid events, lost GPUs, ECC, row remapping, throttling, temperature margin, PCIe replays, "
              "and the exporter's own health.", ["health"])
    b.panel("stat", "GPUs down", [f'count(gpuscope_gpu_up{{{SEL}}} == 0) or vector(0)'], w=4, h=4, thresholds=GREEN_RED)
    b.panel("stat", "Xid events (range)", [f'sum(increase(gpuscope_xid_errors_total{{{SEL}}}[$__range])) or vector(0)'], w=4, h=4,
            thresholds=[{"color": "green", "value": None}, {"color": "orange", "value": 1}])
    b.panel("stat", "Uncorrectable ECC (range)", [f'sum(increase(DCGM_FI_DEV_ECC_DBE_VOL_TOTAL{{{SEL}}}[$__range])) or vector(0)'],
            w=4, h=4, thresholds=GREEN_RED)
    b.panel("stat", "Row remap pending", [f'sum(DCGM_FI_DEV_ROW_REMAP_PENDING{{{SEL}}}) or vector(0)'], w=4, h=4,
            thresholds=[{"color": "green", "value": None}, {"color": "orange", "value": 1}])
    b.panel("stat", "Row remap failed", [f'sum(DCGM_FI_DEV_ROW_REMAP_FAILURE{{{SEL}}}) or vector(0)'], w=4, h=4, thresholds=GREEN_RED)
    b.panel("stat", "Firing GPU alerts", ['count(ALERTS{alertstate="firing", instance=~"$instance"}) or vector(0)'], w=4, h=4,
            thresholds=[{"color": "green", "value": None}, {"color": "orange", "value": 1}])
    b.panel("state-timeline", "GPU up", [(f'gpuscope_gpu_up{{{SEL}}}', "{{instance}} GPU {{gpu}}")], w=24, h=6, unit="none",
            thresholds=OK_RED, mappings=[{"type": "value", "options": {"0": {"text": "lost"}, "1": {"text": "up"}}}])
    b.panel("table", "Xid events by code (range)", [(f'sum by (instance, gpu, xid) (increase(gpuscope_xid_errors_total{{{SEL}}}[$__range])) > 0', "")],
            organize={"excludeByName": {"Time": True}, "renameByName": {"Value": "events"}})
    b.panel("table", "Last Xid per GPU (DCGM_FI_DEV_XID_ERRORS)", [(f'DCGM_FI_DEV_XID_ERRORS{{{SEL}}} > 0', "")],
            organize={"excludeByName": {"Time": True, "__name__": True, "job": True, "UUID": True, "pci_bus_id": True, "device": True,
                                        "modelName": True, "DCGM_FI_DRIVER_VERSION": True, "Hostname": True, "hostname": True},
                      "renameByName": {"Value": "last Xid"}})
    b.panel("timeseries", "Temperature margin to slowdown", [
        (f'DCGM_FI_DEV_SLOWDOWN_TEMP{{{SEL}}} - on(instance, gpu) DCGM_FI_DEV_GPU_TEMP{{{SEL}}}', "{{instance}} GPU {{gpu}}")],
        unit="celsius", desc="Degrees left before the GPU slows itself down; the alert fires under 5.",
        thresholds=[{"color": "red", "value": None}, {"color": "orange", "value": 5}, {"color": "green", "value": 10}])
    b.panel("timeseries", "Throttle reasons active", [
        (f'gpuscope_throttle_reason_active{{{SEL}, reason!~"gpu_idle|clocks_setting"}} == 1', "{{instance}} GPU {{gpu}} {{reason}}")],
        unit="short")
    b.panel("timeseries", "ECC errors", [
        (f'increase(DCGM_FI_DEV_ECC_SBE_VOL_TOTAL{{{SEL}}}[$__rate_interval])', "{{instance}} GPU {{gpu}} corrected"),
        (f'increase(DCGM_FI_DEV_ECC_DBE_VOL_TOTAL{{{SEL}}}[$__rate_interval])', "{{instance}} GPU {{gpu}} uncorrected")], unit="short")
    b.panel("timeseries", "Remapped rows", [
        (f'DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS{{{SEL}}}', "{{instance}} GPU {{gpu}} correctable"),
        (f'DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS{{{SEL}}}', "{{instance}} GPU {{gpu}} uncorrectable")], unit="short")
    b.panel("timeseries", "PCIe replays", [
        (f'increase(DCGM_FI_DEV_PCIE_REPLAY_COUNTER{{{SEL}}}[$__rate_interval])', "{{instance}} GPU {{gpu}}")], unit="short")
    b.panel("timeseries", "Fields without a value", [
        (f'gpuscope_gpu_unavailable_fields{{{SEL}, status!="not_supported"}} > 0', "{{instance}} GPU {{gpu}} {{status}}")],
        unit="short", desc="Sample fields the driver did not answer (no_permission, gpu_lost, error).")
    b.row("Exporter")
    b.panel("timeseries", "Sample age", [(f'gpuscope_exporter_last_sample_age_seconds{{instance=~"$instance"}}', "{{instance}}")],
            unit="s", w=8)
    b.panel("timeseries", "Sample duration", [(f'gpuscope_exporter_sample_duration_seconds{{instance=~"$instance"}}', "{{instance}}")],
            unit="s", w=8)
    b.panel("timeseries", "Scrape duration", [(f'scrape_duration_seconds{{instance=~"$instance"}}', "{{instance}}")], unit="s", w=8)
    b.write("gpuscope-health.json")


if __name__ == "__main__":
    fleet()
    one_gpu()
    processes()
    health()
