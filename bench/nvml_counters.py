# SPDX-License-Identifier: MIT
# bench/nvml_counters.py - read the simulator's live call counters
# (GPUSCOPE_SIM_COUNTERS=PATH, docs/SIMULATOR.md): 64-byte records, a
# NUL-padded name of 48 bytes then a native unsigned 64-bit count.
#
# reaches_driver(): whether a call reaches the driver, in the cost model's
# classes (sim/sim_cost.c): the SIM_COST_LIB functions are answered by the
# library from what it holds (nvmlErrorString, handles and counts since init,
# event-set bookkeeping, GPM sample buffers) and nvmlGpmMetricsGet, which
# NVIDIA's NVML API reference (GPM Functions) describes as "Calculate GPM
# metrics from two samples": it takes no device, only the two samples that
# nvmlGpmSampleGet read from the GPU. The list is read from sim_cost.c itself,
# so the bench and the cost model cannot disagree.
import os
import re
import struct

REC = struct.Struct("=48sQQ")


def read(path):
    """{symbol: calls} as the file holds them now ({} if it does not exist yet)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return {}
    out = {}
    for off in range(0, len(data) - REC.size + 1, REC.size):
        name, count, _ = REC.unpack_from(data, off)
        name = name.split(b"\0", 1)[0].decode()
        if name:
            out[name] = count
    return out


def delta(after, before):
    """Calls per symbol between two reads (symbols with no calls left out)."""
    return {k: v - before.get(k, 0) for k, v in after.items() if v - before.get(k, 0) > 0}


def lib_answered(root):
    """Name prefixes of the functions sim/sim_cost.c classes SIM_COST_LIB."""
    path = os.path.join(root, "sim", "sim_cost.c")
    with open(path, encoding="utf-8") as f:
        m = re.search(r"static const char \*const lib\[\] = \{(.*?)\};", f.read(), re.S)
    if not m:
        raise SystemExit(f"{path}: the SIM_COST_LIB list (static const char *const lib[]) is not there")
    return tuple(re.findall(r'"([^"]+)"', m.group(1)))


def reaches_driver(name, lib):
    """As sim_cost_classify: a SIM_COST_LIB prefix, except nvmlEventSetWait*, is the library's."""
    return name.startswith("nvmlEventSetWait") or not name.startswith(lib)
