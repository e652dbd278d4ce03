/* SPDX-License-Identifier: MIT */
/*
 * model_snapshot.h - one instant of the whole machine: MIG devices, struct gs_gpu
 * (static facts, sample, processes), events, struct gs_sysinfo and struct
 * gs_snapshot, with their lifetime. Included through core/model.h.
 */
#ifndef GS_MODEL_SNAPSHOT_H
#define GS_MODEL_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "core/model_proc.h"
#include "core/model_sample.h"
#include "core/model_static.h"


/* ---- MIG devices ------------------------------------------------------------------ */
#define GS_MAX_MIG 8   /* MIG devices per GPU: 7 on A100/H100 */

/* One MIG device (a compute instance, as NVML's MIG device handles), with the
 * GPU instance it belongs to. Memory and profiling belong to the GPU instance:
 * the compute instances of one GPU instance show the same values. */
struct gs_mig {
    uint32_t index;                /* MIG device index under its GPU (nvidia-smi -L's "Device N") */
    uint32_t gpu_instance_id;      /* NVML GPU instance ID (dcgm-exporter's GPU_I_ID) */
    uint32_t compute_instance_id;
    char uuid[96];                 /* "MIG-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" */
    char name[96];                 /* "NVIDIA H100 80GB HBM3 MIG 1g.10gb" */
    char profile[32];              /* the GPU instance's profile, "1g.10gb" (GPU_I_PROFILE) */
    char ci_profile[32];           /* the compute instance's: "1g.10gb", or "1c.3g.40gb" for part of one */
    uint8_t attr_status;           /* enum gs_status of the counts below (nvmlDeviceGetAttributes) */
    uint32_t sm_count, gi_slices, ci_slices;
    uint32_t copy_engines, decoders, encoders, jpeg_engines, ofa_engines;
    uint8_t mem_status;            /* enum gs_status of mem_* */
    uint64_t mem_total_bytes, mem_used_bytes, mem_free_bytes;
    uint8_t prof_status[GS_PROF_COUNT]; /* enum gs_status per metric (the GPU instance's) */
    double prof[GS_PROF_COUNT];
    uint32_t nprocs;               /* processes of this snapshot running in it */
};

/* ---- one GPU in a snapshot ------------------------------------------------------ */
enum gs_gpu_state {
    GS_GPU_OK = 0,
    GS_GPU_LOST,    /* fell off the bus: static facts kept, sample marked GS_ST_GPU_LOST */
    GS_GPU_ERROR,   /* could not be opened or read at all this tick */
};

struct gs_gpu {
    struct gs_static st;
    struct gs_sample s;
    struct gs_proc *procs;      /* nprocs entries, owned by the snapshot */
    uint32_t nprocs;
    uint32_t procs_cap;
    uint8_t procs_status;       /* enum gs_status of the process list itself */
    uint32_t procs_age_ms;      /* how old the list is (0: read in this tick); see nvml_procs.c */
    uint8_t state;              /* enum gs_gpu_state */
    int64_t lost_since;         /* epoch seconds when first seen lost, else 0 */
    char last_error[160];       /* latest error on this GPU, "" if none */
    struct gs_text text;        /* its processes' long names and command lines (owned, reused) */
    /* -- MIG (area 10c): valid when s.status[GS_F_MIG_DEVICES] is GS_ST_OK -- */
    struct gs_mig *mig;         /* nmig entries by MIG device index, owned by the snapshot like
                                 * procs; NULL on a GPU without MIG devices */
    uint32_t nmig;              /* at most GS_MAX_MIG */
    uint32_t mig_cap;
};

/* ---- events (NVML's event API: Xid, ECC) ----------------------------------------------- */
enum gs_event_kind {
    GS_EV_XID = 1,      /* data: the Xid number (999 = unknown Xid) */
    GS_EV_ECC_SBE = 2,  /* a corrected (single-bit) ECC error */
    GS_EV_ECC_DBE = 3,  /* an uncorrected (double-bit) ECC error */
    GS_EV_OTHER = 4,    /* data: the vendor's event type bit */
};

/* One event the driver delivered since the previous snapshot. */
struct gs_event {
    int64_t time_ms;    /* wall clock when gpuscope received it, ms since the epoch */
    uint32_t gpu;       /* the GPU's index (gs_static.index) */
    uint32_t kind;      /* enum gs_event_kind */
    uint64_t data;      /* Xid number for GS_EV_XID, else 0 */
};

#define GS_MAX_EVENTS 64

/* ---- the machine ------------------------------------------------------------------ */
struct gs_sysinfo {
    char backend[16];           /* "nvml" */
    char driver_version[80];    /* "" if unknown */
    char nvml_version[80];
    int32_t cuda_driver_version;  /* 12020 for 12.2, 0 if unknown */
    char hostname[64];
    bool simulated;             /* running on gpuscope's NVML simulator */
    char sim_scenario[64];      /* scenario name when simulated */
    char lib_path[256];         /* library actually loaded */
    char kmd_version[80];       /* kernel module version (/proc/driver/nvidia/version), "" if unknown */
    /* -- other vendors (several backends) -- */
    char warning[200];          /* a backend that failed while others found GPUs ("" if none) */
};

struct gs_snapshot {
    uint64_t mono_ns;           /* CLOCK_MONOTONIC at the start of the snapshot */
    struct timespec wall;       /* CLOCK_REALTIME at the same instant */
    uint64_t duration_ns;       /* how long taking it took */
    struct gs_sysinfo sys;
    uint32_t ngpus;
    struct gs_gpu *gpus;        /* ngpus entries */
    uint32_t nevents;           /* events received since the previous snapshot ... */
    uint32_t events_dropped;    /* ... and how many more did not fit in events[] */
    struct gs_event events[GS_MAX_EVENTS];
};

/* Snapshot lifetime: gs_snapshot_init() zeroes; gs_snapshot_release() frees the
 * process arrays and GPU array; a snapshot may be reused tick after tick
 * (arrays are kept and grown, never shrunk, to keep the hot path allocation-free). */
void gs_snapshot_init(struct gs_snapshot *snap);
void gs_snapshot_release(struct gs_snapshot *snap);
/* Copy src into dst (deep: process arrays duplicated). Returns 0 or -GS_E_NOMEM. */
int gs_snapshot_copy(struct gs_snapshot *dst, const struct gs_snapshot *src);
/* Append a zeroed process to gpu, growing its array; NULL on out of memory. */
struct gs_proc *gs_gpu_add_proc(struct gs_gpu *gpu);
/* Room for n processes in gpu's array in one growth (a backend that knows its
 * count asks first); 0, or -1 when out of memory (the array is unchanged). */
int gs_gpu_reserve_procs(struct gs_gpu *gpu, size_t n);
/* Room for n MIG devices in gpu->mig (n <= GS_MAX_MIG); 0, or -1 when out of memory. */
int gs_gpu_mig_reserve(struct gs_gpu *gpu, uint32_t n);

/* The driver's name of a process, whole (gs_proc.name holds the first 95 bytes). */
const char *gs_proc_name(const struct gs_gpu *gpu, const struct gs_proc *p);
/* Keep a long name for p in gpu's arena; 0 or -GS_E_NOMEM (p keeps the short name). */
int gs_proc_set_long_name(struct gs_gpu *gpu, struct gs_proc *p, const char *name, size_t len);
/* The MIG device of g holding GPU instance gi and compute instance ci (ci UINT32_MAX:
 * any of gi's), or NULL. */
const struct gs_mig *gs_gpu_find_mig(const struct gs_gpu *g, uint32_t gi, uint32_t ci);
/* The distinct GPU instances of g, as dcgm-exporter exports them: the MIG device
 * index of each one's first compute instance into out (at most GS_MAX_MIG); returns the count. */
unsigned gs_gpu_gpu_instances(const struct gs_gpu *g, uint32_t *out);

#endif /* GS_MODEL_SNAPSHOT_H */
