# SPDX-License-Identifier: MIT
# 2200-fakecuda.py - a test double of the CUDA-specific calls of PyTorch that
# gpuscope's Python hook makes (torch.cuda.is_initialized, device_count,
# memory_stats, get_device_properties), installed over the real torch module of
# Debian's python3-torch (a CPU build, where CUDA is never initialized). It keeps
# the figures of a caching allocator that the test drives: alloc() and free()
# move bytes between allocated and the cache (reserved grows in 20 MiB segments
# and never shrinks, as PyTorch's does without empty_cache()), fragment() marks
# cached bytes as inactive split blocks, retry() and oom() count what the real
# allocator counts. Load with importlib (the file name is not a module name):
#   spec = importlib.util.spec_from_file_location("fakecuda", PATH); ...
import types

SEGMENT = 20 << 20


class Device:
    def __init__(self, name, uuid):
        self.name, self.uuid = name, uuid
        self.allocated = self.reserved = self.inactive = 0
        self.peak_allocated = self.peak_reserved = 0
        self.retries = self.ooms = 0

    def alloc(self, n):
        self.allocated += n
        while self.reserved < self.allocated:
            self.reserved += SEGMENT
        self.inactive = min(self.inactive, self.reserved - self.allocated)
        self.peak_allocated = max(self.peak_allocated, self.allocated)
        self.peak_reserved = max(self.peak_reserved, self.reserved)

    def free(self, n):
        self.allocated -= min(n, self.allocated)

    def fragment(self, n):
        self.inactive = min(self.inactive + n, self.reserved - self.allocated)

    def stats(self):
        return {"allocated_bytes.all.current": self.allocated, "allocated_bytes.all.peak": self.peak_allocated,
                "reserved_bytes.all.current": self.reserved, "reserved_bytes.all.peak": self.peak_reserved,
                "inactive_split_bytes.all.current": self.inactive, "num_alloc_retries": self.retries,
                "num_ooms": self.ooms, "active_bytes.all.current": self.allocated}


class FakeCuda:
    def __init__(self, devices):
        self.devices = devices
        self.initialized = True
        self.fail = None  # an exception memory_stats raises, to see that the hook survives it

    def install(self, torch):
        cuda = torch.cuda
        cuda.is_initialized = lambda: self.initialized
        cuda.device_count = lambda: len(self.devices)

        def memory_stats(device=None):
            if self.fail:
                raise self.fail
            return dict(self.devices[device or 0].stats())
        cuda.memory_stats = memory_stats
        cuda.get_device_properties = lambda i: types.SimpleNamespace(
            name=self.devices[i].name, uuid=self.devices[i].uuid, total_memory=80 << 30)
        return self


def install(torch, devices):
    """devices: [(name, uuid or None)]; returns the FakeCuda (its .devices to drive)."""
    return FakeCuda([Device(n, u) for n, u in devices]).install(torch)
