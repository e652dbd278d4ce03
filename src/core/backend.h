/* SPDX-License-Identifier: MIT */
/*
 * backend.h - the table of function pointers every GPU vendor backend fills
 * (NVML; DRM for AMD and Intel). Vendor-neutral: no vendor types here.
 * The sampler drives several at once (a mixed machine): every enabled
 * backend that finds GPUs is used, in the registry's order.
 *
 * Shape (STYLE.md 2.3): an ABI version, a name, a capability mask, then the
 * calls. Members are only ever appended (bump GS_BACKEND_ABI when you do);
 * optional members are NULL when the backend cannot do that thing.
 *
 * Devices: a backend keeps its own per-device state and embeds a struct
 * gs_bdev in it (recovered with container_of). The core only sees gs_bdev.
 *
 * Results go into a caller-owned struct gs_gpu so that two threads (the
 * sampler and its slow-field worker) can read the same device into separate
 * structs: read_static fills gpu->st, sample fills gpu->s (and state,
 * lost_since, last_error), processes fills gpu->procs. Each returns 0, or a
 * negative enum gs_errc: -GS_E_GPU_LOST once the GPU fell off the bus (then
 * every later call returns it at once without touching the device), or
 * -GS_E_BACKEND when some field failed with an error (that field has status
 * GS_ST_ERROR and gpu->last_error says why). "Not supported" is not an error.
 */
#ifndef GS_BACKEND_H
#define GS_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "core/model.h"

#define GS_BACKEND_ABI 8 /* bump when appending members; never reorder */

enum gs_caps {
    GS_CAP_PROCESSES = 1 << 0,    /* processes() lists processes per GPU */
    GS_CAP_PROC_UTIL = 1 << 1,    /* per-process SM/memory/codec utilization */
    GS_CAP_ECC = 1 << 2,          /* ECC, retired pages, remapped rows */
    GS_CAP_SLOW_FIELDS = 1 << 3,  /* some fields are slow (see slow_fields) */
};

#ifndef container_of
#define container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))
#endif

/* The common part of a backend device. */
struct gs_bdev {
    uint32_t index;       /* the backend's own index (NVML index) */
};

/* What the core passes to init. */
struct gs_backend_opts {
    const char *lib_path;  /* vendor library to load; NULL: backend's default search */
    const char *proc_root; /* where /proc is ("" or NULL: /proc), for the driver's own GPU list */
    /* ABI 6. What a backend that is not a vendor library needs (the fleet's
     * Prometheus backend: a struct gs_prom_opts), NULL for the others. */
    const void *arg;
    /* ABI 7. Slow-changing fields to read at every tick, not on the read schedule (doctor). */
    struct gs_fmask every_tick;
};

struct gs_bctx; /* one backend instance, private to the backend */

struct gs_backend {
    unsigned abi;          /* GS_BACKEND_ABI at build time */
    const char *name;      /* "nvml" */
    unsigned caps;         /* enum gs_caps */
    struct gs_fmask slow_fields; /* GS_F_* bits that take milliseconds each (read off the hot path) */

    /* Load the vendor library and initialise it. On failure fill err with an
     * explanation a person can act on; -GS_E_NO_LIBRARY means "not here". */
    int (*init)(struct gs_bctx **out, const struct gs_backend_opts *opts, struct gs_err *err);
    void (*fini)(struct gs_bctx *ctx); /* also frees every gs_bdev of ctx; NULL is fine */

    /* Driver/library versions, simulator detection, library path (not hostname). */
    void (*system_info)(struct gs_bctx *ctx, struct gs_sysinfo *out);

    /* List the GPUs: *devs points to an array owned by ctx (valid until fini).
     * A GPU that refuses to be opened is listed too (its calls report the
     * error). Zero GPUs is -GS_E_NO_DEVICE with an explanation. */
    int (*discover)(struct gs_bctx *ctx, struct gs_bdev *const **devs, uint32_t *ndevs,
                    struct gs_err *err);

    /* Static facts into gpu->st, once per run. */
    int (*read_static)(struct gs_bdev *dev, struct gs_gpu *gpu);

    /* One tick: the GS_F_* fields in want into gpu->s (taken literally: an
     * empty mask reads nothing); fields not in want get GS_ST_NOT_SAMPLED. Sets gpu->s.timestamp_ns, gpu->state, lost_since,
     * last_error. Allocation-free. */
    int (*sample)(struct gs_bdev *dev, struct gs_fmask want, struct gs_gpu *gpu);

    /* Processes into gpu (gpu->nprocs reset first, array reused; dedup by PID,
     * type bits OR-ed), and gpu->procs_status. NULL without GS_CAP_PROCESSES. */
    int (*processes)(struct gs_bdev *dev, struct gs_gpu *gpu);

    /* Turn a failed GPU (lost or unreadable) into an explanation. Optional. */
    void (*explain_gpu)(struct gs_bdev *dev, const struct gs_gpu *gpu, struct gs_err *err);

    /* Debug: library and bound symbols, one line each. Optional. */
    void (*describe)(struct gs_bctx *ctx, void (*line)(void *arg, const char *text), void *arg);

    /* ABI 2. Events (Xid, ECC) the driver delivered since the previous call,
     * without waiting: up to max into out (gpu = the backend's index), the
     * number that did not fit into *dropped. The first call registers for
     * them; only events after that are seen. sample() marks GS_F_XID
     * supported on the GPUs that could register. Returns the count. Optional. */
    int (*events)(struct gs_bctx *ctx, struct gs_event *out, uint32_t max, uint32_t *dropped);

    /* ABI 4. A snapshot begins at CLOCK_MONOTONIC now_ns: called once before
     * any sample() of that snapshot, so that work shared by the backend's
     * GPUs (one scan of the DRM clients in /proc) is done at most once per
     * tick. Optional. */
    void (*tick)(struct gs_bctx *ctx, uint64_t now_ns);
    /* Who makes the GPUs ("NVIDIA") and which kernel driver runs them
     * ("nvidia"), for backends whose read_static does not say (GS_S_VENDOR). */
    const char *vendor;
    const char *driver;

    /* ABI 5. A GPU that was lost (or could not be opened): try to open it
     * again by its identity (UUID, else PCI bus id, else index) and check that
     * it answers; 0 when it is back (its static facts must be read again),
     * else the negative code it still fails with. Calls for it stay refused
     * meanwhile. The core retries with a backoff. Optional. */
    int (*revive)(struct gs_bdev *dev);

    /* ABI 8. Decide, once per GPU and before the slow-field worker starts, whether
     * this GPU gives its slow fields in a tick that reads `want` without a sampling
     * call (NVML: PCIe byte counters or GPM); true: sample() fills them from then on,
     * an average since its previous tick (not available until it has one). Optional:
     * NULL or false leaves them to the worker. */
    bool (*slow_free)(struct gs_bdev *dev, struct gs_fmask want);
    /* ABI 8. The slow-field worker's tick: the slow fields in want by the calls that
     * measure them, whatever slow_free decided. Optional: NULL uses sample(). */
    int (*sample_slow)(struct gs_bdev *dev, struct gs_fmask want, struct gs_gpu *gpu);
};

#endif /* GS_BACKEND_H */
