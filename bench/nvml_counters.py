# SPDX-License-Identifier: MIT
# bench/nvml_counters.py - read the simulator's live call counters
# (GPUSCOPE_SIM_COUNTERS=PATH, docs/SIMULATOR.md): 64-byte records, a
# NUL-padded name of 48 bytes then a native unsigned 64-bit count.
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
