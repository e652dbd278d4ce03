/* SPDX-License-Identifier: MIT */
/*
 * health_priv.h - the engine's window of history, shared by engine.c and the
 * check files (checks_gpu.c, checks_proc.c). Not for callers outside src/health.
 */
#ifndef GS_HEALTH_PRIV_H
#define GS_HEALTH_PRIV_H

#include "health/health.h"

/* One GPU at one tick: only what the checks read (~100 bytes). */
struct hsample {
    int64_t t_ms;
    uint64_t valid;            /* gs_sample.valid */
    uint64_t throttle;
    uint64_t ecc_vol_uncorr;
    uint32_t power_mw, enforced_mw;
    uint32_t sm_mhz;
    uint32_t replay;
    uint32_t mem_used_mib, mem_total_mib, proc_mem_mib;
    int16_t temp_c;
    uint16_t fan_pct;          /* first fan, intended speed (valid: GS_F_FAN_SPEED) */
    uint8_t state;             /* enum gs_gpu_state */
    uint8_t util_pct;
    uint8_t pcie_gen, pcie_width;
    uint16_t nprocs;
    uint8_t procs_ok;          /* the process list was read */
};

struct hgpu {
    bool seen;
    struct gs_static st;       /* latest static facts */
    struct gs_sample last;     /* latest full sample */
    uint8_t state;
    int64_t lost_since;
    char last_error[160];
    struct hsample *ring;      /* cfg.ring_samples */
    uint32_t head, count;      /* ring[(head + i) % cap], oldest first */
    char job[96];              /* name of its largest process ("" if none): groups multi-GPU jobs */
    uint32_t job_pid;
};

struct ppoint {
    int64_t t_ms;
    uint32_t mem_mib;
    uint8_t sm_pct;            /* 255 = no sample */
};

struct hproc {
    bool used;
    int32_t gpu;
    uint32_t pid;
    int64_t last_ms;
    char name[64];
    uint8_t host_vis;
    char container[16];        /* first bytes of the container id ("" if none) */
    int8_t cvd;                /* CUDA_VISIBLE_DEVICES verdict: 0 unchecked, 1 ok/unknown, 2 outside */
    char cvd_value[64];
    struct ppoint *ring;       /* cap points (cfg.proc_ring_samples) */
    uint32_t head, count, cap;
};

/* Xids aggregated per GPU (or PCI location) and code. */
struct hxid {
    uint32_t xid;
    int32_t gpu;
    bool has_pci;
    uint32_t pci_domain, pci_bus, pci_device;
    uint32_t n_nvml, n_kmsg;   /* both report the same occurrence: count = max */
    uint8_t sources;           /* 1 NVML events, 2 kernel log */
    bool since_boot;           /* from a whole-log read (doctor): stays a finding */
    int64_t last_ms;           /* engine time of the latest NVML event; INT64_MIN: kernel log only */
    double last_boot_s;        /* kernel log time of the latest line, -1 if none */
    uint32_t pid;
    char name[64];
    char msg[160];
};

#define HXID_MAX 256
#define HGPU_MAX 64
#define PROC_RING 300          /* the most points a process ring holds */

struct gs_health {
    struct gs_health_cfg cfg;
    struct hgpu gpus[HGPU_MAX];
    uint32_t ngpus;            /* NVML's count in the latest snapshot */
    bool have_snap;
    int64_t now_ms, first_ms;
    struct hproc *procs;       /* open addressing, cfg.max_procs * 2 slots */
    uint32_t proc_slots, nprocs;
    int64_t expired_ms;        /* engine time of the latest sweep of stale processes */
    struct hxid xids[HXID_MAX];
    uint32_t nxids, xids_dropped;
    bool open_failed;
    struct gs_err open_err;
    struct gs_history *hist;   /* the recorder's history, NULL if none */
};

/* Ring access: i-th oldest sample. */
static inline struct hsample *hg_at(const struct gs_health *h, const struct hgpu *g, uint32_t i)
{
    return &g->ring[(g->head + i) % h->cfg.ring_samples];
}

static inline struct ppoint *hp_at(const struct hproc *p, uint32_t i)
{
    return &p->ring[(p->head + i) % p->cap];
}

/* Fill a finding (printf-style title); evidence/cause/action filled by the caller. */
struct gs_finding *hf_new(struct gs_findings *out, enum gs_sev sev, int32_t gpu, uint32_t pid,
                          const char *code, const char *title_fmt, ...)
    __attribute__((format(printf, 6, 7)));
void hf_set(char *dst, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* checks_gpu.c */
void hc_driver(struct gs_health *h, struct gs_findings *out);
void hc_xid(struct gs_health *h, struct gs_findings *out);
void hc_gpu(struct gs_health *h, const struct hgpu *g, struct gs_findings *out);
/* checks_proc.c */
void hc_procs(struct gs_health *h, struct gs_findings *out);
void hc_jobs(struct gs_health *h, struct gs_findings *out);
/* true if a finding with this code prefix exists for the GPU */
bool hf_has(const struct gs_findings *out, int32_t gpu, const char *prefix);

#endif /* GS_HEALTH_PRIV_H */
