/* SPDX-License-Identifier: MIT */
/*
 * runjob.h - inside `gpuscope run`: what the job loop (runjob.c) measured,
 * handed to the summary (runsum.c) that prints it as text or JSON.
 */
#ifndef GS_RECORD_RUNJOB_H
#define GS_RECORD_RUNJOB_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>

#include "record/record.h"

#define RUN_MAX_PROCS 256
#define RUN_MAX_GPUS 64
#define RUN_MAX_SIGNALS 8

/* A process of the job's tree on a GPU, followed at every tick (and the final sample). */
struct run_proc {
    uint32_t pid;
    char name[96];
    uint64_t gpus;            /* bit per GPU index */
    double peak_mib, first_mib, last_mib; /* GPU memory summed over its GPUs, per tick */
    unsigned nsamples, rises, falls;
    bool torch;               /* the Python hook gave PyTorch's figures (run --python) */
    uint64_t torch_max_allocated, torch_max_reserved, torch_retries, torch_ooms; /* summed over its GPUs */
    char alloc_conf[96];
};

/* Energy of one GPU over the job: the cumulative counter at the first sample (taken
 * before the command starts) and at the final one (taken after it exited); where the
 * GPU has no counter, power integrated over the samples (trapezoids). */
struct run_energy {
    bool seen;
    bool have_start, have_end;
    uint64_t start_mj, end_mj;
    double power_j;           /* trapezoid integral of the power samples */
    int64_t last_t;           /* time and power of the previous sample, for it */
    double last_w;
    bool have_last;
    /* NVML's violation (throttle-time) counters, enum gs_viol, at the first and final sample */
    uint64_t viol_start_ns[GS_VIOL_COUNT], viol_end_ns[GS_VIOL_COUNT];
    uint32_t viol_start, viol_end; /* bit v: viol_*_ns[v] was read */
};

struct run_signal {
    int sig;
    bool forwarded;           /* sent on to the command (it had not received it itself) */
    bool after_exit;          /* arrived with or after the command's end: nothing to forward to */
};

struct run_result {
    pid_t child;
    int exit_status;          /* as gpuscope exits: the code, 128 + signal, 127 */
    int term_signal;          /* the signal that killed the command, 0 if it exited */
    int64_t t0, t1;           /* stored times of the first and of the final sample */
    double wall_s;            /* command start to its end (virtual time on the test clock) */
    double real_s;            /* the same on the real clock (for CPU %) */
    struct rusage ru;         /* the command and the descendants it waited for (wait4) */
    bool have_ru;
    struct run_proc procs[RUN_MAX_PROCS];
    unsigned nprocs;
    uint64_t gpus;            /* GPU indexes the tree used */
    struct run_energy energy[RUN_MAX_GPUS];   /* by GPU index */
    struct run_signal signals[RUN_MAX_SIGNALS];
    unsigned nsignals;
};

/* Print the summary (text, or JSON with --json) to -o FILE or stderr; FILE first,
 * so that a job stopped with its terminal still leaves it. */
void gs_run_summary(struct gs_store *st, const struct gs_run_opts *o, const struct run_result *r);

/* Time throttled per reason (out_s by GS_THROTTLE_* bit) on the GPU of index idx
 * (store id gpu_id) over [from_ms, to_ms): a violation counter's difference between
 * the first and the final sample where it was read at both (exact, as the energy
 * counter gives energy: the job's last seconds included), else the throttle on/off
 * events the store derives from the sampled reason mask (at the sampling interval's
 * resolution). Returns whether any reason came from the counters. */
bool gs_run_throttle(struct gs_store *st, const struct run_result *r, int idx, int gpu_id, int64_t from_ms,
                     int64_t to_ms, double out_s[16]);

#endif /* GS_RECORD_RUNJOB_H */
