/* SPDX-License-Identifier: MIT */
/*
 * burn_priv.h - what burn's parts share: one struct burn_gpu per selected
 * GPU, written by its worker thread (worker.c, under its lock) and by the
 * main thread's monitor (monitor.c); the verdict (verdict.c) and the output
 * (output.c) only read it.
 */
#ifndef GS_BURN_PRIV_H
#define GS_BURN_PRIV_H

#include <pthread.h>
#include <stdio.h>
#include <stdatomic.h>

#include "backend/cuda/cuda_load.h"
#include "burn/burn.h"
#include "core/model.h"
#include "health/health.h"

#define BURN_MAX_XIDS 16

/* One workload on one GPU (worker-written, under burn_gpu.lock). */
struct burn_wstat {
    bool selected, supported;
    char skip_why[128];          /* why not supported */
    uint64_t iterations;
    double work;                 /* FLOPs or bytes, in verified iterations */
    double gpu_s;                /* GPU time they took (CUDA events) */
    double last_rate;            /* FLOP/s or B/s of the latest iteration */
    uint64_t mismatches;         /* wrong words found (compare kernel + CPU reference) */
    uint64_t ref_mismatches;     /* of which the CPU reference found */
    uint64_t first_bad_iter;     /* 1-based, 0: none */
    double first_bad_s;          /* burn time of it */
    uint32_t iters_per_launch;   /* calibrated */
};

/* What the sampler saw of one GPU during the burn (main thread only). */
struct burn_mon {
    bool have_base;
    bool ecc_ok, remap_ok;
    uint64_t ecc_unc_base, ecc_unc;      /* volatile uncorrectable ECC count at start / latest */
    uint32_t remap_unc_base, remap_unc;
    bool remap_failed_base, remap_failed;
    bool temp_ok;
    int32_t temp_max_c;
    double temp_at_slowdown_s;           /* seconds at or above the warn temperature */
    bool power_ok;
    uint32_t power_max_mw, power_limit_mw;
    uint32_t clk_min_mhz, clk_max_mhz;   /* SM clock while loaded */
    uint32_t samples, loaded;            /* samples taken / with utilization >= load_util_pct */
    uint32_t clock_judged, clock_low;    /* loaded, past warm-up, not power-capped / below the ratio */
    uint32_t sw_thermal_in_low;          /* ... of which SW thermal slowdown was on */
    uint32_t pcie_judged, pcie_low;
    uint32_t pcie_gen_seen, pcie_width_seen; /* the lowest seen while loaded */
    bool replay_ok;                      /* PCIe replay counter: first and latest reading, their times */
    uint32_t replay_first, replay_last;
    double replay_first_s, replay_last_s;
    uint32_t replay_gen, replay_width;   /* the link at the latest reading */
    double throttle_s[16];               /* seconds each reason bit was active */
    double hw_first_s[16];               /* first time a bit was seen, -1: never */
    uint32_t xid_code[BURN_MAX_XIDS], xid_count[BURN_MAX_XIDS];
    double xid_first_s[BURN_MAX_XIDS];
    uint32_t nxids;
    bool lost;
    double lost_s;
};

enum burn_state { BG_IDLE, BG_RUNNING, BG_DONE, BG_FAILED };

struct burn_gpu {
    /* identity (from the snapshot, before the workers start) */
    int index;                   /* NVML index (gs_static.index) */
    int slot;                    /* position in the snapshot's gpus[] */
    char name[96], uuid[96], pci[32];
    struct gs_static st;
    int ordinal;                 /* CUDA device ordinal, -1: CUDA does not see it */
    int cc_major, cc_minor, sms, threads_per_sm;
    /* the worker */
    pthread_t thread;
    bool started;
    atomic_int ready;            /* set up (context, modules, buffers): the clock may start */
    atomic_int exited;
    pthread_mutex_t lock;        /* guards everything below */
    enum burn_state state;
    int current;                 /* enum gs_burn_wl running, -1 */
    struct burn_wstat w[GS_BW__COUNT];
    uint64_t mem_tested_bytes;
    CUresult cuda_error;
    char cuda_call[48];
    char cuda_errname[64], cuda_errtext[256];
    double error_s;              /* burn time of the error */
    struct burn_mon mon;         /* main thread only */
};

/* The run, shared by the workers. */
struct burn_ctx {
    const struct gs_burn_opts *o;
    struct gs_cuda cu;
    atomic_int stop;
    double (*now_s)(const struct burn_ctx *b); /* burn time, seconds */
    int64_t t_ms;                /* burn time of the latest tick (main thread) */
    bool virtual_time;
    int64_t mono0_ms;
};

/* worker.c */
void *gs_burn_worker(void *arg);   /* arg: struct burn_worker_arg */
struct burn_worker_arg {
    struct burn_ctx *b;
    struct burn_gpu *g;
};

/* monitor.c */
void gs_burn_monitor_tick(const struct gs_burn_opts *o, struct burn_gpu *g, const struct gs_gpu *sg,
                          const struct gs_snapshot *snap, double t_s, double dt_s);

/* verdict.c: findings for every GPU (sorted worst first), and each GPU's verdict. */
void gs_burn_verdict(const struct gs_burn_opts *o, struct burn_gpu *gpus, int n, bool interrupted,
                     struct gs_findings *out);
enum gs_sev gs_burn_gpu_worst(const struct gs_findings *f, int gpu_index);
const char *gs_burn_verdict_word(enum gs_sev worst);     /* PASS, WARN, FAIL */
const char *gs_burn_wl_name(int wl);                     /* fp32, fp64, tensor, memory */
bool gs_burn_wl_is_memory(int wl);

/* output.c */
void gs_burn_status(FILE *out, bool redraw, const struct burn_ctx *b, struct burn_gpu *gpus, int n,
                    const struct gs_snapshot *snap, double t_s, double total_s);
void gs_burn_report_text(FILE *out, const struct burn_ctx *b, struct burn_gpu *gpus, int n,
                         const struct gs_findings *f, double elapsed_s, bool interrupted);
void gs_burn_report_json(FILE *out, const struct burn_ctx *b, struct burn_gpu *gpus, int n,
                         const struct gs_findings *f, double elapsed_s, bool interrupted);
/* "51.2 TFLOP/s", "830 GFLOP/s", "2750 GB/s" */
const char *gs_burn_rate_str(double rate, bool bytes, char *buf, size_t len);

#endif /* GS_BURN_PRIV_H */
