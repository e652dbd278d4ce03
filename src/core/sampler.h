/* SPDX-License-Identifier: MIT */
/*
 * sampler.h - the one place that reads GPUs. Every command takes snapshots
 * from a gs_sampler; none of them talks to NVML (or /proc) itself.
 *
 *   struct gs_sampler *s;
 *   struct gs_err err;
 *   struct gs_sampler_opts o = GS_SAMPLER_OPTS_INIT;
 *   if (gs_sampler_open(&s, &o, &err) < 0) { gs_err_print(&err); ... }
 *   struct gs_snapshot snap; gs_snapshot_init(&snap);
 *   while (...) gs_sampler_snapshot(s, &snap, &err);   // one NVML pass per call
 *   gs_snapshot_release(&snap); gs_sampler_close(s);
 *
 * The sampler is not thread-safe: one thread drives it. (serve and top run it
 * on a background thread and hand copies of the snapshot to readers.)
 */
#ifndef GS_SAMPLER_H
#define GS_SAMPLER_H

#include <stdbool.h>
#include <stdint.h>

#include "core/err.h"
#include "core/model.h"

/* How to read slow fields (PCIe TX/RX throughput: ~20 ms per call per
 * direction on real hardware, so 320 ms per tick on 8 GPUs if done inline). */
enum gs_slow_mode {
    GS_SLOW_SKIP = 0,   /* never read them: status GS_ST_NOT_SAMPLED */
    GS_SLOW_INLINE,     /* read them during the snapshot (one-shot commands) */
    GS_SLOW_THREAD,     /* a worker thread refreshes them; snapshots copy the latest */
};

struct gs_sampler_opts {
    const char *nvml_lib;        /* NULL: $GPUSCOPE_NVML_LIB, then libnvidia-ml.so.1, libnvidia-ml.so */
    const char *proc_root;       /* NULL: $GPUSCOPE_PROC_ROOT, then "/proc" */
    struct gs_fmask want;        /* GS_F_* bits to read; empty means gs_fmask_default() (see want_none) */
    bool want_none;              /* read no per-tick field at all (process lists only) */
    bool want_static;            /* read static facts (always true in practice) */
    bool want_procs;             /* read process lists */
    bool want_host;              /* enrich processes from /proc */
    enum gs_slow_mode slow;
    uint32_t slow_interval_ms;   /* GS_SLOW_THREAD refresh period (default 1000) */
    const char *only_ids;        /* "-i" selection: indexes, UUIDs or PCI bus ids, comma-separated; NULL = all */
    int pyhook;                  /* enum gs_pyhook_mode (core/pyhook.h): ask the Python hook of GPU
                                  * processes for PyTorch's allocator figures; 0 = off */
    bool once;                   /* one snapshot only (one-shot query): skip what serves a next one */
    uint32_t host_want;          /* with once: host fields (1 << GS_P_x) the output prints; 0 = all */
    /* -- the fleet: one backend given by the command instead of the registry's (the
     * Prometheus backend of fleet.so, docs/FLEET.md), and what its init takes -- */
    const struct gs_backend *backend;
    const void *backend_arg;
    struct gs_fmask every_tick;  /* slow-changing fields (PCIe link, ECC...) to read at every snapshot instead
                                  * of on the backend's read schedule (doctor: the PCIe link under load) */
};

#define GS_SAMPLER_OPTS_INIT                                                              \
    {                                                                                     \
        .nvml_lib = NULL, .proc_root = NULL, .want = { { 0 } }, .want_none = false,        \
        .want_static = true,                                                              \
        .want_procs = true, .want_host = true, .slow = GS_SLOW_INLINE,                    \
        .slow_interval_ms = 1000, .only_ids = NULL, .once = false, .host_want = 0,       \
        .every_tick = { { 0 } }                                                          \
    }

struct gs_sampler;

/* Load the backend, discover GPUs, read static facts. On failure fills err with
 * an explanation a person can act on (no library, driver not loaded, version
 * mismatch, no permission, no devices, -i matched nothing). */
int gs_sampler_open(struct gs_sampler **out, const struct gs_sampler_opts *opts, struct gs_err *err);

/* Take one complete snapshot into snap (reusing its arrays). Returns 0 when
 * every selected GPU was read, -GS_E_GPU_LOST / -GS_E_BACKEND when some GPU
 * failed (snap is still complete: that GPU is marked lost/error and the others
 * are fine), another negative code when nothing could be read. */
int gs_sampler_snapshot(struct gs_sampler *s, struct gs_snapshot *snap, struct gs_err *err);

void gs_sampler_close(struct gs_sampler *s);

/* Host facts cost: read the CPU and RSS of these PIDs every snapshot and the
 * other GPU processes' every few seconds (gs_hostproc_focus); NULL: all of
 * them every snapshot (the default). For a view that shows some rows only. */
void gs_sampler_host_focus(struct gs_sampler *s, const uint32_t *pids, uint32_t n);

/* Debug: describe which library and which versioned symbols were bound, one
 * "name -> bound_symbol" per line (for `gpuscope query --debug`). */
void gs_sampler_describe(const struct gs_sampler *s, void (*line)(void *arg, const char *text), void *arg);

#endif /* GS_SAMPLER_H */
