/* SPDX-License-Identifier: MIT */
/*
 * scenario_cuda.h - the `cuda` lines of a scenario: what the CUDA driver API
 * simulator (simcuda/, libcuda.so.1) models of each GPU, the faults it
 * injects, and how the NVML simulator's readings answer the load it reports
 * (sim/sim_load.c). Both simulators parse the same file, so they agree on the
 * GPUs, the scenario clock and the times a GPU is lost. docs/SIMULATOR.md,
 * "CUDA". Part of the stand-alone parser.
 *
 *   cuda system driver=12.4 init_error=NO_DEVICE
 *   cuda gpu=all sms=4 memory=8MiB fp32=4GFLOPS speed=1 temp_load=78C tau=20s
 *   cuda corrupt gpu=1 launch=5 count=3 [kernel=gs_burn_rot32] [persist]
 *   cuda corrupt gpu=1 at=30s count=1
 *   cuda fault cuLaunchKernel gpu=0 call=7 error=LAUNCH_FAILED [persist]
 */
#ifndef GS_SIM_SCENARIO_CUDA_H
#define GS_SIM_SCENARIO_CUDA_H

#include <stdint.h>

#include "scenario.h"

#define GS_SCN_CUDA_MAX_FAULTS 32

/* One simulated CUDA device; every number is a plain constant. */
struct gs_scn_cuda_gpu {
    double sms;              /* multiprocessors (4) */
    double clock_mhz;        /* reported SM clock (1410 = the NVML max clock by default) */
    double memory_bytes;     /* device memory CUDA reports and allocates (2 MiB) */
    double fp32_flops;       /* modelled peaks, FLOP/s (4e9, 2e9, 16e9) */
    double fp64_flops;
    double tensor_flops;
    double mem_bytes_per_s;  /* modelled memory bandwidth (0.2e9 B/s) */
    double speed;            /* multiplies every rate (1): a slow sibling is 0.6 */
    int cc_major, cc_minor;  /* -1: the NVML gpu line's cc */
    /* how the NVML simulator's readings follow the load (sim_load.c) */
    double temp_load_c;      /* steady temperature at full load (78) */
    double tau_s;            /* thermal time constant (20) */
    double power_demand;     /* power drawn at full load as a share of the enforced limit (1.1) */
    double clock_cap;        /* share of the maximum SM clock reached under load (1): clocks held low */
};

enum gs_scn_cuda_fault_kind { GS_SCN_CUDA_CORRUPT, GS_SCN_CUDA_ERROR };

struct gs_scn_cuda_fault {
    enum gs_scn_cuda_fault_kind kind;
    int gpu;                 /* -1: every GPU */
    char fn[48];             /* ERROR: the CUDA function ("cuLaunchKernel") */
    char kernel[32];         /* CORRUPT: the kernel's PTX entry; "": the compute kernels and gs_burn_mem_fill */
    unsigned long n;         /* the n-th matching call / launch (1-based); 0 with `at` */
    double at;               /* CORRUPT: the first launch that ends at or after at (s); <0: unused */
    unsigned count;          /* CORRUPT: words to flip (1) */
    int persist;             /* and every later match */
    int error;               /* ERROR: the CUresult */
};

struct gs_scn_cuda {
    int driver_version;      /* cuDriverGetVersion (12040) */
    int init_error;          /* cuInit's answer, 0 = success */
    struct gs_scn_cuda_gpu gpus[64];
    int nfaults;
    struct gs_scn_cuda_fault faults[GS_SCN_CUDA_MAX_FAULTS];
};

/* The scenario's CUDA section: its own, or the defaults when the file has no
 * `cuda` line (never NULL for a parsed scenario; s->cuda may be NULL). */
const struct gs_scn_cuda *gs_scn_cuda_of(const struct gs_scn *s);
/* CUDA error names: "LAUNCH_FAILED", "CUDA_ERROR_LAUNCH_FAILED", "719"; -1 if unknown. */
int gs_scn_cuda_error_code(const char *name);
const char *gs_scn_cuda_error_name(int code);   /* "CUDA_ERROR_LAUNCH_FAILED", NULL if unknown */
/* The CUDA functions a fault line may name (the simulator's exports), and
 * the kernels it runs (src/burn/kernels.h's entries): 1 if known. */
int gs_scn_cuda_fn_known(const char *name);
int gs_scn_cuda_kernel_known(const char *entry);

#endif /* GS_SIM_SCENARIO_CUDA_H */
