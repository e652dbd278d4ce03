/* SPDX-License-Identifier: MIT */
/*
 * nvml_priv.h - state shared by the NVML backend's files (not for the core):
 * the backend instance, the per-device state that embeds struct gs_bdev, and
 * the one function that turns an nvmlReturn_t into a field status.
 *
 *   nvml_backend.c  init/fini, system info, discovery, the gs_backend table
 *   nvml_static.c   static facts (once per run)
 *   nvml_sample.c   per-tick fields, table-driven
 *   nvml_procs.c    process lists and per-process utilization
 */
#ifndef GS_NVML_PRIV_H
#define GS_NVML_PRIV_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "backend/backend.h"
#include "backend/nvidia/nvml_load.h"

struct nvml_ctx;

/* Latest per-process utilization seen for one PID on one GPU. */
struct nvml_putil {
    uint32_t pid;
    unsigned long long ts_us;  /* the sample's timestamp (driver's wall clock, us) */
    uint32_t sm_pct, mem_pct, enc_pct, dec_pct;
};

/* A process name as the driver gave it, asked once per PID. */
struct nvml_pname {
    uint32_t pid;
    char name[96]; /* "" when the driver could not say */
};

/* PID -> position in an array of records, rebuilt per tick (nvml_procs.c):
 * open addressing, at most half full; a slot holds position + 1, 0 = empty. */
struct nvml_pmap {
    uint32_t *slot;
    unsigned nslots;                   /* a power of two, or 0 before the first use */
};

struct nvml_device {
    struct gs_bdev base;               /* nvml_dev(b) = container_of(b, struct nvml_device, base) */
    struct nvml_ctx *ctx;
    nvmlDevice_t handle;               /* NULL when open_rc != SUCCESS */
    nvmlReturn_t open_rc;              /* what nvmlDeviceGetHandleByIndex answered */
    char bus_id[32];                   /* for messages; "" until static facts are read */
    /* Shared with the slow-field worker thread, hence atomic. */
    atomic_bool lost;                  /* GPU_IS_LOST seen: never call NVML for it again */
    atomic_llong lost_since;           /* epoch seconds when first seen lost */
    atomic_ullong unsup;               /* GS_F_* bits answered NOT_SUPPORTED once: not asked again */
    /* Main thread only. */
    bool mem_v1;                       /* memory_v2 refused our version: use v1 */
    bool temp_legacy;                  /* TemperatureV refused: use GetTemperature */
    bool mig_on;                       /* MIG enabled: no per-process utilization */
    uint32_t fan_count;                /* from nvmlDeviceGetNumFans; 0 = unknown */
    bool plist_unsup[NVML_PL_COUNT];   /* this list answered NOT_SUPPORTED */
    bool putil_unsup;                  /* per-process utilization NOT_SUPPORTED */
    unsigned char *pbuf;               /* running-process entries (stride by symbol) */
    unsigned pcap;                     /* entries pbuf holds (32 bytes each) */
    unsigned char *ubuf;               /* process-utilization samples (<= 40 bytes each) */
    unsigned ucap;                     /* entries ubuf holds */
    unsigned long long util_last_seen; /* newest per-process sample timestamp accepted (us) */
    struct nvml_putil *ucache;         /* per-PID latest utilization */
    unsigned ucache_n, ucache_cap;
    struct nvml_pname *names;          /* per-PID driver names of the current list */
    unsigned names_n, names_cap;
    struct nvml_pmap pmap;             /* PID -> index into this tick's gs_gpu.procs */
    struct nvml_pmap amap;             /* PID -> index into ucache, or names (rebuilt before each use) */
    bool events_on;                    /* registered for Xid/ECC events (main thread) */
};

static inline struct nvml_device *nvml_dev(struct gs_bdev *b)
{
    return container_of(b, struct nvml_device, base);
}

struct nvml_ctx {
    struct nvml_lib lib;
    bool inited;                       /* nvmlInit succeeded: shut down in fini */
    uint32_t ndev;
    struct nvml_device *devs;          /* ndev entries */
    struct gs_bdev **bdevs;            /* ndev pointers into devs, for discover */
    nvmlEventSet_t events;             /* created on the first events() call */
    bool events_tried;                 /* ... which happens once */
};

/* Events since the last call, without waiting (backend.h `events`). */
int gs_nvml_events(struct gs_bctx *bctx, struct gs_event *out, uint32_t max, uint32_t *dropped);
/* Free the event set (called by fini before nvmlShutdown). */
void gs_nvml_events_close(struct nvml_ctx *ctx);

/* Map r from the call `what` that reads the GS_F_* fields `fields` of d into
 * a status, with the side effects the rules ask for: NOT_SUPPORTED and kin
 * are cached per (device, fields); GPU_IS_LOST marks d lost; other errors
 * leave a message in g->last_error. fields may be 0 (static facts). */
enum gs_status gs_nvml_status(struct nvml_device *d, struct gs_gpu *g, nvmlReturn_t r,
                              uint64_t fields, const char *what);
/* Mark d lost (first caller sets lost_since). */
void gs_nvml_mark_lost(struct nvml_device *d);
/* Fill g's state/lost_since from d. */
void gs_nvml_gpu_state(struct nvml_device *d, struct gs_gpu *g);
/* Bits of the per-tick fields whose functions the library lacks. */
uint64_t gs_nvml_missing_fields(const struct nvml_fns *f);

int gs_nvml_read_static(struct gs_bdev *b, struct gs_gpu *g);
int gs_nvml_sample(struct gs_bdev *b, uint64_t want, struct gs_gpu *g);
int gs_nvml_processes(struct gs_bdev *b, struct gs_gpu *g);
/* Per-device buffers for processes (discovery allocates, fini frees). */
int gs_nvml_procs_alloc(struct nvml_device *d);
void gs_nvml_procs_free(struct nvml_device *d);

#endif /* GS_NVML_PRIV_H */
