#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# bench/fleet_gen.py - a bench fleet as OpenMetrics text for
# `promtool tsdb create-blocks-from openmetrics` (bench/fleet.sh):
# NODES nodes x GPUS GPUs with dcgm-exporter's names and labels (Hostname,
# gpu, UUID, modelName, namespace, pod), the first SMALL nodes labelled
# cluster="small" (the 50-node view), the rest cluster="big".
# Samples: every COARSE s over the last HOURS hours, then every FINE s from
# 30 minutes ago to 30 minutes ahead (so instant queries at "now" find data
# for half an hour after the backfill).
#   fleet_gen.py NOW NODES GPUS SMALL HOURS COARSE FINE > fleet.om
import math
import sys


def times(now, hours, coarse, fine):
    t = now - hours * 3600
    out = []
    while t < now - 1800:
        out.append(t)
        t += coarse
    t = now - 1800
    while t <= now + 1800:
        out.append(t)
        t += fine
    return out


def main():
    now, nodes, gpus, small, hours, coarse, fine = (int(a) for a in sys.argv[1:8])
    ts = times(now, hours, coarse, fine)
    fams = [
        ("DCGM_FI_DEV_GPU_UTIL", lambda n, g, t: (37 * n + 11 * g + t // 900) % 101),
        ("DCGM_FI_DEV_FB_USED", lambda n, g, t: 1000 + (n * 977 + g * 131 + t // 600) % 79000),
        ("DCGM_FI_DEV_FB_FREE", lambda n, g, t: 81000 - (1000 + (n * 977 + g * 131 + t // 600) % 79000)),
        ("DCGM_FI_DEV_GPU_TEMP", lambda n, g, t: 35 + (n + g * 3 + t // 1200) % 50),
        ("DCGM_FI_DEV_POWER_USAGE", lambda n, g, t: 80 + (n * 7 + g * 13 + t // 900) % 600),
        ("DCGM_FI_DEV_XID_ERRORS", lambda n, g, t: 79 if (n % 97 == 5 and g == 2) else 0),
    ]
    w = sys.stdout.write
    for name, f in fams:
        w("# TYPE %s gauge\n" % name)
        for n in range(nodes):
            cl = "small" if n < small else "big"
            for g in range(gpus):
                lab = ('{gpu="%d",UUID="GPU-%04d-%d",modelName="NVIDIA H100 80GB HBM3",Hostname="node-%04d",'
                       'cluster="%s",namespace="team-%d",pod="train-%d"}' % (g, n, g, n, cl, n % 20, n))
                w("".join("%s%s %d %d\n" % (name, lab, f(n, g, t), t) for t in ts))
    w("# EOF\n")


main()
