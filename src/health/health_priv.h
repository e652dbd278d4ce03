/* SPDX-License-Identifier: MIT */
/*
 * health_priv.h - the engine's window of history, shared by engine.c and the
 * check files (checks_gpu.c, checks_proc.c). Not for callers outside src/health.
 */
#ifndef GS_HEALTH_PRIV_H
#define GS_HEALTH_PRIV_H

#include "health/health.h"

#include <assert.h>

/* One GPU at one tick: only what the checks read (~200 bytes). */
struct hsample {
    int64_t t_ms;
    struct gs_fmask valid;     /* gs_sample.valid */
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
    uint8_t pcie_gen_fresh;    /* the generation was read in this tick (not handed on by the read schedule) */
    uint16_t nprocs;
    uint8_t procs_ok;          /* the process list was read */
    /* throttle time and health counters (valid: their GS_F_* bits) */
    uint64_t viol_ns[GS_VIOL_COUNT];
    uint64_t ecc_vol_corr;
    uint32_t retired;          /* SBE + DBE retired pages (both valid) */
    uint32_t remapped;         /* correctable + uncorrectable remapped rows */
    uint64_t nvl_crc, nvl_replay, nvl_recovery; /* NVLink error counters (crc = flit + data) */
    uint64_t nvl_down;         /* inactive links */
    uint32_t nvl_count;
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
    char job[96];              /* name of its largest process ("" if none) */
    uint32_t job_pid;
    uint32_t job_pgid, job_ppid; /* that process's group and parent, 0 if unknown */
};

struct ppoint {                /* packed: 13 bytes, not 16 (72 per process, hundreds of processes) */
    int64_t t_ms;
    uint32_t mem_mib;
    uint8_t sm_pct;            /* 255 = no sample */
} __attribute__((packed));

struct hproc {
    bool used;
    bool was_used;             /* the shared record of forgotten processes' slots (engine.c's
                                * hproc_tomb): probe chains go on past it */
    int32_t gpu;
    uint32_t pid;
    int64_t last_ms;
    char name[64];
    uint8_t host_vis;
    char container[16];        /* first bytes of the container id ("" if none) */
    int8_t cvd;                /* CUDA_VISIBLE_DEVICES verdict: 0 unchecked, 1 ok/unknown, 2 outside */
    char cvd_value[64];
    bool env_read;             /* /proc/PID/environ read (once) */
    char jobenv[80];           /* distributed-training identity from the environment, "" if none */
    uint32_t pgid, ppid;       /* 0 if unknown */
    struct ppoint *ring;       /* cap points (cfg.proc_ring_samples) */
    uint32_t head, count, cap;
    struct htorch *torch;      /* PyTorch's figures (checks_torch.c), allocated with the first of them */
};

/* PyTorch's caching allocator at one tick (from the Python hook), MiB. */
struct tpoint {
    int64_t t_ms;
    uint32_t allocated_mib, reserved_mib, inactive_mib;
    uint32_t retries, ooms;
};
#define TORCH_RING 150         /* points per process: the hook answers every 2 s, so 5 minutes */
struct htorch {
    struct tpoint ring[TORCH_RING];
    uint32_t head, count;
    char alloc_conf[64];       /* the process's PYTORCH_CUDA_ALLOC_CONF */
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

/* A PCI device the sysfs scan listed: the first and latest AER readings. */
struct hpci {
    struct gs_pci_dev first, last;
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
    int64_t live_ms;           /* gs_health_set_live_start; INT64_MIN: every tick was live */
    struct hproc **procs;      /* open addressing, cfg.max_procs * 2 slots; each allocated at
                                * its first use (NULL: never used, the end of a probe chain),
                                * freed when forgotten (then &hproc_tomb) */
    uint32_t proc_slots, nprocs;
    int64_t expired_ms;        /* engine time of the latest sweep of stale processes */
    struct hxid xids[HXID_MAX];
    uint32_t nxids, xids_dropped;
    bool open_failed;
    struct gs_err open_err;
    struct gs_history *hist;   /* the recorder's history, NULL if none */
    struct hpci pci[GS_PCI_MAX_DEVS];
    uint32_t npci;
    bool pci_scanned;          /* gs_health_add_pci was called */
    int64_t pci_first_ms, pci_last_ms;
    struct gs_dev_holder holders[64];
    uint32_t nholders;
    struct gs_sysinfo sys;     /* of the latest snapshot: driver and CUDA versions */
    int64_t now_wall_ms;       /* wall clock of the latest snapshot */
    /* routines (routine.c) */
    unsigned routines;
    struct gs_framework fw[GS_FRAMEWORKS_MAX];
    uint32_t nfw;
    char fw_searched[300];
    struct gs_trend *trend;    /* NULL: none */
};

/* Ring access: i-th oldest sample. */
static inline struct hsample *hg_at(const struct gs_health *h, const struct hgpu *g, uint32_t i)
{
    /* the ring holds count <= ring_samples samples from head; i == count is the slot being filled */
    assert(g->ring && g->count <= h->cfg.ring_samples && g->head < h->cfg.ring_samples && i <= g->count);
    return &g->ring[(g->head + i) % h->cfg.ring_samples];
}

/* A sample the GPU checks judge: read fine, and within recent_s when that is set. */
static inline bool hs_in_window(const struct gs_health *h, const struct hsample *x)
{
    return x->state == GS_GPU_OK && !(h->cfg.recent_s && h->now_ms - x->t_ms > (int64_t)h->cfg.recent_s * 1000);
}

static inline struct ppoint *hp_at(const struct hproc *p, uint32_t i)
{
    assert(p->ring && p->cap > 0 && p->head < p->cap && i < p->cap);
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
/* checks_host.c: what the PCI bus and /proc say beyond NVML */
void hc_host(struct gs_health *h, struct gs_findings *out);
/* routine.c: doctor --daily, --weekly, --monthly */
void hc_routines(struct gs_health *h, struct gs_findings *out);
/* AMD and Intel GPUs: junction/memory temperature against hwmon, RAS (checks_drm.c). */
void hc_gpu_drm(struct gs_health *h, const struct hgpu *g, struct gs_findings *out);
/* checks_fan.c: thermal.fan_stuck */
void hc_fan(struct gs_health *h, const struct hgpu *g, struct gs_findings *out);
/* checks_proc.c */
void hc_procs(struct gs_health *h, struct gs_findings *out);
/* The span (s) of the samples the sawtooth check judges, on the GPU with most; *n: how many. */
double hp_saw_span(const struct gs_health *h, size_t *n);
void hc_jobs(struct gs_health *h, struct gs_findings *out);
/* The environment facts of a visible process (read once): CUDA_VISIBLE_DEVICES and the job identity. */
void hp_env(struct gs_health *h, struct hproc *p);
/* checks_torch.c: keep the process's PyTorch figures; check fragmentation, OOMs, growth */
void ht_add(struct hproc *p, const struct gs_proc *gp, int64_t t_ms);
void hc_torch(struct gs_health *h, const struct hproc *p, struct gs_findings *out);
/* true if a finding with this code prefix exists for the GPU */
bool hf_has(const struct gs_findings *out, int32_t gpu, const char *prefix);

#endif /* GS_HEALTH_PRIV_H */
