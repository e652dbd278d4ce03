# SPDX-License-Identifier: MIT
# A script of the kind ML engineers write against gpustat's Python API (pick the freest GPU, wait for
# memory, log usage), written here the way such scripts use it; run by tests/cli/1212 with
# `import gpuscope as gpustat` (the only line a gpustat user changes) and with a gpustat shim.
import sys

if sys.argv[1:2] == ["--as-gpuscope"]:
    import gpuscope as gpustat
else:
    import gpustat  # the shim of tests/python/shim: gpuscope under gpustat's name

stats = gpustat.new_query()
print("host:", bool(stats.hostname), "driver:", stats.driver_version, "gpus:", len(stats))
free = sorted(stats, key=lambda g: (len(g.processes or []), g.memory_used))
best = free[0]
print("freest GPU: %d (%s, %d MB used of %d)" % (best.index, best.name, best.memory_used, best.memory_total))
need_mb = 4 * 1024
ok = [g.index for g in stats.gpus if g.memory_free > need_mb]
print("GPUs with %d MB free:" % need_mb, ",".join(map(str, ok)) or "none")
for g in gpustat.GPUStatCollection.new_query():
    users = sorted({p["username"] for p in (g.processes or [])})
    print("[%d] util=%s%% mem=%d/%d users=%s" % (g.index, g["utilization.gpu"], g.memory_used, g.memory_total,
                                               ",".join(users) or "-"))
item = stats.jsonify()["gpus"][0]
print("{}/{}".format(item["memory.used"], item["memory.total"]))
