# SPDX-License-Identifier: MIT
"""gpuscope for Python scripts.

    import gpuscope
    q = gpuscope.new_query()          # gpustat's GPUStatCollection: every GPU and its processes, now
    for gpu in q:
        print(gpu.index, gpu['utilization.gpu'], gpu.memory_used, gpu.processes)
    q.print_formatted()               # gpustat's lines; q.jsonify(), q.print_json()
    snap = gpuscope.snapshot()        # gpuscope's own JSON (docs/JSON.md) as a dict

`import gpuscope as gpustat` keeps a script written for gpustat working.
Each query is one run of the gpuscope binary (found as $GPUSCOPE_BIN, where
`make install` put it, or on $PATH); nothing sleeps. docs/PYTHON.md.
"""
from . import _run
from ._gpustat import (GPUStat, GPUStatCollection, InvalidGPU, gpu_count, is_available, main, new_query,
                       print_gpustat)
from ._run import QueryError

__version__ = "1.1.1"  # the gpustat API this module follows
GPUSCOPE_API = 1


def snapshot(ids=None):
    """One snapshot in gpuscope's own schema (`gpuscope query --format json`,
    "gpuscope.snapshot/1", docs/JSON.md), as a dict: every reading with its
    unit in its key, None with a reason in "unavailable". ids: GPU indexes,
    UUIDs or PCI bus ids ("0,2", [0, 2]); None for all."""
    args = ["query", "--format", "json"]
    if ids is not None:
        args += ["-i", ids if isinstance(ids, str) else ",".join(str(i) for i in ids)]
    return _run.run_json(args, ok=(0, 5))


__all__ = ("__version__", "GPUStat", "GPUStatCollection", "InvalidGPU", "QueryError", "new_query", "gpu_count",
           "is_available", "print_gpustat", "main", "snapshot")
