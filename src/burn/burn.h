/* SPDX-License-Identifier: MIT */
/*
 * burn.h - `gpuscope burn`: load every selected GPU with verified kernels
 * (FP32 and FP64 compute, tensor cores, memory patterns) through the CUDA
 * driver API while the sampler watches temperature, power, clocks, clock-event
 * reasons, Xids, ECC and row remapping, PCIe and GPU presence; then a verdict
 * per GPU in the doctor's finding format. docs/BURN.md.
 *
 *   struct gs_burn_opts o; gs_burn_opts_default(&o);  ... options ...
 *   int exit_code = gs_burn_run(&o, &err);
 */
#ifndef GS_BURN_H
#define GS_BURN_H

#include <stdbool.h>
#include <stdint.h>

#include "core/err.h"

/* Workloads, in the order a worker runs them. */
enum gs_burn_wl { GS_BW_FP32, GS_BW_FP64, GS_BW_TENSOR, GS_BW_MEMORY, GS_BW__COUNT };
#define GS_BURN_WL_ALL ((1u << GS_BW__COUNT) - 1)

/* Thresholds of the WARN rules (documented in docs/BURN.md; --threshold NAME=VAL). */
struct gs_burn_thresholds {
    int32_t slowdown_margin_c;   /* warn at temperature >= slowdown - margin (0) */
    double clock_low_ratio;      /* warn when loaded, not power-capped SM clock < ratio x max (0.75); 0: off */
    double clock_low_share;      /* ... in at least this share of such samples (0.5) */
    double pcie_low_share;       /* warn when the link is below max in this share of loaded samples (0.5); 0: off */
    double pcie_replay_factor;   /* warn above this x DCGM's expected PCIe replays per minute (1); 0: off */
    double sibling_ratio;        /* warn below ratio x the median of identical GPUs (0.9); 0: off */
    uint32_t warmup_s;           /* the first seconds are not judged for clocks and PCIe (5) */
    uint32_t load_util_pct;      /* a sample is "loaded" from this utilization (50) */
};

struct gs_burn_opts {
    int64_t duration_ms;         /* 600000 */
    int64_t interval_ms;         /* sampling and status interval (1000) */
    const char *only_ids;        /* -i */
    double memory_share;         /* --memory 90% -> 0.9 of free memory (default) */
    uint64_t memory_bytes;       /* --memory 4G: this much instead (0: use the share) */
    unsigned workloads;          /* bit (1 << enum gs_burn_wl) */
    bool json;
    const char *db;              /* the recorder's database to write into, NULL: none */
    bool debug;                  /* print the CUDA symbols bound and the launch sizes */
    int64_t launch_ms;           /* GPU time per kernel launch (50) */
    int64_t iteration_ms;        /* GPU time per compute iteration (500) */
    const char *status;          /* "auto" (terminal: redraw; else a line per GPU every 10 s), "off" */
    struct gs_burn_thresholds th;
};

void gs_burn_opts_default(struct gs_burn_opts *o);
/* "compute,tensor,memory" (compute = fp32+fp64; also fp32, fp64, all) -> mask. */
int gs_burn_parse_workloads(const char *s, unsigned *mask, struct gs_err *err);
/* "slowdown_margin_c=2" ... ; a usage error for an unknown name or bad value. */
int gs_burn_threshold_set(struct gs_burn_thresholds *th, const char *assignment, struct gs_err *err);
void gs_burn_thresholds_list(const struct gs_burn_thresholds *th, void *fp);
/* Run the burn; returns the exit code (docs/BURN.md): 0 every GPU passed, 6 a
 * warning, 7 a failure, 130 interrupted without failure; 2/3/4 as elsewhere. */
int gs_burn_run(const struct gs_burn_opts *o, struct gs_err *err);
/* burn --print-ptx base|mma */
int gs_burn_print_ptx(const char *which);

#endif /* GS_BURN_H */
