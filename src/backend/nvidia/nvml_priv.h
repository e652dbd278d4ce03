/* SPDX-License-Identifier: MIT */
/*
 * nvml_priv.h - state shared by the NVML backend's files (not for the core):
 * the backend instance, the per-device state that embeds struct gs_bdev, and
 * the one function that turns an nvmlReturn_t into a field status.
 *
 *   nvml_backend.c  init/fini, system info, discovery, the gs_backend table
 *   nvml_static.c   static facts (once per run)
 *   nvml_sample.c   per-tick fields, table-driven (its files: nvml_tick.h)
 *   nvml_procs.c    process lists and per-process utilization
 */
#ifndef GS_NVML_PRIV_H
#define GS_NVML_PRIV_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/backend.h"
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
    char *name; /* owned; NULL when the driver could not say */
};

/* The context's index of the names its GPUs hold (nvml_procs.c): a PID listed on
 * several GPUs is asked of the driver once, not once per GPU. A slot points at
 * the name of one GPU's entry and is cleared when that entry goes. */
#define NVML_XNAME_SLOTS 512u
struct nvml_xname {
    uint32_t pid;
    bool set;
    const char *name; /* a GPU's nvml_pname.name (NULL: the driver had none) */
};

/* The longest process name asked of the driver (Linux's PATH_MAX). */
#define NVML_PNAME_MAX 4096

/* PID -> position in an array of records, rebuilt per tick (nvml_procs.c):
 * open addressing, at most half full; a slot holds position + 1, 0 = empty. */
struct nvml_pmap {
    uint32_t *slot;
    unsigned nslots;                   /* a power of two, or 0 before the first use */
};

/* How a GPU's PCIe TX/RX rates are read (nvml_pcie.c), decided once, before the worker starts. */
enum nvml_pcie_path {
    NVML_PCIE_FN,        /* nvmlDeviceGetPcieThroughput (20 ms window): one-shot, or on the worker */
    NVML_PCIE_COUNTERS,  /* fields 197/198 in the tick's field-values call: bytes over the tick */
    NVML_PCIE_GPM,       /* GPM's PCIe metrics, in the GPM read the tick pays for anyway */
};

/* One direction's byte counter as last read, and the rate it last gave (main thread). */
struct nvml_pcie_ctr {
    bool have;           /* a baseline: bytes at ts_us */
    uint64_t bytes;
    long long ts_us;     /* the entry's timestamp, us */
    bool rate_ok;        /* rate_kbps holds a rate */
    uint32_t rate_kbps;  /* KB/s (1000 bytes), as nvmlDeviceGetPcieThroughput's */
    uint64_t rate_ns;    /* CLOCK_MONOTONIC of the reading that gave it */
};

struct nvml_device {
    struct gs_bdev base;               /* nvml_dev(b) = container_of(b, struct nvml_device, base) */
    struct nvml_ctx *ctx;
    nvmlDevice_t handle;               /* NULL when open_rc != SUCCESS */
    nvmlReturn_t open_rc;              /* what nvmlDeviceGetHandleByIndex answered */
    char bus_id[32];                   /* for messages; "" until static facts are read (or the driver's list says) */
    char uuid[96];                     /* its UUID once read: how it is found again after a loss */
    char drv_uuid[96], drv_name[96];   /* from the driver's list, for a GPU NVML could not open */
    /* Shared with the slow-field worker thread, hence atomic. */
    atomic_bool lost;                  /* GPU_IS_LOST seen: never call NVML for it again */
    atomic_llong lost_since;           /* epoch seconds when first seen lost */
    atomic_ullong unsup[GS_F_MAX / 64]; /* GS_F_* bits answered NOT_SUPPORTED once: not asked again */
    /* Main thread only. */
    bool mem_v1;                       /* memory_v2 refused our version: use v1 */
    bool temp_legacy;                  /* TemperatureV refused: use GetTemperature */
    bool mig_on;                       /* MIG enabled: no per-process utilization */
    bool energy_fv_refused;            /* field 83 refused: energy by its own call */
    bool power_fv_refused;             /* field 185 refused: power by nvmlDeviceGetPowerUsage */
    uint32_t fan_count;                /* from nvmlDeviceGetNumFans; 0 = unknown */
    bool plist_unsup[NVML_PL_COUNT];   /* this list answered NOT_SUPPORTED */
    bool putil_unsup;                  /* per-process utilization NOT_SUPPORTED */
    bool putil_info_unsup;             /* ProcessesUtilizationInfo NOT_SUPPORTED: legacy call */
    unsigned char *pbuf[NVML_PL_COUNT]; /* each list's running-process entries (stride by symbol) */
    unsigned pcap[NVML_PL_COUNT];      /* entries pbuf[k] holds (32 bytes each) */
    /* The lists as last read, handed on while nothing says they changed (nvml_procs.c):
     * entries in pbuf[k], what the call answered, when, and the GPU's memory and busy
     * state then. plist_ns 0: none held. */
    unsigned pn[NVML_PL_COUNT];
    nvmlReturn_t prc[NVML_PL_COUNT];
    uint64_t plist_ns;
    uint64_t plist_mem_used;
    bool plist_busy;
    uint64_t mps_ns;                   /* when the MPS list was last asked of the driver (0: never) */
    unsigned char *ubuf;               /* process-utilization samples (<= 40 bytes each) */
    unsigned ucap;                     /* entries ubuf holds */
    unsigned long long util_last_seen; /* newest per-process sample timestamp accepted (us) */
    struct nvml_putil *ucache;         /* per-PID latest utilization */
    unsigned ucache_n;
    size_t ucache_cap;
    struct nvml_pname *names;          /* per-PID driver names of the current list */
    unsigned names_n;
    size_t names_cap;
    struct nvml_pmap pmap;             /* PID -> index into this tick's gs_gpu.procs */
    struct nvml_pmap amap;             /* PID -> index into ucache, or names (rebuilt before each use) */
    bool events_on;                    /* registered for Xid/ECC events (main thread) */
    bool pstate_events;                /* ... and for P-state events (NVML_HOLD_UNTIL_EVENT) */
    uint64_t drain_seq_seen;           /* ctx->drain_seq at this GPU's last scheduled tick */
    /* The read schedule (nvml_sched.c), main thread only: the slow-changing
     * readings' last values (at their own offsets), when each field was read
     * (0: never, or its last read failed), when they are all due again, and
     * the fields an event asked to re-read at the next tick. */
    struct gs_sample sched_cache;
    uint64_t sched_read_ns[GS_F_COUNT];
    uint64_t sched_due_ns;
    struct gs_fmask sched_force;
    /* what the held memory clock was read under (NVML_HOLD_WHILE_PSTATE) */
    uint32_t hold_pstate;
    uint64_t hold_reasons;
    uint8_t hold_pstate_st, hold_reasons_st;
    /* throttle time and NVLink (health counters) */
    bool nvlink_known;                 /* nvlinks read (field 91) */
    bool nvlink_state_fv_refused;      /* field 165 refused: link state by one call per link */
    uint32_t fvs_refused;              /* bit per enum nvml_fvs: that field refused (nvml_fvslow.c) */
    uint32_t nvlinks;                  /* links present, 0 = none */
    uint32_t ecc_loc_unsup;            /* ECC (type, counter, location) entries answered NOT_SUPPORTED */
    atomic_ullong depr[GS_F_MAX / 64]; /* GS_F_* bits answered DEPRECATED (also in unsup) */
    /* PCIe TX/RX without the sampling call (nvml_pcie.c): main thread */
    uint8_t pcie_path;                 /* enum nvml_pcie_path */
    struct nvml_pcie_ctr pcie[2];      /* TX, RX */
    /* MIG devices (nvml_mig.c) and GPM profiling (nvml_gpm.c): main thread, NULL until used */
    struct nvml_mig *mig;
    struct nvml_gpm *gpm;
};

static inline struct nvml_device *nvml_dev(struct gs_bdev *b)
{
    return container_of(b, struct nvml_device, base);
}

struct nvml_ctx {
    struct nvml_lib lib;
    char proc_root[512];               /* where /proc is ("": /proc), for the driver's GPU list */
    bool inited;                       /* nvmlInit succeeded: shut down in fini */
    uint32_t ndev;
    struct nvml_device *devs;          /* ndev entries */
    struct gs_bdev **bdevs;            /* ndev pointers into devs, for discover */
    nvmlEventSet_t events;             /* created on the first events() call */
    bool events_tried;                 /* ... which happens once */
    uint64_t drain_seq;                /* event queue drained to empty this many times */
    uint64_t sched_period_ns;          /* slow-changing readings: read this often (and on events) */
    struct nvml_xname xnames[NVML_XNAME_SLOTS]; /* names any GPU holds, by PID (sampler thread) */
    struct gs_fmask sched_every_tick;  /* ... except these, read at every tick (gs_backend_opts) */
    nvmlGpmMetricsGet_t *gpm_get;      /* the one GPM request buffer (main thread), or NULL */
};

/* The read schedule's period unless GPUSCOPE_READ_PERIOD_MS says otherwise. */
#define GS_NVML_SCHED_PERIOD_MS 5000u
/* An event (NVML event type bits) arrived for d: re-read what it may have changed at the next tick. */
void gs_nvml_sched_event(struct nvml_device *d, unsigned long long event_type);
/* The period from GPUSCOPE_READ_PERIOD_MS (0 = read everything every tick), else the default. */
uint64_t gs_nvml_sched_period_ns(void);

/* Events since the last call, without waiting (backend.h `events`). */
int gs_nvml_events(struct gs_bctx *bctx, struct gs_event *out, uint32_t max, uint32_t *dropped);
/* Free the event set (called by fini before nvmlShutdown). */
void gs_nvml_events_close(struct nvml_ctx *ctx);
/* Register a GPU that came back for events (if the event set exists). */
void gs_nvml_events_reregister(struct nvml_ctx *ctx, struct nvml_device *d);

/* nvml_revive.c: who the GPUs NVML could not open are (the driver's list,
 * after discovery), and bringing a lost GPU back (backend.h `revive`). */
void gs_nvml_place_unopened(struct nvml_ctx *ctx);
int gs_nvml_revive(struct gs_bdev *b);

/* Map r from the call `what` that reads the GS_F_* fields `fields` of d into
 * a status, with the side effects the rules ask for: NOT_SUPPORTED and kin
 * are cached per (device, fields); GPU_IS_LOST marks d lost; other errors
 * leave a message in g->last_error. fields may be 0 (static facts). */
enum gs_status gs_nvml_status(struct nvml_device *d, struct gs_gpu *g, nvmlReturn_t r,
                              struct gs_fmask fields, const char *what);
/* Mark d lost (first caller sets lost_since). */
void gs_nvml_mark_lost(struct nvml_device *d);
/* Fill g's state/lost_since from d. */
void gs_nvml_gpu_state(struct nvml_device *d, struct gs_gpu *g);
/* Bits of the per-tick fields whose functions the library lacks. */
struct gs_fmask gs_nvml_missing_fields(const struct nvml_fns *f);
/* The device's "answered NOT_SUPPORTED" fields (read from any thread). */
struct gs_fmask gs_nvml_unsup(struct nvml_device *d);
/* ... and those of them that answered DEPRECATED. */
struct gs_fmask gs_nvml_deprecated(struct nvml_device *d);

/* MIG devices into g->mig (nvml_mig.c), GPM profiling metrics into g->s.prof and
 * g->mig[].prof (nvml_gpm.c): parts of one sample() tick; *error set on GS_ST_ERROR.
 * mig_attribute ties this tick's processes to their MIG devices (after processes()). */
void gs_nvml_mig_read(struct nvml_device *d, struct gs_gpu *g, bool *error);
void gs_nvml_gpm_read(struct nvml_device *d, struct gs_gpu *g, struct gs_fmask want, bool *error);
void gs_nvml_mig_attribute(struct nvml_device *d, struct gs_gpu *g);
nvmlDevice_t gs_nvml_mig_handle(const struct nvml_device *d, uint32_t mig_index); /* NULL if none */
void gs_nvml_mig_free(struct nvml_device *d);
void gs_nvml_gpm_free(struct nvml_device *d);
/* Whether the GPU has GPM (asked of the driver; nothing kept), for the PCIe path's choice. */
bool gs_nvml_gpm_probe(struct nvml_device *d);
/* PCIe TX/RX (those in want) from this tick's GPM read (bytes/s into KB/s), with the age
 * of held values (nvml_pcie.c's GPM path). */
void gs_nvml_gpm_pcie(struct nvml_device *d, struct gs_gpu *g, struct gs_fmask want);
/* GS_F_PROF_* and GS_F_MIG_DEVICES bits whose functions the library lacks. */
struct gs_fmask gs_nvml_mig_gpm_missing(const struct nvml_fns *f);

/* The slow counters of one tick in one field-values call (nvml_fvslow.c). */
enum nvml_fvs {
    NVML_FVS_ECC_CUR, NVML_FVS_ECC_PEND, NVML_FVS_SBE_VOL, NVML_FVS_DBE_VOL, NVML_FVS_SBE_AGG,
    NVML_FVS_DBE_AGG, NVML_FVS_RET_SBE, NVML_FVS_RET_DBE, NVML_FVS_RET_PEND, NVML_FVS_REPLAY,
    NVML_FVS_REMAP_COR, NVML_FVS_REMAP_UNC, NVML_FVS_REMAP_PEND, NVML_FVS_REMAP_FAIL, NVML_FVS_PWR_LIMIT,
    NVML_FVS_PWR_ENFORCED, NVML_FVS__N
};
struct nvml_fvs_batch {
    bool done;                          /* asked in this tick */
    nvmlReturn_t r;                     /* the call's own result */
    uint8_t at[NVML_FVS__N];            /* 1 + the entry holding each field, 0: not asked */
    nvmlFieldValue_t fv[NVML_FVS__N];
};
/* Field k of this tick's batch (made at the first ask, for the fields in want that d
 * has not refused): true with *v when its entry answered; false: use the function. */
bool gs_nvml_fvs_get(struct nvml_device *d, const struct nvml_fns *f, struct nvml_fvs_batch *b,
                     struct gs_fmask want, enum nvml_fvs k, uint64_t *v);

int gs_nvml_read_static(struct gs_bdev *b, struct gs_gpu *g);
int gs_nvml_sample(struct gs_bdev *b, struct gs_fmask want, struct gs_gpu *g);
/* The slow-field worker's tick: PCIe TX/RX by nvmlDeviceGetPcieThroughput, whatever the path. */
int gs_nvml_sample_slow(struct gs_bdev *b, struct gs_fmask want, struct gs_gpu *g);
/* Choose the GPU's PCIe path once (backend.h slow_free): true for counters or GPM (nvml_pcie.c). */
bool gs_nvml_pcie_choose(struct gs_bdev *b, struct gs_fmask want);
int gs_nvml_processes(struct gs_bdev *b, struct gs_gpu *g);
/* Per-device buffers for processes (discovery allocates, fini frees). */
int gs_nvml_procs_alloc(struct nvml_device *d);
void gs_nvml_procs_free(struct nvml_device *d);

#endif /* GS_NVML_PRIV_H */
